#!/usr/bin/env bash
# secret-scan.sh DIR RUNLOG: the secret scan of a test run. The
# feria instances of the tests logged every record, debug included, to
# DIR/log-*.jsonl and listed every token and key a request carried in
# DIR/secrets-*.txt, and wrote what their request journals stored (headers
# and bodies) to DIR/journal-*.jsonl (test/apptest/secrets.go). None of
# them, nor the S3 secret key, may appear in those logs, in a stored
# journal entry or in the run's own log.
set -uo pipefail
dir="$1" runlog="$2"
list="$dir/all-secrets.txt"
{
	cat "$dir"/secrets-*.txt 2>/dev/null
	if [ -n "${TEST_S3_SECRET_KEY:-}" ]; then echo "$TEST_S3_SECRET_KEY"; fi
} | awk 'length >= 8' | sort -u >"$list"
logs=("$dir"/log-*.jsonl)
[ -e "${logs[0]}" ] || logs=()
journals=("$dir"/journal-*.jsonl)
[ -e "${journals[0]}" ] || journals=()
lines=$(cat "${logs[@]}" /dev/null | wc -l)
entries=$(cat "${journals[@]}" /dev/null | wc -l)
hits=$(grep -F -n -f "$list" "${logs[@]}" "${journals[@]}" "$runlog" 2>/dev/null | head -20)
if [ -n "$hits" ]; then
	echo "secret scan: FAIL: a token or key the tests used is in a log or a stored journal entry:"
	echo "$hits" | cut -c1-300
	exit 1
fi
echo "secret scan: $(wc -l <"$list") tokens and keys used by the tests, none in $lines log lines of their feria instances, $entries stored journal entries or the test log"
