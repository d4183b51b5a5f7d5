/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Reading a git reference from the files git keeps it in, without running
 * git: what a claim records, where starting a process would cost more than
 * the claim itself.
 */
#ifndef DAICHO_GITREF_H
#define DAICHO_GITREF_H

#include "util/buf.h"

/*
 * The commit that ref ("HEAD", "refs/heads/main") of git_dir (a
 * repository's common directory, which holds the main work tree's HEAD)
 * points at, following symbolic refs: a loose ref file or its line in
 * packed-refs. Returns 0 with the 40 (or 64) hex digits in hash; -1 when
 * it cannot be read this way (no such ref, an unborn branch, a symbolic
 * ref more than five deep, a reference storage other than files).
 */
int gitref_read(const char *git_dir, const char *ref, struct buf *hash);

/*
 * Whether HEAD of git_dir names a branch (0) or a commit (1, detached);
 * -1 when it cannot be read.
 */
int gitref_head_is_detached(const char *git_dir);

/*
 * The branch HEAD of git_dir names ("main" for "ref: refs/heads/main"),
 * appended to branch. Returns 0; -1 when HEAD is detached or unreadable.
 */
int gitref_head_branch(const char *git_dir, struct buf *branch);

#endif
