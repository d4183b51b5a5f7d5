/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The cases of util/spawn, for each way it is built: test_spawn.c (the
 * child shares the parent's memory and is not waited for) and
 * test_spawn_vfork.c (the portable vfork()). Each includes util/spawn.c
 * first, then this file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

static const char *const no_env[] = { "PATH=/usr/bin:/bin", NULL };

/*
 * Start plan with s and wait for the child. Returns its wait status (-1
 * when spawn_start() itself failed); *failure is the errno that kept it
 * from becoming the program, 0 when it did. The parent's errno is checked
 * to survive the child, whatever the child met.
 */
static int
run_plan(struct spawn *s, const struct spawn_plan *plan, int *failure)
{
	pid_t pid;
	int status = -1, rc = spawn_start(s, plan, &pid);

	*failure = 0;
	if (rc != 0) {
		*failure = rc;
		return -1;
	}
	errno = 4242;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(errno, 4242);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		*failure = spawn_failure(s);
	return status;
}

/* A temporary file's descriptor (for a child's output or input). */
static int
temp_fd(const char *text)
{
	FILE *f = tmpfile();
	int fd;

	assert_non_null(f);
	fd = dup(fileno(f));
	fclose(f);
	if (text) {
		assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
		lseek(fd, 0, SEEK_SET);
	}
	return fd;
}

/* What was written to fd (from its start), in a static buffer. */
static char *
read_back(int fd)
{
	static char text[4096];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);

	assert_true(n >= 0);
	text[n] = '\0';
	return text;
}

static struct spawn_plan
shell_plan(const char *const *argv, const char *const *env, int out_fd)
{
	struct spawn_plan plan = {
		.program = "/bin/sh",
		.argv = argv,
		.env = env,
		.stdin_fd = out_fd,
		.out_fd = out_fd,
	};

	return plan;
}

/* argv, env, the directory, stdin and both outputs reach the program. */
static void
test_program_gets_its_plan(void **state)
{
	struct spawn s = SPAWN_INIT;
	int in = temp_fd("from stdin"), out = temp_fd(NULL), failure;
	const char *argv[] = { "sh", "-c",
		"printf '%s|%s|%s|' \"$0\" \"$X\" \"$(pwd)\"; cat; echo ' err' >&2",
		"name", NULL };
	const char *env[] = { "X=42", "PATH=/usr/bin:/bin", NULL };
	struct spawn_plan plan = shell_plan(argv, env, out);
	int status;

	(void)state;
	plan.stdin_fd = in;
	plan.dir = "/";
	status = run_plan(&s, &plan, &failure);
	assert_int_equal(failure, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(read_back(out), "name|42|/|from stdin err\n");
	spawn_release(&s);
	close(in);
	close(out);
}

/* own_group: the child leads a process group of its own. */
static void
test_own_group(void **state)
{
	struct spawn s = SPAWN_INIT;
	int out = temp_fd(NULL), failure;
	const char *argv[] = { "sh", "-c",
		"read -r _ _ _ _ group _ </proc/$$/stat; [ \"$group\" = $$ ] && echo own",
		NULL };
	struct spawn_plan plan = shell_plan(argv, no_env, out);

	(void)state;
	plan.own_group = true;
	run_plan(&s, &plan, &failure);
	assert_int_equal(failure, 0);
	assert_string_equal(read_back(out), "own\n");
	spawn_release(&s);
	close(out);
}

static void
on_usr1(int sig)
{
	(void)sig;
}

/*
 * A signal the parent catches (to_default) and one it blocks both reach
 * the program at their defaults: each kills it.
 */
static void
test_signals_at_their_defaults(void **state)
{
	struct spawn s = SPAWN_INIT;
	struct sigaction catch = { 0 }, saved_action;
	sigset_t usr2, saved_mask, to_default;
	int out = temp_fd(NULL), failure, status;
	const char *argv1[] = { "sh", "-c", "kill -USR1 $$; echo survived",
		NULL };
	const char *argv2[] = { "sh", "-c", "kill -USR2 $$; echo survived",
		NULL };
	struct spawn_plan plan = shell_plan(argv1, no_env, out);

	(void)state;
	catch.sa_handler = on_usr1;
	sigaction(SIGUSR1, &catch, &saved_action);
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr2, &saved_mask);
	sigemptyset(&to_default);
	sigaddset(&to_default, SIGUSR1);
	plan.to_default = &to_default;
	status = run_plan(&s, &plan, &failure);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR1);
	plan.argv = argv2;
	status = run_plan(&s, &plan, &failure);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR2);
	assert_string_equal(read_back(out), "");
	sigprocmask(SIG_SETMASK, &saved_mask, NULL);
	sigaction(SIGUSR1, &saved_action, NULL);
	spawn_release(&s);
	close(out);
}

/* A script without "#!" is run by /bin/sh with its arguments. */
static void
test_script_without_interpreter_line(void **state)
{
	struct spawn s = SPAWN_INIT;
	char path[] = "/tmp/daicho-spawn-XXXXXX";
	int fd = mkstemp(path), out = temp_fd(NULL), failure, status;
	const char *script = "echo \"$0 got $1 $2\"\n";
	const char *argv[] = { "whatever", "one", "two", NULL };
	struct spawn_plan plan = shell_plan(argv, no_env, out);
	char expected[128];

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, script, strlen(script)), (ssize_t)strlen(script));
	close(fd);
	chmod(path, 0700);
	plan.program = path;
	status = run_plan(&s, &plan, &failure);
	assert_int_equal(failure, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	snprintf(expected, sizeof(expected), "%s got one two\n", path);
	assert_string_equal(read_back(out), expected);
	unlink(path);
	spawn_release(&s);
	close(out);
}

/*
 * A child that cannot become the program says why (a missing program, a
 * missing directory); a program that exits 127 itself is not a failure.
 * The same spawn serves each in turn, with more to copy each time.
 */
static void
test_failures_and_reuse(void **state)
{
	struct spawn s = SPAWN_INIT;
	int out = temp_fd(NULL), failure, status;
	const char *argv[] = { "sh", "-c", "exit 127", NULL };
	char big[8192];
	const char *env[] = { big, NULL };
	struct spawn_plan plan = shell_plan(argv, no_env, out);

	(void)state;
	plan.program = "/nonexistent/program";
	run_plan(&s, &plan, &failure);
	assert_int_equal(failure, ENOENT);
	plan.program = "/bin/sh";
	plan.dir = "/nonexistent-directory";
	run_plan(&s, &plan, &failure);
	assert_int_equal(failure, ENOENT);
	plan.dir = NULL;
	memset(big, 'x', sizeof(big) - 1);
	memcpy(big, "BIG=", 4);
	big[sizeof(big) - 1] = '\0';
	plan.env = env;
	status = run_plan(&s, &plan, &failure);
	assert_int_equal(failure, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 127);
	spawn_release(&s);
	close(out);
}

/* With own_group, kill(-pid) reaches the child as soon as it exists. */
static void
test_group_made_before_return(void **state)
{
	const char *argv[] = { "sleep", "10", NULL };
	int null = open("/dev/null", O_RDWR | O_CLOEXEC), missed = 0;

	(void)state;
	for (int i = 0; i < 50; i++) {
		struct spawn s = SPAWN_INIT;
		struct spawn_plan plan = { .program = "/bin/sleep", .argv = argv,
			.env = no_env, .stdin_fd = null, .out_fd = null,
			.own_group = true };
		pid_t pid;
		int status;

		assert_int_equal(spawn_start(&s, &plan, &pid), 0);
		if (kill(-pid, SIGKILL) != 0)
			missed++;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		spawn_release(&s);
	}
	close(null);
	assert_int_equal(missed, 0);
}

/*
 * spawn_started() tells a child that exec'd (still running) from one
 * that could not, without reaping either.
 */
static void
test_started_before_reaping(void **state)
{
	struct spawn s = SPAWN_INIT;
	const char *argv[] = { "sleep", "10", NULL };
	int null = open("/dev/null", O_RDWR | O_CLOEXEC), failure = -1, status;
	struct spawn_plan plan = { .program = "/bin/sleep", .argv = argv,
		.env = no_env, .stdin_fd = null, .out_fd = null };
	pid_t pid;
	int rc;

	(void)state;
	assert_int_equal(spawn_start(&s, &plan, &pid), 0);
	assert_true(spawn_started(&s, 5000, &failure));
	assert_int_equal(failure, 0);
	assert_int_equal(waitpid(pid, &status, WNOHANG), 0);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	plan.program = "/nonexistent/program";
	rc = spawn_start(&s, &plan, &pid);
	if (rc == 0) {
		assert_true(spawn_started(&s, 5000, &failure));
		assert_int_equal(failure, ENOENT);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 127);
		assert_int_equal(spawn_failure(&s), ENOENT);
	} else {
		/* vfork(): known at once, and the child already reaped. */
		assert_int_equal(rc, ENOENT);
	}
	spawn_release(&s);
	close(null);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_program_gets_its_plan),
		cmocka_unit_test(test_own_group),
		cmocka_unit_test(test_signals_at_their_defaults),
		cmocka_unit_test(test_script_without_interpreter_line),
		cmocka_unit_test(test_failures_and_reuse),
		cmocka_unit_test(test_group_made_before_return),
		cmocka_unit_test(test_started_before_reaping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
