/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Agent clients (Claude Code, Codex, Gemini CLI) as other processes see
 * them: the environment variables they give what they run, and their
 * processes among the ancestors of a process.
 *
 * A client process is recognised from /proc/PID/comm and /proc/PID/cmdline:
 *   - the name (comm, or argv[0]'s basename) is claude or claude.exe (the
 *     native Claude Code), codex or codex-* (the native Codex binary),
 *     gemini;
 *   - or it is a JavaScript runtime (node*, bun, deno, npx, npm) whose
 *     script is named claude, codex, codex.js, gemini or gemini.js, or
 *     whose arguments name the packages @anthropic-ai/claude-code,
 *     @openai/codex or @google/gemini-cli (Codex's and Gemini's npm
 *     launchers, an older Claude Code's cli.js).
 * A program that merely takes such a name is taken for a client too: the
 * check errs towards refusing.
 */
#ifndef DAICHO_CLIENT_H
#define DAICHO_CLIENT_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/buf.h"

/*
 * The variables that mark a process as run by an agent: DAICHO_AGENT, then
 * the ones the clients set (CLAUDE_CODE_SESSION_ID, CLAUDECODE,
 * CLAUDE_CODE_CHILD_SESSION, CODEX_THREAD_ID, CODEX_SANDBOX,
 * GEMINI_SESSION_ID, GEMINI_CLI). NULL-terminated.
 */
extern const char *const client_identity_variables[];

/* Whether name is one of client_identity_variables but DAICHO_AGENT. */
bool client_is_client_variable(const char *name);

/*
 * Which agent client process pid is: "claude", "codex" or "gemini" (static
 * strings), or NULL when it is none or cannot be read.
 */
const char *client_process_kind(pid_t pid);

/* What looking for an agent client above a process found. */
struct client_ancestry {
	pid_t client_pid;	 /* the nearest client found, or 0 */
	const char *client_kind; /* its kind, or NULL */
	bool client_above_session; /* it was found above the session leader,
				      not above this process */
	struct buf ancestors;	 /* "comm[pid] comm[pid] ...": the parent
				    first, up to init or the first process
				    that could not be read ("?[pid]") */
	struct buf session;	 /* the same from the session leader, when
				    it is not this process nor one of
				    ancestors; else empty */
};

/*
 * Look for an agent client among the ancestors of this process, then among
 * the session leader (getsid) and its ancestors, and describe what was
 * looked at in *out (initialised here; client_ancestry_release() it).
 * Never fails: what /proc does not show is named "?" in the trail.
 */
void client_find_ancestor(struct client_ancestry *out);

void client_ancestry_release(struct client_ancestry *ancestry);

/*
 * The agent client process whose hook this process runs: the nearest
 * client among its ancestors (as client_find_ancestor() finds it, and so
 * as the client's MCP server and shell commands find it too), even through
 * a wrapper that does not exec; else, for a client under a name not known
 * here, the first ancestor that is not a shell or a program passing its
 * command on (sh, bash, env, timeout, nice, ...). 0 when unknown.
 */
pid_t client_hook_process(void);

/*
 * Whether standard input is the controlling terminal of this process's
 * session, as it is for a person typing in their terminal (and not for a
 * terminal device merely opened, such as "< /dev/pts/3").
 */
bool client_stdin_is_controlling_terminal(void);

#endif
