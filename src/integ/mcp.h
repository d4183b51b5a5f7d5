/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The Model Context Protocol over stdio, server side: JSON-RPC 2.0, one
 * message per line, nothing but protocol on the output. This layer knows
 * nothing of daicho's commands: it is given a table of tools (their
 * definitions for tools/list and one callback that runs them), optional
 * resources, and a tick called after every message and when input has
 * been idle, from which the owner may send notifications.
 *
 * What it answers:
 *   initialize           the client's protocolVersion when it is one of
 *                        mcp_protocol_versions, else the newest of them
 *   ping                 {}
 *   tools/list           the tools given
 *   tools/call           the callback's result; an unknown tool is -32602
 *   resources/list, resources/templates/list, resources/read,
 *   resources/subscribe, resources/unsubscribe   when resources are given
 *   logging/setLevel     the threshold of mcp_log()
 * JSON-RPC errors: -32700 unparsable JSON, -32600 not a request (not an
 * object, a batch array, no "jsonrpc":"2.0", a bad id, no method), -32601
 * unknown method, -32602 bad params. Notifications (no id) are never
 * answered; a response from the client is ignored.
 */
#ifndef DAICHO_MCP_H
#define DAICHO_MCP_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* The protocol versions spoken, newest first; NULL-terminated. */
extern const char *const mcp_protocol_versions[];

struct mcp_server;

/*
 * Write one message (len bytes, no newline: the writer adds it). Returns 0,
 * or -1 when the peer is gone (the server then stops).
 */
typedef int mcp_write_fn(void *arg, const char *message, size_t len);

struct mcp_handlers {
	const char *name;         /* serverInfo.name */
	const char *version;      /* serverInfo.version */
	const char *instructions; /* for the client's model, or NULL */
	const json_t *tools;      /* borrowed: the array tools/list returns */
	const json_t *resources;  /* borrowed: resources/list's array, or NULL
				   * for no resources capability */
	/*
	 * Run tool name (one of tools) with arguments (an object; empty when
	 * the call gave none). Returns a new reference to the CallToolResult
	 * object, or NULL when there is no such tool.
	 */
	json_t *(*call_tool)(void *arg, const char *name, json_t *arguments);
	/*
	 * Read resource uri: a new reference to the ReadResourceResult
	 * ({contents: [...]}), or NULL when there is no such resource.
	 */
	json_t *(*read_resource)(void *arg, const char *uri);
	/*
	 * Called after each message handled and whenever input has been idle
	 * for the idle time of mcp_serve(): the place to send notifications.
	 * May be NULL.
	 */
	void (*tick)(void *arg, struct mcp_server *server, bool idle);
	void *arg;
};

/*
 * A server answering through write (write_arg its argument). handlers
 * (and what it points to) must outlive it. Owned by the caller
 * (mcp_server_free()).
 */
struct mcp_server *mcp_server_new(const struct mcp_handlers *handlers,
    mcp_write_fn *write, void *write_arg);
void mcp_server_free(struct mcp_server *server);

/*
 * Handle one message: text (len bytes, not NUL-terminated, without its
 * newline). Writes the response, if any, and calls the tick.
 */
void mcp_handle_message(struct mcp_server *server, const char *text,
    size_t len);

/*
 * The longest message (one line) the server reads: four times the largest
 * message an agent may send (core/msg.h), room for JSON's escapes.
 */
#define MCP_LINE_MAX_BYTES (64 * 1024 * 1024)
#define MCP_LINE_MAX_TEXT "64 MiB"

/*
 * Serve the messages read from in_fd, one per line, until end of input
 * (returns 0) or a read or write failure (returns -1; errno set for a read
 * failure). A line longer than MCP_LINE_MAX_BYTES is skipped, answered
 * with one error, and never held whole. With idle_ms > 0 the tick is called (idle) whenever no input
 * came for that long.
 */
int mcp_serve(struct mcp_server *server, int in_fd, int idle_ms);

/* Whether the client completed initialize (and which version it got). */
bool mcp_initialized(const struct mcp_server *server);
const char *mcp_protocol_version(const struct mcp_server *server);

/*
 * Send a notifications/message (logging) at level ("debug" ... "emergency")
 * from logger, with data (stolen), unless the client asked
 * (logging/setLevel) for a higher level only. Default threshold: info.
 */
void mcp_log(struct mcp_server *server, const char *level, const char *logger,
    json_t *data);

/*
 * Send notifications/resources/updated for uri when the client subscribed
 * to it. Returns whether it was sent.
 */
bool mcp_resource_updated(struct mcp_server *server, const char *uri);

/*
 * A CallToolResult for a failure: isError true, one text content. New
 * reference.
 */
json_t *mcp_tool_error(const char *message);

/*
 * Every valid JSON message is decoded, also those with a string holding
 * "\u0000" (strings may hold NUL bytes: json_string_length() tells) and
 * with numbers beyond what jansson holds (an integer beyond json_int_t, a
 * real beyond a double): each such number is decoded as a string marking
 * it, which this returns the number of, as written (NULL for any other
 * value). The owner refuses such values where they reach a tool.
 */
const char *mcp_big_number(const json_t *value);

#endif
