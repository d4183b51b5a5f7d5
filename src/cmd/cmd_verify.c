/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* Verification: verify, sweep. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/settings.h"
#include "core/sweep.h"
#include "core/task.h"
#include "util/alloc.h"
#include "core/verify.h"
#include "util/clock.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum verify_option {
	OPT_EVERY,
	OPT_VERBOSE,
	OPT_JOBS,
	OPT_APPLY,
	OPT_ALL_VERIFIED,
	OPT_STALE_AFTER,
	OPT_REMOTE,
	OPTION_COUNT
};

json_t *
cmd_verdict_json(const struct verdict *v)
{
	json_t *checks = json_array();

	for (size_t i = 0; i < v->run_count; i++) {
		const struct check_run *r = &v->runs[i];

		json_array_append_new(checks, json_pack("{s:s, s:b, s:o, s:I, s:s%,"
		    " s:o}", "check", r->spec, "passed", r->passed, "exit_status",
		    r->exit_status >= 0 ? json_integer(r->exit_status) : json_null(),
		    "duration_ms", (json_int_t)r->duration_ms, "output", r->output.buf,
		    r->output.len, "passed_at_base", r->base_passed < 0 ? json_null()
		    : json_boolean(r->base_passed)));
	}
	return json_pack("{s:I, s:b, s:I, s:s?, s:o, s:s, s:o, s:s?, s:b}",
	    "task", (json_int_t)v->task, "passed", v->passed, "at_ms",
	    (json_int_t)v->at_ms, "commit", v->commit, "checks_version",
	    v->checks_version ? json_integer(v->checks_version) : json_null(),
	    "summary", v->summary, "checks", checks, "sandbox", v->sandbox,
	    "vacuous", v->vacuous);
}

void
cmd_print_verdict(const struct verdict *v, const char *indent)
{
	struct buf line = BUF_INIT;

	for (size_t i = 0; i < v->run_count; i++) {
		const struct check_run *r = &v->runs[i];
		bool process = strncmp(r->spec, "cmd:", 4) == 0;

		buf_reset(&line);
		cmd_add_printable(&line, r->spec);
		printf("%s%s %s", indent, r->passed ? "PASS" : "FAIL", line.buf);
		if (process && r->exit_status >= 0)
			printf("  (exit %d", r->exit_status);
		else if (process)
			printf("  (killed");
		buf_reset(&line);
		clock_add_duration(&line, r->duration_ms);
		printf(process ? ", %s)" : "  (%s)", line.buf);
		if (r->base_passed >= 0)
			printf("  [at the claim's base: %s]", r->base_passed
			    ? "passed too" : "failed");
		printf("\n");
		/* The evidence: a cmd's output tail, or the reason. */
		if (r->output.len > 0) {
			const char *p = r->output.buf, *end = p + r->output.len;

			while (p < end) {
				const char *nl = memchr(p, '\n', (size_t)(end - p));
				size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
				char *piece = xstrndup(p, n);

				buf_reset(&line);
				cmd_add_printable(&line, piece);
				free(piece);
				printf("%s     %s\n", indent, line.buf);
				p += n + 1;
			}
		}
	}
	buf_release(&line);
}

/* Set from SIGINT/SIGTERM: finish the current step, then stop. */
static volatile sig_atomic_t stop_requested;
static int stop_signal;

static void
on_stop(int sig)
{
	stop_requested = 1;
	stop_signal = sig;
}

static void
catch_stop_signals(void)
{
	struct sigaction action;

	memset(&action, 0, sizeof(action));
	action.sa_handler = on_stop;
	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
}

static int
default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

/*
 * -j N, --stale-after DUR and --remote NAME, shared by sweep and verify:
 * jobs_option is OPT_JOBS, or CMD_NO_OPTION for verify, which takes no -j
 * (the 'jobs' setting alone).
 */
static int
sweep_options_from(struct cmd_ctx *ctx, int jobs_option,
    struct sweep_options *options)
{
	int64_t jobs = default_jobs();
	int rc;

	memset(options, 0, sizeof(*options));
	options->stale_after_ms = SWEEP_DEFAULT_STALE_AFTER_MS;
	options->stop = &stop_requested;
	if ((rc = cmd_default(ctx, jobs_option, "jobs", 256, jobs, &jobs)) < 0 ||
	    (rc = cmd_default(ctx, OPT_STALE_AFTER, "stale-after", 0,
		 SWEEP_DEFAULT_STALE_AFTER_MS, &options->stale_after_ms)) < 0)
		return rc;
	options->jobs = (int)jobs;
	options->remote = cmd_opt(ctx, OPT_REMOTE);
	if (options->remote && (rc = settings_check_remote("--remote",
				     options->remote, ctx->err)) < 0)
		return rc;
	if ((options->actor = cmd_caller(ctx)) < 0)
		return (int)options->actor;
	/* An agent never judges its own report; a person may. */
	if (strcmp(ctx->caller.kind, "human") != 0)
		options->not_owned_by = options->actor;
	return 0;
}

/* Whether a pass changed anything. */
static bool
sweep_changed(const struct sweep_stats *s)
{
	return s->verified || s->rejected || s->failed || s->expired ||
	       s->pruned || s->stale || s->waits || s->land.landed ||
	       s->land.conflicts || s->land.check_failed || s->land.waiting;
}

/*
 * Print one pass. at_ms: the pass's time, printed first (a loop's lines
 * are a log), or 0 for none.
 */
static int
print_sweep(struct cmd_ctx *ctx, const struct sweep_stats *s, int64_t at_ms)
{
	char held[64] = "";

	/* Not in the counts: it is about the ledger, not this pass's work. */
	if (s->audited && s->tampered > 0)
		fprintf(stderr, "daicho: the audit found %lld row%s that no event "
		    "explains: the ledger was written around daicho (see 'daicho "
		    "doctor --audit')\n", (long long)s->tampered,
		    s->tampered == 1 ? "" : "s");
	if (ctx->json) {
		json_t *o = json_pack(
		    "{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "verified",
		    (json_int_t)s->verified, "rejected", (json_int_t)s->rejected,
		    "failed", (json_int_t)s->failed, "expired",
		    (json_int_t)s->expired, "held_too_long",
		    (json_int_t)s->held_too_long, "pruned", (json_int_t)s->pruned,
		    "stale", (json_int_t)s->stale, "waits", (json_int_t)s->waits);

		json_object_set_new(o, "landing", cmd_land_stats_json(&s->land));
		if (at_ms)
			json_object_set_new(o, "at_ms", json_integer(at_ms));
		return cmd_print_json(ctx, o);
	}
	if (s->held_too_long > 0)
		snprintf(held, sizeof(held), " (%lld past the max hold)",
		    (long long)s->held_too_long);
	if (!ctx->quiet && at_ms) {
		struct buf stamp = BUF_INIT;

		clock_add_timestamp(&stamp, at_ms);
		printf("%s ", stamp.buf);
		buf_release(&stamp);
	}
	if (!ctx->quiet) {
		struct buf landing = BUF_INIT;

		cmd_land_stats_text(&landing, &s->land, true);
		printf("sweep: %lld verified, %lld rejected, %lld failed, %lld "
		       "lease%s expired%s, %lld worktree%s pruned, %lld agent%s "
		       "stale, %lld wait%s escalated%s\n",
		    (long long)s->verified, (long long)s->rejected,
		    (long long)s->failed, (long long)s->expired,
		    s->expired == 1 ? "" : "s", held, (long long)s->pruned,
		    s->pruned == 1 ? "" : "s", (long long)s->stale,
		    s->stale == 1 ? "" : "s", (long long)s->waits,
		    s->waits == 1 ? "" : "s", landing.buf);
		buf_release(&landing);
	}
	return 0;
}

static int
exec_sweep(struct cmd_ctx *ctx)
{
	struct sweep_options options;
	const char *every = cmd_opt(ctx, OPT_EVERY);
	int64_t interval_ms = 0;
	int rc;

	if (every && (rc = cmd_duration(ctx, OPT_EVERY, every, &interval_ms)) < 0)
		return rc;
	if ((rc = sweep_options_from(ctx, OPT_JOBS, &options)) < 0)
		return rc;
	/* Verification processes record verdicts under this id. */
	if ((options.actor = cmd_caller_registered(ctx)) < 0)
		return (int)options.actor;
	catch_stop_signals();
	do {
		struct sweep_stats stats = { 0 };
		int64_t until;

		if ((rc = sweep_pass(ctx->ledger, &options, &stats, ctx->err)) < 0)
			return rc;
		/*
		 * A loop is a service: a line for each pass that did something
		 * (each pass with -v).
		 */
		if (!interval_ms)
			rc = print_sweep(ctx, &stats, 0);
		else if (sweep_changed(&stats) || cmd_has(ctx, OPT_VERBOSE))
			rc = print_sweep(ctx, &stats, clock_now_ms());
		if (rc < 0)
			return rc;
		fflush(stdout);
		until = clock_mono_ms() + interval_ms;
		while (interval_ms && !stop_requested && clock_mono_ms() < until) {
			struct timespec pause = { 0, 50 * 1000 * 1000 };

			nanosleep(&pause, NULL);
		}
	} while (interval_ms && !stop_requested);
	return 0;
}

const struct cmd_entry cmd_sweep_entry = {
	.name = "sweep",
	.usage = "sweep [--every DUR] [-j N] [--stale-after DUR] [--remote NAME]",
	.summary = "verify reported tasks, expire dead leases (one pass, or a loop)",
	.help =
	    "One pass: removes verification worktrees a crashed sweep left\n"
	    "behind (its warm checkouts are cleaned at their next use instead);\n"
	    "marks stale every agent unseen for --stale-after (not a waiting\n"
	    "one) and expires its claims; reminds the owner of each wait\n"
	    "past its --remind time (once), and hands the waits of an owner that\n"
	    "has ended to the live holder of its role, or flags them for the\n"
	    "human ('daicho status'); expires the leases of claims whose holder stopped\n"
	    "heart-beating, and claims whose holder has not named the task for\n"
	    "their max hold (see 'daicho claim --help'), each with an event that\n"
	    "says which (the task goes back to open, or to failed when its\n"
	    "attempts are used up); and verifies every reported task, N at a time\n"
	    "(-j, default the number of CPUs). A pass moves a task to verified\n"
	    "and releases its claim; a failure sends it back to its owner\n"
	    "(claimed, lease renewed, a new attempt) when the owner was seen\n"
	    "within --stale-after (default 10m), else to open; past its max\n"
	    "attempts it fails. Several sweeps may run at once: each takes a\n"
	    "task with a verification claim, so none is verified twice.\n\n"
	    "What a report must show before its checks run (a commit on a\n"
	    "branch, new work, protected paths untouched) is in 'daicho add\n"
	    "--help' and docs/verification.md. An agent's sweep leaves its own\n"
	    "reports to someone else's; a person's verifies them all.\n\n"
	    "The work is judged in a world of the judge's own: a checkout made\n"
	    "from daicho's own repository (.git/daicho/judge.git, fed by fetch:\n"
	    "no replace ref, graft, hook or filter of the worker's counts), each\n"
	    "cmd: check in a sandbox (bubblewrap: the checkout writable, the rest\n"
	    "read-only, the main work tree, the ledger and your home hidden, an\n"
	    "empty HOME, a system PATH, no network; 'daicho config sandbox').\n"
	    "Without bubblewrap nothing is judged (verify-deferred, saying so).\n"
	    "The file: and cmd: checks also run at the claim's base (once per\n"
	    "trunk tree): when all passed there too, the verdict is vacuous and\n"
	    "the task is blocked for a person ('daicho edit ID --no-baseline').\n\n"
	    "Then it lands what is verified and queued, as 'daicho land' does\n"
	    "(see 'daicho land --help'); its line says so when it did anything.\n\n"
	    "A reported commit that is not in the ledger's repository (it was\n"
	    "committed on another machine) is fetched from --remote NAME (default:\n"
	    "the 'remote' setting, else origin; none: never fetch): the exact\n"
	    "commit, or the remote's branches when the server refuses that, with\n"
	    "no password prompt and a 2m timeout; a check 'fetch' says so in the\n"
	    "evidence. A remote without the commit rejects the report, as a\n"
	    "missing commit does. A fetch that cannot be made (the remote\n"
	    "unreachable) judges nothing: the task stays reported for the next\n"
	    "pass, with a 'verify-deferred' event, and shows in 'daicho status'.\n\n"
	    "--every DUR repeats until SIGINT or SIGTERM, which end it between\n"
	    "steps: nothing is verified unless a sweep runs, so keep one running\n"
	    "(docs/sweep-service.md: a systemd user unit, or tmux). One pass\n"
	    "prints its summary line; a loop prints one only for a pass that\n"
	    "changed something (-v: for every pass), after its UTC time (with\n"
	    "--json, at_ms).\n\n"
	    "JSON: {\"verified\", \"rejected\", \"failed\", \"expired\",\n"
	    "\"held_too_long\", \"pruned\", \"stale\", \"waits\", \"landing\"}\n"
	    "(landing: as 'daicho land --json')\n"
	    "per pass, one object per line.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_EVERY] = { "every", 0, "DUR",
		"repeat every DUR until interrupted", CMD_OPTION_STAYS },
	    [OPT_VERBOSE] = { "verbose", 'v', NULL,
		"with --every: a line for every pass" },
	    [OPT_JOBS] = { "jobs", 'j', "N",
		"verify N tasks at once (default: CPUs)" },
	    [OPT_STALE_AFTER] = { "stale-after", 0, "DUR",
		"an owner unseen this long is gone (10m)" },
	    [OPT_REMOTE] = { "remote", 0, "NAME",
		"fetch missing commits from NAME, or none" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_sweep,
};

static const char *const outcome_words[] = {
	[VERIFY_STALE] = "not applied: the task changed meanwhile",
	[VERIFY_VERIFIED] = "verified",
	[VERIFY_REJECTED_TO_OWNER] = "rejected: back to its owner",
	[VERIFY_REJECTED_TO_OPEN] = "rejected: open again (the owner is gone)",
	[VERIFY_FAILED] = "rejected: failed (attempts used up)",
	[VERIFY_STILL_GOOD] = "still verified",
	[VERIFY_REOPENED] = "reopened: no longer passes",
	[VERIFY_DEFERRED] = "not applied: nothing could be judged; "
			    "still as it was",
	[VERIFY_VACUOUS] = "blocked: the checks prove nothing (a person "
			   "decides)",
	[VERIFY_UNSCOPED] = "blocked: the work changes what its checks read, "
			    "and the task has no scope (a person decides)",
};

/* Print one verdict for verify: a heading and the evidence. */
static void
report_verdict(struct cmd_ctx *ctx, const struct verdict *v, json_t *array,
    const char *outcome)
{
	struct buf line = BUF_INIT;

	if (array) {
		json_t *o = cmd_verdict_json(v);

		if (outcome)
			json_object_set_new(o, "applied", json_string(outcome));
		json_array_append_new(array, o);
		return;
	}
	if (ctx->quiet)
		return;
	cmd_add_printable(&line, v->summary);
	printf("#%lld %s: %s%s%s%s\n", (long long)v->task,
	    v->passed ? "passes" : "FAILS", line.buf, outcome ? " [" : "",
	    outcome ? outcome : "", outcome ? "]" : "");
	if (v->commit)
		printf("  at commit %s\n", v->commit);
	cmd_print_verdict(v, "  ");
	buf_release(&line);
}

/* verify ID [--apply] */
static int
verify_one(struct cmd_ctx *ctx, int64_t id, bool apply,
    const struct sweep_options *options, json_t *array)
{
	struct buf token = BUF_INIT;
	struct verify_setup setup = VERIFY_SETUP_INIT;
	struct verdict v = { 0 };
	struct task task;
	enum verify_outcome outcome = VERIFY_STALE;
	bool reported;
	int rc;

	if ((rc = task_get(ctx->ledger, id, &task, ctx->err)) < 0)
		return rc;
	reported = strcmp(task.state, "reported") == 0;
	if (apply && !reported && strcmp(task.state, "verified") != 0) {
		rc = err_set(ctx->err, ERR_CONFLICT,
		    "cannot apply a verdict to task #%lld: it is %s (only reported "
		    "or verified tasks; drop --apply to just run the checks)",
		    (long long)id, task.state);
		goto done;
	}
	verify_new_token(&token);
	if ((rc = verify_setup_read(ctx->ledger, options->remote, &setup,
		 ctx->err)) < 0)
		goto done;
	setup.options.token = token.buf;
	if (apply && reported && options->not_owned_by != 0 &&
	    task.owner_id == options->not_owned_by) {
		rc = err_set(ctx->err, ERR_REFUSED,
		    "task #%lld is your own report: its verdict comes from a sweep "
		    "someone else runs (a person, another agent, daicho run); "
		    "'daicho verify %lld' without --apply shows what it would say",
		    (long long)id, (long long)id);
		goto done;
	}
	if (apply && reported) {
		int64_t taken;

		rc = verify_take(ctx->ledger, id, 0, 0, token.buf, &taken, ctx->err);
		if (rc == 1)
			rc = err_set(ctx->err, ERR_CONFLICT,
			    "task #%lld is being verified by another sweep right now",
			    (long long)id);
		if (rc != 0)
			goto done;
	}
	if ((rc = verify_task(ctx->ledger, id, &setup.options, &v,
		 ctx->err)) < 0)
		goto done;
	if (apply && (rc = verify_record(ctx->ledger, &v,
			  reported ? token.buf : NULL, options->actor,
			  options->stale_after_ms, &outcome, ctx->err)) < 0)
		goto done;
	report_verdict(ctx, &v, array, apply ? outcome_words[outcome] : NULL);
	rc = v.passed ? 0 : 1;
	if (v.deferred && strncmp(v.summary, "fetch:", 6) == 0)
		rc = err_set(ctx->err, ERR_FAILED, "could not verify #%lld: the "
		    "commit %.12s could not be fetched (see the fetch check above; "
		    "nothing was judged)", (long long)id, v.commit);
	else if (v.deferred)
		rc = err_set(ctx->err, ERR_FAILED, "could not verify #%lld: %s "
		    "(nothing was judged)", (long long)id, v.summary);
done:
	verify_setup_release(&setup);
	verdict_release(&v);
	task_free_fields(&task);
	buf_release(&token);
	return rc;
}

struct id_list {
	int64_t *ids;
	size_t count, alloc;
};

static int
collect_id(const struct task *t, void *arg)
{
	struct id_list *list = arg;

	if (list->count == list->alloc) {
		list->alloc = list->alloc ? list->alloc * 2 : 64;
		list->ids = xrealloc(list->ids, list->alloc * sizeof(int64_t));
	}
	list->ids[list->count++] = t->id;
	return 0;
}

static int
exec_verify(struct cmd_ctx *ctx)
{
	struct sweep_options options;
	bool apply = cmd_has(ctx, OPT_APPLY), all = cmd_has(ctx, OPT_ALL_VERIFIED);
	json_t *array = ctx->json ? json_array() : NULL;
	int64_t failing = 0;
	int rc;

	if (all == (ctx->argc == 1)) {
		json_decref(array);
		return err_set(ctx->err, ERR_USAGE,
		    "verify takes an ID or --all-verified, one of the two");
	}
	if ((rc = sweep_options_from(ctx, CMD_NO_OPTION, &options)) < 0 ||
	    (apply && (rc = ledger_require_judge(ctx->ledger, "verify --apply",
		ctx->err)) < 0))
		goto done;
	if (!all) {
		int64_t id;

		if ((rc = cmd_task_id(ctx, ctx->argv[0], &id)) < 0)
			goto done;
		if ((rc = verify_one(ctx, id, apply, &options, array)) < 0)
			goto done;
		failing = rc;
	} else {
		struct task_filter verified = { .state = "verified" };
		struct id_list list = { 0 };

		if ((rc = task_each(ctx->ledger, &verified, collect_id, &list,
			 ctx->err)) < 0) {
			free(list.ids);
			goto done;
		}
		for (size_t i = 0; i < list.count && !stop_requested; i++) {
			if ((rc = verify_one(ctx, list.ids[i], apply, &options,
				 array)) < 0)
				break;
			failing += rc;
		}
		free(list.ids);
		if (rc < 0)
			goto done;
		if (!ctx->json && !ctx->quiet)
			printf("%zu verified task%s checked, %lld no longer pass%s\n",
			    list.count, list.count == 1 ? "" : "s", (long long)failing,
			    failing == 1 ? "es" : "");
	}
	if (array) {
		rc = cmd_print_json(ctx, array);
		array = NULL;
		if (rc < 0)
			goto done;
	}
	rc = 0;
	if (failing > 0)
		rc = err_set(ctx->err, ERR_VERIFY, "%lld task%s failed verification",
		    (long long)failing, failing == 1 ? "" : "s");
done:
	json_decref(array);
	return rc;
}

const struct cmd_entry cmd_verify_entry = {
	.name = "verify",
	.usage = "verify ID [--apply] [--remote NAME] | verify --all-verified "
		 "[--apply]",
	.summary = "run a task's checks now and print the evidence",
	.help =
	    "Runs the task's definition of done where the sweep would (in a\n"
	    "checkout holding just the reported commit, else in the project root)\n"
	    "and prints each check: PASS or FAIL, exit status, time, and the\n"
	    "last 4 KB of output or the reason. Changes nothing unless --apply:\n"
	    "then a reported task gets the verdict as the sweep would give it,\n"
	    "and a verified task that no longer passes goes back to open, the\n"
	    "reason logged. An agent may not --apply a verdict to its own report\n"
	    "(exit 6).\n\n"
	    "--all-verified re-runs the checks of every verified task at its\n"
	    "recorded commit and lists those that no longer pass.\n\n"
	    "A reported commit missing from the ledger's repository is fetched\n"
	    "first, as the sweep does (--remote NAME, or none; see 'daicho sweep\n"
	    "--help'). When it cannot be fetched nothing is judged or applied:\n"
	    "exit 1.\n\n"
	    "Exit 5 when a check fails.\n\n"
	    "JSON: an array of verdicts: task, passed, at_ms, commit, summary,\n"
	    "checks [{check, passed, exit_status, duration_ms, output}], and\n"
	    "with --apply, applied (what happened to the task).\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_APPLY] = { "apply", 0, NULL, "apply the verdict to the task" },
	    [OPT_ALL_VERIFIED] = { "all-verified", 0, NULL,
		"re-check every verified task" },
	    [OPT_STALE_AFTER] = { "stale-after", 0, "DUR",
		"an owner unseen this long is gone (10m)" },
	    [OPT_REMOTE] = { "remote", 0, "NAME",
		"fetch a missing commit from NAME, or none" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 0,
	.max_args = 1,
	.exec = exec_verify,
};
