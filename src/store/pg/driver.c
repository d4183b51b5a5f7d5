/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The PostgreSQL driver (store/driver.h) over the pg_* calls of
 * store/pg/pg.h, whichever of their two implementations the program is
 * linked with (libpq's or the pool's client): this table is the same in
 * both, and it is what makes store_postgresql_driver non-NULL.
 */
#include "store/pg/pg.h"

#include <string.h>

/*
 * A longer wait is no help when the connection is gone: its SQLSTATE
 * class is 08.
 */
static bool
pgd_connection_lost(void *conn)
{
	return conn != NULL && strncmp(pg_sqlstate(conn), "08", 2) == 0;
}

/* The address is not repeated: it may hold a password. */
static int
pgd_error(void *conn, const char *address, int rc, const char *what,
    struct err *err)
{
	const char *detail = conn ? pg_errmsg(conn) : "no connection";

	(void)address;
	switch (rc) {
	case PG_RC_BUSY:
		if (pgd_connection_lost(conn))
			return err_set(err, ERR_BUSY, "the connection to the ledger "
			    "was lost while %s (%s); nothing of it was written; "
			    "retry", what, detail);
		return err_set(err, ERR_BUSY, "ledger busy while %s (%s; nothing "
		    "of it was written; retry, or raise DAICHO_BUSY_TIMEOUT)", what,
		    detail);
	case PG_RC_DENIED:
		return err_set(err, ERR_REFUSED, "PostgreSQL refused %s (%s; "
		    "nothing was changed)", what, detail);
	default:
		return err_set(err, ERR_FAILED, "ledger error while %s (%s)", what,
		    detail);
	}
}

static int
pgd_open(const char *address, const struct db_open *how, void **conn,
    bool *created, struct err *err)
{
	struct pg_conn *pg = NULL;
	int rc = pg_connect(address, how->create, how->busy_timeout_ms, &pg,
	    created, err);

	*conn = pg;
	return rc;
}

static void
pgd_close(void *conn)
{
	pg_disconnect(conn);
}

static void
pgd_leave_to_parent(void *conn)
{
	pg_leave_to_parent(conn);
}

static const char *
pgd_errmsg(void *conn)
{
	return pg_errmsg(conn);
}

/* PostgreSQL tells which constraint by the SQLSTATE. */
static enum db_constraint
pgd_constraint_kind(void *conn, int rc)
{
	const char *state = pg_sqlstate(conn);

	(void)rc;
	if (strcmp(state, "23505") == 0)
		return DB_CONSTRAINT_UNIQUE;
	if (strcmp(state, "23503") == 0)
		return DB_CONSTRAINT_FOREIGN_KEY;
	return DB_CONSTRAINT_OTHER;
}

/* What a login may not do, the server refuses statement by statement. */
static bool
pgd_read_only(void *conn)
{
	(void)conn;
	return false;
}

static int
pgd_exec(void *conn, const char *sql)
{
	return pg_exec(conn, sql);
}

/*
 * BEGIN and the write lock go with the transaction's first statement:
 * one round trip fewer with the lock held.
 */
static int
pgd_begin_write(void *conn, struct err *err)
{
	int rc = pg_begin_write_later(conn);

	if (rc != 0)
		return pgd_error(conn, NULL, rc, "starting a transaction", err);
	return 0;
}

static int
pgd_begin_read(void *conn)
{
	return pg_begin_read(conn);
}

static int
pgd_commit(void *conn, bool wrote)
{
	return pg_commit(conn, wrote);
}

static void
pgd_rollback(void *conn)
{
	pg_rollback(conn);
}

static bool
pgd_aborted(void *conn)
{
	return pg_failed(conn);
}

static int
pgd_savepoint(void *conn)
{
	return pg_exec(conn, "SAVEPOINT nested");
}

static int
pgd_release(void *conn)
{
	return pg_exec(conn, "RELEASE nested");
}

static int
pgd_rollback_to(void *conn)
{
	return pg_exec(conn, "ROLLBACK TO nested");
}

/* The lock goes with the transaction's end: released is then, unknown. */
static void
pgd_lock_times(void *conn, int64_t *taken_us, int64_t *released_us)
{
	*taken_us = pg_write_locked_us(conn);
	*released_us = 0;
}

static int
pgd_wait_change(void *conn, int64_t timeout_ms)
{
	return pg_wait_change(conn, timeout_ms);
}

static int
pgd_change_fd(void *conn)
{
	return pg_change_fd(conn);
}

static int
pgd_after_import(void *conn)
{
	return pg_after_import(conn);
}

/* A statement is planned where it runs: preparing cannot fail. */
static int
pgd_prepare(void *conn, const char *sql, bool persistent, void **stmt)
{
	(void)persistent;
	*stmt = pg_stmt_new(conn, sql);
	return 0;
}

static void
pgd_finalize(void *stmt)
{
	pg_stmt_free(stmt);
}

static void
pgd_reset(void *stmt)
{
	pg_stmt_reset(stmt);
}

static void
pgd_clear_bindings(void *stmt)
{
	pg_stmt_clear_bindings(stmt);
}

static void
pgd_bind_int(void *stmt, int n, int64_t value)
{
	pg_stmt_bind_int(stmt, n, value);
}

static void
pgd_bind_double(void *stmt, int n, double value)
{
	pg_stmt_bind_double(stmt, n, value);
}

static void
pgd_bind_null(void *stmt, int n)
{
	pg_stmt_bind_null(stmt, n);
}

static void
pgd_bind_bytes(void *stmt, int n, const void *data, size_t len, enum db_bytes as,
    bool copy)
{
	pg_stmt_bind_bytes(stmt, n, data, len, as == DB_BYTES_BLOB, copy);
}

static int
pgd_bind_count(void *stmt)
{
	return pg_stmt_param_count(stmt);
}

static int
pgd_step(void *stmt)
{
	return pg_stmt_step(stmt);
}

static int
pgd_step_later(void *stmt)
{
	return pg_stmt_step_later(stmt);
}

static bool
pgd_step_ahead(void *stmt)
{
	return pg_stmt_step_ahead(stmt);
}

static int
pgd_column_count(void *stmt)
{
	return pg_stmt_column_count(stmt);
}

static const char *
pgd_column_name(void *stmt, int i)
{
	return pg_stmt_column_name(stmt, i);
}

static const char *
pgd_column_decltype(void *stmt, int i)
{
	return pg_stmt_column_decltype(stmt, i);
}

static enum db_type
pgd_column_type(void *stmt, int i)
{
	return pg_stmt_column_type(stmt, i);
}

static int64_t
pgd_column_int(void *stmt, int i)
{
	return pg_stmt_column_int(stmt, i);
}

static double
pgd_column_double(void *stmt, int i)
{
	return pg_stmt_column_double(stmt, i);
}

/* Text and bytea alike: the bytes, NUL-terminated. */
static const char *
pgd_column_text(void *stmt, int i)
{
	return pg_stmt_column_text(stmt, i);
}

static const void *
pgd_column_blob(void *stmt, int i)
{
	return pg_stmt_column_text(stmt, i);
}

static size_t
pgd_column_bytes(void *stmt, int i)
{
	return pg_stmt_column_bytes(stmt, i);
}

static int64_t
pgd_changes(void *conn)
{
	return pg_changes(conn);
}

static int64_t
pgd_last_insert_id(void *conn)
{
	return pg_last_insert_id(conn);
}

static const struct db_driver postgresql_driver = {
	.name = "PostgreSQL",
	.shared = true,
	.eager_savepoints = true,
	.schema_version_sql = "SELECT max(version) FROM daicho_schema",
	.login_is_person_sql = "SELECT CASE WHEN daicho_is_human() THEN 1 "
	    "ELSE 0 END",
	.owner_may_free_sql = "SELECT CASE WHEN pg_has_role(c.relowner, "
	    "'pg_signal_backend', 'MEMBER') AND pg_has_role(c.relowner, "
	    "'pg_read_all_stats', 'MEMBER') THEN 1 ELSE 0 END FROM pg_class c "
	    "WHERE c.oid = CAST('daicho_schema' AS regclass)",
	.public_may_temp_sql = "SELECT CASE WHEN has_database_privilege("
	    "'public', current_database(), 'TEMPORARY') THEN 1 ELSE 0 END",
	.open = pgd_open,
	.close = pgd_close,
	.leave_to_parent = pgd_leave_to_parent,
	.pooled = pg_pooled,
	.attach = pg_attach,
	.on_lost_early = pg_on_lost_early,
	.error = pgd_error,
	.errmsg = pgd_errmsg,
	.constraint_kind = pgd_constraint_kind,
	.connection_lost = pgd_connection_lost,
	.read_only = pgd_read_only,
	.exec = pgd_exec,
	.begin_write = pgd_begin_write,
	.begin_read = pgd_begin_read,
	.commit = pgd_commit,
	.rollback = pgd_rollback,
	.aborted = pgd_aborted,
	.savepoint = pgd_savepoint,
	.release = pgd_release,
	.rollback_to = pgd_rollback_to,
	.lock_times = pgd_lock_times,
	.wait_change = pgd_wait_change,
	.change_fd = pgd_change_fd,
	.after_import = pgd_after_import,
	.prepare = pgd_prepare,
	.finalize = pgd_finalize,
	.reset = pgd_reset,
	.clear_bindings = pgd_clear_bindings,
	.bind_int = pgd_bind_int,
	.bind_double = pgd_bind_double,
	.bind_null = pgd_bind_null,
	.bind_bytes = pgd_bind_bytes,
	.bind_count = pgd_bind_count,
	.step = pgd_step,
	.step_later = pgd_step_later,
	.step_ahead = pgd_step_ahead,
	.column_count = pgd_column_count,
	.column_name = pgd_column_name,
	.column_decltype = pgd_column_decltype,
	.column_type = pgd_column_type,
	.column_int = pgd_column_int,
	.column_double = pgd_column_double,
	.column_text = pgd_column_text,
	.column_blob = pgd_column_blob,
	.column_bytes = pgd_column_bytes,
	.changes = pgd_changes,
	.last_insert_id = pgd_last_insert_id,
};

const struct db_driver *const store_postgresql_driver = &postgresql_driver;
