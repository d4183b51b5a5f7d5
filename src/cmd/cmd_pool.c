/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The pool of warm PostgreSQL connections (pool/pool.h): daicho pool
 * start, stop and status. They run in daicho-pg (src/main.c hands them
 * over), on the ledger the directory locates.
 */
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "store/pool/pool.h"
#include "util/clock.h"
#include "util/duration.h"

/* The ids of the options of this family's commands (CMD_OPTIONS()). */
enum pool_option {
	OPT_FOREGROUND,
	OPT_IDLE,
	OPT_KEEP,
	OPT_ACTIVE,
	OPTION_COUNT
};

/* Refuse unless the located ledger is a PostgreSQL one this program serves. */
static int
require_postgresql(struct cmd_ctx *ctx)
{
	if (!ledger_is_postgresql(ctx->ledger_path.buf))
		return err_set(ctx->err, ERR_FAILED, "a pool keeps connections to a "
		    "PostgreSQL ledger; the ledger here is the SQLite file %s, "
		    "which every command opens itself", ctx->ledger_path.buf);
	if (pool_serve == NULL || pool_get_status == NULL || pool_stop == NULL)
		return err_set(ctx->err, ERR_FAILED, "the pool is daicho-pg's: run "
		    "it as 'daicho pool ...'");
	return 0;
}

static void
print_serving(const char *socket, void *arg)
{
	const struct cmd_ctx *ctx = arg;

	if (!ctx->quiet && !ctx->json)
		printf("pool serving: pid %ld, socket %s (stop: daicho pool stop)\n",
		    (long)getpid(), socket);
	fflush(stdout);
}

/*
 * The value of the option with id option as a count from min to 10000
 * into *n (left alone when the option is absent); what it counts is for
 * the error.
 */
static int
count_option(struct cmd_ctx *ctx, int option, const char *what, int min,
    int *n)
{
	const char *value = cmd_opt(ctx, option);
	char *end;
	long v;

	if (value == NULL)
		return 0;
	v = strtol(value, &end, 10);
	if (*value == '\0' || *end != '\0' || v < min || v > 10000)
		return err_set(ctx->err, ERR_USAGE, "--%s: not a number of %s "
		    "from %d to 10000: '%s'",
		    cmd_entry_option(ctx->entry, option)->name, what, min, value);
	*n = (int)v;
	return 0;
}

/* Sessions served at once by default: two per CPU this process may use. */
static int
default_active(void)
{
	cpu_set_t set;
	long cpus;

	cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set)
							    : sysconf(_SC_NPROCESSORS_ONLN);
	return cpus < 1 ? 2 : cpus > 5000 ? 10000 : (int)(2 * cpus);
}

static int
exec_pool_start(struct cmd_ctx *ctx)
{
	struct pool_options opt = { .keep = 32, .active = default_active(),
		.ready = print_serving };
	const char *idle = cmd_opt(ctx, OPT_IDLE);
	struct buf socket = BUF_INIT;
	int64_t pid;
	int rc;

	if ((rc = require_postgresql(ctx)) < 0)
		return rc;
	opt.foreground = cmd_has(ctx, OPT_FOREGROUND);
	opt.ready_arg = ctx;
	/* A bare 0 (never stop) needs no unit. */
	if (idle != NULL && strcmp(idle, "0") != 0 &&
	    (duration_parse(idle, &opt.idle_ms) < 0 || opt.idle_ms < 0))
		return err_set(ctx->err, ERR_USAGE, "--idle: not a duration: '%s' "
		    "(say 10m, 1h; 0 never stops)", idle);
	if ((rc = count_option(ctx, OPT_KEEP, "connections", 0, &opt.keep)) < 0 ||
	    (rc = count_option(ctx, OPT_ACTIVE, "commands", 1, &opt.active)) < 0)
		return rc;
	if ((rc = pool_serve(ctx->ledger_path.buf, &opt, &pid, &socket,
	    ctx->err)) < 0)
		goto done;
	if (opt.foreground) {
		if (!ctx->quiet && !ctx->json)
			printf("pool stopped\n");
	} else if (ctx->json) {
		rc = cmd_print_json(ctx, json_pack("{s:I, s:s}", "pid",
		    (json_int_t)pid, "socket", socket.buf));
	} else if (!ctx->quiet) {
		printf("pool started: pid %lld, socket %s\n", (long long)pid,
		    socket.buf);
	}
done:
	buf_release(&socket);
	return rc;
}

static int
exec_pool_stop(struct cmd_ctx *ctx)
{
	struct pool_status was;
	int rc;

	if ((rc = require_postgresql(ctx)) < 0 ||
	    (rc = pool_stop(ctx->ledger_path.buf, &was, ctx->err)) < 0)
		return rc;
	if (ctx->json)
		return cmd_print_json(ctx, json_pack("{s:I, s:I}", "pid",
		    (json_int_t)was.pid, "sessions", (json_int_t)was.sessions_total));
	if (!ctx->quiet)
		printf("pool stopped: pid %lld, after %lld sessions\n",
		    (long long)was.pid, (long long)was.sessions_total);
	return 0;
}

static int
exec_pool_status(struct cmd_ctx *ctx)
{
	struct pool_status st;
	struct buf socket = BUF_INIT, up = BUF_INIT;
	int rc;

	if ((rc = require_postgresql(ctx)) < 0 ||
	    (rc = pool_get_status(ctx->ledger_path.buf, &st, &socket,
	    ctx->err)) < 0)
		goto done;
	if (ctx->json) {
		rc = cmd_print_json(ctx, json_pack("{s:I, s:s, s:I, s:I, s:I, s:I, "
		    "s:I, s:I, s:I, s:s}", "pid", (json_int_t)st.pid, "socket",
		    socket.buf, "started_ms", (json_int_t)st.started_ms,
		    "sessions_now", (json_int_t)st.sessions_now, "sessions_total",
		    (json_int_t)st.sessions_total, "waiting",
		    (json_int_t)st.waiting, "active", (json_int_t)st.active,
		    "served_after_wait", (json_int_t)st.served_after_wait,
		    "idle_connections", (json_int_t)st.idle_connections,
		    "version", st.version));
		goto done;
	}
	clock_add_age(&up, clock_now_ms() - st.started_ms);
	printf("pool: pid %lld, up %s, daicho %s\n", (long long)st.pid, up.buf,
	    st.version);
	printf("socket: %s\n", socket.buf);
	printf("sessions: %lld now, %lld in all\n", (long long)st.sessions_now,
	    (long long)st.sessions_total);
	printf("waiting their turn: %lld (%lld served at once; %lld served "
	    "with no turn free, after their wait)\n", (long long)st.waiting,
	    (long long)st.active, (long long)st.served_after_wait);
	printf("connections kept warm: %lld\n", (long long)st.idle_connections);
done:
	buf_release(&socket);
	buf_release(&up);
	return rc;
}

#define POOL_HELP_WHO \
	"A pool serves one ledger for one Unix user and one libpq environment\n" \
	"(the PG* variables and HOME): commands whose connection would differ\n" \
	"(another PGUSER, another ledger) do not use it.\n"

const struct cmd_entry cmd_pool_start_entry = {
	.name = "pool start",
	.usage = "pool start [--foreground] [--idle DUR] [--keep N] [--active N]",
	.summary = "keep warm connections to a PostgreSQL ledger for short commands",
	.help =
	    "On a PostgreSQL ledger, every command otherwise starts libpq and a\n"
	    "server process of its own: most of what a claim costs. A pool is a\n"
	    "resident daicho-pg that keeps connections open; each later daicho\n"
	    "command (still its own process, with its own identity and output)\n"
	    "sends its statements through one of them. When no pool answers,\n"
	    "commands connect directly, as before: a pool only makes them faster.\n"
	    "A command that dies mid-transaction has it rolled back; a pool that\n"
	    "dies mid-transaction fails that command with exit 75 and nothing\n"
	    "of it applied.\n\n"
	    "At most --active commands are served at once (two per CPU unless\n"
	    "told); the others wait their turn, oldest first, as they would wait\n"
	    "for the ledger's write lock anyway, and a few busy server processes\n"
	    "get through a burst faster than one each. A command that has waited\n"
	    "200 ms is served anyway: one stalled in the middle of its session\n"
	    "(stopped, reading a slow pipe) holds the others up that long at most.\n\n"
	    "Commands that stay (run, mcp, serve, sweep --every, events --follow,\n"
	    "status --watch) always connect directly, so that stopping or\n"
	    "restarting a pool never ends them. DAICHO_POOL=off (or 0, no, false)\n"
	    "makes a command connect directly.\n\n"
	    POOL_HELP_WHO "\n"
	    "Detaches once it serves and prints \"pool started: pid N, socket\n"
	    "PATH\"; --foreground stays (for a service manager) until 'daicho\n"
	    "pool stop', SIGTERM or Ctrl-C. Exit 4 if one already serves.\n"
	    "JSON: {pid, socket}.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_FOREGROUND] = { "foreground", 0, NULL,
		"stay attached to the terminal" },
	    [OPT_IDLE] = { "idle", 0, "DUR",
		"stop after no command for DUR (default never)" },
	    [OPT_KEEP] = { "keep", 0, "N",
		"connections and threads kept warm (32)" },
	    [OPT_ACTIVE] = { "active", 0, "N",
		"commands served at once (two per CPU)" }),
	.flags = 0,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_pool_start,
};

const struct cmd_entry cmd_pool_stop_entry = {
	.name = "pool stop",
	.usage = "pool stop",
	.summary = "stop the pool of this ledger",
	.help =
	    "Stops the pool serving this ledger for this user: it takes no new\n"
	    "command, lets the running ones finish (for up to 10 s) and closes\n"
	    "its connections. Prints \"pool stopped: pid N, after M sessions\".\n"
	    "Exit 3 when no pool serves this ledger. JSON: {pid, sessions}.\n",
	.flags = 0,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_pool_stop,
};

const struct cmd_entry cmd_pool_status_entry = {
	.name = "pool status",
	.usage = "pool status",
	.summary = "show whether a pool serves this ledger",
	.help =
	    "Shows the pool serving this ledger for this user: its pid, socket,\n"
	    "sessions now and in all, commands waiting their turn and how many\n"
	    "it serves at once (pool start --active), how many commands were\n"
	    "served with no turn free once they had waited 200 ms (a session\n"
	    "that stalls holds the others up that long at most), and\n"
	    "connections kept warm.\n"
	    POOL_HELP_WHO
	    "Exit 3 when none does. JSON: {pid, socket, started_ms,\n"
	    "sessions_now, sessions_total, waiting, active, served_after_wait,\n"
	    "idle_connections, version}.\n",
	.flags = 0,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_pool_status,
};
