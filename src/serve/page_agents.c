/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Agents: who is there, in which client and role, their state, when each
 * was last seen, what each holds and waits for (core/agent.h).
 */
#include <string.h>

#include "core/agent.h"
#include "serve/serve.h"
#include "util/clock.h"

/*
 * Whether agent a, active and not a person, has gone unseen for half the
 * stale window (AGENT_STALE_AFTER_MS): the dashboard shows it amber before
 * the sweep marks it stale.
 */
static bool
going_quiet(const json_t *a, int64_t now)
{
	const char *state = json_string_value(json_object_get(a, "state"));
	const char *kind = json_string_value(json_object_get(a, "kind"));

	return state && strcmp(state, "active") == 0 && kind &&
	    strcmp(kind, "human") != 0 && now - json_integer_value(
	    json_object_get(a, "last_seen_ms")) >= AGENT_STALE_AFTER_MS / 2;
}

/* One agent's row. */
static void
render_agent(struct buf *out, const json_t *a, int64_t now)
{
	json_t *claims = json_object_get(a, "claims"), *claim;
	json_t *waits = json_object_get(a, "waits"), *wait;
	size_t i;

	buf_adds(out, "<tr><td>");
	html_escape(out, json_string_value(json_object_get(a, "name")));
	buf_adds(out, "</td><td>");
	html_escape(out, json_string_value(json_object_get(a, "kind")));
	buf_adds(out, "</td><td>");
	html_escape(out, json_string_value(json_object_get(a, "role")));
	buf_adds(out, "</td><td>");
	if (going_quiet(a, now))
		/* Amber before stale: unseen for half the stale window. */
		buf_adds(out, "<span class=\"state s-quiet\" title=\"active, but "
		    "unseen for a while: stale at 10m unseen\">quiet</span>");
	else
		html_state(out, json_string_value(json_object_get(a, "state")));
	buf_adds(out, "</td><td>");
	html_age(out, json_integer_value(json_object_get(a, "last_seen_ms")), now);
	buf_adds(out, "</td><td>");
	json_array_foreach(claims, i, claim)
		buf_addf(out, "<a href=\"/tasks/%lld\">#%lld</a> ",
		    (long long)json_integer_value(claim),
		    (long long)json_integer_value(claim));
	buf_adds(out, "</td><td>");
	json_array_foreach(waits, i, wait) {
		buf_addf(out, "#%lld ",
		    (long long)json_integer_value(json_object_get(wait, "id")));
		html_escape(out, json_string_value(json_object_get(wait, "what")));
		/* No owner: the person answers for it, as 'daicho agents' says. */
		buf_adds(out, " (owner ");
		if (json_is_string(json_object_get(wait, "owner")))
			html_escape(out, json_string_value(json_object_get(wait,
			    "owner")));
		else
			buf_adds(out, "none: the human");
		buf_adds(out, ", since ");
		html_age(out, json_integer_value(json_object_get(wait,
		    "started_ms")), now);
		buf_adds(out, ")<br>");
	}
	buf_adds(out, "</td></tr>");
}

void
page_agents(struct serve_request *req, struct serve_response *res)
{
	struct serve *server = req->server;
	const char *all = serve_query(req, "all");
	bool every = all != NULL && strcmp(all, "1") == 0;
	struct err err = ERR_INIT;
	json_t *agents = NULL, *a;
	struct buf *out = &res->body;
	int64_t now = clock_now_ms();
	size_t i;
	int rc;

	pthread_mutex_lock(&server->lock);
	rc = agent_list(server->ledger, every, AGENT_STALE_AFTER_MS, &agents, &err);
	pthread_mutex_unlock(&server->lock);
	if (rc < 0) {
		serve_error(req, res, 500, "%s", err.message.buf);
		goto done;
	}
	res->content_type = "text/html; charset=utf-8";
	html_begin(req, out, "Agents", "Agents");
	buf_addf(out, "<h1>Agents <span class=\"mute\">(%zu)</span></h1>"
	    "<p><a href=\"/agents%s\">%s</a></p>", json_array_size(agents),
	    every ? "" : "?all=1", every ? "only the live ones" : "ended ones too");
	buf_adds(out, "<table id=\"agents\"><thead><tr><th>name</th><th>client"
	    "</th><th>role</th><th>state</th><th>last seen</th><th>claims</th>"
	    "<th>waits</th></tr></thead><tbody>");
	json_array_foreach(agents, i, a)
		render_agent(out, a, now);
	buf_adds(out, "</tbody></table>");
	if (json_array_size(agents) == 0)
		html_empty(out, every ? "No agent has used this ledger yet."
		    : "No agent is live now.", "An agent appears here once it "
		    "runs daicho: an agent session after <code>daicho init "
		    "--claude</code> (or <code>--codex</code>, <code>--gemini"
		    "</code>), a worker of <code>daicho run</code>, or a script "
		    "with <code>DAICHO_AGENT=NAME</code>.");
	html_end(req, out);
done:
	json_decref(agents);
	err_release(&err);
}
