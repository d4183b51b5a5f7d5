#!/usr/bin/env bats
# The honest control of the PostgreSQL boundary (issue 30): a day's work
# by two agents, each on its own login, and a person on theirs, goes
# through every guard without one refusal: adding, claiming, saving,
# blocking with a question and being unblocked, reporting, the person's
# sweep verifying, the dependent claimed, messages, waits, reservations,
# an approval asked for, given and used, editing and cancelling one's own
# task, taking up a claim whose lease ran out. tests/cli/roles_matrix.bats
# is the attacker's side. PostgreSQL only.

load verify_helpers

setup() {
	[ "${DAICHO_TEST_BACKEND:-sqlite}" = postgresql ] ||
		skip "PostgreSQL only: the roles are PostgreSQL's"
	verify_setup
	local tag=${LEDGER#postgresql:///}
	tag=${tag%%\?*}
	A_ROLE="agent_$tag" B_ROLE="other_$tag" H_ROLE="human_$tag"
	psql -X -q -v ON_ERROR_STOP=1 -d postgres \
	    -c "CREATE ROLE $A_ROLE LOGIN" -c "CREATE ROLE $B_ROLE LOGIN" \
	    -c "CREATE ROLE $H_ROLE LOGIN" -c "GRANT daicho_agent TO $A_ROLE, $B_ROLE" \
	    -c "GRANT daicho_human TO $H_ROLE"
	A_LEDGER="$LEDGER&user=$A_ROLE" B_LEDGER="$LEDGER&user=$B_ROLE"
	H_LEDGER="$LEDGER&user=$H_ROLE"
}

teardown() {
	local r
	for r in ${A_ROLE:-} ${B_ROLE:-} ${H_ROLE:-}; do
		psql -X -q -d postgres -c "DROP OWNED BY $r" -c "DROP ROLE $r" >/dev/null 2>&1
	done
	return 0
}

# a|b ARGS...: daicho as agent a1 on login A, b1 on login B; h: the person
# on theirs, at a terminal.
a() { DAICHO_LEDGER=$A_LEDGER daicho --as a1 "$@"; }
b() { DAICHO_LEDGER=$B_LEDGER daicho --as b1 "$@"; }
h() { person env DAICHO_LEDGER="$H_LEDGER" daicho "$@"; }

@test "roles: a day's work on the agents' own logins and the person's goes through every guard" {
	work_branch feature
	# a1 plans; b1 is its colleague on another login.
	[ "$(a add 'write the parser' --touches 'src/**' --done-when file:src/parser.c --label core)" = 1 ]
	[ "$(a add 'document it' --after 1 --touches 'doc/**' --done-when file:doc/parser.md)" = 2 ]
	[ "$(a add 'a spare' --priority 1)" = 3 ]
	a edit 3 --title 'a spare, renamed' --priority 2 >/dev/null
	a edit 2 --label docs >/dev/null
	a cancel 3 >/dev/null
	b ls >/dev/null
	# a1 works on #1, saves, asks a question, is answered, reports.
	[ "$(a claim 1)" = 1 ]
	a ls --mine >/dev/null
	echo 'half way' | a save 1
	a reserve 'include/**' >/dev/null
	a block 1 --reason 'which grammar?' >/dev/null
	h unblock 1 >/dev/null
	a send b1 'parser is coming' >/dev/null
	mkdir -p src && echo 'int parse;' >src/parser.c
	a report 1 --commit "$(commit_work 1)" >/dev/null
	a unreserve 'include/**' >/dev/null
	# b1 reads its messages and waits for #1; the person's sweep verifies.
	b inbox >/dev/null
	b wait --for '#1' >/dev/null
	DAICHO_LEDGER=$H_LEDGER run --separate-stderr daicho sweep
	[ "$status" -eq 0 ] || fail "the person's sweep: $status: $stderr"
	[[ "$output" == "sweep: 1 verified,"* ]] || fail "$output"
	b resume >/dev/null
	# b1 takes the dependent; its gated command is approved by the person
	# and used by b1 alone.
	[ "$(b claim --next)" = 2 ]
	person daicho gate add 'echo deploy*' --approval >/dev/null
	DAICHO_LEDGER=$B_LEDGER run daicho --as b1 gate exec -- echo deploy
	[ "$status" -eq 6 ] || fail "gate exec: $status: $output"
	h approve 1 >/dev/null
	[ "$(b gate exec -- echo deploy)" = deploy ]
	[ "$(sql "SELECT state FROM approvals WHERE id = 1")" = used ]
	b release 2 >/dev/null
	# a1 takes up #2, whose lease b1 let run out.
	[ "$(b claim 2 --lease 1s)" = 2 ]
	sleep 1.1
	[ "$(sql "SELECT count(*) FROM tasks WHERE id = 2 AND lease_expires_ms < $(date +%s%3N)")" = 1 ]
	[ "$(a claim 2)" = 2 ]
	a release 2 >/dev/null
	a agent end >/dev/null
	# Nothing was refused on the way.
	[ "$(sql "SELECT state FROM tasks WHERE id = 1")" = verified ]
	[ "$(sql "SELECT state FROM tasks WHERE id = 3")" = cancelled ]
	[ "$(sql "SELECT count(*) FROM saves")" = 1 ]
}

@test "roles: the sweep, landing and verify --apply on an agent's login are refused in one line, before anything is judged" {
	work_branch feature
	a add t --done-when file:out.txt >/dev/null
	a claim 1 >/dev/null
	echo out >out.txt
	a report 1 --commit "$(commit_work 1)" >/dev/null
	person daicho config land merge >/dev/null
	snapshot_ledger
	local cmd
	for cmd in sweep land 'verify 1 --apply'; do
		# shellcheck disable=SC2086
		DAICHO_LEDGER=$A_LEDGER run --separate-stderr daicho --as a1 $cmd
		[ "$status" -eq 6 ] || fail "$cmd: exit $status: $stderr"
		[[ "$stderr" == "daicho: "*" is the judge's: on this PostgreSQL ledger it runs on a person's login (daicho_human) or the owner's, not an agent's"* ]] ||
			fail "$cmd: $stderr"
		[[ "$stderr" != *$'\n'* ]] || fail "$cmd: not one line: $stderr"
	done
	assert_ledger_unchanged
	# The person's login judges it.
	DAICHO_LEDGER=$H_LEDGER run --separate-stderr daicho sweep
	[ "$status" -eq 0 ] && [[ "$output" == "sweep: 1 verified,"* ]] || fail "$status: $output $stderr"
}
