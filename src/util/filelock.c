/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/filelock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/prefault.h"
#include "util/proc.h"

#define FILELOCK_MAGIC 0x44414950u /* "DAIP": ticket lock, layout 5 */
#define FILELOCK_BYTES 8192
#define SLOTS 256                  /* waiters that can queue at once */
#define CHECK_MS 50                /* how often a waiter looks for the dead */

/*
 * The shared pages: a ticket lock. A locker takes the next ticket and waits
 * until "serving" reaches it; unlocking serves the next ticket and wakes
 * only the process waiting for that one (each waits on its own slot's
 * futex word), so the lock is handed over first come, first served, with
 * no thundering herd. pid[slot] and mark[slot] record who holds each
 * ticket (a pid alone is not enough: pids are reused within minutes when
 * pid_max is 32768), so that a ticket whose process died (holding or
 * waiting) is skipped by the next in line: a kill -9 never wedges the
 * queue.
 *
 * The mark is the boot-time clock, in the kernel's clock ticks, read by
 * the taker (layout 3 stored the taker's start time, which costs a read of
 * /proc/self/stat: 0.2 ms here, a twentieth of a claim). The process that
 * wrote a mark started at or before it; a later process given the same pid
 * starts after it. So the pid's holder is the ticket's taker exactly when
 * its start time, from /proc/PID/stat in the same ticks, is at or before
 * the mark. (A pid reused within the same 10 ms tick would pass for the
 * taker; that takes pid_max process creations in 10 ms.)
 *
 * Marks compare only within one boot and pids only within one pid
 * namespace, and the file outlives both. So the file records the boot it
 * belongs to (the wall-clock time of the boot, to the second), and a
 * process that finds another boot's file starts the queue afresh: every
 * process of that boot is gone. Each slot records its taker's pid
 * namespace, and a ticket taken in another namespace is treated as dead,
 * as layout 3 treated it (its pid means nothing here).
 */
struct shared {
	_Atomic uint32_t magic;
	_Atomic int64_t boot_s;         /* wall-clock time of this boot */
	_Atomic uint32_t next;          /* the next ticket to hand out */
	_Atomic uint32_t serving;       /* the ticket that may hold the lock */
	_Atomic uint32_t turn[SLOTS];   /* futex words: serving, per slot */
	_Atomic int32_t pid[SLOTS];     /* ticket holder; 0 unknown, -1 gone */
	_Atomic uint64_t mark[SLOTS];   /* taken no earlier: pids are reused */
	_Atomic uint64_t pidns[SLOTS];  /* the taker's pid namespace, or 0 */
};

struct filelock {
	int fd;
	struct shared *shared;
	uint64_t pidns;                 /* this process's pid namespace, or 0 */
	uint32_t ticket;                /* ours, while we hold the lock */
	uint32_t unknown_serving;       /* a served ticket with no pid yet... */
	int64_t unknown_since_ms;       /* ...since when */
};

_Static_assert(sizeof(struct shared) <= FILELOCK_BYTES, "shared pages too small");

static long
futex(_Atomic uint32_t *word, int op, uint32_t value,
    const struct timespec *timeout)
{
	return syscall(SYS_futex, (uint32_t *)word, op, value, timeout, NULL, 0);
}

/* Within this much, two readings of the boot's wall-clock time are the
 * same boot (the clock may be stepped a little while the machine runs). */
#define BOOT_SLACK_S 2

/* The wall-clock time this machine booted, in seconds. */
static int64_t
boot_time_s(void)
{
	struct timespec real, boot;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	return (int64_t)real.tv_sec - (int64_t)boot.tv_sec;
}

/* This process's pid namespace (its inode number), or 0 if unknown. */
static uint64_t
pid_namespace(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* Whether shared holds the queue of this boot, in the current layout. */
static bool
is_current(struct shared *shared, int64_t boot_s)
{
	int64_t drift = atomic_load(&shared->boot_s) - boot_s;

	return atomic_load(&shared->magic) == FILELOCK_MAGIC &&
	       drift <= BOOT_SLACK_S && drift >= -BOOT_SLACK_S;
}

int
filelock_open(const char *path, struct filelock **out)
{
	struct filelock *lock;
	struct stat st;
	void *map;
	int64_t boot_s;
	int fd, saved;

	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (st.st_size < FILELOCK_BYTES) {
		/* flock only guards creation, once per lock file. */
		if (flock(fd, LOCK_EX) < 0)
			goto fail;
		if (fstat(fd, &st) == 0 && st.st_size < FILELOCK_BYTES &&
		    ftruncate(fd, FILELOCK_BYTES) < 0) {
			saved = errno;
			flock(fd, LOCK_UN);
			errno = saved;
			goto fail;
		}
		flock(fd, LOCK_UN);
	}
	map = mmap(NULL, FILELOCK_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		goto fail;
	/* Every writer writes both pages: map them in one call. */
	prefault_writable(map, FILELOCK_BYTES);
	lock = xcalloc(1, sizeof(*lock));
	lock->fd = fd;
	lock->shared = map;
	lock->pidns = pid_namespace();
	boot_s = boot_time_s();
	if (!is_current(lock->shared, boot_s)) {
		/* A new (zeroed) file, an older layout, or a queue left by
		 * processes of an earlier boot: start afresh. */
		flock(fd, LOCK_EX);
		if (!is_current(lock->shared, boot_s)) {
			memset(map, 0, FILELOCK_BYTES);
			atomic_store(&lock->shared->boot_s, boot_s);
			atomic_store(&lock->shared->magic, FILELOCK_MAGIC);
		}
		flock(fd, LOCK_UN);
	}
	*out = lock;
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

/* Serve ticket `from + 1` if `from` is still being served; wake its waiter. */
static void
serve_after(struct shared *s, uint32_t from)
{
	uint32_t next = from + 1;

	if (atomic_compare_exchange_strong(&s->serving, &from, next)) {
		atomic_store(&s->turn[next % SLOTS], next);
		futex(&s->turn[next % SLOTS], FUTEX_WAKE, INT_MAX, NULL);
	}
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Now on the boot-time clock, in the clock ticks of /proc/PID/stat. */
static uint64_t
mark_now(void)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);

	if (hz <= 0)
		hz = 100;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * (uint64_t)hz +
	       (uint64_t)ts.tv_nsec / (1000000000u / (uint64_t)hz);
}

/*
 * Whether pid, which took a ticket with mark in pid namespace pidns, is
 * still that process, as seen from namespace my_pidns.
 */
static bool
is_taker(int32_t pid, uint64_t mark, uint64_t pidns, uint64_t my_pidns)
{
	uint64_t start;

	if (pidns != 0 && my_pidns != 0 && pidns != my_pidns)
		return false;
	start = proc_start_time(pid);
	return start != 0 && start <= mark;
}

/*
 * While waiting near the front of the queue: if the ticket being served
 * belongs to a process that is gone (died holding the lock or while queued,
 * or gave up), move on. A ticket whose taker died before writing its pid
 * shows pid 0; after two seconds of that it is taken for dead too.
 */
static void
skip_the_dead(struct filelock *lock)
{
	struct shared *s = lock->shared;

	/* Several dead tickets may lie in a row: skip them all now. */
	for (int skipped = 0; skipped < SLOTS; skipped++) {
		uint32_t serving = atomic_load(&s->serving);
		int32_t pid;

		if (serving == atomic_load(&s->next))
			return; /* nobody holds it */
		pid = atomic_load(&s->pid[serving % SLOTS]);
		if (pid == 0) {
			if (lock->unknown_serving != serving ||
			    lock->unknown_since_ms == 0) {
				lock->unknown_serving = serving;
				lock->unknown_since_ms = now_ms();
				return;
			}
			if (now_ms() - lock->unknown_since_ms <= 2000)
				return;
		} else if (pid != -1 &&
			   is_taker(pid, atomic_load(&s->mark[serving % SLOTS]),
			       atomic_load(&s->pidns[serving % SLOTS]),
			       lock->pidns)) {
			return; /* alive: its turn */
		}
		serve_after(s, serving);
	}
}

/* Mark ticket as ours: mark and namespace first, then the pid, so that a
 * reader that sees our pid sees our mark too. (One that still sees the
 * slot's previous pid takes the ticket for dead, and we queue again.) */
static void
take_slot(struct filelock *lock, uint32_t ticket)
{
	atomic_store(&lock->shared->mark[ticket % SLOTS], mark_now());
	atomic_store(&lock->shared->pidns[ticket % SLOTS], lock->pidns);
	atomic_store(&lock->shared->pid[ticket % SLOTS], (int32_t)getpid());
}

int
filelock_acquire(struct filelock *lock, int64_t timeout_ms)
{
	struct shared *s = lock->shared;
	int64_t deadline = now_ms() + timeout_ms;
	uint32_t ticket;

	/* Never queue more than the slots hold (two tickets, one slot). */
	while (atomic_load(&s->next) - atomic_load(&s->serving) >= SLOTS - 16) {
		struct timespec pause = { 0, 10 * 1000000L };

		if (now_ms() >= deadline)
			return 1;
		skip_the_dead(lock);
		nanosleep(&pause, NULL);
	}
	ticket = atomic_fetch_add(&s->next, 1);
	take_slot(lock, ticket);
	lock->unknown_since_ms = 0;
	for (unsigned round = 0;; round++) {
		uint32_t turn = atomic_load(&s->turn[ticket % SLOTS]);
		uint32_t serving = atomic_load(&s->serving);
		struct timespec pause = { 0, CHECK_MS * 1000000L };

		if (serving == ticket) {
			lock->ticket = ticket;
			return 0;
		}
		if ((int32_t)(serving - ticket) > 0) {
			/*
			 * Passed over: our slot still showed its previous
			 * holder's mark when our turn came. Queue again.
			 */
			ticket = atomic_fetch_add(&s->next, 1);
			take_slot(lock, ticket);
			continue;
		}
		if (now_ms() >= deadline) {
			/* Give the ticket up; if it just came up, pass it on. */
			atomic_store(&s->pid[ticket % SLOTS], -1);
			serve_after(s, ticket);
			return 1;
		}
		if (turn != ticket)
			futex(&s->turn[ticket % SLOTS], FUTEX_WAIT, turn, &pause);
		/*
		 * Look for the dead: the first few in line at every wake-up,
		 * the rest now and then (several dead tickets may lie ahead).
		 */
		if (ticket - atomic_load(&s->serving) <= 4 || round % 8 == 0)
			skip_the_dead(lock);
	}
}

int
filelock_try(struct filelock *lock)
{
	struct shared *s = lock->shared;
	uint32_t serving = atomic_load(&s->serving), expected = serving;

	/* Free means: nobody holds a ticket at or after serving. */
	if (!atomic_compare_exchange_strong(&s->next, &expected, serving + 1))
		return 1;
	take_slot(lock, serving);
	lock->ticket = serving;
	return 0;
}

void
filelock_release(struct filelock *lock)
{
	atomic_store(&lock->shared->pid[lock->ticket % SLOTS], -1);
	serve_after(lock->shared, lock->ticket);
}

void
filelock_close(struct filelock *lock)
{
	if (lock == NULL)
		return;
	munmap(lock->shared, FILELOCK_BYTES);
	close(lock->fd);
	free(lock);
}
