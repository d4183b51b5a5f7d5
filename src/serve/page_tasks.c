/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Tasks: the list, filtered by state, label, owner and text and sorted by
 * any column (links and a form: no JavaScript needed), and a page per task
 * with its body, checks, every verdict with its evidence, its saves, the
 * tail of its worker's log and its history.
 */
#include <stdlib.h>
#include <string.h>

#include "core/event.h"
#include "core/event_text.h"
#include "core/task.h"
#include "core/usage.h"
#include "core/verify.h"
#include "run/tasklog.h"
#include "serve/serve.h"
#include "util/alloc.h"
#include "util/clock.h"

#define LIST_SHOWN 500              /* rows of the list shown at most */
#define BODY_SHOWN_BYTES (64 << 10) /* of a task's body */
#define LOG_TAIL_BYTES (16 << 10)   /* of its worker's log */
#define HISTORY_EVENTS 200

/* One row of the list. */
struct row {
	int64_t id, priority, updated_ms, attempts;
	char *title, *state, *owner;
};

struct list {
	struct row *rows;
	size_t count, alloc;
};

static int
collect(const struct task *t, void *arg)
{
	struct list *list = arg;
	struct row *r;

	xgrow((void **)&list->rows, &list->alloc, list->count + 1,
	    sizeof(*list->rows));
	r = &list->rows[list->count++];
	r->id = t->id;
	r->priority = t->priority;
	r->updated_ms = t->updated_ms;
	r->attempts = t->attempts;
	r->title = xstrdup(t->title);
	r->state = xstrdup(t->state);
	r->owner = t->owner ? xstrdup(t->owner) : NULL;
	return 0;
}

/* The sort column and direction of the request (qsort has no argument). */
static __thread const char *sort_key;
static __thread int sort_sign;

static int
compare_rows(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	int c = 0;

	if (strcmp(sort_key, "title") == 0)
		c = strcmp(a->title, b->title);
	else if (strcmp(sort_key, "state") == 0)
		c = strcmp(a->state, b->state);
	else if (strcmp(sort_key, "owner") == 0)
		c = strcmp(a->owner ? a->owner : "", b->owner ? b->owner : "");
	else if (strcmp(sort_key, "priority") == 0)
		c = (a->priority > b->priority) - (a->priority < b->priority);
	else if (strcmp(sort_key, "updated") == 0)
		c = (a->updated_ms > b->updated_ms) - (a->updated_ms < b->updated_ms);
	if (c == 0)
		c = (a->id > b->id) - (a->id < b->id);
	return c * sort_sign;
}

/* A column header that sorts by key (descending when it already sorts up). */
static void
sort_link(struct buf *out, const struct serve_request *req, const char *key,
    const char *current, bool descending)
{
	static const char *const kept[] = { "state", "label", "owner", "q" };
	bool here = strcmp(key, current) == 0;

	buf_addf(out, "<th><a href=\"/tasks?sort=%s&amp;order=%s", key,
	    here && !descending ? "desc" : "asc");
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		const char *v = serve_query(req, kept[i]);

		if (v && *v) {
			buf_addf(out, "&amp;%s=", kept[i]);
			html_url_escape(out, v);
		}
	}
	buf_addf(out, "\">%s%s</a></th>", key,
	    here ? (descending ? " ▾" : " ▴") : "");
}

/* The filter form: works as a plain GET form. */
static void
render_filters(struct buf *out, const struct serve_request *req)
{
	static const char *const states[] = { "", "open", "claimed", "reported",
		"blocked", "verified", "landed", "failed", "cancelled" };
	const char *state = serve_query(req, "state");

	buf_adds(out, "<form class=\"filters\" method=\"get\" action=\"/tasks\">"
	    "<label>state <select name=\"state\">");
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		buf_addf(out, "<option value=\"%s\"%s>%s</option>", states[i],
		    state && strcmp(state, states[i]) == 0 ? " selected" : "",
		    *states[i] ? states[i] : "any");
	buf_adds(out, "</select></label><label>label <input name=\"label\" "
	    "size=\"10\" value=\"");
	html_escape(out, serve_query(req, "label"));
	buf_adds(out, "\"></label><label>owner <input name=\"owner\" size=\"10\" "
	    "value=\"");
	html_escape(out, serve_query(req, "owner"));
	buf_adds(out, "\"></label><label>text <input name=\"q\" size=\"16\" "
	    "value=\"");
	html_escape(out, serve_query(req, "q"));
	buf_adds(out, "\"></label><button>filter</button></form>");
}

void
page_tasks(struct serve_request *req, struct serve_response *res)
{
	struct serve *server = req->server;
	struct task_filter filter = { 0 };
	const char *order = serve_query(req, "order");
	const char *sort = serve_query(req, "sort");
	struct err err = ERR_INIT;
	struct list list = { 0 };
	struct buf *out = &res->body;
	int64_t now = clock_now_ms();
	int rc;

	filter.state = serve_query(req, "state");
	if (filter.state && (!*filter.state || !task_state_valid(filter.state)))
		filter.state = NULL;
	filter.label = serve_query(req, "label");
	if (filter.label && !*filter.label)
		filter.label = NULL;
	filter.owner_name = serve_query(req, "owner");
	if (filter.owner_name && !*filter.owner_name)
		filter.owner_name = NULL;
	filter.text = serve_query(req, "q");
	if (filter.text && !*filter.text)
		filter.text = NULL;
	pthread_mutex_lock(&server->lock);
	rc = task_each(server->ledger, &filter, collect, &list, &err);
	pthread_mutex_unlock(&server->lock);
	if (rc < 0) {
		serve_error(req, res, 500, "%s", err.message.buf);
		goto done;
	}
	sort_key = sort && strstr("id title state owner priority updated", sort)
		   ? sort : "id";
	sort_sign = order && strcmp(order, "desc") == 0 ? -1 : 1;
	qsort(list.rows, list.count, sizeof(*list.rows), compare_rows);
	res->content_type = "text/html; charset=utf-8";
	html_begin(req, out, "Tasks", "Tasks");
	buf_addf(out, "<h1>Tasks <span class=\"mute\">(%zu%s)</span></h1>",
	    list.count, list.count > LIST_SHOWN ? ", the first 500 shown" : "");
	render_filters(out, req);
	buf_adds(out, "<table id=\"tasks\"><thead><tr>");
	sort_link(out, req, "id", sort_key, sort_sign < 0);
	sort_link(out, req, "title", sort_key, sort_sign < 0);
	sort_link(out, req, "state", sort_key, sort_sign < 0);
	sort_link(out, req, "owner", sort_key, sort_sign < 0);
	sort_link(out, req, "priority", sort_key, sort_sign < 0);
	sort_link(out, req, "updated", sort_key, sort_sign < 0);
	buf_adds(out, "</tr></thead><tbody>");
	for (size_t i = 0; i < list.count && i < LIST_SHOWN; i++) {
		struct row *r = &list.rows[i];

		buf_addf(out, "<tr data-id=\"%lld\"><td><a href=\"/tasks/%lld\">"
		    "#%lld</a></td><td>", (long long)r->id, (long long)r->id,
		    (long long)r->id);
		html_escape(out, r->title);
		buf_adds(out, "</td><td>");
		html_state(out, r->state);
		buf_adds(out, "</td><td>");
		html_escape(out, r->owner ? r->owner : "");
		buf_addf(out, "</td><td>%lld</td><td>", (long long)r->priority);
		html_age(out, r->updated_ms, now);
		buf_adds(out, "</td></tr>");
	}
	buf_adds(out, "</tbody></table>");
	if (list.count == 0 && serve_query(req, "state") == NULL &&
	    serve_query(req, "label") == NULL &&
	    serve_query(req, "owner") == NULL && filter.text == NULL)
		html_empty(out, "No tasks yet.", "Add one with <code>daicho add "
		    "TITLE --done-when CHECK</code>, or many with <code>daicho "
		    "add --batch FILE</code> (the README's quickstart).");
	else if (list.count == 0)
		html_empty(out, "No task matches these filters.", "<a href=\""
		    "/tasks\">Every task</a>.");
	html_end(req, out);
done:
	for (size_t i = 0; i < list.count; i++) {
		free(list.rows[i].title);
		free(list.rows[i].state);
		free(list.rows[i].owner);
	}
	free(list.rows);
	err_release(&err);
}

/* A verdict, with the evidence of each check run. */
static int
render_verdict(const struct verdict *v, void *arg)
{
	struct buf *out = arg;

	buf_addf(out, "<div class=\"verdict\" data-verdict=\"%lld\"><p>",
	    (long long)v->id);
	html_state(out, v->passed ? "pass" : "fail");
	buf_adds(out, " ");
	html_age(out, v->at_ms, clock_now_ms());
	if (v->commit) {
		buf_adds(out, " at commit <code>");
		html_escape(out, v->commit);
		buf_adds(out, "</code>");
	}
	buf_adds(out, ": ");
	html_escape(out, v->summary);
	buf_adds(out, "</p><table><thead><tr><th>check</th><th>result</th>"
	    "<th>exit</th><th>time</th><th>evidence</th></tr></thead><tbody>");
	for (size_t i = 0; i < v->run_count; i++) {
		const struct check_run *run = &v->runs[i];

		buf_adds(out, "<tr><td><code>");
		html_escape(out, run->spec);
		buf_adds(out, "</code></td><td>");
		html_state(out, run->passed ? "pass" : "fail");
		/* Only a command has an exit status (-1: none, or killed). */
		if (run->exit_status >= 0)
			buf_addf(out, "</td><td>%d", run->exit_status);
		else
			buf_adds(out, "</td><td>&mdash;");
		buf_addf(out, "</td><td>%lld ms</td><td><pre>",
		    (long long)run->duration_ms);
		html_escape_n(out, run->output.buf, run->output.len);
		buf_adds(out, "</pre></td></tr>");
	}
	buf_adds(out, "</tbody></table></div>");
	return 0;
}

/*
 * One event of the history, as the sentence 'daicho log' and status print
 * (core/event_text.h); its kind beside it, for scanning.
 */
static int
render_event(const struct event *e, void *arg)
{
	struct buf *out = arg, sentence = BUF_INIT;
	json_t *detail = e->detail ? json_loads(e->detail, 0, NULL) : NULL;

	event_text_add(&sentence, e->actor, e->kind, e->task, e->title, detail);
	json_decref(detail);
	buf_adds(out, "<tr><td>");
	html_age(out, e->at_ms, clock_now_ms());
	buf_adds(out, "</td><td class=\"kind\">");
	html_escape(out, e->kind);
	buf_adds(out, "</td><td>");
	html_escape(out, sentence.buf);
	buf_adds(out, "</td></tr>");
	buf_release(&sentence);
	return 0;
}

/* The task's saves: size, tokens, cost. */
static void
render_saves(struct buf *out, const json_t *saves, int64_t now)
{
	const json_t *s;
	size_t i;

	buf_addf(out, "<h2>Saves (%zu)</h2>", json_array_size(saves));
	if (json_array_size(saves) == 0)
		return;
	buf_adds(out, "<table id=\"saves\"><thead><tr><th>when</th><th>agent</th>"
	    "<th>bytes</th><th>tokens in</th><th>tokens out</th><th>cost</th>"
	    "<th>model</th></tr></thead><tbody>");
	json_array_foreach(saves, i, s) {
		buf_adds(out, "<tr><td>");
		html_age(out, json_integer_value(json_object_get(s, "at_ms")), now);
		buf_adds(out, "</td><td>");
		html_escape(out, json_string_value(json_object_get(s, "agent")));
		buf_addf(out, "</td><td>%lld</td><td>%lld</td><td>%lld</td><td>"
		    "%.4f</td><td>",
		    (long long)json_integer_value(json_object_get(s, "bytes")),
		    (long long)json_integer_value(json_object_get(s, "tokens_in")),
		    (long long)json_integer_value(json_object_get(s, "tokens_out")),
		    json_number_value(json_object_get(s, "cost")));
		html_escape(out, json_string_value(json_object_get(s, "model")));
		buf_adds(out, "</td></tr>");
	}
	buf_adds(out, "</tbody></table>");
}

/* The task's fields, checks and edges. */
static void
render_fields(const struct serve_request *req, struct buf *out,
    const struct task *t, int64_t now)
{
	buf_addf(out, "<h1>#%lld ", (long long)t->id);
	html_escape(out, t->title);
	buf_adds(out, "</h1><p id=\"task-state\">");
	html_state(out, t->state);
	if (t->owner) {
		buf_adds(out, " owner ");
		html_escape(out, t->owner);
	}
	buf_addf(out, " · priority %lld · attempt %lld of %lld · updated ",
	    (long long)t->priority, (long long)t->attempts,
	    (long long)t->max_attempts);
	html_age(out, t->updated_ms, now);
	buf_adds(out, "</p>");
	if (t->block_reason) {
		buf_adds(out, "<p>blocked: ");
		html_escape(out, t->block_reason);
		buf_adds(out, "</p>");
	}
	if (strcmp(t->state, "blocked") == 0)
		html_action_form(req, out, "unblock", t->id, "Unblock");
	if (strcmp(t->state, "failed") == 0 || strcmp(t->state, "cancelled") == 0)
		html_action_form(req, out, "reopen", t->id, "Reopen");
	if (strcmp(t->state, "claimed") == 0 || strcmp(t->state, "blocked") == 0 ||
	    strcmp(t->state, "reported") == 0)
		html_action_form(req, out, "release", t->id, "Release (force)");
	if (t->after_count) {
		buf_adds(out, "<p>after: ");
		for (size_t i = 0; i < t->after_count; i++)
			buf_addf(out, "<a href=\"/tasks/%lld\">#%lld</a> ",
			    (long long)t->after[i], (long long)t->after[i]);
		buf_adds(out, "</p>");
	}
	if (t->labels.count) {
		buf_adds(out, "<p>labels: ");
		for (size_t i = 0; i < t->labels.count; i++) {
			html_escape(out, t->labels.items[i]);
			buf_adds(out, " ");
		}
		buf_adds(out, "</p>");
	}
	buf_adds(out, "<h2>Checks</h2><ul id=\"checks\">");
	for (size_t i = 0; i < t->checks.count; i++) {
		buf_adds(out, "<li><code>");
		html_escape(out, t->checks.items[i]);
		buf_adds(out, "</code></li>");
	}
	if (t->checks.count == 0)
		buf_adds(out, "<li class=\"mute\">none: verified on a save or a "
		    "report</li>");
	buf_adds(out, "</ul>");
}

void
page_task(struct serve_request *req, struct serve_response *res,
    const char *id_text)
{
	struct serve *server = req->server;
	struct buf body = BUF_INIT, log = BUF_INIT, dir = BUF_INIT;
	struct buf verdicts = BUF_INIT, history = BUF_INIT;
	struct event_filter events = { 0 };
	struct err err = ERR_INIT;
	struct buf *out = &res->body;
	json_t *saves = NULL;
	int64_t id, now = clock_now_ms();
	struct task t = { 0 };
	bool have_task = false, have_log;
	int rc;

	if (task_parse_id(id_text, &id, &err) < 0) {
		serve_error(req, res, 400, "%s", err.message.buf);
		goto done;
	}
	pthread_mutex_lock(&server->lock);
	rc = task_get(server->ledger, id, &t, &err);
	have_task = rc == 0;
	if (rc == 0)
		rc = task_body(server->ledger, id, &body, &err);
	if (rc == 0)
		rc = verify_each(server->ledger, id, 0, render_verdict, &verdicts,
		    &err);
	if (rc == 0)
		rc = usage_saves(server->ledger, id, &saves, &err);
	events.task = id;
	events.limit = HISTORY_EVENTS;
	if (rc == 0)
		rc = event_each(server->ledger, &events, render_event, &history,
		    &err);
	pthread_mutex_unlock(&server->lock);
	if (rc < 0) {
		serve_error(req, res, err.code == ERR_NOT_FOUND ? 404 : 500, "%s",
		    err.message.buf);
		goto done;
	}
	ledger_local_dir(server->ledger, &dir);
	have_log = tasklog_read(dir.buf, id, 0, t.attempts, &log) == 0;
	res->content_type = "text/html; charset=utf-8";
	html_begin(req, out, t.title, "Tasks");
	render_fields(req, out, &t, now);
	buf_addf(out, "<h2>Body (%zu bytes)</h2><pre id=\"body\">", body.len);
	html_escape_n(out, body.buf, body.len < BODY_SHOWN_BYTES ? body.len
	    : BODY_SHOWN_BYTES);
	buf_adds(out, body.len > BODY_SHOWN_BYTES ? "\n…</pre>" : "</pre>");
	buf_adds(out, "<h2>Verdicts</h2>");
	if (verdicts.len == 0)
		buf_adds(out, "<p class=\"mute\">none yet</p>");
	buf_add(out, verdicts.buf, verdicts.len);
	render_saves(out, saves, now);
	buf_adds(out, "<h2>Log tail</h2>");
	if (have_log) {
		size_t from = log.len > LOG_TAIL_BYTES ? log.len - LOG_TAIL_BYTES : 0;

		buf_adds(out, "<pre id=\"log\">");
		html_escape_n(out, log.buf + from, log.len - from);
		buf_adds(out, "</pre>");
	} else {
		buf_adds(out, "<p class=\"mute\">no log (logs are kept for tasks run "
		    "by <code>daicho run</code>)</p>");
	}
	buf_adds(out, "<h2>History</h2><table id=\"history\"><thead><tr><th>when"
	    "</th><th>event</th><th>what happened</th></tr></thead><tbody>");
	buf_add(out, history.buf, history.len);
	buf_adds(out, "</tbody></table>");
	html_end(req, out);
done:
	if (have_task)
		task_free_fields(&t);
	json_decref(saves);
	buf_release(&body);
	buf_release(&log);
	buf_release(&dir);
	buf_release(&verdicts);
	buf_release(&history);
	err_release(&err);
}
