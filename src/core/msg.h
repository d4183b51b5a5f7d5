/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
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

/*
 * The longest message text: 16 MiB. A message is a note between agents
 * (long work goes in a task's body or result, or a file it names); the
 * limit bounds what one send may make every reader load, keep and carry,
 * while leaving room for what agents do send (a log, a diff: the MCP tests
 * send 12 MiB and expect it taken). Readers that cannot carry a text that
 * long bound it themselves (msg_inbox_within(): an MCP answer).
 */
#define MSG_MAX_BYTES (16 * 1024 * 1024)

struct msg_request {
	const char *to;         /* an agent name, or "role:ROLE"; NULL: the
				   sender of reply_to */
	int64_t reply_to;       /* the message this answers, or 0 */
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
 * one); none is ERR_NOT_FOUND. With reply_to, the message answers that
 * one, which must be the caller's (sent to it, or queued for its name;
 * else ERR_NOT_FOUND); with no to, it goes to that message's sender. *sent
 * (new reference) is an array of {id, to, recipient_seen_ms, queued}.
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
 * kind, text, sent_ms, recipient_seen_ms, queued, reply_to (or null) and,
 * for a reply, thread: the messages it answers, nearest first ({id, from,
 * text, sent_ms}), as far as the caller sent or received them.
 */
int msg_inbox(struct ledger *ledger, const char *caller_name, bool peek,
    json_t **messages, struct err *err);

/*
 * msg_inbox() for an answer that may carry at most max_bytes of text (0:
 * no limit): the oldest messages whose texts fit, in order; the rest stay
 * unread. The first is always given: when its text alone is longer, it is
 * cut to max_bytes (whole characters) and has bytes (the text's length)
 * and truncated: true.
 */
int msg_inbox_within(struct ledger *ledger, const char *caller_name,
    bool peek, size_t max_bytes, json_t **messages, struct err *err);

/*
 * The size of the caller's unread messages, reading no text: how many
 * (*count) and the newest id (*newest, 0 when none). The caller is
 * ledger_caller() and caller_name, as for msg_inbox() with peek.
 */
int msg_unread_count(struct ledger *ledger, const char *caller_name,
    int64_t *count, int64_t *newest, struct err *err);

/*
 * The caller's unread messages newer than message after, without their
 * texts (new reference in *out): objects id, from, kind, sent_ms, bytes
 * (the text's length), preview (its first chars characters) and truncated
 * (whether the preview is less than the text). Caller as for
 * msg_unread_count().
 */
int msg_unread_previews(struct ledger *ledger, const char *caller_name,
    int64_t after, int chars, json_t **out, struct err *err);

/*
 * Mark the messages ids (a JSON array of ids, as msg_inbox() with peek
 * listed them) read by the caller, in one transaction (which carries its
 * heartbeat). Only unread messages of the caller (or queued for
 * caller_name) are marked; *marked counts them.
 */
int msg_mark_read(struct ledger *ledger, const char *caller_name,
    const json_t *ids, int64_t *marked, struct err *err);

#endif
