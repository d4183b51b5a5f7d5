/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * libFuzzer target for shell/cmdline: any bytes as a shell command line (as
 * a Bash tool sends it), as a gate pattern, and as the string of "sh -c".
 * Splitting, unwrapping, matching and fingerprinting must never crash, leak
 * or read out of bounds (run under ASan and UBSan by 'make fuzz').
 *
 * Round trips, which abort() when they fail: the words the lexer found,
 * quoted again with cmdline_quote_word() and joined by spaces, must split
 * into the same words. For a line (when it splits and no program in it is
 * unresolved), each simple command must come back among the commands of
 * its re-quoted words; for a gate pattern, the same pattern words.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shell/cmdline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Append words to out, each as cmdline_quote_word() writes it, by spaces. */
static void
quote_words(struct buf *out, const struct strlist *words)
{
	for (size_t i = 0; i < words->count; i++) {
		if (i > 0)
			buf_addch(out, ' ');
		cmdline_quote_word(out, words->items[i]);
	}
}

/*
 * Whether words quote as quoted does: then they are the same words, since
 * quoting them so can be read back only one way.
 */
static bool
quoted_alike(const struct strlist *words, const char *quoted)
{
	struct buf b = BUF_INIT;
	bool same;

	quote_words(&b, words);
	same = strcmp(b.buf, quoted) == 0;
	buf_release(&b);
	return same;
}

/*
 * Whether a command's first word is read by its text, however it is
 * quoted: the reserved words the lexer drops where a command starts, and
 * what may be a NAME=value assignment, which the unwrapper drops. A
 * command the unwrapper made with one first ("env '!' git" gives "! git",
 * "/bin/a=b" the program "a=b") cannot come back from its own words.
 */
static bool
read_by_text_at_start(const char *word)
{
	static const char *const reserved[] = { "!", "{", "}", "if", "then",
		"else", "elif", "fi", "do", "done", "while", "until", "esac" };

	if (strchr(word, '=') != NULL)
		return true;
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (strcmp(word, reserved[i]) == 0)
			return true;
	return false;
}

static void
round_trip_failed(const char *what, const struct strlist *words,
    const char *quoted)
{
	fprintf(stderr, "round trip of %s failed: %zu words, quoted as:\n%s\n",
	    what, words->count, quoted);
	abort();
}

/*
 * Each simple command of line, quoted again, must split into a line that
 * has that command among its own: first when it is an unwrapped one,
 * after that when it is a form with its wrappers still on.
 */
static void
check_line_round_trip(const struct cmdline *line)
{
	if (line->incomplete)
		return;
	for (size_t i = 0; i < line->count; i++)
		if (line->commands[i].unresolved != NULL)
			return;
	for (size_t i = 0; i < line->count; i++) {
		const struct strlist *words = &line->commands[i].words;
		struct cmdline again = CMDLINE_INIT;
		struct buf quoted = BUF_INIT;
		bool found = false;

		if (words->count == 0 ||
		    read_by_text_at_start(words->items[0]))
			continue;
		quote_words(&quoted, words);
		if (cmdline_parse(quoted.buf, &again, NULL) < 0)
			round_trip_failed("a command", words, quoted.buf);
		for (size_t j = 0; j < again.count && !found; j++)
			found = quoted_alike(&again.commands[j].words,
			    quoted.buf);
		if (!found)
			round_trip_failed("a command", words, quoted.buf);
		cmdline_release(&again);
		buf_release(&quoted);
	}
}

/* The words of a valid pattern, quoted again, must give the same words. */
static void
check_pattern_round_trip(const struct strlist *pattern)
{
	struct strlist again = STRLIST_INIT;
	struct buf quoted = BUF_INIT;

	quote_words(&quoted, pattern);
	if (cmdline_pattern_check(quoted.buf, &again, NULL) < 0 ||
	    !quoted_alike(&again, quoted.buf))
		round_trip_failed("a pattern", pattern, quoted.buf);
	strlist_release(&again);
	buf_release(&quoted);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	const char *argv[] = { "sh", "-c", text, NULL };
	struct cmdline line = CMDLINE_INIT, from_argv = CMDLINE_INIT;
	struct strlist pattern = STRLIST_INIT;
	struct buf why = BUF_INIT, fingerprint = BUF_INIT, quoted = BUF_INIT;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (cmdline_parse(text, &line, &why) == 0)
		check_line_round_trip(&line);
	cmdline_fingerprint(&line, "/repo", &fingerprint);
	cmdline_from_argv(argv, 3, &from_argv);
	buf_reset(&why);
	if (cmdline_pattern_check(text, &pattern, &why) == 0) {
		(void)cmdline_matches(&pattern, &line);
		(void)cmdline_matches(&pattern, &from_argv);
		check_pattern_round_trip(&pattern);
	}
	cmdline_quote_word(&quoted, text);
	cmdline_release(&line);
	cmdline_release(&from_argv);
	strlist_release(&pattern);
	buf_release(&why);
	buf_release(&fingerprint);
	buf_release(&quoted);
	free(text);
	return 0;
}
