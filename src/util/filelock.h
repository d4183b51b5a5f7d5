/*
 * A write lock shared by every process that opens the same lock file: a
 * robust, process-shared mutex in a memory-mapped file.
 *
 * Why not flock(2): when a flock is released the kernel wakes every
 * waiter, they all race, one wins and the rest go back to sleep. With many
 * processes on few cores that herd starves the holder itself, and waits
 * grow to seconds. A futex-based mutex wakes one waiter at a time. Robust:
 * when a holder dies (kill -9), the next locker takes the lock over
 * instead of waiting forever.
 */
#ifndef DAICHO_FILELOCK_H
#define DAICHO_FILELOCK_H

#include <stdint.h>

struct filelock;

/*
 * Open (creating and initialising when needed) the lock in file path.
 * Returns 0 with *out owned by the caller (filelock_close()), or -1 with
 * errno set.
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
