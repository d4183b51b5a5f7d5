/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Errors from the core. Every core function returns 0 on success or a
 * negative enum err_code, and on failure fills a struct err with the code and
 * one line of text in daicho's form "what (why; what to do)". Only main.c
 * prints it, as "daicho: <message>", and exits with the code.
 */
#ifndef DAICHO_ERR_H
#define DAICHO_ERR_H

#include "util/buf.h"

/* The exit statuses of daicho, one per kind of failure. */
enum err_code {
	ERR_OK = 0,
	ERR_FAILED = 1,    /* an error not covered below */
	ERR_USAGE = 2,     /* bad arguments or input */
	ERR_NOT_FOUND = 3, /* unknown task, agent, result; nothing ready */
	ERR_CONFLICT = 4,  /* already claimed, reserved, a cycle, wrong state */
	ERR_VERIFY = 5,    /* verification failed */
	ERR_REFUSED = 6,   /* refused by a gate, waiting for approval */
	ERR_BUSY = 75,     /* ledger busy past the timeout; retry */
};

struct err {
	enum err_code code; /* ERR_OK until set */
	struct buf message; /* one line, without the "daicho: " prefix */
};

#define ERR_INIT { ERR_OK, BUF_INIT }

/*
 * Record an error and return -code, so that callers can write
 * "return err_set(err, ERR_NOT_FOUND, "no task #%lld", id);". A second call
 * replaces the first.
 */
int err_set(struct err *err, enum err_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void err_release(struct err *err);

/* The longest input an error repeats whole, and the longest error line. */
#define ERR_SHOWN_MAX 96
#define ERR_LINE_MAX 1024

/*
 * err's message as one line fit to print, into out (appended): where it
 * repeats one of inputs (count words of the command line, or the values a
 * tool was called with; a word's value after "--NAME=" or "KIND:" counts
 * too) longer than ERR_SHOWN_MAX bytes, that is cut to its start, "...",
 * and its length; control characters (a newline) become '?'; and the line
 * is cut at ERR_LINE_MAX bytes, never inside a character.
 */
void err_line(const struct err *err, char *const *inputs, size_t count,
    struct buf *out);

#endif
