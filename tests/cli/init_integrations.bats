#!/usr/bin/env bats
# daicho init --claude / --codex / --gemini, the git pre-commit hook it
# installs, and daicho doctor.

load helpers

setup() {
	any_backend "it makes the SQLite ledger of its own repository"
	NO_INIT=1 common_setup
	new_git_repo "$TEST_ROOT/repo"
	cd "$TEST_ROOT/repo"
	# The ledger of this repository, not $DAICHO_LEDGER's.
	unset DAICHO_LEDGER
}

# tree_sums: a checksum of every file init may write, and the hook.
tree_sums() {
	find . -path ./.git/objects -prune -o -type f -print | LC_ALL=C sort |
		grep -v -e '/daicho/ledger.db' -e '/index$' -e '/logs/' | xargs sha256sum
}

@test "init in a git repository installs the pre-commit hook in the common hooks directory" {
	ok daicho init
	assert_line "  wrote $TEST_ROOT/repo/.git/hooks/pre-commit"
	[ -x .git/hooks/pre-commit ]
	grep -q 'daicho hook git pre-commit' .git/hooks/pre-commit
	# every worktree has it: hooks live in the common directory
	git worktree add -q "$TEST_ROOT/wt" -b side
	[ "$(git -C "$TEST_ROOT/wt" rev-parse --path-format=absolute --git-path hooks)" = "$TEST_ROOT/repo/.git/hooks" ]
}

@test "init keeps an existing pre-commit hook as pre-commit.local and still runs it" {
	printf '#!/bin/sh\necho "their hook ran" >>"%s/ran"\nexit 0\n' "$TEST_ROOT" >.git/hooks/pre-commit
	chmod +x .git/hooks/pre-commit
	ok daicho init
	assert_line --partial "moved $TEST_ROOT/repo/.git/hooks/pre-commit (to pre-commit.local"
	grep -q "their hook ran" .git/hooks/pre-commit.local
	echo x >file && git add file && git commit -q -m "a commit"
	[ "$(cat "$TEST_ROOT/ran")" = "their hook ran" ]
	# init again: nothing moves twice
	ok daicho init
	assert_line --partial "kept $TEST_ROOT/repo/.git/hooks/pre-commit"
	[ "$(grep -c 'their hook ran' .git/hooks/pre-commit.local)" = 1 ]
}

@test "the installed hook refuses a commit staging a path reserved by another agent" {
	daicho init >/dev/null
	daicho reserve 'config/*.yml' --as holder
	mkdir config && echo a >config/app.yml && git add config/app.yml
	capture git commit -q -m "touch the reserved file"
	[ "$status" -ne 0 ] || fail "the commit went through"
	stderr_contains "config/app.yml is reserved by holder (config/*.yml"
	[ "$(git rev-list --count HEAD)" = 1 ]
	# the holder itself may commit it
	DAICHO_AGENT=holder git commit -q -m "the holder commits"
	[ "$(git rev-list --count HEAD)" = 2 ]
}

@test "init --claude writes the hooks and the worker; a second run changes nothing" {
	ok daicho init --claude
	assert_line "  wrote $TEST_ROOT/repo/.claude/settings.json (hooks merged)"
	assert_line "  wrote $TEST_ROOT/repo/.claude/agents/daicho-worker.md"
	jq -e '.hooks.SessionStart[0].hooks[0].command == "daicho hook claude session-start"
		and .hooks.PreToolUse[0].matcher == "*"
		and .hooks.PreToolUse[0].hooks[0].command == "daicho hook claude pre-tool-use"
		and .hooks.Stop[0].hooks[0].command == "daicho hook claude stop"
		and .hooks.SessionEnd[0].hooks[0].command == "daicho hook claude session-end"' \
		.claude/settings.json >/dev/null || fail "$(cat .claude/settings.json)"
	grep -q '^name: daicho-worker$' .claude/agents/daicho-worker.md
	grep -q 'daicho claim --next' .claude/agents/daicho-worker.md
	grep -q 'daicho prompt ID' .claude/agents/daicho-worker.md
	before="$(tree_sums)"
	ok daicho init --claude --json
	jq -e '.changed == 0' <<<"$output" >/dev/null || fail "$output"
	[ "$(tree_sums)" = "$before" ] || fail "the second init changed files"
}

@test "init --claude merges into existing settings, never clobbering them" {
	mkdir .claude
	cat >.claude/settings.json <<-'JSON'
	{"model": "opus", "permissions": {"allow": ["Bash(ls)"]},
	 "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-guard"}]}]}}
	JSON
	ok daicho init --claude
	jq -e '.model == "opus" and .permissions.allow == ["Bash(ls)"]
		and (.hooks.PreToolUse | length) == 2
		and .hooks.PreToolUse[0].hooks[0].command == "my-guard"
		and .hooks.PreToolUse[1].hooks[0].command == "daicho hook claude pre-tool-use"' \
		.claude/settings.json >/dev/null || fail "$(cat .claude/settings.json)"
}

@test "init --claude keeps a worker definition the user changed" {
	mkdir -p .claude/agents
	echo "my own worker" >.claude/agents/daicho-worker.md
	ok daicho init --claude
	assert_line --partial "kept $TEST_ROOT/repo/.claude/agents/daicho-worker.md (it differs"
	[ "$(cat .claude/agents/daicho-worker.md)" = "my own worker" ]
}

@test "init refuses settings that are not JSON, changing nothing" {
	mkdir .claude
	echo '{ not json' >.claude/settings.json
	capture daicho init --claude
	assert_refused 1
	stderr_contains ".claude/settings.json is not a JSON object"
	[ "$(cat .claude/settings.json)" = '{ not json' ]
}

@test "init --codex writes .codex/hooks.json and an AGENTS.md section once" {
	printf '# Project rules\n\nBe nice.\n' >AGENTS.md
	ok daicho init --codex
	jq -e '.hooks.PreToolUse[0].hooks[0].command == "daicho hook codex pre-tool-use"
		and .hooks.SessionStart[0].hooks[0].command == "daicho hook codex session-start"
		and .hooks.Stop[0].hooks[0].command == "daicho hook codex stop"' \
		.codex/hooks.json >/dev/null || fail "$(cat .codex/hooks.json)"
	head -n 3 AGENTS.md | grep -q 'Be nice.'
	[ "$(grep -c '<!-- daicho:begin -->' AGENTS.md)" = 1 ]
	before="$(tree_sums)"
	ok daicho init --codex
	[ "$(tree_sums)" = "$before" ]
}

@test "init --gemini writes .gemini/settings.json and a GEMINI.md section once" {
	ok daicho init --gemini
	jq -e '.hooks.BeforeTool[0].hooks[0].command == "daicho hook gemini BeforeTool"
		and .hooks.BeforeTool[0].hooks[0].type == "command"
		and .hooks.SessionStart[0].hooks[0].command == "daicho hook gemini SessionStart"
		and .hooks.AfterTool[0].hooks[0].command == "daicho hook gemini AfterTool"
		and .hooks.SessionEnd[0].hooks[0].command == "daicho hook gemini SessionEnd"' \
		.gemini/settings.json >/dev/null || fail "$(cat .gemini/settings.json)"
	grep -q 'daicho claim --next' GEMINI.md
	before="$(tree_sums)"
	ok daicho init --gemini --claude --codex
	ok daicho init --gemini --claude --codex
	after="$(tree_sums)"
	ok daicho init --gemini --claude --codex
	[ "$(tree_sums)" = "$after" ]
}

# trust_clients [DIR]: what a user who trusted DIR (default: here) in Codex
# and Gemini CLI has in their trust stores ($HOME is the test directory):
# the project and each of daicho's four Codex hooks, and the folder; and,
# since Codex runs commands in a login shell, a profile that puts daicho
# on its PATH.
trust_clients() {
	local dir="${1:-$PWD}" event
	login_path_has_daicho
	mkdir -p "$HOME/.codex" "$HOME/.gemini"
	{
		printf '# written by codex\nmodel = "gpt-5"\n\n[projects."%s"]\ntrust_level = "trusted"\n' "$dir"
		for event in session_start pre_tool_use post_tool_use stop; do
			printf '\n[hooks.state."%s/.codex/hooks.json:%s:0:0"]\ntrusted_hash = "sha256:%064d"\n' "$dir" "$event" 0
		done
	} >"$HOME/.codex/config.toml"
	printf '{\n  "%s": "TRUST_FOLDER"\n}\n' "$dir" >"$HOME/.gemini/trustedFolders.json"
}

# login_path_has_daicho: ~/.profile puts the daicho under test on a login
# shell's PATH, as a user who followed doctor's advice has it.
login_path_has_daicho() {
	printf 'PATH="%s:$PATH"\n' "$(dirname "$(command -v daicho)")" >"$HOME/.profile"
}

# commit_clients: commit what init wrote.
commit_clients() {
	git add -A && git commit -q -m "daicho hooks"
}

@test "init --claude/--codex/--gemini register the MCP server, merging with the user's servers, once" {
	printf '{"mcpServers": {"theirs": {"command": "their-server"}}, "other": 1}\n' >.mcp.json
	mkdir .codex .gemini
	printf 'model = "gpt-5"\n\n[mcp_servers.theirs]\ncommand = "their-server"\n' >.codex/config.toml
	printf '{"mcpServers": {"theirs": {"command": "their-server", "trust": true}}, "ui": {"theme": "x"}}\n' >.gemini/settings.json
	ok daicho init --claude --codex --gemini
	assert_line "  wrote $TEST_ROOT/repo/.mcp.json (MCP server daicho added)"
	assert_line "  wrote $TEST_ROOT/repo/.codex/config.toml (MCP server daicho added)"
	assert_line "  wrote $TEST_ROOT/repo/.gemini/settings.json (MCP server daicho added)"
	jq -e '.mcpServers.daicho == {"command": "daicho", "args": ["mcp"], "type": "stdio"}
		and .mcpServers.theirs.command == "their-server" and .other == 1' \
		.mcp.json >/dev/null || fail "$(cat .mcp.json)"
	jq -e '.mcpServers.daicho == {"command": "daicho", "args": ["mcp"]}
		and .mcpServers.theirs.trust == true and .ui.theme == "x"
		and .hooks.BeforeTool[0].hooks[0].command == "daicho hook gemini BeforeTool"' \
		.gemini/settings.json >/dev/null || fail "$(cat .gemini/settings.json)"
	head -n 4 .codex/config.toml | grep -q '^command = "their-server"$'
	grep -q '^\[mcp_servers.daicho\]$' .codex/config.toml
	grep -A2 '^\[mcp_servers.daicho\]$' .codex/config.toml | grep -q '^args = \["mcp"\]$'
	# Codex gives an MCP server an environment of its own: the worker's
	# identity and ledger are passed on by name.
	grep -A3 '^\[mcp_servers.daicho\]$' .codex/config.toml |
		grep -q '^env_vars = \["DAICHO_AGENT", "DAICHO_TASK", "DAICHO_LEDGER", "PGHOST",' ||
		fail "$(cat .codex/config.toml)"
	before="$(tree_sums)"
	ok daicho init --claude --codex --gemini
	assert_line "  kept $TEST_ROOT/repo/.mcp.json (it registers an MCP server named daicho)"
	[ "$(tree_sums)" = "$before" ]
}

@test "init keeps a daicho MCP server the user registered their own way" {
	printf '{"mcpServers": {"daicho": {"command": "/opt/daicho", "args": ["mcp", "--as", "me"]}}}\n' >.mcp.json
	mkdir .codex
	printf '[mcp_servers.daicho]\ncommand = "/opt/daicho"\n' >.codex/config.toml
	before="$(sha256sum .mcp.json .codex/config.toml)"
	ok daicho init --claude --codex
	[ "$(sha256sum .mcp.json .codex/config.toml)" = "$before" ]
}

@test "doctor starts the registered MCP server and checks that it answers initialize" {
	daicho init --claude --codex --gemini >/dev/null
	commit_clients
	trust_clients
	ok daicho doctor
	assert_line --regexp "^ok +claude MCP server +.*/.mcp.json registers 'daicho' 'mcp'$"
	assert_line --regexp "^ok +MCP server answers \(claude\) +'daicho' 'mcp' starts and answers initialize \(protocol 2025-11-25\)$"
	assert_line --regexp "^ok +codex MCP server +"
	assert_line --regexp "^ok +gemini MCP server +"
	# The same command is started once.
	[ "$(grep -c '^ok *MCP server answers' <<<"$output")" = 1 ]
	# A server that does not answer is a failure saying what it printed.
	jq '.mcpServers.daicho.args = ["mcp", "--no-such-flag"]' .mcp.json >x && mv x .mcp.json
	capture daicho doctor
	[ "$status" -eq 1 ]
	assert_line --regexp "^FAIL +MCP server answers \(claude\) +'daicho' 'mcp' '--no-such-flag' did not answer initialize \(exit 2\): daicho: unknown option '--no-such-flag'"
	# Nothing registered: said so.
	jq 'del(.mcpServers.daicho)' .gemini/settings.json >x && mv x .gemini/settings.json
	capture daicho doctor
	assert_line --regexp "^FAIL +gemini MCP server +.*/.gemini/settings.json does not register an MCP server named daicho$"
	assert_line --partial "fix: run 'daicho init --gemini'"
}

@test "doctor passes when everything is installed and daicho is on PATH" {
	daicho init --claude --codex --gemini >/dev/null
	commit_clients
	trust_clients
	ok daicho doctor
	refute_output --partial FAIL
	assert_line --regexp '^ok +daicho on PATH +hooks run .*/daicho$'
	assert_line --regexp '^ok +claude hooks '
	ok daicho doctor --json
	jq -e 'all(.[]; .ok) and (map(.check) | index("git pre-commit hook") != null)' \
		<<<"$output" >/dev/null || fail "$output"
}

@test "doctor says what is missing and how to fix it, exit 1" {
	mkdir .claude
	capture daicho doctor
	[ "$status" -eq 1 ] || fail "exit $status"
	assert_line --regexp '^FAIL +ledger +no ledger at '
	assert_line --partial "fix: run 'daicho init'"
	assert_line --regexp '^FAIL +claude hooks +.*settings.json is missing$'
	assert_line --partial "fix: run 'daicho init --claude'"
	assert_line --regexp '^FAIL +claude hooks committed +.claude/settings.json is not committed'
	assert_line --regexp '^FAIL +claude MCP server +.*/.mcp.json does not register an MCP server named daicho$'
	assert_line --regexp '^FAIL +claude skill +.*/.claude/skills/daicho/SKILL.md is missing$'
	assert_equal "$stderr" "daicho: 7 problems found (fix them as shown)"
}

@test "doctor: a hook that cannot be found on PATH is a failure" {
	daicho init --claude >/dev/null
	capture env PATH=/usr/bin:/bin "$DAICHO_ROOT/daicho" doctor
	[ "$status" -eq 1 ]
	assert_line --regexp '^FAIL +daicho on PATH +the hooks run .daicho., which is not on PATH'
}

@test "doctor notices a hook removed from the settings" {
	daicho init --claude >/dev/null
	jq 'del(.hooks.Stop)' .claude/settings.json >s.json && mv s.json .claude/settings.json
	capture daicho doctor
	[ "$status" -eq 1 ]
	assert_line --partial "settings.json has no daicho hook for Stop"
}

@test "doctor: client configuration that is not committed (or committed without daicho's hooks) is a failure: worktrees would lack it" {
	daicho init --claude --codex >/dev/null
	trust_clients
	capture daicho doctor
	[ "$status" -eq 1 ] || fail "exit $status"
	assert_line --regexp '^FAIL +claude hooks committed +\.claude/settings\.json is not committed: a worktree made from a commit \(git worktree add, daicho run --worktree, claude --worktree\) has no daicho hooks'
	assert_line --partial "fix: git add .claude && git commit -m 'daicho hooks'"
	assert_line --regexp '^FAIL +codex hooks committed +\.codex/hooks\.json is not committed'
	commit_clients
	ok daicho doctor
	assert_line --regexp '^ok +claude hooks committed +\.claude/settings\.json at HEAD runs daicho.s hooks'
	# Committed before a hook was added: HEAD lacks it.
	jq 'del(.hooks.Stop)' .claude/settings.json >s.json && mv s.json .claude/settings.json
	git commit -q -am "no stop hook"
	daicho init --claude >/dev/null
	capture daicho doctor
	[ "$status" -eq 1 ]
	assert_line --regexp '^FAIL +claude hooks committed +\.claude/settings\.json as committed has no daicho hook for Stop'
}

@test "doctor in a linked worktree made without the committed client configuration says its sessions run no hook" {
	daicho init --claude --gemini >/dev/null
	trust_clients
	# The configuration is in the main worktree only: never committed.
	git worktree add -q "$TEST_ROOT/wt" -b side
	trust_clients "$TEST_ROOT/wt"
	cd "$TEST_ROOT/wt"
	[ ! -e .claude ]
	capture daicho doctor
	[ "$status" -eq 1 ] || fail "exit $status: $output"
	assert_line --regexp "^FAIL +claude hooks in worktree +this worktree \($TEST_ROOT/wt\) has no \.claude/ while the main worktree \($TEST_ROOT/repo\) has one: claude sessions started here run no daicho hook"
	assert_line --regexp '^FAIL +gemini hooks in worktree '
	assert_line --partial "fix: commit .claude/ in the main worktree"
	capture daicho doctor --json
	jq -e '[.[] | select(.ok | not) | .check] == ["claude hooks in worktree", "gemini hooks in worktree"]' <<<"$output" >/dev/null ||
		fail "$output"
	# Once the configuration is committed and in this branch, all is well.
	git -C "$TEST_ROOT/repo" add -A
	git -C "$TEST_ROOT/repo" commit -q -m "daicho hooks"
	git merge -q main
	ok daicho doctor
}

@test "doctor: Codex runs commands in a login shell; doctor fails when that shell's PATH has no daicho, for init's hooks and for the plugin" {
	local login_shell
	login_shell="$(awk -F: -v u="$(id -u)" '$3 == u { print $7 }' /etc/passwd)"
	daicho init --codex >/dev/null
	commit_clients
	trust_clients
	ok daicho doctor
	assert_line --regexp "^ok +codex login shell +Codex runs commands in a login shell \\(${login_shell:-/bin/sh} -l\\), which finds $(command -v daicho)\$"
	# Without the profile: a login PATH from /etc/profile alone (probed
	# as doctor probes it, in this environment).
	rm "$HOME/.profile"
	if "${login_shell:-/bin/sh}" -lc 'command -v daicho' </dev/null >/dev/null 2>&1; then
		skip "this machine's login shell keeps a PATH with daicho"
	fi
	capture daicho doctor
	[ "$status" -eq 1 ] || fail "exit $status: $output"
	assert_line --regexp '^FAIL +codex login shell +Codex runs the model.s commands in a login shell .* finds no daicho there: its .daicho \.\.\.. commands would fail with "command not found"$'
	assert_line --partial "allow_login_shell = false"
	# Told so (a top-level key, before any table), Codex keeps its own
	# PATH for the model's commands: ok.
	sed -i '1i allow_login_shell = false' .codex/config.toml
	ok daicho doctor
	assert_line --regexp "^ok +codex login shell +Codex's allow_login_shell is false"
	sed -i '/^allow_login_shell/d' .codex/config.toml
	# The plugin alone (no .codex in the project) is checked the same way.
	git rm -rq .codex AGENTS.md && git commit -qm "no codex hooks"
	rm -rf .codex
	printf '\n[plugins."daicho@daicho"]\nenabled = true\n' >>"$HOME/.codex/config.toml"
	capture daicho doctor --json
	jq -e '[.[] | select(.check == "codex login shell")] | length == 1 and (.[0].ok | not)' <<<"$output" >/dev/null ||
		fail "$output"
	login_path_has_daicho
	capture daicho doctor --json
	jq -e '[.[] | select(.check == "codex login shell")] | length == 1 and .[0].ok' <<<"$output" >/dev/null ||
		fail "$output"
	# Neither way of installing for Codex: no such check.
	sed -i '/daicho@daicho/,$d' "$HOME/.codex/config.toml"
	capture daicho doctor --json
	jq -e 'all(.[]; .check != "codex login shell")' <<<"$output" >/dev/null || fail "$output"
}

@test "doctor: Codex's trust store: an untrusted project, and hooks not trusted or disabled in /hooks, are failures saying how to fix them" {
	daicho init --codex >/dev/null
	commit_clients
	capture daicho doctor --json
	[ "$status" -eq 1 ]
	jq -e --arg r "$PWD" --arg c "$HOME/.codex/config.toml" '
		(.[] | select(.check == "codex project trust")) as $p |
		(.[] | select(.check == "codex hooks trusted")) as $h |
		($p.ok == false) and ($p.detail == "\($r) is not trusted in \($c): Codex loads no project hook (nor .codex/config.toml) from an untrusted project, and says nothing")
		and ($p.fix | contains("[projects.\"\($r)\"] trust_level = \"trusted\""))
		and ($h.ok == false) and ($h.detail | startswith("4 of 4 daicho hooks of \($r)/.codex/hooks.json are not trusted in \($c) (session_start:0:0, pre_tool_use:0:0, post_tool_use:0:0, stop:0:0)"))
		and ($h.fix | contains("trust daicho'"'"'s hooks in /hooks")) and ($h.fix | contains("--dangerously-bypass-hook-trust"))' \
		<<<"$output" >/dev/null || fail "$output"
	trust_clients
	ok daicho doctor
	assert_line --regexp '^ok +codex project trust +'
	assert_line --regexp '^ok +codex hooks trusted +.*records trust for all 4 daicho hooks.*doctor cannot recompute that hash'
	# One hook disabled in /hooks; CODEX_HOME moves the store.
	printf '\n[hooks.state."%s/.codex/hooks.json:pre_tool_use:0:0"]\nenabled = false\n' "$PWD" >>"$HOME/.codex/config.toml"
	capture daicho doctor
	[ "$status" -eq 1 ]
	assert_line --regexp '^FAIL +codex hooks trusted +1 of 4 daicho hooks .* are not trusted or disabled in .* \(pre_tool_use:0:0\)'
	mkdir "$TEST_ROOT/codexhome"
	capture env CODEX_HOME="$TEST_ROOT/codexhome" daicho doctor
	assert_line --regexp "^FAIL +codex project trust +.* is not trusted in $TEST_ROOT/codexhome/config.toml"
	# An explicitly untrusted project.
	printf '[projects."%s"]\ntrust_level = "untrusted"\n' "$PWD" >"$TEST_ROOT/codexhome/config.toml"
	capture env CODEX_HOME="$TEST_ROOT/codexhome" daicho doctor
	assert_line --regexp "^FAIL +codex project trust +$PWD is marked untrusted in "
}

@test "doctor: Gemini CLI's trusted folders: untrusted, DO_NOT_TRUST and a broken file fail; TRUST_PARENT, GEMINI_CLI_TRUST_WORKSPACE and folder trust off pass" {
	daicho init --gemini >/dev/null
	commit_clients
	capture daicho doctor
	[ "$status" -eq 1 ]
	assert_line --regexp "^FAIL +gemini folder trust +$PWD is not trusted: Gemini CLI loads no project hook in an untrusted folder; headless gemini exits 55 there, and with --skip-trust \(which its error suggests\) it runs without daicho.s hooks, enforcing nothing"
	assert_line --partial "fix: trust the folder when gemini asks, or add \"$PWD\": \"TRUST_FOLDER\" to $HOME/.gemini/trustedFolders.json; headless workers may run with GEMINI_CLI_TRUST_WORKSPACE=true instead; never --skip-trust"
	mkdir -p "$HOME/.gemini"
	# The longest rule wins: the parent trusted, this folder not.
	printf '{"%s": "TRUST_FOLDER", "%s": "DO_NOT_TRUST"}' "$TEST_ROOT" "$PWD" >"$HOME/.gemini/trustedFolders.json"
	capture daicho doctor
	assert_line --regexp "^FAIL +gemini folder trust +$PWD is marked DO_NOT_TRUST in that file"
	printf '{"%s/README": "TRUST_PARENT"}' "$PWD" >"$HOME/.gemini/trustedFolders.json"
	ok daicho doctor
	assert_line --regexp '^ok +gemini folder trust +.*"TRUST_PARENT"\)$'
	echo 'not json' >"$HOME/.gemini/trustedFolders.json"
	capture daicho doctor
	assert_line --regexp "^FAIL +gemini folder trust +$HOME/.gemini/trustedFolders.json is not a JSON object"
	rm "$HOME/.gemini/trustedFolders.json"
	GEMINI_CLI_TRUST_WORKSPACE=true ok daicho doctor
	assert_line --regexp '^ok +gemini folder trust +GEMINI_CLI_TRUST_WORKSPACE=true here trusts any folder'
	printf '{"/elsewhere": "TRUST_FOLDER"}' >"$TEST_ROOT/tf.json"
	capture env GEMINI_CLI_TRUSTED_FOLDERS_PATH="$TEST_ROOT/tf.json" daicho doctor
	assert_line --regexp "^FAIL +gemini folder trust +.*no rule for it in $TEST_ROOT/tf.json"
	echo '{"security": {"folderTrust": {"enabled": false}}}' >"$HOME/.gemini/settings.json"
	ok daicho doctor
	assert_line --regexp '^ok +gemini folder trust +folder trust is off'
}

@test "init and doctor refuse extra arguments and unknown options" {
	refused 2 daicho init extra
	refused 2 daicho init --cursor
	refused 2 daicho doctor now
}

@test "a ledger outside the repository gets the git hook only with --git-hook" {
	export DAICHO_LEDGER="$TEST_ROOT/elsewhere.db"
	ok daicho init
	refute_output --partial "pre-commit"
	[ ! -e .git/hooks/pre-commit ]
	ok daicho init --git-hook
	assert_line "  wrote $TEST_ROOT/repo/.git/hooks/pre-commit"
	grep -q 'daicho hook git pre-commit' .git/hooks/pre-commit
}

# mutant: a hook or the worker changed in install.c but not in the plugin
# (or the other way): the comparison names it.
@test "the Claude Code plugin (plugins/claude) gives what 'init --claude' writes: the same hooks, worker, MCP server, and the one skill" {
	local p="$DAICHO_ROOT/plugins/claude"
	ok daicho init --claude
	[ "$(jq -S .hooks .claude/settings.json)" = "$(jq -S .hooks "$p/hooks/hooks.json")" ] ||
		fail "the plugin's hooks differ from init's: $(diff <(jq -S .hooks .claude/settings.json) <(jq -S .hooks "$p/hooks/hooks.json"))"
	cmp -s .claude/agents/daicho-worker.md "$p/agents/daicho-worker.md" ||
		fail "the plugin's worker differs: $(diff .claude/agents/daicho-worker.md "$p/agents/daicho-worker.md")"
	[ "$(jq -c '.mcpServers.daicho | {command, args}' .mcp.json)" = "$(jq -c '.mcpServers.daicho' "$p/.mcp.json")" ]
	cmp -s "$DAICHO_ROOT/skills/daicho/SKILL.md" "$p/skills/daicho/SKILL.md" ||
		fail "plugins/claude/skills/daicho/SKILL.md is not skills/daicho/SKILL.md"
	[ "$(jq -r .version "$p/.claude-plugin/plugin.json")" = "$(daicho version --json | jq -r .version)" ]
	[ "$(jq -r '.plugins[0].source' "$DAICHO_ROOT/.claude-plugin/marketplace.json")" = ./plugins/claude ]
}

@test "init writes the daicho skill where each client reads a project's skills, and AGENTS.md and GEMINI.md point to it; a user's own copy is kept" {
	ok daicho init --claude --codex --gemini
	cmp -s "$DAICHO_ROOT/skills/daicho/SKILL.md" .claude/skills/daicho/SKILL.md ||
		fail ".claude/skills/daicho/SKILL.md is not skills/daicho/SKILL.md"
	cmp -s "$DAICHO_ROOT/skills/daicho/SKILL.md" .agents/skills/daicho/SKILL.md ||
		fail ".agents/skills/daicho/SKILL.md is not skills/daicho/SKILL.md"
	local f
	for f in AGENTS.md GEMINI.md; do
		grep -qF '`daicho` skill (`SKILL.md` in `.agents/skills/daicho/`' "$f" || fail "$f does not point to the skill: $(cat "$f")"
		# The protocol is the skill's: the section does not repeat it.
		! grep -q 'daicho reserve\|daicho block\|daicho wait' "$f" || fail "$f repeats the skill: $(cat "$f")"
	done
	# Edited by the user: kept, and said so.
	echo "our own rules" >>.agents/skills/daicho/SKILL.md
	ok daicho init --codex
	assert_line "  kept $TEST_ROOT/repo/.agents/skills/daicho/SKILL.md (it differs from daicho's; yours is kept)"
	grep -q 'our own rules' .agents/skills/daicho/SKILL.md
	# Gone: doctor says so and how to fix it.
	rm .agents/skills/daicho/SKILL.md
	capture daicho doctor
	assert_line --regexp '^FAIL +daicho skill +.*/.agents/skills/daicho/SKILL.md is missing$'
	assert_line --partial "fix: run 'daicho init --codex'"
}

@test "the Gemini CLI extension (plugins/gemini) gives what 'init --gemini' writes: the same hooks, MCP server and instructions, and the one skill" {
	local p="$DAICHO_ROOT/plugins/gemini"
	ok daicho init --gemini
	[ "$(jq -S .hooks .gemini/settings.json)" = "$(jq -S .hooks "$p/hooks/hooks.json")" ] ||
		fail "the extension's hooks differ from init's: $(diff <(jq -S .hooks .gemini/settings.json) <(jq -S .hooks "$p/hooks/hooks.json"))"
	[ "$(jq -c .mcpServers.daicho .gemini/settings.json)" = "$(jq -c .mcpServers.daicho "$p/gemini-extension.json")" ]
	diff <(sed -n '/<!-- daicho:begin -->/,/<!-- daicho:end -->/p' GEMINI.md | sed '1d;$d') "$p/GEMINI.md" ||
		fail "the extension's GEMINI.md is not init's section"
	cmp -s "$DAICHO_ROOT/skills/daicho/SKILL.md" "$p/skills/daicho/SKILL.md" ||
		fail "plugins/gemini/skills/daicho/SKILL.md is not skills/daicho/SKILL.md"
	[ "$(jq -r .version "$p/gemini-extension.json")" = "$(daicho version --json | jq -r .version)" ]
}

@test "the Codex plugin (plugins/codex) gives what 'init --codex' writes: the same hooks and MCP server with its env_vars, and the one skill" {
	local p="$DAICHO_ROOT/plugins/codex"
	ok daicho init --codex
	[ "$(jq -S . .codex/hooks.json)" = "$(jq -S . "$p/hooks/hooks.json")" ] ||
		fail "the plugin's hooks differ from init's: $(diff .codex/hooks.json "$p/hooks/hooks.json")"
	local vars
	vars=$(sed -n 's/^env_vars = \(.*\)$/\1/p' .codex/config.toml)
	[ "$(jq -c . <<<"$vars")" = "$(jq -c .mcpServers.daicho.env_vars "$p/.mcp.json")" ] ||
		fail "env_vars: init $vars, plugin $(jq -c .mcpServers.daicho.env_vars "$p/.mcp.json")"
	[ "$(jq -c '.mcpServers.daicho | {command, args}' "$p/.mcp.json")" = '{"command":"daicho","args":["mcp"]}' ]
	cmp -s "$DAICHO_ROOT/skills/daicho/SKILL.md" "$p/skills/daicho/SKILL.md" ||
		fail "plugins/codex/skills/daicho/SKILL.md is not skills/daicho/SKILL.md"
	[ "$(jq -r .version "$p/.codex-plugin/plugin.json")" = "$(daicho version --json | jq -r .version)" ]
	[ "$(jq -r '.plugins[0].source.path' "$DAICHO_ROOT/.agents/plugins/marketplace.json")" = ./plugins/codex ]
}

# mutant: check_plugins() not called, or its project test dropped: the
# first or the second assertion of a client fails.
@test "doctor recognises each client's plugin or extension, and fails when 'init' also wrote the project's hooks: each would run twice" {
	export HOME="$TEST_ROOT/home" CODEX_HOME="$TEST_ROOT/home/codex"
	mkdir -p "$HOME/.claude" "$CODEX_HOME" "$HOME/.gemini/extensions/daicho"
	echo '{"enabledPlugins": {"daicho@daicho": true}}' >"$HOME/.claude/settings.json"
	printf '[plugins."daicho@daicho"]\nenabled = true\n' >"$CODEX_HOME/config.toml"
	echo '{"name": "daicho", "version": "0.1.0"}' >"$HOME/.gemini/extensions/daicho/gemini-extension.json"
	daicho init >/dev/null
	local client
	for client in claude codex gemini; do
		run --separate-stderr daicho doctor --json
		[ "$(jq -r --arg c "$client plugin" '.[] | select(.check == $c) | .ok' <<<"$output")" = true ] ||
			fail "$client: $output"
		daicho init --"$client" >/dev/null
		run --separate-stderr daicho doctor --json
		[ "$(jq -r --arg c "$client plugin" '.[] | select(.check == $c) | .ok' <<<"$output")" = false ] ||
			fail "$client twice: $output"
		[[ "$(jq -r --arg c "$client plugin" '.[] | select(.check == $c) | .detail' <<<"$output")" == *"each hook runs twice"* ]] ||
			fail "$output"
	done
	# Not installed that way: no such check at all.
	rm -rf "$HOME/.claude" "$CODEX_HOME" "$HOME/.gemini"
	run --separate-stderr daicho doctor --json
	[ "$(jq '[.[] | select(.check | endswith(" plugin"))] | length' <<<"$output")" = 0 ] || fail "$output"
}
