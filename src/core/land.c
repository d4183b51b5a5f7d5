/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Landing (core/land.h). One file because the pass is one sequence
 * (recover, take a batch, merge, check, move the trunk by compare-and-swap,
 * record) over one struct of the pass's state; its lanes are land_lanes.c,
 * what both share land_internal.h.
 */
#include "core/land.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/db.h"
#include "core/event.h"
#include "core/gate.h"
#include "core/judge.h"
#include "core/land_internal.h"
#include "core/msg.h"
#include "core/settings.h"
#include "core/task.h"
#include "core/verify.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/git.h"
#include "util/gitmerge.h"
#include "util/gitref.h"
#include "util/glob.h"
#include "util/path.h"
#include "util/proc.h"
#include "util/strlist.h"

/* How long the land lock lasts past each renewal: a check's timeout more. */
#define LAND_LOCK_SLACK_MS (5 * 60 * 1000)
/* Times a batch is merged again after the trunk moved under it. */
#define LAND_RACE_TRIES 5

static const char *const mode_names[] = {
	[LAND_OFF] = "off", [LAND_MERGE] = "merge", [LAND_REBASE] = "rebase",
	[LAND_SQUASH] = "squash",
};

const char *
land_mode_name(enum land_mode mode)
{
	return mode_names[mode];
}


static void
config_release(struct land_config *c)
{
	buf_release(&c->check);
	buf_release(&c->trunk);
	buf_release(&c->remote);
}

/* Read the settings into c (released by the caller either way). */
static int
read_config(struct ledger *ledger, struct land_config *c, struct err *err)
{
	static const char *const keys[] = { "land", "land-check", "land-batch",
		"land-tries", "trunk", "remote", "land-check-timeout" };
	struct buf values[7] = { BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT,
		BUF_INIT, BUF_INIT, BUF_INIT };
	bool found[7] = { false };
	int rc;

	c->mode = LAND_MERGE;
	c->batch = LAND_DEFAULT_BATCH;
	c->tries = LAND_DEFAULT_TRIES;
	c->check_timeout_ms = VERIFY_DEFAULT_CHECK_TIMEOUT_MS;
	if ((rc = settings_values(ledger, keys, 7, values, found, err)) < 0)
		goto done;
	if (found[6])
		c->check_timeout_ms = strtoll(values[6].buf, NULL, 10);
	if (found[0])
		for (int m = LAND_OFF; m <= LAND_SQUASH; m++)
			if (strcmp(values[0].buf, mode_names[m]) == 0)
				c->mode = (enum land_mode)m;
	if (found[1])
		buf_adds(&c->check, values[1].buf);
	if (found[2])
		c->batch = strtoll(values[2].buf, NULL, 10);
	if (found[3])
		c->tries = strtoll(values[3].buf, NULL, 10);
	if (found[4])
		buf_adds(&c->trunk, values[4].buf);
	{
		const char *remote = task_trunk_remote(ledger,
		    found[5] ? values[5].buf : NULL);

		if (remote != NULL)
			buf_adds(&c->remote, remote);
		c->remote_explicit = found[5];
	}
done:
	for (size_t i = 0; i < 7; i++)
		buf_release(&values[i]);
	return rc;
}

int
land_mode(struct ledger *ledger, enum land_mode *mode, struct err *err)
{
	struct land_config c = { .check = BUF_INIT, .trunk = BUF_INIT,
		.remote = BUF_INIT };
	struct buf git_dir = BUF_INIT;
	int rc = 0;

	*mode = LAND_OFF;
	if (ledger_git_dir(ledger, &git_dir) == 0 &&
	    (rc = read_config(ledger, &c, err)) == 0)
		*mode = c.mode;
	config_release(&c);
	buf_release(&git_dir);
	return rc;
}

int
land_pause(struct ledger *ledger, int64_t actor, bool pause, struct err *err)
{
	int64_t changes = 0;
	int rc;

	if ((rc = ledger_begin_as(ledger, &actor, err)) < 0)
		return rc;
	rc = db_write(ledger, pause
	    ? "INSERT INTO land_lock (id, paused_ms, paused_by) VALUES (1, ?2, ?1)"
	      " ON CONFLICT (id) DO UPDATE SET paused_ms = ?2, paused_by = ?1"
	      " WHERE land_lock.paused_ms IS NULL"
	    : "UPDATE land_lock SET paused_ms = NULL, paused_by = NULL"
	      " WHERE id = 1 AND paused_ms IS NOT NULL AND ?1 IS NOT NULL",
	    actor, clock_now_ms(), &changes, "pausing landing", err);
	if (rc == 0 && changes == 0)
		rc = err_set(err, ERR_CONFLICT, pause
		    ? "landing is paused already (resume it with 'daicho land "
		      "--resume')"
		    : "landing is not paused (pause it with 'daicho land --pause')");
	if (rc == 0)
		rc = event_append(ledger, actor, pause ? "land-pause" : "land-resume",
		    0, NULL, err);
	if (rc < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	return ledger_commit(ledger, err);
}

int
land_paused(struct ledger *ledger, bool *paused, int64_t *since_ms,
    int64_t *by, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*paused = false;
	*since_ms = *by = 0;
	if ((rc = db_prepare(ledger,
	    "SELECT paused_ms, paused_by FROM land_lock WHERE id = 1"
	    " AND paused_ms IS NOT NULL", &st, err)) < 0)
		return rc;
	rc = db_step(st);
	if (rc == DB_ROW) {
		*paused = true;
		*since_ms = db_column_int(st, 0);
		*by = db_column_is_null(st, 1) ? 0 : db_column_int(st, 1);
	}
	db_reset(st);
	return rc == DB_ROW || rc == DB_DONE ? 0
	     : db_error(ledger, rc, err, "reading the landing lock");
}


static void
member_release(struct member *m)
{
	free(m->commit);
	free(m->title);
	free(m->landed);
}


/* Whether the pass should stop now. */
bool
land_stopping(const struct lander *l)
{
	return l->halt || (l->options->stop && *l->options->stop);
}

/*
 * The trunk's commit now into tip: the local branch's, or the remote's
 * branch as a fetch brings it. Returns 0, or -1 (err set).
 */
int
land_trunk_tip(struct lander *l, struct buf *tip, struct err *err)
{
	if (l->config.remote.len > 0) {
		struct buf refspec = BUF_INIT, why = BUF_INIT;
		int rc;

		buf_addf(&refspec, "+refs/heads/%s:%s", l->branch.buf, l->ref.buf);
		rc = git_fetch(l->root.buf, l->config.remote.buf, refspec.buf,
		    VERIFY_FETCH_TIMEOUT_MS, &why);
		if (rc < 0)
			err_set(err, ERR_FAILED, "cannot fetch the trunk %s from %s "
			    "(%s): nothing lands until it can", l->branch.buf,
			    l->config.remote.buf, why.buf);
		buf_release(&refspec);
		buf_release(&why);
		if (rc < 0)
			return -(int)err->code;
	}
	if (gitm_resolve(l->root.buf, l->ref.buf, tip) == 0)
		return 0;
	return err_set(err, ERR_FAILED, "cannot read the trunk %s in the "
	    "repository at %s", l->ref.buf, l->root.buf);
}

/*
 * Which work tree has the trunk (l->branch) out, if any, into
 * l->trunk_checkout: the main one, or a linked one (git allows one). It
 * follows every landing. Read again right before the trunk moves: a
 * person may check the trunk out meanwhile.
 */
static void
find_trunk_checkout(struct lander *l)
{
	struct buf head = BUF_INIT;
	struct stat st;

	buf_reset(&l->trunk_checkout);
	if (gitref_head_branch(l->git_dir.buf, &head) == 0 &&
	    strcmp(head.buf, l->branch.buf) == 0 &&
	    stat(l->root.buf, &st) == 0 && S_ISDIR(st.st_mode)) {
		buf_adds(&l->trunk_checkout, l->root.buf);
	} else {
		struct strlist paths = STRLIST_INIT, names = STRLIST_INIT;

		if (git_worktrees_on(l->root.buf, "refs/heads/", &paths,
		    &names) == 0)
			for (size_t i = 0; i < names.count; i++)
				if (strcmp(names.items[i], l->branch.buf) == 0 &&
				    l->trunk_checkout.len == 0)
					buf_adds(&l->trunk_checkout, paths.items[i]);
		strlist_release(&paths);
		strlist_release(&names);
	}
	buf_release(&head);
}

/*
 * The trunk's branch into l->branch: the "trunk" setting, else the branch
 * the main work tree has out, else main or master; and which work tree
 * has it out. Returns 0, or 1 when there is no such branch.
 */
static int
find_trunk(struct lander *l)
{
	struct buf head = BUF_INIT, hash = BUF_INIT;
	const char *out_branch = NULL;
	int rc = 1;

	if (gitref_head_branch(l->git_dir.buf, &head) == 0)
		out_branch = head.buf;
	buf_reset(&l->branch);
	if (l->config.trunk.len > 0)
		buf_adds(&l->branch, l->config.trunk.buf);
	else if (out_branch)
		buf_adds(&l->branch, out_branch);
	else if (gitref_read(l->git_dir.buf, "refs/heads/main", &hash) == 0)
		buf_adds(&l->branch, "main");
	else
		buf_adds(&l->branch, "master");
	buf_reset(&l->ref);
	if (l->config.remote.len > 0)
		buf_addf(&l->ref, "refs/remotes/%s/%s", l->config.remote.buf,
		    l->branch.buf);
	else
		buf_addf(&l->ref, "refs/heads/%s", l->branch.buf);
	find_trunk_checkout(l);
	{
		struct err ignored = ERR_INIT;

		buf_reset(&hash);
		if (land_trunk_tip(l, &hash, &ignored) == 0)
			rc = 0;
		err_release(&ignored);
	}
	buf_release(&head);
	buf_release(&hash);
	return rc;
}


/*
 * Take (or renew) the land lock for l->token until the longest check could
 * have ended. *held says whether it is ours. It is not taken while landing
 * is paused, nor from another lander that holds it and lives: one on
 * another host until its expiry, one on this host as long as its process
 * is there (whatever the expiry says, in both directions: a live one is
 * never taken over, a dead one at once).
 */
int
land_hold_lock(struct lander *l, bool *held, struct err *err)
{
	int64_t now = clock_now_ms(), actor = l->options->actor;
	char host[256] = "";
	struct buf seen = BUF_INIT;
	bool free_to_take = true, paused = false;
	struct db_stmt *st;
	int rc;

	*held = false;
	gethostname(host, sizeof(host) - 1);
	if ((rc = ledger_begin_as(l->ledger, &actor, err)) < 0)
		return rc;
	if ((rc = db_prepare(l->ledger,
	    "SELECT token, expires_ms, host, pid, pid_start, paused_ms IS NOT NULL"
	    " FROM land_lock WHERE id = 1", &st, err)) < 0)
		goto fail;
	rc = db_step(st);
	if (rc == DB_ROW) {
		const char *token = db_column_text(st, 0);
		const char *holder_host = db_column_text(st, 2);

		paused = db_column_int(st, 5) != 0;
		if (token != NULL && strcmp(token, l->token.buf) != 0) {
			buf_adds(&seen, token);
			if (holder_host && strcmp(holder_host, host) == 0)
				free_to_take = proc_start_time((pid_t)db_column_int(st,
				    3)) != (uint64_t)db_column_int(st, 4);
			else
				free_to_take = db_column_int(st, 1) < now;
		}
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE) {
		rc = db_error(l->ledger, rc, err, "reading the landing lock");
		goto fail;
	}
	if (paused || !free_to_take) {
		ledger_rollback(l->ledger);
		buf_release(&seen);
		return 0;
	}
	/* Taken from the holder seen, and from no other. */
	if ((rc = db_prepare(l->ledger,
	    "INSERT INTO land_lock (id, token, expires_ms, holder, host, pid,"
	    " pid_start) VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6)"
	    " ON CONFLICT (id) DO UPDATE SET token = ?1, expires_ms = ?2,"
	    " holder = ?3, host = ?4, pid = ?5, pid_start = ?6"
	    " WHERE land_lock.paused_ms IS NULL AND (land_lock.token IS NULL"
	    " OR land_lock.token = ?1 OR land_lock.token = ?7)",
	    &st, err)) < 0)
		goto fail;
	db_bind_text(st, 1, l->token.buf);
	db_bind_int(st, 2, now + l->longest_check_ms + LAND_LOCK_SLACK_MS);
	if (l->options->actor)
		db_bind_int(st, 3, l->options->actor);
	db_bind_text(st, 4, host);
	db_bind_int(st, 5, (int64_t)getpid());
	db_bind_int(st, 6, (int64_t)proc_start_time(getpid()));
	if (seen.len > 0)
		db_bind_text(st, 7, seen.buf);
	if ((rc = db_step_done(l->ledger, st, "taking the landing lock",
	    err)) < 0)
		goto fail;
	*held = db_changes(l->ledger) == 1;
	buf_release(&seen);
	return ledger_commit(l->ledger, err);
fail:
	buf_release(&seen);
	ledger_rollback(l->ledger);
	return rc;
}

/*
 * The land lock is no longer this lander's: a person paused landing (2:
 * stop quietly, l->halt set), or another lander took it (ERR_CONFLICT).
 */
int
land_lock_lost(struct lander *l, struct err *err)
{
	bool paused = false;
	int64_t since = 0, by = 0;
	int rc;

	if ((rc = land_paused(l->ledger, &paused, &since, &by, err)) < 0)
		return rc;
	if (paused) {
		l->stats->paused = true;
		l->halt = true;
		return 2;
	}
	return err_set(err, ERR_CONFLICT, "another lander took over the landing "
	    "lock: this one stops");
}

/*
 * Run sql (a string literal: a cached statement), a write binding ?1 =
 * text, in a transaction of its own, for what it is worth: a failure
 * leaves the ledger as it was and is not reported (the pass is ending or
 * stopping already).
 */
static void
write_best_effort(struct lander *l, const char *sql, const char *text,
    const char *what)
{
	struct err ignored = ERR_INIT;
	struct db_stmt *st;

	if (ledger_begin(l->ledger, &ignored) < 0)
		goto done;
	if (db_prepare(l->ledger, sql, &st, &ignored) < 0) {
		ledger_rollback(l->ledger);
		goto done;
	}
	db_bind_text(st, 1, text);
	if (db_step_done(l->ledger, st, what, &ignored) < 0)
		ledger_rollback(l->ledger);
	else
		ledger_commit(l->ledger, &ignored);
done:
	err_release(&ignored);
}

/* Let the land lock go, if it is still ours. */
static void
drop_lock(struct lander *l)
{
	write_best_effort(l, "UPDATE land_lock SET token = NULL,"
	    " expires_ms = NULL, holder = NULL WHERE id = 1 AND token = ?1",
	    l->token.buf, "letting the landing lock go");
}

/*
 * The first count tasks of the queue (count 0: all), in its order, into
 * *out (*n of them); with waiting false, not those whose landing waits for
 * a person (set aside in this pass).
 */
static int
read_queue(struct lander *l, int64_t count, bool waiting, struct member **out,
    size_t *n, struct err *err)
{
	struct db_stmt *st;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = ledger_begin_read(l->ledger, err)) < 0)
		return rc;
	if ((rc = db_prepare(l->ledger,
	    "SELECT id, report_commit, title, owner, check_timeout_ms"
	    " FROM tasks WHERE state = 'verified' AND land_queued_ms IS NOT NULL"
	    " AND (?2 <> 0 OR land_waiting IS NULL)"
	    " ORDER BY land_queued_ms, id LIMIT ?1", &st, err)) < 0)
		goto done;
	db_bind_int(st, 1, count > 0 ? count : INT64_MAX);
	db_bind_int(st, 2, waiting);
	while ((rc = db_step(st)) == DB_ROW) {
		struct member *m;
		const char *commit = db_column_text(st, 1);

		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		m = &(*out)[(*n)++];
		memset(m, 0, sizeof(*m));
		m->id = db_column_int(st, 0);
		m->commit = xstrdup(commit ? commit : "");
		m->title = xstrdup(db_column_text(st, 2));
		m->holder = db_column_is_null(st, 3) ? 0 : db_column_int(st, 3);
		m->timeout_ms = db_column_is_null(st, 4)
				    ? VERIFY_DEFAULT_CHECK_TIMEOUT_MS
				    : db_column_int(st, 4);
	}
	db_reset(st);
	rc = rc == DB_DONE ? 0 : db_error(l->ledger, rc, err,
	    "reading the landing queue");
done:
	ledger_rollback(l->ledger);
	return rc;
}

static void
members_free(struct member *members, size_t n)
{
	for (size_t i = 0; i < n; i++)
		member_release(&members[i]);
	free(members);
}

/* What mark_batch() records on the tasks of a batch. */
enum mark {
	MARK_BEGIN, /* being landed by this pass, from the trunk at text */
	MARK_WAIT,  /* its landing waits for a person: text says why; what
		     * marked it as being landed stays, for recover() */
	MARK_CLEAR, /* no longer being landed */
};

/*
 * Mark the tasks of a batch as mark says. A task being landed carries the
 * trunk it started from (land_base) and this pass's token (land_token: the
 * lines of the commits the pass makes carry it), until it lands, is sent
 * back, or recover() finds out what became of it.
 */
static int
mark_batch(struct lander *l, struct member **batch, size_t n, enum mark mark,
    const char *text, struct err *err)
{
	static const char *const sql[] = {
		[MARK_BEGIN] = "UPDATE tasks SET land_base = ?2, land_token = ?3"
			       " WHERE id = ?1 AND state = 'verified'"
			       " AND land_queued_ms IS NOT NULL",
		[MARK_WAIT] = "UPDATE tasks SET land_waiting = ?2"
			      " WHERE id = ?1 AND state = 'verified'"
			      " AND land_queued_ms IS NOT NULL",
		[MARK_CLEAR] = "UPDATE tasks SET land_base = NULL,"
			       " land_token = NULL WHERE id = ?1"
			       " AND state = 'verified'"
			       " AND land_queued_ms IS NOT NULL",
	};
	int rc;

	if ((rc = ledger_begin(l->ledger, err)) < 0)
		return rc;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct db_stmt *st = NULL;

		if ((rc = db_prepare(l->ledger, sql[mark], &st, err)) < 0)
			break;
		db_bind_int(st, 1, batch[i]->id);
		if (mark != MARK_CLEAR)
			db_bind_text(st, 2, text);
		if (mark == MARK_BEGIN)
			db_bind_text(st, 3, l->token.buf);
		rc = db_step_done(l->ledger, st, "marking a landing", err);
	}
	if (rc < 0) {
		ledger_rollback(l->ledger);
		return rc;
	}
	return ledger_commit(l->ledger, err);
}

/*
 * Record that m landed in trunk commit m->landed, the trunk having moved
 * from before to after, in one transaction: landed, its dependents
 * released, a "landed" event. A task no longer queued is left alone.
 */
static int
record_landed(struct lander *l, struct member *m, const char *before,
    const char *after, json_t *batch_ids, struct err *err)
{
	int64_t now = clock_now_ms(), changes = 0, actor = l->options->actor;
	struct db_stmt *st;
	int rc;

	if ((rc = ledger_begin_as(l->ledger, &actor, err)) < 0)
		return rc;
	/* The WHERE names the state: a task in any other is left alone. */
	TASK_MOVE_CHECK("verified", "landed");
	if ((rc = db_prepare(l->ledger,
	    "UPDATE tasks SET state = 'landed', landed_commit = ?2,"
	    " landed_trunk = ?3, landed_ms = ?4, land_base = NULL,"
	    " land_token = NULL,"
	    " land_waiting = NULL, land_note = NULL, updated_ms = ?4"
	    " WHERE id = ?1 AND state = 'verified' AND land_queued_ms IS NOT NULL",
	    &st, err)) < 0)
		goto fail;
	db_bind_int(st, 1, m->id);
	db_bind_text(st, 2, m->landed);
	db_bind_text(st, 3, l->branch.buf);
	db_bind_int(st, 4, now);
	if ((rc = db_step_done(l->ledger, st, "landing", err)) < 0)
		goto fail;
	changes = db_changes(l->ledger);
	if (changes == 0) {
		ledger_rollback(l->ledger);
		return 0;
	}
	if ((rc = task_release_dependents(l->ledger, m->id, err)) < 0 ||
	    (rc = event_append(l->ledger, actor, "landed", m->id,
		 json_pack("{s:s, s:s, s:s, s:s?, s:s, s:O?}", "commit", m->commit,
		     "landed", m->landed, "trunk", l->branch.buf, "before", before,
		     "after", after, "batch", batch_ids), err)) < 0)
		goto fail;
	if ((rc = ledger_commit(l->ledger, err)) == 0)
		l->stats->landed++;
	return rc;
fail:
	ledger_rollback(l->ledger);
	return rc;
}

/*
 * Send m back: open again with no attempt spent (failed once the landing
 * tries are used up), land_note saying why for its prompt, an event kind
 * ("land-conflict" or "land-failed") with detail, and a message to its last
 * holder when it is live.
 */
static int
send_back(struct lander *l, struct member *m, const char *kind,
    const char *note, json_t *detail, struct err *err)
{
	int64_t now = clock_now_ms(), actor = l->options->actor, tries = 0,
		alive = 0;
	struct db_stmt *st;
	bool failed;
	int rc;

	if ((rc = ledger_begin_as(l->ledger, &actor, err)) < 0) {
		json_decref(detail);
		return rc;
	}
	if ((rc = db_prepare(l->ledger,
	    "SELECT t.land_tries + 1, CASE WHEN a.state IN ('active','waiting')"
	    " AND a.last_seen_ms >= ?2 THEN 1 ELSE 0 END FROM tasks t"
	    " LEFT JOIN agents a ON a.id = t.owner WHERE t.id = ?1"
	    " AND t.state = 'verified' AND t.land_queued_ms IS NOT NULL",
	    &st, err)) < 0)
		goto fail;
	db_bind_int(st, 1, m->id);
	db_bind_int(st, 2, now - l->options->stale_after_ms);
	rc = db_step(st);
	if (rc == DB_ROW) {
		tries = db_column_int(st, 0);
		alive = db_column_int(st, 1);
	}
	db_reset(st);
	if (rc == DB_DONE) {
		json_decref(detail);
		ledger_rollback(l->ledger);
		return 0; /* no longer queued: decided elsewhere */
	}
	if (rc != DB_ROW) {
		rc = db_error(l->ledger, rc, err, "reading a task");
		goto fail;
	}
	failed = tries >= l->config.tries;
	/* Read above with t.state = 'verified', in this transaction. */
	TASK_MOVE_CHECK("verified", failed ? "failed" : "open");
	if ((rc = db_prepare(l->ledger, failed
	    ? "UPDATE tasks SET state = 'failed', land_tries = land_tries + 1,"
	      " land_queued_ms = NULL, land_base = NULL, land_token = NULL,"
	      " land_waiting = NULL, land_note = ?2, lease_expires_ms = NULL,"
	      " updated_ms = ?3 WHERE id = ?1"
	    : "UPDATE tasks SET state = 'open', owner = NULL, lease_ms = NULL,"
	      " lease_expires_ms = NULL, attempts = max(attempts - 1, 0),"
	      " land_tries = land_tries + 1, land_queued_ms = NULL,"
	      " land_base = NULL, land_token = NULL, land_waiting = NULL,"
	      " land_note = ?2,"
	      " not_before_ms = NULL, updated_ms = ?3 WHERE id = ?1",
	    &st, err)) < 0)
		goto fail;
	db_bind_int(st, 1, m->id);
	db_bind_text(st, 2, note);
	db_bind_int(st, 3, now);
	if ((rc = db_step_done(l->ledger, st, "sending a landing back", err)) < 0)
		goto fail;
	json_object_set_new(detail, "tries", json_integer(tries));
	json_object_set_new(detail, "to", json_string(failed ? "failed" : "open"));
	rc = event_append(l->ledger, actor, kind, m->id, detail, err);
	detail = NULL;
	if (rc == 0 && failed)
		rc = event_append(l->ledger, actor, "fail", m->id,
		    json_pack("{s:s, s:I}", "reason", "landing tries exhausted",
			"tries", (json_int_t)tries), err);
	if (rc == 0 && alive && m->holder) {
		struct buf text = BUF_INIT;

		buf_addf(&text, "#%lld was sent back from landing and is %s: %s "
		    "(see 'daicho prompt %lld')", (long long)m->id,
		    failed ? "failed" : "open again", note, (long long)m->id);
		rc = msg_append(l->ledger, 0, m->holder, "message", text.buf, err);
		buf_release(&text);
	}
	if (rc < 0)
		goto fail;
	if ((rc = ledger_commit(l->ledger, err)) == 0) {
		if (strcmp(kind, "land-conflict") == 0)
			l->stats->conflicts++;
		else
			l->stats->check_failed++;
		if (failed)
			l->stats->failed++;
	}
	return rc;
fail:
	json_decref(detail);
	ledger_rollback(l->ledger);
	return rc;
}

/* "a, b and c" of paths into out (at most a few, then how many more). */
static void
list_paths(struct buf *out, const struct strlist *paths)
{
	size_t shown = paths->count < 5 ? paths->count : 5;

	for (size_t i = 0; i < shown; i++)
		buf_addf(out, "%s%s", i == 0 ? "" : i + 1 == shown &&
		    shown == paths->count ? " and " : ", ", paths->items[i]);
	if (shown < paths->count)
		buf_addf(out, " and %zu more", paths->count - shown);
}

/* Send m back for a conflict with the trunk at tip on paths. */
static int
send_back_conflict(struct lander *l, struct member *m, const char *tip,
    const struct strlist *paths, const char *why, struct err *err)
{
	struct buf note = BUF_INIT;
	json_t *list = json_array();
	int rc;

	for (size_t i = 0; i < paths->count; i++)
		json_array_append_new(list, json_string(paths->items[i]));
	buf_addf(&note, "its commit %.12s conflicts with the trunk (%s at "
	    "%.12s)", m->commit, l->branch.buf, tip);
	if (paths->count > 0) {
		buf_adds(&note, " in ");
		list_paths(&note, paths);
	} else if (why && *why) {
		buf_addf(&note, ": %s", why);
	}
	buf_addf(&note, ": redo the work on the trunk as it is now (its "
	    "commit %.12s) and report the new commit", tip);
	rc = send_back(l, m, "land-conflict", note.buf,
	    json_pack("{s:s, s:s, s:s, s:o}", "commit", m->commit, "trunk",
		l->branch.buf, "before", tip, "paths", list), err);
	buf_release(&note);
	return rc;
}


void
land_candidate_release(struct candidate *c)
{
	buf_release(&c->commit);
	buf_release(&c->tree);
	free(c->members);
}

/*
 * Make commit present in the lander's repository: a commit reported in
 * another clone (on another machine) is fetched from the remote the
 * "remote" setting names (else origin; none: never), the commit itself,
 * then, when the server refuses that, the remote's branches. Returns 0
 * when it is here; 1 when it is gone (collected, never pushed: not here
 * and not on the remote); 2 when the remote could not be reached (nothing
 * can be told yet); why says, for 1 and 2. A negative code is the
 * ledger's error (err set).
 */
static int
have_commit(struct lander *l, const char *commit, struct buf *why,
    struct err *err)
{
	struct buf hash = BUF_INIT, fetched = BUF_INIT, branches = BUF_INIT,
		   remote = BUF_INIT;
	int rc = 0;

	/* The ledger's text goes to git only as a full hash. */
	if (strspn(commit, "0123456789abcdef") != strlen(commit) ||
	    (strlen(commit) != 40 && strlen(commit) != 64)) {
		buf_addf(why, "its commit '%.64s' is not a full commit hash", commit);
		rc = 1;
		goto done;
	}
	if (gitm_resolve(l->root.buf, commit, &hash) == 0)
		goto done;
	if ((rc = settings_remote(l->ledger, &remote, err)) < 0)
		goto done;
	rc = 1;
	if (remote.len > 0 && strspn(commit, "0123456789abcdef") >= 40) {
		buf_addf(&branches, "+refs/heads/*:refs/remotes/%s/*", remote.buf);
		if (git_fetch(l->root.buf, remote.buf, commit,
		    VERIFY_FETCH_TIMEOUT_MS, &fetched) == 0 &&
		    gitm_resolve(l->root.buf, commit, &hash) == 0) {
			rc = 0;
			goto done;
		}
		buf_reset(&fetched);
		if (git_fetch(l->root.buf, remote.buf, branches.buf,
		    VERIFY_FETCH_TIMEOUT_MS, &fetched) < 0) {
			buf_addf(why, "its commit %.12s is not in the repository at "
			    "%s, and %s could not be reached (%s)", commit,
			    l->root.buf, remote.buf, fetched.buf);
			rc = 2;
			goto done;
		}
		if (gitm_resolve(l->root.buf, commit, &hash) == 0) {
			rc = 0;
			goto done;
		}
	}
	buf_addf(why, "its commit %.12s is gone: it is not in the repository at "
	    "%s%s%s (a branch deleted before it landed, and git collected it)",
	    commit, l->root.buf, remote.len ? ", nor on " : "", remote.buf);
done:
	buf_release(&hash);
	buf_release(&fetched);
	buf_release(&branches);
	buf_release(&remote);
	return rc;
}

/*
 * The message of a commit that lands members (count of them) on branch:
 * a line LAND_TRAILER "ID COMMIT TOKEN" for each, TOKEN this pass's, which
 * no worker could write into a commit of its own beforehand.
 */
static void
land_message(struct buf *out, const char *branch, const char *token,
    struct member **members, size_t count, bool one_task)
{
	if (one_task && count == 1)
		buf_addf(out, "%s (#%lld)\n\n", members[0]->title,
		    (long long)members[0]->id);
	else
		buf_addf(out, "daicho: land %zu task%s on %s\n\n", count,
		    count == 1 ? "" : "s", branch);
	for (size_t i = 0; i < count; i++)
		buf_addf(out, "#%lld %s (%.12s)\n", (long long)members[i]->id,
		    members[i]->title, members[i]->commit);
	buf_adds(out, "\n");
	for (size_t i = 0; i < count; i++)
		buf_addf(out, LAND_TRAILER "%lld %s %s\n",
		    (long long)members[i]->id, members[i]->commit, token);
}

/*
 * Build the candidate that lands group (count members, in order) on tip,
 * by the landing mode, into c. A member that conflicts: when it is the
 * first (merging onto the trunk itself) it is sent back and left out; a
 * later one is left out for a later batch (it may merge cleanly on the
 * trunk once the others landed). *dropped counts those left out for
 * later. Returns 0 (c->count may be 0), or -1 (err set) when git fails.
 */
int
land_build_candidate(struct lander *l, const char *tip, struct member **group,
    size_t count, struct candidate *c, size_t *dropped, struct err *err)
{
	struct buf acc = BUF_INIT, tree = BUF_INIT, why = BUF_INIT,
		   message = BUF_INIT;
	struct strlist conflicts = STRLIST_INIT, parents = STRLIST_INIT;
	int rc = 0;

	*dropped = 0;
	c->members = xcalloc(count ? count : 1, sizeof(*c->members));
	c->count = 0;
	buf_adds(&acc, tip);
	if (l->config.mode == LAND_REBASE &&
	    (land_prepare_checkout(l, l->build.buf, l->root.buf, tip, err) < 0 ||
	    gitm_checkout_clean(l->build.buf, tip, true, &why) < 0)) {
		rc = err->code ? -(int)err->code : err_set(err, ERR_FAILED,
		    "cannot check out the trunk in %s: %s", l->build.buf, why.buf);
		goto done;
	}
	for (size_t i = 0; i < count && rc == 0; i++) {
		struct member *m = group[i];
		int merged;

		strlist_release(&conflicts);
		buf_reset(&why);
		/*
		 * A commit that is gone goes back to be redone; one whose
		 * remote cannot be reached waits; either way, the rest of the
		 * batch goes on.
		 */
		if ((rc = have_commit(l, m->commit, &why, err)) < 0)
			break;
		if (rc > 0) {
			struct buf note = BUF_INIT;

			if (l->options->dry_run || l->speculating) {
				rc = 0;
			} else if (rc == 1) {
				buf_addf(&note, "%s: redo the work on the trunk as it is "
				    "now and report the new commit", why.buf);
				rc = send_back(l, m, "land-failed", note.buf,
				    json_pack("{s:s, s:s, s:s, s:s}", "commit", m->commit,
					"trunk", l->branch.buf, "before", tip, "summary",
					why.buf), err);
			} else {
				l->stats->waiting++;
				rc = mark_batch(l, &m, 1, MARK_WAIT, why.buf, err);
			}
			buf_release(&note);
			continue;
		}
		if (l->config.mode == LAND_REBASE) {
			struct strlist own = STRLIST_INIT;

			merged = gitm_own_commits(l->root.buf, m->commit, acc.buf,
			    &own, &why);
			if (merged == 0 && own.count == 0) {
				buf_adds(&why, "it holds no commit of its own to replay");
				merged = 1;
			}
			for (size_t k = 0; merged == 0 && k < own.count; k++)
				merged = gitm_cherry_pick(l->build.buf, own.items[k],
				    &conflicts, &why);
			if (merged == 0) {
				buf_reset(&message);
				buf_addf(&message, LAND_TRAILER "%lld %s %s",
				    (long long)m->id, m->commit, l->token.buf);
				merged = gitm_amend_trailer(l->build.buf,
				    message.buf, &tree, &why) < 0 ? -1 : 0;
			}
			strlist_release(&own);
			if (merged != 0 && gitm_checkout_clean(l->build.buf,
			    acc.buf, true, &why) < 0)
				merged = -1;
			if (merged == 0) {
				buf_reset(&acc);
				buf_add(&acc, tree.buf, tree.len); /* the new HEAD */
			}
		} else {
			merged = gitm_merge_tree(l->root.buf, acc.buf, m->commit, &tree,
			    &conflicts, &why);
			if (merged == 0) {
				strlist_release(&parents);
				strlist_add(&parents, acc.buf);
				if (l->config.mode == LAND_MERGE)
					strlist_add(&parents, m->commit);
				buf_reset(&message);
				land_message(&message, l->branch.buf, l->token.buf, &m, 1, true);
				if (gitm_commit_tree(l->root.buf, tree.buf, &parents,
				    message.buf, &acc, &why) < 0)
					merged = -1;
			}
		}
		if (merged < 0) {
			rc = err_set(err, ERR_FAILED, "cannot merge #%lld (%.12s) "
			    "onto %.12s: %s", (long long)m->id, m->commit, acc.buf,
			    why.buf);
		} else if (merged == 1 && c->count == 0) {
			if (!l->options->dry_run && !l->speculating)
				rc = send_back_conflict(l, m, tip, &conflicts, why.buf,
				    err);
		} else if (merged == 1) {
			(*dropped)++;
		} else {
			free(m->landed);
			m->landed = xstrdup(acc.buf);
			c->members[c->count++] = m;
		}
	}
	if (rc < 0 || c->count == 0)
		goto done;
	/* A merge of several: one commit with every task's as a parent. */
	if (l->config.mode == LAND_MERGE && c->count > 1) {
		strlist_release(&parents);
		strlist_add(&parents, tip);
		for (size_t i = 0; i < c->count; i++)
			strlist_add(&parents, c->members[i]->commit);
		buf_reset(&message);
		land_message(&message, l->branch.buf, l->token.buf, c->members,
		    c->count, false);
		if (gitm_tree_of(l->root.buf, acc.buf, &tree) < 0 ||
		    gitm_commit_tree(l->root.buf, tree.buf, &parents, message.buf,
		    &acc, &why) < 0) {
			rc = err_set(err, ERR_FAILED, "cannot make the merge commit: %s",
			    why.buf);
			goto done;
		}
		for (size_t i = 0; i < c->count; i++) {
			free(c->members[i]->landed);
			c->members[i]->landed = xstrdup(acc.buf);
		}
	}
	buf_reset(&c->commit);
	buf_adds(&c->commit, acc.buf);
	if (gitm_tree_of(l->root.buf, acc.buf, &c->tree) < 0)
		rc = err_set(err, ERR_FAILED, "cannot read the tree of %.12s",
		    acc.buf);
done:
	buf_release(&acc);
	buf_release(&tree);
	buf_release(&why);
	buf_release(&message);
	strlist_release(&conflicts);
	strlist_release(&parents);
	return rc;
}

/* The key results are kept under for a member's checks, or the land-check. */
static void
result_key(struct buf *key, const struct member *m)
{
	buf_reset(key);
	if (m)
		buf_addf(key, "#%lld", (long long)m->id);
	else
		buf_adds(key, "land-check");
}

/*
 * Judge candidate c: every member's checks and the land-check on its tree,
 * from the results kept by tree when they are known, else run in the warm
 * checkout. *passed says; failure (when not passed) receives why, led by
 * "land-check: " when it is the land-check that failed, or "#ID's checks: "
 * in a candidate of several. Every check runs, even after one failed: the
 * results are kept by tree, for the halves of a bisection. Returns 0, or
 * -1 (err set); a pause meanwhile (l->halt) returns 0, not passed.
 */
int
land_judge(struct lander *l, struct candidate *c, bool *passed,
    struct buf *failure, struct err *err)
{
	json_t *known = json_object_get(l->results, c->tree.buf);
	struct buf key = BUF_INIT, why = BUF_INIT;
	bool counted = false, clean = false;
	int rc = 0;

	*passed = true;
	if (known == NULL) {
		known = json_object();
		json_object_set_new(l->results, c->tree.buf, known);
	}
	/* Each member's checks (i < count), then the land-check (i == count). */
	for (size_t i = 0; i <= c->count && rc == 0; i++) {
		struct member *m = i < c->count ? c->members[i] : NULL;
		json_t *result;

		if (m == NULL && l->config.check.len == 0)
			break;
		result_key(&key, m);
		result = json_object_get(known, key.buf);
		if (result == NULL) {
			struct verdict v = { 0 };
			struct buf line = BUF_INIT;

			/*
			 * Each task's checks, and the land-check, start from a
			 * checkout of exactly the candidate: made again after a
			 * command ran there (file: checks run nothing).
			 */
			if (!clean) {
				if (land_bring(l, c->commit.buf, err) < 0) {
					rc = -(int)err->code;
					break;
				}
				if (gitm_checkout_clean(l->checkout.buf, c->commit.buf,
				    l->checkout_dirty, &why) < 0) {
					rc = err_set(err, ERR_FAILED, "cannot check out "
					    "%.12s in %s: %s", c->commit.buf,
					    l->checkout.buf, why.buf);
					break;
				}
				clean = true;
				l->checkout_dirty = false;
			}
			if (!counted) {
				counted = true;
				l->stats->check_runs++;
			}
			/* Still ours, for as long as this check may take (a
			 * lane's process leaves that to its parent). */
			if (!l->lane_child) {
				bool held = false;

				if ((rc = land_hold_lock(l, &held, err)) < 0)
					break;
				if (!held) {
					/* Paused meanwhile: stop, judging nothing. */
					if ((rc = land_lock_lost(l, err)) == 2) {
						rc = 0;
						*passed = false;
					}
					break;
				}
			}
			if (m)
				rc = verify_checks_in(l->ledger, m->id, l->checkout.buf,
				    l->root.buf, &l->policy, &v, err);
			else
				rc = verify_run_command(&l->policy, l->checkout.buf,
				    l->config.check.buf, 0, l->config.check_timeout_ms,
				    &v, err);
			if (rc == 0) {
				verify_first_failure(&v, &line);
				/* The output's tail too, for the prompt's section. */
				for (size_t k = 0; k < v.run_count; k++) {
					if (!v.runs[k].passed && v.runs[k].output.len > 0 &&
					    strncmp(v.runs[k].spec, "cmd:", 4) == 0) {
						size_t len = v.runs[k].output.len, from =
						    len > 1500 ? len - 1500 : 0;

						buf_addf(&line, "\n%.*s", (int)(len - from),
						    v.runs[k].output.buf + from);
						break;
					}
				}
				result = json_string(line.buf);
				json_object_set_new(known, key.buf, result);
				for (size_t k = 0; k < v.run_count; k++)
					if (strncmp(v.runs[k].spec, "cmd:", 4) == 0)
						clean = false, l->checkout_dirty = true;
			}
			verdict_release(&v);
			buf_release(&line);
			if (rc < 0)
				break;
		}
		if (json_string_length(result) > 0 && *passed) {
			*passed = false;
			buf_reset(failure);
			if (m && c->count > 1)
				buf_addf(failure, "#%lld's checks: ", (long long)m->id);
			else if (m == NULL)
				buf_adds(failure, "land-check: ");
			buf_adds(failure, json_string_value(result));
		}
	}
	buf_release(&key);
	buf_release(&why);
	return rc;
}

/*
 * gitm_follow(): at first without refreshing the index (git status just
 * did), then, if git refused, once more after a refresh (stat information
 * out of date reads as a change), and again for a while when git found the
 * index locked: a person's git command (or an editor's) holds it for a
 * moment, and that is no reason to make the landing wait for a person.
 */
static int
follow(const char *worktree, const char *from, const char *to,
    struct buf *why)
{
	for (int tries = 0;; tries++) {
		struct timespec pause = { 0, 50 * 1000 * 1000 };

		buf_reset(why);
		if (gitm_follow(worktree, from, to, tries > 0, why) == 0)
			return 0;
		if (tries == 0)
			continue;
		if (tries >= 40 || strstr(why->buf, "index.lock") == NULL)
			return -1;
		nanosleep(&pause, NULL);
	}
}

/*
 * With a remote trunk: push c->commit to it, never forcing; when that
 * refused it (the remote's branch moved), 1: merge again. Once pushed, the
 * local branch follows when it can go forward without losing anything
 * (with the main work tree, if it has it out and nothing is in the way);
 * otherwise it is left for the person to pull. Returns 0, 1, or -1.
 */
static int
push_trunk(struct lander *l, const char *tip, struct candidate *c,
    struct err *err)
{
	struct buf why = BUF_INIT, local = BUF_INIT, ref = BUF_INIT;
	int rc = gitm_push(l->root.buf, l->config.remote.buf, c->commit.buf,
	    l->branch.buf, VERIFY_FETCH_TIMEOUT_MS, &why);

	if (rc < 0) {
		err_set(err, ERR_FAILED, "cannot push to %s: %s",
		    l->config.remote.buf, why.buf);
		rc = -(int)err->code;
		goto done;
	}
	if (rc == 1)
		goto done;
	l->stats->trunk_moves++;
	buf_reset(&why);
	gitm_update_ref(l->root.buf, l->ref.buf, c->commit.buf, tip,
	    "daicho land", &why);
	buf_addf(&ref, "refs/heads/%s", l->branch.buf);
	if (gitm_resolve(l->root.buf, ref.buf, &local) == 0 &&
	    git_is_ancestor(l->root.buf, local.buf, c->commit.buf, &why) == 1) {
		buf_reset(&why);
		const char *out = l->trunk_checkout.buf;

		if (!*out || follow(out, local.buf, c->commit.buf, &why) == 0) {
			if (gitm_update_ref(l->root.buf, ref.buf, c->commit.buf,
			    local.buf, "daicho land", &why) != 0 && *out)
				follow(out, c->commit.buf, local.buf, &why);
		}
	}
done:
	buf_release(&why);
	buf_release(&local);
	buf_release(&ref);
	return rc;
}

/* Whether the trunk is no longer at tip (someone moved it). */
static bool
trunk_moved(struct lander *l, const char *tip)
{
	struct buf now = BUF_INIT;
	bool moved = gitm_resolve(l->root.buf, l->ref.buf, &now) == 0 &&
		     strcmp(now.buf, tip) != 0;

	buf_release(&now);
	return moved;
}

/*
 * Whether path, which a landing changes, is in the way in the work tree
 * at worktree, whose uncommitted entries (gitm_uncommitted_paths()) are
 * dirty: a changed or untracked file at path, or, inside an untracked
 * directory, a file that is there.
 */
static bool
in_the_way(const char *worktree, const char *path,
    const struct strlist *dirty)
{
	for (size_t k = 0; k < dirty->count; k++) {
		const char *d = dirty->items[k];
		size_t n = strlen(d);

		if (strcmp(path, d) == 0)
			return true;
		if (n > 0 && d[n - 1] == '/' && strncmp(path, d, n) == 0) {
			struct buf full = BUF_INIT;
			struct stat st;
			bool there;

			buf_addf(&full, "%s/%s", worktree, path);
			there = lstat(full.buf, &st) == 0;
			buf_release(&full);
			if (there)
				return true;
		}
	}
	return false;
}

/*
 * Whether the work tree at out, which has the trunk out, holds uncommitted
 * changes to paths that moving it from tip to c->commit changes (a file
 * that differs from what the landing brings, or an untracked file there):
 * then why says so, for NEEDS YOU, and the landing must wait; else why is
 * left empty. Returns 0, or -1 (err set) when git cannot tell.
 */
static int
in_the_way_of(struct lander *l, const char *out, const char *tip,
    const struct candidate *c, struct buf *why, struct err *err)
{
	struct strlist changed = STRLIST_INIT, dirty = STRLIST_INIT,
		       overlap = STRLIST_INIT, differ = STRLIST_INIT;
	struct buf reason = BUF_INIT;
	int rc = 0;

	if (gitm_diff_paths(l->root.buf, tip, c->commit.buf, &changed,
	    &reason) < 0 || gitm_uncommitted_paths(out, &dirty, &reason) < 0)
		goto failed;
	for (size_t i = 0; i < changed.count; i++)
		if (in_the_way(out, changed.items[i], &dirty))
			strlist_add(&overlap, changed.items[i]);
	if (overlap.count > 0 && gitm_differ_from(out, c->commit.buf, &overlap,
	    &differ, &reason) < 0)
		goto failed;
	if (differ.count > 0) {
		buf_addf(why, "the work tree with %s out (%s) has uncommitted "
		    "changes to ", l->branch.buf, out);
		list_paths(why, &differ);
		buf_addf(why, ", which landing on %s changes: commit or stash them, "
		    "and the landing goes on", l->branch.buf);
	}
	goto done;
failed:
	rc = err_set(err, ERR_FAILED, "cannot compare the work tree at %s with "
	    "the landing: %s", out, reason.buf);
done:
	strlist_release(&changed);
	strlist_release(&dirty);
	strlist_release(&overlap);
	strlist_release(&differ);
	buf_release(&reason);
	return rc;
}

/*
 * The landing of candidate c waits for a person, as why says: the pass
 * stops (l->halt) and c's tasks say why (NEEDS YOU). Returns 0 or the
 * ledger's error.
 */
static int
wait_for_person(struct lander *l, struct candidate *c, const char *why,
    struct err *err)
{
	l->halt = true;
	l->stats->waiting += (int64_t)c->count;
	return mark_batch(l, c->members, c->count, MARK_WAIT, why, err);
}

/*
 * Move the trunk from tip to c->commit, keeping a main work tree that has
 * it out in step. Returns 0 when it moved; 1 when the trunk moved meanwhile
 * (nothing changed: merge again); 2 when the landing waits for a person
 * (l->halt set, the members marked with why); -1 (err set) when git fails.
 */
static int
move_trunk(struct lander *l, const char *tip, struct candidate *c,
    struct err *err)
{
	struct buf why = BUF_INIT, waiting = BUF_INIT, reason = BUF_INIT;
	const char *out;
	bool held;
	int rc = 0, cas;

	find_trunk_checkout(l);
	out = l->trunk_checkout.len ? l->trunk_checkout.buf : NULL;

	/* The lock must still be ours before anything moves. */
	if ((rc = land_hold_lock(l, &held, err)) < 0)
		goto done;
	if (!held) {
		rc = land_lock_lost(l, err);
		goto done;
	}
	if (l->config.remote.len > 0) {
		rc = push_trunk(l, tip, c, err);
		goto done;
	}
	/* Someone moved the trunk meanwhile: merge onto it again. */
	if (trunk_moved(l, tip))
		goto moved;
	if (out != NULL) {
		if ((rc = in_the_way_of(l, out, tip, c, &waiting, err)) < 0)
			goto done;
		rc = 0;
		if (waiting.len == 0 && follow(out, tip, c->commit.buf,
		    &reason) < 0) {
			if (trunk_moved(l, tip))
				goto moved; /* a person's commit got in first */
			buf_addf(&waiting, "the work tree with %s out (%s) cannot "
			    "follow it to the landing (%s): commit or stash what is in "
			    "the way, and the landing goes on", l->branch.buf, out,
			    reason.buf);
		}
		if (waiting.len > 0) {
			if ((rc = wait_for_person(l, c, waiting.buf, err)) == 0)
				rc = 2;
			goto done;
		}
	}
	cas = gitm_update_ref(l->root.buf, l->ref.buf, c->commit.buf, tip,
	    "daicho land", &why);
	if (cas != 0 && out != NULL) {
		/* Put the work tree back where the trunk is. */
		buf_reset(&reason);
		follow(out, c->commit.buf, tip, &reason);
	}
	if (cas < 0)
		rc = err_set(err, ERR_FAILED, "cannot move %s to %.12s: %s",
		    l->ref.buf, c->commit.buf, why.buf);
	else if (cas == 1)
		rc = 1;
	else
		l->stats->trunk_moves++;
	goto done;
moved:
	rc = 1;
done:
	buf_release(&why);
	buf_release(&waiting);
	buf_release(&reason);
	return rc;
}

/*
 * Send m back: merged onto the trunk at tip (the candidate tree_commit),
 * its work fails, as failure says (its first line the summary).
 */
static int
send_back_failed(struct lander *l, struct member *m, const char *tip,
    const char *tree_commit, const char *failure, struct err *err)
{
	struct buf note = BUF_INIT, first = BUF_INIT;
	size_t line = strcspn(failure, "\n");
	int rc;

	buf_add(&first, failure, line);
	buf_addf(&note, "merged onto the trunk (%s at %.12s), its work fails: "
	    "%s", l->branch.buf, tip, failure);
	buf_addf(&note, "\n(redo the work on the trunk as it is now, %.12s, so "
	    "that it passes there, and report the new commit)", tip);
	rc = send_back(l, m, "land-failed", note.buf,
	    json_pack("{s:s, s:s, s:s, s:s, s:s}", "commit", m->commit, "trunk",
		l->branch.buf, "before", tip, "merged", tree_commit, "summary",
		first.buf), err);
	buf_release(&note);
	buf_release(&first);
	return rc;
}

/*
 * Say on every queued task whose landing does not wait for a person yet
 * that it does, for what why says (an error, a landing ahead of it that
 * waits): a person sees it, a runner does not wait on it.
 */
static void
wait_rest(struct lander *l, const char *why)
{
	write_best_effort(l, "UPDATE tasks SET land_waiting = ?1"
	    " WHERE state = 'verified' AND land_queued_ms IS NOT NULL"
	    " AND land_waiting IS NULL", why, "landing");
}

/*
 * Whether the land-check fails on the trunk at tip as it is (its tree's
 * result kept with the others): *red. Returns 0, or -1 (err set).
 */
static int
trunk_is_red(struct lander *l, const char *tip, bool *red, struct err *err)
{
	struct candidate trunk = { BUF_INIT, BUF_INIT, NULL, 0 };
	struct buf failure = BUF_INIT;
	bool passed = true;
	int rc;

	*red = false;
	buf_adds(&trunk.commit, tip);
	if (gitm_tree_of(l->root.buf, tip, &trunk.tree) < 0) {
		rc = err_set(err, ERR_FAILED, "cannot read the tree of %.12s", tip);
		goto done;
	}
	if ((rc = land_judge(l, &trunk, &passed, &failure, err)) == 0)
		*red = !passed && !land_stopping(l);
done:
	land_candidate_release(&trunk);
	buf_release(&failure);
	return rc;
}

/*
 * Land group (count members, in queue order) on the trunk as it is now,
 * as the comment at the top of core/land.h says: build, judge, move, and
 * on failure bisect. Members left out for later stay queued.
 */
int
land_group(struct lander *l, struct member **group, size_t count,
    struct err *err)
{
	struct buf tip = BUF_INIT, failure = BUF_INIT;
	struct candidate c = { BUF_INIT, BUF_INIT, NULL, 0 };
	struct member **members = xcalloc(count ? count : 1, sizeof(*members));
	bool passed = false, judged = false;
	size_t dropped = 0;
	int rc = 0;

	memcpy(members, group, count * sizeof(*members));
	for (int race = 0; count > 0 && !land_stopping(l); race++) {
		land_candidate_release(&c);
		memset(&c, 0, sizeof(c));
		buf_reset(&tip);
		judged = false;
		if ((rc = land_trunk_tip(l, &tip, err)) < 0 ||
		    (rc = land_build_candidate(l, tip.buf, members, count, &c, &dropped,
			 err)) < 0)
			break;
		/*
		 * From here on only what the candidate holds: members sent
		 * back for a conflict are gone, those left for later stay
		 * queued.
		 */
		count = c.count;
		memcpy(members, c.members, count * sizeof(*members));
		if (count == 0)
			break;
		/*
		 * A work tree in the way would make the landing wait after
		 * its checks: see first, and do not run them for nothing.
		 */
		if (l->trunk_checkout.len > 0 && l->config.remote.len == 0) {
			struct buf waiting = BUF_INIT;

			rc = in_the_way_of(l, l->trunk_checkout.buf, tip.buf, &c,
			    &waiting, err);
			if (rc == 0 && waiting.len > 0)
				rc = wait_for_person(l, &c, waiting.buf, err);
			buf_release(&waiting);
			if (rc < 0 || l->halt)
				break;
		}
		if ((rc = land_judge(l, &c, &passed, &failure, err)) < 0)
			break;
		judged = true;
		if (!passed)
			break;
		if (race >= LAND_RACE_TRIES) {
			rc = err_set(err, ERR_CONFLICT, "the trunk %s kept moving while "
			    "landing (%d tries): try again", l->branch.buf, race);
			break;
		}
		rc = move_trunk(l, tip.buf, &c, err);
		if (rc == 1) {
			rc = 0;
			continue; /* the trunk moved: merge onto it again */
		}
		if (rc == 2) {
			rc = 0; /* waits for a person */
		} else if (rc == 0) {
			json_t *ids = json_array();

			for (size_t i = 0; i < c.count; i++)
				json_array_append_new(ids, json_integer(c.members[i]->id));
			for (size_t i = 0; i < c.count && rc == 0; i++)
				rc = record_landed(l, c.members[i], tip.buf, c.commit.buf,
				    c.count > 1 ? ids : NULL, err);
			json_decref(ids);
		}
		break;
	}
	if (rc == 0 && judged && !passed && !land_stopping(l)) {
		bool red = false;

		/*
		 * The land-check fails on one task's merged tree: if it fails
		 * on the trunk alone, the trunk is red, and no task is to blame.
		 */
		if (count == 1 && strncmp(failure.buf, "land-check: ", 12) == 0 &&
		    (rc = trunk_is_red(l, tip.buf, &red, err)) == 0 && red) {
			struct buf why = BUF_INIT;

			buf_addf(&why, "the trunk itself (%s at %.12s) fails the "
			    "land-check: fix the trunk, and landing goes on (%s)",
			    l->branch.buf, tip.buf, failure.buf + 12);
			l->halt = true;
			wait_rest(l, why.buf);
			buf_release(&why);
		} else if (rc < 0) {
			;
		} else if (count == 1) {
			rc = send_back_failed(l, members[0], tip.buf, c.commit.buf,
			    failure.buf, err);
		} else {
			/* Bisect: each half alone, the first half first. */
			size_t half = count / 2;

			rc = land_group(l, members, half, err);
			if (rc == 0 && !land_stopping(l))
				rc = land_group(l, members + half, count - half, err);
		}
	}
	free(members);
	land_candidate_release(&c);
	buf_release(&tip);
	buf_release(&failure);
	return rc;
}

/*
 * Tasks a killed lander left marked (land_base set): those the trunk holds
 * by now (a commit since land_base with their line) are recorded landed;
 * the others simply go on waiting in the queue.
 */
static int
recover(struct lander *l, struct err *err)
{
	struct member *all = NULL;
	size_t n = 0;
	struct buf tip = BUF_INIT, why = BUF_INIT, line = BUF_INIT;
	struct db_stmt *st;
	char **bases = NULL;
	int rc;

	if ((rc = ledger_begin_read(l->ledger, err)) < 0)
		return rc;
	if ((rc = db_prepare(l->ledger, "SELECT id, report_commit, land_base,"
	    " coalesce(land_token, '')"
	    " FROM tasks WHERE state = 'verified' AND land_queued_ms IS NOT NULL"
	    " AND land_base IS NOT NULL ORDER BY id", &st, err)) < 0) {
		ledger_rollback(l->ledger);
		return rc;
	}
	while ((rc = db_step(st)) == DB_ROW) {
		all = xrealloc(all, (n + 1) * sizeof(*all));
		bases = xrealloc(bases, (n + 1) * sizeof(*bases));
		memset(&all[n], 0, sizeof(all[n]));
		all[n].id = db_column_int(st, 0);
		all[n].commit = xstrdup(db_column_text(st, 1) ? db_column_text(st, 1)
							     : "");
		bases[n] = xstrdup(db_column_text(st, 2));
		/* The token of the pass that marked it, in the title's place. */
		all[n].title = xstrdup(db_column_text(st, 3));
		n++;
	}
	db_reset(st);
	ledger_rollback(l->ledger);
	if (rc != DB_DONE) {
		rc = db_error(l->ledger, rc, err, "reading the landing queue");
		goto done;
	}
	rc = 0;
	if (n > 0 && (rc = land_trunk_tip(l, &tip, err)) < 0)
		goto done;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct strlist found = STRLIST_INIT;

		buf_reset(&line);
		buf_addf(&line, LAND_TRAILER "%lld %s %s", (long long)all[i].id,
		    all[i].commit, all[i].title);
		/*
		 * Only a line with the marking pass's token counts: no worker
		 * could have written it into a commit of its own before.
		 */
		if (all[i].title[0] != '\0' && strlen(bases[i]) >= 40 &&
		    strspn(bases[i], "0123456789abcdef") == strlen(bases[i]) &&
		    gitm_commits_with_line(l->root.buf, bases[i], tip.buf, line.buf,
		    &found, &why) == 0 && found.count > 0) {
			/* The newest trunk commit that names it holds it. */
			all[i].landed = xstrdup(found.items[0]);
			rc = record_landed(l, &all[i], bases[i], tip.buf, NULL, err);
		} else {
			struct member *one = &all[i];

			rc = mark_batch(l, &one, 1, MARK_CLEAR, NULL, err);
		}
		strlist_release(&found);
	}
done:
	for (size_t i = 0; i < n; i++)
		free(bases[i]);
	free(bases);
	members_free(all, n);
	buf_release(&tip);
	buf_release(&why);
	buf_release(&line);
	return rc;
}


/*
 * Gates on landing (core/gate.h): of the batch (*n members, in order), the
 * members whose commit changes a path a gate's glob covers land only with
 * a person's approval, one for all of them. Approved: the approval is used
 * and all stay. Not decided yet: those members are taken out of the batch
 * and wait, saying so (NEEDS YOU lists the request). Denied: they are sent
 * back, with who denied it and why. *n is what is left.
 */
static int
gate_batch(struct lander *l, const char *tip, struct member **batch,
    size_t *n, struct err *err)
{
	struct strlist paths = STRLIST_INIT, gated_paths = STRLIST_INIT;
	struct buf fingerprint = BUF_INIT, command = BUF_INIT, why = BUF_INIT,
		   reason = BUF_INIT, waiting = BUF_INIT;
	struct member **gated = NULL;
	size_t gated_count = 0, kept = 0;
	const char *gate = NULL;
	int rc = 0;

	if (!l->gates_read) {
		if ((rc = gate_land_globs(l->ledger, &l->gate_globs, &l->gate_ids,
		    err)) < 0)
			return rc;
		l->gates_read = true;
	}
	if (l->gate_globs.count == 0)
		return 0;
	gated = xcalloc(*n, sizeof(*gated));
	for (size_t i = 0; i < *n; i++) {
		bool hit = false;

		strlist_release(&paths);
		if (gitm_changed_since_fork(l->root.buf, tip, batch[i]->commit,
		    &paths, &why) < 0) {
			rc = err_set(err, ERR_FAILED, "cannot list what #%lld changes: "
			    "%s", (long long)batch[i]->id, why.buf);
			goto done;
		}
		for (size_t p = 0; p < paths.count; p++)
			for (size_t g = 0; g < l->gate_globs.count; g++)
				if (glob_covers(l->gate_globs.items[g], paths.items[p])) {
					hit = true;
					if (gate == NULL)
						gate = l->gate_ids.items[g];
					if (!strlist_contains(&gated_paths, paths.items[p]))
						strlist_add(&gated_paths, paths.items[p]);
				}
		if (hit)
			gated[gated_count++] = batch[i];
	}
	if (gated_count == 0)
		goto done;
	/* One approval for these tasks at these commits. */
	buf_adds(&fingerprint, "land");
	buf_addf(&command, "land on %s:", l->branch.buf);
	for (size_t i = 0; i < gated_count; i++) {
		buf_addf(&fingerprint, " #%lld:%s", (long long)gated[i]->id,
		    gated[i]->commit);
		buf_addf(&command, " #%lld", (long long)gated[i]->id);
	}
	buf_adds(&command, " (changes ");
	list_paths(&command, &gated_paths);
	buf_adds(&command, ")");
	{
		struct approval_key key = { fingerprint.buf, fingerprint.buf,
			command.buf, l->root.buf, strtoll(gate, NULL, 10) };
		enum landing_approval state;
		int64_t id = 0, actor = l->options->actor;

		if ((rc = landing_approval(l->ledger, actor, &key, &id, &state,
		    &reason, err)) < 0)
			goto done;
		if (state == LANDING_APPROVED) {
			/* Used once one of them has landed (use_approvals()). */
			json_t *ids = json_array();

			for (size_t i = 0; i < gated_count; i++)
				json_array_append_new(ids, json_integer(gated[i]->id));
			json_array_append_new(l->approvals, json_pack("{s:I, s:o}",
			    "id", (json_int_t)id, "tasks", ids));
			goto done;
		}
		if (state == LANDING_DENIED) {
			buf_addf(&waiting, "a person denied its landing (request #%lld, "
			    "%s)", (long long)id, reason.len ? reason.buf : "no reason");
			for (size_t i = 0; i < gated_count && rc == 0; i++)
				rc = send_back(l, gated[i], "land-failed", waiting.buf,
				    json_pack("{s:s, s:s, s:s, s:I}", "commit",
					gated[i]->commit, "trunk", l->branch.buf, "summary",
					waiting.buf, "approval", (json_int_t)id), err);
		} else {
			buf_addf(&waiting, "its landing changes %s, which gate #%s "
			    "guards: it waits for a person's approval of request #%lld "
			    "('daicho approve %lld', or 'daicho deny %lld')",
			    gated_paths.items[0], gate, (long long)id, (long long)id,
			    (long long)id);
			l->stats->waiting += (int64_t)gated_count;
			rc = mark_batch(l, gated, gated_count, MARK_WAIT, waiting.buf,
			    err);
		}
	}
	/* The others go on without them. */
	for (size_t i = 0; i < *n; i++) {
		bool out = false;

		for (size_t k = 0; k < gated_count; k++)
			out = out || gated[k] == batch[i];
		if (!out)
			batch[kept++] = batch[i];
	}
	*n = kept;
done:
	free(gated);
	strlist_release(&paths);
	strlist_release(&gated_paths);
	buf_release(&fingerprint);
	buf_release(&command);
	buf_release(&why);
	buf_release(&reason);
	buf_release(&waiting);
	return rc;
}

/*
 * What waited for a person in the last pass (uncommitted changes in the
 * way, an approval, an error) is tried again in this one: the reasons are
 * cleared, and set again by what still stands in the way.
 */
static int
retry_waiting(struct lander *l, struct err *err)
{
	struct db_stmt *st;
	int rc;

	if ((rc = ledger_begin(l->ledger, err)) < 0)
		return rc;
	if ((rc = db_prepare(l->ledger, "UPDATE tasks SET land_waiting = NULL"
	    " WHERE land_waiting IS NOT NULL", &st, err)) < 0 ||
	    (rc = db_step_done(l->ledger, st, "landing", err)) < 0) {
		ledger_rollback(l->ledger);
		return rc;
	}
	return ledger_commit(l->ledger, err);
}

/*
 * Use each approval this pass went on with whose tasks (one at least)
 * landed: an approval is good for one landing of those tasks at those
 * commits, and one that landed nothing (the checks failed, the pass
 * stopped) is still good for the next pass.
 */
static void
use_approvals(struct lander *l)
{
	struct err ignored = ERR_INIT;
	json_t *a;
	size_t i;

	json_array_foreach(l->approvals, i, a) {
		json_t *task;
		size_t k;
		bool landed = false;
		int64_t actor = l->options->actor;

		json_array_foreach(json_object_get(a, "tasks"), k, task) {
			struct task_state now;

			if (task_get_state(l->ledger, json_integer_value(task), &now,
			    &ignored) == 0 && strcmp(now.state, "landed") == 0)
				landed = true;
		}
		if (!landed || ledger_begin_as(l->ledger, &actor, &ignored) < 0)
			continue;
		if (landing_approval_use(l->ledger, actor, json_integer_value(
		    json_object_get(a, "id")), &ignored) < 0)
			ledger_rollback(l->ledger);
		else
			ledger_commit(l->ledger, &ignored);
	}
	err_release(&ignored);
}

int
land_prepare_checkout(struct lander *l, const char *dir, const char *repo,
    const char *tip, struct err *err)
{
	struct buf why = BUF_INIT, git_file = BUF_INIT, text = BUF_INIT,
		   common = BUF_INIT;
	int rc = 0;

	/* There, and a work tree of repo (an older daicho's may not be). */
	buf_addf(&git_file, "%s/.git", dir);
	if (path_git_common_dir(dir, &common) == 0 && path_add_resolved_dir(&text,
	    repo) == 0 && strcmp(common.buf, text.buf) == 0 &&
	    access(git_file.buf, F_OK) == 0)
		goto done;
	/* A directory a crash left half made is made again. */
	path_remove_tree(dir);
	git_worktree_prune(repo);
	if (path_make_parent_dirs(dir, 0755) < 0 ||
	    git_worktree_add(repo, dir, tip, &why) < 0)
		rc = err_set(err, ERR_FAILED, "cannot make the landing checkout "
		    "%s: %s", dir, why.len ? why.buf : strerror(errno));
done:
	buf_release(&why);
	buf_release(&git_file);
	buf_release(&text);
	buf_release(&common);
	return rc;
}

int
land_bring(struct lander *l, const char *commit, struct err *err)
{
	struct strlist want = STRLIST_INIT;
	struct buf why = BUF_INIT;
	int rc = 0;

	strlist_add(&want, commit);
	if (git_has_commit(l->judge.dir.buf, commit))
		goto done; /* objects never change: there already */
	if (judge_fetch(&l->judge, &want, &why) < 0 ||
	    !git_has_commit(l->judge.dir.buf, commit))
		rc = err_set(err, ERR_FAILED, "cannot bring %.12s into the judge's "
		    "repository: %s", commit, why.len ? why.buf : "git lost it");
done:
	strlist_release(&want);
	buf_release(&why);
	return rc;
}

/* The dry run's plan: each queued task, and whether it merges cleanly. */
static int
plan_queue(struct lander *l, struct member *queue, size_t n, json_t *plan,
    struct err *err)
{
	struct buf tip = BUF_INIT, tree = BUF_INIT, why = BUF_INIT;
	int rc;

	if ((rc = land_trunk_tip(l, &tip, err)) < 0)
		goto done;
	for (size_t i = 0; i < n; i++) {
		struct strlist conflicts = STRLIST_INIT;
		json_t *paths = json_array();
		int merged = gitm_merge_tree(l->root.buf, tip.buf, queue[i].commit,
		    &tree, &conflicts, &why);

		for (size_t k = 0; k < conflicts.count; k++)
			json_array_append_new(paths, json_string(conflicts.items[k]));
		json_array_append_new(plan, json_pack("{s:I, s:s, s:s, s:s, s:s,"
		    " s:o}", "id", (json_int_t)queue[i].id, "title", queue[i].title,
		    "commit", queue[i].commit, "trunk", l->branch.buf, "merge",
		    merged == 0 ? "clean" : merged == 1 ? "conflict" : "error",
		    "conflicts", paths));
		strlist_release(&conflicts);
	}
done:
	buf_release(&tip);
	buf_release(&tree);
	buf_release(&why);
	return rc;
}

int
land_pass(struct ledger *ledger, const struct land_options *options,
    struct land_stats *stats, json_t **plan, struct err *err)
{
	struct lander l = { .ledger = ledger, .options = options,
		.stats = stats, .config = { .check = BUF_INIT, .trunk = BUF_INIT },
		.root = BUF_INIT, .git_dir = BUF_INIT, .checkout = BUF_INIT,
		.branch = BUF_INIT, .ref = BUF_INIT, .token = BUF_INIT,
		.trunk_checkout = BUF_INIT, .policy = CHECK_POLICY_INIT,
		.judge = JUDGE_INIT, .build = BUF_INIT };
	struct member *queue = NULL;
	struct buf tip = BUF_INIT, local = BUF_INIT;
	size_t n = 0;
	bool held = false, paused = false;
	int64_t since = 0, by = 0;
	int rc;

	if (plan)
		*plan = json_array();
	if (ledger_git_dir(ledger, &l.git_dir) != 0) {
		rc = 0;
		goto done;
	}
	if ((rc = read_config(ledger, &l.config, err)) < 0 ||
	    l.config.mode == LAND_OFF)
		goto done;
	if (!options->dry_run &&
	    (rc = ledger_require_judge(ledger, "landing", err)) < 0)
		goto done;
	ledger_project_root(ledger, &l.root);
	if ((rc = read_queue(&l, options->dry_run ? 0 : 1, true, &queue, &n,
	    err)) < 0 || n == 0)
		goto done; /* nothing queued: an idle pass starts no git */
	/* Origin by default for a shared ledger, when this clone has one. */
	if (l.config.remote.len > 0 && !l.config.remote_explicit &&
	    !git_remote_exists(l.root.buf, l.config.remote.buf))
		buf_reset(&l.config.remote);
	if (find_trunk(&l) != 0) {
		rc = err_set(err, ERR_FAILED, "cannot land: the trunk %s is not in "
		    "the repository at %s (see 'daicho config trunk')", l.ref.buf,
		    l.root.buf);
		if (!options->dry_run)
			wait_rest(&l, err->message.buf);
		goto done;
	}
	if (options->dry_run) {
		if (plan)
			rc = plan_queue(&l, queue, n, *plan, err);
		goto done;
	}
	if ((rc = land_paused(ledger, &paused, &since, &by, err)) < 0)
		goto done;
	if (paused) {
		stats->paused = true;
		goto done;
	}
	verify_new_random_token(&l.token);
	l.longest_check_ms = VERIFY_DEFAULT_CHECK_TIMEOUT_MS;
	if (l.config.check_timeout_ms > l.longest_check_ms)
		l.longest_check_ms = l.config.check_timeout_ms;
	if ((rc = land_hold_lock(&l, &held, err)) < 0)
		goto done;
	if (!held) {
		stats->busy = true;
		goto done;
	}
	if ((rc = check_policy_read(ledger, &l.policy, err)) < 0 ||
	    (rc = judge_open(ledger, &l.judge, err)) < 0)
		goto done;
	if (rc == 1) {
		rc = 0; /* no git, nothing to land (seen above already) */
		goto done;
	}
	l.results = json_object();
	l.approvals = json_array();
	l.checkout_dirty = true;
	ledger_local_dir(ledger, &local);
	buf_addf(&l.checkout, "%s/land/checkout", local.buf);
	buf_addf(&l.build, "%s/land/build", local.buf);
	if ((rc = retry_waiting(&l, err)) < 0 || (rc = recover(&l, err)) < 0)
		goto done;
	while (!land_stopping(&l)) {
		struct member **batch;

		members_free(queue, n);
		queue = NULL;
		if ((rc = read_queue(&l, l.config.batch, false, &queue, &n,
		    err)) < 0 || n == 0)
			break;
		buf_reset(&tip);
		if ((rc = land_trunk_tip(&l, &tip, err)) < 0 ||
		    (rc = land_bring(&l, tip.buf, err)) < 0 ||
		    (rc = land_prepare_checkout(&l, l.checkout.buf, l.judge.dir.buf,
			 tip.buf, err)) < 0)
			break;
		batch = xcalloc(n, sizeof(*batch));
		for (size_t i = 0; i < n; i++) {
			batch[i] = &queue[i];
			if (queue[i].timeout_ms > l.longest_check_ms)
				l.longest_check_ms = queue[i].timeout_ms;
		}
		rc = mark_batch(&l, batch, n, MARK_BEGIN, tip.buf, err);
		{
			struct member **left = xcalloc(n, sizeof(*left));
			size_t kept = n;

			memcpy(left, batch, n * sizeof(*left));
			if (rc == 0)
				rc = gate_batch(&l, tip.buf, left, &kept, err);
			if (rc == 0 && kept > 0)
				rc = land_lanes(&l, left, kept, err);
			free(left);
		}
		/*
		 * What is still queued of it waits for the next batch. What
		 * it left marked as being landed stays so: the next pass's
		 * recover() finds out, from the trunk, whether it landed.
		 */
		free(batch);
		if (rc < 0)
			break;
	}
	/*
	 * An error (git failed), or a landing that waits for a person, stops
	 * the pass: the rest of the queue says so (NEEDS YOU), and a runner
	 * does not wait on it. The next pass tries again.
	 */
	if (held && !stats->paused && (rc < 0 || l.halt)) {
		struct buf why = BUF_INIT;

		if (rc < 0)
			buf_addf(&why, "landing failed: %s (daicho land tries again)",
			    err->message.buf);
		else
			buf_adds(&why, "waits behind a landing that waits for a "
			    "person (see 'daicho status')");
		wait_rest(&l, why.buf);
		buf_release(&why);
	}
	if (held)
		use_approvals(&l);
done:
	if (held)
		drop_lock(&l);
	members_free(queue, n);
	json_decref(l.results);
	json_decref(l.approvals);
	strlist_release(&l.gate_globs);
	strlist_release(&l.gate_ids);
	config_release(&l.config);
	check_policy_release(&l.policy);
	buf_release(&l.root);
	buf_release(&l.git_dir);
	buf_release(&l.checkout);
	buf_release(&l.build);
	judge_release(&l.judge);
	buf_release(&l.branch);
	buf_release(&l.ref);
	buf_release(&l.token);
	buf_release(&l.trunk_checkout);
	buf_release(&tip);
	buf_release(&local);
	return rc;
}
