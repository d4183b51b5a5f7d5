#!/usr/bin/env bats
# daicho send and inbox.

load helpers

T0=1800000000000
MIN=60000

setup() {
	common_setup
	export DAICHO_NOW_MS=$T0
	daicho agent start mgr --role manager >/dev/null
	daicho agent start w1 --role implementer >/dev/null
	daicho agent start w2 --role implementer >/dev/null
}

@test "send to a live agent: stored with the recipient's last seen; inbox prints and marks read" {
	export DAICHO_NOW_MS=$((T0 + 5000))
	daicho ls --as w1 >/dev/null # w1 seen at T0+5s
	export DAICHO_NOW_MS=$((T0 + 8000))
	ok daicho send w1 "please rebase on main" --as mgr
	assert_output "sent #1 to w1, seen 3s ago (2027-01-15T08:00:05Z)"
	[ "$(sql "SELECT recipient_seen_ms FROM messages WHERE id = 1")" = $((T0 + 5000)) ]
	ok daicho inbox --as w1
	assert_output "#1 mgr 0s ago: please rebase on main"
	ok daicho inbox --as w1
	assert_output ""
	[ "$(sql "SELECT read_ms FROM messages WHERE id = 1")" = $((T0 + 8000)) ]
}

@test "inbox --peek does not mark read; --json has every field" {
	daicho send w1 "one" --as mgr >/dev/null
	daicho send w1 "two" --as w2 >/dev/null
	ok daicho inbox --peek --as w1
	assert_line --index 0 "#1 mgr 0s ago: one"
	assert_line --index 1 "#2 w2 0s ago: two"
	ok daicho inbox --json --as w1
	jq -e 'length == 2 and .[0].id == 1 and .[0].from == "mgr" and .[0].to == "w1"
		and .[0].addressed_to == "w1" and .[0].kind == "message" and .[0].text == "one"
		and .[0].sent_ms == '$T0' and .[0].recipient_seen_ms == '$T0' and .[0].queued == false' \
		<<<"$output" >/dev/null || fail "$output"
	ok daicho inbox --as w1 --json
	assert_output "[]"
}

# mutant: mark_read's recipient test dropped (anyone's message marked):
# w2's ack of #1 succeeds and the second assertion fails.
@test "inbox --ack ID marks one of one's messages read without printing it; another's, or one read already, is exit 3 and changes nothing" {
	daicho send w1 "one" --as mgr >/dev/null
	daicho send w1 "two" --as mgr >/dev/null
	snapshot_ledger
	refused 3 daicho inbox --ack 1 --as w2
	[ "$stderr" = "daicho: message #1 is no unread message of yours ('daicho inbox --peek' lists them)" ] || fail "$stderr"
	refused 2 daicho inbox --ack one --as w1
	refused 2 daicho inbox --ack 1 --peek --as w1
	refused 3 daicho inbox --ack 99 --as w1
	assert_ledger_unchanged
	ok daicho inbox --ack '#1' --as w1
	assert_output ""
	ok daicho inbox --ack 2 --as w1 --json
	assert_output '{"id":2,"read":true}'
	[ "$(sql "SELECT count(*) FROM messages WHERE read_ms IS NULL")" = 0 ]
	refused 3 daicho inbox --ack 1 --as w1
	ok daicho inbox --as w1
	assert_output ""
	# On a terminal it says so in one line.
	daicho send w1 "three" --as mgr >/dev/null
	on_pty daicho inbox --ack 3 --as w1
	[ "$status" -eq 0 ] && [[ "$output" == "read #3"* ]] || fail "$status: $output"
}

@test "send --reply-to: answers a message one received, to its sender by default; inbox shows the thread, only as far as the reader saw it" {
	daicho send w1 'which grammar?' --as mgr >/dev/null                 # 1
	daicho send w2 'private to w2' --as mgr >/dev/null                  # 2
	ok daicho send --reply-to 1 'the PEG one?' --as w1                  # 3
	assert_output "sent #3 to mgr, seen 0s ago (2027-01-15T08:00:00Z)"
	ok daicho send --reply-to '#3' 'yes, PEG' --as mgr                  # 4
	ok daicho inbox --as mgr
	assert_output "#3 w1 0s ago: the PEG one?
  re #1 mgr 0s ago: which grammar?"
	ok daicho inbox --as w1
	assert_line --index 0 "#1 mgr 0s ago: which grammar?"
	assert_line --index 1 "#4 mgr 0s ago: yes, PEG"
	assert_line --index 2 "  re #3 w1 0s ago: the PEG one?"
	assert_line --index 3 "    re #1 mgr 0s ago: which grammar?"
	# TO given: the reply goes there, still threaded. The thread never
	# shows a message the reader neither sent nor received.
	daicho send --reply-to 2 w1 'see #2' --as w2 >/dev/null             # 5
	ok daicho inbox --json --as w1
	jq -e 'length == 1 and .[0].reply_to == 2 and .[0].thread == []' <<<"$output" >/dev/null ||
		fail "$output"
	[ "$(sql "SELECT reply_to FROM messages WHERE id = 4")" = 3 ]
	ok daicho events --json
	run jq -c 'map(select(.kind == "send")) | .[2].detail.reply_to' <<<"$output"
	assert_output 1
	# A message that is not one's own to answer, or none: exit 3; bad ids
	# and no TO without --reply-to: exit 2; nothing sent.
	snapshot_ledger
	refused 3 daicho send --reply-to 2 'not mine' --as w1
	refused 3 daicho send --reply-to 99 'none' --as w1
	refused 2 daicho send --reply-to x 'bad' --as w1
	refused 2 daicho send --reply-to 0 'bad' --as w1
	refused 2 daicho send 'no address' --as w1
	assert_ledger_unchanged
}

@test "send - reads the message from stdin, any length, kept exactly" {
	text="$(printf 'line one\nline two: "quoted" $HOME `x`\n')"
	capture daicho send w1 - --as mgr <<<"$text"
	[ "$status" -eq 0 ] || fail "$stderr"
	ok daicho inbox --json --as w1
	jq -e --arg t "$text"$'\n' '.[0].text == $t' <<<"$output" >/dev/null || fail "$output"
}

@test "send - with stdin closed: refused, nothing sent" {
	snapshot_ledger
	capture daicho send w1 - --as mgr <&-
	assert_refused 1
	stderr_contains "standard input is closed"
	assert_ledger_unchanged
}

@test "a message over 16 MiB: refused (exit 2), nothing sent; 16 MiB is taken" {
	snapshot_ledger
	capture sh -c 'head -c 16777217 /dev/zero | tr "\\0" x | daicho send w1 - --as mgr'
	assert_refused 2
	stderr_contains "the message is 16777217 bytes, over the limit of 16777216 (16 MiB; nothing was sent)"
	assert_ledger_unchanged
	ok sh -c 'head -c 16777216 /dev/zero | tr "\\0" x | daicho send w1 - --as mgr'
	[ "$(sql "SELECT length(body) FROM messages WHERE id = 1")" = 16777216 ]
}

@test "an ended agent: refused (exit 3) with its last seen and the live holder of its role" {
	daicho agent start impl-old --role reviewer >/dev/null
	daicho agent start impl-new --role reviewer >/dev/null
	daicho agent end impl-old >/dev/null
	export DAICHO_NOW_MS=$((T0 + 10 * MIN))
	daicho ls --as impl-new >/dev/null
	snapshot_ledger
	refused 3 daicho send impl-old "are you done?" --as mgr
	assert_equal "$stderr" "daicho: agent 'impl-old' ended 10m ago, last seen 2027-01-15T08:00:00Z (10m ago); live holders of its role 'reviewer': impl-new (seen 0s ago) (send to a live agent, or --queue to deliver it if impl-old comes back)"
	assert_ledger_unchanged
}

@test "a stale agent is refused too; a waiting one is not" {
	daicho agent start quiet >/dev/null
	daicho agent start patient >/dev/null
	daicho wait --as patient --for x --owner mgr >/dev/null
	export DAICHO_NOW_MS=$((T0 + 11 * MIN))
	refused 3 daicho send quiet "hello" --as mgr
	stderr_contains "agent 'quiet' is stale, last seen 2027-01-15T08:00:00Z (11m ago); it had no role"
	ok daicho send patient "still there?" --as mgr
	ok daicho inbox --as patient
	assert_output "#1 mgr 0s ago: still there?"
}

@test "--queue keeps a message for a gone agent; it is delivered when the name comes back" {
	daicho agent end w2 >/dev/null
	ok daicho send w2 "when you are back: rerun the tests" --queue --as mgr
	assert_output "sent #1 to w2 (queued), seen 0s ago (2027-01-15T08:00:00Z)"
	ok daicho send newcomer "welcome" --queue --as mgr
	assert_output "sent #2 to newcomer (queued)"
	daicho agent start w2 >/dev/null
	ok daicho inbox --as w2
	assert_output "#1 mgr 0s ago: when you are back: rerun the tests"
	ok daicho inbox --as newcomer
	assert_output "#2 mgr 0s ago: welcome"
	ok daicho inbox --as w2
	assert_output ""
}

@test "role: sends to every live holder, --one to the most recently seen" {
	export DAICHO_NOW_MS=$((T0 + 1000))
	daicho ls --as w2 >/dev/null
	ok daicho send role:implementer "stand-up in 5" --as mgr
	assert_line --index 0 --partial "sent #1 to w2"
	assert_line --index 1 --partial "sent #2 to w1"
	ok daicho send role:implementer "you take #4" --one --as mgr --json
	jq -e 'length == 1 and .[0].to == "w2"' <<<"$output" >/dev/null || fail "$output"
	ok daicho inbox --as w1 --json
	jq -e 'length == 1 and .[0].addressed_to == "role:implementer"' <<<"$output" >/dev/null ||
		fail "$output"
}

@test "send refuses bad input with one line and no change" {
	snapshot_ledger
	refused 3 daicho send nobody "hi" --as mgr
	stderr_contains "no agent named 'nobody'"
	refused 3 daicho send role:qa "hi" --as mgr
	stderr_contains "no live agent holds role 'qa'"
	refused 2 daicho send role: "hi" --as mgr
	refused 2 daicho send 'bad name' "hi" --as mgr
	refused 2 daicho send w1 "" --as mgr
	refused 2 daicho send w1 --as mgr
	refused 2 daicho send w1 "hi" --one --as mgr
	refused 2 daicho send w1 "hi" --stale-after x --as mgr
	capture daicho send w1 - --as mgr </dev/null
	assert_refused 2
	assert_ledger_unchanged
}

@test "a message is never an approval: it is stored as text and nothing else changes" {
	daicho send w1 "daicho approve 1" --as mgr >/dev/null
	[ "$(sql "SELECT count(*) FROM messages")" = 1 ]
	[ "$(sql_joined , "SELECT DISTINCT kind FROM events WHERE kind NOT LIKE 'agent-%'")" = send ]
}

@test "help for send and inbox" {
	ok daicho send --help
	assert_line --index 0 "usage: daicho send TO TEXT|- [--queue] [--one] [--stale-after DUR]"
	ok daicho inbox --help
	assert_line --index 0 "usage: daicho inbox [--peek | --ack ID]"
}
