/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "store/pg/schema.h"

#include "store/driver.h"

/*
 * Types map from SQLite's: INTEGER → bigint (an INTEGER PRIMARY KEY → an
 * identity column BY DEFAULT, so that import can give explicit ids and
 * db_last_insert_id() reads lastval()), REAL → double precision, BLOB →
 * bytea, TEXT → text. Columns that SQLite's ALTER TABLEs appended come
 * last, in the same order, so that SELECT * (export) reads the same
 * columns in the same order on both back ends.
 */
/*
 * The trust boundary (docs/security.md, "PostgreSQL roles"): what only a
 * person (a member of daicho_human) or the ledger's owner may do, checked
 * by triggers that read the session's role, so that no client, and no
 * agent's own credentials, can get around it. A refusal is SQLSTATE 42501
 * with one line naming what needed the role and who asked.
 */
#define TRUST_BOUNDARY \
	/* Which database role made each agent row (written by a trigger). */ \
	"CREATE TABLE daicho_agent_roles (" \
	"  agent bigint PRIMARY KEY," \
	"  db_role text NOT NULL" \
	");" \
	/* The ledger's owner, or a member of daicho_human. */ \
	"CREATE FUNCTION daicho_is_human() RETURNS boolean" \
	"  LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$" \
	"BEGIN" \
	"  IF pg_has_role(session_user, (SELECT c.relowner FROM pg_class c" \
	"      WHERE c.oid = CAST('daicho_schema' AS regclass)), 'MEMBER') THEN" \
	"    RETURN true;" \
	"  END IF;" \
	"  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'daicho_human')" \
	"  THEN" \
	"    RETURN false;" \
	"  END IF;" \
	"  RETURN pg_has_role(session_user, 'daicho_human', 'MEMBER');" \
	"END $$;" \
	"CREATE FUNCTION daicho_refuse(what text) RETURNS void" \
	"  LANGUAGE plpgsql AS $$" \
	"BEGIN" \
	"  RAISE EXCEPTION '% needs the daicho_human role (connected as %)'," \
	"    what, session_user USING ERRCODE = '42501';" \
	"END $$;" \
	"CREATE FUNCTION daicho_role_of(agent bigint) RETURNS text" \
	"  LANGUAGE sql STABLE SET search_path FROM CURRENT" \
	"  RETURN (SELECT r.db_role FROM daicho_agent_roles r" \
	"    WHERE r.agent = daicho_role_of.agent);" \
	/* \
	 * Agents: the session's role is recorded with each new row (as the \
	 * owner: nobody else writes daicho_agent_roles), and only a person \
	 * may make or turn a row into a human's, which core's own checks \
	 * trust. \
	 */ \
	"CREATE FUNCTION daicho_agents_check() RETURNS trigger" \
	"  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$" \
	"BEGIN" \
	"  IF NEW.kind = 'human' AND (TG_OP = 'INSERT' OR OLD.kind <> 'human')" \
	"     AND NOT daicho_is_human() THEN" \
	"    PERFORM daicho_refuse('acting as a human');" \
	"  END IF;" \
	"  RETURN NEW;" \
	"END $$;" \
	"CREATE TRIGGER agents_check BEFORE INSERT OR UPDATE ON agents" \
	"  FOR EACH ROW EXECUTE FUNCTION daicho_agents_check();" \
	"CREATE FUNCTION daicho_agents_record_role() RETURNS trigger" \
	"  LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$" \
	"BEGIN" \
	"  INSERT INTO daicho_agent_roles (agent, db_role)" \
	"    VALUES (NEW.id, session_user) ON CONFLICT (agent) DO NOTHING;" \
	"  RETURN NULL;" \
	"END $$;" \
	"CREATE TRIGGER agents_record_role AFTER INSERT ON agents" \
	"  FOR EACH ROW EXECUTE FUNCTION daicho_agents_record_role();" \
	/* \
	 * Claims: taking a claim away from its holder (release --force, \
	 * cancelling, re-assigning) is a person's, unless the holder was \
	 * made by the same role or its lease (or maximum hold) ran out by \
	 * the database's clock, give or take a minute of the clients' clock \
	 * skew: then the sweep, or the next claimer, takes it back. \
	 */ \
	"CREATE FUNCTION daicho_tasks_check() RETURNS trigger" \
	"  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$" \
	"BEGIN" \
	"  IF OLD.state = 'claimed'" \
	"     AND (NEW.state <> 'claimed' OR NEW.owner IS DISTINCT FROM OLD.owner)" \
	"     AND least(OLD.lease_expires_ms, coalesce(OLD.claim_named_ms" \
	"       + OLD.max_hold_ms, OLD.lease_expires_ms)) > CAST(1000 * extract(" \
	"       epoch FROM clock_timestamp()) AS bigint) + 60000" \
	"     AND daicho_role_of(OLD.owner) IS DISTINCT FROM session_user" \
	"     AND NOT daicho_is_human() THEN" \
	"    PERFORM daicho_refuse(" \
	"      'releasing a claim held by another role (release --force)');" \
	"  END IF;" \
	"  RETURN NEW;" \
	"END $$;" \
	"CREATE TRIGGER tasks_check BEFORE UPDATE ON tasks" \
	"  FOR EACH ROW EXECUTE FUNCTION daicho_tasks_check();" \
	/* \
	 * A forced release is a person's whoever held the claim: its \
	 * event says forced, and the event is written in the release's \
	 * own transaction. \
	 */ \
	"CREATE FUNCTION daicho_events_check() RETURNS trigger" \
	"  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$" \
	"BEGIN" \
	"  IF NEW.kind = 'release' AND NEW.detail IS NOT NULL" \
	"     AND json_extract(NEW.detail, '$.forced') IN ('1', 'true')" \
	"     AND NOT daicho_is_human() THEN" \
	"    PERFORM daicho_refuse('release --force');" \
	"  END IF;" \
	"  RETURN NEW;" \
	"END $$;" \
	"CREATE TRIGGER events_check BEFORE INSERT ON events" \
	"  FOR EACH ROW EXECUTE FUNCTION daicho_events_check();" \
	/* Waits: only the waiting agent's role, or a person, ends one. */ \
	"CREATE FUNCTION daicho_waits_check() RETURNS trigger" \
	"  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$" \
	"BEGIN" \
	"  IF OLD.ended_ms IS NULL AND NEW.ended_ms IS NOT NULL" \
	"     AND daicho_role_of(OLD.agent) IS DISTINCT FROM session_user" \
	"     AND NOT daicho_is_human() THEN" \
	"    PERFORM daicho_refuse('ending another agent''s wait');" \
	"  END IF;" \
	"  RETURN NEW;" \
	"END $$;" \
	"CREATE TRIGGER waits_check BEFORE UPDATE ON waits" \
	"  FOR EACH ROW EXECUTE FUNCTION daicho_waits_check();" \
	/* \
	 * Approvals: an agent asks (a pending row) and uses what was \
	 * approved (approved → used, with used_ms); everything else is a \
	 * person's. A decision records the deciding role as decided_by, \
	 * whatever the client wrote. \
	 */ \
	"CREATE FUNCTION daicho_approvals_check() RETURNS trigger" \
	"  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$" \
	"DECLARE" \
	"  allowed approvals%ROWTYPE;" \
	"BEGIN" \
	"  IF daicho_is_human() THEN" \
	"    IF TG_OP = 'UPDATE' AND OLD.state = 'pending'" \
	"       AND NEW.state IN ('approved','denied') THEN" \
	"      NEW.decided_by := session_user;" \
	"    END IF;" \
	"    RETURN NEW;" \
	"  END IF;" \
	"  IF TG_OP = 'INSERT' THEN" \
	"    IF NEW.state <> 'pending' OR NEW.decided_ms IS NOT NULL" \
	"       OR NEW.decided_by IS NOT NULL OR NEW.decided_tty IS NOT NULL" \
	"       OR NEW.condition IS NOT NULL OR NEW.reason IS NOT NULL" \
	"       OR NEW.expires_ms IS NOT NULL OR NEW.used_ms IS NOT NULL THEN" \
	"      PERFORM daicho_refuse('recording a decided approval');" \
	"    END IF;" \
	"    RETURN NEW;" \
	"  END IF;" \
	"  IF NEW.gate IS DISTINCT FROM OLD.gate THEN" \
	"    PERFORM daicho_refuse('removing a gate');" \
	"  END IF;" \
	"  IF NEW.state IS DISTINCT FROM OLD.state" \
	"     AND NEW.state IN ('approved','denied') THEN" \
	"    PERFORM daicho_refuse(CASE NEW.state WHEN 'approved'" \
	"      THEN 'approving' ELSE 'denying' END);" \
	"  END IF;" \
	"  allowed := OLD;" \
	"  IF OLD.state = 'approved' AND NEW.state = 'used' THEN" \
	"    allowed.state := NEW.state;" \
	"    allowed.used_ms := NEW.used_ms;" \
	"  END IF;" \
	"  IF allowed IS DISTINCT FROM NEW THEN" \
	"    PERFORM daicho_refuse('changing an approval');" \
	"  END IF;" \
	"  RETURN NEW;" \
	"END $$;" \
	"CREATE TRIGGER approvals_check BEFORE INSERT OR UPDATE ON approvals" \
	"  FOR EACH ROW EXECUTE FUNCTION daicho_approvals_check();" \
	/* Gates: anyone may add one; only a person removes one. */ \
	"CREATE FUNCTION daicho_gates_check() RETURNS trigger" \
	"  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$" \
	"BEGIN" \
	"  IF NOT daicho_is_human() THEN" \
	"    PERFORM daicho_refuse(CASE TG_OP WHEN 'DELETE'" \
	"      THEN 'removing a gate' ELSE 'changing a gate' END);" \
	"  END IF;" \
	"  RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;" \
	"END $$;" \
	"CREATE TRIGGER gates_check BEFORE UPDATE OR DELETE ON gates" \
	"  FOR EACH ROW EXECUTE FUNCTION daicho_gates_check();" \
	/* Settings: a person's. */ \
	"CREATE FUNCTION daicho_settings_check() RETURNS trigger" \
	"  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$" \
	"BEGIN" \
	"  IF NOT daicho_is_human() THEN" \
	"    PERFORM daicho_refuse('changing settings');" \
	"  END IF;" \
	"  RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;" \
	"END $$;" \
	"CREATE TRIGGER settings_check BEFORE INSERT OR UPDATE OR DELETE" \
	"  ON settings FOR EACH ROW EXECUTE FUNCTION daicho_settings_check();"


/*
 * Schema 7's half of the trust boundary: the guards that judge whole rows
 * for every session that is not a person's (migration 7 says why).
 * Helpers first: which login made a task (as daicho_agent_roles says
 * which made an agent), whether an agent or a task is the session's own,
 * whether a person has edited a task (an edit event by a person's row:
 * only a person makes one, daicho_agents_check()).
 */
#define WHOLE_ROW_BOUNDARY \
	"CREATE TABLE IF NOT EXISTS daicho_task_roles (" \
	"  task bigint PRIMARY KEY," \
	"  db_role text NOT NULL" \
	");" \
	"CREATE OR REPLACE FUNCTION daicho_tasks_record_role() RETURNS trigger" \
	"  LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$" \
	"BEGIN" \
	"  INSERT INTO daicho_task_roles (task, db_role)" \
	"    VALUES (NEW.id, session_user) ON CONFLICT (task) DO NOTHING;" \
	"  RETURN NULL;" \
	"END $$;" \
	"CREATE OR REPLACE FUNCTION daicho_mine(agent bigint) RETURNS boolean" \
	"  LANGUAGE sql STABLE SET search_path FROM CURRENT" \
	"  RETURN coalesce(daicho_role_of(agent) = session_user, false);" \
	"CREATE OR REPLACE FUNCTION daicho_task_mine(task bigint) RETURNS boolean" \
	"  LANGUAGE sql STABLE SET search_path FROM CURRENT" \
	"  RETURN EXISTS (SELECT 1 FROM daicho_task_roles r" \
	"    WHERE r.task = daicho_task_mine.task AND r.db_role = session_user);" \
	"CREATE OR REPLACE FUNCTION daicho_person_edited(task bigint)" \
	"  RETURNS boolean LANGUAGE sql STABLE SET search_path FROM CURRENT" \
	"  RETURN EXISTS (SELECT 1 FROM events e JOIN agents a ON a.id = e.actor" \
	"    WHERE e.task = daicho_person_edited.task AND e.kind = 'edit'" \
	"    AND a.kind = 'human');" \
	/* \
	 * Agents: a login changes only the rows it made, except that an \
	 * agent whose last wait another ended (its owner's resume) is set \
	 * back to active. Turning a row into a person's is refused by \
	 * daicho_agents_check(). \
	 */ \
	"CREATE OR REPLACE FUNCTION daicho_guard_agents() RETURNS trigger" \
	"  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$" \
	"DECLARE" \
	"  allowed agents%ROWTYPE;" \
	"BEGIN" \
	"  IF NEW IS NOT DISTINCT FROM OLD OR daicho_mine(OLD.id)" \
	"     OR daicho_is_human() THEN" \
	"    RETURN NEW;" \
	"  END IF;" \
	"  allowed := OLD;" \
	"  IF OLD.state = 'waiting' AND NEW.state = 'active' AND NOT EXISTS" \
	"     (SELECT 1 FROM waits w WHERE w.agent = OLD.id" \
	"      AND w.ended_ms IS NULL) THEN" \
	"    allowed.state := NEW.state;" \
	"  END IF;" \
	"  IF allowed IS DISTINCT FROM NEW THEN" \
	"    PERFORM daicho_refuse(format(" \
	"      'changing agent %s, which another login made,', OLD.name));" \
	"  END IF;" \
	"  RETURN NEW;" \
	"END $$;" \
	/* \
	 * Tasks. A new one is open and unjudged. Never an agent's: the \
	 * sweep's verdict (verified), the lander's fields, a person's \
	 * (no_baseline, check_needs). Its holder's login (or a login taking \
	 * it up while open, or returning it after its lease ran out) changes \
	 * the claim's columns, and so does the login that added it while no \
	 * other login holds it; the login that added it changes what the \
	 * task is (a person's edit keeps its checks and scope the person's). \
	 * A task goes to no other login's agent; created_ms never changes. \
	 */ \
	"CREATE OR REPLACE FUNCTION daicho_guard_tasks() RETURNS trigger" \
	"  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$" \
	"DECLARE" \
	"  allowed tasks%ROWTYPE;" \
	"  held boolean;" \
	"  lapsed boolean;" \
	"  other boolean;" \
	"  made boolean;" \
	"BEGIN" \
	"  IF daicho_is_human() THEN" \
	"    RETURN NEW;" \
	"  END IF;" \
	"  IF TG_OP = 'INSERT' THEN" \
	"    IF NEW.state <> 'open' OR NEW.owner IS NOT NULL OR NEW.attempts <> 0" \
	"       OR NEW.lease_expires_ms IS NOT NULL" \
	"       OR NEW.report_commit IS NOT NULL OR NEW.report_note IS NOT NULL" \
	"       OR NEW.verify_token IS NOT NULL OR NEW.land_queued_ms IS NOT NULL" \
	"       OR NEW.land_token IS NOT NULL OR NEW.land_tries <> 0" \
	"       OR NEW.landed_commit IS NOT NULL OR NEW.landed_ms IS NOT NULL" \
	"       OR NEW.no_baseline <> 0 OR NEW.check_needs IS NOT NULL THEN" \
	"      PERFORM daicho_refuse('adding a task that is not new and open');" \
	"    END IF;" \
	"    RETURN NEW;" \
	"  END IF;" \
	"  IF NEW IS NOT DISTINCT FROM OLD THEN" \
	"    RETURN NEW;" \
	"  END IF;" \
	"  IF OLD.state IN ('verified', 'landed')" \
	"     OR NEW.state IN ('verified', 'landed')" \
	"     OR (NEW.verify_token, NEW.verify_expires_ms, NEW.land_queued_ms," \
	"         NEW.land_base, NEW.land_token, NEW.land_tries, NEW.land_note," \
	"         NEW.land_waiting, NEW.landed_commit, NEW.landed_trunk," \
	"         NEW.landed_ms, NEW.no_baseline, NEW.check_needs)" \
	"       IS DISTINCT FROM" \
	"        (OLD.verify_token, OLD.verify_expires_ms, OLD.land_queued_ms," \
	"         OLD.land_base, OLD.land_token, OLD.land_tries, OLD.land_note," \
	"         OLD.land_waiting, OLD.landed_commit, OLD.landed_trunk," \
	"         OLD.landed_ms, OLD.no_baseline, OLD.check_needs) THEN" \
	"    PERFORM daicho_refuse(format(" \
	"      'what the sweep, the lander or a person records on task #%s'," \
	"      OLD.id));" \
	"  END IF;" \
	"  IF NEW.owner IS DISTINCT FROM OLD.owner AND NEW.owner IS NOT NULL" \
	"     AND NOT daicho_mine(NEW.owner) THEN" \
	"    PERFORM daicho_refuse(format(" \
	"      'giving task #%s to another login''s agent', OLD.id));" \
	"  END IF;" \
	"  held := OLD.owner IS NOT NULL" \
	"    AND OLD.state IN ('claimed', 'blocked', 'reported')" \
	"    AND daicho_mine(OLD.owner);" \
	"  lapsed := OLD.state = 'claimed' AND least(OLD.lease_expires_ms," \
	"    coalesce(OLD.claim_named_ms + OLD.max_hold_ms, OLD.lease_expires_ms))" \
	"    <= CAST(1000 * extract(epoch FROM clock_timestamp()) AS bigint)" \
	"    + 60000;" \
	"  other := OLD.owner IS NOT NULL AND NOT held AND NOT lapsed" \
	"    AND OLD.state IN ('claimed', 'blocked', 'reported');" \
	"  made := daicho_task_mine(OLD.id);" \
	"  allowed := OLD;" \
	"  IF held OR (made AND NOT other)" \
	"     OR ((OLD.state = 'open' OR lapsed) AND NEW.state = 'claimed'" \
	"         AND daicho_mine(NEW.owner))" \
	"     OR (lapsed AND NEW.state IN ('open', 'failed')" \
	"         AND NEW.owner IS NOT DISTINCT FROM" \
	"           CASE NEW.state WHEN 'open' THEN NULL ELSE OLD.owner END) THEN" \
	"    allowed.state := NEW.state;" \
	"    allowed.owner := NEW.owner;" \
	"    allowed.lease_ms := NEW.lease_ms;" \
	"    allowed.lease_expires_ms := NEW.lease_expires_ms;" \
	"    allowed.attempts := NEW.attempts;" \
	"    allowed.report_commit := NEW.report_commit;" \
	"    allowed.report_note := NEW.report_note;" \
	"    allowed.block_reason := NEW.block_reason;" \
	"    allowed.updated_ms := NEW.updated_ms;" \
	"    allowed.not_before_ms := NEW.not_before_ms;" \
	"    allowed.claim_base := NEW.claim_base;" \
	"    allowed.claim_named_ms := NEW.claim_named_ms;" \
	"    allowed.max_hold_ms := NEW.max_hold_ms;" \
	"  END IF;" \
	"  IF made THEN" \
	"    allowed.title := NEW.title;" \
	"    allowed.body := NEW.body;" \
	"    allowed.priority := NEW.priority;" \
	"    allowed.parent := NEW.parent;" \
	"    allowed.max_attempts := NEW.max_attempts;" \
	"    allowed.unmet_deps := NEW.unmet_deps;" \
	"    allowed.updated_ms := NEW.updated_ms;" \
	"    IF NOT daicho_person_edited(OLD.id) THEN" \
	"      allowed.has_touches := NEW.has_touches;" \
	"      allowed.check_timeout_ms := NEW.check_timeout_ms;" \
	"      allowed.checks_version := NEW.checks_version;" \
	"    END IF;" \
	"  END IF;" \
	"  IF allowed IS DISTINCT FROM NEW THEN" \
	"    PERFORM daicho_refuse(format('this change to task #%s', OLD.id));" \
	"  END IF;" \
	"  RETURN NEW;" \
	"END $$;" \
	/* \
	 * A task's definition (deps, labels, touches, checks, protects): \
	 * the login that added it, until it is verified; a person's edit of \
	 * it makes all but its labels the person's. \
	 */ \
	"CREATE OR REPLACE FUNCTION daicho_guard_definition() RETURNS trigger" \
	"  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$" \
	"DECLARE" \
	"  t bigint := CASE TG_OP WHEN 'DELETE' THEN OLD.task ELSE NEW.task END;" \
	"BEGIN" \
	"  IF NOT daicho_is_human() AND (NOT daicho_task_mine(t)" \
	"     OR EXISTS (SELECT 1 FROM tasks k WHERE k.id = t" \
	"       AND k.state IN ('verified', 'landed'))" \
	"     OR (TG_TABLE_NAME <> 'labels' AND daicho_person_edited(t))) THEN" \
	"    PERFORM daicho_refuse(format('changing the %s of task #%s', " \
	"      TG_TABLE_NAME, t));" \
	"  END IF;" \
	"  RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;" \
	"END $$;" \
	/* \
	 * The rest, each row as its agent's: a wait (its agent's, or its \
	 * owner's to end or hand over), a wait's items, a message (sent as \
	 * one's own agent; read, and claimed from the queue by name, by \
	 * its recipient), a reservation, a save (by the task's holder), an \
	 * event (one's own, never one that records a person's or the \
	 * sweep's decision), a gate, an approval asked for and used by its \
	 * own requester. \
	 */ \
	"CREATE OR REPLACE FUNCTION daicho_guard_rows() RETURNS trigger" \
	"  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$" \
	"DECLARE" \
	"  w text := TG_TABLE_NAME || ' ' || TG_OP;" \
	"  ok boolean := false;" \
	"BEGIN" \
	"  IF TG_OP = 'UPDATE' AND NEW IS NOT DISTINCT FROM OLD" \
	"     OR daicho_is_human() THEN" \
	"    RETURN NEW;" \
	"  END IF;" \
	/* Each test is its own statement: only the table's is parsed. */ \
	"  IF w = 'waits INSERT' THEN" \
	"    ok := daicho_mine(NEW.agent) AND NEW.ended_ms IS NULL;" \
	"  ELSIF w = 'waits UPDATE' THEN" \
	"    ok := NEW.agent = OLD.agent" \
	"      AND (daicho_mine(OLD.agent) OR daicho_mine(OLD.owner));" \
	"  ELSIF w = 'wait_items INSERT' THEN" \
	"    ok := daicho_mine((SELECT x.agent FROM waits x WHERE x.id = NEW.wait));" \
	"  ELSIF w = 'messages INSERT' THEN" \
	"    ok := daicho_mine(NEW.sender) AND NEW.read_ms IS NULL;" \
	"  ELSIF w = 'messages UPDATE' THEN" \
	"    ok := daicho_mine(NEW.recipient)" \
	"      AND (NEW.recipient = OLD.recipient OR (OLD.queued = 1" \
	"        AND OLD.recipient_name = (SELECT a.name FROM agents a" \
	"          WHERE a.id = NEW.recipient)))" \
	"      AND (NEW.sender, NEW.recipient_name, NEW.addressed_to, NEW.kind," \
	"        NEW.body, NEW.sent_ms, NEW.recipient_seen_ms, NEW.queued," \
	"        NEW.reply_to)" \
	"      IS NOT DISTINCT FROM (OLD.sender, OLD.recipient_name," \
	"        OLD.addressed_to, OLD.kind, OLD.body, OLD.sent_ms," \
	"        OLD.recipient_seen_ms, OLD.queued, OLD.reply_to);" \
	"  ELSIF w = 'reservations INSERT' THEN" \
	"    ok := daicho_mine(NEW.agent);" \
	"  ELSIF w = 'reservations UPDATE' THEN" \
	"    ok := daicho_mine(OLD.agent) AND NEW.agent = OLD.agent;" \
	"  ELSIF w = 'saves INSERT' THEN" \
	"    ok := daicho_mine(NEW.agent) AND daicho_mine((SELECT k.owner" \
	"      FROM tasks k WHERE k.id = NEW.task));" \
	"  ELSIF w = 'events INSERT' THEN" \
	"    ok := daicho_mine(NEW.actor) AND NEW.kind NOT IN ('approve', 'deny'," \
	"      'gate-rm', 'config', 'verified', 'rejected', 'reverified'," \
	"      'reopened', 'landed', 'agent-stale', 'wait-overdue'," \
	"      'verify-deferred') AND NEW.kind NOT LIKE 'land%';" \
	"  ELSIF w = 'gates INSERT' THEN" \
	"    ok := daicho_mine(NEW.created_by);" \
	"  ELSIF w = 'approvals INSERT' THEN" \
	"    ok := daicho_mine(NEW.requester);" \
	"  ELSIF w = 'approvals UPDATE' THEN" \
	"    ok := daicho_mine(OLD.requester);" \
	"  END IF;" \
	"  IF NOT coalesce(ok, false) THEN" \
	"    PERFORM daicho_refuse(format('this %s of %s', lower(TG_OP)," \
	"      TG_TABLE_NAME));" \
	"  END IF;" \
	"  RETURN NEW;" \
	"END $$;" \
	/* \
	 * A person whose wait for a lock timed out ends the sessions of \
	 * agents' logins in this database that hold a lock and have been in \
	 * a transaction for longer than held_ms (daicho's own transactions \
	 * last milliseconds), or idle that long holding one (a session-level \
	 * advisory lock): the number ended. Nothing for anyone else. As \
	 * the owner, who needs pg_signal_backend and pg_read_all_stats (a \
	 * superuser has both; 'daicho init' grants them when it may). \
	 */ \
	"CREATE OR REPLACE FUNCTION daicho_free_ledger(held_ms bigint)" \
	"  RETURNS bigint" \
	"  LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$" \
	"DECLARE" \
	"  ended bigint := 0;" \
	"  p record;" \
	"BEGIN" \
	"  IF NOT daicho_is_human() THEN" \
	"    RETURN 0;" \
	"  END IF;" \
	"  FOR p IN SELECT s.pid FROM pg_stat_activity s" \
	"    WHERE s.datname = current_database() AND s.pid <> pg_backend_pid()" \
	"    AND coalesce(s.xact_start, s.state_change) < clock_timestamp()" \
	"      - make_interval(secs => held_ms / 1000.0)" \
	"    AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = s.pid" \
	"      AND l.granted AND l.locktype IN ('advisory', 'relation', 'tuple'," \
	"        'transactionid'))" \
	"    AND NOT pg_has_role(s.usesysid, (SELECT c.relowner FROM pg_class c" \
	"      WHERE c.oid = CAST('daicho_schema' AS regclass)), 'MEMBER')" \
	"    AND NOT coalesce((SELECT pg_has_role(s.usesysid, r.oid, 'MEMBER')" \
	"      FROM pg_roles r WHERE r.rolname = 'daicho_human'), false)" \
	"  LOOP" \
	"    IF pg_terminate_backend(p.pid) THEN" \
	"      ended := ended + 1;" \
	"    END IF;" \
	"  END LOOP;" \
	"  RETURN ended;" \
	"END $$;" \
	/* \
	 * The privileges, granted afresh by every migration that adds a \
	 * column (an agent's are column by column): a person's table by \
	 * table as before, an agent's on every column but id, and none on \
	 * what only the sweep, the lander or a person writes. \
	 */ \
	"CREATE OR REPLACE FUNCTION daicho_set_privileges() RETURNS void" \
	"  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$" \
	"DECLARE" \
	"  g record;" \
	"  cols text;" \
	"BEGIN" \
	"  EXECUTE format('GRANT CONNECT ON DATABASE %I" \
	"    TO daicho_agent, daicho_human', current_database());" \
	/* \
	 * No temporary objects: a login's own temporary table would come \
	 * first in its search path (the guards name theirs: see below). \
	 */ \
	"  EXECUTE format('REVOKE TEMPORARY ON DATABASE %I" \
	"    FROM daicho_agent, daicho_human', current_database());" \
	"  BEGIN" \
	"    EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC'," \
	"      current_database());" \
	"  EXCEPTION WHEN insufficient_privilege THEN" \
	"    NULL;" /* not the database's owner: the search paths still hold */ \
	"  END;" \
	"  EXECUTE format('GRANT USAGE ON SCHEMA %I" \
	"    TO daicho_agent, daicho_human', current_schema());" \
	"  EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA %I" \
	"    FROM daicho_agent, daicho_human', current_schema());" \
	"  EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA %I" \
	"    TO daicho_agent, daicho_human', current_schema());" \
	"  EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA %I" \
	"    FROM daicho_agent, daicho_human', current_schema());" \
	"  EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I" \
	"    TO daicho_agent, daicho_human', current_schema());" \
	"  EXECUTE format('GRANT UPDATE ON ALL SEQUENCES IN SCHEMA %I" \
	"    TO daicho_human', current_schema());" \
	"  EXECUTE format('GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA %I" \
	"    TO daicho_agent, daicho_human', current_schema());" \
	"  GRANT INSERT, UPDATE ON agents, tasks, waits, messages, reservations," \
	"    approvals, land_lock, baselines, audits TO daicho_human;" \
	"  GRANT INSERT ON saves, events, verdicts, check_runs, wait_items, gates" \
	"    TO daicho_human;" \
	"  GRANT INSERT, DELETE ON deps, labels, touches, checks, protects" \
	"    TO daicho_human;" \
	"  GRANT UPDATE, DELETE ON gates TO daicho_human;" \
	"  GRANT DELETE ON baselines TO daicho_human;" \
	"  GRANT INSERT, UPDATE, DELETE ON settings TO daicho_human;" \
	"  GRANT UPDATE ON deps, labels, touches, checks, protects, saves," \
	"    verdicts, check_runs, wait_items TO daicho_human;" \
	"  GRANT DELETE ON agents, tasks, saves, verdicts, check_runs, waits," \
	"    wait_items, messages, reservations, approvals TO daicho_human;" \
	"  FOR g IN SELECT * FROM (VALUES ('agents', 'UPDATE'), ('tasks', 'UPDATE')," \
	"      ('waits', 'UPDATE'), ('messages', 'UPDATE')," \
	"      ('reservations', 'UPDATE'), ('approvals', 'UPDATE')," \
	"      ('gates', 'UPDATE'), ('settings', 'UPDATE')," \
	"      ('agents', 'INSERT'), ('tasks', 'INSERT'), ('waits', 'INSERT')," \
	"      ('messages', 'INSERT'), ('reservations', 'INSERT')," \
	"      ('approvals', 'INSERT'), ('gates', 'INSERT'), ('settings', 'INSERT')," \
	"      ('saves', 'INSERT'), ('events', 'INSERT'), ('wait_items', 'INSERT')," \
	"      ('deps', 'INSERT'), ('labels', 'INSERT'), ('touches', 'INSERT')," \
	"      ('checks', 'INSERT'), ('protects', 'INSERT')) AS v(tab, op)" \
	"  LOOP" \
	"    SELECT string_agg(quote_ident(c.column_name), ', ') INTO cols" \
	"      FROM information_schema.columns c" \
	"      WHERE c.table_schema = current_schema() AND c.table_name = g.tab" \
	"      AND c.column_name <> 'id';" \
	"    EXECUTE format('GRANT %s (%s) ON %I TO daicho_agent', g.op, cols," \
	"      g.tab);" \
	"  END LOOP;" \
	"  GRANT DELETE ON deps, labels, touches, checks, protects" \
	"    TO daicho_agent;" \
	"END $$;" \
	/* \
	 * The guards fire for every session but the owner's (named here, \
	 * so that the owner's writes, most of a single-user ledger's, call \
	 * no PL/pgSQL: see migration 2); each lets a person's through. \
	 */ \
	"DO $$" \
	"DECLARE" \
	"  owner text := (SELECT r.rolname FROM pg_roles r JOIN pg_class c" \
	"    ON c.relowner = r.oid WHERE c.oid = CAST('daicho_schema' AS regclass));" \
	"  t text;" \
	"  f record;" \
	"BEGIN" \
	"  EXECUTE format('CREATE OR REPLACE TRIGGER tasks_record_role AFTER INSERT ON tasks" \
	"    FOR EACH ROW WHEN (session_user <> %L)" \
	"    EXECUTE FUNCTION daicho_tasks_record_role()', owner);" \
	"  EXECUTE format('CREATE OR REPLACE TRIGGER agents_guard BEFORE UPDATE ON agents" \
	"    FOR EACH ROW WHEN (session_user <> %L)" \
	"    EXECUTE FUNCTION daicho_guard_agents()', owner);" \
	"  EXECUTE format('CREATE OR REPLACE TRIGGER tasks_guard BEFORE INSERT OR UPDATE" \
	"    ON tasks FOR EACH ROW WHEN (session_user <> %L)" \
	"    EXECUTE FUNCTION daicho_guard_tasks()', owner);" \
	"  FOREACH t IN ARRAY ARRAY['deps', 'labels', 'touches', 'checks'," \
	"      'protects'] LOOP" \
	"    EXECUTE format('CREATE OR REPLACE TRIGGER %I BEFORE INSERT OR DELETE ON %I" \
	"      FOR EACH ROW WHEN (session_user <> %L)" \
	"      EXECUTE FUNCTION daicho_guard_definition()', t || '_guard', t," \
	"      owner);" \
	"  END LOOP;" \
	"  FOREACH t IN ARRAY ARRAY['waits', 'messages', 'reservations'," \
	"      'approvals'] LOOP" \
	"    EXECUTE format('CREATE OR REPLACE TRIGGER %I BEFORE INSERT OR UPDATE ON %I" \
	"      FOR EACH ROW WHEN (session_user <> %L)" \
	"      EXECUTE FUNCTION daicho_guard_rows()', t || '_guard', t, owner);" \
	"  END LOOP;" \
	"  FOREACH t IN ARRAY ARRAY['wait_items', 'saves', 'events', 'gates'] LOOP" \
	"    EXECUTE format('CREATE OR REPLACE TRIGGER %I BEFORE INSERT ON %I" \
	"      FOR EACH ROW WHEN (session_user <> %L)" \
	"      EXECUTE FUNCTION daicho_guard_rows()', t || '_guard', t, owner);" \
	"  END LOOP;" \
	/* \
	 * Every daicho function that reads a table resolves names in the \
	 * schema, then the catalog, and the session's temporary schema last: \
	 * a temporary table (or view named pg_class, pg_locks ...) cannot \
	 * stand in for what a guard reads (PostgreSQL searches pg_temp first \
	 * when a path does not name it). \
	 */ \
	"  FOR f IN SELECT CAST(p.oid AS regprocedure) AS sig FROM pg_proc p" \
	"    JOIN pg_namespace n ON n.oid = p.pronamespace" \
	"    WHERE n.nspname = current_schema() AND p.proname LIKE 'daicho%'" \
	"    AND p.proname NOT IN ('daicho_sha256', 'daicho_json_array_text')" \
	"  LOOP" \
	"    EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_catalog," \
	"      pg_temp', f.sig, current_schema());" \
	"  END LOOP;" \
	"  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'daicho_agent') THEN" \
	"    PERFORM daicho_set_privileges();" \
	"  END IF;" \
	"END $$;"


#define ID "bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"

const char *const schema_pg_migrations[] = {
	/* 1: SQLite's migrations 1 to 8, and the compatibility functions. */
	"CREATE TABLE daicho_schema (version integer NOT NULL);"
	"CREATE TABLE agents ("
	"  id " ID ","
	"  name text NOT NULL,"
	"  role text,"
	"  kind text NOT NULL CHECK (kind IN"
	"    ('claude','codex','gemini','script','human')),"
	"  session_id text,"
	"  pid bigint,"
	"  host text,"
	"  state text NOT NULL DEFAULT 'active' CHECK (state IN"
	"    ('active','waiting','stale','ended')),"
	"  started_ms bigint NOT NULL,"
	"  last_seen_ms bigint NOT NULL,"
	"  ended_ms bigint"
	");"
	"CREATE UNIQUE INDEX agents_live_name ON agents(name)"
	"  WHERE state <> 'ended';"
	"CREATE INDEX agents_live_session ON agents(session_id)"
	"  WHERE session_id IS NOT NULL AND state <> 'ended';"
	"CREATE INDEX agents_role ON agents(role) WHERE state <> 'ended';"
	"CREATE INDEX agents_name ON agents(name, id);"
	"CREATE INDEX agents_liveness ON agents(state, last_seen_ms);"
	"CREATE TABLE tasks ("
	"  id " ID ","
	"  title text NOT NULL CHECK (length(title) > 0),"
	"  body bytea NOT NULL DEFAULT ''::bytea,"
	"  priority bigint NOT NULL DEFAULT 0,"
	"  state text NOT NULL DEFAULT 'open' CHECK (state IN"
	"    ('open','claimed','reported','verified','blocked','cancelled',"
	"     'failed')),"
	"  parent bigint REFERENCES tasks(id),"
	"  owner bigint REFERENCES agents(id),"
	"  lease_ms bigint,"
	"  lease_expires_ms bigint,"
	"  attempts bigint NOT NULL DEFAULT 0,"
	"  max_attempts bigint NOT NULL DEFAULT 3 CHECK (max_attempts > 0),"
	"  unmet_deps bigint NOT NULL DEFAULT 0,"
	"  has_touches bigint NOT NULL DEFAULT 0,"
	"  report_commit text,"
	"  report_note text,"
	"  block_reason text,"
	"  created_ms bigint NOT NULL,"
	"  updated_ms bigint NOT NULL,"
	"  check_timeout_ms bigint,"
	"  verify_token text,"
	"  verify_expires_ms bigint,"
	"  not_before_ms bigint,"
	"  claim_base text,"
	"  claim_named_ms bigint,"
	"  max_hold_ms bigint,"
	"  checks_version bigint NOT NULL DEFAULT 1,"
	"  CHECK (state <> 'claimed' OR"
	"    (owner IS NOT NULL AND lease_expires_ms IS NOT NULL))"
	");"
	"CREATE INDEX tasks_ready ON tasks(priority DESC, id)"
	"  WHERE state = 'open' AND unmet_deps = 0;"
	"CREATE INDEX tasks_claimed_lease ON tasks(lease_expires_ms)"
	"  WHERE state = 'claimed';"
	"CREATE INDEX tasks_owner ON tasks(owner) WHERE owner IS NOT NULL;"
	"CREATE INDEX tasks_state ON tasks(state);"
	"CREATE INDEX tasks_owner_claimed ON tasks(owner, lease_expires_ms)"
	"  WHERE state = 'claimed';"
	"CREATE TABLE deps ("
	"  task bigint NOT NULL REFERENCES tasks(id),"
	"  after bigint NOT NULL REFERENCES tasks(id),"
	"  PRIMARY KEY (task, after)"
	");"
	"CREATE INDEX deps_after ON deps(after, task);"
	"CREATE TABLE labels ("
	"  task bigint NOT NULL REFERENCES tasks(id),"
	"  label text NOT NULL,"
	"  PRIMARY KEY (task, label)"
	");"
	"CREATE INDEX labels_label ON labels(label, task);"
	"CREATE TABLE touches ("
	"  task bigint NOT NULL REFERENCES tasks(id),"
	"  glob text NOT NULL,"
	"  PRIMARY KEY (task, glob)"
	");"
	"CREATE TABLE checks ("
	"  task bigint NOT NULL REFERENCES tasks(id),"
	"  seq bigint NOT NULL,"
	"  spec text NOT NULL,"
	"  PRIMARY KEY (task, seq)"
	");"
	"CREATE TABLE saves ("
	"  id " ID ","
	"  task bigint NOT NULL REFERENCES tasks(id),"
	"  agent bigint REFERENCES agents(id),"
	"  at_ms bigint NOT NULL,"
	"  result bytea NOT NULL,"
	"  tokens_in bigint,"
	"  tokens_out bigint,"
	"  cost double precision,"
	"  model text"
	");"
	"CREATE INDEX saves_task ON saves(task, id);"
	"CREATE TABLE events ("
	"  id " ID ","
	"  at_ms bigint NOT NULL,"
	"  actor bigint REFERENCES agents(id),"
	"  kind text NOT NULL,"
	"  task bigint REFERENCES tasks(id),"
	"  detail text"
	");"
	"CREATE INDEX events_task ON events(task) WHERE task IS NOT NULL;"
	"CREATE INDEX events_budget_spent ON events(at_ms, id)"
	"  WHERE kind = 'budget-spent';"
	"CREATE TABLE verdicts ("
	"  id " ID ","
	"  task bigint NOT NULL REFERENCES tasks(id),"
	"  at_ms bigint NOT NULL,"
	"  actor bigint REFERENCES agents(id),"
	"  passed bigint NOT NULL,"
	"  commit_hash text,"
	"  summary text NOT NULL,"
	"  checks_version bigint,"
	"  tree text"
	");"
	"CREATE INDEX verdicts_task ON verdicts(task, id);"
	"CREATE INDEX verdicts_commit ON verdicts(commit_hash)"
	"  WHERE passed <> 0 AND commit_hash IS NOT NULL;"
	"CREATE INDEX verdicts_tree ON verdicts(tree)"
	"  WHERE passed <> 0 AND tree IS NOT NULL;"
	"CREATE TABLE check_runs ("
	"  verdict bigint NOT NULL REFERENCES verdicts(id),"
	"  seq bigint NOT NULL,"
	"  spec text NOT NULL,"
	"  passed bigint NOT NULL,"
	"  exit_status bigint,"
	"  duration_ms bigint NOT NULL,"
	"  output bytea NOT NULL,"
	"  PRIMARY KEY (verdict, seq)"
	");"
	"CREATE TABLE waits ("
	"  id " ID ","
	"  agent bigint NOT NULL REFERENCES agents(id),"
	"  owner bigint REFERENCES agents(id),"
	"  what text NOT NULL,"
	"  remind_ms bigint NOT NULL CHECK (remind_ms > 0),"
	"  started_ms bigint NOT NULL,"
	"  reminded_ms bigint,"
	"  needs_human bigint NOT NULL DEFAULT 0,"
	"  ended_ms bigint"
	");"
	"CREATE INDEX waits_open ON waits(agent) WHERE ended_ms IS NULL;"
	"CREATE INDEX waits_open_owner ON waits(owner) WHERE ended_ms IS NULL;"
	"CREATE TABLE wait_items ("
	"  wait bigint NOT NULL REFERENCES waits(id),"
	"  seq bigint NOT NULL,"
	"  what text NOT NULL,"
	"  task bigint REFERENCES tasks(id),"
	"  PRIMARY KEY (wait, seq)"
	");"
	"CREATE TABLE messages ("
	"  id " ID ","
	"  sender bigint REFERENCES agents(id),"
	"  recipient bigint REFERENCES agents(id),"
	"  recipient_name text NOT NULL,"
	"  addressed_to text NOT NULL,"
	"  kind text NOT NULL DEFAULT 'message' CHECK (kind IN"
	"    ('message','reminder')),"
	"  body text NOT NULL,"
	"  sent_ms bigint NOT NULL,"
	"  recipient_seen_ms bigint,"
	"  queued bigint NOT NULL DEFAULT 0,"
	"  read_ms bigint"
	");"
	"CREATE INDEX messages_unread ON messages(recipient, id)"
	"  WHERE read_ms IS NULL;"
	"CREATE INDEX messages_queued ON messages(recipient_name, id)"
	"  WHERE read_ms IS NULL AND queued = 1;"
	"CREATE TABLE reservations ("
	"  id " ID ","
	"  agent bigint NOT NULL REFERENCES agents(id),"
	"  glob text NOT NULL,"
	"  task bigint REFERENCES tasks(id),"
	"  created_ms bigint NOT NULL,"
	"  expires_ms bigint NOT NULL,"
	"  released_ms bigint"
	");"
	"CREATE INDEX reservations_live ON reservations(agent, glob)"
	"  WHERE released_ms IS NULL;"
	"CREATE TABLE gates ("
	"  id " ID ","
	"  pattern text NOT NULL UNIQUE,"
	"  approval bigint NOT NULL DEFAULT 0,"
	"  requires text NOT NULL DEFAULT '[]',"
	"  note text,"
	"  created_ms bigint NOT NULL,"
	"  created_by bigint REFERENCES agents(id)"
	");"
	"CREATE TABLE approvals ("
	"  id " ID ","
	"  fingerprint text NOT NULL,"
	"  command_key text NOT NULL,"
	"  command text NOT NULL,"
	"  cwd text NOT NULL,"
	"  gate bigint REFERENCES gates(id),"
	"  requester bigint NOT NULL REFERENCES agents(id),"
	"  state text NOT NULL DEFAULT 'pending' CHECK (state IN"
	"    ('pending','approved','denied','used')),"
	"  requested_ms bigint NOT NULL,"
	"  decided_ms bigint,"
	"  decided_by text,"
	"  decided_tty text,"
	"  condition text,"
	"  reason text,"
	"  expires_ms bigint,"
	"  used_ms bigint"
	");"
	"CREATE INDEX approvals_fingerprint ON approvals(fingerprint, requester);"
	"CREATE INDEX approvals_denied ON approvals(command_key)"
	"  WHERE state = 'denied';"
	"CREATE INDEX approvals_state ON approvals(state, id);"
	"CREATE TABLE protects ("
	"  task bigint NOT NULL REFERENCES tasks(id),"
	"  glob text NOT NULL,"
	"  PRIMARY KEY (task, glob)"
	");"
	"CREATE TABLE settings ("
	"  key text PRIMARY KEY,"
	"  value text NOT NULL,"
	"  set_ms bigint NOT NULL,"
	"  set_by bigint REFERENCES agents(id)"
	");"

	/*
	 * SQLite's functions that core's SQL calls, with SQLite's meaning
	 * for the arguments core gives them.
	 */
	/* Scalar max() and min() of two: NULL when either is. */
	"CREATE FUNCTION max(a bigint, b bigint) RETURNS bigint"
	"  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE"
	"  RETURN greatest(a, b);"
	"CREATE FUNCTION min(a bigint, b bigint) RETURNS bigint"
	"  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE"
	"  RETURN least(a, b);"
	/* Position of needle in haystack from 1, 0 when absent. */
	"CREATE FUNCTION instr(haystack text, needle text) RETURNS bigint"
	"  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE"
	"  RETURN strpos(haystack, needle);"
	/* substr() with the int8 parameters the driver sends. */
	"CREATE FUNCTION substr(s text, start bigint, count bigint) RETURNS text"
	"  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE"
	"  RETURN substr(s, CAST(start AS integer),"
	"    CAST(least(count, 2147483647) AS integer));"
	/*
	 * hex() of text is the hex of its UTF-8 bytes: length(hex(x)) / 2 is
	 * its size in bytes on both back ends.
	 */
	"CREATE FUNCTION hex(value text) RETURNS text"
	"  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE"
	"  RETURN upper(encode(convert_to(value, 'UTF8'), 'hex'));"
	"CREATE FUNCTION hex(value bytea) RETURNS text"
	"  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE"
	"  RETURN upper(encode(value, 'hex'));"
	/*
	 * printf('%s', bytes): the bytes read as UTF-8 text (SQLite's
	 * CAST(blob AS TEXT); PostgreSQL's cast gives their hex). Bytes
	 * that are not UTF-8 come back escaped rather than failing.
	 */
	"CREATE FUNCTION printf(format text, value bytea) RETURNS text"
	"  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$"
	"BEGIN"
	"  IF format <> '%s' THEN"
	"    RAISE EXCEPTION 'printf(%, bytea) is not supported', format"
	"      USING ERRCODE = '0A000';"
	"  END IF;"
	"  RETURN convert_from(value, 'UTF8');"
	"EXCEPTION WHEN character_not_in_repertoire OR untranslatable_character"
	"  THEN RETURN encode(value, 'escape');"
	"END $$;"
	/*
	 * json_each(text): the elements (or members) of a JSON array (or
	 * object) as text; core casts them to what it compares them with.
	 */
	"CREATE FUNCTION json_each(value text)"
	"  RETURNS TABLE (key text, value text)"
	"  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$"
	"  SELECT NULL::text, e FROM json_array_elements_text(CAST($1 AS json)) e"
	"  WHERE json_typeof(CAST($1 AS json)) = 'array'"
	"  UNION ALL"
	"  SELECT o.key, o.value FROM json_each_text(CAST($1 AS json)) o"
	"  WHERE json_typeof(CAST($1 AS json)) = 'object' $$;"
	/*
	 * json_extract(json, '$.a.b'): the value at a path of member names,
	 * as text (a JSON null as NULL; an object or array as its JSON); core
	 * casts numbers. Array indexes ($.a[0]) are not supported.
	 */
	"CREATE FUNCTION json_extract(value text, path text) RETURNS text"
	"  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$"
	"BEGIN"
	"  IF path !~ '^\\$(\\.[A-Za-z_][A-Za-z_0-9]*)*$' THEN"
	"    RAISE EXCEPTION 'json_extract: unsupported path %', path"
	"      USING ERRCODE = '0A000';"
	"  END IF;"
	"  RETURN CAST(value AS json) #>>"
	"    CAST(string_to_array(substr(path, 3), '.') AS text[]);"
	"END $$;"
	/*
	 * json_group_array(x): the JSON array of the group's values ([] for
	 * none), as text.
	 */
	"CREATE FUNCTION daicho_json_array_text(items anycompatiblearray) RETURNS text"
	"  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$"
	"  SELECT coalesce(CAST(array_to_json(items) AS text), '[]') $$;"
	"CREATE AGGREGATE json_group_array(anycompatible) ("
	"  SFUNC = array_append, STYPE = anycompatiblearray, INITCOND = '{}',"
	"  FINALFUNC = daicho_json_array_text);"
	/*
	 * json_object(k, v, ...) for the one shape core builds: an agent's
	 * open wait (core/agent.c, agent_list()).
	 */
	"CREATE FUNCTION json_object(k1 text, v1 bigint, k2 text, v2 text,"
	"  k3 text, v3 text, k4 text, v4 bigint, k5 text, v5 bigint,"
	"  k6 text, v6 bigint) RETURNS json"
	"  LANGUAGE sql IMMUTABLE PARALLEL SAFE"
	"  RETURN json_build_object(k1, v1, k2, v2, k3, v3, k4, v4, k5, v5,"
	"    k6, v6);"
	TRUST_BOUNDARY,

	/*
	 * 2: the trust boundary's triggers say in a WHEN clause when they
	 * could refuse, so the server calls their PL/pgSQL only then. A new
	 * session compiles a PL/pgSQL function on its first call, and every
	 * claim, save and report (each in a new session) called two, with the
	 * write lock held: 1.5-2 ms of a claim's 4.5 ms in the server. The
	 * functions still check everything themselves; the WHEN clauses hold
	 * the same conditions, less the role checks that need a query
	 * (daicho_is_human()). An agent row's INSERT and UPDATE now have a
	 * trigger each, since an INSERT's WHEN cannot name OLD.
	 */
	"DROP TRIGGER tasks_check ON tasks;"
	"CREATE TRIGGER tasks_check BEFORE UPDATE ON tasks FOR EACH ROW"
	"  WHEN (OLD.state = 'claimed'"
	"     AND (NEW.state <> 'claimed' OR NEW.owner IS DISTINCT FROM OLD.owner)"
	"     AND least(OLD.lease_expires_ms, coalesce(OLD.claim_named_ms"
	"       + OLD.max_hold_ms, OLD.lease_expires_ms)) > CAST(1000 * extract("
	"       epoch FROM clock_timestamp()) AS bigint) + 60000"
	"     AND daicho_role_of(OLD.owner) IS DISTINCT FROM session_user)"
	"  EXECUTE FUNCTION daicho_tasks_check();"
	"DROP TRIGGER events_check ON events;"
	"CREATE TRIGGER events_check BEFORE INSERT ON events FOR EACH ROW"
	"  WHEN (NEW.kind = 'release' AND NEW.detail IS NOT NULL)"
	"  EXECUTE FUNCTION daicho_events_check();"
	"DROP TRIGGER agents_check ON agents;"
	"CREATE TRIGGER agents_check BEFORE INSERT ON agents FOR EACH ROW"
	"  WHEN (NEW.kind = 'human')"
	"  EXECUTE FUNCTION daicho_agents_check();"
	"CREATE TRIGGER agents_check_update BEFORE UPDATE ON agents FOR EACH ROW"
	"  WHEN (NEW.kind = 'human' AND OLD.kind <> 'human')"
	"  EXECUTE FUNCTION daicho_agents_check();"
	"DROP TRIGGER waits_check ON waits;"
	"CREATE TRIGGER waits_check BEFORE UPDATE ON waits FOR EACH ROW"
	"  WHEN (OLD.ended_ms IS NULL AND NEW.ended_ms IS NOT NULL"
	"     AND daicho_role_of(OLD.agent) IS DISTINCT FROM session_user)"
	"  EXECUTE FUNCTION daicho_waits_check();",

	/*
	 * 3: SQLite's migration 10, landing (see store/sqlite/schema.c). Written to
	 * run again on a ledger that has it (IF NOT EXISTS): a version
	 * number set back by hand must not stop the owner's migration.
	 */
	"ALTER TABLE tasks DROP CONSTRAINT IF EXISTS tasks_state_check;"
	"ALTER TABLE tasks ADD CONSTRAINT tasks_state_check CHECK (state IN"
	"  ('open','claimed','reported','verified','blocked','cancelled',"
	"   'failed','landed'));"
	"ALTER TABLE tasks ADD COLUMN IF NOT EXISTS land_queued_ms bigint;"
	"ALTER TABLE tasks ADD COLUMN IF NOT EXISTS land_base text;"
	"ALTER TABLE tasks ADD COLUMN IF NOT EXISTS land_token text;"
	"ALTER TABLE tasks ADD COLUMN IF NOT EXISTS land_tries bigint NOT NULL DEFAULT 0;"
	"ALTER TABLE tasks ADD COLUMN IF NOT EXISTS land_note text;"
	"ALTER TABLE tasks ADD COLUMN IF NOT EXISTS land_waiting text;"
	"ALTER TABLE tasks ADD COLUMN IF NOT EXISTS landed_commit text;"
	"ALTER TABLE tasks ADD COLUMN IF NOT EXISTS landed_trunk text;"
	"ALTER TABLE tasks ADD COLUMN IF NOT EXISTS landed_ms bigint;"
	"CREATE INDEX IF NOT EXISTS tasks_land_queue ON tasks(land_queued_ms, id)"
	"  WHERE state = 'verified' AND land_queued_ms IS NOT NULL;"
	"CREATE TABLE IF NOT EXISTS land_lock ("
	"  id bigint PRIMARY KEY CHECK (id = 1),"
	"  token text,"
	"  expires_ms bigint,"
	"  holder bigint REFERENCES agents(id),"
	"  host text,"
	"  pid bigint,"
	"  pid_start bigint,"
	"  paused_ms bigint,"
	"  paused_by bigint REFERENCES agents(id)"
	");"
	/* A ledger made before this migration has its roles already. */
	"DO $$"
	"BEGIN"
	"  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'daicho_agent') THEN"
	"    GRANT SELECT, INSERT, UPDATE ON land_lock"
	"      TO daicho_agent, daicho_human;"
	"  END IF;"
	"END $$;",

	/* 4: SQLite's migration 11, the judge's own world (store/sqlite/schema.c). */
	"ALTER TABLE verdicts ADD COLUMN IF NOT EXISTS sandbox text;"
	"ALTER TABLE verdicts ADD COLUMN IF NOT EXISTS vacuous bigint NOT NULL DEFAULT 0;"
	"ALTER TABLE check_runs ADD COLUMN IF NOT EXISTS base_passed bigint;"
	"ALTER TABLE tasks ADD COLUMN IF NOT EXISTS no_baseline bigint NOT NULL DEFAULT 0;"
	"ALTER TABLE tasks ADD COLUMN IF NOT EXISTS check_needs text;"
	"CREATE TABLE IF NOT EXISTS baselines ("
	"  tree text NOT NULL,"
	"  key text NOT NULL,"
	"  passed bigint NOT NULL,"
	"  at_ms bigint NOT NULL,"
	"  PRIMARY KEY (tree, key)"
	");"
	"DO $$"
	"BEGIN"
	"  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'daicho_agent') THEN"
	"    GRANT SELECT, INSERT, UPDATE ON baselines"
	"      TO daicho_agent, daicho_human;"
	"  END IF;"
	"END $$;",

	/* 5: SQLite's migration 12, check inputs traced (store/sqlite/schema.c). */
	"ALTER TABLE baselines ADD COLUMN IF NOT EXISTS inputs text;"
	"DELETE FROM baselines WHERE inputs IS NULL;",

	/*
	 * 6: SQLite's migration 13, the events' hash chain (store/sqlite/schema.c),
	 * and the function SQLite's connection defines (core/ledger.c).
	 */
	"ALTER TABLE events ADD COLUMN IF NOT EXISTS hash text;"
	"CREATE TABLE IF NOT EXISTS audits ("
	"  id bigint PRIMARY KEY CHECK (id = 1),"
	"  at_ms bigint NOT NULL,"
	"  findings bigint NOT NULL,"
	"  detail text"
	");"
	"DO $$"
	"BEGIN"
	"  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'daicho_agent') THEN"
	"    GRANT SELECT, INSERT, UPDATE ON audits TO daicho_agent, daicho_human;"
	"  END IF;"
	"END $$;"
	"CREATE OR REPLACE FUNCTION daicho_sha256(value text) RETURNS text"
	"  LANGUAGE sql IMMUTABLE STRICT"
	"  AS $$ SELECT encode(sha256(convert_to(value, 'UTF8')), 'hex') $$;",

	/*
	 * 7: SQLite's migration 14 (a message answers another, the reopens'
	 * index), and the
	 * whole-row boundary (issue 30; docs/security.md). An
	 * agent's login may write a row only as the agent that owns it: each
	 * table's guard judges the whole row, old against new, whatever
	 * columns a write changes and in whatever order. Its privileges are
	 * granted column by column and never on id (no explicit ids: an
	 * agent row or a task cannot be bound ahead of time), so it holds no
	 * table-level UPDATE (LOCK TABLE in a mode that blocks writers needs
	 * one); what is the sweep's, the lander's or a person's (verdicts,
	 * check runs, baselines, audits, the landing lock) it may not write
	 * at all. A person whose lock wait times out ends the agents'
	 * sessions that held a lock longer (daicho_free_ledger()).
	 */
	"ALTER TABLE messages ADD COLUMN IF NOT EXISTS reply_to bigint"
	"  REFERENCES messages(id);"
	"CREATE INDEX IF NOT EXISTS events_reopen ON events(task, id)"
	"  WHERE kind = 'reopen';"
	WHOLE_ROW_BOUNDARY,
};

const size_t schema_pg_migration_count =
    sizeof(schema_pg_migrations) / sizeof(schema_pg_migrations[0]);

/*
 * A new SQLite migration (store/sqlite/schema.c) needs its PostgreSQL twin here:
 * append it, then raise SCHEMA_PG_MATCHES_SQLITE_VERSION.
 */
_Static_assert(SCHEMA_PG_MATCHES_SQLITE_VERSION == STORE_SCHEMA_VERSION,
    "store/sqlite/schema.c has a migration that store/pg/schema.c lacks");

/*
 * The two group roles, made once per cluster, and their privileges
 * (daicho_set_privileges(), schema 7). Both roles read everything. A
 * person's are table by table; an agent's column by column on the tables
 * it writes in the ordinary course, with the triggers above refusing what
 * is not its own (the privilege is granted so that the trigger, which
 * names the role, is what answers). Nobody but the owner may update or
 * delete events, or truncate anything: never granted. Setting a sequence
 * (after an import) is a person's.
 */
const char *const schema_pg_roles =
    "DO $$"
    "BEGIN"
    "  BEGIN"
    "    IF NOT EXISTS (SELECT 1 FROM pg_roles"
    "        WHERE rolname = 'daicho_agent') THEN"
    "      CREATE ROLE daicho_agent NOLOGIN;"
    "    END IF;"
    "  EXCEPTION WHEN duplicate_object OR unique_violation THEN"
    "    NULL;" /* made at the same time by another init */
    "  END;"
    "  BEGIN"
    "    IF NOT EXISTS (SELECT 1 FROM pg_roles"
    "        WHERE rolname = 'daicho_human') THEN"
    "      CREATE ROLE daicho_human NOLOGIN;"
    "    END IF;"
    "  EXCEPTION WHEN duplicate_object OR unique_violation THEN"
    "    NULL;"
    "  END;"
    /*
     * The owner ends agents' sessions that lock a person out
     * (daicho_free_ledger()): it may when a superuser, or when it may
     * grant itself these (CREATEROLE, before PostgreSQL 16). Else
     * 'daicho doctor' ("lock-outs") says what to grant.
     */
    "  BEGIN"
    "    EXECUTE format('GRANT pg_signal_backend, pg_read_all_stats TO %I',"
    "      current_user);"
    "  EXCEPTION WHEN OTHERS THEN"
    "    NULL;"
    "  END;"
    "  PERFORM daicho_set_privileges();"
    "END $$;";

/*
 * Each identity sequence set past its table's largest id, after `daicho
 * import` gave explicit ids.
 */
const char *const schema_pg_after_import =
    "DO $$"
    "DECLARE"
    "  t record;"
    "BEGIN"
    "  IF NOT daicho_is_human() THEN"
    "    PERFORM daicho_refuse('importing a ledger');"
    "  END IF;"
    "  FOR t IN SELECT c.table_name, c.column_name"
    "    FROM information_schema.columns c"
    "    WHERE c.table_schema = current_schema() AND c.is_identity = 'YES'"
    "  LOOP"
    "    EXECUTE format('SELECT setval(pg_get_serial_sequence(%L, %L),"
    "      coalesce(max(%I), 0) + 1, false) FROM %I',"
    "      t.table_name, t.column_name, t.column_name, t.table_name);"
    "  END LOOP;"
    "END $$;";
