/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/gitmerge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/git.h"
#include "util/proc.h"

/*
 * The argv of `git` with landing's global options and -C repo, into argv
 * (empty first); the command's own words are added after.
 */
static void
start_argv(struct strlist *argv, const char *repo)
{
	static const char *const head[] = { "git", "--no-replace-objects",
		"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
		"-c", "user.name=daicho", "-c", "user.email=daicho@localhost",
		"-c", "commit.gpgSign=false", "-c", "advice.detachedHead=false",
		"-C" };

	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		strlist_add(argv, head[i]);
	strlist_add(argv, repo);
}

/* Cut trailing newlines off b. */
static void
chomp(struct buf *b)
{
	while (b->len > 0 && (b->buf[b->len - 1] == '\n' ||
	    b->buf[b->len - 1] == '\r'))
		b->buf[--b->len] = '\0';
}

/*
 * Run argv; stdout into out (may be NULL); with stderr when with_stderr.
 * Returns git's exit status, or -1 (why says) when it could not run.
 */
static int
run(struct strlist *argv, struct buf *out, bool with_stderr, struct buf *why)
{
	struct buf discard = BUF_INIT;
	const char *const *args = strlist_argv(argv);
	/* start_argv() put the repository after "-C". */
	const char *repo = NULL;
	int status;

	for (size_t i = 0; i + 1 < argv->count && repo == NULL; i++)
		if (strcmp(argv->items[i], "-C") == 0)
			repo = argv->items[i + 1];
	status = git_capture(repo, args, NULL, with_stderr,
	    out ? out : &discard);

	if (status < 0)
		buf_addf(why, "cannot run git: %s", strerror(errno));
	buf_release(&discard);
	return status;
}

/* Say in why that git's what failed with status, and git's last line. */
static void
explain(struct buf *why, const char *what, int status, struct buf *output)
{
	const char *line;

	if (status < 0)
		return; /* run() said it */
	chomp(output);
	buf_addf(why, "git %s failed (exit %d", what, status);
	if (output->len > 0) {
		line = strrchr(output->buf, '\n');
		buf_addf(why, ": %s", line ? line + 1 : output->buf);
	}
	buf_adds(why, ")");
}

/*
 * Run the git command words (NULL-terminated) in repo; stdout (and stderr,
 * with with_stderr) into out. Returns 0 when git exited 0; else explains
 * into why and returns the status (-1 when it could not run).
 */
static int
git(const char *repo, const char *const *words, struct buf *out,
    bool with_stderr, struct buf *why)
{
	struct strlist argv = STRLIST_INIT;
	struct buf output = BUF_INIT;
	int status;

	start_argv(&argv, repo);
	for (; *words; words++)
		strlist_add(&argv, *words);
	status = run(&argv, &output, with_stderr, why);
	if (status != 0)
		explain(why, argv.items[16], status, &output); /* the command word */
	else if (out)
		buf_add(out, output.buf, output.len);
	strlist_release(&argv);
	buf_release(&output);
	return status;
}

/* Append each line of text (a NUL- or newline-separated list) to out. */
static void
add_lines(struct strlist *out, const char *text, size_t len, char sep)
{
	for (size_t at = 0; at < len;) {
		const char *end = memchr(text + at, sep, len - at);
		size_t n = end ? (size_t)(end - (text + at)) : len - at;

		if (n > 0) {
			char *item = xstrndup(text + at, n);

			if (!strlist_contains(out, item))
				strlist_add_owned(out, item);
			else
				free(item);
		}
		at += n + 1;
	}
}

int
gitm_merge_tree(const char *repo, const char *ours, const char *theirs,
    struct buf *tree, struct strlist *conflicts, struct buf *why)
{
	struct strlist argv = STRLIST_INIT;
	struct buf out = BUF_INIT;
	const char *const words[] = { "merge-tree", "--write-tree", "-z",
		"--name-only", "--no-messages", "--end-of-options", ours, theirs };
	int status, rc = -1;

	start_argv(&argv, repo);
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		strlist_add(&argv, words[i]);
	status = run(&argv, &out, false, why);
	if (status == 0 || status == 1) {
		/* "TREE\0" then, on a conflict, "PATH\0" each, then "\0". */
		size_t first = strnlen(out.buf, out.len);

		buf_reset(tree);
		buf_add(tree, out.buf, first);
		if (status == 1 && first < out.len)
			add_lines(conflicts, out.buf + first + 1,
			    out.len - first - 1, '\0');
		rc = tree->len >= 40 ? status : -1;
		if (rc < 0)
			buf_adds(why, "git merge-tree printed no tree");
	} else {
		explain(why, "merge-tree", status, &out);
	}
	strlist_release(&argv);
	buf_release(&out);
	return rc;
}

int
gitm_commit_tree(const char *repo, const char *tree,
    const struct strlist *parents, const char *message, struct buf *out,
    struct buf *why)
{
	struct strlist argv = STRLIST_INIT;
	struct buf output = BUF_INIT;
	int status;

	start_argv(&argv, repo);
	strlist_add(&argv, "commit-tree");
	for (size_t i = 0; i < parents->count; i++) {
		strlist_add(&argv, "-p");
		strlist_add(&argv, parents->items[i]);
	}
	strlist_add(&argv, "-m");
	strlist_add(&argv, message);
	strlist_add(&argv, tree);
	status = run(&argv, &output, false, why);
	chomp(&output);
	if (status == 0 && output.len >= 40) {
		buf_reset(out);
		buf_add(out, output.buf, output.len);
	} else if (status >= 0) {
		explain(why, "commit-tree", status, &output);
	}
	strlist_release(&argv);
	buf_release(&output);
	return status == 0 && out->len >= 40 ? 0 : -1;
}

/*
 * What rev^{kind} names in repo (git rev-parse --verify), into out.
 * Returns 0, or -1 when it names nothing of that kind.
 */
static int
resolve_as(const char *repo, const char *rev, const char *kind,
    struct buf *out)
{
	struct buf spec = BUF_INIT, why = BUF_INIT;
	const char *words[] = { "rev-parse", "--verify", "--quiet",
		"--end-of-options", NULL, NULL };
	int rc;

	buf_addf(&spec, "%s^{%s}", rev, kind);
	words[4] = spec.buf;
	buf_reset(out);
	rc = git(repo, words, out, false, &why);
	chomp(out);
	buf_release(&spec);
	buf_release(&why);
	return rc == 0 && out->len >= 40 ? 0 : -1;
}

int
gitm_resolve(const char *repo, const char *rev, struct buf *out)
{
	return resolve_as(repo, rev, "commit", out);
}

int
gitm_tree_of(const char *repo, const char *commit, struct buf *out)
{
	return resolve_as(repo, commit, "tree", out);
}

int
gitm_update_ref(const char *repo, const char *ref, const char *new_hash,
    const char *old_hash, const char *reason, struct buf *why)
{
	struct buf out = BUF_INIT, current = BUF_INIT, ignored = BUF_INIT;
	const char *const words[] = { "update-ref", "-m", reason, ref, new_hash,
		old_hash, NULL };
	const char *const read[] = { "rev-parse", "--verify", "--quiet", ref,
		NULL };
	int rc = git(repo, words, &out, true, why);

	if (rc > 0) {
		/* Lost the race, or a real failure: tell which. */
		if (git(repo, read, &current, false, &ignored) == 0) {
			chomp(&current);
			if (strcmp(current.buf, old_hash) != 0) {
				buf_reset(why);
				buf_addf(why, "%s moved to %.12s meanwhile", ref,
				    current.buf);
				rc = 1;
			}
		}
		if (rc != 1)
			rc = -1;
	}
	buf_release(&out);
	buf_release(&current);
	buf_release(&ignored);
	return rc;
}

int
gitm_diff_paths(const char *repo, const char *a, const char *b,
    struct strlist *paths, struct buf *why)
{
	struct buf out = BUF_INIT;
	const char *const words[] = { "diff-tree", "-r", "-z", "--no-renames",
		"--name-only", "--end-of-options", a, b, NULL };
	int rc = git(repo, words, &out, false, why);

	if (rc == 0)
		add_lines(paths, out.buf, out.len, '\0');
	buf_release(&out);
	return rc == 0 ? 0 : -1;
}

int
gitm_uncommitted_paths(const char *worktree, struct strlist *paths,
    struct buf *why)
{
	struct buf out = BUF_INIT;
	/*
	 * One pass over the files: git status refreshes the index's stat
	 * information, compares index and files, and lists untracked and
	 * ignored files (a directory of them as "DIR/").
	 */
	const char *const words[] = { "status", "--porcelain=v1", "-z",
		"--no-renames", "--untracked-files=normal", "--ignored=traditional",
		"--ignore-submodules=none", NULL };
	int rc = git(worktree, words, &out, false, why);

	/* Records "XY PATH\0". */
	for (size_t at = 0; rc == 0 && at < out.len;) {
		size_t n = strnlen(out.buf + at, out.len - at);

		if (n > 3 && !strlist_contains(paths, out.buf + at + 3))
			strlist_add(paths, out.buf + at + 3);
		at += n + 1;
	}
	buf_release(&out);
	return rc == 0 ? 0 : -1;
}

int
gitm_differ_from(const char *worktree, const char *commit,
    const struct strlist *paths, struct strlist *out, struct buf *why)
{
	struct strlist argv = STRLIST_INIT;
	struct buf output = BUF_INIT;
	int rc = 0;

	if (paths->count == 0)
		return 0;
	/* The index against commit, then the files against commit. */
	for (int files = 0; files <= 1 && rc == 0; files++) {
		int status;

		strlist_release(&argv);
		buf_reset(&output);
		start_argv(&argv, worktree);
		strlist_add(&argv, "diff-index");
		if (!files)
			strlist_add(&argv, "--cached");
		strlist_add(&argv, "-z");
		strlist_add(&argv, "--name-only");
		strlist_add(&argv, "--no-renames");
		strlist_add(&argv, commit);
		strlist_add(&argv, "--");
		for (size_t i = 0; i < paths->count; i++) {
			struct buf literal = BUF_INIT;

			buf_addf(&literal, ":(literal)%s", paths->items[i]);
			strlist_add(&argv, literal.buf);
			buf_release(&literal);
		}
		status = run(&argv, &output, false, why);
		if (status == 0)
			add_lines(out, output.buf, output.len, '\0');
		else {
			explain(why, "diff-index", status, &output);
			rc = -1;
		}
	}
	/* Untracked files among paths differ from commit, which has them. */
	if (rc == 0) {
		struct buf untracked = BUF_INIT;
		const char *const words[] = { "ls-files", "-z", "--others", NULL };

		if (git(worktree, words, &untracked, false, why) == 0) {
			struct strlist listed = STRLIST_INIT;

			add_lines(&listed, untracked.buf, untracked.len, '\0');
			for (size_t i = 0; i < listed.count; i++)
				if (strlist_contains(paths, listed.items[i]) &&
				    !strlist_contains(out, listed.items[i]))
					strlist_add(out, listed.items[i]);
			strlist_release(&listed);
		} else {
			rc = -1;
		}
		buf_release(&untracked);
	}
	strlist_release(&argv);
	buf_release(&output);
	return rc;
}

int
gitm_follow(const char *worktree, const char *old_hash, const char *new_hash,
    bool refresh, struct buf *why)
{
	const char *const refresh_words[] = { "update-index", "-q", "--refresh",
		NULL };
	const char *const words[] = { "read-tree", "-m", "-u", old_hash,
		new_hash, NULL };
	struct buf ignored = BUF_INIT;
	int rc;

	if (refresh)
		git(worktree, refresh_words, NULL, false, &ignored);
	rc = git(worktree, words, NULL, true, why);
	buf_release(&ignored);
	return rc == 0 ? 0 : -1;
}

int
gitm_checkout_clean(const char *worktree, const char *commit, bool scrub,
    struct buf *why)
{
	const char *const checkout[] = { "checkout", "-q", "-f", "--detach",
		commit, "--", NULL };
	const char *const clean[] = { "clean", "-q", "-ffdx", NULL };
	struct buf ignored = BUF_INIT;
	int rc;

	/* A cherry-pick a crash left half done is ended first. */
	const char *const abort_pick[] = { "cherry-pick", "--quit", NULL };

	git(worktree, abort_pick, NULL, true, &ignored);
	rc = git(worktree, checkout, NULL, true, why);
	if (rc == 0 && scrub)
		rc = git(worktree, clean, NULL, true, why);
	buf_release(&ignored);
	return rc == 0 ? 0 : -1;
}

int
gitm_own_commits(const char *repo, const char *commit, const char *base,
    struct strlist *out, struct buf *why)
{
	struct buf out_text = BUF_INIT, not_base = BUF_INIT;
	const char *words[] = { "rev-list", "--reverse", "--topo-order",
		"--no-merges", NULL, NULL, NULL };
	int rc;

	buf_addf(&not_base, "^%s", base);
	words[4] = commit;
	words[5] = not_base.buf;
	rc = git(repo, words, &out_text, false, why);
	if (rc == 0)
		add_lines(out, out_text.buf, out_text.len, '\n');
	buf_release(&out_text);
	buf_release(&not_base);
	return rc == 0 ? 0 : -1;
}

int
gitm_cherry_pick(const char *worktree, const char *commit,
    struct strlist *conflicts, struct buf *why)
{
	const char *const words[] = { "cherry-pick", "--allow-empty",
		"--keep-redundant-commits", "--no-rerere-autoupdate", commit, NULL };
	const char *const unmerged[] = { "diff", "--name-only", "-z",
		"--diff-filter=U", NULL };
	const char *const abort_pick[] = { "cherry-pick", "--abort", NULL };
	struct buf out = BUF_INIT, ignored = BUF_INIT;
	int rc = git(worktree, words, NULL, true, why);

	if (rc > 0 && git(worktree, unmerged, &out, false, &ignored) == 0 &&
	    out.len > 0) {
		add_lines(conflicts, out.buf, out.len, '\0');
		git(worktree, abort_pick, NULL, true, &ignored);
		buf_reset(why);
		rc = 1;
	} else if (rc != 0) {
		git(worktree, abort_pick, NULL, true, &ignored);
		rc = -1;
	}
	buf_release(&out);
	buf_release(&ignored);
	return rc;
}

int
gitm_commits_with_line(const char *repo, const char *base, const char *tip,
    const char *trailer, struct strlist *out, struct buf *why)
{
	struct buf text = BUF_INIT, range = BUF_INIT;
	const char *words[] = { "log", "--format=%H%x01%B%x00", NULL, NULL };
	int rc;

	buf_addf(&range, "%s..%s", base, tip);
	words[2] = range.buf;
	rc = git(repo, words, &text, false, why);
	for (size_t at = 0; rc == 0 && at < text.len;) {
		const char *record = text.buf + at, *body;
		size_t n = strnlen(record, text.len - at);

		body = memchr(record, '\x01', n);
		if (body) {
			/* A line of the message that starts with trailer. */
			for (const char *line = body + 1; line < record + n;) {
				const char *end = memchr(line, '\n',
				    (size_t)(record + n - line));

				if (strncmp(line, trailer, strlen(trailer)) == 0) {
					size_t skip = strspn(record, "\n");
					char *hash = xstrndup(record + skip,
					    (size_t)(body - record) - skip);

					strlist_add_owned(out, hash);
					break;
				}
				line = end ? end + 1 : record + n;
			}
		}
		at += n + 1;
	}
	buf_release(&text);
	buf_release(&range);
	return rc == 0 ? 0 : -1;
}

/*
 * Run `git WORDS... TIP ^EXCLUDED...` in repo (--ignore-missing: a commit
 * git has collected is no longer there to exclude); stdout into out.
 * Returns 0, or -1 (why says).
 */
static int
git_range(const char *repo, const char *const *words, const char *tip,
    const struct strlist *excluded, struct buf *out, struct buf *why)
{
	struct strlist argv = STRLIST_INIT;
	struct buf output = BUF_INIT, not = BUF_INIT;
	int status;

	start_argv(&argv, repo);
	for (; *words; words++)
		strlist_add(&argv, *words);
	strlist_add(&argv, "--ignore-missing");
	strlist_add(&argv, "--end-of-options");
	strlist_add(&argv, tip);
	for (size_t i = 0; excluded && i < excluded->count; i++) {
		buf_reset(&not);
		buf_addf(&not, "^%s", excluded->items[i]);
		strlist_add(&argv, not.buf);
	}
	status = run(&argv, &output, false, why);
	if (status == 0)
		buf_add(out, output.buf, output.len);
	else
		explain(why, argv.items[16], status, &output);
	strlist_release(&argv);
	buf_release(&output);
	buf_release(&not);
	return status == 0 ? 0 : -1;
}

int
gitm_commits_between(const char *repo, const char *tip,
    const struct strlist *excluded, struct strlist *out, struct buf *why)
{
	static const char *const words[] = { "rev-list", NULL };
	struct buf text = BUF_INIT;
	int rc = git_range(repo, words, tip, excluded, &text, why);

	if (rc == 0)
		add_lines(out, text.buf, text.len, '\n');
	buf_release(&text);
	return rc;
}

int
gitm_patch_ids(const char *repo, const char *tip,
    const struct strlist *excluded, struct strlist *out, struct buf *why)
{
	static const char *const words[] = { "log", "--no-merges", "-p",
		"--no-color", "--no-ext-diff", "--no-textconv",
		"--format=commit %H", NULL };
	struct strlist argv = STRLIST_INIT;
	struct buf patches = BUF_INIT, ids = BUF_INIT;
	char path[] = "/tmp/daicho-patches.XXXXXX";
	int fd = -1, status, rc = -1;

	if (git_range(repo, words, tip, excluded, &patches, why) < 0)
		goto done;
	if (patches.len == 0) {
		rc = 0;
		goto done;
	}
	if ((fd = mkstemp(path)) < 0 ||
	    write(fd, patches.buf, patches.len) != (ssize_t)patches.len) {
		buf_addf(why, "cannot write %s: %s", path, strerror(errno));
		goto done;
	}
	start_argv(&argv, repo);
	strlist_add(&argv, "patch-id");
	strlist_add(&argv, "--stable");
	status = git_capture(repo, strlist_argv(&argv), path, false, &ids);
	if (status != 0) {
		explain(why, "patch-id", status, &ids);
		goto done;
	}
	/* "PATCHID COMMIT\n" each. */
	for (size_t at = 0; at < ids.len;) {
		const char *end = memchr(ids.buf + at, '\n', ids.len - at);
		size_t n = end ? (size_t)(end - (ids.buf + at)) : ids.len - at;
		const char *space = memchr(ids.buf + at, ' ', n);

		if (space) {
			char *id = xstrndup(ids.buf + at,
			    (size_t)(space - (ids.buf + at)));

			if (!strlist_contains(out, id))
				strlist_add_owned(out, id);
			else
				free(id);
		}
		at += n + 1;
	}
	rc = 0;
done:
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	strlist_release(&argv);
	buf_release(&patches);
	buf_release(&ids);
	return rc;
}


int
gitm_amend_trailer(const char *worktree, const char *trailer,
    struct buf *head, struct buf *why)
{
	const char *const words[] = { "commit", "-q", "--amend", "--no-edit",
		"--allow-empty", "--no-verify", "--trailer", trailer, NULL };

	if (git(worktree, words, NULL, true, why) != 0)
		return -1;
	return gitm_resolve(worktree, "HEAD", head) == 0 ? 0 : -1;
}

int
gitm_push(const char *repo, const char *remote, const char *commit,
    const char *branch, int64_t timeout_ms, struct buf *why)
{
	struct strlist argv = STRLIST_INIT;
	struct buf refspec = BUF_INIT;
	/* Never wait for a person: no password prompt, no credential UI. */
	const char *env[] = { "GIT_TERMINAL_PROMPT=0", "GCM_INTERACTIVE=never",
		"LC_ALL=C", NULL };
	struct proc_result result = { 0 };
	int rc = -1;

	start_argv(&argv, repo);
	git_add_remote_options(&argv);
	strlist_add(&argv, "push");
	strlist_add(&argv, "--porcelain");
	strlist_add(&argv, "--no-verify");
	strlist_add(&argv, "--end-of-options");
	strlist_add(&argv, remote);
	buf_addf(&refspec, "%s:refs/heads/%s", commit, branch);
	strlist_add(&argv, refspec.buf);
	if (proc_run(strlist_argv(&argv), NULL, env, timeout_ms, 4096,
	    &result) < 0) {
		buf_addf(why, "cannot run git: %s", strerror(errno));
		goto done;
	}
	if (result.timed_out) {
		buf_addf(why, "git push to %s: no answer in time", remote);
	} else if (result.exit_status == 0) {
		rc = 0;
	} else if (strstr(result.output.buf, "[rejected]") ||
	    strstr(result.output.buf, "non-fast-forward") ||
	    strstr(result.output.buf, "fetch first")) {
		buf_addf(why, "%s's %s moved meanwhile (the push was refused)",
		    remote, branch);
		rc = 1;
	} else {
		explain(why, "push", result.exit_status, &result.output);
	}
done:
	proc_result_release(&result);
	strlist_release(&argv);
	buf_release(&refspec);
	return rc;
}

int
gitm_changed_since_fork(const char *repo, const char *base,
    const char *commit, struct strlist *paths, struct buf *why)
{
	struct buf out = BUF_INIT, range = BUF_INIT;
	const char *words[] = { "diff", "--no-ext-diff", "--no-textconv",
		"--no-renames", "--name-only", "-z", NULL, NULL };
	int rc;

	buf_addf(&range, "%s...%s", base, commit);
	words[6] = range.buf;
	rc = git(repo, words, &out, false, why);
	if (rc == 0)
		add_lines(paths, out.buf, out.len, '\0');
	buf_release(&out);
	buf_release(&range);
	return rc == 0 ? 0 : -1;
}
