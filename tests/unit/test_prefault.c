/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for util/prefault: the memory a command is about to use is
 * mapped before it is touched, stays mapped, and large blocks still go
 * back to the kernel. Residency is read with mincore(2), which reports the
 * pages of an anonymous mapping that are present.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/prefault.h"

#define KB 1024
#define MB (1024 * 1024)

static size_t page;

/* Whether this kernel maps pages on request (MADV_POPULATE_WRITE, 5.14). */
static bool
kernel_can_populate(void)
{
	void *p = mmap(NULL, page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool ok;

	assert_true(p != MAP_FAILED);
	ok = madvise(p, page, 23 /* MADV_POPULATE_WRITE */) == 0;
	munmap(p, page);
	return ok;
}

/* How many of the whole pages inside [p, p + len) are present. */
static size_t
present_pages(const void *p, size_t len)
{
	uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t stop = ((uintptr_t)p + len) & ~(page - 1);
	size_t n = (stop - start) / page, present = 0;
	unsigned char *vec = calloc(n ? n : 1, 1);

	assert_non_null(vec);
	assert_int_equal(mincore((void *)start, stop - start, vec), 0);
	for (size_t i = 0; i < n; i++)
		present += vec[i] & 1;
	free(vec);
	return present;
}

/* Full pages inside a block of len bytes at p. */
static size_t
whole_pages(const void *p, size_t len)
{
	uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t stop = ((uintptr_t)p + len) & ~(page - 1);

	return (stop - start) / page;
}

/* Write every page of [p, p + len) (volatile: not a dead store). */
static void
touch(char *p, size_t len)
{
	for (size_t i = 0; i < len; i += page)
		((volatile char *)p)[i] = 1;
}

/* Never touched by the program: in .bss, mapped only if prefaulted. */
static char untouched_data[256 * KB];

/*
 * Whether malloc serves from a heap grown by sbrk, the one prefault_memory
 * maps (not so under AddressSanitizer, whose allocator is its own, or with
 * glibc tunables that change how the heap grows).
 */
static bool
glibc_heap(void)
{
	void *p = malloc(64), *heap_end = sbrk(0);
	bool below_break = p != NULL && (uintptr_t)p < (uintptr_t)heap_end;

	free(p);
	return below_break && getenv("GLIBC_TUNABLES") == NULL;
}

static int
setup(void **state)
{
	(void)state;
	page = (size_t)sysconf(_SC_PAGESIZE);
	if (!kernel_can_populate())
		return 0; /* each test skips */
	prefault_memory(512 * KB);
	return 0;
}

static void
skip_without_glibc_heap(void)
{
	if (!kernel_can_populate() || !glibc_heap())
		skip();
}

/* The program's data and bss are mapped before they are first used. */
static void
test_data_is_mapped_before_use(void **state)
{
	(void)state;
	if (!kernel_can_populate())
		skip();
	assert_int_equal(present_pages(untouched_data, sizeof(untouched_data)),
	    whole_pages(untouched_data, sizeof(untouched_data)));
}

/* A block the size of a claim's heap is mapped before it is first touched. */
static void
test_heap_is_mapped_before_use(void **state)
{
	char *block;

	(void)state;
	skip_without_glibc_heap();
	block = malloc(320 * KB);
	assert_non_null(block);
	assert_int_equal(present_pages(block, 320 * KB), whole_pages(block, 320 * KB));
	free(block);
}

/* Freeing it does not give it back: the next command's blocks find it. */
static void
test_heap_stays_mapped_after_free(void **state)
{
	char *block;

	(void)state;
	skip_without_glibc_heap();
	block = malloc(400 * KB);
	assert_non_null(block);
	touch(block, 400 * KB);
	free(block);
	block = malloc(400 * KB);
	assert_non_null(block);
	assert_int_equal(present_pages(block, 400 * KB), whole_pages(block, 400 * KB));
	free(block);
}

/*
 * A large body still gets a mapping of its own, untouched until used. Only
 * its end is looked at: the write of the block's header may bring in a
 * whole huge page at its start.
 */
static void
test_large_blocks_are_not_mapped_ahead(void **state)
{
	char *block;

	(void)state;
	skip_without_glibc_heap();
	block = malloc(8 * MB);
	assert_non_null(block);
	assert_int_equal(present_pages(block + 5 * MB, 3 * MB), 0);
	free(block);
}

/* prefault_writable maps exactly the pages the range touches. */
static void
test_writable_range_maps_its_pages(void **state)
{
	char *map;

	(void)state;
	if (!kernel_can_populate())
		skip();
	map = mmap(NULL, 8 * page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(map != MAP_FAILED);
	prefault_writable(map + page + 100, 2 * page); /* pages 1 to 3 */
	assert_int_equal(present_pages(map, page), 0);
	assert_int_equal(present_pages(map + page, 3 * page), 3);
	assert_int_equal(present_pages(map + 4 * page, 4 * page), 0);
	munmap(map, 8 * page);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_is_mapped_before_use),
		cmocka_unit_test(test_heap_is_mapped_before_use),
		cmocka_unit_test(test_heap_stays_mapped_after_free),
		cmocka_unit_test(test_large_blocks_are_not_mapped_ahead),
		cmocka_unit_test(test_writable_range_maps_its_pages),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
