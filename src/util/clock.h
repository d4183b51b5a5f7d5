/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Wall-clock time in integer milliseconds (UTC), and how daicho shows it.
 * Tests may fix "now" with DAICHO_NOW_MS=<ms since the epoch>.
 */
#ifndef DAICHO_CLOCK_H
#define DAICHO_CLOCK_H

#include <stdint.h>

#include "util/buf.h"

/*
 * Milliseconds since the epoch by the ledger's clock: this machine's, plus
 * the offset a shared ledger set (clock_set_offset_ms()); or $DAICHO_NOW_MS
 * when set.
 */
int64_t clock_now_ms(void);

/* This machine's own clock, in milliseconds since the epoch. */
int64_t clock_local_ms(void);

/*
 * Make clock_now_ms() run offset milliseconds ahead of this machine's
 * clock: a PostgreSQL ledger sets it to the database's clock, so that
 * leases and times agree across hosts.
 */
void clock_set_offset_ms(int64_t offset);
/* The offset clock_set_offset_ms() set (0 when none was). */
int64_t clock_offset_ms(void);

/* Monotonic milliseconds and microseconds, for measuring intervals. */
int64_t clock_mono_ms(void);
int64_t clock_mono_us(void);

/* Append an age such as "12s", "5m", "3h", "2d" (never negative). */
void clock_add_age(struct buf *out, int64_t age_ms);

/* Append the time as "2026-11-29T07:53:06Z". */
void clock_add_timestamp(struct buf *out, int64_t ms);

/*
 * Append a time still to run, in its largest whole unit rounded up, as
 * clock_add_age() writes an age ("30m" for a lease of 30 minutes just
 * taken, never "29m"; "2h" for a 2-hour reservation, never "1h").
 */
void clock_add_remaining(struct buf *out, int64_t ms);

/* Append a duration such as "4m23s" or "820ms". */
void clock_add_duration(struct buf *out, int64_t ms);

#endif
