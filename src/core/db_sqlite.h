/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The SQLite driver's side of the statement interface (core/db.h), for
 * ledger.c and db_sqlite.c only: what a statement is on SQLite.
 */
#ifndef DAICHO_DB_SQLITE_H
#define DAICHO_DB_SQLITE_H

#include <sqlite3.h>
#include <stdbool.h>

#include "core/db.h"

struct pg_stmt;

/* A statement of either driver: one of the two is set. */
struct db_stmt {
	struct pg_stmt *pg; /* a PostgreSQL statement (core/db_pg.h), owned
			     * as lite is */
	sqlite3_stmt *lite; /* the prepared statement; owned by whoever made
			     * the db_stmt (the ledger's cache, or the caller
			     * of db_prepare_once()) */
	struct ledger *ledger; /* whose connection lite is on */
	bool cached;        /* the ledger's cache owns it: never finalized by a
			     * caller (the cache would keep a freed pointer) */
};

struct ledger;

/*
 * Called before stepping stmt on the ledger's connection: when stmt
 * writes, the open nested levels that have not written yet take their
 * savepoints (ledger.h, "Transactions nest"). Returns SQLite's result:
 * SQLITE_OK, or the failed savepoint's, for the step's caller.
 */
int ledger_before_step(struct ledger *ledger, sqlite3_stmt *stmt);

/* The ledger's connection, for the driver (and its unit tests) only. */
sqlite3 *ledger_db(struct ledger *ledger);
/* The ledger's PostgreSQL connection, or NULL for a SQLite ledger. */
struct pg_conn *ledger_pg(struct ledger *ledger);

#endif
