/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/git.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/proc.h"
#include "util/strlist.h"

/*
 * daicho's own repositories (git_own_repository()), and the environment
 * git runs with in them: no system or user configuration, no replace
 * refs, no grafts, no configuration passed down by a caller, no prompt.
 */
static struct strlist own_repositories = STRLIST_INIT;
static const char *const hardened_environment[] = { "GIT_CONFIG_NOSYSTEM=1",
	"GIT_CONFIG_GLOBAL=/dev/null", "GIT_NO_REPLACE_OBJECTS=1",
	"GIT_GRAFT_FILE=/dev/null", "GIT_ATTR_NOSYSTEM=1",
	"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_TERMINAL_PROMPT=0",
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_NAMESPACE", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_ASKPASS",
	"GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", NULL };

void
git_own_repository(const char *dir)
{
	if (dir && *dir && !strlist_contains(&own_repositories, dir))
		strlist_add(&own_repositories, dir);
}

const char *const *
git_environment(const char *repo)
{
	for (size_t i = 0; repo && i < own_repositories.count; i++) {
		const char *own = own_repositories.items[i];
		size_t n = strlen(own);

		if (strncmp(repo, own, n) == 0 && (repo[n] == '/' || repo[n] == '\0'))
			return hardened_environment;
	}
	return NULL;
}

int
git_capture(const char *repo, const char *const argv[],
    const char *input_path, bool with_stderr, struct buf *out)
{
	return proc_capture_env(argv, git_environment(repo), input_path,
	    with_stderr, out);
}

int
git_resolve_commit(const char *rev, struct buf *hash, struct buf *why)
{
	struct buf spec = BUF_INIT, out = BUF_INIT;
	const char *inside[] = { "git", "rev-parse", "--is-inside-work-tree",
		NULL };
	const char *argv[] = { "git", "rev-parse", "--verify", "--quiet",
		"--end-of-options", NULL, NULL };
	int status, rc = -1;

	status = proc_capture(inside, &out);
	if (status < 0) {
		buf_addf(why, "cannot run git: %s", strerror(errno));
		goto done;
	}
	if (status != 0) {
		buf_adds(why, "not inside a git repository");
		goto done;
	}
	buf_addf(&spec, "%s^{commit}", rev);
	argv[5] = spec.buf;
	buf_reset(&out);
	status = proc_capture(argv, &out);
	while (out.len > 0 && (out.buf[out.len - 1] == '\n'))
		out.buf[--out.len] = '\0';
	if (status == 0 && out.len >= 40) {
		buf_reset(hash);
		buf_add(hash, out.buf, out.len);
		rc = 0;
	} else {
		rc = 1;
	}
done:
	buf_release(&spec);
	buf_release(&out);
	return rc;
}

/*
 * Run git -C repo with args (NULL-terminated). Its output goes to output
 * (stdout, and stderr too when with_stderr), or is discarded when output
 * is NULL.
 */
static int
git_run(const char *repo, const char *const *args, struct buf *output,
    bool with_stderr)
{
	const char *argv[16];
	struct buf discard = BUF_INIT;
	size_t n = 0;
	int status;

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = repo;
	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	status = git_capture(repo, argv, NULL, with_stderr,
	    output ? output : &discard);
	buf_release(&discard);
	return status;
}

int
git_command(const char *repo, const char *const *args, struct buf *output)
{
	return git_run(repo, args, output, true);
}

bool
git_has_commit(const char *repo, const char *hash)
{
	struct buf spec = BUF_INIT;
	const char *args[] = { "cat-file", "-e", "--end-of-options", NULL, NULL };
	bool has;

	buf_addf(&spec, "%s^{commit}", hash);
	args[3] = spec.buf;
	has = git_run(repo, args, NULL, false) == 0;
	buf_release(&spec);
	return has;
}

/* git_run() with stdout and stderr together into output. */
static int
git_in_output(const char *repo, const char *const *args, struct buf *output)
{
	return git_run(repo, args, output, true);
}

/* Run git -C repo with args (NULL-terminated); output discarded. */
static int
git_in(const char *repo, const char *const *args)
{
	return git_in_output(repo, args, NULL);
}

/* Append to why the last line git printed, if any: what it died of. */
static void
add_git_reason(struct buf *why, struct buf *output)
{
	const char *line;

	while (output->len > 0 && (output->buf[output->len - 1] == '\n' ||
	    output->buf[output->len - 1] == '\r'))
		output->buf[--output->len] = '\0';
	if (output->len == 0)
		return;
	line = strrchr(output->buf, '\n');
	buf_addf(why, ": %s", line ? line + 1 : output->buf);
}

/*
 * Times a `git worktree add` is tried. git deletes $GIT_DIR/worktrees when
 * a removal empties it, and an add that had just made that directory then
 * cannot make its own entry in it ("could not create directory of
 * '.git/worktrees/...'", exit 128); an add that reads the entries while
 * another is half made or half removed fails the same way ("failed to
 * read .git/worktrees/.../commondir"). Parallel verifications and runner jobs
 * add and remove worktrees all the time, so an add that failed that way
 * is tried again; it had made nothing yet but, with -b, the branch. Any
 * other failure is final: a hook that failed, say, leaves a worktree
 * behind, and its message is what the user needs to see.
 */
#define WORKTREE_ADD_TRIES 3

/* Whether a `worktree add` that exited with status, saying output, lost
 * the race above. */
static bool
lost_worktrees_race(int status, const struct buf *output)
{
	return status == 128 && output->len > 0 &&
	       (strstr(output->buf, "could not create") != NULL ||
		strstr(output->buf, "failed to read") != NULL) &&
	       strstr(output->buf, "worktrees/") != NULL;
}

/* Say in why how a `worktree add` of what, which ended with status saying
 * output (or, when git could not run, with errno_then), failed; nothing
 * when it succeeded. */
static void
explain_worktree_add(struct buf *why, const char *what, int status,
    int errno_then, struct buf *output)
{
	if (status < 0) {
		buf_addf(why, "cannot run git: %s", strerror(errno_then));
	} else if (status > 0) {
		buf_addf(why, "git worktree add of %s failed (exit %d", what,
		    status);
		add_git_reason(why, output);
		buf_adds(why, ")");
	}
}

/*
 * The "-c" options that keep a checkout to what is committed: no hook
 * runs, and no content filter that the repository's own configuration
 * defines (.git/config, where anything that can write the ledger can write
 * too) rewrites a file on its way out. Filters set up for the user or the
 * system (git-lfs, say) still apply. Appended to argv.
 */
static void
add_plain_checkout_options(const char *repo, struct strlist *argv)
{
	const char *list[] = { "git", "-C", repo, "config", "--local",
		"--includes", "-z", "--get-regexp", "^filter\\.", NULL };
	struct buf out = BUF_INIT, option = BUF_INIT;

	strlist_add(argv, "-c");
	strlist_add(argv, "core.hooksPath=/dev/null");
	strlist_add(argv, "-c");
	strlist_add(argv, "core.fsmonitor=false");
	if (git_capture(repo, list, NULL, false, &out) != 0)
		goto done;
	/* Entries "filter.NAME.KEY\nVALUE\0"; NAME may hold dots. */
	for (size_t at = 0; at < out.len; at += strlen(out.buf + at) + 1) {
		const char *key = out.buf + at, *end = strchr(key, '\n');
		const char *dot;
		size_t key_len = end ? (size_t)(end - key) : strlen(key);

		dot = memrchr(key, '.', key_len);
		if (dot == NULL || dot <= key + 7)
			continue;
		buf_reset(&option);
		buf_addf(&option, "filter.%.*s.smudge=cat", (int)(dot - key - 7),
		    key + 7);
		strlist_add(argv, "-c");
		strlist_add(argv, option.buf);
		buf_reset(&option);
		buf_addf(&option, "filter.%.*s.process=", (int)(dot - key - 7),
		    key + 7);
		strlist_add(argv, "-c");
		strlist_add(argv, option.buf);
	}
done:
	buf_release(&out);
	buf_release(&option);
}

int
git_worktree_add(const char *repo, const char *path, const char *commit,
    struct buf *why)
{
	struct strlist argv = STRLIST_INIT;
	struct buf output = BUF_INIT;
	char what[13];
	int status = -1, errno_then;

	strlist_add(&argv, "git");
	strlist_add(&argv, "-C");
	strlist_add(&argv, repo);
	add_plain_checkout_options(repo, &argv);
	strlist_add(&argv, "worktree");
	strlist_add(&argv, "add");
	strlist_add(&argv, "--detach");
	strlist_add(&argv, "--quiet");
	strlist_add(&argv, "--end-of-options");
	strlist_add(&argv, path);
	strlist_add(&argv, commit);
	for (int try = 0; try < WORKTREE_ADD_TRIES; try++) {
		buf_reset(&output);
		status = git_capture(repo, strlist_argv(&argv), NULL, true,
		    &output);
		if (!lost_worktrees_race(status, &output))
			break;
	}
	errno_then = errno;
	snprintf(what, sizeof(what), "%.12s", commit);
	explain_worktree_add(why, what, status, errno_then, &output);
	buf_release(&output);
	strlist_release(&argv);
	return status == 0 ? 0 : -1;
}

void
git_worktree_remove(const char *repo, const char *path)
{
	const char *remove[] = { "worktree", "remove", "--force", "--force", path,
		NULL };

	/*
	 * Parallel verifications add and remove worktrees at once, and git
	 * can lose the same race on removal that it loses on adding (its
	 * worktrees directory emptied and deleted under it): try again while
	 * the worktree is still there.
	 */
	for (int try = 0; try < WORKTREE_ADD_TRIES; try++) {
		git_in(repo, remove);
		if (access(path, F_OK) != 0)
			break;
	}
}

void
git_worktree_prune(const char *repo)
{
	const char *prune[] = { "worktree", "prune", NULL };

	git_in(repo, prune);
}

int
git_commit_has_changes(const char *repo, const char *commit, struct buf *why)
{
	struct buf spec = BUF_INIT, parent = BUF_INIT;
	int status, rc = -1;

	buf_addf(&spec, "%s^{commit}", commit);
	{
		const char *exists[] = { "cat-file", "-e", spec.buf, NULL };

		status = git_in(repo, exists);
	}
	if (status != 0) {
		buf_addf(why, status < 0 ? "cannot run git" :
		    "commit %.12s does not exist in the repository", commit);
		goto done;
	}
	buf_addf(&parent, "%s^1", commit);
	{
		const char *has_parent[] = { "rev-parse", "--verify", "--quiet",
			parent.buf, NULL };
		const char *diff[] = { "diff", "--quiet", parent.buf, commit, NULL };
		const char *root[] = { "diff-tree", "--quiet", "-r", "--root", commit,
			NULL };

		status = git_in(repo, has_parent) == 0 ? git_in(repo, diff)
						       : git_in(repo, root);
	}
	if (status == 0 || status == 1)
		rc = status;
	else
		buf_addf(why, "git diff failed (exit %d)", status);
done:
	buf_release(&spec);
	buf_release(&parent);
	return rc;
}

int
git_rev_parse(const char *repo, const char *rev, struct buf *out)
{
	const char *argv[] = { "git", "-C", repo, "rev-parse", "--verify",
		"--quiet", "--end-of-options", rev, NULL };
	int status;

	buf_reset(out);
	status = git_capture(repo, argv, NULL, false, out);
	while (out->len > 0 && out->buf[out->len - 1] == '\n')
		out->buf[--out->len] = '\0';
	return status == 0 && out->len > 0 ? 0 : -1;
}

int
git_worktree_add_branch(const char *repo, const char *path, const char *branch,
    const char *base, struct buf *why)
{
	struct buf ref = BUF_INIT, hash = BUF_INIT, output = BUF_INIT;
	struct buf what = BUF_INIT;
	int status = -1, errno_then;

	buf_addf(&ref, "refs/heads/%s", branch);
	/* Each try asks again whether the branch exists: git makes it before
	 * the worktree, so a failed try may have made it. */
	for (int try = 0; try < WORKTREE_ADD_TRIES; try++) {
		buf_reset(&output);
		if (git_rev_parse(repo, ref.buf, &hash) == 0) {
			const char *args[] = { "worktree", "add", "--quiet", path,
				branch, NULL };

			status = git_in_output(repo, args, &output);
		} else {
			const char *args[] = { "worktree", "add", "--quiet", "-b",
				branch, path, base, NULL };

			status = git_in_output(repo, args, &output);
		}
		if (!lost_worktrees_race(status, &output))
			break;
	}
	errno_then = errno;
	buf_addf(&what, "branch %s", branch);
	explain_worktree_add(why, what.buf, status, errno_then, &output);
	buf_release(&what);
	buf_release(&ref);
	buf_release(&hash);
	buf_release(&output);
	return status == 0 ? 0 : -1;
}

void
git_branch_delete(const char *repo, const char *branch)
{
	const char *args[] = { "branch", "--quiet", "-D", branch, NULL };

	git_in(repo, args);
}

/* Say in why that git (what it was asked) failed with status. */
static void
explain_failure(struct buf *why, const char *what, int status)
{
	if (status < 0)
		buf_addf(why, "cannot run git: %s", strerror(errno));
	else
		buf_addf(why, "git %s failed (exit %d)", what, status);
}

int
git_is_ancestor(const char *repo, const char *ancestor, const char *commit,
    struct buf *why)
{
	const char *args[] = { "merge-base", "--is-ancestor", "--end-of-options",
		ancestor, commit, NULL };
	int status = git_run(repo, args, NULL, false);

	if (status == 0 || status == 1)
		return status == 0;
	explain_failure(why, "merge-base --is-ancestor", status);
	return -1;
}

int
git_ref_containing(const char *repo, const char *commit, struct buf *ref,
    struct buf *why)
{
	struct buf contains = BUF_INIT;
	const char *args[] = { "for-each-ref", "--count=1",
		"--format=%(refname)", contains.buf, "refs/heads/", "refs/remotes/",
		"refs/tags/", NULL };
	int status, rc = -1;

	buf_addf(&contains, "--contains=%s", commit);
	args[3] = contains.buf;
	buf_reset(ref);
	status = git_run(repo, args, ref, false);
	while (ref->len > 0 && ref->buf[ref->len - 1] == '\n')
		ref->buf[--ref->len] = '\0';
	if (status == 0)
		rc = ref->len > 0 ? 0 : 1;
	else
		explain_failure(why, "for-each-ref --contains", status);
	buf_release(&contains);
	return rc;
}

/*
 * What a git command that exited with status printed into out (released
 * here), NUL-separated (-z), appended to list; when it failed, why says
 * (what: the command). Returns 0, or -1.
 */
static int
nul_separated(struct buf *out, int status, const char *what,
    struct strlist *list, struct buf *why)
{
	if (status == 0) {
		for (size_t at = 0; at < out->len; at += strlen(out->buf + at) + 1)
			if (out->buf[at] != '\0')
				strlist_add(list, out->buf + at);
	} else {
		explain_failure(why, what, status);
	}
	buf_release(out);
	return status == 0 ? 0 : -1;
}

/* git diff --name-only base commit, filtered by filter ("" for none). */
static int
diff_paths(const char *repo, const char *base, const char *commit,
    const char *filter, struct strlist *paths, struct buf *why)
{
	struct buf out = BUF_INIT;
	const char *args[] = { "diff", "--name-only", "--no-renames", "-z",
		"--no-ext-diff", "--no-textconv", "--no-relative",
		filter[0] ? filter : "--no-renames", "--end-of-options", base,
		commit, "--", NULL };
	int status;

	status = git_run(repo, args, &out, false);
	return nul_separated(&out, status, "diff --name-only", paths, why);
}

int
git_changed_paths(const char *repo, const char *base, const char *commit,
    struct strlist *paths, struct buf *why)
{
	return diff_paths(repo, base, commit, "", paths, why);
}

int
git_added_paths(const char *repo, const char *base, const char *commit,
    struct strlist *paths, struct buf *why)
{
	return diff_paths(repo, base, commit, "--diff-filter=A", paths, why);
}

int
git_tree_dirs(const char *repo, const char *commit, struct strlist *dirs,
    struct buf *why)
{
	struct buf out = BUF_INIT;
	const char *args[] = { "ls-tree", "-r", "-d", "-z", "--name-only",
		"--end-of-options", commit, NULL };
	int status = git_run(repo, args, &out, false);

	return nul_separated(&out, status, "ls-tree", dirs, why);
}

long long
git_count_own_commits(const char *repo, const char *commit, const char *base,
    const struct strlist *excluded, struct buf *why)
{
	struct strlist argv = STRLIST_INIT;
	struct buf out = BUF_INIT, not = BUF_INIT;
	long long count = -1;
	int status;

	strlist_add(&argv, "git");
	strlist_add(&argv, "-C");
	strlist_add(&argv, repo);
	strlist_add(&argv, "rev-list");
	strlist_add(&argv, "--no-merges");
	strlist_add(&argv, "--count");
	/* An accepted commit git has since collected is no longer there. */
	strlist_add(&argv, "--ignore-missing");
	strlist_add(&argv, "--end-of-options");
	strlist_add(&argv, commit);
	buf_addf(&not, "^%s", base);
	strlist_add(&argv, not.buf);
	for (size_t i = 0; i < excluded->count; i++) {
		buf_reset(&not);
		buf_addf(&not, "^%s", excluded->items[i]);
		strlist_add(&argv, not.buf);
	}
	status = git_capture(repo, strlist_argv(&argv), NULL, false, &out);
	if (status == 0)
		count = strtoll(out.buf, NULL, 10);
	else
		explain_failure(why, "rev-list --count", status);
	strlist_release(&argv);
	buf_release(&out);
	buf_release(&not);
	return count;
}

int
git_modified_paths(const char *worktree, struct strlist *paths,
    struct buf *why)
{
	/* No fsmonitor, no hook: what the work left there may not run. */
	const char *args[] = { "-c", "core.fsmonitor=false", "-c",
		"core.hooksPath=/dev/null", "status", "--porcelain=v1", "-z",
		"--untracked-files=no", "--no-renames", "--ignore-submodules", NULL };
	struct buf out = BUF_INIT;
	int status = git_run(worktree, args, &out, false);

	if (status == 0) {
		/* Entries "XY PATH\0"; a path is past the 3 status bytes. */
		for (size_t at = 0; at < out.len; at += strlen(out.buf + at) + 1)
			if (strlen(out.buf + at) > 3)
				strlist_add(paths, out.buf + at + 3);
	} else {
		explain_failure(why, "status", status);
	}
	buf_release(&out);
	return status == 0 ? 0 : -1;
}

int
git_worktree_is_clean(const char *path)
{
	const char *args[] = { "status", "--porcelain", "--untracked-files=normal",
		"--ignore-submodules=none", NULL };
	struct buf out = BUF_INIT;
	int status = git_run(path, args, &out, false), rc;

	rc = status != 0 ? -1 : out.len == 0;
	buf_release(&out);
	return rc;
}

int
git_worktrees_on(const char *repo, const char *prefix, struct strlist *paths,
    struct strlist *names)
{
	const char *args[] = { "worktree", "list", "--porcelain", "-z", NULL };
	struct buf out = BUF_INIT;
	const char *path = NULL;
	size_t len = strlen(prefix);
	int status = git_run(repo, args, &out, false);

	/* Records of "key value" fields, NUL-ended, a record ended by a NUL. */
	for (size_t at = 0; status == 0 && at < out.len;
	     at += strlen(out.buf + at) + 1) {
		const char *field = out.buf + at;

		if (*field == '\0')
			path = NULL;
		else if (strncmp(field, "worktree ", 9) == 0)
			path = field + 9;
		else if (path && strncmp(field, "branch ", 7) == 0 &&
		    strncmp(field + 7, prefix, len) == 0) {
			strlist_add(paths, path);
			strlist_add(names, field + 7 + len);
		}
	}
	buf_release(&out);
	return status == 0 ? 0 : -1;
}

int
git_exclude(const char *repo, const char *entry, struct buf *why)
{
	const char *args[] = { "rev-parse", "--path-format=absolute",
		"--git-path", "info/exclude", NULL };
	struct buf path = BUF_INIT, text = BUF_INIT;
	int rc = -1;
	FILE *f;

	if (git_run(repo, args, &path, false) != 0 || path.len == 0) {
		buf_adds(why, "cannot find the repository's info/exclude");
		goto done;
	}
	while (path.len > 0 && path.buf[path.len - 1] == '\n')
		path.buf[--path.len] = '\0';
	if (buf_read_file(&text, path.buf) == 0) {
		for (const char *line = text.buf; line && *line;) {
			const char *end = strchr(line, '\n');
			size_t n = end ? (size_t)(end - line) : strlen(line);

			if (n == strlen(entry) && strncmp(line, entry, n) == 0) {
				rc = 0;
				goto done;
			}
			line = end ? end + 1 : NULL;
		}
	}
	{
		char *slash = strrchr(path.buf, '/');

		if (slash) {
			*slash = '\0';
			mkdir(path.buf, 0777);
			*slash = '/';
		}
	}
	if ((f = fopen(path.buf, "a")) == NULL) {
		buf_addf(why, "cannot write %s: %s", path.buf, strerror(errno));
		goto done;
	}
	fprintf(f, "%s%s\n", text.len && text.buf[text.len - 1] != '\n' ? "\n"
	    : "", entry);
	rc = fclose(f) == 0 ? 0 : -1;
	if (rc < 0)
		buf_addf(why, "cannot write %s: %s", path.buf, strerror(errno));
done:
	buf_release(&path);
	buf_release(&text);
	return rc;
}

/*
 * The line of output that says why git failed: its first "fatal:" or
 * "error:" line (git goes on with advice after it), else its last line.
 */
static void
add_fetch_reason(struct buf *why, const struct buf *output)
{
	const char *p = output->buf, *end = p + output->len, *pick = NULL;
	size_t pick_len = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		while (n > 0 && (p[n - 1] == '\r' || p[n - 1] == ' '))
			n--;
		if (n > 0 && (strncmp(p, "fatal:", 6) == 0 ||
		    strncmp(p, "error:", 6) == 0)) {
			pick = p;
			pick_len = n;
			break;
		}
		if (n > 0) {
			pick = p;
			pick_len = n;
		}
		p = nl ? nl + 1 : end;
	}
	if (pick)
		buf_add(why, pick, pick_len);
	else
		buf_adds(why, "git printed nothing");
}

void
git_add_remote_options(struct strlist *argv)
{
	static struct buf ssh = BUF_INIT;
	static bool known;

	/*
	 * The person's own ssh command (their global setting), or plain ssh:
	 * never the repository's, which anything that can write .git/config
	 * sets (and a fetch would run it).
	 */
	if (!known) {
		const char *get[] = { "git", "config", "--global", "--get",
			"core.sshCommand", NULL };

		known = true;
		if (proc_capture(get, &ssh) != 0 || ssh.len == 0)
			buf_reset(&ssh);
		while (ssh.len > 0 && ssh.buf[ssh.len - 1] == '\n')
			ssh.buf[--ssh.len] = '\0';
		{
			struct buf option = BUF_INIT;

			buf_addf(&option, "core.sshCommand=%s", ssh.len ? ssh.buf
			    : "ssh");
			buf_reset(&ssh);
			buf_add(&ssh, option.buf, option.len);
			buf_release(&option);
		}
	}
	strlist_add(argv, "-c");
	strlist_add(argv, "core.hooksPath=/dev/null");
	strlist_add(argv, "-c");
	strlist_add(argv, "core.fsmonitor=false");
	strlist_add(argv, "-c");
	strlist_add(argv, "protocol.ext.allow=never");
	strlist_add(argv, "-c");
	strlist_add(argv, ssh.buf);
}

int
git_fetch(const char *repo, const char *remote, const char *refspec,
    int64_t timeout_ms, struct buf *why)
{
	static const char *const words[] = { "fetch", "--no-tags", "--quiet",
		"--no-write-fetch-head", "--end-of-options", NULL };
	struct strlist argv = STRLIST_INIT;
	/* Never wait for a person: no password prompt, no credential UI. */
	const char *env[] = { "GIT_TERMINAL_PROMPT=0", "GCM_INTERACTIVE=never",
		"LC_ALL=C", NULL };
	struct proc_result result;
	int rc = -1;

	strlist_add(&argv, "git");
	strlist_add(&argv, "-C");
	strlist_add(&argv, repo);
	git_add_remote_options(&argv);
	for (size_t i = 0; words[i]; i++)
		strlist_add(&argv, words[i]);
	strlist_add(&argv, remote);
	strlist_add(&argv, refspec);
	if (proc_run(strlist_argv(&argv), NULL, env, timeout_ms, 4096,
	    &result) < 0) {
		buf_addf(why, "cannot run git: %s", strerror(errno));
		goto done;
	}
	if (result.timed_out) {
		buf_adds(why, "no answer within ");
		clock_add_duration(why, timeout_ms);
	} else if (result.exit_status != 0) {
		add_fetch_reason(why, &result.output);
	} else {
		rc = 0;
	}
done:
	proc_result_release(&result);
	strlist_release(&argv);
	return rc;
}

int
git_remote_exists(const char *repo, const char *remote)
{
	struct buf key = BUF_INIT;
	const char *args[] = { "config", "--get", NULL, NULL };
	int status;

	buf_addf(&key, "remote.%s.url", remote);
	args[2] = key.buf;
	status = git_run(repo, args, NULL, false);
	buf_release(&key);
	return status == 0;
}
