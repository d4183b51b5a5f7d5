/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* Usage: what the saved results cost. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/usage.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum usage_option {
	OPT_BY,
	OPTION_COUNT
};

struct usage_print {
	json_t *array;
	const char *by;
	bool header;
};

static int
usage_one(const struct usage_row *row, void *arg)
{
	struct usage_print *p = arg;
	struct buf key = BUF_INIT;

	if (p->array) {
		json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:f}", "tasks",
		    (json_int_t)row->tasks, "saves", (json_int_t)row->saves,
		    "tokens_in", (json_int_t)row->tokens_in, "tokens_out",
		    (json_int_t)row->tokens_out, "cost", row->cost);

		json_object_set_new(o, p->by, row->key ? json_string(row->key)
						       : json_null());
		if (row->key == NULL)
			json_object_set_new(o, "total", json_true());
		json_array_append_new(p->array, o);
		return 0;
	}
	if (!p->header) {
		char heading[8];
		size_t i;

		for (i = 0; p->by[i] && i < sizeof(heading) - 1; i++)
			heading[i] = (char)(p->by[i] - 'a' + 'A');
		heading[i] = '\0';
		printf("%-24s %6s %6s %12s %12s %10s\n", heading, "TASKS", "SAVES",
		    "TOKENS IN", "TOKENS OUT", "COST");
		p->header = true;
	}
	cmd_add_printable(&key, row->key ? row->key : "total");
	printf("%-24s %6lld %6lld %12lld %12lld %10.4f\n", key.buf,
	    (long long)row->tasks, (long long)row->saves,
	    (long long)row->tokens_in, (long long)row->tokens_out, row->cost);
	buf_release(&key);
	return 0;
}

static int
exec_usage(struct cmd_ctx *ctx)
{
	struct usage_print p = { NULL, cmd_opt(ctx, OPT_BY), false };
	int rc;

	if (p.by == NULL)
		p.by = "task";
	if (strcmp(p.by, "task") && strcmp(p.by, "agent") && strcmp(p.by, "model") &&
	    strcmp(p.by, "label") && strcmp(p.by, "day"))
		return err_set(ctx->err, ERR_USAGE, "unknown --by '%s' (use task, "
		    "agent, model, label or day)", p.by);
	if (ctx->json)
		p.array = json_array();
	if ((rc = usage_each(ctx->ledger, p.by, usage_one, &p, ctx->err)) < 0) {
		json_decref(p.array);
		return rc;
	}
	return p.array ? cmd_print_json(ctx, p.array) : 0;
}

const struct cmd_entry cmd_usage_entry = {
	.name = "usage",
	.usage = "usage [--by task|agent|model|label|day]",
	.summary = "sum the tokens and cost recorded by saves",
	.help =
	    "Every 'daicho save --tokens-in N --tokens-out N --cost X --model M'\n"
	    "is counted, replaced results included (they were paid for). Rows by\n"
	    "task (default), agent, model or label (a task with several labels\n"
	    "counts under each), most expensive first, or by day (UTC, oldest\n"
	    "first); then the total.\n\n"
	    "JSON: an array of {task|agent|model|label|day, tasks, saves, tokens_in,\n"
	    "tokens_out, cost}; the last has the key null and total: true.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_BY] = { "by", 0, "WHAT",
		"task (default), agent, model, label or day" }),
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_usage,
};
