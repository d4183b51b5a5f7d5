/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Base64 (RFC 4648, the standard alphabet, with '=' padding): how JSON
 * carries bytes that are not UTF-8 text (an export, a task's body or
 * result printed with --json).
 */
#ifndef DAICHO_BASE64_H
#define DAICHO_BASE64_H

#include <stddef.h>

#include "util/buf.h"

/* Append the base64 form of len bytes at data to out (after what it holds). */
void base64_encode(struct buf *out, const void *data, size_t len);

/*
 * Append the bytes that text (len characters of base64, padded, no
 * whitespace) stands for to out. Returns 0, or -1 when text is not
 * base64; out then holds what was decoded before the fault.
 */
int base64_decode(struct buf *out, const char *text, size_t len);

#endif
