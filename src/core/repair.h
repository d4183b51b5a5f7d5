/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Repairs of work in flight, for the person who supervises the agents:
 * edit a task after it was added, reopen a failed or cancelled one,
 * unblock a blocked one, take a claim back. Each is one transaction with
 * an event, and refused with a reason when it does not apply.
 */
#ifndef DAICHO_REPAIR_H
#define DAICHO_REPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/err.h"
#include "core/ledger.h"
#include "util/strlist.h"

/* What an edit changes; NULL or false: left as it is. */
struct task_edit {
	const char *title;
	const void *body;           /* with set_body: the new body, any bytes */
	size_t body_bytes;
	bool set_body;
	bool set_priority;
	int64_t priority;
	bool set_max_attempts;
	int64_t max_attempts;       /* at least 1 */
	bool set_check_timeout;
	int64_t check_timeout_ms;
	bool set_no_baseline;       /* a person's alone */
	bool no_baseline;
	const char *check_needs;    /* "net", or "" for none; NULL: unchanged
				     * (a person's alone) */
	const struct strlist *labels;   /* each replaces the list; empty: none */
	const struct strlist *touches;
	const struct strlist *protects;
	const struct strlist *checks;   /* done-when specs */
	struct strlist after;       /* ids ("12", "#12") to come after */
	struct strlist not_after;   /* ids to come after no longer */
};

/*
 * Edit task id as actor in one transaction, with an "edit" event naming
 * each field that changed (old and new for the checks and the scope).
 * Changing what judges or bounds the work (done-when, check timeout,
 * touches, protect) is for a human or the agent that added the task
 * (ERR_REFUSED otherwise): its checks' version goes up, and a holder other
 * than the actor is sent a message. An edge that would close a cycle is
 * ERR_CONFLICT naming it; a bad value ERR_USAGE; nothing to change
 * ERR_USAGE. *changed (new reference) lists the fields that changed.
 */
int task_edit(struct ledger *ledger, int64_t actor, int64_t id,
    const struct task_edit *edit, json_t **changed, struct err *err);

/*
 * A failed or cancelled task is open again, its attempts reset (its
 * history kept), by a human or the agent that added it; a verified or
 * landed one too, by a person only and with a reason (ERR_USAGE without):
 * the tasks after it wait for it again, and the event names those that
 * already ran on its work (NEEDS YOU's "ran-on-reopened").
 */
int task_reopen(struct ledger *ledger, int64_t actor, int64_t id,
    const char *reason, struct err *err);

/*
 * A blocked task goes back to its holder (claimed, a fresh lease) when the
 * holder is live, else to open; by a human or the holder. *to_owner says
 * which. With answer (or NULL), the question it was blocked with is
 * answered: the 'unblock' event keeps both (task_answers() reads them back
 * for its prompt), and a holder it goes back to gets a message with them.
 */
int task_unblock(struct ledger *ledger, int64_t actor, int64_t id,
    const char *answer, int64_t stale_after_ms, bool *to_owner,
    struct err *err);

/*
 * A human takes a claimed, blocked or reported task back from its holder,
 * whoever holds it: open again, the attempt not counted, the holder told.
 */
int task_release_forced(struct ledger *ledger, int64_t actor, int64_t id,
    struct err *err);

#endif
