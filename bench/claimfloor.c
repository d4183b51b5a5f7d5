/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * claimfloor LEDGER AGENT: the least a process can do to claim a task in a
 * daicho ledger with SQLite, as a peer for `daicho claim --next` measured in
 * the same run (bench/run.sh, benchmark 3).
 *
 * It opens the ledger as daicho does (WAL, synchronous = NORMAL, no
 * checkpoint on close, but the WAL truncated on close once it passes 128
 * pages, as daicho's ledger.c does: otherwise it would grow with every run
 * and each process would read all of it to rebuild the WAL index), runs one
 * UPDATE ... RETURNING in a BEGIN IMMEDIATE transaction through daicho's
 * ready index, commits and prints the id. It
 * does none of what makes daicho's claim safe to use: no ordered write lock,
 * no schema check, no heartbeat or lease renewal, no expired-lease or
 * `touches` check, no event. Built, linked (static, not a PIE) and configured
 * like daicho, with the same memory mapped ahead (util/prefault.c), so the
 * difference between the two is daicho's own work.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "util/prefault.h"

static const char claim_sql[] =
    "UPDATE tasks SET state = 'claimed', owner = ?1, lease_ms = 1800000,"
    " lease_expires_ms = ?2 + 1800000, attempts = attempts + 1,"
    " updated_ms = ?2"
    " WHERE id = (SELECT id FROM tasks INDEXED BY tasks_ready"
    "  WHERE state = 'open' AND unmet_deps = 0"
    "  ORDER BY priority DESC, id LIMIT 1)"
    " RETURNING id";

static int wal_pages;

static int
note_wal_size(void *arg, sqlite3 *db, const char *name, int pages)
{
	(void)arg;
	(void)db;
	(void)name;
	wal_pages = pages;
	return SQLITE_OK;
}

static int
fail(sqlite3 *db, const char *what)
{
	fprintf(stderr, "claimfloor: %s: %s\n", what,
	    db ? sqlite3_errmsg(db) : "out of memory");
	sqlite3_close(db);
	return 1;
}

int
main(int argc, char **argv)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct timespec ts;
	sqlite3_int64 now;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: claimfloor LEDGER AGENT-ID\n");
		return 2;
	}
	/* As daicho prepares to open a ledger (main.c, core/ledger.c). */
	prefault_memory(512 << 10);
	sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		return fail(db, "open");
	sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	sqlite3_wal_hook(db, note_wal_size, NULL);
	sqlite3_busy_timeout(db, 30000);
	if (sqlite3_exec(db, "PRAGMA synchronous = NORMAL; BEGIN IMMEDIATE", NULL,
		NULL, NULL) != SQLITE_OK)
		return fail(db, "begin");
	if (sqlite3_prepare_v2(db, claim_sql, -1, &st, NULL) != SQLITE_OK)
		return fail(db, "prepare");
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (sqlite3_int64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	sqlite3_bind_int64(st, 1, strtoll(argv[2], NULL, 10));
	sqlite3_bind_int64(st, 2, now);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		printf("%lld\n", (long long)sqlite3_column_int64(st, 0));
	else if (rc != SQLITE_DONE)
		return fail(db, "claim");
	sqlite3_finalize(st);
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return fail(db, "commit");
	if (wal_pages >= 128)
		sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL,
		    NULL);
	sqlite3_close(db);
	return rc == SQLITE_ROW ? 0 : 3;
}
