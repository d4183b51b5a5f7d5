/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Durations as people type them: an unsigned integer followed by a unit,
 * one of ms, s, m, h, d ("500ms", "20s", "30m", "4h", "2d"). No unit, a
 * fraction, a sign, spaces or overflow are errors.
 */
#ifndef DAICHO_DURATION_H
#define DAICHO_DURATION_H

#include <stdint.h>

/* Parse text into *ms. Returns 0, or -1 when text is not a duration. */
int duration_parse(const char *text, int64_t *ms);

#endif
