#!/usr/bin/env bash
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# Benchmarks of 'daicho run' against other local job runners, all in one
# run on the same machine (issue 4): 2,000 jobs of `true`, and 2,000 of
# `sleep 0.05`, 8 at a time, by a bare posix_spawn loop (the floor), make -j8,
# xargs -P8, GNU parallel -j8, task-spooler and daicho run -j 8 (which also
# claims, logs, reports and verifies every task durably). Then the bytes
# daicho run -q writes to stdout for 200 and for 2,000 tasks.
# Usage: bench/runner.sh [COUNT]   (default 2000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
daicho=$here/../daicho
count=${1:-2000}
work=$(mktemp -d /tmp/daicho-runbench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/spawnloop" "$here/spawnloop.c"
export DAICHO_LEDGER

seconds() { # CMD...: wall seconds, 3 decimals
	local start end
	start=$(date +%s%N)
	"$@" >/dev/null 2>&1
	end=$(date +%s%N)
	printf '%d.%03d' $(((end - start) / 1000000000)) $(((end - start) / 1000000 % 1000))
}

fresh_ledger() { # COUNT: a new ledger with COUNT tasks
	DAICHO_LEDGER=$work/l$RANDOM/ledger.db
	"$daicho" init -q
	seq "$1" | awk '{ printf "{\"title\":\"job %d\"}\n", $1 }' |
		"$daicho" add --batch - -q
}

run_all() { # LABEL CMD...: time every runner on CMD
	local label=$1
	shift
	local mk=$work/Makefile tsp_out
	{
		printf 'all:'
		seq "$count" | sed 's/^/ j/' | tr -d '\n'
		printf '\n'
		seq "$count" | while read -r i; do printf 'j%s:\n\t@%s\n' "$i" "$*"; done
	} >"$mk"
	printf '%-14s' "$label"
	printf ' spawnloop %6s' "$(seconds "$work/spawnloop" 8 "$count" "$@")"
	printf ' make %6s' "$(seconds make -s -j8 -f "$mk")"
	# Each line runs the command as is: -I / -N0 insert no argument.
	printf ' xargs %6s' "$(seconds sh -c "seq $count | xargs -P8 -I{} $*")"
	printf ' parallel %6s' "$(seconds sh -c "seq $count | parallel -j8 -N0 $*")"
	if command -v tsp >/dev/null; then
		export TS_SOCKET=$work/tsp.socket TS_SAVELIST=
		tsp -S 8 >/dev/null
		tsp_out=$(seconds sh -c "for i in \$(seq $count); do tsp -n $* >/dev/null; done; tsp -w >/dev/null 2>&1 || true; while [ \$(tsp -l | grep -c -E 'running|queued') -gt 0 ]; do sleep 0.05; done")
		tsp -K >/dev/null 2>&1 || true
		printf ' tsp %6s' "$tsp_out"
	fi
	fresh_ledger "$count"
	printf ' daicho-run %6s\n' "$(seconds "$daicho" run -q -j 8 -- "$@")"
	[ "$("$daicho" ls --state verified | tail -n +2 | wc -l)" -eq "$count" ] ||
		echo "daicho run did not verify every task" >&2
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wall seconds for $count jobs, 8 at a time:"
run_all "true" true
run_all "sleep 0.05" sleep 0.05
for n in 200 "$count"; do
	fresh_ledger "$n"
	printf 'daicho run -q stdout for %d tasks: %d bytes\n' "$n" \
		"$("$daicho" run -q -j 8 -- true | wc -c)"
done
