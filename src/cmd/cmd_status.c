/* The briefings: status ("needs you" first) and handoff. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/brief.h"
#include "util/clock.h"

/* Print a section heading with the count of items. */
static void
heading(const char *title, size_t count)
{
	printf("\n%s (%zu)\n", title, count);
}

/* Print one "needs you" item. */
static void
print_need(const json_t *n, int64_t now)
{
	const char *what = cmd_json_str(n, "what", "");
	struct buf a = BUF_INIT, b = BUF_INIT;

	if (strcmp(what, "blocked") == 0) {
		cmd_add_printable(&a, cmd_json_str(n, "title", ""));
		cmd_add_printable(&b, cmd_json_str(n, "reason", ""));
		printf("  #%lld blocked: %s (%s)\n", (long long)cmd_json_int(n, "task"),
		    a.buf, b.buf);
	} else if (strcmp(what, "rejected-owner-gone") == 0) {
		cmd_add_printable(&a, cmd_json_str(n, "title", ""));
		cmd_add_printable(&b, cmd_json_str(n, "summary", ""));
		printf("  #%lld rejected, back to %s who is %s: %s (%s)\n",
		    (long long)cmd_json_int(n, "task"), cmd_json_str(n, "owner", "?"),
		    cmd_json_str(n, "owner_state", "?"), a.buf, b.buf);
	} else if (strcmp(what, "stale-agent-holding") == 0) {
		json_t *claims = json_object_get(n, "claims"), *v;
		size_t i;

		cmd_add_seen(&a, cmd_json_int(n, "last_seen_ms"), now);
		json_array_foreach(claims, i, v)
			buf_addf(&b, "%s#%lld", i ? ", " : "",
			    (long long)json_integer_value(v));
		printf("  %s is %s, seen %s, and holds %s\n",
		    cmd_json_str(n, "agent", "?"), cmd_json_str(n, "state", "stale"),
		    a.buf, b.buf);
	} else {
		cmd_add_printable(&a, cmd_json_str(n, "for", ""));
		clock_add_age(&b, now - cmd_json_int(n, "started_ms"));
		printf("  wait #%lld %s: %s has waited %s for %s (owner %s%s%s)\n",
		    (long long)cmd_json_int(n, "wait"),
		    strcmp(what, "overdue-wait") == 0 ? "overdue"
						      : "has no live owner",
		    cmd_json_str(n, "agent", "?"), b.buf, a.buf,
		    cmd_json_str(n, "owner", "none: the human"),
		    json_is_string(json_object_get(n, "owner_state")) ? ", " : "",
		    cmd_json_str(n, "owner_state", ""));
	}
	buf_release(&a);
	buf_release(&b);
}

/* Print events (JSON, as the briefings give them), one line each. */
static void
print_event_lines(const json_t *events, int64_t now)
{
	const json_t *e;
	size_t i;

	json_array_foreach(events, i, e) {
		struct buf age = BUF_INIT, detail = BUF_INIT;
		char *text = json_dumps(json_object_get(e, "detail"), JSON_COMPACT);

		clock_add_age(&age, now - cmd_json_int(e, "at_ms"));
		if (text && strcmp(text, "null") != 0)
			cmd_add_printable(&detail, text);
		if (cmd_json_int(e, "task"))
			printf("  %6s ago  %-16s %-16s #%lld %s\n", age.buf,
			    cmd_json_str(e, "actor", "-"), cmd_json_str(e, "kind", ""),
			    (long long)cmd_json_int(e, "task"), detail.buf);
		else
			printf("  %6s ago  %-16s %-16s %s\n", age.buf,
			    cmd_json_str(e, "actor", "-"), cmd_json_str(e, "kind", ""),
			    detail.buf);
		free(text);
		buf_release(&age);
		buf_release(&detail);
	}
}

static int
exec_status(struct cmd_ctx *ctx)
{
	const char *stale_text = cmd_opt(ctx, "stale-after");
	int64_t stale = AGENT_STALE_AFTER_MS, events = 10, now;
	json_t *doc = NULL, *needs, *agents, *tasks, *n;
	const char *key;
	size_t i;
	int rc;

	if (stale_text && (rc = cmd_duration(ctx, "stale-after", stale_text,
		 &stale)) < 0)
		return rc;
	if (cmd_opt(ctx, "events") && (rc = cmd_integer(ctx, "events",
		 cmd_opt(ctx, "events"), 0, 1000, &events)) < 0)
		return rc;
	if ((rc = brief_status(ctx->ledger, stale, (int)events, &doc,
		 ctx->err)) < 0)
		return rc;
	if (ctx->json)
		return cmd_print_json(ctx, doc);
	now = cmd_json_int(doc, "now_ms");
	needs = json_object_get(doc, "needs_you");
	if (json_array_size(needs) == 0)
		printf("NEEDS YOU: nothing\n");
	else
		printf("NEEDS YOU (%zu)\n", json_array_size(needs));
	json_array_foreach(needs, i, n)
		print_need(n, now);
	agents = json_object_get(doc, "agents");
	heading("AGENTS", json_array_size(agents));
	cmd_print_agents(agents, now);
	printf("\nTASKS ");
	tasks = json_object_get(doc, "tasks");
	i = 0;
	json_object_foreach(tasks, key, n)
		printf("%s%s %lld", i++ ? ", " : "", key,
		    (long long)json_integer_value(n));
	printf("\n");
	heading("RECENT", json_array_size(json_object_get(doc, "events")));
	print_event_lines(json_object_get(doc, "events"), now);
	json_decref(doc);
	return 0;
}

const struct cmd_entry cmd_status_entry = {
	.name = "status",
	.usage = "status [--events N] [--stale-after DUR]",
	.summary = "one screen: what needs a human first, then agents, tasks, events",
	.help =
	    "NEEDS YOU, most urgent first: blocked tasks; rejected reports whose\n"
	    "owner has ended or gone stale; overdue waits and waits with no live\n"
	    "owner; stale or ended agents still holding claims. Then the live agents with\n"
	    "when each was last seen, the task count per state, and the newest\n"
	    "--events events (default 10).\n\n"
	    "JSON: {now_ms, needs_you: [{what: blocked|rejected-owner-gone|\n"
	    "overdue-wait|wait-needs-human|stale-agent-holding, ...}], agents (as\n"
	    "'daicho agents --json'), tasks: {state: count}, events: [{id, at_ms,\n"
	    "actor, kind, task, detail}]}.\n",
	.options = (const struct cmd_option[]){
	    { "events", 0, "N", "show the newest N events (10)" },
	    { "stale-after", 0, "DUR", "an agent unseen this long is stale (10m)" },
	    { 0 } },
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_status,
};

/* Print the hand-off briefing for people. */
static void
print_handoff(const json_t *doc)
{
	int64_t now = cmd_json_int(doc, "now_ms");
	const json_t *list, *v;
	struct buf stamp = BUF_INIT;
	size_t i;

	clock_add_timestamp(&stamp, now);
	printf("HAND-OFF from %s%s%s%s at %s\n", cmd_json_str(doc, "from", "?"),
	    json_is_string(json_object_get(doc, "role")) ? " (role " : "",
	    cmd_json_str(doc, "role", ""),
	    json_is_string(json_object_get(doc, "role")) ? ")" : "", stamp.buf);
	buf_release(&stamp);
	list = json_object_get(doc, "agents");
	heading("LIVE AGENTS, waits under each", json_array_size(list));
	cmd_print_agents(list, now);
	list = json_object_get(doc, "waits");
	heading("OPEN WAITS", json_array_size(list));
	json_array_foreach(list, i, v) {
		struct buf what = BUF_INIT, age = BUF_INIT;

		cmd_add_printable(&what, cmd_json_str(v, "what", ""));
		clock_add_age(&age, now - cmd_json_int(v, "started_ms"));
		printf("  wait #%lld: %s (%s) waits for %s; owner %s (%s); %s old%s; "
		       "%lld open item%s\n", (long long)cmd_json_int(v, "id"),
		    cmd_json_str(v, "agent", "?"), cmd_json_str(v, "agent_state", "?"),
		    what.buf, cmd_json_str(v, "owner", "none: the human"),
		    cmd_json_str(v, "owner_state", "-"), age.buf,
		    json_is_true(json_object_get(v, "overdue")) ? ", overdue" : "",
		    (long long)cmd_json_int(v, "open_items"),
		    cmd_json_int(v, "open_items") == 1 ? "" : "s");
		buf_release(&what);
		buf_release(&age);
	}
	list = json_object_get(doc, "claims");
	heading("CLAIMS", json_array_size(list));
	json_array_foreach(list, i, v) {
		struct buf title = BUF_INIT, left = BUF_INIT;
		int64_t expires = cmd_json_int(v, "lease_expires_ms");

		cmd_add_printable(&title, cmd_json_str(v, "title", ""));
		clock_add_age(&left, expires > now ? expires - now : now - expires);
		printf("  #%lld %s: held by %s (%s), lease %s %s\n",
		    (long long)cmd_json_int(v, "task"), title.buf,
		    cmd_json_str(v, "owner", "?"), cmd_json_str(v, "owner_state", "?"),
		    expires > now ? "ends in" : "ran out", left.buf);
		buf_release(&title);
		buf_release(&left);
	}
	list = json_object_get(doc, "unread");
	heading("UNREAD MESSAGES for the role handed over", json_array_size(list));
	json_array_foreach(list, i, v) {
		struct buf text = BUF_INIT, age = BUF_INIT;

		cmd_add_printable(&text, cmd_json_str(v, "text", ""));
		clock_add_age(&age, now - cmd_json_int(v, "sent_ms"));
		printf("  #%lld to %s from %s, %s ago: %s\n",
		    (long long)cmd_json_int(v, "id"),
		    cmd_json_str(v, "addressed_to", "?"),
		    cmd_json_str(v, "from", "daicho"), age.buf, text.buf);
		buf_release(&text);
		buf_release(&age);
	}
	list = json_object_get(doc, "reported");
	heading("REPORTED, NOT YET VERIFIED", json_array_size(list));
	json_array_foreach(list, i, v) {
		struct buf title = BUF_INIT;

		cmd_add_printable(&title, cmd_json_str(v, "title", ""));
		printf("  #%lld %s: by %s%s%s\n", (long long)cmd_json_int(v, "task"),
		    title.buf, cmd_json_str(v, "owner", "?"),
		    json_is_string(json_object_get(v, "commit")) ? ", commit " : "",
		    cmd_json_str(v, "commit", ""));
		buf_release(&title);
	}
	list = json_object_get(doc, "rejected");
	heading("REJECTED REPORTS", json_array_size(list));
	json_array_foreach(list, i, v) {
		struct buf title = BUF_INIT, summary = BUF_INIT;

		cmd_add_printable(&title, cmd_json_str(v, "title", ""));
		cmd_add_printable(&summary, cmd_json_str(v, "summary", ""));
		printf("  #%lld %s (%s, %s): %s\n", (long long)cmd_json_int(v, "task"),
		    title.buf, cmd_json_str(v, "state", "?"),
		    cmd_json_str(v, "owner", "no owner"), summary.buf);
		buf_release(&title);
		buf_release(&summary);
	}
	list = json_object_get(doc, "decisions");
	heading("RECENT DECISIONS", json_array_size(list));
	print_event_lines(list, now);
}

static int
exec_handoff(struct cmd_ctx *ctx)
{
	const char *to = cmd_opt(ctx, "to"), *from = cmd_opt(ctx, "from");
	int64_t moved = 0, from_id = 0;
	json_t *doc = NULL, *before = NULL;
	int rc;

	if (from && (rc = agent_find_named(ctx->ledger, from, &from_id,
		 ctx->err)) < 0)
		return rc;
	if (from && from_id == 0)
		return err_set(ctx->err, ERR_NOT_FOUND, "no agent named '%s' (see "
		    "'daicho agents --all')", from);
	if (from_id == 0 && (from_id = cmd_caller_registered(ctx)) < 0)
		return (int)from_id;
	/* The role handed over, read before the hand-over moves it. */
	if (to && (rc = brief_handoff(ctx->ledger, from_id, AGENT_STALE_AFTER_MS,
		 &before, ctx->err)) < 0)
		return rc;
	if (to && (rc = brief_transfer(ctx->ledger, from, to, &moved,
		 ctx->err)) < 0) {
		json_decref(before);
		return rc;
	}
	if ((rc = brief_handoff(ctx->ledger, from_id, AGENT_STALE_AFTER_MS, &doc,
		 ctx->err)) < 0) {
		json_decref(before);
		return rc;
	}
	if (to) {
		json_object_set(doc, "role", json_object_get(before, "role"));
		json_object_set(doc, "unread", json_object_get(before, "unread"));
		json_object_set_new(doc, "to", json_string(to));
		json_object_set_new(doc, "waits_moved", json_integer(moved));
		json_decref(before);
	}
	if (ctx->json)
		return cmd_print_json(ctx, doc);
	print_handoff(doc);
	if (to)
		printf("\nHanded %lld wait%s and the role to %s.\n", (long long)moved,
		    moved == 1 ? "" : "s", to);
	json_decref(doc);
	return 0;
}

const struct cmd_entry cmd_handoff_entry = {
	.name = "handoff",
	.usage = "handoff [--from NAME] [--to NAME]",
	.summary = "a briefing for a successor coordinator, from the ledger alone",
	.help =
	    "Prints everything a successor needs, built only from the ledger:\n"
	    "live agents (every waiting one with owner and age), open waits,\n"
	    "claims and leases, unread messages sent to the caller, its role or\n"
	    "its name, tasks reported but not yet verified, rejected reports, and\n"
	    "recent decisions (verdicts, cancels, blocks, hand-overs).\n\n"
	    "--from NAME briefs on NAME's role and messages instead of the\n"
	    "caller's (say, a manager that has ended). --to NAME first hands the\n"
	    "caller's (or --from's) open waits and role to the live agent NAME,\n"
	    "and logs it.\n\n"
	    "JSON: {now_ms, from, role, agents, waits, claims, unread, reported,\n"
	    "rejected, decisions}, and with --to also to and waits_moved.\n",
	.options = (const struct cmd_option[]){
	    { "to", 0, "NAME", "hand waits and role over to NAME" },
	    { "from", 0, "NAME", "brief on / hand over NAME's, not the caller's" },
	    { 0 } },
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_handoff,
};
