/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for core/agent: agent names, resolving the caller (only
 * reading), registering a new caller in its first write transaction, and
 * the heartbeat.
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
#include "sqlite_ledger.h" /* these tests read the SQLite ledger directly */
#include "core/ledger.h"
#include "core/task.h"

#define NOW_MS 1700000000000LL

struct fixture {
	char dir[PATH_MAX];
	char path[PATH_MAX + 32];
	struct ledger *ledger;
	struct ledger *l2; /* a second connection, when a test opens one */
	/*
	 * Resolved agents: the ledgers keep pointers to them, and teardown
	 * releases them after closing the ledgers, even when a test fails.
	 */
	struct agent agents[3];
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

	ledger_close(f->l2);
	ledger_close(f->ledger);
	for (size_t i = 0; i < sizeof(f->agents) / sizeof(f->agents[0]); i++)
		agent_release(&f->agents[i]);
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

/* An empty write transaction: what carries the caller's registration. */
static void
write_nothing(struct ledger *ledger)
{
	struct err err = ERR_INIT;

	if (ledger_begin(ledger, &err) != 0)
		fail_err(&err, "ledger_begin");
	if (ledger_commit(ledger, &err) != 0)
		fail_err(&err, "ledger_commit");
	err_release(&err);
}

/* A second connection to the fixture's ledger (closed by teardown). */
static struct ledger *
second_connection(struct fixture *f)
{
	struct err err = ERR_INIT;

	assert_null(f->l2);
	if (ledger_open(f->path, &f->l2, &err) != 0)
		fail_err(&err, "ledger_open");
	err_release(&err);
	return f->l2;
}

static int64_t
count_agents(struct ledger *ledger)
{
	return query_int(ledger, "SELECT count(*) FROM agents");
}

static int64_t
count_registers(struct ledger *ledger)
{
	return query_int(ledger,
	    "SELECT count(*) FROM events WHERE kind = 'agent-register'");
}

static void
test_resolve_by_name(void **state)
{
	struct fixture *f = *state;
	struct agent_claim claim = { .name = "w1", .session_id = "sess123456",
		.kind = "script", .human_name = "me" };
	struct agent *a = &f->agents[0];
	struct agent *b = &f->agents[1];
	struct err err = ERR_INIT;
	char *text;

	/* New to the ledger: resolved without writing anything. */
	assert_int_equal(agent_resolve(f->ledger, &claim, a, &err), 0);
	assert_int_equal(a->id, 0);
	assert_string_equal(a->name, "w1");
	assert_string_equal(a->kind, "script");
	assert_null(a->session_id); /* a name, not a session, identifies it */
	assert_int_equal(ledger_caller(f->ledger), 0);
	assert_int_equal(count_agents(f->ledger), 0);
	assert_int_equal(query_int(f->ledger, "SELECT count(*) FROM events"), 0);
	assert_int_equal(ledger_commit_count(f->ledger), 0);

	/* The first write transaction registers it, with an event. */
	write_nothing(f->ledger);
	assert_true(a->id > 0);
	assert_int_equal(ledger_caller(f->ledger), a->id);
	assert_int_equal(count_agents(f->ledger), 1);
	assert_int_equal(query_int(f->ledger, "SELECT id FROM agents"), a->id);
	assert_int_equal(count_registers(f->ledger), 1);
	assert_int_equal(query_int(f->ledger,
			     "SELECT actor FROM events WHERE kind = 'agent-register'"),
	    a->id);
	text = query_text(f->ledger,
	    "SELECT detail FROM events WHERE kind = 'agent-register'");
	assert_non_null(strstr(text, "\"name\":\"w1\""));
	assert_non_null(strstr(text, "\"kind\":\"script\""));
	free(text);
	text = query_text(f->ledger, "SELECT kind FROM agents WHERE name = 'w1'");
	assert_string_equal(text, "script");
	free(text);
	text = query_text(f->ledger, "SELECT state FROM agents WHERE name = 'w1'");
	assert_string_equal(text, "active");
	free(text);
	assert_null(query_text(f->ledger,
	    "SELECT session_id FROM agents WHERE name = 'w1'"));
	assert_int_equal(query_int(f->ledger,
			     "SELECT last_seen_ms FROM agents WHERE name = 'w1'"),
	    NOW_MS);
	assert_int_equal(query_int(f->ledger,
			     "SELECT started_ms FROM agents WHERE name = 'w1'"),
	    NOW_MS);

	/* Known: the same agent, found without writing (no beat either). */
	set_now(NOW_MS + 5000);
	assert_int_equal(agent_resolve(f->ledger, &claim, b, &err), 0);
	assert_int_equal(b->id, a->id);
	assert_string_equal(b->name, "w1");
	assert_int_equal(ledger_caller(f->ledger), a->id);
	assert_int_equal(count_agents(f->ledger), 1);
	assert_int_equal(count_registers(f->ledger), 1);
	assert_int_equal(query_int(f->ledger,
			     "SELECT last_seen_ms FROM agents WHERE name = 'w1'"),
	    NOW_MS);
	/* A beat records the time, and registers nothing. */
	assert_int_equal(agent_heartbeat(f->ledger, b, &err), 0);
	assert_int_equal(b->id, a->id);
	assert_int_equal(query_int(f->ledger,
			     "SELECT last_seen_ms FROM agents WHERE name = 'w1'"),
	    NOW_MS + 5000);
	assert_int_equal(count_agents(f->ledger), 1);
	assert_int_equal(count_registers(f->ledger), 1);
	ledger_set_begin_hook(f->ledger, NULL, NULL);
	agent_release(a);
	agent_release(b);
	err_release(&err);
}

static void
test_resolve_rollback_unregisters(void **state)
{
	struct fixture *f = *state;
	struct agent_claim claim = { .name = "w1", .kind = "script",
		.human_name = "me" };
	struct agent *a = &f->agents[0];
	struct err err = ERR_INIT;
	int64_t inside;

	assert_int_equal(agent_resolve(f->ledger, &claim, a, &err), 0);
	assert_int_equal(a->id, 0);
	/* Inside the first write transaction the caller is registered... */
	assert_int_equal(ledger_begin(f->ledger, &err), 0);
	inside = a->id;
	assert_true(inside > 0);
	assert_int_equal(ledger_caller(f->ledger), inside);
	assert_int_equal(count_agents(f->ledger), 1);
	assert_int_equal(count_registers(f->ledger), 1);
	/* ...and a rollback takes the registration with it. */
	ledger_rollback(f->ledger);
	assert_int_equal(count_agents(f->ledger), 0);
	assert_int_equal(query_int(f->ledger, "SELECT count(*) FROM events"), 0);
	assert_int_equal(ledger_commit_count(f->ledger), 0);
	/* The caller is new to the ledger again: no id for a row that is gone. */
	assert_int_equal(a->id, 0);
	assert_int_equal(ledger_caller(f->ledger), 0);

	/* The next committed write registers it for real. */
	set_now(NOW_MS + 1000);
	write_nothing(f->ledger);
	assert_true(a->id > 0);
	assert_int_equal(ledger_caller(f->ledger), a->id);
	assert_int_equal(count_agents(f->ledger), 1);
	assert_int_equal(query_int(f->ledger, "SELECT id FROM agents WHERE name = 'w1'"),
	    a->id);
	assert_int_equal(count_registers(f->ledger), 1);
	assert_int_equal(query_int(f->ledger,
			     "SELECT actor FROM events WHERE kind = 'agent-register'"),
	    a->id);
	assert_int_equal(query_int(f->ledger,
			     "SELECT started_ms FROM agents WHERE name = 'w1'"),
	    NOW_MS + 1000);
	ledger_set_begin_hook(f->ledger, NULL, NULL);
	agent_release(a);
	err_release(&err);
}

static void
test_resolve_bad_name(void **state)
{
	struct fixture *f = *state;
	struct agent_claim claim = { .name = "bad name", .kind = "script",
		.human_name = "me" };
	struct agent *a = &f->agents[0];
	struct err err = ERR_INIT;

	assert_int_equal(agent_resolve(f->ledger, &claim, a, &err), -ERR_USAGE);
	assert_int_equal(err.code, ERR_USAGE);
	assert_int_equal(count_agents(f->ledger), 0);
	assert_int_equal(query_int(f->ledger, "SELECT count(*) FROM events"), 0);
	/* Not resolved: a later write registers nobody. */
	write_nothing(f->ledger);
	assert_int_equal(count_agents(f->ledger), 0);
	assert_int_equal(ledger_caller(f->ledger), 0);
	agent_release(a);
	err_release(&err);
}

static void
test_resolve_session(void **state)
{
	struct fixture *f = *state;
	struct agent_claim claim = { .session_id = "abcdef1234567890",
		.kind = "claude", .human_name = "me" };
	struct agent *a = &f->agents[0];
	struct agent *b = &f->agents[1];
	struct agent *c = &f->agents[2];
	struct err err = ERR_INIT;
	char *kind, *session;

	assert_int_equal(agent_resolve(f->ledger, &claim, a, &err), 0);
	assert_string_equal(a->name, "claude-abcdef12");
	assert_string_equal(a->kind, "claude");
	assert_string_equal(a->session_id, "abcdef1234567890");
	assert_int_equal(a->id, 0);
	assert_int_equal(count_agents(f->ledger), 0);
	assert_int_equal(count_registers(f->ledger), 0);
	/* Registered, bound to its session, by the first write. */
	write_nothing(f->ledger);
	assert_true(a->id > 0);
	assert_int_equal(count_registers(f->ledger), 1);
	kind = query_text(f->ledger,
	    "SELECT kind FROM agents WHERE name = 'claude-abcdef12'");
	assert_string_equal(kind, "claude");
	free(kind);
	session = query_text(f->ledger,
	    "SELECT session_id FROM agents WHERE name = 'claude-abcdef12'");
	assert_string_equal(session, "abcdef1234567890");
	free(session);
	/* The same session: the same agent, found without writing. */
	assert_int_equal(agent_resolve(f->ledger, &claim, b, &err), 0);
	assert_int_equal(b->id, a->id);
	assert_string_equal(b->name, "claude-abcdef12");
	assert_int_equal(count_agents(f->ledger), 1);
	/* A UUID-like session: its first 8 characters; new, so id 0. */
	claim.session_id = "0f1e2d3c-aaaa-bbbb-cccc-000000000000";
	claim.kind = "codex";
	assert_int_equal(agent_resolve(f->ledger, &claim, c, &err), 0);
	assert_string_equal(c->name, "codex-0f1e2d3c");
	assert_int_equal(c->id, 0);
	assert_int_equal(ledger_caller(f->ledger), 0);
	assert_int_equal(count_agents(f->ledger), 1);
	assert_int_equal(agent_heartbeat(f->ledger, c, &err), 0);
	assert_true(c->id > 0);
	assert_true(c->id != a->id);
	assert_int_equal(ledger_caller(f->ledger), c->id);
	assert_int_equal(count_agents(f->ledger), 2);
	assert_int_equal(count_registers(f->ledger), 2);
	session = query_text(f->ledger,
	    "SELECT session_id FROM agents WHERE name = 'codex-0f1e2d3c'");
	assert_string_equal(session, "0f1e2d3c-aaaa-bbbb-cccc-000000000000");
	free(session);
	ledger_set_begin_hook(f->ledger, NULL, NULL);
	agent_release(a);
	agent_release(b);
	agent_release(c);
	err_release(&err);
}

static void
test_resolve_session_name_taken(void **state)
{
	struct fixture *f = *state;
	struct agent_claim other = { .name = "claude-abcdef12", .kind = "script",
		.human_name = "me" };
	struct agent_claim claim = { .session_id = "abcdef1234567890",
		.kind = "claude", .human_name = "me" };
	struct agent *a = &f->agents[0];
	struct agent *b = &f->agents[1];
	struct err err = ERR_INIT;

	/* Another live agent already has the 8-character name. */
	assert_int_equal(agent_resolve(f->ledger, &other, a, &err), 0);
	assert_int_equal(agent_heartbeat(f->ledger, a, &err), 0);
	assert_true(a->id > 0);
	/* The session gets a longer name, and is not mistaken for it. */
	assert_int_equal(agent_resolve(f->ledger, &claim, b, &err), 0);
	assert_string_equal(b->name, "claude-abcdef1234567890");
	assert_int_equal(b->id, 0);
	assert_int_equal(agent_heartbeat(f->ledger, b, &err), 0);
	assert_true(b->id > 0);
	assert_true(b->id != a->id);
	assert_int_equal(count_agents(f->ledger), 2);
	ledger_set_begin_hook(f->ledger, NULL, NULL);
	agent_release(a);
	agent_release(b);
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
	struct agent *a = &f->agents[0];
	struct agent *b = &f->agents[1];
	struct agent *c = &f->agents[2];
	struct err err = ERR_INIT;
	char *text;

	/* An agent already bound to a session is found by it, whatever its name. */
	assert_int_equal(agent_resolve(f->ledger, &named, a, &err), 0);
	assert_int_equal(agent_heartbeat(f->ledger, a, &err), 0);
	assert_true(a->id > 0);
	assert_int_equal(sqlite3_exec(ledger_db(f->ledger),
			     "UPDATE agents SET session_id = 's-777' WHERE name = 'w9'",
			     NULL, NULL, NULL),
	    SQLITE_OK);
	assert_int_equal(agent_resolve(f->ledger, &by_session, b, &err), 0);
	assert_int_equal(b->id, a->id);
	assert_string_equal(b->name, "w9");
	assert_int_equal(ledger_caller(f->ledger), a->id);
	/*
	 * Once it ended, the session stays ended: resolved as that ended
	 * agent, whose first write is refused and registers nothing...
	 */
	assert_int_equal(sqlite3_exec(ledger_db(f->ledger),
			     "UPDATE agents SET state = 'ended' WHERE name = 'w9'",
			     NULL, NULL, NULL),
	    SQLITE_OK);
	assert_int_equal(agent_resolve(f->ledger, &by_session, c, &err), 0);
	assert_true(c->ended);
	assert_int_equal(c->id, 0);
	assert_string_equal(c->name, "w9");
	assert_int_equal(ledger_begin(f->ledger, &err), -ERR_REFUSED);
	assert_non_null(strstr(err.message.buf, "an ended session stays ended"));
	err_release(&err);
	assert_int_equal(count_agents(f->ledger), 1);
	agent_release(c);
	/* ...until the session starts again: then it gets a new agent. */
	by_session.starting = true;
	assert_int_equal(agent_resolve(f->ledger, &by_session, c, &err), 0);
	assert_false(c->ended);
	assert_int_equal(c->id, 0);
	assert_string_equal(c->name, "gemini-s777");
	assert_int_equal(ledger_caller(f->ledger), 0);
	assert_int_equal(count_agents(f->ledger), 1);
	assert_int_equal(count_registers(f->ledger), 1);
	write_nothing(f->ledger);
	assert_true(c->id > 0);
	assert_true(c->id != a->id);
	assert_int_equal(count_agents(f->ledger), 2);
	assert_int_equal(count_registers(f->ledger), 2);
	text = query_text(f->ledger,
	    "SELECT kind || ' ' || session_id || ' ' || state FROM agents"
	    " WHERE name = 'gemini-s777'");
	assert_string_equal(text, "gemini s-777 active");
	free(text);
	ledger_set_begin_hook(f->ledger, NULL, NULL);
	agent_release(a);
	agent_release(b);
	agent_release(c);
	err_release(&err);
}

static void
test_resolve_human(void **state)
{
	struct fixture *f = *state;
	struct agent_claim claim = { .kind = "script", .human_name = "alice" };
	struct agent *a = &f->agents[0];
	struct err err = ERR_INIT;
	char *kind;

	assert_int_equal(agent_resolve(f->ledger, &claim, a, &err), 0);
	assert_string_equal(a->name, "alice");
	assert_string_equal(a->kind, "human");
	assert_null(a->session_id);
	assert_int_equal(a->id, 0);
	assert_int_equal(count_agents(f->ledger), 0);
	write_nothing(f->ledger);
	assert_true(a->id > 0);
	kind = query_text(f->ledger, "SELECT kind FROM agents WHERE name = 'alice'");
	assert_string_equal(kind, "human");
	free(kind);
	assert_int_equal(count_registers(f->ledger), 1);
	ledger_set_begin_hook(f->ledger, NULL, NULL);
	agent_release(a);
	assert_null(a->name);
	assert_null(a->kind);
	assert_int_equal(a->id, 0);
	err_release(&err);
}

static void
test_heartbeat_revives_stale(void **state)
{
	struct fixture *f = *state;
	struct agent_claim claim = { .name = "w1", .kind = "script",
		.human_name = "me" };
	struct agent *a = &f->agents[0];
	struct err err = ERR_INIT;
	char *st;

	assert_int_equal(agent_resolve(f->ledger, &claim, a, &err), 0);
	/* A heartbeat registers a pending caller, then beats. */
	assert_int_equal(a->id, 0);
	assert_int_equal(agent_heartbeat(f->ledger, a, &err), 0);
	assert_true(a->id > 0);
	assert_int_equal(ledger_caller(f->ledger), a->id);
	assert_int_equal(count_agents(f->ledger), 1);
	assert_int_equal(count_registers(f->ledger), 1);
	assert_int_equal(ledger_commit_count(f->ledger), 1);
	assert_int_equal(sqlite3_exec(ledger_db(f->ledger),
			     "UPDATE agents SET state = 'stale' WHERE name = 'w1'",
			     NULL, NULL, NULL),
	    SQLITE_OK);
	set_now(NOW_MS + 60000);
	assert_int_equal(agent_heartbeat(f->ledger, a, &err), 0);
	st = query_text(f->ledger, "SELECT state FROM agents WHERE name = 'w1'");
	assert_string_equal(st, "active");
	free(st);
	assert_int_equal(query_int(f->ledger,
			     "SELECT last_seen_ms FROM agents WHERE name = 'w1'"),
	    NOW_MS + 60000);
	assert_int_equal(count_registers(f->ledger), 1);
	/* Any write transaction carries the beat. */
	set_now(NOW_MS + 90000);
	write_nothing(f->ledger);
	assert_int_equal(query_int(f->ledger,
			     "SELECT last_seen_ms FROM agents WHERE name = 'w1'"),
	    NOW_MS + 90000);
	assert_int_equal(count_agents(f->ledger), 1);
	ledger_set_begin_hook(f->ledger, NULL, NULL);
	agent_release(a);
	err_release(&err);
}

/*
 * (a) A core call refused for a caller new to the ledger leaves no trace of
 * it: no agents row, no agent-register event.
 */
static void
test_refused_call_registers_nobody(void **state)
{
	struct fixture *f = *state;
	struct ledger *l2 = second_connection(f);
	struct agent_claim c1 = { .name = "w1", .kind = "script",
		.human_name = "me" };
	struct agent_claim c2 = { .name = "w2", .kind = "script",
		.human_name = "me" };
	struct agent *a1 = &f->agents[0];
	struct agent *a2 = &f->agents[1];
	struct task_spec spec = { .title = "one" };
	struct claim_terms terms = { 60000, 0, NULL };
	struct err err = ERR_INIT;
	int64_t id = 0, got = 0, events;

	/* w1 adds a task and holds it (passing 0: "the caller"). */
	assert_int_equal(agent_resolve(f->ledger, &c1, a1, &err), 0);
	if (task_add(f->ledger, 0, &spec, 1, &id, &err) != 0)
		fail_err(&err, "task_add");
	assert_true(a1->id > 0);
	if (task_claim(f->ledger, 0, id, NULL, &terms, &got, &err) != 0)
		fail_err(&err, "task_claim");
	assert_int_equal(got, id);
	assert_int_equal(query_int(f->ledger, "SELECT owner FROM tasks"), a1->id);
	events = query_int(f->ledger, "SELECT count(*) FROM events");

	/* w2, new to the ledger, is refused the task. */
	assert_int_equal(agent_resolve(l2, &c2, a2, &err), 0);
	assert_int_equal(a2->id, 0);
	got = 0;
	assert_int_equal(task_claim(l2, 0, id, NULL, &terms, &got, &err),
	    -ERR_CONFLICT);
	assert_int_equal(err.code, ERR_CONFLICT);
	assert_non_null(strstr(err.message.buf, "w1"));
	err_release(&err);
	assert_int_equal(query_int(l2, "SELECT count(*) FROM agents WHERE name = 'w2'"),
	    0);
	assert_int_equal(count_agents(l2), 1);
	assert_int_equal(count_registers(l2), 1);
	assert_int_equal(query_int(l2, "SELECT count(*) FROM events"), events);
	assert_int_equal(query_int(l2, "SELECT owner FROM tasks"), a1->id);
	assert_int_equal(ledger_commit_count(l2), 0);
	/* Still new: no id of a registration that was rolled back. */
	assert_int_equal(a2->id, 0);
	assert_int_equal(ledger_caller(l2), 0);

	/* Its next committed write registers it under an id that exists. */
	assert_int_equal(agent_heartbeat(l2, a2, &err), 0);
	assert_true(a2->id > 0);
	assert_true(a2->id != a1->id);
	assert_int_equal(query_int(l2, "SELECT id FROM agents WHERE name = 'w2'"),
	    a2->id);
	assert_int_equal(count_registers(l2), 2);
	ledger_set_begin_hook(f->ledger, NULL, NULL);
	ledger_set_begin_hook(l2, NULL, NULL);
	agent_release(a1);
	agent_release(a2);
	err_release(&err);
}

/*
 * (b) Two connections (two processes) resolve the same new name before
 * either writes; both write: the hook re-reads under the lock, so there is
 * one agents row and one agent-register event, and both get its id.
 */
static void
test_twins_register_once(void **state)
{
	struct fixture *f = *state;
	struct ledger *l2 = second_connection(f);
	struct agent_claim claim = { .name = "w5", .kind = "script",
		.human_name = "me" };
	struct agent *a = &f->agents[0];
	struct agent *b = &f->agents[1];
	struct err err = ERR_INIT;

	assert_int_equal(agent_resolve(f->ledger, &claim, a, &err), 0);
	assert_int_equal(agent_resolve(l2, &claim, b, &err), 0);
	assert_int_equal(a->id, 0);
	assert_int_equal(b->id, 0);
	write_nothing(f->ledger);
	assert_true(a->id > 0);
	write_nothing(l2);
	assert_int_equal(b->id, a->id);
	assert_int_equal(ledger_caller(l2), a->id);
	assert_int_equal(count_agents(f->ledger), 1);
	assert_int_equal(count_registers(f->ledger), 1);
	/* Both go on beating the one row. */
	set_now(NOW_MS + 7000);
	write_nothing(l2);
	assert_int_equal(query_int(f->ledger, "SELECT last_seen_ms FROM agents"),
	    NOW_MS + 7000);
	assert_int_equal(count_agents(f->ledger), 1);
	ledger_set_begin_hook(f->ledger, NULL, NULL);
	ledger_set_begin_hook(l2, NULL, NULL);
	agent_release(a);
	agent_release(b);
	err_release(&err);
}

/* (b) The same for a new session resolved by two connections. */
static void
test_twin_sessions_register_once(void **state)
{
	struct fixture *f = *state;
	struct ledger *l2 = second_connection(f);
	struct agent_claim claim = { .session_id = "feedface0000", .kind = "claude",
		.human_name = "me" };
	struct agent *a = &f->agents[0];
	struct agent *b = &f->agents[1];
	struct err err = ERR_INIT;

	assert_int_equal(agent_resolve(f->ledger, &claim, a, &err), 0);
	assert_int_equal(agent_resolve(l2, &claim, b, &err), 0);
	assert_string_equal(a->name, "claude-feedface");
	assert_string_equal(b->name, "claude-feedface");
	assert_int_equal(agent_heartbeat(l2, b, &err), 0);
	assert_int_equal(agent_heartbeat(f->ledger, a, &err), 0);
	assert_true(b->id > 0);
	assert_int_equal(a->id, b->id);
	assert_int_equal(count_agents(f->ledger), 1);
	assert_int_equal(count_registers(f->ledger), 1);
	ledger_set_begin_hook(f->ledger, NULL, NULL);
	ledger_set_begin_hook(l2, NULL, NULL);
	agent_release(a);
	agent_release(b);
	err_release(&err);
}

/* (c) ledger_begin_as: 0 becomes the caller's id, after the hook ran. */
static void
test_begin_as_maps_zero_to_caller(void **state)
{
	struct fixture *f = *state;
	struct agent_claim claim = { .name = "w1", .kind = "script",
		.human_name = "me" };
	struct agent *a = &f->agents[0];
	struct err err = ERR_INIT;
	int64_t agent;

	/* No caller resolved: 0 stays 0. */
	agent = 0;
	assert_int_equal(ledger_begin_as(f->ledger, &agent, &err), 0);
	assert_int_equal(agent, 0);
	assert_int_equal(ledger_commit(f->ledger, &err), 0);
	assert_int_equal(count_agents(f->ledger), 0);

	/* A new caller: registered by the hook, and 0 maps to it. */
	assert_int_equal(agent_resolve(f->ledger, &claim, a, &err), 0);
	assert_int_equal(a->id, 0);
	agent = 0;
	assert_int_equal(ledger_begin_as(f->ledger, &agent, &err), 0);
	assert_true(agent > 0);
	assert_int_equal(agent, a->id);
	assert_int_equal(agent, ledger_caller(f->ledger));
	assert_int_equal(query_int(f->ledger, "SELECT id FROM agents WHERE name = 'w1'"),
	    agent);
	assert_int_equal(ledger_commit(f->ledger, &err), 0);

	/* A known caller: 0 maps to it; another id is left alone. */
	agent = 0;
	assert_int_equal(ledger_begin_as(f->ledger, &agent, &err), 0);
	assert_int_equal(agent, a->id);
	ledger_rollback(f->ledger);
	agent = a->id + 41;
	assert_int_equal(ledger_begin_as(f->ledger, &agent, &err), 0);
	assert_int_equal(agent, a->id + 41);
	ledger_rollback(f->ledger);
	assert_int_equal(count_agents(f->ledger), 1);
	ledger_set_begin_hook(f->ledger, NULL, NULL);
	agent_release(a);
	err_release(&err);
}

int
main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_name),
		T(test_resolve_by_name),
		T(test_resolve_rollback_unregisters),
		T(test_resolve_bad_name),
		T(test_resolve_session),
		T(test_resolve_session_name_taken),
		T(test_resolve_session_bound_agent_renamed),
		T(test_resolve_human),
		T(test_heartbeat_revives_stale),
		T(test_refused_call_registers_nobody),
		T(test_twins_register_once),
		T(test_twin_sessions_register_once),
		T(test_begin_as_maps_zero_to_caller),
	};
#undef T

	return cmocka_run_group_tests_name("agent", tests, NULL, NULL);
}
