#!/usr/bin/env bats
# Messages under real concurrency: exactly-once delivery, in send order.
#
# The spec: "32 processes sending to each other 100 messages each: every
# message is delivered exactly once to inbox, in send order per sender."
#
# 32 agents p1..p32 are registered first (`agent start`: sending to a name
# never seen is refused). Then 32 processes run at once, one per agent. pN
# sends its 100 messages "from=pN seq=K" round-robin over the 31 others
# (message K goes to the agent (K-1) % 31 + 1 places after it, so each agent
# receives exactly 100, 3 or 4 from each sender), and every POLL sends it
# reads its own inbox (`inbox --json`, which marks what it prints read),
# appending each read to its log. When every sender is done, each agent
# drains its inbox once more, then reads it again to see it empty.
# The run happens once (setup_file); each test checks one property of the
# workers' logs and of the ledger afterwards.
#
# Each process's stdout, stderr and exit status are kept: no command may
# fail, and no stderr at all may be written (no "ledger busy", no exit 75).
# The default DAICHO_BUSY_TIMEOUT (30s) applies, as in the other stress
# tests. Sizes: DAICHO_STRESS_MSG_AGENTS [32], DAICHO_STRESS_MSGS [100],
# DAICHO_STRESS_MSG_POLL [10] (sends between two inbox reads), and
# DAICHO_STRESS_DEADLINE [120] seconds without anything recorded, after
# which the senders are stopped (a hang; a slow machine still moves).

load common

N_AGENTS=${DAICHO_STRESS_MSG_AGENTS:-32}
N_MSGS=${DAICHO_STRESS_MSGS:-100}
POLL=${DAICHO_STRESS_MSG_POLL:-10}
DEADLINE=${DAICHO_STRESS_DEADLINE:-120}

# The per-agent process, run by a fresh bash (not inside bats: no traps, no
# set -e). usage: msgworker DAICHO N AGENTS MSGS POLL OUTDIR
#   OUTDIR/pN.sent   "SEQ TO " then send's own line ("sent #ID to TO, ...")
#   OUTDIR/pN.inbox  every `inbox --json` it printed, in the order read
#   OUTDIR/pN.rc     "CMD ARG RC" for every command that did not exit 0
#   OUTDIR/pN.err    the stderr of all its commands (must stay empty)
#   OUTDIR/pN.times  "CMD ARG RC USEC" for every command
MSGWORKER='
set -u
export LC_ALL=C
D=$1 n=$2 agents=$3 msgs=$4 poll=$5 out=$6
me=p$n
exec 2>>"$out/$me.err" 4>>"$out/$me.sent" 5>>"$out/$me.inbox" \
    6>>"$out/$me.rc" 7>>"$out/$me.times"
inbox() {
	local t0 t1 rc
	t0=$EPOCHREALTIME
	"$D" --as "$me" --json inbox >&5
	rc=$?
	t1=$EPOCHREALTIME
	printf "inbox %s %d %d\n" "$1" "$rc" $((10#${t1/./} - 10#${t0/./})) >&7
	((rc == 0)) || echo "inbox $1 $rc" >&6
}
for ((k = 1; k <= msgs; k++)); do
	to=p$(((n - 1 + (k - 1) % (agents - 1) + 1) % agents + 1))
	printf "%d %s " "$k" "$to" >&4
	t0=$EPOCHREALTIME
	"$D" --as "$me" send "$to" "from=$me seq=$k" >&4
	rc=$?
	t1=$EPOCHREALTIME
	printf "send %d %d %d\n" "$k" "$rc" $((10#${t1/./} - 10#${t0/./})) >&7
	((rc == 0)) || { echo >&4; echo "send $k $rc" >&6; }
	((k % poll == 0)) && inbox "$k"
done
exit 0
'

setup_file() {
	stress_setup "$BATS_FILE_TMPDIR"
	local n start end
	mkdir -p "$T/m"
	# Register everybody before anyone sends.
	for ((n = 1; n <= N_AGENTS; n++)); do
		"$D" -q agent start "p$n" 2>>"$T/m/start.err" ||
			echo "agent start p$n: $?" >>"$T/m/start.err"
	done
	WORKER_PIDS=()
	start=$(now_us)
	for ((n = 1; n <= N_AGENTS; n++)); do
		setsid bash -c "$MSGWORKER" msgworker "$D" "$n" "$N_AGENTS" "$N_MSGS" \
		    "$POLL" "$T/m" &
		WORKER_PIDS+=($!)
	done
	if wait_workers "$DEADLINE" "${WORKER_PIDS[@]}"; then
		echo finished >"$T/run_status"
	else
		echo "stopped: the ledger recorded nothing for ${DEADLINE}s" >"$T/run_status"
	fi
	end=$(now_us)
	echo $((end - start)) >"$T/run_us"
	cat "$T"/m/p*.inbox | jq -s 'map(length) | add // 0' >"$T/read_during" 2>&1
	# Everyone drains what is left, then reads once more: nothing.
	for ((n = 1; n <= N_AGENTS; n++)); do
		"$D" --as "p$n" --json inbox >>"$T/m/p$n.inbox" 2>>"$T/m/p$n.err" ||
			echo "inbox final $?" >>"$T/m/p$n.rc"
	done
	for ((n = 1; n <= N_AGENTS; n++)); do
		"$D" --as "p$n" --json inbox >>"$T/m/after.inbox" 2>>"$T/m/p$n.err" ||
			echo "inbox after $?" >>"$T/m/p$n.rc"
	done
	# Every delivery as "RECIPIENT READ# ID FROM TO KIND SENDER SEQ", in the
	# order each recipient read them (READ# counts its inbox calls).
	for ((n = 1; n <= N_AGENTS; n++)); do
		jq -r --arg me "p$n" '
			input_line_number as $r | .[] |
			[$me, $r, .id, .from, .to, .kind,
			 (.text | capture("^from=(?<s>[^ ]+) seq=(?<q>[0-9]+)$") // {s: "?", q: "?"}
			  | .s, .q)] | join(" ")' "$T/m/p$n.inbox"
	done >"$T/delivered" 2>"$T/delivered.err"
	# Every send as "SENDER SEQ TO ID".
	for ((n = 1; n <= N_AGENTS; n++)); do
		awk -v me="p$n" '$3 == "sent" { id = $4; sub(/^#/, "", id); t = $6; sub(/,$/, "", t)
			print me, $1, $2, id, t }' "$T/m/p$n.sent"
	done >"$T/sent"
}

setup() {
	export LC_ALL=C
}

@test "messages: 32 agents send 100 messages each within the deadline, every command exits 0" {
	local run
	run=$(cat "$T/run_us")
	printf '# %s after %d.%03d s: %d sends, %d inbox reads, %d messages delivered\n' \
	    "$(cat "$T/run_status")" $((run / 1000000)) $((run / 1000 % 1000)) \
	    "$(wc -l <"$T/sent")" "$(awk '$1 == "inbox"' "$T"/m/*.times | wc -l)" \
	    "$(wc -l <"$T/delivered")" >&3
	[ "$(cat "$T/run_status")" = finished ]
	[ ! -s "$T/m/start.err" ] || fail_with "agent start failed:" "$(cat "$T/m/start.err")"
	[ "$(q "SELECT count(*) FROM agents WHERE state <> 'ended'")" -eq "$N_AGENTS" ]
	run cat "$T"/m/*.rc
	[ -z "$output" ] || fail_with "commands that did not exit 0 (cmd seq rc):" "${lines[@]:0:20}"
	# Every send printed "sent #ID to TO", TO being the one it was asked for.
	[ "$(wc -l <"$T/sent")" -eq $((N_AGENTS * N_MSGS)) ]
	run awk '$3 != $5' "$T/sent"
	[ -z "$output" ] || fail_with "sends that went elsewhere (sender seq to id sent-to):" "$output"
}

@test "messages: no stderr at all (no busy, no exit 75)" {
	run cat "$T"/m/*.err "$T/delivered.err"
	[ -z "$output" ] || fail_with "stderr:" "${lines[@]:0:20}"
	run grep -h ' 75$' "$T"/m/*.rc
	[ "$status" -eq 1 ] || fail_with "busy (exit 75):" "$output"
}

@test "messages: 3,200 delivered, each message exactly once, to its recipient" {
	local total=$((N_AGENTS * N_MSGS))
	[ "$(wc -l <"$T/delivered")" -eq "$total" ] ||
	    fail_with "delivered $(wc -l <"$T/delivered") messages, want $total"
	# No message id delivered twice (to anyone).
	run bash -c "awk '{ print \$3 }' '$T/delivered' | sort -n | uniq -d | head -20"
	[ -z "$output" ] || fail_with "message ids delivered more than once:" "$output"
	# Every (sender, seq) exactly once, and nothing else.
	for ((n = 1; n <= N_AGENTS; n++)); do
		for ((k = 1; k <= N_MSGS; k++)); do
			echo "p$n $k"
		done
	done | sort >"$T/want_pairs"
	awk '{ print $7, $8 }' "$T/delivered" | sort >"$T/got_pairs"
	run bash -c "uniq -d '$T/got_pairs' | head -20"
	[ -z "$output" ] || fail_with "(sender, seq) delivered more than once:" "$output"
	run bash -c "comm -3 '$T/want_pairs' '$T/got_pairs' | head -20"
	[ -z "$output" ] || fail_with "(sender, seq) missing (left) or unexpected (right):" "$output"
	# Each went to its addressee, from its sender, as the id send printed.
	run awk 'NR == FNR { want[$1 " " $2] = $3 " " $4; next }
		{ k = $7 " " $8; if ($6 != "message" || $4 != $7 || $5 != $1 ||
		      want[k] != $1 " " $3) print "got:", $0, " sent:", k, want[k] }' \
	    "$T/sent" "$T/delivered"
	[ -z "$output" ] || fail_with "deliveries that do not match their send:" "${lines[@]:0:20}"
	# The ledger agrees: every message read, none left.
	run q "SELECT count(*), count(read_ms), count(DISTINCT id) FROM messages"
	[ "$output" = "$total|$total|$total" ] ||
	    fail_with "messages rows|read|distinct = $output, want $total each"
	run cat "$T/m/after.inbox"
	[ "$(echo "$output" | jq -s 'map(length) | add')" -eq 0 ] ||
	    fail_with "inbox not empty after the final drain:" "$output"
}

@test "messages: in send order per sender (and oldest first per recipient)" {
	# Per (sender, recipient): seqs increase across the recipient's reads,
	# in the order it read them.
	run awk '{ k = $7 " -> " $1
		if (k in last && $8 + 0 <= last[k]) print k ": seq", $8, "after", last[k], "(read", $2 ")"
		last[k] = $8 + 0 }' "$T/delivered"
	[ -z "$output" ] || fail_with "out of send order:" "${lines[@]:0:20}"
	# Per sender, ids grow with seq: the send order is the id order.
	run awk '{ if ($1 in last && $4 + 0 <= last[$1]) print $1, "seq", $2, "id", $4, "after id", last[$1]
		last[$1] = $4 + 0 }' "$T/sent"
	[ -z "$output" ] || fail_with "send ids not increasing:" "${lines[@]:0:20}"
	# Per recipient, ids increase across all its reads: oldest first, and a
	# read never leaves behind a message older than one it returns.
	run awk '{ if ($1 in last && $3 + 0 <= last[$1]) print $1, "got id", $3, "after", last[$1], "(read", $2 ")"
		last[$1] = $3 + 0 }' "$T/delivered"
	[ -z "$output" ] || fail_with "inbox ids not increasing:" "${lines[@]:0:20}"
	# The reads were concurrent with the sends: most messages were read
	# before the final drain (otherwise this test shows little).
	printf '# %s of %d messages read while the senders ran, the rest in the final drain\n' \
	    "$(cat "$T/read_during")" "$(wc -l <"$T/delivered")" >&3
}

@test "messages: no process waited 2 s or more for the write lock" {
	local max med p99 n
	read -r max med p99 n <<<"$(timing_stats "$T/m")"
	printf '# wall time per command (%d): median %d.%03d ms, p99 %d.%03d ms, max %d.%03d ms\n' \
	    "$n" $((med / 1000)) $((med % 1000)) $((p99 / 1000)) $((p99 % 1000)) \
	    $((max / 1000)) $((max % 1000)) >&3
	read -r max med p99 <<<"$(sort -n -k3 "$T/lock.trace" | awk '{ w[NR] = $3 }
		END { printf "%d %d %d", w[NR], w[int(NR / 2) + 1], w[int(NR * 0.99) + 1] }')"
	printf '# wait for the write lock per process: median %d.%03d ms, p99 %d.%03d ms, max %d.%03d ms\n' \
	    $((med / 1000)) $((med % 1000)) $((p99 / 1000)) $((p99 % 1000)) \
	    $((max / 1000)) $((max % 1000)) >&3
	[ "$max" -lt 2000000 ] ||
	    fail_with "longest lock waits (pid transactions wait_us_max ...):" \
	    "$(sort -n -k3 "$T/lock.trace" | tail -5)"
}
