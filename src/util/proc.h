/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Running programs: directly (no shell) capturing what they print, and
 * shell commands with a timeout, ended with all they started.
 */
#ifndef DAICHO_PROC_H
#define DAICHO_PROC_H

#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/buf.h"

/*
 * Run argv[0] (searched in PATH) with argv, stdin from /dev/null, stdout
 * appended to out and stderr discarded. Returns the exit status (0-255),
 * 128 + signal when killed, or -1 with errno when it could not be started.
 */
int proc_capture(const char *const argv[], struct buf *out);

/* proc_capture(), with stdin read from the file at input_path. */
int proc_capture_input(const char *const argv[], const char *input_path,
    struct buf *out);

/* proc_capture(), with stderr appended to out too, interleaved. */
int proc_capture_all(const char *const argv[], struct buf *out);

/*
 * proc_capture() (with_stderr: proc_capture_all()), stdin from input_path
 * when not NULL, in the caller's environment with env_extra (NAME=VALUE,
 * NULL-ended; may be NULL) added, each replacing a variable of its name.
 */
int proc_capture_env(const char *const argv[], const char *const env_extra[],
    const char *input_path, bool with_stderr, struct buf *out);


/*
 * Whether process pid exists and is not a zombie (a killed process waits
 * as a zombie until its parent, or init, reaps it).
 */
bool proc_is_alive(pid_t pid);

/*
 * Whether posix_spawnp() could run program: 0 when it names an executable
 * file (a path with a '/', or a name found in $PATH as execvp() looks),
 * else the errno it would fail with (ENOENT, EACCES). When found and path
 * is not NULL, path receives the file to run (program itself when it has
 * a '/'), so that a caller that runs it many times searches $PATH once.
 */
int proc_runnable(const char *program, struct buf *path);

/*
 * When process pid started (clock ticks since boot, from /proc), which
 * tells a process from a later one that reused its pid; 0 when there is no
 * such process or it is a zombie.
 */
uint64_t proc_start_time(pid_t pid);

/*
 * Send sig to every process (but this one) whose environment holds all the
 * "NAME=VALUE" entries in needles (NULL-terminated): how the workers of a
 * runner that died are found, whatever process group they moved to.
 * Returns how many were signalled.
 */
int proc_signal_by_environment(const char *const needles[], int sig);

/*
 * Spawn attributes every child of daicho gets: an empty signal mask and
 * default handling of SIGINT, SIGTERM, SIGPIPE and SIGCHLD (whatever the
 * parent blocks or ignores), and with own_group a process group of its own.
 */
void proc_spawnattr_defaults(posix_spawnattr_t *attr, bool own_group);

/*
 * environ plus extra ("NAME=VALUE" entries, NULL-terminated; may be NULL),
 * extra's names replacing environ's; an entry "NAME" alone takes NAME out.
 * The array is the caller's to free(); its strings are borrowed. NULL when
 * out of memory.
 */
const char **proc_environment(const char *const extra[]);

/* The parent of process pid (from /proc), or 0 when unknown. */
pid_t proc_parent(pid_t pid);

/* How a shell command ended. */
struct proc_result {
	int exit_status;     /* 0-255; -1 when ended by a signal */
	int signal;          /* the signal that ended it, or 0 */
	bool timed_out;      /* killed because the timeout passed */
	int64_t duration_ms;
	struct buf output;   /* the last tail_bytes of stdout and stderr */
};

void proc_result_release(struct proc_result *result);

/*
 * Run "/bin/sh -c command" in directory dir, in a process group of its
 * own, stdin from /dev/null, stdout and stderr together into out->output
 * (only the last tail_bytes are kept). env_extra holds "NAME=VALUE" entries
 * (NULL-terminated) added to the environment. When timeout_ms (> 0)
 * passes, the shell's group gets SIGTERM, then SIGKILL two seconds later.
 *
 * Nothing the command started outlives it: when the shell has ended (by
 * itself, at the timeout, or killed) every process descended from it gets
 * SIGKILL, also those that left its group or session (setsid, setpgid) or
 * lost their parent (double forks, "nohup ... &"), and proc_run_shell()
 * returns only once they are all gone and reaped. This is done by a
 * supervisor process forked per command, a child subreaper (Linux); the
 * caller is never made one, its other children are neither signalled nor
 * reaped, and signals go only to the command's process group and its
 * descendants (never kill(-1)). If the caller dies, even by SIGKILL, the
 * supervisor ends the command and all it started at once. A process stuck
 * in the kernel (D state) dies only when its call returns: the supervisor
 * waits for that five seconds at most.
 *
 * Returns 0, or -1 with errno when the command could not be started.
 * out is always initialised; proc_result_release() it.
 */
int proc_run_shell(const char *command, const char *dir,
    const char *const env_extra[], int64_t timeout_ms, size_t tail_bytes,
    struct proc_result *out);

/*
 * proc_run_shell() for a program run directly, with no shell: argv[0]
 * (searched in $PATH) with argv, under the same supervision, timeout and
 * clean-up. Nothing in argv is interpreted.
 */
int proc_run(const char *const argv[], const char *dir,
    const char *const env_extra[], int64_t timeout_ms, size_t tail_bytes,
    struct proc_result *out);

#endif
