#!/usr/bin/env bash
# services.sh makes sure the local test services of this project's machines
# run: PostgreSQL and Redis (installed on every machine, possibly stopped) and
# MinIO (built once from the Go module proxy, see minio.sh). Idempotent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
	if ! command -v pg_ctlcluster >/dev/null || [ ! -d /etc/postgresql ]; then
		echo "services: PostgreSQL is not installed; install it or set TEST_DATABASE_URL" >&2
		exit 1
	fi
	echo "services: starting PostgreSQL"
	pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start
	for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
	pg_isready -q -h 127.0.0.1 -p 5432 || { echo "services: PostgreSQL did not start" >&2; exit 1; }
fi
echo "services: PostgreSQL ready on 127.0.0.1:5432"

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
	if ! command -v redis-server >/dev/null; then
		echo "services: redis-server is not installed; install it or set TEST_REDIS_URL" >&2
		exit 1
	fi
	echo "services: starting Redis"
	redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
	for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
	redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || { echo "services: Redis did not start" >&2; exit 1; }
fi
echo "services: Redis ready on 127.0.0.1:6379"

bash "$here/minio.sh"
