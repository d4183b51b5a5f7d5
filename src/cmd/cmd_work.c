/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* Self-fetch and self-save: prompt, save, result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/task.h"
#include "util/base64.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum work_option {
	OPT_FILE,
	OPT_TOKENS_IN,
	OPT_TOKENS_OUT,
	OPT_COST,
	OPT_MODEL,
	OPTION_COUNT
};

/* Write len raw bytes to stdout. */
static int
write_raw(struct cmd_ctx *ctx, const struct buf *bytes)
{
	if (fwrite(bytes->buf, 1, bytes->len, stdout) != bytes->len)
		return err_set(ctx->err, ERR_FAILED, "cannot write output");
	return 0;
}

/*
 * Print bytes, a task's body or result: raw, or with --json as {id,
 * bytes, KEY} where KEY holds the bytes as a string when they are UTF-8
 * without NUL, else KEY_base64 holds them in base64.
 */
static int
print_bytes(struct cmd_ctx *ctx, int64_t id, const char *key,
    const struct buf *bytes)
{
	json_t *o, *text;

	if (!ctx->json)
		return write_raw(ctx, bytes);
	o = json_pack("{s:I, s:I}", "id", (json_int_t)id, "bytes",
	    (json_int_t)bytes->len);
	/* jansson refuses invalid UTF-8; a NUL would not survive a reader. */
	text = memchr(bytes->buf, '\0', bytes->len) ? NULL
	    : json_stringn(bytes->buf, bytes->len);
	if (text != NULL) {
		json_object_set_new(o, key, text);
	} else {
		struct buf encoded = BUF_INIT, name = BUF_INIT;

		base64_encode(&encoded, bytes->buf, bytes->len);
		buf_addf(&name, "%s_base64", key);
		json_object_set_new(o, name.buf, json_stringn(encoded.buf,
		    encoded.len));
		buf_release(&encoded);
		buf_release(&name);
	}
	return cmd_print_json(ctx, o);
}

static int
exec_prompt(struct cmd_ctx *ctx)
{
	struct buf body = BUF_INIT, note = BUF_INIT;
	int64_t id, tries = 0;
	int rc;

	if ((rc = cmd_named_task_id(ctx, ctx->argv[0], &id)) < 0)
		return rc;
	if ((rc = task_body(ctx->ledger, id, &body, ctx->err)) == 0 &&
	    (rc = task_land_note(ctx->ledger, id, &note, &tries, ctx->err)) == 0 &&
	    note.len > 0) {
		/* What the worker must know before it starts again. */
		if (body.len > 0 && body.buf[body.len - 1] != '\n')
			buf_addch(&body, '\n');
		buf_addf(&body, "\n---\nSent back from landing (%lld time%s): "
		    "the work was verified, but did not reach the trunk.\n%s\n",
		    (long long)tries, tries == 1 ? "" : "s", note.buf);
	}
	if (rc == 0) {
		buf_reset(&note);
		if ((rc = task_answers(ctx->ledger, id, &note, ctx->err)) == 0 &&
		    note.len > 0) {
			/* The person's answers to the questions it was blocked with. */
			if (body.len > 0 && body.buf[body.len - 1] != '\n')
				buf_addch(&body, '\n');
			buf_addf(&body, "\n---\nAnswered by a person (daicho "
			    "unblock --answer):\n%s", note.buf);
		}
	}
	if (rc == 0)
		rc = print_bytes(ctx, id, "body", &body);
	buf_release(&body);
	buf_release(&note);
	return rc;
}

const struct cmd_entry cmd_prompt_entry = {
	.name = "prompt",
	.usage = "prompt ID",
	.summary = "print a task's body (its prompt), byte for byte",
	.help =
	    "Writes the body exactly as added, with no newline added: workers\n"
	    "fetch their own prompt instead of receiving it through the\n"
	    "orchestrator's context.\n\n"
	    "A task whose verified work was sent back from landing (a conflict\n"
	    "with the trunk, or a merged tree that fails; see 'daicho land\n"
	    "--help') gets a section after its body, from a line '---' on,\n"
	    "saying what happened: the trunk commit to redo the work on, the\n"
	    "conflicting paths or the failing check and its output. It is gone\n"
	    "once the task lands.\n\n"
	    "A task whose question a person answered ('daicho unblock ID\n"
	    "--answer TEXT') gets a section the same way, with each question\n"
	    "(Q:) and its answer (A:), oldest first.\n\n"
	    "JSON: {id, bytes, body} (body_base64 instead of body when the body\n"
	    "is not UTF-8 text without NUL bytes).\n",
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_prompt,
};

/* Parse a non-negative decimal cost. */
static int
parse_cost(struct cmd_ctx *ctx, const char *text, double *cost)
{
	char *end;

	*cost = strtod(text, &end);
	if (*text == '\0' || *end != '\0' || !(*cost >= 0) || *cost > 1e12)
		return err_set(ctx->err, ERR_USAGE,
		    "bad value '%s' for --cost (want a non-negative number, e.g. "
		    "0.42)", text);
	return 0;
}

static int
exec_save(struct cmd_ctx *ctx)
{
	struct task_usage usage = { -1, -1, -1, NULL };
	struct buf result = BUF_INIT;
	const char *file = cmd_opt(ctx, OPT_FILE), *value;
	int64_t id, agent;
	int rc;

	if ((rc = cmd_named_task_id(ctx, ctx->argv[0], &id)) < 0)
		return rc;
	if ((value = cmd_opt(ctx, OPT_TOKENS_IN)) != NULL &&
	    (rc = cmd_integer(ctx, OPT_TOKENS_IN, value, 0, INT64_MAX,
		 &usage.tokens_in)) < 0)
		return rc;
	if ((value = cmd_opt(ctx, OPT_TOKENS_OUT)) != NULL &&
	    (rc = cmd_integer(ctx, OPT_TOKENS_OUT, value, 0, INT64_MAX,
		 &usage.tokens_out)) < 0)
		return rc;
	if ((value = cmd_opt(ctx, OPT_COST)) != NULL &&
	    (rc = parse_cost(ctx, value, &usage.cost)) < 0)
		return rc;
	usage.model = cmd_opt(ctx, OPT_MODEL);
	if (file == NULL) {
		if (isatty(STDIN_FILENO))
			return err_set(ctx->err, ERR_USAGE,
			    "no result given (pipe it in, or use -f FILE)");
		file = "-";
	}
	if ((rc = cmd_read_input(ctx, file, &result)) < 0)
		goto done;
	if ((agent = cmd_caller(ctx)) < 0) {
		rc = (int)agent;
		goto done;
	}
	rc = task_save(ctx->ledger, agent, id, result.buf, result.len, &usage,
	    ctx->err);
done:
	buf_release(&result);
	return rc;
}

const struct cmd_entry cmd_save_entry = {
	.name = "save",
	.usage = "save ID [-f FILE|-] [--tokens-in N] [--tokens-out N] "
		 "[--cost X] [--model M]",
	.summary = "save a task's result (holder only), atomically",
	.help =
	    "Stores the result (any bytes; from FILE, or standard input) in one\n"
	    "transaction, with the usage it cost. Only the agent holding the\n"
	    "claim may save. A later save replaces the result; every save stays\n"
	    "in the ledger and the log. Prints nothing.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_FILE] = { "file", 'f', "FILE",
		"read the result from FILE ('-': stdin)" },
	    [OPT_TOKENS_IN] = { "tokens-in", 0, "N", "input tokens used" },
	    [OPT_TOKENS_OUT] = { "tokens-out", 0, "N", "output tokens used" },
	    [OPT_COST] = { "cost", 0, "X", "cost, in your currency" },
	    [OPT_MODEL] = { "model", 0, "M", "the model that produced it" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_save,
};

static int
exec_result(struct cmd_ctx *ctx)
{
	struct buf result = BUF_INIT;
	int64_t id;
	int rc;

	if ((rc = cmd_named_task_id(ctx, ctx->argv[0], &id)) < 0)
		return rc;
	if ((rc = task_result(ctx->ledger, id, &result, ctx->err)) == 0)
		rc = print_bytes(ctx, id, "result", &result);
	buf_release(&result);
	return rc;
}

const struct cmd_entry cmd_result_entry = {
	.name = "result",
	.usage = "result ID",
	.summary = "print a task's latest saved result, byte for byte",
	.help = "Exit 3 when no result has been saved.\n\n"
	    "JSON: {id, bytes, result} (result_base64 instead of result when\n"
	    "the result is not UTF-8 text without NUL bytes).\n",
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_result,
};
