/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"

static int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void
chomp(struct buf *b)
{
	while (b->len > 0 && (b->buf[b->len - 1] == '\n' || b->buf[b->len - 1] == '\r' ||
				 b->buf[b->len - 1] == ' '))
		b->buf[--b->len] = '\0';
}

/* out = path if absolute, else base/path. */
static void
join(struct buf *out, const char *base, const char *path)
{
	buf_reset(out);
	if (path[0] != '/') {
		buf_adds(out, base);
		buf_addch(out, '/');
	}
	buf_adds(out, path);
}

/* Replace out with its canonical absolute path. Returns 0, or -1. */
static int
resolve(struct buf *out)
{
	char *real = realpath(out->buf, NULL);

	if (real == NULL)
		return -1;
	buf_reset(out);
	buf_adds(out, real);
	free(real);
	return 0;
}

/* Given a git dir, put its common dir (commondir file or itself) in out. */
static int
common_from_git_dir(const char *git_dir, struct buf *out)
{
	struct buf file = BUF_INIT, content = BUF_INIT;
	int rc;

	buf_addf(&file, "%s/commondir", git_dir);
	if (buf_read_file(&content, file.buf) == 0) {
		chomp(&content);
		join(out, git_dir, content.buf);
	} else {
		buf_reset(out);
		buf_adds(out, git_dir);
	}
	rc = resolve(out) == 0 ? 0 : 1;
	buf_release(&file);
	buf_release(&content);
	return rc;
}

/* Cut the last component off b ("/a/b" -> "/a"; "/a" -> "/"). */
static void
cut_last(struct buf *b)
{
	char *slash = strrchr(b->buf, '/');

	if (slash == NULL)
		return;
	b->len = slash == b->buf ? 1 : (size_t)(slash - b->buf);
	b->buf[b->len] = '\0';
}

/*
 * path_git_common_dir() as git would answer it with no GIT_DIR or
 * GIT_COMMON_DIR in the environment: from the .git directory or file in
 * start or the nearest directory above it.
 */
static int
common_dir_upward(const char *start, struct buf *out)
{
	struct buf dir = BUF_INIT, dotgit = BUF_INIT, content = BUF_INIT,
		   git_dir = BUF_INIT;
	int rc = 1;

	buf_adds(&dir, start);
	if (resolve(&dir) < 0)
		goto done;
	for (;;) {
		struct stat st;

		buf_reset(&dotgit);
		buf_addf(&dotgit, "%s/.git", strcmp(dir.buf, "/") ? dir.buf : "");
		if (stat(dotgit.buf, &st) == 0) {
			if (S_ISDIR(st.st_mode)) {
				rc = common_from_git_dir(dotgit.buf, out);
				goto done;
			}
			buf_reset(&content);
			if (buf_read_file(&content, dotgit.buf) == 0 &&
			    strncmp(content.buf, "gitdir:", 7) == 0) {
				const char *p = content.buf + 7;

				while (*p == ' ')
					p++;
				chomp(&content);
				join(&git_dir, dir.buf, p);
				rc = common_from_git_dir(git_dir.buf, out);
				goto done;
			}
		}
		if (strcmp(dir.buf, "/") == 0)
			break;
		cut_last(&dir);
	}
done:
	buf_release(&dir);
	buf_release(&dotgit);
	buf_release(&content);
	buf_release(&git_dir);
	return rc;
}

int
path_git_common_dir(const char *start, struct buf *out)
{
	const char *env_common = getenv("GIT_COMMON_DIR");
	const char *env_dir = getenv("GIT_DIR");
	struct buf git_dir = BUF_INIT;
	int rc;

	if (env_common != NULL && *env_common != '\0') {
		join(out, start, env_common);
		return resolve(out) == 0 ? 0 : 1;
	}
	if (env_dir != NULL && *env_dir != '\0') {
		join(&git_dir, start, env_dir);
		rc = common_from_git_dir(git_dir.buf, out);
		buf_release(&git_dir);
		return rc;
	}
	return common_dir_upward(start, out);
}

int
path_find_upward(const char *start, const char *rel, struct buf *out)
{
	struct buf dir = BUF_INIT;
	int rc = 1;

	buf_adds(&dir, start);
	if (resolve(&dir) < 0)
		goto done;
	for (;;) {
		buf_reset(out);
		buf_addf(out, "%s/%s", strcmp(dir.buf, "/") ? dir.buf : "", rel);
		if (access(out->buf, F_OK) == 0) {
			rc = 0;
			break;
		}
		if (strcmp(dir.buf, "/") == 0)
			break;
		cut_last(&dir);
	}
done:
	if (rc != 0)
		buf_reset(out);
	buf_release(&dir);
	return rc;
}

int
path_make_parent_dirs(const char *path, mode_t mode)
{
	char *copy = xstrdup(path);
	char *p;
	int rc = 0;

	p = strrchr(copy, '/');
	if (p == NULL || p == copy)
		goto done;
	*p = '\0';
	for (p = copy + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char saved = *p;

			*p = '\0';
			if (mkdir(copy, mode) < 0 && errno != EEXIST) {
				rc = -1;
				goto done;
			}
			if (!is_dir(copy)) {
				errno = ENOTDIR;
				rc = -1;
				goto done;
			}
			*p = saved;
			if (saved == '\0')
				break;
		}
	}
done:
	free(copy);
	return rc;
}

void
path_add_absolute(struct buf *out, const char *path)
{
	if (path[0] != '/') {
		char *cwd = getcwd(NULL, 0);

		if (cwd != NULL) {
			buf_adds(out, cwd);
			buf_addch(out, '/');
			free(cwd);
		}
	}
	buf_adds(out, path);
}

int
path_add_resolved_dir(struct buf *out, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir, *real;

	if (slash == NULL)
		dir = xstrdup(".");
	else if (slash == path)
		dir = xstrdup("/");
	else
		dir = xstrndup(path, (size_t)(slash - path));
	real = realpath(dir, NULL);
	free(dir);
	if (real == NULL)
		return -1;
	buf_adds(out, real);
	if (out->len == 0 || out->buf[out->len - 1] != '/')
		buf_addch(out, '/');
	buf_adds(out, slash ? slash + 1 : path);
	free(real);
	return 0;
}

/* Whether dir looks like a git directory (HEAD and objects/ inside). */
static int
is_git_dir(const char *dir)
{
	struct buf probe = BUF_INIT;
	int yes;

	buf_addf(&probe, "%s/HEAD", dir);
	yes = access(probe.buf, F_OK) == 0;
	buf_reset(&probe);
	buf_addf(&probe, "%s/objects", dir);
	yes = yes && is_dir(probe.buf);
	buf_release(&probe);
	return yes;
}

static const char *
last_name(const struct buf *b)
{
	const char *slash = strrchr(b->buf, '/');

	return slash ? slash + 1 : b->buf;
}

void
path_project_root(const char *ledger_path, struct buf *out)
{
	struct buf dir = BUF_INIT, up = BUF_INIT;

	buf_reset(out);
	path_add_absolute(&dir, ledger_path);
	cut_last(&dir);
	if (resolve(&dir) < 0) {
		buf_adds(out, dir.buf);
		goto done;
	}
	buf_adds(&up, dir.buf);
	cut_last(&up);
	if (strcmp(last_name(&dir), "daicho") == 0 && is_git_dir(up.buf)) {
		/* <git dir>/daicho: the work tree is the git dir's parent. */
		if (strcmp(last_name(&up), ".git") == 0)
			cut_last(&up);
		buf_adds(out, up.buf);
		goto done;
	}
	if (strcmp(last_name(&dir), ".daicho") == 0) {
		buf_adds(out, up.buf);
		goto done;
	}
	for (buf_reset(&up), buf_adds(&up, dir.buf);; cut_last(&up)) {
		struct buf dotgit = BUF_INIT;
		int found;

		buf_addf(&dotgit, "%s/.git", strcmp(up.buf, "/") ? up.buf : "");
		found = access(dotgit.buf, F_OK) == 0;
		buf_release(&dotgit);
		if (found) {
			buf_adds(out, up.buf);
			goto done;
		}
		if (strcmp(up.buf, "/") == 0)
			break;
	}
	buf_adds(out, dir.buf);
done:
	buf_release(&dir);
	buf_release(&up);
}

static int
remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int
path_remove_tree(const char *path)
{
	if (access(path, F_OK) != 0)
		return 0;
	return nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int
path_resolves_outside(const char *root, const char *rel, struct buf *resolved)
{
	struct buf full = BUF_INIT;
	char *real_root = realpath(root, NULL), *real = NULL;
	int rc = 0;

	if (real_root == NULL)
		return -1;
	buf_addf(&full, "%s/%s", real_root, rel);
	real = realpath(full.buf, NULL);
	if (real != NULL) {
		size_t n = strlen(real_root);

		if (strncmp(real, real_root, n) != 0 ||
		    (real[n] != '/' && real[n] != '\0')) {
			buf_reset(resolved);
			buf_adds(resolved, real);
			rc = 1;
		}
	}
	buf_release(&full);
	free(real_root);
	free(real);
	return rc;
}

int
path_ledger_git_dir(const char *ledger_path, struct buf *out)
{
	struct buf dir = BUF_INIT, root = BUF_INIT;
	int rc;

	buf_reset(out);
	path_add_absolute(&dir, ledger_path);
	cut_last(&dir);
	if (resolve(&dir) == 0 && strcmp(last_name(&dir), "daicho") == 0) {
		cut_last(&dir);
		if (is_git_dir(dir.buf)) {
			buf_adds(out, dir.buf);
			rc = 0;
			goto done;
		}
	}
	path_project_root(ledger_path, &root);
	rc = common_dir_upward(root.buf, out);
done:
	buf_release(&dir);
	buf_release(&root);
	return rc;
}

int
path_main_work_tree(const char *start, struct buf *out)
{
	struct buf common = BUF_INIT;
	int rc = 1;

	if (path_git_common_dir(start, &common) == 0 && common.len > 5 &&
	    strcmp(common.buf + common.len - 5, "/.git") == 0) {
		buf_add(out, common.buf, common.len - 5);
		rc = 0;
	}
	buf_release(&common);
	return rc;
}

void
path_add_sibling_program(struct buf *out, const char *name,
    const char *env_name)
{
	const char *env = getenv(env_name);
	size_t start = out->len;
	char self[PATH_MAX];
	ssize_t n;

	if (env != NULL && *env != '\0') {
		buf_adds(out, env);
		return;
	}
	/* Not known: a bare name, which execv() runs from nowhere. */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || memchr(self, '/', (size_t)n) == NULL) {
		buf_adds(out, name);
		return;
	}
	self[n] = '\0';
	strrchr(self, '/')[1] = '\0';
	/*
	 * Where 'make install' puts helpers, PREFIX/libexec/daicho beside
	 * PREFIX/bin, first: a helper an older install left beside daicho
	 * must not shadow it. Else beside it (a build tree; a helper finding
	 * another).
	 */
	buf_addf(out, "%s../libexec/daicho/%s", self, name);
	if (access(out->buf + start, X_OK) == 0)
		return;
	out->len = start;
	out->buf[start] = '\0';
	buf_addf(out, "%s%s", self, name);
}

void
path_add_user_dir(struct buf *out, const char *variable, const char *rel)
{
	const char *set = variable ? getenv(variable) : NULL;
	const char *home = getenv("HOME");

	if (set && *set)
		buf_adds(out, set);
	else
		buf_addf(out, "%s/%s", home ? home : ".", rel);
}

void
path_trace_line(const char *variable, const char *line, size_t len)
{
	const char *path = getenv(variable);
	int fd;

	if (path == NULL || *path == '\0')
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		(void)!write(fd, line, len);
		close(fd);
	}
}
