/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * libFuzzer target for run/ratelimit: any bytes read as the end of a
 * worker's log (whole, and cut in its first line) and as a client's words
 * about when a limit lifts. Must never crash, and a reset time it believes
 * must lie ahead of now by at most 8 days.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/ratelimit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NOW_MS 1800000000000LL

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rate_limit rl;
	char *text = strndup((const char *)data, size);
	int64_t at;

	if (text == NULL)
		return 0;
	for (int partial = 0; partial < 2; partial++) {
		rate_limit_init(&rl);
		rate_limit_scan((const char *)data, size, partial, NULL, NOW_MS, &rl);
		if (rl.resets_ms != 0 && (rl.resets_ms <= NOW_MS ||
		    rl.resets_ms > NOW_MS + 8LL * 24 * 3600 * 1000))
			abort();
		rate_limit_release(&rl);
	}
	at = rate_limit_reset_ms(text, NOW_MS);
	if (at != 0 && (at <= NOW_MS || at > NOW_MS + 8LL * 24 * 3600 * 1000))
		abort();
	free(text);
	return 0;
}
