/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* The agent registry and waits: agent start, agent end, agents, wait, resume. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/task.h"
#include "core/wait.h"
#include "util/alloc.h"
#include "util/clock.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum agent_option {
	OPT_ROLE,
	OPT_KIND,
	OPT_ALL,
	OPT_STALE_AFTER,
	OPT_FOR,
	OPT_OWNER,
	OPT_REMIND,
	OPTION_COUNT
};

static const char *const kinds[] = { "claude", "codex", "gemini", "script",
	"human" };

/* --stale-after, else the ledger's setting, else AGENT_STALE_AFTER_MS. */
static int
stale_after(struct cmd_ctx *ctx, int64_t *ms)
{
	return cmd_default(ctx, OPT_STALE_AFTER, "stale-after", 0,
	    AGENT_STALE_AFTER_MS, ms);
}

static int
exec_agent_start(struct cmd_ctx *ctx)
{
	struct agent_start_request req = { 0 };
	struct agent_started started;
	bool known_kind = false;
	int rc;

	req.name = ctx->argv[0];
	req.role = cmd_opt(ctx, OPT_ROLE);
	req.kind = cmd_opt(ctx, OPT_KIND);
	req.session_id = ctx->session_id;
	req.as_self = ctx->claim.name && strcmp(ctx->claim.name, req.name) == 0;
	if (req.kind == NULL)
		req.kind = ctx->session_kind ? ctx->session_kind : "script";
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		known_kind |= strcmp(kinds[i], req.kind) == 0;
	if (!known_kind)
		return err_set(ctx->err, ERR_USAGE, "unknown --kind '%s' (use claude, "
		    "codex, gemini, script or human)", req.kind);
	if ((rc = stale_after(ctx, &req.stale_after_ms)) < 0)
		return rc;
	if ((rc = agent_register(ctx->ledger, &req, &started, ctx->err)) < 0)
		return rc;
	if (ctx->json)
		return cmd_print_json(ctx, json_pack("{s:I, s:s, s:s?, s:s, s:s?, "
		    "s:o, s:b, s:b}", "id", (json_int_t)started.id, "name", req.name,
		    "role", req.role, "kind", req.kind, "session_id", req.session_id,
		    "replaced", started.replaced ? json_integer(started.replaced)
						 : json_null(), "renamed", started.renamed,
		    "again", started.again));
	if (ctx->quiet)
		return 0;
	printf("%s agent %s%s%s%s%s", started.again ? "restarted" : "started",
	    req.name, req.role ? " (role " : "", req.role ? req.role : "",
	    req.role ? ")" : "", started.replaced
	    ? ", taking the name over from a stale agent" : "");
	if (req.session_id)
		printf(", bound to %s session %s\n", req.kind, req.session_id);
	else
		printf("; its commands need DAICHO_AGENT=%s or --as %s\n", req.name,
		    req.name);
	return 0;
}

const struct cmd_entry cmd_agent_start_entry = {
	.name = "agent start",
	.usage = "agent start NAME [--role ROLE] [--kind KIND] [--stale-after DUR]",
	.summary = "register as the agent NAME",
	.help =
	    "Registers the caller as NAME. When $CLAUDE_CODE_SESSION_ID,\n"
	    "$CODEX_THREAD_ID or $GEMINI_SESSION_ID is set, the session is bound to\n"
	    "NAME: every later daicho command of that session acts as NAME (a\n"
	    "session that already had an agent renames it, keeping its claims).\n"
	    "Otherwise commands name it with DAICHO_AGENT=NAME or --as NAME.\n\n"
	    "A name is held by one live agent at a time. Starting a name held by\n"
	    "a live agent is refused (exit 4) with its session and when it was\n"
	    "last seen, unless it is the same session again (or, with no session,\n"
	    "a caller already named NAME by --as or DAICHO_AGENT). A holder unseen for\n"
	    "--stale-after (default 10m; a waiting agent is never stale), or whose\n"
	    "process is gone, is taken over: it is ended and the take-over logged.\n"
	    "A name is an identity: the new agent of a name takes over the claims\n"
	    "and open waits of its ended predecessors (a session that comes back\n"
	    "after /clear or a crash finishes its own work).\n\n"
	    "--kind defaults to the session's client, else script.\n\n"
	    "JSON: {id, name, role, kind, session_id, replaced (the agent taken\n"
	    "over, or null), renamed, again}.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_ROLE] = { "role", 0, "ROLE",
		"the role it plays (manager, implementer...)" },
	    [OPT_KIND] = { "kind", 0, "KIND",
		"claude, codex, gemini, script or human" },
	    [OPT_STALE_AFTER] = { "stale-after", 0, "DUR",
		"a holder unseen this long may be taken over" }),
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_agent_start,
};

static int
exec_agent_end(struct cmd_ctx *ctx)
{
	int64_t id;
	int rc;

	if (ctx->argc == 0 && !ctx->explicit_agent)
		return err_set(ctx->err, ERR_USAGE, "which agent? (name it: 'daicho "
		    "agent end NAME', or run as it with --as or DAICHO_AGENT)");
	if ((rc = agent_end_named(ctx->ledger, ctx->argc ? ctx->argv[0] : NULL,
		 &id, ctx->err)) < 0)
		return rc;
	if (ctx->json)
		return cmd_print_json(ctx, json_pack("{s:I}", "ended", (json_int_t)id));
	return 0;
}

const struct cmd_entry cmd_agent_end_entry = {
	.name = "agent end",
	.usage = "agent end [NAME]",
	.summary = "end an agent (the caller, or NAME)",
	.help =
	    "Ends the caller, or the live agent NAME (say, a session that died).\n"
	    "Its claims and waits stay, visible as such: claims run out with\n"
	    "their leases; its waits stay listed until resumed. Messages to it are\n"
	    "refused from now on (see 'daicho send'). Prints nothing.\n\n"
	    "JSON: {ended: agent id}.\n",
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 0,
	.max_args = 1,
	.exec = exec_agent_end,
};

void
cmd_add_agent(struct buf *out, const json_t *a, int64_t now, bool colour)
{
	struct buf name = BUF_INIT, holds = BUF_INIT;
	json_t *claims = json_object_get(a, "claims"), *waits, *v;
	const char *state = cmd_json_str(a, "state", "-");
	size_t i;

	cmd_add_printable(&name, cmd_json_str(a, "name", ""));
	json_array_foreach(claims, i, v)
		buf_addf(&holds, "%s#%lld", i ? "," : "",
		    (long long)json_integer_value(v));
	if (holds.len == 0)
		buf_adds(&holds, "-");
	buf_addf(out, "%-20s %-12s %-7s ", name.buf, cmd_json_str(a, "role", "-"),
	    cmd_json_str(a, "kind", "-"));
	cmd_add_toned(out, colour, cmd_tone_of(state), state, 8);
	buf_addf(out, " %-12s %6lld  ", holds.buf,
	    (long long)cmd_json_int(a, "unread"));
	cmd_add_seen(out, cmd_json_int(a, "last_seen_ms"), now);
	buf_addch(out, '\n');
	waits = json_object_get(a, "waits");
	json_array_foreach(waits, i, v) {
		struct buf what = BUF_INIT, age = BUF_INIT;
		bool overdue = now - cmd_json_int(v, "started_ms") >=
			       cmd_json_int(v, "remind_ms");

		cmd_add_printable(&what, cmd_json_str(v, "what", ""));
		clock_add_age(&age, now - cmd_json_int(v, "started_ms"));
		buf_addf(out, "  waiting #%lld for %s (%lld open), owner %s, %s old",
		    (long long)cmd_json_int(v, "id"), what.buf,
		    (long long)cmd_json_int(v, "open_items"),
		    cmd_json_str(v, "owner", "(the human)"), age.buf);
		if (overdue) {
			buf_adds(out, " (");
			cmd_add_toned(out, colour, cmd_tone_of("overdue"), "overdue", 0);
			buf_addch(out, ')');
		}
		buf_addch(out, '\n');
		buf_release(&what);
		buf_release(&age);
	}
	buf_release(&name);
	buf_release(&holds);
}

void
cmd_add_agents_heading(struct buf *out, const json_t *agents)
{
	if (json_array_size(agents) > 0)
		buf_addf(out, "%-20s %-12s %-7s %-8s %-12s %6s  %s\n", "NAME", "ROLE",
		    "KIND", "STATE", "HOLDS", "UNREAD", "LAST SEEN");
}

void
cmd_print_agents(const json_t *agents, int64_t now, bool colour)
{
	struct buf table = BUF_INIT;
	const json_t *a;
	size_t i;

	cmd_add_agents_heading(&table, agents);
	json_array_foreach(agents, i, a)
		cmd_add_agent(&table, a, now, colour);
	fputs(table.buf, stdout);
	buf_release(&table);
}

static int
exec_agents(struct cmd_ctx *ctx)
{
	json_t *agents = NULL;
	int64_t stale;
	int rc;

	if ((rc = stale_after(ctx, &stale)) < 0)
		return rc;
	if ((rc = agent_list(ctx->ledger, cmd_has(ctx, OPT_ALL), stale, &agents,
		 ctx->err)) < 0)
		return rc;
	if (ctx->json)
		return cmd_print_json(ctx, agents);
	cmd_print_agents(agents, clock_now_ms(), cmd_colour());
	json_decref(agents);
	return 0;
}

const struct cmd_entry cmd_agents_entry = {
	.name = "agents",
	.usage = "agents [--all] [--stale-after DUR]",
	.summary = "list the live agents, with when each was last seen",
	.help =
	    "One row per live agent, by name: role, kind, state, the tasks it\n"
	    "holds, unread messages, and when it was last seen (age and UTC\n"
	    "time); under it, each open wait with its owner and age. States:\n"
	    "active; waiting (never shown as gone, however quiet); stale (unseen\n"
	    "for --stale-after, default 10m: shown so before the sweep marks it);\n"
	    "ended (only with --all).\n\n"
	    "JSON: an array of {id, name, role, kind, state, session_id, pid, host,\n"
	    "started_ms, last_seen_ms, ended_ms, claims: [task ids], unread,\n"
	    "waits: [{id, what, owner, started_ms, remind_ms, open_items}]}.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_ALL] = { "all", 'a', NULL, "include ended agents" },
	    [OPT_STALE_AFTER] = { "stale-after", 0, "DUR",
		"unseen this long is stale (10m)" }),
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_agents,
};

static int
exec_wait(struct cmd_ctx *ctx)
{
	struct wait_request req = { 0 };
	struct wait_item *items = NULL;
	const char *value, *remind = cmd_opt(ctx, OPT_REMIND);
	size_t pos = 0, count = 0;
	int64_t id;
	int rc;

	if (!ctx->explicit_agent) {
		rc = err_set(ctx->err, ERR_USAGE, "who is waiting? (run as the "
		    "agent: --as NAME, DAICHO_AGENT, or its session)");
		goto done;
	}
	while ((value = cmd_opt_next(ctx, OPT_FOR, &pos)) != NULL)
		count++;
	items = xcalloc(count ? count : 1, sizeof(*items));
	pos = 0;
	for (size_t i = 0; i < count; i++) {
		struct err ignored = ERR_INIT;

		items[i].what = cmd_opt_next(ctx, OPT_FOR, &pos);
		if (*items[i].what == '\0') {
			rc = err_set(ctx->err, ERR_USAGE, "empty --for");
			goto done;
		}
		if (task_parse_id(items[i].what, &items[i].task, &ignored) < 0)
			items[i].task = 0;
		err_release(&ignored);
	}
	req.items = items;
	req.item_count = count;
	req.owner = cmd_opt(ctx, OPT_OWNER);
	req.remind_ms = WAIT_DEFAULT_REMIND_MS;
	if (remind && (rc = cmd_duration(ctx, OPT_REMIND, remind, &req.remind_ms)) < 0)
		goto done;
	if ((rc = wait_begin(ctx->ledger, &req, &id, ctx->err)) < 0)
		goto done;
	if (ctx->json)
		rc = cmd_print_json(ctx, json_pack("{s:I}", "wait", (json_int_t)id));
	else if (!ctx->quiet)
		printf("wait #%lld\n", (long long)id);
done:
	free(items);
	return rc;
}

const struct cmd_entry cmd_wait_entry = {
	.name = "wait",
	.usage = "wait --for WHAT... [--owner NAME] [--remind DUR]",
	.summary = "record that the caller is waiting, and who asked it to",
	.help =
	    "Puts the caller in the waiting state with a new wait. Each --for is\n"
	    "one thing waited for: free text, or a task (#12) which counts as\n"
	    "open until it is verified, cancelled or failed. --owner is the agent\n"
	    "who asked for the wait and answers for it (none: the human).\n\n"
	    "A waiting agent is listed by 'agents', 'status' and 'handoff' with\n"
	    "owner and age, and is never marked stale. Past --remind (default 4h)\n"
	    "the sweep sends the owner a message and the wait shows as overdue;\n"
	    "when the owner has ended, the wait goes to the live holder of the\n"
	    "owner's role, or is flagged for the human. 'daicho resume' ends it.\n\n"
	    "Prints \"wait #ID\". JSON: {wait: id}.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_FOR] = { "for", 0, "WHAT",
		"what is waited for (repeat; #ID for a task)",
		CMD_OPTION_REPEATS },
	    [OPT_OWNER] = { "owner", 0, "NAME",
		"the agent who asked for the wait" },
	    [OPT_REMIND] = { "remind", 0, "DUR",
		"remind the owner after DUR (4h)" }),
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_wait,
};

static int
exec_resume(struct cmd_ctx *ctx)
{
	int64_t id = 0, ended;
	int rc;

	if (!ctx->explicit_agent && ctx->argc == 0)
		return err_set(ctx->err, ERR_USAGE, "who resumes? (run as the "
		    "agent: --as NAME, DAICHO_AGENT, or its session; a person "
		    "ends an agent's wait by its number: daicho resume WAIT)");
	if (ctx->argc == 1 && (rc = cmd_id_arg(ctx, "wait", ctx->argv[0], &id)) < 0)
		return rc;
	/*
	 * The person (proven by cmd_check_person_acts()) known to the
	 * ledger, so that the wait ends in their name.
	 */
	if (!ctx->explicit_agent && (rc = (int)cmd_caller(ctx)) < 0)
		return rc;
	if ((rc = wait_resume(ctx->ledger, id, &ended, ctx->err)) < 0)
		return rc;
	if (ctx->json)
		return cmd_print_json(ctx, json_pack("{s:I}", "ended",
		    (json_int_t)ended));
	return 0;
}

const struct cmd_entry cmd_resume_entry = {
	.name = "resume",
	.usage = "resume [WAIT]",
	.summary = "end the caller's wait (all of them, or WAIT)",
	.help =
	    "Ends the caller's open wait WAIT, or all of them; with none left the\n"
	    "caller is active again. A person (no agent identity) ends any\n"
	    "agent's wait WAIT, and the agent is sent a message saying so. No\n"
	    "open wait is exit 3. Prints nothing.\n\n"
	    "JSON: {ended: how many waits}.\n",
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 1,
	.exec = exec_resume,
};
