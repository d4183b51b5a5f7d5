/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * How much of a line of UTF-8 text fits in a terminal's width: for cutting
 * lines to the width without splitting a character.
 */
#ifndef DAICHO_UTF8_H
#define DAICHO_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Whether s (NUL-ended) is well-formed UTF-8 (RFC 3629): no overlong form,
 * no surrogate, nothing past U+10FFFF. What JSON (jansson) takes, exactly.
 */
bool utf8_valid(const char *s);

/*
 * When text starts with a character that changes how the text around it
 * reads while showing nothing itself (a bidirectional override, embedding
 * or isolate, a zero-width space or joiner, a direction mark, a byte-order
 * mark, a line or paragraph separator), its code point into *code_point
 * and its length in bytes; else 0. What a person reads as "staging" may be
 * "\u202egnigats": such characters are shown as [U+202E].
 */
size_t utf8_invisible(const char *text, unsigned *code_point);

/*
 * The columns a character (a Unicode code point) takes on a terminal: 2
 * for East Asian wide and full-width characters and most emoji, 0 for
 * combining marks and zero-width characters, else 1.
 */
int utf8_char_columns(unsigned int code_point);

/*
 * The number of bytes of text (len bytes, one line) that fit in columns
 * terminal columns; *used (may be NULL) gets the columns they take. A
 * character is never split: the cut falls before one that does not fit.
 * A terminal escape sequence (ESC [ ... final byte) takes no columns and
 * is never split either. A byte that does not start a valid UTF-8
 * sequence counts as one column.
 */
size_t utf8_fit(const char *text, size_t len, size_t columns, size_t *used);

#endif
