#!/usr/bin/env bats
# Exactly-once claims through the pool of warm connections (src/store/pool).
#
# 32 claimer processes (claim_worker.sh, each its own agent) loop
# claim --next through one pool over DAICHO_STRESS_POOL_TASKS tasks
# (default 2,000) until nothing is ready. Then the same while the pool is
# killed -9 once mid-drain and, a second later, started again: the
# claims in flight may fail with exit 75; the others go on directly, then
# through the new pool; none is doubled, none lost.
#
# PostgreSQL only: it runs in make check's PostgreSQL pass.

load common

N_WORKERS=32
N_TASKS=${DAICHO_STRESS_POOL_TASKS:-2000}
DEADLINE=${DAICHO_STRESS_DEADLINE:-60}
CLAIM_WORKER=$STRESS_DIR/claim_worker.sh

setup() {
	[ "${DAICHO_TEST_BACKEND:-sqlite}" = postgresql ] ||
		skip "PostgreSQL only (make check runs it in its PostgreSQL pass)"
	stress_setup
	POOL_PIDS=() WORKER_PIDS=()
	private_pool_dir "$T/run"
	add_tasks "$N_TASKS" 3
}

teardown() {
	local pid
	for pid in "${WORKER_PIDS[@]}"; do
		kill_worker "$pid" || true
	done
	for pid in "${POOL_PIDS[@]}"; do
		# Only a daicho-pg still running: the pid may be another's by now.
		if [[ "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" == *daicho-pg* ]]; then
			kill -9 "$pid" 2>/dev/null || true
		fi
	done
	release_pool_dir
}

# start_pool: 'daicho pool start'; sets POOL_PID (recorded for teardown).
start_pool() {
	local out
	out=$("$D" pool start) || fail_with "pool start failed: $out"
	[[ "$out" =~ ^pool\ started:\ pid\ ([0-9]+), ]] || fail_with "pool start: $out"
	POOL_PID=${BASH_REMATCH[1]}
	POOL_PIDS+=("$POOL_PID")
}

# sessions_total: how many commands the pool that answers has served.
sessions_total() {
	"$D" --json pool status | jq -r .sessions_total
}

# start_claimers NAME_PREFIX: N_WORKERS claimers in $T/w, each in its own
# session (kill_worker kills it and its daicho).
start_claimers() {
	local i
	mkdir -p "$T/w"
	for ((i = 1; i <= N_WORKERS; i++)); do
		setsid "$CLAIM_WORKER" "$D" "$1$i" "$T/w" &
		WORKER_PIDS+=($!)
	done
}

# claims_logged RC: "ID|NAME" for each claim a worker logged with RC.
claims_logged() {
	awk -v rc="$1" '$2 == rc { print $1 "|" worker(FILENAME) }
	    function worker(f) { sub(/.*\//, "", f); sub(/\.claims$/, "", f); return f }' \
	    "$T"/w/*.claims | sort
}

# check_exactly_once: every task claimed once in the ledger (one claim
# event, the owner its claimer), and every claim a worker was told
# succeeded is that one.
check_exactly_once() {
	run q "SELECT task, count(*) FROM events WHERE kind = 'claim'
	       GROUP BY task HAVING count(*) > 1 LIMIT 20"
	[ -z "$output" ] || fail_with "tasks claimed twice (task claims):" "$output"
	run q "SELECT count(DISTINCT task), count(*) FROM events WHERE kind = 'claim'"
	[ "$output" = "$N_TASKS|$N_TASKS" ] ||
		fail_with "claim events: distinct tasks|events = $output, want $N_TASKS|$N_TASKS" \
		"states: $(q "SELECT state, count(*) FROM tasks GROUP BY state")"
	run q "SELECT count(*) FROM tasks WHERE state <> 'claimed' OR owner IS NULL"
	[ "$output" = 0 ] || fail_with "tasks not claimed: $output"
	# Owner and claim event agree.
	run q "SELECT t.id FROM tasks t JOIN events e ON e.task = t.id AND e.kind = 'claim'
	       WHERE e.actor <> t.owner LIMIT 20"
	[ -z "$output" ] || fail_with "tasks whose owner is not their claimer:" "$output"
	# No id went to two workers, and each went to the one the ledger says.
	claims_logged 0 >"$T/claimed_ok"
	run uniq -d <<<"$(cut -d '|' -f 1 "$T/claimed_ok" | sort)"
	[ -z "$output" ] || fail_with "ids handed to two workers:" "$output"
	q "SELECT t.id || '|' || a.name FROM tasks t JOIN agents a ON a.id = t.owner" |
		sort >"$T/owned"
	run comm -23 "$T/claimed_ok" "$T/owned"
	[ -z "$output" ] || fail_with "claims a worker was told it got that the ledger does not hold:" "$output"
}

# check_workers_stopped_on_nothing_ready: each worker's last claim
# exited 3, its only 3, with 'nothing ready' its only line of that kind.
check_workers_stopped_on_nothing_ready() {
	run awk '{ w = FILENAME; last[w] = $2 } $2 == 3 { n[w]++ }
		END { for (w in last) if (n[w] != 1 || last[w] != 3)
			print w ": " n[w] " exits 3, last exit " last[w] }' "$T"/w/*.claims
	[ -z "$output" ] || fail_with "workers that did not stop on 'nothing ready':" "$output"
	[ "$(grep -c '^daicho: nothing ready' "$T"/w/*.err | awk -F: '{ s += $NF } END { print s }')" -eq "$N_WORKERS" ]
}

@test "pool stress: 32 claimers through one pool drain 2,000 tasks: each claimed exactly once, every command through the pool, no error but 'nothing ready'" {
	start_pool
	local start end
	start=$(now_us)
	start_claimers c
	wait_workers "$DEADLINE" "${WORKER_PIDS[@]}" || fail_with "the drain stopped moving for ${DEADLINE}s: $(q "SELECT state, count(*) FROM tasks GROUP BY state")"
	end=$(now_us)
	local invocations
	invocations=$(cat "$T"/w/*.claims | wc -l)
	printf '# %d claims by %d workers through one pool in %d.%03d s (%d claims/s)\n' \
	    "$N_TASKS" "$N_WORKERS" $(((end - start) / 1000000)) $(((end - start) / 1000 % 1000)) \
	    $((N_TASKS * 1000000 / (end - start))) >&3
	check_exactly_once
	# No error at all but each worker's one 'nothing ready'.
	run awk '$2 != 0 && $2 != 3' "$T"/w/*.claims
	[ -z "$output" ] || fail_with "claims that failed (id rc):" "$output"
	run grep -vh '^daicho: nothing ready' "$T"/w/*.err
	[ "$status" -eq 1 ] || fail_with "unexpected stderr:" "$output"
	check_workers_stopped_on_nothing_ready
	[ "$invocations" -eq $((N_TASKS + N_WORKERS)) ]
	# Every one of them went through the pool (none fell back to a direct
	# connection under the load), and none is left open in it.
	[ "$(sessions_total)" -eq "$invocations" ] ||
		fail_with "the pool served $(sessions_total) of $invocations commands"
	[ "$("$D" --json pool status | jq .sessions_now)" -eq 0 ]
}

@test "pool stress: the pool killed -9 mid-drain and started again: claims in flight fail with 75 or succeed; none doubled, none lost; the rest drain directly, then through the new pool" {
	start_pool
	local first=$POOL_PID
	start_claimers k
	# A third of the way, kill the pool; a second later start another.
	local claimed last=-1 moved=$SECONDS
	while claimed=$(q "SELECT count(*) FROM tasks WHERE state = 'claimed'") &&
	    ((claimed < N_TASKS / 3)); do
		[ "$claimed" = "$last" ] || { last=$claimed; moved=$SECONDS; }
		((SECONDS - moved < DEADLINE)) ||
			fail_with "the drain stopped moving for ${DEADLINE}s at $claimed claimed"
		nap 0.05
	done
	kill -9 "$first"
	local at_kill
	at_kill=$(q "SELECT count(*) FROM tasks WHERE state = 'claimed'")
	nap 1
	local during
	during=$(q "SELECT count(*) FROM tasks WHERE state = 'claimed'")
	start_pool
	wait_workers "$DEADLINE" "${WORKER_PIDS[@]}" || fail_with "the drain did not finish: $(q "SELECT state, count(*) FROM tasks GROUP BY state")"
	local served failed
	served=$(sessions_total)
	failed=$(awk '$2 != 0 && $2 != 3' "$T"/w/*.claims | wc -l)
	printf '# killed the pool at %d claimed; %d claimed in the second without one; the new pool served %d; %d claims failed\n' \
	    "$at_kill" $((during - at_kill)) "$served" "$failed" >&3

	# Every failure is a 75, said in one line.
	run awk '$2 != 0 && $2 != 3 && $2 != 75' "$T"/w/*.claims
	[ -z "$output" ] || fail_with "claims that failed otherwise than with 75 (id rc):" "$output"
	run grep -vh -e '^daicho: nothing ready' -e '^daicho: .*daicho pool' "$T"/w/*.err
	[ "$status" -eq 1 ] || fail_with "unexpected stderr:" "$output"
	[ "$(grep -hc '^daicho: .*daicho pool' "$T"/w/*.err | awk '{ s += $1 } END { print s }')" -eq "$failed" ]
	# The claims went on without a pool, then through the new one.
	((during > at_kill)) || fail_with "no claim succeeded in the second without a pool"
	((served > 0)) || fail_with "the new pool served nothing"
	check_workers_stopped_on_nothing_ready

	# None doubled; every claim a worker was told it got is in the ledger.
	check_exactly_once
	# None lost: a task held by a worker that was not told it got it is a
	# claim that failed with 75 because the pool died after the server
	# committed it; the error said it may have been made ('look before
	# retrying'). Such a worker holds at most one per 'may or may not'.
	claims_logged 0 | cut -d '|' -f 2 | sort | uniq -c | awk '{ print $2, $1 }' >"$T/told"
	q "SELECT a.name, count(*) FROM tasks t JOIN agents a ON a.id = t.owner GROUP BY a.name" |
		tr '|' ' ' | sort >"$T/held"
	local name held told maybe extra=0
	while read -r name held; do
		told=$(awk -v n="$name" '$1 == n { print $2 }' "$T/told")
		maybe=$(grep -c 'may or may not have been made' "$T/w/$name.err" || true)
		((held - ${told:-0} <= maybe)) ||
			fail_with "$name holds $held tasks, was told of ${told:-0}, and warned of $maybe: tasks lost to it"
		extra=$((extra + held - ${told:-0}))
	done <"$T/held"
	((extra == 0)) || printf '# %d claims made by the server though their pool died before answering (the worker was told they may have been)\n' "$extra" >&3
}
