/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for util/path: the git common directory (found without
 * running git), searching upward, making parent directories, absolute
 * paths and the project root of a ledger.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/path.h"

struct fixture {
	char dir[PATH_MAX]; /* resolved temp directory */
	char cwd[PATH_MAX]; /* to come back to */
};

static int
remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/daicho-test-path-XXXXXX";

	if (f == NULL || mkdtemp(tmpl) == NULL || realpath(tmpl, f->dir) == NULL ||
	    getcwd(f->cwd, sizeof(f->cwd)) == NULL)
		return -1;
	unsetenv("GIT_DIR");
	unsetenv("GIT_COMMON_DIR");
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	if (chdir(f->cwd) != 0)
		return -1;
	nftw(f->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	unsetenv("GIT_DIR");
	unsetenv("GIT_COMMON_DIR");
	return 0;
}

/* Run a shell command in f->dir; it must succeed. */
static void
sh(const struct fixture *f, const char *fmt, ...)
{
	char cmd[5 * PATH_MAX], inner[3 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(inner, sizeof(inner), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd),
	    "cd '%s' && ( %s ) >/dev/null 2>&1", f->dir, inner);
	if (system(cmd) != 0)
		fail_msg("command failed: %s", inner);
}

static char *
join(const struct fixture *f, const char *rel)
{
	static char buf[4][PATH_MAX + 256];
	static int next;
	char *out = buf[next++ % 4];

	snprintf(out, sizeof(buf[0]), "%s/%s", f->dir, rel);
	return out;
}

static void
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* path_git_common_dir */

static void
test_common_dir_not_repo(void **state)
{
	struct fixture *f = *state;
	struct buf out = BUF_INIT;

	sh(f, "mkdir -p plain/sub");
	assert_int_equal(path_git_common_dir(f->dir, &out), 1);
	assert_int_equal(path_git_common_dir(join(f, "plain/sub"), &out), 1);
	assert_int_equal(path_git_common_dir(join(f, "does/not/exist"), &out), 1);
	buf_release(&out);
}

static void
test_common_dir_repo(void **state)
{
	struct fixture *f = *state;
	struct buf out = BUF_INIT;

	sh(f, "git init -q repo && mkdir -p repo/a/b");
	assert_int_equal(path_git_common_dir(join(f, "repo"), &out), 0);
	assert_string_equal(out.buf, join(f, "repo/.git"));
	buf_reset(&out);
	assert_int_equal(path_git_common_dir(join(f, "repo/a/b"), &out), 0);
	assert_string_equal(out.buf, join(f, "repo/.git"));
	buf_reset(&out);
	/* A start that is not resolved yet: "..", "." and a trailing slash. */
	assert_int_equal(path_git_common_dir(join(f, "repo/a/../a/./b/"), &out),
	    0);
	assert_string_equal(out.buf, join(f, "repo/.git"));
	buf_release(&out);
}

static void
test_common_dir_through_symlink(void **state)
{
	struct fixture *f = *state;
	struct buf out = BUF_INIT;

	sh(f, "git init -q repo && mkdir -p repo/a && ln -s repo/a link");
	assert_int_equal(path_git_common_dir(join(f, "link"), &out), 0);
	assert_string_equal(out.buf, join(f, "repo/.git"));
	buf_release(&out);
}

static void
test_common_dir_relative_start(void **state)
{
	struct fixture *f = *state;
	struct buf out = BUF_INIT;

	sh(f, "git init -q repo && mkdir -p repo/a");
	assert_int_equal(chdir(join(f, "repo")), 0);
	assert_int_equal(path_git_common_dir("a", &out), 0);
	assert_string_equal(out.buf, join(f, "repo/.git"));
	buf_reset(&out);
	assert_int_equal(path_git_common_dir(".", &out), 0);
	assert_string_equal(out.buf, join(f, "repo/.git"));
	buf_release(&out);
}

static void
test_common_dir_worktree(void **state)
{
	struct fixture *f = *state;
	struct buf out = BUF_INIT, main_dir = BUF_INIT;

	sh(f, "git init -q repo && cd repo && "
	      "git -c user.name=t -c user.email=t@t commit -q --allow-empty -m i "
	      "&& git worktree add -q ../wt && mkdir -p ../wt/deep/er");
	assert_int_equal(path_git_common_dir(join(f, "repo"), &main_dir), 0);
	assert_string_equal(main_dir.buf, join(f, "repo/.git"));
	assert_int_equal(path_git_common_dir(join(f, "wt"), &out), 0);
	assert_string_equal(out.buf, main_dir.buf);
	buf_reset(&out);
	assert_int_equal(path_git_common_dir(join(f, "wt/deep/er"), &out), 0);
	assert_string_equal(out.buf, main_dir.buf);
	buf_release(&out);
	buf_release(&main_dir);
}

static void
test_common_dir_agrees_with_git(void **state)
{
	struct fixture *f = *state;
	struct buf out = BUF_INIT;
	char cmd[3 * PATH_MAX], want[PATH_MAX] = "";
	FILE *p;

	sh(f, "git init -q repo && cd repo && "
	      "git -c user.name=t -c user.email=t@t commit -q --allow-empty -m i "
	      "&& git worktree add -q ../wt2 && mkdir -p ../wt2/x");
	snprintf(cmd, sizeof(cmd),
	    "cd '%s' && git rev-parse --path-format=absolute --git-common-dir",
	    join(f, "wt2/x"));
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(want, sizeof(want), p));
	pclose(p);
	want[strcspn(want, "\n")] = '\0';
	{
		char *real = realpath(want, NULL);

		assert_non_null(real);
		assert_int_equal(path_git_common_dir(join(f, "wt2/x"), &out), 0);
		assert_string_equal(out.buf, real);
		free(real);
	}
	buf_release(&out);
}

static void
test_common_dir_gitdir_file(void **state)
{
	struct fixture *f = *state;
	struct buf out = BUF_INIT;

	/* A .git file with a relative gitdir (as submodules have). */
	sh(f, "mkdir -p store/real.git proj/sub");
	write_file(join(f, "proj/.git"), "gitdir: ../store/real.git\n");
	assert_int_equal(path_git_common_dir(join(f, "proj/sub"), &out), 0);
	assert_string_equal(out.buf, join(f, "store/real.git"));
	buf_reset(&out);

	/* An absolute gitdir, no trailing newline. */
	sh(f, "mkdir -p proj2");
	{
		char text[PATH_MAX + 32];

		snprintf(text, sizeof(text), "gitdir: %s", join(f, "store/real.git"));
		write_file(join(f, "proj2/.git"), text);
	}
	assert_int_equal(path_git_common_dir(join(f, "proj2"), &out), 0);
	assert_string_equal(out.buf, join(f, "store/real.git"));
	buf_reset(&out);

	/* A gitdir with a commondir file pointing further. */
	sh(f, "mkdir -p main.git/worktrees/w proj3");
	write_file(join(f, "main.git/worktrees/w/commondir"), "../..\n");
	write_file(join(f, "proj3/.git"), "gitdir: ../main.git/worktrees/w\n");
	assert_int_equal(path_git_common_dir(join(f, "proj3"), &out), 0);
	assert_string_equal(out.buf, join(f, "main.git"));
	buf_release(&out);
}

static void
test_common_dir_env(void **state)
{
	struct fixture *f = *state;
	struct buf out = BUF_INIT;

	sh(f, "git init -q repo && mkdir -p elsewhere");
	setenv("GIT_DIR", join(f, "repo/.git"), 1);
	assert_int_equal(path_git_common_dir(join(f, "elsewhere"), &out), 0);
	assert_string_equal(out.buf, join(f, "repo/.git"));
	buf_reset(&out);
	unsetenv("GIT_DIR");

	/* GIT_COMMON_DIR wins over everything. */
	sh(f, "git init -q other");
	setenv("GIT_COMMON_DIR", join(f, "other/.git"), 1);
	assert_int_equal(path_git_common_dir(join(f, "repo"), &out), 0);
	assert_string_equal(out.buf, join(f, "other/.git"));
	unsetenv("GIT_COMMON_DIR");
	buf_release(&out);
}

/* path_find_upward */

static void
test_find_upward(void **state)
{
	struct fixture *f = *state;
	struct buf out = BUF_INIT;

	sh(f, "mkdir -p top/.daicho top/a/b/c && touch top/.daicho/ledger.db");
	assert_int_equal(path_find_upward(join(f, "top/a/b/c"), ".daicho/ledger.db",
			     &out),
	    0);
	assert_string_equal(out.buf, join(f, "top/.daicho/ledger.db"));
	buf_reset(&out);
	/* In start itself. */
	assert_int_equal(path_find_upward(join(f, "top"), ".daicho/ledger.db",
			     &out),
	    0);
	assert_string_equal(out.buf, join(f, "top/.daicho/ledger.db"));
	buf_reset(&out);
	/* The nearest wins. */
	sh(f, "mkdir -p top/a/.daicho && touch top/a/.daicho/ledger.db");
	assert_int_equal(path_find_upward(join(f, "top/a/b/c"), ".daicho/ledger.db",
			     &out),
	    0);
	assert_string_equal(out.buf, join(f, "top/a/.daicho/ledger.db"));
	buf_reset(&out);
	/* None. */
	assert_int_equal(path_find_upward(join(f, "top/a/b/c"),
			     "no-such-daicho-file.db", &out),
	    1);
	buf_reset(&out);
	/* A missing start: nothing found. */
	assert_int_equal(path_find_upward(join(f, "top/zzz"), ".daicho/ledger.db",
			     &out),
	    1);
	buf_release(&out);
}

/* path_make_parent_dirs */

static void
test_make_parent_dirs(void **state)
{
	struct fixture *f = *state;
	struct stat st;

	assert_int_equal(path_make_parent_dirs(join(f, "a/b/c/file.db"), 0755), 0);
	assert_int_equal(stat(join(f, "a/b/c"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* The file itself is not created. */
	assert_int_equal(stat(join(f, "a/b/c/file.db"), &st), -1);
	/* Existing directories are fine. */
	assert_int_equal(path_make_parent_dirs(join(f, "a/b/c/file.db"), 0755), 0);
	assert_int_equal(path_make_parent_dirs(join(f, "a/other"), 0755), 0);
	/* A trailing slash: the whole path is the directory part. */
	assert_int_equal(path_make_parent_dirs(join(f, "t/u/"), 0755), 0);
	assert_int_equal(stat(join(f, "t/u"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* Doubled slashes. */
	assert_int_equal(path_make_parent_dirs(join(f, "d//e//f"), 0755), 0);
	assert_int_equal(stat(join(f, "d/e"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
}

static void
test_make_parent_dirs_mode(void **state)
{
	struct fixture *f = *state;
	struct stat st;
	mode_t old = umask(022);

	assert_int_equal(path_make_parent_dirs(join(f, "m/n/x"), 0700), 0);
	umask(old);
	assert_int_equal(stat(join(f, "m"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(stat(join(f, "m/n"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
}

static void
test_make_parent_dirs_relative(void **state)
{
	struct fixture *f = *state;
	struct stat st;

	assert_int_equal(chdir(f->dir), 0);
	assert_int_equal(path_make_parent_dirs("rel/dir/file", 0755), 0);
	assert_int_equal(stat(join(f, "rel/dir"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* No directory part: nothing to do. */
	assert_int_equal(path_make_parent_dirs("justafile", 0755), 0);
	assert_int_equal(stat(join(f, "justafile"), &st), -1);
	assert_int_equal(path_make_parent_dirs("/toplevel-file", 0755), 0);
}

static void
test_make_parent_dirs_blocked(void **state)
{
	struct fixture *f = *state;

	write_file(join(f, "file"), "x");
	errno = 0;
	assert_int_equal(path_make_parent_dirs(join(f, "file/sub/x.db"), 0755), -1);
	assert_int_equal(errno, ENOTDIR);
	errno = 0;
	assert_int_equal(path_make_parent_dirs(join(f, "file/x.db"), 0755), -1);
	assert_int_equal(errno, ENOTDIR);
}

/* path_add_absolute */

static void
test_add_absolute(void **state)
{
	struct fixture *f = *state;
	struct buf out = BUF_INIT;
	char want[2 * PATH_MAX];

	assert_int_equal(chdir(f->dir), 0);
	path_add_absolute(&out, "x/y.db");
	snprintf(want, sizeof(want), "%s/x/y.db", f->dir);
	assert_string_equal(out.buf, want);
	buf_reset(&out);
	path_add_absolute(&out, "/abs/p");
	assert_string_equal(out.buf, "/abs/p");
	/* It appends. */
	buf_reset(&out);
	buf_adds(&out, "pre:");
	path_add_absolute(&out, "/q");
	assert_string_equal(out.buf, "pre:/q");
	/* Not resolved: .. stays. */
	buf_reset(&out);
	path_add_absolute(&out, "../z");
	snprintf(want, sizeof(want), "%s/../z", f->dir);
	assert_string_equal(out.buf, want);
	buf_release(&out);
}

/* path_add_resolved_dir */

static void
test_add_resolved_dir(void **state)
{
	struct fixture *f = *state;
	struct buf out = BUF_INIT;
	char want[2 * PATH_MAX];

	sh(f, "mkdir real && ln -s real link && ln -s nowhere real/last");
	/* The directory is resolved, the last component kept as it is. */
	assert_int_equal(path_add_resolved_dir(&out, join(f, "link/last")), 0);
	snprintf(want, sizeof(want), "%s/real/last", f->dir);
	assert_string_equal(out.buf, want);
	/* Relative: against the cwd. */
	assert_int_equal(chdir(f->dir), 0);
	buf_reset(&out);
	assert_int_equal(path_add_resolved_dir(&out, "link/x.db"), 0);
	snprintf(want, sizeof(want), "%s/real/x.db", f->dir);
	assert_string_equal(out.buf, want);
	buf_reset(&out);
	assert_int_equal(path_add_resolved_dir(&out, "y.db"), 0);
	snprintf(want, sizeof(want), "%s/y.db", f->dir);
	assert_string_equal(out.buf, want);
	buf_reset(&out);
	assert_int_equal(path_add_resolved_dir(&out, "/z.db"), 0);
	assert_string_equal(out.buf, "/z.db");
	/* A directory that does not exist. */
	buf_reset(&out);
	assert_int_equal(path_add_resolved_dir(&out, "none/z.db"), -1);
	assert_int_equal(errno, ENOENT);
	buf_release(&out);
}

/* path_project_root */

static void
test_project_root(void **state)
{
	struct fixture *f = *state;
	struct buf out = BUF_INIT;

	sh(f, "git init -q repo && mkdir -p repo/.git/daicho plain/.daicho "
	      "repo/sub/.daicho other/x");
	path_project_root(join(f, "repo/.git/daicho/ledger.db"), &out);
	assert_string_equal(out.buf, join(f, "repo"));
	buf_reset(&out);
	path_project_root(join(f, "plain/.daicho/ledger.db"), &out);
	assert_string_equal(out.buf, join(f, "plain"));
	buf_reset(&out);
	path_project_root(join(f, "repo/sub/.daicho/ledger.db"), &out);
	assert_string_equal(out.buf, join(f, "repo/sub"));
	buf_reset(&out);
	/* Elsewhere: the git work tree containing it, else its directory. */
	path_project_root(join(f, "other/x/my.db"), &out);
	assert_string_equal(out.buf, join(f, "other/x"));
	buf_release(&out);
}

static void
test_project_root_worktree_ledger(void **state)
{
	struct fixture *f = *state;
	struct buf out = BUF_INIT;

	/* The ledger in the common dir belongs to the main work tree. */
	sh(f, "git init -q repo && cd repo && "
	      "git -c user.name=t -c user.email=t@t commit -q --allow-empty -m i "
	      "&& git worktree add -q ../wt && mkdir -p .git/daicho db");
	path_project_root(join(f, "repo/.git/daicho/ledger.db"), &out);
	assert_string_equal(out.buf, join(f, "repo"));
	buf_reset(&out);
	path_project_root(join(f, "repo/db/l.db"), &out);
	assert_string_equal(out.buf, join(f, "repo"));
	buf_release(&out);
}

int
main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_common_dir_not_repo),
		T(test_common_dir_repo),
		T(test_common_dir_through_symlink),
		T(test_common_dir_relative_start),
		T(test_common_dir_worktree),
		T(test_common_dir_agrees_with_git),
		T(test_common_dir_gitdir_file),
		T(test_common_dir_env),
		T(test_find_upward),
		T(test_make_parent_dirs),
		T(test_make_parent_dirs_mode),
		T(test_make_parent_dirs_relative),
		T(test_make_parent_dirs_blocked),
		T(test_add_absolute),
		T(test_add_resolved_dir),
		T(test_project_root),
		T(test_project_root_worktree_ledger),
	};
#undef T

	return cmocka_run_group_tests_name("path", tests, NULL, NULL);
}
