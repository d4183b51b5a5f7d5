/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Map in advance the memory a short-lived process is about to touch.
 *
 * Most daicho processes live for one command of a few milliseconds. On the
 * virtual machines we measure on, the first touch of a page is a fault of
 * ~11 us; mapping pages ahead in one madvise costs ~0.6 us a page, and their
 * first touch ~5 us (the hypervisor still fills its own tables). A claim on
 * a large ledger took ~135 faults; with this, ~50 (bench/RESULTS.md).
 */
#ifndef DAICHO_PREFAULT_H
#define DAICHO_PREFAULT_H

#include <stddef.h>

/*
 * Map the loaded segments (the program's code, read-only data and data; in
 * a dynamic build its libraries' too) and heap_bytes (less than 1 MB) of
 * heap before they are touched, and keep that much heap mapped afterwards
 * (malloc neither returns it to the kernel nor serves blocks under 1 MB
 * with fresh mappings). Call before the command's real work, in a process
 * without threads. Best effort: a kernel without MADV_POPULATE_* (before
 * Linux 5.14) leaves everything as it was, malloc's settings included; an
 * allocator other than glibc's gets the settings but no heap mapped ahead.
 */
void prefault_memory(size_t heap_bytes);

/* Map the writable pages spanning [addr, addr + len) now. Best effort. */
void prefault_writable(void *addr, size_t len);

#endif
