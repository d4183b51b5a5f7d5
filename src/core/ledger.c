/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The ledger (core/ledger.h): finding it, opening it, transactions, the
 * statement cache and migrations, for both back ends. One file today
 * because those jobs share struct ledger's private state; issue 33 splits
 * it along them, with each engine a driver of its own.
 */
#include "core/ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/db_pg.h"
#include "core/db_sqlite.h"
#include "core/schema.h"
#include "util/alloc.h"
#include "util/bug.h"
#include "util/duration.h"
#include "util/clock.h"
#include "util/sha256.h"
#include "util/filelock.h"
#include "util/path.h"
#include "util/strlist.h"

#define STMT_CACHE_SIZE 256

/*
 * Checkpointing. Most daicho processes live for one command, and the first
 * process to open the ledger after all others closed it rebuilds the WAL
 * index by reading the whole WAL file (and forgets what was checkpointed):
 * a long WAL makes every later command slow (a 1M-task batch left 128 MB,
 * and 174 ms per claim). So whoever finds the WAL file longer than
 * LEDGER_TRUNCATE_BYTES, by its size on disk, truncates it when the ledger
 * is quiet: a process on close, a process on open (a WAL left long by a
 * process killed or busy at close), and a long-lived writer after a commit
 * that left LEDGER_CHECKPOINT_PAGES in the WAL; when the ledger is busy, a
 * passive checkpoint instead keeps the WAL from growing.
 */
#define LEDGER_TRUNCATE_BYTES (512 << 10)
#define LEDGER_CHECKPOINT_PAGES 1000

struct cached_stmt {
	const char *sql;     /* the literal's address is the key */
	struct db_stmt stmt; /* owned */
};

struct ledger {
	sqlite3 *db;                  /* a SQLite ledger's connection, or NULL */
	struct pg_conn *pg;           /* a PostgreSQL ledger's, or NULL */
	bool writing;                 /* the open transaction is a write one */
	char *path;
	struct filelock *lock;        /* "<path>-lock", or NULL (read-only) */
	bool locked;                  /* we hold the write lock */
	bool in_transaction;
	int nesting;                  /* nested levels inside the transaction */
	/*
	 * Nested levels 1..covered have written (SQLite): each has its
	 * savepoint, or none in an all-or-nothing transaction. A level takes
	 * its savepoint only before its first write (ledger_before_step()).
	 */
	int covered;
	bool all_or_nothing;          /* ledger_begin_all_or_nothing() */
	bool doomed;                  /* a level that wrote was rolled back
				       * without a savepoint: no commit */
	int64_t busy_timeout_ms;
	struct cached_stmt stmts[STMT_CACHE_SIZE];
	size_t stmt_count;
	int wal_pages;                /* WAL size after our last commit */
	ledger_hook_fn begin_hook;    /* run in every write transaction */
	ledger_hook_fn prepare_hook;  /* run before its lock is asked for */
	void *begin_hook_arg;
	uint64_t commits;             /* write transactions committed */
	int64_t caller;               /* the caller's agent id, 0 until known */
	char *event_via;              /* detail.via of every event, or NULL */
	int64_t *forget_on_rollback;  /* an id registered in this transaction */
	bool identified;              /* the file is known to be a ledger */
	/* Where the ledger's work is, found once (ledger_project_root()...). */
	char *project_root;
	char *git_dir;                /* NULL until found */
	int git_dir_status;           /* path_ledger_git_dir()'s: 0 or 1 */
	bool write_refused;           /* a write failed: SQLITE_READONLY */
	/* For $DAICHO_TRACE_LOCK: microseconds waited for and holding the lock. */
	int64_t wait_us_max, wait_us_total, hold_us_total, locked_at_us;
	int64_t lock_asked_us;   /* when a PostgreSQL write began (note_pg_lock) */
	int64_t transactions;
};

static int cover_write(struct ledger *ledger);

void
ledger_forget_on_rollback(struct ledger *ledger, int64_t *id)
{
	ledger->forget_on_rollback = id;
}

void
ledger_set_caller(struct ledger *ledger, int64_t agent)
{
	ledger->caller = agent;
}

int64_t
ledger_caller(const struct ledger *ledger)
{
	return ledger->caller;
}

void
ledger_set_event_via(struct ledger *ledger, const char *via)
{
	free(ledger->event_via);
	ledger->event_via = via ? xstrdup(via) : NULL;
}

const char *
ledger_event_via(const struct ledger *ledger)
{
	return ledger->event_via;
}

void
ledger_set_begin_hook(struct ledger *ledger, ledger_hook_fn fn, void *arg)
{
	ledger->begin_hook = fn;
	ledger->begin_hook_arg = arg;
	ledger->prepare_hook = NULL;
}

void
ledger_set_prepare_hook(struct ledger *ledger, ledger_hook_fn fn)
{
	ledger->prepare_hook = fn;
}

int64_t
ledger_schema_version(struct ledger *ledger)
{
	struct err ignored = ERR_INIT;
	int64_t version = 0;

	ledger_query_int(ledger, ledger->pg ? "SELECT max(version) FROM "
	    "daicho_schema" : "PRAGMA user_version", &version, &ignored);
	err_release(&ignored);
	return version;
}

uint64_t
ledger_commit_count(const struct ledger *ledger)
{
	return ledger->commits;
}

int64_t
ledger_busy_timeout_ms(void)
{
	const char *text = getenv("DAICHO_BUSY_TIMEOUT");
	int64_t ms;

	if (text != NULL && duration_parse(text, &ms) == 0)
		return ms;
	return 30000;
}

bool
ledger_is_postgresql(const char *address)
{
	return strncmp(address, "postgresql://", 13) == 0 ||
	    strncmp(address, "postgres://", 11) == 0 ||
	    strncmp(address, "service=", 8) == 0;
}

bool
ledger_has_postgresql(void)
{
	return pg_connect != NULL;
}

/*
 * Refuse a PostgreSQL address in a program built without the driver (main.c
 * hands such commands to daicho-pg first). The address is not repeated: it
 * may hold a password.
 */
static int
refuse_postgresql(struct err *err)
{
	return err_set(err, ERR_FAILED, "this program has no PostgreSQL driver "
	    "(the ledger address is a PostgreSQL one; run it through 'daicho', "
	    "which hands it to daicho-pg, installed next to it)");
}

/*
 * Connect to the PostgreSQL ledger at address (create: make its schema
 * when missing; *created says whether it was made).
 */
static int
connect_postgresql(const char *address, bool create, struct ledger **out,
    bool *created, struct err *err)
{
	struct ledger *ledger;
	struct pg_conn *pg;
	int rc;

	*out = NULL;
	if (!ledger_has_postgresql())
		return refuse_postgresql(err);
	if ((rc = pg_connect(address, create, ledger_busy_timeout_ms(), &pg, created,
	    err)) < 0)
		return rc;
	ledger = xcalloc(1, sizeof(*ledger));
	ledger->pg = pg;
	ledger->path = xstrdup(address);
	ledger->busy_timeout_ms = ledger_busy_timeout_ms();
	ledger->identified = true;
	*out = ledger;
	return 0;
}

bool
ledger_is_shared(const struct ledger *ledger)
{
	return ledger->pg != NULL;
}

int
ledger_wait_change(struct ledger *ledger, int64_t timeout_ms, struct err *err)
{
	int rc;

	if (ledger->pg == NULL)
		return err_set(err, ERR_FAILED, "internal: a SQLite ledger is "
		    "watched through its files");
	if ((rc = pg_wait_change(ledger->pg, timeout_ms)) >= 0 && rc <= 1)
		return rc;
	return ledger_error(ledger, rc, err, "waiting for a change");
}

int
ledger_after_import(struct ledger *ledger, struct err *err)
{
	int rc;

	if (ledger->pg == NULL)
		return 0;
	if ((rc = pg_after_import(ledger->pg)) != 0)
		return ledger_error(ledger, rc, err, "numbering after the import");
	return 0;
}

int
ledger_change_fd(struct ledger *ledger, int *fd, struct err *err)
{
	*fd = -1;
	if (ledger->pg == NULL)
		return err_set(err, ERR_FAILED, "internal: a SQLite ledger is "
		    "watched through its files");
	if ((*fd = pg_change_fd(ledger->pg)) < 0)
		return ledger_error(ledger, PG_RC_ERROR, err, "listening for changes");
	return 0;
}

static void follow_address_file(struct buf *path, bool *exists);

/* Whether path names an address file. */
static bool
ends_with_address_file(const char *path)
{
	size_t len = strlen(path), n = strlen("/" LEDGER_ADDRESS_FILE);

	return len >= n && strcmp(path + len - n, "/" LEDGER_ADDRESS_FILE) == 0;
}

void
ledger_locate(const struct ledger_hint *hint, struct buf *path, bool *exists)
{
	const char *env = getenv("DAICHO_LEDGER");
	struct buf common = BUF_INIT;

	buf_reset(path);
	if (hint->path != NULL && ledger_is_postgresql(hint->path)) {
		buf_adds(path, hint->path);
		*exists = true;
		return;
	} else if (hint->path == NULL && env != NULL && ledger_is_postgresql(env)) {
		buf_adds(path, env);
		*exists = true;
		return;
	} else if (hint->path != NULL) {
		path_add_absolute(path, hint->path);
	} else if (env != NULL && *env != '\0') {
		path_add_absolute(path, env);
	} else if (path_git_common_dir(hint->cwd, &common) == 0) {
		buf_addf(path, "%s/daicho/ledger.db", common.buf);
	} else if (path_find_upward(hint->cwd, ".daicho/ledger.db", path) != 0 &&
	    path_find_upward(hint->cwd, ".daicho/" LEDGER_ADDRESS_FILE,
	    path) != 0) {
		buf_reset(path);
		buf_addf(path, "%s/.daicho/ledger.db", hint->cwd);
	}
	*exists = access(path->buf, F_OK) == 0;
	if (!*exists || ends_with_address_file(path->buf))
		follow_address_file(path, exists);
	buf_release(&common);
}

/*
 * The address file beside the ledger file at path ("<dir>/ledger.db"),
 * named by LEDGER_ADDRESS_FILE, appended to out.
 */
static void
add_address_file(struct buf *out, const char *path)
{
	const char *slash = strrchr(path, '/');

	buf_add(out, path, slash ? (size_t)(slash - path) : 0);
	buf_addf(out, "%s" LEDGER_ADDRESS_FILE, slash ? "/" : "");
}

/*
 * When no ledger file is at path (the default place) but the address file
 * beside it names a PostgreSQL ledger, make path that address.
 */
static void
follow_address_file(struct buf *path, bool *exists)
{
	struct buf file = BUF_INIT, text = BUF_INIT;
	bool named = ends_with_address_file(path->buf);

	if (named)
		buf_adds(&file, path->buf);
	else
		add_address_file(&file, path->buf);
	if (buf_read_file(&text, file.buf) == 0) {
		text.buf[strcspn(text.buf, "\r\n")] = '\0';
		if (ledger_is_postgresql(text.buf)) {
			buf_reset(path);
			buf_adds(path, text.buf);
			*exists = true;
			named = false;
		}
	}
	if (named) {
		/* Not an address: the ledger file's place beside it. */
		buf_reset(path);
		buf_add(path, file.buf, file.len - strlen(LEDGER_ADDRESS_FILE));
		buf_adds(path, "ledger.db");
		*exists = access(path->buf, F_OK) == 0;
	}
	buf_release(&file);
	buf_release(&text);
}

int
ledger_remember_address(const char *cwd, const char *address,
    struct buf *file, struct err *err)
{
	struct ledger_hint hint = { NULL, cwd };
	struct buf place = BUF_INIT;
	bool exists;
	int fd, rc = 0;
	const char *saved = getenv("DAICHO_LEDGER");
	char *env = saved ? xstrdup(saved) : NULL;

	/* Where the ledger would be by default, whatever the environment. */
	unsetenv("DAICHO_LEDGER");
	ledger_locate(&hint, &place, &exists);
	if (env != NULL) {
		setenv("DAICHO_LEDGER", env, 1);
		free(env);
	}
	buf_reset(file);
	if (ledger_is_postgresql(place.buf) && strcmp(place.buf, address) == 0) {
		buf_release(&place);
		return 1; /* already remembered */
	}
	if (exists) {
		buf_release(&place);
		return 1; /* a SQLite ledger is there: leave it */
	}
	add_address_file(file, place.buf);
	buf_release(&place);
	if (path_make_parent_dirs(file->buf, 0755) < 0)
		return err_set(err, ERR_FAILED, "cannot create the directory for %s "
		    "(%s)", file->buf, strerror(errno));
	/* 0600: an address may hold a password. */
	fd = open(file->buf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd < 0 || write(fd, address, strlen(address)) < 0 ||
	    write(fd, "\n", 1) < 0)
		rc = err_set(err, ERR_FAILED, "cannot write %s (%s)", file->buf,
		    strerror(errno));
	if (fd >= 0)
		close(fd);
	return rc;
}

const char *
ledger_path(const struct ledger *ledger)
{
	return ledger->path;
}

sqlite3 *
ledger_db(struct ledger *ledger)
{
	return ledger->db;
}

struct pg_conn *
ledger_pg(struct ledger *ledger)
{
	return ledger->pg;
}

bool
ledger_read_only(struct ledger *ledger)
{
	if (ledger->pg != NULL)
		return false;
	return ledger->write_refused || sqlite3_db_readonly(ledger->db, "main") == 1;
}

/*
 * Damage. SQLite notices a damaged page only when it reads that page, so a
 * command that never reads it (an add) would go on writing to a ledger
 * another command found damaged. The first to meet the damage leaves
 * "<ledger>-damaged" (holding SQLite's message), and every command refuses
 * the ledger while it is there, until 'daicho doctor' finds the ledger
 * whole again (ledger_check_integrity()).
 */
#define DAMAGE_MARK_SUFFIX "-damaged"

/* The error for the damaged ledger at path, SQLite having said detail. */
static int
damage_error(const char *path, const char *detail, struct err *err)
{
	return err_set(err, ERR_FAILED,
	    "the ledger at %s is damaged (%s; stop the agents, run 'daicho "
	    "doctor', then restore it from a backup or rebuild it from 'sqlite3 "
	    "%s .dump' as doctor shows)", path, detail, path);
}

/* Leave the damage mark beside the ledger, saying detail (once). */
static void
mark_damaged(const struct ledger *ledger, const char *detail)
{
	struct buf mark = BUF_INIT;
	int fd;

	if (!ledger->identified)
		return; /* not a ledger: leave nothing beside someone's file */
	buf_addf(&mark, "%s" DAMAGE_MARK_SUFFIX, ledger->path);
	fd = open(mark.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0644);
	if (fd >= 0) {
		buf_reset(&mark);
		buf_addf(&mark, "%s\n", detail);
		(void)!write(fd, mark.buf, mark.len);
		close(fd);
	}
	buf_release(&mark);
}

/* Refuse the ledger at path while it carries the damage mark. */
static int
refuse_marked_damaged(const char *path, struct err *err)
{
	struct buf mark = BUF_INIT, detail = BUF_INIT;
	int rc = 0;

	buf_addf(&mark, "%s" DAMAGE_MARK_SUFFIX, path);
	if (buf_read_file(&detail, mark.buf) == 0) {
		detail.len = strcspn(detail.buf, "\n");
		detail.buf[detail.len] = '\0';
		rc = damage_error(path, detail.len ? detail.buf :
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

/* Whether the last failure on a PostgreSQL ledger was its connection's. */
static bool
connection_lost(const struct ledger *ledger)
{
	return ledger->pg && strncmp(pg_sqlstate(ledger->pg), "08", 2) == 0;
}

/*
 * ledger_error() for a PostgreSQL ledger: rc is a PG_RC_ code, and the
 * connection knows the server's words.
 */
static int
postgresql_error(struct ledger *ledger, int rc, struct err *err,
    const char *what)
{
	const char *detail = pg_errmsg(ledger->pg);

	switch (rc) {
	case PG_RC_BUSY:
		/* A longer wait is no help when the connection is gone. */
		if (connection_lost(ledger))
			return err_set(err, ERR_BUSY, "the connection to the ledger "
			    "was lost while %s (%s); nothing of it was written; "
			    "retry", what, detail);
		return err_set(err, ERR_BUSY, "ledger busy while %s (%s; nothing "
		    "of it was written; retry, or raise DAICHO_BUSY_TIMEOUT)", what,
		    detail);
	case PG_RC_DENIED:
		return err_set(err, ERR_REFUSED, "PostgreSQL refused %s (%s; "
		    "nothing was changed)", what, detail);
	default:
		return err_set(err, ERR_FAILED, "ledger error while %s (%s)", what,
		    detail);
	}
}

int
ledger_error(struct ledger *ledger, int rc, struct err *err, const char *what)
{
	const char *detail;
	const char *path = ledger ? ledger->path : "ledger";

	if (ledger && ledger->pg)
		return postgresql_error(ledger, rc, err, what);
	detail = ledger && ledger->db ? sqlite3_errmsg(ledger->db)
				      : sqlite3_errstr(rc);

	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return err_set(err, ERR_BUSY,
		    "ledger busy while %s (%s; retry, or raise DAICHO_BUSY_TIMEOUT)",
		    what, detail);
	case SQLITE_READONLY:
		if (ledger)
			ledger->write_refused = true;
		return err_set(err, ERR_FAILED,
		    "cannot write the ledger while %s (%s is read-only; fix its "
		    "permissions or use a writable --ledger)", what, path);
	case SQLITE_NOTADB:
		if (ledger && ledger->identified)
			break; /* a ledger, read a moment ago: damaged */
		return err_set(err, ERR_FAILED,
		    "%s is not a daicho ledger (not a SQLite database; point "
		    "--ledger at a ledger, or move the file away and run "
		    "'daicho init'; if it was your ledger, it is damaged: "
		    "restore it from a backup)", path);
	case SQLITE_CORRUPT:
		break;
	case SQLITE_FULL:
		return err_set(err, ERR_FAILED,
		    "disk full while %s (%s; free space and retry)", what, path);
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
	case SQLITE_AUTH:
	case SQLITE_IOERR:
		return err_set(err, ERR_FAILED, "cannot use the ledger %s while %s (%s)",
		    path, what, detail);
	default:
		return err_set(err, ERR_FAILED, "ledger error while %s (%s)", what,
		    detail);
	}
	/* SQLITE_CORRUPT, or SQLITE_NOTADB from a ledger. */
	if (ledger)
		mark_damaged(ledger, detail);
	return damage_error(path, detail, err);
}

int
ledger_exec(struct ledger *ledger, const char *sql, struct err *err)
{
	int rc = SQLITE_OK;

	/* Taken for a write: see ledger_before_step(). */
	if (ledger->covered < ledger->nesting)
		rc = cover_write(ledger);
	if (rc == SQLITE_OK)
		rc = ledger->pg ? pg_exec(ledger->pg, sql)
				: sqlite3_exec(ledger->db, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return ledger_error(ledger, rc, err, "updating the ledger");
	return 0;
}

/*
 * A shared ledger's work is wherever this command runs: the main work tree
 * of the repository around the current directory (each machine has its
 * own clone), else the current directory.
 */
static void
shared_project_root(struct buf *out)
{
	char *cwd = getcwd(NULL, 0);

	if (path_main_work_tree(cwd ? cwd : ".", out) != 0) {
		buf_reset(out);
		buf_adds(out, cwd ? cwd : ".");
	}
	free(cwd);
}

void
ledger_local_dir(struct ledger *ledger, struct buf *out)
{
	const char *slash;

	if (ledger->pg == NULL) {
		slash = strrchr(ledger->path, '/');
		buf_add(out, ledger->path, slash ? (size_t)(slash - ledger->path) : 0);
		if (slash == NULL)
			buf_addch(out, '.');
		return;
	}
	if (ledger_git_dir(ledger, out) == 0 && out->len > 0) {
		buf_adds(out, "/daicho");
	} else {
		buf_reset(out);
		ledger_project_root(ledger, out);
		buf_adds(out, "/.daicho");
	}
}

void
ledger_project_root(struct ledger *ledger, struct buf *out)
{
	if (ledger->project_root == NULL) {
		struct buf root = BUF_INIT;

		if (ledger->pg)
			shared_project_root(&root);
		else
			path_project_root(ledger->path, &root);
		ledger->project_root = buf_detach(&root, NULL);
	}
	buf_adds(out, ledger->project_root);
}

int
ledger_git_dir(struct ledger *ledger, struct buf *out)
{
	if (ledger->git_dir == NULL) {
		struct buf dir = BUF_INIT;

		if (ledger->pg) {
			char *cwd = getcwd(NULL, 0);

			ledger->git_dir_status = path_git_common_dir(cwd ? cwd : ".",
			    &dir) == 0 ? 0 : 1;
			free(cwd);
		} else {
			ledger->git_dir_status = path_ledger_git_dir(ledger->path,
			    &dir);
		}
		ledger->git_dir = buf_detach(&dir, NULL);
	}
	buf_adds(out, ledger->git_dir);
	return ledger->git_dir_status;
}

/* Whether the ledger's WAL file is longer than LEDGER_TRUNCATE_BYTES. */
static bool
wal_is_long(const struct ledger *ledger)
{
	struct buf wal = BUF_INIT;
	struct stat st;
	bool is_long;

	buf_addf(&wal, "%s-wal", ledger->path);
	is_long = stat(wal.buf, &st) == 0 && st.st_size > LEDGER_TRUNCATE_BYTES;
	buf_release(&wal);
	return is_long;
}

/*
 * Checkpoint the whole WAL into the ledger and truncate the WAL file to
 * nothing, when the ledger is quiet: nobody holds the write lock (it is
 * taken without waiting) and no reader still needs the WAL (the
 * checkpoint does not wait for readers either). Returns whether the WAL
 * was truncated. The connection's busy timeout is kept.
 */
static bool
truncate_wal(struct ledger *ledger)
{
	int rc;

	if (ledger->lock == NULL || ledger->in_transaction ||
	    filelock_try(ledger->lock) != 0)
		return false;
	sqlite3_busy_timeout(ledger->db, 0);
	rc = sqlite3_wal_checkpoint_v2(ledger->db, NULL,
	    SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	sqlite3_busy_timeout(ledger->db, (int)ledger->busy_timeout_ms);
	filelock_release(ledger->lock);
	return rc == SQLITE_OK;
}

/* SQLite's WAL hook: remember how big the WAL got; see ledger_commit(). */
static int
note_wal_size(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct ledger *ledger = arg;

	(void)db;
	(void)name;
	ledger->wal_pages = pages;
	return SQLITE_OK;
}

/*
 * For $DAICHO_TRACE_LOCK: a write lock (the file lock, or PostgreSQL's
 * advisory lock) asked for at start was answered at answered (both
 * clock_mono_us()).
 */
static void
note_lock_wait(struct ledger *ledger, int64_t start, int64_t answered)
{
	int64_t waited;

	ledger->transactions++;
	ledger->locked_at_us = answered;
	waited = answered - start;
	ledger->wait_us_total += waited;
	if (waited > ledger->wait_us_max)
		ledger->wait_us_max = waited;
}

/*
 * For $DAICHO_TRACE_LOCK, at the end of a PostgreSQL write transaction:
 * its lock, asked for at ledger->lock_asked_us, was answered with its
 * first statement, and held until now. A transaction that sent nothing
 * took no lock.
 */
static void
note_pg_lock(struct ledger *ledger)
{
	int64_t taken = pg_write_locked_us(ledger->pg);

	if (taken == 0)
		return;
	note_lock_wait(ledger, ledger->lock_asked_us, taken);
	ledger->hold_us_total += clock_mono_us() - taken;
}

/*
 * Take the write lock, waiting at most the busy timeout. Waiters sleep in
 * the kernel and are woken one at a time (see util/filelock.h).
 */
static int
take_write_lock(struct ledger *ledger, struct err *err)
{
	int64_t start = clock_mono_us();
	int rc;

	if (ledger->lock == NULL || ledger->locked)
		return 0;
	rc = filelock_acquire(ledger->lock, ledger->busy_timeout_ms);
	note_lock_wait(ledger, start, clock_mono_us());
	if (rc == 1)
		return err_set(err, ERR_BUSY,
		    "ledger busy (waited %lldms for the write lock; retry, or raise "
		    "DAICHO_BUSY_TIMEOUT)", (long long)ledger->busy_timeout_ms);
	if (rc < 0)
		return err_set(err, ERR_FAILED, "cannot take the ledger's write lock "
		    "(%s)", strerror(errno));
	ledger->locked = true;
	return 0;
}

static void
drop_write_lock(struct ledger *ledger)
{
	if (ledger->locked) {
		filelock_release(ledger->lock);
		ledger->locked = false;
		ledger->hold_us_total += clock_mono_us() - ledger->locked_at_us;
	}
}

/*
 * $DAICHO_TRACE_LOCK=FILE: append one line per connection, for measuring
 * contention: "pid transactions wait_us_max wait_us_total hold_us_total".
 * One short write with O_APPEND, so lines from many processes never mix.
 */
static void
trace_lock(const struct ledger *ledger)
{
	const char *path = getenv("DAICHO_TRACE_LOCK");
	char line[128];
	int fd, n;

	if (path == NULL || *path == '\0' || ledger->transactions == 0)
		return;
	n = snprintf(line, sizeof(line), "%ld %lld %lld %lld %lld\n",
	    (long)getpid(), (long long)ledger->transactions,
	    (long long)ledger->wait_us_max, (long long)ledger->wait_us_total,
	    (long long)ledger->hold_us_total);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		(void)!write(fd, line, (size_t)n);
		close(fd);
	}
}

/*
 * A begin inside an open transaction: a savepoint. A write needs the
 * outer transaction to be a write one (holding the lock).
 */
/*
 * Whether SQLite ended the open transaction on its own: some errors (a full
 * disk, I/O, out of memory, an interrupt) roll back the whole transaction,
 * savepoints and all. Nested levels must then refuse to go on: a savepoint
 * begun now would start a new transaction and its release would commit it.
 */
static bool
aborted(const struct ledger *ledger)
{
	if (ledger->pg)
		return ledger->in_transaction && pg_failed(ledger->pg);
	return ledger->in_transaction && sqlite3_get_autocommit(ledger->db);
}

static int
aborted_error(const struct ledger *ledger, struct err *err)
{
	if (connection_lost(ledger))
		return err_set(err, ERR_BUSY, "the connection to the ledger was "
		    "lost (%s); nothing of the transaction was written; retry",
		    pg_errmsg(ledger->pg));
	return err_set(err, ERR_FAILED, "the transaction was rolled back by an "
	    "earlier error; nothing of it was written");
}

/*
 * Run sql, one statement without parameters (a SAVEPOINT, a COMMIT), as a
 * cached prepared statement: a runner nests several of these in every
 * transaction, and sqlite3_exec() would parse each anew. Returns SQLite's
 * result (SQLITE_OK when done).
 */
static int
run_cached(struct ledger *ledger, const char *sql)
{
	struct err ignored = ERR_INIT;
	struct db_stmt *st = NULL;
	int rc = db_prepare(ledger, sql, &st, &ignored);

	if (ledger->pg)
		return pg_exec(ledger->pg, sql);
	if (st == NULL) {
		err_release(&ignored);
		return sqlite3_exec(ledger->db, sql, NULL, NULL, NULL);
	}
	rc = sqlite3_step(st->lite);
	sqlite3_reset(st->lite);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/*
 * A nested begin. On PostgreSQL it is a savepoint at once; on SQLite the
 * savepoint waits for the level's first write (ledger_before_step()): a
 * level that only reads, or that fails before writing (nothing to claim),
 * needs nothing undone.
 */
static int
begin_nested(struct ledger *ledger, bool write, struct err *err)
{
	int rc;

	if (aborted(ledger))
		return aborted_error(ledger, err);
	if (write && !ledger->writing)
		return err_set(err, ERR_FAILED,
		    "internal: a write nested inside a read transaction");
	if (ledger->pg) {
		rc = run_cached(ledger, "SAVEPOINT nested");
		if (rc != SQLITE_OK)
			return ledger_error(ledger, rc, err,
			    "starting a transaction");
		ledger->covered = ledger->nesting + 1;
	}
	ledger->nesting++;
	return 0;
}

/*
 * Before a write: every open nested level that has not written yet takes
 * its savepoint (none in an all-or-nothing transaction), outermost first.
 * Returns SQLite's result.
 */
static int
cover_write(struct ledger *ledger)
{
	int rc;

	while (!ledger->all_or_nothing && ledger->covered < ledger->nesting) {
		if ((rc = run_cached(ledger, "SAVEPOINT nested")) != SQLITE_OK)
			return rc;
		ledger->covered++;
	}
	ledger->covered = ledger->nesting;
	return SQLITE_OK;
}

int
ledger_before_step(struct ledger *ledger, sqlite3_stmt *stmt)
{
	BUG_ON(ledger->covered > ledger->nesting, "%d nested levels written, "
	    "of %d open", ledger->covered, ledger->nesting);
	if (ledger->covered >= ledger->nesting || sqlite3_stmt_readonly(stmt))
		return SQLITE_OK;
	return cover_write(ledger);
}

/* The end of the innermost nested level: covered shrinks with it. */
static void
end_nested(struct ledger *ledger)
{
	BUG_ON(ledger->nesting <= 0, "ending a nested level where none is open");
	if (ledger->covered >= ledger->nesting)
		ledger->covered = ledger->nesting - 1;
	ledger->nesting--;
}

int
ledger_begin(struct ledger *ledger, struct err *err)
{
	int rc;

	if (ledger->in_transaction)
		return begin_nested(ledger, true, err);
	if (ledger->prepare_hook &&
	    (rc = ledger->prepare_hook(ledger, ledger->begin_hook_arg, err)) < 0)
		return rc;
	if (ledger->pg) {
		/*
		 * BEGIN and the write lock go with the transaction's first
		 * statement: one round trip fewer with the lock held.
		 */
		ledger->lock_asked_us = clock_mono_us();
		if ((rc = pg_begin_write_later(ledger->pg)) != 0)
			return ledger_error(ledger, rc, err, "starting a transaction");
		goto begun;
	}
	if (sqlite3_db_readonly(ledger->db, "main") == 1)
		return err_set(err, ERR_FAILED, "cannot change the ledger (%s is "
		    "read-only for this user: the file, its -wal or -shm, or its "
		    "directory; fix the permissions or use a writable --ledger)",
		    ledger->path);
	if ((rc = take_write_lock(ledger, err)) < 0)
		return rc;
	rc = run_cached(ledger, "BEGIN IMMEDIATE");
	if (rc != SQLITE_OK) {
		drop_write_lock(ledger);
		return ledger_error(ledger, rc, err, "starting a transaction");
	}
begun:
	ledger->in_transaction = true;
	ledger->writing = true;
	if (ledger->begin_hook &&
	    (rc = ledger->begin_hook(ledger, ledger->begin_hook_arg, err)) < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	return 0;
}

int
ledger_hold_lock(struct ledger *ledger, struct err *err)
{
	struct db_stmt *st;

	if (ledger->pg == NULL || pg_write_locked_us(ledger->pg) != 0)
		return 0;
	/* The first statement takes the lock with it, and the clock. */
	if (db_prepare(ledger, "SELECT 1", &st, err) < 0)
		return -(int)err->code;
	return db_step_done(ledger, st, "taking the ledger's write lock", err);
}

int
ledger_begin_all_or_nothing(struct ledger *ledger, struct err *err)
{
	int rc;

	if (ledger->in_transaction)
		return err_set(err, ERR_FAILED, "internal: an all-or-nothing "
		    "transaction must be the outermost");
	if ((rc = ledger_begin(ledger, err)) == 0 && ledger->pg == NULL)
		ledger->all_or_nothing = true;
	return rc;
}

int
ledger_begin_as(struct ledger *ledger, int64_t *agent, struct err *err)
{
	int rc = ledger_begin(ledger, err);

	if (rc == 0 && *agent == 0)
		*agent = ledger->caller;
	return rc;
}

int
ledger_begin_read(struct ledger *ledger, struct err *err)
{
	int rc;

	if (ledger->in_transaction)
		return begin_nested(ledger, false, err);
	rc = ledger->pg ? pg_begin_read(ledger->pg)
			: sqlite3_exec(ledger->db, "BEGIN", NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		return ledger_error(ledger, rc, err, "reading the ledger");
	ledger->in_transaction = true;
	return 0;
}

int
ledger_commit(struct ledger *ledger, struct err *err)
{
	int rc;

	BUG_ON(!ledger->in_transaction, "a commit outside a transaction");
	if (ledger->nesting > 0 && aborted(ledger)) {
		end_nested(ledger);
		return aborted_error(ledger, err);
	}
	if (ledger->nesting > 0) {
		if (ledger->covered >= ledger->nesting && !ledger->all_or_nothing) {
			rc = run_cached(ledger, "RELEASE nested");
			if (rc != SQLITE_OK) {
				ledger_error(ledger, rc, err, "committing");
				ledger_rollback(ledger);
				return -(int)err->code;
			}
		}
		end_nested(ledger);
		return 0;
	}
	if (aborted(ledger)) {
		ledger_rollback(ledger);
		return aborted_error(ledger, err);
	}
	if (ledger->doomed) {
		ledger_rollback(ledger);
		return err_set(err, ERR_FAILED, "internal: a part of an "
		    "all-or-nothing transaction failed after writing, and the "
		    "transaction went on; nothing of it was written");
	}
	rc = ledger->pg ? pg_commit(ledger->pg, ledger->writing)
			: run_cached(ledger, "COMMIT");
	if (rc != SQLITE_OK && connection_lost(ledger)) {
		/* The server may have committed before the answer was lost. */
		err_set(err, ERR_BUSY, "the connection to the ledger was lost while "
		    "committing (%s): the change may or may not have been made; "
		    "look ('daicho ls --mine', 'daicho events') before retrying",
		    pg_errmsg(ledger->pg));
		ledger_rollback(ledger);
		return -(int)err->code;
	}
	if (rc != SQLITE_OK) {
		ledger_error(ledger, rc, err, "committing");
		ledger_rollback(ledger);
		return -(int)err->code;
	}
	ledger->in_transaction = false;
	ledger->forget_on_rollback = NULL;
	ledger->all_or_nothing = false;
	if (ledger->writing)
		ledger->commits++;
	if (ledger->writing && ledger->pg)
		note_pg_lock(ledger);
	ledger->writing = false;
	drop_write_lock(ledger);
	if (ledger->pg)
		return 0;
	/*
	 * Outside the write lock, so that writers never wait for it: a
	 * passive checkpoint copies only what no reader still needs.
	 */
	if (ledger->wal_pages >= LEDGER_CHECKPOINT_PAGES) {
		if (!truncate_wal(ledger))
			sqlite3_wal_checkpoint_v2(ledger->db, NULL,
			    SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		ledger->wal_pages = 0;
	}
	return 0;
}

void
ledger_rollback(struct ledger *ledger)
{
	if (ledger->nesting > 0) {
		if (ledger->covered >= ledger->nesting && ledger->all_or_nothing)
			ledger->doomed = true;
		else if (ledger->covered >= ledger->nesting && !aborted(ledger)) {
			run_cached(ledger, "ROLLBACK TO nested");
			run_cached(ledger, "RELEASE nested");
		}
		end_nested(ledger);
		return;
	}
	if (ledger->in_transaction && ledger->pg) {
		pg_rollback(ledger->pg);
		if (ledger->writing)
			note_pg_lock(ledger);
	} else if (ledger->in_transaction && !sqlite3_get_autocommit(ledger->db))
		sqlite3_exec(ledger->db, "ROLLBACK", NULL, NULL, NULL);
	if (ledger->in_transaction && ledger->forget_on_rollback) {
		*ledger->forget_on_rollback = 0;
		ledger->caller = 0;
	}
	ledger->forget_on_rollback = NULL;
	ledger->in_transaction = false;
	ledger->writing = false;
	ledger->all_or_nothing = ledger->doomed = false;
	drop_write_lock(ledger);
}

int
db_prepare(struct ledger *ledger, const char *sql, struct db_stmt **out,
    struct err *err)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	*out = NULL;
	for (size_t i = 0; i < ledger->stmt_count; i++) {
		if (ledger->stmts[i].sql == sql && ledger->pg) {
			pg_stmt_reset(ledger->stmts[i].stmt.pg);
			pg_stmt_clear_bindings(ledger->stmts[i].stmt.pg);
			*out = &ledger->stmts[i].stmt;
			return 0;
		}
		if (ledger->stmts[i].sql == sql) {
			stmt = ledger->stmts[i].stmt.lite;
			sqlite3_reset(stmt);
			sqlite3_clear_bindings(stmt);
			*out = &ledger->stmts[i].stmt;
			return 0;
		}
	}
	if (ledger->pg && ledger->stmt_count < STMT_CACHE_SIZE) {
		struct db_stmt *st = &ledger->stmts[ledger->stmt_count].stmt;

		ledger->stmts[ledger->stmt_count++].sql = sql;
		st->lite = NULL;
		st->pg = pg_stmt_new(ledger->pg, sql);
		st->cached = true;
		*out = st;
		return 0;
	}
	rc = ledger->pg ? SQLITE_FULL : sqlite3_prepare_v3(ledger->db, sql, -1,
	    SQLITE_PREPARE_PERSISTENT, &stmt, NULL);
	if (rc == SQLITE_FULL && ledger->pg)
		return err_set(err, ERR_FAILED,
		    "internal: statement cache full");
	if (rc != SQLITE_OK)
		return ledger_error(ledger, rc, err, "preparing a query");
	if (ledger->stmt_count == STMT_CACHE_SIZE) {
		/* Every statement is a literal in core/: raise the size. */
		sqlite3_finalize(stmt);
		return err_set(err, ERR_FAILED,
		    "internal: statement cache full");
	}
	ledger->stmts[ledger->stmt_count].sql = sql;
	ledger->stmts[ledger->stmt_count].stmt.lite = stmt;
	ledger->stmts[ledger->stmt_count].stmt.pg = NULL;
	ledger->stmts[ledger->stmt_count].stmt.ledger = ledger;
	ledger->stmts[ledger->stmt_count].stmt.cached = true;
	*out = &ledger->stmts[ledger->stmt_count++].stmt;
	return 0;
}

int
ledger_owner_may_free(struct ledger *ledger, bool *may, struct err *err)
{
	int64_t value = 1;
	int rc = 0;

	if (ledger->pg)
		rc = ledger_query_int(ledger, "SELECT CASE WHEN pg_has_role("
		    "c.relowner, 'pg_signal_backend', 'MEMBER') AND pg_has_role("
		    "c.relowner, 'pg_read_all_stats', 'MEMBER') THEN 1 ELSE 0 END"
		    " FROM pg_class c WHERE c.oid = CAST('daicho_schema' AS"
		    " regclass)", &value, err);
	*may = value != 0;
	return rc;
}

const char *
ledger_sqlite_version(void)
{
	return sqlite3_libversion();
}

int
ledger_public_may_temp(struct ledger *ledger, bool *may, struct err *err)
{
	int64_t value = 0;
	int rc = 0;

	if (ledger->pg)
		rc = ledger_query_int(ledger, "SELECT CASE WHEN "
		    "has_database_privilege('public', current_database(), "
		    "'TEMPORARY') THEN 1 ELSE 0 END", &value, err);
	*may = value != 0;
	return rc;
}

int
ledger_require_judge(struct ledger *ledger, const char *what,
    struct err *err)
{
	int64_t person = 0;
	int rc;

	if (!ledger->pg)
		return 0;
	if ((rc = ledger_query_int(ledger, "SELECT CASE WHEN daicho_is_human()"
	    " THEN 1 ELSE 0 END", &person, err)) < 0)
		return rc;
	if (person)
		return 0;
	return err_set(err, ERR_REFUSED, "%s is the judge's: on this "
	    "PostgreSQL ledger it runs on a person's login (daicho_human) or "
	    "the owner's, not an agent's (docs/security.md, 'The PostgreSQL "
	    "boundary')", what);
}

int
ledger_query_int(struct ledger *ledger, const char *sql, int64_t *value,
    struct err *err)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	*value = 0;
	if (ledger->pg) {
		struct db_stmt *st = NULL;

		if ((rc = db_prepare_once(ledger, sql, &st, err)) < 0)
			return rc;
		rc = db_step_int(ledger, st, value, NULL, "reading the ledger", err);
		db_finalize(st);
		return rc;
	}
	rc = sqlite3_prepare_v2(ledger->db, sql, -1, &stmt, NULL);
	if (rc == SQLITE_OK)
		rc = ledger_before_step(ledger, stmt);
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
		return ledger_error(ledger, rc, err, "reading the ledger");
	return 0;
}

/*
 * Refuse a file that is not a daicho ledger before anything touches it:
 * another application's database, or one with tables of its own. An empty
 * database is a ledger to be only when creating. Fills *version.
 */
static int
identify(struct ledger *ledger, bool create, int64_t *version, struct err *err)
{
	int64_t app_id = 0, tables = 0;
	int rc;

	if ((rc = ledger_query_int(ledger, "PRAGMA user_version", version, err)) < 0 ||
	    (rc = ledger_query_int(ledger, "PRAGMA application_id", &app_id, err)) < 0)
		return rc;
	if (app_id != 0 && app_id != SCHEMA_APPLICATION_ID)
		return err_set(err, ERR_FAILED,
		    "%s is not a daicho ledger (it is another application's SQLite "
		    "database; point --ledger elsewhere)", ledger->path);
	if (*version > (int64_t)schema_migration_count)
		return err_set(err, ERR_FAILED,
		    "ledger %s has schema version %lld, newer than this daicho "
		    "understands (%zu; upgrade daicho)", ledger->path,
		    (long long)*version, schema_migration_count);
	if (*version > 0)
		return 0;
	if ((rc = ledger_query_int(ledger, "SELECT count(*) FROM sqlite_schema", &tables,
		 err)) < 0)
		return rc;
	if (tables > 0)
		return err_set(err, ERR_FAILED,
		    "%s is not a daicho ledger (a SQLite database with other "
		    "tables; point --ledger elsewhere)", ledger->path);
	if (!create)
		return err_set(err, ERR_FAILED,
		    "%s is an empty file, not a ledger yet (run 'daicho init' to "
		    "make it one)", ledger->path);
	return 0;
}

/* migrate()'s transaction. */
static int
migrate_locked(struct ledger *ledger, struct err *err)
{
	int64_t version = 0;
	int rc;

	if ((rc = ledger_begin(ledger, err)) < 0)
		return rc;
	/* Re-read under the lock: another process may have migrated. */
	if ((rc = ledger_query_int(ledger, "PRAGMA user_version", &version, err)) < 0)
		goto fail;
	for (int64_t v = version; v < (int64_t)schema_migration_count; v++) {
		if ((rc = ledger_exec(ledger, schema_migrations[v], err)) < 0)
			goto fail;
	}
	{
		struct buf sql = BUF_INIT;

		buf_addf(&sql, "PRAGMA user_version = %zu; PRAGMA application_id = %d",
		    schema_migration_count, SCHEMA_APPLICATION_ID);
		rc = ledger_exec(ledger, sql.buf, err);
		buf_release(&sql);
		if (rc < 0)
			goto fail;
	}
	return ledger_commit(ledger, err);
fail:
	ledger_rollback(ledger);
	return rc;
}

/*
 * Apply the migrations the ledger has not seen, in one transaction, with
 * foreign keys off (a migration may rebuild a table that others refer to:
 * SQLite's procedure for that needs them off, and the pragma is a no-op
 * inside a transaction). They are on again when this returns, whatever
 * the outcome.
 */
static int
migrate(struct ledger *ledger, int64_t version, struct err *err)
{
	int rc;

	if (version >= (int64_t)schema_migration_count)
		return 0;
	sqlite3_db_config(ledger->db, SQLITE_DBCONFIG_ENABLE_FKEY, 0, NULL);
	rc = migrate_locked(ledger, err);
	sqlite3_db_config(ledger->db, SQLITE_DBCONFIG_ENABLE_FKEY, 1, NULL);
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
 * measure on. Fails harmlessly
 * (SQLITE_MISUSE) when something already used SQLite in this process; then
 * the defaults stay.
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
		"-lock", DAMAGE_MARK_SUFFIX };
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

/*
 * Open the connection to name (a path, or a URI with SQLITE_OPEN_URI) with
 * flags, and configure it.
 */
static int
open_connection(struct ledger *ledger, const char *name, int flags,
    struct err *err)
{
	int rc = sqlite3_open_v2(name, &ledger->db, flags, NULL);

	if (rc != SQLITE_OK)
		return ledger_error(ledger, rc, err, "opening it");
	sqlite3_extended_result_codes(ledger->db, 1);
	/*
	 * Most daicho processes live for one command. Closing the last
	 * connection would checkpoint and delete the WAL, with fsyncs, on
	 * every command; truncate_wal() does it only when it is worth it.
	 */
	sqlite3_db_config(ledger->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	/* PRAGMA foreign_keys = ON, without preparing a statement. */
	sqlite3_db_config(ledger->db, SQLITE_DBCONFIG_ENABLE_FKEY, 1, NULL);
	/* Replaces automatic checkpoints, which would run inside the lock. */
	sqlite3_wal_hook(ledger->db, note_wal_size, ledger);
	sqlite3_busy_timeout(ledger->db, (int)ledger->busy_timeout_ms);
	sqlite3_create_function_v2(ledger->db, "daicho_sha256", 1,
	    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_sha256, NULL, NULL,
	    NULL);
	return 0;
}

static int reopen_immutable(struct ledger *ledger, const char *path,
    struct err *err);

/*
 * After the first read of the ledger failed with rc (err filled): when
 * that is only because SQLite cannot make the WAL's index (<ledger>-shm)
 * for a caller who may not write beside the ledger, and no WAL exists, the
 * ledger file alone holds every commit: reopen it with reopen_immutable()
 * and return 0. A WAL without an index that SQLite can use cannot be read
 * (the file alone would be out of date): say so. Else return rc as it is.
 */
static int
read_only_fallback(struct ledger *ledger, const char *open_path, int rc,
    struct err *err)
{
	int code = sqlite3_extended_errcode(ledger->db);
	struct buf wal = BUF_INIT;
	struct stat st;
	bool has_wal;

	if (code != SQLITE_READONLY_DIRECTORY && code != SQLITE_READONLY_CANTINIT &&
	    code != SQLITE_CANTOPEN)
		return rc;
	buf_addf(&wal, "%s-wal", ledger->path);
	has_wal = lstat(wal.buf, &st) == 0;
	buf_release(&wal);
	if (has_wal && code == SQLITE_CANTOPEN)
		return err_set(err, ERR_FAILED, "cannot read the ledger at %s (its "
		    "-wal holds changes, and this user can neither open nor create "
		    "its -shm; have the ledger's owner run any daicho command on it, "
		    "or make its directory writable)", ledger->path);
	if (has_wal || code == SQLITE_CANTOPEN)
		return rc;
	err_release(err);
	*err = (struct err)ERR_INIT;
	return reopen_immutable(ledger, open_path, err);
}

/*
 * Reopen the ledger at path read-only as an immutable file: SQLite then
 * needs neither a -shm nor locks, which a caller who can only read the
 * directory cannot make. Reads see the file as it is; a writer that
 * starts meanwhile writes to a new WAL, which this connection does not see
 * (its commits show from the next command on).
 */
static int
reopen_immutable(struct ledger *ledger, const char *path, struct err *err)
{
	struct buf uri = BUF_INIT;
	int rc;

	sqlite3_close(ledger->db);
	ledger->db = NULL;
	buf_adds(&uri, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p))
			buf_addch(&uri, (char)*p);
		else
			buf_addf(&uri, "%%%02X", *p);
	}
	buf_adds(&uri, "?immutable=1");
	rc = open_connection(ledger, uri.buf, SQLITE_OPEN_READONLY |
	    SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, err);
	buf_release(&uri);
	return rc;
}

/*
 * Open path (creating it when create is set) and configure the connection.
 * A ledger marked damaged is refused unless despite_damage is set.
 */
static int
connect(const char *path, bool create, bool despite_damage, struct ledger **out,
    struct err *err)
{
	struct ledger *ledger = xcalloc(1, sizeof(*ledger));
	struct buf lock_path = BUF_INIT, open_path = BUF_INIT;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
		    SQLITE_OPEN_NOFOLLOW | (create ? SQLITE_OPEN_CREATE : 0);
	int64_t version = 0;
	int rc;

	configure_sqlite();
	ledger->path = xstrdup(path);
	if (!despite_damage && (rc = refuse_marked_damaged(path, err)) < 0)
		goto fail;
	ledger->busy_timeout_ms = ledger_busy_timeout_ms();
	/*
	 * SQLITE_OPEN_NOFOLLOW refuses a link anywhere in the path: give it
	 * the directory resolved, so that only a link at the ledger itself
	 * is refused (SQLite resolved the directory this way before too).
	 */
	if (path_add_resolved_dir(&open_path, path) < 0) {
		buf_reset(&open_path);
		buf_adds(&open_path, path);
	}
	if ((rc = open_connection(ledger, open_path.buf, flags, err)) < 0)
		goto fail;
	rc = identify(ledger, create, &version, err);
	if (rc < 0 && !create &&
	    (rc = read_only_fallback(ledger, open_path.buf, rc, err)) == 0)
		rc = identify(ledger, create, &version, err);
	if (rc < 0)
		goto fail;
	ledger->identified = true;
	/* Only for a ledger: a refused file gets no lock file beside it. A
	 * read-only place gets none either; writes fail there anyway. */
	buf_addf(&lock_path, "%s-lock", path);
	if (filelock_open(lock_path.buf, &ledger->lock) < 0) {
		ledger->lock = NULL;
		if (errno == ELOOP) {
			rc = symlink_error(lock_path.buf, err);
			buf_release(&lock_path);
			goto fail;
		}
	}
	buf_release(&lock_path);
	/*
	 * WAL for concurrent readers (persistent: set once, when the ledger is
	 * made); NORMAL sync is durable across process crashes (a power loss
	 * may lose the last commits, never corrupt).
	 */
	rc = sqlite3_exec(ledger->db, version == 0 ?
	    "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;" :
	    "PRAGMA synchronous = NORMAL;", NULL, NULL, NULL);
	if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_READONLY) {
		rc = ledger_error(ledger, rc, err, "opening it");
		goto fail;
	}
	if ((rc = migrate(ledger, version, err)) < 0)
		goto fail;
	if (wal_is_long(ledger))
		truncate_wal(ledger);
	buf_release(&open_path);
	*out = ledger;
	return 0;
fail:
	buf_release(&open_path);
	ledger_close(ledger);
	return rc;
}

int
ledger_create(const char *path, struct err *err)
{
	struct ledger *ledger = NULL;
	struct stat st;
	bool existed = stat(path, &st) == 0 && st.st_size > 0;
	int rc;

	if (ledger_is_postgresql(path)) {
		bool created = false;

		rc = connect_postgresql(path, true, &ledger, &created, err);
		ledger_close(ledger);
		return rc < 0 ? rc : created ? 0 : 1;
	}
	if ((rc = refuse_symlinks(path, err)) < 0)
		return rc;
	if (access(path, F_OK) != 0 && path_make_parent_dirs(path, 0755) < 0)
		return err_set(err, ERR_FAILED, "cannot create the directory for %s (%s)",
		    path, strerror(errno));
	rc = connect(path, true, false, &ledger, err);
	ledger_close(ledger);
	if (rc < 0)
		return rc;
	return existed ? 1 : 0;
}

int
ledger_open(const char *path, struct ledger **out, struct err *err)
{
	int rc;

	if (ledger_is_postgresql(path)) {
		bool created;

		return connect_postgresql(path, false, out, &created, err);
	}
	if ((rc = refuse_symlinks(path, err)) < 0)
		return rc;
	if (access(path, F_OK) != 0)
		return err_set(err, ERR_FAILED,
		    "no ledger at %s (run 'daicho init' to create one, or point "
		    "--ledger or DAICHO_LEDGER at an existing one)", path);
	return connect(path, false, false, out, err);
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

int
ledger_check_integrity(const char *path, struct strlist *problems,
    struct err *err)
{
	struct ledger *ledger = NULL;
	sqlite3_stmt *st = NULL;
	int rc;

	if (ledger_is_postgresql(path)) {
		/* PostgreSQL checks its own pages; being able to connect and
		 * read the schema is what daicho can check. */
		bool created;

		rc = connect_postgresql(path, false, &ledger, &created, err);
		ledger_close(ledger);
		return rc;
	}
	if ((rc = refuse_symlinks(path, err)) < 0)
		return rc;
	if (access(path, F_OK) != 0)
		return err_set(err, ERR_FAILED, "no ledger at %s (run 'daicho init')",
		    path);
	if ((rc = connect(path, false, true, &ledger, err)) < 0)
		return rc;
	rc = sqlite3_prepare_v2(ledger->db, "PRAGMA integrity_check(10)", -1, &st,
	    NULL);
	if (rc == SQLITE_OK) {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			add_problem_lines(problems,
			    (const char *)sqlite3_column_text(st, 0));
	}
	/* Damage that stops the check itself is one more problem. */
	if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB) {
		strlist_add(problems, sqlite3_errmsg(ledger->db));
		rc = SQLITE_DONE;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_OK) {
		rc = ledger_error(ledger, rc, err, "checking the ledger");
	} else {
		rc = 0;
		if (problems->count == 0) {
			struct buf mark = BUF_INIT;

			buf_addf(&mark, "%s" DAMAGE_MARK_SUFFIX, path);
			unlink(mark.buf);
			buf_release(&mark);
		} else {
			mark_damaged(ledger, problems->items[0]);
		}
	}
	ledger_close(ledger);
	return rc;
}

void
ledger_leave_to_parent(struct ledger *ledger)
{
	if (ledger->pg)
		pg_leave_to_parent(ledger->pg);
}

void
ledger_close(struct ledger *ledger)
{
	if (ledger == NULL)
		return;
	ledger->nesting = ledger->covered = 0; /* a ROLLBACK undoes them all */
	ledger_rollback(ledger);
	if (ledger->db && ledger->identified && wal_is_long(ledger))
		truncate_wal(ledger);
	trace_lock(ledger);
	for (size_t i = 0; i < ledger->stmt_count; i++) {
		sqlite3_finalize(ledger->stmts[i].stmt.lite);
		if (ledger->stmts[i].stmt.pg)
			pg_stmt_free(ledger->stmts[i].stmt.pg);
	}
	if (ledger->pg)
		pg_disconnect(ledger->pg);
	if (ledger->db)
		sqlite3_close(ledger->db);
	filelock_close(ledger->lock);
	free(ledger->project_root);
	free(ledger->git_dir);
	free(ledger->event_via);
	free(ledger->path);
	free(ledger);
}
