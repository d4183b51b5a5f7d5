#include "util/proc.h"

#include "util/clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
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
environment_has(const struct buf *env, char *const needles[])
{
	for (char *const *n = needles; *n; n++) {
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
proc_signal_by_environment(char *const needles[], int sig)
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

/* proc_capture(), with stderr discarded or, when with_stderr, into out. */
static int
capture(char *const argv[], struct buf *out, bool with_stderr)
{
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	int pipe_fds[2], status, saved;
	pid_t pid;
	int rc;

	if (pipe2(pipe_fds, O_CLOEXEC) < 0)
		return -1;
	posix_spawnattr_init(&attr);
	proc_spawnattr_defaults(&attr, false);
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
	    O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
	if (with_stderr)
		posix_spawn_file_actions_adddup2(&actions, pipe_fds[1],
		    STDERR_FILENO);
	else
		posix_spawn_file_actions_addopen(&actions, STDERR_FILENO,
		    "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &actions, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
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
proc_capture(char *const argv[], struct buf *out)
{
	return capture(argv, out, false);
}

int
proc_capture_all(char *const argv[], struct buf *out)
{
	return capture(argv, out, true);
}

void
proc_result_release(struct proc_result *result)
{
	buf_release(&result->output);
}

char **
proc_environment(char *const extra[])
{
	size_t n = 0, k = 0, extras = 0;
	char **env;

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

			if (strncmp(environ[i], extra[j], len + 1) == 0)
				replaced = true;
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < extras; j++)
		env[k++] = extra[j];
	env[k] = NULL;
	return env;
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

int
proc_run_shell(const char *command, const char *dir, char *const env_extra[],
    int64_t timeout_ms, size_t tail_bytes, struct proc_result *out)
{
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	char *argv[] = { "sh", "-c", (char *)command, NULL };
	char **env = proc_environment(env_extra);
	int pipe_fds[2], status = 0, rc;
	int64_t start = clock_mono_ms(), term_sent_at = 0;
	bool exited = false, eof = false;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	buf_init(&out->output);
	if (env == NULL)
		return -1;
	if (pipe2(pipe_fds, O_CLOEXEC) < 0) {
		free(env);
		return -1;
	}
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
	    O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
	if (dir)
		posix_spawn_file_actions_addchdir_np(&actions, dir);
	posix_spawnattr_init(&attr);
	proc_spawnattr_defaults(&attr, true);
	rc = posix_spawn(&pid, "/bin/sh", &actions, &attr, argv, env);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	close(pipe_fds[1]);
	free(env);
	if (rc != 0) {
		close(pipe_fds[0]);
		errno = rc;
		return -1;
	}
	fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
	while (!exited || !eof) {
		struct pollfd pfd = { pipe_fds[0], POLLIN, 0 };
		int64_t now = clock_mono_ms();

		if (!exited && waitpid(pid, &status, WNOHANG) == pid) {
			exited = true;
			/* Whatever the shell left behind in its group goes too. */
			kill(-pid, SIGKILL);
			now = clock_mono_ms();
			out->duration_ms = now - start;
		}
		if (!exited && timeout_ms > 0 && now - start >= timeout_ms) {
			if (term_sent_at == 0) {
				out->timed_out = true;
				kill(-pid, SIGTERM);
				term_sent_at = now;
			} else if (now - term_sent_at >= 2000) {
				kill(-pid, SIGKILL);
			}
		}
		if (eof) {
			/* Output is closed; wait for the shell itself. */
			if (!exited) {
				struct timespec pause = { 0, 10 * 1000 * 1000 };

				nanosleep(&pause, NULL);
			}
			continue;
		}
		if (poll(&pfd, 1, exited ? 100 : 50) > 0) {
			ssize_t n;

			buf_grow(&out->output, 65536);
			n = read(pipe_fds[0], out->output.buf + out->output.len, 65536);
			if (n > 0) {
				out->output.len += (size_t)n;
				out->output.buf[out->output.len] = '\0';
				if (out->output.len > 2 * tail_bytes + 65536)
					keep_tail(&out->output, tail_bytes);
			} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
				eof = true;
			}
		} else if (exited) {
			/* Exited, group killed, and nothing more arrives: done. */
			eof = true;
		}
	}
	close(pipe_fds[0]);
	keep_tail(&out->output, tail_bytes);
	if (out->duration_ms == 0)
		out->duration_ms = clock_mono_ms() - start;
	if (WIFEXITED(status)) {
		out->exit_status = WEXITSTATUS(status);
	} else {
		out->exit_status = -1;
		out->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	}
	return 0;
}

pid_t
proc_parent(pid_t pid)
{
	char path[64], line[512];
	const char *close_paren;
	FILE *f;
	long ppid = 0;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	/* The name in parentheses may hold spaces and parentheses itself. */
	if (fgets(line, sizeof(line), f) != NULL &&
	    (close_paren = strrchr(line, ')')) != NULL)
		sscanf(close_paren + 1, " %*c %ld", &ppid);
	fclose(f);
	return (pid_t)ppid;
}

pid_t
proc_client_ancestor(void)
{
	static const char *const passers[] = { "sh", "bash", "dash", "zsh",
		"ksh", "env", "timeout", "nice", "stdbuf", "setsid", "nohup" };
	pid_t pid = getppid();

	for (int depth = 0; pid > 1 && depth < 64; depth++) {
		char path[64], comm[64] = "";
		bool passes = false;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
		if ((f = fopen(path, "re")) == NULL)
			return 0;
		if (fgets(comm, sizeof(comm), f) != NULL)
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
		for (size_t i = 0; i < sizeof(passers) / sizeof(passers[0]); i++)
			if (strcmp(comm, passers[i]) == 0)
				passes = true;
		if (!passes)
			return pid;
		pid = proc_parent(pid);
	}
	return 0;
}
