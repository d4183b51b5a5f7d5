#!/usr/bin/env bats
# daicho reserve / unreserve / reservations, and the git pre-commit hook.

load helpers

# beat_until AGENT MS: move the clock to MS in 9-minute steps, AGENT running
# a command at each (an agent unseen for 10 minutes is stale, and its
# reservations lapse).
beat_until() {
	local agent=$1 until=$2
	while ((DAICHO_NOW_MS + 9 * 60000 < until)); do
		export DAICHO_NOW_MS=$((DAICHO_NOW_MS + 9 * 60000))
		daicho ls --as "$agent" >/dev/null
	done
	export DAICHO_NOW_MS=$until
}

T0=1800000000000
SEC=1000
MIN=60000
HOUR=3600000

setup() {
	common_setup
	export DAICHO_NOW_MS=$T0
}

# live_globs: the live reservations as "holder:glob" words, oldest first.
live_globs() {
	daicho reservations --json | jq -r '[.[] | "\(.holder):\(.glob)"] | join(" ")'
}

# overlap A B: agent a holds glob A; whether agent b may then reserve glob
# B: prints "overlap" (refused, exit 4) or "apart" (reserved). Both are
# released again afterwards.
overlap() {
	daicho reserve "$1" --as a || fail "reserve '$1' failed"
	local rc=0
	daicho reserve "$2" --as b 2>/dev/null || rc=$?
	case $rc in
	0) echo apart ;;
	4) echo overlap ;;
	*) fail "reserve '$2' after '$1': exit $rc" ;;
	esac
	daicho unreserve --all --as a >/dev/null
	daicho unreserve --all --as b >/dev/null
}

# --- reserve and reservations ---------------------------------------------------

@test "reserve prints nothing; reservations lists glob, holder, task, source, age, end and holder seen" {
	ok daicho reserve 'src/**' docs/x.md --as a
	assert_output ""
	[ "$(sql "SELECT kind FROM events ORDER BY id DESC LIMIT 1")" = reserve ]
	export DAICHO_NOW_MS=$((T0 + MIN))
	daicho add "a task" >/dev/null
	ok daicho reserve lib/util.c --task 1 --ttl 30m --as b
	assert_output ""
	export DAICHO_NOW_MS=$((T0 + 2 * MIN))
	ok daicho reservations
	assert_line --index 0 --regexp '^GLOB +HOLDER +TASK +SOURCE +AGE +ENDS +HOLDER SEEN$'
	assert_line --index 1 --regexp '^src/\*\* +a +- +reserve +2m +in 2h +2m ago \(2027-01-15T08:00:00Z\)$'
	assert_line --index 2 --regexp '^docs/x\.md +a +- +reserve +2m +in 2h +2m ago \(2027-01-15T08:00:00Z\)$'
	assert_line --index 3 --regexp '^lib/util\.c +b +#1 +reserve +1m +in 29m +1m ago \(2027-01-15T08:01:00Z\)$'
	[ "${#lines[@]}" -eq 4 ] || fail "$output"
	ok daicho reservations --json
	jq -e '. == [
		{"source":"reserve","id":1,"glob":"src/**","task":null,"holder":"a",
		 "holder_seen_ms":'$T0',"created_ms":'$T0',"expires_ms":'$((T0 + 2 * HOUR))'},
		{"source":"reserve","id":2,"glob":"docs/x.md","task":null,"holder":"a",
		 "holder_seen_ms":'$T0',"created_ms":'$T0',"expires_ms":'$((T0 + 2 * HOUR))'},
		{"source":"reserve","id":3,"glob":"lib/util.c","task":1,"holder":"b",
		 "holder_seen_ms":'$((T0 + MIN))',"created_ms":'$((T0 + MIN))',
		 "expires_ms":'$((T0 + MIN + 30 * MIN))'}]' <<<"$output" >/dev/null || fail "$output"
}

@test "reservations with none held prints nothing (JSON: [])" {
	ok daicho reservations
	assert_output ""
	ok daicho reservations --json
	assert_output "[]"
}

@test "another agent's overlapping glob is refused (exit 4) naming the holder, its glob and last seen" {
	daicho reserve 'src/**' --as a
	register_agent b
	export DAICHO_NOW_MS=$((T0 + 12 * SEC))
	snapshot_ledger
	refused 4 daicho reserve src/main.c --as b
	stderr_contains "src/main.c overlaps src/**, reserved by a"
	stderr_contains "last seen 12s ago at 2027-01-15T08:00:00Z"
	assert_ledger_unchanged
	[ "$(live_globs)" = "a:src/**" ]
	# a broader glob of the other agent is refused the same way
	refused 4 daicho reserve '**' --as b
	stderr_contains "** overlaps src/**, reserved by a"
	assert_ledger_unchanged
}

@test "globs that do not overlap are held by different agents at once" {
	ok daicho reserve 'src/**' --as a
	ok daicho reserve docs/x --as b
	[ "$(live_globs)" = "a:src/** b:docs/x" ]
}

@test "reserving an overlapping glob you hold yourself is fine; reserving it again renews it" {
	ok daicho reserve 'src/**' --ttl 1h --as a
	ok daicho reserve src/main.c --as a
	beat_until a $((T0 + 30 * MIN))
	ok daicho reserve 'src/**' --as a
	[ "$(sql "SELECT count(*) FROM reservations WHERE glob = 'src/**'")" = 1 ]
	[ "$(sql "SELECT expires_ms FROM reservations WHERE glob = 'src/**'")" = $((T0 + 30 * MIN + 2 * HOUR)) ]
	[ "$(sql "SELECT created_ms FROM reservations WHERE glob = 'src/**'")" = $T0 ]
	# past the first --ttl (1h) it is still held: the renewal counts
	beat_until a $((T0 + 61 * MIN))
	daicho ls --as a >/dev/null
	refused 4 daicho reserve src/x.c --as b
}

@test "reserve is all or nothing: one conflicting or invalid glob reserves none" {
	daicho reserve 'docs/**' --as a
	register_agent b
	snapshot_ledger
	refused 4 daicho reserve src/a.c docs/x lib/y --as b
	stderr_contains "docs/x overlaps docs/**, reserved by a"
	assert_ledger_unchanged
	refused 2 daicho reserve src/a.c '/etc/passwd' --as b
	assert_ledger_unchanged
	[ "$(live_globs)" = "a:docs/**" ]
	[ "$(sql "SELECT count(*) FROM reservations")" = 1 ]
}

@test "invalid globs and options are refused with one line and no change" {
	daicho reserve keep --as a
	snapshot_ledger
	refused 2 daicho reserve /abs/path --as a
	stderr_contains "invalid glob '/abs/path'"
	refused 2 daicho reserve 'src/../etc' --as a
	stderr_contains "invalid glob 'src/../etc'"
	refused 2 daicho reserve '../x' --as a
	refused 2 daicho reserve './x' --as a
	refused 2 daicho reserve 'src/[ab.c' --as a
	stderr_contains "invalid glob 'src/[ab.c'"
	refused 2 daicho reserve 'a\' --as a
	refused 2 daicho reserve '' --as a
	refused 2 daicho reserve 'a//b' --as a
	refused 2 daicho reserve x --ttl soon --as a
	stderr_contains "--ttl"
	refused 2 daicho reserve x --ttl 0 --as a
	refused 2 daicho reserve x --ttl -5m --as a
	refused 2 daicho reserve x --task abc --as a
	refused 3 daicho reserve x --task 99 --as a
	stderr_contains "no task #99"
	refused 2 daicho reserve --as a
	# nobody to hold it
	refused 2 daicho reserve x
	stderr_contains "who reserves?"
	assert_ledger_unchanged
	[ "$(live_globs)" = "a:keep" ]
}

@test "--ttl: the reservation lapses after it even while its holder is active" {
	daicho reserve 'src/**' --ttl 5m --as a
	export DAICHO_NOW_MS=$((T0 + 4 * MIN))
	daicho ls --as a >/dev/null
	refused 4 daicho reserve src/main.c --as b
	export DAICHO_NOW_MS=$((T0 + 5 * MIN + 1))
	daicho ls --as a >/dev/null
	ok daicho reserve src/main.c --as b
	[ "$(live_globs)" = "b:src/main.c" ]
}

@test "the default --ttl is 2h" {
	daicho reserve 'src/**' --as a
	beat_until a $((T0 + 2 * HOUR - 1))
	daicho ls --as a >/dev/null
	refused 4 daicho reserve src/main.c --as b
	export DAICHO_NOW_MS=$((T0 + 2 * HOUR))
	daicho ls --as a >/dev/null
	ok daicho reserve src/main.c --as b
}

# --- unreserve ------------------------------------------------------------------

@test "unreserve releases exactly the globs named; one not held is exit 3 and releases nothing" {
	daicho reserve 'src/**' 'docs/**' --as a
	daicho reserve 'lib/**' --as b
	snapshot_ledger
	refused 3 daicho unreserve 'src/**' 'lib/**' --as a
	stderr_contains "you hold no reservation of 'lib/**'"
	assert_ledger_unchanged
	# a glob merely covered by one held is not held
	refused 3 daicho unreserve src/main.c --as a
	assert_ledger_unchanged
	[ "$(live_globs)" = "a:src/** a:docs/** b:lib/**" ]
	ok daicho unreserve 'src/**' --as a
	assert_output ""
	[ "$(live_globs)" = "a:docs/** b:lib/**" ]
	ok daicho unreserve 'docs/**' --as a --json
	assert_output '{"released":1}'
	[ "$(live_globs)" = "b:lib/**" ]
	ok daicho reserve src/main.c --as b
}

@test "unreserve needs globs or --all, not both, and an agent" {
	daicho reserve x --as a
	snapshot_ledger
	refused 2 daicho unreserve --as a
	refused 2 daicho unreserve x --all --as a
	refused 2 daicho unreserve x
	assert_ledger_unchanged
}

@test "unreserve --all releases every reservation of the caller and no one else's" {
	daicho reserve 'src/**' 'docs/**' --as a
	daicho reserve 'lib/**' --as b
	ok daicho unreserve --all --as a --json
	assert_output '{"released":2}'
	[ "$(live_globs)" = "b:lib/**" ]
	ok daicho unreserve --all --as a
	assert_output ""
	ok daicho reserve 'src/**' --as b
}

@test "agent end releases the agent's reservations" {
	daicho agent start a >/dev/null
	daicho reserve 'src/**' --as a
	refused 4 daicho reserve src/main.c --as b
	ok daicho agent end a
	[ "$(live_globs)" = "" ]
	[ "$(sql "SELECT count(*) FROM reservations WHERE released_ms IS NULL")" = 0 ]
	ok daicho reserve src/main.c --as b
}

@test "a stale holder (unseen past 10m) no longer blocks, and its reservation is not listed" {
	daicho reserve 'src/**' --as a
	export DAICHO_NOW_MS=$((T0 + 9 * MIN))
	refused 4 daicho reserve src/main.c --as b
	export DAICHO_NOW_MS=$((T0 + 11 * MIN))
	[ "$(live_globs)" = "" ]
	ok daicho reserve src/main.c --as b
	[ "$(live_globs)" = "b:src/main.c" ]
}

@test "a stale holder's reservation stays lapsed when it comes back: reservations stay exclusive" {
	daicho reserve 'src/**' --as a
	export DAICHO_NOW_MS=$((T0 + 11 * MIN))
	ok daicho reserve src/main.c --as b
	daicho ls --as a >/dev/null # a comes back before any sweep
	[ "$(live_globs)" = "b:src/main.c" ]
	ok daicho reserve src/other.c --as c
}

# queue_behind_psql CMD...: on PostgreSQL, a psql session takes the
# ledger's write lock (its advisory lock, store/pg/libpq.c's WRITE_LOCK_KEY), then
# CMD runs in the background (output in $TEST_ROOT/cmd.out, pid in
# CMD_PID) until it has read what it reads before the lock and queues for
# it. Write SQL to fd 7 for the session to run while CMD waits; closing
# fd 7 commits (let_psql_go).
queue_behind_psql() {
	mkfifo "$TEST_ROOT/psql.in"
	psql -X -q -v ON_ERROR_STOP=1 "$DAICHO_LEDGER" <"$TEST_ROOT/psql.in" \
	    >"$TEST_ROOT/psql.out" 2>&1 &
	PSQL_PID=$!
	exec 7>"$TEST_ROOT/psql.in"
	echo "BEGIN; SELECT pg_advisory_xact_lock(111542802573423);" >&7
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(sql "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")" = 1 ] && break
		sleep 0.1
	done
	"$@" >"$TEST_ROOT/cmd.out" 2>&1 &
	CMD_PID=$!
	for ((i = 0; i < 100; i++)); do
		[ "$(sql "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")" = 1 ] && break
		sleep 0.1
	done
	[ "$i" -lt 100 ] || fail "$* never queued for the lock: $(cat "$TEST_ROOT/cmd.out")"
}

# let_psql_go: commit queue_behind_psql's session, and wait for both.
let_psql_go() {
	echo "COMMIT;" >&7
	exec 7>&-
	wait "$PSQL_PID" || fail "psql: $(cat "$TEST_ROOT/psql.out")"
	wait "$CMD_PID" || fail "command: $(cat "$TEST_ROOT/cmd.out")"
}

@test "a beat that read its agent as stale before the lock releases nothing a twin reserved while it queued" {
	[ "${DAICHO_TEST_BACKEND:-sqlite}" = postgresql ] ||
		skip "PostgreSQL only: a psql session holds the write lock in between"
	daicho reserve 'src/**' --as a
	local now=$((T0 + 11 * MIN)) id
	export DAICHO_NOW_MS=$now
	id=$(sql "SELECT id FROM agents WHERE name = 'a'")
	queue_behind_psql daicho ls --as a
	# Meanwhile a twin process of a comes back (its beat: the lapsed
	# reservation released, a active) and reserves again.
	cat >&7 <<-SQL
		UPDATE reservations SET released_ms = $now WHERE agent = $id AND released_ms IS NULL;
		UPDATE agents SET last_seen_ms = $now, state = 'active' WHERE id = $id;
		INSERT INTO reservations (agent, glob, created_ms, expires_ms) VALUES ($id, 'docs/**', $now, $((now + 2 * HOUR)));
	SQL
	let_psql_go
	[ "$(live_globs)" = "a:docs/**" ] || fail "live: $(live_globs)"
}

@test "a beat that read its agent as live before the lock still releases what lapsed while it queued" {
	[ "${DAICHO_TEST_BACKEND:-sqlite}" = postgresql ] ||
		skip "PostgreSQL only: a psql session holds the write lock in between"
	daicho reserve 'src/**' --as a
	register_agent b
	local now=$((T0 + 9 * MIN)) a b
	export DAICHO_NOW_MS=$now
	a=$(sql "SELECT id FROM agents WHERE name = 'a'")
	b=$(sql "SELECT id FROM agents WHERE name = 'b'")
	# a reads itself as live (seen 9 minutes ago) and queues; the wait
	# takes it past ten minutes (here: its last-seen time moved back), b
	# finds a stale and reserves inside a's glob.
	queue_behind_psql daicho ls --as a
	cat >&7 <<-SQL
		UPDATE agents SET last_seen_ms = $((now - 11 * MIN)) WHERE id = $a;
		INSERT INTO reservations (agent, glob, created_ms, expires_ms) VALUES ($b, 'src/main.c', $now, $((now + 2 * HOUR)));
	SQL
	let_psql_go
	# a comes back without its lapsed reservation: never two holders.
	[ "$(live_globs)" = "b:src/main.c" ] || fail "live: $(live_globs)"
}

# --- a claim's touches ---------------------------------------------------------

@test "a claimed task's touches are reserved for its owner: another agent is refused, touched by the claim" {
	daicho add T --touches 'config/*.yml' >/dev/null
	daicho claim 1 --as a >/dev/null
	register_agent b
	ok daicho reservations --json
	jq -e 'length == 1 and .[0].source == "claim" and .[0].id == null and .[0].glob == "config/*.yml"
		and .[0].task == 1 and .[0].holder == "a" and .[0].expires_ms == '$((T0 + 30 * MIN)) \
		<<<"$output" >/dev/null || fail "$output"
	ok daicho reservations
	assert_line --index 1 --regexp '^config/\*\.yml +a +#1 +claim +0s +in 30m +0s ago \(2027-01-15T08:00:00Z\)$'
	snapshot_ledger
	refused 4 daicho reserve config/app.yml --as b
	stderr_contains "config/app.yml overlaps config/*.yml, touched by the claim by a for #1"
	stderr_contains "last seen 0s ago"
	assert_ledger_unchanged
	# the owner itself may reserve inside its own touches
	ok daicho reserve config/app.yml --as a
	# and unreserve does not release a claim's touches
	refused 3 daicho unreserve 'config/*.yml' --as a
}

@test "a claim's touches are released when the claim is released" {
	daicho add T --touches 'config/*.yml' >/dev/null
	daicho claim 1 --as a >/dev/null
	refused 4 daicho reserve config/app.yml --as b
	daicho release 1 --as a
	[ "$(live_globs)" = "" ]
	ok daicho reserve config/app.yml --as b
}

@test "a claim's touches are held through the report until verify --apply verifies the task" {
	daicho add T --touches 'config/*.yml' >/dev/null
	daicho claim 1 --as a >/dev/null
	daicho report 1 --as a
	ok daicho reservations
	assert_line --index 1 --regexp '^config/\*\.yml +a +#1 +claim +0s +when verified +0s ago'
	refused 4 daicho reserve config/app.yml --as b
	daicho verify 1 --apply >/dev/null
	[ "$(task_field 1 state)" = verified ]
	ok daicho reserve config/app.yml --as b
}

@test "a claim's touches are released when the sweep verifies the task" {
	daicho add T --touches 'config/*.yml' >/dev/null
	daicho claim 1 --as a >/dev/null
	daicho report 1 --as a
	refused 4 daicho reserve config/app.yml --as b
	ok daicho sweep
	assert_output --partial "1 verified"
	ok daicho reserve config/app.yml --as b
}

@test "a claim's touches lapse with its lease" {
	daicho add T --touches 'config/*.yml' >/dev/null
	daicho claim 1 --as a --lease 5m >/dev/null
	export DAICHO_NOW_MS=$((T0 + 4 * MIN))
	refused 4 daicho reserve config/app.yml --as b
	export DAICHO_NOW_MS=$((T0 + 6 * MIN))
	ok daicho reserve config/app.yml --as b
}

@test "a task whose touches overlap another agent's reservation is not claimable by a third agent, but is by the holder" {
	daicho reserve config/app.yml --as a
	daicho add T --touches 'config/*.yml' >/dev/null
	register_agent c
	snapshot_ledger
	refused 3 daicho claim --next --as c
	refused 4 daicho claim 1 --as c
	stderr_contains "config/app.yml reserved by a"
	assert_ledger_unchanged
	[ "$(task_field 1 state)" = open ]
	ok daicho claim --next --as a
	assert_output 1
	[ "$(task_field 1 owner)" = a ]
}

@test "scenario: two agents reserve config/*.yml and config/app.yml; the second is refused until the first task is verified" {
	# "Two agents try to reserve config/*.yml and config/app.yml: the second
	# is refused; after the first task is verified, the second succeeds."
	daicho add "tune the config" >/dev/null
	daicho claim 1 --as first >/dev/null
	ok daicho reserve 'config/*.yml' --task 1 --as first
	register_agent second
	snapshot_ledger
	refused 4 daicho reserve config/app.yml --as second
	stderr_contains "config/app.yml overlaps config/*.yml, reserved by first for #1"
	assert_ledger_unchanged
	daicho report 1 --as first
	# reported is not yet done
	refused 4 daicho reserve config/app.yml --as second
	ok daicho verify 1 --apply
	[ "$(task_field 1 state)" = verified ]
	ok daicho reserve config/app.yml --as second
	[ "$(live_globs)" = "second:config/app.yml" ]
}

@test "a reservation for a task lapses when the task is cancelled" {
	daicho add T >/dev/null
	daicho reserve 'src/**' --task 1 --as a
	refused 4 daicho reserve src/x.c --as b
	person daicho cancel 1 >/dev/null
	ok daicho reserve src/x.c --as b
}

# --- overlap is exact ------------------------------------------------------------

@test "overlap is exact for the glob syntax: *, **, ?, classes, escapes, and what lies below" {
	# * stays within one segment
	[ "$(overlap 'src/*.c' src/main.c)" = overlap ]
	[ "$(overlap src/main.c 'src/*.c')" = overlap ]
	[ "$(overlap 'src/*.c' src/sub/x.c)" = apart ]
	[ "$(overlap 'src/*.c' src/main.h)" = apart ]
	[ "$(overlap '*.md' 'docs/*.md')" = apart ]
	[ "$(overlap 'a*' '*b')" = overlap ]
	# ** crosses segments
	[ "$(overlap '**' anything/at/all)" = overlap ]
	[ "$(overlap 'src/**' docs/x)" = apart ]
	[ "$(overlap 'src/**' src/a/b/c.c)" = overlap ]
	[ "$(overlap 'src/**/x.c' src/a/b/x.c)" = overlap ]
	[ "$(overlap 'src/**/x.c' src/x.c)" = overlap ]
	[ "$(overlap 'docs/**/*.md' src/a.md)" = apart ]
	[ "$(overlap '**/test' a/test/b)" = overlap ]
	# ? is one character
	[ "$(overlap 'src/?.c' src/a.c)" = overlap ]
	[ "$(overlap 'src/?.c' src/ab.c)" = apart ]
	# classes
	[ "$(overlap '[ab].txt' c.txt)" = apart ]
	[ "$(overlap '[ab].txt' a.txt)" = overlap ]
	[ "$(overlap '[a-c]x' bx)" = overlap ]
	[ "$(overlap '[a-c]x' dx)" = apart ]
	# escapes
	[ "$(overlap 'a\*' ab)" = apart ]
	[ "$(overlap 'a\*' 'a*')" = overlap ]
	# a glob covers what it names and everything below it
	[ "$(overlap src src/a/b.c)" = overlap ]
	[ "$(overlap src/a/b.c src)" = overlap ]
	[ "$(overlap 'src/*' src/a/b.c)" = overlap ]
	[ "$(overlap src/a src/ab)" = apart ]
	[ "$(overlap src/a.c src/a.c.orig)" = apart ]
}

# --- git pre-commit --------------------------------------------------------------

@test "git pre-commit refuses (exit 4) a staged path reserved by another agent, naming it and the holder" {
	new_git_repo repo
	cd repo
	daicho reserve 'src/*.c' --as other
	register_agent me
	mkdir src docs
	echo x >src/main.c
	echo y >docs/guide.md
	git add src/main.c docs/guide.md
	export DAICHO_NOW_MS=$((T0 + 3 * SEC))
	snapshot_ledger
	refused 4 daicho hook git pre-commit --as me
	stderr_contains "src/main.c is reserved by other (src/*.c, last seen 3s ago)"
	[[ "$stderr" != *docs/guide.md* ]] || fail "names an unreserved path: $stderr"
	assert_ledger_unchanged
	# the holder itself may commit it
	ok daicho hook git pre-commit --as other
	assert_output ""
	# staging only unreserved paths: allowed
	git reset -q src/main.c
	ok daicho hook git pre-commit --as me
	assert_output ""
}

@test "git pre-commit names every reserved staged path; a claim's touches count too" {
	new_git_repo repo
	cd repo
	daicho add T --touches 'config/*.yml' >/dev/null
	daicho claim 1 --as owner >/dev/null
	daicho reserve lib --as keeper
	mkdir -p config lib/deep
	echo a >config/app.yml
	echo b >lib/deep/x.c
	git add config/app.yml lib/deep/x.c
	refused 4 daicho hook git pre-commit --as me
	stderr_contains "config/app.yml is reserved by owner (config/*.yml"
	stderr_contains "lib/deep/x.c is reserved by keeper (lib"
}

@test "git pre-commit: a stale holder does not block; nothing staged or no ledger is fine" {
	new_git_repo repo
	cd repo
	daicho reserve 'src/**' --as other
	ok daicho hook git pre-commit --as me
	mkdir src
	echo x >src/a.c
	git add src/a.c
	refused 4 daicho hook git pre-commit --as me
	export DAICHO_NOW_MS=$((T0 + 11 * MIN))
	ok daicho hook git pre-commit --as me
	DAICHO_LEDGER="$TEST_ROOT/none.db" ok daicho hook git pre-commit --as me
	[ ! -e "$TEST_ROOT/none.db" ] || fail "the hook created a ledger"
	refused 2 daicho hook git post-commit --as me
}

@test "git commit with the hook installed is refused for a path another agent reserved" {
	new_git_repo repo
	cd repo
	printf '#!/bin/sh\nexec daicho hook git pre-commit\n' >.git/hooks/pre-commit
	chmod +x .git/hooks/pre-commit
	daicho reserve 'src/**' --as other
	mkdir src
	echo x >src/a.c
	git add src/a.c
	capture env DAICHO_AGENT=me git commit -q -m "touch a reserved file"
	[ "$status" -ne 0 ] || fail "the commit went through"
	stderr_contains "daicho: commit refused: src/a.c is reserved by other (src/**"
	[ "$(git rev-list --count HEAD)" = 1 ]
	# the holder may commit it
	capture env DAICHO_AGENT=other git commit -q -m "the holder commits"
	[ "$status" -eq 0 ] || fail "the holder's commit failed: $stderr"
	[ "$(git rev-list --count HEAD)" = 2 ]
	# once released, anyone may
	daicho unreserve --all --as other
	echo y >src/a.c
	git add src/a.c
	capture env DAICHO_AGENT=me git commit -q -m "after the release"
	[ "$status" -eq 0 ] || fail "the commit failed: $stderr"
	[ "$(git rev-list --count HEAD)" = 3 ]
}

@test "help for every reservation command is true to the table" {
	for c in reserve unreserve reservations; do
		ok daicho help $c
		assert_line --index 0 --partial "usage: daicho $c"
		ok daicho $c --help
	done
}
