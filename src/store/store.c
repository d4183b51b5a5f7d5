/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* What every driver shares (store/driver.h). */
#include "store/driver.h"

#include <stdlib.h>

#include "util/duration.h"

int64_t
store_busy_timeout_ms(void)
{
	const char *text = getenv("DAICHO_BUSY_TIMEOUT");
	int64_t ms;

	if (text != NULL && duration_parse(text, &ms) == 0)
		return ms;
	return 30000;
}
