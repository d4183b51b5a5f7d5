#!/usr/bin/env bats
# NEEDS YOU in daicho status: every kind of item only a person can resolve.
# Each test makes one kind, sees it in status and status --json, resolves it
# with the command status shows, and sees it gone.

load helpers

T0=1800000000000
MIN=60000
HOUR=3600000

setup() {
	common_setup
	export DAICHO_NOW_MS=$T0
	unset CLAUDECODE GEMINI_CLI CODEX_SANDBOX
	ME="$(id -un)"
}

# needs JQ: one jq expression over status --json's needs_you (raw output).
needs() {
	daicho status --json | jq -r ".needs_you | $1"
}

# assert_needs KINDS: the kinds in status --json, in order, joined by
# spaces ('' for none).
assert_needs() {
	local got
	got="$(needs 'map(.kind) | join(" ")')"
	[ "$got" = "$1" ] || fail "needs_you kinds: expected '$1', got '$got'"
}

# shown N: the Nth command status --json shows to resolve the first item.
shown() {
	needs ".[0].resolve[$1]"
}

@test "every item has kind, id, summary, since_ms and resolve; text shows summary and commands" {
	daicho agent start w1 >/dev/null
	daicho add a >/dev/null
	daicho claim 1 --as w1 >/dev/null
	daicho block 1 --reason 'which database?' --as w1 >/dev/null
	ok daicho status --json
	jq -e '.needs_you | length == 1 and (.[0] | keys_unsorted[0:5] == ["kind","id","summary","since_ms","resolve"])
		and (.[0].summary | type) == "string" and (.[0].resolve | type) == "array"' \
		<<<"$output" >/dev/null || fail "$output"
	ok daicho status
	assert_line --index 0 "NEEDS YOU (1)"
	assert_line --index 1 "  #1 blocked by w1: a (which database?)"
	assert_line --index 2 "    see: daicho show 1; resolve: daicho unblock 1 | daicho release 1 --force"
}

@test "approval: a pending request; 'daicho approve' or 'daicho deny' resolves it" {
	daicho gate add 'git merge *' --approval >/dev/null
	daicho gate exec --as A -- git merge one 2>/dev/null && fail "gate exec ran"
	export DAICHO_NOW_MS=$((T0 + MIN))
	daicho gate exec --as B -- git merge two 2>/dev/null && fail "gate exec ran"
	ok daicho status
	assert_line --index 0 "NEEDS YOU (2)"
	assert_line --index 1 "  approval #1: A asks to run 'git merge one' in $TEST_ROOT (gate 'git merge *')"
	assert_line --index 2 "    see: daicho approvals; resolve: daicho approve 1 | daicho deny 1"
	assert_line --index 3 "  approval #2: B asks to run 'git merge two' in $TEST_ROOT (gate 'git merge *')"
	ok daicho status --json
	jq -e '[.needs_you[] | [.kind, .id, .since_ms, .requester, .command]] ==
		[["approval",1,'$T0',"A","git merge one"],["approval",2,'$((T0 + MIN))',"B","git merge two"]]' \
		<<<"$output" >/dev/null || fail "$output"
	[ "$(shown 0)" = "daicho approve 1" ]
	on_pty $(shown 0)
	[ "$status" -eq 0 ] || fail "approve: $output"
	[ "$(needs 'map(.id) | join(" ")')" = 2 ]
	[ "$(needs '.[0].resolve[1]')" = "daicho deny 2" ]
	on_pty daicho deny 2
	[ "$status" -eq 0 ] || fail "deny: $output"
	assert_needs ''
	# A request for a denied command is refused at once, and still needs a
	# person: approving it lifts the denial.
	daicho gate exec --as A -- git merge two 2>/dev/null && fail "gate exec ran"
	[ "$(needs '.[0].denied_before')" = true ]
	# The decider as recorded: the Unix user, or PostgreSQL's role.
	local by
	by=$(sql "SELECT decided_by FROM approvals WHERE id = 2")
	needs '.[0].summary' | grep -q "; asked again after #2 was denied (by $by, 0s ago), so refused for now (approving lifts the denial)$" ||
		fail "$(needs '.[0].summary')"
	[ "$(needs '.[0] | [.denied_id, .denied_reason] | @json')" = '[2,null]' ]
	# Retried, it stays one item, and names the denial's reason.
	daicho gate exec --as A -- git merge two 2>/dev/null && fail "gate exec ran"
	daicho gate exec --as B -- git merge three 2>/dev/null && fail "gate exec ran"
	on_pty daicho deny 4 --reason 'not three'
	daicho gate exec --as B -- git merge three 2>/dev/null && fail "gate exec ran"
	[ "$(needs 'map(.id) | join(" ")')" = '3 5' ] || fail "$(needs 'map(.id)')"
	needs '.[1].summary' | grep -q "after #4 was denied (by $by, 0s ago: 'not three'), so refused" ||
		fail "$(needs '.[1].summary')"
}

@test "blocked: a blocked task with its reason; 'daicho unblock' or 'daicho release --force' resolves it" {
	daicho agent start w1 >/dev/null
	daicho add "later blocked" >/dev/null
	daicho add "first blocked" >/dev/null
	daicho claim 1 --as w1 >/dev/null
	daicho claim 2 --as w1 >/dev/null
	daicho block 2 --reason "needs the prod password" --as w1 >/dev/null
	export DAICHO_NOW_MS=$((T0 + MIN))
	daicho block 1 --reason "which API version?" --as w1 >/dev/null
	# oldest first within a kind: #2 was blocked first
	ok daicho status
	assert_line --index 1 "  #2 blocked by w1: first blocked (needs the prod password)"
	assert_line --index 3 "  #1 blocked by w1: later blocked (which API version?)"
	ok daicho status --json
	jq -e '[.needs_you[] | [.kind, .id, .since_ms, .reason]] ==
		[["blocked",2,'$T0',"needs the prod password"],["blocked",1,'$((T0 + MIN))',"which API version?"]]' \
		<<<"$output" >/dev/null || fail "$output"
	[ "$(shown 0)" = "daicho unblock 2" ]
	ok person $(shown 0)
	[ "$(needs '.[0].resolve[1]')" = "daicho release 1 --force" ]
	ok person daicho release 1 --force
	assert_needs ''
	[ "$(task_field 2 state)" = claimed ]
	[ "$(task_field 1 state)" = open ]
}

@test "message: unread messages to a person, by name or to a role they hold; 'daicho inbox' resolves them" {
	# The person holds the role manager.
	daicho agent start "$ME" --role manager --kind human >/dev/null
	daicho agent start w1 >/dev/null
	daicho agent start w2 >/dev/null
	daicho send "$ME" "the tests need a database" --as w1 >/dev/null
	export DAICHO_NOW_MS=$((T0 + MIN))
	daicho send role:manager "may I merge #4?" --as w2 >/dev/null
	# a message between agents is not the person's
	daicho send w2 "hello" --as w1 >/dev/null
	ok daicho status
	assert_line --index 0 "NEEDS YOU (2)"
	assert_line --index 1 "  message #1 from w1 to $ME: the tests need a database"
	assert_line --index 2 "    resolve: daicho inbox"
	assert_line --index 3 "  message #2 from w2 to role:manager ($ME): may I merge #4?"
	ok daicho status --json
	jq -e '[.needs_you[] | [.kind, .id, .since_ms, .from, .to, .addressed_to]] ==
		[["message",1,'$T0',"w1","'"$ME"'","'"$ME"'"],["message",2,'$((T0 + MIN))',"w2","'"$ME"'","role:manager"]]' \
		<<<"$output" >/dev/null || fail "$output"
	# an agent looking at status is told how the person reads them
	ok daicho status --as w1
	assert_line --index 2 "    resolve: daicho inbox --as $ME"
	ok person $(shown 0)
	assert_line --index 0 --partial "the tests need a database"
	assert_needs ''
	# a long message is cut in the summary, whole in text
	daicho send "$ME" "$(printf 'x%.0s' $(seq 1 150))" --as w1 >/dev/null
	[ "$(needs '.[0].summary | endswith("xxx...")')" = true ]
	[ "$(needs '.[0].text | length')" = 150 ]
}

@test "overdue-wait and wait-needs-human: 'daicho resume WAIT' by the person ends it, and the agent is told" {
	daicho agent start mgr --role manager >/dev/null
	daicho agent start lone >/dev/null
	daicho agent start res >/dev/null
	daicho agent start solo >/dev/null
	daicho wait --as res --for "sign-off" --owner mgr --remind 1h >/dev/null
	daicho wait --as solo --for "input" --owner lone >/dev/null
	daicho agent end lone >/dev/null
	ok daicho sweep
	export DAICHO_NOW_MS=$((T0 + 61 * MIN))
	daicho ls --as mgr >/dev/null
	ok daicho status
	assert_line --index 0 "NEEDS YOU (2)"
	assert_line --index 1 "  wait #1 overdue: res has waited 1h for sign-off (owner mgr, active)"
	assert_line --index 2 "    resolve: daicho resume 1"
	assert_line --index 3 "  wait #2 has no live owner: solo has waited 1h for input (owner lone, ended)"
	assert_line --index 4 "    resolve: daicho resume 2"
	ok daicho status --json
	jq -e '[.needs_you[] | [.kind, .id, .since_ms, .agent]] ==
		[["overdue-wait",1,'$((T0 + HOUR))',"res"],["wait-needs-human",2,'$T0',"solo"]]' \
		<<<"$output" >/dev/null || fail "$output"
	ok person $(shown 0)
	ok person daicho resume 2
	assert_needs ''
	[ "$(sql "SELECT state FROM agents WHERE name IN ('res','solo')" | sort -u)" = active ]
	ok daicho inbox --as res
	assert_output --partial "your wait #1 for sign-off is over: a person ended it; carry on"
	# an agent still ends only its own waits
	daicho wait --as res --for "more" >/dev/null
	refused 3 daicho resume 3 --as solo
	refused 2 person daicho resume
	stderr_contains "a person ends an agent's wait by its number: daicho resume WAIT"
}

@test "failed: a failed task with what it holds back; 'daicho reopen' or 'daicho cancel' resolves it" {
	daicho agent start w1 >/dev/null
	daicho add base --done-when 'cmd:false' --max-attempts 1 >/dev/null # 1
	daicho add mid --after 1 >/dev/null                                 # 2
	daicho add top --after 2 >/dev/null                                 # 3
	daicho add side --after 1 >/dev/null                                # 4
	daicho add done-already >/dev/null                                  # 5
	daicho add lonely --done-when 'cmd:false' --max-attempts 1 >/dev/null # 6
	daicho claim 1 --as w1 >/dev/null
	daicho report 1 --as w1 >/dev/null
	ok daicho sweep
	export DAICHO_NOW_MS=$((T0 + MIN))
	daicho claim 6 --as w1 >/dev/null
	daicho report 6 --as w1 >/dev/null
	ok daicho sweep
	[ "$(task_field 1 state)" = failed ]
	ok daicho status
	assert_line --index 0 "NEEDS YOU (2)"
	assert_line --index 1 "  #1 failed: base (attempts exhausted, 1 attempt); holds back 3 tasks, 2 directly"
	assert_line --index 2 "    see: daicho show 1; resolve: daicho reopen 1 | daicho cancel 1"
	assert_line --index 3 "  #6 failed: lonely (attempts exhausted, 1 attempt); holds nothing back"
	ok daicho status --json
	jq -e '[.needs_you[] | [.kind, .id, .since_ms, .holds_back, .holds_back_directly]] ==
		[["failed",1,'$T0',3,2],["failed",6,'$((T0 + MIN))',0,0]]' \
		<<<"$output" >/dev/null || fail "$output"
	ok person $(shown 0)
	[ "$(task_field 1 state)" = open ]
	[ "$(needs 'map(.id) | join(" ")')" = 6 ]
	ok person $(needs '.[0].resolve[1]')
	[ "$(task_field 6 state)" = cancelled ]
	assert_needs ''
}

@test "rejected: rejected twice since a person last changed it; 'daicho edit' or 'daicho release --force' resolves it" {
	daicho agent start w1 >/dev/null
	daicho add flaky --done-when 'cmd:false' --max-attempts 9 >/dev/null
	daicho add other --done-when 'cmd:false' --max-attempts 9 >/dev/null
	daicho claim 1 --as w1 >/dev/null
	daicho claim 2 --as w1 >/dev/null
	reject() { daicho report "$1" --as w1 >/dev/null; daicho sweep >/dev/null; }
	reject 1
	reject 2
	assert_needs ''
	export DAICHO_NOW_MS=$((T0 + MIN))
	reject 1
	ok daicho status
	assert_line --index 1 "  #1 rejected 2 times: flaky (claimed by w1; last: cmd:false: exit 1)"
	assert_line --index 2 "    see: daicho show 1; resolve: daicho edit 1 --body-file FILE | daicho release 1 --force"
	ok daicho status --json
	jq -e '[.needs_you[] | [.kind, .id, .since_ms, .rejections, .state]] == [["rejected",1,'$((T0 + MIN))',2,"claimed"]]' \
		<<<"$output" >/dev/null || fail "$output"
	# edit: the person changed the task; rejections count again from there
	echo "use the staging database" >body.md
	[ "$(shown 0)" = "daicho edit 1 --body-file FILE" ]
	ok daicho edit 1 --body-file body.md
	assert_needs ''
	reject 1
	assert_needs ''
	reject 1
	assert_needs rejected
	# release --force: taken back from its holder
	reject 2
	[ "$(needs 'map(.id) | join(" ")')" = "1 2" ]
	ok person daicho release 2 --force
	[ "$(needs 'map(.id) | join(" ")')" = 1 ]
	# an open one is resolved by edit or cancel
	ok person daicho release 1 --force
	assert_needs ''
	daicho claim 1 --as w1 >/dev/null
	reject 1
	daicho release 1 --as w1
	assert_needs ''
}

@test "rejected: an open task rejected twice offers edit or cancel" {
	daicho agent start w1 >/dev/null
	daicho agent start w2 >/dev/null
	daicho add t --done-when 'cmd:false' --max-attempts 9 >/dev/null
	for w in w1 w2; do
		daicho claim 1 --as $w >/dev/null
		daicho report 1 --as $w >/dev/null
		daicho agent end $w >/dev/null # gone: the rejection reopens the task
		ok daicho sweep
	done
	[ "$(task_field 1 state)" = open ]
	[ "$(needs '.[0].resolve | join(" | ")')" = "daicho edit 1 --body-file FILE | daicho cancel 1" ]
	ok person $(needs '.[0].resolve[1]')
	assert_needs ''
}

@test "max-hold: a task the sweep took back for its maximum hold, until claimed again or changed" {
	daicho agent start w1 >/dev/null
	daicho add "long one" >/dev/null
	daicho add "another" >/dev/null
	daicho claim 1 --as w1 --max-hold 1h >/dev/null
	daicho claim 2 --as w1 --max-hold 1h >/dev/null
	# w1 keeps heart-beating, but no command of its names the tasks
	for m in 20 40 60 61; do
		export DAICHO_NOW_MS=$((T0 + m * MIN))
		daicho ls --as w1 >/dev/null
	done
	ok daicho sweep
	assert_output --partial "2 leases expired"
	ok daicho status
	assert_line --index 0 "NEEDS YOU (2)"
	assert_line --index 1 "  #1 taken back from w1, who held it for its max hold (1h0m) without naming it; open again: long one"
	assert_line --index 2 "    see: daicho log 1; resolve: daicho edit 1 --body-file FILE | daicho cancel 1"
	ok daicho status --json
	jq -e '[.needs_you[] | [.kind, .id, .since_ms, .owner, .max_hold_ms]] ==
		[["max-hold",1,'$((T0 + 61 * MIN))',"w1",'$HOUR'],["max-hold",2,'$((T0 + 61 * MIN))',"w1",'$HOUR']]' \
		<<<"$output" >/dev/null || fail "$output"
	echo "split it: first the parser" >body.md
	ok daicho edit 1 --body-file body.md
	[ "$(needs 'map(.id) | join(" ")')" = 2 ]
	# claimed again: no longer the person's
	daicho claim 2 --as w1 >/dev/null
	assert_needs ''
	# a claim that ended because its holder went quiet is the sweep's
	# business, not the person's
	export DAICHO_NOW_MS=$((T0 + 101 * MIN))
	ok daicho sweep
	assert_output --partial "1 lease expired"
	[ "$(task_field 2 state)" = open ]
	assert_needs ''
}

@test "stale-agent-holding: a stale or ended agent holding claims; 'daicho release --force' per claim resolves it" {
	daicho agent start w1 >/dev/null
	daicho agent start w2 >/dev/null
	daicho add a >/dev/null
	daicho add b >/dev/null
	daicho add c >/dev/null
	daicho claim 1 --as w1 --lease 2h >/dev/null
	daicho claim 3 --as w1 --lease 2h >/dev/null
	daicho claim 2 --as w2 --lease 2h >/dev/null
	export DAICHO_NOW_MS=$((T0 + MIN))
	daicho ls --as w2 >/dev/null
	export DAICHO_NOW_MS=$((T0 + 20 * MIN))
	ok daicho status
	assert_line --index 1 "  w1 is stale, seen 20m ago (2027-01-15T08:00:00Z), and holds #1, #3"
	assert_line --index 2 "    resolve: daicho release 1 --force | daicho release 3 --force"
	assert_line --index 3 "  w2 is stale, seen 19m ago (2027-01-15T08:01:00Z), and holds #2"
	ok daicho status --json
	jq -e '[.needs_you[] | [.kind, .agent, .since_ms, .claims]] ==
		[["stale-agent-holding","w1",'$T0',[1,3]],["stale-agent-holding","w2",'$((T0 + MIN))',[2]]]' \
		<<<"$output" >/dev/null || fail "$output"
	[ "$(needs '.[0].resolve | join(" | ")')" = "daicho release 1 --force | daicho release 3 --force" ]
	ok person daicho release 1 --force
	[ "$(needs '.[0].claims | map(tostring) | join(" ")')" = 3 ]
	ok person daicho release 3 --force
	ok person $(needs '.[0].resolve[0]')
	assert_needs ''
}

@test "budget-stop: a run stopped by its budget with tasks ready, until a run starts again" {
	unset DAICHO_NOW_MS
	for i in 1 2 3 4; do daicho add "t$i" >/dev/null; done
	capture daicho run -j 1 --budget-tokens 100 -- sh -c 'echo r | daicho save "$DAICHO_TASK" --tokens-in 60'
	[ "$status" -eq 0 ] || fail "run: exit $status: $stderr"
	ok daicho status
	assert_line --index 1 "  a run by $ME stopped at its budget (120 tokens, cost 0.00 spent); 2 tasks are ready"
	assert_line --index 2 "    resolve: daicho run --budget-tokens N -- CMD"
	ok daicho status --json
	jq -e '[.needs_you[] | [.kind, .by, .tokens, .ready]] == [["budget-stop","'"$ME"'",120,2]]' \
		<<<"$output" >/dev/null || fail "$output"
	[ "$(needs '.[0].id')" = "$(sql "SELECT id FROM events WHERE kind = 'budget-spent'")" ]
	sleep 0.01
	capture daicho run -j 1 --budget-tokens 1000 -- sh -c 'echo r | daicho save "$DAICHO_TASK" --tokens-in 60'
	[ "$status" -eq 0 ] || fail "run: exit $status: $stderr"
	assert_needs ''
	# nothing ready, nothing to decide
	for i in 5 6 7; do daicho add "t$i" >/dev/null; done
	sleep 0.01
	capture daicho run -j 1 --budget-tokens 50 -- sh -c 'echo r | daicho save "$DAICHO_TASK" --tokens-in 60'
	assert_needs budget-stop
	ok person daicho cancel 6
	ok person daicho cancel 7
	assert_needs ''
}

@test "verify-error: git could not check out the reported commit; the item goes when the work is reported again" {
	load fake_git
	unset DAICHO_LEDGER
	new_git_repo "$TEST_ROOT/repo"
	cd "$TEST_ROOT/repo"
	daicho init >/dev/null
	daicho agent start w1 >/dev/null
	person daicho config land off # verified is where this story ends
	daicho add t --done-when 'file:out.txt' >/dev/null
	daicho claim 1 --as w1 >/dev/null
	# The work on a branch: a commit on the trunk itself is no one's own.
	git checkout -q -b work
	echo work >out.txt
	git add out.txt
	git commit -q -m work
	git checkout -q main
	daicho report 1 --as w1 --commit work >/dev/null
	fake_worktree_add_failure always
	ok daicho sweep
	assert_output --partial "1 rejected"
	ok daicho status
	assert_line --index 1 --regexp "^  #1 could not be verified \(git failed at checkout: cannot check out [0-9a-f]{12} in .*\): t; it went back to w1: fix git before it is reported again$"
	assert_line --index 2 "    see: daicho show 1; resolve: daicho verify 1"
	ok daicho status --json
	jq -e '[.needs_you[] | [.kind, .id, .state, .owner, .check]] == [["verify-error",1,"claimed","w1","checkout"]]
		and (.needs_you[0].reason | contains("fatal: could not create directory"))' \
		<<<"$output" >/dev/null || fail "$output"
	# git mended, the check says so; the holder's next report is the sweep's
	export PATH="${PATH#"$TEST_ROOT/fakegit:"}"
	ok person $(shown 0)
	daicho report 1 --as w1 --commit work >/dev/null
	assert_needs ''
	ok daicho sweep
	[ "$(task_field 1 state)" = verified ]
	assert_needs ''
}

@test "a reported task whose last verdict failed at checkout offers verify --apply" {
	daicho agent start w1 >/dev/null
	daicho add t >/dev/null
	daicho claim 1 --as w1 >/dev/null
	daicho report 1 --as w1 >/dev/null
	# As a verification that could not run and left the task reported.
	sql "INSERT INTO verdicts (task, at_ms, passed, summary) VALUES (1, $((T0 + MIN)), 0, 'checkout: failed')"
	sql "INSERT INTO check_runs (verdict, seq, spec, passed, duration_ms, output)
		VALUES (1, 1, 'checkout', 0, 5, $(sql_blob "'cannot check out abc: disk full'"))"
	[ "$(needs '.[0].resolve | join(" | ")')" = "daicho verify 1 --apply" ]
	needs '.[0].summary' | grep -q '^#1 could not be verified (git failed at checkout: cannot check out abc: disk full): t; fix git, then verify it again$' ||
		fail "$(needs '.[0].summary')"
}

# mutant: the unswept kind's window test dropped (every report listed at
# once) or the kind gone: the first or second assertion fails.
@test "unswept: reports no sweep took for the stale window; 'daicho sweep' resolves it, and doctor fails until then" {
	daicho add a --done-when saved >/dev/null
	daicho add b --done-when saved >/dev/null
	daicho claim 1 --as w1 >/dev/null
	echo r | daicho save 1 --as w1 -f - >/dev/null
	daicho report 1 --as w1 >/dev/null
	# Reported a minute ago: a sweep may be on its way.
	export DAICHO_NOW_MS=$((T0 + MIN))
	assert_needs ''
	export DAICHO_NOW_MS=$((T0 + 12 * MIN))
	assert_needs unswept
	[ "$(needs '.[0].summary')" = "1 report waits for a sweep, the oldest for 12m: is one running? ('daicho sweep --every 30s' keeps one going)" ] ||
		fail "$(needs '.[0].summary')"
	[ "$(needs '.[0].reports')" = 1 ]
	run daicho doctor
	[[ "$output" == *"FAIL  sweep"*"1 report waits for a sweep"* ]] || fail "$output"
	ok person $(shown 0)
	assert_needs ''
	run daicho doctor
	[[ "$output" == *"ok    sweep"* ]] || fail "$output"
}

@test "stranded: an open task after a cancelled one never becomes ready; edit --not-after or reopen resolves it" {
	daicho add first >/dev/null
	daicho add second --after 1 >/dev/null
	person daicho cancel 1 >/dev/null
	assert_needs stranded
	[ "$(needs '.[0].summary')" = "#2 second never becomes ready: it comes after #1, which is cancelled" ] ||
		fail "$(needs '.[0].summary')"
	[ "$(needs '.[0].resolve | join("|")')" = "daicho edit 2 --not-after 1|daicho reopen 1" ]
	ok person $(needs '.[0].resolve[0]')
	assert_needs ''
	[ "$(daicho ls --ready --json | jq -c '[.[].id]')" = "[2]" ]
}

@test "status shows ten items of a kind, --all every one; --json always every one" {
	daicho agent start w1 >/dev/null
	for i in $(seq 1 12); do
		daicho add "t$i" >/dev/null
		daicho claim "$i" --as w1 >/dev/null
		daicho block "$i" --reason "r$i" --as w1 >/dev/null
	done
	ok daicho status
	assert_line --index 0 "NEEDS YOU (12)"
	assert_line --index 21 "  ... and 2 more blocked (status --all)"
	ok daicho status --all
	assert_line --index 24 "    see: daicho show 12; resolve: daicho unblock 12 | daicho release 12 --force"
	ok daicho status --json
	[ "$(jq '.needs_you | length' <<<"$output")" = 12 ]
}

@test "status --help names every kind and the command that resolves it" {
	ok daicho status --help
	for kind in approval blocked message overdue-wait wait-needs-human failed rejected verify-error \
		max-hold stale-agent-holding unswept unlanded stranded tampered budget-stop \
		land-waiting land-paused; do
		assert_output --partial "$kind"
	done
	assert_output --partial "--all"
}
