/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for util/sandbox: the bwrap command line a check runs under.
 * Order is the point: bwrap applies its mounts in order, so what is hidden
 * must come after what shows it, and the checkout last of all.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/sandbox.h"
#include "util/strlist.h"

/* The index of the first "OPTION PATH" pair at or after from, or -1. */
static long
find_pair(const struct strlist *argv, const char *option, const char *path,
    size_t from)
{
	for (size_t i = from; i + 1 < argv->count; i++)
		if (strcmp(argv->items[i], option) == 0 &&
		    strcmp(argv->items[i + 1], path) == 0)
			return (long)i;
	return -1;
}

/* The index of the last "OPTION PATH" pair, or -1. */
static long
find_last_pair(const struct strlist *argv, const char *option,
    const char *path)
{
	long at = -1, next = -1;

	while ((next = find_pair(argv, option, path, (size_t)(at + 1))) >= 0)
		at = next;
	return at;
}

/* A scratch tree: root/project/.git/daicho/verify/1-x, and root/home. */
struct tree {
	char root[64];
	char project[96], git[128], ledger_dir[160], checkout[224], home[96];
};

static void
make_tree(struct tree *t)
{
	strcpy(t->root, "/tmp/daicho-sandbox-XXXXXX");
	assert_non_null(mkdtemp(t->root));
	snprintf(t->project, sizeof(t->project), "%s/project", t->root);
	snprintf(t->git, sizeof(t->git), "%s/.git", t->project);
	snprintf(t->ledger_dir, sizeof(t->ledger_dir), "%s/daicho", t->git);
	snprintf(t->checkout, sizeof(t->checkout), "%s/verify/1-x",
	    t->ledger_dir);
	snprintf(t->home, sizeof(t->home), "%s/home", t->root);
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' '%s' && echo 'gitdir: x' "
	    ">'%s/.git'", t->checkout, t->home, t->checkout);
	assert_int_equal(system(cmd), 0);
}

static void
remove_tree(const struct tree *t)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->root);
	assert_int_equal(system(cmd), 0);
}

static void
test_checkout_inside_hidden_git_dir(void **state)
{
	struct tree t;
	struct strlist hidden = STRLIST_INIT, env = STRLIST_INIT,
		       argv = STRLIST_INIT;
	struct sandbox sb;
	long project, git, ledger_again, checkout;

	(void)state;
	make_tree(&t);
	strlist_add(&hidden, t.project);
	strlist_add(&hidden, t.ledger_dir);
	strlist_add(&hidden, t.home);
	strlist_add(&env, "DAICHO_TASK=7");
	sb = (struct sandbox){ .dir = t.checkout, .git_dir = t.git,
		.hidden = &hidden, .env = &env, .network = false };
	sandbox_argv(&sb, "make test", &argv);

	assert_string_equal(argv.items[0], SANDBOX_BWRAP);
	/* No network unless asked; the whole file system read-only. */
	assert_int_equal(find_pair(&argv, "--share-net", "", 0), -1);
	for (size_t i = 0; i < argv.count; i++)
		assert_string_not_equal(argv.items[i], "--share-net");
	assert_true(find_pair(&argv, "--ro-bind", "/", 0) >= 0);
	assert_true(find_pair(&argv, "--tmpfs", "/tmp", 0) >= 0);
	/* The project hidden, then its git directory shown read-only, then
	 * the ledger's directory inside it hidden again, then the checkout. */
	project = find_pair(&argv, "--tmpfs", t.project, 0);
	git = find_pair(&argv, "--ro-bind", t.git, 0);
	ledger_again = find_last_pair(&argv, "--tmpfs", t.ledger_dir);
	checkout = find_pair(&argv, "--bind", t.checkout, 0);
	assert_true(project >= 0);
	assert_true(git > project);
	assert_true(ledger_again > git);
	assert_true(checkout > ledger_again);
	assert_true(find_pair(&argv, "--tmpfs", t.home, 0) >= 0);
	/* The checkout's .git file read-only, after the checkout itself. */
	{
		char dot_git[256];

		snprintf(dot_git, sizeof(dot_git), "%s/.git", t.checkout);
		assert_true(find_pair(&argv, "--ro-bind", dot_git, 0) > checkout);
	}
	/* The environment: cleared, then only what is set. */
	assert_true(find_pair(&argv, "--clearenv", "--setenv", 0) >= 0);
	assert_true(find_pair(&argv, "PATH", SANDBOX_PATH, 0) >= 0);
	assert_true(find_pair(&argv, "HOME", SANDBOX_HOME, 0) >= 0);
	assert_true(find_pair(&argv, "DAICHO_TASK", "7", 0) >= 0);
	assert_true(find_pair(&argv, "--chdir", t.checkout, 0) >= 0);
	/* The command last, through /bin/sh -c, as one word. */
	assert_string_equal(argv.items[argv.count - 3], "/bin/sh");
	assert_string_equal(argv.items[argv.count - 2], "-c");
	assert_string_equal(argv.items[argv.count - 1], "make test");
	strlist_release(&hidden);
	strlist_release(&env);
	strlist_release(&argv);
	remove_tree(&t);
}

static void
test_project_root_as_the_checkout(void **state)
{
	struct tree t;
	struct strlist hidden = STRLIST_INIT, argv = STRLIST_INIT;
	struct sandbox sb;
	long root_bind, git_again, ledger_again;

	(void)state;
	make_tree(&t);
	strlist_add(&hidden, t.project);
	strlist_add(&hidden, t.ledger_dir);
	/* Outside a commit, checks run in the project itself: it shows, but
	 * the ledger inside it stays hidden and .git read-only. */
	sb = (struct sandbox){ .dir = t.project, .git_dir = t.git,
		.hidden = &hidden, .network = true };
	sandbox_argv(&sb, "true", &argv);
	root_bind = find_pair(&argv, "--bind", t.project, 0);
	git_again = find_last_pair(&argv, "--ro-bind", t.git);
	ledger_again = find_last_pair(&argv, "--tmpfs", t.ledger_dir);
	assert_true(root_bind >= 0);
	assert_true(git_again > root_bind);
	assert_true(ledger_again > git_again);
	{
		bool net = false;

		for (size_t i = 0; i < argv.count; i++)
			net |= strcmp(argv.items[i], "--share-net") == 0;
		assert_true(net);
	}
	strlist_release(&hidden);
	strlist_release(&argv);
	remove_tree(&t);
}

static void
test_relative_and_root_paths_are_never_hidden(void **state)
{
	struct strlist hidden = STRLIST_INIT, argv = STRLIST_INIT;
	struct sandbox sb;

	(void)state;
	strlist_add(&hidden, "/");
	strlist_add(&hidden, "relative/dir");
	sb = (struct sandbox){ .dir = "/tmp", .hidden = &hidden };
	sandbox_argv(&sb, "true", &argv);
	assert_int_equal(find_pair(&argv, "--tmpfs", "/", 0), -1);
	assert_int_equal(find_pair(&argv, "--tmpfs", "relative/dir", 0), -1);
	strlist_release(&hidden);
	strlist_release(&argv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checkout_inside_hidden_git_dir),
		cmocka_unit_test(test_project_root_as_the_checkout),
		cmocka_unit_test(test_relative_and_root_paths_are_never_hidden),
	};

	return cmocka_run_group_tests_name("sandbox", tests, NULL, NULL);
}
