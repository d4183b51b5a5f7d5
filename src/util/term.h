/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The terminal: its size, and a mode in which single keys can be read
 * without echo.
 */
#ifndef DAICHO_TERM_H
#define DAICHO_TERM_H

#include <stdbool.h>
#include <termios.h>

/*
 * The size of the terminal on fd into *rows and *columns. Returns 0, or
 * -1 when fd is not a terminal or reports no size (both left as they
 * were).
 */
int term_size(int fd, int *rows, int *columns);

struct term_keys {
	int fd;                 /* the terminal read from; -1 when not set */
	struct termios saved;   /* its mode before term_keys_begin() */
};

/*
 * Put the terminal on fd in a mode where each key is read as it is typed
 * and not echoed (Ctrl-C still interrupts). Returns 0, or -1 when fd is
 * not a terminal (keys->fd is then -1, and term_keys_end() does nothing).
 */
int term_keys_begin(struct term_keys *keys, int fd);

/* Put the terminal back in the mode it had; safe to call twice. */
void term_keys_end(struct term_keys *keys);

#endif
