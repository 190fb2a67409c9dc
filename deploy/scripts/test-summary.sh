#!/usr/bin/env bash
# test-summary.sh prints what a verbose `go test ./...` log says: each
# package's result, every failure with its output, the suites that ran against
# each real service, and one closing "N passed, N failed" line. A skipped test
# is a failure: in CI every integration test must run.
set -uo pipefail
log="$1"
status="${2:-0}"

grep -E '^(ok|FAIL|---|\?)\s' "$log" | grep -vE '^\s*--- (PASS|SKIP)' | grep -E '^(ok|FAIL)' || true

passed=$(grep -cE '^\s*--- PASS' "$log")
failed=$(grep -cE '^\s*--- FAIL' "$log")
skipped=$(grep -cE '^\s*--- SKIP' "$log")

echo
echo "Contract and integration suites that ran against real services:"
for s in postgres sqlite redis miniredis s3 filesystem real embedded; do
	n=$(grep -cE "^\s*--- PASS: .*/${s}(/| |$)" "$log")
	printf '  %-11s %s subtests passed\n' "$s" "$n"
done

if [ "$failed" -gt 0 ] || [ "$status" -ne 0 ]; then
	echo
	echo "Failures:"
	grep -nE '^\s*--- FAIL|^FAIL|panic:|\.go:[0-9]+:' "$log" | head -200
fi
if [ "$skipped" -gt 0 ]; then
	echo
	echo "Skipped tests (not allowed: provide the service instead):"
	grep -E '^\s*--- SKIP' -A3 "$log" | head -50
fi
echo
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
if [ "$status" -ne 0 ] || [ "$failed" -gt 0 ] || [ "$skipped" -gt 0 ]; then
	exit 1
fi
