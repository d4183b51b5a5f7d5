/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/clock.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

/*
 * What clock_now_ms() adds to this machine's clock (clock_set_offset_ms()):
 * atomic, as the pool's threads each set it from their transactions.
 */
static _Atomic int64_t offset_ms;

void
clock_set_offset_ms(int64_t offset)
{
	atomic_store_explicit(&offset_ms, offset, memory_order_relaxed);
}

int64_t
clock_offset_ms(void)
{
	return atomic_load_explicit(&offset_ms, memory_order_relaxed);
}

int64_t
clock_local_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
clock_now_ms(void)
{
	const char *fixed = getenv("DAICHO_NOW_MS");

	if (fixed != NULL && *fixed != '\0') {
		char *end;
		long long v = strtoll(fixed, &end, 10);

		if (*end == '\0')
			return v;
	}
	return clock_local_ms() +
	    atomic_load_explicit(&offset_ms, memory_order_relaxed);
}

int64_t
clock_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
clock_mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void
clock_add_age(struct buf *out, int64_t age_ms)
{
	int64_t s = age_ms < 0 ? 0 : age_ms / 1000;

	if (s < 60)
		buf_addf(out, "%llds", (long long)s);
	else if (s < 3600)
		buf_addf(out, "%lldm", (long long)(s / 60));
	else if (s < 86400)
		buf_addf(out, "%lldh", (long long)(s / 3600));
	else
		buf_addf(out, "%lldd", (long long)(s / 86400));
}

void
clock_add_remaining(struct buf *out, int64_t ms)
{
	int64_t s = ms <= 0 ? 0 : (ms + 999) / 1000;

	if (s < 60)
		buf_addf(out, "%llds", (long long)s);
	else if ((s + 59) / 60 < 60)
		buf_addf(out, "%lldm", (long long)((s + 59) / 60));
	else if ((s + 3599) / 3600 < 24)
		buf_addf(out, "%lldh", (long long)((s + 3599) / 3600));
	else
		buf_addf(out, "%lldd", (long long)((s + 86399) / 86400));
}

void
clock_add_timestamp(struct buf *out, int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char text[32];

	gmtime_r(&t, &tm);
	strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
	buf_adds(out, text);
}

void
clock_add_duration(struct buf *out, int64_t ms)
{
	if (ms < 1000)
		buf_addf(out, "%lldms", (long long)ms);
	else if (ms < 60000)
		buf_addf(out, "%lld.%llds", (long long)(ms / 1000),
		    (long long)(ms % 1000 / 100));
	else if (ms < 3600000)
		buf_addf(out, "%lldm%llds", (long long)(ms / 60000),
		    (long long)(ms % 60000 / 1000));
	else
		buf_addf(out, "%lldh%lldm", (long long)(ms / 3600000),
		    (long long)(ms % 3600000 / 60000));
}
