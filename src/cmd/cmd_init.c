/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* Setting up: daicho init (the ledger and the integrations) and daicho doctor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/audit.h"
#include "core/settings.h"
#include "integ/install.h"
#include "util/gitref.h"
#include "util/path.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum init_option {
	OPT_CLAUDE,
	OPT_CODEX,
	OPT_GEMINI,
	OPT_GIT_HOOK,
	OPT_AUDIT,
	OPTION_COUNT
};

/* The project root of the current directory, appended to out. */
static void
project_root(struct buf *out)
{
	char *cwd = getcwd(NULL, 0);

	install_project_root(cwd ? cwd : ".", out);
	free(cwd);
}

/*
 * Whether ledger_path is the ledger of the repository at root: under its
 * git common directory (every worktree's) or inside its work tree. A
 * ledger elsewhere (--ledger, $DAICHO_LEDGER) may serve other work, so
 * init installs the git hook there only when asked (--git-hook).
 */
static bool
ledger_of_repository(const char *ledger_path, const char *root)
{
	struct buf common = BUF_INIT;
	size_t root_len = strlen(root);
	bool ours = strncmp(ledger_path, root, root_len) == 0 &&
	    ledger_path[root_len] == '/';

	if (!ours && path_git_common_dir(root, &common) == 0)
		ours = strncmp(ledger_path, common.buf, common.len) == 0 &&
		    ledger_path[common.len] == '/';
	buf_release(&common);
	return ours;
}

/*
 * Pin the trunk of a ledger in a git repository, unless a person set one:
 * the branch the main work tree has out now, so that verified work lands
 * there whichever branch that work tree has out later. Nothing when HEAD
 * is detached or its branch has no commit yet (then the trunk stays what
 * 'daicho config trunk' says when unset). A line in report says so.
 */
static int
pin_trunk(struct cmd_ctx *ctx, struct install_report *report)
{
	struct ledger *ledger = NULL;
	struct buf git_dir = BUF_INIT, branch = BUF_INIT, ref = BUF_INIT,
		   hash = BUF_INIT, line = BUF_INIT;
	struct strlist values = STRLIST_INIT;
	int64_t unused = 0;
	bool set = false;
	int rc;

	if ((rc = ledger_open(ctx->ledger_path.buf, &ledger, ctx->err)) < 0)
		goto done;
	if (ledger_git_dir(ledger, &git_dir) != 0 ||
	    gitref_head_branch(git_dir.buf, &branch) < 0)
		goto done;
	buf_addf(&ref, "refs/heads/%s", branch.buf);
	if (gitref_read(git_dir.buf, ref.buf, &hash) < 0)
		goto done; /* no commit yet: nothing to land on */
	{
		static const char *const keys[] = { "trunk" };
		struct buf value = BUF_INIT;

		rc = settings_values(ledger, keys, 1, &value, &set, ctx->err);
		buf_release(&value);
		if (rc < 0 || set)
			goto done;
	}
	strlist_add(&values, branch.buf);
	if ((rc = settings_set(ledger, unused, "trunk", &values, ctx->err)) < 0)
		goto done;
	buf_addf(&line, "trunk: %s (verified work lands there; 'daicho config "
	    "trunk BRANCH' changes it)", branch.buf);
	strlist_add_owned(&report->lines, buf_detach(&line, NULL));
done:
	ledger_close(ledger);
	buf_release(&git_dir);
	buf_release(&branch);
	buf_release(&ref);
	buf_release(&hash);
	buf_release(&line);
	strlist_release(&values);
	return rc;
}

static int
exec_init(struct cmd_ctx *ctx)
{
	struct install_report report = { STRLIST_INIT, 0 };
	struct buf root = BUF_INIT;
	int created = ledger_create(ctx->ledger_path.buf, ctx->err);
	int rc = created < 0 ? created : 0;

	if (rc < 0)
		goto done;
	if (ledger_is_postgresql(ctx->ledger_path.buf)) {
		struct buf file = BUF_INIT;
		char *cwd = getcwd(NULL, 0);
		int kept = ledger_remember_address(cwd ? cwd : ".",
		    ctx->ledger_path.buf, &file, ctx->err);

		free(cwd);
		if (kept == 0) {
			struct buf line = BUF_INIT;

			buf_addf(&line, "wrote %s (the ledger's address: commands "
			    "here find it without --ledger)", file.buf);
			strlist_add_owned(&report.lines, buf_detach(&line, NULL));
		}
		buf_release(&file);
		if ((rc = kept < 0 ? kept : 0) < 0)
			goto done;
	}
	if ((created == 0 || ledger_is_postgresql(ctx->ledger_path.buf)) &&
	    (rc = pin_trunk(ctx, &report)) < 0)
		goto done;
	project_root(&root);
	if ((cmd_has(ctx, OPT_GIT_HOOK) || ledger_is_postgresql(ctx->ledger_path.buf) ||
		ledger_of_repository(ctx->ledger_path.buf, root.buf)) &&
	    (rc = install_git_hook(root.buf, &report, ctx->err)) < 0)
		goto done;
	if (cmd_has(ctx, OPT_CLAUDE) &&
	    (rc = install_claude(root.buf, &report, ctx->err)) < 0)
		goto done;
	if (cmd_has(ctx, OPT_CODEX) &&
	    (rc = install_codex(root.buf, &report, ctx->err)) < 0)
		goto done;
	if (cmd_has(ctx, OPT_GEMINI) &&
	    (rc = install_gemini(root.buf, &report, ctx->err)) < 0)
		goto done;
	if (ctx->json) {
		json_t *lines = json_array();

		for (size_t i = 0; i < report.lines.count; i++)
			json_array_append_new(lines, json_string(report.lines.items[i]));
		rc = cmd_print_json(ctx, json_pack("{s:s, s:b, s:o, s:i}", "ledger",
		    ctx->ledger_path.buf, "created", created == 0, "files", lines,
		    "changed", report.changed));
		goto done;
	}
	if (ctx->quiet)
		goto done;
	printf("%s daicho ledger at %s\n",
	    created == 0 ? "Created" : "Already have a", ctx->ledger_path.buf);
	for (size_t i = 0; i < report.lines.count; i++)
		printf("  %s\n", report.lines.items[i]);
done:
	install_report_release(&report);
	buf_release(&root);
	return rc;
}

const struct cmd_entry cmd_init_entry = {
	.name = "init",
	.usage = "init [--claude] [--codex] [--gemini] [--git-hook]",
	.summary = "create the ledger and install the hooks (harmless to repeat)",
	.help =
	    "Creates the ledger where daicho looks for it: --ledger PATH, else\n"
	    "$DAICHO_LEDGER, else <git common dir>/daicho/ledger.db inside a git\n"
	    "repository (so every worktree shares it), else .daicho/ledger.db in\n"
	    "the current directory. On an existing ledger it only brings the\n"
	    "schema up to date.\n\n"
	    "A PostgreSQL ledger, shared by agents on several machines: --ledger\n"
	    "postgresql://HOST/DB (or service=NAME; libpq's syntax, environment,\n"
	    "service and password files all apply). Run by the database's owner,\n"
	    "init creates the schema and the roles daicho_agent and daicho_human;\n"
	    "run in each clone, it writes the address to ledger.address where the\n"
	    "ledger file would be, so that commands there find the shared ledger.\n"
	    "Keep passwords out of the address (~/.pgpass). See README, 'Several\n"
	    "machines'.\n\n"
	    "In a git repository, a new ledger's trunk is the branch checked out\n"
	    "now ('daicho config trunk'): verified work lands there (see 'daicho\n"
	    "land --help'), whichever branch the main work tree has out later.\n\n"
	    "In a git repository whose ledger it is (the default location, or a\n"
	    "ledger inside the work tree) it installs the pre-commit hook (daicho\n"
	    "hook git pre-commit) in the common hooks directory, so every worktree\n"
	    "has it; an existing hook is kept as pre-commit.local and still runs.\n"
	    "With --ledger or $DAICHO_LEDGER elsewhere, only with --git-hook.\n"
	    "  --claude  .claude/settings.json hooks (session-start, pre-tool-use,\n"
	    "            post-tool-use, stop, session-end),\n"
	    "            .claude/agents/daicho-worker.md, the daicho skill in\n"
	    "            .claude/skills/daicho/SKILL.md, and the MCP server\n"
	    "            (daicho mcp) in .mcp.json\n"
	    "  --codex   .codex/hooks.json hooks (session-start, pre-tool-use,\n"
	    "            post-tool-use, stop), the MCP server in\n"
	    "            .codex/config.toml [mcp_servers.daicho], the skill in\n"
	    "            .agents/skills/daicho/SKILL.md, and a section in AGENTS.md\n"
	    "            pointing to it\n"
	    "  --gemini  .gemini/settings.json hooks and mcpServers.daicho, the\n"
	    "            skill in .agents/skills/daicho/SKILL.md, and a section in\n"
	    "            GEMINI.md pointing to it\n"
	    "Settings are merged, never overwritten; a file you changed is kept.\n"
	    "Running init again changes nothing. Prints what it wrote or kept.\n"
	    "Then run 'daicho doctor'.\n\n"
	    "JSON: {ledger, created, files: [\"wrote PATH\" | \"kept PATH (why)\"],\n"
	    "changed: files written}.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_CLAUDE] = { "claude", 0, NULL,
		"install the Claude Code hooks, worker and skill" },
	    [OPT_CODEX] = { "codex", 0, NULL,
		"install the Codex hooks, skill and AGENTS.md section" },
	    [OPT_GEMINI] = { "gemini", 0, NULL,
		"install the Gemini CLI hooks, skill and GEMINI.md section" },
	    [OPT_GIT_HOOK] = { "git-hook", 0, NULL,
		"install the git pre-commit hook even for a ledger elsewhere" }),
	.flags = 0,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_init,
};

/*
 * doctor --audit: replay the events against the tables (core/audit.h),
 * print what no event explains, and keep the result for NEEDS YOU.
 */
static int
exec_audit(struct cmd_ctx *ctx)
{
	struct audit_stats stats;
	json_t *findings = json_array(), *f;
	size_t i;
	int rc;

	if ((rc = ledger_open(ctx->ledger_path.buf, &ctx->ledger, ctx->err)) < 0 ||
	    (rc = audit_run(ctx->ledger, findings, &stats, ctx->err)) < 0)
		goto done;
	/* A ledger this caller may only read is audited, not recorded. */
	if (!ledger_read_only(ctx->ledger) &&
	    (rc = audit_record(ctx->ledger, findings, ctx->err)) < 0)
		goto done;
	if (ctx->json) {
		rc = cmd_print_json(ctx, json_pack("{s:I, s:I, s:I, s:O}", "events",
		    (json_int_t)stats.events, "before_chain",
		    (json_int_t)stats.before_chain, "tasks",
		    (json_int_t)stats.tasks, "findings", findings));
	} else {
		printf("%lld events (%lld chained), %lld tasks replayed\n",
		    (long long)stats.events,
		    (long long)(stats.events - stats.before_chain),
		    (long long)stats.tasks);
		json_array_foreach(findings, i, f)
			printf("  %s\n", cmd_json_str(f, "why", ""));
	}
	if (rc == 0 && json_array_size(findings) > 0)
		rc = err_set(ctx->err, ERR_FAILED, "%zu row%s no event explains: "
		    "the ledger was written around daicho (see docs/security.md, "
		    "'Tamper evidence')", json_array_size(findings),
		    json_array_size(findings) == 1 ? "" : "s");
done:
	json_decref(findings);
	return rc;
}

static int
exec_doctor(struct cmd_ctx *ctx)
{
	struct buf root = BUF_INIT;
	json_t *checks = NULL, *c;
	size_t i, failed = 0;
	int rc = 0;

	if (cmd_has(ctx, OPT_AUDIT))
		return exec_audit(ctx);
	project_root(&root);
	install_doctor(root.buf, ctx->ledger_path.buf, &checks);
	json_array_foreach(checks, i, c)
		failed += !json_is_true(json_object_get(c, "ok"));
	if (ctx->json) {
		rc = cmd_print_json(ctx, json_incref(checks));
	} else {
		bool colour = cmd_colour();

		json_array_foreach(checks, i, c) {
			bool ok = json_is_true(json_object_get(c, "ok"));
			struct buf verdict = BUF_INIT;

			cmd_add_toned(&verdict, colour, cmd_tone_of(ok ? "ok" : "FAIL"),
			    ok ? "ok" : "FAIL", 4);
			printf("%s  %-22s %s\n", verdict.buf,
			    cmd_json_str(c, "check", ""), cmd_json_str(c, "detail", ""));
			if (!ok)
				printf("      %-22s fix: %s\n", "",
				    cmd_json_str(c, "fix", ""));
			buf_release(&verdict);
		}
	}
	if (rc == 0 && failed)
		rc = err_set(ctx->err, ERR_FAILED, "%zu problem%s found (fix %s as "
		    "shown)", failed, failed == 1 ? "" : "s", failed == 1 ? "it"
		    : "them");
	json_decref(checks);
	buf_release(&root);
	return rc;
}

const struct cmd_entry cmd_doctor_entry = {
	.name = "doctor",
	.usage = "doctor [--audit]",
	.summary = "check that the ledger and the agent hooks are in place",
	.help =
	    "Checks, and says how to fix: the ledger is whole (SQLite's integrity\n"
	    "check, which reads all of it) and opens; what it derives (each\n"
	    "task's unmet dependencies and touches) agrees with its rows, which\n"
	    "a write behind daicho's back breaks; daicho is on PATH\n"
	    "(the clients run hooks by name, and a hook that cannot be found\n"
	    "fails open: nothing is enforced); the git pre-commit hook is\n"
	    "installed and executable; and for each client set up in this\n"
	    "project (.claude, .codex, .gemini) that its settings run every\n"
	    "daicho hook and its worker or instructions are there, and that it\n"
	    "registers the MCP server (.mcp.json, .codex/config.toml,\n"
	    ".gemini/settings.json); each registered server command is started\n"
	    "(as the agent daicho-doctor), sent initialize, and must answer with\n"
	    "a protocol version.\n\n"
	    "It checks the work tree it runs in: in a linked worktree (git\n"
	    "worktree add) that lacks a client's directory the main worktree has,\n"
	    "that client's sessions run no hook; and each client's hooks file must\n"
	    "be committed with every daicho hook (git show HEAD:PATH), or the\n"
	    "worktrees made from a commit (daicho run --worktree, claude\n"
	    "--worktree) have none.\n\n"
	    "Hooks the client ignores enforce nothing, silently, so it reads the\n"
	    "clients' trust stores. Codex ($CODEX_HOME/config.toml, default\n"
	    "~/.codex): the project (or its main worktree) must be trusted,\n"
	    "[projects.\"/abs/root\"] trust_level = \"trusted\", and each daicho\n"
	    "hook trusted in Codex's /hooks, which records\n"
	    "[hooks.state.\"/abs/root/.codex/hooks.json:EVENT:GROUP:HANDLER\"]\n"
	    "trusted_hash = \"sha256:...\" (not enabled = false); doctor cannot\n"
	    "recompute that hash, so a hook changed after it was trusted shows\n"
	    "only in /hooks. Headless workers may pass\n"
	    "--dangerously-bypass-hook-trust instead. Gemini CLI\n"
	    "($GEMINI_CLI_TRUSTED_FOLDERS_PATH, else ~/.gemini/trustedFolders.json):\n"
	    "the longest rule containing the folder must be TRUST_FOLDER (or\n"
	    "TRUST_PARENT of a path in its parent), unless folder trust is off\n"
	    "(security.folderTrust.enabled false in ~/.gemini/settings.json) or\n"
	    "GEMINI_CLI_TRUST_WORKSPACE=true is set; --skip-trust runs without\n"
	    "project hooks.\n\n"
	    "A command that meets damage in the ledger leaves <ledger>-damaged\n"
	    "beside it, and from then on every command refuses the ledger, even\n"
	    "one that would not read the damaged part, until doctor finds it\n"
	    "whole again (restored from a backup, or rebuilt as the fix says).\n\n"
	    "Exit 0 when all pass, else 1. JSON: [{check, ok, detail, fix}]\n"
	    "(fix only when not ok); checks include \"CLIENT hooks in worktree\",\n"
	    "\"CLIENT hooks committed\", \"codex project trust\", \"codex hooks\n"
	    "trusted\" and \"gemini folder trust\".\n\n"
	    "--audit checks the ledger's record instead: the events' hash chain\n"
	    "(each event's hash follows from the one before), then the events\n"
	    "replayed against the tables. It names every row no event explains:\n"
	    "an event changed, removed or inserted around daicho; a task whose\n"
	    "state its events do not give (a sqlite3 UPDATE to verified); a task\n"
	    "no event added; a task whose checks are not the ones its events set.\n"
	    "The result is kept, and NEEDS YOU shows a failed one ('daicho\n"
	    "status'); the sweep audits too, once an hour. Exit 0 when every row\n"
	    "is explained, else 1. JSON: {events, before_chain, tasks, findings:\n"
	    "[{kind: event|task, event|task: ID, why}]}. See docs/security.md.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_AUDIT] = { "audit", 0, NULL,
		"replay the events; name rows none explains" }),
	.flags = 0,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_doctor,
};
