#!/usr/bin/env bats
# The MCP server (daicho mcp) driven by the official TypeScript SDK client
# (@modelcontextprotocol/sdk, pinned in package-lock.json) and by raw
# JSON-RPC lines: each test is one scenario of run.js.

load helpers
SCENARIOS=run.js

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

# as_client_standin: the environment of a process no client started, in a
# fresh ledger; INIT and CALL: an initialize and a claim of the next task.
as_client_standin() {
	unset DAICHO_AGENT CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID CLAUDECODE GEMINI_CLI CODEX_SANDBOX
	export DAICHO_LEDGER="$BATS_TEST_TMPDIR/ledger.db" PATH="$BATS_TEST_DIRNAME/../..:$PATH"
	cd "$BATS_TEST_TMPDIR"
	daicho init >/dev/null
	INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}'
	CALL='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"claim","arguments":{"next":true}}}'
}

# client_claims CLIENT SESSION [WRAPPER]: a stand-in for the client's
# process (its name is what makes it one), $BATS_TEST_TMPDIR/CLIENT-bin/
# CLIENT, runs its session-start hook for SESSION (through WRAPPER when
# given; not at all with NO_HOOK set), then its MCP server, both its
# children; the server claims a new task, as SESSION's agent, whose name
# is left in OWNER.
client_claims() {
	local client="$1" session="$2" wrapper="${3:-}" dir out
	dir="$BATS_TEST_TMPDIR/$client-bin"
	mkdir -p "$dir"
	printf '#!/bin/bash\n[ -n "$NO_HOOK" ] || printf %s | %s daicho hook %s session-start >/dev/null\ndaicho mcp\n' \
		"'{\"session_id\":\"$session\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\",\"cwd\":\"$PWD\"}'" \
		"$wrapper" "$client" >"$dir/$client"
	chmod +x "$dir/$client"
	daicho add "for $client" >/dev/null
	out="$(printf '%s\n%s\n' "$INIT" "$CALL" | "$dir/$client")"
	echo "$out"
	jq -se '.[1].result.isError == false' <<<"$out" >/dev/null || fail "the claim failed: $out"
	OWNER="$(daicho show "$(jq -s '.[1].result.structuredContent.id' <<<"$out")" --json | jq -r .owner)"
	daicho agents --json | jq -e --arg o "$OWNER" --arg k "$client" --arg s "$session" \
		'any(.[]; .name == $o and .kind == $k and .session_id == $s)' >/dev/null ||
		fail "$OWNER is not $session's $client agent: $(daicho agents)"
}

@test "mcp: started by Codex or Gemini CLI (no session variable), it acts as that session's agent" {
	as_client_standin
	local client out
	for client in codex gemini; do
		client_claims "$client" "$client-0001"
		# Without its session's agent, a call is refused: never the human.
		daicho add "again $client" >/dev/null
		out="$(daicho agent end --as "$OWNER" >/dev/null; printf '%s\n%s\n' "$INIT" "$CALL" | NO_HOOK=1 "$BATS_TEST_TMPDIR/$client-bin/$client")"
		echo "$out"
		jq -se '.[1].result.isError == true and (.[1].result.content[0].text |
			contains("session whose daicho agent is unknown"))' <<<"$out" >/dev/null
	done
	[ "$(daicho ls --json | jq '[.[] | select(.owner == null)] | length')" = 2 ]
}

@test "mcp: a hook run through a wrapper that does not exec still binds Codex's and Gemini CLI's MCP server to the session" {
	as_client_standin
	# A user's hook wrapper (logging, say): a program of its own name that
	# runs daicho as its child and exits after it.
	mkdir -p "$BATS_TEST_TMPDIR/wrap"
	printf '#!/bin/sh\n"$@"\nstatus=$?\nexit $status\n' >"$BATS_TEST_TMPDIR/wrap/hook-logger"
	chmod +x "$BATS_TEST_TMPDIR/wrap/hook-logger"
	client_claims codex codex-0002 "$BATS_TEST_TMPDIR/wrap/hook-logger"
	client_claims gemini gemini-0002 "$BATS_TEST_TMPDIR/wrap/hook-logger"
}
