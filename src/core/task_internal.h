/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Shared between the task modules (task.c, task_add.c, claim.c), not for
 * other callers.
 */
#ifndef DAICHO_TASK_INTERNAL_H
#define DAICHO_TASK_INTERNAL_H

#include "core/task.h"

struct db_stmt;

/* The columns task_read_row() expects, in order, from tasks t / agents a. */
#define TASK_COLUMNS                                                          \
	"t.id, t.title, t.state, t.priority, t.parent, t.owner, a.name,"      \
	" t.lease_expires_ms, t.attempts, t.max_attempts, t.unmet_deps,"      \
	" t.report_commit, t.report_note, t.block_reason, t.created_ms,"      \
	" t.updated_ms, length(t.body),"                                      \
	" (SELECT count(*) FROM saves s WHERE s.task = t.id),"                \
	" (SELECT length(s.result) FROM saves s WHERE s.task = t.id"          \
	"  ORDER BY s.id DESC LIMIT 1), t.check_timeout_ms, t.checks_version," \
	" t.max_hold_ms, t.claim_named_ms, t.claim_base, t.land_queued_ms,"  \
	" t.land_tries, t.land_note, t.land_waiting, t.landed_commit,"        \
	" t.landed_trunk, t.landed_ms, t.no_baseline, t.check_needs"

/* Fill out from the current row of st (TASK_COLUMNS), edges not loaded. */
void task_read_row(struct db_stmt *st, struct task *out);

/*
 * Validate spec as add does (title, globs, checks and their paths, labels;
 * not its edges). Returns 0 or ERR_USAGE.
 */
int task_spec_check(struct ledger *ledger, const struct task_spec *spec,
    struct err *err);

/*
 * Append column 0 of every row of sql (with ?1 bound to id) to list.
 * Returns 0 or the mapped error.
 */
int task_load_strings(struct ledger *ledger, const char *sql, int64_t id,
    struct strlist *list, struct err *err);

/*
 * The end of reading task id's row, given db_step()'s rc (the statement
 * reset already): 0 for a row, ERR_NOT_FOUND ("no task #ID") for none,
 * else the mapped error.
 */
int task_row_end(struct ledger *ledger, int rc, int64_t id, struct err *err);

/* Load labels, touches, checks and after into task. */
int task_load_edges(struct ledger *ledger, struct task *task, struct err *err);

/*
 * Walk the ready tasks in claim order (priority, then id), calling fn with
 * each id until it returns non-zero (which is returned). fn also learns
 * whether the task is open (ready as it stands: open, no unmet dependency,
 * no overlap) or a claim whose lease ran out (to be taken over). label:
 * only tasks with that label. now decides which leases are live; agent's
 * own reservations do not stand in its way (0: everyone's do).
 */
int task_ready_each(struct ledger *ledger, const char *label, int64_t agent,
    int64_t now, int (*fn)(int64_t id, bool open, void *arg), void *arg,
    struct err *err);

#endif
