#!/usr/bin/env bash
# bench-webhooks.sh: notifications delivered per second to a local receiver
# that answers 200 at once, by a `feria worker` process apart from the API
# (test/load/webhooks): the API on a PostgreSQL schema of its own, a
# redis-server of the run's own on a free port (the shared Redis is never
# written), WEBHOOKS_N notifications (default 3000) made before the worker
# starts. Needs redis-server on PATH.
set -euo pipefail
cd "$(dirname "$0")/../.."
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}"

echo "== webhooks: deliveries by a worker process (test/load/webhooks) =="
go run ./test/load/webhooks -db "$TEST_DATABASE_URL" -n "${WEBHOOKS_N:-3000}"
