/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * What needs a person: the one model of the items only a human can
 * resolve, for 'daicho status', its --watch, the dashboard and the MCP
 * status tool alike. Everything a machine can settle (leases that run out,
 * reports to verify, reminders) the sweep settles; what is left here needs
 * judgement, and each item names the command that resolves it. An item
 * is computed from the ledger as it is, never stored: it is gone as soon
 * as what it describes is resolved.
 */
#ifndef DAICHO_NEEDS_H
#define DAICHO_NEEDS_H

#include <stdint.h>

#include <jansson.h>

#include "core/err.h"
#include "core/ledger.h"

struct needs_options {
	int64_t stale_after_ms;  /* an agent unseen this long is stale */
	const char *human_name;  /* the person looking (their inbox is plain
				    'daicho inbox'), or NULL */
};

/*
 * Append to array (a JSON array) every item that needs a person, read
 * inside the caller's transaction (a read snapshot is enough) at time
 * now_ms. Kinds come in this order, each oldest first (by since_ms):
 *
 *   approval             a gate's request waits for a human decision
 *   blocked              a task its holder blocked, with the reason
 *   message              a message to a human (by name, or to a role a
 *                        human holds), unread
 *   overdue-wait         a wait past its --remind time
 *   wait-needs-human     a wait whose owner ended with no heir
 *   failed               a failed task, with what it holds back
 *   land-waiting         verified work whose landing waits for the main
 *                        work tree (uncommitted changes in its way)
 *   land-paused          landing paused by a person, with how many wait
 *   rejected             a task not yet verified, rejected twice or more
 *                        since a person last changed it (edit, reopen,
 *                        release --force)
 *   verify-error         the last verdict of a reported or claimed task
 *                        failed because git could not run (a checkout,
 *                        a git error), not because of the work
 *   max-hold             an open task whose last claim the sweep ended
 *                        for its maximum hold, not claimed since
 *   stale-agent-holding  a stale or ended agent that still holds claims
 *   unswept              reports no sweep has taken for the stale
 *                        window: none is running (one item, the count)
 *   stranded             an open task after a cancelled one: it never
 *                        becomes ready
 *   tampered             the last audit found rows no event explains:
 *                        the ledger was written around daicho
 *   budget-stop          a run stopped at its budget, with tasks still
 *                        ready and no run started since
 *
 * Each item is an object with at least
 *   kind      one of the above;
 *   id        the approval, task, message, wait, agent or event id;
 *   summary   one line for a person (no control characters);
 *   since_ms  since when it has needed a person;
 *   resolve   [command, ...]: each an exact daicho command line that
 *             resolves the item (for an agent holding several claims,
 *             one per claim); a word in capitals (TEXT, FILE, N, CMD)
 *             is for the person to fill in;
 * and, when there is something to look at first, inspect (a command);
 * plus the details of its kind (see 'daicho status --help').
 * Returns 0, or a negative error code with err set.
 */
int needs_collect(struct ledger *ledger, const struct needs_options *options,
    int64_t now_ms, json_t *array, struct err *err);

/*
 * needs_collect() in a read snapshot of its own: *out is a new array (a
 * new reference; NULL on error).
 */
int needs_list(struct ledger *ledger, const struct needs_options *options,
    json_t **out, struct err *err);

#endif
