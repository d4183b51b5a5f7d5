#include "util/spawn.h"

#include <errno.h>
#include <fcntl.h>
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

/* The kernel's struct sigaction for rt_sigaction (not glibc's). */
struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

/* The copies a child reads, laid out in s->block by copy_plan(). */
struct spawn_copy {
	const char *program;
	char **argv;           /* as given */
	char **sh_argv;        /* /bin/sh program argv[1]...: for ENOEXEC */
	char **env;
	const char *dir;
	int stdin_fd, out_fd;
	bool own_group;
	int signals[64];       /* to reset to SIG_DFL, 0-terminated */
};

/* SPAWN_USE_VFORK builds the portable way on any machine (its tests). */
#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(SPAWN_USE_VFORK)
#define SPAWN_ASYNC 1

/*
 * A system call that returns -errno and writes no memory of its own: the
 * child shares the parent's thread pointer, so glibc's wrappers would
 * write the parent's errno.
 */
__attribute__((no_sanitize("address", "undefined"))) static long
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
#else
/* vfork(): the parent waits, so errno may be the C library's. */
static long
raw_call(long n, long a, long b, long c, long d)
{
	long rc = syscall(n, a, b, c, d);

	return rc == -1 ? -errno : rc;
}
#endif

/* In the child: make fd the descriptor target, open across the exec. */
__attribute__((no_sanitize("address", "undefined"))) static long
child_dup(int fd, int target)
{
	if (fd == target)
		return raw_call(SYS_fcntl, fd, F_SETFD, 0, 0);
	return raw_call(SYS_dup3, fd, target, 0, 0);
}

/*
 * The child, from clone() (or vfork()) to exec: raw system calls only.
 * Signals are blocked throughout, so no handler of the parent's runs
 * here. On failure it records the errno in s and exits 127.
 */
__attribute__((no_sanitize("address", "undefined"))) static int
spawn_child(void *arg)
{
	struct spawn *s = arg;
	const struct spawn_copy *c = (const struct spawn_copy *)s->block;
	struct kernel_sigaction defaults = { SIG_DFL, 0, NULL, 0 };
	unsigned long none = 0;
	long rc = 0;

	for (int i = 0; c->signals[i] != 0 && rc >= 0; i++)
		rc = raw_call(SYS_rt_sigaction, c->signals[i], (long)&defaults, 0,
		    sizeof(unsigned long));
	if (rc >= 0 && c->own_group)
		rc = raw_call(SYS_setpgid, 0, 0, 0, 0);
	if (rc >= 0)
		rc = child_dup(c->stdin_fd, STDIN_FILENO);
	if (rc >= 0)
		rc = child_dup(c->out_fd, STDOUT_FILENO);
	if (rc >= 0)
		rc = child_dup(c->out_fd, STDERR_FILENO);
	if (rc >= 0 && c->dir)
		rc = raw_call(SYS_chdir, (long)c->dir, 0, 0, 0);
	if (rc >= 0)
		rc = raw_call(SYS_rt_sigprocmask, SIG_SETMASK, (long)&none, 0,
		    sizeof(none));
	if (rc >= 0) {
		rc = raw_call(SYS_execve, (long)c->program, (long)c->argv,
		    (long)c->env, 0);
		if (rc == -ENOEXEC)
			rc = raw_call(SYS_execve, (long)"/bin/sh", (long)c->sh_argv,
			    (long)c->env, 0);
	}
	s->child_errno = rc < 0 ? (int)-rc : EINVAL;
	for (;;)
		raw_call(SYS_exit_group, 127, 0, 0, 0);
	return 127;
}

static size_t
count_strings(char *const *v, size_t *bytes)
{
	size_t n = 0;

	for (; v[n]; n++)
		*bytes += strlen(v[n]) + 1;
	return n;
}

/* Copy v's n strings after *at into to (n + 1 pointers, NULL last). */
static void
copy_strings(char **to, char *const *v, size_t n, char **at)
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

int
spawn_start(struct spawn *s, const struct spawn_plan *plan, pid_t *pid)
{
	sigset_t all, saved;
	pid_t child;
	int rc;

	if ((rc = copy_plan(s, plan)) != 0)
		return rc;
	s->child_errno = 0;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &saved);
#ifdef SPAWN_ASYNC
	if (s->stack == NULL) {
		void *stack = mmap(NULL, SPAWN_STACK_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

		if (stack == MAP_FAILED) {
			sigprocmask(SIG_SETMASK, &saved, NULL);
			return ENOMEM;
		}
		/* The lowest page is a guard: an overflow faults. */
		mprotect(stack, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE);
		s->stack = stack;
		s->stack_size = SPAWN_STACK_SIZE;
	}
	child = clone(spawn_child, (char *)s->stack + s->stack_size,
	    CLONE_VM | SIGCHLD, s);
	rc = child < 0 ? errno : 0;
	sigprocmask(SIG_SETMASK, &saved, NULL);
#else
	child = vfork();
	if (child == 0)
		spawn_child(s);
	rc = child < 0 ? errno : 0;
	sigprocmask(SIG_SETMASK, &saved, NULL);
	if (rc == 0 && s->child_errno != 0) {
		/* It never became the program: reaped here. */
		waitpid(child, NULL, 0);
		rc = s->child_errno;
	}
#endif
	if (rc == 0)
		*pid = child;
	return rc;
}

int
spawn_failure(const struct spawn *s)
{
	return s->child_errno;
}

void
spawn_release(struct spawn *s)
{
	if (s->stack)
		munmap(s->stack, s->stack_size);
	free(s->block);
	memset(s, 0, sizeof(*s));
}
