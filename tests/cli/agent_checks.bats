#!/usr/bin/env bats
# Checks that agents wrote do not run with the person's rights (issue 30,
# item 2). An agent may add a task with cmd: checks, through the command
# line or the MCP server, and the person's sweep runs them. Each check
# here tries what a hostile one would: read the person's ~/.ssh, read the
# ledger's file, read another worktree of the project, reach a service on
# the host. In the sandbox each attempt fails, and the evidence says why;
# with the sandbox off (a person's 'config sandbox off') each succeeds,
# which shows the attempts are real.
#
# Note: bats keeps every test's files under /tmp, which the sandbox makes
# private as a whole (judge_adversary.bats says more).

load land_helpers

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

setup() {
	judge_world_setup
	mkdir -p "$HOME/.ssh"
	echo 'PRIVATE-KEY-4242' >"$HOME/.ssh/id_ed25519"
	git -C "$REPO" worktree add -q -b other "$TEST_ROOT/other" main
	echo 'OTHER-WORK-4242' >"$TEST_ROOT/other/secret.txt"
	LEDGER_FILE="$LEDGER"
	[ -f "$LEDGER_FILE" ] || fail "no ledger file at $LEDGER_FILE"
	python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept(); c.sendall(b"SERVICE-4242\n"); c.close()
' >"$TEST_ROOT/port" &
	LISTENER=$!
	for _ in $(seq 200); do [ -s "$TEST_ROOT/port" ] && break; sleep 0.05; done
	PORT="$(cat "$TEST_ROOT/port")"
	[ -n "$PORT" ] || fail "the listener did not start"
}

teardown() {
	[ -z "${LISTENER:-}" ] || kill "$LISTENER" 2>/dev/null || true
}

# The hostile checks, one per attempt: each passes only when it got what it
# went for.
attempts() {
	printf '%s\n' \
		"cmd:grep -q PRIVATE-KEY-4242 '$HOME/.ssh/id_ed25519'" \
		"cmd:head -c 16 '$LEDGER_FILE' | grep -q 'SQLite format'" \
		"cmd:grep -q OTHER-WORK-4242 '$TEST_ROOT/other/secret.txt'" \
		"cmd:python3 -c 'import socket; s = socket.create_connection((\"127.0.0.1\", $PORT), 2); assert s.recv(64).startswith(b\"SERVICE-4242\")'"
}

# add_by_cli: lead (an agent) adds task 1 with the attempts as its checks.
add_by_cli() {
	local args=() check
	while read -r check; do args+=(--done-when "$check"); done < <(attempts)
	daicho --as lead add probe "${args[@]}" --touches work.txt >/dev/null
}

# add_by_mcp: lead adds task 1 through 'daicho mcp' (raw JSON-RPC lines).
add_by_mcp() {
	local checks
	checks="$(attempts | jq -R . | jq -cs .)"
	{
		printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
		printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
		jq -cn --argjson c "$checks" '{jsonrpc: "2.0", id: 2, method: "tools/call",
			params: {name: "add", arguments: {title: "probe", done_when: $c, touches: ["work.txt"]}}}'
	} | daicho mcp --as lead >"$TEST_ROOT/mcp.out"
	jq -e 'select(.id == 2) | .result.isError == false' "$TEST_ROOT/mcp.out" >/dev/null ||
		fail "MCP add failed: $(cat "$TEST_ROOT/mcp.out")"
}

# judge: w1 does honest-looking work on task 1 and reports; one sweep.
judge() {
	claim_work 1 w1 work.txt done >/dev/null
	daicho sweep >/dev/null 2>&1 || true
}

# assert_each_refused: every attempt failed, its output saying why.
assert_each_refused() {
	local runs
	[ "$(sql "SELECT a.name FROM events e JOIN agents a ON a.id = e.actor WHERE e.task = 1 AND e.kind = 'add'")" = lead ] ||
		fail "task 1 was not added by the agent"
	[ "$(state 1)" != landed ] && [ "$(state 1)" != verified ] || fail "accepted: $(daicho show 1)"
	runs="$(daicho show --json 1 | jq -c '[.last_verdict.checks[] | select(.check | startswith("cmd:"))]')"
	[ "$(jq length <<<"$runs")" = 4 ] || fail "runs: $runs"
	jq -e 'all(.[]; .passed == false)' <<<"$runs" >/dev/null || fail "an attempt got through: $runs"
	[ "$(daicho show --json 1 | jq -r .last_verdict.sandbox)" = sandbox ]
	# Why, in the evidence: the file is not there; the connection refused.
	jq -e '.[0].output | test("No such file or directory")' <<<"$runs" >/dev/null || fail "~/.ssh: $(jq -r '.[0].output' <<<"$runs")"
	jq -e '.[1].output | test("No such file or directory")' <<<"$runs" >/dev/null || fail "ledger: $(jq -r '.[1].output' <<<"$runs")"
	jq -e '.[2].output | test("No such file or directory")' <<<"$runs" >/dev/null || fail "worktree: $(jq -r '.[2].output' <<<"$runs")"
	jq -e '.[3].output | test("Connection refused|Network is unreachable")' <<<"$runs" >/dev/null || fail "socket: $(jq -r '.[3].output' <<<"$runs")"
}

# mutant: the sandbox skipped for checks added by an agent (or for all):
# each attempt passes, as the control shows.
@test "checks an agent added through the command line cannot read ~/.ssh, the ledger or another worktree, nor reach a host service" {
	add_by_cli
	judge
	assert_each_refused
}

@test "checks an agent added through the MCP server cannot read ~/.ssh, the ledger or another worktree, nor reach a host service" {
	add_by_mcp
	judge
	assert_each_refused
}

# control: the same checks, unsandboxed by a person's choice, get through.
@test "control: with the sandbox off (a person's choice) each of those attempts succeeds" {
	ok person daicho config sandbox off
	add_by_cli
	judge
	runs="$(daicho show --json 1 | jq -c '[.last_verdict.checks[] | select(.check | startswith("cmd:"))]')"
	jq -e 'length == 4 and all(.[]; .passed == true)' <<<"$runs" >/dev/null || fail "runs: $runs"
}
