/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/glob.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/*
 * A compiled glob is a sequence of tokens, each matching one character from
 * a set (an empty set matches nothing). A looping token may match any
 * number of characters. Epsilon moves, taken without consuming: to the next
 * token when eps_next is set (every loop, so it may match nothing), and to
 * skip_to when it is >= 0.
 */
struct token {
	uint8_t set[32]; /* bit c set when byte c matches */
	bool loop;       /* consumes and stays (for * and **) */
	bool eps_next;   /* may move on to the next token without consuming */
	int skip_to;     /* extra epsilon target, or -1 */
};

struct pattern {
	struct token *tokens;
	size_t count, alloc;
};

static void
set_add(uint8_t *set, unsigned c)
{
	set[c >> 3] |= (uint8_t)(1u << (c & 7));
}

static struct token *
push(struct pattern *p)
{
	struct token *t;

	xgrow((void **)&p->tokens, &p->alloc, p->count + 1, sizeof(*t));
	t = &p->tokens[p->count++];
	memset(t, 0, sizeof(*t));
	t->skip_to = -1;
	return t;
}

static void
push_literal(struct pattern *p, unsigned char c)
{
	set_add(push(p)->set, c);
}

/* All bytes except NUL and, unless slash_too, '/'. */
static void
fill_any(uint8_t *set, bool slash_too)
{
	memset(set, 0xff, 32);
	set[0] &= (uint8_t)~1u;
	if (!slash_too)
		set['/' >> 3] &= (uint8_t)~(1u << ('/' & 7));
}

/*
 * Parse a class starting after '['. Returns the index after ']', or 0 when
 * the class is not closed.
 */
static size_t
parse_class(const char *s, size_t i, uint8_t *set)
{
	bool negate = false;
	uint8_t tmp[32] = { 0 };
	size_t start;
	int k;

	if (s[i] == '!' || s[i] == '^') {
		negate = true;
		i++;
	}
	start = i;
	while (s[i] != '\0' && (s[i] != ']' || i == start)) {
		unsigned lo = (unsigned char)s[i], hi;

		if (s[i] == '\\' && s[i + 1] != '\0')
			lo = (unsigned char)s[++i];
		hi = lo;
		if (s[i + 1] == '-' && s[i + 2] != ']' && s[i + 2] != '\0') {
			hi = (unsigned char)s[i + 2];
			if (s[i + 2] == '\\' && s[i + 3] != '\0') {
				hi = (unsigned char)s[i + 3];
				i++;
			}
			i += 2;
		}
		for (unsigned c = lo; c <= hi; c++)
			set_add(tmp, c);
		i++;
	}
	if (s[i] != ']')
		return 0;
	for (k = 0; k < 32; k++)
		set[k] = negate ? (uint8_t)~tmp[k] : tmp[k];
	set[0] &= (uint8_t)~1u;
	set['/' >> 3] &= (uint8_t)~(1u << ('/' & 7));
	return i + 1;
}

/*
 * Compile s into p. A pattern also covers what lies below it, so when
 * with_tail is set an optional "/<anything>" is appended. Returns 0, or -1
 * when s is not a valid glob.
 */
static int
compile(const char *s, bool with_tail, struct pattern *p)
{
	size_t i = 0, len = strlen(s);

	/* "dir/" names the directory, like "dir" (unless the / is escaped). */
	if (len > 1 && s[len - 1] == '/') {
		size_t backslashes = 0;

		while (backslashes < len - 1 && s[len - 2 - backslashes] == '\\')
			backslashes++;
		if (backslashes % 2 == 0)
			len--;
	}
	while (i < len) {
		struct token *t;

		switch (s[i]) {
		case '*':
			if (s[i + 1] == '*') {
				bool directories = false;

				i += 2;
				while (s[i] == '*')
					i++;
				if (i < len && s[i] == '/') {
					directories = true;
					i++;
				}
				if (directories) {
					/*
					 * "**" + "/" is zero or more whole
					 * directories, "(.+/)?": a junction that
					 * skips it all, else one character, any
					 * more, and the slash.
					 */
					struct token *junction = push(p);

					junction->eps_next = true;
					junction->skip_to = (int)p->count + 3;
					fill_any(push(p)->set, true);
				}
				t = push(p);
				fill_any(t->set, true);
				t->loop = t->eps_next = true;
				if (directories)
					push_literal(p, '/');
			} else {
				t = push(p);
				fill_any(t->set, false);
				t->loop = t->eps_next = true;
				i++;
			}
			break;
		case '?':
			fill_any(push(p)->set, false);
			i++;
			break;
		case '[': {
			uint8_t set[32];
			size_t next = parse_class(s, i + 1, set);

			if (next == 0)
				return -1;
			memcpy(push(p)->set, set, sizeof(set));
			i = next;
			break;
		}
		case '\\':
			if (s[i + 1] == '\0')
				return -1;
			push_literal(p, (unsigned char)s[i + 1]);
			i += 2;
			break;
		default:
			push_literal(p, (unsigned char)s[i]);
			i++;
		}
	}
	if (with_tail) {
		struct token *slash = push(p), *rest;

		set_add(slash->set, '/');
		slash->skip_to = (int)p->count + 1;
		rest = push(p);
		fill_any(rest->set, true);
		rest->loop = rest->eps_next = true;
	}
	return 0;
}

static bool
sets_meet(const uint8_t *a, const uint8_t *b)
{
	for (int k = 0; k < 32; k++)
		if (a[k] & b[k])
			return true;
	return false;
}

/*
 * Whether the languages of a and b intersect: a search over pairs of
 * positions (i in a, j in b), where a position at the end of a pattern
 * accepts. Each state is visited once.
 */
static bool
intersect(const struct pattern *a, const struct pattern *b)
{
	size_t width = b->count + 1;
	size_t states = (a->count + 1) * width;
	bool *seen = xcalloc(states, sizeof(bool));
	size_t *stack = xmalloc(states * sizeof(size_t));
	size_t top = 0;
	bool found = false;

	seen[0] = true;
	stack[top++] = 0;
	while (top > 0 && !found) {
		size_t s = stack[--top];
		size_t i = s / width, j = s % width;
		size_t next[5];
		int n = 0;

		if (i == a->count && j == b->count) {
			found = true;
			break;
		}
		if (i < a->count) {
			if (a->tokens[i].eps_next)
				next[n++] = (i + 1) * width + j;
			if (a->tokens[i].skip_to >= 0)
				next[n++] = (size_t)a->tokens[i].skip_to * width + j;
		}
		if (j < b->count) {
			if (b->tokens[j].eps_next)
				next[n++] = i * width + j + 1;
			if (b->tokens[j].skip_to >= 0)
				next[n++] = i * width + (size_t)b->tokens[j].skip_to;
		}
		if (i < a->count && j < b->count &&
		    sets_meet(a->tokens[i].set, b->tokens[j].set)) {
			size_t ni = a->tokens[i].loop ? i : i + 1;
			size_t nj = b->tokens[j].loop ? j : j + 1;

			next[n++] = ni * width + nj;
		}
		for (int k = 0; k < n; k++) {
			if (!seen[next[k]]) {
				seen[next[k]] = true;
				stack[top++] = next[k];
			}
		}
	}
	free(seen);
	free(stack);
	return found;
}

static bool
match_patterns(const char *a, bool a_tail, const char *b, bool b_tail)
{
	struct pattern pa = { 0 }, pb = { 0 };
	bool result = true;

	if (compile(a, a_tail, &pa) == 0 && compile(b, b_tail, &pb) == 0)
		result = intersect(&pa, &pb);
	free(pa.tokens);
	free(pb.tokens);
	return result;
}

bool
glob_overlap(const char *a, const char *b)
{
	struct buf why = BUF_INIT;
	bool invalid = glob_check(a, &why) < 0 || glob_check(b, &why) < 0;

	buf_release(&why);
	/* When in doubt, they overlap. */
	return invalid || match_patterns(a, true, b, true);
}

bool
glob_covers(const char *pattern, const char *path)
{
	struct buf lit = BUF_INIT;
	bool result;

	/* The path as a pattern of literals. */
	for (const char *p = path; *p; p++) {
		if (strchr("*?[\\", *p))
			buf_addch(&lit, '\\');
		buf_addch(&lit, *p);
	}
	result = match_patterns(pattern, true, lit.buf, false);
	buf_release(&lit);
	return result;
}

int
glob_check(const char *pattern, struct buf *why)
{
	struct pattern p = { 0 };
	const char *seg = pattern;
	int rc;

	if (*pattern == '\0') {
		buf_adds(why, "empty glob");
		return -1;
	}
	if (*pattern == '/') {
		buf_adds(why, "absolute path; globs are relative to the repository root");
		return -1;
	}
	for (const unsigned char *c = (const unsigned char *)pattern; *c; c++)
		if (*c < 0x20 || *c == 0x7f) {
			buf_adds(why, "control characters (a newline, a tab) are not "
			    "allowed");
			return -1;
		}
	for (;;) {
		const char *end = strchr(seg, '/');
		size_t len = end ? (size_t)(end - seg) : strlen(seg);

		if ((len == 1 && seg[0] == '.') ||
		    (len == 2 && seg[0] == '.' && seg[1] == '.')) {
			buf_adds(why, "'.' and '..' segments are not allowed");
			return -1;
		}
		if (len == 0 && end != NULL) {
			buf_adds(why, "empty path segment ('//')");
			return -1;
		}
		if (end == NULL)
			break;
		seg = end + 1;
	}
	rc = compile(pattern, false, &p);
	free(p.tokens);
	if (rc < 0) {
		buf_adds(why, "unclosed '[' or trailing '\\'");
		return -1;
	}
	return 0;
}
