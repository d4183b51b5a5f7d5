/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The HTTP side of the dashboard on libmicrohttpd: a thread per
 * connection, bodies capped, routing to pages, the API, the live stream
 * and the login. Every response is complete in memory except the SSE
 * stream (live.c).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "core/weblogin.h"
#include "serve/serve.h"
#include "util/alloc.h"
#include "util/sha256.h"

#define SESSION_COOKIE "daicho_session"

/* A request's state across libmicrohttpd's calls: its body so far. */
struct upload {
	struct buf body;
	bool too_big;
	bool started;     /* the handler saw the header */
	bool bad_uri;     /* the request target decodes to a control byte */
};

/* Whether byte c is a control character: C0 or DEL. */
static bool
is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/*
 * Whether the request target (path and query, still encoded) holds a
 * control byte, raw or %-encoded (%00, %0a, %7f...). None belongs in a
 * path, an id or a query value; libmicrohttpd decodes them into C
 * strings, where a NUL would cut "1%00x" to "1" and "w1%00x" to "w1".
 */
static bool
target_has_control(const char *uri)
{
	for (const char *p = uri; *p; p++) {
		char hex[3];

		if (is_control((unsigned char)*p))
			return true;
		if (*p != '%' || !isxdigit((unsigned char)p[1]) ||
		    !isxdigit((unsigned char)p[2]))
			continue;
		hex[0] = p[1], hex[1] = p[2], hex[2] = '\0';
		if (is_control((unsigned char)strtol(hex, NULL, 16)))
			return true;
		p += 2;
	}
	return false;
}

/*
 * libmicrohttpd's first look at a request, its target as sent: the
 * request's state starts here, with what the target holds.
 */
static void *
uri_seen(void *cls, const char *uri, struct MHD_Connection *connection)
{
	struct upload *up = xcalloc(1, sizeof(*up));

	buf_init(&up->body);
	up->bad_uri = uri != NULL && target_has_control(uri);
	return up;
}

const char *
serve_query(const struct serve_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND,
	    name);
}

const char *
serve_header(const struct serve_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->connection, MHD_HEADER_KIND, name);
}

/* Append the form-decoded (+ and %XX) text of [from, to) to out. */
static void
form_decode(struct buf *out, const char *from, const char *to)
{
	size_t start = out->len;

	buf_add(out, from, (size_t)(to - from));
	for (size_t i = start; i < out->len; i++)
		if (out->buf[i] == '+')
			out->buf[i] = ' ';
	out->len = start + MHD_http_unescape(out->buf + start);
}

bool
serve_form_foreach(const struct serve_request *req,
    bool (*fn)(void *cls, const struct buf *name, const struct buf *value),
    void *cls)
{
	const char *p = req->body, *end;
	struct buf key = BUF_INIT, value = BUF_INIT;
	bool go_on = true;

	if (!req->form || p == NULL)
		return true;
	end = p + req->body_bytes;
	while (p < end && go_on) {
		const char *amp = memchr(p, '&', (size_t)(end - p));
		const char *stop = amp ? amp : end;
		const char *eq = memchr(p, '=', (size_t)(stop - p));

		buf_reset(&key);
		buf_reset(&value);
		form_decode(&key, p, eq ? eq : stop);
		if (eq)
			form_decode(&value, eq + 1, stop);
		/* "a=1&&b=2", a trailing "&": no field there. */
		if (stop > p)
			go_on = fn(cls, &key, &value);
		p = stop + 1;
	}
	buf_release(&key);
	buf_release(&value);
	return go_on;
}

/* What serve_form_field() looks for, and what it found. */
struct field_search {
	const char *name;
	struct buf *out;
	bool found;
};

static bool
field_match(void *cls, const struct buf *name, const struct buf *value)
{
	struct field_search *search = cls;

	if (name->len != strlen(search->name) ||
	    memcmp(name->buf, search->name, name->len) != 0)
		return true;
	buf_reset(search->out);
	buf_add(search->out, value->buf, value->len);
	search->found = true;
	return false;
}

bool
serve_form_field(const struct serve_request *req, const char *name,
    struct buf *out)
{
	struct field_search search = { name, out, false };

	serve_form_foreach(req, field_match, &search);
	return search.found;
}

/* Refuse a field whose name or value decodes to a NUL. */
static bool
field_without_nul(void *cls, const struct buf *name, const struct buf *value)
{
	return memchr(name->buf, '\0', name->len) == NULL &&
	       memchr(value->buf, '\0', value->len) == NULL;
}

void
serve_json(struct serve_response *res, unsigned status, json_t *value)
{
	char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);

	res->status = status;
	res->content_type = "application/json";
	buf_reset(&res->body);
	if (text != NULL)
		buf_adds(&res->body, text);
	buf_addch(&res->body, '\n');
	free(text);
	json_decref(value);
}

void
serve_error(const struct serve_request *req, struct serve_response *res,
    unsigned status, const char *fmt, ...)
{
	struct buf message = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&message, fmt, ap);
	va_end(ap);
	/* The API answers in JSON, except to the dashboard's own forms. */
	if (strncmp(req->path, "/api/", 5) == 0 && !req->form) {
		serve_json(res, status, json_pack("{s:s, s:i}", "error",
		    message.buf, "status", (int)status));
		buf_release(&message);
		return;
	}
	res->status = status;
	res->content_type = "text/html; charset=utf-8";
	buf_reset(&res->body);
	html_begin(req, &res->body, "Error", "");
	buf_addf(&res->body, "<h1>%u</h1><p class=\"error\">", status);
	html_escape(&res->body, message.buf);
	buf_adds(&res->body, "</p>");
	html_end(req, &res->body);
	buf_release(&message);
}

/* Whether the path is one the dashboard could mean: no "..", no NUL. */
static bool
path_acceptable(const char *path, size_t len)
{
	if (len == 0 || path[0] != '/' || memchr(path, '\0', len) != NULL)
		return false;
	return strstr(path, "/..") == NULL && strstr(path, "\\") == NULL &&
	       strstr(path, "//") == NULL;
}

/*
 * Whether req came to the host a session counts on (any, when the server
 * has no host name of its own): a cookie brought to another name is not
 * the person's, whoever holds it.
 */
static bool
on_session_host(const struct serve_request *req)
{
	const char *host = serve_header(req, "Host");

	return req->server->session_host.len == 0 ||
	       (host != NULL && strcmp(host, req->server->session_host.buf) == 0);
}

/*
 * Whether token is the link 'daicho serve --login-url' kept in the ledger
 * (as its SHA-256), unexpired: it is then taken, and a session made in
 * *session.
 */
static bool
ledger_link(struct serve *server, const char *token,
    struct serve_session *session)
{
	char hash[SHA256_HEX_BYTES];
	struct err err = ERR_INIT;
	bool taken = false;

	if (token == NULL || strlen(token) != SERVE_TOKEN_HEX ||
	    !server->auth.enabled)
		return false;
	sha256_hex(token, strlen(token), hash);
	pthread_mutex_lock(&server->lock);
	if (weblogin_take(server->ledger, hash, &taken, &err) < 0)
		fprintf(stderr, "daicho: a login link could not be read: %s\n",
		    err.message.buf);
	pthread_mutex_unlock(&server->lock);
	err_release(&err);
	return taken && serve_auth_open(&server->auth, session) == 0;
}

/*
 * When a person last ended every session ('daicho serve --revoke'), from
 * the ledger: 0 when never. When it cannot be read (then said), now: every
 * session counts as revoked, rather than one revoked counting as live.
 */
static int64_t
revoked_ms(struct serve *server)
{
	struct err err = ERR_INIT;
	int64_t ms = 0;

	pthread_mutex_lock(&server->lock);
	if (weblogin_revoked_ms(server->ledger, &ms, &err) < 0) {
		fprintf(stderr, "daicho: %s\n", err.message.buf);
		ms = INT64_MAX;
	}
	pthread_mutex_unlock(&server->lock);
	err_release(&err);
	return ms;
}

/* GET /login?token=T: the one-time login. */
static void
login(struct serve_request *req, struct serve_response *res)
{
	const char *token = serve_query(req, "token");
	struct serve_session session;

	if (!on_session_host(req)) {
		serve_error(req, res, 403, "log in at the address 'daicho serve' "
		    "printed to its terminal (%s)", req->server->origin.buf);
		return;
	}

	if (serve_auth_login(&req->server->auth, token, revoked_ms(req->server),
		&session) < 0 &&
	    !ledger_link(req->server, token, &session)) {
		serve_error(req, res, 403, "this login link is wrong, expired or "
		    "was already used (each is good once; 'daicho serve "
		    "--login-url' at your terminal prints a new one)");
		return;
	}
	/* Kept across a browser's restart, for the session's life. */
	buf_addf(&res->set_cookie, SESSION_COOKIE "=%s; Path=/; HttpOnly; "
	    "SameSite=Strict; Max-Age=%lld%s", session.id,
	    (long long)(req->server->auth.lifetime_ms / 1000),
	    req->server->tls ? "; Secure" : "");
	res->status = 303;
	res->location = "/";
}

/* POST /logout. */
static void
logout(struct serve_request *req, struct serve_response *res)
{
	if (serve_auth_refuse(req, res))
		return;
	serve_auth_logout(&req->server->auth, req->session->id);
	buf_addf(&res->set_cookie, SESSION_COOKIE "=; Path=/; HttpOnly; "
	    "SameSite=Strict; Max-Age=0");
	res->status = 303;
	res->location = "/";
}

/*
 * Whether the Host header names this server (on loopback only: a page of
 * another site that a DNS name rebound to 127.0.0.1 sends its own host).
 */
static bool
host_acceptable(const struct serve_request *req)
{
	const char *host = serve_header(req, "Host");
	const char *port;

	if (!req->server->loopback)
		return true;
	if (host == NULL)
		return false;
	if (strcmp(host, req->server->host.buf) == 0)
		return true;
	if (req->server->session_host.len > 0 &&
	    strcmp(host, req->server->session_host.buf) == 0)
		return true;
	port = strrchr(req->server->host.buf, ':');
	if (strncmp(host, "localhost:", 10) == 0)
		return strcmp(host + 9, port) == 0;
	if (strncmp(host, "127.0.0.1:", 10) == 0)
		return strcmp(host + 9, port) == 0;
	if (strncmp(host, "[::1]:", 6) == 0)
		return strcmp(host + 5, port) == 0;
	return false;
}

/* Route a complete request; *stream is set for the SSE response. */
static void
route(struct serve_request *req, struct serve_response *res, void **stream)
{
	const char *path = req->path, *type, *body;
	bool get = strcmp(req->method, "GET") == 0 ||
		   strcmp(req->method, "HEAD") == 0;
	bool post = strcmp(req->method, "POST") == 0;

	if (!path_acceptable(path, strlen(path))) {
		serve_error(req, res, 400, "bad path");
		return;
	}
	if (!host_acceptable(req)) {
		serve_error(req, res, 421, "this server answers to %s only",
		    req->server->host.buf);
		return;
	}
	if (strncmp(path, "/api/", 5) == 0) {
		if (!get && !post) {
			serve_error(req, res, 405, "method %s not allowed",
			    req->method);
			return;
		}
		serve_api(req, res);
		return;
	}
	if (post && strcmp(path, "/logout") == 0) {
		logout(req, res);
		return;
	}
	if (!get) {
		serve_error(req, res, 405, "method %s not allowed", req->method);
		return;
	}
	if (strcmp(path, "/") == 0)
		page_needs(req, res);
	else if (strcmp(path, "/agents") == 0)
		page_agents(req, res);
	else if (strcmp(path, "/tasks") == 0)
		page_tasks(req, res);
	else if (strncmp(path, "/tasks/", 7) == 0)
		page_task(req, res, path + 7);
	else if (strcmp(path, "/graph") == 0)
		page_graph(req, res);
	else if (strcmp(path, "/graph.svg") == 0)
		page_graph_svg(req, res);
	else if (strcmp(path, "/usage") == 0)
		page_usage(req, res);
	else if (strcmp(path, "/events") == 0)
		serve_live_stream(req, res, stream);
	else if (strcmp(path, "/login") == 0)
		login(req, res);
	else if (strcmp(path, "/favicon.ico") == 0)
		res->status = 204;
	else if (html_static(path, &type, &body)) {
		res->status = 200;
		res->content_type = type;
		buf_adds(&res->body, body);
	} else
		serve_error(req, res, 404, "no page %s", path);
}

/* Add the headers every response carries. */
static void
add_common_headers(struct MHD_Response *response)
{
	MHD_add_response_header(response, "Cache-Control", "no-store");
	MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(response, "X-Frame-Options", "DENY");
	/* Not no-referrer: Chromium then sends "Origin: null" with forms. */
	MHD_add_response_header(response, "Referrer-Policy", "same-origin");
	MHD_add_response_header(response, "Content-Security-Policy",
	    "default-src 'self'; style-src 'self' 'unsafe-inline'; "
	    "img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; "
	    "base-uri 'none'");
}

/* Queue a complete in-memory response. */
static enum MHD_Result
send_response(struct MHD_Connection *connection, struct serve_response *res)
{
	struct MHD_Response *response = MHD_create_response_from_buffer(
	    res->body.len, res->body.buf, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ok;

	if (response == NULL)
		return MHD_NO;
	add_common_headers(response);
	if (res->content_type)
		MHD_add_response_header(response, "Content-Type", res->content_type);
	if (res->location)
		MHD_add_response_header(response, "Location", res->location);
	if (res->set_cookie.len > 0)
		MHD_add_response_header(response, "Set-Cookie", res->set_cookie.buf);
	if (res->retry_after > 0) {
		char seconds[16];

		snprintf(seconds, sizeof(seconds), "%u", res->retry_after);
		MHD_add_response_header(response, "Retry-After", seconds);
	}
	if (res->close)
		MHD_add_response_header(response, "Connection", "close");
	ok = MHD_queue_response(connection, res->status, response);
	MHD_destroy_response(response);
	return ok;
}

/* A short plain answer, before the request is read (413). */
static enum MHD_Result
send_plain(struct MHD_Connection *connection, unsigned status,
    const char *json)
{
	struct serve_response res = { .status = status,
		.content_type = "application/json" };
	enum MHD_Result ok;

	buf_init(&res.body);
	buf_init(&res.set_cookie);
	buf_adds(&res.body, json);
	ok = send_response(connection, &res);
	buf_release(&res.body);
	buf_release(&res.set_cookie);
	return ok;
}

static enum MHD_Result
handle(void *cls, struct MHD_Connection *connection, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_size, void **state)
{
	struct serve *server = cls;
	struct upload *up = *state;
	struct serve_request req = { 0 };
	struct serve_response res = { 0 };
	const char *type, *partial, *cookie;
	void *stream = NULL;
	enum MHD_Result ok;

	if (up == NULL) {
		/* uri_seen() always makes it; this is only in case it did not. */
		up = uri_seen(NULL, NULL, connection);
		*state = up;
	}
	if (!__atomic_load_n(&server->ready, __ATOMIC_ACQUIRE))
		return send_plain(connection, 503, "{\"error\":\"the dashboard is "
		    "starting; try again\",\"status\":503}\n");
	if (!up->started) {
		const char *length = MHD_lookup_connection_value(connection,
		    MHD_HEADER_KIND, "Content-Length");

		up->started = true;
		if (length != NULL && strtoull(length, NULL, 10) >
		    SERVE_BODY_MAX_BYTES)
			return send_plain(connection, 413, "{\"error\":\"request "
			    "body too large (at most 65536 bytes)\",\"status\":413}\n");
		return MHD_YES;
	}
	if (*upload_size > 0) {
		if (up->body.len + *upload_size > SERVE_BODY_MAX_BYTES)
			up->too_big = true;
		else
			buf_add(&up->body, upload_data, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	if (up->too_big)
		return send_plain(connection, 413, "{\"error\":\"request body too "
		    "large (at most 65536 bytes)\",\"status\":413}\n");
	req.server = server;
	req.connection = connection;
	req.method = method;
	req.path = url;
	req.body = up->body.buf;
	req.body_bytes = up->body.len;
	type = MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
	    "Content-Type");
	req.form = type != NULL &&
		   strncmp(type, "application/x-www-form-urlencoded", 33) == 0;
	partial = MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
	    "X-Daicho-Partial");
	req.partial = partial != NULL && strcmp(partial, "1") == 0;
	cookie = MHD_lookup_connection_value(connection, MHD_COOKIE_KIND,
	    SESSION_COOKIE);
	if (cookie != NULL && server->auth.enabled && on_session_host(&req) &&
	    serve_auth_session(&server->auth, cookie, revoked_ms(server),
		&req.session_copy))
		req.session = &req.session_copy;
	res.status = 200;
	buf_init(&res.body);
	buf_init(&res.set_cookie);
	if (up->bad_uri)
		serve_error(&req, &res, 400, "a control character (such as %%00) "
		    "in the path or the query");
	else if (!serve_form_foreach(&req, field_without_nul, NULL))
		serve_error(&req, &res, 400, "a NUL (%%00) in a form field");
	else
		route(&req, &res, &stream);
	if (stream != NULL) {
		add_common_headers(stream);
		ok = MHD_queue_response(connection, 200, stream);
		MHD_destroy_response(stream);
	} else {
		ok = send_response(connection, &res);
	}
	buf_release(&res.body);
	buf_release(&res.set_cookie);
	return ok;
}

/* Free a request's state when libmicrohttpd is done with it. */
static void
completed(void *cls, struct MHD_Connection *connection, void **state,
    enum MHD_RequestTerminationCode code)
{
	struct upload *up = *state;

	if (up != NULL) {
		buf_release(&up->body);
		free(up);
		*state = NULL;
	}
}

int
serve_http_run(struct serve *server, const char *address, int port,
    const char *tls_cert, const char *tls_key, struct err *err)
{
	struct sockaddr_storage addr = { 0 };
	struct sockaddr_in *v4 = (struct sockaddr_in *)&addr;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&addr;
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION |
			 MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL;
	struct buf cert = BUF_INIT, key = BUF_INIT;
	struct MHD_Daemon *daemon = NULL;
	const union MHD_DaemonInfo *info;
	sigset_t signals;
	char host_name[256] = "";
	bool registered = false;
	int rc = 0, sig;

	if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
	} else if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		flags |= MHD_USE_IPv6;
	} else {
		return err_set(err, ERR_USAGE, "cannot listen on '%s' (give a "
		    "numeric IPv4 or IPv6 address, e.g. 127.0.0.1:7070)", address);
	}
	if (tls_cert != NULL) {
		if (!MHD_is_feature_supported(MHD_FEATURE_TLS))
			return err_set(err, ERR_FAILED, "this libmicrohttpd has no "
			    "TLS support");
		if (buf_read_file(&cert, tls_cert) < 0 ||
		    buf_read_file(&key, tls_key) < 0) {
			rc = err_set(err, ERR_USAGE, "cannot read %s or %s (%s)",
			    tls_cert, tls_key, strerror(errno));
			goto done;
		}
		flags |= MHD_USE_TLS;
	}
	/* Every thread starts with these blocked; this one waits for them. */
	sigemptyset(&signals);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &signals, NULL);
	signal(SIGPIPE, SIG_IGN);
	{
		/* What the connections may hold: see SERVE_CONNECTIONS_MAX. */
		struct MHD_OptionItem common[] = {
			{ MHD_OPTION_SOCK_ADDR, 0, &addr },
			{ MHD_OPTION_CONNECTION_TIMEOUT, SERVE_IDLE_TIMEOUT_S, NULL },
			{ MHD_OPTION_CONNECTION_LIMIT, SERVE_CONNECTIONS_MAX, NULL },
			{ MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)uri_seen, NULL },
			{ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, NULL },
			{ MHD_OPTION_END, 0, NULL },
		};

		if (tls_cert != NULL)
			daemon = MHD_start_daemon(flags, 0, NULL, NULL, handle,
			    server, MHD_OPTION_ARRAY, common,
			    MHD_OPTION_HTTPS_MEM_CERT, cert.buf,
			    MHD_OPTION_HTTPS_MEM_KEY, key.buf, MHD_OPTION_END);
		else
			daemon = MHD_start_daemon(flags, 0, NULL, NULL, handle,
			    server, MHD_OPTION_ARRAY, common, MHD_OPTION_END);
	}
	if (daemon == NULL) {
		rc = err_set(err, ERR_FAILED, "cannot listen on %s:%d (the port "
		    "may be in use, or the certificate unreadable; try another "
		    "--listen)", address, port);
		goto done;
	}
	info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
	if (info != NULL && info->port != 0)
		port = info->port;
	buf_addf(&server->host, strchr(address, ':') ? "[%s]:%d" : "%s:%d",
	    address, port);
	/*
	 * Cookies ignore ports: any server on 127.0.0.1 the browser visits
	 * would get a session's cookie. On loopback the person acts at a host
	 * name of this server's own, d-LABEL.localhost (browsers and curl
	 * take *.localhost for loopback): its cookie goes to no other name,
	 * and the label is random, printed only on the person's terminal.
	 */
	if (server->loopback && server->auth.enabled) {
		char label[SERVE_TOKEN_HEX + 1];

		if (serve_random_token(label) < 0) {
			rc = err_set(err, ERR_FAILED, "no random bytes for the "
			    "dashboard's host name");
			goto done;
		}
		buf_addf(&server->session_host, "d-%.16s.localhost:%d", label,
		    port);
		buf_addf(&server->origin, "%s://%s", server->tls ? "https"
		    : "http", server->session_host.buf);
	} else {
		buf_addf(&server->origin, "%s://%s", server->tls ? "https"
		    : "http", server->host.buf);
	}
	/* Where 'daicho serve --login-url' points a fresh link. */
	if (server->auth.enabled) {
		struct err why = ERR_INIT;

		gethostname(host_name, sizeof(host_name) - 1);
		pthread_mutex_lock(&server->lock);
		if (weblogin_register(server->ledger, server->origin.buf,
			host_name, getpid(), &why) < 0)
			fprintf(stderr, "daicho: 'daicho serve --login-url' will "
			    "not find this dashboard: %s\n", why.message.buf);
		pthread_mutex_unlock(&server->lock);
		err_release(&why);
		registered = true;
	}
	if ((rc = serve_live_start(server, err)) < 0)
		goto done;
	__atomic_store_n(&server->ready, 1, __ATOMIC_RELEASE);
	printf("daicho: dashboard at %s://%s/\n", server->tls ? "https" : "http",
	    server->host.buf);
	fflush(stdout);
	if (server->auth.enabled) {
		FILE *tty = fopen("/dev/tty", "w");

		if (tty != NULL) {
			fprintf(tty, "daicho: to act (approve, deny, reopen, unblock, "
			    "release), open once in your browser: %s/login?token=%s\n"
			    "daicho: another browser: 'daicho serve --login-url' "
			    "prints a fresh link; 'daicho serve --revoke' logs every "
			    "browser out\n", server->origin.buf,
			    server->auth.login_token);
			fclose(tty);
		}
	}
	sigwait(&signals, &sig);
	printf("daicho: dashboard stopped\n");
	serve_live_stop(server);
done:
	if (daemon != NULL)
		MHD_stop_daemon(daemon);
	if (registered) {
		struct err why = ERR_INIT;

		pthread_mutex_lock(&server->lock);
		(void)weblogin_unregister(server->ledger, host_name, getpid(),
		    &why);
		pthread_mutex_unlock(&server->lock);
		err_release(&why);
	}
	buf_release(&cert);
	buf_release(&key);
	return rc;
}
