/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The sweep: one pass verifies every reported task (several at once),
 * marks agents that stopped heart-beating stale, escalates overdue waits,
 * expires the leases of claims whose holder stopped heart-beating, and
 * removes verification worktrees that a crashed sweep left behind and the
 * worktrees of 'daicho run' whose work is merged, and audits the record
 * when the last audit is an hour old (core/audit.h). A pass
 * is idempotent and safe to run from several processes at once: each
 * reported task is taken with a verification claim, and a verdict is
 * recorded only while that claim is still its own.
 */
#ifndef DAICHO_SWEEP_H
#define DAICHO_SWEEP_H

#include <signal.h>
#include <stdint.h>

#include "core/agent.h"
#include "core/err.h"
#include "core/land.h"
#include "core/ledger.h"

#define SWEEP_DEFAULT_STALE_AFTER_MS AGENT_STALE_AFTER_MS
#define SWEEP_AUDIT_EVERY_MS (60 * 60 * 1000) /* an audit at most hourly */

struct sweep_options {
	int jobs;                /* verifications at once (processes) */
	int64_t stale_after_ms;  /* an owner unseen this long is gone */
	int64_t actor;           /* who runs the sweep, for the record */
	volatile sig_atomic_t *stop; /* set by a signal: stop between steps */
	int64_t reported_by_ms;  /* set by sweep_pass(): its start */
	int64_t not_owned_by;    /* an agent whose own reports are left for
				  * another sweep (0: none) */
	const char *remote;      /* where missing reported commits are fetched
				  * from ("none": not); NULL: the ledger's
				  * "remote" setting */
};

struct sweep_stats {
	int64_t verified;  /* reported -> verified */
	int64_t rejected;  /* reported -> back to owner or open */
	int64_t failed;    /* rejected or expired with attempts used up */
	int64_t expired;   /* leases expired */
	int64_t held_too_long; /* of those, claims past their maximum hold */
	int64_t pruned;    /* leftover worktrees removed */
	int64_t stale;     /* agents marked stale (their leases expired) */
	int64_t waits;     /* waits escalated: owners reminded, handed over */
	int64_t audited;   /* audits run (core/audit.h): once an hour */
	int64_t tampered;  /* rows the last of them found no event explains */
	struct land_stats land; /* what landing did (core/land.h) */
};

/* One pass, as described above. stats is added to. */
int sweep_pass(struct ledger *ledger, const struct sweep_options *options,
    struct sweep_stats *stats, struct err *err);

/* Expire every claim whose lease has run out: open, or failed when its
 * attempts are used up. */
int sweep_expire_leases(struct ledger *ledger, int64_t actor,
    struct sweep_stats *stats, struct err *err);

/*
 * Remove verification worktrees not held by a live verification claim,
 * and the worktrees of 'daicho run --worktree' whose task is over and
 * whose work is merged (nothing uncommitted, branch reachable from HEAD).
 */
int sweep_prune_worktrees(struct ledger *ledger, struct sweep_stats *stats,
    struct err *err);

#endif
