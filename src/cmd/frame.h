/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * A screen of text for people, in sections: what 'daicho status' prints
 * once, and what 'status --watch' fits to the terminal's height and width
 * on each redraw. A section is a heading (lines) and items (each one or
 * more lines); when the screen is too short, sections lose items in the
 * order of their priority, and a "... N more" line says how many.
 *
 * Lifecycle: FRAME_INIT, frame_section_add() for each section in screen
 * order, frame_fit() (or nothing: every item shown), frame_render(),
 * frame_release().
 */
#ifndef DAICHO_FRAME_H
#define DAICHO_FRAME_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/strlist.h"

struct frame_section {
	struct buf heading;    /* lines before the items, each ending '\n' */
	struct strlist items;  /* each item's lines, each ending '\n' */
	int priority;          /* cut first: the lowest; never hidden: keep */
	bool keep;             /* never cut below one item, never hidden */
	bool newest_last;      /* cut the first items (the oldest) first */
	size_t shown;          /* items shown (frame_fit(); all until then) */
	bool hidden;           /* left out entirely (frame_fit()) */
};

struct frame {
	struct frame_section *sections; /* owned, in screen order */
	size_t count, alloc;
};

#define FRAME_INIT { NULL, 0, 0 }

/*
 * Append an empty section (heading and items to be added by the caller)
 * and return it; valid until the next frame_section_add().
 */
struct frame_section *frame_section_add(struct frame *frame, int priority,
    bool keep, bool newest_last);

/*
 * Decide what shows in rows lines: every item when all fit; else, from
 * the section of lowest priority up, items are left out (each cut section
 * gains a "... N more" line) and then, unless keep, the whole section. A
 * keep section keeps its heading, one item and its "more" line; what
 * still does not fit is cut at the bottom by frame_render().
 */
void frame_fit(struct frame *frame, size_t rows);

/* The number of lines the frame shows as fitted. */
size_t frame_lines(const struct frame *frame);

/*
 * Append the frame to out. With columns > 0, each line is cut to fit in
 * columns - 1 terminal columns (never inside a character; "…" marks a
 * cut), and at most rows lines are written. With screen, each line ends
 * with "erase to the end of the line" (ESC [ K) and the frame with "erase
 * the rest of the screen" (ESC [ J), the last line without its newline so
 * that a full screen never scrolls: written at the cursor's home, it
 * replaces the previous frame without clearing the screen first (no
 * flicker).
 */
void frame_render(const struct frame *frame, struct buf *out, size_t rows,
    size_t columns, bool screen);

void frame_release(struct frame *frame);

#endif
