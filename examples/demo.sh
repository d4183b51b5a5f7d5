#!/bin/sh
# make demo: daicho's main job on an embedded ledger, in a temporary
# directory — a nightly generation pipeline. 90 chapter tasks, each with a
# definition of done, are added in one transaction; 'daicho run -j 15'
# fans them out to a simulated agent (examples/agent.sh) that fetches its
# own prompt and saves its own result. The agent sometimes crashes, hits a
# rate limit or lies about being done; the runner retries, pauses and
# verifies, and ends with every chapter verified. Its output is one line.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PATH="$here/..:$PATH"
export PATH
work=$(mktemp -d "${TMPDIR:-/tmp}/daicho-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Work there: init installs a git pre-commit hook into the repository it is
# run in, and the demo must leave the one it was started from alone.
cd "$work"
export DAICHO_LEDGER="$work/ledger.db"
unset DAICHO_AGENT CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID

echo "== daicho init"
daicho init

echo "== daicho add --batch: 90 chapters, each done when out/ID.md exists and a result is saved"
i=1
while [ $i -le 90 ]; do
	printf '{"title":"Chapter %d","body":"Write chapter %d of the handbook.","priority":%d,"labels":["nightly"],"done_when":["file:out/%d.md","saved"]}\n' \
		$i $i $(( (90 - i) / 30 )) $i
	i=$((i + 1))
done >"$work/batch.jsonl"
echo "$(daicho add --batch "$work/batch.jsonl" | wc -l) tasks added"

echo "== daicho run -j 15 -- examples/agent.sh {id}"
daicho run -j 15 --retry-backoff 200ms -- "$here/agent.sh" '{id}' || true

echo
echo "== daicho usage --by model"
daicho usage --by model
echo
echo "== what the sweep caught (daicho events)"
echo "$(daicho events | awk '$3 == "rejected"' | wc -l) false reports rejected," \
	"$(daicho events | awk '$3 == "requeue"' | wc -l) crashes retried," \
	"$(daicho events | awk '$3 == "pause"' | wc -l) rate-limit pauses;" \
	"$(daicho ls --state verified | tail -n +2 | wc -l) of 90 chapters verified"
