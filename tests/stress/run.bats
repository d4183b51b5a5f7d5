#!/usr/bin/env bats
# daicho run under stress: many tasks, -j 16, a worker that fails, hangs,
# lies or succeeds at random, and a kill -9 of the runner in the middle.
#
# N tasks (default 2000), added with one `add --batch`, each with
# done_when file:out/ID.txt (relative to the project root, which is $T: the
# ledger is $T/ledger.db outside any git repository). The worker
# (run_worker.sh) draws its fate from (id, attempt): 15% exit 1, 1% sleep
# past --timeout 2s, 12% exit 0 without writing its file (a lie), else
# write the file and exit 0. It records its start and end in $T/RUN.times.
#
# Run 1: `daicho run -j 16 --timeout 2s --retry-backoff 50ms` in the
# background, killed with kill -9 once a third of the tasks are verified
# (or after KILL_AFTER seconds). Run 2: the same command, to the end.
# Afterwards: every task is verified exactly once, or failed after its
# attempts; none is open, claimed or reported; neither run ever had more
# than 16 workers at once; no worker process is left.
#
# DAICHO_STRESS_RUN_TASKS (default 2000) sizes it.

load common

N_TASKS=${DAICHO_STRESS_RUN_TASKS:-2000}
JOBS=16
KILL_AFTER=30      # kill run 1 after this many seconds at the latest
RUN2_LIMIT=200     # run 2 is stopped (SIGTERM) after this many seconds

setup_file() {
	stress_setup "$BATS_FILE_TMPDIR"
	local i t0 t1 pid deadline st
	mkdir "$T/n" "$T/out"
	for ((i = 1; i <= N_TASKS; i++)); do
		printf '{"title":"run stress %d","done_when":["file:out/%d.txt"]}\n' "$i" "$i"
	done >"$T/batch.jsonl"
	"$D" add --batch "$T/batch.jsonl" >"$T/batch.ids"
	seq 1 "$N_TASKS" | cmp -s - "$T/batch.ids" || {
		echo "add --batch did not print ids 1..$N_TASKS" >"$T/setup.err"
		return 0
	}

	t0=$(now_us)
	PGAPPNAME=daicho-stress-run1 "$D" run -j "$JOBS" --timeout 2s --retry-backoff 50ms -- \
	    "$STRESS_DIR/run_worker.sh" "$T" run1 '{id}' >"$T/run1.out" 2>"$T/run1.err" &
	pid=$!
	deadline=$((t0 + KILL_AFTER * 1000000))
	while (($(now_us) < deadline)) && kill -0 "$pid" 2>/dev/null; do
		nap 0.2
		(($(q "SELECT count(*) FROM tasks WHERE state = 'verified'") * 3 >= N_TASKS)) && break
	done
	kill -KILL "$pid" 2>/dev/null
	st=0
	wait "$pid" 2>/dev/null || st=$?
	echo "$st" >"$T/run1.status"
	t1=$(now_us)
	echo $((t1 - t0)) >"$T/run1.us"
	# On PostgreSQL a COMMIT run 1 sent before the kill is still the
	# server's to finish: what run 1 left is counted once its session is
	# gone (on a loaded machine that can take a while; two minutes at most).
	if backend_is_postgresql; then
		for ((i = 0; i < 1200; i++)); do
			[ "$(q "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'daicho-stress-run1'")" = 0 ] && break
			nap 0.1
		done
	fi
	q "SELECT state || ' ' || count(*) FROM tasks GROUP BY state ORDER BY state" >"$T/run1.states"
	q "SELECT count(*) FROM tasks WHERE state = 'claimed'" >"$T/run1.claimed"

	t0=$(now_us)
	st=0
	timeout "$RUN2_LIMIT" "$D" run -j "$JOBS" --timeout 2s --retry-backoff 50ms -- \
	    "$STRESS_DIR/run_worker.sh" "$T" run2 '{id}' >"$T/run2.out" 2>"$T/run2.err" || st=$?
	echo "$st" >"$T/run2.status"
	t1=$(now_us)
	echo $((t1 - t0)) >"$T/run2.us"
}

teardown_file() {
	# A worker a failed run left behind (found by its environment, ended by
	# its pid).
	local pid
	for pid in $(stray_workers); do
		kill -KILL "$pid" 2>/dev/null || true
	done
}

setup() {
	export LC_ALL=C
	[ ! -e "$T/setup.err" ] || fail_with "set-up failed: $(cat "$T/setup.err")"
}

# stray_workers: pids of live processes started by a runner of this
# ledger (their environment has DAICHO_TASK and this DAICHO_LEDGER).
stray_workers() {
	local -a files=()
	mapfile -t files < <(grep -lzxF "DAICHO_LEDGER=$DAICHO_LEDGER" /proc/[0-9]*/environ 2>/dev/null)
	((${#files[@]} > 0)) || return 0
	# None found, or a process gone meanwhile, is not a failure.
	{ grep -lz '^DAICHO_TASK=' "${files[@]}" 2>/dev/null || true; } |
	    sed -e 's|^/proc/||' -e 's|/environ$||'
}

# max_overlap FILE: the most workers running at once, from the "S <usec>"
# and "E <usec>" lines (an end before a start at the same microsecond).
max_overlap() {
	awk '{ print $2, ($1 == "S" ? 1 : 0) }' "$1" | sort -k1,1n -k2,2n |
	    awk '{ c += ($2 == 1) ? 1 : -1; if (c > m) m = c } END { print m + 0 }'
}

ms() {
	printf '%d.%03d s' $(($1 / 1000000)) $(($1 / 1000 % 1000))
}

@test "run stress: run 1 was killed mid-way, run 2 finished and took over its claims" {
	printf '# %d tasks; run 1: killed after %s (%s); run 2: %s, exit %s: %s\n' \
	    "$N_TASKS" "$(ms "$(cat "$T/run1.us")")" "$(tr '\n' ',' <"$T/run1.states")" \
	    "$(ms "$(cat "$T/run2.us")")" "$(cat "$T/run2.status")" "$(cat "$T/run2.out")" >&3
	# kill -9: 128 + 9.
	[ "$(cat "$T/run1.status")" -eq 137 ] || fail_with "run 1 ended by itself: $(cat "$T/run1.out" "$T/run1.err")"
	# Killed before its summary: only the line saying what it takes.
	[ "$(wc -l <"$T/run1.out")" -eq 1 ] || fail_with "run 1 printed: $(cat "$T/run1.out")"
	grep -Eq "^daicho run: $N_TASKS open tasks in (/|postgresql:).* \\($N_TASKS ready, 0 after others\\), $JOBS at once" "$T/run1.out" ||
		fail_with "run 1 printed: $(cat "$T/run1.out")"
	grep -q '^verified ' "$T/run1.states" || fail_with "run 1 verified nothing before the kill"
	# Run 2 ended by itself: exit 1 (some tasks fail by design) with one
	# error line, the summary on stdout.
	[ "$(cat "$T/run2.status")" -eq 1 ] || fail_with "run 2: exit $(cat "$T/run2.status"): $(cat "$T/run2.err")"
	[ "$(wc -l <"$T/run2.err")" -eq 1 ]
	grep -q '^daicho: [0-9]* of [0-9]* tasks did not reach verified' "$T/run2.err"
	[ "$(wc -l <"$T/run2.out")" -eq 2 ]
	grep -Eq '^daicho run: [0-9]+ open tasks in ' "$T/run2.out"
	grep -Eq '^daicho run: [0-9]+ verified, [0-9]+ failed, [0-9]+ retried, [0-9]+ false reports? caught, ' "$T/run2.out"
	# The claims of the dead run were taken over at once.
	local claimed
	claimed=$(cat "$T/run1.claimed")
	((claimed > 0)) || fail_with "no task was claimed when run 1 was killed"
	grep -q ", $claimed recovered from a dead runner, " "$T/run2.out" ||
	    fail_with "run 2 should say '$claimed recovered from a dead runner': $(cat "$T/run2.out")"
}

@test "run stress: every task is verified exactly once or failed after its attempts; none is lost" {
	run q "SELECT state FROM tasks WHERE state NOT IN ('verified', 'failed') GROUP BY state"
	[ -z "$output" ] || fail_with "tasks left in states: $output" \
	    "$(q "SELECT id, state, attempts FROM tasks WHERE state NOT IN ('verified', 'failed') LIMIT 20")"
	[ "$(q 'SELECT count(*) FROM tasks')" -eq "$N_TASKS" ]
	# Verified: exactly one verified event, no fail event, its file there.
	run q "SELECT t.id FROM tasks t WHERE t.state = 'verified' AND (
	         (SELECT count(*) FROM events e WHERE e.task = t.id AND e.kind = 'verified') <> 1
	      OR (SELECT count(*) FROM events e WHERE e.task = t.id AND e.kind = 'fail') <> 0)
	      LIMIT 20"
	[ -z "$output" ] || fail_with "verified tasks without exactly one verified event (or with a fail):" "$output"
	local id
	for id in $(q "SELECT id FROM tasks WHERE state = 'verified'"); do
		[ -s "$T/out/$id.txt" ] || fail_with "task $id verified without out/$id.txt"
	done
	# Failed: all attempts used, one fail event, never verified.
	run q "SELECT t.id, t.attempts, t.max_attempts FROM tasks t WHERE t.state = 'failed' AND (
	         t.attempts <> t.max_attempts
	      OR (SELECT count(*) FROM events e WHERE e.task = t.id AND e.kind = 'fail') <> 1
	      OR (SELECT count(*) FROM events e WHERE e.task = t.id AND e.kind = 'verified') <> 0)
	      LIMIT 20"
	[ -z "$output" ] || fail_with "failed tasks not failed after their attempts (id attempts max):" "$output"
	# No verdict or event refers to a task twice where it must not.
	[ "$(q "SELECT count(*) FROM events WHERE kind = 'verified'")" -eq \
	    "$(q "SELECT count(*) FROM tasks WHERE state = 'verified'")" ]
	printf '# %s verified, %s failed\n' "$(q "SELECT count(*) FROM tasks WHERE state = 'verified'")" \
	    "$(q "SELECT count(*) FROM tasks WHERE state = 'failed'")" >&3
}

@test "run stress: the worker's fates all happened: failures, timeouts, lies, and failed tasks" {
	local requeues timeouts rejected failed
	requeues=$(q "SELECT count(*) FROM events WHERE kind = 'requeue'")
	timeouts=$(q "SELECT count(*) FROM events WHERE kind = 'exit' AND $(json_field timed_out) = '1'")
	rejected=$(q "SELECT count(*) FROM events WHERE kind = 'rejected'")
	failed=$(q "SELECT count(*) FROM tasks WHERE state = 'failed'")
	printf '# %s requeues, %s timeouts, %s false reports caught, %s tasks failed\n' \
	    "$requeues" "$timeouts" "$rejected" "$failed" >&3
	((requeues > 0 && timeouts > 0 && rejected > 0 && failed > 0))
	# Timed-out workers ran no longer than --timeout and a short grace.
	run q "SELECT task, $(json_field duration_ms) FROM events
	       WHERE kind = 'exit' AND $(json_field timed_out) = '1'
	         AND CAST($(json_field duration_ms) AS bigint) > 4000 LIMIT 20"
	[ -z "$output" ] || fail_with "timed-out workers that ran on (task ms):" "$output"
	# Every worker the runners saw end has its exit event, and each lie it
	# reported was rejected: no lie was ever verified.
	run q "SELECT t.id FROM tasks t WHERE t.state = 'verified' AND NOT EXISTS
	       (SELECT 1 FROM verdicts v WHERE v.task = t.id AND v.passed <> 0)"
	[ -z "$output" ] || fail_with "verified without a passing verdict:" "$output"
}

@test "run stress: neither run ever had more than $JOBS workers at once; a task never ran twice at once in a run" {
	local r max starts ends
	for r in run1 run2; do
		max=$(max_overlap "$T/$r.times")
		starts=$(grep -c '^S ' "$T/$r.times")
		ends=$(grep -c '^E ' "$T/$r.times")
		printf '# %s: %s worker starts, %s ends, at most %s at once\n' "$r" "$starts" "$ends" "$max" >&3
		((max <= JOBS)) || fail_with "$r had $max workers at once (cap $JOBS)"
		((max >= 2)) || fail_with "$r never ran workers in parallel"
		# Every worker that started ended. The killed run's workers still
		# running at the kill are stopped (SIGKILL, so no end is logged)
		# by the second run before it takes their tasks: at most JOBS.
		if [ "$r" = run1 ]; then
			((starts >= ends && starts - ends <= JOBS)) ||
			    fail_with "$r: $starts starts but $ends ends"
		else
			((starts == ends)) || fail_with "$r: $starts starts but $ends ends"
		fi
		# Per task, the runs of one run never overlap.
		run bash -c "awk '{ print \$3, \$2, (\$1 == \"S\" ? 1 : 0) }' '$T/$r.times' |
		    sort -k1,1n -k2,2n -k3,3n |
		    awk '\$1 != t { t = \$1; c = 0 } { c += \$3 ? 1 : -1; if (c > 1) print t }' | sort -u | head"
		[ -z "$output" ] || fail_with "$r ran these tasks twice at once:" "$output"
	done
	[ ! -e "$T/errors" ] || fail_with "worker errors:" "$(head "$T/errors")"
}

@test "run stress: no worker process is left" {
	local left i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		left=$(stray_workers)
		[ -z "$left" ] && break
		nap 0.2
	done
	[ -z "$left" ] || fail_with "worker processes alive:" "$(for p in $left; do ps -o pid=,args= -p "$p"; done)"
	run pgrep -f '^sleep 4\.321$'
	[ -z "$output" ] || fail_with "stray sleep 4.321: $output"
}
