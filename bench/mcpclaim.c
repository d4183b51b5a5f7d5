/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * mcpclaim DAICHO LEDGER RUNS: a claim through the resident MCP server
 * against `daicho claim --next` as a whole process, in the same run
 * (bench/mcp.sh). Prints one line per run, "mcp_us cli_us", then the
 * medians.
 *
 * It starts `DAICHO --ledger LEDGER mcp --as bench-mcp` on two pipes,
 * initializes it, and then RUNS times, interleaved (mcp, cli, cli, mcp,
 * ...) so that the machine's drift weighs on both alike:
 *   mcp  the round trip of one tools/call claim {"next": true}: from
 *        writing the request line to reading the whole response line;
 *   cli  posix_spawn of `DAICHO --ledger LEDGER --as bench-cli claim
 *        --next` (stdout to /dev/null) until waitpid returns.
 * Before each timed claim the claims so far are handed on (set reported,
 * with this program's own SQLite connection), as bench/run.sh does, so
 * that neither agent accumulates claims whose leases every heartbeat
 * renews.
 *
 * The client is C, not Node.js: the SDK's client adds its own event loop,
 * schema validation and JSON handling (tens of microseconds that vary with
 * the garbage collector) to a round trip that is itself well under a
 * millisecond; the point is the server's latency as any client sees it.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int to_server, from_server;
static char pending[1 << 20];
static size_t pending_len;

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void
die(const char *what)
{
	fprintf(stderr, "mcpclaim: %s (%s)\n", what, strerror(errno));
	exit(1);
}

/* Write one line to the server. */
static void
send_line(const char *line)
{
	size_t len = strlen(line), done = 0;

	while (done < len) {
		ssize_t n = write(to_server, line + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("write to the server");
		done += (size_t)n;
	}
}

/* Read one line from the server into line (NUL-terminated, no newline). */
static void
read_line(char *line, size_t size)
{
	for (;;) {
		char *nl = memchr(pending, '\n', pending_len);
		ssize_t n;

		if (nl != NULL) {
			size_t len = (size_t)(nl - pending);

			if (len >= size)
				len = size - 1;
			memcpy(line, pending, len);
			line[len] = '\0';
			pending_len -= (size_t)(nl - pending) + 1;
			memmove(pending, nl + 1, pending_len);
			return;
		}
		if (pending_len == sizeof(pending))
			die("a line too long");
		n = read(from_server, pending + pending_len,
		    sizeof(pending) - pending_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("the server closed its output");
		pending_len += (size_t)n;
	}
}

static int
compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), compare);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main(int argc, char **argv)
{
	char line[1 << 16], request[256];
	int in_pipe[2], out_pipe[2], runs;
	double *mcp_us, *cli_us;
	posix_spawn_file_actions_t actions;
	sqlite3 *db;
	pid_t server;

	if (argc != 4 || (runs = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: mcpclaim DAICHO LEDGER RUNS\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (sqlite3_open(argv[2], &db) != SQLITE_OK)
		die("open the ledger");
	sqlite3_busy_timeout(db, 30000);
	if (pipe(in_pipe) < 0 || pipe(out_pipe) < 0)
		die("pipe");
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
	posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
	posix_spawn_file_actions_addclose(&actions, in_pipe[1]);
	posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
	{
		char *server_argv[] = { argv[1], "--ledger", argv[2], "mcp", "--as",
			"bench-mcp", NULL };

		if ((errno = posix_spawn(&server, argv[1], &actions, NULL,
			 server_argv, environ)) != 0)
			die("start the server");
	}
	posix_spawn_file_actions_destroy(&actions);
	close(in_pipe[0]);
	close(out_pipe[1]);
	to_server = in_pipe[1];
	from_server = out_pipe[0];
	send_line("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
	    "\"clientInfo\":{\"name\":\"mcpclaim\",\"version\":\"1\"}}}\n");
	read_line(line, sizeof(line));
	if (strstr(line, "\"protocolVersion\"") == NULL) {
		fprintf(stderr, "mcpclaim: initialize failed: %s\n", line);
		return 1;
	}
	send_line("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
	mcp_us = calloc((size_t)runs, sizeof(*mcp_us));
	cli_us = calloc((size_t)runs, sizeof(*cli_us));
	for (int i = 0; i < runs; i++) {
		for (int half = 0; half < 2; half++) {
			bool mcp_turn = (half == 0) == (i % 2 == 0);
			double t0, t1;

			/* Hand the claims on, outside the timed part. */
			if (sqlite3_exec(db, "UPDATE tasks SET state = 'reported', "
			    "lease_expires_ms = NULL WHERE state = 'claimed'", NULL, NULL,
			    NULL) != SQLITE_OK)
				die("hand claims on");
			if (mcp_turn) {
				snprintf(request, sizeof(request), "{\"jsonrpc\":\"2.0\","
				    "\"id\":%d,\"method\":\"tools/call\",\"params\":{"
				    "\"name\":\"claim\",\"arguments\":{\"next\":true}}}\n",
				    i + 1);
				t0 = now_us();
				send_line(request);
				read_line(line, sizeof(line));
				t1 = now_us();
				if (strstr(line, "\"isError\":false") == NULL) {
					fprintf(stderr, "mcpclaim: claim failed: %s\n", line);
					return 1;
				}
				mcp_us[i] = t1 - t0;
			} else {
				char *cli_argv[] = { argv[1], "--ledger", argv[2], "--as",
					"bench-cli", "claim", "--next", NULL };
				posix_spawn_file_actions_t quiet;
				pid_t pid;
				int status;

				posix_spawn_file_actions_init(&quiet);
				posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null",
				    O_WRONLY, 0);
				posix_spawn_file_actions_addclose(&quiet, to_server);
				posix_spawn_file_actions_addclose(&quiet, from_server);
				t0 = now_us();
				if ((errno = posix_spawn(&pid, argv[1], &quiet, NULL,
					 cli_argv, environ)) != 0)
					die("run claim --next");
				while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
					;
				t1 = now_us();
				posix_spawn_file_actions_destroy(&quiet);
				if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
					fprintf(stderr, "mcpclaim: claim --next failed\n");
					return 1;
				}
				cli_us[i] = t1 - t0;
			}
		}
		printf("%.1f %.1f\n", mcp_us[i], cli_us[i]);
	}
	close(to_server);
	waitpid(server, NULL, 0);
	{
		double m = median(mcp_us, runs), c = median(cli_us, runs);

		printf("median mcp %.1f us, cli %.1f us, cli / mcp %.1f\n", m, c,
		    c / m);
	}
	sqlite3_close(db);
	return 0;
}
