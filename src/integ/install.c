/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Installing into a project, and the doctor's checks (integ/install.h).
 * One file because each client's installer and its doctor check read and
 * write the same files with the same helpers (merging JSON, sections,
 * markers): kept side by side, what init writes and what doctor expects
 * cannot drift apart. The clients' trust stores are integ/trust.c.
 */
#include "integ/install.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/agent.h"
#include "core/ledger.h"
#include "core/needs.h"
#include "store/sqlite/schema.h"
#include "core/task.h"
#include "integ/trust.h"
#include "skill.h"
#include "util/buf.h"
#include "util/path.h"
#include "util/strlist.h"
#include "util/proc.h"
#include "util/toml.h"
#include "util/user.h"

/* Marks the sections daicho adds to instruction files. */
#define SECTION_BEGIN "<!-- daicho:begin -->"
#define SECTION_END "<!-- daicho:end -->"
/* Marks daicho's git hook. */
#define GIT_HOOK_MARK "# daicho pre-commit hook"
/* The name daicho's MCP server is registered under, in every client. */
#define MCP_SERVER_NAME "daicho"

static const char worker_definition[] =
    "---\n"
    "name: daicho-worker\n"
    "description: Takes one task from the daicho ledger, does it, saves or "
    "reports the result, and returns only the task id and ok. Use it for "
    "parallel work a coordinator dispatches; it fetches its own prompt and "
    "saves its own result, so nothing large passes through the "
    "coordinator.\n"
    "tools: Bash, Read, Edit, Write, Glob, Grep\n"
    "---\n"
    "You are a daicho worker. Follow this protocol exactly.\n\n"
    "1. Run `daicho claim --next`. It prints one task id. Exit status 3 "
    "means nothing is ready: reply `none` and stop.\n"
    "2. Run `daicho prompt ID`. What it prints is your whole assignment.\n"
    "3. Before editing files, reserve them: `daicho reserve 'GLOB' --task "
    "ID`. If that is refused, the files are someone else's: run `daicho "
    "release ID` and reply `ID released`.\n"
    "4. Do the work, and commit it on a branch. Never change the files "
    "the task protects (`daicho show ID`): a report that does is "
    "rejected. If the work takes long, run `daicho claim ID` now and "
    "then: it keeps your claim.\n"
    "5. Finish: save a result with `daicho save ID -f RESULT_FILE`, then "
    "always `daicho report ID --commit HEAD` (without `--commit` only "
    "for a task checked on its saved result alone). Never say done "
    "without reporting: an independent sweep verifies the committed "
    "work, and only a verified task is done.\n"
    "6. If you cannot go on without a person, run `daicho block ID "
    "--reason 'WHY'` and reply `ID blocked`.\n"
    "7. Reply with only `ID ok`. Never paste the result into your reply: "
    "the coordinator reads it with `daicho result ID`.\n\n"
    "Commands a gate stops must run as `daicho gate exec -- CMD`; never run "
    "`daicho approve` or `daicho deny` (they are for a person). Messages "
    "for you arrive with your tool calls; answer with `daicho send NAME "
    "'TEXT'`.\n";

/* Where the clients read a project's skills: Claude Code; Codex and Gemini. */
#define CLAUDE_SKILL_PATH ".claude/skills/daicho/SKILL.md"
#define AGENTS_SKILL_PATH_DIR ".agents/skills/daicho/"
#define AGENTS_SKILL_PATH AGENTS_SKILL_PATH_DIR "SKILL.md"

/*
 * The section of AGENTS.md and GEMINI.md: it points to the skill, which
 * holds the protocol, and keeps in sight only what no agent may miss.
 */
static const char instructions_section[] =
    SECTION_BEGIN "\n"
    "## Working with daicho\n\n"
    "Agents on this repository coordinate through daicho, one shared "
    "ledger whose rules hooks enforce. How to take, do, save, report, "
    "block and wait on a task is the `daicho` skill (`SKILL.md` in "
    "`" AGENTS_SKILL_PATH_DIR "`, or in daicho's plugin or extension): "
    "follow it for any daicho task. In short: "
    "`daicho claim --next`, `daicho prompt ID`, commit on a branch, "
    "`daicho report ID --commit HEAD`; only a task the sweep verified is "
    "done. `daicho approve` and `daicho deny` are a person's, never an "
    "agent's.\n"
    SECTION_END "\n";

static const char git_hook_script[] =
    "#!/bin/sh\n"
    GIT_HOOK_MARK " (installed by 'daicho init'): refuses a commit that\n"
    "# stages a path another live agent has reserved.\n"
    "if command -v daicho >/dev/null 2>&1; then\n"
    "\tdaicho hook git pre-commit || exit $?\n"
    "else\n"
    "\techo 'daicho is not on PATH: reservations were not checked "
    "(see daicho doctor)' >&2\n"
    "fi\n"
    "# A hook that was here before daicho's still runs.\n"
    "hook_dir=$(dirname \"$0\")\n"
    "if [ -x \"$hook_dir/pre-commit.local\" ]; then\n"
    "\texec \"$hook_dir/pre-commit.local\" \"$@\"\n"
    "fi\n";

void
install_report_release(struct install_report *report)
{
	strlist_release(&report->lines);
	report->changed = 0;
}

/* Add a line to the report. */
static void
say(struct install_report *report, const char *verb, const char *path,
    const char *why)
{
	struct buf line = BUF_INIT;

	buf_addf(&line, "%s %s%s%s%s", verb, path, why ? " (" : "", why ? why : "",
	    why ? ")" : "");
	strlist_add_owned(&report->lines, buf_detach(&line, NULL));
}

/* Write data to path atomically (a temporary file renamed over it). */
static int
write_file(const char *path, const char *data, size_t len, mode_t mode,
    struct err *err)
{
	struct buf tmp = BUF_INIT;
	int fd, rc = 0;

	if (path_make_parent_dirs(path, 0777) < 0)
		return err_set(err, ERR_FAILED, "cannot create the directory of %s "
		    "(%s)", path, strerror(errno));
	buf_addf(&tmp, "%s.daicho-%ld", path, (long)getpid());
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len || fsync(fd) < 0 ||
	    close(fd) < 0 || rename(tmp.buf, path) < 0) {
		rc = err_set(err, ERR_FAILED, "cannot write %s (%s)", path,
		    strerror(errno));
		unlink(tmp.buf);
	}
	buf_release(&tmp);
	return rc;
}

void
install_project_root(const char *cwd, struct buf *out)
{
	struct buf dotgit = BUF_INIT;

	if (path_find_upward(cwd, ".git", &dotgit) == 0)
		buf_add(out, dotgit.buf, dotgit.len - strlen("/.git"));
	else
		buf_adds(out, cwd);
	buf_release(&dotgit);
}

/* The hooks directory of the repository at root; 1 outside a repository. */
static int
git_hooks_dir(const char *root, struct buf *out)
{
	const char *argv[] = { "git", "-C", root, "rev-parse", "--path-format="
		"absolute", "--git-path", "hooks", NULL };
	struct buf dotgit = BUF_INIT;
	int status;

	if (path_find_upward(root, ".git", &dotgit) != 0) {
		buf_release(&dotgit);
		return 1;
	}
	buf_release(&dotgit);
	status = proc_capture(argv, out);
	while (out->len && out->buf[out->len - 1] == '\n')
		out->buf[--out->len] = '\0';
	return status == 0 && out->len ? 0 : 1;
}

int
install_git_hook(const char *root, struct install_report *report,
    struct err *err)
{
	struct buf dir = BUF_INIT, hook = BUF_INIT, local = BUF_INIT,
		   existing = BUF_INIT;
	int rc = 0;

	if (git_hooks_dir(root, &dir) != 0)
		goto done;
	buf_addf(&hook, "%s/pre-commit", dir.buf);
	buf_addf(&local, "%s/pre-commit.local", dir.buf);
	if (buf_read_file(&existing, hook.buf) == 0) {
		if (strstr(existing.buf, GIT_HOOK_MARK) != NULL) {
			say(report, "kept", hook.buf, "daicho's hook is installed");
			goto done;
		}
		if (access(local.buf, F_OK) == 0) {
			rc = err_set(err, ERR_CONFLICT, "both %s and %s exist and neither "
			    "is daicho's (merge them by hand, then run init again)",
			    hook.buf, local.buf);
			goto done;
		}
		if (rename(hook.buf, local.buf) < 0) {
			rc = err_set(err, ERR_FAILED, "cannot move %s aside (%s)",
			    hook.buf, strerror(errno));
			goto done;
		}
		say(report, "moved", hook.buf, "to pre-commit.local; daicho's hook "
		    "runs it");
	}
	if ((rc = write_file(hook.buf, git_hook_script, sizeof(git_hook_script) - 1,
		 0755, err)) < 0)
		goto done;
	report->changed++;
	say(report, "wrote", hook.buf, NULL);
done:
	buf_release(&dir);
	buf_release(&hook);
	buf_release(&local);
	buf_release(&existing);
	return rc;
}

/* Whether a matcher group's hooks already run command_mark. */
static bool
group_runs(const json_t *group, const char *command_mark)
{
	const json_t *h;
	size_t i;

	json_array_foreach(json_object_get(group, "hooks"), i, h) {
		const char *command = json_string_value(json_object_get(h, "command"));

		if (command && strstr(command, command_mark))
			return true;
	}
	return false;
}

/*
 * Read the JSON settings file at path into *settings (new reference): an
 * empty object when there is no file. Refuses (ERR_FAILED) a file that is
 * not a JSON object: it is the user's to fix, never overwritten.
 */
static int
read_settings(const char *path, json_t **settings, struct err *err)
{
	struct buf text = BUF_INIT;
	json_error_t jerr;
	int rc = 0;

	*settings = NULL;
	if (buf_read_file(&text, path) == 0) {
		*settings = json_loadb(text.buf, text.len, 0, &jerr);
		if (!json_is_object(*settings)) {
			json_decref(*settings);
			*settings = NULL;
			rc = err_set(err, ERR_FAILED, "%s is not a JSON object (%s, line "
			    "%d); fix it, then run init again", path, jerr.text,
			    jerr.line);
		}
	} else if (errno != ENOENT) {
		rc = err_set(err, ERR_FAILED, "cannot read %s (%s)", path,
		    strerror(errno));
	} else {
		*settings = json_object();
	}
	buf_release(&text);
	return rc;
}

/* Write settings to path, keys in their order, and report it with why. */
static int
write_settings(const char *path, const json_t *settings, const char *why,
    struct install_report *report, struct err *err)
{
	char *out = json_dumps(settings, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	struct buf text = BUF_INIT;
	int rc;

	buf_adds(&text, out);
	buf_addch(&text, '\n');
	if ((rc = write_file(path, text.buf, text.len, 0644, err)) == 0) {
		report->changed++;
		say(report, "wrote", path, why);
	}
	free(out);
	buf_release(&text);
	return rc;
}

/*
 * The object member key of settings (read from path), created empty when
 * missing; NULL with ERR_FAILED when it is there but not an object.
 */
static json_t *
settings_object(json_t *settings, const char *key, const char *path,
    struct err *err)
{
	json_t *object = json_object_get(settings, key);

	if (object == NULL) {
		object = json_object();
		json_object_set_new(settings, key, object);
	} else if (!json_is_object(object)) {
		err_set(err, ERR_FAILED, "\"%s\" in %s is not an object; fix it, "
		    "then run init again", key, path);
		return NULL;
	}
	return object;
}

/*
 * Merge wanted ({event: [groups]}) into the "hooks" object of the JSON
 * settings file at path; a group is added to an event unless one of the
 * event's groups already runs "daicho hook CLIENT". Keeps every other key.
 */
static int
merge_hooks_file(const char *path, json_t *wanted, const char *client,
    struct install_report *report, struct err *err)
{
	struct buf mark = BUF_INIT;
	json_t *settings = NULL, *hooks, *groups;
	const char *event;
	bool changed = false;
	int rc;

	buf_addf(&mark, "daicho hook %s", client);
	if ((rc = read_settings(path, &settings, err)) < 0)
		goto done;
	if ((hooks = settings_object(settings, "hooks", path, err)) == NULL) {
		rc = -(int)err->code;
		goto done;
	}
	json_object_foreach(wanted, event, groups) {
		json_t *have = json_object_get(hooks, event), *g;
		bool present = false;
		size_t i;

		if (have == NULL) {
			have = json_array();
			json_object_set_new(hooks, event, have);
		} else if (!json_is_array(have)) {
			rc = err_set(err, ERR_FAILED, "hooks.%s in %s is not an array; "
			    "fix it, then run init again", event, path);
			goto done;
		}
		json_array_foreach(have, i, g)
			present |= group_runs(g, mark.buf);
		if (!present) {
			json_array_extend(have, groups);
			changed = true;
		}
	}
	if (!changed)
		say(report, "kept", path, "its daicho hooks are in place");
	else
		rc = write_settings(path, settings, "hooks merged", report, err);
done:
	json_decref(settings);
	buf_release(&mark);
	return rc;
}

/*
 * Register daicho's MCP server ("daicho mcp", with type for the clients
 * that want one) as mcpServers.daicho of the JSON settings file at path,
 * unless a server of that name is there (the user's entry is kept). Keeps
 * every other key and server.
 */
static int
merge_mcp_servers(const char *path, const char *type,
    struct install_report *report, struct err *err)
{
	json_t *settings = NULL, *servers, *server;
	int rc;

	if ((rc = read_settings(path, &settings, err)) < 0)
		goto done;
	if ((servers = settings_object(settings, "mcpServers", path, err)) == NULL) {
		rc = -(int)err->code;
		goto done;
	}
	if (json_object_get(servers, MCP_SERVER_NAME) != NULL) {
		say(report, "kept", path, "it registers an MCP server named "
		    MCP_SERVER_NAME);
		goto done;
	}
	server = json_pack("{s:s, s:[s]}", "command", "daicho", "args", "mcp");
	if (type)
		json_object_set_new(server, "type", json_string(type));
	json_object_set_new(servers, MCP_SERVER_NAME, server);
	rc = write_settings(path, settings, "MCP server daicho added", report, err);
done:
	json_decref(settings);
	return rc;
}

/*
 * What registers daicho's MCP server in Codex's config.toml. Codex starts
 * an MCP server with an environment of its own making, not its session's:
 * env_vars passes on who the worker is (DAICHO_AGENT, DAICHO_TASK, from
 * 'daicho run'), which ledger, and libpq's variables for a PostgreSQL one.
 */
static const char codex_mcp_section[] =
    "\n# daicho's MCP server (daicho init --codex); see 'daicho mcp --help'\n"
    "[mcp_servers." MCP_SERVER_NAME "]\n"
    "command = \"daicho\"\n"
    "args = [\"mcp\"]\n"
    "env_vars = [\"DAICHO_AGENT\", \"DAICHO_TASK\", \"DAICHO_LEDGER\", "
    "\"PGHOST\", \"PGPORT\", \"PGUSER\", \"PGDATABASE\", \"PGSERVICE\", "
    "\"PGPASSFILE\", \"PGSSLMODE\"]\n";

/* Note whether a TOML value lies under mcp_servers.daicho. */
static void
find_codex_server(const struct strlist *keys, const char *value, bool is_bool,
    void *arg)
{
	bool *found = arg;

	if (keys->count >= 2 && strcmp(keys->items[0], "mcp_servers") == 0 &&
	    strcmp(keys->items[1], MCP_SERVER_NAME) == 0)
		*found = true;
}

/*
 * Register daicho's MCP server in Codex's config.toml at path: the
 * [mcp_servers.daicho] table appended, unless the file has one (the
 * user's is kept). Nothing else in the file changes.
 */
static int
merge_codex_config(const char *path, struct install_report *report,
    struct err *err)
{
	struct buf text = BUF_INIT;
	bool found = false;
	int rc = 0;

	if (buf_read_file(&text, path) < 0 && errno != ENOENT) {
		rc = err_set(err, ERR_FAILED, "cannot read %s (%s)", path,
		    strerror(errno));
		goto done;
	}
	toml_each_value(text.buf, text.len, find_codex_server, &found);
	if (found || strstr(text.buf, "[mcp_servers." MCP_SERVER_NAME "]")) {
		say(report, "kept", path, "it registers an MCP server named "
		    MCP_SERVER_NAME);
		goto done;
	}
	if (text.len && text.buf[text.len - 1] != '\n')
		buf_addch(&text, '\n');
	buf_adds(&text, codex_mcp_section + (text.len == 0));
	if ((rc = write_file(path, text.buf, text.len, 0644, err)) < 0)
		goto done;
	report->changed++;
	say(report, "wrote", path, "MCP server daicho added");
done:
	buf_release(&text);
	return rc;
}

/* Write path with content unless it exists (a user's version is kept). */
static int
write_once(const char *path, const char *content, struct install_report *report,
    struct err *err)
{
	struct buf have = BUF_INIT;
	int rc = 0;

	if (buf_read_file(&have, path) == 0) {
		say(report, "kept", path, strcmp(have.buf, content) == 0 ? "up to date"
		    : "it differs from daicho's; yours is kept");
	} else if ((rc = write_file(path, content, strlen(content), 0644,
			err)) == 0) {
		report->changed++;
		say(report, "wrote", path, NULL);
	}
	buf_release(&have);
	return rc;
}

/* Append daicho's section to an instructions file unless it has one. */
static int
add_section(const char *path, struct install_report *report, struct err *err)
{
	struct buf text = BUF_INIT;
	int rc = 0;

	if (buf_read_file(&text, path) == 0 && strstr(text.buf, SECTION_BEGIN)) {
		say(report, "kept", path, "it has daicho's section");
		goto done;
	}
	if (text.len && text.buf[text.len - 1] != '\n')
		buf_addch(&text, '\n');
	if (text.len)
		buf_addch(&text, '\n');
	buf_adds(&text, instructions_section);
	if ((rc = write_file(path, text.buf, text.len, 0644, err)) < 0)
		goto done;
	report->changed++;
	say(report, "wrote", path, "daicho's section added");
done:
	buf_release(&text);
	return rc;
}

/*
 * The skill where Codex and Gemini CLI read a project's skills, unless it
 * is there, and daicho's section (which points to it) in root's file.
 */
static int
add_skill_and_section(const char *root, const char *file,
    struct install_report *report, struct err *err)
{
	struct buf path = BUF_INIT;
	int rc;

	buf_addf(&path, "%s/" AGENTS_SKILL_PATH, root);
	if ((rc = write_once(path.buf, daicho_skill, report, err)) == 0) {
		buf_reset(&path);
		buf_addf(&path, "%s/%s", root, file);
		rc = add_section(path.buf, report, err);
	}
	buf_release(&path);
	return rc;
}

/* One matcher group running "daicho hook CLIENT EVENT". */
static json_t *
group(const char *matcher, const char *client, const char *event, int timeout,
    bool gemini)
{
	json_t *handler = json_object(), *g = json_object();
	char command[96];

	snprintf(command, sizeof(command), "daicho hook %s %s", client, event);
	if (gemini) {
		char name[64];

		snprintf(name, sizeof(name), "daicho-%s", event);
		json_object_set_new(handler, "name", json_string(name));
	}
	json_object_set_new(handler, "type", json_string("command"));
	json_object_set_new(handler, "command", json_string(command));
	if (timeout)
		json_object_set_new(handler, "timeout", json_integer(timeout));
	if (matcher)
		json_object_set_new(g, "matcher", json_string(matcher));
	json_object_set_new(g, "hooks", json_pack("[o]", handler));
	return json_pack("[o]", g);
}

int
install_claude(const char *root, struct install_report *report,
    struct err *err)
{
	struct buf path = BUF_INIT;
	json_t *wanted = json_object();
	int rc;

	json_object_set_new(wanted, "SessionStart", group("startup|resume|clear|"
	    "compact", "claude", "session-start", 10, false));
	json_object_set_new(wanted, "PreToolUse", group("*", "claude",
	    "pre-tool-use", 10, false));
	/* A heartbeat after a long tool call too: a quiet agent goes stale. */
	json_object_set_new(wanted, "PostToolUse", group("*", "claude",
	    "post-tool-use", 10, false));
	json_object_set_new(wanted, "Stop", group(NULL, "claude", "stop", 10,
	    false));
	json_object_set_new(wanted, "SessionEnd", group(NULL, "claude",
	    "session-end", 5, false));
	buf_addf(&path, "%s/.claude/settings.json", root);
	if ((rc = merge_hooks_file(path.buf, wanted, "claude", report, err)) < 0)
		goto done;
	buf_reset(&path);
	buf_addf(&path, "%s/.claude/agents/daicho-worker.md", root);
	if ((rc = write_once(path.buf, worker_definition, report, err)) < 0)
		goto done;
	buf_reset(&path);
	buf_addf(&path, "%s/" CLAUDE_SKILL_PATH, root);
	if ((rc = write_once(path.buf, daicho_skill, report, err)) < 0)
		goto done;
	buf_reset(&path);
	buf_addf(&path, "%s/.mcp.json", root);
	rc = merge_mcp_servers(path.buf, "stdio", report, err);
done:
	json_decref(wanted);
	buf_release(&path);
	return rc;
}

int
install_codex(const char *root, struct install_report *report, struct err *err)
{
	struct buf path = BUF_INIT;
	json_t *wanted = json_object();
	int rc;

	json_object_set_new(wanted, "SessionStart", group(NULL, "codex",
	    "session-start", 10, false));
	json_object_set_new(wanted, "PreToolUse", group("*", "codex",
	    "pre-tool-use", 10, false));
	json_object_set_new(wanted, "PostToolUse", group("*", "codex",
	    "post-tool-use", 10, false));
	json_object_set_new(wanted, "Stop", group(NULL, "codex", "stop", 10,
	    false));
	buf_addf(&path, "%s/.codex/hooks.json", root);
	if ((rc = merge_hooks_file(path.buf, wanted, "codex", report, err)) < 0)
		goto done;
	buf_reset(&path);
	buf_addf(&path, "%s/.codex/config.toml", root);
	if ((rc = merge_codex_config(path.buf, report, err)) < 0)
		goto done;
	buf_reset(&path);
	rc = add_skill_and_section(root, "AGENTS.md", report, err);
done:
	json_decref(wanted);
	buf_release(&path);
	return rc;
}

int
install_gemini(const char *root, struct install_report *report,
    struct err *err)
{
	struct buf path = BUF_INIT;
	json_t *wanted = json_object();
	int rc;

	json_object_set_new(wanted, "SessionStart", group("*", "gemini",
	    "SessionStart", 10000, true));
	json_object_set_new(wanted, "BeforeTool", group("*", "gemini",
	    "BeforeTool", 10000, true));
	json_object_set_new(wanted, "AfterTool", group("*", "gemini",
	    "AfterTool", 10000, true));
	json_object_set_new(wanted, "SessionEnd", group("*", "gemini",
	    "SessionEnd", 5000, true));
	buf_addf(&path, "%s/.gemini/settings.json", root);
	if ((rc = merge_hooks_file(path.buf, wanted, "gemini", report, err)) < 0 ||
	    (rc = merge_mcp_servers(path.buf, NULL, report, err)) < 0)
		goto done;
	rc = add_skill_and_section(root, "GEMINI.md", report, err);
done:
	json_decref(wanted);
	buf_release(&path);
	return rc;
}


/* Whether the file at path holds text. */
static bool
file_holds(const char *path, const char *text)
{
	struct buf content = BUF_INIT;
	bool holds = buf_read_file(&content, path) == 0 &&
	    strstr(content.buf, text) != NULL;

	buf_release(&content);
	return holds;
}

/* check_plugins()'s answer: which clients have daicho as a plugin (its ways[], in order). */
#define PLUGIN_CLAUDE 1u
#define PLUGIN_CODEX 2u
#define PLUGIN_GEMINI 4u

/*
 * The clients' own ways of installing daicho, for this user: Claude Code's
 * plugin (enabled in ~/.claude/settings.json), Codex's (a [plugins.
 * "daicho@daicho"] table in $CODEX_HOME/config.toml) and Gemini CLI's
 * extension (~/.gemini/extensions/daicho). Each found is a check; one
 * found beside the project's hooks that 'init' wrote fails: every hook
 * would run twice. Returns the PLUGIN_ bits of those found.
 */
static unsigned
check_plugins(json_t *checks, const char *root)
{
	static const struct {
		const char *client, *home_var, *home_rel, *marker, *project,
		    *project_marker, *remove;
	} ways[] = {
		{ "claude", NULL, ".claude/settings.json", "\"daicho@daicho\": true",
		  ".claude/settings.json", "daicho hook claude",
		  "'claude plugin uninstall daicho@daicho'" },
		{ "codex", "CODEX_HOME", ".codex", "[plugins.\"daicho@daicho\"]",
		  ".codex/hooks.json", "daicho hook codex",
		  "'codex plugin remove daicho@daicho'" },
		{ "gemini", NULL, ".gemini/extensions/daicho/gemini-extension.json",
		  "\"daicho\"", ".gemini/settings.json", "daicho hook gemini",
		  "'gemini extensions uninstall daicho'" },
	};
	struct buf path = BUF_INIT, name = BUF_INIT, detail = BUF_INIT,
	    fix = BUF_INIT;
	unsigned found = 0;

	for (size_t i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
		buf_reset(&path);
		path_add_user_dir(&path, ways[i].home_var, ways[i].home_rel);
		if (ways[i].home_var)
			buf_adds(&path, "/config.toml");
		if (!file_holds(path.buf, ways[i].marker))
			continue;
		found |= 1u << i;
		buf_reset(&name);
		buf_reset(&detail);
		buf_reset(&fix);
		buf_addf(&name, "%s plugin", ways[i].client);
		buf_addf(&detail, "daicho is installed for this user as %s's %s "
		    "(%s)", ways[i].client, i == 2 ? "extension" : "plugin",
		    path.buf);
		buf_reset(&path);
		buf_addf(&path, "%s/%s", root, ways[i].project);
		if (!file_holds(path.buf, ways[i].project_marker)) {
			doctor_check(checks, name.buf, true, detail.buf, NULL);
			continue;
		}
		buf_addf(&detail, ", and 'daicho init --%s' wrote its hooks in "
		    "%s too: each hook runs twice", ways[i].client, path.buf);
		buf_addf(&fix, "keep one: %s, or remove daicho's hooks from %s",
		    ways[i].remove, path.buf);
		doctor_check(checks, name.buf, false, detail.buf, fix.buf);
	}
	buf_release(&path);
	buf_release(&name);
	buf_release(&detail);
	buf_release(&fix);
	return found;
}

/* toml_value_fn: *arg becomes 1 for a top-level allow_login_shell = false. */
static void
find_no_login_shell(const struct strlist *keys, const char *value,
    bool is_bool, void *arg)
{
	if (keys->count == 1 && strcmp(keys->items[0], "allow_login_shell") == 0 &&
	    is_bool)
		*(int *)arg = strcmp(value, "false") == 0;
}

/*
 * Whether Codex's configuration for the project at root says
 * allow_login_shell = false: the project's .codex/config.toml, which
 * overrides $CODEX_HOME/config.toml (default ~/.codex/config.toml).
 */
static bool
codex_login_shell_off(const char *root)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	int off = -1; /* -1: not set */

	path_add_user_dir(&path, "CODEX_HOME", ".codex");
	buf_adds(&path, "/config.toml");
	if (buf_read_file(&text, path.buf) == 0)
		toml_each_value(text.buf, text.len, find_no_login_shell, &off);
	buf_reset(&path);
	buf_reset(&text);
	buf_addf(&path, "%s/.codex/config.toml", root);
	if (buf_read_file(&text, path.buf) == 0)
		toml_each_value(text.buf, text.len, find_no_login_shell, &off);
	buf_release(&path);
	buf_release(&text);
	return off == 1;
}

/* How long a login shell's profiles may take before doctor gives up. */
#define LOGIN_SHELL_TIMEOUT_MS 5000

/*
 * Codex runs the model's commands in a login shell (the user's shell from
 * /etc/passwd, run with -l) unless its allow_login_shell is false, and a
 * login shell sets PATH afresh from /etc/profile and the user's profile:
 * the check that such a shell finds daicho, added to checks. The shell
 * runs with stdin from /dev/null, in this environment, for 5 s at most
 * (a profile may start what never ends); what the profile prints is
 * skipped.
 */
static void
check_codex_login_shell(json_t *checks, const char *root)
{
	static const char marker[] = "daicho-login-path:";
	const char *shell = user_shell();
	const char *argv[] = { shell, "-lc",
		"printf 'daicho-login-path:%s\\n' \"$(command -v daicho)\"", NULL };
	struct proc_result run = { 0 };
	struct buf found = BUF_INIT, detail = BUF_INIT, fix = BUF_INIT;
	size_t skip = sizeof(marker) - 1;

	if (codex_login_shell_off(root)) {
		doctor_check(checks, "codex login shell", true, "Codex's "
		    "allow_login_shell is false: the model's commands keep "
		    "Codex's PATH", NULL);
		return;
	}
	/* The marker's last line with a path: the answer. */
	if (proc_run(argv, NULL, NULL, LOGIN_SHELL_TIMEOUT_MS, 4096, &run) == 0) {
		for (const char *line = run.output.buf; *line;
		     line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
			if (strncmp(line, marker, skip) == 0 && line[skip] == '/') {
				buf_reset(&found);
				buf_add(&found, line + skip, strcspn(line + skip, "\n"));
			}
		}
	}
	if (run.timed_out) {
		buf_addf(&detail, "Codex runs the model's commands in a login shell "
		    "(%s -l), whose profile did not finish in %d s: doctor cannot "
		    "tell whether its PATH has daicho", shell,
		    LOGIN_SHELL_TIMEOUT_MS / 1000);
		buf_adds(&fix, "make the profile finish (nothing it starts may keep "
		    "its output open), or set allow_login_shell = false in Codex's "
		    "config.toml");
		doctor_check(checks, "codex login shell", false, detail.buf, fix.buf);
	} else if (found.len) {
		buf_addf(&detail, "Codex runs commands in a login shell (%s -l), "
		    "which finds %s", shell, found.buf);
		doctor_check(checks, "codex login shell", true, detail.buf, NULL);
	} else {
		buf_addf(&detail, "Codex runs the model's commands in a login shell "
		    "(%s -l), which sets PATH from /etc/profile and your profile and "
		    "finds no daicho there: its 'daicho ...' commands would fail with "
		    "\"command not found\"", shell);
		buf_adds(&fix, "install daicho where that PATH looks ('make install' "
		    "puts it in /usr/local/bin), or add its directory to PATH in the "
		    "profile your login shell reads (~/.profile; ~/.bash_profile if "
		    "bash has one; ~/.zprofile for zsh), or set allow_login_shell = "
		    "false in Codex's config.toml (examples/worker-codex.sh passes "
		    "-c allow_login_shell=false)");
		doctor_check(checks, "codex login shell", false, detail.buf, fix.buf);
	}
	proc_result_release(&run);
	buf_release(&found);
	buf_release(&detail);
	buf_release(&fix);
}

/*
 * The check that the ledger at path is whole (SQLite's integrity check),
 * added to *checks. Returns -1 when it is damaged, 0 when it is whole, 1
 * when the check could not run, adding nothing (opening the ledger, the
 * "ledger" check, says why).
 */
static int
check_integrity(json_t *checks, const char *path)
{
	struct strlist problems = STRLIST_INIT;
	struct err err = ERR_INIT;
	struct buf detail = BUF_INIT, fix = BUF_INIT;
	int rc = 0;

	if (ledger_check_integrity(path, &problems, &err) < 0) {
		err_release(&err);
		return 1;
	}
	if (problems.count == 0) {
		doctor_check(checks, "ledger integrity", true, "SQLite's integrity check: ok",
		    NULL);
	} else {
		buf_addf(&detail, "%s is damaged: ", path);
		for (size_t i = 0; i < problems.count && i < 3; i++)
			buf_addf(&detail, "%s%s", i ? "; " : "", problems.items[i]);
		if (problems.count > 3)
			buf_addf(&detail, "; and more");
		buf_addf(&fix, "stop every agent and daicho process; restore %s "
		    "from a backup, or rebuild it from what SQLite can still read: "
		    "sqlite3 %s .dump | sed 's/^ROLLBACK; -- due to errors$/COMMIT;/' "
		    "| sqlite3 NEW.db && sqlite3 NEW.db 'PRAGMA user_version = %d; "
		    "PRAGMA application_id = %d; PRAGMA journal_mode = WAL', then move "
		    "NEW.db to %s, delete %s-wal and %s-shm, and run 'daicho doctor' "
		    "again", path, path, LEDGER_SCHEMA_VERSION, SCHEMA_APPLICATION_ID,
		    path, path, path);
		doctor_check(checks, "ledger integrity", false, detail.buf, fix.buf);
		rc = -1;
	}
	strlist_release(&problems);
	buf_release(&detail);
	buf_release(&fix);
	return rc;
}

/* The executable called name found on $PATH, appended to out; 0 or 1. */
static int
find_on_path(const char *name, struct buf *out)
{
	const char *path = getenv("PATH");
	int rc = 1;

	while (path && *path && rc != 0) {
		size_t len = strcspn(path, ":");
		struct buf candidate = BUF_INIT;

		buf_addf(&candidate, "%.*s/%s", (int)len, len ? path : ".", name);
		if (access(candidate.buf, X_OK) == 0) {
			buf_adds(out, candidate.buf);
			rc = 0;
		}
		buf_release(&candidate);
		path += len + (path[len] == ':');
	}
	return rc;
}

/*
 * The events of events for which the settings JSON text has no group that
 * runs "daicho hook CLIENT", appended to missing (", " between). Returns
 * false when text is not JSON.
 */
static bool
settings_missing(const char *text, size_t len, const char *client,
    const char *const *events, struct buf *missing)
{
	struct buf mark = BUF_INIT;
	json_t *settings = json_loadb(text, len, 0, NULL);

	buf_addf(&mark, "daicho hook %s", client);
	for (const char *const *e = events; settings && *e; e++) {
		json_t *groups = json_object_get(json_object_get(settings, "hooks"), *e),
		       *g;
		bool found = false;
		size_t i;

		json_array_foreach(groups, i, g)
			found |= group_runs(g, mark.buf);
		if (!found)
			buf_addf(missing, "%s%s", missing->len ? ", " : "", *e);
	}
	buf_release(&mark);
	json_decref(settings);
	return settings != NULL;
}

/*
 * Check that the settings file at path has, for every event, a group that
 * runs "daicho hook CLIENT".
 */
static void
check_settings(json_t *checks, const char *name, const char *path,
    const char *client, const char *const *events, const char *fix)
{
	struct buf text = BUF_INIT, missing = BUF_INIT, detail = BUF_INIT;
	bool settings;

	if (buf_read_file(&text, path) < 0) {
		buf_addf(&detail, "%s is missing", path);
		doctor_check(checks, name, false, detail.buf, fix);
		goto done;
	}
	settings = settings_missing(text.buf, text.len, client, events, &missing);
	if (!settings)
		buf_addf(&detail, "%s is not valid JSON", path);
	else if (missing.len)
		buf_addf(&detail, "%s has no daicho hook for %s", path, missing.buf);
	else
		buf_addf(&detail, "%s runs daicho's hooks", path);
	doctor_check(checks, name, settings && missing.len == 0, detail.buf, fix);
done:
	buf_release(&text);
	buf_release(&missing);
	buf_release(&detail);
}

/* Check that path exists and, when needle is given, holds it. */
static void
check_file(json_t *checks, const char *name, const char *path,
    const char *needle, const char *fix)
{
	struct buf text = BUF_INIT, detail = BUF_INIT;
	bool ok = buf_read_file(&text, path) == 0 &&
	    (needle == NULL || strstr(text.buf, needle) != NULL);

	buf_addf(&detail, "%s %s", path, ok ? "is in place" : needle && text.len
	    ? "lacks daicho's part" : "is missing");
	doctor_check(checks, name, ok, detail.buf, fix);
	buf_release(&text);
	buf_release(&detail);
}

static const char *const claude_events[] = { "SessionStart", "PreToolUse",
	"PostToolUse", "Stop", "SessionEnd", NULL };
static const char *const codex_events[] = { "SessionStart", "PreToolUse",
	"PostToolUse", "Stop", NULL };
static const char *const gemini_events[] = { "SessionStart", "BeforeTool",
	"AfterTool", "SessionEnd", NULL };

/* Each client's configuration, as installed and checked. */
static const struct client_config {
	const char *client;          /* claude, codex, gemini */
	const char *dir;             /* its directory in the project */
	const char *settings;        /* the hooks file, relative to the root */
	const char *const *events;   /* the events daicho hooks */
} client_configs[] = {
	{ "claude", ".claude", ".claude/settings.json", claude_events },
	{ "codex", ".codex", ".codex/hooks.json", codex_events },
	{ "gemini", ".gemini", ".gemini/settings.json", gemini_events },
};

/*
 * What a worktree made from a commit gets: for each client configured in
 * this work tree or the main one, that this one has it too (a `git
 * worktree add` of a branch without the committed configuration has no
 * hooks, and its sessions are not checked at all), and that the settings
 * committed at HEAD run every daicho hook.
 */
static void
check_worktree_and_commits(json_t *checks, const char *root)
{
	struct buf main_root = BUF_INIT, here = BUF_INIT, there = BUF_INIT,
		   name = BUF_INIT, detail = BUF_INIT, fix = BUF_INIT,
		   spec = BUF_INIT, text = BUF_INIT, missing = BUF_INIT,
		   real_root = BUF_INIT;
	char *resolved = realpath(root, NULL);

	buf_adds(&real_root, resolved ? resolved : root);
	free(resolved);
	if (path_main_work_tree(root, &main_root) != 0)
		goto done;
	for (size_t c = 0; c < sizeof(client_configs) / sizeof(client_configs[0]);
	     c++) {
		const struct client_config *cc = &client_configs[c];
		const char *argv[] = { "git", "-C", root, "show", NULL, NULL };
		bool in_here, in_main;

		buf_reset(&here);
		buf_reset(&there);
		buf_addf(&here, "%s/%s", root, cc->dir);
		buf_addf(&there, "%s/%s", main_root.buf, cc->dir);
		in_here = access(here.buf, F_OK) == 0;
		in_main = strcmp(main_root.buf, real_root.buf) != 0 &&
		    access(there.buf, F_OK) == 0;
		buf_reset(&name);
		buf_reset(&detail);
		buf_reset(&fix);
		if (!in_here && in_main) {
			buf_addf(&name, "%s hooks in worktree", cc->client);
			buf_addf(&detail, "this worktree (%s) has no %s/ while the main "
			    "worktree (%s) has one: %s sessions started here run no "
			    "daicho hook, and nothing is enforced", root, cc->dir,
			    main_root.buf, cc->client);
			buf_addf(&fix, "commit %s/ in the main worktree (git -C %s add "
			    "%s && git -C %s commit) and bring that commit into this "
			    "branch (git merge or rebase), or make this worktree again "
			    "from a commit that has it", cc->dir, main_root.buf, cc->dir,
			    main_root.buf);
			doctor_check(checks, name.buf, false, detail.buf, fix.buf);
			continue;
		}
		if (!in_here)
			continue;
		/* What a worktree made from HEAD gets. */
		buf_reset(&spec);
		buf_reset(&text);
		buf_reset(&missing);
		buf_addf(&spec, "HEAD:%s", cc->settings);
		argv[4] = spec.buf;
		buf_addf(&name, "%s hooks committed", cc->client);
		buf_addf(&fix, "git add %s && git commit -m 'daicho hooks' (every "
		    "worktree, and every clone, then has them)", cc->dir);
		if (proc_capture(argv, &text) != 0) {
			buf_addf(&detail, "%s is not committed: a worktree made from a "
			    "commit (git worktree add, daicho run --worktree, claude "
			    "--worktree) has no daicho hooks, and its sessions are not "
			    "checked", cc->settings);
			doctor_check(checks, name.buf, false, detail.buf, fix.buf);
		} else if (!settings_missing(text.buf, text.len, cc->client,
			       cc->events, &missing) || missing.len) {
			buf_addf(&detail, "%s as committed %s%s: worktrees made from "
			    "HEAD lack %s", cc->settings, missing.len ? "has no daicho "
			    "hook for " : "is not valid JSON", missing.buf, missing.len
			    ? "those hooks" : "every hook");
			doctor_check(checks, name.buf, false, detail.buf, fix.buf);
		} else {
			buf_addf(&detail, "%s at HEAD runs daicho's hooks: worktrees "
			    "made from it have them", cc->settings);
			doctor_check(checks, name.buf, true, detail.buf, NULL);
		}
	}
done:
	buf_release(&main_root);
	buf_release(&here);
	buf_release(&there);
	buf_release(&name);
	buf_release(&detail);
	buf_release(&fix);
	buf_release(&spec);
	buf_release(&text);
	buf_release(&missing);
	buf_release(&real_root);
}

/* Append word to out quoted for /bin/sh ('...', with ' as '\''). */
static void
add_shell_word(struct buf *out, const char *word)
{
	buf_addch(out, '\'');
	for (const char *p = word; *p; p++) {
		if (*p == '\'')
			buf_adds(out, "'\\''");
		else
			buf_addch(out, *p);
	}
	buf_addch(out, '\'');
}

/*
 * The command line registering daicho's MCP server in the JSON settings
 * file at path (mcpServers.daicho: command and args), shell-quoted into
 * command. Returns whether it is there.
 */
static bool
registered_json_server(const char *path, struct buf *command)
{
	struct buf text = BUF_INIT;
	json_t *settings = NULL, *server, *arg;
	bool found = false;
	size_t i;

	if (buf_read_file(&text, path) == 0)
		settings = json_loadb(text.buf, text.len, 0, NULL);
	server = json_object_get(json_object_get(settings, "mcpServers"),
	    MCP_SERVER_NAME);
	if (json_is_string(json_object_get(server, "command"))) {
		found = true;
		add_shell_word(command, json_string_value(json_object_get(server,
		    "command")));
		json_array_foreach(json_object_get(server, "args"), i, arg)
			if (json_is_string(arg)) {
				buf_addch(command, ' ');
				add_shell_word(command, json_string_value(arg));
			}
	}
	json_decref(settings);
	buf_release(&text);
	return found;
}

/* The command of mcp_servers.daicho in a Codex config.toml, if any. */
static void
find_codex_command(const struct strlist *keys, const char *value,
    bool is_bool, void *arg)
{
	struct buf *command = arg;

	if (keys->count == 3 && strcmp(keys->items[0], "mcp_servers") == 0 &&
	    strcmp(keys->items[1], MCP_SERVER_NAME) == 0 &&
	    strcmp(keys->items[2], "command") == 0 && !is_bool) {
		buf_reset(command);
		add_shell_word(command, value);
	}
}

/*
 * Start the MCP server as command registers it (as the agent
 * daicho-doctor: a person's doctor is no agent session) in root, send it
 * initialize and check that it answers with a protocol version; add the
 * check as name.
 */
static void
check_mcp_answers(json_t *checks, const char *name, const char *root,
    const char *command, const char *fix)
{
	static const char *const env[] = { "DAICHO_AGENT=daicho-doctor", NULL };
	struct buf shell = BUF_INIT, detail = BUF_INIT;
	struct proc_result result;
	const char *line;
	json_t *answer = NULL;

	buf_addf(&shell, "printf '%%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
	    "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":"
	    "\"daicho-doctor\",\"version\":\"1\"}}}' | %s 2>&1", command);
	if (proc_run_shell(shell.buf, root, env, 10000, 8192, &result) < 0) {
		buf_addf(&detail, "cannot run %s (%s)", command, strerror(errno));
		doctor_check(checks, name, false, detail.buf, fix);
		goto done;
	}
	for (line = result.output.buf; line && *line; line = strchr(line, '\n'),
	     line = line ? line + 1 : NULL)
		if (*line == '{' && (answer = json_loadb(line, strcspn(line, "\n"), 0,
		    NULL)) != NULL)
			break;
	if (json_is_string(json_object_get(json_object_get(answer, "result"),
	    "protocolVersion")) && result.exit_status == 0) {
		buf_addf(&detail, "%s starts and answers initialize (protocol %s)",
		    command, json_string_value(json_object_get(json_object_get(answer,
		    "result"), "protocolVersion")));
		doctor_check(checks, name, true, detail.buf, NULL);
	} else {
		buf_addf(&detail, "%s did not answer initialize (exit %d%s): ",
		    command, result.exit_status, result.timed_out ? ", timed out" : "");
		buf_add_oneline(&detail, result.output.len ? result.output.buf
		    : "no output");
		doctor_check(checks, name, false, detail.buf, fix);
	}
	proc_result_release(&result);
done:
	json_decref(answer);
	buf_release(&shell);
	buf_release(&detail);
}

/*
 * The fields the ledger derives (unmet_deps, has_touches) agree with the
 * rows they come from: a check in checks. A write behind daicho's back
 * (an import of an edited file before import recomputed them, a process
 * that opened the ledger itself) shows here.
 */
static void
check_derived(json_t *checks, struct ledger *ledger)
{
	struct buf ids = BUF_INIT, text = BUF_INIT;
	struct err err = ERR_INIT;
	int64_t wrong = 0;

	if (task_derived_wrong(ledger, &wrong, &ids, &err) < 0) {
		doctor_check(checks, "derived fields", false, err.message.buf,
		    "see the error");
	} else if (wrong == 0) {
		doctor_check(checks, "derived fields", true, "every task's unmet "
		    "dependencies and touches agree with its rows", NULL);
	} else {
		buf_addf(&text, "%lld task%s whose unmet dependencies or touches "
		    "disagree with the ledger's rows (%s%s): something wrote the "
		    "ledger behind daicho's back", (long long)wrong, wrong == 1 ? ""
		    : "s", ids.buf, wrong > 10 ? ", ..." : "");
		doctor_check(checks, "derived fields", false, text.buf, "find who "
		    "wrote it (docs/security.md); 'daicho export' into 'daicho "
		    "import' on a new ledger derives them again");
	}
	buf_release(&ids);
	buf_release(&text);
	err_release(&err);
}

/* The first item of kind in items, or NULL. */
static json_t *
need_of_kind(json_t *items, const char *kind)
{
	json_t *item;
	size_t i;

	json_array_foreach(items, i, item)
		if (strcmp(json_string_value(json_object_get(item, "kind")),
		    kind) == 0)
			return item;
	return NULL;
}

/*
 * Reports are taken by a sweep, and verified work by a lander: none has
 * waited past the stale window (NEEDS YOU's "unswept" and "unlanded"),
 * else no sweep is running. Checks "sweep" and "landing" in checks.
 */
static void
check_swept(json_t *checks, struct ledger *ledger)
{
	static const char fix[] = "run 'daicho sweep --every 30s' (or the "
	    "daicho-sweep@ service in examples/) where the repository is";
	struct needs_options options = {
		.stale_after_ms = AGENT_STALE_AFTER_MS,
	};
	struct err err = ERR_INIT;
	json_t *items = NULL, *item;

	if (needs_list(ledger, &options, &items, &err) < 0) {
		doctor_check(checks, "sweep", false, err.message.buf,
		    "see the error");
		err_release(&err);
		return;
	}
	if ((item = need_of_kind(items, "unswept")) == NULL)
		doctor_check(checks, "sweep", true, "no report waits for a sweep",
		    NULL);
	else
		doctor_check(checks, "sweep", false, json_string_value(
		    json_object_get(item, "summary")), fix);
	if ((item = need_of_kind(items, "unlanded")) == NULL)
		doctor_check(checks, "landing", true, "no verified work waits "
		    "for a lander", NULL);
	else
		doctor_check(checks, "landing", false, json_string_value(
		    json_object_get(item, "summary")), fix);
	json_decref(items);
}

/*
 * On PostgreSQL, what the ledger's roles and database allow, each asked of
 * core as a yes or no and judged against the answer that is safe
 * (docs/security.md): that the ledger's owner may end an agent's session
 * that locks a person out, and that no login may make temporary objects
 * (the database is daicho's own). A check in checks for each.
 */
static void
check_postgresql(json_t *checks, struct ledger *ledger)
{
	static const struct {
		const char *name;
		int (*ask)(struct ledger *, bool *, struct err *);
		bool safe;                 /* the answer that passes */
		const char *passed, *failed, *fix;
	} asks[] = {
		{ "lock-outs", ledger_owner_may_free, true,
		  "a person whose lock wait runs out ends the agents' sessions "
		  "that held it",
		  "the ledger's owner may not end agents' sessions, so an "
		  "agent's login holding a lock can lock a person out",
		  "as a superuser: GRANT pg_signal_backend, pg_read_all_stats "
		  "TO the owner" },
		{ "temporary objects", ledger_public_may_temp, false,
		  "no login may make temporary objects in the ledger's database",
		  "every login may make temporary objects in the ledger's "
		  "database (it is shared, and not the ledger owner's)",
		  "give daicho a database of its own: createdb -O OWNER daicho "
		  "(docs/security.md)" },
	};

	for (size_t i = 0; i < sizeof(asks) / sizeof(asks[0]); i++) {
		struct err err = ERR_INIT;
		bool answer = false;

		if (asks[i].ask(ledger, &answer, &err) < 0)
			doctor_check(checks, asks[i].name, false,
			    err.message.buf, "see the error");
		else if (answer == asks[i].safe)
			doctor_check(checks, asks[i].name, true, asks[i].passed,
			    NULL);
		else
			doctor_check(checks, asks[i].name, false, asks[i].failed,
			    asks[i].fix);
		err_release(&err);
	}
}

/*
 * For each client configured at root, that daicho's MCP server is
 * registered; then that each distinct registered command starts and
 * answers initialize.
 */
static void
check_mcp(json_t *checks, const char *root)
{
	static const struct {
		const char *client, *dir, *file, *fix;
	} registrations[] = {
		{ "claude", ".claude", ".mcp.json", "run 'daicho init --claude'" },
		{ "codex", ".codex", ".codex/config.toml", "run 'daicho init --codex'" },
		{ "gemini", ".gemini", ".gemini/settings.json",
		  "run 'daicho init --gemini'" },
	};
	struct buf path = BUF_INIT, command = BUF_INIT, name = BUF_INIT,
		   detail = BUF_INIT;
	struct strlist probed = STRLIST_INIT;

	for (size_t i = 0; i < sizeof(registrations) / sizeof(registrations[0]);
	     i++) {
		bool found;

		buf_reset(&path);
		buf_addf(&path, "%s/%s", root, registrations[i].dir);
		if (access(path.buf, F_OK) != 0)
			continue;
		buf_reset(&path);
		buf_reset(&command);
		buf_reset(&name);
		buf_reset(&detail);
		buf_addf(&path, "%s/%s", root, registrations[i].file);
		if (strcmp(registrations[i].client, "codex") == 0) {
			struct buf text = BUF_INIT;

			if (buf_read_file(&text, path.buf) == 0)
				toml_each_value(text.buf, text.len, find_codex_command,
				    &command);
			buf_release(&text);
			/* Its args are an array, which the TOML reader skips. */
			if ((found = command.len > 0)) {
				buf_addch(&command, ' ');
				add_shell_word(&command, "mcp");
			}
		} else {
			found = registered_json_server(path.buf, &command);
		}
		buf_addf(&name, "%s MCP server", registrations[i].client);
		if (!found) {
			buf_addf(&detail, "%s does not register an MCP server named %s",
			    path.buf, MCP_SERVER_NAME);
			doctor_check(checks, name.buf, false, detail.buf,
			    registrations[i].fix);
			continue;
		}
		buf_addf(&detail, "%s registers %s", path.buf, command.buf);
		doctor_check(checks, name.buf, true, detail.buf, NULL);
		if (strlist_contains(&probed, command.buf))
			continue;
		strlist_add(&probed, command.buf);
		buf_reset(&name);
		buf_addf(&name, "MCP server answers (%s)", registrations[i].client);
		check_mcp_answers(checks, name.buf, root, command.buf, "run the "
		    "command by hand to see why; 'daicho mcp --help'");
	}
	strlist_release(&probed);
	buf_release(&path);
	buf_release(&command);
	buf_release(&name);
	buf_release(&detail);
}

void
install_doctor(const char *root, const char *ledger_path, json_t **checks)
{
	struct buf text = BUF_INIT, path = BUF_INIT;
	bool codex, gemini;
	struct ledger *ledger = NULL;
	struct err err = ERR_INIT;

	*checks = json_array();
	if (ledger_is_postgresql(ledger_path)) {
		/* PostgreSQL checks its own pages: reaching the schema is ours. */
		if (ledger_open(ledger_path, &ledger, &err) < 0) {
			doctor_check(*checks, "ledger", false, err.message.buf, "see "
			    "the error; 'daicho init' (by the database's owner) makes "
			    "or updates the schema");
		} else {
			buf_addf(&text, "PostgreSQL (schema %lld)",
			    (long long)ledger_schema_version(ledger));
			doctor_check(*checks, "ledger", true, text.buf, NULL);
		}
	} else if (access(ledger_path, F_OK) != 0) {
		buf_addf(&text, "no ledger at %s", ledger_path);
		doctor_check(*checks, "ledger", false, text.buf, "run 'daicho init'");
	} else {
		/* First, so that a ledger found whole again loses its mark. */
		json_t *integrity = json_array();

		if (check_integrity(integrity, ledger_path) < 0) {
			/* Damaged: that check says it all. */
		} else if (ledger_open(ledger_path, &ledger, &err) < 0) {
			doctor_check(*checks, "ledger", false, err.message.buf, "see the "
			    "error; 'daicho init' brings an old schema up to date");
		} else {
			buf_addf(&text, "%s (schema %lld)", ledger_path,
			    (long long)ledger_schema_version(ledger));
			doctor_check(*checks, "ledger", true, text.buf, NULL);
		}
		json_array_extend(*checks, integrity);
		json_decref(integrity);
	}
	if (ledger != NULL) {
		check_derived(*checks, ledger);
		check_swept(*checks, ledger);
		if (ledger_is_postgresql(ledger_path))
			check_postgresql(*checks, ledger);
	}
	ledger_close(ledger);
	err_release(&err);
	buf_reset(&text);
	if (find_on_path("daicho", &path) == 0) {
		buf_addf(&text, "hooks run %s", path.buf);
		doctor_check(*checks, "daicho on PATH", true, text.buf, NULL);
	} else {
		doctor_check(*checks, "daicho on PATH", false, "the hooks run 'daicho', which "
		    "is not on PATH: Claude Code and Codex then skip them silently "
		    "(nothing is enforced), and Gemini CLI refuses every tool call",
		    "'make install' (or put daicho's directory on PATH for the "
		    "agents' sessions)");
	}
	buf_reset(&path);
	if (git_hooks_dir(root, &path) == 0) {
		buf_adds(&path, "/pre-commit");
		check_file(*checks, "git pre-commit hook", path.buf, GIT_HOOK_MARK,
		    "run 'daicho init --git-hook' (an existing hook is kept and "
		    "chained)");
		if (access(path.buf, F_OK) == 0 && access(path.buf, X_OK) != 0)
			doctor_check(*checks, "git pre-commit hook executable", false, path.buf,
			    "chmod +x it");
	}
	buf_reset(&path);
	buf_addf(&path, "%s/.claude", root);
	if (access(path.buf, F_OK) == 0) {
		buf_adds(&path, "/settings.json");
		check_settings(*checks, "claude hooks", path.buf, "claude",
		    claude_events, "run 'daicho init --claude'");
		buf_reset(&path);
		buf_addf(&path, "%s/.claude/agents/daicho-worker.md", root);
		check_file(*checks, "claude worker", path.buf, NULL,
		    "run 'daicho init --claude'");
		buf_reset(&path);
		buf_addf(&path, "%s/" CLAUDE_SKILL_PATH, root);
		check_file(*checks, "claude skill", path.buf, "name: daicho",
		    "run 'daicho init --claude'");
	}
	buf_reset(&path);
	buf_addf(&path, "%s/.codex", root);
	codex = access(path.buf, F_OK) == 0;
	if (codex) {
		buf_adds(&path, "/hooks.json");
		check_settings(*checks, "codex hooks", path.buf, "codex", codex_events,
		    "run 'daicho init --codex'");
		buf_reset(&path);
		buf_addf(&path, "%s/AGENTS.md", root);
		check_file(*checks, "AGENTS.md", path.buf, SECTION_BEGIN,
		    "run 'daicho init --codex'");
	}
	buf_reset(&path);
	buf_addf(&path, "%s/.gemini", root);
	gemini = access(path.buf, F_OK) == 0;
	if (gemini) {
		buf_adds(&path, "/settings.json");
		check_settings(*checks, "gemini hooks", path.buf, "gemini",
		    gemini_events, "run 'daicho init --gemini'");
		buf_reset(&path);
		buf_addf(&path, "%s/GEMINI.md", root);
		check_file(*checks, "GEMINI.md", path.buf, SECTION_BEGIN,
		    "run 'daicho init --gemini'");
	}
	if (codex || gemini) {
		buf_reset(&path);
		buf_addf(&path, "%s/" AGENTS_SKILL_PATH, root);
		check_file(*checks, "daicho skill", path.buf, "name: daicho",
		    codex ? "run 'daicho init --codex'" : "run 'daicho init --gemini'");
	}
	if ((check_plugins(*checks, root) & PLUGIN_CODEX) || codex)
		check_codex_login_shell(*checks, root);
	check_mcp(*checks, root);
	check_worktree_and_commits(*checks, root);
	trust_doctor(*checks, root);
	buf_release(&text);
	buf_release(&path);
}
