#!/usr/bin/env bats
# Codex CLI (the real client, pinned in package-lock.json) with
# 'daicho init --codex', against a scripted OpenAI Responses stand-in.
# See helpers.bash and scenarios.bash.

load helpers
load scenarios

@test "codex: the session is one agent, told its name, and its commands act as it" {
	scenario_agent_name codex
}

@test "codex: 'daicho approve N' from the model is denied and the request stays pending" {
	scenario_approve_denied codex
}

@test "codex: a gated 'git merge' does not run; Codex reports the deny" {
	scenario_gated_merge codex
}

@test "codex: writing a path another agent reserved is denied and nothing is written" {
	scenario_reserved_edit codex
}

@test "codex: a message sent before the session reaches the model" {
	scenario_inbox codex
}

@test "codex: the stop hook reminds the model of its unreported claim" {
	scenario_stop_reminder codex
}

@test "codex: two sessions within a minute (UUIDv7 ids) are two agents; the second inherits nothing" {
	scenario_two_sessions codex
}

@test "codex: 'daicho agent end' from the model sticks" {
	scenario_agent_end_sticks codex
}

@test "codex: doctor says when Codex does not trust the project's hooks" {
	scenario_untrusted_hooks codex
}

@test "codex: the model's ways around 'daicho approve' approve nothing" {
	scenario_approve_workarounds codex
}

@test "codex: a task sent back from landing: the model reads why in its prompt and redoes it on the trunk, and it lands" {
	scenario_land_sent_back codex
}

@test "codex: the plugin, installed from this repository's marketplace in place of init, is listed installed with its MCP server; its hooks fire" {
	scenario_codex_plugin codex
}
