#!/bin/sh
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# A simulated coding agent, as 'daicho run' would launch a real one:
#   daicho run -j 15 -- examples/agent.sh {id}
# It gets only its task id. It fetches its own prompt, "generates" for a
# short random time, writes its chapter, and saves its own result with the
# tokens it used. Like real agents it is fallible: on a first attempt it
# sometimes crashes, sometimes hits a rate limit, sometimes claims to be
# done without writing anything, and sometimes asks the person running it
# ($DEMO_PERSON) a question it cannot settle itself.
set -u
id=$1
out_dir="$(dirname "$DAICHO_LEDGER")/out"
roll() { echo $(( $(od -An -N2 -tu2 /dev/urandom) % 100 )); }

prompt=$(daicho prompt "$id") || exit 1
attempt=$(daicho show "$id" --json | sed 's/.*"attempts":\([0-9]*\).*/\1/')
sleep "0.$(( $(roll) % 4 + 1 ))"

if [ "$attempt" = 1 ]; then
	r=$(roll)
	if [ "$r" -lt 6 ]; then
		echo "agent: crashed while generating" >&2
		exit 1
	elif [ "$r" -lt 10 ]; then
		echo "API error: 429 Too Many Requests (rate limit reached)" >&2
		exit 1
	elif [ "$r" -lt 18 ]; then
		echo "Done! The chapter is written."   # it is not
		exit 0
	elif [ "$r" -lt 21 ] && [ -n "${DEMO_PERSON:-}" ]; then
		# A question only the person can answer; the agent goes on.
		daicho send --queue "$DEMO_PERSON" "Chapter $id: the outline names two \
editors; whose style guide applies?" >/dev/null
	fi
fi

mkdir -p "$out_dir"
words=$(( $(roll) * 20 + 400 ))
{
	printf '# %s\n\n' "$(daicho show "$id" --json | sed 's/.*"title":"\([^"]*\)".*/\1/')"
	printf '%s\n' "$prompt"
	printf '(%s words)\n' "$words"
} >"$out_dir/$id.md"
daicho save "$id" -f "$out_dir/$id.md" --tokens-in $(( ${#prompt} * 4 + 900 )) \
	--tokens-out $(( words * 4 / 3 )) --cost "0.0$(( words / 100 ))" --model sim-1
