#!/usr/bin/env bats
# Identity of agent client sessions: names derived from session ids never
# collide, an ended session stays ended, and a command run by an agent
# client is never taken for the human's.

load helpers

setup() {
	common_setup
	daicho add one >/dev/null
	daicho add two >/dev/null
}

# Two Codex thread ids (UUIDv7) begun within the same minute: the first 8
# hex digits are the same timestamp.
A=01a22dbd-591e-7c3a-9f10-6b2d0c1e4a55
B=01a22dbd-5cfc-7e21-8b44-0d9a7f3c2e18

@test "two Codex sessions whose UUIDv7 ids share 8 digits get two agents; the second inherits nothing" {
	CODEX_THREAD_ID=$A ok daicho claim --next
	assert_output 1
	ok daicho agent end codex-01a22dbd
	CODEX_THREAD_ID=$B ok daicho ls --mine --json
	assert_output '[]'
	ok daicho agents --all --json
	run jq -r 'map("\(.name) \(.session_id) \(.state)") | sort | .[]' <<<"$output"
	assert_line "codex-01a22dbd $A ended"
	assert_line "codex-01a22dbd5cfc7e21 $B active"
	ok daicho events --json
	run jq -c '[.[] | select(.kind == "agent-inherit")]' <<<"$output"
	assert_output '[]'
	# B may not take A's claim by name either.
	CODEX_THREAD_ID=$B refused 4 daicho claim 1
}

@test "Claude Code and Gemini session ids that share a prefix get distinct names too" {
	CLAUDE_CODE_SESSION_ID=4f1c2a9e-0000-4000-8000-000000000001 ok daicho claim 1
	ok daicho agent end claude-4f1c2a9e
	CLAUDE_CODE_SESSION_ID=4f1c2a9e-0000-4000-8000-000000000002 ok daicho claim 2
	GEMINI_SESSION_ID=4f1c2a9e-1111 ok daicho ls
	ok daicho agents --json
	run jq -r 'map(select(.kind != "human") | .name) | sort | .[]' <<<"$output"
	assert_output $'claude-4f1c2a9e00004000\ngemini-4f1c2a9e'
	[ "$(task_field 2 owner)" = claude-4f1c2a9e00004000 ]
}

@test "a name chosen with DAICHO_AGENT still takes over what its ended predecessor of that name held" {
	DAICHO_AGENT=impl-1 ok daicho claim 1
	# Ended without releasing (a crash after the claim, then an 'agent end').
	sql "UPDATE agents SET state = 'ended', ended_ms = 1 WHERE name = 'impl-1'"
	DAICHO_AGENT=impl-1 ok daicho ls # registers the name again, inheriting
	DAICHO_AGENT=impl-1 ok daicho ls --mine --json
	[ "$(jq -r '.[0].id' <<<"$output")" = 1 ]
}

@test "an ended session stays ended: its hooks do not bring it back, its commands may read but not write" {
	CODEX_THREAD_ID=$A ok daicho claim 1
	CODEX_THREAD_ID=$A ok daicho agent end
	# The PostToolUse hook of that same 'agent end' command.
	payload='{"session_id":"'$A'","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"daicho agent end"},"cwd":"'$TEST_ROOT'"}'
	run --separate-stderr daicho hook codex post-tool-use <<<"$payload"
	[ "$status" -eq 0 ] || fail "hook: $status $stderr"
	payload='{"session_id":"'$A'","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"'$TEST_ROOT'"}'
	run --separate-stderr daicho hook codex pre-tool-use <<<"$payload"
	[ "$status" -eq 0 ] || fail "hook: $status $stderr"
	ok daicho agents --all --json
	run jq -r 'map("\(.name) \(.state)") | .[]' <<<"$output"
	assert_line "codex-01a22dbd ended"
	refute_line "codex-01a22dbd active"
	ok daicho events --json
	run jq -r '[.[] | .kind] | map(select(startswith("agent-"))) | join(" ")' <<<"$output"
	assert_output 'agent-register agent-register agent-end'
	# Reading works; writing is refused, saying why; nothing changes.
	CODEX_THREAD_ID=$A ok daicho ls
	snapshot_ledger
	CODEX_THREAD_ID=$A refused 6 daicho claim --next
	stderr_contains "this session's daicho agent codex-01a22dbd has ended, and an ended session stays ended"
	assert_ledger_unchanged
	# A new start of the same session (session-start: resume) starts it
	# again, with what it held.
	payload='{"session_id":"'$A'","hook_event_name":"SessionStart","source":"resume","cwd":"'$TEST_ROOT'"}'
	run --separate-stderr daicho hook codex session-start <<<"$payload"
	[ "$status" -eq 0 ] || fail "hook: $status $stderr"
	CODEX_THREAD_ID=$A ok daicho ls --mine --json
	[ "$(jq -c 'map(.id)' <<<"$output")" = '[1]' ] || fail "$output"
	CODEX_THREAD_ID=$A ok daicho claim --next
	assert_output 2
}

@test "Gemini CLI's shell (GEMINI_CLI=1, no session id) never claims as the human: refused when its session is unknown" {
	snapshot_ledger
	GEMINI_CLI=1 refused 6 daicho claim --next
	stderr_contains "this command runs in a gemini session whose daicho agent is unknown"
	stderr_contains "DAICHO_AGENT=NAME"
	GEMINI_CLI=1 refused 6 daicho reserve 'src/**'
	stderr_contains "this command runs in a gemini session whose daicho agent is unknown"
	GEMINI_CLI=1 refused 6 daicho ls --mine
	assert_ledger_unchanged
	# DAICHO_AGENT names it.
	GEMINI_CLI=1 DAICHO_AGENT=g1 ok daicho claim --next
	assert_output 1
}

@test "Gemini CLI's shell finds its session's agent through the client process the session-start hook recorded" {
	# A stand-in for the Gemini CLI process: its hooks and its shell tool
	# are both its children.
	cat >"$TEST_ROOT/gemini-client" <<-'EOF2'
		#!/bin/bash
		printf '{"session_id":"gem-0001","hook_event_name":"SessionStart","source":"startup","cwd":"%s"}' "$PWD" |
			daicho hook gemini session-start >/dev/null
		GEMINI_CLI=1 bash -c 'daicho claim --next'
	EOF2
	chmod +x "$TEST_ROOT/gemini-client"
	ok "$TEST_ROOT/gemini-client"
	assert_output 1
	[ "$(task_field 1 owner)" = gemini-gem0001 ]
	# Once that client is gone, a shell with GEMINI_CLI=1 is refused again.
	GEMINI_CLI=1 refused 6 daicho claim --next
}

@test "two sessions sharing 8 characters, first writes racing: two agents every time, each its own" {
	local i
	for i in $(seq 1 20); do
		CODEX_THREAD_ID="0000$(printf '%04d' "$i")-aaaa-7000-8000-000000000000" daicho add "a$i" >/dev/null &
		CODEX_THREAD_ID="0000$(printf '%04d' "$i")-bbbb-7000-8000-000000000000" daicho add "b$i" >/dev/null &
	done
	wait
	# 40 sessions: 40 agents (plus the human of setup), one per session.
	run sql "SELECT count(*), count(DISTINCT session_id), count(DISTINCT name)
		FROM agents WHERE kind = 'codex'"
	assert_output '40|40|40'
	# Each task was added by its own session's agent.
	run sql "SELECT count(*) FROM events e JOIN tasks t ON t.id = e.task
		JOIN agents a ON a.id = e.actor WHERE e.kind = 'add' AND a.kind = 'codex'
		AND substr(t.title, 1, 1) <> CASE substr(a.session_id, 10, 1) WHEN 'a' THEN 'a' ELSE 'b' END"
	assert_output 0
}
