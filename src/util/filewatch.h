/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Waking when a file changes, without polling: Linux inotify on the file's
 * directory, so that a file that is replaced, removed or created again
 * (SQLite's -wal file comes and goes) is still seen.
 */
#ifndef DAICHO_FILEWATCH_H
#define DAICHO_FILEWATCH_H

#include <stdbool.h>

#include "util/buf.h"

struct filewatch {
	int fd;           /* the inotify descriptor to poll for input; -1 */
	struct buf name;  /* the watched file's name, without its directory */
};

#define FILEWATCH_INIT { -1, BUF_INIT }

/*
 * Watch the file at path (the file a symbolic link points to, when it is
 * one) and the files beside it whose names are its name followed by a
 * suffix ("ledger.db-wal" for "ledger.db"). Returns 0,
 * or -1 with errno set (no inotify, or the directory cannot be watched);
 * the watch is then unusable but still safe to release.
 */
int filewatch_open(struct filewatch *watch, const char *path);

/*
 * Read what inotify has queued (without blocking) and say whether any of
 * it was a change to a watched file: written, created, removed or renamed
 * to or from. suffixes is a NULL-terminated list ("" for the file itself,
 * "-wal"...). A watch whose queue overflowed says true.
 */
bool filewatch_changed(struct filewatch *watch, const char *const *suffixes);

/* Stop watching and free the name. */
void filewatch_release(struct filewatch *watch);

#endif
