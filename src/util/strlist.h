/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * A growable list of owned strings. STRLIST_INIT or zero-initialised before
 * use; strlist_release() frees every string and the array.
 */
#ifndef DAICHO_STRLIST_H
#define DAICHO_STRLIST_H

#include <stdbool.h>
#include <stddef.h>

struct strlist {
	char **items; /* owned strings */
	size_t count, alloc;
};

#define STRLIST_INIT { NULL, 0, 0 }

/* Append a copy of s. */
void strlist_add(struct strlist *list, const char *s);
/* Append s itself; the list takes ownership. */
void strlist_add_owned(struct strlist *list, char *s);
void strlist_release(struct strlist *list);
/*
 * The list as an argv, to read: its items, followed by a NULL that is not
 * an item (valid until the list changes).
 */
const char *const *strlist_argv(struct strlist *list);
/* Whether s is one of the list's strings (a linear search). */
bool strlist_contains(const struct strlist *list, const char *s);
/* Sort the list (strcmp order), each string once. */
void strlist_sort_unique(struct strlist *list);
/*
 * The list's string equal to s, or NULL: a binary search of a list
 * strlist_sort_unique() sorted.
 */
const char *strlist_find_sorted(const struct strlist *list, const char *s);

#endif
