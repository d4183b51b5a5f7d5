/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* Reservations: reserve, unreserve, reservations. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/reserve.h"
#include "util/clock.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum reserve_option {
	OPT_TASK,
	OPT_TTL,
	OPT_ALL,
	OPTION_COUNT
};

static int
exec_reserve(struct cmd_ctx *ctx)
{
	struct reserve_request req = { 0 };
	const char *task = cmd_opt(ctx, OPT_TASK), *ttl = cmd_opt(ctx, OPT_TTL);
	int rc;

	if (!ctx->explicit_agent)
		return err_set(ctx->err, ERR_USAGE, "who reserves? (run as the "
		    "agent: --as NAME, DAICHO_AGENT, or its session)");
	req.globs = ctx->argv;
	req.glob_count = (size_t)ctx->argc;
	req.ttl_ms = RESERVE_DEFAULT_TTL_MS;
	req.stale_after_ms = AGENT_STALE_AFTER_MS;
	if (task && (rc = cmd_task_id(ctx, task, &req.task)) < 0)
		return rc;
	if (ttl && (rc = cmd_duration(ctx, OPT_TTL, ttl, &req.ttl_ms)) < 0)
		return rc;
	return reserve_take(ctx->ledger, &req, ctx->err);
}

const struct cmd_entry cmd_reserve_entry = {
	.name = "reserve",
	.usage = "reserve GLOB... [--task ID] [--ttl DUR]",
	.summary = "hold path globs exclusively while you edit them",
	.help =
	    "Reserves every GLOB for the caller, all or nothing. A glob that\n"
	    "overlaps one held by another live agent is refused (exit 4) naming\n"
	    "the holder, its glob and when it was last seen. Held are: explicit\n"
	    "reservations, and the touches of every live claim (a claimed task's\n"
	    "--touches are reserved for its owner until it is verified, released,\n"
	    "its lease runs out or its owner ends).\n\n"
	    "Globs are relative to the repository root: * within one path\n"
	    "segment, ** across segments, ?, [a-z] classes, \\ escapes; a glob\n"
	    "covers what it names and everything below it. Two globs overlap when\n"
	    "some path is covered by both; the test is exact for this syntax, so\n"
	    "src/*.c and src/main.c overlap, src/** and docs/x do not.\n\n"
	    "A reservation lapses after --ttl (default 2h), when --task is done,\n"
	    "on 'daicho unreserve', or when its holder ends or goes stale.\n"
	    "Reserving a glob you hold renews it. A task whose touches overlap\n"
	    "another agent's reservation is not ready for anyone else.\n"
	    "'daicho hook git pre-commit' refuses commits of reserved paths.\n"
	    "Prints nothing.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_TASK] = { "task", 0, "ID",
		"the task the edit is for (released when done)" },
	    [OPT_TTL] = { "ttl", 0, "DUR", "lapse after DUR (2h)" }),
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 1,
	.max_args = -1,
	.exec = exec_reserve,
};

static int
exec_unreserve(struct cmd_ctx *ctx)
{
	bool all = cmd_has(ctx, OPT_ALL);
	int64_t released;
	int rc;

	if (!ctx->explicit_agent)
		return err_set(ctx->err, ERR_USAGE, "whose reservations? (run as the "
		    "agent: --as NAME, DAICHO_AGENT, or its session)");
	if (all == (ctx->argc > 0))
		return err_set(ctx->err, ERR_USAGE, "give the globs to release, or "
		    "--all (not both)");
	if ((rc = reserve_drop(ctx->ledger, ctx->argv, (size_t)ctx->argc, all,
		 &released, ctx->err)) < 0)
		return rc;
	if (ctx->json)
		return cmd_print_json(ctx, json_pack("{s:I}", "released",
		    (json_int_t)released));
	return 0;
}

const struct cmd_entry cmd_unreserve_entry = {
	.name = "unreserve",
	.usage = "unreserve GLOB... | unreserve --all",
	.summary = "release the caller's reservations",
	.help =
	    "Releases the caller's reservations of exactly these globs (one not\n"
	    "held is exit 3, and nothing is released), or every one with --all.\n"
	    "A claim's touches are released with the claim, not here. Prints\n"
	    "nothing. JSON: {released: count}.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_ALL] = { "all", 0, NULL,
		"release every reservation of the caller" }),
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = -1,
	.exec = exec_unreserve,
};

static int
exec_reservations(struct cmd_ctx *ctx)
{
	json_t *list = NULL, *r;
	int64_t now = clock_now_ms();
	size_t i;
	int rc;

	if ((rc = reserve_list(ctx->ledger, AGENT_STALE_AFTER_MS, &list,
		 ctx->err)) < 0)
		return rc;
	if (ctx->json)
		return cmd_print_json(ctx, list);
	if (json_array_size(list) > 0)
		printf("%-28s %-16s %-6s %-7s %-6s %-14s %s\n", "GLOB", "HOLDER",
		    "TASK", "SOURCE", "AGE", "ENDS", "HOLDER SEEN");
	json_array_foreach(list, i, r) {
		struct buf glob = BUF_INIT, age = BUF_INIT, ends = BUF_INIT,
			   seen = BUF_INIT, task = BUF_INIT;
		int64_t expires = cmd_json_int(r, "expires_ms");

		cmd_add_printable(&glob, cmd_json_str(r, "glob", ""));
		clock_add_age(&age, now - cmd_json_int(r, "created_ms"));
		if (expires > now) {
			buf_adds(&ends, "in ");
			clock_add_remaining(&ends, expires - now);
		} else {
			buf_adds(&ends, "when verified");
		}
		cmd_add_seen(&seen, cmd_json_int(r, "holder_seen_ms"), now);
		if (cmd_json_int(r, "task"))
			buf_addf(&task, "#%lld", (long long)cmd_json_int(r, "task"));
		else
			buf_adds(&task, "-");
		printf("%-28s %-16s %-6s %-7s %-6s %-14s %s\n", glob.buf,
		    cmd_json_str(r, "holder", "?"), task.buf,
		    cmd_json_str(r, "source", "?"), age.buf, ends.buf, seen.buf);
		buf_release(&glob);
		buf_release(&age);
		buf_release(&ends);
		buf_release(&seen);
		buf_release(&task);
	}
	json_decref(list);
	return 0;
}

const struct cmd_entry cmd_reservations_entry = {
	.name = "reservations",
	.usage = "reservations",
	.summary = "list the live reservations: holder, task, age, holder last seen",
	.help =
	    "Every live reservation, oldest first: the glob, its holder, the task\n"
	    "it is for, its source (reserve: explicit; claim: a claimed task's\n"
	    "touches), its age, when it lapses, and when the holder was last seen.\n\n"
	    "JSON: an array of {source, id, glob, task, holder, holder_seen_ms,\n"
	    "created_ms, expires_ms}.\n",
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_reservations,
};
