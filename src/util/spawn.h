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
	char *const *argv;
	char *const *env;
	int stdin_fd;          /* dup'ed to 0 */
	int out_fd;            /* dup'ed to 1 and 2 */
	const char *dir;       /* chdir() there first; NULL: stay */
	bool own_group;        /* setpgid(0, 0) */
	const sigset_t *to_default; /* these signals at SIG_DFL; NULL: none */
};

/*
 * One child at a time: its stack and its copy of the plan. Reuse it for
 * the next child only after the last one was reaped (waitpid()): until
 * then the child may still be reading it.
 */
struct spawn {
	void *stack;
	size_t stack_size;
	char *block;           /* the copies: pointers, then strings */
	size_t block_size;
	volatile int child_errno; /* written by a child that could not exec */
};

#define SPAWN_INIT { NULL, 0, NULL, 0, 0 }

/*
 * Start the child of plan with s. The child starts with every signal
 * blocked, resets plan->to_default, sets up its descriptors, directory
 * and group, unblocks every signal and execs program; a file that is
 * not an executable format is run by /bin/sh, as execvp() does. Every
 * signal is blocked in the caller while the child is made, so no handler
 * runs in it. Returns 0 with *pid set, or an errno (the child could not be
 * made, or, where failures are known at once, could not exec: it is
 * reaped then).
 */
int spawn_start(struct spawn *s, const struct spawn_plan *plan, pid_t *pid);

/*
 * After the child of s was reaped with exit status 127: the errno that
 * kept it from becoming the program, or 0 when it did (and the program
 * itself exited 127).
 */
int spawn_failure(const struct spawn *s);

/* Free s's stack and copies (no child of s may still be running). */
void spawn_release(struct spawn *s);

#endif
