/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The execution engine behind "daicho run": claims ready tasks and runs a
 * command for each, at most N at once, keeping one ledger connection for
 * every transition. Workers get only a task id (and DAICHO_TASK,
 * DAICHO_AGENT, DAICHO_LEDGER); their output goes to a log file per
 * attempt, never to the runner. The runner heart-beats for its workers,
 * reports on their behalf when they exit 0 without reporting, requeues
 * failures with backoff, pauses on rate limits without spending attempts,
 * stops launching when a budget is spent, and runs sweep passes itself so
 * that it ends with every task it touched verified, failed or claimable.
 *
 * The runner prints nothing: it tells an observer (the command line layer)
 * what happens.
 */
#ifndef DAICHO_RUNNER_H
#define DAICHO_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "core/ledger.h"

/* A snapshot for a progress display. */
struct run_progress {
	int64_t running;
	int64_t verified;      /* verified, landed ones included */
	int64_t failed;
	int64_t queued;        /* open tasks the runner may still take */
	int64_t finished;      /* worker processes ended so far */
	int64_t elapsed_ms;
	bool paused;           /* waiting out a rate limit */
	int64_t paused_until_ms; /* (wall clock) when launches resume */
	bool budget_spent;
};

struct run_observer {
	/*
	 * Once, after the options were found good and before the first
	 * launch; a negative return (an error set in err) stops the run.
	 */
	int (*starting)(void *arg, struct err *err);
	/* A worker process started for task id (attempt n). */
	void (*started)(void *arg, int64_t id, int64_t attempt, const char *agent);
	/* A worker ended: what the runner did about it ("reported", ...). */
	void (*ended)(void *arg, int64_t id, int status, int64_t duration_ms,
	    const char *outcome);
	/* Called about four times a second. */
	void (*progress)(void *arg, const struct run_progress *progress);
	void *arg;
};

struct run_options {
	char **argv;                /* CMD ARG...; "{id}" becomes the task id */
	int jobs;                   /* processes at once */
	int64_t timeout_ms;         /* per worker; 0: none */
	int64_t grace_ms;           /* between SIGTERM and SIGKILL */
	int64_t retries;            /* -1: the task's max attempts decide */
	int64_t retry_backoff_ms;   /* first retry delay; doubles */
	const char *label;          /* only tasks with this label */
	bool worktree;              /* a git worktree per task */
	const char *worktree_dir;   /* where (relative to the project root);
				     * NULL: <root>/.daicho-worktrees */
	int64_t budget_tokens;      /* 0: no budget */
	double budget_cost;         /* 0: no budget */
	bool follow;                /* keep waiting for new tasks */
	const char *rate_limit_pattern; /* extended regex, case-insensitive,
					 * replacing the built-in text rules
					 * (run/ratelimit.h); NULL: those */
	int64_t lease_ms;
	int64_t max_hold_ms;        /* 0: the ledger's default */
	int64_t sweep_every_ms;
	int64_t stale_after_ms;
	int64_t actor;              /* the agent running the runner */
	struct run_observer observer;
	volatile sig_atomic_t *signal_received; /* SIGINT/SIGTERM number, or 0 */
};

struct run_summary {
	int64_t tasks;             /* distinct tasks run */
	int64_t launched;          /* worker processes started */
	int64_t verified;          /* verified, landed ones included */
	int64_t landed;            /* of those, on the trunk */
	int64_t waiting_to_land;   /* of those, still in the landing queue */
	int64_t failed;
	int64_t claimable;         /* left open or claimed, for a later run */
	int64_t awaiting;          /* still reported (interrupted before a sweep) */
	int64_t retried;           /* failed attempts requeued */
	int64_t rate_limited;      /* attempts requeued because of a rate limit */
	int64_t false_reports;     /* reports the sweep rejected */
	int64_t recovered;         /* claims freed from a dead runner at start */
	int64_t tokens;            /* used by this run's tasks */
	double cost;
	bool budget_spent;
	int signal;                /* the signal that stopped it, or 0 */
	int64_t elapsed_ms;
};

/*
 * Run until nothing is ready or running (with follow: until a signal).
 * Fills *summary. Returns 0, or a negative error when the ledger failed or
 * the command could not be started at all.
 */
int run_tasks(struct ledger *ledger, const struct run_options *options,
    struct run_summary *summary, struct err *err);

#endif
