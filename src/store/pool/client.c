/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * PostgreSQL's calls (store/pg/pg.h) in the static daicho: the same calls as
 * store/pg/libpq.c, each sent to the pool (pool/pool.h) and run there on
 * the connection this process holds for its life. Results come back whole
 * and are stepped through here. The clock follows the database's as with
 * libpq: the pool hands back its time with every write BEGIN.
 */
#include "store/pool/pool.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/version.h"
#include "store/pg/pg.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/path.h"
#include "util/sqldialect.h"
#include "util/wire.h"


struct pg_conn {
	int fd;                  /* the session's socket; -1 when lost */
	char *address;
	int64_t busy_timeout_ms;
	char sqlstate[6];
	struct buf message;      /* the last failure, one line */
	int64_t changes;
	bool failed;             /* the pool said the transaction failed */
	bool in_transaction;     /* the server has one open for this session */
	int begin;               /* one to begin with the next request: 0, or
				  * POOL_BEGIN_WRITE, POOL_BEGIN_READ */
	bool committing;         /* a COMMIT is sent: its outcome is the server's */
	struct wire_msg request, reply;
	struct buf later;        /* requests sent with the next: POOL_STEP_LATER
				  * writes inside a transaction, or, outside
				  * one, the read sent ahead alone */
	struct pg_stmt *ahead;   /* that read, whose reply comes first
				  * (pg_stmt_step_ahead()); NULL: none */
	int64_t locked_us;       /* when the open write transaction began on
				  * the server (clock_mono_us()); 0: not yet */
};

struct param {
	enum pool_value type;
	int64_t i;
	double d;
	const char *data;
	size_t len;
	char *owned;
};

struct cell {
	enum db_type type;
	const char *data;        /* NUL-terminated, in result; NULL for NULL */
	size_t len;
};

struct pg_stmt {
	struct pg_conn *pg;
	char *sql;               /* SQLite's dialect: the pool translates */
	int nparams;
	struct param *params;
	bool ran;
	struct wire_msg result;
	int ncolumns;
	const char **names, **decltypes;
	struct cell *cells;      /* ncolumns per row */
	size_t nrows, cells_alloc;
	long row;                /* the current row; -1 before the first */
};

/*
 * How long a pool is given to answer a hello: the busy timeout, within
 * these bounds (it may be making a connection; a frozen one must not keep
 * commands long from connecting directly).
 */
#define HELLO_TIMEOUT_MIN_MS 1000
#define HELLO_TIMEOUT_MAX_MS 5000

/* The session pg_attach() opened, for the first pg_connect(). */
static struct pg_conn *attached;

/*
 * Whether a write transaction of this command has begun on the server
 * (reads before it change nothing, and run again harmlessly).
 */
static bool write_begun;

/* pool_on_lost_early()'s function, or NULL. */
static void (*lost_early)(void);

void
pg_on_lost_early(void (*fn)(void))
{
	lost_early = fn;
}

/* Record a failure of ours (not the server's) on pg; PG_RC_ code. */
static int
fail(struct pg_conn *pg, int rc, const char *sqlstate, const char *what)
{
	snprintf(pg->sqlstate, sizeof(pg->sqlstate), "%s", sqlstate);
	buf_reset(&pg->message);
	buf_adds(&pg->message, what);
	return rc;
}

/* The session is gone (the pool stopped or was killed). */
static int
lose(struct pg_conn *pg)
{
	if (pg->fd >= 0)
		close(pg->fd);
	pg->fd = -1;
	buf_reset(&pg->later);
	pg->ahead = NULL;
	if (pg->in_transaction)
		pg->failed = true;
	/* A COMMIT sent may have been made: the caller says so. */
	if (pg->in_transaction && !pg->committing)
		return fail(pg, PG_RC_BUSY, "08006", "lost the connection to the "
		    "daicho pool (stopped or killed); nothing of the open "
		    "transaction was kept");
	return fail(pg, PG_RC_BUSY, "08006", "lost the connection to the daicho "
	    "pool (stopped or killed)");
}

/*
 * $DAICHO_TRACE_POOL=FILE: append "pid outcome" for each session asked of
 * a pool: served, none (no pool listens), silent (it did not answer the
 * hello in time), gone (it closed the connection first: stopping, or
 * killed), refused. Tests read it to see how a command was served, where
 * a clock would only guess.
 */
static void
trace_session(const char *outcome)
{
	char line[64];
	int n;

	if (getenv("DAICHO_TRACE_POOL") == NULL)
		return;
	n = snprintf(line, sizeof(line), "%ld %s\n", (long)getpid(), outcome);
	path_trace_line("DAICHO_TRACE_POOL", line, (size_t)n);
}

/* Dial the pool for pg->address and say hello; 0 or a PG_RC_ code. */
static int
open_session(struct pg_conn *pg)
{
	struct buf path = BUF_INIT;
	struct err err = ERR_INIT;
	struct pool_head head;
	int rc;

	if (pool_socket_path(pg->address, false, &path, &err) < 0 ||
	    (pg->fd = pool_dial(path.buf)) < 0) {
		buf_release(&path);
		err_release(&err);
		pg->fd = -1;
		trace_session("none");
		return fail(pg, PG_RC_BUSY, "08001", "no daicho pool answers for "
		    "this ledger");
	}
	buf_release(&path);
	wire_begin(&pg->request, POOL_HELLO);
	wire_put_i64(&pg->request, POOL_PROTOCOL);
	wire_put_str(&pg->request, DAICHO_VERSION);
	wire_put_str(&pg->request, pg->address);
	wire_put_i64(&pg->request, pg->busy_timeout_ms);
	/*
	 * A pool that does not answer within the busy timeout (a second at
	 * least: it may be making a connection) is no pool: the command
	 * connects directly. Nothing has run yet.
	 */
	if (wire_send(pg->fd, &pg->request) < 0) {
		trace_session("gone");
		return lose(pg);
	}
	if (!pool_wait_answer(pg->fd, pg->busy_timeout_ms < HELLO_TIMEOUT_MIN_MS
	    ? HELLO_TIMEOUT_MIN_MS : pg->busy_timeout_ms > HELLO_TIMEOUT_MAX_MS
	    ? HELLO_TIMEOUT_MAX_MS : pg->busy_timeout_ms)) {
		trace_session("silent");
		return lose(pg);
	}
	if (wire_recv(pg->fd, &pg->reply) != 1 ||
	    wire_kind(&pg->reply) != POOL_REPLY) {
		trace_session("gone");
		return lose(pg);
	}
	pool_get_head(&pg->reply, &head);
	if (wire_bad(&pg->reply)) {
		trace_session("gone");
		return lose(pg);
	}
	clock_set_offset_ms(head.clock_offset_ms);
	if (head.rc != 0) {
		trace_session("refused");
		rc = fail(pg, head.rc, head.sqlstate ? head.sqlstate : "08001",
		    head.message ? head.message : "the pool refused the session");
		close(pg->fd);
		pg->fd = -1;
		return rc;
	}
	trace_session("served");
	return 0;
}

/* Start building a request of kind, with the transaction to begin first. */
static void
request(struct pg_conn *pg, int kind)
{
	wire_begin(&pg->request, kind);
	wire_put_i64(&pg->request, pg->begin);
}

static int read_rows(struct pg_stmt *st);

/*
 * Read the reply to pg->ahead, sent before the request just sent, into
 * that statement: its rows, or, when it failed, nothing: it then runs
 * again at its first step, where it would have run without the ahead (a
 * read changes nothing, so running it twice is harmless). 0, or -1 when
 * the session is no longer to be trusted.
 */
static int
take_ahead(struct pg_conn *pg)
{
	struct pg_stmt *st = pg->ahead;
	struct pool_head head;

	pg->ahead = NULL;
	if (wire_recv(pg->fd, &st->result) != 1 ||
	    wire_kind(&st->result) != POOL_REPLY)
		return -1;
	pool_get_head(&st->result, &head);
	if (wire_bad(&st->result))
		return -1;
	if (head.rc != 0) {
		if (getenv("DAICHO_PG_TRACE") != NULL)
			fprintf(stderr, "daicho (pool): %s: %s (sent ahead; runs "
			    "again)\n", head.message ? head.message : "failed",
			    st->sql);
		return 0;
	}
	clock_set_offset_ms(head.clock_offset_ms);
	if (read_rows(st) != 0)
		return -1;
	st->ran = true;
	st->row = -1;
	return 0;
}

/*
 * Take back st's request sent ahead, if it is still waiting to go. It is
 * then all of pg->later: a read goes ahead only when nothing else waits,
 * and nothing is queued behind it outside a transaction.
 */
static void
recall_ahead(struct pg_stmt *st)
{
	if (st->pg->ahead == st) {
		buf_reset(&st->pg->later);
		st->pg->ahead = NULL;
	}
}

/* Send pg->request and read its reply into pg->reply; rc as call(). */
static int
exchange(struct pg_conn *pg, struct pool_head *head)
{
	if (pg->fd < 0) {
		struct wire_msg built = pg->request;
		int rc;

		if (pg->in_transaction)
			return lose(pg);
		/* The request is built: saying hello again must not clobber it. */
		pg->request = (struct wire_msg)WIRE_MSG_INIT;
		rc = open_session(pg);
		wire_release(&pg->request);
		pg->request = built;
		if (rc != 0)
			return rc;
	}
	if (wire_send_after(pg->fd, &pg->later, &pg->request) < 0 ||
	    (pg->ahead != NULL && take_ahead(pg) != 0) ||
	    wire_recv(pg->fd, &pg->reply) != 1)
		return lose(pg);
	pool_get_head(&pg->reply, head);
	if (wire_kind(&pg->reply) != POOL_REPLY || wire_bad(&pg->reply))
		return lose(pg);
	return 0;
}

/*
 * Send pg->request (built by request()) and read its reply into pg->reply.
 * A session lost between transactions is opened again first; inside one,
 * the transaction went with it. A request that was to begin a transaction
 * goes once more on a new session when the pool was lost under it:
 * nothing of that transaction can have been kept. Returns the reply's rc
 * (its failure recorded) or a PG_RC_ code.
 */
static int
call(struct pg_conn *pg, struct pool_head *head)
{
	bool beginning = pg->begin != 0;
	bool writing = pg->begin == POOL_BEGIN_WRITE;
	int rc = exchange(pg, head);

	if (rc != 0 && beginning && pg->fd < 0)
		rc = exchange(pg, head);
	/*
	 * Nothing of this command has been written (no write transaction
	 * begun, and this request no COMMIT, so the server rolled back
	 * whatever of it arrived): it may start again elsewhere.
	 */
	if (rc != 0 && pg->fd < 0 && !write_begun && !pg->committing &&
	    lost_early != NULL)
		lost_early();
	if (rc != 0)
		return rc;
	if (writing && head->begun)
		write_begun = true;
	clock_set_offset_ms(head->clock_offset_ms);
	if (beginning) {
		if (pg->begin == POOL_BEGIN_WRITE && head->begun)
			pg->locked_us = clock_mono_us();
		pg->begin = 0;
		pg->in_transaction = head->begun;
	}
	pg->failed = head->failed;
	if (head->rc == 0) {
		pg->changes = head->changes;
		return 0;
	}
	return fail(pg, head->rc, head->sqlstate ? head->sqlstate : "XX000",
	    head->message ? head->message : "the pool gave no reason");
}

/* A request of kind with no fields; its rc. */
static int
call_simple(struct pg_conn *pg, int kind)
{
	struct pool_head head;

	request(pg, kind);
	return call(pg, &head);
}

bool
pg_pooled(void)
{
	return true;
}

bool
pg_attach(const char *address)
{
	const char *off = getenv("DAICHO_POOL");
	struct pg_conn *pg;

	if (off != NULL && (strcmp(off, "off") == 0 || strcmp(off, "0") == 0 ||
	    strcmp(off, "no") == 0 || strcmp(off, "false") == 0))
		return false;
	pg = xcalloc(1, sizeof(*pg));
	pg->address = xstrdup(address);
	buf_init(&pg->message);
	buf_init(&pg->later);
	pg->busy_timeout_ms = store_busy_timeout_ms();
	if (open_session(pg) != 0) {
		pg_disconnect(pg);
		return false;
	}
	attached = pg;
	return true;
}

int
pg_connect(const char *address, bool create, int64_t busy_timeout_ms,
    struct pg_conn **out, bool *created, struct err *err)
{
	struct pg_conn *pg;

	*out = NULL;
	*created = false;
	if (create)
		return err_set(err, ERR_FAILED, "internal: a ledger is made by "
		    "daicho-pg, not through the pool");
	if (attached != NULL && strcmp(attached->address, address) == 0 &&
	    attached->busy_timeout_ms == busy_timeout_ms) {
		*out = attached;
		attached = NULL;
		return 0;
	}
	pg = xcalloc(1, sizeof(*pg));
	pg->address = xstrdup(address);
	buf_init(&pg->message);
	buf_init(&pg->later);
	pg->busy_timeout_ms = busy_timeout_ms;
	if (open_session(pg) != 0) {
		int rc = err_set(err, ERR_BUSY, "cannot reach the PostgreSQL ledger "
		    "through the daicho pool (%s; retry: without a pool daicho "
		    "connects directly)", pg->message.buf);

		pg_disconnect(pg);
		return rc;
	}
	*out = pg;
	return 0;
}

void
pg_disconnect(struct pg_conn *pg)
{
	if (pg == NULL)
		return;
	if (pg->fd >= 0)
		close(pg->fd);
	free(pg->address);
	buf_release(&pg->message);
	buf_release(&pg->later);
	wire_release(&pg->request);
	wire_release(&pg->reply);
	free(pg);
}

void
pg_leave_to_parent(struct pg_conn *pg)
{
	/* The session ends when the parent's copy closes, not this one. */
	if (pg->fd >= 0)
		close(pg->fd);
	pg->fd = -1;
}

int
pg_exec(struct pg_conn *pg, const char *sql)
{
	struct pool_head head;

	request(pg, POOL_EXEC);
	wire_put_str(&pg->request, sql);
	return call(pg, &head);
}

/*
 * A transaction begins with its first request (which says so): no round
 * trip of its own, and none with the write lock held. Its times follow
 * the database's clock as the pool last saw it (every reply says).
 */
int
pg_begin_write(struct pg_conn *pg)
{
	pg->begin = POOL_BEGIN_WRITE;
	pg->failed = false;
	pg->locked_us = 0;
	return 0;
}

/* The same: a write's BEGIN always goes with its first request here. */
int
pg_begin_write_later(struct pg_conn *pg)
{
	return pg_begin_write(pg);
}

int64_t
pg_write_locked_us(struct pg_conn *pg)
{
	return pg->locked_us;
}

int
pg_begin_read(struct pg_conn *pg)
{
	pg->begin = POOL_BEGIN_READ;
	pg->failed = false;
	return 0;
}

int
pg_commit(struct pg_conn *pg, bool wrote)
{
	struct pool_head head;
	int rc;

	request(pg, POOL_COMMIT);
	wire_put_i64(&pg->request, wrote);
	pg->committing = true;
	rc = call(pg, &head);
	pg->committing = false;
	pg->in_transaction = false;
	return rc;
}

void
pg_rollback(struct pg_conn *pg)
{
	/* A transaction not yet begun on the server needs no word. */
	pg->begin = 0;
	/* Nor do its writes not yet sent (nor a read sent ahead of it). */
	buf_reset(&pg->later);
	pg->ahead = NULL;
	if (pg->fd >= 0 && pg->in_transaction)
		call_simple(pg, POOL_ROLLBACK);
	pg->in_transaction = false;
	pg->failed = false;
}

int
pg_after_import(struct pg_conn *pg)
{
	return call_simple(pg, POOL_AFTER_IMPORT);
}

bool
pg_failed(struct pg_conn *pg)
{
	return pg->failed || (pg->in_transaction && pg->fd < 0);
}

int64_t
pg_changes(struct pg_conn *pg)
{
	return pg->changes;
}

int64_t
pg_last_insert_id(struct pg_conn *pg)
{
	int64_t changes = pg->changes, id = 0;

	if (call_simple(pg, POOL_LAST_INSERT_ID) == 0)
		id = wire_get_i64(&pg->reply);
	pg->changes = changes;
	return id;
}

const char *
pg_errmsg(struct pg_conn *pg)
{
	return pg->message.len ? pg->message.buf : "unknown error";
}

const char *
pg_sqlstate(struct pg_conn *pg)
{
	return pg->sqlstate;
}

/*
 * Commands that wait for changes (watchers, an idle runner) stay, and do
 * not use a pool (src/main.c): these are never called here.
 */
int
pg_change_fd(struct pg_conn *pg)
{
	fail(pg, PG_RC_ERROR, "XX000", "internal: waiting for changes goes "
	    "directly to the ledger, not through a pool");
	return -1;
}

int
pg_wait_change(struct pg_conn *pg, int64_t timeout_ms)
{
	return pg_change_fd(pg) < 0 ? PG_RC_ERROR : 0;
}

struct pg_stmt *
pg_stmt_new(struct pg_conn *pg, const char *sql)
{
	struct pg_stmt *st = xcalloc(1, sizeof(*st));

	st->pg = pg;
	st->sql = xstrdup(sql);
	/* Only for the count: the pool translates what it runs. */
	free(sql_dialect_postgresql(sql, &st->nparams));
	st->params = xcalloc((size_t)st->nparams + 1, sizeof(*st->params));
	st->row = -1;
	return st;
}

void
pg_stmt_reset(struct pg_stmt *st)
{
	recall_ahead(st);
	st->ran = false;
	st->ncolumns = 0;
	st->nrows = 0;
	st->row = -1;
}

static void
clear_param(struct param *p)
{
	free(p->owned);
	memset(p, 0, sizeof(*p));
}

void
pg_stmt_clear_bindings(struct pg_stmt *st)
{
	recall_ahead(st);
	for (int i = 0; i < st->nparams; i++)
		clear_param(&st->params[i]);
}

void
pg_stmt_free(struct pg_stmt *st)
{
	if (st == NULL)
		return;
	pg_stmt_clear_bindings(st);
	free(st->params);
	free(st->names);
	free(st->decltypes);
	free(st->cells);
	wire_release(&st->result);
	free(st->sql);
	free(st);
}

/* Parameter n (from 1), emptied; NULL when st takes no such parameter. */
static struct param *
param(struct pg_stmt *st, int n)
{
	recall_ahead(st);
	if (n < 1 || n > st->nparams)
		return NULL;
	clear_param(&st->params[n - 1]);
	return &st->params[n - 1];
}

void
pg_stmt_bind_int(struct pg_stmt *st, int n, int64_t value)
{
	struct param *p = param(st, n);

	if (p != NULL) {
		p->type = POOL_INT;
		p->i = value;
	}
}

void
pg_stmt_bind_double(struct pg_stmt *st, int n, double value)
{
	struct param *p = param(st, n);

	if (p != NULL) {
		p->type = POOL_DOUBLE;
		p->d = value;
	}
}

void
pg_stmt_bind_null(struct pg_stmt *st, int n)
{
	param(st, n);
}

void
pg_stmt_bind_bytes(struct pg_stmt *st, int n, const void *data, size_t len,
    bool blob, bool copy)
{
	struct param *p = param(st, n);

	if (p == NULL)
		return;
	p->type = blob ? POOL_BLOB : POOL_TEXT;
	p->len = len;
	if (copy) {
		p->owned = xmalloc(len + 1);
		memcpy(p->owned, data ? data : "", len);
		p->owned[len] = '\0';
		p->data = p->owned;
	} else {
		p->data = data ? data : "";
	}
}

int
pg_stmt_param_count(struct pg_stmt *st)
{
	return st->nparams;
}

/* Read the rows of a POOL_STEP reply (after its head) into st. */
static int
read_rows(struct pg_stmt *st)
{
	struct wire_msg *m = &st->result;

	st->ncolumns = (int)wire_get_i64(m);
	if (st->ncolumns < 0 || st->ncolumns > 100000)
		return -1;
	st->names = xrealloc(st->names, ((size_t)st->ncolumns + 1) *
	    sizeof(*st->names));
	st->decltypes = xrealloc(st->decltypes, ((size_t)st->ncolumns + 1) *
	    sizeof(*st->decltypes));
	for (int i = 0; i < st->ncolumns; i++) {
		st->names[i] = wire_get_str(m);
		st->decltypes[i] = wire_get_str(m);
	}
	st->nrows = 0;
	while (wire_get_i64(m) == 1 && !wire_bad(m)) {
		size_t base = st->nrows * (size_t)st->ncolumns;

		xgrow((void **)&st->cells, &st->cells_alloc,
		    base + (size_t)st->ncolumns, sizeof(*st->cells));
		for (int i = 0; i < st->ncolumns; i++) {
			struct cell *c = &st->cells[base + (size_t)i];
			int64_t type = wire_get_i64(m);

			c->type = (enum db_type)type;
			c->data = wire_get_bytes(m, &c->len);
			if (c->type == DB_NULL)
				c->data = NULL;
		}
		st->nrows++;
	}
	return wire_bad(m) ? -1 : 0;
}

/* Build in pg->request a step of kind (POOL_STEP or POOL_STEP_LATER) of st. */
static void
put_step(struct pg_stmt *st, int kind)
{
	struct pg_conn *pg = st->pg;

	request(pg, kind);
	wire_put_str(&pg->request, st->sql);
	wire_put_i64(&pg->request, st->nparams);
	for (int i = 0; i < st->nparams; i++) {
		const struct param *p = &st->params[i];
		int64_t bits;

		wire_put_i64(&pg->request, p->type);
		switch (p->type) {
		case POOL_INT:
			wire_put_i64(&pg->request, p->i);
			break;
		case POOL_DOUBLE:
			memcpy(&bits, &p->d, sizeof(bits));
			wire_put_i64(&pg->request, bits);
			break;
		case POOL_TEXT:
		case POOL_BLOB:
			wire_put_bytes(&pg->request, p->data, p->len);
			break;
		case POOL_NULL:
			break;
		}
	}
}

/* Send st with its bindings; its result whole into st. */
static int
execute(struct pg_stmt *st)
{
	struct pg_conn *pg = st->pg;
	struct pool_head head;
	struct wire_msg swap;
	int rc;

	put_step(st, POOL_STEP);
	rc = call(pg, &head);
	/* A SELECT outside a transaction may run again on a new session. */
	if (rc != 0 && pg->fd < 0 && !pg->in_transaction &&
	    strncmp(st->sql, "SELECT", 6) == 0)
		rc = call(pg, &head);
	if (rc != 0) {
		if (getenv("DAICHO_PG_TRACE") != NULL)
			fprintf(stderr, "daicho (pool): %s: %s\n", pg->message.buf,
			    st->sql);
		return rc;
	}
	/* The reply becomes st's result; st's old buffer serves next time. */
	swap = st->result;
	st->result = pg->reply;
	pg->reply = swap;
	if (read_rows(st) != 0)
		return lose(pg);
	st->ran = true;
	st->row = -1;
	return 0;
}

/*
 * Inside a transaction the pool has begun, on a live session, st is sent
 * with the next request: its failure, if any, is that request's. Anywhere
 * else it runs now: a statement that begins a transaction, or that would
 * dial the pool again, must hear how it went.
 */
int
pg_stmt_step_later(struct pg_stmt *st)
{
	struct pg_conn *pg = st->pg;
	int rc;

	if (pg->fd < 0 || !pg->in_transaction || pg->begin != 0) {
		while ((rc = pg_stmt_step(st)) == DB_ROW)
			;
		return rc;
	}
	put_step(st, POOL_STEP_LATER);
	wire_queue(&pg->later, &pg->request);
	st->ran = true;
	st->ncolumns = 0;
	st->nrows = 0;
	st->row = 0;
	return DB_DONE;
}

/*
 * Outside a transaction, on a live session with nothing else waiting to
 * go, st goes in one write with the next request: the pool answers both
 * in order, and the process waits once for the two.
 */
bool
pg_stmt_step_ahead(struct pg_stmt *st)
{
	struct pg_conn *pg = st->pg;

	if (pg->fd < 0 || pg->in_transaction || pg->begin != 0 ||
	    pg->later.len != 0 || pg->ahead != NULL || st->ran)
		return false;
	put_step(st, POOL_STEP);
	wire_queue(&pg->later, &pg->request);
	pg->ahead = st;
	return true;
}

int
pg_stmt_step(struct pg_stmt *st)
{
	int rc;

	/* Stepped before anything else went: it goes now, on its own. */
	recall_ahead(st);
	if (!st->ran && (rc = execute(st)) != 0)
		return rc;
	if ((size_t)(st->row + 1) < st->nrows) {
		st->row++;
		return DB_ROW;
	}
	st->row = (long)st->nrows;
	return DB_DONE;
}

/* Run st now if it has not run (its first step then reads its rows). */
static bool
columns(struct pg_stmt *st)
{
	recall_ahead(st);
	return st->ran || execute(st) == 0;
}

int
pg_stmt_column_count(struct pg_stmt *st)
{
	return columns(st) ? st->ncolumns : 0;
}

const char *
pg_stmt_column_name(struct pg_stmt *st, int i)
{
	return columns(st) && i >= 0 && i < st->ncolumns ? st->names[i] : NULL;
}

const char *
pg_stmt_column_decltype(struct pg_stmt *st, int i)
{
	return columns(st) && i >= 0 && i < st->ncolumns ? st->decltypes[i]
							 : NULL;
}

/* Column i of the current row, or NULL off a row. */
static const struct cell *
cell(const struct pg_stmt *st, int i)
{
	if (!st->ran || st->row < 0 || (size_t)st->row >= st->nrows || i < 0 ||
	    i >= st->ncolumns)
		return NULL;
	return &st->cells[(size_t)st->row * (size_t)st->ncolumns + (size_t)i];
}

enum db_type
pg_stmt_column_type(struct pg_stmt *st, int i)
{
	const struct cell *c = cell(st, i);

	return c ? c->type : DB_NULL;
}

const char *
pg_stmt_column_text(struct pg_stmt *st, int i)
{
	const struct cell *c = cell(st, i);

	return c ? c->data : NULL;
}

size_t
pg_stmt_column_bytes(struct pg_stmt *st, int i)
{
	const struct cell *c = cell(st, i);

	return c && c->data ? c->len : 0;
}

int64_t
pg_stmt_column_int(struct pg_stmt *st, int i)
{
	const struct cell *c = cell(st, i);

	if (c == NULL || c->data == NULL)
		return 0;
	if (c->type == DB_REAL) {
		double real = strtod(c->data, NULL);

		return (int64_t)real;
	}
	return strtoll(c->data, NULL, 10);
}

double
pg_stmt_column_double(struct pg_stmt *st, int i)
{
	const struct cell *c = cell(st, i);

	return c && c->data ? strtod(c->data, NULL) : 0.0;
}
