/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/bug.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void
bug_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "daicho: BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (please report it with the command that ran)\n", stderr);
	abort();
}
