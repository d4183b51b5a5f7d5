#!/usr/bin/env bats
# Exclusive under contention: reservations and single-use approvals.
#
# 1. Rounds of 32 processes, released together through a fifo barrier,
#    each reserving a different glob that overlaps every other's
#    (shared/** against shared/file.txt and shared/*.txt): in every round
#    exactly one wins, the others are refused with exit 4, and the ledger
#    holds exactly one live reservation. The winner releases; next round.
# 2. One approval, used by 16 concurrent `gate exec` runs of the same agent
#    and command: the command runs exactly once; the others ask anew.

load common

N=32
ROUNDS=5

setup() {
	stress_setup
}

# race_reserve ROUND: N processes try to reserve at once; prints the winners.
race_reserve() {
	local round=$1 k ready
	mkdir -p "$T/r$round"
	mkfifo "$T/r$round/go"
	for ((k = 1; k <= N; k++)); do
		(
			case $((k % 3)) in
			0) glob='shared/**' ;;
			1) glob=shared/file.txt ;;
			2) glob='shared/*.txt' ;;
			esac
			: >"$T/r$round/ready.$k"
			read -r _ <"$T/r$round/go" || true
			# (set -e is on in the subshell: catch the status.)
			rc=0
			"$D" --as "p$k" reserve "$glob" 2>"$T/r$round/err.$k" || rc=$?
			echo $rc >"$T/r$round/rc.$k"
		) &
	done
	while :; do
		ready=("$T/r$round"/ready.*)
		((${#ready[@]} == N)) && break
		nap 0.02
	done
	# Opening and closing the write end wakes every reader at once (EOF).
	nap 0.1
	exec {go}>"$T/r$round/go"
	nap 0.1
	exec {go}>&-
	wait
}

@test "32 racing reservations of overlapping globs: exactly one wins each round" {
	local round k winners refused
	# Every agent is known before the race, so each round is only reserves.
	for ((k = 1; k <= N; k++)); do
		"$D" --as "p$k" ls >/dev/null
	done
	for ((round = 1; round <= ROUNDS; round++)); do
		race_reserve "$round"
		winners=() refused=0
		for ((k = 1; k <= N; k++)); do
			case "$(cat "$T/r$round/rc.$k")" in
			0) winners+=("p$k") ;;
			4) refused=$((refused + 1))
			   grep -q '^daicho: .* overlaps .*reserved by p' "$T/r$round/err.$k" ||
				fail_with "round $round p$k: $(cat "$T/r$round/err.$k")" ;;
			*) fail_with "round $round p$k exited $(cat "$T/r$round/rc.$k"): $(cat "$T/r$round/err.$k")" ;;
			esac
		done
		((${#winners[@]} == 1)) || fail_with "round $round: winners ${winners[*]}"
		((refused == N - 1)) || fail_with "round $round: $refused refused"
		[ "$(q "SELECT count(*) FROM reservations WHERE released_ms IS NULL")" = 1 ] ||
			fail_with "round $round: $(q 'SELECT * FROM reservations WHERE released_ms IS NULL')"
		[ "$(q "SELECT a.name FROM reservations r JOIN agents a ON a.id = r.agent WHERE r.released_ms IS NULL")" = "${winners[0]}" ]
		"$D" --as "${winners[0]}" unreserve --all
	done
}

@test "one approval used by 16 concurrent gate exec runs: the command runs once" {
	local k ran asked ready
	mkdir "$T/bin" "$T/g"
	# A stand-in for the gated program: it records each run.
	printf '#!/bin/sh\necho run >>"%s/runs"\n' "$T" >"$T/bin/deploy"
	chmod +x "$T/bin/deploy"
	export PATH="$T/bin:$PATH"
	"$D" gate add 'deploy *' --approval >/dev/null
	run "$D" --as w gate exec -- deploy prod
	[ "$status" -eq 6 ]
	script -qec "$D approve 1" /dev/null >/dev/null
	[ "$(q "SELECT state FROM approvals WHERE id = 1")" = approved ]
	mkfifo "$T/g/go"
	for ((k = 1; k <= 16; k++)); do
		(
			: >"$T/g/ready.$k"
			read -r _ <"$T/g/go" || true
			rc=0
			"$D" --as w gate exec -- deploy prod 2>"$T/g/err.$k" || rc=$?
			echo $rc >"$T/g/rc.$k"
		) &
	done
	while :; do
		ready=("$T"/g/ready.*)
		((${#ready[@]} == 16)) && break
		nap 0.02
	done
	nap 0.1
	exec {go}>"$T/g/go"
	nap 0.1
	exec {go}>&-
	wait
	ran=0 asked=0
	for ((k = 1; k <= 16; k++)); do
		case "$(cat "$T/g/rc.$k")" in
		0) ran=$((ran + 1)) ;;
		6) asked=$((asked + 1)) ;;
		*) fail_with "run $k exited $(cat "$T/g/rc.$k"): $(cat "$T/g/err.$k")" ;;
		esac
	done
	[ "$(wc -l <"$T/runs")" -eq 1 ] || fail_with "deploy ran $(wc -l <"$T/runs") times"
	((ran == 1 && asked == 15)) || fail_with "ran $ran, asked $asked"
	[ "$(q "SELECT state FROM approvals WHERE id = 1")" = used ]
}
