/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The git operations of landing (core/land.c): merging without a work
 * tree, making commits, moving a branch by compare-and-swap, and keeping a
 * person's checked-out work tree in step with a branch that moved.
 *
 * Every command runs as `git --no-replace-objects -c core.hooksPath=/dev/null
 * -c core.fsmonitor=false -C REPO ...`: no replace ref changes what a
 * commit holds, no hook of the repository's runs, and no fsmonitor is
 * started. Commits daicho makes name daicho as their committer (and author,
 * for merges) unless the environment says otherwise (GIT_COMMITTER_NAME).
 */
#ifndef DAICHO_GITMERGE_H
#define DAICHO_GITMERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/strlist.h"

/*
 * Merge theirs into ours without touching any index or work tree (git
 * merge-tree --write-tree). Returns 0 with the merged tree's hash in tree;
 * 1 when the merge conflicts, with the conflicting paths appended to
 * conflicts; -1 when git fails (why says).
 */
int gitm_merge_tree(const char *repo, const char *ours, const char *theirs,
    struct buf *tree, struct strlist *conflicts, struct buf *why);

/*
 * Make a commit of tree with parents (in order) and message: its hash in
 * out. Returns 0, or -1 (why says).
 */
int gitm_commit_tree(const char *repo, const char *tree,
    const struct strlist *parents, const char *message, struct buf *out,
    struct buf *why);

/* The tree of commit into out. Returns 0, or -1 when it names none. */
int gitm_tree_of(const char *repo, const char *commit, struct buf *out);

/*
 * Move ref (a full name: refs/heads/main) from old to new, atomically, and
 * only if it is still at old (git update-ref REF NEW OLD). Returns 0; 1
 * when the ref is no longer at old (someone moved it); -1 when git fails
 * otherwise (why says).
 */
int gitm_update_ref(const char *repo, const char *ref, const char *new_hash,
    const char *old_hash, const char *reason, struct buf *why);

/*
 * The paths that differ between the trees of a and b, appended to paths.
 * Returns 0, or -1 (why says).
 */
int gitm_diff_paths(const char *repo, const char *a, const char *b,
    struct strlist *paths, struct buf *why);

/*
 * The paths of the work tree at worktree that hold anything not committed
 * at its HEAD: staged or unstaged changes, and files git does not track
 * (ignored ones too: a landing must not overwrite them either; a directory
 * of them as one entry ending in '/'), appended to paths. Returns 0, or
 * -1 (why says).
 */
int gitm_uncommitted_paths(const char *worktree, struct strlist *paths,
    struct buf *why);

/*
 * Of paths, those whose content in the index or the files of the work tree
 * at worktree differs from commit's, appended to out. Returns 0, or -1.
 */
int gitm_differ_from(const char *worktree, const char *commit,
    const struct strlist *paths, struct strlist *out, struct buf *why);

/*
 * Bring the index and files of the work tree at worktree from old to new
 * (git read-tree -m -u OLD NEW), keeping its uncommitted changes to paths
 * the two do not differ in. git refuses, and changes nothing, rather than
 * overwrite a change or an untracked file. With refresh, the index's stat
 * information is brought up to date first (git status just did, else).
 * Returns 0, or -1 (why says).
 */
int gitm_follow(const char *worktree, const char *old_hash,
    const char *new_hash, bool refresh, struct buf *why);

/*
 * Check commit out, detached and forced, in the work tree at worktree;
 * with scrub, also remove every file it does not track (git clean -ffdx):
 * a checkout that holds exactly what is committed. Without scrub, for a
 * checkout known to hold nothing else. Returns 0, or -1 (why says).
 */
int gitm_checkout_clean(const char *worktree, const char *commit, bool scrub,
    struct buf *why);

/*
 * The non-merge commits of commit that base lacks, oldest first, appended
 * to out. Returns 0, or -1 (why says).
 */
int gitm_own_commits(const char *repo, const char *commit, const char *base,
    struct strlist *out, struct buf *why);

/*
 * Replay commit (one parent) onto the work tree at worktree, which has
 * HEAD detached: git cherry-pick. Returns 0 with HEAD the new commit; 1 on
 * a conflict, with the conflicting paths appended to conflicts and the
 * pick aborted; -1 when git fails otherwise (why says).
 */
int gitm_cherry_pick(const char *worktree, const char *commit,
    struct strlist *conflicts, struct buf *why);

/*
 * The commits of tip that base lacks whose message holds a line starting
 * with trailer (e.g. "Daicho-Land: #12 "): their hashes appended to out,
 * newest first. Returns 0, or -1 (why says).
 */
int gitm_commits_with_line(const char *repo, const char *base,
    const char *tip, const char *trailer, struct strlist *out,
    struct buf *why);

/*
 * The commits of tip that none of excluded holds (git rev-list TIP
 * ^EXCLUDED...; excluded may be NULL), appended to out. Returns 0, or -1
 * (why says).
 */
int gitm_commits_between(const char *repo, const char *tip,
    const struct strlist *excluded, struct strlist *out, struct buf *why);

/*
 * The stable patch ids (git patch-id --stable: the change, whatever its
 * commit) of the non-merge commits of tip that none of excluded holds,
 * appended to out once each; a commit that changes nothing has none.
 * Returns 0, or -1 (why says).
 */
int gitm_patch_ids(const char *repo, const char *tip,
    const struct strlist *excluded, struct strlist *out, struct buf *why);

/*
 * Resolve rev to the full hash of a commit in repo, into out. Returns 0,
 * or -1 when it names none.
 */
int gitm_resolve(const char *repo, const char *rev, struct buf *out);

/*
 * Add the line trailer ("Token: value") to the message of HEAD in the work
 * tree at worktree (git commit --amend --trailer), HEAD's new hash into
 * head. Returns 0, or -1 (why says).
 */
int gitm_amend_trailer(const char *worktree, const char *trailer,
    struct buf *head, struct buf *why);

/*
 * Push commit to branch of remote, never forcing (git push REMOTE
 * COMMIT:refs/heads/BRANCH, no pre-push hook), ended after timeout_ms.
 * Returns 0; 1 when the remote refused it because its branch moved (not a
 * fast-forward); -1 when the push failed otherwise (why says).
 */
int gitm_push(const char *repo, const char *remote, const char *commit,
    const char *branch, int64_t timeout_ms, struct buf *why);

/*
 * The paths commit changes since it forked from base (git diff
 * BASE...COMMIT: against their merge base), appended to paths. Returns 0,
 * or -1 (why says).
 */
int gitm_changed_since_fork(const char *repo, const char *base,
    const char *commit, struct strlist *paths, struct buf *why);

#endif
