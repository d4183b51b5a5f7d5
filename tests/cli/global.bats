#!/usr/bin/env bats
# Global options, help, version, identity, error format, output failures.

load helpers

# The commands listed by 'daicho help'.
commands() {
	daicho help | awk '/^Commands:/ { f = 1; next } /^Topics/ { f = 0 }
		f && /^  / { sub(/^  /, ""); sub(/  .*/, ""); print }'
}

@test "daicho help lists every command of this issue and exits 0" {
	ok daicho help
	assert_output --partial "usage: daicho"
	for c in init add ls show log graph claim prompt save result report release block cancel events; do
		assert_line --regexp "^  $c "
	done
	ok daicho --help
	ok daicho -h
	ok daicho ls -h
	assert_line --index 0 --partial "usage: daicho ls"
}

@test "--help for every command exits 0 and prints its usage" {
	local c n=0
	while read -r c; do
		n=$((n + 1))
		# shellcheck disable=SC2086 # two-word commands: "agent start"
		capture daicho $c --help
		[ "$status" -eq 0 ] || fail "daicho $c --help exited $status: $stderr"
		[[ "${lines[0]}" == "usage: daicho $c"* ]] || fail "daicho $c --help: '${lines[0]}'"
		[ -z "$stderr" ] || fail "daicho $c --help wrote to stderr: $stderr"
		# shellcheck disable=SC2086
		capture daicho help $c
		[ "$status" -eq 0 ] || fail "daicho help $c exited $status"
		[[ "${lines[0]}" == "usage: daicho $c"* ]] || fail "daicho help $c: '${lines[0]}'"
	done < <(commands)
	[ "$n" -ge 15 ]
}

@test "--help works without a ledger" {
	unset DAICHO_LEDGER
	mkdir "$TEST_ROOT/empty"
	cd "$TEST_ROOT/empty"
	ok daicho claim --help
	ok daicho help
	[ ! -e "$TEST_ROOT/empty/.daicho" ]
}

@test "--version prints the version, the commit, how it was linked and the helpers present, and exits 0" {
	ok daicho --version
	assert_output --regexp '^daicho [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{12}(\+changes)?|unknown); (static|dynamic); SQLite 3\.[0-9.]+, '
	[ "${#lines[@]}" -eq 1 ]
	local v=$output
	ok daicho version
	assert_output "$v"
	ok daicho version --json
	[[ "$v" == "daicho $(jq -r .version <<<"$output") (commit $(jq -r .commit <<<"$output"); $(jq -r .link <<<"$output"); SQLite $(jq -r .sqlite <<<"$output"),"* ]] ||
		fail "$v / $output"
	# The build this suite runs is the tree's own: its commit, and the
	# helpers built beside it.
	if git -C "$DAICHO_ROOT" rev-parse HEAD >/dev/null 2>&1; then
		[[ "$(jq -r .commit <<<"$output")" == "$(git -C "$DAICHO_ROOT" rev-parse --short=12 HEAD)"* ]] ||
			fail "commit: $output"
	fi
	[ "$(jq -r .postgresql <<<"$output")" = "$DAICHO_ROOT/daicho-pg" ] || [ ! -x "$DAICHO_ROOT/daicho-pg" ] ||
		fail "daicho-pg: $output"
	# Without the helper, it says so.
	DAICHO_PG_BIN=/nonexistent/daicho-pg run daicho --version
	[[ "$output" == *"no PostgreSQL (daicho-pg missing)"* ]] || fail "$output"
	refused 2 daicho version extra
}

@test "daicho help groups every command by what it is for, and explains each topic" {
	ok daicho help
	# Every command of the table is in a group: none is left to "Other".
	refute_line 'Other:'
	for group in 'Plan the work:' "Work on a task (an agent's turn):" 'Coordinate agents:' \
	    'Judge and land:' "The person's:" 'Set-up and admin:' "Topics ('daicho help TOPIC'):"; do
		assert_line "$group"
	done
	local n
	n=$(commands | sort | uniq -d | wc -l)
	[ "$n" -eq 0 ] || fail "a command listed twice"
	[ "$(commands | wc -l)" -ge 54 ] || fail "$(commands | wc -l) commands"
	for topic in states checks identity landing; do
		ok daicho help "$topic"
		[ "${#lines[@]}" -ge 8 ] || fail "help $topic: $output"
	done
	ok daicho help states
	assert_output --partial 'verified ──land──▶ landed'
	ok daicho help person
	assert_output --partial 'approve'
	refused 2 daicho help statse
	stderr_contains "did you mean 'status'?"
}

@test "unknown command: exit 2, one line" {
	refused 2 daicho frobnicate
	stderr_contains frobnicate
	[[ "$stderr" != *"did you mean"* ]] || fail "a guess for frobnicate: $stderr"
	refused 2 daicho help frobnicate
}

@test "a slip of a command name gets a 'did you mean'" {
	refused 2 daicho lst
	assert_equal "$stderr" "daicho: unknown command 'lst' (did you mean 'ls'? see 'daicho help')"
	refused 2 daicho cliam
	stderr_contains "did you mean 'claim'?"
	refused 2 daicho sweeep
	stderr_contains "did you mean 'sweep'?"
	# A prefix is what a slip most likely meant.
	refused 2 daicho lsit
	stderr_contains "did you mean 'ls'?"
	refused 2 daicho sta
	stderr_contains "did you mean 'status'?"
	refused 2 daicho shows
	stderr_contains "did you mean 'show'?"
}

@test "no command at all: exit 2" {
	capture daicho
	[ "$status" -eq 2 ]
	[ -z "$output" ]
}

@test "an unknown option to every command: exit 2, one line, ledger unchanged" {
	daicho add a >/dev/null
	snapshot_ledger
	local c
	for c in $(commands); do
		refused 2 daicho "$c" --definitely-not-an-option
	done
	refused 2 daicho --definitely-not-an-option ls
	assert_ledger_unchanged
}

@test "missing values of global options: exit 2" {
	refused 2 daicho --as
	refused 2 daicho ls --as
	refused 2 daicho --ledger
	refused 2 daicho -C
}

@test "an invalid agent name: exit 2" {
	daicho add a >/dev/null
	snapshot_ledger
	refused 2 daicho --as '' claim 1
	refused 2 daicho --as '-w' claim 1
	refused 2 daicho --as 'two words' claim 1
	DAICHO_AGENT='bad name' refused 2 daicho claim 1
	assert_ledger_unchanged
}

@test "--as before and after the command mean the same" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	ok daicho --as w1 claim --next
	assert_output 1
	ok daicho claim --next --as w2
	assert_output 2
	[ "$(task_field 1 owner)" = w1 ]
	[ "$(task_field 2 owner)" = w2 ]
	ok daicho --as w1 ls --mine --json
	a="$output"
	ok daicho ls --mine --json --as w1
	[ "$output" = "$a" ]
	[ "$(jq -c '[.[].id]' <<<"$a")" = "[1]" ]
	ok daicho ls --as w2 --mine --json
	[ "$(jq -c '[.[].id]' <<<"$output")" = "[2]" ]
	ok daicho --as w1 report 1
	refused 4 daicho report 2 --as w1
}

@test "other global options work after the command too" {
	daicho add a >/dev/null
	ok daicho --json show 1
	a="$output"
	ok daicho show 1 --json
	[ "$output" = "$a" ]
	ok daicho show --json 1
	[ "$output" = "$a" ]
	daicho --ledger "$TEST_ROOT/second.db" init >/dev/null
	ok daicho add "in second" --ledger "$TEST_ROOT/second.db"
	assert_output 1
	ok daicho ls --json --ledger "$TEST_ROOT/second.db"
	[ "$(jq -r '.[0].title' <<<"$output")" = "in second" ]
}

@test "--as wins over DAICHO_AGENT, which wins over session variables" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	daicho add c >/dev/null
	DAICHO_AGENT=envname ok daicho claim 1 --as flagname
	[ "$(task_field 1 owner)" = flagname ]
	DAICHO_AGENT=envname CODEX_THREAD_ID=thread-1234567890 ok daicho claim 2
	[ "$(task_field 2 owner)" = envname ]
	CODEX_THREAD_ID=thread-1234567890 GEMINI_SESSION_ID=gem-123456789 ok daicho claim 3
	owner="$(task_field 3 owner)"
	[ "$owner" != envname ]
	[ "$owner" != "$(id -un)" ]
	CODEX_THREAD_ID=thread-1234567890 ok daicho ls --mine --json
	[ "$(jq -c '[.[].id]' <<<"$output")" = "[3]" ]
}

@test "GEMINI_SESSION_ID binds one agent per session" {
	daicho add a >/dev/null
	GEMINI_SESSION_ID=5d0b7f1e-aaaa-4aaa-8aaa-aaaaaaaaaaaa ok daicho claim 1
	GEMINI_SESSION_ID=5d0b7f1e-aaaa-4aaa-8aaa-aaaaaaaaaaaa ok daicho claim 1
	GEMINI_SESSION_ID=9c41e2a0-bbbb-4bbb-8bbb-bbbbbbbbbbbb refused 4 daicho claim 1
	stderr_contains "$(task_field 1 owner)"
}

# Session ids often share a prefix: UUIDv7 ids (time-ordered) of sessions
# started within a minute share their first 8 hex digits. Distinct sessions
# must still be distinct agents, or one could report another's claim.
@test "two sessions whose ids share the first 8 characters are two agents" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	daicho add c >/dev/null
	CODEX_THREAD_ID=0192f0c4-7a1e-7cc0-9a5e-111111111111 ok daicho claim 1
	CODEX_THREAD_ID=0192f0c4-7b2f-7dd0-8b6f-222222222222 refused 4 daicho claim 1
	CODEX_THREAD_ID=0192f0c4-7b2f-7dd0-8b6f-222222222222 refused 4 daicho report 1
	CLAUDE_CODE_SESSION_ID=abcdef01-0000-4000-8000-000000000001 ok daicho claim 2
	CLAUDE_CODE_SESSION_ID=abcdef01-0000-4000-8000-000000000002 refused 4 daicho claim 2
	CLAUDE_CODE_SESSION_ID=abcdef01-0000-4000-8000-000000000002 ok daicho claim 3
	[ "$(task_field 2 owner)" != "$(task_field 3 owner)" ]
	[ "$(sql "SELECT count(DISTINCT session_id) FROM agents WHERE session_id IS NOT NULL")" = 3 ]
}

@test "-C DIR runs as if started in DIR (relative paths too)" {
	mkdir -p "$TEST_ROOT/sub"
	printf 'relative body' >"$TEST_ROOT/sub/body.txt"
	cd /
	ok daicho -C "$TEST_ROOT/sub" add t --body-file body.txt
	id="$output"
	[ "$(daicho prompt "$id")" = "relative body" ]
	cd "$TEST_ROOT"
	ok daicho add u --body-file body.txt -C sub
	[ "$(daicho prompt "$output")" = "relative body" ]
}

@test "-C to a directory that does not exist: one error line, non-zero" {
	capture daicho -C "$TEST_ROOT/nope" ls
	[ "$status" -ne 0 ]
	[ -z "$output" ]
	assert_one_error_line
	stderr_contains nope
}

@test "errors are exactly one line on stderr starting 'daicho: ', with stdout empty" {
	daicho add a >/dev/null
	daicho claim 1 --as w1 >/dev/null
	local cmds=(
		"show 99" "show x" "claim 1 --as w2" "claim --next --as w2" "add ''"
		"add x --after 99" "add x --touches /abs" "ls --state bad" "events --since bad"
		"graph --format bad" "release 1 --as w2" "report 1 --as w2" "result 1"
		"prompt 99" "block 1 --as w1" "cancel 99" "log x" "claim 1 --lease 5x --as w2"
	)
	local c
	for c in "${cmds[@]}"; do
		eval "capture daicho $c"
		[ "$status" -ne 0 ] || fail "'daicho $c' succeeded"
		[ -z "$output" ] || fail "'daicho $c' wrote to stdout: $output"
		assert_one_error_line
	done
}

@test "a failure to write stdout is an error: ls > /dev/full" {
	[ -w /dev/full ] || skip "no /dev/full"
	for t in $(seq 1 50); do echo "{\"title\":\"task $t\"}"; done | daicho add --batch - >/dev/null
	capture bash -c 'daicho ls > /dev/full'
	[ "$status" -ne 0 ] || fail "ls > /dev/full exited 0"
	assert_one_error_line
	capture bash -c 'daicho ls --json > /dev/full'
	[ "$status" -ne 0 ]
	assert_one_error_line
	capture bash -c 'daicho show 1 > /dev/full'
	[ "$status" -ne 0 ]
	assert_one_error_line
	capture bash -c 'daicho events > /dev/full'
	[ "$status" -ne 0 ]
	assert_one_error_line
}

@test "a failure to write stdout is an error: prompt and result > /dev/full" {
	[ -w /dev/full ] || skip "no /dev/full"
	daicho add t --body "a short prompt" >/dev/null
	daicho claim 1 --as w1 >/dev/null
	echo "r" | daicho save 1 --as w1
	capture bash -c 'daicho prompt 1 > /dev/full'
	[ "$status" -ne 0 ]
	assert_one_error_line
	capture bash -c 'daicho result 1 > /dev/full'
	[ "$status" -ne 0 ]
	assert_one_error_line
	capture bash -c 'daicho help > /dev/full'
	[ "$status" -ne 0 ]
}

@test "closed stdout or stderr: output fails, nothing lands in the ledger or its lock" {
	daicho add t >/dev/null
	capture bash -c 'daicho ls >&-'
	[ "$status" -eq 1 ] || fail "ls >&- exited $status"
	stderr_contains "cannot write output"
	capture bash -c 'daicho add u >&-'
	[ "$status" -eq 1 ] || fail "add >&- exited $status"
	capture bash -c 'daicho show 99 2>&-'
	[ "$status" -eq 3 ]
	capture bash -c 'daicho ls >&- 2>&- <&-'
	[ "$status" -eq 1 ]
	backend_is_postgresql || [ "$(sql 'PRAGMA integrity_check')" = ok ]
	[ "$(sql_joined , 'SELECT title FROM tasks ORDER BY id')" = "t,u" ]
	# SQLite's -lock file holds nothing but its fixed size.
	backend_is_postgresql || [ "$(stat -c %s "$DAICHO_LEDGER-lock")" = 8192 ]
}

@test "NO_COLOR and a pipe: no escape sequences in output" {
	daicho add a >/dev/null
	ok daicho ls
	refute_output --partial $'\e['
	ok daicho show 1
	refute_output --partial $'\e['
}

@test "help --completion: bash, zsh and fish scripts generated from the command table, which complete commands and options" {
	ok daicho help --completion bash
	printf '%s\n' "$output" >"$TEST_ROOT/daicho.bash"
	bash -n "$TEST_ROOT/daicho.bash"
	run bash -c 'source "$1"
		complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _daicho; echo "${COMPREPLY[*]}"; }
		complete_words daicho cl
		complete_words daicho claim --max
		complete_words daicho agent s
		complete_words daicho --as w1 gate add --appr' _ "$TEST_ROOT/daicho.bash"
	assert_line --index 0 'claim'
	assert_line --index 1 '--max-hold'
	assert_line --index 2 'start'
	assert_line --index 3 '--approval'
	# Every command of the table is offered first.
	run bash -c 'source "$1"; COMP_WORDS=(daicho ""); COMP_CWORD=1; _daicho; printf "%s\n" "${COMPREPLY[@]}"' _ "$TEST_ROOT/daicho.bash"
	for c in init add ls claim report sweep edit reopen unblock config agent gate; do
		assert_line "$c"
	done
	# Values from the ledger: task ids where a task is named, states,
	# labels, agent names.
	daicho add one --label ui >/dev/null
	daicho add two --label api >/dev/null
	daicho ls --as w7 >/dev/null
	run bash -c 'source "$1"
		complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _daicho; echo "${COMPREPLY[*]}"; }
		complete_words daicho show ""
		complete_words daicho ls --state cl
		complete_words daicho ls --label ""
		complete_words daicho ls --owner w
		complete_words daicho edit 2 --after ""
		complete_words daicho approve ""' _ "$TEST_ROOT/daicho.bash"
	assert_line --index 0 --regexp ' 1 2$'
	assert_line --index 1 'claimed'
	assert_line --index 2 'api ui'
	assert_line --index 3 'w7'
	assert_line --index 4 '1 2'
	# approve's ID is a request's: no task ids offered.
	[[ "${lines[5]}" == *--ttl* && "${lines[5]}" != *' 1 2'* ]] || fail "approve: ${lines[5]}"
	ok daicho help --completion zsh
	assert_line --index 0 '#compdef daicho'
	ok daicho help --completion fish
	assert_line "complete -c daicho -n '__fish_use_subcommand' -a claim"
	assert_line "complete -c daicho -n '__fish_seen_subcommand_from claim' -l max-hold -r"
	refused 2 daicho help --completion tcsh
	refused 2 daicho help --completion
}

# mutant: a set-but-empty variable read as unset (the person): a worker
# that blanks DAICHO_AGENT out edits, cancels and configures as the person.
@test "an agent's identity variable set but empty is refused for every command (exit 6), not taken for the person" {
	daicho add t >/dev/null
	local v
	for v in DAICHO_AGENT CLAUDE_CODE_SESSION_ID CLAUDECODE CLAUDE_CODE_CHILD_SESSION CODEX_THREAD_ID CODEX_SANDBOX GEMINI_SESSION_ID GEMINI_CLI; do
		snapshot_ledger
		env "$v=" "$DAICHO_ROOT/daicho" config protect 'tests/**' >/dev/null 2>"$TEST_ROOT/err" &&
			fail "$v='': config was accepted"
		[ "$(cat "$TEST_ROOT/err")" = "daicho: \$$v is set but empty: an agent's identity blanked out is not a person (a person unsets it in their own shell: unset $v)" ] ||
			fail "$v: $(cat "$TEST_ROOT/err")"
		capture env "$v=" "$DAICHO_ROOT/daicho" edit 1 --title mine
		assert_refused 6
		capture env "$v=" "$DAICHO_ROOT/daicho" ls
		assert_refused 6
		assert_ledger_unchanged
	done
	# Control: unset, the person's own shell.
	ok daicho edit 1 --title ours
}
