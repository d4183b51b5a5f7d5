#!/usr/bin/env bats
# Adversarial tests of the MCP server (daicho mcp): what an agent under
# pressure would try against its guarantees. Each test is one scenario of
# adversary.js and passes only when the guarantee holds.

load helpers
SCENARIOS=adversary.js

@test "mcp adversary: option-like values stay values; extra properties like as, ledger, force are refused" {
	scenario option-smuggling
}

@test "mcp adversary: another agent's task, wait and reservation cannot be touched" {
	scenario foreign
}

@test "mcp adversary: --as or DAICHO_AGENT naming the human does not act as the human" {
	scenario human-name
}

@test "mcp adversary: a message's sender is the server's agent; no wildcard recipients" {
	scenario send-impersonation
}

@test "mcp adversary: batches with cycles, dangling keys, 10,000 items: all or nothing" {
	scenario batch
}

@test "mcp adversary: nothing but JSON-RPC on stdout, whatever the ledger holds" {
	scenario stdout-protocol
}

@test "mcp adversary: a request that is valid JSON is answered with its id (NUL in a string, a huge number)" {
	scenario valid-json-answered
}

@test "mcp adversary: huge results and lines, 2,000 pipelined requests: served, in order" {
	scenario huge
}

@test "mcp adversary: a 12 MB message from another agent does not end the recipient's session" {
	scenario huge-message
}

@test "mcp adversary: servers racing for one new session make one agent" {
	scenario session-race
}

@test "mcp adversary: after 'daicho agent end NAME', the --as NAME server's writes are refused" {
	scenario ended-as
}

@test "mcp adversary: no valid identity, no server (also on a terminal)" {
	scenario no-identity
}

@test "mcp adversary: human-only operations are no tool under any spelling; resources name no one else" {
	scenario human-only
}

@test "mcp adversary: a line over 64 MiB is skipped and answered with one error; the server goes on" {
	scenario line-cap
}

@test "mcp adversary: handoff from another agent is refused (its messages, its role stay); from itself works" {
	scenario handoff-foreign
}
