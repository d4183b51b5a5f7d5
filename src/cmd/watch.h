/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * A live view: show something read from the ledger, and show it again
 * each time the ledger changes, until interrupted. 'daicho status --watch'
 * is one; any listing can be another.
 */
#ifndef DAICHO_WATCH_H
#define DAICHO_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "cmd/cmd.h"
#include "cmd/frame.h"

/* What a live view shows. */
struct watch_source {
	/*
	 * Read the ledger afresh (in a read transaction of its own) into
	 * *doc (a new reference: the --json form) and, when frame is not
	 * NULL, add to frame the sections people see (coloured when colour).
	 * *next_change_ms: the time (ms since the epoch, as clock_now_ms())
	 * when what it shows will change next without a write to the ledger
	 * (an agent going stale, a wait falling overdue), or 0 when nothing
	 * will. Returns 0 or an error (ctx->err set).
	 */
	int (*read)(struct cmd_ctx *ctx, void *arg, bool colour,
	    struct frame *frame, json_t **doc, int64_t *next_change_ms);
	void *arg; /* passed to read */
};

/*
 * Show source until SIGINT, SIGTERM or SIGHUP (or the q key), then return
 * 0. It wakes when the ledger file or its -wal file changes (inotify on
 * their directory; no polling), and when the next time-based change is
 * due; a burst of changes is drawn at most WATCH_MIN_REDRAW_MS apart.
 *
 * Three forms, by where stdout goes:
 *   a terminal (TERM set, not "dumb"), without --json: the alternate
 *     screen, redrawn in place in one write() per frame, fitted to the
 *     terminal's size (again on SIGWINCH), and redrawn every
 *     WATCH_TICK_MS too so that ages stay true; the screen, the cursor
 *     and the terminal's mode are restored on exit (and on Ctrl-Z);
 *   anything else, without --json: the whole frame as plain text (no
 *     escape sequences, no cutting) each time what it shows changes
 *     (the document, now_ms aside), after a line "--- TIME" (UTC);
 *   --json: the JSON document, one line each time it changes (now_ms
 *     aside).
 * Returns an error (ctx->err set) when the ledger cannot be read or stdout
 * cannot be written.
 */
int cmd_watch(struct cmd_ctx *ctx, const struct watch_source *source);

/* A burst of changes is drawn at most this often. */
#define WATCH_MIN_REDRAW_MS 100
/* The live screen is redrawn at least this often, for its ages. */
#define WATCH_TICK_MS 5000

#endif
