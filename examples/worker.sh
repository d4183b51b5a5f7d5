#!/bin/sh
# A shell worker following daicho's self-fetch / self-save protocol: take a
# task (first any of its own that verification sent back, else the next
# ready one), fetch its prompt, "work", save the result, report. It never
# receives the prompt from an orchestrator.
#
# Usage: worker.sh NAME [LIE_PERCENT]
# With LIE_PERCENT, the worker sometimes reports a first attempt without
# producing the file its task must produce, as agents do; the sweep
# catches it and the task comes back.
set -u
name=$1
lie_percent=${2:-0}
work_dir=$(dirname "$DAICHO_LEDGER")
count=0

dc() { daicho --as "$name" "$@"; }

# Print the id of a task of ours that verification sent back, if any.
own_returned() {
	dc ls --mine --state claimed | awk 'NR > 1 { sub("#", "", $1); print $1; exit }'
}

# Whether anything is left that could still come to us.
work_left() {
	for state in open claimed reported; do
		[ "$(daicho ls --state $state | wc -l)" -gt 1 ] && return 0
	done
	return 1
}

while :; do
	id=$(own_returned)
	[ -n "$id" ] || id=$(dc claim --next --lease 1m 2>/dev/null) || {
		work_left || break
		sleep 0.2
		continue
	}
	prompt=$(dc prompt "$id")
	sleep 0.0$(( $(od -An -N1 -tu1 /dev/urandom) % 9 + 1 ))
	attempt=$(dc show "$id" | awk '$1 == "attempts" { print $2 }')
	if [ "$attempt" = 1 ] && [ $(( $(od -An -N1 -tu1 /dev/urandom) % 100 )) -lt "$lie_percent" ]; then
		: # a false report: nothing produced
	else
		mkdir -p "$work_dir/out"
		printf '%s\n' "$prompt" | tr a-z A-Z >"$work_dir/out/$id.txt"
	fi
	printf 'result of #%s by %s\n' "$id" "$name" |
		dc save "$id" --tokens-in ${#prompt} --tokens-out 42
	dc report "$id" --note "done by $name"
	count=$((count + 1))
done
echo "$name: $count reports"
