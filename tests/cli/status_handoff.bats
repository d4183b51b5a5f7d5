#!/usr/bin/env bats
# daicho status and daicho handoff.

load helpers

T0=1800000000000
MIN=60000
HOUR=3600000

setup() {
	common_setup
	export DAICHO_NOW_MS=$T0
}

@test "status on an empty ledger: nothing needs you, every state counted" {
	ok daicho status
	assert_line --index 0 "NEEDS YOU: nothing"
	assert_line "TASKS open 0, claimed 0, reported 0, verified 0, landed 0, blocked 0, cancelled 0, failed 0"
	ok daicho status --json
	jq -e '.needs_you == [] and .tasks.open == 0 and .tasks.failed == 0 and (.agents | type) == "array"
		and (.events | type) == "array" and .now_ms == '$T0 <<<"$output" >/dev/null || fail "$output"
}

@test "status lists what needs a human, most urgent first" {
	daicho agent start mgr --role manager >/dev/null
	daicho agent start w1 >/dev/null
	daicho agent start w2 >/dev/null
	daicho agent start res >/dev/null
	daicho add "blocked one" >/dev/null            # 1
	daicho add "held by a silent agent" >/dev/null # 2
	daicho add "rejected" --done-when 'cmd:false' >/dev/null # 3
	daicho claim 1 --as w1 >/dev/null
	daicho block 1 --reason "needs the prod password" --as w1 >/dev/null
	daicho claim 3 --as w1 >/dev/null
	daicho report 3 --as w1 >/dev/null
	daicho verify 3 --apply >/dev/null 2>&1 || true
	daicho agent end w1 >/dev/null
	daicho claim 2 --as w2 --lease 2h >/dev/null
	daicho wait --as res --for "sign-off" --owner mgr --remind 1h >/dev/null
	export DAICHO_NOW_MS=$((T0 + 61 * MIN))
	daicho ls --as mgr >/dev/null
	ok daicho status
	assert_line --index 0 "NEEDS YOU (4)"
	assert_line --index 1 "  #1 blocked by w1: blocked one (needs the prod password)"
	assert_line --index 2 "    see: daicho show 1; resolve: daicho unblock 1 | daicho release 1 --force"
	assert_line --index 3 "  wait #1 overdue: res has waited 1h for sign-off (owner mgr, active)"
	assert_line --index 4 "    resolve: daicho resume 1"
	# a claim held by an ended agent needs a human as much as a stale one's
	# (#3, rejected back to w1 who then ended, is one of them)
	assert_line --index 5 "  w1 is ended, seen 1h ago (2027-01-15T08:00:00Z), and holds #3"
	assert_line --index 6 "    resolve: daicho release 3 --force"
	assert_line --index 7 "  w2 is stale, seen 1h ago (2027-01-15T08:00:00Z), and holds #2"
	ok daicho status --json
	jq -e '[.needs_you[].kind] == ["blocked","overdue-wait","stale-agent-holding","stale-agent-holding"]
		and [.needs_you[2,3].state] == ["ended","stale"]
		and [.needs_you[2,3].claims] == [[3],[2]]
		and .tasks.blocked == 1 and .tasks.claimed == 2' <<<"$output" >/dev/null || fail "$output"
}

@test "status --stale-after 1s: a person is never listed stale, an agent is" {
	daicho agent start w1 >/dev/null
	daicho add t >/dev/null # the human is registered
	daicho claim 1 --as w1 >/dev/null
	export DAICHO_NOW_MS=$((T0 + 5000))
	ok daicho status --stale-after 1s
	assert_line --regexp "^$(id -un) +- +human +active "
	assert_line --regexp '^w1 +- +script +stale '
	assert_line --index 1 --regexp '^  w1 is stale, seen 5s ago'
	ok daicho status --stale-after 1s --json
	jq -e '[.agents[] | [.name, .state]] == [["'"$(id -un)"'","active"],["w1","stale"]]
		and [.needs_you[].kind] == ["stale-agent-holding"]' <<<"$output" >/dev/null || fail "$output"
	# nor does the sweep mark a person stale, whoever runs it
	ok daicho sweep --stale-after 1s --as w1
	[ "$(sql "SELECT state FROM agents WHERE kind = 'human'")" = active ]
	# and a message to a person idle for an hour is delivered, not refused
	export DAICHO_NOW_MS=$((T0 + HOUR))
	ok daicho send "$(id -un)" "are you there?" --as w1
}

@test "status shows agents with last seen, and the newest events" {
	daicho agent start w1 --role implementer >/dev/null
	export DAICHO_NOW_MS=$((T0 + 90000))
	ok daicho status --events 1
	assert_line --regexp '^w1 +implementer +script +active +- +0  1m ago \(2027-01-15T08:00:00Z\)$'
	assert_line "RECENT (1)"
	ok daicho status --events 0 --json
	jq -e '.events == []' <<<"$output" >/dev/null || fail "$output"
	refused 2 daicho status --events -1
	refused 2 daicho status --stale-after x
}

@test "status's recent events and handoff's decisions are sentences, not JSON" {
	daicho agent start w1 --role implementer >/dev/null
	daicho add "Parse headers" >/dev/null
	daicho add "Fix x" --done-when 'file:src/x.c' >/dev/null
	daicho claim 1 --as w1 >/dev/null
	daicho block 1 --reason "which database?" --as w1 >/dev/null
	daicho claim 2 --as w1 >/dev/null
	daicho report 2 --as w1 >/dev/null
	daicho verify 2 --apply >/dev/null 2>&1 || true
	daicho gate add 'git push*' --approval >/dev/null
	daicho gate exec --as w1 -- git push 2>/dev/null && fail "gate exec ran"
	on_pty daicho approve 1
	[ "$status" -eq 0 ] || fail "approve: $output"
	export DAICHO_NOW_MS=$((T0 + 90000))
	ok daicho status --events 8
	me="$(id -un)"
	assert_line "RECENT (8)"
	assert_line "      1m ago  w1 blocked #1 Parse headers: which database?"
	assert_line "      1m ago  w1 claimed #2 Fix x"
	assert_line "      1m ago  w1 reported #2 Fix x done"
	assert_line "      1m ago  #2 Fix x rejected: file:src/x.c: src/x.c is missing; back to its holder"
	assert_line "      1m ago  $me added gate #1 for 'git push*', which needs a person's approval"
	assert_line "      1m ago  w1 asked to run 'git push' (request #1)"
	assert_line "      1m ago  $me approved request #1 (git push)"
	refute_output --partial '{"'
	# --json keeps every field, with the task's title beside its id
	ok daicho status --events 8 --json
	jq -e '[.events[] | select(.kind == "block")] | first | .task == 1 and .title == "Parse headers" and .detail.reason == "which database?"' \
		<<<"$output" >/dev/null || fail "$output"
	ok daicho handoff --as w1
	assert_line "      1m ago  w1 blocked #1 Parse headers: which database?"
	assert_line "      1m ago  $me approved request #1 (git push)"
	refute_output --partial '{"'
}

# A manager asks a researcher to wait, eight times over a day, then ends; a
# successor's hand-off shows the researcher waiting, with owner and age.
@test "scenario: eight waits over a day, the manager ends, the successor's hand-off lists the wait" {
	daicho agent start mgr --role manager >/dev/null
	daicho agent start researcher --role research >/dev/null
	for i in 1 2 3 4 5 6 7 8; do
		export DAICHO_NOW_MS=$((T0 + (i - 1) * 3 * HOUR))
		daicho wait --as researcher --for "data set v$i" --owner mgr --remind 12h >/dev/null
		if [ "$i" -lt 8 ]; then
			export DAICHO_NOW_MS=$((DAICHO_NOW_MS + 2 * HOUR))
			daicho resume --as researcher >/dev/null
		fi
	done
	export DAICHO_NOW_MS=$((T0 + 23 * HOUR))
	daicho agent end --as mgr >/dev/null
	daicho agent start mgr2 --role manager >/dev/null
	ok daicho handoff --as mgr2
	assert_line --regexp '^researcher +research +script +waiting +- +0  2h ago'
	assert_line "  wait #8: researcher (waiting) waits for data set v8; owner mgr (ended); 2h old; 1 open item"
	ok daicho handoff --as mgr2 --json
	jq -e '.waits | length == 1 and .[0].agent == "researcher" and .[0].owner == "mgr"
		and .[0].started_ms == '$((T0 + 21 * HOUR)) <<<"$output" >/dev/null || fail "$output"
	# the successor takes the wait over from the ended manager
	ok daicho handoff --from mgr --to mgr2
	assert_line "Handed 1 wait and the role to mgr2."
	[ "$(sql "SELECT a.name FROM waits w JOIN agents a ON a.id = w.owner WHERE w.id = 8")" = mgr2 ]
	[ "$(sql "SELECT count(*) FROM events WHERE kind = 'handoff'")" = 1 ]
}

# The briefing is complete by construction: every live agent and every open
# wait of a busy ledger appears in it.
@test "handoff lists every live agent and every open wait" {
	daicho agent start boss --role manager >/dev/null
	for i in $(seq 1 25); do
		daicho agent start "a$i" --role "r$((i % 4))" >/dev/null
		if [ $((i % 3)) = 0 ]; then
			daicho wait --as "a$i" --for "thing $i" --owner boss >/dev/null
		fi
		if [ $((i % 5)) = 0 ]; then
			daicho wait --as "a$i" --for "other $i" >/dev/null
		fi
		if [ $((i % 7)) = 0 ]; then
			daicho agent end "a$i" >/dev/null
		fi
	done
	ok daicho handoff --as boss --json
	briefing="$output"
	want_agents="$(sql "SELECT id FROM agents WHERE state <> 'ended' ORDER BY id" | tr '\n' ' ')"
	got_agents="$(jq -r '[.agents[].id] | sort | map(tostring) | join(" ")' <<<"$briefing") "
	assert_equal "$got_agents" "$want_agents"
	want_waits="$(sql "SELECT id FROM waits WHERE ended_ms IS NULL ORDER BY id" | tr '\n' ' ')"
	got_waits="$(jq -r '[.waits[].id] | sort | map(tostring) | join(" ")' <<<"$briefing") "
	assert_equal "$got_waits" "$want_waits"
	[ "$(jq '.waits | length' <<<"$briefing")" -ge 10 ]
	# the text form names each of them too
	ok daicho handoff --as boss
	for id in $want_waits; do
		assert_line --partial "wait #$id: "
	done
}

@test "handoff lists claims, unread messages for the role, reported and rejected tasks, decisions" {
	daicho agent start mgr --role manager >/dev/null
	daicho agent start w1 >/dev/null
	daicho add "claimed" >/dev/null                         # 1
	daicho add "reported" >/dev/null                        # 2
	daicho add "rejected" --done-when 'cmd:false' >/dev/null # 3
	daicho claim 1 --as w1 >/dev/null
	daicho claim 2 --as w1 >/dev/null
	daicho report 2 --as w1 >/dev/null
	daicho claim 3 --as w1 >/dev/null
	daicho report 3 --as w1 >/dev/null
	daicho verify 3 --apply >/dev/null 2>&1 || true
	daicho send role:manager "need a decision on #1" --as w1 >/dev/null
	unread="$(sql "SELECT count(*) FROM messages WHERE read_ms IS NULL")"
	ok daicho handoff --as mgr --json
	jq -e '.from == "mgr" and .role == "manager"
		and ([.claims[].task] == [1,3]) and ([.reported[].task] == [2])
		and ([.rejected[].task] == [3]) and (.unread | length == 1)
		and .unread[0].text == "need a decision on #1"
		and ([.decisions[].kind] | index("rejected") != null)' <<<"$output" >/dev/null || fail "$output"
	# the briefing reads; it marks nothing read (the role's message, and
	# w1's of its rejected report)
	[ "$unread" = 2 ]
	[ "$(sql "SELECT count(*) FROM messages WHERE read_ms IS NULL")" = "$unread" ]
}

# mutant: handoff prints the lease left for every holder: a stale holder's
# claim reads "lease ends in 24m" though the next sweep takes it back.
@test "handoff: a claim whose holder went quiet says the next sweep takes it back, not how long its lease has left" {
	daicho agent start mgr --role manager >/dev/null
	daicho add "quiet" >/dev/null
	daicho add "busy" >/dev/null
	daicho claim 1 --as w1 --lease 30m >/dev/null
	daicho claim 2 --as w2 --lease 30m >/dev/null
	# Eleven minutes on: w1 is stale (ten minutes unseen), w2 is not.
	export DAICHO_NOW_MS=$((T0 + 11 * MIN))
	daicho ls --as w2 >/dev/null
	ok daicho handoff --as mgr
	[[ "$output" == *"#1 quiet: held by w1 (stale): the next sweep takes it back, whatever its lease"* ]] ||
		fail "$output"
	[[ "$output" == *"#2 busy: held by w2 (active), lease ends in 19m"* ]] || fail "$output"
}

@test "handoff --to refuses unknown or ended agents with one line and no change" {
	daicho agent start mgr --role manager >/dev/null
	daicho agent start gone >/dev/null
	daicho agent end gone >/dev/null
	snapshot_ledger
	refused 3 daicho handoff --as mgr --to nobody
	refused 3 daicho handoff --as mgr --to gone
	stderr_contains "no live agent named 'gone'"
	refused 2 daicho handoff --as mgr --to mgr
	refused 3 daicho handoff --as mgr --from ghost --to mgr
	refused 2 daicho handoff extra
	assert_ledger_unchanged
}

@test "handoff --to moves the role: role: messages go to the successor" {
	daicho agent start mgr --role manager >/dev/null
	daicho agent start next >/dev/null
	ok daicho handoff --as mgr --to next
	ok daicho send role:manager "hello boss" --as mgr --json
	jq -e '.[0].to == "next"' <<<"$output" >/dev/null || fail "$output"
}

@test "handoff --from an unknown name is exit 3, not a briefing of the caller" {
	daicho agent start mgr --role manager >/dev/null
	refused 3 daicho handoff --as mgr --from mrg
	stderr_contains "no agent named 'mrg'"
}

@test "handoff --to says which role it handed over, with that role's unread messages" {
	daicho agent start mgr --role manager >/dev/null
	daicho agent start next >/dev/null
	daicho send role:manager "budget question" --as next >/dev/null
	ok daicho handoff --as mgr --to next --json
	jq -e '.role == "manager" and .to == "next" and .waits_moved == 0
		and (.unread | length) == 1 and .unread[0].text == "budget question"' \
		<<<"$output" >/dev/null || fail "$output"
	[ "$(sql "SELECT role FROM agents WHERE name = 'next'")" = manager ]
}
