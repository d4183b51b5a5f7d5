/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "integ/trust.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/path.h"
#include "util/strlist.h"
#include "util/toml.h"

void
doctor_check(json_t *checks, const char *name, bool ok, const char *detail,
    const char *fix)
{
	json_array_append_new(checks, json_pack("{s:s, s:b, s:s, s:s?}", "check",
	    name, "ok", ok, "detail", detail, "fix", ok ? NULL : fix));
}

/* path, and its resolved form when that differs, appended to list. */
static void
add_path_forms(struct strlist *list, const char *path)
{
	char *real = realpath(path, NULL);

	strlist_add(list, path);
	if (real && strcmp(real, path) != 0)
		strlist_add(list, real);
	free(real);
}

/* What Codex's config.toml says about trust. */
struct codex_trust {
	json_t *projects; /* path -> trust level */
	json_t *state;    /* hook key -> {hash, enabled} */
};

static void
codex_value(const struct strlist *keys, const char *value, bool is_bool,
    void *arg)
{
	struct codex_trust *t = arg;
	char *const *k = keys->items;

	if (keys->count == 3 && strcmp(k[0], "projects") == 0 &&
	    strcmp(k[2], "trust_level") == 0 && !is_bool) {
		json_object_set_new(t->projects, k[1], json_string(value));
	} else if (keys->count == 4 && strcmp(k[0], "hooks") == 0 &&
	    strcmp(k[1], "state") == 0) {
		json_t *entry = json_object_get(t->state, k[2]);

		if (entry == NULL) {
			entry = json_object();
			json_object_set_new(t->state, k[2], entry);
		}
		if (strcmp(k[3], "trusted_hash") == 0 && !is_bool)
			json_object_set_new(entry, "hash", json_string(value));
		else if (strcmp(k[3], "enabled") == 0 && is_bool)
			json_object_set_new(entry, "enabled",
			    json_boolean(strcmp(value, "true") == 0));
	}
}

/* "PreToolUse" as Codex keys it: "pre_tool_use". */
static void
snake_case(struct buf *out, const char *event)
{
	for (const char *c = event; *c; c++) {
		if (*c >= 'A' && *c <= 'Z') {
			if (c != event)
				buf_addch(out, '_');
			buf_addch(out, (char)(*c - 'A' + 'a'));
		} else {
			buf_addch(out, *c);
		}
	}
}

/*
 * The daicho hooks of the hooks.json at path, each as the tail of its
 * Codex trust key ":<event>:<group>:<handler>", appended to tails.
 * Returns false when the file cannot be read as JSON.
 */
static bool
codex_daicho_hooks(const char *path, struct strlist *tails)
{
	struct buf text = BUF_INIT, tail = BUF_INIT;
	json_t *file = NULL, *groups;
	const char *event;

	if (buf_read_file(&text, path) < 0 ||
	    (file = json_loadb(text.buf, text.len, 0, NULL)) == NULL) {
		buf_release(&text);
		return false;
	}
	json_object_foreach(json_object_get(file, "hooks"), event, groups) {
		json_t *group, *handler;
		size_t g, h;

		json_array_foreach(groups, g, group)
			json_array_foreach(json_object_get(group, "hooks"), h, handler) {
				const char *command = json_string_value(json_object_get(
				    handler, "command"));

				if (command == NULL ||
				    strstr(command, "daicho hook codex") == NULL)
					continue;
				buf_reset(&tail);
				buf_addch(&tail, ':');
				snake_case(&tail, event);
				buf_addf(&tail, ":%zu:%zu", g, h);
				strlist_add(tails, tail.buf);
			}
	}
	json_decref(file);
	buf_release(&text);
	buf_release(&tail);
	return true;
}

/* Codex: the project trusted, and every daicho hook trusted. */
static void
check_codex(json_t *checks, const char *root)
{
	struct codex_trust t = { json_object(), json_object() };
	struct strlist roots = STRLIST_INIT, files = STRLIST_INIT,
		       tails = STRLIST_INIT;
	struct buf config = BUF_INIT, text = BUF_INIT, main_root = BUF_INIT,
		   hooks = BUF_INIT, detail = BUF_INIT, fix = BUF_INIT,
		   untrusted = BUF_INIT, key = BUF_INIT;
	const char *level = NULL, *trusted_as = NULL;
	size_t trusted = 0, disabled = 0;

	path_add_user_dir(&config, "CODEX_HOME", ".codex");
	buf_adds(&config, "/config.toml");
	if (buf_read_file(&text, config.buf) == 0)
		toml_each_value(text.buf, text.len, codex_value, &t);
	add_path_forms(&roots, root);
	if (path_main_work_tree(root, &main_root) == 0)
		add_path_forms(&roots, main_root.buf);
	for (size_t i = 0; i < roots.count && level == NULL; i++)
		if ((level = json_string_value(json_object_get(t.projects,
			 roots.items[i]))) != NULL)
			trusted_as = roots.items[i];
	if (level && strcmp(level, "trusted") == 0) {
		buf_addf(&detail, "%s trusts %s", config.buf, trusted_as);
		doctor_check(checks, "codex project trust", true, detail.buf, NULL);
	} else {
		buf_addf(&detail, "%s is %s in %s: Codex loads no project hook (nor "
		    ".codex/config.toml) from an untrusted project, and says nothing",
		    root, level ? "marked untrusted" : "not trusted", config.buf);
		buf_addf(&fix, "start codex in %s and trust the project when it "
		    "asks, or add to %s: [projects.\"%s\"] trust_level = \"trusted\"",
		    root, config.buf, root);
		doctor_check(checks, "codex project trust", false, detail.buf, fix.buf);
	}
	/* The hooks: this checkout's hooks.json, or the main one's. */
	buf_addf(&hooks, "%s/.codex/hooks.json", root);
	if (!codex_daicho_hooks(hooks.buf, &tails) || tails.count == 0)
		goto done; /* the hooks check says what is wrong with it */
	add_path_forms(&files, hooks.buf);
	if (main_root.len) {
		buf_reset(&key);
		buf_addf(&key, "%s/.codex/hooks.json", main_root.buf);
		add_path_forms(&files, key.buf);
	}
	for (size_t i = 0; i < tails.count; i++) {
		bool found = false, off = false;

		for (size_t f = 0; f < files.count && !found; f++) {
			json_t *entry;

			buf_reset(&key);
			buf_addf(&key, "%s%s", files.items[f], tails.items[i]);
			entry = json_object_get(t.state, key.buf);
			off |= json_is_false(json_object_get(entry, "enabled"));
			found = json_is_string(json_object_get(entry, "hash")) &&
			    !json_is_false(json_object_get(entry, "enabled"));
		}
		trusted += found;
		disabled += !found && off;
		if (!found)
			buf_addf(&untrusted, "%s%s", untrusted.len ? ", " : "",
			    tails.items[i] + 1);
	}
	buf_reset(&detail);
	buf_reset(&fix);
	if (trusted == tails.count) {
		buf_addf(&detail, "%s records trust for all %zu daicho hooks of %s "
		    "(Codex runs a hook only as it was when trusted; doctor cannot "
		    "recompute that hash: after changing hooks.json, review them "
		    "again in /hooks)", config.buf, tails.count, hooks.buf);
		doctor_check(checks, "codex hooks trusted", true, detail.buf, NULL);
	} else {
		buf_addf(&detail, "%zu of %zu daicho hooks of %s are %s in %s (%s): "
		    "Codex runs no project hook it was not told to trust, and says "
		    "nothing; the gated commands then simply run", tails.count -
		    trusted, tails.count, hooks.buf, disabled ? "not trusted or "
		    "disabled" : "not trusted", config.buf, untrusted.buf);
		buf_addf(&fix, "start codex in %s and trust daicho's hooks in /hooks "
		    "(Codex then records them under [hooks.state] in %s); headless "
		    "workers (codex exec) may run with "
		    "--dangerously-bypass-hook-trust instead", root, config.buf);
		doctor_check(checks, "codex hooks trusted", false, detail.buf, fix.buf);
	}
done:
	json_decref(t.projects);
	json_decref(t.state);
	strlist_release(&roots);
	strlist_release(&files);
	strlist_release(&tails);
	buf_release(&config);
	buf_release(&text);
	buf_release(&main_root);
	buf_release(&hooks);
	buf_release(&detail);
	buf_release(&fix);
	buf_release(&untrusted);
	buf_release(&key);
}

/* Whether path is dir or inside it (both resolved where they exist). */
static bool
within(const char *path, const char *dir)
{
	char *real = realpath(dir, NULL);
	const char *d = real ? real : dir;
	size_t len = strlen(d);
	bool in = strncmp(path, d, len) == 0 && (path[len] == '\0' ||
	    path[len] == '/' || (len == 1 && d[0] == '/'));

	free(real);
	return in;
}

/* Gemini CLI: the folder trusted (or folder trust off). */
static void
check_gemini(json_t *checks, const char *root)
{
	struct buf file = BUF_INIT, settings_path = BUF_INIT, text = BUF_INIT,
		   detail = BUF_INIT, fix = BUF_INIT, home = BUF_INIT;
	json_t *rules = NULL, *settings = NULL, *level;
	const char *env = getenv("GEMINI_CLI_TRUST_WORKSPACE"), *rule;
	const char *best_level = NULL, *best_rule = NULL;
	char *real_root = realpath(root, NULL);
	const char *folder = real_root ? real_root : root;
	size_t best_len = 0;
	bool readable = true;

	path_add_user_dir(&home, "GEMINI_CLI_HOME", "");
	if (home.len && home.buf[home.len - 1] == '/')
		home.buf[--home.len] = '\0';
	buf_addf(&settings_path, "%s/.gemini/settings.json", home.buf);
	if (buf_read_file(&text, settings_path.buf) == 0)
		settings = json_loadb(text.buf, text.len, 0, NULL);
	if (json_is_false(json_object_get(json_object_get(json_object_get(
		settings, "security"), "folderTrust"), "enabled"))) {
		buf_addf(&detail, "folder trust is off (security.folderTrust.enabled "
		    "is false in %s): Gemini CLI loads project hooks everywhere",
		    settings_path.buf);
		doctor_check(checks, "gemini folder trust", true, detail.buf, NULL);
		goto done;
	}
	if (getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH") &&
	    *getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"))
		buf_adds(&file, getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"));
	else
		buf_addf(&file, "%s/.gemini/trustedFolders.json", home.buf);
	buf_reset(&text);
	if (buf_read_file(&text, file.buf) == 0 &&
	    !json_is_object(rules = json_loadb(text.buf, text.len, 0, NULL)))
		readable = false;
	json_object_foreach(rules, rule, level) {
		const char *l = json_string_value(level);
		struct buf effective = BUF_INIT;

		if (l == NULL)
			continue;
		buf_adds(&effective, rule);
		if (strcmp(l, "TRUST_PARENT") == 0) {
			char *slash = strrchr(effective.buf, '/');

			if (slash && slash != effective.buf)
				*slash = '\0';
			else if (slash)
				slash[1] = '\0';
		}
		if (within(folder, effective.buf) && strlen(rule) > best_len) {
			best_len = strlen(rule);
			best_level = l;
			best_rule = rule;
		}
		buf_release(&effective);
	}
	if (best_level && (strcmp(best_level, "TRUST_FOLDER") == 0 ||
	    strcmp(best_level, "TRUST_PARENT") == 0)) {
		buf_addf(&detail, "%s trusts %s (\"%s\": \"%s\")", file.buf, root,
		    best_rule, best_level);
		doctor_check(checks, "gemini folder trust", true, detail.buf, NULL);
		goto done;
	}
	if (env && strcmp(env, "true") == 0 && !best_level) {
		buf_addf(&detail, "GEMINI_CLI_TRUST_WORKSPACE=true here trusts any "
		    "folder, for processes that have it (%s does not trust %s)",
		    file.buf, root);
		doctor_check(checks, "gemini folder trust", true, detail.buf, NULL);
		goto done;
	}
	if (!readable)
		buf_addf(&detail, "%s is not a JSON object (Gemini CLI refuses to "
		    "start with it): ", file.buf);
	buf_addf(&detail, "%s is %s: Gemini CLI loads no project hook in an "
	    "untrusted folder; headless gemini exits 55 there, and with "
	    "--skip-trust (which its error suggests) it runs without daicho's "
	    "hooks, enforcing nothing", root, best_level ? "marked DO_NOT_TRUST "
	    "in that file" : "not trusted");
	if (!best_level && readable)
		buf_addf(&detail, " (no rule for it in %s)", file.buf);
	buf_addf(&fix, "trust the folder when gemini asks, or add \"%s\": "
	    "\"TRUST_FOLDER\" to %s; headless workers may run with "
	    "GEMINI_CLI_TRUST_WORKSPACE=true instead; never --skip-trust", folder,
	    file.buf);
	doctor_check(checks, "gemini folder trust", false, detail.buf, fix.buf);
done:
	free(real_root);
	json_decref(rules);
	json_decref(settings);
	buf_release(&file);
	buf_release(&settings_path);
	buf_release(&text);
	buf_release(&detail);
	buf_release(&fix);
	buf_release(&home);
}

void
trust_doctor(json_t *checks, const char *root)
{
	struct buf dir = BUF_INIT;

	buf_addf(&dir, "%s/.codex", root);
	if (access(dir.buf, F_OK) == 0)
		check_codex(checks, root);
	buf_reset(&dir);
	buf_addf(&dir, "%s/.gemini", root);
	if (access(dir.buf, F_OK) == 0)
		check_gemini(checks, root);
	buf_release(&dir);
}
