/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* Messages: send and inbox. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/msg.h"
#include "util/clock.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum msg_option {
	OPT_QUEUE,
	OPT_ONE,
	OPT_STALE_AFTER,
	OPT_REPLY_TO,
	OPT_PEEK,
	OPT_ACK,
	OPTION_COUNT
};

static int
exec_send(struct cmd_ctx *ctx)
{
	struct msg_request req = { 0 };
	struct buf text = BUF_INIT;
	json_t *sent = NULL, *m;
	int64_t now = clock_now_ms();
	size_t i;
	int rc;

	const char *body = ctx->argv[ctx->argc - 1];

	if (cmd_has(ctx, OPT_REPLY_TO) &&
	    (rc = cmd_id_arg(ctx, "message", cmd_opt(ctx, OPT_REPLY_TO),
		&req.reply_to)) < 0)
		goto done;
	if (ctx->argc == 1 && req.reply_to == 0) {
		rc = err_set(ctx->err, ERR_USAGE, "send needs TO and TEXT (TO may "
		    "be left out only with --reply-to: the reply goes to the "
		    "message's sender)");
		goto done;
	}
	req.to = ctx->argc == 2 ? ctx->argv[0] : NULL;
	req.queue = cmd_has(ctx, OPT_QUEUE);
	req.one = cmd_has(ctx, OPT_ONE);
	if ((rc = cmd_default(ctx, OPT_STALE_AFTER, "stale-after", 0,
		 AGENT_STALE_AFTER_MS, &req.stale_after_ms)) < 0)
		goto done;
	if (req.one && (req.to == NULL || strncmp(req.to, "role:", 5) != 0)) {
		rc = err_set(ctx->err, ERR_USAGE, "--one is for role:ROLE addresses");
		goto done;
	}
	if (strcmp(body, "-") == 0) {
		if ((rc = cmd_read_input(ctx, "-", &text)) < 0)
			goto done;
	} else {
		buf_adds(&text, body);
	}
	if (text.len == 0 || strlen(text.buf) != text.len) {
		rc = err_set(ctx->err, ERR_USAGE, text.len ? "the message contains a "
		    "NUL byte" : "empty message");
		goto done;
	}
	if (text.len > MSG_MAX_BYTES) {
		rc = err_set(ctx->err, ERR_USAGE, "the message is %zu bytes, over "
		    "the limit of %d (16 MiB; nothing was sent): put long content "
		    "in a task's body or result, or a file, and send its name",
		    text.len, MSG_MAX_BYTES);
		goto done;
	}
	req.text = text.buf;
	if ((rc = msg_send(ctx->ledger, &req, &sent, ctx->err)) < 0)
		goto done;
	if (ctx->json) {
		rc = cmd_print_json(ctx, sent);
		sent = NULL;
		goto done;
	}
	json_array_foreach(sent, i, m) {
		struct buf seen = BUF_INIT;

		if (ctx->quiet)
			break;
		if (cmd_json_int(m, "recipient_seen_ms"))
			cmd_add_seen(&seen, cmd_json_int(m, "recipient_seen_ms"), now);
		printf("sent #%lld to %s%s%s%s\n", (long long)cmd_json_int(m, "id"),
		    cmd_json_str(m, "to", "?"),
		    json_is_true(json_object_get(m, "queued")) ? " (queued)" : "",
		    seen.len ? ", seen " : "", seen.buf);
		buf_release(&seen);
	}
done:
	json_decref(sent);
	buf_release(&text);
	return rc;
}

const struct cmd_entry cmd_send_entry = {
	.name = "send",
	.usage = "send TO TEXT|- [--queue] [--one] [--stale-after DUR]\n"
	    "       daicho send [TO] TEXT|- --reply-to ID",
	.summary = "send a message to an agent or to every holder of a role",
	.help =
	    "TO is an agent name or role:ROLE; TEXT is the message, or - to read\n"
	    "it from stdin. --reply-to ID answers message ID, which must be one\n"
	    "you received (exit 3 otherwise); without TO the reply goes to its\n"
	    "sender. The recipient's inbox shows the thread: the messages a\n"
	    "reply answers, as far as it sent or received them.\n\n"
	    "The address is resolved now, against the ledger: a\n"
	    "live agent gets it; an ended agent, or one unseen for --stale-after\n"
	    "(default 10m, not waiting), is refused (exit 3) with when it was last\n"
	    "seen and who holds its role now. --queue keeps the message instead,\n"
	    "for the next agent of that name. role:ROLE goes to every live holder,\n"
	    "or with --one to the most recently seen; none is exit 3. Each message\n"
	    "records its recipient's last seen time. Messages are plain text,\n"
	    "never an approval (see 'daicho approve'), of at most 16 MiB\n"
	    "(16777216 bytes; more is refused, exit 2, nothing sent): a message\n"
	    "is a note, which every reader loads whole; long content goes in a\n"
	    "task's body or result, or a file the message names. The MCP inbox\n"
	    "tool gives at most 1 MiB of text per call (see docs/mcp.md).\n\n"
	    "Prints \"sent #ID to NAME, seen AGE ago (TIME)\" per recipient.\n"
	    "JSON: an array of {id, to, recipient_seen_ms, queued}.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_QUEUE] = { "queue", 0, NULL,
		"keep it for an agent that is gone" },
	    [OPT_ONE] = { "one", 0, NULL,
		"role: only the most recently seen holder" },
	    [OPT_STALE_AFTER] = { "stale-after", 0, "DUR",
		"unseen this long counts as gone (10m)" },
	    [OPT_REPLY_TO] = { "reply-to", 0, "ID",
		"answer message ID (TO: its sender)" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 1,
	.max_args = 2,
	.exec = exec_send,
};

/*
 * Under a reply, the messages it answers, nearest first, one line each
 * ("  re #5 w1 3m ago: TEXT", its first line), indented.
 */
static void
print_thread(const json_t *thread, int64_t now)
{
	const json_t *t;
	size_t i;

	json_array_foreach(thread, i, t) {
		struct buf text = BUF_INIT, age = BUF_INIT, first = BUF_INIT;
		const char *body = cmd_json_str(t, "text", "");

		buf_add(&first, body, strcspn(body, "\n"));
		cmd_add_printable(&text, first.buf);
		clock_add_age(&age, now - cmd_json_int(t, "sent_ms"));
		printf("%*sre #%lld %s %s ago: %s\n", (int)(2 * i + 2), "",
		    (long long)cmd_json_int(t, "id"),
		    cmd_json_str(t, "from", "daicho"), age.buf, text.buf);
		buf_release(&text);
		buf_release(&age);
		buf_release(&first);
	}
}

/*
 * inbox --ack ID: mark the caller's unread message ID read without
 * printing it (a person acknowledging it on the dashboard, or a script).
 */
static int
ack_message(struct cmd_ctx *ctx)
{
	int64_t id = 0, marked = 0;
	json_t *ids;
	int rc;

	if (cmd_has(ctx, OPT_PEEK))
		return err_set(ctx->err, ERR_USAGE, "--ack and --peek cannot be "
		    "given together");
	if ((rc = cmd_id_arg(ctx, "message", cmd_opt(ctx, OPT_ACK), &id)) < 0)
		return rc;
	ids = json_pack("[I]", (json_int_t)id);
	rc = msg_mark_read(ctx->ledger, ctx->caller.name, ids, &marked,
	    ctx->err);
	json_decref(ids);
	if (rc < 0)
		return rc;
	if (marked == 0)
		return err_set(ctx->err, ERR_NOT_FOUND, "message #%lld is no "
		    "unread message of yours ('daicho inbox --peek' lists them)",
		    (long long)id);
	if (ctx->json)
		return cmd_print_json(ctx, json_pack("{s:I, s:b}", "id",
		    (json_int_t)id, "read", 1));
	cmd_say(ctx, "read #%lld", (long long)id);
	return 0;
}

static int
exec_inbox(struct cmd_ctx *ctx)
{
	json_t *messages = NULL, *m;
	int64_t now = clock_now_ms();
	size_t i;
	int rc;

	if (cmd_caller(ctx) < 0)
		return -(int)ctx->err->code;
	if (cmd_has(ctx, OPT_ACK))
		return ack_message(ctx);
	if ((rc = msg_inbox_within(ctx->ledger, ctx->caller.name,
		 cmd_has(ctx, OPT_PEEK), ctx->max_text_bytes, &messages,
		 ctx->err)) < 0)
		return rc;
	if (ctx->json)
		return cmd_print_json(ctx, messages);
	json_array_foreach(messages, i, m) {
		struct buf text = BUF_INIT, age = BUF_INIT;

		cmd_add_printable(&text, cmd_json_str(m, "text", ""));
		clock_add_age(&age, now - cmd_json_int(m, "sent_ms"));
		printf("#%lld %s %s ago%s: %s\n", (long long)cmd_json_int(m, "id"),
		    cmd_json_str(m, "from", "daicho"), age.buf,
		    strcmp(cmd_json_str(m, "kind", ""), "reminder") == 0
			? " (reminder)" : "", text.buf);
		print_thread(json_object_get(m, "thread"), now);
		buf_release(&text);
		buf_release(&age);
	}
	json_decref(messages);
	return 0;
}

const struct cmd_entry cmd_inbox_entry = {
	.name = "inbox",
	.usage = "inbox [--peek | --ack ID]",
	.summary = "print the caller's unread messages and mark them read",
	.help =
	    "Prints the caller's unread messages, oldest first, one per line:\n"
	    "\"#ID FROM AGE ago: TEXT\" (FROM is daicho for the sweep's reminders).\n"
	    "They are marked read in the same transaction, so each message is\n"
	    "delivered once however many readers race; --peek leaves them unread.\n"
	    "Includes messages queued for the caller's name while it was gone.\n"
	    "Under a reply ('send --reply-to'), the messages it answers, nearest\n"
	    "first, one indented line each (\"re #ID FROM AGE ago: TEXT\"), as\n"
	    "far as the caller sent or received them; answer one with 'daicho\n"
	    "send --reply-to ID TEXT'.\n\n"
	    "--ack ID marks one unread message of the caller's read, printing\n"
	    "nothing of it (\"read #ID\" on a terminal); another's message, or\n"
	    "one already read, is exit 3 with nothing changed.\n\n"
	    "JSON: an array of {id, from, to, addressed_to, kind, text, sent_ms,\n"
	    "recipient_seen_ms, queued, reply_to} (reply_to null but for a\n"
	    "reply, which also has thread: [{id, from, text, sent_ms}]); with\n"
	    "--ack, {id, read: true}.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_PEEK] = { "peek", 0, NULL, "do not mark them read" },
	    [OPT_ACK] = { "ack", 0, "ID",
		"mark message ID read, without printing it" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_inbox,
};
