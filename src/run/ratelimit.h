/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Whether a worker's log says it was rate-limited, read from what the agent
 * clients actually print, and when the limit lifts.
 *
 * JSON lines are read as the clients' event streams, and only their error
 * fields count (a healthy stream is full of ids such as "e429ee32-...",
 * which must never read as an HTTP 429):
 *   - Claude Code (-p --output-format stream-json or json): a "result"
 *     with "is_error": true whose "api_error_status" is 429 or whose text
 *     says so ("rate_limit_error", "You've hit your session limit ·
 *     resets 9am (Europe/Berlin)", "Claude AI usage limit
 *     reached|1751464800"); a "rate_limit_event" whose status is
 *     "rejected" (its "resetsAt" says when it lifts); an "assistant"
 *     message with "error": "rate_limit";
 *   - Codex (exec --json): an "error" event or a "turn.failed" whose
 *     message says so ("You've hit your usage limit. ... Try again at
 *     3:28 PM.", "exceeded retry limit, last status: 429 Too Many
 *     Requests");
 *   - Gemini CLI (--output-format json or stream-json): an "error" object
 *     of type TerminalQuotaError or RetryableQuotaError, code 429, or a
 *     message that says so.
 * A success closing the stream ("result" without an error, Codex's
 * "turn.completed") cancels what came before it. Other lines are text, and
 * a line matching the text rules counts: Gemini's "[API Error: ...
 * (Status: RESOURCE_EXHAUSTED)]", "429 Too Many Requests", "rate limit",
 * "quota exceeded" and the like (RATE_LIMIT_TEXT), or the caller's
 * pattern instead.
 */
#ifndef DAICHO_RATELIMIT_H
#define DAICHO_RATELIMIT_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* The built-in text rules (extended regex, matched case-insensitively). */
#define RATE_LIMIT_TEXT                                                       \
	"rate[ _-]?limit|too many requests|hit your [[:alnum:] ]*limit|"      \
	"reached your [[:alnum:] ]*limit|"                                    \
	"(hour|daily|weekly|session|opus|sonnet)[[:alnum:] -]* limit reached|"\
	"usage limit (reached|exceeded|has been reached)|limit reached[|]|"   \
	"quota exceeded|exceeded your current quota|resource_exhausted|"      \
	"exhausted your [[:alnum:] ]*quota|"                                  \
	"(^|[^[:alnum:]_-])429([^[:alnum:]_-]|$)"

/* What a log says. */
struct rate_limit {
	bool limited;      /* the client was rate-limited */
	bool final;        /* its closing result or failure says so: counts
			    * even when the worker exited 0 */
	int64_t resets_ms; /* when the client says the limit lifts (ms since
			    * the epoch), or 0 when it does not say */
	struct buf said;   /* the words that said so, on one line, shortened */
};

void rate_limit_init(struct rate_limit *rl);
void rate_limit_release(struct rate_limit *rl);

/*
 * Read text (len bytes, the end of a log; partial: it may begin in the
 * middle of a line, which is skipped) into *out as described above.
 * pattern replaces the built-in text rules when not NULL (it is matched
 * against every line). now_ms is when the text was written (the runner
 * gives the log's last write), for reset times given as a time of day or
 * a delay.
 */
void rate_limit_scan(const char *text, size_t len, bool partial,
    const regex_t *pattern, int64_t now_ms, struct rate_limit *out);

/*
 * When text says a limit lifts, in ms since the epoch, or 0 when it does
 * not say (or says a time that is past, or more than 8 days ahead):
 * "...limit reached|SECONDS", "resets 9am (Europe/Berlin)", "resets
 * 11:50am", "resets Sep 24, 5pm (UTC)", "resets in 47 minutes", "try
 * again at 3:28 PM", "try again at Aug 8th, 2026 12:30 PM", "try again in
 * 3 days 6 hours 57 minutes", "Please retry in 39.4s", "Suggested retry
 * after 60s". Times of day without a zone are local.
 */
int64_t rate_limit_reset_ms(const char *text, int64_t now_ms);

#endif
