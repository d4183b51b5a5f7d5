/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * What the lander's files share (core/land.c, core/land_lanes.c); not for
 * the rest of core. core/land.h says what landing is.
 */
#ifndef DAICHO_LAND_INTERNAL_H
#define DAICHO_LAND_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/checkrun.h"
#include "core/err.h"
#include "core/judge.h"
#include "core/land.h"
#include "core/ledger.h"
#include "util/buf.h"
#include "util/strlist.h"

/* What the settings say about landing. */
struct land_config {
	enum land_mode mode;
	struct buf check;   /* the land-check command; empty: none */
	int64_t check_timeout_ms; /* how long it may run */
	int64_t batch;      /* most tasks merged at once */
	int64_t tries;      /* send-backs before a task fails */
	struct buf trunk;   /* the trunk setting; empty: unset */
	struct buf remote;  /* the remote whose trunk lands are pushed to
			     * (task_trunk_remote()); empty: the trunk is the
			     * local branch */
	bool remote_explicit; /* a person set it ("remote" setting) */
};

/* One queued task of a batch. */
struct member {
	int64_t id;
	char *commit;      /* the verified commit */
	char *title;
	int64_t holder;    /* its last holder, or 0 */
	int64_t timeout_ms; /* its check timeout */
	char *landed;      /* the trunk commit that holds it, once made */
};

/* A lander's state for one pass. */
struct lander {
	struct ledger *ledger;
	const struct land_options *options;
	struct land_stats *stats;
	struct land_config config;
	struct buf root;      /* the main work tree (the project root) */
	struct buf git_dir;   /* the repository's common directory */
	struct buf checkout;  /* the warm checkout the checks run in: a work
				 tree of the judge's repository */
	struct buf build;     /* rebase's: a work tree of the project's, where
				 commits are replayed */
	struct judge judge;   /* the judge's repository (core/judge.h) */
	struct buf branch;    /* the trunk's branch */
	struct buf ref;       /* refs/heads/BRANCH, or, with a remote,
				 refs/remotes/REMOTE/BRANCH: where the tip
				 is read */
	struct buf token;     /* this lander's hold on land_lock */
	struct buf trunk_checkout; /* the work tree that has the trunk out
				 (the main one, or a linked one), which
				 follows it; empty: none has */
	bool halt;            /* a landing waits for a person: stop */
	bool checkout_dirty;  /* the warm checkout may hold files it does not
				 track (a command ran there; at first, who
				 knows): git clean it before it is used */
	struct check_policy policy; /* how checks run (core/checkrun.h) */
	json_t *results;      /* tree -> {check owner: "" or why it failed} */
	bool gates_read;      /* gate_globs and gate_ids are read */
	json_t *approvals;    /* [{id, tasks}]: approvals of landings this pass
				 goes on with, used once a task of theirs landed */
	struct strlist gate_globs; /* the path globs of gates on landing */
	struct strlist gate_ids;   /* their gates' ids, in step */
	int64_t longest_check_ms; /* for the lock's expiry */
	bool speculating;     /* building a lane's candidate on a trunk that
				 is not there yet (land_lanes.c): nothing is
				 sent back or marked */
	bool lane_child;      /* a lane's process: judges only; the lock is
				 its parent's to hold */
};

/* A candidate: the trunk commit that would land some members. */
struct candidate {
	struct buf commit;    /* the final commit */
	struct buf tree;      /* its tree */
	struct member **members; /* those in it, in order */
	size_t count;
};

/*
 * The trunk's commit now into tip: the local branch's, or the remote's
 * as a fetch brings it. Returns 0, or -1 (err set).
 */
int land_trunk_tip(struct lander *l, struct buf *tip, struct err *err);

/* Whether the pass should stop now (a landing waits, or a signal came). */
bool land_stopping(const struct lander *l);

/*
 * Take or renew the land lock for l->token; *held says whether it is
 * ours. Returns 0, or the ledger's error.
 */
int land_hold_lock(struct lander *l, bool *held, struct err *err);

/*
 * The lock is no longer ours: 2 when landing was paused (l->halt set),
 * else ERR_CONFLICT (another lander took it).
 */
int land_lock_lost(struct lander *l, struct err *err);

void land_candidate_release(struct candidate *c);

/*
 * Build into c the candidate that lands group (count members, in order)
 * on tip. A member that conflicts with tip itself is sent back (unless
 * l->speculating or a dry run); one that conflicts with an earlier member
 * is left for later, counted in *dropped. Returns 0 (c->count may be 0),
 * or -1 (err set).
 */
int land_build_candidate(struct lander *l, const char *tip,
    struct member **group, size_t count, struct candidate *c,
    size_t *dropped, struct err *err);

/*
 * Judge c: its members' checks and the land-check on its tree, from
 * l->results (kept by tree) when known, else run in l->checkout and kept
 * there. *passed says; failure says why when not. Returns 0 or -1.
 */
int land_judge(struct lander *l, struct candidate *c, bool *passed,
    struct buf *failure, struct err *err);

/*
 * Land group (count members, in queue order) on the trunk as it is now:
 * build, judge, move the trunk; on failure, bisect. Returns 0 or -1.
 */
int land_group(struct lander *l, struct member **group, size_t count,
    struct err *err);

/*
 * Make the warm checkout dir (a linked work tree of repo, at tip) if it
 * is not there yet, or is not repo's. Returns 0, or -1 (err set).
 */
int land_prepare_checkout(struct lander *l, const char *dir, const char *repo,
    const char *tip, struct err *err);

/*
 * Bring commit (a full hash) into the judge's repository, where checks
 * look at it. Returns 0, or -1 (err set).
 */
int land_bring(struct lander *l, const char *commit, struct err *err);

/*
 * Land group as land_group() does, but with l->options->jobs above 1 and
 * a change whose checks are slow, in lanes (core/land_lanes.c): the
 * conflict analyzer splits the group into independent parts, the slow
 * ones go behind the quick ones, and each lane's merged tree (on top of
 * the lanes before it) is checked at once in a process and a checkout of
 * its own. Each lane lands as soon as it and those before it have passed.
 * Returns 0 or -1.
 */
int land_lanes(struct lander *l, struct member **group, size_t count,
    struct err *err);

#endif
