/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * libFuzzer target for util/glob: the input split at its first NUL byte
 * (or in half) into two globs, as reservations and task touches give them.
 * Checking, overlap (both ways) and covering must never crash, and overlap
 * must be symmetric.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/glob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t cut = nul ? (size_t)(nul - data) : size / 2;
	char *a = strndup((const char *)data, cut);
	char *b = strndup((const char *)data + (nul ? cut + 1 : cut),
	    size - cut - (nul ? 1 : 0));
	struct buf why = BUF_INIT;

	if (a == NULL || b == NULL) {
		free(a);
		free(b);
		return 0;
	}
	(void)glob_check(a, &why);
	if (glob_overlap(a, b) != glob_overlap(b, a))
		abort();
	(void)glob_covers(a, b);
	buf_release(&why);
	free(a);
	free(b);
	return 0;
}
