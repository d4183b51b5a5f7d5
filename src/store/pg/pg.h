/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The PostgreSQL driver's side of the statement interface (core/db.h), for
 * ledger.c and db_sqlite.c only. The driver itself (src/pg/db_pg.c) links
 * libpq, which exists only as a shared library, so it lives in the
 * dynamically linked programs (daicho-pg, daicho-serve); in the static
 * daicho every function here is a weak symbol left unresolved (NULL), and
 * main.c hands a command on a PostgreSQL ledger over to daicho-pg before
 * anything here could be called (ledger_has_postgresql() says which).
 *
 * SQL. Core writes SQL once, for both engines: the driver rewrites SQLite's
 * ?N parameters to $N and drops SQLite's planner hint "INDEXED BY name",
 * nothing else; the rest is the portable subset, or functions that the
 * PostgreSQL schema (src/pg/schema_pg.c) defines under SQLite's names.
 *
 * Parameters go with the type they were bound with (int8, float8, text,
 * bytea; NULL as unknown). Results are read as SQLite's would be: integer
 * types and booleans (as 0 and 1) are integers, bytea is bytes, NULL is
 * NULL.
 *
 * Errors. A failed call returns one of the PG_RC_ codes below (SQLite's own
 * numbers for the same kinds, so db_is_constraint() serves both), and
 * pg_error_*() describe the last failure for ledger_error().
 */
#ifndef DAICHO_DB_PG_H
#define DAICHO_DB_PG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/db.h"

#define DB_PG_WEAK __attribute__((weak))

struct pg_conn;
struct pg_stmt;

/* What a failed PostgreSQL call returns (numbered as SQLite's codes). */
enum pg_rc {
	PG_RC_ERROR = 1,       /* anything else */
	PG_RC_BUSY = 5,        /* lock timeout, deadlock, serialization,
				* connection lost, server shutting down: retry */
	PG_RC_CONSTRAINT = 19, /* a constraint refused the row */
	PG_RC_DENIED = 23,     /* a privilege the role lacks (42501) */
};

/*
 * Connect to the ledger at address (a libpq URI or connection string),
 * with lock waits bounded by busy_timeout_ms. With create, a database
 * without daicho's schema gets it (and its roles), and *created says so.
 * A database with an older schema is migrated. Returns 0, or a negative
 * err_code with err filled.
 */
int pg_connect(const char *address, bool create, int64_t busy_timeout_ms,
    struct pg_conn **out, bool *created, struct err *err) DB_PG_WEAK;
void pg_disconnect(struct pg_conn *conn) DB_PG_WEAK;
/* In a forked child: close the inherited socket, saying nothing on it. */
void pg_leave_to_parent(struct pg_conn *conn) DB_PG_WEAK;

/*
 * Run sql (one or more statements, no parameters). Returns 0 or a
 * PG_RC_ code.
 */
int pg_exec(struct pg_conn *conn, const char *sql) DB_PG_WEAK;

/*
 * Start the outermost write transaction: BEGIN, take the ledger's write
 * lock (one transaction-scoped advisory lock, so that writers are
 * serialised as on SQLite and core's read-then-write logic holds as it
 * is), and set daicho's clock to the database's. One round trip.
 */
int pg_begin_write(struct pg_conn *conn) DB_PG_WEAK;
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
int pg_begin_write_later(struct pg_conn *conn) DB_PG_WEAK;
/*
 * When the open write transaction's lock was answered (clock_mono_us()),
 * for $DAICHO_TRACE_LOCK; 0 while it has not been (nothing sent yet).
 */
int64_t pg_write_locked_us(struct pg_conn *conn) DB_PG_WEAK;
/* Bound lock waits by busy_timeout_ms from now on. 0 or a PG_RC_ code. */
int pg_set_busy_timeout(struct pg_conn *conn, int64_t busy_timeout_ms)
    DB_PG_WEAK;
/*
 * Make conn as a new connection is, for its next user (the pool, between
 * clients): roll back what is open, stop listening. 0, or a PG_RC_ code
 * when the connection is lost or broken (then close it).
 */
int pg_session_reset(struct pg_conn *conn) DB_PG_WEAK;
/*
 * Prepare each statement once on conn and keep it for the connection's
 * life (the pool: its connections outlive many commands). Otherwise every
 * statement is parsed and planned where it runs, in one round trip.
 */
void pg_keep_prepared(struct pg_conn *conn) DB_PG_WEAK;
/* Start the outermost read transaction: one snapshot for all its reads. */
int pg_begin_read(struct pg_conn *conn) DB_PG_WEAK;
/*
 * Commit the outermost transaction; a write one also wakes every process
 * waiting for a change of the ledger (NOTIFY).
 */
int pg_commit(struct pg_conn *conn, bool wrote) DB_PG_WEAK;
/*
 * After an import inserted rows with their own ids: move every identity
 * past the largest id. Returns 0 or a PG_RC_ code.
 */
int pg_after_import(struct pg_conn *conn) DB_PG_WEAK;
/* End the outermost transaction without its changes. */
void pg_rollback(struct pg_conn *conn) DB_PG_WEAK;
/*
 * Whether the open transaction failed (or its connection was lost) and
 * can only be rolled back.
 */
bool pg_failed(struct pg_conn *conn) DB_PG_WEAK;

/* Rows changed by the last statement; the id the last INSERT made. */
int64_t pg_changes(struct pg_conn *conn) DB_PG_WEAK;
int64_t pg_last_insert_id(struct pg_conn *conn) DB_PG_WEAK;

/* The server's words about the last failure, and its SQLSTATE. */
const char *pg_errmsg(struct pg_conn *conn) DB_PG_WEAK;
const char *pg_sqlstate(struct pg_conn *conn) DB_PG_WEAK;

/*
 * Wait at most timeout_ms for another process to commit a change to the
 * ledger (LISTEN/NOTIFY). Returns 1 when one did, 0 on timeout, or a
 * PG_RC_ code.
 */
int pg_wait_change(struct pg_conn *conn, int64_t timeout_ms) DB_PG_WEAK;
/*
 * The descriptor to poll for changes (listening from now on), or -1 with
 * the failure recorded; pg_wait_change(conn, 0) then says whether one came.
 */
int pg_change_fd(struct pg_conn *conn) DB_PG_WEAK;

/* A statement for sql (SQLite's dialect, see above); never NULL. */
struct pg_stmt *pg_stmt_new(struct pg_conn *conn, const char *sql) DB_PG_WEAK;
void pg_stmt_free(struct pg_stmt *st) DB_PG_WEAK;
void pg_stmt_bind_int(struct pg_stmt *st, int n, int64_t value) DB_PG_WEAK;
void pg_stmt_bind_double(struct pg_stmt *st, int n, double value) DB_PG_WEAK;
void pg_stmt_bind_null(struct pg_stmt *st, int n) DB_PG_WEAK;
/* Bind len bytes at data as text or (blob) bytea, copied when copy. */
void pg_stmt_bind_bytes(struct pg_stmt *st, int n, const void *data,
    size_t len, bool blob, bool copy) DB_PG_WEAK;
int pg_stmt_param_count(struct pg_stmt *st) DB_PG_WEAK;
/* Run the statement on the first step; DB_ROW, DB_DONE or a PG_RC_. */
int pg_stmt_step(struct pg_stmt *st) DB_PG_WEAK;
/*
 * Run st, a write whose rows and count nobody reads, to its end: now, or
 * (the pool's client, inside a begun transaction) with the connection's
 * next request, whose result then carries st's failure. DB_DONE or a
 * PG_RC_ code.
 */
int pg_stmt_step_later(struct pg_stmt *st) DB_PG_WEAK;
/*
 * Ask for st (a read outside any transaction, whose bindings are set) to
 * go in one write with the connection's next request, its rows kept for
 * its first pg_stmt_step(): true when the driver will (the pool's, on a
 * live session), false when st runs at its first step as usual.
 * Resetting st, binding it again, freeing it, or stepping it (or reading
 * its columns) before another request went takes it back: it then runs at
 * that step, on its own, as it would have without the ahead.
 */
bool pg_stmt_step_ahead(struct pg_stmt *st) DB_PG_WEAK;
void pg_stmt_reset(struct pg_stmt *st) DB_PG_WEAK;
/* Unbind every parameter of st (each is NULL until bound again). */
void pg_stmt_clear_bindings(struct pg_stmt *st) DB_PG_WEAK;
int pg_stmt_column_count(struct pg_stmt *st) DB_PG_WEAK;
const char *pg_stmt_column_name(struct pg_stmt *st, int i) DB_PG_WEAK;
const char *pg_stmt_column_decltype(struct pg_stmt *st, int i) DB_PG_WEAK;
enum db_type pg_stmt_column_type(struct pg_stmt *st, int i) DB_PG_WEAK;
int64_t pg_stmt_column_int(struct pg_stmt *st, int i) DB_PG_WEAK;
double pg_stmt_column_double(struct pg_stmt *st, int i) DB_PG_WEAK;
/* Text or bytes of column i, NUL-terminated, NULL for NULL. */
const char *pg_stmt_column_text(struct pg_stmt *st, int i) DB_PG_WEAK;
size_t pg_stmt_column_bytes(struct pg_stmt *st, int i) DB_PG_WEAK;

#endif
