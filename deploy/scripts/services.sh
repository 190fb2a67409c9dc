#!/usr/bin/env bash
# services.sh manages the local services the tests use: PostgreSQL, Redis
# and MinIO at the local addresses of TEST_DATABASE_URL, TEST_REDIS_URL and
# TEST_S3_ENDPOINT (services elsewhere are left to whoever runs them).
#
#   services.sh up            start what does not answer, and keep it running
#                             (make services, make bench)
#   services.sh acquire PID   start what does not answer, and register the
#                             process PID (a `make test` run) as a user of each
#   services.sh release PID   unregister PID; a service that a test run
#                             started and that no live run uses any more is
#                             stopped, unless KEEP_SERVICES=1
#   services.sh status        the registry
#
# The registry (FERIA_SERVICES_DIR, default /tmp/feria-services) is shared by
# every clone on the machine, under a lock: <service>.started marks a service
# a test run started; <service>.users/<pid> holds each run using it. A run
# that died without releasing (kill -9, a crash) is recognised by its pid no
# longer running (or running another program) and no longer counts, so the
# last run out stops what the runs started, and a service that was already
# running before any test run is never stopped. With KEEP_SERVICES=1 the
# services stay up, still marked: the next run without it stops them.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
REG="${FERIA_SERVICES_DIR:-/tmp/feria-services}"
mkdir -p "$REG"

# host and port of a URL or host:port, with a default port.
hostport() {
	local u="${1#*://}"
	u="${u%%/*}"
	u="${u%%\?*}"
	u="${u##*@}"
	if [[ "$u" == *:* ]]; then echo "${u%:*} ${u##*:}"; else echo "$u $2"; fi
}
local_host() { [ "$1" = 127.0.0.1 ] || [ "$1" = localhost ]; }

# The managed services of this run's environment: kind:host:port.
services=()
read -r h p < <(hostport "${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}" 5432)
if local_host "$h"; then services+=("postgres:$h:$p"); fi
read -r h p < <(hostport "${TEST_REDIS_URL:-redis://127.0.0.1:6379/0}" 6379)
if local_host "$h"; then services+=("redis:$h:$p"); fi
read -r h p < <(hostport "${TEST_S3_ENDPOINT:-127.0.0.1:9000}" 9000)
if local_host "$h"; then services+=("minio:$h:$p"); fi

pg_cluster() { pg_lsclusters -h 2>/dev/null | awk -v p="$1" '$3 == p { print $1, $2; exit }'; }

is_up() {
	local kind=$1 host=$2 port=$3
	case $kind in
	postgres) pg_isready -q -h "$host" -p "$port" 2>/dev/null ;;
	redis) redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1 ;;
	minio) curl -sf -o /dev/null --max-time 2 "http://$host:$port/minio/health/live" ;;
	esac
}

# start brings a service up; children never inherit the registry lock (fd 9).
start() {
	local kind=$1 host=$2 port=$3
	case $kind in
	postgres)
		local cluster
		cluster="$(pg_cluster "$port")"
		if [ -z "$cluster" ] || ! command -v pg_ctlcluster >/dev/null; then
			echo "services: no PostgreSQL cluster on port $port; install PostgreSQL or set TEST_DATABASE_URL" >&2
			return 1
		fi
		echo "services: starting PostgreSQL $cluster on $port"
		# shellcheck disable=SC2086
		pg_ctlcluster --skip-systemctl-redirect $cluster start 9>&-
		;;
	redis)
		if ! command -v redis-server >/dev/null; then
			echo "services: redis-server is not installed; install it or set TEST_REDIS_URL" >&2
			return 1
		fi
		echo "services: starting Redis on $host:$port"
		redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no >/dev/null 9>&-
		;;
	minio) TEST_S3_ENDPOINT="$host:$port" bash "$here/minio.sh" 9>&- ;;
	esac
	for _ in $(seq 1 60); do
		is_up "$kind" "$host" "$port" && return 0
		sleep 0.5
	done
	echo "services: $kind on $host:$port did not start" >&2
	return 1
}

stop() {
	local kind=$1 host=$2 port=$3
	case $kind in
	postgres)
		# shellcheck disable=SC2086
		pg_ctlcluster --skip-systemctl-redirect $(pg_cluster "$port") stop 9>&- || true
		;;
	redis) redis-cli -h "$host" -p "$port" shutdown nosave >/dev/null 2>&1 || true ;;
	minio) TEST_S3_ENDPOINT="$host:$port" bash "$here/minio.sh" stop 9>&- || true ;;
	esac
	echo "services: stopped $kind on $host:$port (a test run started it; no run uses it now)"
}

# A run is alive while its pid runs the same process it registered (the
# start time tells a reused pid apart).
starttime() { sed -E 's/^.*\) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }
alive() {
	local pid=$1 want=$2
	[ -n "$want" ] && [ "$(starttime "$pid")" = "$want" ]
}
prune() {
	local dir=$1 f
	for f in "$dir"/*; do
		[ -e "$f" ] || continue
		alive "$(basename "$f")" "$(cat "$f")" || rm -f "$f"
	done
}
users() { find "$1" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }

lock() {
	exec 9>"$REG/lock"
	flock 9
}

cmd="${1:-up}"
case $cmd in
up)
	lock
	for s in "${services[@]}"; do
		IFS=: read -r kind host port <<<"$s"
		id="$kind-$port"
		if ! is_up "$kind" "$host" "$port"; then
			start "$kind" "$host" "$port"
		elif [ -e "$REG/$id.started" ]; then
			echo "services: $kind on $host:$port, started by a test run, is now kept running"
		fi
		rm -f "$REG/$id.started"
		echo "services: $kind ready on $host:$port"
	done
	;;
acquire)
	run="${2:?usage: services.sh acquire PID}"
	lock
	for s in "${services[@]}"; do
		IFS=: read -r kind host port <<<"$s"
		id="$kind-$port"
		mkdir -p "$REG/$id.users"
		prune "$REG/$id.users"
		if ! is_up "$kind" "$host" "$port"; then
			rm -f "$REG/$id.started"
			start "$kind" "$host" "$port"
			echo "run $run, $(date -u +%FT%TZ)" >"$REG/$id.started"
		fi
		starttime "$run" >"$REG/$id.users/$run"
		echo "services: $kind ready on $host:$port"
	done
	;;
release)
	run="${2:?usage: services.sh release PID}"
	lock
	for s in "${services[@]}"; do
		IFS=: read -r kind host port <<<"$s"
		id="$kind-$port"
		rm -f "$REG/$id.users/$run"
		prune "$REG/$id.users"
		[ -e "$REG/$id.started" ] || continue
		if [ "$(users "$REG/$id.users")" -gt 0 ]; then
			echo "services: $kind on $host:$port stays up: $(users "$REG/$id.users") other test run(s) use it"
		elif [ "${KEEP_SERVICES:-}" = 1 ]; then
			echo "services: $kind on $host:$port left running (KEEP_SERVICES=1); the next make test without it stops it"
		else
			stop "$kind" "$host" "$port"
			rm -f "$REG/$id.started"
		fi
	done
	rmdir "$REG"/*.users 2>/dev/null || true # the empty ones
	;;
status)
	lock
	for s in "${services[@]}"; do
		IFS=: read -r kind host port <<<"$s"
		id="$kind-$port"
		prune "$REG/$id.users" 2>/dev/null || true
		state=down
		is_up "$kind" "$host" "$port" && state=up
		started="not started by a test run, never stopped by one"
		[ -e "$REG/$id.started" ] && started="started by a test run ($(cat "$REG/$id.started")), stopped by the last run out"
		echo "$kind $host:$port: $state; $started; runs using it: $(users "$REG/$id.users")"
	done
	;;
*)
	echo "usage: services.sh up | acquire PID | release PID | status" >&2
	exit 2
	;;
esac
