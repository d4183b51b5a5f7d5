#!/usr/bin/env bash
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# daicho benchmarks for landing (docs/landing.md). Prints a report.
#
#   bench/land.sh       about three minutes on a quiet 2-core machine
#
#   1  batching: 100 verified tasks queued, 2 of which break a land-check
#      that takes 1 s. 'daicho land' against a bare shell loop that merges
#      each branch, runs the check and moves the trunk (undoing the merge
#      when it fails), on copies of one repository, in the same run.
#      Targets: at most 25 check runs (the loop needs 100); wall time at
#      most 0.35x the loop's; all 98 good tasks landed; no trunk commit red.
#   2  a big repository: 50,000 files, 16 verified tasks each changing one
#      file, no land-check. What landing adds per task beyond the checks
#      themselves, against a fresh 'git worktree add' of the same
#      repository in the same run. Target: at most 100 ms a task.
#   3  lanes: one task whose checks take BENCH_LAND_SLOW_S queued first,
#      then 15 quick ones that do not touch it. How long the quick ones
#      wait to land, with 'daicho land -j 1' (one merged tree for the
#      batch) against '-j 2' (lanes), on copies of one queue.
#
# Sizes can be changed through the environment (defaults in brackets):
#   BENCH_LAND_TASKS [100]  BENCH_LAND_CHECK_S [1]  BENCH_LAND_BATCH [16]
#   BENCH_LAND_FILES [50000]  BENCH_LAND_BIG_TASKS [16]
#   BENCH_LAND_SLOW_S [10]
#   BENCH_LAND_PARTS ["1 2 3"]: which parts to run
#   DAICHO [the daicho next to this directory]: the binary to measure
#   BENCH_TMP [/tmp]: where the repositories go
#   BENCH_KEEP=1: keep the work directory to look at
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
# person CMD: a person's command (config, land --pause) at a terminal.
. "$root/tests/backend.bash"
N=${BENCH_LAND_TASKS:-100}
CHECK_S=${BENCH_LAND_CHECK_S:-1}
BATCH=${BENCH_LAND_BATCH:-16}
FILES=${BENCH_LAND_FILES:-50000}
BIG_TASKS=${BENCH_LAND_BIG_TASKS:-16}
SLOW_S=${BENCH_LAND_SLOW_S:-10}
PARTS=${BENCH_LAND_PARTS:-1 2 3}

for tool in git awk; do
	command -v "$tool" >/dev/null 2>&1 ||
		{ echo "bench: $tool is missing (make bench installs it)" >&2; exit 1; }
done
src_bin=${DAICHO:-$root/daicho}
[ -x "$src_bin" ] || { echo "bench: no $src_bin (run make first)" >&2; exit 1; }

unset DAICHO_LEDGER DAICHO_AGENT DAICHO_NOW_MS DAICHO_BUSY_TIMEOUT DAICHO_TRACE_LOCK \
	CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID
export LC_ALL=C GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

WORK=$(mktemp -d "${BENCH_TMP:-/tmp}/daicho-bench-land.XXXXXX")
trap '[ -n "${BENCH_KEEP:-}" ] || rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
export HOME=$WORK/home
mkdir -p "$HOME"
D=$WORK/daicho
cp "$src_bin" "$D"

# now_ms: the wall clock in milliseconds.
now_ms() {
	local t=$EPOCHREALTIME
	echo $(((10#${t/./}) / 1000))
}

# task_commit REPO I FILE TEXT: a commit on main of REPO that sets FILE
# to TEXT, on branch work/I; prints it. The checkout is not touched.
task_commit() {
	local repo=$1 i=$2 file=$3 text=$4 idx=$WORK/idx.$2 c
	rm -f "$idx"
	(cd "$repo" && GIT_INDEX_FILE=$idx git read-tree main &&
		GIT_INDEX_FILE=$idx git update-index --add --cacheinfo \
			"100644,$(printf '%s\n' "$text" | git hash-object -w --stdin),$file")
	c=$(git -C "$repo" commit-tree "$(cd "$repo" && GIT_INDEX_FILE=$idx git write-tree)" -p main -m "#$i")
	git -C "$repo" update-ref "refs/heads/work/$i" "$c"
	rm -f "$idx"
	echo "$c"
}

# queue REPO N BROKEN...: N tasks in REPO's ledger (done when f$i.txt
# exists; with QUEUE_CHECK=commit, when the commit changes something,
# which verification judges without a checkout), each claimed, its commit
# reported (task_commit; the tasks named in BROKEN also add broken-$i.txt)
# and verified, landing paused meanwhile.
queue() {
	local repo=$1 n=$2 i c check
	shift 2
	(cd "$repo" && "$D" init >/dev/null && person "$D" config jobs 2 && person "$D" land --pause >/dev/null)
	for ((i = 1; i <= n; i++)); do
		check="file:f$i.txt"
		[ "${QUEUE_CHECK:-}" != commit ] || check=commit
		printf '{"title":"file %d","done_when":["%s"]}\n' "$i" "$check"
	done >"$WORK/tasks.jsonl"
	(cd "$repo" && "$D" add --batch "$WORK/tasks.jsonl" >/dev/null)
	for ((i = 1; i <= n; i++)); do
		(cd "$repo" && "$D" --as "w$i" claim "$i" >/dev/null)
		c=$(task_commit "$repo" "$i" "f$i.txt" "file $i")
		for b in "$@"; do
			[ "$b" = "$i" ] && c=$(git -C "$repo" commit-tree \
				"$(cd "$repo" && idx=$WORK/idx && rm -f "$idx" &&
					GIT_INDEX_FILE=$idx git read-tree "$c" &&
					GIT_INDEX_FILE=$idx git update-index --add --cacheinfo \
						"100644,$(echo broken | git hash-object -w --stdin),broken-$i.txt" &&
					GIT_INDEX_FILE=$idx git write-tree)" -p "$c" -m "#$i breaks it") &&
				git -C "$repo" update-ref "refs/heads/work/$i" "$c"
		done
		(cd "$repo" && "$D" --as "w$i" report "$i" --commit "$c")
	done
	(cd "$repo" && "$D" sweep >/dev/null)
}

echo "== daicho landing benchmark: $(nproc) CPUs, $(uname -sr), $(git --version)"
echo "   binary: $src_bin"

# --- 1: batching --------------------------------------------------------------
case " $PARTS " in *" 1 "*) ;; *) SKIP1=1 ;; esac
if [ -z "${SKIP1:-}" ]; then
echo
echo "1. batching: $N queued tasks, 2 break a land-check of ${CHECK_S}s; batches of $BATCH"
A=$WORK/batch
mkdir -p "$A"
git -C "$A" init -q -b main
printf '#!/bin/sh\n# the trunk-wide check\nsleep "${CHECK_S:-0}"\n! ls broken-*.txt >/dev/null 2>&1\n' >"$A/check.sh"
git -C "$A" add check.sh && git -C "$A" commit -qm start
bad1=$((N * 37 / 100)) bad2=$((N * 81 / 100))
queue "$A" "$N" "$bad1" "$bad2"
start=$(git -C "$A" rev-parse main)
# The loop's copy: the same repository, the same branches.
git clone -q --no-local "$A" "$WORK/loop" 2>/dev/null
git -C "$WORK/loop" fetch -q origin 'refs/heads/work/*:refs/heads/work/*'
(cd "$A" && person "$D" config land-check "CHECK_S=$CHECK_S sh check.sh" && person "$D" config land-batch "$BATCH" &&
	person "$D" land --resume >/dev/null)

t0=$(now_ms)
out=$(cd "$A" && "$D" land --json)
t_land=$(($(now_ms) - t0))
checked=$(printf '%s' "$out" | sed -n 's/.*"checked":\([0-9]*\).*/\1/p')
landed=$(cd "$A" && "$D" ls --state landed --json | grep -o '"id":' | wc -l)

t0=$(now_ms)
(
	cd "$WORK/loop" || exit 1
	for ((i = 1; i <= N; i++)); do
		git merge -q --no-ff --no-edit "work/$i" &&
			{ CHECK_S=$CHECK_S sh check.sh || git reset -q --hard HEAD~1; }
	done
)
t_loop=$(($(now_ms) - t0))
loop_checks=$N

red=0
for c in $(git -C "$A" rev-list --first-parent "$start..main"); do
	rm -rf "$WORK/green" && mkdir -p "$WORK/green"
	git -C "$A" archive "$c" | tar -x -C "$WORK/green"
	(cd "$WORK/green" && CHECK_S=0 sh check.sh) || red=$((red + 1))
done
echo "   daicho land:  ${t_land} ms, $checked check runs, $landed of $N landed, $red red trunk commits"
echo "   shell loop:   ${t_loop} ms, $loop_checks check runs"
awk -v a="$t_land" -v b="$t_loop" -v c="$checked" -v l="$landed" -v n="$N" -v r="$red" 'BEGIN {
	printf "   ratio: %.2fx the loop (target <= 0.35: %s); check runs %d (target <= 25: %s); landed %d of %d good (%s); red %d (%s)\n",
	    a / b, (a / b <= 0.35 ? "met" : "NOT MET"), c, (c <= 25 ? "met" : "NOT MET"),
	    l, n - 2, (l == n - 2 ? "met" : "NOT MET"), r, (r == 0 ? "met" : "NOT MET")
}'

fi

# --- 2: a big repository ----------------------------------------------------
case " $PARTS " in *" 2 "*)
echo
echo "2. a big repository: $FILES files, $BIG_TASKS tasks each changing one file, no land-check"
B=$WORK/big
mkdir -p "$B"
git -C "$B" init -q -b main
# The files, through fast-import: a commit of FILES files in seconds.
{
	echo "commit refs/heads/main"
	echo "committer bench <bench@example.com> 1700000000 +0000"
	echo "data 5"
	echo "start"
	for ((i = 0; i < FILES; i++)); do
		printf 'M 100644 inline d%d/f%d.txt\ndata %d\nfile %d\n\n' $((i / 1000)) "$i" $((6 + ${#i})) "$i"
	done
} | git -C "$B" fast-import --quiet
git -C "$B" checkout -q -f main
# The tasks' checks need no checkout (done when the commit changes
# something): what is measured is what landing adds.
QUEUE_CHECK=commit queue "$B" "$BIG_TASKS"
(cd "$B" && person "$D" land --resume >/dev/null)

t0=$(now_ms)
git -C "$B" worktree add -q --detach "$WORK/fresh" main
t_fresh=$(($(now_ms) - t0))
git -C "$B" worktree remove --force "$WORK/fresh"

t0=$(now_ms)
out=$(cd "$B" && "$D" land --json)
t_big=$(($(now_ms) - t0))
landed=$(cd "$B" && "$D" ls --state landed --json | grep -o '"id":' | wc -l)
echo "   daicho land:  ${t_big} ms for $landed tasks (the first batch makes the warm checkout)"
echo "   a fresh 'git worktree add' of the repository: ${t_fresh} ms"
awk -v a="$t_big" -v n="$BIG_TASKS" -v f="$t_fresh" 'BEGIN {
	printf "   per task: %.0f ms (target <= 100: %s); %.2fx one fresh worktree\n",
	    a / n, (a / n <= 100 ? "met" : "NOT MET"), (a / n) / f
}'
# Once more, with the checkout warm: another 16 tasks.
(cd "$B" && person "$D" land --pause >/dev/null)
base=$(($BIG_TASKS))
for ((i = 1; i <= BIG_TASKS; i++)); do
	printf '{"title":"again %d","done_when":["commit"]}\n' "$i"
done >"$WORK/more.jsonl"
(cd "$B" && "$D" add --batch "$WORK/more.jsonl" >/dev/null)
for ((i = 1; i <= BIG_TASKS; i++)); do
	id=$((base + i))
	(cd "$B" && "$D" --as "v$i" claim "$id" >/dev/null)
	c=$(task_commit "$B" "$id" "d$((i % 50))/f$((i * 997 % FILES)).txt" "changed $i")
	(cd "$B" && "$D" --as "v$i" report "$id" --commit "$c")
done
(cd "$B" && "$D" sweep >/dev/null && person "$D" land --resume >/dev/null)
t0=$(now_ms)
(cd "$B" && "$D" land --json >/dev/null)
t_warm=$(($(now_ms) - t0))
awk -v a="$t_warm" -v n="$BIG_TASKS" -v f="$t_fresh" 'BEGIN {
	printf "   warm: %d ms for %d tasks, %.0f ms a task (target <= 100: %s); %.2fx one fresh worktree\n",
	    a, n, a / n, (a / n <= 100 ? "met" : "NOT MET"), (a / n) / f
}'
;; esac

# --- 3: lanes -------------------------------------------------------------------
case " $PARTS " in *" 3 "*) ;; *) exit 0 ;; esac
echo
echo "3. lanes: a task whose checks take ${SLOW_S}s queued first, then 15 quick ones"
L=$WORK/lanes
mkdir -p "$L"
git -C "$L" init -q -b main
git -C "$L" commit -q --allow-empty -m start
(cd "$L" && "$D" init >/dev/null && person "$D" config jobs 1 && person "$D" land --pause >/dev/null)
(cd "$L" && "$D" add slow --done-when "cmd:sleep $SLOW_S" --check-timeout 10m >/dev/null)
for ((i = 2; i <= 16; i++)); do
	(cd "$L" && "$D" add "quick $i" --done-when "file:q$i.txt" >/dev/null)
done
for ((i = 1; i <= 16; i++)); do
	(cd "$L" && "$D" --as "w$i" claim "$i" >/dev/null)
	c=$(task_commit "$L" "$i" "q$i.txt" "quick $i")
	(cd "$L" && "$D" --as "w$i" report "$i" --commit "$c")
done
(cd "$L" && "$D" sweep >/dev/null && person "$D" land --resume >/dev/null)
for j in 1 2; do
	cp -a "$L" "$L.$j"
	t0=$(now_ms)
	(cd "$L.$j" && "$D" land -j "$j" >/dev/null)
	t_all=$(($(now_ms) - t0))
	# When the last quick task landed, from the ledger's events.
	t_quick=$(cd "$L.$j" && "$D" events --json | tr '{' '\n' |
		awk -F'[:,]' -v t0="$t0" '/"kind":"landed"/ && !/"task":1,/ {
			for (i = 1; i < NF; i++) if ($i == "\"at_ms\"") at = $(i + 1)
			if (at > last) last = at
		} END { print last - t0 }')
	checked=$(cd "$L.$j" && "$D" ls --state landed --json | grep -o '"id":' | wc -l)
	printf '   -j %d: the 15 quick tasks landed after %d ms, all %d after %d ms\n' \
		"$j" "$t_quick" "$checked" "$t_all"
	eval "t_quick_$j=$t_quick"
done
awk -v a="$t_quick_2" -v b="$t_quick_1" 'BEGIN {
	printf "   the quick tasks wait %.2fx as long with lanes as in one merged tree\n", a / b
}'
