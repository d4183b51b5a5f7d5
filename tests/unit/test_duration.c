/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for util/duration: "500ms", "20s", "30m", "4h", "2d"; anything
 * else (no unit, fraction, sign, spaces, overflow) is refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "util/duration.h"

/* Mismatches found in the current test; each test fails if any. */
static size_t failures;

static void
expect_ms(const char *text, int64_t want)
{
	int64_t ms = -12345;
	int rc = duration_parse(text, &ms);

	if (rc != 0) {
		print_error("duration_parse(\"%s\") = %d, want 0\n", text, rc);
		failures++;
	} else if (ms != want) {
		print_error("duration_parse(\"%s\") gave %lld ms, want %lld\n",
		    text, (long long)ms, (long long)want);
		failures++;
	}
}

static void
expect_bad(const char *text)
{
	int64_t ms = -12345;
	int rc = duration_parse(text, &ms);

	if (rc != -1) {
		print_error("duration_parse(\"%s\") = %d (ms %lld), want -1\n",
		    text, rc, (long long)ms);
		failures++;
	}
}

static void
test_units(void **state)
{
	failures = 0;
	expect_ms("500ms", 500);
	expect_ms("20s", 20000);
	expect_ms("30m", 30 * 60 * 1000);
	expect_ms("4h", 4LL * 3600 * 1000);
	expect_ms("2d", 2LL * 86400 * 1000);
	if (failures)
		fail_msg("%zu cases wrong", failures);
}

static void
test_edges(void **state)
{
	failures = 0;
	expect_ms("0s", 0);
	expect_ms("0ms", 0);
	expect_ms("1ms", 1);
	expect_ms("1s", 1000);
	expect_ms("1m", 60000);
	expect_ms("1h", 3600000);
	expect_ms("1d", 86400000);
	expect_ms("90s", 90000);
	expect_ms("007s", 7000);
	expect_ms("1000ms", 1000);
	expect_ms("365d", 365LL * 86400 * 1000);
	/* The largest value that fits in int64 milliseconds. */
	expect_ms("9223372036854775807ms", INT64_MAX);
	if (failures)
		fail_msg("%zu cases wrong", failures);
}

static void
test_rejects(void **state)
{
	failures = 0;
	expect_bad("");
	expect_bad("10");
	expect_bad("x");
	expect_bad("s");
	expect_bad("ms");
	expect_bad("-5s");
	expect_bad("+5s");
	expect_bad("1.5h");
	expect_bad(".5h");
	expect_bad("5 s");
	expect_bad(" 5s");
	expect_bad("5s ");
	expect_bad("5s\n");
	expect_bad("5sec");
	expect_bad("5S");
	expect_bad("5H");
	expect_bad("5y");
	expect_bad("5w");
	expect_bad("5us");
	expect_bad("5m5s");
	expect_bad("5ss");
	expect_bad("5msx");
	expect_bad("0x10s");
	expect_bad("1e3ms");
	if (failures)
		fail_msg("%zu cases wrong", failures);
}

static void
test_overflow(void **state)
{
	failures = 0;
	/* Values whose millisecond count does not fit in int64. */
	expect_bad("9223372036854775808ms");
	expect_bad("99999999999999999999ms");
	expect_bad("9223372036854776s");
	expect_bad("153722867280913m");
	expect_bad("2562047788016h");
	expect_bad("106751991168d");
	expect_bad("999999999999999999999999999999d");
	/* The largest of each unit that still fits. */
	expect_ms("9223372036854775s", 9223372036854775000LL);
	expect_ms("153722867280912m", 153722867280912LL * 60000);
	expect_ms("2562047788015h", 2562047788015LL * 3600000);
	expect_ms("106751991167d", 106751991167LL * 86400000);
	if (failures)
		fail_msg("%zu cases wrong", failures);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_overflow),
	};

	return cmocka_run_group_tests_name("duration", tests, NULL, NULL);
}
