/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Gates and approvals: gate add, gate ls, gate rm, gate exec, approvals,
 * approve, deny.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/gate.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/proc.h"
#include "util/user.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum gate_option {
	OPT_APPROVAL,
	OPT_REQUIRE,
	OPT_NOTE,
	OPT_ALL,
	OPT_IF,
	OPT_TTL,
	OPT_REASON,
	OPTION_COUNT
};

/* How long a --require or --if command may run. */
#define CHECK_TIMEOUT_MS (10 * 60 * 1000)

static int
exec_gate_add(struct cmd_ctx *ctx)
{
	struct gate_spec spec = { 0 };
	char **requires = NULL;
	const char *value;
	size_t pos = 0, count = 0;
	int64_t id;
	int rc;

	while (cmd_opt_next(ctx, OPT_REQUIRE, &pos) != NULL)
		count++;
	requires = xcalloc(count + 1, sizeof(*requires));
	pos = 0;
	for (size_t i = 0; (value = cmd_opt_next(ctx, OPT_REQUIRE, &pos)) != NULL; i++)
		requires[i] = (char *)value;
	spec.pattern = ctx->argv[0];
	spec.approval = cmd_has(ctx, OPT_APPROVAL);
	spec.requires = requires;
	spec.require_count = count;
	spec.note = cmd_opt(ctx, OPT_NOTE);
	rc = gate_add(ctx->ledger, &spec, &id, ctx->err);
	free(requires);
	if (rc < 0)
		return rc;
	if (ctx->json)
		return cmd_print_json(ctx, json_pack("{s:I}", "gate", (json_int_t)id));
	if (!ctx->quiet)
		printf("gate #%lld\n", (long long)id);
	return 0;
}

const struct cmd_entry cmd_gate_add_entry = {
	.name = "gate add",
	.usage = "gate add PATTERN [--approval] [--require CMD]... [--note TEXT]",
	.summary = "gate the commands that match PATTERN",
	.help =
	    "PATTERN is a command line whose words are globs (* ? [..]; quote\n"
	    "them for the shell that runs daicho). It is matched on the parsed\n"
	    "words of each simple command, so spacing, quoting, sudo/env/timeout\n"
	    "wrappers, sh -c strings, && chains and $(...) do not hide a command:\n"
	    "  - the first word matches the program (its basename);\n"
	    "  - each further word must match a later word, in order but not\n"
	    "    necessarily next to it: 'git push --force*' matches\n"
	    "    'git -C repo push origin main --force-with-lease';\n"
	    "  - a trailing lone * matches any words or none: 'git merge *'\n"
	    "    matches 'git merge' and 'git merge feature';\n"
	    "  - --opt=value also matches a pattern word --opt.\n"
	    "Combined short flags (-f for --force) and variables are not\n"
	    "expanded: gate each spelling you mean ('git push -f*' too). A\n"
	    "command line that cannot be parsed matches every gate.\n\n"
	    "A matching command runs through 'daicho gate exec -- CMD...' only\n"
	    "when every --require command passes right then and, with\n"
	    "--approval, a human approved this exact command for this agent.\n"
	    "The agent hooks ask (Claude Code) or deny with instructions (Codex,\n"
	    "Gemini) when an agent runs a gated command directly.\n\n"
	    "PATTERN land:GLOB gates landing instead of a command (see 'daicho\n"
	    "land --help'): verified work whose commit changes a path matching\n"
	    "GLOB lands only once a person approved it, with --approval (no\n"
	    "--require: the land-check is what every landing runs). The tasks\n"
	    "of a batch that touch such paths wait for one approval together,\n"
	    "shown in 'daicho approvals' and NEEDS YOU; the others land on.\n"
	    "Example: daicho gate add 'land:migrations/**' --approval\n\n"
	    "Prints \"gate #ID\". JSON: {gate: id}.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_APPROVAL] = { "approval", 0, NULL,
		"each run needs a human approval" },
	    [OPT_REQUIRE] = { "require", 0, "CMD",
		"a shell command that must pass first (repeat)",
		CMD_OPTION_REPEATS },
	    [OPT_NOTE] = { "note", 0, "TEXT",
		"shown when the gate stops a command" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_gate_add,
};

static int
exec_gate_ls(struct cmd_ctx *ctx)
{
	json_t *gates = NULL, *g, *r;
	size_t i, j;
	int rc;

	if ((rc = gate_list(ctx->ledger, &gates, ctx->err)) < 0) {
		json_decref(gates);
		return rc;
	}
	if (ctx->json)
		return cmd_print_json(ctx, gates);
	json_array_foreach(gates, i, g) {
		struct buf pattern = BUF_INIT, note = BUF_INIT;

		cmd_add_printable(&pattern, cmd_json_str(g, "pattern", ""));
		printf("#%lld  %s%s\n", (long long)cmd_json_int(g, "id"), pattern.buf,
		    json_is_true(json_object_get(g, "approval")) ? "  [approval]" : "");
		json_array_foreach(json_object_get(g, "requires"), j, r) {
			struct buf cmd = BUF_INIT;

			cmd_add_printable(&cmd, json_string_value(r));
			printf("     requires: %s\n", cmd.buf);
			buf_release(&cmd);
		}
		if (json_is_string(json_object_get(g, "note"))) {
			cmd_add_printable(&note, cmd_json_str(g, "note", ""));
			printf("     note: %s\n", note.buf);
		}
		buf_release(&pattern);
		buf_release(&note);
	}
	json_decref(gates);
	return 0;
}

const struct cmd_entry cmd_gate_ls_entry = {
	.name = "gate ls",
	.usage = "gate ls",
	.summary = "list the gates",
	.help =
	    "One gate per entry: id, pattern, [approval], its required commands\n"
	    "and note.\n\n"
	    "JSON: an array of {id, pattern, approval, requires, note,\n"
	    "created_ms, created_by}.\n",
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_gate_ls,
};

static int
exec_gate_rm(struct cmd_ctx *ctx)
{
	int64_t id;
	int rc;

	if ((rc = cmd_id_arg(ctx, "gate", ctx->argv[0], &id)) < 0)
		return rc;
	json_t *checked = NULL;

	if ((rc = cmd_require_human(ctx, "remove a gate", &checked)) < 0)
		return rc;
	rc = gate_remove(ctx->ledger, id, checked, ctx->err);
	json_decref(checked);
	if (rc == 0)
		cmd_say(ctx, "removed gate #%lld", (long long)id);
	return rc;
}

const struct cmd_entry cmd_gate_rm_entry = {
	.name = "gate rm",
	.usage = "gate rm ID",
	.summary = "remove a gate (a human at a terminal only)",
	.help =
	    "Removes gate ID. Like approve, only a human at a terminal may (an\n"
	    "agent that could remove a gate would not be stopped by it): the\n"
	    "same checks, recorded in the gate-rm event. On the terminal it\n"
	    "prints one line (removed gate #2).\n",
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_gate_rm,
};

/* Run a --require or --if command in cwd; 0, or ERR_REFUSED saying so. */
static int
check_passes(struct cmd_ctx *ctx, const char *command, const char *cwd,
    const char *what, const char *note)
{
	struct proc_result result = { 0 };
	struct buf tail = BUF_INIT, shown = BUF_INIT;
	int rc = 0;

	if (proc_run_shell(command, cwd, NULL, CHECK_TIMEOUT_MS, 512,
		&result) < 0)
		return err_set(ctx->err, ERR_FAILED, "cannot run '%s' (%s)", command,
		    strerror(errno));
	if (result.exit_status != 0 || result.timed_out) {
		size_t end = result.output.len, start;
		char *line;

		/* The last non-empty line of the output, as a hint. */
		while (end > 0 && result.output.buf[end - 1] == '\n')
			end--;
		for (start = end; start > 0 && result.output.buf[start - 1] != '\n';)
			start--;
		line = xstrndup(result.output.buf + start, end - start);
		cmd_add_printable(&tail, line);
		free(line);
		cmd_add_printable(&shown, command);
		if (result.timed_out)
			rc = err_set(ctx->err, ERR_REFUSED, "%s '%s' timed out; not run%s"
			    "%s", what, shown.buf, note ? "; note: " : "",
			    note ? note : "");
		else
			rc = err_set(ctx->err, ERR_REFUSED, "%s '%s' failed (exit %d%s%s)"
			    "; not run%s%s", what, shown.buf, result.exit_status,
			    tail.len ? ": " : "", tail.buf, note ? "; note: " : "",
			    note ? note : "");
	}
	buf_release(&tail);
	buf_release(&shown);
	proc_result_release(&result);
	return rc;
}

/* Check every --require of the matching gates. */
static int
check_requires(struct cmd_ctx *ctx, json_t *gates, const char *cwd)
{
	json_t *g, *r;
	size_t i, j;
	int rc;

	json_array_foreach(gates, i, g) {
		json_array_foreach(json_object_get(g, "requires"), j, r) {
			char what[96];

			snprintf(what, sizeof(what), "gate #%lld requires",
			    (long long)cmd_json_int(g, "id"));
			if ((rc = check_passes(ctx, json_string_value(r), cwd, what,
				 cmd_json_str(g, "note", NULL))) < 0)
				return rc;
		}
	}
	return 0;
}

/*
 * The approval step of gate exec: use the caller's approval for the
 * command (re-checking its condition), or request one and refuse.
 */
static int
check_approval(struct cmd_ctx *ctx, const struct approval_key *key,
    const char *note)
{
	json_t *granted = NULL, *denial = NULL;
	int64_t id = 0;
	bool created;
	int rc;

	if ((rc = approval_find_denial(ctx->ledger, key, &denial, ctx->err)) < 0)
		return rc;
	if (denial == NULL &&
	    (rc = approval_find_granted(ctx->ledger, key, &granted, ctx->err)) < 0)
		return rc;
	json_decref(denial);
	if (granted) {
		const char *condition = cmd_json_str(granted, "condition", NULL);
		char what[64];

		id = cmd_json_int(granted, "id");
		snprintf(what, sizeof(what), "approval #%lld's condition",
		    (long long)id);
		rc = condition ? check_passes(ctx, condition, key->cwd, what, NULL)
			       : 0;
		json_decref(granted);
		if (rc < 0)
			return rc;
		rc = approval_use(ctx->ledger, id, ctx->err);
		if (rc != -ERR_CONFLICT)
			return rc;
		/* A concurrent run used it first: this run needs its own. */
		err_release(ctx->err);
		*ctx->err = (struct err)ERR_INIT;
	}
	if ((rc = approval_request(ctx->ledger, key, &id, &created, ctx->err)) < 0)
		return rc;
	{
		struct buf shown = BUF_INIT;

		cmd_add_printable(&shown, key->command);
		rc = err_set(ctx->err, ERR_REFUSED, "'%s' needs a human approval "
		    "(gate #%lld%s%s): request #%lld is %s; a human must run 'daicho "
		    "approve %lld' at a terminal, then run this again", shown.buf,
		    (long long)key->gate, note ? ": " : "", note ? note : "",
		    (long long)id, created ? "made" : "pending", (long long)id);
		buf_release(&shown);
		return rc;
	}
}

static int
exec_gate_exec(struct cmd_ctx *ctx)
{
	struct cmdline line = CMDLINE_INIT;
	struct buf fingerprint = BUF_INIT, command_key = BUF_INIT,
		   command = BUF_INIT;
	json_t *gates = NULL, *g;
	char *cwd = getcwd(NULL, 0);
	int64_t approval_gate = 0;
	const char *approval_note = NULL;
	size_t i;
	int rc;

	if (cwd == NULL) {
		rc = err_set(ctx->err, ERR_FAILED, "cannot tell the current "
		    "directory (%s)", strerror(errno));
		goto done;
	}
	cmdline_from_argv((const char *const *)ctx->argv, (size_t)ctx->argc,
	    &line);
	if ((rc = gate_match(ctx->ledger, &line, &gates, ctx->err)) < 0)
		goto done;
	if ((rc = check_requires(ctx, gates, cwd)) < 0)
		goto done;
	json_array_foreach(gates, i, g)
		if (approval_gate == 0 && json_is_true(json_object_get(g, "approval"))) {
			approval_gate = cmd_json_int(g, "id");
			approval_note = cmd_json_str(g, "note", NULL);
		}
	if (approval_gate) {
		struct approval_key key;

		cmdline_fingerprint(&line, cwd, &fingerprint);
		cmdline_fingerprint(&line, "", &command_key);
		for (int a = 0; a < ctx->argc; a++) {
			if (a)
				buf_addch(&command, ' ');
			cmdline_quote_word(&command, ctx->argv[a]);
		}
		key.fingerprint = fingerprint.buf;
		key.command_key = command_key.buf;
		key.command = command.buf;
		key.cwd = cwd;
		key.gate = approval_gate;
		if ((rc = cmd_caller_registered(ctx)) < 0)
			goto done;
		if ((rc = check_approval(ctx, &key, approval_note)) < 0)
			goto done;
	}
	/* Everything passed: become the command. */
	fflush(stdout);
	ledger_close(ctx->ledger);
	ctx->ledger = NULL;
	execvp(ctx->argv[0], ctx->argv);
	rc = err_set(ctx->err, ERR_FAILED, "cannot run '%s' (%s)", ctx->argv[0],
	    strerror(errno));
done:
	json_decref(gates);
	cmdline_release(&line);
	buf_release(&fingerprint);
	buf_release(&command_key);
	buf_release(&command);
	free(cwd);
	return rc < 0 ? rc : 0;
}

const struct cmd_entry cmd_gate_exec_entry = {
	.name = "gate exec",
	.usage = "gate exec -- CMD [ARG]...",
	.summary = "run CMD if every gate that matches it is satisfied",
	.help =
	    "Finds the gates whose pattern matches CMD (see 'daicho gate add\n"
	    "--help') and runs CMD, in place of daicho, only when all are\n"
	    "satisfied: each --require command passes now (run with sh in this\n"
	    "directory), and for an --approval gate an approval exists for this\n"
	    "exact command (its words and this directory) requested by this same\n"
	    "agent, approved by a human, unused and unexpired. Its --if condition,\n"
	    "if any, is run just before and must pass; the approval is then used\n"
	    "up. A command no gate matches just runs.\n\n"
	    "Without an approval it makes (or reuses) a request, prints its id\n"
	    "and what a human must type, and exits 6. A command a human denied\n"
	    "is refused at once for every agent, with who denied it, when and\n"
	    "why. A failed --require or --if also exits 6. Otherwise the exit\n"
	    "status is CMD's own.\n",
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT | CMD_RAW_ARGS,
	.min_args = 1,
	.max_args = -1,
	.exec = exec_gate_exec,
};

/* Print one approval row. */
static void
print_approval(const json_t *a, int64_t now)
{
	struct buf command = BUF_INIT, age = BUF_INIT, detail = BUF_INIT;
	const char *state = cmd_json_str(a, "state", "?");

	cmd_add_printable(&command, cmd_json_str(a, "command", ""));
	clock_add_age(&age, now - cmd_json_int(a, "requested_ms"));
	if (strcmp(state, "pending") == 0) {
		buf_addf(&detail, "daicho approve %lld | daicho deny %lld",
		    (long long)cmd_json_int(a, "id"), (long long)cmd_json_int(a, "id"));
	} else {
		buf_addf(&detail, "by %s on %s", cmd_json_str(a, "decided_by", "?"),
		    cmd_json_str(a, "decided_tty", "?"));
		if (json_is_string(json_object_get(a, "condition"))) {
			buf_adds(&detail, ", if ");
			cmd_add_printable(&detail, cmd_json_str(a, "condition", ""));
		}
		if (json_is_string(json_object_get(a, "reason"))) {
			buf_adds(&detail, ": ");
			cmd_add_printable(&detail, cmd_json_str(a, "reason", ""));
		}
	}
	printf("#%-4lld %-9s %-14s %6s  %s\n       in %s; %s\n",
	    (long long)cmd_json_int(a, "id"), state,
	    cmd_json_str(a, "requester", "?"), age.buf, command.buf,
	    cmd_json_str(a, "cwd", "?"), detail.buf);
	buf_release(&command);
	buf_release(&age);
	buf_release(&detail);
}

static int
exec_approvals(struct cmd_ctx *ctx)
{
	json_t *list = NULL, *a;
	int64_t now = clock_now_ms();
	size_t i;
	int rc;

	if ((rc = approval_list(ctx->ledger, cmd_has(ctx, OPT_ALL) ? 0 : 20, &list,
		 ctx->err)) < 0) {
		json_decref(list);
		return rc;
	}
	if (ctx->json)
		return cmd_print_json(ctx, list);
	json_array_foreach(list, i, a)
		print_approval(a, now);
	json_decref(list);
	return 0;
}

const struct cmd_entry cmd_approvals_entry = {
	.name = "approvals",
	.usage = "approvals [--all]",
	.summary = "list approval requests, pending first",
	.help =
	    "Pending requests first (with what to type to decide them), then the\n"
	    "20 newest decided ones (--all: every one): id, state (pending,\n"
	    "approved, denied, used), requester, age, command and directory, who\n"
	    "decided on which terminal, the condition or the reason.\n\n"
	    "JSON: an array of {id, state, command, cwd, gate, pattern, requester,\n"
	    "requested_ms, decided_ms, decided_by, decided_tty, condition,\n"
	    "reason, expires_ms, used_ms}.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_ALL] = { "all", 'a', NULL, "every decided request too" }),
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_approvals,
};

/* approve and deny: check the human, then decide. */
static int
decide(struct cmd_ctx *ctx, bool approve)
{
	struct approval_decision d = { 0 };
	const char *ttl = approve ? cmd_opt(ctx, OPT_TTL) : NULL, *tty;
	int64_t id;
	int rc;

	if ((rc = cmd_id_arg(ctx, "approval", ctx->argv[0], &id)) < 0)
		return rc;
	d.approve = approve;
	d.ttl_ms = APPROVAL_DEFAULT_TTL_MS;
	if (ttl && (rc = cmd_duration(ctx, OPT_TTL, ttl, &d.ttl_ms)) < 0)
		return rc;
	d.condition = approve ? cmd_opt(ctx, OPT_IF) : NULL;
	d.reason = approve ? NULL : cmd_opt(ctx, OPT_REASON);
	if ((d.condition && !*d.condition) || (d.reason && !*d.reason))
		return err_set(ctx->err, ERR_USAGE, "empty --%s",
		    approve ? "if" : "reason");
	if ((rc = cmd_require_human(ctx, approve ? "approve" : "deny",
		 &d.checked)) < 0)
		return rc;
	tty = ctx->human_proof ? ctx->human_proof->where : ttyname(STDIN_FILENO);
	d.tty = tty ? tty : "?";
	d.user = user_login_name();
	rc = approval_decide(ctx->ledger, id, &d, ctx->err);
	json_decref(d.checked);
	if (rc == 0)
		cmd_say(ctx, "%s #%lld", approve ? "approved" : "denied",
		    (long long)id);
	return rc;
}

static int
exec_approve(struct cmd_ctx *ctx)
{
	return decide(ctx, true);
}

static int
exec_deny(struct cmd_ctx *ctx)
{
	return decide(ctx, false);
}

const struct cmd_entry cmd_approve_entry = {
	.name = "approve",
	.usage = "approve ID [--if CMD] [--ttl DUR]",
	.summary = "approve a pending request (a human at a terminal only)",
	.help =
	    "Approves request ID for the agent that made it and that exact\n"
	    "command in that directory: good once, until --ttl (default 1h).\n"
	    "With --if CMD the approval carries a condition, re-run by 'gate\n"
	    "exec' just before the command: \"merge if the tests pass\" is\n"
	    "'daicho approve 4 --if \"make test\"'.\n\n"
	    "Only a human at a terminal may approve: no agent identity may be in\n"
	    "the environment (DAICHO_AGENT, --as, CLAUDE_CODE_SESSION_ID,\n"
	    "CLAUDECODE, CLAUDE_CODE_CHILD_SESSION, CODEX_THREAD_ID,\n"
	    "CODEX_SANDBOX, GEMINI_SESSION_ID, GEMINI_CLI); stdin must be the\n"
	    "controlling terminal of the session; and no agent client process\n"
	    "(Claude Code, Codex, Gemini CLI) may be among the ancestors of the\n"
	    "process or of its terminal's session leader, so that an agent's\n"
	    "script(1) or pty.spawn is refused. Otherwise exit 6 and the request\n"
	    "stays pending. Records who (login), where (tty) and when, and in\n"
	    "the event what was checked (the terminal, the ancestors). Run it in\n"
	    "your own terminal, not through an agent's shell. On the terminal it\n"
	    "prints one line (approved #3).\n"
	    "See docs/security.md for what this does and does not prevent.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_IF] = { "if", 0, "CMD",
		"a condition re-checked just before the run" },
	    [OPT_TTL] = { "ttl", 0, "DUR",
		"the approval expires after DUR (1h)" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_approve,
};

const struct cmd_entry cmd_deny_entry = {
	.name = "deny",
	.usage = "deny ID [--reason TEXT]",
	.summary = "deny a pending request (a human at a terminal only)",
	.help =
	    "Denies request ID. The denial is remembered for the command's words:\n"
	    "a request for the same command by any agent, in any directory, is\n"
	    "refused at once showing who denied it, when and why. The refused\n"
	    "request is still recorded as pending, so a human who changes their\n"
	    "mind lifts the denial for that agent and command by approving it.\n"
	    "Same human-only rule as 'daicho approve'. On the terminal it prints\n"
	    "one line (denied #3).\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_REASON] = { "reason", 0, "TEXT",
		"why, shown to whoever asks again" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_deny,
};
