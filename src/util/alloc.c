/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
out_of_memory(size_t size)
{
	fprintf(stderr, "daicho: out of memory (allocating %zu bytes)\n", size);
	abort();
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (p == NULL)
		out_of_memory(size);
	return p;
}

void *
xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);

	if (p == NULL)
		out_of_memory(count * size);
	return p;
}

void *
xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (p == NULL)
		out_of_memory(size);
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p;

	n = strnlen(s, n);
	p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void
xgrow(void **array, size_t *alloc, size_t need, size_t elem_size)
{
	size_t n = *alloc ? *alloc : 8;

	if (need <= *alloc)
		return;
	while (n < need)
		n *= 2;
	if (n > (size_t)-1 / elem_size)
		out_of_memory((size_t)-1);
	*array = xrealloc(*array, n * elem_size);
	*alloc = n;
}
