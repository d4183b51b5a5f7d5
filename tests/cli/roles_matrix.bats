#!/usr/bin/env bats
# The PostgreSQL trust boundary, generated rather than listed (issue 30):
# every table, every column, and each of an agent's login (on its own
# rows), another agent's login (on the first one's) and a person's login,
# tried with an UPDATE of each column, a whole-row UPDATE, an INSERT of a
# copy, a DELETE and a LOCK that blocks writers (tests/cli/roles_matrix.sql),
# and checked against the table of what each may do that the repository
# keeps (tests/cli/roles-policy.tsv). Then the sequences of statements an
# attacker would chain, one by one, and a person not locked out.
# PostgreSQL only: skipped in the SQLite pass.

load helpers

setup() {
	common_setup
	[ "${DAICHO_TEST_BACKEND:-sqlite}" = postgresql ] ||
		skip "PostgreSQL only: the roles are PostgreSQL's"
	make_login_roles
	make_other_login
	# The matrix runs in each login's session through temporary functions
	# (roles_matrix.sql); a ledger gives logins none, so the test grants
	# them: the worse case, in which the guards' search paths must hold.
	grant_temporary "$AGENT_ROLE" "$OTHER_ROLE" "$HUMAN_ROLE"
}

teardown() {
	# A lock holder a failed test left (hold_lock) goes with it.
	[ -n "${holder:-}" ] && kill "$holder" 2>/dev/null
	drop_other_login
}

# make_fixture: a row of each kind in every table, made by the login whose
# it is (so that PostgreSQL binds it to that login), and the system's made
# by the owner as the sweep and the lander would.
make_fixture() {
	daicho gate add 'git push*' --approval >/dev/null
	as_a add a-held --touches 'src/**' --done-when 'cmd:true' --label l >/dev/null
	as_a claim 1 >/dev/null
	as_a add a-open --after 1 --protect 'tests/**' >/dev/null
	as_b add b-held >/dev/null
	as_b claim 3 >/dev/null
	as_h add p-open --touches 'p/**' --done-when 'cmd:true' >/dev/null
	daicho add verified >/dev/null
	echo result | as_a save 1
	as_a reserve 'lib/**' >/dev/null
	as_a gate exec -- git push origin main >/dev/null 2>&1 || true
	as_h send a1 'from the person' >/dev/null
	as_a send b1 'from a1' >/dev/null
	as_a wait --for '#3' >/dev/null
	sql "UPDATE tasks SET state = 'verified' WHERE title = 'verified';
	    INSERT INTO verdicts (task, at_ms, passed, summary)
	      SELECT id, 1, 1, 'ok' FROM tasks WHERE title = 'verified';
	    INSERT INTO check_runs (verdict, seq, spec, passed, duration_ms, output)
	      SELECT max(id), 1, 'cmd:true', 1, 1, ''::bytea FROM verdicts;
	    INSERT INTO baselines (tree, key, passed, at_ms, inputs)
	      VALUES ('t', 'k', 1, 1, '[]');
	    INSERT INTO audits (id, at_ms, findings) VALUES (1, 1, 0);
	    INSERT INTO land_lock (id) VALUES (1);
	    INSERT INTO settings (key, value, set_ms) VALUES ('max-hold', '1', 1)
	      ON CONFLICT (key) DO NOTHING" >/dev/null
	A_ID=$(sql "SELECT id FROM agents WHERE name = 'a1'")
	B_ID=$(sql "SELECT id FROM agents WHERE name = 'b1'")
	P_ID=$(sql "SELECT min(id) FROM agents WHERE kind = 'human'")
	P_TASK=$(sql "SELECT id FROM tasks WHERE title = 'p-open'")
	# Each labelled row by its ctid (the attempts are rolled back, so it
	# stays): tests/cli/roles-policy.tsv says what the labels mean.
	FIXTURE=$(sql "SELECT string_agg(format('(%L, %L, %L)', tab, label, tid), ', ')
	  FROM (VALUES
	  ('agents', 'a', (SELECT ctid FROM agents WHERE name = 'a1')),
	  ('agents', 'p', (SELECT ctid FROM agents WHERE id = $P_ID)),
	  ('tasks', 'a', (SELECT ctid FROM tasks WHERE title = 'a-held')),
	  ('tasks', 'a_open', (SELECT ctid FROM tasks WHERE title = 'a-open')),
	  ('tasks', 'p', (SELECT ctid FROM tasks WHERE title = 'p-open')),
	  ('tasks', 's', (SELECT ctid FROM tasks WHERE title = 'verified')),
	  ('deps', 'a', (SELECT ctid FROM deps LIMIT 1)),
	  ('labels', 'a', (SELECT ctid FROM labels LIMIT 1)),
	  ('touches', 'a', (SELECT ctid FROM touches WHERE glob = 'src/**')),
	  ('touches', 'p', (SELECT ctid FROM touches WHERE glob = 'p/**')),
	  ('checks', 'a', (SELECT ctid FROM checks WHERE task = 1)),
	  ('checks', 'p', (SELECT ctid FROM checks WHERE task = $P_TASK)),
	  ('protects', 'a', (SELECT ctid FROM protects LIMIT 1)),
	  ('saves', 'a', (SELECT ctid FROM saves LIMIT 1)),
	  ('events', 'a', (SELECT ctid FROM events WHERE kind = 'add' AND task = 1)),
	  ('events', 'p', (SELECT ctid FROM events WHERE kind = 'add' AND task = $P_TASK)),
	  ('events', 's', (SELECT ctid FROM events WHERE kind = 'gate-add')),
	  ('waits', 'a', (SELECT ctid FROM waits WHERE agent = $A_ID)),
	  ('wait_items', 'a', (SELECT ctid FROM wait_items LIMIT 1)),
	  ('messages', 'a_in', (SELECT ctid FROM messages WHERE recipient = $A_ID)),
	  ('messages', 'a_out', (SELECT ctid FROM messages WHERE sender = $A_ID)),
	  ('reservations', 'a', (SELECT ctid FROM reservations LIMIT 1)),
	  ('approvals', 'a', (SELECT ctid FROM approvals LIMIT 1)),
	  ('gates', 's', (SELECT ctid FROM gates LIMIT 1)),
	  ('settings', 's', (SELECT ctid FROM settings LIMIT 1)),
	  ('verdicts', 's', (SELECT ctid FROM verdicts LIMIT 1)),
	  ('check_runs', 's', (SELECT ctid FROM check_runs LIMIT 1)),
	  ('baselines', 's', (SELECT ctid FROM baselines LIMIT 1)),
	  ('audits', 's', (SELECT ctid FROM audits LIMIT 1)),
	  ('land_lock', 's', (SELECT ctid FROM land_lock LIMIT 1)),
	  ('daicho_schema', 's', (SELECT ctid FROM daicho_schema LIMIT 1)),
	  ('daicho_agent_roles', 's', (SELECT ctid FROM daicho_agent_roles LIMIT 1)),
	  ('daicho_task_roles', 's', (SELECT ctid FROM daicho_task_roles LIMIT 1))
	  ) AS f(tab, label, tid)")
	# Every table has its rows: a fixture that lost one would test less.
	local table missing=
	for table in $(sql "SELECT table_name FROM information_schema.tables
	    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"); do
		[[ "$FIXTURE" == *"('$table', "* ]] || missing+=" $table"
	done
	[ -z "$missing" ] || fail "tables with no row in the fixture:$missing"
	[[ "$FIXTURE" != *"NULL"* ]] || fail "a labelled row is missing: $FIXTURE"
}

# attempts LEDGER WHO ME: every attempt as WHO (A, B or H), whose own agent
# is ME: lines "table op column row who verdict".
attempts() {
	psql -X -q "$1" -v me="$3" -v task="$P_TASK" -v fixture="$FIXTURE" \
	    -f "$BATS_TEST_DIRNAME/roles_matrix.sql" |
		awk -F'\t' -v who="$2" 'BEGIN { OFS = "\t" } { print $1, $2, $3, $4, who, $5 }'
}

# judge POLICY: each attempt on stdin against POLICY (the last line that
# matches decides); prints the attempts whose verdict differs.
judge() {
	awk -F'\t' '
	function match_field(pattern, value,   n, i, parts) {
		if (pattern == "*")
			return 1
		n = split(pattern, parts, ",")
		for (i = 1; i <= n; i++)
			if (parts[i] == value)
				return 1
		return 0
	}
	NR == FNR {
		if ($0 ~ /^#/ || NF < 6)
			next
		rules++
		for (i = 1; i <= 6; i++)
			rule[rules, i] = $i
		next
	}
	{
		want = ""
		for (r = 1; r <= rules; r++) {
			ok = 1
			for (i = 1; i <= 5 && ok; i++)
				ok = match_field(rule[r, i], $i)
			if (ok)
				want = rule[r, 6]
		}
		if ($6 != want)
			print $0 "\t(the policy says: " want ")"
	}' "$1" -
}

@test "roles matrix: every table x column x login x operation is what tests/cli/roles-policy.tsv allows" {
	make_fixture
	snapshot_ledger
	{
		attempts "$AGENT_LEDGER" A "$A_ID"
		attempts "$OTHER_LEDGER" B "$B_ID"
		attempts "$HUMAN_LEDGER" H "$P_ID"
	} >"$TEST_ROOT/attempts"
	# Enough attempts that the generator cannot have skipped a table.
	local n
	n=$(wc -l <"$TEST_ROOT/attempts")
	echo "# $n attempts" >&3
	[ "$n" -gt 1200 ] || fail "only $n attempts: $(head "$TEST_ROOT/attempts")"
	! grep -q $'\terror ' "$TEST_ROOT/attempts" ||
		fail "attempts that failed for another reason: $(grep $'\terror ' "$TEST_ROOT/attempts" | head -5)"
	judge "$BATS_TEST_DIRNAME/roles-policy.tsv" <"$TEST_ROOT/attempts" >"$TEST_ROOT/wrong"
	[ ! -s "$TEST_ROOT/wrong" ] ||
		fail "$(wc -l <"$TEST_ROOT/wrong") attempts differ from the policy:
$(head -40 "$TEST_ROOT/wrong")"
	# Every attempt was rolled back.
	assert_ledger_unchanged
	# Honest controls: the generator saw both answers, for each login.
	for who in A B H; do
		grep -q $'\t'"$who"$'\tyes$' "$TEST_ROOT/attempts" || fail "$who: nothing allowed"
	done
	for who in A B; do
		grep -q $'\t'"$who"$'\tno$' "$TEST_ROOT/attempts" || fail "$who: nothing refused"
	done
}

# refused LEDGER SQL...: each statement, in its own transaction, is refused
# by PostgreSQL (SQLSTATE 42501: a guard or a missing privilege).
refused() {
	local ledger=$1 stmt
	shift
	for stmt in "$@"; do
		run psql -X -q -At "$ledger" -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "$stmt"
		[ "$status" -ne 0 ] || fail "let through: $stmt"
		[[ "$output" == *"42501"* ]] || fail "not refused but failed: $stmt: $output"
	done
}

@test "roles: the outside run's attacks, statement by statement, are refused; the same statements on one's own rows are not" {
	make_fixture
	snapshot_ledger
	# Taking another login's claim in two statements (the lease first).
	refused "$OTHER_LEDGER" \
	    "UPDATE tasks SET lease_expires_ms = 0 WHERE title = 'a-held'" \
	    "UPDATE tasks SET owner = $B_ID WHERE title = 'a-held'" \
	    "UPDATE tasks SET claim_named_ms = 0, max_hold_ms = 0 WHERE title = 'a-held'"
	# Ending another login's wait, or its agent.
	refused "$OTHER_LEDGER" \
	    "UPDATE waits SET ended_ms = 1 WHERE agent = $A_ID" \
	    "UPDATE agents SET state = 'ended', ended_ms = 1 WHERE id = $A_ID" \
	    "UPDATE agents SET last_seen_ms = 0 WHERE id = $A_ID"
	# Binding a future agent id (or task id) to oneself.
	refused "$OTHER_LEDGER" \
	    "INSERT INTO agents (id, name, kind, state, started_ms, last_seen_ms)
	       SELECT max(id) + 1, 'future', 'claude', 'active', 0, 0 FROM agents" \
	    "INSERT INTO tasks (id, title, created_ms, updated_ms)
	       SELECT max(id) + 1, 'future', 0, 0 FROM tasks"
	# Verifying a task, with a forged verdict and no sweep, one's own too.
	refused "$AGENT_LEDGER" \
	    "INSERT INTO verdicts (task, at_ms, passed, summary) VALUES (1, 1, 1, 'ok')" \
	    "UPDATE tasks SET state = 'verified' WHERE title = 'a-held'" \
	    "UPDATE tasks SET state = 'reported', report_commit = 'x' WHERE title = 'b-held'"
	# An approval credited to the person, or to oneself; a message as
	# the person; rewriting the person's message; reading another's.
	refused "$AGENT_LEDGER" \
	    "INSERT INTO events (at_ms, actor, kind, task) VALUES (1, $P_ID, 'approve', 1)" \
	    "INSERT INTO events (at_ms, actor, kind, task) VALUES (1, $A_ID, 'approve', 1)" \
	    "INSERT INTO messages (sender, recipient, recipient_name, addressed_to, body, sent_ms)
	       VALUES ($P_ID, $B_ID, 'b1', 'b1', 'stop', 1)" \
	    "UPDATE messages SET body = 'stop' WHERE sender = $P_ID"
	refused "$OTHER_LEDGER" \
	    "UPDATE messages SET read_ms = 1 WHERE recipient = $A_ID"
	# Renaming the person's row, or making it an agent's.
	refused "$AGENT_LEDGER" \
	    "UPDATE agents SET name = 'boss' WHERE id = $P_ID" \
	    "UPDATE agents SET kind = 'claude' WHERE id = $P_ID"
	# Locking the person out with a table lock.
	refused "$AGENT_LEDGER" \
	    "BEGIN; LOCK TABLE tasks; COMMIT" "BEGIN; LOCK TABLE agents IN EXCLUSIVE MODE; COMMIT" \
	    "BEGIN; LOCK TABLE events IN SHARE MODE; COMMIT"
	assert_ledger_unchanged
	# Honest controls: what its own agent does with its own rows goes
	# through, statement for statement.
	as_psql "$AGENT_LEDGER" "UPDATE tasks SET lease_expires_ms = lease_expires_ms + 1 WHERE title = 'a-held'"
	as_psql "$AGENT_LEDGER" "UPDATE waits SET ended_ms = 1 WHERE agent = $A_ID"
	as_psql "$AGENT_LEDGER" "UPDATE messages SET read_ms = 1 WHERE recipient = $A_ID"
	as_psql "$AGENT_LEDGER" "INSERT INTO events (at_ms, actor, kind, task) VALUES (1, $A_ID, 'note', 1)"
	as_psql "$OTHER_LEDGER" "UPDATE messages SET read_ms = 1 WHERE recipient = $B_ID"
	[ "$(sql "SELECT count(*) FROM messages WHERE read_ms IS NOT NULL")" = 2 ]
}

@test "roles: an agent's login holding the write lock, a table lock or a row lock does not lock the person out" {
	make_fixture
	local key=111542802573423 hold cmd
	# Each lock, and a command of the person's that needs it.
	for hold in "SELECT pg_advisory_xact_lock($key)|cancel $P_TASK" \
	    "LOCK TABLE touches IN ACCESS EXCLUSIVE MODE|show --json $P_TASK" \
	    "SELECT 1 FROM tasks WHERE title = 'p-open' FOR UPDATE|cancel $P_TASK"; do
		cmd=${hold#*|}
		hold=${hold%%|*}
		hold_lock "$OTHER_LEDGER" "$OTHER_ROLE" "$hold"
		# The person's command waits its busy timeout, ends the agent's
		# session and goes through (a lock met mid-transaction: on the
		# second try).
		# shellcheck disable=SC2086
		DAICHO_BUSY_TIMEOUT=1s run person env DAICHO_LEDGER="$HUMAN_LEDGER" daicho $cmd
		if [ "$status" -ne 0 ]; then
			[ "$status" -eq 75 ] || fail "$hold: exit $status: $output"
			# shellcheck disable=SC2086
			DAICHO_BUSY_TIMEOUT=1s run person env DAICHO_LEDGER="$HUMAN_LEDGER" daicho $cmd
		fi
		[ "$status" -eq 0 ] || fail "$hold: the person is locked out: $status: $output"
		# Its session was ended before the command went through.
		[ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE usename = '$OTHER_ROLE'")" = 0 ] ||
			fail "$hold: the agent's session was not ended"
		kill "$holder" 2>/dev/null || true
		wait "$holder" || true
		[ "$cmd" = "${cmd#cancel}" ] ||
			person env DAICHO_LEDGER="$HUMAN_LEDGER" daicho reopen "$P_TASK" >/dev/null
	done
	# An agent's login cannot end anyone's session this way.
	hold_lock "$HUMAN_LEDGER" "$HUMAN_ROLE" "SELECT pg_advisory_xact_lock($key)"
	[ "$(as_psql "$AGENT_LEDGER" "SELECT daicho_free_ledger(0)")" = 0 ]
	DAICHO_BUSY_TIMEOUT=1s DAICHO_LEDGER=$AGENT_LEDGER run daicho --as a1 release 1
	[ "$status" -eq 75 ] || fail "the agent went through a person's lock: $status: $output"
	[ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE usename = '$HUMAN_ROLE'")" = 1 ] ||
		fail "an agent's login ended the person's session"
	kill "$holder"
	sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '$HUMAN_ROLE'" >/dev/null
}

@test "roles: doctor says when the ledger's owner cannot end an agent's session that locks a person out, and what to grant" {
	local owner="owner_$AGENT_ROLE" db="${AGENT_ROLE}_owned"
	psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE ROLE $owner LOGIN" \
	    -c "CREATE DATABASE $db OWNER $owner"
	local ledger="postgresql:///$db?host=$PGHOST&port=${PGPORT:-5432}&user=$owner"
	DAICHO_LEDGER=$ledger daicho init >/dev/null
	DAICHO_LEDGER=$ledger run --separate-stderr daicho doctor --json
	[ "$(jq -r '.[] | select(.check == "lock-outs") | .ok' <<<"$output")" = false ] ||
		fail "$output"
	[[ "$(jq -r '.[] | select(.check == "lock-outs") | .fix' <<<"$output")" == *"GRANT pg_signal_backend, pg_read_all_stats TO the owner"* ]] ||
		fail "$output"
	psql -X -q -d postgres -c "GRANT pg_signal_backend, pg_read_all_stats TO $owner"
	DAICHO_LEDGER=$ledger run --separate-stderr daicho doctor --json
	[ "$(jq -r '.[] | select(.check == "lock-outs") | .ok' <<<"$output")" = true ] ||
		fail "$output"
	psql -X -q -d postgres -c "DROP DATABASE $db" -c "DROP OWNED BY $owner" -c "DROP ROLE $owner" >/dev/null 2>&1 || true
}

@test "roles: doctor says when the ledger shares a database in which every login may make temporary objects, and to give daicho its own" {
	local owner="owner_$AGENT_ROLE" db="${AGENT_ROLE}_shared"
	# A database of the cluster's superuser's, shared: the ledger's owner
	# may create in it but cannot revoke TEMPORARY from PUBLIC.
	psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE ROLE $owner LOGIN" \
	    -c "CREATE DATABASE $db" -c "GRANT CREATE ON DATABASE $db TO $owner"
	psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "GRANT CREATE ON SCHEMA public TO $owner"
	local ledger="postgresql:///$db?host=$PGHOST&port=${PGPORT:-5432}&user=$owner"
	DAICHO_LEDGER=$ledger daicho init >/dev/null
	DAICHO_LEDGER=$ledger run --separate-stderr daicho doctor --json
	[ "$(jq -r '.[] | select(.check == "temporary objects") | .ok' <<<"$output")" = false ] ||
		fail "$output"
	[[ "$(jq -r '.[] | select(.check == "temporary objects") | .fix' <<<"$output")" == *"give daicho a database of its own"* ]] ||
		fail "$output"
	# Once the database's owner revokes it, the check passes.
	psql -X -q -d "$db" -c "REVOKE TEMPORARY ON DATABASE $db FROM PUBLIC"
	DAICHO_LEDGER=$ledger run --separate-stderr daicho doctor --json
	[ "$(jq -r '.[] | select(.check == "temporary objects") | .ok' <<<"$output")" = true ] ||
		fail "$output"
	psql -X -q -d postgres -c "DROP DATABASE $db" -c "DROP OWNED BY $owner" -c "DROP ROLE $owner" >/dev/null 2>&1 || true
}
