/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include <sys/random.h>

#include "util/random.h"

int
random_hex(char *hex, size_t bytes)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char chunk[64];
	size_t done = 0;

	while (done < bytes) {
		size_t want = bytes - done < sizeof(chunk) ? bytes - done
		    : sizeof(chunk), got = 0;

		while (got < want) {
			ssize_t n = getrandom(chunk + got, want - got, 0);

			if (n <= 0) {
				hex[0] = '\0';
				return -1;
			}
			got += (size_t)n;
		}
		for (size_t i = 0; i < want; i++) {
			hex[2 * (done + i)] = digits[chunk[i] >> 4];
			hex[2 * (done + i) + 1] = digits[chunk[i] & 15];
		}
		done += want;
	}
	hex[2 * bytes] = '\0';
	return 0;
}
