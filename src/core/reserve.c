/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/reserve.h"

#include <string.h>

#include "core/db.h"
#include "core/event.h"
#include "core/task.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/glob.h"

/*
 * The live set, less what agent ?3 holds itself. ?1 now, ?2 stale after.
 * Kept in one statement so reserve, list and the hooks agree on it.
 */
#define LIVE_SET_SQL \
	"SELECT 'reserve' AS source, r.id, r.glob, r.task, a.name AS holder," \
	" a.last_seen_ms AS holder_seen_ms, r.created_ms, r.expires_ms" \
	" FROM reservations r JOIN agents a ON a.id = r.agent" \
	" LEFT JOIN tasks t ON t.id = r.task" \
	" WHERE r.released_ms IS NULL AND r.expires_ms > ?1" \
	" AND (a.state = 'waiting' OR (a.state = 'active' AND" \
	"  a.last_seen_ms > ?1 - ?2))" \
	" AND (t.id IS NULL OR t.state NOT IN ('verified','landed','cancelled'," \
	"  'failed'))" \
	" AND a.id <> ?3" \
	" UNION ALL " \
	"SELECT 'claim', NULL, g.glob, t.id, a.name, a.last_seen_ms," \
	" t.updated_ms, t.lease_expires_ms" \
	" FROM tasks t JOIN touches g ON g.task = t.id" \
	" JOIN agents a ON a.id = t.owner" \
	" WHERE t.has_touches <> 0 AND " TASK_LIVE_CLAIM_SQL("t", "a") \
	" AND a.id <> ?3"

/* Load the live set less agent's own into a new array. */
static int
load_live(struct ledger *ledger, int64_t agent, int64_t stale_after_ms,
    json_t **out, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*out = json_array();
	if ((rc = db_prepare(ledger, LIVE_SET_SQL " ORDER BY 7, 2",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, clock_now_ms());
	db_bind_int(st, 2, stale_after_ms);
	db_bind_int(st, 3, agent);
	return db_rows_json(ledger, st, *out, "reading reservations", err);
}

/* The ERR_CONFLICT for glob against the live reservation r. */
static int
conflict(const char *glob, const json_t *r, struct err *err)
{
	struct buf seen = BUF_INIT, what = BUF_INIT;
	int64_t now = clock_now_ms();
	int rc;

	clock_add_age(&seen, now - json_integer_value(json_object_get(r,
	    "holder_seen_ms")));
	buf_adds(&seen, " ago at ");
	clock_add_timestamp(&seen, json_integer_value(json_object_get(r,
	    "holder_seen_ms")));
	if (json_is_integer(json_object_get(r, "task")))
		buf_addf(&what, " for #%lld", (long long)json_integer_value(
		    json_object_get(r, "task")));
	rc = err_set(err, ERR_CONFLICT, "%s overlaps %s, %s by %s%s (last seen "
	    "%s; wait for it to be released, or ask %s)", glob,
	    json_string_value(json_object_get(r, "glob")),
	    strcmp(json_string_value(json_object_get(r, "source")), "claim") == 0
		? "touched by the claim" : "reserved",
	    json_string_value(json_object_get(r, "holder")), what.buf, seen.buf,
	    json_string_value(json_object_get(r, "holder")));
	buf_release(&seen);
	buf_release(&what);
	return rc;
}

/* The body of reserve_take(), inside its transaction. */
static int
take_locked(struct ledger *ledger, int64_t me, const struct reserve_request *req,
    struct err *err)
{
	json_t *live = NULL, *r;
	int64_t now = clock_now_ms();
	struct db_stmt *st;
	size_t i;
	int rc;

	if (req->task) {
		int64_t one;
		bool found;

		if ((rc = db_prepare(ledger, "SELECT 1 FROM tasks WHERE id = ?",
		    &st, err)) < 0)
			return rc;
		db_bind_int(st, 1, req->task);
		if ((rc = db_step_int(ledger, st, &one, &found,
			 "looking up a task", err)) < 0)
			return rc;
		if (!found)
			return err_set(err, ERR_NOT_FOUND, "no task #%lld (see 'daicho "
			    "ls')", (long long)req->task);
	}
	if ((rc = load_live(ledger, me, req->stale_after_ms, &live, err)) < 0)
		goto done;
	for (size_t g = 0; g < req->glob_count; g++)
		json_array_foreach(live, i, r)
			if (glob_overlap(req->globs[g],
				json_string_value(json_object_get(r, "glob")))) {
				rc = conflict(req->globs[g], r, err);
				goto done;
			}
	for (size_t g = 0; g < req->glob_count; g++) {
		/* Renew the caller's own live reservation of the glob, if any. */
		if ((rc = db_prepare(ledger,
		    "UPDATE reservations SET expires_ms = ?3, task = ?4"
		    " WHERE agent = ?1 AND glob = ?2 AND released_ms IS NULL",
		    &st, err)) < 0)
			goto done;
		db_bind_int(st, 1, me);
		db_bind_text(st, 2, req->globs[g]);
		db_bind_int(st, 3, now + req->ttl_ms);
		if (req->task)
			db_bind_int(st, 4, req->task);
		if ((rc = db_step_done(ledger, st, "renewing a reservation",
			 err)) < 0)
			goto done;
		if (db_changes(ledger) > 0)
			continue;
		if ((rc = db_prepare(ledger,
		    "INSERT INTO reservations (agent, glob, task, created_ms,"
		    " expires_ms) VALUES (?, ?, ?, ?, ?)", &st, err)) < 0)
			goto done;
		db_bind_int(st, 1, me);
		db_bind_text(st, 2, req->globs[g]);
		if (req->task)
			db_bind_int(st, 3, req->task);
		db_bind_int(st, 4, now);
		db_bind_int(st, 5, now + req->ttl_ms);
		if ((rc = db_step_done(ledger, st, "reserving", err)) < 0)
			goto done;
	}
	{
		json_t *globs = json_array();

		for (size_t g = 0; g < req->glob_count; g++)
			json_array_append_new(globs, json_string(req->globs[g]));
		rc = event_append(ledger, me, "reserve", req->task, json_pack(
		    "{s:o, s:I}", "globs", globs, "ttl_ms", (json_int_t)req->ttl_ms),
		    err);
	}
done:
	json_decref(live);
	return rc;
}

int
reserve_take(struct ledger *ledger, const struct reserve_request *request,
    struct err *err)
{
	struct buf why = BUF_INIT;
	int64_t me = 0;
	int rc;

	for (size_t g = 0; g < request->glob_count; g++)
		if (glob_check(request->globs[g], &why) < 0) {
			struct buf shown = BUF_INIT;

			buf_add_oneline(&shown, request->globs[g]);
			rc = err_set(err, ERR_USAGE, "invalid glob '%s' (%s)", shown.buf,
			    why.buf);
			buf_release(&shown);
			buf_release(&why);
			return rc;
		}
	if (request->ttl_ms <= 0)
		return err_set(err, ERR_USAGE, "--ttl must be positive");
	if ((rc = ledger_begin_as(ledger, &me, err)) < 0)
		return rc;
	if ((rc = take_locked(ledger, me, request, err)) < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	return ledger_commit(ledger, err);
}

int
reserve_drop(struct ledger *ledger, char *const *globs, size_t glob_count,
    bool all, int64_t *released, struct err *err)
{
	int64_t me = 0, now = clock_now_ms();
	struct db_stmt *st;
	int rc;

	*released = 0;
	if ((rc = ledger_begin_as(ledger, &me, err)) < 0)
		return rc;
	for (size_t g = 0; g < (all ? 1 : glob_count); g++) {
		if ((rc = db_prepare(ledger,
		    "UPDATE reservations SET released_ms = ?3 WHERE agent = ?1"
		    " AND released_ms IS NULL AND (CAST(?2 AS TEXT) IS NULL OR glob = ?2)",
		    &st, err)) < 0)
			goto fail;
		db_bind_int(st, 1, me);
		if (!all)
			db_bind_text(st, 2, globs[g]);
		db_bind_int(st, 3, now);
		if ((rc = db_step_done(ledger, st, "releasing a reservation",
			 err)) < 0)
			goto fail;
		if (!all && db_changes(ledger) == 0) {
			rc = err_set(err, ERR_NOT_FOUND, "you hold no reservation of "
			    "'%s' (see 'daicho reservations')", globs[g]);
			goto fail;
		}
		*released += db_changes(ledger);
	}
	if ((rc = event_append(ledger, me, "unreserve", 0,
		 json_pack("{s:I}", "released", (json_int_t)*released), err)) < 0)
		goto fail;
	return ledger_commit(ledger, err);
fail:
	ledger_rollback(ledger);
	return rc;
}

int
reserve_list(struct ledger *ledger, int64_t stale_after_ms, json_t **out,
    struct err *err)
{
	int rc = load_live(ledger, 0, stale_after_ms, out, err);

	if (rc < 0) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}

int
reserve_find_conflicts(struct ledger *ledger, int64_t agent,
    char *const *paths, size_t path_count, int64_t stale_after_ms,
    json_t **conflicts, struct err *err)
{
	json_t *live = NULL, *r;
	size_t i;
	int rc;

	*conflicts = json_array();
	if ((rc = load_live(ledger, agent, stale_after_ms, &live, err)) < 0)
		goto done;
	for (size_t p = 0; p < path_count; p++)
		json_array_foreach(live, i, r)
			if (glob_covers(json_string_value(json_object_get(r, "glob")),
				paths[p])) {
				json_t *hit = json_deep_copy(r);

				json_object_set_new(hit, "path", json_string(paths[p]));
				json_array_append_new(*conflicts, hit);
				break;
			}
done:
	json_decref(live);
	return rc;
}

int
reserve_release_agent(struct ledger *ledger, int64_t agent, struct err *err)
{
	return db_write(ledger,
	    "UPDATE reservations SET released_ms = ?2 WHERE agent = ?1"
	    " AND released_ms IS NULL", agent, clock_now_ms(), NULL,
	    "releasing reservations", err);
}
