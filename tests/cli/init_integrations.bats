#!/usr/bin/env bats
# daicho init --claude / --codex / --gemini, the git pre-commit hook it
# installs, and daicho doctor.

load helpers

setup() {
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

@test "doctor passes when everything is installed and daicho is on PATH" {
	daicho init --claude --codex --gemini >/dev/null
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
	assert_equal "$stderr" "daicho: 4 problems found (fix them as shown)"
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
