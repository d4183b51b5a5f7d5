/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Helpers every command uses: option lookup, argument parsing with daicho's
 * error messages, input and output.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/settings.h"

#include "util/alloc.h"
#include "util/bug.h"
#include "util/client.h"
#include "util/clock.h"
#include "core/task.h"
#include "util/duration.h"
#include "util/user.h"
#include "util/utf8.h"

const struct cmd_option *
cmd_entry_option(const struct cmd_entry *entry, int option)
{
	BUG_ON(option < 0 || (size_t)option >= entry->option_count ||
	    entry->options[option].name == NULL, "command %s has no option "
	    "with id %d (an id of a sibling command's table)", entry->name,
	    option);
	return &entry->options[option];
}

/* The last value given for ctx's option with id option, or NULL. */
static const struct cmd_value *
last_value(const struct cmd_ctx *ctx, int option)
{
	const struct cmd_option *wanted = cmd_entry_option(ctx->entry, option);
	const struct cmd_value *last = NULL;

	for (size_t i = 0; i < ctx->value_count; i++)
		if (ctx->values[i].option == wanted)
			last = &ctx->values[i];
	return last;
}

const char *
cmd_opt(const struct cmd_ctx *ctx, int option)
{
	const struct cmd_value *v = last_value(ctx, option);

	return v ? v->value : NULL;
}

bool
cmd_has(const struct cmd_ctx *ctx, int option)
{
	return last_value(ctx, option) != NULL;
}

const char *
cmd_opt_next(const struct cmd_ctx *ctx, int option, size_t *pos)
{
	const struct cmd_option *wanted = cmd_entry_option(ctx->entry, option);

	BUG_ON(!(wanted->flags & CMD_OPTION_REPEATS), "option --%s of %s is "
	    "read as repeatable but not flagged CMD_OPTION_REPEATS",
	    wanted->name, ctx->entry->name);
	while (*pos < ctx->value_count) {
		const struct cmd_value *v = &ctx->values[(*pos)++];

		if (v->option == wanted)
			return v->value;
	}
	return NULL;
}

bool
cmd_has_named(const struct cmd_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < ctx->value_count; i++)
		if (strcmp(ctx->values[i].option->name, name) == 0)
			return true;
	return false;
}

bool
cmd_has_flagged(const struct cmd_ctx *ctx, int flag)
{
	for (size_t i = 0; i < ctx->value_count; i++)
		if (ctx->values[i].option->flags & flag)
			return true;
	return false;
}

void
cmd_gather_identity(struct cmd_ctx *ctx, const char *as)
{
	static const struct {
		const char *variable, *kind;
	} sessions[] = {
		{ "CLAUDE_CODE_SESSION_ID", "claude" },
		{ "CODEX_THREAD_ID", "codex" },
		{ "GEMINI_SESSION_ID", "gemini" },
	};
	const char *env = getenv("DAICHO_AGENT");

	ctx->claim.kind = "script";
	for (size_t i = 0; i < sizeof(sessions) / sizeof(sessions[0]); i++) {
		const char *id = getenv(sessions[i].variable);

		if (id != NULL && *id != '\0') {
			ctx->session_id = id;
			ctx->session_kind = sessions[i].kind;
			ctx->claim.session_id = id;
			ctx->claim.kind = sessions[i].kind;
			ctx->explicit_agent = true;
			break;
		}
	}
	if (as) {
		ctx->claim.name = as;
		ctx->claim.session_id = NULL;
		ctx->explicit_agent = true;
	} else if (env != NULL && *env != '\0') {
		ctx->claim.name = env;
		ctx->claim.session_id = NULL;
		ctx->explicit_agent = true;
	}
	if (!ctx->explicit_agent) {
		const char *gemini = getenv("GEMINI_CLI");

		ctx->claim.human_name = user_login_name();
		/*
		 * Gemini CLI's shell tool sets GEMINI_CLI=1 but not the session:
		 * the command is its session agent's (found by process), never
		 * the human's.
		 */
		if (gemini != NULL && *gemini != '\0') {
			ctx->claim.client_shell = "gemini";
			ctx->claim.kind = "gemini";
			ctx->explicit_agent = true;
		}
	}
}

int64_t
cmd_caller(struct cmd_ctx *ctx)
{
	int rc;

	if (ctx->caller.name != NULL)
		return ctx->caller.id;
	if ((rc = agent_resolve(ctx->ledger, &ctx->claim, &ctx->caller,
		 ctx->err)) < 0)
		return rc;
	return ctx->caller.id;
}

void
cmd_add_value(struct cmd_ctx *ctx, const struct cmd_option *option,
    const char *value)
{
	xgrow((void **)&ctx->values, &ctx->value_alloc, ctx->value_count + 1,
	    sizeof(*ctx->values));
	ctx->values[ctx->value_count].option = option;
	ctx->values[ctx->value_count].value = value;
	ctx->value_count++;
}

/* Whether an option's value names a file or a directory (FILE, FILE|-...). */
static bool
names_a_file(const struct cmd_option *option)
{
	const char *v = option->value_name;

	return v && (strstr(v, "FILE") || strstr(v, "DIR") || strstr(v, "PATH"));
}

int
cmd_check_text(struct cmd_ctx *ctx)
{
	for (size_t i = 0; i < ctx->value_count; i++) {
		const struct cmd_value *v = &ctx->values[i];

		if (v->value && !names_a_file(v->option) && !utf8_valid(v->value))
			return err_set(ctx->err, ERR_USAGE, "the value of --%s is not "
			    "UTF-8 text (daicho keeps text as UTF-8; convert it, e.g. "
			    "with iconv)", v->option->name);
	}
	if (ctx->entry->flags & CMD_RAW_ARGS)
		return 0;
	for (int i = 0; i < ctx->argc; i++)
		if (!utf8_valid(ctx->argv[i]))
			return err_set(ctx->err, ERR_USAGE, "argument %d of %s is not "
			    "UTF-8 text (daicho keeps text as UTF-8; convert it, e.g. "
			    "with iconv)", i + 1, ctx->entry->name);
	return 0;
}

const struct cmd_option *
cmd_find_option(const struct cmd_entry *entry, const char *name)
{
	const struct cmd_option *o;

	for (size_t pos = 0; (o = cmd_next_option(entry, &pos)) != NULL;)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

const struct cmd_option *
cmd_next_option(const struct cmd_entry *entry, size_t *pos)
{
	while (*pos < entry->option_count) {
		const struct cmd_option *o = &entry->options[(*pos)++];

		if (o->name != NULL)
			return o;
	}
	return NULL;
}

int
cmd_check_arity(struct cmd_ctx *ctx)
{
	const struct cmd_entry *entry = ctx->entry;

	if (ctx->argc >= entry->min_args &&
	    (entry->max_args < 0 || ctx->argc <= entry->max_args))
		return 0;
	return err_set(ctx->err, ERR_USAGE, "%s (usage: daicho %.*s)",
	    ctx->argc < entry->min_args ? "missing argument" : "too many arguments",
	    (int)strcspn(entry->usage, "\n"), entry->usage);
}

int
cmd_execute(struct cmd_ctx *ctx)
{
	uint64_t commits = ctx->ledger ? ledger_commit_count(ctx->ledger) : 0;
	int rc;

	/*
	 * An agent client's shell without its session (GEMINI_CLI=1) is an
	 * explicit agent too: resolved, or refused, for every command alike,
	 * and never the human.
	 */
	if (ctx->ledger != NULL &&
	    (ctx->entry->flags & CMD_AS_AGENT || ctx->explicit_agent)) {
		int64_t id = cmd_caller(ctx);

		if (id < 0)
			return (int)id;
	}
	if ((rc = cmd_check_person_acts(ctx)) == 0)
		rc = ctx->entry->exec(ctx);
	json_decref(ctx->person_checked);
	ctx->person_checked = NULL;
	if (rc == 0 && ctx->caller.name != NULL && ctx->ledger != NULL &&
	    ledger_commit_count(ctx->ledger) == commits)
		rc = agent_heartbeat(ctx->ledger, &ctx->caller, ctx->err);
	return rc;
}

int64_t
cmd_caller_registered(struct cmd_ctx *ctx)
{
	int64_t id = cmd_caller(ctx);
	int rc;

	if (id != 0)
		return id;
	if ((rc = agent_heartbeat(ctx->ledger, &ctx->caller, ctx->err)) < 0)
		return rc;
	return ctx->caller.id;
}

int
cmd_task_id(struct cmd_ctx *ctx, const char *text, int64_t *id)
{
	return task_parse_id(text, id, ctx->err);
}

int
cmd_task_and_caller(struct cmd_ctx *ctx, int64_t *id, int64_t *agent)
{
	int rc;

	if ((rc = cmd_task_id(ctx, ctx->argv[0], id)) < 0)
		return rc;
	if ((*agent = cmd_caller(ctx)) < 0)
		return (int)*agent;
	return 0;
}

int
cmd_named_task_id(struct cmd_ctx *ctx, const char *text, int64_t *id)
{
	int rc = task_parse_id(text, id, ctx->err);

	if (rc == 0)
		ctx->caller.named_task = *id;
	return rc;
}

int
cmd_duration(struct cmd_ctx *ctx, int option, const char *text, int64_t *ms)
{
	if (duration_parse(text, ms) < 0 || *ms <= 0)
		return err_set(ctx->err, ERR_USAGE,
		    "bad duration '%s' for --%s (write a positive number and a unit: "
		    "500ms, 20s, 30m, 4h, 2d)", text,
		    cmd_entry_option(ctx->entry, option)->name);
	return 0;
}

int
cmd_integer(struct cmd_ctx *ctx, int option, const char *text,
    int64_t min, int64_t max, int64_t *value)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (*text == '\0' || *end != '\0' || errno == ERANGE || v < min || v > max)
		return err_set(ctx->err, ERR_USAGE,
		    "bad value '%s' for --%s (want a whole number from %lld to %lld)",
		    text, cmd_entry_option(ctx->entry, option)->name, (long long)min,
		    (long long)max);
	*value = v;
	return 0;
}

bool cmd_stdin_taken;

int
cmd_read_input(struct cmd_ctx *ctx, const char *path, struct buf *out)
{
	if (strcmp(path, "-") == 0 && ctx->input != NULL) {
		buf_add(out, ctx->input->buf, ctx->input->len);
		return 0;
	}
	if (strcmp(path, "-") == 0) {
		/* ERR_FAILED like any unreadable input (exit 2 from a
		 * hook would block the agent's tool call). */
		if (ctx->stdin_closed)
			return err_set(ctx->err, ERR_FAILED,
			    "standard input is closed (nothing to read for '-'; "
			    "pipe the input in or name a file)");
		cmd_stdin_taken = true;
		if (buf_read_fd(out, STDIN_FILENO) < 0)
			return err_set(ctx->err, ERR_FAILED,
			    "cannot read standard input (%s)", strerror(errno));
		return 0;
	}
	if (buf_read_file(out, path) < 0)
		return err_set(ctx->err, errno == ENOENT ? ERR_NOT_FOUND : ERR_FAILED,
		    "cannot read %s (%s)", path, strerror(errno));
	return 0;
}

bool
cmd_colour(void)
{
	const char *no_colour = getenv("NO_COLOR"), *term = getenv("TERM");

	return isatty(STDOUT_FILENO) && (no_colour == NULL || *no_colour == '\0') &&
	       term != NULL && *term != '\0' && strcmp(term, "dumb") != 0;
}

/* The terminal's escape that starts each tone (SGR). */
static const char *const tone_starts[] = {
	[TONE_PLAIN] = "",
	[TONE_GOOD] = "\033[32m",
	[TONE_BAD] = "\033[31m",
	[TONE_ATTENTION] = "\033[33m",
	[TONE_BUSY] = "\033[36m",
	[TONE_FADED] = "\033[2m",
	[TONE_HEADING] = "\033[1m",
	[TONE_NEEDS] = "\033[1;33m",
};

/* Every word with a colour; the same meaning, the same tone. */
static const struct {
	const char *word;
	enum cmd_tone tone;
} word_tones[] = {
	{ "verified", TONE_GOOD },   { "reverified", TONE_GOOD },
	{ "landed", TONE_GOOD },
	{ "ok", TONE_GOOD },         { "active", TONE_GOOD },
	{ "failed", TONE_BAD },      { "fail", TONE_BAD },
	{ "rejected", TONE_BAD },    { "reopened", TONE_BAD },
	{ "FAIL", TONE_BAD },        { "blocked", TONE_ATTENTION },
	{ "block", TONE_ATTENTION }, { "overdue", TONE_ATTENTION },
	{ "wait-overdue", TONE_ATTENTION },
	{ "wait-needs-human", TONE_ATTENTION },
	{ "approval-request", TONE_ATTENTION },
	{ "verify-deferred", TONE_ATTENTION },
	{ "claimed", TONE_BUSY },    { "reported", TONE_BUSY },
	{ "waiting", TONE_BUSY },    { "cancelled", TONE_FADED },
	{ "stale", TONE_FADED },     { "ended", TONE_FADED },
};

enum cmd_tone
cmd_tone_of(const char *word)
{
	for (size_t i = 0; i < sizeof(word_tones) / sizeof(word_tones[0]); i++)
		if (strcmp(word_tones[i].word, word) == 0)
			return word_tones[i].tone;
	return TONE_PLAIN;
}

void
cmd_add_toned(struct buf *out, bool colour, enum cmd_tone tone,
    const char *text, int width)
{
	colour = colour && tone != TONE_PLAIN;
	if (colour)
		buf_adds(out, tone_starts[tone]);
	buf_adds(out, text);
	if (colour)
		buf_adds(out, "\033[0m");
	for (int pad = width - (int)strlen(text); pad > 0; pad--)
		buf_addch(out, ' ');
}

void
cmd_add_printable(struct buf *out, const char *text)
{
	buf_add_oneline(out, text);
}

void
cmd_say(struct cmd_ctx *ctx, const char *format, ...)
{
	va_list ap;

	if (ctx->quiet || ctx->json || ctx->captured != NULL ||
	    !isatty(STDOUT_FILENO))
		return;
	va_start(ap, format);
	vprintf(format, ap);
	va_end(ap);
	putchar('\n');
}

int
cmd_print_json(struct cmd_ctx *ctx, json_t *value)
{
	int rc;

	if (ctx->captured != NULL) {
		if (value == NULL || json_array_append_new(ctx->captured, value) < 0)
			return err_set(ctx->err, ERR_FAILED, "out of memory for JSON "
			    "output");
		return 0;
	}
	rc = json_dumpf(value, stdout, JSON_COMPACT);

	json_decref(value);
	if (rc < 0)
		return err_set(ctx->err, ERR_FAILED, "cannot write JSON output");
	putchar('\n');
	return 0;
}

void
cmd_add_seen(struct buf *out, int64_t at_ms, int64_t now_ms)
{
	clock_add_age(out, now_ms - at_ms);
	buf_adds(out, " ago (");
	clock_add_timestamp(out, at_ms);
	buf_addch(out, ')');
}

int64_t
cmd_json_int(const json_t *object, const char *key)
{
	return json_integer_value(json_object_get(object, key));
}

const char *
cmd_json_str(const json_t *object, const char *key, const char *fallback)
{
	const char *value = json_string_value(json_object_get(object, key));

	return value ? value : fallback;
}

int
cmd_id_arg(struct cmd_ctx *ctx, const char *what, const char *text,
    int64_t *id)
{
	const char *digits = text + (text[0] == '#');
	char *end;
	long long v;

	errno = 0;
	v = strtoll(digits, &end, 10);
	if (*digits < '0' || *digits > '9' || *end != '\0' || errno == ERANGE ||
	    v < 1)
		return err_set(ctx->err, ERR_USAGE, "bad %s id '%s' (want a number "
		    "such as 3 or #3)", what, text);
	*id = v;
	return 0;
}

int
cmd_default(struct cmd_ctx *ctx, int option, const char *key,
    int64_t max, int64_t fallback, int64_t *out)
{
	bool duration = max == 0;
	const char *value = option == CMD_NO_OPTION ? NULL : cmd_opt(ctx, option);
	bool found = false;
	int rc;

	*out = fallback;
	if (value != NULL)
		return duration ? cmd_duration(ctx, option, value, out)
				: cmd_integer(ctx, option, value, 1, max, out);
	if (ctx->ledger == NULL)
		return 0;
	if ((rc = settings_number(ctx->ledger, key, out, &found, ctx->err)) < 0)
		return rc;
	if (!found)
		*out = fallback;
	else if (!duration && *out > max)
		*out = max; /* the setting allows more than this command takes */
	return 0;
}
