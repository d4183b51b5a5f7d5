#!/usr/bin/env bats
# tests/lint-tests, which make check runs first: it must catch each form
# of an assertion that cannot fail, and pass the same lines written so
# that they can.

load helpers

setup() {
	any_backend "it reads the test files, not a ledger"
	common_setup
	LINT="$DAICHO_ROOT/tests/lint-tests"
}

# lint_file NAME BODY: a test file NAME holding one test with BODY, which
# loads a helper that sets pipefail (unless NAME says nopipe).
lint_file() {
	{
		[ "${1#nopipe}" != "$1" ] || printf 'set -o pipefail\n'
		printf '@test "t" {\n%s\n}\n' "$2"
	} >"$TEST_ROOT/$1.bats"
}

@test "lint-tests: a negated command mid-test is refused; at the end, or with || fail, it passes" {
	lint_file bad $'\t! daicho show 1\n\ttrue'
	run "$LINT" "$TEST_ROOT/bad.bats"
	[ "$status" -eq 1 ] || fail "passed: $output"
	[[ "$output" == *"bad.bats:3: a negated command in the middle of a body cannot fail the test"* ]] || fail "$output"
	lint_file last $'\ttrue\n\t! daicho show 1'
	lint_file failed $'\t! daicho show 1 ||\n\t\tfail "shown"\n\ttrue'
	run "$LINT" "$TEST_ROOT/last.bats" "$TEST_ROOT/failed.bats"
	[ "$status" -eq 0 ] || fail "$output"
}

@test "lint-tests: A && B of two assertions mid-test is refused; a guard (A && action), a last line or || fail passes" {
	lint_file bad $'\t[ "$a" = 1 ] && [ -f x ]\n\ttrue'
	run "$LINT" "$TEST_ROOT/bad.bats"
	[ "$status" -eq 1 ] || fail "passed: $output"
	[[ "$output" == *"bad.bats:3: in A && B only B can fail the test"* ]] || fail "$output"
	lint_file grep $'\t[ -s f ] && grep -q x f\n\ttrue'
	run "$LINT" "$TEST_ROOT/grep.bats"
	[ "$status" -eq 1 ] || fail "passed: $output"
	lint_file guard $'\t[ -n "$pid" ] && kill "$pid"\n\ttrue'
	lint_file last $'\ttrue\n\t[ "$a" = 1 ] && [ -f x ]'
	lint_file failed $'\t[ "$a" = 1 ] && [ -f x ] || fail "no"\n\ttrue'
	run "$LINT" "$TEST_ROOT/guard.bats" "$TEST_ROOT/last.bats" "$TEST_ROOT/failed.bats"
	[ "$status" -eq 0 ] || fail "$output"
}

@test "lint-tests: lines in a heredoc are data; a helper function's body is judged too" {
	lint_file doc $'\tcat <<-EOF\n\t\t! not a command\n\tEOF\n\ttrue'
	run "$LINT" "$TEST_ROOT/doc.bats"
	[ "$status" -eq 0 ] || fail "$output"
	printf 'set -o pipefail\nhelper() {\n\t! grep -q x f\n\ttrue\n}\n' >"$TEST_ROOT/h.bats"
	run "$LINT" "$TEST_ROOT/h.bats"
	[ "$status" -eq 1 ] || fail "passed: $output"
}

@test "lint-tests: a test file that sets no pipefail, itself or through what it loads, is refused" {
	lint_file nopipe $'\ttrue'
	run "$LINT" "$TEST_ROOT/nopipe.bats"
	[ "$status" -eq 1 ] || fail "passed: $output"
	[[ "$output" == *"nopipe.bats: does not set pipefail"* ]] || fail "$output"
	# Through a helper it loads (and the helper's own source line).
	printf 'source "$X/lib.bash"\n' >"$TEST_ROOT/helpers.bash"
	printf 'set -o pipefail\n' >"$TEST_ROOT/lib.bash"
	printf 'load helpers\n@test "t" {\n\ttrue\n}\n' >"$TEST_ROOT/loads.bats"
	run "$LINT" "$TEST_ROOT/loads.bats"
	[ "$status" -eq 0 ] || fail "$output"
}

@test "lint-tests: every test file in the tree passes (make check runs it first)" {
	run "$LINT"
	[ "$status" -eq 0 ] || fail "$output"
}

@test "lint-tests: '|| true' is no assertion; other function forms, comments, here-strings and shifts do not hide a body; set -euo pipefail counts" {
	# (printf, not a heredoc: bats would read an @test line inside one.)
	printf '%s\n' 'set -euo pipefail' 'helper () {' '	! grep -q x f || true' '	true' '}' \
		'function other {' '	x=$((1 << 3))' '	! grep -q y f' '	true' '}' \
		'@''test "t" {' '	# a comment with <<EOF in it' '	cat <<<"word"' '	! grep -q z f' '	true' '}' \
		>"$TEST_ROOT/forms.bats"
	run "$LINT" "$TEST_ROOT/forms.bats"
	[ "$status" -eq 1 ] || fail "passed: $output"
	[ "${#lines[@]}" -eq 3 ] || fail "$output"
	[[ "${lines[0]}" == *"forms.bats:3: a negated command"* && "${lines[1]}" == *"forms.bats:8:"* &&
		"${lines[2]}" == *"forms.bats:14:"* ]] || fail "$output"
}
