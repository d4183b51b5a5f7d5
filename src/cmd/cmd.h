/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The command line layer: one entry per command in the table in main.c, one
 * file per command family. A command parses nothing itself: main.c parses
 * global and command options from the entry's option list, opens the ledger
 * and resolves the caller as the entry's flags ask, then calls exec. exec
 * calls the core and prints; it never runs SQL and never exits.
 */
#ifndef DAICHO_CMD_H
#define DAICHO_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "core/agent.h"
#include "core/err.h"
#include "core/ledger.h"
#include "util/buf.h"

struct cmd_option {
	const char *name;       /* long name, without "--"; NULL: a hole (no
				 * option of this command has this id) */
	int short_name;         /* single-letter form, or 0 */
	const char *value_name; /* "DUR", "FILE"...; NULL for a plain flag */
	const char *help;       /* one line */
	int flags;              /* enum cmd_option_flags */
};

enum cmd_option_flags {
	CMD_OPTION_REPEATS = 1 << 0, /* may be given again, every value kept
				      * (cmd_opt_next(); an array in MCP) */
	CMD_OPTION_STAYS = 1 << 1,   /* given, the command runs until stopped
				      * (follows, watches, repeats): main.c
				      * gives it a connection of its own */
};

/*
 * A command's options, inside its entry: a table of count options indexed
 * by the family's option ids, an enum in the family's file
 * ([OPT_LEASE] = { "lease", 0, "DUR", "..." }), and its exec reads them by
 * the same ids (cmd_opt(ctx, OPT_LEASE)). So a misspelt id, or one of
 * another family, does not compile; an id of a sibling command of the
 * same family is a hole in this table (name NULL), which cmd_opt() and
 * the others refuse at once. --help lists them in id order, holes left
 * out. A command without options leaves both fields out.
 */
#define CMD_OPTIONS(count, ...)                                                \
	.options = (const struct cmd_option[(count)]){ __VA_ARGS__ },          \
	.option_count = (count)

enum cmd_flags {
	CMD_NEEDS_LEDGER = 1 << 0, /* open the ledger before exec */
	CMD_AS_AGENT = 1 << 1,     /* resolve the caller (and heartbeat) first */
	CMD_RAW_ARGS = 1 << 2,     /* its arguments are a command line or a
				    * file's name, not text it keeps */
};

struct cmd_ctx;

struct cmd_entry {
	const char *name;
	const char *usage;       /* synopsis after "daicho " */
	const char *summary;     /* one line for "daicho help" */
	const char *help;        /* what it does, output, JSON fields */
	const struct cmd_option *options; /* indexed by option id, holes
					   * included (CMD_OPTIONS()) */
	size_t option_count;     /* the length of options */
	int flags;               /* enum cmd_flags */
	int min_args, max_args;  /* positional arguments; max -1: unlimited */
	int (*exec)(struct cmd_ctx *ctx);
};

/* One parsed command option. */
struct cmd_value {
	const struct cmd_option *option;
	const char *value; /* NULL for a flag */
};

/*
 * A person proven by other means than a terminal, for commands run
 * in-process by a resident server: the dashboard's one-time login, given
 * to whoever started 'daicho serve' as a human at a terminal.
 */
struct cmd_human_proof {
	const char *where;     /* recorded where a terminal would be ("web") */
	const json_t *checked; /* what was checked, recorded with decisions */
};

struct cmd_ctx {
	const struct cmd_entry *entry;
	struct ledger *ledger;     /* open when CMD_NEEDS_LEDGER */
	struct buf ledger_path;    /* where the ledger is (or would be) */
	struct agent_claim claim;  /* who the caller says it is */
	bool explicit_agent;       /* --as, $DAICHO_AGENT or a session variable */
	const char *session_id;    /* the client session variable's value, or NULL */
	const char *session_kind;  /* its client (claude, codex, gemini), or NULL */
	struct agent caller;       /* resolved by cmd_caller() (name set then) */
	bool json;                 /* --json */
	bool quiet;                /* -q */
	bool stdin_closed;         /* daicho was started with fd 0 closed */
	int argc;                  /* positional arguments */
	char **argv;
	struct cmd_value *values;  /* command options in the order given */
	size_t value_count, value_alloc;
	json_t *person_checked;    /* what cmd_require_human() found when it
				    * passed (cmd_execute() frees it) */
	const struct cmd_human_proof *human_proof; /* not NULL: the caller is a
				    * person proven so (never set from the
				    * command line); cmd_require_human()
				    * passes with this evidence */
	json_t *captured;          /* not NULL: JSON output is appended to this
				    * array instead of printed (cmd_execute()
				    * by a resident server) */
	const struct buf *input;   /* not NULL: what reading "-" gives instead
				    * of standard input (a resident server's
				    * text argument; its stdin is the protocol) */
	size_t max_text_bytes;     /* inbox: at most this much message text
				    * (0: all; see msg_inbox_within()) */
	struct err *err;
};

/*
 * Add one command option value to ctx->values (value NULL for a flag).
 * The option must be one of ctx->entry's.
 */
void cmd_add_value(struct cmd_ctx *ctx, const struct cmd_option *option,
    const char *value);
/* entry's option called name (without "--"), or NULL. */
const struct cmd_option *cmd_find_option(const struct cmd_entry *entry,
    const char *name);
/*
 * Step through entry's options in table (--help) order, holes left out:
 * start *pos at 0; returns the next option, or NULL after the last.
 */
const struct cmd_option *cmd_next_option(const struct cmd_entry *entry,
    size_t *pos);
/*
 * entry's option with id option (its family's enum). An id the entry has
 * not (a sibling command's, or out of range) is a mistake in daicho:
 * BUG_ON() (util/bug.h), at the first test that runs the call.
 */
const struct cmd_option *cmd_entry_option(const struct cmd_entry *entry,
    int option);
/*
 * Refuse (ERR_USAGE, with the synopsis) unless ctx->argc is within the
 * entry's number of positional arguments.
 */
int cmd_check_arity(struct cmd_ctx *ctx);

/*
 * Every option value and argument of ctx that is text daicho may keep is
 * well-formed UTF-8 (utf8_valid()): not the values of options that name a
 * file or a directory (FILE, DIR, PATH), nor the arguments of a command
 * flagged CMD_RAW_ARGS. Returns 0, or ERR_USAGE naming the option or the
 * argument.
 */
int cmd_check_text(struct cmd_ctx *ctx);
/*
 * Run ctx->entry on a parsed ctx (entry, options, arguments, identity and,
 * when the entry needs one, the open ledger): resolve the caller first
 * when the entry acts as an agent or the caller named one (refused
 * otherwise, never run as the human), run exec, and make a successful
 * command by a known caller a heartbeat (writes carried it in their own
 * transaction; a command that wrote nothing beats in one of its own).
 * Used by main() for one command per process and by resident servers for
 * many commands on one open ledger. Returns exec's result or the error.
 */
int cmd_execute(struct cmd_ctx *ctx);

/*
 * The last value of ctx->entry's option with id option (its family's
 * enum, see CMD_OPTIONS()), or NULL when not given.
 */
const char *cmd_opt(const struct cmd_ctx *ctx, int option);
/* Whether the flag (or option) with id option was given. */
bool cmd_has(const struct cmd_ctx *ctx, int option);
/*
 * Step through every value of the repeatable option with id option: start
 * *pos at 0; returns the next value or NULL. The option must be flagged
 * CMD_OPTION_REPEATS (BUG_ON() otherwise), so that the flag, which makes
 * its MCP argument an array, is true to what the command reads.
 */
const char *cmd_opt_next(const struct cmd_ctx *ctx, int option, size_t *pos);
/*
 * Whether an option called name (without "--") was given, whatever the
 * command: for code that serves many commands by a table of its own (the
 * person's acts, the MCP tools), where no family's ids apply. A command's
 * own code uses cmd_has().
 */
bool cmd_has_named(const struct cmd_ctx *ctx, const char *name);
/* Whether an option with flag (enum cmd_option_flags) was given. */
bool cmd_has_flagged(const struct cmd_ctx *ctx, int flag);

/*
 * Fill ctx->claim, session_id, session_kind and explicit_agent with who
 * the caller says it is: as (--as NAME) when not NULL, else $DAICHO_AGENT,
 * else an agent client's session variable (CLAUDE_CODE_SESSION_ID,
 * CODEX_THREAD_ID, GEMINI_SESSION_ID; util/client.h), else the login name
 * of the human, except in Gemini CLI's shell (GEMINI_CLI=1 without its
 * session), which is that client's session agent, found by process.
 */
void cmd_gather_identity(struct cmd_ctx *ctx, const char *as);

/*
 * Resolve the caller (once) and return its agent id: 0 when it is new to
 * the ledger (core functions take 0 as "the caller", registered by the
 * command's first write), or a negative error.
 */
int64_t cmd_caller(struct cmd_ctx *ctx);

/* cmd_caller(), registering a new caller now (for ids that must be real). */
int64_t cmd_caller_registered(struct cmd_ctx *ctx);

/* Parse a task id argument; ERR_USAGE on failure. */
int cmd_task_id(struct cmd_ctx *ctx, const char *text, int64_t *id);

/*
 * Refuse (ERR_REFUSED) unless a person is typing (src/cmd/person.c): no
 * agent identity in the environment (DAICHO_AGENT, an agent client's
 * variables, see util/client.h; set even if empty) nor given with --as;
 * stdin is a terminal and the controlling terminal of this process's
 * session; and no agent client process (Claude Code, Codex, Gemini CLI)
 * is among the ancestors of this process or of its session leader. what
 * names the action ("approve", "change settings"). On success, when
 * checked is not NULL, *checked is a new JSON object saying what was
 * checked (agent variables, the terminal, the ancestors and session
 * leader by "comm[pid]"), for the record of the decision. With
 * ctx->human_proof set, the person is already proven: passes with its
 * evidence. A pass is kept in ctx->person_checked for the command's later
 * calls.
 */
int cmd_require_human(struct cmd_ctx *ctx, const char *what,
    json_t **checked);

/*
 * The person's acts (the table in src/cmd/person.c) that ctx is about to
 * do, each checked with cmd_require_human(): an agent is refused those
 * that are a person's alone, and a caller with no agent identity must be
 * a person for any. cmd_execute() calls it. Returns 0 or ERR_REFUSED.
 */
int cmd_check_person_acts(struct cmd_ctx *ctx);
/*
 * Whether a daicho command line's words (from the command's name on, the
 * global options left out: "release", "3", "--force") are a person's act
 * that no agent may run at all (the table's entries without agents_too):
 * the hook refuses such a line before it runs.
 */
bool cmd_words_person_act(const char *const *words, size_t count);

/*
 * Whether the caller is a person, proven as cmd_require_human() proves
 * one (kept for the command's later calls); false for an agent, and for a
 * caller with no identity that is not at a terminal or runs under an
 * agent client. Never an error: for what a person's proof adds to (the
 * scope of a task a person adds).
 */
bool cmd_is_person(struct cmd_ctx *ctx);

/* 'daicho help person': the table, with what the check looks at. */
void cmd_print_person_acts(FILE *out);

/* The table's lines for entry, under a heading, for its --help; or none. */
void cmd_print_entry_person_acts(const struct cmd_entry *entry, FILE *out);

/*
 * For one-task commands: parse the ID argument (argv[0]) into *id and
 * resolve the caller into *agent. Returns 0 or the error.
 */
int cmd_task_and_caller(struct cmd_ctx *ctx, int64_t *id, int64_t *agent);

/* cmd_default()'s option for a command without one: the setting alone. */
#define CMD_NO_OPTION (-1)
/*
 * The value of a defaulted option (its id, or CMD_NO_OPTION): --option
 * when given (a duration when max is 0, else a count from 1 to max), else
 * the ledger's setting key ('daicho config'; a count above max is max),
 * else fallback. Returns 0, or ERR_USAGE for a bad value given.
 */
int cmd_default(struct cmd_ctx *ctx, int option, const char *key,
    int64_t max, int64_t fallback, int64_t *out);

/*
 * The command is about task id (prompt, save, show, ...): parse text into
 * *id as cmd_task_id() does, and when the caller holds that claim, let
 * the command's heartbeat renew its maximum hold (core/task.h).
 */
int cmd_named_task_id(struct cmd_ctx *ctx, const char *text, int64_t *id);
/*
 * Parse a positive id argument ("3" or "#3") of the kind what ("wait",
 * "gate", "approval"); ERR_USAGE naming it.
 */
int cmd_id_arg(struct cmd_ctx *ctx, const char *what, const char *text,
    int64_t *id);
/*
 * Parse text, a value of the option with id option, as a duration;
 * ERR_USAGE naming the option.
 */
int cmd_duration(struct cmd_ctx *ctx, int option, const char *text,
    int64_t *ms);
/*
 * Parse text, a value of the option with id option, as an integer in
 * [min, max]; ERR_USAGE naming the option.
 */
int cmd_integer(struct cmd_ctx *ctx, int option, const char *text,
    int64_t min, int64_t max, int64_t *value);
/* Whether cmd_read_input() has read this process's standard input. */
extern bool cmd_stdin_taken;

/*
 * Read a file's bytes, or stdin's when path is "-", into out: ctx->input
 * instead of stdin when it is set. Reading "-" from stdin when daicho was
 * started with stdin closed is ERR_FAILED.
 */
int cmd_read_input(struct cmd_ctx *ctx, const char *path, struct buf *out);

/*
 * Whether to colour what goes to stdout, the one rule for all human
 * output: stdout is a terminal, NO_COLOR is unset or empty (no-color.org:
 * any other value turns colour off), and TERM is set and not "dumb".
 */
bool cmd_colour(void);

/*
 * What a colour means in human output: the same meaning has the same
 * colour in every command (status, ls, agents, doctor, ...).
 */
enum cmd_tone {
	TONE_PLAIN,     /* no colour: open tasks, and what has no state */
	TONE_GOOD,      /* green: verified, ok, an active agent */
	TONE_BAD,       /* red: failed, rejected, FAIL */
	TONE_ATTENTION, /* yellow: blocked, overdue: a person should look */
	TONE_BUSY,      /* cyan: work in hand: claimed, reported, waiting */
	TONE_FADED,     /* dim: over or gone: cancelled, stale, ended */
	TONE_HEADING,   /* bold: a section's heading */
	TONE_NEEDS,     /* bold yellow: the NEEDS YOU heading, with items */
};

/*
 * The tone of a state word or event kind, the one table of them: task
 * states (open, claimed, reported, verified, blocked, cancelled, failed),
 * agent states (active, waiting, stale, ended), check results (ok, FAIL)
 * and the event kinds that change a task's standing (verified, rejected,
 * fail, block, ...). TONE_PLAIN for any other word.
 */
enum cmd_tone cmd_tone_of(const char *word);

/*
 * Append text to out, padded with spaces to width columns (0: no
 * padding), in tone's colour when colour is true (the padding stays
 * outside the colour, so columns line up either way).
 */
void cmd_add_toned(struct buf *out, bool colour, enum cmd_tone tone,
    const char *text, int width);
/* Append text for a terminal: control characters become '?'. */
void cmd_add_printable(struct buf *out, const char *text);
/*
 * What a command that changed something says on a terminal: one short
 * line to stdout ("unblocked #6 → its holder"), and nothing under -q,
 * --json, a captured run (MCP, the dashboard) or when stdout is no
 * terminal, so that scripts see no change.
 */
void cmd_say(struct cmd_ctx *ctx, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/*
 * Write a JSON value to stdout, one line, and release it; when
 * ctx->captured is set, append it there instead.
 */
int cmd_print_json(struct cmd_ctx *ctx, json_t *value);

/*
 * The one line 'daicho --version' prints, into out: the version, the
 * commit built from, how it was linked, and the helpers next to it.
 */
void cmd_version_line(struct buf *out);

struct land_stats;
/* What a landing pass did, as JSON (fields in 'daicho land --help'). */
json_t *cmd_land_stats_json(const struct land_stats *stats);
/*
 * What a landing pass did, in words, appended to out ("3 landed, 1 sent
 * back ..."); with only_if_any, nothing when it did nothing, else led by
 * ", " (a sweep's line goes on).
 */
void cmd_land_stats_text(struct buf *out, const struct land_stats *stats,
    bool only_if_any);

struct verdict;
/* The JSON form of a verdict (fields in 'daicho verify --help'). */
json_t *cmd_verdict_json(const struct verdict *verdict);
/* Print each check run of a verdict, with its evidence, indented. */
void cmd_print_verdict(const struct verdict *verdict, const char *indent);

/* Command entries, one per command (defined in the family's file). */
extern const struct cmd_entry cmd_init_entry;
extern const struct cmd_entry cmd_add_entry;
extern const struct cmd_entry cmd_ls_entry;
extern const struct cmd_entry cmd_version_entry;

/* Print help topic name ('daicho help states'); false when there is none. */
bool cmd_print_topic(const char *name, FILE *out);
/* The topics, one line each ("  NAME  SUMMARY"). */
void cmd_print_topic_list(FILE *out);
extern const struct cmd_entry cmd_show_entry;
extern const struct cmd_entry cmd_cancel_entry;
extern const struct cmd_entry cmd_graph_entry;
extern const struct cmd_entry cmd_claim_entry;
extern const struct cmd_entry cmd_release_entry;
extern const struct cmd_entry cmd_block_entry;
extern const struct cmd_entry cmd_report_entry;
extern const struct cmd_entry cmd_prompt_entry;
extern const struct cmd_entry cmd_save_entry;
extern const struct cmd_entry cmd_result_entry;
extern const struct cmd_entry cmd_log_entry;
extern const struct cmd_entry cmd_events_entry;
extern const struct cmd_entry cmd_verify_entry;
extern const struct cmd_entry cmd_sweep_entry;
extern const struct cmd_entry cmd_land_entry;
extern const struct cmd_entry cmd_run_entry;
extern const struct cmd_entry cmd_logs_entry;
extern const struct cmd_entry cmd_usage_entry;
extern const struct cmd_entry cmd_agent_start_entry;
extern const struct cmd_entry cmd_agent_end_entry;
extern const struct cmd_entry cmd_agents_entry;
extern const struct cmd_entry cmd_wait_entry;
extern const struct cmd_entry cmd_resume_entry;
extern const struct cmd_entry cmd_send_entry;
extern const struct cmd_entry cmd_inbox_entry;
extern const struct cmd_entry cmd_status_entry;
extern const struct cmd_entry cmd_handoff_entry;
extern const struct cmd_entry cmd_reserve_entry;
extern const struct cmd_entry cmd_unreserve_entry;
extern const struct cmd_entry cmd_reservations_entry;
extern const struct cmd_entry cmd_gate_add_entry;
extern const struct cmd_entry cmd_gate_ls_entry;
extern const struct cmd_entry cmd_gate_rm_entry;
extern const struct cmd_entry cmd_gate_exec_entry;
extern const struct cmd_entry cmd_approvals_entry;
extern const struct cmd_entry cmd_approve_entry;
extern const struct cmd_entry cmd_deny_entry;
extern const struct cmd_entry cmd_hook_entry;
extern const struct cmd_entry cmd_doctor_entry;
extern const struct cmd_entry cmd_config_entry;
extern const struct cmd_entry cmd_edit_entry;
extern const struct cmd_entry cmd_reopen_entry;
extern const struct cmd_entry cmd_unblock_entry;
extern const struct cmd_entry cmd_export_entry;
extern const struct cmd_entry cmd_import_entry;
extern const struct cmd_entry cmd_serve_entry;
extern const struct cmd_entry cmd_pool_start_entry;
extern const struct cmd_entry cmd_pool_stop_entry;
extern const struct cmd_entry cmd_pool_status_entry;
extern const struct cmd_entry cmd_mcp_entry;
/*
 * Check the MCP server's tool table (cmd/cmd_mcp.c) against the command
 * table: every option a tool names or leaves out is its command's, and
 * every argument's type and role agree with its option. Returns 0, or
 * ERR_FAILED naming the tool and the argument. The server checks it before
 * it lists or runs a tool (BUG_ON()); the unit tests call it.
 */
int cmd_mcp_check_tools(struct err *err);

/* Append "12s ago (2026-11-29T07:53:06Z)" for a time in the past. */
void cmd_add_seen(struct buf *out, int64_t at_ms, int64_t now_ms);
/*
 * Append the column headings of the 'agents' table, one line, to out
 * (nothing when there are no agents to show under them).
 */
void cmd_add_agents_heading(struct buf *out, const json_t *agents);
/*
 * Append one agent (as agent_list() gives it) as its row of the 'agents'
 * table, and a line under it for each of its open waits, to out; its
 * state coloured when colour is true.
 */
void cmd_add_agent(struct buf *out, const json_t *agent, int64_t now,
    bool colour);
/* Print agents (as agent_list() gives them) as the 'agents' table. */
void cmd_print_agents(const json_t *agents, int64_t now, bool colour);
/* The integer member key of object (0 when missing or null). */
int64_t cmd_json_int(const json_t *object, const char *key);
/* The string member key of object, or fallback when missing or null. */
const char *cmd_json_str(const json_t *object, const char *key,
    const char *fallback);

#endif
