#!/usr/bin/env bats
# The ledger's back end, chosen by its address: a file path is SQLite; a
# PostgreSQL URI or service=NAME is PostgreSQL (served by daicho-pg), and
# the throw-away cluster the PostgreSQL runs of the suite use.

load helpers

@test "a PostgreSQL address selects the PostgreSQL back end: never taken for a file, the password never shown, an unreachable server is exit 75" {
	for address in 'postgresql://alice:s3cret@db.invalid/ledger' 'postgres://alice:s3cret@127.0.0.1:1/ledger'; do
		refused 75 daicho --ledger "$address" init
		stderr_contains "cannot reach the PostgreSQL ledger"
		[[ "$stderr" != *s3cret* ]] || fail "the password was shown: $stderr"
		DAICHO_LEDGER="$address" refused 75 daicho ls
		[[ "$stderr" != *s3cret* ]] || fail "the password was shown: $stderr"
		DAICHO_LEDGER="$address" refused 75 daicho claim --next --as w1
	done
	# A service that is not defined: libpq's own words, exit 1.
	PGSERVICEFILE=/dev/null refused 1 daicho --ledger service=nosuch ls
	stderr_contains 'nosuch'
	# Nothing was made in the current directory for the address.
	[ -z "$(ls -A "$TEST_ROOT" | grep -v '^ledger.db' | grep -v '^\.daicho$' || true)" ] || fail "$(ls -A "$TEST_ROOT")"
	# (On PostgreSQL the set-up's init remembered its own ledger there.)
	if backend_is_postgresql; then
		[ "$(cat "$TEST_ROOT/.daicho/ledger.address")" = "$DAICHO_LEDGER" ] ||
			fail "an unreachable ledger's address was remembered"
	else
		[ ! -e "$TEST_ROOT/.daicho/ledger.address" ] || fail "an unreachable ledger's address was remembered"
	fi
}

@test "daicho hands a PostgreSQL ledger to daicho-pg; without it, one clear line" {
	DAICHO_PG_BIN=/nonexistent/daicho-pg refused 1 daicho --ledger postgresql://db.invalid/x ls
	stderr_contains "cannot run /nonexistent/daicho-pg"
	stderr_contains "make daicho-pg"
	# A SQLite ledger never needs it.
	DAICHO_PG_BIN=/nonexistent/daicho-pg run daicho --ledger "$TEST_ROOT/plain.db" init
	[ "$status" -eq 0 ] || fail "$output"
	DAICHO_PG_BIN=/nonexistent/daicho-pg run daicho --ledger "$TEST_ROOT/plain.db" ls
	[ "$status" -eq 0 ] || fail "$output"
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

# mutant: the version comparison in identify() (store/sqlite/open.c) or in store/pg/libpq.c's
# open dropped: the command runs on the newer ledger (exit 0).
@test "an older daicho refuses a ledger of a newer schema with one line, exit 1, and writes nothing to it" {
	daicho add t >/dev/null
	if backend_is_postgresql; then
		sql "INSERT INTO daicho_schema (version) VALUES (99)" >/dev/null
	else
		sqlite3 "$DAICHO_LEDGER" "PRAGMA user_version = 99"
	fi
	snapshot_ledger
	local cmd
	for cmd in "ls" "add u" "claim 1 --as w1" "status"; do
		# shellcheck disable=SC2086
		refused 1 daicho $cmd
		[[ "$stderr" == *"schema version 99, newer than this daicho understands ("*"; upgrade daicho)" ]] ||
			fail "$cmd: $stderr"
	done
	assert_ledger_unchanged
}

