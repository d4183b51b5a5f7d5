/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/prefault.h"

#include <elf.h>
#include <link.h>
#include <malloc.h>
#include <stdbool.h>
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

/* madvise(advice) over the whole pages spanning [from, to): 0 or -1. */
static int
advise_span(uintptr_t from, uintptr_t to, int advice)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = from & ~(page - 1);
	uintptr_t stop = (to + page - 1) & ~(page - 1);

	if (stop <= start)
		return 0;
	return madvise((void *)start, stop - start, advice);
}

void
prefault_writable(void *addr, size_t len)
{
	(void)advise_span((uintptr_t)addr, (uintptr_t)addr + len,
	    MADV_POPULATE_WRITE);
}

/* What map_segments did: how many ranges the kernel mapped. */
struct mapped {
	int ranges;
};

/*
 * dl_iterate_phdr callback: map every loaded segment of every object (the
 * program; in a dynamic build its libraries too), code and read-only data
 * for reading, data and bss for writing, except the part made read-only
 * after relocation (PT_GNU_RELRO), which is read.
 */
static int
map_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct mapped *mapped = arg;
	uintptr_t relro_start = 0, relro_end = 0;

	(void)size;
	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_GNU_RELRO) {
			relro_start = info->dlpi_addr + ph->p_vaddr;
			relro_end = relro_start + ph->p_memsz;
		}
	}
	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		uintptr_t stop = start + ph->p_memsz;

		if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
			continue;
		if (!(ph->p_flags & PF_W)) {
			mapped->ranges += advise_span(start, stop,
			    MADV_POPULATE_READ) == 0;
			continue;
		}
		if (relro_end > start && relro_start < stop) {
			mapped->ranges += advise_span(start, relro_end,
			    MADV_POPULATE_READ) == 0;
			start = relro_end;
		}
		mapped->ranges += advise_span(start, stop, MADV_POPULATE_WRITE) == 0;
	}
	return 0;
}

void
prefault_memory(size_t heap_bytes)
{
	void *volatile grown;
	uintptr_t block;
	char *top;
	struct mapped mapped = { 0 };

	dl_iterate_phdr(map_segments, &mapped);
	/*
	 * A kernel that cannot populate (before 5.14) refuses every range;
	 * then malloc is left exactly as it was.
	 */
	if (mapped.ranges == 0 || heap_bytes == 0 ||
	    heap_bytes >= PREFAULT_MMAP_THRESHOLD)
		return;
	/*
	 * Keep heap_bytes at the top of the heap when it shrinks, and serve
	 * mid-sized blocks from it: the defaults give back all but 128 KB and
	 * map every block of 128 KB or more afresh. (A fixed threshold also
	 * stops glibc raising it after large blocks are freed: a long-running
	 * command maps each block of 1 MB or more afresh, as short ones do.)
	 */
	mallopt(M_TOP_PAD, (int)heap_bytes);
	mallopt(M_MMAP_THRESHOLD, PREFAULT_MMAP_THRESHOLD);
	/*
	 * A block larger than any free one comes from the top of the heap,
	 * growing it; freed, it is where the next allocations come from.
	 * (volatile: the compiler may not elide the pair.)
	 */
	grown = malloc(heap_bytes);
	block = (uintptr_t)grown;
	free(grown);
	/* Only a heap grown by sbrk, as glibc's is: not an allocator's own. */
	top = sbrk(0);
	if (block != 0 && block < (uintptr_t)top &&
	    (uintptr_t)top - block <= 2 * heap_bytes + 4096)
		(void)advise_span(block, (uintptr_t)top, MADV_POPULATE_WRITE);
}
