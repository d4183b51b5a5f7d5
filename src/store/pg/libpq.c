/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * PostgreSQL's calls (store/pg/pg.h) through libpq, for daicho-pg and
 * daicho-serve:
 * one connection per ledger, every statement run with PQexecParams (one
 * round trip: daicho's processes are short-lived, and a named prepared
 * statement would cost a round trip of its own before its first use; the
 * pool's long-lived connections prepare them, pg_keep_prepared()).
 *
 * Writes sent for later (pg_stmt_step_later()), the pool's BEGIN
 * (pg_begin_write_later()) and every COMMIT go in libpq's pipeline mode,
 * together with the statement that follows them: settle() reads all their
 * results and ends the pipeline. Outside settle() the connection is in
 * pipeline mode exactly while pg->later > 0.
 *
 * One file because the pipeline (what is sent for later, settle()) is
 * every statement's business: split, each half would reach into it.
 */
#include "store/pg/pg.h"

#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/pg/schema.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/sqldialect.h"

/* PostgreSQL's type oids (catalog/pg_type.h, stable across versions). */
enum {
	OID_BOOL = 16,
	OID_BYTEA = 17,
	OID_INT8 = 20,
	OID_INT2 = 21,
	OID_INT4 = 23,
	OID_TEXT = 25,
	OID_OID = 26,
	OID_FLOAT4 = 700,
	OID_FLOAT8 = 701,
	OID_NUMERIC = 1700,
};

/*
 * The key of the ledger's write lock: a transaction-scoped advisory lock,
 * per database ("daicho" in ASCII).
 */
#define WRITE_LOCK_KEY "111542802573423"

/* The channel on which commits wake waiting processes. */
#define CHANNEL "daicho_ledger"

struct pg_conn {
	PGconn *conn;
	char sqlstate[6];
	struct buf message;      /* the last failure, one line */
	int64_t changes;         /* rows changed by the last statement */
	bool listening;
	bool lock_timed_out;     /* a lock wait ran out since the last free */
	int64_t freed;           /* sessions the last failed begin_with() ended */
	bool in_transaction;     /* between a begin and its commit or rollback */
	int64_t busy_timeout_ms; /* lock waits, and reconnecting */
	bool prepare;            /* name and keep statements (pg_keep_prepared) */
	struct prepared *prepared; /* statements this session has prepared */
	size_t nprepared, prepared_alloc;
	int later;               /* statements sent in pipeline mode whose
				  * results are not read yet */
	bool begin_later;        /* BEGIN and the write lock go with the
				  * next statement (pg_begin_write_later()) */
	int clock_at;            /* which of those results is the database's
				  * clock, from 1; 0: none */
	size_t unconfirmed;      /* statements prepared from here on were
				  * sent in the pipeline, not yet answered */
	bool cold;               /* a new session, with the ledger's tables
				  * not yet in its caches (WARM_UP) */
	int64_t locked_us;       /* when the open transaction's write lock
				  * was answered (clock_mono_us()); 0: not */
	bool begin_failed;       /* the transaction's deferred BEGIN failed
				  * with its first statement: nothing more
				  * may run in it (pg_failed()) */
};

/* A statement prepared on the connection, by text and parameter types. */
struct prepared {
	uint64_t hash;
	char *key;               /* the types, then the SQL */
	char name[16];
};

struct pg_param {
	Oid type;
	char *value;             /* NULL for NULL */
	int length;
	int format;              /* 0 text, 1 binary */
	bool owned;
	char digits[32];         /* an integer or real, as text */
};

struct pg_stmt {
	struct pg_conn *pg;
	char *sql;               /* in PostgreSQL's dialect */
	int nparams;
	struct pg_param *params;
	PGresult *result;        /* after the first step */
	int row;                 /* the current row; -1 before the first */
	/* Bytea columns of the current row, decoded on first read. */
	unsigned char **decoded;
	size_t *decoded_len;
	int ncolumns_decoded;
	char bool_text[2];
};

static bool lost(struct pg_conn *pg);
static int settle(struct pg_conn *pg, PGresult **own);
static int begin_now(struct pg_conn *pg);

/* Record the failure of res (or of the connection) on pg; PG_RC_ code. */
static int
failure(struct pg_conn *pg, const PGresult *res)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *text = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)
			       : NULL;

	if (text == NULL)
		text = PQerrorMessage(pg->conn);
	buf_reset(&pg->message);
	buf_add(&pg->message, text, strcspn(text, "\n"));
	if (pg->message.len == 0)
		buf_adds(&pg->message, "no answer from the server");
	/* The server gives every error of its own a code: one without is
	 * libpq's, about the connection. */
	if (state == NULL)
		state = "08006";
	snprintf(pg->sqlstate, sizeof(pg->sqlstate), "%s", state);
	if (strcmp(state, "55P03") == 0)
		pg->lock_timed_out = true;
	if (strcmp(state, "42501") == 0)
		return PG_RC_DENIED;
	if (strncmp(state, "23", 2) == 0 || strncmp(state, "22", 2) == 0)
		return PG_RC_CONSTRAINT;
	if (strncmp(state, "08", 2) == 0 || strncmp(state, "40", 2) == 0 ||
	    strcmp(state, "55P03") == 0 || strncmp(state, "57P", 3) == 0 ||
	    strcmp(state, "53300") == 0)
		return PG_RC_BUSY;
	return PG_RC_ERROR;
}

/* Whether res succeeded; if not, record why and clear it. */
static int
check(struct pg_conn *pg, PGresult *res)
{
	ExecStatusType status = PQresultStatus(res);
	int rc;

	if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
		const char *n = PQcmdTuples(res);

		pg->changes = n && *n ? strtoll(n, NULL, 10) : 0;
		return 0;
	}
	rc = failure(pg, res);
	PQclear(res);
	return rc;
}

int
pg_exec(struct pg_conn *pg, const char *sql)
{
	PGresult *res;
	int rc;

	if ((rc = begin_now(pg)) != 0)
		return rc;
	if (lost(pg) && pg->in_transaction)
		return failure(pg, NULL);
	if (pg->later > 0 && (rc = settle(pg, NULL)) != 0)
		return rc;
	res = PQexec(pg->conn, sql);
	rc = check(pg, res);

	if (rc != 0 && getenv("DAICHO_PG_TRACE") != NULL)
		fprintf(stderr, "daicho-pg: %s: %s\n", pg->message.buf, sql);

	if (rc == 0)
		PQclear(res);
	return rc;
}

/*
 * Run sql (one or more statements); *value gets the last column of the
 * last statement's first row (0 when none), and *first (may be NULL) the
 * first column. 0 or a PG_RC_ code.
 */
static int
query_pair(struct pg_conn *pg, const char *sql, int64_t *first, int64_t *value)
{
	PGresult *res;
	int rc;

	*value = 0;
	if (first)
		*first = 0;
	if (pg->later > 0 && (rc = settle(pg, NULL)) != 0)
		return rc;
	res = PQexec(pg->conn, sql);
	rc = check(pg, res);
	if (rc != 0 && getenv("DAICHO_PG_TRACE") != NULL)
		fprintf(stderr, "daicho-pg: %s: %s\n", pg->message.buf, sql);
	if (rc != 0)
		return rc;
	if (PQntuples(res) > 0 && PQnfields(res) > 0) {
		*value = strtoll(PQgetvalue(res, 0, PQnfields(res) - 1), NULL, 10);
		if (first)
			*first = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	}
	PQclear(res);
	return 0;
}

/* query_pair() without the first column. */
static int
query_int(struct pg_conn *pg, const char *sql, int64_t *value)
{
	return query_pair(pg, sql, NULL, value);
}

/*
 * Set daicho's clock to the database's: leases and times across hosts
 * rest on one clock. The offset is taken at every write transaction.
 */
static void
follow_clock(int64_t db_now_ms)
{
	clock_set_offset_ms(db_now_ms - clock_local_ms());
}

/* Set up a new connection: lock waits as bounded as SQLite's. */
static int
configure(struct pg_conn *pg)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "SET lock_timeout = %lld",
	    (long long)pg->busy_timeout_ms);
	return pg_exec(pg, sql);
}

/* A new session has no prepared statements. */
static void
forget_prepared(struct pg_conn *pg)
{
	for (size_t i = 0; i < pg->nprepared; i++)
		free(pg->prepared[i].key);
	pg->nprepared = 0;
}

void
pg_keep_prepared(struct pg_conn *pg)
{
	pg->prepare = true;
}

/*
 * The key of sql with these parameter types: the same text may be bound
 * with other types (a NULL is untyped), and a prepared statement keeps
 * the types it was prepared with.
 */
static char *
prepared_key(const char *sql, int nparams, const Oid *types, uint64_t *hash)
{
	struct buf key = BUF_INIT;

	for (int i = 0; i < nparams; i++)
		buf_addf(&key, "%u,", (unsigned)types[i]);
	buf_addch(&key, ':');
	buf_adds(&key, sql);
	*hash = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < key.len; i++) {
		*hash ^= (unsigned char)key.buf[i];
		*hash *= 0x100000001b3ULL;
	}
	return buf_detach(&key, NULL);
}

/*
 * The name of st's statement prepared on its connection, preparing it on
 * first use (one round trip, once per connection). NULL when preparing
 * failed (recorded on the connection, *rc set).
 */
static const char *
prepared_name(struct pg_stmt *st, const Oid *types, int *rc)
{
	struct pg_conn *pg = st->pg;
	uint64_t hash;
	char *key = prepared_key(st->sql, st->nparams, types, &hash);
	struct prepared *p;
	PGresult *res;

	for (size_t i = 0; i < pg->nprepared; i++) {
		if (pg->prepared[i].hash == hash &&
		    strcmp(pg->prepared[i].key, key) == 0) {
			free(key);
			return pg->prepared[i].name;
		}
	}
	xgrow((void **)&pg->prepared, &pg->prepared_alloc, pg->nprepared + 1,
	    sizeof(*pg->prepared));
	p = &pg->prepared[pg->nprepared];
	p->hash = hash;
	p->key = key;
	snprintf(p->name, sizeof(p->name), "d%zu", pg->nprepared);
	/*
	 * Inside a pipeline it goes ahead of the statement, unanswered until
	 * settle(), which forgets it if anything in the pipeline failed.
	 */
	if (pg->later > 0) {
		if (PQsendPrepare(pg->conn, p->name, st->sql, st->nparams,
		    types) != 1) {
			free(key);
			*rc = failure(pg, NULL);
			return NULL;
		}
		pg->later++;
		if (pg->unconfirmed > pg->nprepared)
			pg->unconfirmed = pg->nprepared;
		pg->nprepared++;
		return p->name;
	}
	res = PQprepare(pg->conn, p->name, st->sql, st->nparams, types);
	if ((*rc = check(pg, res)) != 0) {
		free(key);
		return NULL;
	}
	PQclear(res);
	pg->nprepared++;
	return p->name;
}

/*
 * The connection is gone (the server restarted, the network dropped):
 * connect again, for at most the busy timeout, as a long-lived process
 * (the runner, a watcher) must ride out a server restart. Only between
 * transactions: what a broken transaction did is gone with it.
 */
static int
reconnect(struct pg_conn *pg)
{
	int64_t deadline = clock_mono_ms() + pg->busy_timeout_ms;
	int pause_ms = 50;

	forget_prepared(pg);
	for (;;) {
		PQreset(pg->conn);
		if (PQstatus(pg->conn) == CONNECTION_OK) {
			int rc = configure(pg);

			pg->cold = true;
			if (rc == 0 && pg->listening)
				rc = pg_exec(pg, "LISTEN " CHANNEL);
			return rc;
		}
		if (clock_mono_ms() + pause_ms > deadline)
			return failure(pg, NULL);
		poll(NULL, 0, pause_ms);
		if (pause_ms < 1000)
			pause_ms *= 2;
	}
}

/* Whether a transaction may start over after rc: the connection was lost. */
static bool
lost(struct pg_conn *pg)
{
	return PQstatus(pg->conn) == CONNECTION_BAD;
}

/*
 * After a lock wait ran out, outside any transaction: a person's session
 * ends the agents' sessions that held a lock longer than this session
 * waits (daicho_free_ledger(), schema 7), so that no agent's login locks
 * a person out; anyone else's asks and is told 0. The number ended; 0
 * when the lock wait did not run out, or on a ledger before schema 7.
 */
static int64_t
free_ledger(struct pg_conn *pg)
{
	char sql[96], sqlstate[sizeof(pg->sqlstate)];
	struct buf message = BUF_INIT;
	int64_t ended = 0;

	if (!pg->lock_timed_out || lost(pg))
		return 0;
	/* The failure that brought us here stays the one reported. */
	memcpy(sqlstate, pg->sqlstate, sizeof(sqlstate));
	buf_add(&message, pg->message.buf, pg->message.len);
	snprintf(sql, sizeof(sql), "SELECT daicho_free_ledger(%lld)",
	    (long long)pg->busy_timeout_ms);
	if (query_int(pg, sql, &ended) != 0)
		ended = 0;
	memcpy(pg->sqlstate, sqlstate, sizeof(sqlstate));
	buf_reset(&pg->message);
	buf_add(&pg->message, message.buf, message.len);
	buf_release(&message);
	pg->lock_timed_out = false;
	return ended;
}

/* Run query_int() for a BEGIN, once more on a new connection if lost. */
static int
begin(struct pg_conn *pg, const char *sql, int64_t *value)
{
	int rc;

	if (lost(pg) && (rc = reconnect(pg)) != 0)
		return rc;
	rc = query_int(pg, sql, value);
	if (rc != 0 && lost(pg) && reconnect(pg) == 0)
		rc = query_int(pg, sql, value);
	return rc;
}

/* The write lock, and the database's clock in milliseconds. */
#define TAKE_WRITE_LOCK \
	"SELECT pg_advisory_xact_lock(" WRITE_LOCK_KEY "), (extract(epoch" \
	" FROM clock_timestamp()) * 1000)::int8"

/*
 * Planning a statement over the tables every write reads or writes loads
 * them and their indexes into a new session's caches: run before the
 * BEGIN, in its round trip, that work is done before the write lock is
 * waited for, not while it is held (about 1 ms of a claim's hold on a new
 * connection). WHERE false: nothing is read. Once per session: a
 * session that stays (the runner, the pool's) keeps its caches.
 */
#define WARM_UP "SELECT 1 FROM tasks, events, agents, saves WHERE false"

int
pg_begin_write(struct pg_conn *pg)
{
	int64_t now = 0;
	int rc;

	pg->locked_us = 0;
	pg->begin_failed = false;
	pg->lock_timed_out = false;
	rc = begin(pg, pg->cold ? WARM_UP "; BEGIN; " TAKE_WRITE_LOCK
				    : "BEGIN; " TAKE_WRITE_LOCK, &now);
	if (rc != 0 && pg->lock_timed_out) {
		if (PQtransactionStatus(pg->conn) != PQTRANS_IDLE)
			PQclear(PQexec(pg->conn, "ROLLBACK"));
		if (free_ledger(pg) > 0)
			rc = begin(pg, "BEGIN; " TAKE_WRITE_LOCK, &now);
	}

	pg->cold = pg->cold && rc != 0;

	if (rc == 0) {
		follow_clock(now);
		pg->locked_us = clock_mono_us();
		pg->in_transaction = true;
	} else if (PQtransactionStatus(pg->conn) != PQTRANS_IDLE) {
		PQclear(PQexec(pg->conn, "ROLLBACK"));
	}
	return rc;
}

int
pg_set_busy_timeout(struct pg_conn *pg, int64_t busy_timeout_ms)
{
	if (busy_timeout_ms == pg->busy_timeout_ms)
		return 0;
	pg->busy_timeout_ms = busy_timeout_ms;
	return configure(pg);
}

int
pg_session_reset(struct pg_conn *pg)
{
	pg->in_transaction = false;
	pg->begin_later = false;
	pg->begin_failed = false;
	if (pg->later > 0)
		(void)settle(pg, NULL);
	if (lost(pg))
		return PG_RC_BUSY;
	if (PQtransactionStatus(pg->conn) != PQTRANS_IDLE)
		PQclear(PQexec(pg->conn, "ROLLBACK"));
	if (pg->listening) {
		pg->listening = false;
		return pg_exec(pg, "UNLISTEN *");
	}
	return lost(pg) ? PG_RC_BUSY : 0;
}

int
pg_begin_read(struct pg_conn *pg)
{
	int64_t none;
	int rc = begin(pg, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
	    &none);

	pg->in_transaction = rc == 0;
	return rc;
}

/*
 * Writes sent for later go in one round trip with the NOTIFY and the
 * COMMIT; should one of them have failed, nothing after it ran, and the
 * transaction is rolled back.
 */
int
pg_commit(struct pg_conn *pg, bool wrote)
{
	int rc;

	pg->in_transaction = false;
	if (pg->begin_later) {
		/* Nothing ran: there is nothing to commit. */
		pg->begin_later = false;
		return 0;
	}
	/*
	 * In a pipeline even with nothing sent before: the COMMIT's own
	 * answer is read, so that a connection closed just after it (a
	 * server going down) is not taken for a COMMIT not made.
	 */
	if (pg->later == 0 && (lost(pg) ||
	    PQenterPipelineMode(pg->conn) != 1))
		return failure(pg, NULL);
	if (wrote && PQsendQueryParams(pg->conn, "NOTIFY " CHANNEL, 0, NULL,
	    NULL, NULL, NULL, 0) == 1)
		pg->later++;
	if (PQsendQueryParams(pg->conn, "COMMIT", 0, NULL, NULL, NULL, NULL,
	    0) != 1) {
		rc = failure(pg, NULL);
		(void)settle(pg, NULL);
	} else {
		pg->later++;
		rc = settle(pg, NULL);
	}
	if (rc != 0 && !lost(pg) &&
	    PQtransactionStatus(pg->conn) != PQTRANS_IDLE)
		PQclear(PQexec(pg->conn, "ROLLBACK"));
	return rc;
}

void
pg_rollback(struct pg_conn *pg)
{
	pg->in_transaction = false;
	pg->begin_failed = false;
	if (pg->begin_later) {
		pg->begin_later = false;
		return;
	}
	if (pg->later > 0)
		(void)settle(pg, NULL);
	if (!lost(pg))
		PQclear(PQexec(pg->conn, "ROLLBACK"));
	(void)free_ledger(pg);
}

int
pg_after_import(struct pg_conn *pg)
{
	return pg_exec(pg, schema_pg_after_import);
}

bool
pg_failed(struct pg_conn *pg)
{
	return pg->begin_failed ||
	       PQtransactionStatus(pg->conn) == PQTRANS_INERROR || lost(pg);
}

int64_t
pg_changes(struct pg_conn *pg)
{
	return pg->changes;
}

int64_t
pg_last_insert_id(struct pg_conn *pg)
{
	int64_t id = 0;
	int64_t changes = pg->changes;

	query_int(pg, "SELECT lastval()", &id);
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

int
pg_change_fd(struct pg_conn *pg)
{
	if (!pg->listening) {
		if (pg_exec(pg, "LISTEN " CHANNEL) != 0)
			return -1;
		pg->listening = true;
	}
	return PQsocket(pg->conn);
}

int
pg_wait_change(struct pg_conn *pg, int64_t timeout_ms)
{
	struct pollfd pfd;
	PGnotify *note;
	int rc, woke = 0;

	if (!pg->listening) {
		if ((rc = pg_exec(pg, "LISTEN " CHANNEL)) != 0)
			return rc;
		pg->listening = true;
	}
	for (;;) {
		if (!PQconsumeInput(pg->conn))
			return failure(pg, NULL);
		while ((note = PQnotifies(pg->conn)) != NULL) {
			woke = 1;
			PQfreemem(note);
		}
		if (woke || timeout_ms <= 0)
			return woke;
		pfd.fd = PQsocket(pg->conn);
		pfd.events = POLLIN;
		pfd.revents = 0;
		{
			int64_t start = clock_mono_ms();

			rc = poll(&pfd, 1, timeout_ms > 1000000 ? 1000000
								  : (int)timeout_ms);
			/* A signal ends the wait: the caller looks at why. */
			if (rc < 0 && errno == EINTR)
				return 0;
			if (rc < 0)
				return PG_RC_ERROR;
			if (rc == 0)
				return 0;
			timeout_ms -= clock_mono_ms() - start;
		}
	}
}

struct pg_stmt *
pg_stmt_new(struct pg_conn *pg, const char *sql)
{
	struct pg_stmt *st = xcalloc(1, sizeof(*st));

	st->pg = pg;
	st->sql = sql_dialect_postgresql(sql, &st->nparams);
	st->params = xcalloc((size_t)st->nparams + 1, sizeof(*st->params));
	st->row = -1;
	return st;
}

static void
forget_row(struct pg_stmt *st)
{
	for (int i = 0; i < st->ncolumns_decoded; i++) {
		free(st->decoded[i]);
		st->decoded[i] = NULL;
	}
}

static void
clear_param(struct pg_param *p)
{
	if (p->owned)
		free(p->value);
	memset(p, 0, sizeof(*p));
}

void
pg_stmt_reset(struct pg_stmt *st)
{
	forget_row(st);
	PQclear(st->result);
	st->result = NULL;
	st->row = -1;
}

void
pg_stmt_clear_bindings(struct pg_stmt *st)
{
	for (int i = 0; i <= st->nparams; i++)
		clear_param(&st->params[i]);
}

void
pg_stmt_free(struct pg_stmt *st)
{
	if (st == NULL)
		return;
	pg_stmt_reset(st);
	for (int i = 0; i <= st->nparams; i++)
		clear_param(&st->params[i]);
	free(st->params);
	free(st->decoded);
	free(st->decoded_len);
	free(st->sql);
	free(st);
}

/* Parameter n (from 1), emptied; NULL when st takes no such parameter. */
static struct pg_param *
param(struct pg_stmt *st, int n)
{
	if (n < 1 || n > st->nparams)
		return NULL;
	clear_param(&st->params[n - 1]);
	return &st->params[n - 1];
}

void
pg_stmt_bind_int(struct pg_stmt *st, int n, int64_t value)
{
	struct pg_param *p = param(st, n);

	if (p == NULL)
		return;
	p->type = OID_INT8;
	p->length = snprintf(p->digits, sizeof(p->digits), "%" PRId64, value);
	p->value = p->digits;
}

void
pg_stmt_bind_double(struct pg_stmt *st, int n, double value)
{
	struct pg_param *p = param(st, n);

	if (p == NULL)
		return;
	p->type = OID_FLOAT8;
	p->length = snprintf(p->digits, sizeof(p->digits), "%.17g", value);
	p->value = p->digits;
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
	struct pg_param *p = param(st, n);

	if (p == NULL)
		return;
	p->type = blob ? OID_BYTEA : OID_TEXT;
	p->format = blob ? 1 : 0;
	p->length = (int)len;
	if (copy || (!blob && ((const char *)data)[len] != '\0')) {
		p->value = xmalloc(len + 1);
		memcpy(p->value, data ? data : "", len);
		p->value[len] = '\0';
		p->owned = true;
	} else {
		p->value = (char *)(data ? data : "");
	}
}

int
pg_stmt_param_count(struct pg_stmt *st)
{
	return st->nparams;
}

/*
 * Text with a NUL byte cannot be a PostgreSQL text value, and libpq would
 * cut it at the NUL without a word: refuse it.
 */
static int
refuse_nul(struct pg_stmt *st)
{
	for (int i = 0; i < st->nparams; i++) {
		const struct pg_param *p = &st->params[i];

		if (p->type == OID_TEXT && memchr(p->value, '\0', (size_t)p->length)) {
			buf_reset(&st->pg->message);
			buf_addf(&st->pg->message, "text with a NUL byte cannot be "
			    "stored in a PostgreSQL ledger (parameter %d)", i + 1);
			snprintf(st->pg->sqlstate, sizeof(st->pg->sqlstate), "22021");
			return PG_RC_CONSTRAINT;
		}
	}
	return 0;
}

/* st's parameters as libpq takes them, in arrays of st->nparams + 1. */
struct pg_args {
	Oid *types;
	const char **values;
	int *lengths, *formats;
};

static void
fill_args(const struct pg_stmt *st, const struct pg_args *a)
{
	for (int i = 0; i < st->nparams; i++) {
		a->types[i] = st->params[i].type;
		a->values[i] = st->params[i].value;
		a->lengths[i] = st->params[i].length;
		a->formats[i] = st->params[i].format;
	}
}

/*
 * Send st into the pipeline (pg->later counts it): as its prepared
 * statement when the connection has one, else parsed where it runs.
 * Returns 0, or a PG_RC_ code with the failure recorded.
 */
static int
send_in_pipeline(struct pg_stmt *st, const struct pg_args *a)
{
	struct pg_conn *pg = st->pg;
	const char *name = NULL;
	int rc = 0, sent;

	if (pg->prepare && (name = prepared_name(st, a->types, &rc)) == NULL &&
	    rc != 0)
		return rc;
	if (pg->later == 0 && PQenterPipelineMode(pg->conn) != 1)
		return failure(pg, NULL);
	sent = name ? PQsendQueryPrepared(pg->conn, name, st->nparams,
			  a->values, a->lengths, a->formats, 0)
		    : PQsendQueryParams(pg->conn, st->sql, st->nparams, a->types,
			  a->values, a->lengths, a->formats, 0);
	if (sent != 1) {
		rc = failure(pg, NULL);
		if (pg->later == 0)
			PQexitPipelineMode(pg->conn);
		return rc;
	}
	pg->later++;
	return 0;
}

/*
 * Read the results of what was sent into the pipeline, and end it. With
 * own, the last statement sent is the caller's: its result goes in *own
 * (NULL when it did not run) for the caller to check. Returns 0, or the
 * first failure's PG_RC_ code (recorded): statements after a failed one
 * are not run.
 */
static int
settle(struct pg_conn *pg, PGresult **own)
{
	int n = pg->later, rc = 0;
	bool broken = false; /* the connection: nothing more will come */
	PGresult *res;

	pg->later = 0;
	if (own)
		*own = NULL;
	if (PQpipelineSync(pg->conn) != 1) {
		rc = failure(pg, NULL);
		broken = true;
	}
	/* Every result is read, also after a failure: then the pipeline ends. */
	for (int i = 0; !broken && i < n; i++) {
		ExecStatusType status;

		if ((res = PQgetResult(pg->conn)) == NULL) {
			if (rc == 0)
				rc = failure(pg, NULL);
			broken = true;
			break;
		}
		status = PQresultStatus(res);
		if (i + 1 == pg->clock_at && status == PGRES_TUPLES_OK &&
		    PQntuples(res) > 0 && PQnfields(res) > 1)
			follow_clock(strtoll(PQgetvalue(res, 0, 1), NULL, 10));
		if (own && i == n - 1 && rc == 0 && status != PGRES_PIPELINE_ABORTED)
			*own = res;
		else if (rc != 0 || status == PGRES_PIPELINE_ABORTED)
			PQclear(res);
		else if ((rc = check(pg, res)) == 0)
			PQclear(res);
		/* Each statement's results end with a NULL. */
		while ((res = PQgetResult(pg->conn)) != NULL)
			PQclear(res);
	}
	/*
	 * Every statement answered: they ran, whatever comes instead of the
	 * end (a connection closed by a server going down just after a
	 * COMMIT must not say that nothing was written). A lost connection
	 * is found by the next call.
	 */
	if (!broken)
		PQclear(PQgetResult(pg->conn));
	pg->clock_at = 0;
	if (rc != 0) {
		/* What was prepared in it may not be: prepare it again. */
		for (size_t i = pg->unconfirmed; i < pg->nprepared; i++)
			free(pg->prepared[i].key);
		if (pg->unconfirmed < pg->nprepared)
			pg->nprepared = pg->unconfirmed;
	}
	pg->unconfirmed = SIZE_MAX;
	/* On a lost connection the pipeline ends with it (PQreset). */
	if (PQexitPipelineMode(pg->conn) != 1 && rc == 0 && !lost(pg))
		rc = failure(pg, NULL);
	return rc;
}

/* A BEGIN left for the next statement is sent on its own now. */
static int
begin_now(struct pg_conn *pg)
{
	if (!pg->begin_later)
		return 0;
	pg->begin_later = false;
	pg->in_transaction = false;
	return pg_begin_write(pg);
}

/*
 * Run st as the first statement of a write transaction: BEGIN, the write
 * lock and st in one pipeline, one round trip. A failure rolls back.
 */
static int
begin_with(struct pg_stmt *st, const struct pg_args *a)
{
	struct pg_conn *pg = st->pg;
	int rc;

	if (lost(pg) && (rc = reconnect(pg)) != 0)
		return rc;
	if (PQenterPipelineMode(pg->conn) != 1)
		return failure(pg, NULL);
	if (pg->cold && PQsendQueryParams(pg->conn, WARM_UP, 0, NULL, NULL,
	    NULL, NULL, 0) == 1)
		pg->later++;
	if (PQsendQueryParams(pg->conn, "BEGIN", 0, NULL, NULL, NULL, NULL,
	    0) == 1)
		pg->later++;
	if (PQsendQueryParams(pg->conn, TAKE_WRITE_LOCK, 0, NULL, NULL, NULL,
	    NULL, 0) == 1)
		pg->clock_at = ++pg->later;
	if ((rc = send_in_pipeline(st, a)) != 0) {
		(void)settle(pg, NULL);
	} else {
		rc = settle(pg, &st->result);
	}
	if (rc != 0 && !lost(pg) &&
	    PQtransactionStatus(pg->conn) != PQTRANS_IDLE)
		PQclear(PQexec(pg->conn, "ROLLBACK"));
	pg->freed = rc != 0 ? free_ledger(pg) : 0;
	pg->in_transaction = rc == 0;
	pg->begin_failed = rc != 0;
	if (rc == 0) {
		pg->cold = false;
		pg->locked_us = clock_mono_us();
	}
	return rc;
}

int64_t
pg_write_locked_us(struct pg_conn *pg)
{
	return pg->locked_us;
}

int
pg_begin_write_later(struct pg_conn *pg)
{
	pg->locked_us = 0;
	pg->begin_failed = false;
	pg->begin_later = true;
	pg->in_transaction = true;
	return 0;
}

static int
execute(struct pg_stmt *st)
{
	Oid types[st->nparams + 1];
	const char *values[st->nparams + 1];
	int lengths[st->nparams + 1], formats[st->nparams + 1];
	struct pg_args args = { types, values, lengths, formats };
	bool rerunnable = false; /* may run again on a new connection if lost */
	int rc;

	if ((rc = refuse_nul(st)) != 0) {
		(void)begin_now(st->pg);
		return rc;
	}
	fill_args(st, &args);
	if (st->pg->begin_later) {
		/*
		 * A warm connection the server cut (an idle timeout, a
		 * restart) is found so, and the transaction begins on a new
		 * one: nothing of it can have been kept.
		 */
		st->pg->begin_later = false;
		rc = begin_with(st, &args);
		if (rc != 0 && lost(st->pg) && reconnect(st->pg) == 0)
			rc = begin_with(st, &args);
		/* Once more after ending what locked a person out. */
		if (rc != 0 && st->pg->freed > 0)
			rc = begin_with(st, &args);
		if (rc != 0)
			return rc;
		goto ran;
	}
	/*
	 * After writes sent for later, st goes the same way: one round trip
	 * for all. A failure of theirs is st's.
	 */
	if (st->pg->later > 0) {
		if ((rc = send_in_pipeline(st, &args)) != 0) {
			(void)settle(st->pg, NULL);
			return rc;
		}
		if ((rc = settle(st->pg, &st->result)) != 0)
			return rc;
		goto ran;
	}
	/*
	 * Outside a transaction, a statement can start on a new connection;
	 * inside one, a lost connection took the transaction with it, and
	 * nothing may run until it is rolled back (pg_rollback()).
	 */
	if (lost(st->pg) && st->pg->in_transaction)
		return failure(st->pg, NULL);
	if (lost(st->pg) && (rc = reconnect(st->pg)) != 0)
		return rc;
	rerunnable = !st->pg->in_transaction &&
	    strncmp(st->sql, "SELECT", 6) == 0;
	if (st->pg->prepare) {
		const char *name = prepared_name(st, types, &rc);

		/*
		 * A connection found lost by preparing (the pool's, cut while
		 * it waited) is made again below, as one lost by running.
		 */
		if (name != NULL)
			st->result = PQexecPrepared(st->pg->conn, name, st->nparams,
			    values, lengths, formats, 0);
		else if (!lost(st->pg) || !rerunnable)
			return rc;
	} else {
		st->result = PQexecParams(st->pg->conn, st->sql, st->nparams, types,
		    values, lengths, formats, 0);
	}
	/* (PQresultStatus(NULL) is PGRES_FATAL_ERROR.) */
	if (PQresultStatus(st->result) == PGRES_FATAL_ERROR && lost(st->pg) &&
	    rerunnable && reconnect(st->pg) == 0) {
		PQclear(st->result);
		st->result = PQexecParams(st->pg->conn, st->sql, st->nparams,
		    types, values, lengths, formats, 0);
	}
ran:
	if ((rc = check(st->pg, st->result)) != 0) {
		st->result = NULL;
		/* $DAICHO_PG_TRACE: which statement failed, for developers. */
		if (getenv("DAICHO_PG_TRACE") != NULL)
			fprintf(stderr, "daicho-pg: %s: %s\n", st->pg->message.buf,
			    st->sql);
		/*
		 * A person whose lock wait ran out ends what held it, and a
		 * read on its own runs again; in a transaction, pg_rollback()
		 * does the ending.
		 */
		if (PQtransactionStatus(st->pg->conn) == PQTRANS_IDLE &&
		    free_ledger(st->pg) > 0 && rerunnable)
			return execute(st);
		return rc;
	}
	{
		int n = PQnfields(st->result);

		if (n > st->ncolumns_decoded) {
			st->decoded = xrealloc(st->decoded, (size_t)n * sizeof(*st->decoded));
			st->decoded_len = xrealloc(st->decoded_len,
			    (size_t)n * sizeof(*st->decoded_len));
			for (int i = st->ncolumns_decoded; i < n; i++)
				st->decoded[i] = NULL;
			st->ncolumns_decoded = n;
		}
	}
	return 0;
}

int
pg_stmt_step(struct pg_stmt *st)
{
	int rc;

	if (st->result == NULL && (rc = execute(st)) != 0)
		return rc;
	forget_row(st);
	if (st->row + 1 < PQntuples(st->result)) {
		st->row++;
		return DB_ROW;
	}
	st->row = PQntuples(st->result);
	return DB_DONE;
}

/* A connection of this process's own has nothing to send it with. */
bool
pg_stmt_step_ahead(struct pg_stmt *st)
{
	(void)st;
	return false;
}

/*
 * Inside a transaction, st is sent in pipeline mode and its result read
 * with the next statement's or the COMMIT's (settle()): one round trip
 * fewer with the write lock held. Anywhere else it runs now.
 */
int
pg_stmt_step_later(struct pg_stmt *st)
{
	Oid types[st->nparams + 1];
	const char *values[st->nparams + 1];
	int lengths[st->nparams + 1], formats[st->nparams + 1];
	struct pg_args args = { types, values, lengths, formats };
	int rc;

	if ((rc = begin_now(st->pg)) != 0)
		return rc;
	if (!st->pg->in_transaction || lost(st->pg) ||
	    (rc = refuse_nul(st)) != 0) {
		while ((rc = pg_stmt_step(st)) == DB_ROW)
			;
		return rc;
	}
	fill_args(st, &args);
	if ((rc = send_in_pipeline(st, &args)) != 0)
		return rc;
	return DB_DONE;
}

/*
 * The result that describes st's columns: its rows, running it now when
 * it has not run yet (with what is bound so far; its first step then
 * reads those rows). NULL when it fails: the step says why.
 */
static const PGresult *
columns(struct pg_stmt *st)
{
	if (st->result == NULL && execute(st) != 0)
		return NULL;
	return st->result;
}

int
pg_stmt_column_count(struct pg_stmt *st)
{
	const PGresult *res = columns(st);

	return res ? PQnfields(res) : 0;
}

const char *
pg_stmt_column_name(struct pg_stmt *st, int i)
{
	const PGresult *res = columns(st);

	return res ? PQfname(res, i) : NULL;
}

const char *
pg_stmt_column_decltype(struct pg_stmt *st, int i)
{
	const PGresult *res = columns(st);

	if (res == NULL || PQftable(res, i) == InvalidOid)
		return NULL;
	switch (PQftype(res, i)) {
	case OID_INT2:
	case OID_INT4:
	case OID_INT8:
	case OID_BOOL:
		return "INTEGER";
	case OID_FLOAT4:
	case OID_FLOAT8:
		return "REAL";
	case OID_BYTEA:
		return "BLOB";
	default:
		return "TEXT";
	}
}

static bool
on_row(const struct pg_stmt *st, int i)
{
	return st->result != NULL && st->row >= 0 &&
	    st->row < PQntuples(st->result) && i >= 0 && i < PQnfields(st->result);
}

enum db_type
pg_stmt_column_type(struct pg_stmt *st, int i)
{
	if (!on_row(st, i) || PQgetisnull(st->result, st->row, i))
		return DB_NULL;
	switch (PQftype(st->result, i)) {
	case OID_INT2:
	case OID_INT4:
	case OID_INT8:
	case OID_OID:
	case OID_BOOL:
		return DB_INTEGER;
	case OID_NUMERIC:
		return strpbrk(PQgetvalue(st->result, st->row, i), ".eEN") ? DB_REAL
									    : DB_INTEGER;
	case OID_FLOAT4:
	case OID_FLOAT8:
		return DB_REAL;
	case OID_BYTEA:
		return DB_BLOB;
	default:
		return DB_TEXT;
	}
}

const char *
pg_stmt_column_text(struct pg_stmt *st, int i)
{
	const char *value;

	if (!on_row(st, i) || PQgetisnull(st->result, st->row, i))
		return NULL;
	value = PQgetvalue(st->result, st->row, i);
	switch (PQftype(st->result, i)) {
	case OID_BOOL:
		st->bool_text[0] = value[0] == 't' ? '1' : '0';
		st->bool_text[1] = '\0';
		return st->bool_text;
	case OID_BYTEA:
		if (st->decoded[i] == NULL) {
			size_t len = 0;
			unsigned char *raw = PQunescapeBytea(
			    (const unsigned char *)value, &len);

			if (raw == NULL)
				return "";
			/* A copy with a NUL after it, as SQLite's text has. */
			st->decoded[i] = xmalloc(len + 1);
			memcpy(st->decoded[i], raw, len);
			st->decoded[i][len] = '\0';
			PQfreemem(raw);
			st->decoded_len[i] = len;
		}
		return (const char *)st->decoded[i];
	default:
		return value;
	}
}

size_t
pg_stmt_column_bytes(struct pg_stmt *st, int i)
{
	const char *text = pg_stmt_column_text(st, i);

	if (text == NULL)
		return 0;
	if (PQftype(st->result, i) == OID_BYTEA)
		return st->decoded_len[i];
	if (PQftype(st->result, i) == OID_BOOL)
		return 1;
	return (size_t)PQgetlength(st->result, st->row, i);
}

int64_t
pg_stmt_column_int(struct pg_stmt *st, int i)
{
	const char *text = pg_stmt_column_text(st, i);

	if (text == NULL)
		return 0;
	if (pg_stmt_column_type(st, i) == DB_REAL) {
		double real = strtod(text, NULL);

		return (int64_t)real;
	}
	return strtoll(text, NULL, 10);
}

double
pg_stmt_column_double(struct pg_stmt *st, int i)
{
	const char *text = pg_stmt_column_text(st, i);

	return text ? strtod(text, NULL) : 0.0;
}

/* Notices (NOTICE, WARNING from the server) are not daicho's output. */
static void
ignore_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/*
 * Why the connection to address failed, as one line; ERR_BUSY when the
 * server is not there or not accepting connections yet (retry), else
 * ERR_FAILED. The address is not repeated: it may hold a password.
 */
static int
connect_error(PGconn *conn, const char *address, struct err *err)
{
	const char *text = PQerrorMessage(conn);
	struct buf line = BUF_INIT;
	PGPing ping;
	int rc;

	/* libpq's message may span lines ("connection to server ... failed:"). */
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");

		if (len > 0) {
			if (line.len > 0)
				buf_adds(&line, "; ");
			buf_add(&line, p, len);
		}
		p += len + (p[len] == '\n');
	}
	ping = PQping(address);
	/*
	 * A server full of connections says so only in words (libpq gives a
	 * failed connection no SQLSTATE); it is busy, as a locked ledger is.
	 */
	if (ping == PQPING_NO_RESPONSE || ping == PQPING_REJECT ||
	    strstr(text, "too many clients") != NULL ||
	    strstr(text, "too many connections") != NULL)
		rc = err_set(err, ERR_BUSY, "cannot reach the PostgreSQL ledger "
		    "(%s; retry when the server is up)", line.buf);
	else
		rc = err_set(err, ERR_FAILED, "cannot connect to the PostgreSQL "
		    "ledger (%s)", line.buf);
	buf_release(&line);
	return rc;
}

/* An error about rc, the failure recorded on pg, while doing what. */
static int
conn_error(struct pg_conn *pg, int rc, const char *what, struct err *err)
{
	return err_set(err, rc == PG_RC_BUSY ? ERR_BUSY : ERR_FAILED,
	    "PostgreSQL ledger: %s failed (%s)", what, pg_errmsg(pg));
}

/*
 * Bring the schema to this daicho's, under the write lock: create it (and
 * the roles) in an empty database when create, else migrate it forward.
 * *created says whether it was made here.
 */
static int
prepare_schema(struct pg_conn *pg, bool create, bool *created,
    struct err *err)
{
	int64_t version = 0, exists = 0;
	int rc;

	*created = false;
	/*
	 * One round trip for what every command needs first: the session's
	 * lock timeout, the database's clock (a write transaction's first
	 * statement goes with its BEGIN: pg_begin_write_later()) and the
	 * schema's version. A database without daicho's schema fails the
	 * second (and so undoes the first: set it again).
	 */
	{
		char sql[192];
		int64_t now = 0;

		snprintf(sql, sizeof(sql), "SET lock_timeout = %lld; SELECT "
		    "(extract(epoch FROM clock_timestamp()) * 1000)::int8, "
		    "max(version) FROM daicho_schema",
		    (long long)pg->busy_timeout_ms);
		rc = query_pair(pg, sql, &now, &version);
		if (rc == 0)
			follow_clock(now);
	}
	exists = rc == 0;
	if (rc != 0 && strcmp(pg->sqlstate, "42P01") != 0)
		return conn_error(pg, rc, "reading the schema version", err);
	if (!exists && (rc = configure(pg)) != 0)
		return conn_error(pg, rc, "setting up the connection", err);
	if (version > (int64_t)schema_pg_migration_count)
		return err_set(err, ERR_FAILED, "the PostgreSQL ledger has schema "
		    "version %lld, newer than this daicho understands (%zu; upgrade "
		    "daicho)", (long long)version, schema_pg_migration_count);
	if (version == (int64_t)schema_pg_migration_count)
		return 0;
	if (!exists && !create)
		return err_set(err, ERR_FAILED, "this PostgreSQL database holds no "
		    "daicho ledger (run 'daicho init --ledger ADDRESS' as its owner "
		    "to make one)");
	if ((rc = pg_begin_write(pg)) != 0)
		return conn_error(pg, rc, "starting a transaction", err);
	/* Re-read under the lock: another process may have done it. */
	if ((rc = query_int(pg, "SELECT count(*) FROM pg_catalog.pg_class c"
	    " WHERE c.relname = 'daicho_schema'"
	    " AND pg_catalog.pg_table_is_visible(c.oid)", &exists)) != 0 ||
	    (exists && (rc = query_int(pg, "SELECT max(version) FROM daicho_schema",
	    &version)) != 0))
		goto fail;
	for (int64_t v = exists ? version : 0;
	     v < (int64_t)schema_pg_migration_count; v++) {
		if ((rc = pg_exec(pg, schema_pg_migrations[v])) != 0)
			goto fail;
	}
	if (!exists && (rc = pg_exec(pg, schema_pg_roles)) != 0)
		goto fail;
	{
		struct buf sql = BUF_INIT;

		buf_addf(&sql, "DELETE FROM daicho_schema; INSERT INTO daicho_schema"
		    "(version) VALUES (%zu)", schema_pg_migration_count);
		rc = pg_exec(pg, sql.buf);
		buf_release(&sql);
		if (rc != 0)
			goto fail;
	}
	if ((rc = pg_commit(pg, true)) != 0)
		goto fail;
	*created = !exists;
	return 0;
fail:
	if (exists && strcmp(pg->sqlstate, "42501") == 0)
		/* An agent's or a person's role, not the owner's. */
		err_set(err, ERR_FAILED, "PostgreSQL ledger: its schema is version "
		    "%lld and this daicho's %zu, and only the database's owner may "
		    "migrate it (%s): run any daicho command on it once as the "
		    "owner, e.g. 'daicho status'", (long long)version,
		    schema_pg_migration_count, pg_errmsg(pg));
	else
		conn_error(pg, rc, exists ? "migrating the ledger's schema"
					  : "creating the ledger's schema", err);
	PQclear(PQexec(pg->conn, "ROLLBACK"));
	return -(int)err->code;
}

int
pg_connect(const char *address, bool create, int64_t busy_timeout_ms,
    struct pg_conn **out, bool *created, struct err *err)
{
	static const char *const keys[] = { "dbname",
		"fallback_application_name", NULL };
	const char *values[] = { address, "daicho", NULL };
	struct pg_conn *pg = xcalloc(1, sizeof(*pg));
	int rc;

	*out = NULL;
	pg->unconfirmed = SIZE_MAX;
	buf_init(&pg->message);
	pg->conn = PQconnectdbParams(keys, values, 1);
	if (pg->conn == NULL || PQstatus(pg->conn) != CONNECTION_OK) {
		/*
		 * A server starting up or shutting down (a restart) refuses
		 * for a moment: try again for at most the busy timeout. One
		 * that answers now was only just up: once more at once.
		 */
		int64_t deadline = clock_mono_ms() + busy_timeout_ms;
		int pause_ms = 50;
		PGPing ping;

		while ((ping = PQping(address)) == PQPING_REJECT ||
		    ping == PQPING_OK) {
			/* Full of connections: wait as for a busy ledger. */
			bool full = strstr(PQerrorMessage(pg->conn),
			    "too many clients") != NULL;

			if (ping == PQPING_REJECT || full) {
				if (clock_mono_ms() + pause_ms > deadline)
					break;
				poll(NULL, 0, pause_ms);
				if (pause_ms < 1000)
					pause_ms *= 2;
			}
			PQfinish(pg->conn);
			pg->conn = PQconnectdbParams(keys, values, 1);
			if (PQstatus(pg->conn) == CONNECTION_OK ||
			    (ping == PQPING_OK && !full))
				break;
		}
	}
	if (pg->conn == NULL || PQstatus(pg->conn) != CONNECTION_OK) {
		rc = connect_error(pg->conn, address, err);
		pg_disconnect(pg);
		return rc;
	}
	PQsetNoticeProcessor(pg->conn, ignore_notice, NULL);
	/* Lock waits end as SQLite's busy timeout does: exit 75, retry. */
	pg->busy_timeout_ms = busy_timeout_ms;
	if ((rc = prepare_schema(pg, create, created, err)) < 0) {
		pg_disconnect(pg);
		return rc;
	}
	pg->cold = true;
	*out = pg;
	return 0;
}

void
pg_leave_to_parent(struct pg_conn *pg)
{
	int fd = PQsocket(pg->conn);

	if (fd >= 0)
		close(fd);
}

void
pg_disconnect(struct pg_conn *pg)
{
	if (pg == NULL)
		return;
	PQfinish(pg->conn);
	buf_release(&pg->message);
	forget_prepared(pg);
	free(pg->prepared);
	free(pg);
}

/* libpq connects itself. */
bool
pg_pooled(void)
{
	return false;
}

/* Nothing to attach to: pg_connect() connects. */
bool
pg_attach(const char *address)
{
	(void)address;
	return false;
}

/* A lost connection is the command's failure: nothing to run elsewhere. */
void
pg_on_lost_early(void (*fn)(void))
{
	(void)fn;
}
