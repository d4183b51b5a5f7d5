/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The statement interface (core/db.h) over the ledger's driver: each call
 * is the driver's own, through its table; and the ledger's statement
 * cache, keyed by the address of the SQL literal.
 */
#include "core/ledger_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/bug.h"

/* The driver of st's ledger. */
static inline const struct db_driver *
drv(const struct db_stmt *st)
{
	return st->ledger->driver;
}

int
db_prepare(struct ledger *ledger, const char *sql, struct db_stmt **out,
    struct err *err)
{
	const struct db_driver *d = ledger->driver;
	struct db_stmt *st;
	void *impl = NULL;
	int rc;

	*out = NULL;
	for (size_t i = 0; i < ledger->stmt_count; i++) {
		if (ledger->stmts[i].sql == sql) {
			st = &ledger->stmts[i].stmt;
			d->reset(st->impl);
			d->clear_bindings(st->impl);
			*out = st;
			return 0;
		}
	}
	/* Every statement is a literal in core/: raise the size. */
	if (ledger->stmt_count == STMT_CACHE_SIZE)
		return err_set(err, ERR_FAILED, "internal: statement cache full");
	if ((rc = d->prepare(ledger->conn, sql, true, &impl)) != 0)
		return ledger_error(ledger, rc, err, "preparing a query");
	ledger->stmts[ledger->stmt_count].sql = sql;
	st = &ledger->stmts[ledger->stmt_count++].stmt;
	*st = (struct db_stmt){ .impl = impl, .ledger = ledger, .cached = true };
	*out = st;
	return 0;
}

int
db_prepare_once(struct ledger *ledger, const char *sql, struct db_stmt **out,
    struct err *err)
{
	void *impl = NULL;
	int rc;

	*out = NULL;
	if ((rc = ledger->driver->prepare(ledger->conn, sql, false, &impl)) != 0)
		return ledger_error(ledger, rc, err, "preparing a query");
	*out = xcalloc(1, sizeof(**out));
	(*out)->impl = impl;
	(*out)->ledger = ledger;
	return 0;
}

void
db_finalize(struct db_stmt *st)
{
	if (st == NULL)
		return;
	BUG_ON(st->cached, "finalizing a statement the ledger's cache owns");
	drv(st)->finalize(st->impl);
	free(st);
}

void
db_bind_int(struct db_stmt *st, int n, int64_t value)
{
	drv(st)->bind_int(st->impl, n, value);
}

void
db_bind_double(struct db_stmt *st, int n, double value)
{
	drv(st)->bind_double(st->impl, n, value);
}

void
db_bind_null(struct db_stmt *st, int n)
{
	drv(st)->bind_null(st->impl, n);
}

/* Bind text (NULL: NULL), copied when copy. */
static void
bind_text(struct db_stmt *st, int n, const char *text, bool copy)
{
	if (text == NULL)
		drv(st)->bind_null(st->impl, n);
	else
		drv(st)->bind_bytes(st->impl, n, text, strlen(text), DB_BYTES_TEXT,
		    copy);
}

void
db_bind_text(struct db_stmt *st, int n, const char *text)
{
	bind_text(st, n, text, false);
}

void
db_bind_text_copy(struct db_stmt *st, int n, const char *text)
{
	bind_text(st, n, text, true);
}

void
db_bind_textn_copy(struct db_stmt *st, int n, const char *text, size_t len)
{
	drv(st)->bind_bytes(st->impl, n, text, len, DB_BYTES_TEXT, true);
}

void
db_bind_blob(struct db_stmt *st, int n, const void *data, size_t len)
{
	drv(st)->bind_bytes(st->impl, n, data, len, DB_BYTES_BLOB, false);
}

void
db_bind_blob_copy(struct db_stmt *st, int n, const void *data, size_t len)
{
	drv(st)->bind_bytes(st->impl, n, data, len, DB_BYTES_BLOB, true);
}

int
db_bind_count(struct db_stmt *st)
{
	return drv(st)->bind_count(st->impl);
}

/*
 * A write inside nested levels that have not written yet gives them their
 * savepoints first (core/ledger.h, "Transactions nest").
 */
int
db_step(struct db_stmt *st)
{
	struct ledger *ledger = st->ledger;
	int rc;

	BUG_ON(ledger->covered > ledger->nesting, "%d nested levels written, "
	    "of %d open", ledger->covered, ledger->nesting);
	if (ledger->covered < ledger->nesting && drv(st)->writes != NULL &&
	    drv(st)->writes(st->impl) &&
	    (rc = ledger_cover_write(ledger)) != 0)
		return rc;
	return drv(st)->step(st->impl);
}

bool
db_step_ahead(struct db_stmt *st)
{
	return drv(st)->step_ahead != NULL && drv(st)->step_ahead(st->impl);
}

int
db_step_later(struct ledger *ledger, struct db_stmt *st, const char *what,
    struct err *err)
{
	int rc;

	if (drv(st)->step_later == NULL)
		return db_step_done(ledger, st, what, err);
	rc = drv(st)->step_later(st->impl);
	drv(st)->reset(st->impl);
	if (rc != DB_DONE)
		return db_error(ledger, rc, err, what);
	return 0;
}

void
db_reset(struct db_stmt *st)
{
	drv(st)->reset(st->impl);
}

int
db_column_count(struct db_stmt *st)
{
	return drv(st)->column_count(st->impl);
}

const char *
db_column_name(struct db_stmt *st, int i)
{
	return drv(st)->column_name(st->impl, i);
}

const char *
db_column_decltype(struct db_stmt *st, int i)
{
	return drv(st)->column_decltype(st->impl, i);
}

bool
db_column_is_null(struct db_stmt *st, int i)
{
	return drv(st)->column_type(st->impl, i) == DB_NULL;
}

int64_t
db_column_int(struct db_stmt *st, int i)
{
	return drv(st)->column_int(st->impl, i);
}

double
db_column_double(struct db_stmt *st, int i)
{
	return drv(st)->column_double(st->impl, i);
}

const char *
db_column_text(struct db_stmt *st, int i)
{
	return drv(st)->column_text(st->impl, i);
}

const void *
db_column_blob(struct db_stmt *st, int i)
{
	return drv(st)->column_blob(st->impl, i);
}

size_t
db_column_bytes(struct db_stmt *st, int i)
{
	return drv(st)->column_bytes(st->impl, i);
}

enum db_type
db_column_type(struct db_stmt *st, int i)
{
	return drv(st)->column_type(st->impl, i);
}

int64_t
db_changes(struct ledger *ledger)
{
	return ledger->driver->changes(ledger->conn);
}

int64_t
db_last_insert_id(struct ledger *ledger)
{
	return ledger->driver->last_insert_id(ledger->conn);
}

const char *
db_errmsg(struct ledger *ledger)
{
	return ledger->driver->errmsg(ledger->conn);
}

int
db_error(struct ledger *ledger, int rc, struct err *err, const char *what)
{
	return ledger_error(ledger, rc, err, what);
}

bool
db_is_constraint(int rc)
{
	return (rc & 0xff) == DB_RC_CONSTRAINT || (rc & 0xff) == DB_RC_MISMATCH;
}

enum db_constraint
db_constraint_kind(struct ledger *ledger, int rc)
{
	return ledger->driver->constraint_kind(ledger->conn, rc);
}
