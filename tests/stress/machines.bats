#!/usr/bin/env bats
# Several machines on one PostgreSQL ledger, simulated on one (issue 17).
#
# A bare remote and four clones of it: A, B and C stand for three machines
# that each run `daicho run -j 4 --worktree` over the one ledger, reached on
# loopback TCP; V stands for a fourth that only verifies (`daicho sweep
# --every`). N tasks (default 300), each done when out/ID.txt exists; a
# worker (below) commits that file on its task's own branch, pushes the
# branch and reports the commit. A commit is therefore on one clone and the
# remote only: whichever sweep verifies it (a runner's own, or V's) must
# fetch it first, and says so in the evidence.
#
# Afterwards: every task verified and landed on the remote's trunk (a
# shared ledger lands on origin), each claimed exactly once and verified
# exactly once, no task held by two runners, and V verified some of them
# from fetched commits.
#
# PostgreSQL only: it runs in make check's PostgreSQL pass.

N_TASKS=${DAICHO_STRESS_MACHINES_TASKS:-300}
# The runners are stopped only when the ledger records nothing for STALL
# seconds (a hang), never for being slow: a loaded machine takes many
# times longer, and a test checks behaviour, not speed.
STALL=${DAICHO_STRESS_MACHINES_STALL:-180}

# A pipeline fails when any command in it fails (as tests/backend.bash).
set -o pipefail

REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

# q SQL: one query on the ledger, rows as a|b lines.
q() {
	psql -X -q -At -F '|' -v ON_ERROR_STOP=1 "$L" -c "$1"
}

# free_port: a TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
	local port
	for port in $(shuf -i 20000-60000 -n 50); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
	done
	return 1
}

setup_file() {
	[ "${DAICHO_TEST_BACKEND:-sqlite}" = postgresql ] || return 0
	export LC_ALL=C
	unset DAICHO_AGENT DAICHO_BUSY_TIMEOUT DAICHO_NOW_MS DAICHO_LEDGER \
	    CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID
	T=$(mktemp -d "$BATS_FILE_TMPDIR/machines.XXXXXX")
	export T
	cp "$REPO/daicho" "$REPO/daicho-pg" "$T/"
	export PATH="$T:$PATH" DAICHO_PG_BIN=$T/daicho-pg
	export GIT_CONFIG_NOSYSTEM=1 HOME=$T
	export GIT_AUTHOR_NAME=M GIT_AUTHOR_EMAIL=m@example.com \
	    GIT_COMMITTER_NAME=M GIT_COMMITTER_EMAIL=m@example.com

	# A cluster of its own, on loopback TCP: the machines' network.
	local port
	port=$(free_port) || { echo "no free port" >"$T/setup.err"; return 0; }
	CLUSTER=$(DAICHO_PG_LISTEN=127.0.0.1 DAICHO_PG_PORT=$port \
	    "$REPO/tests/pg/cluster.sh" start) || { echo "no cluster" >"$T/setup.err"; return 0; }
	echo "$CLUSTER" >"$T/cluster"
	PGHOST=$CLUSTER PGPORT=$port PGUSER=postgres createdb machines
	L="postgresql://postgres@127.0.0.1:$port/machines"
	echo "$L" >"$T/address"
	unset PGHOST PGPORT PGUSER

	git init -q --bare -b main "$T/remote.git"
	git clone -q "$T/remote.git" "$T/seed" 2>/dev/null
	mkdir "$T/seed/out"
	echo keep >"$T/seed/out/.keep"
	git -C "$T/seed" add out/.keep
	git -C "$T/seed" commit -q -m start
	git -C "$T/seed" push -q origin main
	for m in A B C V; do
		git clone -q "$T/remote.git" "$T/$m"
		(cd "$T/$m" && daicho init --ledger "$L") >"$T/init.$m" 2>&1 ||
			{ echo "init in $m failed: $(cat "$T/init.$m")" >"$T/setup.err"; return 0; }
	done

	# The worker: commit out/ID.txt on the task's branch, push it, report.
	cat >"$T/worker.sh" <<'EOF'
#!/bin/sh
set -e
id=$1
# A retry may find its worktree as the last attempt left it, committed.
if [ ! -e "out/$id.txt" ]; then
	echo "task $id on $MACHINE" >"out/$id.txt"
	git add "out/$id.txt"
	git commit -q -m "task $id"
fi
git push -q --force origin "HEAD:refs/heads/task/$id"
daicho report "$id" --commit "$(git rev-parse HEAD)" >/dev/null
EOF
	chmod +x "$T/worker.sh"

	local i
	for ((i = 1; i <= N_TASKS; i++)); do
		printf '{"title":"machines %d","done_when":["file:out/%d.txt"]}\n' "$i" "$i"
	done >"$T/batch.jsonl"
	(cd "$T/A" && daicho add --batch "$T/batch.jsonl") >"$T/batch.ids"

	# V verifies on its own, all along.
	(cd "$T/V" && exec daicho --as verifier sweep --every 200ms) \
	    >"$T/sweep.V.out" 2>"$T/sweep.V.err" &
	echo $! >"$T/sweep.pid"
	local pids=() m
	for m in A B C; do
		(cd "$T/$m" && MACHINE=$m exec daicho --as "runner-$m" run -j 4 --worktree \
		    --retry-backoff 50ms -- "$T/worker.sh" {id}) \
		    >"$T/run.$m.out" 2>"$T/run.$m.err" &
		pids+=($!)
	done
	# The runners end when what they took is verified.
	local last=-1 now moved=$SECONDS
	while kill -0 "${pids[@]}" 2>/dev/null; do
		now=$(q "SELECT coalesce(max(id), 0) FROM events") || now=$last
		[ "$now" = "$last" ] || { last=$now; moved=$SECONDS; }
		if ((SECONDS - moved > STALL)); then
			kill "${pids[@]}" 2>/dev/null
			echo "runners stopped: the ledger recorded nothing for ${STALL}s" >"$T/setup.err"
			break
		fi
		sleep 1
	done
	for i in "${pids[@]}"; do
		wait "$i" || echo "$i exit $?" >>"$T/run.status"
	done
	# V goes on until nothing is left reported, or nothing moves.
	moved=$SECONDS
	while [ "$(q "SELECT count(*) FROM tasks WHERE state = 'reported'")" != 0 ] &&
	    ((SECONDS - moved < STALL)); do
		now=$(q "SELECT coalesce(max(id), 0) FROM events") || now=$last
		[ "$now" = "$last" ] || { last=$now; moved=$SECONDS; }
		sleep 1
	done
	kill "$(cat "$T/sweep.pid")" 2>/dev/null ||
		echo "the fourth clone's sweep had ended: $(tail -2 "$T/sweep.V.err")" >>"$T/setup.err"
	wait || true
}

teardown_file() {
	[ -n "${T:-}" ] && [ -f "$T/cluster" ] &&
		"$REPO/tests/pg/cluster.sh" stop "$(cat "$T/cluster")"
	true
}

setup() {
	[ "${DAICHO_TEST_BACKEND:-sqlite}" = postgresql ] ||
		skip "PostgreSQL only (make check runs it in its PostgreSQL pass)"
	L=$(cat "$T/address")
	if [ -s "$T/setup.err" ]; then
		cat "$T/setup.err" >&2
		return 1
	fi
}

@test "machines: three runners in three clones verify and land all $N_TASKS tasks of one PostgreSQL ledger on the remote's trunk" {
	run q "SELECT state, count(*) FROM tasks GROUP BY state ORDER BY state"
	[ "$output" = "landed|$N_TASKS" ] || {
		echo "states: $output"
		tail -n 3 "$T"/run.*.err "$T"/sweep.V.err
		false
	}
	[ ! -s "$T/run.status" ] || { cat "$T/run.status" "$T"/run.*.err; false; }
	# A shared ledger lands on origin's trunk: every task's file is there.
	run git -C "$T/remote.git" ls-tree -r --name-only main out/
	[ "$(grep -c '^out/[0-9]*\.txt$' <<<"$output")" -eq "$N_TASKS" ] ||
		{ echo "on the remote's main: $(grep -c '^out/[0-9]*\.txt$' <<<"$output") of $N_TASKS"; false; }
}

@test "machines: no two runners held a task at once: a task claimed again was rejected or failed in between" {
	# A claim after a task's first follows a rejection or a failed attempt
	# of it (a verification that failed for a reason of git's under load
	# is retried, and says why: shown here).
	run q "SELECT c.task FROM events c WHERE c.kind = 'claim' AND EXISTS
	         (SELECT 1 FROM events p WHERE p.task = c.task AND p.kind = 'claim' AND p.id < c.id)
	       AND NOT EXISTS (SELECT 1 FROM events r WHERE r.task = c.task
	         AND r.kind IN ('rejected', 'exit', 'release', 'lease-expired')
	         AND r.id < c.id AND r.id > (SELECT max(p.id) FROM events p
	           WHERE p.task = c.task AND p.kind = 'claim' AND p.id < c.id))"
	[ -z "$output" ] || { echo "claimed again while held: $output"; false; }
	run q "SELECT e.task, left(e.detail, 300) FROM events e WHERE e.kind = 'rejected'"
	[ -z "$output" ] || printf '# rejected, then retried: %s\n' "$output" >&3
	run q "SELECT count(DISTINCT task) FROM events WHERE kind = 'claim'"
	[ "$output" = "$N_TASKS" ]
	# Each runner's workers are agents of its own (run<pid>-N): all three
	# runners took a share.
	run q "SELECT count(DISTINCT split_part(a.name, '-', 1)) FROM events e JOIN agents a ON a.id = e.actor WHERE e.kind = 'claim'"
	[ "$output" = 3 ] || { echo "claims came from $output runners"; false; }
}

@test "machines: every task verified exactly once, and the sweep of a fourth clone fetched what it verified" {
	run q "SELECT count(*) FROM (SELECT task FROM verdicts WHERE passed <> 0 GROUP BY task HAVING count(*) <> 1) x"
	[ "$output" = 0 ]
	run q "SELECT count(DISTINCT task) FROM verdicts WHERE passed <> 0"
	[ "$output" = "$N_TASKS" ]
	# The commits were pushed from A, B and C: every clone that verified
	# one it lacked fetched it, and its evidence says so.
	run q "SELECT count(*) FROM verdicts WHERE passed <> 0 AND summary LIKE '%fetched from origin%'"
	[ "$output" -gt 0 ] || { echo "no verdict says it fetched: $output"; false; }
	# V, which made none of the commits, verified some of them.
	run q "SELECT count(*) FROM verdicts v JOIN agents a ON a.id = v.actor WHERE v.passed <> 0 AND a.name = 'verifier'"
	[ "$output" -gt 0 ] || { echo "the fourth clone verified nothing: $output"; false; }
}
