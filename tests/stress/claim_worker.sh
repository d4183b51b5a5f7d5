#!/usr/bin/env bash
# One claimer: claim --next until nothing is ready (no save, no report:
# the claim is what is measured).
#
# usage: claim_worker.sh DAICHO NAME OUTDIR
#
# The ledger comes from $DAICHO_LEDGER. For every claim the worker appends
# "ID RC" to OUTDIR/NAME.claims (ID "-" when none was printed) and sends
# daicho's stderr to OUTDIR/NAME.err. It stops when claim exits 3
# (nothing ready); any other failure is recorded and the loop goes on
# (the test decides what is acceptable).
set -u
daicho=$1 name=$2 out=$3

exec 4>>"$out/$name.claims" 2>>"$out/$name.err"

while :; do
	id=$("$daicho" --as "$name" claim --next --lease 30m)
	rc=$?
	printf '%s %d\n' "${id:--}" "$rc" >&4
	if ((rc == 3)); then
		break
	fi
done
exit 0
