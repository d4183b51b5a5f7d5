#!/usr/bin/env bats
# daicho sweep: one pass verifies reported tasks, sends rejections to the
# living owner or back to open, expires dead leases, prunes leftover
# verification worktrees; --json; --every and signals; bad input.

load verify_helpers

teardown() {
	# End a looping sweep a failed test left running (started by this test,
	# ended by its pid).
	if [ -n "${SWEEP_PID:-}" ] && kill -0 "$SWEEP_PID" 2>/dev/null; then
		kill -KILL "$SWEEP_PID" 2>/dev/null || true
	fi
	if [ -n "${WORKER_PID:-}" ] && kill -0 "$WORKER_PID" 2>/dev/null; then
		kill -KILL "$WORKER_PID" 2>/dev/null || true
	fi
}

@test "one pass verifies every reported task, gives each exactly one verdict, and leaves other tasks alone" {
	for i in 1 2 3 4 5; do daicho add "t$i" --done-when "file:f$i.txt" >/dev/null; done
	daicho add untouched-open --done-when file:f6.txt >/dev/null
	daicho add untouched-claimed --done-when file:f7.txt >/dev/null
	echo 1 >f1.txt # committed with each report (claim_report)
	echo 3 >f3.txt
	echo 5 >f5.txt
	for i in 1 2 3 4 5; do claim_report $i "w$i"; done
	[ "$(daicho claim 7 --as w7)" = 7 ]
	SWEEP_OPTS="-j 3" sweep_says 3 2 0 0 0
	run daicho ls --json
	run jq -r '.[] | "\(.id) \(.state) \(.owner // "-") \(.attempts)"' <<<"$output"
	assert_output $'1 verified w1 1\n2 claimed w2 2\n3 verified w3 1\n4 claimed w4 2\n5 verified w5 1\n6 open - 0\n7 claimed w7 1'
	run daicho events --json
	run jq -c '[.[] | select(.kind == "verified" or .kind == "rejected") | [.task, .kind]] | sort' <<<"$output"
	assert_output '[[1,"verified"],[2,"rejected"],[3,"verified"],[4,"rejected"],[5,"verified"]]'
	# A second pass finds nothing to do.
	sweep_says 0 0 0 0 0
}

@test "a rejection goes back to the living owner: claimed by the same owner, lease renewed, a new attempt" {
	export DAICHO_NOW_MS=$T0
	daicho add t --done-when file:out.txt >/dev/null
	claim_report 1 w1
	DAICHO_NOW_MS=$((T0 + 500)) SWEEP_OPTS="--stale-after 1s" sweep_says 0 1 0 0 0
	run tf 1 '[.state, .owner, .attempts, .lease_expires_ms] | @json'
	assert_output "[\"claimed\",\"w1\",2,$((T0 + 500 + 30 * 60 * 1000))]"
	run last_event 1
	assert_output '{"kind":"rejected","actor":"root","detail":{"commit":"'"$(git rev-parse work/1)"'","summary":"file:out.txt: out.txt is missing","to":"owner","verdict":1}}'
}

@test "a rejection goes back to open when the owner is stale; another worker may take it" {
	export DAICHO_NOW_MS=$T0
	daicho add t --done-when file:out.txt >/dev/null
	claim_report 1 w1
	DAICHO_NOW_MS=$((T0 + 2000)) SWEEP_OPTS="--stale-after 1s" sweep_says 0 1 0 0 0 1
	# attempts counts attempts begun: the next claim begins the second
	run tf 1 '[.state, .owner, .attempts, .lease_expires_ms] | @json'
	assert_output '["open",null,1,null]'
	run last_event 1
	assert_output '{"kind":"rejected","actor":"root","detail":{"commit":"'"$(git rev-parse work/1)"'","summary":"file:out.txt: out.txt is missing","to":"open","verdict":1}}'
	export DAICHO_NOW_MS=$((T0 + 3000))
	ok daicho claim --next --as w2
	assert_output 1
	assert_task 1 claimed w2 2
}

@test "worker crash: the lease runs out, one sweep pass reopens the task, another worker finishes it" {
	daicho add t --done-when file:done.txt >/dev/null
	# The worker claims with a 1s lease, then hangs and is killed.
	(
		exec 3>&-
		DAICHO_NOW_MS=$T0 daicho claim 1 --as w1 --lease 1s >"$TEST_ROOT/claimed"
		exec sleep 30
	) &
	WORKER_PID=$!
	for _ in $(seq 50); do [ -s "$TEST_ROOT/claimed" ] && break; sleep 0.1; done
	[ "$(cat "$TEST_ROOT/claimed")" = 1 ] || fail "the worker did not claim"
	kill -KILL "$WORKER_PID"
	wait "$WORKER_PID" || true
	assert_task 1 claimed w1 1

	# Before the lease ends, the sweep leaves it alone.
	DAICHO_NOW_MS=$((T0 + 500)) sweep_says 0 0 0 0 0
	assert_task 1 claimed w1 1

	# After: one pass reopens it.
	DAICHO_NOW_MS=$((T0 + 2000)) sweep_says 0 0 0 1 0
	assert_task 1 open - 1
	run last_event 1
	assert_output "{\"kind\":\"lease-expired\",\"actor\":\"root\",\"detail\":{\"expired_ms\":$((T0 + 1000)),\"owner\":\"w1\",\"reason\":\"lease ran out: the holder stopped heart-beating\",\"to\":\"open\"}}"

	export DAICHO_NOW_MS=$((T0 + 3000))
	ok daicho claim --next --as w2
	assert_output 1
	assert_task 1 claimed w2 2
	echo done >done.txt
	daicho report 1 --as w2 --commit "$(commit_work 1)"
	sweep_says 1 0 0 0 0
	assert_task 1 verified w2 2
	[ "$(event_kinds 1)" = "add claim lease-expired claim report verified" ]
}

@test "an expired lease whose attempts are used up fails the task" {
	daicho add t --max-attempts 1 >/dev/null
	DAICHO_NOW_MS=$T0 daicho claim 1 --as w1 --lease 1s >/dev/null
	DAICHO_NOW_MS=$((T0 + 2000)) sweep_says 0 0 1 1 0
	run tf 1 '"\(.state) \(.attempts)"'
	assert_output "failed 1"
	[ "$(event_kinds 1)" = "add claim lease-expired fail" ]
}

@test "sweep prunes leftover verification worktrees (no live claim) at the start of the pass" {
	mkdir -p "$VERIFY_DIR/5-deadbeef"
	echo junk >"$VERIFY_DIR/5-deadbeef/file"
	sweep_says 0 0 0 0 1
	[ ! -e "$VERIFY_DIR/5-deadbeef" ]
	# A leftover that git still has registered as a worktree is removed and
	# unregistered too.
	git worktree add -q --detach "$VERIFY_DIR/7-cafebabe" HEAD
	mkdir -p "$VERIFY_DIR/8-feedface"
	sweep_says 0 0 0 0 2
	assert_no_worktrees
	run git worktree list --porcelain
	[ "$(grep -c '^worktree ' <<<"$output")" = 1 ] || fail "$output"
	sweep_says 0 0 0 0 0
}

@test "a sweep killed mid-verification: its checkout is left, then mended and used again, and the task verified by the next pass (its claim's taker is gone)" {
	local mark='sleep 31.7182'
	person daicho add --no-baseline t --done-when "cmd:test -e '$TEST_ROOT/go' || $mark" >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	work_branch
	echo work >work.txt
	git add work.txt
	git commit -q -m work
	daicho report 1 --as w1 --commit HEAD
	DAICHO_NOW_MS=$T0 daicho sweep >"$TEST_ROOT/s1.out" 2>&1 3>&- &
	SWEEP_PID=$!
	for _ in $(seq 100); do pgrep -f "$mark" >/dev/null && break; sleep 0.1; done
	pgrep -f "$mark" >/dev/null || fail "the check never started"
	kill -KILL "$SWEEP_PID"
	wait "$SWEEP_PID" || true
	SWEEP_PID=
	# The check's own process group outlives a SIGKILLed sweep; end it (by pid).
	for pid in $(pgrep -f "$mark"); do kill -KILL "$pid" 2>/dev/null || true; done
	[ -n "$(ls -A "$VERIFY_DIR")" ] || fail "expected the crashed sweep's checkout to be left"
	# ... holding what its check left there, free to take.
	[ -d "$VERIFY_DIR/warm-0" ] || fail "no warm checkout: $(ls -A "$VERIFY_DIR")"
	touch "$VERIFY_DIR/warm-0/debris.txt"
	[ "$(tf 1 .state)" = reported ]

	# Its verification claim would last the check timeout (10m) and a
	# margin; but the process that took it is gone, on this host, so the
	# next pass takes the task at once (a live or another host's taker's
	# claim waits: verify.bats), and the checkout again, cleaned, and
	# verifies the task, exactly once.
	touch "$TEST_ROOT/go"
	DAICHO_NOW_MS=$((T0 + 60 * 1000)) sweep_says 1 0 0 0 0
	[ ! -e "$VERIFY_DIR/warm-0/debris.txt" ] || fail "the warm checkout kept what a check left"
	assert_task 1 verified w1 1
	assert_no_worktrees
	[ "$(event_kinds 1)" = "add claim report verified" ]
}

@test "sweep --json prints one object with verified, rejected, failed, expired, pruned, stale, waits and landing" {
	export DAICHO_NOW_MS=$T0
	person daicho add --no-baseline honest --done-when file:README >/dev/null
	person daicho add --no-baseline liar --max-attempts 1 --done-when file:nothing.txt >/dev/null
	person daicho add --no-baseline crashed >/dev/null
	claim_report 1 w1
	claim_report 2 w1
	daicho claim 3 --as w2 --lease 1s >/dev/null
	mkdir -p "$VERIFY_DIR/9-0badc0de"
	export DAICHO_NOW_MS=$((T0 + 2000))
	ok daicho sweep --json
	[ "${#lines[@]}" -eq 1 ] || fail "expected one line: $output"
	run jq -c . <<<"$output"
	assert_output '{"verified":1,"rejected":1,"failed":1,"expired":1,"held_too_long":0,"pruned":1,"stale":0,"waits":0,"landing":{"landed":0,"conflicts":0,"check_failed":0,"failed":0,"waiting":0,"checked":0,"trunk_moves":0,"busy":false,"paused":false}}'
	ok daicho sweep --json
	run jq -c '[(keys_unsorted | sort), ([del(.landing)[]] | map(type) | unique)]' <<<"$output"
	assert_output '[["expired","failed","held_too_long","landing","pruned","rejected","stale","verified","waits"],["number"]]'
	run jq -c . <<<"$(daicho sweep --json)"
	assert_output '{"verified":0,"rejected":0,"failed":0,"expired":0,"held_too_long":0,"pruned":0,"stale":0,"waits":0,"landing":{"landed":0,"conflicts":0,"check_failed":0,"failed":0,"waiting":0,"checked":0,"trunk_moves":0,"busy":false,"paused":false}}'
}

@test "sweep --every 1s loops until SIGTERM, then exits 0 promptly" {
	person daicho add --no-baseline t --done-when file:README >/dev/null
	claim_report 1 w1
	daicho sweep --every 1s >"$TEST_ROOT/sweep.out" 2>"$TEST_ROOT/sweep.err" 3>&- &
	SWEEP_PID=$!
	# wait for the first pass
	for _ in $(seq 50); do [ -s "$TEST_ROOT/sweep.out" ] && break; sleep 0.1; done
	[ -s "$TEST_ROOT/sweep.out" ] || fail "no pass printed"
	kill -TERM "$SWEEP_PID"
	for _ in $(seq 20); do kill -0 "$SWEEP_PID" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$SWEEP_PID" 2>/dev/null; then
		fail "sweep --every still running 2s after SIGTERM"
	fi
	rc=0
	wait "$SWEEP_PID" || rc=$?
	SWEEP_PID=
	[ "$rc" -eq 0 ] || fail "sweep --every exited $rc after SIGTERM (stderr: $(cat "$TEST_ROOT/sweep.err"))"
	[ ! -s "$TEST_ROOT/sweep.err" ] || fail "stderr: $(cat "$TEST_ROOT/sweep.err")"
	# One line, for the pass that verified #1, after its time; the idle
	# passes after it print nothing.
	run cat "$TEST_ROOT/sweep.out"
	[ "${#lines[@]}" -eq 1 ] || fail "expected one line: $output"
	[[ "${lines[0]}" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\ sweep:\ 1\ verified,\ 0\ rejected,\ 0\ failed,\ 0\ leases\ expired,\ 0\ worktrees\ pruned,\ 0\ agents\ stale,\ 0\ waits\ escalated$ ]] ||
		fail "unexpected output: $output"
	assert_task 1 verified w1 1
}

@test "sweep --every --json: an object with at_ms only for a pass that changed something" {
	person daicho add --no-baseline t --done-when file:README >/dev/null
	claim_report 1 w1
	daicho sweep --every 300ms --json >"$TEST_ROOT/sweep.out" 2>&1 3>&- &
	SWEEP_PID=$!
	sleep 1.5
	kill -TERM "$SWEEP_PID"
	wait "$SWEEP_PID" || true
	SWEEP_PID=
	run cat "$TEST_ROOT/sweep.out"
	[ "${#lines[@]}" -eq 1 ] || fail "expected one line: $output"
	run jq -c '[.verified, (.at_ms | type)]' <<<"${lines[0]}"
	assert_output '[1,"number"]'
}

@test "the systemd user unit in examples/ is valid (systemd-analyze verify, where available)" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed"
	mkdir -p "$TEST_ROOT/units"
	# An instance of the template, run with this build of daicho.
	sed "s|/usr/local/bin/daicho|$DAICHO_ROOT/daicho|" "$DAICHO_ROOT/examples/daicho-sweep@.service" \
		>"$TEST_ROOT/units/daicho-sweep@$(systemd-escape -p "$REPO").service"
	run systemd-analyze verify "$TEST_ROOT/units/daicho-sweep@$(systemd-escape -p "$REPO").service"
	[ "$status" -eq 0 ] || fail "systemd-analyze: $output"
	grep -q '^ExecStart=.* sweep --every ' "$DAICHO_ROOT/examples/daicho-sweep@.service"
}

@test "sweep: bad input is refused and changes nothing" {
	daicho add t >/dev/null
	claim_report 1 w1
	snapshot_ledger
	refused 2 daicho sweep --every 10x
	assert_equal "$stderr" "daicho: bad duration '10x' for --every (write a positive number and a unit: 500ms, 20s, 30m, 4h, 2d)"
	refused 2 daicho sweep -j 0
	assert_equal "$stderr" "daicho: bad value '0' for --jobs (want a whole number from 1 to 256)"
	refused 2 daicho sweep --jobs x
	refused 2 daicho sweep --stale-after soon
	refused 2 daicho sweep --every
	refused 2 daicho sweep --no-such-option
	assert_ledger_unchanged
	[ "$(tf 1 .state)" = reported ]
}

@test "an idle pass writes nothing and takes the write lock once" {
	daicho add a >/dev/null
	daicho --as w claim 1 >/dev/null
	before="$(sql "SELECT count(*) FROM events")"
	DAICHO_TRACE_LOCK="$TEST_ROOT/trace" ok daicho sweep
	[ "$(sql "SELECT count(*) FROM events")" = "$before" ]
	sqlite_only "DAICHO_TRACE_LOCK traces the lock file of a SQLite ledger"
	# "pid transactions wait_us_max wait_us_total hold_us_total"
	[ "$(awk '{ print $2 }' "$TEST_ROOT/trace")" -eq 1 ] ||
		fail "write transactions: $(cat "$TEST_ROOT/trace")"
}

@test "a pass verifies the reports that existed when it began; a report made meanwhile waits for the next pass" {
	unsandboxed
	person daicho add --no-baseline slow --done-when "cmd:touch $TEST_ROOT/started; sleep 1" >/dev/null
	person daicho add --no-baseline later --done-when file:README >/dev/null
	claim_report 1 w1
	[ "$(daicho claim 2 --as w2)" = 2 ]
	c2="$(commit_work 2)"
	daicho sweep -j 1 >"$TEST_ROOT/pass" &
	SWEEP_PID=$!
	for _ in $(seq 100); do [ -e "$TEST_ROOT/started" ] && break; sleep 0.05; done
	[ -e "$TEST_ROOT/started" ] || fail "the check of #1 never started"
	daicho report 2 --as w2 --commit "$c2"
	wait "$SWEEP_PID"
	[ "$(cat "$TEST_ROOT/pass")" = "sweep: 1 verified, 0 rejected, 0 failed, 0 leases expired, 0 worktrees pruned, 0 agents stale, 0 waits escalated" ] ||
		fail "the pass: $(cat "$TEST_ROOT/pass")"
	assert_task 1 verified w1 1
	assert_task 2 reported w2 1
	sweep_says 1 0 0 0 0
	assert_task 2 verified w2 1
}

@test "sweep --every -v prints every pass, idle ones too, each after its time" {
	daicho sweep --every 200ms -v >"$TEST_ROOT/sweep.out" 2>&1 3>&- &
	SWEEP_PID=$!
	sleep 1
	kill -TERM "$SWEEP_PID"
	wait "$SWEEP_PID" || true
	SWEEP_PID=
	run cat "$TEST_ROOT/sweep.out"
	[ "${#lines[@]}" -ge 2 ] || fail "expected a line per pass: $output"
	[[ "${lines[0]}" =~ ^[0-9T:-]+Z\ sweep:\ 0\ verified, ]] || fail "$output"
}
