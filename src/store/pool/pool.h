/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The pool: a resident process (daicho-pg pool start) that keeps warm
 * connections to one PostgreSQL ledger, so that a short command does not
 * pay for starting libpq, a server process and its caches (most of a
 * claim's cost on PostgreSQL: bench/RESULTS.md).
 *
 * The static daicho talks to it through src/store/pool/client.c, which is its
 * PostgreSQL driver (store/pg/pg.h): every command still runs in its own
 * process, with its own identity, directory and output, and core's logic
 * unchanged; only its statements travel through the pool, one message per
 * statement, on a connection that is the command's alone until it ends.
 * When no pool answers (none started, one stopped or killed, another
 * daicho version), daicho hands the command to daicho-pg as before: a
 * missing pool never stops a command, it only makes it slower.
 *
 * Who may use a pool. Its socket is in a directory only its Unix user can
 * enter, it serves only peers of that user (SO_PEERCRED), and its name
 * is derived from the ledger address and the libpq environment (every
 * PG* variable, and HOME for ~/.pgpass): a command that would connect as
 * another database role finds another pool, or none. The pool never
 * connects as anyone but the user who started it would.
 *
 * The messages (util/wire.h). A client sends a request and reads its one
 * reply (a POOL_STEP_LATER has none: it goes with the next request).
 * Every request after the hello begins with which transaction, if
 * any, to begin first (POOL_BEGIN_WRITE, POOL_BEGIN_READ or 0): a client's
 * BEGIN travels with its first statement. Every reply begins with struct
 * pool_head.
 *
 * Commands that stay (a runner, a watcher, a server) do not use a pool
 * (src/main.c): a pool stopped or restarted under them would end them,
 * and a process start is no cost to them.
 */
#ifndef DAICHO_POOL_H
#define DAICHO_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "util/buf.h"

/* A client and a pool talk only when both say this (and one version). */
#define POOL_PROTOCOL 3

enum pool_kind {
	/* protocol, daicho version, address, busy timeout (ms) */
	POOL_HELLO = 1,
	POOL_EXEC,          /* sql */
	POOL_BEGIN_WRITE,   /* not a request: what a request begins first */
	POOL_BEGIN_READ,    /* the same, for a read transaction */
	POOL_COMMIT,        /* wrote (0 or 1) */
	POOL_ROLLBACK,
	POOL_AFTER_IMPORT,
	POOL_LAST_INSERT_ID, /* reply: + id */
	/*
	 * sql (SQLite's dialect), count, then each parameter: type (enum
	 * pool_value) and value (i64; a double's bits; bytes). Reply: +
	 * columns, each name and declared type; then each row as 1 and its
	 * cells (type, bytes as pg_stmt_column_text() gives them); then 0.
	 */
	POOL_STEP,
	/* instead of HELLO: reply: + pid, started (ms), sessions now and in
	 * all, idle connections, daicho version */
	POOL_STATUS,
	POOL_STOP,          /* instead of HELLO: stop serving */
	/*
	 * A POOL_STEP inside the open transaction whose result nobody
	 * reads: no reply. It comes in one write with the request after it.
	 * Should it fail, that failure answers the session's next request
	 * instead, which is not run (a COMMIT rolls back; a ROLLBACK runs).
	 */
	POOL_STEP_LATER,
	POOL_REPLY = 64,
};

enum pool_value {
	POOL_NULL,
	POOL_INT,
	POOL_DOUBLE,
	POOL_TEXT,
	POOL_BLOB,
};

/* What every reply begins with. */
struct pool_head {
	int rc;               /* 0, or a PG_RC_ code */
	bool failed;          /* the transaction can only be rolled back */
	bool begun;           /* the transaction the request asked for began */
	int64_t clock_offset_ms; /* the database's clock less this host's */
	const char *sqlstate; /* of a failure, else NULL */
	const char *message;  /* of a failure, else NULL */
	int64_t changes;      /* rows the statement changed */
};

struct wire_msg;
/* Begin reply as a POOL_REPLY with head; the request's own fields follow. */
void pool_put_head(struct wire_msg *reply, const struct pool_head *head);
/* Get head from a received reply (its strings point into it). */
void pool_get_head(struct wire_msg *reply, struct pool_head *head);

/*
 * The socket of the pool for address as this process would connect to it
 * (its libpq environment and user): in $XDG_RUNTIME_DIR/daicho, else
 * /tmp/daicho-UID, made (mode 0700) when make_dir. Fails (-1, err) when
 * that directory is not this user's alone: a socket there could be
 * anyone's.
 */
int pool_socket_path(const char *address, bool make_dir, struct buf *out,
    struct err *err);

/*
 * Connect to the pool's socket at path and check that it is served by
 * this user. Returns the descriptor (close-on-exec), or -1 with errno.
 */
int pool_dial(const char *path);

/*
 * Wait up to timeout_ms for fd to have something to read (an answer, or
 * its end). false when nothing came in time: a pool stopped (SIGSTOP,
 * Ctrl-Z) still takes connections, and would keep its client for ever.
 */
bool pool_wait_answer(int fd, int64_t timeout_ms);

/* What 'daicho pool start' was asked. */
struct pool_options {
	bool foreground;      /* stay attached; else detach once serving */
	int64_t idle_ms;      /* stop after no client for this long; 0 never */
	int keep;             /* idle connections kept warm, at most */
	int active;           /* sessions served at once; more wait their
				 turn (at least 1) */
	/* Called once the pool serves, with its socket (foreground). */
	void (*ready)(const char *socket, void *arg);
	void *ready_arg;
};

/* What 'daicho pool status' shows. */
struct pool_status {
	int64_t pid;
	int64_t started_ms;
	int64_t sessions_now;
	int64_t sessions_total;
	int64_t idle_connections;
	char version[32];
	int64_t waiting;      /* clients waiting for their turn */
	int64_t active;       /* sessions served at once (--active) */
	int64_t served_after_wait; /* commands served with no turn free,
				      after their wait (200 ms), since the
				      start */
};

/*
 * The server (src/store/pool/server.c, in daicho-pg only; NULL elsewhere).
 * pool_serve() serves address until stopped, having first connected once
 * to check that a ledger is there. Detached (not opt->foreground), it
 * returns in the caller once the pool serves, with *pid and the socket
 * in *socket; the pool itself goes on in a new session. Returns 0 or a
 * negative err code (ERR_CONFLICT: one already serves address).
 */
int pool_serve(const char *address, const struct pool_options *opt,
    int64_t *pid, struct buf *socket, struct err *err) __attribute__((weak));
/* Ask the pool for address to stop; ERR_NOT_FOUND when none answers. */
int pool_stop(const char *address, struct pool_status *was, struct err *err)
    __attribute__((weak));
/* The pool's status; ERR_NOT_FOUND when none answers. */
int pool_get_status(const char *address, struct pool_status *out,
    struct buf *socket, struct err *err) __attribute__((weak));

#endif
