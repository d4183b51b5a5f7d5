#!/bin/bash
# The worker of the `daicho run` stress test (tests/stress/run.bats).
#
# usage: daicho run ... -- run_worker.sh ROOT RUN {id}
#
# ROOT is the test directory (the project root of the ledger), RUN names the
# run ("run1", "run2"). The task id comes as an argument and must equal
# $DAICHO_TASK. The worker:
#   - counts its attempt in ROOT/n/ID (1, 2, ...),
#   - appends "S <usec> ID <attempt>" to ROOT/RUN.times when it starts and
#     "E <usec> ID <attempt> <outcome>" when it ends (also when it is sent
#     SIGTERM by --timeout: the trap writes the line), so the test can
#     compute how many workers of one run overlapped,
#   - draws r in 0..99 from a generator seeded by (id, attempt) and then
#       r < 15: exits 1                        (a failure: requeued)
#       r < 16: sleeps 4.321 s, past --timeout 2s (killed: requeued)
#       r < 28: exits 0 without writing its file (a lie: rejected)
#       else:   writes ROOT/out/ID.txt and exits 0 (verified)
#     after a nap of 50-249 ms, so that the 16 slots fill up.
# It never calls daicho: the runner reports for it (exit 0) and the sweep
# verifies the task's check, file:out/ID.txt.
set -u
root=$1 run=$2 id=$3
times=$root/$run.times

if [[ $id != "${DAICHO_TASK:-}" ]]; then
	echo "argument '$id' is not DAICHO_TASK '${DAICHO_TASK:-}'" >>"$root/errors"
	exit 9
fi

n=0
[[ -f $root/n/$id ]] && read -r n <"$root/n/$id"
n=$((n + 1))
echo "$n" >"$root/n/$id"

# Times in microseconds, without a subshell ($EPOCHREALTIME always has six
# decimals).
t=$EPOCHREALTIME
echo "S ${t/./} $id $n" >>"$times"
trap 't=$EPOCHREALTIME; echo "E ${t/./} $id $n term" >>"$times"; exit 143' TERM

RANDOM=$((id * 7919 + n * 104729))
r=$((RANDOM % 100))
# A short nap without starting a process (ROOT/nap.fifo: nobody writes).
printf -v nap '0.%02d' $((RANDOM % 20 + 5))
read -r -t "$nap" _ <>"$root/nap.fifo"

if ((r < 15)); then
	outcome=fail
	code=1
elif ((r < 16)); then
	outcome=slept
	# In the background and waited for, so that the TERM trap runs at once.
	sleep 4.321 &
	wait $!
	code=0
elif ((r < 28)); then
	outcome=lie
	code=0
else
	outcome=ok
	echo "task $id attempt $n" >"$root/out/$id.txt"
	code=0
fi
t=$EPOCHREALTIME
echo "E ${t/./} $id $n $outcome" >>"$times"
exit $code
