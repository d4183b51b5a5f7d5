/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The few questions daicho asks git, answered by running git itself.
 */
#ifndef DAICHO_GIT_H
#define DAICHO_GIT_H

#include <stdbool.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/strlist.h"

/*
 * Resolve rev to the full hash of a commit in the repository of the
 * current directory. Returns 0 with the hash in hash; 1 when rev names no
 * commit; -1 when git cannot be run or this is not a repository (why says
 * which).
 */
int git_resolve_commit(const char *rev, struct buf *hash, struct buf *why);

/*
 * Add a detached worktree at path checked out at commit, in the repository
 * whose work tree or git directory is repo. Returns 0, or -1 (why says).
 */
int git_worktree_add(const char *repo, const char *path, const char *commit,
    struct buf *why);

/*
 * Resolve rev in repo to a full hash into out. Returns 0, or -1 when it
 * names nothing.
 */
int git_rev_parse(const char *repo, const char *rev, struct buf *out);

/*
 * Add a worktree at path on branch, creating the branch at base when it
 * does not exist yet. Returns 0, or -1 (why says).
 */
int git_worktree_add_branch(const char *repo, const char *path,
    const char *branch, const char *base, struct buf *why);

/* Delete branch (forcefully). */
void git_branch_delete(const char *repo, const char *branch);

/* Remove the worktree at path (forcefully), with its record in repo. */
void git_worktree_remove(const char *repo, const char *path);

/*
 * Forget worktrees whose directories are gone. Not after every removal: a
 * prune can delete the half-made record of another process's concurrent
 * `worktree add`, failing its checkout.
 */
void git_worktree_prune(const char *repo);

/*
 * Whether commit exists in repo and differs from its first parent (a root
 * commit: whether its tree is non-empty). Returns 1 it does, 0 it does not,
 * -1 when commit does not exist or git fails (why says which).
 */
int git_commit_has_changes(const char *repo, const char *commit,
    struct buf *why);

/*
 * Whether ancestor is commit or one of its ancestors, in repo. Returns 1
 * it is, 0 it is not, -1 when git fails (a name that is no commit, say;
 * why says).
 */
int git_is_ancestor(const char *repo, const char *ancestor, const char *commit,
    struct buf *why);

/*
 * A branch, remote-tracking branch or tag of repo whose history holds
 * commit: 0 with its full name in ref; 1 when none does (the commit is on
 * no branch, and git may collect it); -1 when git fails (why says).
 */
int git_ref_containing(const char *repo, const char *commit, struct buf *ref,
    struct buf *why);

/*
 * The paths whose content or mode differs between the trees of base and
 * commit (git diff base commit; a rename as a deletion and an addition),
 * appended to paths. Returns 0, or -1 when git fails (why says).
 */
int git_changed_paths(const char *repo, const char *base, const char *commit,
    struct strlist *paths, struct buf *why);

/* As git_changed_paths(), but only the paths commit adds (not in base). */
int git_added_paths(const char *repo, const char *base, const char *commit,
    struct strlist *paths, struct buf *why);

/*
 * Every directory of commit's tree (git ls-tree -r -d), appended to dirs.
 * Returns 0, or -1 when git fails (why says).
 */
int git_tree_dirs(const char *repo, const char *commit, struct strlist *dirs,
    struct buf *why);

/*
 * How many commits commit holds that base does not, that are no merge,
 * and that none of the commits in excluded holds (git rev-list
 * --no-merges --count commit ^base ^excluded...). Returns the count, or -1
 * when git fails (why says).
 */
long long git_count_own_commits(const char *repo, const char *commit,
    const char *base, const struct strlist *excluded, struct buf *why);

/*
 * The tracked paths of the checkout at worktree whose content or mode
 * differs from its index (git status), appended to paths. Returns 0, or -1
 * when git fails (why says).
 */
int git_modified_paths(const char *worktree, struct strlist *paths,
    struct buf *why);

/*
 * Whether the work tree at path has no uncommitted change, untracked
 * files included (ignored files aside). Returns 1 it is clean, 0 it is
 * not, -1 when git cannot tell (not a work tree, say).
 */
int git_worktree_is_clean(const char *path);

/*
 * The linked worktrees of repo that have a branch checked out under
 * prefix (e.g. "refs/heads/daicho/"): their paths appended to paths and
 * their branch names past prefix to names, in step. Returns 0, or -1 when
 * git fails.
 */
int git_worktrees_on(const char *repo, const char *prefix,
    struct strlist *paths, struct strlist *names);

/*
 * Make git ignore entry (a line of .gitignore syntax, e.g.
 * "/.daicho-worktrees/") in the repository at repo, through its
 * info/exclude (local: nothing committed changes). Does nothing when the
 * line is there already. Returns 0, or -1 (why says).
 */
int git_exclude(const char *repo, const char *entry, struct buf *why);

/*
 * git fetch --no-tags remote refspec in repo, run directly (no shell),
 * with no FETCH_HEAD written (parallel sweeps fetch at once), no password
 * prompt (GIT_TERMINAL_PROMPT=0) and ended after timeout_ms. remote and
 * refspec follow --end-of-options, so neither is read as an option; the
 * caller checks they are what it means (a hash, a remote's name).
 * Returns 0, or -1 with git's one-line reason in why.
 */
int git_fetch(const char *repo, const char *remote, const char *refspec,
    int64_t timeout_ms, struct buf *why);

/* Whether repo has a remote called remote with a URL to fetch from. */
int git_remote_exists(const char *repo, const char *remote);

/*
 * Make dir (a repository, or a directory of work trees) one of daicho's
 * own: every git command this process runs in it, or below it, runs
 * without the system's and the user's configuration, replace refs,
 * grafts, configuration a caller passed down, or a prompt (the judge's
 * repository and its checkouts: core/judge.h).
 */
void git_own_repository(const char *dir);

/*
 * The variables (NAME=VALUE, NULL-ended) git runs with in repo: the
 * hardened set inside one of daicho's own repositories, else NULL (the
 * caller's environment as it is).
 */
const char *const *git_environment(const char *repo);

/*
 * Run git's argv for repo (it names repo with -C) in git_environment(repo):
 * stdin from input_path (or /dev/null), stdout (and stderr, when
 * with_stderr) into out. Returns git's exit status, or -1 with errno.
 */
int git_capture(const char *repo, const char *const argv[],
    const char *input_path, bool with_stderr, struct buf *out);

/*
 * Run git -C repo with args (NULL-ended, at most 12), in
 * git_environment(repo); stdout and stderr into output (may be NULL).
 * Returns git's exit status, or -1 when it could not run.
 */
int git_command(const char *repo, const char *const *args, struct buf *output);

/* Whether repo has hash, and it is a commit. */
bool git_has_commit(const char *repo, const char *hash);

/*
 * The -c options every git command that talks to a remote runs with
 * (appended to argv): no hook, no fsmonitor, no ext:: transport, and the
 * person's own ssh command (their global core.sshCommand, else ssh), never
 * one the repository's configuration names.
 */
void git_add_remote_options(struct strlist *argv);

#endif
