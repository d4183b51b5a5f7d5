#include "core/event.h"

#include <stdlib.h>

#include "util/clock.h"

int
event_append(struct ledger *ledger, int64_t actor, const char *kind,
    int64_t task, json_t *detail, struct err *err)
{
	sqlite3_stmt *st = ledger_stmt(ledger,
	    "INSERT INTO events (at_ms, actor, kind, task, detail)"
	    " VALUES (?, ?, ?, ?, ?)", err);
	char *text = NULL;
	int rc;

	if (st == NULL) {
		json_decref(detail);
		return -(int)err->code;
	}
	if (ledger_event_via(ledger) != NULL) {
		if (detail == NULL)
			detail = json_object();
		json_object_set_new(detail, "via",
		    json_string(ledger_event_via(ledger)));
	}
	if (detail != NULL)
		text = json_dumps(detail, JSON_COMPACT | JSON_SORT_KEYS);
	sqlite3_bind_int64(st, 1, clock_now_ms());
	if (actor == 0)
		actor = ledger_caller(ledger);
	if (actor)
		sqlite3_bind_int64(st, 2, actor);
	sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
	if (task)
		sqlite3_bind_int64(st, 4, task);
	if (text)
		sqlite3_bind_text(st, 5, text, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	free(text);
	json_decref(detail);
	if (rc != SQLITE_DONE)
		return ledger_error(ledger, rc, err, "recording an event");
	return 0;
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
	    ") ORDER BY id";
	static const char all[] =
	    "SELECT * FROM ("
	    "  SELECT e.id, e.at_ms, a.name, e.kind, e.task, e.detail, t.title"
	    "  FROM events e LEFT JOIN agents a ON a.id = e.actor"
	    "  LEFT JOIN tasks t ON t.id = e.task"
	    "  WHERE ?1 = 0 AND e.id > ?2 AND e.at_ms >= ?3"
	    "  ORDER BY e.id DESC LIMIT ?4"
	    ") ORDER BY id";
	sqlite3_stmt *st = ledger_stmt(ledger, filter->task ? by_task : all, err);
	int rc, stop = 0;

	if (st == NULL)
		return -(int)err->code;
	sqlite3_bind_int64(st, 1, filter->task);
	sqlite3_bind_int64(st, 2, filter->after_id);
	sqlite3_bind_int64(st, 3, filter->since_ms);
	sqlite3_bind_int64(st, 4, filter->limit > 0 ? filter->limit : -1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct event event = {
			.id = sqlite3_column_int64(st, 0),
			.at_ms = sqlite3_column_int64(st, 1),
			.actor = (const char *)sqlite3_column_text(st, 2),
			.kind = (const char *)sqlite3_column_text(st, 3),
			.task = sqlite3_column_int64(st, 4),
			.title = (const char *)sqlite3_column_text(st, 6),
			.detail = (const char *)sqlite3_column_text(st, 5),
		};

		if ((stop = fn(&event, arg)) != 0)
			break;
	}
	sqlite3_reset(st);
	if (stop)
		return stop;
	if (rc != SQLITE_DONE)
		return ledger_error(ledger, rc, err, "reading events");
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
	sqlite3_stmt *st = ledger_stmt(ledger,
	    "SELECT count(*) FROM events WHERE id > ?1 AND kind = ?2 AND task IN"
	    " (SELECT value FROM json_each(?3))", err);
	int rc;

	if (st == NULL)
		return -(int)err->code;
	sqlite3_bind_int64(st, 1, after_id);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, ids_json, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	*count = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return ledger_error(ledger, rc, err, "counting events");
	return 0;
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
