#!/usr/bin/env bats
# The trust boundary of a PostgreSQL ledger (issue 17): agents connect as a
# login in daicho_agent, people as one in daicho_human, and PostgreSQL
# itself refuses what only a person may do, through daicho or psql alike.
# PostgreSQL only: skipped in the SQLite pass.

load helpers

setup() {
	common_setup
	[ "${DAICHO_TEST_BACKEND:-sqlite}" = postgresql ] ||
		skip "PostgreSQL only: the roles are PostgreSQL's"
	make_login_roles
	OWNER_LEDGER=$DAICHO_LEDGER
	daicho gate add 'git push*' --approval >/dev/null
	# An agent asks for an approval.
	DAICHO_LEDGER=$AGENT_LEDGER run daicho --as a1 gate exec -- git push origin main
	[ "$status" -eq 6 ] || fail "gate exec: exit $status: $output"
}

# A second login a test made (make_other_login) goes, whatever the test's end.
teardown() {
	drop_other_login
}

@test "roles: an agent's login cannot approve, even at a terminal: PostgreSQL names the role it lacks" {
	snapshot_ledger
	on_pty env DAICHO_LEDGER="$AGENT_LEDGER" daicho approve 1
	[ "$status" -eq 6 ] || fail "exit $status: $output"
	[[ "$output" == *"needs the daicho_human role (connected as $AGENT_ROLE)"* ]] || fail "$output"
	[ "$(grep -c . <<<"$output")" -eq 1 ] || fail "not one line: $output"
	on_pty env DAICHO_LEDGER="$AGENT_LEDGER" daicho deny 1 --reason no
	[ "$status" -eq 6 ] && [[ "$output" == *"daicho_human role"* ]] || fail "deny: $status: $output"
	assert_ledger_unchanged
	[ "$(sql "SELECT state FROM approvals WHERE id = 1")" = pending ]
}

@test "roles: psql with an agent's login cannot decide an approval, rewrite or delete events, or remove a gate" {
	snapshot_ledger
	run as_psql "$AGENT_LEDGER" "UPDATE approvals SET state = 'approved', decided_by = 'alice' WHERE id = 1"
	[ "$status" -ne 0 ] && [[ "$output" == *"daicho_human role"* ]] || fail "$status: $output"
	run as_psql "$AGENT_LEDGER" "DELETE FROM events"
	[ "$status" -ne 0 ] && [[ "$output" == *"permission denied"*events* ]] || fail "$status: $output"
	run as_psql "$AGENT_LEDGER" "UPDATE events SET kind = 'approve'"
	[ "$status" -ne 0 ] && [[ "$output" == *"permission denied"*events* ]] || fail "$status: $output"
	run as_psql "$AGENT_LEDGER" "DELETE FROM gates"
	[ "$status" -ne 0 ] || fail "a gate was removed: $output"
	run as_psql "$AGENT_LEDGER" "UPDATE settings SET value = '[]'"
	run as_psql "$AGENT_LEDGER" "INSERT INTO settings (key, value, set_ms) VALUES ('max-hold', '1', 0)"
	[ "$status" -ne 0 ] || fail "an agent changed a setting: $output"
	assert_ledger_unchanged
	# Nor can a person's login: the audit log is the owner's alone.
	run as_psql "$HUMAN_LEDGER" "DELETE FROM events"
	[ "$status" -ne 0 ] || fail "a person deleted events"
}

@test "roles: a person's login approves, and the approval records that database role, not a name the caller chose" {
	on_pty env DAICHO_LEDGER="$HUMAN_LEDGER" daicho approve 1
	[ "$status" -eq 0 ] || fail "exit $status: $output"
	[ "$(sql "SELECT state, decided_by FROM approvals WHERE id = 1")" = "approved|$HUMAN_ROLE" ]
	# The agent then runs it, with its approval.
	DAICHO_LEDGER=$AGENT_LEDGER run daicho --as a1 approvals --json
	[ "$status" -eq 0 ]
}

@test "roles: an agent's login cannot force-release a claim, not even one its own login holds, nor change settings" {
	daicho add t >/dev/null
	DAICHO_LEDGER=$AGENT_LEDGER daicho --as holder claim 1 >/dev/null
	snapshot_ledger
	on_pty env DAICHO_LEDGER="$AGENT_LEDGER" daicho release 1 --force
	# The guard refuses the first of the person's writes to reach it: the
	# release, or, when the person's last-seen time is due again (once a
	# second: a loaded machine), its heartbeat before it.
	[ "$status" -eq 6 ] &&
		[[ "$output" =~ (release\ --force|changing\ agent\ root,\ which\ another\ login\ made,)\ needs\ the\ daicho_human\ role\ \(connected\ as\ $AGENT_ROLE\) ]] ||
		fail "force-released: $status: $output"
	on_pty env DAICHO_LEDGER="$AGENT_LEDGER" daicho config max-hold 1h
	[ "$status" -eq 6 ] && [[ "$output" == *"daicho_human role"* ]] || fail "config: $status: $output"
	assert_ledger_unchanged
	# A person's login does both.
	on_pty env DAICHO_LEDGER="$HUMAN_LEDGER" daicho release 1 --force
	[ "$status" -eq 0 ] || fail "$output"
	[ "$(sql "SELECT state FROM tasks WHERE id = 1")" = open ]
}

@test "roles: only a person's login imports into a PostgreSQL ledger" {
	daicho add t >/dev/null
	daicho export >"$TEST_ROOT/ledger.jsonl"
	local tag=${DAICHO_LEDGER#postgresql:///}
	tag=${tag%%\?*}
	createdb "${tag}_imp"
	local target="${DAICHO_LEDGER/\/\/\/$tag?/\/\/\/${tag}_imp?}"
	daicho --ledger "$target" init >/dev/null
	DAICHO_LEDGER="$target&user=$AGENT_ROLE" run person daicho import "$TEST_ROOT/ledger.jsonl"
	[ "$status" -ne 0 ] || fail "an agent's login imported"
	[ "$(psql -X -At "$target" -c 'SELECT count(*) FROM tasks')" = 0 ]
	DAICHO_LEDGER="$target&user=$HUMAN_ROLE" run person daicho import "$TEST_ROOT/ledger.jsonl"
	[ "$status" -eq 0 ] || fail "$output"
	[ "$(psql -X -At "$target" -c 'SELECT count(*) FROM tasks')" = 1 ]
}

@test "roles: with the triggers' WHEN clauses, another agent login still cannot take a live claim, end a wait or become a person through psql" {
	# A second agent login, made as make_login_roles makes the first.
	make_other_login
	daicho add t >/dev/null
	DAICHO_LEDGER=$AGENT_LEDGER daicho --as holder claim 1 >/dev/null
	DAICHO_LEDGER=$AGENT_LEDGER daicho --as holder wait --for review >/dev/null
	snapshot_ledger
	local theirs=$OTHER_LEDGER other=$OTHER_ROLE
	run as_psql "$theirs" "UPDATE tasks SET state = 'open', owner = NULL, lease_expires_ms = NULL WHERE id = 1"
	[ "$status" -ne 0 ] && [[ "$output" == *"releasing a claim held by another role"*"connected as $other"* ]] ||
		fail "took the claim: $status: $output"
	run as_psql "$theirs" "UPDATE tasks SET owner = (SELECT max(id) FROM agents) + 1 WHERE id = 1"
	[ "$status" -ne 0 ] || fail "re-assigned the claim: $output"
	run as_psql "$theirs" "UPDATE waits SET ended_ms = 1"
	[ "$status" -ne 0 ] && [[ "$output" == *"ending another agent's wait"* ]] || fail "ended the wait: $status: $output"
	run as_psql "$theirs" "UPDATE agents SET kind = 'human' WHERE name = 'holder'"
	[ "$status" -ne 0 ] && [[ "$output" == *"acting as a human"* ]] || fail "made a person: $status: $output"
	run as_psql "$theirs" "INSERT INTO agents (name, kind, state, started_ms, last_seen_ms) VALUES ('boss', 'human', 'active', 0, 0)"
	[ "$status" -ne 0 ] && [[ "$output" == *"acting as a human"* ]] || fail "registered a person: $status: $output"
	assert_ledger_unchanged
	# What the holder's own login does is not refused: it saves, reports,
	# ends its own wait.
	echo done | DAICHO_LEDGER=$AGENT_LEDGER daicho --as holder save 1
	DAICHO_LEDGER=$AGENT_LEDGER daicho --as holder report 1
	DAICHO_LEDGER=$AGENT_LEDGER daicho --as holder resume >/dev/null
	[ "$(sql "SELECT state FROM tasks WHERE id = 1")" = reported ]
	[ "$(sql "SELECT count(*) FROM waits WHERE ended_ms IS NULL")" = 0 ]
	drop_other_login
}

@test "roles: a ledger of an older schema is migrated by its owner; an agent's login is told so and changes nothing" {
	# Schema 1, as an older daicho left it: its agents trigger was one.
	sql "DROP TRIGGER agents_check_update ON agents; UPDATE daicho_schema SET version = 1" >/dev/null
	snapshot_ledger
	DAICHO_LEDGER=$AGENT_LEDGER run daicho --as a1 ls
	[ "$status" -ne 0 ] || fail "an agent's login migrated: $output"
	[[ "$output" == *"schema is version 1 and this daicho's 7, and only the database's owner may migrate it"*"as the owner"* ]] ||
		fail "$output"
	[ "$(grep -c . <<<"$output")" -eq 1 ] || fail "not one line: $output"
	assert_ledger_unchanged
	[ "$(sql "SELECT version FROM daicho_schema")" = 1 ]
	# The owner's first command migrates; then the agent's works.
	run daicho status
	[ "$status" -eq 0 ] || fail "owner: $output"
	[ "$(sql "SELECT version FROM daicho_schema")" = 7 ]
	[ "$(sql "SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal AND tgqual IS NOT NULL")" -ge 5 ]
	[ "$(sql "SELECT count(*) FROM information_schema.columns WHERE table_name = 'tasks' AND column_name = 'land_token'")" = 1 ]
	[ "$(sql "SELECT count(*) FROM information_schema.tables WHERE table_name = 'baselines'")" = 1 ]
	[ "$(sql "SELECT count(*) FROM information_schema.columns WHERE table_name = 'baselines' AND column_name = 'inputs'")" = 1 ]
	[ "$(sql "SELECT count(*) FROM information_schema.columns WHERE table_name = 'events' AND column_name = 'hash'")" = 1 ]
	[ "$(sql "SELECT count(*) FROM information_schema.tables WHERE table_name = 'audits'")" = 1 ]
	DAICHO_LEDGER=$AGENT_LEDGER run daicho --as a1 ls
	[ "$status" -eq 0 ] || fail "agent after: $output"
}
