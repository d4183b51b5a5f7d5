/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* Tasks: add, ls, show, cancel, graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/batch.h"
#include "cmd/cmd.h"
#include "core/settings.h"
#include "core/task.h"
#include "core/verify.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/duration.h"
#include "util/glob.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum task_option {
	OPT_BODY,
	OPT_BODY_FILE,
	OPT_AFTER,
	OPT_TOUCHES,
	OPT_PROTECT,
	OPT_DONE_WHEN,
	OPT_CHECK_TIMEOUT,
	OPT_NO_BASELINE,
	OPT_CHECK_NEEDS,
	OPT_PRIORITY,
	OPT_STATE,
	OPT_READY,
	OPT_MINE,
	OPT_LABEL,
	OPT_MAX_ATTEMPTS,
	OPT_PARENT,
	OPT_BATCH,
	OPT_OWNER,
	OPT_TEXT,
	OPT_CREATED_SINCE,
	OPT_UPDATED_SINCE,
	OPT_LIMIT,
	OPT_REASON,
	OPT_FORMAT,
	OPTION_COUNT
};

/* Split a comma-separated list of after ids into list; empty items are
 * refused. */
static int
add_split(struct cmd_ctx *ctx, struct strlist *list, const char *text)
{
	const char *p = text;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		while (len > 0 && *p == ' ') {
			p++;
			len--;
		}
		while (len > 0 && p[len - 1] == ' ')
			len--;
		if (len == 0)
			return err_set(ctx->err, ERR_USAGE,
			    "empty task id in --after '%s' (write --after 3,4)", text);
		strlist_add_owned(list, xstrndup(p, len));
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	return 0;
}

static int
print_ids(struct cmd_ctx *ctx, const int64_t *ids, size_t count)
{
	if (ctx->json) {
		json_t *array;

		if (count == 1 && !cmd_has(ctx, OPT_BATCH))
			return cmd_print_json(ctx, json_pack("{s:I}", "id",
			    (json_int_t)ids[0]));
		array = json_array();
		for (size_t i = 0; i < count; i++)
			json_array_append_new(array, json_integer(ids[i]));
		return cmd_print_json(ctx, json_pack("{s:o}", "ids", array));
	}
	if (!ctx->quiet)
		for (size_t i = 0; i < count; i++)
			printf("%lld\n", (long long)ids[i]);
	return 0;
}

/* Whether any task of a batch declares touches. */
static bool
batch_scoped(const struct batch *batch)
{
	for (size_t i = 0; i < batch->count; i++)
		if (batch->specs[i].touches.count > 0)
			return true;
	return false;
}

static int
add_batch(struct cmd_ctx *ctx, int64_t actor)
{
	struct buf input = BUF_INIT;
	struct batch batch = BATCH_INIT;
	int64_t *ids = NULL;
	int rc;

	if ((rc = cmd_read_input(ctx, cmd_opt(ctx, OPT_BATCH), &input)) < 0 ||
	    (rc = batch_parse(input.buf, input.len, &batch, ctx->err)) < 0)
		goto done;
	/* --label on the command line labels the whole batch. */
	for (size_t i = 0; i < batch.count; i++) {
		size_t pos = 0;
		const char *label;

		while ((label = cmd_opt_next(ctx, OPT_LABEL, &pos)) != NULL)
			strlist_add(&batch.specs[i].labels, label);
	}
	/* A person's touches exempt the tasks from the protected paths. */
	if (batch_scoped(&batch) && cmd_is_person(ctx))
		for (size_t i = 0; i < batch.count; i++)
			batch.specs[i].by_person = true;
	ids = xcalloc(batch.count, sizeof(*ids));
	if ((rc = task_add(ctx->ledger, actor, batch.specs, batch.count, ids,
		 ctx->err)) < 0)
		goto done;
	rc = print_ids(ctx, ids, batch.count);
done:
	batch_release(&batch);
	free(ids);
	buf_release(&input);
	return rc;
}

/*
 * The note a task with cmd: checks and no --touches gets at add: work that
 * changes what its checks read waits for a person (docs/verification.md,
 * "What the checks read is theirs").
 */
static void
warn_unscoped(const struct task_spec *spec, int64_t id)
{
	bool commands = false;

	for (size_t i = 0; i < spec->checks.count; i++)
		commands |= strncmp(spec->checks.items[i], "cmd:", 4) == 0;
	if (commands && spec->touches.count == 0 && !spec->no_baseline)
		fprintf(stderr, "daicho: note: #%lld has cmd: checks and no "
		    "--touches: work that changes what they read waits for a "
		    "person ('daicho edit %lld --touches GLOB' says what it may "
		    "change)\n", (long long)id, (long long)id);
}

/*
 * The note a task gets at add when its --touches reach a path the ledger
 * protects and no person proven at a terminal added it (an agent, or a
 * script): such touches do not exempt it, so work that changes that path
 * is rejected until a person sets them (issue 31).
 */
static void
warn_protected_scope(struct cmd_ctx *ctx, const struct task_spec *spec,
    int64_t id)
{
	struct strlist protect = STRLIST_INIT;
	struct err ignored = ERR_INIT;

	if (spec->touches.count == 0 ||
	    settings_protected(ctx->ledger, &protect, &ignored) < 0) {
		err_release(&ignored);
		return;
	}
	for (size_t i = 0; i < spec->touches.count; i++)
		for (size_t k = 0; k < protect.count; k++) {
			if (!glob_overlap(spec->touches.items[i], protect.items[k]))
				continue;
			fprintf(stderr, "daicho: note: #%lld touches %s, which the "
			    "ledger protects ('daicho config protect': '%s'); "
			    "touches not set by a person at a terminal do not exempt "
			    "it, so work that changes it is rejected until a person "
			    "runs 'daicho edit %lld --touches ...'\n", (long long)id,
			    spec->touches.items[i], protect.items[k], (long long)id);
			strlist_release(&protect);
			return;
		}
	strlist_release(&protect);
}

static int
exec_add(struct cmd_ctx *ctx)
{
	struct task_spec spec = { 0 };
	struct buf body = BUF_INIT;
	int64_t actor = cmd_caller(ctx), id = 0;
	const char *value;
	size_t pos;
	int rc;

	if (actor < 0)
		return (int)actor;
	if (cmd_has(ctx, OPT_BATCH)) {
		size_t labels = 0, at = 0;

		while (cmd_opt_next(ctx, OPT_LABEL, &at) != NULL)
			labels++;
		if (ctx->argc > 0 || ctx->value_count > 1 + labels)
			return err_set(ctx->err, ERR_USAGE,
			    "--batch takes no title and no other task options but "
			    "--label (put them in the JSONL lines)");
		return add_batch(ctx, actor);
	}
	if (ctx->argc != 1)
		return err_set(ctx->err, ERR_USAGE,
		    "add needs one TITLE (quote it; or use --batch FILE)");
	spec.title = ctx->argv[0];
	if (cmd_has(ctx, OPT_BODY) && cmd_has(ctx, OPT_BODY_FILE)) {
		rc = err_set(ctx->err, ERR_USAGE, "give --body or --body-file, not both");
		goto done;
	}
	if ((value = cmd_opt(ctx, OPT_BODY)) != NULL) {
		buf_adds(&body, value);
	} else if ((value = cmd_opt(ctx, OPT_BODY_FILE)) != NULL) {
		if ((rc = cmd_read_input(ctx, value, &body)) < 0)
			goto done;
	}
	spec.body = body.buf;
	spec.body_bytes = body.len;
	if ((value = cmd_opt(ctx, OPT_PRIORITY)) != NULL &&
	    (rc = cmd_integer(ctx, OPT_PRIORITY, value, -1000000000, 1000000000,
		 &spec.priority)) < 0)
		goto done;
	if ((value = cmd_opt(ctx, OPT_MAX_ATTEMPTS)) != NULL &&
	    (rc = cmd_integer(ctx, OPT_MAX_ATTEMPTS, value, 1, 1000000,
		 &spec.max_attempts)) < 0)
		goto done;
	if ((value = cmd_opt(ctx, OPT_CHECK_TIMEOUT)) != NULL &&
	    (rc = cmd_duration(ctx, OPT_CHECK_TIMEOUT, value,
		 &spec.check_timeout_ms)) < 0)
		goto done;
	/* How a task is judged is a person's call (docs/verification.md). */
	if ((value = cmd_opt(ctx, OPT_CHECK_NEEDS)) != NULL &&
	    strcmp(value, "net") != 0) {
		rc = err_set(ctx->err, ERR_USAGE, "bad value for --check-needs "
		    "(want net: its cmd: checks get the network)");
		goto done;
	}
	/* Both are a person's alone: cmd_check_person_acts() proved one. */
	spec.no_baseline = cmd_has(ctx, OPT_NO_BASELINE);
	/* A person's touches exempt the task from the protected paths. */
	spec.by_person = cmd_has(ctx, OPT_TOUCHES) && cmd_is_person(ctx);
	spec.check_needs = value;
	spec.parent = cmd_opt(ctx, OPT_PARENT);
	pos = 0;
	while ((value = cmd_opt_next(ctx, OPT_AFTER, &pos)) != NULL)
		if ((rc = add_split(ctx, &spec.after, value)) < 0)
			goto done;
	pos = 0;
	while ((value = cmd_opt_next(ctx, OPT_TOUCHES, &pos)) != NULL)
		strlist_add(&spec.touches, value);
	pos = 0;
	while ((value = cmd_opt_next(ctx, OPT_PROTECT, &pos)) != NULL)
		strlist_add(&spec.protects, value);
	pos = 0;
	while ((value = cmd_opt_next(ctx, OPT_DONE_WHEN, &pos)) != NULL)
		strlist_add(&spec.checks, value);
	pos = 0;
	while ((value = cmd_opt_next(ctx, OPT_LABEL, &pos)) != NULL)
		strlist_add(&spec.labels, value);
	for (size_t i = 0; i < spec.after.count; i++)
		if ((rc = cmd_task_id(ctx, spec.after.items[i], &id)) < 0)
			goto done;
	if (spec.parent && (rc = cmd_task_id(ctx, spec.parent, &id)) < 0)
		goto done;
	if ((rc = task_add(ctx->ledger, actor, &spec, 1, &id, ctx->err)) < 0)
		goto done;
	rc = print_ids(ctx, &id, 1);
	warn_unscoped(&spec, id);
	if (!spec.by_person)
		warn_protected_scope(ctx, &spec, id);
done:
	task_spec_release(&spec);
	buf_release(&body);
	return rc;
}

#define STRINGIFY(x) #x
#define EXPANDED_STRING(x) STRINGIFY(x)
#define TITLE_MAX_TEXT EXPANDED_STRING(TASK_TITLE_MAX_BYTES)

const struct cmd_entry cmd_add_entry = {
	.name = "add",
	.usage = "add TITLE [--body TEXT | --body-file FILE|-] [--after IDS]... "
		 "[--touches GLOB]... [--protect GLOB]... [--done-when CHECK]... "
		 "[--check-timeout DUR] [--no-baseline] [--check-needs net] "
		 "[--priority N] "
		 "[--label L]... [--max-attempts N] [--parent ID]\n"
		 "       daicho add --batch FILE.jsonl|- [--label L]...",
	.summary = "add a task (or many, all or none) and print its id",
	.help =
	    "Prints only the new id (one per line for --batch).\n\n"
	    "The title is one line of at most " TITLE_MAX_TEXT " bytes of UTF-8.\n"
	    "The body is the task's prompt: any bytes, any size; workers fetch it\n"
	    "with 'daicho prompt ID'. --after takes ids (12, #12, T12), comma-\n"
	    "separated or repeated: the task is ready only when all of them are\n"
	    "verified. --touches declares the paths the task will edit, as globs\n"
	    "relative to the repository (*, **, ?, [a-z]); two tasks whose globs\n"
	    "overlap are never claimed at once. --done-when adds a check that must\n"
	    "pass before the task counts as done: file:PATH, cmd:SHELL, saved or\n"
	    "commit (see below). Defaults: priority 0 (higher is claimed first),\n"
	    "3 attempts, 10m per cmd: check.\n\n"
	    "Checks (all must pass; the sweep runs them, never the worker):\n"
	    "  file:PATH   PATH is a regular, non-empty file in the checkout (a\n"
	    "              symlink, directory or device is refused, and so are\n"
	    "              absolute paths and '..')\n"
	    "  cmd:SHELL   /bin/sh -c SHELL exits 0 within the check timeout, run\n"
	    "              in the task's checkout with $DAICHO_TASK set; every\n"
	    "              process it starts is killed when it ends\n"
	    "  saved       a non-empty result was saved\n"
	    "  commit      the reported commit changes something\n"
	    "In a git repository, file:, cmd: and commit need a reported commit\n"
	    "(report --commit): they run in a checkout holding just that commit,\n"
	    "and uncommitted files never count. The commit must be on a branch,\n"
	    "hold work new since the claim (not on the trunk then, not accepted\n"
	    "for another task) and change no protected path. A task without checks\n"
	    "passes on 'saved' when it has a result, else on the report alone.\n\n"
	    "--protect GLOB names paths a report must not change (the tests that\n"
	    "judge the work, say), on top of the ledger's 'daicho config protect'\n"
	    "list; a report whose commit changes one since the claim is rejected,\n"
	    "naming the path. The ledger's list does not apply to paths the task\n"
	    "declares with --touches when a person set them, at a terminal (an\n"
	    "add from a script or an agent notes that its touches exempt\n"
	    "nothing); the task's own --protect always does.\n\n"
	    "What the cmd: checks read, look for or list on the claim's base is\n"
	    "theirs (traced there): a report that changes it outside the task's\n"
	    "--touches (set by a person, or by the agent that added the task,\n"
	    "never by its worker) is rejected, naming the path; a task with no\n"
	    "such --touches waits for a person instead. So a task with cmd:\n"
	    "checks should say with --touches what its work changes; add notes\n"
	    "on stderr when it does not.\n\n"
	    "--batch reads one JSON object per line, all added in one transaction\n"
	    "(all or none; an error names the line); --label L with it labels\n"
	    "every task of the batch, so that 'daicho run --label L' takes that\n"
	    "batch and nothing else. Fields: title (required),\n"
	    "body, priority, max_attempts, labels, touches, protect, done_when,\n"
	    "check_timeout (\"90s\"), after,\n"
	    "parent, key. after and parent take task ids or the key of another\n"
	    "line in the batch (forward references allowed); a cycle is refused\n"
	    "and named. Example:\n"
	    "  {\"key\":\"parse\",\"title\":\"Write the parser\",\"touches\":[\"src/parse*\"]}\n"
	    "  {\"title\":\"Test it\",\"after\":[\"parse\"],\"done_when\":[\"cmd:make test\"]}\n\n"
	    "--no-baseline (a person only; exit 6 for an agent): verification\n"
	    "judges the task on its commit alone, without running its checks at\n"
	    "the claim's base, for a task whose checks rightly pass before the\n"
	    "work (a refactoring under an existing test suite); otherwise a task\n"
	    "whose checks all pass there already is blocked as vacuous. Without\n"
	    "that run, nothing is traced either: only --protect and the ledger's\n"
	    "list guard what judges the task.\n\n"
	    "--check-needs net (a person only): the task's cmd: checks run with\n"
	    "the host's network (a service, a registry), still sandboxed\n"
	    "otherwise; every other check has a loopback of its own.\n\n"
	    "JSON: {\"id\": N}; with --batch {\"ids\": [N, ...]}\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_BODY] = { "body", 0, "TEXT", "the prompt, given inline" },
	    [OPT_BODY_FILE] = { "body-file", 0, "FILE",
		"read the prompt from FILE ('-': stdin)" },
	    [OPT_AFTER] = { "after", 0, "IDS",
		"ready only after these are verified", CMD_OPTION_REPEATS },
	    [OPT_TOUCHES] = { "touches", 0, "GLOB",
		"a path glob the task edits (repeatable)", CMD_OPTION_REPEATS },
	    [OPT_PROTECT] = { "protect", 0, "GLOB",
		"a path glob a report must not change (repeatable)",
		CMD_OPTION_REPEATS },
	    [OPT_DONE_WHEN] = { "done-when", 0, "CHECK",
		"file:PATH, cmd:SHELL, saved, commit", CMD_OPTION_REPEATS },
	    [OPT_CHECK_TIMEOUT] = { "check-timeout", 0, "DUR",
		"time limit of each cmd: check (10m)" },
	    [OPT_NO_BASELINE] = { "no-baseline", 0, NULL,
		"judge without running the checks at the claim's base (a "
		"person only)" },
	    [OPT_CHECK_NEEDS] = { "check-needs", 0, "net",
		"its cmd: checks get the network, out of the sandbox's (a "
		"person only)" },
	    [OPT_PRIORITY] = { "priority", 0, "N", "higher first (default 0)" },
	    [OPT_LABEL] = { "label", 0, "L",
		"a label (repeatable)", CMD_OPTION_REPEATS },
	    [OPT_MAX_ATTEMPTS] = { "max-attempts", 0, "N",
		"attempts before failed (default 3)" },
	    [OPT_PARENT] = { "parent", 0, "ID",
		"the task this one belongs to" },
	    [OPT_BATCH] = { "batch", 0, "FILE",
		"add one task per JSONL line ('-': stdin)" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 0,
	.max_args = 1,
	.exec = exec_add,
};

/* The JSON form of a task: the fields documented in 'daicho ls --help'. */
static json_t *
task_json(const struct task *t)
{
	json_t *o = json_object(), *after = json_array(), *labels = json_array(),
	       *touches = json_array(), *checks = json_array(),
	       *protects = json_array();

	json_object_set_new(o, "id", json_integer(t->id));
	json_object_set_new(o, "title", json_string(t->title));
	json_object_set_new(o, "state", json_string(t->state));
	json_object_set_new(o, "priority", json_integer(t->priority));
	json_object_set_new(o, "parent", t->parent ? json_integer(t->parent) : json_null());
	json_object_set_new(o, "owner", t->owner ? json_string(t->owner) : json_null());
	json_object_set_new(o, "lease_expires_ms",
	    t->lease_expires_ms ? json_integer(t->lease_expires_ms) : json_null());
	json_object_set_new(o, "max_hold_ms",
	    t->max_hold_ms ? json_integer(t->max_hold_ms) : json_null());
	json_object_set_new(o, "claim_named_ms",
	    t->claim_named_ms ? json_integer(t->claim_named_ms) : json_null());
	json_object_set_new(o, "claim_base",
	    t->claim_base ? json_string(t->claim_base) : json_null());
	json_object_set_new(o, "attempts", json_integer(t->attempts));
	json_object_set_new(o, "max_attempts", json_integer(t->max_attempts));
	for (size_t i = 0; i < t->after_count; i++)
		json_array_append_new(after, json_integer(t->after[i]));
	json_object_set_new(o, "after", after);
	json_object_set_new(o, "unmet_after", json_integer(t->unmet_deps));
	for (size_t i = 0; i < t->labels.count; i++)
		json_array_append_new(labels, json_string(t->labels.items[i]));
	json_object_set_new(o, "labels", labels);
	for (size_t i = 0; i < t->touches.count; i++)
		json_array_append_new(touches, json_string(t->touches.items[i]));
	json_object_set_new(o, "touches", touches);
	for (size_t i = 0; i < t->protects.count; i++)
		json_array_append_new(protects, json_string(t->protects.items[i]));
	json_object_set_new(o, "protect", protects);
	json_object_set_new(o, "checks_version", json_integer(t->checks_version));
	for (size_t i = 0; i < t->checks.count; i++)
		json_array_append_new(checks, json_string(t->checks.items[i]));
	json_object_set_new(o, "done_when", checks);
	json_object_set_new(o, "check_timeout_ms",
	    t->check_timeout_ms ? json_integer(t->check_timeout_ms) : json_null());
	json_object_set_new(o, "body_bytes", json_integer(t->body_bytes));
	json_object_set_new(o, "saves", json_integer(t->saves));
	json_object_set_new(o, "result_bytes",
	    t->result_bytes >= 0 ? json_integer(t->result_bytes) : json_null());
	json_object_set_new(o, "land_queued_ms",
	    t->land_queued_ms ? json_integer(t->land_queued_ms) : json_null());
	json_object_set_new(o, "land_tries", json_integer(t->land_tries));
	json_object_set_new(o, "land_note",
	    t->land_note ? json_string(t->land_note) : json_null());
	json_object_set_new(o, "land_waiting",
	    t->land_waiting ? json_string(t->land_waiting) : json_null());
	json_object_set_new(o, "landed_commit",
	    t->landed_commit ? json_string(t->landed_commit) : json_null());
	json_object_set_new(o, "landed_trunk",
	    t->landed_trunk ? json_string(t->landed_trunk) : json_null());
	json_object_set_new(o, "landed_ms",
	    t->landed_ms ? json_integer(t->landed_ms) : json_null());
	json_object_set_new(o, "no_baseline", json_boolean(t->no_baseline));
	json_object_set_new(o, "check_needs",
	    t->check_needs ? json_string(t->check_needs) : json_null());
	json_object_set_new(o, "commit",
	    t->report_commit ? json_string(t->report_commit) : json_null());
	json_object_set_new(o, "note",
	    t->report_note ? json_string(t->report_note) : json_null());
	json_object_set_new(o, "block_reason",
	    t->block_reason ? json_string(t->block_reason) : json_null());
	json_object_set_new(o, "created_ms", json_integer(t->created_ms));
	json_object_set_new(o, "updated_ms", json_integer(t->updated_ms));
	return o;
}

struct ls_state {
	struct cmd_ctx *ctx;
	json_t *array;
	bool header;
	bool colour;
	int64_t now;
	size_t rows;
};

static int
ls_one(const struct task *t, void *arg)
{
	struct ls_state *s = arg;
	struct buf line = BUF_INIT, id = BUF_INIT, owner = BUF_INIT,
		   state = BUF_INIT, after = BUF_INIT;

	s->rows++;
	if (s->array) {
		json_array_append_new(s->array, task_json(t));
		return 0;
	}
	if (!s->header) {
		printf("%-7s %-9s %4s  %-16s %-8s %s\n", "ID", "STATE", "PRI",
		    "OWNER", "AFTER", "TITLE");
		s->header = true;
	}
	/* What an open task that is not ready waits on. */
	if (t->unmet_deps > 0 && strcmp(t->state, "open") == 0) {
		struct strlist ids = STRLIST_INIT;
		int rc = task_waits_on(s->ctx->ledger, t->id, &ids, s->ctx->err);

		for (size_t i = 0; rc == 0 && i < ids.count; i++)
			buf_addf(&after, "%s%s", i ? "," : "", ids.items[i]);
		strlist_release(&ids);
		if (rc < 0) {
			buf_release(&after);
			return rc;
		}
	}
	if (after.len == 0)
		buf_adds(&after, "-");
	buf_addf(&id, "#%lld", (long long)t->id);
	if (t->owner) {
		cmd_add_printable(&owner, t->owner);
		if (strcmp(t->state, "claimed") == 0 && t->lease_expires_ms <= s->now)
			buf_adds(&owner, " (expired)");
	} else {
		buf_adds(&owner, "-");
	}
	cmd_add_printable(&line, t->title);
	cmd_add_toned(&state, s->colour, cmd_tone_of(t->state), t->state, 9);
	printf("%-7s %s %4lld  %-16s %-8s %s\n", id.buf, state.buf,
	    (long long)t->priority, owner.buf, after.buf, line.buf);
	buf_release(&after);
	buf_release(&state);
	buf_release(&line);
	buf_release(&id);
	buf_release(&owner);
	return 0;
}

static int
exec_ls(struct cmd_ctx *ctx)
{
	struct task_filter filter = { 0 };
	struct ls_state state = { ctx, NULL, false, cmd_colour(), clock_now_ms(), 0 };
	const char *value;
	int rc;

	filter.state = cmd_opt(ctx, OPT_STATE);
	filter.ready = cmd_has(ctx, OPT_READY);
	filter.label = cmd_opt(ctx, OPT_LABEL);
	filter.with_edges = ctx->json;
	if (filter.state && !task_state_valid(filter.state))
		return err_set(ctx->err, ERR_USAGE,
		    "unknown state '%s' (states: open, claimed, reported, verified, "
		    "landed, blocked, cancelled, failed)", filter.state);
	if (filter.state && filter.ready)
		return err_set(ctx->err, ERR_USAGE,
		    "--ready and --state do not combine (ready tasks are open)");
	if ((value = cmd_opt(ctx, OPT_LIMIT)) != NULL &&
	    (rc = cmd_integer(ctx, OPT_LIMIT, value, 1, INT64_MAX, &filter.limit)) < 0)
		return rc;
	filter.owner_name = cmd_opt(ctx, OPT_OWNER);
	filter.text = cmd_opt(ctx, OPT_TEXT);
	if (filter.text && *filter.text == '\0')
		return err_set(ctx->err, ERR_USAGE, "--text needs some text to find");
	{
		static const int since[] = { OPT_CREATED_SINCE,
			OPT_UPDATED_SINCE };
		int64_t *into[] = { &filter.created_since_ms,
			&filter.updated_since_ms };

		for (size_t i = 0; i < 2; i++) {
			int64_t ago;

			if ((value = cmd_opt(ctx, since[i])) == NULL)
				continue;
			if ((rc = cmd_duration(ctx, since[i], value, &ago)) < 0)
				return rc;
			*into[i] = clock_now_ms() - ago;
		}
	}
	if (filter.ready && (filter.owner_name || filter.text ||
	    filter.created_since_ms || filter.updated_since_ms))
		return err_set(ctx->err, ERR_USAGE,
		    "--ready takes only --label and --limit (it lists exactly what "
		    "'claim --next' would take, in its order)");
	if (cmd_has(ctx, OPT_MINE)) {
		int64_t me = cmd_caller(ctx);

		if (me < 0)
			return (int)me;
		/* A caller new to the ledger holds nothing (-1 matches none). */
		filter.owner = me ? me : -1;
		if (filter.ready)
			return err_set(ctx->err, ERR_USAGE,
			    "--ready and --mine do not combine (ready tasks have no "
			    "owner)");
	}
	if (ctx->json)
		state.array = json_array();
	rc = task_each(ctx->ledger, &filter, ls_one, &state, ctx->err);
	if (rc < 0) {
		json_decref(state.array);
		return rc;
	}
	if (state.array)
		return cmd_print_json(ctx, state.array);
	return 0;
}

const struct cmd_entry cmd_ls_entry = {
	.name = "ls",
	.usage = "ls [--state S | --ready] [--mine | --owner NAME] [--label L] "
		 "[--text TEXT] [--created-since DUR] [--updated-since DUR] "
		 "[--limit N]",
	.summary = "list tasks",
	.help =
	    "Lists tasks in id order; --ready lists exactly what 'claim --next'\n"
	    "would take, in the order it would take them (highest priority, then\n"
	    "oldest): open, every task it comes after done (landed; or verified,\n"
	    "where it need not land: see 'daicho land --help'), touches clear of\n"
	    "live claims (or claimed with an expired lease).\n\n"
	    "Filters combine: --owner NAME (tasks its agent holds), --text TEXT\n"
	    "(in the title or the body; ASCII letters match either case),\n"
	    "--created-since and --updated-since DUR (added or changed within\n"
	    "DUR). --ready takes only --label and --limit.\n\n"
	    "States: open, claimed, reported, verified, landed, blocked,\n"
	    "cancelled, failed. A verified task with land_queued_ms set waits\n"
	    "to land. The AFTER column says what an open task that is not ready\n"
	    "waits on: the tasks it comes after that are not done yet (#1,#2);\n"
	    "'daicho show ID' names the tasks after it (before: ...).\n\n"
	    "JSON: an array of tasks. Task fields (stable): id, title, state,\n"
	    "priority, parent (id|null), owner (agent name|null), lease_expires_ms\n"
	    "(ms since the epoch|null), max_hold_ms, claim_named_ms (when the\n"
	    "holder last named it) and claim_base (the trunk's commit) of the\n"
	    "latest claim (null before one), attempts, max_attempts, after\n"
	    "(ids), unmet_after (how many of them are not done), labels,\n"
	    "touches, protect, done_when, checks_version, check_timeout_ms\n"
	    "(null: 10m), body_bytes, saves, result_bytes (latest|null), commit,\n"
	    "note, block_reason, created_ms, updated_ms, land_queued_ms (in the\n"
	    "landing queue since|null), land_tries (landings sent back),\n"
	    "land_note (why the last was sent back|null), land_waiting (why its\n"
	    "landing waits for a person|null), landed_commit and landed_trunk\n"
	    "(the trunk commit that holds it, and the branch|null), landed_ms.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_STATE] = { "state", 0, "S", "only tasks in state S" },
	    [OPT_READY] = { "ready", 0, NULL,
		"only tasks claim --next could take" },
	    [OPT_MINE] = { "mine", 0, NULL, "only tasks the caller holds" },
	    [OPT_LABEL] = { "label", 0, "L", "only tasks labelled L" },
	    [OPT_OWNER] = { "owner", 0, "NAME",
		"only tasks held by the agent NAME" },
	    [OPT_TEXT] = { "text", 0, "TEXT",
		"only tasks whose title or body holds TEXT" },
	    [OPT_CREATED_SINCE] = { "created-since", 0, "DUR",
		"only tasks added within DUR" },
	    [OPT_UPDATED_SINCE] = { "updated-since", 0, "DUR",
		"only tasks changed within DUR" },
	    [OPT_LIMIT] = { "limit", 0, "N", "at most N tasks" }),
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_ls,
};

static void
show_field(const char *name, const char *value)
{
	printf("%-11s %s\n", name, value);
}

/* show's "before" line: the tasks that come after task id, if any. */
static int
show_before(struct cmd_ctx *ctx, int64_t id)
{
	struct strlist next = STRLIST_INIT;
	struct buf text = BUF_INIT;
	int rc;

	if ((rc = task_dependents(ctx->ledger, id, &next, ctx->err)) == 0 &&
	    next.count > 0) {
		for (size_t i = 0; i < next.count; i++)
			buf_addf(&text, "%s%s", i ? ", " : "", next.items[i]);
		show_field("before", text.buf);
	}
	strlist_release(&next);
	buf_release(&text);
	return rc;
}

/*
 * show --json: task t as task_json() gives it, with its last verdict
 * (last_verdict, or null). Frees t's fields. Returns 0 or the error.
 */
static int
show_json(struct cmd_ctx *ctx, struct task *t)
{
	struct verdict verdict;
	json_t *o = task_json(t);
	int rc;

	rc = verify_last(ctx->ledger, t->id, &verdict, ctx->err);
	json_object_set_new(o, "last_verdict",
	    rc == 0 ? cmd_verdict_json(&verdict) : json_null());
	if (rc == 0)
		verdict_release(&verdict);
	task_free_fields(t);
	if (rc < 0) {
		json_decref(o);
		return rc;
	}
	return cmd_print_json(ctx, o);
}

/* Append list's items to text, printable, separated by separator. */
static void
add_printable_list(struct buf *text, const struct strlist *list,
    const char *separator)
{
	for (size_t i = 0; i < list->count; i++) {
		if (i)
			buf_adds(text, separator);
		cmd_add_printable(text, list->items[i]);
	}
}

/*
 * show's heading and where task t stands at now: its id and title, then
 * its state (with its owner, and a claim's lease), priority and attempts.
 */
static void
show_state(const struct task *t, int64_t now)
{
	struct buf text = BUF_INIT;

	buf_addf(&text, "#%lld ", (long long)t->id);
	cmd_add_printable(&text, t->title);
	printf("%s\n", text.buf);
	buf_reset(&text);
	buf_adds(&text, t->state);
	if (t->owner) {
		buf_adds(&text, strcmp(t->state, "claimed") == 0 ? " by "
		    : " (owner ");
		buf_adds(&text, t->owner);
		if (strcmp(t->state, "claimed") != 0)
			buf_addch(&text, ')');
	}
	if (strcmp(t->state, "claimed") == 0) {
		if (t->lease_expires_ms > now) {
			buf_adds(&text, ", lease ends in ");
			clock_add_remaining(&text, t->lease_expires_ms - now);
		} else {
			buf_adds(&text, ", lease expired ");
			clock_add_age(&text, now - t->lease_expires_ms);
			buf_adds(&text, " ago");
		}
	}
	show_field("state", text.buf);
	buf_reset(&text);
	buf_addf(&text, "%lld", (long long)t->priority);
	show_field("priority", text.buf);
	buf_reset(&text);
	buf_addf(&text, "%lld of %lld", (long long)t->attempts,
	    (long long)t->max_attempts);
	show_field("attempts", text.buf);
	buf_release(&text);
}

/*
 * show's edges of task t: its parent, the tasks it comes after and those
 * that come after it (show_before()). Returns 0 or the error reading the
 * latter (the lines before it are printed).
 */
static int
show_edges(struct cmd_ctx *ctx, const struct task *t)
{
	struct buf text = BUF_INIT;

	if (t->parent) {
		buf_addf(&text, "#%lld", (long long)t->parent);
		show_field("parent", text.buf);
	}
	if (t->after_count) {
		buf_reset(&text);
		for (size_t i = 0; i < t->after_count; i++)
			buf_addf(&text, "%s#%lld", i ? ", " : "",
			    (long long)t->after[i]);
		buf_addf(&text, " (%lld not done yet)", (long long)t->unmet_deps);
		show_field("after", text.buf);
	}
	buf_release(&text);
	return show_before(ctx, t->id);
}

/* show's labels of task t, its scope (touches) and protected paths. */
static void
show_scope(const struct task *t)
{
	struct buf text = BUF_INIT;

	if (t->labels.count) {
		for (size_t i = 0; i < t->labels.count; i++)
			buf_addf(&text, "%s%s", i ? ", " : "", t->labels.items[i]);
		show_field("labels", text.buf);
	}
	if (t->touches.count) {
		buf_reset(&text);
		add_printable_list(&text, &t->touches, ", ");
		show_field("touches", text.buf);
	}
	if (t->protects.count) {
		buf_reset(&text);
		add_printable_list(&text, &t->protects, ", ");
		show_field("protect", text.buf);
	}
	buf_release(&text);
}

/*
 * show's "done when" of task t (its checks, or what stands in for them)
 * and how it is judged when a person set that.
 */
static void
show_checks(const struct task *t)
{
	struct buf text = BUF_INIT;

	if (t->checks.count)
		add_printable_list(&text, &t->checks, "; ");
	else if (t->result_bytes >= 0)
		buf_adds(&text, "saved (no checks given; a result is saved)");
	else
		buf_adds(&text, "the report alone (no checks given, no result saved)");
	if (t->checks_version > 1)
		buf_addf(&text, "  (checks v%lld: changed after the task was "
		    "added; see 'daicho log %lld')", (long long)t->checks_version,
		    (long long)t->id);
	show_field("done when", text.buf);
	if (t->no_baseline || t->check_needs) {
		buf_reset(&text);
		if (t->no_baseline)
			buf_adds(&text, "without the claim's base (--no-baseline)");
		if (t->check_needs)
			buf_addf(&text, "%scmd: checks get the network "
			    "(--check-needs %s)", t->no_baseline ? "; " : "",
			    t->check_needs);
		show_field("judged", text.buf);
	}
	buf_release(&text);
}

/*
 * show's work on task t: the body's size, the saved result's, and the
 * report's commit and note; the reason it is blocked.
 */
static void
show_work(const struct task *t)
{
	struct buf text = BUF_INIT;

	buf_addf(&text, "%lld bytes ('daicho prompt %lld')",
	    (long long)t->body_bytes, (long long)t->id);
	show_field("body", text.buf);
	if (t->result_bytes >= 0) {
		buf_reset(&text);
		buf_addf(&text, "%lld bytes, %lld save%s ('daicho result %lld')",
		    (long long)t->result_bytes, (long long)t->saves,
		    t->saves == 1 ? "" : "s", (long long)t->id);
		show_field("result", text.buf);
	}
	if (t->report_commit)
		show_field("commit", t->report_commit);
	if (t->report_note) {
		buf_reset(&text);
		cmd_add_printable(&text, t->report_note);
		show_field("note", text.buf);
	}
	if (t->block_reason) {
		buf_reset(&text);
		cmd_add_printable(&text, t->block_reason);
		show_field("blocked", text.buf);
	}
	buf_release(&text);
}

/*
 * show's landing of task t at now: where it landed, or how long it has
 * waited in the queue (and on what); why its landing was last sent back.
 */
static void
show_landing(const struct task *t, int64_t now)
{
	struct buf text = BUF_INIT;

	if (t->landed_commit) {
		buf_addf(&text, "%s on %s, ", t->landed_commit, t->landed_trunk
		    ? t->landed_trunk : "?");
		clock_add_age(&text, now - t->landed_ms);
		buf_adds(&text, " ago");
		show_field("landed", text.buf);
	} else if (t->land_queued_ms && strcmp(t->state, "verified") == 0) {
		buf_adds(&text, "queued ");
		clock_add_age(&text, now - t->land_queued_ms);
		buf_adds(&text, " ago");
		if (t->land_waiting) {
			buf_adds(&text, "; waits: ");
			cmd_add_printable(&text, t->land_waiting);
		}
		show_field("landing", text.buf);
	}
	if (t->land_note && strcmp(t->state, "landed") != 0) {
		buf_reset(&text);
		buf_addf(&text, "sent back %lld time%s: ", (long long)t->land_tries,
		    t->land_tries == 1 ? "" : "s");
		cmd_add_printable(&text, t->land_note);
		show_field("land note", text.buf);
	}
	buf_release(&text);
}

/* show's line name: the time at_ms, and how long before now it was. */
static void
show_time(const char *name, int64_t at_ms, int64_t now)
{
	struct buf text = BUF_INIT;

	clock_add_timestamp(&text, at_ms);
	buf_adds(&text, " (");
	clock_add_age(&text, now - at_ms);
	buf_adds(&text, " ago)");
	show_field(name, text.buf);
	buf_release(&text);
}

/*
 * show's last verdict on task t, if any: passed or rejected, how long
 * before now, with which checks version, and its evidence. Returns 0 (also
 * when there is none) or the error reading it.
 */
static int
show_last_verdict(struct cmd_ctx *ctx, const struct task *t, int64_t now)
{
	struct verdict verdict;
	struct buf text = BUF_INIT;
	int rc;

	rc = verify_last(ctx->ledger, t->id, &verdict, ctx->err);
	if (rc == 0) {
		buf_adds(&text, verdict.passed ? "passed " : "REJECTED ");
		clock_add_age(&text, now - verdict.at_ms);
		buf_adds(&text, " ago");
		/* Checks changed since: say which version was run. */
		if (verdict.checks_version != t->checks_version)
			buf_addf(&text, " (ran checks v%lld; they are v%lld now)",
			    (long long)verdict.checks_version,
			    (long long)t->checks_version);
		buf_adds(&text, ": ");
		cmd_add_printable(&text, verdict.summary);
		show_field("verdict", text.buf);
		cmd_print_verdict(&verdict, "            ");
		verdict_release(&verdict);
	}
	buf_release(&text);
	return rc < 0 ? rc : 0;
}

static int
exec_show(struct cmd_ctx *ctx)
{
	struct task t;
	int64_t id, now = clock_now_ms();
	int rc;

	if ((rc = cmd_named_task_id(ctx, ctx->argv[0], &id)) < 0)
		return rc;
	if ((rc = task_get(ctx->ledger, id, &t, ctx->err)) < 0)
		return rc;
	if (ctx->json)
		return show_json(ctx, &t);
	show_state(&t, now);
	if ((rc = show_edges(ctx, &t)) < 0)
		goto done;
	show_scope(&t);
	show_checks(&t);
	show_work(&t);
	show_landing(&t, now);
	show_time("created", t.created_ms, now);
	show_time("updated", t.updated_ms, now);
	rc = show_last_verdict(ctx, &t, now);
done:
	task_free_fields(&t);
	return rc;
}

const struct cmd_entry cmd_show_entry = {
	.name = "show",
	.usage = "show ID",
	.summary = "show one task: state, owner, lease, edges, checks",
	.help =
	    "Shows what the task comes after (after: ..., with how many are not\n"
	    "done) and the tasks that come after it (before: #N (state), ...),\n"
	    "the checks that apply and, once the task has been verified or\n"
	    "rejected, the evidence of the last verdict: each check, its exit\n"
	    "status and time, and the tail of its output or the reason.\n\n"
	    "JSON: one task object (fields as in 'daicho ls --help') plus\n"
	    "last_verdict (as in 'daicho verify --help', or null).\n",
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_show,
};

static int
exec_cancel(struct cmd_ctx *ctx)
{
	int64_t id, actor;
	int rc;

	if ((rc = cmd_task_and_caller(ctx, &id, &actor)) < 0 ||
	    (rc = task_cancel_allowed(ctx->ledger, actor, id,
		cmd_opt(ctx, OPT_REASON), ctx->err)) < 0)
		return rc;
	cmd_say(ctx, "cancelled #%lld", (long long)id);
	return 0;
}

const struct cmd_entry cmd_cancel_entry = {
	.name = "cancel",
	.usage = "cancel ID [--reason TEXT]",
	.summary = "cancel a task that is not finished",
	.help =
	    "A cancelled task is never claimed again, and tasks that come after\n"
	    "it never become ready. Verified and cancelled tasks cannot be\n"
	    "cancelled (exit 4). Anyone may cancel an open task; one that an\n"
	    "agent holds (claimed, blocked or reported) only its holder, the\n"
	    "agent that added it, or a human; a failed one (giving it up) only\n"
	    "the agent that added it or a human (exit 4 for others). On a\n"
	    "terminal it prints one line (cancelled #3); else nothing.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_REASON] = { "reason", 0, "TEXT", "why, for the log" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_cancel,
};

struct graph_state {
	bool mermaid;
	json_t *nodes, *edges; /* with --json: collected, not printed */
};

/* Append title escaped for a dot or mermaid label. */
static void
add_label(struct buf *out, const char *title, bool mermaid)
{
	for (const unsigned char *p = (const unsigned char *)title; *p; p++) {
		if (*p == '"')
			buf_adds(out, mermaid ? "#quot;" : "\\\"");
		else if (*p == '\\' && !mermaid)
			buf_adds(out, "\\\\");
		else if (*p < 0x20)
			buf_addch(out, ' ');
		else
			buf_addch(out, (char)*p);
	}
}

static int
graph_node(const struct task *t, void *arg)
{
	struct graph_state *s = arg;
	struct buf label = BUF_INIT;

	if (s->nodes)
		return json_array_append_new(s->nodes, json_pack("{s:I, s:s, s:s}",
		    "id", (json_int_t)t->id, "title", t->title, "state", t->state));
	buf_addf(&label, "#%lld ", (long long)t->id);
	add_label(&label, t->title, s->mermaid);
	if (s->mermaid)
		printf("  t%lld[\"%s (%s)\"]\n", (long long)t->id, label.buf, t->state);
	else
		printf("  t%lld [label=\"%s\\n%s\"];\n", (long long)t->id, label.buf,
		    t->state);
	buf_release(&label);
	return 0;
}

static int
graph_edge(int64_t task, int64_t after, void *arg)
{
	struct graph_state *s = arg;

	if (s->edges)
		return json_array_append_new(s->edges, json_pack("{s:I, s:I}",
		    "task", (json_int_t)task, "after", (json_int_t)after));
	if (s->mermaid)
		printf("  t%lld --> t%lld\n", (long long)after, (long long)task);
	else
		printf("  t%lld -> t%lld;\n", (long long)after, (long long)task);
	return 0;
}

static int
exec_graph(struct cmd_ctx *ctx)
{
	const char *format = cmd_opt(ctx, OPT_FORMAT);
	struct task_filter all = { 0 };
	struct graph_state s = { false, NULL, NULL };
	int rc;

	if (ctx->json && format != NULL)
		return err_set(ctx->err, ERR_USAGE,
		    "--json and --format are two outputs; give one");
	if (ctx->json) {
		s.nodes = json_array();
		s.edges = json_array();
		if ((rc = task_each(ctx->ledger, &all, graph_node, &s,
			 ctx->err)) < 0 ||
		    (rc = task_each_edge(ctx->ledger, graph_edge, &s,
			 ctx->err)) < 0) {
			json_decref(s.nodes);
			json_decref(s.edges);
			return rc;
		}
		return cmd_print_json(ctx, json_pack("{s:o, s:o}", "nodes",
		    s.nodes, "edges", s.edges));
	}
	if (format == NULL || strcmp(format, "dot") == 0)
		s.mermaid = false;
	else if (strcmp(format, "mermaid") == 0)
		s.mermaid = true;
	else
		return err_set(ctx->err, ERR_USAGE,
		    "unknown graph format '%s' (use dot or mermaid)", format);
	printf(s.mermaid ? "graph TD\n" : "digraph daicho {\n  rankdir=LR;\n");
	if ((rc = task_each(ctx->ledger, &all, graph_node, &s, ctx->err)) < 0)
		return rc;
	if ((rc = task_each_edge(ctx->ledger, graph_edge, &s, ctx->err)) < 0)
		return rc;
	if (!s.mermaid)
		printf("}\n");
	return 0;
}

const struct cmd_entry cmd_graph_entry = {
	.name = "graph",
	.usage = "graph [--format dot|mermaid]",
	.summary = "print the dependency graph (Graphviz dot or Mermaid)",
	.help =
	    "Nodes are tasks (id, title, state); an edge A -> B means B comes\n"
	    "after A. Render with 'daicho graph | dot -Tsvg > graph.svg'.\n\n"
	    "JSON: {nodes: [{id, title, state}], edges: [{task, after}]}.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_FORMAT] = { "format", 0, "F", "dot (default) or mermaid" }),
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_graph,
};
