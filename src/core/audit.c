/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The audit (core/audit.h): the events' hash chain checked in SQL, then the
 * events replayed task by task against the tasks table and its checks.
 */
#include <stdlib.h>
#include <string.h>

#include "core/audit.h"
#include "core/db.h"
#include "core/event.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/clock.h"

/* Append a finding of kind ("event" or "task") about id to findings. */
static void
found(json_t *findings, const char *kind, int64_t id, const char *why)
{
	json_array_append_new(findings, json_pack("{s:s, s:I, s:s}", "kind",
	    kind, kind, (json_int_t)id, "why", why));
}

/*
 * The chain: each event's hash against the one its columns and the hash
 * before it give. An event without a hash after the chain began was
 * written around daicho; one whose hash does not follow was changed, or
 * an event before it was removed or inserted.
 */
static int
audit_chain(struct ledger *ledger, json_t *findings,
    struct audit_stats *stats, struct err *err)
{
	struct db_stmt *st = NULL;
	bool chained = false;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT e.id, e.hash IS NULL, CASE WHEN e.hash = "
	    EVENT_HASH_SQL("e", "lag(e.hash) OVER (ORDER BY e.id)")
	    " THEN 1 ELSE 0 END FROM events e ORDER BY e.id", &st, err)) < 0)
		return rc;
	while ((rc = db_step(st)) == DB_ROW) {
		int64_t id = db_column_int(st, 0);
		struct buf why = BUF_INIT;

		stats->events++;
		if (db_column_int(st, 1)) {
			if (!chained) {
				stats->before_chain++;
				continue;
			}
			buf_addf(&why, "event #%lld has no hash, though the chain "
			    "began before it: it was written around daicho",
			    (long long)id);
		} else {
			chained = true;
			if (db_column_int(st, 2))
				continue;
			buf_addf(&why, "event #%lld does not follow from the one "
			    "before it: it was changed, or an event before it was "
			    "removed or inserted", (long long)id);
		}
		found(findings, "event", id, why.buf);
		buf_release(&why);
	}
	db_reset(st);
	return rc == DB_DONE ? 0 : db_error(ledger, rc, err, "reading events");
}

/*
 * The state an event of kind leaves its task in, to its "to" when it has
 * one; NULL when the kind does not change the state.
 */
static const char *
state_after(const char *kind, const char *to)
{
	static const struct {
		const char *kind, *state;
	} moves[] = {
		{ "add", "open" }, { "claim", "claimed" },
		{ "report", "reported" }, { "block", "blocked" },
		{ "cancel", "cancelled" }, { "fail", "failed" },
		{ "release", "open" }, { "requeue", "open" },
		{ "verified", "verified" }, { "reverified", "verified" },
		{ "reopened", "open" }, { "reopen", "open" },
		{ "landed", "landed" },
		/* These say where the task went ("to"). */
		{ "lease-expired", "open" }, { "rejected", NULL },
		{ "unblock", NULL }, { "land-conflict", NULL },
		{ "land-failed", NULL },
	};

	for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]); i++) {
		if (strcmp(moves[i].kind, kind) != 0)
			continue;
		if (to == NULL)
			return moves[i].state;
		return strcmp(to, "owner") == 0 ? "claimed" : to;
	}
	return NULL;
}

/* What the events say of one task. */
struct replayed {
	char *state;       /* the state its last move left it in; NULL: no add */
	json_t *checks;    /* its checks as the events set them, or NULL when
			      unknown (added before the chain began) */
};

/* Grow *tasks to hold index id. */
static void
replay_slot(struct replayed **tasks, size_t *alloc, int64_t id)
{
	if ((size_t)id < *alloc)
		return;
	size_t old = *alloc;

	xgrow((void **)tasks, alloc, (size_t)id + 1, sizeof(**tasks));
	memset(*tasks + old, 0, (*alloc - old) * sizeof(**tasks));
}

/*
 * Replay every event that moves a task or sets its checks, in order. An
 * event about a task id past every task's (a forged one) is a finding,
 * not a slot: the replay's memory stays bounded by the tasks table.
 */
static int
replay_events(struct ledger *ledger, struct replayed **tasks, size_t *alloc,
    json_t *findings, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT task, kind, CAST(json_extract(detail, '$.to') AS TEXT),"
	    " detail, hash IS NOT NULL, id,"
	    " (SELECT coalesce(max(t.id), 0) FROM tasks t)"
	    " FROM events WHERE task IS NOT NULL"
	    " AND kind IN ('add', 'claim', 'report', 'block', 'cancel', 'fail',"
	    "  'release', 'requeue', 'verified', 'reverified', 'reopened',"
	    "  'reopen', 'landed', 'lease-expired', 'rejected', 'unblock',"
	    "  'land-conflict', 'land-failed', 'edit') ORDER BY id",
	    &st, err)) < 0)
		return rc;
	while ((rc = db_step(st)) == DB_ROW) {
		int64_t id = db_column_int(st, 0);
		const char *kind = db_column_text(st, 1);
		const char *to = db_column_text(st, 2);
		const char *state = state_after(kind, to);
		struct replayed *t;

		if (id < 1)
			continue;
		if (id > db_column_int(st, 6)) {
			struct buf why = BUF_INIT;

			buf_addf(&why, "event #%lld is about task #%lld, which no "
			    "task row has", (long long)db_column_int(st, 5),
			    (long long)id);
			found(findings, "event", db_column_int(st, 5), why.buf);
			buf_release(&why);
			continue;
		}
		replay_slot(tasks, alloc, id);
		t = &(*tasks)[id];
		if (state != NULL) {
			free(t->state);
			t->state = xstrdup(state);
		}
		if (strcmp(kind, "add") == 0) {
			json_t *detail = db_column_is_null(st, 3) ? NULL
			    : json_loads(db_column_text(st, 3), 0, NULL);
			json_t *checks = json_object_get(detail, "done_when");

			json_decref(t->checks);
			/* An add from before the chain did not record them. */
			t->checks = !db_column_int(st, 4) ? NULL
			    : checks ? json_incref(checks) : json_array();
			json_decref(detail);
		} else if (strcmp(kind, "edit") == 0 && t->checks != NULL) {
			json_t *detail = json_loads(db_column_text(st, 3), 0, NULL);
			json_t *checks = json_object_get(json_object_get(detail,
			    "done_when"), "new");

			if (checks != NULL) {
				json_decref(t->checks);
				t->checks = json_incref(checks);
			}
			json_decref(detail);
		}
	}
	db_reset(st);
	return rc == DB_DONE ? 0 : db_error(ledger, rc, err, "reading events");
}

/* Each task's checks as the checks table has them, into a JSON object. */
static int
read_checks(struct ledger *ledger, json_t *by_task, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT task, spec FROM checks ORDER BY task, seq", &st, err)) < 0)
		return rc;
	while ((rc = db_step(st)) == DB_ROW) {
		char key[24];
		json_t *list;

		snprintf(key, sizeof(key), "%lld", (long long)db_column_int(st, 0));
		if ((list = json_object_get(by_task, key)) == NULL) {
			list = json_array();
			json_object_set_new(by_task, key, list);
		}
		json_array_append_new(list, json_string(db_column_text(st, 1)));
	}
	db_reset(st);
	return rc == DB_DONE ? 0 : db_error(ledger, rc, err, "reading checks");
}

/* The tasks table against what the events replayed say. */
static int
compare_tasks(struct ledger *ledger, struct replayed *tasks, size_t alloc,
    json_t *checks, json_t *findings, struct audit_stats *stats,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT id, state FROM tasks ORDER BY id", &st, err)) < 0)
		return rc;
	while ((rc = db_step(st)) == DB_ROW) {
		int64_t id = db_column_int(st, 0);
		const char *state = db_column_text(st, 1);
		struct replayed *t = (size_t)id < alloc ? &tasks[id] : NULL;
		struct buf why = BUF_INIT;
		char key[24];
		json_t *have;

		stats->tasks++;
		if (t == NULL || t->state == NULL) {
			buf_addf(&why, "task #%lld: no event added it", (long long)id);
			found(findings, "task", id, why.buf);
			buf_release(&why);
			continue;
		}
		if (strcmp(t->state, state) != 0) {
			buf_addf(&why, "task #%lld is %s, but its events leave it %s",
			    (long long)id, state, t->state);
			found(findings, "task", id, why.buf);
			buf_reset(&why);
		}
		snprintf(key, sizeof(key), "%lld", (long long)id);
		have = json_object_get(checks, key);
		if (t->checks != NULL && (have ? !json_equal(have, t->checks)
			: json_array_size(t->checks) != 0)) {
			buf_addf(&why, "task #%lld: its checks are not the ones its "
			    "events set", (long long)id);
			found(findings, "task", id, why.buf);
		}
		buf_release(&why);
	}
	db_reset(st);
	return rc == DB_DONE ? 0 : db_error(ledger, rc, err, "reading tasks");
}

int
audit_run(struct ledger *ledger, json_t *findings,
    struct audit_stats *stats, struct err *err)
{
	struct replayed *tasks = NULL;
	size_t alloc = 0;
	json_t *checks = json_object();
	int rc;

	memset(stats, 0, sizeof(*stats));
	if ((rc = ledger_begin_read(ledger, err)) < 0)
		goto out;
	if ((rc = audit_chain(ledger, findings, stats, err)) == 0 &&
	    (rc = replay_events(ledger, &tasks, &alloc, findings, err)) == 0 &&
	    (rc = read_checks(ledger, checks, err)) == 0)
		rc = compare_tasks(ledger, tasks, alloc, checks, findings, stats,
		    err);
	ledger_rollback(ledger);
out:
	for (size_t i = 0; i < alloc; i++) {
		free(tasks[i].state);
		json_decref(tasks[i].checks);
	}
	free(tasks);
	json_decref(checks);
	return rc;
}

/* At most this many findings are kept whole with the result. */
#define AUDIT_KEPT 10

int
audit_store(struct ledger *ledger, const json_t *findings, struct err *err)
{
	json_t *kept = json_array();
	struct db_stmt *st;
	char *text;
	int rc;

	for (size_t i = 0; i < json_array_size(findings) && i < AUDIT_KEPT; i++)
		json_array_append(kept, json_array_get(findings, i));
	text = json_dumps(kept, JSON_COMPACT);
	json_decref(kept);
	if ((rc = db_prepare(ledger,
	    "INSERT INTO audits (id, at_ms, findings, detail)"
	    " VALUES (1, ?1, ?2, ?3) ON CONFLICT (id) DO UPDATE SET"
	    " at_ms = excluded.at_ms, findings = excluded.findings,"
	    " detail = excluded.detail", &st, err)) < 0) {
		free(text);
		return rc;
	}
	db_bind_int(st, 1, clock_now_ms());
	db_bind_int(st, 2, (int64_t)json_array_size(findings));
	db_bind_text(st, 3, text);
	rc = db_step_done(ledger, st, "recording an audit", err);
	free(text);
	return rc;
}

int
audit_record(struct ledger *ledger, const json_t *findings, struct err *err)
{
	int rc;

	if ((rc = ledger_begin(ledger, err)) < 0)
		return rc;
	if ((rc = audit_store(ledger, findings, err)) < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	return ledger_commit(ledger, err);
}

int
audit_due(struct ledger *ledger, int64_t every_ms, bool *due,
    struct err *err)
{
	struct db_stmt *st;
	int64_t last = 0;
	bool any = false;
	int rc;

	*due = false;
	if ((rc = ledger_begin_read(ledger, err)) < 0)
		return rc;
	if ((rc = db_prepare(ledger, "SELECT at_ms FROM audits WHERE id = 1",
	    &st, err)) < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	rc = db_step_int(ledger, st, &last, &any, "reading the last audit", err);
	ledger_rollback(ledger);
	if (rc == 0)
		*due = !any || clock_now_ms() - last >= every_ms;
	return rc;
}
