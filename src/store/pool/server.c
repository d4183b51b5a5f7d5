/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The pool's server (pool/pool.h), in daicho-pg: one thread per client
 * session, each with a connection of its own for the session's life,
 * taken from the warm ones kept between sessions or made anew; threads,
 * like connections, are kept for the next sessions (session_thread()). The
 * statements run through store/pg/libpq.c as they would in the client's own
 * process; a client that goes away mid-transaction (exit, kill -9) has its
 * transaction rolled back before the connection serves anyone else.
 *
 * At most opt.active sessions are served at once; later clients wait
 * their turn, oldest first (dispatch()). Every write waits on one lock
 * anyway, and a few busy server processes get through a burst of short
 * commands faster than one per command: on 2 cores, 32 claimers at once
 * cost the server about a third less CPU a claim served 4 at a time
 * (bench/RESULTS.md, session 13). A client that has waited QUEUE_WAIT_MS
 * is served anyway, so a session whose client stalls (stopped, reading a
 * slow pipe) holds the others up for that long at most.
 */
#include "store/pool/pool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/pg/pg.h"
#include "core/version.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/wire.h"

/* How long a stopping pool waits for its sessions to end. */
#define STOP_GRACE_MS 10000
/* How long a stopping pool waits for its idle session threads to end. */
#define IDLE_THREADS_END_MS 2000
/* How long 'pool stop' waits for the pool to stop taking new clients. */
#define STOP_CLOSE_MS 5000
/* How long a client waits for its turn before it is served anyway. */
#define QUEUE_WAIT_MS 200

/* A client accepted, waiting for its turn. */
struct waiting {
	int fd;
	int64_t since_ms;         /* accepted (clock_mono_ms()) */
};

/* A client given its turn. */
struct turn {
	int fd;
	bool late;                /* no turn was free: it had waited
				     QUEUE_WAIT_MS */
};

struct pool {
	char *address;
	struct pool_options opt;
	int listen_fd;
	int wake[2];              /* a stop or a signal wakes the accept loop */
	pthread_mutex_t lock;     /* everything below */
	pthread_cond_t changed;   /* sessions_now or threads_now went down,
				     or closed */
	pthread_cond_t work;      /* a client handed to idle threads, or
				     stopping */
	struct waiting *queue;    /* accepted clients waiting, oldest first */
	size_t nqueue, queue_alloc;
	struct turn *handed;      /* clients given to idle threads */
	size_t nhanded, handed_alloc;
	int64_t serving;          /* sessions being served */
	int64_t served_after_wait; /* commands served late (struct turn) */
	int64_t threads_now;      /* session threads, serving or idle */
	int64_t threads_idle;     /* idle threads not yet handed a client */
	struct pg_conn **idle;
	size_t nidle, idle_alloc;
	int64_t sessions_now;     /* accepted connections, waiting or served,
				     for winding down */
	int64_t commands_now, commands_total; /* sessions of commands */
	int64_t started_ms;
	int64_t quiet_since_ms;   /* when the last command's session ended */
	bool stopping;
	bool closed;              /* no socket, no lock: a new pool may start */
};

/* For the signal handler. */
static int wake_fd = -1;

static void
on_signal(int sig)
{
	int saved = errno;
	char c = (char)sig;

	if (wake_fd >= 0 && write(wake_fd, &c, 1) < 0) {
		/* Nothing to do: the pipe is full, so a wake is already there. */
	}
	errno = saved;
}

static void
wake(struct pool *pool)
{
	on_signal(0);
	(void)pool;
}

/* A warm connection, or a new one; 0 or a negative err code. */
static int
take_connection(struct pool *pool, int64_t busy_timeout_ms,
    struct pg_conn **out, struct err *err)
{
	bool created;
	int rc;

	*out = NULL;
	pthread_mutex_lock(&pool->lock);
	if (pool->nidle > 0)
		*out = pool->idle[--pool->nidle];
	pthread_mutex_unlock(&pool->lock);
	if (*out != NULL) {
		if ((rc = pg_set_busy_timeout(*out, busy_timeout_ms)) == 0)
			return 0;
		/* Lost while idle (a server restart): a new one. */
		pg_disconnect(*out);
		*out = NULL;
	}
	if ((rc = pg_connect(pool->address, false, busy_timeout_ms, out,
	    &created, err)) == 0)
		pg_keep_prepared(*out);
	return rc;
}

/* Keep conn warm for the next session, unless it is broken or extra. */
static void
give_back(struct pool *pool, struct pg_conn *conn)
{
	if (conn == NULL)
		return;
	if (pg_session_reset(conn) == 0) {
		pthread_mutex_lock(&pool->lock);
		if (!pool->stopping && pool->nidle < (size_t)pool->opt.keep) {
			xgrow((void **)&pool->idle, &pool->idle_alloc, pool->nidle + 1,
			    sizeof(*pool->idle));
			pool->idle[pool->nidle++] = conn;
			conn = NULL;
		}
		pthread_mutex_unlock(&pool->lock);
	}
	pg_disconnect(conn);
}

/*
 * Begin reply with conn's outcome rc (0 or a PG_RC_ code); begun: the
 * request's transaction was begun. Every reply carries the pool's clock
 * offset, the database's clock as this host's sees it.
 */
static void
put_outcome(struct wire_msg *reply, struct pg_conn *conn, int rc, bool begun)
{
	struct pool_head head = {
		.rc = rc,
		.failed = conn != NULL && pg_failed(conn),
		.begun = begun,
		.sqlstate = rc != 0 && conn ? pg_sqlstate(conn) : NULL,
		.message = rc != 0 && conn ? pg_errmsg(conn) : NULL,
		.changes = conn != NULL ? pg_changes(conn) : 0,
		.clock_offset_ms = clock_offset_ms(),
	};

	pool_put_head(reply, &head);
}

/* Reply to a status or stop request. */
static void
put_status(struct pool *pool, struct wire_msg *reply)
{
	int64_t waiting, served_after_wait;

	put_outcome(reply, NULL, 0, false);
	pthread_mutex_lock(&pool->lock);
	wire_put_i64(reply, (int64_t)getpid());
	wire_put_i64(reply, pool->started_ms);
	wire_put_i64(reply, pool->commands_now);
	wire_put_i64(reply, pool->commands_total);
	wire_put_i64(reply, (int64_t)pool->nidle);
	waiting = (int64_t)pool->nqueue;
	served_after_wait = pool->served_after_wait;
	pthread_mutex_unlock(&pool->lock);
	wire_put_str(reply, DAICHO_VERSION);
	wire_put_i64(reply, waiting);
	wire_put_i64(reply, pool->opt.active);
	wire_put_i64(reply, served_after_wait);
}

/*
 * Run a POOL_STEP request on conn and build its reply; 0 or its PG_RC_.
 * A POOL_STEP_LATER (later) goes to the server with the next statement.
 */
static int
step(struct pg_conn *conn, bool begun, bool later, struct wire_msg *req,
    struct wire_msg *reply)
{
	const char *sql = wire_get_str(req);
	int64_t n = wire_get_i64(req);
	struct pg_stmt *st;
	int rc, ncolumns;

	if (sql == NULL || n < 0 || n > 100000 || wire_bad(req)) {
		put_outcome(reply, conn, PG_RC_ERROR, begun);
		return PG_RC_ERROR;
	}
	st = pg_stmt_new(conn, sql);
	for (int i = 1; i <= n; i++) {
		int64_t type = wire_get_i64(req), bits;
		const char *data;
		size_t len;
		double d;

		switch (type) {
		case POOL_INT:
			pg_stmt_bind_int(st, i, wire_get_i64(req));
			break;
		case POOL_DOUBLE:
			bits = wire_get_i64(req);
			memcpy(&d, &bits, sizeof(d));
			pg_stmt_bind_double(st, i, d);
			break;
		case POOL_TEXT:
		case POOL_BLOB:
			data = wire_get_bytes(req, &len);
			pg_stmt_bind_bytes(st, i, data, len, type == POOL_BLOB, false);
			break;
		default:
			pg_stmt_bind_null(st, i);
			break;
		}
	}
	rc = wire_bad(req) ? PG_RC_ERROR
	   : later	   ? pg_stmt_step_later(st)
			   : pg_stmt_step(st);
	if (rc != DB_ROW && rc != DB_DONE) {
		put_outcome(reply, conn, rc, begun);
		pg_stmt_free(st);
		return rc;
	}
	put_outcome(reply, conn, 0, begun);
	if (later) {
		/* Sent, not run yet: it has no rows to send back. */
		pg_stmt_free(st);
		return 0;
	}
	ncolumns = pg_stmt_column_count(st);
	wire_put_i64(reply, ncolumns);
	for (int i = 0; i < ncolumns; i++) {
		wire_put_str(reply, pg_stmt_column_name(st, i));
		wire_put_str(reply, pg_stmt_column_decltype(st, i));
	}
	for (; rc == DB_ROW; rc = pg_stmt_step(st)) {
		wire_put_i64(reply, 1);
		for (int i = 0; i < ncolumns; i++) {
			const char *text = pg_stmt_column_text(st, i);

			wire_put_i64(reply, pg_stmt_column_type(st, i));
			wire_put_bytes(reply, text, text ? pg_stmt_column_bytes(st, i)
							 : 0);
		}
	}
	wire_put_i64(reply, 0);
	pg_stmt_free(st);
	return 0;
}

/*
 * Run one request of the session on conn; its reply into reply. A request
 * may first begin the transaction it is the first statement of (saving the
 * round trip a BEGIN of its own would cost, with the write lock held).
 * Returns 0, or the PG_RC_ code the reply carries.
 */
static int
handle(struct pg_conn *conn, struct wire_msg *req, struct wire_msg *reply)
{
	int64_t begin = wire_get_i64(req);
	bool begun = false;
	int rc;

	if (begin == POOL_BEGIN_WRITE || begin == POOL_BEGIN_READ) {
		/* A statement takes its BEGIN with it to the server, too. */
		rc = begin == POOL_BEGIN_READ	      ? pg_begin_read(conn)
		   : wire_kind(req) == POOL_STEP ? pg_begin_write_later(conn)
						 : pg_begin_write(conn);
		if (rc != 0) {
			put_outcome(reply, conn, rc, false);
			return rc;
		}
		begun = true;
	}
	switch (wire_kind(req)) {
	case POOL_EXEC: {
		const char *sql = wire_get_str(req);

		rc = sql ? pg_exec(conn, sql) : PG_RC_ERROR;
		break;
	}
	case POOL_COMMIT:
		rc = pg_commit(conn, wire_get_i64(req) != 0);
		break;
	case POOL_ROLLBACK:
		pg_rollback(conn);
		rc = 0;
		break;
	case POOL_AFTER_IMPORT:
		rc = pg_after_import(conn);
		break;
	case POOL_LAST_INSERT_ID: {
		int64_t id = pg_last_insert_id(conn);

		put_outcome(reply, conn, 0, begun);
		wire_put_i64(reply, id);
		return 0;
	}
	case POOL_STEP:
	case POOL_STEP_LATER:
		return step(conn, begun, wire_kind(req) == POOL_STEP_LATER, req,
		    reply);
	default:
		rc = PG_RC_ERROR;
		break;
	}
	put_outcome(reply, conn, rc, begun);
	return rc;
}

/*
 * Wait (pool->lock held) until pool->changed is signalled or the
 * monotonic clock reaches deadline_ms; false once it has.
 */
static bool
wait_changed(struct pool *pool, int64_t deadline_ms)
{
	int64_t left = deadline_ms - clock_mono_ms();
	struct timespec ts;

	if (left <= 0)
		return false;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += left / 1000;
	ts.tv_nsec += (left % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(&pool->changed, &pool->lock, &ts);
	return true;
}

/*
 * Serve a client that said hello, on conn, until it goes. A request sent
 * for later (POOL_STEP_LATER) has no reply; should it fail, its reply is
 * held and answers the next request instead, which does not run: the
 * transaction has failed (a COMMIT rolls it back; a ROLLBACK runs).
 */
static void
serve_client(int fd, struct pg_conn *conn)
{
	struct wire_msg req = WIRE_MSG_INIT, reply = WIRE_MSG_INIT;
	struct wire_msg held = WIRE_MSG_INIT;
	bool holding = false;

	while (wire_recv(fd, &req) == 1) {
		int kind = wire_kind(&req);

		if (kind == POOL_STEP_LATER) {
			if (!holding && handle(conn, &req, &held) != 0)
				holding = true;
			continue;
		}
		if (holding && kind != POOL_ROLLBACK) {
			holding = false;
			if (kind == POOL_COMMIT)
				pg_rollback(conn);
			if (wire_send(fd, &held) < 0)
				break;
			continue;
		}
		holding = false;
		handle(conn, &req, &reply);
		if (wire_send(fd, &reply) < 0)
			break;
	}
	wire_release(&req);
	wire_release(&reply);
	wire_release(&held);
}

/* Check a client's hello; 0, or a PG_RC_ code with why in *why. */
static int
check_hello(struct pool *pool, struct wire_msg *req, int64_t *busy_timeout_ms,
    const char **why)
{
	int64_t protocol = wire_get_i64(req);
	const char *version = wire_get_str(req);
	const char *address = wire_get_str(req);

	*busy_timeout_ms = wire_get_i64(req);
	*why = NULL;
	if (wire_bad(req) || protocol != POOL_PROTOCOL || version == NULL ||
	    strcmp(version, DAICHO_VERSION) != 0)
		*why = "this pool is another daicho version's";
	else if (address == NULL || strcmp(address, pool->address) != 0)
		*why = "this pool serves another ledger";
	return *why ? PG_RC_ERROR : 0;
}

/* Serve the client given turn, from its first request to its end. */
static void
run_session(struct pool *pool, struct turn turn)
{
	int fd = turn.fd;
	struct wire_msg req = WIRE_MSG_INIT, reply = WIRE_MSG_INIT;
	struct pg_conn *conn = NULL;
	bool command = false;

	if (wire_recv(fd, &req) == 1) {
		int kind = wire_kind(&req);
		int64_t busy_timeout_ms;
		const char *why;
		struct pool_head head = { .rc = PG_RC_ERROR };
		struct err err = ERR_INIT;

		if (kind == POOL_STOP) {
			/*
			 * Answer once the socket and the lock are gone, so that
			 * whatever the caller runs next finds no pool, and may
			 * start one, while this one lets its sessions end.
			 */
			int64_t deadline = clock_mono_ms() + STOP_CLOSE_MS;

			pthread_mutex_lock(&pool->lock);
			pool->stopping = true;
			pthread_mutex_unlock(&pool->lock);
			wake(pool);
			pthread_mutex_lock(&pool->lock);
			while (!pool->closed && wait_changed(pool, deadline))
				;
			pthread_mutex_unlock(&pool->lock);
		}
		if (kind == POOL_STATUS || kind == POOL_STOP) {
			put_status(pool, &reply);
			(void)wire_send(fd, &reply);
		} else if (!(command = kind == POOL_HELLO)) {
			pool_put_head(&reply, &head);
			(void)wire_send(fd, &reply);
		} else if (check_hello(pool, &req, &busy_timeout_ms, &why) != 0) {
			head.message = why;
			head.sqlstate = "08004";
			pool_put_head(&reply, &head);
			(void)wire_send(fd, &reply);
		} else if (take_connection(pool, busy_timeout_ms, &conn, &err) < 0) {
			head.rc = err.code == ERR_BUSY ? PG_RC_BUSY : PG_RC_ERROR;
			head.sqlstate = "08001";
			head.message = err.message.buf;
			pool_put_head(&reply, &head);
			(void)wire_send(fd, &reply);
		} else {
			pthread_mutex_lock(&pool->lock);
			pool->commands_now++;
			pool->commands_total++;
			pool->served_after_wait += turn.late;
			pthread_mutex_unlock(&pool->lock);
			put_outcome(&reply, conn, 0, false);
			if (wire_send(fd, &reply) == 0)
				serve_client(fd, conn);
			pthread_mutex_lock(&pool->lock);
			pool->commands_now--;
			pthread_mutex_unlock(&pool->lock);
		}
		err_release(&err);
	}
	close(fd);
	give_back(pool, conn);
	wire_release(&req);
	wire_release(&reply);
	pthread_mutex_lock(&pool->lock);
	pool->sessions_now--;
	/* Idle is no command for a while: asking for status is none. */
	if (command)
		pool->quiet_since_ms = clock_mono_ms();
	pthread_cond_broadcast(&pool->changed);
	pthread_mutex_unlock(&pool->lock);
}

struct session {
	struct pool *pool;
	struct turn turn;
};

static void *session_thread(void *arg);

/*
 * Whether the oldest waiting client may be served now (pool->lock held):
 * a turn is free, it has waited QUEUE_WAIT_MS, or the pool is stopping
 * (everyone accepted is answered).
 */
static bool
may_serve_next(const struct pool *pool, int64_t now_ms)
{
	return pool->nqueue > 0 &&
	       (pool->serving < pool->opt.active || pool->stopping ||
		   now_ms - pool->queue[0].since_ms >= QUEUE_WAIT_MS);
}

/*
 * The oldest waiting client, out of the queue, to be served now
 * (may_serve_next(); pool->lock held): it takes a turn.
 */
static struct turn
next_waiting(struct pool *pool)
{
	struct turn turn = { pool->queue[0].fd,
	    pool->serving >= pool->opt.active && !pool->stopping };

	pool->serving++;
	memmove(pool->queue, pool->queue + 1,
	    --pool->nqueue * sizeof(*pool->queue));
	return turn;
}

/*
 * Serve the waiting clients that may be served now (pool->lock held): each
 * goes to an idle thread, else to a new one. A client no thread can be
 * made for is closed (it then connects directly); the next ones are left
 * waiting for a thread that ends its session, unless none serves.
 */
static void
dispatch(struct pool *pool)
{
	int64_t now_ms = clock_mono_ms();

	while (may_serve_next(pool, now_ms)) {
		struct turn turn = next_waiting(pool);
		struct session *s;
		pthread_attr_t attr;
		pthread_t thread;
		int rc;

		if (pool->threads_idle > 0) {
			pool->threads_idle--;
			xgrow((void **)&pool->handed, &pool->handed_alloc,
			    pool->nhanded + 1, sizeof(*pool->handed));
			pool->handed[pool->nhanded++] = turn;
			pthread_cond_signal(&pool->work);
			continue;
		}
		s = xcalloc(1, sizeof(*s));
		s->pool = pool;
		s->turn = turn;
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		rc = pthread_create(&thread, &attr, session_thread, s);
		pthread_attr_destroy(&attr);
		if (rc == 0) {
			pool->threads_now++;
			continue;
		}
		close(turn.fd);
		free(s);
		pool->serving--;
		pool->sessions_now--;
		pthread_cond_broadcast(&pool->changed);
		/*
		 * The others wait for a session to end, or for their time:
		 * a thread that ends one takes the next.
		 */
		if (pool->serving > 0)
			break;
	}
}

/*
 * A session thread: it serves its first client, then the oldest one
 * waiting if it may be served now (may_serve_next()), else waits to be
 * handed the next (dispatch()), while fewer than opt.keep threads are idle
 * and the pool is not stopping.
 * A thread kept keeps its stack mapped: a new thread for every command
 * cost the pool its stack's page faults, then glibc's madvise() of the
 * whole stack at the thread's exit.
 */
static void *
session_thread(void *arg)
{
	struct session *s = arg;
	struct pool *pool = s->pool;
	struct turn turn = s->turn;

	free(s);
	for (;;) {
		run_session(pool, turn);
		pthread_mutex_lock(&pool->lock);
		pool->serving--;
		/* The turn just freed goes to the oldest client waiting. */
		if (may_serve_next(pool, clock_mono_ms())) {
			turn = next_waiting(pool);
			pthread_mutex_unlock(&pool->lock);
			continue;
		}
		if (pool->stopping || pool->threads_idle >= pool->opt.keep)
			break;
		pool->threads_idle++;
		while (pool->nhanded == 0 && !pool->stopping)
			pthread_cond_wait(&pool->work, &pool->lock);
		/* Stopping, and nobody handed to this thread. */
		if (pool->nhanded == 0) {
			pool->threads_idle--;
			break;
		}
		turn = pool->handed[--pool->nhanded];
		pthread_mutex_unlock(&pool->lock);
	}
	pool->threads_now--;
	pthread_cond_broadcast(&pool->changed);
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

/* Accept a client on the pool's socket: it waits for its turn. */
static void
accept_client(struct pool *pool)
{
	struct ucred peer;
	socklen_t len = sizeof(peer);
	int fd = accept4(pool->listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	/* The directory is the user's alone; this says so again. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) < 0 ||
	    peer.uid != geteuid()) {
		close(fd);
		return;
	}
	pthread_mutex_lock(&pool->lock);
	pool->sessions_now++;
	xgrow((void **)&pool->queue, &pool->queue_alloc, pool->nqueue + 1,
	    sizeof(*pool->queue));
	pool->queue[pool->nqueue++] = (struct waiting){ fd, clock_mono_ms() };
	dispatch(pool);
	pthread_mutex_unlock(&pool->lock);
}

/* Accept clients until stopped (a request, a signal, or idle too long). */
static void
accept_loop(struct pool *pool)
{
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = pool->listen_fd, .events = POLLIN },
			{ .fd = pool->wake[0], .events = POLLIN },
		};
		int timeout = -1;
		bool stop;

		pthread_mutex_lock(&pool->lock);
		/*
		 * Idle: no command for opt.idle_ms, and none waiting. Sessions
		 * that are no command (status) do not count; one still saying
		 * hello when the pool stops is served while it winds down.
		 */
		if (pool->opt.idle_ms > 0 && pool->commands_now == 0 &&
		    pool->nqueue == 0) {
			int64_t left = pool->quiet_since_ms + pool->opt.idle_ms -
			    clock_mono_ms();

			if (left <= 0)
				pool->stopping = true;
			timeout = left <= 0 ? 0 : left > 60000 ? 60000 : (int)left;
		} else if (pool->opt.idle_ms > 0) {
			timeout = 1000;
		}
		/* Wake when the oldest waiting client has waited long enough. */
		if (pool->nqueue > 0) {
			int64_t left = pool->queue[0].since_ms + QUEUE_WAIT_MS -
			    clock_mono_ms();

			if (left < 0)
				left = 0;
			if (timeout < 0 || left < timeout)
				timeout = (int)left;
		}
		stop = pool->stopping;
		pthread_mutex_unlock(&pool->lock);
		if (stop)
			return;
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
			return;
		if (pfd[1].revents & POLLIN) {
			char c;

			if (read(pool->wake[0], &c, 1) == 1) {
				pthread_mutex_lock(&pool->lock);
				pool->stopping = true;
				pthread_mutex_unlock(&pool->lock);
			}
		}
		if (pfd[0].revents & POLLIN)
			accept_client(pool);
		pthread_mutex_lock(&pool->lock);
		dispatch(pool);
		pthread_mutex_unlock(&pool->lock);
	}
}

/* Let the sessions end (for a while), then close every connection. */
static void
wind_down(struct pool *pool)
{
	int64_t deadline = clock_mono_ms() + STOP_GRACE_MS;

	pthread_mutex_lock(&pool->lock);
	/*
	 * Clients still waiting are served; idle threads end now: none may
	 * outlive the pool they wait on.
	 */
	pool->stopping = true;
	dispatch(pool);
	pthread_cond_broadcast(&pool->work);
	while (pool->sessions_now > 0 && wait_changed(pool, deadline))
		;
	/*
	 * Their own moment, even when a session outlived the grace: every
	 * thread left then serves a session.
	 */
	deadline = clock_mono_ms() + IDLE_THREADS_END_MS;
	while (pool->threads_now > pool->sessions_now &&
	    wait_changed(pool, deadline))
		;
	while (pool->nidle > 0)
		pg_disconnect(pool->idle[--pool->nidle]);
	pthread_mutex_unlock(&pool->lock);
}

/*
 * Take the lock file beside the socket at path, for the pool's life: one
 * pool per socket. A stopping pool removes the file it locked, so the one
 * locked here must still be the one at its path. 0 or a negative err code.
 */
static int
lock_pool(const char *path, int *lock_fd, struct err *err)
{
	struct buf lock_path = BUF_INIT;
	struct stat held, named;
	int rc = 0;

	buf_addf(&lock_path, "%s.lock", path);
	for (;;) {
		*lock_fd = open(lock_path.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (*lock_fd < 0) {
			rc = err_set(err, ERR_FAILED, "cannot open the pool's lock "
			    "file %s (%s)", lock_path.buf, strerror(errno));
			break;
		}
		if (flock(*lock_fd, LOCK_EX | LOCK_NB) < 0) {
			rc = err_set(err, ERR_CONFLICT, "a pool already serves this "
			    "ledger for this user (%s; 'daicho pool status')", path);
			break;
		}
		if (fstat(*lock_fd, &held) == 0 && stat(lock_path.buf, &named) == 0 &&
		    held.st_ino == named.st_ino && held.st_dev == named.st_dev)
			break;
		/* Removed by a pool that stopped meanwhile: lock the new one. */
		close(*lock_fd);
	}
	buf_release(&lock_path);
	return rc;
}

/* Remove the lock file of the pool at path (its lock still held). */
static void
unlock_pool(const char *path)
{
	struct buf lock_path = BUF_INIT;

	buf_addf(&lock_path, "%s.lock", path);
	unlink(lock_path.buf);
	buf_release(&lock_path);
}

/*
 * Make the pool for address: take the lock file beside the socket (one
 * pool per ledger and user), check the ledger with one connection (kept
 * warm), and listen. 0 or a negative err code.
 */
static int
set_up(struct pool *pool, const char *address, struct buf *sock_path,
    int *lock_fd, struct err *err)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct pg_conn *conn;
	bool created;
	int rc;

	if ((rc = pool_socket_path(address, true, sock_path, err)) < 0)
		return rc;
	if (sock_path->len >= sizeof(sun.sun_path))
		return err_set(err, ERR_FAILED, "the pool's socket path %s is too "
		    "long (set XDG_RUNTIME_DIR to a shorter directory)", sock_path->buf);
	if ((rc = lock_pool(sock_path->buf, lock_fd, err)) < 0)
		return rc;
	/* A socket left by a pool that died: nobody holds the lock. */
	unlink(sock_path->buf);
	if ((rc = pg_connect(address, false, store_busy_timeout_ms(), &conn,
	    &created, err)) < 0)
		return rc;
	pg_keep_prepared(conn);
	/*
	 * Learn the database's clock (a write BEGIN reads it): clients take
	 * it from every reply, their own transactions beginning with their
	 * first statement.
	 */
	if ((rc = pg_begin_write(conn)) != 0) {
		rc = err_set(err, rc == PG_RC_BUSY ? ERR_BUSY : ERR_FAILED,
		    "cannot read the ledger's clock (%s)", pg_errmsg(conn));
		pg_disconnect(conn);
		return rc;
	}
	pg_rollback(conn);
	give_back(pool, conn);
	memcpy(sun.sun_path, sock_path->buf, sock_path->len + 1);
	pool->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (pool->listen_fd < 0 ||
	    bind(pool->listen_fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    chmod(sock_path->buf, 0600) < 0 || listen(pool->listen_fd, 512) < 0)
		return err_set(err, ERR_FAILED, "cannot listen on %s (%s)",
		    sock_path->buf, strerror(errno));
	return 0;
}

/* Set up, say so on ready_fd (when >= 0) and serve until stopped. */
static int
serve(const char *address, const struct pool_options *opt, int ready_fd,
    struct buf *sock_path, struct err *err)
{
	struct pool pool = { .listen_fd = -1, .wake = { -1, -1 } };
	struct sigaction sa = { .sa_handler = on_signal };
	int lock_fd = -1, rc;

	pool.address = xstrdup(address);
	pool.opt = *opt;
	if (pool.opt.active < 1)
		pool.opt.active = 1;
	pool.started_ms = clock_now_ms();
	pool.quiet_since_ms = clock_mono_ms();
	pthread_mutex_init(&pool.lock, NULL);
	pthread_cond_init(&pool.changed, NULL);
	pthread_cond_init(&pool.work, NULL);
	if (pipe2(pool.wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		rc = err_set(err, ERR_FAILED, "cannot make a pipe (%s)",
		    strerror(errno));
		goto done;
	}
	if ((rc = set_up(&pool, address, sock_path, &lock_fd, err)) < 0)
		goto done;
	wake_fd = pool.wake[1];
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Ctrl-Z on a pool in the foreground would stall every command. */
	signal(SIGTSTP, SIG_IGN);
	if (ready_fd >= 0) {
		(void)!write(ready_fd, "", 1);
		close(ready_fd);
		ready_fd = -1;
	}
	if (opt->ready != NULL)
		opt->ready(sock_path->buf, opt->ready_arg);
	accept_loop(&pool);
	/* New clients find no pool, and connect directly. */
	close(pool.listen_fd);
	pool.listen_fd = -1;
	unlink(sock_path->buf);
	/* A new pool may start while this one lets its sessions end. */
	unlock_pool(sock_path->buf);
	close(lock_fd);
	lock_fd = -1;
	pthread_mutex_lock(&pool.lock);
	pool.closed = true;
	pthread_cond_broadcast(&pool.changed);
	pthread_mutex_unlock(&pool.lock);
	wind_down(&pool);
	wake_fd = -1;
done:
	if (pool.listen_fd >= 0)
		close(pool.listen_fd);
	if (lock_fd >= 0)
		close(lock_fd);
	for (int i = 0; i < 2; i++)
		if (pool.wake[i] >= 0)
			close(pool.wake[i]);
	while (pool.nidle > 0)
		pg_disconnect(pool.idle[--pool.nidle]);
	free(pool.idle);
	free(pool.queue);
	free(pool.handed);
	free(pool.address);
	return rc;
}

int
pool_serve(const char *address, const struct pool_options *opt, int64_t *pid,
    struct buf *sock_path, struct err *err)
{
	struct buf why = BUF_INIT;
	int ready[2], rc;
	pid_t child;

	*pid = getpid();
	if (opt->foreground)
		return serve(address, opt, -1, sock_path, err);
	if (pipe2(ready, O_CLOEXEC) < 0)
		return err_set(err, ERR_FAILED, "cannot make a pipe (%s)",
		    strerror(errno));
	fflush(NULL);
	if ((child = fork()) < 0) {
		close(ready[0]);
		close(ready[1]);
		return err_set(err, ERR_FAILED, "cannot start the pool (%s)",
		    strerror(errno));
	}
	if (child == 0) {
		int null = open("/dev/null", O_RDWR);

		close(ready[0]);
		setsid();
		/*
		 * Nothing of the caller's stays open: a pipe held here would
		 * keep whoever reads it (a shell's $(...), a test) waiting.
		 */
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			if (null > 2)
				close(null);
		}
		close_range(3, (unsigned)ready[1] - 1, 0);
		close_range((unsigned)ready[1] + 1, ~0U, 0);
		rc = serve(address, opt, ready[1], sock_path, err);
		/* Before it served: the parent reads why. */
		if (rc < 0)
			(void)!write(ready[1], err->message.buf, err->message.len);
		_exit(rc < 0 ? -rc : 0);
	}
	close(ready[1]);
	/* One byte when serving; the reason when it could not. */
	rc = buf_read_fd(&why, ready[0]);
	close(ready[0]);
	if (rc == 0 && why.len == 1 && why.buf[0] == '\0') {
		*pid = child;
		buf_release(&why);
		return pool_socket_path(address, false, sock_path, err);
	}
	{
		int status = 0;

		waitpid(child, &status, 0);
		rc = err_set(err, WIFEXITED(status) && WEXITSTATUS(status) ?
		    WEXITSTATUS(status) : ERR_FAILED, "%s", why.len ? why.buf :
		    "the pool could not start");
	}
	buf_release(&why);
	return rc;
}
