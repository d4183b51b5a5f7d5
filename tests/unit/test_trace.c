/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for util/trace: reading what strace wrote (one file per
 * process, paths hex-escaped, directories named) into what a command read,
 * looked for, listed and wrote inside one directory. The trace files here
 * are written by hand in strace's own form; tests/cli/inputs.bats runs the
 * real strace.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/path.h"
#include "util/trace.h"

#define ROOT "/w/ck"

/* s as strace -xx prints a string: every byte \xNN. */
static void
hex(struct buf *out, const char *s)
{
	for (; *s; s++)
		buf_addf(out, "\\x%02x", (unsigned char)*s);
}

/*
 * Expand a line written with {PATH} for a hex string and <PATH> for a
 * descriptor's path into strace's form.
 */
static void
expand(struct buf *out, const char *line)
{
	for (const char *p = line; *p; p++) {
		if (*p == '{' || *p == '<') {
			char close = *p == '{' ? '}' : '>';
			const char *end = strchr(p + 1, close);
			char *inner = strndup(p + 1, (size_t)(end - p - 1));

			buf_adds(out, *p == '{' ? "\"" : "<");
			hex(out, inner);
			buf_adds(out, *p == '{' ? "\"" : ">");
			free(inner);
			p = end;
		} else {
			buf_addch(out, *p);
		}
	}
	buf_addch(out, '\n');
}

/* Write the trace file dir/t.PID of lines (NULL-ended). */
static void
write_trace(const char *dir, int pid, const char *const *lines)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	FILE *f;

	buf_addf(&path, "%s/t.%d", dir, pid);
	for (size_t i = 0; lines[i]; i++)
		expand(&text, lines[i]);
	f = fopen(path.buf, "w");
	assert_non_null(f);
	fwrite(text.buf, 1, text.len, f);
	fclose(f);
	buf_release(&path);
	buf_release(&text);
}

static char *
new_dir(void)
{
	char *dir = strdup("/tmp/test_trace.XXXXXX");

	assert_non_null(mkdtemp(dir));
	return dir;
}

static void
assert_list(const struct strlist *list, const char *const *want)
{
	size_t n = 0;

	for (; want[n]; n++) {
		if (n >= list->count)
			fail_msg("missing %s", want[n]);
		assert_string_equal(list->items[n], want[n]);
	}
	if (list->count != n)
		fail_msg("%zu more, first %s", list->count - n, list->items[n]);
}

static void
test_kinds_of_access(void **state)
{
	static const char *const lines[] = {
		"execve({/bin/sh}, [{/bin/sh}, {-c}], 0x7ffc /* 1 var */) = 0",
		"openat(AT_FDCWD<" ROOT ">, {Makefile}, O_RDONLY) = 3<" ROOT "/Makefile>",
		"newfstatat(AT_FDCWD<" ROOT ">, {GNUmakefile}, 0x7ffe, 0) = -1 ENOENT (No such file or directory)",
		"openat(AT_FDCWD<" ROOT ">, {.}, O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 3<" ROOT ">",
		"openat(AT_FDCWD<" ROOT ">, {src}, O_RDONLY|O_PATH|O_DIRECTORY) = 4<" ROOT "/src>",
		"openat(4<" ROOT "/src>, {a.c}, O_RDONLY) = 5<" ROOT "/src/a.c>",
		"openat(AT_FDCWD<" ROOT ">, {out.o}, O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3<" ROOT "/out.o>",
		"newfstatat(AT_FDCWD<" ROOT ">, {out.o}, 0x7ffe, 0) = -1 ENOENT (No such file or directory)",
		"mkdir({build}, 0777) = 0",
		"newfstatat(AT_FDCWD<" ROOT ">, {build/x.o}, 0x7ffe, 0) = -1 ENOENT (No such file or directory)",
		"access({/etc/passwd}, R_OK) = 0",
		"openat(AT_FDCWD<" ROOT ">, {.git/config}, O_RDONLY) = 3<" ROOT "/.git/config>",
		"openat(AT_FDCWD<" ROOT ">, {../ck2/x}, O_RDONLY) = 3</w/ck2/x>",
		"openat(AT_FDCWD<" ROOT ">, {./lib/../util.sh}, O_RDONLY) = 3<" ROOT "/util.sh>",
		"readlink({link}, {target}, 4095) = 6",
		"renameat2(AT_FDCWD<" ROOT ">, {tmp.1}, AT_FDCWD<" ROOT ">, {test.sh}, RENAME_NOREPLACE) = 0",
		"openat(AT_FDCWD<" ROOT ">, {test.sh}, O_RDONLY) = 3<" ROOT "/test.sh>",
		"newfstatat(AT_FDCWD<" ROOT ">, {unittest}, 0x7ffe, 0) = -1 ENOTDIR (Not a directory)",
		"+++ exited with 0 +++",
		"openat(AT_FDCWD<" ROOT ">, {half}, O_RDONLY <unfinished ...>",
		NULL
	};
	static const char *const read[] = { "Makefile", "link", "src", "src/a.c",
		"util.sh", NULL };
	static const char *const missing[] = { "GNUmakefile", "unittest", NULL };
	static const char *const listed[] = { ".", NULL };
	static const char *const written[] = { "build", "out.o", "test.sh",
		"tmp.1", NULL };
	struct trace_paths paths = TRACE_PATHS_INIT;
	char *dir = new_dir();

	(void)state;
	write_trace(dir, 10, lines);
	assert_int_equal(trace_collect(dir, ROOT, &paths), 0);
	assert_list(&paths.read, read);
	assert_list(&paths.missing, missing);
	assert_list(&paths.listed, listed);
	assert_list(&paths.written, written);
	assert_false(paths.truncated);
	trace_paths_release(&paths);
	path_remove_tree(dir);
	free(dir);
}

/*
 * Every process counts: one started through env, one that calls pivot_root
 * (a check can do both) are traced like the rest.
 */
static void
test_every_process_counts(void **state)
{
	static const char *const env[] = {
		"execve({/usr/bin/env}, [{env}, {-i}], 0x7ffc /* 3 vars */) = 0",
		"execve({/usr/bin/bwrap}, [{bwrap}], 0x7ffc /* 0 vars */) = 0",
		"newfstatat(AT_FDCWD<" ROOT ">, {" ROOT "/secret}, 0x7ffe, 0) = 0",
		NULL
	};
	static const char *const setup[] = {
		"mkdir({newroot}, 0755) = 0",
		"pivot_root({/tmp}, {oldroot}) = 0",
		"openat(AT_FDCWD</>, {" ROOT "/planted}, O_RDONLY) = 3<" ROOT "/planted>",
		NULL
	};
	static const char *const command[] = {
		"execve({/bin/sh}, [{sh}], 0x7ffc /* 1 var */) = 0",
		"openat(AT_FDCWD<" ROOT ">, {test.sh}, O_RDONLY) = 3<" ROOT "/test.sh>",
		NULL
	};
	static const char *const read[] = { "planted", "secret", "test.sh", NULL };
	static const char *const written[] = { "newroot", NULL };
	struct trace_paths paths = TRACE_PATHS_INIT;
	char *dir = new_dir();

	(void)state;
	write_trace(dir, 1, env);
	write_trace(dir, 2, setup);
	write_trace(dir, 3, command);
	assert_int_equal(trace_collect(dir, ROOT, &paths), 0);
	assert_list(&paths.read, read);
	assert_list(&paths.written, written);
	trace_paths_release(&paths);
	path_remove_tree(dir);
	free(dir);
}

/* A path looked for and then found (another process made it) is read. */
static void
test_found_later_is_not_missing(void **state)
{
	static const char *const first[] = {
		"newfstatat(AT_FDCWD<" ROOT ">, {gen.h}, 0x7ffe, 0) = -1 ENOENT (No such file or directory)",
		NULL
	};
	static const char *const second[] = {
		"openat(AT_FDCWD<" ROOT ">, {gen.h}, O_RDONLY) = 3<" ROOT "/gen.h>",
		NULL
	};
	static const char *const read[] = { "gen.h", NULL };
	static const char *const none[] = { NULL };
	struct trace_paths paths = TRACE_PATHS_INIT;
	char *dir = new_dir();

	(void)state;
	write_trace(dir, 1, first);
	write_trace(dir, 2, second);
	assert_int_equal(trace_collect(dir, ROOT, &paths), 0);
	assert_list(&paths.read, read);
	assert_list(&paths.missing, none);
	trace_paths_release(&paths);
	path_remove_tree(dir);
	free(dir);
}

/*
 * A child starts in the directory its parent was in when it started it
 * (a pid the sandbox's namespace gives, translated): ./runner after the
 * shell's cd is t/runner.
 */
static void
test_child_starts_where_its_parent_is(void **state)
{
	static const char *const shell[] = {
		"execve({/bin/sh}, [{sh}], 0x7ffc /* 1 var */) = 0",
		"chdir({" ROOT "/t}) = 0",
		"vfork()                                 = 3 /* 1066 in strace's PID NS */",
		"chdir({sub}) = 0",
		"clone(child_stack=NULL, flags=SIGCHLD) = 4 /* 1067 in strace's PID NS */",
		NULL
	};
	static const char *const first[] = {
		"execve({./runner}, [{./runner}], 0x55bd /* 37 vars */) = -1 ENOENT (No such file or directory)",
		NULL
	};
	static const char *const second[] = {
		"access({helper}, R_OK) = -1 ENOENT (No such file or directory)",
		NULL
	};
	static const char *const missing[] = { "t/runner", "t/sub/helper", NULL };
	struct trace_paths paths = TRACE_PATHS_INIT;
	char *dir = new_dir();

	(void)state;
	/* The children first in the directory: order must not matter. */
	write_trace(dir, 1067, second);
	write_trace(dir, 1066, first);
	write_trace(dir, 1065, shell);
	assert_int_equal(trace_collect(dir, ROOT, &paths), 0);
	assert_list(&paths.missing, missing);
	trace_paths_release(&paths);
	path_remove_tree(dir);
	free(dir);
}

static void
test_find_above(void **state)
{
	struct trace_paths paths = TRACE_PATHS_INIT;

	(void)state;
	strlist_add(&paths.missing, "unittest");
	strlist_add(&paths.missing, "a/b");
	strlist_add(&paths.missing, "unittest");
	trace_paths_sort(&paths);
	assert_int_equal(paths.missing.count, 2);
	assert_string_equal(trace_paths_find(&paths.missing, "unittest/__init__.py",
	    true), "unittest");
	assert_null(trace_paths_find(&paths.missing, "unittest/__init__.py",
	    false));
	assert_string_equal(trace_paths_find(&paths.missing, "a/b/c/d", true),
	    "a/b");
	assert_null(trace_paths_find(&paths.missing, "a/bc", true));
	assert_null(trace_paths_find(&paths.missing, "a", true));
	trace_paths_release(&paths);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds_of_access),
		cmocka_unit_test(test_every_process_counts),
		cmocka_unit_test(test_found_later_is_not_missing),
		cmocka_unit_test(test_child_starts_where_its_parent_is),
		cmocka_unit_test(test_find_above),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
