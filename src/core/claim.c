/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * What is ready, and every change of a task's state after it was added:
 * claim, release, block, cancel, report, save.
 *
 * One file because every one of these changes reads and writes the same
 * columns (state, owner, lease) under the same rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agent.h"
#include "core/db.h"
#include "core/event.h"
#include "core/settings.h"
#include "core/task.h"
#include "core/task_internal.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/git.h"
#include "util/gitref.h"
#include "util/glob.h"
#include "util/path.h"

/* A glob held by a live claim, and who holds it. */
struct live_touch {
	char *glob;
	int64_t task;
	char *holder;
};

struct live_touches {
	struct live_touch *items;
	size_t count, alloc;
	bool loaded;
	int64_t agent; /* whose view: its own reservations do not count */
};

static void
live_touches_release(struct live_touches *live)
{
	for (size_t i = 0; i < live->count; i++) {
		free(live->items[i].glob);
		free(live->items[i].holder);
	}
	free(live->items);
	memset(live, 0, sizeof(*live));
}

/*
 * Load the touches of every live claim (TASK_LIVE_CLAIM_SQL) and the
 * explicit reservations of live agents other than live->agent (task 0 when
 * a reservation is for no task); see core/reserve.h.
 */
static int
live_touches_load(struct ledger *ledger, int64_t now, struct live_touches *live,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT g.glob, t.id, a.name FROM tasks t"
	    " JOIN touches g ON g.task = t.id"
	    " LEFT JOIN agents a ON a.id = t.owner"
	    " WHERE t.has_touches <> 0 AND " TASK_LIVE_CLAIM_SQL("t", "a")
	    " UNION ALL "
	    "SELECT r.glob, coalesce(r.task, 0), a.name FROM reservations r"
	    " JOIN agents a ON a.id = r.agent LEFT JOIN tasks rt ON rt.id = r.task"
	    " WHERE r.released_ms IS NULL AND r.expires_ms > ?1 AND r.agent <> ?2"
	    " AND (a.state = 'waiting' OR (a.state = 'active' AND"
	    "  a.last_seen_ms > ?1 - ?3))"
	    " AND (rt.id IS NULL OR rt.state NOT IN"
	    "  ('verified','landed','cancelled','failed'))", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, now);
	db_bind_int(st, 2, live->agent);
	db_bind_int(st, 3, AGENT_STALE_AFTER_MS);
	while ((rc = db_step(st)) == DB_ROW) {
		struct live_touch *t;
		const char *holder = db_column_text(st, 2);

		xgrow((void **)&live->items, &live->alloc, live->count + 1,
		    sizeof(*t));
		t = &live->items[live->count++];
		t->glob = xstrdup(db_column_text(st, 0));
		t->task = db_column_int(st, 1);
		t->holder = xstrdup(holder ? holder : "nobody");
	}
	db_reset(st);
	live->loaded = true;
	if (rc != DB_DONE)
		return db_error(ledger, rc, err, "reading claims");
	return 0;
}

/*
 * Find a live claim (other than task id itself) whose touches overlap the
 * touches of task id. Returns the index in live, or -1 when none.
 */
static int
find_overlap(struct ledger *ledger, int64_t id, int64_t now,
    struct live_touches *live, char **mine, struct err *err)
{
	struct db_stmt *st;
	int rc, found = -1;

	if (!live->loaded && (rc = live_touches_load(ledger, now, live, err)) < 0)
		return rc;
	if (live->count == 0)
		return -1;
	if ((rc = db_prepare(ledger, "SELECT glob FROM touches WHERE task = ?",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	while (found < 0 && (rc = db_step(st)) == DB_ROW) {
		const char *glob = db_column_text(st, 0);

		for (size_t i = 0; i < live->count; i++) {
			if (live->items[i].task != id &&
			    glob_overlap(glob, live->items[i].glob)) {
				found = (int)i;
				if (mine)
					*mine = xstrdup(glob);
				break;
			}
		}
	}
	db_reset(st);
	return found;
}

/* A cursor over candidates in claim order. */
/*
 * Candidates are read a page at a time (LIMIT ?5, then after the last row
 * read: ?3, ?4), so that a claim never reads more than it looks at: a
 * PostgreSQL statement sends all its rows before the first is read, and
 * every ready task would cross the socket on every claim.
 */
#define CANDIDATE_PAGE 32

struct cursor {
	struct db_stmt *st;
	bool has_row;
	int64_t id, priority;
	bool has_touches;
	bool lapsed;           /* open tasks: some claim's lease has run out */
	int64_t rows;          /* read from the current page */
};

static int
cursor_step(struct ledger *ledger, struct cursor *c, struct err *err)
{
	int rc = db_step(c->st);

	if (rc == DB_DONE && c->rows == CANDIDATE_PAGE) {
		/* A full page read: the next one, after its last row. */
		db_reset(c->st);
		db_bind_int(c->st, 3, c->priority);
		db_bind_int(c->st, 4, c->id);
		c->rows = 0;
		rc = db_step(c->st);
	}
	c->has_row = rc == DB_ROW;
	if (c->has_row) {
		c->rows++;
		c->id = db_column_int(c->st, 0);
		c->priority = db_column_int(c->st, 1);
		c->has_touches = db_column_int(c->st, 2) != 0;
		if (c->rows == 1 && db_column_count(c->st) > 3)
			c->lapsed = db_column_int(c->st, 3) != 0;
		return 0;
	}
	if (rc != DB_DONE)
		return db_error(ledger, rc, err, "finding ready tasks");
	return 0;
}

/* Whether a comes before b in claim order. */
static bool
before(const struct cursor *a, const struct cursor *b)
{
	if (!b->has_row)
		return true;
	if (a->priority != b->priority)
		return a->priority > b->priority;
	return a->id < b->id;
}

/* A column of the open tasks: whether some claim's lease has run out. */
#define ANY_LAPSED \
	", EXISTS (SELECT 1 FROM tasks INDEXED BY tasks_claimed_lease" \
	" WHERE state = 'claimed' AND lease_expires_ms <= ?2)"

int
task_ready_each(struct ledger *ledger, const char *label, int64_t agent,
    int64_t now, int (*fn)(int64_t id, bool open, void *arg), void *arg,
    struct err *err)
{
	/*
	 * Two ordered streams merged: open tasks through the tasks_ready
	 * index, and the (few) claims whose lease has run out. The first
	 * says whether there are any of those (lapsed): when there are none,
	 * the second is not read, so a claim takes one statement (one round
	 * trip with the write lock held) and SQLite sorts nothing.
	 */
	/*
	 * INDEXED BY: without statistics the planner prefers tasks_state and
	 * a sort of every open task; the partial index is already in claim
	 * order, so the first row is the answer.
	 */
	static const char open_sql[] =
	    "SELECT id, priority, has_touches" ANY_LAPSED
	    " FROM tasks INDEXED BY tasks_ready"
	    " WHERE state = 'open' AND unmet_deps = 0 AND CAST(?1 AS TEXT) IS NULL"
	    " AND (not_before_ms IS NULL OR not_before_ms <= ?2)"
	    " AND (CAST(?3 AS BIGINT) IS NULL OR priority < ?3"
	    "  OR (priority = ?3 AND id > ?4))"
	    " ORDER BY priority DESC, id LIMIT ?5";
	static const char open_label_sql[] =
	    "SELECT id, priority, has_touches" ANY_LAPSED
	    " FROM tasks INDEXED BY tasks_ready"
	    " WHERE state = 'open' AND unmet_deps = 0 AND id IN"
	    " (SELECT task FROM labels WHERE label = ?1)"
	    " AND (not_before_ms IS NULL OR not_before_ms <= ?2)"
	    " AND (CAST(?3 AS BIGINT) IS NULL OR priority < ?3"
	    "  OR (priority = ?3 AND id > ?4))"
	    " ORDER BY priority DESC, id LIMIT ?5";
	static const char expired_sql[] =
	    "SELECT id, priority, has_touches FROM tasks"
	    " INDEXED BY tasks_claimed_lease"
	    " WHERE state = 'claimed' AND lease_expires_ms <= ?2"
	    " AND unmet_deps = 0 AND attempts < max_attempts"
	    " AND (CAST(?1 AS TEXT) IS NULL OR id IN"
	    "  (SELECT task FROM labels WHERE label = ?1))"
	    " AND (CAST(?3 AS BIGINT) IS NULL OR priority < ?3"
	    "  OR (priority = ?3 AND id > ?4))"
	    " ORDER BY priority DESC, id LIMIT ?5";
	struct cursor open = { 0 }, expired = { 0 };
	struct live_touches live = { .agent = agent };
	int rc;

	if ((rc = db_prepare(ledger, label ? open_label_sql : open_sql,
	    &open.st, err)) < 0)
		return rc;
	if ((rc = db_prepare(ledger, expired_sql, &expired.st, err)) < 0)
		return rc;
	db_reset(open.st);
	if (label) {
		db_bind_text(open.st, 1, label);
		db_bind_text(expired.st, 1, label);
	}
	db_bind_int(open.st, 2, now);
	db_bind_int(expired.st, 2, now);
	db_bind_int(open.st, 5, CANDIDATE_PAGE);
	db_bind_int(expired.st, 5, CANDIDATE_PAGE);
	/* No open task says nothing of lapsed claims: then look. */
	if ((rc = cursor_step(ledger, &open, err)) < 0 ||
	    ((!open.has_row || open.lapsed) &&
		(rc = cursor_step(ledger, &expired, err)) < 0))
		goto done;
	while (open.has_row || expired.has_row) {
		struct cursor *c = open.has_row && before(&open, &expired)
				       ? &open : &expired;
		int64_t id = c->id;

		if (c->has_touches) {
			int overlap = find_overlap(ledger, id, now, &live, NULL, err);

			if (overlap < -1) {
				rc = overlap;
				goto done;
			}
			if (overlap >= 0) {
				if ((rc = cursor_step(ledger, c, err)) < 0)
					goto done;
				continue;
			}
		}
		if ((rc = fn(id, c == &open, arg)) != 0)
			goto done;
		if ((rc = cursor_step(ledger, c, err)) < 0)
			goto done;
	}
	rc = 0;
done:
	db_reset(open.st);
	db_reset(expired.st);
	live_touches_release(&live);
	return rc;
}

/* The current state of a task, for deciding inside a transaction. */
struct task_now {
	char state[16];
	int64_t owner;
	char *owner_name;
	int64_t lease_expires_ms;
	int64_t attempts, max_attempts, unmet_deps;
	bool has_touches;
};

static int
read_now(struct ledger *ledger, int64_t id, struct task_now *now,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	memset(now, 0, sizeof(*now));
	if ((rc = db_prepare(ledger,
	    "SELECT t.state, t.owner, a.name, t.lease_expires_ms, t.attempts,"
	    " t.max_attempts, t.unmet_deps, t.has_touches"
	    " FROM tasks t LEFT JOIN agents a ON a.id = t.owner WHERE t.id = ?",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	rc = db_step(st);
	if (rc == DB_ROW) {
		const char *name = db_column_text(st, 2);

		snprintf(now->state, sizeof(now->state), "%s",
		    db_column_text(st, 0));
		now->owner = db_column_int(st, 1);
		now->owner_name = name ? xstrdup(name) : NULL;
		now->lease_expires_ms = db_column_int(st, 3);
		now->attempts = db_column_int(st, 4);
		now->max_attempts = db_column_int(st, 5);
		now->unmet_deps = db_column_int(st, 6);
		now->has_touches = db_column_int(st, 7) != 0;
	}
	db_reset(st);
	return task_row_end(ledger, rc, id, err);
}

/*
 * A claim whose lease ran out is taken over: record that, and fail the task
 * instead when its attempts are spent. *failed tells which.
 */
static int
expire_claim(struct ledger *ledger, int64_t actor, int64_t id,
    const struct task_now *now, int64_t at, bool *failed, struct err *err)
{
	int rc;

	*failed = now->attempts >= now->max_attempts;
	rc = event_append(ledger, actor, "lease-expired", id,
	    json_pack("{s:s?, s:I}", "owner", now->owner_name, "expired_ms",
		(json_int_t)now->lease_expires_ms), err);
	if (rc < 0 || !*failed)
		return rc;
	TASK_MOVE_CHECK(now->state, "failed");
	if ((rc = db_write(ledger, "UPDATE tasks SET state = 'failed',"
		 " lease_expires_ms = NULL, updated_ms = ?2 WHERE id = ?1", id, at,
		 NULL, "failing a task", err)) < 0)
		return rc;
	return event_append(ledger, actor, "fail", id,
	    json_pack("{s:s, s:I}", "reason", "attempts exhausted", "attempts",
		(json_int_t)now->attempts), err);
}

/*
 * Give task id, read in this transaction to be in state from, to agent
 * under terms, for max_hold_ms (settle_terms()). The trunk's commit
 * (terms->base) is kept as the base that reported work must be new
 * against. Both writes go with the transaction's COMMIT.
 */
static int
take(struct ledger *ledger, int64_t agent, int64_t id, const char *from,
    const struct claim_terms *terms, int64_t max_hold_ms, int64_t at,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	TASK_MOVE_CHECK(from, "claimed");
	if ((rc = db_prepare(ledger,
	    "UPDATE tasks SET state = 'claimed', owner = ?2, lease_ms = ?3,"
	    " lease_expires_ms = ?4 + ?3, attempts = attempts + 1,"
	    " report_commit = NULL, report_note = NULL, block_reason = NULL,"
	    " not_before_ms = NULL, updated_ms = ?4, claim_base = ?5,"
	    " claim_named_ms = ?4, max_hold_ms = ?6 WHERE id = ?1",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	db_bind_int(st, 2, agent);
	db_bind_int(st, 3, terms->lease_ms);
	db_bind_int(st, 4, at);
	if (terms->base)
		db_bind_text(st, 5, terms->base);
	db_bind_int(st, 6, max_hold_ms);
	if ((rc = db_step_later(ledger, st, "claiming a task", err)) < 0)
		return rc;
	/* Keys in order: event_append() need not sort them. */
	return event_append(ledger, agent, "claim", id,
	    json_pack("{s:s?, s:I, s:I}", "base", terms->base, "lease_ms",
		(json_int_t)terms->lease_ms, "max_hold_ms",
		(json_int_t)max_hold_ms), err);
}

/*
 * ERR_USAGE: what (an option or a setting) asks for ms, past limit_ms,
 * which is times the "max-lease" setting.
 */
static int
err_lease_too_long(struct err *err, const char *what, int64_t ms,
    int64_t limit_ms, int times)
{
	struct buf asked = BUF_INIT, limit = BUF_INIT;
	int rc;

	clock_add_duration(&asked, ms);
	clock_add_duration(&limit, limit_ms);
	rc = err_set(err, ERR_USAGE, "%s %s is longer than %s (%sthe ledger's "
	    "'max-lease'; a person may raise it: daicho config max-lease DUR)",
	    what, asked.buf, limit.buf, times > 1 ? "three times " : "");
	buf_release(&asked);
	buf_release(&limit);
	return rc;
}

int
task_lease_allowed(struct ledger *ledger, int64_t lease_ms,
    int64_t max_hold_ms, struct err *err)
{
	int64_t max_lease = TASK_DEFAULT_MAX_LEASE_MS;
	bool found = false;
	int rc;

	if ((rc = settings_number(ledger, "max-lease", &max_lease, &found,
	    err)) < 0)
		return rc;
	if (lease_ms > max_lease)
		return err_lease_too_long(err, "--lease", lease_ms, max_lease, 1);
	if (max_hold_ms > max_lease * TASK_MAX_HOLD_LEASES)
		return err_lease_too_long(err, "--max-hold", max_hold_ms,
		    max_lease * TASK_MAX_HOLD_LEASES, TASK_MAX_HOLD_LEASES);
	return 0;
}

/*
 * Settle what terms leave to the ledger, from settings, the one read of the
 * settings (settings_read_ahead(); NULL when terms need none): a lease of
 * 0 becomes the "lease" setting, else
 * TASK_DEFAULT_LEASE_MS; *max_hold_ms, the maximum hold a new claim gets,
 * is terms->max_hold_ms, else the "max-hold" setting, else
 * TASK_MAX_HOLD_LEASES leases (so the claim's event can say it without
 * reading the row back); a base of NULL becomes the trunk's commit
 * (task_trunk_tip() of the "trunk" setting), kept in base, or stays NULL
 * when there is none. terms->max_hold_ms itself is left as asked: a
 * renewal changes the hold only when asked to.
 */
static int
settle_terms(struct ledger *ledger, struct db_stmt *settings,
    struct claim_terms *terms, int64_t *max_hold_ms, struct buf *base,
    struct err *err)
{
	static const char *const keys[] = { "lease", "max-hold", "trunk",
		"remote", "max-lease" };
	struct buf values[5] = { BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT,
		BUF_INIT };
	bool found[5] = { false, false, false, false, false };
	bool lease_asked = terms->lease_ms != 0;
	int64_t max_lease;
	int rc = 0;

	if (settings != NULL && (rc = settings_values_read(ledger, settings,
	    keys, 5, values, found, err)) < 0)
		goto done;
	if (terms->lease_ms == 0)
		terms->lease_ms = found[0] ? strtoll(values[0].buf, NULL, 10)
					   : TASK_DEFAULT_LEASE_MS;
	*max_hold_ms = terms->max_hold_ms;
	if (*max_hold_ms == 0)
		*max_hold_ms = found[1] ? strtoll(values[1].buf, NULL, 10)
					: terms->lease_ms * TASK_MAX_HOLD_LEASES;
	/* No lease, and no hold, past the ledger's bound (a claim that
	 * outlives its worker is the accident). */
	max_lease = found[4] ? strtoll(values[4].buf, NULL, 10)
			     : TASK_DEFAULT_MAX_LEASE_MS;
	if (terms->lease_ms > max_lease) {
		rc = err_lease_too_long(err, lease_asked ? "--lease"
		    : "the 'lease' setting", terms->lease_ms, max_lease, 1);
		goto done;
	}
	if (*max_hold_ms > max_lease * TASK_MAX_HOLD_LEASES) {
		rc = err_lease_too_long(err, terms->max_hold_ms ? "--max-hold"
		    : "the 'max-hold' setting", *max_hold_ms,
		    max_lease * TASK_MAX_HOLD_LEASES, TASK_MAX_HOLD_LEASES);
		goto done;
	}
	/* A few small files, no process. */
	if (terms->base == NULL &&
	    task_trunk_tip(ledger, found[2] ? values[2].buf : NULL,
		task_trunk_remote(ledger, found[3] ? values[3].buf : NULL),
		base) == 0)
		terms->base = base->buf;
done:
	for (size_t i = 0; i < 5; i++)
		buf_release(&values[i]);
	return rc;
}

/*
 * settle_terms(), unless *settled already; sets *settled. A claim settles
 * its terms before the write lock, or, when its settings went ahead,
 * once the transaction's first statement (which brought their answer
 * too) is read.
 */
static int
settle_once(struct ledger *ledger, struct db_stmt *settings, bool *settled,
    struct claim_terms *terms, int64_t *max_hold_ms, struct buf *base,
    struct err *err)
{
	int rc = 0;

	if (!*settled &&
	    (rc = settle_terms(ledger, settings, terms, max_hold_ms, base, err)) == 0)
		*settled = true;
	return rc;
}

const char *
task_trunk_remote(struct ledger *ledger, const char *setting)
{
	if (setting != NULL)
		return strcmp(setting, "none") == 0 ? NULL : setting;
	return ledger_is_shared(ledger) ? "origin" : NULL;
}

int
task_trunk_now(struct ledger *ledger, struct buf *out)
{
	static const char *const keys[] = { "trunk", "remote" };
	struct buf values[2] = { BUF_INIT, BUF_INIT };
	struct err ignored = ERR_INIT;
	bool found[2] = { false, false };
	int rc = 1;

	buf_reset(out);
	if (settings_values(ledger, keys, 2, values, found, &ignored) == 0)
		rc = task_trunk_tip(ledger, found[0] ? values[0].buf : NULL,
		    task_trunk_remote(ledger, found[1] ? values[1].buf : NULL), out);
	buf_release(&values[0]);
	buf_release(&values[1]);
	err_release(&ignored);
	return rc;
}

int
task_trunk_tip(struct ledger *ledger, const char *trunk, const char *remote,
    struct buf *out)
{
	struct buf git_dir = BUF_INIT, ref = BUF_INIT, branch = BUF_INIT;
	int rc = 1;

	if (ledger_git_dir(ledger, &git_dir) != 0)
		goto done;
	if (trunk != NULL)
		buf_adds(&branch, trunk);
	/* A remote's trunk, as this clone last fetched it (core/land.h). */
	if (remote != NULL && remote[0] != '\0' && strcmp(remote, "none") != 0 &&
	    (branch.len > 0 || gitref_head_branch(git_dir.buf, &branch) == 0)) {
		buf_addf(&ref, "refs/remotes/%s/%s", remote, branch.buf);
		if (gitref_read(git_dir.buf, ref.buf, out) == 0) {
			rc = 0;
			goto done;
		}
		buf_reset(&ref);
		buf_reset(&branch);
		if (trunk != NULL)
			buf_adds(&branch, trunk);
	}
	if (branch.len > 0)
		buf_addf(&ref, "refs/heads/%s", branch.buf);
	else
		buf_adds(&ref, "HEAD");
	/*
	 * A main work tree with no branch out (detached at an older commit)
	 * says nothing about the trunk: main, or master, is it then.
	 */
	if (branch.len == 0 && gitref_head_is_detached(git_dir.buf) == 1 &&
	    (gitref_read(git_dir.buf, "refs/heads/main", out) == 0 ||
		gitref_read(git_dir.buf, "refs/heads/master", out) == 0)) {
		rc = 0;
		goto done;
	}
	if (gitref_read(git_dir.buf, ref.buf, out) == 0) {
		rc = 0;
	} else {
		/*
		 * Stored some other way (reftable), or unreadable: ask git,
		 * which costs a process, but only then.
		 */
		struct buf root = BUF_INIT;

		ledger_project_root(ledger, &root);
		buf_adds(&ref, "^{commit}");
		if (git_rev_parse(root.buf, ref.buf, out) == 0)
			rc = 0;
		buf_release(&root);
	}
done:
	buf_release(&git_dir);
	buf_release(&ref);
	buf_release(&branch);
	return rc;
}

/* The first task claim --next may take, and whether it is open. */
struct next_task {
	int64_t id;
	bool open;
};

static int
first_ready(int64_t id, bool open, void *arg)
{
	struct next_task *next = arg;

	next->id = id;
	next->open = open;
	return 1;
}

/* Why nothing is ready: a message for claim --next. */
static int
nothing_ready(struct ledger *ledger, const char *label, struct err *err)
{
	struct db_stmt *st = NULL;
	int64_t open = 0, busy = 0;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT count(*) FILTER (WHERE state = 'open'),"
	    " count(*) FILTER (WHERE state IN ('claimed','reported','blocked'))"
	    " FROM tasks WHERE CAST(?1 AS TEXT) IS NULL OR id IN"
	    " (SELECT task FROM labels WHERE label = ?1)", &st, err)) < 0)
		return rc;
	if (label)
		db_bind_text(st, 1, label);
	rc = db_step(st);
	if (rc == DB_ROW) {
		open = db_column_int(st, 0);
		busy = db_column_int(st, 1);
	}
	db_reset(st);
	if (open > 0)
		return err_set(err, ERR_NOT_FOUND,
		    "nothing ready (%lld open task%s waiting on unverified tasks "
		    "or overlap live claims or reservations; see 'daicho ls --state open')",
		    (long long)open, open == 1 ? "" : "s");
	if (busy > 0)
		return err_set(err, ERR_NOT_FOUND,
		    "nothing ready (%lld task%s claimed, reported or blocked; none "
		    "open%s)", (long long)busy, busy == 1 ? " is" : "s are",
		    label ? " with that label" : "");
	return err_set(err, ERR_NOT_FOUND, "nothing ready (no open tasks%s)",
	    label ? " with that label" : "");
}

/* Explain why task id cannot be claimed by agent now, or return 0. */
static int
claimable(struct ledger *ledger, int64_t agent, int64_t id,
    const struct task_now *now, int64_t at, struct err *err)
{
	bool live = strcmp(now->state, "claimed") == 0 &&
		    now->lease_expires_ms > at;

	if (live && now->owner != agent) {
		struct buf left = BUF_INIT;
		int rc;

		clock_add_remaining(&left, now->lease_expires_ms - at);
		rc = err_set(err, ERR_CONFLICT,
		    "task #%lld is claimed by %s (lease ends in %s; pick another "
		    "with 'daicho claim --next')", (long long)id,
		    now->owner_name ? now->owner_name : "another agent", left.buf);
		buf_release(&left);
		return rc;
	}
	if (strcmp(now->state, "open") != 0 && strcmp(now->state, "claimed") != 0)
		return err_set(err, ERR_CONFLICT,
		    "task #%lld is %s (only open tasks can be claimed)",
		    (long long)id, now->state);
	if (now->unmet_deps > 0)
		return err_set(err, ERR_CONFLICT,
		    "task #%lld waits on %lld unverified task%s (see 'daicho show "
		    "%lld')", (long long)id, (long long)now->unmet_deps,
		    now->unmet_deps == 1 ? "" : "s", (long long)id);
	if (strcmp(now->state, "claimed") == 0 &&
	    now->attempts >= now->max_attempts && now->owner != agent)
		return err_set(err, ERR_CONFLICT,
		    "task #%lld has used all %lld attempts", (long long)id,
		    (long long)now->max_attempts);
	if (now->has_touches) {
		struct live_touches touches = { .agent = agent };
		char *mine = NULL;
		int overlap = find_overlap(ledger, id, at, &touches, &mine, err);
		int rc = overlap < -1 ? overlap : 0;

		if (overlap >= 0 && touches.items[overlap].task == 0)
			rc = err_set(err, ERR_CONFLICT,
			    "task #%lld touches %s, which overlaps %s reserved by %s "
			    "(wait for it to be released)", (long long)id, mine,
			    touches.items[overlap].glob,
			    touches.items[overlap].holder);
		else if (overlap >= 0)
			rc = err_set(err, ERR_CONFLICT,
			    "task #%lld touches %s, which overlaps %s held by %s for "
			    "#%lld (wait for it to be verified or released)",
			    (long long)id, mine, touches.items[overlap].glob,
			    touches.items[overlap].holder,
			    (long long)touches.items[overlap].task);
		free(mine);
		live_touches_release(&touches);
		return rc;
	}
	return 0;
}

int
task_scope_conflict(struct ledger *ledger, int64_t id, int64_t holder,
    struct err *err)
{
	struct live_touches touches = { .agent = holder };
	char *mine = NULL;
	int overlap = find_overlap(ledger, id, clock_now_ms(), &touches, &mine,
	    err);
	/* -1 is "none", and -ERR_FAILED too: the error says which. */
	int rc = overlap < 0 && err->code != ERR_OK ? -(int)err->code : 0;
	struct buf task = BUF_INIT;

	if (overlap >= 0) {
		if (touches.items[overlap].task != 0)
			buf_addf(&task, " for #%lld",
			    (long long)touches.items[overlap].task);
		rc = err_set(err, ERR_CONFLICT, "task #%lld is held, and %s would "
		    "overlap %s, %s by %s%s (two live claims never overlap; "
		    "nothing was changed)", (long long)id, mine,
		    touches.items[overlap].glob, touches.items[overlap].task
		    ? "held" : "reserved", touches.items[overlap].holder,
		    task.buf);
	}
	buf_release(&task);
	free(mine);
	live_touches_release(&touches);
	return rc;
}

int
task_claim(struct ledger *ledger, int64_t agent, int64_t id, const char *label,
    const struct claim_terms *asked, int64_t *claimed, struct err *err)
{
	int64_t at = clock_now_ms();
	struct task_now now = { 0 };
	struct claim_terms terms = *asked;
	struct buf base = BUF_INIT;
	struct db_stmt *settings = NULL;
	int64_t max_hold_ms = 0;
	bool ahead = false, settled = false;
	int rc;

	if (terms.lease_ms < 0)
		return err_set(err, ERR_USAGE, "lease must be longer than 0");
	if (terms.max_hold_ms < 0)
		return err_set(err, ERR_USAGE, "max hold must be longer than 0");
	/*
	 * The settings are read before the write lock; through a pool the
	 * read goes in one write with the next statement instead, and the
	 * terms are settled once the transaction's first statement is
	 * answered: one wait fewer. They are always read: for what terms
	 * leave to the ledger, and for the "max-lease" bound on what they ask.
	 */
	if ((rc = settings_read_ahead(ledger, &settings, &ahead, err)) < 0)
		return rc;
	if ((!ahead && (rc = settle_once(ledger, settings, &settled, &terms,
	    &max_hold_ms, &base, err)) < 0) ||
	    (rc = ledger_begin_as(ledger, &agent, err)) < 0) {
		if (settings != NULL)
			db_reset(settings);
		buf_release(&base);
		return rc;
	}
	for (;;) {
		bool failed = false;
		struct next_task next = { id, false };

		free(now.owner_name);
		now.owner_name = NULL;
		if (id == 0) {
			rc = task_ready_each(ledger, label, agent, at, first_ready,
			    &next, err);
			if (rc < 0)
				goto fail;
			if (rc == 0) {
				rc = nothing_ready(ledger, label, err);
				goto fail;
			}
		}
		/*
		 * An open task from the walk was read in this transaction and
		 * is claimable as it stands; anything else is read and checked.
		 */
		if ((!next.open &&
			(rc = read_now(ledger, next.id, &now, err)) < 0) ||
		    (rc = settle_once(ledger, settings, &settled, &terms,
			&max_hold_ms, &base, err)) < 0)
			goto fail;
		if (next.open)
			goto take_it;
		if (strcmp(now.state, "claimed") == 0 && now.owner == agent &&
		    now.lease_expires_ms > at) {
			/*
			 * Already ours: renew, nothing else. Naming the task
			 * is the sign of life the maximum hold counts from.
			 */
			struct db_stmt *st = NULL;

			if ((rc = db_prepare(ledger,
			    "UPDATE tasks SET lease_ms = ?2, lease_expires_ms = ?3 + ?2,"
			    " claim_named_ms = ?3, max_hold_ms = coalesce(?4, max_hold_ms)"
			    " WHERE id = ?1", &st, err)) < 0)
				goto fail;
			db_bind_int(st, 1, next.id);
			db_bind_int(st, 2, terms.lease_ms);
			db_bind_int(st, 3, at);
			if (terms.max_hold_ms > 0)
				db_bind_int(st, 4, terms.max_hold_ms);
			if ((rc = db_step_done(ledger, st, "renewing a lease",
				 err)) < 0)
				goto fail;
			*claimed = next.id;
			break;
		}
		if ((rc = claimable(ledger, agent, next.id, &now, at, err)) < 0)
			goto fail;
		if (strcmp(now.state, "claimed") == 0 &&
		    (rc = expire_claim(ledger, agent, next.id, &now, at, &failed,
			 err)) < 0)
			goto fail;
		if (failed) {
			if (id == 0)
				continue;
			/* Keep the failure; refuse the claim. */
			free(now.owner_name);
			buf_release(&base);
			if ((rc = ledger_commit(ledger, err)) < 0)
				return rc;
			return err_set(err, ERR_CONFLICT,
			    "task #%lld has used all %lld attempts (it is now failed)",
			    (long long)id, (long long)now.max_attempts);
		}
take_it:
		if ((rc = take(ledger, agent, next.id,
			 next.open ? "open" : now.state, &terms, max_hold_ms,
			 at, err)) < 0)
			goto fail;
		*claimed = next.id;
		break;
	}
	free(now.owner_name);
	buf_release(&base);
	return ledger_commit(ledger, err);
fail:
	if (!settled)
		db_reset(settings);
	free(now.owner_name);
	buf_release(&base);
	ledger_rollback(ledger);
	return rc;
}

/*
 * Check that agent holds task id in one of the given states (NULL-ended),
 * for the named action. Fills *now.
 */
static int
require_holder(struct ledger *ledger, int64_t agent, int64_t id,
    const char *action, const char *const *states, struct task_now *now,
    struct err *err)
{
	int rc = read_now(ledger, id, now, err);
	bool state_ok = false;

	if (rc < 0)
		return rc;
	for (const char *const *s = states; *s; s++)
		if (strcmp(now->state, *s) == 0)
			state_ok = true;
	if (!state_ok)
		return err_set(err, ERR_CONFLICT,
		    "cannot %s task #%lld: it is %s%s%s%s", action, (long long)id,
		    now->state, now->owner_name ? " by " : "",
		    now->owner_name ? now->owner_name : "",
		    now->owner_name && now->owner == agent ? " (you)" : "");
	if (now->owner != agent)
		return err_set(err, ERR_CONFLICT,
		    "cannot %s task #%lld: it is held by %s, not you (only the "
		    "holder of the claim may %s it)", action, (long long)id,
		    now->owner_name ? now->owner_name : "nobody", action);
	return 0;
}

/* Run one UPDATE with ?1 = id, ?2 = now, ?3 = text (may be NULL). */
static int
update_task(struct ledger *ledger, const char *sql, int64_t id, int64_t at,
    const char *text, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger, sql, &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	db_bind_int(st, 2, at);
	if (text)
		db_bind_text(st, 3, text);
	return db_step_done(ledger, st, "updating a task", err);
}

/* Finish a one-change transaction: commit on success, else roll back. */
static int
finish(struct ledger *ledger, int rc, struct task_now *now, struct err *err)
{
	free(now->owner_name);
	if (rc < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	return ledger_commit(ledger, err);
}

int
task_release_claim(struct ledger *ledger, int64_t agent, int64_t id, struct err *err)
{
	static const char *const states[] = { "claimed", "blocked", NULL };
	struct task_now now = { 0 };
	int rc;

	if ((rc = ledger_begin_as(ledger, &agent, err)) < 0)
		return rc;
	if ((rc = require_holder(ledger, agent, id, "release", states, &now,
		 err)) < 0)
		return finish(ledger, rc, &now, err);
	TASK_MOVE_CHECK(now.state, "open");
	rc = update_task(ledger,
	    "UPDATE tasks SET state = 'open', owner = NULL, lease_ms = NULL,"
	    " lease_expires_ms = NULL, attempts = max(attempts - 1, 0),"
	    " block_reason = NULL, updated_ms = ?2 WHERE id = ?1",
	    id, clock_now_ms(), NULL, err);
	if (rc == 0)
		rc = event_append(ledger, agent, "release", id, NULL, err);
	return finish(ledger, rc, &now, err);
}

int
task_requeue(struct ledger *ledger, int64_t agent, int64_t id,
    const char *reason, int64_t retry_after_ms, int64_t limit, bool *failed,
    struct err *err)
{
	static const char *const states[] = { "claimed", NULL };
	struct task_now now = { 0 };
	int64_t at = clock_now_ms();
	int rc;

	*failed = false;
	if ((rc = ledger_begin_as(ledger, &agent, err)) < 0)
		return rc;
	if ((rc = require_holder(ledger, agent, id, "requeue", states, &now,
		 err)) < 0)
		return finish(ledger, rc, &now, err);
	*failed = now.attempts >= (limit > 0 && limit < now.max_attempts
					  ? limit : now.max_attempts);
	TASK_MOVE_CHECK(now.state, *failed ? "failed" : "open");
	if (*failed) {
		rc = update_task(ledger,
		    "UPDATE tasks SET state = 'failed', lease_expires_ms = NULL,"
		    " updated_ms = ?2 WHERE id = ?1", id, at, NULL, err);
	} else {
		struct db_stmt *st = NULL;

		if ((rc = db_prepare(ledger,
		    "UPDATE tasks SET state = 'open', owner = NULL, lease_ms = NULL,"
		    " lease_expires_ms = NULL, not_before_ms = ?2 + ?3,"
		    " updated_ms = ?2 WHERE id = ?1", &st, err)) < 0)
			return finish(ledger, rc, &now, err);
		db_bind_int(st, 1, id);
		db_bind_int(st, 2, at);
		db_bind_int(st, 3, retry_after_ms);
		rc = db_step_done(ledger, st, "requeueing a task", err);
	}
	if (rc == 0)
		rc = event_append(ledger, agent, *failed ? "fail" : "requeue", id,
		    json_pack("{s:s, s:I, s:I}", "reason", reason, "attempts",
			(json_int_t)now.attempts, "retry_after_ms",
			(json_int_t)(*failed ? 0 : retry_after_ms)), err);
	return finish(ledger, rc, &now, err);
}

int
task_block(struct ledger *ledger, int64_t agent, int64_t id,
    const char *reason, struct err *err)
{
	static const char *const states[] = { "claimed", NULL };
	struct task_now now = { 0 };
	int rc;

	if (reason == NULL || *reason == '\0')
		return err_set(err, ERR_USAGE,
		    "block needs a reason (--reason TEXT: what the human must do)");
	if ((rc = ledger_begin_as(ledger, &agent, err)) < 0)
		return rc;
	if ((rc = require_holder(ledger, agent, id, "block", states, &now,
		 err)) < 0)
		return finish(ledger, rc, &now, err);
	TASK_MOVE_CHECK(now.state, "blocked");
	rc = update_task(ledger,
	    "UPDATE tasks SET state = 'blocked', lease_expires_ms = NULL,"
	    " block_reason = ?3, updated_ms = ?2 WHERE id = ?1",
	    id, clock_now_ms(), reason, err);
	if (rc == 0)
		rc = event_append(ledger, agent, "block", id,
		    json_pack("{s:s}", "reason", reason), err);
	return finish(ledger, rc, &now, err);
}

int
task_cancel(struct ledger *ledger, int64_t agent, int64_t id,
    const char *reason, struct err *err)
{
	struct task_now now = { 0 };
	int rc;

	if ((rc = ledger_begin_as(ledger, &agent, err)) < 0)
		return rc;
	if ((rc = read_now(ledger, id, &now, err)) < 0)
		return finish(ledger, rc, &now, err);
	if (strcmp(now.state, "verified") == 0 ||
	    strcmp(now.state, "landed") == 0 ||
	    strcmp(now.state, "cancelled") == 0) {
		rc = err_set(err, ERR_CONFLICT,
		    "cannot cancel task #%lld: it is already %s", (long long)id,
		    now.state);
		return finish(ledger, rc, &now, err);
	}
	TASK_MOVE_CHECK(now.state, "cancelled");
	rc = update_task(ledger,
	    "UPDATE tasks SET state = 'cancelled', lease_expires_ms = NULL,"
	    " updated_ms = ?2 WHERE id = ?1", id, clock_now_ms(), NULL, err);
	if (rc == 0)
		rc = event_append(ledger, agent, "cancel", id,
		    json_pack("{s:s, s:s?}", "from", now.state, "reason", reason), err);
	return finish(ledger, rc, &now, err);
}

int
task_report(struct ledger *ledger, int64_t agent, int64_t id,
    const char *commit, const char *note, struct err *err)
{
	static const char *const states[] = { "claimed", NULL };
	struct task_now now = { 0 };
	struct db_stmt *st;
	int rc;

	if ((rc = ledger_begin_as(ledger, &agent, err)) < 0)
		return rc;
	if ((rc = require_holder(ledger, agent, id, "report", states, &now,
		 err)) < 0)
		return finish(ledger, rc, &now, err);
	TASK_MOVE_CHECK(now.state, "reported");
	if ((rc = db_prepare(ledger,
	    "UPDATE tasks SET state = 'reported', lease_expires_ms = NULL,"
	    " report_commit = ?3, report_note = ?4, updated_ms = ?2"
	    " WHERE id = ?1", &st, err)) < 0)
		return finish(ledger, rc, &now, err);
	db_bind_int(st, 1, id);
	db_bind_int(st, 2, clock_now_ms());
	if (commit)
		db_bind_text(st, 3, commit);
	if (note)
		db_bind_text(st, 4, note);
	rc = db_step_done(ledger, st, "reporting a task", err);
	if (rc == 0)
		rc = event_append(ledger, agent, "report", id,
		    json_pack("{s:s?, s:s?}", "commit", commit, "note", note), err);
	return finish(ledger, rc, &now, err);
}

int
task_save(struct ledger *ledger, int64_t agent, int64_t id,
    const void *result, size_t result_bytes, const struct task_usage *usage,
    struct err *err)
{
	static const char *const states[] = { "claimed", NULL };
	struct task_now now = { 0 };
	struct db_stmt *st;
	json_t *detail;
	int rc;

	if ((rc = ledger_begin_as(ledger, &agent, err)) < 0)
		return rc;
	if ((rc = require_holder(ledger, agent, id, "save", states, &now, err)) < 0)
		return finish(ledger, rc, &now, err);
	if ((rc = db_prepare(ledger,
	    "INSERT INTO saves (task, agent, at_ms, result, tokens_in, tokens_out,"
	    " cost, model) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", &st, err)) < 0)
		return finish(ledger, rc, &now, err);
	db_bind_int(st, 1, id);
	db_bind_int(st, 2, agent);
	db_bind_int(st, 3, clock_now_ms());
	db_bind_blob(st, 4, result ? result : "", result_bytes);
	if (usage->tokens_in >= 0)
		db_bind_int(st, 5, usage->tokens_in);
	if (usage->tokens_out >= 0)
		db_bind_int(st, 6, usage->tokens_out);
	if (usage->cost >= 0)
		db_bind_double(st, 7, usage->cost);
	if (usage->model)
		db_bind_text(st, 8, usage->model);
	if ((rc = db_step_done(ledger, st, "saving a result", err)) < 0)
		return finish(ledger, rc, &now, err);
	detail = json_pack("{s:I, s:I}", "save",
	    (json_int_t)db_last_insert_id(ledger), "bytes",
	    (json_int_t)result_bytes);
	if (usage->tokens_in >= 0)
		json_object_set_new(detail, "tokens_in", json_integer(usage->tokens_in));
	if (usage->tokens_out >= 0)
		json_object_set_new(detail, "tokens_out",
		    json_integer(usage->tokens_out));
	if (usage->cost >= 0)
		json_object_set_new(detail, "cost", json_real(usage->cost));
	if (usage->model)
		json_object_set_new(detail, "model", json_string(usage->model));
	rc = event_append(ledger, agent, "save", id, detail, err);
	return finish(ledger, rc, &now, err);
}

/*
 * Append column 0 of the first row of st (bound to id) to out. Returns 0,
 * 1 when there is no row, or a negative error.
 */
static int
read_blob(struct ledger *ledger, struct db_stmt *st, int64_t id, struct buf *out,
    struct err *err)
{
	int rc;

	db_bind_int(st, 1, id);
	rc = db_step(st);
	if (rc == DB_ROW)
		buf_add(out, db_column_blob(st, 0),
		    (size_t)db_column_bytes(st, 0));
	db_reset(st);
	if (rc == DB_DONE)
		return 1;
	if (rc != DB_ROW)
		return db_error(ledger, rc, err, "reading a task");
	return 0;
}

int
task_body(struct ledger *ledger, int64_t id, struct buf *out, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT body FROM tasks WHERE id = ?", &st, err)) < 0)
		return rc;
	if ((rc = read_blob(ledger, st, id, out, err)) == 1)
		return err_set(err, ERR_NOT_FOUND, "no task #%lld (see 'daicho ls')",
		    (long long)id);
	return rc;
}

int
task_answers(struct ledger *ledger, int64_t id, struct buf *out,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT coalesce(json_extract(detail, '$.question'), ''),"
	    " json_extract(detail, '$.answer') FROM events"
	    " WHERE task = ?1 AND kind = 'unblock'"
	    " AND json_extract(detail, '$.answer') IS NOT NULL ORDER BY id",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	while ((rc = db_step(st)) == DB_ROW) {
		buf_adds(out, "Q: ");
		buf_add_oneline(out, db_column_text(st, 0));
		buf_adds(out, "\nA: ");
		buf_adds(out, db_column_text(st, 1));
		buf_addch(out, '\n');
	}
	db_reset(st);
	return rc == DB_DONE ? 0 : db_error(ledger, rc, err, "reading answers");
}

int
task_land_note(struct ledger *ledger, int64_t id, struct buf *out,
    int64_t *tries, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*tries = 0;
	if ((rc = db_prepare(ledger,
	    "SELECT land_note, land_tries FROM tasks WHERE id = ?1"
	    " AND land_note IS NOT NULL AND state <> 'landed'", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	rc = db_step(st);
	if (rc == DB_ROW) {
		buf_adds(out, db_column_text(st, 0));
		*tries = db_column_int(st, 1);
	}
	db_reset(st);
	return rc == DB_ROW || rc == DB_DONE ? 0
	     : db_error(ledger, rc, err, "reading a task");
}

int
task_result(struct ledger *ledger, int64_t id, struct buf *out, struct err *err)
{
	struct db_stmt *st = NULL;
	struct task_now now;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT result FROM saves WHERE task = ? ORDER BY id DESC LIMIT 1",
	    &st, err)) < 0)
		return rc;
	if ((rc = read_blob(ledger, st, id, out, err)) != 1)
		return rc;
	/* Say "no task" when the task itself does not exist. */
	if ((rc = read_now(ledger, id, &now, err)) < 0)
		return rc;
	free(now.owner_name);
	return err_set(err, ERR_NOT_FOUND,
	    "no result saved for task #%lld (the holder saves one with "
	    "'daicho save')", (long long)id);
}
