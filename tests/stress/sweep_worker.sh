#!/usr/bin/env bash
# One worker of the sweep stress test: loop claim --next / (write the
# artefact, or lie) / report, until nothing is ready.
#
# usage: sweep_worker.sh DAICHO NAME ROOT OUTDIR
#
# The ledger comes from $DAICHO_LEDGER; ROOT is the project root its file:
# checks are relative to. For task ID the artefact is ROOT/out/ID.txt,
# holding "task ID by NAME\n" -- except when ID % 3 == 0: then the worker
# writes nothing and reports anyway (a false report).
#
# For every daicho invocation the worker appends one line "CMD ID RC USEC"
# to OUTDIR/NAME.times (USEC: wall time of the process) and sends its stderr
# to OUTDIR/NAME.err. It stops when claim --next exits 3 (nothing ready);
# any other failure is recorded and the loop goes on (the test decides).
set -u
export LC_ALL=C
daicho=$1 name=$2 root=$3 out=$4

exec 4>>"$out/$name.times" 2>>"$out/$name.err"

while :; do
	t0=$EPOCHREALTIME
	id=$("$daicho" --as "$name" claim --next)
	rc=$?
	t1=$EPOCHREALTIME
	printf 'claim %s %d %d\n' "${id:--}" "$rc" $((10#${t1/./} - 10#${t0/./})) >&4
	if ((rc == 3)); then
		break
	fi
	if ((rc != 0)) || [[ ! $id =~ ^[0-9]+$ ]]; then
		continue
	fi

	if ((id % 3 != 0)); then
		printf 'task %s by %s\n' "$id" "$name" >"$root/out/$id.txt"
	fi

	t0=$EPOCHREALTIME
	"$daicho" --as "$name" report "$id"
	rc=$?
	t1=$EPOCHREALTIME
	printf 'report %s %d %d\n' "$id" "$rc" $((10#${t1/./} - 10#${t0/./})) >&4
done
exit 0
