/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The statement interface (core/db.h) over its two drivers: each call is
 * SQLite's own, with nothing added but one test of which driver the
 * statement has, so that the claim path costs what it did before the
 * interface existed; a PostgreSQL statement goes to core/db_pg.h.
 * Preparing and the statement cache live in ledger.c, beside the
 * connection.
 */
#include "core/db_sqlite.h"

#include "core/db_pg.h"

#include <stdlib.h>
#include <string.h>

#include "core/ledger.h"
#include "util/alloc.h"
#include "util/bug.h"

_Static_assert(DB_ROW == SQLITE_ROW && DB_DONE == SQLITE_DONE,
    "db_step() returns SQLite's own codes");

void
db_bind_int(struct db_stmt *st, int n, int64_t value)
{
	if (st->pg) {
		pg_stmt_bind_int(st->pg, n, value);
		return;
	}
	sqlite3_bind_int64(st->lite, n, value);
}

void
db_bind_double(struct db_stmt *st, int n, double value)
{
	if (st->pg) {
		pg_stmt_bind_double(st->pg, n, value);
		return;
	}
	sqlite3_bind_double(st->lite, n, value);
}

void
db_bind_null(struct db_stmt *st, int n)
{
	if (st->pg) {
		pg_stmt_bind_null(st->pg, n);
		return;
	}
	sqlite3_bind_null(st->lite, n);
}

void
db_bind_text(struct db_stmt *st, int n, const char *text)
{
	if (st->pg) {
		if (text == NULL)
			pg_stmt_bind_null(st->pg, n);
		else
			pg_stmt_bind_bytes(st->pg, n, text, strlen(text), false,
			    false);
		return;
	}
	sqlite3_bind_text(st->lite, n, text, -1, SQLITE_STATIC);
}

void
db_bind_text_copy(struct db_stmt *st, int n, const char *text)
{
	if (st->pg) {
		if (text == NULL)
			pg_stmt_bind_null(st->pg, n);
		else
			pg_stmt_bind_bytes(st->pg, n, text, strlen(text), false,
			    true);
		return;
	}
	sqlite3_bind_text(st->lite, n, text, -1, SQLITE_TRANSIENT);
}

void
db_bind_textn_copy(struct db_stmt *st, int n, const char *text, size_t len)
{
	if (st->pg) {
		pg_stmt_bind_bytes(st->pg, n, text, len, false, true);
		return;
	}
	sqlite3_bind_text64(st->lite, n, text, len, SQLITE_TRANSIENT,
	    SQLITE_UTF8);
}

/*
 * A blob of no bytes must not be bound from a NULL pointer: SQLite would
 * bind NULL instead.
 */
void
db_bind_blob(struct db_stmt *st, int n, const void *data, size_t len)
{
	if (st->pg) {
		pg_stmt_bind_bytes(st->pg, n, data, len, true, false);
		return;
	}
	sqlite3_bind_blob64(st->lite, n, data ? data : "", len, SQLITE_STATIC);
}

void
db_bind_blob_copy(struct db_stmt *st, int n, const void *data, size_t len)
{
	if (st->pg) {
		pg_stmt_bind_bytes(st->pg, n, data, len, true, true);
		return;
	}
	sqlite3_bind_blob64(st->lite, n, data ? data : "", len,
	    SQLITE_TRANSIENT);
}

int
db_bind_count(struct db_stmt *st)
{
	if (st->pg)
		return pg_stmt_param_count(st->pg);
	return sqlite3_bind_parameter_count(st->lite);
}

int
db_step(struct db_stmt *st)
{
	int rc;

	if (st->pg)
		return pg_stmt_step(st->pg);
	if ((rc = ledger_before_step(st->ledger, st->lite)) != SQLITE_OK)
		return rc;
	return sqlite3_step(st->lite);
}

bool
db_step_ahead(struct db_stmt *st)
{
	return st->pg != NULL && pg_stmt_step_ahead(st->pg);
}

int
db_step_later(struct ledger *ledger, struct db_stmt *st, const char *what,
    struct err *err)
{
	int rc;

	if (st->pg == NULL)
		return db_step_done(ledger, st, what, err);
	rc = pg_stmt_step_later(st->pg);
	pg_stmt_reset(st->pg);
	if (rc != DB_DONE)
		return db_error(ledger, rc, err, what);
	return 0;
}

void
db_reset(struct db_stmt *st)
{
	if (st->pg) {
		pg_stmt_reset(st->pg);
		return;
	}
	sqlite3_reset(st->lite);
}

int
db_column_count(struct db_stmt *st)
{
	if (st->pg)
		return pg_stmt_column_count(st->pg);
	return sqlite3_column_count(st->lite);
}

const char *
db_column_name(struct db_stmt *st, int i)
{
	if (st->pg)
		return pg_stmt_column_name(st->pg, i);
	return sqlite3_column_name(st->lite, i);
}

const char *
db_column_decltype(struct db_stmt *st, int i)
{
	if (st->pg)
		return pg_stmt_column_decltype(st->pg, i);
	return sqlite3_column_decltype(st->lite, i);
}

bool
db_column_is_null(struct db_stmt *st, int i)
{
	if (st->pg)
		return pg_stmt_column_type(st->pg, i) == DB_NULL;
	return sqlite3_column_type(st->lite, i) == SQLITE_NULL;
}

int64_t
db_column_int(struct db_stmt *st, int i)
{
	if (st->pg)
		return pg_stmt_column_int(st->pg, i);
	return sqlite3_column_int64(st->lite, i);
}

double
db_column_double(struct db_stmt *st, int i)
{
	if (st->pg)
		return pg_stmt_column_double(st->pg, i);
	return sqlite3_column_double(st->lite, i);
}

const char *
db_column_text(struct db_stmt *st, int i)
{
	if (st->pg)
		return pg_stmt_column_text(st->pg, i);
	return (const char *)sqlite3_column_text(st->lite, i);
}

const void *
db_column_blob(struct db_stmt *st, int i)
{
	if (st->pg)
		return pg_stmt_column_text(st->pg, i);
	return sqlite3_column_blob(st->lite, i);
}

size_t
db_column_bytes(struct db_stmt *st, int i)
{
	if (st->pg)
		return pg_stmt_column_bytes(st->pg, i);
	return (size_t)sqlite3_column_bytes(st->lite, i);
}

enum db_type
db_column_type(struct db_stmt *st, int i)
{
	if (st->pg)
		return pg_stmt_column_type(st->pg, i);
	switch (sqlite3_column_type(st->lite, i)) {
	case SQLITE_INTEGER:
		return DB_INTEGER;
	case SQLITE_FLOAT:
		return DB_REAL;
	case SQLITE_BLOB:
		return DB_BLOB;
	case SQLITE_NULL:
		return DB_NULL;
	default:
		return DB_TEXT;
	}
}

int64_t
db_changes(struct ledger *ledger)
{
	if (ledger_pg(ledger))
		return pg_changes(ledger_pg(ledger));
	return sqlite3_changes(ledger_db(ledger));
}

int64_t
db_last_insert_id(struct ledger *ledger)
{
	if (ledger_pg(ledger))
		return pg_last_insert_id(ledger_pg(ledger));
	return sqlite3_last_insert_rowid(ledger_db(ledger));
}

const char *
db_errmsg(struct ledger *ledger)
{
	if (ledger_pg(ledger))
		return pg_errmsg(ledger_pg(ledger));
	return sqlite3_errmsg(ledger_db(ledger));
}

bool
db_is_constraint(int rc)
{
	return (rc & 0xff) == SQLITE_CONSTRAINT || (rc & 0xff) == SQLITE_MISMATCH;
}

/* PostgreSQL tells by the SQLSTATE, SQLite by the extended result code. */
enum db_constraint
db_constraint_kind(struct ledger *ledger, int rc)
{
	if (ledger_pg(ledger)) {
		const char *state = pg_sqlstate(ledger_pg(ledger));

		if (strcmp(state, "23505") == 0)
			return DB_CONSTRAINT_UNIQUE;
		if (strcmp(state, "23503") == 0)
			return DB_CONSTRAINT_FOREIGN_KEY;
		return DB_CONSTRAINT_OTHER;
	}
	switch (rc) {
	case SQLITE_CONSTRAINT_PRIMARYKEY:
	case SQLITE_CONSTRAINT_UNIQUE:
	case SQLITE_CONSTRAINT_ROWID:
		return DB_CONSTRAINT_UNIQUE;
	case SQLITE_CONSTRAINT_FOREIGNKEY:
		return DB_CONSTRAINT_FOREIGN_KEY;
	default:
		return DB_CONSTRAINT_OTHER;
	}
}

int
db_prepare_once(struct ledger *ledger, const char *sql, struct db_stmt **out,
    struct err *err)
{
	sqlite3_stmt *lite = NULL;
	int rc;

	*out = NULL;
	if (ledger_pg(ledger)) {
		*out = xcalloc(1, sizeof(**out));
		(*out)->pg = pg_stmt_new(ledger_pg(ledger), sql);
		return 0;
	}
	rc = sqlite3_prepare_v2(ledger_db(ledger), sql, -1, &lite, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(lite);
		return ledger_error(ledger, rc, err, "preparing a query");
	}
	*out = xcalloc(1, sizeof(**out));
	(*out)->lite = lite;
	(*out)->ledger = ledger;
	return 0;
}

void
db_finalize(struct db_stmt *st)
{
	if (st == NULL)
		return;
	BUG_ON(st->cached, "finalizing a statement the ledger's cache owns");
	if (st->pg)
		pg_stmt_free(st->pg);
	sqlite3_finalize(st->lite);
	free(st);
}
