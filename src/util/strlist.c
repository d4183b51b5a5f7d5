/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/strlist.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

void
strlist_add(struct strlist *list, const char *s)
{
	strlist_add_owned(list, xstrdup(s));
}

void
strlist_add_owned(struct strlist *list, char *s)
{
	xgrow((void **)&list->items, &list->alloc, list->count + 1, sizeof(char *));
	list->items[list->count++] = s;
}

void
strlist_release(struct strlist *list)
{
	for (size_t i = 0; i < list->count; i++)
		free(list->items[i]);
	free(list->items);
	list->items = NULL;
	list->count = list->alloc = 0;
}

bool
strlist_contains(const struct strlist *list, const char *s)
{
	for (size_t i = 0; i < list->count; i++)
		if (strcmp(list->items[i], s) == 0)
			return true;
	return false;
}

const char *const *
strlist_argv(struct strlist *list)
{
	xgrow((void **)&list->items, &list->alloc, list->count + 1, sizeof(char *));
	list->items[list->count] = NULL;
	/* Only adds const: C converts char ** to it only by a cast. */
	return (const char *const *)list->items;
}

static int
compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
strlist_sort_unique(struct strlist *list)
{
	size_t kept = 0;

	if (list->count == 0)
		return;
	qsort(list->items, list->count, sizeof(char *), compare_strings);
	for (size_t i = 0; i < list->count; i++) {
		if (kept > 0 && strcmp(list->items[kept - 1], list->items[i]) == 0) {
			free(list->items[i]);
			continue;
		}
		list->items[kept++] = list->items[i];
	}
	list->count = kept;
}

const char *
strlist_find_sorted(const struct strlist *list, const char *s)
{
	char **found;

	if (list->count == 0)
		return NULL;
	found = bsearch(&s, list->items, list->count, sizeof(char *),
	    compare_strings);
	return found ? *found : NULL;
}
