#!/usr/bin/env bats
# daicho run: the execution engine. The cap, {id} substitution and the
# worker's environment, no shell, timeouts and process groups, retries with
# backoff, rate limits, budgets, signals, logs per attempt, output modes and
# the exit status, reports for silent workers and false reports caught,
# --worktree, crash safety, heart-beats, bad input.
#
# Worker scripts live in $BIN (written by each test); their start/end times
# come from $EPOCHREALTIME (microseconds). Sleeps that a test must find or
# kill have durations used nowhere else (sleep 37.1, 37.2, ...), and
# worker_pids finds every live worker of this test's ledger by its
# environment, so no test looks at another's processes.

load run_helpers
load fake_git

# --- the cap -------------------------------------------------------------

# cap_worker: appends "S <usec> ID" and "E <usec> ID" to $1 around a nap
# of $2 seconds.
cap_worker() {
	write_worker cap 't=$EPOCHREALTIME; echo "S ${t/./} $DAICHO_TASK" >>"$1"
sleep "$2"
t=$EPOCHREALTIME; echo "E ${t/./} $DAICHO_TASK" >>"$1"'
}

@test "run -j 3: never more than 3 workers at once, and 3 are reached" {
	for i in 1 2 3 4 5 6 7 8 9; do daicho add "t$i" >/dev/null; done
	cap_worker
	capture daicho run -j 3 -- "$BIN/cap" "$TEST_ROOT/times" 0.3
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	assert_summary "daicho run: 9 verified, 0 failed, 0 retried, 0 false reports caught, "
	[ -z "$stderr" ]
	[ "$(grep -c '^S ' times)" -eq 9 ]
	[ "$(grep -c '^E ' times)" -eq 9 ]
	run max_overlap times
	assert_output 3
	[ "$(sql "SELECT count(*) FROM tasks WHERE state = 'verified'")" -eq 9 ]
}

@test "run -j 1 runs one worker at a time; the default is the number of CPUs" {
	for i in 1 2 3; do daicho add "t$i" >/dev/null; done
	cap_worker
	ok daicho run -j 1 -- "$BIN/cap" "$TEST_ROOT/times1" 0.1
	run max_overlap times1
	assert_output 1

	local cpus
	cpus="$(getconf _NPROCESSORS_ONLN)"
	for ((i = 0; i < 2 * cpus; i++)); do daicho add "d$i" >/dev/null; done
	ok daicho run -- "$BIN/cap" "$TEST_ROOT/times2" 0.3
	[ "$(grep -c '^S ' times2)" -eq $((2 * cpus)) ]
	run max_overlap times2
	assert_output "$cpus"
}

# --- {id}, the environment, no shell --------------------------------------

@test "run: {id} becomes the task id, and only that; hostile titles and bodies never reach the command line" {
	local p="$TEST_ROOT/pwned"
	daicho add "\$(touch $p-1)" --body "\$(touch $p-body) \`touch $p-body2\`" >/dev/null
	daicho add "x; touch $p-2; #" >/dev/null
	daicho add "\`touch $p-3\`" >/dev/null
	daicho add "it's a \"quoted\" 'title' \\ with {id}" >/dev/null
	daicho add "{id}" >/dev/null
	daicho add "x -rf {id} \$HOME * && touch $p-6 | touch $p-7" >/dev/null
	# The titles are stored as given.
	run sql "SELECT title FROM tasks WHERE id = 1"
	assert_output "\$(touch $p-1)"
	mkdir out
	write_worker argv 'out="$1"; shift; printf "%s\n" "$#" "$@" >"$out/argv.$DAICHO_TASK"'
	ok daicho run -j 2 -- "$BIN/argv" "$TEST_ROOT/out" '{id}' 'pre-{id}-post' '{id}{id}' \
		'{ID}' '{ id}' '{id' 'id}' '$HOME' '$(touch pwned-arg)'
	assert_summary "daicho run: 6 verified, 0 failed, 0 retried, 0 false reports caught, "
	local id
	for id in 1 2 3 4 5 6; do
		run cat "out/argv.$id"
		assert_output "9
$id
pre-$id-post
$id$id
{ID}
{ id}
{id
id}
\$HOME
\$(touch pwned-arg)"
	done
	# Nothing was created by an injection, anywhere.
	run find "$TEST_ROOT" -name 'pwned*'
	assert_output ""
}

@test "run: each worker gets DAICHO_TASK, DAICHO_AGENT (a worker agent of this run) and DAICHO_LEDGER" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	mkdir env
	export RUN_TEST_PASSED=kept
	write_worker env 'env | grep -E "^(DAICHO_|RUN_TEST_PASSED=)" | sort >"$1/env.$DAICHO_TASK"
sleep 0.2'
	ok daicho run -j 2 -- "$BIN/env" "$TEST_ROOT/env"
	local id agent agents=()
	for id in 1 2; do
		run grep '^DAICHO_TASK=' "env/env.$id"
		assert_output "DAICHO_TASK=$id"
		run grep '^RUN_TEST_PASSED=' "env/env.$id"
		assert_output "RUN_TEST_PASSED=kept"
		run sed -n 's/^DAICHO_LEDGER=//p' "env/env.$id"
		if backend_is_postgresql; then
			# The address itself, as the runner was given it.
			[ "$output" = "$DAICHO_LEDGER" ] || fail "DAICHO_LEDGER: '$output'"
		else
			[[ "$output" == /* ]] || fail "DAICHO_LEDGER is not absolute: '$output'"
			[ "$(realpath "$output")" = "$(realpath "$DAICHO_LEDGER")" ]
		fi
		agent="$(sed -n 's/^DAICHO_AGENT=//p' "env/env.$id")"
		[[ "$agent" =~ ^run[0-9]+-[0-9]+$ ]] || fail "DAICHO_AGENT: '$agent'"
		agents+=("$agent")
		# The worker agent is in the ledger: it claimed the task, role run,
		# ended with the run.
		run sql "SELECT a.name FROM events e JOIN agents a ON a.id = e.actor
			WHERE e.task = $id AND e.kind = 'claim'"
		assert_output "$agent"
		run sql "SELECT role || ' ' || state FROM agents WHERE name = '$agent'"
		assert_output "run ended"
	done
	# Two workers at once: two agents of the same run.
	[ "${agents[0]}" != "${agents[1]}" ]
	[ "${agents[0]%-*}" = "${agents[1]%-*}" ]
}

@test "run: a worker's client hooks (session-start, stop, session-end) leave the worker to the runner: failures retried, rate limits paused, N slots N agents" {
	for i in 1 2 3 4; do daicho add "t$i" >/dev/null; done
	mkdir o
	# Each launch is a new client session with the Claude Code hooks
	# installed: its SessionStart, Stop and SessionEnd hooks run, then it
	# exits. Task 1 fails once, task 2 hits a rate limit once.
	write_worker hooked 'out="$1" fix="$2"
session=$(cat /proc/sys/kernel/random/uuid)
p() { jq -c --arg s "$session" --arg c "$PWD" ".session_id = \$s | .cwd = \$c" "$fix/$1.json"; }
f="$out/n.$DAICHO_TASK"; n=0; [ -f "$f" ] && read -r n <"$f"; n=$((n + 1)); echo "$n" >"$f"
p session-start | daicho hook claude session-start >"$out/start.$DAICHO_TASK.$n"
p stop | daicho hook claude stop >"$out/stop.$DAICHO_TASK.$n"
p session-end | daicho hook claude session-end
case "$DAICHO_TASK:$n" in
1:1) exit 1 ;;
2:1) exit 75 ;;
esac
exit 0'
	capture daicho run -j 2 --retry-backoff 50ms -- "$BIN/hooked" "$TEST_ROOT/o" "$DAICHO_ROOT/tests/fixtures/hooks/claude"
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	assert_summary "daicho run: 4 verified, 0 failed, 1 retried, 0 false reports caught, 1 rate-limited, "
	# Two slots, two agents: kind script, role run, no session bound,
	# ended by the runner alone; no client agent, no inheritance.
	run sql "SELECT count(*) || ' ' || count(session_id) FROM agents WHERE name LIKE 'run%'"
	assert_output "2 0"
	run sql_joined , "SELECT DISTINCT kind || '/' || role || '/' || state FROM agents WHERE name LIKE 'run%'"
	assert_output "script/run/ended"
	run sql "SELECT count(*) FROM agents WHERE kind = 'claude'"
	assert_output 0
	run sql "SELECT count(*) FROM events WHERE kind IN ('agent-register', 'agent-inherit', 'agent-rename', 'agent-takeover') AND $(json_field kind) IS DISTINCT FROM 'script' AND $(json_field kind) IS DISTINCT FROM 'human'"
	assert_output 0
	[ "$(count_events agent-end)" -eq 2 ]
	# Each session was told its own task, and its stop reminder named that
	# task alone.
	local f id
	for f in o/start.*; do
		id="${f#o/start.}"
		id="${id%.*}"
		jq -r .hookSpecificOutput.additionalContext "$f" | grep -q "started by 'daicho run' for task #$id;" ||
			fail "$f: $(cat "$f")"
	done
	for f in o/stop.*; do
		id="${f#o/stop.}"
		id="${id%.*}"
		run jq -r .reason "$f"
		[[ "$output" == *": #$id (t$id). Report each"* ]] || fail "$f: $output"
	done
	[ "$(find o -name 'start.*' | wc -l)" -eq 6 ]
}

@test "run: the runner keeps its caller alive and renews the caller's own claims while it runs" {
	daicho add mine >/dev/null
	daicho add job >/dev/null
	daicho --as orch claim 1 --lease 2s >/dev/null
	before="$(sql "SELECT last_seen_ms FROM agents WHERE name = 'orch' AND state <> 'ended'")"
	lease_before="$(sql "SELECT lease_expires_ms FROM tasks WHERE id = 1")"
	# The runner beats every quarter lease (at least every 250 ms): a 2 s
	# job sees several beats; the caller's 2 s lease must never lapse.
	write_worker slow 'sleep 2.5'
	daicho --as orch run -j 1 --lease 2s -- "$BIN/slow"
	after="$(sql "SELECT last_seen_ms FROM agents WHERE name = 'orch' AND state <> 'ended'")"
	lease_after="$(sql "SELECT lease_expires_ms FROM tasks WHERE id = 1")"
	[ "$after" -ge $((before + 2000)) ] || fail "caller last seen $before -> $after"
	[ "$lease_after" -gt "$lease_before" ] || fail "lease $lease_before -> $lease_after"
	[ "$(task_field 1 state)" = claimed ]
	[ "$(task_field 1 owner)" = orch ]
	[ "$(task_field 2 state)" = verified ]
}

@test "run: the command runs directly, never through a shell" {
	daicho add a >/dev/null
	ok daicho run -- echo '$HOME' '*' 'a;b' '$(id)' '`id`' '>x' '|' '{id}'
	run daicho logs 1
	assert_output '$HOME * a;b $(id) `id` >x | 1'
	[ ! -e x ]
	# A shell only when the user writes one.
	daicho add b >/dev/null
	ok daicho run -- sh -c 'echo "$1 $DAICHO_TASK"' sh '{id}'
	run daicho logs 2
	assert_output "2 2"
}

@test "run: worker output goes to its log, never to run's stdout or stderr" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	write_worker noisy 'echo "WORKER-OUT $DAICHO_TASK"; echo "WORKER-ERR $DAICHO_TASK" >&2'
	capture daicho run -j 2 -- "$BIN/noisy"
	[ "$status" -eq 0 ]
	assert_summary "daicho run: 2 verified, 0 failed, 0 retried, 0 false reports caught, "
	[ -z "$stderr" ] || fail "stderr: '$stderr'"
	run daicho logs 1
	assert_output $'WORKER-OUT 1\nWORKER-ERR 1'
	run daicho logs 2
	assert_output $'WORKER-OUT 2\nWORKER-ERR 2'
	[ -f "$(logs_dir)/1.1.log" ]
	[ -f "$(logs_dir)/2.1.log" ]
	# One directory for all the logs, none per task.
	[ "$(find "$(logs_dir)" -mindepth 1 -type d | wc -l)" -eq 0 ]
}

@test "run: a launch that printed nothing leaves no log, and no file at all" {
	for i in $(seq 20); do daicho add "t$i" >/dev/null; done
	write_worker some 'if [ "$DAICHO_TASK" -gt 18 ]; then echo "said $DAICHO_TASK"; fi'
	capture daicho run -j 4 -- "$BIN/some"
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	# Only the two that printed have a log; nothing else is in the directory.
	run ls -A "$(logs_dir)"
	assert_output $'19.1.log\n20.1.log'
	run daicho logs 19
	assert_output "said 19"
	refused 3 daicho logs 5
	stderr_contains "whose workers printed something"
	# The exit event says there is no log.
	run sql "SELECT count(*) FROM events WHERE kind = 'exit' AND task = 5 AND $(json_field log) IS NULL"
	assert_output 1
	run sql "SELECT $(json_field log) FROM events WHERE kind = 'exit' AND task = 19"
	assert_output "$(logs_dir)/19.1.log"
}

@test "run: what a worker's escaped process writes later never lands in another task's log" {
	daicho add t1 >/dev/null
	daicho add t2 >/dev/null
	# Task 1 leaves a process outside its group that writes after it ended;
	# task 2, in the same slot, prints nothing.
	write_worker stray 'if [ "$DAICHO_TASK" = 1 ]; then
	setsid sh -c "sleep 0.5; echo STRAY from 1" &
else
	sleep 1.5
fi'
	capture daicho run -j 1 -- "$BIN/stray"
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	refused 3 daicho logs 2
	run grep -rl STRAY "$(logs_dir)"
	assert_output ""
}

@test "run: the log of a worker that runs a while can be followed while it runs" {
	daicho add t1 >/dev/null
	write_worker slow 'echo "first line"; echo started >"$1/start"; sleep 37.7'
	daicho run -j 1 --timeout 30s -- "$BIN/slow" "$TEST_ROOT" >out.txt 2>err.txt &
	RUN_PID=$!
	wait_until 60 test -f start
	# Named within a second or so of its start.
	wait_until 60 test -f "$(logs_dir)/1.1.log"
	run daicho logs 1
	assert_output "first line"
	kill -TERM "$RUN_PID"
	wait_exit 10 "$RUN_PID"
	assert_no_workers_left
}

@test "logs: the log of an interrupted attempt is found after its claim was given back" {
	daicho add t1 >/dev/null
	write_worker chatty 'echo "output of $DAICHO_TASK"; echo started >"$1/start.$DAICHO_TASK"; sleep 37.6'
	daicho run -j 1 -- "$BIN/chatty" "$TEST_ROOT" >out.txt 2>err.txt &
	RUN_PID=$!
	wait_until 60 test -f start.1
	kill -INT "$RUN_PID"
	wait_exit 10 "$RUN_PID"
	[ "$status" -eq 130 ]
	# The attempt was given back (attempts 0), its log is attempt 1's.
	[ "$(sql "SELECT attempts FROM tasks WHERE id = 1")" -eq 0 ]
	run daicho logs 1
	assert_success
	assert_output "output of 1"
}

@test "logs: a log in the layout of an earlier daicho (logs/ID/ATTEMPT.log) is still found" {
	daicho add old >/dev/null
	daicho --as w claim 1 >/dev/null
	mkdir -p "$(logs_dir)/1"
	echo "old layout" >"$(logs_dir)/1/1.log"
	run daicho logs 1
	assert_output "old layout"
	run daicho logs 1 --attempt 1
	assert_output "old layout"
	refused 3 daicho logs 1 --attempt 2
	# A later attempt made without 'daicho run' has no log: the latest
	# attempt that has one is shown.
	sql "UPDATE tasks SET attempts = 2 WHERE id = 1"
	run daicho logs 1
	assert_output "old layout"
}

# --- timeouts ------------------------------------------------------------

@test "run --timeout kills the whole process group, counts as a failed attempt, leaves no process" {
	daicho add slow >/dev/null
	write_worker slow 'sleep 37.1 & sleep 37.2 & wait'
	local t0 t1
	t0="$(now_ms)"
	capture daicho run --timeout 400ms --grace 300ms --retries 1 --retry-backoff 100ms -- "$BIN/slow"
	t1="$(now_ms)"
	[ "$status" -eq 1 ]
	assert_summary "daicho run: 0 verified, 1 failed, 1 retried, 0 false reports caught, "
	assert_one_error_line
	((t1 - t0 < 5000)) || fail "took $((t1 - t0)) ms"
	run task_row 1
	[[ "$output" == "failed|2|run"* ]] || fail "task: $output"
	[ "$(count_events requeue 1)" -eq 1 ]
	[ "$(count_events fail 1)" -eq 1 ]
	run sql "SELECT $(json_field reason) FROM events WHERE task = 1 AND kind IN ('requeue', 'fail') ORDER BY id"
	assert_output $'timed out\ntimed out'
	run sql "SELECT $(json_field attempt) || ' ' || $(json_field timed_out)
		FROM events WHERE task = 1 AND kind = 'exit' ORDER BY id"
	assert_output $'1 1\n2 1'
	assert_no_workers_left
	run pgrep -f '^sleep 37\.[12]$'
	assert_output ""
}

@test "run --timeout: a worker that ignores SIGTERM is killed after --grace" {
	daicho add stubborn >/dev/null
	# An ignored signal stays ignored across exec: sleep ignores TERM too.
	write_worker stubborn "trap '' TERM; sleep 37.3"
	local t0 t1
	t0="$(now_ms)"
	capture daicho run --timeout 300ms --grace 500ms --retries 0 -- "$BIN/stubborn"
	t1="$(now_ms)"
	[ "$status" -eq 1 ]
	((t1 - t0 >= 800)) || fail "killed before the grace period: $((t1 - t0)) ms"
	((t1 - t0 < 4000)) || fail "took $((t1 - t0)) ms"
	run task_row 1
	[[ "$output" == "failed|1|run"* ]] || fail "task: $output"
	run sql "SELECT $(json_field timed_out) FROM events WHERE task = 1 AND kind = 'exit'"
	assert_output 1
	assert_no_workers_left
	run pgrep -f '^sleep 37\.3$'
	assert_output ""
}

# --- retries -------------------------------------------------------------

# flaky_worker: counts its attempts in $1/n.ID, appends "S <usec>" and
# "E <usec>" to $1/times.ID, prints "attempt N of ID" and succeeds from
# attempt $2 on.
flaky_worker() {
	write_worker flaky 'f="$1/n.$DAICHO_TASK"; n=0; [ -f "$f" ] && read -r n <"$f"; n=$((n + 1)); echo "$n" >"$f"
t=$EPOCHREALTIME; echo "S ${t/./}" >>"$1/times.$DAICHO_TASK"
echo "attempt $n of $DAICHO_TASK"
t=$EPOCHREALTIME; echo "E ${t/./}" >>"$1/times.$DAICHO_TASK"
[ "$n" -ge "$2" ]'
}

@test "run: a worker failing twice is retried with a growing backoff and verified on attempt 3" {
	daicho add flaky >/dev/null
	flaky_worker
	capture daicho run --retry-backoff 200ms -- "$BIN/flaky" "$TEST_ROOT" 3
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	assert_summary "daicho run: 1 verified, 0 failed, 2 retried, 0 false reports caught, "
	run task_row 1
	[[ "$output" == "verified|3|run"* ]] || fail "task: $output"
	[ "$(count_events requeue 1)" -eq 2 ]
	[ "$(count_events verified 1)" -eq 1 ]
	run sql "SELECT $(json_field attempts) || ' ' || $(json_field retry_after_ms)
		FROM events WHERE task = 1 AND kind = 'requeue' ORDER BY id"
	assert_output $'1 200\n2 400'
	# The gaps between attempts, measured by the worker: >= 200 ms, then
	# >= 400 ms, and growing.
	local -a s e
	mapfile -t s < <(sed -n 's/^S //p' times.1)
	mapfile -t e < <(sed -n 's/^E //p' times.1)
	[ "${#s[@]}" -eq 3 ]
	[ "${#e[@]}" -eq 3 ]
	local gap1=$(((s[1] - e[0]) / 1000)) gap2=$(((s[2] - e[1]) / 1000))
	((gap1 >= 200)) || fail "first retry after $gap1 ms (backoff 200ms)"
	((gap2 >= 400)) || fail "second retry after $gap2 ms (backoff 400ms)"
	((gap2 > gap1)) || fail "backoff did not grow: $gap1 ms then $gap2 ms"
}

@test "run --retries 0: a failing worker fails after one attempt" {
	daicho add once >/dev/null
	capture daicho run --retries 0 -- false
	[ "$status" -eq 1 ]
	assert_summary "daicho run: 0 verified, 1 failed, 0 retried, 0 false reports caught, "
	assert_one_error_line
	stderr_contains "1 of 1 tasks did not reach verified"
	run task_row 1
	[[ "$output" == "failed|1|run"* ]] || fail "task: $output"
	[ "$(count_events claim 1)" -eq 1 ]
	[ "$(count_events requeue 1)" -eq 0 ]
	[ "$(count_events fail 1)" -eq 1 ]
	run sql "SELECT $(json_field reason) FROM events WHERE task = 1 AND kind = 'fail'"
	assert_output "exit 1"
}

@test "run: --retries K allows K+1 attempts; a task's smaller max_attempts wins" {
	daicho add two >/dev/null
	daicho add one --max-attempts 1 >/dev/null
	capture daicho run -j 1 --retries 1 --retry-backoff 50ms -- false
	[ "$status" -eq 1 ]
	assert_summary "daicho run: 0 verified, 2 failed, 1 retried, 0 false reports caught, "
	[ "$(sql "SELECT attempts FROM tasks WHERE id = 1")" -eq 2 ]
	[ "$(sql "SELECT attempts FROM tasks WHERE id = 2")" -eq 1 ]
	[ "$(count_events claim 1)" -eq 2 ]
	[ "$(count_events claim 2)" -eq 1 ]
	run states
	assert_output "failed failed"
}

# --- rate limits ---------------------------------------------------------

@test "run: exit 75 and a 429 message requeue without spending an attempt, with pause and resume events" {
	daicho add exit75 >/dev/null
	daicho add http429 >/dev/null
	daicho add says-429-but-succeeds >/dev/null
	write_worker rl 'f="$1/n.$DAICHO_TASK"; n=0; [ -f "$f" ] && read -r n <"$f"; n=$((n + 1)); echo "$n" >"$f"
t=$EPOCHREALTIME; echo "S ${t/./} $n" >>"$1/times.$DAICHO_TASK"
echo "attempt $n"
case "$DAICHO_TASK:$n" in
1:1) sleep 0.5; t=$EPOCHREALTIME; echo "E ${t/./} $n" >>"$1/times.$DAICHO_TASK"; exit 75 ;;
2:1) echo "HTTP 429 Too Many Requests" >&2; t=$EPOCHREALTIME; echo "E ${t/./} $n" >>"$1/times.$DAICHO_TASK"; exit 1 ;;
3:*) echo "HTTP 429 Too Many Requests (not a failure: exit 0)" ;;
esac
t=$EPOCHREALTIME; echo "E ${t/./} $n" >>"$1/times.$DAICHO_TASK"'
	# --retries 0: one spent attempt would fail the task.
	capture daicho run -j 3 --retries 0 -- "$BIN/rl" "$TEST_ROOT"
	[ "$status" -eq 0 ] || fail "exit $status: $stderr (stdout: $output)"
	assert_summary "daicho run: 3 verified, 0 failed, 0 retried, 0 false reports caught, 2 rate-limited, "
	# Tasks 1 and 2 ran twice, yet attempts is 1: the rate-limited attempt
	# was given back.
	run sql "SELECT id || ' ' || state || ' ' || attempts FROM tasks ORDER BY id"
	assert_output $'1 verified 1\n2 verified 1\n3 verified 1'
	[ "$(count_events claim 1)" -eq 2 ]
	[ "$(count_events claim 2)" -eq 2 ]
	[ "$(count_events claim 3)" -eq 1 ]
	# Each rate-limited claim was released (not requeued, not failed).
	[ "$(count_events release 1)" -eq 1 ]
	[ "$(count_events release 2)" -eq 1 ]
	[ "$(count_events release 3)" -eq 0 ]
	[ "$(count_events requeue)" -eq 0 ]
	[ "$(count_events fail)" -eq 0 ]
	# Launches paused, then resumed; the first pause is 2 s; none names
	# task 3. (Task 2's 429 comes at once, task 1's exit 75 0.5 s later,
	# during the pause.)
	[ "$(count_events pause)" -ge 1 ]
	[ "$(count_events pause 3)" -eq 0 ]
	[ "$(count_events resume)" -ge 1 ]
	run sql "SELECT $(json_field pause_ms) FROM events WHERE kind = 'pause' ORDER BY id LIMIT 1"
	assert_output 2000
	[ "$(sql "SELECT max(id) FROM events WHERE kind = 'resume'")" -gt \
		"$(sql "SELECT max(id) FROM events WHERE kind = 'pause'")" ]
	# No relaunch during the pause: task 1 started again >= 2 s after its
	# rate-limited exit.
	local e1 s2
	e1="$(awk '$1 == "E" && $3 == 1 { print $2 }' times.1)"
	s2="$(awk '$1 == "S" && $3 == 2 { print $2 }' times.1)"
	(((s2 - e1) / 1000 >= 2000)) || fail "relaunched $(((s2 - e1) / 1000)) ms after a rate limit"
}

# client_worker: on its first launch, task N prints the fixture named on
# line N of $TEST_ROOT/plan ("FIXTURE EXIT"; @RESET@ replaced by the
# content of $TEST_ROOT/reset) and exits with EXIT; later launches print
# "ok" and exit 0. Start times go to $TEST_ROOT/times.N ("S <usec> <n>").
client_worker() {
	write_worker client 'f="$1/n.$DAICHO_TASK"; n=0; [ -f "$f" ] && read -r n <"$f"; n=$((n + 1)); echo "$n" >"$f"
t=$EPOCHREALTIME; echo "S ${t/./} $n" >>"$1/times.$DAICHO_TASK"
[ "$n" -gt 1 ] && { echo ok; exit 0; }
read -r fixture code < <(sed -n "${DAICHO_TASK}p" "$1/plan")
sed "s/@RESET@/$(cat "$1/reset" 2>/dev/null)/g" "$2/$fixture"
exit "$code"'
}

RL_FIXTURES="$DAICHO_ROOT/tests/fixtures/ratelimit"

# run_two_limited_two_failed: run tasks 1-4 on the plan, whose first two
# are rate limits and last two failures: all verified, the limited ones
# without spending an attempt, the failed ones on their second.
run_two_limited_two_failed() {
	client_worker
	capture daicho run -j 4 --retries 1 --retry-backoff 50ms -- "$BIN/client" "$TEST_ROOT" "$RL_FIXTURES"
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	assert_summary "daicho run: 4 verified, 0 failed, 2 retried, 0 false reports caught, 2 rate-limited, "
	run sql_joined ' ' "SELECT attempts FROM tasks ORDER BY id"
	assert_output "1 1 2 2"
}

@test "run: Claude Code's rate limits are read from its stream-json; its session limit pauses until the reset it gives; uuids with 429 and a connection error are failures" {
	for i in 1 2 3 4; do daicho add "t$i" >/dev/null; done
	local reset
	reset=$(($(date +%s) + 6))
	echo "$reset" >reset
	cat >plan <<-EOF
	limited-claude-resets-at.jsonl 1
	limited-claude-api-key-429.jsonl 0
	healthy-claude-uuid-429.jsonl 1
	healthy-claude-connection-error.jsonl 1
	EOF
	run_two_limited_two_failed
	# Task 2 exited 0, but its client's closing result said it was
	# limited.
	[ "$(count_events release 1)" -eq 1 ]
	[ "$(count_events release 2)" -eq 1 ]
	[ "$(count_events requeue 3)" -eq 1 ]
	[ "$(count_events requeue 4)" -eq 1 ]
	[ "$(count_events pause 3)" -eq 0 ]
	[ "$(count_events pause 4)" -eq 0 ]
	# The session limit paused launches until the time it gave, and said
	# why; task 1 started again only then.
	local until said
	IFS='|' read -r until said <<<"$(sql "SELECT $(json_field until_ms), $(json_field said)
		FROM events WHERE kind = 'pause' AND task = 1 AND $(json_field reason) = 'usage limit'")"
	[ -n "$until" ] || fail "no usage-limit pause: $(sql_joined '; ' "SELECT detail FROM events WHERE kind = 'pause' ORDER BY id")"
	((until >= reset * 1000 - 1500 && until <= reset * 1000 + 1500)) || fail "paused until $until, the reset is ${reset}000"
	[ "$said" = "API Error: Request rejected (429) · The usage limit has been reached" ] || fail "said: $said"
	local s2
	s2="$(awk '$1 == "S" && $3 == 2 { print $2 }' times.1)"
	((s2 / 1000 >= reset * 1000 - 1000)) || fail "task 1 relaunched $((reset * 1000 - s2 / 1000)) ms before the reset"
}

@test "run: Codex's and Gemini CLI's rate-limit errors are rate limits; their healthy output with 429 inside is not" {
	for i in 1 2 3 4; do daicho add "t$i" >/dev/null; done
	cat >plan <<-EOF
	limited-codex-retry-limit.jsonl 1
	limited-gemini-resource-exhausted.txt 1
	healthy-codex-failed.jsonl 1
	healthy-gemini-other-error.txt 1
	EOF
	run_two_limited_two_failed
	run sql_joined ', ' "SELECT task || ' ' || $(json_field reason) FROM events WHERE kind = 'pause' ORDER BY task"
	assert_output "1 rate limit, 2 rate limit"
}

@test "run: a rate limit during a pause is in the events: they say how long launches stay paused" {
	daicho add now-429 >/dev/null
	daicho add later-75 >/dev/null
	# Task 1 hits a rate limit at once, task 2 half a second later (during
	# the pause); both succeed on their second run.
	write_worker rl2 'f="$1/n.$DAICHO_TASK"; n=0; [ -f "$f" ] && read -r n <"$f"; n=$((n + 1)); echo "$n" >"$f"
case "$DAICHO_TASK:$n" in
1:1) echo "429 Too Many Requests"; exit 1 ;;
2:1) sleep 0.5; exit 75 ;;
esac
exit 0'
	capture daicho run -j 2 --retries 0 -- "$BIN/rl2" "$TEST_ROOT"
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	assert_summary "daicho run: 2 verified, 0 failed, 0 retried, 0 false reports caught, 2 rate-limited, "
	# However the runner combines the two (a longer pause or not), the
	# resume comes pause_ms after the last pause event (give or take 1.5 s).
	local pause_at pause_ms resume_at
	IFS='|' read -r pause_at pause_ms <<<"$(sql "SELECT at_ms, $(json_field pause_ms)
		FROM events WHERE kind = 'pause' ORDER BY id DESC LIMIT 1")"
	resume_at="$(sql "SELECT at_ms FROM events WHERE kind = 'resume' ORDER BY id DESC LIMIT 1")"
	[ -n "$pause_at" ] && [ -n "$resume_at" ] || fail "no pause or no resume event"
	((resume_at - pause_at >= pause_ms && resume_at - pause_at < pause_ms + 1500)) ||
		fail "the last pause event says ${pause_ms} ms, but launches resumed $((resume_at - pause_at)) ms after it (events: $(sql_joined '; ' "SELECT kind || ' ' || coalesce(CAST(task AS TEXT), '-') || ' ' || coalesce(detail, '') FROM events WHERE kind IN ('pause', 'resume', 'release') ORDER BY id"))"
}

@test "run: Gemini CLI's \"Please retry in Ns\" counts from when it was printed, not from the worker's exit" {
	daicho add t >/dev/null
	# The first launch prints the delay, lingers 3 s, and fails; the
	# second succeeds. Counted from the exit the pause would end at least
	# 3 s later than the delay says.
	write_worker retry_in 'f="$1/n"; n=0; [ -f "$f" ] && read -r n <"$f"; n=$((n + 1)); echo "$n" >"$f"
[ "$n" -gt 1 ] && exit 0
date +%s%3N >"$1/printed"
echo "[API Error: Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10. Please retry in 6s.]"
sleep 3
date +%s%3N >"$1/exited"
exit 1'
	capture daicho run --retries 0 -- "$BIN/retry_in" "$TEST_ROOT"
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	assert_summary "daicho run: 1 verified, 0 failed, 0 retried, 0 false reports caught, 1 rate-limited, "
	local printed exited until
	read -r printed <"$TEST_ROOT/printed"
	read -r exited <"$TEST_ROOT/exited"
	until="$(sql "SELECT $(json_field until_ms) FROM events WHERE kind = 'pause' AND task = 1")"
	[ -n "$until" ] || fail "no pause event"
	# The log's last write is the line's: the pause ends 6 s after it
	# (the file system's clock may round it down by up to a tick).
	((until >= printed + 6000 - 20)) || fail "paused until $until, the line was printed at $printed"
	((until < exited + 6000)) || fail "paused until $until: 6 s counted from the exit at $exited"
}

@test "run --rate-limit-pattern: a non-zero exit whose output matches (case-insensitively) is a rate limit" {
	daicho add a >/dev/null
	write_worker quota 'f="$1/n"; n=0; [ -f "$f" ] && read -r n <"$f"; n=$((n + 1)); echo "$n" >"$f"
[ "$n" -gt 1 ] && exit 0
echo "ERROR: Widget QUOTA exhausted, come back later"; exit 3'
	capture daicho run --retries 0 --rate-limit-pattern 'widget quota' -- "$BIN/quota" "$TEST_ROOT"
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	assert_summary "daicho run: 1 verified, 0 failed, 0 retried, 0 false reports caught, 1 rate-limited, "
	run task_row 1
	[[ "$output" == "verified|1|run"* ]] || fail "task: $output"
	[ "$(count_events pause 1)" -eq 1 ]
	[ "$(count_events resume)" -eq 1 ]
}

# --- budgets -------------------------------------------------------------

@test "run --budget-tokens: once spent nothing new is launched, running workers finish, the rest stay open" {
	for i in 1 2 3 4 5; do daicho add "t$i" >/dev/null; done
	# Task 1 spends the budget at once; task 2, already running, finishes.
	write_worker spend 'if [ "$DAICHO_TASK" = 1 ]; then
	echo r | daicho save "$DAICHO_TASK" --tokens-in 300
else
	sleep 0.5
	echo r | daicho save "$DAICHO_TASK" --tokens-in 10
fi'
	capture daicho run -j 2 --budget-tokens 100 -- "$BIN/spend"
	# Every task it ran was verified.
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	assert_summary "daicho run: 2 verified, 0 failed, 0 retried, 0 false reports caught, budget spent (310 tokens, 0.00), "
	run sql "SELECT id || ' ' || state || ' ' || attempts FROM tasks ORDER BY id"
	assert_output $'1 verified 1\n2 verified 1\n3 open 0\n4 open 0\n5 open 0'
	[ "$(count_events budget-spent)" -eq 1 ]
	# The rest is claimable.
	run daicho claim --next --as other
	assert_output 3
}

@test "run --budget-tokens -j 1: exactly the tasks needed to reach the budget run" {
	for i in 1 2 3 4 5 6; do daicho add "t$i" >/dev/null; done
	capture daicho run -j 1 --budget-tokens 250 -- sh -c 'echo r | daicho save "$DAICHO_TASK" --tokens-in 60 --tokens-out 40'
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	assert_summary "daicho run: 3 verified, 0 failed, 0 retried, 0 false reports caught, budget spent (300 tokens, 0.00), "
	run states
	assert_output "verified verified verified open open open"
}

@test "run --budget-cost -j 1: stops launching once the saved cost reaches the budget" {
	for i in 1 2 3 4 5; do daicho add "t$i" >/dev/null; done
	capture daicho --json run -j 1 --budget-cost 0.5 -- sh -c 'echo r | daicho save "$DAICHO_TASK" --cost 0.2'
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	run jq -c '[.tasks, .launched, .verified, .budget_spent, ((.cost * 1000 | round) / 1000)]' <<<"$output"
	assert_output '[3,3,3,true,0.6]'
	run states
	assert_output "verified verified verified open open"
	[ "$(count_events budget-spent)" -eq 1 ]
}

# --- signals -------------------------------------------------------------

# sig_worker: traps TERM and INT, writing $1/got.ID, and sleeps $2 s (in
# the background, so that the trap runs at once). Writes $1/start.ID first.
sig_worker() {
	write_worker sig 'trap "echo TERM >\"\$1/got.\$DAICHO_TASK\"; exit 143" TERM
trap "echo INT >\"\$1/got.\$DAICHO_TASK\"; exit 130" INT
echo started >"$1/start.$DAICHO_TASK"
sleep "$2" &
wait'
}

@test "run: SIGTERM is passed to the workers, unfinished tasks are left claimable, exit 143" {
	for i in 1 2 3 4; do daicho add "t$i" >/dev/null; done
	sig_worker
	daicho run -j 2 -- "$BIN/sig" "$TEST_ROOT" 37.4 >out.txt 2>err.txt &
	RUN_PID=$!
	wait_until 60 test -f start.1 -a -f start.2
	kill -TERM "$RUN_PID"
	wait_exit 10 "$RUN_PID"
	[ "$status" -eq 143 ]
	run cat got.1 got.2
	assert_output $'TERM\nTERM'
	capture cat out.txt
	assert_summary "daicho run: 0 verified, 0 failed, 0 retried, 0 false reports caught, 2 left claimable, stopped by SIGTERM, "
	# Every task is open, unowned, its attempt given back.
	run sql "SELECT id || ' ' || state || ' ' || attempts || ' ' || coalesce(CAST(owner AS TEXT), '-') FROM tasks ORDER BY id"
	assert_output $'1 open 0 -\n2 open 0 -\n3 open 0 -\n4 open 0 -'
	assert_no_workers_left
	run pgrep -f '^sleep 37\.4$'
	assert_output ""
	run daicho claim --next --as other
	assert_output 1
}

@test "run: SIGINT stops the run the same way, exit 130" {
	daicho add t1 >/dev/null
	daicho add t2 >/dev/null
	sig_worker
	daicho run -j 1 -- "$BIN/sig" "$TEST_ROOT" 37.5 >out.txt 2>err.txt &
	RUN_PID=$!
	wait_until 60 test -f start.1
	kill -INT "$RUN_PID"
	wait_exit 10 "$RUN_PID"
	[ "$status" -eq 130 ]
	run cat got.1
	assert_output INT
	[ ! -e start.2 ]
	run cat out.txt
	[[ "${lines[0]}" =~ $TAKES_RE ]] || fail "not what run takes: '${lines[0]}'"
	[[ "${lines[1]}" =~ ^daicho\ run:\ 0\ verified,\ 0\ failed,\ 0\ retried,\ 0\ false\ reports\ caught,\ 1\ left\ claimable,\ stopped\ by\ SIGINT,\ [0-9.]+m?s$ ]] ||
		fail "summary: $output"
	[ "${#lines[@]}" -eq 2 ]
	run sql_joined , "SELECT state || ' ' || attempts FROM tasks ORDER BY id"
	assert_output "open 0,open 0"
	assert_no_workers_left
}

@test "run --follow keeps waiting for new tasks until interrupted" {
	daicho add first >/dev/null
	daicho run --follow -- true >out.txt 2>err.txt &
	RUN_PID=$!
	wait_until 60 task_is 1 verified
	# Nothing is left, yet it waits.
	sleep 0.3
	kill -0 "$RUN_PID" || fail "run --follow ended when nothing was left"
	daicho add later >/dev/null
	wait_until 60 task_is 2 verified
	kill -TERM "$RUN_PID"
	wait_exit 10 "$RUN_PID"
	[ "$status" -eq 143 ]
	capture cat out.txt
	assert_summary "daicho run: 2 verified, 0 failed, 0 retried, 0 false reports caught, stopped by SIGTERM, "
}

# --- logs ----------------------------------------------------------------

@test "run: a log per attempt; daicho logs ID [--attempt N]" {
	daicho add retried >/dev/null
	flaky_worker
	capture daicho run --retry-backoff 50ms -- "$BIN/flaky" "$TEST_ROOT" 2
	[ "$status" -eq 0 ]
	assert_summary "daicho run: 1 verified, 0 failed, 1 retried, 0 false reports caught, "
	run daicho logs 1 --attempt 1
	assert_output "attempt 1 of 1"
	run daicho logs 1 --attempt 2
	assert_output "attempt 2 of 1"
	run daicho logs 1
	assert_output "attempt 2 of 1"
	cmp -s "$(logs_dir)/1.1.log" <(echo "attempt 1 of 1")
	cmp -s "$(logs_dir)/1.2.log" <(echo "attempt 2 of 1")
	refused 3 daicho logs 1 --attempt 3
	daicho add never-run >/dev/null
	refused 3 daicho logs 2
	# The exit events name the logs.
	run sql "SELECT $(json_field log) FROM events WHERE kind = 'exit' ORDER BY id"
	assert_output "$(logs_dir)/1.1.log
$(logs_dir)/1.2.log"
}

@test "run: a rate-limited launch keeps its log; its relaunch writes the next one (daicho logs ID --attempt N shows each)" {
	daicho add limited >/dev/null
	write_worker rl_log 'f="$1/n"; n=0; [ -f "$f" ] && read -r n <"$f"; n=$((n + 1)); echo "$n" >"$f"
echo "launch $n"
[ "$n" -eq 1 ] && { echo "429 Too Many Requests" >&2; exit 75; }
exit 0'
	capture daicho run --retries 0 -- "$BIN/rl_log" "$TEST_ROOT"
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	assert_summary "daicho run: 1 verified, 0 failed, 0 retried, 0 false reports caught, 1 rate-limited, "
	# One attempt spent, two launches, two logs.
	run task_row 1
	[[ "$output" == "verified|1|"* ]] || fail "task: $output"
	run daicho logs 1 --attempt 1
	assert_output $'launch 1\n429 Too Many Requests'
	run daicho logs 1 --attempt 2
	assert_output "launch 2"
	run daicho logs 1
	assert_output "launch 2"
	refused 3 daicho logs 1 --attempt 3
	run sql "SELECT $(json_field launch) || ' ' || $(json_field attempt) || ' ' || $(json_field log) FROM events WHERE kind = 'exit' ORDER BY id"
	assert_output "1 1 $(logs_dir)/1.1.log
2 1 $(logs_dir)/1.2.log"
}

@test "run: a symbolic link where a log goes is refused, the file it names untouched" {
	daicho add linked >/dev/null
	mkdir -p "$(logs_dir)"
	printf 'not yours\n' >"$TEST_ROOT/target"
	ln -s "$TEST_ROOT/target" "$(logs_dir)/1.1.log"
	capture daicho run -- true
	[ "$status" -ne 0 ]
	stderr_contains "$(logs_dir)/1.1.log (it is a symbolic link"
	[ "$(cat "$TEST_ROOT/target")" = "not yours" ]
}

# --- output and exit status -----------------------------------------------

@test "run -q prints only the summary line (and errors)" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	capture daicho run -q -- sh -c 'echo noise; echo more noise >&2'
	[ "$status" -eq 0 ]
	assert_quiet_summary "daicho run: 2 verified, 0 failed, 0 retried, 0 false reports caught, "
	[ -z "$stderr" ]
	daicho add c >/dev/null
	capture daicho run -q --retries 0 -- false
	[ "$status" -eq 1 ]
	assert_quiet_summary "daicho run: 0 verified, 1 failed, 0 retried, 0 false reports caught, "
	assert_one_error_line
}

@test "run -v prints a line per worker start and end, then the summary" {
	daicho add ok1 >/dev/null
	daicho add ok2 >/dev/null
	daicho add bad --max-attempts 1 >/dev/null
	capture daicho run -v -j 1 -- sh -c '[ "$DAICHO_TASK" != 3 ]'
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 8 ] || fail "output: $output"
	[[ "${lines[0]}" =~ $TAKES_RE ]] || fail "${lines[0]}"
	lines=("${lines[@]:1}")
	[[ "${lines[0]}" =~ ^#1\ started\ \(attempt\ 1,\ run[0-9]+-[0-9]+\)$ ]] || fail "${lines[0]}"
	[[ "${lines[1]}" =~ ^#1\ exit\ 0\ after\ [0-9.]+m?s:\ reported\ for\ it$ ]] || fail "${lines[1]}"
	[[ "${lines[2]}" =~ ^#2\ started\ \(attempt\ 1,\ run[0-9]+-[0-9]+\)$ ]] || fail "${lines[2]}"
	[[ "${lines[3]}" =~ ^#2\ exit\ 0\ after\ [0-9.]+m?s:\ reported\ for\ it$ ]] || fail "${lines[3]}"
	[[ "${lines[4]}" =~ ^#3\ started\ \(attempt\ 1,\ run[0-9]+-[0-9]+\)$ ]] || fail "${lines[4]}"
	[[ "${lines[5]}" =~ ^#3\ exit\ 1\ after\ [0-9.]+m?s:\ failed ]] || fail "${lines[5]}"
	[[ "${lines[6]}" =~ $SUMMARY_RE ]] || fail "${lines[6]}"
	[[ "${lines[6]}" == "daicho run: 2 verified, 1 failed, 0 retried, 0 false reports caught, "* ]]
	assert_one_error_line
}

@test "run --json prints one object with the documented fields" {
	daicho add once-failing >/dev/null
	daicho add fine >/dev/null
	flaky_worker
	capture daicho --json run -j 1 --retry-backoff 50ms -- "$BIN/flaky" "$TEST_ROOT" 2
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 1 ] || fail "expected one line: $output"
	local json="$output"
	run jq -c 'keys_unsorted' <<<"$json"
	assert_output '["tasks","launched","verified","landed","waiting_to_land","failed","retried","rate_limited","false_reports","claimable","awaiting_verification","recovered","tokens","cost","budget_spent","elapsed_ms","signal"]'
	run jq -c 'del(.elapsed_ms)' <<<"$json"
	assert_output '{"tasks":2,"launched":4,"verified":2,"landed":0,"waiting_to_land":0,"failed":0,"retried":2,"rate_limited":0,"false_reports":0,"claimable":0,"awaiting_verification":0,"recovered":0,"tokens":0,"cost":0,"budget_spent":false,"signal":null}'
	run jq -r '.elapsed_ms | type' <<<"$json"
	assert_output number
}

@test "run exits 0 only when every task it ran reached verified, else 1 with one error line" {
	capture daicho run -- true
	[ "$status" -eq 0 ]
	assert_summary "daicho run: 0 verified, 0 failed, 0 retried, 0 false reports caught, "
	daicho add good >/dev/null
	daicho add bad >/dev/null
	capture daicho run --retries 0 -- sh -c '[ "$DAICHO_TASK" = 1 ]'
	[ "$status" -eq 1 ]
	assert_summary "daicho run: 1 verified, 1 failed, 0 retried, 0 false reports caught, "
	assert_one_error_line
	stderr_contains "1 of 2 tasks did not reach verified"
	daicho add good-again >/dev/null
	capture daicho run -- true
	[ "$status" -eq 0 ]
	assert_summary "daicho run: 1 verified, 0 failed, 0 retried, 0 false reports caught, "
	[ -z "$stderr" ]
}

# --- reports and verification ----------------------------------------------

@test "run: a worker that exits 0 without reporting is reported by the runner and verified by its sweep" {
	daicho add silent --done-when file:made.txt >/dev/null
	daicho add self-reporting >/dev/null
	write_worker w 'if [ "$DAICHO_TASK" = 1 ]; then echo x >made.txt; else daicho report "$DAICHO_TASK" --note "by me"; fi'
	ok daicho run -j 1 -- "$BIN/w"
	assert_summary "daicho run: 2 verified, 0 failed, 0 retried, 0 false reports caught, "
	local agent1 agent2
	agent1="$(sql "SELECT a.name FROM events e JOIN agents a ON a.id = e.actor WHERE e.task = 1 AND e.kind = 'claim'")"
	agent2="$(sql "SELECT a.name FROM events e JOIN agents a ON a.id = e.actor WHERE e.task = 2 AND e.kind = 'claim'")"
	# Reported for the silent worker, in its name.
	run sql "SELECT a.name || ' ' || $(json_field note e.detail) FROM events e JOIN agents a ON a.id = e.actor
		WHERE e.task = 1 AND e.kind = 'report'"
	assert_output "$agent1 reported by daicho run: the worker exited 0"
	# The worker that reported is not reported twice.
	run sql "SELECT a.name || ' ' || $(json_field note e.detail) FROM events e JOIN agents a ON a.id = e.actor
		WHERE e.task = 2 AND e.kind = 'report'"
	assert_output "$agent2 by me"
	# The runner records the exit before it reports for the worker.
	run event_kinds 1
	assert_output "add claim exit report verified"
	# (The worker's own report may be verified before its exit is
	# recorded: the order of those two is free.)
	run sql_joined ' ' "SELECT kind FROM events WHERE task = 2 ORDER BY kind"
	assert_output "add claim exit report verified"
	run sql "SELECT summary FROM verdicts WHERE task = 1"
	assert_output "1 check passed"
}

@test "run: a worker that lies (exits 0 without its file) is rejected by the sweep and retried" {
	daicho add liar --done-when file:out.txt >/dev/null
	write_worker liar 'f="$1/n"; n=0; [ -f "$f" ] && read -r n <"$f"; n=$((n + 1)); echo "$n" >"$f"
[ "$n" -ge 2 ] && echo done >out.txt
exit 0'
	ok daicho run --retry-backoff 50ms -- "$BIN/liar" "$TEST_ROOT"
	assert_summary "daicho run: 1 verified, 0 failed, 0 retried, 1 false report caught, "
	run event_kinds 1
	# Each exit is recorded before the runner reports for it, so the
	# sweep's verdict always follows the report it judges.
	assert_output "add claim exit report rejected exit report verified"
	run task_row 1
	[[ "$output" == "verified|2|run"* ]] || fail "task: $output"
	run sql "SELECT $(json_field summary) FROM events WHERE task = 1 AND kind = 'rejected'"
	assert_output "file:out.txt: out.txt is missing"
}

@test "run: a worker that always lies fails once its attempts are used up" {
	daicho add liar --done-when file:never.txt --max-attempts 2 >/dev/null
	capture daicho run --retry-backoff 50ms -- true
	[ "$status" -eq 1 ]
	assert_summary "daicho run: 0 verified, 1 failed, 0 retried, 2 false reports caught, "
	run task_row 1
	[[ "$output" == "failed|2|run"* ]] || fail "task: $output"
	[ "$(count_events rejected 1)" -eq 2 ]
	[ "$(count_events fail 1)" -eq 1 ]
	[ "$(count_events verified 1)" -eq 0 ]
}

# judged_liar NAME EXIT: a worker that, at its first launch, reports its
# task without the file, waits until the sweep has judged that report,
# and exits EXIT; at its second it writes the file and exits 0.
judged_liar() {
	write_worker "$1" 'f="$1/n"; n=0; [ -f "$f" ] && read -r n <"$f"; n=$((n + 1)); echo "$n" >"$f"
if [ "$n" -ge 2 ]; then echo done >out.txt; exit 0; fi
daicho report "$DAICHO_TASK" || exit 9
while [ "$(daicho show --json "$DAICHO_TASK" | jq -r .state)" = reported ]; do sleep 0.05; done
exit '"$2"
}

# mutant: exit_apply() without EXIT_JUDGED (the old runner): it reports
# for the worker again and the sweep rejects it a second time.
@test "run: a false report rejected while its worker runs costs one attempt: the runner does not report it again when the worker exits 0" {
	daicho add liar --done-when file:out.txt --max-attempts 2 >/dev/null
	judged_liar liar 0
	ok daicho run --retry-backoff 50ms -- "$BIN/liar" "$TEST_ROOT"
	assert_summary "daicho run: 1 verified, 0 failed, 0 retried, 1 false report caught, "
	[ "$(count_events rejected 1)" -eq 1 ] || fail "rejected $(count_events rejected 1) times"
	run task_row 1
	[[ "$output" == "verified|2|run"* ]] || fail "task: $output"
	run sql "SELECT $(json_field outcome) FROM events WHERE task = 1 AND kind = 'exit' ORDER BY id LIMIT 1"
	assert_output "its report was rejected while it ran; launched again"
	# The claim stayed with the runner's agent: no release in between.
	[ "$(count_events release 1)" -eq 0 ] || fail "released: $(event_kinds 1)"
}

# mutant: EXIT_JUDGED only for exit 0: the crash spends a second attempt
# and the task fails before its second launch.
@test "run: a worker that lies, is rejected, then crashes is launched again: the crash is not a second failed attempt" {
	daicho add liar --done-when file:out.txt --max-attempts 2 >/dev/null
	judged_liar liar 1
	ok daicho run --retry-backoff 50ms -- "$BIN/liar" "$TEST_ROOT"
	assert_summary "daicho run: 1 verified, 0 failed, 0 retried, 1 false report caught, "
	run task_row 1
	[[ "$output" == "verified|2|run"* ]] || fail "task: $output"
	[ "$(count_events fail 1)" -eq 0 ]
}

@test "run: dependencies: a task waits until the one it comes after is verified" {
	daicho add first >/dev/null
	daicho add second --after 1 >/dev/null
	cap_worker
	ok daicho run -j 2 -- "$BIN/cap" "$TEST_ROOT/times" 0.2
	assert_summary "daicho run: 2 verified, 0 failed, 0 retried, 0 false reports caught, "
	# second started after first ended and after first's verified event.
	local e1 s2
	e1="$(awk '$1 == "E" && $3 == 1 { print $2 }' times)"
	s2="$(awk '$1 == "S" && $3 == 2 { print $2 }' times)"
	((s2 > e1)) || fail "second started before first ended"
	[ "$(sql "SELECT id FROM events WHERE task = 1 AND kind = 'verified'")" -lt \
		"$(sql "SELECT id FROM events WHERE task = 2 AND kind = 'claim'")" ]
}

@test "run --label runs only the tasks with that label" {
	daicho add red1 --label red >/dev/null
	daicho add blue --label blue >/dev/null
	daicho add red2 --label red >/dev/null
	ok daicho run --label red -- true
	assert_summary "daicho run: 2 verified, 0 failed, 0 retried, 0 false reports caught, "
	run states
	assert_output "verified open verified"
}

@test "run: the runner heart-beats a live worker's lease; nobody can take the task" {
	daicho add long >/dev/null
	daicho run --lease 1s -- sleep 2.2 >out.txt 2>err.txt &
	RUN_PID=$!
	wait_until 60 claimed_is 1
	sleep 1.5
	# The 1s lease would have run out without heart-beats.
	refused 4 daicho claim 1 --as intruder
	wait_exit 10 "$RUN_PID"
	[ "$status" -eq 0 ]
	[ "$(count_events lease-expired)" -eq 0 ]
	run event_kinds 1
	assert_output "add claim exit report verified"
}

# --- --worktree ------------------------------------------------------------

# mutant: warn_shared_tree() not called, or called with -j 1: the first
# or the last assertion fails.
@test "run: workers sharing one work tree while a task is checked on a commit: a warning that names --worktree; none with --worktree, -j 1 or no such task" {
	unset DAICHO_LEDGER
	local repo="$TEST_ROOT/repo"
	new_git_repo "$repo"
	cd "$repo"
	daicho init >/dev/null
	person daicho config land off
	daicho add free >/dev/null
	daicho add made --done-when file:made.txt >/dev/null
	write_worker quiet 'exit 0'
	capture daicho run -j 2 --label none -- "$BIN/quiet"
	[[ "$stderr" != *"share one work tree"* ]] || fail "warned with no task to run: $stderr"
	capture daicho run -j 2 --timeout 5s --retries 0 -- "$BIN/quiet"
	[[ "$stderr" == *"daicho run: warning: 2 workers share one work tree, and task #2 is checked on a commit"*"give --worktree"* ]] ||
		fail "no warning: $stderr"
	daicho reopen 2 >/dev/null 2>&1 || person daicho reopen 2 >/dev/null
	capture daicho run -j 1 --retries 0 -- "$BIN/quiet"
	[[ "$stderr" != *"share one work tree"* ]] || fail "warned at -j 1: $stderr"
	daicho reopen 2 >/dev/null 2>&1 || person daicho reopen 2 >/dev/null || true
	capture daicho run -j 2 --worktree --retries 0 -- "$BIN/quiet"
	[[ "$stderr" != *"share one work tree"* ]] || fail "warned with --worktree: $stderr"
}

@test "run --worktree: a worktree add that loses git's race is tried again" {
	unset DAICHO_LEDGER
	local repo="$TEST_ROOT/repo"
	new_git_repo "$repo"
	cd "$repo"
	daicho init >/dev/null
	daicho add t >/dev/null
	write_worker quiet 'exit 0'
	fake_worktree_add_failure once
	capture daicho run --worktree -- "$BIN/quiet"
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	assert_summary "daicho run: 1 verified, 0 failed, 0 retried, 0 false reports caught, "
	[ "$(wc -l <"$TEST_ROOT/fakegit/tries")" -eq 2 ]
}

@test "run --worktree: a task that commits keeps its worktree and branch and is verified at that commit; one that changes nothing is removed" {
	unset DAICHO_LEDGER
	local repo="$TEST_ROOT/repo"
	new_git_repo "$repo"
	cd "$repo"
	daicho init >/dev/null
	L="$repo/.git/daicho/ledger.db"
	[ -f "$L" ]
	# The worktrees' own story: what lands is land.bats's.
	person daicho config land off
	local base
	base="$(git rev-parse HEAD)"
	daicho add commits --done-when file:made.txt --done-when commit >/dev/null
	daicho add nothing >/dev/null
	write_worker wt 'out="$1"
pwd -P >"$out/pwd.$DAICHO_TASK"
git rev-parse --abbrev-ref HEAD >"$out/branch.$DAICHO_TASK"
git rev-parse HEAD >"$out/base.$DAICHO_TASK"
if [ "$DAICHO_TASK" = 1 ]; then
	echo made >made.txt
	git add made.txt
	git commit -q -m "task 1"
fi'
	mkdir "$TEST_ROOT/o"
	capture daicho run -j 2 --worktree -- "$BIN/wt" "$TEST_ROOT/o"
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	assert_summary "daicho run: 2 verified, 0 failed, 0 retried, 0 false reports caught, "
	# Outside .git, where Claude Code refuses to write: in the project.
	local wt="$repo/.daicho-worktrees"
	for id in 1 2; do
		run cat "$TEST_ROOT/o/pwd.$id"
		assert_output "$(cd "$repo" && pwd -P)/.daicho-worktrees/$id"
		run cat "$TEST_ROOT/o/branch.$id"
		assert_output "daicho/$id"
		run cat "$TEST_ROOT/o/base.$id"
		assert_output "$base"
	done
	# Task 1: its commit is what was reported and verified; worktree and
	# branch kept.
	local head1
	head1="$(git rev-parse daicho/1)"
	[ "$head1" != "$base" ]
	[ "$(git rev-parse "daicho/1^")" = "$base" ]
	run task_field 1 state
	assert_output verified
	run task_field 1 commit
	assert_output "$head1"
	# The ledger is the repository's SQLite file, whatever the suite's back end.
	run sql "SELECT $(DAICHO_TEST_BACKEND=sqlite json_field commit) FROM events WHERE task = 1 AND kind = 'verified'"
	assert_output "$head1"
	[ -f "$wt/1/made.txt" ]
	run git worktree list --porcelain
	assert_output --partial "worktree $wt/1"
	# Task 2: no changes, verified, its worktree (and branch) gone.
	run task_field 2 state
	assert_output verified
	[ ! -e "$wt/2" ]
	run git worktree list --porcelain
	refute_output --partial "worktree $wt/2"
	run git branch --list 'daicho/2'
	assert_output ""
	# The main checkout is untouched, and git does not show the worktrees
	# (info/exclude, nothing committed).
	[ "$(git rev-parse HEAD)" = "$base" ]
	[ ! -e made.txt ]
	run git status --porcelain
	assert_output ""
	grep -qx '/.daicho-worktrees/' "$repo/.git/info/exclude"
	# Once task 1's branch is merged, the sweep removes its worktree and
	# branch.
	git merge -q --ff-only daicho/1
	run daicho sweep
	assert_output --partial ", 1 worktree pruned,"
	[ ! -e "$wt/1" ]
	run git branch --list 'daicho/*'
	assert_output ""
}

@test "run --worktree-dir: worktrees where asked; a failed run leaves no empty worktree nor branch; work is kept until merged" {
	unset DAICHO_LEDGER
	local repo="$TEST_ROOT/repo"
	new_git_repo "$repo"
	cd "$repo"
	daicho init >/dev/null
	L="$repo/.git/daicho/ledger.db"
	daicho add fails >/dev/null
	daicho add leaves-a-file >/dev/null
	daicho add commits >/dev/null
	# Every attempt fails: task 1 writes nothing, task 2 leaves an
	# uncommitted file, task 3 commits.
	write_worker wtfail 'pwd -P >"$1/pwd.$DAICHO_TASK"
case "$DAICHO_TASK" in
2) echo draft >draft.txt ;;
3) echo done >done.txt; git add done.txt; git commit -q -m "task 3" ;;
esac
exit 1'
	mkdir "$TEST_ROOT/o"
	capture daicho run -j 3 --retries 0 --worktree-dir ../wts -- "$BIN/wtfail" "$TEST_ROOT/o"
	[ "$status" -eq 1 ] || fail "exit $status: $stderr"
	assert_summary "daicho run: 0 verified, 3 failed, 0 retried, 0 false reports caught, "
	local wts="$TEST_ROOT/wts"
	[ "$(cat "$TEST_ROOT/o/pwd.1")" = "$(cd "$TEST_ROOT" && pwd -P)/wts/1" ]
	# Task 1's empty worktree and branch are gone; 2 and 3 hold work.
	[ ! -e "$wts/1" ]
	[ -f "$wts/2/draft.txt" ]
	[ -f "$wts/3/done.txt" ]
	run git branch --list 'daicho/*'
	assert_output $'+ daicho/2\n+ daicho/3'
	# A directory outside the work tree is not added to info/exclude.
	run grep -c wts "$repo/.git/info/exclude"
	assert_output 0
	# The sweep keeps what is not safe elsewhere: the uncommitted file, the
	# unmerged commit.
	run daicho sweep
	assert_output --partial ", 0 worktrees pruned,"
	[ -e "$wts/2" ]
	[ -e "$wts/3" ]
	rm "$wts/2/draft.txt"
	git merge -q --ff-only daicho/3
	run daicho sweep
	assert_output --partial ", 2 worktrees pruned,"
	[ ! -e "$wts/2" ]
	[ ! -e "$wts/3" ]
	run git branch --list 'daicho/*'
	assert_output ""
	run git worktree list --porcelain
	refute_output --partial "$wts"
}

# --- crash safety ------------------------------------------------------------

# start_then_kill9 N: 3 tasks, `daicho run -j 2 -- sleep 30.6` in the
# background until N tasks are claimed, then kill -9 of the runner.
start_then_kill9() {
	for i in 1 2 3; do daicho add "t$i" >/dev/null; done
	daicho run -j 2 -- sleep 30.6 >out1.txt 2>err1.txt &
	RUN_PID=$!
	wait_until 60 claimed_is 2
	# Let both workers start.
	wait_until 60 claims_are 2
	sleep 0.2
	kill -KILL "$RUN_PID"
	wait "$RUN_PID" 2>/dev/null || true
	RUN_PID=
}

@test "run: after kill -9 of a runner, the next run takes its tasks at once and says so" {
	start_then_kill9
	run states
	assert_output "claimed claimed open"
	local t0 t1
	t0="$(now_ms)"
	capture daicho run -j 2 -- true
	t1="$(now_ms)"
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	# Well before the 30m lease.
	((t1 - t0 < 10000)) || fail "took $((t1 - t0)) ms"
	assert_summary "daicho run: 3 verified, 0 failed, 0 retried, 0 false reports caught, 2 recovered from a dead runner, "
	run sql "SELECT id || ' ' || state || ' ' || attempts FROM tasks ORDER BY id"
	assert_output $'1 verified 2\n2 verified 2\n3 verified 1'
	[ "$(count_events lease-expired 1)" -eq 1 ]
	[ "$(count_events lease-expired 2)" -eq 1 ]
	run sql "SELECT task, count(*) FROM events WHERE kind = 'verified' GROUP BY task ORDER BY task"
	assert_output $'1|1\n2|1\n3|1'
}

@test "run: after kill -9 of a runner, its workers do not keep running tasks taken over by the next run" {
	start_then_kill9
	capture daicho run -j 2 -- true
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	# Tasks 1 and 2 were run again: the dead run's workers for them must
	# be gone (else a task runs twice at once).
	assert_no_workers_left
}

# refuse_reports: the ledger refuses every move of a task to reported (a
# trigger, on either back end), so a runner's first report fails.
refuse_reports() {
	if backend_is_postgresql; then
		sql "CREATE FUNCTION refuse_reports() RETURNS trigger LANGUAGE plpgsql AS \$\$
		     BEGIN IF NEW.state = 'reported' THEN RAISE EXCEPTION 'reports refused here'; END IF;
		     RETURN NEW; END \$\$" >/dev/null
		sql "CREATE TRIGGER refuse_reports BEFORE UPDATE ON tasks FOR EACH ROW
		     EXECUTE FUNCTION refuse_reports()" >/dev/null
	else
		sql "CREATE TRIGGER refuse_reports BEFORE UPDATE OF state ON tasks
		     WHEN NEW.state = 'reported'
		     BEGIN SELECT RAISE(ABORT, 'reports refused here'); END" >/dev/null
	fi
}

@test "run: a run that ends on an error leaves its held claims to the next run, which takes them at once" {
	daicho add t1 >/dev/null
	daicho add t2 >/dev/null
	refuse_reports
	# Task 1's worker exits at once and its report is refused: the run
	# ends on that error while task 2's worker still runs.
	capture daicho run -j 2 -- sh -c '[ "$1" = 1 ] || sleep 30.6' sh {id}
	[ "$status" -eq 1 ] || fail "exit $status: $stderr"
	stderr_contains "reports refused here"
	run states
	assert_output "claimed claimed"
	# Its worker agents hold claims: they are not ended (ended, their
	# claims would wait out the 30-minute lease).
	run sql "SELECT count(*) FROM agents WHERE role = 'run' AND state <> 'ended'"
	assert_output 2
	if backend_is_postgresql; then
		sql "DROP TRIGGER refuse_reports ON tasks" >/dev/null
	else
		sql "DROP TRIGGER refuse_reports" >/dev/null
	fi
	local t0 t1
	t0="$(now_ms)"
	capture daicho run -j 2 -- true
	t1="$(now_ms)"
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	((t1 - t0 < 10000)) || fail "took $((t1 - t0)) ms"
	assert_summary "daicho run: 2 verified, 0 failed, 0 retried, 0 false reports caught, 2 recovered from a dead runner, "
	# The first run's worker for task 2 was stopped before it was run again.
	assert_no_workers_left
}

# --- bad input -----------------------------------------------------------------

@test "run: bad input is refused with exit 2 and changes nothing" {
	daicho add a >/dev/null
	snapshot_ledger
	refused 2 daicho run
	stderr_contains "needs a command"
	refused 2 daicho run --
	refused 2 daicho run -j 0 -- true
	refused 2 daicho run -j -- true
	refused 2 daicho run -j abc -- true
	refused 2 daicho run --timeout 5x -- true
	refused 2 daicho run --retry-backoff 0.5 -- true
	refused 2 daicho run --retries -1 -- true
	refused 2 daicho run --budget-tokens x -- true
	refused 2 daicho run --budget-cost 0 -- true
	refused 2 daicho run --rate-limit-pattern '(' -- true
	refused 2 daicho run --bogus -- true
	stderr_contains "--bogus"
	assert_ledger_unchanged
	run sql "SELECT count(*) FROM agents WHERE role = 'run'"
	assert_output 0
}

@test "run: a command that does not exist is an error; the tasks stay claimable" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	refused 1 daicho run -- "$TEST_ROOT/no-such-command"
	stderr_contains "no-such-command"
	refused 1 daicho run -- no-such-command-on-path-xyz
	run sql_joined , "SELECT state || ' ' || attempts || ' ' || coalesce(CAST(owner AS TEXT), '-') FROM tasks ORDER BY id"
	assert_output "open 0 -,open 0 -"
	run daicho claim --next --as other
	assert_output 1
	assert_no_workers_left
}

@test "run: a command that stops existing mid-run ends the run with its reason; the task it could not start stays claimable" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	# The first worker removes the command: the second launch cannot exec.
	printf '#!/bin/sh\nrm -f "$0"\n' >"$TEST_ROOT/once"
	chmod +x "$TEST_ROOT/once"
	capture daicho run -q -j 1 -- "$TEST_ROOT/once"
	assert_refused 1
	assert_equal "$stderr" "daicho: cannot run $TEST_ROOT/once (No such file or directory)"
	run sql_joined , "SELECT state || ' ' || attempts || ' ' || coalesce(CAST(owner AS TEXT), '-') FROM tasks WHERE id = 2"
	assert_output "open 0 -"
	[ "$(daicho show --json 1 | jq -r .state)" = verified ]
	# The event log says what became of the launch.
	ok daicho events --json
	run jq -r '.[] | select(.kind == "exit" and .task == 2) | .detail.outcome' <<<"$output"
	assert_output "could not start; left claimable"
	run daicho claim --next --as other
	assert_output 2
	assert_no_workers_left
}

@test "run -j 8: a command whose #! interpreter is missing ends the run with its reason and leaves no task claimed" {
	for t in a b c d e f g h; do daicho add "$t" >/dev/null; done
	printf '#!/nonexistent/interpreter\n' >"$TEST_ROOT/broken"
	chmod +x "$TEST_ROOT/broken"
	capture daicho run -q -j 8 -- "$TEST_ROOT/broken"
	assert_refused 1
	assert_equal "$stderr" "daicho: cannot run $TEST_ROOT/broken (No such file or directory)"
	run sql_joined , "SELECT count(*) FROM tasks WHERE state <> 'open' OR attempts <> 0"
	assert_output 0
	assert_no_workers_left
}

@test "run: a worker that exits 127 itself spends its attempts: it cannot pass for one that could not start" {
	daicho add a >/dev/null
	# 127 is what a child that cannot exec exits with; only the runner's
	# own report of the failed exec gives a claim back unspent.
	capture daicho run -q -j 1 --retries 1 --retry-backoff 10ms -- sh -c 'exit 127'
	[ "$status" -ne 0 ] || fail "the run succeeded: $output"
	[[ "$stderr" != *"cannot run"* ]] || fail "taken for a start failure: $stderr"
	run sql_joined , "SELECT state || ' ' || attempts FROM tasks"
	assert_output "failed 2"
	ok daicho events --json
	run jq -r '[.[] | select(.kind == "exit") | .detail.outcome] | unique | join(",")' <<<"$output"
	assert_output "failed attempt"
	assert_no_workers_left
}

@test "run: a script without #! is run by /bin/sh, as execvp() runs it" {
	daicho add a >/dev/null
	# shellcheck disable=SC2016
	printf 'echo "ran $0 with $1"\n' >"$TEST_ROOT/plain"
	chmod +x "$TEST_ROOT/plain"
	ok daicho run -q -- "$TEST_ROOT/plain" '{id}'
	[ "$(daicho show --json 1 | jq -r .state)" = verified ]
	run daicho logs 1
	assert_output "ran $TEST_ROOT/plain with 1"
}

@test "run: a live worker keeps its claim past the maximum hold: the runner names its task" {
	daicho add slow >/dev/null
	# A 1 s lease and a 2 s hold; the worker runs 4 s without naming its task.
	ok daicho run -q -j 1 --lease 1s --max-hold 2s -- sleep 4
	[ "$(daicho show --json 1 | jq -r .state)" = verified ]
	ok daicho events --json
	run jq -c '[.[] | select(.kind == "lease-expired")]' <<<"$output"
	assert_output '[]'
}

@test "run says first how many open tasks it takes and from which ledger; --label takes one batch" {
	daicho add old-one >/dev/null
	daicho add old-two --after 1 >/dev/null
	printf '{"title":"new %s"}\n' 1 2 3 >"$TEST_ROOT/batch.jsonl"
	daicho add --batch "$TEST_ROOT/batch.jsonl" --label b2 >/dev/null
	capture daicho run --label b2 -j 3 -- true
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	assert_equal "${lines[0]}" "daicho run: 3 open tasks labelled b2 in $DAICHO_LEDGER (3 ready, 0 after others), 3 at once"
	assert_summary "daicho run: 3 verified, 0 failed, 0 retried, 0 false reports caught, "
	run sql_joined , "SELECT state FROM tasks ORDER BY id"
	assert_output "open,open,verified,verified,verified"
	# Without --label: every open task, and the hint that a label scopes it.
	capture daicho run -j 1 -- true
	assert_equal "${lines[0]}" "daicho run: 2 open tasks in $DAICHO_LEDGER (1 ready, 1 after others), 1 at once; every label ('--label L' takes one batch)"
	assert_summary "daicho run: 2 verified, 0 failed, 0 retried, 0 false reports caught, "
	# A label with nothing open says so, and the run ends at once.
	capture daicho run --label b2 -- true
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "daicho run: 0 open tasks labelled b2 in "* ]] || fail "$output"
}

@test "run: a command that cannot run is refused before any task is claimed" {
	daicho add a >/dev/null
	printf 'x' >"$TEST_ROOT/not-executable"
	snapshot_ledger
	refused 1 daicho run -- "$TEST_ROOT/not-executable"
	stderr_contains "Permission denied"
	refused 1 daicho run -- "$TEST_ROOT"
	assert_ledger_unchanged
	PATH="$TEST_ROOT:$PATH" refused 1 daicho run -- not-executable
}
