#!/usr/bin/env bats
# daicho serve in a real browser: Debian's chromium driven by
# playwright-core (tests/serve/browser.js), headless and offline.
# Screenshots are kept in $SERVE_ARTIFACTS (build/serve-artifacts).

load helpers

@test "browser: every page loads with no console error and goes live" {
	local day=86400000 d t0
	t0=$(($(date +%s%3N) - 7 * day))
	daicho add "first" --done-when saved >/dev/null
	daicho add "second" --after 1 >/dev/null
	# A week of saves, for the usage page's chart.
	daicho --as w1 claim 1 >/dev/null
	for d in 0 1 2 3 4 5 6; do
		echo "day $d" | DAICHO_NOW_MS=$((t0 + d * day)) daicho --as w1 save 1 -f - \
			--cost "0.$((d * 13 % 9 + 1))" --tokens-in $((d * 1000 + 500)) --tokens-out 200 --model m1 >/dev/null
	done
	start_server
	browser pages "$URL"
}

@test "browser: a pending approval appears under Needs you" {
	# A little of everything, for the README's screenshot too.
	daicho add "Write the migration" --label db >/dev/null
	daicho add "Review the API docs" --label docs >/dev/null
	daicho add "Ship the release" --after 1,2 >/dev/null
	daicho --as w1 claim 1 >/dev/null
	daicho --as w1 block 1 --reason "which schema version?" >/dev/null
	daicho --as w3 claim 2 >/dev/null
	approval_pending
	start_server
	browser approval "$URL" "$LOGIN"
}

@test "browser: a task changed with the CLI updates on the open page without a reload" {
	daicho add "first" >/dev/null
	start_server
	browser live "$URL"
}

@test "browser: approve in the browser; the gated command's next gate exec runs" {
	approval_pending
	start_server
	browser approve "$URL" "$LOGIN"
	[ "$(daicho approvals --all --json | jq -r '.[0].state')" = approved ]
	[ "$(daicho approvals --all --json | jq -r '.[0].decided_tty')" = web ]
	run daicho --as w2 gate exec -- deploy prod
	[ "$status" -eq 0 ] || fail "gate exec after approval: $status $output"
	[ "$output" = "deployed prod" ]
}

@test "browser: reply to a message and mark another read from Needs you" {
	messages_and_server
	browser reply "$URL" "$LOGIN"
	run daicho --as w1 inbox --json
	[ "$(jq -r '.[0].text' <<<"$output")" = "yes, after the backup" ] || fail "$output"
	[ "$(jq -r '.[0].thread[0].id' <<<"$output")" = 1 ] || fail "$output"
	[ "$(sql "SELECT id FROM messages WHERE read_ms IS NOT NULL AND id < 3 ORDER BY id")" = 2 ]
}

@test "browser: the same action without the login cookie is refused" {
	approval_pending
	start_server
	snapshot_ledger
	browser refused "$URL" "$LOGIN"
	assert_ledger_unchanged
	[ "$(daicho approvals --json | jq -r '.[0].state')" = pending ]
}

@test "browser: with JavaScript off the pages work and a button acts (no live updates)" {
	daicho add "first" >/dev/null
	daicho --as w1 claim 1 >/dev/null
	daicho --as w1 block 1 --reason "stuck" >/dev/null
	start_server
	browser nojs "$URL" "$LOGIN"
	[ "$(task_field 1 state)" = claimed ]
	daicho log 1 --json | jq -e '.[-1].detail.via == "web" and .[-1].detail.answer == "use the staging key"' >/dev/null ||
		fail "$(daicho log 1 --json | jq -c '.[-1]')"
	[[ "$(daicho prompt 1)" == *'A: use the staging key' ]] || fail "prompt: $(daicho prompt 1)"
}

@test "browser: a 500-task graph renders" {
	# 50 chains of 10: task k of a chain comes after task k-1.
	local i
	for i in $(seq 0 499); do
		if [ $((i % 10)) -eq 0 ]; then
			printf '{"title": "task %d of chain %d", "key": "t%d"}\n' "$i" $((i / 10)) "$i"
		else
			printf '{"title": "task %d of chain %d", "key": "t%d", "after": ["t%d"]}\n' "$i" $((i / 10)) "$i" $((i - 1))
		fi
	done >"$TEST_ROOT/batch.jsonl"
	daicho add --batch "$TEST_ROOT/batch.jsonl" >/dev/null
	for i in 1 11 21; do daicho --as w1 claim "$i" >/dev/null; done
	start_server
	browser graph "$URL" "" 500
}
