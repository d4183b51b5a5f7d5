#!/usr/bin/env bats
# daicho add and add --batch.

load helpers

setup() {
	common_setup
	# The first write by the human registers the human agent; do it here so
	# that the "ledger unchanged" comparisons only see what a command did.
	daicho add "seed" >/dev/null
}

@test "add TITLE prints only the bare id" {
	ok daicho add "Write the parser"
	assert_output 2
	ok daicho add "Another"
	assert_output 3
	ok daicho show --json 2
	jq -e '.title == "Write the parser" and .state == "open" and .priority == 0 and
		.max_attempts == 3 and .body_bytes == 0' <<<"$output" >/dev/null || fail "stored: $output"
}

@test "add --json prints {\"id\": N}" {
	ok daicho add "json" --json
	[ "$(jq -r .id <<<"$output")" = 2 ]
}

@test "add records an add event" {
	ok daicho add "evented"
	[ "$(sql "SELECT kind FROM events WHERE task = 2")" = add ]
}

@test "--body TEXT is the prompt" {
	ok daicho add t --body "do the thing"
	ok daicho prompt 2
	assert_output "do the thing"
}

@test "--body-file FILE is the prompt, byte for byte" {
	printf 'line one\nline two\n\n' >"$TEST_ROOT/body"
	ok daicho add t --body-file "$TEST_ROOT/body"
	daicho prompt 2 >"$TEST_ROOT/out"
	cmp "$TEST_ROOT/body" "$TEST_ROOT/out"
}

@test "--body-file - reads the prompt from stdin" {
	printf 'from stdin\n' >"$TEST_ROOT/body"
	capture daicho add t --body-file - <"$TEST_ROOT/body"
	assert_success
	assert_output 2
	daicho prompt 2 >"$TEST_ROOT/out"
	cmp "$TEST_ROOT/body" "$TEST_ROOT/out"
}

@test "--body-file - and --batch - with stdin closed: refused, nothing added" {
	snapshot_ledger
	capture daicho add t --body-file - <&-
	assert_refused 1
	stderr_contains "standard input is closed"
	capture daicho add --batch - <&-
	assert_refused 1
	stderr_contains "standard input is closed"
	assert_ledger_unchanged
}

@test "a 5 MB body piped on stdin round-trips" {
	head -c 5000000 /dev/urandom >"$TEST_ROOT/body"
	# a pipe, not a file, on stdin: reads come in pieces
	# shellcheck disable=SC2002
	id="$(cat "$TEST_ROOT/body" | daicho add t --body-file -)"
	[ "$id" = 2 ]
	[ "$(daicho prompt 2 | sha256sum)" = "$(sha256sum <"$TEST_ROOT/body")" ]
}

@test "a 50 MB body round-trips byte for byte through prompt" {
	head -c 52428800 /dev/urandom >"$TEST_ROOT/body"
	ok daicho add big --body-file "$TEST_ROOT/body"
	assert_output 2
	[ "$(sql 'SELECT length(body) FROM tasks WHERE id = 2')" = 52428800 ]
	[ "$(daicho prompt 2 | sha256sum)" = "$(sha256sum <"$TEST_ROOT/body")" ]
}

@test "a body with NUL bytes and invalid UTF-8 round-trips" {
	printf 'a\0b\0\0c\xff\xfe\xc3\x28\xed\xa0\x80 end\0' >"$TEST_ROOT/body"
	ok daicho add bin --body-file "$TEST_ROOT/body"
	daicho prompt 2 >"$TEST_ROOT/out"
	cmp "$TEST_ROOT/body" "$TEST_ROOT/out"
	[ "$(task_field 2 body_bytes)" = "$(wc -c <"$TEST_ROOT/body")" ]
}

@test "an empty body file gives an empty prompt" {
	: >"$TEST_ROOT/body"
	ok daicho add t --body-file "$TEST_ROOT/body"
	ok daicho prompt 2
	assert_output ""
}

# shellcheck disable=SC2016 # the titles must not expand
@test "titles with shell metacharacters and quotes are stored literally" {
	local titles=(
		'$(touch pwned)'
		'a; rm -rf /tmp/nothing'
		"it's"
		'say "hi"'
		'`id`'
		'*'
		'${HOME} & | > < \ %s %n'
		"mixed 'single' \"double\" \`tick\` \$(x) ; *"
		'日本語の台帳'
	)
	local t i=0
	for t in "${titles[@]}"; do
		ok daicho add "$t"
	done
	ok daicho ls --json
	mapfile -t got < <(jq -r '.[1:][].title' <<<"$output")
	for t in "${titles[@]}"; do
		[ "${got[$i]}" = "$t" ] || fail "title '$t' came back as '${got[$i]}'"
		i=$((i + 1))
	done
	[ "${#got[@]}" -eq "${#titles[@]}" ]
	# and one of them through show --json
	ok daicho show --json 9
	[ "$(jq -r .title <<<"$output")" = "${titles[7]}" ]
	[ ! -e "$TEST_ROOT/pwned" ]
	[ ! -e "$HOME/pwned" ]
}

@test "--after takes a comma list and can be repeated; ids as 12, #12, T12" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	daicho add c >/dev/null
	ok daicho add d --after 2,'#3' --after T4
	assert_output 5
	ok daicho show --json 5
	[ "$(jq -c .after <<<"$output")" = "[2,3,4]" ]
	[ "$(jq -r .unmet_after <<<"$output")" = 3 ]
	[ "$(sql_joined , 'SELECT after FROM deps WHERE task = 5 ORDER BY after')" = "2,3,4" ]
}

@test "--touches, --done-when, --priority, --label, --max-attempts, --parent are stored" {
	ok daicho add full --touches 'src/*.c' --touches 'docs/**' \
		--done-when saved --done-when 'cmd:make test' --done-when 'file:out/report.md' \
		--done-when commit --priority 7 --label alpha --label beta --max-attempts 5 --parent 1
	ok daicho show --json 2
	jq -e '(.touches | sort) == ["docs/**","src/*.c"] and
		.done_when == ["saved","cmd:make test","file:out/report.md","commit"] and
		.priority == 7 and (.labels | sort) == ["alpha","beta"] and
		.max_attempts == 5 and .parent == 1' <<<"$output" >/dev/null || fail "stored: $output"
}

@test "negative priority is accepted" {
	ok daicho add low --priority -3
	[ "$(task_field 2 priority)" = -3 ]
}

@test "--after an unknown id: exit 3, nothing added" {
	snapshot_ledger
	refused 3 daicho add t --after 99
	stderr_contains 99
	assert_ledger_unchanged
}

@test "--after a malformed id: exit 2, nothing added" {
	snapshot_ledger
	refused 2 daicho add t --after abc
	refused 2 daicho add t --after '#'
	refused 2 daicho add t --after 1x
	refused 2 daicho add t --after 99999999999999999999
	assert_ledger_unchanged
}

# An empty --after (say from an unset shell variable) must not silently add
# a task with no dependency: it would become ready at once.
@test "--after with an empty id: exit 2, nothing added" {
	daicho add other >/dev/null
	snapshot_ledger
	refused 2 daicho add t --after ''
	refused 2 daicho add t --after ,
	refused 2 daicho add t --after 1,,2
	assert_ledger_unchanged
}

@test "--after the id the new task would get: not found (exit 3), nothing added" {
	snapshot_ledger
	refused 3 daicho add t --after 2
	stderr_contains 2
	assert_ledger_unchanged
}

@test "bad --touches globs: exit 2, nothing added" {
	snapshot_ledger
	for g in '[abc' '/abs' '../x' 'a/../b' ''; do
		refused 2 daicho add t --touches "$g"
	done
	refused 2 daicho add t --touches 'ok/*' --touches '[abc'
	assert_ledger_unchanged
}

@test "bad --done-when checks: exit 2, nothing added" {
	snapshot_ledger
	for c in 'foo' 'file:' 'cmd:' 'file:../secret' 'file:a/../../secret' '/etc/passwd' 'file:/etc/passwd'; do
		refused 2 daicho add t --done-when "$c"
	done
	assert_ledger_unchanged
}

@test "bad numbers, empty title, unknown flag, missing value: exit 2, nothing added" {
	snapshot_ledger
	refused 2 daicho add t --priority x
	refused 2 daicho add t --priority 1.5
	refused 2 daicho add t --priority ''
	refused 2 daicho add t --max-attempts 0
	refused 2 daicho add t --max-attempts -1
	refused 2 daicho add t --max-attempts many
	refused 2 daicho add ''
	refused 2 daicho add
	refused 2 daicho add t --bogus
	refused 2 daicho add t --priority
	refused 2 daicho add t --after
	refused 2 daicho add t --body-file
	refused 2 daicho add t --touches
	refused 2 daicho add t --body x --body-file "$TEST_ROOT/nothing"
	refused 2 daicho add t --parent nope
	assert_ledger_unchanged
}

@test "a title over 1000 bytes: exit 2 stating the limit, nothing added; 1000 bytes is fine" {
	snapshot_ledger
	refused 2 daicho add "$(printf 'a%.0s' $(seq 1 1001))"
	stderr_contains "title too long (1001 bytes; a title has at most 1000 bytes"
	# 334 three-byte characters: 1002 bytes, though only 334 characters.
	refused 2 daicho add "$(printf '\xe5\x8f\xb0%.0s' $(seq 1 334))"
	stderr_contains "(1002 bytes;"
	# A 20 MB title through --batch: refused naming the line, not printed.
	{
		echo '{"title":"fine"}'
		printf '{"title":"%s"}\n' "$(head -c 20000000 /dev/zero | tr '\0' x)"
	} >"$TEST_ROOT/big.jsonl"
	refused 2 daicho add --batch "$TEST_ROOT/big.jsonl"
	stderr_contains "line 2: title too long (20000000 bytes; a title has at most 1000 bytes"
	[ "${#stderr}" -lt 200 ]
	assert_ledger_unchanged
	ok daicho add "$(printf 'a%.0s' $(seq 1 1000))"
	assert_output 2
	[ "$(sql 'SELECT length(title) FROM tasks WHERE id = 2')" = 1000 ]
	ok daicho add --help
	assert_output --partial "at most 1000 bytes"
}

@test "add with two titles: exit 2, one error line, nothing added" {
	snapshot_ledger
	refused 2 daicho add one two
	assert_ledger_unchanged
}

@test "--parent that does not exist: exit 3, nothing added" {
	snapshot_ledger
	refused 3 daicho add t --parent 42
	assert_ledger_unchanged
}

@test "--body-file that cannot be read: one error line, nothing added" {
	snapshot_ledger
	capture daicho add t --body-file "$TEST_ROOT/does-not-exist"
	[ "$status" -ne 0 ]
	[ -z "$output" ]
	assert_one_error_line
	stderr_contains "does-not-exist"
	assert_ledger_unchanged
}

# --- --batch ---------------------------------------------------------------

@test "--batch adds many tasks in one go, ids one per line" {
	for i in $(seq 1 300); do
		printf '{"title":"task %d","priority":%d,"labels":["b"]}\n' "$i" "$((i % 5))"
	done >"$TEST_ROOT/batch.jsonl"
	ok daicho add --batch "$TEST_ROOT/batch.jsonl"
	[ "${#lines[@]}" -eq 300 ]
	[ "${lines[0]}" = 2 ]
	[ "${lines[299]}" = 301 ]
	[ "$output" = "$(seq 2 301)" ]
	[ "$(sql "SELECT title FROM tasks WHERE id = 301")" = "task 300" ]
	[ "$(sql "SELECT count(*) FROM labels WHERE label = 'b'")" = 300 ]
}

@test "--batch - reads stdin; every field is stored" {
	capture daicho add --batch - <<'EOF'
{"key":"p","title":"parent","body":"the prompt\n"}
{"title":"child","parent":"p","after":["p",1],"touches":["src/*"],"done_when":["saved"],"priority":3,"labels":["x","y"],"max_attempts":2}
EOF
	assert_success
	assert_output "$(printf '2\n3')"
	ok daicho show --json 3
	jq -e '.parent == 2 and (.after | sort) == [1,2] and .touches == ["src/*"] and
		.done_when == ["saved"] and .priority == 3 and (.labels | sort) == ["x","y"] and
		.max_attempts == 2' <<<"$output" >/dev/null || fail "stored: $output"
	[ "$(daicho prompt 2)" = "the prompt" ]
}

@test "--batch --json prints {\"ids\": [...]}" {
	printf '{"title":"a"}\n{"title":"b"}\n' >"$TEST_ROOT/b.jsonl"
	ok daicho add --batch "$TEST_ROOT/b.jsonl" --json
	[ "$(jq -c .ids <<<"$output")" = "[2,3]" ]
}

@test "--batch keys and forward references become dependencies" {
	cat >"$TEST_ROOT/b.jsonl" <<'EOF'
{"key":"test","title":"Test it","after":["build"]}
{"key":"build","title":"Build it","after":["gen"]}
{"key":"gen","title":"Generate"}
EOF
	ok daicho add --batch "$TEST_ROOT/b.jsonl"
	assert_output "$(printf '2\n3\n4')"
	ok daicho ls --json
	[ "$(jq -c '[.[] | [.id, .after]]' <<<"$output")" = "[[1,[]],[2,[3]],[3,[4]],[4,[]]]" ]
	ok daicho ls --ready --json
	[ "$(jq -c '[.[].id]' <<<"$output")" = "[1,4]" ]
}

@test "--batch invalid JSON on line 3: exit 2 naming line 3, nothing added" {
	snapshot_ledger
	printf '%s\n' '{"title":"one"}' '{"title":"two"}' '{"title": oops}' '{"title":"four"}' >"$TEST_ROOT/b.jsonl"
	refused 2 daicho add --batch "$TEST_ROOT/b.jsonl"
	stderr_contains "line 3"
	assert_ledger_unchanged
	[ "$(sql 'SELECT count(*) FROM tasks')" = 1 ]
}

@test "--batch bad values name the line; nothing added" {
	snapshot_ledger
	refused 2 daicho add --batch - <<<'{"title":"A","zzz":1}'
	stderr_contains "line 1"
	stderr_contains zzz
	printf '%s\n' '{"title":"ok"}' '{"body":"no title"}' >"$TEST_ROOT/b.jsonl"
	refused 2 daicho add --batch "$TEST_ROOT/b.jsonl"
	stderr_contains "line 2"
	printf '%s\n' '{"title":"ok"}' '{"title":""}' >"$TEST_ROOT/b.jsonl"
	refused 2 daicho add --batch "$TEST_ROOT/b.jsonl"
	stderr_contains "line 2"
	printf '%s\n' '{"title":"ok"}' '{"title":"x","touches":["/abs"]}' >"$TEST_ROOT/b.jsonl"
	refused 2 daicho add --batch "$TEST_ROOT/b.jsonl"
	stderr_contains "line 2"
	printf '%s\n' '{"title":"ok"}' '{"title":"x","done_when":["file:../s"]}' >"$TEST_ROOT/b.jsonl"
	refused 2 daicho add --batch "$TEST_ROOT/b.jsonl"
	stderr_contains "line 2"
	printf '%s\n' '{"title":"ok"}' '{"title":"x","priority":"high"}' >"$TEST_ROOT/b.jsonl"
	refused 2 daicho add --batch "$TEST_ROOT/b.jsonl"
	stderr_contains "line 2"
	printf '%s\n' '{"title":"ok"}' '{"title":"x","max_attempts":0}' >"$TEST_ROOT/b.jsonl"
	refused 2 daicho add --batch "$TEST_ROOT/b.jsonl"
	stderr_contains "line 2"
	printf '%s\n' '{"key":"a","title":"A"}' '{"key":"a","title":"B"}' >"$TEST_ROOT/b.jsonl"
	refused 2 daicho add --batch "$TEST_ROOT/b.jsonl"
	stderr_contains "line 2"
	printf '%s\n' '{"title":"A"}' '[1,2]' >"$TEST_ROOT/b.jsonl"
	refused 2 daicho add --batch "$TEST_ROOT/b.jsonl"
	stderr_contains "line 2"
	printf '%s\n' '{"title":"A","after":["nokey"]}' >"$TEST_ROOT/b.jsonl"
	refused 2 daicho add --batch "$TEST_ROOT/b.jsonl"
	stderr_contains "line 1"
	assert_ledger_unchanged
}

@test "--batch after an unknown task id: exit 3 naming the line, nothing added" {
	snapshot_ledger
	printf '%s\n' '{"title":"A"}' '{"title":"B","after":[999]}' >"$TEST_ROOT/b.jsonl"
	refused 3 daicho add --batch "$TEST_ROOT/b.jsonl"
	stderr_contains "line 2"
	stderr_contains 999
	assert_ledger_unchanged
}

@test "--batch cycle via keys: exit 4 naming the cycle, nothing added" {
	snapshot_ledger
	printf '%s\n' '{"title":"free"}' '{"key":"a","title":"A","after":["b"]}' '{"key":"b","title":"B","after":["a"]}' >"$TEST_ROOT/b.jsonl"
	refused 4 daicho add --batch "$TEST_ROOT/b.jsonl"
	stderr_contains "cycle"
	stderr_contains "'a' (line 2)"
	stderr_contains "'b' (line 3)"
	assert_ledger_unchanged
	printf '%s\n' '{"key":"s","title":"self","after":["s"]}' >"$TEST_ROOT/b.jsonl"
	refused 4 daicho add --batch "$TEST_ROOT/b.jsonl"
	stderr_contains "cycle"
	stderr_contains "'s' (line 1)"
	assert_ledger_unchanged
}

@test "--batch three-task cycle names every task in it" {
	snapshot_ledger
	printf '%s\n' '{"key":"a","title":"A","after":["c"]}' '{"key":"b","title":"B","after":["a"]}' '{"key":"c","title":"C","after":["b"]}' >"$TEST_ROOT/b.jsonl"
	refused 4 daicho add --batch "$TEST_ROOT/b.jsonl"
	stderr_contains "'a' (line 1)"
	stderr_contains "'b' (line 2)"
	stderr_contains "'c' (line 3)"
	assert_ledger_unchanged
}

@test "--batch empty: exit 2" {
	snapshot_ledger
	: >"$TEST_ROOT/empty.jsonl"
	refused 2 daicho add --batch "$TEST_ROOT/empty.jsonl"
	refused 2 daicho add --batch - </dev/null
	assert_ledger_unchanged
}

@test "--batch with a title or task options: exit 2" {
	printf '{"title":"a"}\n' >"$TEST_ROOT/b.jsonl"
	snapshot_ledger
	refused 2 daicho add --batch "$TEST_ROOT/b.jsonl" extra
	refused 2 daicho add --batch "$TEST_ROOT/b.jsonl" --priority 3
	refused 2 daicho add --batch
	assert_ledger_unchanged
}

@test "add --protect and protect in --batch store the globs a report must not change; show lists them" {
	ok daicho add guarded --protect 'tests/**' --protect Makefile --done-when 'cmd:make test' --touches 'src/**'
	assert_output 2
	ok daicho add --batch - <<<'{"title":"b","protect":["test.sh"]}'
	assert_output 3
	run task_field 2 'protect | join(",")'
	assert_output 'Makefile,tests/**'
	run task_field 3 'protect | join(",")'
	assert_output 'test.sh'
	run task_field 2 checks_version
	assert_output 1
	ok daicho show 2
	assert_line --regexp '^protect +Makefile, tests/\*\*$'
}

@test "add notes on stderr a task with cmd: checks and no --touches (its work would wait for a person), and nothing else" {
	run --separate-stderr daicho add t --done-when 'cmd:make test'
	assert_success
	id="$output"
	[ "$stderr" = "daicho: note: #$id has cmd: checks and no --touches: work that changes what they read waits for a person ('daicho edit $id --touches GLOB' says what it may change)" ] ||
		fail "stderr: $stderr"
	ok daicho add u --done-when 'cmd:make test' --touches 'src/**'
	ok daicho add v --done-when file:out.txt
	ok person daicho add --no-baseline w --done-when 'cmd:make test'
}

@test "add --protect with a bad glob: exit 2, one line, ledger unchanged" {
	snapshot_ledger
	refused 2 daicho add t --protect '../x'
	stderr_contains "bad protected glob '../x'"
	refused 2 daicho add t --protect '/etc/**'
	refused 2 daicho add --batch - <<<'{"title":"b","protect":["a//b"]}'
	stderr_contains 'line 1: bad protected glob'
	refused 2 daicho add --batch - <<<'{"title":"b","protect":[1]}'
	assert_ledger_unchanged
}

@test "add --batch --label labels every task of the batch, so run --label takes that batch alone" {
	ok daicho add --batch - --label nightly --label b2 <<-'EOF2'
		{"title":"one","labels":["x"]}
		{"title":"two"}
	EOF2
	assert_output $'2\n3'
	run task_field 2 'labels | join(",")'
	assert_output 'b2,nightly,x'
	run task_field 3 'labels | join(",")'
	assert_output 'b2,nightly'
	refused 2 daicho add --batch - --priority 3 <<<'{"title":"t"}'
	ok daicho run -q --label nightly -- true
	[ "$(task_field 1 state)" = open ]
	[ "$(task_field 2 state)" = verified ]
}
