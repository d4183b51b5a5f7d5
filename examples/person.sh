#!/bin/sh
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# The person in 'make demo': looks at what needs them ('daicho status
# --json', its needs_you list) every second, as someone glancing at
# 'daicho status --watch' would, and resolves each item with the command
# the item names: reads a question sent to them, reopens a failed task,
# unblocks a blocked one. Every item it sees is appended to FILE as
# "KIND ID SINCE_MS RESOLVED_MS" (resolved: once its command succeeded, so
# an item that appeared while the person was looking never waits less
# than nothing), so that the demo can say how often a person was needed
# and how long each item waited.
#   examples/person.sh FILE STOPFILE   (until STOPFILE exists; then one
#                                       last look, and it exits)
set -u
log=$1 stop=$2
look() {
	daicho status --json --all |
		jq -r '.needs_you[] | "\(.kind) \(.id) \(.since_ms)"' |
		while read -r kind id since; do
			case $kind in
			message) daicho inbox >/dev/null ;;
			failed) daicho -q reopen "$id" ;;
			blocked) daicho -q unblock "$id" ;;
			*) continue ;; # not something this person settles
			esac && echo "$kind $id $since $(date +%s%3N)" >>"$log"
		done
}
while [ ! -e "$stop" ]; do
	look
	sleep 1
done
look
