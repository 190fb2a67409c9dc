#!/usr/bin/env bash
# bench.sh is `make bench`: every Go benchmark of feria against the real
# local services, then each deploy/scripts/bench-*.sh (load runs over HTTP:
# bench-contacts.sh with redis-benchmark on the same Redis in the same run,
# so that feria's numbers can be read beside what the machine's Redis does
# alone; bench-shipping.sh, the 50-item free-shipping cost read beside the
# one-item read; bench-webhooks.sh, notifications delivered per second by a
# `feria worker` process apart from the API).
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${BENCH_OUT:-/tmp/feria-bench.txt}"

echo "== Go benchmarks (go test -bench, real PostgreSQL/Redis/MinIO) =="
pkgs=$(grep -rl --include='*_test.go' '^func Benchmark' . | xargs -r -n1 dirname | sort -u)
if [ -z "$pkgs" ]; then
	echo "no benchmarks found" >&2
	exit 1
fi
# shellcheck disable=SC2086
go test -run '^$' -bench . -benchmem -benchtime "${BENCHTIME:-1s}" -count 1 -timeout 30m $pkgs | tee "$out"

for script in deploy/scripts/bench-*.sh; do
	[ -f "$script" ] || continue
	echo
	echo "== $script =="
	CONTACTS_BENCH_GO=0 bash "$script"
done

