/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/wire.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

/* Length, then kind. */
#define HEADER_BYTES 5

void
wire_release(struct wire_msg *m)
{
	buf_release(&m->data);
	m->pos = 0;
	m->bad = false;
}

void
wire_begin(struct wire_msg *m, int kind)
{
	unsigned char header[HEADER_BYTES] = { 0, 0, 0, 0, (unsigned char)kind };

	buf_reset(&m->data);
	buf_add(&m->data, header, sizeof(header));
	m->pos = HEADER_BYTES;
	m->bad = false;
}

void
wire_put_i64(struct wire_msg *m, int64_t value)
{
	buf_add(&m->data, &value, sizeof(value));
}

void
wire_put_bytes(struct wire_msg *m, const void *data, size_t len)
{
	wire_put_i64(m, (int64_t)len);
	buf_add(&m->data, data ? data : "", len);
	buf_addch(&m->data, '\0');
}

void
wire_put_str(struct wire_msg *m, const char *s)
{
	if (s == NULL)
		wire_put_i64(m, -1);
	else
		wire_put_bytes(m, s, strlen(s));
}

/* Put m's length in its header. */
static void
seal(struct wire_msg *m)
{
	uint32_t len = (uint32_t)(m->data.len - 4);

	memcpy(m->data.buf, &len, sizeof(len));
}

/* Send len bytes at data whole on fd; 0 or -1 with errno. */
static int
send_all(int fd, const char *data, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = send(fd, data + done, len - done, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

int
wire_send(int fd, struct wire_msg *m)
{
	seal(m);
	return send_all(fd, m->data.buf, m->data.len);
}

void
wire_queue(struct buf *queue, struct wire_msg *m)
{
	seal(m);
	buf_add(queue, m->data.buf, m->data.len);
}

int
wire_send_after(int fd, struct buf *queue, struct wire_msg *m)
{
	int rc;

	if (queue->len == 0)
		return wire_send(fd, m);
	wire_queue(queue, m);
	rc = send_all(fd, queue->buf, queue->len);
	buf_reset(queue);
	return rc;
}

/* Read exactly len bytes; 1, 0 on end of file before any, -1. */
static int
read_exactly(int fd, char *out, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, out + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			if (done == 0)
				return 0;
			errno = EPROTO;
			return -1;
		}
		done += (size_t)n;
	}
	return 1;
}

int
wire_recv(int fd, struct wire_msg *m)
{
	uint32_t len;
	int rc;

	buf_reset(&m->data);
	m->pos = HEADER_BYTES;
	m->bad = false;
	if ((rc = read_exactly(fd, (char *)&len, sizeof(len))) <= 0)
		return rc;
	if (len < 1 || len > WIRE_MAX_BYTES) {
		errno = EPROTO;
		return -1;
	}
	buf_grow(&m->data, (size_t)len + 4);
	memcpy(m->data.buf, &len, sizeof(len));
	if ((rc = read_exactly(fd, m->data.buf + 4, len)) <= 0) {
		if (rc == 0)
			errno = EPROTO;
		return -1;
	}
	m->data.len = (size_t)len + 4;
	m->data.buf[m->data.len] = '\0';
	return 1;
}

int
wire_kind(const struct wire_msg *m)
{
	return m->data.len >= HEADER_BYTES ? (unsigned char)m->data.buf[4] : -1;
}

/* Whether n more bytes are there to get; marks m bad if not. */
static bool
have(struct wire_msg *m, size_t n)
{
	if (m->bad || m->pos > m->data.len || n > m->data.len - m->pos) {
		m->bad = true;
		return false;
	}
	return true;
}

int64_t
wire_get_i64(struct wire_msg *m)
{
	int64_t value;

	if (!have(m, sizeof(value)))
		return 0;
	memcpy(&value, m->data.buf + m->pos, sizeof(value));
	m->pos += sizeof(value);
	return value;
}

const char *
wire_get_bytes(struct wire_msg *m, size_t *len)
{
	int64_t n = wire_get_i64(m);
	const char *data;

	*len = 0;
	if (n < 0 || !have(m, (size_t)n + 1) ||
	    m->data.buf[m->pos + (size_t)n] != '\0') {
		m->bad = true;
		return "";
	}
	data = m->data.buf + m->pos;
	m->pos += (size_t)n + 1;
	*len = (size_t)n;
	return data;
}

const char *
wire_get_str(struct wire_msg *m)
{
	size_t len;

	if (have(m, sizeof(int64_t))) {
		int64_t n;

		memcpy(&n, m->data.buf + m->pos, sizeof(n));
		if (n == -1) {
			m->pos += sizeof(n);
			return NULL;
		}
	}
	return wire_get_bytes(m, &len);
}

bool
wire_bad(const struct wire_msg *m)
{
	return m->bad;
}
