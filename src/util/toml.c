/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/toml.h"

#include <string.h>

#include "util/buf.h"

/* A cursor over the document. */
struct reader {
	const char *p, *end;
	toml_value_fn *fn;
	void *arg;
};

static void
skip_blanks(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t'))
		r->p++;
}

/* Skip to the start of the next line. */
static void
skip_line(struct reader *r)
{
	const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));

	r->p = nl ? nl + 1 : r->end;
}

static bool
is_bare(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/*
 * A one-line string at r->p ("basic" with escapes, or 'literal') into out.
 * Returns false (r->p anywhere) when there is none or it does not end on
 * its line; a multi-line string is not one.
 */
static bool
read_string(struct reader *r, struct buf *out)
{
	char quote = *r->p;

	if (r->p + 2 < r->end && r->p[1] == quote && r->p[2] == quote)
		return false;
	for (r->p++; r->p < r->end && *r->p != '\n'; r->p++) {
		if (*r->p == quote) {
			r->p++;
			return true;
		}
		if (quote == '"' && *r->p == '\\' && r->p + 1 < r->end) {
			static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
			const char *hit = strchr(from, r->p[1]);

			r->p++;
			if (hit && *hit)
				buf_addch(out, to[hit - from]);
			else
				buf_addch(out, *r->p); /* \uXXXX and the like: kept raw */
			continue;
		}
		buf_addch(out, *r->p);
	}
	return false;
}

/* A dotted key at r->p, appended to keys. Returns false when there is none. */
static bool
read_key(struct reader *r, struct strlist *keys)
{
	for (;;) {
		struct buf part = BUF_INIT;

		skip_blanks(r);
		if (r->p < r->end && (*r->p == '"' || *r->p == '\'')) {
			if (!read_string(r, &part)) {
				buf_release(&part);
				return false;
			}
		} else {
			while (r->p < r->end && is_bare(*r->p))
				buf_addch(&part, *r->p++);
			if (part.len == 0) {
				buf_release(&part);
				return false;
			}
		}
		strlist_add_owned(keys, buf_detach(&part, NULL));
		skip_blanks(r);
		if (r->p >= r->end || *r->p != '.')
			return true;
		r->p++;
	}
}

static void read_pairs(struct reader *r, struct strlist *prefix, char close);

/* The value at r->p for the key path keys. */
static void
read_value(struct reader *r, struct strlist *keys)
{
	struct buf value = BUF_INIT;

	skip_blanks(r);
	if (r->p < r->end && (*r->p == '"' || *r->p == '\'')) {
		if (read_string(r, &value))
			r->fn(keys, value.buf, false, r->arg);
	} else if (r->end - r->p >= 4 && strncmp(r->p, "true", 4) == 0 &&
	    (r->end - r->p == 4 || !is_bare(r->p[4]))) {
		r->p += 4;
		r->fn(keys, "true", true, r->arg);
	} else if (r->end - r->p >= 5 && strncmp(r->p, "false", 5) == 0 &&
	    (r->end - r->p == 5 || !is_bare(r->p[5]))) {
		r->p += 5;
		r->fn(keys, "false", true, r->arg);
	} else if (r->p < r->end && *r->p == '{') {
		r->p++;
		read_pairs(r, keys, '}');
	} else {
		/* A number, date or array: skipped to the end of the value. */
		int depth = 0;

		for (; r->p < r->end; r->p++) {
			if (*r->p == '[')
				depth++;
			else if (*r->p == ']')
				depth--;
			else if ((*r->p == ',' || *r->p == '}' || *r->p == '\n') &&
			    depth <= 0)
				break;
		}
	}
	buf_release(&value);
}

/*
 * key = value pairs under prefix: one per line for a document (close
 * '\n'), or separated by commas up to close '}' for an inline table.
 */
static void
read_pairs(struct reader *r, struct strlist *prefix, char close)
{
	while (r->p < r->end) {
		struct strlist keys = STRLIST_INIT;

		for (size_t i = 0; i < prefix->count; i++)
			strlist_add(&keys, prefix->items[i]);
		skip_blanks(r);
		if (r->p < r->end && *r->p == close) {
			r->p++;
			strlist_release(&keys);
			return;
		}
		if (read_key(r, &keys) && r->p < r->end && *r->p == '=') {
			r->p++;
			read_value(r, &keys);
		}
		strlist_release(&keys);
		skip_blanks(r);
		if (close == '\n') {
			skip_line(r);
			return;
		}
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == '}') {
			r->p++;
			return;
		}
		return; /* malformed: give up on this table */
	}
}

void
toml_each_value(const char *text, size_t len, toml_value_fn *fn, void *arg)
{
	struct reader r = { text, text + len, fn, arg };
	struct strlist table = STRLIST_INIT;
	bool in_array_table = false;

	while (r.p < r.end) {
		skip_blanks(&r);
		if (r.p >= r.end)
			break;
		if (*r.p == '#' || *r.p == '\n' || *r.p == '\r') {
			skip_line(&r);
		} else if (*r.p == '[') {
			strlist_release(&table);
			in_array_table = r.p + 1 < r.end && r.p[1] == '[';
			r.p += in_array_table ? 2 : 1;
			if (!read_key(&r, &table) || r.p >= r.end || *r.p != ']')
				in_array_table = true; /* unreadable: skip its pairs */
			skip_line(&r);
		} else if (in_array_table) {
			skip_line(&r);
		} else if (r.end - r.p >= 3 && (strncmp(r.p, "\"\"\"", 3) == 0 ||
		    strncmp(r.p, "'''", 3) == 0)) {
			skip_line(&r);
		} else {
			const char *before = r.p;

			read_pairs(&r, &table, '\n');
			/* A value that opened a multi-line string: skip to its end. */
			if (r.p > before && r.p <= r.end) {
				const char *line = before, *nl = memchr(line, '\n',
				    (size_t)(r.end - line));
				size_t n = nl ? (size_t)(nl - line) : (size_t)(r.end - line);
				const char *marks[] = { "\"\"\"", "'''" };

				for (int m = 0; m < 2; m++) {
					const char *open = memmem(line, n, marks[m], 3);
					const char *shut;

					if (open == NULL || memmem(open + 3, n - (size_t)(open +
					    3 - line), marks[m], 3))
						continue;
					shut = memmem(open + 3, (size_t)(r.end - open - 3),
					    marks[m], 3);
					r.p = line + n;
					if (shut) {
						r.p = shut + 3;
						skip_line(&r);
					} else {
						r.p = r.end;
					}
				}
			}
		}
	}
	strlist_release(&table);
}
