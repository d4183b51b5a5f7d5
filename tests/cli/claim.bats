#!/usr/bin/env bats
# daicho claim: by id, --next, leases, touches, dependencies.

load helpers

T0=1800000000000 # a fixed clock (ms) for deterministic lease tests

@test "claim ID prints only the id and takes the task with a 30m lease" {
	export DAICHO_NOW_MS=$T0
	daicho add a >/dev/null
	ok daicho claim 1 --as w1
	assert_output 1
	ok daicho show --json 1
	jq -e --argjson t "$T0" '.state == "claimed" and .owner == "w1" and .attempts == 1 and
		.lease_expires_ms == $t + 1800000' <<<"$output" >/dev/null || fail "$output"
	[ "$(sql "SELECT kind FROM events WHERE task = 1 ORDER BY id DESC LIMIT 1")" = claim ]
}

@test "claim accepts #ID and TID; --json prints {\"id\": N}" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	ok daicho claim '#1' --as w1
	assert_output 1
	ok daicho claim T2 --as w1 --json
	[ "$(jq -r .id <<<"$output")" = 2 ]
}

@test "claim --lease sets the lease length" {
	export DAICHO_NOW_MS=$T0
	daicho add a >/dev/null
	daicho add b >/dev/null
	daicho add c >/dev/null
	ok daicho claim 1 --as w1 --lease 500ms
	[ "$(task_field 1 lease_expires_ms)" = $((T0 + 500)) ]
	ok daicho claim 2 --as w2 --lease 4h
	[ "$(task_field 2 lease_expires_ms)" = $((T0 + 4 * 3600 * 1000)) ]
	ok person daicho config max-lease 2d
	ok daicho claim --next --as w3 --lease 2d
	[ "$(task_field 3 lease_expires_ms)" = $((T0 + 2 * 86400 * 1000)) ]
}

@test "a lease past max-lease, or a hold past three of them, is refused: no claim outlives its worker for ever" {
	daicho add a >/dev/null
	register_agent w1
	snapshot_ledger
	# The red team's 'claim --lease 99999d', through each way in.
	refused 2 daicho claim 1 --as w1 --lease 99999d
	[ "$stderr" = "daicho: --lease 2399976h0m is longer than 4h0m (the ledger's 'max-lease'; a person may raise it: daicho config max-lease DUR)" ]
	refused 2 daicho claim --next --as w1 --lease 241m
	refused 2 daicho claim 1 --as w1 --max-hold 721m
	[[ "$stderr" == *"three times the ledger's 'max-lease'"* ]]
	refused 2 daicho run --lease 5h -- true
	assert_ledger_unchanged
	# The bound itself is allowed; a person may move it, and it holds then.
	ok daicho claim 1 --as w1 --lease 4h --max-hold 12h
	ok person daicho config max-lease 10m
	refused 2 daicho claim 1 --as w1
	[[ "$stderr" == *"the 'lease' setting"* ]] || [[ "$stderr" == *"--lease"* ]]
	ok person daicho config lease 5m
	ok daicho claim 1 --as w1
	ok person daicho config lease 1h
	refused 2 daicho claim 1 --as w1
	[[ "$stderr" == *"the 'lease' setting 1h0m is longer than 10m0s"* ]]
}

@test "claiming a task you already hold succeeds and changes nothing else" {
	daicho add a >/dev/null
	ok daicho claim 1 --as w1
	ok daicho claim 1 --as w1
	assert_output 1
	ok daicho claim '#1' --as w1
	assert_output 1
	[ "$(task_field 1 attempts)" = 1 ]
	[ "$(task_field 1 owner)" = w1 ]
	[ "$(sql "SELECT count(*) FROM events WHERE kind = 'claim'")" = 1 ]
}

@test "claiming your own task again renews its lease" {
	daicho add a >/dev/null
	DAICHO_NOW_MS=$T0 daicho claim 1 --as w1 --lease 10m >/dev/null
	DAICHO_NOW_MS=$((T0 + 60000)) ok daicho claim 1 --as w1 --lease 10m
	[ "$(task_field 1 lease_expires_ms)" = $((T0 + 60000 + 600000)) ]
}

@test "claim of a task held by another: exit 4 naming the holder, ledger unchanged" {
	export DAICHO_NOW_MS=$T0
	daicho add a >/dev/null
	daicho claim 1 --as holder-one >/dev/null
	register_agent w2
	snapshot_ledger
	refused 4 daicho claim 1 --as w2
	stderr_contains holder-one
	refused 4 daicho claim 1
	stderr_contains holder-one
	assert_ledger_unchanged
}

@test "claim --next takes the highest priority, then the oldest" {
	daicho add "p0 oldest" >/dev/null          # 1
	daicho add "p5" --priority 5 >/dev/null    # 2
	daicho add "p1" --priority 1 >/dev/null    # 3
	daicho add "p5 newer" --priority 5 >/dev/null # 4
	daicho add "p-1" --priority -1 >/dev/null  # 5
	daicho add "p0 newer" >/dev/null           # 6
	local got=()
	for i in 1 2 3 4 5 6; do
		capture daicho claim --next --as "w$i"
		assert_success
		got+=("$output")
	done
	[ "${got[*]}" = "2 4 3 1 6 5" ] || fail "claim order: ${got[*]}"
}

@test "claim --next --label only takes tasks with that label" {
	daicho add a --priority 9 >/dev/null
	daicho add b --label gpu >/dev/null
	daicho add c --label cpu --priority 3 >/dev/null
	ok daicho claim --next --label gpu --as w1
	assert_output 2
	refused 3 daicho claim --next --label gpu --as w1
	ok daicho claim --next --as w1
	assert_output 1
}

@test "claim --next with nothing ready: stdout empty, exit 3, stderr says why; ledger unchanged" {
	register_agent w1
	snapshot_ledger
	refused 3 daicho claim --next --as w1
	stderr_contains "nothing ready"
	daicho add a >/dev/null
	daicho add b --after 1 >/dev/null
	DAICHO_NOW_MS=$T0 daicho claim 1 --as w2 >/dev/null
	export DAICHO_NOW_MS=$T0
	snapshot_ledger
	refused 3 daicho claim --next --as w1
	stderr_contains "nothing ready"
	assert_ledger_unchanged
}

@test "a task whose touches overlap a live claim is skipped by --next and refused by claim ID" {
	export DAICHO_NOW_MS=$T0
	daicho add "wide" --touches 'src/**' --priority 1 >/dev/null      # 1
	daicho add "narrow" --touches 'src/main.c' --priority 9 >/dev/null # 2
	daicho add "other dir" --touches 'docs/*' >/dev/null              # 3
	daicho add "glob overlap" --touches 'src/*.[ch]' --priority 8 >/dev/null # 4
	daicho add "no touches" --priority -5 >/dev/null                  # 5
	ok daicho claim 1 --as w1
	register_agent w2
	ok daicho ls --ready --json
	[ "$(jq -c '[.[].id]' <<<"$output")" = "[3,5]" ]
	snapshot_ledger
	refused 4 daicho claim 2 --as w2
	stderr_contains "#1"
	refused 4 daicho claim 4 --as w2
	assert_ledger_unchanged
	ok daicho claim --next --as w2
	assert_output 3
	ok daicho claim --next --as w2
	assert_output 5
	refused 3 daicho claim --next --as w2
	# Once the wide claim is released the narrow task is claimable again.
	daicho release 1 --as w1
	ok daicho claim --next --as w2
	assert_output 2
}

# Issue 31: every path that gives a task back to a holder, against an
# overlapping live claim. mutants: TASK_LIVE_CLAIM_SQL without blocked
# (the narrow task is claimed while the wide one is blocked, and unblock
# makes two overlapping live claims); task_scope_conflict() not called
# from edit.
@test "a blocked task keeps its scope: nothing overlapping is claimed meanwhile, so unblock never makes two live claims overlap" {
	export DAICHO_NOW_MS=$T0
	daicho add "wide" --touches 'src/**' >/dev/null       # 1
	daicho add "narrow" --touches 'src/main.c' >/dev/null # 2
	ok daicho claim 1 --as w1
	ok daicho block 1 --as w1 --reason 'which API?'
	register_agent w2
	refused 4 daicho claim 2 --as w2
	stderr_contains "overlaps src/** held by w1 for #1"
	ok daicho ls --ready --json
	[ "$(jq -c '[.[].id]' <<<"$output")" = "[]" ] || fail "ready: $output"
	person daicho unblock 1 >/dev/null
	[ "$(task_field 1 state) $(task_field 1 owner)" = "claimed w1" ]
	refused 4 daicho claim 2 --as w2
	# Its holder gone, the blocked task's scope is free: unblock opens it.
	daicho block 1 --as w1 --reason 'again' >/dev/null
	daicho agent end w1 >/dev/null
	ok daicho claim 2 --as w2
	person daicho unblock 1 >/dev/null
	[ "$(task_field 1 state)" = open ]
	refused 4 daicho claim 1 --as w3
}

@test "no edit of a held task's scope reaches into another live claim; an expired claim retaken meets the same rule" {
	export DAICHO_NOW_MS=$T0
	daicho add "mine" --touches 'src/a.c' >/dev/null   # 1
	daicho add "theirs" --touches 'docs/**' >/dev/null # 2
	daicho add "later" --touches 'src/**' >/dev/null   # 3
	ok daicho claim 1 --as w1 --lease 1m
	ok daicho claim 2 --as w2
	snapshot_ledger
	run --separate-stderr person daicho edit 1 --touches 'docs/readme.md'
	[ "$status" -eq 4 ] || fail "edit into a live claim: $status $stderr"
	[[ "$stderr" == *"task #1 is held, and docs/readme.md would overlap docs/**, held by w2 for #2"* ]] || fail "$stderr"
	assert_ledger_unchanged
	# Elsewhere is fine.
	ok person daicho edit 1 --touches 'src/b.c'
	# w1's lease runs out; w3 claims an overlapping task; w1 cannot take its
	# own back over it.
	export DAICHO_NOW_MS=$((T0 + 2 * 60000))
	daicho ls --as w2 >/dev/null
	ok daicho claim 3 --as w3
	refused 4 daicho claim 1 --as w1
	stderr_contains "held by w3 for #3"
}

@test "overlap is checked between two claimed tasks' globs, both ways" {
	daicho add "narrow first" --touches 'lib/a.c' >/dev/null
	daicho add "wide second" --touches 'lib/*' >/dev/null
	daicho add "unrelated" --touches 'library/x' >/dev/null
	ok daicho claim 1 --as w1
	refused 4 daicho claim 2 --as w2
	ok daicho claim 3 --as w2
}

@test "a lease that runs out (real time) lets another agent claim; events show lease-expired" {
	daicho add a >/dev/null
	ok daicho claim 1 --as w1 --lease 1s
	refused 4 daicho claim 1 --as w2
	sleep 1.2
	ok daicho claim 1 --as w2
	assert_output 1
	[ "$(task_field 1 owner)" = w2 ]
	[ "$(task_field 1 attempts)" = 2 ]
	ok daicho log 1 --json
	[ "$(jq -r '[.[].kind] | join(",")' <<<"$output")" = "add,claim,lease-expired,claim" ]
	ok daicho events --json
	jq -e '[.[] | select(.kind == "lease-expired" and .task == 1)] | length == 1' <<<"$output" >/dev/null
}

@test "an expired claim is taken by claim --next too" {
	daicho add a --priority 5 >/dev/null
	daicho add b >/dev/null
	DAICHO_NOW_MS=$T0 daicho claim 1 --as w1 --lease 10s >/dev/null
	DAICHO_NOW_MS=$((T0 + 11000)) ok daicho claim --next --as w2
	assert_output 1
	ok daicho events --json
	[ "$(jq -r '[.[] | select(.task == 1) | .kind] | join(",")' <<<"$output")" = "add,claim,lease-expired,claim" ]
	[ "$(jq -r '.[] | select(.kind == "lease-expired") | .detail.owner' <<<"$output")" = w1 ]
}

@test "any command by the holder renews its unexpired leases" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	DAICHO_NOW_MS=$T0 daicho claim 1 --as w1 --lease 10s >/dev/null
	# 8 s later the holder runs an unrelated read-only command.
	DAICHO_NOW_MS=$((T0 + 8000)) ok daicho ls --as w1
	[ "$(task_field 1 lease_expires_ms)" = $((T0 + 18000)) ]
	# At 15 s the original lease would have run out; it has not.
	DAICHO_NOW_MS=$((T0 + 15000)) refused 4 daicho claim 1 --as w2
	stderr_contains w1
	# DAICHO_AGENT is the same identity.
	DAICHO_AGENT=w1 DAICHO_NOW_MS=$((T0 + 16000)) ok daicho show 2
	[ "$(task_field 1 lease_expires_ms)" = $((T0 + 26000)) ]
	DAICHO_NOW_MS=$((T0 + 27000)) ok daicho claim 1 --as w2
	[ "$(task_field 1 owner)" = w2 ]
}

@test "a command by another agent does not renew the holder's lease" {
	daicho add a >/dev/null
	DAICHO_NOW_MS=$T0 daicho claim 1 --as w1 --lease 10s >/dev/null
	DAICHO_NOW_MS=$((T0 + 8000)) ok daicho ls --as w2
	DAICHO_NOW_MS=$((T0 + 8000)) ok daicho ls
	[ "$(task_field 1 lease_expires_ms)" = $((T0 + 10000)) ]
}

@test "an expired lease is not revived by the old holder's later commands" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	DAICHO_NOW_MS=$T0 daicho claim 1 --as w1 --lease 10s >/dev/null
	DAICHO_NOW_MS=$((T0 + 15000)) ok daicho show 2 --as w1
	DAICHO_NOW_MS=$((T0 + 16000)) ok daicho claim 1 --as w2
	assert_output 1
}

@test "an expired claim whose attempts are used up is not claimable" {
	daicho add a --max-attempts 1 >/dev/null
	DAICHO_NOW_MS=$T0 daicho claim 1 --as w1 --lease 1s >/dev/null
	export DAICHO_NOW_MS=$((T0 + 5000))
	ok daicho ls --ready --json
	[ "$(jq length <<<"$output")" = 0 ]
	refused 3 daicho claim --next --as w2
	refused 4 daicho claim 1 --as w2
	[ "$(task_field 1 owner)" != w2 ]
}

# --- the maximum hold: claims nobody works on ---------------------------------

@test "the orphaned-claim reproduction: a holder that only runs ls --mine loses its claim to the max hold" {
	# A subagent crashed while its parent session keeps calling tools:
	# they share one identity, so generic heartbeats keep coming.
	daicho add one >/dev/null
	daicho add two >/dev/null
	ok daicho --as w claim 1 --lease 2s
	for _ in 1 2 3 4 5 6 7 8; do
		daicho --as w ls --mine >/dev/null
		sleep 1
	done
	ok daicho sweep
	assert_output --partial '1 lease expired (1 past the max hold)'
	ok daicho --as other claim 1
	assert_output 1
	ok daicho events --json
	run jq -c '[.[] | select(.kind == "lease-expired") | .detail | {owner, reason, max_hold_ms}]' <<<"$output"
	assert_output '[{"owner":"w","reason":"max hold: no command of the holder named the task","max_hold_ms":6000}]'
}

@test "max hold: heartbeats renew a lease only up to the max hold past the last command naming the task" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	DAICHO_NOW_MS=$T0 ok daicho claim 1 --as w1 --lease 10s --max-hold 25s
	[ "$(task_field 1 max_hold_ms)" = 25000 ]
	[ "$(task_field 1 claim_named_ms)" = $T0 ]
	# Generic commands renew the lease, but never past T0 + 25 s.
	DAICHO_NOW_MS=$((T0 + 8000)) ok daicho ls --as w1
	[ "$(task_field 1 lease_expires_ms)" = $((T0 + 18000)) ]
	DAICHO_NOW_MS=$((T0 + 17000)) ok daicho ls --as w1
	[ "$(task_field 1 lease_expires_ms)" = $((T0 + 25000)) ]
	DAICHO_NOW_MS=$((T0 + 24000)) ok daicho show 2 --as w1
	[ "$(task_field 1 lease_expires_ms)" = $((T0 + 25000)) ]
	DAICHO_NOW_MS=$((T0 + 26000)) ok daicho claim 1 --as w2
	assert_output 1
}

@test "max hold: a command naming the task (prompt, save, show, claim ID) keeps the claim alive" {
	daicho add a >/dev/null
	DAICHO_NOW_MS=$T0 ok daicho claim 1 --as w1 --lease 10s --max-hold 20s
	n=0
	for cmd in "prompt 1" "show 1" "log 1" "claim 1"; do
		n=$((n + 8000))
		DAICHO_NOW_MS=$((T0 + n)) ok daicho $cmd --as w1
		[ "$(task_field 1 claim_named_ms)" = $((T0 + n)) ] || fail "$cmd did not renew the hold"
		[ "$(task_field 1 lease_expires_ms)" -ge $((T0 + n + 10000)) ] || fail "$cmd did not renew the lease"
	done
	printf 'r' | DAICHO_NOW_MS=$((T0 + 40000)) daicho save 1 --as w1
	[ "$(task_field 1 claim_named_ms)" = $((T0 + 40000)) ]
	# 40 s in: the claim lives on, held by w1.
	DAICHO_NOW_MS=$((T0 + 45000)) refused 4 daicho claim 1 --as w2
	stderr_contains w1
	# Another agent naming the task renews nothing.
	DAICHO_NOW_MS=$((T0 + 46000)) ok daicho show 1 --as w2
	[ "$(task_field 1 claim_named_ms)" = $((T0 + 40000)) ]
}

@test "max hold: the default is three leases; 'daicho config max-hold' changes it; --max-hold wins" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	daicho add c >/dev/null
	ok daicho claim 1 --as w1 --lease 10m
	[ "$(task_field 1 max_hold_ms)" = $((30 * 60 * 1000)) ]
	ok person daicho config max-hold 2h
	ok daicho claim 2 --as w1 --lease 10m
	[ "$(task_field 2 max_hold_ms)" = $((2 * 3600 * 1000)) ]
	ok daicho claim 3 --as w1 --max-hold 45m
	[ "$(task_field 3 max_hold_ms)" = $((45 * 60 * 1000)) ]
}

@test "max hold: a lease longer than the hold ends with the hold at the sweep, with an event that says so" {
	daicho add a >/dev/null
	DAICHO_NOW_MS=$T0 ok daicho claim 1 --as w1 --lease 1h --max-hold 10m
	DAICHO_NOW_MS=$((T0 + 9 * 60000)) ok daicho sweep
	[ "$(task_field 1 state)" = claimed ]
	DAICHO_NOW_MS=$((T0 + 11 * 60000)) ok daicho sweep
	assert_output --partial '1 lease expired (1 past the max hold)'
	[ "$(task_field 1 state)" = open ]
	ok daicho events --json
	run jq -c '[.[] | select(.kind == "lease-expired") | .detail | {expired_ms, reason}]' <<<"$output"
	assert_output '[{"expired_ms":'$((T0 + 600000))',"reason":"max hold: no command of the holder named the task"}]'
}

@test "bad --max-hold: exit 2, ledger unchanged" {
	daicho add a >/dev/null
	register_agent w1
	snapshot_ledger
	for d in 10x 0s -5m 5 ''; do
		refused 2 daicho claim 1 --as w1 --max-hold "$d"
	done
	assert_ledger_unchanged
}

@test "bad --lease: exit 2, ledger unchanged" {
	daicho add a >/dev/null
	register_agent w1
	snapshot_ledger
	for d in 10x 0s -5m 5 m 1.5h ''; do
		refused 2 daicho claim 1 --as w1 --lease "$d"
		refused 2 daicho claim --next --as w1 --lease "$d"
	done
	refused 2 daicho claim 1 --as w1 --lease
	assert_ledger_unchanged
}

@test "claim with both ID and --next, neither, or junk: exit 2" {
	daicho add a >/dev/null
	register_agent w1
	snapshot_ledger
	refused 2 daicho claim 1 --next --as w1
	refused 2 daicho claim --next 1 --as w1
	refused 2 daicho claim --as w1
	refused 2 daicho claim abc --as w1
	refused 2 daicho claim 1 2 --as w1
	refused 2 daicho claim 1 --bogus --as w1
	refused 2 daicho claim 1 --label x --as w1
	assert_ledger_unchanged
}

@test "claim of an unknown id: exit 3, ledger unchanged" {
	register_agent w1
	snapshot_ledger
	refused 3 daicho claim 42 --as w1
	stderr_contains 42
	assert_ledger_unchanged
}

@test "claim of a task that is not open (reported, blocked, cancelled): exit 4" {
	export DAICHO_NOW_MS=$T0
	daicho add a >/dev/null
	daicho add b >/dev/null
	daicho add c >/dev/null
	daicho claim 1 --as w1 >/dev/null
	daicho report 1 --as w1
	daicho claim 2 --as w1 >/dev/null
	daicho block 2 --as w1 --reason "need a token"
	person daicho cancel 3
	register_agent w2
	snapshot_ledger
	refused 4 daicho claim 1 --as w2
	refused 4 daicho claim 2 --as w2
	refused 4 daicho claim 3 --as w2
	refused 4 daicho claim 1 --as w1
	refused 4 daicho claim 3 --as w1
	refused 3 daicho claim --next --as w2
	assert_ledger_unchanged
}

@test "a task after a reported (not verified) task is still not ready" {
	export DAICHO_NOW_MS=$T0
	daicho add first >/dev/null
	daicho add second --after 1 --priority 9 >/dev/null
	refused 3 daicho claim --next --as w0 --label nothing
	ok daicho claim --next --as w1
	assert_output 1
	daicho report 1 --as w1
	[ "$(task_field 1 state)" = reported ]
	[ "$(task_field 2 unmet_after)" = 1 ]
	ok daicho ls --ready --json
	[ "$(jq length <<<"$output")" = 0 ]
	register_agent w2
	snapshot_ledger
	refused 3 daicho claim --next --as w2
	refused 4 daicho claim 2 --as w2
	assert_ledger_unchanged
}

@test "a task after a cancelled task never becomes ready" {
	daicho add first >/dev/null
	daicho add second --after 1 >/dev/null
	person daicho cancel 1
	ok daicho ls --ready --json
	[ "$(jq length <<<"$output")" = 0 ]
	refused 3 daicho claim --next --as w1
}

@test "the human is a claimer too when no identity is given" {
	daicho add a >/dev/null
	ok daicho claim --next
	assert_output 1
	[ "$(task_field 1 owner)" = "$(id -un)" ]
	ok daicho ls --mine --json
	[ "$(jq -c '[.[].id]' <<<"$output")" = "[1]" ]
}

@test "the human's name comes from the user database, not from the environment" {
	daicho add a >/dev/null
	# The login name is the user id's entry in /etc/passwd: \$USER and
	# \$LOGNAME neither rename nor unname the human.
	USER=someone-else LOGNAME=someone-else ok daicho claim 1
	[ "$(task_field 1 owner)" = "$(id -un)" ]
	env -u USER -u LOGNAME "$(command -v daicho)" release 1
	[ "$(task_field 1 state)" = open ]
}

@test "agent sessions: CLAUDE_CODE_SESSION_ID binds an agent named claude-<8 chars>" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	CLAUDE_CODE_SESSION_ID=0123456789abcdef-session ok daicho claim 1
	owner="$(task_field 1 owner)"
	[[ "$owner" =~ ^claude-.{8}$ ]] || fail "owner is '$owner'"
	# The same session is the same agent: it holds the task.
	CLAUDE_CODE_SESSION_ID=0123456789abcdef-session ok daicho claim 1
	CLAUDE_CODE_SESSION_ID=0123456789abcdef-session ok daicho ls --mine --json
	[ "$(jq -c '[.[].id]' <<<"$output")" = "[1]" ]
	# Another session is another agent.
	CLAUDE_CODE_SESSION_ID=other-session-id-xyz refused 4 daicho claim 1
	stderr_contains "$owner"
	# DAICHO_AGENT and --as come first.
	CLAUDE_CODE_SESSION_ID=0123456789abcdef-session DAICHO_AGENT=w9 ok daicho claim 2
	[ "$(task_field 2 owner)" = w9 ]
}

@test "claim --next looks past more than a page of tasks it may not take (their paths are another's)" {
	local i
	daicho add first --touches 'x/**' >/dev/null
	for ((i = 2; i <= 70; i++)); do
		printf '{"title":"busy %d","touches":["x/**"]}\n' "$i"
	done >"$TEST_ROOT/batch.jsonl"
	printf '{"title":"free"}\n' >>"$TEST_ROOT/batch.jsonl"
	daicho add --batch "$TEST_ROOT/batch.jsonl" >/dev/null
	[ "$(daicho --as w1 claim --next)" = 1 ]
	# Tasks 2..70 touch what w1 holds: the first free one is 71.
	run daicho --as w2 claim --next
	[ "$status" -eq 0 ] && [ "$output" = 71 ] || fail "exit $status: $output"
	# And with nothing free left, nothing is ready, though 69 are open.
	run daicho --as w3 claim --next
	[ "$status" -eq 3 ] || fail "exit $status: $output"
}
