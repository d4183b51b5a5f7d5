/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* Claims: claim, release, block, report. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/repair.h"
#include "core/settings.h"
#include "core/task.h"
#include "core/verify.h"
#include "util/git.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum claim_option {
	OPT_NEXT,
	OPT_LABEL,
	OPT_LEASE,
	OPT_MAX_HOLD,
	OPT_FORCE,
	OPT_REASON,
	OPT_COMMIT,
	OPT_NOTE,
	OPTION_COUNT
};

static int
exec_claim(struct cmd_ctx *ctx)
{
	int64_t id = 0, claimed = 0, agent;
	/* Lease and maximum hold not given: the ledger's, read with the claim. */
	struct claim_terms terms = { 0, 0, NULL };
	const char *value;
	bool next = cmd_has(ctx, OPT_NEXT);
	int rc;

	if (next == (ctx->argc == 1))
		return err_set(ctx->err, ERR_USAGE,
		    "claim takes an ID or --next, one of the two");
	if (ctx->argc == 1 && (rc = cmd_task_id(ctx, ctx->argv[0], &id)) < 0)
		return rc;
	if (cmd_has(ctx, OPT_LABEL) && !next)
		return err_set(ctx->err, ERR_USAGE, "--label goes with --next");
	if ((value = cmd_opt(ctx, OPT_LEASE)) != NULL &&
	    (rc = cmd_duration(ctx, OPT_LEASE, value, &terms.lease_ms)) < 0)
		return rc;
	if ((value = cmd_opt(ctx, OPT_MAX_HOLD)) != NULL &&
	    (rc = cmd_duration(ctx, OPT_MAX_HOLD, value, &terms.max_hold_ms)) < 0)
		return rc;
	if ((agent = cmd_caller(ctx)) < 0)
		return (int)agent;
	if ((rc = task_claim(ctx->ledger, agent, id, cmd_opt(ctx, OPT_LABEL), &terms,
		 &claimed, ctx->err)) < 0)
		return rc;
	if (ctx->json)
		return cmd_print_json(ctx, json_pack("{s:I}", "id", (json_int_t)claimed));
	printf("%lld\n", (long long)claimed);
	return 0;
}

const struct cmd_entry cmd_claim_entry = {
	.name = "claim",
	.usage = "claim ID | --next [--label L] [--lease DUR] [--max-hold DUR]",
	.summary = "claim a task (exactly one claimer wins) and print its id",
	.help =
	    "Takes the task for the caller with a lease (default 30m) and prints\n"
	    "its id, nothing else. --next takes the first ready task: highest\n"
	    "priority, then oldest, skipping tasks whose touches overlap a live\n"
	    "claim. Every later command by the same agent renews its leases; a\n"
	    "claim whose lease runs out may be taken by another agent (that\n"
	    "counts as a failed attempt).\n\n"
	    "The maximum hold (--max-hold; default three leases, or the ledger's\n"
	    "'daicho config max-hold') bounds how long commands that do not name\n"
	    "the task keep renewing it: past that long since the holder last ran\n"
	    "a command naming it (claim ID, prompt, save, show, result, logs,\n"
	    "report), the lease is no longer renewed and the claim expires, so a\n"
	    "worker that died while its agent lives on does not hold the task\n"
	    "forever. A long-running worker keeps its claim with 'daicho claim\n"
	    "ID' now and then.\n\n"
	    "A lease longer than the ledger's 'max-lease' (default 4h), or a\n"
	    "maximum hold longer than three of them, is refused (exit 2): no\n"
	    "claim outlives its worker by more than that.\n\n"
	    "Claiming a task you already hold renews its lease (and the hold)\n"
	    "and succeeds.\n"
	    "Exit 3 when nothing is ready (stdout empty, stderr says why); exit 4\n"
	    "when the task is held by another agent (named), waits on unverified\n"
	    "tasks, overlaps a live claim, or is not open.\n\n"
	    "JSON: {\"id\": N}\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_NEXT] = { "next", 0, NULL, "the first ready task" },
	    [OPT_LABEL] = { "label", 0, "L",
		"with --next: only tasks labelled L" },
	    [OPT_LEASE] = { "lease", 0, "DUR", "lease length (default 30m)" },
	    [OPT_MAX_HOLD] = { "max-hold", 0, "DUR",
		"how long the claim lives without a command naming it "
		"(default three leases)" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 0,
	.max_args = 1,
	.exec = exec_claim,
};

static int
exec_release(struct cmd_ctx *ctx)
{
	int64_t id, agent;
	int rc;

	if ((rc = cmd_task_and_caller(ctx, &id, &agent)) < 0)
		return rc;
	/* --force is a person's alone: cmd_check_person_acts() proved one. */
	if ((rc = cmd_has(ctx, OPT_FORCE)
	    ? task_release_forced(ctx->ledger, agent, id, ctx->err)
	    : task_release_claim(ctx->ledger, agent, id, ctx->err)) < 0)
		return rc;
	cmd_say(ctx, "released #%lld: open again", (long long)id);
	return 0;
}

const struct cmd_entry cmd_release_entry = {
	.name = "release",
	.usage = "release ID [--force]",
	.summary = "give a claimed or blocked task back (open again)",
	.help =
	    "Only the holder may release. The attempt is not counted against the\n"
	    "task's max attempts. On a terminal it prints one line (released\n"
	    "#3: open again); else nothing.\n\n"
	    "--force: a human takes a claimed, blocked or reported task back from\n"
	    "whoever holds it (an agent is refused, exit 6): open again, the\n"
	    "attempt not counted, a 'release' event with forced, and a message to\n"
	    "the holder to stop.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_FORCE] = { "force", 0, NULL,
		"a human takes it back from any holder" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_release,
};

static int
exec_block(struct cmd_ctx *ctx)
{
	int64_t id, agent;
	int rc;

	if ((rc = cmd_task_and_caller(ctx, &id, &agent)) < 0)
		return rc;
	if ((rc = task_block(ctx->ledger, agent, id, cmd_opt(ctx, OPT_REASON),
		 ctx->err)) < 0)
		return rc;
	cmd_say(ctx, "blocked #%lld: it waits for a person", (long long)id);
	return 0;
}

const struct cmd_entry cmd_block_entry = {
	.name = "block",
	.usage = "block ID --reason TEXT",
	.summary = "mark a claimed task blocked: it needs a human",
	.help =
	    "The task keeps its owner and shows as blocked, in NEEDS YOU with\n"
	    "the reason, until a person answers: 'daicho unblock ID' gives it\n"
	    "back to its holder (or opens it, when the holder is gone), and\n"
	    "'daicho release ID --force' takes it back. Its holder may unblock\n"
	    "it too. While it is blocked its --touches stay its holder's: no\n"
	    "task that overlaps them is claimed meanwhile, so unblocking never\n"
	    "leaves two live claims on the same paths. On a terminal it prints\n"
	    "one line (blocked #3: it waits for a person); else nothing.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_REASON] = { "reason", 0, "TEXT",
		"what the human must do (required)" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_block,
};

static int
exec_report(struct cmd_ctx *ctx)
{
	struct buf hash = BUF_INIT, why = BUF_INIT;
	const char *rev = cmd_opt(ctx, OPT_COMMIT);
	int64_t id, agent;
	int rc;

	if ((rc = cmd_task_id(ctx, ctx->argv[0], &id)) < 0)
		return rc;
	if (rev == NULL) {
		bool needs = false;

		if ((rc = verify_needs_commit(ctx->ledger, id, &needs, ctx->err)) < 0)
			return rc;
		if (needs)
			return err_set(ctx->err, ERR_USAGE,
			    "task #%lld has checks that look at the work, and "
			    "verification sees only committed work (commit it on a "
			    "branch, then 'daicho report %lld --commit HEAD')",
			    (long long)id, (long long)id);
	}
	if (rev != NULL) {
		int found = git_resolve_commit(rev, &hash, &why);

		if (found < 0)
			rc = err_set(ctx->err, ERR_FAILED,
			    "cannot resolve --commit %s (%s; run report inside the "
			    "repository, or use -C DIR)", rev, why.buf);
		else if (found > 0)
			rc = err_set(ctx->err, ERR_NOT_FOUND,
			    "no commit '%s' in this repository (commit your work, "
			    "then report its hash)", rev);
		if (rc < 0)
			goto done;
		/*
		 * Resolved here; the sweep looks in the ledger's repository,
		 * and fetches it there from the "remote" setting's remote
		 * unless that is none (committed on another machine).
		 */
		{
			struct buf where = BUF_INIT, remote = BUF_INIT;
			bool known;

			verify_commit_known(ctx->ledger, hash.buf, &known, &where);
			if (!known && (rc = settings_remote(ctx->ledger, &remote,
					   ctx->err)) == 0 && (remote.len == 0 ||
				!git_remote_exists(where.buf, remote.buf)))
				rc = err_set(ctx->err, ERR_NOT_FOUND,
				    "commit %.12s is not in the repository of this "
				    "ledger (%s), where it is verified, and the sweep "
				    "cannot fetch it (%s%s%s): push or fetch it there, "
				    "on a branch, then report it", hash.buf, where.buf,
				    remote.len ? "no remote '" : "'daicho config "
				    "remote' is none", remote.buf, remote.len ? "' there"
				    : "");
			buf_release(&where);
			buf_release(&remote);
			if (rc < 0)
				goto done;
		}
	}
	if ((agent = cmd_caller(ctx)) < 0) {
		rc = (int)agent;
		goto done;
	}
	rc = task_report(ctx->ledger, agent, id, rev ? hash.buf : NULL,
	    cmd_opt(ctx, OPT_NOTE), ctx->err);
done:
	buf_release(&hash);
	buf_release(&why);
	return rc;
}

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.usage = "report ID [--commit REV] [--note TEXT]",
	.summary = "say a claimed task is done; it awaits verification",
	.help =
	    "Moves a task the caller holds to reported. This is a claim, not a\n"
	    "fact: only verification makes the task count as done. --commit names\n"
	    "the commit that holds the work; it is resolved to a full hash now\n"
	    "(exit 3 when it does not exist). Prints nothing.\n\n"
	    "In a git repository, a task with file:, cmd: or commit checks needs\n"
	    "--commit (exit 2 without it): verification runs in a checkout holding\n"
	    "just that commit and never sees uncommitted files. The sweep accepts\n"
	    "the commit only when it is on a branch (or tag), holds work that was\n"
	    "not on the trunk when the task was claimed, was not accepted for\n"
	    "another task, and changes no protected path (see 'daicho add\n"
	    "--help'); otherwise the report is rejected with the reason.\n\n"
	    "A commit made on another machine, not in the ledger's repository,\n"
	    "is accepted: push its branch, and the sweep fetches it from the\n"
	    "'remote' setting's remote (default origin; see 'daicho sweep\n"
	    "--help'). When that is none, or the ledger's repository has no such\n"
	    "remote, it is refused, exit 3.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_COMMIT] = { "commit", 0, "REV", "the commit with the work" },
	    [OPT_NOTE] = { "note", 0, "TEXT", "a note for the reviewer" }),
	.flags = CMD_NEEDS_LEDGER | CMD_AS_AGENT,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_report,
};
