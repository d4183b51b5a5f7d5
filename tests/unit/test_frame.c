/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for cmd/frame: fitting sections to a screen's height (lowest
 * priority cut first, a kept section never cut away), cutting lines to its
 * width, and the screen form that never scrolls.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cmd/frame.h"

/*
 * A status-like frame: NEEDS (kept, priority 4) with needs items of two
 * lines, AGENTS (priority 2) with agents items, RECENT (priority 1,
 * newest last) with events items.
 */
static void
build(struct frame *frame, int needs, int agents, int events)
{
	struct frame_section *s = frame_section_add(frame, 4, true, false);
	char line[64];

	buf_adds(&s->heading, "NEEDS\n");
	for (int i = 1; i <= needs; i++) {
		snprintf(line, sizeof(line), "  need %d\n    resolve %d\n", i, i);
		strlist_add(&s->items, line);
	}
	s = frame_section_add(frame, 2, false, false);
	buf_adds(&s->heading, "\nAGENTS\n");
	for (int i = 1; i <= agents; i++) {
		snprintf(line, sizeof(line), "agent %d\n", i);
		strlist_add(&s->items, line);
	}
	s = frame_section_add(frame, 1, false, true);
	buf_adds(&s->heading, "\nRECENT\n");
	for (int i = 1; i <= events; i++) {
		snprintf(line, sizeof(line), "  event %d\n", i);
		strlist_add(&s->items, line);
	}
}

/* Render frame as plain text, every line whole. */
static void
assert_plain(const struct frame *frame, const char *want)
{
	struct buf out = BUF_INIT;

	frame_render(frame, &out, 0, 0, false);
	assert_string_equal(out.buf, want);
	buf_release(&out);
}

static void
test_everything_fits(void **state)
{
	struct frame frame = FRAME_INIT;

	build(&frame, 1, 1, 2);
	frame_fit(&frame, 100);
	assert_int_equal(frame_lines(&frame), 10);
	assert_plain(&frame, "NEEDS\n  need 1\n    resolve 1\n\nAGENTS\nagent 1\n"
			     "\nRECENT\n  event 1\n  event 2\n");
	frame_release(&frame);
}

/* The oldest events go first, and a line says how many. */
static void
test_recent_cut_first_oldest_first(void **state)
{
	struct frame frame = FRAME_INIT;

	build(&frame, 1, 2, 5);
	frame_fit(&frame, 12);
	assert_int_equal(frame_lines(&frame), 12);
	assert_plain(&frame, "NEEDS\n  need 1\n    resolve 1\n\nAGENTS\nagent 1\n"
			     "agent 2\n\nRECENT\n  ... 3 more\n  event 4\n"
			     "  event 5\n");
	frame_release(&frame);
}

/* Then the whole RECENT section, then agents; NEEDS stays. */
static void
test_agents_after_recent(void **state)
{
	struct frame frame = FRAME_INIT;

	build(&frame, 1, 4, 5);
	frame_fit(&frame, 7);
	assert_plain(&frame, "NEEDS\n  need 1\n    resolve 1\n\nAGENTS\nagent 1\n"
			     "  ... 3 more\n");
	frame_release(&frame);
}

/* NEEDS is never cut away: its heading, one item and how many more. */
static void
test_needs_never_cut_away(void **state)
{
	struct frame frame = FRAME_INIT;
	struct buf out = BUF_INIT;

	build(&frame, 5, 3, 3);
	frame_fit(&frame, 4);
	assert_plain(&frame, "NEEDS\n  need 1\n    resolve 1\n  ... 4 more\n");
	/* Smaller than that: cut at the bottom, NEEDS first all the same. */
	frame_fit(&frame, 2);
	frame_render(&frame, &out, 2, 0, false);
	assert_string_equal(out.buf, "NEEDS\n  need 1\n");
	buf_release(&out);
	frame_release(&frame);
}

/*
 * On a screen each line ends with ESC [ K, the frame with ESC [ J, and
 * the last line has no newline (a full screen must not scroll); lines
 * are cut to one column less than the width, "…" marking the cut.
 */
static void
test_screen_form(void **state)
{
	struct frame frame = FRAME_INIT;
	struct frame_section *s = frame_section_add(&frame, 1, true, false);
	struct buf out = BUF_INIT;

	buf_adds(&s->heading, "0123456789abc\n");
	strlist_add(&s->items, "\033[31mred line here\033[0m\n");
	strlist_add(&s->items, "\xe5\x8f\xb0\xe5\xb8\xb3\xe5\x8f\xb0\xe5\xb8\xb3"
			       "\xe5\x8f\xb0\xe5\xb8\xb3\n");
	strlist_add(&s->items, "short\n");
	frame_render(&frame, &out, 10, 10, true);
	assert_string_equal(out.buf,
	    "01234567…\033[K\n"
	    "\033[31mred line\033[0m…\033[K\n"
	    "\xe5\x8f\xb0\xe5\xb8\xb3\xe5\x8f\xb0\xe5\xb8\xb3…\033[K\n"
	    "short\033[K\033[J");
	buf_release(&out);
	frame_release(&frame);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_everything_fits),
		cmocka_unit_test(test_recent_cut_first_oldest_first),
		cmocka_unit_test(test_agents_after_recent),
		cmocka_unit_test(test_needs_never_cut_away),
		cmocka_unit_test(test_screen_form),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
