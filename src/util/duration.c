/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/duration.h"

#include <string.h>

int
duration_parse(const char *text, int64_t *ms)
{
	static const struct {
		const char *unit;
		int64_t ms;
	} units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 },
		{ "h", 3600000 }, { "d", 86400000 },
	};
	const char *p = text;
	int64_t n = 0;
	size_t i;

	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9') {
		int digit = *p++ - '0';

		if (n > (INT64_MAX - digit) / 10)
			return -1;
		n = n * 10 + digit;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].unit) == 0) {
			if (n > INT64_MAX / units[i].ms)
				return -1;
			*ms = n * units[i].ms;
			return 0;
		}
	}
	return -1;
}
