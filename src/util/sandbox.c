/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/sandbox.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util/proc.h"

bool
sandbox_available(struct buf *why)
{
	static int known = -1; /* -1: not tried; 0: no; 1: yes */
	static struct buf said = BUF_INIT;

	if (known < 0) {
		const char *argv[] = { SANDBOX_BWRAP, "--unshare-all",
			"--die-with-parent", "--ro-bind", "/", "/", "--dev",
			"/dev", "--proc", "/proc", "--", "/bin/true", NULL };
		struct buf out = BUF_INIT;
		struct stat st;
		int status = stat(SANDBOX_BWRAP, &st) == 0 && S_ISREG(st.st_mode)
				 ? proc_capture_all(argv, &out) : -1;

		known = status == 0;
		if (status < 0) {
			buf_adds(&said, "bubblewrap is not installed (no "
			    SANDBOX_BWRAP "): apt-get install bubblewrap");
		} else if (status != 0) {
			/* bwrap's own first line says why (user namespaces off). */
			char *nl = strchr(out.buf ? out.buf : "", '\n');

			if (nl)
				*nl = '\0';
			buf_addf(&said, "bubblewrap cannot make a sandbox here (%s)",
			    out.len ? out.buf : "bwrap failed");
		}
		buf_release(&out);
	}
	if (!known && why)
		buf_add(why, said.buf, said.len);
	return known == 1;
}

/* Whether path can be hidden or bound: absolute, and not the root. */
static bool
usable(const char *path)
{
	return path && path[0] == '/' && path[1] != '\0';
}

/* Whether path is inside dir (or is dir). */
static bool
inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Hide path: an empty directory over a directory, /dev/null over a file. */
static void
hide(struct strlist *argv, const char *path)
{
	struct stat st;

	if (!usable(path) || stat(path, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		strlist_add(argv, "--tmpfs");
		strlist_add(argv, path);
	} else {
		strlist_add(argv, "--ro-bind");
		strlist_add(argv, "/dev/null");
		strlist_add(argv, path);
	}
}

/*
 * Hide again each hidden path inside base, but not one that holds keep
 * (the command's own directory), nor keep itself.
 */
static void
hide_inside(struct strlist *argv, const struct strlist *hidden,
    const char *base, const char *keep)
{
	for (size_t i = 0; hidden && i < hidden->count; i++) {
		const char *h = hidden->items[i];

		if (usable(h) && inside(h, base) && strcmp(h, base) != 0 &&
		    (keep == NULL || !inside(keep, h)))
			hide(argv, h);
	}
}

void
sandbox_argv(const struct sandbox *sb, const char *command,
    struct strlist *argv)
{
	/*
	 * No capability inside, whoever sweeps: a root sweep's check kept
	 * CAP_SYS_ADMIN, and with it mount(), which reached the host.
	 */
	static const char *const fixed[] = { SANDBOX_BWRAP, "--die-with-parent",
		"--new-session", "--unshare-all", "--cap-drop", "ALL",
		"--ro-bind", "/", "/", "--dev",
		"/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs",
		"/var/tmp", "--tmpfs", "/dev/shm", "--tmpfs", "/run", NULL };
	const struct strlist *hidden = sb->hidden;

	for (size_t i = 0; fixed[i]; i++)
		strlist_add(argv, fixed[i]);
	if (sb->network)
		strlist_add(argv, "--share-net");
	for (size_t i = 0; hidden && i < hidden->count; i++)
		hide(argv, hidden->items[i]);
	if (usable(sb->git_dir)) {
		strlist_add(argv, "--ro-bind");
		strlist_add(argv, sb->git_dir);
		strlist_add(argv, sb->git_dir);
		hide_inside(argv, hidden, sb->git_dir, NULL);
	}
	strlist_add(argv, "--bind");
	strlist_add(argv, sb->dir);
	strlist_add(argv, sb->dir);
	/*
	 * A bind shows the host's tree under it: what it holds of the hidden
	 * paths, and of the git directory (read-only), goes again.
	 */
	if (usable(sb->git_dir) && inside(sb->git_dir, sb->dir) &&
	    strcmp(sb->git_dir, sb->dir) != 0) {
		strlist_add(argv, "--ro-bind");
		strlist_add(argv, sb->git_dir);
		strlist_add(argv, sb->git_dir);
	}
	hide_inside(argv, hidden, sb->dir, sb->dir);
	/*
	 * The checkout's own .git (a work tree's "gitdir:" file) read-only:
	 * the command may not swap in a repository of its own, whose
	 * configuration git would obey when daicho looks at the checkout
	 * after it.
	 */
	{
		struct buf dot_git = BUF_INIT;
		struct stat st;

		buf_addf(&dot_git, "%s/.git", sb->dir);
		/* A file (a linked work tree's); a directory is the git
		 * directory itself, bound read-only above already. */
		if (lstat(dot_git.buf, &st) == 0 && S_ISREG(st.st_mode)) {
			strlist_add(argv, "--ro-bind");
			strlist_add(argv, dot_git.buf);
			strlist_add(argv, dot_git.buf);
		}
		buf_release(&dot_git);
	}
	strlist_add(argv, "--dir");
	strlist_add(argv, SANDBOX_HOME);
	strlist_add(argv, "--clearenv");
	strlist_add(argv, "--setenv");
	strlist_add(argv, "PATH");
	strlist_add(argv, SANDBOX_PATH);
	strlist_add(argv, "--setenv");
	strlist_add(argv, "HOME");
	strlist_add(argv, SANDBOX_HOME);
	strlist_add(argv, "--setenv");
	strlist_add(argv, "TMPDIR");
	strlist_add(argv, "/tmp");
	strlist_add(argv, "--setenv");
	strlist_add(argv, "LANG");
	strlist_add(argv, "C.UTF-8");
	for (size_t i = 0; sb->env && i < sb->env->count; i++) {
		const char *eq = strchr(sb->env->items[i], '=');
		char name[256];

		if (eq == NULL || (size_t)(eq - sb->env->items[i]) >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s",
		    (int)(eq - sb->env->items[i]), sb->env->items[i]);
		strlist_add(argv, "--setenv");
		strlist_add(argv, name);
		strlist_add(argv, eq + 1);
	}
	strlist_add(argv, "--chdir");
	strlist_add(argv, sb->dir);
	strlist_add(argv, "--");
	strlist_add(argv, "/bin/sh");
	strlist_add(argv, "-c");
	strlist_add(argv, command);
}
