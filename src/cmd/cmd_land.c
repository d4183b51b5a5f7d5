/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* Landing verified work on the trunk: daicho land. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/land.h"
#include "core/sweep.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum land_option {
	OPT_DRY_RUN,
	OPT_PAUSE,
	OPT_RESUME,
	OPT_JOBS,
	OPT_STALE_AFTER,
	OPTION_COUNT
};

json_t *
cmd_land_stats_json(const struct land_stats *s)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:b}",
	    "landed", (json_int_t)s->landed, "conflicts",
	    (json_int_t)s->conflicts, "check_failed",
	    (json_int_t)s->check_failed, "failed", (json_int_t)s->failed,
	    "waiting", (json_int_t)s->waiting, "checked",
	    (json_int_t)s->check_runs, "trunk_moves",
	    (json_int_t)s->trunk_moves, "busy", s->busy, "paused", s->paused);
}

void
cmd_land_stats_text(struct buf *out, const struct land_stats *s,
    bool only_if_any)
{
	int64_t sent_back = s->conflicts + s->check_failed;

	if (only_if_any && s->landed == 0 && sent_back == 0 && s->waiting == 0)
		return;
	buf_addf(out, "%s%lld landed, %lld sent back", only_if_any ? ", " : "",
	    (long long)s->landed, (long long)sent_back);
	if (sent_back > 0)
		buf_addf(out, " (%lld conflict%s, %lld failing the merged tree)",
		    (long long)s->conflicts, s->conflicts == 1 ? "" : "s",
		    (long long)s->check_failed);
	if (s->failed > 0)
		buf_addf(out, ", %lld out of landing tries", (long long)s->failed);
	if (s->waiting > 0)
		buf_addf(out, ", %lld waiting for a person (daicho status)",
		    (long long)s->waiting);
}

static volatile sig_atomic_t land_stop;

static void
on_stop(int sig)
{
	(void)sig;
	land_stop = 1;
}

/* Print the dry run's plan: each queued task and how it would merge. */
static int
print_plan(struct cmd_ctx *ctx, json_t *plan, enum land_mode mode)
{
	size_t i;
	json_t *row;

	if (ctx->json)
		return cmd_print_json(ctx, json_incref(plan));
	if (json_array_size(plan) == 0) {
		printf("land: nothing queued\n");
		return 0;
	}
	json_array_foreach(plan, i, row) {
		const char *merge = cmd_json_str(row, "merge", "");
		struct buf title = BUF_INIT;

		cmd_add_printable(&title, cmd_json_str(row, "title", ""));
		printf("#%lld  %.12s  %s onto %s: ", (long long)cmd_json_int(row,
		    "id"), cmd_json_str(row, "commit", ""), land_mode_name(mode),
		    cmd_json_str(row, "trunk", ""));
		if (strcmp(merge, "clean") == 0) {
			printf("merges cleanly; its checks run before the trunk "
			       "moves");
		} else if (strcmp(merge, "conflict") == 0) {
			json_t *paths = json_object_get(row, "conflicts"), *path;
			size_t k;

			struct buf names = BUF_INIT;

			json_array_foreach(paths, k, path) {
				buf_adds(&names, k ? ", " : " in ");
				cmd_add_printable(&names, json_string_value(path));
			}
			printf("conflicts%s: would go back to open", names.buf);
			buf_release(&names);
		} else {
			printf("cannot be merged (see 'daicho land' for git's reason)");
		}
		printf("  (%s)\n", title.buf);
		buf_release(&title);
	}
	return 0;
}

static int
exec_land(struct cmd_ctx *ctx)
{
	struct land_options options = { .stale_after_ms = 0 };
	struct land_stats stats = { 0 };
	bool pause = cmd_has(ctx, OPT_PAUSE), resume = cmd_has(ctx, OPT_RESUME);
	json_t *plan = NULL;
	int64_t actor, jobs;
	enum land_mode mode;
	int rc;

	if (pause + resume + cmd_has(ctx, OPT_DRY_RUN) > 1)
		return err_set(ctx->err, ERR_USAGE, "--pause, --resume and "
		    "--dry-run do not combine: one at a time");
	if (pause || resume) {
		/* A person's alone: cmd_check_person_acts() proved one. */
		if ((actor = cmd_caller_registered(ctx)) < 0)
			return (int)actor;
		if ((rc = land_pause(ctx->ledger, actor, pause, ctx->err)) < 0)
			return rc;
		if (ctx->json)
			return cmd_print_json(ctx, json_pack("{s:b}", "paused", pause));
		if (!ctx->quiet)
			printf("landing %s\n", pause ? "paused: nothing lands until "
			    "'daicho land --resume'" : "resumed");
		return 0;
	}
	jobs = sysconf(_SC_NPROCESSORS_ONLN);
	if ((rc = cmd_default(ctx, OPT_STALE_AFTER, "stale-after", 0,
	    SWEEP_DEFAULT_STALE_AFTER_MS, &options.stale_after_ms)) < 0 ||
	    (rc = cmd_default(ctx, OPT_JOBS, "jobs", 256, jobs > 0 ? jobs : 1,
	    &jobs)) < 0)
		return rc;
	options.jobs = (int)jobs;
	if ((rc = land_mode(ctx->ledger, &mode, ctx->err)) < 0)
		return rc;
	if (mode == LAND_OFF) {
		struct buf git_dir = BUF_INIT;
		bool in_git = ledger_git_dir(ctx->ledger, &git_dir) == 0;

		buf_release(&git_dir);
		return err_set(ctx->err, ERR_USAGE, in_git
		    ? "landing is off ('daicho config land' is off): nothing lands "
		      "(turn it on with 'daicho config land merge')"
		    : "the ledger is in no git repository: there is no trunk to "
		      "land on");
	}
	if ((actor = cmd_caller_registered(ctx)) < 0)
		return (int)actor;
	options.actor = actor;
	options.dry_run = cmd_has(ctx, OPT_DRY_RUN);
	options.stop = &land_stop;
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	rc = land_pass(ctx->ledger, &options, &stats, options.dry_run ? &plan
	    : NULL, ctx->err);
	if (rc == 0 && options.dry_run)
		rc = print_plan(ctx, plan, mode);
	json_decref(plan);
	if (rc < 0 || options.dry_run)
		return rc;
	if (ctx->json)
		return cmd_print_json(ctx, cmd_land_stats_json(&stats));
	if (!ctx->quiet) {
		struct buf line = BUF_INIT;

		if (stats.paused)
			buf_adds(&line, "land: paused (resume with 'daicho land "
			    "--resume'); nothing landed");
		else if (stats.busy)
			buf_adds(&line, "land: another lander is at work; nothing "
			    "landed by this one");
		else {
			buf_adds(&line, "land: ");
			cmd_land_stats_text(&line, &stats, false);
		}
		printf("%s\n", line.buf);
		buf_release(&line);
	}
	return 0;
}

const struct cmd_entry cmd_land_entry = {
	.name = "land",
	.usage = "land [--dry-run | --pause | --resume] [-j N] [--stale-after DUR]",
	.summary = "put verified work on the trunk, checking the merged result",
	.help =
	    "Verified is not done while the work lives only on a branch. In a\n"
	    "git repository (unless 'daicho config land off'), a task whose\n"
	    "report carried a commit waits in the landing queue once verified,\n"
	    "and the tasks that come after it are ready only once it has\n"
	    "landed. One pass of 'daicho land' (every 'daicho sweep' makes one\n"
	    "too, and so does the sweep of 'daicho run') takes the queue in\n"
	    "order, a batch at a time ('daicho config land-batch', default 16):\n\n"
	    "  1. merges each task's commit onto the trunk as it is now, without\n"
	    "     touching any work tree ('daicho config land': merge, one\n"
	    "     merge commit whose parents are the trunk and each task's\n"
	    "     commit; rebase, each task's own commits replayed; squash, one\n"
	    "     commit a task);\n"
	    "  2. checks the result out in a checkout of its own and runs every\n"
	    "     task's checks there, and the 'land-check' command if set;\n"
	    "  3. moves the trunk only if all pass, and only from the commit it\n"
	    "     merged onto (compare-and-swap: if anyone moved it meanwhile,\n"
	    "     it merges and checks again; it never forces).\n\n"
	    "A batch that fails is split in halves, each landed on its own, so\n"
	    "the good work lands and the culprit is found. With -j N above 1\n"
	    "(default: CPUs, or 'daicho config jobs'), a batch holding a task\n"
	    "whose checks took a second or more is split into lanes: tasks whose\n"
	    "changes and --touches do not meet may land in any order, so the\n"
	    "slow ones go behind the quick ones, each lane's merged tree (on top\n"
	    "of the lanes before it) is checked at once in a checkout of its own,\n"
	    "and each lane lands as soon as it and those before it pass: a slow\n"
	    "task does not hold up quick ones that do not touch it. A task whose commit\n"
	    "conflicts with the trunk, or whose merged tree fails on its own, is\n"
	    "sent back: open again with no attempt spent, 'daicho prompt ID'\n"
	    "saying what happened (the trunk commit, the conflicting paths, the\n"
	    "failing check's output), an event (land-conflict, land-failed) and\n"
	    "a message to its last holder. After 'land-tries' send-backs\n"
	    "(default 3) it fails, and shows in 'daicho status'.\n\n"
	    "When the main work tree has the trunk checked out, its index and\n"
	    "files follow the trunk (as git's push-to-checkout does), keeping\n"
	    "uncommitted changes to other paths. When it has uncommitted changes\n"
	    "to paths a landing changes, the landing waits, and says why in\n"
	    "'daicho status'; nothing is overwritten.\n\n"
	    "A gate on landing ('daicho gate add land:GLOB --approval') holds\n"
	    "the tasks whose commits change a matching path until a person\n"
	    "approves them (one request a batch); the rest lands meanwhile.\n"
	    "With 'daicho config remote NAME' the trunk is that remote's branch:\n"
	    "each pass fetches it and pushes the landing, never forcing.\n\n"
	    "Each commit a landing makes carries a line 'Daicho-Land: #ID\n"
	    "COMMIT TOKEN' for every task it lands, TOKEN its pass's own: a\n"
	    "lander killed after the trunk moved is found out by the next one,\n"
	    "and the task is recorded landed once. One lander works at a time;\n"
	    "another one's pass says it is busy.\n\n"
	    "--dry-run says, for each queued task in order, whether its commit\n"
	    "merges cleanly onto the trunk now; it runs no check and changes\n"
	    "nothing in the ledger or on the trunk (with a remote trunk, it\n"
	    "fetches it). --pause stops every lander of the ledger (a person only,\n"
	    "exit 6 for an agent) until --resume; verification goes on.\n\n"
	    "See docs/landing.md for the queue, batching and what cannot land.\n\n"
	    "JSON: {landed, conflicts, check_failed, failed, waiting, checked,\n"
	    "trunk_moves, busy, paused}; with --dry-run, an array of {id, title,\n"
	    "commit, trunk, merge (clean, conflict, error), conflicts}.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_DRY_RUN] = { "dry-run", 'n', NULL,
		"say what would land; change nothing" },
	    [OPT_PAUSE] = { "pause", 0, NULL,
		"stop landing until --resume (a person only)" },
	    [OPT_RESUME] = { "resume", 0, NULL,
		"let landing go on (a person only)" },
	    [OPT_JOBS] = { "jobs", 'j', "N",
		"merged trees checked at once, in lanes (default: CPUs)" },
	    [OPT_STALE_AFTER] = { "stale-after", 0, "DUR",
		"a holder unseen this long gets no message" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_land,
};
