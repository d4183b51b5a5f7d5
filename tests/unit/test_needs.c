/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for core/needs: what needs a person, read from a ledger whose
 * rows are written directly (as the commands and the sweep leave them).
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

#include "core/err.h"
#include "sqlite_ledger.h" /* these tests read the SQLite ledger directly */
#include "core/ledger.h"
#include "core/needs.h"

#define NOW_MS 1700000000000LL
#define MIN_MS 60000LL

struct fixture {
	char dir[PATH_MAX];
	char path[PATH_MAX + 32];
	struct ledger *ledger;
};

static int
remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/daicho-test-needs-XXXXXX", now[32];
	struct err err = ERR_INIT;

	if (f == NULL || mkdtemp(tmpl) == NULL || realpath(tmpl, f->dir) == NULL)
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/ledger.db", f->dir);
	snprintf(now, sizeof(now), "%lld", NOW_MS);
	setenv("DAICHO_NOW_MS", now, 1);
	if (ledger_create(f->path, &err) < 0 ||
	    ledger_open(f->path, &f->ledger, &err) < 0) {
		fprintf(stderr, "ledger: %s\n", err.message.buf);
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

/* Run sql (several statements) on the fixture's ledger. */
static void
exec_sql(struct fixture *f, const char *sql)
{
	char *message = NULL;

	if (sqlite3_exec(ledger_db(f->ledger), sql, NULL, NULL, &message) !=
	    SQLITE_OK)
		fail_msg("%s: %s", sql, message);
}

/* The items that need a person now (new reference). */
static json_t *
needs(struct fixture *f, const char *human_name)
{
	struct needs_options options = { 10 * MIN_MS, human_name };
	struct err err = ERR_INIT;
	json_t *items = NULL;

	if (needs_list(f->ledger, &options, &items, &err) != 0)
		fail_msg("needs_list: %s", err.message.buf);
	assert_true(json_is_array(items));
	return items;
}

static const char *
str_at(const json_t *items, size_t i, const char *key)
{
	return json_string_value(json_object_get(json_array_get(items, i), key));
}

static json_int_t
int_at(const json_t *items, size_t i, const char *key)
{
	return json_integer_value(json_object_get(json_array_get(items, i), key));
}

/* A ledger with agents w1 (script) and a person, me (human). */
static void
add_agents(struct fixture *f)
{
	exec_sql(f,
	    "INSERT INTO agents (id, name, kind, started_ms, last_seen_ms) VALUES"
	    " (1, 'w1', 'script', 1700000000000, 1700000000000),"
	    " (2, 'me', 'human', 1600000000000, 1600000000000);");
}

static void
test_empty_ledger_needs_nothing(void **state)
{
	struct fixture *f = *state;
	json_t *items;

	add_agents(f);
	items = needs(f, "me");
	assert_int_equal(json_array_size(items), 0);
	json_decref(items);
}

/*
 * Every item has its five fields; kinds come most urgent first and, within
 * a kind, oldest first.
 */
static void
test_kinds_in_order_oldest_first(void **state)
{
	struct fixture *f = *state;
	const char *keys[] = { "kind", "id", "summary", "since_ms", "resolve" };
	json_t *items;

	add_agents(f);
	exec_sql(f,
	    "INSERT INTO tasks (id, title, state, owner, block_reason,"
	    " created_ms, updated_ms) VALUES"
	    " (1, 'b1', 'blocked', 1, 'later', 1, 1699999990000),"
	    " (2, 'b2', 'blocked', 1, 'sooner', 1, 1699999980000),"
	    " (3, 'f', 'failed', NULL, NULL, 1, 1699999000000);"
	    "INSERT INTO messages (sender, recipient, recipient_name, addressed_to,"
	    " body, sent_ms) VALUES (1, 2, 'me', 'me', 'hi', 1699999999000);");
	items = needs(f, "me");
	assert_int_equal(json_array_size(items), 4);
	assert_string_equal(str_at(items, 0, "kind"), "blocked");
	assert_int_equal(int_at(items, 0, "id"), 2);
	assert_int_equal(int_at(items, 1, "id"), 1);
	assert_string_equal(str_at(items, 2, "kind"), "message");
	assert_string_equal(str_at(items, 3, "kind"), "failed");
	for (size_t i = 0; i < json_array_size(items); i++) {
		json_t *item = json_array_get(items, i);

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			assert_non_null(json_object_get(item, keys[k]));
		assert_true(json_array_size(json_object_get(item, "resolve")) > 0);
	}
	assert_string_equal(json_string_value(json_array_get(json_object_get(
	    json_array_get(items, 2), "resolve"), 0)), "daicho inbox");
	json_decref(items);
	/* Someone else looking is told whose inbox it is. */
	items = needs(f, NULL);
	assert_string_equal(json_string_value(json_array_get(json_object_get(
	    json_array_get(items, 2), "resolve"), 0)), "daicho inbox --as me");
	json_decref(items);
}

/*
 * What a failed task holds back: every task after it not yet done, through
 * tasks not done; a verified task holds nothing back.
 */
static void
test_failed_holds_back(void **state)
{
	struct fixture *f = *state;
	json_t *items;

	add_agents(f);
	/* 1 failed; 2, 3 after 1; 4 after 2; 5 after 3 (verified); 6 after 5. */
	exec_sql(f,
	    "INSERT INTO tasks (id, title, state, created_ms, updated_ms) VALUES"
	    " (1, 'base', 'failed', 1, 1), (2, 'a', 'open', 1, 1),"
	    " (3, 'b', 'verified', 1, 1), (4, 'c', 'open', 1, 1),"
	    " (5, 'd', 'open', 1, 1), (6, 'e', 'cancelled', 1, 1);"
	    "INSERT INTO deps (task, after) VALUES (2, 1), (3, 1), (4, 2),"
	    " (5, 3), (6, 1);");
	items = needs(f, "me");
	assert_int_equal(json_array_size(items), 1);
	assert_int_equal(int_at(items, 0, "holds_back_directly"), 1);
	assert_int_equal(int_at(items, 0, "holds_back"), 2);
	assert_non_null(strstr(str_at(items, 0, "summary"),
	    "holds back 2 tasks, 1 directly"));
	json_decref(items);
}

/*
 * A person is never a stale agent holding claims, however long unseen; an
 * agent is, once unseen for the stale-after time.
 */
static void
test_person_never_stale(void **state)
{
	struct fixture *f = *state;
	json_t *items;

	add_agents(f);
	exec_sql(f,
	    "UPDATE agents SET last_seen_ms = 1700000000000 - 3600000;"
	    "INSERT INTO tasks (id, title, state, owner, lease_expires_ms,"
	    " created_ms, updated_ms) VALUES"
	    " (1, 'mine', 'claimed', 2, 1800000000000, 1, 1),"
	    " (2, 'its', 'claimed', 1, 1800000000000, 1, 1);");
	items = needs(f, "me");
	assert_int_equal(json_array_size(items), 1);
	assert_string_equal(str_at(items, 0, "kind"), "stale-agent-holding");
	assert_string_equal(str_at(items, 0, "agent"), "w1");
	json_decref(items);
}

/*
 * A summary is one line however the text it quotes is made, and a long
 * text is cut without splitting a UTF-8 character.
 */
static void
test_summary_is_one_line(void **state)
{
	struct fixture *f = *state;
	char sql[1024], reason[400] = "x"; /* then a character per two bytes */
	const char *summary;
	json_t *items;

	add_agents(f);
	for (int i = 0; i < 60; i++)
		strcat(reason, "\xc3\xa9"); /* é: byte 100 is inside one */
	snprintf(sql, sizeof(sql),
	    "INSERT INTO tasks (id, title, state, owner, block_reason, created_ms,"
	    " updated_ms) VALUES (1, 'two' || char(10) || 'lines', 'blocked', 1,"
	    " '%s', 1, 1);", reason);
	exec_sql(f, sql);
	items = needs(f, "me");
	summary = str_at(items, 0, "summary");
	assert_null(strchr(summary, '\n'));
	assert_non_null(strstr(summary, "two?lines"));
	/* 100 bytes of the reason at the most, ending on a whole character */
	assert_non_null(strstr(summary, "\xc3\xa9...)"));
	assert_null(strstr(summary, "\xc3..."));
	json_decref(items);
}

int
main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_empty_ledger_needs_nothing),
		T(test_kinds_in_order_oldest_first),
		T(test_failed_holds_back),
		T(test_person_never_stale),
		T(test_summary_is_one_line),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
