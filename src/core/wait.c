/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/wait.h"

#include <stdlib.h>
#include <string.h>

#include "core/agent.h"
#include "core/db.h"
#include "core/event.h"
#include "core/msg.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/clock.h"

/* Whether task id exists. */
static int
task_exists(struct ledger *ledger, int64_t id, bool *exists, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;
	int64_t one;

	if ((rc = db_prepare(ledger, "SELECT 1 FROM tasks WHERE id = ?",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	return db_step_int(ledger, st, &one, exists, "looking up a task", err);
}

/* Set agent id waiting when it has an open wait, else back to active. */
static int
settle_state(struct ledger *ledger, int64_t id, struct err *err)
{
	return db_write(ledger,
	    "UPDATE agents SET state = CASE WHEN EXISTS (SELECT 1 FROM waits"
	    "  WHERE agent = ?1 AND ended_ms IS NULL) THEN 'waiting'"
	    "  ELSE 'active' END WHERE id = ?1 AND state <> 'ended'", id, 0, NULL,
	    "updating an agent", err);
}

/* The body of wait_begin(), inside its transaction; me is the caller. */
static int
begin_locked(struct ledger *ledger, int64_t me, const struct wait_request *req,
    int64_t *id, struct err *err)
{
	struct buf what = BUF_INIT;
	int64_t owner = 0;
	struct db_stmt *st;
	int rc = 0;

	if (req->owner) {
		if ((rc = agent_find_named(ledger, req->owner, &owner, err)) < 0)
			goto done;
		if (owner == 0) {
			rc = err_set(err, ERR_NOT_FOUND, "no agent named '%s' to own "
			    "the wait (see 'daicho agents --all')", req->owner);
			goto done;
		}
		if (owner == me) {
			rc = err_set(err, ERR_USAGE, "an agent cannot own its own wait "
			    "(--owner names who asked you to wait)");
			goto done;
		}
	}
	for (size_t i = 0; i < req->item_count; i++) {
		bool exists = true;

		if (req->items[i].task &&
		    (rc = task_exists(ledger, req->items[i].task, &exists, err)) < 0)
			goto done;
		if (!exists) {
			rc = err_set(err, ERR_NOT_FOUND, "no task #%lld to wait for",
			    (long long)req->items[i].task);
			goto done;
		}
		buf_addf(&what, "%s%s", i ? ", " : "", req->items[i].what);
	}
	if ((rc = db_prepare(ledger,
		 "INSERT INTO waits (agent, owner, what, remind_ms, started_ms)"
		 " VALUES (?, ?, ?, ?, ?)", &st, err)) < 0)
		goto done;
	db_bind_int(st, 1, me);
	if (owner)
		db_bind_int(st, 2, owner);
	db_bind_text(st, 3, what.buf);
	db_bind_int(st, 4, req->remind_ms);
	db_bind_int(st, 5, clock_now_ms());
	if ((rc = db_step_done(ledger, st, "recording a wait", err)) < 0)
		goto done;
	*id = db_last_insert_id(ledger);
	for (size_t i = 0; i < req->item_count; i++) {
		if ((rc = db_prepare(ledger,
			 "INSERT INTO wait_items (wait, seq, what, task)"
			 " VALUES (?, ?, ?, ?)", &st, err)) < 0)
			goto done;
		db_bind_int(st, 1, *id);
		db_bind_int(st, 2, (int64_t)i);
		db_bind_text(st, 3, req->items[i].what);
		if (req->items[i].task)
			db_bind_int(st, 4, req->items[i].task);
		if ((rc = db_step_done(ledger, st, "recording a wait", err)) < 0)
			goto done;
	}
	if ((rc = settle_state(ledger, me, err)) < 0)
		goto done;
	rc = event_append(ledger, me, "wait", 0,
	    json_pack("{s:I, s:s, s:s?, s:I}", "wait", (json_int_t)*id, "for",
		what.buf, "owner", req->owner, "remind_ms",
		(json_int_t)req->remind_ms), err);
done:
	buf_release(&what);
	return rc;
}

int
wait_begin(struct ledger *ledger, const struct wait_request *request,
    int64_t *id, struct err *err)
{
	int64_t me = 0;
	int rc;

	if (request->item_count == 0)
		return err_set(err, ERR_USAGE, "nothing to wait for (give --for)");
	if (request->remind_ms <= 0)
		return err_set(err, ERR_USAGE, "--remind must be positive");
	if ((rc = ledger_begin_as(ledger, &me, err)) < 0)
		return rc;
	if ((rc = begin_locked(ledger, me, request, id, err)) < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	return ledger_commit(ledger, err);
}

/*
 * Inside wait_resume()'s transaction: whether me is a person (*human),
 * and if so whose open wait id is when another agent's (*agent, with its
 * name and what it waits for; 0 when not).
 */
static int
wait_of_another(struct ledger *ledger, int64_t me, int64_t id, bool *human,
    int64_t *agent, char **agent_name, char **what, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*agent = 0;
	*human = false;
	if ((rc = db_prepare(ledger,
	    "SELECT w.agent, a.name, w.what, me.kind = 'human' FROM agents me"
	    " LEFT JOIN waits w ON w.id = ?2 AND w.ended_ms IS NULL"
	    "  AND w.agent <> me.id"
	    " LEFT JOIN agents a ON a.id = w.agent WHERE me.id = ?1",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, me);
	db_bind_int(st, 2, id);
	rc = db_step(st);
	if (rc == DB_ROW && db_column_int(st, 3) != 0) {
		*human = true;
		if (!db_column_is_null(st, 0)) {
			*agent = db_column_int(st, 0);
			*agent_name = xstrdup(db_column_text(st, 1));
			*what = xstrdup(db_column_text(st, 2));
		}
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_error(ledger, rc, err, "reading a wait");
	return 0;
}

int
wait_resume(struct ledger *ledger, int64_t id, int64_t *ended, struct err *err)
{
	struct db_stmt *st;
	int64_t me = 0, agent = 0;
	char *agent_name = NULL, *what = NULL;
	bool human = false;
	int rc;

	*ended = 0;
	if ((rc = ledger_begin_as(ledger, &me, err)) < 0)
		return rc;
	if (id && (rc = wait_of_another(ledger, me, id, &human, &agent,
		       &agent_name, &what, err)) < 0)
		goto fail;
	if ((rc = db_prepare(ledger,
	    "UPDATE waits SET ended_ms = ?3 WHERE agent = ?1 AND ended_ms IS NULL"
	    " AND (?2 = 0 OR id = ?2)", &st, err)) < 0)
		goto fail;
	db_bind_int(st, 1, agent ? agent : me);
	db_bind_int(st, 2, id);
	db_bind_int(st, 3, clock_now_ms());
	if ((rc = db_step_done(ledger, st, "ending a wait", err)) < 0)
		goto fail;
	*ended = db_changes(ledger);
	if (*ended == 0) {
		rc = id ? err_set(err, ERR_NOT_FOUND, "no open wait #%lld%s (see "
			      "'daicho agents')", (long long)id, human ? "" : " of yours")
			: err_set(err, ERR_NOT_FOUND, "you have no open wait");
		goto fail;
	}
	if ((rc = settle_state(ledger, agent ? agent : me, err)) < 0)
		goto fail;
	if (agent) {
		struct buf text = BUF_INIT;

		buf_addf(&text, "your wait #%lld for %s is over: a person ended "
		    "it; carry on", (long long)id, what);
		rc = msg_append(ledger, me, agent, "message", text.buf, err);
		buf_release(&text);
		if (rc < 0)
			goto fail;
	}
	if ((rc = event_append(ledger, me, "wait-end", 0,
		 json_pack("{s:o, s:I, s:s?}", "wait", id ? json_integer(id)
		     : json_null(), "ended", (json_int_t)*ended, "agent",
		     agent_name), err)) < 0)
		goto fail;
	free(agent_name);
	free(what);
	return ledger_commit(ledger, err);
fail:
	free(agent_name);
	free(what);
	ledger_rollback(ledger);
	return rc;
}

int
wait_list_open(struct ledger *ledger, json_t **out, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT w.id, a.name AS agent, a.state AS agent_state,"
	    " o.name AS owner, o.state AS owner_state, w.what, w.started_ms,"
	    " w.remind_ms, CASE WHEN w.started_ms + w.remind_ms <= ?1 THEN 'true'"
	    "  ELSE 'false' END AS overdue_json,"
	    " w.reminded_ms,"
	    " CASE w.needs_human WHEN 1 THEN 'true' ELSE 'false' END"
	    "  AS needs_human_json,"
	    " (SELECT count(*) FROM wait_items i LEFT JOIN tasks t ON t.id = i.task"
	    "   WHERE i.wait = w.id AND (i.task IS NULL OR t.state NOT IN"
	    "   ('verified','landed','cancelled','failed'))) AS open_items"
	    " FROM waits w JOIN agents a ON a.id = w.agent"
	    " LEFT JOIN agents o ON o.id = w.owner"
	    " WHERE w.ended_ms IS NULL ORDER BY w.started_ms, w.id",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, clock_now_ms());
	*out = json_array();
	if ((rc = db_rows_json(ledger, st, *out, "listing waits", err)) < 0) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}

/* Give the waits of ended owners to their role's live holder, or the human. */
static int
reassign_orphans(struct ledger *ledger, int64_t actor, int64_t now,
    int64_t stale_after_ms, int64_t *count, struct err *err)
{
	struct db_stmt *st = NULL;
	json_t *orphans = json_array(), *row;
	size_t i;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT w.id, w.agent, w.what, o.name AS owner, o.role,"
	    " (SELECT h.id FROM agents h WHERE h.role = o.role AND h.id <> w.agent"
	    "   AND h.state <> 'ended'"
	    "   AND (h.state = 'waiting' OR (h.state = 'active' AND"
	    "   h.last_seen_ms > ?1 - ?2))"
	    "   ORDER BY h.last_seen_ms DESC, h.id DESC LIMIT 1) AS heir,"
	    " a.name AS agent_name"
	    " FROM waits w JOIN agents o ON o.id = w.owner"
	    " JOIN agents a ON a.id = w.agent"
	    " WHERE w.ended_ms IS NULL AND w.needs_human = 0"
	    " AND o.state = 'ended'", &st, err)) < 0)
		goto done;
	db_bind_int(st, 1, now);
	db_bind_int(st, 2, stale_after_ms);
	if ((rc = db_rows_json(ledger, st, orphans, "finding orphaned waits",
		 err)) < 0)
		goto done;
	json_array_foreach(orphans, i, row) {
		int64_t wait = json_integer_value(json_object_get(row, "id"));
		json_t *heir = json_object_get(row, "heir");
		struct buf text = BUF_INIT;

		if ((rc = db_prepare(ledger,
		    "UPDATE waits SET owner = coalesce(?2, owner),"
		    " needs_human = CASE WHEN CAST(?2 AS BIGINT) IS NULL"
		    " THEN 1 ELSE 0 END WHERE id = ?1", &st, err)) < 0)
			break;
		db_bind_int(st, 1, wait);
		if (json_is_integer(heir))
			db_bind_int(st, 2, json_integer_value(heir));
		if ((rc = db_step_done(ledger, st, "handing over a wait",
			 err)) < 0)
			break;
		buf_addf(&text, "wait #%lld is yours now: %s is waiting for %s, "
		    "and its owner %s has ended (tell %s to resume when it may)",
		    (long long)wait,
		    json_string_value(json_object_get(row, "agent_name")),
		    json_string_value(json_object_get(row, "what")),
		    json_string_value(json_object_get(row, "owner")),
		    json_string_value(json_object_get(row, "agent_name")));
		if (json_is_integer(heir))
			rc = msg_append(ledger, 0, json_integer_value(heir),
			    "reminder", text.buf, err);
		buf_release(&text);
		if (rc == 0)
			rc = event_append(ledger, actor, json_is_integer(heir)
				? "wait-reassigned" : "wait-needs-human", 0,
			    json_pack("{s:I, s:O, s:O}", "wait", (json_int_t)wait,
				"from", json_object_get(row, "owner"), "to", heir),
			    err);
		if (rc < 0)
			break;
		(*count)++;
	}
done:
	json_decref(orphans);
	return rc;
}

/* Remind the owners of overdue waits, once each. */
static int
remind_overdue(struct ledger *ledger, int64_t actor, int64_t now,
    int64_t *count, struct err *err)
{
	struct db_stmt *st = NULL;
	json_t *overdue = json_array(), *row;
	size_t i;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT w.id, w.owner, w.what, w.started_ms, a.name AS agent_name,"
	    " o.state AS owner_state"
	    " FROM waits w JOIN agents a ON a.id = w.agent"
	    " LEFT JOIN agents o ON o.id = w.owner"
	    " WHERE w.ended_ms IS NULL AND w.reminded_ms IS NULL"
	    " AND w.started_ms + w.remind_ms <= ?1", &st, err)) < 0)
		goto done;
	db_bind_int(st, 1, now);
	if ((rc = db_rows_json(ledger, st, overdue, "finding overdue waits",
		 err)) < 0)
		goto done;
	json_array_foreach(overdue, i, row) {
		int64_t wait = json_integer_value(json_object_get(row, "id"));
		json_t *owner = json_object_get(row, "owner");
		const char *owner_state = json_string_value(json_object_get(row,
		    "owner_state"));
		bool live = json_is_integer(owner) && owner_state &&
		    strcmp(owner_state, "ended") != 0;
		struct buf text = BUF_INIT;

		if ((rc = db_prepare(ledger,
		    "UPDATE waits SET reminded_ms = ?2,"
		    " needs_human = CASE WHEN needs_human <> 0 OR ?3 = 0"
	    " THEN 1 ELSE 0 END WHERE id = ?1", &st, err)) < 0)
			break;
		db_bind_int(st, 1, wait);
		db_bind_int(st, 2, now);
		db_bind_int(st, 3, live);
		if ((rc = db_step_done(ledger, st, "reminding of a wait",
			 err)) < 0)
			break;
		buf_addf(&text, "wait #%lld is overdue: %s has waited ",
		    (long long)wait,
		    json_string_value(json_object_get(row, "agent_name")));
		clock_add_age(&text, now - json_integer_value(json_object_get(row,
		    "started_ms")));
		buf_addf(&text, " for %s, as you asked (answer it, or tell it to "
		    "resume)", json_string_value(json_object_get(row, "what")));
		if (live)
			rc = msg_append(ledger, 0, json_integer_value(owner),
			    "reminder", text.buf, err);
		buf_release(&text);
		if (rc == 0)
			rc = event_append(ledger, actor, "wait-overdue", 0,
			    json_pack("{s:I, s:O, s:b, s:b}", "wait",
				(json_int_t)wait, "owner", owner, "needs_human", !live,
				"persons", json_is_null(owner)), err);
		if (rc < 0)
			break;
		(*count)++;
	}
done:
	json_decref(overdue);
	return rc;
}

int
wait_escalate(struct ledger *ledger, int64_t actor, int64_t stale_after_ms,
    int64_t *reminded, struct err *err)
{
	int64_t now = clock_now_ms();
	int rc;

	*reminded = 0;
	if ((rc = ledger_begin_as(ledger, &actor, err)) < 0)
		return rc;
	if ((rc = reassign_orphans(ledger, actor, now, stale_after_ms, reminded,
		 err)) < 0 ||
	    (rc = remind_overdue(ledger, actor, now, reminded, err)) < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	return ledger_commit(ledger, err);
}
