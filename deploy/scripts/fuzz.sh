#!/usr/bin/env bash
# fuzz.sh [FUZZTIME]: runs every Go fuzz target of the module, each for
# FUZZTIME (default 1000x: a fixed count of inputs, which a loaded machine
# cannot turn into a deadline failure; `make fuzz` gives 30s). Seed corpora
# are the f.Add calls and testdata/fuzz/ of each package (they also run as
# plain tests in `make test`); an input that fails is written to
# testdata/fuzz/ as go test writes it, to be committed as a regression seed
# once fixed. Prints one line per target and a total.
#
# Most of a short run is the instrumented build, so each package is built
# once (`go test -c -fuzz`, as `go test -fuzz` builds it) and its binary then
# runs each of the package's targets, in the package's directory and with
# go test's corpus cache, as `go test -fuzz` would run it.
set -uo pipefail
cd "$(dirname "$0")/../.."
GO="${GO:-go}"
. deploy/scripts/goflags.sh
fuzztime="${1:-${FUZZTIME:-1000x}}"
status=0 n=0 start=$SECONDS
bin="$(mktemp -d "${TMPDIR:-/tmp}/feria-fuzz-XXXXXX")"
trap 'rm -rf "$bin"' EXIT
cache="$("$GO" env GOCACHE)/fuzz"
while read -r dir; do
	targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go | sed 's/^func //' | sort)
	pkg="$("$GO" list "./$dir")"
	exe="$bin/$(echo "$dir" | tr / _).test"
	t0=$SECONDS
	if ! out="$("$GO" test -c -o "$exe" -fuzz "^($(echo $targets | tr ' ' '|'))\$" "./$dir" 2>&1)"; then
		status=1
		echo "fuzz: FAIL $dir: build"
		echo "$out" | tail -20
		continue
	fi
	echo "fuzz: built $dir ($((SECONDS - t0)) s)"
	for target in $targets; do
		n=$((n + 1))
		t0=$SECONDS
		out="$(cd "$dir" && "$exe" -test.run '^$' -test.fuzz "^${target}\$" -test.fuzztime "$fuzztime" \
			-test.fuzzcachedir "$cache/$pkg" -test.paniconexit0 2>&1)"
		if [ $? -ne 0 ]; then
			status=1
			echo "fuzz: FAIL $dir $target"
			echo "$out" | grep -v '^fuzz: elapsed' | tail -20
		else
			execs="$(echo "$out" | grep -o 'execs: [0-9]*' | tail -1)"
			echo "fuzz: ok   $dir $target (${execs:-execs: ?} in $fuzztime, $((SECONDS - t0)) s)"
		fi
	done
done < <(git ls-files '*_test.go' | xargs grep -l '^func Fuzz' | xargs -n1 dirname | sort -u)
echo "fuzz: $n targets, $fuzztime each, $((SECONDS - start)) s"
exit "$status"
