/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/event.h"

#include <stdlib.h>
#include <string.h>

#include "core/db.h"
#include "util/clock.h"

/*
 * Whether detail's keys are in ascending byte order as inserted: then
 * json_dumps() without JSON_SORT_KEYS writes what it would with it, and
 * skips its sort (a copy of the keys, qsort, a lookup of each).
 */
static bool
keys_in_order(json_t *detail)
{
	const char *previous = NULL;
	void *iter;

	for (iter = json_object_iter(detail); iter != NULL;
	     iter = json_object_iter_next(detail, iter)) {
		const char *key = json_object_iter_key(iter);

		if (previous != NULL && strcmp(previous, key) >= 0)
			return false;
		previous = key;
	}
	return true;
}

int
event_append(struct ledger *ledger, int64_t actor, const char *kind,
    int64_t task, json_t *detail, struct err *err)
{
	struct db_stmt *st = NULL;
	char *text = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "INSERT INTO events (at_ms, actor, kind, task, detail, hash)"
	    " SELECT v.at_ms, v.actor, v.kind, v.task, v.detail, "
	    EVENT_HASH_SQL("v", "(SELECT hash FROM events ORDER BY id DESC"
		" LIMIT 1)")
	    " FROM (SELECT CAST(?1 AS BIGINT) AS at_ms, CAST(?2 AS BIGINT)"
	    "  AS actor, CAST(?3 AS TEXT) AS kind, CAST(?4 AS BIGINT) AS task,"
	    "  CAST(?5 AS TEXT) AS detail) AS v", &st, err)) < 0) {
		json_decref(detail);
		return rc;
	}
	if (ledger_event_via(ledger) != NULL) {
		if (detail == NULL)
			detail = json_object();
		json_object_set_new(detail, "via",
		    json_string(ledger_event_via(ledger)));
	}
	if (detail != NULL)
		text = json_dumps(detail, keys_in_order(detail) ? JSON_COMPACT :
		    JSON_COMPACT | JSON_SORT_KEYS);
	db_bind_int(st, 1, clock_now_ms());
	if (actor == 0)
		actor = ledger_caller(ledger);
	if (actor)
		db_bind_int(st, 2, actor);
	db_bind_text(st, 3, kind);
	if (task)
		db_bind_int(st, 4, task);
	if (text)
		db_bind_text_copy(st, 5, text);
	rc = db_step_later(ledger, st, "recording an event", err);
	free(text);
	json_decref(detail);
	return rc;
}

int
event_each(struct ledger *ledger, const struct event_filter *filter,
    int (*fn)(const struct event *event, void *arg), void *arg,
    struct err *err)
{
	/* Two statements, so that each can use its index. */
	static const char by_task[] =
	    "SELECT * FROM ("
	    "  SELECT e.id, e.at_ms, a.name, e.kind, e.task, e.detail, t.title"
	    "  FROM events e LEFT JOIN agents a ON a.id = e.actor"
	    "  LEFT JOIN tasks t ON t.id = e.task"
	    "  WHERE e.task = ?1 AND e.id > ?2 AND e.at_ms >= ?3"
	    "  ORDER BY e.id DESC LIMIT ?4"
	    ") AS page ORDER BY id";
	static const char all[] =
	    "SELECT * FROM ("
	    "  SELECT e.id, e.at_ms, a.name, e.kind, e.task, e.detail, t.title"
	    "  FROM events e LEFT JOIN agents a ON a.id = e.actor"
	    "  LEFT JOIN tasks t ON t.id = e.task"
	    "  WHERE ?1 = 0 AND e.id > ?2 AND e.at_ms >= ?3"
	    "  ORDER BY e.id DESC LIMIT ?4"
	    ") AS page ORDER BY id";
	struct db_stmt *st = NULL;
	int rc, stop = 0;

	if ((rc = db_prepare(ledger, filter->task ? by_task : all,
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, filter->task);
	db_bind_int(st, 2, filter->after_id);
	db_bind_int(st, 3, filter->since_ms);
	db_bind_int(st, 4, filter->limit > 0 ? filter->limit : INT64_MAX);
	while ((rc = db_step(st)) == DB_ROW) {
		struct event event = {
			.id = db_column_int(st, 0),
			.at_ms = db_column_int(st, 1),
			.actor = db_column_text(st, 2),
			.kind = db_column_text(st, 3),
			.task = db_column_int(st, 4),
			.title = db_column_text(st, 6),
			.detail = db_column_text(st, 5),
		};

		if ((stop = fn(&event, arg)) != 0)
			break;
	}
	db_reset(st);
	if (stop)
		return stop;
	if (rc != DB_DONE)
		return db_error(ledger, rc, err, "reading events");
	return 0;
}

int
event_last_id(struct ledger *ledger, int64_t *id, struct err *err)
{
	return ledger_query_int(ledger, "SELECT coalesce(max(id), 0) FROM events",
	    id, err);
}

int
event_count_among(struct ledger *ledger, const char *kind, int64_t after_id,
    const char *ids_json, int64_t *count, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT count(*) FROM events WHERE id > ?1 AND kind = ?2 AND task IN"
	    " (SELECT CAST(value AS BIGINT) FROM json_each(?3))",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, after_id);
	db_bind_text(st, 2, kind);
	db_bind_text(st, 3, ids_json);
	return db_step_int(ledger, st, count, NULL, "counting events", err);
}

int
event_record(struct ledger *ledger, int64_t actor, const char *kind,
    int64_t task, json_t *detail, struct err *err)
{
	int rc = ledger_begin(ledger, err);

	if (rc < 0) {
		json_decref(detail);
		return rc;
	}
	if ((rc = event_append(ledger, actor, kind, task, detail, err)) < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	return ledger_commit(ledger, err);
}
