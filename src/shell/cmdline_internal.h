/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * What the three parts of shell/ share: the lexer (lex.c), the unwrapper
 * (unwrap.c) and the matcher (match.c); not for the rest of daicho,
 * which uses shell/cmdline.h. The lexer and the unwrapper call each
 * other: each simple command the lexer finishes goes to
 * unwrap_add_simple_command(), and each script the unwrapper finds in a
 * command (sh -c STRING, eval, env -S) goes back to lex_parse_script().
 * Names carry the prefix of the file that defines them.
 */
#ifndef DAICHO_CMDLINE_INTERNAL_H
#define DAICHO_CMDLINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "shell/cmdline.h"
#include "util/buf.h"
#include "util/strlist.h"

/* Deeper nesting of substitutions, sh -c strings and wrappers fails. */
#define MAX_DEPTH 64

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

struct heredoc; /* a here-document waiting for its body (lex.c) */

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

/* What the commands of a script are given when nothing else says. */
extern const struct command_input lex_nothing_given;

/* Start p splitting text into out at nesting depth; why takes failures. */
void lex_parser_init(struct parser *p, const char *text, struct cmdline *out,
    struct buf *why, int depth);

/* Free what p holds (not text, out or why). */
void lex_parser_release(struct parser *p);

/* Append reason to p's why (when there is one); returns -1. */
int lex_fail(struct parser *p, const char *reason);

/* Whether c may start a shell variable name: a letter or '_'. */
bool lex_is_name_start(char c);

/* Whether c may continue a shell variable name: a letter, digit or '_'. */
bool lex_is_name_char(char c);

/*
 * Split commands from p->pos to the end of the text or, in_substitution,
 * to the ')' closing a $(...) (p->pos is left after it). Returns 0 or -1.
 */
int lex_parse_list(struct parser *p, bool in_substitution);

/*
 * Split a whole script text into out, recording tokens when tokens is set,
 * its commands made as given says. Here-document and here-string bodies
 * are split as scripts too when the script runs a shell without -c.
 * Returns 0 or -1.
 */
int lex_parse_script(const char *text, struct cmdline *out, struct buf *why,
    struct strlist *tokens, const struct command_input *given, int depth);

/* The part of path after its last '/' (path itself when nothing follows). */
const char *unwrap_base_name(const char *path);

/*
 * Add the simple command words[0..n), made as input says, to p->out:
 * unwrapped, then each form with wrappers still on, outermost first, then
 * the commands it runs. Returns 0 or -1.
 */
int unwrap_add_simple_command(struct parser *p, const char *const *words,
    size_t n, const struct command_input *input, int depth);

#endif
