#!/usr/bin/env bats
# Claude Code (the real client, pinned in package-lock.json) with
# 'daicho init --claude', against a scripted Anthropic Messages stand-in.
# See helpers.bash and scenarios.bash.

load helpers
load scenarios

@test "claude: the session is one agent, told its name, and its commands act as it" {
	scenario_agent_name claude
}

@test "claude: 'daicho approve N' from the model is denied and the request stays pending" {
	scenario_approve_denied claude
}

@test "claude: a gated 'git merge' does not run; Claude Code reports the ask as a denial" {
	scenario_gated_merge claude
}

@test "claude: writing a path another agent reserved is denied and nothing is written" {
	scenario_reserved_edit claude
}

@test "claude: a message sent before the session reaches the model" {
	scenario_inbox claude
}

@test "claude: the stop hook reminds the model of its unreported claim" {
	scenario_stop_reminder claude
}

@test "claude: two sessions one after the other are two agents; the second inherits nothing" {
	scenario_two_sessions claude
}

@test "claude: two sessions whose ids share the first 8 hex digits are two agents" {
	local rest1 rest2
	rest1="$(cat /proc/sys/kernel/random/uuid)" rest2="$(cat /proc/sys/kernel/random/uuid)"
	# Same first 8 hex digits, as UUIDv7 ids within a minute have.
	CLAUDE_SIDS=("0199aaaa-${rest1#*-}" "0199aaaa-${rest2#*-}")
	scenario_two_sessions claude
}

@test "claude: 'daicho agent end' from the model sticks" {
	scenario_agent_end_sticks claude
}

@test "claude: the model's ways around 'daicho approve' approve nothing" {
	scenario_approve_workarounds claude
}

@test "claude: the model lists daicho's MCP tools and claims, saves and reports a task through them" {
	daicho init --claude >/dev/null
	jq -e '.mcpServers.daicho.command == "daicho"' .mcp.json >/dev/null || fail "$(cat .mcp.json)"
	daicho add 'Write the parser' --body 'Parse the input.' >/dev/null
	# The project's .mcp.json as 'daicho init --claude' wrote it, which
	# Claude Code loads by itself (-p asks no approval); its tools allowed.
	E2E_ALLOWED_TOOLS="Bash,Read,Edit,Write,mcp__daicho"
	E2E_ENV=()
	start_standin claude '[
		{"call": "mcp__daicho__claim", "input": {"next": true}},
		{"call": "mcp__daicho__prompt", "input": {"id": 1}},
		{"call": "mcp__daicho__save", "input": {"id": 1, "text": "parsed: 42 tokens"}},
		{"call": "mcp__daicho__claim", "input": {"id": 1, "next": true}},
		{"call": "mcp__daicho__report", "input": {"id": 1, "note": "through MCP"}},
		{"text": "done."}]'
	run_session
	session_ok
	jq -se 'map(select(.type == "system" and .subtype == "init") | .mcp_servers[]) |
		any(.name == "daicho" and .status == "connected")' "$SESSION_OUT" >/dev/null ||
		fail "the daicho server did not connect: $(jq -c 'select(.subtype == "init") | .mcp_servers' "$SESSION_OUT")"
	# The tools Claude Code offered the model.
	requests | head -n 1 | jq -e '[.body.tools[].name] | index("mcp__daicho__claim") and
		index("mcp__daicho__report") and index("mcp__daicho__inbox") and
		(index("mcp__daicho__approve") | not)' >/dev/null ||
		fail "daicho's tools were not offered: $(requests | head -n 1 | jq -c '[.body.tools[].name]')"
	tool_result 0 | jq -e '.error == false and (.text | contains("{\"id\":1}"))' >/dev/null ||
		fail "claim: $(tool_result 0)"
	tool_result 1 | jq -e '.text | contains("Parse the input.")' >/dev/null || fail "prompt: $(tool_result 1)"
	tool_result 3 | jq -e '.error == true and (.text | contains("claim takes an ID or --next, one of the two"))' \
		>/dev/null || fail "a refused call: $(tool_result 3)"
	tool_result 4 | jq -e '.error == false' >/dev/null || fail "report: $(tool_result 4)"
	# The ledger: the session's agent (Claude Code gives the server its
	# session id) claimed, saved and reported the task.
	local agent
	agent="$(daicho agents --all --json | jq -r --arg s "$SESSION_ID" '.[] | select(.session_id == $s) | .name')"
	[ -n "$agent" ] || fail "no agent bound to session $SESSION_ID: $(daicho agents --all)"
	daicho show 1 --json | jq -e --arg a "$agent" '.state == "reported" and .owner == $a and
		.note == "through MCP"' >/dev/null || fail "$(daicho show 1)"
	[ "$(daicho result 1)" = "parsed: 42 tokens" ]
}
