/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/sqldialect.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

char *
sql_dialect_postgresql(const char *sql, int *nparams)
{
	struct buf out = BUF_INIT;

	*nparams = 0;
	for (const char *p = sql; *p;) {
		if (*p == '\'' || *p == '"') {
			const char *q = p + 1;

			while (*q && !(*q == *p && q[1] != *p))
				q += (*q == *p) ? 2 : 1;
			if (*q)
				q++;
			buf_add(&out, p, (size_t)(q - p));
			p = q;
		} else if (*p == '?') {
			char *end;
			long n = strtol(p + 1, &end, 10);

			/* A bare ? is one more than the largest so far, as in SQLite. */
			if (end == p + 1)
				n = *nparams + 1;
			if (n > *nparams)
				*nparams = (int)n;
			buf_addf(&out, "$%ld", n);
			p = end;
		} else if (strncmp(p, "INDEXED BY ", 11) == 0) {
			p += 11;
			while (*p == ' ')
				p++;
			while (*p == '_' || (*p >= 'a' && *p <= 'z') ||
			    (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))
				p++;
		} else {
			buf_addch(&out, *p++);
		}
	}
	return buf_detach(&out, NULL);
}
