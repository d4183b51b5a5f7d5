# Shared set-up for the stress tests (loaded with `load common`).
#
# Every test gets its own directory $T, a private copy of the daicho binary
# ($D, so a rebuild while the tests run cannot swap it under the workers) and
# a fresh ledger in $DAICHO_LEDGER.

STRESS_DIR=$BATS_TEST_DIRNAME
REPO=$(cd "$STRESS_DIR/../.." && pwd)
WORKER=$STRESS_DIR/worker.sh

# shellcheck source=tests/backend.bash
source "$REPO/tests/backend.bash"

# stress_setup [PARENT]: make $T under PARENT (default $BATS_TEST_TMPDIR),
# copy the binary there (and daicho-pg, which it hands PostgreSQL ledgers
# to) and create the ledger of the suite's back end (tests/backend.bash).
# Exports T, D, DAICHO_LEDGER.
stress_setup() {
	export LC_ALL=C
	unset DAICHO_AGENT DAICHO_BUSY_TIMEOUT DAICHO_NOW_MS \
	    CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID
	T=$(mktemp -d "${1:-$BATS_TEST_TMPDIR}/stress.XXXXXX")
	cp "${DAICHO:-$REPO/daicho}" "$T/daicho"
	D=$T/daicho
	if backend_is_postgresql; then
		cp "${DAICHO_PG:-$REPO/daicho-pg}" "$T/daicho-pg"
	fi
	DAICHO_LEDGER=$(new_ledger_address "$T/ledger.db") || return 1
	# Every daicho process appends how long it waited for the write lock.
	export T D DAICHO_LEDGER DAICHO_TRACE_LOCK=$T/lock.trace
	# A PostgreSQL ledger's work is where its commands run (on SQLite, the
	# ledger's directory): here, so that file: checks look in $T alike.
	cd "$T" || return 1
	"$D" init >/dev/null
	# DAICHO_TEST_POOL=1 on PostgreSQL: the workers' commands go through a
	# pool (daicho pool start), as many agents on one machine should. It stops
	# itself once the ledger has been idle for 20 seconds.
	if [ "${DAICHO_TEST_POOL:-}" = 1 ] && backend_is_postgresql; then
		"$D" pool start --idle 20s >/dev/null || return 1
	fi
	mkfifo "$T/nap.fifo"
}

# nap SECONDS: sleep without starting a process (a process costs ~3-8 ms
# here): a read with a timeout on a fifo nobody writes to.
nap() {
	if [[ -z ${NAP_FD:-} ]]; then
		exec {NAP_FD}<>"$T/nap.fifo"
	fi
	read -r -t "$1" -u "$NAP_FD" _ || true
}

# q SQL: run SQL on the ledger, plain output (ledger_sql).
q() {
	ledger_sql "$DAICHO_LEDGER" "$1"
}

# sql SQL: q, by the name tests/backend.bash's sql_joined calls.
sql() {
	q "$1"
}

# add_tasks N MAX_ATTEMPTS: add N tasks with one `add --batch`.
add_tasks() {
	local n=$1 max=$2 i
	for ((i = 1; i <= n; i++)); do
		printf '{"title":"stress task %d","max_attempts":%d}\n' "$i" "$max"
	done >"$T/batch.jsonl"
	"$D" add --batch "$T/batch.jsonl" >"$T/batch.ids"
	[ "$(wc -l <"$T/batch.ids")" -eq "$n" ]
	[ "$(q 'SELECT count(*) FROM tasks')" -eq "$n" ]
}

# now_us: wall clock in microseconds.
now_us() {
	local t=$EPOCHREALTIME
	echo $((10#${t/./}))
}

# fail_with MESSAGE: print MESSAGE (to the bats output) and fail.
fail_with() {
	printf '%s\n' "$@" >&2
	return 1
}

# timing_stats DIR: max, median, p99 and count of the per-command wall
# times recorded by worker.sh in DIR/*.times (column 4, microseconds), as
# "max_us median_us p99_us count".
timing_stats() {
	cat "$1"/*.times | awk '{ print $4 }' | sort -n | awk '
		{ v[NR] = $1 }
		END {
			if (NR == 0) { print "0 0 0 0"; exit }
			p = int(NR * 0.99); if (p < 1) p = 1
			printf "%d %d %d %d\n", v[NR], v[int((NR + 1) / 2)], v[p], NR
		}'
}

# An awk function: the worker name of a DIR/NAME.times file name.
AWK_WORKER='function worker(f) { sub(/.*\//, "", f); sub(/\.times$/, "", f); return f }'

# slowest DIR N: the N slowest recorded commands (for failure messages).
slowest() {
	awk '{ print $4, worker(FILENAME), $1, $2, "rc=" $3 }'" $AWK_WORKER" \
	    "$1"/*.times | sort -rn | head -n "$2"
}

# start_workers DIR LEASE NAME...: start one worker.sh per NAME, each in its
# own session (so `kill -9 -PID` kills it and its daicho child). Appends the
# pids to the array WORKER_PIDS.
start_workers() {
	local dir=$1 lease=$2 name
	shift 2
	mkdir -p "$dir"
	for name in "$@"; do
		setsid "$WORKER" "$D" "$name" "$lease" "$dir" &
		WORKER_PIDS+=($!)
	done
}

# progress: a number that grows whenever the ledger records something (an
# event, a message).
progress() {
	q "SELECT (SELECT coalesce(max(id), 0) FROM events) + (SELECT coalesce(max(id), 0) FROM messages)" 2>/dev/null || echo -1
}

# wait_workers SECONDS PID...: wait for the workers while the ledger moves.
# When it has recorded nothing for SECONDS (a hang: a slow machine still
# moves), kill what is left (process groups) and return 1. A test checks
# behaviour, not speed: a loaded machine may take many times longer.
# Only these pids are reaped: a caller's other children (a running sweep)
# are left to it.
wait_workers() {
	local stall_us=$(($1 * 1000000)) pid left last=-2 now moved looked=0
	shift
	local all=("$@")
	moved=$(now_us)
	while :; do
		left=()
		for pid in "$@"; do
			kill -0 "$pid" 2>/dev/null && left+=("$pid")
		done
		((${#left[@]} == 0)) && break
		# The ledger is looked at once a second, the workers ten times.
		if ((++looked % 10 == 0)); then
			now=$(progress)
			[ "$now" = "$last" ] || { last=$now; moved=$(now_us); }
		fi
		if (($(now_us) - moved > stall_us)); then
			for pid in "${left[@]}"; do
				kill_worker "$pid" || true
			done
			return 1
		fi
		set -- "${left[@]}"
		nap 0.1
	done
	for pid in "${all[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	return 0
}

# kill_worker PID: kill -9 a worker started in its own session, and the
# daicho it runs, wherever they are; reap it. Returns 1 when it had already
# ended. (Right after the start the worker may not have called setsid yet:
# then the process itself is killed, and its group once more after.)
kill_worker() {
	local pid=$1 rc=1
	kill -9 -- "-$pid" 2>/dev/null && rc=0
	kill -9 "$pid" 2>/dev/null && rc=0
	wait "$pid" 2>/dev/null
	kill -9 -- "-$pid" 2>/dev/null
	return $rc
}
