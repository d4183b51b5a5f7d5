/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * PostgreSQL's calls, for the driver (store/pg/driver.c) and the pool's
 * server. A program links them from one of two places: libpq
 * (store/pg/libpq.c, in daicho-pg and daicho-serve: libpq exists only as
 * a shared library) or the pool's client (store/pool/client.c, in the
 * static daicho: each call is sent to a resident daicho-pg, which runs it
 * with libpq on a connection it keeps warm). Only libpq's has
 * pg_keep_prepared(), pg_set_busy_timeout() and pg_session_reset(), which
 * the pool's server uses.
 *
 * SQL. Core writes SQL once, for both engines: the driver rewrites SQLite's
 * ?N parameters to $N and drops SQLite's planner hint "INDEXED BY name",
 * nothing else; the rest is the portable subset, or functions that the
 * PostgreSQL schema (store/pg/schema.c) defines under SQLite's names.
 *
 * Parameters go with the type they were bound with (int8, float8, text,
 * bytea; NULL as unknown). Results are read as SQLite's would be: integer
 * types and booleans (as 0 and 1) are integers, bytea is bytes, NULL is
 * NULL.
 *
 * Errors. A failed call returns one of the PG_RC_ codes below (the
 * store's, store/driver.h), and pg_errmsg() and pg_sqlstate() describe the
 * last failure.
 */
#ifndef DAICHO_STORE_PG_H
#define DAICHO_STORE_PG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/driver.h"

struct pg_conn;
struct pg_stmt;

/* What a failed PostgreSQL call returns (the store's codes). */
enum pg_rc {
	PG_RC_ERROR = DB_RC_ERROR,          /* anything else */
	PG_RC_BUSY = DB_RC_BUSY,            /* lock timeout, deadlock,
					     * serialization, connection lost,
					     * server shutting down: retry */
	PG_RC_CONSTRAINT = DB_RC_CONSTRAINT, /* a constraint refused the row */
	PG_RC_DENIED = DB_RC_DENIED,        /* a privilege the role lacks
					     * (42501) */
};

/*
 * Connect to the ledger at address (a libpq URI or connection string),
 * with lock waits bounded by busy_timeout_ms. With create, a database
 * without daicho's schema gets it (and its roles), and *created says so.
 * A database with an older schema is migrated. Returns 0, or a negative
 * err_code with err filled.
 */
int pg_connect(const char *address, bool create, int64_t busy_timeout_ms,
    struct pg_conn **out, bool *created, struct err *err);
void pg_disconnect(struct pg_conn *conn);
/* Whether these calls travel through the pool (its client's: true). */
bool pg_pooled(void);
/*
 * The pool's client: start a session with the pool for address, for the
 * command about to run: true when one answered and has a connection
 * ready; then the next pg_connect(address) takes it. false: no pool (or
 * $DAICHO_POOL is "off"): main.c hands the command over. libpq's: false.
 */
bool pg_attach(const char *address);
/*
 * The pool's client: fn is called when the pool is lost before a write
 * transaction of this command began (it died, or was stopped, with the
 * command's first write queued, or before): nothing of the command is
 * written, and fn may run it anew elsewhere (main.c: in daicho-pg,
 * connecting directly). fn returns only when it cannot; the command then
 * fails as it would have (exit 75). libpq's: nothing to do.
 */
void pg_on_lost_early(void (*fn)(void));
/* In a forked child: close the inherited socket, saying nothing on it. */
void pg_leave_to_parent(struct pg_conn *conn);

/*
 * Run sql (one or more statements, no parameters). Returns 0 or a
 * PG_RC_ code.
 */
int pg_exec(struct pg_conn *conn, const char *sql);

/*
 * Start the outermost write transaction: BEGIN, take the ledger's write
 * lock (one transaction-scoped advisory lock, so that writers are
 * serialised as on SQLite and core's read-then-write logic holds as it
 * is), and set daicho's clock to the database's. One round trip.
 */
int pg_begin_write(struct pg_conn *conn);
/*
 * pg_begin_write(), but BEGIN and the write lock go to the server with
 * the next statement, in one round trip (libpq's pipeline mode), so that
 * the lock is not held while the answer to a BEGIN of its own travels.
 * That statement's result carries the lock's failure, if any; until it
 * is answered, daicho's clock is the database's as last read (on
 * connecting, or by the last transaction). Returns 0. Core's write
 * transactions begin so; the pool's clients too, whose BEGIN travels
 * with their first request.
 */
int pg_begin_write_later(struct pg_conn *conn);
/*
 * When the open write transaction's lock was answered (clock_mono_us()),
 * for $DAICHO_TRACE_LOCK; 0 while it has not been (nothing sent yet).
 */
int64_t pg_write_locked_us(struct pg_conn *conn);
/* Bound lock waits by busy_timeout_ms from now on. 0 or a PG_RC_ code. */
int pg_set_busy_timeout(struct pg_conn *conn, int64_t busy_timeout_ms)
   ;
/*
 * Make conn as a new connection is, for its next user (the pool, between
 * clients): roll back what is open, stop listening. 0, or a PG_RC_ code
 * when the connection is lost or broken (then close it).
 */
int pg_session_reset(struct pg_conn *conn);
/*
 * Prepare each statement once on conn and keep it for the connection's
 * life (the pool: its connections outlive many commands). Otherwise every
 * statement is parsed and planned where it runs, in one round trip.
 */
void pg_keep_prepared(struct pg_conn *conn);
/* Start the outermost read transaction: one snapshot for all its reads. */
int pg_begin_read(struct pg_conn *conn);
/*
 * Commit the outermost transaction; a write one also wakes every process
 * waiting for a change of the ledger (NOTIFY).
 */
int pg_commit(struct pg_conn *conn, bool wrote);
/*
 * After an import inserted rows with their own ids: move every identity
 * past the largest id. Returns 0 or a PG_RC_ code.
 */
int pg_after_import(struct pg_conn *conn);
/* End the outermost transaction without its changes. */
void pg_rollback(struct pg_conn *conn);
/*
 * Whether the open transaction failed (or its connection was lost) and
 * can only be rolled back.
 */
bool pg_failed(struct pg_conn *conn);

/* Rows changed by the last statement; the id the last INSERT made. */
int64_t pg_changes(struct pg_conn *conn);
int64_t pg_last_insert_id(struct pg_conn *conn);

/* The server's words about the last failure, and its SQLSTATE. */
const char *pg_errmsg(struct pg_conn *conn);
const char *pg_sqlstate(struct pg_conn *conn);

/*
 * Wait at most timeout_ms for another process to commit a change to the
 * ledger (LISTEN/NOTIFY). Returns 1 when one did, 0 on timeout, or a
 * PG_RC_ code.
 */
int pg_wait_change(struct pg_conn *conn, int64_t timeout_ms);
/*
 * The descriptor to poll for changes (listening from now on), or -1 with
 * the failure recorded; pg_wait_change(conn, 0) then says whether one came.
 */
int pg_change_fd(struct pg_conn *conn);

/* A statement for sql (SQLite's dialect, see above); never NULL. */
struct pg_stmt *pg_stmt_new(struct pg_conn *conn, const char *sql);
void pg_stmt_free(struct pg_stmt *st);
void pg_stmt_bind_int(struct pg_stmt *st, int n, int64_t value);
void pg_stmt_bind_double(struct pg_stmt *st, int n, double value);
void pg_stmt_bind_null(struct pg_stmt *st, int n);
/* Bind len bytes at data as text or (blob) bytea, copied when copy. */
void pg_stmt_bind_bytes(struct pg_stmt *st, int n, const void *data,
    size_t len, bool blob, bool copy);
int pg_stmt_param_count(struct pg_stmt *st);
/* Run the statement on the first step; DB_ROW, DB_DONE or a PG_RC_. */
int pg_stmt_step(struct pg_stmt *st);
/*
 * Run st, a write whose rows and count nobody reads, to its end: now, or
 * (the pool's client, inside a begun transaction) with the connection's
 * next request, whose result then carries st's failure. DB_DONE or a
 * PG_RC_ code.
 */
int pg_stmt_step_later(struct pg_stmt *st);
/*
 * Ask for st (a read outside any transaction, whose bindings are set) to
 * go in one write with the connection's next request, its rows kept for
 * its first pg_stmt_step(): true when the driver will (the pool's, on a
 * live session), false when st runs at its first step as usual.
 * Resetting st, binding it again, freeing it, or stepping it (or reading
 * its columns) before another request went takes it back: it then runs at
 * that step, on its own, as it would have without the ahead.
 */
bool pg_stmt_step_ahead(struct pg_stmt *st);
void pg_stmt_reset(struct pg_stmt *st);
/* Unbind every parameter of st (each is NULL until bound again). */
void pg_stmt_clear_bindings(struct pg_stmt *st);
int pg_stmt_column_count(struct pg_stmt *st);
const char *pg_stmt_column_name(struct pg_stmt *st, int i);
const char *pg_stmt_column_decltype(struct pg_stmt *st, int i);
enum db_type pg_stmt_column_type(struct pg_stmt *st, int i);
int64_t pg_stmt_column_int(struct pg_stmt *st, int i);
double pg_stmt_column_double(struct pg_stmt *st, int i);
/* Text or bytes of column i, NUL-terminated, NULL for NULL. */
const char *pg_stmt_column_text(struct pg_stmt *st, int i);
size_t pg_stmt_column_bytes(struct pg_stmt *st, int i);

#endif
