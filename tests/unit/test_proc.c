/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for util/proc: proc_run_shell()'s result (status, signal,
 * timeout, output tail) and its promise that nothing the command started
 * outlives it, wherever it went. The file under test is included, so that
 * the two ways the supervisor finds its children can be tried one by one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "util/proc.c"

/* Run command with no timeout; its result (0 returned asserted). */
static struct proc_result
run(const char *command, int64_t timeout_ms)
{
	struct proc_result result;

	assert_int_equal(proc_run_shell(command, NULL, NULL, timeout_ms, 4096,
	    &result), 0);
	return result;
}

/* Whether process pid exists at all, even as a zombie. */
static bool
exists(pid_t pid)
{
	return kill(pid, 0) == 0 || errno != ESRCH;
}

/*
 * Send sig to each process in session sid (field 6 of /proc/N/stat); with
 * sig 0, just count them. Returns how many there are.
 */
static int
signal_session(pid_t sid, int sig)
{
	DIR *proc = opendir("/proc");
	struct dirent *entry;
	int count = 0;

	assert_non_null(proc);
	while ((entry = readdir(proc)) != NULL) {
		char path[300];
		struct buf stat = BUF_INIT;
		const char *p;
		long session = 0;

		if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", entry->d_name);
		/* ") S ppid pgrp session": skip the state and two numbers. */
		if (buf_read_file(&stat, path) == 0 &&
		    (p = strrchr(stat.buf, ')')) != NULL &&
		    sscanf(p + 1, " %*c %*d %*d %ld", &session) == 1 &&
		    session == (long)sid &&
		    kill((pid_t)strtol(entry->d_name, NULL, 10), sig) == 0)
			count++;
		buf_release(&stat);
	}
	closedir(proc);
	return count;
}

/* Exit status, output, directory and environment, as the contract says. */
static void
test_exit_status_output_dir_and_environment(void **state)
{
	const char *env[] = { "DAICHO_TEST_VALUE=42", NULL };
	struct proc_result result;

	assert_int_equal(proc_run_shell("pwd; echo \"$DAICHO_TEST_VALUE\" >&2; "
	    "exit 3", "/", env, 0, 4096, &result), 0);
	assert_int_equal(result.exit_status, 3);
	assert_int_equal(result.signal, 0);
	assert_false(result.timed_out);
	assert_string_equal(result.output.buf, "/\n42\n");
	proc_result_release(&result);
}

/* Only the last tail_bytes of the output are kept, however much came. */
static void
test_output_keeps_the_tail(void **state)
{
	struct proc_result result;

	assert_int_equal(proc_run_shell("head -c 300000 /dev/zero | "
	    "tr '\\0' a; printf END", NULL, NULL, 0, 10, &result), 0);
	assert_int_equal(result.exit_status, 0);
	assert_string_equal(result.output.buf, "aaaaaaaEND");
	proc_result_release(&result);
}

/* A shell killed by a signal: exit_status -1 and the signal. */
static void
test_signal_is_reported(void **state)
{
	struct proc_result result = run("kill -USR1 $$", 0);

	assert_int_equal(result.exit_status, -1);
	assert_int_equal(result.signal, SIGUSR1);
	assert_false(result.timed_out);
	proc_result_release(&result);
}

/* A directory that does not exist: -1 with errno, as when sh is missing. */
static void
test_unstartable_is_an_error(void **state)
{
	struct proc_result result;

	errno = 0;
	assert_int_equal(proc_run_shell("true", "/nonexistent/daicho-test",
	    NULL, 0, 4096, &result), -1);
	assert_int_equal(errno, ENOENT);
	proc_result_release(&result);
}

/* At the timeout the group gets SIGTERM; the output so far is kept. */
static void
test_timeout_sends_sigterm(void **state)
{
	struct proc_result result = run("echo begin; sleep 10", 200);

	assert_true(result.timed_out);
	assert_int_equal(result.exit_status, -1);
	assert_int_equal(result.signal, SIGTERM);
	/* Ended at the timeout, not by the command (10 s). */
	assert_true(result.duration_ms >= 200 && result.duration_ms < 9000);
	assert_string_equal(result.output.buf, "begin\n");
	proc_result_release(&result);
}

/* A command that ignores SIGTERM gets SIGKILL two seconds later. */
static void
test_timeout_then_sigkill(void **state)
{
	struct proc_result result = run("trap '' TERM; sleep 10; sleep 10",
	    100);

	assert_true(result.timed_out);
	assert_int_equal(result.signal, SIGKILL);
	/* Two seconds after the SIGTERM, not after the command (20 s). */
	assert_true(result.duration_ms >= 2100 && result.duration_ms < 15000);
	proc_result_release(&result);
}

/*
 * What left the group (setsid), a double fork and what a setsid'd process
 * forks are all gone, and reaped, when proc_run_shell() returns; it does
 * not wait for them although they hold the output open.
 */
static void
test_nothing_outlives_the_command(void **state)
{
	struct proc_result result = run("setsid sleep 10 & echo $!; "
	    "(sh -c 'sleep 10 & echo $!' &); "
	    "setsid sh -c 'sleep 10 & echo $!; exec sleep 10' & echo $!; "
	    "sleep 0.2", 0);
	long pids[4];
	int n = 0;

	assert_int_equal(result.exit_status, 0);
	/* The strays (10 s) were not waited for. */
	assert_true(result.duration_ms < 9000);
	for (char *line = result.output.buf; n < 4 && *line;
	    line = strchr(line, '\n') + 1)
		pids[n++] = strtol(line, NULL, 10);
	assert_int_equal(n, 4);
	for (int i = 0; i < n; i++) {
		assert_true(pids[i] > 1);
		assert_false(exists((pid_t)pids[i]));
	}
	proc_result_release(&result);
}

/* A timed-out command: what it setsid goes too. */
static void
test_timeout_ends_what_left_the_group(void **state)
{
	struct proc_result result = run("setsid sleep 10 & echo $!; "
	    "setsid sleep 10", 200);

	assert_true(result.timed_out);
	assert_false(exists((pid_t)strtol(result.output.buf, NULL, 10)));
	proc_result_release(&result);
}

/*
 * A process that keeps forking orphans, in a session of its own: the
 * supervisor's rounds outpace it, and nothing of its session is left.
 * (Should any be, the test ends them, and the loop stops by itself.)
 */
static void
test_forking_orphans_are_all_ended(void **state)
{
	struct proc_result result = run("setsid sh -c 'i=0; "
	    "while [ $i -lt 5000 ]; do (sleep 10 &); i=$((i + 1)); done' & "
	    "echo $!; sleep 0.3", 0);
	pid_t sid = (pid_t)strtol(result.output.buf, NULL, 10);
	int left;

	assert_true(sid > 1);
	left = signal_session(sid, 0);
	if (left > 0)
		for (int i = 0; i < 10 && signal_session(sid, SIGKILL) > 0; i++)
			usleep(100000);
	assert_int_equal(left, 0);
	assert_true(result.duration_ms < 3000);
	proc_result_release(&result);
}

/*
 * daicho killed by SIGKILL while a command runs: its supervisor sees the
 * report pipe lose its reader and ends the command, all of it.
 */
static void
test_killed_caller_leaves_nothing(void **state)
{
	char tmpl[] = "/tmp/daicho-test-proc-XXXXXX";
	char path[64];
	struct buf pids = BUF_INIT;
	pid_t caller, strays[2];

	assert_non_null(mkdtemp(tmpl));
	snprintf(path, sizeof(path), "%s/pids", tmpl);
	caller = fork();
	assert_true(caller >= 0);
	if (caller == 0) {
		struct buf command = BUF_INIT;
		struct proc_result result;

		buf_addf(&command, "setsid sleep 10 & a=$!; sleep 10 & "
		    "echo $a $! >%s.new; mv %s.new %s; wait", path, path, path);
		proc_run_shell(command.buf, NULL, NULL, 0, 4096, &result);
		_exit(0);
	}
	for (int i = 0; i < 500 && access(path, F_OK) != 0; i++)
		usleep(10000);
	assert_int_equal(buf_read_file(&pids, path), 0);
	assert_int_equal(sscanf(pids.buf, "%d %d", &strays[0], &strays[1]), 2);
	kill(caller, SIGKILL);
	waitpid(caller, NULL, 0);
	for (int i = 0; i < 200 && (exists(strays[0]) || exists(strays[1]));
	    i++)
		usleep(10000);
	assert_false(exists(strays[0]));
	assert_false(exists(strays[1]));
	unlink(path);
	rmdir(tmpl);
	buf_release(&pids);
}

/* A child that lives until killed; its pid. */
static pid_t
sleeping_child(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		/* A name like this must not fool parent_of(). */
		prctl(PR_SET_NAME, "a) b (c) 1 2");
		for (;;)
			pause();
	}
	return pid;
}

/* Whether child ended by SIGKILL (reaping it). */
static bool
killed(pid_t child)
{
	int status = 0;

	for (int i = 0; i < 200; i++) {
		if (waitpid(child, &status, WNOHANG) == child)
			return WIFSIGNALED(status) &&
			    WTERMSIG(status) == SIGKILL;
		usleep(10000);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return false;
}

/* Both ways of finding children find and kill them. */
static void
test_children_are_found_both_ways(void **state)
{
	pid_t child = sleeping_child();
	char name[32];
	int proc_fd = open("/proc", O_RDONLY | O_DIRECTORY);

	usleep(50000); /* let the child set its name */
	snprintf(name, sizeof(name), "%d", (int)child);
	assert_int_equal(parent_of(proc_fd, name), getpid());
	assert_int_equal(parent_of(proc_fd, "self"), -1);
	close(proc_fd);
	kill_scanned_children();
	assert_true(killed(child));

	child = sleeping_child();
	if (kill_listed_children() < 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		skip(); /* no /proc/thread-self/children here */
	}
	assert_true(killed(child));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status_output_dir_and_environment),
		cmocka_unit_test(test_output_keeps_the_tail),
		cmocka_unit_test(test_signal_is_reported),
		cmocka_unit_test(test_unstartable_is_an_error),
		cmocka_unit_test(test_timeout_sends_sigterm),
		cmocka_unit_test(test_timeout_then_sigkill),
		cmocka_unit_test(test_nothing_outlives_the_command),
		cmocka_unit_test(test_timeout_ends_what_left_the_group),
		cmocka_unit_test(test_forking_orphans_are_all_ended),
		cmocka_unit_test(test_killed_caller_leaves_nothing),
		cmocka_unit_test(test_children_are_found_both_ways),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
