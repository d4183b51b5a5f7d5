#!/bin/sh
# make demo: daicho's main job on an embedded ledger, in a temporary
# directory. A batch of tasks with a definition of done and a dependency is
# added in one transaction; four shell workers claim, fetch, work, save and
# report in parallel, and some of them lie. An independent sweep checks
# every report against the artefact: false reports go back, and the merge
# task becomes ready only when every chapter is verified.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PATH="$here/..:$PATH"
export PATH
work=$(mktemp -d "${TMPDIR:-/tmp}/daicho-demo.XXXXXX")
sweeper=
trap '[ -n "$sweeper" ] && kill "$sweeper" 2>/dev/null; rm -rf "$work"' EXIT
export DAICHO_LEDGER="$work/ledger.db"
unset DAICHO_AGENT CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID

echo "== daicho init"
daicho init

echo "== daicho add --batch: 24 chapters, each done when out/ID.txt exists; a merge after them"
i=1
while [ $i -le 24 ]; do
	printf '{"key":"ch%d","title":"Generate chapter %d","body":"write chapter %d","priority":%d,"done_when":["file:out/%d.txt"]}\n' \
		$i $i $i $((i % 3)) $i
	i=$((i + 1))
done >"$work/batch.jsonl"
printf '{"title":"Merge the chapters","after":[%s],"body":"merge","done_when":["file:out/25.txt"]}\n' \
	"$(seq -s, 1 24 | sed 's/\([0-9]*\)/"ch\1"/g')" >>"$work/batch.jsonl"
daicho add --batch "$work/batch.jsonl" | tr '\n' ' '
echo

echo "== a sweep every second; four workers in parallel, a quarter of first reports false"
daicho --as sweeper sweep --every 1s -q &
sweeper=$!
workers=
for w in ada bob cyd dee; do
	"$here/worker.sh" "$w" 25 &
	workers="$workers $!"
done
# shellcheck disable=SC2086
wait $workers
while [ "$(daicho ls --state verified | wc -l)" -le 25 ] &&
	[ "$(daicho ls --state failed | wc -l)" -le 1 ]; do
	sleep 0.2
done
kill "$sweeper" 2>/dev/null
wait "$sweeper" 2>/dev/null || true
sweeper=

echo "== daicho ls"
daicho ls
echo
events=$(daicho events | tail -n +2 | wc -l)
claims=$(daicho events | awk '$3 == "claim"' | wc -l)
caught=$(daicho events | awk '$3 == "rejected"' | wc -l)
verified=$(daicho ls --state verified | tail -n +2 | wc -l)
echo "== $verified of 25 tasks verified; $caught false reports caught by the sweep;"
echo "   $claims claims, $events events recorded"
