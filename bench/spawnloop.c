/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The floor for any runner: start COUNT copies of a command, at most JOBS
 * at once, with posix_spawn and waitpid, and nothing else (no state, no
 * log). Usage: spawnloop JOBS COUNT CMD [ARG]...
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

extern char **environ;

int
main(int argc, char **argv)
{
	int jobs, count, running = 0, started = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: spawnloop JOBS COUNT CMD [ARG]...\n");
		return 2;
	}
	jobs = atoi(argv[1]);
	count = atoi(argv[2]);
	while (started < count || running > 0) {
		while (running < jobs && started < count) {
			pid_t pid;

			if (posix_spawnp(&pid, argv[3], NULL, NULL, argv + 3, environ) != 0)
				return 1;
			running++;
			started++;
		}
		if (wait(NULL) > 0)
			running--;
	}
	return 0;
}
