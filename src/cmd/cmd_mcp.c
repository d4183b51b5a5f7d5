/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * mcp: daicho as a Model Context Protocol server on stdio (the protocol
 * is integ/mcp.c's). This file holds the one table that maps each tool to
 * the command the CLI runs, with its input schema (typed arguments mapped
 * straight to the command's options and positional arguments, never
 * through a command line) and its output schema (the command's --json).
 * A tool call runs that very command in-process on the server's open
 * ledger (cmd_execute()), so validation, messages and output are the
 * CLI's by construction. Human-only operations (approve, deny, gate rm,
 * release --force, unblock, edit, reopen, config) are not tools.
 *
 * The input schemas are derived from the command table (issue 33): each
 * option of the command is an argument, named after it ('_' for '-'),
 * typed by it (a flag a boolean; a value N, K, ID or IDS a whole number,
 * X a number, else a string; an array when it repeats) and described by
 * its help. The tool table says only what the command table cannot:
 * which commands are tools, their names and descriptions, the positional
 * arguments and text, the options renamed, required, described for a
 * model or left out, and the output schemas. cmd_mcp_check_tools() holds
 * the two tables together (a unit test, and BUG_ON() at the first use).
 *
 * One file because the tool table and the protocol's handlers that read
 * it are one thing.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/msg.h"
#include "integ/mcp.h"
#include "util/alloc.h"
#include "util/bug.h"
#include "util/client.h"
#include "util/strlist.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum mcp_option {
	OPT_LIST_TOOLS,
	OPTION_COUNT
};

#define MCP_SERVER_VERSION "0.1.0"
/* How often an idle server looks for new messages for its agent. */
#define MCP_IDLE_POLL_MS 2000
/* The resource whose updates announce new messages. */
#define INBOX_URI "daicho://inbox"
/*
 * The most message text one inbox answer carries: escaped as JSON (up to 6
 * bytes a byte), it stays well under an MCP client's line (10 MB in the
 * TypeScript SDK).
 */
#define MCP_INBOX_MAX_BYTES (1024 * 1024)

/* The JSON type of a tool argument. */
enum arg_type {
	ARG_FROM_OPTION, /* the option's, as option_type() derives it */
	ARG_STRING,
	ARG_INTEGER,  /* a whole number (ids, counts, priorities) */
	ARG_NUMBER,
	ARG_BOOLEAN,
	ARG_STRINGS,  /* an array of strings */
	ARG_INTEGERS, /* an array of whole numbers */
	ARG_TASKS,    /* an array of task objects (add's batch lines) */
};

/* Where a tool argument goes in the command. */
enum arg_role {
	ROLE_POSITIONAL, /* the next positional argument(s), in table order */
	ROLE_OPTION,     /* --option VALUE, once per array element; in the
			  * table, also a flag (resolved to ROLE_FLAG) */
	ROLE_FLAG,       /* --option, when true */
	ROLE_INPUT,      /* positional "-", and the text is what "-" reads */
	ROLE_INPUT_FILE, /* --option -, and the text is what "-" reads */
	ROLE_BATCH,      /* --option -, "-" reading the objects as JSONL */
};

/*
 * A tool argument. In the tool table, only what the command's options do
 * not say: positional arguments and text, and options renamed, required
 * or described apart (name NULL: the option's name with '_' for '-';
 * type ARG_FROM_OPTION; description NULL: the option's help). The tool's
 * other options are its arguments as the command table says (see
 * resolve_tool()).
 */
struct tool_arg {
	const char *name;        /* the JSON property */
	enum arg_type type;
	enum arg_role role;
	const char *option;      /* the command's option, for the roles that
				    take one */
	bool required;
	const char *description; /* for the model */
};

struct tool {
	const char *name;
	const char *title;
	const char *description;
	const struct cmd_entry *entry;  /* the command the tool runs */
	const struct tool_arg *args;    /* what the options do not say (see
					   struct tool_arg); ends with a
					   zeroed entry, or NULL */
	const char *const *left_out;    /* the command's options that are
					   not arguments; NULL-ended, or NULL */
	const char *output_key;         /* the command's JSON (an array) goes
					   under this key; NULL: it is the
					   object itself, or {"ok": true} when
					   the command prints nothing */
	const char *output_schema;      /* JSON text: structuredContent's */
	bool read_only, destructive, idempotent;
	int64_t default_limit;          /* ls: --limit when none is given */
};

#define ID_ARG(what) { "id", ARG_INTEGER, ROLE_POSITIONAL, NULL, true, what }
/* An option argument described apart from the option's help. */
#define DESCRIBED(option, what)                                               \
	{ NULL, ARG_FROM_OPTION, ROLE_OPTION, option, false, what }
/* An option argument the tool requires. */
#define REQUIRED(option)                                                      \
	{ NULL, ARG_FROM_OPTION, ROLE_OPTION, option, true, NULL }

/* JSON schemas of what the commands print (see each command's --help). */
#define OK_SCHEMA                                                              \
	"{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}},"   \
	"\"required\":[\"ok\"]}"
#define NULLABLE(t) "{\"type\":[\"" t "\",\"null\"]}"
#define TASK_PROPERTIES                                                        \
	"\"id\":{\"type\":\"integer\"},\"title\":{\"type\":\"string\"},"         \
	"\"state\":{\"type\":\"string\",\"enum\":[\"open\",\"claimed\","         \
	"\"reported\",\"verified\",\"blocked\",\"cancelled\",\"failed\"]},"      \
	"\"priority\":{\"type\":\"integer\"},\"parent\":" NULLABLE("integer")    \
	",\"owner\":" NULLABLE("string") ",\"lease_expires_ms\":"               \
	NULLABLE("integer") ",\"max_hold_ms\":" NULLABLE("integer")             \
	",\"claim_named_ms\":" NULLABLE("integer") ",\"claim_base\":"           \
	NULLABLE("string") ",\"attempts\":{\"type\":\"integer\"},"              \
	"\"max_attempts\":{\"type\":\"integer\"},\"after\":{\"type\":\"array\"," \
	"\"items\":{\"type\":\"integer\"}},\"unmet_after\":{\"type\":"          \
	"\"integer\"},\"labels\":{\"type\":\"array\",\"items\":{\"type\":"       \
	"\"string\"}},\"touches\":{\"type\":\"array\",\"items\":{\"type\":"      \
	"\"string\"}},\"protect\":{\"type\":\"array\",\"items\":{\"type\":"      \
	"\"string\"}},\"done_when\":{\"type\":\"array\",\"items\":{\"type\":"    \
	"\"string\"}},\"checks_version\":{\"type\":\"integer\"},"               \
	"\"check_timeout_ms\":" NULLABLE("integer") ",\"body_bytes\":{\"type\":" \
	"\"integer\"},\"saves\":{\"type\":\"integer\"},\"result_bytes\":"       \
	NULLABLE("integer") ",\"commit\":" NULLABLE("string") ",\"note\":"      \
	NULLABLE("string") ",\"block_reason\":" NULLABLE("string")              \
	",\"created_ms\":{\"type\":\"integer\"},\"updated_ms\":{\"type\":"       \
	"\"integer\"}"
#define TASK_REQUIRED "\"required\":[\"id\",\"title\",\"state\",\"owner\"]"
#define ARRAY_OF_OBJECTS "{\"type\":\"array\",\"items\":{\"type\":\"object\"}}"

static const char *const task_item_schema =
    "{\"type\":\"object\",\"required\":[\"title\"],\"properties\":{"
    "\"title\":{\"type\":\"string\",\"description\":\"one line\"},"
    "\"body\":{\"type\":\"string\",\"description\":\"the prompt\"},"
    "\"priority\":{\"type\":\"integer\"},"
    "\"max_attempts\":{\"type\":\"integer\"},"
    "\"labels\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"touches\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"protect\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"done_when\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"check_timeout\":{\"type\":\"string\",\"description\":\"e.g. 90s\"},"
    "\"after\":{\"type\":\"array\",\"items\":{\"anyOf\":[{\"type\":"
    "\"integer\"},{\"type\":\"string\"}]},\"description\":\"task ids, or "
    "keys of other tasks of this batch\"},"
    "\"parent\":{\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"string\"}]},"
    "\"key\":{\"type\":\"string\",\"description\":\"a name other tasks of "
    "the batch use in after and parent\"}}}";

static const struct tool tools[] = {
	{ "claim", "Claim a task",
	  "Take a task for yourself with a lease: the task with this id, or with "
	  "next the first ready one (highest priority, then oldest), optionally "
	  "only among tasks labelled label. Exactly one claimer wins. Returns the "
	  "claimed id. Fails, saying why, when the task is held by another agent "
	  "(named), waits on unverified tasks, or nothing is ready. Claiming a "
	  "task you hold renews its lease.",
	  &cmd_claim_entry,
	  (const struct tool_arg[]){
	      { "id", ARG_INTEGER, ROLE_POSITIONAL, NULL, false,
		"the task to claim (give id, or next: true)" },
	      DESCRIBED("label", "with next: only tasks labelled this"),
	      DESCRIBED("lease", "lease length, e.g. 30m (default: the "
		  "ledger's, 30m)"),
	      DESCRIBED("max-hold", "how long the claim lives without a call "
		  "naming the task, e.g. 2h (default three leases)"),
	      { 0 } },
	  NULL,
	  NULL,
	  "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"}},"
	  "\"required\":[\"id\"]}",
	  false, false, false, 0 },
	{ "prompt", "Read a task's prompt",
	  "The task's body (its prompt), exactly as added. Fetch your own prompt "
	  "after claiming.",
	  &cmd_prompt_entry,
	  (const struct tool_arg[]){ ID_ARG("the task"), { 0 } },
	  NULL,
	  NULL,
	  "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
	  "\"bytes\":{\"type\":\"integer\"},\"body\":{\"type\":\"string\"},"
	  "\"body_base64\":{\"type\":\"string\"}},\"required\":[\"id\","
	  "\"bytes\"]}",
	  true, false, true, 0 },
	{ "save", "Save a task's result",
	  "Store the result of a task you hold (replacing an earlier save), with "
	  "the usage it cost. Only the holder may save.",
	  &cmd_save_entry,
	  (const struct tool_arg[]){
	      ID_ARG("the task you hold"),
	      { "text", ARG_STRING, ROLE_INPUT_FILE, "file", true,
		"the result" },
	      { 0 } },
	  NULL,
	  NULL, OK_SCHEMA, false, false, true, 0 },
	{ "report", "Report a task done",
	  "Say that a task you hold is done: it then awaits verification, which "
	  "alone makes it count as done. In a git repository, a task whose "
	  "checks look at files needs commit (verification sees only committed "
	  "work).",
	  &cmd_report_entry,
	  (const struct tool_arg[]){
	      ID_ARG("the task you hold"),
	      DESCRIBED("commit", "the commit with the work (a hash, branch or "
		  "HEAD)"),
	      { 0 } },
	  NULL,
	  NULL, OK_SCHEMA, false, false, false, 0 },
	{ "release", "Release a task",
	  "Give back a task you hold (claimed or blocked): it is open again, and "
	  "the attempt is not counted.",
	  &cmd_release_entry,
	  (const struct tool_arg[]){ ID_ARG("the task you hold"), { 0 } },
	  (const char *const[]){ "force", NULL },
	  NULL, OK_SCHEMA, false, false, false, 0 },
	{ "block", "Block a task on a human",
	  "Mark a task you hold blocked: it needs a person, for the reason "
	  "given. It keeps its owner.",
	  &cmd_block_entry,
	  (const struct tool_arg[]){
	      ID_ARG("the task you hold"), REQUIRED("reason"), { 0 } },
	  NULL,
	  NULL, OK_SCHEMA, false, false, false, 0 },
	{ "ls", "List tasks",
	  "List tasks in id order, with filters. ready lists exactly what claim "
	  "with next would take, in its order. At most limit tasks (default "
	  "200).",
	  &cmd_ls_entry,
	  (const struct tool_arg[]){
	      DESCRIBED("state", "open, claimed, reported, verified, blocked, "
		  "cancelled or failed"),
	      DESCRIBED("ready", "only tasks claim next could take"),
	      DESCRIBED("label", "only tasks with this label"),
	      DESCRIBED("created-since", "only tasks added within this long, "
		  "e.g. 1h"),
	      DESCRIBED("limit", "at most this many (default 200)"),
	      { 0 } },
	  NULL,
	  "tasks",
	  "{\"type\":\"object\",\"properties\":{\"tasks\":{\"type\":\"array\","
	  "\"items\":{\"type\":\"object\",\"properties\":{" TASK_PROPERTIES "},"
	  TASK_REQUIRED "}}},\"required\":[\"tasks\"]}",
	  true, false, true, 200 },
	{ "show", "Show a task",
	  "One task: state, owner, lease, edges, checks, and the evidence of its "
	  "last verdict.",
	  &cmd_show_entry,
	  (const struct tool_arg[]){ ID_ARG("the task"), { 0 } },
	  NULL,
	  NULL,
	  "{\"type\":\"object\",\"properties\":{" TASK_PROPERTIES
	  ",\"last_verdict\":" NULLABLE("object") "}," TASK_REQUIRED "}",
	  true, false, true, 0 },
	{ "result", "Read a task's result",
	  "The latest saved result of a task, exactly as saved.",
	  &cmd_result_entry,
	  (const struct tool_arg[]){ ID_ARG("the task"), { 0 } },
	  NULL,
	  NULL,
	  "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
	  "\"bytes\":{\"type\":\"integer\"},\"result\":{\"type\":\"string\"},"
	  "\"result_base64\":{\"type\":\"string\"}},\"required\":[\"id\","
	  "\"bytes\"]}",
	  true, false, true, 0 },
	{ "add", "Add tasks",
	  "Add one task (title and its fields) or many at once (tasks: all or "
	  "none, in one transaction). Returns the new id, or ids for tasks.",
	  &cmd_add_entry,
	  (const struct tool_arg[]){
	      { "title", ARG_STRING, ROLE_POSITIONAL, NULL, false,
		"one line (give title, or tasks)" },
	      DESCRIBED("touches", "path globs the task edits; overlapping "
		  "tasks are never claimed at once"),
	      DESCRIBED("done-when", "checks that must pass: file:PATH, "
		  "cmd:SHELL, saved, commit"),
	      { "labels", ARG_FROM_OPTION, ROLE_OPTION, "label", false,
		"labels (with tasks: added to every task)" },
	      { "tasks", ARG_TASKS, ROLE_BATCH, "batch", false,
		"many tasks, added all or none: objects with title (required), "
		"body, priority, max_attempts, labels, touches, protect, "
		"done_when, check_timeout, after, parent, key" },
	      { 0 } },
	  (const char *const[]){ "body-file", "no-baseline", "check-needs",
	      NULL },
	  NULL,
	  "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
	  "\"ids\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}}}",
	  false, false, false, 0 },
	{ "send", "Send a message",
	  "Send a message to an agent by name, or to every live holder of a role "
	  "with to: \"role:ROLE\". An ended or stale recipient is refused, saying "
	  "when it was last seen and who holds its role now, unless queue. "
	  "reply_to answers a message you received (to defaults to its sender).",
	  &cmd_send_entry,
	  (const struct tool_arg[]){
	      { "to", ARG_STRING, ROLE_POSITIONAL, NULL, false,
		"an agent name, or role:ROLE (needed unless reply_to)" },
	      { "text", ARG_STRING, ROLE_INPUT, NULL, true, "the message" },
	      DESCRIBED("reply-to", "the id of the message this answers"),
	      { 0 } },
	  NULL,
	  "sent",
	  "{\"type\":\"object\",\"properties\":{\"sent\":{\"type\":\"array\","
	  "\"items\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":"
	  "\"integer\"},\"to\":{\"type\":\"string\"},\"recipient_seen_ms\":"
	  NULLABLE("integer") ",\"queued\":{\"type\":\"boolean\"}},"
	  "\"required\":[\"id\",\"to\"]}}},\"required\":[\"sent\"]}",
	  false, false, false, 0 },
	{ "inbox", "Read your messages",
	  "Your unread messages, oldest first, marked read (peek leaves them "
	  "unread): at most 1 MiB of text per call, the rest left for the next "
	  "call; a longer message is cut (truncated: true, bytes: its length).",
	  &cmd_inbox_entry,
	  NULL, (const char *const[]){ "ack", NULL },
	  "messages",
	  "{\"type\":\"object\",\"properties\":{\"messages\":{\"type\":"
	  "\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"id\":"
	  "{\"type\":\"integer\"},\"from\":" NULLABLE("string") ",\"to\":"
	  NULLABLE("string") ",\"addressed_to\":" NULLABLE("string")
	  ",\"kind\":{\"type\":\"string\"},\"text\":{\"type\":\"string\"},"
	  "\"sent_ms\":{\"type\":\"integer\"},\"recipient_seen_ms\":"
	  NULLABLE("integer") ",\"queued\":{\"type\":\"boolean\"},"
	  "\"bytes\":{\"type\":\"integer\"},\"truncated\":{\"type\":"
	  "\"boolean\"},\"reply_to\":" NULLABLE("integer") ",\"thread\":"
	  "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":"
	  "{\"id\":{\"type\":\"integer\"},\"from\":" NULLABLE("string")
	  ",\"text\":{\"type\":\"string\"},\"sent_ms\":{\"type\":"
	  "\"integer\"}}}}},"
	  "\"required\":[\"id\",\"text\"]}}},\"required\":[\"messages\"]}",
	  false, false, false, 0 },
	{ "wait", "Record that you wait",
	  "Put yourself in the waiting state: for each thing waited for (free "
	  "text, or a task as #12), with the agent who asked you to wait as "
	  "owner. The owner is reminded past remind.",
	  &cmd_wait_entry,
	  (const struct tool_arg[]){
	      REQUIRED("for"),
	      DESCRIBED("owner", "the agent who asked you to wait (none: the "
		  "human)"),
	      { 0 } },
	  NULL,
	  NULL,
	  "{\"type\":\"object\",\"properties\":{\"wait\":{\"type\":"
	  "\"integer\"}},\"required\":[\"wait\"]}",
	  false, false, false, 0 },
	{ "resume", "End your wait",
	  "End your open wait wait (or all of them); with none left you are "
	  "active again.",
	  &cmd_resume_entry,
	  (const struct tool_arg[]){
	      { "wait", ARG_INTEGER, ROLE_POSITIONAL, NULL, false,
		"the wait to end (default: all yours)" },
	      { 0 } },
	  NULL,
	  NULL,
	  "{\"type\":\"object\",\"properties\":{\"ended\":{\"type\":"
	  "\"integer\"}},\"required\":[\"ended\"]}",
	  false, false, false, 0 },
	{ "reserve", "Reserve paths",
	  "Hold path globs exclusively while you edit them, all or nothing. A "
	  "glob overlapping one held by another live agent is refused, naming "
	  "the holder.",
	  &cmd_reserve_entry,
	  (const struct tool_arg[]){
	      { "globs", ARG_STRINGS, ROLE_POSITIONAL, NULL, true,
		"path globs relative to the repository root (*, **, ?, [a-z])" },
	      { 0 } },
	  NULL,
	  NULL, OK_SCHEMA, false, false, true, 0 },
	{ "unreserve", "Release reservations",
	  "Release your reservations of exactly these globs, or all of them.",
	  &cmd_unreserve_entry,
	  (const struct tool_arg[]){
	      { "globs", ARG_STRINGS, ROLE_POSITIONAL, NULL, false,
		"the globs to release (or all: true)" },
	      { 0 } },
	  NULL,
	  NULL,
	  "{\"type\":\"object\",\"properties\":{\"released\":{\"type\":"
	  "\"integer\"}},\"required\":[\"released\"]}",
	  false, false, false, 0 },
	{ "status", "The ledger at a glance",
	  "What needs a human (each item with the commands that resolve it), "
	  "the live agents, task counts per state and recent events.",
	  &cmd_status_entry,
	  NULL, (const char *const[]){ "all", "watch", NULL },
	  NULL,
	  "{\"type\":\"object\",\"properties\":{\"now_ms\":{\"type\":"
	  "\"integer\"},\"needs_you\":" ARRAY_OF_OBJECTS ",\"agents\":"
	  ARRAY_OF_OBJECTS ",\"tasks\":{\"type\":\"object\"},\"events\":"
	  ARRAY_OF_OBJECTS "},\"required\":[\"now_ms\",\"needs_you\","
	  "\"agents\",\"tasks\",\"events\"]}",
	  true, false, true, 0 },
	{ "handoff", "Brief a successor",
	  "Everything a successor coordinator needs, from the ledger alone: live "
	  "agents, open waits, claims, unread messages, reported and rejected "
	  "tasks, recent decisions. to hands your open waits and role to that "
	  "live agent.",
	  &cmd_handoff_entry,
	  (const struct tool_arg[]){
	      DESCRIBED("from", "yourself only: this server acts as you (a "
		  "person briefs on another agent from the command line)"),
	      { 0 } },
	  NULL,
	  NULL,
	  "{\"type\":\"object\",\"properties\":{\"now_ms\":{\"type\":"
	  "\"integer\"},\"from\":" NULLABLE("string") ",\"role\":"
	  NULLABLE("string") ",\"agents\":" ARRAY_OF_OBJECTS ",\"waits\":"
	  ARRAY_OF_OBJECTS ",\"claims\":" ARRAY_OF_OBJECTS ",\"unread\":"
	  ARRAY_OF_OBJECTS ",\"reported\":" ARRAY_OF_OBJECTS ",\"rejected\":"
	  ARRAY_OF_OBJECTS ",\"decisions\":" ARRAY_OF_OBJECTS ",\"to\":{"
	  "\"type\":\"string\"},\"waits_moved\":{\"type\":\"integer\"}},"
	  "\"required\":[\"now_ms\",\"agents\",\"waits\",\"claims\"]}",
	  false, false, false, 0 },
};

#define TOOL_COUNT (sizeof(tools) / sizeof(tools[0]))

/*
 * The JSON type of option's argument, from the command table: a flag is a
 * boolean; a value named N, K, ID or IDS a whole number, X a number, any
 * other a string; an array of those when the option repeats.
 */
static enum arg_type
option_type(const struct cmd_option *option)
{
	static const char *const integers[] = { "N", "K", "ID", "IDS" };
	const char *v = option->value_name;
	bool repeats = option->flags & CMD_OPTION_REPEATS;
	bool integer = false;

	if (v == NULL)
		return ARG_BOOLEAN;
	for (size_t i = 0; i < sizeof(integers) / sizeof(integers[0]); i++)
		integer = integer || strcmp(v, integers[i]) == 0;
	if (integer)
		return repeats ? ARG_INTEGERS : ARG_INTEGER;
	if (strcmp(v, "X") == 0 && !repeats)
		return ARG_NUMBER;
	return repeats ? ARG_STRINGS : ARG_STRING;
}

/* Whether name is in list (NULL-ended, or NULL). */
static bool
listed(const char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (strcmp(*list, name) == 0)
			return true;
	return false;
}

/* Whether table entry a agrees with o, the option it names (or NULL). */
static bool
arg_agrees(const struct tool_arg *a, const struct cmd_option *o)
{
	switch (a->role) {
	case ROLE_POSITIONAL:
	case ROLE_INPUT:
		return o == NULL && a->type != ARG_FROM_OPTION;
	case ROLE_OPTION:
	case ROLE_FLAG:
		return o != NULL && (a->type == ARG_FROM_OPTION ||
		    a->type == option_type(o));
	case ROLE_INPUT_FILE:
		return o != NULL && o->value_name != NULL &&
		    a->type == ARG_STRING;
	case ROLE_BATCH:
		return o != NULL && o->value_name != NULL &&
		    a->type == ARG_TASKS;
	}
	return false;
}

/*
 * Check tool's table entries against its command's options: every option
 * an entry or left_out names is the command's, none is both, and each
 * entry's role and type agree with its option (arg_agrees()). Returns 0,
 * or ERR_FAILED naming the tool and the argument.
 */
static int
check_tool(const struct tool *tool, struct err *err)
{
	for (const char *const *name = tool->left_out; name && *name; name++)
		if (cmd_find_option(tool->entry, *name) == NULL)
			return err_set(err, ERR_FAILED, "tool %s leaves out "
			    "--%s, which %s has not", tool->name, *name,
			    tool->entry->name);
	for (const struct tool_arg *a = tool->args; a && (a->name || a->option);
	     a++) {
		const struct cmd_option *o = a->option ?
		    cmd_find_option(tool->entry, a->option) : NULL;
		const char *what = a->name ? a->name : a->option;

		if (a->option &&
		    (o == NULL || listed(tool->left_out, a->option)))
			return err_set(err, ERR_FAILED, "tool %s: argument %s "
			    "names --%s, which %s has not (or the tool leaves out)",
			    tool->name, what, a->option, tool->entry->name);
		if (!arg_agrees(a, o))
			return err_set(err, ERR_FAILED, "tool %s: argument %s's "
			    "type or role disagrees with %s", tool->name, what,
			    o ? o->name : "what it maps to");
	}
	return 0;
}

/* tool's table entry for the option called name, or NULL. */
static const struct tool_arg *
entry_for_option(const struct tool *tool, const char *name)
{
	for (const struct tool_arg *a = tool->args; a && (a->name || a->option);
	     a++)
		if (a->option && strcmp(a->option, name) == 0)
			return a;
	return NULL;
}

/*
 * The argument for option o: its table entry's fields where given (from,
 * or NULL), the option's otherwise: its name with '_' for '-' (a new
 * string, owned by the argument), its type, flag or option, its help.
 */
static struct tool_arg
option_arg(const struct cmd_option *o, const struct tool_arg *from)
{
	struct tool_arg arg = { 0 };
	char *name;

	if (from != NULL)
		arg = *from;
	if (arg.name == NULL) {
		arg.name = name = xstrdup(o->name);
		for (; *name; name++)
			if (*name == '-')
				*name = '_';
	}
	if (arg.type == ARG_FROM_OPTION)
		arg.type = option_type(o);
	if (from == NULL || from->role == ROLE_OPTION)
		arg.role = o->value_name ? ROLE_OPTION : ROLE_FLAG;
	arg.option = o->name;
	if (arg.description == NULL)
		arg.description = o->help;
	return arg;
}

/*
 * tool's arguments: its table entries that name no option (positional
 * arguments, text) first, then every option of its command, in table
 * order, that it does not leave out (option_arg()). A new array ending
 * with a zeroed entry, kept (with its names) for the process's life.
 */
static struct tool_arg *
resolve_tool(const struct tool *tool)
{
	size_t count = 0, alloc = 0, pos = 0;
	struct tool_arg *args = NULL;
	const struct cmd_option *o;

	for (const struct tool_arg *a = tool->args; a && (a->name || a->option);
	     a++)
		if (a->option == NULL) {
			xgrow((void **)&args, &alloc, count + 1, sizeof(*args));
			args[count++] = *a;
		}
	while ((o = cmd_next_option(tool->entry, &pos)) != NULL)
		if (!listed(tool->left_out, o->name)) {
			xgrow((void **)&args, &alloc, count + 1, sizeof(*args));
			args[count++] = option_arg(o,
			    entry_for_option(tool, o->name));
		}
	xgrow((void **)&args, &alloc, count + 1, sizeof(*args));
	memset(&args[count], 0, sizeof(*args));
	return args;
}

/*
 * tool's arguments (resolve_tool()), resolved at the first call. A table
 * that disagrees with the command table (check_tool()) is a BUG_ON():
 * every test of the MCP server finds it, and so does the unit test of
 * cmd_mcp_check_tools().
 */
static const struct tool_arg *
tool_args(const struct tool *tool)
{
	static struct tool_arg *resolved[TOOL_COUNT];
	size_t i = (size_t)(tool - tools);
	struct err err = ERR_INIT;

	if (resolved[i] == NULL) {
		BUG_ON(check_tool(tool, &err) < 0, "%s", err.message.buf);
		resolved[i] = resolve_tool(tool);
	}
	return resolved[i];
}

int
cmd_mcp_check_tools(struct err *err)
{
	int rc;

	for (size_t i = 0; i < TOOL_COUNT; i++)
		if ((rc = check_tool(&tools[i], err)) < 0)
			return rc;
	return 0;
}

static const char server_instructions[] =
    "daicho is the task ledger this project's agents share. To work: claim "
    "(next: true, or an id), read its prompt, do the work, save the result, "
    "then report it (with commit when the task's checks look at files); "
    "release or block a task you cannot finish. Messages: send, inbox (you "
    "are told when unread ones wait). Every call renews your claims' "
    "leases. A failed call says why in daicho's one line: what, why, what "
    "to do.";

/* The resident server's state, shared by every call. */
struct mcp_state {
	struct cmd_ctx *base;       /* the mcp command's own context */
	struct ledger *ledger;      /* open for the server's life */
	json_t *tool_list;          /* tools/list's array */
	json_t *resource_list;      /* resources/list's array */
	char *agent_name;           /* the caller of the last call, once
				       known */
	int64_t agent_id;           /* its id; for a named server (--as,
				       $DAICHO_AGENT) the first one, kept */
	bool ended;                 /* the named server's agent ended */
	int64_t notified_message;   /* newest message id announced */
	size_t unread;              /* unread messages after the last call */
	bool unread_news;           /* messages newer than notified_message */
	int out_fd;                 /* the protocol's output */
};

/* Whether value has the JSON type an argument of type takes. */
static bool
type_matches(enum arg_type type, const json_t *value)
{
	const json_t *item;
	size_t i;

	switch (type) {
	case ARG_FROM_OPTION: /* resolved away: tool_args() */
		return false;
	case ARG_STRING:
		return json_is_string(value);
	case ARG_INTEGER:
		return json_is_integer(value);
	case ARG_NUMBER:
		return json_is_number(value);
	case ARG_BOOLEAN:
		return json_is_boolean(value);
	case ARG_STRINGS:
	case ARG_INTEGERS:
	case ARG_TASKS:
		if (!json_is_array(value))
			return false;
		json_array_foreach(value, i, item)
			if (!(type == ARG_STRINGS ? json_is_string(item) :
			    type == ARG_INTEGERS ? json_is_integer(item) :
			    json_is_object(item)))
				return false;
		return true;
	}
	return false;
}

/* How an error message names what an argument of type must be. */
static const char *
type_name(enum arg_type type)
{
	static const char *const names[] = { [ARG_STRING] = "a string",
		[ARG_INTEGER] = "an integer", [ARG_NUMBER] = "a number",
		[ARG_BOOLEAN] = "a boolean (true or false)",
		[ARG_STRINGS] = "an array of strings",
		[ARG_INTEGERS] = "an array of integers",
		[ARG_TASKS] = "an array of task objects" };

	return names[type];
}

/* The JSON Schema of one argument. New reference. */
static json_t *
arg_schema(const struct tool_arg *arg)
{
	static const char *const json_types[] = { [ARG_STRING] = "string",
		[ARG_INTEGER] = "integer", [ARG_NUMBER] = "number",
		[ARG_BOOLEAN] = "boolean" };
	json_t *schema;

	switch (arg->type) {
	case ARG_STRINGS:
	case ARG_INTEGERS:
		schema = json_pack("{s:s, s:{s:s}}", "type", "array", "items", "type",
		    arg->type == ARG_STRINGS ? "string" : "integer");
		if (arg->required)
			json_object_set_new(schema, "minItems", json_integer(1));
		break;
	case ARG_TASKS:
		schema = json_pack("{s:s, s:o, s:i}", "type", "array", "items",
		    json_loads(task_item_schema, 0, NULL), "minItems", 1);
		break;
	default:
		schema = json_pack("{s:s}", "type", json_types[arg->type]);
		break;
	}
	if (arg->type == ARG_INTEGER && arg->role == ROLE_POSITIONAL)
		json_object_set_new(schema, "minimum", json_integer(1));
	json_object_set_new(schema, "description", json_string(arg->description));
	return schema;
}

/* A tool's definition for tools/list. New reference. */
static json_t *
tool_definition(const struct tool *tool)
{
	json_t *properties = json_object(), *required = json_array(), *input;
	json_error_t jerr;
	json_t *output = json_loads(tool->output_schema, 0, &jerr);

	if (output == NULL) {
		/* A typo in the table above: every test run finds it. */
		fprintf(stderr, "daicho: internal: output schema of tool %s: %s\n",
		    tool->name, jerr.text);
		abort();
	}
	for (const struct tool_arg *a = tool_args(tool); a->name; a++) {
		json_object_set_new(properties, a->name, arg_schema(a));
		if (a->required)
			json_array_append_new(required, json_string(a->name));
	}
	input = json_pack("{s:s, s:o, s:b}", "type", "object", "properties",
	    properties, "additionalProperties", 0);
	if (json_array_size(required) > 0)
		json_object_set_new(input, "required", required);
	else
		json_decref(required);
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:{s:s, s:b, s:b, s:b, s:b}}",
	    "name", tool->name, "title", tool->title, "description",
	    tool->description, "inputSchema", input, "outputSchema", output,
	    "annotations", "title", tool->title, "readOnlyHint", tool->read_only,
	    "destructiveHint", tool->destructive, "idempotentHint",
	    tool->idempotent, "openWorldHint", 0);
}

/* Every tool's definition, as tools/list returns them. New reference. */
static json_t *
tool_list(void)
{
	json_t *list = json_array();

	for (size_t i = 0; i < TOOL_COUNT; i++)
		json_array_append_new(list, tool_definition(&tools[i]));
	return list;
}

/*
 * Check that value (argument key of tool, or something inside it) holds
 * nothing daicho cannot take: a number beyond 64 bits or a double (see
 * mcp_big_number()), a string with a NUL byte. Returns 0, or ERR_USAGE.
 */
static int
check_value(const struct tool *tool, const char *key, const json_t *value,
    struct err *err)
{
	const char *big = mcp_big_number(value), *name;
	const json_t *item;
	size_t i;
	int rc = 0;

	if (big != NULL)
		return err_set(err, ERR_USAGE, "argument '%s' of tool %s: %s is out "
		    "of range (a whole number from -9223372036854775808 to "
		    "9223372036854775807, or a number a double holds)", key,
		    tool->name, big);
	if (json_is_string(value) &&
	    strlen(json_string_value(value)) != json_string_length(value))
		return err_set(err, ERR_USAGE, "argument '%s' of tool %s contains a "
		    "NUL byte (\\u0000), which daicho text never holds", key,
		    tool->name);
	if (json_is_array(value))
		json_array_foreach(value, i, item)
			if ((rc = check_value(tool, key, item, err)) < 0)
				return rc;
	if (json_is_object(value))
		json_object_foreach((json_t *)value, name, item)
			if ((rc = check_value(tool, key, item, err)) < 0)
				return rc;
	return rc;
}

/*
 * Arguments with each whole number written as a real (1.0, 2e3) an
 * integer, as JSON Schema counts it: an integer argument takes it. New
 * reference.
 */
static json_t *
integral_reals_as_integers(json_t *value)
{
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_real(value)) {
		double v = json_real_value(value);

		if (v >= -9223372036854775808.0 && v < 9223372036854775808.0 &&
		    (double)(json_int_t)v == v)
			return json_integer((json_int_t)v);
		return json_incref(value);
	}
	if (json_is_array(value)) {
		json_t *copy = json_array();

		json_array_foreach(value, i, item)
			json_array_append_new(copy, integral_reals_as_integers(item));
		return copy;
	}
	if (json_is_object(value)) {
		json_t *copy = json_object();

		json_object_foreach(value, key, item)
			json_object_set_new(copy, key, integral_reals_as_integers(item));
		return copy;
	}
	return json_incref(value);
}

/*
 * Check arguments against tool's arguments: no unknown property, each of
 * the right type, the required ones there. Returns 0, or ERR_USAGE saying
 * what is wrong.
 */
static int
check_arguments(const struct tool *tool, json_t *arguments, struct err *err)
{
	struct buf names = BUF_INIT;
	const char *key;
	json_t *value;
	int rc = 0;

	for (const struct tool_arg *a = tool_args(tool); a->name; a++)
		buf_addf(&names, "%s%s", names.len ? ", " : "", a->name);
	json_object_foreach(arguments, key, value) {
		const struct tool_arg *a = tool_args(tool);

		while (a->name && strcmp(a->name, key) != 0)
			a++;
		if (a->name == NULL) {
			rc = err_set(err, ERR_USAGE, "unknown argument '%s' for tool %s "
			    "(its arguments: %s)", key, tool->name,
			    names.len ? names.buf : "none");
			goto done;
		}
		if ((rc = check_value(tool, key, value, err)) < 0)
			goto done;
		if (!type_matches(a->type, value) && !json_is_null(value)) {
			rc = err_set(err, ERR_USAGE, "argument '%s' of tool %s must be %s",
			    key, tool->name, type_name(a->type));
			goto done;
		}
	}
	for (const struct tool_arg *a = tool_args(tool); a->name; a++) {
		value = json_object_get(arguments, a->name);
		if (a->required && (value == NULL || json_is_null(value))) {
			rc = err_set(err, ERR_USAGE, "missing argument '%s' for tool %s "
			    "(%s: %s)", a->name, tool->name, a->name, a->description);
			goto done;
		}
	}
done:
	buf_release(&names);
	return rc;
}

/* The text of a scalar argument value, kept in owned until the call ends. */
static const char *
value_text(const json_t *value, struct strlist *owned)
{
	char text[64];

	if (json_is_string(value))
		return json_string_value(value);
	if (json_is_integer(value))
		snprintf(text, sizeof(text), "%lld",
		    (long long)json_integer_value(value));
	else
		snprintf(text, sizeof(text), "%.17g", json_number_value(value));
	strlist_add(owned, text);
	return owned->items[owned->count - 1];
}

/* What one call puts into a command context, owned until the call ends. */
struct call_args {
	struct strlist owned;      /* texts of numbers */
	struct strlist positional; /* argv */
	struct buf input;          /* what "-" reads */
};

/* Map arguments (checked) onto ctx's options, positionals and input. */
static void
map_arguments(const struct tool *tool, json_t *arguments, struct cmd_ctx *ctx,
    struct call_args *call)
{
	for (const struct tool_arg *a = tool_args(tool); a->name; a++) {
		json_t *value = json_object_get(arguments, a->name), *item;
		const struct cmd_option *option = a->option ?
		    cmd_find_option(ctx->entry, a->option) : NULL;
		size_t i;

		if (value == NULL || json_is_null(value))
			continue;
		switch (a->role) {
		case ROLE_POSITIONAL:
			if (json_is_array(value))
				json_array_foreach(value, i, item)
					strlist_add(&call->positional,
					    value_text(item, &call->owned));
			else
				strlist_add(&call->positional,
				    value_text(value, &call->owned));
			break;
		case ROLE_OPTION:
			if (json_is_array(value))
				json_array_foreach(value, i, item)
					cmd_add_value(ctx, option,
					    value_text(item, &call->owned));
			else
				cmd_add_value(ctx, option, value_text(value,
				    &call->owned));
			break;
		case ROLE_FLAG:
			if (json_is_true(value))
				cmd_add_value(ctx, option, NULL);
			break;
		case ROLE_INPUT:
			buf_adds(&call->input, json_string_value(value));
			strlist_add(&call->positional, "-");
			ctx->input = &call->input;
			break;
		case ROLE_INPUT_FILE:
			buf_adds(&call->input, json_string_value(value));
			cmd_add_value(ctx, option, "-");
			ctx->input = &call->input;
			break;
		case ROLE_BATCH:
			json_array_foreach(value, i, item) {
				char *line = json_dumps(item, JSON_COMPACT);

				buf_adds(&call->input, line);
				buf_addch(&call->input, '\n');
				free(line);
			}
			cmd_add_value(ctx, option, "-");
			ctx->input = &call->input;
			break;
		}
	}
	if (tool->default_limit > 0 && !cmd_has_named(ctx, "limit")) {
		char text[32];

		snprintf(text, sizeof(text), "%lld", (long long)tool->default_limit);
		strlist_add(&call->owned, text);
		cmd_add_value(ctx, cmd_find_option(ctx->entry, "limit"),
		    call->owned.items[call->owned.count - 1]);
	}
	strlist_argv(&call->positional); /* NULL-ended, as main()'s argv */
	ctx->argv = call->positional.items;
	ctx->argc = (int)call->positional.count;
}

/* A fresh context for one command, with the server's identity and ledger. */
static void
call_context(struct mcp_state *state, const struct cmd_entry *entry,
    struct cmd_ctx *ctx, struct err *err)
{
	const struct cmd_ctx *base = state->base;

	memset(ctx, 0, sizeof(*ctx));
	ctx->entry = entry;
	ctx->ledger = state->ledger;
	ctx->ledger_path = base->ledger_path; /* borrowed, never released here */
	ctx->claim = base->claim;
	ctx->explicit_agent = base->explicit_agent;
	ctx->session_id = base->session_id;
	ctx->session_kind = base->session_kind;
	ctx->json = true;
	ctx->stdin_closed = true; /* stdin is the protocol */
	ctx->captured = json_array();
	ctx->max_text_bytes = MCP_INBOX_MAX_BYTES;
	ctx->err = err;
}

/*
 * After a call: remember who the caller was (for the notifications), and
 * forget the call's caller, which the ledger must not beat for again.
 */
static void
end_call(struct mcp_state *state, struct cmd_ctx *ctx, struct call_args *call)
{
	bool pinned = state->base->claim.name != NULL && state->agent_id != 0;

	if (ctx->caller.name != NULL && ctx->caller.id != 0 && !pinned &&
	    (state->agent_name == NULL || strcmp(state->agent_name,
	    ctx->caller.name) != 0 || state->agent_id != ctx->caller.id)) {
		free(state->agent_name);
		state->agent_name = xstrdup(ctx->caller.name);
		state->agent_id = ctx->caller.id;
		state->notified_message = 0;
	}
	ledger_set_begin_hook(state->ledger, NULL, NULL);
	agent_release(&ctx->caller);
	json_decref(ctx->captured);
	free(ctx->values);
	if (call) {
		strlist_release(&call->owned);
		strlist_release(&call->positional);
		buf_release(&call->input);
	}
}

/*
 * Resolve the call's caller. A named server (--as NAME, $DAICHO_AGENT) is
 * one agent for its whole session: the agent its first call resolved to.
 * Once that agent is ended (daicho agent end, a take-over, the sweep), the
 * name resolves to no one (or to a newer agent of the name): the call then
 * acts as the ended agent, whose session stays ended, as a client
 * session's does: reads go on, every write is refused (tool is NULL for a
 * read), and nothing registers the name again. Returns 0 or -code.
 */
static int
resolve_caller(struct mcp_state *state, struct cmd_ctx *ctx,
    const struct tool *tool)
{
	int64_t id = cmd_caller(ctx);

	if (id < 0)
		return (int)id;
	if (state->base->claim.name == NULL || state->agent_id == 0 ||
	    (id == state->agent_id && !state->ended))
		return 0;
	state->ended = true;
	ctx->caller.ended = true; /* no beat, no registration: writes refused */
	ctx->caller.id = state->agent_id;
	ledger_set_caller(state->ledger, state->agent_id);
	if (tool != NULL && !tool->read_only)
		return err_set(ctx->err, ERR_REFUSED, "this server's agent %s has "
		    "ended ('daicho agent end', a take-over or the sweep), and an "
		    "ended agent stays ended: reads go on, %s and every other write "
		    "is refused (restart the server to act as %s again)",
		    state->agent_name, tool->name, state->agent_name);
	return 0;
}

/*
 * Look at the agent's unread messages: count them, and note whether any is
 * newer than the last announced.
 */
static void
check_unread(struct mcp_state *state)
{
	struct err err = ERR_INIT;
	int64_t count, newest;

	if (state->agent_name == NULL || state->ended) {
		state->unread = 0;
		return;
	}
	/* Ids and a count only: never the texts, whatever their size. */
	ledger_set_caller(state->ledger, state->agent_id);
	if (msg_unread_count(state->ledger, state->agent_name, &count, &newest,
		 &err) < 0) {
		err_release(&err);
		return;
	}
	state->unread = (size_t)count;
	if (newest > state->notified_message)
		state->unread_news = true;
}

/* The structured content of a successful call, from what it printed. */
static json_t *
structured_output(const struct tool *tool, json_t *captured)
{
	json_t *first = json_array_get(captured, 0);

	if (tool->output_key)
		return json_pack("{s:O}", tool->output_key, first ? first
		    : json_array());
	if (json_is_object(first))
		return json_incref(first);
	return json_pack("{s:b}", "ok", 1);
}

/* The first chars characters of text (UTF-8) into out, "..." if more. */
static void
add_preview(struct buf *out, const char *text, int chars)
{
	const char *p = text;

	for (int n = 0; *p && n < chars; n++)
		do
			p++;
		while ((*p & 0xc0) == 0x80);
	buf_add(out, text, (size_t)(p - text));
	if (*p)
		buf_adds(out, "...");
}

/* How many characters of a message a notification or summary shows. */
#define PREVIEW_CHARS 200

/*
 * inbox's text content: a line per message, with the first characters of
 * its text. The texts themselves are in structuredContent only: a text
 * twice could make the answer too long for the client's line.
 */
static char *
inbox_summary(const json_t *structured)
{
	const json_t *messages = json_object_get(structured, "messages"), *m;
	struct buf out = BUF_INIT, line = BUF_INIT;
	size_t i, count = json_array_size(messages);

	buf_addf(&out, "%zu message%s", count, count == 1 ? "" : "s");
	if (count > 0)
		buf_adds(&out, " (the full texts: structuredContent.messages)");
	json_array_foreach(messages, i, m) {
		const char *text = cmd_json_str(m, "text", "");

		buf_reset(&line);
		add_preview(&line, text, PREVIEW_CHARS);
		buf_addf(&out, "\n#%lld from %s%s, %zu bytes",
		    (long long)cmd_json_int(m, "id"), cmd_json_str(m, "from",
		    "daicho"), strcmp(cmd_json_str(m, "kind", ""), "reminder") == 0
		    ? " (reminder)" : "", strlen(text));
		if (json_is_true(json_object_get(m, "truncated")))
			buf_addf(&out, " of %lld (cut: an answer carries at most 1 "
			    "MiB of text)", (long long)cmd_json_int(m, "bytes"));
		buf_adds(&out, ": ");
		cmd_add_printable(&out, line.buf);
	}
	buf_release(&line);
	return buf_detach(&out, NULL);
}

/* Add the strings of value (a string, or an array or object of them). */
static void
add_strings(struct strlist *into, const json_t *value)
{
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_string(value))
		strlist_add(into, json_string_value(value));
	else if (json_is_array(value))
		json_array_foreach(value, i, item)
			add_strings(into, item);
	else if (json_is_object(value))
		json_object_foreach((json_t *)value, key, item)
			add_strings(into, item);
}

/*
 * A refused call's result: the CLI's own line (err_line(): one line, with
 * what it repeats of arguments cut), and its exit status.
 */
static json_t *
error_result(const struct err *err, const json_t *arguments)
{
	struct buf line = BUF_INIT;
	struct strlist inputs = STRLIST_INIT;
	json_t *result;

	add_strings(&inputs, arguments);
	buf_adds(&line, "daicho: ");
	if (err->message.len)
		err_line(err, inputs.items, inputs.count, &line);
	else
		buf_adds(&line, "failed");
	result = mcp_tool_error(line.buf);
	/* The exit status the CLI would give, for clients that script. */
	json_object_set_new(result, "_meta", json_pack("{s:i}", "daicho/exit",
	    (int)err->code));
	buf_release(&line);
	strlist_release(&inputs);
	return result;
}

/*
 * A server acts as its agent only: handoff's from, when given, must name
 * the caller (another's briefing holds its unread messages, and a hand-over
 * from it would move its role). Returns 0, or ERR_REFUSED (err set).
 */
static int
handoff_as_self(struct cmd_ctx *ctx, json_t *arguments)
{
	const char *from = json_string_value(json_object_get(arguments, "from"));

	if (from == NULL || (ctx->caller.name != NULL &&
	    strcmp(from, ctx->caller.name) == 0))
		return 0;
	return err_set(ctx->err, ERR_REFUSED, "this server acts as %s only: "
	    "handoff's from may name no one else (a person briefs on another "
	    "agent with 'daicho handoff --from NAME')",
	    ctx->caller.name ? ctx->caller.name : "its agent");
}

/* mcp_handlers.call_tool: run the tool's command. */
static json_t *
call_tool(void *arg, const char *name, json_t *arguments)
{
	struct mcp_state *state = arg;
	const struct tool *tool = NULL;
	struct call_args call = { STRLIST_INIT, STRLIST_INIT, BUF_INIT };
	struct err err = ERR_INIT;
	struct cmd_ctx ctx;
	json_t *result = NULL, *structured;
	char *text;
	int rc;

	for (size_t i = 0; i < TOOL_COUNT && tool == NULL; i++)
		if (strcmp(tools[i].name, name) == 0)
			tool = &tools[i];
	if (tool == NULL)
		return NULL;
	call_context(state, tool->entry, &ctx, &err);
	arguments = integral_reals_as_integers(arguments);
	if ((rc = check_arguments(tool, arguments, &err)) == 0) {
		map_arguments(tool, arguments, &ctx, &call);
		if ((rc = cmd_check_arity(&ctx)) == 0 &&
		    (rc = resolve_caller(state, &ctx, tool)) == 0 &&
		    (tool->entry != &cmd_handoff_entry ||
		     (rc = handoff_as_self(&ctx, arguments)) == 0))
			rc = cmd_execute(&ctx);
	}
	if (rc < 0) {
		result = error_result(&err, arguments);
		goto done;
	}
	structured = structured_output(tool, ctx.captured);
	/* inbox's texts go once: its text content is a summary. */
	text = tool->entry == &cmd_inbox_entry ? inbox_summary(structured)
	    : json_dumps(structured, JSON_COMPACT);
	result = json_pack("{s:[{s:s, s:s}], s:o, s:b}", "content", "type",
	    "text", "text", text ? text : "{}", "structuredContent", structured,
	    "isError", 0);
	free(text);
done:
	end_call(state, &ctx, &call);
	/* Unread messages are told in the result too: every client shows it. */
	check_unread(state);
	if (state->unread > 0 && (tool->entry != &cmd_inbox_entry ||
	    !json_is_true(json_object_get(arguments, "peek")))) {
		struct buf note = BUF_INIT;

		buf_addf(&note, "daicho: you have %zu unread message%s (call the "
		    "inbox tool to read %s)", state->unread, state->unread == 1 ? ""
		    : "s", state->unread == 1 ? "it" : "them");
		json_array_append_new(json_object_get(result, "content"),
		    json_pack("{s:s, s:s}", "type", "text", "text", note.buf));
		buf_release(&note);
	}
	json_decref(arguments);
	err_release(&err);
	return result;
}

/* mcp_handlers.read_resource: daicho://inbox, read with inbox --peek. */
static json_t *
read_resource(void *arg, const char *uri)
{
	struct mcp_state *state = arg;
	struct err err = ERR_INIT;
	struct cmd_ctx ctx;
	json_t *contents;
	char *text;

	if (strcmp(uri, INBOX_URI) != 0)
		return NULL;
	call_context(state, &cmd_inbox_entry, &ctx, &err);
	cmd_add_value(&ctx, cmd_find_option(&cmd_inbox_entry, "peek"), NULL);
	if (resolve_caller(state, &ctx, NULL) < 0 || cmd_execute(&ctx) < 0) {
		struct buf line = BUF_INIT;

		buf_addf(&line, "daicho: %s", err.message.buf);
		text = buf_detach(&line, NULL);
	} else {
		json_t *doc = json_pack("{s:O}", "messages",
		    json_array_get(ctx.captured, 0) ? json_array_get(ctx.captured, 0)
		    : json_array());

		text = json_dumps(doc, JSON_COMPACT);
		json_decref(doc);
	}
	end_call(state, &ctx, NULL);
	contents = json_pack("{s:[{s:s, s:s, s:s}]}", "contents", "uri", uri,
	    "mimeType", "application/json", "text", text ? text : "");
	free(text);
	err_release(&err);
	return contents;
}

/*
 * mcp_handlers.tick: when the agent has messages newer than the last
 * announced, say so: a logging notification, and resources/updated for
 * daicho://inbox when the client subscribed. Idle, look first.
 */
static void
tick(void *arg, struct mcp_server *server, bool idle)
{
	struct mcp_state *state = arg;
	struct err err = ERR_INIT;
	json_t *messages = NULL, *m;
	int64_t newest = state->notified_message;
	size_t i;

	if (idle)
		check_unread(state);
	if (!state->unread_news || state->agent_name == NULL || state->ended)
		return;
	state->unread_news = false;
	/* A preview of each new one: a whole text could be too long a line. */
	ledger_set_caller(state->ledger, state->agent_id);
	if (msg_unread_previews(state->ledger, state->agent_name,
		 state->notified_message, PREVIEW_CHARS, &messages, &err) < 0) {
		err_release(&err);
		return;
	}
	json_array_foreach(messages, i, m) {
		int64_t id = cmd_json_int(m, "id");
		struct buf preview = BUF_INIT;

		if (id > newest)
			newest = id;
		buf_adds(&preview, cmd_json_str(m, "preview", ""));
		if (json_is_true(json_object_get(m, "truncated")))
			buf_adds(&preview, "...");
		mcp_log(server, "notice", "daicho", json_pack("{s:s, s:I, s:s?, "
		    "s:I, s:s, s:b, s:s}", "event", "message", "id", (json_int_t)id,
		    "from", cmd_json_str(m, "from", NULL), "bytes",
		    (json_int_t)cmd_json_int(m, "bytes"), "text", preview.buf,
		    "truncated", json_is_true(json_object_get(m, "truncated")),
		    "hint", "call the inbox tool to read and acknowledge it"));
		buf_release(&preview);
	}
	state->notified_message = newest;
	mcp_resource_updated(server, INBOX_URI);
	json_decref(messages);
}

/* mcp_write_fn: one line on the protocol's descriptor. */
static int
write_line(void *arg, const char *message, size_t len)
{
	struct mcp_state *state = arg;
	/* writev() only reads what iov_base points to. */
	struct iovec iov[2] = { { (void *)message, len }, { (void *)"\n", 1 } };

	while (iov[1].iov_len > 0) {
		ssize_t n = writev(state->out_fd, iov[0].iov_len ? iov : iov + 1,
		    iov[0].iov_len ? 2 : 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		for (int i = 0; i < 2 && n > 0; i++) {
			size_t used = (size_t)n < iov[i].iov_len ? (size_t)n
								  : iov[i].iov_len;

			iov[i].iov_base = (char *)iov[i].iov_base + used;
			iov[i].iov_len -= used;
			n -= (ssize_t)used;
		}
	}
	return 0;
}

/*
 * Decide who the server acts as: --as, $DAICHO_AGENT or a client's session
 * variable (gathered already); else the session agent of the agent client
 * that spawned it (Codex and Gemini CLI give their MCP servers no session
 * variable), found by process as for Gemini CLI's shell. Never the human:
 * ERR_USAGE when none of these.
 */
static int
decide_identity(struct cmd_ctx *ctx)
{
	struct client_ancestry ancestry;
	int rc = 0;

	/*
	 * A name that cannot name an agent would start a server that fails
	 * every call: refuse it now, before answering anything.
	 */
	if (ctx->claim.name != NULL &&
	    agent_check_name(ctx->claim.name, ctx->err) < 0)
		return err_set(ctx->err, ERR_USAGE, "no server for '%s', which is "
		    "not an agent name (--as or $DAICHO_AGENT: 1-64 letters, digits "
		    "or . _ - @ +, not starting with '-')", ctx->claim.name);
	if (ctx->explicit_agent)
		return 0;
	client_find_ancestor(&ancestry);
	if (ancestry.client_pid != 0 && !ancestry.client_above_session) {
		ctx->claim.client_shell = ancestry.client_kind;
		ctx->claim.kind = ancestry.client_kind;
		ctx->explicit_agent = true;
	} else {
		rc = err_set(ctx->err, ERR_USAGE, "no agent to act as (daicho mcp "
		    "serves an agent client's session and never acts as the human: "
		    "pass --as NAME, or let Claude Code, Codex or Gemini CLI start "
		    "it)");
	}
	client_ancestry_release(&ancestry);
	return rc;
}

/*
 * Keep the protocol's descriptors to ourselves: the output moves to a
 * private descriptor and fd 1 becomes stderr, so that nothing a command
 * prints can corrupt the protocol; the input likewise, with /dev/null on
 * fd 0 for the commands' children. Returns 0 or ERR_FAILED.
 */
static int
take_protocol_fds(struct cmd_ctx *ctx, int *in_fd, int *out_fd)
{
	int null_fd;

	fflush(stdout);
	if ((*out_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    (*in_fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    dup2(STDERR_FILENO, STDOUT_FILENO) < 0 ||
	    (null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		return err_set(ctx->err, ERR_FAILED, "cannot set up the protocol's "
		    "descriptors (%s)", strerror(errno));
	if (dup2(null_fd, STDIN_FILENO) < 0) {
		close(null_fd);
		return err_set(ctx->err, ERR_FAILED, "cannot set up the protocol's "
		    "descriptors (%s)", strerror(errno));
	}
	close(null_fd);
	return 0;
}

/*
 * daicho mcp: print the tools (--list-tools), or decide who the server
 * acts as, open the ledger, take the protocol's descriptors and serve until
 * end of input (exit 0).
 */
static int
exec_mcp(struct cmd_ctx *ctx)
{
	struct mcp_state state = { 0 };
	struct mcp_handlers handlers = { 0 };
	struct mcp_server *server = NULL;
	int in_fd = -1, rc;

	state.tool_list = tool_list();
	if (cmd_has(ctx, OPT_LIST_TOOLS)) {
		json_t *doc = json_pack("{s:O}", "tools", state.tool_list);

		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(doc);
		rc = 0;
		goto done;
	}
	if ((rc = decide_identity(ctx)) < 0)
		goto done;
	if ((rc = ledger_open(ctx->ledger_path.buf, &state.ledger, ctx->err)) < 0)
		goto done;
	if ((rc = take_protocol_fds(ctx, &in_fd, &state.out_fd)) < 0)
		goto done;
	/* A client that goes away is end of input, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	state.base = ctx;
	state.resource_list = json_pack("[{s:s, s:s, s:s, s:s, s:s}]", "uri",
	    INBOX_URI, "name", "inbox", "title", "Your unread daicho messages",
	    "description", "The agent's unread messages (read without marking "
	    "them read). Subscribe to be told when one arrives.", "mimeType",
	    "application/json");
	handlers.name = "daicho";
	handlers.version = MCP_SERVER_VERSION;
	handlers.instructions = server_instructions;
	handlers.tools = state.tool_list;
	handlers.resources = state.resource_list;
	handlers.call_tool = call_tool;
	handlers.read_resource = read_resource;
	handlers.tick = tick;
	handlers.arg = &state;
	server = mcp_server_new(&handlers, write_line, &state);
	/* End of input is the client's session ending: exit 0. */
	mcp_serve(server, in_fd, MCP_IDLE_POLL_MS);
	rc = 0;
done:
	mcp_server_free(server);
	if (in_fd >= 0)
		close(in_fd);
	ledger_close(state.ledger);
	json_decref(state.tool_list);
	json_decref(state.resource_list);
	free(state.agent_name);
	return rc;
}

const struct cmd_entry cmd_mcp_entry = {
	.name = "mcp",
	.usage = "mcp [--as NAME] [--list-tools]",
	.summary = "serve the ledger to an agent client over MCP (stdio)",
	.help =
	    "A Model Context Protocol server on stdin and stdout: JSON-RPC 2.0,\n"
	    "one message per line, protocol versions 2025-11-25 and 2025-06-18.\n"
	    "Agent clients start it themselves ('daicho init --claude', --codex\n"
	    "or --gemini registers it). Each tool runs the command of the same\n"
	    "name, in the server, with the same checks, messages and --json\n"
	    "output (structuredContent): claim, prompt, save, report, release,\n"
	    "block, ls, show, result, add, send, inbox, wait, resume, reserve,\n"
	    "unreserve, status, handoff. What only a person may do (approve,\n"
	    "deny, gate rm, release --force, unblock, edit, reopen, config) is\n"
	    "not a tool. A refused call is a tool result with isError and the\n"
	    "command's one-line message; malformed JSON-RPC gets the standard\n"
	    "error codes.\n\n"
	    "The server acts as --as NAME, $DAICHO_AGENT, the agent of\n"
	    "$CLAUDE_CODE_SESSION_ID (Claude Code gives it to its MCP servers),\n"
	    "or else the session agent of the Codex or Gemini CLI process that\n"
	    "started it (registered by that client's session-start hook); with\n"
	    "none of these, or with a NAME that is not an agent name, it does\n"
	    "not start (exit 2): it never acts as the human. Every call is a\n"
	    "heartbeat. A named server is one agent: once it is ended ('daicho\n"
	    "agent end NAME'), reads go on and writes are refused, and NAME is\n"
	    "never registered again by this server. When the agent has unread\n"
	    "messages, each tool result says so, and new ones are announced with\n"
	    "notifications/message and, to a client subscribed to the resource\n"
	    "daicho://inbox, notifications/resources/updated (also while idle:\n"
	    "checked every 2s). End of input ends the server (exit 0).\n\n"
	    "--list-tools prints the tools with their input and output schemas\n"
	    "(as tools/list returns them) and exits. See docs/mcp.md.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_LIST_TOOLS] = { "list-tools", 0, NULL,
		"print the tools and their schemas, then exit" }),
	.flags = 0,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_mcp,
};
