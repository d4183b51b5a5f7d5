/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * struct buf: a growable byte string.
 *
 * Invariants: buf is never NULL (an empty buf points at a shared empty
 * string until the first addition), buf[len] is always '\0', and the bytes
 * before len may contain NULs (bodies and results are arbitrary bytes).
 * BUF_INIT or buf_init() before use; buf_release() frees the contents and
 * leaves an empty, reusable buf. buf_detach() hands the bytes to the caller,
 * who frees them with free().
 */
#ifndef DAICHO_BUF_H
#define DAICHO_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

struct buf {
	char *buf;    /* the bytes, NUL-terminated; never NULL */
	size_t len;   /* bytes in use, not counting the terminator */
	size_t alloc; /* bytes allocated; 0 while buf is the empty string */
};

extern char buf_empty[];
#define BUF_INIT { buf_empty, 0, 0 }

void buf_init(struct buf *b);
void buf_release(struct buf *b);
char *buf_detach(struct buf *b, size_t *len);
void buf_grow(struct buf *b, size_t extra);
void buf_reset(struct buf *b);
void buf_add(struct buf *b, const void *data, size_t len);
void buf_adds(struct buf *b, const char *s);
void buf_addch(struct buf *b, char c);
void buf_addf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void buf_vaddf(struct buf *b, const char *fmt, va_list ap);
/*
 * Append text for one line of a terminal or a message: control characters
 * (newlines included) become '?'.
 */
void buf_add_oneline(struct buf *b, const char *text);

/*
 * Append everything readable from fd until EOF. Returns 0, or -1 with errno
 * set; on error b holds what was read so far.
 */
int buf_read_fd(struct buf *b, int fd);

/* Append the whole file at path. Returns 0, or -1 with errno set. */
int buf_read_file(struct buf *b, const char *path);

#endif
