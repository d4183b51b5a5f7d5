/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Tamper evidence on one Unix account. Nothing stops a process that writes
 * the ledger's file directly (sqlite3, a psql login): the audit makes what
 * it did visible. It checks the events' hash chain (core/event.h) and
 * replays the events' effect on each task's state, and names every row
 * that no event explains: an event changed, removed or inserted around
 * daicho; a task whose state its events do not give; a task no event
 * added; a task whose checks are not the ones its events set.
 */
#ifndef DAICHO_AUDIT_H
#define DAICHO_AUDIT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "core/err.h"
#include "core/ledger.h"

struct audit_stats {
	int64_t events;         /* events read */
	int64_t before_chain;   /* events from before the chain began
				   (written by a daicho older than it) */
	int64_t tasks;          /* tasks replayed */
};

/*
 * Audit the ledger in one read transaction. Appends to findings (a JSON
 * array) one object per row that no event explains, in order:
 *   {"kind": "event", "event": ID, "why": TEXT}  the chain breaks there
 *   {"kind": "task", "task": ID, "why": TEXT}    a task its events do
 *                                                not explain
 * each "why" one line for a person. An empty array: every row is
 * explained. Returns 0 or the error.
 */
int audit_run(struct ledger *ledger, json_t *findings,
    struct audit_stats *stats, struct err *err);

/*
 * Keep an audit's result (findings, as audit_run() gave them; the first
 * few are kept whole) as the ledger's last, for NEEDS YOU (core/needs.h,
 * kind "tampered"), inside the caller's write transaction. Returns 0 or
 * the error.
 */
int audit_store(struct ledger *ledger, const json_t *findings,
    struct err *err);

/* audit_store() in a transaction of its own. */
int audit_record(struct ledger *ledger, const json_t *findings,
    struct err *err);

/*
 * Whether an audit is due (*due): the last is older than every_ms, or
 * there is none. Returns 0 or the error.
 */
int audit_due(struct ledger *ledger, int64_t every_ms, bool *due,
    struct err *err);

#endif
