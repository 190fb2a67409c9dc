#!/usr/bin/env bash
# lint-openapi.sh lints the API contract, docs/openapi.yaml, with Redocly's
# CLI (its recommended rules) at a pinned version, fetched from npm by npx
# on first use and cached after; `make test` fails on any error (warnings
# are listed, not fatal).
set -uo pipefail
cd "$(dirname "$0")/../.."
REDOCLY_CLI_VERSION=2.12.0
if ! command -v npx >/dev/null 2>&1; then
	echo "lint-openapi: npx (Node.js and npm) is needed to lint docs/openapi.yaml: apt-get install -y nodejs npm"
	exit 1
fi
echo "npx @redocly/cli@$REDOCLY_CLI_VERSION lint docs/openapi.yaml"
npx --yes "@redocly/cli@$REDOCLY_CLI_VERSION" lint --format=summary docs/openapi.yaml 2>&1 | tail -n 20
exit "${PIPESTATUS[0]}"
