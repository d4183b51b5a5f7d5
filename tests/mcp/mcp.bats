#!/usr/bin/env bats
# The MCP server (daicho mcp) driven by the official TypeScript SDK client
# (@modelcontextprotocol/sdk, pinned in package-lock.json) and by raw
# JSON-RPC lines: each test is one scenario of run.js.

bats_require_minimum_version 1.5.0

setup_file() {
	"$BATS_TEST_DIRNAME/setup.sh"
	[ -x "$BATS_TEST_DIRNAME/../../daicho" ] || {
		echo "build daicho first (make)" >&2
		return 1
	}
}

scenario() {
	run node "$BATS_TEST_DIRNAME/run.js" "$1"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "mcp: initialize negotiates 2025-11-25 and 2025-06-18, answers others with 2025-11-25" {
	scenario initialize-versions
}

@test "mcp: tools/list has the agent tools only, with valid input and output schemas" {
	scenario tools-list-schemas
}

@test "mcp: every tool with good input returns what the CLI's --json gives" {
	scenario good-calls
}

@test "mcp: bad input and refusals are error results with the CLI's line; the ledger is unchanged" {
	scenario bad-calls
}

@test "mcp: malformed JSON-RPC gets the standard error codes and the server keeps serving" {
	scenario malformed
}

@test "mcp: 16 SDK clients racing for 500 tasks claim each exactly once" {
	scenario race
}

@test "mcp: the server acts as the session's agent, never the human; calls are heartbeats" {
	scenario identity
}

@test "mcp: new messages are announced (logging, inbox resource) and noted in results" {
	scenario notifications
}

@test "mcp: docs/mcp.md lists exactly the tools and schemas the server gives" {
	run node "$BATS_TEST_DIRNAME/gendoc.js" --check
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "mcp: --help says what the server is, and the man page has it" {
	run "$BATS_TEST_DIRNAME/../../daicho" mcp --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"usage: daicho mcp [--as NAME] [--list-tools]"* ]]
	[[ "$output" == *"2025-11-25 and 2025-06-18"* ]]
	run "$BATS_TEST_DIRNAME/../../daicho" help --man
	[[ "$output" == *".SS mcp"* ]]
}
