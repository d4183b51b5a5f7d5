/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* Settings shared through the ledger: daicho config. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/settings.h"
#include "util/clock.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum config_option {
	OPT_UNSET,
	OPTION_COUNT
};

/* Print one setting's value as a person reads it: a duration, or globs. */
static void
print_value(const json_t *row)
{
	const json_t *value = json_object_get(row, "value");
	const char *kind = json_string_value(json_object_get(row, "kind"));
	struct buf text = BUF_INIT;
	size_t i;
	json_t *glob;

	if (json_is_integer(value) && kind && strcmp(kind, "number") == 0) {
		buf_addf(&text, "%lld", (long long)json_integer_value(value));
	} else if (json_is_integer(value)) {
		clock_add_duration(&text, json_integer_value(value));
	} else if (json_is_string(value)) {
		cmd_add_printable(&text, json_string_value(value));
	} else {
		json_array_foreach(value, i, glob) {
			if (i)
				buf_addch(&text, ' ');
			cmd_add_printable(&text, json_string_value(glob));
		}
	}
	printf("%s", text.buf);
	buf_release(&text);
}

static int
print_settings(struct cmd_ctx *ctx, const char *key)
{
	json_t *rows = NULL, *row;
	size_t i;
	int rc;

	if ((rc = settings_show(ctx->ledger, key, &rows, ctx->err)) < 0)
		return rc;
	if (ctx->json) {
		/* cmd_print_json() takes the reference it is given. */
		rc = cmd_print_json(ctx,
		    json_incref(key ? json_array_get(rows, 0) : rows));
		json_decref(rows);
		return rc;
	}
	json_array_foreach(rows, i, row) {
		bool set = json_is_true(json_object_get(row, "set"));

		if (key && set) {
			/* One key: its value alone, for scripts. */
			print_value(row);
			putchar('\n');
			continue;
		}
		if (key) {
			printf("(not set: %s)\n",
			    json_string_value(json_object_get(row, "default")));
			continue;
		}
		printf("%-10s ", json_string_value(json_object_get(row, "key")));
		if (set)
			print_value(row);
		else
			printf("(not set: %s)",
			    json_string_value(json_object_get(row, "default")));
		printf("\n           %s\n",
		    json_string_value(json_object_get(row, "summary")));
	}
	json_decref(rows);
	return 0;
}

static int
exec_config(struct cmd_ctx *ctx)
{
	bool unset = cmd_has(ctx, OPT_UNSET);
	struct strlist values = STRLIST_INIT;
	int64_t actor;
	int rc;

	if (unset && ctx->argc != 1)
		return err_set(ctx->err, ERR_USAGE,
		    "--unset takes a KEY and no value");
	if (ctx->argc <= 1 && !unset)
		return print_settings(ctx, ctx->argc ? ctx->argv[0] : NULL);
	/* A person's alone: cmd_check_person_acts() proved one. */
	if ((actor = cmd_caller(ctx)) < 0)
		return (int)actor;
	for (int i = 1; i < ctx->argc; i++)
		strlist_add(&values, ctx->argv[i]);
	rc = settings_set(ctx->ledger, actor, ctx->argv[0], unset ? NULL : &values,
	    ctx->err);
	strlist_release(&values);
	return rc;
}

const struct cmd_entry cmd_config_entry = {
	.name = "config",
	.usage = "config [KEY [VALUE...]] | config --unset KEY",
	.summary = "show or change the defaults every agent of this ledger shares",
	.help =
	    "Settings live in the ledger, so every agent, worktree and machine\n"
	    "that shares it sees the same. A flag on the command line wins over\n"
	    "a setting; a setting wins over daicho's built-in default.\n\n"
	    "With no KEY, lists every setting, its value or its default. With\n"
	    "KEY, prints its value alone. With KEY and VALUE..., sets it; with\n"
	    "--unset KEY, goes back to the default. Each change is one event\n"
	    "('config', with the old and the new value).\n\n"
	    "Settings:\n"
	    "  jobs N            how many at once for 'daicho run' (its -j) and\n"
	    "                    'daicho sweep' (its -j); default: the CPUs\n"
	    "  land MODE         what landing does with verified work (see\n"
	    "                    'daicho land --help'): merge (one merge commit\n"
	    "                    a batch, the tasks' commits its parents),\n"
	    "                    rebase (each task's own commits replayed),\n"
	    "                    squash (one commit a task), or off (verified\n"
	    "                    is done; what waits to land is done at once).\n"
	    "                    Default: merge, in a git repository\n"
	    "  land-batch N      how many queued tasks landing merges and checks\n"
	    "                    at once (a batch that fails is bisected);\n"
	    "                    default 16\n"
	    "  land-check CMD    a shell command run in the merged tree before\n"
	    "                    the trunk moves, beside the tasks' own checks\n"
	    "                    (e.g. daicho config land-check 'make test');\n"
	    "                    default none\n"
	    "  land-check-timeout DUR  how long the land-check may run before it\n"
	    "                    is killed (with all it started) and fails;\n"
	    "                    default 10m\n"
	    "  land-tries N      how many times a task's landing may be sent\n"
	    "                    back (a conflict, a red merged tree) before the\n"
	    "                    task fails; default 3\n"
	    "  lease DUR         the lease of a claim (claim and run --lease);\n"
	    "                    default 30m\n"
	    "  max-hold DUR      how long a claim lives when no command of its\n"
	    "                    holder names the task (default: three leases;\n"
	    "                    see 'daicho claim --help')\n"
	    "  max-lease DUR     the longest lease a claim may ask for (claim,\n"
	    "                    run and MCP --lease, the 'lease' setting); a\n"
	    "                    maximum hold may be three of them; longer is\n"
	    "                    refused; default 4h\n"
	    "  protect GLOB...   paths no report may change, for every task:\n"
	    "                    a report whose commit changes one since the\n"
	    "                    claim is rejected, naming it. A task's own\n"
	    "                    --touches exempt it when a person set them;\n"
	    "                    its --protect adds to it.\n"
	    "                    Example: daicho config protect 'tests/**' Makefile\n"
	    "  remote NAME       the git remote verification fetches a reported\n"
	    "                    commit from when the ledger's repository lacks\n"
	    "                    it (sweep and verify --remote); none: never\n"
	    "                    fetch; default origin. Once set, the trunk is\n"
	    "                    that remote's branch: landing pushes there\n"
	    "                    (see 'daicho land --help')\n"
	    "  sandbox on|off    whether every cmd: check and the land-check run\n"
	    "                    in a sandbox (bubblewrap: the checkout writable,\n"
	    "                    the rest read-only, the main work tree, the\n"
	    "                    ledger and your home hidden, an empty HOME, no\n"
	    "                    network); off runs them as you, seeing all you\n"
	    "                    see, and every verdict says so; default on (a\n"
	    "                    machine without bubblewrap then judges nothing)\n"
	    "  stale-after DUR   how long an agent may go unseen before it counts\n"
	    "                    as gone (status, agents, sweep, run, send,\n"
	    "                    agent start --stale-after); default 10m\n"
	    "  trunk BRANCH      the branch reported work must be new against: a\n"
	    "                    claim records its commit (default: the branch\n"
	    "                    the main work tree has out then; main, else\n"
	    "                    master, when it is detached)\n\n"
	    "Only a human changes settings: a caller with an agent identity\n"
	    "(--as, $DAICHO_AGENT, an agent client's session), or run under an\n"
	    "agent client process (as for approve), is refused, exit 6.\n\n"
	    "JSON: an array of {key, kind, summary, set, value, default, set_ms,\n"
	    "set_by} (value: milliseconds, a number, an array of globs, a\n"
	    "branch, a remote, a mode or a command); with KEY, that one object.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_UNSET] = { "unset", 0, NULL, "go back to the default" }),
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = -1,
	.exec = exec_config,
};
