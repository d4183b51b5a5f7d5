/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The unwrapper of shell command lines (shell/cmdline.h): given the words
 * of one simple command, it finds the program really run. Assignments are
 * dropped and noted; wrappers (env, sudo, nice, timeout, xargs, ...) are
 * peeled with their options; the commands a command runs itself (sh -c
 * STRING, eval, su -c, ssh HOST COMMAND, find -exec, alias values) are
 * added after it; and a program that cannot be known without running the
 * line (an expansion in its place, a script read from a pipe) is marked
 * unresolved.
 *
 * Separate because it is knowledge of programs and their options, not of
 * sh's syntax: the lexer (lex.c) hands it words with
 * unwrap_add_simple_command(), and it hands the scripts it finds back to
 * the lexer.
 */
#include "shell/cmdline_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/* The part of path after its last '/' (path itself when nothing follows). */
const char *
unwrap_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL && slash[1] != '\0' ? slash + 1 : path;
}

/* Whether s is a NAME=value (or NAME+=value, NAME[i]=value) assignment. */
static bool
is_assignment(const char *s)
{
	size_t i = 0;

	if (!lex_is_name_start(s[0]))
		return false;
	while (lex_is_name_char(s[i]))
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
take_assignments(struct parser *p, const char *const *words, size_t i, size_t n)
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
skip_options(const char *const *words, size_t i, size_t n,
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
shell_operands(const char *const *words, size_t n, bool *has_c, bool *has_s)
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
shell_command_string(const char *const *words, size_t n, bool *has_c)
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
interpreter_operands(const struct interpreter *it, const char *const *words,
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
script_unknown(const char *const *words, size_t n, enum stdin_source stdin_from,
    bool through_xargs)
{
	const char *program = unwrap_base_name(words[0]);
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
note_env_options(struct parser *p, const char *const *words, size_t from,
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
note_builtin_environment(struct parser *p, const char *const *words, size_t n)
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
join_words(const char *const *words, size_t n)
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
parse_joined(struct parser *p, const char *const *words, size_t n,
    const struct command_input *given, int depth)
{
	char *text = join_words(words, n);
	int rc = lex_parse_script(text, p->out, p->why, NULL, given, depth + 1);

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
add_inner_commands(struct parser *p, const char *const *words, size_t n,
    const struct command_input *given, int depth)
{
	static const char *const su_long[] = { "command", "shell", "group",
		"supp-group", "whitelist-environment", NULL };
	static const char *const script_long[] = { "command", "log-io",
		"log-in", "log-out", "log-timing", "logging-format", "echo",
		"output-limit", "timing", NULL };
	const char *program = unwrap_base_name(words[0]);
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
			rc = lex_parse_script(string, p->out, p->why, NULL, given,
			    depth + 1);
	} else if (strcmp(program, "eval") == 0 && n > 1) {
		rc = parse_joined(p, words + 1, n - 1, given, depth);
	} else if (strcmp(program, "su") == 0) {
		/* su takes options after the user too. */
		for (i = 1; i < n; i++)
			i = skip_options(words, i, n, "cgGsw", su_long, 'c',
			    "command", &string);
		if (string != NULL)
			rc = lex_parse_script(string, p->out, p->why, NULL,
			    &lex_nothing_given, depth + 1);
	} else if (strcmp(program, "script") == 0) {
		/* util-linux script -c COMMAND [FILE]: $SHELL -c COMMAND. */
		skip_options(words, 1, n, "cTIOBmEo", script_long, 'c', "command",
		    &string);
		if (string != NULL)
			rc = lex_parse_script(string, p->out, p->why, NULL,
			    &lex_nothing_given, depth + 1);
	} else if (strcmp(program, "ssh") == 0) {
		i = skip_options(words, 1, n, "BbcDEeFIiJLlmOoPpQRSWw", NULL,
		    '\0', NULL, NULL);
		if (i + 1 < n)
			rc = parse_joined(p, words + i + 1, n - i - 1,
			    &lex_nothing_given, depth);
	} else if (strcmp(program, "alias") == 0 && p->out != NULL) {
		/* alias NAME=VALUE: VALUE starts the commands it stands for. */
		for (i = 1; i < n && rc == 0; i++) {
			const char *value = strchr(words[i], '=');
			size_t first = p->out->count;

			if (value == NULL || value[1] == '\0')
				continue;
			rc = lex_parse_script(value + 1, p->out, p->why, NULL,
			    &lex_nothing_given, depth + 1);
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

				rc = unwrap_add_simple_command(p, words + i + 1,
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
add_command(struct cmdline *out, const char *const *words, size_t n,
    bool keep_program_word)
{
	struct cmdline_command *command;

	xgrow((void **)&out->commands, &out->alloc, out->count + 1,
	    sizeof(*command));
	command = &out->commands[out->count++];
	memset(command, 0, sizeof(*command));
	strlist_add(&command->words, keep_program_word ? words[0]
	    : unwrap_base_name(words[0]));
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

	lex_parser_init(&q, text, p->out, p->why, depth);
	q.collect = words;
	q.collect_flags = flags;
	rc = lex_parse_list(&q, false);
	lex_parser_release(&q);
	return rc;
}

/*
 * Add the simple command words[0..n), made as input says, to p->out:
 * unwrapped (assignments and wrappers peeled, the environment changes they
 * make noted), then each form with wrappers still on, outermost first,
 * then the commands it runs. Each form says whether its program is
 * unresolved and whether arguments are added. Returns 0 or -1.
 */
int
unwrap_add_simple_command(struct parser *p, const char *const *words, size_t n,
    const struct command_input *input, int depth)
{
	size_t *stages = NULL, stage_count = 0, stage_alloc = 0;
	size_t i = take_assignments(p, words, 0, n), first;
	const char *placeholder = input->placeholder, *unresolved = NULL;
	bool delegated = false, through_xargs = false, replaced = false;
	enum stdin_source program_stdin = input->stdin_from;
	int rc = 0;

	if (depth >= MAX_DEPTH)
		return lex_fail(p, "command nested too deeply");
	while (i < n) {
		const struct wrapper *wrapper;
		const char *watched = NULL;
		size_t next;
		bool is_env, is_xargs;

		wrapper = find_wrapper(unwrap_base_name(words[i]));
		if (wrapper == NULL)
			break;
		if (stage_count >= MAX_DEPTH) {
			rc = lex_fail(p, "command nested too deeply");
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
				start = skip_options(strlist_argv(&spliced), 0,
				    spliced.count, wrapper->short_with_argument,
				    wrapper->long_with_argument, '\0', NULL, NULL);
				note_env_options(p, strlist_argv(&spliced), 0,
				    start);
			}
			inner.flags = flags.buf + start;
			if (rc == 0 && start < spliced.count)
				rc = unwrap_add_simple_command(p,
				    strlist_argv(&spliced) + start,
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
	    strcmp(unwrap_base_name(words[stages[stage_count - 1]]),
	    "xargs") != 0)
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
