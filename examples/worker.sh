#!/bin/sh
# A shell worker that follows daicho's self-fetch / self-save protocol:
# claim the next ready task, fetch its prompt, "work", save the result,
# report. It never receives the prompt from an orchestrator and prints
# nothing but its own summary line. Usage: worker.sh NAME
set -u
name=$1
done_count=0
while id=$(daicho --as "$name" claim --next --lease 1m 2>/dev/null); do
	prompt=$(daicho --as "$name" prompt "$id")
	# The "work": a real agent would run a model on $prompt here.
	sleep 0.0$(( $(od -An -N1 -tu1 /dev/urandom) % 9 + 1 ))
	printf 'result of #%s by %s: %s\n' "$id" "$name" "$(printf %s "$prompt" | tr a-z A-Z)" |
		daicho --as "$name" save "$id" --tokens-in ${#prompt} --tokens-out 42
	daicho --as "$name" report "$id" --note "done by $name"
	done_count=$((done_count + 1))
done
echo "$name: $done_count tasks"
