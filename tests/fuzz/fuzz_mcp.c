/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * libFuzzer target for integ/mcp: the JSON-RPC messages an MCP client
 * writes to `daicho mcp`, one per line. Handling must never crash or leak;
 * every message written back is one line of JSON, a JSON-RPC 2.0 object;
 * a request (an object with an id and a method) gets exactly one answer,
 * carrying its id; a notification gets none (the tools here send no
 * notifications of their own).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "integ/mcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct written {
	int count;      /* messages written for the input */
	json_t *last;   /* the last one, parsed */
};

static int
record(void *arg, const char *message, size_t len)
{
	struct written *w = arg;
	json_t *m;

	if (memchr(message, '\n', len) != NULL)
		abort(); /* one message, one line */
	m = json_loadb(message, len, 0, NULL);
	if (!json_is_object(m) ||
	    !json_is_string(json_object_get(m, "jsonrpc")) ||
	    strcmp(json_string_value(json_object_get(m, "jsonrpc")), "2.0") != 0 ||
	    (json_object_get(m, "result") == NULL) ==
	    (json_object_get(m, "error") == NULL))
		abort();
	json_decref(w->last);
	w->last = m;
	w->count++;
	return 0;
}

/* A tool "echo" that returns its arguments; anything else is unknown. */
static json_t *
call_tool(void *arg, const char *name, json_t *arguments)
{
	if (strcmp(name, "echo") != 0)
		return NULL;
	return json_pack("{s:[{s:s, s:s}], s:O, s:b}", "content", "type", "text",
	    "text", "echo", "structuredContent", arguments, "isError", 0);
}

static json_t *
read_resource(void *arg, const char *uri)
{
	if (strcmp(uri, "test://r") != 0)
		return NULL;
	return json_pack("{s:[{s:s, s:s}]}", "contents", "uri", uri, "text", "r");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *tools = json_pack("[{s:s, s:{s:s}}]", "name", "echo",
	    "inputSchema", "type", "object");
	json_t *resources = json_pack("[{s:s, s:s}]", "uri", "test://r", "name",
	    "r");
	struct mcp_handlers handlers = { "fuzz", "1", NULL, tools, resources,
		call_tool, read_resource, NULL, NULL };
	struct written w = { 0, NULL };
	struct mcp_server *server = mcp_server_new(&handlers, record, &w);
	json_t *input = json_loadb((const char *)data, size,
	    JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
	json_t *id = json_object_get(input, "id");
	bool request = json_is_object(input) && id != NULL &&
	    json_is_string(json_object_get(input, "method")) &&
	    (json_is_string(id) || json_is_integer(id));
	bool notification = json_is_object(input) && id == NULL &&
	    json_is_string(json_object_get(input, "method"));

	mcp_handle_message(server, (const char *)data, size);
	if (w.count > 1)
		abort(); /* one message, at most one answer */
	if (notification && w.count != 0 && json_object_get(input, "jsonrpc") &&
	    json_is_string(json_object_get(input, "jsonrpc")) &&
	    strcmp(json_string_value(json_object_get(input, "jsonrpc")), "2.0") == 0)
		abort(); /* a notification is never answered */
	/* A valid request is answered, with its id. */
	if (request && w.count == 1 && !json_equal(json_object_get(w.last, "id"),
	    id) && !json_is_null(json_object_get(w.last, "id")))
		abort();
	json_decref(w.last);
	json_decref(input);
	mcp_server_free(server);
	json_decref(tools);
	json_decref(resources);
	return 0;
}
