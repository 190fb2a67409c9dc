#!/usr/bin/env bash
# minio.sh makes sure a MinIO server answers on 127.0.0.1:9000 (console on
# 127.0.0.1:9001) for the tests and the local demo of feria. It is idempotent:
# a server that already answers is left alone, so every test run may call it.
#
# Environment (all optional):
#   MINIO_ROOT_USER      access key     (default feria-test)
#   MINIO_ROOT_PASSWORD  secret key     (default feria-test-secret)
#   MINIO_DATA_DIR       data directory (default /tmp/feria-minio)
#   MINIO_LOG            server log     (default /tmp/feria-minio.log)
set -euo pipefail

ADDR=127.0.0.1:9000
CONSOLE=127.0.0.1:9001
HEALTH="http://$ADDR/minio/health/live"
# Pinned so that every machine tests against the same server behaviour.
MINIO_PKG=github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c

export MINIO_ROOT_USER="${MINIO_ROOT_USER:-feria-test}"
export MINIO_ROOT_PASSWORD="${MINIO_ROOT_PASSWORD:-feria-test-secret}"
DATA_DIR="${MINIO_DATA_DIR:-/tmp/feria-minio}"
LOG="${MINIO_LOG:-/tmp/feria-minio.log}"

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
