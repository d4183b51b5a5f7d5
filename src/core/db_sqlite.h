/*
 * The SQLite driver's side of the statement interface (core/db.h), for
 * ledger.c and db_sqlite.c only: what a statement is on SQLite.
 */
#ifndef DAICHO_DB_SQLITE_H
#define DAICHO_DB_SQLITE_H

#include <sqlite3.h>

#include "core/db.h"

struct db_stmt {
	sqlite3_stmt *lite; /* the prepared statement; owned by whoever made
			     * the db_stmt (the ledger's cache, or the caller
			     * of db_prepare_once()) */
};

struct ledger;

/* The ledger's connection, for the driver (and its unit tests) only. */
sqlite3 *ledger_db(struct ledger *ledger);

#endif
