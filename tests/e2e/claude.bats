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
	scenario_mcp claude
}

@test "claude: a task sent back from landing: the model reads why in its prompt and redoes it on the trunk, and it lands" {
	scenario_land_sent_back claude
}

@test "claude: the plugin, installed from this repository's marketplace in place of init, lists its parts; its hooks fire and its MCP tools act as the session's agent" {
	scenario_claude_plugin claude
}
