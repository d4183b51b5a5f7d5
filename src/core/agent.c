#include "core/agent.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/event.h"
#include "util/alloc.h"
#include "util/clock.h"

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
	return 0;
bad:
	return err_set(err, ERR_USAGE,
	    "invalid agent name '%s' (use 1-64 letters, digits or . _ - @ +, "
	    "not starting with '-')", name);
}

/* Find the live agent called name; *id = 0 when none. */
static int
find_live_by_name(struct ledger *ledger, const char *name, int64_t *id,
    struct err *err)
{
	sqlite3_stmt *st = ledger_stmt(ledger,
	    "SELECT id FROM agents WHERE name = ? AND state <> 'ended'", err);
	int rc;

	if (st == NULL)
		return -(int)err->code;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	*id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ledger_error(ledger, rc, err, "looking up an agent");
	return 0;
}

/* Find the live agent bound to session; fills id and name, or id = 0. */
static int
find_live_by_session(struct ledger *ledger, const char *session, int64_t *id,
    char **name, struct err *err)
{
	sqlite3_stmt *st = ledger_stmt(ledger,
	    "SELECT id, name FROM agents WHERE session_id = ? AND state <> 'ended'"
	    " ORDER BY last_seen_ms DESC LIMIT 1", err);
	int rc;

	if (st == NULL)
		return -(int)err->code;
	sqlite3_bind_text(st, 1, session, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	*id = 0;
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*name = xstrdup((const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ledger_error(ledger, rc, err, "looking up a session");
	return 0;
}

static int
register_agent(struct ledger *ledger, const char *name, const char *kind,
    const char *session, int64_t now, int64_t *id, struct err *err)
{
	sqlite3_stmt *st = ledger_stmt(ledger,
	    "INSERT INTO agents (name, kind, session_id, pid, host, state,"
	    " started_ms, last_seen_ms) VALUES (?, ?, ?, ?, ?, 'active', ?, ?)",
	    err);
	char host[256] = "";
	int rc;

	if (st == NULL)
		return -(int)err->code;
	gethostname(host, sizeof(host) - 1);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	if (session)
		sqlite3_bind_text(st, 3, session, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, getppid());
	sqlite3_bind_text(st, 5, host, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, now);
	sqlite3_bind_int64(st, 7, now);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return ledger_error(ledger, rc, err, "registering an agent");
	*id = sqlite3_last_insert_rowid(ledger_db(ledger));
	return event_append(ledger, *id, "agent-register", 0,
	    json_pack("{s:s, s:s}", "name", name, "kind", kind), err);
}

/* Heartbeat: last seen now, stale → active, renew live leases. */
static int
touch(struct ledger *ledger, int64_t id, int64_t now, struct err *err)
{
	sqlite3_stmt *st = ledger_stmt(ledger,
	    "UPDATE agents SET last_seen_ms = ?2,"
	    " state = CASE state WHEN 'stale' THEN 'active' ELSE state END"
	    " WHERE id = ?1", err);
	int rc;

	if (st == NULL)
		return -(int)err->code;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, now);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return ledger_error(ledger, rc, err, "recording a heartbeat");
	/*
	 * Renew only leases still running (an expired claim is up for grabs)
	 * and past half their length, so an agent that beats often writes
	 * each claim's row at most twice per lease.
	 */
	st = ledger_stmt(ledger,
	    "UPDATE tasks SET lease_expires_ms = ?2 + lease_ms"
	    " WHERE owner = ?1 AND state = 'claimed' AND lease_expires_ms > ?2"
	    " AND lease_expires_ms - ?2 < lease_ms / 2", err);
	if (st == NULL)
		return -(int)err->code;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, now);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return ledger_error(ledger, rc, err, "renewing leases");
	return 0;
}

/* The begin hook: beat inside whatever the command writes. */
static int
beat_in_transaction(struct ledger *ledger, void *arg, struct err *err)
{
	struct agent *agent = arg;

	return touch(ledger, agent->id, clock_now_ms(), err);
}

/* Derive "<kind>-<first 8 letters or digits of session>". */
static char *
session_name(const char *kind, const char *session)
{
	struct buf name = BUF_INIT;
	size_t want = strlen(kind) + 9;

	buf_addf(&name, "%s-", kind);
	for (const char *p = session; *p && name.len < want; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9'))
			buf_addch(&name, *p);
	return buf_detach(&name, NULL);
}

/* Find the caller's live agent without writing; id 0 when unknown. */
static int
find_caller(struct ledger *ledger, const struct agent_claim *claim,
    int64_t *id, char **name, struct err *err)
{
	int rc;

	*id = 0;
	if (claim->name == NULL && claim->session_id != NULL) {
		if ((rc = find_live_by_session(ledger, claim->session_id, id, name,
			 err)) < 0 || *id != 0)
			return rc;
	}
	free(*name);
	if (claim->name != NULL)
		*name = xstrdup(claim->name);
	else if (claim->session_id != NULL)
		*name = session_name(claim->kind, claim->session_id);
	else
		*name = xstrdup(claim->human_name);
	return find_live_by_name(ledger, *name, id, err);
}

int
agent_resolve(struct ledger *ledger, const struct agent_claim *claim,
    struct agent *out, struct err *err)
{
	const char *kind = claim->name == NULL && claim->session_id == NULL
			       ? "human" : claim->kind;
	const char *session = claim->name == NULL ? claim->session_id : NULL;
	char *name = NULL;
	int64_t id = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (claim->name != NULL && (rc = agent_check_name(claim->name, err)) < 0)
		return rc;
	if ((rc = find_caller(ledger, claim, &id, &name, err)) < 0)
		goto fail;
	if (id == 0) {
		/* First use: register under the lock, re-reading first. */
		if ((rc = ledger_begin(ledger, err)) < 0)
			goto fail;
		if ((rc = find_caller(ledger, claim, &id, &name, err)) < 0 ||
		    (id == 0 && (rc = register_agent(ledger, name, kind, session,
				     clock_now_ms(), &id, err)) < 0) ||
		    (rc = touch(ledger, id, clock_now_ms(), err)) < 0) {
			ledger_rollback(ledger);
			goto fail;
		}
		if ((rc = ledger_commit(ledger, err)) < 0)
			goto fail;
	}
	out->id = id;
	out->name = name;
	ledger_set_begin_hook(ledger, beat_in_transaction, out);
	return 0;
fail:
	free(name);
	return rc;
}

int
agent_heartbeat(struct ledger *ledger, struct agent *agent, struct err *err)
{
	int rc;

	/* ledger_begin() runs the hook, which is the heartbeat. */
	ledger_set_begin_hook(ledger, beat_in_transaction, agent);
	if ((rc = ledger_begin(ledger, err)) < 0)
		return rc;
	return ledger_commit(ledger, err);
}

void
agent_release(struct agent *agent)
{
	free(agent->name);
	agent->name = NULL;
	agent->id = 0;
}
