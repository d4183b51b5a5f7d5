/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The ledger's private state, shared by the files that make it up and by
 * nothing else:
 *
 *   ledger.c        opening and closing, where its work is, errors
 *   ledger_find.c   finding it (ledger_locate(), address files)
 *   ledger_tx.c     transactions, nested as savepoints; the write lock's
 *                   trace
 *   stmt.c          the statement interface (core/db.h) and its cache
 *   ledger_query.c  the few questions asked of the ledger as a whole
 *
 * Each reaches the engine through the driver (store/driver.h). Calls go
 * one way: ledger_query.c -> stmt.c -> ledger_tx.c; ledger.c ->
 * ledger_tx.c; none back.
 */
#ifndef DAICHO_LEDGER_INTERNAL_H
#define DAICHO_LEDGER_INTERNAL_H

#include "core/db.h"
#include "core/ledger.h"
#include "store/driver.h"

#define STMT_CACHE_SIZE 256

/* A statement of core/db.h: the driver's own, and whose it is. */
struct db_stmt {
	void *impl;                /* the driver's statement; owned as below */
	struct ledger *ledger;     /* whose connection it is on */
	bool cached;               /* the ledger's cache owns it: never
				    * finalized by a caller (the cache would
				    * keep a freed pointer) */
};

struct cached_stmt {
	const char *sql;     /* the literal's address is the key */
	struct db_stmt stmt; /* owned */
};

struct ledger {
	const struct db_driver *driver;
	void *conn;                   /* the driver's connection */
	char *path;                   /* a file, or a PostgreSQL address */
	bool writing;                 /* the open transaction is a write one */
	bool in_transaction;
	int nesting;                  /* nested levels inside the transaction */
	/*
	 * Nested levels 1..covered have their savepoint (or, in an
	 * all-or-nothing transaction, have written without one). With the
	 * driver's eager_savepoints a level takes it when it begins, else
	 * before its first write (ledger_cover_write()).
	 */
	int covered;
	bool all_or_nothing;          /* ledger_begin_all_or_nothing() */
	bool doomed;                  /* a level that wrote was rolled back
				       * without a savepoint: no commit */
	struct cached_stmt stmts[STMT_CACHE_SIZE];
	size_t stmt_count;
	ledger_hook_fn begin_hook;    /* run in every write transaction */
	ledger_hook_fn prepare_hook;  /* run before its lock is asked for */
	void *begin_hook_arg;
	uint64_t commits;             /* write transactions committed */
	int64_t caller;               /* the caller's agent id, 0 until known */
	char *event_via;              /* detail.via of every event, or NULL */
	int64_t *forget_on_rollback;  /* an id registered in this transaction */
	/* Where the ledger's work is, found once (ledger_project_root()...). */
	char *project_root;
	char *git_dir;                /* NULL until found */
	int git_dir_status;           /* path_ledger_git_dir()'s: 0 or 1 */
	/* For $DAICHO_TRACE_LOCK: microseconds waited for and holding the lock. */
	int64_t wait_us_max, wait_us_total, hold_us_total;
	int64_t lock_asked_us;        /* when the open write transaction began */
	int64_t transactions;
};

/*
 * Before stepping a statement that writes: every open nested level that
 * has not written yet takes its savepoint (none in an all-or-nothing
 * transaction), outermost first. Returns the driver's result (0 when
 * done). ledger_tx.c.
 */
int ledger_cover_write(struct ledger *ledger);

/* For $DAICHO_TRACE_LOCK: the connection's line, on close. ledger_tx.c. */
void ledger_trace_lock(const struct ledger *ledger);

/* For the unit tests: the driver's connection under ledger. */
void *ledger_conn(struct ledger *ledger);

#endif
