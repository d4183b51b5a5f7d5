/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for util/glob: checking globs, covering a literal path, and
 * the exact overlap test between two globs (a glob covers what it matches
 * and everything below it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/glob.h"

/* Mismatches found by expect_valid() / expect_invalid() in this test. */
static size_t check_failures;

static void
expect_valid(const char *pattern)
{
	struct buf why = BUF_INIT;
	int rc = glob_check(pattern, &why);

	if (rc != 0) {
		print_error("glob_check(\"%s\") = %d (%s), want 0\n", pattern, rc,
		    why.buf);
		check_failures++;
	} else if (why.len != 0) {
		print_error("glob_check(\"%s\") succeeded but wrote why \"%s\"\n",
		    pattern, why.buf);
		check_failures++;
	}
	buf_release(&why);
}

static void
expect_invalid(const char *pattern)
{
	struct buf why = BUF_INIT;
	int rc = glob_check(pattern, &why);

	if (rc != -1) {
		print_error("glob_check(\"%s\") = %d, want -1\n", pattern, rc);
		check_failures++;
	} else if (why.len == 0 || memchr(why.buf, '\n', why.len)) {
		print_error("glob_check(\"%s\") reason is not one line: \"%s\"\n",
		    pattern, why.buf);
		check_failures++;
	}
	buf_release(&why);
}

static void
test_check_refuses(void **state)
{
	check_failures = 0;
	expect_invalid("");
	expect_invalid("/");
	expect_invalid("/etc/passwd");
	expect_invalid("/src/*.c");
	expect_invalid(".");
	expect_invalid("..");
	expect_invalid("./src");
	expect_invalid("../src");
	expect_invalid("src/.");
	expect_invalid("src/..");
	expect_invalid("src/./x.c");
	expect_invalid("src/../x.c");
	expect_invalid("a/../../b");
	expect_invalid("src//x.c");
	expect_invalid("//");
	expect_invalid("a//");
	expect_invalid("[abc");
	expect_invalid("src/[a-z.c");
	expect_invalid("[!");
	expect_invalid("[");
	expect_invalid("x\\");
	expect_invalid("\\");
	expect_invalid("src/a\\");
	if (check_failures)
		fail_msg("%zu globs accepted that must be refused", check_failures);
}

static void
test_check_refusal_appends(void **state)
{
	struct buf why = BUF_INIT;

	buf_adds(&why, "prefix: ");
	assert_int_equal(glob_check("/abs", &why), -1);
	assert_true(why.len > strlen("prefix: "));
	assert_memory_equal(why.buf, "prefix: ", strlen("prefix: "));
	buf_release(&why);
}

static void
test_check_accepts(void **state)
{
	check_failures = 0;
	expect_valid("a");
	expect_valid("src");
	expect_valid("src/");
	expect_valid("docs/");
	expect_valid("src/main.c");
	expect_valid("*.c");
	expect_valid("src/*.c");
	expect_valid("src/**");
	expect_valid("**");
	expect_valid("**/*.md");
	expect_valid("src/*/x.c");
	expect_valid("?");
	expect_valid("[ab].c");
	expect_valid("[a-c].c");
	expect_valid("[!a].c");
	expect_valid("[^a].c");
	expect_valid("a\\*b");
	expect_valid("\\[notaclass");
	expect_valid("a\\\\b"); /* escaped backslash */
	expect_valid("a\\\\/"); /* a directory named a + backslash */
	expect_valid(".hidden");
	expect_valid("src/.gitignore");
	expect_valid("...");
	expect_valid("a..b");
	expect_valid("config/app.yml");
	expect_valid("a/**/b");
	if (check_failures)
		fail_msg("%zu valid globs refused", check_failures);
}

struct pair {
	const char *a, *b;
	bool overlap;
};

static const struct pair pairs[] = {
	/* From the brief. */
	{ "config/*.yml", "config/app.yml", true },
	{ "src/**", "src/a/b.c", true },
	{ "src/*.c", "src/a/b.c", false },
	{ "*.c", "*.h", false },
	{ "[ab].c", "c.c", false },
	{ "[a-c].c", "b.c", true },
	{ "[!a].c", "a.c", false },
	{ "[^a].c", "a.c", false },
	{ "[!a].c", "b.c", true },
	{ "**/*.md", "README.md", true },
	{ "**/*.md", "docs/x/y.md", true },
	{ "docs", "docs/x.md", true },
	{ "docs/", "docs/x.md", true },
	{ "docs/", "docs", true },
	{ "doc", "docs", false },
	{ "docs/", "doc", false },
	{ "a*", "*b", true },
	{ "src/*/x.c", "src/**", true },
	{ "src/a/*.c", "src/b/*.c", false },
	{ "?", "ab", false },
	{ "?", "a", true },
	{ "?", "a/b", true }, /* ? matches "a", which covers a/b */
	{ "a\\*b", "a*b", true },
	{ "a\\*b", "axb", false },
	{ "a\\*b", "a\\*b", true },
	/* Plain paths. */
	{ "a", "a", true },
	{ "a", "b", false },
	{ "a/b/c", "a", true },
	{ "a/b/c", "a/b", true },
	{ "a/b/c", "a/b/d", false },
	{ "a/b", "ab", false },
	{ "src/main.c", "src/main.h", false },
	/* Star stays within a segment. */
	{ "*", "a/b", true },
	{ "a*b", "ax/yb", false },
	{ "a*", "a/b", true },
	{ "src/*.c", "src/b.c", true },
	{ "src/*.c", "lib/b.c", false },
	{ "*.c", "src/x.c", false },
	{ "x*y*z", "xaaz", false },
	{ "x*y*z", "x*z", true }, /* both globs: xyz */
	{ "x*y*z", "xyz", true },
	{ "*a*", "*b*", true },
	{ "a*", "b*", false },
	{ "*a", "*b", false },
	{ "*.c", "*.cc", false },
	{ "*.c", "x*", true },
	/* ? never matches '/'. */
	{ "a?c", "a/c", false },
	{ "a?c", "abc", true },
	{ "??", "?", false },
	{ "??", "*", true },
	{ "???", "a*b", true },
	{ "?", "", true }, /* invalid: overlaps everything */
	/* Double star. */
	{ "**", "anything/at/all", true },
	{ "**", "*.c", true },
	{ "a/**/b", "a/b", true },
	{ "a/**/b", "a/x/y/b", true },
	{ "a/**/b", "a/x/c", true }, /* a/x/c/b is below a/x/c */
	{ "a/**/b", "c/b", false },
	{ "a/**", "a", true },
	{ "a/**", "ab", false },
	{ "a**b", "ax/yb", true },
	{ "src/**/test_*.c", "src/unit/test_x.c", true },
	{ "src/**/x", "lib/a", false },
	{ "**/*.md", "src/main.c", true }, /* src/main.c/n.md */
	{ "src/**/*.c", "src/*.h", true }, /* src/x.h/y.c */
	{ "**/a", "**/b", true },
	/* Classes. */
	{ "[a-c]", "[c-e]", true },
	{ "[a-b]", "[c-d]", false },
	{ "[!a-z]", "[a-z]", false },
	{ "[!a]", "[!b]", true },
	{ "[abc]x", "[def]x", false },
	{ "[abc]x", "?x", true },
	{ "[abc]", "d", false },
	{ "[0-9][0-9]", "1x", false },
	{ "[0-9][0-9]", "42", true },
	{ "[!x]", "/", true }, /* "/" is invalid: overlaps everything */
	{ "[a-c]", "B", false },
	/* Escapes. */
	{ "\\[ab]", "[ab]", false },
	{ "\\[ab]", "?ab]", true },
	{ "\\[ab]", "a", false },
	{ "\\?", "x", false },
	{ "\\?", "?", true },
	{ "\\a", "a", true },
	{ "a\\\\b", "a?b", true },
	{ "a\\\\b", "a/b", false },
	/* Invalid globs overlap everything. */
	{ "", "x", true },
	{ "[abc", "zzz", true },
	{ "/abs", "rel", true },
	{ "../x", "y", true },
	{ "a//b", "c", true },
	{ "x\\", "y", true },
};

static void
test_overlap_cases(void **state)
{
	size_t i, failures = 0;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		bool got = glob_overlap(pairs[i].a, pairs[i].b);

		if (got != pairs[i].overlap) {
			print_error("glob_overlap(\"%s\", \"%s\") = %s, want %s\n",
			    pairs[i].a, pairs[i].b, got ? "true" : "false",
			    pairs[i].overlap ? "true" : "false");
			failures++;
		}
	}
	if (failures)
		fail_msg("%zu overlap cases wrong", failures);
}

static void
test_overlap_symmetric(void **state)
{
	size_t i, j, n = sizeof(pairs) / sizeof(pairs[0]), failures = 0;

	/* Every pair in both orders, and every cross pair of the patterns. */
	for (i = 0; i < n; i++) {
		const char *x[2] = { pairs[i].a, pairs[i].b };

		for (j = 0; j < n; j++) {
			const char *y[2] = { pairs[j].a, pairs[j].b };
			int p, q;

			for (p = 0; p < 2; p++)
				for (q = 0; q < 2; q++) {
					bool ab = glob_overlap(x[p], y[q]);
					bool ba = glob_overlap(y[q], x[p]);

					if (ab != ba) {
						print_error("overlap(\"%s\", \"%s\") = %d but "
						    "overlap(\"%s\", \"%s\") = %d\n",
						    x[p], y[q], ab, y[q], x[p], ba);
						failures++;
					}
				}
		}
	}
	if (failures)
		fail_msg("%zu asymmetric pairs", failures);
}

static void
test_overlap_reflexive(void **state)
{
	size_t i, n = sizeof(pairs) / sizeof(pairs[0]);

	/* Every glob covers something, so it overlaps itself. */
	for (i = 0; i < n; i++) {
		if (!glob_overlap(pairs[i].a, pairs[i].a))
			fail_msg("\"%s\" does not overlap itself", pairs[i].a);
		if (!glob_overlap(pairs[i].b, pairs[i].b))
			fail_msg("\"%s\" does not overlap itself", pairs[i].b);
	}
}

/* Overlap must agree with covers for a literal path (no metacharacters). */
static void
test_overlap_agrees_with_covers(void **state)
{
	static const char *const globs[] = { "src/**", "src/*.c", "src",
		"src/", "*.c", "**/*.md", "[a-c].c", "[!a].c", "?", "a*", "*b",
		"a/**/b", "docs", "doc" };
	static const char *const paths[] = { "src/x.c", "src/a/b.c", "src",
		"b.c", "a.c", "d.c", "README.md", "docs/x/y.md", "a", "ab",
		"b", "a/b", "a/x/y/b", "docs", "docs/x.md", "x.c" };
	size_t i, j;

	for (i = 0; i < sizeof(globs) / sizeof(globs[0]); i++)
		for (j = 0; j < sizeof(paths) / sizeof(paths[0]); j++) {
			bool c = glob_covers(globs[i], paths[j]);
			bool o = glob_overlap(globs[i], paths[j]);

			/* covers => overlap always. */
			if (c && !o)
				fail_msg("covers(\"%s\", \"%s\") but no overlap",
				    globs[i], paths[j]);
		}
}

struct cover {
	const char *pattern, *path;
	bool covers;
};

static const struct cover covers[] = {
	{ "src/**", "src/x.c", true },
	{ "src/**", "src/a/b/c.h", true },
	{ "src/**", "srcx/a", false },
	{ "src/**", "lib/x.c", false },
	{ "src", "src/x.c", true },
	{ "src", "src", true },
	{ "src", "src/a/b/c", true },
	{ "src", "srcx", false },
	{ "src", "sr", false },
	{ "src", "lib/src", false },
	{ "src/", "src/x.c", true },
	{ "src/", "src", true },
	{ "src/x.c", "src", false }, /* a file below does not cover its dir */
	{ "src/*.c", "src/a/b.c", false },
	{ "src/*.c", "src/b.c", true },
	{ "src/*.c", "src/b.h", false },
	{ "*.md", "README.md", true },
	{ "*.md", "docs/README.md", false },
	{ "**/*.md", "README.md", true },
	{ "**/*.md", "docs/x/y.md", true },
	{ "**/*.md", "docs/x/y.c", false },
	{ "**", "anything/here", true },
	{ "a/**/b", "a/b", true },
	{ "a/**/b", "a/x/y/b", true },
	{ "a/**/b", "a/b/c", true },
	{ "a/**/b", "a/c", false },
	{ "?", "a", true },
	{ "?", "a/b", true },
	{ "?", "ab", false },
	{ "[a-c].c", "b.c", true },
	{ "[a-c].c", "d.c", false },
	{ "[!a].c", "b.c", true },
	{ "[!a].c", "a.c", false },
	{ "doc", "docs", false },
	{ "config/*.yml", "config/app.yml", true },
	/* A path is literal: its * and [ are ordinary characters. */
	{ "a\\*b", "a*b", true },
	{ "a*b", "a*b", true },
	{ "a\\*b", "axb", false },
	{ "axb", "a*b", false },
	{ "a?b", "a*b", true },
	{ "x[1]", "x1", true },
	{ "x[1]", "x[1]", false },
	{ "x\\[1]", "x[1]", true },
	{ "x\\[1]", "x1", false },
	{ "*", "x[1]", true },
	{ "src", "src/[ab]*.c", true },
	{ "src/a.c", "src/[ab].c", false },
	{ "src/?.c", "src/*.c", true },
	{ "src/\\*.c", "src/*.c", true },
	{ "src/\\*.c", "src/x.c", false },
	/* "**" + "/" matches zero or more whole directories, not part of a
	 * segment: a/xb is not a/ + dirs + b. */
	{ "**/a", "ba", false },
	{ "**/a", "x/ba", false },
	{ "**/a", "x/a", true },
	{ "a/**/b", "a/xb", false },
	{ "a/**/b", "a/x/yb", false },
	{ "**/Makefile", "src/GNUMakefile", false },
	{ "**/Makefile", "src/Makefile", true },
	{ "src/**/test_*.c", "src/unit_test_x.c", false },
	{ "src/**/test_*.c", "src/unit/test_x.c", true },
	{ "src/**/test_*.c", "src/test_x.c", true },
	/* "**" not followed by '/' may end inside a segment. */
	{ "a**b", "axb", true },
	{ "a**b", "ax/yb", true },
	/* A directory whose name ends in a backslash, named with a slash. */
	{ "a\\\\", "a\\/x", true },
	{ "a\\\\/", "a\\/x", true },
	{ "a\\\\/", "a\\", true },
};

static void
test_covers(void **state)
{
	size_t i, failures = 0;

	for (i = 0; i < sizeof(covers) / sizeof(covers[0]); i++) {
		bool got = glob_covers(covers[i].pattern, covers[i].path);

		if (got != covers[i].covers) {
			print_error("glob_covers(\"%s\", \"%s\") = %s, want %s\n",
			    covers[i].pattern, covers[i].path,
			    got ? "true" : "false",
			    covers[i].covers ? "true" : "false");
			failures++;
		}
	}
	if (failures)
		fail_msg("%zu covers cases wrong", failures);
}

static void
test_long_patterns(void **state)
{
	char a[4096], b[4096];
	size_t i;

	/* Many stars: must stay fast (no exponential backtracking). */
	for (i = 0; i < 60; i++) {
		a[2 * i] = '*';
		a[2 * i + 1] = 'a';
	}
	a[120] = 'b';
	a[121] = '\0';
	memset(b, 'a', 200);
	b[200] = '\0';
	assert_false(glob_covers(a, b));
	assert_false(glob_overlap(a, b));
	b[199] = 'b';
	assert_true(glob_covers(a, b));
	assert_true(glob_overlap(a, b));

	/* Many double stars. */
	memcpy(a, "q/", 2);
	for (i = 0; i < 40; i++)
		memcpy(a + 2 + 5 * i, "**/x/", 5);
	memcpy(a + 202, "y", 2);
	{
		struct buf why = BUF_INIT;

		assert_int_equal(glob_check(a, &why), 0);
		buf_release(&why);
	}
	assert_true(glob_overlap(a, "**/y"));
	assert_true(glob_overlap(a, "q/x/x/x/y")); /* q/x/x/x/y/x/.../x/y */
	assert_false(glob_overlap(a, "z"));
	assert_false(glob_covers(a, "q/x/x/x/y"));
	/* Exactly 40 x segments then y: covered; 39: not. */
	memcpy(b, "q/", 2);
	for (i = 0; i < 40; i++)
		memcpy(b + 2 + 2 * i, "x/", 2);
	memcpy(b + 82, "y", 2);
	assert_true(glob_covers(a, b));
	assert_false(glob_covers(a, b + 2)); /* without the q/ */
	memcpy(b + 80, "y", 2);
	assert_false(glob_covers(a, b));
}

/*
 * A reference model, written from the header's definition, used to check
 * glob_covers() and glob_overlap() exhaustively on small patterns: a plain
 * backtracking matcher, and overlap decided by trying every valid path up
 * to MODEL_LEN characters over the alphabet a, b, c and '/'.
 */
#define MODEL_LEN 7

/* Patterns of up to this many tokens ($GLOB_MODEL_TOKENS for more). */
static size_t model_tokens = 3;

static bool
ref_class(const char **pp, char c)
{
	const char *p = *pp + 1; /* after '[' */
	bool negate = false, hit = false;

	if (*p == '!' || *p == '^') {
		negate = true;
		p++;
	}
	for (const char *start = p; *p && (*p != ']' || p == start); p++) {
		char lo = *p, hi = *p;

		if (p[1] == '-' && p[2] && p[2] != ']') {
			hi = p[2];
			p += 2;
		}
		if (c >= lo && c <= hi)
			hit = true;
	}
	*pp = p + 1; /* after ']' */
	return c != '/' && (negate ? !hit : hit);
}

static bool
ref_match(const char *p, const char *end, const char *s)
{
	if (p == end)
		return *s == '\0';
	if (p[0] == '*' && p + 1 < end && p[1] == '*') {
		const char *q = p;

		while (q < end && *q == '*')
			q++;
		if (q < end && *q == '/' && ref_match(q + 1, end, s))
			return true; /* zero directories */
		for (const char *t = s;; t++) {
			if (ref_match(q, end, t))
				return true;
			if (*t == '\0')
				return false;
		}
	}
	if (p[0] == '*') {
		for (const char *t = s;; t++) {
			if (ref_match(p + 1, end, t))
				return true;
			if (*t == '\0' || *t == '/')
				return false;
		}
	}
	if (*s == '\0')
		return false;
	if (p[0] == '?')
		return *s != '/' && ref_match(p + 1, end, s + 1);
	if (p[0] == '[') {
		const char *q = p;

		if (!ref_class(&q, *s))
			return false;
		return ref_match(q, end, s + 1);
	}
	return *p == *s && ref_match(p + 1, end, s + 1);
}

/* Pattern covers path: matches it, or a directory above it. */
static bool
ref_covers(const char *pattern, const char *path)
{
	size_t len = strlen(pattern);
	char prefix[64];

	while (len > 1 && pattern[len - 1] == '/')
		len--;
	for (size_t i = 0;; i++) {
		if (path[i] == '/' || path[i] == '\0') {
			memcpy(prefix, path, i);
			prefix[i] = '\0';
			if (ref_match(pattern, pattern + len, prefix))
				return true;
		}
		if (path[i] == '\0')
			return false;
	}
}

/* A pattern made of the model's tokens is valid unless it starts with '/'
 * or has an empty segment (a single trailing '/' is allowed). */
static bool
ref_valid(const char *pattern)
{
	size_t len = strlen(pattern);

	if (len == 0 || pattern[0] == '/' || strstr(pattern, "//"))
		return false;
	return true;
}

struct model {
	char (*paths)[MODEL_LEN + 1];
	size_t npaths;
	char (*patterns)[32];
	size_t npatterns;
	uint64_t **bits; /* bits[i]: the paths pattern i covers */
};

static void
model_paths(struct model *m, char *cur, size_t len)
{
	static const char alphabet[] = "abc/";

	if (len > 0 && cur[0] != '/' && cur[len - 1] != '/' &&
	    strstr(cur, "//") == NULL) {
		memcpy(m->paths[m->npaths], cur, len + 1);
		m->npaths++;
	}
	if (len == MODEL_LEN)
		return;
	for (size_t k = 0; k < 4; k++) {
		cur[len] = alphabet[k];
		cur[len + 1] = '\0';
		model_paths(m, cur, len + 1);
	}
	cur[len] = '\0';
}

static void
model_patterns(struct model *m, char *cur, size_t tokens)
{
	static const char *const vocab[] = { "a", "b", "*", "**", "?", "[ab]",
		"[!a]", "/" };
	size_t len = strlen(cur);

	if (tokens > 0 && ref_valid(cur)) {
		struct buf why = BUF_INIT;

		if (glob_check(cur, &why) == 0)
			strcpy(m->patterns[m->npatterns++], cur);
		buf_release(&why);
	}
	if (tokens == model_tokens)
		return;
	for (size_t k = 0; k < sizeof(vocab) / sizeof(vocab[0]); k++) {
		strcpy(cur + len, vocab[k]);
		model_patterns(m, cur, tokens + 1);
		cur[len] = '\0';
	}
}

static void
test_model_exhaustive(void **state)
{
	struct model m = { 0 };
	char cur[64] = "";
	size_t words, cover_bad = 0, overlap_bad = 0;
	const char *env = getenv("GLOB_MODEL_REPORT");
	size_t max_report = env ? (size_t)atoi(env) : 10;

	if (getenv("GLOB_MODEL_TOKENS"))
		model_tokens = (size_t)atoi(getenv("GLOB_MODEL_TOKENS"));
	m.paths = malloc(30000 * sizeof(*m.paths));
	m.patterns = malloc(80000 * sizeof(*m.patterns));
	assert_non_null(m.paths);
	assert_non_null(m.patterns);
	model_paths(&m, cur, 0);
	cur[0] = '\0';
	model_patterns(&m, cur, 0);
	assert_true(m.npaths > 5000);
	assert_true(m.npatterns > 300);
	words = (m.npaths + 63) / 64;
	m.bits = calloc(m.npatterns, sizeof(*m.bits));
	assert_non_null(m.bits);
	for (size_t i = 0; i < m.npatterns; i++) {
		m.bits[i] = calloc(words, sizeof(uint64_t));
		assert_non_null(m.bits[i]);
		for (size_t j = 0; j < m.npaths; j++) {
			bool ref = ref_covers(m.patterns[i], m.paths[j]);

			if (ref)
				m.bits[i][j / 64] |= 1ull << (j % 64);
			/* glob_covers on the shorter paths (it is slower). */
			if (strlen(m.paths[j]) <= 4 &&
			    glob_covers(m.patterns[i], m.paths[j]) != ref) {
				if (cover_bad++ < max_report)
					print_error("glob_covers(\"%s\", \"%s\") = %d, "
					    "model says %d\n", m.patterns[i],
					    m.paths[j], !ref, ref);
			}
		}
	}
	for (size_t i = 0; i < m.npatterns; i++)
		for (size_t k = i; k < m.npatterns; k++) {
			bool ref = false, got;

			for (size_t w = 0; w < words && !ref; w++)
				if (m.bits[i][w] & m.bits[k][w])
					ref = true;
			got = glob_overlap(m.patterns[i], m.patterns[k]);
			if (got != ref) {
				if (overlap_bad++ < max_report)
					print_error("glob_overlap(\"%s\", \"%s\") = %d, "
					    "model says %d (paths up to %d chars)\n",
					    m.patterns[i], m.patterns[k], got, ref,
					    MODEL_LEN);
			}
		}
	for (size_t i = 0; i < m.npatterns; i++)
		free(m.bits[i]);
	free(m.bits);
	free(m.paths);
	free(m.patterns);
	if (cover_bad || overlap_bad)
		fail_msg("%zu covers and %zu overlap results disagree with the "
		    "model", cover_bad, overlap_bad);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_refuses),
		cmocka_unit_test(test_check_refusal_appends),
		cmocka_unit_test(test_check_accepts),
		cmocka_unit_test(test_overlap_cases),
		cmocka_unit_test(test_overlap_symmetric),
		cmocka_unit_test(test_overlap_reflexive),
		cmocka_unit_test(test_overlap_agrees_with_covers),
		cmocka_unit_test(test_covers),
		cmocka_unit_test(test_long_patterns),
		cmocka_unit_test(test_model_exhaustive),
	};

	return cmocka_run_group_tests_name("glob", tests, NULL, NULL);
}
