#!/usr/bin/env bash
# bench.sh is `make bench` (full), `make bench-quick` (quick) and `make
# bench-all` (all). full and quick run the ratio harness (test/load/bench):
# two child `feria serve` (as deployed, and with the sandbox on) on a
# PostgreSQL schema, a redis-server and a MinIO bucket of the run's own,
# each hot path measured on both beside its minimal anchor on the same
# backends (those behind HTTP served by a process of their own, as feria
# is) in interleaved rounds, the load from wrk pinned to one core
# (requests/s, ratio, p50/p99, every process's CPU per request and whether
# the client stayed under the server's, p99 at half load from vegeta, RSS
# idle and under load), one `feria worker`'s jobs/s, and the embedded
# mode's RSS under the same load; the table is printed and written as
# markdown to BENCH_MD, and into BENCH_DOC when set (make bench
# BENCH_DOC=docs/performance.md: the file keeps the latest full run's).
# Before the rounds it creates worlds (full 1,000, quick 20) through the
# sandbox on the same backends: creation and deletion p50/p99, what one
# world costs empty and seeded (schema bytes, Redis keys and bytes,
# objects); the paths then also run in a seeded world, each beside the
# same path at the root (goal: 0.9 of its rate).
# quick: 2 short rounds and a smaller world, under 5 minutes; full: 3
# rounds, 100,000 products, about 20. all: full, then every Go benchmark
# of feria against the real local services and each
# deploy/scripts/bench-*.sh (the per-area load runs: contacts with
# redis-benchmark, controls, shipping, webhooks).
set -euo pipefail
cd "$(dirname "$0")/../.."
mode="${1:-full}"
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}"
export TEST_S3_ENDPOINT="${TEST_S3_ENDPOINT:-127.0.0.1:9000}"
export TEST_S3_ACCESS_KEY="${TEST_S3_ACCESS_KEY:-feria-test}"
export TEST_S3_SECRET_KEY="${TEST_S3_SECRET_KEY:-feria-test-secret}"
md="${BENCH_MD:-/tmp/feria-bench.md}"

flags=()
# The soak runs 2 minutes in full; quick leaves it out (make test runs it
# for 10 s), since its recovery of a killed worker's jobs alone waits on
# asynq's lease for a minute or more, and quick keeps to 5 minutes.
soak=2m
case "$mode" in
quick) flags=(-quick) soak= ;;
full | all) ;;
*)
	echo "usage: bench.sh full|quick|all" >&2
	exit 2
	;;
esac

# wrk is the harness's load generator (Debian's package): installed here
# when missing and we may (root with apt-get); the harness stops, naming
# the package, where it is still missing.
if ! command -v wrk >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "apt-get install -y wrk"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null ||
		{ apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null; } ||
		echo "wrk could not be installed"
fi

# BENCH_DOC (docs/performance.md): the run's table, and the soak's
# figures, also go between that file's generated markers.
doc=()
[ -z "${BENCH_DOC:-}" ] || doc=(-doc "$BENCH_DOC")

echo "== ratio harness ($mode): test/load/bench =="
go run ./test/load/bench "${flags[@]}" "${doc[@]}" -db "$TEST_DATABASE_URL" -s3 "$TEST_S3_ENDPOINT" \
	-s3-access-key "$TEST_S3_ACCESS_KEY" -s3-secret-key "$TEST_S3_SECRET_KEY" -md "$md"

# The soak (test/e2e TestSoak): 16 clients of world loads, fiscal uploads,
# compatibility writes, contact events, notifications and reads against two
# API and two worker processes while a worker is killed and Redis restarts;
# it prints its figures (requests, answers >= 500 by status, what the
# checker read back, the API's RSS and sockets at start and end), also
# added to BENCH_MD.
[ -n "$soak" ] || exit 0
echo
echo "== soak (${SOAK_DURATION:-$soak}) =="
soak_log="$(mktemp)"
SOAK_DURATION="${SOAK_DURATION:-$soak}" go test -count=1 -run '^TestSoak$' -v -timeout 30m ./test/e2e/ >"$soak_log" 2>&1 || soak_failed=1
grep -E 'soak|FAIL|^ok|Error' "$soak_log" || true
soak_md="$(mktemp)"
{
	printf '**Soak** (test/e2e `TestSoak`): '
	grep -o 'soak figures.*' "$soak_log" | sed 's/^soak figures (\([^)]*\)): /\1: /' || echo "no figures: the soak failed"
} >"$soak_md"
{
	echo
	cat "$soak_md"
} >>"$md"
if [ -n "${BENCH_DOC:-}" ]; then
	awk -v f="$soak_md" '/^<!-- make bench: end -->/ { while ((getline l < f) > 0) print l; print "" } { print }' \
		"$BENCH_DOC" >"$soak_md.doc" && mv "$soak_md.doc" "$BENCH_DOC"
fi
rm -f "$soak_log" "$soak_md"
[ -z "${soak_failed:-}" ] || exit 1
[ "$mode" = all ] || exit 0

out="${BENCH_OUT:-/tmp/feria-bench.txt}"
echo
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
