#!/usr/bin/env bash
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# Where the time of a concurrent drain goes (the analysis behind benchmark 2
# in RESULTS.md). Not part of `make bench`.
#
#   bench/drain-profile.sh [PROCS [SECONDS]]     (default 32 processes, 30 s)
#
# Runs PROCS claimer loops (`daicho --as cN claim --next`, as in benchmark 2)
# against a ledger of 20,000 tasks for SECONDS and prints: claims per second;
# the CPU use of the whole machine (/proc/stat) and context switches per
# second; the CPU time of the claimers themselves per claim; and, from
# $DAICHO_TRACE_LOCK, how long each claim waited for and held the ledger's
# write lock. The report is also saved as bench/out/drain-profile-PROCS.txt;
# with `perf`, the top of a system-wide profile taken in the middle of the
# run goes to bench/out/drain-profile-PROCS-perf.txt.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
procs=${1:-32}
secs=${2:-30}
OUT=${BENCH_OUT:-$here/out}
mkdir -p "$OUT"
exec > >(tee "$OUT/drain-profile-$procs.txt")
unset DAICHO_LEDGER DAICHO_AGENT CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID
W=$(mktemp -d /tmp/daicho-drain.XXXXXX)
trap 'rm -rf "$W"' EXIT
D=$W/daicho
cp "${DAICHO:-$root/daicho}" "$D"
L=$W/ledger.db
"$D" --ledger "$L" init >/dev/null
awk 'BEGIN { for (i = 1; i <= 20000; i++) printf "{\"title\":\"drain %d\"}\n", i }' |
	"$D" --ledger "$L" add --batch - >/dev/null
mkdir "$W/c"

# user, system, idle (jiffies) and context switches so far
cpu() { awk '/^cpu / { print $2 + $3, $4 + $7 + $8, $5 + $6 } /^ctxt/ { print $2 }' /proc/stat | paste -sd' '; }

claimer() {
	local now end=$(($(date +%s) + secs))
	while :; do
		printf -v now '%(%s)T' -1
		[ "$now" -lt "$end" ] || break
		DAICHO_TRACE_LOCK=$W/trace "$D" --ledger "$L" --as "$1" claim --next >>"$W/c/$1" 2>/dev/null ||
			break
	done
	date +%s%N >>"$W/ends"
}

echo "drain profile: $procs claimers for $secs s; load $(cut -d' ' -f1-3 /proc/loadavg)"
read -r u0 s0 i0 c0 <<<"$(cpu)"
t0=$(date +%s%N)
pids=()
for i in $(seq 1 "$procs"); do
	claimer "c$i" &
	pids+=($!)
done
perf_pid=
if command -v perf >/dev/null 2>&1; then
	(sleep $((secs / 4)) && exec perf record -a -g -o "$W/perf.data" -- sleep $((secs / 2))) \
		>/dev/null 2>&1 &
	perf_pid=$!
fi
wait "${pids[@]}"
t1=$(sort -n "$W/ends" | tail -1) # when the last claimer stopped
read -r u1 s1 i1 c1 <<<"$(cpu)"
# CPU of this script's children: the claimer loops and every daicho they ran
# (and perf record when it has ended by now: a little).
times >"$W/times"
if [ -n "$perf_pid" ] && wait "$perf_pid"; then
	perf report -i "$W/perf.data" --no-children --sort comm,dso,symbol --stdio 2>/dev/null |
		grep -v '^#' | grep '%' | head -60 >"$OUT/drain-profile-$procs-perf.txt"
fi
own=$(awk 'NR == 2 { print $1, $2 }' "$W/times" |
	awk '{ for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] } } END { print t }')
n=$(cat "$W"/c/* | wc -l)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e9 }')
awk -v n="$n" -v w="$wall" -v own="$own" -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v i=$((i1 - i0)) -v c=$((c1 - c0)) 'BEGIN {
	t = u + s + i
	printf "claims: %d in %.1f s = %.1f/s (%.1f ms per claim)\n", n, w, n / w, w * 1000 / n
	printf "machine CPU: user %.0f%%, system %.0f%%, idle+iowait %.0f%%; %.0f context switches/s\n",
		100 * u / t, 100 * s / t, 100 * i / t, c / w
	printf "CPU per claim (whole machine, includes other load): %.1f ms\n", (u + s) * 10 / n
	printf "CPU per claim (the claimers alone, bash loop included): %.1f ms\n", own * 1000 / n
}'
sort -n -k4 "$W/trace" | awk '{ w[NR] = $4 / 1000; hs += $5 / 1000; ws += $4 / 1000 }
	END { printf "write lock per claim: wait median %.1f ms (mean %.1f); held mean %.2f ms\n",
		w[int((NR + 1) / 2)], ws / NR, hs / NR }'
awk '{ print $5 / 1000 }' "$W/trace" | sort -n |
	awk '{ a[NR] = $1 } END { printf "held: median %.2f ms, 90th %.2f ms, max %.1f ms\n", a[int((NR + 1) / 2)], a[int(NR * 0.9)], a[NR] }'
[ -s "$OUT/drain-profile-$procs-perf.txt" ] && echo "top of the profile: $OUT/drain-profile-$procs-perf.txt"
exit 0
