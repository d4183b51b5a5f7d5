#!/usr/bin/env bats
# Text a command keeps must be UTF-8, and an error repeats at most a
# readable part of what it was given (issue 30, item 8). Before, invalid
# UTF-8 in a file: path or a --note was stored and then silently dropped
# from --json, and errors echoed 10-100 KB of input, or a raw newline.

load helpers

setup() {
	common_setup
	daicho init >/dev/null
	daicho add first >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	BAD=$'a\xffb'          # not UTF-8 at all
	SURROGATE=$'\xed\xa0\x80' # U+D800: what JSON refuses
	OVERLONG=$'\xc0\xaf'     # '/' in two bytes
}

# mutant: cmd_check_text() not called (or utf8_valid() as lenient as the
# old check, passing surrogates): each is stored, and --json drops it.
@test "every option value and argument that daicho keeps as text is refused when it is not UTF-8: exit 2, one line naming it, nothing kept" {
	local bad n=0
	for bad in "$BAD" "$SURROGATE" "$OVERLONG"; do
		snapshot_ledger
		refused 2 daicho report 1 --as w1 --note "$bad"
		stderr_contains "the value of --note is not UTF-8 text"
		refused 2 daicho add t --done-when "file:out$bad.txt"
		stderr_contains "the value of --done-when is not UTF-8 text"
		refused 2 daicho add "title $bad"
		stderr_contains "argument 1 of add is not UTF-8 text"
		refused 2 daicho add t --touches "src/$bad/**"
		refused 2 daicho add t --label "l$bad"
		refused 2 daicho block 1 --as w1 --reason "stuck $bad"
		refused 2 daicho send w1 "hello $bad"
		refused 2 daicho edit 1 --title "t$bad"
		refused 2 person daicho config protect "tests/$bad"
		assert_ledger_unchanged
		n=$((n + 1))
	done
	[ "$n" = 3 ]
	# Control: the same with UTF-8 text (not ASCII) is kept, and --json has it.
	ok daicho add "título ☃" --done-when "file:sortie-é.txt"
	[ "$(daicho show --json 2 | jq -r '.title, .done_when[0]')" = $'título ☃\nfile:sortie-é.txt' ]
}

# mutant: a FILE option checked as text: a file whose name is not UTF-8
# could not be read.
@test "a file named in bytes that are not UTF-8 is still read (--body-file); only text is checked" {
	printf 'the prompt\n' >"$TEST_ROOT/p$BAD.md"
	ok daicho add t --body-file "$TEST_ROOT/p$BAD.md"
	[ "$(daicho prompt 2)" = "the prompt" ]
}

# mutant: err_line() not used where the error is printed (main, MCP): the
# whole input comes back, 50 KB of it.
@test "an error repeats at most a readable start of a long input, with its length, in one line" {
	local big
	big="$(printf 'A%.0s' $(seq 50000))"
	for cmd in "$big" "show $big" "add t --touches [$big" "add t --done-when file:/$big" \
		"add t --check-timeout $big" "ls --state $big" "add t --$big" \
		"send $big hi" "add t --done-when bogus$big" "config $big x"; do
		# shellcheck disable=SC2086 # the words are the command line
		capture person daicho $cmd
		[ "$status" -ne 0 ] || fail "'${cmd:0:40}...' succeeded"
		assert_one_error_line
		[ "${#stderr}" -le 1100 ] || fail "'${cmd:0:40}...': ${#stderr} bytes on stderr"
		[[ "$stderr" == *"... ("*" bytes)"* ]] || fail "'${cmd:0:40}...': no cut: ${stderr:0:200}"
	done
	# A short input is shown whole.
	refused 2 daicho ls --state nosuch
	stderr_contains "unknown state 'nosuch'"
}

# mutant: control characters passed through to the terminal.
@test "a newline or another control character in an echoed input is shown as '?': the error stays one line" {
	refused 2 daicho ls --state $'open\nclaimed'
	stderr_contains "unknown state 'open?claimed'"
	refused 2 daicho ls --state $'x\e[31mred'
	stderr_contains "'x?[31mred'"
}

# mutant: buf_add_oneline() passing invisible characters through: a person
# reads "deploy staging" where the text is "deploy \u202egnigats".
@test "bidirectional overrides and other invisible characters are shown as [U+XXXX] in ls, show, status and approvals; --json keeps the text" {
	local rlo=$'\u202e' zw=$'\u200b'
	ok daicho add "deploy ${rlo}gnigats"
	ok daicho add "rm${zw} -rf"
	run daicho ls
	assert_output --partial "deploy [U+202E]gnigats"
	assert_output --partial "rm[U+200B] -rf"
	run daicho show 2
	assert_output --partial "deploy [U+202E]gnigats"
	run daicho status
	assert_output --partial "[U+202E]"
	[ "$(daicho show --json 2 | jq -r .title)" = "deploy ${rlo}gnigats" ]
	# An approval request for such a command.
	on_pty daicho gate add 'deploy *' --approval
	[ "$status" -eq 0 ] || fail "gate add: $output"
	run daicho --as w1 gate exec -- deploy "${rlo}gnigats"
	[ "$status" -eq 6 ] || fail "expected a pending request: $output"
	run daicho approvals
	assert_output --partial "deploy '[U+202E]gnigats'"
	refute_output --partial "${rlo}"
}
