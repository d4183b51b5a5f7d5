/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The SQLite driver (store/driver.h): each statement call is SQLite's
 * own; transactions hold the ledger's write lock ("<ledger>-lock", a
 * first-come-first-served ticket lock, util/filelock.h) around BEGIN
 * IMMEDIATE ... COMMIT, so that waiters sleep in the kernel and are woken
 * one at a time, where SQLite's busy handler would let a few starve the
 * rest; the WAL is checkpointed outside that lock.
 */
#include "store/sqlite/sqlite.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/filelock.h"

_Static_assert(DB_ROW == SQLITE_ROW && DB_DONE == SQLITE_DONE,
    "db_step() returns SQLite's own codes");
_Static_assert(DB_RC_BUSY == SQLITE_BUSY && DB_RC_FULL == SQLITE_FULL &&
    DB_RC_CONSTRAINT == SQLITE_CONSTRAINT && DB_RC_MISMATCH ==
    SQLITE_MISMATCH && DB_RC_DENIED == SQLITE_AUTH, "codes are SQLite's");

/* Damage. */

/*
 * SQLite notices a damaged page only when it reads that page, so a
 * command that never reads it (an add) would go on writing to a ledger
 * another command found damaged. The first to meet the damage leaves
 * "<ledger>-damaged" (holding SQLite's message), and every command refuses
 * the ledger while it is there (open.c), until 'daicho doctor' finds the
 * ledger whole again (lite_check_integrity()).
 */
int
lite_damage_error(const char *path, const char *detail, struct err *err)
{
	return err_set(err, ERR_FAILED,
	    "the ledger at %s is damaged (%s; stop the agents, run 'daicho "
	    "doctor', then restore it from a backup or rebuild it from 'sqlite3 "
	    "%s .dump' as doctor shows)", path, detail, path);
}

void
lite_mark_damaged(const struct lite_conn *c, const char *detail)
{
	struct buf mark = BUF_INIT;
	int fd;

	if (!c->identified)
		return; /* not a ledger: leave nothing beside someone's file */
	buf_addf(&mark, "%s" LITE_DAMAGE_MARK_SUFFIX, c->path);
	fd = open(mark.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0644);
	if (fd >= 0) {
		buf_reset(&mark);
		buf_addf(&mark, "%s\n", detail);
		(void)!write(fd, mark.buf, mark.len);
		close(fd);
	}
	buf_release(&mark);
}

int
lite_error(void *conn, const char *path, int rc, const char *what,
    struct err *err)
{
	struct lite_conn *c = conn;
	const char *detail = c && c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc);

	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return err_set(err, ERR_BUSY,
		    "ledger busy while %s (%s; retry, or raise DAICHO_BUSY_TIMEOUT)",
		    what, detail);
	case SQLITE_READONLY:
		if (c)
			c->write_refused = true;
		return err_set(err, ERR_FAILED,
		    "cannot write the ledger while %s (%s is read-only; fix its "
		    "permissions or use a writable --ledger)", what, path);
	case SQLITE_NOTADB:
		if (c && c->identified)
			break; /* a ledger, read a moment ago: damaged */
		return err_set(err, ERR_FAILED,
		    "%s is not a daicho ledger (not a SQLite database; point "
		    "--ledger at a ledger, or move the file away and run "
		    "'daicho init'; if it was your ledger, it is damaged: "
		    "restore it from a backup)", path);
	case SQLITE_CORRUPT:
		break;
	case SQLITE_FULL:
		return err_set(err, ERR_FAILED,
		    "disk full while %s (%s; free space and retry)", what, path);
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
	case SQLITE_AUTH:
	case SQLITE_IOERR:
		return err_set(err, ERR_FAILED, "cannot use the ledger %s while %s (%s)",
		    path, what, detail);
	default:
		return err_set(err, ERR_FAILED, "ledger error while %s (%s)", what,
		    detail);
	}
	/* SQLITE_CORRUPT, or SQLITE_NOTADB from a ledger. */
	if (c)
		lite_mark_damaged(c, detail);
	return lite_damage_error(path, detail, err);
}

/* The connection: errors, the write lock, the WAL. */

static const char *
lite_errmsg(void *conn)
{
	return sqlite3_errmsg(((struct lite_conn *)conn)->db);
}

/* SQLite tells which constraint by the extended result code. */
static enum db_constraint
lite_constraint_kind(void *conn, int rc)
{
	(void)conn;
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

/* A file has no connection to lose. */
static bool
lite_connection_lost(void *conn)
{
	(void)conn;
	return false;
}

static bool
lite_read_only(void *conn)
{
	struct lite_conn *c = conn;

	return c->write_refused || sqlite3_db_readonly(c->db, "main") == 1;
}

static int
lite_exec(void *conn, const char *sql)
{
	return sqlite3_exec(((struct lite_conn *)conn)->db, sql, NULL, NULL, NULL);
}

/*
 * Take the write lock, waiting at most the busy timeout. Returns 0 or a
 * negative err code with err filled.
 */
static int
lite_take_lock(struct lite_conn *c, struct err *err)
{
	int rc;

	if (c->lock == NULL || c->locked)
		return 0;
	rc = filelock_acquire(c->lock, c->busy_timeout_ms);
	if (rc == 1)
		return err_set(err, ERR_BUSY,
		    "ledger busy (waited %lldms for the write lock; retry, or raise "
		    "DAICHO_BUSY_TIMEOUT)", (long long)c->busy_timeout_ms);
	if (rc < 0)
		return err_set(err, ERR_FAILED, "cannot take the ledger's write lock "
		    "(%s)", strerror(errno));
	c->locked = true;
	c->locked_us = clock_mono_us();
	c->released_us = 0;
	return 0;
}

static void
lite_drop_lock(struct lite_conn *c)
{
	if (c->locked) {
		filelock_release(c->lock);
		c->locked = false;
		c->released_us = clock_mono_us();
	}
}

bool
lite_wal_is_long(const struct lite_conn *c)
{
	struct buf wal = BUF_INIT;
	struct stat st;
	bool is_long;

	buf_addf(&wal, "%s-wal", c->path);
	is_long = stat(wal.buf, &st) == 0 && st.st_size > LITE_TRUNCATE_BYTES;
	buf_release(&wal);
	return is_long;
}

/*
 * Quiet: nobody holds the write lock (it is taken without waiting) and no
 * reader still needs the WAL (the checkpoint does not wait for readers
 * either). The connection's busy timeout is kept.
 */
bool
lite_truncate_wal(struct lite_conn *c)
{
	int rc;

	if (c->lock == NULL || c->in_transaction || filelock_try(c->lock) != 0)
		return false;
	sqlite3_busy_timeout(c->db, 0);
	rc = sqlite3_wal_checkpoint_v2(c->db, NULL, SQLITE_CHECKPOINT_TRUNCATE,
	    NULL, NULL);
	sqlite3_busy_timeout(c->db, (int)c->busy_timeout_ms);
	filelock_release(c->lock);
	return rc == SQLITE_OK;
}

static void
lite_lock_times(void *conn, int64_t *taken_us, int64_t *released_us)
{
	struct lite_conn *c = conn;

	*taken_us = c->locked_us;
	*released_us = c->released_us;
}

void
lite_close(void *conn)
{
	struct lite_conn *c = conn;

	if (c == NULL)
		return;
	if (c->in_transaction && c->db && !sqlite3_get_autocommit(c->db))
		sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
	c->in_transaction = false;
	lite_drop_lock(c);
	if (c->db && c->identified && lite_wal_is_long(c))
		lite_truncate_wal(c);
	for (int i = 0; i < LITE_VERBS; i++)
		sqlite3_finalize(c->verbs[i]);
	sqlite3_close(c->db);
	filelock_close(c->lock);
	free(c->path);
	free(c);
}

sqlite3 *
sqlite_handle(void *conn)
{
	return ((struct lite_conn *)conn)->db;
}

/* Transactions. */

/*
 * Run verb, one of the statements every transaction runs, prepared on
 * first use and kept: a runner nests several of these in every
 * transaction, and sqlite3_exec() would parse each anew. Returns SQLite's
 * result (SQLITE_OK when done).
 */
static int
run_verb(struct lite_conn *c, enum lite_verb verb)
{
	static const char *const sql[LITE_VERBS] = {
		[LITE_BEGIN_WRITE] = "BEGIN IMMEDIATE",
		[LITE_COMMIT] = "COMMIT",
		[LITE_SAVEPOINT] = "SAVEPOINT nested",
		[LITE_RELEASE] = "RELEASE nested",
		[LITE_ROLLBACK_TO] = "ROLLBACK TO nested",
	};
	int rc;

	if (c->verbs[verb] == NULL &&
	    sqlite3_prepare_v3(c->db, sql[verb], -1, SQLITE_PREPARE_PERSISTENT,
	    &c->verbs[verb], NULL) != SQLITE_OK)
		return sqlite3_exec(c->db, sql[verb], NULL, NULL, NULL);
	rc = sqlite3_step(c->verbs[verb]);
	sqlite3_reset(c->verbs[verb]);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int
lite_begin_write(void *conn, struct err *err)
{
	struct lite_conn *c = conn;
	int rc;

	if (sqlite3_db_readonly(c->db, "main") == 1)
		return err_set(err, ERR_FAILED, "cannot change the ledger (%s is "
		    "read-only for this user: the file, its -wal or -shm, or its "
		    "directory; fix the permissions or use a writable --ledger)",
		    c->path);
	if ((rc = lite_take_lock(c, err)) < 0)
		return rc;
	if ((rc = run_verb(c, LITE_BEGIN_WRITE)) != SQLITE_OK) {
		lite_drop_lock(c);
		return lite_error(c, c->path, rc, "starting a transaction", err);
	}
	c->in_transaction = true;
	return 0;
}

static int
lite_begin_read(void *conn)
{
	struct lite_conn *c = conn;
	int rc = sqlite3_exec(c->db, "BEGIN", NULL, NULL, NULL);

	c->in_transaction = rc == SQLITE_OK;
	return rc;
}

/*
 * COMMIT, then, outside the write lock so that writers never wait for
 * it, a passive checkpoint (it copies only what no reader still needs)
 * once the WAL is long.
 */
int
lite_commit(void *conn, bool wrote)
{
	struct lite_conn *c = conn;
	int rc = run_verb(c, LITE_COMMIT);

	(void)wrote;
	if (rc != SQLITE_OK)
		return rc;
	c->in_transaction = false;
	lite_drop_lock(c);
	if (c->wal_pages >= LITE_CHECKPOINT_PAGES) {
		if (!lite_truncate_wal(c))
			sqlite3_wal_checkpoint_v2(c->db, NULL,
			    SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		c->wal_pages = 0;
	}
	return 0;
}

void
lite_rollback(void *conn)
{
	struct lite_conn *c = conn;

	if (c->in_transaction && !sqlite3_get_autocommit(c->db))
		sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
	c->in_transaction = false;
	lite_drop_lock(c);
}

/*
 * Some errors (a full disk, I/O, out of memory, an interrupt) make SQLite
 * roll back the whole transaction, savepoints and all.
 */
static bool
lite_aborted(void *conn)
{
	struct lite_conn *c = conn;

	return c->in_transaction && sqlite3_get_autocommit(c->db);
}

static int
lite_savepoint(void *conn)
{
	return run_verb(conn, LITE_SAVEPOINT);
}

static int
lite_release(void *conn)
{
	return run_verb(conn, LITE_RELEASE);
}

static int
lite_rollback_to(void *conn)
{
	return run_verb(conn, LITE_ROLLBACK_TO);
}

/* Statements: SQLite's calls, the handle being the sqlite3_stmt. */

static int
lite_prepare(void *conn, const char *sql, bool persistent, void **stmt)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v3(((struct lite_conn *)conn)->db, sql, -1,
	    persistent ? SQLITE_PREPARE_PERSISTENT : 0, &st, NULL);

	if (rc != SQLITE_OK) {
		sqlite3_finalize(st);
		st = NULL;
	}
	*stmt = st;
	return rc;
}

static void
lite_finalize(void *stmt)
{
	sqlite3_finalize(stmt);
}

static void
lite_reset(void *stmt)
{
	sqlite3_reset(stmt);
}

static void
lite_clear_bindings(void *stmt)
{
	sqlite3_clear_bindings(stmt);
}

static void
lite_bind_int(void *stmt, int n, int64_t value)
{
	sqlite3_bind_int64(stmt, n, value);
}

static void
lite_bind_double(void *stmt, int n, double value)
{
	sqlite3_bind_double(stmt, n, value);
}

static void
lite_bind_null(void *stmt, int n)
{
	sqlite3_bind_null(stmt, n);
}

/*
 * A blob of no bytes must not be bound from a NULL pointer: SQLite would
 * bind NULL instead.
 */
static void
lite_bind_bytes(void *stmt, int n, const void *data, size_t len,
    enum db_bytes as, bool copy)
{
	sqlite3_destructor_type keep = copy ? SQLITE_TRANSIENT : SQLITE_STATIC;

	if (as == DB_BYTES_TEXT)
		sqlite3_bind_text64(stmt, n, data, len, keep, SQLITE_UTF8);
	else
		sqlite3_bind_blob64(stmt, n, data ? data : "", len, keep);
}

static int
lite_bind_count(void *stmt)
{
	return sqlite3_bind_parameter_count(stmt);
}

static int
lite_step(void *stmt)
{
	return sqlite3_step(stmt);
}

static bool
lite_writes(void *stmt)
{
	return !sqlite3_stmt_readonly(stmt);
}

static int
lite_column_count(void *stmt)
{
	return sqlite3_column_count(stmt);
}

static const char *
lite_column_name(void *stmt, int i)
{
	return sqlite3_column_name(stmt, i);
}

static const char *
lite_column_decltype(void *stmt, int i)
{
	return sqlite3_column_decltype(stmt, i);
}

static enum db_type
lite_column_type(void *stmt, int i)
{
	switch (sqlite3_column_type(stmt, i)) {
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

static int64_t
lite_column_int(void *stmt, int i)
{
	return sqlite3_column_int64(stmt, i);
}

static double
lite_column_double(void *stmt, int i)
{
	return sqlite3_column_double(stmt, i);
}

static const char *
lite_column_text(void *stmt, int i)
{
	return (const char *)sqlite3_column_text(stmt, i);
}

static const void *
lite_column_blob(void *stmt, int i)
{
	return sqlite3_column_blob(stmt, i);
}

static size_t
lite_column_bytes(void *stmt, int i)
{
	return (size_t)sqlite3_column_bytes(stmt, i);
}

static int64_t
lite_changes(void *conn)
{
	return sqlite3_changes(((struct lite_conn *)conn)->db);
}

static int64_t
lite_last_insert_id(void *conn)
{
	return sqlite3_last_insert_rowid(((struct lite_conn *)conn)->db);
}

const char *
store_sqlite_version(void)
{
	return sqlite3_libversion();
}

const struct db_driver store_sqlite_driver = {
	.name = "SQLite",
	.shared = false,
	.eager_savepoints = false,
	.schema_version_sql = "PRAGMA user_version",
	.open = lite_open,
	.close = lite_close,
	.check_integrity = lite_check_integrity,
	.error = lite_error,
	.errmsg = lite_errmsg,
	.constraint_kind = lite_constraint_kind,
	.connection_lost = lite_connection_lost,
	.read_only = lite_read_only,
	.exec = lite_exec,
	.begin_write = lite_begin_write,
	.begin_read = lite_begin_read,
	.commit = lite_commit,
	.rollback = lite_rollback,
	.aborted = lite_aborted,
	.savepoint = lite_savepoint,
	.release = lite_release,
	.rollback_to = lite_rollback_to,
	.lock_times = lite_lock_times,
	.prepare = lite_prepare,
	.finalize = lite_finalize,
	.reset = lite_reset,
	.clear_bindings = lite_clear_bindings,
	.bind_int = lite_bind_int,
	.bind_double = lite_bind_double,
	.bind_null = lite_bind_null,
	.bind_bytes = lite_bind_bytes,
	.bind_count = lite_bind_count,
	.step = lite_step,
	.writes = lite_writes,
	.column_count = lite_column_count,
	.column_name = lite_column_name,
	.column_decltype = lite_column_decltype,
	.column_type = lite_column_type,
	.column_int = lite_column_int,
	.column_double = lite_column_double,
	.column_text = lite_column_text,
	.column_blob = lite_column_blob,
	.column_bytes = lite_column_bytes,
	.changes = lite_changes,
	.last_insert_id = lite_last_insert_id,
};
