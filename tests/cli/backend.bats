#!/usr/bin/env bats
# The ledger's back end, chosen by its address: a file path is SQLite; a
# PostgreSQL URI or service=NAME is PostgreSQL, served by daicho-pg, and
# the throw-away cluster the PostgreSQL runs of the suite use.

load helpers

@test "a PostgreSQL address selects the PostgreSQL back end: never taken for a file, the password never shown" {
	# A server that cannot be reached is a transient failure (exit 75).
	for address in 'postgresql://alice:s3cret@db.invalid/ledger' 'postgres://db.invalid/ledger'; do
		refused 75 daicho --ledger "$address" init
		stderr_contains "cannot reach the PostgreSQL ledger"
		[[ "$stderr" != *s3cret* ]] || fail "the password was shown: $stderr"
		DAICHO_LEDGER="$address" refused 75 daicho ls
		stderr_contains "cannot reach the PostgreSQL ledger"
		DAICHO_LEDGER="$address" refused 75 daicho claim --next --as w1
	done
	# A service that is not defined is not.
	: >"$BATS_TEST_TMPDIR/pg_service.conf"
	PGSERVICEFILE="$BATS_TEST_TMPDIR/pg_service.conf" refused 1 daicho --ledger service=daicho init
	stderr_contains 'cannot connect to the PostgreSQL ledger (definition of service "daicho" not found)'
	# Nothing was made in the current directory for the addresses.
	[ -z "$(ls -A "$TEST_ROOT" | grep -v '^ledger.db' || true)" ] || fail "$(ls -A "$TEST_ROOT")"
}

@test "a PostgreSQL address without daicho-pg beside daicho: refused, saying how to build it" {
	DAICHO_PG_BIN="$TEST_ROOT/nowhere/daicho-pg" refused 1 daicho --ledger postgresql:///ledger ls
	stderr_contains "make daicho-pg"
}

@test "tests/pg/cluster.sh: a throw-away cluster on a Unix socket only, gone after the run, even when the command fails" {
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null ||
		skip "no PostgreSQL server installed (scripts/deps.sh check installs it)"
	capture "$DAICHO_ROOT/tests/pg/cluster.sh" run sh -c 'psql -Atc "SHOW listen_addresses" && echo "$PGHOST" && exit 3'
	[ "$status" -eq 3 ] || fail "exit $status: $stderr"
	[ "${lines[0]}" = "" ] || fail "listens on '${lines[0]}'"
	[[ "${lines[1]}" == /tmp/daicho-pg.* ]] || fail "$output"
	[ ! -e "${lines[1]}" ] || fail "the cluster's directory ${lines[1]} is left behind"
}
