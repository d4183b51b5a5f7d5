/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The ledger: a SQLite file in WAL mode, or a PostgreSQL database that
 * many machines share, each reached through its driver (store/driver.h,
 * chosen by the address); this is the only place that opens and commits
 * it.
 *
 * Writes (told here for SQLite; PostgreSQL's lock is an advisory one taken
 * with the transaction's first statement, docs/design-notes.md):
 * ledger_begin() takes the ledger's write lock and starts a
 * BEGIN IMMEDIATE transaction; the caller re-reads what it decides on, writes,
 * and ends with ledger_commit() or ledger_rollback(). The write lock is a
 * first-come-first-served ticket lock in "<ledger>-lock" (util/filelock.h):
 * waiters sleep in the kernel and only the next in line is woken, where
 * SQLite's own busy handler sleeps with growing back-off and lets a few
 * processes starve the rest. A waiter gives up after the busy timeout
 * ($DAICHO_BUSY_TIMEOUT, default 30s) with ERR_BUSY. A holder killed with
 * kill -9 is skipped by the next in line.
 *
 * Reads need no lock (WAL readers never block writers or each other);
 * ledger_begin_read() gives a consistent snapshot across several queries.
 *
 * Transactions nest: a begin inside an open transaction is a savepoint, its
 * commit releases it and its rollback undoes only what it did; the
 * outermost commit is the one that makes everything durable. So a caller
 * such as the runner can put several core operations in one transaction
 * (one commit instead of several) without the core functions knowing. On
 * SQLite a nested level takes its savepoint just before its first write:
 * one that only reads, or fails before writing, costs none. A
 * write cannot nest inside a read (it would write without the lock). When
 * SQLite rolls the whole transaction back on its own (a full disk, an I/O
 * error), every nested begin and commit after it fails, and so does the
 * outermost commit: nothing of the transaction is written.
 *
 * A caller that nests must treat a core function's error as that function
 * treats it alone. A few commit something and still return an error (a
 * claim refused because the task's attempts are used up records that the
 * task failed): nested, that record stands only if the caller commits.
 */
#ifndef DAICHO_LEDGER_H
#define DAICHO_LEDGER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"

/*
 * The schema this daicho writes: the number of migrations in
 * store/sqlite/schema.c (STORE_SCHEMA_VERSION).
 */
#define LEDGER_SCHEMA_VERSION 14

struct ledger;

/* Where the caller asked for the ledger to be. */
struct ledger_hint {
	const char *path; /* --ledger, or NULL */
	const char *cwd;  /* directory to search from */
};

/*
 * Whether address names a PostgreSQL ledger rather than a SQLite file:
 * a connection URI (postgresql://..., postgres://...) or a libpq
 * connection string naming a service (service=NAME ...).
 */
bool ledger_is_postgresql(const char *address);

/*
 * Whether this program has a PostgreSQL driver: libpq's (daicho-pg and
 * daicho-serve), or the pool's client (the static daicho, which hands a
 * command to daicho-pg when no pool answers: src/main.c).
 */
bool ledger_has_postgresql(void);

/*
 * Whether this program's PostgreSQL driver sends its statements through
 * the pool (the static daicho's), which may not be there: a command it
 * cannot serve is then handed to daicho-pg (src/main.c).
 */
bool ledger_postgresql_pooled(void);

/*
 * With a pooled driver: start a session with the pool for the PostgreSQL
 * ledger at address, for the command about to run. true when one answered
 * (the next ledger_open(address) takes its session); false when none did
 * ($DAICHO_POOL=off, none started, another version) or the driver is not
 * pooled.
 */
bool ledger_pool_attach(const char *address);

/*
 * Should the PostgreSQL connection be lost before the command's first
 * write was answered (the pool died or was stopped), call fn, which may
 * run the command anew elsewhere and returns only when it cannot. Only
 * the pool's client offers this; elsewhere nothing happens.
 */
void ledger_on_lost_early(void (*fn)(void));

/* Whether the ledger is a PostgreSQL one (shared by several machines). */
bool ledger_is_shared(const struct ledger *ledger);

/*
 * On a PostgreSQL ledger: wait at most timeout_ms for another process to
 * commit a change (LISTEN/NOTIFY). Returns 1 when one did, 0 on timeout,
 * or a negative error. A SQLite ledger is watched through its files
 * (util/filewatch.h) instead.
 */
int ledger_wait_change(struct ledger *ledger, int64_t timeout_ms,
    struct err *err);

/*
 * On a PostgreSQL ledger: a descriptor that becomes readable when another
 * process may have committed a change (then ledger_wait_change(ledger, 0)
 * says whether one did), in *fd. Returns 0 or a negative error.
 */
int ledger_change_fd(struct ledger *ledger, int *fd, struct err *err);

/*
 * Decide the ledger path, first match wins: hint->path, $DAICHO_LEDGER,
 * <git common dir>/daicho/ledger.db, an existing .daicho/ledger.db in cwd or
 * above, else (for init) cwd/.daicho/ledger.db. Fills path; sets *exists.
 * A PostgreSQL address (ledger_is_postgresql()) is kept as given.
 */
void ledger_locate(const struct ledger_hint *hint, struct buf *path, bool *exists);

/*
 * The file, beside where the ledger file would be by default, that names a
 * PostgreSQL ledger: where no ledger file is, ledger_locate() takes the
 * address it holds, so that every command in the repository finds the
 * shared ledger without --ledger or $DAICHO_LEDGER.
 */
#define LEDGER_ADDRESS_FILE "ledger.address"

/*
 * Write address to the address file of the default place for cwd (mode
 * 0600: an address may hold a password), named in *file. Returns 0, 1
 * when nothing was written (the file already names it, or a SQLite ledger
 * is at the default place), or a negative error.
 */
int ledger_remember_address(const char *cwd, const char *address,
    struct buf *file, struct err *err);

/*
 * Create an empty ledger at path (and its directory) with the current
 * schema. Returns 0, 1 when a ledger already exists there (it is migrated if
 * old), or a negative error.
 */
int ledger_create(const char *path, struct err *err);

/*
 * Open the existing ledger at path, migrating it forward when its schema is
 * older. On success *out is owned by the caller (ledger_close()).
 */
int ledger_open(const char *path, struct ledger **out, struct err *err);

void ledger_close(struct ledger *ledger);

/*
 * In a child forked by a process that has ledger open, and that does not
 * exec: give up the inherited connection without a word on it, so that
 * it stays the parent's alone (a PostgreSQL connection is a socket: a
 * child holding it open would keep the parent's transaction, and its
 * write lock, alive on the server after the parent died). The child must
 * not use ledger afterwards, nor close it.
 */
void ledger_leave_to_parent(struct ledger *ledger);

struct strlist;

/*
 * Run SQLite's integrity check on the ledger at path, opening it even when
 * a command found it damaged (every other open refuses it then: the first
 * command to meet damage marks the ledger, so that commands that never read
 * the damaged pages stop too). Appends the problems found, the first ten
 * at most, to *problems (none: the ledger is whole, and the mark is
 * removed). Returns 0 when the
 * check ran, whatever it found, or a negative error when it could not.
 */
int ledger_check_integrity(const char *path, struct strlist *problems,
    struct err *err);

const char *ledger_path(const struct ledger *ledger);

/* The version of the SQLite library daicho was built with ("3.40.1"). */
const char *ledger_sqlite_version(void);

/*
 * Whether this process may only read the ledger: SQLite opened it
 * read-only (the caller cannot write the file, or its WAL), or a write
 * was refused as read-only.
 */
bool ledger_read_only(struct ledger *ledger);

int ledger_begin(struct ledger *ledger, struct err *err);

/*
 * Inside a write transaction, make sure its write lock is held now, and
 * clock_now_ms() the time it was taken (on PostgreSQL a transaction's
 * BEGIN and lock otherwise wait for its first statement, and its clock is
 * the database's as last read): for a write whose conditions compare
 * times others compare too. Returns 0 or the mapped error.
 */
int ledger_hold_lock(struct ledger *ledger, struct err *err);

/*
 * ledger_begin() for a change made by *agent, where 0 means "the caller of
 * this connection": after the begin hook ran (which registers a caller new
 * to the ledger, inside this transaction), *agent is the caller's id.
 */
int ledger_begin_as(struct ledger *ledger, int64_t *agent, struct err *err);

/*
 * When the open transaction rolls back, set *id to 0 (and forget the
 * caller): what the begin hook registered in it is gone. Cleared on commit.
 */
void ledger_forget_on_rollback(struct ledger *ledger, int64_t *id);

/* The caller's agent id once known (0 before), set by the agent module. */
void ledger_set_caller(struct ledger *ledger, int64_t agent);
int64_t ledger_caller(const struct ledger *ledger);
/*
 * Say how the changes made on this connection from now on came in (e.g.
 * "web" for the dashboard's actions), or NULL for the command line: every
 * event recorded meanwhile carries it as detail.via. via is copied.
 */
void ledger_set_event_via(struct ledger *ledger, const char *via);
/* The current event_via, or NULL. */
const char *ledger_event_via(const struct ledger *ledger);

/*
 * ledger_begin() for a caller that rolls the whole transaction back when
 * a nested call fails after writing: nested levels then take no
 * savepoints (on SQLite; PostgreSQL's are unchanged). A nested failure
 * before any write (nothing to claim) may still be passed over. Should a
 * level that wrote be rolled back and the transaction go on, its writes
 * cannot be undone alone: the outermost commit then fails (ERR_FAILED)
 * and nothing of the transaction is written. Must be the outermost.
 */
int ledger_begin_all_or_nothing(struct ledger *ledger, struct err *err);
int ledger_begin_read(struct ledger *ledger, struct err *err);
int ledger_commit(struct ledger *ledger, struct err *err);
/*
 * Roll back the innermost open transaction, if any: a nested one to its
 * savepoint; the outermost entirely, dropping the write lock.
 */
void ledger_rollback(struct ledger *ledger);

/*
 * Turn a failed call's result rc into an error about what was being done,
 * in the ledger's driver's words and with the right code: busy → ERR_BUSY,
 * read-only, not a database, constraint. ledger may be NULL (no ledger
 * could be opened). Returns the negative code.
 */
int ledger_error(struct ledger *ledger, int rc, struct err *err, const char *what);

/*
 * A function run at the start of every write transaction (after BEGIN
 * IMMEDIATE), so that work every write must carry, such as the caller's
 * heartbeat, shares the transaction instead of costing one of its own.
 * A failure aborts ledger_begin(). NULL removes it.
 */
typedef int (*ledger_hook_fn)(struct ledger *ledger, void *arg, struct err *err);
void ledger_set_begin_hook(struct ledger *ledger, ledger_hook_fn fn, void *arg);
/*
 * A function run by the outermost ledger_begin() before the write lock is
 * asked for, with the begin hook's arg: reads the begin hook decides on
 * that need not be made with the lock held (whatever they decide, the
 * begin hook's writes must check again as they write). A failure aborts
 * ledger_begin(). Setting the begin hook removes it.
 */
void ledger_set_prepare_hook(struct ledger *ledger, ledger_hook_fn fn);

/*
 * path_project_root() and path_ledger_git_dir() (util/path.h) of the
 * ledger's path, found on first use and kept for the connection's life:
 * a long-lived process (the runner) asks for every task. A PostgreSQL
 * ledger has no path in a repository: its work is the repository around
 * the current directory (this machine's clone).
 */
void ledger_project_root(struct ledger *ledger, struct buf *out);

/*
 * Where this machine keeps what belongs beside the ledger (workers' logs,
 * verification worktrees), appended to out: a SQLite ledger's directory;
 * for a PostgreSQL ledger, <git common dir>/daicho of the repository
 * around the current directory, else <project root>/.daicho.
 */
void ledger_local_dir(struct ledger *ledger, struct buf *out);
int ledger_git_dir(struct ledger *ledger, struct buf *out);

/* The ledger's schema version (0 when it cannot be read). */
int64_t ledger_schema_version(struct ledger *ledger);

/* How many write transactions this connection has committed. */
uint64_t ledger_commit_count(const struct ledger *ledger);

/*
 * Run sql (a constant, no parameters) and put column 0 of its first row in
 * *value (0 when there is no row).
 */
int ledger_query_int(struct ledger *ledger, const char *sql, int64_t *value,
    struct err *err);

/*
 * In the transaction of an import, after rows were inserted with their
 * own ids: make later inserts number past them (PostgreSQL's identity
 * sequences; SQLite needs nothing). Returns 0 or a negative error.
 */
int ledger_after_import(struct ledger *ledger, struct err *err);

/*
 * 0 when this connection may record what the sweep and the lander record
 * (verdicts, audits, the landing lock): always on SQLite; on PostgreSQL, a
 * person's login or the owner's (schema 7, docs/security.md). Else
 * ERR_REFUSED, one line naming what (e.g. "the sweep") and which logins
 * may run it.
 */
int ledger_require_judge(struct ledger *ledger, const char *what,
    struct err *err);

/*
 * On PostgreSQL, whether the ledger's owner may end the sessions of agents'
 * logins that lock a person out (daicho_free_ledger(): pg_signal_backend
 * and pg_read_all_stats, or a superuser): *may. Always true on SQLite.
 */
int ledger_owner_may_free(struct ledger *ledger, bool *may, struct err *err);

/*
 * On PostgreSQL, whether any login may still make temporary objects in the
 * ledger's database (PUBLIC holds TEMPORARY: the database is shared, and its
 * owner is not the ledger's): *may. Always false on SQLite.
 */
int ledger_public_may_temp(struct ledger *ledger, bool *may,
    struct err *err);

/* Run sql (no results) and map failure. */
int ledger_exec(struct ledger *ledger, const char *sql, struct err *err);

#endif
