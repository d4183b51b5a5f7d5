/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/base64.h"

#include <stdbool.h>

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void
base64_encode(struct buf *out, const void *data, size_t len)
{
	const unsigned char *p = data;

	buf_grow(out, (len + 2) / 3 * 4);
	for (size_t i = 0; i < len; i += 3) {
		unsigned long group = (unsigned long)p[i] << 16;
		size_t left = len - i;

		if (left > 1)
			group |= (unsigned long)p[i + 1] << 8;
		if (left > 2)
			group |= p[i + 2];
		buf_addch(out, alphabet[group >> 18 & 63]);
		buf_addch(out, alphabet[group >> 12 & 63]);
		buf_addch(out, left > 1 ? alphabet[group >> 6 & 63] : '=');
		buf_addch(out, left > 2 ? alphabet[group & 63] : '=');
	}
}

/* The value of one base64 digit, or -1. */
static int
digit(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int
base64_decode(struct buf *out, const char *text, size_t len)
{
	if (len % 4 != 0)
		return -1;
	for (size_t i = 0; i < len; i += 4) {
		bool last = i + 4 == len;
		int pad = last && text[i + 3] == '=' ? (text[i + 2] == '=' ? 2 : 1) : 0;
		int d[4];
		unsigned long v = 0;

		for (int k = 0; k < 4; k++) {
			d[k] = k >= 4 - pad ? 0 : digit(text[i + k]);
			if (d[k] < 0)
				return -1;
			v = v << 6 | (unsigned long)d[k];
		}
		buf_addch(out, (char)(v >> 16 & 0xff));
		if (pad < 2)
			buf_addch(out, (char)(v >> 8 & 0xff));
		if (pad < 1)
			buf_addch(out, (char)(v & 0xff));
	}
	return 0;
}
