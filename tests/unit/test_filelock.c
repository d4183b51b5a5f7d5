/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for util/filelock: who the queue waits for and whom it skips.
 * The file under test is included, so that a test can plant a ticket in
 * the shared pages as a process of another kind (a reused pid, another
 * boot, another pid namespace) would have left it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "util/filelock.c"

struct fixture {
	char dir[PATH_MAX];
	char path[PATH_MAX + 16]; /* dir/lock */
	pid_t child;              /* a live process to plant, or 0 */
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/daicho-test-filelock-XXXXXX";

	if (f == NULL || mkdtemp(tmpl) == NULL || realpath(tmpl, f->dir) == NULL)
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/lock", f->dir);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	if (f->child > 0) {
		kill(f->child, SIGKILL);
		waitpid(f->child, NULL, 0);
	}
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* A child that lives until killed, started now; its pid. */
static pid_t
live_child(struct fixture *f)
{
	f->child = fork();
	assert_true(f->child >= 0);
	if (f->child == 0)
		for (;;)
			pause();
	return f->child;
}

/*
 * Plant a ticket held by pid, marked with mark in namespace pidns, as the
 * one being served.
 */
static void
plant_holder(struct filelock *lock, pid_t pid, uint64_t mark, uint64_t pidns)
{
	struct shared *s = lock->shared;
	uint32_t ticket = atomic_fetch_add(&s->next, 1);

	assert_int_equal(atomic_load(&s->serving), ticket);
	atomic_store(&s->mark[ticket % SLOTS], mark);
	atomic_store(&s->pidns[ticket % SLOTS], pidns);
	atomic_store(&s->pid[ticket % SLOTS], (int32_t)pid);
}

/* Whether acquiring within timeout_ms succeeds; released again if so. */
static bool
acquired_within(struct filelock *lock, int64_t timeout_ms)
{
	if (filelock_acquire(lock, timeout_ms) != 0)
		return false;
	filelock_release(lock);
	return true;
}

/* The start time of pid, waiting for the child to be seen in /proc. */
static uint64_t
start_of(pid_t pid)
{
	uint64_t start = proc_start_time(pid);

	assert_true(start != 0);
	return start;
}

/*
 * A process that took the lock through filelock_acquire() is waited for
 * while it lives (its own mark, on its own clock, says it is the taker),
 * and skipped once it is killed.
 */
static void
test_holder_is_waited_for_until_killed(void **state)
{
	struct fixture *f = *state;
	struct filelock *lock = NULL;
	int fds[2];
	char c;

	assert_int_equal(pipe(fds), 0);
	f->child = fork();
	assert_true(f->child >= 0);
	if (f->child == 0) {
		struct filelock *held = NULL;

		close(fds[0]);
		if (filelock_open(f->path, &held) < 0 ||
		    filelock_acquire(held, 5000) != 0 || write(fds[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	assert_int_equal(filelock_open(f->path, &lock), 0);
	assert_false(acquired_within(lock, 300));
	kill(f->child, SIGKILL);
	waitpid(f->child, NULL, 0);
	f->child = 0;
	assert_true(acquired_within(lock, 30000));
	filelock_close(lock);
}

/* A live process that took its ticket after it started is waited for. */
static void
test_live_taker_is_waited_for(void **state)
{
	struct fixture *f = *state;
	struct filelock *lock = NULL;
	pid_t pid = live_child(f);

	assert_int_equal(filelock_open(f->path, &lock), 0);
	plant_holder(lock, pid, start_of(pid) + 1, lock->pidns);
	assert_false(acquired_within(lock, 300));
	/* Once it is gone, its ticket is skipped at once. */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	f->child = 0;
	assert_true(acquired_within(lock, 30000));
	filelock_close(lock);
}

/* A process started after the mark holds a reused pid: skipped. */
static void
test_reused_pid_is_skipped(void **state)
{
	struct fixture *f = *state;
	struct filelock *lock = NULL;
	pid_t pid = live_child(f);
	int64_t start;

	assert_int_equal(filelock_open(f->path, &lock), 0);
	plant_holder(lock, pid, start_of(pid) - 1, lock->pidns);
	start = now_ms();
	assert_true(acquired_within(lock, 30000));
	/* At once: the live child's lock, held for ever, is not waited for. */
	assert_true(now_ms() - start < 25000);
	filelock_close(lock);
}

/* A queue left by an earlier boot is started afresh when opened. */
static void
test_earlier_boot_starts_afresh(void **state)
{
	struct fixture *f = *state;
	struct filelock *lock = NULL;
	pid_t pid = live_child(f);

	assert_int_equal(filelock_open(f->path, &lock), 0);
	/* Alive by every other rule: only the boot differs. */
	plant_holder(lock, pid, start_of(pid) + 1, lock->pidns);
	atomic_store(&lock->shared->boot_s, boot_time_s() - 3600);
	filelock_close(lock);
	assert_int_equal(filelock_open(f->path, &lock), 0);
	assert_true(acquired_within(lock, 30000));
	filelock_close(lock);
}

/* The same boot keeps its queue: reopening does not reset it. */
static void
test_same_boot_keeps_its_queue(void **state)
{
	struct fixture *f = *state;
	struct filelock *lock = NULL;
	pid_t pid = live_child(f);

	assert_int_equal(filelock_open(f->path, &lock), 0);
	plant_holder(lock, pid, start_of(pid) + 1, lock->pidns);
	atomic_store(&lock->shared->boot_s,
	    atomic_load(&lock->shared->boot_s) + BOOT_SLACK_S);
	filelock_close(lock);
	assert_int_equal(filelock_open(f->path, &lock), 0);
	assert_false(acquired_within(lock, 300));
	filelock_close(lock);
}

/* A ticket taken in another pid namespace: its pid means nothing here. */
static void
test_other_pid_namespace_is_skipped(void **state)
{
	struct fixture *f = *state;
	struct filelock *lock = NULL;
	pid_t pid = live_child(f);

	assert_int_equal(filelock_open(f->path, &lock), 0);
	if (lock->pidns == 0) {
		filelock_close(lock);
		skip(); /* no /proc/self/ns/pid here */
		return;
	}
	plant_holder(lock, pid, start_of(pid) + 1, lock->pidns + 1);
	assert_true(acquired_within(lock, 30000));
	filelock_close(lock);
}

/* A symbolic link at the lock's path is refused, its target untouched. */
static void
test_symlink_is_refused(void **state)
{
	struct fixture *f = *state;
	struct filelock *lock = NULL;
	char target[PATH_MAX + 16];
	struct stat st;
	FILE *file;

	snprintf(target, sizeof(target), "%s/target", f->dir);
	file = fopen(target, "w");
	assert_non_null(file);
	fputs("not a lock", file);
	fclose(file);
	assert_int_equal(symlink(target, f->path), 0);
	assert_int_equal(filelock_open(f->path, &lock), -1);
	assert_int_equal(errno, ELOOP);
	assert_null(lock);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 10);
	unlink(target);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_holder_is_waited_for_until_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_taker_is_waited_for, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reused_pid_is_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_earlier_boot_starts_afresh, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_boot_keeps_its_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_pid_namespace_is_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_is_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
