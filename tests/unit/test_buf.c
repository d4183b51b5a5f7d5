/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for util/buf: the growable byte string and its invariants
 * (never NULL, always NUL-terminated, embedded NULs kept, detach/release).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"

/* Check the written invariants of any buf. */
static void
assert_buf_ok(const struct buf *b)
{
	assert_non_null(b->buf);
	assert_int_equal(b->buf[b->len], '\0');
	if (b->alloc == 0)
		assert_int_equal(b->len, 0);
	else
		assert_true(b->len < b->alloc);
}

static void
test_init_empty(void **state)
{
	struct buf a = BUF_INIT;
	struct buf b;

	memset(&b, 0xa5, sizeof(b));
	buf_init(&b);
	assert_buf_ok(&a);
	assert_buf_ok(&b);
	assert_int_equal(a.len, 0);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.alloc, 0);
	assert_ptr_equal(b.buf, buf_empty);
	assert_string_equal(b.buf, "");
	buf_release(&a);
	buf_release(&b);
}

static void
test_add_and_adds(void **state)
{
	struct buf b = BUF_INIT;

	buf_add(&b, "hello", 5);
	assert_buf_ok(&b);
	assert_int_equal(b.len, 5);
	assert_string_equal(b.buf, "hello");
	buf_adds(&b, ", world");
	assert_buf_ok(&b);
	assert_int_equal(b.len, 12);
	assert_string_equal(b.buf, "hello, world");
	buf_addch(&b, '!');
	assert_int_equal(b.len, 13);
	assert_string_equal(b.buf, "hello, world!");
	/* Adding nothing keeps the contents. */
	buf_add(&b, "", 0);
	buf_adds(&b, "");
	assert_int_equal(b.len, 13);
	assert_string_equal(b.buf, "hello, world!");
	buf_release(&b);
}

static void
test_add_nothing_to_empty(void **state)
{
	struct buf b = BUF_INIT;

	buf_add(&b, "", 0);
	assert_buf_ok(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.buf, "");
	buf_adds(&b, "");
	assert_buf_ok(&b);
	assert_int_equal(b.len, 0);
	buf_release(&b);
}

static void
test_embedded_nuls(void **state)
{
	struct buf b = BUF_INIT;
	static const char data[] = { 'a', '\0', 'b', '\0', '\0', 'c' };

	buf_add(&b, data, sizeof(data));
	assert_buf_ok(&b);
	assert_int_equal(b.len, 6);
	assert_memory_equal(b.buf, data, 6);
	buf_addch(&b, '\0');
	assert_buf_ok(&b);
	assert_int_equal(b.len, 7);
	assert_int_equal(b.buf[6], '\0');
	buf_adds(&b, "z");
	assert_int_equal(b.len, 8);
	assert_int_equal(b.buf[7], 'z');
	assert_int_equal(b.buf[8], '\0');
	buf_release(&b);
}

static void
test_large_growth(void **state)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < 100000; i++) {
		buf_addch(&b, (char)('a' + i % 26));
		if (i % 9973 == 0)
			assert_buf_ok(&b);
	}
	assert_buf_ok(&b);
	assert_int_equal(b.len, 100000);
	for (i = 0; i < 100000; i++)
		if (b.buf[i] != (char)('a' + i % 26))
			fail_msg("byte %zu is %c", i, b.buf[i]);
	buf_release(&b);
}

static void
test_grow_keeps_contents(void **state)
{
	struct buf b = BUF_INIT;

	buf_grow(&b, 1000);
	assert_buf_ok(&b);
	assert_int_equal(b.len, 0);
	assert_true(b.alloc >= 1001);
	assert_string_equal(b.buf, "");
	buf_adds(&b, "abc");
	buf_grow(&b, 1 << 20);
	assert_buf_ok(&b);
	assert_true(b.alloc >= (size_t)(1 << 20) + 4);
	assert_int_equal(b.len, 3);
	assert_string_equal(b.buf, "abc");
	buf_release(&b);
}

static void
test_addf(void **state)
{
	struct buf b = BUF_INIT;
	char big[5000];

	buf_addf(&b, "%d-%s-%c", 42, "x", 'y');
	assert_buf_ok(&b);
	assert_string_equal(b.buf, "42-x-y");
	assert_int_equal(b.len, 6);
	buf_addf(&b, "%s", "");
	assert_int_equal(b.len, 6);
	buf_addf(&b, "|%05.1f|%lld", 3.14159, (long long)-7);
	assert_string_equal(b.buf, "42-x-y|003.1|-7");
	assert_int_equal(b.len, strlen("42-x-y|003.1|-7"));

	/* A formatted string longer than any small initial allocation. */
	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	buf_addf(&b, "<%s>", big);
	assert_buf_ok(&b);
	assert_int_equal(b.len, 15 + 2 + 4999);
	assert_int_equal(b.buf[15], '<');
	assert_int_equal(b.buf[15 + 1 + 4998], 'q');
	assert_int_equal(b.buf[b.len - 1], '>');
	buf_release(&b);
}

static void
test_addf_nul_via_format(void **state)
{
	struct buf b = BUF_INIT;

	/* %c with 0 puts a NUL into the bytes; len counts it. */
	buf_addf(&b, "a%cb", 0);
	assert_buf_ok(&b);
	assert_int_equal(b.len, 3);
	assert_memory_equal(b.buf, "a\0b", 3);
	buf_release(&b);
}

static void
vaddf_helper(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

static void
test_vaddf(void **state)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "pre:");
	vaddf_helper(&b, "%s=%d", "n", 5);
	assert_string_equal(b.buf, "pre:n=5");
	assert_int_equal(b.len, 7);
	buf_release(&b);
}

static void
test_reset(void **state)
{
	struct buf b = BUF_INIT;

	buf_reset(&b);
	assert_buf_ok(&b);
	assert_int_equal(b.len, 0);
	buf_adds(&b, "something");
	buf_reset(&b);
	assert_buf_ok(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.buf, "");
	buf_adds(&b, "xy");
	assert_string_equal(b.buf, "xy");
	assert_int_equal(b.len, 2);
	buf_release(&b);
}

static void
test_release_leaves_reusable(void **state)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "data");
	buf_release(&b);
	assert_buf_ok(&b);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.alloc, 0);
	assert_ptr_equal(b.buf, buf_empty);
	/* Releasing twice is harmless. */
	buf_release(&b);
	assert_buf_ok(&b);
	buf_adds(&b, "again");
	assert_string_equal(b.buf, "again");
	buf_release(&b);
	/* buf_empty itself is never written to. */
	assert_int_equal(buf_empty[0], '\0');
}

static void
test_detach(void **state)
{
	struct buf b = BUF_INIT;
	size_t len = 999;
	char *s;

	buf_add(&b, "a\0bc", 4);
	s = buf_detach(&b, &len);
	assert_non_null(s);
	assert_int_equal(len, 4);
	assert_memory_equal(s, "a\0bc", 5); /* terminator included */
	/* The buf is empty and reusable afterwards. */
	assert_buf_ok(&b);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.alloc, 0);
	assert_ptr_not_equal(b.buf, s);
	buf_adds(&b, "new");
	assert_string_equal(b.buf, "new");
	assert_memory_equal(s, "a\0bc", 5); /* not disturbed */
	free(s);
	/* Length pointer may be NULL. */
	s = buf_detach(&b, NULL);
	assert_string_equal(s, "new");
	free(s);
	buf_release(&b);
}

static void
test_detach_empty_is_freeable(void **state)
{
	struct buf b = BUF_INIT;
	size_t len = 999;
	char *s;

	s = buf_detach(&b, &len);
	assert_non_null(s);
	assert_ptr_not_equal(s, buf_empty); /* must be the caller's to free */
	assert_int_equal(len, 0);
	assert_string_equal(s, "");
	free(s);
	assert_buf_ok(&b);
	assert_int_equal(buf_empty[0], '\0');

	/* Also after buf_reset of an allocated buf. */
	buf_adds(&b, "x");
	buf_reset(&b);
	s = buf_detach(&b, &len);
	assert_non_null(s);
	assert_int_equal(len, 0);
	assert_string_equal(s, "");
	free(s);
	buf_release(&b);
}

static void
test_read_fd_pipe_with_nuls(void **state)
{
	struct buf b = BUF_INIT;
	int fds[2];
	static const char data[] = { 'x', '\0', 'y', '\n', '\0' };

	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], data, sizeof(data)), (ssize_t)sizeof(data));
	close(fds[1]);
	buf_adds(&b, "pre");
	assert_int_equal(buf_read_fd(&b, fds[0]), 0);
	close(fds[0]);
	assert_buf_ok(&b);
	assert_int_equal(b.len, 3 + sizeof(data));
	assert_memory_equal(b.buf, "pre", 3);
	assert_memory_equal(b.buf + 3, data, sizeof(data));
	buf_release(&b);
}

static void
test_read_fd_empty(void **state)
{
	struct buf b = BUF_INIT;
	int fds[2];

	assert_int_equal(pipe(fds), 0);
	close(fds[1]);
	assert_int_equal(buf_read_fd(&b, fds[0]), 0);
	close(fds[0]);
	assert_buf_ok(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.buf, "");
	buf_release(&b);
}

static void
test_read_fd_bad(void **state)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "kept");
	errno = 0;
	assert_int_equal(buf_read_fd(&b, -1), -1);
	assert_int_equal(errno, EBADF);
	assert_buf_ok(&b);
	assert_int_equal(b.len, 4);
	assert_string_equal(b.buf, "kept");
	buf_release(&b);
}

static char *
make_temp_file(const void *data, size_t len)
{
	char *path = strdup("/tmp/daicho-test-buf-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	if (len)
		assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	return path;
}

static void
test_read_file(void **state)
{
	struct buf b = BUF_INIT;
	size_t n = 300000, i;
	unsigned char *data = malloc(n);
	char *path;

	assert_non_null(data);
	for (i = 0; i < n; i++)
		data[i] = (unsigned char)(i * 7 + (i >> 8));
	path = make_temp_file(data, n);
	buf_addch(&b, 'P');
	assert_int_equal(buf_read_file(&b, path), 0);
	assert_buf_ok(&b);
	assert_int_equal(b.len, n + 1);
	assert_int_equal(b.buf[0], 'P');
	assert_memory_equal(b.buf + 1, data, n);
	unlink(path);
	free(path);
	free(data);
	buf_release(&b);
}

static void
test_read_file_empty(void **state)
{
	struct buf b = BUF_INIT;
	char *path = make_temp_file("", 0);

	assert_int_equal(buf_read_file(&b, path), 0);
	assert_buf_ok(&b);
	assert_int_equal(b.len, 0);
	unlink(path);
	free(path);
	buf_release(&b);
}

static void
test_read_file_missing(void **state)
{
	struct buf b = BUF_INIT;

	errno = 0;
	assert_int_equal(buf_read_file(&b, "/nonexistent/daicho/no-such-file"),
	    -1);
	assert_int_equal(errno, ENOENT);
	assert_buf_ok(&b);
	assert_int_equal(b.len, 0);
	buf_release(&b);
}

static void
test_read_file_directory(void **state)
{
	struct buf b = BUF_INIT;

	errno = 0;
	assert_int_equal(buf_read_file(&b, "/tmp"), -1);
	assert_int_equal(errno, EISDIR);
	assert_buf_ok(&b);
	buf_release(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_empty),
		cmocka_unit_test(test_add_and_adds),
		cmocka_unit_test(test_add_nothing_to_empty),
		cmocka_unit_test(test_embedded_nuls),
		cmocka_unit_test(test_large_growth),
		cmocka_unit_test(test_grow_keeps_contents),
		cmocka_unit_test(test_addf),
		cmocka_unit_test(test_addf_nul_via_format),
		cmocka_unit_test(test_vaddf),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_release_leaves_reusable),
		cmocka_unit_test(test_detach),
		cmocka_unit_test(test_detach_empty_is_freeable),
		cmocka_unit_test(test_read_fd_pipe_with_nuls),
		cmocka_unit_test(test_read_fd_empty),
		cmocka_unit_test(test_read_fd_bad),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_read_file_empty),
		cmocka_unit_test(test_read_file_missing),
		cmocka_unit_test(test_read_file_directory),
	};

	return cmocka_run_group_tests_name("buf", tests, NULL, NULL);
}
