#include "util/filelock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"

#define FILELOCK_MAGIC 0x4441494cu /* "DAIL" */
#define FILELOCK_BYTES 4096

/* The shared page. magic is written last, once the mutex is ready. */
struct shared {
	_Atomic uint32_t magic;
	uint32_t mutex_bytes;      /* sizeof(pthread_mutex_t) of the writer */
	pthread_mutex_t mutex;
};

struct filelock {
	int fd;
	struct shared *shared;
};

_Static_assert(sizeof(struct shared) <= FILELOCK_BYTES, "shared page too small");

/* Initialise the mutex; the caller holds the file's flock. */
static int
init_mutex(struct shared *shared)
{
	pthread_mutexattr_t attr;
	int rc;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	rc = pthread_mutex_init(&shared->mutex, &attr);
	pthread_mutexattr_destroy(&attr);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	shared->mutex_bytes = sizeof(pthread_mutex_t);
	atomic_store_explicit(&shared->magic, FILELOCK_MAGIC, memory_order_release);
	return 0;
}

static bool
ready(struct shared *shared)
{
	return atomic_load_explicit(&shared->magic, memory_order_acquire) ==
		   FILELOCK_MAGIC &&
	       shared->mutex_bytes == sizeof(pthread_mutex_t);
}

int
filelock_open(const char *path, struct filelock **out)
{
	struct filelock *lock;
	struct stat st;
	void *map;
	int fd, saved;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
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
	lock = xcalloc(1, sizeof(*lock));
	lock->fd = fd;
	lock->shared = map;
	if (!ready(lock->shared)) {
		int rc = 0;

		flock(fd, LOCK_EX);
		if (!ready(lock->shared))
			rc = init_mutex(lock->shared);
		flock(fd, LOCK_UN);
		if (rc < 0) {
			saved = errno;
			filelock_close(lock);
			errno = saved;
			return -1;
		}
	}
	*out = lock;
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

/* Turn a pthread lock result into ours, taking over a dead holder's lock. */
static int
settle(struct filelock *lock, int rc)
{
	if (rc == EOWNERDEAD) {
		/* Its transaction never committed: SQLite rolled it back. */
		pthread_mutex_consistent(&lock->shared->mutex);
		return 0;
	}
	if (rc == 0)
		return 0;
	if (rc == ETIMEDOUT || rc == EBUSY)
		return 1;
	if (rc == ENOTRECOVERABLE) {
		/* A holder died during a takeover: start the mutex afresh. */
		flock(lock->fd, LOCK_EX);
		atomic_store(&lock->shared->magic, 0);
		rc = init_mutex(lock->shared);
		flock(lock->fd, LOCK_UN);
		return rc < 0 ? -1 : 1;
	}
	errno = rc;
	return -1;
}

int
filelock_acquire(struct filelock *lock, int64_t timeout_ms)
{
	struct timespec deadline;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (timeout_ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	for (;;) {
		rc = settle(lock, pthread_mutex_clocklock(&lock->shared->mutex,
				      CLOCK_MONOTONIC, &deadline));
		if (rc != 1)
			return rc;
		/* A timeout is final; a recovered mutex is tried again. */
		{
			struct timespec now;

			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > deadline.tv_sec ||
			    (now.tv_sec == deadline.tv_sec &&
				now.tv_nsec >= deadline.tv_nsec))
				return 1;
		}
	}
}

int
filelock_try(struct filelock *lock)
{
	return settle(lock, pthread_mutex_trylock(&lock->shared->mutex));
}

void
filelock_release(struct filelock *lock)
{
	pthread_mutex_unlock(&lock->shared->mutex);
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
