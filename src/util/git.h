/*
 * The few questions daicho asks git, answered by running git itself.
 */
#ifndef DAICHO_GIT_H
#define DAICHO_GIT_H

#include "util/buf.h"

/*
 * Resolve rev to the full hash of a commit in the repository of the
 * current directory. Returns 0 with the hash in hash; 1 when rev names no
 * commit; -1 when git cannot be run or this is not a repository (why says
 * which).
 */
int git_resolve_commit(const char *rev, struct buf *hash, struct buf *why);

#endif
