#!/usr/bin/env bash
# test.sh is `make test`: go vet, a gofmt check and every test against the
# real local services, then the summary (test-summary.sh). The verbose log
# goes to a file of this run's own, named at the end, so that runs in two
# clones at once (or beside CI) never share one.
#
# The services come from services.sh: what does not answer is started, this
# run registers as a user of each, and on the way out (pass, fail or Ctrl-C)
# a service that a test run started and that no other live run uses is
# stopped, unless KEEP_SERVICES=1.
set -uo pipefail
cd "$(dirname "$0")/../.."
GO="${GO:-go}"
. deploy/scripts/goflags.sh
log="${TMPDIR:-/tmp}/feria-test-$(date +%Y%m%d-%H%M%S)-$$.log"
# The logs of runs a week old go, so that /tmp does not fill up run by run.
find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'feria-test-*.log' -mtime +7 -delete 2>/dev/null || true
start=$SECONDS

finish() {
	local status=$?
	trap - EXIT INT TERM
	sweep_schemas
	[ -n "${testtmp:-}" ] && rm -rf "$testtmp"
	bash deploy/scripts/services.sh release $$ || status=1
	if [ -e "$log" ]; then
		echo "make test: $((SECONDS - start)) s; log: $log"
	else
		echo "make test: $((SECONDS - start)) s"
	fi
	exit "$status"
}
# The test processes keep their PostgreSQL schemas for their next tests
# (test/testenv/pgpool.go), each under a session lock of the process; once
# they have ended, the schemas whose lock is free are dropped (those of
# another run still going are not).
sweep_schemas() {
	command -v psql >/dev/null || return 0
	psql -q -X "$TEST_DATABASE_URL" >/dev/null 2>&1 <<-'SQL' || true
		DO $$ DECLARE s text; BEGIN
		FOR s IN SELECT nspname FROM pg_namespace WHERE nspname LIKE 'u\_pool\_%' LOOP
			IF pg_try_advisory_lock(hashtextextended('testenv:pool:' || s, 0)) THEN
				EXECUTE format('DROP SCHEMA %I CASCADE', s);
				PERFORM pg_advisory_unlock(hashtextextended('testenv:pool:' || s, 0));
			END IF;
		END LOOP; END $$;
	SQL
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bash deploy/scripts/services.sh acquire $$ || exit 1
echo "$GO vet ./..."
"$GO" vet ./... || exit 1
unformatted="$(gofmt -l $(git ls-files '*.go'))"
if [ -n "$unformatted" ]; then
	echo "gofmt needed: $unformatted"
	exit 1
fi
# The browser test of /docs (test/e2e/docs_browser_test.go) needs Debian's
# chromium, the bench harness's test of its load generator
# (test/load/bench) Debian's wrk: each installed here when missing and we
# may (root with apt-get); the test fails, naming the package, where it is
# still missing.
for pkg in chromium wrk; do
	if ! command -v "$pkg" >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "apt-get install -y $pkg"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$pkg" >/dev/null ||
			{ apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$pkg" >/dev/null; } ||
			echo "$pkg could not be installed; the tests that need it will fail"
	fi
done
# The secret scan's directory (deploy/scripts/secret-scan.sh).
export TEST_SECRETS_DIR="$(mktemp -d "${TMPDIR:-/tmp}/feria-secrets-XXXXXX")"
# One run, with the race detector: every package's tests are the race
# tests too, rather than a second pass.
# The tests' temporary files (t.TempDir: the SQLite databases above all,
# whose every commit waits for the disk) go to a tmpfs where there is one
# and TMPDIR is not set: a kill of a process loses nothing there either.
testtmp=
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	testtmp="$(mktemp -d /dev/shm/feria-test-XXXXXX)"
	# Open to every user, as /tmp is: the fault tests run PostgreSQL's
	# initdb as the postgres user in a directory of their own below it.
	chmod 1777 "$testtmp"
fi
# Stoplight Prism, the outside OpenAPI validator of test/e2e's
# TestPrismProxyValidatesEveryAnswer, installed by npm at the pinned version
# into a cache outside the clone when missing; the test fails, saying how
# to install it, where it is still missing.
bash deploy/scripts/prism.sh >/dev/null || echo "Prism could not be installed; TestPrismProxyValidatesEveryAnswer will fail"
# go test starts the packages' tests in the order named, two at a time on
# two cores: the longest are named first so that the run does not end on
# one of them alone (./... then adds every other package once).
first="./test/e2e/ ./adapters/httpapi/compatapi/ ./adapters/httpapi/worldsapi/ ./adapters/httpapi/controlapi/ ./test/authz/
	./adapters/httpapi/contactsapi/ ./adapters/httpapi/shippingapi/ ./adapters/httpapi/catalogapi/ ./adapters/httpapi/flexapi/ ./test/arch/ ./test/fault/"
echo "$GO test -race -v -count=1 ./... > $log"
# shellcheck disable=SC2086
TMPDIR="${testtmp:-${TMPDIR:-/tmp}}" "$GO" test -race -v -count=1 -timeout 40m $first ./... >"$log" 2>&1
bash deploy/scripts/test-summary.sh "$log" $?
status=$?
# Every fuzz target for a fixed count of inputs beyond its seed corpus
# (the seeds ran above as tests); `make fuzz` runs them longer.
bash deploy/scripts/fuzz.sh 1000x || status=1
bash deploy/scripts/secret-scan.sh "$TEST_SECRETS_DIR" "$log" || status=1
bash deploy/scripts/lint-openapi.sh || status=1
rm -rf "$TEST_SECRETS_DIR"
# A failed test is named again last, with its output, so that a reader of
# the run's tail (a CI page that keeps the end of a long output) sees it.
if grep -qE '^\s*--- FAIL' "$log"; then
	echo
	echo "Failed tests, with their output:"
	awk '/^=== (RUN|CONT|PAUSE|NAME)/ { next }
		/^[ \t]*--- FAIL/ { for (i = 0; i < k; i++) print buf[(s + i) % 12]; print; s = 0; k = 0; next }
		{ buf[(s + k) % 12] = $0; if (k < 12) k++; else s = (s + 1) % 12 }' "$log" | cut -c1-400 | tail -150
fi
exit "$status"
