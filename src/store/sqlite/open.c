/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Opening a SQLite ledger (store/sqlite/sqlite.h): refusing what is not
 * one (a link, another application's database, a file marked damaged),
 * reading it where the caller may not write, migrating its schema, and
 * doctor's integrity check.
 */
#include "store/sqlite/sqlite.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/sqlite/schema.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/filelock.h"
#include "util/path.h"
#include "util/sha256.h"
#include "util/strlist.h"

/* Refuse the ledger at path while it carries the damage mark. */
static int
refuse_marked_damaged(const char *path, struct err *err)
{
	struct buf mark = BUF_INIT, detail = BUF_INIT;
	int rc = 0;

	buf_addf(&mark, "%s" LITE_DAMAGE_MARK_SUFFIX, path);
	if (buf_read_file(&detail, mark.buf) == 0) {
		detail.len = strcspn(detail.buf, "\n");
		detail.buf[detail.len] = '\0';
		rc = lite_damage_error(path, detail.len ? detail.buf :
		    "a command found it damaged", err);
	}
	buf_release(&mark);
	buf_release(&detail);
	return rc;
}

/* The error for a symbolic link at file, one of the ledger's files. */
static int
symlink_error(const char *file, struct err *err)
{
	return err_set(err, ERR_FAILED,
	    "%s is a symbolic link (daicho follows no link for the ledger's "
	    "files; remove it, or point --ledger at the real ledger)", file);
}

/*
 * Refuse a symbolic link where daicho or SQLite keeps a file of the ledger
 * at path: the ledger itself, its -wal, -shm and -journal, and the -lock.
 * Writing through one would let anyone who can write the directory aim
 * daicho's writes at any file the caller may write. The opens refuse links
 * too (SQLITE_OPEN_NOFOLLOW, O_NOFOLLOW), also when one appears after this
 * check; this is what names the link.
 */
static int
refuse_symlinks(const char *path, struct err *err)
{
	static const char *const suffixes[] = { "", "-wal", "-shm", "-journal",
		"-lock", LITE_DAMAGE_MARK_SUFFIX };
	struct buf file = BUF_INIT;
	struct stat st;
	int rc = 0;

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		buf_reset(&file);
		buf_addf(&file, "%s%s", path, suffixes[i]);
		if (lstat(file.buf, &st) == 0 && S_ISLNK(st.st_mode)) {
			rc = symlink_error(file.buf, err);
			break;
		}
	}
	buf_release(&file);
	return rc;
}

/*
 * Configure SQLite for this process, once, before its first use: daicho
 * never shares a connection or SQLite itself between threads, so the
 * library's mutexes are dead weight, and so is its memory accounting (a
 * mutex and counters on every allocation). Without a page-cache pool
 * (NULL, 0 lines), each page cache allocates its pages one by one as it
 * needs them, instead of first taking and touching room for 20: every
 * cache gets that bulk, including the throwaway one behind each IN list
 * or two-pass UPDATE. A claim on a 1M-task ledger took 172 page faults
 * with the bulk and 149 without, each about 10 us on the machines we
 * measure on. Fails harmlessly (SQLITE_MISUSE) when something already
 * used SQLite in this process; then the defaults stay.
 */
static void
configure_sqlite(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
}

/*
 * SQL daicho_sha256(TEXT): its SHA-256 in hex, NULL for NULL. The event
 * log's hash chain (core/event.c) is written and checked in SQL, the same
 * on PostgreSQL, where the migration defines the function.
 */
static void
sql_sha256(sqlite3_context *context, int argc, sqlite3_value **argv)
{
	char hex[SHA256_HEX_BYTES];
	const unsigned char *text;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return; /* the result stays NULL */
	text = sqlite3_value_text(argv[0]);
	sha256_hex(text, (size_t)sqlite3_value_bytes(argv[0]), hex);
	sqlite3_result_text(context, hex, -1, SQLITE_TRANSIENT);
}

/* SQLite's WAL hook: remember how big the WAL got (driver.c's commit). */
static int
note_wal_size(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct lite_conn *c = arg;

	(void)db;
	(void)name;
	c->wal_pages = pages;
	return SQLITE_OK;
}

/*
 * Open the connection to name (a path, or a URI with SQLITE_OPEN_URI) with
 * flags, and configure it.
 */
static int
open_connection(struct lite_conn *c, const char *name, int flags,
    struct err *err)
{
	int rc = sqlite3_open_v2(name, &c->db, flags, NULL);

	if (rc != SQLITE_OK)
		return lite_error(c, c->path, rc, "opening it", err);
	sqlite3_extended_result_codes(c->db, 1);
	/*
	 * Most daicho processes live for one command. Closing the last
	 * connection would checkpoint and delete the WAL, with fsyncs, on
	 * every command; lite_truncate_wal() does it only when worth it.
	 */
	sqlite3_db_config(c->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	/* PRAGMA foreign_keys = ON, without preparing a statement. */
	sqlite3_db_config(c->db, SQLITE_DBCONFIG_ENABLE_FKEY, 1, NULL);
	/* Replaces automatic checkpoints, which would run inside the lock. */
	sqlite3_wal_hook(c->db, note_wal_size, c);
	sqlite3_busy_timeout(c->db, (int)c->busy_timeout_ms);
	sqlite3_create_function_v2(c->db, "daicho_sha256", 1,
	    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_sha256, NULL, NULL,
	    NULL);
	return 0;
}

/*
 * Run sql, a query of one integer (a pragma), into *value (0 when it has
 * no row). Returns 0 or the mapped error.
 */
static int
query_int(struct lite_conn *c, const char *sql, int64_t *value,
    struct err *err)
{
	sqlite3_stmt *stmt = NULL;
	int rc = sqlite3_prepare_v2(c->db, sql, -1, &stmt, NULL);

	*value = 0;
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(stmt);
		if (rc == SQLITE_ROW) {
			*value = sqlite3_column_int64(stmt, 0);
			rc = SQLITE_OK;
		} else if (rc == SQLITE_DONE) {
			rc = SQLITE_OK;
		}
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_OK)
		return lite_error(c, c->path, rc, "reading the ledger", err);
	return 0;
}

/*
 * Refuse a file that is not a daicho ledger before anything touches it:
 * another application's database, or one with tables of its own. An empty
 * database is a ledger to be only when creating. Fills *version.
 */
static int
identify(struct lite_conn *c, bool create, int64_t *version, struct err *err)
{
	int64_t app_id = 0, tables = 0;
	int rc;

	if ((rc = query_int(c, "PRAGMA user_version", version, err)) < 0 ||
	    (rc = query_int(c, "PRAGMA application_id", &app_id, err)) < 0)
		return rc;
	if (app_id != 0 && app_id != SCHEMA_APPLICATION_ID)
		return err_set(err, ERR_FAILED,
		    "%s is not a daicho ledger (it is another application's SQLite "
		    "database; point --ledger elsewhere)", c->path);
	if (*version > (int64_t)schema_migration_count)
		return err_set(err, ERR_FAILED,
		    "ledger %s has schema version %lld, newer than this daicho "
		    "understands (%zu; upgrade daicho)", c->path,
		    (long long)*version, schema_migration_count);
	if (*version > 0)
		return 0;
	if ((rc = query_int(c, "SELECT count(*) FROM sqlite_schema", &tables,
	    err)) < 0)
		return rc;
	if (tables > 0)
		return err_set(err, ERR_FAILED,
		    "%s is not a daicho ledger (a SQLite database with other "
		    "tables; point --ledger elsewhere)", c->path);
	if (!create)
		return err_set(err, ERR_FAILED,
		    "%s is an empty file, not a ledger yet (run 'daicho init' to "
		    "make it one)", c->path);
	return 0;
}

/* Run sql (statements without parameters) on c. 0 or the mapped error. */
static int
exec_mapped(struct lite_conn *c, const char *sql, struct err *err)
{
	int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		return lite_error(c, c->path, rc, "updating the ledger", err);
	return 0;
}

/* migrate()'s write transaction. */
static int
migrate_locked(struct lite_conn *c, struct err *err)
{
	struct buf sql = BUF_INIT;
	int64_t version = 0;
	int rc;

	if ((rc = lite_begin_write(c, err)) < 0)
		return rc;
	/* Re-read under the lock: another process may have migrated. */
	if ((rc = query_int(c, "PRAGMA user_version", &version, err)) < 0)
		goto fail;
	for (int64_t v = version; v < (int64_t)schema_migration_count; v++)
		if ((rc = exec_mapped(c, schema_migrations[v], err)) < 0)
			goto fail;
	buf_addf(&sql, "PRAGMA user_version = %zu; PRAGMA application_id = %d",
	    schema_migration_count, SCHEMA_APPLICATION_ID);
	rc = exec_mapped(c, sql.buf, err);
	buf_release(&sql);
	if (rc < 0)
		goto fail;
	if ((rc = lite_commit(c, true)) != SQLITE_OK) {
		rc = lite_error(c, c->path, rc, "committing", err);
		goto fail;
	}
	return 0;
fail:
	lite_rollback(c);
	return rc;
}

/*
 * Apply the migrations the ledger has not seen, in one write transaction,
 * with foreign keys off (a migration may rebuild a table
 * that others refer to: SQLite's procedure for that needs them off, and
 * the pragma is a no-op inside a transaction). They are on again when
 * this returns, whatever the outcome.
 */
static int
migrate(struct lite_conn *c, int64_t version, struct err *err)
{
	int rc;

	if (version >= (int64_t)schema_migration_count)
		return 0;
	sqlite3_db_config(c->db, SQLITE_DBCONFIG_ENABLE_FKEY, 0, NULL);
	rc = migrate_locked(c, err);
	sqlite3_db_config(c->db, SQLITE_DBCONFIG_ENABLE_FKEY, 1, NULL);
	return rc;
}

/*
 * Reopen the ledger at path read-only as an immutable file: SQLite then
 * needs neither a -shm nor locks, which a caller who can only read the
 * directory cannot make. Reads see the file as it is; a writer that
 * starts meanwhile writes to a new WAL, which this connection does not see
 * (its commits show from the next command on).
 */
static int
reopen_immutable(struct lite_conn *c, const char *path, struct err *err)
{
	struct buf uri = BUF_INIT;
	int rc;

	sqlite3_close(c->db);
	c->db = NULL;
	buf_adds(&uri, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p))
			buf_addch(&uri, (char)*p);
		else
			buf_addf(&uri, "%%%02X", *p);
	}
	buf_adds(&uri, "?immutable=1");
	rc = open_connection(c, uri.buf, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
	    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, err);
	buf_release(&uri);
	return rc;
}

/*
 * After the first read of the ledger failed with rc (err filled): when
 * that is only because SQLite cannot make the WAL's index (<ledger>-shm)
 * for a caller who may not write beside the ledger, and no WAL exists, the
 * ledger file alone holds every commit: reopen it with reopen_immutable()
 * and return 0. A WAL without an index that SQLite can use cannot be read
 * (the file alone would be out of date): say so. Else return rc as it is.
 */
static int
read_only_fallback(struct lite_conn *c, const char *open_path, int rc,
    struct err *err)
{
	int code = sqlite3_extended_errcode(c->db);
	struct buf wal = BUF_INIT;
	struct stat st;
	bool has_wal;

	if (code != SQLITE_READONLY_DIRECTORY && code != SQLITE_READONLY_CANTINIT &&
	    code != SQLITE_CANTOPEN)
		return rc;
	buf_addf(&wal, "%s-wal", c->path);
	has_wal = lstat(wal.buf, &st) == 0;
	buf_release(&wal);
	if (has_wal && code == SQLITE_CANTOPEN)
		return err_set(err, ERR_FAILED, "cannot read the ledger at %s (its "
		    "-wal holds changes, and this user can neither open nor create "
		    "its -shm; have the ledger's owner run any daicho command on it, "
		    "or make its directory writable)", c->path);
	if (has_wal || code == SQLITE_CANTOPEN)
		return rc;
	err_release(err);
	*err = (struct err)ERR_INIT;
	return reopen_immutable(c, open_path, err);
}

/*
 * The ledger's write lock, "<path>-lock": only for a ledger (a refused
 * file gets no lock file beside it), and none in a read-only place, where
 * writes fail anyway. A link there is refused.
 */
static int
open_lock(struct lite_conn *c, struct err *err)
{
	struct buf lock_path = BUF_INIT;
	int rc = 0;

	buf_addf(&lock_path, "%s-lock", c->path);
	if (filelock_open(lock_path.buf, &c->lock) < 0) {
		c->lock = NULL;
		if (errno == ELOOP)
			rc = symlink_error(lock_path.buf, err);
	}
	buf_release(&lock_path);
	return rc;
}

/*
 * Open path (creating it when create is set) and configure the connection.
 * A ledger marked damaged is refused unless despite_damage is set.
 */
static int
connect(const char *path, const struct db_open *how, struct lite_conn **out,
    struct err *err)
{
	struct lite_conn *c = xcalloc(1, sizeof(*c));
	struct buf open_path = BUF_INIT;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
		    SQLITE_OPEN_NOFOLLOW | (how->create ? SQLITE_OPEN_CREATE : 0);
	int64_t version = 0;
	int rc;

	configure_sqlite();
	c->path = xstrdup(path);
	c->busy_timeout_ms = how->busy_timeout_ms;
	if (!how->despite_damage && (rc = refuse_marked_damaged(path, err)) < 0)
		goto fail;
	/*
	 * SQLITE_OPEN_NOFOLLOW refuses a link anywhere in the path: give it
	 * the directory resolved, so that only a link at the ledger itself
	 * is refused (SQLite resolved the directory this way before too).
	 */
	if (path_add_resolved_dir(&open_path, path) < 0) {
		buf_reset(&open_path);
		buf_adds(&open_path, path);
	}
	if ((rc = open_connection(c, open_path.buf, flags, err)) < 0)
		goto fail;
	rc = identify(c, how->create, &version, err);
	if (rc < 0 && !how->create &&
	    (rc = read_only_fallback(c, open_path.buf, rc, err)) == 0)
		rc = identify(c, how->create, &version, err);
	if (rc < 0)
		goto fail;
	c->identified = true;
	if ((rc = open_lock(c, err)) < 0)
		goto fail;
	/*
	 * WAL for concurrent readers (persistent: set once, when the ledger is
	 * made); NORMAL sync is durable across process crashes (a power loss
	 * may lose the last commits, never corrupt).
	 */
	rc = sqlite3_exec(c->db, version == 0 ?
	    "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;" :
	    "PRAGMA synchronous = NORMAL;", NULL, NULL, NULL);
	if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_READONLY) {
		rc = lite_error(c, c->path, rc, "opening it", err);
		goto fail;
	}
	if ((rc = migrate(c, version, err)) < 0)
		goto fail;
	if (lite_wal_is_long(c))
		lite_truncate_wal(c);
	buf_release(&open_path);
	*out = c;
	return 0;
fail:
	buf_release(&open_path);
	lite_close(c);
	return rc;
}

int
lite_open(const char *path, const struct db_open *how, void **out,
    bool *created, struct err *err)
{
	struct lite_conn *c = NULL;
	struct stat st;
	int rc;

	*out = NULL;
	*created = false;
	if ((rc = refuse_symlinks(path, err)) < 0)
		return rc;
	if (how->create) {
		*created = !(stat(path, &st) == 0 && st.st_size > 0);
		if (access(path, F_OK) != 0 && path_make_parent_dirs(path, 0755) < 0)
			return err_set(err, ERR_FAILED, "cannot create the "
			    "directory for %s (%s)", path, strerror(errno));
	} else if (access(path, F_OK) != 0) {
		return err_set(err, ERR_FAILED,
		    "no ledger at %s (run 'daicho init' to create one, or point "
		    "--ledger or DAICHO_LEDGER at an existing one)", path);
	}
	if ((rc = connect(path, how, &c, err)) < 0)
		return rc;
	*out = c;
	return 0;
}

/*
 * Append each line of text, a row of SQLite's integrity check, to
 * problems: not "ok", nor the "*** in database main ***" heading.
 */
static void
add_problem_lines(struct strlist *problems, const char *text)
{
	while (text && *text) {
		size_t len = strcspn(text, "\n");

		if (len > 0 && strncmp(text, "ok", len) != 0 &&
		    strncmp(text, "*** ", 4) != 0)
			strlist_add_owned(problems, xstrndup(text, len));
		text += len + (text[len] == '\n');
	}
}

/*
 * Run SQLite's integrity check on c, appending what it finds to problems.
 * Damage that stops the check itself is one more problem. Returns
 * SQLITE_DONE, or the failed call's code.
 */
static int
run_integrity_check(struct lite_conn *c, struct strlist *problems)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(c->db, "PRAGMA integrity_check(10)", -1, &st,
	    NULL);

	if (rc == SQLITE_OK) {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			add_problem_lines(problems,
			    (const char *)sqlite3_column_text(st, 0));
	}
	if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB) {
		strlist_add(problems, sqlite3_errmsg(c->db));
		rc = SQLITE_DONE;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? SQLITE_DONE : rc;
}

int
lite_check_integrity(const char *path, const struct db_open *how,
    struct strlist *problems, struct err *err)
{
	struct db_open despite = *how;
	struct lite_conn *c = NULL;
	int rc;

	despite.despite_damage = true;
	if ((rc = refuse_symlinks(path, err)) < 0)
		return rc;
	if (access(path, F_OK) != 0)
		return err_set(err, ERR_FAILED, "no ledger at %s (run 'daicho init')",
		    path);
	if ((rc = connect(path, &despite, &c, err)) < 0)
		return rc;
	rc = run_integrity_check(c, problems);
	if (rc != SQLITE_DONE) {
		rc = lite_error(c, c->path, rc, "checking the ledger", err);
	} else if (problems->count == 0) {
		struct buf mark = BUF_INIT;

		buf_addf(&mark, "%s" LITE_DAMAGE_MARK_SUFFIX, path);
		unlink(mark.buf);
		buf_release(&mark);
		rc = 0;
	} else {
		lite_mark_damaged(c, problems->items[0]);
		rc = 0;
	}
	lite_close(c);
	return rc;
}
