#include "util/prefault.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Blocks this large still get mappings of their own, which free() returns. */
#define PREFAULT_MMAP_THRESHOLD (1 << 20)

/* The linker's names for where the program's code and data begin and end. */
extern char __executable_start[], etext[], __data_start[], end[];

/* madvise(advice) over the whole pages spanning [from, to). */
static void
advise_span(const void *from, const void *to, int advice)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)from & ~(page - 1);
	uintptr_t stop = ((uintptr_t)to + page - 1) & ~(page - 1);

	if (stop > start)
		(void)madvise((void *)start, stop - start, advice);
}

void
prefault_writable(void *addr, size_t len)
{
	advise_span(addr, (char *)addr + len, MADV_POPULATE_WRITE);
}

void
prefault_memory(size_t heap_bytes)
{
	void *volatile grown;
	char *top;

	advise_span(__executable_start, etext, MADV_POPULATE_READ);
	advise_span(__data_start, end, MADV_POPULATE_WRITE);
	if (heap_bytes == 0 || heap_bytes >= PREFAULT_MMAP_THRESHOLD)
		return;
	/*
	 * Keep heap_bytes at the top of the heap when it shrinks, and serve
	 * mid-sized blocks from it: the defaults give back all but 128 KB and
	 * map every block of 128 KB or more afresh.
	 */
	mallopt(M_TOP_PAD, (int)heap_bytes);
	mallopt(M_MMAP_THRESHOLD, PREFAULT_MMAP_THRESHOLD);
	/*
	 * A block larger than any free one comes from the top of the heap,
	 * growing it; freed, it is where the next allocations come from.
	 * (volatile: the compiler may not elide the pair.)
	 */
	grown = malloc(heap_bytes);
	free(grown);
	/* Only a heap grown by sbrk, as glibc's is: not an allocator's own. */
	top = sbrk(0);
	if (grown != NULL && (char *)grown < top &&
	    (size_t)(top - (char *)grown) <= 2 * heap_bytes + 4096)
		advise_span(grown, top, MADV_POPULATE_WRITE);
}
