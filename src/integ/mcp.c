/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The Model Context Protocol's stdio transport and lifecycle (see mcp.h):
 * framing, JSON-RPC validation and error codes, version negotiation, and
 * the notifications the owner sends. Tools and resources come from the
 * owner's handlers.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "integ/mcp.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/strlist.h"

const char *const mcp_protocol_versions[] = { "2025-11-25", "2025-06-18",
	NULL };

/* JSON-RPC 2.0 error codes. */
enum {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
};

/* Logging levels, lowest first (RFC 5424 order, as MCP names them). */
static const char *const log_levels[] = { "debug", "info", "notice", "warning",
	"error", "critical", "alert", "emergency", NULL };

struct mcp_server {
	const struct mcp_handlers *handlers;
	mcp_write_fn *write;
	void *write_arg;
	bool initialized;          /* initialize answered */
	bool broken;               /* a write failed: the peer is gone */
	const char *version;       /* negotiated (static string) */
	int log_threshold;         /* index in log_levels */
	struct strlist subscribed; /* resource uris the client subscribed to */
};

struct mcp_server *
mcp_server_new(const struct mcp_handlers *handlers, mcp_write_fn *write,
    void *write_arg)
{
	struct mcp_server *server = xcalloc(1, sizeof(*server));

	server->handlers = handlers;
	server->write = write;
	server->write_arg = write_arg;
	server->log_threshold = 1; /* info */
	return server;
}

void
mcp_server_free(struct mcp_server *server)
{
	if (server == NULL)
		return;
	strlist_release(&server->subscribed);
	free(server);
}

bool
mcp_initialized(const struct mcp_server *server)
{
	return server->initialized;
}

const char *
mcp_protocol_version(const struct mcp_server *server)
{
	return server->version;
}

/* Write message (stolen) as one compact line. */
static void
send_message(struct mcp_server *server, json_t *message)
{
	/* Compact JSON escapes every control character: never a newline. */
	char *text = json_dumps(message, JSON_COMPACT);

	json_decref(message);
	if (text == NULL || server->broken)
		goto done;
	if (server->write(server->write_arg, text, strlen(text)) < 0)
		server->broken = true;
done:
	free(text);
}

/* Answer request id (borrowed; NULL for null) with result (stolen). */
static void
send_result(struct mcp_server *server, json_t *id, json_t *result)
{
	send_message(server, json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id",
	    id ? id : json_null(), "result", result));
}

/* Answer request id (borrowed; NULL for null) with a JSON-RPC error. */
static void
send_error(struct mcp_server *server, json_t *id, int code, const char *message)
{
	send_message(server, json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc",
	    "2.0", "id", id ? id : json_null(), "error", "code", code, "message",
	    message));
}

/* Send notification method with params (stolen). */
static void
send_notification(struct mcp_server *server, const char *method, json_t *params)
{
	send_message(server, json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0",
	    "method", method, "params", params));
}

/* The string value of v, unless it is none or holds a NUL byte. */
static const char *
text_of(const json_t *v)
{
	const char *text = json_string_value(v);

	return text && strlen(text) == json_string_length(v) ? text : NULL;
}

json_t *
mcp_tool_error(const char *message)
{
	return json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text",
	    "text", message, "isError", 1);
}

void
mcp_log(struct mcp_server *server, const char *level, const char *logger,
    json_t *data)
{
	int index = -1;

	for (int i = 0; log_levels[i]; i++)
		if (strcmp(log_levels[i], level) == 0)
			index = i;
	if (index < server->log_threshold) {
		json_decref(data);
		return;
	}
	send_notification(server, "notifications/message", json_pack("{s:s, s:s, "
	    "s:o}", "level", level, "logger", logger, "data", data));
}

bool
mcp_resource_updated(struct mcp_server *server, const char *uri)
{
	if (!strlist_contains(&server->subscribed, uri))
		return false;
	send_notification(server, "notifications/resources/updated",
	    json_pack("{s:s}", "uri", uri));
	return true;
}

/*
 * initialize: agree on the protocol version (the client's when spoken,
 * else the newest spoken) and say what the server offers.
 */
static void
handle_initialize(struct mcp_server *server, json_t *id, json_t *params)
{
	const char *asked = text_of(json_object_get(params, "protocolVersion"));
	json_t *capabilities = json_pack("{s:{s:b}, s:{}}", "tools",
	    "listChanged", 0, "logging");
	json_t *result;

	if (asked == NULL) {
		json_decref(capabilities);
		send_error(server, id, RPC_INVALID_PARAMS, "initialize needs "
		    "params.protocolVersion (a string)");
		return;
	}
	/* A version not spoken is answered with the newest spoken. */
	server->version = mcp_protocol_versions[0];
	for (size_t i = 0; mcp_protocol_versions[i]; i++)
		if (strcmp(asked, mcp_protocol_versions[i]) == 0)
			server->version = mcp_protocol_versions[i];
	if (server->handlers->resources)
		json_object_set_new(capabilities, "resources", json_pack("{s:b, s:b}",
		    "subscribe", 1, "listChanged", 0));
	result = json_pack("{s:s, s:o, s:{s:s, s:s}}", "protocolVersion",
	    server->version, "capabilities", capabilities, "serverInfo", "name",
	    server->handlers->name, "version", server->handlers->version);
	if (server->handlers->instructions)
		json_object_set_new(result, "instructions",
		    json_string(server->handlers->instructions));
	server->initialized = true;
	send_result(server, id, result);
}

/*
 * tools/call: run the named tool through the owner's callback; its result,
 * error results included, is the answer. An unknown tool is -32602.
 */
static void
handle_tools_call(struct mcp_server *server, json_t *id, json_t *params)
{
	const char *name = text_of(json_object_get(params, "name"));
	json_t *arguments = json_object_get(params, "arguments"), *result;
	struct buf message = BUF_INIT;

	if (name == NULL) {
		send_error(server, id, RPC_INVALID_PARAMS, "tools/call needs "
		    "params.name (a string)");
		return;
	}
	if (arguments != NULL && !json_is_object(arguments) &&
	    !json_is_null(arguments)) {
		send_error(server, id, RPC_INVALID_PARAMS, "params.arguments must "
		    "be an object");
		return;
	}
	arguments = json_is_object(arguments) ? json_incref(arguments)
					      : json_object();
	result = server->handlers->call_tool(server->handlers->arg, name,
	    arguments);
	json_decref(arguments);
	if (result == NULL) {
		buf_addf(&message, "unknown tool '%s' (see tools/list)", name);
		send_error(server, id, RPC_INVALID_PARAMS, message.buf);
		buf_release(&message);
		return;
	}
	send_result(server, id, result);
}

/* Forget the client's subscription to uri, if any. */
static void
unsubscribe(struct mcp_server *server, const char *uri)
{
	struct strlist *list = &server->subscribed;

	for (size_t i = 0; i < list->count; i++)
		if (strcmp(list->items[i], uri) == 0) {
			free(list->items[i]);
			list->items[i] = list->items[--list->count];
			return;
		}
}

/* resources/read, subscribe and unsubscribe: params.uri. */
static void
handle_resource(struct mcp_server *server, const char *method, json_t *id,
    json_t *params)
{
	const char *uri = text_of(json_object_get(params, "uri"));
	json_t *result = NULL;
	struct buf message = BUF_INIT;

	if (uri == NULL) {
		send_error(server, id, RPC_INVALID_PARAMS, "params.uri (a string) "
		    "is needed");
		return;
	}
	/* Reading is the test that it exists, for subscribing too. */
	result = server->handlers->read_resource(server->handlers->arg, uri);
	if (result == NULL) {
		buf_addf(&message, "unknown resource '%s' (see resources/list)", uri);
		send_error(server, id, RPC_INVALID_PARAMS, message.buf);
		buf_release(&message);
		return;
	}
	if (strcmp(method, "resources/read") == 0) {
		send_result(server, id, result);
		return;
	}
	json_decref(result);
	if (strcmp(method, "resources/subscribe") == 0) {
		if (!strlist_contains(&server->subscribed, uri))
			strlist_add(&server->subscribed, uri);
	} else {
		unsubscribe(server, uri);
	}
	send_result(server, id, json_object());
}

/* logging/setLevel: the lowest level mcp_log() sends from now on. */
static void
handle_set_level(struct mcp_server *server, json_t *id, json_t *params)
{
	const char *level = text_of(json_object_get(params, "level"));

	for (int i = 0; level && log_levels[i]; i++)
		if (strcmp(log_levels[i], level) == 0) {
			server->log_threshold = i;
			send_result(server, id, json_object());
			return;
		}
	send_error(server, id, RPC_INVALID_PARAMS, "params.level must be one of "
	    "debug, info, notice, warning, error, critical, alert, emergency");
}

/* A request (it has an id): answer it. */
static void
handle_request(struct mcp_server *server, const char *method, json_t *id,
    json_t *params)
{
	bool resources = server->handlers->resources != NULL;

	if (strcmp(method, "initialize") == 0)
		handle_initialize(server, id, params);
	else if (strcmp(method, "ping") == 0)
		send_result(server, id, json_object());
	else if (strcmp(method, "tools/list") == 0)
		send_result(server, id, json_pack("{s:O}", "tools",
		    (json_t *)server->handlers->tools));
	else if (strcmp(method, "tools/call") == 0)
		handle_tools_call(server, id, params);
	else if (resources && strcmp(method, "resources/list") == 0)
		send_result(server, id, json_pack("{s:O}", "resources",
		    (json_t *)server->handlers->resources));
	else if (resources && strcmp(method, "resources/templates/list") == 0)
		send_result(server, id, json_pack("{s:[]}", "resourceTemplates"));
	else if (resources && (strcmp(method, "resources/read") == 0 ||
		     strcmp(method, "resources/subscribe") == 0 ||
		     strcmp(method, "resources/unsubscribe") == 0))
		handle_resource(server, method, id, params);
	else if (strcmp(method, "logging/setLevel") == 0)
		handle_set_level(server, id, params);
	else {
		struct buf message = BUF_INIT;

		buf_addf(&message, "method not found: %s", method);
		send_error(server, id, RPC_METHOD_NOT_FOUND, message.buf);
		buf_release(&message);
	}
}

/* Whether id is a valid request id: a string or an integer (not null). */
static bool
valid_id(const json_t *id)
{
	return (json_is_string(id) && mcp_big_number(id) == NULL) ||
	    json_is_integer(id);
}

/*
 * How a number jansson cannot hold is decoded: a string starting with a
 * NUL byte (which no text daicho takes) and this.
 */
#define BIG_NUMBER_MARK "daicho-big-number:"

const char *
mcp_big_number(const json_t *value)
{
	const char *text = json_string_value(value);
	size_t mark = sizeof(BIG_NUMBER_MARK) - 1;

	if (text == NULL || text[0] != '\0' || json_string_length(value) < mark + 2 ||
	    memcmp(text + 1, BIG_NUMBER_MARK, mark) != 0)
		return NULL;
	return text + 1 + mark;
}

/* Whether the number token (len bytes) is one jansson refuses. */
static bool
too_big(const char *token, size_t len)
{
	char *copy = xstrndup(token, len), *end;
	bool real = strpbrk(copy, ".eE") != NULL, big;

	errno = 0;
	if (real) {
		double v = strtod(copy, &end);

		big = errno == ERANGE && isinf(v);
	} else {
		(void)strtoll(copy, &end, 10);
		big = errno == ERANGE;
	}
	free(copy);
	return big;
}

/*
 * text (len bytes) with each number that jansson cannot hold written as
 * the string that mcp_big_number() recognises; false when there is none.
 * Strings are copied as they are; what is not JSON stays not JSON.
 */
static bool
mark_big_numbers(const char *text, size_t len, struct buf *out)
{
	bool found = false;
	size_t i = 0;

	while (i < len) {
		size_t start = i;

		if (text[i] == '"') {
			for (i++; i < len && text[i] != '"'; i++)
				if (text[i] == '\\')
					i++;
			i = i < len ? i + 1 : len;
			buf_add(out, text + start, i - start);
		} else if (text[i] == '-' || (text[i] >= '0' && text[i] <= '9')) {
			while (i < len && strchr("0123456789+-.eE", text[i]) &&
			    text[i] != '\0')
				i++;
			if (too_big(text + start, i - start)) {
				buf_adds(out, "\"\\u0000" BIG_NUMBER_MARK);
				buf_add(out, text + start, i - start);
				buf_addch(out, '"');
				found = true;
			} else {
				buf_add(out, text + start, i - start);
			}
		} else {
			buf_addch(out, text[i++]);
		}
	}
	return found;
}

/*
 * Decode one message: any valid JSON (see mcp_big_number()), duplicate
 * keys refused. NULL when it cannot be, with *id the request's id when it
 * could still be read (a message with a key twice; new reference).
 */
static json_t *
decode(const char *text, size_t len, json_t **id, json_error_t *jerr)
{
	const size_t flags = JSON_DECODE_ANY | JSON_ALLOW_NUL;
	struct buf marked = BUF_INIT;
	json_t *message = json_loadb(text, len, flags | JSON_REJECT_DUPLICATES,
	    jerr), *lenient;

	*id = NULL;
	if (message == NULL && mark_big_numbers(text, len, &marked)) {
		text = marked.buf;
		len = marked.len;
		message = json_loadb(text, len, flags | JSON_REJECT_DUPLICATES, jerr);
	}
	if (message == NULL &&
	    (lenient = json_loadb(text, len, flags, NULL)) != NULL) {
		if (valid_id(json_object_get(lenient, "id")))
			*id = json_incref(json_object_get(lenient, "id"));
		json_decref(lenient);
	}
	buf_release(&marked);
	return message;
}

void
mcp_handle_message(struct mcp_server *server, const char *text, size_t len)
{
	json_error_t jerr;
	json_t *id, *params;
	json_t *message = decode(text, len, &id, &jerr);
	const char *method;

	if (message == NULL) {
		struct buf why = BUF_INIT;

		/* Valid JSON but for a key given twice: its id is known. */
		buf_addf(&why, "%s: %s (column %d)", id ? "invalid request"
		    : "parse error", jerr.text, jerr.column);
		send_error(server, id, id ? RPC_INVALID_REQUEST : RPC_PARSE_ERROR,
		    why.buf);
		json_decref(id);
		buf_release(&why);
		goto done;
	}
	if (json_is_array(message)) {
		send_error(server, NULL, RPC_INVALID_REQUEST, "invalid request: "
		    "batches are not supported (one JSON-RPC message per line)");
		goto done;
	}
	if (!json_is_object(message)) {
		send_error(server, NULL, RPC_INVALID_REQUEST, "invalid request: "
		    "a message is a JSON object");
		goto done;
	}
	id = json_object_get(message, "id");
	method = text_of(json_object_get(message, "method"));
	params = json_object_get(message, "params");
	if (id != NULL && !valid_id(id)) {
		send_error(server, NULL, RPC_INVALID_REQUEST, "invalid request: id "
		    "must be a string or an integer");
		goto done;
	}
	if (text_of(json_object_get(message, "jsonrpc")) == NULL ||
	    strcmp(json_string_value(json_object_get(message, "jsonrpc")),
		"2.0") != 0) {
		send_error(server, id, RPC_INVALID_REQUEST, "invalid request: "
		    "\"jsonrpc\" must be \"2.0\"");
		goto done;
	}
	if (method == NULL) {
		/* A response to a request of ours (we send none): ignored. */
		if (id != NULL && (json_object_get(message, "result") ||
		    json_object_get(message, "error")))
			goto done;
		send_error(server, id, RPC_INVALID_REQUEST, "invalid request: "
		    "\"method\" (a string without NUL bytes) is missing");
		goto done;
	}
	if (id == NULL)
		goto done; /* a notification: initialized, cancelled, ... */
	if (params != NULL && !json_is_object(params)) {
		send_error(server, id, RPC_INVALID_PARAMS, "params must be an "
		    "object");
		goto done;
	}
	handle_request(server, method, id, params);
done:
	json_decref(message);
	if (server->handlers->tick && !server->broken)
		server->handlers->tick(server->handlers->arg, server, false);
}

/*
 * Handle each complete line at the start of pending; keep the rest.
 * *scanned: how much of pending is known to hold no newline (updated), so
 * that a long message arriving in many reads is not searched again from
 * its start after each.
 */
static void
handle_lines(struct mcp_server *server, struct buf *pending, size_t *scanned)
{
	size_t start = 0;

	for (;;) {
		size_t from = start > *scanned ? start : *scanned;
		char *newline = memchr(pending->buf + from, '\n',
		    pending->len - from);
		size_t len;

		if (newline == NULL) {
			*scanned = pending->len;
			break;
		}
		len = (size_t)(newline - (pending->buf + start));
		if (len > 0 && pending->buf[start + len - 1] == '\r')
			len--;
		if (len > 0)
			mcp_handle_message(server, pending->buf + start, len);
		start = (size_t)(newline - pending->buf) + 1;
		if (server->broken)
			break;
	}
	if (start > 0) {
		memmove(pending->buf, pending->buf + start, pending->len - start);
		pending->len -= start;
		pending->buf[pending->len] = '\0';
		*scanned = *scanned > start ? *scanned - start : 0;
	}
}

/*
 * A message longer than MCP_LINE_MAX_BYTES is not kept whole. Once the
 * line pending holds (handle_lines() left no complete one) is that long,
 * it is dropped and *skipping set; while skipping, what arrives is dropped
 * up to the next newline, which one error answers (id null: its id was
 * never read). *scanned as for handle_lines().
 */
static void
drop_long_line(struct mcp_server *server, struct buf *pending,
    size_t *scanned, bool *skipping)
{
	char *newline;

	if (!*skipping) {
		if (pending->len > MCP_LINE_MAX_BYTES) {
			*skipping = true;
			buf_release(pending); /* its memory too */
			*scanned = 0;
		}
		return;
	}
	newline = memchr(pending->buf, '\n', pending->len);
	*scanned = 0;
	if (newline == NULL) {
		buf_reset(pending);
		return;
	}
	*skipping = false;
	pending->len -= (size_t)(newline + 1 - pending->buf);
	memmove(pending->buf, newline + 1, pending->len);
	pending->buf[pending->len] = '\0';
	send_error(server, NULL, RPC_INVALID_REQUEST, "invalid request: a "
	    "message may be at most " MCP_LINE_MAX_TEXT " (this one was "
	    "longer, and was skipped)");
}

int
mcp_serve(struct mcp_server *server, int in_fd, int idle_ms)
{
	struct buf pending = BUF_INIT;
	size_t scanned = 0;
	bool skipping = false;
	char chunk[65536];
	int rc = 0;

	while (!server->broken) {
		struct pollfd pfd = { in_fd, POLLIN, 0 };
		ssize_t n;
		int ready = poll(&pfd, 1, idle_ms > 0 ? idle_ms : -1);

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0) {
			rc = -1;
			break;
		}
		if (ready == 0) {
			if (server->handlers->tick)
				server->handlers->tick(server->handlers->arg, server,
				    true);
			continue;
		}
		n = read(in_fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			rc = -1;
			break;
		}
		if (n == 0) {
			/* A last message without its newline still counts. */
			if (skipping)
				send_error(server, NULL, RPC_INVALID_REQUEST,
				    "invalid request: a message may be at most "
				    MCP_LINE_MAX_TEXT " (this one was longer)");
			else if (pending.len > 0)
				mcp_handle_message(server, pending.buf, pending.len);
			break;
		}
		buf_add(&pending, chunk, (size_t)n);
		if (skipping)
			drop_long_line(server, &pending, &scanned, &skipping);
		if (!skipping) {
			handle_lines(server, &pending, &scanned);
			drop_long_line(server, &pending, &scanned, &skipping);
		}
	}
	buf_release(&pending);
	if (server->broken)
		rc = -1;
	return rc;
}
