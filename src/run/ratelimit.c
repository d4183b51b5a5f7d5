/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "run/ratelimit.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <jansson.h>

#include "util/alloc.h"

/* How far ahead a reset time may be to be believed. */
#define RESET_HORIZON_MS (8LL * 24 * 60 * 60 * 1000)
/* How much of what said so is kept. */
#define SAID_BYTES 240

void
rate_limit_init(struct rate_limit *rl)
{
	rl->limited = false;
	rl->final = false;
	rl->resets_ms = 0;
	buf_init(&rl->said);
}

void
rate_limit_release(struct rate_limit *rl)
{
	buf_release(&rl->said);
}

/* The regular expressions below, compiled once (NULL when one fails). */
enum {
	RE_TEXT,     /* RATE_LIMIT_TEXT */
	RE_EPOCH,    /* "limit reached|1751464800" */
	RE_DELAY,    /* "resets in", "try again in", "retry in", "retry after" */
	RE_RESETS,   /* Claude Code: "resets [Sep 24, ]5pm[ (Zone)]", "will
			reset at 4am" */
	RE_TRY_AT,   /* Codex: "try again at [Aug 8th, 2026 ]12:30 PM" */
	RE_COUNT
};

static const char *const patterns[RE_COUNT] = {
	RATE_LIMIT_TEXT,
	"limit reached[|]([0-9]{9,13})",
	"(resets|try again|retry|retry after) (in|after) ",
	"resets? (at )?(([a-z]{3})[a-z]*\\.? ([0-9]{1,2})(st|nd|rd|th)?,? (at )?)?"
	"([0-9]{1,2})(:([0-9]{2}))? ?(am|pm)( \\(([^)]+)\\))?",
	"try again at (([a-z]{3})[a-z]* ([0-9]{1,2})(st|nd|rd|th)?,? "
	"([0-9]{4}),? )?([0-9]{1,2}):([0-9]{2}) ?(am|pm)",
};

static const regex_t *
re(int which)
{
	static regex_t compiled[RE_COUNT];
	static int state[RE_COUNT]; /* 0 not yet, 1 ready, -1 failed */

	if (state[which] == 0)
		state[which] = regcomp(&compiled[which], patterns[which],
		    REG_EXTENDED | REG_ICASE) == 0 ? 1 : -1;
	return state[which] == 1 ? &compiled[which] : NULL;
}

/* The integer in text at match m (0 when it did not match). */
static long
group_long(const char *text, const regmatch_t *m)
{
	return m->rm_so < 0 ? 0 : strtol(text + m->rm_so, NULL, 10);
}

/* Whether hour:minute is a time on a 12-hour clock. */
static bool
clock_12h(long hour, long minute)
{
	return hour >= 1 && hour <= 12 && minute >= 0 && minute <= 59;
}

/* The month (0-11) whose name begins at text, or -1. */
static int
month_of(const char *text)
{
	static const char names[] = "janfebmaraprmayjunjulaugsepoctnovdec";

	for (int i = 0; i < 12; i++)
		if (strncasecmp(text, names + 3 * i, 3) == 0)
			return i;
	return -1;
}

/*
 * The time (ms since the epoch) of hour:minute on month/day of year (each
 * -1 when not given: the next such time of day; a date without a year:
 * this year's, else next year's when that is long past), in zone (NULL:
 * local time).
 */
static int64_t
wall_time(int year, int month, int day, int hour, int minute,
    const char *zone, int64_t now_ms)
{
	char *saved = NULL;
	const char *tz = getenv("TZ");
	time_t now = (time_t)(now_ms / 1000), t;
	struct tm tm;

	if (zone) {
		saved = tz ? xstrdup(tz) : NULL;
		setenv("TZ", strcasecmp(zone, "UTC") == 0 ? "UTC0" : zone, 1);
		tzset();
	}
	localtime_r(&now, &tm);
	tm.tm_hour = hour;
	tm.tm_min = minute;
	tm.tm_sec = 0;
	tm.tm_isdst = -1;
	if (month >= 0) {
		tm.tm_mon = month;
		tm.tm_mday = day;
	}
	if (year > 0)
		tm.tm_year = year - 1900;
	t = mktime(&tm);
	if (month < 0 && t <= now) {
		tm.tm_mday++;
		tm.tm_isdst = -1;
		t = mktime(&tm);
	} else if (month >= 0 && year <= 0 && t < now - 180L * 24 * 3600) {
		tm.tm_year++;
		tm.tm_isdst = -1;
		t = mktime(&tm);
	}
	if (zone) {
		if (saved)
			setenv("TZ", saved, 1);
		else
			unsetenv("TZ");
		tzset();
		free(saved);
	}
	return (int64_t)t * 1000;
}

/*
 * A delay written out from text on: "47 minutes", "3 days 6 hours 57
 * minutes", "2m", "39.4s", "900ms", "less than a minute". Returns ms, or
 * -1 when there is none.
 */
static int64_t
delay_ms(const char *text)
{
	static const struct {
		const char *unit;
		double ms;
	} units[] = {
		{ "ms", 1 }, { "milliseconds", 1 }, { "millisecond", 1 },
		{ "seconds", 1000 }, { "second", 1000 }, { "secs", 1000 },
		{ "sec", 1000 }, { "s", 1000 }, { "minutes", 60000 },
		{ "minute", 60000 }, { "mins", 60000 }, { "min", 60000 },
		{ "m", 60000 }, { "hours", 3600000 }, { "hour", 3600000 },
		{ "hrs", 3600000 }, { "hr", 3600000 }, { "h", 3600000 },
		{ "days", 86400000 }, { "day", 86400000 }, { "d", 86400000 },
	};
	const char *p = text;
	double total = 0;
	bool any = false;

	if (strncasecmp(p, "less than a minute", 18) == 0)
		return 60000;
	for (;;) {
		char *end;
		double n;
		size_t i;

		while (*p == ' ' || *p == ',')
			p++;
		if (strncasecmp(p, "and ", 4) == 0)
			p += 4;
		if (!isdigit((unsigned char)*p))
			break;
		n = strtod(p, &end);
		p = end;
		while (*p == ' ')
			p++;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t len = strlen(units[i].unit);

			if (strncasecmp(p, units[i].unit, len) == 0 &&
			    !isalpha((unsigned char)p[len]))
				break;
		}
		if (i == sizeof(units) / sizeof(units[0]))
			break;
		total += n * units[i].ms;
		p += strlen(units[i].unit);
		any = true;
	}
	return any ? (int64_t)total : -1;
}

int64_t
rate_limit_reset_ms(const char *text, int64_t now_ms)
{
	regmatch_t m[13];
	int64_t at = 0;
	const regex_t *r;

	if ((r = re(RE_EPOCH)) && regexec(r, text, 2, m, 0) == 0) {
		at = strtoll(text + m[1].rm_so, NULL, 10);
		if (at < 100000000000LL)
			at *= 1000;
	} else if ((r = re(RE_DELAY)) && regexec(r, text, 1, m, 0) == 0) {
		int64_t ms = delay_ms(text + m[0].rm_eo);

		at = ms >= 0 ? now_ms + ms : 0;
	} else if ((r = re(RE_TRY_AT)) && regexec(r, text, 9, m, 0) == 0) {
		int hour = (int)group_long(text, &m[6]) % 12;

		if (!clock_12h(group_long(text, &m[6]), group_long(text, &m[7])))
			return 0;
		if (tolower((unsigned char)text[m[8].rm_so]) == 'p')
			hour += 12;
		at = wall_time(m[1].rm_so >= 0 ? (int)group_long(text, &m[5]) : -1,
		    m[1].rm_so >= 0 ? month_of(text + m[2].rm_so) : -1,
		    (int)group_long(text, &m[3]), hour,
		    (int)group_long(text, &m[7]), NULL, now_ms);
	} else if ((r = re(RE_RESETS)) && regexec(r, text, 13, m, 0) == 0) {
		int hour = (int)group_long(text, &m[7]) % 12, month = -1;
		char zone[64] = "";

		if (!clock_12h(group_long(text, &m[7]), group_long(text, &m[9])))
			return 0;
		if (tolower((unsigned char)text[m[10].rm_so]) == 'p')
			hour += 12;
		if (m[2].rm_so >= 0 && (month = month_of(text + m[3].rm_so)) < 0)
			return 0;
		if (m[12].rm_so >= 0) {
			size_t len = (size_t)(m[12].rm_eo - m[12].rm_so);

			if (len >= sizeof(zone) ||
			    strspn(text + m[12].rm_so, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"abcdefghijklmnopqrstuvwxyz0123456789_/+-") < len)
				return 0;
			memcpy(zone, text + m[12].rm_so, len);
			zone[len] = '\0';
		}
		at = wall_time(-1, month, (int)group_long(text, &m[4]), hour,
		    (int)group_long(text, &m[9]), zone[0] ? zone : NULL, now_ms);
	}
	if (at <= now_ms || at > now_ms + RESET_HORIZON_MS)
		return 0;
	return at;
}

/* Whether text matches pattern, or the built-in rules when it is NULL. */
static bool
says_limit(const char *text, const regex_t *pattern)
{
	const regex_t *r = pattern ? pattern : re(RE_TEXT);

	return text && r && regexec(r, text, 0, NULL, 0) == 0;
}

/* Count text (what a client said) as a rate limit; final if it closes. */
static void
limited(struct rate_limit *out, const char *text, bool final, int64_t now_ms)
{
	int64_t at = text ? rate_limit_reset_ms(text, now_ms) : 0;

	out->limited = true;
	out->final |= final;
	if (at > out->resets_ms)
		out->resets_ms = at;
	if (text) {
		buf_reset(&out->said);
		buf_add_oneline(&out->said, text);
		if (out->said.len > SAID_BYTES) {
			out->said.len = SAID_BYTES;
			out->said.buf[SAID_BYTES] = '\0';
			buf_adds(&out->said, "...");
		}
	}
}

/* A success closed the stream: what came before it no longer counts. */
static void
succeeded(struct rate_limit *out)
{
	out->limited = false;
	out->final = false;
	out->resets_ms = 0;
	buf_reset(&out->said);
}

/* The text of a Claude Code assistant message (its first text block). */
static const char *
message_text(const json_t *event)
{
	const json_t *content = json_object_get(json_object_get(event, "message"),
	    "content"), *block;
	size_t i;

	json_array_foreach(content, i, block)
		if (json_is_string(json_object_get(block, "text")))
			return json_string_value(json_object_get(block, "text"));
	return NULL;
}

/* A Gemini CLI error object: {type, message, code}. */
static bool
gemini_error_says_limit(const json_t *error, const regex_t *pattern)
{
	const char *type = json_string_value(json_object_get(error, "type"));
	const json_t *code = json_object_get(error, "code");

	return (type && strstr(type, "QuotaError") != NULL) ||
	    (json_is_integer(code) && json_integer_value(code) == 429) ||
	    (json_is_string(code) && strcmp(json_string_value(code), "429") == 0) ||
	    says_limit(json_string_value(json_object_get(error, "message")),
		pattern);
}

/* One JSON event of a client's stream. */
static void
scan_event(const json_t *event, const regex_t *pattern, int64_t now_ms,
    struct rate_limit *out)
{
	const char *type = json_string_value(json_object_get(event, "type"));
	const json_t *error = json_object_get(event, "error");
	const char *text;

	if (type && strcmp(type, "result") == 0) {
		const json_t *status = json_object_get(event, "api_error_status");

		if (json_is_object(error)) {
			/* Gemini CLI's stream-json closing an error. */
			if (gemini_error_says_limit(error, pattern))
				limited(out, json_string_value(json_object_get(error,
				    "message")), true, now_ms);
			return;
		}
		if (!json_is_true(json_object_get(event, "is_error"))) {
			succeeded(out);
			return;
		}
		text = json_string_value(json_object_get(event, "result"));
		if ((json_is_integer(status) && json_integer_value(status) == 429) ||
		    says_limit(text, pattern))
			limited(out, text, true, now_ms);
	} else if (type && strcmp(type, "rate_limit_event") == 0) {
		const json_t *info = json_object_get(event, "rate_limit_info");
		const json_t *resets = json_object_get(info, "resetsAt");
		const char *status = json_string_value(json_object_get(info,
		    "status"));

		if (status == NULL || strcmp(status, "rejected") != 0)
			return;
		limited(out, NULL, false, now_ms);
		if (json_is_number(resets)) {
			double number = json_number_value(resets);
			int64_t at = (int64_t)number;

			if (at < 100000000000LL)
				at *= 1000;
			if (at > now_ms && at <= now_ms + RESET_HORIZON_MS &&
			    at > out->resets_ms)
				out->resets_ms = at;
		}
	} else if (type && strcmp(type, "assistant") == 0) {
		if (json_is_string(error) &&
		    strcmp(json_string_value(error), "rate_limit") == 0)
			limited(out, message_text(event), false, now_ms);
	} else if (type && strcmp(type, "error") == 0) {
		/* Codex's error event; Gemini's stream-json error. */
		text = json_string_value(json_object_get(event, "message"));
		if (says_limit(text, pattern))
			limited(out, text, false, now_ms);
	} else if (type && strcmp(type, "turn.failed") == 0) {
		text = json_string_value(json_object_get(error, "message"));
		if (says_limit(text, pattern))
			limited(out, text, true, now_ms);
	} else if (type && strcmp(type, "turn.completed") == 0) {
		succeeded(out);
	} else if (type == NULL && json_is_object(error)) {
		/* Gemini CLI's --output-format json failure. */
		if (gemini_error_says_limit(error, pattern))
			limited(out, json_string_value(json_object_get(error,
			    "message")), true, now_ms);
	}
}

void
rate_limit_scan(const char *text, size_t len, bool partial,
    const regex_t *pattern, int64_t now_ms, struct rate_limit *out)
{
	struct buf line = BUF_INIT;
	const char *p = text, *end = text + len;

	if (partial) {
		const char *nl = memchr(p, '\n', len);

		p = nl ? nl + 1 : end;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end, *start = p;
		json_t *event = NULL;
		json_error_t jerr;

		while (start < stop && (*start == ' ' || *start == '\t' ||
		    *start == '\r'))
			start++;
		/*
		 * A JSON document: one line of a stream (NDJSON), or one
		 * printed over several lines (Gemini's --output-format json).
		 */
		if (start < stop && *start == '{')
			event = json_loadb(start, (size_t)(end - start),
			    JSON_DISABLE_EOF_CHECK, &jerr);
		if (json_is_object(event)) {
			const char *past = start + jerr.position;

			scan_event(event, pattern, now_ms, out);
			/* The caller's pattern reads every line. */
			if (pattern && !out->limited) {
				buf_reset(&line);
				buf_add(&line, start, (size_t)(past - start));
				if (says_limit(line.buf, pattern))
					limited(out, line.buf, false, now_ms);
			}
			json_decref(event);
			nl = memchr(past, '\n', (size_t)(end - past));
			p = nl ? nl + 1 : end;
			continue;
		}
		json_decref(event);
		if (start < stop) {
			/* regexec stops at a NUL: a line is matched up to it. */
			buf_reset(&line);
			buf_add(&line, start, (size_t)(stop - start));
			if (says_limit(line.buf, pattern))
				limited(out, line.buf, false, now_ms);
		}
		p = nl ? nl + 1 : end;
	}
	buf_release(&line);
}
