#!/usr/bin/env bats
# The ledger's back end, chosen by its address: a file path is SQLite; a
# PostgreSQL URI or service=NAME is PostgreSQL (not in this build yet).

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
