/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/utf8.h"

char buf_empty[1];

void
buf_init(struct buf *b)
{
	b->buf = buf_empty;
	b->len = 0;
	b->alloc = 0;
}

void
buf_release(struct buf *b)
{
	if (b->alloc)
		free(b->buf);
	buf_init(b);
}

char *
buf_detach(struct buf *b, size_t *len)
{
	char *s;

	if (len)
		*len = b->len;
	s = b->alloc ? b->buf : xstrdup("");
	buf_init(b);
	return s;
}

void
buf_grow(struct buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need < b->len)
		abort();
	if (b->alloc == 0) {
		size_t n = 64;

		while (n < need)
			n *= 2;
		b->buf = xmalloc(n);
		b->buf[0] = '\0';
		b->alloc = n;
		return;
	}
	if (need > b->alloc) {
		size_t n = b->alloc;

		while (n < need)
			n *= 2;
		b->buf = xrealloc(b->buf, n);
		b->alloc = n;
	}
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->alloc)
		b->buf[0] = '\0';
}

void
buf_add(struct buf *b, const void *data, size_t len)
{
	if (len == 0)
		return;
	buf_grow(b, len);
	memcpy(b->buf + b->len, data, len);
	b->len += len;
	b->buf[b->len] = '\0';
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_addch(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void
buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	buf_grow(b, (size_t)n);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

int
buf_read_fd(struct buf *b, int fd)
{
	for (;;) {
		ssize_t n;

		buf_grow(b, 65536);
		n = read(fd, b->buf + b->len, b->alloc - b->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			b->buf[b->len] = '\0';
			return -1;
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
	}
	b->buf[b->len] = '\0';
	return 0;
}

int
buf_read_file(struct buf *b, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc, saved;

	if (fd < 0)
		return -1;
	rc = buf_read_fd(b, fd);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

void
buf_add_oneline(struct buf *b, const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		unsigned cp;
		size_t n = utf8_invisible((const char *)p, &cp);

		if (n > 0) {
			buf_addf(b, "[U+%04X]", cp);
			p += n - 1;
			continue;
		}
		buf_addch(b, *p < 0x20 || *p == 0x7f ? '?' : (char)*p);
	}
}
