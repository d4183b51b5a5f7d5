/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The JSON API under /api/: each route runs the daicho command of the same
 * name in-process on the server's ledger with --json, its output captured,
 * so that what /api/ls answers is what 'daicho ls --json' prints. Query
 * parameters are the command's options; an ID in the path is its argument.
 * POST routes are the person's actions, checked by auth.c and recorded
 * like the command line's, with via "web" in their events. docs/api.md.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "cmd/cmd.h"
#include "core/task.h"
#include "util/alloc.h"
#include "serve/serve.h"

struct route {
	const char *name;               /* /api/NAME */
	const struct cmd_entry *entry;
	bool takes_id;                  /* /api/NAME/ID */
	const char *const *allowed;     /* options a request may give */
	bool action;                    /* POST, by the logged-in person */
	const char *id_option;          /* the ID goes to this option (NULL:
	                                   it is the command's argument) */
	const char *text_field;         /* a field that is the command's
	                                   argument (send's TEXT), needed */
};

/*
 * What a GET may ask: only options that read. Nothing that follows for
 * ever (status --watch, events --follow) or writes (handoff --to, which is
 * why handoff is no route), and nothing about the caller (ls --mine: the
 * caller is the server).
 */
static const char *const status_options[] = { "all", "events", "stale-after",
	NULL };
static const char *const ls_options[] = { "state", "ready", "label", "owner",
	"text", "created-since", "updated-since", "limit", NULL };
static const char *const agents_options[] = { "all", "stale-after", NULL };
static const char *const usage_options[] = { "by", NULL };
static const char *const all_option[] = { "all", NULL };
static const char *const events_options[] = { "since", "limit", NULL };
static const char *const none[] = { NULL };
static const char *const approve_options[] = { "if", "ttl", NULL };
static const char *const deny_options[] = { "reason", NULL };
static const char *const unblock_options[] = { "answer", NULL };
static const char *const reopen_options[] = { "reason", NULL };
static const char *const reply_fields[] = { "text", NULL };

/* A read (GET); an action (POST), the path's ID its argument. */
#define READ(name, entry, takes_id, allowed)                                   \
	{ name, &entry, takes_id, allowed, false, NULL, NULL }
#define ACT(name, entry, allowed)                                              \
	{ name, &entry, true, allowed, true, NULL, NULL }

static const struct route routes[] = {
	READ("status", cmd_status_entry, false, status_options),
	READ("ls", cmd_ls_entry, false, ls_options),
	READ("show", cmd_show_entry, true, none),
	READ("log", cmd_log_entry, true, none),
	READ("agents", cmd_agents_entry, false, agents_options),
	READ("usage", cmd_usage_entry, false, usage_options),
	READ("approvals", cmd_approvals_entry, false, all_option),
	READ("events", cmd_events_entry, false, events_options),
	READ("reservations", cmd_reservations_entry, false, none),
	READ("gates", cmd_gate_ls_entry, false, none),
	ACT("approve", cmd_approve_entry, approve_options),
	ACT("deny", cmd_deny_entry, deny_options),
	ACT("reopen", cmd_reopen_entry, reopen_options),
	ACT("unblock", cmd_unblock_entry, unblock_options),
	ACT("release", cmd_release_entry, none),
	/* daicho send --reply-to ID TEXT; daicho inbox --ack ID */
	{ "reply", &cmd_send_entry, true, reply_fields, true, "reply-to",
	  "text" },
	{ "read", &cmd_inbox_entry, true, none, true, "ack", NULL },
};

#define ROUTE_COUNT (sizeof(routes) / sizeof(routes[0]))

bool
serve_action_of(const char *command, const char **action, int64_t *id)
{
	static const char prefix[] = "daicho ";
	const char *word, *number;
	size_t len;
	char *end;

	if (strncmp(command, prefix, sizeof(prefix) - 1) != 0)
		return false;
	word = command + sizeof(prefix) - 1;
	len = strcspn(word, " ");
	number = word + len;
	if (*number != ' ' || !isdigit((unsigned char)number[1]))
		return false;
	*id = strtoll(number + 1, &end, 10);
	for (size_t i = 0; i < ROUTE_COUNT; i++) {
		if (!routes[i].action || strlen(routes[i].name) != len ||
		    strncmp(routes[i].name, word, len) != 0)
			continue;
		/* release only as a person's --force; the rest take nothing. */
		if (strcmp(routes[i].name, "release") == 0
			? strcmp(end, " --force") != 0 : *end != '\0')
			return false;
		*action = routes[i].name;
		return true;
	}
	return false;
}

/* What a request gives a command: its options and the problem, if any. */
struct gather {
	struct cmd_ctx *ctx;
	const struct route *route;
	struct buf problem;
	const char *kept[16];
	size_t kept_count;
	const char *text;               /* the route's text_field, if given */
};

/* Whether name may be given to route. */
static bool
allowed(const struct route *route, const char *name)
{
	for (const char *const *a = route->allowed; *a; a++)
		if (strcmp(*a, name) == 0)
			return true;
	return false;
}

/* Add option name=value (value NULL: absent) to the command, or a problem. */
static void
add_option(struct gather *g, const char *name, const char *value)
{
	const struct cmd_option *option = cmd_find_option(g->ctx->entry, name);

	if (g->problem.len > 0)
		return;
	if (g->route->text_field && strcmp(name, g->route->text_field) == 0) {
		if (g->text != NULL)
			buf_addf(&g->problem, "field '%s' given twice", name);
		g->text = value;
		return;
	}
	if (option == NULL || !allowed(g->route, name)) {
		buf_addf(&g->problem, "unknown parameter '%.60s' for /api/%s", name,
		    g->route->name);
		return;
	}
	if (option->value_name == NULL) {
		if (value != NULL && *value != '\0' && strcmp(value, "1") != 0 &&
		    strcmp(value, "true") != 0) {
			buf_addf(&g->problem, "parameter '%s' is a flag: give it "
			    "empty, 1 or true", name);
			return;
		}
		cmd_add_value(g->ctx, option, NULL);
		return;
	}
	if (value == NULL) {
		buf_addf(&g->problem, "parameter '%s' needs a value", name);
		return;
	}
	if (g->kept_count == sizeof(g->kept) / sizeof(g->kept[0])) {
		buf_adds(&g->problem, "too many parameters");
		return;
	}
	cmd_add_value(g->ctx, option, value);
}

static enum MHD_Result
gather_query(void *cls, enum MHD_ValueKind kind, const char *key,
    const char *value)
{
	add_option(cls, key, value);
	return MHD_YES;
}

/*
 * One field of an action's form: csrf (auth.c checked it), or an option
 * the route takes, once; anything else is refused, as in a JSON body.
 */
static bool
gather_field(void *cls, const struct buf *name, const struct buf *value)
{
	struct gather *g = cls;

	if (strcmp(name->buf, "csrf") == 0)
		return true;
	if (!allowed(g->route, name->buf) ||
	    (cmd_find_option(g->ctx->entry, name->buf) == NULL &&
	    (g->route->text_field == NULL ||
	    strcmp(name->buf, g->route->text_field) != 0))) {
		buf_addf(&g->problem, "unknown field '%.60s' for /api/%s",
		    name->buf, g->route->name);
		return false;
	}
	for (size_t i = 0; i < g->ctx->value_count; i++)
		if (strcmp(g->ctx->values[i].option->name, name->buf) == 0) {
			buf_addf(&g->problem, "field '%.60s' given twice",
			    name->buf);
			return false;
		}
	/* An empty field of the page's form: not given. */
	if (value->len == 0)
		return true;
	if (g->kept_count == sizeof(g->kept) / sizeof(g->kept[0])) {
		buf_adds(&g->problem, "too many fields");
		return false;
	}
	g->kept[g->kept_count++] = xstrdup(value->buf);
	add_option(g, name->buf, g->kept[g->kept_count - 1]);
	return g->problem.len == 0;
}

/* A POST body's fields as options: a JSON object, or a form. */
static void
gather_body(struct gather *g, const struct serve_request *req, json_t **json)
{
	json_error_t error;

	if (req->body_bytes == 0 || g->problem.len > 0)
		return;
	if (req->form) {
		serve_form_foreach(req, gather_field, g);
		return;
	}
	*json = json_loadb(req->body, req->body_bytes, JSON_REJECT_DUPLICATES,
	    &error);
	if (*json == NULL) {
		buf_addf(&g->problem, "bad JSON body: %.100s", error.text);
		return;
	}
	if (!json_is_object(*json)) {
		buf_adds(&g->problem, "the body is not a JSON object");
		return;
	}
	{
		const char *key;
		json_t *value;

		json_object_foreach(*json, key, value) {
			if (!json_is_string(value)) {
				buf_addf(&g->problem, "field '%.60s' must be a string",
				    key);
				return;
			}
			add_option(g, key, json_string_value(value));
		}
	}
}

/* The HTTP status for a command's error. */
static unsigned
status_of(enum err_code code)
{
	switch (code) {
	case ERR_USAGE: return 400;
	case ERR_NOT_FOUND: return 404;
	case ERR_CONFLICT: return 409;
	case ERR_REFUSED: return 403;
	case ERR_BUSY: return 503;
	default: return 500;
	}
}

void
serve_api(struct serve_request *req, struct serve_response *res)
{
	struct serve *server = req->server;
	const char *name = req->path + 5, *slash = strchr(name, '/');
	size_t name_len = slash ? (size_t)(slash - name) : strlen(name);
	const struct route *route = NULL;
	struct err err = ERR_INIT;
	struct cmd_ctx ctx = { 0 };
	struct cmd_human_proof proof = { "web", server->proof_checked };
	struct gather g = { 0 };
	json_t *body = NULL;
	char *argv[3] = { NULL, NULL, NULL };
	struct buf text_input = BUF_INIT;
	bool post = strcmp(req->method, "POST") == 0;
	int64_t id = 0;
	int rc;

	for (size_t i = 0; i < ROUTE_COUNT; i++)
		if (strlen(routes[i].name) == name_len &&
		    strncmp(routes[i].name, name, name_len) == 0)
			route = &routes[i];
	if (route == NULL) {
		serve_error(req, res, 404, "no API /api/%.*s (see docs/api.md)",
		    (int)(name_len > 60 ? 60 : name_len), name);
		return;
	}
	if (route->action != post) {
		serve_error(req, res, 405, "/api/%s takes %s", route->name,
		    route->action ? "POST" : "GET");
		return;
	}
	if ((slash != NULL) != route->takes_id ||
	    (slash && task_parse_id(slash + 1, &id, &err) < 0)) {
		if (route->takes_id)
			serve_error(req, res, 400, "/api/%s needs a%s id in "
			    "the path (/api/%s/ID)", route->name,
			    route->id_option ? " message" : " task or request",
			    route->name);
		else
			serve_error(req, res, 404, "no such API path");
		err_release(&err);
		return;
	}
	if (route->action && serve_auth_refuse(req, res))
		return;
	/* The command as the person who started the server would type it. */
	ctx.entry = route->entry;
	ctx.err = &err;
	ctx.json = true;
	ctx.captured = json_array();
	ctx.claim = server->start->claim;
	ctx.session_id = server->start->session_id;
	ctx.session_kind = server->start->session_kind;
	ctx.explicit_agent = server->start->explicit_agent;
	ctx.stdin_closed = true;
	buf_init(&ctx.ledger_path);
	buf_adds(&ctx.ledger_path, server->start->ledger_path.buf);
	g.ctx = &ctx;
	g.route = route;
	buf_init(&g.problem);
	MHD_get_connection_values(req->connection, MHD_GET_ARGUMENT_KIND,
	    gather_query, &g);
	if (route->action)
		gather_body(&g, req, &body);
	if (strcmp(route->name, "release") == 0)
		cmd_add_value(&ctx, cmd_find_option(ctx.entry, "force"), NULL);
	if (g.problem.len == 0 && route->text_field && (g.text == NULL ||
	    *g.text == '\0'))
		buf_addf(&g.problem, "/api/%s needs the field '%s'",
		    route->name, route->text_field);
	if (g.problem.len > 0) {
		serve_error(req, res, 400, "%s", g.problem.buf);
		goto done;
	}
	if (route->takes_id) {
		argv[0] = xstrdup(slash + 1);
		if (route->id_option != NULL) {
			cmd_add_value(&ctx, cmd_find_option(ctx.entry,
			    route->id_option), argv[0]);
		} else {
			ctx.argv = argv;
			ctx.argc = 1;
		}
	}
	/* The text as the command reads "-": whatever it says, even "-". */
	if (route->text_field != NULL) {
		buf_adds(&text_input, g.text);
		ctx.input = &text_input;
		argv[1] = xstrdup("-");
		ctx.argv = argv + 1;
		ctx.argc = 1;
	}
	if (route->action)
		ctx.human_proof = &proof;
	pthread_mutex_lock(&server->lock);
	ctx.ledger = server->ledger;
	if (route->action)
		ledger_set_event_via(server->ledger, "web");
	rc = cmd_check_arity(&ctx);
	if (rc == 0)
		rc = cmd_execute(&ctx);
	ledger_set_event_via(server->ledger, NULL);
	/* The hook's caller lives on this stack: nothing may use it after. */
	ledger_set_begin_hook(server->ledger, NULL, NULL);
	pthread_mutex_unlock(&server->lock);
	if (rc < 0) {
		serve_error(req, res, status_of(err.code), "%s", err.message.buf);
		goto done;
	}
	if (route->action && req->form) {
		/* The dashboard's own form: back to the page it came from. */
		const char *back = serve_header(req, "Referer");
		size_t origin_len = server->origin.len;

		res->status = 303;
		/* A path on this server only: "//host/..." would leave it. */
		res->location = back != NULL &&
				strncmp(back, server->origin.buf, origin_len) == 0 &&
				back[origin_len] == '/' && back[origin_len + 1] != '/' &&
				back[origin_len + 1] != '\\' ? back + origin_len : "/";
		goto done;
	}
	if (json_array_size(ctx.captured) == 0)
		serve_json(res, 200, json_pack("{s:b}", "ok", 1));
	else if (json_array_size(ctx.captured) == 1)
		serve_json(res, 200, json_incref(json_array_get(ctx.captured, 0)));
	else
		serve_json(res, 200, json_incref(ctx.captured));
done:
	for (size_t i = 0; i < g.kept_count; i++)
		free((char *)g.kept[i]);
	buf_release(&g.problem);
	json_decref(body);
	json_decref(ctx.captured);
	agent_release(&ctx.caller);
	buf_release(&ctx.ledger_path);
	free(ctx.values);
	free(argv[0]);
	free(argv[1]);
	buf_release(&text_input);
	err_release(&err);
}
