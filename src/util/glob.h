/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Path globs, as used by task "touches" and reservations.
 *
 * Syntax (matched against paths relative to the repository root, '/'
 * separated):
 *   *      any run of characters within one path segment (never '/')
 *   **     any run of characters, '/' included; "**" followed by '/' also
 *          matches zero directories (a, **, b joined by slashes matches
 *          "a/b")
 *   ?      one character other than '/'
 *   [..]   one character of a class: [abc], [a-z], negated [!a] or [^a];
 *          a class never matches '/'
 *   \c     the character c itself
 * A glob also covers everything below what it names: "src" and "src/"
 * cover "src/main.c", as a reservation of a directory should.
 *
 * Overlap: two globs overlap when some path is covered by both. The test is
 * exact for this syntax (a product automaton over the two patterns), so it
 * errs neither way; callers treat an invalid glob as overlapping everything.
 */
#ifndef DAICHO_GLOB_H
#define DAICHO_GLOB_H

#include <stdbool.h>

#include "util/buf.h"

/*
 * Check that pattern is a usable glob: non-empty, relative, no "." or ".."
 * segment, no empty segment, classes closed, no trailing backslash.
 * Returns 0, or -1 with the reason appended to why.
 */
int glob_check(const char *pattern, struct buf *why);

/* Whether some path is covered by both a and b. Invalid globs overlap. */
bool glob_overlap(const char *a, const char *b);

/* Whether pattern covers the literal path (or a directory above it). */
bool glob_covers(const char *pattern, const char *path);

#endif
