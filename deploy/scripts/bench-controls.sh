#!/usr/bin/env bash
# bench-controls.sh: what the sandbox's test controls cost (test/load/controls)
# on the local PostgreSQL and Redis: a cheap public route (the item read)
# served with the journal and the guard (fault rules, rate limits) off, each
# alone, and both, in interleaved rounds of the same run; requests/s, p50,
# p99, the share of the route's rate the controls take (at most 25% with no
# rule matching), and the rate with a limit matching every request.
# LOAD_DURATION (each configuration's share), LOAD_ROUNDS and
# LOAD_CONCURRENCY shape the run.
set -euo pipefail
cd "$(dirname "$0")/../.."
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}"
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379/0}"

echo "== controls: HTTP load run (test/load/controls) =="
go run ./test/load/controls -db "$TEST_DATABASE_URL" -redis "$TEST_REDIS_URL" \
	-duration "${LOAD_DURATION:-10s}" -rounds "${LOAD_ROUNDS:-5}" -concurrency "${LOAD_CONCURRENCY:-8}"
