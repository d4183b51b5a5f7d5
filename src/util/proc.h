/*
 * Running a program directly (no shell) and capturing what it prints.
 */
#ifndef DAICHO_PROC_H
#define DAICHO_PROC_H

#include "util/buf.h"

/*
 * Run argv[0] (searched in PATH) with argv, stdin from /dev/null, stdout
 * appended to out and stderr discarded. Returns the exit status (0-255),
 * 128 + signal when killed, or -1 with errno when it could not be started.
 */
int proc_capture(char *const argv[], struct buf *out);

#endif
