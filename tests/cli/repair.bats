#!/usr/bin/env bats
# Repairs of work in flight: edit, reopen, unblock, release --force.

load helpers

T0=1800000000000

setup() {
	common_setup
	daicho add seed >/dev/null # the human is registered
}

@test "edit changes title, body, priority, labels, max attempts and check timeout; one event names each" {
	daicho add t --label a --priority 1 >/dev/null
	ok person daicho edit 2 --title 'New title' --body 'new body' --priority 7 --label x --label y --max-attempts 5 --check-timeout 90s
	assert_output ''
	ok daicho show --json 2
	run jq -c '[.title, .priority, .labels, .max_attempts, .check_timeout_ms, .body_bytes]' <<<"$output"
	assert_output '["New title",7,["x","y"],5,90000,8]'
	[ "$(daicho prompt 2)" = 'new body' ]
	ok daicho events --json
	run jq -c '[.[] | select(.kind == "edit") | .detail.fields]' <<<"$output"
	assert_output '[["title","body","priority","max_attempts","check_timeout","labels"]]'
	# '' alone empties a list.
	ok daicho edit 2 --label ''
	[ "$(task_field 2 'labels | length')" = 0 ]
}

@test "edit --done-when replaces the checks, raises their version, and the next verdict says which version it ran" {
	daicho add t --done-when saved >/dev/null
	[ "$(task_field 2 checks_version)" = 1 ]
	DAICHO_AGENT=w1 ok daicho claim 2
	printf 'r' | DAICHO_AGENT=w1 daicho save 2
	ok person daicho edit 2 --done-when saved --done-when 'cmd:test -n "$DAICHO_TASK"'
	run task_field 2 'done_when | join(";")'
	assert_output 'saved;cmd:test -n "$DAICHO_TASK"'
	[ "$(task_field 2 checks_version)" = 2 ]
	ok daicho events --json
	run jq -c '[.[] | select(.kind == "edit") | .detail | {done_when, checks_version}]' <<<"$output"
	assert_output '[{"done_when":{"new":["saved","cmd:test -n \"$DAICHO_TASK\""],"old":["saved"]},"checks_version":2}]'
	# The holder is told.
	DAICHO_AGENT=w1 ok daicho inbox
	assert_output --partial "task #2 was edited by $(id -un) while you hold it: its done_when changed (checks v2)"
	DAICHO_AGENT=w1 ok daicho report 2
	ok daicho sweep
	[ "$(task_field 2 state)" = verified ]
	[ "$(task_field 2 last_verdict.checks_version)" = 2 ]
	ok daicho show 2
	assert_line --regexp '^done when .*\(checks v2: changed after the task was added'
}

@test "edit of the checks or the scope: only a human or the agent that added it; others are refused (exit 6), nothing changes" {
	DAICHO_AGENT=mgr daicho add t --done-when saved >/dev/null
	DAICHO_AGENT=w1 ok daicho claim 2
	snapshot_ledger
	for opt in "--done-when cmd:true" "--touches src/**" "--protect tests/**" "--check-timeout 1s"; do
		DAICHO_AGENT=w1 refused 6 daicho edit 2 $opt
		stderr_contains "you hold it, and what judges your own work is for a human or its creator"
		DAICHO_AGENT=w2 refused 6 daicho edit 2 $opt
		stderr_contains "only a human or the agent that added it may"
	done
	assert_ledger_unchanged
	# Not even its creator, once it holds it.
	DAICHO_AGENT=mgr daicho add own --done-when saved >/dev/null
	DAICHO_AGENT=mgr daicho claim 3 >/dev/null
	DAICHO_AGENT=mgr refused 6 daicho edit 3 --done-when cmd:true
	# The creator may; so may the human; others may change the rest.
	DAICHO_AGENT=mgr ok daicho edit 2 --touches 'src/**'
	ok person daicho edit 2 --protect 'tests/**'
	DAICHO_AGENT=w1 ok daicho edit 2 --title 'clearer title'
	[ "$(task_field 2 checks_version)" = 3 ]
}

@test "edit --after and --not-after change the edges, keep readiness true, and refuse a cycle naming it" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	ok person daicho edit 3 --after 2
	[ "$(task_field 3 unmet_after)" = 1 ]
	run daicho ls --ready --json
	[ "$(jq -c 'map(.id)' <<<"$output")" = '[1,2]' ]
	snapshot_ledger
	refused 4 person daicho edit 2 --after 3
	assert_equal "$stderr" "daicho: dependency cycle: #2 -> #3 -> #2 (dependencies must form a DAG; drop that --after)"
	refused 4 person daicho edit 2 --after 2
	refused 3 person daicho edit 2 --after 99
	refused 2 person daicho edit 3 --after 2
	stderr_contains 'already comes after #2'
	refused 2 person daicho edit 2 --not-after 3
	assert_ledger_unchanged
	ok person daicho edit 3 --not-after 2
	[ "$(task_field 3 unmet_after)" = 0 ]
}

@test "edit: bad input is refused with one line and changes nothing" {
	daicho add t >/dev/null
	snapshot_ledger
	refused 2 daicho edit 2
	refused 2 daicho edit 2 --title t
	stderr_contains 'nothing to change'
	refused 2 daicho edit 2 --title ''
	refused 2 daicho edit 2 --title "$(printf 'a\nb')"
	refused 2 person daicho edit 2 --done-when bogus
	refused 2 person daicho edit 2 --done-when file:../x
	refused 2 person daicho edit 2 --touches '/abs'
	refused 2 person daicho edit 2 --protect '../x'
	refused 2 daicho edit 2 --max-attempts 0
	refused 2 daicho edit 2 --priority x
	refused 2 person daicho edit 2 --check-timeout 0s
	refused 2 daicho edit 2 --label 'a b'
	refused 2 daicho edit 2 --body x --body-file -
	refused 3 daicho edit 99 --title x
	refused 2 daicho edit nope --title x
	assert_ledger_unchanged
}

@test "reopen: a failed or cancelled task is open again with attempts reset, history kept; dependents wait for it again" {
	daicho add a --max-attempts 1 >/dev/null
	daicho add b --after 2 >/dev/null
	DAICHO_NOW_MS=$T0 DAICHO_AGENT=w1 daicho claim 2 --lease 1s >/dev/null
	DAICHO_NOW_MS=$((T0 + 5000)) ok daicho sweep
	[ "$(task_field 2 state)" = failed ]
	ok person daicho reopen 2
	ok daicho show --json 2
	run jq -c '[.state, .attempts, .owner]' <<<"$output"
	assert_output '["open",0,null]'
	[ "$(task_field 3 unmet_after)" = 1 ]
	ok daicho events --json
	run jq -c '[.[] | select(.task == 2) | .kind]' <<<"$output"
	assert_output '["add","claim","lease-expired","fail","reopen"]'
	ok person daicho cancel 3
	ok person daicho reopen 3
	[ "$(task_field 3 state)" = open ]
}

@test "reopen: refused for a task that is open, claimed, reported or blocked (exit 4) and for an agent that did not add it (exit 6)" {
	DAICHO_AGENT=mgr daicho add a >/dev/null
	person daicho cancel 2
	snapshot_ledger
	refused 4 person daicho reopen 1
	stderr_contains "cannot reopen task #1: it is open (a failed, cancelled, verified or landed task is reopened)"
	DAICHO_AGENT=w1 refused 6 daicho reopen 2
	refused 3 person daicho reopen 99
	assert_ledger_unchanged
	DAICHO_AGENT=mgr ok daicho reopen 2
}

@test "unblock: back to a live holder (claimed, fresh lease), else open; by a human or the holder only" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	DAICHO_AGENT=w1 daicho claim 2 >/dev/null
	DAICHO_AGENT=w1 daicho block 2 --reason 'need the API key'
	DAICHO_AGENT=w2 refused 6 daicho unblock 2
	ok person daicho unblock 2 --json
	assert_output '{"id":2,"to":"owner"}'
	[ "$(task_field 2 state)" = claimed ]
	[ "$(task_field 2 owner)" = w1 ]
	[ "$(task_field 2 block_reason)" = null ]
	# The holder may unblock its own task too.
	DAICHO_AGENT=w1 daicho block 2 --reason again
	DAICHO_AGENT=w1 ok daicho unblock 2
	# A holder gone quiet: the task goes back to open.
	DAICHO_NOW_MS=$T0 DAICHO_AGENT=w3 daicho claim 3 >/dev/null
	DAICHO_NOW_MS=$T0 DAICHO_AGENT=w3 daicho block 3 --reason gone
	DAICHO_NOW_MS=$((T0 + 3600000)) ok person daicho unblock 3 --json
	assert_output '{"id":3,"to":"open"}'
	[ "$(task_field 3 owner)" = null ]
	refused 4 person daicho unblock 3
}

@test "unblock --answer: one step answers the question, tells the holder, and keeps the answer in the prompt; an empty answer is refused" {
	daicho add a --body 'write the parser' >/dev/null
	DAICHO_AGENT=w1 daicho claim 2 >/dev/null
	DAICHO_AGENT=w1 daicho block 2 --reason 'which grammar?'
	snapshot_ledger
	refused 2 person daicho unblock 2 --answer ''
	refused 2 person daicho unblock 2 --answer ' '
	refused 4 person daicho unblock 1 --answer 'not blocked'
	assert_ledger_unchanged
	# On a terminal: one line saying where it went.
	on_pty daicho unblock 2 --answer 'the PEG one'
	[ "$status" -eq 0 ] || fail "$status: $output"
	[ "$output" = 'unblocked #2 → its holder, answered' ] || fail "$output"
	[ "$(task_field 2 state)" = claimed ] || fail "state: $(task_field 2 state)"
	[ "$(task_field 2 owner)" = w1 ] || fail "owner: $(task_field 2 owner)"
	# The holder is told, with its question.
	DAICHO_AGENT=w1 ok daicho inbox
	assert_output --partial '#2 is yours again, answered: the PEG one (you asked: which grammar?)'
	# The answer is kept on the task: its prompt ends with it.
	[ "$(daicho prompt 2)" = $'write the parser\n\n---\nAnswered by a person (daicho unblock --answer):\nQ: which grammar?\nA: the PEG one' ] ||
		fail "$(daicho prompt 2)"
	ok daicho events --json
	run jq -c 'map(select(.kind == "unblock")) | last | .detail' <<<"$output"
	assert_output '{"answer":"the PEG one","owner":"w1","question":"which grammar?","to":"owner"}'
	ok daicho log 2
	assert_output --partial 'answering: the PEG one'
	# A holder gone quiet: open again, and the next claimer has every
	# answer (and no message is sent to the gone holder).
	DAICHO_AGENT=w1 daicho block 2 --reason 'tabs or spaces?'
	DAICHO_NOW_MS=$(($(date +%s%3N) + 3600000)) run person daicho unblock 2 --answer tabs --json
	assert_output '{"id":2,"to":"open"}'
	DAICHO_AGENT=w1 ok daicho inbox
	refute_output --partial 'tabs'
	[ "$(daicho prompt 2 | tail -4)" = $'Q: which grammar?\nA: the PEG one\nQ: tabs or spaces?\nA: tabs' ] ||
		fail "$(daicho prompt 2)"
	# Without --answer, nothing is added.
	daicho add b >/dev/null
	DAICHO_AGENT=w2 daicho claim 3 >/dev/null
	DAICHO_AGENT=w2 daicho block 3 --reason why
	ok person daicho unblock 3
	assert_output ''
	[ "$(daicho prompt 3)" = '' ]
}

@test "release --force: a human takes a task back from any holder, who is told; an agent is refused" {
	daicho add a >/dev/null
	DAICHO_AGENT=w1 daicho claim 2 >/dev/null
	snapshot_ledger
	DAICHO_AGENT=w2 refused 6 daicho release 2 --force
	refused 4 daicho release 2
	assert_ledger_unchanged
	ok person daicho release 2 --force
	ok daicho show --json 2
	run jq -c '[.state, .owner, .attempts]' <<<"$output"
	assert_output '["open",null,0]'
	DAICHO_AGENT=w1 ok daicho inbox
	assert_output --partial 'task #2 was taken back from you'
	refused 4 person daicho release 2 --force
}
