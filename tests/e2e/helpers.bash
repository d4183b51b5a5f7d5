# Shared set-up for daicho's end-to-end tests (bats): the real agent clients
# (Claude Code, Codex, Gemini CLI, pinned in package-lock.json) run in a
# scratch git repository with daicho's hooks installed, against a scripted
# stand-in of their model API on 127.0.0.1 (standin.js), with HOME,
# CODEX_HOME and every configuration file in the test's own directory and
# no real key. A test says what the model does (a list of turns), runs one
# session, and reads what happened from three places: the requests the
# client sent to the stand-in (the tool results, the context the hooks
# added), the repository, and the ledger.
#
# DAICHO_E2E=skip skips them all, loudly.

bats_require_minimum_version 1.5.0

BATS_LIB_PATH="${BATS_LIB_PATH:-/usr/lib/bats}"
bats_load_library bats-support
bats_load_library bats-assert

E2E_DIR="$BATS_TEST_DIRNAME"
DAICHO_ROOT="${E2E_DIR%/tests/e2e}"
# person CMD: a person's command (daicho help person) at a terminal.
# shellcheck source=tests/backend.bash
source "$DAICHO_ROOT/tests/backend.bash"
E2E_BIN="$E2E_DIR/node_modules/.bin"
# How long one client session may take before it is killed (seconds): a
# hang guard, long enough for a loaded machine.
E2E_SESSION_TIMEOUT="${E2E_SESSION_TIMEOUT:-300}"
# The stand-in outlives the longest guard (a six-task run: 600 s), so that
# a slow session meets the guard, not a model server gone; it still ends by
# itself when a test that started it was killed.
STANDIN_LIFETIME=$((E2E_SESSION_TIMEOUT > 600 ? E2E_SESSION_TIMEOUT + 60 : 660))
STANDIN_IDLE=$((E2E_SESSION_TIMEOUT + 60))

# e2e_setup_file: on DAICHO_E2E=skip, one loud line (setup then skips each
# test); else install the clients if needed (tests/e2e/setup.sh), failing
# with its reason.
e2e_setup_file() {
	if [ "${DAICHO_E2E:-}" = skip ]; then
		echo "# *** DAICHO_E2E=skip: $(basename "$BATS_TEST_FILENAME") SKIPPED: daicho was NOT tested with the real agent clients ***" >&3
		return 0
	fi
	local out
	if ! out="$("$E2E_DIR/setup.sh" 2>&1)"; then
		echo "$out" >&3
		return 1
	fi
	[ -z "$out" ] || echo "# $out" >&3
	[ -x "$DAICHO_ROOT/daicho" ] || {
		echo "# daicho is not built: run 'make daicho' first" >&3
		return 1
	}
}

# e2e_setup: a fresh directory with HOME in it and a git repository REPO
# (one commit, src/main.c and README), no agent or model variables from the
# caller, daicho and the clients on PATH, and the working directory REPO.
e2e_setup() {
	TEST_ROOT="$(mktemp -d "$BATS_TEST_TMPDIR/t.XXXXXX")"
	cd -P "$TEST_ROOT" || return 1
	TEST_ROOT="$PWD"
	export TEST_ROOT

	# Nothing of the caller's agent session, model keys or settings.
	local v
	for v in $(compgen -e); do
		case "$v" in
		DAICHO_* | CLAUDE* | ANTHROPIC_* | CODEX_* | OPENAI_* | GEMINI_* | GOOGLE_* | \
			VERTEX* | AWS_* | XDG_* | npm_* | NODE_OPTIONS) unset "$v" ;;
		esac
	done
	export NO_COLOR=1
	export HOME="$TEST_ROOT/home"
	mkdir -p "$HOME"
	export GIT_CEILING_DIRECTORIES="$TEST_ROOT"
	export GIT_CONFIG_NOSYSTEM=1
	export GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=tester@example.com
	export GIT_COMMITTER_NAME=Tester GIT_COMMITTER_EMAIL=tester@example.com
	export PATH="$DAICHO_ROOT:$E2E_BIN:$PATH"

	REPO="$TEST_ROOT/repo"
	mkdir -p "$REPO/src"
	git -C "$REPO" init -q -b main
	echo hello >"$REPO/README"
	printf 'int main(void) { return 0; }\n' >"$REPO/src/main.c"
	git -C "$REPO" add -A
	git -C "$REPO" commit -q -m init
	cd "$REPO" || return 1

	STANDIN_PID=""
	SESSION=0
}

# What every test file does around each test (claude.bats, codex.bats...).
setup_file() { e2e_setup_file; }
setup() {
	[ "${DAICHO_E2E:-}" != skip ] || skip "DAICHO_E2E=skip"
	e2e_setup
	E2E_ENV=()
}
teardown() { e2e_teardown; }

e2e_teardown() {
	if [ -n "${STANDIN_PID:-}" ]; then
		kill "$STANDIN_PID" 2>/dev/null || true
		wait "$STANDIN_PID" 2>/dev/null || true
	fi
}

# protocol_of CLIENT: the model API the client speaks.
protocol_of() {
	case "$1" in
	claude) echo anthropic ;;
	codex) echo openai ;;
	gemini) echo gemini ;;
	*) fail "unknown client $1" ;;
	esac
}

# start_standin CLIENT SCRIPT: starts the stand-in of CLIENT's protocol
# (once per test) with SCRIPT, the model's turns (a JSON list, or
# {turns, faults, vars}: see standin.js), and configures the client for it.
# It serves at most STANDIN_MAX_REQUESTS requests (default 100).
start_standin() {
	local client="$1" turns="$2"
	CLIENT="$client"
	STANDIN_LOG="$TEST_ROOT/requests.jsonl"
	printf '%s\n' "$turns" >"$TEST_ROOT/script.json"
	jq -e 'type == "array" or (.turns | type) == "array"' "$TEST_ROOT/script.json" >/dev/null ||
		fail "the script is not a JSON list of turns, nor {turns, faults}: $turns"
	: >"$STANDIN_LOG"
	rm -f "$TEST_ROOT/port"
	node "$E2E_DIR/standin.js" --protocol "$(protocol_of "$client")" \
		--script "$TEST_ROOT/script.json" --log "$STANDIN_LOG" \
		--port-file "$TEST_ROOT/port" --max-requests "${STANDIN_MAX_REQUESTS:-100}" --lifetime "$STANDIN_LIFETIME" --idle "$STANDIN_IDLE" \
		2>"$TEST_ROOT/standin.err" &
	STANDIN_PID=$!
	local i
	for i in $(seq 100); do
		[ -s "$TEST_ROOT/port" ] && break
		kill -0 "$STANDIN_PID" 2>/dev/null || fail "the stand-in died: $(cat "$TEST_ROOT/standin.err")"
		sleep 0.05
	done
	STANDIN_PORT="$(cat "$TEST_ROOT/port")"
	[ -n "$STANDIN_PORT" ] || fail "the stand-in did not start"
	configure_client "$client"
}

# configure_client CLIENT: the client's own configuration in HOME, pointing
# it at the stand-in and trusting REPO (and, for Codex, its hooks).
# CLIENT_ENV: the environment (NAME=VALUE...) the client needs besides.
configure_client() {
	case "$1" in
	claude)
		CLIENT_ENV=(ANTHROPIC_BASE_URL="http://127.0.0.1:$STANDIN_PORT"
			ANTHROPIC_API_KEY=sk-e2e-not-a-key
			CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1
			CLAUDE_CODE_MAX_RETRIES=0)
		;;
	codex)
		CLIENT_ENV=(OPENAI_API_KEY=sk-e2e-not-a-key)
		export CODEX_HOME="$TEST_ROOT/codex-home"
		mkdir -p "$CODEX_HOME"
		# gpt-5.5: a model Codex knows, so that it offers apply_patch.
		cat >"$CODEX_HOME/config.toml" <<-EOF
			model = "gpt-5.5"
			model_provider = "standin"
			[model_providers.standin]
			name = "standin"
			base_url = "http://127.0.0.1:$STANDIN_PORT/v1"
			wire_api = "responses"
			env_key = "OPENAI_API_KEY"
			request_max_retries = 0
			stream_max_retries = 0
			[projects."$REPO"]
			trust_level = "trusted"
		EOF
		;;
	gemini)
		CLIENT_ENV=(GEMINI_API_KEY=e2e-not-a-key
			GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$STANDIN_PORT")
		mkdir -p "$HOME/.gemini"
		# One attempt at the model: a scripted 429 must not be retried for minutes.
		echo '{"security":{"auth":{"selectedType":"gemini-api-key"}},"general":{"maxAttempts":1}}' >"$HOME/.gemini/settings.json"
		[ -n "${E2E_UNTRUSTED:-}" ] ||
			jq -n --arg r "$REPO" '{($r): "TRUST_FOLDER"}' >"$HOME/.gemini/trustedFolders.json"
		;;
	esac
}

# run_session [PROMPT]: one headless session of $CLIENT in the current
# directory, against the stand-in. Sets SESSION (a counter), SESSION_OUT
# (the client's stdout: JSON lines), SESSION_ERR, SESSION_STATUS and
# SESSION_ID (the client's id of the session). Extra environment for the
# client: E2E_ENV (an array of NAME=VALUE). Claude Code's session ids can be
# chosen: CLAUDE_SIDS[N-1] for the Nth session of the test. E2E_UNTRUSTED=1:
# Codex without --dangerously-bypass-hook-trust, Gemini CLI in a folder it
# does not trust, with --skip-trust (see configure_client).
# E2E_ALLOWED_TOOLS: Claude Code's --allowedTools (default
# Bash,Read,Edit,Write).
run_session() {
	local prompt="${1:-Do the work.}"
	SESSION=$((SESSION + 1))
	SESSION_OUT="$TEST_ROOT/session$SESSION.out"
	SESSION_ERR="$TEST_ROOT/session$SESSION.err"
	local -a cmd
	case "$CLIENT" in
	claude)
		SESSION_ID="${CLAUDE_SIDS[$((SESSION - 1))]:-$(cat /proc/sys/kernel/random/uuid)}"
		cmd=(claude -p "$prompt" --output-format stream-json --verbose
			--include-hook-events --session-id "$SESSION_ID" --model claude-sonnet-4-5
			--allowedTools "${E2E_ALLOWED_TOOLS:-Bash,Read,Edit,Write}")
		;;
	codex)
		cmd=(codex exec --json -s danger-full-access "$prompt")
		# The hooks' trust: Codex runs none until a person trusts them.
		[ -n "${E2E_UNTRUSTED:-}" ] || cmd+=(--dangerously-bypass-hook-trust)
		;;
	gemini)
		cmd=(gemini -p "$prompt" -m gemini-2.5-flash --approval-mode yolo
			--output-format stream-json)
		# What Gemini CLI's own error suggests for an untrusted folder.
		[ -z "${E2E_UNTRUSTED:-}" ] || cmd+=(--skip-trust)
		;;
	esac
	cmd=(env "${CLIENT_ENV[@]}" "${E2E_ENV[@]}" "${cmd[@]}")
	SESSION_STATUS=0
	timeout -k 5 "$E2E_SESSION_TIMEOUT" "${cmd[@]}" </dev/null >"$SESSION_OUT" 2>"$SESSION_ERR" ||
		SESSION_STATUS=$?
	case "$CLIENT" in
	codex) SESSION_ID="$(jq -r 'select(.type == "thread.started") | .thread_id' "$SESSION_OUT" | sed -n 1p)" ;;
	gemini) SESSION_ID="$(jq -r 'select(.type == "init") | .session_id' "$SESSION_OUT" 2>/dev/null | sed -n 1p)" ;;
	esac
	[ "$SESSION_STATUS" -ne 124 ] || fail "the $CLIENT session timed out after ${E2E_SESSION_TIMEOUT}s: $(tail -n 5 "$SESSION_ERR")"
	return 0
}

# session_ok: the last session exited 0.
session_ok() {
	[ "$SESSION_STATUS" -eq 0 ] ||
		fail "the $CLIENT session exited $SESSION_STATUS: $(tail -n 20 "$SESSION_ERR"; tail -n 5 "$SESSION_OUT")"
}

# requests: the scripted requests the client sent (JSON lines with n, turn,
# body), in order.
requests() {
	jq -c 'select(.turn != null)' "$STANDIN_LOG"
}

# tool_result K: the result of the tool call of script turn K, as the client
# sent it back to the model in its next request: one JSON object
# {error: true|false|null, text}.
tool_result() {
	local k="$1" req
	req="$(requests | jq -c --argjson t "$((k + 1))" 'select(.turn == $t)' | sed -n 1p)"
	[ -n "$req" ] || fail "no request after turn $k: the client never sent the tool result (log: $(jq -c '{n, url, turn}' "$STANDIN_LOG" | tr '\n' ' '))"
	case "$(protocol_of "$CLIENT")" in
	anthropic)
		jq -c '.body.messages[-1].content[] | select(.type == "tool_result") |
			{error: (.is_error // false),
			 text: (if (.content | type) == "string" then .content
				else [.content[] | .text // empty] | join("\n") end)}' <<<"$req"
		;;
	openai)
		jq -c '[.body.input[] | select(.type == "function_call_output" or .type == "custom_tool_call_output")][-1] |
			{error: null, text: (if (.output | type) == "string" then .output else (.output | tostring) end)}' <<<"$req"
		;;
	gemini)
		jq -c '[.body.contents[-1].parts[] | select(.functionResponse)][-1].functionResponse.response |
			{error: (has("error")), text: (.error // .output // tostring)}' <<<"$req"
		;;
	esac
}

# tool_errors: the distinct errors that tool calls met, as the client sent
# them back to the model (a hook's deny, the client's own refusal), one a
# line, for failure messages.
tool_errors() {
	case "$(protocol_of "$CLIENT")" in
	anthropic) requests | jq -r '.body.messages[-1].content | arrays | .[] |
		select(.type == "tool_result" and .is_error == true) |
		if (.content | type) == "string" then .content else (.content | tostring) end' ;;
	openai) requests | jq -r '.body.input[-1] | select(.type | test("output$")?) |
		.output | tostring | select(test("blocked|denied|rejected|error"; "i"))' ;;
	gemini) requests | jq -r '.body.contents[-1].parts[]?.functionResponse.response.error // empty' ;;
	esac 2>/dev/null | sed 's|/tmp/[^ ]*/repo|REPO|g' | sort -u | sed -n 1,10p
}

# tool_result_text K: the text of tool_result K.
tool_result_text() {
	tool_result "$1" | jq -r .text
}

# sent_to_model TEXT: some request after the first one carries TEXT
# (anywhere in what the client sent to the model).
sent_to_model() {
	requests | jq -se --arg s "$1" 'any(.[]; .n > 1 and (.body | tostring | contains($s)))' >/dev/null
}

# agent_json NAME: the ledger's row of agent NAME (also ended ones).
agents_json() {
	daicho agents --all --json
}

# new_branch_with_commit BRANCH: a branch BRANCH with one more commit, the
# repository back on main.
new_branch_with_commit() {
	git checkout -q -b "$1"
	echo "$1" >"$1.txt"
	git add "$1.txt"
	git commit -q -m "on $1"
	git checkout -q main
}
