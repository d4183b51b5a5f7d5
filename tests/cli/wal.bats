#!/usr/bin/env bats
# The ledger is never left where every command is slow: a long WAL file
# (the first process to open the ledger reads all of it) is truncated by
# whoever leaves it long, when the ledger is quiet, or by the next process
# that finds it on open.

load helpers

setup() {
	sqlite_only "SQLite's WAL file"
	common_setup
}

# wal_bytes: the size of the ledger's WAL file (0 when there is none).
wal_bytes() {
	stat -c %s "$DAICHO_LEDGER-wal" 2>/dev/null || echo 0
}

# batch_file N FILE: N one-line tasks as add --batch JSON Lines.
batch_file() {
	seq "$1" | sed 's/.*/{"title":"task &"}/' >"$2"
}

@test "add --batch of 100,000 tasks leaves a short WAL behind" {
	batch_file 100000 "$TEST_ROOT/batch.jsonl"
	daicho -q add --batch "$TEST_ROOT/batch.jsonl"
	size=$(wal_bytes)
	[ "$size" -le 524288 ] || fail "WAL is $size bytes after the batch"
	run daicho ls --ready --limit 1 --json
	assert_success
	assert_output --partial '"title":"task 1"'
}

@test "a WAL left long by a busy ledger is truncated by the next process that opens it" {
	batch_file 100000 "$TEST_ROOT/batch.jsonl"
	# A reader in the middle of a transaction keeps the batch's process
	# from truncating the WAL when it closes (the ledger is not quiet)...
	mkfifo "$TEST_ROOT/hold"
	sqlite3 "$DAICHO_LEDGER" <"$TEST_ROOT/hold" >/dev/null 2>&1 &
	reader=$!
	exec 7>"$TEST_ROOT/hold"
	echo 'BEGIN; SELECT count(*) FROM tasks;' >&7
	sleep 0.2
	daicho -q add --batch "$TEST_ROOT/batch.jsonl"
	size=$(wal_bytes)
	# ...and when it is killed, nothing else truncates it.
	kill -9 "$reader"
	exec 7>&-
	wait "$reader" 2>/dev/null || true
	[ "$size" -gt 524288 ] || fail "the WAL was short already ($size bytes): the test proves nothing"
	[ "$(wal_bytes)" -gt 524288 ] || fail "the WAL shrank without a daicho process"
	# The next command, a read, finds the long WAL on open and truncates it.
	run daicho ls --ready --limit 1
	assert_success
	size=$(wal_bytes)
	[ "$size" -le 524288 ] || fail "WAL is still $size bytes after the next command"
	run daicho ls --state open --json --limit 100000
	assert_success
	[ "$(grep -o '"id":' <<<"$output" | wc -l)" -eq 100000 ]
}

@test "the runner, a long-lived writer, leaves a short WAL after writing a lot" {
	batch_file 1500 "$TEST_ROOT/batch.jsonl"
	daicho -q add --batch "$TEST_ROOT/batch.jsonl"
	daicho -q run -j 8 -- true '{id}'
	run daicho ls --state open --json
	assert_success
	assert_output '[]'
	size=$(wal_bytes)
	[ "$size" -le 524288 ] || fail "WAL is $size bytes after the run"
}

@test "a long-lived runner keeps the WAL bounded while it runs" {
	batch_file 3000 "$TEST_ROOT/batch.jsonl"
	daicho -q add --batch "$TEST_ROOT/batch.jsonl"
	daicho run --follow -j 8 -- true '{id}' >"$TEST_ROOT/run.out" 2>&1 &
	runner=$!
	# Read-only looks, which never checkpoint: only the runner may.
	for _ in $(seq 600); do
		left=$(sqlite3 -readonly "$DAICHO_LEDGER" \
		    "SELECT count(*) FROM tasks WHERE state <> 'verified'")
		[ "$left" -eq 0 ] && break
		sleep 0.1
	done
	size=$(wal_bytes)
	kill "$runner"
	wait "$runner" 2>/dev/null || true
	[ "$left" -eq 0 ] || fail "$left tasks not verified: $(cat "$TEST_ROOT/run.out")"
	# Past 1,000 pages (4 MB) of WAL, it truncates when the ledger is quiet.
	[ "$size" -le $((5 << 20)) ] || fail "WAL is $size bytes while the runner lives"
	size=$(wal_bytes)
	[ "$size" -le 524288 ] || fail "WAL is $size bytes after the runner stopped"
}

@test "the sweep loop, a long-lived writer, keeps the WAL short while it runs and after" {
	batch_file 3000 "$TEST_ROOT/batch.jsonl"
	daicho -q add --batch "$TEST_ROOT/batch.jsonl"
	DAICHO_AGENT=w1 daicho claim --next >/dev/null
	# 2,999 reports for the loop to verify (written directly: this test is
	# about the WAL the verifying leaves, not about reporting).
	sql "UPDATE tasks SET state = 'reported', owner = (SELECT id FROM agents WHERE name = 'w1') WHERE state = 'open'"
	daicho sweep --every 100ms >"$TEST_ROOT/sweep.out" 2>&1 &
	sweeper=$!
	for _ in $(seq 300); do
		left=$(sqlite3 -readonly "$DAICHO_LEDGER" \
		    "SELECT count(*) FROM tasks WHERE state = 'reported'")
		[ "$left" -eq 0 ] && break
		sleep 0.1
	done
	sleep 0.3 # a pass or two more, idle
	size=$(wal_bytes)
	kill -TERM "$sweeper"
	wait "$sweeper" 2>/dev/null || true
	[ "$left" -eq 0 ] || fail "$left reports left: $(cat "$TEST_ROOT/sweep.out")"
	[ "$size" -le $((5 << 20)) ] || fail "WAL is $size bytes while the sweep loop lives"
	size=$(wal_bytes)
	[ "$size" -le 524288 ] || fail "WAL is $size bytes after the sweep loop stopped"
}
