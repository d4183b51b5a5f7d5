#!/usr/bin/env bats
# daicho pool start|stop|status: a resident daicho-pg keeps warm
# connections to a PostgreSQL ledger, and the static daicho sends each
# command's statements through it (src/store/pool). What a user relies on: the
# pool's output and exit codes; that commands really use it, and only
# when their connection would be the same; that results through it are
# those of a direct connection; that a client or a pool killed mid-way
# leaves nothing half-written and the write lock free; that a pool never
# serves another login, never trusts a directory others can enter, and
# never makes a command hang.
#
# Every test has a runtime directory of its own ($XDG_RUNTIME_DIR), so
# that pools of different tests never meet, and stops every pool it
# started, by pid (teardown). The test of SQLite ledgers runs on both
# back ends; the rest need PostgreSQL.

load helpers

setup() {
	# This file starts and stops its own pools (helpers.bash's use_pool).
	unset DAICHO_TEST_POOL
	common_setup
	POOL_PIDS=() BG_PIDS=() BG_GROUPS=()
	private_pool_dir "$TEST_ROOT/run"
}

teardown() {
	local pid
	for pid in "${BG_GROUPS[@]}"; do
		kill -TERM -- "-$pid" 2>/dev/null || true
	done
	for pid in "${BG_PIDS[@]}"; do
		kill -CONT "$pid" 2>/dev/null || true
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${POOL_PIDS[@]}"; do
		end_pool "$pid"
	done
	for pid in "${BG_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	release_pool_dir
}

# end_pool PID: stop the pool PID if it still runs (SIGTERM, then kill -9
# after 3 s). Only a daicho-pg is signalled: a pid ended long ago may be
# another program's by now.
end_pool() {
	local pid=$1 i
	is_pool_process "$pid" || return 0
	kill -CONT "$pid" 2>/dev/null || true
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 30; i++)); do
		is_pool_process "$pid" || return 0
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
}

# is_pool_process PID: PID is a live daicho-pg (not a zombie).
is_pool_process() {
	local cmdline
	[ -r "/proc/$1/cmdline" ] || return 1
	cmdline=$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null) || return 1
	[[ "$cmdline" == *daicho-pg* ]] || return 1
	[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# pg_only: skip the rest of this test on SQLite.
pg_only() {
	backend_is_postgresql || skip "PostgreSQL only: a pool serves PostgreSQL ledgers"
}

# start_pool [NAME=VALUE...] [-- OPTION...]: 'daicho pool start OPTION...'
# in the environment changed by NAME=VALUE...; asserts its one line and
# sets POOL_PID and POOL_SOCKET (and records the pid for teardown).
start_pool() {
	local -a vars=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	[ $# -eq 0 ] || shift
	capture env "${vars[@]}" daicho pool start "$@"
	if [[ "$output" =~ ^pool\ started:\ pid\ ([0-9]+),\ socket\ (/[^ ]*)$ ]]; then
		POOL_PID=${BASH_REMATCH[1]} POOL_SOCKET=${BASH_REMATCH[2]}
		POOL_PIDS+=("$POOL_PID")
	fi
	[ "$status" -eq 0 ] || fail "pool start: exit $status (stdout '$output', stderr '$stderr')"
	[ -z "$stderr" ] || fail "pool start wrote to stderr: '$stderr'"
	[ -n "${POOL_PID:-}" ] || fail "pool start printed '$output', not 'pool started: pid N, socket PATH'"
}

# pool_json [NAME=VALUE...]: 'daicho --json pool status' in that environment.
pool_json() {
	env "$@" daicho --json pool status
}

# sessions_total [NAME=VALUE...]: the sessions_total of the pool that
# answers in that environment (fails when none does).
sessions_total() {
	local json
	json=$(pool_json "$@") || fail "no pool answers: $json"
	jq -r .sessions_total <<<"$json"
}

# wait_for SECONDS CMD...: run CMD every 50 ms until it succeeds; fail
# after SECONDS.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}

# write_lock_holders: how many sessions hold daicho's write lock (an
# advisory lock taken by every write transaction) on the test's ledger.
write_lock_holders() {
	sql "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted
	     AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
}

# lock_held / lock_free: the write lock is held by some session, or by none.
lock_held() {
	[ "$(write_lock_holders)" -ge 1 ]
}
lock_free() {
	[ "$(write_lock_holders)" -eq 0 ]
}

# long_write_open: a transaction has held the write lock for 300 ms or
# more (longer than any single add takes).
long_write_open() {
	[ "$(sql "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
	          WHERE l.locktype = 'advisory' AND l.granted
	            AND a.datname = current_database()
	            AND a.xact_start < clock_timestamp() - interval '300 milliseconds'")" -ge 1 ]
}

# no_pool_answers [NAME=VALUE...]: 'pool status' exits 3 in that environment.
no_pool_answers() {
	local rc=0
	env "$@" daicho pool status >/dev/null 2>&1 || rc=$?
	[ "$rc" -eq 3 ]
}

# batch_file FILE PREFIX N: N tasks titled PREFIX-1 ... PREFIX-N, as JSONL.
# (awk: a loop in bats' shell costs a millisecond a turn.)
batch_file() {
	awk -v prefix="$2" -v n="$3" \
	    'BEGIN { for (i = 1; i <= n; i++) printf "{\"title\":\"%s-%d\"}\n", prefix, i }' >"$1"
}

# stall_batch PREFIX: a batch of 20,000 tasks titled PREFIX-N, started in
# the background and stopped (SIGSTOP) once inside its transaction, holding
# the write lock; its pid in STALLED (recorded for teardown). A batch is one
# transaction of many statements, each a round trip through the pool: long
# enough to catch the client inside it.
stall_batch() {
	batch_file "$TEST_ROOT/big.jsonl" "$1" 20000
	daicho add --batch "$TEST_ROOT/big.jsonl" >/dev/null 2>"$TEST_ROOT/client.err" &
	STALLED=$!
	BG_PIDS+=("$STALLED")
	wait_for 60 lock_held || fail "the batch never took the write lock"
	kill -STOP "$STALLED"
}

# stop_pool SECONDS: 'daicho pool stop' succeeds, and the pool's process
# ends within SECONDS.
stop_pool() {
	capture daicho pool stop
	[ "$status" -eq 0 ] || fail "pool stop: exit $status ($stderr)"
	wait_for "$1" eval '! is_pool_process "$POOL_PID"' ||
		fail "the pool's process still runs $1 s after 'pool stop'"
}

# titles_like PREFIX: how many tasks have a title starting PREFIX-.
titles_like() {
	sql "SELECT count(*) FROM tasks WHERE title LIKE '$1-%'"
}

@test "pool: every pool command on a SQLite ledger is refused with one line (exit 1), the ledger unchanged, no pool started" {
	local lite=$TEST_ROOT/lite.db
	daicho --ledger "$lite" init >/dev/null
	daicho --ledger "$lite" add "a task" >/dev/null
	snapshot_ledger
	ledger_data "$lite" >"$TEST_ROOT/lite.before"
	local args
	for args in "pool start" "pool start --foreground" "pool start --idle 1s --keep 2" \
	    "pool start --idle bogus" "pool stop" "pool status" "--json pool status" \
	    "--json pool start"; do
		# shellcheck disable=SC2086
		refused 1 daicho --ledger "$lite" $args
		stderr_contains "SQLite"
	done
	# The ledger found in the directory is SQLite's on the SQLite pass.
	if ! backend_is_postgresql; then
		refused 1 daicho pool start
		refused 1 daicho pool status
	fi
	ledger_data "$lite" | cmp - "$TEST_ROOT/lite.before" || fail "the SQLite ledger changed"
	assert_ledger_unchanged
	[ ! -e "$XDG_RUNTIME_DIR/daicho" ] || fail "a pool directory was made: $(ls -la "$XDG_RUNTIME_DIR/daicho")"
	run pgrep -f "daicho-pg.*$lite"
	[ "$status" -ne 0 ] || fail "a daicho-pg runs for the SQLite ledger: $output"
}

@test "pool: start, status, stop: their lines, JSON and exit codes (3: none serves, 4: one already does)" {
	pg_only
	snapshot_ledger
	refused 3 daicho pool status
	stderr_contains "no pool serves this ledger"
	refused 3 daicho pool stop
	refused 3 daicho --json pool status

	start_pool
	[[ "$POOL_SOCKET" == "$XDG_RUNTIME_DIR/daicho/pool-"*.sock ]] || fail "socket $POOL_SOCKET"
	[ -S "$POOL_SOCKET" ] || fail "no socket at $POOL_SOCKET"
	[ "$(stat -c %a "$XDG_RUNTIME_DIR/daicho")" = 700 ] || fail "directory mode $(stat -c %a "$XDG_RUNTIME_DIR/daicho")"
	[ "$(stat -c %a "$POOL_SOCKET")" = 600 ] || fail "socket mode $(stat -c %a "$POOL_SOCKET")"
	is_pool_process "$POOL_PID" || fail "pid $POOL_PID is not a running daicho-pg"

	# A second start: exit 4, one line, the first pool unharmed.
	refused 4 daicho pool start
	stderr_contains "already serves"
	refused 4 daicho pool start --idle 1s
	[ "$(pool_json | jq .pid)" = "$POOL_PID" ]

	ok daicho pool status
	[ "${#lines[@]}" -eq 5 ] || fail "status: '$output'"
	[[ "${lines[0]}" =~ ^pool:\ pid\ $POOL_PID,\ up\ [0-9]+s,\ daicho\ (.*)$ ]] || fail "line 1: '${lines[0]}'"
	[ "daicho ${BASH_REMATCH[1]}" = "$(daicho --version | cut -d' ' -f1-2)" ] || fail "version: '${lines[0]}'"
	[ "${lines[1]}" = "socket: $POOL_SOCKET" ]
	[ "${lines[2]}" = "sessions: 0 now, 0 in all" ] || fail "line 3: '${lines[2]}'"
	[ "${lines[3]}" = "waiting their turn: 0 ($(( $(nproc) * 2 )) served at once; 0 served with no turn free, after their wait)" ] || fail "line 4: '${lines[3]}'"
	[ "${lines[4]}" = "connections kept warm: 1" ] || fail "line 5: '${lines[4]}'"

	ok daicho --json pool status
	jq -e --argjson pid "$POOL_PID" --arg socket "$POOL_SOCKET" --arg version "$(daicho --version | cut -d' ' -f1-2)" \
	    --argjson now "$(date +%s%3N)" '
	    (keys == (["pid","socket","started_ms","sessions_now","sessions_total",
	               "waiting","active","served_after_wait","idle_connections",
	               "version"] | sort))
	    and .pid == $pid and .socket == $socket and ("daicho " + .version) == $version
	    and .sessions_now == 0 and .sessions_total == 0 and .idle_connections == 1
	    and .waiting == 0 and .active == ('"$(nproc)"' * 2) and .served_after_wait == 0
	    and (.started_ms | type) == "number" and .started_ms <= $now
	    and .started_ms > $now - 60000' <<<"$output" >/dev/null ||
		fail "status JSON: $output"

	ok daicho pool stop
	[ "$output" = "pool stopped: pid $POOL_PID, after 0 sessions" ] || fail "stop: '$output'"
	refused 3 daicho pool status
	refused 3 daicho pool stop
	wait_for 5 eval '! is_pool_process "$POOL_PID"' || fail "the pool still runs after stop"
	[ ! -e "$POOL_SOCKET" ] || fail "the socket is left after stop"

	# JSON start and stop; a start whose output is read through a pipe
	# returns (the pool keeps nothing of its caller's open).
	local json
	json=$(timeout 20 daicho --json pool start) || fail "start --json: exit $?"
	POOL_PID=$(jq -r .pid <<<"$json")
	POOL_PIDS+=("$POOL_PID")
	jq -e --arg socket "$POOL_SOCKET" 'keys == ["pid","socket"] and .socket == $socket' \
	    <<<"$json" >/dev/null || fail "start JSON: $json"
	daicho add counted >/dev/null
	ok daicho --json pool stop
	jq -e --argjson pid "$POOL_PID" 'keys == ["pid","sessions"] and .pid == $pid and .sessions == 1' \
	    <<<"$output" >/dev/null || fail "stop JSON: $output"
	[ "$(sql "SELECT count(*) FROM tasks")" = 1 ]
}

@test "pool: --foreground serves until SIGTERM, saying so on stdout" {
	pg_only
	daicho pool start --foreground >"$TEST_ROOT/fg.out" 2>"$TEST_ROOT/fg.err" &
	local fg=$!
	BG_PIDS+=("$fg")
	wait_for 60 grep -q '^pool serving' "$TEST_ROOT/fg.out" || fail "not serving: $(cat "$TEST_ROOT/fg.out" "$TEST_ROOT/fg.err")"
	local pid
	pid=$(pool_json | jq .pid)
	POOL_PIDS+=("$pid")
	grep -qx "pool serving: pid $pid, socket $XDG_RUNTIME_DIR/daicho/pool-[0-9a-f]*.sock (stop: daicho pool stop)" \
	    "$TEST_ROOT/fg.out" || fail "$(cat "$TEST_ROOT/fg.out")"
	daicho add through >/dev/null
	[ "$(sessions_total)" = 1 ]
	kill -TERM "$fg"
	local rc=0
	wait "$fg" || rc=$?
	[ "$rc" -eq 0 ] || fail "foreground pool: exit $rc: $(cat "$TEST_ROOT/fg.err")"
	[ "$(tail -n 1 "$TEST_ROOT/fg.out")" = "pool stopped" ] || fail "$(cat "$TEST_ROOT/fg.out")"
	[ ! -s "$TEST_ROOT/fg.err" ] || fail "stderr: $(cat "$TEST_ROOT/fg.err")"
	no_pool_answers
}

@test "pool: bad options and arguments are refused (exit 2, one line): no pool starts, the ledger is unchanged" {
	pg_only
	daicho add t >/dev/null
	snapshot_ledger
	local args
	for args in "--idle bogus" "--idle -1s" "--idle" "--keep -1" "--keep 10001" "--keep abc" \
	    "--keep 1.5" "--keep=" "--active 0" "--active -2" "--active 10001" "--active two" \
	    "--active" "extra-arg" "--nope"; do
		# shellcheck disable=SC2086
		refused 2 daicho pool start $args
	done
	refused 2 daicho pool stop extra
	refused 2 daicho pool status extra
	refused 2 daicho pool
	refused 2 daicho pool restart
	no_pool_answers
	! compgen -G "$XDG_RUNTIME_DIR/daicho/*.sock" >/dev/null ||
		fail "a socket was made: $(ls -la "$XDG_RUNTIME_DIR/daicho")"
	run pgrep -f "daicho-pg.*pool start"
	for pid in "${lines[@]}"; do
		[ "$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -c "^XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR\$")" = 0 ] ||
			fail "a pool started: $pid"
	done
	assert_ledger_unchanged
	# The refused starts left nothing that stops a good one.
	start_pool -- --keep 0 --idle 0
	[ "$(pool_json | jq .idle_connections)" = 0 ]
	daicho add works >/dev/null
	[ "$(sessions_total)" = 1 ]
}

@test "pool: each command goes through the pool, one session each; not with DAICHO_POOL=off, nor another PGUSER, PGAPPNAME or HOME" {
	pg_only
	start_pool
	local n=0 cmd
	for cmd in "add one" "add two --after 1" "ls" "show 1" "--as w1 claim --next" \
	    "--as w1 report 1" "events" "export" "--json status"; do
		# shellcheck disable=SC2086
		daicho $cmd >/dev/null || fail "'daicho $cmd' failed"
		n=$((n + 1))
		[ "$(sessions_total)" = "$n" ] || fail "after 'daicho $cmd': $(pool_json)"
	done
	# A refused command is a session too, and its error is the same one line.
	refused 3 daicho show 99
	n=$((n + 1))
	[ "$(sessions_total)" = "$n" ]
	[ "$(pool_json | jq .sessions_now)" = 0 ]

	# Not through this pool: each of these would connect differently (or
	# was told not to); each still works, directly.
	DAICHO_POOL=off daicho add direct-1 >/dev/null
	# (The address names its user: another PGUSER changes nothing of the
	# connection, but the pool cannot know that.)
	PGUSER=someone daicho add direct-2 >/dev/null
	PGAPPNAME=someone-else daicho add direct-3 >/dev/null
	PGCONNECT_TIMEOUT=7 daicho add direct-4 >/dev/null
	HOME=$TEST_ROOT/elsewhere daicho add direct-5 >/dev/null
	[ "$(sessions_total)" = "$n" ] || fail "a command with another environment used the pool: $(pool_json)"
	[ "$(sql "SELECT count(*) FROM tasks WHERE title LIKE 'direct-%'")" = 5 ]
	# Nor do they find a pool of their own.
	no_pool_answers PGAPPNAME=someone-else
	no_pool_answers PGUSER=someone
	# Another ledger has no pool, and does not use this one.
	local other
	other=$(new_ledger_address "$TEST_ROOT/other.db")
	daicho --ledger "$other" init >/dev/null
	daicho --ledger "$other" add elsewhere >/dev/null
	[ "$(sessions_total)" = "$n" ]
	no_pool_answers DAICHO_LEDGER="$other"
	# The same ledger named on the command line is the same pool.
	daicho --ledger "$DAICHO_LEDGER" ls >/dev/null
	[ "$(sessions_total)" = $((n + 1)) ]
}

# scenario: a fixed sequence of commands on $DAICHO_LEDGER, printing each
# command, its exit status, stdout and stderr, with times masked.
scenario() {
	local cmd
	batch_file "$TEST_ROOT/scenario.jsonl" batch 3
	while IFS= read -r cmd; do
		printf '$ daicho %s\n' "$cmd"
		capture eval "daicho $cmd"
		printf 'exit %d\n%s\n' "$status" "$output"
		[ -z "$stderr" ] || printf 'stderr: %s\n' "$stderr"
	done <<'EOF'
add "first task" --priority 2 --label alpha
add "second task" --after 1 --touches src/a.c
add "third task" --after 1 --after 2 --label alpha --label beta
add --batch scenario.jsonl --label gamma
add ""
add "quotes ' \" and ? ?1 \$1 ünïcødé 日本 -- ; DROP TABLE tasks" --priority -5
ls
--json ls --ready
--as w1 claim --next --lease 10m
--as w2 claim 1
--as w2 claim --next --label alpha
--as w1 save 1 --cost 0.1234 --tokens-in 1000 --tokens-out 20 --model m-1 <<<"the result of one"
--as w1 save 1 --cost 1e-3 --tokens-in 9007199254740993 --model m-1 <<<"a second save"
--as w1 report 1 --note "done well"
--as w2 report 1
--json show 1
--json show 3
show 99
--as w1 result 1
--as w2 claim --next
--as w2 release 4
--as w2 claim 4
--as w2 block 4 --reason "needs a human"
cancel 6
ls
--json ls
log 1
events
--json events
--json agents
usage
--json usage
--json show 7
export
EOF
}

# masked: stdin with times, durations, pids and the events' hashes (which
# chain their times) replaced by words, and the ledger's address by LEDGER.
masked() {
	sed -E -e "s#$(printf '%s' "$DAICHO_LEDGER" | sed 's/[][\.*^$?#]/\\&/g')#LEDGER#g" \
	    -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z/TIME/g' \
	    -e 's/("[a-z_]*_ms"):[0-9]+/\1:MS/g' -e 's/"pid":[0-9]+/"pid":PID/g' \
	    -e 's/\b[0-9]+(ms|s|m|h|d)\b( ago| left)?/DUR\2/g' \
	    -e 's/(_ms\\":)[0-9]+/\1MS/g' -e 's/"hash":"[0-9a-f]{64}"/"hash":HASH/g'
}

@test "pool: a scripted session gives the same output through the pool as directly" {
	pg_only
	local direct pooled
	pooled=$DAICHO_LEDGER
	direct=$(new_ledger_address "$TEST_ROOT/direct.db")
	daicho --ledger "$direct" init >/dev/null
	start_pool
	# Through the pool (every command is one session: checked below).
	scenario | masked >"$TEST_ROOT/pooled.out"
	local sessions
	sessions=$(sessions_total)
	[ "$sessions" -ge 28 ] || fail "only $sessions commands went through the pool"
	# Directly, on a ledger of its own.
	(
		export DAICHO_LEDGER=$direct DAICHO_POOL=off
		scenario | masked >"$TEST_ROOT/direct.out"
	)
	[ "$(sessions_total)" = "$sessions" ] || fail "the direct run used the pool"
	diff -u "$TEST_ROOT/direct.out" "$TEST_ROOT/pooled.out" ||
		fail "output through the pool differs from output direct (above)"
	# And the ledgers hold the same rows, times aside.
	ledger_data "$pooled" | masked_rows >"$TEST_ROOT/pooled.rows"
	ledger_data "$direct" | masked_rows >"$TEST_ROOT/direct.rows"
	diff -u "$TEST_ROOT/direct.rows" "$TEST_ROOT/pooled.rows" || fail "the ledgers differ (above)"
	# The sequence did what it says (not two runs of one same failure).
	grep -q '^exit 4' "$TEST_ROOT/pooled.out"
	[ "$(sql "SELECT state FROM tasks WHERE id = 1")" = reported ]
	[ "$(sql "SELECT count(*) FROM tasks")" = 7 ]
}

# masked_rows: ledger_data's rows with their times (13-digit numbers),
# pids and the events' hashes (which chain their times) masked.
masked_rows() {
	sed -E 's/\b1[0-9]{12}\b/MS/g; s/"pid":[0-9]+/"pid":PID/g; s/\b[0-9a-f]{64}\b/HASH/g'
}

@test "pool: a client killed -9 inside a write transaction: the pool rolls it back, the write lock is free at once, nothing of it is in the ledger" {
	pg_only
	daicho add "claim me" >/dev/null
	start_pool
	snapshot_ledger
	stall_batch killed
	local client=$STALLED
	# Frozen inside its transaction: the pool's connection holds the lock
	# and waits for the client's next statement.
	sleep 0.3
	lock_held || fail "the write lock went while the client was stopped"
	[ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
	          AND state = 'idle in transaction'")" = 1 ] || fail "no transaction open: $(sql "SELECT state, query FROM pg_stat_activity WHERE datname = current_database()")"
	[ "$(pool_json | jq .sessions_now)" = 1 ]
	kill -9 "$client"
	local rc=0
	wait "$client" || rc=$?
	[ "$rc" -eq 137 ] || fail "the client ended with $rc: $(cat "$TEST_ROOT/client.err")"
	# The pool notices at once, rolls back and frees the lock.
	wait_for 30 lock_free || fail "the write lock is still held 30 s after the client died"
	[ "$(titles_like killed)" = 0 ] || fail "$(titles_like killed) tasks of the killed batch are in the ledger"
	assert_ledger_unchanged
	# The lock is free (seen above, not timed): the next writer has it.
	lock_free || fail "the write lock was taken again"
	DAICHO_BUSY_TIMEOUT=30s daicho --as w1 claim 1 >/dev/null || fail "claim after the kill: exit $?"
	[ "$(sql "SELECT owner IS NOT NULL FROM tasks WHERE id = 1")" = t ]
	# The pool serves on, on the connection it cleaned.
	[ "$(pool_json | jq .sessions_now)" = 0 ]
	daicho add after >/dev/null
	[ "$(sql "SELECT count(*) FROM tasks WHERE title = 'after'")" = 1 ]
}

@test "pool: a write sent on with the next statement (the event, the take) and refused undoes the claim: as directly, the ledger unchanged, the pool serves on" {
	pg_only
	batch_file "$TEST_ROOT/three.jsonl" job 3
	daicho add --batch "$TEST_ROOT/three.jsonl" >/dev/null
	start_pool
	daicho --as w1 claim --next >/dev/null
	# The server refuses every claim event: the claim's last write, which
	# the pool's client sends together with the COMMIT, not on its own.
	sql "CREATE FUNCTION refuse_claims() RETURNS trigger LANGUAGE plpgsql AS \$\$
	     BEGIN IF NEW.kind = 'claim' THEN RAISE EXCEPTION 'claims may not be recorded'; END IF;
	     RETURN NEW; END \$\$" >/dev/null
	sql "CREATE TRIGGER refuse_claims BEFORE INSERT ON events FOR EACH ROW
	     EXECUTE FUNCTION refuse_claims()" >/dev/null
	snapshot_ledger
	local before
	before=$(sessions_total)
	capture daicho --as w1 claim --next
	[ "$status" -eq 1 ] || fail "through the pool: exit $status, '$output' '$stderr'"
	[ -z "$output" ] || fail "it printed a claimed id: '$output'"
	[ "${#stderr_lines[@]}" -eq 1 ] || fail "not one line: '$stderr'"
	[[ "$stderr" == *"claims may not be recorded"* ]] || fail "the reason is not said: '$stderr'"
	[ "$(sessions_total)" -gt "$before" ] || fail "the claim did not go through the pool"
	assert_ledger_unchanged
	# A claim by id, and a directly connected one: the same refusal.
	capture daicho --as w1 claim 3
	[ "$status" -eq 1 ] && [[ "$stderr" == *"claims may not be recorded"* ]] ||
		fail "claim 3 through the pool: exit $status, '$stderr'"
	capture env DAICHO_POOL=off daicho --as w1 claim --next
	[ "$status" -eq 1 ] && [[ "$stderr" == *"claims may not be recorded"* ]] ||
		fail "directly: exit $status, '$stderr'"
	assert_ledger_unchanged
	lock_free || fail "the write lock is still held"
	# The claim's own update goes with the read of what it set: refused
	# there, the same.
	sql "DROP TRIGGER refuse_claims ON events" >/dev/null
	sql "CREATE FUNCTION refuse_taking() RETURNS trigger LANGUAGE plpgsql AS \$\$
	     BEGIN IF NEW.state = 'claimed' THEN RAISE EXCEPTION 'tasks may not be taken'; END IF;
	     RETURN NEW; END \$\$" >/dev/null
	sql "CREATE TRIGGER refuse_taking BEFORE UPDATE ON tasks FOR EACH ROW
	     EXECUTE FUNCTION refuse_taking()" >/dev/null
	local how
	for how in on off; do
		capture env DAICHO_POOL=$how daicho --as w1 claim --next
		[ "$status" -eq 1 ] && [[ "$stderr" == *"tasks may not be taken"* ]] ||
			fail "DAICHO_POOL=$how: exit $status, '$output' '$stderr'"
	done
	assert_ledger_unchanged
	sql "DROP TRIGGER refuse_taking ON tasks" >/dev/null
	# The pool's connections were left clean: the next commands through
	# it run, and write.
	before=$(sessions_total)
	[ "$(daicho --as w1 claim --next)" = 2 ] || fail "the next claim through the pool failed"
	daicho add after >/dev/null || fail "add after the refusals: exit $?"
	[ "$(sessions_total)" -ge $((before + 2)) ] || fail "they did not go through the pool"
	[ "$(sql "SELECT count(*) FROM events WHERE kind = 'claim' AND task = 2")" = 1 ]
}

@test "pool: the pool killed -9 during a stream of writes: each command succeeded, or failed with exit 75 and left nothing; then commands run directly and a new pool starts" {
	pg_only
	start_pool
	local old_socket=$POOL_SOCKET old_pid=$POOL_PID
	# A stream of single adds, each recording its exit status.
	(
		for ((i = 1; i <= 400; i++)); do
			rc=0
			daicho add "stream-$i" >/dev/null 2>>"$TEST_ROOT/stream.err" || rc=$?
			echo "$i $rc"
			if [ -e "$TEST_ROOT/stream.stop" ]; then break; fi
		done >"$TEST_ROOT/stream.rc"
	) &
	local stream=$!
	BG_PIDS+=("$stream")
	# And a batch, caught inside its transaction when the pool dies.
	batch_file "$TEST_ROOT/big.jsonl" batch 20000
	wait_for 60 eval '[ "$(wc -l <"$TEST_ROOT/stream.rc")" -ge 10 ]' || fail "the stream does not run"
	daicho add --batch "$TEST_ROOT/big.jsonl" >"$TEST_ROOT/batch.out" 2>"$TEST_ROOT/batch.err" &
	local batch=$!
	BG_PIDS+=("$batch")
	wait_for 60 long_write_open || fail "the batch never took the write lock"
	kill -9 "$old_pid"
	# The batch fails: exit 75, one line, nothing of it applied.
	local rc=0
	wait "$batch" || rc=$?
	[ "$rc" -eq 75 ] || fail "the batch: exit $rc (stderr: $(cat "$TEST_ROOT/batch.err"))"
	[ ! -s "$TEST_ROOT/batch.out" ] || fail "the batch printed ids: $(head -3 "$TEST_ROOT/batch.out")"
	[ "$(wc -l <"$TEST_ROOT/batch.err")" -eq 1 ] && grep -q '^daicho: ' "$TEST_ROOT/batch.err" ||
		fail "the batch's stderr: $(cat "$TEST_ROOT/batch.err")"
	# The stream goes on (directly) for a while, then stops.
	sleep 0.5
	touch "$TEST_ROOT/stream.stop"
	wait "$stream"
	wait_for 30 lock_free || fail "the write lock is still held"
	[ "$(titles_like batch)" = 0 ] || fail "$(titles_like batch) tasks of the failed batch are in the ledger"
	# Every add succeeded (and is there once), or exited 75 (and is not).
	local bad
	sql "SELECT title FROM tasks WHERE title LIKE 'stream-%'" >"$TEST_ROOT/stream.titles"
	bad=$(awk 'FILENAME == ARGV[1] { n[$1]++; next }
		{ t = "stream-" $1; c = n[t] + 0 }
		!(($2 == 0 && c == 1) || ($2 == 75 && c == 0)) { printf " %s(exit %s, %d in the ledger)", t, $2, c }' \
		"$TEST_ROOT/stream.titles" "$TEST_ROOT/stream.rc")
	[ -z "$bad" ] || fail "commands whose outcome is not what their exit says:$bad (stderr: $(cat "$TEST_ROOT/stream.err"))"
	[ "$(grep -c ' 0$' "$TEST_ROOT/stream.rc")" -ge 10 ] || fail "the stream: $(cat "$TEST_ROOT/stream.rc")"
	grep -v '^daicho: ' "$TEST_ROOT/stream.err" && fail "stream stderr not daicho's lines"
	# The dead pool left its socket: nobody answers there, commands run
	# directly, and a new pool starts in its place.
	[ -S "$old_socket" ] || fail "(the killed pool's socket is gone: this test no longer tests a stale one)"
	refused 3 daicho pool status
	refused 3 daicho pool stop
	daicho add direct-after >/dev/null
	start_pool
	[ "$POOL_SOCKET" = "$old_socket" ]
	daicho add pooled-after >/dev/null
	[ "$(sessions_total)" = 1 ]
	[ "$(sql "SELECT count(*) FROM tasks WHERE title LIKE '%-after'")" = 2 ]
}

# mutant: pool_on_lost_early() never called (the command fails with 75, as
# before): every claim below exits 75.
@test "pool: the pool killed -9 while claims queue for the write lock, none begun: each starts again directly and claims, none exits 75" {
	pg_only
	start_pool
	batch_file "$TEST_ROOT/tasks.jsonl" queued 20
	daicho add --batch "$TEST_ROOT/tasks.jsonl" >/dev/null
	# A psql session holds the write lock: the claims go through the pool
	# and queue behind it, their transaction not begun for them yet.
	mkfifo "$TEST_ROOT/psql.in"
	psql -X -q -v ON_ERROR_STOP=1 "$DAICHO_LEDGER" <"$TEST_ROOT/psql.in" >"$TEST_ROOT/psql.out" 2>&1 &
	local psql_pid=$! k
	BG_PIDS+=("$psql_pid")
	exec 7>"$TEST_ROOT/psql.in"
	echo "BEGIN; SELECT pg_advisory_xact_lock(111542802573423);" >&7
	wait_for 60 lock_held || fail "psql never took the write lock: $(cat "$TEST_ROOT/psql.out")"
	for ((k = 1; k <= 12; k++)); do
		(
			rc=0
			daicho --as "w$k" claim --next >"$TEST_ROOT/out.$k" 2>"$TEST_ROOT/err.$k" || rc=$?
			echo "$rc" >"$TEST_ROOT/rc.$k"
		) &
		BG_PIDS+=("$!")
	done
	wait_for 60 eval '[ "$(sql "SELECT count(*) FROM pg_locks WHERE locktype = '"'advisory'"' AND NOT granted")" -ge 12 ]' ||
		fail "the claims never queued for the lock"
	[ "$(sessions_total)" -ge 12 ] || fail "the claims did not go through the pool"
	kill -9 "$POOL_PID"
	echo "COMMIT;" >&7
	exec 7>&-
	wait "$psql_pid" || fail "psql: $(cat "$TEST_ROOT/psql.out")"
	wait_for 60 eval '[ "$(ls "$TEST_ROOT"/rc.* 2>/dev/null | wc -l)" -eq 12 ]' || fail "the claims never ended"
	local ids=""
	for ((k = 1; k <= 12; k++)); do
		[ "$(cat "$TEST_ROOT/rc.$k")" = 0 ] ||
			fail "claim $k: exit $(cat "$TEST_ROOT/rc.$k"): $(cat "$TEST_ROOT/err.$k")"
		[ ! -s "$TEST_ROOT/err.$k" ] || fail "claim $k said: $(cat "$TEST_ROOT/err.$k")"
		ids+="$(cat "$TEST_ROOT/out.$k") "
	done
	# Twelve tasks, each claimed once, each by the claim that says so.
	[ "$(tr ' ' '\n' <<<"$ids" | grep -c .)" = 12 ] || fail "ids: $ids"
	[ "$(tr ' ' '\n' <<<"$ids" | grep . | sort -u | wc -l)" = 12 ] || fail "a task twice: $ids"
	[ "$(sql "SELECT count(*) FROM tasks WHERE state = 'claimed'")" = 12 ]
	[ "$(sql "SELECT count(*) FROM events WHERE kind = 'claim'")" = 12 ]
}

@test "pool: the pool killed -9 while a command commits: it never says nothing was applied when it was" {
	pg_only
	# A commit that takes a while (a slow disk, a busy server): a deferred
	# trigger sleeps at COMMIT for the task titled 'slow'.
	sql "CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS
	     \$\$ BEGIN PERFORM pg_sleep(2); RETURN NULL; END \$\$;
	     CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON tasks
	     DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.title = 'slow')
	     EXECUTE FUNCTION slow_commit()"
	start_pool
	daicho add slow >"$TEST_ROOT/slow.out" 2>"$TEST_ROOT/slow.err" &
	local client=$!
	BG_PIDS+=("$client")
	wait_for 60 eval '[ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE wait_event = '\''PgSleep'\''
	    AND datname = current_database()")" = 1 ]' || fail "the commit never started"
	kill -9 "$POOL_PID"
	local rc=0
	wait "$client" || rc=$?
	# Let the server finish what it was doing.
	wait_for 30 lock_free || fail "the write lock is still held"
	local n
	n=$(sql "SELECT count(*) FROM tasks WHERE title = 'slow'")
	local said
	said=$(cat "$TEST_ROOT/slow.err")
	case "$rc:$n" in
	0:1 | 75:0) ;;
	# The server committed and the answer was lost with the pool: the
	# command cannot know. It must say so, and must not say that nothing
	# was kept: a caller told that retries, and adds the task twice.
	75:1)
		[[ "$said" == *"may or may not have been made"*"before retrying"* ]] ||
			fail "exit 75, the task added, and the error does not say it may have been: '$said'"
		[[ "$said" != *"nothing of"* ]] ||
			fail "exit 75 says nothing was kept, but the task was added: '$said'"
		;;
	*) fail "exit $rc, $n tasks 'slow' (stdout '$(cat "$TEST_ROOT/slow.out")', stderr '$said')" ;;
	esac
	[ "$(wc -l <"$TEST_ROOT/slow.err")" -le 1 ] || fail "stderr: $said"
}

@test "pool: a frozen pool (stopped with SIGSTOP, or Ctrl-Z on --foreground) makes no command hang" {
	pg_only
	start_pool
	daicho add before >/dev/null
	kill -STOP "$POOL_PID"
	# A command either runs directly or fails (75) once the pool has not
	# answered its hello within its busy timeout; it never waits for ever
	# on a pool that does not answer (60 s: a hang, on any machine).
	local rc=0
	DAICHO_TRACE_POOL=$TEST_ROOT/during.trace DAICHO_BUSY_TIMEOUT=1s \
	    timeout 60 daicho add during >/dev/null 2>"$TEST_ROOT/during.err" || rc=$?
	[ "$rc" -ne 124 ] || fail "'daicho add' still waited for the frozen pool after 60 s"
	[ "$rc" -eq 0 ] || [ "$rc" -eq 75 ] || fail "exit $rc: $(cat "$TEST_ROOT/during.err")"
	[ "$(cut -d' ' -f2 "$TEST_ROOT/during.trace")" = silent ] ||
		fail "the pool's session: $(cat "$TEST_ROOT/during.trace") (want: one, given up as silent)"
	# Nor do the pool's own commands: they say it does not answer.
	capture timeout 15 daicho pool status
	[ "$status" -ne 124 ] || fail "'daicho pool status' waits for ever on a frozen pool"
	assert_refused 1
	stderr_contains "did not answer"
	capture timeout 15 daicho pool start
	[ "$status" -ne 124 ] || fail "'daicho pool start' waits for ever on a frozen pool"
	assert_refused 4
	# Thawed, it serves again.
	kill -CONT "$POOL_PID"
	# (It first answers the hellos queued while it was stopped, to clients
	# gone since: let it.)
	sleep 0.5
	local before
	before=$(sessions_total)
	daicho add after >/dev/null
	[ "$(sessions_total)" = $((before + 1)) ]
	[ "$(sql "SELECT count(*) FROM tasks")" = 3 ]
}

# attach_frozen_client: a command attached to the pool and stopped inside
# its write transaction (SIGSTOP in a large batch); its pid in FROZEN.
attach_frozen_client() {
	batch_file "$TEST_ROOT/frozen.jsonl" frozen 20000
	daicho add --batch "$TEST_ROOT/frozen.jsonl" >/dev/null 2>&1 &
	FROZEN=$!
	BG_PIDS+=("$FROZEN")
	wait_for 60 lock_held || fail "the batch never took the write lock"
	kill -STOP "$FROZEN"
	[ "$(pool_json | jq .sessions_now)" = 1 ] || fail "the batch is not in the pool: $(pool_json)"
}

@test "pool: 'pool stop' then 'pool start' at once, while a command is still attached to the old pool: the new one starts" {
	pg_only
	start_pool
	local old=$POOL_PID
	attach_frozen_client
	ok daicho pool stop
	refused 3 daicho pool status
	# What status says, start agrees with: no pool serves, so one starts.
	start_pool
	[ "$POOL_PID" != "$old" ]
	kill -9 "$FROZEN"
	DAICHO_BUSY_TIMEOUT=30s daicho add through-the-new-one >/dev/null
	[ "$(sessions_total)" = 1 ]
	[ "$(titles_like frozen)" = 0 ] || fail "the frozen batch left $(titles_like frozen) tasks"
}

# ask_approval: an agent's login and a person's (make_login_roles), and an
# approval the agent asked for (#1). Sets BARE_LEDGER too: the address
# without its user (the login then comes from PGUSER).
ask_approval() {
	make_login_roles
	BARE_LEDGER=${DAICHO_LEDGER/&user=${PGUSER:-postgres}/}
	[ "$BARE_LEDGER" != "$DAICHO_LEDGER" ] || fail "no user in $DAICHO_LEDGER"
	daicho gate add 'git push*' --approval >/dev/null
	DAICHO_LEDGER=$AGENT_LEDGER run daicho --as a1 gate exec -- git push origin main
	[ "$status" -eq 6 ] || fail "gate exec: exit $status: $output"
}

@test "pool: a pool started with an agent's login cannot approve: the same refusal, naming the role, as directly" {
	pg_only
	ask_approval
	start_pool DAICHO_LEDGER="$AGENT_LEDGER"
	# The guard refuses the first of the person's writes to reach it: the
	# approval, or the person's heartbeat before it when their last-seen
	# time is due (once a second). Due in both runs, whatever the load, so
	# that both meet the same write first.
	sql "UPDATE agents SET last_seen_ms = 1 WHERE name = '$(id -un)'" >/dev/null
	snapshot_ledger
	on_pty env DAICHO_LEDGER="$AGENT_LEDGER" daicho approve 1
	[ "$status" -eq 6 ] || fail "exit $status: $output"
	[[ "$output" == *"needs the daicho_human role (connected as $AGENT_ROLE)"* ]] || fail "$output"
	[ "$(grep -c . <<<"$output")" -eq 1 ] || fail "not one line: $output"
	[ "$(sessions_total DAICHO_LEDGER="$AGENT_LEDGER")" = 1 ] || fail "approve did not go through the agent's pool"
	# Directly, the very same line.
	local pooled=$output
	on_pty env DAICHO_LEDGER="$AGENT_LEDGER" DAICHO_POOL=off daicho approve 1
	[ "$status" -eq 6 ] && [ "$output" = "$pooled" ] || fail "direct: $status '$output', pooled: '$pooled'"
	assert_ledger_unchanged
	[ "$(sql "SELECT state FROM approvals WHERE id = 1")" = pending ]
	# A person's login does not use the agent's pool, and approves.
	on_pty env DAICHO_LEDGER="$HUMAN_LEDGER" daicho approve 1
	[ "$status" -eq 0 ] || fail "exit $status: $output"
	[ "$(sessions_total DAICHO_LEDGER="$AGENT_LEDGER")" = 1 ]
	[ "$(sql "SELECT state, decided_by FROM approvals WHERE id = 1")" = "approved|$HUMAN_ROLE" ]
}

@test "pool: a pool started by a person is not used by a command with an agent's PGUSER, which cannot approve" {
	pg_only
	ask_approval
	# The login comes from PGUSER: the address names none.
	start_pool DAICHO_LEDGER="$BARE_LEDGER" PGUSER="$HUMAN_ROLE"
	snapshot_ledger
	on_pty env DAICHO_LEDGER="$BARE_LEDGER" PGUSER="$AGENT_ROLE" daicho approve 1
	[ "$status" -eq 6 ] || fail "exit $status: $output"
	[[ "$output" == *"needs the daicho_human role (connected as $AGENT_ROLE)"* ]] || fail "$output"
	[ "$(sessions_total DAICHO_LEDGER="$BARE_LEDGER" PGUSER="$HUMAN_ROLE")" = 0 ] ||
		fail "the agent's command went through the person's pool"
	no_pool_answers DAICHO_LEDGER="$BARE_LEDGER" PGUSER="$AGENT_ROLE"
	assert_ledger_unchanged
	# The person, through the pool, approves as the person's login.
	on_pty env DAICHO_LEDGER="$BARE_LEDGER" PGUSER="$HUMAN_ROLE" daicho approve 1
	[ "$status" -eq 0 ] || fail "exit $status: $output"
	[ "$(sessions_total DAICHO_LEDGER="$BARE_LEDGER" PGUSER="$HUMAN_ROLE")" = 1 ]
	[ "$(sql "SELECT state, decided_by FROM approvals WHERE id = 1")" = "approved|$HUMAN_ROLE" ]
}

@test "pool: a pool directory others may enter (0777, another owner, a link) is refused by start and never used by commands" {
	pg_only
	local dir=$XDG_RUNTIME_DIR/daicho
	mkdir -m 777 "$dir"
	chmod 777 "$dir"
	snapshot_ledger
	refused 1 daicho pool start
	stderr_contains "$dir is not a directory of this user's alone"
	refused 1 daicho pool status
	stderr_contains "$dir"
	[ -z "$(ls "$dir")" ] || fail "something was made in $dir: $(ls -la "$dir")"
	assert_ledger_unchanged
	daicho add works-anyway >/dev/null

	# A pool that served, then its directory opened to all: commands
	# no longer trust its socket (anyone could have put one there).
	chmod 700 "$dir"
	start_pool
	daicho add through >/dev/null
	[ "$(sessions_total)" = 1 ]
	chmod 777 "$dir"
	daicho add not-through >/dev/null
	chmod 700 "$dir"
	[ "$(sessions_total)" = 1 ] || fail "a command used a socket in a directory open to all"
	end_pool "$POOL_PID"

	# Another owner's directory, and a link to one of ours.
	if [ "$(id -u)" = 0 ]; then
		chown nobody "$dir"
		refused 1 daicho pool start
		stderr_contains "this user's alone"
		chown root "$dir"
	fi
	mv "$dir" "$XDG_RUNTIME_DIR/real"
	ln -s real "$dir"
	refused 1 daicho pool start
	stderr_contains "this user's alone"
	daicho add still-works >/dev/null
	[ "$(sql "SELECT count(*) FROM tasks")" = 4 ]
}

@test "pool: commands that stay (status --watch, events --follow, sweep --every) connect directly: not in the pool, woken by commits made through it, and a pool stop does not end them" {
	pg_only
	start_pool
	# status --watch redraws only when told of a change (no timer here).
	daicho --json status --watch >"$TEST_ROOT/watch.out" 2>"$TEST_ROOT/watch.err" &
	local watcher=$!
	BG_PIDS+=("$watcher")
	daicho events --follow >"$TEST_ROOT/follow.out" 2>"$TEST_ROOT/follow.err" &
	local follower=$!
	BG_PIDS+=("$follower")
	daicho sweep --every 1h -v >"$TEST_ROOT/sweep.out" 2>"$TEST_ROOT/sweep.err" &
	local sweeper=$!
	BG_PIDS+=("$sweeper")
	wait_for 60 eval '[ "$(wc -l <"$TEST_ROOT/watch.out")" -ge 1 ]' || fail "no first frame"
	wait_for 60 eval '[ "$(wc -l <"$TEST_ROOT/sweep.out")" -ge 1 ]' || fail "no first sweep: $(cat "$TEST_ROOT/sweep.err")"
	[ "$(pool_json | jq .sessions_now)" = 0 ] || fail "a watcher is in the pool: $(pool_json)"
	[ "$(sessions_total)" = 0 ]
	daicho add "seen through the pool" >/dev/null
	[ "$(sessions_total)" = 1 ]
	# No timer redraws or prints here: what appears was woken by the change.
	wait_for 30 grep -q 'seen through the pool' "$TEST_ROOT/watch.out" || fail "status --watch did not wake: $(cat "$TEST_ROOT/watch.out" "$TEST_ROOT/watch.err")"
	wait_for 30 grep -q 'added #1 seen through the pool' "$TEST_ROOT/follow.out" || fail "events --follow: $(cat "$TEST_ROOT/follow.out" "$TEST_ROOT/follow.err")"
	ok daicho pool stop
	daicho add "after the pool" >/dev/null
	wait_for 30 grep -q 'added #2 after the pool' "$TEST_ROOT/follow.out" || fail "events --follow ended with the pool: $(cat "$TEST_ROOT/follow.out" "$TEST_ROOT/follow.err")"
	wait_for 30 grep -q 'after the pool' "$TEST_ROOT/watch.out" || fail "status --watch ended with the pool: $(cat "$TEST_ROOT/watch.err")"
	kill -0 "$watcher" || fail "status --watch ended"
	kill -0 "$follower" || fail "events --follow ended"
	kill -0 "$sweeper" || fail "sweep --every ended: $(cat "$TEST_ROOT/sweep.err")"
	[ ! -s "$TEST_ROOT/watch.err" ] || fail "status --watch: $(cat "$TEST_ROOT/watch.err")"
	[ ! -s "$TEST_ROOT/follow.err" ] || fail "events --follow: $(cat "$TEST_ROOT/follow.err")"
	[ ! -s "$TEST_ROOT/sweep.err" ] || fail "sweep --every: $(cat "$TEST_ROOT/sweep.err")"
}

@test "pool: --idle 1s: the pool stops by itself once no command has run for a second, not while one runs" {
	pg_only
	start_pool -- --idle 1s
	daicho add one >/dev/null
	# A command attached for longer than the idle time keeps it.
	attach_frozen_client
	sleep 1.5
	[ "$(pool_json | jq .pid)" = "$POOL_PID" ] || fail "the pool stopped while a command ran"
	kill -9 "$FROZEN"
	wait "$FROZEN" || true
	# (Asking for its status every 50 ms, as a monitor would, is no
	# command: it does not keep the pool.)
	wait_for 6 no_pool_answers || fail "the pool still serves 6 s after its last command"
	wait_for 3 eval '! is_pool_process "$POOL_PID"' || fail "the idle pool's process still runs"
	[ ! -e "$POOL_SOCKET" ] || fail "the idle pool left its socket"
	daicho add two >/dev/null
	[ "$(sql "SELECT count(*) FROM tasks")" = 2 ]
}

@test "pool: a socket nobody answers on, or one that answers nonsense, is not a pool: commands run directly and 'pool start' takes its place" {
	pg_only
	local dir=$XDG_RUNTIME_DIR/daicho socket
	mkdir -m 700 "$dir"
	# The path this ledger's pool would have: start one, note it, stop it.
	start_pool
	socket=$POOL_SOCKET
	daicho pool stop >/dev/null
	wait_for 5 eval '! is_pool_process "$POOL_PID"'
	# A server that closes every connection, then one that answers with
	# bytes that are no message (another program, another version).
	local reply
	for reply in close junk; do
		python3 -c '
import os, socket, sys
path, reply = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX)
s.bind(path)
s.listen(16)
print("ready", flush=True)
while True:
    c, _ = s.accept()
    if reply == "junk":
        c.recv(65536)
        c.sendall(b"\x00\x00\x00\x10not a pool reply\xff" * 4)
    c.close()
' "$socket" "$reply" >"$TEST_ROOT/fake.out" 2>&1 &
		local fake=$!
		BG_PIDS+=("$fake")
		wait_for 60 grep -q ready "$TEST_ROOT/fake.out" || fail "no fake server"
		daicho add "with $reply" >/dev/null || fail "add with a '$reply' server at the socket: exit $?"
		capture daicho pool status
		[ "$status" -ne 0 ] && [ -z "$output" ] || fail "status with a fake pool: exit $status, '$output'"
		assert_one_error_line
		kill "$fake"
		wait "$fake" || true
		rm -f "$socket"
	done
	# A socket file left behind (a pool killed, a fake gone): start takes it.
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$socket"
	[ -S "$socket" ]
	daicho add "stale socket" >/dev/null
	refused 3 daicho pool status
	start_pool
	daicho add through >/dev/null
	[ "$(sessions_total)" = 1 ]
	[ "$(sql "SELECT count(*) FROM tasks")" = 4 ]
}

@test "pool: a socket served by another Unix user is not used: the command sends it nothing and runs directly" {
	pg_only
	[ "$(id -u)" = 0 ] || skip "needs root, to serve a socket as another user (nobody)"
	[ -x /usr/bin/python3 ] || skip "needs /usr/bin/python3 (for nobody)"
	# The path this ledger's pool would have.
	start_pool
	local socket=$POOL_SOCKET
	daicho pool stop >/dev/null
	# Bound by us in our own directory, listened on by nobody: the
	# socket's peer (SO_PEERCRED) is nobody.
	setsid /usr/bin/python3 -c '
import os, socket, subprocess, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.dup2(s.fileno(), 3)
child = """
import socket
s = socket.socket(socket.AF_UNIX, fileno=3)
s.listen(16)
print("ready", flush=True)
while True:
    c, _ = s.accept()
    print("got", len(c.recv(65536)), flush=True)
    c.close()
"""
subprocess.run(["runuser", "-u", "nobody", "--", "/usr/bin/python3", "-c", child], pass_fds=(3,))
' "$socket" >"$TEST_ROOT/other.log" 2>&1 &
	BG_GROUPS+=("$!")
	wait_for 60 grep -q ready "$TEST_ROOT/other.log" || fail "no server as nobody: $(cat "$TEST_ROOT/other.log")"
	daicho add "not through nobody" >/dev/null || fail "add: exit $?"
	wait_for 60 grep -q '^got' "$TEST_ROOT/other.log" || fail "the command did not even dial the socket (the test proves nothing)"
	! grep -q '^got [1-9]' "$TEST_ROOT/other.log" || fail "the command sent another user's socket a hello: $(cat "$TEST_ROOT/other.log")"
	[ "$(sql "SELECT count(*) FROM tasks")" = 1 ]
	refused 3 daicho pool status
}

@test "pool: warm connections cut by the server (pg_terminate_backend, as a restart or an idle timeout would) are made again: the next commands succeed" {
	pg_only
	start_pool
	daicho add first >/dev/null
	local n=1 cmd
	for cmd in "add second" "ls" "events" "--as w1 claim --next" "--json status" "show 1"; do
		# Every connection the pool keeps is cut while it waits.
		sql "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		     WHERE datname = current_database() AND pid <> pg_backend_pid()" >/dev/null
		# shellcheck disable=SC2086
		capture daicho $cmd
		[ "$status" -eq 0 ] && [ -z "$stderr" ] ||
			fail "'daicho $cmd' after its warm connection was cut: exit $status: $stderr"
		n=$((n + 1))
		[ "$(sessions_total)" = "$n" ] || fail "'daicho $cmd' did not go through the pool"
	done
	[ "$(sql "SELECT count(*) FROM tasks")" = 2 ]
}

# pool_threads: how many threads the pool's process has now.
pool_threads() {
	ls "/proc/$POOL_PID/task" | wc -l
}

@test "pool: session threads serve one command after another, at most --keep stay idle, and 'pool stop' ends them" {
	pg_only
	start_pool -- --keep 2
	# One command at a time: a thread serves them all in turn.
	for i in 1 2 3 4 5 6; do daicho add "one-$i" >/dev/null; done
	wait_for 3 eval '[ "$(pool_threads)" -le 3 ]' || fail "after commands one at a time: $(pool_threads) threads"
	[ "$(pool_threads)" -ge 2 ] || fail "no session thread was kept: $(pool_threads) threads"
	# Sixteen at once: when they are done, two session threads at most stay.
	for i in $(seq 16); do daicho add "many-$i" >/dev/null & done
	wait
	wait_for 3 eval '[ "$(pool_threads)" -le 3 ]' || fail "after 16 at once, $(pool_threads) threads (2 idle at most, and the main one)"
	[ "$(titles_like one)" = 6 ]
	[ "$(titles_like many)" = 16 ]
	[ "$(sessions_total)" -ge 22 ]
	# Stopping with idle threads is prompt, and the process ends.
	stop_pool 3
}

@test "pool: --active 1 serves one command at a time, the others in turn; one stalled mid-session (SIGSTOP) holds the others up 200 ms, not for ever" {
	pg_only
	batch_file "$TEST_ROOT/four.jsonl" turn 4
	daicho add --batch "$TEST_ROOT/four.jsonl" >/dev/null
	start_pool -- --active 1
	# Four claimers at once, served in turn: each gets a task of its own,
	# and one connection served them all (two if one waited its 200 ms on
	# a slow machine; four, one each, if none waited).
	local i
	for i in 1 2 3 4; do
		daicho --as "w$i" claim --next >"$TEST_ROOT/claim-$i.out" 2>&1 &
	done
	wait
	[ "$(sort -u "$TEST_ROOT"/claim-*.out | grep -c '^[0-9][0-9]*$')" = 4 ] ||
		fail "four claims did not take four tasks: $(cat "$TEST_ROOT"/claim-*.out)"
	[ "$(pool_json | jq .idle_connections)" -le 2 ] ||
		fail "served one at a time, yet the pool keeps $(pool_json | jq .idle_connections) connections"
	# A batch stopped inside its transaction keeps the only turn.
	stall_batch stalled
	local client=$STALLED
	# A read waits its turn for 200 ms, then is served anyway, with no
	# turn free (the pool counts it), not left waiting for the stalled one.
	local t0=$EPOCHREALTIME took_ms late
	late=$(pool_json | jq .served_after_wait)
	DAICHO_TRACE_POOL=$TEST_ROOT/ls.trace capture daicho ls --state claimed
	took_ms=$(((10#${EPOCHREALTIME/./} - 10#${t0/./}) / 1000))
	[ "$status" -eq 0 ] || fail "ls behind a stalled session: exit $status ($stderr)"
	[ "$(grep -c 'turn-' <<<"$output")" = 4 ] || fail "ls printed: $output"
	[ "$took_ms" -ge 200 ] || fail "served after $took_ms ms: it did not wait for its turn"
	[ "$(cut -d' ' -f2 "$TEST_ROOT/ls.trace")" = served ] ||
		fail "ls was not served by the pool: $(cat "$TEST_ROOT/ls.trace")"
	[ "$(pool_json | jq .served_after_wait)" -eq $((late + 1)) ] ||
		fail "ls was not served past the stalled session's turn: $(pool_json)"
	[ "$(pool_json | jq .sessions_now)" = 1 ] || fail "the stalled batch's session is gone"
	kill -9 "$client"
	wait "$client" 2>/dev/null || true
	wait_for 30 lock_free || fail "the write lock is still held 30 s after the batch died"
	[ "$(titles_like stalled)" = 0 ]
}

# lease_of ID: the lease the claim of task ID was given, in ms.
lease_of() {
	daicho show --json "$1" | jq -r '.lease_expires_ms - .claim_named_ms'
}

@test "pool: claim through the pool takes its lease, maximum hold and base from the settings (read with its first statement), as directly; a flag still wins" {
	pg_only
	new_git_repo "$TEST_ROOT/repo"
	cd "$TEST_ROOT/repo"
	git checkout -q -b side
	person daicho config lease 7m >/dev/null
	person daicho config max-hold 2h >/dev/null
	person daicho config trunk main >/dev/null
	batch_file "$TEST_ROOT/five.jsonl" set 5
	daicho add --batch "$TEST_ROOT/five.jsonl" >/dev/null
	start_pool
	local before
	before=$(sessions_total)
	[ "$(daicho --as w1 claim --next)" = 1 ]
	[ "$(sessions_total)" -gt "$before" ] || fail "the claim did not go through the pool"
	[ "$(lease_of 1)" = $((7 * 60000)) ]
	[ "$(task_field 1 max_hold_ms)" = $((2 * 3600000)) ]
	[ "$(task_field 1 claim_base)" = "$(git rev-parse main)" ]
	# Flags win over the settings, for --next and for a named task.
	[ "$(daicho --as w2 claim --next --lease 3m --max-hold 1h)" = 2 ]
	[ "$(lease_of 2)" = $((3 * 60000)) ]
	[ "$(task_field 2 max_hold_ms)" = 3600000 ]
	[ "$(daicho --as w3 claim 4)" = 4 ]
	[ "$(lease_of 4)" = $((7 * 60000)) ]
	# A changed setting is read by the next claim (nothing is kept).
	person daicho config lease 9m >/dev/null
	[ "$(daicho --as w4 claim --next)" = 3 ]
	[ "$(lease_of 3)" = $((9 * 60000)) ]
	# Nothing ready after the settings went ahead: the refusal, and the
	# session serves on.
	[ "$(daicho --as w5 claim --next)" = 5 ]
	capture daicho --as w6 claim --next
	[ "$status" -eq 3 ] || fail "claim with nothing ready: exit $status ($stderr)"
	[[ "$stderr" == *"nothing ready"* ]] || fail "stderr: $stderr"
	# The same claims directly give the same terms.
	[ "$(DAICHO_POOL=off daicho --as w1 claim 1)" = 1 ]
	[ "$(lease_of 1)" = $((9 * 60000)) ]
}

# fifo_stall PREFIX N: N commands attached to the pool and stalled there,
# each a 'daicho add --batch' blocked opening its FIFO
# ($TEST_ROOT/PREFIX-I.fifo), which it does once its session is open: a
# session held, no transaction, no write lock (as an agent piping a slow
# producer into daicho holds one). Their pids in FIFO_STALLED (recorded for
# teardown); feed_fifo_stall PREFIX I lets the I-th add one task.
fifo_stall() {
	local prefix=$1 n=$2 i
	FIFO_STALLED=()
	for ((i = 1; i <= n; i++)); do
		mkfifo "$TEST_ROOT/$prefix-$i.fifo"
		daicho add --batch "$TEST_ROOT/$prefix-$i.fifo" >"$TEST_ROOT/$prefix-$i.out" \
		    2>"$TEST_ROOT/$prefix-$i.err" &
		FIFO_STALLED+=("$!")
		BG_PIDS+=("$!")
	done
}

# feed_fifo_stall PREFIX I: one task, titled PREFIX-I, into the I-th FIFO
# of fifo_stall PREFIX (a writer with no reader would wait for ever: at
# most 5 s).
feed_fifo_stall() {
	timeout 5 sh -c 'printf "{\"title\":\"%s-%s\"}\n" "$1" "$2" >"$3"' sh "$1" "$2" \
	    "$TEST_ROOT/$1-$2.fifo" || fail "nobody reads $1-$2.fifo"
}

# warm_threads PREFIX N: N session threads left idle in the pool (N
# commands served at once, then ended), so that the clients after are
# handed to them, not to new threads. Adds N tasks titled PREFIX-I.
warm_threads() {
	local prefix=$1 n=$2 i rc
	fifo_stall "$prefix" "$n"
	wait_for 60 sessions_now_at_least "$n" || fail "the warm-up commands are not in the pool: $(pool_json)"
	for ((i = 1; i <= n; i++)); do
		feed_fifo_stall "$prefix" "$i"
		rc=0
		wait "${FIFO_STALLED[i - 1]}" || rc=$?
		[ "$rc" -eq 0 ] || fail "warm-up add $i: exit $rc: $(cat "$TEST_ROOT/$prefix-$i.err")"
	done
	wait_for 30 eval '[ "$(pool_json | jq .sessions_now)" = 0 ]' || fail "warm-up sessions left: $(pool_json)"
}

# sessions_now_at_least N: the pool serves N command sessions or more.
sessions_now_at_least() {
	[ "$(pool_json | jq .sessions_now)" -ge "$1" ]
}

# silent_clients N: N connections to the pool's socket that never finish
# a word (a broken or hostile client: half of them send nothing, half a
# length and nothing after), held until killed; the holder's pid in
# SILENT (recorded for teardown). Skips the test without python3.
silent_clients() {
	command -v python3 >/dev/null || skip "needs python3 (for raw connections to the pool)"
	python3 -c '
import socket, sys, time
held = []
for i in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    if i % 2:
        s.sendall(b"\xff\x00\x00\x00")
    held.append(s)
print("ready", flush=True)
time.sleep(3600)
' "$POOL_SOCKET" "$1" >"$TEST_ROOT/silent.out" 2>&1 &
	SILENT=$!
	BG_PIDS+=("$SILENT")
	wait_for 60 grep -q ready "$TEST_ROOT/silent.out" || fail "no silent clients: $(cat "$TEST_ROOT/silent.out")"
}

# timed NAME CMD...: run CMD (for 20 s at most: exit 124 then), its stdout
# and stderr in $TEST_ROOT/NAME.out and NAME.err, "EXIT MS" in NAME.rc.
timed() {
	local name=$1 t0=$EPOCHREALTIME rc=0
	shift
	timeout 20 "$@" >"$TEST_ROOT/$name.out" 2>"$TEST_ROOT/$name.err" || rc=$?
	echo "$rc $(((10#${EPOCHREALTIME/./} - 10#${t0/./}) / 1000))" >"$TEST_ROOT/$name.rc"
}

# all_succeeded PREFIX N: the commands timed as PREFIX-1 ... PREFIX-N each
# exited 0.
all_succeeded() {
	local prefix=$1 n=$2 i rc ms
	for ((i = 1; i <= n; i++)); do
		read -r rc ms <"$TEST_ROOT/$prefix-$i.rc"
		[ "$rc" -eq 0 ] || fail "$prefix-$i: exit $rc after $ms ms: $(cat "$TEST_ROOT/$prefix-$i.err")"
	done
}

# double_claims: tasks claimed more than once (by their claim events).
double_claims() {
	sql "SELECT task || 'x' || count(*) FROM events WHERE kind = 'claim' GROUP BY task HAVING count(*) > 1"
}

@test "pool: more stalled sessions than --active (commands blocked mid-session, sockets that never finish a hello): claims are served by the pool (none gives up on it), each task once" {
	pg_only
	batch_file "$TEST_ROOT/six.jsonl" job 6
	daicho add --batch "$TEST_ROOT/six.jsonl" --label job >/dev/null
	start_pool -- --active 2
	warm_threads warm 3
	fifo_stall stall 3
	wait_for 60 sessions_now_at_least 3 || fail "the stalled commands are not in the pool: $(pool_json)"
	lock_free || fail "(a stalled command holds the write lock: this test would test the lock)"
	# And four connections that never say hello: every turn is taken, and
	# more (2 allowed, 7 held).
	silent_clients 4
	local before i pids=()
	before=$(sessions_total)
	for i in 1 2 3 4 5 6; do
		timed "claim-$i" daicho --as "w$i" claim --next --label job &
		pids+=("$!")
	done
	wait "${pids[@]}"
	# Each served by the pool, not after giving up on it (the count of its
	# sessions says so below, whatever the machine's load).
	all_succeeded claim 6
	[ "$(cat "$TEST_ROOT"/claim-*.out | sort -n | tr '\n' ' ')" = "1 2 3 4 5 6 " ] ||
		fail "six claimers did not take the six tasks once each: $(cat "$TEST_ROOT"/claim-*.out)"
	[ "$(sessions_total)" -eq $((before + 6)) ] ||
		fail "$(($(sessions_total) - before)) of 6 claims were served by the pool (the others gave up on it)"
	[ -z "$(double_claims)" ] || fail "claimed twice: $(double_claims)"
	for i in 1 2 3 4 5 6; do
		[ "$(task_field "$(cat "$TEST_ROOT/claim-$i.out")" owner)" = "w$i" ] || fail "task of claimer $i"
	done
	# The stalled sessions were only slow: each adds its task now.
	for i in 1 2 3; do
		feed_fifo_stall stall "$i"
		rc=0
		wait "${FIFO_STALLED[i - 1]}" || rc=$?
		[ "$rc" -eq 0 ] || fail "stalled add $i: exit $rc: $(cat "$TEST_ROOT/stall-$i.err")"
	done
	[ "$(titles_like stall)" = 3 ]
	kill "$SILENT"
	wait_for 30 eval '[ "$(pool_json | jq .sessions_now)" = 0 ]' || fail "sessions left: $(pool_json)"
}

@test "pool: 'pool stop' and SIGTERM while claims wait their turn behind stalled sessions: no claim is left unanswered, each done once (or exit 75, nothing done); the stalled sessions finish in the grace; the pool ends" {
	pg_only
	local how i rc ms id n_ok pids stopper stop_t0 since_stop_ms
	for how in stop term; do
		batch_file "$TEST_ROOT/$how.jsonl" "$how" 8
		daicho add --batch "$TEST_ROOT/$how.jsonl" --label "$how" >/dev/null
		start_pool -- --active 1
		warm_threads "$how-warm" 2
		fifo_stall "$how-stall" 2
		wait_for 60 sessions_now_at_least 2 || fail "$how: the stalled commands are not in the pool: $(pool_json)"
		lock_free || fail "(a stalled command holds the write lock)"
		# Claims that wait their turn (200 ms) behind the stalled sessions,
		# the pool told to stop meanwhile, and claims that come after.
		pids=()
		for i in 1 2 3 4; do
			DAICHO_TRACE_POOL=$TEST_ROOT/$how-claim-$i.trace \
			    timed "$how-claim-$i" daicho --as "$how-w$i" claim --next --label "$how" &
			pids+=("$!")
		done
		sleep 0.05
		stop_t0=$EPOCHREALTIME
		if [ "$how" = stop ]; then
			timed "$how-stop" daicho pool stop &
			stopper=$!
			sleep 0.05
		else
			kill -TERM "$POOL_PID"
		fi
		for i in 5 6 7 8; do
			DAICHO_TRACE_POOL=$TEST_ROOT/$how-claim-$i.trace \
			    timed "$how-claim-$i" daicho --as "$how-w$i" claim --next --label "$how" &
			pids+=("$!")
		done
		wait "${pids[@]}"
		if [ "$how" = stop ]; then
			wait "$stopper"
			read -r rc ms <"$TEST_ROOT/$how-stop.rc"
			[ "$rc" -eq 0 ] || fail "pool stop: exit $rc after $ms ms: $(cat "$TEST_ROOT/$how-stop.err")"
			# It returned once the pool took no new clients, not when
			# its sessions ended: the stalled ones go on until fed.
			refused 3 daicho pool status
			is_pool_process "$POOL_PID" || fail "stop: the pool ended with its stalled sessions open"
		fi
		n_ok=0
		for i in 1 2 3 4 5 6 7 8; do
			read -r rc ms <"$TEST_ROOT/$how-claim-$i.rc"
			id=$(cat "$TEST_ROOT/$how-claim-$i.out")
			case "$rc" in
			0)
				n_ok=$((n_ok + 1))
				[ "$(task_field "$id" owner)" = "$how-w$i" ] ||
					fail "$how: claimer $i printed '$id', owned by '$(task_field "$id" owner)'"
				;;
			75) [ -z "$id" ] || fail "$how: claimer $i exit 75, yet printed '$id'" ;;
			*) fail "$how: claimer $i: exit $rc after $ms ms: $(cat "$TEST_ROOT/$how-claim-$i.err")" ;;
			esac
			# None was left waiting in the queue until its hello gave
			# up on the pool (silent; then it would have gone direct):
			# each was served, refused, or found the pool gone or none.
			[ -s "$TEST_ROOT/$how-claim-$i.trace" ] || fail "$how: claimer $i asked no pool"
			if grep -q ' silent$' "$TEST_ROOT/$how-claim-$i.trace"; then
				fail "$how: claimer $i (exit $rc after $ms ms) gave up on the pool: $(cat "$TEST_ROOT/$how-claim-$i.trace")"
			fi
		done
		[ "$(sql "SELECT count(*) FROM tasks t JOIN labels l ON l.task = t.id
		          WHERE l.label = '$how' AND t.state = 'claimed'")" = "$n_ok" ] ||
			fail "$how: $n_ok claims succeeded, but $(sql "SELECT count(*) FROM tasks WHERE state = 'claimed'") tasks are claimed"
		[ "$(sort -u "$TEST_ROOT/$how"-claim-*.out | grep -c .)" = "$n_ok" ] ||
			fail "$how: two claimers printed the same task: $(cat "$TEST_ROOT/$how"-claim-*.out)"
		[ -z "$(double_claims)" ] || fail "$how: claimed twice: $(double_claims)"
		# The stalled sessions run on in the grace (10 s): each adds its
		# task through the stopping pool.
		since_stop_ms=$(((10#${EPOCHREALTIME/./} - 10#${stop_t0/./}) / 1000))
		is_pool_process "$POOL_PID" || fail "$how: the pool ended with sessions running, $since_stop_ms ms after the stop"
		for i in 1 2; do
			feed_fifo_stall "$how-stall" "$i"
			rc=0
			wait "${FIFO_STALLED[i - 1]}" || rc=$?
			[ "$rc" -eq 0 ] || [ "$since_stop_ms" -gt 7000 ] ||
				fail "$how: stalled add $i fed $since_stop_ms ms after the stop: exit $rc: $(cat "$TEST_ROOT/$how-stall-$i.err")"
		done
		# Its sessions over, the pool's process ends: not the grace's 10 s.
		wait_for 5 eval '! is_pool_process "$POOL_PID"' || fail "$how: the pool still runs 5 s after its last session ended"
		refused 3 daicho pool status
		lock_free || fail "$how: the write lock is held"
	done
	[ "$(titles_like stop-stall)" = 2 ] && [ "$(titles_like term-stall)" = 2 ]
}

@test "pool: commands killed -9 while they wait their turn (or just after) leak no turn: with --active 1, the next commands are served at once, sessions_now is 0 and 'pool stop' ends the pool promptly" {
	pg_only
	start_pool -- --active 1
	# The only turn is held: every command now waits 200 ms in the queue.
	fifo_stall hold 1
	wait_for 60 sessions_now_at_least 1 || fail "the stalled command is not in the pool: $(pool_json)"
	local i pids=() rc
	# Killed while waiting (within their 200 ms), then killed once served
	# (each blocked on its FIFO, its session open).
	for i in 1 2 3 4 5 6; do
		mkfifo "$TEST_ROOT/victim-$i.fifo"
		daicho add --batch "$TEST_ROOT/victim-$i.fifo" >/dev/null 2>&1 &
		pids+=("$!")
		BG_PIDS+=("$!")
	done
	daicho --as v1 claim --next >/dev/null 2>&1 &
	pids+=("$!")
	BG_PIDS+=("$!")
	sleep 0.08
	kill -9 "${pids[@]:0:4}" "${pids[6]}"
	wait_for 60 sessions_now_at_least 3 || fail "the last two victims were never served: $(pool_json)"
	kill -9 "${pids[@]:4:2}"
	for i in "${pids[@]}"; do
		rc=0
		wait "$i" || rc=$?
		[ "$rc" -eq 137 ] || fail "a victim ended with $rc before it was killed"
	done
	# The held session ends as it should.
	feed_fifo_stall hold 1
	rc=0
	wait "${FIFO_STALLED[0]}" || rc=$?
	[ "$rc" -eq 0 ] || fail "the held add: exit $rc: $(cat "$TEST_ROOT/hold-1.err")"
	wait_for 30 eval '[ "$(pool_json | jq .sessions_now)" = 0 ]' || fail "sessions left by the killed: $(pool_json)"
	# Twelve commands one after another: a turn still counted for a dead
	# client would make each wait out its 200 ms and be served with no
	# turn free (the pool counts those).
	local before late
	before=$(sessions_total)
	late=$(pool_json | jq .served_after_wait)
	for i in $(seq 12); do
		daicho ls >/dev/null || fail "ls $i failed"
	done
	[ "$(sessions_total)" -eq $((before + 12)) ] || fail "not every ls went through the pool"
	[ "$(pool_json | jq .served_after_wait)" -eq "$late" ] ||
		fail "$(($(pool_json | jq .served_after_wait) - late)) of twelve commands waited for a turn nobody holds"
	[ "$(titles_like hold)" = 1 ]
	[ "$(sql "SELECT count(*) FROM tasks")" = 1 ]
	lock_free
	# Nothing keeps the pool's wind-down waiting (it would for 10 s).
	stop_pool 4
}

@test "pool: 32 claimers at once through --active 1: each served by the pool (none gives up on it), 32 tasks claimed once each, none twice" {
	pg_only
	batch_file "$TEST_ROOT/many.jsonl" many 32
	daicho add --batch "$TEST_ROOT/many.jsonl" >/dev/null
	start_pool -- --active 1
	local before i pids=() rc ms
	before=$(sessions_total)
	for i in $(seq 32); do
		timed "claim-$i" daicho --as "w$i" claim --next &
		pids+=("$!")
	done
	wait "${pids[@]}"
	all_succeeded claim 32
	[ "$(cat "$TEST_ROOT"/claim-*.out | sort -n | uniq | grep -c .)" = 32 ] ||
		fail "32 claimers took $(cat "$TEST_ROOT"/claim-*.out | sort -n | uniq | grep -c .) tasks"
	[ "$(sessions_total)" -eq $((before + 32)) ] ||
		fail "$(($(sessions_total) - before)) of 32 claims were served by the pool"
	[ -z "$(double_claims)" ] || fail "claimed twice: $(double_claims)"
	[ "$(sql "SELECT count(*) FROM tasks WHERE state = 'claimed'")" = 32 ]
	[ "$(sql "SELECT count(DISTINCT owner) FROM tasks")" = 32 ]
	[ "$(sql "SELECT count(*) FROM events WHERE kind = 'claim'")" = 32 ]
	for i in 1 17 32; do
		[ "$(task_field "$(cat "$TEST_ROOT/claim-$i.out")" owner)" = "w$i" ] || fail "task of claimer $i"
	done
	wait_for 30 eval '[ "$(pool_json | jq .sessions_now)" = 0 ]' || fail "sessions left: $(pool_json)"
}

@test "pool: the lease setting changed while claims (new, by id, renewals) read it ahead through the pool: each claim's lease is the old value or the new, its maximum hold three of them" {
	pg_only
	person daicho config lease 7m >/dev/null
	batch_file "$TEST_ROOT/terms.jsonl" terms 24
	daicho add --batch "$TEST_ROOT/terms.jsonl" >/dev/null
	start_pool -- --active 2
	# The setting flips between 7m and 9m all along (directly: the pool's
	# sessions are the claims').
	(
		export DAICHO_POOL=off
		while [ ! -e "$TEST_ROOT/flip.stop" ]; do
			person daicho config lease 9m >/dev/null && person daicho config lease 7m >/dev/null || exit 1
		done
	) &
	local flipper=$!
	BG_PIDS+=("$flipper")
	local i pids=() rc ms round before
	before=$(sessions_total)
	for round in 1 2; do
		pids=()
		for i in $(seq 12); do
			if [ "$round" = 1 ] && [ $((i % 3)) = 0 ]; then
				timed "claim-$round-$i" daicho --as "w$i" claim "$((i + 12))" &
			else
				timed "claim-$round-$i" daicho --as "w$i" claim --next &
			fi
			pids+=("$!")
		done
		wait "${pids[@]}"
		all_succeeded "claim-$round" 12
	done
	# Renewals: each names a task it holds again.
	pids=()
	for i in $(seq 12); do
		timed "renew-$i" daicho --as "w$i" claim "$(cat "$TEST_ROOT/claim-1-$i.out")" &
		pids+=("$!")
	done
	wait "${pids[@]}"
	touch "$TEST_ROOT/flip.stop"
	rc=0
	wait "$flipper" || rc=$?
	[ "$rc" -eq 0 ] || fail "a 'config lease' failed"
	all_succeeded renew 12
	[ "$(sessions_total)" -eq $((before + 36)) ] ||
		fail "$(($(sessions_total) - before)) of 36 claims were served by the pool"
	[ "$(sql "SELECT count(*) FROM tasks WHERE state = 'claimed'")" = 24 ]
	[ -z "$(double_claims)" ] || fail "claimed twice: $(double_claims)"
	# Every lease is 7 or 9 minutes, as set and as counted from the claim;
	# a new claim's maximum hold is three of that same lease.
	local bad
	bad=$(sql "SELECT id || ': lease ' || lease_ms || ', expires +' || (lease_expires_ms - claim_named_ms)
	           || ', hold ' || max_hold_ms FROM tasks
	           WHERE lease_ms NOT IN (420000, 540000) OR lease_expires_ms - claim_named_ms <> lease_ms
	              OR max_hold_ms NOT IN (1260000, 1620000)")
	[ -z "$bad" ] || fail "claims with terms no setting gave: $bad"
	# (A renewal keeps the hold its claim was given.)
	local fresh
	fresh=$(cat "$TEST_ROOT"/claim-2-*.out | paste -sd, -)
	bad=$(sql "SELECT id || ': hold ' || max_hold_ms || ', lease ' || lease_ms FROM tasks
	           WHERE id IN ($fresh) AND max_hold_ms <> 3 * lease_ms")
	[ -z "$bad" ] || fail "new claims whose maximum hold is not three of their lease: $bad"
	for i in 1 6; do
		local lease
		lease=$(lease_of "$(cat "$TEST_ROOT/claim-2-$i.out")")
		[ "$lease" = 420000 ] || [ "$lease" = 540000 ] || fail "show: lease $lease"
	done
}

@test "pool: SIGTERM while a session stalled inside its transaction holds the write lock and claims wait behind it: after the 10 s grace the pool ends, the lock is free, every claim ends (done once, or exit 75 and nothing done)" {
	pg_only
	batch_file "$TEST_ROOT/four.jsonl" job 4
	daicho add --batch "$TEST_ROOT/four.jsonl" >/dev/null
	start_pool -- --active 1
	stall_batch stalled
	local batch=$STALLED i pids=() rc ms id n_ok=0
	# Claims queued behind the stalled batch (and its lock) when the pool
	# is told to stop, and claims after (directly, on the lock).
	for i in 1 2; do
		timed "claim-$i" env DAICHO_BUSY_TIMEOUT=25s daicho --as "w$i" claim --next &
		pids+=("$!")
	done
	sleep 0.05
	local t0=$EPOCHREALTIME
	kill -TERM "$POOL_PID"
	for i in 3 4; do
		timed "claim-$i" env DAICHO_BUSY_TIMEOUT=25s daicho --as "w$i" claim --next &
		pids+=("$!")
	done
	wait_for 18 eval '! is_pool_process "$POOL_PID"' ||
		fail "the pool still runs 18 s after SIGTERM, a session stalled in it"
	local ended_ms=$(((10#${EPOCHREALTIME/./} - 10#${t0/./}) / 1000))
	wait_for 30 lock_free || fail "the write lock is still held after the pool ended"
	wait "${pids[@]}"
	for i in 1 2 3 4; do
		read -r rc ms <"$TEST_ROOT/claim-$i.rc"
		id=$(cat "$TEST_ROOT/claim-$i.out")
		case "$rc" in
		0)
			n_ok=$((n_ok + 1))
			[ "$(task_field "$id" owner)" = "w$i" ] || fail "claimer $i printed '$id', owned by '$(task_field "$id" owner)'"
			;;
		75)
			[ -z "$id" ] || fail "claimer $i: exit 75, yet printed '$id'"
			# Its pool went away: a longer busy timeout is no help.
			! grep -q DAICHO_BUSY_TIMEOUT "$TEST_ROOT/claim-$i.err" ||
				fail "claimer $i, its pool gone, is told to wait longer: $(cat "$TEST_ROOT/claim-$i.err")"
			;;
		*) fail "claimer $i: exit $rc after $ms ms: $(cat "$TEST_ROOT/claim-$i.err")" ;;
		esac
	done
	[ "$(sql "SELECT count(*) FROM tasks WHERE state = 'claimed'")" = "$n_ok" ] ||
		fail "$n_ok claims succeeded, $(sql "SELECT count(*) FROM tasks WHERE state = 'claimed'") tasks are claimed"
	[ -z "$(double_claims)" ] || fail "claimed twice: $(double_claims)"
	# The batch, woken, finds its pool gone: exit 75, nothing of it kept.
	kill -CONT "$batch"
	rc=0
	wait "$batch" || rc=$?
	[ "$rc" -eq 75 ] || fail "the stalled batch: exit $rc: $(cat "$TEST_ROOT/client.err")"
	[ "$(titles_like stalled)" = 0 ] || fail "$(titles_like stalled) tasks of the stalled batch are in the ledger"
	# (It let the stalled session have its grace: not the pool's to cut.)
	[ "$ended_ms" -ge 9000 ] || fail "the pool ended $ended_ms ms after SIGTERM, within the grace"
	# And a new pool serves.
	start_pool
	daicho add after >/dev/null
	[ "$(sessions_total)" = 1 ]
}
