#!/usr/bin/env bats
# The ledger's back end, chosen by its address: a file path is SQLite; a
# PostgreSQL URI or service=NAME is PostgreSQL (not in this build yet), and
# the throw-away cluster the PostgreSQL runs of the suite use.

load helpers

@test "a PostgreSQL address selects the PostgreSQL back end: refused clearly, never taken for a file, the password never shown" {
	for address in 'postgresql://alice:s3cret@db.example/ledger' 'postgres://db/ledger' 'service=daicho'; do
		refused 1 daicho --ledger "$address" init
		stderr_contains "this daicho has no PostgreSQL back end yet"
		[[ "$stderr" != *s3cret* ]] || fail "the password was shown: $stderr"
		DAICHO_LEDGER="$address" refused 1 daicho ls
		stderr_contains "no PostgreSQL back end yet"
		DAICHO_LEDGER="$address" refused 1 daicho claim --next --as w1
	done
	# Nothing was made in the current directory for the address.
	[ -z "$(ls -A "$TEST_ROOT" | grep -v '^ledger.db' || true)" ] || fail "$(ls -A "$TEST_ROOT")"
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
