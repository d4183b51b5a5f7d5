/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for core/task (task.c and claim.c) through the core functions
 * on a temporary ledger: ids, adding (with dependencies and batches),
 * claiming, reporting, saving and releasing.
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
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/agent.h"
#include "core/err.h"
#include "core/event.h"
#include "sqlite_ledger.h" /* these tests read the SQLite ledger directly */
#include "core/ledger.h"
#include "core/task.h"

#define NOW_MS 1700000000000LL

/*
 * Two agents, each with its own connection (as two processes would have):
 * agent_resolve() makes every write on a connection carry that agent's
 * heartbeat, so the struct agent must live as long as the connection.
 */
struct fixture {
	char dir[PATH_MAX];
	char path[PATH_MAX + 32];
	struct ledger *ledger; /* w1's connection */
	struct ledger *l2;     /* w2's connection */
	struct agent a1, a2;
	int64_t w1, w2; /* agent ids */
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

/*
 * Resolve name on ledger into *agent (which must outlive the ledger) and
 * register it, as the first command of a new agent would.
 */
static int64_t
resolve_agent(struct ledger *ledger, const char *name, struct agent *agent)
{
	struct agent_claim claim = { .name = name, .kind = "script",
		.human_name = "me" };
	struct err err = ERR_INIT;

	agent_release(agent);
	if (agent_resolve(ledger, &claim, agent, &err) != 0) {
		fprintf(stderr, "agent_resolve(%s): %s\n", name, err.message.buf);
		err_release(&err);
		return -1;
	}
	/* Resolving only reads: a new agent has no id until a write. */
	if (agent->id != 0 || ledger_caller(ledger) != 0) {
		fprintf(stderr, "agent_resolve(%s) gave id %lld to a new agent\n",
		    name, (long long)agent->id);
		err_release(&err);
		return -1;
	}
	/* The first write transaction (here a heartbeat) registers it. */
	if (agent_heartbeat(ledger, agent, &err) != 0) {
		fprintf(stderr, "agent_heartbeat(%s): %s\n", name, err.message.buf);
		err_release(&err);
		return -1;
	}
	err_release(&err);
	if (agent->name == NULL || strcmp(agent->name, name) != 0 ||
	    agent->id <= 0 || ledger_caller(ledger) != agent->id)
		return -1;
	return agent->id;
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/daicho-test-task-XXXXXX";
	struct err err = ERR_INIT;

	if (f == NULL || mkdtemp(tmpl) == NULL || realpath(tmpl, f->dir) == NULL)
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/ledger.db", f->dir);
	set_now(NOW_MS);
	if (ledger_create(f->path, &err) != 0 ||
	    ledger_open(f->path, &f->ledger, &err) != 0 ||
	    ledger_open(f->path, &f->l2, &err) != 0) {
		fprintf(stderr, "setup: %s\n", err.message.buf);
		err_release(&err);
		return -1;
	}
	f->w1 = resolve_agent(f->ledger, "w1", &f->a1);
	f->w2 = resolve_agent(f->l2, "w2", &f->a2);
	if (f->w1 <= 0 || f->w2 <= 0 || f->w1 == f->w2)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	ledger_close(f->ledger);
	ledger_close(f->l2);
	agent_release(&f->a1);
	agent_release(&f->a2);
	nftw(f->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	unsetenv("DAICHO_NOW_MS");
	return 0;
}

static void
assert_one_line(const struct err *err)
{
	assert_true(err->message.len > 0);
	assert_null(memchr(err->message.buf, '\n', err->message.len));
}

static void
assert_contains(const char *haystack, const char *needle)
{
	if (strstr(haystack, needle) == NULL)
		fail_msg("\"%s\" does not contain \"%s\"", haystack, needle);
}

static int64_t
count_rows(struct ledger *ledger, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t n;

	assert_int_equal(sqlite3_prepare_v2(ledger_db(ledger), sql, -1, &st, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Total rows in every table that tasks touch. */
static int64_t
ledger_rows(struct ledger *ledger)
{
	return count_rows(ledger,
	    "SELECT (SELECT count(*) FROM tasks) + (SELECT count(*) FROM deps) +"
	    " (SELECT count(*) FROM labels) + (SELECT count(*) FROM touches) +"
	    " (SELECT count(*) FROM checks) + (SELECT count(*) FROM saves) +"
	    " (SELECT count(*) FROM events)");
}

/* Add one task with a title and optional after / touches / labels lists. */
static int64_t
add_task(struct fixture *f, const char *title, int64_t priority,
    const char *const *after, const char *const *touches,
    const char *const *labels)
{
	struct task_spec spec = { 0 };
	struct err err = ERR_INIT;
	int64_t id = 0;

	spec.title = title;
	spec.priority = priority;
	for (; after && *after; after++)
		strlist_add(&spec.after, *after);
	for (; touches && *touches; touches++)
		strlist_add(&spec.touches, *touches);
	for (; labels && *labels; labels++)
		strlist_add(&spec.labels, *labels);
	if (task_add(f->ledger, f->w1, &spec, 1, &id, &err) != 0)
		fail_err(&err, title);
	task_spec_release(&spec);
	err_release(&err);
	assert_true(id > 0);
	return id;
}

static void
get_task(struct fixture *f, int64_t id, struct task *t)
{
	struct err err = ERR_INIT;

	memset(t, 0, sizeof(*t));
	if (task_get(f->ledger, id, t, &err) != 0)
		fail_err(&err, "task_get");
	err_release(&err);
}

/* A one-minute lease, the ledger's default maximum hold. */
static const struct claim_terms minute_terms = { 60000, 0, NULL };

static int64_t
claim(struct fixture *f, int64_t agent, int64_t id, int64_t lease_ms)
{
	struct err err = ERR_INIT;
	int64_t got = -1;

	struct claim_terms terms = { lease_ms, 0, NULL };

	if (task_claim(agent == f->w2 ? f->l2 : f->ledger, agent, id, NULL,
		&terms, &got, &err) != 0)
		fail_err(&err, "task_claim");
	err_release(&err);
	return got;
}

/* task_parse_id */

static void
test_parse_id_accepts(void **state)
{
	static const struct {
		const char *text;
		int64_t id;
	} good[] = {
		{ "12", 12 }, { "#12", 12 }, { "T12", 12 }, { "t12", 12 },
		{ "1", 1 }, { "007", 7 }, { "#1", 1 },
		{ "9223372036854775807", INT64_MAX },
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct err err = ERR_INIT;
		int64_t id = -1;

		if (task_parse_id(good[i].text, &id, &err) != 0)
			fail_err(&err, good[i].text);
		assert_int_equal(id, good[i].id);
		assert_int_equal(err.code, ERR_OK);
		err_release(&err);
	}
}

static void
test_parse_id_rejects(void **state)
{
	static const char *const bad[] = { "0", "-1", "abc", "12x", "", "#",
		"T", "t", "#0", "T0", "#-1", " 12", "12 ", "##12", "T#12", "#T12",
		"+12", "1.0", "0x10", "12\n", "x12",
		"9223372036854775808", "99999999999999999999999" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct err err = ERR_INIT;
		int64_t id = -77;
		int rc = task_parse_id(bad[i], &id, &err);

		if (rc != -ERR_USAGE)
			fail_msg("task_parse_id(\"%s\") = %d (id %lld), want %d",
			    bad[i], rc, (long long)id, -ERR_USAGE);
		assert_int_equal(err.code, ERR_USAGE);
		assert_int_equal(id, -77);
		if (bad[i][0] != '\0' && strchr(bad[i], '\n') == NULL)
			assert_contains(err.message.buf, bad[i]);
		err_release(&err);
	}
}

static void
test_state_valid(void **state)
{
	static const char *const good[] = { "open", "claimed", "reported",
		"verified", "blocked", "cancelled", "failed" };
	static const char *const bad[] = { "", "Open", "done", "claim",
		"opened", "open " };

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(task_state_valid(good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(task_state_valid(bad[i]));
}

/*
 * The lifecycle, written out again from the writers of tasks.state (not
 * read from task.c): a row taken out of the table, or one put in, fails
 * test_transition_table.
 */
static const char *const lifecycle[][2] = {
	{ "open", "claimed" }, { "open", "cancelled" },
	{ "claimed", "claimed" }, { "claimed", "reported" },
	{ "claimed", "blocked" }, { "claimed", "open" },
	{ "claimed", "failed" }, { "claimed", "cancelled" },
	{ "blocked", "claimed" }, { "blocked", "open" },
	{ "blocked", "cancelled" }, { "reported", "verified" },
	{ "reported", "claimed" }, { "reported", "open" },
	{ "reported", "blocked" }, { "reported", "failed" },
	{ "reported", "cancelled" }, { "verified", "landed" },
	{ "verified", "open" }, { "verified", "failed" },
	{ "landed", "open" }, { "failed", "open" }, { "failed", "cancelled" },
	{ "cancelled", "open" },
};

/*
 * task_transition_legal() accepts every move of the lifecycle and refuses
 * every other pair of states (a landed task is never claimed, an open one
 * never reported), and any name that is no state.
 */
static void
test_transition_table(void **state)
{
	static const char *const states[] = { "open", "claimed", "reported",
		"verified", "landed", "blocked", "cancelled", "failed" };
	size_t n = sizeof(lifecycle) / sizeof(lifecycle[0]);

	for (size_t i = 0; i < n; i++)
		if (!task_transition_legal(lifecycle[i][0], lifecycle[i][1]))
			fail_msg("%s -> %s refused", lifecycle[i][0],
			    lifecycle[i][1]);
	for (size_t f = 0; f < sizeof(states) / sizeof(states[0]); f++)
		for (size_t to = 0; to < sizeof(states) / sizeof(states[0]);
		     to++) {
			bool listed = false;

			for (size_t i = 0; i < n; i++)
				if (strcmp(lifecycle[i][0], states[f]) == 0 &&
				    strcmp(lifecycle[i][1], states[to]) == 0)
					listed = true;
			if (!listed &&
			    task_transition_legal(states[f], states[to]))
				fail_msg("%s -> %s accepted", states[f],
				    states[to]);
		}
	assert_false(task_transition_legal("landed", "claimed"));
	assert_false(task_transition_legal("open", "reported"));
	assert_false(task_transition_legal("open", "done"));
	assert_false(task_transition_legal("", "open"));
	assert_false(task_transition_legal("Open", "claimed"));
}

/* Run TASK_MOVE_CHECK(from, to) in a child; its stderr into text. */
static int
move_in_child(const char *from, const char *to, char *text, size_t size)
{
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		if (dup2(fds[1], STDERR_FILENO) < 0)
			_exit(100);
		signal(SIGABRT, SIG_DFL);
		TASK_MOVE_CHECK(from, to);
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	n = read(fds[0], text, size - 1);
	text[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	return status;
}

/*
 * TASK_MOVE_CHECK() is an invariant in every build: a move along no row
 * aborts as a BUG naming both states and the writer's line; a legal one
 * goes on.
 */
static void
test_transition_check_is_a_bug(void **state)
{
	char text[1024];
	int status;

	status = move_in_child("landed", "claimed", text, sizeof(text));
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT)
		fail_msg("landed -> claimed: expected an abort, got status "
		    "%#x: %s", status, text);
	assert_non_null(strstr(text, "daicho: BUG: tests/unit/test_task.c:"));
	assert_non_null(strstr(text, "task moved from landed to claimed"));
	status = move_in_child("reported", "verified", text, sizeof(text));
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(text, "");
}

static void
test_check_spec(void **state)
{
	static const char *const good[] = { "saved", "commit", "cmd:true",
		"cmd:make test", "file:out.txt", "file:docs/a.md", "file:a..b" };
	static const char *const bad[] = { "", "saved ", "Saved", "cmd:",
		"file:", "file:/etc/passwd", "file:../x", "file:a/../../x",
		"file:a/..", "bogus", "url:http://x" };

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct err err = ERR_INIT;

		if (task_check_spec(good[i], &err) != 0)
			fail_err(&err, good[i]);
		err_release(&err);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct err err = ERR_INIT;

		if (task_check_spec(bad[i], &err) != -ERR_USAGE)
			fail_msg("task_check_spec(\"%s\") accepted", bad[i]);
		assert_int_equal(err.code, ERR_USAGE);
		assert_one_line(&err);
		err_release(&err);
	}
}

/* task_add */

static void
test_add_basic(void **state)
{
	struct fixture *f = *state;
	struct task_spec spec = { 0 };
	struct err err = ERR_INIT;
	static const char body[] = { 'b', '\0', 'o', 0x7f, (char)0xff, 'y' };
	struct buf out = BUF_INIT;
	struct task t;
	int64_t id = 0;

	spec.title = "first task";
	spec.body = body;
	spec.body_bytes = sizeof(body);
	spec.priority = 7;
	strlist_add(&spec.labels, "ui");
	strlist_add(&spec.labels, "fast");
	strlist_add(&spec.touches, "src/*.c");
	strlist_add(&spec.checks, "saved");
	strlist_add(&spec.checks, "cmd:make test");
	assert_int_equal(task_add(f->ledger, f->w1, &spec, 1, &id, &err), 0);
	assert_true(id > 0);
	task_spec_release(&spec);

	get_task(f, id, &t);
	assert_int_equal(t.id, id);
	assert_string_equal(t.title, "first task");
	assert_string_equal(t.state, "open");
	assert_int_equal(t.priority, 7);
	assert_int_equal(t.parent, 0);
	assert_int_equal(t.owner_id, 0);
	assert_null(t.owner);
	assert_int_equal(t.lease_expires_ms, 0);
	assert_int_equal(t.attempts, 0);
	assert_int_equal(t.max_attempts, TASK_DEFAULT_MAX_ATTEMPTS);
	assert_int_equal(t.unmet_deps, 0);
	assert_int_equal(t.created_ms, NOW_MS);
	assert_int_equal(t.updated_ms, NOW_MS);
	assert_int_equal(t.body_bytes, sizeof(body));
	assert_int_equal(t.saves, 0);
	assert_int_equal(t.result_bytes, -1);
	assert_int_equal(t.labels.count, 2);
	assert_int_equal(t.touches.count, 1);
	assert_string_equal(t.touches.items[0], "src/*.c");
	assert_int_equal(t.checks.count, 2);
	assert_string_equal(t.checks.items[0], "saved");
	assert_string_equal(t.checks.items[1], "cmd:make test");
	assert_int_equal(t.after_count, 0);
	task_free_fields(&t);

	assert_int_equal(task_body(f->ledger, id, &out, &err), 0);
	assert_int_equal(out.len, sizeof(body));
	assert_memory_equal(out.buf, body, sizeof(body));
	buf_release(&out);
	/* One add event. */
	assert_int_equal(count_rows(f->ledger,
			     "SELECT count(*) FROM events WHERE kind = 'add'"),
	    1);
	err_release(&err);
}

static void
test_add_missing_task(void **state)
{
	struct fixture *f = *state;
	struct task t;
	struct err err = ERR_INIT;
	struct buf out = BUF_INIT;

	assert_int_equal(task_get(f->ledger, 999, &t, &err), -ERR_NOT_FOUND);
	assert_int_equal(err.code, ERR_NOT_FOUND);
	assert_one_line(&err);
	err_release(&err);
	assert_int_equal(task_body(f->ledger, 999, &out, &err), -ERR_NOT_FOUND);
	assert_int_equal(out.len, 0);
	err_release(&err);
	assert_int_equal(task_result(f->ledger, 999, &out, &err), -ERR_NOT_FOUND);
	assert_int_equal(out.len, 0);
	err_release(&err);
	buf_release(&out);
}

static void
test_add_after_sets_unmet(void **state)
{
	struct fixture *f = *state;
	int64_t a, b, c;
	char a_text[32], b_text[32];
	struct task t;

	a = add_task(f, "a", 0, NULL, NULL, NULL);
	snprintf(a_text, sizeof(a_text), "#%lld", (long long)a);
	b = add_task(f, "b", 0, (const char *[]){ a_text, NULL }, NULL, NULL);
	snprintf(b_text, sizeof(b_text), "T%lld", (long long)b);
	/* The same task twice counts once. */
	{
		char plain[32];

		snprintf(plain, sizeof(plain), "%lld", (long long)a);
		c = add_task(f, "c", 0,
		    (const char *[]){ a_text, b_text, plain, NULL }, NULL, NULL);
	}
	get_task(f, a, &t);
	assert_int_equal(t.unmet_deps, 0);
	task_free_fields(&t);
	get_task(f, b, &t);
	assert_int_equal(t.unmet_deps, 1);
	assert_int_equal(t.after_count, 1);
	assert_int_equal(t.after[0], a);
	task_free_fields(&t);
	get_task(f, c, &t);
	assert_int_equal(t.unmet_deps, 2);
	assert_int_equal(t.after_count, 2);
	task_free_fields(&t);
	assert_int_equal(count_rows(f->ledger, "SELECT count(*) FROM deps"), 3);

	/* Only a is ready; b and c wait, so claiming them is a conflict. */
	{
		struct err err = ERR_INIT;
		int64_t got = 0;

		assert_int_equal(task_claim(f->ledger, f->w1, b, NULL, &minute_terms, &got,
				     &err),
		    -ERR_CONFLICT);
		assert_one_line(&err);
		err_release(&err);
		assert_int_equal(claim(f, f->w1, 0, 60000), a);
		assert_int_equal(task_claim(f->l2, f->w2, 0, NULL, &minute_terms, &got,
				     &err),
		    -ERR_NOT_FOUND);
		assert_one_line(&err);
		err_release(&err);
	}
}

static void
test_add_after_unknown(void **state)
{
	struct fixture *f = *state;
	struct task_spec spec = { 0 };
	struct err err = ERR_INIT;
	int64_t id = 0, before = ledger_rows(f->ledger);

	spec.title = "x";
	strlist_add(&spec.after, "#42");
	assert_int_equal(task_add(f->ledger, f->w1, &spec, 1, &id, &err),
	    -ERR_NOT_FOUND);
	assert_int_equal(err.code, ERR_NOT_FOUND);
	assert_contains(err.message.buf, "42");
	assert_one_line(&err);
	assert_int_equal(ledger_rows(f->ledger), before);
	err_release(&err);

	/* Neither an id nor a key: a usage error. */
	strlist_release(&spec.after);
	strlist_add(&spec.after, "nokey");
	assert_int_equal(task_add(f->ledger, f->w1, &spec, 1, &id, &err),
	    -ERR_USAGE);
	assert_contains(err.message.buf, "nokey");
	assert_int_equal(ledger_rows(f->ledger), before);
	task_spec_release(&spec);
	err_release(&err);
}

static void
test_add_refuses_bad_specs(void **state)
{
	struct fixture *f = *state;
	int64_t before = ledger_rows(f->ledger);
	static char long_title[TASK_TITLE_MAX_BYTES + 2];
	struct {
		const char *title;
		const char *touch;
		const char *check;
		const char *label;
		int64_t max_attempts;
	} bad[] = {
		{ "", NULL, NULL, NULL, 0 },
		{ NULL, NULL, NULL, NULL, 0 },
		{ "two\nlines", NULL, NULL, NULL, 0 },
		{ "bad glob", "/abs", NULL, NULL, 0 },
		{ "bad glob", "a/../b", NULL, NULL, 0 },
		{ "bad glob", "[x", NULL, NULL, 0 },
		{ "bad check", NULL, "nonsense", NULL, 0 },
		{ "bad label", NULL, NULL, "has space", 0 },
		{ "bad label", NULL, NULL, "", 0 },
		{ "bad attempts", NULL, NULL, NULL, -1 },
		{ "bad utf8 \xff\xfe", NULL, NULL, NULL, 0 },
		{ long_title, NULL, NULL, NULL, 0 },
	};

	memset(long_title, 'x', TASK_TITLE_MAX_BYTES + 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct task_spec spec = { 0 };
		struct err err = ERR_INIT;
		int64_t id = -5;
		int rc;

		spec.title = bad[i].title;
		spec.max_attempts = bad[i].max_attempts;
		if (bad[i].touch)
			strlist_add(&spec.touches, bad[i].touch);
		if (bad[i].check)
			strlist_add(&spec.checks, bad[i].check);
		if (bad[i].label)
			strlist_add(&spec.labels, bad[i].label);
		rc = task_add(f->ledger, f->w1, &spec, 1, &id, &err);
		if (rc != -ERR_USAGE)
			fail_msg("case %zu (%s): task_add = %d, want %d (%s)", i,
			    bad[i].title ? bad[i].title : "NULL", rc, -ERR_USAGE,
			    err.message.buf);
		assert_one_line(&err);
		assert_int_equal(ledger_rows(f->ledger), before);
		task_spec_release(&spec);
		err_release(&err);
	}
}

static void
test_batch_forward_keys(void **state)
{
	struct fixture *f = *state;
	struct task_spec specs[3] = { { 0 } };
	struct err err = ERR_INIT;
	int64_t ids[3] = { 0 };
	struct task t;

	specs[0].line = 1;
	specs[0].key = "a";
	specs[0].title = "A";
	strlist_add(&specs[0].after, "b"); /* forward reference */
	specs[1].line = 2;
	specs[1].key = "b";
	specs[1].title = "B";
	specs[2].line = 3;
	specs[2].key = "c";
	specs[2].title = "C";
	strlist_add(&specs[2].after, "a");
	strlist_add(&specs[2].after, "b");
	assert_int_equal(task_add(f->ledger, f->w1, specs, 3, ids, &err), 0);
	assert_true(ids[0] > 0 && ids[1] > ids[0] && ids[2] > ids[1]);
	get_task(f, ids[0], &t);
	assert_string_equal(t.title, "A");
	assert_int_equal(t.unmet_deps, 1);
	assert_int_equal(t.after_count, 1);
	assert_int_equal(t.after[0], ids[1]);
	task_free_fields(&t);
	get_task(f, ids[1], &t);
	assert_int_equal(t.unmet_deps, 0);
	task_free_fields(&t);
	get_task(f, ids[2], &t);
	assert_int_equal(t.unmet_deps, 2);
	task_free_fields(&t);
	assert_int_equal(count_rows(f->ledger,
			     "SELECT count(*) FROM events WHERE kind = 'add'"),
	    3);
	for (int i = 0; i < 3; i++)
		task_spec_release(&specs[i]);
	err_release(&err);
}

static void
test_batch_cycle_refused(void **state)
{
	struct fixture *f = *state;
	struct task_spec specs[4] = { { 0 } };
	struct err err = ERR_INIT;
	int64_t ids[4] = { 0 }, before;

	add_task(f, "existing", 0, NULL, NULL, NULL);
	before = ledger_rows(f->ledger);
	/* x (no cycle) -> a -> b -> c -> a */
	specs[0] = (struct task_spec){ .line = 1, .key = "x", .title = "X" };
	strlist_add(&specs[0].after, "a");
	specs[1] = (struct task_spec){ .line = 2, .key = "a", .title = "A" };
	strlist_add(&specs[1].after, "b");
	specs[2] = (struct task_spec){ .line = 3, .key = "b", .title = "B" };
	strlist_add(&specs[2].after, "c");
	specs[3] = (struct task_spec){ .line = 4, .key = "c", .title = "C" };
	strlist_add(&specs[3].after, "a");
	strlist_add(&specs[3].after, "1"); /* an existing task too */
	assert_int_equal(task_add(f->ledger, f->w1, specs, 4, ids, &err),
	    -ERR_CONFLICT);
	assert_int_equal(err.code, ERR_CONFLICT);
	assert_one_line(&err);
	assert_contains(err.message.buf, "cycle");
	assert_contains(err.message.buf, "'a'");
	assert_contains(err.message.buf, "'b'");
	assert_contains(err.message.buf, "'c'");
	assert_null(strstr(err.message.buf, "'x'"));
	assert_int_equal(ledger_rows(f->ledger), before);
	assert_int_equal(count_rows(f->ledger, "SELECT count(*) FROM tasks"), 1);
	for (int i = 0; i < 4; i++)
		task_spec_release(&specs[i]);
	err_release(&err);
}

static void
test_batch_two_cycle_message(void **state)
{
	struct fixture *f = *state;
	struct task_spec specs[2] = { { 0 } };
	struct err err = ERR_INIT;
	int64_t ids[2] = { 0 }, before = ledger_rows(f->ledger);

	specs[0] = (struct task_spec){ .line = 1, .key = "a", .title = "A" };
	strlist_add(&specs[0].after, "b");
	specs[1] = (struct task_spec){ .line = 2, .key = "b", .title = "B" };
	strlist_add(&specs[1].after, "a");
	assert_int_equal(task_add(f->ledger, f->w1, specs, 2, ids, &err),
	    -ERR_CONFLICT);
	/* As documented: 'a' (line 1) -> 'b' (line 2) -> 'a' (line 1). */
	if (strstr(err.message.buf,
		"'a' (line 1) -> 'b' (line 2) -> 'a' (line 1)") == NULL &&
	    strstr(err.message.buf,
		"'b' (line 2) -> 'a' (line 1) -> 'b' (line 2)") == NULL)
		fail_err(&err, "cycle not named");
	assert_int_equal(ledger_rows(f->ledger), before);
	assert_int_equal(count_rows(f->ledger, "SELECT count(*) FROM tasks"), 0);
	for (int i = 0; i < 2; i++)
		task_spec_release(&specs[i]);
	err_release(&err);
}

static void
test_batch_self_cycle(void **state)
{
	struct fixture *f = *state;
	struct task_spec spec = { .line = 1, .key = "a", .title = "A" };
	struct err err = ERR_INIT;
	int64_t id = 0;

	strlist_add(&spec.after, "a");
	assert_int_equal(task_add(f->ledger, f->w1, &spec, 1, &id, &err),
	    -ERR_CONFLICT);
	assert_one_line(&err);
	assert_int_equal(count_rows(f->ledger, "SELECT count(*) FROM tasks"), 0);
	task_spec_release(&spec);
	err_release(&err);
}

static void
test_batch_all_or_nothing(void **state)
{
	struct fixture *f = *state;
	struct task_spec specs[3] = { { 0 } };
	struct err err = ERR_INIT;
	int64_t ids[3] = { 0 }, before = ledger_rows(f->ledger);

	specs[0] = (struct task_spec){ .line = 1, .title = "fine" };
	specs[1] = (struct task_spec){ .line = 2, .title = "also fine" };
	specs[2] = (struct task_spec){ .line = 3, .title = "" };
	assert_int_equal(task_add(f->ledger, f->w1, specs, 3, ids, &err),
	    -ERR_USAGE);
	assert_true(strncmp(err.message.buf, "line 3: ", 8) == 0);
	assert_int_equal(ledger_rows(f->ledger), before);
	err_release(&err);

	/* A failure found only in the ledger (unknown after) also undoes all. */
	specs[2].title = "third";
	strlist_add(&specs[2].after, "#4000");
	assert_int_equal(task_add(f->ledger, f->w1, specs, 3, ids, &err),
	    -ERR_NOT_FOUND);
	assert_true(strncmp(err.message.buf, "line 3: ", 8) == 0);
	assert_int_equal(ledger_rows(f->ledger), before);
	err_release(&err);

	/* Duplicate keys. */
	strlist_release(&specs[2].after);
	specs[0].key = "k";
	specs[2].key = "k";
	assert_int_equal(task_add(f->ledger, f->w1, specs, 3, ids, &err),
	    -ERR_USAGE);
	assert_true(strncmp(err.message.buf, "line 3: ", 8) == 0);
	assert_int_equal(ledger_rows(f->ledger), before);
	for (int i = 0; i < 3; i++)
		task_spec_release(&specs[i]);
	err_release(&err);
}

static void
test_batch_parent(void **state)
{
	struct fixture *f = *state;
	struct task_spec specs[2] = { { 0 } };
	struct err err = ERR_INIT;
	int64_t ids[2] = { 0 };
	struct task t;

	specs[0] = (struct task_spec){ .line = 1, .key = "p", .title = "P",
		.max_attempts = 5 };
	specs[1] = (struct task_spec){ .line = 2, .key = "c", .title = "C",
		.parent = "p" };
	assert_int_equal(task_add(f->ledger, f->w1, specs, 2, ids, &err), 0);
	get_task(f, ids[1], &t);
	assert_int_equal(t.parent, ids[0]);
	task_free_fields(&t);
	get_task(f, ids[0], &t);
	assert_int_equal(t.max_attempts, 5);
	task_free_fields(&t);
	err_release(&err);
}

/* task_claim */

static void
test_claim_next_order(void **state)
{
	struct fixture *f = *state;
	int64_t t1, t2, t3, t4, t5;
	struct err err = ERR_INIT;
	int64_t got = -1;

	t1 = add_task(f, "p0 old", 0, NULL, NULL, NULL);
	t2 = add_task(f, "p5 old", 5, NULL, NULL, NULL);
	t3 = add_task(f, "p5 new", 5, NULL, NULL, NULL);
	t4 = add_task(f, "p-1", -1, NULL, NULL, NULL);
	t5 = add_task(f, "p0 new", 0, NULL, NULL, NULL);
	assert_int_equal(claim(f, f->w1, 0, 60000), t2);
	assert_int_equal(claim(f, f->w2, 0, 60000), t3);
	assert_int_equal(claim(f, f->w1, 0, 60000), t1);
	assert_int_equal(claim(f, f->w1, 0, 60000), t5);
	assert_int_equal(claim(f, f->w2, 0, 60000), t4);
	assert_int_equal(task_claim(f->ledger, f->w1, 0, NULL, &minute_terms, &got, &err),
	    -ERR_NOT_FOUND);
	assert_int_equal(err.code, ERR_NOT_FOUND);
	assert_one_line(&err);
	err_release(&err);
}

static int
collect_id(const struct task *task, void *arg)
{
	int64_t *ids = arg;

	ids[++ids[0]] = task->id;
	return 0;
}

static int
collect_edge(int64_t task, int64_t after, void *arg)
{
	int64_t *edges = arg;

	edges[1 + 2 * edges[0]] = task;
	edges[2 + 2 * edges[0]] = after;
	edges[0]++;
	return 0;
}

static void
test_ready_listing_matches_claim_order(void **state)
{
	struct fixture *f = *state;
	struct task_filter filter = { .ready = true };
	int64_t listed[16] = { 0 };
	int64_t a, b, c, d;
	struct err err = ERR_INIT;
	char a_text[32];

	a = add_task(f, "a", 1, NULL, NULL, NULL);
	snprintf(a_text, sizeof(a_text), "%lld", (long long)a);
	b = add_task(f, "b", 9, (const char *[]){ a_text, NULL }, NULL, NULL);
	c = add_task(f, "c", 3, NULL, NULL, NULL);
	d = add_task(f, "d", 3, NULL, NULL, NULL);
	(void)b;
	assert_int_equal(task_each(f->ledger, &filter, collect_id, listed, &err), 0);
	assert_int_equal(listed[0], 3);
	assert_int_equal(listed[1], c);
	assert_int_equal(listed[2], d);
	assert_int_equal(listed[3], a);
	/* And claim --next takes them in that order. */
	assert_int_equal(claim(f, f->w1, 0, 60000), c);
	memset(listed, 0, sizeof(listed));
	assert_int_equal(task_each(f->ledger, &filter, collect_id, listed, &err), 0);
	assert_int_equal(listed[0], 2);
	assert_int_equal(listed[1], d);
	assert_int_equal(listed[2], a);
	err_release(&err);
}

static void
test_claim_held_by_another(void **state)
{
	struct fixture *f = *state;
	int64_t id = add_task(f, "t", 0, NULL, NULL, NULL), got = -1;
	struct err err = ERR_INIT;
	struct task t;

	assert_int_equal(claim(f, f->w1, id, 60000), id);
	assert_int_equal(task_claim(f->l2, f->w2, id, NULL, &minute_terms, &got, &err),
	    -ERR_CONFLICT);
	assert_int_equal(err.code, ERR_CONFLICT);
	assert_contains(err.message.buf, "w1");
	assert_one_line(&err);
	get_task(f, id, &t);
	assert_string_equal(t.state, "claimed");
	assert_int_equal(t.owner_id, f->w1);
	assert_string_equal(t.owner, "w1");
	assert_int_equal(t.attempts, 1);
	assert_int_equal(t.lease_expires_ms, NOW_MS + 60000);
	task_free_fields(&t);
	err_release(&err);
}

static void
test_claim_own_renews(void **state)
{
	struct fixture *f = *state;
	int64_t id = add_task(f, "t", 0, NULL, NULL, NULL);
	int64_t events;
	struct task t;

	assert_int_equal(claim(f, f->w1, id, 60000), id);
	events = count_rows(f->ledger, "SELECT count(*) FROM events");
	set_now(NOW_MS + 1000);
	assert_int_equal(claim(f, f->w1, id, 120000), id);
	get_task(f, id, &t);
	assert_string_equal(t.state, "claimed");
	assert_int_equal(t.attempts, 1);
	assert_int_equal(t.lease_expires_ms, NOW_MS + 1000 + 120000);
	task_free_fields(&t);
	/* Nothing else changes: no new claim event. */
	assert_int_equal(count_rows(f->ledger,
			     "SELECT count(*) FROM events WHERE kind = 'claim'"),
	    1);
	assert_int_equal(count_rows(f->ledger, "SELECT count(*) FROM events"),
	    events);
}

static void
test_claim_unknown_and_finished(void **state)
{
	struct fixture *f = *state;
	int64_t id = add_task(f, "t", 0, NULL, NULL, NULL), got = -1;
	struct err err = ERR_INIT;

	assert_int_equal(task_claim(f->ledger, f->w1, 555, NULL, &minute_terms, &got,
			     &err),
	    -ERR_NOT_FOUND);
	assert_one_line(&err);
	err_release(&err);
	assert_int_equal(task_cancel(f->ledger, f->w1, id, "no", &err), 0);
	assert_int_equal(task_claim(f->ledger, f->w1, id, NULL, &minute_terms, &got, &err),
	    -ERR_CONFLICT);
	assert_one_line(&err);
	err_release(&err);
	/* Nothing ready: the one task is cancelled. */
	assert_int_equal(task_claim(f->ledger, f->w1, 0, NULL, &minute_terms, &got, &err),
	    -ERR_NOT_FOUND);
	err_release(&err);
	/* Cancelling twice is a conflict. */
	assert_int_equal(task_cancel(f->ledger, f->w1, id, NULL, &err),
	    -ERR_CONFLICT);
	err_release(&err);
	assert_int_equal(task_cancel(f->ledger, f->w1, 777, NULL, &err),
	    -ERR_NOT_FOUND);
	err_release(&err);
}

static void
test_claim_by_label(void **state)
{
	struct fixture *f = *state;
	int64_t a, b, got = -1;
	struct err err = ERR_INIT;

	a = add_task(f, "a", 9, NULL, NULL, (const char *[]){ "x", NULL });
	b = add_task(f, "b", 0, NULL, NULL, (const char *[]){ "y", NULL });
	assert_int_equal(task_claim(f->ledger, f->w1, 0, "y", &minute_terms, &got, &err), 0);
	assert_int_equal(got, b);
	assert_int_equal(task_claim(f->ledger, f->w1, 0, "y", &minute_terms, &got, &err),
	    -ERR_NOT_FOUND);
	err_release(&err);
	assert_int_equal(task_claim(f->ledger, f->w1, 0, "zzz", &minute_terms, &got, &err),
	    -ERR_NOT_FOUND);
	err_release(&err);
	assert_int_equal(task_claim(f->ledger, f->w1, 0, "x", &minute_terms, &got, &err), 0);
	assert_int_equal(got, a);
	err_release(&err);
}

/* report, save, release */

static void
test_report(void **state)
{
	struct fixture *f = *state;
	int64_t id = add_task(f, "t", 0, NULL, NULL, NULL);
	int64_t before;
	struct err err = ERR_INIT;
	struct task t;

	/* Not claimed: nobody holds it. */
	assert_int_equal(task_report(f->ledger, f->w1, id, NULL, NULL, &err),
	    -ERR_CONFLICT);
	assert_one_line(&err);
	err_release(&err);
	claim(f, f->w1, id, 60000);
	before = ledger_rows(f->ledger);
	assert_int_equal(task_report(f->l2, f->w2, id, NULL, "mine", &err),
	    -ERR_CONFLICT);
	assert_int_equal(err.code, ERR_CONFLICT);
	assert_one_line(&err);
	assert_int_equal(ledger_rows(f->ledger), before);
	get_task(f, id, &t);
	assert_string_equal(t.state, "claimed");
	task_free_fields(&t);
	err_release(&err);

	assert_int_equal(task_report(f->ledger, f->w1, id,
			     "0123456789abcdef0123456789abcdef01234567", "done",
			     &err),
	    0);
	get_task(f, id, &t);
	assert_string_equal(t.state, "reported");
	assert_string_equal(t.report_commit,
	    "0123456789abcdef0123456789abcdef01234567");
	assert_string_equal(t.report_note, "done");
	assert_int_equal(t.owner_id, f->w1);
	task_free_fields(&t);
	/* Reporting again: it is no longer claimed. */
	assert_int_equal(task_report(f->ledger, f->w1, id, NULL, NULL, &err),
	    -ERR_CONFLICT);
	err_release(&err);
	assert_int_equal(task_report(f->ledger, f->w1, 999, NULL, NULL, &err),
	    -ERR_NOT_FOUND);
	err_release(&err);
}

static void
test_save_and_result(void **state)
{
	struct fixture *f = *state;
	int64_t id = add_task(f, "t", 0, NULL, NULL, NULL);
	static const char first[] = { 'r', '\0', 'e', '\0', 's' };
	static const char second[] = { '\0', '\0', 'x', (char)0x80, '\n' };
	struct task_usage usage = { 10, 20, 0.5, "m" };
	struct task_usage none = { -1, -1, -1, NULL };
	struct err err = ERR_INIT;
	struct buf out = BUF_INIT;
	struct task t;

	claim(f, f->w1, id, 60000);
	assert_int_equal(task_result(f->ledger, id, &out, &err), -ERR_NOT_FOUND);
	assert_int_equal(err.code, ERR_NOT_FOUND);
	assert_int_equal(out.len, 0);
	err_release(&err);

	/* Only the holder may save. */
	assert_int_equal(task_save(f->l2, f->w2, id, first, sizeof(first),
			     &none, &err),
	    -ERR_CONFLICT);
	assert_int_equal(count_rows(f->ledger, "SELECT count(*) FROM saves"), 0);
	err_release(&err);

	assert_int_equal(task_save(f->ledger, f->w1, id, first, sizeof(first),
			     &usage, &err),
	    0);
	assert_int_equal(task_result(f->ledger, id, &out, &err), 0);
	assert_int_equal(out.len, sizeof(first));
	assert_memory_equal(out.buf, first, sizeof(first));
	assert_int_equal(out.buf[out.len], '\0');
	buf_reset(&out);

	assert_int_equal(task_save(f->ledger, f->w1, id, second, sizeof(second),
			     &none, &err),
	    0);
	buf_adds(&out, "pre");
	assert_int_equal(task_result(f->ledger, id, &out, &err), 0);
	assert_int_equal(out.len, 3 + sizeof(second));
	assert_memory_equal(out.buf + 3, second, sizeof(second));
	buf_release(&out);

	get_task(f, id, &t);
	assert_int_equal(t.saves, 2);
	assert_int_equal(t.result_bytes, sizeof(second));
	task_free_fields(&t);
	assert_int_equal(count_rows(f->ledger,
			     "SELECT count(*) FROM events WHERE kind = 'save'"),
	    2);

	/* An empty result is a result. */
	assert_int_equal(task_save(f->ledger, f->w1, id, NULL, 0, &none, &err), 0);
	assert_int_equal(task_result(f->ledger, id, &out, &err), 0);
	assert_int_equal(out.len, 0);
	buf_release(&out);

	/* Once reported, it cannot be saved any more. */
	assert_int_equal(task_report(f->ledger, f->w1, id, NULL, NULL, &err), 0);
	assert_int_equal(task_save(f->ledger, f->w1, id, "z", 1, &none, &err),
	    -ERR_CONFLICT);
	err_release(&err);
}

static void
test_release_refunds_attempt(void **state)
{
	struct fixture *f = *state;
	int64_t id = add_task(f, "t", 0, NULL, NULL, NULL);
	struct err err = ERR_INIT;
	struct task t;

	claim(f, f->w1, id, 60000);
	get_task(f, id, &t);
	assert_int_equal(t.attempts, 1);
	task_free_fields(&t);
	/* Only the holder may release. */
	assert_int_equal(task_release_claim(f->l2, f->w2, id, &err),
	    -ERR_CONFLICT);
	assert_one_line(&err);
	err_release(&err);
	assert_int_equal(task_release_claim(f->ledger, f->w1, id, &err), 0);
	get_task(f, id, &t);
	assert_string_equal(t.state, "open");
	assert_int_equal(t.attempts, 0);
	assert_int_equal(t.owner_id, 0);
	assert_null(t.owner);
	assert_int_equal(t.lease_expires_ms, 0);
	task_free_fields(&t);
	/* It is ready again, and can be claimed by the other agent. */
	assert_int_equal(claim(f, f->w2, 0, 60000), id);
	get_task(f, id, &t);
	assert_int_equal(t.attempts, 1);
	assert_int_equal(t.owner_id, f->w2);
	task_free_fields(&t);
	/* Releasing an open task is refused. */
	assert_int_equal(task_release_claim(f->l2, f->w2, id, &err), 0);
	assert_int_equal(task_release_claim(f->l2, f->w2, id, &err),
	    -ERR_CONFLICT);
	err_release(&err);
}

static void
test_release_many_times_keeps_attempts(void **state)
{
	struct fixture *f = *state;
	struct task_spec spec = { .title = "once", .max_attempts = 1 };
	struct err err = ERR_INIT;
	int64_t id = 0;
	struct task t;

	assert_int_equal(task_add(f->ledger, f->w1, &spec, 1, &id, &err), 0);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(claim(f, f->w1, 0, 60000), id);
		assert_int_equal(task_release_claim(f->ledger, f->w1, id, &err), 0);
	}
	get_task(f, id, &t);
	assert_int_equal(t.attempts, 0);
	assert_string_equal(t.state, "open");
	task_free_fields(&t);
	err_release(&err);
}

static void
test_block(void **state)
{
	struct fixture *f = *state;
	int64_t id = add_task(f, "t", 0, NULL, NULL, NULL);
	struct err err = ERR_INIT;
	struct task t;

	claim(f, f->w1, id, 60000);
	assert_int_equal(task_block(f->ledger, f->w1, id, "", &err), -ERR_USAGE);
	err_release(&err);
	assert_int_equal(task_block(f->ledger, f->w1, id, NULL, &err), -ERR_USAGE);
	err_release(&err);
	assert_int_equal(task_block(f->l2, f->w2, id, "need a key", &err),
	    -ERR_CONFLICT);
	err_release(&err);
	assert_int_equal(task_block(f->ledger, f->w1, id, "need a key", &err), 0);
	get_task(f, id, &t);
	assert_string_equal(t.state, "blocked");
	assert_string_equal(t.block_reason, "need a key");
	task_free_fields(&t);
	/* Blocked is not ready. */
	{
		int64_t got;

		assert_int_equal(task_claim(f->l2, f->w2, 0, NULL, &minute_terms, &got,
				     &err),
		    -ERR_NOT_FOUND);
		err_release(&err);
	}
	assert_int_equal(task_release_claim(f->ledger, f->w1, id, &err), 0);
	get_task(f, id, &t);
	assert_string_equal(t.state, "open");
	assert_null(t.block_reason);
	task_free_fields(&t);
	err_release(&err);
}

/* Leases */

static void
test_lease_expiry(void **state)
{
	struct fixture *f = *state;
	int64_t id = add_task(f, "t", 0, NULL, NULL, NULL), got = -1;
	struct err err = ERR_INIT;
	struct task t;

	claim(f, f->w1, id, 1000);
	set_now(NOW_MS + 999);
	assert_int_equal(task_claim(f->l2, f->w2, id, NULL, &minute_terms, &got, &err),
	    -ERR_CONFLICT);
	err_release(&err);
	set_now(NOW_MS + 1000);
	assert_int_equal(claim(f, f->w2, 0, 60000), id);
	get_task(f, id, &t);
	assert_int_equal(t.owner_id, f->w2);
	assert_int_equal(t.attempts, 2);
	assert_int_equal(t.lease_expires_ms, NOW_MS + 1000 + 60000);
	task_free_fields(&t);
	assert_int_equal(count_rows(f->ledger,
			     "SELECT count(*) FROM events WHERE kind = "
			     "'lease-expired'"),
	    1);
	/* The old holder can no longer report it. */
	assert_int_equal(task_report(f->ledger, f->w1, id, NULL, NULL, &err),
	    -ERR_CONFLICT);
	err_release(&err);
}

static void
test_expired_attempts_used_up(void **state)
{
	struct fixture *f = *state;
	struct task_spec spec = { .title = "once", .max_attempts = 1 };
	struct err err = ERR_INIT;
	int64_t id = 0, got = -1;
	struct task t;

	assert_int_equal(task_add(f->ledger, f->w1, &spec, 1, &id, &err), 0);
	claim(f, f->w1, id, 1000);
	set_now(NOW_MS + 5000);
	/* Not claimable by --next. */
	assert_int_equal(task_claim(f->l2, f->w2, 0, NULL, &minute_terms, &got, &err),
	    -ERR_NOT_FOUND);
	err_release(&err);
	/* Nor by id. */
	assert_int_equal(task_claim(f->l2, f->w2, id, NULL, &minute_terms, &got, &err),
	    -ERR_CONFLICT);
	err_release(&err);
	get_task(f, id, &t);
	assert_true(strcmp(t.state, "failed") == 0 ||
	    strcmp(t.state, "claimed") == 0);
	assert_true(t.owner_id != f->w2);
	task_free_fields(&t);
}

/* Touches */

static void
test_touches_overlap_unready(void **state)
{
	struct fixture *f = *state;
	int64_t a, b, c, got = -1;
	struct err err = ERR_INIT;
	struct task_filter filter = { .ready = true };
	int64_t listed[8] = { 0 };

	a = add_task(f, "a", 5, NULL, (const char *[]){ "config/*.yml", NULL },
	    NULL);
	b = add_task(f, "b", 4, NULL, (const char *[]){ "config/app.yml", NULL },
	    NULL);
	c = add_task(f, "c", 3, NULL, (const char *[]){ "src/**", NULL }, NULL);
	assert_int_equal(claim(f, f->w1, 0, 60000), a);
	/* b overlaps a live claim: not ready; next is c. */
	assert_int_equal(task_each(f->ledger, &filter, collect_id, listed, &err), 0);
	assert_int_equal(listed[0], 1);
	assert_int_equal(listed[1], c);
	assert_int_equal(task_claim(f->l2, f->w2, b, NULL, &minute_terms, &got, &err),
	    -ERR_CONFLICT);
	assert_contains(err.message.buf, "config");
	assert_one_line(&err);
	err_release(&err);
	assert_int_equal(claim(f, f->w2, 0, 60000), c);
	assert_int_equal(task_claim(f->l2, f->w2, 0, NULL, &minute_terms, &got, &err),
	    -ERR_NOT_FOUND);
	err_release(&err);

	/* Reported is still live. */
	assert_int_equal(task_report(f->ledger, f->w1, a, NULL, NULL, &err), 0);
	assert_int_equal(task_claim(f->l2, f->w2, 0, NULL, &minute_terms, &got, &err),
	    -ERR_NOT_FOUND);
	err_release(&err);
	/* Cancelled is not: b becomes ready. */
	assert_int_equal(task_cancel(f->ledger, f->w1, a, NULL, &err), 0);
	assert_int_equal(claim(f, f->w2, 0, 60000), b);
	err_release(&err);
}

static void
test_touches_expired_lease_not_live(void **state)
{
	struct fixture *f = *state;
	int64_t a, b;

	struct task_filter filter = { .ready = true };
	int64_t listed[8] = { 0 }, got;
	struct err err = ERR_INIT;

	a = add_task(f, "a", 5, NULL, (const char *[]){ "docs", NULL }, NULL);
	b = add_task(f, "b", 0, NULL, (const char *[]){ "docs/x.md", NULL }, NULL);
	assert_int_equal(claim(f, f->w1, a, 1000), a);
	assert_int_equal(task_each(f->ledger, &filter, collect_id, listed, &err), 0);
	assert_int_equal(listed[0], 0);
	set_now(NOW_MS + 2000);
	/* a's lease ran out: its touches are no longer live; both are ready. */
	assert_int_equal(task_each(f->ledger, &filter, collect_id, listed, &err), 0);
	assert_int_equal(listed[0], 2);
	assert_int_equal(listed[1], a);
	assert_int_equal(listed[2], b);
	/* a comes first again (priority); then b overlaps the new claim. */
	assert_int_equal(claim(f, f->w2, 0, 60000), a);
	assert_int_equal(task_claim(f->ledger, f->w1, b, NULL, &minute_terms, &got, &err),
	    -ERR_CONFLICT);
	err_release(&err);
	assert_int_equal(task_release_claim(f->l2, f->w2, a, &err), 0);
	assert_int_equal(claim(f, f->w1, b, 60000), b);
	err_release(&err);
}

static void
test_count_by_state_and_edges(void **state)
{
	struct fixture *f = *state;
	static const char *const states[] = { "open", "claimed", "reported",
		"cancelled", "verified" };
	int64_t counts[5] = { -1, -1, -1, -1, -1 };
	struct err err = ERR_INIT;
	int64_t a, b, c;
	char a_text[16];

	a = add_task(f, "a", 0, NULL, NULL, NULL);
	snprintf(a_text, sizeof(a_text), "%lld", (long long)a);
	b = add_task(f, "b", 0, (const char *[]){ a_text, NULL }, NULL, NULL);
	c = add_task(f, "c", 0, NULL, NULL, NULL);
	add_task(f, "d", 0, NULL, NULL, NULL);
	claim(f, f->w1, a, 60000);
	claim(f, f->w1, c, 60000);
	assert_int_equal(task_report(f->ledger, f->w1, c, NULL, NULL, &err), 0);
	assert_int_equal(task_cancel(f->ledger, f->w1, b, NULL, &err), 0);
	assert_int_equal(task_count_by_state(f->ledger, states, counts, 5, &err), 0);
	assert_int_equal(counts[0], 1);
	assert_int_equal(counts[1], 1);
	assert_int_equal(counts[2], 1);
	assert_int_equal(counts[3], 1);
	assert_int_equal(counts[4], 0);
	{
		int64_t edges[8] = { 0 };

		assert_int_equal(task_each_edge(f->ledger, collect_edge, edges, &err),
		    0);
		assert_int_equal(edges[0], 1);
		assert_int_equal(edges[1], b);
		assert_int_equal(edges[2], a);
	}
	err_release(&err);
}

static void
test_agent_renews_live_leases(void **state)
{
	struct fixture *f = *state;
	int64_t a = add_task(f, "a", 0, NULL, NULL, NULL);
	int64_t b = add_task(f, "b", 0, NULL, NULL, NULL);
	struct err err = ERR_INIT;
	struct task t;

	claim(f, f->w1, a, 10000);
	claim(f, f->w2, b, 1000);
	set_now(NOW_MS + 6000);
	/* w1's lease is live: renewed for its full length from now. */
	assert_int_equal(agent_heartbeat(f->ledger, &f->a1, &err), 0);
	get_task(f, a, &t);
	assert_int_equal(t.lease_expires_ms, NOW_MS + 6000 + 10000);
	task_free_fields(&t);
	/* w2's lease already ran out: not revived. */
	assert_int_equal(agent_heartbeat(f->l2, &f->a2, &err), 0);
	get_task(f, b, &t);
	assert_int_equal(t.lease_expires_ms, NOW_MS + 1000);
	task_free_fields(&t);
	/* Any write by w1 is a heartbeat too. */
	set_now(NOW_MS + 12000);
	add_task(f, "c", 0, NULL, NULL, NULL);
	get_task(f, a, &t);
	assert_int_equal(t.lease_expires_ms, NOW_MS + 12000 + 10000);
	task_free_fields(&t);
	assert_int_equal(count_rows(f->ledger,
			     "SELECT last_seen_ms FROM agents WHERE name = 'w1'"),
	    NOW_MS + 12000);
	err_release(&err);
}

struct walk {
	size_t count;
	int64_t ids[16];
	size_t labels[16], touches[16], afters[16];
	size_t stop_after;
};

static int
walk_fn(const struct task *task, void *arg)
{
	struct walk *w = arg;

	w->ids[w->count] = task->id;
	w->labels[w->count] = task->labels.count;
	w->touches[w->count] = task->touches.count;
	w->afters[w->count] = task->after_count;
	w->count++;
	return w->stop_after && w->count == w->stop_after ? 9 : 0;
}

static void
test_each_filters(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	struct walk w = { 0 };
	struct task_filter filter;
	int64_t a, b, c, d;
	char a_text[16];

	a = add_task(f, "a", 0, NULL, (const char *[]){ "x/**", NULL },
	    (const char *[]){ "red", NULL });
	snprintf(a_text, sizeof(a_text), "%lld", (long long)a);
	b = add_task(f, "b", 9, (const char *[]){ a_text, NULL }, NULL,
	    (const char *[]){ "red", "blue", NULL });
	c = add_task(f, "c", 5, NULL, NULL, NULL);
	d = add_task(f, "d", 1, NULL, NULL, (const char *[]){ "blue", NULL });
	claim(f, f->w1, c, 60000);
	claim(f, f->w2, d, 60000);

	/* Everything, in id order. */
	filter = (struct task_filter){ 0 };
	assert_int_equal(task_each(f->ledger, &filter, walk_fn, &w, &err), 0);
	assert_int_equal(w.count, 4);
	assert_int_equal(w.ids[0], a);
	assert_int_equal(w.ids[1], b);
	assert_int_equal(w.ids[2], c);
	assert_int_equal(w.ids[3], d);
	memset(&w, 0, sizeof(w));

	/* By state. */
	filter = (struct task_filter){ .state = "claimed" };
	assert_int_equal(task_each(f->ledger, &filter, walk_fn, &w, &err), 0);
	assert_int_equal(w.count, 2);
	assert_int_equal(w.ids[0], c);
	assert_int_equal(w.ids[1], d);
	memset(&w, 0, sizeof(w));

	/* By owner. */
	filter = (struct task_filter){ .owner = f->w2 };
	assert_int_equal(task_each(f->ledger, &filter, walk_fn, &w, &err), 0);
	assert_int_equal(w.count, 1);
	assert_int_equal(w.ids[0], d);
	memset(&w, 0, sizeof(w));

	/* By label, with edges. */
	filter = (struct task_filter){ .label = "red", .with_edges = true };
	assert_int_equal(task_each(f->ledger, &filter, walk_fn, &w, &err), 0);
	assert_int_equal(w.count, 2);
	assert_int_equal(w.ids[0], a);
	assert_int_equal(w.labels[0], 1);
	assert_int_equal(w.touches[0], 1);
	assert_int_equal(w.afters[0], 0);
	assert_int_equal(w.ids[1], b);
	assert_int_equal(w.labels[1], 2);
	assert_int_equal(w.afters[1], 1);
	memset(&w, 0, sizeof(w));

	/* Limit. */
	filter = (struct task_filter){ .limit = 3 };
	assert_int_equal(task_each(f->ledger, &filter, walk_fn, &w, &err), 0);
	assert_int_equal(w.count, 3);
	assert_int_equal(w.ids[2], c);
	memset(&w, 0, sizeof(w));

	/* Ready: only a (b waits on a, c and d are claimed). */
	filter = (struct task_filter){ .ready = true };
	assert_int_equal(task_each(f->ledger, &filter, walk_fn, &w, &err), 0);
	assert_int_equal(w.count, 1);
	assert_int_equal(w.ids[0], a);
	memset(&w, 0, sizeof(w));

	/* A non-zero return stops the walk and is returned. */
	filter = (struct task_filter){ 0 };
	w.stop_after = 2;
	assert_int_equal(task_each(f->ledger, &filter, walk_fn, &w, &err), 9);
	assert_int_equal(w.count, 2);
	err_release(&err);
}

static void
test_add_nothing(void **state)
{
	struct fixture *f = *state;
	struct err err = ERR_INIT;
	int64_t before = ledger_rows(f->ledger), id = -3;

	assert_int_equal(task_add(f->ledger, f->w1, NULL, 0, &id, &err), 0);
	assert_int_equal(ledger_rows(f->ledger), before);
	err_release(&err);
}

int
main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_id_accepts),
		cmocka_unit_test(test_parse_id_rejects),
		cmocka_unit_test(test_state_valid),
		cmocka_unit_test(test_transition_table),
		cmocka_unit_test(test_transition_check_is_a_bug),
		cmocka_unit_test(test_check_spec),
		T(test_add_basic),
		T(test_add_missing_task),
		T(test_add_after_sets_unmet),
		T(test_add_after_unknown),
		T(test_add_refuses_bad_specs),
		T(test_batch_forward_keys),
		T(test_batch_cycle_refused),
		T(test_batch_two_cycle_message),
		T(test_batch_self_cycle),
		T(test_batch_all_or_nothing),
		T(test_batch_parent),
		T(test_claim_next_order),
		T(test_ready_listing_matches_claim_order),
		T(test_claim_held_by_another),
		T(test_claim_own_renews),
		T(test_claim_unknown_and_finished),
		T(test_claim_by_label),
		T(test_report),
		T(test_save_and_result),
		T(test_release_refunds_attempt),
		T(test_release_many_times_keeps_attempts),
		T(test_block),
		T(test_lease_expiry),
		T(test_expired_attempts_used_up),
		T(test_touches_overlap_unready),
		T(test_touches_expired_lease_not_live),
		T(test_count_by_state_and_edges),
		T(test_agent_renews_live_leases),
		T(test_each_filters),
		T(test_add_nothing),
	};
#undef T

	unsetenv("DAICHO_LEDGER");
	unsetenv("DAICHO_AGENT");
	return cmocka_run_group_tests_name("task", tests, NULL, NULL);
}
