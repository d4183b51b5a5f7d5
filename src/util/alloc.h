/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Allocation that never returns NULL: on exhaustion the process prints one
 * line and aborts. Every allocation in daicho goes through these, but three
 * that must not abort: util/spawn.c's block (a failed spawn is an error to
 * report), util/proc.c's environment (the same), and util/prefault.c's
 * malloc/free pair, which only moves the heap's top.
 */
#ifndef DAICHO_ALLOC_H
#define DAICHO_ALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
/* A copy of at most the first n bytes of s (fewer if s is shorter). */
char *xstrndup(const char *s, size_t n);

/* Grow *array (of *alloc elements of elem_size) to hold at least need. */
void xgrow(void **array, size_t *alloc, size_t need, size_t elem_size);

#endif
