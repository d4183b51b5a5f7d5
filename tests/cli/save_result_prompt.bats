#!/usr/bin/env bats
# daicho prompt, save and result.

load helpers

T0=1800000000000

setup() {
	common_setup
	export DAICHO_NOW_MS=$T0
	printf 'Write a haiku.\nNo newline at the end' | daicho add "haiku" --body-file - >/dev/null # 1
	daicho add "other" >/dev/null                                                            # 2
	daicho claim 1 --as w1 >/dev/null
	register_agent w2
}

@test "prompt prints the body raw, adding no newline" {
	daicho prompt 1 >"$TEST_ROOT/out"
	printf 'Write a haiku.\nNo newline at the end' | cmp - "$TEST_ROOT/out"
	# anyone may read a prompt
	daicho prompt 1 --as w2 | cmp - "$TEST_ROOT/out"
	daicho prompt T1 | cmp - "$TEST_ROOT/out"
}

@test "prompt of a task with no body prints nothing" {
	ok daicho prompt 2
	assert_output ""
}

@test "prompt: unknown id 3, bad id 2, missing id 2" {
	refused 3 daicho prompt 99
	refused 2 daicho prompt abc
	refused 2 daicho prompt
	refused 2 daicho prompt 1 2
}

@test "save from stdin; result prints it back byte for byte; save prints nothing" {
	printf 'result\0with NUL\xff\xfe and no newline' >"$TEST_ROOT/res"
	capture daicho save 1 --as w1 <"$TEST_ROOT/res"
	assert_success
	assert_output ""
	[ -z "$stderr" ]
	daicho result 1 >"$TEST_ROOT/out"
	cmp "$TEST_ROOT/res" "$TEST_ROOT/out"
	ok daicho show --json 1
	[ "$(jq -r .saves <<<"$output")" = 1 ]
	[ "$(jq -r .result_bytes <<<"$output")" = "$(wc -c <"$TEST_ROOT/res")" ]
	[ "$(jq -r .state <<<"$output")" = claimed ]
}

@test "save -f - and save with stdin closed: refused, nothing saved" {
	snapshot_ledger
	capture daicho save 1 --as w1 -f - <&-
	assert_refused 1
	stderr_contains "standard input is closed"
	capture daicho save 1 --as w1 <&-
	assert_refused 1
	stderr_contains "standard input is closed"
	assert_ledger_unchanged
	[ "$(sql 'SELECT count(*) FROM saves')" = 0 ]
}

@test "save -f FILE and save -f - (stdin); --file is the long form" {
	printf 'from a file\n' >"$TEST_ROOT/a"
	ok daicho save 1 --as w1 -f "$TEST_ROOT/a"
	daicho result 1 | cmp - "$TEST_ROOT/a"
	printf 'from stdin via -\n' >"$TEST_ROOT/b"
	capture daicho save 1 --as w1 -f - <"$TEST_ROOT/b"
	assert_success
	daicho result 1 | cmp - "$TEST_ROOT/b"
	printf 'long form\n' >"$TEST_ROOT/c"
	ok daicho save 1 --as w1 --file "$TEST_ROOT/c"
	daicho result 1 | cmp - "$TEST_ROOT/c"
}

@test "a 5 MB result round-trips" {
	head -c 5000000 /dev/urandom >"$TEST_ROOT/big"
	ok daicho save 1 --as w1 -f "$TEST_ROOT/big"
	[ "$(daicho result 1 | sha256sum)" = "$(sha256sum <"$TEST_ROOT/big")" ]
}

@test "tokens, cost and model are recorded and visible in log and events" {
	echo r | daicho save 1 --as w1 --tokens-in 1200 --tokens-out 345 --cost 0.42 --model claude-x
	ok daicho log 1 --json
	save="$(jq -c '[.[] | select(.kind == "save")][0]' <<<"$output")"
	jq -e '.actor == "w1" and .task == 1 and .detail.tokens_in == 1200 and
		.detail.tokens_out == 345 and .detail.cost == 0.42 and .detail.model == "claude-x"' \
		<<<"$save" >/dev/null || fail "save event: $save"
	ok daicho events --json
	jq -e '[.[] | select(.kind == "save" and .detail.model == "claude-x")] | length == 1' <<<"$output" >/dev/null
	ok daicho log 1
	assert_output --partial claude-x
	assert_output --partial 1200
	[ "$(sql 'SELECT tokens_in, tokens_out, cost, model FROM saves')" = "1200|345|0.42|claude-x" ]
}

@test "a second save replaces the first for result; log shows both saves" {
	printf 'first' | daicho save 1 --as w1 --model m1
	printf 'second, longer' | daicho save 1 --as w1 --model m2
	ok daicho result 1
	assert_output "second, longer"
	ok daicho show --json 1
	[ "$(jq -r .saves <<<"$output")" = 2 ]
	[ "$(jq -r .result_bytes <<<"$output")" = 14 ]
	ok daicho log 1 --json
	[ "$(jq -r '[.[] | select(.kind == "save") | .detail.model] | join(",")' <<<"$output")" = "m1,m2" ]
	[ "$(sql 'SELECT count(*) FROM saves WHERE task = 1')" = 2 ]
	[ "$(sql "SELECT $(sql_text result) FROM saves WHERE task = 1 ORDER BY id LIMIT 1")" = first ]
}

@test "save by a non-holder: exit 4 naming the holder, ledger unchanged" {
	snapshot_ledger
	capture daicho save 1 --as w2 <<<"not mine"
	assert_refused 4
	stderr_contains w1
	capture daicho save 1 <<<"human, not holder"
	assert_refused 4
	assert_ledger_unchanged
	refused 3 daicho result 1
}

@test "save on a task that is not claimed (open, reported): exit 4, ledger unchanged" {
	daicho claim 2 --as w1 >/dev/null
	daicho report 2 --as w1
	daicho add open-one >/dev/null
	snapshot_ledger
	capture daicho save 2 --as w1 <<<"too late"
	assert_refused 4
	capture daicho save 3 --as w1 <<<"not claimed"
	assert_refused 4
	assert_ledger_unchanged
}

@test "save with an expired lease that someone else took: exit 4" {
	daicho add short >/dev/null # 3
	daicho claim 3 --as w1 --lease 1s >/dev/null
	export DAICHO_NOW_MS=$((T0 + 5000))
	daicho claim 3 --as w2 >/dev/null
	capture daicho save 3 --as w1 <<<"stale worker"
	assert_refused 4
	stderr_contains w2
}

@test "save: bad usage numbers, unknown flag, missing value: exit 2, ledger unchanged" {
	snapshot_ledger
	for args in "--tokens-in x" "--tokens-in -1" "--tokens-out 1.5" "--cost abc" \
		"--cost -1" "--bogus" "--tokens-in" "--model" "-f"; do
		# shellcheck disable=SC2086
		capture daicho save 1 --as w1 $args <<<"x"
		assert_refused 2
	done
	capture daicho save --as w1 <<<"x"
	assert_refused 2
	capture daicho save abc --as w1 <<<"x"
	assert_refused 2
	assert_ledger_unchanged
}

@test "save of an unknown task: exit 3; from an unreadable file: error, ledger unchanged" {
	snapshot_ledger
	capture daicho save 99 --as w1 <<<"x"
	assert_refused 3
	capture daicho save 1 --as w1 -f "$TEST_ROOT/missing"
	[ "$status" -ne 0 ]
	[ -z "$output" ]
	assert_one_error_line
	assert_ledger_unchanged
}

@test "result: no save yet exit 3; unknown id 3; bad id 2" {
	refused 3 daicho result 1
	stderr_contains "no result"
	refused 3 daicho result 2
	refused 3 daicho result 99
	refused 2 daicho result abc
	refused 2 daicho result
}

@test "result stays readable after report, by anyone" {
	printf 'kept' | daicho save 1 --as w1
	daicho report 1 --as w1
	ok daicho result 1 --as w2
	assert_output kept
	ok daicho result 1
	assert_output kept
}

@test "prompt and result --json: the bytes as a string, or base64 when not UTF-8 text" {
	text=$(printf 'line one\nline two' | daicho add "Text" --body-file -)
	binary=$(printf 'a\000b\377' | daicho add "Binary" --body-file -)
	run --separate-stderr daicho prompt "$text" --json
	assert_success
	assert_output "{\"id\":$text,\"bytes\":17,\"body\":\"line one\\nline two\"}"
	run --separate-stderr daicho prompt "$binary" --json
	assert_success
	assert_output "{\"id\":$binary,\"bytes\":4,\"body_base64\":\"YQBi/w==\"}"
	daicho --as w1 claim "$text" >/dev/null
	printf 'r\303\251sultat' | daicho --as w1 save "$text"
	run --separate-stderr daicho result "$text" --json
	assert_success
	assert_output "{\"id\":$text,\"bytes\":9,\"result\":\"résultat\"}"
}
