/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/brief.h"

#include <string.h>

#include "core/agent.h"
#include "core/db.h"
#include "core/event.h"
#include "core/wait.h"
#include "util/clock.h"

/* The parameters every briefing query may use, by number. */
struct brief_params {
	int64_t now_ms;         /* ?1 */
	int64_t stale_after_ms; /* ?2 */
	int64_t from;           /* ?3 */
	int64_t limit;          /* ?4: how many events */
};

/*
 * Run the query sql (a literal) with the parameters it uses bound and add
 * its rows to the array doc[key] (created when missing). Returns 0 or the
 * mapped error.
 */
static int
add_rows(struct ledger *ledger, const char *sql, const struct brief_params *p,
    json_t *doc, const char *key, struct err *err)
{
	json_t *array = json_object_get(doc, key);
	struct db_stmt *st = NULL;
	int count, rc;

	if ((rc = db_prepare(ledger, sql, &st, err)) < 0)
		return rc;
	if (array == NULL) {
		array = json_array();
		json_object_set_new(doc, key, array);
	}
	count = db_bind_count(st);
	if (count >= 1)
		db_bind_int(st, 1, p->now_ms);
	if (count >= 2)
		db_bind_int(st, 2, p->stale_after_ms);
	if (count >= 3)
		db_bind_int(st, 3, p->from);
	if (count >= 4)
		db_bind_int(st, 4, p->limit);
	return db_rows_json(ledger, st, array, key, err);
}

/*
 * The landing queue and what landing sent back (core/land.h), oldest
 * first: {task, title, landing (queued, landing, waiting, sent back),
 * since_ms, why, commit}.
 */
static const char landing_sql[] =
    "SELECT t.id AS task, t.title, CASE WHEN t.land_waiting IS NOT NULL"
    " THEN 'waiting' WHEN t.land_base IS NOT NULL THEN 'landing'"
    " ELSE 'queued' END AS landing, t.land_queued_ms AS since_ms,"
    " t.land_waiting AS why, t.report_commit AS \"commit\""
    " FROM tasks t INDEXED BY tasks_land_queue"
    " WHERE t.state = 'verified' AND t.land_queued_ms IS NOT NULL"
    " AND ?1 IS NOT NULL"
    " UNION ALL "
    "SELECT t.id, t.title, 'sent back', t.updated_ms, t.land_note,"
    " t.report_commit FROM tasks t"
    " WHERE t.land_note IS NOT NULL AND t.state IN"
    " ('open','claimed','reported','blocked')"
    " ORDER BY 4, 1";

int
brief_landing(struct ledger *ledger, json_t **out, struct err *err)
{
	struct brief_params p = { clock_now_ms(), 0, 0, 0 };
	json_t *doc = json_object();
	int rc;

	*out = NULL;
	if ((rc = ledger_begin_read(ledger, err)) == 0) {
		rc = add_rows(ledger, landing_sql, &p, doc, "landing", err);
		ledger_rollback(ledger);
	}
	if (rc == 0)
		*out = json_incref(json_object_get(doc, "landing"));
	json_decref(doc);
	return rc;
}

/*
 * The newest limit events of the query sql (a literal, LIMIT ?4), oldest
 * first, in doc[key]. Returns 0 or the mapped error.
 */
static int
add_events(struct ledger *ledger, const char *sql, const struct brief_params *p,
    int limit, json_t *doc, const char *key, struct err *err)
{
	struct brief_params with_limit = *p;
	json_t *newest = json_object();
	json_t *array, *ordered = json_array();
	size_t n;
	int rc;

	with_limit.limit = limit;
	rc = add_rows(ledger, sql, &with_limit, newest, key, err);
	array = json_object_get(newest, key);
	n = array ? json_array_size(array) : 0;
	for (size_t i = n; i > 0; i--)
		json_array_append(ordered, json_array_get(array, i - 1));
	json_object_set_new(doc, key, ordered);
	json_decref(newest);
	return rc;
}

int
brief_status(struct ledger *ledger, const struct needs_options *options,
    int events, json_t **out, struct err *err)
{
	struct brief_params p = { clock_now_ms(), options->stale_after_ms, 0,
	    0 };
	json_t *doc = json_object(), *agents = NULL, *counts = json_object(),
	       *needs = json_array();
	static const char *const states[] = { "open", "claimed", "reported",
		"verified", "landed", "blocked", "cancelled", "failed" };
	struct db_stmt *st;
	int rc;

	json_object_set_new(doc, "now_ms", json_integer(p.now_ms));
	json_object_set_new(doc, "needs_you", needs);
	if ((rc = ledger_begin_read(ledger, err)) < 0)
		goto done;
	if ((rc = needs_collect(ledger, options, p.now_ms, needs, err)) < 0)
		goto finish;
	if ((rc = agent_list(ledger, false, p.stale_after_ms, &agents, err)) < 0)
		goto finish;
	json_object_set_new(doc, "agents", agents);
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		json_object_set_new(counts, states[i], json_integer(0));
	if ((rc = db_prepare(ledger,
	    "SELECT state, count(*) FROM tasks GROUP BY state",
	    &st, err)) < 0)
		goto finish;
	while ((rc = db_step(st)) == DB_ROW)
		json_object_set_new(counts, db_column_text(st, 0),
		    json_integer(db_column_int(st, 1)));
	db_reset(st);
	if (rc != DB_DONE) {
		rc = db_error(ledger, rc, err, "counting tasks");
		goto finish;
	}
	if ((rc = add_rows(ledger, landing_sql, &p, doc, "landing", err)) < 0)
		goto finish;
	rc = add_events(ledger,
	    "SELECT e.id, e.at_ms, a.name AS actor, e.kind, e.task, t.title,"
	    " e.detail AS detail_json FROM events e"
	    " LEFT JOIN agents a ON a.id = e.actor"
	    " LEFT JOIN tasks t ON t.id = e.task"
	    " WHERE ?1 IS NOT NULL ORDER BY e.id DESC LIMIT ?4", &p, events,
	    doc, "events", err);
finish:
	ledger_rollback(ledger);
done:
	json_object_set_new(doc, "tasks", counts);
	if (rc < 0) {
		json_decref(doc);
		doc = NULL;
	}
	*out = doc;
	return rc;
}

int
brief_handoff(struct ledger *ledger, int64_t from, int64_t stale_after_ms,
    json_t **out, struct err *err)
{
	struct brief_params p = { clock_now_ms(), stale_after_ms, from, 0 };
	json_t *doc = json_object(), *list = NULL;
	int rc;

	if (p.from == 0)
		p.from = ledger_caller(ledger);
	json_object_set_new(doc, "now_ms", json_integer(p.now_ms));
	if ((rc = ledger_begin_read(ledger, err)) < 0)
		goto done;
	if ((rc = add_rows(ledger,
		 "SELECT name AS \"from\", role FROM agents WHERE id = ?3",
		 &p, doc, "from", err)) < 0)
		goto finish;
	/* One agent, or none: an object, or null. */
	list = json_object_get(doc, "from");
	json_object_set(doc, "role", json_array_size(list)
	    ? json_object_get(json_array_get(list, 0), "role") : json_null());
	json_object_set(doc, "from", json_array_size(list)
	    ? json_object_get(json_array_get(list, 0), "from") : json_null());
	if ((rc = agent_list(ledger, false, stale_after_ms, &list, err)) < 0)
		goto finish;
	json_object_set_new(doc, "agents", list);
	if ((rc = add_rows(ledger,
		 "SELECT t.id AS task, t.title, a.name AS owner,"
		 " CASE WHEN a.state = 'active' AND a.kind <> 'human' AND"
		 " a.last_seen_ms <= ?1 - ?2 THEN 'stale' ELSE a.state END"
		 " AS owner_state,"
		 " t.lease_expires_ms FROM tasks t JOIN agents a ON a.id = t.owner"
		 " WHERE t.state = 'claimed' ORDER BY t.id", &p, doc, "claims",
		 err)) < 0)
		goto finish;
	if ((rc = wait_list_open(ledger, &list, err)) < 0)
		goto finish;
	json_object_set_new(doc, "waits", list);
	if ((rc = add_rows(ledger,
		 "SELECT m.id, s.name AS \"from\", m.recipient_name AS \"to\","
		 " m.addressed_to, m.kind, m.body AS text, m.sent_ms"
		 " FROM messages m LEFT JOIN agents s ON s.id = m.sender"
		 " JOIN agents f ON f.id = ?3"
		 " WHERE m.read_ms IS NULL AND (m.recipient = f.id"
		 "  OR m.addressed_to = 'role:' || f.role"
		 "  OR (m.queued = 1 AND m.recipient_name = f.name))"
		 " ORDER BY m.id", &p, doc, "unread", err)) < 0)
		goto finish;
	if ((rc = add_rows(ledger,
		 "SELECT t.id AS task, t.title, a.name AS owner,"
		 " t.report_commit AS \"commit\", t.report_note AS note,"
		 " t.updated_ms AS reported_ms"
		 " FROM tasks t LEFT JOIN agents a ON a.id = t.owner"
		 " WHERE t.state = 'reported' ORDER BY t.id", &p, doc,
		 "reported", err)) < 0 ||
	    (rc = add_rows(ledger, landing_sql, &p, doc, "landing", err)) < 0)
		goto finish;
	if ((rc = add_rows(ledger,
		 "SELECT t.id AS task, t.title, t.state, a.name AS owner,"
		 " v.summary, v.at_ms FROM tasks t"
		 " JOIN verdicts v ON v.id = (SELECT max(id) FROM verdicts"
		 "  WHERE task = t.id)"
		 " LEFT JOIN agents a ON a.id = t.owner"
		 " WHERE v.passed = 0 AND t.state IN ('open','claimed','failed')"
		 " ORDER BY t.id", &p, doc, "rejected", err)) < 0)
		goto finish;
	rc = add_events(ledger,
	    "SELECT e.id, e.at_ms, a.name AS actor, e.kind, e.task, t.title,"
	    " e.detail AS detail_json FROM events e"
	    " LEFT JOIN agents a ON a.id = e.actor"
	    " LEFT JOIN tasks t ON t.id = e.task"
	    " WHERE ?1 IS NOT NULL AND e.kind IN ('verified','rejected','fail',"
	    " 'landed','land-conflict','land-failed','cancel','block','handoff',"
	    " 'agent-takeover','wait-reassigned','wait-needs-human','approve',"
	    " 'deny','budget-spent')"
	    " ORDER BY e.id DESC LIMIT ?4", &p, 20, doc, "decisions", err);
finish:
	ledger_rollback(ledger);
done:
	if (rc < 0) {
		json_decref(doc);
		doc = NULL;
	}
	*out = doc;
	return rc;
}

int
brief_transfer(struct ledger *ledger, const char *from, const char *to,
    int64_t *moved, struct err *err)
{
	int64_t caller = 0, from_id = 0, to_id = 0;
	struct db_stmt *st;
	int rc;

	*moved = 0;
	if ((rc = ledger_begin_as(ledger, &caller, err)) < 0)
		return rc;
	from_id = caller;
	if (from && (rc = agent_find_named(ledger, from, &from_id, err)) < 0)
		goto fail;
	if (from_id == 0) {
		rc = err_set(err, ERR_NOT_FOUND, "no agent named '%s' (see 'daicho "
		    "agents --all')", from);
		goto fail;
	}
	if ((rc = db_prepare(ledger,
	    "SELECT id FROM agents WHERE name = ? AND state <> 'ended'",
	    &st, err)) < 0)
		goto fail;
	db_bind_text(st, 1, to);
	if ((rc = db_step_int(ledger, st, &to_id, NULL, "looking up an agent",
		 err)) < 0)
		goto fail;
	if (to_id == 0) {
		rc = err_set(err, ERR_NOT_FOUND, "no live agent named '%s' to hand "
		    "over to (it must have started: 'daicho agent start %s')", to, to);
		goto fail;
	}
	if (to_id == from_id) {
		rc = err_set(err, ERR_USAGE, "cannot hand over to the same agent");
		goto fail;
	}
	if ((rc = db_prepare(ledger,
	    "UPDATE waits SET owner = ?2, needs_human = 0, reminded_ms = NULL"
	    " WHERE owner = ?1 AND ended_ms IS NULL AND agent <> ?2",
	    &st, err)) < 0)
		goto fail;
	db_bind_int(st, 1, from_id);
	db_bind_int(st, 2, to_id);
	if ((rc = db_step_done(ledger, st, "handing over waits", err)) < 0)
		goto fail;
	*moved = db_changes(ledger);
	if ((rc = db_prepare(ledger,
	    "UPDATE agents SET role = (SELECT role FROM agents WHERE id = ?1)"
	    " WHERE id = ?2 AND (SELECT role FROM agents WHERE id = ?1)"
	    " IS NOT NULL", &st, err)) < 0)
		goto fail;
	db_bind_int(st, 1, from_id);
	db_bind_int(st, 2, to_id);
	if ((rc = db_step_done(ledger, st, "handing over a role", err)) < 0)
		goto fail;
	if ((rc = db_prepare(ledger,
	    "UPDATE agents SET role = NULL WHERE id = ?1", &st, err)) < 0)
		goto fail;
	db_bind_int(st, 1, from_id);
	if ((rc = db_step_done(ledger, st, "handing over a role", err)) < 0)
		goto fail;
	if ((rc = event_append(ledger, caller, "handoff", 0,
		 json_pack("{s:I, s:I, s:I, s:s?, s:s}", "from", (json_int_t)from_id,
		     "to", (json_int_t)to_id, "waits", (json_int_t)*moved,
		     "from_name", from, "to_name", to), err)) < 0)
		goto fail;
	return ledger_commit(ledger, err);
fail:
	ledger_rollback(ledger);
	return rc;
}
