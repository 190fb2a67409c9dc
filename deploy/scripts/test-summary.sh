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
echo "Adapter and end-to-end packages (tests passed, run against the real services):"
awk '/^[ \t]*--- PASS/ {n++} /^(ok|FAIL)[ \t]/ { if ($2 ~ /\/(adapters|test)\//) printf "  %-62s %4d\n", $2, n; n=0 }' "$log"
echo
echo "Subtests per backend:"
for s in postgres sqlite redis miniredis real embedded; do
	n=$(grep -cE "^\s*--- PASS: .*/${s}(/| |$)" "$log")
	printf '  %-11s %s\n' "$s" "$n"
done

echo
echo "Slowest tests:"
grep -E '^\s*--- (PASS|FAIL): \S+ \([0-9.]+s\)' "$log" | sed -E 's/^\s*--- (PASS|FAIL): (\S+) \(([0-9.]+)s\)/\3 \2/' |
	sort -rn | head -3 | awk '{ printf "  %6.1f s  %s\n", $1, $2 }'

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
