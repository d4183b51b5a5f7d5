#include "util/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int
proc_capture(char *const argv[], struct buf *out)
{
	posix_spawn_file_actions_t actions;
	int pipe_fds[2], status, saved;
	pid_t pid;
	int rc;

	if (pipe2(pipe_fds, O_CLOEXEC) < 0)
		return -1;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
	    O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null",
	    O_WRONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
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
