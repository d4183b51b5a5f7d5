/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/judge.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/git.h"
#include "util/gitmerge.h"
#include "util/path.h"

/* The judge repository's whole configuration. */
static const char judge_config[] =
    "[core]\n"
    "\trepositoryformatversion = 0\n"
    "\tbare = true\n"
    "\thooksPath = /dev/null\n"
    "\tfsmonitor = false\n"
    "\tlogAllRefUpdates = false\n"
    "[gc]\n"
    "\tauto = 0\n"
    "[advice]\n"
    "\tdetachedHead = false\n";

/*
 * Write text to path whole, through a new file renamed over it: never
 * through a link, and no reader sees it half written.
 */
static int
write_whole(const char *path, const char *text)
{
	struct buf tmp = BUF_INIT;
	size_t len = strlen(text);
	int fd, rc = 0;

	buf_addf(&tmp, "%s.%ld.tmp", path, (long)getpid());
	unlink(tmp.buf);
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	    0644);
	if (fd < 0) {
		buf_release(&tmp);
		return -1;
	}
	if (write(fd, text, len) != (ssize_t)len)
		rc = -1;
	if (close(fd) < 0)
		rc = -1;
	if (rc == 0 && rename(tmp.buf, path) < 0)
		rc = -1;
	if (rc < 0)
		unlink(tmp.buf);
	buf_release(&tmp);
	return rc;
}

/* Take out what in dir could change what git sees of its objects. */
static void
scrub(const char *dir)
{
	static const char *const files[] = { "info/grafts", "shallow",
		"objects/info/alternates", "objects/info/http-alternates",
		"info/attributes", "info/sparse-checkout", "config.worktree",
		NULL };
	static const char *const trees[] = { "refs/replace", "hooks", NULL };
	struct buf path = BUF_INIT;

	for (size_t i = 0; files[i]; i++) {
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir, files[i]);
		unlink(path.buf);
	}
	for (size_t i = 0; trees[i]; i++) {
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir, trees[i]);
		path_remove_tree(path.buf);
	}
	buf_release(&path);
}

int
judge_locate(struct ledger *ledger, struct judge *j)
{
	struct buf local = BUF_INIT;

	if (ledger_git_dir(ledger, &j->project) != 0 || j->project.len == 0)
		return 1;
	ledger_local_dir(ledger, &local);
	buf_addf(&j->dir, "%s/judge.git", local.buf);
	buf_release(&local);
	return 0;
}

int
judge_open(struct ledger *ledger, struct judge *j, struct err *err)
{
	struct buf local = BUF_INIT, path = BUF_INIT, out = BUF_INIT;
	int rc = 0;

	if (judge_locate(ledger, j) != 0)
		return 1;
	ledger_local_dir(ledger, &local);
	git_own_repository(j->dir.buf);
	buf_addf(&path, "%s/verify", local.buf);
	git_own_repository(path.buf);
	buf_reset(&path);
	buf_addf(&path, "%s/land", local.buf);
	git_own_repository(path.buf);
	buf_reset(&path);
	buf_addf(&path, "%s/objects", j->dir.buf);
	if (access(path.buf, F_OK) != 0) {
		/*
		 * Made aside and renamed into place: sweeps that start at
		 * once (sweep -j N) all try, one wins, none sees half of it.
		 */
		struct buf aside = BUF_INIT;
		const char *init[] = { "init", "--bare", "--quiet", "--template=",
			NULL, NULL };

		buf_addf(&aside, "%s.%ld.new", j->dir.buf, (long)getpid());
		init[4] = aside.buf;
		path_remove_tree(aside.buf);
		if (path_make_parent_dirs(j->dir.buf, 0755) < 0 ||
		    git_command(local.buf, init, &out) != 0) {
			rc = err_set(err, ERR_FAILED, "cannot make the judge's "
			    "repository %s: %s", j->dir.buf, out.len ? out.buf
			    : strerror(errno));
			path_remove_tree(aside.buf);
			buf_release(&aside);
			goto done;
		}
		if (rename(aside.buf, j->dir.buf) < 0)
			path_remove_tree(aside.buf); /* another made it first */
		buf_release(&aside);
	}
	scrub(j->dir.buf);
	buf_reset(&path);
	buf_addf(&path, "%s/config", j->dir.buf);
	if (write_whole(path.buf, judge_config) < 0)
		rc = err_set(err, ERR_FAILED, "cannot write %s: %s", path.buf,
		    strerror(errno));
done:
	buf_release(&local);
	buf_release(&path);
	buf_release(&out);
	return rc;
}

/*
 * git fetch, in the judge's repository, from the project's, of its
 * branches and of the commits in want (may be NULL). Returns git's status;
 * its words into out.
 */
static int
fetch(const struct judge *j, const struct strlist *want, struct buf *out)
{
	struct strlist argv = STRLIST_INIT;
	static const char *const words[] = { "git", "-C", NULL, "fetch",
		"--no-tags", "--quiet", "--no-write-fetch-head",
		"--no-recurse-submodules", "--prune", "--force",
		"--end-of-options", NULL };
	int status;

	for (size_t i = 0; words[i] || i == 2; i++)
		strlist_add(&argv, i == 2 ? j->dir.buf : words[i]);
	strlist_add(&argv, j->project.buf);
	strlist_add(&argv, "+refs/heads/*:refs/heads/*");
	for (size_t i = 0; want && i < want->count; i++)
		strlist_add(&argv, want->items[i]);
	status = git_capture(j->dir.buf, strlist_argv(&argv), NULL, true, out);
	strlist_release(&argv);
	return status;
}

int
judge_fetch(const struct judge *j, const struct strlist *commits,
    struct buf *why)
{
	struct strlist want = STRLIST_INIT;
	struct buf out = BUF_INIT, shallow = BUF_INIT, lock_path = BUF_INIT;
	int status, rc = 0, lock = -1;

	for (size_t i = 0; commits && i < commits->count; i++) {
		const char *c = commits->items[i];

		if (c && strlen(c) >= 40 && !strlist_contains(&want, c))
			strlist_add(&want, c);
	}
	/*
	 * One fetch at a time (a sweep's verifications, a lander's lanes):
	 * two would race for the same refs and one would fail.
	 */
	buf_addf(&lock_path, "%s/daicho-fetch.lock", j->dir.buf);
	lock = open(lock_path.buf, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0644);
	if (lock >= 0)
		while (flock(lock, LOCK_EX) < 0 && errno == EINTR)
			;
	status = fetch(j, &want, &out);
	/*
	 * A commit the project lacks fails the whole fetch: the branches
	 * alone then, and each commit on its own, those it lacks left out
	 * (what judges them says so).
	 */
	if (status != 0 && want.count > 0) {
		buf_reset(&out);
		status = fetch(j, NULL, &out);
		for (size_t i = 0; status == 0 && i < want.count; i++) {
			struct strlist one = STRLIST_INIT;
			struct buf ignored = BUF_INIT;

			strlist_add(&one, want.items[i]);
			if (!git_has_commit(j->dir.buf, want.items[i]))
				fetch(j, &one, &ignored);
			strlist_release(&one);
			buf_release(&ignored);
		}
	}
	if (status != 0) {
		buf_addf(why, "cannot bring the work into the judge's repository "
		    "%s: git fetch failed (exit %d): %s", j->dir.buf, status,
		    out.len ? out.buf : strerror(errno));
		rc = -1;
	}
	/* The project's history is cut (a shallow clone): nothing to judge. */
	buf_addf(&shallow, "%s/shallow", j->dir.buf);
	if (rc == 0 && access(shallow.buf, F_OK) == 0) {
		unlink(shallow.buf);
		buf_addf(why, "the project's repository %s is shallow (its "
		    "history is cut): the judge cannot tell new work from old "
		    "(git fetch --unshallow there)", j->project.buf);
		rc = -1;
	}
	if (lock >= 0)
		close(lock); /* and the lock with it */
	strlist_release(&want);
	buf_release(&out);
	buf_release(&shallow);
	buf_release(&lock_path);
	return rc;
}

void
judge_release(struct judge *j)
{
	buf_release(&j->dir);
	buf_release(&j->project);
}

/* Lock (exclusive, not waiting) the file at path: its descriptor, or -1. */
static int
try_lock(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* nftw(): remove what git does not (a FIFO, a socket, a device). */
static int
remove_special(const char *path, const struct stat *st, int type,
    struct FTW *at)
{
	(void)at;
	if (type == FTW_F && !S_ISREG(st->st_mode) && !S_ISLNK(st->st_mode) &&
	    unlink(path) < 0)
		return -1;
	return 0;
}

/*
 * Make dir, a warm checkout, hold exactly commit: gitm_checkout_clean(),
 * then no special file anywhere (git clean leaves a FIFO a check made).
 * Returns 0, or -1 (why says).
 */
static int
checkout_exactly(const char *dir, const char *commit, struct buf *why)
{
	if (gitm_checkout_clean(dir, commit, true, why) < 0)
		return -1;
	if (nftw(dir, remove_special, 16, FTW_PHYS) != 0) {
		buf_addf(why, "cannot remove a special file under %s: %s", dir,
		    strerror(errno));
		return -1;
	}
	return 0;
}

int
judge_checkout_take(const struct judge *j, const char *dir,
    const char *commit, struct judge_checkout *out, struct buf *why)
{
	struct buf lock = BUF_INIT;
	struct stat st;

	for (int k = 0; k < JUDGE_CHECKOUTS_MAX; k++) {
		buf_reset(&lock);
		buf_addf(&lock, "%s/warm-%d.lock", dir, k);
		if (path_make_parent_dirs(lock.buf, 0755) < 0) {
			buf_addf(why, "cannot make %s: %s", dir, strerror(errno));
			break;
		}
		if ((out->lock_fd = try_lock(lock.buf)) < 0)
			continue;
		buf_reset(&out->dir);
		buf_addf(&out->dir, "%s/warm-%d", dir, k);
		buf_reset(why);
		if (lstat(out->dir.buf, &st) == 0) {
			if (checkout_exactly(out->dir.buf, commit, why) == 0)
				goto taken;
			/* Broken (a crash, a check's leftovers): made again. */
			git_worktree_remove(j->dir.buf, out->dir.buf);
			path_remove_tree(out->dir.buf);
			git_worktree_prune(j->dir.buf);
			buf_reset(why);
		}
		if (git_worktree_add(j->dir.buf, out->dir.buf, commit, why) == 0)
			goto taken;
		close(out->lock_fd);
		out->lock_fd = -1;
		buf_release(&lock);
		return -1;
	}
	if (why->len == 0)
		buf_addf(why, "all %d warm checkouts in %s are in use",
		    JUDGE_CHECKOUTS_MAX, dir);
	buf_release(&lock);
	return -1;
taken:
	buf_release(&lock);
	return 0;
}

void
judge_checkout_give(struct judge_checkout *c)
{
	struct buf why = BUF_INIT;

	if (c->lock_fd >= 0) {
		checkout_exactly(c->dir.buf, "HEAD", &why);
		close(c->lock_fd);
		c->lock_fd = -1;
	}
	buf_release(&c->dir);
	buf_release(&why);
}
