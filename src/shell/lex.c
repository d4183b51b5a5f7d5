/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The lexer of shell command lines (shell/cmdline.h): sh's tokenising
 * without running anything. It splits a text into simple commands and
 * words (quotes, escapes, $'...', substitutions, redirections,
 * here-documents, comments), records the canonical tokens that make a
 * line's fingerprint, and hands each simple command to the unwrapper
 * (unwrap.c). It also holds the entry points that start a line,
 * cmdline_parse() and cmdline_from_argv(), and a line's lifecycle.
 *
 * Separate because it knows only how sh reads bytes, nothing about which
 * programs run others (unwrap.c) or what a gate's pattern means
 * (match.c). The two directions meet in cmdline_internal.h: a command
 * whose unwrapping finds a script (sh -c STRING, eval, env -S) sends it
 * back here with lex_parse_script().
 */
#include "shell/cmdline_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/hex.h"

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

struct heredoc {
	char *delimiter; /* owned, after quote removal */
	bool strip_tabs; /* <<- */
	bool expand;	 /* unquoted delimiter: $(...) in the body runs */
};

/* What the commands of a script are given when nothing else says. */
const struct command_input lex_nothing_given = { NULL, STDIN_INHERITED,
	NULL };

static int parse_word(struct parser *, struct word *);

void
lex_parser_init(struct parser *p, const char *text, struct cmdline *out,
    struct buf *why, int depth)
{
	memset(p, 0, sizeof(*p));
	p->text = text;
	p->out = out;
	p->why = why;
	p->depth = depth;
}

void
lex_parser_release(struct parser *p)
{
	for (size_t i = 0; i < p->pending_count; i++)
		free(p->pending[i].delimiter);
	free(p->pending);
	p->pending = NULL;
	p->pending_count = p->pending_alloc = 0;
	strlist_release(&p->bodies);
}

int
lex_fail(struct parser *p, const char *reason)
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

bool
lex_is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool
lex_is_name_char(char c)
{
	return lex_is_name_start(c) || is_digit(c);
}

/* Characters that mean nothing to the shell unquoted (and are not NUL). */
static bool
is_safe(char c)
{
	return lex_is_name_char(c) || (c != '\0' && strchr("-./:=+@%,", c));
}

/* Whether c ends an unquoted word. */
static bool
is_metachar(char c)
{
	return c == '\0' || c == ' ' || c == '\t' || c == '\n' ||
	    strchr(";&|()<>", c) != NULL;
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
		return lex_fail(p, "a pattern cannot contain a substitution");
	if (p->depth >= MAX_DEPTH)
		return lex_fail(p, "command nested too deeply");
	p->pos += 2;
	p->tokens = NULL; /* the word holds the text as written */
	p->depth++;
	/* The commands inside read what the line was given. */
	saved_from = p->stdin_from;
	saved_default = p->stdin_default;
	p->stdin_from = p->stdin_default = STDIN_INHERITED;
	rc = lex_parse_list(p, true);
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
		return lex_fail(p, "a pattern cannot contain a substitution");
	p->pos++;
	for (;;) {
		char c = p->text[p->pos];

		if (c == '\0') {
			buf_release(&inner);
			return lex_fail(p,
			    "unterminated backquote substitution");
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
	rc = lex_parse_script(inner.buf, p->out, p->why, NULL,
	    &lex_nothing_given, p->depth + 1);
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
			return lex_fail(p, "unterminated ${...}");
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
				return lex_fail(p, "unterminated single quote");
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
	if (lex_is_name_start(s[1])) {
		for (len = 2; lex_is_name_char(s[len]); len++)
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
			return lex_fail(p, "unterminated double quote");
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
			return lex_fail(p, "unterminated $'...' quote");
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
			return lex_fail(p, "unterminated $'...' quote");
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
				return lex_fail(p, "unterminated single quote");
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
		return lex_fail(p, "a pattern cannot contain a redirection; "
				   "quote '<' and '>'");
	buf_adds(&op, io_number);
	buf_add(&op, s, len);
	p->pos += len;
	skip_blanks(p);
	c = p->text[p->pos];
	next = c != '\0' ? p->text[p->pos + 1] : '\0';
	if (is_metachar(c) && !((c == '<' || c == '>') && next == '(')) {
		buf_release(&op);
		return lex_fail(p, "redirection without a target");
	}
	word_init(&target);
	if (parse_word(p, &target) < 0)
		rc = -1;
	else if (target.text.len == 0 && !target.quoted)
		rc = lex_fail(p, "redirection without a target");
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
				rc = lex_fail(p, "command nested too deeply");
			} else {
				lex_parser_init(&q, body.buf, p->out, p->why,
				    p->depth + 1);
				q.stdin_from = q.stdin_default = STDIN_INHERITED;
				word_init(&ignored);
				rc = parse_double_quoted(&q, &ignored, true);
				word_release(&ignored);
				if (rc == 0 && q.runs_shell)
					p->runs_shell = true;
				lex_parser_release(&q);
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
	rc = unwrap_add_simple_command(p, strlist_argv(words), words->count,
	    &input, p->depth);
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
int
lex_parse_list(struct parser *p, bool in_substitution)
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
				rc = lex_fail(p, "unterminated command "
					     "substitution ('$(' without ')')");
			break;
		}
		if (s[0] == '#') {
			if (p->pattern) {
				rc = lex_fail(p, "a pattern cannot contain a "
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
			rc = lex_fail(p, "a pattern is one command: it cannot "
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

/*
 * Split a whole script text into out, recording tokens when tokens is set.
 * Here-document and here-string bodies are split as scripts too when the
 * script runs a shell without -c. Returns 0 or -1.
 */
int
lex_parse_script(const char *text, struct cmdline *out, struct buf *why,
    struct strlist *tokens, const struct command_input *given, int depth)
{
	struct parser p;
	int rc;

	lex_parser_init(&p, text, out, why, depth);
	if (depth >= MAX_DEPTH)
		return lex_fail(&p, "command nested too deeply");
	p.tokens = tokens;
	p.stdin_from = p.stdin_default = given->stdin_from;
	p.placeholder = given->placeholder;
	rc = lex_parse_list(&p, false);
	if (rc == 0 && p.runs_shell)
		for (size_t i = 0; i < p.bodies.count && rc == 0; i++)
			rc = lex_parse_script(p.bodies.items[i], out, why, NULL,
			    &lex_nothing_given, depth + 1);
	lex_parser_release(&p);
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
	int rc = lex_parse_script(text, out, why, &out->tokens,
	    &lex_nothing_given, 0);

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
cmdline_from_argv(const char *const *argv, size_t argc, struct cmdline *out)
{
	struct buf why = BUF_INIT;
	struct parser p;

	lex_parser_init(&p, "", out, &why, 0);
	for (size_t i = 0; i < argc; i++) {
		struct buf token = BUF_INIT;

		render_word(&token, argv[i], NULL, strlen(argv[i]));
		strlist_add_owned(&out->tokens, buf_detach(&token, NULL));
	}
	if (argc > 0 && unwrap_add_simple_command(&p, argv, argc,
	    &lex_nothing_given, 0) < 0)
		out->incomplete = true;
	lex_parser_release(&p);
	buf_release(&why);
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
