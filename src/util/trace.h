/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * What a command did to the paths of one directory, seen by strace(1):
 * which paths it read, which it looked for and did not find, and which it
 * wrote. Run the command under trace_argv()'s prefix, then read what
 * strace wrote with trace_collect().
 *
 * strace runs outside any sandbox the command is in, and follows every
 * process it starts; each process writes a file of its own (-ff), with
 * every path hex-escaped (-xx) and every directory a path is relative to
 * named (-y). Only file system calls and process creation stop a process
 * (--seccomp-bpf). A process starts in the directory its parent was in
 * when it started it (clone results, translated out of the sandbox's PID
 * namespace), and follows its own chdir() and fchdir().
 */
#ifndef DAICHO_TRACE_H
#define DAICHO_TRACE_H

#include <stdbool.h>

#include "util/buf.h"
#include "util/strlist.h"

#define TRACE_STRACE "/usr/bin/strace"

/*
 * At most this many paths the read, missing and listed lists keep (the
 * written one, all it can); trace_paths.truncated says when cut.
 */
#define TRACE_MAX_PATHS 65536

/* At most this many raw entries a list takes; past it, truncated. */
#define TRACE_RAW_LIMIT_PATHS (16 * TRACE_MAX_PATHS)

/* Paths relative to the directory traced, sorted, each once. */
struct trace_paths {
	struct strlist read;     /* opened, executed, or found to exist */
	struct strlist missing;  /* looked for and not there, never made */
	struct strlist written;  /* created, written, renamed or removed */
	struct strlist listed;   /* directories opened to be read (a
				  * listing: what is in them was looked
				  * for); the directory traced is "." */
	bool truncated;          /* a list reached TRACE_MAX_PATHS */
};

#define TRACE_PATHS_INIT \
	{ STRLIST_INIT, STRLIST_INIT, STRLIST_INIT, STRLIST_INIT, false }

/*
 * Whether strace can trace here (installed, and ptrace allowed); tried
 * once a process. When not, why (one line, with what to do) is appended.
 */
bool trace_available(struct buf *why);

/*
 * Append to argv strace and its options, writing one file per process
 * named prefix.PID, and the "--" before the command.
 */
void trace_argv(const char *prefix, struct strlist *argv);

/*
 * Read every trace file in dir (as trace_argv() named them, prefix in
 * dir) into out (TRACE_PATHS_INIT first), keeping paths inside root (an
 * absolute path with symbolic links resolved), relative to it, but none
 * of its .git. Every process counts, the sandbox's own as well. A read
 * path the command also wrote is only written; a missing
 * path it later found or made is not missing. Returns 0, or -1 with errno
 * when dir cannot be read; a line that cannot be parsed is skipped.
 */
int trace_collect(const char *dir, const char *root, struct trace_paths *out);

/* Sort each list of paths, each path once (after adding to them). */
void trace_paths_sort(struct trace_paths *paths);

/*
 * The entry of sorted (a list trace_paths_sort() sorted) that is path, or
 * with above a directory above it; NULL when none is.
 */
const char *trace_paths_find(const struct strlist *sorted, const char *path,
    bool above);

/*
 * An entry of sorted (trace_paths_sort()) below the directory dir (one
 * that starts with "DIR/"), or NULL.
 */
const char *trace_paths_find_below(const struct strlist *sorted,
    const char *dir);

void trace_paths_release(struct trace_paths *paths);

#endif
