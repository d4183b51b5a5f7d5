#!/usr/bin/env bash
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# Two daicho binaries, A and B, measured in the same run, interleaved (A, B,
# B, A, ...) so that the machine's drift weighs on both alike:
#   claim   claim --next, a whole process, on a ledger of 10,000 tasks inside
#           a git repository (<repo>/.git/daicho/ledger.db), the way agents
#           claim; each binary has a ledger of its own
#   run     daicho run -q -j 8 -- true over 500 tasks (claim, spawn, report,
#           verify each), a fresh ledger per run
# Prints the median of each and the ratio B / A.
#
# Usage: bench/ab.sh A B [CLAIM_RUNS [RUN_RUNS]]   (defaults 300 and 6)
# A typical A is the previous commit: git worktree add /tmp/a REV; make -C /tmp/a
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/ab.sh A B [CLAIM_RUNS [RUN_RUNS]]" >&2; exit 2; }
A=$(realpath "$1") B=$(realpath "$2")
CLAIM_RUNS=${3:-300} RUN_RUNS=${4:-6}
TASKS=10000 RUN_TASKS=500
unset DAICHO_LEDGER DAICHO_AGENT DAICHO_NOW_MS CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID
export LC_ALL=C GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com \
	GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
work=$(mktemp -d /tmp/daicho-ab.XXXXXX)
trap 'rm -rf "$work"' EXIT

now_ns() { date +%s%N; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a / b }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# repo NAME BIN: a git repository with one commit and a ledger of TASKS
# tasks, made by BIN.
repo() {
	local dir=$work/$1
	mkdir -p "$dir"
	git -C "$dir" init -q -b main
	echo bench >"$dir/README"
	git -C "$dir" add README
	git -C "$dir" commit -q -m init
	(cd "$dir" && "$2" init >/dev/null &&
		seq "$TASKS" | awk '{ printf "{\"title\":\"t %d\"}\n", $1 }' | "$2" add --batch - -q)
}

# one_claim BIN DIR: the wall time of one claim --next, in ns, to the file OUT.
one_claim() {
	local t0 t1
	t0=$(now_ns)
	(cd "$2" && "$1" --as bench claim --next >/dev/null)
	t1=$(now_ns)
	echo $((t1 - t0))
}

# one_run BIN: the wall time of daicho run over RUN_TASKS tasks of `true`.
one_run() {
	local dir=$work/run-$RANDOM-$RANDOM t0 t1
	mkdir -p "$dir"
	export DAICHO_LEDGER=$dir/ledger.db
	"$1" init -q
	seq "$RUN_TASKS" | awk '{ printf "{\"title\":\"job %d\"}\n", $1 }' | "$1" add --batch - -q
	t0=$(now_ns)
	"$1" run -q -j 8 -- true >/dev/null 2>&1
	t1=$(now_ns)
	unset DAICHO_LEDGER
	rm -rf "$dir"
	echo $((t1 - t0))
}

echo "== bench/ab.sh: A = $A ($("$A" --version)), B = $B ($("$B" --version))"
echo "   $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
repo a "$A"
repo b "$B"
for _ in 1 2 3 4 5; do one_claim "$A" "$work/a" >/dev/null; one_claim "$B" "$work/b" >/dev/null; done
: >"$work/claim-a" ; : >"$work/claim-b"
for i in $(seq "$CLAIM_RUNS"); do
	if ((i % 2)); then
		one_claim "$A" "$work/a" >>"$work/claim-a"
		one_claim "$B" "$work/b" >>"$work/claim-b"
	else
		one_claim "$B" "$work/b" >>"$work/claim-b"
		one_claim "$A" "$work/a" >>"$work/claim-a"
	fi
done
ca=$(median <"$work/claim-a") cb=$(median <"$work/claim-b")
printf '   claim --next (git, %d tasks, %d runs each): A %.2f ms, B %.2f ms, B/A %.3f\n' \
	"$TASKS" "$CLAIM_RUNS" "$(div "$ca" 1000000)" "$(div "$cb" 1000000)" "$(div "$cb" "$ca")"
: >"$work/run-a" ; : >"$work/run-b"
for i in $(seq "$RUN_RUNS"); do
	if ((i % 2)); then
		one_run "$A" >>"$work/run-a"; one_run "$B" >>"$work/run-b"
	else
		one_run "$B" >>"$work/run-b"; one_run "$A" >>"$work/run-a"
	fi
done
ra=$(median <"$work/run-a") rb=$(median <"$work/run-b")
printf '   run -j 8 -- true (%d tasks, %d runs each): A %.3f s, B %.3f s, B/A %.3f\n' \
	"$RUN_TASKS" "$RUN_RUNS" "$(div "$ra" 1000000000)" "$(div "$rb" 1000000000)" "$(div "$rb" "$ra")"
