/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "integ/hook.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gate.h"
#include "core/msg.h"
#include "core/reserve.h"
#include "shell/cmdline.h"
#include "util/alloc.h"
#include "util/client.h"
#include "util/clock.h"
#include "util/path.h"

static const char *const client_names[] = { "claude", "codex", "gemini" };

/* Event spellings: daicho's, then the client's own. */
static const struct {
	enum hook_event event;
	const char *ours, *claude, *gemini;
} event_names[] = {
	{ HOOK_SESSION_START, "session-start", "SessionStart", "SessionStart" },
	{ HOOK_PRE_TOOL, "pre-tool-use", "PreToolUse", "BeforeTool" },
	{ HOOK_POST_TOOL, "post-tool-use", "PostToolUse", "AfterTool" },
	{ HOOK_STOP, "stop", "Stop", NULL },
	{ HOOK_SESSION_END, "session-end", "SessionEnd", "SessionEnd" },
};

#define EVENT_COUNT (sizeof(event_names) / sizeof(event_names[0]))

int
hook_parse(const char *client, const char *event, enum hook_client *c,
    enum hook_event *e, struct err *err)
{
	size_t i;

	for (i = 0; i < 3; i++)
		if (strcmp(client, client_names[i]) == 0)
			break;
	if (i == 3)
		return err_set(err, ERR_USAGE, "unknown hook client '%s' (use claude, "
		    "codex, gemini or git)", client);
	*c = (enum hook_client)i;
	for (size_t k = 0; k < EVENT_COUNT; k++) {
		const char *theirs = *c == HOOK_GEMINI ? event_names[k].gemini
						       : event_names[k].claude;

		/* Codex has no SessionEnd; Gemini has no Stop. */
		if ((*c == HOOK_CODEX && event_names[k].event == HOOK_SESSION_END) ||
		    (*c == HOOK_GEMINI && event_names[k].event == HOOK_STOP))
			continue;
		if (strcmp(event, event_names[k].ours) == 0 ||
		    (theirs && strcmp(event, theirs) == 0) ||
		    (*c == HOOK_GEMINI && strcmp(event, "before-tool") == 0 &&
		    event_names[k].event == HOOK_PRE_TOOL) ||
		    (*c == HOOK_GEMINI && strcmp(event, "after-tool") == 0 &&
		    event_names[k].event == HOOK_POST_TOOL)) {
			*e = event_names[k].event;
			return 0;
		}
	}
	return err_set(err, ERR_USAGE, "unknown %s hook event '%s' (use %s)", client,
	    event, *c == HOOK_CLAUDE ? "session-start, pre-tool-use, post-tool-use, "
	    "stop or session-end" : *c == HOOK_CODEX ? "session-start, "
	    "pre-tool-use, post-tool-use or stop" : "SessionStart, BeforeTool, "
	    "AfterTool or SessionEnd");
}

void
hook_answer_init(struct hook_answer *answer)
{
	answer->output = NULL;
	answer->exit_status = 0;
	buf_init(&answer->message);
	answer->delivered = NULL;
	answer->beat_after = false;
}

void
hook_answer_release(struct hook_answer *answer)
{
	json_decref(answer->output);
	answer->output = NULL;
	json_decref(answer->delivered);
	answer->delivered = NULL;
	buf_release(&answer->message);
}

/* What a tool does, as far as daicho's rules go. */
enum tool_kind { TOOL_OTHER, TOOL_SHELL, TOOL_EDIT };

bool
hook_is_shell_tool(const char *name)
{
	static const char *const shells[] = { "Bash", "shell", "exec_command",
		"local_shell", "run_shell_command" };

	for (size_t i = 0; name && i < sizeof(shells) / sizeof(shells[0]); i++)
		if (strcmp(name, shells[i]) == 0)
			return true;
	return false;
}

static enum tool_kind
tool_kind(enum hook_client client, const char *name)
{
	static const char *const edits[] = { "Edit", "Write", "MultiEdit",
		"NotebookEdit", "apply_patch", "write_file", "replace" };

	(void)client;
	if (name == NULL)
		return TOOL_OTHER;
	if (hook_is_shell_tool(name))
		return TOOL_SHELL;
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++)
		if (strcmp(name, edits[i]) == 0)
			return TOOL_EDIT;
	return TOOL_OTHER;
}

static const char *
payload_str(const json_t *payload, const char *key)
{
	return json_string_value(json_object_get(payload, key));
}

/*
 * The shell command of a shell tool call, parsed into line: a string is
 * split as sh would; an array (Codex's argv form) is taken word by word.
 * Returns false when there is no command.
 */
static bool
shell_line(const json_t *input, struct cmdline *line, struct buf *shown)
{
	const json_t *command = json_object_get(input, "command");

	if (json_is_string(command)) {
		buf_adds(shown, json_string_value(command));
		cmdline_parse(json_string_value(command), line, NULL);
		return true;
	}
	if (json_is_array(command) && json_array_size(command) > 0) {
		size_t n = json_array_size(command);
		const char **argv = xcalloc(n + 1, sizeof(char *));

		for (size_t i = 0; i < n; i++) {
			const char *w = json_string_value(json_array_get(command, i));

			argv[i] = w ? w : "";
			buf_addf(shown, "%s%s", i ? " " : "", argv[i]);
		}
		cmdline_from_argv(argv, n, line);
		free(argv);
		return true;
	}
	return false;
}

/* What daicho's rules find in a shell command line. */
struct shell_findings {
	bool human_only;	 /* it runs a daicho command a person's alone */
	struct buf identity;	 /* the changes that strip or blank an
				    identity variable, as written */
	struct buf unresolved;	 /* the first program it cannot resolve
				    statically, and why */
	/* hook_request's person_act, or NULL */
	bool (*person_act)(const char *const *words, size_t count);
};

/*
 * The index in c's words of the daicho command c runs (the first word
 * after daicho's global options), or 0 when c does not run daicho or names
 * no command.
 */
static size_t
daicho_command_index(const struct cmdline_command *c)
{
	const struct strlist *w = &c->words;

	if (w->count == 0 || strcmp(w->items[0], "daicho") != 0)
		return 0;
	for (size_t i = 1; i < w->count; i++) {
		const char *word = w->items[i];

		if (strcmp(word, "-C") == 0 || strcmp(word, "--ledger") == 0 ||
		    strcmp(word, "--as") == 0) {
			i++;
			continue;
		}
		if (word[0] != '-')
			return i;
	}
	return 0;
}

/* Whether a word may expand to something else when the line runs. */
static bool
word_expands(const char *word)
{
	return strpbrk(word, "$`*?[{") != NULL;
}

/*
 * Whether program (a path or a name) is an interpreter of another language
 * that runs code given as an argument: python3 -c, node -e, perl -e ...
 */
static bool
is_interpreter(const char *program)
{
	static const char *const names[] = { "python", "node", "nodejs", "deno",
		"bun", "perl", "ruby", "php", "lua", "tclsh", "osascript", "Rscript",
		"awk", "gawk", "mawk", "jshell", "pwsh", NULL };
	const char *base = strrchr(program, '/');

	base = base ? base + 1 : program;
	for (size_t i = 0; names[i] != NULL; i++) {
		size_t n = strlen(names[i]);

		/* python3, python3.11, node20: a version after the name. */
		if (strncmp(base, names[i], n) == 0 &&
		    strspn(base + n, "0123456789.") == strlen(base + n))
			return true;
	}
	return false;
}

/*
 * Whether a word of an interpreter's command line mentions daicho with a
 * person's command: code the hook cannot read that may run one
 * (pty.spawn(["daicho", "approve", "1"])).
 */
static bool
mentions_person_command(const struct strlist *w)
{
	for (size_t k = 1; k < w->count; k++)
		if (strstr(w->items[k], "daicho") != NULL &&
		    (strstr(w->items[k], "approve") != NULL ||
			strstr(w->items[k], "deny") != NULL ||
			strstr(w->items[k], "gate") != NULL))
			return true;
	return false;
}

/*
 * Look at one command: whether it runs a human-only daicho command and,
 * with resolve, whether it runs a daicho command or program that cannot
 * be resolved statically.
 */
static void
inspect_command(const struct cmdline_command *c, bool resolve,
    struct shell_findings *f)
{
	const struct strlist *w = &c->words;
	size_t i = daicho_command_index(c);
	const char *word = i ? w->items[i] : NULL;
	const char *next = i && i + 1 < w->count ? w->items[i + 1] : NULL;

	if (word && (strcmp(word, "approve") == 0 || strcmp(word, "deny") == 0 ||
	    (strcmp(word, "gate") == 0 && next && strcmp(next, "rm") == 0) ||
	    (f->person_act != NULL && f->person_act(
		(const char *const *)w->items + i, w->count - i))))
		f->human_only = true;
	if (!resolve || f->unresolved.len > 0)
		return;
	if (c->unresolved != NULL) {
		buf_adds(&f->unresolved, "'");
		buf_add_oneline(&f->unresolved, w->items[0]);
		buf_addf(&f->unresolved, "': %s", c->unresolved);
	} else if (word && (word_expands(word) || (strcmp(word, "gate") == 0 &&
	    next && word_expands(next)))) {
		buf_adds(&f->unresolved, "'daicho ");
		buf_add_oneline(&f->unresolved, word);
		buf_adds(&f->unresolved, "': the daicho command is named by an "
		    "expansion or a pattern");
	} else if (strcmp(w->items[0], "daicho") == 0 && i == 0 &&
	    c->arguments_added) {
		buf_adds(&f->unresolved, "'daicho': its command is added when it "
		    "runs (xargs, an alias)");
	} else if (is_interpreter(w->items[0]) && mentions_person_command(w)) {
		buf_adds(&f->unresolved, "'");
		buf_add_oneline(&f->unresolved, w->items[0]);
		buf_adds(&f->unresolved, "': its code mentions daicho and a "
		    "person's command, in a language the hook cannot read");
	}
}

/*
 * Whether the environment change (cmdline's "NAME=value", "-NAME" or "-")
 * strips or blanks an identity variable: env -i; unsetting any of them;
 * DAICHO_AGENT set empty or to an expansion (that may be empty); a
 * client's variable set at all. DAICHO_AGENT set to a name is allowed:
 * that is how a subagent is named.
 */
static bool
strips_identity(const char *change)
{
	const char *equals = strchr(change, '=');
	struct buf name = BUF_INIT;
	bool strips = false;

	if (strcmp(change, "-") == 0)
		return true;
	if (change[0] == '-') {
		buf_adds(&name, change + 1);
	} else if (equals != NULL) {
		buf_add(&name, change, (size_t)(equals - change));
		if (name.len > 0 && name.buf[name.len - 1] == '+')
			buf_reset(&name); /* NAME+=value only adds */
	}
	if (strcmp(name.buf, "DAICHO_AGENT") == 0)
		strips = change[0] == '-' || equals[1] == '\0' ||
		    equals[1] == '$' || equals[1] == '`';
	else if (name.len > 0)
		strips = client_is_client_variable(name.buf);
	buf_release(&name);
	return strips;
}

/*
 * Look at every command and environment change of line, and inside any
 * word that mentions daicho (script -c 'daicho approve 3', tmux
 * new-window '...'): such a word is split as a command line of its own, to
 * a depth of three, for human-only commands and identity changes. The
 * words from an argument "daicho" on are a daicho command too (systemd-run
 * --user daicho approve 3).
 */
static void
inspect_line(const struct cmdline *line, int depth, struct shell_findings *f)
{
	for (size_t i = 0; i < line->environment.count; i++) {
		const char *change = line->environment.items[i];
		const char *equals = strchr(change, '=');
		struct buf said = BUF_INIT;

		if (!strips_identity(change))
			continue;
		if (strcmp(change, "-") == 0) {
			buf_adds(&said, "all cleared by env -i");
		} else if (change[0] == '-') {
			buf_add_oneline(&said, change + 1);
			buf_adds(&said, " removed");
		} else {
			buf_add(&said, change, (size_t)(equals - change));
			buf_adds(&said, equals[1] ? " set" : " set empty");
		}
		/* A word split again may say it twice. */
		if (strstr(f->identity.buf, said.buf) == NULL)
			buf_addf(&f->identity, "%s%s", f->identity.len ? ", " : "",
			    said.buf);
		buf_release(&said);
	}
	for (size_t i = 0; i < line->count; i++) {
		const struct strlist *w = &line->commands[i].words;

		/* Inside a word (text, maybe), only what is denied outright. */
		inspect_command(&line->commands[i], depth == 0, f);
		for (size_t k = 0; k < w->count && depth < 3; k++) {
			struct cmdline inner = CMDLINE_INIT;

			if (k > 0 && strcmp(w->items[k], "daicho") == 0) {
				/* A launcher daicho does not know: systemd-run
				 * --user daicho approve 3. */
				struct cmdline_command rest = { { w->items + k,
					w->count - k, 0 }, NULL, false };

				inspect_command(&rest, false, f);
				continue;
			}
			if (strstr(w->items[k], "daicho") == NULL ||
			    strcmp(w->items[k], "daicho") == 0)
				continue;
			cmdline_parse(w->items[k], &inner, NULL);
			inspect_line(&inner, depth + 1, f);
			cmdline_release(&inner);
		}
	}
}

/* The paths an edit tool call writes, as given (absolute or relative). */
static void
edit_paths(const json_t *input, struct strlist *paths)
{
	static const char *const keys[] = { "file_path", "notebook_path", "path" };
	const json_t *patch = json_object_get(input, "input");

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (json_is_string(json_object_get(input, keys[i])))
			strlist_add(paths, json_string_value(json_object_get(input,
			    keys[i])));
	/* Codex apply_patch: "*** Update File: PATH" lines in the patch text. */
	if (!json_is_string(patch))
		patch = json_object_get(input, "command");
	if (json_is_array(patch))
		patch = json_array_get(patch, json_array_size(patch) - 1);
	if (json_is_string(patch)) {
		static const char *const marks[] = { "*** Add File: ",
			"*** Update File: ", "*** Delete File: ", "*** Move to: " };
		const char *text = json_string_value(patch);

		for (const char *line = text; line && *line;) {
			const char *end = strchr(line, '\n');
			size_t len = end ? (size_t)(end - line) : strlen(line);

			for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++) {
				size_t ml = strlen(marks[m]);

				if (len > ml && strncmp(line, marks[m], ml) == 0) {
					char *p = xstrndup(line + ml, len - ml);

					strlist_add_owned(paths, p);
				}
			}
			line = end ? end + 1 : NULL;
		}
	}
}

/*
 * path (absolute, or relative to cwd) relative to the root of the work tree
 * holding it (or of the project, when it is in none). Returns false when
 * it lies outside.
 */
static bool
repo_relative(const char *path, const char *cwd, const char *ledger_path,
    struct buf *out)
{
	struct buf absolute = BUF_INIT, dir = BUF_INIT, dotgit = BUF_INIT,
		   root = BUF_INIT;
	bool inside = false;
	char *slash;

	if (path[0] == '/')
		buf_adds(&absolute, path);
	else
		buf_addf(&absolute, "%s/%s", cwd ? cwd : ".", path);
	buf_adds(&dir, absolute.buf);
	/* The nearest directory that exists: a new file may be in a new one. */
	do {
		if ((slash = strrchr(dir.buf, '/')) == NULL)
			break;
		*slash = '\0';
		dir.len = (size_t)(slash - dir.buf);
	} while (dir.len > 0 && access(dir.buf, F_OK) != 0);
	if (path_find_upward(dir.buf[0] ? dir.buf : "/", ".git", &dotgit) == 0) {
		buf_add(&root, dotgit.buf, dotgit.len - strlen("/.git"));
	} else if (ledger_is_postgresql(ledger_path)) {
		buf_adds(&root, cwd ? cwd : "."); /* a shared ledger's work is here */
	} else {
		path_project_root(ledger_path, &root);
	}
	if (strncmp(absolute.buf, root.buf, root.len) == 0 &&
	    absolute.buf[root.len] == '/') {
		buf_adds(out, absolute.buf + root.len + 1);
		inside = out->len > 0;
	}
	buf_release(&absolute);
	buf_release(&dir);
	buf_release(&dotgit);
	buf_release(&root);
	return inside;
}

/* The decision a pre-tool-use answer carries. */
enum decision { DECIDE_NOTHING, DECIDE_ASK, DECIDE_DENY };

struct verdict {
	enum decision decision;
	struct buf reason;
	struct buf context;
	bool fail_closed; /* on an internal error: block */
};

/* Deny (the strongest wins) with a reason. */
static void
decide(struct verdict *v, enum decision d, const char *reason)
{
	if (d < v->decision)
		return;
	if (d > v->decision)
		buf_reset(&v->reason);
	else if (v->reason.len)
		buf_adds(&v->reason, " ");
	v->decision = d;
	buf_adds(&v->reason, reason);
}

/* The rules for a shell command. Returns 0, or an error (fail closed). */
static int
check_shell(const struct hook_request *req, const json_t *input,
    struct verdict *v, struct err *err)
{
	struct cmdline line = CMDLINE_INIT;
	struct buf shown = BUF_INIT, fingerprint = BUF_INIT, key_text = BUF_INIT,
		   text = BUF_INIT;
	const char *cwd = payload_str(req->payload, "cwd");
	json_t *gates = NULL, *denial = NULL, *g, *r;
	struct approval_key key = { 0 };
	struct shell_findings findings = { false, BUF_INIT, BUF_INIT,
		req->person_act };
	bool requires = false, approval = false;
	size_t i, j;
	int rc = 0;

	if (!shell_line(input, &line, &shown))
		goto done;
	v->fail_closed = true;
	inspect_line(&line, 0, &findings);
	if (findings.human_only)
		decide(v, DECIDE_DENY, "this daicho command is a person's alone, at "
		    "a terminal, never an agent's ('daicho help person' lists "
		    "them): ask the person to run it in their own shell.");
	if (findings.identity.len > 0) {
		buf_addf(&text, "This command strips or blanks an identity variable "
		    "(%s), so that daicho would take what it runs for the human's. "
		    "Leave DAICHO_AGENT and the client's variables as they are; to "
		    "name a subagent, set DAICHO_AGENT to a name.",
		    findings.identity.buf);
		decide(v, DECIDE_DENY, text.buf);
		buf_reset(&text);
	}
	if (findings.unresolved.len > 0 && req->client == HOOK_CLAUDE) {
		buf_addf(&text, "daicho cannot tell what this command runs (%s): "
		    "allow it only if you have read it and mean it to run.",
		    findings.unresolved.buf);
		decide(v, DECIDE_ASK, text.buf);
		buf_reset(&text);
	} else if (findings.unresolved.len > 0) {
		buf_addf(&text, "daicho cannot tell what this command runs (%s), and "
		    "this client cannot ask a person to confirm it. Name the program "
		    "directly (no $VAR or $(...) in its place, no pipe into a shell "
		    "or interpreter), or ask the person to run it in their own "
		    "shell.", findings.unresolved.buf);
		decide(v, DECIDE_DENY, text.buf);
		buf_reset(&text);
	}
	if ((rc = gate_match(req->ledger, &line, &gates, err)) < 0)
		goto done;
	cmdline_fingerprint(&line, cwd ? cwd : "", &fingerprint);
	cmdline_fingerprint(&line, "", &key_text);
	key.fingerprint = fingerprint.buf;
	key.command_key = key_text.buf;
	key.command = shown.buf;
	if ((rc = approval_find_denial(req->ledger, &key, &denial, err)) < 0)
		goto done;
	if (denial) {
		const char *why = json_string_value(json_object_get(denial, "reason"));

		buf_adds(&text, "daicho: on ");
		clock_add_timestamp(&text, json_integer_value(json_object_get(denial,
		    "decided_ms")));
		buf_addf(&text, ": %s denied this command (approval #%lld)%s%s. Do "
		    "not run it; choose another way or ask the human.",
		    json_string_value(json_object_get(denial, "decided_by")),
		    (long long)json_integer_value(json_object_get(denial, "id")),
		    why ? ": " : "", why ? why : "");
		decide(v, DECIDE_DENY, text.buf);
		buf_reset(&text);
	}
	json_array_foreach(gates, i, g) {
		requires |= json_array_size(json_object_get(g, "requires")) > 0;
		approval |= json_is_true(json_object_get(g, "approval"));
		buf_addf(&text, "%sgate #%lld '%s'", text.len ? ", " : "",
		    (long long)json_integer_value(json_object_get(g, "id")),
		    json_string_value(json_object_get(g, "pattern")));
		json_array_foreach(json_object_get(g, "requires"), j, r)
			buf_addf(&text, "%s'%s'", j ? ", " : " (requires ",
			    json_string_value(r));
		if (json_array_size(json_object_get(g, "requires")))
			buf_addch(&text, ')');
		if (json_is_string(json_object_get(g, "note")))
			buf_addf(&text, ": %s", json_string_value(json_object_get(g,
			    "note")));
	}
	if (requires || (approval && req->client != HOOK_CLAUDE)) {
		struct buf reason = BUF_INIT, run = BUF_INIT;

		/* One simple command runs as is; anything more through sh -c. */
		if (line.count == 1 && json_is_string(json_object_get(input,
			"command")) && strpbrk(shown.buf, ";&|<>()`$\n") == NULL) {
			buf_adds(&run, shown.buf);
		} else {
			buf_adds(&run, "sh -c ");
			cmdline_quote_word(&run, shown.buf);
		}
		buf_addf(&reason, "This command matches daicho %s. Run it as: "
		    "daicho gate exec -- %s (which %s).", text.buf, run.buf,
		    requires && approval ? "checks the requirements and asks a human "
		    "for an approval" : requires ? "checks the requirements"
		    : "asks a human for an approval; run it again once approved");
		decide(v, DECIDE_DENY, reason.buf);
		buf_release(&reason);
		buf_release(&run);
	} else if (approval) {
		struct buf reason = BUF_INIT;

		buf_addf(&reason, "This command matches daicho %s and needs a "
		    "human's approval: allow it only if you mean it to run now.",
		    text.buf);
		decide(v, DECIDE_ASK, reason.buf);
		buf_release(&reason);
	}
	if (gates && json_array_size(gates) == 0 && !line.incomplete)
		v->fail_closed = false;
done:
	json_decref(gates);
	json_decref(denial);
	cmdline_release(&line);
	buf_release(&findings.identity);
	buf_release(&findings.unresolved);
	buf_release(&shown);
	buf_release(&fingerprint);
	buf_release(&key_text);
	buf_release(&text);
	return rc;
}

/* The rules for an edit: no path reserved by another live agent. */
static int
check_edit(const struct hook_request *req, const json_t *input,
    struct verdict *v, struct err *err)
{
	struct strlist paths = STRLIST_INIT, relative = STRLIST_INIT;
	const char *cwd = payload_str(req->payload, "cwd");
	json_t *conflicts = NULL, *c;
	size_t i;
	int rc;

	edit_paths(input, &paths);
	for (i = 0; i < paths.count; i++) {
		struct buf rel = BUF_INIT;

		if (repo_relative(paths.items[i], cwd, ledger_path(req->ledger), &rel))
			strlist_add_owned(&relative, buf_detach(&rel, NULL));
		buf_release(&rel);
	}
	rc = reserve_find_conflicts(req->ledger, req->caller->id, relative.items,
	    relative.count, AGENT_STALE_AFTER_MS, &conflicts, err);
	json_array_foreach(conflicts, i, c) {
		struct buf reason = BUF_INIT;

		buf_addf(&reason, "daicho: %s is reserved by %s (%s",
		    json_string_value(json_object_get(c, "path")),
		    json_string_value(json_object_get(c, "holder")),
		    json_string_value(json_object_get(c, "glob")));
		if (json_is_integer(json_object_get(c, "task")))
			buf_addf(&reason, ", for #%lld", (long long)json_integer_value(
			    json_object_get(c, "task")));
		buf_adds(&reason, "; last seen ");
		clock_add_age(&reason, clock_now_ms() - json_integer_value(
		    json_object_get(c, "holder_seen_ms")));
		buf_adds(&reason, " ago). Do not edit it: work on something else, or "
		    "ask the holder ('daicho send NAME TEXT').");
		decide(v, DECIDE_DENY, reason.buf);
		buf_release(&reason);
	}
	json_decref(conflicts);
	strlist_release(&paths);
	strlist_release(&relative);
	return rc;
}

/*
 * Put the caller's unread messages into v->context, and their ids in
 * *delivered (they are marked read by hook_finish(), once printed).
 */
static int
deliver_messages(const struct hook_request *req, struct verdict *v,
    json_t **delivered, struct err *err)
{
	json_t *messages = NULL, *m;
	int64_t now = clock_now_ms();
	size_t i;
	int rc;

	if ((rc = msg_inbox(req->ledger, req->caller->name, true, &messages,
		 err)) < 0)
		return rc;
	*delivered = json_array();
	if (json_array_size(messages) > 0)
		buf_addf(&v->context, "daicho: %zu unread message%s for %s:",
		    json_array_size(messages), json_array_size(messages) == 1 ? ""
		    : "s", req->caller->name);
	json_array_foreach(messages, i, m) {
		const char *from = json_string_value(json_object_get(m, "from"));

		buf_addf(&v->context, "\n#%lld from %s, ", (long long)
		    json_integer_value(json_object_get(m, "id")), from ? from : "daicho");
		clock_add_age(&v->context, now - json_integer_value(json_object_get(m,
		    "sent_ms")));
		buf_addf(&v->context, " ago: %s", json_string_value(json_object_get(m,
		    "text")));
		json_array_append(*delivered, json_object_get(m, "id"));
	}
	json_decref(messages);
	return 0;
}

/* The JSON answer to a tool event for the client. */
static json_t *
render_tool(enum hook_client client, enum hook_event event,
    const struct verdict *v)
{
	static const char *const decisions[] = { NULL, "ask", "deny" };
	json_t *specific;

	if (v->decision == DECIDE_NOTHING && v->context.len == 0)
		return NULL;
	if (client == HOOK_GEMINI) {
		json_t *out = json_pack("{s:s}", "decision",
		    v->decision == DECIDE_DENY ? "deny" : "allow");

		if (v->decision == DECIDE_DENY)
			json_object_set_new(out, "reason", json_string(v->reason.buf));
		if (v->context.len)
			json_object_set_new(out, "hookSpecificOutput", json_pack(
			    "{s:s, s:s}", "hookEventName", event == HOOK_PRE_TOOL
				? "BeforeTool" : "AfterTool", "additionalContext",
			    v->context.buf));
		return out;
	}
	specific = json_pack("{s:s}", "hookEventName", event == HOOK_PRE_TOOL
	    ? "PreToolUse" : "PostToolUse");
	if (v->decision != DECIDE_NOTHING) {
		json_object_set_new(specific, "permissionDecision",
		    json_string(decisions[v->decision]));
		json_object_set_new(specific, "permissionDecisionReason",
		    json_string(v->reason.buf));
	}
	if (v->context.len)
		json_object_set_new(specific, "additionalContext",
		    json_string(v->context.buf));
	return json_pack("{s:o}", "hookSpecificOutput", specific);
}

/* pre-tool-use and post-tool-use. */
static void
answer_tool(const struct hook_request *req, struct hook_answer *answer)
{
	struct verdict v = { DECIDE_NOTHING, BUF_INIT, BUF_INIT, false };
	const json_t *input = json_object_get(req->payload, "tool_input");
	enum tool_kind kind = tool_kind(req->client, payload_str(req->payload,
	    "tool_name"));
	struct err err = ERR_INIT;
	int rc = 0;

	if (req->event == HOOK_PRE_TOOL && kind == TOOL_SHELL)
		rc = check_shell(req, input, &v, &err);
	else if (req->event == HOOK_PRE_TOOL && kind == TOOL_EDIT)
		rc = check_edit(req, input, &v, &err);
	if (rc < 0 && v.fail_closed) {
		answer->exit_status = 2;
		buf_addf(&answer->message, "could not check this command against "
		    "daicho's gates (%s); it is blocked until it can",
		    err.message.buf);
		goto done;
	}
	if (rc < 0)
		buf_addf(&answer->message, "daicho: %s", err.message.buf);
	err_release(&err);
	/*
	 * Messages and the heartbeat: a failure here blocks nothing. Claude
	 * Code takes context before a tool runs; Codex and Gemini CLI take it
	 * after (their pre-tool context is unsupported or dropped), so they
	 * only beat then, and unread messages wait for the post-tool event.
	 */
	answer->beat_after = true;
	if ((req->client == HOOK_CLAUDE || req->event == HOOK_POST_TOOL) &&
	    deliver_messages(req, &v, &answer->delivered, &err) < 0)
		buf_addf(&answer->message, "%sdaicho: %s", answer->message.len ? "\n"
		    : "", err.message.buf);
	answer->output = render_tool(req->client, req->event, &v);
done:
	err_release(&err);
	buf_release(&v.reason);
	buf_release(&v.context);
}

int64_t
hook_runner_task(const char *daicho_task, const char *daicho_agent)
{
	char *end;
	long long id;

	if (daicho_task == NULL || daicho_agent == NULL || *daicho_agent == '\0')
		return 0;
	errno = 0;
	id = strtoll(daicho_task, &end, 10);
	if (errno != 0 || end == daicho_task || *end != '\0' || id <= 0)
		return 0;
	return (int64_t)id;
}

/*
 * session-start of a worker that 'daicho run' launched: the runner's slot
 * agent is the session's identity and the runner beats for it, so nothing
 * is registered or changed; the agent is told its name and its task.
 */
static void
answer_runner_session_start(const struct hook_request *req,
    struct hook_answer *answer)
{
	struct buf text = BUF_INIT;
	long long id = (long long)req->runner_task;

	if (req->caller->id == 0 || req->caller->ended)
		buf_addf(&answer->message, "daicho: the runner's agent %s is not "
		    "live; this worker's daicho commands will be refused or act "
		    "alone (is its 'daicho run' still running?)", req->caller->name);
	buf_addf(&text,
	    "You are daicho agent %s, started by 'daicho run' for task #%lld; "
	    "the runner holds your claim while you work and decides what "
	    "follows when you exit.\n"
	    "Read the task with 'daicho prompt %lld'; save a result with "
	    "'daicho save %lld -f FILE', then always 'daicho report %lld "
	    "[--commit REV]'; only a verified task is done.\n"
	    "Reserve files before editing ('daicho reserve GLOB --task %lld'); "
	    "run gated commands with 'daicho gate exec -- CMD'; messages arrive "
	    "with your tool calls.", req->caller->name, id, id, id, id, id);
	answer->output = json_pack("{s:{s:s, s:s}}", "hookSpecificOutput",
	    "hookEventName", "SessionStart", "additionalContext", text.buf);
	buf_release(&text);
}

/* session-start: register the session, tell the agent who it is. */
static void
answer_session_start(const struct hook_request *req, struct hook_answer *answer)
{
	struct buf text = BUF_INIT;
	struct err err = ERR_INIT;
	int rc;

	if (req->runner_task) {
		answer_runner_session_start(req, answer);
		return;
	}
	if (req->agent_name && req->session_id) {
		struct agent_start_request start = { req->agent_name, NULL,
			client_names[req->client], req->session_id,
			AGENT_STALE_AFTER_MS, true };
		struct agent_started started;

		rc = agent_register(req->ledger, &start, &started, &err);
		if (rc == -ERR_CONFLICT) {
			/* Say it where the agent reads it, not only in a log. */
			buf_addf(&text, "WARNING: this session could not take the daicho "
			    "name %s: %s. Until DAICHO_AGENT names this session "
			    "uniquely, its daicho commands act as that other agent.\n",
			    req->agent_name, err.message.buf);
			buf_addf(&answer->message, "daicho: %s", err.message.buf);
			err_release(&err);
			rc = 0;
		} else if (rc < 0 && rc != -ERR_BUSY) {
			buf_addf(&answer->message, "daicho: %s", err.message.buf);
			err_release(&err);
			rc = agent_heartbeat(req->ledger, req->caller, &err);
		}
	} else {
		rc = agent_heartbeat(req->ledger, req->caller, &err);
	}
	/*
	 * A busy ledger: a second write would wait out the deadline and the
	 * session would start without knowing daicho. Tell it now; its first
	 * daicho command registers it (any unknown agent is registered on
	 * first use).
	 */
	if (rc == -ERR_BUSY) {
		buf_addf(&answer->message, "%sdaicho: %s; this session is registered "
		    "by its first daicho command", answer->message.len ? "\n" : "",
		    err.message.buf);
		err_release(&err);
		rc = 0;
	}
	if (rc < 0) {
		buf_addf(&answer->message, "%sdaicho: %s", answer->message.len ? "\n"
		    : "", err.message.buf);
		goto done;
	}
	buf_addf(&text,
	    "You are daicho agent %s; this repository's tasks, claims and messages "
	    "are in its daicho ledger (daicho status shows them).\n"
	    "Take work with 'daicho claim --next', read it with 'daicho prompt ID', "
	    "save a result with 'daicho save ID -f FILE', then always 'daicho "
	    "report ID [--commit REV]'; only a verified task is done.\n"
	    "Reserve files before editing ('daicho reserve GLOB'); run gated "
	    "commands with 'daicho gate exec -- CMD'; if told to wait, run 'daicho "
	    "wait --for WHAT --owner NAME'; messages arrive with your tool calls.",
	    /* The name as registered: the heartbeat may derive a longer one. */
	    req->caller->name);
	answer->output = json_pack("{s:{s:s, s:s}}", "hookSpecificOutput",
	    "hookEventName", "SessionStart", "additionalContext", text.buf);
done:
	err_release(&err);
	buf_release(&text);
}

/* Remove from claims ([{id, title}]) every task but task. */
static void
keep_only_task(json_t *claims, int64_t task)
{
	for (size_t i = json_array_size(claims); i-- > 0;)
		if (json_integer_value(json_object_get(json_array_get(claims, i),
			"id")) != task)
			json_array_remove(claims, i);
}

/* stop: block once while the agent holds unfinished claims. */
static void
answer_stop(const struct hook_request *req, struct hook_answer *answer)
{
	struct err err = ERR_INIT;
	struct buf reason = BUF_INIT;
	json_t *held = NULL, *t;
	size_t i;

	/* A runner's worker: the runner beats; only its own task counts. */
	if ((!req->runner_task && agent_heartbeat(req->ledger, req->caller,
		 &err) < 0) ||
	    agent_held_claims(req->ledger, req->caller->id, &held, &err) < 0) {
		buf_addf(&answer->message, "daicho: %s", err.message.buf);
		goto done;
	}
	if (req->runner_task)
		keep_only_task(held, req->runner_task);
	if (json_array_size(held) == 0 ||
	    json_is_true(json_object_get(req->payload, "stop_hook_active")))
		goto done;
	buf_adds(&reason, "You still hold claimed tasks that are neither reported "
	    "nor released:");
	json_array_foreach(held, i, t)
		buf_addf(&reason, " #%lld (%s)%s", (long long)json_integer_value(
		    json_object_get(t, "id")), json_string_value(json_object_get(t,
		    "title")), i + 1 < json_array_size(held) ? "," : ".");
	buf_adds(&reason, " Report each ('daicho report ID [--commit REV]'), "
	    "release it ('daicho release ID') or block it ('daicho block ID "
	    "--reason WHY') before you stop.");
	answer->output = json_pack("{s:s, s:s}", "decision", "block", "reason",
	    reason.buf);
done:
	json_decref(held);
	err_release(&err);
	buf_release(&reason);
}

/* session-end: the agent ends; its claims and waits stay visible. */
static void
answer_session_end(const struct hook_request *req, struct hook_answer *answer)
{
	struct err err = ERR_INIT;
	int64_t id;

	/* A runner's worker ends; its agent is the runner's to end. */
	if (req->runner_task)
		return;
	if (req->caller->id != 0 &&
	    agent_end_named(req->ledger, NULL, &id, &err) < 0)
		buf_addf(&answer->message, "daicho: %s", err.message.buf);
	err_release(&err);
}

void
hook_answer(const struct hook_request *request, struct hook_answer *answer)
{
	switch (request->event) {
	case HOOK_SESSION_START:
		answer_session_start(request, answer);
		break;
	case HOOK_PRE_TOOL:
	case HOOK_POST_TOOL:
		answer_tool(request, answer);
		break;
	case HOOK_STOP:
		answer_stop(request, answer);
		break;
	case HOOK_SESSION_END:
		answer_session_end(request, answer);
		break;
	}
}

void
hook_finish(const struct hook_request *req, struct hook_answer *answer)
{
	struct err err = ERR_INIT;
	int rc = 0;

	/* A runner's slot agent that is gone is never registered again here. */
	if (req->runner_task && req->caller->id == 0)
		return;
	if (answer->delivered && json_array_size(answer->delivered) > 0)
		rc = msg_mark_read(req->ledger, req->caller->name, answer->delivered,
		    NULL, &err);
	else if (answer->beat_after)
		rc = agent_heartbeat(req->ledger, req->caller, &err);
	if (rc < 0)
		buf_addf(&answer->message, "%sdaicho: %s", answer->message.len ? "\n"
		    : "", err.message.buf);
	err_release(&err);
}

/* Whether input (bytes long) names a shell tool, quoted as a JSON string. */
static bool
names_shell_tool(const char *input, size_t bytes)
{
	static const char *const shells[] = { "\"Bash\"", "\"shell\"",
		"\"exec_command\"", "\"local_shell\"", "\"run_shell_command\"" };

	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (memmem(input, bytes, shells[i], strlen(shells[i])) != NULL)
			return true;
	return false;
}

void
hook_answer_unparsable(enum hook_event event, const char *input,
    size_t bytes, const char *why, struct hook_answer *answer)
{
	if (event == HOOK_PRE_TOOL && names_shell_tool(input, bytes)) {
		answer->exit_status = 2;
		buf_adds(&answer->message, "the hook input is not JSON daicho can "
		    "read (");
		buf_add_oneline(&answer->message, why);
		buf_adds(&answer->message, "), so it cannot see what this shell "
		    "command would run: it is blocked (a command holding a NUL or a lone "
		    "surrogate is none a person means)");
		return;
	}
	buf_adds(&answer->message, "daicho: the hook input is not a JSON object (");
	buf_add_oneline(&answer->message, why);
	buf_adds(&answer->message, "); nothing to check");
}

void
hook_answer_unreadable(enum hook_client client, enum hook_event event,
    const json_t *payload, const char *why, struct hook_answer *answer)
{
	if (event == HOOK_PRE_TOOL &&
	    tool_kind(client, payload_str(payload, "tool_name")) == TOOL_SHELL) {
		answer->exit_status = 2;
		buf_addf(&answer->message, "could not read daicho's ledger to check "
		    "this command against its gates (%s); it is blocked until it can",
		    why);
		return;
	}
	buf_addf(&answer->message, "daicho: %s", why);
}

int
hook_git_pre_commit(struct ledger *ledger, int64_t caller, char *const *paths,
    size_t path_count, struct err *err)
{
	struct buf text = BUF_INIT;
	json_t *conflicts = NULL, *c;
	size_t i;
	int rc;

	if ((rc = reserve_find_conflicts(ledger, caller, paths, path_count,
		 AGENT_STALE_AFTER_MS, &conflicts, err)) < 0)
		goto done;
	json_array_foreach(conflicts, i, c) {
		if (i == 5)
			break;
		buf_adds(&text, i ? "; " : "");
		buf_add_oneline(&text, json_string_value(json_object_get(c, "path")));
		buf_addf(&text, " is reserved by %s (%s, last seen ",
		    json_string_value(json_object_get(c, "holder")),
		    json_string_value(json_object_get(c, "glob")));
		clock_add_age(&text, clock_now_ms() - json_integer_value(
		    json_object_get(c, "holder_seen_ms")));
		buf_adds(&text, " ago)");
	}
	if (json_array_size(conflicts) > 0)
		rc = err_set(err, ERR_CONFLICT, "commit refused: %s%s (unstage them, "
		    "or ask the holder to release them)", text.buf,
		    json_array_size(conflicts) > 5 ? "; and more" : "");
done:
	json_decref(conflicts);
	buf_release(&text);
	return rc;
}
