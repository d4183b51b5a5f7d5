/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * daicho-serve: the web dashboard behind 'daicho serve'. A layer over core
 * like the command line: pages read through core functions and render
 * HTML; the JSON API and every action run the CLI's own commands
 * in-process (cmd_execute(), output captured), so that the API's JSON is
 * the CLI's --json by construction. No SQL here.
 *
 * One process, one ledger connection shared under one lock; libmicrohttpd
 * runs a thread per connection. The dashboard is a front end beside cmd/
 * (as the MCP server is, in cmd/cmd_mcp.c): its .c files call the command
 * table; this header does not make its includers depend on cmd/. Files:
 *   serve.c   start-up: options, the human check, the daemon, the URLs
 *   http.c    routing, limits, request bodies, responses
 *   auth.c    the one-time login token, sessions, CSRF
 *   api.c     /api/: commands run in-process, actions
 *   live.c    Server-Sent Events from the events table
 *   html.c    escaping, the page frame, the bundled CSS and JavaScript
 *   page_needs.c, page_agents.c, page_tasks.c, page_graph.c, page_usage.c
 */
#ifndef DAICHO_SERVE_H
#define DAICHO_SERVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "core/ledger.h"
#include "util/buf.h"

struct cmd_ctx; /* cmd/cmd.h: the dashboard runs the CLI's commands */

#define SERVE_SESSION_MAX 16        /* browsers logged in at once */
#define SERVE_BODY_MAX_BYTES (64 << 10) /* a request body; more is 413 */
#define SERVE_TOKEN_HEX 64          /* login token, session id, CSRF token */
#define SERVE_SESSION_TTL_MS (12LL * 60 * 60 * 1000) /* --session-ttl's
					default: a browser's login lasts */
/*
 * Connections: libmicrohttpd's limit (a thread each). Every loopback client
 * shares one address, so a limit per address would lock the person out
 * with the rest; room for them is kept by capping what can stay open:
 * SSE streams (those without a session, and the logged-in person's apart,
 * so that anonymous ones cannot take the person's), and a connection that
 * goes quiet before its request is whole.
 */
#define SERVE_CONNECTIONS_MAX 512
#define SERVE_STREAMS_MAX 64         /* SSE streams without a session */
#define SERVE_SESSION_STREAMS_MAX 32 /* SSE streams of logged-in browsers */
#define SERVE_STREAM_RETRY_S 10      /* Retry-After of a refused stream */
#define SERVE_IDLE_TIMEOUT_S 5       /* a connection that neither sends
					nor takes a byte for this long is
					closed (the time a handler takes to
					answer does not count) */

struct serve_session {
	char id[SERVE_TOKEN_HEX + 1];   /* the cookie's value; "" when free */
	char csrf[SERVE_TOKEN_HEX + 1]; /* forms and X-CSRF-Token must carry it */
	int64_t created_ms;
};

struct serve_auth {
	bool enabled;                   /* the starter is a proven human */
	char login_token[SERVE_TOKEN_HEX + 1]; /* "" once used */
	int64_t lifetime_ms;            /* of a session, from its login */
	int64_t started_ms;             /* when the login token was made */
	struct serve_session sessions[SERVE_SESSION_MAX];
	pthread_mutex_t lock;
};

struct serve_live {
	pthread_t watcher;
	pthread_mutex_t lock;
	pthread_cond_t changed;         /* broadcast when last_event_id moves */
	int64_t last_event_id;          /* the newest event seen */
	bool stopping;
	int streams;                    /* open SSE streams without a session */
	int session_streams;            /* and of logged-in browsers */
};

struct serve {
	struct ledger *ledger;          /* shared: hold lock to use it */
	pthread_mutex_t lock;
	struct cmd_ctx *start;          /* the 'serve' command's context:
					 * identity, ledger path */
	const char *human_name;         /* the person's name in the ledger
					 * (start's), for pages */
	json_t *proof_checked;          /* what the start-up check found:
					 * the human proof of actions, when
					 * auth.enabled */
	struct buf origin;              /* where the person acts:
					 * "http://127.0.0.1:7070", or on
					 * loopback with a login,
					 * "http://d-LABEL.localhost:7070" */
	struct buf host;                /* "127.0.0.1:7070", for Host checks */
	struct buf session_host;        /* "d-LABEL.localhost:7070": the only
					 * host a session counts on (empty:
					 * any); see docs/security.md */
	bool loopback;                  /* bound to a loopback address */
	bool tls;
	struct serve_auth auth;
	struct serve_live live;
	/* The last collapsed graph's SVG, valid while no event came since. */
	struct buf graph_svg;
	int64_t graph_event_id;         /* -1: none cached */
	size_t graph_tasks, graph_drawn, graph_hidden; /* of the cached one */
	pthread_mutex_t graph_lock;
	/*
	 * Set (atomically) once host, origin and the live watcher are set
	 * up; the daemon accepts connections before that, and answers them
	 * 503 until then.
	 */
	int ready;
};

/* One HTTP request as the handlers see it. */
struct serve_request {
	struct serve *server;
	void *connection;               /* struct MHD_Connection */
	const char *method;
	const char *path;
	const struct serve_session *session; /* a copy, or NULL: not logged in */
	struct serve_session session_copy;
	const char *body;               /* the request body (NUL-terminated) */
	size_t body_bytes;
	bool form;                      /* body is x-www-form-urlencoded */
	bool partial;                   /* X-Daicho-Partial: only <main>'s inside */
};

/* A response being built: status, type, body, extra headers. */
struct serve_response {
	unsigned status;
	const char *content_type;
	struct buf body;
	const char *location;           /* for 303 */
	struct buf set_cookie;          /* empty: none */
	unsigned retry_after;           /* seconds, for a 503; 0: none */
	bool close;                     /* close the connection after it */
};

/* http.c */
/* A query argument of the request, or NULL. */
const char *serve_query(const struct serve_request *req, const char *name);
/*
 * Call fn with every field of a form body (application/x-www-form-
 * urlencoded), name and value decoded, in order, until it returns false.
 * Returns false when fn stopped it; true for no form body.
 */
bool serve_form_foreach(const struct serve_request *req,
    bool (*fn)(void *cls, const struct buf *name, const struct buf *value),
    void *cls);
/*
 * The first field called name of a form body, decoded into out. Returns
 * whether it was there.
 */
bool serve_form_field(const struct serve_request *req, const char *name,
    struct buf *out);
/* A request header, or NULL. */
const char *serve_header(const struct serve_request *req, const char *name);
/* Make res a JSON response: value is consumed. */
void serve_json(struct serve_response *res, unsigned status, json_t *value);
/* Make res an error: JSON {error, status} for the API, else a small page. */
void serve_error(const struct serve_request *req, struct serve_response *res,
    unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Run the daemon until SIGINT or SIGTERM. Returns 0 or -1 (printed). */
int serve_http_run(struct serve *server, const char *address, int port,
    const char *tls_cert, const char *tls_key, struct err *err);

/* auth.c */
/*
 * Set up auth; enabled: whether logins may happen at all; lifetime_ms: how
 * long a session lasts after its login.
 */
void serve_auth_init(struct serve_auth *auth, bool enabled,
    int64_t lifetime_ms);
void serve_auth_release(struct serve_auth *auth);
/*
 * Fill hex (SERVE_TOKEN_HEX + 1 bytes) with a random token from the
 * kernel. Returns 0 or -1.
 */
int serve_random_token(char *hex);
/*
 * Use the one-time login token: when token is it (compared in constant
 * time), unused, and made after revoked_ms (the last 'daicho serve
 * --revoke': one at or after the start ends it), make a session and copy
 * it to *out. Returns 0, or -1 when refused.
 */
int serve_auth_login(struct serve_auth *auth, const char *token,
    int64_t revoked_ms, struct serve_session *out);
/*
 * Make a session for a login the caller proved otherwise (a link of
 * 'daicho serve --login-url', taken from the ledger) and copy it to *out.
 * Returns 0, or -1 when logins are off or no random bytes came.
 */
int serve_auth_open(struct serve_auth *auth, struct serve_session *out);
/*
 * The live session whose id is cookie, copied to *out. Returns whether
 * found. One that began at or before revoked_ms (a person's 'daicho serve
 * --revoke') is ended instead.
 */
bool serve_auth_session(struct serve_auth *auth, const char *cookie,
    int64_t revoked_ms, struct serve_session *out);
/* End the session whose id is id. */
void serve_auth_logout(struct serve_auth *auth, const char *id);
/*
 * Check an action's request: a session (else 401) whose CSRF token the
 * request carries (form field csrf or X-CSRF-Token header), from this
 * origin (Origin and Sec-Fetch-Site, when sent); else 403. Returns 0 or
 * the HTTP status to refuse with, the reason in why.
 */
unsigned serve_auth_check_action(const struct serve_request *req,
    struct buf *why);
/*
 * serve_auth_check_action(), answering a refusal in res: returns true
 * when the action was refused (res is then filled).
 */
bool serve_auth_refuse(const struct serve_request *req,
    struct serve_response *res);
/* Compare two strings in time independent of where they differ. */
bool serve_token_equal(const char *a, const char *b);

/* api.c */
/* Handle /api/...: GET reads, POST actions. */
void serve_api(struct serve_request *req, struct serve_response *res);
/*
 * The web actions as the needs model spells their commands: when
 * command (an item's resolve, "daicho approve 3") is one, fill *action
 * ("approve") and *id and return true.
 */
bool serve_action_of(const char *command, const char **action, int64_t *id);

/* live.c */
int serve_live_start(struct serve *server, struct err *err);
void serve_live_stop(struct serve *server);
/* Answer an SSE stream (/events). */
void serve_live_stream(struct serve_request *req, struct serve_response *res,
    void **mhd_response);

/* html.c */
/* Append text HTML-escaped. */
void html_escape(struct buf *out, const char *text);
void html_escape_n(struct buf *out, const char *text, size_t len);
/* Append text escaped for a URL's query component. */
void html_url_escape(struct buf *out, const char *text);
/* Start a page: the frame up to <main>; current names the nav tab. */
void html_begin(const struct serve_request *req, struct buf *out,
    const char *title, const char *current);
/* End a page: </main> and the rest. */
void html_end(const struct serve_request *req, struct buf *out);
/* An age as "12s ago", with the time as a title. */
void html_age(struct buf *out, int64_t at_ms, int64_t now_ms);
/* A state badge. */
void html_state(struct buf *out, const char *state);
/*
 * An empty page's or section's say: what there is none of (what, escaped)
 * and what to do next (next_html, trusted HTML: daicho's own words).
 */
void html_empty(struct buf *out, const char *what, const char *next_html);
/* A form button for a web action on id, with the CSRF token. */
void html_action_form(const struct serve_request *req, struct buf *out,
    const char *action, int64_t id, const char *label);
/* The bundled assets: "/static/app.js" and "/static/style.css". */
bool html_static(const char *path, const char **type, const char **body);

/* Pages: each fills res with a whole page (or <main>'s inside). */
void page_needs(struct serve_request *req, struct serve_response *res);
void page_agents(struct serve_request *req, struct serve_response *res);
void page_tasks(struct serve_request *req, struct serve_response *res);
void page_task(struct serve_request *req, struct serve_response *res,
    const char *id_text);
void page_graph(struct serve_request *req, struct serve_response *res);
/* The graph alone, as an SVG document (/graph.svg). */
void page_graph_svg(struct serve_request *req, struct serve_response *res);
void page_usage(struct serve_request *req, struct serve_response *res);

#endif
