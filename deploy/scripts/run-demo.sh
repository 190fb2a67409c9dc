#!/usr/bin/env bash
# run-demo.sh is `make run`: feria in its embedded mode (SQLite, in-process
# Redis, files under ./var) on one port, with the demo world loaded through
# the sandbox API. Ctrl-C stops it.
set -euo pipefail
addr="${1:-:8080}"
key="${2:-feria-demo-sandbox-key}"
admin="${3:-feria-demo-admin-key}"
port="${addr##*:}"
base="http://127.0.0.1:${port}"

HTTP_ADDR="$addr" SANDBOX_KEY="$key" ADMIN_KEY="$admin" DATA_DIR="${DATA_DIR:-./var}" ./bin/feria all &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid' INT TERM

for _ in $(seq 1 50); do
	curl -sf -o /dev/null "$base/health/ready" && break
	kill -0 $pid 2>/dev/null || { echo "feria exited; see the lines above" >&2; exit 1; }
	sleep 0.2
done

for f in deploy/demo/fixtures.json; do
	[ -f "$f" ] || continue
	if curl -sf -o /dev/null -X POST -H "X-Sandbox-Key: $key" -H 'Content-Type: application/json' \
		--data-binary "@$f" "$base/sandbox/fixtures"; then
		echo "demo world loaded from $f"
	else
		echo "loading $f failed:" >&2
		curl -s -X POST -H "X-Sandbox-Key: $key" -H 'Content-Type: application/json' --data-binary "@$f" "$base/sandbox/fixtures" >&2 || true
	fi
done

cat <<EOT

feria is running on $base (embedded mode: SQLite and files under ${DATA_DIR:-./var}, in-process Redis).
Sandbox key: $key   Jobs dashboard: $base/admin/jobs (user admin, password $admin)
Try the curl lines of the README. Ctrl-C stops feria.

EOT
wait $pid
