#!/usr/bin/env bash
# One stress worker: loop claim --next / save / report until nothing is ready.
#
# usage: worker.sh DAICHO NAME LEASE OUTDIR
#
# The ledger comes from $DAICHO_LEDGER. For every daicho invocation the worker
# appends one line "CMD ID RC USEC" to OUTDIR/NAME.times (USEC: wall time of the
# whole process, measured with $EPOCHREALTIME) and sends its stderr to
# OUTDIR/NAME.err. The result it saves for task ID is "task ID by NAME\n".
# It stops when claim --next exits 3 (nothing ready); any other failure is
# recorded and the loop goes on (the test decides what is acceptable).
set -u
export LC_ALL=C
daicho=$1 name=$2 lease=$3 out=$4

exec 4>>"$out/$name.times" 2>>"$out/$name.err"

while :; do
	t0=$EPOCHREALTIME
	id=$("$daicho" --as "$name" claim --next --lease "$lease")
	rc=$?
	t1=$EPOCHREALTIME
	printf 'claim %s %d %d\n' "${id:--}" "$rc" $((10#${t1/./} - 10#${t0/./})) >&4
	if ((rc == 3)); then
		break
	fi
	if ((rc != 0)) || [[ -z $id ]]; then
		continue
	fi

	t0=$EPOCHREALTIME
	"$daicho" --as "$name" save "$id" <<<"task $id by $name"
	rc=$?
	t1=$EPOCHREALTIME
	printf 'save %s %d %d\n' "$id" "$rc" $((10#${t1/./} - 10#${t0/./})) >&4

	t0=$EPOCHREALTIME
	"$daicho" --as "$name" report "$id"
	rc=$?
	t1=$EPOCHREALTIME
	printf 'report %s %d %d\n' "$id" "$rc" $((10#${t1/./} - 10#${t0/./})) >&4
done
exit 0
