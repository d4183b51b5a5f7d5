#!/usr/bin/env bats
# daicho agent start / agent end / agents, wait and resume.

load helpers

T0=1800000000000
MIN=60000
HOUR=3600000

setup() {
	common_setup
	export DAICHO_NOW_MS=$T0
}

# agents_json: the live agents as JSON.
agents_json() {
	daicho agents --json
}

# agent_state NAME: the effective state of the live agent NAME.
agent_state() {
	daicho agents --all --json | jq -r --arg n "$1" '[.[] | select(.name == $n)] | last | .state'
}

# --- agent start --------------------------------------------------------------

@test "agent start registers a name with role and kind, logged" {
	ok daicho agent start mgr --role manager --kind claude
	assert_output "started agent mgr (role manager); its commands need DAICHO_AGENT=mgr or --as mgr"
	ok daicho agents --json
	jq -e 'length == 1 and .[0].name == "mgr" and .[0].role == "manager" and .[0].kind == "claude"
		and .[0].state == "active" and .[0].last_seen_ms == '$T0' and .[0].claims == []
		and .[0].waits == [] and .[0].unread == 0' <<<"$output" >/dev/null || fail "$output"
	[ "$(sql "SELECT kind FROM events ORDER BY id DESC LIMIT 1")" = agent-register ]
}

@test "agent start binds the client session: later commands of that session act as the name" {
	export CLAUDE_CODE_SESSION_ID=5f2c9a70-aaaa-bbbb-cccc-000000000001
	ok daicho agent start impl-1 --role implementer
	assert_output "started agent impl-1 (role implementer), bound to claude session $CLAUDE_CODE_SESSION_ID"
	daicho add "a task" >/dev/null
	ok daicho claim --next
	[ "$(task_field 1 owner)" = impl-1 ]
	[ "$(sql "SELECT count(*) FROM agents WHERE state <> 'ended'")" = 1 ]
	# the same session starting the same name again is fine
	ok daicho agent start impl-1
	assert_output --partial "restarted agent impl-1"
}

@test "a session that already has an agent renames it, keeping its claims" {
	export CODEX_THREAD_ID=thread-0123456789
	daicho add "a task" >/dev/null
	ok daicho claim --next
	before="$(task_field 1 owner)"
	[[ "$before" == codex-* ]] || fail "owner $before"
	ok daicho agent start rev --role reviewer
	[ "$(task_field 1 owner)" = rev ]
	[ "$(sql "SELECT count(*) FROM agents")" = 1 ]
	[ "$(sql "SELECT kind FROM events ORDER BY id DESC LIMIT 1")" = agent-rename ]
}

@test "two sessions start with the same name: the second is refused (exit 4) naming the holder" {
	CLAUDE_CODE_SESSION_ID=session-one daicho agent start dev >/dev/null
	export DAICHO_NOW_MS=$((T0 + 12000))
	snapshot_ledger
	CLAUDE_CODE_SESSION_ID=session-two refused 4 daicho agent start dev
	stderr_contains "agent name 'dev' is held by a live claude agent of session session-one, seen 12s ago at 2027-01-15T08:00:00Z"
	stderr_contains "daicho agent end dev"
	assert_ledger_unchanged
	[ "$(sql "SELECT session_id FROM agents WHERE name = 'dev' AND state <> 'ended'")" = session-one ]
	# a script with no session is refused too
	refused 4 daicho agent start dev
}

@test "a stale holder's name is taken over, and the take-over is logged" {
	daicho agent start dev >/dev/null
	export DAICHO_NOW_MS=$((T0 + 11 * MIN))
	ok daicho agent start dev --role implementer
	assert_output "started agent dev (role implementer), taking the name over from a stale agent; its commands need DAICHO_AGENT=dev or --as dev"
	[ "$(sql "SELECT count(*) FROM agents WHERE name = 'dev'")" = 2 ]
	[ "$(sql "SELECT state FROM agents WHERE name = 'dev' ORDER BY id LIMIT 1")" = ended ]
	[ "$(sql "SELECT count(*) FROM events WHERE kind = 'agent-takeover'")" = 1 ]
	ok daicho agent start other --json
	jq -e '.replaced == null and .again == false' <<<"$output" >/dev/null || fail "$output"
}

@test "--stale-after decides when a holder may be taken over" {
	daicho agent start dev >/dev/null
	export DAICHO_NOW_MS=$((T0 + 2 * MIN))
	refused 4 daicho agent start dev
	ok daicho agent start dev --stale-after 1m
}

@test "a waiting holder is never stale: its name cannot be taken" {
	daicho agent start boss >/dev/null
	daicho agent start res >/dev/null
	daicho wait --as res --for "a review" --owner boss >/dev/null
	export DAICHO_NOW_MS=$((T0 + 5 * HOUR))
	refused 4 daicho agent start res
	[ "$(agent_state res)" = waiting ]
}

@test "agent start refuses bad input with one line and no change" {
	snapshot_ledger
	refused 2 daicho agent start
	refused 2 daicho agent start -- -bad
	refused 2 daicho agent start 'has space'
	refused 2 daicho agent start ok --kind robot
	stderr_contains "unknown --kind 'robot'"
	refused 2 daicho agent start ok --role ''
	refused 2 daicho agent start ok --stale-after soon
	refused 2 daicho agent start a b
	assert_ledger_unchanged
	[ "$(sql "SELECT count(*) FROM agents")" = 0 ]
}

@test "agent alone, or an unknown subcommand, is a usage error listing the subcommands" {
	refused 2 daicho agent
	stderr_contains "'agent' takes start, end"
	refused 2 daicho agent stop x
	stderr_contains "unknown command 'agent stop'"
}

# --- agent end / agents --------------------------------------------------------

@test "agent end ends the caller or NAME; agents hides it, --all shows it" {
	daicho agent start a1 >/dev/null
	daicho agent start a2 >/dev/null
	ok daicho agent end --as a1
	assert_output ""
	ok daicho agent end a2
	ok daicho agents --json
	jq -e 'map(.name) | index("a1") == null and index("a2") == null' <<<"$output" >/dev/null ||
		fail "$output"
	ok daicho agents --all --json
	jq -e '[.[] | select(.name == "a1" or .name == "a2") | .state] == ["ended", "ended"]' \
		<<<"$output" >/dev/null || fail "$output"
	[ "$(sql "SELECT count(*) FROM events WHERE kind = 'agent-end'")" = 2 ]
}

@test "agent end refuses an unknown name and an anonymous caller" {
	snapshot_ledger
	refused 3 daicho agent end ghost
	stderr_contains "no live agent named 'ghost'"
	refused 2 daicho agent end
	assert_ledger_unchanged
}

@test "agents shows role, state, holdings and last seen as age and timestamp" {
	daicho agent start w1 --role implementer >/dev/null
	daicho add "t" >/dev/null
	daicho claim 1 --as w1 >/dev/null
	export DAICHO_NOW_MS=$((T0 + 12000))
	ok daicho agents
	assert_line --index 0 --regexp '^NAME +ROLE +KIND +STATE +HOLDS +UNREAD +LAST SEEN$'
	assert_line --regexp '^w1 +implementer +script +active +#1 +0  12s ago \(2027-01-15T08:00:00Z\)$'
}

@test "an agent unseen past --stale-after shows as stale before any sweep" {
	daicho agent start w1 >/dev/null
	export DAICHO_NOW_MS=$((T0 + 11 * MIN))
	[ "$(agent_state w1)" = stale ]
	ok daicho agents --stale-after 1h --json
	jq -e '.[] | select(.name == "w1") | .state == "active"' <<<"$output" >/dev/null || fail "$output"
	# any command by it is a heartbeat: active again
	daicho ls --as w1 >/dev/null
	[ "$(agent_state w1)" = active ]
}

@test "a burst of commands rewrites last seen once a second; leases still renew on every beat" {
	daicho agent start w1 >/dev/null
	daicho add "t" >/dev/null
	daicho claim 1 --as w1 --lease 1s >/dev/null
	seen() { sql "SELECT last_seen_ms FROM agents WHERE name = 'w1'"; }
	[ "$(seen)" = $T0 ]
	# within a second of the last write: the row is left as it is ...
	export DAICHO_NOW_MS=$((T0 + 600))
	daicho ls --as w1 >/dev/null
	[ "$(seen)" = $T0 ]
	# ... but the lease, past half its length, is renewed all the same
	[ "$(task_field 1 lease_expires_ms)" = $((T0 + 600 + 1000)) ]
	# a second after the last write: written again
	export DAICHO_NOW_MS=$((T0 + 1000))
	daicho ls --as w1 >/dev/null
	[ "$(seen)" = $((T0 + 1000)) ]
	# a clock that went back is not "recent": written
	export DAICHO_NOW_MS=$((T0 + 900))
	daicho ls --as w1 >/dev/null
	[ "$(seen)" = $((T0 + 900)) ]
	# a waiting agent's last seen is written on every beat
	sql "UPDATE agents SET state = 'waiting' WHERE name = 'w1'"
	export DAICHO_NOW_MS=$((T0 + 950))
	daicho ls --as w1 >/dev/null
	[ "$(seen)" = $((T0 + 950)) ]
}

@test "the sweep marks a silent agent stale and frees its claims" {
	daicho agent start w1 >/dev/null
	daicho add "t" >/dev/null
	daicho claim 1 --as w1 --lease 2h >/dev/null
	export DAICHO_NOW_MS=$((T0 + 11 * MIN))
	ok daicho sweep
	assert_output --partial "1 lease expired"
	assert_output --partial "1 agent stale"
	[ "$(sql "SELECT state FROM agents WHERE name = 'w1'")" = stale ]
	[ "$(task_field 1 state)" = open ]
	[ "$(sql "SELECT count(*) FROM events WHERE kind = 'agent-stale'")" = 1 ]
	# it comes back: active again, but the claim is gone
	daicho ls --as w1 >/dev/null
	[ "$(sql "SELECT state FROM agents WHERE name = 'w1'")" = active ]
}

# --- wait / resume ---------------------------------------------------------------

@test "wait puts the caller in waiting with owner, items and reminder" {
	daicho agent start mgr --role manager >/dev/null
	daicho agent start res >/dev/null
	daicho add "a task" >/dev/null
	ok daicho wait --as res --for "the design review" --for '#1' --owner mgr --remind 2h
	assert_output "wait #1"
	[ "$(agent_state res)" = waiting ]
	ok daicho agents --json
	jq -e '.[] | select(.name == "res") | .waits == [{"id":1,"what":"the design review, #1",
		"owner":"mgr","started_ms":'$T0',"remind_ms":7200000,"open_items":2}]' <<<"$output" >/dev/null ||
		fail "$output"
	ok daicho agents
	assert_line "  waiting #1 for the design review, #1 (2 open), owner mgr, 0s old"
	ok daicho handoff --json
	jq -e '.waits[0].open_items == 2' <<<"$output" >/dev/null || fail "$output"
	# the task item closes when the task is done
	person daicho cancel 1 >/dev/null
	ok daicho handoff --json
	jq -e '.waits[0].open_items == 1' <<<"$output" >/dev/null || fail "$output"
	ok daicho agents
	assert_line "  waiting #1 for the design review, #1 (1 open), owner mgr, 0s old"
}

@test "resume ends the waits; the agent is active again" {
	daicho agent start res >/dev/null
	daicho wait --as res --for a >/dev/null
	daicho wait --as res --for b >/dev/null
	ok daicho resume 1 --as res
	[ "$(agent_state res)" = waiting ]
	ok daicho resume --as res --json
	assert_output '{"ended":1}'
	[ "$(agent_state res)" = active ]
	refused 3 daicho resume --as res
	stderr_contains "you have no open wait"
}

@test "a person ends an agent's wait by its number; the agent is told; an agent ends only its own" {
	daicho agent start res >/dev/null
	daicho agent start other >/dev/null
	daicho wait --as res --for "sign-off" >/dev/null
	daicho wait --as res --for "data" >/dev/null
	snapshot_ledger
	refused 3 daicho resume 1 --as other
	stderr_contains "no open wait #1 of yours"
	refused 2 person daicho resume
	stderr_contains "a person ends an agent's wait by its number: daicho resume WAIT"
	# not from an agent's environment, as release --force
	CLAUDECODE=1 refused 6 daicho resume 1
	stderr_contains "only a human at a terminal may end an agent's wait"
	assert_ledger_unchanged
	ok person daicho resume 1 --json
	assert_output '{"ended":1}'
	[ "$(agent_state res)" = waiting ]
	ok person daicho resume 2
	[ "$(agent_state res)" = active ]
	refused 3 person daicho resume 2
	assert_equal "$stderr" "daicho: no open wait #2 (see 'daicho agents')"
	ok daicho inbox --as res
	assert_line --index 0 --partial "$(id -un) 0s ago: your wait #1 for sign-off is over: a person ended it; carry on"
	ok daicho events --json
	[ "$(jq -c '[.[] | select(.kind == "wait-end") | [.actor, .detail.wait, .detail.agent]]' <<<"$output")" = \
		'[["'"$(id -un)"'",1,"res"],["'"$(id -un)"'",2,"res"]]' ]
}

@test "wait and resume refuse bad input with one line and no change" {
	daicho agent start res >/dev/null
	daicho agent start mgr >/dev/null
	snapshot_ledger
	refused 2 daicho wait --as res
	stderr_contains "nothing to wait for"
	refused 2 daicho wait --for x
	stderr_contains "who is waiting?"
	refused 3 daicho wait --as res --for x --owner nobody
	stderr_contains "no agent named 'nobody'"
	refused 2 daicho wait --as res --for x --owner res
	refused 3 daicho wait --as res --for '#99'
	refused 2 daicho wait --as res --for x --remind never
	refused 2 daicho wait --as res --for ''
	refused 3 daicho resume 7 --as res
	refused 2 daicho resume x --as res
	refused 2 daicho resume --for x --as res
	assert_ledger_unchanged
	[ "$(agent_state res)" = active ]
}

@test "a wait past --remind: the sweep messages the owner once, status shows it overdue" {
	daicho agent start mgr --role manager >/dev/null
	daicho agent start res >/dev/null
	daicho wait --as res --for "the API spec" --owner mgr --remind 1h >/dev/null
	export DAICHO_NOW_MS=$((T0 + 30 * MIN))
	ok daicho sweep
	assert_output --partial "0 waits escalated"
	export DAICHO_NOW_MS=$((T0 + 61 * MIN))
	# the owner keeps working; the waiting agent is quiet (waiting: not stale)
	daicho ls --as mgr >/dev/null
	ok daicho sweep
	assert_output --partial "1 wait escalated"
	assert_output --partial "0 agents stale"
	ok daicho sweep
	assert_output --partial "0 waits escalated"
	ok daicho inbox --as mgr
	assert_output "#1 daicho 0s ago (reminder): wait #1 is overdue: res has waited 1h for the API spec, as you asked (answer it, or tell it to resume)"
	ok daicho status
	assert_line --index 0 "NEEDS YOU (1)"
	assert_line --index 1 "  wait #1 overdue: res has waited 1h for the API spec (owner mgr, active)"
	assert_line --index 2 "    resolve: daicho resume 1"
	ok daicho status --json
	jq -e '.needs_you == [{"kind":"overdue-wait","id":1,
		"summary":"wait #1 overdue: res has waited 1h for the API spec (owner mgr, active)",
		"since_ms":'$((T0 + HOUR))',"resolve":["daicho resume 1"],"agent":"res","owner":"mgr",
		"owner_state":"active","for":"the API spec","started_ms":'$T0',"remind_ms":'$HOUR'}]' \
		<<<"$output" >/dev/null || fail "$output"
}

@test "an overdue wait with no owner is the person's to answer: the log says so, not that its owner is gone" {
	daicho agent start res >/dev/null
	daicho wait --as res --for "the API spec" --remind 1h >/dev/null
	export DAICHO_NOW_MS=$((T0 + 61 * MIN))
	ok daicho sweep
	assert_output --partial "1 wait escalated"
	ok daicho events
	[[ "$output" == *"wait #1 is overdue; it is the person's to answer"* ]] || fail "$output"
	[[ "$output" != *"its owner is gone"* ]] || fail "$output"
	ok daicho agents
	[[ "$output" == *"owner (the human)"* ]] || fail "$output"
}

@test "an ended owner's wait goes to the live holder of its role, else to the human" {
	daicho agent start mgr --role manager >/dev/null
	daicho agent start res >/dev/null
	daicho agent start lone >/dev/null
	daicho agent start solo >/dev/null
	daicho wait --as res --for "go-ahead" --owner mgr >/dev/null
	daicho wait --as solo --for "input" --owner lone >/dev/null
	daicho agent end mgr >/dev/null
	daicho agent end lone >/dev/null
	daicho agent start mgr2 --role manager >/dev/null
	ok daicho sweep
	assert_output --partial "2 waits escalated"
	[ "$(sql "SELECT a.name FROM waits w JOIN agents a ON a.id = w.owner WHERE w.id = 1")" = mgr2 ]
	[ "$(sql "SELECT needs_human FROM waits WHERE id = 2")" = 1 ]
	ok daicho inbox --as mgr2
	assert_output --partial "wait #1 is yours now: res is waiting for go-ahead, and its owner mgr has ended"
	ok daicho status --json
	jq -e '[.needs_you[] | .kind] == ["wait-needs-human"] and .needs_you[0].agent == "solo"' \
		<<<"$output" >/dev/null || fail "$output"
}

@test "help for every agent command is true to the table" {
	for c in "agent start" "agent end" agents wait resume; do
		ok daicho help $c
		assert_line --index 0 --partial "usage: daicho $c"
		ok daicho $c --help
	done
}

@test "an agent cannot take a person's name: the login name or a human's, by --as, DAICHO_AGENT or agent start" {
	me=$(id -un)
	daicho add t1 >/dev/null
	DAICHO_AGENT=w3 daicho wait --for 'a reply' --remind 1h >/dev/null
	wait_id=$(sql "SELECT max(id) FROM waits")
	snapshot_ledger
	# The person's own login name, before the person ever used the ledger
	# as themselves in this test's agents table or after.
	refused 6 daicho --as "$me" claim --next
	stderr_contains "is a person's name"
	DAICHO_AGENT="$me" refused 6 daicho resume "$wait_id"
	refused 6 daicho --as "$me" send w3 hello
	assert_ledger_unchanged
	# A human recorded in the ledger under another login (a colleague).
	sql "INSERT INTO agents (name, kind, state, started_ms, last_seen_ms) VALUES ('alice', 'human', 'active', 0, 0)"
	snapshot_ledger
	refused 6 daicho --as alice claim --next
	stderr_contains "a human in this ledger"
	refused 6 daicho agent start alice
	assert_ledger_unchanged
	# The person, without --as, is themselves: their resume works.
	run person daicho resume "$wait_id"
	assert_success
}

@test "no agent may be called daicho: the sweep's own messages come from that name" {
	daicho add t1 >/dev/null
	snapshot_ledger
	refused 2 daicho --as daicho claim --next
	stderr_contains "is reserved"
	DAICHO_AGENT=Daicho refused 2 daicho send root hello
	refused 2 daicho agent start daicho
	assert_ledger_unchanged
}

