#!/usr/bin/env bats
# Exactly-once claims under real concurrency.
#
# 64 worker processes, each its own agent (--as wN), loop
#   claim --next --lease 30m  /  save ID (stdin)  /  report ID
# over the tasks added with one `add --batch` (see below for how many),
# until nothing is ready.
# The drain runs once (setup_file); each test checks one property of the
# ledger and the workers' logs afterwards.
#
# The issue asks for 5,000 tasks in under two minutes on 2 cores. On the
# CI machines a worker's loop (bash, a subshell and a daicho process per
# command) costs about 25 ms of CPU, so two cores run about 70 commands a
# second: 15,000 commands take 3.5 minutes whatever the ledger does. make
# check therefore drains 1,500 tasks with the same 64 workers (the
# contention, and so the waits, are the same); DAICHO_STRESS_TASKS=5000
# runs the full size (bench/RESULTS.md has its numbers). The drain is given
# until the ledger records nothing for DAICHO_STRESS_DEADLINE seconds
# (default 120: a hang), then stopped.

load common

N_WORKERS=64
# On PostgreSQL a daicho process costs about four times as much to start
# (kill9.bats): 800 tasks, the same 64 workers and so the same contention.
if backend_is_postgresql; then
	N_TASKS=${DAICHO_STRESS_TASKS:-800}
else
	N_TASKS=${DAICHO_STRESS_TASKS:-1500}
fi

DEADLINE=${DAICHO_STRESS_DEADLINE:-120}

setup_file() {
	stress_setup "$BATS_FILE_TMPDIR"
	add_tasks "$N_TASKS" 3
	local w names=() start end
	for ((w = 1; w <= N_WORKERS; w++)); do
		names+=("w$w")
	done
	WORKER_PIDS=()
	start=$(now_us)
	start_workers "$T/w" 30m "${names[@]}"
	if wait_workers "$DEADLINE" "${WORKER_PIDS[@]}"; then
		echo finished >"$T/drain_status"
	else
		echo "stopped: the ledger recorded nothing for ${DEADLINE}s" >"$T/drain_status"
	fi
	end=$(now_us)
	echo $((end - start)) >"$T/drain_us"
}

setup() {
	export LC_ALL=C
}

@test "claims: 64 workers drain every task (1,500; 800 on PostgreSQL; unless DAICHO_STRESS_TASKS says) within the deadline" {
	local drain
	drain=$(cat "$T/drain_us")
	printf '# drain: %s after %d.%03d s; %s of %d tasks reported\n' \
	    "$(cat "$T/drain_status")" $((drain / 1000000)) $((drain / 1000 % 1000)) \
	    "$(q "SELECT count(*) FROM tasks WHERE state = 'reported'")" "$N_TASKS" >&3
	[ "$(cat "$T/drain_status")" = finished ]
}

@test "claims: every task was claimed exactly once (event log and workers agree)" {
	# Never twice: no task has two claim events, no id went to two workers.
	run q "SELECT task, count(*) FROM events WHERE kind = 'claim'
	       GROUP BY task HAVING count(*) > 1 LIMIT 20"
	[ "$status" -eq 0 ]
	[ -z "$output" ] || fail_with "tasks claimed more than once (task claims):" "$output" \
	    "($(q "SELECT count(*) FROM (SELECT task FROM events WHERE kind = 'claim'
	           GROUP BY task HAVING count(*) > 1) AS doubled") in all)"
	awk '$1 == "claim" && $3 == 0 { print $2 }' "$T"/w/*.times | sort -n >"$T/claimed"
	run uniq -d "$T/claimed"
	[ -z "$output" ] || fail_with "ids handed to two workers:" "$output"
	# No lease ran out (30m leases): nobody took a task over.
	[ "$(q "SELECT count(*) FROM events WHERE kind = 'lease-expired'")" -eq 0 ]
	[ "$(q "SELECT count(*) FROM tasks WHERE attempts > 1")" -eq 0 ]

	# The claim event's actor is the worker that was handed the id. (A
	# worker stopped at the deadline may not have logged its last claim:
	# every logged claim must be in the ledger; the count is checked below.)
	awk '$1 == "claim" && $3 == 0 { print $2 "|" worker(FILENAME) }'" $AWK_WORKER" \
	    "$T"/w/*.times | sort >"$T/claimed_by"
	q "SELECT e.task || '|' || a.name FROM events e JOIN agents a ON a.id = e.actor
	   WHERE e.kind = 'claim'" | sort >"$T/claim_events"
	run comm -13 "$T/claim_events" "$T/claimed_by"
	[ -z "$output" ] || fail_with "claims a worker got that the ledger does not show:" "$output"

	# And every task was claimed.
	run q "SELECT count(DISTINCT task), count(*) FROM events WHERE kind = 'claim'"
	[ "$output" = "$N_TASKS|$N_TASKS" ] ||
	    fail_with "claim events: distinct tasks|events = $output, want $N_TASKS|$N_TASKS"
	q "SELECT id FROM tasks ORDER BY id" | diff - "$T/claimed"
	cmp "$T/claim_events" "$T/claimed_by"
}

@test "claims: every task is reported, by its claimer" {
	[ "$(q "SELECT count(*) FROM tasks WHERE state = 'reported'")" -eq "$N_TASKS" ] ||
	    fail_with "states: $(q "SELECT state, count(*) FROM tasks GROUP BY state")"
	run q "SELECT count(DISTINCT task), count(*) FROM events WHERE kind = 'report'"
	[ "$output" = "$N_TASKS|$N_TASKS" ]
	run q "SELECT count(*) FROM events r JOIN events c
	         ON c.task = r.task AND c.kind = 'claim'
	       WHERE r.kind = 'report' AND r.actor = c.actor AND r.id > c.id"
	[ "$output" -eq "$N_TASKS" ]
	[ "$(q "SELECT count(*) FROM tasks WHERE state = 'claimed' OR lease_expires_ms IS NOT NULL")" -eq 0 ]
}

@test "claims: every save is present and holds what its worker wrote" {
	run q "SELECT count(DISTINCT task), count(*) FROM saves"
	[ "$output" = "$N_TASKS|$N_TASKS" ] || fail_with "saves: distinct tasks|rows = $output"
	run q "SELECT count(*) FROM events WHERE kind = 'save'"
	[ "$output" -eq "$N_TASKS" ]
	# Content is 'task ID by NAME\n', NAME being the agent that claimed it.
	run q "SELECT t.id, a.name, $(sql_text s.result) FROM tasks t
	         JOIN events c ON c.task = t.id AND c.kind = 'claim'
	         JOIN agents a ON a.id = c.actor
	         LEFT JOIN saves s ON s.task = t.id
	       WHERE s.result IS NULL OR s.agent IS DISTINCT FROM c.actor
	          OR $(sql_text s.result) <> 'task ' || t.id || ' by ' || a.name || $(sql_newline)
	       LIMIT 20"
	[ "$status" -eq 0 ]
	[ -z "$output" ] || fail_with "saves missing or wrong (task, claimer, result):" "$output"
	# And `result` gives it back byte for byte (a sample, spread over the range).
	local id name
	for id in 1 2 $((N_TASKS / 3)) $((N_TASKS / 2)) $((N_TASKS - 1)) "$N_TASKS"; do
		name=$(q "SELECT a.name FROM events e JOIN agents a ON a.id = e.actor
		          WHERE e.kind = 'claim' AND e.task = $id")
		"$D" result "$id" >"$T/result"
		printf 'task %s by %s\n' "$id" "$name" | cmp - "$T/result"
	done
}

@test "claims: no worker saw an error other than 'nothing ready' (no busy, no exit 75)" {
	local n_err
	# Every save and report succeeded; claim exited 0 or 3 (nothing ready).
	run awk '($1 == "claim" && $3 != 0 && $3 != 3) || ($1 != "claim" && $3 != 0) {
		print worker(FILENAME), $0 }'" $AWK_WORKER" "$T"/w/*.times
	[ -z "$output" ] || fail_with "commands that failed (worker cmd id rc usec):" "$output"
	# stderr of every command: only 'nothing ready' lines, one per worker.
	run grep -Eih 'database is locked|busy|SQLITE' "$T"/w/*.err
	[ "$status" -eq 1 ] || fail_with "busy/locked errors:" "$output"
	run grep -vh '^daicho: nothing ready' "$T"/w/*.err
	[ "$status" -eq 1 ] || fail_with "unexpected stderr:" "$output"
	# Each worker stopped on its one 'nothing ready' (only if the drain
	# finished: workers stopped at the deadline have not).
	[ "$(cat "$T/drain_status")" = finished ]
	run awk '{ w = worker(FILENAME); last[w] = $1 " " $3 } $3 == 3 { n[w]++ }
		END { for (w in last) if (n[w] != 1 || last[w] != "claim 3")
			print w ": " n[w] " exits 3, last: " last[w] }'" $AWK_WORKER" "$T"/w/*.times
	[ -z "$output" ] || fail_with "workers that did not stop on 'nothing ready':" "$output"
	[ "$(cat "$T"/w/*.times | wc -l)" -eq $((3 * N_TASKS + N_WORKERS)) ]
	n_err=$(cat "$T"/w/*.err | wc -l)
	[ "$n_err" -eq "$N_WORKERS" ]
}

@test "claims: no process waited 2 s or more for the ledger (fair, bounded waits)" {
	local max med p99 n drain claims lock
	read -r max med p99 n <<<"$(timing_stats "$T/w")"
	drain=$(cat "$T/drain_us")
	claims=$(awk '$1 == "claim" && $3 == 0' "$T"/w/*.times | wc -l)
	printf '# %d invocations by %d workers, %d claims in %d.%03d s: %d claims/s\n' \
	    "$n" "$N_WORKERS" "$claims" $((drain / 1000000)) $((drain / 1000 % 1000)) \
	    $((claims * 1000000 / drain)) >&3
	printf '# wall time per invocation: median %d.%03d ms, p99 %d.%03d ms, max %d.%03d ms\n' \
	    $((med / 1000)) $((med % 1000)) $((p99 / 1000)) $((p99 % 1000)) \
	    $((max / 1000)) $((max % 1000)) >&3
	# DAICHO_TRACE_LOCK: "pid transactions wait_us_max wait_us_total hold_us".
	# Wall time above also counts starting a process on two oversubscribed
	# cores; this is the wait for the ledger itself.
	lock=$(sort -n -k3 "$T/lock.trace" | awk '{ w[NR] = $3; h += $5 / $2 }
		END { printf "%d %d %d %d", w[NR], w[int(NR / 2) + 1],
		      w[int(NR * 0.99) + 1], h / NR }')
	read -r max med p99 hold <<<"$lock"
	printf '# wait for the write lock per process: median %d.%03d ms, p99 %d.%03d ms, max %d.%03d ms; mean hold %d us\n' \
	    $((med / 1000)) $((med % 1000)) $((p99 / 1000)) $((p99 % 1000)) \
	    $((max / 1000)) $((max % 1000)) "$hold" >&3
	[ "$(wc -l <"$T/lock.trace")" -ge "$n" ] ||
	    fail_with "fewer lock traces than invocations"
	[ "$max" -lt 2000000 ] ||
	    fail_with "longest lock waits (pid transactions wait_us_max ...):" \
	    "$(sort -n -k3 "$T/lock.trace" | tail -5)"
}
