/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * For unit tests that read a SQLite ledger directly: the connection under
 * a ledger opened through core (the SQLite driver's, store/sqlite/).
 */
#ifndef DAICHO_TEST_SQLITE_LEDGER_H
#define DAICHO_TEST_SQLITE_LEDGER_H

#include <sqlite3.h>

#include "core/ledger_internal.h"
#include "store/sqlite/sqlite.h"

/* The SQLite connection of ledger, a SQLite ledger. */
static inline sqlite3 *
ledger_db(struct ledger *ledger)
{
	return sqlite_handle(ledger_conn(ledger));
}

#endif
