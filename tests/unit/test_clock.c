/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for util/clock: now (and DAICHO_NOW_MS), ages, timestamps and
 * durations as daicho shows them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"

static void
expect_age(int64_t ms, const char *want)
{
	struct buf out = BUF_INIT;

	clock_add_age(&out, ms);
	if (strcmp(out.buf, want) != 0)
		fail_msg("clock_add_age(%lld) = \"%s\", want \"%s\"", (long long)ms,
		    out.buf, want);
	buf_release(&out);
}

static void
test_now_fixed(void **state)
{
	setenv("DAICHO_NOW_MS", "1234567890123", 1);
	assert_int_equal(clock_now_ms(), 1234567890123LL);
	setenv("DAICHO_NOW_MS", "0", 1);
	assert_int_equal(clock_now_ms(), 0);
	unsetenv("DAICHO_NOW_MS");
}

static void
test_now_real(void **state)
{
	int64_t before, now, after;

	unsetenv("DAICHO_NOW_MS");
	before = (int64_t)time(NULL) * 1000;
	now = clock_now_ms();
	after = ((int64_t)time(NULL) + 1) * 1000;
	assert_true(now >= before);
	assert_true(now <= after);
}

static void
test_mono(void **state)
{
	int64_t a = clock_mono_ms(), b;

	usleep(20 * 1000);
	b = clock_mono_ms();
	assert_true(b - a >= 15);
	assert_true(b - a < 5000);
	/* Not affected by a fixed wall clock. */
	setenv("DAICHO_NOW_MS", "5", 1);
	assert_true(clock_mono_ms() >= b);
	unsetenv("DAICHO_NOW_MS");
}

static void
test_age(void **state)
{
	expect_age(0, "0s");
	expect_age(999, "0s");
	expect_age(12000, "12s");
	expect_age(59999, "59s");
	expect_age(60000, "1m");
	expect_age(5 * 60000 + 59000, "5m");
	expect_age(3600000 - 1, "59m");
	expect_age(3 * 3600000, "3h");
	expect_age(86400000 - 1, "23h");
	expect_age(2 * 86400000LL, "2d");
	expect_age(400 * 86400000LL, "400d");
	/* Never negative. */
	expect_age(-1, "0s");
	expect_age(-86400000LL, "0s");
}

/* clock_add_remaining(ms) is expected. */
static void
expect_remaining(int64_t ms, const char *expected)
{
	struct buf out = BUF_INIT;

	clock_add_remaining(&out, ms);
	assert_string_equal(out.buf, expected);
	buf_release(&out);
}

static void
test_remaining(void **state)
{
	expect_remaining(0, "0s");
	expect_remaining(1, "1s");
	expect_remaining(59000, "59s");
	expect_remaining(59001, "1m");
	/* A 30-minute lease just taken, a 2-hour reservation just made. */
	expect_remaining(1800000 - 120, "30m");
	expect_remaining(2 * 3600000 - 120, "2h");
	expect_remaining(3600000 - 1, "1h");
	expect_remaining(86400000 - 1, "1d");
	expect_remaining(-5, "0s");
}

static void
test_age_appends(void **state)
{
	struct buf out = BUF_INIT;

	buf_adds(&out, "seen ");
	clock_add_age(&out, 12000);
	buf_adds(&out, " ago");
	assert_string_equal(out.buf, "seen 12s ago");
	buf_release(&out);
}

static void
test_timestamp(void **state)
{
	struct buf out = BUF_INIT;

	clock_add_timestamp(&out, 0);
	assert_string_equal(out.buf, "1970-01-01T00:00:00Z");
	buf_reset(&out);
	/* The header's example, 2026-11-29T07:53:06Z, plus 999 ms. */
	clock_add_timestamp(&out, 1795938786999LL);
	assert_string_equal(out.buf, "2026-11-29T07:53:06Z");
	buf_reset(&out);
	/* UTC whatever the local zone. */
	setenv("TZ", "Asia/Tokyo", 1);
	tzset();
	clock_add_timestamp(&out, 1795938786000LL);
	assert_string_equal(out.buf, "2026-11-29T07:53:06Z");
	unsetenv("TZ");
	tzset();
	buf_release(&out);
}

static void
test_duration(void **state)
{
	struct buf out = BUF_INIT;

	clock_add_duration(&out, 820);
	assert_string_equal(out.buf, "820ms");
	buf_reset(&out);
	clock_add_duration(&out, 4 * 60000 + 23000);
	assert_string_equal(out.buf, "4m23s");
	buf_reset(&out);
	clock_add_duration(&out, 0);
	assert_string_equal(out.buf, "0ms");
	buf_release(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_now_fixed),
		cmocka_unit_test(test_now_real),
		cmocka_unit_test(test_mono),
		cmocka_unit_test(test_age),
		cmocka_unit_test(test_age_appends),
		cmocka_unit_test(test_remaining),
		cmocka_unit_test(test_timestamp),
		cmocka_unit_test(test_duration),
	};

	return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}
