#!/bin/sh
# make demo: daicho's main job on an embedded ledger, in a temporary
# directory. A batch of tasks with dependencies is added in one
# transaction; four shell workers run in parallel, each looping
# claim -> prompt -> save -> report on its own. Nothing is claimed twice.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PATH="$here/..:$PATH"
export PATH
work=$(mktemp -d "${TMPDIR:-/tmp}/daicho-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
export DAICHO_LEDGER="$work/ledger.db"
unset DAICHO_AGENT CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID

echo "== daicho init"
daicho init

echo "== daicho add --batch (24 generation tasks, a merge after them)"
i=1
while [ $i -le 24 ]; do
	printf '{"key":"gen%d","title":"Generate chapter %d","body":"write chapter %d","priority":%d,"labels":["gen"]}\n' \
		$i $i $i $((i % 3))
	i=$((i + 1))
done >"$work/batch.jsonl"
printf '{"title":"Merge the chapters","after":[%s],"body":"merge"}\n' \
	"$(seq -s, 1 24 | sed 's/\([0-9]*\)/"gen\1"/g')" >>"$work/batch.jsonl"
daicho add --batch "$work/batch.jsonl" | tr '\n' ' '
echo

echo "== four workers, in parallel"
for w in ada bob cyd dee; do
	"$here/worker.sh" "$w" &
done
wait

echo "== daicho ls"
daicho ls
echo
echo "The merge task stays open: it comes after the chapters, and a reported"
echo "task is not done until it is verified."
events=$(daicho events | tail -n +2 | wc -l)
claims=$(daicho events | awk '$3 == "claim"' | wc -l)
echo "== $events events recorded; $claims claims for 24 tasks: none taken twice"
