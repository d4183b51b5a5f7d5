/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * What only a person may do, in one table, and the one check that proves a
 * person: no agent identity however it is spelled, a terminal that is the
 * session's own, and no agent client among the ancestors. cmd_execute()
 * runs the check for every command, from the command line, the MCP server
 * and the dashboard alike, before the command does anything.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "util/buf.h"
#include "util/client.h"

/* config changes a setting: KEY VALUE..., or --unset KEY. */
static bool
config_changes(const struct cmd_ctx *ctx)
{
	return ctx->argc >= 2 || cmd_has_named(ctx, "unset");
}

/* config_changes() over the words after "config" (a shell line's). */
static bool
config_words_change(const char *const *words, size_t count)
{
	size_t positional = 0;

	for (size_t i = 0; i < count; i++) {
		if (strcmp(words[i], "--unset") == 0)
			return true;
		if (words[i][0] != '-')
			positional++;
	}
	return positional >= 2;
}

/*
 * The table. An entry with agents_too is also an agent's command, under
 * the core's rules for agents (the agent that added a task may edit its
 * checks, a holder unblocks its task): the person's check applies when
 * no agent identity is given, so that an agent that strips its own cannot
 * borrow the person's wider rights. Without agents_too an agent is
 * refused outright.
 */
static const struct person_act {
	const char *command;
	const char *option;  /* NULL: the command itself */
	bool (*applies)(const struct cmd_ctx *ctx); /* NULL: always */
	/* applies() over a shell line's words after the command's */
	bool (*applies_words)(const char *const *words, size_t count);
	bool agents_too;
	const char *what;
	const char *form;    /* how help shows it; NULL: COMMAND --OPTION */
} person_acts[] = {
	{ "approve", NULL, NULL, NULL, false, "approve", "approve ID" },
	{ "deny", NULL, NULL, NULL, false, "deny", "deny ID" },
	{ "gate rm", NULL, NULL, NULL, false, "remove a gate", NULL },
	{ "config", NULL, config_changes, config_words_change, false,
	  "change settings", "config KEY VALUE, --unset" },
	{ "import", NULL, NULL, NULL, false, "import a ledger", NULL },
	{ "release", "force", NULL, NULL, false, "take a task back from its holder "
	  "(release --force)", NULL },
	{ "land", "pause", NULL, NULL, false, "pause landing", NULL },
	{ "land", "resume", NULL, NULL, false, "resume landing", NULL },
	{ "serve", "login-url", NULL, NULL, false, "log a browser in to the "
	  "dashboard (serve --login-url)", NULL },
	{ "serve", "revoke", NULL, NULL, false, "log browsers out of the "
	  "dashboard (serve --revoke)", NULL },
	{ "add", "no-baseline", NULL, NULL, false, "judge a task without the "
	  "claim's base (--no-baseline)", NULL },
	{ "add", "check-needs", NULL, NULL, false, "give a task's checks the "
	  "network (--check-needs)", NULL },
	{ "edit", "no-baseline", NULL, NULL, false, "judge a task without the "
	  "claim's base (--no-baseline)", NULL },
	{ "edit", "check-needs", NULL, NULL, false, "give a task's checks the "
	  "network (--check-needs)", NULL },
	{ "edit", "done-when", NULL, NULL, true, "change a task's checks", NULL },
	{ "edit", "check-timeout", NULL, NULL, true, "change a task's check "
	  "timeout", NULL },
	{ "edit", "touches", NULL, NULL, true, "set a task's scope", NULL },
	{ "edit", "protect", NULL, NULL, true, "change what a task protects",
	  NULL },
	{ "edit", "after", NULL, NULL, true, "order tasks", NULL },
	{ "edit", "not-after", NULL, NULL, true, "remove a dependency", NULL },
	{ "cancel", NULL, NULL, NULL, true, "cancel a task", NULL },
	{ "reopen", NULL, NULL, NULL, true, "reopen a task", NULL },
	{ "unblock", NULL, NULL, NULL, true, "unblock a task", NULL },
	{ "resume", NULL, NULL, NULL, true, "end an agent's wait", NULL },
};

#define PERSON_ACTS (sizeof(person_acts) / sizeof(person_acts[0]))

bool
cmd_words_person_act(const char *const *words, size_t count)
{
	for (size_t i = 0; i < PERSON_ACTS; i++) {
		const struct person_act *act = &person_acts[i];
		size_t len = strcspn(act->command, " "), rest = 1;
		bool option = act->option == NULL;

		if (act->agents_too || count == 0 ||
		    strncmp(words[0], act->command, len) != 0 ||
		    words[0][len] != '\0')
			continue;
		/* A family's second word ("gate rm"). */
		if (act->command[len] == ' ' && (count < 2 ||
		    strcmp(words[1], act->command + len + 1) != 0))
			continue;
		if (act->command[len] == ' ')
			rest = 2;
		for (size_t j = rest; j < count && !option; j++) {
			size_t n = strlen(act->option);

			option = strncmp(words[j], "--", 2) == 0 &&
			    strncmp(words[j] + 2, act->option, n) == 0 &&
			    (words[j][2 + n] == '\0' || words[j][2 + n] == '=');
		}
		if (option && (act->applies_words == NULL ||
		    act->applies_words(words + rest, count - rest)))
			return true;
	}
	return false;
}

/* Whether act is what ctx is about to do. */
static bool
act_matches(const struct person_act *act, const struct cmd_ctx *ctx)
{
	if (strcmp(act->command, ctx->entry->name) != 0)
		return false;
	if (act->option != NULL && !cmd_has_named(ctx, act->option))
		return false;
	return act->applies == NULL || act->applies(ctx);
}

/*
 * Why this process is an agent's, looking at its environment, --as, its
 * terminal and the processes above it, into why (empty when it is not);
 * what was looked at goes into checked.
 */
static void
find_agent(struct cmd_ctx *ctx, struct buf *why, json_t *checked)
{
	struct client_ancestry ancestry;
	const char *tty = ttyname(STDIN_FILENO);

	for (size_t i = 0; client_identity_variables[i] != NULL; i++) {
		const char *value = getenv(client_identity_variables[i]);

		if (value != NULL) {
			buf_addf(why, "$%s is set%s: this is an agent's environment",
			    client_identity_variables[i], *value ? "" : ", if empty");
			return;
		}
	}
	json_object_set_new(checked, "agent_variables", json_string("none set"));
	if (ctx->explicit_agent) {
		buf_adds(why, ctx->claim.name ? "--as names an agent"
		    : "this is an agent client's shell");
		return;
	}
	if (!isatty(STDIN_FILENO)) {
		buf_adds(why, "stdin is not a terminal");
		return;
	}
	if (!client_stdin_is_controlling_terminal()) {
		buf_addf(why, "stdin (%s) is not the controlling terminal of this "
		    "session, only a terminal device opened", tty ? tty : "?");
		return;
	}
	json_object_set_new(checked, "terminal", json_sprintf("%s, the "
	    "session's controlling terminal", tty ? tty : "?"));
	client_find_ancestor(&ancestry);
	json_object_set_new(checked, "ancestors",
	    json_string(ancestry.ancestors.buf));
	if (ancestry.session.len > 0)
		json_object_set_new(checked, "session_leader",
		    json_string(ancestry.session.buf));
	if (ancestry.client_pid != 0)
		buf_addf(why, "an agent client, %s (pid %ld), is among the "
		    "ancestors of %s: it runs inside an agent's session",
		    ancestry.client_kind, (long)ancestry.client_pid,
		    ancestry.client_above_session ? "its terminal's session leader"
		    : "this process");
	else
		json_object_set_new(checked, "agent_client", json_string("none "
		    "among the ancestors"));
	client_ancestry_release(&ancestry);
}

int
cmd_require_human(struct cmd_ctx *ctx, const char *what, json_t **checked)
{
	json_t *found;
	struct buf why = BUF_INIT;
	int rc = 0;

	if (ctx->human_proof != NULL) {
		if (checked != NULL)
			*checked = json_deep_copy(ctx->human_proof->checked);
		return 0;
	}
	if (ctx->person_checked != NULL) {
		if (checked != NULL)
			*checked = json_deep_copy(ctx->person_checked);
		return 0;
	}
	found = json_object();
	find_agent(ctx, &why, found);
	if (why.len > 0)
		rc = err_set(ctx->err, ERR_REFUSED, "only a human at a terminal may "
		    "%s (%s; a person must type it in their own shell; nothing was "
		    "changed; see 'daicho help person')", what, why.buf);
	buf_release(&why);
	if (rc < 0) {
		json_decref(found);
		return rc;
	}
	ctx->person_checked = found;
	if (checked != NULL)
		*checked = json_deep_copy(found);
	return 0;
}

bool
cmd_is_person(struct cmd_ctx *ctx)
{
	struct err scratch = ERR_INIT, *real = ctx->err;
	int rc;

	if (ctx->explicit_agent)
		return false;
	ctx->err = &scratch;
	rc = cmd_require_human(ctx, "act as a person", NULL);
	ctx->err = real;
	err_release(&scratch);
	return rc == 0;
}

int
cmd_check_person_acts(struct cmd_ctx *ctx)
{
	for (size_t i = 0; i < PERSON_ACTS; i++) {
		const struct person_act *act = &person_acts[i];
		int rc;

		if (!act_matches(act, ctx))
			continue;
		if (act->agents_too && ctx->explicit_agent)
			continue; /* the agent's own rules apply (core) */
		if ((rc = cmd_require_human(ctx, act->what, NULL)) < 0)
			return rc;
	}
	return 0;
}

/* One line of the table: the command, its option, what it does. */
static void
print_act(const struct person_act *act, FILE *out)
{
	char left[64];

	if (act->form != NULL)
		snprintf(left, sizeof(left), "%s", act->form);
	else
		snprintf(left, sizeof(left), "%s%s%s", act->command,
		    act->option ? " --" : "", act->option ? act->option : "");
	fprintf(out, "  %-26s %s%s\n", left, act->what,
	    act->agents_too ? " (an agent: its own rules)" : "");
}

void
cmd_print_person_acts(FILE *out)
{
	fprintf(out,
	    "What only a person may do. Each needs all three: no agent identity\n"
	    "(DAICHO_AGENT, --as, an agent client's session variable, set even if\n"
	    "empty), stdin a terminal that is the session's controlling terminal,\n"
	    "and no agent client (Claude Code, Codex, Gemini CLI) among the\n"
	    "ancestors of the command or of its session leader. Refused: exit 6,\n"
	    "nothing changed. The dashboard acts with the proof its login took.\n"
	    "Marked \"its own rules\": an agent may run it too, with only an\n"
	    "agent's rights (the agent that added a task, the task's holder).\n\n");
	for (size_t i = 0; i < PERSON_ACTS; i++)
		print_act(&person_acts[i], out);
	fprintf(out, "\nAlso a person's alone: fields a person set on a task (its "
	    "checks, scope,\nprotected paths and dependencies) are not an agent's "
	    "to change.\n");
}

void
cmd_print_entry_person_acts(const struct cmd_entry *entry, FILE *out)
{
	bool any = false;

	for (size_t i = 0; i < PERSON_ACTS; i++) {
		const struct person_act *act = &person_acts[i];

		if (strcmp(act->command, entry->name) != 0)
			continue;
		if (!any)
			fprintf(out, "\nA person's alone, at a terminal (see 'daicho "
			    "help person'):\n");
		any = true;
		print_act(act, out);
	}
}
