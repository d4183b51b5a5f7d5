/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Tasks (core/task.h): reading and listing them, counting them, the state
 * table, and what follows a task being done. Adding them is task_add.c.
 */
#include "core/task.h"

#include <stdlib.h>
#include <string.h>

#include "core/db.h"
#include "core/task_internal.h"
#include "util/alloc.h"
#include "util/clock.h"

static const char *const task_states[] = {
	"open", "claimed", "reported", "verified", "landed", "blocked",
	"cancelled", "failed",
};

bool
task_state_valid(const char *state)
{
	for (size_t i = 0; i < sizeof(task_states) / sizeof(*task_states); i++)
		if (strcmp(state, task_states[i]) == 0)
			return true;
	return false;
}

/*
 * The lifecycle: every move of a task from one state to another that a
 * write of tasks.state makes, and the writers that make it. Nothing else
 * changes a task's state (an added task starts open; an import copies
 * rows whole).
 */
static const struct task_transition {
	const char *from, *to;
} task_transitions[] = {
	{ "open", "claimed" },	    /* claim (take) */
	{ "open", "cancelled" },    /* cancel */
	{ "claimed", "claimed" },   /* claim of a lapsed lease: taken over */
	{ "claimed", "reported" },  /* report */
	{ "claimed", "blocked" },   /* block */
	{ "claimed", "open" },	    /* release, requeue, lease expiry,
				       release --force */
	{ "claimed", "failed" },    /* lease expiry or requeue, attempts
				       spent */
	{ "claimed", "cancelled" }, /* cancel */
	{ "blocked", "claimed" },   /* unblock, to a live holder */
	{ "blocked", "open" },	    /* unblock, release, release --force */
	{ "blocked", "cancelled" }, /* cancel */
	{ "reported", "verified" }, /* verdict passed */
	{ "reported", "claimed" },  /* rejected, back to a live holder */
	{ "reported", "open" },	    /* rejected, release --force */
	{ "reported", "blocked" },  /* vacuous or unscoped: for a person */
	{ "reported", "failed" },   /* rejected, attempts spent */
	{ "reported", "cancelled" }, /* cancel */
	{ "verified", "landed" },   /* landed */
	{ "verified", "open" },	    /* sent back from landing, re-verified
				       and failing, reopen */
	{ "verified", "failed" },   /* sent back, landing tries spent */
	{ "landed", "open" },	    /* reopen, by a person */
	{ "failed", "open" },	    /* reopen */
	{ "failed", "cancelled" },  /* cancel */
	{ "cancelled", "open" },    /* reopen */
};

bool
task_transition_legal(const char *from, const char *to)
{
	for (size_t i = 0;
	     i < sizeof(task_transitions) / sizeof(*task_transitions); i++)
		if (strcmp(from, task_transitions[i].from) == 0 &&
		    strcmp(to, task_transitions[i].to) == 0)
			return true;
	return false;
}

int
task_parse_id(const char *text, int64_t *id, struct err *err)
{
	const char *p = text;
	int64_t n = 0;

	if (*p == '#' || *p == 'T' || *p == 't')
		p++;
	if (*p < '0' || *p > '9')
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++) {
		int digit = *p - '0';

		if (n > (INT64_MAX - digit) / 10)
			goto bad;
		n = n * 10 + digit;
	}
	if (*p != '\0' || n == 0)
		goto bad;
	*id = n;
	return 0;
bad:
	return err_set(err, ERR_USAGE,
	    "'%s' is not a task id (write 12, #12 or T12)", text);
}

int
task_check_spec(const char *spec, struct err *err)
{
	if (strcmp(spec, "saved") == 0 || strcmp(spec, "commit") == 0)
		return 0;
	if (strncmp(spec, "cmd:", 4) == 0) {
		if (spec[4] == '\0')
			return err_set(err, ERR_USAGE,
			    "empty command in done-when 'cmd:' (write cmd:SHELL)");
		return 0;
	}
	if (strncmp(spec, "file:", 5) == 0) {
		const char *path = spec + 5, *seg = path;

		if (*path == '\0')
			return err_set(err, ERR_USAGE,
			    "empty path in done-when 'file:' (write file:PATH)");
		if (*path == '/')
			return err_set(err, ERR_USAGE,
			    "done-when '%s' is an absolute path (paths are relative "
			    "to the repository root)", spec);
		for (;;) {
			const char *end = strchr(seg, '/');
			size_t len = end ? (size_t)(end - seg) : strlen(seg);

			if (len == 2 && seg[0] == '.' && seg[1] == '.')
				return err_set(err, ERR_USAGE,
				    "done-when '%s' leaves the repository ('..' is "
				    "not allowed)", spec);
			if (end == NULL)
				break;
			seg = end + 1;
		}
		return 0;
	}
	return err_set(err, ERR_USAGE,
	    "unknown done-when check '%s' (use file:PATH, cmd:SHELL, saved or "
	    "commit)", spec);
}

void
task_spec_release(struct task_spec *spec)
{
	strlist_release(&spec->after);
	strlist_release(&spec->touches);
	strlist_release(&spec->protects);
	strlist_release(&spec->checks);
	strlist_release(&spec->labels);
}

void
task_free_fields(struct task *task)
{
	free(task->title);
	free(task->state);
	free(task->owner);
	free(task->report_commit);
	free(task->report_note);
	free(task->block_reason);
	free(task->claim_base);
	free(task->land_note);
	free(task->land_waiting);
	free(task->landed_commit);
	free(task->landed_trunk);
	free(task->check_needs);
	strlist_release(&task->labels);
	strlist_release(&task->touches);
	strlist_release(&task->protects);
	strlist_release(&task->checks);
	free(task->after);
	memset(task, 0, sizeof(*task));
}

static char *
column_strdup(struct db_stmt *st, int col)
{
	const char *text = db_column_text(st, col);

	return text ? xstrdup(text) : NULL;
}

void
task_read_row(struct db_stmt *st, struct task *out)
{
	memset(out, 0, sizeof(*out));
	out->id = db_column_int(st, 0);
	out->title = column_strdup(st, 1);
	out->state = column_strdup(st, 2);
	out->priority = db_column_int(st, 3);
	out->parent = db_column_int(st, 4);
	out->owner_id = db_column_int(st, 5);
	out->owner = column_strdup(st, 6);
	out->lease_expires_ms = db_column_int(st, 7);
	out->attempts = db_column_int(st, 8);
	out->max_attempts = db_column_int(st, 9);
	out->unmet_deps = db_column_int(st, 10);
	out->report_commit = column_strdup(st, 11);
	out->report_note = column_strdup(st, 12);
	out->block_reason = column_strdup(st, 13);
	out->created_ms = db_column_int(st, 14);
	out->updated_ms = db_column_int(st, 15);
	out->body_bytes = db_column_int(st, 16);
	out->saves = db_column_int(st, 17);
	out->result_bytes = db_column_is_null(st, 18)
				? -1 : db_column_int(st, 18);
	out->check_timeout_ms = db_column_int(st, 19);
	out->checks_version = db_column_int(st, 20);
	out->max_hold_ms = db_column_int(st, 21);
	out->claim_named_ms = db_column_int(st, 22);
	out->claim_base = column_strdup(st, 23);
	out->land_queued_ms = db_column_int(st, 24);
	out->land_tries = db_column_int(st, 25);
	out->land_note = column_strdup(st, 26);
	out->land_waiting = column_strdup(st, 27);
	out->landed_commit = column_strdup(st, 28);
	out->landed_trunk = column_strdup(st, 29);
	out->landed_ms = db_column_int(st, 30);
	out->no_baseline = db_column_int(st, 31) != 0;
	out->check_needs = column_strdup(st, 32);
}

int
task_load_strings(struct ledger *ledger, const char *sql, int64_t id,
    struct strlist *list, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger, sql, &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	while ((rc = db_step(st)) == DB_ROW)
		strlist_add(list, db_column_text(st, 0));
	db_reset(st);
	if (rc != DB_DONE)
		return db_error(ledger, rc, err, "reading a task");
	return 0;
}

int
task_load_edges(struct ledger *ledger, struct task *task, struct err *err)
{
	struct strlist after = STRLIST_INIT;
	int rc;

	if ((rc = task_load_strings(ledger,
		 "SELECT label FROM labels WHERE task = ? ORDER BY label", task->id,
		 &task->labels, err)) < 0 ||
	    (rc = task_load_strings(ledger,
		 "SELECT glob FROM touches WHERE task = ? ORDER BY glob", task->id,
		 &task->touches, err)) < 0 ||
	    (rc = task_load_strings(ledger,
		 "SELECT glob FROM protects WHERE task = ? ORDER BY glob", task->id,
		 &task->protects, err)) < 0 ||
	    (rc = task_load_strings(ledger,
		 "SELECT spec FROM checks WHERE task = ? ORDER BY seq", task->id,
		 &task->checks, err)) < 0 ||
	    (rc = task_load_strings(ledger,
		 "SELECT after FROM deps WHERE task = ? ORDER BY after", task->id,
		 &after, err)) < 0)
		goto done;
	task->after = xcalloc(after.count ? after.count : 1, sizeof(int64_t));
	task->after_count = after.count;
	for (size_t i = 0; i < after.count; i++)
		task->after[i] = strtoll(after.items[i], NULL, 10);
done:
	strlist_release(&after);
	return rc;
}

int
task_waits_on(struct ledger *ledger, int64_t id, struct strlist *ids,
    struct err *err)
{
	return task_load_strings(ledger, "SELECT '#' || d.after FROM deps d"
	    " JOIN tasks a ON a.id = d.after WHERE d.task = ? AND NOT "
	    TASK_DONE_OF_SQL("a.") " ORDER BY d.after", id, ids, err);
}

int
task_dependents(struct ledger *ledger, int64_t id, struct strlist *out,
    struct err *err)
{
	return task_load_strings(ledger, "SELECT '#' || x.id || ' (' || x.state"
	    " || ')' FROM deps d JOIN tasks x ON x.id = d.task WHERE d.after = ?"
	    " ORDER BY x.id", id, out, err);
}

int
task_get(struct ledger *ledger, int64_t id, struct task *out, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = db_prepare(ledger,
	    "SELECT " TASK_COLUMNS " FROM tasks t"
	    " LEFT JOIN agents a ON a.id = t.owner WHERE t.id = ?",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	rc = db_step(st);
	if (rc == DB_ROW)
		task_read_row(st, out);
	db_reset(st);
	if ((rc = task_row_end(ledger, rc, id, err)) < 0)
		return rc;
	if ((rc = task_load_edges(ledger, out, err)) < 0)
		task_free_fields(out);
	return rc;
}

int
task_row_end(struct ledger *ledger, int rc, int64_t id, struct err *err)
{
	if (rc == DB_DONE)
		return err_set(err, ERR_NOT_FOUND,
		    "no task #%lld (see 'daicho ls')", (long long)id);
	if (rc != DB_ROW)
		return db_error(ledger, rc, err, "reading a task");
	return 0;
}

int
task_get_state(struct ledger *ledger, int64_t id, struct task_state *out,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = db_prepare(ledger,
	    "SELECT state, coalesce(owner, 0), attempts FROM tasks WHERE id = ?",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	rc = db_step(st);
	if (rc == DB_ROW) {
		snprintf(out->state, sizeof(out->state), "%s",
		    db_column_text(st, 0));
		out->owner_id = db_column_int(st, 1);
		out->attempts = db_column_int(st, 2);
	}
	db_reset(st);
	return task_row_end(ledger, rc, id, err);
}

struct each_ready {
	struct ledger *ledger;
	const struct task_filter *filter;
	int (*fn)(const struct task *task, void *arg);
	void *arg;
	int64_t seen;
	struct err *err;
};

static int
each_ready_one(int64_t id, bool open, void *arg)
{
	struct each_ready *ctx = arg;
	struct task task;
	int rc;

	(void)open;
	if ((rc = task_get(ctx->ledger, id, &task, ctx->err)) < 0)
		return rc;
	rc = ctx->fn(&task, ctx->arg);
	task_free_fields(&task);
	if (rc == 0 && ctx->filter->limit > 0 && ++ctx->seen >= ctx->filter->limit)
		return 1;
	return rc;
}

int
task_each(struct ledger *ledger, const struct task_filter *filter,
    int (*fn)(const struct task *task, void *arg), void *arg, struct err *err)
{
	struct buf sql = BUF_INIT;
	struct db_stmt *st = NULL;
	int rc, stop = 0, param = 0;

	if ((rc = ledger_begin_read(ledger, err)) < 0)
		return rc;
	if (filter->ready) {
		struct each_ready ctx = { ledger, filter, fn, arg, 0, err };

		rc = task_ready_each(ledger, filter->label, ledger_caller(ledger),
		    clock_now_ms(),
		    each_ready_one, &ctx, err);
		if (rc == 1)
			rc = 0;
		goto done;
	}
	/* Fixed fragments only; every value is bound. */
	buf_adds(&sql, "SELECT " TASK_COLUMNS
		       " FROM tasks t LEFT JOIN agents a ON a.id = t.owner"
		       " WHERE 1 = 1");
	if (filter->state)
		buf_addf(&sql, " AND t.state = ?%d", ++param);
	if (filter->owner)
		buf_addf(&sql, " AND t.owner = ?%d", ++param);
	if (filter->label)
		buf_addf(&sql, " AND EXISTS (SELECT 1 FROM labels l WHERE"
			       " l.task = t.id AND l.label = ?%d)", ++param);
	if (filter->owner_name)
		buf_addf(&sql, " AND a.name = ?%d", ++param);
	if (filter->text) {
		param++; /* one value, used twice */
		buf_addf(&sql, " AND (instr(lower(t.title), lower(?%d)) > 0"
			       " OR instr(lower(printf('%%s', t.body)), lower(?%d)) > 0)",
		    param, param);
	}
	if (filter->created_since_ms)
		buf_addf(&sql, " AND t.created_ms >= ?%d", ++param);
	if (filter->updated_since_ms)
		buf_addf(&sql, " AND t.updated_ms >= ?%d", ++param);
	buf_addf(&sql, " ORDER BY t.id LIMIT ?%d", ++param);
	if ((rc = db_prepare_once(ledger, sql.buf, &st, err)) < 0)
		goto done;
	param = 0;
	if (filter->state)
		db_bind_text(st, ++param, filter->state);
	if (filter->owner)
		db_bind_int(st, ++param, filter->owner);
	if (filter->label)
		db_bind_text(st, ++param, filter->label);
	if (filter->owner_name)
		db_bind_text(st, ++param, filter->owner_name);
	if (filter->text)
		db_bind_text(st, ++param, filter->text);
	if (filter->created_since_ms)
		db_bind_int(st, ++param, filter->created_since_ms);
	if (filter->updated_since_ms)
		db_bind_int(st, ++param, filter->updated_since_ms);
	db_bind_int(st, ++param, filter->limit > 0 ? filter->limit : INT64_MAX);
	while ((rc = db_step(st)) == DB_ROW) {
		struct task task;

		task_read_row(st, &task);
		if (filter->with_edges &&
		    (stop = task_load_edges(ledger, &task, err)) < 0) {
			task_free_fields(&task);
			break;
		}
		stop = fn(&task, arg);
		task_free_fields(&task);
		if (stop)
			break;
	}
	if (stop)
		rc = stop;
	else if (rc == DB_DONE)
		rc = 0;
	else
		rc = db_error(ledger, rc, err, "listing tasks");
done:
	db_finalize(st);
	buf_release(&sql);
	ledger_rollback(ledger);
	return rc;
}

int
task_count_by_state(struct ledger *ledger, const char *const *states,
    int64_t *counts, size_t count, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT count(*) FROM tasks WHERE state = ?", &st, err)) < 0)
		return rc;
	for (size_t i = 0; i < count && rc == 0; i++) {
		db_bind_text(st, 1, states[i]);
		rc = db_step_int(ledger, st, &counts[i], NULL, "counting tasks",
		    err);
	}
	return rc;
}

int
task_count_open(struct ledger *ledger, const char *label, int64_t *open,
    int64_t *ready, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT count(*), count(*) FILTER (WHERE unmet_deps = 0) FROM tasks"
	    " WHERE state = 'open'"
	    " AND (CAST(?1 AS TEXT) IS NULL OR id IN"
	    "  (SELECT task FROM labels WHERE label = ?1))", &st, err)) < 0)
		return rc;
	if (label)
		db_bind_text(st, 1, label);
	else
		db_bind_null(st, 1);
	rc = db_step(st);
	if (rc == DB_ROW) {
		*open = db_column_int(st, 0);
		*ready = db_column_int(st, 1);
	}
	db_reset(st);
	if (rc != DB_ROW)
		return db_error(ledger, rc, err, "counting tasks");
	return 0;
}

/*
 * Step st, a query of two integer columns, calling fn with them row by row
 * until fn returns non-zero. Resets st. Returns fn's non-zero answer, 0, or
 * the mapped error about what.
 */
static int
each_int_pair(struct ledger *ledger, struct db_stmt *st,
    int (*fn)(int64_t a, int64_t b, void *arg), void *arg, const char *what,
    struct err *err)
{
	int rc, stop = 0;

	while ((rc = db_step(st)) == DB_ROW)
		if ((stop = fn(db_column_int(st, 0),
			 db_column_int(st, 1), arg)) != 0)
			break;
	db_reset(st);
	if (stop)
		return stop;
	if (rc != DB_DONE)
		return db_error(ledger, rc, err, what);
	return 0;
}

int
task_each_edge(struct ledger *ledger,
    int (*fn)(int64_t task, int64_t after, void *arg), void *arg,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT task, after FROM deps ORDER BY task, after", &st, err)) < 0)
		return rc;
	return each_int_pair(ledger, st, fn, arg, "reading dependencies", err);
}

int
task_count_among(struct ledger *ledger, const char *ids_json,
    const char *state, int64_t *count, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT count(*) FROM tasks WHERE id IN (SELECT CAST(value AS BIGINT) FROM"
	    " json_each(?1)) AND (CAST(?2 AS TEXT) IS NULL OR state = ?2"
	    " OR (?2 = 'queued' AND state = 'verified'"
	    "  AND land_queued_ms IS NOT NULL))", &st, err)) < 0)
		return rc;
	db_bind_text(st, 1, ids_json);
	if (state)
		db_bind_text(st, 2, state);
	return db_step_int(ledger, st, count, NULL, "counting tasks", err);
}

int
task_count_in_flight(struct ledger *ledger, const char *ids_json,
    int64_t as_of_ms, int64_t *count, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT count(*) FROM tasks WHERE id IN (SELECT CAST(value AS BIGINT) FROM"
	    " json_each(?1)) AND (state = 'reported' OR (state = 'open' AND"
	    " not_before_ms > ?2) OR (state = 'verified'"
	    " AND land_queued_ms IS NOT NULL AND land_waiting IS NULL"
	    " AND NOT EXISTS (SELECT 1 FROM land_lock"
	    "  WHERE paused_ms IS NOT NULL)))", &st, err)) < 0)
		return rc;
	db_bind_text(st, 1, ids_json);
	db_bind_int(st, 2, as_of_ms);
	return db_step_int(ledger, st, count, NULL, "counting tasks", err);
}

int
task_each_claimed_by(struct ledger *ledger, const char *agents_json,
    int (*fn)(int64_t task, int64_t owner, void *arg), void *arg,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT id, owner FROM tasks WHERE state = 'claimed' AND owner IN"
	    " (SELECT CAST(value AS BIGINT) FROM json_each(?1)) ORDER BY id",
	    &st, err)) < 0)
		return rc;
	db_bind_text(st, 1, agents_json);
	return each_int_pair(ledger, st, fn, arg, "reading claims", err);
}

/*
 * Refuse agent's cancel of task id when the task is held by another agent,
 * or has failed, and agent neither added it nor is a human. 0 when allowed
 * (and when the task is missing or finished: task_cancel() says so).
 */
static int
may_cancel(struct ledger *ledger, int64_t agent, int64_t id, struct err *err)
{
	struct db_stmt *st = NULL;
	char *holder = NULL, *creator = NULL;
	bool found, allowed = true, failed = false;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT o.name, c.name, c.id = ?2,"
	    " (SELECT kind = 'human' FROM agents WHERE id = ?2), t.state = 'failed'"
	    " FROM tasks t LEFT JOIN agents o ON o.id = t.owner"
	    " LEFT JOIN agents c ON c.id = (SELECT e.actor FROM events e"
	    "  WHERE e.task = t.id AND e.kind = 'add' ORDER BY e.id LIMIT 1)"
	    " WHERE t.id = ?1 AND (t.state = 'failed' OR (t.owner <> ?2"
	    " AND t.state IN ('claimed', 'blocked', 'reported')))",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	db_bind_int(st, 2, agent);
	rc = db_step(st);
	if ((found = rc == DB_ROW)) {
		if (!db_column_is_null(st, 0))
			holder = xstrdup(db_column_text(st, 0));
		if (!db_column_is_null(st, 1))
			creator = xstrdup(db_column_text(st, 1));
		allowed = db_column_int(st, 2) != 0 ||
			  db_column_int(st, 3) != 0;
		failed = db_column_int(st, 4) != 0;
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		rc = db_error(ledger, rc, err, "reading a task");
	else if (found && !allowed && failed)
		rc = err_set(err, ERR_CONFLICT,
		    "cannot cancel task #%lld: it failed, and only %s%sa human "
		    "may give it up (or reopen it: 'daicho reopen %lld')",
		    (long long)id, creator ? creator : "",
		    creator ? " who added it, or " : "", (long long)id);
	else if (found && !allowed)
		rc = err_set(err, ERR_CONFLICT,
		    "cannot cancel task #%lld: it is held by %s, not you (only its "
		    "holder%s%s%s or a human may cancel it)", (long long)id, holder,
		    creator ? ", " : "", creator ? creator : "",
		    creator ? " who added it," : "");
	else
		rc = 0;
	free(holder);
	free(creator);
	return rc;
}

int
task_cancel_allowed(struct ledger *ledger, int64_t agent, int64_t id,
    const char *reason, struct err *err)
{
	int rc;

	/* One transaction: task_cancel()'s own nests inside it. */
	if ((rc = ledger_begin_as(ledger, &agent, err)) < 0)
		return rc;
	if ((rc = may_cancel(ledger, agent, id, err)) < 0 ||
	    (rc = task_cancel(ledger, agent, id, reason, err)) < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	return ledger_commit(ledger, err);
}

/* Each task's derived fields as the other rows say (task_derived_fix()). */
#define TASK_UNMET_SQL                                                       \
	"(SELECT count(*) FROM deps d JOIN tasks a ON a.id = d.after"            \
	" WHERE d.task = tasks.id AND NOT (a.state = 'landed' OR"                \
	" (a.state = 'verified' AND a.land_queued_ms IS NULL)))"
#define TASK_HAS_TOUCHES_SQL                                                 \
	"(CASE WHEN EXISTS (SELECT 1 FROM touches WHERE task = tasks.id)"        \
	" THEN 1 ELSE 0 END)"

int
task_derived_fix(struct ledger *ledger, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger, "UPDATE tasks SET unmet_deps = "
	    TASK_UNMET_SQL ", has_touches = " TASK_HAS_TOUCHES_SQL,
	    &st, err)) < 0)
		return rc;
	return db_step_done(ledger, st, "setting derived fields", err);
}

int
task_derived_wrong(struct ledger *ledger, int64_t *count, struct buf *ids,
    struct err *err)
{
	struct db_stmt *st;
	int rc;

	*count = 0;
	if ((rc = ledger_begin_read(ledger, err)) < 0)
		return rc;
	if ((rc = db_prepare(ledger, "SELECT id FROM tasks WHERE unmet_deps <> "
	    TASK_UNMET_SQL " OR has_touches <> " TASK_HAS_TOUCHES_SQL
	    " ORDER BY id", &st, err)) < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	while ((rc = db_step(st)) == DB_ROW) {
		if (++*count <= 10)
			buf_addf(ids, "%s#%lld", *count > 1 ? ", " : "",
			    (long long)db_column_int(st, 0));
	}
	db_reset(st);
	rc = rc == DB_DONE ? 0 : db_error(ledger, rc, err, "reading tasks");
	ledger_rollback(ledger);
	return rc;
}

/*
 * Asked first whether there are any: the UPDATE's IN (SELECT ...) builds
 * a temporary table each time, and most tasks have none.
 */
int
task_release_dependents(struct ledger *ledger, int64_t id, struct err *err)
{
	int64_t any = 0;
	int rc;

	if ((rc = db_count(ledger, "SELECT EXISTS (SELECT 1 FROM deps WHERE "
	    "after = ?1)", id, &any, "counting the task as done", err)) < 0 ||
	    !any)
		return rc;
	return db_write(ledger, "UPDATE tasks SET unmet_deps = unmet_deps - 1"
	    " WHERE id IN (SELECT task FROM deps WHERE after = ?1)", id, 0, NULL,
	    "counting the task as done", err);
}

int
task_leave_landing_queue(struct ledger *ledger, int64_t *count,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int64_t *ids = NULL;
	size_t n = 0;
	int rc;

	*count = 0;
	if ((rc = db_prepare(ledger,
	    "SELECT id FROM tasks WHERE state = 'verified'"
	    " AND land_queued_ms IS NOT NULL ORDER BY id", &st, err)) < 0)
		return rc;
	while ((rc = db_step(st)) == DB_ROW) {
		ids = xrealloc(ids, (n + 1) * sizeof(*ids));
		ids[n++] = db_column_int(st, 0);
	}
	db_reset(st);
	if (rc != DB_DONE) {
		free(ids);
		return db_error(ledger, rc, err, "reading the landing queue");
	}
	rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		rc = db_write(ledger, "UPDATE tasks SET land_queued_ms = NULL,"
		    " land_base = NULL, land_waiting = NULL WHERE id = ?1", ids[i], 0,
		    NULL, "leaving the landing queue", err);
		if (rc == 0)
			rc = task_release_dependents(ledger, ids[i], err);
	}
	*count = (int64_t)n;
	free(ids);
	return rc;
}
