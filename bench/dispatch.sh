#!/usr/bin/env bash
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# Durable dispatch against the bare floor (issue 19): `daicho run -j 8 --
# true {id}` over 600 and over 2,000 ready tasks, every transition durable
# and every task verified, against a bare posix_spawn loop (bench/
# spawnloop.c, the floor) and `xargs -P 8 -n 1`, in alternating runs,
# medians. Every runner runs the same command, `true` with one argument:
# coreutils' true loads the locale when it has one (to answer --help), a
# third of what the job costs here, so `true` alone against `true N` would
# compare different jobs. The same without the argument follows.
# Then the effective concurrency on 2,000 x `sleep 0.05` against the loop,
# three runs. The process start cost of the machine is printed first: it
# decides how much of a job the runner's own work is.
#
# Usage: bench/dispatch.sh [RUNS]   (default 5; DAICHO=binary to measure)
# The report is also appended to bench/out/dispatch.log (BENCH_OUT).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${BENCH_OUT:-$here/out}
mkdir -p "$out"
exec > >(tee -a "$out/dispatch.log")
echo "== bench/dispatch.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
daicho=${DAICHO:-$here/../daicho}
runs=${1:-5}
work=$(mktemp -d "${BENCH_TMP:-/tmp}/daicho-dispatch.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/spawnloop" "$here/spawnloop.c"
export DAICHO_LEDGER

ms() { # CMD...: wall milliseconds
	local start
	start=$(date +%s%N)
	"$@" >/dev/null 2>&1
	echo $((($(date +%s%N) - start) / 1000000))
}

fresh_ledger() { # COUNT
	DAICHO_LEDGER=$work/l$RANDOM$RANDOM/ledger.db
	"$daicho" init -q
	seq "$1" | awk '{ printf "{\"title\":\"job %d\"}\n", $1 }' |
		"$daicho" add --batch - -q
	sync
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

verified() {
	"$daicho" ls --state verified --limit 100000 --json | grep -o '"id":' | wc -l
}

# Process start cost: 200 starts of `daicho --version` and of /bin/true.
start_cost() {
	local t0 t1
	t0=$(date +%s%N)
	for _ in $(seq 200); do "$1" "${@:2}" >/dev/null; done
	t1=$(date +%s%N)
	awk -v d=$((t1 - t0)) 'BEGIN { printf "%.3f", d / 200 / 1e6 }'
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "daicho: $("$daicho" --version) ($daicho)"
echo "process start: /bin/true $(start_cost /bin/true) ms, daicho --version $(start_cost "$daicho" --version) ms (mean of 200)"

# compare COUNT ARG: alternating runs of the loop, xargs and daicho run,
# each running `true` with one argument (ARG=1) or none (ARG=0).
compare() {
	local count=$1 arg=$2 s x d what
	: >"$work/times"
	for _ in $(seq "$runs"); do
		if [ "$arg" = 1 ]; then
			s=$(ms "$work/spawnloop" 8 "$count" true 1)
			x=$(ms sh -c "seq $count | xargs -P 8 -n 1 true")
			fresh_ledger "$count"
			d=$(ms "$daicho" run -q -j 8 -- true '{id}')
		else
			s=$(ms "$work/spawnloop" 8 "$count" true)
			x=$(ms sh -c "seq $count | xargs -P 8 -I{} true")
			fresh_ledger "$count"
			d=$(ms "$daicho" run -q -j 8 -- true)
		fi
		[ "$(verified)" -eq "$count" ] || { echo "daicho run did not verify every task" >&2; exit 1; }
		echo "$s $x $d" >>"$work/times"
	done
	s=$(cut -d' ' -f1 "$work/times" | median)
	x=$(cut -d' ' -f2 "$work/times" | median)
	d=$(cut -d' ' -f3 "$work/times" | median)
	what=$([ "$arg" = 1 ] && echo "true N (run: true {id}; xargs -n 1)" || echo "true, no argument")
	printf '%d x %s, -j 8, %d alternating runs (ms: loop xargs daicho):' "$count" "$what" "$runs"
	tr '\n' ';' <"$work/times" | sed 's/;$//; s/;/; /g; s/^/ /'
	echo
	awk -v s="$s" -v x="$x" -v d="$d" 'BEGIN { printf "  medians: loop %d ms, xargs -P 8 %d ms, daicho run %d ms: %.2fx the loop (target <= 1.2), %.2fx xargs (target < 1)\n", s, x, d, d / s, d / x }'
}

for count in 600 2000; do
	compare "$count" 1
done
compare 2000 0

echo "2000 x sleep 0.05, -j 8: effective concurrency against the loop, 3 runs:"
for _ in 1 2 3; do
	s=$(ms "$work/spawnloop" 8 2000 sleep 0.05)
	fresh_ledger 2000
	d=$(ms "$daicho" run -q -j 8 -- sleep 0.05)
	awk -v s="$s" -v d="$d" 'BEGIN { printf "  loop %d ms, daicho run %d ms: %.1f%% (target >= 95%%)\n", s, d, 100 * s / d }'
done
