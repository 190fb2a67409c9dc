#!/usr/bin/env bash
# minio.sh makes sure a MinIO server answers at TEST_S3_ENDPOINT (default
# 127.0.0.1:9000; its console on the next port) for the tests and the local
# demo of feria. It is idempotent: a server that already answers is left
# alone, so every test run may call it. `minio.sh stop` stops the server this
# script started at that address (deploy/scripts/services.sh decides when).
#
# Environment (all optional):
#   TEST_S3_ENDPOINT     host:port      (default 127.0.0.1:9000)
#   MINIO_ROOT_USER      access key     (default TEST_S3_ACCESS_KEY, else feria-test)
#   MINIO_ROOT_PASSWORD  secret key     (default TEST_S3_SECRET_KEY, else feria-test-secret)
#   MINIO_DATA_DIR       data directory (default /tmp/feria-minio, /tmp/feria-minio-PORT off 9000)
#   MINIO_LOG            server log     (default the data directory's name .log)
set -euo pipefail

ADDR="${TEST_S3_ENDPOINT:-127.0.0.1:9000}"
PORT="${ADDR##*:}"
CONSOLE="${ADDR%:*}:$((PORT + 1))"
HEALTH="http://$ADDR/minio/health/live"
# Pinned so that every machine tests against the same server behaviour.
MINIO_PKG=github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c

export MINIO_ROOT_USER="${MINIO_ROOT_USER:-${TEST_S3_ACCESS_KEY:-feria-test}}"
export MINIO_ROOT_PASSWORD="${MINIO_ROOT_PASSWORD:-${TEST_S3_SECRET_KEY:-feria-test-secret}}"
default_dir=/tmp/feria-minio
[ "$PORT" = 9000 ] || default_dir="/tmp/feria-minio-$PORT"
DATA_DIR="${MINIO_DATA_DIR:-$default_dir}"
LOG="${MINIO_LOG:-$DATA_DIR.log}"
PIDFILE="$DATA_DIR.pid"

if [ "${1:-}" = stop ]; then
	pid="$(cat "$PIDFILE" 2>/dev/null || true)"
	# Only a MinIO server at this address, never a reused pid.
	if [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "minio server .*--address $ADDR"; then
		kill "$pid"
		for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
		kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
	fi
	rm -f "$PIDFILE"
	exit 0
fi

healthy() { curl -sf -o /dev/null --max-time 2 "$HEALTH"; }

if healthy; then
	echo "minio: already running on $ADDR"
	exit 0
fi

BIN="$(go env GOPATH)/bin/minio"

# A go install of minio may already be under way (started by hand or by an
# earlier run of this script): a second one would only race it for the same
# output file, so wait for it instead.
building() { pgrep -f "go install .*github.com/minio/minio@" >/dev/null 2>&1; }

if [ ! -x "$BIN" ] && building; then
	echo "minio: a go install of minio is already running (log /tmp/minio-build.log); waiting for it..."
	while building; do sleep 5; done
fi

if [ ! -x "$BIN" ]; then
	echo "minio: $BIN not found; building $MINIO_PKG (takes about 4 minutes)..."
	# Build outside the repository so that go install does not read or touch
	# feria's go.mod.
	tmp="$(mktemp -d)"
	trap 'rm -rf "$tmp"' EXIT
	if ! (cd "$tmp" && GOFLAGS=-mod=mod go install "$MINIO_PKG") >/tmp/minio-build.log 2>&1; then
		echo "minio: build failed; see /tmp/minio-build.log" >&2
		tail -n 20 /tmp/minio-build.log >&2 || true
		exit 1
	fi
	if [ ! -x "$BIN" ]; then
		echo "minio: build finished but $BIN is missing (GOBIN set?)" >&2
		exit 1
	fi
fi

mkdir -p "$DATA_DIR"
echo "minio: starting $BIN on $ADDR (console $CONSOLE), data $DATA_DIR, log $LOG"
# setsid detaches the server from this shell so it outlives the script.
setsid "$BIN" server "$DATA_DIR" --address "$ADDR" --console-address "$CONSOLE" \
	>"$LOG" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$PIDFILE"

for _ in $(seq 1 30); do
	if healthy; then
		echo "minio: ready (pid $pid)"
		exit 0
	fi
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "minio: server exited during start-up; last lines of $LOG:" >&2
		tail -n 20 "$LOG" >&2 || true
		exit 1
	fi
	sleep 1
done

echo "minio: no answer from $HEALTH after 30 s; last lines of $LOG:" >&2
tail -n 20 "$LOG" >&2 || true
exit 1
