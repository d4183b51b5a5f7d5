/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The store's drivers: what an engine gives the ledger (core/ledger.h)
 * and the statement interface (core/db.h), as one table of functions, the
 * way SQLite's VFS is one. Core calls the engine only through a driver,
 * never by name; each driver lives in a folder of its own:
 *
 *   store/sqlite/  SQLite, in every program (store_sqlite_driver)
 *   store/pg/      PostgreSQL, over the pg_* calls of store/pg/pg.h,
 *                  which a program links from one of two places:
 *                  libpq (store/pg/libpq.c: daicho-pg, daicho-serve) or
 *                  the pool's client (store/pool/client.c: the static
 *                  daicho, whose statements a resident daicho-pg runs)
 *
 * Which PostgreSQL driver a program has is chosen when it is linked, not
 * at run time: store_postgresql_driver is defined by store/pg/driver.c,
 * or as NULL by store/none.c in a program without one (the unit tests; a
 * dashboard built without libpq).
 *
 * The layer. The store sits under core/ and over util/: a driver includes
 * util/, store/, and of core only the two headers every layer shares and
 * that include nothing of core: err.h (the error type) and version.h.
 *
 * Handles. A connection and a statement are the driver's own objects,
 * passed as void *: core keeps them and hands them back, never looks
 * inside. A statement is used only on the connection that prepared it.
 *
 * Results. A call that can fail returns 0 (DB_RC_OK) or one of the codes
 * below; a driver's finer codes (SQLite's extended codes) keep the primary
 * code in their low byte. step() returns DB_ROW, DB_DONE or such a code.
 * error() turns a code into daicho's error (struct err) with the driver's
 * words.
 *
 * Optional methods are NULL in a driver that has no such thing; their
 * comments say what core does then.
 */
#ifndef DAICHO_STORE_DRIVER_H
#define DAICHO_STORE_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "store/db_types.h"

struct strlist;

/* The schema this daicho writes: the number of SQLite migrations. */
#define STORE_SCHEMA_VERSION 14

/* What a failed call returns: SQLite's primary codes, for both engines. */
enum db_rc {
	DB_RC_OK = 0,
	DB_RC_ERROR = 1,       /* anything else */
	DB_RC_BUSY = 5,        /* a lock not had in time, a connection lost:
				* retry */
	DB_RC_FULL = 13,       /* the disk, or the statement cache */
	DB_RC_CONSTRAINT = 19, /* a constraint refused the row */
	DB_RC_MISMATCH = 20,   /* a value of the wrong type */
	DB_RC_DENIED = 23,     /* a privilege the caller lacks */
};

/* How a ledger is opened. */
struct db_open {
	bool create;           /* make the ledger (its schema) when missing */
	bool despite_damage;   /* open one marked damaged (doctor's check) */
	int64_t busy_timeout_ms; /* how long a lock is waited for */
};

/* What a statement binds: the bytes as text or as a blob. */
enum db_bytes { DB_BYTES_TEXT, DB_BYTES_BLOB };

struct db_driver {
	const char *name;      /* "SQLite", "PostgreSQL" */
	/*
	 * A server that many machines reach: the ledger's work is wherever a
	 * command runs (core/ledger.h, ledger_is_shared()), and changes are
	 * announced (wait_change) rather than seen in files.
	 */
	bool shared;
	/*
	 * A nested transaction takes its savepoint when it begins. Else it
	 * takes it before its first write (a level that only reads costs
	 * none), and an all-or-nothing transaction takes none.
	 */
	bool eager_savepoints;
	/* SQL that reads the schema's version as one integer. */
	const char *schema_version_sql;
	/*
	 * On a ledger with logins of its own, the questions core asks about
	 * them, each SQL that reads 1 or 0; NULL where the engine has none
	 * (a file's reader is whoever may open it). login_is_person: the
	 * session's login is a person's or the owner's, not an agent's.
	 * owner_may_free: the schema's owner may end other sessions and see
	 * their activity. public_may_temp: every login may make temporary
	 * tables (docs/security.md, 'The PostgreSQL boundary').
	 */
	const char *login_is_person_sql;
	const char *owner_may_free_sql;
	const char *public_may_temp_sql;

	/* Connections. */

	/*
	 * Connect to the ledger at address as how says; *created says
	 * whether this made it. Returns 0 or a negative err code, with err
	 * filled (the driver's words; an address is not repeated when it may
	 * hold a password).
	 */
	int (*open)(const char *address, const struct db_open *how, void **conn,
	    bool *created, struct err *err);
	/* Close conn, rolling back what is open (NULL: nothing). */
	void (*close)(void *conn);
	/*
	 * Optional. In a forked child: let go of conn without a word on it,
	 * so that the parent's copy goes on (NULL: nothing to do).
	 */
	void (*leave_to_parent)(void *conn);
	/*
	 * Optional. Whether statements travel through a pool that may not
	 * be there (the pool's client), so that a command the pool cannot
	 * serve is handed to a program that connects itself (main.c).
	 * NULL: the driver connects itself.
	 */
	bool (*pooled)(void);
	/*
	 * Optional, with pooled: start a session with the pool for address:
	 * true when one answered (the next open takes it), else false.
	 */
	bool (*attach)(const char *address);
	/*
	 * Optional. fn is called when the connection is lost before the
	 * command's first write was answered: nothing of it was written, and
	 * fn may run the command anew elsewhere (main.c). NULL: not offered.
	 */
	void (*on_lost_early)(void (*fn)(void));
	/*
	 * Optional. Check the ledger at address, appending each problem
	 * found to problems. NULL: being able to open it is the check.
	 */
	int (*check_integrity)(const char *address, const struct db_open *how,
	    struct strlist *problems, struct err *err);
	/*
	 * The error for rc, a failed call's code on conn (which may be
	 * NULL: the ledger could not be opened), about what, on the ledger
	 * at address. Returns the negative err code.
	 */
	int (*error)(void *conn, const char *address, int rc, const char *what,
	    struct err *err);
	/* The engine's own words about the last failure on conn. */
	const char *(*errmsg)(void *conn);
	/* Which constraint refused the last failed call, rc. */
	enum db_constraint (*constraint_kind)(void *conn, int rc);
	/* Whether the last failure on conn was its connection's. */
	bool (*connection_lost)(void *conn);
	/* Whether this caller may not write the ledger. */
	bool (*read_only)(void *conn);
	/* Run sql, statements without parameters. 0 or a code. */
	int (*exec)(void *conn, const char *sql);

	/* Transactions (core/ledger.c nests them). */

	/*
	 * Start the outermost write transaction, holding the ledger's write
	 * lock for it, or promising it with the next statement. Returns 0,
	 * or a negative err code with err filled.
	 */
	int (*begin_write)(void *conn, struct err *err);
	/* Start the outermost read transaction: one snapshot. 0 or a code. */
	int (*begin_read)(void *conn);
	/*
	 * Commit the outermost transaction (wrote: a write one). 0, or a
	 * code, and then the caller rolls back.
	 */
	int (*commit)(void *conn, bool wrote);
	/* End the outermost transaction without its changes. */
	void (*rollback)(void *conn);
	/*
	 * Whether the engine ended (or failed) the open transaction on its
	 * own: it can only be rolled back.
	 */
	bool (*aborted)(void *conn);
	/* A nested level: take, release, or roll back to its savepoint. */
	int (*savepoint)(void *conn);
	int (*release)(void *conn);
	int (*rollback_to)(void *conn);
	/*
	 * For $DAICHO_TRACE_LOCK: when the open (or last) write transaction
	 * got its lock, and let it go (clock_mono_us(); 0: not yet).
	 */
	void (*lock_times)(void *conn, int64_t *taken_us, int64_t *released_us);

	/* Optional: changes made by other processes (a shared ledger). */

	/*
	 * Wait at most timeout_ms for another process to commit a change:
	 * 1 when one did, 0 on timeout, or a code.
	 */
	int (*wait_change)(void *conn, int64_t timeout_ms);
	/* The descriptor to poll for changes, or -1 (see wait_change). */
	int (*change_fd)(void *conn);
	/* Optional. After an import kept its rows' ids: number past them. */
	int (*after_import)(void *conn);

	/* Statements (core/db.h says what each does). */

	/*
	 * Prepare sql on conn; persistent: it will be kept and run many
	 * times. 0 or a code.
	 */
	int (*prepare)(void *conn, const char *sql, bool persistent, void **stmt);
	void (*finalize)(void *stmt);
	/* Reset stmt to run again; its bindings stay. */
	void (*reset)(void *stmt);
	void (*clear_bindings)(void *stmt);
	void (*bind_int)(void *stmt, int n, int64_t value);
	void (*bind_double)(void *stmt, int n, double value);
	void (*bind_null)(void *stmt, int n);
	/* Bind len bytes at data; copied when copy, else kept until reset. */
	void (*bind_bytes)(void *stmt, int n, const void *data, size_t len,
	    enum db_bytes as, bool copy);
	int (*bind_count)(void *stmt);
	int (*step)(void *stmt);
	/*
	 * Optional: whether stepping stmt may write: the open nested levels
	 * then take their savepoints first (ledger_tx.c). NULL (a driver with
	 * eager_savepoints): never asked.
	 */
	bool (*writes)(void *stmt);
	/* Optional: db_step_later(); NULL: run now, as db_step_done(). */
	int (*step_later)(void *stmt);
	/* Optional: db_step_ahead(); NULL: never ahead. */
	bool (*step_ahead)(void *stmt);
	int (*column_count)(void *stmt);
	const char *(*column_name)(void *stmt, int i);
	const char *(*column_decltype)(void *stmt, int i);
	enum db_type (*column_type)(void *stmt, int i);
	int64_t (*column_int)(void *stmt, int i);
	double (*column_double)(void *stmt, int i);
	const char *(*column_text)(void *stmt, int i);
	const void *(*column_blob)(void *stmt, int i);
	size_t (*column_bytes)(void *stmt, int i);
	/* Rows changed by conn's last write; the id its last INSERT made. */
	int64_t (*changes)(void *conn);
	int64_t (*last_insert_id)(void *conn);
};

/* The version of the SQLite library daicho was built with ("3.40.1"). */
const char *store_sqlite_version(void);

/* $DAICHO_BUSY_TIMEOUT, or 30 s: how long a lock is waited for. */
int64_t store_busy_timeout_ms(void);

extern const struct db_driver store_sqlite_driver;
/* NULL in a program linked without a PostgreSQL driver. */
extern const struct db_driver *const store_postgresql_driver;

#endif
