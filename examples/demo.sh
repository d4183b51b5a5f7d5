#!/bin/sh
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# make demo: daicho's main job on an embedded ledger, in a temporary
# directory — a nightly generation pipeline. 90 chapter tasks, each with a
# definition of done, are added in one transaction; 'daicho run -j 15'
# fans them out to a simulated agent (examples/agent.sh) that fetches its
# own prompt and saves its own result. The agent sometimes crashes, hits a
# rate limit, lies about being done or asks the person a question; the
# runner retries, pauses and verifies, and ends with every chapter
# verified. A simulated person (examples/person.sh) looks at what needs
# them every second and answers. The demo ends with the figure that
# matters to that person: how many items needed them per 100 tasks, and
# how long each waited.
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
DEMO_PERSON=$(id -un)
export DEMO_PERSON

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

echo "== a person looks at 'daicho status' every second (examples/person.sh)"
: >"$work/attended"
"$here/person.sh" "$work/attended" "$work/stop" &
person=$!

echo "== daicho run -j 15 --label nightly -- examples/agent.sh {id}"
daicho run -j 15 --label nightly --retry-backoff 200ms -- "$here/agent.sh" '{id}' || true
touch "$work/stop"
wait "$person"

echo
echo "== daicho usage --by model"
daicho usage --by model
echo
echo "== what the sweep caught (daicho events)"
events() { daicho events --json | jq "[.[] | select(.kind == \"$1\")] | length"; }
echo "$(events rejected) false reports rejected," \
	"$(events requeue) crashes retried," \
	"$(events pause) rate-limit pauses;" \
	"$(daicho ls --state verified | tail -n +2 | wc -l) of 90 chapters verified"
echo
echo "== what needed a person (examples/person.sh, looking every second)"
# "KIND ID SINCE_MS RESOLVED_MS" per item the person resolved.
tasks=$(daicho ls --label nightly | tail -n +2 | wc -l)
awk -v tasks="$tasks" -v open_items="$(daicho status --json | jq '.needs_you | length')" '
{ n++; wait[n] = ($4 - $3) / 1000; kinds[$1]++ }
END {
	line = sprintf("%d %s needed a person in %d tasks: %.1f per 100 tasks", n, n == 1 ? "item" : "items", tasks, n * 100 / tasks)
	if (n > 0) {
		# Sort the waits (n is small) for the median.
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (wait[j] < wait[i]) { t = wait[i]; wait[i] = wait[j]; wait[j] = t }
		line = line sprintf("; each waited %.1f s (median), %.1f s at most", wait[int((n + 1) / 2)], wait[n])
		sep = " ("
		for (k in kinds) { line = line sep kinds[k] " " k; sep = ", " }
		line = line ")"
	}
	print line "; " open_items " still waiting"
}' "$work/attended" 2>/dev/null || echo "0 items needed a person"
