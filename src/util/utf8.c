/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/utf8.h"

#include <stdbool.h>

/* A range of code points, first to last inclusive. */
struct range {
	unsigned int first, last;
};

/* Wide and full-width characters (East Asian Width W and F), and emoji. */
static const struct range wide[] = {
	{ 0x1100, 0x115f },   { 0x231a, 0x231b },   { 0x2329, 0x232a },
	{ 0x23e9, 0x23ec },   { 0x23f0, 0x23f0 },   { 0x23f3, 0x23f3 },
	{ 0x25fd, 0x25fe },   { 0x2614, 0x2615 },   { 0x2648, 0x2653 },
	{ 0x267f, 0x267f },   { 0x2693, 0x2693 },   { 0x26a1, 0x26a1 },
	{ 0x26aa, 0x26ab },   { 0x26bd, 0x26be },   { 0x26c4, 0x26c5 },
	{ 0x26ce, 0x26ce },   { 0x26d4, 0x26d4 },   { 0x26ea, 0x26ea },
	{ 0x26f2, 0x26f3 },   { 0x26f5, 0x26f5 },   { 0x26fa, 0x26fa },
	{ 0x26fd, 0x26fd },   { 0x2705, 0x2705 },   { 0x270a, 0x270b },
	{ 0x2728, 0x2728 },   { 0x274c, 0x274c },   { 0x274e, 0x274e },
	{ 0x2753, 0x2755 },   { 0x2757, 0x2757 },   { 0x2795, 0x2797 },
	{ 0x27b0, 0x27b0 },   { 0x27bf, 0x27bf },   { 0x2b1b, 0x2b1c },
	{ 0x2b50, 0x2b50 },   { 0x2b55, 0x2b55 },   { 0x2e80, 0x303e },
	{ 0x3041, 0x33ff },   { 0x3400, 0x4dbf },   { 0x4e00, 0x9fff },
	{ 0xa000, 0xa4cf },   { 0xa960, 0xa97f },   { 0xac00, 0xd7a3 },
	{ 0xf900, 0xfaff },   { 0xfe10, 0xfe19 },   { 0xfe30, 0xfe6f },
	{ 0xff00, 0xff60 },   { 0xffe0, 0xffe6 },   { 0x16fe0, 0x16fe4 },
	{ 0x17000, 0x18cff }, { 0x1b000, 0x1b2ff }, { 0x1f004, 0x1f004 },
	{ 0x1f0cf, 0x1f0cf }, { 0x1f18e, 0x1f18e }, { 0x1f191, 0x1f19a },
	{ 0x1f200, 0x1f251 }, { 0x1f300, 0x1f64f }, { 0x1f680, 0x1f6ff },
	{ 0x1f7e0, 0x1f7eb }, { 0x1f90c, 0x1f9ff }, { 0x1fa70, 0x1faff },
	{ 0x20000, 0x2fffd }, { 0x30000, 0x3fffd },
};

/* Combining marks and zero-width characters. */
static const struct range zero[] = {
	{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd },
	{ 0x0610, 0x061a }, { 0x064b, 0x065f }, { 0x0e31, 0x0e31 },
	{ 0x0e34, 0x0e3a }, { 0x0e47, 0x0e4e }, { 0x1ab0, 0x1aff },
	{ 0x1dc0, 0x1dff }, { 0x200b, 0x200f }, { 0x2028, 0x202e },
	{ 0x2060, 0x2064 }, { 0x20d0, 0x20ff }, { 0x302a, 0x302d },
	{ 0x3099, 0x309a }, { 0xfe00, 0xfe0f }, { 0xfe20, 0xfe2f },
	{ 0xfeff, 0xfeff }, { 0xe0100, 0xe01ef },
};

/* Whether c is in one of the count sorted ranges. */
static bool
in_ranges(unsigned int c, const struct range *ranges, size_t count)
{
	size_t low = 0, high = count;

	while (low < high) {
		size_t mid = low + (high - low) / 2;

		if (c < ranges[mid].first)
			high = mid;
		else if (c > ranges[mid].last)
			low = mid + 1;
		else
			return true;
	}
	return false;
}

int
utf8_char_columns(unsigned int code_point)
{
	if (in_ranges(code_point, zero, sizeof(zero) / sizeof(zero[0])))
		return 0;
	if (in_ranges(code_point, wide, sizeof(wide) / sizeof(wide[0])))
		return 2;
	return 1;
}

/*
 * The length of the valid UTF-8 sequence at s (at most len bytes), with
 * its code point in *c; 0 when s does not start one.
 */
static size_t
decode(const unsigned char *s, size_t len, unsigned int *c)
{
	size_t need;
	unsigned int min;

	if (s[0] < 0x80) {
		*c = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 2, *c = s[0] & 0x1f, min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 3, *c = s[0] & 0x0f, min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 4, *c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (need > len)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*c = (*c << 6) | (s[i] & 0x3f);
	}
	if (*c < min || *c > 0x10ffff || (*c >= 0xd800 && *c <= 0xdfff))
		return 0;
	return need;
}

/* The length of the escape sequence ESC [ ... final at s, or 0. */
static size_t
escape_length(const unsigned char *s, size_t len)
{
	size_t i = 2;

	if (len < 2 || s[0] != 0x1b || s[1] != '[')
		return 0;
	while (i < len && s[i] >= 0x20 && s[i] <= 0x3f)
		i++;
	return i < len && s[i] >= 0x40 && s[i] <= 0x7e ? i + 1 : 0;
}

size_t
utf8_fit(const char *text, size_t len, size_t columns, size_t *used)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t at = 0, taken = 0;

	while (at < len) {
		unsigned int c;
		size_t n = escape_length(s + at, len - at);
		int width = 0;

		if (n == 0) {
			n = decode(s + at, len - at, &c);
			width = n ? utf8_char_columns(c) : 1;
			n = n ? n : 1;
		}
		if (taken + (size_t)width > columns)
			break;
		taken += (size_t)width;
		at += n;
	}
	if (used)
		*used = taken;
	return at;
}

bool
utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned char low = 0x80, high = 0xbf; /* the second byte's range */
		int n;

		if (*p < 0x80)
			n = 0;
		else if (*p >= 0xc2 && *p <= 0xdf)
			n = 1;
		else if (*p >= 0xe0 && *p <= 0xef)
			n = 2;
		else if (*p >= 0xf0 && *p <= 0xf4)
			n = 3;
		else
			return false;
		if (*p == 0xe0)
			low = 0xa0;       /* overlong */
		else if (*p == 0xed)
			high = 0x9f;      /* surrogates */
		else if (*p == 0xf0)
			low = 0x90;       /* overlong */
		else if (*p == 0xf4)
			high = 0x8f;      /* past U+10FFFF */
		p++;
		for (int i = 0; i < n; i++, p++)
			if (*p < (i == 0 ? low : 0x80) || *p > (i == 0 ? high : 0xbf))
				return false;
	}
	return true;
}

size_t
utf8_invisible(const char *text, unsigned *code_point)
{
	const unsigned char *p = (const unsigned char *)text;
	unsigned cp;

	if (p[0] == 0xd8 && p[1] == 0x9c) {
		*code_point = 0x061c; /* Arabic letter mark */
		return 2;
	}
	if (p[0] != 0xe2 && p[0] != 0xef)
		return 0;
	if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
		return 0;
	cp = ((unsigned)(p[0] & 0x0f) << 12) | ((unsigned)(p[1] & 0x3f) << 6) |
	     (unsigned)(p[2] & 0x3f);
	if ((cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
	    (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x2066 && cp <= 0x2069) ||
	    cp == 0xfeff) {
		*code_point = cp;
		return 3;
	}
	return 0;
}
