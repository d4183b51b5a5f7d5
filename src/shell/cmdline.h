/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Shell command lines split into simple commands and words, and the gate
 * patterns matched against them. Three parts, a file each: the lexer
 * (shell/lex.c), the unwrapper (shell/unwrap.c) and the matcher
 * (shell/match.c).
 *
 * Splitting follows sh's tokenising without running or expanding anything:
 * 'single quotes', "double quotes" (\" \\ \$ \` and backslash-newline are
 * the escapes inside), $'ANSI-C' quotes, backslash escapes and
 * backslash-newline continuations are removed; the operators ; & && || |
 * |& ;; ( ) and newline separate simple commands; a # at the start of a word
 * begins a comment. Redirections (<, >, >>, >|, <>, &>, &>>, N>&M, <<WORD,
 * <<-WORD, <<<WORD) are dropped together with their target word.
 * Here-document bodies are read and are data, except that $(...) and
 * backticks in the body of an unquoted <<WORD run; and when the line runs a
 * shell without -c (sh, bash, dash, zsh, ksh, mksh, ash: "bash <<EOF",
 * "cat <<EOF | sh", "bash x.sh"), every here-document and here-string of
 * the line is also split as a script, since it may be the script.
 * The reserved words ! { } if then else elif fi do done while until esac
 * are dropped where a command starts.
 *
 * Substitutions: $(...), `...`, <(...) and >(...) stay in their word as
 * written, and the commands inside them are added as commands of their
 * own (before the command whose word holds them). ${...} and $NAME stay in
 * their word as written too.
 *
 * Each simple command is then unwrapped: leading NAME=value assignments are
 * dropped, and wrappers are peeled off with their options so the real
 * program comes first: env (-i, -u NAME, -C DIR, -S STRING is split, VAR=val
 * arguments), sudo (-u USER and its other options), doas, nohup, time,
 * command, builtin, exec, nice (-n N), timeout (options and DURATION),
 * xargs (options), stdbuf, ionice, setsid, busybox. The program word is
 * reduced to its basename (/usr/bin/git becomes git). The unwrapped command
 * comes first; then, when wrappers were peeled, each form with wrappers
 * still on, outermost first ("sudo -u root git push" adds "git push" and
 * "sudo -u root git push", so a gate on sudo still sees it). Commands run
 * by a command are added after it, which is kept too:
 *   sh|bash|dash|zsh|ksh|mksh|ash -c STRING (also -lc, -ec, ...): STRING
 *   eval ARG...: the arguments joined by spaces
 *   su ... -c STRING
 *   script [options] -c STRING [FILE] (util-linux)
 *   ssh [options] HOST COMMAND...: the command words joined by spaces
 *   find ... -exec|-execdir|-ok|-okdir COMMAND... ; (or +)
 *   alias NAME=VALUE: VALUE, as the start of a command (arguments are
 *   added where the alias is used)
 *
 * Programs that cannot be known without running the line: each command
 * says why in its unresolved field, or has it NULL. That is the case when
 *   - the program word's last path component holds an expansion or a glob
 *     ($VAR, ${...}, $(...), `...`, * ? [ {): "$(which git) push",
 *     "$d approve"; a variable only in the directory ("$HOME/bin/git")
 *     leaves the basename known, and a leading ~ is no expansion here;
 *   - a shell (sh -s, "bash", "bash -", "bash /dev/stdin", ". /dev/stdin")
 *     or an interpreter (python*, pypy*, perl, ruby, node, nodejs, php,
 *     lua*, tclsh, Rscript: no -c/-e/-m, no script operand, or "-") reads
 *     its program from standard input, and that input is a pipe or a file
 *     ("curl x | sh", "base64 -d <x | bash", "python3 < a.py"); a
 *     here-document or here-string is not (its body is split, for a shell);
 *   - a shell, an interpreter or source runs a script from a process
 *     substitution ("bash <(curl x)");
 *   - xargs supplies the program: no program after xargs, the -I (-i,
 *     --replace) string in the program word, or a shell's -c without its
 *     string; and find -exec whose program word holds {}.
 * The standard input of a command is followed through a pipe into the
 * next simple command (also into "( ... )" and "{ ... }") and through the
 * commands of sh -c STRING and eval; xargs gives its program none.
 * Commands run through xargs or from an alias value get arguments added
 * when they run (arguments_added).
 *
 * Changes to the environment of the commands run are listed in the line's
 * environment field, in order: "NAME=value" for an assignment before a
 * command or after env, a lone assignment, or export/declare/typeset/
 * local/readonly NAME=value; "-NAME" for env -u NAME (--unset), unset NAME
 * (not unset -f) and export -n / declare +x NAME; "-" for env -i (-,
 * --ignore-environment), which clears everything.
 *
 * Limits (a gate cannot see through these): variables, aliases, functions,
 * globs and brace expansion are not expanded ("git push $FLAGS" is matched
 * with the word $FLAGS as written); a program run through a script file, or
 * a wrapper not listed above, is not seen; the input of a command inside a
 * loop body or after the first command of a group is not followed.
 *
 * Ownership: a struct cmdline owns its commands, their words and its
 * tokens. Start from CMDLINE_INIT (or zeroed); cmdline_release() frees
 * everything and leaves an empty, reusable line.
 *
 * Gate patterns (what users write in a gate):
 *   A pattern is one simple command, split into words with the same quoting
 *   rules: quotes group words ('git commit -m *' is not "-m *"), but glob
 *   characters keep their meaning inside quotes too; write [*] for a literal
 *   star. A pattern cannot contain operators, redirections, substitutions or
 *   comments.
 *   - Each pattern word is an fnmatch(3) glob compared with one whole
 *     command word; * and ? also match '/', and case matters.
 *   - The first pattern word matches the program's basename (a pattern
 *     /usr/bin/git means git). Only the program counts: "echo git push
 *     --force" runs echo and does not match "git push --force*".
 *   - The other pattern words must match distinct command words in order,
 *     not necessarily adjacent: "git push --force*" matches "git push
 *     origin main --force" and "git -C repo push --force-with-lease".
 *   - A pattern word that is exactly * matches any one word, except that a
 *     trailing lone * matches zero or more words: "git merge *" matches
 *     "git merge" and "git merge feature".
 *   - A command word --opt=value (any word starting with '-' and holding
 *     '=') also matches a pattern word for the part before '='.
 *   - Combined short options are not taken apart: "git push -f" and "git
 *     push -fu" do not match "git push --force*", and "git push origin
 *     +main" (also a force push) does not either. Write one gate per
 *     spelling that matters.
 *   - A line that could not be split matches every pattern.
 */
#ifndef DAICHO_CMDLINE_H
#define DAICHO_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/strlist.h"

/* A simple command: its words, after shell quoting is removed. */
struct cmdline_command {
	struct strlist words;	/* the program's basename (the whole word
				   when unresolved), then its arguments */
	const char *unresolved; /* why its program cannot be known without
				   running the line (a static string), or
				   NULL: see above */
	bool arguments_added;	/* more arguments are added when it runs
				   (xargs, an alias) */
};

struct cmdline {
	struct cmdline_command *commands; /* owned; count of them in use */
	size_t count, alloc;
	struct strlist tokens; /* the line as written, canonically rendered
				  (words, operators, redirections,
				  here-document bodies): the fingerprint */
	bool incomplete;       /* splitting failed: matches every pattern */
	struct strlist environment; /* changes to the environment, in
				       order: "NAME=value", "-NAME", "-" */
};

#define CMDLINE_INIT { NULL, 0, 0, STRLIST_INIT, false, STRLIST_INIT }

void cmdline_release(struct cmdline *line);

/*
 * Split the shell command line text (as a Bash tool receives it) into its
 * simple commands, unwrapped as described above, and append them to out.
 * Returns 0, or -1 with a one-line reason appended to why (which may be
 * NULL) for an unterminated quote, substitution or ${...}, a redirection
 * without a target, nesting deeper than 64 levels (substitutions, wrappers,
 * sh -c strings), or a script found inside (sh -c STRING, a here-document
 * read by a shell) that fails so; out then keeps the commands found before
 * the failure and is marked incomplete, so that cmdline_matches() fails
 * closed.
 */
int cmdline_parse(const char *text, struct cmdline *out, struct buf *why);

/*
 * The same for an argv that is already split (from "daicho gate exec --
 * CMD ARG..."): one simple command, unwrapped as above, with the commands
 * it runs (sh -c STRING and the rest), appended to out. A script inside
 * that cannot be split (a malformed sh -c STRING) marks out incomplete.
 */
void cmdline_from_argv(const char *const *argv, size_t argc, struct cmdline *out);

/*
 * Check a gate pattern and append its words to words (the first reduced to
 * its basename). Returns 0, or -1 with a one-line reason appended to why
 * when the pattern is empty, has an unterminated quote, or holds an
 * operator, a redirection, a substitution or a comment; words is then
 * unchanged.
 */
int cmdline_pattern_check(const char *pattern, struct strlist *words,
    struct buf *why);

/* Whether the pattern words match one simple command (rules above). */
bool cmdline_command_matches(const struct strlist *pattern_words,
    const struct cmdline_command *command);

/*
 * Whether the pattern words match any simple command of line; always true
 * for an incomplete line (fail closed).
 */
bool cmdline_matches(const struct strlist *pattern_words,
    const struct cmdline *line);

/*
 * Append the fingerprint of line run in cwd, for approvals: the line's
 * tokens as a JSON array of strings, "\n", then cwd. A token is a word,
 * operator, redirection or here-document body in a canonical shell quoting
 * that keeps what quoting means: the same words and operators give the same
 * fingerprint however they were quoted or spaced ('a b', "a b" and a\ b
 * agree; * and '*' do not, nor do "$x" and $x). Redirections and
 * here-document bodies count, comments do not; line breaks count as ';',
 * and a trailing ';' is dropped. An argv (cmdline_from_argv()) fingerprints
 * like the same words typed with quotes. Text inside $(...) is kept as
 * written, so spacing there does change the fingerprint.
 */
void cmdline_fingerprint(const struct cmdline *line, const char *cwd,
    struct buf *out);

/* Append word to out as sh would read it back: bare when safe, else in
 * single quotes. */
void cmdline_quote_word(struct buf *out, const char *word);

#endif
