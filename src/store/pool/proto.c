/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * What both ends of the pool share: where its socket is, dialing it, and
 * the two requests that need no ledger connection (status, stop).
 */
#include "store/pool/pool.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/clock.h"
#include "util/wire.h"

extern char **environ;

static int
compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* FNV-1a, 64 bits, over len bytes, continuing from hash. */
static uint64_t
fnv1a(uint64_t hash, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		hash ^= p[i];
		hash *= 0x100000001b3ULL;
	}
	return hash;
}

/*
 * What decides where a connection goes and as whom: the address, every
 * PG* variable (host, user, password, service, TLS...) and HOME (where
 * libpq finds .pgpass and .pg_service.conf), hashed.
 */
static uint64_t
connection_key(const char *address)
{
	uint64_t hash = 0xcbf29ce484222325ULL;
	const char **vars;
	size_t n = 0, count = 0;
	const char *home = getenv("HOME");

	for (char **e = environ; *e; e++)
		count++;
	vars = xcalloc(count + 1, sizeof(*vars));
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "PG", 2) == 0)
			vars[n++] = *e;
	qsort(vars, n, sizeof(*vars), compare_strings);
	hash = fnv1a(hash, address, strlen(address) + 1);
	for (size_t i = 0; i < n; i++)
		hash = fnv1a(hash, vars[i], strlen(vars[i]) + 1);
	if (home != NULL)
		hash = fnv1a(hash, home, strlen(home) + 1);
	free(vars);
	return hash;
}

int
pool_socket_path(const char *address, bool make_dir, struct buf *out,
    struct err *err)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	struct stat st;

	buf_reset(out);
	if (runtime != NULL && runtime[0] == '/' && stat(runtime, &st) == 0 &&
	    S_ISDIR(st.st_mode))
		buf_addf(out, "%s/daicho", runtime);
	else
		buf_addf(out, "/tmp/daicho-%lu", (unsigned long)geteuid());
	if (make_dir && mkdir(out->buf, 0700) < 0 && errno != EEXIST)
		return err_set(err, ERR_FAILED, "cannot make %s (%s)", out->buf,
		    strerror(errno));
	if (lstat(out->buf, &st) < 0)
		return err_set(err, ERR_NOT_FOUND, "no pool directory %s (%s)",
		    out->buf, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0)
		return err_set(err, ERR_FAILED, "%s is not a directory of this "
		    "user's alone (mode 0700), so a pool's socket there could be "
		    "another user's; remove it", out->buf);
	buf_addf(out, "/pool-%016llx.sock",
	    (unsigned long long)connection_key(address));
	return 0;
}

int
pool_dial(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct ucred peer;
	socklen_t len = sizeof(peer);
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	if (peer.uid != geteuid()) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

bool
pool_wait_answer(int fd, int64_t timeout_ms)
{
	int64_t deadline = clock_mono_ms() + timeout_ms;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - clock_mono_ms();
		int rc;

		if (left < 0)
			left = 0;
		rc = poll(&pfd, 1, left > 1000000 ? 1000000 : (int)left);
		if (rc > 0)
			return true;
		if (rc == 0 && left == 0)
			return false;
		if (rc < 0 && errno != EINTR)
			return true; /* the read says what is wrong */
	}
}

void
pool_put_head(struct wire_msg *reply, const struct pool_head *head)
{
	wire_begin(reply, POOL_REPLY);
	wire_put_i64(reply, head->rc);
	wire_put_i64(reply, head->failed);
	wire_put_i64(reply, head->begun);
	wire_put_i64(reply, head->clock_offset_ms);
	wire_put_str(reply, head->sqlstate);
	wire_put_str(reply, head->message);
	wire_put_i64(reply, head->changes);
}

void
pool_get_head(struct wire_msg *reply, struct pool_head *head)
{
	head->rc = (int)wire_get_i64(reply);
	head->failed = wire_get_i64(reply) != 0;
	head->begun = wire_get_i64(reply) != 0;
	head->clock_offset_ms = wire_get_i64(reply);
	head->sqlstate = wire_get_str(reply);
	head->message = wire_get_str(reply);
	head->changes = wire_get_i64(reply);
}

/*
 * How long status and stop wait for the pool's answer: a status comes at
 * once; a stop once the pool no longer takes clients (in 5 s at most).
 */
#define STATUS_TIMEOUT_MS 3000
#define STOP_TIMEOUT_MS 10000

/* Send kind (no fields) to the pool for address; its reply in *reply. */
static int
ask(const char *address, int kind, struct wire_msg *reply, struct buf *socket,
    struct err *err)
{
	struct buf path = BUF_INIT;
	struct wire_msg req = WIRE_MSG_INIT;
	int fd, rc = 0;

	if ((rc = pool_socket_path(address, false, &path, err)) < 0) {
		if (rc == -ERR_NOT_FOUND)
			rc = err_set(err, ERR_NOT_FOUND, "no pool serves this "
			    "ledger for this user ('daicho pool start' starts one)");
		goto done;
	}
	if (socket != NULL) {
		buf_reset(socket);
		buf_adds(socket, path.buf);
	}
	if ((fd = pool_dial(path.buf)) < 0) {
		rc = err_set(err, ERR_NOT_FOUND, "no pool serves this ledger for "
		    "this user (%s: %s; 'daicho pool start' starts one)", path.buf,
		    strerror(errno));
		goto done;
	}
	wire_begin(&req, kind);
	wire_put_i64(&req, POOL_PROTOCOL);
	if (wire_send(fd, &req) < 0 || !pool_wait_answer(fd, kind == POOL_STOP
	    ? STOP_TIMEOUT_MS : STATUS_TIMEOUT_MS) ||
	    wire_recv(fd, reply) != 1 || wire_kind(reply) != POOL_REPLY)
		rc = err_set(err, ERR_FAILED, "the pool at %s did not answer "
		    "(stopped, by Ctrl-Z or SIGSTOP? another daicho version?)",
		    path.buf);
	close(fd);
done:
	wire_release(&req);
	buf_release(&path);
	return rc;
}

/* Read a status reply's fields (after its common ones) into *out. */
static void
read_status(struct wire_msg *reply, struct pool_status *out)
{
	const char *version;

	struct pool_head head;

	memset(out, 0, sizeof(*out));
	pool_get_head(reply, &head);
	out->pid = wire_get_i64(reply);
	out->started_ms = wire_get_i64(reply);
	out->sessions_now = wire_get_i64(reply);
	out->sessions_total = wire_get_i64(reply);
	out->idle_connections = wire_get_i64(reply);
	version = wire_get_str(reply);
	snprintf(out->version, sizeof(out->version), "%s", version ? version : "");
	out->waiting = wire_get_i64(reply);
	out->active = wire_get_i64(reply);
	out->served_after_wait = wire_get_i64(reply);
}

int
pool_get_status(const char *address, struct pool_status *out,
    struct buf *socket, struct err *err)
{
	struct wire_msg reply = WIRE_MSG_INIT;
	int rc = ask(address, POOL_STATUS, &reply, socket, err);

	if (rc == 0) {
		read_status(&reply, out);
		if (wire_bad(&reply))
			rc = err_set(err, ERR_FAILED, "the pool's status could not be "
			    "read (another daicho version?)");
	}
	wire_release(&reply);
	return rc;
}

int
pool_stop(const char *address, struct pool_status *was, struct err *err)
{
	struct wire_msg reply = WIRE_MSG_INIT;
	int rc = ask(address, POOL_STOP, &reply, NULL, err);

	if (rc == 0)
		read_status(&reply, was);
	wire_release(&reply);
	return rc;
}
