/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for core/ledger: creating, opening, migrating, transactions,
 * the write lock, and where the ledger is found.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "core/err.h"
#include "core/db.h"
#include "sqlite_ledger.h" /* these tests read the SQLite ledger directly */
#include "core/ledger.h"
#include "store/sqlite/schema.h"

struct fixture {
	char dir[PATH_MAX];  /* resolved temp directory */
	char path[PATH_MAX + 64]; /* dir/sub/ledger.db */
};

static int
remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/daicho-test-ledger-XXXXXX";

	if (f == NULL || mkdtemp(tmpl) == NULL || realpath(tmpl, f->dir) == NULL)
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/sub/ledger.db", f->dir);
	unsetenv("DAICHO_LEDGER");
	unsetenv("DAICHO_BUSY_TIMEOUT");
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	nftw(f->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	unsetenv("DAICHO_LEDGER");
	unsetenv("DAICHO_BUSY_TIMEOUT");
	return 0;
}

static int64_t
query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static char *
query_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	char *v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

/* A separate, plain SQLite connection to path. */
static sqlite3 *
raw_open(const char *path)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL),
	    SQLITE_OK);
	return db;
}

static void
assert_one_line(const struct err *err)
{
	assert_true(err->message.len > 0);
	assert_null(memchr(err->message.buf, '\n', err->message.len));
}

static void
write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void
test_create_then_open(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	struct stat st;
	char *mode;

	/* The directory does not exist yet: create makes it. */
	assert_int_equal(ledger_create(f->path, &err), 0);
	assert_int_equal(err.code, ERR_OK);
	assert_int_equal(stat(f->path, &st), 0);
	assert_true(S_ISREG(st.st_mode));

	assert_int_equal(ledger_open(f->path, &ledger, &err), 0);
	assert_non_null(ledger);
	assert_string_equal(ledger_path(ledger), f->path);
	assert_non_null(ledger_db(ledger));
	assert_int_equal(query_int(ledger_db(ledger), "PRAGMA user_version"),
	    LEDGER_SCHEMA_VERSION);
	mode = query_text(ledger_db(ledger), "PRAGMA journal_mode");
	assert_string_equal(mode, "wal");
	free(mode);
	assert_int_equal(query_int(ledger_db(ledger), "PRAGMA foreign_keys"), 1);
	assert_int_equal(query_int(ledger_db(ledger), "PRAGMA application_id"),
	    SCHEMA_APPLICATION_ID);
	/* Every daicho table is STRICT. */
	assert_int_equal(query_int(ledger_db(ledger),
			     "SELECT count(*) FROM pragma_table_list WHERE "
			     "schema = 'main' AND type = 'table' AND name NOT "
			     "LIKE 'sqlite_%' AND strict = 0"),
	    0);
	assert_true(query_int(ledger_db(ledger),
			"SELECT count(*) FROM pragma_table_list WHERE "
			"schema = 'main' AND name = 'tasks'") == 1);
	ledger_close(ledger);
	err_release(&err);
}

static void
test_schema_version_matches_migrations(void **state)
{
	assert_int_equal(schema_migration_count, LEDGER_SCHEMA_VERSION);
}

static void
test_wal_is_persistent(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	sqlite3 *db;
	char *mode;

	assert_int_equal(ledger_create(f->path, &err), 0);
	/* Seen from an independent connection, the file is in WAL mode. */
	db = raw_open(f->path);
	mode = query_text(db, "PRAGMA journal_mode");
	assert_string_equal(mode, "wal");
	free(mode);
	assert_int_equal(query_int(db, "PRAGMA user_version"),
	    LEDGER_SCHEMA_VERSION);
	sqlite3_close(db);
	err_release(&err);
}

static void
test_second_create_returns_1(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	sqlite3 *db;

	assert_int_equal(ledger_create(f->path, &err), 0);
	/* Put something in it; a second create must not wipe it. */
	db = raw_open(f->path);
	assert_int_equal(sqlite3_exec(db,
			     "INSERT INTO agents (name, kind, started_ms, "
			     "last_seen_ms) VALUES ('keep', 'script', 1, 1)",
			     NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(db);

	assert_int_equal(ledger_create(f->path, &err), 1);
	assert_int_equal(ledger_create(f->path, &err), 1);
	assert_int_equal(ledger_open(f->path, &ledger, &err), 0);
	assert_int_equal(query_int(ledger_db(ledger),
			     "SELECT count(*) FROM agents WHERE name = 'keep'"),
	    1);
	assert_int_equal(query_int(ledger_db(ledger), "PRAGMA user_version"),
	    LEDGER_SCHEMA_VERSION);
	ledger_close(ledger);
	err_release(&err);
}

static void
test_create_migrates_old(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	sqlite3 *db = NULL;

	/* An empty SQLite database (user_version 0) exists at path. */
	snprintf(f->path, sizeof(f->path), "%s/old.db", f->dir);
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 0", NULL, NULL,
			     NULL),
	    SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(ledger_create(f->path, &err), 1);
	db = raw_open(f->path);
	assert_int_equal(query_int(db, "PRAGMA user_version"),
	    LEDGER_SCHEMA_VERSION);
	sqlite3_close(db);
	err_release(&err);
}

/*
 * A ledger at schema 8 (the last before the tasks table was rebuilt for
 * its state CHECK) opens at the current version with every task, edge and
 * event kept, the same tasks table and indexes as a new ledger, the check
 * still refusing an unknown state, and foreign keys still enforced.
 */
static void
test_open_migrates_tasks_check(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	char fresh_path[PATH_MAX + 64];
	char *sql_migrated, *sql_fresh, *rows;
	sqlite3 *db = NULL;

	snprintf(f->path, sizeof(f->path), "%s/v8.db", f->dir);
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	for (size_t v = 0; v < 8; v++)
		assert_int_equal(sqlite3_exec(db, schema_migrations[v], NULL,
				     NULL, NULL),
		    SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
			     "PRAGMA journal_mode = WAL;"
			     "PRAGMA user_version = 8;"
			     "PRAGMA foreign_keys = ON;"
			     "INSERT INTO agents (name, kind, started_ms, "
			     "  last_seen_ms) VALUES ('w', 'script', 1, 1);"
			     "INSERT INTO tasks (id, title, state, owner, "
			     "  lease_expires_ms, attempts, created_ms, updated_ms,"
			     "  claim_base, checks_version) VALUES"
			     "  (1, 'a', 'verified', 1, NULL, 1, 1, 2, 'abc', 3),"
			     "  (2, 'b', 'claimed', 1, 99, 1, 1, 2, NULL, 1),"
			     "  (3, 'c', 'open', NULL, NULL, 0, 1, 1, NULL, 1),"
			     "  (5, 'e', 'failed', NULL, NULL, 3, 1, 1, NULL, 1);"
			     "UPDATE tasks SET unmet_deps = 1 WHERE id = 3;"
			     "INSERT INTO deps VALUES (3, 2);"
			     "INSERT INTO labels VALUES (3, 'x');"
			     "INSERT INTO events (at_ms, kind, task) VALUES (1, "
			     "  'claim', 2);",
			     NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(db);

	assert_int_equal(ledger_open(f->path, &ledger, &err), 0);
	db = ledger_db(ledger);
	assert_int_equal(query_int(db, "PRAGMA user_version"),
	    LEDGER_SCHEMA_VERSION);
	assert_int_equal(query_int(db, "SELECT count(*) FROM tasks"), 4);
	rows = query_text(db,
	    "SELECT group_concat(id || ',' || title || ',' || state || ','"
	    " || ifnull(owner, '-') || ',' || attempts || ',' || unmet_deps"
	    " || ',' || ifnull(claim_base, '-') || ',' || checks_version || ','"
	    " || ifnull(lease_expires_ms, '-'), ';')"
	    " FROM (SELECT * FROM tasks ORDER BY id)");
	assert_string_equal(rows, "1,a,verified,1,1,0,abc,3,-;"
				  "2,b,claimed,1,1,0,-,1,99;"
				  "3,c,open,-,0,1,-,1,-;"
				  "5,e,failed,-,3,0,-,1,-");
	free(rows);
	assert_int_equal(query_int(db, "SELECT count(*) FROM deps"), 1);
	assert_int_equal(query_int(db, "SELECT count(*) FROM events"), 1);
	/* The next task takes the next id, as before. */
	assert_int_equal(sqlite3_exec(db,
			     "INSERT INTO tasks (title, created_ms, updated_ms)"
			     " VALUES ('f', 1, 1)",
			     NULL, NULL, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_last_insert_rowid(db), 6);
	/* The check still holds, and foreign keys are on again. */
	assert_int_equal(sqlite3_exec(db,
			     "UPDATE tasks SET state = 'done' WHERE id = 3",
			     NULL, NULL, NULL),
	    SQLITE_CONSTRAINT_CHECK);
	assert_int_equal(query_int(db, "PRAGMA foreign_keys"), 1);
	assert_int_not_equal(sqlite3_exec(db,
				 "INSERT INTO deps VALUES (99, 1)", NULL,
				 NULL, NULL),
	    SQLITE_OK);
	assert_int_equal(query_int(db,
			     "SELECT count(*) FROM pragma_foreign_key_check"),
	    0);
	sql_migrated = query_text(db,
	    "SELECT group_concat(sql, ';') FROM (SELECT sql FROM "
	    "sqlite_schema WHERE tbl_name = 'tasks' ORDER BY name)");
	assert_null(strstr(sql_migrated, "state IN"));
	assert_int_equal(query_int(db,
			     "SELECT count(*) FROM sqlite_schema WHERE type = "
			     "'index' AND tbl_name = 'tasks' AND name IN "
			     "('tasks_ready', 'tasks_claimed_lease', "
			     "'tasks_owner', 'tasks_state', "
			     "'tasks_owner_claimed')"),
	    5);
	ledger_close(ledger);

	/* The same table and indexes as a ledger made new. */
	snprintf(fresh_path, sizeof(fresh_path), "%s/fresh.db", f->dir);
	assert_int_equal(ledger_create(fresh_path, &err), 0);
	db = raw_open(fresh_path);
	sql_fresh = query_text(db,
	    "SELECT group_concat(sql, ';') FROM (SELECT sql FROM "
	    "sqlite_schema WHERE tbl_name = 'tasks' ORDER BY name)");
	assert_string_equal(sql_migrated, sql_fresh);
	sqlite3_close(db);
	free(sql_migrated);
	free(sql_fresh);
	err_release(&err);
}

static void
test_open_refuses_empty_file(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	struct stat st;
	sqlite3 *db;
	char *mode;

	/*
	 * A zero-byte file is not a ledger yet: open refuses it, saying to run
	 * 'daicho init', and leaves it as it was.
	 */
	snprintf(f->path, sizeof(f->path), "%s/empty.db", f->dir);
	write_file(f->path, "", 0);
	assert_int_equal(ledger_open(f->path, &ledger, &err), -ERR_FAILED);
	assert_int_equal(err.code, ERR_FAILED);
	assert_null(ledger);
	assert_one_line(&err);
	assert_non_null(strstr(err.message.buf, f->path));
	assert_non_null(strstr(err.message.buf, "daicho init"));
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_size, 0);
	/* Again: still refused (nothing was half-made by the first try). */
	err_release(&err);
	assert_int_equal(ledger_open(f->path, &ledger, &err), -ERR_FAILED);
	assert_null(ledger);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_size, 0);
	err_release(&err);

	/*
	 * create makes it a ledger (0: created, since nothing was there but
	 * an empty file; a non-empty old database gives 1, see
	 * test_create_migrates_old).
	 */
	assert_int_equal(ledger_create(f->path, &err), 0);
	db = raw_open(f->path);
	assert_int_equal(query_int(db, "PRAGMA user_version"),
	    LEDGER_SCHEMA_VERSION);
	assert_int_equal(query_int(db, "PRAGMA application_id"),
	    SCHEMA_APPLICATION_ID);
	mode = query_text(db, "PRAGMA journal_mode");
	assert_string_equal(mode, "wal");
	free(mode);
	sqlite3_close(db);
	/* Now it opens, as an empty ledger. */
	assert_int_equal(ledger_open(f->path, &ledger, &err), 0);
	assert_int_equal(query_int(ledger_db(ledger), "PRAGMA user_version"),
	    LEDGER_SCHEMA_VERSION);
	assert_int_equal(query_int(ledger_db(ledger),
			     "SELECT count(*) FROM tasks"),
	    0);
	assert_int_equal(query_int(ledger_db(ledger),
			     "SELECT count(*) FROM agents"),
	    0);
	ledger_close(ledger);
	err_release(&err);
}

static void
test_begin_as_maps_zero_to_caller(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	int64_t agent;

	assert_int_equal(ledger_create(f->path, &err), 0);
	assert_int_equal(ledger_open(f->path, &ledger, &err), 0);
	/* No caller known: 0 stays 0. */
	assert_int_equal(ledger_caller(ledger), 0);
	agent = 0;
	assert_int_equal(ledger_begin_as(ledger, &agent, &err), 0);
	assert_int_equal(agent, 0);
	ledger_rollback(ledger);
	/* A caller: 0 becomes it; any other id is kept. */
	ledger_set_caller(ledger, 7);
	assert_int_equal(ledger_caller(ledger), 7);
	agent = 0;
	assert_int_equal(ledger_begin_as(ledger, &agent, &err), 0);
	assert_int_equal(agent, 7);
	assert_int_equal(ledger_commit(ledger, &err), 0);
	agent = 3;
	assert_int_equal(ledger_begin_as(ledger, &agent, &err), 0);
	assert_int_equal(agent, 3);
	ledger_rollback(ledger);
	ledger_close(ledger);
	err_release(&err);
}

static void
test_open_not_sqlite(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	char junk[4096];
	char back[sizeof(junk)];
	int fd;

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)('A' + i % 23);
	snprintf(f->path, sizeof(f->path), "%s/junk.db", f->dir);
	write_file(f->path, junk, sizeof(junk));

	assert_int_equal(ledger_open(f->path, &ledger, &err), -ERR_FAILED);
	assert_int_equal(err.code, ERR_FAILED);
	assert_null(ledger);
	assert_one_line(&err);
	assert_non_null(strstr(err.message.buf, f->path));
	assert_non_null(strstr(err.message.buf, "not"));

	/* create refuses it too, and the file is left as it was. */
	err_release(&err);
	assert_true(ledger_create(f->path, &err) < 0);
	assert_int_equal(err.code, ERR_FAILED);
	assert_one_line(&err);
	fd = open(f->path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, back, sizeof(back)), (ssize_t)sizeof(back));
	close(fd);
	assert_memory_equal(back, junk, sizeof(junk));
	err_release(&err);
}

static void
test_open_short_text_file(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;

	snprintf(f->path, sizeof(f->path), "%s/notes.txt", f->dir);
	write_file(f->path, "hello\n", 6);
	assert_int_equal(ledger_open(f->path, &ledger, &err), -ERR_FAILED);
	assert_int_equal(err.code, ERR_FAILED);
	assert_null(ledger);
	assert_one_line(&err);
	err_release(&err);
}

static void
test_open_other_sqlite_database(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	sqlite3 *db = NULL;

	snprintf(f->path, sizeof(f->path), "%s/other.db", f->dir);
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
			     "CREATE TABLE mine (x); INSERT INTO mine VALUES (42)",
			     NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(db);

	assert_int_equal(ledger_open(f->path, &ledger, &err), -ERR_FAILED);
	assert_int_equal(err.code, ERR_FAILED);
	assert_null(ledger);
	assert_one_line(&err);
	/* It was not turned into a ledger. */
	db = raw_open(f->path);
	assert_int_equal(query_int(db, "PRAGMA user_version"), 0);
	assert_int_equal(query_int(db,
			     "SELECT count(*) FROM sqlite_schema WHERE name = 'tasks'"),
	    0);
	assert_int_equal(query_int(db, "SELECT x FROM mine"), 42);
	sqlite3_close(db);
	err_release(&err);
}

/* Labels written through the ledger's own connection, to see what sticks. */
static void
put_label(struct ledger *ledger, const char *label)
{
	struct err err = ERR_INIT;
	char sql[128];

	/* Through the ledger: a nested level's savepoint comes before its
	 * first write. */
	snprintf(sql, sizeof(sql),
	    "INSERT INTO labels (task, label) VALUES (%s, '%s')", "1", label);
	assert_int_equal(ledger_exec(ledger, sql, &err), 0);
	err_release(&err);
}

/* Label task 1 with the number n, as core writes: a cached statement. */
static void
put_label_number(struct ledger *ledger, int64_t n)
{
	struct err err = ERR_INIT;

	assert_int_equal(db_write(ledger, "INSERT INTO labels (task, label)"
			     " VALUES (?1, CAST(?2 AS TEXT))", 1, n, NULL,
			     "labelling", &err),
	    0);
	err_release(&err);
}

static int
interrupt_now(void *arg)
{
	(void)arg;
	return 1;
}

/* A count read through the ledger's own connection (its snapshot). */
static int
query_int_via(struct ledger *ledger, const char *sql)
{
	return query_int(ledger_db(ledger), sql);
}

static int
labels_now(const char *path)
{
	sqlite3 *db = raw_open(path);
	int n = query_int(db, "SELECT count(*) FROM labels");

	sqlite3_close(db);
	return n;
}

/* A new ledger at f->path, open, with task 1 to label. */
static struct ledger *
open_with_task(struct fixture *f)
{
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;

	assert_int_equal(ledger_create(f->path, &err), 0);
	assert_int_equal(ledger_open(f->path, &ledger, &err), 0);
	assert_int_equal(sqlite3_exec(ledger_db(ledger),
			     "INSERT INTO tasks (id, title, created_ms, updated_ms)"
			     " VALUES (1, 't', 0, 0)", NULL, NULL, NULL),
	    SQLITE_OK);
	err_release(&err);
	return ledger;
}

/*
 * Run misuse(ledger) in a child process and check that it ends as a BUG:
 * aborted, having said "daicho: BUG: FILE:LINE: " and what on stderr.
 */
static void
expect_bug(struct fixture *f, void (*misuse)(struct ledger *), const char *what)
{
	char out_path[PATH_MAX + 16], text[1024] = "";
	int status, fd;
	pid_t pid;
	FILE *in;

	snprintf(out_path, sizeof(out_path), "%s/bug.txt", f->dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct err err = ERR_INIT;
		struct ledger *ledger = NULL;

		fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(100);
		signal(SIGABRT, SIG_DFL);
		if (ledger_open(f->path, &ledger, &err) < 0)
			_exit(101);
		misuse(ledger);
		_exit(0); /* not a BUG: the parent says so */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	in = fopen(out_path, "r");
	assert_non_null(in);
	if (fgets(text, sizeof(text), in) == NULL)
		text[0] = '\0';
	fclose(in);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT)
		fail_msg("expected an abort for %s, got status %#x: %s", what,
		    status, text);
	assert_non_null(strstr(text, "daicho: BUG: src/core/"));
	assert_non_null(strstr(text, what));
}

static void
commit_unbegun(struct ledger *ledger)
{
	struct err err = ERR_INIT;

	(void)ledger_commit(ledger, &err);
}

static void
finalize_cached(struct ledger *ledger)
{
	struct err err = ERR_INIT;
	struct db_stmt *st = NULL;

	/* A failed prepare leaves st NULL, and no BUG: the test fails. */
	(void)db_prepare(ledger, "SELECT 1", &st, &err);
	db_finalize(st);
}

/*
 * Invariants are BUGs in every build: a commit outside a transaction, or
 * the finalizing of a statement the ledger's cache owns, aborts saying
 * where, before it can do harm; the ledger is as it was.
 */
static void
test_invariants_are_bugs(void **state)
{
	struct fixture *f = *state;
	struct ledger *ledger = open_with_task(f);

	ledger_close(ledger);
	expect_bug(f, commit_unbegun, "a commit outside a transaction");
	expect_bug(f, finalize_cached, "finalizing a statement the ledger's "
	    "cache owns");
}

/*
 * Nested transactions: an inner commit lands only with the outer one, an
 * inner rollback undoes only the inner writes, the outermost commit is the
 * only real one, and a write may not nest inside a read.
 */
static void
test_nested_transactions(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	uint64_t commits;

	ledger = open_with_task(f);
	commits = ledger_commit_count(ledger);

	/* Inner commit, outer rollback: nothing. */
	assert_int_equal(ledger_begin(ledger, &err), 0);
	put_label(ledger, "a");
	assert_int_equal(ledger_begin(ledger, &err), 0);
	put_label(ledger, "b");
	assert_int_equal(ledger_commit(ledger, &err), 0);
	assert_int_equal(labels_now(f->path), 0); /* not committed yet */
	ledger_rollback(ledger);
	assert_int_equal(labels_now(f->path), 0);
	assert_int_equal(ledger_commit_count(ledger), commits);

	/* Inner rollback, outer commit: only the outer write, one commit. */
	assert_int_equal(ledger_begin(ledger, &err), 0);
	put_label(ledger, "c");
	assert_int_equal(ledger_begin(ledger, &err), 0);
	put_label(ledger, "d");
	ledger_rollback(ledger);
	assert_int_equal(ledger_begin_read(ledger, &err), 0); /* read in write */
	assert_int_equal(ledger_commit(ledger, &err), 0);
	put_label(ledger, "e");
	assert_int_equal(ledger_commit(ledger, &err), 0);
	assert_int_equal(ledger_commit_count(ledger), commits + 1);
	{
		sqlite3 *db = raw_open(f->path);

		assert_int_equal(query_int(db,
				     "SELECT count(*) FROM labels WHERE label IN ('c', 'e')"),
		    2);
		assert_int_equal(query_int(db, "SELECT count(*) FROM labels"), 2);
		sqlite3_close(db);
	}

	/* A write inside a read is refused, and the read goes on. */
	assert_int_equal(ledger_begin_read(ledger, &err), 0);
	assert_int_equal(ledger_begin(ledger, &err), -ERR_FAILED);
	assert_non_null(strstr(err.message.buf, "nested inside a read"));
	err_release(&err);
	assert_int_equal(query_int_via(ledger, "SELECT count(*) FROM labels"), 2);
	assert_int_equal(ledger_commit(ledger, &err), 0);

	/*
	 * SQLite rolls the whole transaction back on an interrupt: the
	 * nested levels after it fail, the outer commit fails, nothing lands
	 * (a savepoint begun afterwards would otherwise commit on release).
	 */
	assert_int_equal(ledger_begin(ledger, &err), 0);
	put_label(ledger, "h");
	assert_int_equal(ledger_begin(ledger, &err), 0);
	sqlite3_progress_handler(ledger_db(ledger), 1, interrupt_now, NULL);
	assert_int_not_equal(sqlite3_exec(ledger_db(ledger),
				 "INSERT INTO labels (task, label) VALUES (1, 'i')",
				 NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_progress_handler(ledger_db(ledger), 0, NULL, NULL);
	ledger_rollback(ledger);               /* the inner level */
	assert_int_equal(ledger_begin(ledger, &err), -ERR_FAILED);
	assert_non_null(strstr(err.message.buf, "rolled back"));
	err_release(&err);
	assert_int_equal(ledger_commit(ledger, &err), -ERR_FAILED);
	err_release(&err);
	assert_int_equal(labels_now(f->path), 2);
	/* And the ledger works on. */
	assert_int_equal(ledger_begin(ledger, &err), 0);
	put_label(ledger, "j");
	assert_int_equal(ledger_commit(ledger, &err), 0);
	assert_int_equal(labels_now(f->path), 3);

	/* Closing inside nested transactions rolls all of them back. */
	assert_int_equal(ledger_begin(ledger, &err), 0);
	put_label(ledger, "f");
	assert_int_equal(ledger_begin(ledger, &err), 0);
	put_label(ledger, "g");
	ledger_close(ledger);
	assert_int_equal(labels_now(f->path), 3);
	err_release(&err);
}

/*
 * A nested level takes its savepoint at its first write (a level that
 * only read, or failed before writing, leaves the outer writes alone and
 * a written level's rollback undoes only its own). In an all-or-nothing
 * transaction no level takes one: a level that fails before writing is
 * passed over, but one rolled back after writing makes the outer commit
 * fail with nothing written.
 */
static void
test_nested_savepoint_at_first_write(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	int64_t count = 0;

	ledger = open_with_task(f);

	/* Read-only and failed-before-writing levels; a written one undone. */
	assert_int_equal(ledger_begin(ledger, &err), 0);
	put_label_number(ledger, 1);
	assert_int_equal(ledger_begin(ledger, &err), 0);
	assert_int_equal(ledger_query_int(ledger, "SELECT count(*) FROM labels",
			     &count, &err),
	    0);
	assert_int_equal(count, 1);
	ledger_rollback(ledger);
	assert_int_equal(ledger_begin(ledger, &err), 0);
	assert_int_equal(ledger_begin(ledger, &err), 0);
	put_label_number(ledger, 2);
	assert_int_equal(ledger_commit(ledger, &err), 0);
	put_label_number(ledger, 3);
	ledger_rollback(ledger); /* undoes 2 and 3 */
	assert_int_equal(ledger_begin(ledger, &err), 0);
	put_label_number(ledger, 4);
	assert_int_equal(ledger_commit(ledger, &err), 0);
	assert_int_equal(ledger_commit(ledger, &err), 0);
	assert_int_equal(labels_now(f->path), 2);

	/* All or nothing: a level that failed before writing is passed over. */
	assert_int_equal(ledger_begin_all_or_nothing(ledger, &err), 0);
	put_label_number(ledger, 5);
	assert_int_equal(ledger_begin(ledger, &err), 0);
	put_label_number(ledger, 6);
	assert_int_equal(ledger_commit(ledger, &err), 0);
	assert_int_equal(ledger_begin(ledger, &err), 0);
	ledger_rollback(ledger);
	assert_int_equal(ledger_commit(ledger, &err), 0);
	assert_int_equal(labels_now(f->path), 4);

	/* A level rolled back after writing: the commit fails, nothing lands. */
	assert_int_equal(ledger_begin_all_or_nothing(ledger, &err), 0);
	put_label_number(ledger, 7);
	assert_int_equal(ledger_begin(ledger, &err), 0);
	assert_int_equal(ledger_begin(ledger, &err), 0);
	put_label_number(ledger, 8);
	assert_int_equal(ledger_commit(ledger, &err), 0);
	ledger_rollback(ledger);
	put_label_number(ledger, 9);
	assert_int_equal(ledger_commit(ledger, &err), -ERR_FAILED);
	assert_non_null(strstr(err.message.buf, "nothing of it was written"));
	err_release(&err);
	assert_int_equal(labels_now(f->path), 4);
	/* And the next transaction is an ordinary one again. */
	assert_int_equal(ledger_begin(ledger, &err), 0);
	put_label_number(ledger, 10);
	assert_int_equal(ledger_begin(ledger, &err), 0);
	put_label_number(ledger, 11);
	ledger_rollback(ledger);
	assert_int_equal(ledger_commit(ledger, &err), 0);
	assert_int_equal(labels_now(f->path), 5);
	assert_int_equal(ledger_begin_all_or_nothing(ledger, &err), 0);
	assert_int_equal(ledger_begin_all_or_nothing(ledger, &err), -ERR_FAILED);
	err_release(&err);
	ledger_rollback(ledger);
	ledger_close(ledger);
	err_release(&err);
}

static void
test_open_missing(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	struct stat st;

	assert_int_equal(ledger_open(f->path, &ledger, &err), -ERR_FAILED);
	assert_int_equal(err.code, ERR_FAILED);
	assert_null(ledger);
	assert_one_line(&err);
	assert_non_null(strstr(err.message.buf, "daicho init"));
	assert_non_null(strstr(err.message.buf, f->path));
	/* Nothing was created. */
	assert_int_equal(stat(f->path, &st), -1);
	snprintf(f->path, sizeof(f->path), "%s/sub", f->dir);
	assert_int_equal(stat(f->path, &st), -1);
	err_release(&err);
}

static void
test_create_parent_is_file(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	char blocker[PATH_MAX + 16];

	/* "sub" is a file, so sub/ledger.db cannot be created. */
	snprintf(blocker, sizeof(blocker), "%s/sub", f->dir);
	write_file(blocker, "x", 1);
	assert_true(ledger_create(f->path, &err) < 0);
	assert_int_equal(err.code, ERR_FAILED);
	assert_one_line(&err);
	err_release(&err);
}

static void
test_rollback_leaves_no_change(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	sqlite3 *db;

	assert_int_equal(ledger_create(f->path, &err), 0);
	assert_int_equal(ledger_open(f->path, &ledger, &err), 0);

	assert_int_equal(ledger_begin(ledger, &err), 0);
	assert_int_equal(ledger_exec(ledger,
			     "INSERT INTO agents (name, kind, started_ms, "
			     "last_seen_ms) VALUES ('gone', 'script', 1, 1)",
			     &err),
	    0);
	assert_int_equal(query_int(ledger_db(ledger),
			     "SELECT count(*) FROM agents"),
	    1);
	ledger_rollback(ledger);
	assert_int_equal(query_int(ledger_db(ledger),
			     "SELECT count(*) FROM agents"),
	    0);
	/* A rollback with no transaction open is harmless. */
	ledger_rollback(ledger);

	/* A committed change is visible to another connection. */
	assert_int_equal(ledger_begin(ledger, &err), 0);
	assert_int_equal(ledger_exec(ledger,
			     "INSERT INTO agents (name, kind, started_ms, "
			     "last_seen_ms) VALUES ('kept', 'script', 1, 1)",
			     &err),
	    0);
	assert_int_equal(ledger_commit(ledger, &err), 0);
	db = raw_open(f->path);
	assert_int_equal(query_int(db, "SELECT count(*) FROM agents"), 1);
	assert_int_equal(query_int(db,
			     "SELECT count(*) FROM agents WHERE name = 'kept'"),
	    1);
	sqlite3_close(db);
	ledger_close(ledger);
	err_release(&err);
}

static void
test_close_rolls_back(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	sqlite3 *db;

	assert_int_equal(ledger_create(f->path, &err), 0);
	assert_int_equal(ledger_open(f->path, &ledger, &err), 0);
	assert_int_equal(ledger_begin(ledger, &err), 0);
	assert_int_equal(ledger_exec(ledger,
			     "INSERT INTO agents (name, kind, started_ms, "
			     "last_seen_ms) VALUES ('x', 'script', 1, 1)",
			     &err),
	    0);
	ledger_close(ledger);
	db = raw_open(f->path);
	assert_int_equal(query_int(db, "SELECT count(*) FROM agents"), 0);
	sqlite3_close(db);
	err_release(&err);
}

static void
test_begin_is_immediate(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	sqlite3 *db;

	assert_int_equal(ledger_create(f->path, &err), 0);
	assert_int_equal(ledger_open(f->path, &ledger, &err), 0);
	assert_int_equal(ledger_begin(ledger, &err), 0);
	/* The write lock is held from BEGIN: another writer cannot start. */
	db = raw_open(f->path);
	sqlite3_busy_timeout(db, 0);
	assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) & 0xff,
	    SQLITE_BUSY);
	/* Readers are not blocked. */
	assert_int_equal(query_int(db, "SELECT count(*) FROM tasks"), 0);
	ledger_rollback(ledger);
	assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	ledger_close(ledger);
	err_release(&err);
}

static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
test_busy_timeout(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *a = NULL, *b = NULL;
	struct buf trace = BUF_INIT;
	char trace_path[PATH_MAX + 16];
	long long pid, transactions, wait_max, wait_total, hold_total;
	int64_t start, waited;

	assert_int_equal(ledger_create(f->path, &err), 0);
	setenv("DAICHO_BUSY_TIMEOUT", "300ms", 1);
	assert_int_equal(ledger_open(f->path, &a, &err), 0);
	assert_int_equal(ledger_open(f->path, &b, &err), 0);
	assert_int_equal(ledger_begin(a, &err), 0);
	start = mono_ms();
	assert_int_equal(ledger_begin(b, &err), -ERR_BUSY);
	waited = mono_ms() - start;
	assert_int_equal(err.code, ERR_BUSY);
	assert_one_line(&err);
	/* It waited the busy timeout (a minute is only a guard against a hang). */
	assert_true(waited >= 250);
	assert_true(waited < 60000);
	/* Once a is done, b gets in (within its timeout, or it would fail). */
	ledger_rollback(a);
	err_release(&err);
	assert_int_equal(ledger_begin(b, &err), 0);
	assert_int_equal(ledger_commit(b, &err), 0);
	ledger_close(a);
	/*
	 * b's trace counts both write transactions, the refused one too: its
	 * wait, the longest, is the one the trace is for.
	 */
	snprintf(trace_path, sizeof(trace_path), "%s/trace", f->dir);
	setenv("DAICHO_TRACE_LOCK", trace_path, 1);
	ledger_close(b);
	unsetenv("DAICHO_TRACE_LOCK");
	assert_int_equal(buf_read_file(&trace, trace_path), 0);
	assert_int_equal(sscanf(trace.buf, "%lld %lld %lld %lld %lld", &pid,
	    &transactions, &wait_max, &wait_total, &hold_total), 5);
	assert_int_equal(pid, (long long)getpid());
	assert_int_equal(transactions, 2);
	assert_true(wait_max >= 250000);
	assert_true(wait_total >= wait_max);
	buf_release(&trace);
	err_release(&err);
}

/*
 * Fork a child that opens the ledger at path and takes its write lock;
 * return its pid once it holds it. The child commits and exits 0 after
 * hold_ms, or, when hold_ms < 0, holds the lock until it is killed.
 */
static pid_t
fork_lock_holder(const char *path, int hold_ms)
{
	int fds[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct err child_err = ERR_INIT;
		struct ledger *held = NULL;

		close(fds[0]);
		if (ledger_open(path, &held, &child_err) < 0 ||
		    ledger_begin(held, &child_err) < 0)
			_exit(1);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		if (hold_ms < 0)
			for (;;)
				pause();
		usleep((useconds_t)hold_ms * 1000);
		if (ledger_commit(held, &child_err) < 0)
			_exit(1);
		ledger_close(held);
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	return pid;
}

static void
test_waiter_gets_lock_when_freed(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	pid_t pid;
	int64_t start, waited;
	int status;

	assert_int_equal(ledger_create(f->path, &err), 0);
	pid = fork_lock_holder(f->path, 400);
	setenv("DAICHO_BUSY_TIMEOUT", "10s", 1);
	assert_int_equal(ledger_open(f->path, &ledger, &err), 0);
	start = mono_ms();
	assert_int_equal(ledger_begin(ledger, &err), 0);
	waited = mono_ms() - start;
	assert_true(waited >= 200);
	/* Woken when the holder let go, not at the 10 s timeout. */
	assert_true(waited < 9000);
	assert_int_equal(ledger_commit(ledger, &err), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	ledger_close(ledger);
	err_release(&err);
}

/* A holder killed with the lock held is skipped, at once, not waited out. */
static void
test_dead_holder_is_skipped(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	pid_t pid;
	int64_t start;
	int status;

	assert_int_equal(ledger_create(f->path, &err), 0);
	pid = fork_lock_holder(f->path, -1);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	setenv("DAICHO_BUSY_TIMEOUT", "10s", 1);
	assert_int_equal(ledger_open(f->path, &ledger, &err), 0);
	start = mono_ms();
	assert_int_equal(ledger_begin(ledger, &err), 0);
	/* Skipped, not waited out (the timeout is 10 s; a loaded machine is
	 * slow, never that slow). */
	assert_true(mono_ms() - start < 9000);
	assert_int_equal(ledger_commit(ledger, &err), 0);
	ledger_close(ledger);
	err_release(&err);
}

static void
test_begin_read_snapshot(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	sqlite3 *db;

	assert_int_equal(ledger_create(f->path, &err), 0);
	assert_int_equal(ledger_open(f->path, &ledger, &err), 0);
	assert_int_equal(ledger_begin_read(ledger, &err), 0);
	assert_int_equal(query_int(ledger_db(ledger),
			     "SELECT count(*) FROM agents"),
	    0);
	db = raw_open(f->path);
	assert_int_equal(sqlite3_exec(db,
			     "INSERT INTO agents (name, kind, started_ms, "
			     "last_seen_ms) VALUES ('w', 'script', 1, 1)",
			     NULL, NULL, NULL),
	    SQLITE_OK);
	/* Still the snapshot. */
	assert_int_equal(query_int(ledger_db(ledger),
			     "SELECT count(*) FROM agents"),
	    0);
	assert_int_equal(ledger_commit(ledger, &err), 0);
	assert_int_equal(query_int(ledger_db(ledger),
			     "SELECT count(*) FROM agents"),
	    1);
	sqlite3_close(db);
	ledger_close(ledger);
	err_release(&err);
}

static void
test_stmt_cache_and_errors(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	static const char sql[] = "SELECT count(*) FROM tasks WHERE id > ?";
	struct db_stmt *st = NULL;
	sqlite3_stmt *s1, *s2;
	int rc;

	assert_int_equal(ledger_create(f->path, &err), 0);
	assert_int_equal(ledger_open(f->path, &ledger, &err), 0);
	assert_int_equal(db_prepare(ledger, sql, &st, &err), 0);
	s1 = st->impl;
	assert_non_null(s1);
	assert_int_equal(sqlite3_bind_int64(s1, 1, 5), SQLITE_OK);
	assert_int_equal(sqlite3_step(s1), SQLITE_ROW);
	/* The same literal: the same statement, reset and unbound. */
	assert_int_equal(db_prepare(ledger, sql, &st, &err), 0);
	s2 = st->impl;
	assert_ptr_equal(s1, s2);
	assert_int_equal(sqlite3_stmt_busy(s2), 0);
	{
		char *expanded = sqlite3_expanded_sql(s2);

		assert_string_equal(expanded,
		    "SELECT count(*) FROM tasks WHERE id > NULL");
		sqlite3_free(expanded);
	}
	sqlite3_reset(s2);

	/* A bad statement: the error's code, no statement, and the error. */
	rc = db_prepare(ledger, "SELECT nonsense FROM nowhere", &st, &err);
	assert_int_equal(rc, -(int)err.code);
	assert_null(st);
	assert_true(err.code != ERR_OK);
	assert_one_line(&err);
	err_release(&err);

	/* ledger_exec maps a failure. */
	assert_true(ledger_exec(ledger, "INSERT INTO nowhere VALUES (1)", &err) < 0);
	assert_true(err.code != ERR_OK);
	assert_one_line(&err);
	ledger_close(ledger);
	err_release(&err);
}

/*
 * db_count(): a count keyed by ?1, a query without a parameter (the key
 * is not bound), and a failure: its code, with the count 0.
 */
static void
test_db_count(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;
	int64_t count = -1;
	int rc;

	assert_int_equal(ledger_create(f->path, &err), 0);
	assert_int_equal(ledger_open(f->path, &ledger, &err), 0);
	assert_int_equal(ledger_exec(ledger, "INSERT INTO agents (name, kind,"
	    " state, started_ms, last_seen_ms) VALUES ('a', 'script', 'active',"
	    " 1, 1), ('b', 'script', 'ended', 1, 1), ('c', 'script', 'ended', 1,"
	    " 1)", &err), 0);
	assert_int_equal(db_count(ledger, "SELECT count(*) FROM agents"
	    " WHERE id > ?1", 1, &count, "counting", &err), 0);
	assert_int_equal(count, 2);
	assert_int_equal(db_count(ledger, "SELECT count(*) FROM agents"
	    " WHERE state = 'ended'", 99, &count, "counting", &err), 0);
	assert_int_equal(count, 2);
	count = -1;
	rc = db_count(ledger, "SELECT count(*) FROM nowhere", 1, &count,
	    "counting", &err);
	assert_true(rc < 0);
	assert_int_equal(rc, -(int)err.code);
	assert_int_equal(count, 0);
	assert_one_line(&err);
	ledger_close(ledger);
	err_release(&err);
}

static void
test_error_mapping(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger *ledger = NULL;

	assert_int_equal(ledger_create(f->path, &err), 0);
	assert_int_equal(ledger_open(f->path, &ledger, &err), 0);
	assert_int_equal(ledger_error(ledger, SQLITE_BUSY, &err, "testing"),
	    -ERR_BUSY);
	assert_int_equal(err.code, ERR_BUSY);
	assert_one_line(&err);
	assert_int_equal(ledger_error(ledger, SQLITE_BUSY_SNAPSHOT, &err, "testing"),
	    -ERR_BUSY);
	assert_int_equal(ledger_error(ledger, SQLITE_READONLY, &err, "testing"),
	    -ERR_FAILED);
	assert_int_equal(err.code, ERR_FAILED);
	assert_one_line(&err);
	assert_int_equal(ledger_error(ledger, SQLITE_NOTADB, &err, "testing"),
	    -ERR_FAILED);
	assert_int_equal(err.code, ERR_FAILED);
	assert_one_line(&err);
	ledger_close(ledger);
	err_release(&err);
}

/* ledger_locate */

static void
test_locate_hint_path(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct ledger_hint hint = { f->path, f->dir };
	struct buf path = BUF_INIT;
	bool exists = true;

	setenv("DAICHO_LEDGER", "/somewhere/else.db", 1);
	ledger_locate(&hint, &path, &exists);
	assert_string_equal(path.buf, f->path);
	assert_false(exists);
	assert_int_equal(ledger_create(f->path, &err), 0);
	ledger_locate(&hint, &path, &exists);
	assert_string_equal(path.buf, f->path);
	assert_true(exists);
	buf_release(&path);
	err_release(&err);
}

static void
test_locate_relative_hint(void **state)
{
	struct fixture *f = *state;
	struct ledger_hint hint = { "rel/x.db", f->dir };
	struct buf path = BUF_INIT;
	char cwd[PATH_MAX], want[2 * PATH_MAX];
	bool exists = true;

	/* Relative to the process's cwd: made absolute. */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(want, sizeof(want), "%s/rel/x.db", cwd);
	ledger_locate(&hint, &path, &exists);
	assert_string_equal(path.buf, want);
	assert_false(exists);
	buf_release(&path);
}

static void
test_locate_env(void **state)
{
	struct fixture *f = *state;
	struct ledger_hint hint = { NULL, f->dir };
	struct buf path = BUF_INIT;
	bool exists = true;

	/* A .daicho ledger in cwd would be found, but the variable wins. */
	char dot[PATH_MAX + 32];
	struct err err = ERR_INIT;

	snprintf(dot, sizeof(dot), "%s/.daicho/ledger.db", f->dir);
	assert_int_equal(ledger_create(dot, &err), 0);
	setenv("DAICHO_LEDGER", f->path, 1);
	ledger_locate(&hint, &path, &exists);
	assert_string_equal(path.buf, f->path);
	assert_false(exists);
	unsetenv("DAICHO_LEDGER");
	ledger_locate(&hint, &path, &exists);
	assert_string_equal(path.buf, dot);
	assert_true(exists);
	buf_release(&path);
	err_release(&err);
}

static void
test_locate_upward(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	char deep[PATH_MAX + 16], dot[PATH_MAX + 32], cmd[3 * PATH_MAX];
	struct ledger_hint hint = { NULL, deep };
	struct buf path = BUF_INIT;
	bool exists = false;

	snprintf(deep, sizeof(deep), "%s/a/b/c", f->dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", deep);
	assert_int_equal(system(cmd), 0);
	snprintf(dot, sizeof(dot), "%s/a/.daicho/ledger.db", f->dir);
	assert_int_equal(ledger_create(dot, &err), 0);
	ledger_locate(&hint, &path, &exists);
	assert_string_equal(path.buf, dot);
	assert_true(exists);
	buf_release(&path);
	err_release(&err);
}

static void
test_locate_default_for_init(void **state)
{
	struct fixture *f = *state;
	struct ledger_hint hint = { NULL, f->dir };
	struct buf path = BUF_INIT;
	char want[PATH_MAX + 32];
	bool exists = true;

	snprintf(want, sizeof(want), "%s/.daicho/ledger.db", f->dir);
	ledger_locate(&hint, &path, &exists);
	assert_string_equal(path.buf, want);
	assert_false(exists);
	buf_release(&path);
}

static void
test_locate_git(void **state)
{
	struct fixture *f = *state;
	char cmd[4 * PATH_MAX], sub[PATH_MAX + 16], want[PATH_MAX + 64],
	    wt[PATH_MAX + 16];
	struct ledger_hint hint = { NULL, sub };
	struct buf path = BUF_INIT;
	bool exists = true;

	snprintf(cmd, sizeof(cmd),
	    "cd '%s' && git init -q repo && cd repo && mkdir -p x/y && "
	    "git -c user.name=t -c user.email=t@t commit -q --allow-empty -m i && "
	    "git worktree add -q ../wt 2>/dev/null && mkdir -p ../wt/z",
	    f->dir);
	assert_int_equal(system(cmd), 0);
	snprintf(sub, sizeof(sub), "%s/repo/x/y", f->dir);
	snprintf(want, sizeof(want), "%s/repo/.git/daicho/ledger.db", f->dir);
	/* Even with a .daicho ledger nearer, git wins. */
	{
		struct err err = ERR_INIT;
		char dot[PATH_MAX + 64];

		snprintf(dot, sizeof(dot), "%s/repo/x/.daicho/ledger.db", f->dir);
		assert_int_equal(ledger_create(dot, &err), 0);
		err_release(&err);
	}
	ledger_locate(&hint, &path, &exists);
	assert_string_equal(path.buf, want);
	assert_false(exists);
	/* A linked worktree finds the same ledger. */
	snprintf(wt, sizeof(wt), "%s/wt/z", f->dir);
	hint.cwd = wt;
	ledger_locate(&hint, &path, &exists);
	assert_string_equal(path.buf, want);
	assert_false(exists);
	buf_release(&path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_then_open, setup, teardown),
		cmocka_unit_test(test_schema_version_matches_migrations),
		cmocka_unit_test_setup_teardown(test_wal_is_persistent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_create_returns_1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_migrates_old, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_migrates_tasks_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_refuses_empty_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_begin_as_maps_zero_to_caller, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_not_sqlite, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_short_text_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_other_sqlite_database, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nested_transactions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nested_savepoint_at_first_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_parent_is_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rollback_leaves_no_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_rolls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_begin_is_immediate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_waiter_gets_lock_when_freed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dead_holder_is_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_begin_read_snapshot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stmt_cache_and_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_db_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_mapping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_locate_hint_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_locate_relative_hint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_locate_env, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invariants_are_bugs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_locate_upward, setup, teardown),
		cmocka_unit_test_setup_teardown(test_locate_default_for_init, setup, teardown),
		cmocka_unit_test_setup_teardown(test_locate_git, setup, teardown),
	};

	/* Tests decide where the ledger is; the environment must not. */
	unsetenv("GIT_DIR");
	unsetenv("GIT_COMMON_DIR");
	unsetenv("GIT_WORK_TREE");
	unsetenv("DAICHO_LEDGER");
	return cmocka_run_group_tests_name("ledger", tests, NULL, NULL);
}
