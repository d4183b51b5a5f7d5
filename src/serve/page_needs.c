/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The first page: what needs a person, from the one NEEDS YOU model
 * (core/needs.h) that 'daicho status' shows, each item with the commands
 * that resolve it and, for those a browser may run, a button.
 */
#include <string.h>

#include "core/agent.h"
#include "core/brief.h"
#include "core/needs.h"
#include "core/task.h"
#include "serve/serve.h"
#include "util/clock.h"

/* Task states in the order the counts line shows them. */
static const char *const states[] = { "open", "claimed", "reported",
	"blocked", "verified", "landed", "failed", "cancelled" };
#define STATE_COUNT (sizeof(states) / sizeof(states[0]))

/* How many tasks the counts line counts, in all. */
static int64_t
total_tasks(const int64_t *counts)
{
	int64_t total = 0;

	for (size_t i = 0; i < STATE_COUNT; i++)
		total += counts[i];
	return total;
}

/*
 * How urgent an item of kind is, most first: "now" (work or a person's
 * decision stands still until someone acts: an approval, a question, a
 * failure, landing stopped), "soon" (it goes wrong if left: a stale
 * holder, reports nobody sweeps, rejections piling up), "later" (to
 * read: a message).
 */
static const char *const urgencies[] = { "now", "soon", "later" };

static size_t
urgency_of(const char *kind)
{
	static const char *const now[] = { "approval", "blocked",
		"wait-needs-human", "overdue-wait", "failed", "verify-error",
		"land-waiting", "land-paused", "tampered", "budget-stop", NULL };

	if (strcmp(kind, "message") == 0)
		return 2;
	for (size_t i = 0; now[i] != NULL; i++)
		if (strcmp(kind, now[i]) == 0)
			return 0;
	return 1;
}

/* The label of a web action's button. */
static const char *
action_label(const char *action)
{
	if (strcmp(action, "approve") == 0)
		return "Approve";
	if (strcmp(action, "deny") == 0)
		return "Deny";
	if (strcmp(action, "reopen") == 0)
		return "Reopen";
	if (strcmp(action, "unblock") == 0)
		return "Unblock";
	if (strcmp(action, "reply") == 0)
		return "Reply";
	if (strcmp(action, "read") == 0)
		return "Mark read";
	return "Release (force)";
}

/*
 * A message to the person the server acts for (human): a reply, when it
 * has a sender to go back to, and marking it read ('daicho send
 * --reply-to ID TEXT', 'daicho inbox --ack ID').
 */
static void
render_message_actions(const struct serve_request *req, struct buf *out,
    const json_t *item, const char *human)
{
	int64_t id = json_integer_value(json_object_get(item, "id"));
	const char *to = json_string_value(json_object_get(item, "to"));

	if (human == NULL || to == NULL || strcmp(to, human) != 0)
		return;
	if (json_string_value(json_object_get(item, "from")) != NULL)
		html_action_form(req, out, "reply", id, action_label("reply"));
	html_action_form(req, out, "read", id, action_label("read"));
}

/* One item: kind, summary, age, what to inspect, how to resolve it. */
static void
render_item(const struct serve_request *req, struct buf *out,
    const json_t *item, int64_t now, const char *human)
{
	const char *kind = json_string_value(json_object_get(item, "kind"));
	const char *inspect = json_string_value(json_object_get(item, "inspect"));
	json_t *resolve = json_object_get(item, "resolve"), *command;
	size_t i;

	buf_adds(out, "<div class=\"item\" data-kind=\"");
	html_escape(out, kind);
	buf_addf(out, "\" data-urgency=\"%s\" data-id=\"%lld\"><span "
	    "class=\"kind\">", urgencies[urgency_of(kind)],
	    (long long)json_integer_value(json_object_get(item, "id")));
	html_escape(out, kind);
	buf_adds(out, "</span>");
	html_escape(out, json_string_value(json_object_get(item, "summary")));
	buf_adds(out, " <span class=\"since\">");
	html_age(out, json_integer_value(json_object_get(item, "since_ms")), now);
	buf_adds(out, "</span>");
	if (inspect != NULL) {
		buf_adds(out, "<div class=\"mute\">look first: <code>");
		html_escape(out, inspect);
		buf_adds(out, "</code></div>");
	}
	buf_adds(out, "<div class=\"resolve\">");
	if (strcmp(kind, "message") == 0)
		render_message_actions(req, out, item, human);
	json_array_foreach(resolve, i, command) {
		const char *text = json_string_value(command), *action;
		int64_t id;

		if (text == NULL)
			continue;
		if (serve_action_of(text, &action, &id))
			html_action_form(req, out, action, id, action_label(action));
		buf_adds(out, "<code>");
		html_escape(out, text);
		buf_adds(out, "</code>");
	}
	buf_adds(out, "</div></div>");
}

/*
 * The landing queue and what landing sent back (brief_landing()): each
 * task with where its landing is, since when, and why.
 */
static void
render_landing(struct buf *out, const json_t *landing, int64_t now)
{
	const json_t *row;
	size_t i;

	if (json_array_size(landing) == 0)
		return;
	buf_addf(out, "<h2>Landing <span class=\"mute\">(%zu)</span></h2>"
	    "<p class=\"mute\">verified, not yet on the trunk, or sent back "
	    "from it (<code>daicho land --help</code>)</p><ul class=\"landing\">",
	    json_array_size(landing));
	json_array_foreach(landing, i, row) {
		const char *why = json_string_value(json_object_get(row, "why"));
		long long id = (long long)json_integer_value(json_object_get(row,
		    "task"));

		buf_addf(out, "<li data-task=\"%lld\"><a href=\"/tasks/%lld\">#%lld"
		    "</a> ", id, id, id);
		html_state(out, json_string_value(json_object_get(row, "landing")));
		buf_adds(out, " ");
		html_escape(out, json_string_value(json_object_get(row, "title")));
		buf_adds(out, " <span class=\"since\">");
		html_age(out, json_integer_value(json_object_get(row, "since_ms")),
		    now);
		buf_adds(out, "</span>");
		if (why) {
			buf_adds(out, "<div class=\"mute\">");
			html_escape_n(out, why, strcspn(why, "\n"));
			buf_adds(out, "</div>");
		}
		buf_adds(out, "</li>");
	}
	buf_adds(out, "</ul>");
}

void
page_needs(struct serve_request *req, struct serve_response *res)
{
	struct serve *server = req->server;
	struct needs_options options = { AGENT_STALE_AFTER_MS,
		server->human_name };
	int64_t counts[STATE_COUNT] = { 0 }, now = clock_now_ms();
	struct err err = ERR_INIT;
	json_t *items = NULL, *item, *landing = NULL;
	struct buf *out = &res->body;
	size_t i;
	int rc;

	pthread_mutex_lock(&server->lock);
	rc = needs_list(server->ledger, &options, &items, &err);
	if (rc == 0)
		rc = task_count_by_state(server->ledger, states, counts,
		    STATE_COUNT, &err);
	if (rc == 0)
		rc = brief_landing(server->ledger, &landing, &err);
	pthread_mutex_unlock(&server->lock);
	if (rc < 0) {
		serve_error(req, res, 500, "%s", err.message.buf);
		goto done;
	}
	res->content_type = "text/html; charset=utf-8";
	html_begin(req, out, "Needs you", "Needs you");
	buf_adds(out, "<p class=\"counts\">");
	for (i = 0; i < STATE_COUNT; i++)
		buf_addf(out, "<span><a href=\"/tasks?state=%s\">%s</a> %lld</span>",
		    states[i], states[i], (long long)counts[i]);
	buf_adds(out, "</p>");
	buf_addf(out, "<h1>Needs you <span class=\"mute\" id=\"needs-count\">"
	    "(%zu)</span></h1>", json_array_size(items));
	if (json_array_size(items) == 0 && total_tasks(counts) == 0)
		html_empty(out, "Nothing needs you, and there is no work yet.",
		    "Add a task with <code>daicho add TITLE --done-when "
		    "CHECK</code> (the README's quickstart), then let agents "
		    "take it: an agent session after <code>daicho init "
		    "--claude</code> (or <code>--codex</code>, <code>--gemini"
		    "</code>), or <code>daicho run -j 4 -- CMD</code>. Keep "
		    "<code>daicho sweep --every 30s</code> running to verify "
		    "and land their reports.");
	else if (json_array_size(items) == 0)
		html_empty(out, "Nothing needs you now.", "Agents are at work: "
		    "this page updates itself when a question, an approval or a "
		    "stuck task comes up.");
	/* Most urgent first; within a rank, in NEEDS YOU's own order. */
	for (size_t rank = 0; rank < sizeof(urgencies) / sizeof(*urgencies);
	    rank++)
		json_array_foreach(items, i, item)
			if (urgency_of(json_string_value(json_object_get(item,
			    "kind"))) == rank)
				render_item(req, out, item, now,
				    options.human_name);
	render_landing(out, landing, now);
	html_end(req, out);
done:
	json_decref(items);
	json_decref(landing);
	err_release(&err);
}
