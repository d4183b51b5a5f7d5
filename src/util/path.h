/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Paths and the file system: finding a repository's shared git directory
 * without running git, and creating directories.
 */
#ifndef DAICHO_PATH_H
#define DAICHO_PATH_H

#include <sys/types.h>

#include "util/buf.h"

/*
 * Find the git common directory (shared by every worktree) for the
 * repository containing directory start, honouring $GIT_COMMON_DIR and
 * $GIT_DIR as git does. Reads .git, gitdir: and commondir files the way git
 * lays them out, so no process is started. Returns 0 with the absolute,
 * resolved path in out; 1 when start is not inside a git work tree.
 */
int path_git_common_dir(const char *start, struct buf *out);

/*
 * The main work tree of the repository containing directory start (the
 * parent of its git common directory), resolved, appended to out. Returns
 * 0, or 1 when there is none (no repository, or a bare one).
 */
int path_main_work_tree(const char *start, struct buf *out);

/*
 * Find rel (e.g. ".daicho/ledger.db") in start or the nearest directory
 * above it. Returns 0 with the path in out, 1 when none exists.
 */
int path_find_upward(const char *start, const char *rel, struct buf *out);

/*
 * The directory a ledger's work is checked in: for <repo>/.git/daicho/
 * ledger.db the repository's main work tree; for <dir>/.daicho/ledger.db,
 * dir; otherwise the git work tree containing the ledger's directory, else
 * that directory itself. out receives an absolute path.
 */
void path_project_root(const char *ledger_path, struct buf *out);

/*
 * The git common directory of the repository a ledger belongs to: for
 * <git dir>/daicho/ledger.db that git dir, else the one of the project
 * root (path_project_root()). The environment (GIT_DIR, GIT_COMMON_DIR) is
 * not consulted: the answer must not depend on who asks. Returns 0 with
 * the resolved path in out; 1 when the ledger is in no git repository.
 */
int path_ledger_git_dir(const char *ledger_path, struct buf *out);

/*
 * Whether rel, taken inside directory root, resolves (through symlinks) to
 * a place outside root. Returns 1 and the resolved path in resolved when it
 * does; 0 when it stays inside or does not exist (yet); -1 when root itself
 * cannot be resolved.
 */
int path_resolves_outside(const char *root, const char *rel,
    struct buf *resolved);

/* rm -rf path (never following symlinks). Returns 0, or -1 with errno. */
int path_remove_tree(const char *path);

/* mkdir -p for the directory part of file path. Returns 0, or -1/errno. */
int path_make_parent_dirs(const char *path, mode_t mode);

/*
 * Append path with its directory resolved (symbolic links and all) and its
 * last component as it is, so that only that one may still be a link.
 * Returns 0, or -1 with errno when the directory cannot be resolved.
 */
int path_add_resolved_dir(struct buf *out, const char *path);

/* Append the absolute form of path (relative to the cwd), not resolved. */
void path_add_absolute(struct buf *out, const char *path);

/*
 * Append a directory of the user's to out: $variable when it is set and
 * not empty (variable may be NULL: never), else $HOME/rel ("." for an
 * unset HOME), as programs that honour $XDG_-style overrides find theirs
 * ($CODEX_HOME, else ~/.codex).
 */
void path_add_user_dir(struct buf *out, const char *variable, const char *rel);

/*
 * The path of the helper program name of this one: $env_name when that is
 * set and not empty, else DIR/../libexec/daicho/name (DIR: this
 * executable's, /proc/self/exe), where 'make install' puts it (git's
 * exec-path pattern), when it is there, else DIR/name (a build tree, or a
 * helper finding another). Just name, which execv() does not search for,
 * when this executable cannot be found. Appended to out.
 */
void path_add_sibling_program(struct buf *out, const char *name,
    const char *env_name);

/*
 * When $variable names a file, append line (len bytes, its newline
 * included) to it in one write with O_APPEND, so that lines from many
 * processes never mix; else, or when it cannot be opened, nothing. For
 * the $DAICHO_TRACE_* files that tests and benchmarks read.
 */
void path_trace_line(const char *variable, const char *line, size_t len);

#endif
