#!/usr/bin/env bats
# Two concurrent sweeps verify 500 reports, a third of them false.
#
# 500 tasks (one `add --batch`), each `done_when: ["file:out/ID.txt"]` and
# max_attempts 1, so every task is reported exactly once and a rejection is
# final (rejected, to "failed"). 16 worker processes (sweep_worker.sh, agents
# w1..w16) loop claim --next / write out/ID.txt / report; for ID % 3 == 0 they
# write nothing and report anyway (the file is missing). Meanwhile two
# `sweep --every 200ms -j 2 -v` run (agents sweepA, sweepB). Once every report
# has its verdict and each sweep has run a full pass after that, both get
# SIGTERM; then two one-shot sweeps run at the same time and must find
# nothing to do. The ledger is DAICHO_LEDGER=$T/ledger.db outside any git
# work tree, so the project root (where file: checks look) is $T.
#
# The run happens once (setup_file); each test checks one property.
# DAICHO_STRESS_DEADLINE (default 90): the workers' drain is stopped once the
# ledger has recorded nothing for that many seconds; DAICHO_STRESS_STALL
# (default 120): how long a sweep may show no progress before it is hung.

load common

N_TASKS=500
N_WORKERS=16
SWEEPERS=(sweepA sweepB)
DEADLINE=${DAICHO_STRESS_DEADLINE:-90}
# How long a sweep may show no progress before it counts as hung.
STALL=${DAICHO_STRESS_STALL:-120}
SWEEP_WORKER=$STRESS_DIR/sweep_worker.sh

# elapsed_ms START_US: milliseconds since START_US.
elapsed_ms() {
	echo $((($(now_us) - $1) / 1000))
}

# wait_for SECONDS SQL: poll until SQL prints 0; 1 if what it prints has
# not changed for SECONDS (a hang: on a loaded machine it only moves more
# slowly).
wait_for() {
	local stall_us=$(($1 * 1000000)) now last moved
	last=$(q "$2")
	moved=$(now_us)
	while [[ $last != 0 ]]; do
		nap 0.05
		now=$(q "$2")
		if [[ $now != "$last" ]]; then
			last=$now
			moved=$(now_us)
		elif (($(now_us) - moved > stall_us)); then
			return 1
		fi
	done
	return 0
}

# lines FILE: the number of lines in FILE.
lines() {
	wc -l <"$1"
}

setup_file() {
	stress_setup "$BATS_FILE_TMPDIR"
	local i w s pid rc names=() start t_add t_drain t_verdicts t_stop
	local -A base

	# file: checks must look in $T: it must not be inside a git work tree.
	if git -C "$T" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		echo "$T is inside a git work tree" >"$T/setup_error"
		return 0
	fi
	mkdir "$T/out" "$T/w"

	start=$(now_us)
	for ((i = 1; i <= N_TASKS; i++)); do
		printf '{"title":"sweep task %d","done_when":["file:out/%d.txt"],"max_attempts":1}\n' \
		    "$i" "$i"
	done >"$T/batch.jsonl"
	"$D" add --batch "$T/batch.jsonl" >"$T/batch.ids" 2>"$T/add.err"
	echo $? >"$T/add.rc"
	t_add=$(elapsed_ms "$start")

	# The sweeps first, so that they run during the whole drain. Their own
	# fd 3 is closed (bats waits for it), output goes to files.
	for s in "${SWEEPERS[@]}"; do
		"$D" --as "$s" sweep --every 200ms -j 2 -v \
		    >"$T/$s.out" 2>"$T/$s.err" 3>&- &
		echo $! >"$T/$s.pid"
	done

	start=$(now_us)
	WORKER_PIDS=()
	for ((w = 1; w <= N_WORKERS; w++)); do
		setsid "$SWEEP_WORKER" "$D" "w$w" "$T" "$T/w" 3>&- &
		WORKER_PIDS+=($!)
	done
	if wait_workers "$DEADLINE" "${WORKER_PIDS[@]}"; then
		echo finished >"$T/drain_status"
	else
		echo "workers stopped: the ledger recorded nothing for ${DEADLINE}s" >"$T/drain_status"
	fi
	t_drain=$(elapsed_ms "$start")

	# Every report gets its verdict: nothing reported, no verification
	# claim held.
	if wait_for "$STALL" "SELECT count(*) FROM tasks
	                WHERE state = 'reported' OR verify_token IS NOT NULL"; then
		echo finished >"$T/verdict_status"
	else
		echo "reports unverified, none verified for ${STALL}s" >"$T/verdict_status"
	fi
	t_verdicts=$(elapsed_ms "$start")

	# A full pass of each sweep that began after that: two more summary
	# lines (the first may end a pass begun before).
	for s in "${SWEEPERS[@]}"; do
		base[$s]=$(lines "$T/$s.out")
	done
	# A sweep's output that stops growing for STALL seconds is a hang.
	local moved more now last=-1
	moved=$(now_us)
	while :; do
		more=0
		now=0
		for s in "${SWEEPERS[@]}"; do
			(($(lines "$T/$s.out") >= base[$s] + 2)) || more=1
			now=$((now + $(lines "$T/$s.out")))
		done
		((more == 0)) && break
		if ((now != last)); then
			last=$now
			moved=$(now_us)
		elif (($(now_us) - moved > STALL * 1000000)); then
			echo "no final pass: the sweeps wrote nothing for ${STALL}s" >"$T/final_pass_status"
			break
		fi
		nap 0.05
	done
	[[ -e $T/final_pass_status ]] || echo finished >"$T/final_pass_status"
	for s in "${SWEEPERS[@]}"; do
		echo "${base[$s]}" >"$T/$s.base"
	done

	# SIGTERM ends them cleanly (between steps); one still running STALL
	# seconds after is hung (a step on a loaded machine is only slower).
	t_stop=$(now_us)
	for s in "${SWEEPERS[@]}"; do
		kill -TERM "$(cat "$T/$s.pid")" 2>/dev/null
	done
	for s in "${SWEEPERS[@]}"; do
		pid=$(cat "$T/$s.pid")
		deadline=$(($(now_us) + STALL * 1000000))
		while kill -0 "$pid" 2>/dev/null && (($(now_us) < deadline)); do
			nap 0.02
		done
		if kill -0 "$pid" 2>/dev/null; then
			kill -9 "$pid" 2>/dev/null
			echo "still running ${STALL}s after SIGTERM (killed)" >"$T/$s.stuck"
		fi
		wait "$pid"
		echo $? >"$T/$s.rc"
		rm -f "$T/$s.pid"
	done
	echo $(($(now_us) - t_stop)) >"$T/stop_us"

	# Two one-shot sweeps at the same time: nothing is left to do.
	for s in "${SWEEPERS[@]}"; do
		"$D" --as "$s" sweep -j 2 >"$T/$s.last.out" 2>"$T/$s.last.err" 3>&- &
		echo $! >"$T/$s.last.pid"
	done
	for s in "${SWEEPERS[@]}"; do
		wait "$(cat "$T/$s.last.pid")"
		echo $? >"$T/$s.last.rc"
		rm -f "$T/$s.last.pid"
	done

	printf '%s %s %s\n' "$t_add" "$t_drain" "$t_verdicts" >"$T/timings"
}

teardown_file() {
	local f pid
	# Never leave a sweep running: setup_file removes the pid file of each
	# sweep it reaped, so this only acts when it stopped half-way (and then
	# only on a process still running our copy of daicho).
	for f in "$T"/*.pid; do
		[[ -e $f ]] || continue
		pid=$(cat "$f")
		if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$D --as sweep"; then
			kill -9 "$pid" 2>/dev/null
		fi
	done
	return 0
}

setup() {
	export LC_ALL=C
	[[ ! -e $T/setup_error ]] || fail_with "setup: $(cat "$T/setup_error")"
}

# The false third: ids divisible by 3.
N_FALSE=$((N_TASKS / 3))
N_HONEST=$((N_TASKS - N_FALSE))

@test "sweep: 16 workers report 500 tasks, two concurrent sweeps judge them all" {
	local t_add t_drain t_verdicts stop
	read -r t_add t_drain t_verdicts <"$T/timings"
	stop=$(cat "$T/stop_us")
	printf '# add --batch of %d tasks: %d ms; drain by %d workers: %d ms; last verdict: %d ms\n' \
	    "$N_TASKS" "$t_add" "$N_WORKERS" "$t_drain" "$t_verdicts" >&3
	printf '# SIGTERM to both sweeps -> both exited: %d ms; passes: sweepA %d, sweepB %d\n' \
	    $((stop / 1000)) "$(lines "$T/sweepA.out")" "$(lines "$T/sweepB.out")" >&3
	printf '# states: %s\n' "$(sql_joined ', ' "SELECT state || ' ' || count(*)
	    FROM tasks GROUP BY state ORDER BY state")" >&3

	[ "$(cat "$T/add.rc")" -eq 0 ] || fail_with "add --batch failed: $(cat "$T/add.err")"
	# A fresh ledger: ids 1..N, so out/ID.txt names the task.
	seq 1 "$N_TASKS" | diff - "$T/batch.ids"
	[ "$(cat "$T/drain_status")" = finished ]
	[ "$(cat "$T/verdict_status")" = finished ] ||
	    fail_with "$(cat "$T/verdict_status")" \
	    "$(q "SELECT state, count(*) FROM tasks GROUP BY state")"
	[ "$(cat "$T/final_pass_status")" = finished ]
}

@test "sweep: both sweeps ended cleanly on SIGTERM, without errors" {
	local s rc
	for s in "${SWEEPERS[@]}"; do
		[[ ! -e $T/$s.stuck ]] || fail_with "$s: $(cat "$T/$s.stuck")"
		rc=$(cat "$T/$s.rc")
		# A clean end: 0 (or 143, "terminated by SIGTERM"), not a crash.
		[[ $rc == 0 || $rc == 143 ]] || fail_with "$s exited $rc" "$(cat "$T/$s.err")"
		[ ! -s "$T/$s.err" ] || fail_with "$s stderr:" "$(cat "$T/$s.err")"
		# Every line is a pass summary (-v: idle passes too), after its time.
		run grep -Evc '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z sweep: [0-9]+ verified, [0-9]+ rejected, [0-9]+ failed, [0-9]+ leases expired, [0-9]+ worktrees pruned, [0-9]+ agents? stale, [0-9]+ waits? escalated$' \
		    "$T/$s.out"
		[ "$output" = 0 ] || fail_with "$s: unexpected output:" "$(cat "$T/$s.out")"
		# The passes after the last verdict found nothing to do.
		run tail -n +"$(($(cat "$T/$s.base") + 2))" "$T/$s.out"
		[ -n "$output" ]
		run grep -Ev '^[0-9T:-]+Z sweep: 0 verified, 0 rejected, 0 failed, 0 leases expired, 0 worktrees pruned, 0 agents stale, 0 waits escalated$' \
		    <<<"$output"
		[ "$status" -eq 1 ] || fail_with "$s: a pass after the last verdict did something:" "$output"
	done
}

@test "sweep: two one-shot sweeps afterwards find nothing to do" {
	local s
	for s in "${SWEEPERS[@]}"; do
		[ "$(cat "$T/$s.last.rc")" -eq 0 ] || fail_with "$s: $(cat "$T/$s.last.err")"
		[ ! -s "$T/$s.last.err" ]
		[ "$(cat "$T/$s.last.out")" = \
		    "sweep: 0 verified, 0 rejected, 0 failed, 0 leases expired, 0 worktrees pruned, 0 agents stale, 0 waits escalated" ]
	done
}

@test "sweep: every honest report is verified exactly once" {
	# Verified: exactly the ids not divisible by 3.
	q "SELECT id FROM tasks WHERE state = 'verified' ORDER BY id" >"$T/verified"
	seq 1 "$N_TASKS" | awk '$1 % 3 != 0' | diff - "$T/verified" ||
	    fail_with "verified tasks differ from the honest ones"
	# One `verified` event each, none rejected, one passing verdict row with
	# one passing check run whose evidence names the file.
	run q "WITH c AS (SELECT t.id,
	         (SELECT count(*) FROM events e WHERE e.task = t.id AND e.kind = 'verified') AS ver,
	         (SELECT count(*) FROM events e WHERE e.task = t.id
	            AND e.kind IN ('rejected', 'fail', 'reverified', 'reopened')) AS other,
	         (SELECT count(*) FROM verdicts v WHERE v.task = t.id) AS verdicts,
	         (SELECT count(*) FROM verdicts v WHERE v.task = t.id AND v.passed = 1) AS passing
	       FROM tasks t WHERE t.id % 3 != 0)
	       SELECT * FROM c WHERE ver <> 1 OR other <> 0 OR verdicts <> 1 OR passing <> 1
	       LIMIT 20"
	[ "$status" -eq 0 ]
	[ -z "$output" ] || fail_with "honest tasks (id verified-events other-verdict-events verdicts passing):" "$output"
	run q "SELECT t.id, cr.passed, $(sql_text cr.output)
	       FROM tasks t JOIN verdicts v ON v.task = t.id
	         LEFT JOIN check_runs cr ON cr.verdict = v.id
	       WHERE t.id % 3 != 0
	         AND (cr.verdict IS NULL OR cr.passed <> 1 OR cr.spec <> 'file:out/' || t.id || '.txt'
	              OR $(sql_text cr.output) NOT LIKE 'out/' || t.id || '.txt exists%'
	              OR (SELECT count(*) FROM check_runs c2 WHERE c2.verdict = v.id) <> 1)
	       LIMIT 20"
	[ -z "$output" ] || fail_with "honest verdicts without the right evidence:" "$output"
	# Verified tasks hold no claim.
	[ "$(q "SELECT count(*) FROM tasks WHERE state = 'verified'
	        AND (lease_expires_ms IS NOT NULL OR verify_token IS NOT NULL)")" -eq 0 ]
	[ "$(q "SELECT count(*) FROM tasks WHERE state = 'verified'")" -eq "$N_HONEST" ]
}

@test "sweep: every false report is rejected once, with evidence that the file is missing" {
	q "SELECT id FROM tasks WHERE state = 'failed' ORDER BY id" >"$T/failed"
	seq 1 "$N_TASKS" | awk '$1 % 3 == 0' | diff - "$T/failed" ||
	    fail_with "failed tasks differ from the false ones"
	# Exactly one `rejected` event (to "failed", with its verdict id), one
	# `fail`, no `verified`; one failing verdict row.
	run q "WITH c AS (SELECT t.id,
	         (SELECT count(*) FROM events e WHERE e.task = t.id AND e.kind = 'rejected'
	            AND $(json_field to e.detail) = 'failed') AS to_failed,
	         (SELECT count(*) FROM events e WHERE e.task = t.id AND e.kind = 'rejected') AS rej,
	         (SELECT count(*) FROM events e WHERE e.task = t.id AND e.kind = 'fail') AS fail,
	         (SELECT count(*) FROM events e WHERE e.task = t.id
	            AND e.kind IN ('verified', 'reverified', 'reopened')) AS ver,
	         (SELECT count(*) FROM verdicts v WHERE v.task = t.id AND v.passed = 0) AS failing,
	         (SELECT count(*) FROM verdicts v WHERE v.task = t.id) AS verdicts
	       FROM tasks t WHERE t.id % 3 = 0)
	       SELECT * FROM c WHERE to_failed <> 1 OR rej <> 1 OR fail <> 1 OR ver <> 0
	          OR failing <> 1 OR verdicts <> 1
	       LIMIT 20"
	[ "$status" -eq 0 ]
	[ -z "$output" ] || fail_with \
	    "false tasks (id rejected-to-failed rejected fail verified-ish failing-verdicts verdicts):" "$output"
	# The evidence: the verdict named by the rejected event has one failing
	# check run, file:out/ID.txt, saying the file is missing.
	run q "SELECT t.id, v.summary, cr.passed, $(sql_text cr.output)
	       FROM tasks t
	         JOIN events e ON e.task = t.id AND e.kind = 'rejected'
	         LEFT JOIN verdicts v ON v.id = CAST($(json_field verdict e.detail) AS bigint)
	         LEFT JOIN check_runs cr ON cr.verdict = v.id
	       WHERE t.id % 3 = 0
	         AND (v.id IS NULL OR v.task <> t.id OR v.passed <> 0 OR cr.verdict IS NULL
	              OR cr.passed <> 0 OR cr.spec <> 'file:out/' || t.id || '.txt'
	              OR $(sql_text cr.output) <> 'out/' || t.id || '.txt is missing'
	              OR v.summary NOT LIKE '%out/' || t.id || '.txt is missing%'
	              OR $(json_field summary e.detail) IS DISTINCT FROM v.summary
	              OR (SELECT count(*) FROM check_runs c2 WHERE c2.verdict = v.id) <> 1)
	       LIMIT 20"
	[ -z "$output" ] || fail_with "false reports without evidence of the missing file:" "$output"
	# The same evidence through the CLI, for a sample.
	local id
	for id in 3 6 $((N_TASKS / 2 / 3 * 3)) $((N_TASKS / 3 * 3)); do
		"$D" --json show "$id" >"$T/show.json"
		run jq -r '[.state, .attempts, .last_verdict.passed, .last_verdict.checks[0].check,
		            .last_verdict.checks[0].passed, .last_verdict.checks[0].output] | @tsv' \
		    "$T/show.json"
		[ "$output" = "$(printf 'failed\t1\tfalse\tfile:out/%d.txt\tfalse\tout/%d.txt is missing' \
		    "$id" "$id")" ] || fail_with "show --json $id:" "$output"
		run "$D" show "$id"
		[ "$status" -eq 0 ]
		[[ $output == *"REJECTED"*"out/$id.txt is missing"* ]] || fail_with "show $id:" "$output"
	done
	# And the files really are missing (the workers lied), the others exist.
	[ "$(find "$T/out" -type f | wc -l)" -eq "$N_HONEST" ]
	for id in $(seq 3 3 "$N_TASKS"); do
		[[ ! -e $T/out/$id.txt ]]
	done
}

@test "sweep: the event log shows exactly one verdict per report" {
	# Per task: one report, one verdict event (verified or rejected), the
	# verdict after the report, and made by a sweep.
	run q "SELECT id, r, v FROM (SELECT t.id,
	         (SELECT count(*) FROM events e WHERE e.task = t.id AND e.kind = 'report') AS r,
	         (SELECT count(*) FROM events e WHERE e.task = t.id
	            AND e.kind IN ('verified', 'rejected')) AS v
	       FROM tasks t) AS per_task WHERE r <> 1 OR v <> 1 LIMIT 20"
	[ "$status" -eq 0 ]
	[ -z "$output" ] || fail_with "tasks whose reports and verdicts do not pair (id reports verdicts):" "$output"
	run q "SELECT count(*) FROM events WHERE kind = 'report'"
	[ "$output" -eq "$N_TASKS" ]
	run q "SELECT count(*) FROM events WHERE kind IN ('verified', 'rejected')"
	[ "$output" -eq "$N_TASKS" ]
	# Each verdict event follows its task's report, and each names its own
	# verdict row (same task, same actor); every verdict row has one event.
	run q "SELECT ve.task, ve.id, re.id, v.id, v.task, v.actor, ve.actor
	       FROM events ve
	         JOIN events re ON re.task = ve.task AND re.kind = 'report'
	         LEFT JOIN verdicts v ON v.id = CAST($(json_field verdict ve.detail) AS bigint)
	       WHERE ve.kind IN ('verified', 'rejected')
	         AND (re.id > ve.id OR v.id IS NULL OR v.task <> ve.task OR v.actor IS DISTINCT FROM ve.actor
	              OR v.passed <> CASE WHEN ve.kind = 'verified' THEN 1 ELSE 0 END)
	       LIMIT 20"
	[ -z "$output" ] || fail_with "verdict events that do not match a report and a verdict:" "$output"
	run q "SELECT count(*), count(DISTINCT $(json_field verdict)) FROM events
	       WHERE kind IN ('verified', 'rejected')"
	[ "$output" = "$N_TASKS|$N_TASKS" ]
	[ "$(q "SELECT count(*) FROM verdicts")" -eq "$N_TASKS" ]
	# Nothing is left reported, claimed or open; no other kinds of events
	# (no lease expired, nothing reopened).
	[ "$(q "SELECT count(*) FROM tasks WHERE state NOT IN ('verified', 'failed')")" -eq 0 ]
	run q "SELECT kind, count(*) FROM events
	       WHERE kind NOT IN ('add', 'agent-register', 'claim', 'report', 'verified',
	                          'rejected', 'fail')
	       GROUP BY kind"
	[ -z "$output" ] || fail_with "unexpected events:" "$output"
	# Every task was claimed once and reported by its claimer.
	run q "SELECT t.id FROM tasks t WHERE
	         (SELECT count(*) FROM events c WHERE c.task = t.id AND c.kind = 'claim') <> 1
	         OR NOT EXISTS (SELECT 1 FROM events c JOIN events r
	              ON r.task = c.task AND r.kind = 'report' AND r.actor = c.actor AND r.id > c.id
	            WHERE c.task = t.id AND c.kind = 'claim')
	       LIMIT 20"
	[ -z "$output" ] || fail_with "tasks not claimed once and reported by the claimer:" "$output"
}

@test "sweep: both sweeps did part of the work, and their summaries add up" {
	local s n_v n_r n_f sum_v sum_r sum_f total=0
	# Only the two sweeps gave verdicts.
	run q "SELECT DISTINCT coalesce(a.name, '(none)') FROM events e
	         LEFT JOIN agents a ON a.id = e.actor
	       WHERE e.kind IN ('verified', 'rejected', 'fail')
	       ORDER BY 1"
	[ "$output" = "$(printf '%s\n' "${SWEEPERS[@]}" | sort)" ] ||
	    fail_with "verdict actors: $output"
	for s in "${SWEEPERS[@]}"; do
		n_v=$(q "SELECT count(*) FROM events e JOIN agents a ON a.id = e.actor
		         WHERE a.name = '$s' AND e.kind = 'verified'")
		n_r=$(q "SELECT count(*) FROM events e JOIN agents a ON a.id = e.actor
		         WHERE a.name = '$s' AND e.kind = 'rejected'")
		n_f=$(q "SELECT count(*) FROM events e JOIN agents a ON a.id = e.actor
		         WHERE a.name = '$s' AND e.kind = 'fail'")
		# The loop's lines begin with a time; the one-shot pass's do not.
		read -r sum_v sum_r sum_f < <(awk '{ o = ($1 == "sweep:") ? 0 : 1
		    v += $(2 + o); r += $(4 + o); f += $(6 + o) }
		    END { print v + 0, r + 0, f + 0 }' "$T/$s.out" "$T/$s.last.out")
		printf '# %s: %d verified, %d rejected, %d failed (events); summaries: %d, %d, %d\n' \
		    "$s" "$n_v" "$n_r" "$n_f" "$sum_v" "$sum_r" "$sum_f" >&3
		[ "$n_v" -eq "$sum_v" ] && [ "$n_r" -eq "$sum_r" ] && [ "$n_f" -eq "$sum_f" ] ||
		    fail_with "$s: events and printed summaries disagree"
		# The work was shared: each sweep judged some reports.
		(( n_v + n_r > 0 )) || fail_with "$s gave no verdict: the other did all the work"
		total=$((total + n_v + n_r))
	done
	[ "$total" -eq "$N_TASKS" ]
}

@test "sweep: no verification worktree or claim is left; the ledger is intact" {
	# No verification directory with anything in it, nothing held (beside
	# the ledger; for PostgreSQL, in the local directory .daicho/).
	local verify=$T/verify
	if backend_is_postgresql; then
		verify=$T/.daicho/verify
	fi
	if [[ -e $verify ]]; then
		run find "$verify" -mindepth 1
		[ -z "$output" ] || fail_with "leftovers under $verify:" "$output"
	fi
	[ "$(q "SELECT count(*) FROM tasks
	        WHERE verify_token IS NOT NULL OR verify_expires_ms IS NOT NULL
	           OR lease_expires_ms IS NOT NULL")" -eq 0 ]
	# No other directory appeared next to the ledger (only the test's
	# out/ and w/, and an empty verify/ if any).
	run find "$T" -mindepth 1 -maxdepth 1 -type d ! -name out ! -name w ! -name verify \
	    ! -path "$(dirname "$verify")"
	[ -z "$output" ] || fail_with "unexpected directories:" "$output"
	# SQLite's own checks (PostgreSQL enforces foreign keys as it writes).
	if ! backend_is_postgresql; then
		[ "$(q 'PRAGMA integrity_check')" = ok ]
		[ -z "$(q 'PRAGMA foreign_key_check')" ]
	fi
}

@test "sweep: the workers saw no errors" {
	# claim exits 0 or 3 (nothing ready); every report succeeded.
	run awk '($1 == "claim" && $3 != 0 && $3 != 3) || ($1 == "report" && $3 != 0) {
		print worker(FILENAME), $0 }'" $AWK_WORKER" "$T"/w/*.times
	[ -z "$output" ] || fail_with "commands that failed (worker cmd id rc usec):" "$output"
	run grep -vh '^daicho: nothing ready' "$T"/w/*.err
	[ "$status" -eq 1 ] || fail_with "unexpected stderr:" "$output"
	[ "$(awk '$1 == "report" && $3 == 0' "$T"/w/*.times | wc -l)" -eq "$N_TASKS" ]
	local max med p99 n
	read -r max med p99 n <<<"$(timing_stats "$T/w")"
	printf '# %d worker invocations: median %d.%03d ms, p99 %d.%03d ms, max %d.%03d ms\n' \
	    "$n" $((med / 1000)) $((med % 1000)) $((p99 / 1000)) $((p99 % 1000)) \
	    $((max / 1000)) $((max % 1000)) >&3
}
