#!/usr/bin/env bats
# daicho status --watch: the live view. On a pseudo-terminal (util-linux
# script) it redraws in place when another process changes the ledger,
# fits the terminal, puts NEEDS YOU first and gives the terminal back on
# exit; elsewhere it prints plain frames, or JSON lines with --json.

load helpers

setup() {
	common_setup
	export TERM=xterm
	WATCH_PID=""
	BACKGROUND_PID=""
}

teardown() {
	# Only the processes this test started, by their pids.
	if [ -n "$WATCH_PID" ]; then
		kill "$WATCH_PID" 2>/dev/null || true
	fi
	if [ -n "$BACKGROUND_PID" ]; then
		kill "$BACKGROUND_PID" 2>/dev/null || true
		wait "$BACKGROUND_PID" 2>/dev/null || true
	fi
}

# watch_on_pty ROWS COLUMNS [ARG...]: start 'daicho status --watch ARG...'
# on a pseudo-terminal of ROWS x COLUMNS, in the background. Sets
# WATCH_PID (daicho's pid), BACKGROUND_PID (the script around it) and
# WATCH_OUT (what the terminal was sent), and waits for the first frame.
watch_on_pty() {
	local rows="$1" columns="$2" args=""
	shift 2
	[ "$#" -eq 0 ] || printf -v args '%q ' "$@"
	WATCH_OUT="$TEST_ROOT/watch.out"
	rm -f "$TEST_ROOT/watch.pid"
	# fd 3 closed: bats waits for background jobs that hold it.
	timeout 60 script -qec "stty rows $rows cols $columns; echo \$\$ >'$TEST_ROOT/watch.pid'; exec daicho status --watch $args" \
		/dev/null </dev/null >"$WATCH_OUT" 2>&1 3>&- &
	BACKGROUND_PID=$!
	wait_for_output 'NEEDS YOU'
	WATCH_PID="$(cat "$TEST_ROOT/watch.pid")"
}

# watch_in_background FILE [ARG...]: start 'daicho status --watch ARG...'
# with stdout to FILE (not a terminal), in the background. (Not under
# timeout(1): it would pass a SIGTERM on to its whole process group, itself
# included; teardown stops daicho if the test does not.)
watch_in_background() {
	WATCH_OUT="$1"
	shift
	daicho status --watch "$@" >"$WATCH_OUT" 2>"$TEST_ROOT/watch.err" 3>&- &
	BACKGROUND_PID=$!
	WATCH_PID=$BACKGROUND_PID
}

# wait_for_output TEXT [COUNT]: wait (up to 3 s, looking every 50 ms) until
# TEXT is in WATCH_OUT at least COUNT times (1).
wait_for_output() {
	local count="${2:-1}"
	for _ in $(seq 1 60); do
		if [ "$(grep -aoF -- "$1" "$WATCH_OUT" 2>/dev/null | wc -l)" -ge "$count" ]; then
			return 0
		fi
		sleep 0.05
	done
	fail "'$1' did not appear $count time(s) within 3 s: $(cat -v "$WATCH_OUT")"
}

# stop_watch SIGNAL: send SIGNAL to daicho; sets status to its exit status
# (as script or timeout, around it, pass it on).
stop_watch() {
	kill -"$1" "$WATCH_PID"
	status=0
	wait "$BACKGROUND_PID" || status=$?
	WATCH_PID="" BACKGROUND_PID=""
}

# last_frame: the last frame drawn on the terminal, as plain lines (the
# text after the last cursor-home, escape sequences and CRs removed).
last_frame() {
	python3 - "$WATCH_OUT" <<'EOF'
import re, sys
data = open(sys.argv[1], 'rb').read().decode('utf-8')
frame = data.rsplit('\x1b[H', 1)[-1]
frame = re.sub(r'\x1b\[[0-9;?]*[A-Za-z]', '', frame).replace('\r', '')
sys.stdout.write(frame.rstrip('\n') + '\n')
EOF
}

@test "watch on a terminal: a task added by another process appears, in place, within a second or two" {
	daicho add "first task" >/dev/null
	watch_on_pty 24 100
	wait_for_output 'first task'
	# The alternate screen, the cursor hidden, and each frame drawn from
	# the cursor's home with lines and the rest erased, not cleared.
	grep -qaF $'\e[?1049h\e[?25l' "$WATCH_OUT" || fail "no alternate screen: $(cat -v "$WATCH_OUT")"
	grep -qaF $'\e[K' "$WATCH_OUT" || fail "lines not erased to their end"
	grep -qaF $'\e[J' "$WATCH_OUT" || fail "the rest of the screen not erased"
	daicho add "added while watching" >/dev/null
	wait_for_output 'added while watching'
	last_frame >"$TEST_ROOT/frame"
	grep -q 'added #2 added while watching' "$TEST_ROOT/frame" ||
		fail "the event is not a sentence: $(cat "$TEST_ROOT/frame")"
	grep -q '^TASKS open 2,' "$TEST_ROOT/frame" || fail "$(cat "$TEST_ROOT/frame")"
	stop_watch TERM
}

@test "watch on a terminal: an approval request from another process shows under NEEDS YOU, before every other section" {
	daicho gate add 'git push*' --approval >/dev/null
	daicho agent start w1 >/dev/null
	watch_on_pty 30 120
	wait_for_output 'NEEDS YOU: nothing'
	capture daicho gate exec --as w1 -- git push origin main
	[ "$status" -eq 6 ] || fail "gate exec: exit $status: $stderr"
	wait_for_output "approval #1: w1 asks to run 'git push origin main'"
	last_frame >"$TEST_ROOT/frame"
	run cat "$TEST_ROOT/frame"
	assert_line --index 0 "NEEDS YOU (1)"
	assert_line --index 1 --partial "approval #1: w1 asks to run 'git push origin main'"
	assert_line --index 2 --partial "resolve: daicho approve 1 | daicho deny 1"
	agents="$(grep -n '^AGENTS' "$TEST_ROOT/frame" | cut -d: -f1)"
	recent="$(grep -n '^RECENT' "$TEST_ROOT/frame" | cut -d: -f1)"
	[ "$agents" -gt 3 ] && [ "$recent" -gt "$agents" ] || fail "sections out of order: $(cat "$TEST_ROOT/frame")"
	grep -q "w1 asked to run 'git push origin main' (request #1)" "$TEST_ROOT/frame" ||
		fail "the request is not a sentence under RECENT: $(cat "$TEST_ROOT/frame")"
	stop_watch TERM
}

@test "watch on a terminal: SIGTERM and SIGINT give the screen and cursor back and exit 0" {
	for signal in TERM INT; do
		watch_on_pty 24 80
		stop_watch "$signal"
		[ "$status" -eq 0 ] || fail "exit $status after SIG$signal: $(cat -v "$WATCH_OUT")"
		# The last thing sent: the cursor shown, the normal screen back.
		[[ "$(cat "$WATCH_OUT")" == *$'\e[J\e[?25h\e[?1049l' ]] ||
			fail "terminal not restored after SIG$signal: $(tail -c 80 "$WATCH_OUT" | cat -v)"
	done
}

@test "watch on a terminal: q quits, and the terminal's mode (echo, line editing) comes back" {
	# script passes what comes on its stdin to the terminal, as typed: q
	# once the first frame is drawn.
	{
		for _ in $(seq 1 100); do
			grep -q "NEEDS YOU" "$TEST_ROOT/q.out" 2>/dev/null && break
			sleep 0.05
		done
		printf q
		sleep 1
	} | timeout 20 script -qec \
		"stty -a | grep -o ' -\?icanon\| -\?echo ' | tr -d ' ' | tr '\n' ' '; echo; daicho status --watch; echo 'watch exit' \$?; stty -a | grep -o ' -\?icanon\| -\?echo ' | tr -d ' ' | tr '\n' ' '" \
		/dev/null >"$TEST_ROOT/q.out" 2>&1 || fail "script: exit $?: $(cat -v "$TEST_ROOT/q.out")"
	output="$(tr -d '\r' <"$TEST_ROOT/q.out")"
	assert_output --partial 'watch exit 0'
	before="$(head -n 1 <<<"$output")"
	after="$(tail -n 1 <<<"$output")"
	[ "$before" = "icanon echo " ] || fail "unexpected terminal mode before: '$before'"
	[ "$after" = "$before" ] || fail "terminal mode not restored: '$after', was '$before'"
}

@test "watch on a terminal: lines are cut to the width, the frame to the height, NEEDS YOU kept first" {
	daicho agent start w1 >/dev/null
	# A title of wide characters (two columns each), cut among them.
	daicho add "台帳の見出しは四十桁に収まらないほど長い" >/dev/null
	for i in 2 3 4 5 6 7 8; do
		daicho add "task $i with a rather long title that cannot fit in forty columns" >/dev/null
	done
	for i in 1 2 3 4 5 6 7 8; do
		daicho claim "$i" --as w1 >/dev/null
		daicho block "$i" --reason "question $i" --as w1 >/dev/null
	done
	watch_on_pty 15 40
	wait_for_output 'more'
	last_frame >"$TEST_ROOT/frame"
	python3 - "$TEST_ROOT/frame" <<'EOF' || fail "$(cat "$TEST_ROOT/frame")"
import sys, unicodedata
lines = open(sys.argv[1], encoding='utf-8').read().split('\n')
if lines and lines[-1] == '':
    lines.pop()
assert len(lines) <= 15, 'more lines than rows: %d' % len(lines)
for line in lines:
    width = sum(2 if unicodedata.east_asian_width(c) in 'WF' else 1 for c in line)
    assert width < 40, 'line wider than the terminal: %r (%d)' % (line, width)
EOF
	run cat "$TEST_ROOT/frame"
	assert_line --index 0 "NEEDS YOU (8)"
	# A line cut at the width ends with "…", never inside a character
	# (last_frame decodes the output as UTF-8: a split one would fail).
	assert_line --index 1 --regexp '^  #1 blocked by w1: 台帳の見出し.*…$'
	assert_line --index 3 --regexp '^  #2 blocked by w1: task 2 with a.*…$'
	assert_line --regexp '^  \.\.\. [0-9]+ more$'
	stop_watch TERM
	# The terminal grows: redrawn to the new size at once (SIGWINCH).
	watch_on_pty 15 40
	stty -F "$(readlink "/proc/$WATCH_PID/fd/1")" rows 60 cols 200
	kill -WINCH "$WATCH_PID"
	wait_for_output 'NEEDS YOU (8)' 2
	last_frame >"$TEST_ROOT/frame"
	grep -q 'task 8 with a rather long title that cannot fit in forty columns' "$TEST_ROOT/frame" ||
		fail "not redrawn to 200 columns: $(cat "$TEST_ROOT/frame")"
	grep -q '台帳の見出しは四十桁に収まらないほど長い' "$TEST_ROOT/frame" ||
		fail "$(cat "$TEST_ROOT/frame")"
	stop_watch TERM
}

@test "watch waits without polling: an idle watch uses (almost) no CPU" {
	watch_on_pty 24 80
	sleep 2
	# utime and stime, in clock ticks (1/100 s): a poll loop would spend
	# far more than a few ticks in two seconds.
	read -r -a stat <"/proc/$WATCH_PID/stat"
	[ $((stat[13] + stat[14])) -le 10 ] || fail "busy while idle: ${stat[13]} + ${stat[14]} ticks"
	stop_watch TERM
}

@test "watch with stdout not a terminal: a plain frame after a '--- TIME' line each time the ledger changes" {
	watch_in_background "$TEST_ROOT/plain.out"
	wait_for_output 'NEEDS YOU: nothing'
	daicho add "plain change" >/dev/null
	wait_for_output 'added #1 plain change'
	daicho agent start w1 >/dev/null
	wait_for_output 'w1 joined (script)'
	stop_watch TERM
	[ "$status" -eq 0 ] || fail "exit $status: $(cat "$TEST_ROOT/watch.err")"
	[ ! -s "$TEST_ROOT/watch.err" ] || fail "stderr: $(cat "$TEST_ROOT/watch.err")"
	run cat "$TEST_ROOT/plain.out"
	refute_output --partial $'\e'
	assert_line --index 0 --regexp '^--- [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$'
	assert_line --index 1 'NEEDS YOU: nothing'
	# One frame a change: the start, the task, the agent.
	[ "$(grep -c '^--- ' "$TEST_ROOT/plain.out")" -eq 3 ] || fail "frames: $output"
	# Each frame is the whole status, as plain 'status' prints it.
	[ "$(grep -c '^TASKS ' "$TEST_ROOT/plain.out")" -eq 3 ] || fail "$output"
}

@test "watch --json: one status document a line each time the ledger changes" {
	watch_in_background "$TEST_ROOT/json.out" --json
	wait_for_output '"needs_you"'
	daicho add "json change" >/dev/null
	wait_for_output '"json change"'
	stop_watch TERM
	[ "$status" -eq 0 ]
	[ "$(wc -l <"$TEST_ROOT/json.out")" -eq 2 ] || fail "$(cat "$TEST_ROOT/json.out")"
	jq -e -s 'length == 2 and all(.[]; (.needs_you | type) == "array" and (.tasks | type) == "object")
		and .[0].tasks.open == 0 and .[1].tasks.open == 1
		and (.[1].events | last | .kind == "add" and .title == "json change")' \
		"$TEST_ROOT/json.out" >/dev/null || fail "$(cat "$TEST_ROOT/json.out")"
}

@test "watch with TERM=dumb on a terminal: plain frames, no escape sequences" {
	export TERM=dumb
	watch_on_pty 24 80
	stop_watch TERM
	[ "$status" -eq 0 ]
	run cat "$WATCH_OUT"
	refute_output --partial $'\e'
	assert_line --index 0 --regexp '^--- '
}

@test "watch: bad input is refused with one line, exit 2, before anything is drawn" {
	refused 2 daicho status --watch --bogus
	stderr_contains "unknown option '--bogus'"
	refused 2 daicho status --watch=1
	stderr_contains "option '--watch' takes no value"
	refused 2 daicho status --watch extra
	refused 2 daicho status --watch --events many
	refused 2 daicho status --watch --stale-after soon
	on_pty daicho status --watch --bogus
	[ "$status" -eq 2 ]
	[[ "$output" != *$'\e'* ]] || fail "the terminal was drawn on: $(cat -v <<<"$output")"
}

@test "status --help documents --watch: its forms, keys and exit" {
	ok daicho status --help
	assert_output --partial '-w, --watch'
	assert_output --partial 'alternate screen'
	assert_output --partial '"--- TIME"'
	assert_output --partial 'with --json, the JSON below, one line'
	ok daicho help --man
	assert_output --partial 'status [\-\-events N] [\-\-stale\-after DUR] [\-\-all] [\-\-watch]'
}
