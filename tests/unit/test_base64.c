/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for util/base64: RFC 4648's test vectors both ways, every
 * byte value through a round trip, and refusal of what is not base64.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "util/base64.h"

static void
test_rfc_vectors(void **state)
{
	static const char *const pairs[][2] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" },
		{ "foobar", "Zm9vYmFy" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct buf enc = BUF_INIT, dec = BUF_INIT;

		base64_encode(&enc, pairs[i][0], strlen(pairs[i][0]));
		assert_string_equal(enc.buf, pairs[i][1]);
		assert_int_equal(base64_decode(&dec, enc.buf, enc.len), 0);
		assert_string_equal(dec.buf, pairs[i][0]);
		buf_release(&enc);
		buf_release(&dec);
	}
}

static void
test_every_byte(void **state)
{
	unsigned char bytes[256];
	struct buf enc = BUF_INIT, dec = BUF_INIT;

	(void)state;
	for (int i = 0; i < 256; i++)
		bytes[i] = (unsigned char)(255 - i);
	for (size_t len = 250; len <= 256; len++) {
		buf_reset(&enc);
		buf_reset(&dec);
		base64_encode(&enc, bytes, len);
		assert_int_equal(base64_decode(&dec, enc.buf, enc.len), 0);
		assert_int_equal(dec.len, len);
		assert_memory_equal(dec.buf, bytes, len);
	}
	buf_release(&enc);
	buf_release(&dec);
}

/* Bytes that are not text, appended after what the buffer holds. */
static void
test_appends(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	buf_adds(&b, "x:");
	base64_encode(&b, "a\0b\377", 4);
	assert_string_equal(b.buf, "x:YQBi/w==");
	buf_release(&b);
}

static void
test_refuses_garbage(void **state)
{
	static const char *const bad[] = { "Zg=", "Z===", "Zm9v!A==", "Zm 9",
		"=Zm9" };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct buf dec = BUF_INIT;

		assert_int_equal(base64_decode(&dec, bad[i], strlen(bad[i])), -1);
		buf_release(&dec);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc_vectors),
		cmocka_unit_test(test_every_byte),
		cmocka_unit_test(test_appends),
		cmocka_unit_test(test_refuses_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
