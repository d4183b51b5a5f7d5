#!/usr/bin/env bats
# daicho usage: tokens and cost of saves, by task, agent, model, label, day.

load helpers

T0=1800000000000

setup() {
	common_setup
	export DAICHO_NOW_MS=$T0
	daicho add "one" --label db --label api >/dev/null
	daicho add "two" --label db >/dev/null
	daicho --as w1 claim 1 >/dev/null
	echo r | daicho --as w1 save 1 -f - --tokens-in 100 --tokens-out 10 --cost 1.5 --model m1
	daicho --as w2 claim 2 >/dev/null
	DAICHO_NOW_MS=$((T0 + 86400000)) daicho --as w2 save 2 -f - --tokens-in 50 --tokens-out 5 --cost 0.5 --model m2 <<<"r"
}

@test "usage --by label counts a task under each of its labels; the total counts it once" {
	run daicho usage --by label --json
	[ "$status" -eq 0 ]
	jq -e 'map({(.label // "total"): .cost}) | add == {"db": 2.0, "api": 1.5, "total": 2.0}' <<<"$output" >/dev/null ||
		fail "$output"
	run daicho usage --by label
	assert_line --index 0 --regexp '^LABEL +TASKS +SAVES'
}

@test "usage --by day: one row per UTC day, oldest first, then the total" {
	run daicho usage --by day --json
	[ "$status" -eq 0 ]
	jq -e '[.[] | [.day, .tokens_in]] == [["2027-01-15", 100], ["2027-01-16", 50], [null, 150]]' <<<"$output" >/dev/null ||
		fail "$output"
}

@test "usage --by something else is a usage error naming the choices" {
	run --separate-stderr daicho usage --by week
	assert_refused 2
	stderr_contains "task, agent, model, label or day"
}
