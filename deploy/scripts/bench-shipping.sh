#!/usr/bin/env bash
# bench-shipping.sh: the free-shipping cost load run (test/load/shipping) on
# the local PostgreSQL: a real listener on 127.0.0.1, requests/s, p50 and p99
# of the 50-item cost read beside the one-item read, and the ratio of their
# rates (the 50-item read must keep at least 25% of the one-item rate: it
# reads items, categories, sellers and rate tables once each).
# LOAD_DURATION / LOAD_CONCURRENCY shape the run.
set -euo pipefail
cd "$(dirname "$0")/../.."
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}"

echo "== shipping: HTTP load run (test/load/shipping) =="
go run ./test/load/shipping -db "$TEST_DATABASE_URL" \
	-duration "${LOAD_DURATION:-10s}" -concurrency "${LOAD_CONCURRENCY:-8}"
