/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The child's stack: its frames are a few hundred bytes. */
#define SPAWN_STACK_SIZE (64 * 1024)

/* The copies a child reads, laid out in s->block by copy_plan(). */
struct spawn_copy {
	const char *program;
	char **argv;           /* as given */
	char **sh_argv;        /* /bin/sh program argv[1]...: for ENOEXEC */
	char **env;
	const char *dir;
	int stdin_fd, out_fd;
	int report_fd;         /* the pipe's end for a failure's errno */
	bool own_group;
	int signals[64];       /* to reset to SIG_DFL, 0-terminated */
};

/* SPAWN_USE_VFORK builds the portable way on any machine (its tests). */
#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(SPAWN_USE_VFORK)
#define SPAWN_ASYNC 1
#define CHILD_CODE __attribute__((no_sanitize("address", "undefined")))

/*
 * A system call that returns -errno and writes no memory of its own: the
 * child shares the parent's thread pointer, so glibc's wrappers would
 * write the parent's errno.
 */
CHILD_CODE static long
raw_call(long n, long a, long b, long c, long d)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = d;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
#else
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3)
			 : "memory");
	return x0;
#endif
}

/*
 * The kernel's struct sigaction, as rt_sigaction takes it on x86-64 and
 * AArch64, and its signal set's size there.
 */
struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

CHILD_CODE static long
child_default(int sig)
{
	struct kernel_sigaction defaults = { SIG_DFL, 0, NULL, 0 };

	return raw_call(SYS_rt_sigaction, sig, (long)&defaults, 0,
	    sizeof(defaults.mask));
}

CHILD_CODE static long
child_unblock_all(void)
{
	unsigned long none = 0;

	return raw_call(SYS_rt_sigprocmask, SIG_SETMASK, (long)&none, 0,
	    sizeof(none));
}

CHILD_CODE static long
child_call(long n, long a, long b, long c)
{
	return raw_call(n, a, b, c, 0);
}

CHILD_CODE static void
child_exit(int status)
{
	for (;;)
		raw_call(SYS_exit_group, status, 0, 0, 0);
}
#else
/*
 * vfork(): the parent is suspended until the child execs or exits, so
 * the C library's calls serve (they may change the parent's errno).
 */
#define CHILD_CODE

static long
child_default(int sig)
{
	struct sigaction defaults;

	memset(&defaults, 0, sizeof(defaults));
	defaults.sa_handler = SIG_DFL;
	return sigaction(sig, &defaults, NULL) < 0 ? -errno : 0;
}

static long
child_unblock_all(void)
{
	sigset_t none;

	sigemptyset(&none);
	return sigprocmask(SIG_SETMASK, &none, NULL) < 0 ? -errno : 0;
}

static long
child_call(long n, long a, long b, long c)
{
	long rc = syscall(n, a, b, c);

	return rc == -1 ? -errno : rc;
}

static void
child_exit(int status)
{
	_exit(status);
}
#endif

/* In the child: make fd the descriptor target, open across the exec. */
CHILD_CODE static long
child_dup(int fd, int target)
{
	if (fd == target)
		return child_call(SYS_fcntl, fd, F_SETFD, 0);
	return child_call(SYS_dup3, fd, target, 0);
}

/*
 * The child, from clone() (or vfork()) to exec. Signals are blocked
 * throughout, so no handler of the parent's runs here. On failure it
 * writes the errno to its end of the pipe (closed by a successful exec)
 * and exits 127.
 */
CHILD_CODE static int
spawn_child(void *arg)
{
	const struct spawn_copy *c = arg;
	long rc = 0;
	int failure;

	for (int i = 0; c->signals[i] != 0 && rc >= 0; i++)
		rc = child_default(c->signals[i]);
	if (rc >= 0 && c->own_group)
		rc = child_call(SYS_setpgid, 0, 0, 0);
	if (rc >= 0)
		rc = child_dup(c->stdin_fd, STDIN_FILENO);
	if (rc >= 0)
		rc = child_dup(c->out_fd, STDOUT_FILENO);
	if (rc >= 0)
		rc = child_dup(c->out_fd, STDERR_FILENO);
	if (rc >= 0 && c->dir)
		rc = child_call(SYS_chdir, (long)c->dir, 0, 0);
	if (rc >= 0)
		rc = child_unblock_all();
	if (rc >= 0) {
		rc = child_call(SYS_execve, (long)c->program, (long)c->argv,
		    (long)c->env);
		if (rc == -ENOEXEC)
			rc = child_call(SYS_execve, (long)"/bin/sh",
			    (long)c->sh_argv, (long)c->env);
	}
	failure = rc < 0 ? (int)-rc : EINVAL;
	child_call(SYS_write, c->report_fd, (long)&failure, sizeof(failure));
	child_exit(127);
	return 127;
}

static size_t
count_strings(const char *const *v, size_t *bytes)
{
	size_t n = 0;

	for (; v[n]; n++)
		*bytes += strlen(v[n]) + 1;
	return n;
}

/* Copy v's n strings after *at into to (n + 1 pointers, NULL last). */
static void
copy_strings(char **to, const char *const *v, size_t n, char **at)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(v[i]) + 1;

		memcpy(*at, v[i], len);
		to[i] = *at;
		*at += len;
	}
	to[n] = NULL;
}

/*
 * Lay plan out in s->block: the spawn_copy, its pointer arrays, then
 * every string. Returns 0 or ENOMEM.
 */
static int
copy_plan(struct spawn *s, const struct spawn_plan *plan)
{
	size_t strings = strlen(plan->program) + 1 + sizeof("/bin/sh");
	size_t argc, envc, need, pointers;
	struct spawn_copy *c;
	char *at;
	int k = 0;

	if (plan->dir)
		strings += strlen(plan->dir) + 1;
	argc = count_strings(plan->argv, &strings);
	envc = count_strings(plan->env, &strings);
	/* argv and NULL; sh, program, argv[1]... and NULL; env and NULL. */
	pointers = (argc + 1) + (argc + 3) + (envc + 1);
	need = sizeof(*c) + pointers * sizeof(char *) + strings;
	if (need > s->block_size) {
		char *bigger = realloc(s->block, need);

		if (bigger == NULL)
			return ENOMEM;
		s->block = bigger;
		s->block_size = need;
	}
	c = (struct spawn_copy *)s->block;
	memset(c, 0, sizeof(*c));
	c->argv = (char **)(s->block + sizeof(*c));
	c->sh_argv = c->argv + argc + 1;
	c->env = c->sh_argv + argc + 3;
	at = (char *)(c->env + envc + 1);
	copy_strings(c->argv, plan->argv, argc, &at);
	copy_strings(c->env, plan->env, envc, &at);
	memcpy(at, plan->program, strlen(plan->program) + 1);
	c->program = at;
	at += strlen(plan->program) + 1;
	memcpy(at, "/bin/sh", sizeof("/bin/sh"));
	c->sh_argv[0] = at;
	at += sizeof("/bin/sh");
	/* sh FILE ARG...: the script's $0 is the file, as execvp() gives. */
	c->sh_argv[1] = (char *)c->program;
	for (size_t i = 1; i < argc; i++)
		c->sh_argv[i + 1] = c->argv[i];
	c->sh_argv[argc > 0 ? argc + 1 : 2] = NULL;
	if (plan->dir) {
		memcpy(at, plan->dir, strlen(plan->dir) + 1);
		c->dir = at;
	}
	c->stdin_fd = plan->stdin_fd;
	c->out_fd = plan->out_fd;
	c->own_group = plan->own_group;
	for (int sig = 1; plan->to_default && sig < NSIG &&
	     k < (int)(sizeof(c->signals) / sizeof(c->signals[0])) - 1; sig++)
		if (sig != SIGKILL && sig != SIGSTOP &&
		    sigismember(plan->to_default, sig) == 1)
			c->signals[k++] = sig;
	return 0;
}

/*
 * Learn from s's pipe how its child ended up, waiting at most timeout_ms
 * (0: not at all): true once known, with s->failure the errno that kept
 * it from the program, or 0 when it exec'd.
 */
static bool
resolve(struct spawn *s, int timeout_ms)
{
	struct pollfd ready = { s->report_fd, POLLIN, 0 };
	int failure = 0;
	ssize_t n;

	if (!s->report_open)
		return true;
	if (timeout_ms > 0 && poll(&ready, 1, timeout_ms) == 0)
		return false;
	n = read(s->report_fd, &failure, sizeof(failure));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return false;
	/* Nothing written and the end closed: the exec closed it. */
	s->failure = n == (ssize_t)sizeof(failure) ? failure : 0;
	close(s->report_fd);
	s->report_open = false;
	return true;
}

int
spawn_start(struct spawn *s, const struct spawn_plan *plan, pid_t *pid)
{
	struct spawn_copy *c;
	sigset_t all, saved;
	int report[2], rc;
	pid_t child;

	if (s->report_open)
		close(s->report_fd);
	s->report_open = false;
	s->failure = 0;
	if ((rc = copy_plan(s, plan)) != 0)
		return rc;
	/* Both ends close on exec; neither end ever blocks. */
	if (pipe2(report, O_CLOEXEC | O_NONBLOCK) < 0)
		return errno;
	c = (struct spawn_copy *)s->block;
	c->report_fd = report[1];
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &saved);
#ifdef SPAWN_ASYNC
	if (s->stack == NULL) {
		void *stack = mmap(NULL, SPAWN_STACK_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

		if (stack == MAP_FAILED) {
			sigprocmask(SIG_SETMASK, &saved, NULL);
			close(report[0]);
			close(report[1]);
			return ENOMEM;
		}
		/* The lowest page is a guard: an overflow faults. */
		mprotect(stack, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE);
		s->stack = stack;
		s->stack_size = SPAWN_STACK_SIZE;
	}
	child = clone(spawn_child, (char *)s->stack + s->stack_size,
	    CLONE_VM | SIGCHLD, c);
#else
	child = vfork();
	if (child == 0)
		spawn_child(c);
#endif
	rc = child < 0 ? errno : 0;
	/*
	 * The group is made here too, as shells do: once this returns,
	 * kill(-pid) reaches the child even before it runs (the child's own
	 * call, or this one, fails harmlessly after the other).
	 */
	if (rc == 0 && plan->own_group)
		setpgid(child, child);
	sigprocmask(SIG_SETMASK, &saved, NULL);
	close(report[1]);
	if (rc != 0) {
		close(report[0]);
		return rc;
	}
	s->report_fd = report[0];
	s->report_open = true;
#ifndef SPAWN_ASYNC
	/* The child has exec'd or exited: a failure is known now. */
	if (resolve(s, 0) && s->failure != 0) {
		waitpid(child, NULL, 0);
		return s->failure;
	}
#endif
	*pid = child;
	return 0;
}

bool
spawn_started(struct spawn *s, int timeout_ms, int *failure)
{
	bool known = resolve(s, timeout_ms);

	*failure = known ? s->failure : 0;
	return known;
}

int
spawn_failure(struct spawn *s)
{
	resolve(s, 0);
	return s->failure;
}

void
spawn_release(struct spawn *s)
{
	if (s->stack)
		munmap(s->stack, s->stack_size);
	if (s->report_open)
		close(s->report_fd);
	free(s->block);
	memset(s, 0, sizeof(*s));
}

void
spawn_abandon(struct spawn *s)
{
	if (s->report_open)
		close(s->report_fd);
	memset(s, 0, sizeof(*s));
}
