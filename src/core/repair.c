/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agent.h"
#include "core/db.h"
#include "core/event.h"
#include "core/msg.h"
#include "core/task.h"
#include "core/task_internal.h"
#include "util/alloc.h"
#include "util/clock.h"

/* Who the actor is to task id, read inside the transaction. */
struct standing {
	bool human;       /* the actor is a person (no agent identity) */
	bool creator;     /* the actor added the task */
	bool holder;      /* the actor holds it */
	int64_t owner;    /* its holder, or 0 */
	char *owner_name; /* or NULL */
	char *actor_name; /* or NULL */
};

static void
standing_release(struct standing *s)
{
	free(s->owner_name);
	free(s->actor_name);
}

static int
read_standing(struct ledger *ledger, int64_t actor, int64_t id,
    struct standing *out, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = db_prepare(ledger,
	    "SELECT (SELECT kind = 'human' FROM agents WHERE id = ?2),"
	    " (SELECT e.actor FROM events e WHERE e.task = t.id"
	    "  AND e.kind = 'add' ORDER BY e.id LIMIT 1) = ?2,"
	    " t.owner, o.name, (SELECT name FROM agents WHERE id = ?2)"
	    " FROM tasks t LEFT JOIN agents o ON o.id = t.owner WHERE t.id = ?1",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	db_bind_int(st, 2, actor);
	rc = db_step(st);
	if (rc == DB_ROW) {
		const char *owner = db_column_text(st, 3);
		const char *name = db_column_text(st, 4);

		out->human = db_column_int(st, 0) != 0;
		out->creator = db_column_int(st, 1) != 0;
		out->owner = db_column_int(st, 2);
		out->holder = actor != 0 && out->owner == actor;
		out->owner_name = owner ? xstrdup(owner) : NULL;
		out->actor_name = name ? xstrdup(name) : NULL;
	}
	db_reset(st);
	return task_row_end(ledger, rc, id, err);
}

/* Run sql with ?1 = id and ?2 = text. */
static int
write_text(struct ledger *ledger, const char *sql, int64_t id,
    const char *text, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger, sql, &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	if (text)
		db_bind_text(st, 2, text);
	return db_step_done(ledger, st, "editing a task", err);
}

/* A JSON array of list's strings (new reference). */
static json_t *
json_strings(const struct strlist *list)
{
	json_t *array = json_array();

	for (size_t i = 0; i < list->count; i++)
		json_array_append_new(array, json_string(list->items[i]));
	return array;
}

/* Whether two lists hold the same strings in the same order. */
static bool
same_list(const struct strlist *a, const struct strlist *b)
{
	if (a->count != b->count)
		return false;
	for (size_t i = 0; i < a->count; i++)
		if (strcmp(a->items[i], b->items[i]) != 0)
			return false;
	return true;
}

/*
 * Replace task id's rows of table (column column) by list; record the
 * change in detail under name when the list differs from old.
 */
static int
replace_list(struct ledger *ledger, int64_t id, const char *delete_sql,
    const char *insert_sql, const struct strlist *old,
    const struct strlist *list, const char *name, json_t *detail,
    json_t *changed, struct err *err)
{
	int rc;

	if (list == NULL || same_list(old, list))
		return 0;
	if ((rc = write_text(ledger, delete_sql, id, NULL, err)) < 0)
		return rc;
	for (size_t i = 0; i < list->count; i++) {
		struct db_stmt *st = NULL;

		if ((rc = db_prepare(ledger, insert_sql, &st, err)) < 0)
			return rc;
		db_bind_int(st, 1, id);
		db_bind_text(st, 2, list->items[i]);
		db_bind_int(st, 3, (int64_t)i + 1);
		if ((rc = db_step_done(ledger, st, "editing a task", err)) < 0)
			return rc;
	}
	json_object_set_new(detail, name, json_pack("{s:o, s:o}", "old",
	    json_strings(old), "new", json_strings(list)));
	json_array_append_new(changed, json_string(name));
	return 0;
}

/*
 * Whether task after reaches task (through its own after edges), so that
 * task coming after it would close a cycle: the cycle as "#a -> ... -> #b"
 * in path when it does.
 */
static int
find_cycle(struct ledger *ledger, int64_t task, int64_t after,
    struct buf *path, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "WITH RECURSIVE walk(id, path) AS ("
	    " SELECT CAST(?2 AS BIGINT),"
	    "  '#' || CAST(?1 AS BIGINT) || ' -> #' || CAST(?2 AS BIGINT)"
	    " UNION ALL SELECT d.after, walk.path || ' -> #' || d.after"
	    "  FROM deps d JOIN walk ON d.task = walk.id WHERE walk.id <> ?1)"
	    " SELECT path FROM walk WHERE id = ?1 LIMIT 1", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, task);
	db_bind_int(st, 2, after);
	rc = db_step(st);
	if (rc == DB_ROW)
		buf_adds(path, db_column_text(st, 0));
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_error(ledger, rc, err, "reading dependencies");
	return rc == DB_ROW;
}

/*
 * Add (or, with remove, take away) the edge "id comes after other",
 * keeping unmet_deps true. Adding an edge that exists, or removing one
 * that does not, is refused: the caller asked for a change.
 */
static int
change_edge(struct ledger *ledger, int64_t id, const char *text, bool remove,
    json_t *added, json_t *removed, struct err *err)
{
	struct buf cycle = BUF_INIT;
	struct db_stmt *st;
	int64_t other, exists = 0, verified = 0;
	bool found;
	int rc;

	if ((rc = task_parse_id(text, &other, err)) < 0)
		return rc;
	if ((rc = db_prepare(ledger,
	    "SELECT " TASK_DONE_SQL ", EXISTS (SELECT 1 FROM deps"
	    " WHERE task = ?1 AND after = ?2) FROM tasks WHERE id = ?2",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	db_bind_int(st, 2, other);
	rc = db_step(st);
	found = rc == DB_ROW;
	if (found) {
		verified = db_column_int(st, 0);
		exists = db_column_int(st, 1);
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_error(ledger, rc, err, "reading a task");
	if (!found)
		return err_set(err, ERR_NOT_FOUND, "no task #%lld to come after "
		    "(see 'daicho ls')", (long long)other);
	if (other == id)
		return err_set(err, ERR_CONFLICT, "task #%lld cannot come after "
		    "itself", (long long)id);
	if (remove && !exists)
		return err_set(err, ERR_USAGE, "task #%lld does not come after "
		    "#%lld (see 'daicho show %lld')", (long long)id,
		    (long long)other, (long long)id);
	if (!remove && exists)
		return err_set(err, ERR_USAGE, "task #%lld already comes after "
		    "#%lld", (long long)id, (long long)other);
	if (!remove) {
		if ((rc = find_cycle(ledger, id, other, &cycle, err)) != 0) {
			if (rc > 0)
				rc = err_set(err, ERR_CONFLICT, "dependency cycle: %s "
				    "(dependencies must form a DAG; drop that --after)",
				    cycle.buf);
			buf_release(&cycle);
			return rc;
		}
	}
	rc = db_write(ledger, remove
	    ? "DELETE FROM deps WHERE task = ?1 AND after = ?2"
	    : "INSERT INTO deps (task, after) VALUES (?1, ?2)", id, other, NULL,
	    "editing dependencies", err);
	if (rc == 0 && !verified)
		rc = db_write(ledger, remove
		    ? "UPDATE tasks SET unmet_deps = unmet_deps - 1 WHERE id = ?1"
		    : "UPDATE tasks SET unmet_deps = unmet_deps + 1 WHERE id = ?1",
		    id, other, NULL, "editing dependencies", err);
	json_array_append_new(remove ? removed : added, json_integer(other));
	buf_release(&cycle);
	return rc;
}

/* The task as it is, with its lists, for an edit to merge into. */
static int
read_current(struct ledger *ledger, int64_t id, struct task *out,
    struct err *err)
{
	return task_get(ledger, id, out, err);
}

/*
 * Set one number of task id with sql (?1 = id, ?2 = value) when value
 * differs from old: old and new go into detail under key, and field into
 * changed. Nothing when they are the same.
 */
static int
edit_number(struct ledger *ledger, int64_t id, const char *sql,
    const char *key, const char *field, int64_t old, int64_t value,
    json_t *detail, json_t *changed, struct err *err)
{
	if (value == old)
		return 0;
	json_object_set_new(detail, key, json_pack("{s:I, s:I}", "old",
	    (json_int_t)old, "new", (json_int_t)value));
	json_array_append_new(changed, json_string(field));
	return db_write(ledger, sql, id, value, NULL, "editing a task", err);
}

/* Scalar fields of edit that differ from t, into the UPDATE and detail. */
static int
edit_scalars(struct ledger *ledger, int64_t id, const struct task *t,
    const struct task_edit *edit, json_t *detail, json_t *changed,
    struct err *err)
{
	int rc = 0;

	if (edit->title && strcmp(edit->title, t->title) != 0) {
		rc = write_text(ledger, "UPDATE tasks SET title = ?2 WHERE id = ?1",
		    id, edit->title, err);
		json_object_set_new(detail, "title", json_pack("{s:s, s:s}", "old",
		    t->title, "new", edit->title));
		json_array_append_new(changed, json_string("title"));
	}
	if (rc == 0 && edit->set_body) {
		struct db_stmt *st = NULL;

		if ((rc = db_prepare(ledger,
		    "UPDATE tasks SET body = ?2 WHERE id = ?1", &st, err)) < 0)
			return rc;
		db_bind_int(st, 1, id);
		db_bind_blob(st, 2, edit->body ? edit->body : "", edit->body_bytes);
		rc = db_step_done(ledger, st, "editing a task", err);
		json_object_set_new(detail, "body_bytes", json_pack("{s:I, s:I}",
		    "old", (json_int_t)t->body_bytes, "new",
		    (json_int_t)edit->body_bytes));
		json_array_append_new(changed, json_string("body"));
	}
	if (rc == 0 && edit->set_priority)
		rc = edit_number(ledger, id, "UPDATE tasks SET priority = ?2"
		    " WHERE id = ?1", "priority", "priority", t->priority,
		    edit->priority, detail, changed, err);
	if (rc == 0 && edit->set_max_attempts)
		rc = edit_number(ledger, id, "UPDATE tasks SET max_attempts = ?2"
		    " WHERE id = ?1", "max_attempts", "max_attempts",
		    t->max_attempts, edit->max_attempts, detail, changed, err);
	if (rc == 0 && edit->set_no_baseline)
		rc = edit_number(ledger, id, "UPDATE tasks SET no_baseline = ?2"
		    " WHERE id = ?1", "no_baseline", "no_baseline",
		    t->no_baseline, edit->no_baseline, detail, changed, err);
	if (rc == 0 && edit->check_needs &&
	    strcmp(edit->check_needs, t->check_needs ? t->check_needs : "") != 0) {
		rc = write_text(ledger, "UPDATE tasks SET check_needs = nullif(?2, '')"
		    " WHERE id = ?1", id, edit->check_needs, err);
		json_object_set_new(detail, "check_needs", json_pack("{s:s, s:s}",
		    "old", t->check_needs ? t->check_needs : "", "new",
		    edit->check_needs));
		json_array_append_new(changed, json_string("check_needs"));
	}
	if (rc == 0 && edit->set_check_timeout)
		rc = edit_number(ledger, id, "UPDATE tasks SET check_timeout_ms = ?2"
		    " WHERE id = ?1", "check_timeout_ms", "check_timeout",
		    t->check_timeout_ms, edit->check_timeout_ms, detail, changed,
		    err);
	return rc;
}

/* Whether field is one that judges or bounds the work. */
static bool
judges_the_work(const char *field)
{
	static const char *const fields[] = { "done_when", "check_timeout",
		"touches", "protect" };

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strcmp(field, fields[i]) == 0)
			return true;
	return false;
}

/*
 * Whether the scope (touches) of task id was last set by anyone but a
 * person proven at a terminal (TASK_TOUCHES_BY_PERSON_SQL, the rule
 * core/verify.c exempts by): a person's edit that gives the same
 * touches then takes them over, which is what exempts the task from the
 * ledger's protected paths (core/verify.c).
 */
static int
touches_set_by_agent(struct ledger *ledger, int64_t id, bool *by_agent,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int64_t agent = 0;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT 1 - " TASK_TOUCHES_BY_PERSON_SQL TASK_TOUCHES_LAST_SET_SQL,
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	rc = db_step_int(ledger, st, &agent, NULL, "reading a task's history",
	    err);
	*by_agent = agent != 0;
	return rc;
}

/*
 * Refuse (ERR_REFUSED) an agent's edit of task id that changes a field a
 * person set: its checks, check timeout, scope, protected paths or
 * dependencies, as a person's edit recorded them (its event's detail).
 * 0 when the edit changes none of those.
 */
static int
refuse_person_fields(struct ledger *ledger, int64_t id,
    const struct task_edit *edit, struct err *err)
{
	const struct {
		bool given;
		const char *path, *field;
	} fields[] = {
		{ edit->checks != NULL, "$.done_when", "checks" },
		{ edit->set_check_timeout, "$.check_timeout_ms", "check timeout" },
		{ edit->touches != NULL, "$.touches", "scope (--touches)" },
		{ edit->protects != NULL, "$.protect", "protected paths" },
		{ edit->not_after.count > 0, "$.after_added",
		  "dependencies" },
	};

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		struct db_stmt *st;
		int64_t set = 0;
		int rc;

		if (!fields[i].given)
			continue;
		if ((rc = db_prepare(ledger,
		    "SELECT EXISTS (SELECT 1 FROM events e"
		    " JOIN agents a ON a.id = e.actor WHERE e.task = ?1"
		    " AND e.kind = 'edit' AND a.kind = 'human'"
		    " AND json_extract(e.detail, ?2) IS NOT NULL)",
		    &st, err)) < 0)
			return rc;
		db_bind_int(st, 1, id);
		db_bind_text(st, 2, fields[i].path);
		if ((rc = db_step_int(ledger, st, &set, NULL, "reading a task's "
			 "history", err)) < 0)
			return rc;
		if (set)
			return err_set(err, ERR_REFUSED, "cannot change the %s of task "
			    "#%lld: a person set them, and what a person set is not an "
			    "agent's to change (nothing was changed)", fields[i].field,
			    (long long)id);
	}
	return 0;
}

/* Whether a task in state is held: claimed, blocked or reported. */
static bool
state_is_held(const char *state)
{
	return strcmp(state, "claimed") == 0 || strcmp(state, "blocked") == 0 ||
	       strcmp(state, "reported") == 0;
}

/*
 * Refuse (ERR_REFUSED) an agent's edit of task id that is not its to make,
 * for who it is to the task (who; judges: the edit gives checks, a check
 * timeout, touches or protected paths): how the task is judged, what
 * judges its own work or another's, the dependencies of a task it did not
 * add, and what a person set (refuse_person_fields()). 0 for a person's
 * edit, and for an agent's it may make; else the error.
 */
static int
refuse_agent_edit(struct ledger *ledger, int64_t id,
    const struct task_edit *edit, const struct standing *who, bool judges,
    struct err *err)
{
	if (who->human)
		return 0;
	if (edit->set_no_baseline || edit->check_needs)
		return err_set(err, ERR_REFUSED,
		    "cannot change --no-baseline or --check-needs of task #%lld: "
		    "how a task is judged is a person's call (nothing was changed)",
		    (long long)id);
	if (judges && who->holder)
		return err_set(err, ERR_REFUSED,
		    "cannot edit the checks or the scope of task #%lld: you hold it, "
		    "and what judges your own work is for a human or its creator "
		    "to change (nothing was changed)", (long long)id);
	if (judges && !who->creator)
		return err_set(err, ERR_REFUSED,
		    "cannot edit the checks or the scope of task #%lld: only a "
		    "human or the agent that added it may (what judges the work is "
		    "not for %s to change; nothing was changed)", (long long)id,
		    who->actor_name ? who->actor_name : "an agent");
	if (edit->after.count + edit->not_after.count > 0 && !who->creator)
		return err_set(err, ERR_REFUSED,
		    "cannot change the dependencies of task #%lld: only a human or "
		    "the agent that added it may (nothing was changed)",
		    (long long)id);
	if (judges || edit->not_after.count > 0)
		return refuse_person_fields(ledger, id, edit, err);
	return 0;
}

/*
 * Validate task t as edit will leave it, the way add does
 * (task_spec_check()). Returns 0 or the error.
 */
static int
check_task_as_edited(struct ledger *ledger, const struct task *t,
    const struct task_edit *edit, struct err *err)
{
	struct task_spec merged = { 0 };

	merged.title = edit->title ? edit->title : t->title;
	merged.max_attempts = edit->set_max_attempts ? edit->max_attempts : 0;
	merged.checks = edit->checks ? *edit->checks : t->checks;
	merged.touches = edit->touches ? *edit->touches : t->touches;
	merged.protects = edit->protects ? *edit->protects : t->protects;
	merged.labels = edit->labels ? *edit->labels : t->labels;
	return task_spec_check(ledger, &merged, err);
}

/*
 * Write the fields and lists of edit that differ from task t (as it was)
 * to task id: its scalars (edit_scalars()), then its checks, touches,
 * protected paths and labels (replace_list()); each change goes into
 * detail and its field's name into changed. Returns 0 or the first error.
 */
static int
write_edited_fields(struct ledger *ledger, int64_t id, const struct task *t,
    const struct task_edit *edit, json_t *detail, json_t *changed,
    struct err *err)
{
	int rc;

	if ((rc = edit_scalars(ledger, id, t, edit, detail, changed, err)) < 0 ||
	    (rc = replace_list(ledger, id,
		 "DELETE FROM checks WHERE task = ?1",
		 "INSERT INTO checks (task, spec, seq) VALUES (?1, ?2, ?3)",
		 &t->checks, edit->checks, "done_when", detail, changed, err)) < 0 ||
	    (rc = replace_list(ledger, id,
		 "DELETE FROM touches WHERE task = ?1",
		 "INSERT INTO touches (task, glob) VALUES (?1, ?2)"
		 " ON CONFLICT DO NOTHING",
		 &t->touches, edit->touches, "touches", detail, changed, err)) < 0 ||
	    (rc = replace_list(ledger, id,
		 "DELETE FROM protects WHERE task = ?1",
		 "INSERT INTO protects (task, glob) VALUES (?1, ?2)"
		 " ON CONFLICT DO NOTHING",
		 &t->protects, edit->protects, "protect", detail, changed,
		 err)) < 0 ||
	    (rc = replace_list(ledger, id,
		 "DELETE FROM labels WHERE task = ?1",
		 "INSERT INTO labels (task, label) VALUES (?1, ?2)"
		 " ON CONFLICT DO NOTHING",
		 &t->labels, edit->labels, "labels", detail, changed, err)) < 0)
		return rc;
	return 0;
}

/*
 * A person's edit that gives task id the touches it has (t's, so nothing
 * was written): when an agent set them, they become the person's; detail
 * records them, "taken", and changed names "touches". Returns 0 or the
 * error.
 */
static int
take_over_touches(struct ledger *ledger, int64_t id, const struct task *t,
    const struct task_edit *edit, json_t *detail, json_t *changed,
    struct err *err)
{
	bool by_agent = false;
	int rc;

	if ((rc = touches_set_by_agent(ledger, id, &by_agent, err)) < 0)
		return rc;
	if (by_agent) {
		json_object_set_new(detail, "touches", json_pack("{s:o, s:o,"
		    " s:b}", "old", json_strings(&t->touches), "new",
		    json_strings(edit->touches), "taken", 1));
		json_array_append_new(changed, json_string("touches"));
	}
	return 0;
}

/*
 * Add the after edges of edit to task id, then remove its not_after ones
 * (change_edge()); what changed goes into detail (after_added,
 * after_removed) and "after" into changed. Returns 0 or the first error.
 */
static int
edit_edges(struct ledger *ledger, int64_t id, const struct task_edit *edit,
    json_t *detail, json_t *changed, struct err *err)
{
	json_t *added = json_array(), *removed = json_array();
	int rc;

	for (size_t i = 0; i < edit->after.count; i++)
		if ((rc = change_edge(ledger, id, edit->after.items[i], false,
			 added, removed, err)) < 0)
			goto done;
	for (size_t i = 0; i < edit->not_after.count; i++)
		if ((rc = change_edge(ledger, id, edit->not_after.items[i], true,
			 added, removed, err)) < 0)
			goto done;
	if (json_array_size(added) || json_array_size(removed)) {
		json_object_set(detail, "after_added", added);
		json_object_set(detail, "after_removed", removed);
		json_array_append_new(changed, json_string("after"));
	}
	rc = 0;
done:
	json_decref(added);
	json_decref(removed);
	return rc;
}

/* Whether any field named in changed judges or bounds the work. */
static bool
changes_judge_the_work(const json_t *changed)
{
	bool judges = false;

	for (size_t i = 0; i < json_array_size(changed); i++)
		judges |= judges_the_work(json_string_value(json_array_get(changed,
		    i)));
	return judges;
}

/*
 * What judges the work of task id (t as it was) changed: a new version of
 * its checks, for every verdict, in detail too. A verification running the
 * old checks right now must not decide: its claim goes, and the next pass
 * runs the new ones. Returns 0 or the error.
 */
static int
new_checks_version(struct ledger *ledger, int64_t id, const struct task *t,
    json_t *detail, struct err *err)
{
	int rc;

	if ((rc = db_write(ledger, "UPDATE tasks SET checks_version ="
		 " checks_version + 1, has_touches = CASE WHEN EXISTS"
		 " (SELECT 1 FROM touches WHERE task = ?1) THEN 1 ELSE 0"
		 " END, verify_token = NULL,"
		 " verify_expires_ms = NULL WHERE id = ?1", id, 0, NULL,
		 "editing a task", err)) < 0)
		return rc;
	json_object_set_new(detail, "checks_version",
	    json_integer(t->checks_version + 1));
	return 0;
}

/*
 * Mark task id changed now and record the edit by actor: an "edit" event
 * whose detail is detail with the fields changed ("fields"). Returns 0 or
 * the error.
 */
static int
record_edit(struct ledger *ledger, int64_t actor, int64_t id, json_t *detail,
    json_t *changed, struct err *err)
{
	int rc;

	if ((rc = db_write(ledger, "UPDATE tasks SET updated_ms = ?2"
		 " WHERE id = ?1", id, clock_now_ms(), NULL, "editing a task",
		 err)) < 0)
		return rc;
	json_object_set(detail, "fields", changed);
	return event_append(ledger, actor, "edit", id, json_incref(detail), err);
}

/*
 * The holder (who->owner) of task id learns, in a message from actor,
 * that what judges its work changed: which of the fields in changed, and
 * the checks' new version (t's next). Returns 0 or the error.
 */
static int
tell_holder_of_edit(struct ledger *ledger, int64_t actor, int64_t id,
    const struct task *t, const struct standing *who, const json_t *changed,
    struct err *err)
{
	struct buf text = BUF_INIT;
	int rc;

	buf_addf(&text, "task #%lld was edited by %s while you hold it: its ",
	    (long long)id, who->actor_name ? who->actor_name : "a human");
	for (size_t i = 0; i < json_array_size(changed); i++) {
		const char *f = json_string_value(json_array_get(changed, i));

		if (judges_the_work(f))
			buf_addf(&text, "%s%s", text.buf[text.len - 1] == ' ' ? ""
			    : ", ", f);
	}
	buf_addf(&text, " changed (checks v%lld); see 'daicho show %lld'",
	    (long long)(t->checks_version + 1), (long long)id);
	rc = msg_append(ledger, actor, who->owner, "message", text.buf, err);
	buf_release(&text);
	return rc;
}

int
task_edit(struct ledger *ledger, int64_t actor, int64_t id,
    const struct task_edit *edit, json_t **changed, struct err *err)
{
	struct task t;
	struct standing who = { 0 };
	json_t *detail = json_object();
	bool judges = edit->checks || edit->set_check_timeout || edit->touches ||
		      edit->protects;
	bool have_task = false;
	int rc;

	*changed = json_array();
	memset(&t, 0, sizeof(t));
	if (edit->set_max_attempts && edit->max_attempts < 1) {
		rc = err_set(err, ERR_USAGE, "max attempts must be at least 1");
		goto out;
	}
	if ((rc = ledger_begin_as(ledger, &actor, err)) < 0)
		goto out;
	if ((rc = read_current(ledger, id, &t, err)) < 0)
		goto fail;
	have_task = true;
	if ((rc = read_standing(ledger, actor, id, &who, err)) < 0 ||
	    (rc = refuse_agent_edit(ledger, id, edit, &who, judges, err)) < 0 ||
	    (rc = check_task_as_edited(ledger, &t, edit, err)) < 0 ||
	    (rc = write_edited_fields(ledger, id, &t, edit, detail, *changed,
		 err)) < 0)
		goto fail;
	/* A held task's new scope may not reach into another live claim's. */
	if (edit->touches && json_object_get(detail, "touches") != NULL &&
	    state_is_held(t.state) &&
	    (rc = task_scope_conflict(ledger, id, who.owner, err)) < 0)
		goto fail;
	/* A person giving an agent's touches again makes them a person's. */
	if (who.human && edit->touches &&
	    json_object_get(detail, "touches") == NULL &&
	    (rc = take_over_touches(ledger, id, &t, edit, detail, *changed,
		 err)) < 0)
		goto fail;
	if ((rc = edit_edges(ledger, id, edit, detail, *changed, err)) < 0)
		goto fail;
	if (json_array_size(*changed) == 0) {
		rc = err_set(err, ERR_USAGE, "nothing to change in task #%lld (every "
		    "value given is what it has; see 'daicho edit --help')",
		    (long long)id);
		goto fail;
	}
	judges = changes_judge_the_work(*changed);
	if ((judges && (rc = new_checks_version(ledger, id, &t, detail,
		 err)) < 0) ||
	    (rc = record_edit(ledger, actor, id, detail, *changed, err)) < 0)
		goto fail;
	if (judges && who.owner != 0 && !who.holder && state_is_held(t.state) &&
	    (rc = tell_holder_of_edit(ledger, actor, id, &t, &who, *changed,
		 err)) < 0)
		goto fail;
	rc = ledger_commit(ledger, err);
	goto out;
fail:
	ledger_rollback(ledger);
out:
	if (rc < 0) {
		json_decref(*changed);
		*changed = NULL;
	}
	if (have_task)
		task_free_fields(&t);
	standing_release(&who);
	json_decref(detail);
	return rc;
}

/*
 * Begin a repair of task id by *actor: the transaction (which registers a
 * new actor), the task's state and attempts, and who the actor is to it.
 * On failure nothing is left open.
 */
static int
begin_repair(struct ledger *ledger, int64_t *actor, int64_t id, char *state,
    size_t size, int64_t *attempts, struct standing *who, struct err *err)
{
	struct task_state now;
	int rc;

	memset(who, 0, sizeof(*who));
	if ((rc = ledger_begin_as(ledger, actor, err)) < 0)
		return rc;
	if ((rc = task_get_state(ledger, id, &now, err)) == 0) {
		snprintf(state, size, "%s", now.state);
		*attempts = now.attempts;
	}
	if (rc < 0 || (rc = read_standing(ledger, *actor, id, who, err)) < 0) {
		standing_release(who);
		ledger_rollback(ledger);
	}
	return rc;
}

/* End a repair: commit when rc is 0, else roll back; rc or the commit's. */
static int
end_repair(struct ledger *ledger, struct standing *who, int rc,
    struct err *err)
{
	standing_release(who);
	if (rc < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	return ledger_commit(ledger, err);
}

/*
 * Into *ran (new reference): the ids of the tasks that come after task id
 * and have started on its work (claimed, reported, blocked, verified,
 * landed).
 */
static int
read_ran(struct ledger *ledger, int64_t id, json_t **ran, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*ran = json_array();
	if ((rc = db_prepare(ledger,
	    "SELECT x.id FROM deps d JOIN tasks x ON x.id = d.task"
	    " WHERE d.after = ?1 AND x.state IN ('claimed', 'reported',"
	    " 'blocked', 'verified', 'landed') ORDER BY x.id", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	while ((rc = db_step(st)) == DB_ROW)
		json_array_append_new(*ran, json_integer(db_column_int(st, 0)));
	db_reset(st);
	return rc == DB_DONE ? 0 : db_error(ledger, rc, err, "reading a task");
}

int
task_reopen(struct ledger *ledger, int64_t actor, int64_t id,
    const char *reason, struct err *err)
{
	struct standing who = { 0 };
	char state[16] = "";
	int64_t attempts = 0;
	json_t *ran = NULL, *detail;
	bool done;
	int rc;

	if ((rc = begin_repair(ledger, &actor, id, state, sizeof(state),
		 &attempts, &who, err)) < 0)
		return rc;
	done = strcmp(state, "verified") == 0 || strcmp(state, "landed") == 0;
	if (strcmp(state, "failed") != 0 && strcmp(state, "cancelled") != 0 &&
	    !done) {
		rc = err_set(err, ERR_CONFLICT, "cannot reopen task #%lld: it is %s "
		    "(a failed, cancelled, verified or landed task is reopened)",
		    (long long)id, state);
		goto fail;
	}
	if (done && !who.human) {
		rc = err_set(err, ERR_REFUSED, "cannot reopen task #%lld: it is %s, "
		    "and only a person undoes a verdict", (long long)id, state);
		goto fail;
	}
	if (done && (reason == NULL || reason[strspn(reason, " \t\n")] == '\0')) {
		rc = err_set(err, ERR_USAGE, "reopening %s work needs --reason: "
		    "why it turned out wrong", state);
		goto fail;
	}
	if (!who.human && !who.creator) {
		rc = err_set(err, ERR_REFUSED, "cannot reopen task #%lld: only a "
		    "human or the agent that added it may", (long long)id);
		goto fail;
	}
	/*
	 * Done work counted for the tasks after it (TASK_UNMET_SQL): they
	 * wait for it again. Those that already ran on it are named in the
	 * event, and NEEDS YOU lists them until it is done again.
	 */
	if (done && ((rc = read_ran(ledger, id, &ran, err)) < 0 ||
	    (rc = db_write(ledger, "UPDATE tasks SET unmet_deps = unmet_deps + 1"
		 " WHERE id IN (SELECT task FROM deps WHERE after = ?1)"
		 " AND (SELECT state = 'landed' OR land_queued_ms IS NULL"
		 "  FROM tasks WHERE id = ?1)", id, 0, NULL,
		 "making the tasks after it wait", err)) < 0))
		goto fail;
	TASK_MOVE_CHECK(state, "open");
	if ((rc = db_write(ledger, "UPDATE tasks SET state = 'open',"
		 " owner = NULL, lease_ms = NULL, lease_expires_ms = NULL,"
		 " attempts = 0, not_before_ms = NULL, verify_token = NULL,"
		 " verify_expires_ms = NULL, block_reason = NULL, land_tries = 0,"
		 " land_note = NULL, land_queued_ms = NULL, land_base = NULL,"
		 " land_token = NULL, land_waiting = NULL, landed_commit = NULL,"
		 " landed_trunk = NULL, landed_ms = NULL, updated_ms = ?2"
		 " WHERE id = ?1", id, clock_now_ms(), NULL, "reopening a task",
		 err)) < 0)
		goto fail;
	detail = json_pack("{s:s, s:I}", "from", state, "attempts",
	    (json_int_t)attempts);
	if (reason != NULL)
		json_object_set_new(detail, "reason", json_string(reason));
	if (ran != NULL)
		json_object_set(detail, "ran", ran);
	rc = event_append(ledger, actor, "reopen", id, detail, err);
fail:
	json_decref(ran);
	return end_repair(ledger, &who, rc, err);
}

/* The question (block reason) task id is blocked with, into out. */
static int
read_question(struct ledger *ledger, int64_t id, struct buf *out,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT coalesce(block_reason, '') FROM tasks WHERE id = ?1",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	rc = db_step(st);
	if (rc == DB_ROW)
		buf_adds(out, db_column_text(st, 0));
	db_reset(st);
	return rc == DB_ROW || rc == DB_DONE ? 0
	     : db_error(ledger, rc, err, "reading a task");
}

int
task_unblock(struct ledger *ledger, int64_t actor, int64_t id,
    const char *answer, int64_t stale_after_ms, bool *to_owner,
    struct err *err)
{
	struct standing who = { 0 };
	char state[16] = "";
	int64_t attempts = 0, live = 0, now = clock_now_ms();
	struct buf question = BUF_INIT;
	struct db_stmt *st;
	int rc;

	*to_owner = false;
	if ((rc = begin_repair(ledger, &actor, id, state, sizeof(state),
		 &attempts, &who, err)) < 0)
		return rc;
	if (strcmp(state, "blocked") != 0) {
		rc = err_set(err, ERR_CONFLICT, "cannot unblock task #%lld: it is "
		    "%s, not blocked", (long long)id, state);
		goto fail;
	}
	if (!who.human && !who.holder) {
		rc = err_set(err, ERR_REFUSED, "cannot unblock task #%lld: only a "
		    "human or its holder %s may", (long long)id,
		    who.owner_name ? who.owner_name : "");
		goto fail;
	}
	if ((rc = db_prepare(ledger, "SELECT state IN ('active','waiting') AND"
	    " last_seen_ms >= ?2 FROM agents WHERE id = ?1", &st, err)) < 0)
		goto fail;
	db_bind_int(st, 1, who.owner);
	db_bind_int(st, 2, now - stale_after_ms);
	if ((rc = db_step_int(ledger, st, &live, NULL, "reading an agent",
		 err)) < 0)
		goto fail;
	*to_owner = live != 0;
	if (answer != NULL && (rc = read_question(ledger, id, &question,
		 err)) < 0)
		goto fail;
	TASK_MOVE_CHECK(state, *to_owner ? "claimed" : "open");
	rc = db_write(ledger, *to_owner
	    ? "UPDATE tasks SET state = 'claimed', block_reason = NULL,"
	      " lease_ms = coalesce(lease_ms, " TASK_DEFAULT_LEASE_MS_SQL "),"
	      " lease_expires_ms = ?2 + coalesce(lease_ms, "
	      TASK_DEFAULT_LEASE_MS_SQL "),"
	      " claim_named_ms = ?2, updated_ms = ?2 WHERE id = ?1"
	    : "UPDATE tasks SET state = 'open', owner = NULL, lease_ms = NULL,"
	      " lease_expires_ms = NULL, block_reason = NULL,"
	      " attempts = max(attempts - 1, 0), updated_ms = ?2 WHERE id = ?1",
	    id, now, NULL, "unblocking a task", err);
	if (rc == 0)
		rc = event_append(ledger, actor, "unblock", id,
		    json_pack("{s:s, s:s?, s:s?, s:s?}", "to", *to_owner ? "owner"
			: "open", "owner", who.owner_name, "question",
			answer ? question.buf : NULL, "answer", answer), err);
	if (rc == 0 && answer != NULL && *to_owner) {
		struct buf text = BUF_INIT;

		buf_addf(&text, "#%lld is yours again, answered: ", (long long)id);
		buf_add_oneline(&text, answer);
		if (question.len > 0) {
			buf_adds(&text, " (you asked: ");
			buf_add_oneline(&text, question.buf);
			buf_adds(&text, ")");
		}
		buf_addf(&text, "; 'daicho prompt %lld' keeps the answer",
		    (long long)id);
		rc = msg_append(ledger, actor, who.owner, "message", text.buf, err);
		buf_release(&text);
	}
fail:
	buf_release(&question);
	return end_repair(ledger, &who, rc, err);
}

int
task_release_forced(struct ledger *ledger, int64_t actor, int64_t id,
    struct err *err)
{
	struct standing who = { 0 };
	char state[16] = "";
	int64_t attempts = 0;
	int rc;

	if ((rc = begin_repair(ledger, &actor, id, state, sizeof(state),
		 &attempts, &who, err)) < 0)
		return rc;
	if (!who.human) {
		rc = err_set(err, ERR_REFUSED, "release --force is for a human (an "
		    "agent releases only what it holds: 'daicho release %lld')",
		    (long long)id);
		goto fail;
	}
	if (strcmp(state, "claimed") != 0 && strcmp(state, "blocked") != 0 &&
	    strcmp(state, "reported") != 0) {
		rc = err_set(err, ERR_CONFLICT, "cannot release task #%lld: it is "
		    "%s (only a claimed, blocked or reported task is held)",
		    (long long)id, state);
		goto fail;
	}
	TASK_MOVE_CHECK(state, "open");
	if ((rc = db_write(ledger, "UPDATE tasks SET state = 'open',"
		 " owner = NULL, lease_ms = NULL, lease_expires_ms = NULL,"
		 " attempts = max(attempts - 1, 0), block_reason = NULL,"
		 " verify_token = NULL, verify_expires_ms = NULL, updated_ms = ?2"
		 " WHERE id = ?1", id, clock_now_ms(), NULL, "releasing a task",
		 err)) < 0 ||
	    (rc = event_append(ledger, actor, "release", id, json_pack("{s:b, s:s,"
		 " s:s?}", "forced", 1, "from", state, "owner", who.owner_name),
		 err)) < 0)
		goto fail;
	if (who.owner != 0 && who.owner != actor) {
		struct buf text = BUF_INIT;

		buf_addf(&text, "task #%lld was taken back from you by %s (it is "
		    "open again); stop working on it", (long long)id,
		    who.actor_name ? who.actor_name : "a human");
		rc = msg_append(ledger, actor, who.owner, "message", text.buf, err);
		buf_release(&text);
		if (rc < 0)
			goto fail;
	}
fail:
	return end_repair(ledger, &who, rc, err);
}
