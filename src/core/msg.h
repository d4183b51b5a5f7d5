/*
 * Messages between agents. An address is resolved when the message is
 * sent, against the ledger as it is then: a message never goes silently to
 * an agent that has ended or gone quiet. Each message records when its
 * recipient was last seen at that moment.
 */
#ifndef DAICHO_MSG_H
#define DAICHO_MSG_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "core/err.h"
#include "core/ledger.h"

struct msg_request {
	const char *to;         /* an agent name, or "role:ROLE" */
	const char *text;
	bool queue;             /* keep it for a gone agent of that name */
	bool one;               /* role: only the most recently seen holder */
	int64_t stale_after_ms; /* an active agent unseen this long is gone */
};

/*
 * Send request->text from the caller, in one transaction. A name goes to
 * its live agent; to an ended or stale agent it is refused with
 * ERR_NOT_FOUND saying when that agent was last seen and who holds its
 * role now, unless queue, which keeps it for the next agent of that name.
 * "role:R" goes to every live holder of R (the most recently seen with
 * one); none is ERR_NOT_FOUND. *sent (new reference) is an array of
 * {id, to, recipient_seen_ms, queued}.
 */
int msg_send(struct ledger *ledger, const struct msg_request *request,
    json_t **sent, struct err *err);

/*
 * Append a message of kind ("message" or "reminder") from sender (0: none,
 * the ledger itself) to agent recipient inside the caller's transaction.
 */
int msg_append(struct ledger *ledger, int64_t sender, int64_t recipient,
    const char *kind, const char *text, struct err *err);

/*
 * The caller's unread messages in the order they were sent (new reference
 * in *messages): those sent to it, and those queued for its name. Unless
 * peek they are marked read in the same transaction, so each is delivered
 * once however many readers race. Objects: id, from, to, addressed_to,
 * kind, text, sent_ms, recipient_seen_ms, queued.
 */
int msg_inbox(struct ledger *ledger, const char *caller_name, bool peek,
    json_t **messages, struct err *err);

/*
 * Mark the messages ids (a JSON array of ids, as msg_inbox() with peek
 * listed them) read by the caller, in one transaction (which carries its
 * heartbeat). Only unread messages of the caller (or queued for
 * caller_name) are marked; *marked counts them.
 */
int msg_mark_read(struct ledger *ledger, const char *caller_name,
    const json_t *ids, int64_t *marked, struct err *err);

#endif
