/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Verification: running a task's definition of done against the artefact,
 * never against the worker's word, and recording the verdict with its
 * evidence.
 *
 * Where checks run: when the report names a commit, in a warm checkout of
 * the judge's own repository under "<ledger dir>/verify/" (core/judge.h:
 * judge_checkout_take()), made to hold exactly that commit first and
 * emptied of what the checks left afterwards; otherwise
 * in the project root (path_project_root()). Every cmd: check runs in the
 * sandbox the ledger's policy says (core/checkrun.h). With a commit, the
 * file: and cmd: checks run at the claim's base too (kept by tree in the
 * baselines table): when all passed there, the verdict is vacuous. The
 * commands run there traced (util/trace.h): a commit that changes a path
 * they read or looked for, outside the task's scope, is rejected
 * ("inputs"), and so is a run at the commit that writes one. A task
 * without checks passes on "saved" when it has a result, else on the
 * report alone.
 */
#ifndef DAICHO_VERIFY_H
#define DAICHO_VERIFY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/checkrun.h"
#include "core/err.h"
#include "core/judge.h"
#include "core/ledger.h"

#define VERIFY_DEFAULT_CHECK_TIMEOUT_MS (10 * 60 * 1000)
#define VERIFY_OUTPUT_TAIL_BYTES 4096
#define VERIFY_FETCH_TIMEOUT_MS (2 * 60 * 1000) /* each git fetch */

/* One check's run: what it was, how it ended, the evidence. */
struct check_run {
	char *spec;          /* "file:out.txt", "cmd:make test", "saved"... */
	bool passed;
	int exit_status;     /* a cmd's exit status; -1 when none or killed */
	int64_t duration_ms;
	struct buf output;   /* last 4 KB of a cmd's output, or the reason */
	int base_passed;     /* at the claim's base: 1 passed, 0 failed, -1
			      * not run there */
};

struct verdict {
	int64_t id;          /* verdicts row, once recorded; 0 before */
	int64_t task;
	bool passed;
	int64_t at_ms;
	char *commit;        /* the commit checked, or NULL */
	int64_t checks_version; /* which version of the task's checks ran */
	char *tree;          /* the commit's tree (its content), or NULL */
	char *summary;       /* one line: why it failed, or what passed */
	struct check_run *runs;
	size_t run_count;
	char *fetched_from;  /* the remote the commit was fetched from, or NULL */
	bool deferred;       /* nothing judged: the environment failed (the
			      * commit could not be fetched, no sandbox could
			      * be made); the task stays */
	const char *sandbox; /* how its commands ran: "sandbox", or "off"
			      * (the person's setting); NULL: none ran */
	bool vacuous;        /* every check passed at the claim's base too:
			      * they prove nothing about the work */
	bool unscoped;       /* the work changes what its checks read, and
			      * nobody but its worker said what it may
			      * change (no --touches): a person decides */
	char *base_tree;     /* the claim's base's tree, when checks ran on it */
	json_t *base_results; /* what ran there this time (key -> true or
			      * false), kept by verify_record(); or NULL */
	json_t *base_inputs; /* what each cmd: check of those read and looked
			      * for there (key -> {"read": [...], "missing":
			      * [...]}), kept beside them; or NULL */
};

void verdict_release(struct verdict *verdict);

struct verify_options {
	const char *root;         /* the project root (checks without commit) */
	const char *worktree_dir; /* where verification worktrees go */
	const char *token;        /* unique name for this run's worktree */
	const char *remote;       /* where a reported commit the repository
				   * lacks is fetched from; NULL or "": not */
	const struct check_policy *policy; /* how commands run (core/checkrun.h) */
	const struct judge *judge; /* the judge's repository (core/judge.h), or
				    * NULL outside git */
};

/*
 * Run every check of task id now and fill *out. Reads the ledger without
 * locking and changes nothing. A failed check is a verdict, not an error;
 * the error return is for a task that does not exist or a ledger failure.
 *
 * A reported commit the repository at options->root lacks is fetched from
 * options->remote first: the exact commit (git fetch REMOTE HASH), then,
 * when the server refuses that or the commit is still on no branch here,
 * the remote's branches into refs/remotes/REMOTE/. A run "fetch" says
 * what was fetched (out->fetched_from names the remote). A remote that
 * does not have the commit fails the verdict, as a missing commit does;
 * a fetch that could not be made (the remote unreachable, a timeout) sets
 * out->deferred: the work was not judged.
 */
int verify_task(struct ledger *ledger, int64_t id,
    const struct verify_options *options, struct verdict *out, struct err *err);

/*
 * Run task id's own checks (file:, cmd:, saved, commit) in the checkout at
 * dir, in the order verify_task() runs them (files first, then commands),
 * in the repository at root, commands under policy: each a run appended
 * to out. A task with no checks has no run (verify_task() would judge its
 * saved result: that is not about a tree). Nothing else is judged and
 * nothing is recorded. Returns 0; the error of reading the task; or
 * ERR_FAILED when a command cannot run for want of the sandbox.
 */
int verify_checks_in(struct ledger *ledger, int64_t id, const char *dir,
    const char *root, const struct check_policy *policy, struct verdict *out,
    struct err *err);

/*
 * Run command through /bin/sh in dir under policy (with DAICHO_TASK=task
 * when task is not 0), killed with everything it started after
 * timeout_ms: a run "cmd:COMMAND" appended to out. Returns 0, or
 * ERR_FAILED when the sandbox cannot be made (nothing ran).
 */
int verify_run_command(const struct check_policy *policy, const char *dir,
    const char *command, int64_t task, int64_t timeout_ms,
    struct verdict *out, struct err *err);

/* One line saying why the first failed run of v failed, appended to out. */
void verify_first_failure(const struct verdict *v, struct buf *out);

/*
 * Take the next reported task not already being verified, with a
 * verification claim (token; it expires after the task's checks could have
 * timed out, so a crashed sweep's task is taken again). only: that task
 * alone, or 0 for any; reported_by_ms: only a task reported (or changed
 * since) no later than that, or 0 for any; not_owned_by: never a task
 * this agent holds (its own report), or 0. Returns 0 with *id, or 1 when
 * there is none.
 */
int verify_take(struct ledger *ledger, int64_t only, int64_t reported_by_ms,
    int64_t not_owned_by, const char *token, int64_t *id, struct err *err);

/*
 * Whether a report of task id must name a commit: the ledger is in a git
 * repository and a check of the task (file:, cmd:, commit) looks at the
 * work, which verification sees only as committed. *needs says.
 */
int verify_needs_commit(struct ledger *ledger, int64_t id, bool *needs,
    struct err *err);

/*
 * Whether commit (a full hash) is in the repository of the ledger, where
 * the sweep will look for it: *known, and that repository's work tree in
 * where. Always known for a ledger outside git. Returns 0.
 */
int verify_commit_known(struct ledger *ledger, const char *commit,
    bool *known, struct buf *where);

/* What recording a verdict did to the task. */
enum verify_outcome {
	VERIFY_STALE,      /* no longer ours to decide (token or state changed) */
	VERIFY_VERIFIED,   /* reported -> verified */
	VERIFY_REJECTED_TO_OWNER, /* back to claimed by its living owner */
	VERIFY_REJECTED_TO_OPEN,  /* back to open: the owner is gone */
	VERIFY_FAILED,     /* attempts used up */
	VERIFY_STILL_GOOD, /* re-verification of a verified task passed */
	VERIFY_REOPENED,   /* re-verification failed: verified -> open */
	VERIFY_DEFERRED,   /* not judged (verdict->deferred): still reported */
	VERIFY_VACUOUS,    /* the checks passed at the claim's base already
			    * (verdict->vacuous): blocked, for a person */
	VERIFY_UNSCOPED,   /* the work changes what the checks read, and the
			    * task has no scope (verdict->unscoped):
			    * blocked, for a person */
};

/*
 * Record verdict for its task in one transaction, with every check run,
 * and apply it. For a reported task taken with token: pass -> verified
 * (the claim is released; dependents may become ready); fail -> back to
 * the owner (claimed, lease renewed, a new attempt) when the owner was seen
 * within stale_after_ms, else open; past max attempts -> failed. For a
 * verified task (token NULL): fail -> open, with the reason logged.
 * A deferred verdict changes no state: for a reported task it is recorded
 * with a "verify-deferred" event and the verification claim is let go, so
 * the next sweep tries again; for a verified task nothing is recorded.
 */
int verify_record(struct ledger *ledger, struct verdict *verdict,
    const char *token, int64_t actor, int64_t stale_after_ms,
    enum verify_outcome *outcome, struct err *err);

/*
 * Verify reported task id here and now when its checks need no process and
 * no work tree (it has none, or only "saved"): take it, judge it, record
 * the verdict, as a sweep would. *done is false when it needs a sweep
 * instead (real checks, or another verifier has it); *outcome is set when
 * done.
 */
int verify_if_instant(struct ledger *ledger, int64_t id, int64_t actor,
    int64_t stale_after_ms, bool *done, enum verify_outcome *outcome,
    struct err *err);

/* The last recorded verdict of task id, with its runs; 1 when none. */
int verify_last(struct ledger *ledger, int64_t id, struct verdict *out,
    struct err *err);

/*
 * Call fn with each recorded verdict of task id, with its runs, newest
 * first: the newest limit of them (0: all). The verdict lives only for the
 * call; a non-zero return from fn stops the walk and is returned.
 */
int verify_each(struct ledger *ledger, int64_t id, int64_t limit,
    int (*fn)(const struct verdict *verdict, void *arg), void *arg,
    struct err *err);

/* Fill buf with a random token of 16 hex characters, naming nothing. */
void verify_new_random_token(struct buf *token);

/*
 * Fill buf with a verification claim's token: 16 random hex characters,
 * then "-PID.START-HOST.PIDNS" of this process (its start time, its host
 * and pid namespace), so that a claim whose taker died can be told
 * (verify_free_dead_claims()). Only [A-Za-z0-9._-]: it names the claim's
 * worktree too.
 */
void verify_new_token(struct buf *token);

/*
 * Free the verification claims of reported tasks whose taker was a process
 * of this host and pid namespace that is gone (a sweep killed, or cut by a server restart,
 * mid-verification): another sweep takes them at once instead of after
 * the claim's expiry (the task's checks' timeout and two minutes). *freed
 * counts them. Returns 0 or the error.
 */
int verify_free_dead_claims(struct ledger *ledger, int64_t *freed,
    struct err *err);

/*
 * Where a ledger's verification worktrees live ("<ledger dir>/verify") and
 * the project root checks run in without a commit. Appended to the bufs
 * (either may be NULL).
 */
void verify_locations(struct ledger *ledger, struct buf *worktree_dir,
    struct buf *root);

/*
 * What a run of verifications reads from the ledger once, owned together:
 * where the worktrees go, the project root, the checks' policy, the judge
 * and the remote. options points into them; options.token is the
 * caller's to set.
 */
struct verify_setup {
	struct buf worktrees, root, remote;
	struct check_policy policy;
	struct judge judge;
	struct verify_options options;
};

#define VERIFY_SETUP_INIT                                              \
	{ BUF_INIT, BUF_INIT, BUF_INIT, CHECK_POLICY_INIT, JUDGE_INIT, \
		{ NULL, NULL, NULL, NULL, NULL, NULL } }

/*
 * Fill s (VERIFY_SETUP_INIT first) for ledger. remote is the one given
 * (--remote: "none" for none), or NULL for the ledger's setting;
 * options.judge is NULL outside git. Returns 0 or the error; s is
 * released by verify_setup_release() either way.
 */
int verify_setup_read(struct ledger *ledger, const char *remote,
    struct verify_setup *s, struct err *err);

void verify_setup_release(struct verify_setup *s);

#endif
