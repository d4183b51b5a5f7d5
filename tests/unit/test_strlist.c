/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for the small helpers: util/strlist, util/alloc and core/err.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "util/alloc.h"
#include "util/strlist.h"

static void
test_strlist_add_copies(void **state)
{
	struct strlist list = STRLIST_INIT;
	char text[] = "hello";

	strlist_add(&list, text);
	text[0] = 'J';
	strlist_add(&list, text);
	strlist_add(&list, "");
	assert_int_equal(list.count, 3);
	assert_true(list.alloc >= 3);
	assert_string_equal(list.items[0], "hello");
	assert_string_equal(list.items[1], "Jello");
	assert_string_equal(list.items[2], "");
	assert_ptr_not_equal(list.items[1], text);
	strlist_release(&list);
	assert_int_equal(list.count, 0);
	/* Reusable after release. */
	strlist_add(&list, "again");
	assert_int_equal(list.count, 1);
	assert_string_equal(list.items[0], "again");
	strlist_release(&list);
}

static void
test_strlist_owned_and_many(void **state)
{
	struct strlist list = { 0 };
	char name[32];

	strlist_add_owned(&list, xstrdup("owned"));
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "item-%d", i);
		strlist_add(&list, name);
	}
	assert_int_equal(list.count, 1001);
	assert_string_equal(list.items[0], "owned");
	assert_string_equal(list.items[1], "item-0");
	assert_string_equal(list.items[1000], "item-999");
	strlist_release(&list);
	/* Releasing an empty list is harmless. */
	strlist_release(&list);
}

static void
test_alloc(void **state)
{
	char *s = xstrndup("abcdef", 3);
	unsigned char *z = xcalloc(100, 3);
	int *array = NULL;
	size_t alloc = 0;

	assert_string_equal(s, "abc");
	free(s);
	s = xstrndup("ab", 10);
	assert_string_equal(s, "ab");
	free(s);
	for (int i = 0; i < 300; i++)
		assert_int_equal(z[i], 0);
	free(z);
	xgrow((void **)&array, &alloc, 10, sizeof(*array));
	assert_non_null(array);
	assert_true(alloc >= 10);
	for (int i = 0; i < 10; i++)
		array[i] = i * i;
	xgrow((void **)&array, &alloc, 5000, sizeof(*array));
	assert_true(alloc >= 5000);
	for (int i = 0; i < 10; i++)
		assert_int_equal(array[i], i * i);
	array[4999] = 7;
	/* A smaller need leaves it alone. */
	{
		size_t before = alloc;
		int *p = array;

		xgrow((void **)&array, &alloc, 3, sizeof(*array));
		assert_int_equal(alloc, before);
		assert_ptr_equal(array, p);
	}
	free(array);
	s = xmalloc(1);
	s = xrealloc(s, 4096);
	s[4095] = 'x';
	free(s);
}

static void
test_err(void **state)
{
	struct err err = ERR_INIT;

	assert_int_equal(err.code, ERR_OK);
	assert_string_equal(err.message.buf, "");
	assert_int_equal(err_set(&err, ERR_NOT_FOUND, "no task #%lld", 12LL),
	    -ERR_NOT_FOUND);
	assert_int_equal(err.code, ERR_NOT_FOUND);
	assert_string_equal(err.message.buf, "no task #12");
	/* A second call replaces the first. */
	assert_int_equal(err_set(&err, ERR_CONFLICT, "%s", "held"), -ERR_CONFLICT);
	assert_int_equal(err.code, ERR_CONFLICT);
	assert_string_equal(err.message.buf, "held");
	err_release(&err);
	assert_int_equal(err.code, ERR_OK);
	assert_int_equal(err.message.len, 0);
	assert_non_null(err.message.buf);
	/* The exit statuses are fixed. */
	assert_int_equal(ERR_FAILED, 1);
	assert_int_equal(ERR_USAGE, 2);
	assert_int_equal(ERR_NOT_FOUND, 3);
	assert_int_equal(ERR_CONFLICT, 4);
	assert_int_equal(ERR_VERIFY, 5);
	assert_int_equal(ERR_REFUSED, 6);
	assert_int_equal(ERR_BUSY, 75);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strlist_add_copies),
		cmocka_unit_test(test_strlist_owned_and_many),
		cmocka_unit_test(test_alloc),
		cmocka_unit_test(test_err),
	};

	return cmocka_run_group_tests_name("strlist", tests, NULL, NULL);
}
