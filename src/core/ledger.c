/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The ledger (core/ledger.h): choosing its driver by its address, opening
 * and closing it, mapping errors, and where its work is. The other jobs
 * are files of their own (core/ledger_internal.h lists them).
 */
#include "core/ledger_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/path.h"

_Static_assert(LEDGER_SCHEMA_VERSION == STORE_SCHEMA_VERSION,
    "core and the store speak of one schema");

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

uint64_t
ledger_commit_count(const struct ledger *ledger)
{
	return ledger->commits;
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
	return store_postgresql_driver != NULL;
}

bool
ledger_postgresql_pooled(void)
{
	const struct db_driver *d = store_postgresql_driver;

	return d != NULL && d->pooled != NULL && d->pooled();
}

bool
ledger_pool_attach(const char *address)
{
	return ledger_postgresql_pooled() &&
	    store_postgresql_driver->attach(address);
}

void
ledger_on_lost_early(void (*fn)(void))
{
	const struct db_driver *d = store_postgresql_driver;

	if (d != NULL && d->on_lost_early != NULL)
		d->on_lost_early(fn);
}

/*
 * The driver for address, or NULL with err filled: a PostgreSQL address
 * in a program built without that driver (main.c hands such commands to
 * daicho-pg first). The address is not repeated: it may hold a password.
 */
static const struct db_driver *
driver_for(const char *address, struct err *err)
{
	if (!ledger_is_postgresql(address))
		return &store_sqlite_driver;
	if (store_postgresql_driver == NULL)
		err_set(err, ERR_FAILED, "this program has no PostgreSQL driver "
		    "(the ledger address is a PostgreSQL one; run it through "
		    "'daicho', which hands it to daicho-pg, installed next to it)");
	return store_postgresql_driver;
}

/* Open the ledger at address as how says; *created: whether it was made. */
static int
connect(const char *address, bool create, struct ledger **out,
    bool *created, struct err *err)
{
	const struct db_driver *d = driver_for(address, err);
	const struct db_open how = { .create = create,
		.busy_timeout_ms = store_busy_timeout_ms() };
	void *conn = NULL;
	int rc;

	*out = NULL;
	*created = false;
	if (d == NULL)
		return -(int)err->code;
	if ((rc = d->open(address, &how, &conn, created, err)) < 0)
		return rc;
	*out = xcalloc(1, sizeof(**out));
	(*out)->driver = d;
	(*out)->conn = conn;
	(*out)->path = xstrdup(address);
	return 0;
}

int
ledger_create(const char *path, struct err *err)
{
	struct ledger *ledger = NULL;
	bool created = false;
	int rc = connect(path, true, &ledger, &created, err);

	ledger_close(ledger);
	return rc < 0 ? rc : created ? 0 : 1;
}

int
ledger_open(const char *path, struct ledger **out, struct err *err)
{
	bool created;

	return connect(path, false, out, &created, err);
}

/* Without the driver's own check, being able to open it is the check. */
int
ledger_check_integrity(const char *path, struct strlist *problems,
    struct err *err)
{
	const struct db_driver *d = driver_for(path, err);
	const struct db_open how = { .busy_timeout_ms = store_busy_timeout_ms() };
	struct ledger *ledger = NULL;
	int rc;

	if (d == NULL)
		return -(int)err->code;
	if (d->check_integrity != NULL)
		return d->check_integrity(path, &how, problems, err);
	rc = ledger_open(path, &ledger, err);
	ledger_close(ledger);
	return rc;
}

void
ledger_leave_to_parent(struct ledger *ledger)
{
	if (ledger->driver->leave_to_parent != NULL)
		ledger->driver->leave_to_parent(ledger->conn);
}

void
ledger_close(struct ledger *ledger)
{
	if (ledger == NULL)
		return;
	ledger->nesting = ledger->covered = 0; /* a rollback undoes them all */
	ledger_rollback(ledger);
	ledger_trace_lock(ledger);
	for (size_t i = 0; i < ledger->stmt_count; i++)
		ledger->driver->finalize(ledger->stmts[i].stmt.impl);
	ledger->driver->close(ledger->conn);
	free(ledger->project_root);
	free(ledger->git_dir);
	free(ledger->event_via);
	free(ledger->path);
	free(ledger);
}

void *
ledger_conn(struct ledger *ledger)
{
	return ledger->conn;
}

const char *
ledger_path(const struct ledger *ledger)
{
	return ledger->path;
}

bool
ledger_is_shared(const struct ledger *ledger)
{
	return ledger->driver->shared;
}

bool
ledger_read_only(struct ledger *ledger)
{
	return ledger->driver->read_only(ledger->conn);
}

const char *
ledger_sqlite_version(void)
{
	return store_sqlite_version();
}

int
ledger_error(struct ledger *ledger, int rc, struct err *err, const char *what)
{
	if (ledger == NULL)
		return store_sqlite_driver.error(NULL, "ledger", rc, what, err);
	return ledger->driver->error(ledger->conn, ledger->path, rc, what, err);
}

int
ledger_exec(struct ledger *ledger, const char *sql, struct err *err)
{
	int rc = 0;

	/* Taken for a write: see ledger_cover_write(). */
	if (ledger->covered < ledger->nesting)
		rc = ledger_cover_write(ledger);
	if (rc == 0)
		rc = ledger->driver->exec(ledger->conn, sql);
	if (rc != 0)
		return ledger_error(ledger, rc, err, "updating the ledger");
	return 0;
}

/* What a file ledger is watched through instead. */
static int
watched_through_files(struct err *err)
{
	return err_set(err, ERR_FAILED, "internal: a SQLite ledger is watched "
	    "through its files");
}

int
ledger_wait_change(struct ledger *ledger, int64_t timeout_ms, struct err *err)
{
	int rc;

	if (ledger->driver->wait_change == NULL)
		return watched_through_files(err);
	if ((rc = ledger->driver->wait_change(ledger->conn, timeout_ms)) >= 0 &&
	    rc <= 1)
		return rc;
	return ledger_error(ledger, rc, err, "waiting for a change");
}

int
ledger_change_fd(struct ledger *ledger, int *fd, struct err *err)
{
	*fd = -1;
	if (ledger->driver->change_fd == NULL)
		return watched_through_files(err);
	if ((*fd = ledger->driver->change_fd(ledger->conn)) < 0)
		return ledger_error(ledger, DB_RC_ERROR, err, "listening for changes");
	return 0;
}

int
ledger_after_import(struct ledger *ledger, struct err *err)
{
	int rc;

	if (ledger->driver->after_import == NULL)
		return 0;
	if ((rc = ledger->driver->after_import(ledger->conn)) != 0)
		return ledger_error(ledger, rc, err, "numbering after the import");
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

	if (!ledger->driver->shared) {
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

		if (ledger->driver->shared)
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

		if (ledger->driver->shared) {
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
