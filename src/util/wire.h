/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Messages on a stream socket, for daicho's own processes only (the
 * PostgreSQL pool, src/store/pool): a 4-byte length (of what follows, in this
 * machine's byte order: both ends are on one machine), a 1-byte kind, and
 * the fields put in order. Integers are 8 bytes; bytes are a length, the
 * bytes and a NUL, so that a field read back is a C string in place.
 *
 * Reading past the end or a length that does not fit marks the message
 * bad (wire_bad()); every get then returns zeros, so a reader checks once
 * at the end.
 */
#ifndef DAICHO_WIRE_H
#define DAICHO_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* The largest message either end accepts (a result of many rows). */
#define WIRE_MAX_BYTES ((size_t)1 << 30)

struct wire_msg {
	struct buf data; /* length, kind, fields */
	size_t pos;      /* the next field to get */
	bool bad;
};

#define WIRE_MSG_INIT { BUF_INIT, 0, false }

void wire_release(struct wire_msg *m);

/* Empty m and start a message of kind. */
void wire_begin(struct wire_msg *m, int kind);
void wire_put_i64(struct wire_msg *m, int64_t value);
void wire_put_bytes(struct wire_msg *m, const void *data, size_t len);
/* A C string, or NULL (read back as NULL). */
void wire_put_str(struct wire_msg *m, const char *s);

/*
 * Send m whole on fd (no SIGPIPE). Returns 0, or -1 with errno set
 * (EPIPE: the other end is gone).
 */
int wire_send(int fd, struct wire_msg *m);
/*
 * Append m, complete, to queue: messages queued there go out together,
 * ahead of the next one sent with wire_send_after(). m may be reused.
 */
void wire_queue(struct buf *queue, struct wire_msg *m);
/*
 * Send what queue holds and then m, in one write where they fit, and
 * empty queue. Returns as wire_send().
 */
int wire_send_after(int fd, struct buf *queue, struct wire_msg *m);
/*
 * Read one message from fd into m, and get from its first field. Returns
 * 1, 0 when the other end closed the socket before a message began, or -1
 * with errno set (EPROTO for a message too long or cut short).
 */
int wire_recv(int fd, struct wire_msg *m);

/* The kind of a received message. */
int wire_kind(const struct wire_msg *m);
int64_t wire_get_i64(struct wire_msg *m);
/* The next bytes field, NUL-terminated in place; *len its length. */
const char *wire_get_bytes(struct wire_msg *m, size_t *len);
/* The next string field (NULL when NULL was put). */
const char *wire_get_str(struct wire_msg *m);
/* Whether a get read past the end or found a field that does not fit. */
bool wire_bad(const struct wire_msg *m);

#endif
