/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * A write lock shared by every process that opens the same lock file: a
 * ticket lock in a memory-mapped file, first come first served.
 *
 * Why not flock(2): when a flock is released the kernel wakes every
 * waiter, they all race, one wins and the rest go back to sleep. With many
 * processes on few cores that herd starves the holder itself, and waits
 * grow to seconds. Why not a plain futex mutex: it wakes one waiter, but a
 * process that just arrived can take the lock first, again and again, so
 * some waiters still wait seconds. Here each waiter sleeps on its own futex
 * word and is woken only when its ticket is served. A ticket whose process
 * died (kill -9, holding or waiting) is skipped by the next in line, so a
 * crash never wedges the queue. At most 240 processes queue at once; more
 * wait to enter the queue.
 */
#ifndef DAICHO_FILELOCK_H
#define DAICHO_FILELOCK_H

#include <stdint.h>

struct filelock;

/*
 * Open (creating and initialising when needed) the lock in file path,
 * which must not be a symbolic link (-1 with errno ELOOP: a link would aim
 * our writes at another file). Returns 0 with *out owned by the caller
 * (filelock_close()), or -1 with errno set.
 */
int filelock_open(const char *path, struct filelock **out);

/*
 * Take the lock, waiting at most timeout_ms. Returns 0 when taken, 1 when
 * the wait timed out, -1 on error (errno set).
 */
int filelock_acquire(struct filelock *lock, int64_t timeout_ms);

/* Take the lock only if it is free now: 0 taken, 1 busy, -1 error. */
int filelock_try(struct filelock *lock);

void filelock_release(struct filelock *lock);

void filelock_close(struct filelock *lock);

#endif
