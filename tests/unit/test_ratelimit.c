/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for run/ratelimit: every client output in
 * tests/fixtures/ratelimit reads as a rate limit (limited-*) or not
 * (healthy-*), and reset times are read from each client's wording.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run/ratelimit.h"
#include "util/buf.h"

/* 2027-01-15T08:00:00Z, a Friday. */
#define NOW_MS 1800000000000LL
#define MINUTE 60000LL
#define HOUR (60 * MINUTE)
#define DAY (24 * HOUR)

static size_t failures;

static const char *
fixtures_dir(void)
{
	static char dir[4096];
	const char *slash = strrchr(__FILE__, '/');

	/* tests/unit/test_ratelimit.c -> tests/fixtures/ratelimit */
	snprintf(dir, sizeof(dir), "%.*s/../fixtures/ratelimit",
	    slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".");
	return dir;
}

/* The fixture name, "@RESET@" replaced by reset (seconds), into out. */
static void
read_fixture(const char *name, long long reset, struct buf *out)
{
	struct buf path = BUF_INIT, raw = BUF_INIT;
	const char *p, *hit;

	buf_addf(&path, "%s/%s", fixtures_dir(), name);
	if (buf_read_file(&raw, path.buf) < 0)
		fail_msg("cannot read %s", path.buf);
	for (p = raw.buf; (hit = strstr(p, "@RESET@")) != NULL; p = hit + 7) {
		buf_add(out, p, (size_t)(hit - p));
		buf_addf(out, "%lld", reset);
	}
	buf_adds(out, p);
	buf_release(&path);
	buf_release(&raw);
}

static void
test_fixtures(void **state)
{
	DIR *d = opendir(fixtures_dir());
	struct dirent *e;
	size_t limited = 0, healthy = 0;

	failures = 0;
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		bool want = strncmp(e->d_name, "limited-", 8) == 0;
		struct buf text = BUF_INIT;
		struct rate_limit rl;

		if (!want && strncmp(e->d_name, "healthy-", 8) != 0)
			continue;
		read_fixture(e->d_name, NOW_MS / 1000 + 3600, &text);
		rate_limit_init(&rl);
		rate_limit_scan(text.buf, text.len, false, NULL, NOW_MS, &rl);
		if (rl.limited != want) {
			print_error("%s: %s\n", e->d_name, rl.limited ?
			    "read as a rate limit" : "not read as a rate limit");
			failures++;
		}
		/* A log cut in the middle of its first line reads the same. */
		{
			struct buf cut = BUF_INIT;
			struct rate_limit again;

			buf_adds(&cut, "\"truncated\":\"e429ee32\"}\n");
			buf_add(&cut, text.buf, text.len);
			rate_limit_init(&again);
			rate_limit_scan(cut.buf, cut.len, true, NULL, NOW_MS, &again);
			if (again.limited != rl.limited) {
				print_error("%s: reads differently after a cut line\n",
				    e->d_name);
				failures++;
			}
			rate_limit_release(&again);
			buf_release(&cut);
		}
		limited += want;
		healthy += !want;
		rate_limit_release(&rl);
		buf_release(&text);
	}
	closedir(d);
	if (limited < 9 || healthy < 7)
		fail_msg("only %zu limited and %zu healthy fixtures", limited,
		    healthy);
	if (failures)
		fail_msg("%zu fixtures misread", failures);
}

/* scan name: whether final and when it resets. */
static void
expect_scan(const char *name, bool final, int64_t resets_ms, const char *said)
{
	struct buf text = BUF_INIT;
	struct rate_limit rl;

	read_fixture(name, NOW_MS / 1000 + 3600, &text);
	rate_limit_init(&rl);
	rate_limit_scan(text.buf, text.len, false, NULL, NOW_MS, &rl);
	if (!rl.limited || rl.final != final || rl.resets_ms != resets_ms ||
	    (said && strcmp(rl.said.buf, said) != 0)) {
		print_error("%s: limited %d final %d resets %lld said '%s'; want "
		    "final %d resets %lld said '%s'\n", name, rl.limited, rl.final,
		    (long long)rl.resets_ms, rl.said.buf, final,
		    (long long)resets_ms, said ? said : "(any)");
		failures++;
	}
	rate_limit_release(&rl);
	buf_release(&text);
}

static void
test_what_each_client_says(void **state)
{
	failures = 0;
	/* Claude Code: 9am in Berlin (UTC+1) is 08:00Z, now: tomorrow's. */
	expect_scan("limited-claude-session-limit.jsonl", true, NOW_MS + DAY,
	    "You've hit your session limit · resets 9am (Europe/Berlin)");
	expect_scan("limited-claude-resets-at.jsonl", true, NOW_MS + HOUR, NULL);
	expect_scan("limited-claude-api-key-429.jsonl", true, 0, NULL);
	expect_scan("limited-claude-usage-limit-epoch.json", true, NOW_MS + HOUR,
	    NULL);
	/* Codex: 3:28 PM local (UTC here). */
	expect_scan("limited-codex-usage-limit.jsonl", true,
	    NOW_MS + 7 * HOUR + 28 * MINUTE, NULL);
	/* Its reconnect message said "Please try again in 172ms". */
	expect_scan("limited-codex-retry-limit.jsonl", true, NOW_MS + 172,
	    "exceeded retry limit, last status: 429 Too Many Requests, request "
	    "id: req_0f1e2d3c4b5a69788796a5b4c3d2e1f0");
	expect_scan("limited-gemini-quota.json", true, 0,
	    "You have exhausted your daily quota on this model.");
	expect_scan("limited-gemini-daily-quota.txt", false, 0,
	    "[API Error: You have exhausted your daily quota on this model.]");
	expect_scan("limited-gemini-resource-exhausted.txt", false, 0, NULL);
	/* Claude Code's other wordings: 4am and 5am UTC are tomorrow's. */
	expect_scan("limited-claude-will-reset-at.txt", false, NOW_MS + 20 * HOUR,
	    "Claude usage limit reached. Your limit will reset at 4am");
	expect_scan("limited-claude-5-hour-limit.txt", false, NOW_MS + 21 * HOUR,
	    NULL);
	expect_scan("limited-claude-reached-your-limit.txt", false,
	    NOW_MS + 3 * DAY + 9 * HOUR, NULL);
	if (failures)
		fail_msg("%zu cases wrong", failures);
}

static void
expect_reset(const char *text, int64_t want)
{
	int64_t got = rate_limit_reset_ms(text, NOW_MS);

	if (got != want) {
		print_error("\"%s\": %+lld ms from now, want %+lld\n", text,
		    got ? (long long)(got - NOW_MS) : 0LL,
		    want ? (long long)(want - NOW_MS) : 0LL);
		failures++;
	}
}

static void
test_reset_times(void **state)
{
	failures = 0;
	/* Claude Code */
	expect_reset("You've hit your session limit · resets 11:50am (UTC)",
	    NOW_MS + 3 * HOUR + 50 * MINUTE);
	expect_reset("You've hit your session limit · resets 4pm",
	    NOW_MS + 8 * HOUR);
	expect_reset("You've hit your session limit · resets 7am",
	    NOW_MS + 23 * HOUR);
	expect_reset("You've hit your session limit · resets 9:30am "
	    "(America/New_York)", NOW_MS + 6 * HOUR + 30 * MINUTE);
	expect_reset("You've hit your weekly limit · resets Jan 16, 5pm (UTC)",
	    NOW_MS + DAY + 9 * HOUR);
	expect_reset("You've hit your Opus limit · resets 3:45pm",
	    NOW_MS + 7 * HOUR + 45 * MINUTE);
	expect_reset("Claude AI usage limit reached|1800003600", NOW_MS + HOUR);
	expect_reset("Claude AI usage limit reached|1800003600000", NOW_MS + HOUR);
	expect_reset("resets in 47 minutes", NOW_MS + 47 * MINUTE);
	/* Codex */
	expect_reset("You've hit your usage limit. Try again at 3:28 PM.",
	    NOW_MS + 7 * HOUR + 28 * MINUTE);
	expect_reset("You've hit your usage limit. To get more access now, send a "
	    "request to your admin or try again at Jan 17th, 2027 12:30 PM.",
	    NOW_MS + 2 * DAY + 4 * HOUR + 30 * MINUTE);
	expect_reset("You've hit your usage limit. To get more access now, send a "
	    "request to your admin or try again in 3 days 6 hours 57 minutes.",
	    NOW_MS + 3 * DAY + 6 * HOUR + 57 * MINUTE);
	expect_reset("Model boomslang is at capacity. Please try a different "
	    "model. Try again in 2m.", NOW_MS + 2 * MINUTE);
	expect_reset("You've hit your usage limit. Try again later.", 0);
	/* Gemini CLI */
	expect_reset("Quota exceeded for metric: generate_content_free_tier_"
	    "requests, limit: 10\nPlease retry in 39.4s.", NOW_MS + 39400);
	expect_reset("Resource has been exhausted.\nSuggested retry after 60s.",
	    NOW_MS + MINUTE);
	expect_reset("Please retry in 900ms", NOW_MS + 900);
	/* Past, or too far ahead: not believed. */
	expect_reset("Claude AI usage limit reached|1700000000", 0);
	expect_reset("resets in 30 days", 0);
	expect_reset("try again at Dec 1st, 2026 12:30 PM.", 0);
	expect_reset("resets 25pm", 0);
	expect_reset("try again at 0:30 PM", 0);
	expect_reset("try again at 11:75 AM", 0);
	if (failures)
		fail_msg("%zu cases wrong", failures);
}

static void
test_pattern_replaces_text_rules(void **state)
{
	static const char log[] = "ERROR: Widget QUOTA exhausted\n"
				  "429 Too Many Requests\n";
	struct rate_limit rl;
	regex_t re;

	assert_int_equal(regcomp(&re, "widget quota", REG_EXTENDED | REG_ICASE |
	    REG_NOSUB | REG_NEWLINE), 0);
	rate_limit_init(&rl);
	rate_limit_scan(log, strlen(log), false, &re, NOW_MS, &rl);
	assert_true(rl.limited);
	assert_string_equal(rl.said.buf, "ERROR: Widget QUOTA exhausted");
	rate_limit_release(&rl);
	regfree(&re);
	assert_int_equal(regcomp(&re, "nothing like it", REG_EXTENDED | REG_ICASE |
	    REG_NOSUB | REG_NEWLINE), 0);
	rate_limit_init(&rl);
	rate_limit_scan(log, strlen(log), false, &re, NOW_MS, &rl);
	assert_false(rl.limited);
	rate_limit_release(&rl);
	regfree(&re);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_what_each_client_says),
		cmocka_unit_test(test_reset_times),
		cmocka_unit_test(test_pattern_replaces_text_rules),
	};

	setenv("TZ", "UTC0", 1);
	tzset();
	return cmocka_run_group_tests_name("ratelimit", tests, NULL, NULL);
}
