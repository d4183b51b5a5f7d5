/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for core/event: appending events in a transaction and reading
 * them back with filters.
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
#include "core/event.h"
#include "sqlite_ledger.h" /* these tests read the SQLite ledger directly */
#include "core/ledger.h"
#include "core/task.h"

#define NOW_MS 1700000000000LL

struct fixture {
	char dir[PATH_MAX];
	char path[PATH_MAX + 32];
	struct ledger *ledger;
	struct agent agent;
	int64_t task1, task2;
	int64_t base_id; /* last event id after setup */
};

static void
set_now(int64_t ms)
{
	char text[32];

	snprintf(text, sizeof(text), "%lld", (long long)ms);
	setenv("DAICHO_NOW_MS", text, 1);
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
	char tmpl[] = "/tmp/daicho-test-event-XXXXXX";
	struct agent_claim claim = { .name = "w1", .kind = "script",
		.human_name = "me" };
	struct task_spec specs[2] = { { .title = "one" }, { .title = "two" } };
	int64_t ids[2];
	struct err err = ERR_INIT;

	if (f == NULL || mkdtemp(tmpl) == NULL || realpath(tmpl, f->dir) == NULL)
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/ledger.db", f->dir);
	set_now(NOW_MS);
	if (ledger_create(f->path, &err) != 0 ||
	    ledger_open(f->path, &f->ledger, &err) != 0 ||
	    agent_resolve(f->ledger, &claim, &f->agent, &err) != 0 ||
	    task_add(f->ledger, f->agent.id, specs, 2, ids, &err) != 0 ||
	    event_last_id(f->ledger, &f->base_id, &err) != 0) {
		fprintf(stderr, "setup: %s\n", err.message.buf);
		err_release(&err);
		return -1;
	}
	/* Resolving only read; the add (actor 0: the caller) registered w1. */
	if (f->agent.id <= 0 || ledger_caller(f->ledger) != f->agent.id) {
		fprintf(stderr, "setup: w1 not registered by its first write\n");
		return -1;
	}
	f->task1 = ids[0];
	f->task2 = ids[1];
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	ledger_close(f->ledger);
	agent_release(&f->agent);
	nftw(f->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	unsetenv("DAICHO_NOW_MS");
	return 0;
}

struct seen {
	size_t count;
	int64_t ids[64];
	int64_t tasks[64];
	int64_t at[64];
	char *kinds[64];
	char *actors[64];
	char *details[64];
	size_t stop_after; /* return 1 after this many, or 0 */
};

static int
collect(const struct event *event, void *arg)
{
	struct seen *s = arg;
	size_t i = s->count++;

	s->ids[i] = event->id;
	s->tasks[i] = event->task;
	s->at[i] = event->at_ms;
	s->kinds[i] = strdup(event->kind);
	s->actors[i] = event->actor ? strdup(event->actor) : NULL;
	s->details[i] = event->detail ? strdup(event->detail) : NULL;
	if (s->stop_after && s->count == s->stop_after)
		return 42;
	return 0;
}

static void
seen_release(struct seen *s)
{
	for (size_t i = 0; i < s->count; i++) {
		free(s->kinds[i]);
		free(s->actors[i]);
		free(s->details[i]);
	}
	memset(s, 0, sizeof(*s));
}

static void
append(struct fixture *f, int64_t actor, const char *kind, int64_t task,
    json_t *detail)
{
	struct err err = ERR_INIT;

	assert_int_equal(ledger_begin(f->ledger, &err), 0);
	assert_int_equal(event_append(f->ledger, actor, kind, task, detail, &err),
	    0);
	assert_int_equal(ledger_commit(f->ledger, &err), 0);
	err_release(&err);
}

static void
test_append_and_read(void **state)
{
	struct fixture *f = *state;
	struct event_filter filter = { .after_id = f->base_id };
	struct seen s = { 0 };
	struct err err = ERR_INIT;
	int64_t last = -1;

	set_now(NOW_MS + 10);
	append(f, f->agent.id, "probe", f->task1,
	    json_pack("{s:s, s:i}", "z", "last", "a", 1));
	set_now(NOW_MS + 20);
	append(f, 0, "note", 0, NULL);
	assert_int_equal(event_each(f->ledger, &filter, collect, &s, &err), 0);
	assert_int_equal(s.count, 2);
	assert_true(s.ids[0] > f->base_id);
	assert_true(s.ids[1] > s.ids[0]);
	assert_string_equal(s.kinds[0], "probe");
	assert_string_equal(s.actors[0], "w1");
	assert_int_equal(s.tasks[0], f->task1);
	assert_int_equal(s.at[0], NOW_MS + 10);
	/* The detail is a JSON object. */
	{
		json_error_t jerr;
		json_t *d = json_loads(s.details[0], 0, &jerr);

		assert_non_null(d);
		assert_true(json_is_object(d));
		assert_string_equal(json_string_value(json_object_get(d, "z")),
		    "last");
		assert_int_equal(json_integer_value(json_object_get(d, "a")), 1);
		json_decref(d);
	}
	assert_string_equal(s.kinds[1], "note");
	/* Actor 0: the connection's caller. */
	assert_string_equal(s.actors[1], "w1");
	assert_int_equal(s.tasks[1], 0);
	assert_null(s.details[1]);
	assert_int_equal(s.at[1], NOW_MS + 20);
	assert_int_equal(event_last_id(f->ledger, &last, &err), 0);
	assert_int_equal(last, s.ids[1]);
	seen_release(&s);
	err_release(&err);
}

static void
test_rolled_back_event_is_gone(void **state)
{
	struct fixture *f = *state;
	struct event_filter filter = { .after_id = f->base_id };
	struct seen s = { 0 };
	struct err err = ERR_INIT;
	int64_t last = -1;

	assert_int_equal(ledger_begin(f->ledger, &err), 0);
	assert_int_equal(event_append(f->ledger, f->agent.id, "ghost", 0,
			     json_pack("{s:s}", "x", "y"), &err),
	    0);
	ledger_rollback(f->ledger);
	assert_int_equal(event_each(f->ledger, &filter, collect, &s, &err), 0);
	assert_int_equal(s.count, 0);
	assert_int_equal(event_last_id(f->ledger, &last, &err), 0);
	assert_int_equal(last, f->base_id);
	err_release(&err);
}

static void
test_filters(void **state)
{
	struct fixture *f = *state;
	struct seen s = { 0 };
	struct err err = ERR_INIT;
	struct event_filter filter;
	int i;

	for (i = 0; i < 6; i++) {
		set_now(NOW_MS + 1000 * (i + 1));
		append(f, f->agent.id, i % 2 ? "odd" : "even",
		    i % 2 ? f->task2 : f->task1, NULL);
	}
	/* By task: the add event of task1 plus three. */
	filter = (struct event_filter){ .task = f->task1 };
	assert_int_equal(event_each(f->ledger, &filter, collect, &s, &err), 0);
	assert_int_equal(s.count, 4);
	assert_string_equal(s.kinds[0], "add");
	for (size_t k = 0; k < s.count; k++)
		assert_int_equal(s.tasks[k], f->task1);
	for (size_t k = 1; k < s.count; k++)
		assert_true(s.ids[k] > s.ids[k - 1]);
	seen_release(&s);

	/* Since a time (inclusive). */
	filter = (struct event_filter){ .since_ms = NOW_MS + 4000 };
	assert_int_equal(event_each(f->ledger, &filter, collect, &s, &err), 0);
	assert_int_equal(s.count, 3);
	assert_int_equal(s.at[0], NOW_MS + 4000);
	assert_int_equal(s.at[2], NOW_MS + 6000);
	seen_release(&s);

	/* The newest 2, still in order. */
	filter = (struct event_filter){ .limit = 2 };
	assert_int_equal(event_each(f->ledger, &filter, collect, &s, &err), 0);
	assert_int_equal(s.count, 2);
	assert_int_equal(s.at[0], NOW_MS + 5000);
	assert_int_equal(s.at[1], NOW_MS + 6000);
	assert_true(s.ids[0] < s.ids[1]);
	seen_release(&s);

	/* Limit with a task filter. */
	filter = (struct event_filter){ .task = f->task2, .limit = 1 };
	assert_int_equal(event_each(f->ledger, &filter, collect, &s, &err), 0);
	assert_int_equal(s.count, 1);
	assert_int_equal(s.at[0], NOW_MS + 6000);
	seen_release(&s);

	/* After an id. */
	filter = (struct event_filter){ .after_id = f->base_id + 5 };
	assert_int_equal(event_each(f->ledger, &filter, collect, &s, &err), 0);
	assert_int_equal(s.count, 1);
	assert_int_equal(s.ids[0], f->base_id + 6);
	seen_release(&s);

	/* A non-zero return stops the walk and is returned. */
	filter = (struct event_filter){ 0 };
	s.stop_after = 3;
	assert_int_equal(event_each(f->ledger, &filter, collect, &s, &err), 42);
	assert_int_equal(s.count, 3);
	seen_release(&s);
	err_release(&err);
}

/* The actor id of event id, or -1 when it has none. */
static int64_t
event_actor_id(struct ledger *ledger, int64_t id)
{
	sqlite3_stmt *st = NULL;
	int64_t actor;

	assert_int_equal(sqlite3_prepare_v2(ledger_db(ledger),
			     "SELECT actor FROM events WHERE id = ?", -1, &st, NULL),
	    SQLITE_OK);
	sqlite3_bind_int64(st, 1, id);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	actor = sqlite3_column_type(st, 0) == SQLITE_NULL
		? -1 : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return actor;
}

/*
 * (d) Actor 0 records the connection's caller: none without one, and a
 * caller new to the ledger once the transaction registered it.
 */
static void
test_append_actor_zero_is_caller(void **state)
{
	struct fixture *f = *state;
	struct agent_claim claim = { .name = "w2", .kind = "script",
		.human_name = "me" };
	struct ledger *l2 = NULL, *l3 = NULL;
	struct agent a2 = { 0 };
	struct event_filter filter = { .after_id = f->base_id };
	struct seen s = { 0 };
	struct err err = ERR_INIT;
	int64_t last = 0;

	assert_int_equal(ledger_open(f->path, &l2, &err), 0);
	assert_int_equal(ledger_open(f->path, &l3, &err), 0);

	/* No caller on l3: actor 0 records no actor. */
	assert_int_equal(ledger_caller(l3), 0);
	assert_int_equal(event_record(l3, 0, "anon", 0, NULL, &err), 0);

	/* w2, new: registered by the transaction, then recorded as the actor. */
	assert_int_equal(agent_resolve(l2, &claim, &a2, &err), 0);
	assert_int_equal(a2.id, 0);
	assert_int_equal(ledger_begin(l2, &err), 0);
	assert_true(a2.id > 0);
	assert_int_equal(event_append(l2, 0, "mine", f->task2, NULL, &err), 0);
	/* A given actor is kept, whoever the caller is. */
	assert_int_equal(event_append(l2, f->agent.id, "theirs", 0, NULL, &err),
	    0);
	assert_int_equal(ledger_commit(l2, &err), 0);
	/* event_record() with 0: the caller too. */
	assert_int_equal(event_record(l2, 0, "recorded", 0, NULL, &err), 0);

	assert_int_equal(event_each(f->ledger, &filter, collect, &s, &err), 0);
	assert_int_equal(s.count, 5);
	assert_string_equal(s.kinds[0], "anon");
	assert_null(s.actors[0]);
	assert_int_equal(event_actor_id(f->ledger, s.ids[0]), -1);
	assert_string_equal(s.kinds[1], "agent-register");
	assert_string_equal(s.actors[1], "w2");
	assert_int_equal(event_actor_id(f->ledger, s.ids[1]), a2.id);
	assert_string_equal(s.kinds[2], "mine");
	assert_string_equal(s.actors[2], "w2");
	assert_int_equal(event_actor_id(f->ledger, s.ids[2]), a2.id);
	assert_int_equal(s.tasks[2], f->task2);
	assert_string_equal(s.kinds[3], "theirs");
	assert_string_equal(s.actors[3], "w1");
	assert_int_equal(event_actor_id(f->ledger, s.ids[3]), f->agent.id);
	assert_string_equal(s.kinds[4], "recorded");
	assert_string_equal(s.actors[4], "w2");
	assert_int_equal(event_last_id(f->ledger, &last, &err), 0);
	assert_int_equal(last, s.ids[4]);
	seen_release(&s);
	ledger_close(l3);
	ledger_close(l2);
	agent_release(&a2);
	err_release(&err);
}

/* With an event via set, every event carries it in its detail; unset, none. */
static void
test_event_via(void **state)
{
	struct fixture *f = *state;
	struct event_filter filter = { .after_id = f->base_id };
	struct seen s = { 0 };
	struct err err = ERR_INIT;

	ledger_set_event_via(f->ledger, "web");
	assert_string_equal(ledger_event_via(f->ledger), "web");
	append(f, 0, "bare", 0, NULL);
	append(f, 0, "detailed", 0, json_pack("{s:i}", "a", 1));
	ledger_set_event_via(f->ledger, NULL);
	assert_null(ledger_event_via(f->ledger));
	append(f, 0, "after", 0, NULL);
	assert_int_equal(event_each(f->ledger, &filter, collect, &s, &err), 0);
	assert_int_equal(s.count, 3);
	assert_string_equal(s.details[0], "{\"via\":\"web\"}");
	assert_string_equal(s.details[1], "{\"a\":1,\"via\":\"web\"}");
	assert_null(s.details[2]);
	seen_release(&s);
	err_release(&err);
}

/*
 * The stored detail has its keys in order, whatever order they were
 * added in (users and tests compare it as text): with "via" after keys
 * that sort after it, and with keys added already in order.
 */
static void
test_event_detail_keys_in_order(void **state)
{
	struct fixture *f = *state;
	struct event_filter filter = { .after_id = f->base_id };
	struct seen s = { 0 };
	struct err err = ERR_INIT;

	append(f, 0, "unsorted", 0, json_pack("{s:i, s:i, s:i}", "b", 2, "c", 3,
					    "a", 1));
	append(f, 0, "sorted", 0, json_pack("{s:i, s:n, s:s}", "a", 1, "b", "c",
					  "x"));
	ledger_set_event_via(f->ledger, "web");
	append(f, 0, "via", 0, json_pack("{s:i, s:i}", "a", 1, "zz", 2));
	ledger_set_event_via(f->ledger, NULL);
	assert_int_equal(event_each(f->ledger, &filter, collect, &s, &err), 0);
	assert_int_equal(s.count, 3);
	assert_string_equal(s.details[0], "{\"a\":1,\"b\":2,\"c\":3}");
	assert_string_equal(s.details[1], "{\"a\":1,\"b\":null,\"c\":\"x\"}");
	assert_string_equal(s.details[2], "{\"a\":1,\"via\":\"web\",\"zz\":2}");
	seen_release(&s);
	err_release(&err);
}

static void
test_last_id_empty(void **state)
{
	char tmpl[] = "/tmp/daicho-test-event-empty-XXXXXX";
	char path[PATH_MAX + 32];
	struct ledger *ledger = NULL;
	struct err err = ERR_INIT;
	int64_t last = -1;

	assert_non_null(mkdtemp(tmpl));
	snprintf(path, sizeof(path), "%s/l.db", tmpl);
	assert_int_equal(ledger_create(path, &err), 0);
	assert_int_equal(ledger_open(path, &ledger, &err), 0);
	assert_int_equal(event_last_id(ledger, &last, &err), 0);
	assert_int_equal(last, 0);
	ledger_close(ledger);
	nftw(tmpl, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	err_release(&err);
}

int
main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_append_and_read),
		T(test_rolled_back_event_is_gone),
		T(test_filters),
		T(test_append_actor_zero_is_caller),
		T(test_event_via),
		T(test_event_detail_keys_in_order),
		cmocka_unit_test(test_last_id_empty),
	};
#undef T

	return cmocka_run_group_tests_name("event", tests, NULL, NULL);
}
