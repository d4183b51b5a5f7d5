#!/usr/bin/env bats
# daicho release, block, cancel and report.

load helpers

T0=1800000000000

setup() {
	common_setup
	# A fixed clock: a refused command by a holder heart-beats and renews its
	# leases, which with a fixed clock rewrites the same values.
	export DAICHO_NOW_MS=$T0
	daicho add "task one" >/dev/null # 1
	daicho add "task two" >/dev/null # 2
	register_agent w1 w2
}

# --- release -----------------------------------------------------------------

@test "release by the holder: open again, no owner, attempt refunded, prints nothing" {
	daicho claim 1 --as w1 >/dev/null
	[ "$(task_field 1 attempts)" = 1 ]
	ok daicho release 1 --as w1
	assert_output ""
	ok daicho show --json 1
	jq -e '.state == "open" and .owner == null and .lease_expires_ms == null and .attempts == 0' \
		<<<"$output" >/dev/null || fail "$output"
	[ "$(sql "SELECT kind FROM events WHERE task = 1 ORDER BY id DESC LIMIT 1")" = release ]
	# and it is claimable again, by anyone
	ok daicho claim --next --as w2
	assert_output 1
}

@test "releasing repeatedly never uses up attempts" {
	daicho add limited --max-attempts 1 >/dev/null
	for _ in 1 2 3; do
		ok daicho claim 3 --as w1
		ok daicho release 3 --as w1
	done
	[ "$(task_field 3 state)" = open ]
	[ "$(task_field 3 attempts)" = 0 ]
	ok daicho claim 3 --as w2
}

@test "release by a non-holder: exit 4 naming the holder, ledger unchanged" {
	daicho claim 1 --as w1 >/dev/null
	snapshot_ledger
	refused 4 daicho release 1 --as w2
	stderr_contains w1
	refused 4 daicho release 1
	assert_ledger_unchanged
}

@test "release of a task that is not claimed or blocked: exit 4; unknown 3; bad id 2" {
	daicho claim 2 --as w1 >/dev/null
	daicho report 2 --as w1
	snapshot_ledger
	refused 4 daicho release 1 --as w1
	refused 4 daicho release 2 --as w1
	refused 3 daicho release 99 --as w1
	refused 2 daicho release abc --as w1
	refused 2 daicho release --as w1
	refused 2 daicho release 1 --bogus --as w1
	assert_ledger_unchanged
}

# --- block -------------------------------------------------------------------

@test "block --reason moves a claimed task to blocked, keeping its owner" {
	daicho claim 1 --as w1 >/dev/null
	ok daicho block 1 --reason "needs the API key" --as w1
	assert_output ""
	ok daicho show --json 1
	jq -e '.state == "blocked" and .owner == "w1" and .block_reason == "needs the API key"' \
		<<<"$output" >/dev/null || fail "$output"
	ok daicho log 1 --json
	[ "$(jq -r '.[-1].kind' <<<"$output")" = block ]
	[ "$(jq -r '.[-1].detail.reason' <<<"$output")" = "needs the API key" ]
	# a blocked task is not claimable, not even by --next
	refused 4 daicho claim 1 --as w2
	ok daicho claim --next --as w2
	assert_output 2
	# the owner releases it: open again
	ok daicho release 1 --as w1
	[ "$(task_field 1 state)" = open ]
	[ "$(task_field 1 block_reason)" = null ]
}

@test "block without a reason: exit 2, ledger unchanged" {
	daicho claim 1 --as w1 >/dev/null
	snapshot_ledger
	refused 2 daicho block 1 --as w1
	stderr_contains "reason"
	refused 2 daicho block 1 --as w1 --reason
	refused 2 daicho block 1 --as w1 --reason ''
	refused 2 daicho block --reason x --as w1
	assert_ledger_unchanged
}

@test "block by a non-holder or of an open task: exit 4, ledger unchanged" {
	daicho claim 1 --as w1 >/dev/null
	snapshot_ledger
	refused 4 daicho block 1 --reason x --as w2
	stderr_contains w1
	refused 4 daicho block 2 --reason x --as w1
	refused 3 daicho block 99 --reason x --as w1
	assert_ledger_unchanged
}

# --- cancel ------------------------------------------------------------------

@test "cancel an open task: cancelled, prints nothing, never claimed again" {
	ok person daicho cancel 1 --reason "not needed"
	assert_output ""
	[ "$(task_field 1 state)" = cancelled ]
	ok daicho log 1 --json
	[ "$(jq -r '.[-1].kind' <<<"$output")" = cancel ]
	[ "$(jq -r '.[-1].detail.reason' <<<"$output")" = "not needed" ]
	refused 4 daicho claim 1 --as w1
	ok daicho claim --next --as w1
	assert_output 2
}

@test "cancel a claimed task frees the paths it touched" {
	daicho add wide --touches 'src/**' >/dev/null   # 3
	daicho add narrow --touches 'src/a.c' >/dev/null # 4
	daicho claim 3 --as w1 >/dev/null
	refused 4 daicho claim 4 --as w2
	ok person daicho cancel 3
	[ "$(task_field 3 state)" = cancelled ]
	ok daicho claim 4 --as w2
	# the former holder can no longer act on it
	refused 4 daicho report 3 --as w1
}

@test "cancel a blocked or reported task" {
	daicho claim 1 --as w1 >/dev/null
	daicho block 1 --reason r --as w1
	ok person daicho cancel 1
	[ "$(task_field 1 state)" = cancelled ]
	daicho claim 2 --as w1 >/dev/null
	daicho report 2 --as w1
	ok person daicho cancel 2
	[ "$(task_field 2 state)" = cancelled ]
}

@test "cancel a task another agent holds: only its holder, the agent that added it or a human may" {
	daicho add "by w0" --as w0 >/dev/null # 3
	daicho add "by w0 too" --as w0 >/dev/null # 4
	daicho add "by w0, open" --as w0 >/dev/null # 5
	daicho claim 3 --as w1 >/dev/null
	daicho claim 4 --as w1 >/dev/null
	daicho claim 1 --as w1 >/dev/null
	daicho claim 2 --as w1 >/dev/null
	# Another agent: refused while the task is claimed, blocked or reported.
	snapshot_ledger
	refused 4 daicho cancel 3 --as w2
	stderr_contains "cannot cancel task #3: it is held by w1, not you (only its holder, w0 who added it, or a human may cancel it)"
	daicho block 1 --reason r --as w1
	daicho report 2 --as w1
	snapshot_ledger
	refused 4 daicho cancel 1 --as w2
	stderr_contains "held by w1"
	refused 4 daicho cancel 2 --as w2
	stderr_contains "held by w1"
	assert_ledger_unchanged
	# The agent that added it may.
	ok daicho cancel 3 --as w0
	[ "$(task_field 3 state)" = cancelled ]
	# The holder may.
	ok daicho cancel 4 --as w1
	[ "$(task_field 4 state)" = cancelled ]
	# A human may, whoever added it.
	ok person daicho cancel 1
	ok person daicho cancel 2
	[ "$(task_field 1 state)" = cancelled ]
	[ "$(task_field 2 state)" = cancelled ]
	[ "$(sql "SELECT a.kind FROM events e JOIN agents a ON a.id = e.actor
		WHERE e.kind = 'cancel' AND e.task IN (1, 2)")" = "human
human" ]
	# Anyone may cancel an open task.
	ok daicho cancel 5 --as w2
	ok daicho cancel --help
	assert_output --partial "only its holder"
}

@test "cancel a cancelled or verified task: exit 4, ledger unchanged" {
	daicho add three >/dev/null
	person daicho cancel 1
	# Set the states directly, as the sweep would.
	sql "UPDATE tasks SET state = 'verified' WHERE id = 2"
	snapshot_ledger
	refused 4 person daicho cancel 1
	stderr_contains cancelled
	refused 4 person daicho cancel 2
	stderr_contains verified
	refused 4 daicho cancel 2 --as w1
	assert_ledger_unchanged
}

@test "a failed task is given up (cancelled) only by a human or the agent that added it" {
	daicho add three >/dev/null
	daicho add --as mgr four >/dev/null
	sql "UPDATE tasks SET state = 'failed' WHERE id IN (3, 4)"
	snapshot_ledger
	refused 4 daicho cancel 3 --as w1
	assert_equal "$stderr" "daicho: cannot cancel task #3: it failed, and only $(id -un) who added it, or a human may give it up (or reopen it: 'daicho reopen 3')"
	assert_ledger_unchanged
	ok person daicho cancel 3 --reason "not worth it"
	[ "$(task_field 3 state)" = cancelled ]
	ok daicho cancel 4 --as mgr
	[ "$(task_field 4 state)" = cancelled ]
	ok daicho events --json
	[ "$(jq -c '[.[] | select(.kind == "cancel") | .detail.from]' <<<"$output")" = '["failed","failed"]' ]
}

@test "cancel: unknown id 3, bad id 2, unknown flag 2" {
	snapshot_ledger
	refused 3 person daicho cancel 99
	refused 2 person daicho cancel x
	refused 2 person daicho cancel
	refused 2 person daicho cancel 1 --bogus
	refused 2 person daicho cancel 1 --reason
	assert_ledger_unchanged
}

# --- report ------------------------------------------------------------------

@test "report by the holder: reported, prints nothing, lease gone, owner kept" {
	daicho claim 1 --as w1 >/dev/null
	ok daicho report 1 --as w1 --note "all tests pass"
	assert_output ""
	ok daicho show --json 1
	jq -e '.state == "reported" and .owner == "w1" and .lease_expires_ms == null and
		.note == "all tests pass" and .commit == null' <<<"$output" >/dev/null || fail "$output"
	ok daicho log 1 --json
	[ "$(jq -r '.[-1].kind' <<<"$output")" = report ]
	[ "$(jq -r '.[-1].actor' <<<"$output")" = w1 ]
	[ "$(jq -r '.[-1].detail.note' <<<"$output")" = "all tests pass" ]
}

@test "report by a non-holder: exit 4, ledger unchanged" {
	daicho claim 1 --as w1 >/dev/null
	snapshot_ledger
	refused 4 daicho report 1 --as w2
	stderr_contains w1
	refused 4 daicho report 1
	refused 4 daicho report 2 --as w1
	assert_ledger_unchanged
	[ "$(task_field 1 state)" = claimed ]
}

@test "report twice, or after release: exit 4, ledger unchanged" {
	daicho claim 1 --as w1 >/dev/null
	daicho report 1 --as w1
	daicho claim 2 --as w1 >/dev/null
	daicho release 2 --as w1
	snapshot_ledger
	refused 4 daicho report 1 --as w1
	refused 4 daicho report 2 --as w1
	assert_ledger_unchanged
}

@test "report: unknown id 3, bad id 2, missing values 2" {
	daicho claim 1 --as w1 >/dev/null
	snapshot_ledger
	refused 3 daicho report 99 --as w1
	refused 2 daicho report one --as w1
	refused 2 daicho report --as w1
	refused 2 daicho report 1 --as w1 --note
	refused 2 daicho report 1 --as w1 --commit
	refused 2 daicho report 1 --as w1 --bogus
	assert_ledger_unchanged
}

@test "report --commit stores the full 40-character hash of a real commit" {
	new_git_repo "$TEST_ROOT/repo"
	echo change >>"$TEST_ROOT/repo/README"
	git -C "$TEST_ROOT/repo" commit -q -am "the work"
	full="$(git -C "$TEST_ROOT/repo" rev-parse HEAD)"
	short="$(git -C "$TEST_ROOT/repo" rev-parse --short HEAD)"
	first="$(git -C "$TEST_ROOT/repo" rev-parse HEAD~1)"
	daicho claim 1 --as w1 >/dev/null
	daicho claim 2 --as w1 >/dev/null
	cd "$TEST_ROOT/repo"
	ok daicho report 1 --as w1 --commit "$short"
	assert_output ""
	[ "$(task_field 1 commit)" = "$full" ]
	[[ "$full" =~ ^[0-9a-f]{40}$ ]]
	ok daicho report 2 --as w1 --commit HEAD~1
	[ "$(task_field 2 commit)" = "$first" ]
	ok daicho log 1 --json
	[ "$(jq -r '.[-1].detail.commit' <<<"$output")" = "$full" ]
}

@test "report --commit works from elsewhere with -C DIR" {
	new_git_repo "$TEST_ROOT/repo"
	full="$(git -C "$TEST_ROOT/repo" rev-parse HEAD)"
	daicho claim 1 --as w1 >/dev/null
	ok daicho -C "$TEST_ROOT/repo" report 1 --as w1 --commit HEAD
	[ "$(task_field 1 commit)" = "$full" ]
}

@test "report --commit of a revision that does not exist: exit 3, ledger unchanged" {
	new_git_repo "$TEST_ROOT/repo"
	daicho claim 1 --as w1 >/dev/null
	cd "$TEST_ROOT/repo"
	snapshot_ledger
	refused 3 daicho report 1 --as w1 --commit nosuchrev
	stderr_contains nosuchrev
	refused 3 daicho report 1 --as w1 --commit 0123456789abcdef0123456789abcdef01234567
	refused 3 daicho report 1 --as w1 --commit 'HEAD:README'
	refused 3 daicho report 1 --as w1 --commit 'HEAD^{tree}'
	assert_ledger_unchanged
	[ "$(task_field 1 state)" = claimed ]
}

@test "report --commit outside a git repository is refused, ledger unchanged" {
	daicho claim 1 --as w1 >/dev/null
	snapshot_ledger
	capture daicho report 1 --as w1 --commit HEAD
	[ "$status" -ne 0 ]
	[ -z "$output" ]
	assert_one_error_line
	assert_ledger_unchanged
}

@test "a revision that looks like an option is not passed to git as one" {
	new_git_repo "$TEST_ROOT/repo"
	daicho claim 1 --as w1 >/dev/null
	cd "$TEST_ROOT/repo"
	snapshot_ledger
	capture daicho report 1 --as w1 --commit=--output=pwned
	[ "$status" -ne 0 ]
	capture daicho report 1 --as w1 --commit '--output=pwned'
	[ "$status" -ne 0 ]
	[ ! -e "$TEST_ROOT/repo/pwned" ]
	assert_ledger_unchanged
}
