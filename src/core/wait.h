/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Waits: an agent told to wait says so, and who told it (the owner). The
 * wait is the owner's responsibility: it is listed, with owner and age, by
 * status and handoff until the waiting agent resumes; past its reminder
 * time the sweep messages the owner, and an owner that has ended hands the
 * wait to the live holder of its role, or to the human.
 */
#ifndef DAICHO_WAIT_H
#define DAICHO_WAIT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/err.h"
#include "core/ledger.h"

#define WAIT_DEFAULT_REMIND_MS (4 * 60 * 60 * 1000LL)

/* One thing waited for: free text, or a task (open until it is done). */
struct wait_item {
	const char *what;
	int64_t task; /* 0 when not a task */
};

struct wait_request {
	const struct wait_item *items;
	size_t item_count;  /* at least one */
	const char *owner;  /* the agent who asked for the wait, or NULL */
	int64_t remind_ms;  /* remind the owner after this long */
};

/*
 * Put the caller in waiting with a new wait; *id is its id. An unknown
 * owner or task is ERR_NOT_FOUND; the caller cannot own its own wait.
 */
int wait_begin(struct ledger *ledger, const struct wait_request *request,
    int64_t *id, struct err *err);

/*
 * End the caller's open wait id (0: every open wait of the caller); the
 * caller is active again when none is left. A person (a caller of kind
 * human) may end any agent's open wait id, which the agent is told in a
 * message. ERR_NOT_FOUND when there is nothing to end. *ended counts the
 * waits ended.
 */
int wait_resume(struct ledger *ledger, int64_t id, int64_t *ended,
    struct err *err);

/*
 * Open waits, oldest first (new reference in *out). Objects: id, agent,
 * agent_state, owner, owner_state, what, started_ms, remind_ms, overdue
 * (0/1), reminded_ms, needs_human (0/1), open_items.
 */
int wait_list_open(struct ledger *ledger, json_t **out, struct err *err);

/*
 * The sweep's part, in one transaction: an open wait whose owner has
 * ended goes to the most recently seen live holder of the owner's role
 * (messaged), else is flagged for the human; a wait past its reminder time
 * sends its owner one reminder (flagged for the human when it has no live
 * owner). *reminded counts reminders and hand-overs.
 */
int wait_escalate(struct ledger *ledger, int64_t actor, int64_t stale_after_ms,
    int64_t *reminded, struct err *err);

#endif
