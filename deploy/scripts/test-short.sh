#!/usr/bin/env bash
# test-short.sh is `make test-short`: the quick loop without any backing
# service. It runs, with -short, the packages whose tests do not use
# test/testenv (the real PostgreSQL, Redis and MinIO): the rules of core, the
# memory fakes and their contract suites, configuration, the architecture
# rule and the README's commands (embedded mode). The packages are chosen
# here, not skipped inside: `make test` runs every test, and a test that
# reaches testenv under -short fails, saying it was selected wrongly.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO="${GO:-go}"
. deploy/scripts/goflags.sh
start=$SECONDS
unformatted="$(gofmt -l $(git ls-files '*.go'))"
if [ -n "$unformatted" ]; then
	echo "gofmt needed: $unformatted"
	exit 1
fi
# Every test binary whose dependencies leave out testenv.
pkgs=$("$GO" list -test -f '{{if and (not .ForTest) (eq .Name "main")}}{{.ImportPath}} {{range .Deps}}{{if eq . "github.com/feria/feria/test/testenv"}}uses-testenv{{end}}{{end}}{{end}}' ./... |
	awk '/\.test / && !/uses-testenv/ { sub(/\.test$/, "", $1); print $1 }')
all=$("$GO" list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./... | grep -c . || true)
echo "make test-short: $(echo "$pkgs" | grep -c .) of $all test packages (those that need no backing service)"
# shellcheck disable=SC2086
"$GO" test -short -count=1 $pkgs
echo "make test-short: $((SECONDS - start)) s"
