/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The matcher of gate patterns (shell/cmdline.h): checking a pattern a
 * user writes, and matching its words against the simple commands of a
 * line, each word an fnmatch(3) glob.
 *
 * Separate because it is the only part that knows what a gate's pattern
 * means; it reads a pattern with the lexer's pattern mode (lex.c) and
 * reads lines only through struct cmdline.
 */
#include "shell/cmdline_internal.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

int
cmdline_pattern_check(const char *pattern, struct strlist *words,
    struct buf *why)
{
	struct strlist collected = STRLIST_INIT;
	struct parser p;
	int rc;

	lex_parser_init(&p, pattern, NULL, why, 0);
	p.pattern = true;
	p.collect = &collected;
	rc = lex_parse_list(&p, false);
	lex_parser_release(&p);
	if (rc == 0 && p.collected > 1)
		rc = lex_fail(&p, "a pattern is one command");
	else if (rc == 0 && collected.count == 0)
		rc = lex_fail(&p, "empty pattern");
	if (rc < 0) {
		strlist_release(&collected);
		return -1;
	}
	strlist_add(words, unwrap_base_name(collected.items[0]));
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
	if (!word_matches(unwrap_base_name(pattern_words->items[0]),
		words->items[0], false))
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
