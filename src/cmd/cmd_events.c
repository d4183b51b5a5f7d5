/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* The record: log, events. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "core/event.h"
#include "core/event_text.h"
#include "util/clock.h"
#include "util/duration.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum events_option {
	OPT_SINCE,
	OPT_LIMIT,
	OPT_FOLLOW,
	OPTION_COUNT
};

struct print_state {
	struct cmd_ctx *ctx;
	json_t *array;   /* --json without --follow */
	bool lines;      /* --json --follow: one object per line */
	bool colour;     /* colour the event kinds (cmd_colour()) */
	bool header;
	int64_t last_id;
	int64_t now;
};

/* The JSON form of an event (fields in 'daicho events --help'). */
static json_t *
event_json(const struct event *e)
{
	json_t *detail = e->detail ? json_loads(e->detail, 0, NULL) : NULL;

	return json_pack("{s:I, s:I, s:s?, s:s, s:o, s:s?, s:o}", "id",
	    (json_int_t)e->id, "at_ms", (json_int_t)e->at_ms, "actor", e->actor,
	    "kind", e->kind, "task", e->task ? json_integer(e->task) : json_null(),
	    "title", e->title, "detail", detail ? detail : json_null());
}

static int
print_event(const struct event *e, void *arg)
{
	struct print_state *s = arg;
	struct buf line = BUF_INIT;
	json_t *detail;

	s->last_id = e->id;
	if (s->array) {
		json_array_append_new(s->array, event_json(e));
		return 0;
	}
	if (s->lines) {
		int rc = cmd_print_json(s->ctx, event_json(e));

		fflush(stdout);
		return rc;
	}
	if (!s->header) {
		printf("%-20s %-16s %s\n", "TIME", "EVENT", "WHAT");
		s->header = true;
	}
	detail = e->detail ? json_loads(e->detail, 0, NULL) : NULL;
	clock_add_timestamp(&line, e->at_ms);
	buf_addch(&line, ' ');
	cmd_add_toned(&line, s->colour, cmd_tone_of(e->kind), e->kind, 16);
	buf_addch(&line, ' ');
	event_text_add(&line, e->actor, e->kind, e->task, e->title, detail);
	printf("%s\n", line.buf);
	json_decref(detail);
	buf_release(&line);
	return 0;
}

static int
exec_log(struct cmd_ctx *ctx)
{
	struct event_filter filter = { 0 };
	struct print_state s = { ctx, NULL, false, cmd_colour(), false, 0, 0 };
	int rc;

	if ((rc = cmd_named_task_id(ctx, ctx->argv[0], &filter.task)) < 0)
		return rc;
	if (ctx->json)
		s.array = json_array();
	rc = event_each(ctx->ledger, &filter, print_event, &s, ctx->err);
	if (rc == 0 && s.last_id == 0) {
		json_decref(s.array);
		return err_set(ctx->err, ERR_NOT_FOUND,
		    "no task #%lld (see 'daicho ls')", (long long)filter.task);
	}
	if (rc < 0) {
		json_decref(s.array);
		return rc;
	}
	return s.array ? cmd_print_json(ctx, s.array) : 0;
}

const struct cmd_entry cmd_log_entry = {
	.name = "log",
	.usage = "log ID",
	.summary = "show the history of one task",
	.help =
	    "Every change of the task, oldest first: who, when, what.\n\n"
	    "JSON: an array of events (fields as in 'daicho events --help').\n",
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_log,
};

static volatile sig_atomic_t stop_following;

static void
on_stop(int sig)
{
	(void)sig;
	stop_following = 1;
}

static int
exec_events(struct cmd_ctx *ctx)
{
	struct event_filter filter = { 0 };
	struct print_state s = { ctx, NULL, false, cmd_colour(), false, 0, 0 };
	const char *since = cmd_opt(ctx, OPT_SINCE), *value;
	bool follow = cmd_has(ctx, OPT_FOLLOW);
	int rc;

	if (since != NULL) {
		int64_t ms;

		if (duration_parse(since, &ms) == 0)
			filter.since_ms = clock_now_ms() - ms;
		else if ((rc = cmd_integer(ctx, OPT_SINCE, since, 0, INT64_MAX,
			      &filter.after_id)) < 0)
			return err_set(ctx->err, ERR_USAGE,
			    "bad value '%s' for --since (a duration such as 10m, or "
			    "an event id)", since);
	}
	if ((value = cmd_opt(ctx, OPT_LIMIT)) != NULL &&
	    (rc = cmd_integer(ctx, OPT_LIMIT, value, 1, INT64_MAX, &filter.limit)) < 0)
		return rc;
	if (ctx->json && follow)
		s.lines = true;
	else if (ctx->json)
		s.array = json_array();
	if ((rc = event_each(ctx->ledger, &filter, print_event, &s, ctx->err)) < 0) {
		json_decref(s.array);
		return rc;
	}
	if (!follow)
		return s.array ? cmd_print_json(ctx, s.array) : 0;
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	fflush(stdout);
	filter.since_ms = 0;
	filter.limit = 0;
	if (s.last_id == 0 && (rc = event_last_id(ctx->ledger, &s.last_id,
				  ctx->err)) < 0)
		return rc;
	while (!stop_following) {
		struct timespec pause = { 0, 200 * 1000 * 1000 };

		filter.after_id = s.last_id;
		if ((rc = event_each(ctx->ledger, &filter, print_event, &s,
			 ctx->err)) < 0)
			return rc;
		if (fflush(stdout) != 0)
			return err_set(ctx->err, ERR_FAILED, "cannot write output");
		/* A shared ledger says when it changed (a signal ends the wait). */
		if (ledger_is_shared(ctx->ledger)) {
			if ((rc = ledger_wait_change(ctx->ledger, 1000, ctx->err)) < 0)
				return rc;
		} else {
			nanosleep(&pause, NULL);
		}
	}
	return 0;
}

const struct cmd_entry cmd_events_entry = {
	.name = "events",
	.usage = "events [--since DUR|ID] [--limit N] [--follow]",
	.summary = "show the event log (every state change), or follow it",
	.help =
	    "--since 10m shows the last ten minutes; --since 120 the events after\n"
	    "event 120. --limit N keeps the newest N. --follow keeps printing new\n"
	    "events until interrupted.\n\n"
	    "Each event is a line: its time (UTC), its kind, and what happened as\n"
	    "a sentence (\"w1 claimed #4 Parse headers\", \"#7 rejected: file\n"
	    "src/x.c missing; back to its holder\"); --json has every detail.\n\n"
	    "JSON: an array of events; with --follow one event per line. Event\n"
	    "fields (stable): id, at_ms (ms since the epoch), actor (agent\n"
	    "name|null), kind (add, claim, lease-expired, release, block, report,\n"
	    "save, cancel, fail, agent-register, ...), task (id|null), title (the\n"
	    "task's title now|null), detail (object|null).\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_SINCE] = { "since", 0, "DUR|ID", "only newer events" },
	    [OPT_LIMIT] = { "limit", 0, "N", "only the newest N" },
	    [OPT_FOLLOW] = { "follow", 'f', NULL, "keep printing new events",
		CMD_OPTION_STAYS }),
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_events,
};
