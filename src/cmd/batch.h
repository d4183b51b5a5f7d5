/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The JSONL that `add --batch` reads: one object per line, with the fields
 * of add's options (title, body, key, after, touches, done_when,
 * check_timeout, priority, labels, max_attempts, parent). Outside input:
 * every error names its line, and nothing is added unless all lines parse.
 */
#ifndef DAICHO_CMD_BATCH_H
#define DAICHO_CMD_BATCH_H

#include <jansson.h>
#include <stddef.h>

#include "core/task.h"
#include "core/err.h"

struct batch {
	struct task_spec *specs; /* borrow their strings from objects */
	json_t **objects;        /* one per spec */
	size_t count;
	size_t alloc;
};

#define BATCH_INIT { NULL, NULL, 0, 0 }

/*
 * Parse len bytes of text, NUL-terminated at len as a struct buf is, into
 * *batch (cutting its lines in place). Blank
 * lines are skipped; NUL bytes, a line that is not a JSON object, an
 * unknown field, a value of the wrong type and an empty batch are usage
 * errors naming the line. On error *batch holds what was parsed so far:
 * release it either way.
 */
int batch_parse(char *text, size_t len, struct batch *batch, struct err *err);

void batch_release(struct batch *batch);

#endif
