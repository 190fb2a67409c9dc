#!/usr/bin/env bash
# bench-contacts.sh: the contact statistics benchmarks, on the real local
# services, beside redis-benchmark on the same Redis in the same run:
#   1. Go benchmarks of the Redis adapter (ingestion events/s, window and
#      year-total reads, memory per item-year) against TEST_REDIS_URL;
#   2. the HTTP load run (test/load/contacts): a real listener on 127.0.0.1,
#      p50/p99 and requests/s of a 30-day daily window for 50 ids and of a
#      1-year date-range total;
#   3. redis-benchmark -q -n 100000 -t set,get,incr,lpush on 127.0.0.1:6379.
# Set CONTACTS_BENCH_GO=0 to skip step 1 (when `go test -bench` of every
# package already ran it), LOAD_DURATION / LOAD_CONCURRENCY to shape step 2.
set -euo pipefail
cd "$(dirname "$0")/../.."
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}"
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379/0}"

if [ "${CONTACTS_BENCH_GO:-1}" != "0" ]; then
	echo "== contacts: Go benchmarks of adapters/redisstore/contactsredis (real Redis at $TEST_REDIS_URL) =="
	go test -run '^$' -bench . -benchmem -benchtime "${BENCHTIME:-1s}" -count 1 -timeout 20m ./adapters/redisstore/contactsredis/
	echo
fi

echo "== contacts: HTTP load run (test/load/contacts) =="
go run ./test/load/contacts -db "$TEST_DATABASE_URL" -redis "$TEST_REDIS_URL" \
	-duration "${LOAD_DURATION:-10s}" -concurrency "${LOAD_CONCURRENCY:-8}"
echo

echo "== redis-benchmark on 127.0.0.1:6379 (same run, for reference) =="
# -q still prints progress lines ending in CR; keep the summaries.
redis-benchmark -h 127.0.0.1 -p 6379 -q -n 100000 -t set,get,incr,lpush | tr '\r' '\n' | grep 'requests per second'
