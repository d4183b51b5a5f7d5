# Set-up shared by run.bats (daicho run, the execution engine).
#
# On top of helpers.bash (a fresh directory $TEST_ROOT per test, its ledger
# in $DAICHO_LEDGER, no agent identity, ./daicho first on PATH): a bin/
# directory of small worker scripts, and helpers to find the worker
# processes a test left behind, to wait for a condition, and to compute how
# many workers overlapped.

# shellcheck source=tests/cli/helpers.bash
source "${BATS_TEST_DIRNAME}/helpers.bash"

run_setup() {
	common_setup
	# L: the ledger whose workers this test watches (worker_pids).
	L="$DAICHO_LEDGER"
	BIN="$TEST_ROOT/bin"
	mkdir -p "$BIN"
	RUN_PID=
}

setup() {
	run_setup
}

teardown() {
	# End what a failed test left running: the runner it started in the
	# background (by its pid) and any worker of this test's ledger (by pid).
	if [ -n "${RUN_PID:-}" ] && kill -0 "$RUN_PID" 2>/dev/null; then
		kill -KILL "$RUN_PID" 2>/dev/null || true
	fi
	local pid
	for pid in $(worker_pids); do
		kill -KILL "$pid" 2>/dev/null || true
	done
}

# worker_pids [LEDGER]: the live processes started as workers of LEDGER
# (default $L) or by them: their environment holds DAICHO_TASK and
# DAICHO_LEDGER naming that ledger (children inherit it). The test's own
# shell has DAICHO_LEDGER but no DAICHO_TASK. Zombies have no environment.
worker_pids() {
	local ledger="${1:-$L}"
	local -a files=()
	mapfile -t files < <(grep -lzxF "DAICHO_LEDGER=$ledger" /proc/[0-9]*/environ 2>/dev/null)
	[ "${#files[@]}" -gt 0 ] || return 0
	grep -lz '^DAICHO_TASK=' "${files[@]}" 2>/dev/null |
		sed -e 's|^/proc/||' -e 's|/environ$||'
}

# assert_no_workers_left [LEDGER]: no worker process of LEDGER is alive.
# (Gives a process just reaped by the runner a moment to disappear.)
assert_no_workers_left() {
	local left i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		left="$(worker_pids "$@")"
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	fail "worker processes still alive: $(for p in $left; do ps -o pid=,pgid=,args= -p "$p"; done)"
}

# wait_until SECONDS CMD...: poll CMD every 50 ms until it succeeds; fail
# after SECONDS.
wait_until() {
	local limit="$1" i
	shift
	for ((i = 0; i < limit * 20; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	fail "timed out after ${limit}s waiting for: $*"
}

# wait_exit SECONDS PID: wait for the background runner PID to end and set
# $status to its exit status; fail (after killing it) if it lives on.
wait_exit() {
	local limit="$1" pid="$2" i
	for ((i = 0; i < limit * 20; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		fail "the runner (pid $pid) did not end within ${limit}s"
	fi
	status=0
	wait "$pid" || status=$?
}

# sql QUERY: one query on the ledger $L (helpers.bash's sql reads
# $DAICHO_LEDGER, which the --worktree test unsets).
sql() {
	ledger_sql "$L" "$1"
}

# claimed_is N: exactly N tasks are claimed (for wait_until).
claimed_is() {
	[ "$(sql "SELECT count(*) FROM tasks WHERE state = 'claimed'")" -eq "$1" ]
}

# claims_are N: exactly N claim events so far (for wait_until).
claims_are() {
	[ "$(sql "SELECT count(*) FROM events WHERE kind = 'claim'")" -eq "$1" ]
}

# task_is ID STATE: task ID is in STATE (for wait_until).
task_is() {
	[ "$(sql "SELECT state FROM tasks WHERE id = $1")" = "$2" ]
}

# states: every task's state, by id, space-separated.
states() {
	sql_joined ' ' "SELECT state FROM tasks ORDER BY id"
}

# max_overlap FILE: the largest number of workers running at once, from
# lines "S <usec>" (start) and "E <usec>" (end). At equal times an end
# counts before a start.
max_overlap() {
	awk '{ print $2, ($1 == "S" ? 1 : 0) }' "$1" | sort -k1,1n -k2,2n |
		awk '{ c += ($2 == 1) ? 1 : -1; if (c > m) m = c } END { print m + 0 }'
}

# event_kinds ID: the kinds of task ID's events, oldest first.
event_kinds() {
	sql_joined ' ' "SELECT kind FROM events WHERE task = $1 ORDER BY id"
}

# count_events KIND [ID]: how many events of KIND (of task ID).
count_events() {
	if [ -n "${2:-}" ]; then
		sql "SELECT count(*) FROM events WHERE kind = '$1' AND task = $2"
	else
		sql "SELECT count(*) FROM events WHERE kind = '$1'"
	fi
}

# task_row ID: "state|attempts|owner name or -" from the ledger.
task_row() {
	sql "SELECT t.state || '|' || t.attempts || '|' || coalesce(a.name, '-')
		FROM tasks t LEFT JOIN agents a ON a.id = t.owner WHERE t.id = $1"
}

# SUMMARY_RE: the summary line's shape (stdout), up to its duration.
SUMMARY_RE='^daicho run: [0-9]+ verified, [0-9]+ failed, [0-9]+ retried, [0-9]+ false reports? caught(, .*)?, [0-9.]+(ms|s|m[0-9]+s|h[0-9]+m)$'

# TAKES_RE: the line run starts with (stdout): how many open tasks it
# takes, of which label, from which ledger (an absolute file path, or a
# PostgreSQL address), how many at once.
TAKES_RE='^daicho run: [0-9]+ open tasks?( labelled [^ ]+)? in (/|postgres(ql)?://|service=)[^ ]+ \([0-9]+ ready, [0-9]+ after others\)( and those added later)?, [0-9]+ at once(; every label \('"'"'--label L'"'"' takes one batch\))?$'

# logs_dir: the directory of the workers' logs of the ledger $L as run in
# $TEST_ROOT (outside any git repository): the ledger's local directory
# (ledger_local_dir()): the ledger file's directory on SQLite;
# <project root>/.daicho on PostgreSQL, whose ledger has no directory.
logs_dir() {
	if ledger_is_postgresql_address "$L"; then
		printf '%s/.daicho/logs\n' "$TEST_ROOT"
	else
		printf '%s/logs\n' "${L%/*}"
	fi
}

# assert_summary PREFIX: stdout is exactly two lines: what the run takes
# (TAKES_RE), then the summary, starting with PREFIX (e.g. "daicho run: 3
# verified, 0 failed, 0 retried, 0 false reports caught, "), then the
# duration and nothing else.
assert_summary() {
	[ "${#lines[@]}" -eq 2 ] || fail "expected two lines on stdout, got: '$output'"
	[[ "${lines[0]}" =~ $TAKES_RE ]] || fail "not what run takes: '${lines[0]}'"
	summary_is "${lines[1]}" "$1"
}

# assert_quiet_summary PREFIX: stdout is only the summary (run -q).
assert_quiet_summary() {
	[ "${#lines[@]}" -eq 1 ] || fail "expected one line on stdout, got: '$output'"
	summary_is "$output" "$1"
}

# summary_is LINE PREFIX: LINE is a summary starting with PREFIX, then the
# duration and nothing else.
summary_is() {
	[[ "$1" =~ $SUMMARY_RE ]] || fail "not a summary line: '$1'"
	[[ "$1" == "$2"* ]] || fail "expected the summary to start '$2', got: '$1'"
	local rest="${1#"$2"}"
	[[ "$rest" =~ ^[0-9.]+(ms|s|m[0-9]+s|h[0-9]+m)$ ]] ||
		fail "expected only a duration after '$2', got: '$rest'"
}

# now_ms: wall clock in milliseconds (no process started).
now_ms() {
	local t=$EPOCHREALTIME
	echo $((10#${t/./} / 1000))
}

# write_worker NAME BODY: an executable bash script $BIN/NAME.
write_worker() {
	printf '#!/usr/bin/env bash\n%s\n' "$2" >"$BIN/$1"
	chmod +x "$BIN/$1"
}
