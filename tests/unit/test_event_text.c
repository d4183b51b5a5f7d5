/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for core/event_text: every kind of event daicho records reads
 * as a sentence, with the detail fields it has (older events lack some),
 * and an unknown kind falls back to "KIND on #ID".
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/event_text.h"

struct sentence_case {
	const char *actor;
	const char *kind;
	int64_t task;
	const char *title;
	const char *detail; /* JSON text, or NULL */
	const char *want;
};

/* 2027-01-15T08:00:00Z */
#define T0 "1800000000000"

static const struct sentence_case cases[] = {
	{ "w1", "add", 4, "Parse headers", NULL, "w1 added #4 Parse headers" },
	{ "w1", "claim", 4, "Parse headers",
	  "{\"lease_ms\":1800000,\"max_hold_ms\":5400000,\"base\":null}",
	  "w1 claimed #4 Parse headers" },
	{ "sweep", "lease-expired", 4, "Parse headers",
	  "{\"owner\":\"w1\",\"expired_ms\":" T0 ",\"to\":\"open\",\"reason\":"
	  "\"lease ran out: the holder stopped heart-beating\"}",
	  "w1 lost #4 Parse headers (lease ran out: the holder stopped "
	  "heart-beating); open again" },
	{ "w2", "lease-expired", 4, "Parse headers",
	  "{\"owner\":\"w1\",\"expired_ms\":" T0 "}",
	  "w1 lost #4 Parse headers (its lease ran out)" },
	{ "sweep", "lease-expired", 4, NULL,
	  "{\"owner\":null,\"expired_ms\":" T0 ",\"to\":\"failed\",\"reason\":"
	  "\"max hold: no command of the holder named the task\"}",
	  "#4 lost its holder (max hold: no command of the holder named the "
	  "task); failed" },
	{ "sweep", "fail", 4, "Parse headers",
	  "{\"reason\":\"attempts exhausted\",\"attempts\":3}",
	  "#4 Parse headers failed: attempts exhausted after 3 attempts" },
	{ "w1", "release", 4, "Parse headers", NULL,
	  "w1 released #4 Parse headers" },
	{ "alice", "release", 4, "Parse headers",
	  "{\"forced\":true,\"from\":\"blocked\",\"owner\":\"w1\"}",
	  "alice took #4 Parse headers back from w1 (it was blocked)" },
	{ "runner", "requeue", 4, "Parse headers",
	  "{\"reason\":\"rate limited\",\"attempts\":2,\"retry_after_ms\":30000}",
	  "runner put #4 Parse headers back: rate limited (attempt 2), to retry "
	  "in 30.0s" },
	{ "runner", "requeue", 4, "Parse headers",
	  "{\"reason\":\"worker exited 1\",\"attempts\":1,\"retry_after_ms\":0}",
	  "runner put #4 Parse headers back: worker exited 1 (attempt 1)" },
	{ "w1", "block", 4, "Parse headers",
	  "{\"reason\":\"which database?\"}",
	  "w1 blocked #4 Parse headers: which database?" },
	{ "alice", "cancel", 4, "Parse headers",
	  "{\"from\":\"open\",\"reason\":\"not needed\"}",
	  "alice cancelled #4 Parse headers (it was open): not needed" },
	{ "alice", "cancel", 4, "Parse headers", "{\"from\":\"failed\"}",
	  "alice cancelled #4 Parse headers (it was failed)" },
	{ "w1", "report", 4, "Parse headers",
	  "{\"commit\":\"0e969c63b2e6f19b0beb7af8b034e85f5ee00537\",\"note\":"
	  "\"done, I think\"}",
	  "w1 reported #4 Parse headers done at commit 0e969c63b2: done, I "
	  "think" },
	{ "w1", "report", 4, "Parse headers", "{\"commit\":null,\"note\":null}",
	  "w1 reported #4 Parse headers done" },
	{ "w1", "save", 4, "Parse headers",
	  "{\"save\":1,\"bytes\":7,\"tokens_in\":1200,\"tokens_out\":345,"
	  "\"cost\":0.42,\"model\":\"claude-x\"}",
	  "w1 saved a result for #4 Parse headers (7 bytes, 1200 tokens in, "
	  "345 out, $0.42, claude-x)" },
	{ "w1", "save", 4, "Parse headers", "{\"save\":2,\"bytes\":1}",
	  "w1 saved a result for #4 Parse headers (1 byte)" },
	{ "alice", "verified", 4, "Parse headers",
	  "{\"verdict\":1,\"summary\":\"2 checks passed\",\"commit\":"
	  "\"0e969c63b2e6f19b0beb7af8b034e85f5ee00537\"}",
	  "the sweep (run by alice) verified #4 Parse headers at commit "
	  "0e969c63b2: 2 checks passed" },
	{ "alice", "verified", 4, "Parse headers", "{\"verdict\":1}",
	  "the sweep (run by alice) verified #4 Parse headers" },
	{ "sweep", "rejected", 7, "Fix x",
	  "{\"verdict\":2,\"summary\":\"file src/x.c missing\",\"to\":\"owner\"}",
	  "#7 Fix x rejected: file src/x.c missing; back to its holder" },
	{ "sweep", "rejected", 7, NULL,
	  "{\"verdict\":2,\"summary\":\"file src/x.c missing\",\"to\":\"open\"}",
	  "#7 rejected: file src/x.c missing; open again" },
	{ "sweep", "rejected", 7, "Fix x",
	  "{\"verdict\":3,\"summary\":\"cmd:false exited 1\",\"to\":\"failed\"}",
	  "#7 Fix x rejected: cmd:false exited 1; failed, its attempts used up" },
	{ "alice", "reverified", 4, "Parse headers",
	  "{\"verdict\":5,\"summary\":\"2 checks passed\"}",
	  "the sweep (run by alice) verified #4 Parse headers again: 2 checks "
	  "passed" },
	{ "sweep", "reopened", 4, "Parse headers",
	  "{\"verdict\":6,\"summary\":\"cmd:make test exited 2\"}",
	  "#4 Parse headers no longer passes: cmd:make test exited 2; open "
	  "again" },
	{ "alice", "reopen", 4, "Parse headers",
	  "{\"from\":\"failed\",\"attempts\":3}",
	  "alice reopened #4 Parse headers (it was failed)" },
	{ "alice", "unblock", 4, "Parse headers",
	  "{\"to\":\"owner\",\"owner\":\"w1\"}",
	  "alice unblocked #4 Parse headers; back to w1" },
	{ "alice", "unblock", 4, "Parse headers",
	  "{\"to\":\"open\",\"owner\":\"w1\"}",
	  "alice unblocked #4 Parse headers; open again" },
	{ "alice", "edit", 4, "Parse headers",
	  "{\"fields\":[\"title\",\"done_when\"],\"title\":{\"old\":\"a\","
	  "\"new\":\"Parse headers\"}}",
	  "alice edited #4 Parse headers: title, done_when" },
	{ "res", "wait", 0, NULL,
	  "{\"wait\":1,\"for\":\"sign-off\",\"owner\":\"mgr\",\"remind_ms\":"
	  "3600000}",
	  "res waits for sign-off, as mgr asked (wait #1)" },
	{ "res", "wait", 0, NULL,
	  "{\"wait\":2,\"for\":\"#3\",\"owner\":null,\"remind_ms\":3600000}",
	  "res waits for #3 (wait #2)" },
	{ "res", "wait-end", 0, NULL,
	  "{\"wait\":1,\"ended\":1,\"agent\":null}",
	  "res stopped waiting (wait #1)" },
	{ "res", "wait-end", 0, NULL,
	  "{\"wait\":null,\"ended\":2,\"agent\":null}",
	  "res stopped waiting (2 waits)" },
	{ "alice", "wait-end", 0, NULL,
	  "{\"wait\":3,\"ended\":1,\"agent\":\"res\"}",
	  "alice ended the wait of res (wait #3)" },
	{ "sweep", "wait-reassigned", 0, NULL,
	  "{\"wait\":1,\"from\":\"mgr\",\"to\":7}",
	  "wait #1 passed from mgr, who ended, to the live holder of its role" },
	{ "sweep", "wait-needs-human", 0, NULL,
	  "{\"wait\":1,\"from\":\"mgr\",\"to\":null}",
	  "wait #1 needs a person: its owner mgr ended, and no one live holds "
	  "its role" },
	{ "sweep", "wait-overdue", 0, NULL,
	  "{\"wait\":1,\"owner\":5,\"needs_human\":false}",
	  "wait #1 is overdue; its owner was reminded" },
	{ "sweep", "wait-overdue", 0, NULL,
	  "{\"wait\":1,\"owner\":5,\"needs_human\":true}",
	  "wait #1 is overdue; its owner is gone, so it needs a person" },
	{ "w1", "agent-inherit", 0, NULL,
	  "{\"name\":\"w1\",\"claims\":1,\"waits\":0,\"owned_waits\":2}",
	  "w1 took over what an ended agent of its name held (claims 1, waits "
	  "0, waits it owns 2)" },
	{ "w1", "agent-register", 0, NULL,
	  "{\"name\":\"w1\",\"kind\":\"script\",\"role\":\"implementer\"}",
	  "w1 joined as implementer (script)" },
	{ "w1", "agent-register", 0, NULL,
	  "{\"name\":\"w1\",\"kind\":\"claude\",\"role\":null}",
	  "w1 joined (claude)" },
	{ "w1", "agent-end", 0, NULL, NULL, "w1 ended" },
	{ "w1", "agent-end", 0, NULL, "{\"agent\":3}", "w1 ended agent #3" },
	{ "alice", "agent-end", 0, NULL, "{\"agent\":3,\"name\":\"w1\"}",
	  "alice ended w1" },
	{ "sweep", "agent-end", 0, NULL,
	  "{\"agent\":3,\"reason\":\"its process is gone\"}",
	  "agent #3 ended: its process is gone" },
	{ "w1", "agent-takeover", 0, NULL,
	  "{\"name\":\"w1\",\"last_seen_ms\":" T0 ",\"was\":\"stale\"}",
	  "w1 was taken over by a new agent of that name (the old one was "
	  "stale, last seen 2027-01-15T08:00:00Z)" },
	{ "w2", "agent-rename", 0, NULL,
	  "{\"from\":\"claude-4f1c\",\"to\":\"w2\",\"role\":\"implementer\"}",
	  "claude-4f1c is now w2 (role implementer)" },
	{ "sweep", "agent-stale", 0, NULL,
	  "{\"agent\":3,\"name\":\"w1\",\"last_seen_ms\":" T0 "}",
	  "w1 went stale (last seen 2027-01-15T08:00:00Z)" },
	{ "w1", "reserve", 4, "Parse headers",
	  "{\"globs\":[\"src/a.c\",\"src/b/*\"],\"ttl_ms\":7200000}",
	  "w1 reserved src/a.c, src/b/* for 2h0m (#4 Parse headers)" },
	{ "w1", "reserve", 0, NULL,
	  "{\"globs\":[\"docs/**\"],\"ttl_ms\":1800000}",
	  "w1 reserved docs/** for 30m0s" },
	{ "w1", "unreserve", 0, NULL, "{\"released\":2}",
	  "w1 released 2 reservations" },
	{ "alice", "config", 0, NULL,
	  "{\"key\":\"lease\",\"old\":null,\"new\":2700000}",
	  "alice set lease to 45m0s" },
	{ "alice", "config", 0, NULL,
	  "{\"key\":\"jobs\",\"old\":4,\"new\":8}",
	  "alice set jobs to 8 (it was 4)" },
	{ "alice", "config", 0, NULL,
	  "{\"key\":\"protect\",\"old\":[\"tests/**\"],\"new\":null}",
	  "alice unset protect (it was tests/**)" },
	{ "alice", "gate-add", 0, NULL,
	  "{\"gate\":1,\"pattern\":\"git merge *\",\"approval\":true,"
	  "\"requires\":[\"make check\"]}",
	  "alice added gate #1 for 'git merge *', which needs a person's "
	  "approval, requiring make check" },
	{ "alice", "gate-add", 0, NULL,
	  "{\"gate\":2,\"pattern\":\"git push*\",\"approval\":false,"
	  "\"requires\":[]}",
	  "alice added gate #2 for 'git push*'" },
	{ "alice", "gate-rm", 0, NULL, "{\"gate\":1,\"checked\":{}}",
	  "alice removed gate #1" },
	{ "w1", "approval-request", 0, NULL,
	  "{\"approval\":2,\"command\":\"git push\",\"cwd\":\"/src\"}",
	  "w1 asked to run 'git push' (request #2)" },
	{ "alice", "approve", 0, NULL,
	  "{\"approval\":2,\"by\":\"alice\",\"tty\":\"/dev/pts/0\",\"command\":"
	  "\"git push\"}",
	  "alice approved request #2 (git push)" },
	{ "alice", "approve", 0, NULL,
	  "{\"approval\":2,\"by\":\"alice\",\"tty\":\"/dev/pts/0\",\"if\":"
	  "\"make test\"}",
	  "alice approved request #2 if make test" },
	{ "alice", "deny", 0, NULL,
	  "{\"approval\":3,\"by\":\"alice\",\"tty\":\"/dev/pts/0\",\"command\":"
	  "\"git push --force\",\"reason\":\"never force\"}",
	  "alice denied request #3 (git push --force): never force" },
	{ "w1", "approval-used", 0, NULL, "{\"approval\":2}",
	  "w1 ran the command of approval #2" },
	{ "mgr", "send", 0, NULL, "{\"to\":\"role:implementer\",\"messages\":"
	  "[1,2]}", "mgr sent 2 messages to role:implementer" },
	{ "mgr", "send", 0, NULL, "{\"to\":\"w1\",\"messages\":[3]}",
	  "mgr sent 1 message to w1" },
	{ "mgr2", "handoff", 0, NULL,
	  "{\"from\":2,\"to\":6,\"waits\":1,\"from_name\":\"mgr\",\"to_name\":"
	  "\"mgr2\"}",
	  "mgr2 handed the role of mgr and 1 wait to mgr2" },
	{ "mgr", "handoff", 0, NULL,
	  "{\"from\":2,\"to\":6,\"waits\":0,\"to_name\":\"mgr2\"}",
	  "mgr handed its role and 0 waits to mgr2" },
	{ "mgr", "handoff", 0, NULL, "{\"from\":2,\"to\":6,\"waits\":3}",
	  "mgr handed its role and 3 waits to agent #6" },
	{ "mgr", "budget-spent", 0, NULL, "{\"tokens\":12000,\"cost\":1.5}",
	  "mgr's run stopped launching: its budget is spent (12000 tokens, "
	  "$1.5)" },
	{ "mgr", "pause", 4, "Parse headers",
	  "{\"reason\":\"rate limit\",\"pause_ms\":300000,\"until_ms\":" T0 ","
	  "\"extended\":false}",
	  "mgr's run paused 5m0s for a rate limit after #4 Parse headers" },
	{ "mgr", "pause", 4, "Parse headers",
	  "{\"reason\":\"usage limit\",\"pause_ms\":600000,\"until_ms\":" T0 ","
	  "\"extended\":true,\"said\":\"limit reached\"}",
	  "mgr's run paused 10m0s for a usage limit more after #4 Parse "
	  "headers" },
	{ "mgr", "exit", 4, "Parse headers",
	  "{\"attempt\":1,\"launch\":1,\"duration_ms\":263000,\"log\":\"x.log\","
	  "\"outcome\":\"reported by the worker\",\"exit\":0}",
	  "the worker of #4 Parse headers exited 0 after 4m23s: reported by the "
	  "worker" },
	{ "mgr", "exit", 4, "Parse headers",
	  "{\"attempt\":2,\"launch\":2,\"duration_ms\":600000,\"log\":\"x.log\","
	  "\"outcome\":\"failed attempt\",\"exit\":null,\"timed_out\":true}",
	  "the worker of #4 Parse headers was killed at its timeout after "
	  "10m0s: failed attempt" },
	{ "mgr", "resume", 0, NULL, NULL, "mgr's run resumed launching" },
	/* No actor on record, and no title. */
	{ NULL, "add", 9, NULL, NULL, "someone added #9" },
	/* Unknown kinds, and a known one whose detail is not an object. */
	{ "w1", "teleport", 5, "x", "{\"to\":\"mars\"}", "teleport on #5" },
	{ "w1", "teleport", 0, NULL, NULL, "teleport by w1" },
	{ "w1", "block", 4, NULL, "[1,2]", "w1 blocked #4" },
	/* Text from agents stays on one line. */
	{ "w1", "block", 4, "two\nlines", "{\"reason\":\"a\\u001b[31mb\\tc\"}",
	  "w1 blocked #4 two?lines: a?[31mb?c" },
};

/* Every case reads as it should. */
static void
test_every_kind(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sentence_case *c = &cases[i];
		json_t *detail = c->detail ? json_loads(c->detail, 0, NULL) : NULL;
		struct buf out = BUF_INIT;

		if (c->detail && detail == NULL)
			fail_msg("case %zu (%s): bad detail JSON", i, c->kind);
		event_text_add(&out, c->actor, c->kind, c->task, c->title, detail);
		if (strcmp(out.buf, c->want) != 0)
			fail_msg("case %zu (%s):\n  got  '%s'\n  want '%s'", i, c->kind,
			    out.buf, c->want);
		json_decref(detail);
		buf_release(&out);
	}
}

/* The sentence is appended: what out held stays. */
static void
test_appends(void **state)
{
	struct buf out = BUF_INIT;

	buf_adds(&out, "12s ago  ");
	event_text_add(&out, "w1", "claim", 4, "t", NULL);
	assert_string_equal(out.buf, "12s ago  w1 claimed #4 t");
	buf_release(&out);
}

/*
 * Every kind that daicho records has its own sentence: none of the kinds
 * written by src/ (every event_append() and event_record(), listed here)
 * falls back to "KIND on #ID", even with no detail at all.
 */
static void
test_no_known_kind_falls_back(void **state)
{
	static const char *const kinds[] = { "add", "claim", "lease-expired",
		"fail", "release", "requeue", "block", "cancel", "report", "save",
		"verified", "rejected", "reverified", "reopened", "reopen",
		"unblock", "edit", "wait", "wait-end", "wait-reassigned",
		"wait-needs-human", "wait-overdue", "agent-inherit",
		"agent-register", "agent-end", "agent-takeover", "agent-rename",
		"agent-stale", "reserve", "unreserve", "config", "gate-add",
		"gate-rm", "approval-request", "approve", "deny", "approval-used",
		"send", "handoff", "budget-spent", "pause", "exit", "resume" };

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct buf out = BUF_INIT, fallback = BUF_INIT;

		event_text_add(&out, "w1", kinds[i], 4, NULL, NULL);
		buf_addf(&fallback, "%s on #4", kinds[i]);
		if (strcmp(out.buf, fallback.buf) == 0)
			fail_msg("kind %s has no sentence", kinds[i]);
		buf_release(&out);
		buf_release(&fallback);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kind),
		cmocka_unit_test(test_appends),
		cmocka_unit_test(test_no_known_kind_falls_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
