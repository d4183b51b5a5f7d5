/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* Hook adapters: daicho hook claude|codex|gemini EVENT, daicho hook git pre-commit. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "integ/hook.h"
#include "util/client.h"
#include "util/proc.h"
#include "util/strlist.h"

/*
 * A hook answers within this long, whatever the ledger is doing (Claude
 * Code gives SessionEnd hooks 1.5 s in all).
 */
#define HOOK_DEADLINE_MS 1800
#define HOOK_END_DEADLINE_MS 1200

/* Set when running out of time must block (a shell command's pre-tool-use). */
static volatile sig_atomic_t deadline_blocks;
/* The exit status once the answer is out (-1 before). */
static volatile sig_atomic_t answered = -1;

static void
on_deadline(int sig)
{
	static const char blocked[] = "daicho: no answer in time (the ledger is "
	    "busy); the command is blocked, try again\n";

	(void)sig;
	if (answered >= 0)
		_exit(answered); /* answered; only closing the ledger was slow */
	if (deadline_blocks) {
		(void)!write(STDERR_FILENO, blocked, sizeof(blocked) - 1);
		_exit(2);
	}
	_exit(0);
}

/* Arm the deadline: SIGALRM after ms. */
static void
arm_deadline(int ms)
{
	struct itimerval timer = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000 } };

	signal(SIGALRM, on_deadline);
	setitimer(ITIMER_REAL, &timer, NULL);
}

/* Whether a payload is a shell tool's pre-tool-use (the deadline blocks). */
static bool
is_shell_pre_tool(enum hook_event event, const json_t *payload)
{
	return event == HOOK_PRE_TOOL && hook_is_shell_tool(json_string_value(
	    json_object_get(payload, "tool_name")));
}

/*
 * Print an answer, JSON on stdout and the message on stderr, and flush
 * them: from here on the deadline only ends the process, with the
 * answer's status.
 */
static int
print_answer(struct cmd_ctx *ctx, struct hook_answer *answer)
{
	if (answer->output) {
		char *text = json_dumps(answer->output, JSON_COMPACT);

		if (text)
			printf("%s\n", text);
		free(text);
	}
	if (answer->message.len)
		fprintf(stderr, "%s%s\n", answer->exit_status ? "daicho: " : "",
		    answer->message.buf);
	fflush(stdout);
	fflush(stderr);
	answered = answer->exit_status;
	if (answer->exit_status != 0) {
		/* The reason is out already; main adds nothing. */
		ctx->err->code = (enum err_code)answer->exit_status;
		return -answer->exit_status;
	}
	return 0;
}

/* daicho hook git pre-commit. */
static int
git_pre_commit(struct cmd_ctx *ctx)
{
	const char *argv[] = { "git", "diff", "--cached", "--name-only", "-z",
		NULL };
	struct buf staged = BUF_INIT;
	struct strlist paths = STRLIST_INIT;
	int64_t caller;
	int rc, status;

	if (strcmp(ctx->argv[1], "pre-commit") != 0)
		return err_set(ctx->err, ERR_USAGE, "unknown git hook '%s' (use "
		    "pre-commit)", ctx->argv[1]);
	if (!ledger_is_postgresql(ctx->ledger_path.buf) &&
	    access(ctx->ledger_path.buf, F_OK) != 0)
		return 0; /* no ledger: nothing is reserved */
	if ((rc = ledger_open(ctx->ledger_path.buf, &ctx->ledger, ctx->err)) < 0)
		return rc;
	if ((caller = cmd_caller(ctx)) < 0)
		return (int)caller;
	status = proc_capture(argv, &staged);
	if (status != 0) {
		rc = err_set(ctx->err, ERR_FAILED, "cannot list the staged files "
		    "(git diff --cached exited %d)", status);
		goto done;
	}
	for (size_t at = 0; at < staged.len;) {
		size_t len = strlen(staged.buf + at);

		if (len)
			strlist_add(&paths, staged.buf + at);
		at += len + 1;
	}
	rc = hook_git_pre_commit(ctx->ledger, caller, paths.items, paths.count,
	    ctx->err);
done:
	strlist_release(&paths);
	buf_release(&staged);
	return rc;
}

static int
exec_hook(struct cmd_ctx *ctx)
{
	struct hook_request req = { .person_act = cmd_words_person_act };
	struct hook_answer answer;
	struct agent_claim claim = { 0 };
	struct buf input = BUF_INIT;
	json_t *payload = NULL;
	json_error_t jerr;
	int rc;

	if (strcmp(ctx->argv[0], "git") == 0)
		return git_pre_commit(ctx);
	if ((rc = hook_parse(ctx->argv[0], ctx->argv[1], &req.client, &req.event,
		 ctx->err)) < 0)
		return rc;
	hook_answer_init(&answer);
	/* A busy ledger must not hold the agent up: wait 1s at most. */
	setenv("DAICHO_BUSY_TIMEOUT", "1000ms", 0);
	arm_deadline(req.event == HOOK_SESSION_END ? HOOK_END_DEADLINE_MS
						   : HOOK_DEADLINE_MS);
	if ((rc = cmd_read_input(ctx, "-", &input)) < 0)
		goto done;
	payload = json_loadb(input.buf, input.len, 0, &jerr);
	if (!json_is_object(payload)) {
		hook_answer_unparsable(req.event, input.buf, input.len,
		    payload == NULL ? jerr.text : "not an object", &answer);
		rc = print_answer(ctx, &answer);
		goto done;
	}
	deadline_blocks = is_shell_pre_tool(req.event, payload);
	if (!ledger_is_postgresql(ctx->ledger_path.buf) &&
	    access(ctx->ledger_path.buf, F_OK) != 0)
		goto done; /* no ledger: this project does not use daicho */
	if ((rc = ledger_open(ctx->ledger_path.buf, &ctx->ledger, ctx->err)) < 0) {
		hook_answer_unreadable(req.client, req.event, payload,
		    ctx->err->message.buf, &answer);
		err_release(ctx->err);
		*ctx->err = (struct err)ERR_INIT;
		rc = print_answer(ctx, &answer);
		goto done;
	}
	req.session_id = json_string_value(json_object_get(payload, "session_id"));
	claim.name = ctx->claim.name;
	claim.session_id = claim.name ? NULL : req.session_id ? req.session_id
							: ctx->session_id;
	claim.kind = req.client == HOOK_CLAUDE ? "claude" : req.client == HOOK_CODEX
	    ? "codex" : "gemini";
	claim.human_name = ctx->claim.human_name ? ctx->claim.human_name : "human";
	if (claim.session_id == NULL && claim.name == NULL)
		claim.name = claim.human_name;
	/*
	 * A session that starts (or resumes) may start again after its agent
	 * ended; every other hook leaves an ended session ended. The process
	 * of Gemini CLI and of Codex is recorded, so that what they start
	 * without a session variable finds the session (core/agent.h):
	 * Gemini CLI's shell commands, and the MCP server of either ('daicho
	 * mcp'). Claude Code gives both its session id.
	 */
	claim.starting = req.event == HOOK_SESSION_START;
	if (claim.starting && req.client != HOOK_CLAUDE)
		claim.client_pid = client_hook_process();
	if ((rc = agent_resolve(ctx->ledger, &claim, &ctx->caller, ctx->err)) < 0) {
		hook_answer_unreadable(req.client, req.event, payload,
		    ctx->err->message.buf, &answer);
		err_release(ctx->err);
		*ctx->err = (struct err)ERR_INIT;
		rc = print_answer(ctx, &answer);
		goto done;
	}
	req.payload = payload;
	req.ledger = ctx->ledger;
	req.caller = &ctx->caller;
	req.agent_name = getenv("DAICHO_AGENT");
	if (req.agent_name && *req.agent_name == '\0')
		req.agent_name = NULL;
	req.runner_task = hook_runner_task(getenv("DAICHO_TASK"), req.agent_name);
	/*
	 * A runner's worker whose slot agent is gone: no write of this hook
	 * (nor the heartbeat after it) may register an agent of that name,
	 * which would inherit the runner's claims.
	 */
	if (req.runner_task && ctx->caller.id == 0)
		ctx->caller.ended = true;
	hook_answer(&req, &answer);
	rc = print_answer(ctx, &answer);
	/* The answer is out: now the writes it implies (read marks, heartbeat). */
	{
		size_t said = answer.message.len;

		hook_finish(&req, &answer);
		if (answer.message.len > said)
			fprintf(stderr, "%s\n", answer.message.buf + said +
			    (answer.message.buf[said] == '\n'));
	}
done:
	json_decref(payload);
	buf_release(&input);
	hook_answer_release(&answer);
	return rc;
}

const struct cmd_entry cmd_hook_entry = {
	.name = "hook",
	.usage = "hook claude|codex|gemini EVENT | hook git pre-commit",
	.summary = "answer an agent client's hook (JSON on stdin) or git's",
	.help =
	    "Installed by 'daicho init --claude|--codex|--gemini' (see\n"
	    "docs/claude-code.md, docs/codex.md, docs/gemini.md); reads the\n"
	    "client's hook JSON on stdin and answers in its protocol.\n\n"
	    "Events: claude: session-start, pre-tool-use, post-tool-use, stop,\n"
	    "session-end; codex: session-start, pre-tool-use, post-tool-use, stop;\n"
	    "gemini: SessionStart, BeforeTool, AfterTool, SessionEnd (the clients'\n"
	    "own names, PreToolUse and so on, are accepted too).\n\n"
	    "session-start registers the session as an agent (named by\n"
	    "$DAICHO_AGENT, else derived from the session) and tells it, in three\n"
	    "lines, its name and how to work with daicho. Every event is a\n"
	    "heartbeat. Unread messages are delivered (and marked read) as\n"
	    "additional context: by Claude Code's pre-tool-use, and by the\n"
	    "post-tool-use of Codex and Gemini, which drop pre-tool context. For\n"
	    "a shell command pre-tool-use denies 'daicho approve', 'deny' and\n"
	    "'gate rm' (also inside script -c, sh -c and the like), commands that\n"
	    "strip or blank DAICHO_AGENT or the client's variables (env -u, env\n"
	    "-i, VAR=, unset), and commands a human denied; a command whose\n"
	    "program cannot be known without running it ($(...) or $VAR in its\n"
	    "place, input piped into a shell or interpreter) gets \"ask\" from\n"
	    "Claude Code and a deny from Codex and Gemini, which cannot ask; a\n"
	    "command matching a gate with --require is denied with the 'daicho\n"
	    "gate exec -- CMD' to run instead; one matching an --approval gate\n"
	    "gets \"ask\" from Claude Code (the person confirms in that session)\n"
	    "and a deny with those instructions from Codex and Gemini; an edit of\n"
	    "a path another live agent reserved is denied. stop blocks once while\n"
	    "the agent holds claimed tasks it has neither reported nor released.\n"
	    "session-end ends the agent.\n\n"
	    "A worker of 'daicho run' (DAICHO_TASK and DAICHO_AGENT in the\n"
	    "environment, which the runner sets and the client passes on) belongs\n"
	    "to the runner: session-start registers nothing and leaves the slot\n"
	    "agent's kind and role as they are (it tells the agent its task),\n"
	    "stop names only that task, session-end leaves the agent to the\n"
	    "runner, and no hook registers the slot agent again once it is gone.\n\n"
	    "Answers within 1.8s (1.2s for session-end). Errors fail closed (exit 2, the reason on stderr)\n"
	    "for shell commands that are gated or cannot be checked, and open\n"
	    "(exit 0) for everything else. No ledger: allowed, silently.\n\n"
	    "git pre-commit refuses (exit 4) a commit that stages a path reserved\n"
	    "by another live agent, naming it and when it was last seen.\n",
	.flags = 0,
	.min_args = 2,
	.max_args = 2,
	.exec = exec_hook,
};
