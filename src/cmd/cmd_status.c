/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* The briefings: status ("needs you" first, once or live) and handoff. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/frame.h"
#include "cmd/watch.h"
#include "core/brief.h"
#include "core/event_text.h"
#include "util/clock.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum status_option {
	OPT_EVENTS,
	OPT_STALE_AFTER,
	OPT_ALL,
	OPT_WATCH,
	OPT_TO,
	OPT_FROM,
	OPTION_COUNT
};

/* Print a section heading with the count of items. */
static void
heading(const char *title, size_t count)
{
	printf("\n%s (%zu)\n", title, count);
}

/* Append a section heading, "TITLE (count)", in bold when colour. */
static void
add_heading(struct buf *out, bool colour, const char *title, size_t count)
{
	struct buf text = BUF_INIT;

	buf_addf(&text, "%s (%zu)", title, count);
	cmd_add_toned(out, colour, TONE_HEADING, text.buf, 0);
	buf_addch(out, '\n');
	buf_release(&text);
}

/*
 * Append one event (as the briefings give them: actor, kind, task, title,
 * detail) as a line: its age and its sentence, the sentence in its kind's
 * colour when colour.
 */
static void
add_event_line(struct buf *out, const json_t *e, int64_t now, bool colour)
{
	struct buf age = BUF_INIT, sentence = BUF_INIT;
	const char *kind = cmd_json_str(e, "kind", "");

	clock_add_age(&age, now - cmd_json_int(e, "at_ms"));
	event_text_add(&sentence, json_string_value(json_object_get(e, "actor")),
	    kind, cmd_json_int(e, "task"),
	    json_string_value(json_object_get(e, "title")),
	    json_object_get(e, "detail"));
	buf_addf(out, "  %6s ago  ", age.buf);
	cmd_add_toned(out, colour, cmd_tone_of(kind), sentence.buf, 0);
	buf_addch(out, '\n');
	buf_release(&age);
	buf_release(&sentence);
}

/* How many items of one kind status shows without --all. */
#define STATUS_ITEMS_PER_KIND 10

/*
 * Add the "needs you" items to items: each a line of summary and a line
 * of the commands that resolve it; at most per_kind of a kind (0: all),
 * then a line of how many more there are.
 */
static void
add_needs(struct strlist *items, const json_t *needs, size_t per_kind)
{
	const json_t *n, *command;
	size_t i, j, shown = 0, hidden = 0;
	const char *kind = "";
	struct buf item = BUF_INIT;

	json_array_foreach(needs, i, n) {
		if (strcmp(kind, cmd_json_str(n, "kind", "")) != 0) {
			if (hidden) {
				buf_addf(&item, "  ... and %zu more %s (status --all)\n",
				    hidden, kind);
				strlist_add_owned(items, buf_detach(&item, NULL));
			}
			kind = cmd_json_str(n, "kind", "");
			shown = hidden = 0;
		}
		if (per_kind && shown == per_kind) {
			hidden++;
			continue;
		}
		shown++;
		buf_adds(&item, "  ");
		cmd_add_printable(&item, cmd_json_str(n, "summary", ""));
		buf_adds(&item, "\n    ");
		if (json_is_string(json_object_get(n, "inspect")))
			buf_addf(&item, "see: %s; ", cmd_json_str(n, "inspect", ""));
		buf_adds(&item, "resolve:");
		json_array_foreach(json_object_get(n, "resolve"), j, command) {
			buf_adds(&item, j ? " | " : " ");
			cmd_add_printable(&item, json_string_value(command));
		}
		buf_addch(&item, '\n');
		strlist_add_owned(items, buf_detach(&item, NULL));
	}
	if (hidden) {
		buf_addf(&item, "  ... and %zu more %s (status --all)\n", hidden,
		    kind);
		strlist_add_owned(items, buf_detach(&item, NULL));
	}
	buf_release(&item);
}

/* What status shows, and how. */
struct status_view {
	struct needs_options needs; /* what counts as needing a person */
	int64_t events;             /* the newest events shown */
	size_t per_kind;            /* NEEDS YOU items of a kind (0: all) */
};

/*
 * Append one row of a briefing's landing list (brief.c) as a line: the
 * task, where its landing is and since when, and why when there is a why.
 */
static void
add_landing_line(struct buf *out, const json_t *v, int64_t now)
{
	const char *why = cmd_json_str(v, "why", NULL);

	buf_addf(out, "  #%lld %s ", (long long)cmd_json_int(v, "task"),
	    cmd_json_str(v, "landing", "?"));
	clock_add_age(out, now - cmd_json_int(v, "since_ms"));
	buf_adds(out, " ago: ");
	cmd_add_printable(out, cmd_json_str(v, "title", ""));
	if (why) {
		size_t line = strcspn(why, "\n");
		struct buf first = BUF_INIT;

		buf_add(&first, why, line);
		buf_adds(out, " (");
		cmd_add_printable(out, first.buf);
		buf_adds(out, ")");
		buf_release(&first);
	}
	buf_addch(out, '\n');
}

/*
 * Add the sections of the status in doc (brief_status()) to frame, in
 * order and priority: NEEDS YOU first and never cut away, then the
 * agents, the task counts, and the newest events (cut first, oldest
 * first).
 */
static void
status_frame(const json_t *doc, const struct status_view *view, bool colour,
    struct frame *frame)
{
	const json_t *needs = json_object_get(doc, "needs_you"),
		     *agents = json_object_get(doc, "agents"),
		     *events = json_object_get(doc, "events"),
		     *tasks = json_object_get(doc, "tasks"), *v;
	int64_t now = cmd_json_int(doc, "now_ms");
	struct frame_section *s;
	const char *key;
	struct buf item = BUF_INIT;
	size_t i;

	s = frame_section_add(frame, 4, true, false);
	if (json_array_size(needs) == 0) {
		cmd_add_toned(&s->heading, colour, TONE_GOOD, "NEEDS YOU: nothing", 0);
	} else {
		buf_addf(&item, "NEEDS YOU (%zu)", json_array_size(needs));
		cmd_add_toned(&s->heading, colour, TONE_NEEDS, item.buf, 0);
		buf_reset(&item);
	}
	buf_addch(&s->heading, '\n');
	add_needs(&s->items, needs, view->per_kind);

	s = frame_section_add(frame, 2, false, false);
	buf_addch(&s->heading, '\n');
	add_heading(&s->heading, colour, "AGENTS", json_array_size(agents));
	cmd_add_agents_heading(&s->heading, agents);
	json_array_foreach(agents, i, v) {
		cmd_add_agent(&item, v, now, colour);
		strlist_add_owned(&s->items, buf_detach(&item, NULL));
	}

	if (json_array_size(json_object_get(doc, "landing")) > 0) {
		const json_t *landing = json_object_get(doc, "landing");

		s = frame_section_add(frame, 2, false, false);
		buf_addch(&s->heading, '\n');
		add_heading(&s->heading, colour, "LANDING", json_array_size(landing));
		json_array_foreach(landing, i, v) {
			add_landing_line(&item, v, now);
			strlist_add_owned(&s->items, buf_detach(&item, NULL));
		}
	}

	s = frame_section_add(frame, 3, false, false);
	buf_addch(&s->heading, '\n');
	cmd_add_toned(&s->heading, colour, TONE_HEADING, "TASKS", 0);
	i = 0;
	json_object_foreach((json_t *)tasks, key, v) {
		buf_addf(&item, "%s %lld", key, (long long)json_integer_value(v));
		buf_adds(&s->heading, i++ ? ", " : " ");
		cmd_add_toned(&s->heading, colour && json_integer_value(v) > 0,
		    cmd_tone_of(key), item.buf, 0);
		buf_reset(&item);
	}
	buf_addch(&s->heading, '\n');

	s = frame_section_add(frame, 1, false, true);
	buf_addch(&s->heading, '\n');
	add_heading(&s->heading, colour, "RECENT", json_array_size(events));
	json_array_foreach(events, i, v) {
		add_event_line(&item, v, now, colour);
		strlist_add_owned(&s->items, buf_detach(&item, NULL));
	}
	buf_release(&item);
}

/*
 * The next time after now when the status in doc changes with no write to
 * the ledger: an active agent (not a person) going stale, or a wait
 * falling overdue; 0 when none will.
 */
static int64_t
status_next_change(const json_t *doc, int64_t stale_after_ms)
{
	int64_t now = cmd_json_int(doc, "now_ms"), next = 0;
	const json_t *a, *w;
	size_t i, j;

	json_array_foreach(json_object_get(doc, "agents"), i, a) {
		int64_t stale = cmd_json_int(a, "last_seen_ms") + stale_after_ms;

		if (strcmp(cmd_json_str(a, "state", ""), "active") == 0 &&
		    strcmp(cmd_json_str(a, "kind", ""), "human") != 0 &&
		    stale > now && (next == 0 || stale < next))
			next = stale;
		json_array_foreach(json_object_get(a, "waits"), j, w) {
			int64_t overdue = cmd_json_int(w, "started_ms") +
					  cmd_json_int(w, "remind_ms");

			if (overdue > now && (next == 0 || overdue < next))
				next = overdue;
		}
	}
	return next;
}

/* Read the status afresh for 'status --watch' (struct watch_source). */
static int
status_read(struct cmd_ctx *ctx, void *arg, bool colour, struct frame *frame,
    json_t **doc, int64_t *next_change_ms)
{
	const struct status_view *view = arg;
	int rc;

	if ((rc = brief_status(ctx->ledger, &view->needs, (int)view->events, doc,
		 ctx->err)) < 0)
		return rc;
	if (frame)
		status_frame(*doc, view, colour, frame);
	*next_change_ms = status_next_change(*doc, view->needs.stale_after_ms);
	return 0;
}

static int
exec_status(struct cmd_ctx *ctx)
{
	struct status_view view = { { AGENT_STALE_AFTER_MS, NULL }, 10, 0 };
	struct frame frame = FRAME_INIT;
	struct buf text = BUF_INIT;
	json_t *doc = NULL;
	int rc;

	if ((rc = cmd_default(ctx, OPT_STALE_AFTER, "stale-after", 0,
		 AGENT_STALE_AFTER_MS, &view.needs.stale_after_ms)) < 0)
		return rc;
	if (cmd_opt(ctx, OPT_EVENTS) && (rc = cmd_integer(ctx, OPT_EVENTS,
		 cmd_opt(ctx, OPT_EVENTS), 0, 1000, &view.events)) < 0)
		return rc;
	/* A person reads their own inbox with a plain 'daicho inbox'. */
	if (!ctx->explicit_agent)
		view.needs.human_name = ctx->claim.human_name;
	if (cmd_has(ctx, OPT_WATCH)) {
		/* The screen is the limit: NEEDS YOU takes what it needs. */
		struct watch_source source = { status_read, &view };

		return cmd_watch(ctx, &source);
	}
	view.per_kind = cmd_has(ctx, OPT_ALL) ? 0 : STATUS_ITEMS_PER_KIND;
	if ((rc = brief_status(ctx->ledger, &view.needs, (int)view.events, &doc,
		 ctx->err)) < 0)
		return rc;
	if (ctx->json)
		return cmd_print_json(ctx, doc);
	status_frame(doc, &view, cmd_colour(), &frame);
	frame_render(&frame, &text, 0, 0, false);
	fputs(text.buf, stdout);
	buf_release(&text);
	frame_release(&frame);
	json_decref(doc);
	return 0;
}

const struct cmd_entry cmd_status_entry = {
	.name = "status",
	.usage = "status [--events N] [--stale-after DUR] [--all] [--watch]",
	.summary = "one screen: what needs a human first, then agents, tasks, events",
	.help =
	    "NEEDS YOU lists everything only a person can resolve, each with the\n"
	    "commands that resolve it (a word in capitals is yours to fill in)\n"
	    "and, when there is evidence to read first, the command that shows\n"
	    "it. An item goes as soon as what it describes is resolved. Kinds,\n"
	    "in this order, each oldest first:\n"
	    "  approval             a gate's request waits for a decision:\n"
	    "                       approve ID | deny ID (at a terminal); a\n"
	    "                       request asked again after a denial is one\n"
	    "                       item that names the denial it follows\n"
	    "  blocked              a task its holder blocked, and why:\n"
	    "                       unblock ID | release ID --force\n"
	    "  message              unread, to you by name or to a role you\n"
	    "                       hold: inbox\n"
	    "  overdue-wait         an agent's wait past its --remind time, and\n"
	    "  wait-needs-human     one whose owner ended with no heir: resume\n"
	    "                       WAIT (the agent is told)\n"
	    "  failed               a failed task, and how many tasks it holds\n"
	    "                       back (in all, and directly): reopen ID |\n"
	    "                       cancel ID\n"
	    "  rejected             rejected twice or more since a person last\n"
	    "                       changed it: edit ID | release ID --force\n"
	    "                       (an open one: edit ID | cancel ID)\n"
	    "  verify-error         its last verdict failed because git could\n"
	    "                       not run (checkout, a git error), not because\n"
	    "                       of the work: verify ID --apply once git\n"
	    "                       works (a claimed one: verify ID to see that\n"
	    "                       it does; its holder's next report is the\n"
	    "                       sweep's)\n"
	    "  max-hold             an open task the sweep took back because its\n"
	    "                       holder never named it for its maximum hold,\n"
	    "                       until claimed again: edit ID | cancel ID\n"
	    "  stale-agent-holding  a stale or ended agent still holding claims:\n"
	    "                       release ID --force for each\n"
	    "  unswept              reports no sweep has taken for the stale\n"
	    "                       window, with the oldest's age: no sweep is\n"
	    "                       running (sweep; sweep --every 30s keeps one)\n"
	    "  stranded             an open task after a cancelled one, which it\n"
	    "                       would wait on for ever: edit ID --not-after\n"
	    "                       OTHER | reopen OTHER\n"
	    "  ran-on-reopened      a task that ran on work a person reopened\n"
	    "                       (reopen --reason), until that work is done\n"
	    "                       again: reopen ID --reason TEXT\n"
	    "  tampered             the last audit found rows no event explains\n"
	    "                       (docs/security.md): doctor --audit\n"
	    "  budget-stop          a run stopped at its budget with tasks still\n"
	    "                       ready, until a run starts again: run\n"
	    "                       --budget-tokens N -- CMD\n"
	    "  land-waiting         verified work whose landing waits for the\n"
	    "                       main work tree (uncommitted changes to paths\n"
	    "                       it changes): commit or stash them, then land\n"
	    "  land-paused          landing paused by a person: land --resume\n"
	    "  unlanded             verified work no lander has taken for the\n"
	    "                       stale window, with the oldest's age: no sweep\n"
	    "                       is running to land it (land; sweep --every\n"
	    "                       30s keeps one)\n"
	    "Without --all at most 10 of a kind are shown. A person is never\n"
	    "listed stale: they are seen when they act.\n\n"
	    "Then the live agents with when each was last seen; LANDING, each\n"
	    "task verified and not yet on the trunk (queued, landing, waiting)\n"
	    "or sent back from landing and not landed since, with its age and\n"
	    "why (see 'daicho land --help'); the task count\n"
	    "per state, and the newest --events events (default 10), each a\n"
	    "sentence (\"w1 claimed #4 Parse headers\"; 'daicho events' has\n"
	    "them all).\n\n"
	    "--watch keeps the view live until Ctrl-C, SIGTERM or q (exit 0).\n"
	    "It redraws when the ledger changes (it waits on the ledger's files\n"
	    "with inotify, it does not poll), at most 10 times a second, and\n"
	    "when an agent falls stale or a wait overdue. On a terminal it takes\n"
	    "the alternate screen and redraws it in place, every 5s too so that\n"
	    "ages stay true, fitted to the terminal's size: NEEDS YOU first and\n"
	    "never cut away; when the screen is short the recent events go\n"
	    "first, then agents, each cut section ending \"... N more\"; lines\n"
	    "are cut to the width. It shows every NEEDS YOU item that fits\n"
	    "(--all is implied). The screen and the terminal come back as they\n"
	    "were on exit. When stdout is not a terminal (or TERM is dumb) it\n"
	    "prints the whole status as plain text each time it changes, after\n"
	    "a line \"--- TIME\" (UTC); with --json, the JSON below, one line\n"
	    "each time the ledger changes.\n\n"
	    "Colour only on a terminal, never with NO_COLOR set (non-empty) or\n"
	    "TERM unset or dumb; the same colours as ls, agents and doctor:\n"
	    "green verified/ok/active, red failed/rejected, yellow blocked and\n"
	    "NEEDS YOU, cyan claimed/reported/waiting, dim cancelled/stale/ended.\n\n"
	    "JSON: {now_ms, needs_you: [{kind, id (the approval, task, message,\n"
	    "wait, agent or event id), summary (one line), since_ms, resolve:\n"
	    "[command, ...], inspect (a command, when there is one), and the\n"
	    "kind's details}], agents (as 'daicho agents --json'), landing:\n"
	    "[{task, title, landing (queued, landing, waiting, sent back),\n"
	    "since_ms, why, commit}], tasks: {state: count}, events: [{id, at_ms, actor, kind, task, title, detail}]}\n"
	    "(event fields as in 'daicho events --help'). Details:\n"
	    "approval requester, command, cwd, gate, denied_before (and, when\n"
	    "true, denied_id, denied_by, denied_ms, denied_reason); blocked\n"
	    "title, reason, owner; message from, to, addressed_to, message_kind,\n"
	    "text; waits agent, owner, owner_state, for, started_ms, remind_ms;\n"
	    "failed title, reason, attempts, holds_back, holds_back_directly;\n"
	    "rejected title, state, owner, rejections, last_summary;\n"
	    "verify-error title, state, owner, verdict, check, reason; max-hold\n"
	    "title, owner, max_hold_ms; stale-agent-holding agent, state,\n"
	    "last_seen_ms, claims; unswept reports; stranded title, after;\n"
	    "ran-on-reopened title, state, reopened, reopened_title, reason;\n"
	    "tampered findings, found (the first few); budget-stop by,\n"
	    "tokens, cost, ready;\n"
	    "land-waiting title, reason; land-paused by, queued; unlanded\n"
	    "tasks, oldest.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_EVENTS] = { "events", 0, "N",
		"show the newest N events (10)" },
	    [OPT_STALE_AFTER] = { "stale-after", 0, "DUR",
		"an agent unseen this long is stale (10m)" },
	    [OPT_ALL] = { "all", 0, NULL,
		"show every item under NEEDS YOU, not 10 a kind" },
	    [OPT_WATCH] = { "watch", 'w', NULL,
		"keep the view live, redrawn as the ledger changes",
		CMD_OPTION_STAYS }),
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_status,
};

/* Print the hand-off briefing for people. */
static void
print_handoff(const json_t *doc)
{
	int64_t now = cmd_json_int(doc, "now_ms");
	const json_t *list, *v;
	struct buf stamp = BUF_INIT;
	bool colour = cmd_colour();
	size_t i;

	clock_add_timestamp(&stamp, now);
	printf("HAND-OFF from %s%s%s%s at %s\n", cmd_json_str(doc, "from", "?"),
	    json_is_string(json_object_get(doc, "role")) ? " (role " : "",
	    cmd_json_str(doc, "role", ""),
	    json_is_string(json_object_get(doc, "role")) ? ")" : "", stamp.buf);
	buf_release(&stamp);
	list = json_object_get(doc, "agents");
	heading("LIVE AGENTS, waits under each", json_array_size(list));
	cmd_print_agents(list, now, colour);
	list = json_object_get(doc, "waits");
	heading("OPEN WAITS", json_array_size(list));
	json_array_foreach(list, i, v) {
		struct buf what = BUF_INIT, age = BUF_INIT;

		cmd_add_printable(&what, cmd_json_str(v, "what", ""));
		clock_add_age(&age, now - cmd_json_int(v, "started_ms"));
		printf("  wait #%lld: %s (%s) waits for %s; owner %s (%s); %s old%s; "
		       "%lld open item%s\n", (long long)cmd_json_int(v, "id"),
		    cmd_json_str(v, "agent", "?"), cmd_json_str(v, "agent_state", "?"),
		    what.buf, cmd_json_str(v, "owner", "none: the human"),
		    cmd_json_str(v, "owner_state", "-"), age.buf,
		    json_is_true(json_object_get(v, "overdue")) ? ", overdue" : "",
		    (long long)cmd_json_int(v, "open_items"),
		    cmd_json_int(v, "open_items") == 1 ? "" : "s");
		buf_release(&what);
		buf_release(&age);
	}
	list = json_object_get(doc, "claims");
	heading("CLAIMS", json_array_size(list));
	json_array_foreach(list, i, v) {
		struct buf title = BUF_INIT, left = BUF_INIT;
		int64_t expires = cmd_json_int(v, "lease_expires_ms");

		const char *state = cmd_json_str(v, "owner_state", "?");
		/* A holder gone quiet loses it at the stale window, not its lease. */
		bool gone = strcmp(state, "stale") == 0 || strcmp(state, "ended") == 0;

		cmd_add_printable(&title, cmd_json_str(v, "title", ""));
		clock_add_age(&left, expires > now ? expires - now : now - expires);
		if (gone)
			printf("  #%lld %s: held by %s (%s): the next sweep takes it "
			    "back, whatever its lease\n",
			    (long long)cmd_json_int(v, "task"), title.buf,
			    cmd_json_str(v, "owner", "?"), state);
		else
			printf("  #%lld %s: held by %s (%s), lease %s %s\n",
			    (long long)cmd_json_int(v, "task"), title.buf,
			    cmd_json_str(v, "owner", "?"), state,
			    expires > now ? "ends in" : "ran out", left.buf);
		buf_release(&title);
		buf_release(&left);
	}
	list = json_object_get(doc, "unread");
	heading("UNREAD MESSAGES for the role handed over", json_array_size(list));
	json_array_foreach(list, i, v) {
		struct buf text = BUF_INIT, age = BUF_INIT;

		cmd_add_printable(&text, cmd_json_str(v, "text", ""));
		clock_add_age(&age, now - cmd_json_int(v, "sent_ms"));
		printf("  #%lld to %s from %s, %s ago: %s\n",
		    (long long)cmd_json_int(v, "id"),
		    cmd_json_str(v, "addressed_to", "?"),
		    cmd_json_str(v, "from", "daicho"), age.buf, text.buf);
		buf_release(&text);
		buf_release(&age);
	}
	list = json_object_get(doc, "reported");
	heading("REPORTED, NOT YET VERIFIED", json_array_size(list));
	json_array_foreach(list, i, v) {
		struct buf title = BUF_INIT;

		cmd_add_printable(&title, cmd_json_str(v, "title", ""));
		printf("  #%lld %s: by %s%s%s\n", (long long)cmd_json_int(v, "task"),
		    title.buf, cmd_json_str(v, "owner", "?"),
		    json_is_string(json_object_get(v, "commit")) ? ", commit " : "",
		    cmd_json_str(v, "commit", ""));
		buf_release(&title);
	}
	list = json_object_get(doc, "landing");
	heading("LANDING: verified, not yet on the trunk, or sent back",
	    json_array_size(list));
	json_array_foreach(list, i, v) {
		struct buf line = BUF_INIT;

		add_landing_line(&line, v, now);
		fputs(line.buf, stdout);
		buf_release(&line);
	}
	list = json_object_get(doc, "rejected");
	heading("REJECTED REPORTS", json_array_size(list));
	json_array_foreach(list, i, v) {
		struct buf title = BUF_INIT, summary = BUF_INIT;

		cmd_add_printable(&title, cmd_json_str(v, "title", ""));
		cmd_add_printable(&summary, cmd_json_str(v, "summary", ""));
		printf("  #%lld %s (%s, %s): %s\n", (long long)cmd_json_int(v, "task"),
		    title.buf, cmd_json_str(v, "state", "?"),
		    cmd_json_str(v, "owner", "no owner"), summary.buf);
		buf_release(&title);
		buf_release(&summary);
	}
	list = json_object_get(doc, "decisions");
	heading("RECENT DECISIONS", json_array_size(list));
	json_array_foreach(list, i, v) {
		struct buf line = BUF_INIT;

		add_event_line(&line, v, now, colour);
		fputs(line.buf, stdout);
		buf_release(&line);
	}
}

static int
exec_handoff(struct cmd_ctx *ctx)
{
	const char *to = cmd_opt(ctx, OPT_TO), *from = cmd_opt(ctx, OPT_FROM);
	int64_t moved = 0, from_id = 0;
	json_t *doc = NULL, *before = NULL;
	int rc;

	if (from && (rc = agent_find_named(ctx->ledger, from, &from_id,
		 ctx->err)) < 0)
		return rc;
	if (from && from_id == 0)
		return err_set(ctx->err, ERR_NOT_FOUND, "no agent named '%s' (see "
		    "'daicho agents --all')", from);
	if (from_id == 0 && (from_id = cmd_caller_registered(ctx)) < 0)
		return (int)from_id;
	/* The role handed over, read before the hand-over moves it. */
	if (to && (rc = brief_handoff(ctx->ledger, from_id, AGENT_STALE_AFTER_MS,
		 &before, ctx->err)) < 0)
		return rc;
	if (to && (rc = brief_transfer(ctx->ledger, from, to, &moved,
		 ctx->err)) < 0) {
		json_decref(before);
		return rc;
	}
	if ((rc = brief_handoff(ctx->ledger, from_id, AGENT_STALE_AFTER_MS, &doc,
		 ctx->err)) < 0) {
		json_decref(before);
		return rc;
	}
	if (to) {
		json_object_set(doc, "role", json_object_get(before, "role"));
		json_object_set(doc, "unread", json_object_get(before, "unread"));
		json_object_set_new(doc, "to", json_string(to));
		json_object_set_new(doc, "waits_moved", json_integer(moved));
		json_decref(before);
	}
	if (ctx->json)
		return cmd_print_json(ctx, doc);
	print_handoff(doc);
	if (to)
		printf("\nHanded %lld wait%s and the role to %s.\n", (long long)moved,
		    moved == 1 ? "" : "s", to);
	json_decref(doc);
	return 0;
}

const struct cmd_entry cmd_handoff_entry = {
	.name = "handoff",
	.usage = "handoff [--from NAME] [--to NAME]",
	.summary = "a briefing for a successor coordinator, from the ledger alone",
	.help =
	    "Prints everything a successor needs, built only from the ledger:\n"
	    "live agents (every waiting one with owner and age), open waits,\n"
	    "claims and leases, unread messages sent to the caller, its role or\n"
	    "its name, tasks reported but not yet verified, the landing queue and\n"
	    "what landing sent back, rejected reports, and recent decisions\n"
	    "(verdicts, landings, cancels, blocks, hand-overs).\n\n"
	    "--from NAME briefs on NAME's role and messages instead of the\n"
	    "caller's (say, a manager that has ended). --to NAME first hands the\n"
	    "caller's (or --from's) open waits and role to the live agent NAME,\n"
	    "and logs it.\n\n"
	    "JSON: {now_ms, from, role, agents, waits, claims, unread, reported,\n"
	    "landing (as in 'daicho status --help'), rejected, decisions}, and\n"
	    "with --to also to and waits_moved.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_TO] = { "to", 0, "NAME", "hand waits and role over to NAME" },
	    [OPT_FROM] = { "from", 0, "NAME",
		"brief on / hand over NAME's, not the caller's" }),
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_handoff,
};
