/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Shell command lines (util/cmdline.h). One file for now because its three
 * parts, the lexer, the unwrapper (env, sudo, sh -c ...) and the matcher,
 * share one representation of words and how each byte was quoted; issue
 * 33 gives them a folder and a file each.
 */
#include "util/cmdline.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/hex.h"

/* Deeper nesting of substitutions, sh -c strings and wrappers fails. */
#define MAX_DEPTH 64

/* How a byte of a word came to be; it decides the canonical rendering. */
enum word_class {
	CLASS_LITERAL,	   /* stands for itself: quoted, or plain unquoted */
	CLASS_LIVE,	   /* unquoted expansion or glob character */
	CLASS_QUOTED_LIVE, /* expansion inside double quotes */
};

struct word {
	struct buf text;    /* after quote removal; expansions as written */
	struct buf classes; /* one enum word_class byte per byte of text */
	bool quoted;	    /* some part was quoted, so even "" is a word */
};

/* Where a command's standard input comes from. */
enum stdin_source {
	STDIN_INHERITED, /* whatever the line itself was given */
	STDIN_PIPE,	 /* the output of the command before a | */
	STDIN_FILE,	 /* a < redirection (or <&, <>) */
	STDIN_BODY,	 /* a here-document or here-string */
};

/* What is known about one word of a simple command, besides its text. */
#define WORD_DYNAMIC 1 /* its last path component holds an expansion or a
			  glob: the program it names is known only when run */

/* How a simple command came to be: what its words and input are. */
struct command_input {
	const char *flags;	      /* one WORD_* byte per word, or NULL */
	enum stdin_source stdin_from; /* its standard input */
	const char *placeholder;      /* filled in when it runs, in the
					 program word it means an unknown
					 program (find's {}), or NULL */
};

/* What the commands of a script are given when nothing else says. */
static const struct command_input nothing_given = { NULL, STDIN_INHERITED,
	NULL };

struct heredoc {
	char *delimiter; /* owned, after quote removal */
	bool strip_tabs; /* <<- */
	bool expand;	 /* unquoted delimiter: $(...) in the body runs */
};

/*
 * The state of splitting one text. Commands inside $(...) are split by the
 * same parser (the text is the same); backticks, sh -c strings and
 * here-document bodies get a parser of their own.
 */
struct parser {
	const char *text;	  /* what is being split */
	size_t pos;		  /* next byte of text to read */
	struct cmdline *out;	  /* where commands go */
	struct buf *why;	  /* a failure's reason is appended here */
	struct strlist *tokens;	  /* canonical tokens are recorded here,
				     or NULL */
	struct strlist *collect;  /* when set, the raw words of simple
				     commands go here instead of to out */
	struct buf *collect_flags; /* with collect: their WORD_* bytes, or
				      NULL */
	size_t collected;	  /* simple commands collected */
	bool pattern;		  /* splitting a gate pattern */
	bool runs_shell;	  /* a shell without -c is run */
	enum stdin_source stdin_from;	 /* the current command's input */
	enum stdin_source stdin_default; /* a command's input when nothing
					    redirects it */
	const char *placeholder;	 /* as in struct command_input, for
					    every command */
	int depth;		  /* nesting of substitutions and scripts */
	struct heredoc *pending;  /* here-documents waiting for a newline */
	size_t pending_count, pending_alloc;
	struct strlist bodies;	  /* here-document and here-string bodies */
};

static int parse_list(struct parser *, bool);
static int parse_word(struct parser *, struct word *);
static int parse_script(const char *, struct cmdline *, struct buf *,
    struct strlist *, const struct command_input *, int);
static int add_simple_command(struct parser *, char *const *, size_t,
    const struct command_input *, int);

static void
parser_init(struct parser *p, const char *text, struct cmdline *out,
    struct buf *why, int depth)
{
	memset(p, 0, sizeof(*p));
	p->text = text;
	p->out = out;
	p->why = why;
	p->depth = depth;
}

static void
parser_release(struct parser *p)
{
	for (size_t i = 0; i < p->pending_count; i++)
		free(p->pending[i].delimiter);
	free(p->pending);
	p->pending = NULL;
	p->pending_count = p->pending_alloc = 0;
	strlist_release(&p->bodies);
}

static int
fail(struct parser *p, const char *reason)
{
	if (p->why != NULL)
		buf_adds(p->why, reason);
	return -1;
}

static void
word_init(struct word *w)
{
	buf_init(&w->text);
	buf_init(&w->classes);
	w->quoted = false;
}

static void
word_release(struct word *w)
{
	buf_release(&w->text);
	buf_release(&w->classes);
}

static void
word_add(struct word *w, char c, enum word_class class)
{
	if (c == '\0')
		return; /* a word cannot hold a NUL */
	buf_addch(&w->text, c);
	buf_addch(&w->classes, (char)class);
}

static void
word_add_span(struct word *w, const char *s, size_t len,
    enum word_class class)
{
	for (size_t i = 0; i < len; i++)
		word_add(w, s[i], class);
}

/*
 * Whether the unquoted c at w's byte i starts a glob or brace expansion: *
 * and ? always; [ when a ] follows, { when a } follows with a ',' or ".."
 * between ("[" alone is the test command, "{}" stays as it is).
 */
static bool
starts_pattern(const struct word *w, size_t i)
{
	char c = w->text.buf[i];
	const char *close;

	if (c == '*' || c == '?')
		return true;
	if (c != '[' && c != '{')
		return false;
	close = memchr(w->text.buf + i + 1, c == '[' ? ']' : '}',
	    w->text.len - i - 1);
	if (close == NULL || c == '[')
		return close != NULL;
	for (const char *p = w->text.buf + i + 1; p < close; p++)
		if (*p == ',' || (p[0] == '.' && p[1] == '.'))
			return true;
	return false;
}

/*
 * Whether the last path component of w (after its last literal '/') holds
 * an expansion ($, `, or a quoted one) or a glob or brace pattern, so that
 * the program it names is known only when the line runs. A leading ~ is
 * not counted: it changes the directory, not the name.
 */
static bool
word_is_dynamic(const struct word *w)
{
	size_t start = 0;

	for (size_t i = 0; i < w->text.len; i++)
		if (w->text.buf[i] == '/' && w->classes.buf[i] == CLASS_LITERAL)
			start = i + 1;
	for (size_t i = start; i < w->text.len; i++) {
		char class = w->classes.buf[i];

		if (class == CLASS_QUOTED_LIVE ||
		    (class == CLASS_LIVE && (strchr("$`<>", w->text.buf[i]) ||
		    starts_pattern(w, i))))
			return true;
	}
	return false;
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool
is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool
is_name_char(char c)
{
	return is_name_start(c) || is_digit(c);
}

/* Characters that mean nothing to the shell unquoted (and are not NUL). */
static bool
is_safe(char c)
{
	return is_name_char(c) || (c != '\0' && strchr("-./:=+@%,", c));
}

/* Whether c ends an unquoted word. */
static bool
is_metachar(char c)
{
	return c == '\0' || c == ' ' || c == '\t' || c == '\n' ||
	    strchr(";&|()<>", c) != NULL;
}

/* The part of path after its last '/' (path itself when nothing follows). */
static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL && slash[1] != '\0' ? slash + 1 : path;
}

/* Append text[0..len) to out in single quotes ('\'' for a quote). */
static void
render_single_quoted(struct buf *out, const char *text, size_t len)
{
	buf_addch(out, '\'');
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\'')
			buf_adds(out, "'\\''");
		else
			buf_addch(out, text[i]);
	}
	buf_addch(out, '\'');
}

/*
 * Append text[0..len) to out in a canonical shell quoting, classes giving
 * each byte's enum word_class (NULL: all literal). Runs of literal bytes
 * are written bare when every byte is safe and no unquoted expansion comes
 * just before, else in single quotes; unquoted expansions bare; quoted
 * expansions in double quotes. Splitting the result gives back the same
 * bytes and classes, so different words never render alike.
 */
static void
render_word(struct buf *out, const char *text, const char *classes,
    size_t len)
{
	int previous = -1;
	size_t i = 0;

	if (len == 0) {
		buf_adds(out, "''");
		return;
	}
	while (i < len) {
		char class = classes ? classes[i] : CLASS_LITERAL;
		bool safe = true;
		size_t j;

		for (j = i; j < len &&
		     (classes ? classes[j] : CLASS_LITERAL) == class; j++)
			if (!is_safe(text[j]))
				safe = false;
		if (class == CLASS_LIVE) {
			buf_add(out, text + i, j - i);
		} else if (class == CLASS_QUOTED_LIVE) {
			buf_addch(out, '"');
			buf_add(out, text + i, j - i);
			buf_addch(out, '"');
		} else if (safe && previous != CLASS_LIVE) {
			buf_add(out, text + i, j - i);
		} else {
			render_single_quoted(out, text + i, j - i);
		}
		previous = class;
		i = j;
	}
}

static void
record(struct parser *p, const char *token)
{
	if (p->tokens != NULL)
		strlist_add(p->tokens, token);
}

static void
record_word(struct parser *p, const struct word *w)
{
	struct buf b = BUF_INIT;

	if (p->tokens == NULL)
		return;
	render_word(&b, w->text.buf, w->classes.buf, w->text.len);
	strlist_add_owned(p->tokens, buf_detach(&b, NULL));
}

/* A line break: recorded as ';' unless a separator already ends the line. */
static void
record_line_break(struct parser *p)
{
	static const char *const separators[] = { ";", "&", "&&", "||", "|",
		"|&", "(", ";;", ";&", ";;&" };
	const char *last;

	if (p->tokens == NULL || p->tokens->count == 0)
		return;
	last = p->tokens->items[p->tokens->count - 1];
	for (size_t i = 0; i < sizeof(separators) / sizeof(separators[0]); i++)
		if (strcmp(last, separators[i]) == 0)
			return;
	record(p, ";");
}

/* Skip blanks and backslash-newline continuations. */
static void
skip_blanks(struct parser *p)
{
	for (;;) {
		char c = p->text[p->pos];

		if (c == ' ' || c == '\t')
			p->pos++;
		else if (c == '\\' && p->text[p->pos + 1] == '\n')
			p->pos += 2;
		else
			return;
	}
}

/*
 * At "$(", "<(" or ">(": split the commands inside into p->out and leave
 * p->pos after the closing ')'. Returns 0 or -1.
 */
static int
scan_substitution(struct parser *p)
{
	struct strlist *tokens = p->tokens;
	enum stdin_source saved_from, saved_default;
	int rc;

	if (p->pattern)
		return fail(p, "a pattern cannot contain a substitution");
	if (p->depth >= MAX_DEPTH)
		return fail(p, "command nested too deeply");
	p->pos += 2;
	p->tokens = NULL; /* the word holds the text as written */
	p->depth++;
	/* The commands inside read what the line was given. */
	saved_from = p->stdin_from;
	saved_default = p->stdin_default;
	p->stdin_from = p->stdin_default = STDIN_INHERITED;
	rc = parse_list(p, true);
	p->stdin_from = saved_from;
	p->stdin_default = saved_default;
	p->depth--;
	p->tokens = tokens;
	return rc;
}

/*
 * At '`': split the command inside (after removing the backslashes that
 * escape \, ` and $, and " when in_double_quotes) and leave p->pos after
 * the closing backtick. Returns 0 or -1.
 */
static int
scan_backticks(struct parser *p, bool in_double_quotes)
{
	struct buf inner = BUF_INIT;
	int rc;

	if (p->pattern)
		return fail(p, "a pattern cannot contain a substitution");
	p->pos++;
	for (;;) {
		char c = p->text[p->pos];

		if (c == '\0') {
			buf_release(&inner);
			return fail(p, "unterminated backquote substitution");
		}
		if (c == '`') {
			p->pos++;
			break;
		}
		if (c == '\\') {
			char next = p->text[p->pos + 1];

			if (next == '\\' || next == '`' || next == '$' ||
			    (next == '"' && in_double_quotes)) {
				buf_addch(&inner, next);
				p->pos += 2;
				continue;
			}
		}
		buf_addch(&inner, c);
		p->pos++;
	}
	rc = parse_script(inner.buf, p->out, p->why, NULL, &nothing_given,
	    p->depth + 1);
	buf_release(&inner);
	return rc;
}

/*
 * At "${": find the matching '}' (quotes, escapes and substitutions inside
 * respected, substitutions split) and leave p->pos after it. Returns 0 or
 * -1.
 */
static int
scan_parameter(struct parser *p, bool in_double_quotes)
{
	bool inner_quotes = false;
	int depth = 1;

	p->pos += 2;
	while (depth > 0) {
		const char *s = p->text + p->pos;

		switch (s[0]) {
		case '\0':
			return fail(p, "unterminated ${...}");
		case '\\':
			p->pos += s[1] != '\0' ? 2 : 1;
			break;
		case '\'':
			if (in_double_quotes || inner_quotes) {
				p->pos++;
				break;
			}
			s = strchr(s + 1, '\'');
			if (s == NULL)
				return fail(p, "unterminated single quote");
			p->pos = (size_t)(s - p->text) + 1;
			break;
		case '"':
			inner_quotes = !inner_quotes;
			p->pos++;
			break;
		case '`':
			if (scan_backticks(p, true) < 0)
				return -1;
			break;
		case '$':
			if (s[1] == '(') {
				if (scan_substitution(p) < 0)
					return -1;
			} else if (s[1] == '{') {
				depth++;
				p->pos += 2;
			} else {
				p->pos++;
			}
			break;
		case '}':
			if (!inner_quotes)
				depth--;
			p->pos++;
			break;
		default:
			p->pos++;
		}
	}
	return 0;
}

/*
 * At '$' outside single quotes: add the expansion it starts to w as
 * written, with class (and the commands of a $(...) to p->out), or a
 * literal '$'. Returns 0 or -1.
 */
static int
parse_dollar(struct parser *p, struct word *w, enum word_class class)
{
	const char *s = p->text + p->pos;
	size_t start = p->pos, len;
	int rc;

	if (s[1] == '(' || s[1] == '{') {
		if (s[1] == '(')
			rc = scan_substitution(p);
		else
			rc = scan_parameter(p, class == CLASS_QUOTED_LIVE);
		if (rc < 0)
			return -1;
		word_add_span(w, p->text + start, p->pos - start, class);
		return 0;
	}
	if (is_name_start(s[1])) {
		for (len = 2; is_name_char(s[len]); len++)
			continue;
	} else if (s[1] != '\0' &&
	    (is_digit(s[1]) || strchr("@*#?$!-", s[1]) != NULL)) {
		len = 2;
	} else {
		word_add(w, '$', CLASS_LITERAL);
		p->pos++;
		return 0;
	}
	word_add_span(w, s, len, class);
	p->pos += len;
	return 0;
}

/*
 * After an opening '"' (or, with here_document, at the start of an
 * unquoted here-document body, which ends only with the text): add the
 * quoted part to w and leave p->pos after the closing '"'. Returns 0 or -1.
 */
static int
parse_double_quoted(struct parser *p, struct word *w, bool here_document)
{
	for (;;) {
		const char *s = p->text + p->pos;
		size_t start = p->pos;

		switch (s[0]) {
		case '\0':
			if (here_document)
				return 0;
			return fail(p, "unterminated double quote");
		case '"':
			if (here_document)
				break;
			p->pos++;
			return 0;
		case '\\':
			if (s[1] == '\n') {
				p->pos += 2;
				continue;
			}
			if (s[1] == '$' || s[1] == '`' || s[1] == '\\' ||
			    (s[1] == '"' && !here_document)) {
				word_add(w, s[1], CLASS_LITERAL);
				p->pos += 2;
				continue;
			}
			break;
		case '$':
			if (parse_dollar(p, w, CLASS_QUOTED_LIVE) < 0)
				return -1;
			continue;
		case '`':
			if (scan_backticks(p, true) < 0)
				return -1;
			word_add_span(w, p->text + start, p->pos - start,
			    CLASS_QUOTED_LIVE);
			continue;
		}
		word_add(w, s[0], CLASS_LITERAL);
		p->pos++;
	}
}

/* Add code point cp to w in UTF-8. */
static void
add_utf8(struct word *w, unsigned long cp)
{
	if (cp < 0x80) {
		word_add(w, (char)cp, CLASS_LITERAL);
	} else if (cp < 0x800) {
		word_add(w, (char)(0xc0 | (cp >> 6)), CLASS_LITERAL);
		word_add(w, (char)(0x80 | (cp & 0x3f)), CLASS_LITERAL);
	} else if (cp < 0x10000) {
		word_add(w, (char)(0xe0 | (cp >> 12)), CLASS_LITERAL);
		word_add(w, (char)(0x80 | ((cp >> 6) & 0x3f)), CLASS_LITERAL);
		word_add(w, (char)(0x80 | (cp & 0x3f)), CLASS_LITERAL);
	} else if (cp < 0x110000) {
		word_add(w, (char)(0xf0 | (cp >> 18)), CLASS_LITERAL);
		word_add(w, (char)(0x80 | ((cp >> 12) & 0x3f)), CLASS_LITERAL);
		word_add(w, (char)(0x80 | ((cp >> 6) & 0x3f)), CLASS_LITERAL);
		word_add(w, (char)(0x80 | (cp & 0x3f)), CLASS_LITERAL);
	}
}

/*
 * At "$'": add the decoded ANSI-C quoted string to w (bash's escapes:
 * \a \b \e \E \f \n \r \t \v \\ \' \" \? \NNN \xHH \uHHHH \UHHHHHHHH \cX)
 * and leave p->pos after the closing quote. Returns 0 or -1.
 */
static int
parse_ansi_c(struct parser *p, struct word *w)
{
	static const char escapes[] = "a\ab\be\033E\033f\fn\nr\rt\tv\v";

	p->pos += 2;
	for (;;) {
		const char *s = p->text + p->pos;
		const char *simple;
		unsigned long value;
		int digits, max, d;

		if (s[0] == '\0')
			return fail(p, "unterminated $'...' quote");
		if (s[0] == '\'') {
			p->pos++;
			return 0;
		}
		if (s[0] != '\\') {
			word_add(w, s[0], CLASS_LITERAL);
			p->pos++;
			continue;
		}
		if (s[1] == '\0')
			return fail(p, "unterminated $'...' quote");
		p->pos += 2;
		simple = strchr(escapes, s[1]);
		if (simple != NULL && (simple - escapes) % 2 == 0) {
			word_add(w, simple[1], CLASS_LITERAL);
		} else if (s[1] >= '0' && s[1] <= '7') {
			value = (unsigned long)(s[1] - '0');
			for (digits = 1; digits < 3 && s[1 + digits] >= '0' &&
			     s[1 + digits] <= '7'; digits++) {
				value = value * 8 +
				    (unsigned long)(s[1 + digits] - '0');
			}
			p->pos += (size_t)digits - 1;
			word_add(w, (char)(value & 0xff), CLASS_LITERAL);
		} else if (s[1] == 'x' || s[1] == 'u' || s[1] == 'U') {
			max = s[1] == 'x' ? 2 : s[1] == 'u' ? 4 : 8;
			value = 0;
			for (digits = 0; digits < max &&
			     (d = hex_digit(s[2 + digits])) >= 0; digits++)
				value = value * 16 + (unsigned long)d;
			p->pos += (size_t)digits;
			if (digits == 0)
				word_add_span(w, s, 2, CLASS_LITERAL);
			else if (s[1] == 'x')
				word_add(w, (char)value, CLASS_LITERAL);
			else
				add_utf8(w, value);
		} else if (s[1] == 'c' && s[2] != '\0') {
			word_add(w, (char)(s[2] & 0x1f), CLASS_LITERAL);
			p->pos++;
		} else if (s[1] == '\\' || s[1] == '\'' || s[1] == '"' ||
		    s[1] == '?') {
			word_add(w, s[1], CLASS_LITERAL);
		} else {
			word_add_span(w, s, 2, CLASS_LITERAL);
		}
	}
}

/*
 * Read one word at p->pos into w (which starts empty), up to an unquoted
 * metacharacter, removing quotes. Commands in substitutions go to p->out.
 * Returns 0 or -1.
 */
static int
parse_word(struct parser *p, struct word *w)
{
	for (;;) {
		const char *s = p->text + p->pos;
		size_t start = p->pos;
		const char *end;

		if ((s[0] == '<' || s[0] == '>') && s[1] == '(' &&
		    w->text.len == 0 && !w->quoted) {
			/* Process substitution. */
			if (scan_substitution(p) < 0)
				return -1;
			word_add_span(w, p->text + start, p->pos - start,
			    CLASS_LIVE);
			continue;
		}
		if (is_metachar(s[0]))
			return 0;
		switch (s[0]) {
		case '\\':
			if (s[1] == '\n') {
				p->pos += 2;
			} else if (s[1] == '\0') {
				word_add(w, '\\', CLASS_LITERAL);
				p->pos++;
			} else {
				word_add(w, s[1], CLASS_LITERAL);
				w->quoted = true;
				p->pos += 2;
			}
			break;
		case '\'':
			end = strchr(s + 1, '\'');
			if (end == NULL)
				return fail(p, "unterminated single quote");
			word_add_span(w, s + 1, (size_t)(end - s - 1),
			    CLASS_LITERAL);
			w->quoted = true;
			p->pos = (size_t)(end - p->text) + 1;
			break;
		case '"':
			p->pos++;
			w->quoted = true;
			if (parse_double_quoted(p, w, false) < 0)
				return -1;
			break;
		case '$':
			if (s[1] == '\'') {
				w->quoted = true;
				if (parse_ansi_c(p, w) < 0)
					return -1;
			} else if (s[1] == '"') {
				p->pos += 2;
				w->quoted = true;
				if (parse_double_quoted(p, w, false) < 0)
					return -1;
			} else if (parse_dollar(p, w, CLASS_LIVE) < 0) {
				return -1;
			}
			break;
		case '`':
			if (scan_backticks(p, false) < 0)
				return -1;
			word_add_span(w, p->text + start, p->pos - start,
			    CLASS_LIVE);
			break;
		case '*':
		case '?':
		case '[':
		case ']':
		case '{':
		case '}':
		case '~':
		case '!':
			word_add(w, s[0], CLASS_LIVE);
			p->pos++;
			break;
		default:
			word_add(w, s[0], CLASS_LITERAL);
			p->pos++;
		}
	}
}

/* The length of the redirection operator at s (which starts with < > or &). */
static size_t
redirection_length(const char *s)
{
	if (s[0] == '&')
		return s[2] == '>' ? 3 : 2; /* &>> &> */
	if (s[0] == '<') {
		if (s[1] == '<')
			return s[2] == '<' || s[2] == '-' ? 3 : 2;
		return s[1] == '&' || s[1] == '>' ? 2 : 1;
	}
	return s[1] == '>' || s[1] == '&' || s[1] == '|' ? 2 : 1;
}

/*
 * At a redirection operator (after an IO number io_number, "" if none):
 * read the operator and its target word, and drop both from the command.
 * Here-documents wait for the next newline; here-string words are kept as
 * bodies. Returns 0 or -1.
 */
static int
parse_redirection(struct parser *p, const char *io_number)
{
	const char *s = p->text + p->pos;
	size_t len = redirection_length(s);
	struct buf op = BUF_INIT;
	struct word target;
	char c, next;
	int rc = 0;

	if (p->pattern)
		return fail(p, "a pattern cannot contain a redirection; quote "
			       "'<' and '>'");
	buf_adds(&op, io_number);
	buf_add(&op, s, len);
	p->pos += len;
	skip_blanks(p);
	c = p->text[p->pos];
	next = c != '\0' ? p->text[p->pos + 1] : '\0';
	if (is_metachar(c) && !((c == '<' || c == '>') && next == '(')) {
		buf_release(&op);
		return fail(p, "redirection without a target");
	}
	word_init(&target);
	if (parse_word(p, &target) < 0)
		rc = -1;
	else if (target.text.len == 0 && !target.quoted)
		rc = fail(p, "redirection without a target");
	if (rc == 0) {
		bool here_document = len >= 2 && s[0] == '<' && s[1] == '<' &&
		    s[2] != '<';

		/* Standard input: <, <&, <> and the bodies (<<, <<-, <<<). */
		if (s[0] == '<' && (io_number[0] == '\0' ||
		    strcmp(io_number, "0") == 0))
			p->stdin_from = s[1] == '<' ? STDIN_BODY : STDIN_FILE;
		record(p, op.buf);
		if (here_document && target.quoted && p->tokens != NULL) {
			/* <<'EOF' is not <<EOF, though EOF needs no quotes. */
			struct buf token = BUF_INIT;

			render_single_quoted(&token, target.text.buf,
			    target.text.len);
			strlist_add_owned(p->tokens, buf_detach(&token, NULL));
		} else {
			record_word(p, &target);
		}
		if (here_document) {
			struct heredoc *h;

			xgrow((void **)&p->pending, &p->pending_alloc,
			    p->pending_count + 1, sizeof(*h));
			h = &p->pending[p->pending_count++];
			h->delimiter = xstrdup(target.text.buf);
			h->strip_tabs = s[2] == '-';
			h->expand = !target.quoted;
		} else if (len == 3 && s[0] == '<' && s[2] == '<') {
			buf_addch(&target.text, '\n');
			strlist_add(&p->bodies, target.text.buf);
		}
	}
	word_release(&target);
	buf_release(&op);
	return rc;
}

/*
 * After a newline: read the bodies of the pending here-documents, one after
 * the other, each up to its delimiter line (or the end of the text). The
 * $(...) and backticks in an expanding body are split. Returns 0 or -1.
 */
static int
read_here_documents(struct parser *p)
{
	int rc = 0;

	for (size_t i = 0; i < p->pending_count && rc == 0; i++) {
		struct heredoc *h = &p->pending[i];
		size_t delimiter_len = strlen(h->delimiter);
		struct buf body = BUF_INIT, token = BUF_INIT;

		while (p->text[p->pos] != '\0') {
			const char *line = p->text + p->pos;
			const char *newline = strchr(line, '\n');
			size_t len = newline ? (size_t)(newline - line)
					     : strlen(line);

			p->pos += len + (newline != NULL);
			while (h->strip_tabs && len > 0 && *line == '\t') {
				line++;
				len--;
			}
			if (len == delimiter_len &&
			    memcmp(line, h->delimiter, len) == 0)
				break;
			buf_add(&body, line, len);
			buf_addch(&body, '\n');
		}
		buf_adds(&token, "<<");
		render_word(&token, body.buf, NULL, body.len);
		record(p, token.buf);
		if (h->expand) {
			struct parser q;
			struct word ignored;

			if (p->depth >= MAX_DEPTH) {
				rc = fail(p, "command nested too deeply");
			} else {
				parser_init(&q, body.buf, p->out, p->why,
				    p->depth + 1);
				q.stdin_from = q.stdin_default = STDIN_INHERITED;
				word_init(&ignored);
				rc = parse_double_quoted(&q, &ignored, true);
				word_release(&ignored);
				if (rc == 0 && q.runs_shell)
					p->runs_shell = true;
				parser_release(&q);
			}
		}
		strlist_add_owned(&p->bodies, buf_detach(&body, NULL));
		buf_release(&token);
	}
	for (size_t i = 0; i < p->pending_count; i++)
		free(p->pending[i].delimiter);
	p->pending_count = 0;
	return rc;
}

/*
 * Hand the words of a finished simple command on (flags holds a WORD_*
 * byte for each), and empty words and flags. The next command reads what
 * a command reads by default.
 */
static int
end_command(struct parser *p, struct strlist *words, struct buf *flags)
{
	struct command_input input = { flags->buf, p->stdin_from,
		p->placeholder };
	int rc;

	if (words->count == 0)
		return 0;
	p->stdin_from = p->stdin_default;
	if (p->collect != NULL) {
		for (size_t i = 0; i < words->count; i++)
			strlist_add_owned(p->collect, words->items[i]);
		if (p->collect_flags != NULL)
			buf_add(p->collect_flags, flags->buf, flags->len);
		free(words->items);
		words->items = NULL;
		words->count = words->alloc = 0;
		buf_reset(flags);
		p->collected++;
		return 0;
	}
	rc = add_simple_command(p, words->items, words->count, &input,
	    p->depth);
	strlist_release(words);
	buf_reset(flags);
	return rc;
}

/* Reserved words dropped where a command starts. */
static bool
is_dropped_reserved_word(const char *s)
{
	static const char *const reserved[] = { "!", "{", "}", "if", "then",
		"else", "elif", "fi", "do", "done", "while", "until" };

	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (strcmp(s, reserved[i]) == 0)
			return true;
	return false;
}

static size_t
separator_length(const char *s)
{
	if (s[0] == ';' && s[1] == ';')
		return s[2] == '&' ? 3 : 2; /* ;;& ;; */
	if (s[0] == ';')
		return s[1] == '&' ? 2 : 1; /* ;& ; */
	if (s[0] == '&')
		return s[1] == '&' ? 2 : 1;
	return s[1] == '|' || s[1] == '&' ? 2 : 1; /* || |& | */
}

/*
 * Split commands from p->pos to the end of the text or, in_substitution,
 * to the ')' closing a $(...) (p->pos is left after it). Returns 0 or -1.
 */
static int
parse_list(struct parser *p, bool in_substitution)
{
	struct strlist words = STRLIST_INIT;
	struct buf flags = BUF_INIT; /* a WORD_* byte for each of words */
	int *case_parens = NULL; /* paren depth where each open case began */
	size_t case_count = 0, case_alloc = 0;
	int paren_depth = 0, rc = 0;

	for (;;) {
		const char *s;
		struct word w;

		skip_blanks(p);
		s = p->text + p->pos;
		if (s[0] == '\0') {
			if (in_substitution)
				rc = fail(p, "unterminated command "
					     "substitution ('$(' without ')')");
			break;
		}
		if (s[0] == '#') {
			if (p->pattern) {
				rc = fail(p, "a pattern cannot contain a "
					     "comment; quote '#'");
				break;
			}
			while (p->text[p->pos] != '\0' &&
			    p->text[p->pos] != '\n')
				p->pos++;
			continue;
		}
		if (p->pattern && strchr("\n;&|()", s[0]) &&
		    !(s[0] == '&' && s[1] == '>')) {
			rc = fail(p, "a pattern is one command: it cannot "
				     "contain a line break or ; & | ( )");
			break;
		}
		if (s[0] == '\n') {
			if ((rc = end_command(p, &words, &flags)) < 0)
				break;
			record_line_break(p);
			p->pos++;
			if ((rc = read_here_documents(p)) < 0)
				break;
			continue;
		}
		if (s[0] == ';' || s[0] == '|' ||
		    (s[0] == '&' && s[1] != '>')) {
			size_t len = separator_length(s);
			char op[4] = { 0 };

			if ((rc = end_command(p, &words, &flags)) < 0)
				break;
			memcpy(op, s, len);
			record(p, op);
			p->pos += len;
			p->stdin_from = strcmp(op, "|") == 0 ||
			    strcmp(op, "|&") == 0 ? STDIN_PIPE : p->stdin_default;
			continue;
		}
		if (s[0] == '(' || s[0] == ')') {
			if ((rc = end_command(p, &words, &flags)) < 0)
				break;
			p->pos++;
			if (s[0] == '(') {
				paren_depth++;
			} else if (case_count > 0 &&
			    case_parens[case_count - 1] == paren_depth) {
				/* The ')' after a case pattern. */
			} else if (paren_depth > 0) {
				paren_depth--;
			} else if (in_substitution) {
				break;
			}
			record(p, s[0] == '(' ? "(" : ")");
			continue;
		}
		if ((s[0] == '<' || s[0] == '>' || s[0] == '&') &&
		    s[1] != '(') {
			if ((rc = parse_redirection(p, "")) < 0)
				break;
			continue;
		}
		word_init(&w);
		if ((rc = parse_word(p, &w)) < 0) {
			word_release(&w);
			break;
		}
		s = p->text + p->pos;
		if ((s[0] == '<' || s[0] == '>') && s[1] != '(' && !w.quoted &&
		    w.text.len > 0 &&
		    strspn(w.text.buf, "0123456789") == w.text.len) {
			/* An IO number, as in 2>&1. */
			rc = parse_redirection(p, w.text.buf);
			word_release(&w);
			if (rc < 0)
				break;
			continue;
		}
		record_word(p, &w);
		if (words.count == 0 && !p->pattern && p->collect == NULL &&
		    strcmp(w.text.buf, "case") == 0) {
			xgrow((void **)&case_parens, &case_alloc,
			    case_count + 1, sizeof(*case_parens));
			case_parens[case_count++] = paren_depth;
		}
		if (words.count == 0 && !p->pattern && p->collect == NULL &&
		    strcmp(w.text.buf, "esac") == 0) {
			if (case_count > 0)
				case_count--;
		} else if (words.count == 0 && !p->pattern &&
		    p->collect == NULL &&
		    is_dropped_reserved_word(w.text.buf)) {
			/* Not a command of its own. */
		} else if (w.text.len > 0 || w.quoted) {
			buf_addch(&flags, word_is_dynamic(&w) ? WORD_DYNAMIC : 0);
			strlist_add_owned(&words, buf_detach(&w.text, NULL));
		}
		word_release(&w);
	}
	if (rc == 0)
		rc = end_command(p, &words, &flags);
	strlist_release(&words);
	buf_release(&flags);
	free(case_parens);
	return rc;
}

/* Whether s is a NAME=value (or NAME+=value, NAME[i]=value) assignment. */
static bool
is_assignment(const char *s)
{
	size_t i = 0;

	if (!is_name_start(s[0]))
		return false;
	while (is_name_char(s[i]))
		i++;
	if (s[i] == '[') {
		const char *close = strchr(s + i, ']');

		if (close == NULL)
			return false;
		i = (size_t)(close - s) + 1;
	}
	if (s[i] == '+')
		i++;
	return s[i] == '=';
}

/* Note a change to the environment of the commands the line runs. */
static void
note_environment(struct parser *p, const char *change)
{
	if (p->out != NULL)
		strlist_add(&p->out->environment, change);
}

/* Note "-NAME": NAME is removed from the environment. */
static void
note_unset(struct parser *p, const char *name)
{
	struct buf change = BUF_INIT;

	buf_addf(&change, "-%s", name);
	note_environment(p, change.buf);
	buf_release(&change);
}

/*
 * Skip the NAME=value assignments at words[i..n), noting each; returns the
 * index of the first word that is none.
 */
static size_t
take_assignments(struct parser *p, char *const *words, size_t i, size_t n)
{
	while (i < n && is_assignment(words[i]))
		note_environment(p, words[i++]);
	return i;
}

static bool
in_list(const char *name, size_t len, const char *const *list)
{
	for (; list != NULL && *list != NULL; list++)
		if (strlen(*list) == len && memcmp(*list, name, len) == 0)
			return true;
	return false;
}

/*
 * Skip the options of a program at words[i..n): "--" ends them, and so does
 * the first word that is not an option ("-" alone is not one). Short
 * options in short_with_argument and long options (names without "--") in
 * long_with_argument take an argument, attached or the next word. When the
 * short option watch or the long option watch_long is met, *watched is set
 * to its argument. Returns the index of the first word after the options
 * (n at most: an option whose argument is missing ends the words).
 */
static size_t
skip_options(char *const *words, size_t i, size_t n,
    const char *short_with_argument, const char *const *long_with_argument,
    char watch, const char *watch_long, const char **watched)
{
	while (i < n) {
		const char *s = words[i];

		if (strcmp(s, "--") == 0)
			return i + 1;
		if (s[0] != '-' || s[1] == '\0')
			return i;
		if (s[1] == '-') {
			const char *name = s + 2, *equals = strchr(name, '=');
			size_t len = equals ? (size_t)(equals - name)
					    : strlen(name);
			const char *argument = NULL;

			if (equals != NULL) {
				argument = equals + 1;
			} else if (in_list(name, len, long_with_argument)) {
				argument = i + 1 < n ? words[i + 1] : NULL;
				i++;
			}
			if (watch_long != NULL && argument != NULL &&
			    strlen(watch_long) == len &&
			    memcmp(watch_long, name, len) == 0)
				*watched = argument;
			i++;
			continue;
		}
		for (size_t j = 1; s[j] != '\0'; j++) {
			const char *argument;

			if (strchr(short_with_argument, s[j]) == NULL)
				continue;
			if (s[j + 1] != '\0') {
				argument = s + j + 1;
			} else {
				argument = i + 1 < n ? words[i + 1] : NULL;
				i++;
			}
			if (s[j] == watch && argument != NULL)
				*watched = argument;
			break;
		}
		i++;
	}
	return i < n ? i : n;
}

struct wrapper {
	const char *name;
	const char *short_with_argument;       /* option letters taking an
						  argument */
	const char *const *long_with_argument; /* long options taking one */
	size_t operands; /* words after the options, before the program */
};

static const char *const env_long[] = { "unset", "chdir", "split-string",
	NULL };
static const char *const sudo_long[] = { "user", "group", "host", "prompt",
	"close-from", "login-class", "role", "type", "command-timeout",
	"other-user", "chdir", "chroot", NULL };
static const char *const time_long[] = { "format", "output", NULL };
static const char *const nice_long[] = { "adjustment", NULL };
static const char *const timeout_long[] = { "signal", "kill-after", NULL };
static const char *const xargs_long[] = { "arg-file", "delimiter",
	"max-args", "max-procs", "max-chars", "process-slot-var", NULL };
static const char *const stdbuf_long[] = { "input", "output", "error",
	NULL };
static const char *const ionice_long[] = { "class", "classdata", "pid",
	"pgid", "uid", NULL };

static const struct wrapper wrappers[] = {
	{ "env", "uCS", env_long, 0 },
	{ "sudo", "ughpCcrtTUDR", sudo_long, 0 },
	{ "doas", "auC", NULL, 0 },
	{ "nohup", "", NULL, 0 },
	{ "time", "fo", time_long, 0 },
	{ "command", "", NULL, 0 },
	{ "builtin", "", NULL, 0 },
	{ "exec", "a", NULL, 0 },
	{ "nice", "n", nice_long, 0 },
	{ "timeout", "sk", timeout_long, 1 },
	{ "xargs", "adEILnPs", xargs_long, 0 },
	{ "stdbuf", "ioe", stdbuf_long, 0 },
	{ "ionice", "cnpPu", ionice_long, 0 },
	{ "setsid", "", NULL, 0 },
	{ "busybox", "", NULL, 0 },
};

static const struct wrapper *
find_wrapper(const char *program)
{
	for (size_t i = 0; i < sizeof(wrappers) / sizeof(wrappers[0]); i++)
		if (strcmp(program, wrappers[i].name) == 0)
			return &wrappers[i];
	return NULL;
}

static bool
is_shell(const char *program)
{
	static const char *const shells[] = { "sh", "bash", "dash", "zsh",
		"ksh", "mksh", "ash" };

	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (strcmp(program, shells[i]) == 0)
			return true;
	return false;
}

/*
 * The options of a shell run as words[0..n): *has_c tells whether -c was
 * given (-c, -lc, -ec, ...), *has_s whether -s was. Returns the index of
 * the first operand (n when there is none): the command string with -c,
 * else the script.
 */
static size_t
shell_operands(char *const *words, size_t n, bool *has_c, bool *has_s)
{
	size_t i = 1;

	*has_c = *has_s = false;
	while (i < n) {
		const char *s = words[i];
		bool takes_argument = false;

		if (strcmp(s, "--") == 0 || strcmp(s, "-") == 0) {
			i++;
			break;
		}
		if ((s[0] != '-' && s[0] != '+') || s[1] == '\0')
			break;
		if (s[0] == '-' && s[1] == '-') {
			if (strcmp(s, "--rcfile") == 0 ||
			    strcmp(s, "--init-file") == 0)
				i++;
			i++;
			continue;
		}
		for (size_t j = 1; s[j] != '\0'; j++) {
			if (s[j] == 'c' && s[0] == '-')
				*has_c = true;
			else if (s[j] == 's' && s[0] == '-')
				*has_s = true;
			else if (s[j] == 'o' || s[j] == 'O')
				takes_argument = true;
		}
		i += takes_argument ? 2 : 1;
	}
	return i < n ? i : n;
}

/*
 * The command string of a shell run as words[0..n): the first operand
 * after the options when -c is among them (-c, -lc, -ec, ...), else NULL.
 * *has_c tells whether -c was given.
 */
static const char *
shell_command_string(char *const *words, size_t n, bool *has_c)
{
	bool has_s;
	size_t i = shell_operands(words, n, has_c, &has_s);

	return *has_c && i < n ? words[i] : NULL;
}

/*
 * An interpreter of another language, and how its options say where its
 * program comes from: an option giving it inline (or by module or file
 * name) means not standard input.
 */
struct interpreter {
	const char *name;		 /* also with a version: python3.12 */
	const char *inline_letters;	 /* the program follows (-c, -e) */
	const char *argument_letters;	 /* take an argument, attached or
					    the next word */
	const char *attached_letters;	 /* take the rest of the word */
	const char *digit_letters;	 /* take the digits that follow */
	const char *const *inline_long;	 /* --eval=CODE, --eval CODE */
	const char *const *argument_long; /* long options with an argument */
};

static const char *const node_inline[] = { "eval", "print", NULL };
static const char *const node_argument[] = { "require", "import",
	"input-type", "loader", "experimental-loader", "conditions", "title",
	"env-file", "stack-size", NULL };

static const struct interpreter interpreters[] = {
	{ "python", "cm", "WXQ", "", "", NULL, NULL },
	{ "pypy", "cm", "WXQ", "", "", NULL, NULL },
	{ "perl", "eE", "", "ixCdDMmI", "0l", NULL, NULL },
	{ "ruby", "e", "IrCE", "FTxKW", "0", NULL, NULL },
	{ "node", "ep", "r", "", "", node_inline, node_argument },
	{ "nodejs", "ep", "r", "", "", node_inline, node_argument },
	{ "php", "rfRBEF", "cdz", "", "", NULL, NULL },
	{ "lua", "e", "l", "", "", NULL, NULL },
	{ "luajit", "e", "lj", "", "", NULL, NULL },
	{ "tclsh", "", "", "", "", NULL, NULL },
	{ "Rscript", "e", "", "", "", NULL, NULL },
};

/* The interpreter program is (its name, maybe with a version), or NULL. */
static const struct interpreter *
find_interpreter(const char *program)
{
	for (size_t i = 0; i < sizeof(interpreters) / sizeof(interpreters[0]);
	     i++) {
		size_t len = strlen(interpreters[i].name);

		if (strncmp(program, interpreters[i].name, len) == 0 &&
		    strspn(program + len, "0123456789.") == strlen(program + len))
			return &interpreters[i];
	}
	return NULL;
}

/*
 * The options of interpreter it run as words[0..n): *given_inline tells
 * whether an option gave the program (inline, or a module or file by
 * name). Returns the index of the first operand (n when there is none):
 * the script, or "-" for standard input.
 */
static size_t
interpreter_operands(const struct interpreter *it, char *const *words,
    size_t n, bool *given_inline)
{
	size_t i = 1;

	*given_inline = false;
	while (i < n && !*given_inline) {
		const char *s = words[i];

		if (strcmp(s, "--") == 0)
			return i + 1 < n ? i + 1 : n;
		if (s[0] != '-' || s[1] == '\0')
			return i;
		i++;
		if (s[1] == '-') {
			const char *name = s + 2, *equals = strchr(name, '=');
			size_t len = equals ? (size_t)(equals - name)
					    : strlen(name);

			if (in_list(name, len, it->inline_long))
				*given_inline = true;
			else if (equals == NULL &&
			    in_list(name, len, it->argument_long))
				i++;
			continue;
		}
		for (size_t j = 1; s[j] != '\0'; j++) {
			if (strchr(it->inline_letters, s[j]) != NULL) {
				*given_inline = true;
				break;
			}
			if (strchr(it->argument_letters, s[j]) != NULL) {
				if (s[j + 1] == '\0')
					i++;
				break;
			}
			if (strchr(it->attached_letters, s[j]) != NULL)
				break;
			if (strchr(it->digit_letters, s[j]) != NULL)
				while (s[j + 1] != '\0' &&
				    strchr("0123456789abcdefABCDEFx", s[j + 1]))
					j++;
		}
	}
	return i < n ? i : n;
}

/* Whether path names standard input. */
static bool
is_stdin_path(const char *path)
{
	return strcmp(path, "-") == 0 || strcmp(path, "/dev/stdin") == 0 ||
	    strcmp(path, "/dev/fd/0") == 0 ||
	    strcmp(path, "/proc/self/fd/0") == 0;
}

/* Whether a word is a process substitution, <(...). */
static bool
is_process_substitution(const char *word)
{
	return word[0] == '<' && word[1] == '(';
}

/*
 * Why the script or program of words[0..n) (already unwrapped) cannot be
 * known without running the line, or NULL: a shell, source (.) or an
 * interpreter reading it from standard input that is a pipe or a file, or
 * from a process substitution; through xargs, a shell's -c string that
 * xargs supplies.
 */
static const char *
script_unknown(char *const *words, size_t n, enum stdin_source stdin_from,
    bool through_xargs)
{
	const char *program = base_name(words[0]);
	const struct interpreter *it = find_interpreter(program);
	bool fed = stdin_from == STDIN_PIPE || stdin_from == STDIN_FILE;
	bool has_c, has_s, given_inline;
	const char *script;
	size_t i;

	if (is_shell(program)) {
		i = shell_operands(words, n, &has_c, &has_s);
		if (has_c)
			return i == n && through_xargs ? "xargs supplies the "
			    "command string of a shell's -c" : NULL;
		script = i < n && !has_s ? words[i] : NULL;
	} else if (strcmp(program, "source") == 0 || strcmp(program, ".") == 0) {
		i = 1 < n && strcmp(words[1], "--") == 0 ? 2 : 1;
		if (i >= n)
			return NULL;
		script = words[i];
	} else if (it != NULL) {
		i = interpreter_operands(it, words, n, &given_inline);
		if (given_inline)
			return NULL;
		script = i < n ? words[i] : NULL;
	} else {
		return NULL;
	}
	if (script != NULL && is_process_substitution(script))
		return "it runs a script from a process substitution";
	if (fed && (script == NULL || is_stdin_path(script)))
		return "it reads its script from standard input, which is a "
		       "pipe or a file";
	return NULL;
}

/*
 * Note the environment options of env at words[from..to): -i, - and
 * --ignore-environment as "-", -u NAME and --unset NAME as "-NAME".
 */
static void
note_env_options(struct parser *p, char *const *words, size_t from,
    size_t to)
{
	for (size_t i = from; i < to; i++) {
		const char *s = words[i];

		if (strcmp(s, "-") == 0 || strcmp(s, "--ignore-environment") == 0) {
			note_environment(p, "-");
		} else if (strncmp(s, "--unset=", 8) == 0) {
			note_unset(p, s + 8);
		} else if (strcmp(s, "--unset") == 0 && i + 1 < to) {
			note_unset(p, words[++i]);
		} else if ((strcmp(s, "--chdir") == 0 ||
		    strcmp(s, "--split-string") == 0) && i + 1 < to) {
			i++;
		} else if (s[0] == '-' && s[1] != '-') {
			for (size_t j = 1; s[j] != '\0'; j++) {
				if (s[j] == 'i') {
					note_environment(p, "-");
				} else if (s[j] == 'u' || s[j] == 'C' ||
				    s[j] == 'S') {
					const char *argument = s[j + 1] ? s + j + 1
					    : i + 1 < to ? words[++i] : NULL;

					if (s[j] == 'u' && argument != NULL)
						note_unset(p, argument);
					break;
				}
			}
		}
	}
}

/*
 * Note what the builtins unset, export, declare, typeset, local and
 * readonly at words[0..n) do to the environment.
 */
static void
note_builtin_environment(struct parser *p, char *const *words, size_t n)
{
	const char *program = words[0];
	bool removes = false, functions = false;
	size_t i = 1;

	if (strcmp(program, "unset") == 0) {
		removes = true;
	} else if (strcmp(program, "export") != 0 &&
	    strcmp(program, "declare") != 0 && strcmp(program, "typeset") != 0 &&
	    strcmp(program, "local") != 0 && strcmp(program, "readonly") != 0) {
		return;
	}
	for (; i < n && (words[i][0] == '-' || words[i][0] == '+') &&
	     words[i][1] != '\0'; i++) {
		if (strcmp(words[i], "--") == 0) {
			i++;
			break;
		}
		if (strchr(words[i], 'f') != NULL || strchr(words[i], 'F'))
			functions = true;
		/* export -n NAME, declare +x NAME: no longer exported. */
		if ((words[i][0] == '-' && strchr(words[i], 'n') &&
		    strcmp(program, "export") == 0) ||
		    (words[i][0] == '+' && strchr(words[i], 'x')))
			removes = true;
	}
	for (; i < n && !functions; i++) {
		if (is_assignment(words[i]))
			note_environment(p, words[i]);
		else if (removes)
			note_unset(p, words[i]);
	}
}


/* words[0..n) joined by single spaces; the caller frees it. */
static char *
join_words(char *const *words, size_t n)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			buf_addch(&b, ' ');
		buf_adds(&b, words[i]);
	}
	return buf_detach(&b, NULL);
}

static int
parse_joined(struct parser *p, char *const *words, size_t n,
    const struct command_input *given, int depth)
{
	char *text = join_words(words, n);
	int rc = parse_script(text, p->out, p->why, NULL, given, depth + 1);

	free(text);
	return rc;
}

/*
 * Add the commands that the unwrapped command words[0..n), given its
 * input and placeholder, runs itself: sh -c STRING and eval (whose
 * commands are given the same), su -c, script -c, ssh HOST COMMAND, find
 * -exec and alias values; note what builtins do to the environment. Notes
 * in p when a shell runs without -c. Returns 0 or -1.
 */
static int
add_inner_commands(struct parser *p, char *const *words, size_t n,
    const struct command_input *given, int depth)
{
	static const char *const su_long[] = { "command", "shell", "group",
		"supp-group", "whitelist-environment", NULL };
	static const char *const script_long[] = { "command", "log-io",
		"log-in", "log-out", "log-timing", "logging-format", "echo",
		"output-limit", "timing", NULL };
	const char *program = base_name(words[0]);
	const char *string = NULL;
	bool has_c;
	size_t i;
	int rc = 0;

	note_builtin_environment(p, words, n);
	if (is_shell(program)) {
		string = shell_command_string(words, n, &has_c);
		if (!has_c)
			p->runs_shell = true;
		if (string != NULL)
			rc = parse_script(string, p->out, p->why, NULL, given,
			    depth + 1);
	} else if (strcmp(program, "eval") == 0 && n > 1) {
		rc = parse_joined(p, words + 1, n - 1, given, depth);
	} else if (strcmp(program, "su") == 0) {
		/* su takes options after the user too. */
		for (i = 1; i < n; i++)
			i = skip_options(words, i, n, "cgGsw", su_long, 'c',
			    "command", &string);
		if (string != NULL)
			rc = parse_script(string, p->out, p->why, NULL,
			    &nothing_given, depth + 1);
	} else if (strcmp(program, "script") == 0) {
		/* util-linux script -c COMMAND [FILE]: $SHELL -c COMMAND. */
		skip_options(words, 1, n, "cTIOBmEo", script_long, 'c', "command",
		    &string);
		if (string != NULL)
			rc = parse_script(string, p->out, p->why, NULL,
			    &nothing_given, depth + 1);
	} else if (strcmp(program, "ssh") == 0) {
		i = skip_options(words, 1, n, "BbcDEeFIiJLlmOoPpQRSWw", NULL,
		    '\0', NULL, NULL);
		if (i + 1 < n)
			rc = parse_joined(p, words + i + 1, n - i - 1,
			    &nothing_given, depth);
	} else if (strcmp(program, "alias") == 0 && p->out != NULL) {
		/* alias NAME=VALUE: VALUE starts the commands it stands for. */
		for (i = 1; i < n && rc == 0; i++) {
			const char *value = strchr(words[i], '=');
			size_t first = p->out->count;

			if (value == NULL || value[1] == '\0')
				continue;
			rc = parse_script(value + 1, p->out, p->why, NULL,
			    &nothing_given, depth + 1);
			for (size_t k = first; k < p->out->count; k++)
				p->out->commands[k].arguments_added = true;
		}
	} else if (strcmp(program, "find") == 0) {
		for (i = 1; i < n && rc == 0; i++) {
			size_t end;

			if (strcmp(words[i], "-exec") != 0 &&
			    strcmp(words[i], "-execdir") != 0 &&
			    strcmp(words[i], "-ok") != 0 &&
			    strcmp(words[i], "-okdir") != 0)
				continue;
			for (end = i + 1; end < n &&
			     strcmp(words[end], ";") != 0 &&
			     strcmp(words[end], "+") != 0; end++)
				continue;
			if (end > i + 1) {
				struct command_input input = { NULL,
					given->stdin_from, "{}" };

				rc = add_simple_command(p, words + i + 1,
				    end - i - 1, &input, depth + 1);
			}
			i = end;
		}
	}
	return rc;
}

/*
 * Append words[0..n) to out as a command, the first reduced to its
 * basename unless keep_program_word (an expansion's text is no path).
 */
static void
add_command(struct cmdline *out, char *const *words, size_t n,
    bool keep_program_word)
{
	struct cmdline_command *command;

	xgrow((void **)&out->commands, &out->alloc, out->count + 1,
	    sizeof(*command));
	command = &out->commands[out->count++];
	memset(command, 0, sizeof(*command));
	strlist_add(&command->words, keep_program_word ? words[0]
						       : base_name(words[0]));
	for (size_t i = 1; i < n; i++)
		strlist_add(&command->words, words[i]);
}

/*
 * Split text into words only (operators ignored), appending them to words:
 * for env -S. Returns 0 or -1.
 */
static int
split_words(struct parser *p, const char *text, int depth,
    struct strlist *words, struct buf *flags)
{
	struct parser q;
	int rc;

	parser_init(&q, text, p->out, p->why, depth);
	q.collect = words;
	q.collect_flags = flags;
	rc = parse_list(&q, false);
	parser_release(&q);
	return rc;
}

/*
 * Add the simple command words[0..n), made as input says, to p->out:
 * unwrapped (assignments and wrappers peeled, the environment changes they
 * make noted), then each form with wrappers still on, outermost first,
 * then the commands it runs. Each form says whether its program is
 * unresolved and whether arguments are added. Returns 0 or -1.
 */
static int
add_simple_command(struct parser *p, char *const *words, size_t n,
    const struct command_input *input, int depth)
{
	size_t *stages = NULL, stage_count = 0, stage_alloc = 0;
	size_t i = take_assignments(p, words, 0, n), first;
	const char *placeholder = input->placeholder, *unresolved = NULL;
	bool delegated = false, through_xargs = false, replaced = false;
	enum stdin_source program_stdin = input->stdin_from;
	int rc = 0;

	if (depth >= MAX_DEPTH)
		return fail(p, "command nested too deeply");
	while (i < n) {
		const struct wrapper *wrapper;
		const char *watched = NULL;
		size_t next;
		bool is_env, is_xargs;

		wrapper = find_wrapper(base_name(words[i]));
		if (wrapper == NULL)
			break;
		if (stage_count >= MAX_DEPTH) {
			rc = fail(p, "command nested too deeply");
			break;
		}
		xgrow((void **)&stages, &stage_alloc, stage_count + 1,
		    sizeof(*stages));
		stages[stage_count++] = i;
		is_env = strcmp(wrapper->name, "env") == 0;
		is_xargs = strcmp(wrapper->name, "xargs") == 0;
		next = i + 1;
		for (;;) {
			next = skip_options(words, next, n,
			    wrapper->short_with_argument,
			    wrapper->long_with_argument,
			    is_env ? 'S' : is_xargs ? 'I' : '\0',
			    is_env ? "split-string" : is_xargs ? "replace" : NULL,
			    &watched);
			/* "env -" is "env -i". */
			if (!is_env || next >= n ||
			    strcmp(words[next], "-") != 0)
				break;
			next++;
		}
		if (is_env)
			note_env_options(p, words, i + 1, next);
		if (is_xargs) {
			/* Its program reads nothing from xargs' input. */
			through_xargs = true;
			program_stdin = STDIN_INHERITED;
			for (size_t k = i + 1; k < next; k++)
				if (strcmp(words[k], "--replace") == 0 ||
				    strncmp(words[k], "-i", 2) == 0)
					watched = words[k][1] == 'i' && words[k][2]
					    ? words[k] + 2 : "{}";
			if (watched != NULL) {
				placeholder = watched;
				replaced = true;
			}
		}
		next += wrapper->operands;
		if (is_env && watched != NULL) {
			/*
			 * env -S STRING ARG...: STRING's words (env's own
			 * options first), then ARG...
			 */
			struct strlist spliced = STRLIST_INIT;
			struct buf flags = BUF_INIT;
			struct command_input inner = *input;
			size_t start = 0;

			rc = split_words(p, watched, depth + 1, &spliced, &flags);
			for (size_t k = next; rc == 0 && k < n; k++) {
				strlist_add(&spliced, words[k]);
				buf_addch(&flags, input->flags ? input->flags[k] : 0);
			}
			if (rc == 0) {
				start = skip_options(spliced.items, 0,
				    spliced.count, wrapper->short_with_argument,
				    wrapper->long_with_argument, '\0', NULL, NULL);
				note_env_options(p, spliced.items, 0, start);
			}
			inner.flags = flags.buf + start;
			if (rc == 0 && start < spliced.count)
				rc = add_simple_command(p, spliced.items + start,
				    spliced.count - start, &inner, depth + 1);
			strlist_release(&spliced);
			buf_release(&flags);
			delegated = true;
			break;
		}
		i = take_assignments(p, words, next, n);
	}
	if (rc < 0) {
		free(stages);
		return -1;
	}
	/* (A spliced env -S command has said it all.) */
	if (!delegated && i >= n && through_xargs &&
	    strcmp(base_name(words[stages[stage_count - 1]]), "xargs") != 0)
		unresolved = "xargs reads the program from its input";
	else if (delegated || i >= n)
		unresolved = NULL; /* bare xargs runs echo */
	else if (placeholder && *placeholder && strstr(words[i], placeholder))
		unresolved = "xargs or find fills in the program when it runs";
	else if (input->flags && (input->flags[i] & WORD_DYNAMIC))
		unresolved = "the program is named by an expansion or a pattern";
	else
		unresolved = script_unknown(words + i, n - i, program_stdin,
		    through_xargs);
	first = p->out->count;
	if (!delegated && i < n)
		add_command(p->out, words + i, n - i, input->flags &&
		    (input->flags[i] & WORD_DYNAMIC));
	for (size_t k = 0; k < stage_count; k++)
		add_command(p->out, words + stages[k], n - stages[k], false);
	for (size_t k = first; k < p->out->count; k++) {
		p->out->commands[k].unresolved = unresolved;
		p->out->commands[k].arguments_added = through_xargs && !replaced;
	}
	if (rc == 0 && !delegated && i < n) {
		struct command_input given = { NULL, program_stdin, placeholder };

		rc = add_inner_commands(p, words + i, n - i, &given, depth);
	}
	free(stages);
	return rc;
}

/*
 * Split a whole script text into out, recording tokens when tokens is set.
 * Here-document and here-string bodies are split as scripts too when the
 * script runs a shell without -c. Returns 0 or -1.
 */
static int
parse_script(const char *text, struct cmdline *out, struct buf *why,
    struct strlist *tokens, const struct command_input *given, int depth)
{
	struct parser p;
	int rc;

	parser_init(&p, text, out, why, depth);
	if (depth >= MAX_DEPTH)
		return fail(&p, "command nested too deeply");
	p.tokens = tokens;
	p.stdin_from = p.stdin_default = given->stdin_from;
	p.placeholder = given->placeholder;
	rc = parse_list(&p, false);
	if (rc == 0 && p.runs_shell)
		for (size_t i = 0; i < p.bodies.count && rc == 0; i++)
			rc = parse_script(p.bodies.items[i], out, why, NULL,
			    &nothing_given, depth + 1);
	parser_release(&p);
	return rc;
}

void
cmdline_release(struct cmdline *line)
{
	for (size_t i = 0; i < line->count; i++)
		strlist_release(&line->commands[i].words);
	free(line->commands);
	line->commands = NULL;
	line->count = line->alloc = 0;
	strlist_release(&line->tokens);
	strlist_release(&line->environment);
	line->incomplete = false;
}

int
cmdline_parse(const char *text, struct cmdline *out, struct buf *why)
{
	size_t first_token = out->tokens.count;
	int rc = parse_script(text, out, why, &out->tokens, &nothing_given, 0);

	if (rc < 0) {
		/* Fail closed, and keep failures apart in the fingerprint. */
		struct buf token = BUF_INIT;

		out->incomplete = true;
		buf_adds(&token, "#unparsed ");
		render_word(&token, text, NULL, strlen(text));
		strlist_add_owned(&out->tokens, buf_detach(&token, NULL));
		return -1;
	}
	while (out->tokens.count > first_token &&
	    strcmp(out->tokens.items[out->tokens.count - 1], ";") == 0)
		free(out->tokens.items[--out->tokens.count]);
	return 0;
}

void
cmdline_from_argv(char *const *argv, size_t argc, struct cmdline *out)
{
	struct buf why = BUF_INIT;
	struct parser p;

	parser_init(&p, "", out, &why, 0);
	for (size_t i = 0; i < argc; i++) {
		struct buf token = BUF_INIT;

		render_word(&token, argv[i], NULL, strlen(argv[i]));
		strlist_add_owned(&out->tokens, buf_detach(&token, NULL));
	}
	if (argc > 0 && add_simple_command(&p, argv, argc, &nothing_given, 0) < 0)
		out->incomplete = true;
	parser_release(&p);
	buf_release(&why);
}

int
cmdline_pattern_check(const char *pattern, struct strlist *words,
    struct buf *why)
{
	struct strlist collected = STRLIST_INIT;
	struct parser p;
	int rc;

	parser_init(&p, pattern, NULL, why, 0);
	p.pattern = true;
	p.collect = &collected;
	rc = parse_list(&p, false);
	parser_release(&p);
	if (rc == 0 && p.collected > 1)
		rc = fail(&p, "a pattern is one command");
	else if (rc == 0 && collected.count == 0)
		rc = fail(&p, "empty pattern");
	if (rc < 0) {
		strlist_release(&collected);
		return -1;
	}
	strlist_add(words, base_name(collected.items[0]));
	for (size_t i = 1; i < collected.count; i++)
		strlist_add(words, collected.items[i]);
	strlist_release(&collected);
	return 0;
}

/*
 * Whether the glob pattern matches word; a word -opt=value is also tried
 * as -opt. A pattern fnmatch() cannot use matches (when in doubt, match).
 */
static bool
word_matches(const char *pattern, const char *word, bool split_option)
{
	const char *equals;
	char *name;
	int rc;

	rc = fnmatch(pattern, word, 0);
	if (rc != FNM_NOMATCH)
		return true;
	if (!split_option || word[0] != '-' ||
	    (equals = strchr(word, '=')) == NULL)
		return false;
	name = xstrndup(word, (size_t)(equals - word));
	rc = fnmatch(pattern, name, 0);
	free(name);
	return rc != FNM_NOMATCH;
}

bool
cmdline_command_matches(const struct strlist *pattern_words,
    const struct cmdline_command *command)
{
	const struct strlist *words = &command->words;
	size_t next = 1;

	if (pattern_words->count == 0 || words->count == 0)
		return false;
	if (!word_matches(base_name(pattern_words->items[0]), words->items[0],
		false))
		return false;
	/* In order, each as early as possible: finds a match if one exists. */
	for (size_t i = 1; i < pattern_words->count; i++) {
		const char *pattern = pattern_words->items[i];

		if (i == pattern_words->count - 1 && strcmp(pattern, "*") == 0)
			return true;
		while (next < words->count &&
		    !word_matches(pattern, words->items[next], true))
			next++;
		if (next == words->count)
			return false;
		next++;
	}
	return true;
}

bool
cmdline_matches(const struct strlist *pattern_words,
    const struct cmdline *line)
{
	if (line->incomplete)
		return true;
	for (size_t i = 0; i < line->count; i++)
		if (cmdline_command_matches(pattern_words, &line->commands[i]))
			return true;
	return false;
}

static void
add_json_string(struct buf *out, const char *s)
{
	buf_addch(out, '"');
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			buf_addch(out, '\\');
			buf_addch(out, (char)c);
		} else if (c == '\n') {
			buf_adds(out, "\\n");
		} else if (c == '\t') {
			buf_adds(out, "\\t");
		} else if (c < 0x20 || c == 0x7f) {
			buf_addf(out, "\\u%04x", c);
		} else {
			buf_addch(out, (char)c);
		}
	}
	buf_addch(out, '"');
}

void
cmdline_fingerprint(const struct cmdline *line, const char *cwd,
    struct buf *out)
{
	buf_addch(out, '[');
	for (size_t i = 0; i < line->tokens.count; i++) {
		if (i > 0)
			buf_addch(out, ',');
		add_json_string(out, line->tokens.items[i]);
	}
	buf_adds(out, "]\n");
	buf_adds(out, cwd != NULL ? cwd : "");
}

void
cmdline_quote_word(struct buf *out, const char *word)
{
	if (*word && strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
	    "vwxyz0123456789_./:=@%+,-") == strlen(word)) {
		buf_adds(out, word);
		return;
	}
	buf_addch(out, '\'');
	for (const char *p = word; *p; p++)
		if (*p == '\'')
			buf_adds(out, "'\\''");
		else
			buf_addch(out, *p);
	buf_addch(out, '\'');
}
