#!/usr/bin/env bats
# daicho ls: filters, JSON fields, and --ready == what claim --next takes.

load helpers

ids() {
	jq -c '[.[].id]'
}

@test "ls on an empty ledger: nothing in the table, [] in JSON" {
	ok daicho ls --json
	[ "$(jq -c . <<<"$output")" = "[]" ]
	ok daicho ls
	refute_output --partial "#"
}

@test "ls lists every task in id order, with id, state and title" {
	daicho add "first" >/dev/null
	daicho add "second" --priority 9 >/dev/null
	daicho add "third" >/dev/null
	ok daicho ls
	assert_output --partial "#1"
	assert_output --partial "first"
	assert_output --partial "second"
	assert_output --partial "open"
	ok daicho ls --json
	[ "$(ids <<<"$output")" = "[1,2,3]" ]
}

@test "ls says what an open task that is not ready waits on (AFTER); show names the tasks after it" {
	daicho add a >/dev/null
	daicho add b --after 1 >/dev/null
	daicho add c --after 1,2 >/dev/null
	ok daicho ls
	assert_line --index 0 --regexp '^ID +STATE +PRI +OWNER +AFTER +TITLE$'
	assert_line --index 1 --regexp '^#1 +open +0 +- +- +a$'
	assert_line --index 2 --regexp '^#2 +open +0 +- +#1 +b$'
	assert_line --index 3 --regexp '^#3 +open +0 +- +#1,#2 +c$'
	# A task it comes after that is cancelled still holds it; one that is
	# done does not.
	person daicho cancel 2 >/dev/null
	ok daicho ls --state open
	assert_line --index 2 --regexp '^#3 +open +0 +- +#1,#2 +c$'
	ok daicho show 1
	assert_line 'before      #2 (cancelled), #3 (open)'
	ok daicho show 3
	assert_line 'after       #1, #2 (2 not done yet)'
	ok daicho show 3
	refute_line --partial 'before'
}

@test "ls --json carries every documented field with the documented types" {
	daicho add parent >/dev/null
	printf 'body!' | daicho add "child" --body-file - --after 1 --touches 'src/*' \
		--done-when saved --priority 4 --label L --max-attempts 2 --parent 1 >/dev/null
	ok daicho ls --json
	obj="$(jq -c '.[1]' <<<"$output")"
	assert_has_fields "$TASK_FIELDS" "$obj"
	jq -e '
		(.id == 2) and (.title == "child") and (.state == "open") and
		(.priority == 4) and (.parent == 1) and (.owner == null) and
		(.lease_expires_ms == null) and (.attempts == 0) and
		(.max_attempts == 2) and (.after == [1]) and (.unmet_after == 1) and
		(.labels == ["L"]) and (.touches == ["src/*"]) and
		(.done_when == ["saved"]) and (.body_bytes == 5) and (.saves == 0) and
		(.result_bytes == null) and (.commit == null) and (.note == null) and
		(.block_reason == null) and (.created_ms | type == "number") and
		(.updated_ms | type == "number")' <<<"$obj" >/dev/null || fail "unexpected values: $obj"
	# The body itself is never in a listing.
	refute_output --partial "body!"
}

@test "ls --json shows owner and lease of a claimed task" {
	daicho add t >/dev/null
	DAICHO_NOW_MS=1800000000000 daicho claim 1 --as w1 --lease 10m >/dev/null
	ok daicho ls --json
	[ "$(jq -r '.[0].owner' <<<"$output")" = w1 ]
	[ "$(jq -r '.[0].state' <<<"$output")" = claimed ]
	[ "$(jq -r '.[0].lease_expires_ms' <<<"$output")" = 1800000600000 ]
	[ "$(jq -r '.[0].attempts' <<<"$output")" = 1 ]
}

@test "ls --state filters by state" {
	for t in a b c d e; do daicho add "$t" >/dev/null; done
	daicho claim 1 --as w1 >/dev/null
	daicho claim 2 --as w1 >/dev/null
	daicho report 2 --as w1
	daicho claim 3 --as w1 >/dev/null
	daicho block 3 --reason "needs a key" --as w1
	person daicho cancel 4
	for pair in open:5 claimed:1 reported:2 blocked:3 cancelled:4; do
		ok daicho ls --state "${pair%%:*}" --json
		[ "$(ids <<<"$output")" = "[${pair#*:}]" ] || fail "state ${pair%%:*}: $output"
	done
	ok daicho ls --state verified --json
	[ "$(ids <<<"$output")" = "[]" ]
	ok daicho ls --state failed --json
	[ "$(ids <<<"$output")" = "[]" ]
}

@test "ls --mine lists only the caller's tasks" {
	for t in a b c d; do daicho add "$t" >/dev/null; done
	daicho claim 1 --as w1 >/dev/null
	daicho claim 3 --as w1 >/dev/null
	daicho claim 2 --as w2 >/dev/null
	ok daicho ls --mine --json --as w1
	[ "$(ids <<<"$output")" = "[1,3]" ]
	DAICHO_AGENT=w2 ok daicho ls --mine --json
	[ "$(ids <<<"$output")" = "[2]" ]
	ok daicho ls --mine --json --as w3
	[ "$(ids <<<"$output")" = "[]" ]
	ok daicho ls --mine --json
	[ "$(ids <<<"$output")" = "[]" ]
}

@test "ls --label filters by label" {
	daicho add a --label x >/dev/null
	daicho add b --label y >/dev/null
	daicho add c --label x --label y >/dev/null
	ok daicho ls --label x --json
	[ "$(ids <<<"$output")" = "[1,3]" ]
	ok daicho ls --label y --json
	[ "$(ids <<<"$output")" = "[2,3]" ]
	ok daicho ls --label z --json
	[ "$(ids <<<"$output")" = "[]" ]
}

@test "ls --limit N keeps the first N" {
	for t in a b c d e; do daicho add "$t" >/dev/null; done
	ok daicho ls --limit 2 --json
	[ "$(ids <<<"$output")" = "[1,2]" ]
	ok daicho ls --limit 100 --json
	[ "$(ids <<<"$output")" = "[1,2,3,4,5]" ]
	ok daicho ls --limit 1 --state open --label nothing --json
	[ "$(ids <<<"$output")" = "[]" ]
}

@test "ls filters combine" {
	daicho add a --label x >/dev/null
	daicho add b --label x >/dev/null
	daicho add c --label y >/dev/null
	daicho claim 2 --as w1 >/dev/null
	ok daicho ls --state open --label x --json
	[ "$(ids <<<"$output")" = "[1]" ]
	ok daicho ls --mine --label x --json --as w1
	[ "$(ids <<<"$output")" = "[2]" ]
	ok daicho ls --ready --label x --json
	[ "$(ids <<<"$output")" = "[1]" ]
}

# The same ledger drives both sides of the comparison: tasks with
# priorities, ages, unmet dependencies (on a merely reported task), a
# cancelled task, touches overlapping a live claim, and an expired claim.
@test "ls --ready is exactly what successive claim --next calls take, in order" {
	export DAICHO_NOW_MS=1800000000000
	daicho add "t1 p0 oldest" >/dev/null                          # 1
	daicho add "t2 p5" --priority 5 >/dev/null                    # 2
	daicho add "t3 p5 newer" --priority 5 >/dev/null              # 3
	daicho add "t4 p9 after t1" --priority 9 --after 1 >/dev/null # 4
	daicho add "t5 p3 src/a/*" --priority 3 --touches 'src/a/*' >/dev/null
	daicho add "t6 p4 src/**" --priority 4 --touches 'src/**' >/dev/null
	daicho add "t7 p1" --priority 1 >/dev/null                    # 7
	daicho add "t8 p10 cancelled" --priority 10 >/dev/null        # 8
	daicho add "t9 p8 placeholder" --priority 8 >/dev/null        # 9
	daicho add "t10 reported" --priority 20 >/dev/null            # 10
	daicho add "t11 p8 after t10" --priority 8 --after 10 >/dev/null # 11
	daicho add "t12 p2 expired claim" --priority 2 >/dev/null     # 12
	daicho add "t13 p7 live claim lib/x" --priority 7 --touches 'lib/x' >/dev/null # 13
	daicho add "t14 p6 lib/*" --priority 6 --touches 'lib/*' >/dev/null # 14
	# Last: on PostgreSQL a refused add still spends an id of the sequence.
	daicho add "after a future t15" --priority 8 --after 15 2>/dev/null && fail "after a future id was accepted"
	person daicho cancel 8
	person daicho cancel 9
	daicho claim 10 --as w0 >/dev/null
	daicho report 10 --as w0
	daicho claim 12 --as w0 --lease 1s >/dev/null
	daicho claim 13 --as w0 --lease 30m >/dev/null

	export DAICHO_NOW_MS=1800000010000 # 10 s later: t12's lease has expired
	ok daicho ls --ready --json
	[ "$(ids <<<"$output")" = "[2,3,6,5,12,7,1]" ] || fail "ls --ready: $(ids <<<"$output")"

	# Now drain: each claim --next must take the first of ls --ready.
	local n=0 taken=() expect
	while :; do
		n=$((n + 1))
		expect="$(daicho ls --ready --json | jq -r '.[0].id // empty')"
		capture daicho claim --next --as "c$n"
		if [ -z "$expect" ]; then
			assert_refused 3
			break
		fi
		[ "$status" -eq 0 ] || fail "claim --next failed while ls --ready offered #$expect: $stderr"
		[ "$output" = "$expect" ] || fail "claim --next took #$output, ls --ready offered #$expect"
		taken+=("$output")
		[ "$n" -lt 20 ] || fail "claim --next never stopped"
	done
	# t5 (src/a/*) overlaps t6 (src/**), claimed just before it: skipped.
	[ "${taken[*]}" = "2 3 6 12 7 1" ] || fail "claims taken: ${taken[*]}"
	ok daicho ls --ready --json
	[ "$(ids <<<"$output")" = "[]" ]
}

@test "ls --ready --label matches claim --next --label" {
	daicho add a --label x >/dev/null
	daicho add b --label y --priority 3 >/dev/null
	daicho add c --label x --priority 2 >/dev/null
	ok daicho ls --ready --label x --json
	[ "$(ids <<<"$output")" = "[3,1]" ]
	ok daicho claim --next --label x --as w1
	assert_output 3
	ok daicho claim --next --label x --as w1
	assert_output 1
	refused 3 daicho claim --next --label x --as w1
	ok daicho ls --ready --label x --json
	[ "$(ids <<<"$output")" = "[]" ]
}

@test "ls refuses bad arguments with exit 2" {
	daicho add a >/dev/null
	refused 2 daicho ls --state nope
	stderr_contains nope
	refused 2 daicho ls --state
	refused 2 daicho ls --limit 0
	refused 2 daicho ls --limit x
	refused 2 daicho ls --limit -1
	refused 2 daicho ls --limit
	refused 2 daicho ls --label
	refused 2 daicho ls --ready --state open
	refused 2 daicho ls --bogus
	refused 2 daicho ls extra
}

@test "ls finds things: --owner, --text in title or body, --created-since, --updated-since; they combine" {
	export DAICHO_NOW_MS=1800000000000
	daicho add "Write the PARSER" --body "uses a lexer" >/dev/null
	daicho add "Docs" --body "mention the parser in the guide" >/dev/null
	export DAICHO_NOW_MS=1800000600000 # 10 minutes later
	daicho add "Unrelated" >/dev/null
	DAICHO_AGENT=w1 daicho claim 1 >/dev/null
	ok daicho ls --json --text parser
	[ "$(jq -c 'map(.id)' <<<"$output")" = '[1,2]' ] || fail "$output"
	ok daicho ls --json --text LEXER
	[ "$(jq -c 'map(.id)' <<<"$output")" = '[1]' ] || fail "$output"
	ok daicho ls --json --owner w1
	[ "$(jq -c 'map(.id)' <<<"$output")" = '[1]' ] || fail "$output"
	ok daicho ls --json --created-since 5m
	[ "$(jq -c 'map(.id)' <<<"$output")" = '[3]' ] || fail "$output"
	ok daicho ls --json --updated-since 5m
	[ "$(jq -c 'map(.id)' <<<"$output")" = '[1,3]' ] || fail "$output"
	ok daicho ls --json --updated-since 5m --text parser
	[ "$(jq -c 'map(.id)' <<<"$output")" = '[1]' ] || fail "$output"
	ok daicho ls --json --text 'no such words'
	assert_output '[]'
}

@test "ls: bad filter input is refused with exit 2" {
	refused 2 daicho ls --text ''
	refused 2 daicho ls --created-since 5x
	refused 2 daicho ls --ready --text x
	refused 2 daicho ls --ready --owner w1
}
