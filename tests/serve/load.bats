#!/usr/bin/env bats
# daicho serve under load on loopback: 50 clients polling the API and the
# pages and 20 holding live streams for $SERVE_LOAD_SECONDS (30) while a
# runner drains tasks: no failed request, no file descriptor or connection
# left open, server memory flat (tests/serve/load.js).

load helpers

@test "load: 50 polling clients and 20 SSE streams for 30 s while a runner drains tasks" {
	local i seconds="${SERVE_LOAD_SECONDS:-30}"
	for i in $(seq 400); do
		printf '{"title": "job %d", "done_when": ["saved"]}\n' "$i"
	done >"$TEST_ROOT/batch.jsonl"
	daicho add --batch "$TEST_ROOT/batch.jsonl" >/dev/null
	start_server
	# Each worker saves a result after a quarter of a second: four at once
	# drain 400 tasks in about the time of the test.
	daicho run -j 4 -- sh -c 'sleep 0.25; echo done | daicho save "$1" -f -' sh '{id}' \
		>"$TEST_ROOT/run.out" 2>&1 &
	local runner=$!
	run node "$SERVE_DIR/load.js" "$LOOPBACK_URL" "$SERVE_PID" "$seconds"
	echo "$output" >"$SERVE_ARTIFACTS/load.json"
	kill "$runner" 2>/dev/null || true
	wait "$runner" 2>/dev/null || true
	[ "$status" -eq 0 ] || fail "load test: $output"
	# The runner did its work meanwhile.
	[ "$(daicho ls --state verified --json | jq length)" -gt 50 ] ||
		fail "the runner drained too little: $(cat "$TEST_ROOT/run.out")"
}
