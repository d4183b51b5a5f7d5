/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* Repairs of work in flight: edit, reopen, unblock. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/agent.h"
#include "core/repair.h"
#include "core/task.h"
#include "util/alloc.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum repair_option {
	OPT_TITLE,
	OPT_BODY,
	OPT_BODY_FILE,
	OPT_PRIORITY,
	OPT_LABEL,
	OPT_AFTER,
	OPT_NOT_AFTER,
	OPT_DONE_WHEN,
	OPT_CHECK_TIMEOUT,
	OPT_NO_BASELINE,
	OPT_BASELINE,
	OPT_CHECK_NEEDS,
	OPT_TOUCHES,
	OPT_PROTECT,
	OPT_MAX_ATTEMPTS,
	OPT_REASON,
	OPT_ANSWER,
	OPTION_COUNT
};

/*
 * The values of the repeatable list option with id option into list: NULL
 * when the option was not given; an empty list when its only value is ""
 * (none).
 */
static const struct strlist *
list_option(struct cmd_ctx *ctx, int option, struct strlist *list)
{
	size_t pos = 0;
	const char *value;

	if (!cmd_has(ctx, option))
		return NULL;
	while ((value = cmd_opt_next(ctx, option, &pos)) != NULL)
		if (*value != '\0')
			strlist_add(list, value);
	return list;
}

/* Split comma-separated ids of every value of option id option into list. */
static void
ids_option(struct cmd_ctx *ctx, int option, struct strlist *list)
{
	size_t pos = 0;
	const char *value;

	while ((value = cmd_opt_next(ctx, option, &pos)) != NULL) {
		const char *p = value;

		while (*p) {
			size_t n = strcspn(p, ",");

			if (n > 0) {
				strlist_add_owned(list, xstrndup(p, n));
			}
			p += n + (p[n] == ',');
		}
	}
}

static int
exec_edit(struct cmd_ctx *ctx)
{
	struct strlist labels = STRLIST_INIT, touches = STRLIST_INIT,
		       protects = STRLIST_INIT, checks = STRLIST_INIT;
	struct task_edit edit = { 0 };
	struct buf body = BUF_INIT;
	json_t *changed = NULL;
	const char *value;
	int64_t id, actor;
	int rc;

	if ((rc = cmd_task_id(ctx, ctx->argv[0], &id)) < 0)
		return rc;
	edit.title = cmd_opt(ctx, OPT_TITLE);
	if (cmd_has(ctx, OPT_BODY) && cmd_has(ctx, OPT_BODY_FILE))
		return err_set(ctx->err, ERR_USAGE,
		    "give --body or --body-file, not both");
	if ((value = cmd_opt(ctx, OPT_BODY)) != NULL) {
		buf_adds(&body, value);
		edit.set_body = true;
	} else if ((value = cmd_opt(ctx, OPT_BODY_FILE)) != NULL) {
		if ((rc = cmd_read_input(ctx, value, &body)) < 0)
			goto done;
		edit.set_body = true;
	}
	edit.body = body.buf;
	edit.body_bytes = body.len;
	if ((value = cmd_opt(ctx, OPT_PRIORITY)) != NULL) {
		if ((rc = cmd_integer(ctx, OPT_PRIORITY, value, -1000000000,
			 1000000000, &edit.priority)) < 0)
			goto done;
		edit.set_priority = true;
	}
	if ((value = cmd_opt(ctx, OPT_MAX_ATTEMPTS)) != NULL) {
		if ((rc = cmd_integer(ctx, OPT_MAX_ATTEMPTS, value, 1, 1000000,
			 &edit.max_attempts)) < 0)
			goto done;
		edit.set_max_attempts = true;
	}
	if ((value = cmd_opt(ctx, OPT_CHECK_TIMEOUT)) != NULL) {
		if ((rc = cmd_duration(ctx, OPT_CHECK_TIMEOUT, value,
			 &edit.check_timeout_ms)) < 0)
			goto done;
		edit.set_check_timeout = true;
	}
	if (cmd_has(ctx, OPT_NO_BASELINE) && cmd_has(ctx, OPT_BASELINE)) {
		rc = err_set(ctx->err, ERR_USAGE, "--no-baseline and --baseline "
		    "do not combine: one or the other");
		goto done;
	}
	if ((value = cmd_opt(ctx, OPT_CHECK_NEEDS)) != NULL) {
		if (strcmp(value, "net") != 0 && strcmp(value, "none") != 0) {
			rc = err_set(ctx->err, ERR_USAGE, "bad value for "
			    "--check-needs (want net, or none)");
			goto done;
		}
		edit.check_needs = strcmp(value, "none") == 0 ? "" : value;
	}
	if (cmd_has(ctx, OPT_NO_BASELINE) || cmd_has(ctx, OPT_BASELINE)) {
		edit.set_no_baseline = true;
		edit.no_baseline = cmd_has(ctx, OPT_NO_BASELINE);
	}
	edit.labels = list_option(ctx, OPT_LABEL, &labels);
	edit.touches = list_option(ctx, OPT_TOUCHES, &touches);
	edit.protects = list_option(ctx, OPT_PROTECT, &protects);
	edit.checks = list_option(ctx, OPT_DONE_WHEN, &checks);
	ids_option(ctx, OPT_AFTER, &edit.after);
	ids_option(ctx, OPT_NOT_AFTER, &edit.not_after);
	if (ctx->value_count == 0) {
		rc = err_set(ctx->err, ERR_USAGE,
		    "edit needs something to change (see 'daicho edit --help')");
		goto done;
	}
	if ((actor = cmd_caller(ctx)) < 0) {
		rc = (int)actor;
		goto done;
	}
	if ((rc = task_edit(ctx->ledger, actor, id, &edit, &changed,
		 ctx->err)) < 0)
		goto done;
	if (ctx->json)
		rc = cmd_print_json(ctx, json_pack("{s:I, s:O}", "id", (json_int_t)id,
		    "changed", changed));
done:
	json_decref(changed);
	strlist_release(&labels);
	strlist_release(&touches);
	strlist_release(&protects);
	strlist_release(&checks);
	strlist_release(&edit.after);
	strlist_release(&edit.not_after);
	buf_release(&body);
	return rc;
}

const struct cmd_entry cmd_edit_entry = {
	.name = "edit",
	.usage = "edit ID [--title T] [--body TEXT | --body-file FILE|-] "
		 "[--priority N] [--label L]... [--after IDS] [--not-after IDS] "
		 "[--done-when CHECK]... [--check-timeout DUR] [--touches GLOB]... "
		 "[--protect GLOB]... [--max-attempts N] [--no-baseline | --baseline] "
		 "[--check-needs net|none]",
	.summary = "change a task after it was added",
	.help =
	    "Changes what is given and nothing else, in one transaction with an\n"
	    "'edit' event that names each field changed (old and new values for\n"
	    "the checks and the scope). Prints nothing (--json: {id, changed}).\n\n"
	    "--label, --done-when, --touches and --protect replace the whole list\n"
	    "(repeat them for several; '' alone means none). --after adds edges and\n"
	    "--not-after removes them (ids, comma-separated or repeated); an edge\n"
	    "that would close a cycle is refused, naming it (exit 4). Values are\n"
	    "checked as 'daicho add' checks them.\n\n"
	    "Changing what judges or bounds the work (--done-when,\n"
	    "--check-timeout, --touches, --protect) is for a human or the agent\n"
	    "that added the task (exit 6 otherwise): the task's checks get a new\n"
	    "version, which every later verdict states, and the agent holding the\n"
	    "task (if another) is sent a message. Any state may be edited; a\n"
	    "reported task's next verdict runs the new checks.\n\n"
	    "Verification runs a task's checks at the claim's base too, and a\n"
	    "task whose checks all passed there is blocked as vacuous: they prove\n"
	    "nothing about the work. --no-baseline (a person only; exit 6 for an\n"
	    "agent) judges the task on its commit alone, for a task whose checks\n"
	    "rightly pass before it (a refactoring, say); --baseline undoes it.\n"
	    "--check-needs net (a person only) gives the task's cmd: checks the\n"
	    "host's network in their sandbox; none takes it back.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_TITLE] = { "title", 0, "T", "a new title" },
	    [OPT_BODY] = { "body", 0, "TEXT", "a new body, given inline" },
	    [OPT_BODY_FILE] = { "body-file", 0, "FILE",
		"a new body from FILE ('-': stdin)" },
	    [OPT_PRIORITY] = { "priority", 0, "N", "a new priority" },
	    [OPT_LABEL] = { "label", 0, "L",
		"the labels (repeatable; replaces them)", CMD_OPTION_REPEATS },
	    [OPT_AFTER] = { "after", 0, "IDS",
		"also come after these", CMD_OPTION_REPEATS },
	    [OPT_NOT_AFTER] = { "not-after", 0, "IDS",
		"no longer come after these", CMD_OPTION_REPEATS },
	    [OPT_DONE_WHEN] = { "done-when", 0, "CHECK",
		"the checks (repeatable; replaces them)", CMD_OPTION_REPEATS },
	    [OPT_CHECK_TIMEOUT] = { "check-timeout", 0, "DUR",
		"time limit of each cmd: check" },
	    [OPT_NO_BASELINE] = { "no-baseline", 0, NULL,
		"judge without running the checks at the claim's base (a "
		"person only)" },
	    [OPT_BASELINE] = { "baseline", 0, NULL,
		"judge with the base again (a person only)" },
	    [OPT_CHECK_NEEDS] = { "check-needs", 0, "net|none",
		"its cmd: checks get the network, or not (a person only)" },
	    [OPT_TOUCHES] = { "touches", 0, "GLOB",
		"the paths it edits (repeatable; replaces)",
		CMD_OPTION_REPEATS },
	    [OPT_PROTECT] = { "protect", 0, "GLOB",
		"paths a report must not change (replaces)",
		CMD_OPTION_REPEATS },
	    [OPT_MAX_ATTEMPTS] = { "max-attempts", 0, "N",
		"attempts before failed" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_edit,
};

static int
exec_reopen(struct cmd_ctx *ctx)
{
	int64_t id, actor;
	int rc;

	if ((rc = cmd_task_and_caller(ctx, &id, &actor)) < 0 ||
	    (rc = task_reopen(ctx->ledger, actor, id, cmd_opt(ctx, OPT_REASON),
		ctx->err)) < 0)
		return rc;
	cmd_say(ctx, "reopened #%lld", (long long)id);
	return 0;
}

const struct cmd_entry cmd_reopen_entry = {
	.name = "reopen",
	.usage = "reopen ID [--reason TEXT]",
	.summary = "make a failed, cancelled or wrongly verified task open again",
	.help =
	    "The task is open again with its attempts reset; its history (events,\n"
	    "saves, verdicts) is kept, and a 'reopen' event records from which\n"
	    "state and after how many attempts. Tasks that come after it wait for\n"
	    "it again until it is verified. Only a human or the agent that added\n"
	    "the task may (exit 6); a task that is open, claimed, reported or\n"
	    "blocked is refused (exit 4).\n\n"
	    "A verified or landed task whose work turned out wrong is reopened by\n"
	    "a person only, with --reason (exit 2 without): the event keeps why,\n"
	    "and the tasks after it that already ran on its work (claimed,\n"
	    "reported, blocked, verified or landed) are named in it and listed\n"
	    "in NEEDS YOU ('daicho status') until it is done again. Work that\n"
	    "landed stays on the trunk: the reopened task redoes or reverts it.\n\n"
	    "On a terminal it prints one line (reopened #3); else nothing.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_REASON] = { "reason", 0, "TEXT",
		"why verified work turned out wrong" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_reopen,
};

static int
exec_unblock(struct cmd_ctx *ctx)
{
	const char *answer = cmd_opt(ctx, OPT_ANSWER);
	int64_t id, actor;
	bool to_owner;
	int rc;

	if (answer != NULL && answer[strspn(answer, " \t\n")] == '\0')
		return err_set(ctx->err, ERR_USAGE, "--answer needs the answer's "
		    "text (it goes to the task's holder and into its prompt)");
	if ((rc = cmd_task_and_caller(ctx, &id, &actor)) < 0)
		return rc;
	if ((rc = task_unblock(ctx->ledger, actor, id, answer,
		 AGENT_STALE_AFTER_MS, &to_owner, ctx->err)) < 0)
		return rc;
	if (ctx->json)
		return cmd_print_json(ctx, json_pack("{s:I, s:s}", "id",
		    (json_int_t)id, "to", to_owner ? "owner" : "open"));
	cmd_say(ctx, "unblocked #%lld → %s%s", (long long)id,
	    to_owner ? "its holder" : "open", answer ? ", answered" : "");
	return 0;
}

const struct cmd_entry cmd_unblock_entry = {
	.name = "unblock",
	.usage = "unblock ID [--answer TEXT]",
	.summary = "send a blocked task back to its holder, or to open",
	.help =
	    "A blocked task goes back to its holder, claimed with a fresh lease,\n"
	    "when the holder is live (seen within 10m); else it is open again,\n"
	    "the attempt not counted. By a human or the task's holder (exit 6\n"
	    "for anyone else); a task that is not blocked is refused (exit 4).\n"
	    "An 'unblock' event says where it went.\n\n"
	    "--answer TEXT answers the question the task was blocked with, in\n"
	    "the same step: the answer is kept on the task ('daicho prompt ID'\n"
	    "ends with every question and its answer, so whoever works on it\n"
	    "next has them), and a holder it goes back to gets it as a message\n"
	    "(its inbox, its client's hooks, the MCP inbox tool).\n\n"
	    "On a terminal it prints one line (unblocked #6 → its holder); else\n"
	    "nothing (-q: nothing; --json: {id, to}).\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_ANSWER] = { "answer", 0, "TEXT",
		"answer the task's question, in one step" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_unblock,
};
