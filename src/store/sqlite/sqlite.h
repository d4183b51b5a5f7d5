/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The SQLite driver's own parts, shared by its files: a connection (one
 * ledger file in WAL mode, with its write lock "<ledger>-lock"), opening
 * it (open.c: finding damage, refusing links and foreign files,
 * migrating), and running it (driver.c: statements, transactions, errors).
 * Nothing outside store/sqlite/ includes this but the unit tests, which
 * read the ledger through sqlite_handle().
 */
#ifndef DAICHO_STORE_SQLITE_H
#define DAICHO_STORE_SQLITE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "store/driver.h"

struct filelock;

/*
 * Checkpointing. Most daicho processes live for one command, and the first
 * process to open the ledger after all others closed it rebuilds the WAL
 * index by reading the whole WAL file (and forgets what was checkpointed):
 * a long WAL makes every later command slow (a 1M-task batch left 128 MB,
 * and 174 ms per claim). So whoever finds the WAL file longer than
 * LITE_TRUNCATE_BYTES, by its size on disk, truncates it when the ledger
 * is quiet: a process on close, a process on open (a WAL left long by a
 * process killed or busy at close), and a long-lived writer after a commit
 * that left LITE_CHECKPOINT_PAGES in the WAL; when the ledger is busy, a
 * passive checkpoint instead keeps the WAL from growing.
 */
#define LITE_TRUNCATE_BYTES (512 << 10)
#define LITE_CHECKPOINT_PAGES 1000

/* The statements every transaction runs, prepared once (driver.c). */
enum lite_verb {
	LITE_BEGIN_WRITE,
	LITE_COMMIT,
	LITE_SAVEPOINT,
	LITE_RELEASE,
	LITE_ROLLBACK_TO,
	LITE_VERBS
};

struct lite_conn {
	sqlite3 *db;
	char *path;
	struct filelock *lock;        /* "<path>-lock", or NULL (read-only) */
	bool locked;                  /* we hold the write lock */
	bool in_transaction;
	bool identified;              /* the file is known to be a ledger */
	bool write_refused;           /* a write failed: SQLITE_READONLY */
	int64_t busy_timeout_ms;
	int wal_pages;                /* WAL size after our last commit */
	sqlite3_stmt *verbs[LITE_VERBS];
	int64_t locked_us, released_us; /* the last write lock's span */
};

/* open.c: the driver's open() and check_integrity(). */
int lite_open(const char *path, const struct db_open *how, void **out,
    bool *created, struct err *err);
int lite_check_integrity(const char *path, const struct db_open *how,
    struct strlist *problems, struct err *err);

/* driver.c, for open.c. */

/* The driver's error(), for a connection of this driver (or NULL). */
int lite_error(void *conn, const char *path, int rc, const char *what,
    struct err *err);
/* Close conn (NULL: nothing). */
void lite_close(void *conn);
/* The driver's begin_write(), commit() and rollback(). */
int lite_begin_write(void *conn, struct err *err);
int lite_commit(void *conn, bool wrote);
void lite_rollback(void *conn);
/* Whether the WAL file is longer than LITE_TRUNCATE_BYTES. */
bool lite_wal_is_long(const struct lite_conn *c);
/*
 * Checkpoint the whole WAL into the ledger and truncate it, when the
 * ledger is quiet. Returns whether it was truncated.
 */
bool lite_truncate_wal(struct lite_conn *c);
/* Leave the damage mark beside the ledger, saying detail (once). */
void lite_mark_damaged(const struct lite_conn *c, const char *detail);
/* The error for the damaged ledger at path, SQLite having said detail. */
int lite_damage_error(const char *path, const char *detail, struct err *err);

/* The name of the damage mark's file: "<ledger>" DAMAGE_MARK_SUFFIX. */
#define LITE_DAMAGE_MARK_SUFFIX "-damaged"

/* For the unit tests: the connection under a ledger's (ledger_conn()). */
sqlite3 *sqlite_handle(void *conn);

#endif
