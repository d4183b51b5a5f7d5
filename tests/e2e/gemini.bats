#!/usr/bin/env bats
# Gemini CLI (the real client, pinned in package-lock.json) with
# 'daicho init --gemini', against a scripted Gemini streamGenerateContent stand-in.
# See helpers.bash and scenarios.bash.

load helpers
load scenarios

@test "gemini: the session is one agent, told its name, and its commands act as it" {
	scenario_agent_name gemini
}

@test "gemini: 'daicho approve N' from the model is denied and the request stays pending" {
	scenario_approve_denied gemini
}

@test "gemini: a gated 'git merge' does not run; Gemini CLI reports the deny" {
	scenario_gated_merge gemini
}

@test "gemini: writing a path another agent reserved is denied and nothing is written" {
	scenario_reserved_edit gemini
}

@test "gemini: a message sent before the session reaches the model" {
	scenario_inbox gemini
}

@test "gemini: two sessions within a minute are two agents; the second inherits nothing" {
	scenario_two_sessions gemini
}

@test "gemini: doctor says when Gemini CLI does not trust the folder" {
	scenario_untrusted_hooks gemini
}

@test "gemini: the model's ways around 'daicho approve' approve nothing" {
	scenario_approve_workarounds gemini
}

@test "gemini: the model lists daicho's MCP tools and claims, saves and reports a task through them" {
	scenario_mcp gemini
}

@test "gemini: a task sent back from landing: the model reads why in its prompt and redoes it on the trunk, and it lands" {
	scenario_land_sent_back gemini
}

@test "gemini: the extension, installed from this repository in place of init, lists its parts; its hooks fire and its MCP tools act as the session's agent" {
	scenario_gemini_extension gemini
}
