/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * SHA-256 (Nettle's), written as lowercase hexadecimal: the links of the
 * event log's hash chain (core/event.h).
 */
#ifndef DAICHO_SHA256_H
#define DAICHO_SHA256_H

#include <stddef.h>

#define SHA256_HEX_BYTES 65 /* 64 digits and the NUL */

/* The SHA-256 of the bytes bytes at data, into out as 64 hex digits. */
void sha256_hex(const void *data, size_t bytes, char out[SHA256_HEX_BYTES]);

#endif
