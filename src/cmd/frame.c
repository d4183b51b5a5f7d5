/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "cmd/frame.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/utf8.h"

struct frame_section *
frame_section_add(struct frame *frame, int priority, bool keep,
    bool newest_last)
{
	struct frame_section *s;

	if (frame->count == frame->alloc) {
		frame->alloc = frame->alloc ? 2 * frame->alloc : 8;
		frame->sections = xrealloc(frame->sections,
		    frame->alloc * sizeof(*frame->sections));
	}
	s = &frame->sections[frame->count++];
	memset(s, 0, sizeof(*s));
	buf_init(&s->heading);
	s->priority = priority;
	s->keep = keep;
	s->newest_last = newest_last;
	s->shown = (size_t)-1; /* every item, however many are added */
	return s;
}

/* The number of '\n' in text. */
static size_t
count_lines(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* How many items of s show. */
static size_t
shown(const struct frame_section *s)
{
	return s->shown < s->items.count ? s->shown : s->items.count;
}

/* The index of the first item of s shown. */
static size_t
first_shown(const struct frame_section *s)
{
	return s->newest_last ? s->items.count - shown(s) : 0;
}

/* The lines section s takes as it stands. */
static size_t
section_lines(const struct frame_section *s)
{
	size_t n, first = first_shown(s);

	if (s->hidden)
		return 0;
	n = count_lines(s->heading.buf);
	for (size_t i = first; i < first + shown(s); i++)
		n += count_lines(s->items.items[i]);
	return n + (shown(s) < s->items.count);
}

size_t
frame_lines(const struct frame *frame)
{
	size_t n = 0;

	for (size_t i = 0; i < frame->count; i++)
		n += section_lines(&frame->sections[i]);
	return n;
}

void
frame_fit(struct frame *frame, size_t rows)
{
	bool *done = xcalloc(frame->count ? frame->count : 1, sizeof(*done));

	for (size_t i = 0; i < frame->count; i++) {
		frame->sections[i].shown = frame->sections[i].items.count;
		frame->sections[i].hidden = false;
	}
	/* Each round cuts the section of lowest priority not yet cut. */
	for (size_t round = 0; round < frame->count; round++) {
		struct frame_section *s = NULL;
		size_t at = 0;

		for (size_t i = 0; i < frame->count; i++)
			if (!done[i] && (s == NULL ||
			    frame->sections[i].priority < s->priority)) {
				s = &frame->sections[i];
				at = i;
			}
		done[at] = true;
		while (frame_lines(frame) > rows && s->shown > (s->keep ? 1 : 0))
			s->shown--;
		if (frame_lines(frame) > rows && !s->keep)
			s->hidden = true;
		if (frame_lines(frame) <= rows)
			break;
	}
	free(done);
}

/*
 * Append one line (without its '\n') to out, cut to columns - 1 columns
 * when columns > 0, then ESC [ K with screen.
 */
static void
add_line(struct buf *out, const char *line, size_t len, size_t columns,
    bool screen)
{
	size_t fit = len;

	if (columns > 0 && utf8_fit(line, len, columns - 1, NULL) < len) {
		/* Room for the "…" that marks the cut. */
		fit = columns > 1 ? utf8_fit(line, len, columns - 2, NULL) : 0;
		buf_add(out, line, fit);
		if (memchr(line, '\033', len))
			buf_adds(out, "\033[0m");
		if (columns > 1)
			buf_adds(out, "…");
	} else {
		buf_add(out, line, len);
	}
	if (screen)
		buf_adds(out, "\033[K");
}

/* Append each line of text, counting them in *written, up to rows. */
static void
add_lines(struct buf *out, const char *text, size_t rows, size_t columns,
    bool screen, size_t *written)
{
	while (*text && (rows == 0 || *written < rows)) {
		const char *end = strchr(text, '\n');
		size_t len = end ? (size_t)(end - text) : strlen(text);

		/* No newline after the last row: the screen must not scroll. */
		if (screen && *written > 0)
			buf_addch(out, '\n');
		add_line(out, text, len, columns, screen);
		if (!screen)
			buf_addch(out, '\n');
		(*written)++;
		text += len + (end != NULL);
	}
}

void
frame_render(const struct frame *frame, struct buf *out, size_t rows,
    size_t columns, bool screen)
{
	size_t written = 0;

	for (size_t i = 0; i < frame->count; i++) {
		const struct frame_section *s = &frame->sections[i];
		size_t first = first_shown(s), hidden = s->items.count - shown(s);
		struct buf more = BUF_INIT;

		if (s->hidden)
			continue;
		if (hidden)
			buf_addf(&more, "  ... %zu more\n", hidden);
		add_lines(out, s->heading.buf, rows, columns, screen, &written);
		if (s->newest_last)
			add_lines(out, more.buf, rows, columns, screen, &written);
		for (size_t j = first; j < first + shown(s); j++)
			add_lines(out, s->items.items[j], rows, columns, screen,
			    &written);
		if (!s->newest_last)
			add_lines(out, more.buf, rows, columns, screen, &written);
		buf_release(&more);
	}
	if (screen)
		buf_adds(out, "\033[J");
}

void
frame_release(struct frame *frame)
{
	for (size_t i = 0; i < frame->count; i++) {
		buf_release(&frame->sections[i].heading);
		strlist_release(&frame->sections[i].items);
	}
	free(frame->sections);
	frame->sections = NULL;
	frame->count = frame->alloc = 0;
}
