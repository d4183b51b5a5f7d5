/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Agents (core/agent.h): who is calling, registration, heartbeats,
 * takeovers and ends. One file because resolving the caller and recording
 * that it is alive happen in the same transaction hook
 * (beat_in_transaction()) over one struct agent.
 */
#include "core/agent.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/db.h"
#include "core/event.h"
#include "core/reserve.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/proc.h"
#include "util/user.h"

/*
 * What goes when an agent ends or turns stale, inside the transaction
 * that says so: the file reservations it holds.
 */
static int
agent_ended_hook(struct ledger *ledger, int64_t id, struct err *err)
{
	return reserve_release_agent(ledger, id, err);
}

/*
 * End agent id now, inside the caller's transaction: the one way an agent
 * ends (asked, taken over, its process gone), so what goes with it (its
 * reservations) always goes. *ended says whether it was live. No event:
 * each caller says why.
 */
static int
end_agent(struct ledger *ledger, int64_t id, int64_t now, bool *ended,
    struct err *err)
{
	int64_t changed;
	int rc = db_write(ledger,
	    "UPDATE agents SET state = 'ended', ended_ms = ?2 WHERE id = ?1"
	    " AND state <> 'ended'", id, now, &changed, "ending an agent", err);

	*ended = rc == 0 && changed > 0;
	if (rc < 0 || !*ended)
		return rc;
	return agent_ended_hook(ledger, id, err);
}

/*
 * The claims agent holds run out now, inside the caller's transaction (the
 * lease pass then reopens them). *expired counts them (may be NULL).
 */
static int
expire_claims(struct ledger *ledger, int64_t agent, int64_t now,
    int64_t *expired, struct err *err)
{
	return db_write(ledger,
	    "UPDATE tasks SET lease_expires_ms = ?2 WHERE owner = ?1"
	    " AND state = 'claimed' AND lease_expires_ms > ?2", agent, now,
	    expired, "expiring claims", err);
}

int
agent_check_name(const char *name, struct err *err)
{
	size_t len = strlen(name);

	if (len == 0 || len > 64 || name[0] == '-')
		goto bad;
	for (const char *p = name; *p; p++) {
		char c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			(c >= '0' && c <= '9') || strchr("._-@+", c)))
			goto bad;
	}
	/* The sweep's reminders read "from daicho": no agent may. */
	if (strcasecmp(name, "daicho") == 0)
		return err_set(err, ERR_USAGE, "agent name '%s' is reserved (daicho's "
		    "own messages come from it); pick another", name);
	return 0;
bad:
	return err_set(err, ERR_USAGE,
	    "invalid agent name '%s' (use 1-64 letters, digits or . _ - @ +, "
	    "not starting with '-')", name);
}

/*
 * The leases of agent ?1 (DUE_LEASES_OF: of owner) that a beat at ?2
 * renews: only leases still running (an expired claim is up for grabs)
 * and past half their length, so an agent that beats often writes each
 * claim's row at most twice per lease.
 */
#define DUE_LEASES DUE_LEASES_OF("?1")
#define DUE_LEASES_OF(owner) \
	" WHERE owner = " owner " AND state = 'claimed' AND lease_expires_ms > ?2" \
	" AND lease_expires_ms - ?2 < lease_ms / 2" \
	" AND (max_hold_ms IS NULL OR" \
	"  lease_expires_ms < claim_named_ms + max_hold_ms)"

static void decide_beat(struct db_stmt *st, int column, int64_t id,
    int64_t now, struct agent_beat *beat);

/* Find the live agent called name; *id = 0 when none. */
static int
find_live_by_name(struct ledger *ledger, const char *name, int64_t *id,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT id FROM agents WHERE name = ? AND state <> 'ended'",
	    &st, err)) < 0)
		return rc;
	db_bind_text(st, 1, name);
	return db_step_int(ledger, st, id, NULL, "looking up an agent", err);
}

/*
 * Refuse (ERR_REFUSED) name as an agent's when it is a person's: the login
 * name of this account, or the name of any agent of kind human in the
 * ledger. An agent given a person's name would act as the person (end
 * their waits, hold claims as theirs), and the person's own commands,
 * resolved by their login name, would act as the agent. In the same read,
 * *live (may be NULL) gets the live agent called name, 0 when none, and
 * *beat (may be NULL) what a beat of it now would write (read_beat()).
 */
static int
refuse_person_name(struct ledger *ledger, const char *name, int64_t *live,
    struct agent_beat *beat, struct err *err)
{
	struct db_stmt *st;
	int64_t human = 0, now = clock_now_ms();
	int rc;

	if (beat)
		memset(beat, 0, sizeof(*beat));
	if (strcmp(name, user_login_name()) != 0) {
		if ((rc = db_prepare(ledger,
		    "SELECT (SELECT count(*) FROM agents"
		    " WHERE name = ?1 AND kind = 'human'), a.id, a.state,"
		    " a.last_seen_ms, EXISTS (SELECT 1 FROM tasks"
		    " INDEXED BY tasks_owner_claimed" DUE_LEASES_OF("a.id") ")"
		    " FROM (SELECT 1) AS one LEFT JOIN agents a"
		    " ON a.name = ?1 AND a.state <> 'ended'", &st, err)) < 0)
			return rc;
		db_bind_text(st, 1, name);
		db_bind_int(st, 2, now);
		rc = db_step(st);
		if (rc == DB_ROW) {
			int64_t id = db_column_int(st, 1);

			human = db_column_int(st, 0);
			if (live)
				*live = id;
			if (beat && id != 0)
				decide_beat(st, 2, id, now, beat);
		}
		db_reset(st);
		if (rc != DB_ROW)
			return db_error(ledger, rc, err, "looking up an agent");
		if (human == 0)
			return 0;
	}
	return err_set(err, ERR_REFUSED, "'%s' is a person's name (%s): an agent "
	    "cannot act as a person; give the agent a name of its own (nothing "
	    "was changed)", name, human ? "a human in this ledger"
	    : "the login name of this account");
}

/*
 * Run sql (?1 = session; columns id, name) for the agent bound to session:
 * fills id and name, or id = 0.
 */
static int
session_agent(struct ledger *ledger, const char *sql, const char *session,
    int64_t *id, char **name, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*id = 0;
	if ((rc = db_prepare(ledger, sql, &st, err)) < 0)
		return rc;
	db_bind_text(st, 1, session);
	rc = db_step(st);
	if (rc == DB_ROW) {
		*id = db_column_int(st, 0);
		*name = xstrdup(db_column_text(st, 1));
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_error(ledger, rc, err, "looking up a session");
	return 0;
}

/* Find the live agent bound to session; fills id and name, or id = 0. */
static int
find_live_by_session(struct ledger *ledger, const char *session, int64_t *id,
    char **name, struct err *err)
{
	return session_agent(ledger,
	    "SELECT id, name FROM agents WHERE session_id = ?1 AND state <> 'ended'"
	    " ORDER BY last_seen_ms DESC LIMIT 1", session, id, name, err);
}

/*
 * A name is an identity that outlives a session: the new agent id of name
 * takes over the claims still held and the open waits (its own, and those
 * it owns) of the ended agents of that name, so a session that comes back
 * under its name (after /clear, a crash, a take-over) can finish its work.
 * A name derived from session (not NULL) is that session's alone: only
 * its own ended agents are taken over (the session resumed). Logged when
 * anything moved.
 */
static int
inherit_name(struct ledger *ledger, int64_t id, const char *name,
    const char *session, struct err *err)
{
	static const char *const moves[] = {
		"UPDATE tasks SET owner = ?1 WHERE state = 'claimed' AND owner IN"
		" (SELECT id FROM agents WHERE name = ?2 AND id <> ?1"
		"  AND state = 'ended' AND (CAST(?3 AS TEXT) IS NULL OR session_id = ?3))",
		"UPDATE waits SET agent = ?1 WHERE ended_ms IS NULL AND agent IN"
		" (SELECT id FROM agents WHERE name = ?2 AND id <> ?1"
		"  AND state = 'ended' AND (CAST(?3 AS TEXT) IS NULL OR session_id = ?3))",
		"UPDATE waits SET owner = ?1 WHERE ended_ms IS NULL AND owner IN"
		" (SELECT id FROM agents WHERE name = ?2 AND id <> ?1"
		"  AND state = 'ended' AND (CAST(?3 AS TEXT) IS NULL OR session_id = ?3))",
		"UPDATE agents SET state = 'waiting' WHERE id = ?1 AND EXISTS"
		" (SELECT 1 FROM waits WHERE agent = ?1 AND ended_ms IS NULL)",
	};
	int64_t moved[3] = { 0, 0, 0 };
	int rc;

	for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]); i++) {
		/* db_prepare() caches by address: each literal is its own. */
		struct db_stmt *st = NULL;

		if ((rc = db_prepare(ledger, moves[i], &st, err)) < 0)
			return rc;
		db_bind_int(st, 1, id);
		db_bind_text(st, 2, name);
		if (session)
			db_bind_text(st, 3, session);
		if ((rc = db_step_done(ledger, st, "taking over a name", err)) < 0)
			return rc;
		if (i < 3)
			moved[i] = db_changes(ledger);
	}
	if (moved[0] + moved[1] + moved[2] == 0)
		return 0;
	return event_append(ledger, id, "agent-inherit", 0,
	    json_pack("{s:s, s:I, s:I, s:I}", "name", name, "claims",
		(json_int_t)moved[0], "waits", (json_int_t)moved[1], "owned_waits",
		(json_int_t)moved[2]), err);
}

/*
 * Insert a live agent. pid is the process whose death frees the agent's
 * claims (a runner's, an agent client's), or 0 for a caller that comes and
 * goes. chosen: someone chose name (DAICHO_AGENT, --as, agent start), and
 * it takes over what its ended predecessors of that name held; a name
 * derived from session takes over only that session's (inherit_name()).
 */
static int
register_agent(struct ledger *ledger, const char *name, const char *kind,
    const char *role, const char *session, int64_t pid, bool chosen,
    int64_t now, int64_t *id, struct err *err)
{
	struct db_stmt *st = NULL;
	char host[256] = "";
	int rc;

	if ((rc = db_prepare(ledger,
	    "INSERT INTO agents (name, kind, role, session_id, pid, host, state,"
	    " started_ms, last_seen_ms) VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?)",
	    &st, err)) < 0)
		return rc;
	gethostname(host, sizeof(host) - 1);
	db_bind_text(st, 1, name);
	db_bind_text(st, 2, kind);
	if (role)
		db_bind_text(st, 3, role);
	if (session)
		db_bind_text(st, 4, session);
	if (pid > 0)
		db_bind_int(st, 5, pid);
	db_bind_text_copy(st, 6, host);
	db_bind_int(st, 7, now);
	db_bind_int(st, 8, now);
	if ((rc = db_step_done(ledger, st, "registering an agent", err)) < 0)
		return rc;
	*id = db_last_insert_id(ledger);
	if ((rc = event_append(ledger, *id, "agent-register", 0,
		 json_pack("{s:s, s:s, s:s?}", "name", name, "kind", kind, "role",
		     role), err)) < 0)
		return rc;
	return inherit_name(ledger, *id, name, chosen ? NULL : session, err);
}

/*
 * A renewed lease runs a lease from now, but never past the maximum hold:
 * the time since a command last named the task that heartbeats alone may
 * keep a claim (core/task.h). Claims from before the maximum hold existed
 * have none.
 */
#define RENEWED_LEASE \
	" CASE WHEN max_hold_ms IS NULL THEN ?2 + lease_ms" \
	" ELSE min(?2 + lease_ms, claim_named_ms + max_hold_ms) END"

/*
 * What a beat at now writes for agent id, from st's columns from column
 * on: the agent's state, its last-seen time, whether a lease of its is due
 * (DUE_LEASES). beat->id 0 (memset) stands for no agent row.
 */
static void
decide_beat(struct db_stmt *st, int column, int64_t id, int64_t now,
    struct agent_beat *beat)
{
	const char *state = db_column_text(st, column);
	int64_t seen = db_column_int(st, column + 1);
	bool active = state != NULL && strcmp(state, "active") == 0;
	bool recent = seen > now - AGENT_SEEN_RESOLUTION_MS && seen <= now;

	beat->id = id;
	beat->read_ms = now;
	beat->lapsed = (state != NULL && strcmp(state, "stale") == 0) ||
		       (active && seen <= now - AGENT_STALE_AFTER_MS);
	beat->seen = !active || !recent;
	beat->due = db_column_int(st, column + 2) != 0;
}

/*
 * Heartbeat: last seen now, stale → active, renew live leases. An agent
 * that was stale comes back without its reservations: they lapsed when it
 * went quiet (others may hold them now), whether or not a sweep said so.
 *
 * Agents call daicho in bursts, and every command beats, so the beat reads
 * the agent's row first (read_beat()) and writes only what changes
 * (write_beat()): the row only when it is not active or its last-seen
 * time is older than AGENT_SEEN_RESOLUTION_MS, and with it the lapsed
 * reservations. A burst of commands thus writes the agent's row about
 * once a second, not once per command. Leases are renewed on every beat
 * that finds one due.
 *
 * The read is made before the write lock is asked for (beat_prepare()),
 * so that it costs the lock nothing; each write checks again as it
 * writes, at the time the lock was taken: the reservations go only while
 * the agent is still lapsed (it may have passed the stale mark while it
 * queued, or a twin process may have come back and reserved since), and
 * a lease is renewed only while it is still due and held.
 */
static int
read_beat(struct ledger *ledger, int64_t id, int64_t now,
    struct agent_beat *beat, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	memset(beat, 0, sizeof(*beat));
	if ((rc = db_prepare(ledger,
	    "SELECT state, last_seen_ms, EXISTS (SELECT 1 FROM tasks"
	    " INDEXED BY tasks_owner_claimed" DUE_LEASES ")"
	    " FROM agents WHERE id = ?1", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	db_bind_int(st, 2, now);
	rc = db_step(st);
	if (rc == DB_ROW)
		decide_beat(st, 0, id, now, beat);
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_error(ledger, rc, err, "reading an agent");
	return 0;
}

/* Stringified, for SQL: AGENT_STALE_AFTER_MS. */
#define STR_(x) #x
#define STR(x) STR_(x)

/* The writes beat asks for, at now; they go with the next statement. */
static int
write_beat(struct ledger *ledger, const struct agent_beat *beat, int64_t now,
    struct err *err)
{
	int rc;

	if (beat->id == 0)
		return 0;
	/*
	 * Whenever the row is written, the agent may have gone stale since
	 * it was read: the release checks, as it writes, whether it did.
	 */
	if ((beat->lapsed || beat->seen) && (rc = db_write_later(ledger,
				 "UPDATE reservations SET released_ms = ?2"
				 " WHERE agent = ?1 AND released_ms IS NULL"
				 " AND EXISTS (SELECT 1 FROM agents WHERE id = ?1"
				 " AND (state = 'stale' OR (state = 'active' AND"
				 " last_seen_ms <= ?2 - " STR(AGENT_STALE_AFTER_MS)
				 ")))", beat->id, now,
				 "releasing lapsed reservations", err)) < 0)
		return rc;
	if (beat->seen && (rc = db_write_later(ledger,
			       "UPDATE agents SET last_seen_ms = ?2,"
			       " state = CASE state WHEN 'stale' THEN"
			       " 'active' ELSE state END WHERE id = ?1",
			       beat->id, now, "recording a heartbeat", err)) < 0)
		return rc;
	if (!beat->due)
		return 0;
	return db_write_later(ledger, "UPDATE tasks INDEXED BY tasks_owner_claimed"
	    " SET lease_expires_ms =" RENEWED_LEASE DUE_LEASES, beat->id, now,
	    "renewing leases", err);
}

/* read_beat() and write_beat() in one go, under the lock. */
static int
touch(struct ledger *ledger, int64_t id, int64_t now, struct err *err)
{
	struct agent_beat beat;
	int rc = read_beat(ledger, id, now, &beat, err);

	return rc < 0 ? rc : write_beat(ledger, &beat, now, err);
}

/*
 * The caller named task (a command about it): when agent holds it with a
 * running lease, that is a sign of life of the work itself. The maximum
 * hold counts from now, and the lease runs a full lease from now.
 */
static int
touch_named(struct ledger *ledger, int64_t agent, int64_t task, int64_t now,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "UPDATE tasks SET claim_named_ms = ?2,"
	    " lease_expires_ms = max(lease_expires_ms, ?2 + lease_ms)"
	    " WHERE id = ?3 AND owner = ?1 AND state = 'claimed'"
	    " AND lease_expires_ms > ?2", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, agent);
	db_bind_int(st, 2, now);
	db_bind_int(st, 3, task);
	return db_step_done(ledger, st, "renewing a claim", err);
}

static int find_caller(struct ledger *ledger, const struct agent_claim *claim,
    int64_t *id, char **name, bool *ended, struct err *err);

static int derive_session_name(struct ledger *ledger, const char *kind,
    const char *session, char **name, struct err *err);

/*
 * The begin hook: register the caller if it is new (re-reading under the
 * lock first, in case a twin process just did), then beat, inside whatever
 * the command writes.
 */
static int
beat_in_transaction(struct ledger *ledger, void *arg, struct err *err)
{
	struct agent *agent = arg;
	int64_t now;
	int rc;

	/*
	 * Writes that compare times (a lease still running, an agent gone
	 * stale) hold the lock first and use the time it was taken, as every
	 * other writer's do: the time read before queueing for it may be
	 * older by the whole wait. A beat with nothing to write leaves the
	 * lock to the command's first statement.
	 */
	if ((agent->id == 0 || !agent->beat_read || agent->named_task != 0 ||
		agent->beat.lapsed || agent->beat.seen || agent->beat.due) &&
	    (rc = ledger_hold_lock(ledger, err)) < 0)
		return rc;
	now = clock_now_ms();

	if (agent->ended)
		return err_set(err, ERR_REFUSED,
		    "this session's daicho agent %s has ended, and an ended session "
		    "stays ended (start a new session, or name this one with "
		    "DAICHO_AGENT=NAME)", agent->name);
	if (agent->id == 0) {
		/*
		 * Decide again under the lock: a twin process of the same
		 * session may have registered it meanwhile, and another
		 * session may have taken the name this one derived (sessions
		 * begun in the same minute): its agent is never taken over.
		 */
		if (agent->session_id != NULL) {
			char *found = NULL;

			if ((rc = find_live_by_session(ledger, agent->session_id,
				 &agent->id, &found, err)) < 0)
				return rc;
			if (agent->id != 0) {
				free(agent->name);
				agent->name = found;
			} else if ((rc = derive_session_name(ledger, agent->kind,
					agent->session_id, &agent->name, err)) < 0) {
				return rc;
			}
		} else if ((rc = find_live_by_name(ledger, agent->name, &agent->id,
				err)) < 0) {
			return rc;
		}
		if (agent->id == 0) {
			if ((rc = register_agent(ledger, agent->name, agent->kind,
				 NULL, agent->session_id, agent->client_pid,
				 agent->session_id == NULL, now, &agent->id,
				 err)) < 0)
				return rc;
			/* A rollback takes the registration back with it. */
			ledger_forget_on_rollback(ledger, &agent->id);
		}
		ledger_set_caller(ledger, agent->id);
	}
	if (agent->named_task != 0 &&
	    (rc = touch_named(ledger, agent->id, agent->named_task, now, err)) < 0)
		return rc;
	if (!agent->beat_read &&
	    (rc = read_beat(ledger, agent->id, now, &agent->beat, err)) < 0)
		return rc;
	agent->beat_read = false;
	return write_beat(ledger, &agent->beat, now, err);
}

/*
 * The prepare hook: read what the beat decides on (read_beat()) before
 * the write lock is asked for, when the caller is known. A caller still
 * to be registered, or whose session ended, is read under the lock.
 */
static int
beat_prepare(struct ledger *ledger, void *arg, struct err *err)
{
	struct agent *agent = arg;
	int rc;

	agent->beat_read = false;
	if (agent->ended || agent->id == 0)
		return 0;
	/* A read with the caller's name serves if it is this fresh. */
	if (agent->beat_resolved && agent->beat.id == agent->id &&
	    clock_now_ms() - agent->beat.read_ms < AGENT_SEEN_RESOLUTION_MS) {
		agent->beat_resolved = false;
		agent->beat_read = true;
		return 0;
	}
	agent->beat_resolved = false;
	if ((rc = read_beat(ledger, agent->id, clock_now_ms(), &agent->beat,
		 err)) < 0)
		return rc;
	agent->beat_read = true;
	return 0;
}

static char *session_name(const char *kind, const char *session,
    size_t want);
static int session_name_taken(struct ledger *ledger, const char *name,
    const char *session, bool *taken, struct err *err);

/*
 * The name for a new agent of session: "<kind>-" and the first 8 letters
 * and digits of the session id, 16, 32 or 56 when an agent of another
 * session (or of none) has or had the shorter one. *name (freed first)
 * receives it.
 */
static int
derive_session_name(struct ledger *ledger, const char *kind,
    const char *session, char **name, struct err *err)
{
	static const size_t lengths[] = { 8, 16, 32, 56 };
	int rc;

	for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		bool taken = true;

		free(*name);
		*name = session_name(kind, session, lengths[i]);
		if ((rc = session_name_taken(ledger, *name, session, &taken,
			 err)) < 0)
			return rc;
		if (!taken)
			return 0;
	}
	return err_set(err, ERR_CONFLICT,
	    "every name derived from session %s is taken (set DAICHO_AGENT to "
	    "name this session)", session);
}

/* Derive "<kind>-<the first `want` letters or digits of session>". */
static char *
session_name(const char *kind, const char *session, size_t want)
{
	struct buf name = BUF_INIT;
	size_t limit = strlen(kind) + 1 + want;

	buf_addf(&name, "%s-", kind);
	for (const char *p = session; *p && name.len < limit; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9'))
			buf_addch(&name, *p);
	return buf_detach(&name, NULL);
}

/*
 * The agent an ended session had: its name into *name (id 0 when the
 * session never had one, or has a live one).
 */
static int
find_ended_session(struct ledger *ledger, const char *session, int64_t *id,
    char **name, struct err *err)
{
	return session_agent(ledger,
	    "SELECT id, name FROM agents a WHERE session_id = ?1"
	    " AND state = 'ended' AND NOT EXISTS (SELECT 1 FROM agents b"
	    "  WHERE b.session_id = ?1 AND b.state <> 'ended')"
	    " ORDER BY id DESC LIMIT 1", session, id, name, err);
}

/*
 * Whether a name derived from session is taken: some agent of another
 * session, or of none (a name given by DAICHO_AGENT, the human), has or
 * ever had it. An ended agent counts: a name is an identity that outlives
 * its session, and inheriting its claims must never happen by accident.
 */
static int
session_name_taken(struct ledger *ledger, const char *name,
    const char *session, bool *taken, struct err *err)
{
	struct db_stmt *st = NULL;
	int64_t yes = 0;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT EXISTS (SELECT 1 FROM agents INDEXED BY agents_name"
	    " WHERE name = ?1 AND (session_id IS NULL OR session_id <> ?2))",
	    &st, err)) < 0)
		return rc;
	db_bind_text(st, 1, name);
	db_bind_text(st, 2, session);
	rc = db_step_int(ledger, st, &yes, NULL, "looking up an agent", err);
	*taken = yes != 0;
	return rc;
}

/*
 * The live agent of client whose process is an ancestor of this process
 * (its shell tool runs our command): id and name, or id 0.
 */
static int
find_by_client_process(struct ledger *ledger, const char *client, int64_t *id,
    char **name, char **session, struct err *err)
{
	struct db_stmt *st = NULL;
	char host[256] = "";
	pid_t pid = proc_parent(getpid());
	int rc = 0;

	*id = 0;
	if ((rc = db_prepare(ledger,
	    "SELECT id, name, session_id FROM agents WHERE kind = ? AND pid = ?"
	    " AND host = ? AND state <> 'ended'"
	    " ORDER BY last_seen_ms DESC LIMIT 1", &st, err)) < 0)
		return rc;
	gethostname(host, sizeof(host) - 1);
	for (int depth = 0; pid > 1 && depth < 64;
	     pid = proc_parent(pid), depth++) {
		const char *bound;

		db_bind_text(st, 1, client);
		db_bind_int(st, 2, pid);
		db_bind_text_copy(st, 3, host);
		rc = db_step(st);
		if (rc == DB_ROW) {
			*id = db_column_int(st, 0);
			*name = xstrdup(db_column_text(st, 1));
			bound = db_column_text(st, 2);
			*session = bound ? xstrdup(bound) : NULL;
		}
		db_reset(st);
		if (rc != DB_ROW && rc != DB_DONE)
			return db_error(ledger, rc, err, "looking up a session");
		if (*id != 0)
			break;
	}
	return 0;
}

/*
 * Find the caller's agent without writing; id 0 when unknown, with *name
 * the name to register it under. *ended says the session's agent ended.
 */
static int
find_caller(struct ledger *ledger, const struct agent_claim *claim,
    int64_t *id, char **name, bool *ended, struct err *err)
{
	int rc;

	*id = 0;
	*ended = false;
	free(*name);
	*name = NULL;
	if (claim->name != NULL) {
		*name = xstrdup(claim->name);
		return find_live_by_name(ledger, *name, id, err);
	}
	if (claim->session_id == NULL) {
		*name = xstrdup(claim->human_name);
		return find_live_by_name(ledger, *name, id, err);
	}
	if ((rc = find_live_by_session(ledger, claim->session_id, id, name,
		 err)) < 0 || *id != 0)
		return rc;
	if (!claim->starting) {
		int64_t gone = 0;

		if ((rc = find_ended_session(ledger, claim->session_id, &gone, name,
			 err)) < 0)
			return rc;
		if (gone != 0) {
			*ended = true;
			return 0;
		}
	}
	return derive_session_name(ledger, claim->kind, claim->session_id, name,
	    err);
}

int
agent_resolve(struct ledger *ledger, const struct agent_claim *claim,
    struct agent *out, struct err *err)
{
	bool human = claim->name == NULL && claim->session_id == NULL;
	char *name = NULL, *session = NULL;
	int64_t id = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	/* A name is looked up with its check: one read. */
	if (claim->name != NULL &&
	    ((rc = agent_check_name(claim->name, err)) < 0 ||
		(rc = refuse_person_name(ledger, claim->name, &id, &out->beat,
		     err)) < 0))
		return rc;
	/* That read serves the first beat's. */
	out->beat_resolved = out->beat.id != 0;
	if (human && claim->client_shell != NULL) {
		/* An agent client's command is never the human's. */
		if ((rc = find_by_client_process(ledger, claim->client_shell, &id,
			 &name, &session, err)) < 0)
			return rc;
		if (id == 0)
			return err_set(err, ERR_REFUSED,
			    "this command runs in a %s session whose daicho agent is "
			    "unknown, and an agent's command never counts as the "
			    "human's (name the session: start the client with "
			    "DAICHO_AGENT=NAME, or install the hooks with 'daicho init "
			    "--%s' so that its session start registers it)",
			    claim->client_shell, claim->client_shell);
		out->session_id = session;
		human = false;
	} else if (claim->name != NULL) {
		name = xstrdup(claim->name);
	} else if ((rc = find_caller(ledger, claim, &id, &name, &out->ended,
			err)) < 0) {
		free(name);
		return rc;
	}
	out->id = id;
	out->name = name;
	out->kind = xstrdup(human ? "human" : claim->kind);
	out->client_pid = claim->client_pid;
	if (claim->name == NULL && claim->session_id != NULL)
		out->session_id = xstrdup(claim->session_id);
	ledger_set_caller(ledger, id);
	ledger_set_begin_hook(ledger, beat_in_transaction, out);
	ledger_set_prepare_hook(ledger, beat_prepare);
	return 0;
}

int
agent_heartbeat(struct ledger *ledger, struct agent *agent, struct err *err)
{
	int rc;

	if (agent->ended)
		return 0; /* an ended session stays ended */
	/*
	 * A caller who may only read the ledger leaves no trace: reading
	 * must not fail for a heartbeat (or a registration) it cannot write.
	 */
	if (ledger_read_only(ledger))
		return 0;
	/* ledger_begin() runs the hooks, which are the heartbeat. */
	ledger_set_begin_hook(ledger, beat_in_transaction, agent);
	ledger_set_prepare_hook(ledger, beat_prepare);
	if ((rc = ledger_begin(ledger, err)) < 0 ||
	    (rc = ledger_commit(ledger, err)) < 0) {
		if (!ledger_read_only(ledger))
			return rc;
		err_release(err);
		*err = (struct err)ERR_INIT;
		return 0;
	}
	return 0;
}

void
agent_release(struct agent *agent)
{
	free(agent->name);
	free(agent->kind);
	free(agent->session_id);
	memset(agent, 0, sizeof(*agent));
}

int
agent_start(struct ledger *ledger, const char *name, const char *kind,
    const char *role, int64_t pid, int64_t *id, struct err *err)
{
	int rc;

	if ((rc = agent_check_name(name, err)) < 0)
		return rc;
	if (strcmp(kind, "human") != 0 &&
	    (rc = refuse_person_name(ledger, name, NULL, NULL, err)) < 0)
		return rc;
	if ((rc = ledger_begin(ledger, err)) < 0)
		return rc;
	if ((rc = find_live_by_name(ledger, name, id, err)) < 0)
		goto fail;
	if (*id != 0) {
		struct db_stmt *st = NULL;

		if ((rc = db_prepare(ledger,
		    "UPDATE agents SET pid = ?2, role = ?3, state = 'active',"
		    " last_seen_ms = ?4 WHERE id = ?1", &st, err)) < 0)
			goto fail;
		db_bind_int(st, 1, *id);
		if (pid > 0)
			db_bind_int(st, 2, pid);
		if (role)
			db_bind_text(st, 3, role);
		db_bind_int(st, 4, clock_now_ms());
		if ((rc = db_step_done(ledger, st, "starting an agent",
			 err)) < 0)
			goto fail;
	} else if ((rc = register_agent(ledger, name, kind, role, NULL, pid, true,
			clock_now_ms(), id, err)) < 0) {
		goto fail;
	}
	return ledger_commit(ledger, err);
fail:
	ledger_rollback(ledger);
	return rc;
}

int
agent_end_if_idle(struct ledger *ledger, int64_t id, bool *ended,
    struct err *err)
{
	int64_t claims = 0;
	int rc;

	*ended = false;
	if ((rc = ledger_begin(ledger, err)) < 0)
		return rc;
	if ((rc = db_count(ledger,
	    "SELECT count(*) FROM tasks WHERE owner = ?1 AND state = 'claimed'",
	    id, &claims, "reading an agent's claims", err)) < 0 ||
	    (claims == 0 &&
		((rc = end_agent(ledger, id, clock_now_ms(), ended, err)) < 0 ||
		    (*ended && (rc = event_append(ledger, id, "agent-end", 0,
			 NULL, err)) < 0)))) {
		ledger_rollback(ledger);
		return rc;
	}
	return ledger_commit(ledger, err);
}

int
agent_beat(struct ledger *ledger, const int64_t *ids, const int64_t *tasks,
    size_t count, struct err *err)
{
	int64_t now = clock_now_ms();
	int rc;

	if (count == 0)
		return 0;
	if ((rc = ledger_begin(ledger, err)) < 0)
		return rc;
	for (size_t i = 0; i < count; i++) {
		if ((tasks && tasks[i] && ids[i] &&
			(rc = touch_named(ledger, ids[i], tasks[i], now, err)) < 0) ||
		    (rc = touch(ledger, ids[i], now, err)) < 0) {
			ledger_rollback(ledger);
			return rc;
		}
	}
	return ledger_commit(ledger, err);
}

int
agent_reap_dead(struct ledger *ledger, int64_t actor, int64_t *reopened,
    struct err *err)
{
	struct db_stmt *st;
	char host[256] = "";
	int64_t *dead = NULL;
	size_t dead_count = 0, dead_alloc = 0;
	int rc;

	*reopened = 0;
	gethostname(host, sizeof(host) - 1);
	if ((rc = ledger_begin(ledger, err)) < 0)
		return rc;
	if ((rc = db_prepare(ledger,
	    "SELECT id, pid, name FROM agents WHERE state <> 'ended'"
	    " AND pid IS NOT NULL AND host = ?", &st, err)) < 0)
		goto done;
	db_bind_text(st, 1, host);
	while ((rc = db_step(st)) == DB_ROW) {
		pid_t pid = (pid_t)db_column_int(st, 1);

		if (!proc_is_alive(pid)) {
			struct buf agent_env = BUF_INIT, ledger_env = BUF_INIT;
			const char *needles[3];

			xgrow((void **)&dead, &dead_alloc, dead_count + 1,
			    sizeof(*dead));
			dead[dead_count++] = db_column_int(st, 0);
			/*
			 * Its workers outlive it (each has a process group of
			 * its own): stop them before their tasks are taken,
			 * or a task would run twice at once.
			 */
			buf_addf(&agent_env, "DAICHO_AGENT=%s",
			    db_column_text(st, 2));
			buf_addf(&ledger_env, "DAICHO_LEDGER=%s", ledger_path(ledger));
			needles[0] = agent_env.buf;
			needles[1] = ledger_env.buf;
			needles[2] = NULL;
			proc_signal_by_environment(needles, SIGKILL);
			buf_release(&agent_env);
			buf_release(&ledger_env);
		}
	}
	db_reset(st);
	if (rc != DB_DONE) {
		rc = db_error(ledger, rc, err, "finding dead agents");
		goto done;
	}
	rc = 0;
	for (size_t i = 0; i < dead_count && rc == 0; i++) {
		int64_t expired = 0;
		bool ended;

		/* Their claims run out now: the process holding them is gone. */
		rc = expire_claims(ledger, dead[i], clock_now_ms(), &expired, err);
		*reopened += expired;
		if (rc == 0)
			rc = end_agent(ledger, dead[i], clock_now_ms(), &ended, err);
		if (rc == 0)
			rc = event_append(ledger, actor, "agent-end", 0,
			    json_pack("{s:I, s:s}", "agent", (json_int_t)dead[i],
				"reason", "its process is gone"), err);
	}
done:
	free(dead);
	if (rc < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	return ledger_commit(ledger, err);
}

/* The live holder of a name, as agent_register() weighs it. */
struct holder {
	int64_t id;
	char *session_id;
	char *kind;
	char *state;
	int64_t last_seen_ms;
	int64_t pid;
	bool same_host;
};

static void
holder_release(struct holder *h)
{
	free(h->session_id);
	free(h->kind);
	free(h->state);
	memset(h, 0, sizeof(*h));
}

/* Read the live holder of name into *h (h->id 0 when none). */
static int
read_holder(struct ledger *ledger, const char *name, struct holder *h,
    struct err *err)
{
	struct db_stmt *st = NULL;
	char host[256] = "";
	int rc;

	memset(h, 0, sizeof(*h));
	if ((rc = db_prepare(ledger,
	    "SELECT id, session_id, kind, state, last_seen_ms, pid, host"
	    " FROM agents WHERE name = ? AND state <> 'ended'", &st, err)) < 0)
		return rc;
	gethostname(host, sizeof(host) - 1);
	db_bind_text(st, 1, name);
	rc = db_step(st);
	if (rc == DB_ROW) {
		const char *session = db_column_text(st, 1);
		const char *where = db_column_text(st, 6);

		h->id = db_column_int(st, 0);
		h->session_id = session ? xstrdup(session) : NULL;
		h->kind = xstrdup(db_column_text(st, 2));
		h->state = xstrdup(db_column_text(st, 3));
		h->last_seen_ms = db_column_int(st, 4);
		h->pid = db_column_int(st, 5);
		h->same_host = where && strcmp(where, host) == 0;
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_error(ledger, rc, err, "looking up an agent");
	return 0;
}

/* Whether a live holder may be taken over: stale, or its process gone. */
static bool
holder_is_gone(const struct holder *h, int64_t now, int64_t stale_after_ms)
{
	if (strcmp(h->state, "stale") == 0)
		return true;
	if (h->pid > 0 && h->same_host && !proc_is_alive((pid_t)h->pid))
		return true;
	return strcmp(h->state, "active") == 0 &&
	    now - h->last_seen_ms >= stale_after_ms;
}

/*
 * Set an agent's name, role (when given), kind, session (when it has none)
 * and last seen.
 */
static int
update_agent(struct ledger *ledger, int64_t id, const char *name,
    const char *role, const char *kind, const char *session, int64_t now,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "UPDATE agents SET name = ?2, role = coalesce(?3, role), kind = ?4,"
	    " last_seen_ms = ?5, session_id = coalesce(session_id, ?6),"
	    " state = CASE state WHEN 'stale' THEN 'active' ELSE state END"
	    " WHERE id = ?1", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	db_bind_text(st, 2, name);
	if (role)
		db_bind_text(st, 3, role);
	db_bind_text(st, 4, kind);
	db_bind_int(st, 5, now);
	if (session)
		db_bind_text(st, 6, session);
	return db_step_done(ledger, st, "updating an agent", err);
}


/* The body of agent_register(), inside its transaction. */
static int
register_locked(struct ledger *ledger, const struct agent_start_request *req,
    struct agent_started *out, struct err *err)
{
	struct holder h;
	int64_t now = clock_now_ms(), session_agent = 0;
	bool ended;
	char *session_name = NULL;
	int rc;

	if ((rc = read_holder(ledger, req->name, &h, err)) < 0)
		return rc;
	if (h.id != 0 && ((req->session_id && h.session_id &&
	    strcmp(h.session_id, req->session_id) == 0) ||
	    (req->as_self && h.session_id == NULL))) {
		out->id = h.id;
		out->again = true;
		holder_release(&h);
		return update_agent(ledger, out->id, req->name, req->role,
		    req->kind, req->session_id, now, err);
	}
	if (h.id != 0) {
		struct buf age = BUF_INIT, stamp = BUF_INIT;

		if (!holder_is_gone(&h, now, req->stale_after_ms)) {
			clock_add_age(&age, now - h.last_seen_ms);
			clock_add_timestamp(&stamp, h.last_seen_ms);
			rc = err_set(err, ERR_CONFLICT,
			    "agent name '%s' is held by a live %s agent%s%s, seen %s "
			    "ago at %s (pick another name, or end it with 'daicho "
			    "agent end %s')", req->name, h.kind,
			    h.session_id ? " of session " : "",
			    h.session_id ? h.session_id : "", age.buf, stamp.buf,
			    req->name);
			buf_release(&age);
			buf_release(&stamp);
			holder_release(&h);
			return rc;
		}
		out->replaced = h.id;
		rc = end_agent(ledger, h.id, now, &ended, err);
		if (rc == 0)
			rc = event_append(ledger, h.id, "agent-takeover", 0,
			    json_pack("{s:s, s:I, s:s}", "name", req->name,
				"last_seen_ms", (json_int_t)h.last_seen_ms, "was",
				h.state), err);
		holder_release(&h);
		if (rc < 0)
			return rc;
	}
	if (req->session_id &&
	    (rc = find_live_by_session(ledger, req->session_id, &session_agent,
		 &session_name, err)) < 0)
		return rc;
	if (session_agent != 0) {
		out->id = session_agent;
		out->renamed = true;
		rc = update_agent(ledger, session_agent, req->name, req->role,
		    req->kind, NULL, now, err);
		if (rc == 0)
			rc = event_append(ledger, session_agent, "agent-rename", 0,
			    json_pack("{s:s, s:s, s:s?}", "from", session_name, "to",
				req->name, "role", req->role), err);
		if (rc == 0)
			rc = inherit_name(ledger, session_agent, req->name, NULL,
			    err);
		free(session_name);
		return rc;
	}
	return register_agent(ledger, req->name, req->kind, req->role,
	    req->session_id, 0, true, now, &out->id, err);
}

int
agent_register(struct ledger *ledger, const struct agent_start_request *request,
    struct agent_started *out, struct err *err)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = agent_check_name(request->name, err)) < 0)
		return rc;
	if (strcmp(request->kind, "human") != 0 &&
	    (rc = refuse_person_name(ledger, request->name, NULL, NULL,
		err)) < 0)
		return rc;
	if (request->role && *request->role == '\0')
		return err_set(err, ERR_USAGE, "empty --role");
	/* The caller is who is being registered: no implicit registration. */
	ledger_set_begin_hook(ledger, NULL, NULL);
	if ((rc = ledger_begin(ledger, err)) < 0)
		return rc;
	if ((rc = register_locked(ledger, request, out, err)) < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	ledger_set_caller(ledger, out->id);
	return ledger_commit(ledger, err);
}

int
agent_find_named(struct ledger *ledger, const char *name, int64_t *id,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT id FROM agents WHERE name = ?"
	    " ORDER BY state <> 'ended' DESC, last_seen_ms DESC, id DESC LIMIT 1",
	    &st, err)) < 0)
		return rc;
	db_bind_text(st, 1, name);
	return db_step_int(ledger, st, id, NULL, "looking up an agent", err);
}

int
agent_end_named(struct ledger *ledger, const char *name, int64_t *id,
    struct err *err)
{
	int64_t caller = 0;
	bool ended;
	int rc;

	if ((rc = ledger_begin_as(ledger, &caller, err)) < 0)
		return rc;
	*id = caller;
	if (name && (rc = find_live_by_name(ledger, name, id, err)) < 0)
		goto fail;
	if (*id == 0) {
		rc = err_set(err, ERR_NOT_FOUND, "no live agent named '%s' (see "
		    "'daicho agents')", name);
		goto fail;
	}
	if ((rc = end_agent(ledger, *id, clock_now_ms(), &ended, err)) < 0)
		goto fail;
	if ((rc = event_append(ledger, caller, "agent-end", 0,
		 json_pack("{s:I, s:s?}", "agent", (json_int_t)*id, "name", name),
		 err)) < 0)
		goto fail;
	return ledger_commit(ledger, err);
fail:
	ledger_rollback(ledger);
	return rc;
}

int
agent_list(struct ledger *ledger, bool all, int64_t stale_after_ms,
    json_t **out, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT a.id, a.name, a.role, a.kind,"
	    " CASE WHEN a.state = 'active' AND a.kind <> 'human'"
	    "  AND a.last_seen_ms <= ?1 - ?2 THEN 'stale' ELSE a.state END"
	    "  AS state,"
	    " a.session_id, a.pid, a.host, a.started_ms, a.last_seen_ms,"
	    " a.ended_ms,"
	    " (SELECT json_group_array(t.id) FROM tasks t"
	    "   INDEXED BY tasks_owner_claimed"
	    "   WHERE t.owner = a.id AND t.state = 'claimed') AS claims_json,"
	    " (SELECT count(*) FROM messages m"
	    "   WHERE m.recipient = a.id AND m.read_ms IS NULL) AS unread,"
	    " (SELECT json_group_array(json_object('id', w.id, 'what', w.what,"
	    "   'owner', o.name, 'started_ms', w.started_ms,"
	    "   'remind_ms', w.remind_ms, 'open_items',"
	    "   (SELECT count(*) FROM wait_items i LEFT JOIN tasks it"
	    "    ON it.id = i.task WHERE i.wait = w.id AND (i.task IS NULL OR"
	    "    it.state NOT IN ('verified','landed','cancelled',"
	    "    'failed')))))"
	    "   FROM waits w LEFT JOIN agents o ON o.id = w.owner"
	    "   WHERE w.agent = a.id AND w.ended_ms IS NULL) AS waits_json"
	    " FROM agents a WHERE ?3 <> 0 OR a.state <> 'ended'"
	    " ORDER BY a.name, a.id", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, clock_now_ms());
	db_bind_int(st, 2, stale_after_ms);
	db_bind_int(st, 3, all);
	*out = json_array();
	if ((rc = db_rows_json(ledger, st, *out, "listing agents", err)) < 0) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}

int
agent_mark_stale(struct ledger *ledger, int64_t actor, int64_t stale_after_ms,
    int64_t *marked, struct err *err)
{
	struct db_stmt *st;
	int64_t now = clock_now_ms();
	json_t *found = json_array();
	size_t i;
	json_t *row;
	int rc;

	*marked = 0;
	if ((rc = ledger_begin_as(ledger, &actor, err)) < 0)
		goto done;
	if ((rc = db_prepare(ledger,
	    "SELECT id, name, last_seen_ms FROM agents WHERE state = 'active'"
	    " AND kind <> 'human' AND last_seen_ms <= ?1 - ?2 AND id <> ?3",
	    &st, err)) < 0)
		goto fail;
	db_bind_int(st, 1, now);
	db_bind_int(st, 2, stale_after_ms);
	db_bind_int(st, 3, actor);
	if ((rc = db_rows_json(ledger, st, found, "finding stale agents",
		 err)) < 0)
		goto fail;
	json_array_foreach(found, i, row) {
		int64_t id = json_integer_value(json_object_get(row, "id"));

		if ((rc = db_write(ledger,
			 "UPDATE agents SET state = 'stale' WHERE id = ?1", id, 0,
			 NULL, "marking an agent stale", err)) < 0 ||
		    (rc = expire_claims(ledger, id, now, NULL, err)) < 0 ||
		    (rc = agent_ended_hook(ledger, id, err)) < 0)
			goto fail;
		if ((rc = event_append(ledger, actor, "agent-stale", 0,
			 json_pack("{s:I, s:O, s:O}", "agent", (json_int_t)id,
			     "name", json_object_get(row, "name"), "last_seen_ms",
			     json_object_get(row, "last_seen_ms")), err)) < 0)
			goto fail;
		(*marked)++;
	}
	rc = ledger_commit(ledger, err);
	goto done;
fail:
	ledger_rollback(ledger);
done:
	json_decref(found);
	return rc;
}

int
agent_held_claims(struct ledger *ledger, int64_t agent, json_t **out,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*out = json_array();
	if ((rc = db_prepare(ledger,
	    "SELECT id, title FROM tasks INDEXED BY tasks_owner_claimed"
	    " WHERE owner = ? AND state = 'claimed' ORDER BY id",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, agent);
	return db_rows_json(ledger, st, *out, "reading claims", err);
}
