/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for util/utf8: how much of a line fits in a terminal's
 * columns, never splitting a character or an escape sequence.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "util/utf8.h"

/* utf8_fit() of a NUL-terminated string. */
static size_t
fit(const char *text, size_t columns, size_t *used)
{
	return utf8_fit(text, strlen(text), columns, used);
}

static void
test_ascii(void **state)
{
	size_t used;

	assert_int_equal(fit("hello", 10, &used), 5);
	assert_int_equal(used, 5);
	assert_int_equal(fit("hello", 3, &used), 3);
	assert_int_equal(used, 3);
	assert_int_equal(fit("hello", 0, &used), 0);
	assert_int_equal(used, 0);
	assert_int_equal(fit("", 4, NULL), 0);
}

/* "é" is two bytes and one column; never cut between its bytes. */
static void
test_multibyte_is_never_split(void **state)
{
	size_t used;

	assert_int_equal(fit("caf\xc3\xa9s", 4, &used), 5);
	assert_int_equal(used, 4);
	assert_int_equal(fit("\xc3\xa9\xc3\xa9\xc3\xa9", 2, &used), 4);
	assert_int_equal(used, 2);
	/* A four-byte emoji takes two columns: one column is not enough. */
	assert_int_equal(fit("\xf0\x9f\x98\x80x", 1, &used), 0);
	assert_int_equal(used, 0);
	assert_int_equal(fit("\xf0\x9f\x98\x80x", 2, &used), 4);
	assert_int_equal(used, 2);
}

/* 台帳 (daicho): two wide characters, two columns each. */
static void
test_wide(void **state)
{
	const char *daicho = "\xe5\x8f\xb0\xe5\xb8\xb3";
	size_t used;

	assert_int_equal(utf8_char_columns(0x53f0), 2);
	assert_int_equal(fit(daicho, 4, &used), 6);
	assert_int_equal(used, 4);
	assert_int_equal(fit(daicho, 3, &used), 3);
	assert_int_equal(used, 2);
	assert_int_equal(fit(daicho, 1, &used), 0);
}

/* A combining mark goes with the character before it, taking nothing. */
static void
test_combining(void **state)
{
	size_t used;

	assert_int_equal(utf8_char_columns(0x0301), 0);
	assert_int_equal(fit("e\xcc\x81x", 1, &used), 3);
	assert_int_equal(used, 1);
}

/* Escape sequences (colours) take no column and are kept whole. */
static void
test_escapes(void **state)
{
	const char *red = "\033[31mred\033[0m";
	size_t used;

	assert_int_equal(fit(red, 3, &used), strlen(red));
	assert_int_equal(used, 3);
	assert_int_equal(fit(red, 1, &used), strlen("\033[31mr"));
	assert_int_equal(used, 1);
	assert_int_equal(fit("\033[1;33mNEEDS", 0, &used), strlen("\033[1;33m"));
}

/* A byte that starts no valid sequence counts as one column. */
static void
test_invalid_bytes(void **state)
{
	size_t used;

	assert_int_equal(fit("\xff\xfe" "ab", 3, &used), 3);
	assert_int_equal(used, 3);
	/* A sequence cut short by the end of the text. */
	assert_int_equal(fit("a\xe5\x8f", 5, &used), 3);
	assert_int_equal(used, 3);
	/* An overlong encoding of '/'. */
	assert_int_equal(fit("\xc0\xaf", 5, &used), 2);
	assert_int_equal(used, 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ascii),
		cmocka_unit_test(test_multibyte_is_never_split),
		cmocka_unit_test(test_wide),
		cmocka_unit_test(test_combining),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_invalid_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
