#!/usr/bin/env bats
# daicho show, log, graph and events.

load helpers

setup() {
	common_setup
	daicho add "first task" --body "prompt" --label L --touches 'src/*' --done-when saved >/dev/null
	daicho add "second task" --after 1 --priority 2 >/dev/null
	daicho add "third task" --after 1,2 >/dev/null
}

@test "show ID prints the task for humans" {
	ok daicho show 1
	assert_output --partial "#1"
	assert_output --partial "first task"
	assert_output --partial "open"
	assert_output --partial "src/*"
	assert_output --partial "saved"
	ok daicho show 2
	assert_output --partial "#1"
}

@test "show accepts 12, #12 and T12" {
	ok daicho show --json 2
	a="$output"
	ok daicho show --json '#2'
	[ "$output" = "$a" ]
	ok daicho show --json T2
	[ "$output" = "$a" ]
	[ "$(jq -r .title <<<"$a")" = "second task" ]
}

@test "show --json is one task object with the documented fields" {
	ok daicho show 3 --json
	assert_has_fields "$TASK_FIELDS" "$output"
	[ "$(jq -c '[.after, .unmet_after]' <<<"$output")" = "[[1,2],2]" ]
	# every field ls --json shows has the same value in show --json
	listed="$(daicho ls --json | jq -c '.[2]')"
	jq -e --argjson l "$listed" '. as $s | $l | to_entries | all(.value == $s[.key])' \
		<<<"$output" >/dev/null || fail "show: $output; ls: $listed"
}

@test "show: unknown id exit 3, malformed id exit 2, missing id exit 2" {
	refused 3 daicho show 99
	stderr_contains "99"
	refused 3 daicho show --json 99
	refused 2 daicho show abc
	stderr_contains "abc"
	refused 2 daicho show -- -1
	refused 2 daicho show 1.5
	refused 2 daicho show 1 2
	refused 2 daicho show --bogus 1
}

@test "show with no id: usage error, exit 2" {
	refused 2 daicho show
}

@test "log ID lists the task's events in order" {
	daicho claim 1 --as w1 >/dev/null
	echo result | daicho save 1 --as w1
	daicho report 1 --as w1 --note "done, I think"
	ok daicho log 1
	assert_output --partial add
	assert_output --partial claim
	assert_output --partial save
	assert_output --partial report
	assert_output --partial w1
	# order: add, claim, save, report; each a sentence, not JSON
	kinds="$(awk 'NR > 1 { print $2 }' <<<"$output" | tr '\n' ' ')"
	[ "$kinds" = "add claim save report " ] || fail "log order: $kinds"
	assert_line --index 0 --regexp '^TIME +EVENT +WHAT$'
	assert_line --index 2 --regexp '^[0-9T:-]+Z claim +w1 claimed #1 first task$'
	assert_line --index 3 --regexp '^[0-9T:-]+Z save +w1 saved a result for #1 first task \(7 bytes\)$'
	assert_line --index 4 --regexp '^[0-9T:-]+Z report +w1 reported #1 first task done: done, I think$'
	refute_output --partial '{'
	ok daicho log 1 --json
	jq -e '[.[].title] | unique == ["first task"]' <<<"$output" >/dev/null || fail "log titles: $output"
	ok daicho log 1 --json
	jq -e '[.[].kind] == ["add","claim","save","report"] and ([.[].task] | unique) == [1] and
		[.[].id] == ([.[].id] | sort) and .[3].detail.note == "done, I think"' \
		<<<"$output" >/dev/null || fail "log: $output"
	# another task's log does not include task 1's events
	ok daicho log 2 --json
	[ "$(jq -r '[.[].kind] | join(",")' <<<"$output")" = "add" ]
}

@test "log: unknown id exit 3, malformed id exit 2" {
	refused 3 daicho log 99
	refused 2 daicho log abc
	refused 2 daicho log
	refused 2 daicho log 1 --bogus
}

@test "graph (dot) has every node and every edge" {
	ok daicho graph
	assert_output --partial "digraph"
	assert_output --partial "first task"
	assert_output --partial "third task"
	assert_line --partial "t1 -> t2"
	assert_line --partial "t1 -> t3"
	assert_line --partial "t2 -> t3"
	[ "$(grep -c -- '->' <<<"$output")" -eq 3 ]
	ok daicho graph --format dot
	assert_line --partial "t1 -> t2"
}

@test "graph output is valid Graphviz when dot is installed" {
	command -v dot >/dev/null || skip "graphviz not installed"
	daicho add 'quote " and \ backslash' --after 3 >/dev/null
	daicho graph | dot -Tsvg >/dev/null
}

@test "graph --format mermaid has every edge" {
	ok daicho graph --format mermaid
	assert_line --regexp '^(graph|flowchart) '
	assert_line --partial "t1 --> t2"
	assert_line --partial "t1 --> t3"
	assert_line --partial "t2 --> t3"
	[ "$(grep -c -- '-->' <<<"$output")" -eq 3 ]
}

@test "graph quotes titles with quotes and brackets" {
	daicho add 'say "hi" [x] {y}' --after 1 >/dev/null
	ok daicho graph
	refute_output --partial 'say "hi"'
	ok daicho graph --format mermaid
	refute_output --partial '"say "hi'
}

@test "graph: bad --format exit 2" {
	refused 2 daicho graph --format svg
	refused 2 daicho graph --format
	refused 2 daicho graph extra
}

@test "events lists every event, oldest first" {
	daicho claim 1 --as w1 >/dev/null
	daicho release 1 --as w1
	ok daicho events
	assert_output --partial add
	assert_output --partial claim
	assert_output --partial release
	assert_output --partial agent-register
	ok daicho events --json
	jq -e 'type == "array"' <<<"$output" >/dev/null
	jq -e --argjson want "$EVENT_FIELDS" 'all(.[]; ($want - keys) == [])' <<<"$output" >/dev/null ||
		fail "an event lacks a documented field: $output"
	jq -e '[.[].id] == ([.[].id] | sort)' <<<"$output" >/dev/null
	[ "$(jq -r '[.[] | select(.task != null) | .kind] | join(",")' <<<"$output")" = "add,add,add,claim,release" ]
	[ "$(jq -r '[.[] | select(.kind == "claim") | .actor] | join(",")' <<<"$output")" = "w1" ]
	# every event row is in the table
	[ "$(jq length <<<"$output")" = "$(sql 'SELECT count(*) FROM events')" ]
}

@test "events --since ID shows only later events; --since DUR by time" {
	ok daicho events --json
	last="$(jq -r '.[-1].id' <<<"$output")"
	ok daicho events --since "$last" --json
	[ "$(jq length <<<"$output")" = 0 ]
	daicho claim 1 --as w1 >/dev/null
	ok daicho events --since "$last" --json
	[ "$(jq -r '[.[].kind] | join(",")' <<<"$output")" = "agent-register,claim" ]
	jq -e --argjson l "$last" 'all(.[]; .id > $l)' <<<"$output" >/dev/null

	# By duration, with the clock fixed: events older than 10m are left out.
	DAICHO_NOW_MS=4000000000000 daicho add "far future" >/dev/null
	DAICHO_NOW_MS=4000000000000 ok daicho events --since 10m --json
	[ "$(jq -r '[.[].kind] | join(",")' <<<"$output")" = "add" ]
	[ "$(jq -r '.[0].task' <<<"$output")" = 4 ]
	DAICHO_NOW_MS=4000000000000 ok daicho events --since 10m
	assert_output --partial "#4"
	refute_output --partial "claim"
}

@test "events --limit N keeps the newest N" {
	ok daicho events --json
	all="$output"
	ok daicho events --limit 2 --json
	[ "$(jq -c '[.[].id]' <<<"$output")" = "$(jq -c '[.[-2:][].id]' <<<"$all")" ]
	ok daicho events --limit 1000 --json
	[ "$(jq -c . <<<"$output")" = "$(jq -c . <<<"$all")" ]
}

@test "events: bad --since and --limit exit 2" {
	refused 2 daicho events --since x
	refused 2 daicho events --since 10x
	refused 2 daicho events --since
	refused 2 daicho events --limit 0
	refused 2 daicho events --limit many
	refused 2 daicho events --bogus
}

@test "events --follow --json prints new events as JSON lines" {
	command -v timeout >/dev/null || skip "no timeout(1)"
	# fd 3 closed: bats waits for background jobs that hold it.
	timeout 10 daicho events --follow --json >"$TEST_ROOT/follow.out" 2>&1 3>&- &
	local pid=$!
	# wait until the follower has printed the existing events
	for _ in $(seq 1 50); do
		grep -q '"task":3' "$TEST_ROOT/follow.out" 2>/dev/null && break
		sleep 0.1
	done
	daicho add "while following" >/dev/null
	for _ in $(seq 1 50); do
		grep -q '"task":4' "$TEST_ROOT/follow.out" 2>/dev/null && break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	grep -q '"task":4' "$TEST_ROOT/follow.out" || fail "follow did not show the new event: $(cat "$TEST_ROOT/follow.out")"
	# every line is one JSON object; together, the events in order
	jq -e -s 'all(.[]; type == "object") and ([.[].id] == ([.[].id] | sort))' \
		"$TEST_ROOT/follow.out" >/dev/null || fail "not JSON lines: $(cat "$TEST_ROOT/follow.out")"
	[ "$(wc -l <"$TEST_ROOT/follow.out")" -eq "$(sql 'SELECT count(*) FROM events')" ]
}

@test "graph --json prints nodes and edges, not dot; --json with --format is refused" {
	ok daicho graph --json
	run jq -c '[(.nodes | map([.id, .title, .state])), (.edges | sort_by(.task, .after))]' <<<"$output"
	assert_output '[[[1,"first task","open"],[2,"second task","open"],[3,"third task","open"]],[{"task":2,"after":1},{"task":3,"after":1},{"task":3,"after":2}]]'
	refused 2 daicho graph --json --format dot
}
