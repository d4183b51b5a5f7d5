/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Hexadecimal digits, for the parsers that read them (a shell's $'\xNN',
 * strace's -xx strings).
 */
#ifndef DAICHO_HEX_H
#define DAICHO_HEX_H

/* The value of the hexadecimal digit c (either case), or -1. */
static inline int
hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
