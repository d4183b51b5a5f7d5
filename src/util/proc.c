/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/proc.h"

#include "util/clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

uint64_t
proc_start_time(pid_t pid)
{
	char path[64];
	struct buf stat = BUF_INIT;
	const char *p;
	uint64_t start = 0;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	/* "pid (comm) S ppid ...": starttime is field 22, the 20th after ')'. */
	if (pid > 0 && buf_read_file(&stat, path) == 0 &&
	    (p = strrchr(stat.buf, ')')) != NULL && p[1] == ' ' && p[2] != 'Z') {
		int field = 3; /* p + 2 is the state, field 3 */

		for (p += 2; *p && field < 22; p++)
			if (*p == ' ')
				field++;
		if (field == 22)
			start = strtoull(p, NULL, 10);
	}
	buf_release(&stat);
	return start;
}

/* 0 when path is an executable regular file, else the errno. */
static int
executable_file(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno;
	if (!S_ISREG(st.st_mode) || access(path, X_OK) < 0)
		return EACCES;
	return 0;
}

int
proc_runnable(const char *program, struct buf *out)
{
	const char *path = getenv("PATH"), *dir;
	int found = ENOENT;

	if (*program == '\0')
		return ENOENT;
	if (strchr(program, '/')) {
		int rc = executable_file(program);

		if (rc == 0 && out)
			buf_adds(out, program);
		return rc;
	}
	if (path == NULL)
		path = "/bin:/usr/bin";
	for (dir = path;; dir++) {
		size_t len = strcspn(dir, ":");
		struct buf full = BUF_INIT;
		int rc;

		/* An empty entry is the current directory, as for execvp(). */
		buf_addf(&full, "%.*s%s%s", (int)len, dir, len ? "/" : "", program);
		rc = executable_file(full.buf);
		if (rc == 0 && out)
			buf_adds(out, full.buf);
		buf_release(&full);
		if (rc == 0)
			return 0;
		if (rc == EACCES)
			found = EACCES;
		dir += len;
		if (*dir == '\0')
			break;
	}
	return found;
}

bool
proc_is_alive(pid_t pid)
{
	char path[64];
	struct buf stat = BUF_INIT;
	const char *close_paren;
	bool alive = true;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH))
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	/* "pid (comm) S ...": the state follows the last ')'. */
	if (buf_read_file(&stat, path) == 0 &&
	    (close_paren = strrchr(stat.buf, ')')) != NULL &&
	    close_paren[1] == ' ' && close_paren[2] == 'Z')
		alive = false;
	buf_release(&stat);
	return alive;
}

/* Whether the NUL-separated environment env holds every needle. */
static bool
environment_has(const struct buf *env, const char *const needles[])
{
	for (const char *const *n = needles; *n; n++) {
		bool found = false;

		for (size_t at = 0; at < env->len && !found;) {
			const char *entry = env->buf + at;

			found = strcmp(entry, *n) == 0;
			at += strlen(entry) + 1;
		}
		if (!found)
			return false;
	}
	return true;
}

int
proc_signal_by_environment(const char *const needles[], int sig)
{
	DIR *proc = opendir("/proc");
	struct dirent *entry;
	int count = 0;

	if (proc == NULL)
		return 0;
	while ((entry = readdir(proc)) != NULL) {
		char path[64];
		struct buf env = BUF_INIT;
		char *end;
		long pid = strtol(entry->d_name, &end, 10);

		if (*end != '\0' || pid <= 0 || pid == (long)getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/environ", pid);
		if (buf_read_file(&env, path) == 0 && environment_has(&env, needles) &&
		    kill((pid_t)pid, sig) == 0)
			count++;
		buf_release(&env);
	}
	closedir(proc);
	return count;
}

void
proc_spawnattr_defaults(posix_spawnattr_t *attr, bool own_group)
{
	sigset_t none, defaults;

	sigemptyset(&none);
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGINT);
	sigaddset(&defaults, SIGTERM);
	sigaddset(&defaults, SIGPIPE);
	sigaddset(&defaults, SIGCHLD);
	posix_spawnattr_setsigmask(attr, &none);
	posix_spawnattr_setsigdefault(attr, &defaults);
	posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGMASK |
	    POSIX_SPAWN_SETSIGDEF | (own_group ? POSIX_SPAWN_SETPGROUP : 0));
	if (own_group)
		posix_spawnattr_setpgroup(attr, 0);
}

/*
 * proc_capture(), with stdin from input_path (NULL: /dev/null) and stderr
 * discarded or, when with_stderr, into out.
 */
static int
capture(const char *const argv[], const char *input_path, struct buf *out,
    bool with_stderr, const char *const env_extra[])
{
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	int pipe_fds[2], status, saved;
	const char **env = proc_environment(env_extra);
	pid_t pid;
	int rc;

	if (env == NULL)
		return -1;
	if (pipe2(pipe_fds, O_CLOEXEC) < 0) {
		free(env);
		return -1;
	}
	posix_spawnattr_init(&attr);
	proc_spawnattr_defaults(&attr, false);
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, STDIN_FILENO,
	    input_path ? input_path : "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
	if (with_stderr)
		posix_spawn_file_actions_adddup2(&actions, pipe_fds[1],
		    STDERR_FILENO);
	else
		posix_spawn_file_actions_addopen(&actions, STDERR_FILENO,
		    "/dev/null", O_WRONLY, 0);
	/* posix_spawnp() takes char *const[] but writes to neither. */
	rc = posix_spawnp(&pid, argv[0], &actions, &attr, (char *const *)argv,
	    (char *const *)env);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	free(env);
	close(pipe_fds[1]);
	if (rc != 0) {
		close(pipe_fds[0]);
		errno = rc;
		return -1;
	}
	rc = buf_read_fd(out, pipe_fds[0]);
	saved = errno;
	close(pipe_fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (rc < 0) {
		errno = saved;
		return -1;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int
proc_capture(const char *const argv[], struct buf *out)
{
	return capture(argv, NULL, out, false, NULL);
}

int
proc_capture_input(const char *const argv[], const char *input_path,
    struct buf *out)
{
	return capture(argv, input_path, out, false, NULL);
}

int
proc_capture_all(const char *const argv[], struct buf *out)
{
	return capture(argv, NULL, out, true, NULL);
}

int
proc_capture_env(const char *const argv[], const char *const env_extra[],
    const char *input_path, bool with_stderr, struct buf *out)
{
	return capture(argv, input_path, out, with_stderr, env_extra);
}

void
proc_result_release(struct proc_result *result)
{
	buf_release(&result->output);
}

const char **
proc_environment(const char *const extra[])
{
	size_t n = 0, k = 0, extras = 0;
	const char **env;

	while (environ[n])
		n++;
	while (extra && extra[extras])
		extras++;
	env = calloc(n + extras + 1, sizeof(char *));
	if (env == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;

		for (size_t j = 0; j < extras; j++) {
			size_t len = strcspn(extra[j], "=");

			if (strncmp(environ[i], extra[j], len) == 0 &&
			    environ[i][len] == '=')
				replaced = true;
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	/* "NAME" alone (no '=') takes NAME out, and adds nothing. */
	for (size_t j = 0; j < extras; j++)
		if (strchr(extra[j], '='))
			env[k++] = extra[j];
	env[k] = NULL;
	return env;
}

/*
 * How a shell command is run (proc_run_shell()): daicho forks a supervisor,
 * which makes itself a child subreaper, spawns the shell and waits for it.
 * A process the shell starts that leaves its group (setsid, setpgid), or
 * whose parent dies (double forks, nohup ... &), then lands with the
 * supervisor, not with init; when the shell has ended, the supervisor
 * kills its children over and over, reaping each, until it has none: then
 * nothing the command started is left, wherever it went. Only the
 * supervisor is a subreaper, never daicho itself: `daicho run` has workers
 * as children that a check must not touch. The supervisor signals only its
 * own children (a child's pid is not reused before its parent reaps it)
 * and the shell's process group while the shell is unreaped; never
 * kill(-1).
 *
 * The supervisor is a fork of a single-threaded process (daicho starts no
 * threads; SQLite is configured single-threaded), so what it calls after
 * fork is safe; still it sticks to plain system calls, posix_spawn()
 * apart, and never returns into daicho nor flushes its stdio (_exit).
 */

/* After SIGTERM, how long a timed-out command has before SIGKILL. */
#define TERM_GRACE_MS 2000

/*
 * How long the supervisor goes on killing and reaping descendants before
 * it gives up: SIGKILL ends a process at once, unless it is stuck in the
 * kernel (an unreachable NFS server), where it waits for that call.
 */
#define DESCENDANTS_LIMIT_MS 5000

/*
 * What the supervisor writes on the report pipe, once, when everything the
 * command started is gone: one write() of less than PIPE_BUF bytes, so the
 * parent reads all of it or nothing.
 */
struct supervisor_report {
	int spawn_errno;     /* why /bin/sh could not be started, or 0 */
	int wait_status;     /* the shell's status, as waitpid() gives it */
	bool timed_out;      /* the timeout passed: the group was signalled */
	int64_t duration_ms; /* proc_run_shell()'s start to the shell's end */
};

/* The shell command a supervisor runs, set up by the parent before fork. */
struct supervised {
	const char *program;  /* what to spawn ($PATH searched without a '/') */
	const char *const *argv;
	const char *const *env;
	const posix_spawn_file_actions_t *actions;
	const posix_spawnattr_t *attr;
	int output_fd;       /* write end of the output pipe */
	int report_fd;       /* write end of the report pipe */
	int64_t timeout_ms;  /* <= 0: none */
	int64_t start_ms;    /* clock_mono_ms() when proc_run_shell() began */
};

/*
 * SIGKILL each process listed in /proc/thread-self/children: the children
 * of this thread, which are all of the supervisor's (it has one thread).
 * Returns -1 when the kernel has no such file (built without
 * CONFIG_PROC_CHILDREN), else 0. The list ("123 456 ") is parsed as read,
 * in chunks, however long it is.
 */
static int
kill_listed_children(void)
{
	char chunk[256];
	long pid = 0;
	ssize_t n;
	int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0 ||
	    (n < 0 && errno == EINTR)) {
		for (ssize_t i = 0; i < n; i++) {
			if (chunk[i] >= '0' && chunk[i] <= '9') {
				pid = pid * 10 + (chunk[i] - '0');
				continue;
			}
			if (pid > 0)
				kill((pid_t)pid, SIGKILL);
			pid = 0;
		}
	}
	if (pid > 0)
		kill((pid_t)pid, SIGKILL);
	close(fd);
	return 0;
}

/*
 * The parent of the process whose /proc entry is name, from its stat file
 * ("pid (comm) S ppid ...") read through proc_fd; -1 when name is not a
 * process or it has gone. comm is at most 15 bytes and every field after
 * it a number, so the first 128 bytes hold the parent, and the last ')' in
 * them ends comm.
 */
static pid_t
parent_of(int proc_fd, const char *name)
{
	char path[32], stat[129];
	size_t len = strlen(name);
	ssize_t n;
	const char *p;
	long parent = 0;
	int fd;

	if (len == 0 || len > 20 || strspn(name, "0123456789") != len)
		return -1;
	memcpy(path, name, len);
	memcpy(path + len, "/stat", sizeof("/stat"));
	if ((fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	stat[n] = '\0';
	/* p at ") S ppid". */
	if ((p = strrchr(stat, ')')) == NULL || p[1] != ' ' || p[2] == '\0' ||
	    p[3] != ' ')
		return -1;
	for (p += 4; *p >= '0' && *p <= '9'; p++)
		parent = parent * 10 + (*p - '0');
	return (pid_t)parent;
}

/*
 * SIGKILL every process whose parent is this one, found by reading the
 * stat file of each process in /proc: what kill_listed_children() does
 * where the kernel keeps no list of children.
 */
static void
kill_scanned_children(void)
{
	alignas(struct dirent64) char entries[4096];
	pid_t self = getpid();
	ssize_t n;
	int proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (proc_fd < 0)
		return;
	while ((n = getdents64(proc_fd, entries, sizeof(entries))) > 0) {
		for (ssize_t at = 0; at < n;) {
			struct dirent64 *entry = (void *)(entries + at);

			if (parent_of(proc_fd, entry->d_name) == self)
				kill((pid_t)atol(entry->d_name), SIGKILL);
			at += entry->d_reclen;
		}
	}
	close(proc_fd);
}

/*
 * Reap every child of the supervisor that has ended. When the shell has,
 * first SIGKILL what is left of its process group (the unreaped shell
 * still holds the group's id, so no other process can have it), then reap
 * the shell into *shell_status. Returns whether the shell was reaped.
 */
static bool
reap_ended(pid_t shell, int *shell_status)
{
	for (;;) {
		siginfo_t info;

		info.si_pid = 0;
		if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0 ||
		    info.si_pid == 0)
			return false;
		if (info.si_pid == shell) {
			kill(-shell, SIGKILL);
			waitpid(shell, shell_status, 0);
			return true;
		}
		waitpid(info.si_pid, NULL, 0);
	}
}

/*
 * Read the signals waiting on signal_fd (non-blocking); set *terminate
 * when one is not SIGCHLD (terminate may be NULL).
 */
static void
drain_signals(int signal_fd, bool *terminate)
{
	struct signalfd_siginfo info[4];
	ssize_t n;

	while ((n = read(signal_fd, info, sizeof(info))) > 0)
		for (size_t i = 0; i < (size_t)n / sizeof(info[0]); i++)
			if (info[i].ssi_signo != SIGCHLD && terminate)
				*terminate = true;
}

/*
 * Kill every descendant of the supervisor, a child subreaper whose shell
 * has been reaped: SIGKILL its children and reap them; the orphans they
 * leave become its children, and go the same way, until waitpid() finds
 * no child at all. Waits on signal_fd (SIGCHLD) between rounds; gives up
 * after DESCENDANTS_LIMIT_MS.
 */
static void
kill_descendants(int signal_fd)
{
	int64_t give_up_at = clock_mono_ms() + DESCENDANTS_LIMIT_MS;
	bool listed = true;

	for (;;) {
		struct pollfd watched = { signal_fd, POLLIN, 0 };
		int64_t left_ms;
		pid_t pid;

		while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if (pid < 0 && errno == ECHILD)
			return;
		if (!listed || kill_listed_children() < 0) {
			listed = false;
			kill_scanned_children();
		}
		if ((left_ms = give_up_at - clock_mono_ms()) <= 0)
			return;
		if (poll(&watched, 1, (int)left_ms) > 0)
			drain_signals(signal_fd, NULL);
	}
}

/*
 * The supervisor's whole life (see above): spawn the shell, wait for it
 * enforcing the timeout, kill all it left, report, _exit(). Stops early,
 * killing everything, on SIGTERM or SIGHUP, or when the parent has gone
 * (the report pipe has no reader left: poll() says POLLERR on its write
 * end), so that a daicho killed by SIGKILL leaves no check running.
 * SIGINT and SIGQUIT, which a terminal sends to daicho's whole group, are
 * blocked and ignored: daicho decides what they mean; its own death is
 * seen through the pipe.
 */
static _Noreturn void
supervise(const struct supervised *s)
{
	struct supervisor_report report = { 0 };
	struct sigaction default_action;
	sigset_t blocked, watched_signals;
	int64_t next_signal_at = s->start_ms + s->timeout_ms;
	int next_signal = s->timeout_ms > 0 ? SIGTERM : 0;
	int signal_fd, shell_status = 0;
	bool shell_reaped = false, parent_gone = false;
	pid_t shell;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* Reaping needs SIGCHLD not ignored, whatever daicho inherited. */
	memset(&default_action, 0, sizeof(default_action));
	default_action.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &default_action, NULL);
	sigemptyset(&watched_signals);
	sigaddset(&watched_signals, SIGCHLD);
	sigaddset(&watched_signals, SIGTERM);
	sigaddset(&watched_signals, SIGHUP);
	blocked = watched_signals;
	sigaddset(&blocked, SIGINT);
	sigaddset(&blocked, SIGQUIT);
	sigaddset(&blocked, SIGPIPE);
	/* The shell gets an empty mask (proc_spawnattr_defaults()). */
	sigprocmask(SIG_BLOCK, &blocked, NULL);
	signal_fd = signalfd(-1, &watched_signals, SFD_NONBLOCK | SFD_CLOEXEC);
	/* posix_spawnp() takes char *const[] but writes to neither. */
	report.spawn_errno = posix_spawnp(&shell, s->program, s->actions,
	    s->attr, (char *const *)s->argv, (char *const *)s->env);
	close(s->output_fd);
	if (report.spawn_errno == 0 && signal_fd < 0) {
		/* Cannot wait with a timeout: end the command at once. */
		kill(-shell, SIGKILL);
		waitpid(shell, &shell_status, 0);
		shell_reaped = true;
	}
	while (report.spawn_errno == 0 && !shell_reaped) {
		struct pollfd watched[2] = {
			{ signal_fd, POLLIN, 0 },
			{ s->report_fd, 0, 0 }, /* POLLERR: no reader */
		};
		int64_t now = clock_mono_ms();
		int wait_ms = -1;
		bool terminate = false;

		if (next_signal && now >= next_signal_at) {
			kill(-shell, next_signal);
			if (next_signal == SIGTERM) {
				report.timed_out = true;
				next_signal = SIGKILL;
				next_signal_at = now + TERM_GRACE_MS;
			} else {
				next_signal = 0;
			}
		}
		if (next_signal)
			wait_ms = (int)(next_signal_at - now);
		if (poll(watched, parent_gone ? 1 : 2, wait_ms) > 0) {
			if (!parent_gone && watched[1].revents)
				parent_gone = terminate = true;
			drain_signals(signal_fd, &terminate);
		}
		if (terminate) {
			kill(-shell, SIGKILL);
			next_signal = 0;
		}
		shell_reaped = reap_ended(shell, &shell_status);
	}
	report.duration_ms = clock_mono_ms() - s->start_ms;
	report.wait_status = shell_status;
	if (signal_fd >= 0)
		kill_descendants(signal_fd);
	(void)!write(s->report_fd, &report, sizeof(report));
	_exit(0);
}

/* Keep only the last tail bytes of b. */
static void
keep_tail(struct buf *b, size_t tail)
{
	if (b->len > tail) {
		memmove(b->buf, b->buf + b->len - tail, tail);
		b->len = tail;
		b->buf[b->len] = '\0';
	}
}

/*
 * Read what fd has now into output, keeping at least its last tail bytes.
 * Returns what read() returned: > 0, 0 at end of file, or -1.
 */
static ssize_t
read_tail(int fd, struct buf *output, size_t tail)
{
	ssize_t n;

	buf_grow(output, 65536);
	n = read(fd, output->buf + output->len, 65536);
	if (n > 0) {
		output->len += (size_t)n;
		output->buf[output->len] = '\0';
		if (output->len > 2 * tail + 65536)
			keep_tail(output, tail);
	}
	return n;
}

/*
 * Fill in how the command ended from the supervisor's report, or, with
 * report NULL (the supervisor died before it could tell), from the
 * supervisor's own status: the command counts as killed then.
 */
static void
describe_end(const struct supervisor_report *report, int supervisor_status,
    int64_t start_ms, struct proc_result *out)
{
	int status = report ? report->wait_status : supervisor_status;

	out->timed_out = report && report->timed_out;
	out->duration_ms = report ? report->duration_ms :
	    clock_mono_ms() - start_ms;
	if (report && WIFEXITED(status)) {
		out->exit_status = WEXITSTATUS(status);
	} else {
		out->exit_status = -1;
		out->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	}
}

/* proc_run_shell() and proc_run(): program with argv, supervised. */
static int
run_supervised(const char *program, const char *const argv[], const char *dir,
    const char *const env_extra[], int64_t timeout_ms, size_t tail_bytes,
    struct proc_result *out)
{
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	const char **env = proc_environment(env_extra);
	struct supervisor_report report = { 0 };
	struct supervised supervised;
	int output_fds[2] = { -1, -1 }, report_fds[2] = { -1, -1 };
	int status = 0, saved_errno, rc = -1;
	int64_t start_ms = clock_mono_ms();
	bool output_open = true, reported = false;
	pid_t supervisor;

	memset(out, 0, sizeof(*out));
	buf_init(&out->output);
	if (env == NULL)
		return -1;
	posix_spawn_file_actions_init(&actions);
	posix_spawnattr_init(&attr);
	if (pipe2(output_fds, O_CLOEXEC) < 0 ||
	    pipe2(report_fds, O_CLOEXEC) < 0)
		goto done;
	posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
	    O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, output_fds[1],
	    STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&actions, output_fds[1],
	    STDERR_FILENO);
	if (dir)
		posix_spawn_file_actions_addchdir_np(&actions, dir);
	proc_spawnattr_defaults(&attr, true);
	supervised = (struct supervised){ program, argv, env, &actions, &attr,
		output_fds[1], report_fds[1], timeout_ms, start_ms };
	if ((supervisor = fork()) < 0)
		goto done;
	if (supervisor == 0) {
		close(output_fds[0]);
		close(report_fds[0]); /* else the pipe never loses its reader */
		supervise(&supervised);
	}
	close(output_fds[1]);
	close(report_fds[1]);
	output_fds[1] = report_fds[1] = -1;
	fcntl(output_fds[0], F_SETFL, O_NONBLOCK);
	/* Read the output until the report comes (or the supervisor dies). */
	for (;;) {
		struct pollfd watched[2] = {
			{ output_open ? output_fds[0] : -1, POLLIN, 0 },
			{ report_fds[0], POLLIN, 0 },
		};
		ssize_t n;

		if (poll(watched, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (watched[0].revents &&
		    read_tail(output_fds[0], &out->output, tail_bytes) == 0)
			output_open = false;
		if (watched[1].revents == 0)
			continue;
		n = read(report_fds[0], &report, sizeof(report));
		if (n < 0 && errno == EINTR)
			continue;
		reported = n == (ssize_t)sizeof(report);
		break;
	}
	/* Reported, every writer is gone: what the pipe holds is the rest. */
	while (reported && output_open &&
	    read_tail(output_fds[0], &out->output, tail_bytes) > 0)
		;
	keep_tail(&out->output, tail_bytes);
	while (waitpid(supervisor, &status, 0) < 0 && errno == EINTR)
		;
	if (reported && report.spawn_errno) {
		errno = report.spawn_errno;
		goto done;
	}
	describe_end(reported ? &report : NULL, status, start_ms, out);
	rc = 0;
done:
	saved_errno = errno;
	for (int i = 0; i < 2; i++) {
		if (output_fds[i] >= 0)
			close(output_fds[i]);
		if (report_fds[i] >= 0)
			close(report_fds[i]);
	}
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	free(env);
	errno = saved_errno;
	return rc;
}

int
proc_run_shell(const char *command, const char *dir,
    const char *const env_extra[], int64_t timeout_ms, size_t tail_bytes,
    struct proc_result *out)
{
	const char *argv[] = { "sh", "-c", command, NULL };

	return run_supervised("/bin/sh", argv, dir, env_extra, timeout_ms,
	    tail_bytes, out);
}

int
proc_run(const char *const argv[], const char *dir,
    const char *const env_extra[], int64_t timeout_ms, size_t tail_bytes,
    struct proc_result *out)
{
	return run_supervised(argv[0], argv, dir, env_extra, timeout_ms,
	    tail_bytes, out);
}

pid_t
proc_parent(pid_t pid)
{
	char name[24];
	int proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	pid_t parent;

	if (proc_fd < 0)
		return 0;
	snprintf(name, sizeof(name), "%ld", (long)pid);
	parent = parent_of(proc_fd, name);
	close(proc_fd);
	return parent < 0 ? 0 : parent;
}
