#!/usr/bin/env bats
# Attacks on the PostgreSQL boundary (schema 7: the guards, the column
# privileges, daicho_free_ledger()) as an agent with its own login and
# psql would make them. Each test asserts that the attack fails: it is
# refused, or leaves the ledger unchanged; an honest control stands beside
# it where one means something.
#
# The first four were holes an outside attack found in schema 7 as first
# written: the guards ran with search_path "$user", public, which does not
# name pg_temp, so PostgreSQL searched the session's own temporary schema
# FIRST for relations (tables, views, regclass casts), even before
# pg_catalog, and an agent's temporary table decided what a guard read; and
# an idle session's advisory lock was never ended. Mended: every daicho
# function's path is its schema, pg_catalog, then pg_temp, logins get no
# temporary objects, and daicho_free_ledger() ends idle holders too.
# PostgreSQL only: skipped in the SQLite pass.

load helpers

setup() {
	common_setup
	[ "${DAICHO_TEST_BACKEND:-sqlite}" = postgresql ] ||
		skip "PostgreSQL only: the roles are PostgreSQL's"
	make_login_roles
	make_other_login
	make_fixture
	# A ledger gives no login temporary objects (schema 7); give the
	# agents' logins some anyway, as a database whose owner could not
	# take them from PUBLIC would, so that the attacks below try the
	# guards' own defence: search paths that name pg_temp last.
	grant_temporary "$AGENT_ROLE" "$OTHER_ROLE"
}

teardown() {
	[ -n "${bg:-}" ] && kill "$bg" 2>/dev/null
	[ -n "${holder:-}" ] && kill "$holder" 2>/dev/null
	[ -n "${AGENT_ROLE:-}" ] && sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
	    WHERE usename IN ('$AGENT_ROLE', '$HUMAN_ROLE', '${OTHER_ROLE:-}')" >/dev/null 2>&1
	drop_other_login
}

# psql_as LEDGER: psql reading its statements from stdin, one session,
# stopping at the first error.
psql_as() {
	psql -X -q -At -v ON_ERROR_STOP=1 "$1"
}

# attack LEDGER SQL...: each SQL (its own session) fails.
attack() {
	local ledger=$1 s
	shift
	for s in "$@"; do
		run psql -X -q -At -v ON_ERROR_STOP=1 "$ledger" -c "$s"
		[ "$status" -ne 0 ] || fail "went through: $s: $output"
	done
}

# Task 1 a-held (a1 holds it), 2 a-open (a1 added it; the person edited
# it), 3 b-held (b1 holds it), 4 p-open (the person's), 5 verified (the
# sweep's). A message from the person to a1, one queued for b1's name, a
# wait of b1's, an approval asked for by a1.
make_fixture() {
	daicho gate add 'git push*' --approval >/dev/null
	as_a add a-held --done-when 'cmd:true' >/dev/null
	as_a claim 1 >/dev/null
	as_a add a-open --done-when 'cmd:true' >/dev/null
	as_b add b-held >/dev/null
	as_b claim 3 >/dev/null
	as_h add p-open --done-when 'cmd:true' >/dev/null
	as_h edit 2 --done-when 'cmd:test -e person-check' >/dev/null
	daicho add verified >/dev/null
	as_a gate exec -- git push origin main >/dev/null 2>&1 || true
	as_h send a1 'from the person' >/dev/null
	as_b wait --for '#4' >/dev/null
	A_ID=$(sql "SELECT id FROM agents WHERE name = 'a1'")
	B_ID=$(sql "SELECT id FROM agents WHERE name = 'b1'")
	P_ID=$(sql "SELECT min(id) FROM agents WHERE kind = 'human'")
	sql "UPDATE tasks SET state = 'verified' WHERE id = 5;
	    INSERT INTO messages (sender, recipient, recipient_name, addressed_to,
	      body, sent_ms, queued) VALUES ($P_ID, $B_ID, 'b1', 'b1',
	      'for b1 only', 1, 1)" >/dev/null
}

# --------------------------------------------------------------------------
# The holes the attack found, mended.
# --------------------------------------------------------------------------

@test "a ledger gives no login temporary objects, by default: CREATE TEMP is refused to an agent's login" {
	local db=${DAICHO_LEDGER#postgresql:///}
	db=${db%%\?*}
	psql -X -q -d postgres -c "REVOKE TEMPORARY ON DATABASE $db FROM $AGENT_ROLE"
	run psql -X -q -At -v ON_ERROR_STOP=1 "$AGENT_LEDGER" -c "CREATE TEMP TABLE daicho_schema (x int)"
	[ "$status" -ne 0 ] && [[ "$output" == *"permission denied"* ]] || fail "$status: $output"
}

@test "a temporary table named daicho_schema (or pg_class) does not make an agent's login a person: no verifying, landing, claim taken, person's row, approval or setting" {
	snapshot_ledger
	# 'daicho_schema'::regclass inside daicho_is_human() resolves to
	# pg_temp.daicho_schema, which the agent owns.
	run psql_as "$AGENT_LEDGER" <<-EOF
		CREATE TEMP TABLE daicho_schema (x int);
		UPDATE tasks SET state = 'verified' WHERE id = 1;
		UPDATE tasks SET owner = $A_ID WHERE id = 3;
		INSERT INTO agents (name, kind, started_ms, last_seen_ms)
		  VALUES ('boss', 'human', 0, 0);
		UPDATE approvals SET state = 'approved' WHERE id = 1;
		INSERT INTO settings (key, value, set_ms) VALUES ('x', 'y', 0);
	EOF
	[ "$status" -ne 0 ] || fail "the agent's login went through as a person"
	assert_ledger_unchanged
	[ "$(sql "SELECT count(*) FROM agents WHERE kind = 'human'")" = 1 ]
	# The same through a temporary table named pg_class (the temporary
	# schema is searched even before pg_catalog).
	run psql_as "$AGENT_LEDGER" <<-EOF
		CREATE TEMP TABLE pg_class AS SELECT c.oid,
		  (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user)
		    AS relowner
		  FROM pg_catalog.pg_class c WHERE c.relname = 'daicho_schema';
		UPDATE tasks SET state = 'landed', landed_commit = 'x' WHERE id = 1;
	EOF
	[ "$status" -ne 0 ] || fail "the agent's login landed a task"
	assert_ledger_unchanged
}

@test "temporary tables named tasks, waits and agents feed the guards nothing: no save to another login's claim, item in its wait, its agent set active, or message queued for its name taken" {
	snapshot_ledger
	run psql_as "$AGENT_LEDGER" <<-EOF
		CREATE TEMP TABLE tasks AS SELECT 3::bigint AS id, $A_ID::bigint AS owner;
		INSERT INTO saves (task, agent, at_ms, result)
		  VALUES (3, $A_ID, 1, 'forged');
	EOF
	[ "$status" -ne 0 ] || fail "a1 saved to b1's task #3"
	run psql_as "$AGENT_LEDGER" <<-EOF
		CREATE TEMP TABLE waits AS SELECT id, $A_ID::bigint AS agent, ended_ms
		  FROM public.waits;
		INSERT INTO wait_items (wait, seq, what)
		  SELECT id, 99, 'forged' FROM public.waits WHERE agent = $B_ID;
	EOF
	[ "$status" -ne 0 ] || fail "a1 added an item to b1's wait"
	assert_ledger_unchanged
	run psql_as "$AGENT_LEDGER" <<-EOF
		CREATE TEMP TABLE waits (id bigint, agent bigint, ended_ms bigint);
		UPDATE agents SET state = 'active' WHERE id = $B_ID;
	EOF
	[ "$status" -ne 0 ] || fail "a1 set b1 (another login's, in an open wait) active"
	[ "$(sql "SELECT state FROM agents WHERE id = $B_ID")" = waiting ]
	# A temporary agents: a message queued for b1's name taken and read.
	run psql_as "$AGENT_LEDGER" <<-EOF
		CREATE TEMP TABLE agents AS SELECT $A_ID::bigint AS id, 'b1'::text AS name;
		UPDATE messages SET recipient = $A_ID, read_ms = 1
		  WHERE body = 'for b1 only';
	EOF
	[ "$status" -ne 0 ] || fail "a1 took b1's message"
	assert_ledger_unchanged
	[ "$(sql "SELECT recipient FROM messages WHERE body = 'for b1 only'")" = "$B_ID" ]
}

@test "daicho_free_ledger() (SECURITY DEFINER) reads the catalog, never the caller's temporary pg_stat_activity and pg_locks: an agent's login ends no person's session" {
	hold_lock "$HUMAN_LEDGER" "$HUMAN_ROLE"
	run psql_as "$AGENT_LEDGER" <<-EOF
		CREATE TEMP TABLE daicho_schema (x int);
		CREATE TEMP TABLE pg_stat_activity AS SELECT s.pid, s.datname,
		  now() - interval '1 hour' AS xact_start,
		  (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = '$OTHER_ROLE')
		    AS usesysid
		  FROM pg_catalog.pg_stat_activity s WHERE s.usename = '$HUMAN_ROLE';
		CREATE TEMP TABLE pg_locks AS SELECT pid, true AS granted,
		  'advisory'::text AS locktype FROM pg_stat_activity;
		SELECT daicho_free_ledger(0);
	EOF
	[ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE usename = '$HUMAN_ROLE'")" = 1 ] ||
		fail "an agent's login ended the person's session (daicho_free_ledger said: $output)"
}

@test "a session-level advisory lock on the write-lock key, held while idle (no transaction), does not lock the person out: daicho_free_ledger() ends its session" {
	local key=111542802573423
	# The session is idle between statements: xact_start is NULL.
	psql -X -q "$OTHER_LEDGER" -c "SELECT pg_advisory_lock($key)" -c '\! sleep 5' >/dev/null 2>&1 3>&- &
	bg=$!
	until [ "$(sql "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")" = 1 ]; do
		sleep 0.1
	done
	DAICHO_BUSY_TIMEOUT=1s run as_h cancel 4
	[ "$status" -eq 0 ] || fail "the person is locked out: $status: $output"
	[ "$(sql "SELECT state FROM tasks WHERE id = 4")" = cancelled ]
}

# --------------------------------------------------------------------------
# Refused, as they should be.
# --------------------------------------------------------------------------

@test "refused: a temporary function that shadows daicho_is_human() or daicho_mine() with search_path set to pg_temp first" {
	snapshot_ledger
	run psql_as "$AGENT_LEDGER" <<-EOF
		CREATE FUNCTION pg_temp.daicho_is_human() RETURNS boolean
		  LANGUAGE sql RETURN true;
		CREATE FUNCTION pg_temp.daicho_mine(agent bigint) RETURNS boolean
		  LANGUAGE sql RETURN true;
		SET search_path = pg_temp, "\$user", public;
		UPDATE tasks SET state = 'verified' WHERE id = 1;
	EOF
	[ "$status" -ne 0 ] && [[ "$output" == *"daicho_human role"* ]] || fail "$status: $output"
	run psql_as "$AGENT_LEDGER" <<-EOF
		CREATE FUNCTION pg_temp.daicho_mine(agent bigint) RETURNS boolean
		  LANGUAGE sql RETURN true;
		SET search_path = pg_temp, "\$user", public;
		UPDATE tasks SET owner = $A_ID WHERE id = 3;
	EOF
	[ "$status" -ne 0 ] || fail "$output"
	# A temporary daicho_agent_roles / daicho_task_roles: the SQL
	# functions that read them were bound at creation.
	run psql_as "$AGENT_LEDGER" <<-EOF
		CREATE TEMP TABLE daicho_agent_roles (agent bigint, db_role text);
		INSERT INTO daicho_agent_roles VALUES ($B_ID, '$AGENT_ROLE');
		CREATE TEMP TABLE daicho_task_roles (task bigint, db_role text);
		INSERT INTO daicho_task_roles VALUES (3, '$AGENT_ROLE'), (4, '$AGENT_ROLE');
		UPDATE tasks SET title = 'mine now' WHERE id = 4;
	EOF
	[ "$status" -ne 0 ] || fail "$output"
	run psql_as "$AGENT_LEDGER" <<-EOF
		CREATE TEMP TABLE daicho_agent_roles (agent bigint, db_role text);
		INSERT INTO daicho_agent_roles VALUES ($B_ID, '$AGENT_ROLE');
		UPDATE messages SET read_ms = 1 WHERE recipient = $B_ID;
	EOF
	[ "$status" -ne 0 ] || fail "$output"
	assert_ledger_unchanged
}

@test "refused: SET ROLE, SET SESSION AUTHORIZATION, DDL on the ledger's tables and functions, TRUNCATE, setval, daicho's own tables, DELETE, LOCK TABLE in every mode that blocks writers" {
	snapshot_ledger
	attack "$AGENT_LEDGER" \
	    "SET ROLE daicho_human" \
	    "SET ROLE postgres" \
	    "SET SESSION AUTHORIZATION postgres" \
	    "SET SESSION AUTHORIZATION $HUMAN_ROLE" \
	    "ALTER TABLE tasks DISABLE TRIGGER ALL" \
	    "ALTER TABLE tasks DISABLE TRIGGER tasks_guard" \
	    "DROP TRIGGER tasks_guard ON tasks" \
	    "CREATE FUNCTION public.t() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END'" \
	    "CREATE OR REPLACE FUNCTION daicho_is_human() RETURNS boolean LANGUAGE sql RETURN true" \
	    "ALTER FUNCTION daicho_is_human() SECURITY DEFINER" \
	    "ALTER TABLE tasks OWNER TO $AGENT_ROLE" \
	    "CREATE SCHEMA $AGENT_ROLE" \
	    "TRUNCATE events" "TRUNCATE tasks CASCADE" "TRUNCATE checks" \
	    "SELECT setval('tasks_id_seq', 1000)" \
	    "SELECT setval('agents_id_seq', 1)" \
	    "INSERT INTO daicho_agent_roles VALUES (9999, '$AGENT_ROLE')" \
	    "UPDATE daicho_agent_roles SET db_role = '$AGENT_ROLE' WHERE agent = $B_ID" \
	    "INSERT INTO daicho_task_roles VALUES (4, '$AGENT_ROLE')" \
	    "DELETE FROM daicho_task_roles" \
	    "UPDATE daicho_schema SET version = 1" \
	    "SELECT daicho_tasks_record_role()" \
	    "SELECT daicho_agents_record_role()" \
	    "SELECT daicho_guard_tasks()" \
	    "GRANT daicho_human TO $AGENT_ROLE" \
	    "BEGIN; SELECT 1 FROM tasks WHERE id = 4 FOR UPDATE; PREPARE TRANSACTION 'x'"
	# Deleting rows, and LOCK TABLE in every mode that blocks writers.
	attack "$AGENT_LEDGER" \
	    "DELETE FROM tasks WHERE id = 1" "DELETE FROM agents WHERE id = $A_ID" \
	    "DELETE FROM messages" "DELETE FROM waits" "DELETE FROM approvals" \
	    "DELETE FROM gates" "DELETE FROM settings" "DELETE FROM events" \
	    "DELETE FROM saves" "DELETE FROM reservations" \
	    "DELETE FROM checks WHERE task = 4"
	local t mode
	for t in tasks agents events messages approvals waits; do
		for mode in 'ROW SHARE' 'SHARE UPDATE EXCLUSIVE' SHARE 'SHARE ROW EXCLUSIVE' \
		    EXCLUSIVE 'ACCESS EXCLUSIVE'; do
			attack "$AGENT_LEDGER" "BEGIN; LOCK TABLE $t IN $mode MODE; COMMIT"
		done
	done
	assert_ledger_unchanged
}

@test "refused: verifying or landing a task through CTEs, UPDATE ... FROM, ON CONFLICT DO UPDATE and COPY" {
	snapshot_ledger
	attack "$AGENT_LEDGER" \
	    "WITH u AS (UPDATE tasks SET state = 'verified' WHERE id = 1 RETURNING id) SELECT * FROM u" \
	    "WITH a AS (UPDATE tasks SET lease_expires_ms = 0 WHERE id = 3 RETURNING id)
	       UPDATE tasks t SET owner = $A_ID FROM a WHERE t.id = a.id" \
	    "UPDATE tasks t SET owner = a.id, lease_expires_ms = 9e15 FROM agents a WHERE a.name = 'a1' AND t.id = 3" \
	    "UPDATE tasks SET state = 'open' WHERE id = 5" \
	    "UPDATE tasks SET land_queued_ms = 1 WHERE id = 1" \
	    "UPDATE tasks SET no_baseline = 1 WHERE id = 1" \
	    "UPDATE tasks SET created_ms = 0 WHERE id = 1" \
	    "UPDATE tasks SET id = 99 WHERE id = 1" \
	    "INSERT INTO tasks (title, state, created_ms, updated_ms) VALUES ('v', 'verified', 0, 0)" \
	    "INSERT INTO tasks (id, title, created_ms, updated_ms) VALUES (99, 'v', 0, 0)" \
	    "INSERT INTO tasks (title, created_ms, updated_ms, owner, state, lease_expires_ms) VALUES ('c', 0, 0, $B_ID, 'claimed', 1)" \
	    "INSERT INTO agents (name, kind, started_ms, last_seen_ms) VALUES ('b1', 'script', 0, 0)
	       ON CONFLICT (name) WHERE state <> 'ended' DO UPDATE SET session_id = 'mine', pid = 1" \
	    "INSERT INTO agents (name, kind, started_ms, last_seen_ms) VALUES ('a1', 'script', 0, 0)
	       ON CONFLICT (name) WHERE state <> 'ended' DO UPDATE SET kind = 'human'" \
	    "INSERT INTO verdicts (task, at_ms, passed, summary) VALUES (1, 1, 1, 'ok')" \
	    "INSERT INTO baselines (tree, key, passed, at_ms) VALUES ('t', 'k', 1, 1)" \
	    "INSERT INTO land_lock (id) VALUES (1)" \
	    "INSERT INTO audits (id, at_ms, findings) VALUES (1, 1, 0)"
	run psql_as "$AGENT_LEDGER" <<-'EOF'
		COPY tasks (title, state, created_ms, updated_ms) FROM STDIN;
		copied	verified	0	0
		\.
	EOF
	[ "$status" -ne 0 ] || fail "COPY made a verified task"
	run psql_as "$AGENT_LEDGER" <<-EOF
		COPY events (at_ms, actor, kind, task) FROM STDIN;
		1	$P_ID	approve	1
		\.
	EOF
	[ "$status" -ne 0 ] || fail "COPY forged the person's event"
	run psql_as "$AGENT_LEDGER" <<-EOF
		COPY agents (name, kind, started_ms, last_seen_ms) FROM STDIN;
		boss	human	0	0
		\.
	EOF
	[ "$status" -ne 0 ] || fail "COPY made a person's row"
	assert_ledger_unchanged
	# Honest control: its own held task to reported, a new open task.
	psql_as "$AGENT_LEDGER" <<-EOF
		UPDATE tasks SET state = 'reported', report_commit = 'abc' WHERE id = 1;
		INSERT INTO tasks (title, created_ms, updated_ms) VALUES ('new', 1, 1);
	EOF
	[ "$(sql "SELECT state FROM tasks WHERE id = 1")" = reported ]
}

@test "refused: another login's claim, messages, wait, approval; a person's events and rows; a person-edited task's checks" {
	snapshot_ledger
	attack "$AGENT_LEDGER" \
	    "UPDATE tasks SET owner = $A_ID WHERE id = 3" \
	    "UPDATE tasks SET lease_expires_ms = 0 WHERE id = 3" \
	    "UPDATE tasks SET state = 'open', owner = NULL WHERE id = 3" \
	    "UPDATE tasks SET title = 'x' WHERE id = 4" \
	    "UPDATE messages SET read_ms = 1 WHERE recipient = $B_ID" \
	    "UPDATE messages SET body = 'x' WHERE recipient = $A_ID" \
	    "UPDATE messages SET recipient = $A_ID WHERE body = 'for b1 only'" \
	    "UPDATE waits SET ended_ms = 1 WHERE agent = $B_ID" \
	    "UPDATE waits SET agent = $A_ID WHERE agent = $B_ID" \
	    "UPDATE agents SET state = 'active' WHERE id = $B_ID" \
	    "UPDATE agents SET kind = 'human' WHERE id = $A_ID" \
	    "UPDATE agents SET name = 'root2' WHERE id = $P_ID" \
	    "INSERT INTO agents (name, kind, started_ms, last_seen_ms) VALUES ('boss', 'human', 0, 0)" \
	    "UPDATE approvals SET state = 'approved' WHERE id = 1" \
	    "UPDATE approvals SET state = 'used', used_ms = 1 WHERE id = 1" \
	    "INSERT INTO approvals (fingerprint, command_key, command, cwd, requester, state, requested_ms) VALUES ('f', 'k', 'c', '/', $A_ID, 'approved', 1)" \
	    "UPDATE gates SET approval = 0" \
	    "INSERT INTO events (at_ms, actor, kind, task) VALUES (1, $P_ID, 'edit', 1)" \
	    "INSERT INTO events (at_ms, actor, kind, task) VALUES (1, $B_ID, 'note', 3)" \
	    "INSERT INTO events (at_ms, actor, kind, task) VALUES (1, $A_ID, 'approve', 1)" \
	    "INSERT INTO events (at_ms, actor, kind, task) VALUES (1, $A_ID, 'verified', 1)" \
	    "INSERT INTO events (at_ms, actor, kind, task) VALUES (1, $A_ID, 'landed', 1)" \
	    "INSERT INTO events (at_ms, actor, kind, task) VALUES (1, $A_ID, 'land-queued', 1)" \
	    "INSERT INTO events (at_ms, actor, kind, task) VALUES (1, NULL, 'note', 1)" \
	    "INSERT INTO events (at_ms, actor, kind, task, detail) VALUES (1, $A_ID, 'release', 3, '{\"forced\":true}')" \
	    "INSERT INTO messages (sender, recipient, recipient_name, addressed_to, body, sent_ms) VALUES ($P_ID, $A_ID, 'a1', 'a1', 'stop', 1)" \
	    "INSERT INTO saves (task, agent, at_ms, result) VALUES (3, $A_ID, 1, 'x')" \
	    "INSERT INTO reservations (agent, glob, created_ms, expires_ms) VALUES ($B_ID, 'x', 1, 2)" \
	    "INSERT INTO wait_items (wait, seq, what) SELECT id, 9, 'x' FROM waits WHERE agent = $B_ID" \
	    "INSERT INTO gates (pattern, created_ms, created_by) VALUES ('rm*', 1, $P_ID)" \
	    "DELETE FROM checks WHERE task = 2" \
	    "INSERT INTO checks (task, seq, spec) VALUES (2, 9, 'cmd:true')" \
	    "INSERT INTO touches (task, glob) VALUES (2, '**')" \
	    "INSERT INTO checks (task, seq, spec) VALUES (5, 9, 'cmd:true')" \
	    "UPDATE tasks SET checks_version = checks_version + 1 WHERE id = 2" \
	    "UPDATE tasks SET has_touches = 1 WHERE id = 2" \
	    "INSERT INTO checks (task, seq, spec) VALUES (4, 9, 'cmd:true')"
	assert_ledger_unchanged
	# Honest controls: its own message read, its own event, a label on
	# the task it added (labels stay its after a person's edit).
	psql_as "$AGENT_LEDGER" <<-EOF
		UPDATE messages SET read_ms = 1 WHERE recipient = $A_ID;
		INSERT INTO events (at_ms, actor, kind, task) VALUES (1, $A_ID, 'note', 1);
		INSERT INTO labels (task, label) VALUES (2, 'mine');
	EOF
	[ "$(sql "SELECT count(*) FROM messages WHERE read_ms IS NOT NULL")" = 1 ]
}

@test "refused: an agent's login calling daicho_free_ledger() without a forged catalogue ends nobody" {
	hold_lock "$HUMAN_LEDGER" "$HUMAN_ROLE"
	[ "$(psql_as "$AGENT_LEDGER" <<<"SELECT daicho_free_ledger(-100000)")" = 0 ]
	[ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE usename = '$HUMAN_ROLE'")" = 1 ]
}
