/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Secrets from the kernel's random source (getrandom(2)), as hexadecimal
 * text: login tokens, session ids, CSRF tokens.
 */
#ifndef DAICHO_RANDOM_H
#define DAICHO_RANDOM_H

#include <stddef.h>

/*
 * Fill hex with 2 * bytes lowercase hexadecimal digits and a NUL (hex holds
 * 2 * bytes + 1) from bytes random bytes. Returns 0, or -1 when the kernel
 * gave none (hex is then left empty).
 */
int random_hex(char *hex, size_t bytes);

#endif
