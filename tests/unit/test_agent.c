/*
 * Unit tests for core/agent: agent names, resolving the caller and the
 * heartbeat.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/agent.h"
#include "core/err.h"
#include "core/ledger.h"

#define NOW_MS 1700000000000LL

struct fixture {
	char dir[PATH_MAX];
	char path[PATH_MAX + 32];
	struct ledger *ledger;
};

static void
set_now(int64_t ms)
{
	char text[32];

	snprintf(text, sizeof(text), "%lld", (long long)ms);
	setenv("DAICHO_NOW_MS", text, 1);
}

/* Fail the test with context and err's message, releasing err first. */
static void
fail_err(struct err *err, const char *what)
{
	print_error("%s: %s\n", what, err->message.buf);
	err_release(err);
	fail();
}

static int
remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/daicho-test-agent-XXXXXX";
	struct err err = ERR_INIT;

	if (f == NULL || mkdtemp(tmpl) == NULL || realpath(tmpl, f->dir) == NULL)
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/ledger.db", f->dir);
	set_now(NOW_MS);
	if (ledger_create(f->path, &err) != 0 ||
	    ledger_open(f->path, &f->ledger, &err) != 0) {
		fprintf(stderr, "setup: %s\n", err.message.buf);
		err_release(&err);
		return -1;
	}
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	ledger_close(f->ledger);
	nftw(f->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	unsetenv("DAICHO_NOW_MS");
	return 0;
}

static int64_t
query_int(struct ledger *ledger, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(ledger_db(ledger), sql, -1, &st, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static char *
query_text(struct ledger *ledger, const char *sql)
{
	sqlite3_stmt *st = NULL;
	char *v;

	assert_int_equal(sqlite3_prepare_v2(ledger_db(ledger), sql, -1, &st, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_text(st, 0)
		? strdup((const char *)sqlite3_column_text(st, 0)) : NULL;
	sqlite3_finalize(st);
	return v;
}

static void
test_check_name(void **state)
{
	static const char *const good[] = { "w1", "a", "A.b_c-d@e+f", "claude-1234abcd",
		"x-", "1" };
	static const char *const bad[] = { "", "-x", "has space", "a/b", "a:b",
		"tab\t", "caf\xc3\xa9", "a\nb", "semi;colon", "quote'" };
	char long_ok[65], long_bad[66];

	memset(long_ok, 'a', 64);
	long_ok[64] = '\0';
	memset(long_bad, 'a', 65);
	long_bad[65] = '\0';
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct err err = ERR_INIT;

		if (agent_check_name(good[i], &err) != 0)
			fail_err(&err, good[i]);
		err_release(&err);
	}
	{
		struct err err = ERR_INIT;

		assert_int_equal(agent_check_name(long_ok, &err), 0);
		assert_int_equal(agent_check_name(long_bad, &err), -ERR_USAGE);
		err_release(&err);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct err err = ERR_INIT;

		if (agent_check_name(bad[i], &err) != -ERR_USAGE)
			fail_msg("agent_check_name(\"%s\") accepted", bad[i]);
		assert_int_equal(err.code, ERR_USAGE);
		err_release(&err);
	}
}

static void
test_resolve_by_name(void **state)
{
	struct fixture *f = *state;
	struct agent_claim claim = { .name = "w1", .session_id = "sess123456",
		.kind = "script", .human_name = "me" };
	struct agent a = { 0 }, b = { 0 };
	struct err err = ERR_INIT;
	char *kind;

	assert_int_equal(agent_resolve(f->ledger, &claim, &a, &err), 0);
	assert_true(a.id > 0);
	assert_string_equal(a.name, "w1");
	assert_int_equal(query_int(f->ledger,
			     "SELECT count(*) FROM events WHERE kind = "
			     "'agent-register'"),
	    1);
	kind = query_text(f->ledger, "SELECT kind FROM agents WHERE name = 'w1'");
	assert_string_equal(kind, "script");
	free(kind);
	assert_int_equal(query_int(f->ledger,
			     "SELECT last_seen_ms FROM agents WHERE name = 'w1'"),
	    NOW_MS);
	/* Known: the same agent, not registered again. */
	set_now(NOW_MS + 5000);
	assert_int_equal(agent_resolve(f->ledger, &claim, &b, &err), 0);
	assert_int_equal(b.id, a.id);
	assert_string_equal(b.name, "w1");
	assert_int_equal(query_int(f->ledger, "SELECT count(*) FROM agents"), 1);
	assert_int_equal(query_int(f->ledger,
			     "SELECT count(*) FROM events WHERE kind = "
			     "'agent-register'"),
	    1);
	/* A beat records the time. */
	assert_int_equal(agent_heartbeat(f->ledger, &b, &err), 0);
	assert_int_equal(query_int(f->ledger,
			     "SELECT last_seen_ms FROM agents WHERE name = 'w1'"),
	    NOW_MS + 5000);
	agent_release(&a);
	agent_release(&b);
	err_release(&err);
}

static void
test_resolve_bad_name(void **state)
{
	struct fixture *f = *state;
	struct agent_claim claim = { .name = "bad name", .kind = "script",
		.human_name = "me" };
	struct agent a = { 0 };
	struct err err = ERR_INIT;

	assert_int_equal(agent_resolve(f->ledger, &claim, &a, &err), -ERR_USAGE);
	assert_int_equal(err.code, ERR_USAGE);
	assert_int_equal(query_int(f->ledger, "SELECT count(*) FROM agents"), 0);
	assert_int_equal(query_int(f->ledger, "SELECT count(*) FROM events"), 0);
	agent_release(&a);
	err_release(&err);
}

static void
test_resolve_session(void **state)
{
	struct fixture *f = *state;
	struct agent_claim claim = { .session_id = "abcdef1234567890",
		.kind = "claude", .human_name = "me" };
	struct agent a = { 0 }, b = { 0 }, c = { 0 };
	struct err err = ERR_INIT;
	char *kind, *session;

	assert_int_equal(agent_resolve(f->ledger, &claim, &a, &err), 0);
	assert_string_equal(a.name, "claude-abcdef12");
	kind = query_text(f->ledger,
	    "SELECT kind FROM agents WHERE name = 'claude-abcdef12'");
	assert_string_equal(kind, "claude");
	free(kind);
	session = query_text(f->ledger,
	    "SELECT session_id FROM agents WHERE name = 'claude-abcdef12'");
	assert_string_equal(session, "abcdef1234567890");
	free(session);
	/* The same session: the same agent. */
	assert_int_equal(agent_resolve(f->ledger, &claim, &b, &err), 0);
	assert_int_equal(b.id, a.id);
	assert_string_equal(b.name, "claude-abcdef12");
	/* A UUID-like session: its first 8 characters. */
	claim.session_id = "0f1e2d3c-aaaa-bbbb-cccc-000000000000";
	claim.kind = "codex";
	assert_int_equal(agent_resolve(f->ledger, &claim, &c, &err), 0);
	assert_string_equal(c.name, "codex-0f1e2d3c");
	assert_true(c.id != a.id);
	agent_release(&a);
	agent_release(&b);
	agent_release(&c);
	err_release(&err);
}

static void
test_resolve_session_bound_agent_renamed(void **state)
{
	struct fixture *f = *state;
	struct agent_claim named = { .name = "w9", .session_id = NULL,
		.kind = "script", .human_name = "me" };
	struct agent_claim by_session = { .session_id = "s-777", .kind = "gemini",
		.human_name = "me" };
	struct agent a = { 0 }, b = { 0 }, c = { 0 };
	struct err err = ERR_INIT;

	/* An agent already bound to a session is found by it, whatever its name. */
	assert_int_equal(agent_resolve(f->ledger, &named, &a, &err), 0);
	assert_int_equal(sqlite3_exec(ledger_db(f->ledger),
			     "UPDATE agents SET session_id = 's-777' WHERE name = 'w9'",
			     NULL, NULL, NULL),
	    SQLITE_OK);
	assert_int_equal(agent_resolve(f->ledger, &by_session, &b, &err), 0);
	assert_int_equal(b.id, a.id);
	assert_string_equal(b.name, "w9");
	/* Once it ended, the session gets a new agent. */
	assert_int_equal(sqlite3_exec(ledger_db(f->ledger),
			     "UPDATE agents SET state = 'ended' WHERE name = 'w9'",
			     NULL, NULL, NULL),
	    SQLITE_OK);
	assert_int_equal(agent_resolve(f->ledger, &by_session, &c, &err), 0);
	assert_true(c.id != a.id);
	assert_int_equal(strncmp(c.name, "gemini-", 7), 0);
	agent_release(&a);
	agent_release(&b);
	agent_release(&c);
	err_release(&err);
}

static void
test_resolve_human(void **state)
{
	struct fixture *f = *state;
	struct agent_claim claim = { .kind = "script", .human_name = "alice" };
	struct agent a = { 0 };
	struct err err = ERR_INIT;
	char *kind;

	assert_int_equal(agent_resolve(f->ledger, &claim, &a, &err), 0);
	assert_string_equal(a.name, "alice");
	kind = query_text(f->ledger, "SELECT kind FROM agents WHERE name = 'alice'");
	assert_string_equal(kind, "human");
	free(kind);
	agent_release(&a);
	assert_null(a.name);
	err_release(&err);
}

static void
test_heartbeat_revives_stale(void **state)
{
	struct fixture *f = *state;
	struct agent_claim claim = { .name = "w1", .kind = "script",
		.human_name = "me" };
	struct agent a = { 0 };
	struct err err = ERR_INIT;
	char *st;

	assert_int_equal(agent_resolve(f->ledger, &claim, &a, &err), 0);
	assert_int_equal(sqlite3_exec(ledger_db(f->ledger),
			     "UPDATE agents SET state = 'stale' WHERE name = 'w1'",
			     NULL, NULL, NULL),
	    SQLITE_OK);
	set_now(NOW_MS + 60000);
	assert_int_equal(agent_heartbeat(f->ledger, &a, &err), 0);
	st = query_text(f->ledger, "SELECT state FROM agents WHERE name = 'w1'");
	assert_string_equal(st, "active");
	free(st);
	assert_int_equal(query_int(f->ledger,
			     "SELECT last_seen_ms FROM agents WHERE name = 'w1'"),
	    NOW_MS + 60000);
	/* Any write transaction carries the beat. */
	set_now(NOW_MS + 90000);
	assert_int_equal(ledger_begin(f->ledger, &err), 0);
	assert_int_equal(ledger_commit(f->ledger, &err), 0);
	assert_int_equal(query_int(f->ledger,
			     "SELECT last_seen_ms FROM agents WHERE name = 'w1'"),
	    NOW_MS + 90000);
	agent_release(&a);
	ledger_set_begin_hook(f->ledger, NULL, NULL);
	err_release(&err);
}

int
main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_name),
		T(test_resolve_by_name),
		T(test_resolve_bad_name),
		T(test_resolve_session),
		T(test_resolve_session_bound_agent_renamed),
		T(test_resolve_human),
		T(test_heartbeat_revives_stale),
	};
#undef T

	return cmocka_run_group_tests_name("agent", tests, NULL, NULL);
}
