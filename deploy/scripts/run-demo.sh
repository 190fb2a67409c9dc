#!/usr/bin/env bash
# run-demo.sh is `make run`: feria in its embedded mode (SQLite, in-process
# Redis, files under ./var) on one port, with the demo world: feria loads
# deploy/demo/fixtures.json itself at start-up (FIXTURES_FILE) and refuses
# to start on a bad entry; the two steps fixtures cannot express follow
# through the API. Ctrl-C stops it.
set -euo pipefail
addr="${1:-:8080}"
key="${2:-feria-demo-sandbox-key}"
admin="${3:-feria-demo-admin-key}"
port="${addr##*:}"
base="http://127.0.0.1:${port}"

HTTP_ADDR="$addr" SANDBOX_KEY="$key" ADMIN_KEY="$admin" DATA_DIR="${DATA_DIR:-./var}" \
	FIXTURES_FILE=deploy/demo/fixtures.json ./bin/feria all &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid' INT TERM

for _ in $(seq 1 50); do
	curl -sf -o /dev/null "$base/health/ready" && break
	kill -0 $pid 2>/dev/null || { echo "feria exited; see the lines above" >&2; exit 1; }
	sleep 0.2
done

# Compatibilities are no sandbox collection, so they cannot be fixtures: the
# seller declares the vehicles MLA1100 fits through the public API as an
# integration would; then a buyer of one of them files a claim (order
# 2000002), whose snapshot is taken when it is first stored, so after them.
curl -sf -o /dev/null -X POST -H 'Authorization: Bearer APP_USR-demo-seller' -H 'Content-Type: application/json' \
	--data-binary @deploy/demo/compatibilities.json "$base/items/MLA1100/compatibilities" &&
	curl -sf -o /dev/null -X PUT -H "X-Sandbox-Key: $key" -H 'Content-Type: application/json' \
		--data-binary @deploy/demo/claim-order.json "$base/sandbox/orders/2000002" &&
	echo "demo compatibilities of MLA1100 and claim order 2000002 loaded" ||
	echo "loading the demo compatibilities failed" >&2

cat <<EOT

feria is running on $base (embedded mode: SQLite and files under ${DATA_DIR:-./var}, in-process Redis).
Sandbox key: $key   Jobs dashboard: $base/admin/jobs (user admin, password $admin)
Try the curl lines of the README. Ctrl-C stops feria.

EOT
wait $pid
