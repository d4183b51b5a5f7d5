/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Adding tasks (core/task.h, task_add()): checking each spec and a
 * batch's graph of parents and edges before anything is written, then the
 * rows, in one transaction. Apart from task.c because none of it reads or
 * changes a task once it exists.
 */
#include "core/task.h"

#include <stdlib.h>
#include <string.h>

#include "core/db.h"
#include "core/dep.h"
#include "core/event.h"
#include "core/task_internal.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/glob.h"
#include "util/path.h"
#include "util/utf8.h"

/* Prefix for errors about spec: "line N: " inside a batch. */
static const char *
where(const struct task_spec *spec, struct buf *scratch)
{
	buf_reset(scratch);
	if (spec->line)
		buf_addf(scratch, "line %zu: ", spec->line);
	return scratch->buf;
}


static int
check_label(const char *label, struct err *err, const char *at)
{
	if (*label == '\0')
		return err_set(err, ERR_USAGE, "%sempty label", at);
	for (const char *p = label; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == ',')
			return err_set(err, ERR_USAGE,
			    "%sinvalid label '%s' (no spaces, commas or control "
			    "characters)", at, label);
	if (!utf8_valid(label))
		return err_set(err, ERR_USAGE, "%slabel is not valid UTF-8", at);
	return 0;
}

/* Check each of globs (what: "" or "protected ") as a path glob. */
static int
check_globs(const struct strlist *globs, const char *what, const char *at,
    struct err *err)
{
	struct buf why = BUF_INIT, shown = BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < globs->count && rc == 0; i++) {
		if (glob_check(globs->items[i], &why) < 0) {
			buf_add_oneline(&shown, globs->items[i]);
			rc = err_set(err, ERR_USAGE, "%sbad %sglob '%s' (%s)", at, what,
			    shown.buf, why.buf);
		}
	}
	buf_release(&why);
	buf_release(&shown);
	return rc;
}

/* Validate everything about one spec that needs no ledger. */
static int
check_spec(const struct task_spec *spec, struct err *err)
{
	struct buf at = BUF_INIT, why = BUF_INIT;
	const char *prefix = where(spec, &at);
	int rc = 0;

	if (spec->title == NULL || spec->title[0] == '\0') {
		rc = err_set(err, ERR_USAGE, "%sempty title (a task needs a title)",
		    prefix);
		goto done;
	}
	if (strlen(spec->title) > TASK_TITLE_MAX_BYTES) {
		rc = err_set(err, ERR_USAGE, "%stitle too long (%zu bytes; a title "
		    "has at most %d bytes, put the rest in the body)", prefix,
		    strlen(spec->title), TASK_TITLE_MAX_BYTES);
		goto done;
	}
	if (strchr(spec->title, '\n') || strchr(spec->title, '\r')) {
		rc = err_set(err, ERR_USAGE,
		    "%stitle has a line break (a title is one line; put the "
		    "rest in the body)", prefix);
		goto done;
	}
	if (!utf8_valid(spec->title)) {
		rc = err_set(err, ERR_USAGE, "%stitle is not valid UTF-8", prefix);
		goto done;
	}
	if (spec->max_attempts < 0) {
		rc = err_set(err, ERR_USAGE, "%smax attempts must be at least 1",
		    prefix);
		goto done;
	}
	if ((rc = check_globs(&spec->touches, "", prefix, err)) < 0 ||
	    (rc = check_globs(&spec->protects, "protected ", prefix, err)) < 0)
		goto done;
	for (size_t i = 0; i < spec->checks.count; i++) {
		if ((rc = task_check_spec(spec->checks.items[i], err)) < 0) {
			struct buf msg = BUF_INIT;

			buf_addf(&msg, "%s%s", prefix, err->message.buf);
			rc = err_set(err, ERR_USAGE, "%s", msg.buf);
			buf_release(&msg);
			goto done;
		}
	}
	for (size_t i = 0; i < spec->labels.count; i++)
		if ((rc = check_label(spec->labels.items[i], err, prefix)) < 0)
			goto done;
done:
	buf_release(&at);
	buf_release(&why);
	return rc;
}

/* Find the spec whose key is key; count if none. */
static size_t
find_key(const struct task_spec *specs, size_t count, const char *key)
{
	for (size_t i = 0; i < count; i++)
		if (specs[i].key && strcmp(specs[i].key, key) == 0)
			return i;
	return count;
}

static void
describe_spec(struct buf *out, const struct task_spec *spec)
{
	if (spec->key)
		buf_addf(out, "'%s' (line %zu)", spec->key, spec->line);
	else
		buf_addf(out, "line %zu", spec->line);
}

/* Refuse duplicate keys and cycles among the batch's own edges. */
static int
check_batch_graph(const struct task_spec *specs, size_t count, struct err *err)
{
	struct dep_graph graph = { count, xcalloc(count ? count : 1, sizeof(size_t *)),
		xcalloc(count ? count : 1, sizeof(size_t)) };
	size_t *path = xcalloc(count + 1, sizeof(size_t));
	size_t cycle;
	int rc = 0;

	for (size_t i = 0; i < count; i++) {
		if (specs[i].key && find_key(specs, i, specs[i].key) < i) {
			rc = err_set(err, ERR_USAGE,
			    "line %zu: key '%s' is already used on line %zu",
			    specs[i].line, specs[i].key,
			    specs[find_key(specs, i, specs[i].key)].line);
			goto done;
		}
		graph.edges[i] = xcalloc(specs[i].after.count + 1, sizeof(size_t));
		for (size_t k = 0; k < specs[i].after.count; k++) {
			size_t j = find_key(specs, count, specs[i].after.items[k]);

			if (j < count)
				graph.edges[i][graph.counts[i]++] = j;
		}
	}
	cycle = dep_find_cycle(&graph, path);
	if (cycle > 0) {
		struct buf text = BUF_INIT;

		for (size_t k = 0; k <= cycle; k++) {
			if (k)
				buf_adds(&text, " -> ");
			describe_spec(&text, &specs[path[k]]);
		}
		rc = err_set(err, ERR_CONFLICT,
		    "dependency cycle: %s (dependencies must form a DAG; remove one "
		    "'after')", text.buf);
		buf_release(&text);
	}
done:
	for (size_t i = 0; i < count; i++)
		free(graph.edges[i]);
	free(graph.edges);
	free(graph.counts);
	free(path);
	return rc;
}

/*
 * Resolve an existing task id text; fills *id, and *verified: whether it
 * counts as done for what comes after it (TASK_DONE_SQL).
 */
static int
existing_task(struct ledger *ledger, const char *text, const char *prefix,
    const char *role, int64_t *id, bool *verified, struct err *err)
{
	struct db_stmt *st;
	int rc;

	if (task_parse_id(text, id, err) < 0)
		return err_set(err, ERR_USAGE,
		    "%s'%s' in %s is neither a task id nor a key in this batch",
		    prefix, text, role);
	if ((rc = db_prepare(ledger, "SELECT " TASK_DONE_SQL
	    " FROM tasks WHERE id = ?", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, *id);
	rc = db_step(st);
	if (rc == DB_ROW)
		*verified = db_column_int(st, 0) != 0;
	db_reset(st);
	if (rc == DB_DONE)
		return err_set(err, ERR_NOT_FOUND, "%s%s names no task #%lld",
		    prefix, role, (long long)*id);
	if (rc != DB_ROW)
		return db_error(ledger, rc, err, "reading a task");
	return 0;
}

static int
insert_pair(struct ledger *ledger, const char *sql, int64_t task,
    const char *text, int64_t number, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger, sql, &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, task);
	if (text)
		db_bind_text(st, 2, text);
	else
		db_bind_int(st, 2, number);
	if ((rc = db_step_done(ledger, st, "adding a task", err)) < 0)
		return rc;
	return 0;
}

/* Insert one task row; the edges follow once every id is known. */
static int
insert_task(struct ledger *ledger, const struct task_spec *spec,
    int64_t parent, int64_t now, int64_t *id, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "INSERT INTO tasks (title, body, priority, parent, max_attempts,"
	    " has_touches, created_ms, updated_ms, check_timeout_ms, no_baseline,"
	    " check_needs) VALUES (?,?,?,?,?,?,?,?,?,?,?)", &st, err)) < 0)
		return rc;
	db_bind_text(st, 1, spec->title);
	db_bind_blob(st, 2, spec->body ? spec->body : "", spec->body_bytes);
	db_bind_int(st, 3, spec->priority);
	if (parent)
		db_bind_int(st, 4, parent);
	db_bind_int(st, 5, spec->max_attempts ? spec->max_attempts : TASK_DEFAULT_MAX_ATTEMPTS);
	db_bind_int(st, 6, spec->touches.count > 0);
	db_bind_int(st, 7, now);
	db_bind_int(st, 8, now);
	if (spec->check_timeout_ms > 0)
		db_bind_int(st, 9, spec->check_timeout_ms);
	db_bind_int(st, 10, spec->no_baseline);
	if (spec->check_needs)
		db_bind_text(st, 11, spec->check_needs);
	if ((rc = db_step_done(ledger, st, "adding a task", err)) < 0)
		return rc;
	*id = db_last_insert_id(ledger);
	return 0;
}

/* Write after edges, labels, touches and checks of specs[i] (id ids[i]). */
static int
insert_edges(struct ledger *ledger, const struct task_spec *specs,
    size_t count, size_t i, const int64_t *ids, struct err *err)
{
	const struct task_spec *spec = &specs[i];
	struct buf at = BUF_INIT;
	int64_t unmet = 0;
	int rc = 0;

	where(spec, &at);
	for (size_t k = 0; k < spec->after.count; k++) {
		size_t j = find_key(specs, count, spec->after.items[k]);
		int64_t after;
		bool verified = false;

		if (j < count) {
			after = ids[j];
		} else if ((rc = existing_task(ledger, spec->after.items[k], at.buf,
				"after", &after, &verified, err)) < 0) {
			goto done;
		} else if (after >= ids[0]) {
			/* Only now added: it did not exist when named. */
			rc = err_set(err, ERR_NOT_FOUND, "%safter names no task #%lld",
			    at.buf, (long long)after);
			goto done;
		}
		if (after == ids[i]) {
			rc = err_set(err, ERR_CONFLICT,
			    "%sa task cannot come after itself", at.buf);
			goto done;
		}
		{
			struct db_stmt *st = NULL;

			if ((rc = db_prepare(ledger,
			    "INSERT INTO deps (task, after) VALUES (?, ?)"
			    " ON CONFLICT DO NOTHING", &st, err)) < 0)
				goto done;
			db_bind_int(st, 1, ids[i]);
			db_bind_int(st, 2, after);
			rc = db_step(st);
			if (rc == DB_DONE && db_changes(ledger) &&
			    !verified)
				unmet++;
			db_reset(st);
			if (rc != DB_DONE) {
				rc = db_error(ledger, rc, err, "adding a task");
				goto done;
			}
			rc = 0;
		}
	}
	if (unmet > 0) {
		struct db_stmt *st = NULL;

		if ((rc = db_prepare(ledger,
		    "UPDATE tasks SET unmet_deps = ? WHERE id = ?",
		    &st, err)) < 0)
			goto done;
		db_bind_int(st, 1, unmet);
		db_bind_int(st, 2, ids[i]);
		if ((rc = db_step_done(ledger, st, "adding a task", err)) < 0)
			goto done;
		rc = 0;
	}
	for (size_t k = 0; k < spec->labels.count && rc == 0; k++)
		rc = insert_pair(ledger,
		    "INSERT INTO labels (task, label) VALUES (?, ?)"
		    " ON CONFLICT DO NOTHING",
		    ids[i], spec->labels.items[k], 0, err);
	for (size_t k = 0; k < spec->touches.count && rc == 0; k++)
		rc = insert_pair(ledger,
		    "INSERT INTO touches (task, glob) VALUES (?, ?)"
		    " ON CONFLICT DO NOTHING",
		    ids[i], spec->touches.items[k], 0, err);
	for (size_t k = 0; k < spec->protects.count && rc == 0; k++)
		rc = insert_pair(ledger,
		    "INSERT INTO protects (task, glob) VALUES (?, ?)"
		    " ON CONFLICT DO NOTHING",
		    ids[i], spec->protects.items[k], 0, err);
	for (size_t k = 0; k < spec->checks.count && rc == 0; k++) {
		struct db_stmt *st = NULL;

		if ((rc = db_prepare(ledger,
		    "INSERT INTO checks (task, seq, spec) VALUES (?, ?, ?)",
		    &st, err)) < 0)
			break;
		db_bind_int(st, 1, ids[i]);
		db_bind_int(st, 2, (int64_t)k + 1);
		db_bind_text(st, 3, spec->checks.items[k]);
		rc = db_step_done(ledger, st, "adding a task", err);
	}
done:
	buf_release(&at);
	return rc;
}

/*
 * A file: check through a symlink that already leaves the project is
 * refused now, not only when it is checked.
 */
static int
check_file_paths(struct ledger *ledger, const struct task_spec *specs,
    size_t count, struct err *err)
{
	struct buf root = BUF_INIT, resolved = BUF_INIT, at = BUF_INIT;
	int rc = 0;

	ledger_project_root(ledger, &root);
	for (size_t i = 0; i < count && rc == 0; i++) {
		for (size_t k = 0; k < specs[i].checks.count && rc == 0; k++) {
			const char *spec = specs[i].checks.items[k];

			if (strncmp(spec, "file:", 5) == 0 &&
			    path_resolves_outside(root.buf, spec + 5, &resolved) == 1)
				rc = err_set(err, ERR_USAGE,
				    "%sdone-when '%s' leaves the repository (it resolves "
				    "to %s)", where(&specs[i], &at), spec, resolved.buf);
		}
	}
	buf_release(&root);
	buf_release(&resolved);
	buf_release(&at);
	return rc;
}

int
task_spec_check(struct ledger *ledger, const struct task_spec *spec,
    struct err *err)
{
	int rc = check_spec(spec, err);

	return rc < 0 ? rc : check_file_paths(ledger, spec, 1, err);
}

/*
 * An add event's detail: the task's checks (done_when), which the audit
 * replays (core/audit.h), and person: true when a proven person added it
 * (their touches exempt it from the protected paths, core/verify.c); NULL
 * when neither.
 */
static json_t *
add_detail(const struct task_spec *spec)
{
	json_t *detail, *checks;

	if (spec->checks.count == 0 && !spec->by_person)
		return NULL;
	detail = json_object();
	if (spec->checks.count > 0) {
		checks = json_array();
		for (size_t k = 0; k < spec->checks.count; k++)
			json_array_append_new(checks,
			    json_string(spec->checks.items[k]));
		json_object_set_new(detail, "done_when", checks);
	}
	if (spec->by_person)
		json_object_set_new(detail, "person", json_true());
	return detail;
}

int
task_add(struct ledger *ledger, int64_t actor, struct task_spec *specs,
    size_t count, int64_t *ids, struct err *err)
{
	int64_t now = clock_now_ms();
	struct buf at = BUF_INIT;
	int rc;

	for (size_t i = 0; i < count; i++)
		if ((rc = check_spec(&specs[i], err)) < 0)
			return rc;
	if ((rc = check_file_paths(ledger, specs, count, err)) < 0)
		return rc;
	if ((rc = check_batch_graph(specs, count, err)) < 0)
		return rc;
	if ((rc = ledger_begin_as(ledger, &actor, err)) < 0)
		return rc;
	for (size_t i = 0; i < count; i++) {
		int64_t parent = 0;

		if (specs[i].parent) {
			size_t j = find_key(specs, i, specs[i].parent);
			bool verified;

			if (j < i)
				parent = ids[j];
			else if ((rc = existing_task(ledger, specs[i].parent,
					  where(&specs[i], &at), "parent", &parent,
					  &verified, err)) < 0)
				goto fail;
		}
		if ((rc = insert_task(ledger, &specs[i], parent, now, &ids[i], err)) < 0)
			goto fail;
	}
	for (size_t i = 0; i < count; i++) {
		if ((rc = insert_edges(ledger, specs, count, i, ids, err)) < 0)
			goto fail;
		if ((rc = event_append(ledger, actor, "add", ids[i],
			 add_detail(&specs[i]), err)) < 0)
			goto fail;
	}
	buf_release(&at);
	return ledger_commit(ledger, err);
fail:
	buf_release(&at);
	ledger_rollback(ledger);
	return rc;
}
