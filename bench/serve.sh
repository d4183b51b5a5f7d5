#!/usr/bin/env bash
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# The dashboard at scale: a ledger of 10,000 tasks and 1,000 agents, then
# the median time to serve the Needs-you page (/) and the collapsed graph
# page (/graph) over loopback, measured with curl. Targets (issue 18):
# Needs you <= 50 ms, graph <= 300 ms, median.
#
# The ledger: 10,000 tasks in 500 chains of 20 (each after the one before),
# added with 'daicho add --batch'; 9,000 (chains 1-450) then set verified
# directly in SQLite, as a finished project's would be (verifying 9,000
# tasks through the sweep would take the benchmark most of an hour and
# measure the sweep, not the dashboard); 1,000 agents registered with
# 'daicho agent start'; 300 of them try 'claim --next' and the 50 ready
# chain heads (chains 451-499, their deps set met) are claimed, 40 of those
# blocking it, 25 tasks failed, 10 approval requests pending; then every
# agent is left unseen long enough to be stale, so that Needs you lists
# stale agents holding work too.
#
# The graph is measured twice: "cached" (the server keeps the last SVG
# until the next event) and "cold" (an event before each request, so it is
# read and laid out again).
#
# Usage: bench/serve.sh [RUNS]   (RUNS requests per page, default 30)
# Output: bench/out/serve.txt
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-30}
out="$root/bench/out"
work=$(mktemp -d "${TMPDIR:-/tmp}/daicho-bench-serve.XXXXXX")
mkdir -p "$out"
export PATH="$root:$PATH" DAICHO_LEDGER="$work/ledger.db" NO_COLOR=1
unset DAICHO_AGENT CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID
server=""
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
say() { printf '%s\n' "$*" | tee -a "$out/serve.txt"; }
: >"$out/serve.txt"

cd "$work"
daicho init >/dev/null
started=$SECONDS
for c in $(seq 0 499); do
	for k in $(seq 0 19); do
		i=$((c * 20 + k))
		if [ "$k" -eq 0 ]; then
			printf '{"title":"chain %d step %d","key":"t%d","labels":["chain%d"]}\n' "$c" "$k" "$i" $((c % 10))
		else
			printf '{"title":"chain %d step %d","key":"t%d","after":["t%d"],"labels":["chain%d"]}\n' "$c" "$k" "$i" $((i - 1)) $((c % 10))
		fi
	done
done >tasks.jsonl
daicho add --batch tasks.jsonl >/dev/null
sqlite3 "$DAICHO_LEDGER" "UPDATE tasks SET state = 'verified' WHERE id <= 9000;
	UPDATE tasks SET unmet_deps = 0 WHERE id > 9000 AND (id - 1) % 20 = 0;
	UPDATE tasks SET state = 'failed' WHERE id > 9000 AND (id - 1) % 20 = 5 AND id <= 9500;"
for a in $(seq 1 1000); do
	daicho --as "agent$a" agent start "agent$a" --role worker >/dev/null
done
# 300 claims: the heads of chains 451-499 and the tasks after them.
claimed=0
for a in $(seq 1 300); do
	if daicho --as "agent$a" claim --next >/dev/null 2>&1; then
		claimed=$((claimed + 1))
	fi
done
for t in $(daicho ls --state claimed --json | jq -r '.[:40][] | "\(.id) \(.owner)"' | tr ' ' ':'); do
	daicho --as "${t#*:}" block "${t%%:*}" --reason "needs a person" >/dev/null
done
mkdir -p bin && printf '#!/bin/sh\n' >bin/deploy && chmod +x bin/deploy
PATH="$work/bin:$PATH" script -qec "daicho gate add 'deploy *' --approval" /dev/null </dev/null >/dev/null
for a in $(seq 1 10); do
	PATH="$work/bin:$PATH" daicho --as "agent$a" gate exec -- deploy "env$a" >/dev/null 2>&1 || true
done
# Every agent unseen for 20 minutes: stale (the dashboard's default is 10).
sqlite3 "$DAICHO_LEDGER" "UPDATE agents SET last_seen_ms = last_seen_ms - 1200000"
say "ledger: $(sqlite3 "$DAICHO_LEDGER" 'SELECT count(*) FROM tasks') tasks ($(daicho ls --state verified --json | jq length) verified, $claimed claimed then, $(daicho ls --state blocked --json | jq length) blocked, $(daicho ls --state failed --json | jq length) failed), $(sqlite3 "$DAICHO_LEDGER" 'SELECT count(*) FROM agents') agents, $(daicho status --json | jq '.needs_you | length') needs-you items; built in $((SECONDS - started)) s"

daicho serve --listen 127.0.0.1:0 </dev/null >serve.out 2>&1 &
for _ in $(seq 100); do grep -q 'dashboard at' serve.out && break; sleep 0.05; done
url=$(grep -o 'http://[0-9.:]*' serve.out | head -1)
server=$(pgrep -f "^$root/daicho-serve --ledger $DAICHO_LEDGER serve" | head -1)

# median PATH [cold]: the median of $runs curl time_total in ms.
median() {
	local path=$1 cold=${2:-} i
	for i in $(seq "$runs"); do
		if [ -n "$cold" ]; then
			sqlite3 "$DAICHO_LEDGER" \
				"INSERT INTO events (at_ms, kind) VALUES (0, 'bench-tick')"
			sleep 0.3
		fi
		curl -s -o /dev/null -w '%{time_total}\n' "$url$path"
	done | sort -n | awk '{ t[NR] = $1 * 1000 } END { printf "%.1f", (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }'
}
curl -s -o /dev/null "$url/" && curl -s -o /dev/null "$url/graph"
needs=$(median /)
graph=$(median /graph)
cold_runs=$runs
runs=$(( runs < 11 ? runs : 11 ))
graph_cold=$(median /graph cold)
nodes=$(curl -s "$url/graph" | grep -o '([0-9]* tasks, [0-9]* nodes drawn[^)]*)' | head -1)
say "Needs-you page (/): median ${needs} ms over $cold_runs requests (target 50 ms)"
say "graph page (/graph), collapsed, cached: median ${graph} ms over $cold_runs requests"
say "graph page (/graph), collapsed, cold (an event before each): median ${graph_cold} ms over $runs requests (target 300 ms)"
say "graph: $nodes; page size $(curl -s "$url/graph" | wc -c) bytes"
say "Needs-you page size $(curl -s "$url/" | wc -c) bytes; server RSS $(awk '/VmRSS/ { print $2, $3 }' /proc/"$server"/status)"
