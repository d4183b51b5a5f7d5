/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/sweep.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/audit.h"
#include "core/db.h"
#include "core/event.h"
#include "core/settings.h"
#include "core/task.h"
#include "core/wait.h"
#include "core/judge.h"
#include "core/verify.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/git.h"
#include "util/path.h"

int
sweep_expire_leases(struct ledger *ledger, int64_t actor,
    struct sweep_stats *stats, struct err *err)
{
	struct db_stmt *st;
	int64_t now = clock_now_ms();
	int rc;

	if ((rc = ledger_begin_as(ledger, &actor, err)) < 0)
		return rc;
	for (;;) {
		int64_t id, attempts, max_attempts, expired_ms, max_hold_ms = 0;
		char *owner = NULL;
		bool failed, held_too_long = false;
		json_t *detail;

		/*
		 * A claim ends when its lease runs out, or when its holder
		 * has not named the task for its maximum hold: heartbeats
		 * alone stop renewing the lease then (core/agent.c), and a
		 * lease taken longer than the hold ends with the hold.
		 */
		if ((rc = db_prepare(ledger,
		    "SELECT t.id, t.attempts, t.max_attempts,"
		    " min(t.lease_expires_ms,"
		    "  coalesce(t.claim_named_ms + t.max_hold_ms, t.lease_expires_ms)),"
		    " a.name, t.claim_named_ms + t.max_hold_ms <= ?1, t.max_hold_ms"
		    " FROM tasks t LEFT JOIN agents a ON a.id = t.owner"
		    " WHERE t.state = 'claimed' AND (t.lease_expires_ms <= ?1"
		    "  OR t.claim_named_ms + t.max_hold_ms <= ?1)"
		    " ORDER BY 4 LIMIT 1", &st, err)) < 0)
			goto fail;
		db_bind_int(st, 1, now);
		rc = db_step(st);
		if (rc == DB_ROW) {
			const char *name = db_column_text(st, 4);

			id = db_column_int(st, 0);
			attempts = db_column_int(st, 1);
			max_attempts = db_column_int(st, 2);
			expired_ms = db_column_int(st, 3);
			owner = name ? xstrdup(name) : NULL;
			held_too_long = db_column_int(st, 5) != 0;
			max_hold_ms = db_column_int(st, 6);
		}
		db_reset(st);
		if (rc == DB_DONE)
			break;
		if (rc != DB_ROW) {
			rc = db_error(ledger, rc, err, "finding expired leases");
			goto fail;
		}
		failed = attempts >= max_attempts;
		detail = json_pack("{s:s?, s:I, s:s, s:s}", "owner", owner,
		    "expired_ms", (json_int_t)expired_ms, "to",
		    failed ? "failed" : "open", "reason", held_too_long
			? "max hold: no command of the holder named the task"
			: "lease ran out: the holder stopped heart-beating");
		if (held_too_long) {
			json_object_set_new(detail, "max_hold_ms",
			    json_integer(max_hold_ms));
			stats->held_too_long++;
		}
		rc = event_append(ledger, actor, "lease-expired", id, detail, err);
		free(owner);
		if (rc < 0)
			goto fail;
		/* The lease read was a claim's: t.state = 'claimed' above. */
		TASK_MOVE_CHECK("claimed", failed ? "failed" : "open");
		if ((rc = db_prepare(ledger, failed
		    ? "UPDATE tasks SET state = 'failed', lease_expires_ms = NULL,"
		      " updated_ms = ?2 WHERE id = ?1"
		    : "UPDATE tasks SET state = 'open', owner = NULL, lease_ms = NULL,"
		      " lease_expires_ms = NULL, updated_ms = ?2 WHERE id = ?1",
		    &st, err)) < 0)
			goto fail;
		db_bind_int(st, 1, id);
		db_bind_int(st, 2, now);
		if ((rc = db_step_done(ledger, st, "expiring a lease",
			 err)) < 0)
			goto fail;
		if (failed && (rc = event_append(ledger, actor, "fail", id,
				   json_pack("{s:s, s:I}", "reason",
				       "attempts exhausted", "attempts",
				       (json_int_t)attempts), err)) < 0)
			goto fail;
		stats->expired++;
		if (failed)
			stats->failed++;
	}
	return ledger_commit(ledger, err);
fail:
	ledger_rollback(ledger);
	return rc;
}

/* Whether "<id>-<token>" names a live verification claim. */
static int
claim_is_live(struct ledger *ledger, const char *name, bool *live,
    struct err *err)
{
	struct db_stmt *st;
	const char *dash = strchr(name, '-');
	int rc;

	*live = false;
	if (dash == NULL)
		return 0;
	if ((rc = db_prepare(ledger,
	    "SELECT 1 FROM tasks WHERE id = ? AND verify_token = ?"
	    " AND verify_expires_ms > ?", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, strtoll(name, NULL, 10));
	db_bind_text(st, 2, dash + 1);
	db_bind_int(st, 3, clock_now_ms());
	rc = db_step(st);
	*live = rc == DB_ROW;
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_error(ledger, rc, err, "reading verification claims");
	return 0;
}

/*
 * Remove the worktrees that 'daicho run --worktree' made (branch
 * daicho/ID, wherever --worktree-dir put them) once their work is safe:
 * the task is over (verified, failed or cancelled), nothing in the
 * worktree is uncommitted, and its branch head is reachable from HEAD of
 * the main work tree at root (merged, or it never moved). The branch goes
 * with it.
 */
static void
prune_run_worktrees(struct ledger *ledger, const char *root,
    struct sweep_stats *stats)
{
	struct strlist paths = STRLIST_INIT, names = STRLIST_INIT;
	struct buf dotgit = BUF_INIT, head = BUF_INIT, branch = BUF_INIT,
		   why = BUF_INIT;

	if (path_find_upward(root, ".git", &dotgit) != 0 ||
	    git_worktrees_on(root, "refs/heads/daicho/", &paths, &names) < 0)
		goto done;
	for (size_t i = 0; i < paths.count; i++) {
		struct err ignored = ERR_INIT;
		struct task task;
		char *end;
		long long id = strtoll(names.items[i], &end, 10);
		bool over;

		if (*end != '\0' || id <= 0 ||
		    task_get(ledger, id, &task, &ignored) < 0) {
			err_release(&ignored);
			continue;
		}
		over = strcmp(task.state, "verified") == 0 ||
		    strcmp(task.state, "landed") == 0 ||
		    strcmp(task.state, "failed") == 0 ||
		    strcmp(task.state, "cancelled") == 0;
		/*
		 * Its work is merged: HEAD holds it, or it landed (rebase and
		 * squash land copies: the landed commit is its work).
		 */
		if (!over || git_worktree_is_clean(paths.items[i]) != 1 ||
		    git_rev_parse(paths.items[i], "HEAD", &head) < 0 ||
		    (git_is_ancestor(root, head.buf, "HEAD", &why) != 1 &&
		     !(strcmp(task.state, "landed") == 0 && task.report_commit &&
		       strcmp(task.report_commit, head.buf) == 0))) {
			task_free_fields(&task);
			continue;
		}
		task_free_fields(&task);
		git_worktree_remove(root, paths.items[i]);
		buf_reset(&branch);
		buf_addf(&branch, "daicho/%lld", id);
		git_branch_delete(root, branch.buf);
		stats->pruned++;
	}
done:
	strlist_release(&paths);
	strlist_release(&names);
	buf_release(&dotgit);
	buf_release(&head);
	buf_release(&branch);
	buf_release(&why);
}

int
sweep_prune_worktrees(struct ledger *ledger, struct sweep_stats *stats,
    struct err *err)
{
	struct buf dir = BUF_INIT, root = BUF_INIT, path = BUF_INIT;
	struct judge judge = JUDGE_INIT;
	struct dirent *entry;
	DIR *d;
	int rc = 0;

	verify_locations(ledger, &dir, &root);
	prune_run_worktrees(ledger, root.buf, stats);
	/* Verification checkouts are the judge's (core/judge.h). */
	judge_locate(ledger, &judge);
	d = opendir(dir.buf);
	if (d == NULL)
		goto done;
	while ((entry = readdir(d)) != NULL) {
		bool live;

		/* Warm checkouts stay (judge_checkout_take() mends them). */
		if (entry->d_name[0] == '.' ||
		    strncmp(entry->d_name, "warm-", 5) == 0)
			continue;
		if ((rc = claim_is_live(ledger, entry->d_name, &live, err)) < 0)
			break;
		if (live)
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir.buf, entry->d_name);
		git_worktree_remove(judge.dir.len ? judge.dir.buf : root.buf,
		    path.buf);
		path_remove_tree(path.buf);
		stats->pruned++;
	}
	closedir(d);
	/* Once per pass, for leftovers whose directory a crash took away. */
	if (stats->pruned > 0) {
		git_worktree_prune(root.buf);
		if (judge.dir.len)
			git_worktree_prune(judge.dir.buf);
	}
done:
	judge_release(&judge);
	buf_release(&dir);
	buf_release(&root);
	buf_release(&path);
	return rc;
}

/* Verify reported tasks one after another until none is left. */
static int
verify_loop(struct ledger *ledger, const struct sweep_options *options,
    struct sweep_stats *stats, struct err *err)
{
	struct buf token = BUF_INIT;
	struct verify_setup setup = VERIFY_SETUP_INIT;
	int64_t freed = 0;
	int rc;

	/* A sweep that died mid-verification holds its task until now. */
	if ((rc = verify_free_dead_claims(ledger, &freed, err)) < 0)
		return rc;
	if ((rc = verify_setup_read(ledger, options->remote, &setup, err)) < 0)
		goto done;
	while (options->stop == NULL || !*options->stop) {
		struct verdict verdict;
		enum verify_outcome outcome;
		int64_t id;

		verify_new_token(&token);
		setup.options.token = token.buf;
		if ((rc = verify_take(ledger, 0, options->reported_by_ms,
			 options->not_owned_by, token.buf, &id, err)) != 0)
			break;
		if ((rc = verify_task(ledger, id, &setup.options, &verdict,
			 err)) < 0)
			break;
		rc = verify_record(ledger, &verdict, token.buf, options->actor,
		    options->stale_after_ms, &outcome, err);
		verdict_release(&verdict);
		if (rc < 0)
			break;
		switch (outcome) {
		case VERIFY_VERIFIED:
			stats->verified++;
			break;
		case VERIFY_REJECTED_TO_OWNER:
		case VERIFY_REJECTED_TO_OPEN:
			stats->rejected++;
			break;
		case VERIFY_FAILED:
			stats->rejected++;
			stats->failed++;
			break;
		case VERIFY_VACUOUS:
		case VERIFY_UNSCOPED:
			stats->rejected++;
			break;
		default:
			break;
		}
	}
done:
	verify_setup_release(&setup);
	buf_release(&token);
	return rc < 0 ? rc : 0;
}

static int
count_reported(struct ledger *ledger, int64_t *count, struct err *err)
{
	return ledger_query_int(ledger,
	    "SELECT count(*) FROM tasks WHERE state = 'reported'", count, err);
}

/*
 * Verify with several processes: each child opens its own connection (a
 * SQLite connection must not cross fork), runs the loop and sends its
 * counts back through a pipe. Two children never take the same task: the
 * verification claim is what keeps separate sweeps apart too.
 */
static int
verify_in_parallel(struct ledger *ledger, int jobs,
    const struct sweep_options *options, struct sweep_stats *stats,
    struct err *err)
{
	pid_t *pids = xcalloc((size_t)jobs, sizeof(pid_t));
	int *fds = xcalloc((size_t)jobs, sizeof(int));
	int started = 0, rc = 0;

	for (int i = 0; i < jobs; i++) {
		int pipe_fds[2];
		pid_t pid;

		if (pipe(pipe_fds) < 0)
			break;
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			close(pipe_fds[0]);
			close(pipe_fds[1]);
			break;
		}
		if (pid == 0) {
			struct sweep_stats mine = { 0 };
			struct ledger *own = NULL;
			struct err child_err = ERR_INIT;
			int status = 0;

			close(pipe_fds[0]);
			ledger_leave_to_parent(ledger);
			if (ledger_open(ledger_path(ledger), &own, &child_err) < 0 ||
			    verify_loop(own, options, &mine, &child_err) < 0)
				status = 1;
			if (write(pipe_fds[1], &mine, sizeof(mine)) < 0)
				status = 1;
			if (status && child_err.message.len)
				(void)!write(pipe_fds[1], child_err.message.buf,
				    child_err.message.len);
			ledger_close(own);
			_exit(status);
		}
		close(pipe_fds[1]);
		pids[started] = pid;
		fds[started] = pipe_fds[0];
		started++;
	}
	for (int i = 0; i < started; i++) {
		struct sweep_stats theirs = { 0 };
		struct buf message = BUF_INIT;
		int status = 0;

		if (read(fds[i], &theirs, sizeof(theirs)) == (ssize_t)sizeof(theirs)) {
			stats->verified += theirs.verified;
			stats->rejected += theirs.rejected;
			stats->failed += theirs.failed;
		}
		buf_read_fd(&message, fds[i]);
		close(fds[i]);
		while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR)
			;
		if ((!WIFEXITED(status) || WEXITSTATUS(status) != 0) && rc == 0)
			rc = err_set(err, ERR_FAILED, "a verification process failed (%s)",
			    message.len ? message.buf : "no message");
		buf_release(&message);
	}
	if (started == 0)
		rc = verify_loop(ledger, options, stats, err);
	free(pids);
	free(fds);
	return rc;
}

int
sweep_pass(struct ledger *ledger, const struct sweep_options *options,
    struct sweep_stats *stats, struct err *err)
{
	int64_t reported = 0;
	int jobs = options->jobs > 0 ? options->jobs : 1;
	struct sweep_options pass = *options;
	json_t *findings = NULL;
	int rc;

	if ((rc = ledger_require_judge(ledger, "the sweep", err)) < 0)
		return rc;
	/*
	 * A pass verifies the reports that existed when it began: reports
	 * that keep arriving wait for the next pass, so a pass ends.
	 */
	pass.reported_by_ms = clock_now_ms();
	options = &pass;
	if ((rc = sweep_prune_worktrees(ledger, stats, err)) < 0)
		return rc;
	if (options->stop && *options->stop)
		return 0;
	/* The audit reads; what it found is kept with the upkeep below. */
	{
		struct audit_stats audited;
		bool due;

		if ((rc = audit_due(ledger, SWEEP_AUDIT_EVERY_MS, &due, err)) < 0)
			return rc;
		if (due) {
			findings = json_array();
			if ((rc = audit_run(ledger, findings, &audited, err)) < 0) {
				json_decref(findings);
				return rc;
			}
		}
	}
	/*
	 * The upkeep (stale agents, orphaned and overdue waits, expired
	 * leases) in one transaction: one commit and one trip through the
	 * write lock per pass, not three, busy or idle.
	 */
	{
		int64_t stale = 0, waits = 0;

		if ((rc = ledger_begin(ledger, err)) < 0) {
			json_decref(findings);
			return rc;
		}
		if ((findings != NULL &&
			(rc = audit_store(ledger, findings, err)) < 0) ||
		    (rc = agent_mark_stale(ledger, options->actor,
			 options->stale_after_ms, &stale, err)) < 0 ||
		    (rc = wait_escalate(ledger, options->actor,
			 options->stale_after_ms, &waits, err)) < 0 ||
		    (rc = sweep_expire_leases(ledger, options->actor, stats,
			 err)) < 0) {
			ledger_rollback(ledger);
			json_decref(findings);
			return rc;
		}
		if ((rc = ledger_commit(ledger, err)) < 0) {
			json_decref(findings);
			return rc;
		}
		if (findings != NULL) {
			stats->audited++;
			stats->tampered = (int64_t)json_array_size(findings);
			json_decref(findings);
		}
		stats->stale += stale;
		stats->waits += waits;
	}
	if (options->stop && *options->stop)
		return 0;
	if ((rc = count_reported(ledger, &reported, err)) < 0)
		return rc;
	/* Nothing to verify: an idle pass takes the write lock only once. */
	if (reported > 0) {
		if (reported < jobs)
			jobs = (int)reported;
		rc = jobs <= 1 ? verify_loop(ledger, options, stats, err)
			       : verify_in_parallel(ledger, jobs, options, stats, err);
		if (rc < 0)
			return rc;
	}
	if (options->stop && *options->stop)
		return 0;
	/* What was verified, and what waited, lands (core/land.h). */
	{
		struct land_options land = {
			.actor = options->actor,
			.stale_after_ms = options->stale_after_ms,
			.jobs = options->jobs,
			.stop = options->stop,
		};

		return land_pass(ledger, &land, &stats->land, NULL, err);
	}
}
