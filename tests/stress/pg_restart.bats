#!/usr/bin/env bats
# A restart of the PostgreSQL server under a running `daicho run` and
# claimers (issue 17): the runner rides it out between transactions (a
# restart that cuts one of its transactions ends it with exit 75, and a
# second run finishes); nothing is lost, no task is held twice at once, and a
# command that met the restart either did its change whole or exited 75
# with none of it.
#
# A cluster of its own (a restart would cut every other test's
# connections), N tasks (default 400) of which the runner takes the ones
# labelled run, 16 claimer loops the rest, and `pg_ctl restart -m fast`
# twice while they work.
#
# PostgreSQL only: it runs in make check's PostgreSQL pass.

N_TASKS=${DAICHO_STRESS_RESTART_TASKS:-400}
# A pipeline fails when any command in it fails (as tests/backend.bash).
set -o pipefail

REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

q() {
	psql -X -q -At -F '|' -v ON_ERROR_STOP=1 "$L" -c "$1"
}

# pg_ctl_restart: restart the test's cluster, as its owner.
pg_ctl_restart() {
	local bin
	bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
	if [ "$(id -u)" = 0 ]; then
		runuser -u "${DAICHO_PG_USER:-nobody}" -- "$bin/pg_ctl" -D "$CLUSTER/data" -m fast -w restart >/dev/null
	else
		"$bin/pg_ctl" -D "$CLUSTER/data" -m fast -w restart >/dev/null
	fi
}

# claimer NAME: claim, then report, until nothing is left; log every exit status.
claimer() {
	local id rc mine
	set +e # bats runs with errexit; every exit status is looked at here
	while :; do
		id=$(daicho --as "$1" claim --next --label loose 2>>"$T/$1.err")
		rc=$?
		echo "claim $rc $id" >>"$T/$1.log"
		case $rc in
		0) ;;
		3) return 0 ;;
		75)
			# The claim may have been committed with the answer lost:
			# what this agent holds is in the ledger. The look may
			# meet the server still down: look again.
			until mine=$(daicho --as "$1" ls --mine --state claimed --json 2>>"$T/$1.err"); do
				sleep 0.1
			done
			id=$(jq -r '.[0].id // empty' <<<"$mine")
			[ -n "$id" ] || continue
			echo "claim held $id" >>"$T/$1.log"
			;;
		*) echo "claim exit $rc: $id" >>"$T/claimers.status"; return 1 ;;
		esac
		until daicho --as "$1" report "$id" 2>>"$T/$1.err"; do
			rc=$?
			echo "report $rc $id" >>"$T/$1.log"
			[ "$rc" = 75 ] || { echo "report exit $rc" >>"$T/claimers.status"; return 1; }
			# The report may have been committed with the answer
			# lost ("may or may not have been made"): look first, as
			# the message says, and retry only when it was not.
			# The look may meet the server still down: look again.
			until mine=$(daicho --as "$1" ls --mine --state reported --json 2>>"$T/$1.err"); do
				sleep 0.1
			done
			if [ "$(jq --argjson id "$id" 'any(.[]; .id == $id)' <<<"$mine")" = true ]; then
				echo "report held $id" >>"$T/$1.log"
				break
			fi
		done
		echo "report 0 $id" >>"$T/$1.log"
	done
}

setup_file() {
	[ "${DAICHO_TEST_BACKEND:-sqlite}" = postgresql ] || return 0
	export LC_ALL=C
	unset DAICHO_AGENT DAICHO_NOW_MS DAICHO_LEDGER \
	    CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID
	T=$(mktemp -d "$BATS_FILE_TMPDIR/restart.XXXXXX")
	export T
	cp "$REPO/daicho" "$REPO/daicho-pg" "$T/"
	export PATH="$T:$PATH" DAICHO_PG_BIN=$T/daicho-pg HOME=$T
	CLUSTER=$(DAICHO_PG_PORT=5433 "$REPO/tests/pg/cluster.sh" start) ||
		{ echo "no cluster" >"$T/setup.err"; return 0; }
	echo "$CLUSTER" >"$T/cluster"
	PGHOST=$CLUSTER PGPORT=5433 PGUSER=postgres createdb restart
	export L="postgresql:///restart?host=$CLUSTER&port=5433&user=postgres"
	export DAICHO_LEDGER=$L
	mkdir -p "$T/work/out"
	cd "$T/work" || return 0
	daicho init >/dev/null
	local i
	for ((i = 1; i <= N_TASKS; i++)); do
		if ((i % 2)); then
			printf '{"title":"run %d","labels":["run"],"done_when":["file:out/%d.txt"]}\n' "$i" "$i"
		else
			printf '{"title":"loose %d","labels":["loose"]}\n' "$i"
		fi
	done >"$T/batch.jsonl"
	daicho add --batch "$T/batch.jsonl" >/dev/null

	# The worker writes its file after a short nap.
	printf '#!/bin/sh\nsleep 0.05\necho done >"out/$1.txt"\n' >"$T/worker.sh"
	chmod +x "$T/worker.sh"
	(exec daicho --as runner run -j 4 --label run --retry-backoff 50ms -- "$T/worker.sh" {id}) \
	    >"$T/run.out" 2>"$T/run.err" &
	local runner=$! pids=()
	for ((i = 1; i <= 16; i++)); do
		claimer "c$i" &
		pids+=($!)
	done
	sleep 2
	pg_ctl_restart || echo "first restart failed" >>"$T/setup.err"
	sleep 2
	pg_ctl_restart || echo "second restart failed" >>"$T/setup.err"
	local status=0
	for i in "${pids[@]}"; do
		wait "$i" || echo "a claimer failed" >>"$T/claimers.status"
	done
	wait "$runner" || status=$?
	echo "$status" >"$T/run.status"
	# A restart that cuts one of the runner's transactions ends it with
	# exit 75, nothing of that transaction applied; run again, it takes
	# up what the first left (its workers' exits, their claims).
	if [ "$status" = 75 ]; then
		status=0
		daicho --as runner run -j 4 --label run --retry-backoff 50ms -- \
		    "$T/worker.sh" {id} >"$T/run2.out" 2>"$T/run2.err" || status=$?
		echo "$status" >"$T/run2.status"
	fi
}

teardown_file() {
	[ -n "${T:-}" ] && [ -f "$T/cluster" ] &&
		"$REPO/tests/pg/cluster.sh" stop "$(cat "$T/cluster")"
	true
}

setup() {
	[ "${DAICHO_TEST_BACKEND:-sqlite}" = postgresql ] ||
		skip "PostgreSQL only (make check runs it in its PostgreSQL pass)"
	if [ -s "$T/setup.err" ]; then
		cat "$T/setup.err" >&2
		return 1
	fi
}

@test "restart: the runner rides out two server restarts (or, cut in a transaction, exits 75 and a second run finishes) and every task it takes is verified" {
	case $(cat "$T/run.status") in
	0) ;;
	75) [ "$(cat "$T/run2.status")" = 0 ] || { tail -5 "$T/run2.err"; false; } ;;
	*) tail -5 "$T/run.err"; false ;;
	esac
	run q "SELECT t.id, t.state FROM tasks t JOIN labels l ON l.task = t.id WHERE l.label = 'run' AND t.state <> 'verified'"
	[ -z "$output" ] || {
		echo "not verified: $output"
		echo "runner: $(cat "$T/run.status") $(cat "$T/run2.status" 2>/dev/null)"
		tail -5 "$T/run.err" "$T"/run2.err 2>/dev/null || true
		cat "$T"/run2.out 2>/dev/null || true
		q "SELECT e.task, e.kind, e.detail FROM events e WHERE e.task = ${output%%|*} ORDER BY e.id"
		false
	}
}

@test "restart: the claimers finish too; a command cut by the restart exited 75 and was retried" {
	[ ! -s "$T/claimers.status" ] || { cat "$T/claimers.status"; cat "$T"/c*.err | sort | uniq -c | head; false; }
	run q "SELECT t.id, t.state FROM tasks t JOIN labels l ON l.task = t.id WHERE l.label = 'loose' AND t.state NOT IN ('reported', 'verified')"
	[ -z "$output" ] || { echo "not reported: $output"; grep -h "${output%%|*}" "$T"/c*.log; false; }
	# Only exits 0, 3 and 75 were seen ("claim held ID" and "report held
	# ID" lines are the claims and reports found in the ledger after a 75:
	# a COMMIT made as the server went down, its answer lost).
	! cat "$T"/c*.log | awk '$2 != "held" && $2 != 0 && $2 != 3 && $2 != 75' | grep -q .
}

@test "restart: no task was held twice at once, and every claim has its event" {
	# A task is claimed again only once its claim has ended: a run cut by
	# the restart leaves its workers' claims, and the second run sees its
	# process gone and expires them (lease-expired) before it takes them.
	# The claimers' tasks are claimed once.
	run q "SELECT DISTINCT c.task FROM events c JOIN events p ON p.task = c.task
	    AND p.kind = 'claim' AND p.id < c.id WHERE c.kind = 'claim' AND NOT EXISTS
	    (SELECT 1 FROM events x WHERE x.task = c.task AND x.id > p.id AND x.id < c.id
	     AND x.kind = 'lease-expired')"
	[ -z "$output" ] || {
		echo "claimed again while held: $output"
		q "SELECT e.id, e.task, e.kind, a.name, e.detail FROM events e LEFT JOIN agents a ON a.id = e.actor WHERE e.task IN (${output//$'\n'/,}) ORDER BY e.id"
		false
	}
	[ "$(q "SELECT count(*) FROM (SELECT e.task FROM events e JOIN labels l ON l.task = e.task
	    AND l.label = 'loose' WHERE e.kind = 'claim' GROUP BY e.task HAVING count(*) > 1) x")" = 0 ]
	[ "$(q "SELECT count(DISTINCT task) FROM events WHERE kind = 'claim'")" = "$N_TASKS" ]
	# What the claimers were told they hold (by the claim, or by the ledger
	# after a claim cut by the restart) is what the ledger says they claimed.
	local told
	told=$(cat "$T"/c*.log | awk '$1 == "claim" && ($2 == 0 || $2 == "held") { print $3 }' | sort -n | uniq | wc -l)
	[ "$told" = "$(q "SELECT count(*) FROM tasks t JOIN labels l ON l.task = t.id WHERE l.label = 'loose'")" ]
}
