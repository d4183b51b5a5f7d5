#!/usr/bin/env bash
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# daicho benchmark: what the judge's own world costs a verification
# (docs/verification.md, "The judge's own world"). Prints a report.
#
#   bench/judge.sh      about two minutes on a quiet 2-core machine (plus a
#                       build of the binary it compares with)
#
# N tasks with one check, as tasks share 'make test': CHECK_S seconds (and
# BENCH_JUDGE_WORK, a command that stands for a test run's own work), then
# it passes when the commit holds a done-*.txt (each task's work adds its
# own, inside its --touches), so it fails on the trunk at the claim and no
# verdict is vacuous. Each queue is reported and verified by one 'daicho
# sweep -j 1':
#
#   before    the daicho of BENCH_JUDGE_BEFORE (a commit before the judge's
#             repository, the sandbox and the base's run): checks in a
#             worktree of the project, as the person
#   sandbox   this daicho, '--no-baseline' tasks: the judge's repository
#             and the sandbox, no run at the base (and so no trace)
#   untraced  the daicho of BENCH_JUDGE_UNTRACED (the base's run, before
#             it was traced), warm as below
#   cold      this daicho, the checks at the base too, traced, none kept
#             yet (the first task of a trunk pays for the base)
#   warm      this daicho, the base's results and inputs kept (the next
#             tasks of the same trunk); each commit's run still traced
#
# Per-verification times are the sweep's wall time over N; the ratios are
# against 'before' in the same run. Target: warm <= 1.5x before for a
# check of 1 s. warm against untraced is what the trace costs.
#
# Sizes through the environment (defaults in brackets):
#   BENCH_JUDGE_TASKS [8]  BENCH_JUDGE_CHECK_S [1]  BENCH_JUDGE_RUNS [3]
#   BENCH_JUDGE_WORK [true]: e.g. "python3 -c 'import unittest, json, email'"
#     for a check that opens a few hundred files
#   BENCH_JUDGE_BEFORE [f1f61e9]: the commit to build 'before' from
#   BENCH_JUDGE_UNTRACED [30455ca]: the commit to build 'untraced' from
#   DAICHO [the daicho next to this directory]; DAICHO_BEFORE: a binary to
#     use as 'before' instead of building one
#   BENCH_TMP [/tmp]; BENCH_KEEP=1 keeps the work directory
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
# person CMD: a person's command (config, land --pause) at a terminal.
. "$root/tests/backend.bash"
N=${BENCH_JUDGE_TASKS:-8}
CHECK_S=${BENCH_JUDGE_CHECK_S:-1}
RUNS=${BENCH_JUDGE_RUNS:-3}
BEFORE_REV=${BENCH_JUDGE_BEFORE:-f1f61e9}
UNTRACED_REV=${BENCH_JUDGE_UNTRACED:-30455ca}
CHECK_WORK=${BENCH_JUDGE_WORK:-true}

for tool in git awk; do
	command -v "$tool" >/dev/null 2>&1 ||
		{ echo "bench: $tool is missing (make bench installs it)" >&2; exit 1; }
done
src_bin=${DAICHO:-$root/daicho}
[ -x "$src_bin" ] || { echo "bench: no $src_bin (run make first)" >&2; exit 1; }

unset DAICHO_LEDGER DAICHO_AGENT DAICHO_NOW_MS DAICHO_BUSY_TIMEOUT \
	CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID
export LC_ALL=C GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

WORK=$(mktemp -d "${BENCH_TMP:-/tmp}/daicho-bench-judge.XXXXXX")
trap '[ -n "${BENCH_KEEP:-}" ] || { git -C "$root" worktree remove --force "$WORK/before-src" 2>/dev/null; git -C "$root" worktree remove --force "$WORK/untraced-src" 2>/dev/null; rm -rf "$WORK"; }' EXIT
trap 'exit 130' INT TERM
export HOME=$WORK/home
mkdir -p "$HOME"
NEW=$WORK/daicho
cp "$src_bin" "$NEW"

# build NAME REV: daicho built from REV in $WORK/NAME-src.
build() {
	echo "building '$1' from $2 ..." >&2
	git -C "$root" worktree add -q --detach "$WORK/$1-src" "$2" ||
		{ echo "bench: cannot check out $2" >&2; exit 1; }
	make -s -C "$WORK/$1-src" daicho >/dev/null 2>&1 ||
		{ echo "bench: cannot build $2" >&2; exit 1; }
}
if [ -n "${DAICHO_BEFORE:-}" ]; then
	OLD=$DAICHO_BEFORE
else
	build before "$BEFORE_REV"
	OLD=$WORK/before-src/daicho
fi
build untraced "$UNTRACED_REV"
UNTRACED=$WORK/untraced-src/daicho

now_ms() {
	local t=$EPOCHREALTIME
	echo $(((10#${t/./}) / 1000))
}

# queue DIR BIN COUNT [add options...]: a repository in DIR, COUNT tasks
# done when, after CHECK_S seconds, a done-*.txt is there; each claimed at
# one trunk, its commit (adding done-$i.txt) made on work/$i.
queue() {
	local dir=$1 bin=$2 count=$3 i
	shift 3
	mkdir -p "$dir"
	git -C "$dir" init -q -b main
	echo start >"$dir/README"
	git -C "$dir" add README && git -C "$dir" commit -q -m start
	(cd "$dir" && "$bin" init >/dev/null && person "$bin" config land off >/dev/null)
	for ((i = 1; i <= count; i++)); do
		(cd "$dir" && person "$bin" add "task $i" "$@" --touches "done-$i.txt" \
			--done-when "cmd:sleep $CHECK_S; $CHECK_WORK; ls done-*.txt" \
			>/dev/null 2>&1)
		(cd "$dir" && "$bin" --as "w$i" claim "$i" >/dev/null)
		git -C "$dir" checkout -q -b "work/$i" main
		echo ok >"$dir/done-$i.txt"
		# Past the pre-commit hook: the task reserves what it touches,
		# and this is the bench, not the worker.
		git -C "$dir" add "done-$i.txt" &&
			git -C "$dir" commit --no-verify -q -m "#$i"
		git -C "$dir" checkout -q main
	done
}

# report DIR BIN FROM TO: tasks FROM..TO report their commits.
report() {
	local dir=$1 bin=$2 i
	for ((i = $3; i <= $4; i++)); do
		(cd "$dir" && "$bin" --as "w$i" report "$i" \
			--commit "$(git -C "$dir" rev-parse "work/$i")" 2>/dev/null)
	done
}

# sweep_ms DIR BIN: the wall time of one sweep of DIR's queue.
sweep_ms() {
	local t0
	t0=$(now_ms)
	(cd "$1" && "$2" sweep -j 1 >/dev/null) || echo "bench: sweep failed in $1" >&2
	echo $(($(now_ms) - t0))
}

median() {
	sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2) }'
}

echo "== daicho judge benchmark: $(nproc) CPUs, $(uname -sr), $(git --version), $("$src_bin" --version 2>/dev/null | head -1)"
echo "   $N verifications a sweep, each a check of ${CHECK_S}s and '$CHECK_WORK'; $RUNS runs, medians; 'before' is $BEFORE_REV, 'untraced' $UNTRACED_REV"
for mode in before sandbox untraced cold warm; do
	: >"$WORK/$mode.ms"
done
for ((run = 1; run <= RUNS; run++)); do
	queue "$WORK/b$run" "$OLD" "$N" && report "$WORK/b$run" "$OLD" 1 "$N"
	sweep_ms "$WORK/b$run" "$OLD" >>"$WORK/before.ms"
	queue "$WORK/s$run" "$NEW" "$N" --no-baseline && report "$WORK/s$run" "$NEW" 1 "$N"
	sweep_ms "$WORK/s$run" "$NEW" >>"$WORK/sandbox.ms"
	queue "$WORK/c$run" "$NEW" "$N" && report "$WORK/c$run" "$NEW" 1 "$N"
	sweep_ms "$WORK/c$run" "$NEW" >>"$WORK/cold.ms"
	# Warm: task 0 of the trunk verified first (it pays for the base),
	# then N more of the same trunk, timed.
	queue "$WORK/w$run" "$NEW" $((N + 1)) && report "$WORK/w$run" "$NEW" 1 1
	(cd "$WORK/w$run" && "$NEW" sweep -j 1 >/dev/null)
	report "$WORK/w$run" "$NEW" 2 $((N + 1))
	sweep_ms "$WORK/w$run" "$NEW" >>"$WORK/warm.ms"
	# Untraced: the same, by the daicho before the trace.
	queue "$WORK/u$run" "$UNTRACED" $((N + 1)) && report "$WORK/u$run" "$UNTRACED" 1 1
	(cd "$WORK/u$run" && "$UNTRACED" sweep -j 1 >/dev/null)
	report "$WORK/u$run" "$UNTRACED" 2 $((N + 1))
	sweep_ms "$WORK/u$run" "$UNTRACED" >>"$WORK/untraced.ms"
done
before=$(median <"$WORK/before.ms")
for mode in before sandbox untraced cold warm; do
	m=$(median <"$WORK/$mode.ms")
	awk -v mode="$mode" -v m="$m" -v n="$N" -v b="$before" 'BEGIN {
		printf "   %-8s %6d ms a sweep, %5d ms a verification, %.2fx before\n",
		    mode, m, m / n, m / b
	}'
done
warm=$(median <"$WORK/warm.ms")
untraced=$(median <"$WORK/untraced.ms")
awk -v w="$warm" -v b="$before" -v u="$untraced" 'BEGIN {
	printf "   warm against before: %.2fx (target <= 1.5: %s)\n", w / b,
	    (w / b <= 1.5 ? "met" : "NOT MET")
	printf "   warm against untraced (the trace of each commit'"'"'s run): %.2fx\n", w / u
}'
# Verdicts: every task verified in each mode (no vacuous, no deferral).
for d in "$WORK"/b1 "$WORK"/s1 "$WORK"/u1 "$WORK"/c1 "$WORK"/w1; do
	bin=$NEW
	[ "$d" = "$WORK/b1" ] && bin=$OLD
	[ "$d" = "$WORK/u1" ] && bin=$UNTRACED
	v=$(cd "$d" && "$bin" ls --state verified --json | grep -o '"id":' | wc -l)
	echo "   $(basename "$d"): $v verified (of $N, and 1 more in w1)"
done
