/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The statement interface: the one way core/ talks to the store, whatever
 * the back end. Core modules prepare a statement, bind its parameters,
 * step through its rows, read their columns and reset it; transactions are
 * ledger_begin(), ledger_begin_read(), ledger_commit() and
 * ledger_rollback() (core/ledger.h). Core names no engine: under this
 * interface each is a driver (store/driver.h), reached through the
 * ledger's.
 *
 * Statements. db_prepare() takes SQL that is a string literal and caches
 * the statement by the literal's address: the ledger owns it, and hands it
 * back reset with no bindings. db_prepare_once() is for SQL assembled at
 * run time from fixed pieces (never from input: values are always bound);
 * the caller finalises it with db_finalize(). Both put the statement in
 * *out and return 0 or a negative error code, as the rest of core/ does.
 * Parameters are ?1, ?2, ... numbered from 1; columns are numbered from 0.
 *
 * Results. db_step() returns DB_ROW (a row is ready), DB_DONE (no more
 * rows), or another value, an error that only db_error() interprets (it
 * maps it to daicho's codes: busy is ERR_BUSY, exit 75). Reset a
 * statement when done with it, so that a read does not linger.
 *
 * Text and bytes. db_bind_text() and db_bind_blob() keep the caller's
 * pointer, which must stay valid until the statement is reset or bound
 * again; the _copy forms copy it. A NULL text binds NULL. Pointers that
 * db_column_text() and db_column_blob() return live until the next step
 * or reset of the statement.
 *
 * What differs between back ends in the SQL itself (schema, upserts,
 * locking clauses) lives in the driver, not in the modules that use this.
 */
#ifndef DAICHO_DB_H
#define DAICHO_DB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "store/db_types.h"

struct ledger;
struct db_stmt;

/*
 * The cached statement for sql (a literal) in *out, owned by the ledger:
 * reset, with no bindings. Returns 0, or the mapped error with *out NULL.
 */
int db_prepare(struct ledger *ledger, const char *sql, struct db_stmt **out,
    struct err *err);

/*
 * A new statement for sql, assembled at run time; *out is the caller's,
 * for db_finalize(). Returns 0 or the mapped error.
 */
int db_prepare_once(struct ledger *ledger, const char *sql,
    struct db_stmt **out, struct err *err);

/* Free a statement of db_prepare_once() (NULL: nothing). */
void db_finalize(struct db_stmt *st);

void db_bind_int(struct db_stmt *st, int n, int64_t value);
void db_bind_double(struct db_stmt *st, int n, double value);
void db_bind_null(struct db_stmt *st, int n);
void db_bind_text(struct db_stmt *st, int n, const char *text);
void db_bind_text_copy(struct db_stmt *st, int n, const char *text);
/* len bytes at text, which need not be NUL-terminated. */
void db_bind_textn_copy(struct db_stmt *st, int n, const char *text,
    size_t len);
void db_bind_blob(struct db_stmt *st, int n, const void *data, size_t len);
void db_bind_blob_copy(struct db_stmt *st, int n, const void *data,
    size_t len);
/* How many parameters st takes. */
int db_bind_count(struct db_stmt *st);

int db_step(struct db_stmt *st);
/*
 * Ask for st, a read outside any transaction with its bindings set, to
 * run ahead: true when the driver sends it with the next statement (the
 * pool's: one wait for both), its rows then read by db_step() as ever;
 * false when it runs at its first db_step(), as any statement does, so
 * the caller that has the choice reads it now. Resetting, binding or
 * preparing st again, or stepping it before any other statement was,
 * takes it back: it then runs at that step, on its own (inside the
 * transaction, if one was begun since).
 */
bool db_step_ahead(struct db_stmt *st);
/* Reset st to run again; its bindings stay. */
void db_reset(struct db_stmt *st);

int db_column_count(struct db_stmt *st);
/* Column i's name (its AS name), owned by st. */
const char *db_column_name(struct db_stmt *st, int i);
/*
 * Column i's declared type in the schema (INTEGER, REAL, TEXT, BLOB), or
 * NULL for an expression.
 */
const char *db_column_decltype(struct db_stmt *st, int i);
bool db_column_is_null(struct db_stmt *st, int i);
int64_t db_column_int(struct db_stmt *st, int i);
double db_column_double(struct db_stmt *st, int i);
/* Column i as text (NULL for NULL). */
const char *db_column_text(struct db_stmt *st, int i);
const void *db_column_blob(struct db_stmt *st, int i);
/* The bytes of column i's text or blob. */
size_t db_column_bytes(struct db_stmt *st, int i);

enum db_type db_column_type(struct db_stmt *st, int i);

/* Rows changed by the last write statement run on the ledger. */
int64_t db_changes(struct ledger *ledger);
/* The id of the row the last INSERT made. */
int64_t db_last_insert_id(struct ledger *ledger);

/*
 * Turn a failed call's result rc into an error about what was being done,
 * with the right code (ledger_error()). Returns the negative code.
 */
int db_error(struct ledger *ledger, int rc, struct err *err, const char *what);
/* The back end's own words about the last failed call, for a message. */
const char *db_errmsg(struct ledger *ledger);
/* Whether rc is a row refused by a constraint (or a value of a wrong type). */
bool db_is_constraint(int rc);

/* The kind of constraint that refused the last failed call, rc. */
enum db_constraint db_constraint_kind(struct ledger *ledger, int rc);

/*
 * Step st, a statement whose rows are not wanted (a write), to the end and
 * reset it. Returns 0 or the mapped error about what.
 */
int db_step_done(struct ledger *ledger, struct db_stmt *st, const char *what,
    struct err *err);

/*
 * db_step_done() for a write inside a write transaction whose count, too,
 * nobody reads (an event, say): the pool's driver sends it with the
 * transaction's next statement or its COMMIT, one round trip fewer with
 * the write lock held. Its failure is then that later call's, and the
 * transaction can only be rolled back, as it would have been; statements
 * run in the order they were stepped either way. Keep db_step_done() for
 * a write whose failure the caller tells apart (a constraint it explains).
 */
int db_step_later(struct ledger *ledger, struct db_stmt *st, const char *what,
    struct err *err);

/*
 * Run sql (a string literal: a cached statement) binding ?1 = a and, when
 * it has a second parameter, ?2 = b, to the end. For the many one-line
 * writes keyed by an id and a time. *changes (may be NULL) gets the rows
 * changed. Returns 0 or the mapped error about what.
 */
int db_write(struct ledger *ledger, const char *sql, int64_t a, int64_t b,
    int64_t *changes, const char *what, struct err *err);

/*
 * db_write() through db_step_later(): for a write inside a write
 * transaction whose count and failure nobody reads apart (a heartbeat).
 */
int db_write_later(struct ledger *ledger, const char *sql, int64_t a,
    int64_t b, const char *what, struct err *err);

/*
 * Step st once and put column 0 of its row in *value (0 when there is no
 * row; *found, when not NULL, says whether there was one). Resets st.
 * Returns 0 or the mapped error about what.
 */
int db_step_int(struct ledger *ledger, struct db_stmt *st, int64_t *value,
    bool *found, const char *what, struct err *err);

/*
 * Run sql (a string literal: a cached statement), a count (SELECT count(*)
 * ...) or another query of one integer, binding ?1 = a when it has a
 * parameter, and put column 0 of its row in *count (0 when there is none).
 * For the many counts keyed by one id. Returns 0 or the mapped error about
 * what.
 */
int db_count(struct ledger *ledger, const char *sql, int64_t a,
    int64_t *count, const char *what, struct err *err);

/*
 * Step st to the end, appending each row to array as a JSON object keyed by
 * column name (use AS to name them): integers, reals, text and NULL as
 * such; a column whose name ends in "_json" holds JSON text and is
 * embedded parsed. Resets st. Returns 0 or the mapped error about what.
 */
int db_rows_json(struct ledger *ledger, struct db_stmt *st, json_t *array,
    const char *what, struct err *err);

#endif
