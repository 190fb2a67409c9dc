#!/usr/bin/env bash
# prism.sh installs Stoplight Prism, the outside OpenAPI validator that
# test/e2e/prism_test.go runs in proxy mode in front of feria, at the
# version pinned by deploy/prism/package-lock.json, into a cache directory
# outside the clone (PRISM_DIR, default ~/.cache/feria-prism), with `npm ci`
# when that directory does not hold this lock's install yet. It prints the
# path of the prism binary; the test finds it there (PRISM_DIR too).
set -euo pipefail
cd "$(dirname "$0")/../.."
dir="${PRISM_DIR:-$HOME/.cache/feria-prism}"
bin="$dir/node_modules/.bin/prism"
if [ -x "$bin" ] && cmp -s deploy/prism/package-lock.json "$dir/package-lock.json"; then
	echo "$bin"
	exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "prism.sh: npm (Node.js) is needed to install Prism: apt-get install -y nodejs npm" >&2
	exit 1
fi
mkdir -p "$dir"
cp deploy/prism/package.json deploy/prism/package-lock.json "$dir/"
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
echo "$bin"
