/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Hook adapters: daicho's rules applied where agents act, in the hook
 * protocols of Claude Code, Codex and Gemini CLI. Each call answers one
 * hook event from its JSON payload: a JSON document for stdout (or none),
 * an exit status, and a message for stderr. The command line layer reads
 * stdin, opens the ledger, resolves the caller and prints the answer.
 *
 * Pre-tool-use, for the caller:
 *   - a shell command that runs 'daicho approve', 'daicho deny' or 'daicho
 *     gate rm' is denied: those are for a human at a terminal;
 *   - a shell command that strips or blanks an identity variable is
 *     denied: env -i, env -u NAME, unset NAME, export -n NAME for any of
 *     util/client.h's client_identity_variables; DAICHO_AGENT= (empty or
 *     an expansion); any assignment to a client's variable. DAICHO_AGENT
 *     set to a name is allowed: that is how a subagent is named;
 *   - a shell command whose program cannot be resolved statically (see
 *     shell/cmdline.h: $(...) or $VAR in its place, input piped into a
 *     shell or interpreter; also a daicho command named by an expansion
 *     or added by xargs or an alias) gets "ask" from Claude Code and is
 *     denied by Codex and Gemini, which cannot ask, with a reason telling
 *     the agent that a person must run it;
 *   - a command a human denied is denied, with the denial;
 *   - a command matching a gate with --require is denied with the
 *     'daicho gate exec -- CMD' to run instead (which checks them); one
 *     matching an --approval gate is answered "ask" by Claude Code (the
 *     person confirms in that session's own prompt, even where settings
 *     would allow it) and denied with the gate exec instructions by Codex
 *     and Gemini, which cannot ask;
 *   - an edit of a path reserved by another live agent is denied, naming
 *     it;
 *   - Claude Code: unread messages are delivered (marked read) as
 *     additional context; Codex and Gemini CLI get them after the tool
 *     runs (post-tool-use), since they drop context given before it.
 * Every event is a heartbeat. Failures fail closed (exit 2) for a shell
 * command that is gated or whose gates could not be read, and open (exit
 * 0) for everything else.
 */
#ifndef DAICHO_HOOK_H
#define DAICHO_HOOK_H

#include <jansson.h>

#include "core/agent.h"
#include "core/err.h"
#include "core/ledger.h"
#include "util/buf.h"

enum hook_client { HOOK_CLAUDE, HOOK_CODEX, HOOK_GEMINI };

enum hook_event {
	HOOK_SESSION_START,
	HOOK_PRE_TOOL,
	HOOK_POST_TOOL,
	HOOK_STOP,
	HOOK_SESSION_END,
};

/*
 * Parse a client ("claude", "codex", "gemini") and one of its events, in
 * daicho's spelling ("pre-tool-use", "before-tool") or the client's own
 * ("PreToolUse", "BeforeTool"). ERR_USAGE naming the valid ones.
 */
int hook_parse(const char *client, const char *event, enum hook_client *c,
    enum hook_event *e, struct err *err);

struct hook_request {
	enum hook_client client;
	enum hook_event event;
	json_t *payload;          /* the hook input (borrowed) */
	struct ledger *ledger;    /* open */
	struct agent *caller;     /* resolved (id 0 until its first write) */
	const char *agent_name;   /* $DAICHO_AGENT, to register at start */
	const char *session_id;   /* the payload's session_id, or NULL */
	int64_t runner_task;      /* the task of the 'daicho run' worker this
				   * session is ($DAICHO_TASK with
				   * $DAICHO_AGENT), or 0: see hook_runner_task() */
	/*
	 * Whether a daicho command's words (from its name on) are a
	 * person's alone (cmd/person.c's table); NULL: approve, deny and
	 * gate rm only.
	 */
	bool (*person_act)(const char *const *words, size_t count);
};

struct hook_answer {
	json_t *output;     /* for stdout, or NULL */
	int exit_status;    /* 0, or 2: block */
	struct buf message; /* for stderr */
	json_t *delivered;  /* ids of the messages in output, or NULL */
	bool beat_after;    /* hook_finish() must record the heartbeat */
};

void hook_answer_init(struct hook_answer *answer);
void hook_answer_release(struct hook_answer *answer);

/*
 * Answer request into *answer. Never fails: an internal error becomes the
 * fail-closed or fail-open answer described above, with the error in
 * answer->message.
 */
void hook_answer(const struct hook_request *request, struct hook_answer *answer);

/*
 * What follows a printed answer: the messages it delivered are marked read
 * and the caller's heartbeat recorded. Done after printing so that an
 * answer cut short by the deadline loses no message (at worst one is
 * delivered twice). Failures are only reported in answer->message.
 */
void hook_finish(const struct hook_request *request, struct hook_answer *answer);

/*
 * The task a session works on for 'daicho run', or 0. The runner launches
 * each worker with DAICHO_TASK and DAICHO_AGENT (its slot agent) in the
 * environment, which the client passes on to its hooks. Such a session
 * belongs to the runner: session-start neither registers it nor changes
 * the slot agent's kind or role, session-end leaves the agent to the
 * runner (which ends it when the run ends), stop names only that task,
 * and no hook registers the slot agent again once it is gone.
 */
int64_t hook_runner_task(const char *daicho_task, const char *daicho_agent);

/*
 * Whether a tool is a shell (its input is a command line the gates apply
 * to).
 */
bool hook_is_shell_tool(const char *tool_name);

/*
 * The answer when the hook's input (input, bytes long) is not a JSON
 * object daicho can read (a NUL or a lone surrogate escape in a command,
 * say): before a shell tool runs (its name is in the input, quoted),
 * blocked (exit 2), as daicho cannot see what it would run; otherwise a
 * note, and nothing to enforce.
 */
void hook_answer_unparsable(enum hook_event event, const char *input,
    size_t bytes, const char *why, struct hook_answer *answer);

/*
 * The answer for a client's shell command when the ledger cannot be read at
 * all: fail closed (exit 2) for shell tools, open for the rest.
 */
void hook_answer_unreadable(enum hook_client client, enum hook_event event,
    const json_t *payload, const char *why, struct hook_answer *answer);

/*
 * The pre-commit check: the staged paths (repository-relative, one per
 * entry) that another live agent has reserved. Returns 0 when none, or
 * ERR_CONFLICT with every conflict named in err.
 */
int hook_git_pre_commit(struct ledger *ledger, int64_t caller,
    char *const *paths, size_t path_count, struct err *err);

#endif
