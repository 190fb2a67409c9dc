#!/usr/bin/env bash
# fuzz.sh [FUZZTIME]: runs every Go fuzz target of the module, one after the
# other, each for FUZZTIME (default 1000x: a fixed count of inputs, which a loaded machine cannot turn into a deadline failure; `make fuzz` gives 30s). Seed
# corpora are the f.Add calls and testdata/fuzz/ of each package; an input
# that fails is written to testdata/fuzz/ by go test, to be committed as a
# regression seed once fixed. Prints one line per target and a total.
set -uo pipefail
cd "$(dirname "$0")/../.."
GO="${GO:-go}"
fuzztime="${1:-${FUZZTIME:-1000x}}"
status=0 n=0 start=$SECONDS
while read -r file; do
	dir="$(dirname "$file")"
	for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //'); do
		n=$((n + 1))
		out="$("$GO" test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "./$dir" 2>&1)"
		if [ $? -ne 0 ]; then
			status=1
			echo "fuzz: FAIL $dir $target"
			echo "$out" | grep -v '^fuzz: elapsed' | tail -20
		else
			execs="$(echo "$out" | grep -o 'execs: [0-9]*' | tail -1)"
			echo "fuzz: ok   $dir $target (${execs:-execs: ?} in $fuzztime)"
		fi
	done
done < <(git ls-files '*_test.go' | xargs grep -l '^func Fuzz' | sort)
echo "fuzz: $n targets, $fuzztime each, $((SECONDS - start)) s"
exit "$status"
