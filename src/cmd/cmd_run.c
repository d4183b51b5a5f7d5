/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* The execution engine: run, logs. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/sweep.h"
#include "core/task.h"
#include "core/verify.h"
#include "run/runner.h"
#include "run/tasklog.h"
#include "util/clock.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum run_option {
	OPT_JOBS,
	OPT_TIMEOUT,
	OPT_GRACE,
	OPT_RETRIES,
	OPT_RETRY_BACKOFF,
	OPT_LABEL,
	OPT_WORKTREE,
	OPT_WORKTREE_DIR,
	OPT_BUDGET_TOKENS,
	OPT_BUDGET_COST,
	OPT_RATE_LIMIT_PATTERN,
	OPT_LEASE,
	OPT_MAX_HOLD,
	OPT_FOLLOW,
	OPT_VERBOSE,
	OPT_ATTEMPT,
	OPTION_COUNT
};

static volatile sig_atomic_t run_signal;

static void
on_signal(int sig)
{
	run_signal = sig;
}

struct display {
	struct cmd_ctx *ctx;
	bool verbose;
	bool live;          /* a progress line on the terminal */
	bool line_shown;
	const struct run_options *options;
};

static void
clear_line(struct display *d)
{
	if (d->line_shown) {
		fputs("\r\033[K", stderr);
		d->line_shown = false;
	}
}

static void
show_started(void *arg, int64_t id, int64_t attempt, const char *agent)
{
	struct display *d = arg;

	if (!d->verbose)
		return;
	clear_line(d);
	printf("#%lld started (attempt %lld, %s)\n", (long long)id,
	    (long long)attempt, agent);
	fflush(stdout);
}

static void
show_ended(void *arg, int64_t id, int status, int64_t duration_ms,
    const char *outcome)
{
	struct display *d = arg;
	struct buf took = BUF_INIT;

	if (!d->verbose)
		return;
	clear_line(d);
	clock_add_duration(&took, duration_ms);
	if (status >= 0)
		printf("#%lld exit %d after %s: %s\n", (long long)id, status, took.buf,
		    outcome);
	else
		printf("#%lld killed after %s: %s\n", (long long)id, took.buf, outcome);
	fflush(stdout);
	buf_release(&took);
}

static void
show_progress(void *arg, const struct run_progress *p)
{
	struct display *d = arg;
	struct buf line = BUF_INIT;
	double rate = p->elapsed_ms > 0 ? (double)p->finished * 1000.0 /
					      (double)p->elapsed_ms : 0;

	if (!d->live)
		return;
	buf_addf(&line, "daicho run: %lld running, %lld verified, %lld failed, "
			"%lld queued, %.1f/s", (long long)p->running,
	    (long long)p->verified, (long long)p->failed, (long long)p->queued,
	    rate);
	if (rate > 0 && p->queued > 0) {
		buf_adds(&line, ", ETA ");
		clock_add_duration(&line, (int64_t)((double)(p->queued + p->running) /
						   rate * 1000.0));
	}
	if (p->paused && p->paused_until_ms - clock_now_ms() > 60000) {
		buf_adds(&line, " (paused until ");
		clock_add_timestamp(&line, p->paused_until_ms);
		buf_adds(&line, ": usage limit)");
	} else if (p->paused) {
		buf_adds(&line, " (paused: rate limit)");
	}
	if (p->budget_spent)
		buf_adds(&line, " (budget spent)");
	fprintf(stderr, "\r\033[K%s", line.buf);
	fflush(stderr);
	d->line_shown = true;
	buf_release(&line);
}

/*
 * Say, as the first line of the run's report on stdout, before the first
 * launch, which tasks the run takes and from which ledger: every open
 * task in it unless --label names a batch.
 */
static int
show_starting(void *arg, struct err *err)
{
	struct display *d = arg;
	const struct run_options *options = d->options;
	struct buf line = BUF_INIT;
	int64_t open, ready;
	int rc;

	if (d->ctx->quiet || d->ctx->json)
		return 0;
	if ((rc = task_count_open(d->ctx->ledger, options->label, &open, &ready,
		 err)) < 0)
		return rc;
	buf_addf(&line, "daicho run: %lld open task%s", (long long)open,
	    open == 1 ? "" : "s");
	if (options->label) {
		buf_adds(&line, " labelled ");
		cmd_add_printable(&line, options->label);
	}
	buf_adds(&line, " in ");
	cmd_add_printable(&line, ledger_path(d->ctx->ledger));
	buf_addf(&line, " (%lld ready, %lld after others)", (long long)ready,
	    (long long)(open - ready));
	if (options->follow)
		buf_adds(&line, " and those added later");
	buf_addf(&line, ", %d at once", options->jobs);
	if (options->label == NULL)
		buf_adds(&line, "; every label ('--label L' takes one batch)");
	printf("%s\n", line.buf);
	fflush(stdout);
	buf_release(&line);
	return 0;
}

/* task_each() callback: collect up to 64 ids into the array arg. */
static int
collect_id(const struct task *task, void *arg)
{
	json_array_append_new(arg, json_integer(task->id));
	return json_array_size(arg) >= 64;
}

/*
 * Workers that share one work tree cannot each report their own commit:
 * "report --commit HEAD" names whatever the tree's HEAD is when it runs,
 * perhaps another task's. Say so when more than one runs at once without
 * --worktree and a ready task (of the first 64) is checked on a commit.
 * Returns 0 or the error.
 */
static int
warn_shared_tree(struct cmd_ctx *ctx, const struct run_options *options)
{
	struct task_filter filter = { .ready = true, .label = options->label,
		.limit = 64 };
	json_t *ids = json_array(), *id;
	bool needs = false;
	size_t i;
	int rc;

	if (options->jobs < 2 || options->worktree) {
		json_decref(ids);
		return 0;
	}
	rc = task_each(ctx->ledger, &filter, collect_id, ids, ctx->err);
	if (rc > 0)
		rc = 0;
	json_array_foreach(ids, i, id) {
		if (rc < 0 || needs)
			break;
		rc = verify_needs_commit(ctx->ledger, json_integer_value(id),
		    &needs, ctx->err);
		if (needs)
			fprintf(stderr, "daicho run: warning: %d workers share one "
			    "work tree, and task #%lld is checked on a commit: a "
			    "worker's 'report --commit HEAD' may name another's "
			    "commit (give --worktree: a git worktree a task)\n",
			    options->jobs, (long long)json_integer_value(id));
	}
	json_decref(ids);
	return rc;
}

static int
exec_run(struct cmd_ctx *ctx)
{
	struct run_options options = { 0 };
	struct run_summary summary;
	struct display display = { ctx, cmd_has(ctx, OPT_VERBOSE), false, false,
		NULL };
	struct sigaction action;
	struct buf line = BUF_INIT;
	const char *value;
	int64_t jobs = sysconf(_SC_NPROCESSORS_ONLN);
	int rc;

	if (ctx->argc == 0)
		return err_set(ctx->err, ERR_USAGE,
		    "run needs a command after '--' (e.g. daicho run -j 4 -- ./work.sh "
		    "{id})");
	options.argv = ctx->argv;
	options.jobs = jobs > 0 ? (int)jobs : 1;
	options.retries = -1;
	options.retry_backoff_ms = 1000;
	options.grace_ms = 5000;
	options.lease_ms = TASK_DEFAULT_LEASE_MS;
	options.sweep_every_ms = 2000;
	options.stale_after_ms = SWEEP_DEFAULT_STALE_AFTER_MS;
	options.label = cmd_opt(ctx, OPT_LABEL);
	options.worktree = cmd_has(ctx, OPT_WORKTREE) ||
	    cmd_opt(ctx, OPT_WORKTREE_DIR) != NULL;
	options.worktree_dir = cmd_opt(ctx, OPT_WORKTREE_DIR);
	options.follow = cmd_has(ctx, OPT_FOLLOW);
	if ((rc = cmd_default(ctx, OPT_JOBS, "jobs", 1024, options.jobs,
		 &jobs)) < 0 ||
	    (rc = cmd_default(ctx, OPT_LEASE, "lease", 0, TASK_DEFAULT_LEASE_MS,
		 &options.lease_ms)) < 0 ||
	    (rc = cmd_default(ctx, CMD_NO_OPTION, "stale-after", 0,
		 SWEEP_DEFAULT_STALE_AFTER_MS, &options.stale_after_ms)) < 0)
		return rc;
	options.jobs = (int)jobs;
	if ((value = cmd_opt(ctx, OPT_TIMEOUT)) &&
	    (rc = cmd_duration(ctx, OPT_TIMEOUT, value, &options.timeout_ms)) < 0)
		return rc;
	if ((value = cmd_opt(ctx, OPT_GRACE)) &&
	    (rc = cmd_duration(ctx, OPT_GRACE, value, &options.grace_ms)) < 0)
		return rc;
	if ((value = cmd_opt(ctx, OPT_RETRIES)) &&
	    (rc = cmd_integer(ctx, OPT_RETRIES, value, 0, 1000, &options.retries)) < 0)
		return rc;
	if ((value = cmd_opt(ctx, OPT_RETRY_BACKOFF)) &&
	    (rc = cmd_duration(ctx, OPT_RETRY_BACKOFF, value,
		 &options.retry_backoff_ms)) < 0)
		return rc;
	if ((value = cmd_opt(ctx, OPT_MAX_HOLD)) &&
	    (rc = cmd_duration(ctx, OPT_MAX_HOLD, value, &options.max_hold_ms)) < 0)
		return rc;
	if ((rc = task_lease_allowed(ctx->ledger, options.lease_ms,
	    options.max_hold_ms, ctx->err)) < 0)
		return rc;
	if ((value = cmd_opt(ctx, OPT_BUDGET_TOKENS)) &&
	    (rc = cmd_integer(ctx, OPT_BUDGET_TOKENS, value, 1, INT64_MAX,
		 &options.budget_tokens)) < 0)
		return rc;
	if ((value = cmd_opt(ctx, OPT_BUDGET_COST)) != NULL) {
		char *end;

		options.budget_cost = strtod(value, &end);
		if (*value == '\0' || *end != '\0' || !(options.budget_cost > 0))
			return err_set(ctx->err, ERR_USAGE,
			    "bad value '%s' for --budget-cost (want a positive number)",
			    value);
	}
	if ((value = cmd_opt(ctx, OPT_RATE_LIMIT_PATTERN)) != NULL)
		options.rate_limit_pattern = value;
	if ((options.actor = cmd_caller_registered(ctx)) < 0)
		return (int)options.actor;
	if ((rc = warn_shared_tree(ctx, &options)) < 0)
		return rc;
	display.live = !ctx->quiet && !display.verbose && isatty(STDERR_FILENO);
	display.options = &options;
	options.observer.starting = show_starting;
	options.observer.started = show_started;
	options.observer.ended = show_ended;
	/* Counting for a line nobody sees costs a query per state, per look. */
	if (display.live)
		options.observer.progress = show_progress;
	options.observer.arg = &display;
	options.signal_received = &run_signal;
	memset(&action, 0, sizeof(action));
	action.sa_handler = on_signal;
	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
	rc = run_tasks(ctx->ledger, &options, &summary, ctx->err);
	clear_line(&display);
	if (rc < 0)
		return rc;
	if (ctx->json) {
		rc = cmd_print_json(ctx, json_pack(
		    "{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I,"
		    " s:f, s:b, s:I, s:o}",
		    "tasks", (json_int_t)summary.tasks, "launched",
		    (json_int_t)summary.launched, "verified",
		    (json_int_t)summary.verified, "landed",
		    (json_int_t)summary.landed, "waiting_to_land",
		    (json_int_t)summary.waiting_to_land, "failed",
		    (json_int_t)summary.failed,
		    "retried", (json_int_t)summary.retried, "rate_limited",
		    (json_int_t)summary.rate_limited, "false_reports",
		    (json_int_t)summary.false_reports, "claimable",
		    (json_int_t)summary.claimable, "awaiting_verification",
		    (json_int_t)summary.awaiting, "recovered",
		    (json_int_t)summary.recovered, "tokens", (json_int_t)summary.tokens,
		    "cost", summary.cost, "budget_spent", summary.budget_spent,
		    "elapsed_ms", (json_int_t)summary.elapsed_ms, "signal",
		    summary.signal ? json_integer(summary.signal) : json_null()));
		if (rc < 0)
			return rc;
	} else {
		buf_addf(&line, "daicho run: %lld verified", (long long)summary.verified);
		if (summary.landed || summary.waiting_to_land)
			buf_addf(&line, " (%lld landed%s)", (long long)summary.landed,
			    summary.waiting_to_land ? ", the rest waiting to land"
						    : "");
		buf_addf(&line, ", %lld failed, %lld retried, "
				"%lld false report%s caught",
		    (long long)summary.failed,
		    (long long)summary.retried, (long long)summary.false_reports,
		    summary.false_reports == 1 ? "" : "s");
		if (summary.rate_limited)
			buf_addf(&line, ", %lld rate-limited", (long long)summary.rate_limited);
		if (summary.claimable)
			buf_addf(&line, ", %lld left claimable", (long long)summary.claimable);
		if (summary.awaiting)
			buf_addf(&line, ", %lld awaiting verification",
			    (long long)summary.awaiting);
		if (summary.recovered)
			buf_addf(&line, ", %lld recovered from a dead runner",
			    (long long)summary.recovered);
		if (summary.budget_spent)
			buf_addf(&line, ", budget spent (%lld tokens, %.2f)",
			    (long long)summary.tokens, summary.cost);
		if (summary.signal)
			buf_addf(&line, ", stopped by %s",
			    summary.signal == SIGINT ? "SIGINT" : "SIGTERM");
		buf_adds(&line, ", ");
		clock_add_duration(&line, summary.elapsed_ms);
		printf("%s\n", line.buf);
		buf_release(&line);
	}
	if (summary.signal) {
		/* 128 + the signal, as a shell reports it; no extra line. */
		ctx->err->code = (enum err_code)(128 + summary.signal);
		return -1;
	}
	if (summary.verified < summary.tasks)
		return err_set(ctx->err, ERR_FAILED,
		    "%lld of %lld tasks did not reach verified (see 'daicho ls' and "
		    "'daicho logs ID')", (long long)(summary.tasks - summary.verified),
		    (long long)summary.tasks);
	if (summary.waiting_to_land > 0)
		return err_set(ctx->err, ERR_FAILED,
		    "%lld of %lld tasks are verified but wait to land (see 'daicho "
		    "status')", (long long)summary.waiting_to_land,
		    (long long)summary.tasks);
	return 0;
}

const struct cmd_entry cmd_run_entry = {
	.name = "run",
	.usage = "run [-j N] [--timeout DUR] [--retries K] [--label L] [--worktree] [--worktree-dir DIR] "
		 "[--lease DUR] [--max-hold DUR] [--budget-tokens N] [--budget-cost X] [--follow] [-v|-q] -- CMD "
		 "[ARG]...",
	.summary = "run a command for every ready task, N at once",
	.help =
	    "Claims ready tasks and runs CMD ARG... for each, at most N at once\n"
	    "(default: the number of CPUs). \"{id}\" in an argument becomes the\n"
	    "task id, and only that: titles and bodies never reach the command\n"
	    "line. CMD is executed directly, never through a shell (write sh -c\n"
	    "'...' for one; a script without \"#!\" is run by /bin/sh, as\n"
	    "execvp() runs it). A launch that cannot execute CMD ends the run\n"
	    "with the reason, its task left claimable. Each worker gets\n"
	    "DAICHO_TASK, DAICHO_AGENT (a worker agent of this run) and\n"
	    "DAICHO_LEDGER, runs in a process group of its own, and writes\n"
	    "stdout and stderr to a log of each launch beside\n"
	    "the ledger ('daicho logs ID [--attempt N]'; a rate-limited launch\n"
	    "keeps its own), never to this command's output.\n\n"
	    "While a worker lives, the runner heart-beats for it. A worker that\n"
	    "exits 0 without reporting is reported for it; the sweep (which run\n"
	    "runs itself) then verifies. A non-zero exit, a signal or --timeout\n"
	    "(SIGTERM to the group, then SIGKILL after --grace, default 5s) is a\n"
	    "failed attempt: the task is retried after a backoff (--retry-backoff,\n"
	    "default 1s, doubling) until --retries retries (default: its max\n"
	    "attempts) are spent, then fails.\n\n"
	    "A rate limit gives the claim back without spending an attempt and\n"
	    "pauses all launches (events pause and resume): exit status 75, or a\n"
	    "log that says so in the agent clients' own words. In JSON output\n"
	    "only the clients' error fields count, never ids (\"e429ee32-...\"):\n"
	    "Claude Code's stream-json result with \"is_error\": true and API\n"
	    "status 429 or a rate/usage/session limit in its text, or a rejected\n"
	    "rate_limit_event; Codex's exec --json error and turn.failed events;\n"
	    "Gemini CLI's QuotaError or 429 error. Such a closing result counts\n"
	    "even when the worker exits 0. Other lines count on a non-zero exit\n"
	    "when they say rate limit, too many requests, 429, hit your ... limit,\n"
	    "usage limit reached, quota exceeded, RESOURCE_EXHAUSTED or exhausted\n"
	    "your ... quota (--rate-limit-pattern RE, an extended regex matched\n"
	    "case-insensitively against every line, replaces these words). The\n"
	    "pause is 2s, doubling to 60s; when the client says when its limit\n"
	    "lifts (\"resets 9am (Europe/Berlin)\", \"try again at 3:28 PM\",\n"
	    "\"retry in 39s\", a resetsAt), launches pause until then, however\n"
	    "long (up to 8 days): a subscription's usage limit is waited out, not\n"
	    "spent on attempts. A delay counts from the log's last write (when\n"
	    "the client printed it), not from the worker's exit. The pause event\n"
	    "says until when, and why.\n\n"
	    "When the tokens or cost saved by this run's tasks reach\n"
	    "--budget-tokens / --budget-cost, nothing new is launched.\n\n"
	    "Without --worktree every worker runs in this work tree: when more\n"
	    "than one runs at once and a ready task is checked on a commit\n"
	    "(file:, cmd:, commit), run warns that a worker's 'report --commit\n"
	    "HEAD' may name another's commit.\n"
	    "--worktree runs each task in its own git worktree on branch\n"
	    "daicho/ID made from the trunk as it is when the task is taken\n"
	    "(with its dependencies' landed work), at DIR/ID: --worktree-dir DIR\n"
	    "(relative to the project root; it implies --worktree), by default\n"
	    "<root>/.daicho-worktrees. Not under .git, where Claude Code refuses\n"
	    "to write; inside the project, whose folder trust (Gemini CLI, Claude\n"
	    "Code) it shares, and excluded from git through .git/info/exclude.\n"
	    "Each worktree has the committed client configuration (.claude/,\n"
	    ".codex/, .gemini/): commit it, or the workers run no daicho hook.\n"
	    "The branch head is the commit the sweep verifies. When the run ends,\n"
	    "however it ends, a worktree with no commit and no uncommitted change\n"
	    "is removed with its branch; one with work is kept, and 'daicho\n"
	    "sweep' removes it once its task is verified, failed or cancelled and\n"
	    "its branch is merged (reachable from HEAD) with nothing uncommitted.\n\n"
	    "Ends when nothing is ready, running or awaiting verification (with\n"
	    "--follow: keeps waiting for new tasks). SIGINT/SIGTERM stop launching,\n"
	    "pass the signal to the workers, wait for them, and leave unfinished\n"
	    "tasks claimable; exit 130/143. A run killed with kill -9, or ended\n"
	    "by an error (exit 1, or 75 when the ledger went away), leaves claims\n"
	    "held by its workers: the next run on this machine sees their process\n"
	    "is gone, stops workers still running, and takes the tasks at once;\n"
	    "elsewhere, the sweep does once their lease expires.\n\n"
	    "Output: first, which tasks the run takes, from which ledger: \"daicho\n"
	    "run: 600 open tasks in /repo/.git/daicho/ledger.db (598 ready, 2\n"
	    "after others), 8 at once; every label ('--label L' takes one\n"
	    "batch)\". Without --label a run takes every open task of the\n"
	    "ledger, not only those just added: label a batch ('add --batch F\n"
	    "--label L') and run it with --label L. Then on a terminal a live\n"
	    "progress line (on stderr); one summary line at the end; per-task\n"
	    "lines only with -v. With -q only the summary. Exit 0 only when\n"
	    "every task run reached verified and, where work lands (see 'daicho\n"
	    "land --help'), landed: the run's sweep lands as it verifies, and a\n"
	    "run goes on while verified work waits in the landing queue, unless\n"
	    "that waits for a person.\n\n"
	    "JSON: {tasks, launched, verified (landed ones too), landed,\n"
	    "waiting_to_land, failed, retried, rate_limited,\n"
	    "false_reports, claimable, awaiting_verification, recovered, tokens,\n"
	    "cost, budget_spent, elapsed_ms, signal}\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_JOBS] = { "jobs", 'j', "N",
		"workers at once (default: CPUs)" },
	    [OPT_TIMEOUT] = { "timeout", 0, "DUR", "kill a worker after DUR" },
	    [OPT_GRACE] = { "grace", 0, "DUR",
		"SIGTERM to SIGKILL (default 5s)" },
	    [OPT_RETRIES] = { "retries", 0, "K",
		"retries after a failure (default: attempts)" },
	    [OPT_RETRY_BACKOFF] = { "retry-backoff", 0, "DUR",
		"first retry delay (default 1s)" },
	    [OPT_LABEL] = { "label", 0, "L", "only tasks labelled L" },
	    [OPT_WORKTREE] = { "worktree", 0, NULL, "a git worktree per task" },
	    [OPT_WORKTREE_DIR] = { "worktree-dir", 0, "DIR",
		"where the worktrees go (default <root>/.daicho-worktrees)" },
	    [OPT_BUDGET_TOKENS] = { "budget-tokens", 0, "N",
		"stop launching after N tokens" },
	    [OPT_BUDGET_COST] = { "budget-cost", 0, "X",
		"stop launching after cost X" },
	    [OPT_RATE_LIMIT_PATTERN] = { "rate-limit-pattern", 0, "RE",
		"output lines that mean a rate limit (instead of the "
		"built-in words)" },
	    [OPT_LEASE] = { "lease", 0, "DUR", "claim lease (default 30m)" },
	    [OPT_MAX_HOLD] = { "max-hold", 0, "DUR",
		"how long a claim lives without a command naming its task "
		"(default three leases; see 'daicho claim --help')" },
	    [OPT_FOLLOW] = { "follow", 0, NULL, "keep waiting for new tasks",
		CMD_OPTION_STAYS },
	    [OPT_VERBOSE] = { "verbose", 'v', NULL,
		"a line per worker start and end" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT | CMD_RAW_ARGS,
	.min_args = 0,
	.max_args = -1,
	.exec = exec_run,
};

static int
exec_logs(struct cmd_ctx *ctx)
{
	struct buf dir = BUF_INIT, content = BUF_INIT;
	const char *value;
	struct task task;
	int64_t id, attempt = 0;
	bool found = false;
	int rc;

	if ((rc = cmd_named_task_id(ctx, ctx->argv[0], &id)) < 0)
		return rc;
	if ((value = cmd_opt(ctx, OPT_ATTEMPT)) &&
	    (rc = cmd_integer(ctx, OPT_ATTEMPT, value, 1, INT64_MAX, &attempt)) < 0)
		return rc;
	/* Says "no task" when there is none. */
	if ((rc = task_get(ctx->ledger, id, &task, ctx->err)) < 0)
		return rc;
	ledger_local_dir(ctx->ledger, &dir);
	found = tasklog_read(dir.buf, id, attempt, task.attempts, &content) == 0;
	task_free_fields(&task);
	if (!found)
		rc = attempt == 0
			 ? err_set(ctx->err, ERR_NOT_FOUND,
			       "no log for task #%lld (logs are kept for tasks run "
			       "by 'daicho run' whose workers printed something)",
			       (long long)id)
			 : err_set(ctx->err, ERR_NOT_FOUND,
			       "no log of attempt %lld of task #%lld",
			       (long long)attempt, (long long)id);
	else if (fwrite(content.buf, 1, content.len, stdout) != content.len)
		rc = err_set(ctx->err, ERR_FAILED, "cannot write output");
	buf_release(&dir);
	buf_release(&content);
	return rc;
}

const struct cmd_entry cmd_logs_entry = {
	.name = "logs",
	.usage = "logs ID [--attempt N]",
	.summary = "print a worker's output for a task (latest launch)",
	.help =
	    "'daicho run' writes the stdout and stderr of each launch of a\n"
	    "task to a log of its own, <ledger dir>/logs/ID.N.log, N counting\n"
	    "the launches: a launch given back without spending an attempt (a\n"
	    "rate limit, an interrupted run) keeps its log, and its relaunch\n"
	    "gets the next number. The exit event of each launch names its log\n"
	    "(null for a launch that printed nothing: it leaves no log). A\n"
	    "running launch's log has its name after a second, and can be read\n"
	    "while it grows.\n"
	    "This prints one, raw: by default the latest, with --attempt N the\n"
	    "Nth launch. Exit 3 when there is none.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_ATTEMPT] = { "attempt", 0, "N",
		"the Nth launch instead of the latest" }),
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_logs,
};
