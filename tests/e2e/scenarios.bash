# The end-to-end scenarios of issue 14, each a function of the client
# (claude, codex or gemini); claude.bats, codex.bats and gemini.bats run
# them. Each scenario: 'daicho init --CLIENT' in a scratch repository, what
# the ledger holds before, one or two real sessions against a scripted
# model, then what the client sent back to the model, the repository and
# the ledger.

# The session registers one agent of its client, bound to its session id;
# the model is told that name, and the daicho commands the model runs act
# as that agent (never as the human).
scenario_agent_name() {
	local client="$1"
	daicho init --"$client" >/dev/null
	start_standin "$client" '[{"shell":"daicho reserve \"docs/**\""},{"text":"done."}]'
	run_session
	session_ok
	local agents name
	agents="$(agents_json)"
	[ "$(jq length <<<"$agents")" = 1 ] || fail "expected one agent, got: $agents"
	name="$(jq -r '.[0].name' <<<"$agents")"
	jq -e --arg k "$client" --arg s "$SESSION_ID" '.[0].kind == $k and .[0].session_id == $s' \
		<<<"$agents" >/dev/null || fail "expected a $client agent of session $SESSION_ID, got: $agents"
	[[ "$name" == "$client-"* ]] || fail "expected a name derived from the session, got $name"
	sent_to_model "You are daicho agent $name;" ||
		fail "the model was never told its name $name (SessionStart context missing)"
	# The model's own command acted as the session's agent.
	local actor
	actor="$(daicho events --json | jq -r '[.[] | select(.kind == "reserve")][0].actor')"
	[ "$actor" = "$name" ] ||
		fail "the model's 'daicho reserve' acted as '$actor', not as the session's agent $name (tool result: $(tool_result_text 0))"
}

# pending_approval CLIENT: 'daicho init --CLIENT', and approval request #1
# (agent other's 'git push origin main', under an --approval gate) pending.
pending_approval() {
	daicho init --"$1" >/dev/null
	daicho gate add 'git push*' --approval >/dev/null
	capture daicho gate exec --as other -- git push origin main
	[ "$status" = 6 ] || fail "gate exec should have made a request (exit 6), got $status: $stderr"
}

# A pending approval exists; the model runs 'daicho approve 1'. The hook
# denies it (seen in the tool result the client sends back) and the request
# is still pending.
scenario_approve_denied() {
	local client="$1"
	pending_approval "$client"
	start_standin "$client" '[{"shell":"daicho approve 1"},{"text":"done."}]'
	run_session
	session_ok
	local result
	result="$(tool_result 0)"
	assert_denied "$result" "this daicho command is a person's alone, at a terminal"
	[ "$(daicho approvals --json | jq -r '.[0].state')" = pending ] ||
		fail "the approval is no longer pending: $(daicho approvals --json)"
	[ "$(daicho events --json | jq '[.[] | select(.kind | test("approv"))] | length')" -le 1 ] ||
		fail "approval events: $(daicho events)"
}

# A gate that needs an approval covers 'git merge *'; the model runs
# 'git merge x'. It does not run (HEAD and the work tree unchanged), and the
# client reports the deny (Codex, Gemini) or the ask (Claude Code, which
# in -p mode cannot ask and refuses).
scenario_gated_merge() {
	local client="$1"
	daicho init --"$client" >/dev/null
	new_branch_with_commit x
	daicho gate add 'git merge *' --approval >/dev/null
	local head
	head="$(git rev-parse HEAD)"
	start_standin "$client" '[{"shell":"git merge x"},{"text":"done."}]'
	run_session
	session_ok
	[ "$(git rev-parse HEAD)" = "$head" ] || fail "git merge ran: HEAD moved to $(git log --oneline -1)"
	[ ! -e x.txt ] || fail "git merge ran: x.txt is in the work tree"
	local result
	result="$(tool_result 0)"
	case "$client" in
	claude)
		# "ask" in -p mode: refused, and listed as a permission denial.
		jq -e '.error == true' <<<"$result" >/dev/null || fail "the tool call was not refused: $result"
		jq -e '.text | contains("matches daicho gate #1 '"'git merge *'"'")' <<<"$result" >/dev/null ||
			fail "the refusal does not name the gate: $result"
		jq -se 'any(.[] | select(.type == "result") | .permission_denials[]; .tool_name == "Bash" and .tool_input.command == "git merge x")' \
			"$SESSION_OUT" >/dev/null || fail "Claude Code lists no permission denial for git merge: $(jq -c 'select(.type == "result") | .permission_denials' "$SESSION_OUT")"
		;;
	*) assert_denied "$result" "matches daicho gate #1 'git merge *'" ;;
	esac
}

# Another agent reserved src/**; the model creates src/new.c. Denied, no
# file.
scenario_reserved_edit() {
	local client="$1"
	daicho init --"$client" >/dev/null
	daicho reserve 'src/**' --as other >/dev/null
	start_standin "$client" "$(jq -nc --arg p "$REPO/src/new.c" '[{write: $p, content: "int x;\n"}, {text: "done."}]')"
	run_session
	session_ok
	[ ! -e src/new.c ] || fail "the reserved path was written: $(cat src/new.c)"
	assert_denied "$(tool_result 0)" "src/new.c is reserved by other (src/**"
	git diff --quiet HEAD || fail "the work tree changed: $(git status --short)"
}

# A message sent before the session to the agent the session will be
# (named with DAICHO_AGENT) reaches the model with a tool call, and is then
# read.
scenario_inbox() {
	local client="$1"
	daicho init --"$client" >/dev/null
	daicho agent start impl-1 --kind "$client" >/dev/null
	local msg="hello from mgr $RANDOM$RANDOM"
	daicho send --as mgr impl-1 "$msg" >/dev/null
	E2E_ENV=(DAICHO_AGENT=impl-1)
	start_standin "$client" '[{"shell":"echo one"},{"shell":"echo two"},{"text":"done."}]'
	run_session
	session_ok
	sent_to_model "$msg" || fail "the message never reached the model (requests: $(requests | jq -c '{n, turn}' | tr '\n' ' '))"
	[ "$(daicho agents --all --json | jq '[.[] | select(.name == "impl-1")] | map(.unread) | add')" = 0 ] ||
		fail "the message is still unread: $(daicho agents --all)"
}

# The session holds a claimed task and ends its turn: the stop hook blocks
# the stop once with a reminder, which reaches the model.
scenario_stop_reminder() {
	local client="$1"
	daicho init --"$client" >/dev/null
	daicho add 'Write the parser' >/dev/null
	start_standin "$client" '[{"shell":"daicho claim --next"},{"text":"I am done."},{"text":"Still done."}]'
	run_session
	session_ok
	sent_to_model "You still hold claimed tasks that are neither reported nor released: #1 (Write the parser)" ||
		fail "the stop reminder never reached the model (requests: $(requests | jq -c '{n, turn}' | tr '\n' ' '))"
}

# Two sessions started within a minute, one after the other: the first
# claims a task, ends (its agent is ended, as 'daicho agent end' would),
# the second must be another agent that inherits nothing.
scenario_two_sessions() {
	local client="$1"
	daicho init --"$client" >/dev/null
	daicho add 'The first session takes this' >/dev/null
	start_standin "$client" '[{"shell":"daicho claim --next"},{"text":"done."},{"text":"done."}]'
	run_session
	session_ok
	local first_sid="$SESSION_ID" first
	first="$(agents_json | jq -r --arg s "$first_sid" '.[] | select(.session_id == $s) | .name')"
	[ -n "$first" ] || fail "the first session registered no agent: $(agents_json)"
	local owner
	owner="$(daicho show 1 --json | jq -r .owner)"
	[ "$owner" = "$first" ] ||
		fail "the first session's 'daicho claim --next' claimed #1 as '$owner', not as its agent $first (the model's daicho commands must act as the session's agent)"
	# Codex has no session-end hook: end its agent as a person would.
	if agents_json | jq -e --arg n "$first" 'any(.[]; .name == $n and .state != "ended")' >/dev/null; then
		daicho agent end "$first" >/dev/null
	fi
	run_session
	session_ok
	[ "$SESSION_ID" != "$first_sid" ] || fail "the client reused session id $SESSION_ID"
	local second
	second="$(agents_json | jq -r --arg s "$SESSION_ID" '.[] | select(.session_id == $s) | .name')"
	[ -n "$second" ] || fail "the second session ($SESSION_ID) registered no agent: $(agents_json)"
	[ "$second" != "$first" ] ||
		fail "sessions $first_sid and $SESSION_ID got the same agent name $first"
	! daicho events --json | jq -e 'any(.[]; .kind == "agent-inherit")' >/dev/null ||
		fail "the second session inherited: $(daicho events | grep inherit)"
	[ "$(daicho show 1 --json | jq -r .owner)" = "$first" ] ||
		fail "#1 moved from $first to $(daicho show 1 --json | jq -r .owner)"
}

# assert_denied RESULT_JSON REASON: the tool result (see tool_result) is the
# client's form of a hook's deny, and carries daicho's REASON.
assert_denied() {
	local result="$1" reason="$2"
	case "$CLIENT" in
	claude) jq -e '.error == true' <<<"$result" >/dev/null || fail "not an error tool result: $result" ;;
	codex) jq -e '.text | contains("blocked by PreToolUse hook")' <<<"$result" >/dev/null ||
		fail "not blocked by the hook: $result" ;;
	gemini) jq -e '.error == true and (.text | contains("blocked"))' <<<"$result" >/dev/null ||
		fail "not blocked by the hook: $result" ;;
	esac
	jq -e --arg r "$reason" '.text | contains($r)' <<<"$result" >/dev/null ||
		fail "the tool result does not carry daicho's reason '$reason': $result"
}

# capture CMD...: run CMD; set status, output and stderr (stdin: none).
capture() {
	status=0
	"$@" </dev/null >"$TEST_ROOT/.out" 2>"$TEST_ROOT/.err" || status=$?
	output="$(cat "$TEST_ROOT/.out")"
	stderr="$(cat "$TEST_ROOT/.err")"
}

# Headless workers: 'daicho run -j 6' launches examples/worker-CLIENT.sh
# for 6 tasks; each session's model fetches its prompt, writes its artefact
# (out/ID.md), saves it and reports, all with the client's hooks installed.
# All 6 must be verified, each result the task's own prompt.
scenario_workers() {
	run_workers "$1"
	local i
	for i in 1 2 3 4 5 6; do
		sent_to_model "Write chapter $i of the handbook." || fail "the prompt of #$i never reached a model"
		[ "$(cat "out/$i.md")" = "Chapter $i, as asked." ] || fail "out/$i.md: $(cat "out/$i.md")"
		[ "$(daicho result "$i")" = "Chapter $i, as asked." ] || fail "the result of #$i: $(daicho result "$i")"
	done
}

# The same run: a worker launched by the runner belongs to the runner, so
# the client's hooks leave its agent alone: one agent per slot, keeping its
# role, and nothing inherited by name.
scenario_workers_lifecycle() {
	run_workers "$1"
	local agents
	agents="$(agents_json | jq -c '[.[] | select(.name | startswith("run"))]')"
	jq -e 'length == 6 and all(.role == "run")' <<<"$agents" >/dev/null ||
		fail "expected 6 worker agents (role run), one per slot, got $(jq length <<<"$agents"): $(daicho agents --all)"
	! daicho events --json | jq -e 'any(.[]; .kind == "agent-inherit")' >/dev/null ||
		fail "worker agents inherited claims by name: $(daicho events | grep -e agent-)"
}

# run_workers CLIENT [FAULTS [RUN OPTION...]]: 6 tasks through 'daicho run
# -j 6 RUN OPTION... -- worker-CLIENT.sh {id}'; all 6 verified. FAULTS: the
# stand-in's faults (see standin.js), as a JSON list. Sets output to the
# run's JSON.
#
# The plain run (no FAULTS, no options) is made once per file and client:
# the next test that asks for it gets the same repository, ledger and
# requests to read (a test of its own would take as long again).
run_workers() {
	local client="$1" faults="${2:-[]}" i
	shift 2 || shift $#
	local cache=""
	if [ "$faults" = '[]' ] && [ $# = 0 ]; then
		cache="$BATS_FILE_TMPDIR/workers-$client"
		if [ -f "$cache" ]; then
			# shellcheck disable=SC1090
			source "$cache"
			cd "$REPO" || return 1
			return 0
		fi
	fi
	daicho init --"$client" >/dev/null
	for i in 1 2 3 4 5 6; do
		daicho add "Chapter $i" --body "Write chapter $i of the handbook." --done-when saved >/dev/null
	done
	STANDIN_MAX_REQUESTS=400
	# The model's turns, the same for every task: the shell commands take
	# the task from the environment the runner gives the worker; the file
	# is written with the client's own tool, named from the task id in the
	# worker's prompt.
	# Codex's shell calls leave "login" to Codex, as a model's do: a login
	# shell resets PATH, and examples/worker-codex.sh must keep daicho on it.
	start_standin "$client" "$(jq -nc --argjson faults "$faults" '{faults: $faults, shellLogin: "default",
		vars: {task: "Task ([0-9]+) is already claimed"}, turns: [
		{shell: "daicho prompt \"$DAICHO_TASK\""},
		{write: "out/{{task}}.md", content: "Chapter {{task}}, as asked.\n"},
		{shell: "daicho save \"$DAICHO_TASK\" -f \"out/$DAICHO_TASK.md\""},
		{shell: "daicho report \"$DAICHO_TASK\""},
		{text: "{{task}} ok"}]}')"
	export "${CLIENT_ENV[@]}"
	export CLAUDE_WORKER_ARGS="--model claude-sonnet-4-5"
	# examples/worker-codex.sh passes --dangerously-bypass-hook-trust
	# itself: the hooks run without a person's review in /hooks.
	export CODEX_WORKER_ARGS=""
	export GEMINI_WORKER_ARGS="-m gemini-2.5-flash"
	capture timeout 600 daicho run -j 6 --retry-backoff 100ms "$@" --json -- \
		"$DAICHO_ROOT/examples/worker-$client.sh" '{id}'
	local why="daicho run exited $status: $output $stderr
$(daicho ls; for i in 1 2 3 4 5 6; do echo "== log of #$i"; daicho logs "$i" 2>&1 | tail -n 5; done)
== what the tool calls met:
$(tool_errors)"
	[ "$status" = 0 ] || fail "$why"
	jq -e '.tasks == 6 and .verified == 6' <<<"$output" >/dev/null || fail "$why"
	[ -z "$cache" ] || declare -p TEST_ROOT REPO CLIENT STANDIN_LOG output |
		sed 's/^declare -- /declare -g /;t;s/^declare -\([a-z]*\) /declare -g\1 /' >"$cache"
}

# The faults of a real pipeline, from the model's side: the worker of #2
# fails (its client exits non-zero on an HTTP 400), the worker of #3 is
# rate-limited (HTTP 429 in the API's own error format; the client says so
# in its own words), and the worker of #4 says it is done without saving
# or reporting. The runner retries the first, pauses for the second
# without spending an attempt, and the sweep rejects the third, which is
# retried; all 6 end verified.
scenario_workers_faults() {
	run_workers "$1" '[
		{"match": "Task 2 is", "answer": {"http": 400}},
		{"match": "Task 3 is", "answer": {"http": 429}},
		{"match": "Task 4 is", "answer": {"text": "Done! Chapter 4 is written."}}]' -j 6
	jq -e '.retried >= 1 and .rate_limited >= 1 and .false_reports >= 1' <<<"$output" >/dev/null ||
		fail "expected a retry, a rate limit and a false report: $output
$(daicho events | grep -v -e agent- -e ' add ')
$(for i in 2 3 4; do echo "== #$i"; daicho log "$i" | tail -n 8; done)"
	local attempts
	attempts="$(daicho show 3 --json | jq .attempts)"
	[ "$attempts" = 1 ] || fail "the rate-limited #3 spent an attempt: $attempts ($(daicho log 3))"
}

# The same 6 tasks with a git worktree per task (daicho run --worktree),
# where the agent must be allowed to write.
scenario_workers_worktree() {
	local wt
	run_workers "$1" '[]' --worktree
	# The runner removes a worktree with nothing in it; one where the
	# worker left files uncommitted is kept, so no work is lost: every
	# worktree left must hold such files.
	for wt in $(git worktree list --porcelain | sed -n 's/^worktree //p' | tail -n +2); do
		[ -n "$(git -C "$wt" status --porcelain)" ] ||
			fail "an empty worktree was left behind: $wt ($(git worktree list))"
	done
}

# The model ends its own agent ('daicho agent end'), then runs one more
# command. The agent stays ended: no hook of the same session registers it
# again or lets it inherit, and after the session it holds nothing.
scenario_agent_end_sticks() {
	local client="$1"
	daicho init --"$client" >/dev/null
	daicho add 'Write the parser' >/dev/null
	start_standin "$client" '[{"shell":"daicho claim --next"},{"shell":"daicho agent end"},{"shell":"echo after"},{"text":"done."},{"text":"done."}]'
	run_session
	session_ok
	local name
	name="$(agents_json | jq -r --arg s "$SESSION_ID" '[.[] | select(.session_id == $s)][0].name')"
	[ "$name" != null ] || fail "the session registered no agent: $(agents_json)"
	local after_end
	after_end="$(daicho events --json | jq -c --arg n "$name" '
		(map(select(.kind == "agent-end" and .actor == $n)) | first | .id) as $e |
		if $e == null then "no agent-end" else
		[.[] | select(.id > $e and .actor == $n and (.kind == "agent-register" or .kind == "agent-inherit")) | .kind] end')"
	[ "$after_end" = '[]' ] ||
		fail "after 'daicho agent end' the session's agent $name came back: $after_end ($(daicho events | grep -e agent-))"
	! agents_json | jq -e --arg n "$name" 'any(.[]; .name == $n and .state != "ended")' >/dev/null ||
		fail "$name is live after the session: $(daicho agents --all)"
}

# A session whose client does not load the project's hooks (Codex hooks not
# trusted; Gemini CLI with --skip-trust in an untrusted folder) enforces
# nothing: the real client shows it (no hook ran, so no agent), and
# 'daicho doctor' must say so and how to fix it.
scenario_untrusted_hooks() {
	local client="$1"
	daicho init --"$client" >/dev/null
	E2E_UNTRUSTED=1
	start_standin "$client" '[{"shell":"echo hi"},{"text":"done."}]'
	run_session
	session_ok
	[ "$(agents_json | jq 'length')" = 0 ] ||
		fail "a hook ran after all, the premise of this test is gone: $(daicho agents --all)"
	capture daicho doctor
	[ "$status" != 0 ] && grep -qi 'trust' <<<"$output$stderr" ||
		fail "daicho doctor (exit $status) does not say that $client does not trust the hooks: $output $stderr"
}

# The ways around the human-only commands that issue 14 lists, each tried
# by the model while a request is pending: a program found at run time, a
# variable in command position, a command piped into a shell, identity
# variables stripped under a pseudo-terminal (script, script with the name
# spelled at run time, python's pty). None
# may approve: the request stays pending and nothing is recorded as
# approved by anyone.
scenario_approve_workarounds() {
	local client="$1"
	pending_approval "$client"
	local b64 py
	b64="$(printf 'daicho approve 1' | base64)"
	py='import os, pty
for k in list(os.environ):
    if k.startswith(("CLAUDE", "DAICHO", "CODEX", "GEMINI")): del os.environ[k]
pty.spawn(["dai" + "cho", "approve", "1"])'
	start_standin "$client" "$(jq -nc --arg b64 "$b64" --arg py "$py" '[
		{shell: "$(which daicho) approve 1"},
		{shell: "d=daicho; $d approve 1"},
		{shell: ("echo " + $b64 + " | base64 -d | sh")},
		{shell: "env -i PATH=\"$PATH\" HOME=\"$HOME\" TERM=dumb script -qec \"daicho approve 1\" /dev/null"},
		{shell: "env -i PATH=\"$PATH\" HOME=\"$HOME\" TERM=dumb script -qec \"$(printf %s%s dai cho) approve 1\" /dev/null"},
		{shell: ("python3 -c " + ($py | @sh))},
		{text: "done."}]')"
	run_session
	session_ok
	local state
	state="$(daicho approvals --json | jq -r '.[0].state')"
	[ "$state" = pending ] || fail "a workaround approved request #1 ($state): $(daicho approvals --all)
$(for k in 0 1 2 3 4 5; do echo "== turn $k: $(tool_result_text "$k" | head -c 300)"; done)"
	! daicho events --json | jq -e 'any(.[]; .kind == "approve")' >/dev/null ||
		fail "an approval was recorded: $(daicho events | grep approve)"
	# A program the hook cannot resolve statically is asked about (Claude
	# Code, which in -p mode refuses) or denied: it never runs.
	local k
	for k in 0 1 2; do
		assert_blocked "$(tool_result "$k")" "turn $k ($(jq -r ".[$k].shell" "$TEST_ROOT/script.json"))"
	done
}

# assert_blocked RESULT_JSON WHAT: the tool call was refused before it ran
# (by a hook, or by the client itself), whatever the reason.
assert_blocked() {
	local result="$1" what="$2" ok
	case "$CLIENT" in
	claude) ok="$(jq '.error == true and (.text | startswith("Exit code") | not)' <<<"$result")" ;;
	codex) ok="$(jq '.text | contains("blocked by PreToolUse hook")' <<<"$result")" ;;
	gemini) ok="$(jq '.error == true' <<<"$result")" ;;
	esac
	[ "$ok" = true ] || fail "$what ran instead of being refused: $result"
}

# The MCP server as 'daicho init' registers it: the client starts it, offers
# the model its tools (and no human-only one), and the model claims, reads,
# saves and reports a task through them, as the session's agent (Claude
# Code gives the server its session id; Gemini CLI's is found through its
# process, which its SessionStart hook recorded). A refused call comes back
# to the model as an error with daicho's line.
scenario_mcp() {
	local client="$1" prefix agent
	case "$client" in
	claude) prefix=mcp__daicho__ ;;
	gemini) prefix=mcp_daicho_ ;;
	*) fail "no MCP tool names known for $client" ;;
	esac
	daicho init --"$client" >/dev/null
	daicho add 'Write the parser' --body 'Parse the input.' >/dev/null
	# Claude Code: the tools allowed as any tool must be; Gemini CLI runs
	# them in yolo mode.
	E2E_ALLOWED_TOOLS="Bash,Read,Edit,Write,mcp__daicho"
	start_standin "$client" '[
		{"call": "'"$prefix"'claim", "input": {"next": true}},
		{"call": "'"$prefix"'prompt", "input": {"id": 1}},
		{"call": "'"$prefix"'save", "input": {"id": 1, "text": "parsed: 42 tokens"}},
		{"call": "'"$prefix"'claim", "input": {"id": 1, "next": true}},
		{"call": "'"$prefix"'report", "input": {"id": 1, "note": "through MCP"}},
		{"text": "done."}]'
	run_session
	session_ok
	# The tools the client offered the model.
	requests | sed -n 1p | jq -e --arg p "$prefix" '[.body.tools[]? | (.functionDeclarations[]?.name // .name)] |
		index($p + "claim") and index($p + "report") and index($p + "inbox") and
		(index($p + "approve") | not)' >/dev/null ||
		fail "daicho's tools were not offered: $(requests | sed -n 1p | jq -c '[.body.tools[]? | (.functionDeclarations[]?.name // .name)]')"
	tool_result 0 | jq -e '.text | contains("{\"id\":1}")' >/dev/null || fail "claim: $(tool_result 0)"
	tool_result 1 | jq -e '.text | contains("Parse the input.")' >/dev/null || fail "prompt: $(tool_result 1)"
	tool_result 3 | jq -e '.error == true and (.text | contains("claim takes an ID or --next, one of the two"))' \
		>/dev/null || fail "a refused call: $(tool_result 3)"
	# The ledger: the session's agent claimed, saved and reported the task.
	agent="$(daicho agents --all --json | jq -r --arg k "$client" '[.[] | select(.kind == $k)] | .[0].name')"
	[ -n "$agent" ] && [ "$agent" != null ] || fail "no $client agent: $(daicho agents --all)"
	[ "$client" != claude ] || daicho agents --all --json | jq -e --arg a "$agent" --arg s "$SESSION_ID" \
		'any(.[]; .name == $a and .session_id == $s)' >/dev/null || fail "not the session's agent: $(daicho agents --all)"
	daicho show 1 --json | jq -e --arg a "$agent" '.state == "reported" and .owner == $a and
		.note == "through MCP"' >/dev/null || fail "$(daicho show 1)"
	[ "$(daicho result 1)" = "parsed: 42 tokens" ]
}

# Landing sends a task back, and a real client redoes it. #1 and #2 each
# add a line to config.txt; scripted workers (w1, w2) do both, the sweep
# verifies both, #1 lands and #2, whose commit now conflicts with the
# trunk, goes back to open. Then a session of the client takes #2: its
# model reads the prompt, whose section says the work conflicted and on
# which trunk commit to redo it, redoes it there and reports; the next
# sweep lands it, with both lines on the trunk.
scenario_land_sent_back() {
	local client="$1" tip
	daicho init --"$client" >/dev/null
	printf 'base\n' >config.txt
	git add config.txt
	git commit -q -m config
	# Both change the file their checks read, and both must be claimed at
	# once (overlapping --touches would not be): a person judges them
	# without the base's run (docs/verification.md).
	person daicho add --no-baseline one --done-when 'cmd:grep -qx one config.txt' >/dev/null
	person daicho add --no-baseline two --body 'Add the line two at the end of config.txt.' \
		--done-when 'cmd:grep -qx two config.txt' >/dev/null
	for t in 1:one 2:two; do
		local id="${t%%:*}" line="${t#*:}"
		daicho claim "$id" --as "w$id" >/dev/null
		git checkout -q -b "w$id" main
		printf 'base\n%s\n' "$line" >config.txt
		git commit -q -am "$line"
		daicho report "$id" --as "w$id" --commit HEAD
		git checkout -q main
	done
	daicho sweep -j 1 >/dev/null # one at a time: #1 lands first
	[ "$(daicho show 1 --json | jq -r .state)" = landed ] || fail "#1 did not land: $(daicho show 1)"
	[ "$(daicho show 2 --json | jq -r .state)" = open ] || fail "#2 was not sent back: $(daicho show 2)"
	tip="$(git rev-parse main)"
	start_standin "$client" '[
		{"shell": "daicho claim 2"},
		{"shell": "daicho prompt 2"},
		{"shell": "git checkout -q -B redo main && printf \"base\\none\\ntwo\\n\" >config.txt"},
		{"shell": "git add config.txt && git commit -q -m \"two, on the trunk as it is\" && daicho report 2 --commit HEAD"},
		{"text": "done."}]'
	run_session
	session_ok
	local prompt
	prompt="$(tool_result_text 1)"
	[[ "$prompt" == *"Add the line two at the end of config.txt."* ]] || fail "the prompt: $prompt"
	[[ "$prompt" == *"Sent back from landing (1 time)"* ]] || fail "no landing section in the prompt the model read: $prompt"
	[[ "$prompt" == *"conflicts with the trunk (main at ${tip:0:12}) in config.txt"* ]] ||
		fail "the section does not name the trunk and the path: $prompt"
	[ "$(daicho show 2 --json | jq -r .state)" = reported ] || fail "#2 was not reported again: $(daicho show 2)"
	git checkout -q main
	daicho sweep >/dev/null
	[ "$(daicho show 2 --json | jq -r .state)" = landed ] || fail "#2 did not land: $(daicho show 2)"
	[ "$(git show main:config.txt)" = "$(printf 'base\none\ntwo')" ] || fail "main:config.txt: $(git show main:config.txt)"
	[ "$(daicho show 2 --json | jq .attempts)" = 1 ] || fail "the send-back spent an attempt: $(daicho log 2)"
}

# The Claude Code plugin of this repository (plugins/claude, listed in
# .claude-plugin/marketplace.json), installed as a user installs one, in
# place of 'daicho init --claude': 'claude plugin details' lists its hooks,
# MCP server, skill and subagent; in a session the hooks fire (one agent,
# bound to the session, told its name, whose commands act as it) and the
# MCP server's tools are offered to the model and act as that agent.
scenario_claude_plugin() {
	local prefix=mcp__plugin_daicho_daicho__ details agent
	daicho init >/dev/null
	claude plugin marketplace add "$DAICHO_ROOT" >"$TEST_ROOT/plugin.out" 2>&1 ||
		fail "marketplace add: $(cat "$TEST_ROOT/plugin.out")"
	claude plugin install daicho@daicho >"$TEST_ROOT/plugin.out" 2>&1 ||
		fail "plugin install: $(cat "$TEST_ROOT/plugin.out")"
	details=$(claude plugin details daicho 2>&1) || fail "plugin details: $details"
	for part in "Skills (1)  daicho" "Agents (1)  daicho-worker" \
	    "Hooks (5)  SessionStart, PreToolUse, PostToolUse, Stop, SessionEnd" "MCP servers (1)  daicho"; do
		[[ "$details" == *"$part"* ]] || fail "plugin details lacks '$part': $details"
	done
	# Nothing of 'init --claude' in the project: the plugin alone.
	[ ! -e .claude ] && [ ! -e .mcp.json ] || fail "init wrote the client's settings"
	daicho add 'Write the parser' --body 'Parse the input.' >/dev/null
	E2E_ALLOWED_TOOLS="Bash,Read,Edit,Write,mcp__plugin_daicho_daicho"
	start_standin claude '[
		{"shell": "daicho reserve \"docs/**\""},
		{"call": "'"$prefix"'claim", "input": {"next": true}},
		{"text": "done."}]'
	run_session
	session_ok
	requests | sed -n 1p | jq -e --arg p "$prefix" '[.body.tools[]?.name] |
		index($p + "claim") and index($p + "report") and (index($p + "approve") | not)' >/dev/null ||
		fail "daicho's tools were not offered: $(requests | sed -n 1p | jq -c '[.body.tools[]?.name]')"
	agent="$(daicho agents --all --json | jq -r --arg s "$SESSION_ID" '[.[] | select(.session_id == $s)] | .[0].name')"
	[[ "$agent" == claude-* ]] || fail "no agent of session $SESSION_ID: $(daicho agents --all)"
	sent_to_model "You are daicho agent $agent;" || fail "the model was never told its name $agent"
	[ "$(daicho events --json | jq -r '[.[] | select(.kind == "reserve")][0].actor')" = "$agent" ] ||
		fail "the model's 'daicho reserve' did not act as $agent: $(daicho events)"
	daicho show 1 --json | jq -e --arg a "$agent" '.state == "claimed" and .owner == $a' >/dev/null ||
		fail "the MCP claim did not act as $agent: $(daicho show 1)"
}

# The Gemini CLI extension of this repository (plugins/gemini), installed
# with 'gemini extensions install PATH' in place of 'daicho init --gemini':
# it lists its MCP server, context file and skill; in a session its hooks
# fire (one agent, told its name, whose commands act as it) and the MCP
# server's tools are offered to the model.
scenario_gemini_extension() {
	local prefix=mcp_daicho_ list agent
	daicho init >/dev/null
	start_standin gemini '[
		{"shell": "daicho reserve \"docs/**\""},
		{"call": "'"$prefix"'claim", "input": {"next": true}},
		{"text": "done."}]'
	# The extension's source is a folder Gemini CLI must trust, as REPO.
	jq --arg s "$DAICHO_ROOT/plugins/gemini" '. + {($s): "TRUST_FOLDER"}' \
		"$HOME/.gemini/trustedFolders.json" >"$TEST_ROOT/trusted.json"
	mv "$TEST_ROOT/trusted.json" "$HOME/.gemini/trustedFolders.json"
	env "${CLIENT_ENV[@]}" gemini extensions install "$DAICHO_ROOT/plugins/gemini" --consent \
		>"$TEST_ROOT/extension.out" 2>&1 || fail "extensions install: $(cat "$TEST_ROOT/extension.out")"
	list=$(env "${CLIENT_ENV[@]}" gemini extensions list 2>&1) || fail "extensions list: $list"
	for part in "daicho (0.1.0)" "MCP servers:" "GEMINI.md" "Agent skills:"; do
		[[ "$list" == *"$part"* ]] || fail "extensions list lacks '$part': $list"
	done
	[ ! -e .gemini ] && [ ! -e GEMINI.md ] || fail "init wrote the client's settings"
	daicho add 'Write the parser' --body 'Parse the input.' >/dev/null
	run_session
	session_ok
	requests | sed -n 1p | jq -e --arg p "$prefix" '[.body.tools[]? | .functionDeclarations[]?.name] |
		index($p + "claim") and index($p + "report") and (index($p + "approve") | not)' >/dev/null ||
		fail "daicho's tools were not offered: $(requests | sed -n 1p | jq -c '[.body.tools[]? | .functionDeclarations[]?.name]')"
	agent="$(daicho agents --all --json | jq -r '[.[] | select(.kind == "gemini")] | .[0].name')"
	[[ "$agent" == gemini-* ]] || fail "no gemini agent: $(daicho agents --all)"
	sent_to_model "You are daicho agent $agent;" || fail "the model was never told its name $agent"
	[ "$(daicho events --json | jq -r '[.[] | select(.kind == "reserve")][0].actor')" = "$agent" ] ||
		fail "the model's 'daicho reserve' did not act as $agent: $(daicho events)"
	daicho show 1 --json | jq -e --arg a "$agent" '.state == "claimed" and .owner == $a' >/dev/null ||
		fail "the MCP claim did not act as $agent: $(daicho show 1)"
}

# The Codex plugin of this repository (plugins/codex, listed in
# .agents/plugins/marketplace.json), installed with 'codex plugin
# marketplace add' and 'codex plugin add' in place of 'daicho init
# --codex': 'codex plugin list' shows it installed and 'codex mcp list' its
# MCP server, enabled, with the variables it passes on; in a session its
# hooks fire (one agent, told its name, whose commands act as it).
scenario_codex_plugin() {
	local list agent
	daicho init >/dev/null
	start_standin codex '[{"shell": "daicho reserve \"docs/**\""}, {"text": "done."}]'
	codex plugin marketplace add "$DAICHO_ROOT" >"$TEST_ROOT/plugin.out" 2>&1 ||
		fail "marketplace add: $(cat "$TEST_ROOT/plugin.out")"
	codex plugin add daicho@daicho >"$TEST_ROOT/plugin.out" 2>&1 ||
		fail "plugin add: $(cat "$TEST_ROOT/plugin.out")"
	list=$(codex plugin list 2>&1) || fail "plugin list: $list"
	[[ "$list" =~ daicho@daicho\ +installed ]] || fail "not installed: $list"
	[ ! -e .codex ] && [ ! -e AGENTS.md ] || fail "init wrote the client's settings"
	run_session
	session_ok
	# Its MCP server, with the variables it passes on (Codex offers MCP
	# tools to the model when it searches for them, not in the first
	# request).
	list=$(codex mcp list 2>&1) || fail "mcp list: $list"
	[[ "$list" =~ daicho\ +daicho\ +mcp\ +DAICHO_AGENT=\*+,\ DAICHO_TASK=\*+,\ DAICHO_LEDGER= ]] &&
		[[ "$list" == *enabled* ]] || fail "the MCP server is not there: $list"
	agent="$(daicho agents --all --json | jq -r '[.[] | select(.kind == "codex")] | .[0].name')"
	[[ "$agent" == codex-* ]] || fail "no codex agent: $(daicho agents --all)"
	sent_to_model "You are daicho agent $agent;" || fail "the model was never told its name $agent"
	[ "$(daicho events --json | jq -r '[.[] | select(.kind == "reserve")][0].actor')" = "$agent" ] ||
		fail "the model's 'daicho reserve' did not act as $agent: $(daicho events)"
}
