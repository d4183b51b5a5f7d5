/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Starting a program without waiting for its exec.
 *
 * posix_spawn() and vfork() suspend the parent until the child has exec'd.
 * A parent that starts many short processes (the runner) then sleeps once
 * per child, and the wake-up at the child's exec puts it behind the child
 * on the child's CPU, often for a whole time slice, while another CPU may
 * sit idle. spawn_start() returns as soon as the child exists: the child
 * shares the parent's memory (clone(CLONE_VM), no copy of page tables as
 * fork() makes) on a stack of its own, and makes only raw system calls
 * until it execs, so it never touches the parent's errno or heap. What it
 * reads (program, argv, env, directory) is copied into the spawn first.
 *
 * A child that cannot become the program records why and exits 127;
 * spawn_failure() reads the reason once the child has been reaped.
 * Where raw system calls are not written for the architecture, the
 * child is started by vfork() and failures are known at once.
 */
#ifndef DAICHO_UTIL_SPAWN_H
#define DAICHO_UTIL_SPAWN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* What the child becomes. Everything is copied by spawn_start(). */
struct spawn_plan {
	const char *program;   /* a path, not searched in $PATH */
	const char *const *argv;
	const char *const *env;
	int stdin_fd;          /* dup'ed to 0 */
	int out_fd;            /* dup'ed to 1 and 2 */
	const char *dir;       /* chdir() there first; NULL: stay */
	bool own_group;        /* setpgid(0, 0) */
	const sigset_t *to_default; /* these signals at SIG_DFL; NULL: none */
};

/*
 * One child at a time: its stack, its copy of the plan, and the read end
 * of a pipe the child's exec closes (a child that fails writes its errno
 * there first). Zeroed, it is ready (SPAWN_INIT). Reuse it for the next
 * child only after the last one was reaped: until then the child may
 * still be reading it.
 */
struct spawn {
	void *stack;
	size_t stack_size;
	char *block;           /* the copies: pointers, then strings */
	size_t block_size;
	int report_fd;         /* the pipe's read end, when report_open */
	bool report_open;
	int failure;           /* what the pipe said, once read */
};

#define SPAWN_INIT { NULL, 0, NULL, 0, 0, false, 0 }

/*
 * Start the child of plan with s. The child starts with every signal
 * blocked, resets plan->to_default, sets up its descriptors, directory
 * and group (the group is made before this returns: kill(-pid) reaches
 * the child at once), unblocks every signal and execs program; a file
 * that is not an executable format is run by /bin/sh, as execvp() does.
 * Every signal is blocked in the caller while the child is made, so no
 * handler runs in it. Returns 0 with *pid set, or an errno (the child
 * could not be made, or, where failures are known at once, could not
 * exec: it is reaped then).
 */
int spawn_start(struct spawn *s, const struct spawn_plan *plan, pid_t *pid);

/*
 * Whether s's child is known to have exec'd or failed, waiting at most
 * timeout_ms to learn it (a child makes a few system calls first); when
 * known, *failure is the errno that kept it from the program, or 0.
 */
bool spawn_started(struct spawn *s, int timeout_ms, int *failure);

/*
 * After s's child was reaped: the errno that kept it from becoming the
 * program (it then exited 127), or 0 when it did.
 */
int spawn_failure(struct spawn *s);

/* Free s's stack and copies (its child exec'd or was reaped). */
void spawn_release(struct spawn *s);

/*
 * Give up s while its child may not have exec'd yet: its stack and
 * copies are left to the child (never freed), the pipe is closed.
 */
void spawn_abandon(struct spawn *s);

#endif
