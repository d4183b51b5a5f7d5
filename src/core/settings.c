/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/settings.h"

#include <stdlib.h>
#include <string.h>

#include "core/db.h"
#include "core/event.h"
#include "core/task.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/duration.h"
#include "util/git.h"
#include "util/gitref.h"
#include "util/glob.h"
#include "util/path.h"

enum setting_kind {
	SETTING_DURATION, /* stored as milliseconds, in text */
	SETTING_GLOBS,    /* stored as a JSON array of globs */
	SETTING_BRANCH,   /* a branch name, stored as it is */
	SETTING_NUMBER,   /* a whole number from 1 to 1024, in text */
	SETTING_REMOTE,   /* a git remote's name, or "none", as it is */
	SETTING_CHOICE,   /* one of the words of choices, as it is */
	SETTING_COMMAND,  /* a shell command line (words joined by spaces) */
};

struct setting {
	const char *key;
	enum setting_kind kind;
	const char *summary;
	const char *fallback; /* what applies when unset */
	const char *const *choices; /* SETTING_CHOICE's words, NULL-ended */
};

static const char *const land_modes[] = { "off", "merge", "rebase",
	"squash", NULL };
static const char *const on_off[] = { "on", "off", NULL };

static const struct setting settings[] = {
	{ "jobs", SETTING_NUMBER,
	  "how many workers 'daicho run' and tasks 'daicho sweep' take at once",
	  "the number of CPUs", NULL },
	{ "land", SETTING_CHOICE,
	  "what landing does with verified work: merge (a merge commit), "
	  "rebase (its commits replayed), squash (one commit), off (never land)",
	  "merge, in a git repository", land_modes },
	{ "land-batch", SETTING_NUMBER,
	  "how many queued tasks landing merges and checks at once",
	  "16", NULL },
	{ "land-check", SETTING_COMMAND,
	  "a shell command run on every merged tree before the trunk moves",
	  "none", NULL },
	{ "land-check-timeout", SETTING_DURATION,
	  "how long the land-check may run before it is killed and fails",
	  "10m", NULL },
	{ "land-tries", SETTING_NUMBER,
	  "how many times a landing may be sent back before the task fails",
	  "3", NULL },
	{ "lease", SETTING_DURATION,
	  "how long a claim lasts without a heartbeat",
	  "30m", NULL },
	{ "max-hold", SETTING_DURATION,
	  "how long a claim lives without a command naming its task",
	  "three leases", NULL },
	{ "max-lease", SETTING_DURATION,
	  "the longest lease a claim may ask for; a claim's maximum hold may "
	  "be at most three of them",
	  "4h", NULL },
	{ "protect", SETTING_GLOBS,
	  "paths no report may change (a task's --touches exempt it)",
	  "none", NULL },
	{ "remote", SETTING_REMOTE,
	  "the git remote verification fetches a reported commit from when "
	  "the ledger's repository lacks it (none: never fetch); once set, "
	  "landing pushes the trunk there",
	  "origin", NULL },
	{ "sandbox", SETTING_CHOICE,
	  "whether checks run in a sandbox (bubblewrap): on; off runs them "
	  "as the person, seeing all the person sees",
	  "on", on_off },
	{ "stale-after", SETTING_DURATION,
	  "how long an agent may stay unseen before it counts as gone",
	  "10m", NULL },
	{ "trunk", SETTING_BRANCH,
	  "the branch reported work must be new against",
	  "the branch the main work tree has out at the claim; main, else "
	  "master, when it is detached", NULL },
};

#define SETTINGS (sizeof(settings) / sizeof(settings[0]))

/* The setting called key, or NULL (ERR_USAGE set in err). */
static const struct setting *
find_setting(const char *key, struct err *err)
{
	struct buf known = BUF_INIT;

	for (size_t i = 0; i < SETTINGS; i++)
		if (strcmp(settings[i].key, key) == 0)
			return &settings[i];
	for (size_t i = 0; i < SETTINGS; i++)
		buf_addf(&known, "%s%s", i ? ", " : "", settings[i].key);
	err_set(err, ERR_USAGE, "unknown setting '%s' (settings: %s)", key,
	    known.buf);
	buf_release(&known);
	return NULL;
}

bool
settings_is_duration(const char *key)
{
	for (size_t i = 0; key != NULL && i < SETTINGS; i++)
		if (strcmp(settings[i].key, key) == 0)
			return settings[i].kind == SETTING_DURATION;
	return false;
}

/*
 * Whether name cannot be a branch or remote name: git's rules, the part
 * that matters for a path under refs/, and no leading '-' (an option).
 */
static bool
bad_ref_name(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || name[0] == '-' || name[0] == '/' ||
	    name[len - 1] == '/' || name[len - 1] == '.' ||
	    strstr(name, "..") || strstr(name, "//") ||
	    strstr(name, "@{") || strstr(name, "/.") || name[0] == '.' ||
	    (len >= 5 && strcmp(name + len - 5, ".lock") == 0) ||
	    name[strcspn(name, " ~^:?*[\\\x7f")] != '\0')
		return true;
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p < ' ')
			return true;
	return false;
}

/* name, or a stand-in when it holds a control character (not echoed). */
static const char *
printable_or(const char *name)
{
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p < ' ' || *p == '\x7f')
			return "(with a control character)";
	return name;
}

int
settings_check_remote(const char *what, const char *name, struct err *err)
{
	if (strcmp(name, "none") == 0 || !bad_ref_name(name))
		return 0;
	return err_set(err, ERR_USAGE, "bad remote name '%s' for %s (a remote "
	    "such as origin, see 'git remote'; or none)", printable_or(name),
	    what);
}

/* The stored text of values for s: filled into stored. */
static int
encode(const struct setting *s, const struct strlist *values,
    struct buf *stored, struct err *err)
{
	if (values->count == 0)
		return err_set(err, ERR_USAGE, "%s needs a value (or --unset)",
		    s->key);
	if (s->kind == SETTING_DURATION) {
		int64_t ms;

		if (values->count != 1)
			return err_set(err, ERR_USAGE, "%s takes one duration",
			    s->key);
		if (duration_parse(values->items[0], &ms) < 0 || ms <= 0)
			return err_set(err, ERR_USAGE,
			    "bad duration '%s' for %s (write a positive number "
			    "and a unit: 500ms, 20s, 30m, 4h, 2d)",
			    values->items[0], s->key);
		buf_addf(stored, "%lld", (long long)ms);
		return 0;
	}
	if (s->kind == SETTING_NUMBER) {
		char *end;
		long long n;

		if (values->count != 1)
			return err_set(err, ERR_USAGE, "%s takes one number", s->key);
		n = strtoll(values->items[0], &end, 10);
		if (*values->items[0] == '\0' || *end != '\0' || n < 1 || n > 1024)
			return err_set(err, ERR_USAGE,
			    "bad number '%s' for %s (a whole number from 1 to 1024)",
			    values->items[0], s->key);
		buf_addf(stored, "%lld", n);
		return 0;
	}
	if (s->kind == SETTING_BRANCH) {
		if (values->count != 1)
			return err_set(err, ERR_USAGE, "%s takes one branch name",
			    s->key);
		if (bad_ref_name(values->items[0]))
			return err_set(err, ERR_USAGE,
			    "bad branch name '%s' for %s (a branch such as main)",
			    printable_or(values->items[0]), s->key);
		buf_adds(stored, values->items[0]);
		return 0;
	}
	if (s->kind == SETTING_CHOICE) {
		struct buf words = BUF_INIT;

		if (values->count == 1)
			for (size_t i = 0; s->choices[i]; i++)
				if (strcmp(values->items[0], s->choices[i]) == 0) {
					buf_adds(stored, s->choices[i]);
					return 0;
				}
		for (size_t i = 0; s->choices[i]; i++)
			buf_addf(&words, "%s%s", i ? ", " : "", s->choices[i]);
		err_set(err, ERR_USAGE, "bad value '%s' for %s (one of: %s)",
		    values->count ? printable_or(values->items[0]) : "",
		    s->key, words.buf);
		buf_release(&words);
		return -(int)err->code;
	}
	if (s->kind == SETTING_COMMAND) {
		for (size_t i = 0; i < values->count; i++)
			buf_addf(stored, "%s%s", i ? " " : "", values->items[i]);
		if (stored->buf[strspn(stored->buf, " \t")] == '\0')
			return err_set(err, ERR_USAGE, "%s needs a command (or "
			    "--unset)", s->key);
		return 0;
	}
	if (s->kind == SETTING_REMOTE) {
		int rc;

		if (values->count != 1)
			return err_set(err, ERR_USAGE, "%s takes one remote name",
			    s->key);
		if ((rc = settings_check_remote(s->key, values->items[0], err)) < 0)
			return rc;
		buf_adds(stored, values->items[0]);
		return 0;
	}
	{
		json_t *globs = json_array();
		struct buf why = BUF_INIT;
		char *text;
		int rc = 0;

		for (size_t i = 0; i < values->count && rc == 0; i++) {
			if (glob_check(values->items[i], &why) < 0)
				rc = err_set(err, ERR_USAGE, "bad glob '%s' for %s (%s)",
				    values->items[i], s->key, why.buf);
			json_array_append_new(globs, json_string(values->items[i]));
		}
		text = rc == 0 ? json_dumps(globs, JSON_COMPACT) : NULL;
		if (text)
			buf_adds(stored, text);
		free(text);
		json_decref(globs);
		buf_release(&why);
		return rc;
	}
}

/* The JSON value of stored text for s (a new reference; null if NULL). */
static json_t *
decode(const struct setting *s, const char *stored)
{
	json_t *value;

	if (stored == NULL)
		return json_null();
	if (s->kind == SETTING_DURATION || s->kind == SETTING_NUMBER)
		return json_integer(strtoll(stored, NULL, 10));
	if (s->kind == SETTING_BRANCH || s->kind == SETTING_REMOTE ||
	    s->kind == SETTING_CHOICE || s->kind == SETTING_COMMAND)
		return json_string(stored);
	value = json_loads(stored, 0, NULL);
	return value && json_is_array(value) ? value : json_array();
}

/* The stored text of key into value (cleared first); *found says if set. */
int
settings_read(struct ledger *ledger, const char *key, struct buf *value,
    bool *found, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	buf_reset(value);
	*found = false;
	if ((rc = db_prepare(ledger,
	    "SELECT value FROM settings WHERE key = ?", &st, err)) < 0)
		return rc;
	db_bind_text(st, 1, key);
	rc = db_step(st);
	if (rc == DB_ROW) {
		*found = true;
		buf_adds(value, db_column_text(st, 0));
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_error(ledger, rc, err, "reading settings");
	return 0;
}

int
settings_store(struct ledger *ledger, int64_t actor, const char *key,
    const char *value, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger, value
	    ? "INSERT INTO settings (key, value, set_ms, set_by) VALUES (?1, ?2,"
	      " ?3, ?4) ON CONFLICT (key) DO UPDATE SET value = ?2, set_ms = ?3,"
	      " set_by = ?4"
	    : "DELETE FROM settings WHERE key = ?1", &st, err)) < 0)
		return rc;
	db_bind_text(st, 1, key);
	if (value) {
		db_bind_text(st, 2, value);
		db_bind_int(st, 3, clock_now_ms());
		if (actor)
			db_bind_int(st, 4, actor);
	}
	return db_step_done(ledger, st, "changing a setting", err);
}

/*
 * Refuse (ERR_NOT_FOUND) a trunk branch the ledger's repository does not
 * have: a claim would then record no base, and its work could not be
 * judged. A ledger outside git has nothing to check.
 */
static int
branch_exists(struct ledger *ledger, const char *branch, struct err *err)
{
	struct buf git_dir = BUF_INIT, ref = BUF_INIT, hash = BUF_INIT,
		   root = BUF_INIT;
	int rc = 0;

	if (ledger_git_dir(ledger, &git_dir) != 0)
		goto done;
	buf_addf(&ref, "refs/heads/%s", branch);
	if (gitref_read(git_dir.buf, ref.buf, &hash) == 0)
		goto done;
	ledger_project_root(ledger, &root);
	buf_adds(&ref, "^{commit}");
	if (git_rev_parse(root.buf, ref.buf, &hash) < 0)
		rc = err_set(err, ERR_NOT_FOUND, "no branch '%s' in the repository "
		    "at %s (see 'git branch'; nothing was changed)", branch,
		    root.buf);
done:
	buf_release(&git_dir);
	buf_release(&ref);
	buf_release(&hash);
	buf_release(&root);
	return rc;
}

int
settings_set(struct ledger *ledger, int64_t actor, const char *key,
    const struct strlist *values, struct err *err)
{
	const struct setting *s = find_setting(key, err);
	struct buf stored = BUF_INIT, old = BUF_INIT;
	bool was_set;
	int rc;

	if (s == NULL)
		return -(int)err->code;
	if (values && (rc = encode(s, values, &stored, err)) < 0)
		goto done;
	if (values && s->kind == SETTING_BRANCH &&
	    (rc = branch_exists(ledger, stored.buf, err)) < 0)
		goto done;
	if ((rc = ledger_begin_as(ledger, &actor, err)) < 0)
		goto done;
	if ((rc = settings_read(ledger, key, &old, &was_set, err)) < 0)
		goto fail;
	if ((rc = settings_store(ledger, actor, key, values ? stored.buf : NULL,
		 err)) < 0)
		goto fail;
	/* Landing turned off: what waited to land is done as verified. */
	if (strcmp(key, "land") == 0 && values &&
	    strcmp(stored.buf, "off") == 0) {
		int64_t unqueued = 0;

		if ((rc = task_leave_landing_queue(ledger, &unqueued, err)) < 0)
			goto fail;
	}
	rc = event_append(ledger, actor, "config", 0,
	    json_pack("{s:s, s:o, s:o}", "key", key, "old",
		decode(s, was_set ? old.buf : NULL), "new",
		decode(s, values ? stored.buf : NULL)), err);
	if (rc < 0)
		goto fail;
	rc = ledger_commit(ledger, err);
	goto done;
fail:
	ledger_rollback(ledger);
done:
	buf_release(&stored);
	buf_release(&old);
	return rc;
}

int
settings_show(struct ledger *ledger, const char *key, json_t **out,
    struct err *err)
{
	const struct setting *only = key ? find_setting(key, err) : NULL;
	struct db_stmt *st;
	int rc;

	*out = NULL;
	if (key && only == NULL)
		return -(int)err->code;
	if ((rc = ledger_begin_read(ledger, err)) < 0)
		return rc;
	*out = json_array();
	for (size_t i = 0; i < SETTINGS; i++) {
		const struct setting *s = &settings[i];
		json_t *row;

		if (only && only != s)
			continue;
		if ((rc = db_prepare(ledger,
		    "SELECT s.value, s.set_ms, a.name FROM settings s"
		    " LEFT JOIN agents a ON a.id = s.set_by WHERE s.key = ?",
		    &st, err)) < 0)
			break;
		db_bind_text(st, 1, s->key);
		rc = db_step(st);
		row = json_pack("{s:s, s:s, s:s, s:b, s:s}", "key", s->key, "kind",
		    s->kind == SETTING_DURATION ? "duration"
		    : s->kind == SETTING_NUMBER ? "number"
		    : s->kind == SETTING_GLOBS ? "globs"
		    : s->kind == SETTING_REMOTE ? "remote"
		    : s->kind == SETTING_CHOICE ? "choice"
		    : s->kind == SETTING_COMMAND ? "command" : "branch", "summary",
		    s->summary, "set", rc == DB_ROW, "default", s->fallback);
		if (rc == DB_ROW) {
			const char *by = db_column_text(st, 2);

			json_object_set_new(row, "value", decode(s,
			    db_column_text(st, 0)));
			json_object_set_new(row, "set_ms",
			    json_integer(db_column_int(st, 1)));
			json_object_set_new(row, "set_by",
			    by ? json_string(by) : json_null());
		} else {
			json_object_set_new(row, "value", json_null());
			json_object_set_new(row, "set_ms", json_null());
			json_object_set_new(row, "set_by", json_null());
		}
		db_reset(st);
		json_array_append_new(*out, row);
		if (rc != DB_ROW && rc != DB_DONE) {
			rc = db_error(ledger, rc, err, "reading settings");
			break;
		}
		rc = 0;
	}
	ledger_rollback(ledger);
	if (rc < 0) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}

int
settings_protected(struct ledger *ledger, struct strlist *out,
    struct err *err)
{
	struct buf stored = BUF_INIT;
	bool found;
	int rc = settings_read(ledger, "protect", &stored, &found, err);

	if (rc == 0 && found) {
		json_t *globs = json_loads(stored.buf, 0, NULL);
		size_t i;
		json_t *glob;

		json_array_foreach(globs, i, glob)
			if (json_is_string(glob))
				strlist_add(out, json_string_value(glob));
		json_decref(globs);
	}
	buf_release(&stored);
	return rc;
}

int
settings_number(struct ledger *ledger, const char *key, int64_t *value,
    bool *found, struct err *err)
{
	struct buf stored = BUF_INIT;
	int rc = settings_read(ledger, key, &stored, found, err);

	if (rc == 0 && *found)
		*value = strtoll(stored.buf, NULL, 10);
	buf_release(&stored);
	return rc;
}

/* All the settings, keys and values: what settings_values_read() reads. */
static const char settings_sql[] = "SELECT key, value FROM settings";

/* Reset count values, none found: what a read fills in. */
static void
forget_values(struct buf *values, bool *found, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		buf_reset(&values[i]);
		found[i] = false;
	}
}

int
settings_read_ahead(struct ledger *ledger, struct db_stmt **out, bool *ahead,
    struct err *err)
{
	int rc = db_prepare(ledger, settings_sql, out, err);

	*ahead = rc == 0 && db_step_ahead(*out);
	return rc;
}

int
settings_values_read(struct ledger *ledger, struct db_stmt *st,
    const char *const *keys, size_t count, struct buf *values, bool *found,
    struct err *err)
{
	int rc;

	forget_values(values, found, count);
	while ((rc = db_step(st)) == DB_ROW) {
		const char *key = db_column_text(st, 0);
		const char *value = db_column_text(st, 1);

		for (size_t i = 0; i < count; i++)
			if (key && value && strcmp(key, keys[i]) == 0) {
				buf_adds(&values[i], value);
				found[i] = true;
			}
	}
	db_reset(st);
	if (rc != DB_DONE)
		return db_error(ledger, rc, err, "reading settings");
	return 0;
}

int
settings_values(struct ledger *ledger, const char *const *keys, size_t count,
    struct buf *values, bool *found, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger, settings_sql, &st, err)) < 0) {
		forget_values(values, found, count);
		return rc;
	}
	return settings_values_read(ledger, st, keys, count, values, found, err);
}

int
settings_remote(struct ledger *ledger, struct buf *remote, struct err *err)
{
	bool found;
	int rc = settings_read(ledger, "remote", remote, &found, err);

	if (rc == 0 && !found)
		buf_adds(remote, "origin");
	if (rc == 0 && strcmp(remote->buf, "none") == 0)
		buf_reset(remote);
	return rc;
}

/* Outside git, nothing lands; else landing is on unless set "off". */
int
settings_landing(struct ledger *ledger, bool *on, struct err *err)
{
	struct buf git_dir = BUF_INIT, value = BUF_INIT;
	bool found = false;
	int rc = 0;

	*on = false;
	if (ledger_git_dir(ledger, &git_dir) == 0 &&
	    (rc = settings_read(ledger, "land", &value, &found, err)) == 0)
		*on = !found || strcmp(value.buf, "off") != 0;
	buf_release(&git_dir);
	buf_release(&value);
	return rc;
}
