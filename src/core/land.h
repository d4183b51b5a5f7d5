/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Landing: verified work reaches the trunk, and the trunk stays green.
 *
 * In a git repository, with the "land" setting not off, a task whose
 * verdict accepted a commit is not done when verified: it waits in the
 * landing queue ('verified', land_queued_ms set), and the tasks that come
 * after it are not ready yet. A lander (land_pass(): 'daicho land', and
 * every sweep) takes the queue in order, a batch at a time (the
 * "land-batch" setting): it merges the batch's commits onto the trunk as
 * it is now without any work tree (merge: one merge commit whose parents
 * are the trunk and every task's commit; rebase: the task's own commits
 * replayed; squash: one commit a task), checks the result out in a warm
 * checkout of its own, runs every task's checks and the "land-check"
 * command there, and only when all pass moves the trunk, by
 * compare-and-swap from the commit it merged onto. A batch that fails is
 * split in halves, and each half is landed on its own (a bisection);
 * results are kept by tree, so a half whose merged tree already failed is
 * not checked again. With options->jobs above 1, a batch with a slow task
 * goes in lanes (core/land_lanes.c): a slow task does not hold up quick
 * ones that do not touch it. A task whose commit conflicts with the trunk, or whose
 * merged tree fails its checks or the land-check on its own, is sent back:
 * open again, with no attempt spent, its land_note saying what happened
 * (the prompt shows it), an event, and a message to its last holder if it
 * is live; after the "land-tries" setting's count of send-backs it fails.
 *
 * A main work tree that has the trunk out follows it: its index and files
 * are brought to the new commit first (git read-tree -m -u, which keeps
 * uncommitted changes to other paths and refuses to overwrite any); when
 * it holds uncommitted changes to paths the landing changes, the landing
 * waits, with land_waiting saying why (a person must act), and nothing
 * moves. One lander works at a time (the land_lock row, with an expiry,
 * held no more once the lander's process is gone from its host);
 * a lander killed after the trunk moved is found out by the next one, from
 * the "Daicho-Land: #ID COMMIT" lines of the trunk's new commits.
 */
#ifndef DAICHO_LAND_H
#define DAICHO_LAND_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "core/ledger.h"

enum land_mode {
	LAND_OFF,
	LAND_MERGE,  /* a --no-ff merge (one for a batch) */
	LAND_REBASE, /* the task's own commits replayed on the trunk */
	LAND_SQUASH, /* one commit a task */
};

#define LAND_DEFAULT_BATCH 16
#define LAND_DEFAULT_TRIES 3
/* The line every commit a lander makes carries for each task it lands. */
#define LAND_TRAILER "Daicho-Land: #"

struct land_options {
	int64_t actor;            /* who lands, for the record */
	int64_t stale_after_ms;   /* a holder unseen this long gets no message */
	bool dry_run;             /* say what would happen; change nothing */
	int jobs;                 /* merged trees checked at once, in lanes
				   * (docs/landing.md); 1 or less: one */
	volatile sig_atomic_t *stop; /* set by a signal: stop between steps */
};

struct land_stats {
	int64_t landed;        /* tasks now on the trunk */
	int64_t conflicts;     /* sent back: their commit conflicts */
	int64_t check_failed;  /* sent back: the merged tree fails */
	int64_t failed;        /* of those, out of landing tries: failed */
	int64_t waiting;       /* tasks whose landing waits for a person */
	int64_t check_runs;    /* merged trees checked */
	int64_t trunk_moves;   /* times the trunk moved */
	bool busy;             /* another lander is at work: nothing done */
	bool paused;           /* landing is paused: nothing done */
};

/*
 * The landing mode of the ledger into *mode: the "land" setting, merge when
 * unset; LAND_OFF for a ledger outside git. Returns 0 or the error.
 */
int land_mode(struct ledger *ledger, enum land_mode *mode, struct err *err);

/* The name of mode ("off", "merge", ...). */
const char *land_mode_name(enum land_mode mode);

/*
 * One pass: land what is queued, batch after batch, until the queue is
 * empty, a landing waits for a person, or options->stop is set. stats is
 * added to. With options->dry_run nothing is changed, and *plan (a new
 * JSON array, when plan is not NULL) says for each queued task, in order,
 * whether its commit merges cleanly onto the trunk as it is. A ledger
 * outside git, or with landing off, has nothing to land. Returns 0, or an
 * error of the ledger or of git (the trunk unreadable, say).
 */
int land_pass(struct ledger *ledger, const struct land_options *options,
    struct land_stats *stats, json_t **plan, struct err *err);

/*
 * Pause (pause true) or resume landing for every lander of the ledger,
 * with an event. ERR_CONFLICT when it is already so.
 */
int land_pause(struct ledger *ledger, int64_t actor, bool pause,
    struct err *err);

/*
 * Whether landing is paused: *paused, and since when (*since_ms) and by
 * whom (*by, an agent id), when it is.
 */
int land_paused(struct ledger *ledger, bool *paused, int64_t *since_ms,
    int64_t *by, struct err *err);

#endif
