/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * daicho: one ledger that many agent sessions share.
 *
 * This file holds the command table, parses global and command options
 * (accepted before or after the command name), opens the ledger and
 * resolves the caller as each entry asks, runs the command, prints its
 * error as "daicho: ..." and turns it into the exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/version.h"
#include "core/ledger.h"
#include "util/alloc.h"
#include "util/client.h"
#include "util/path.h"
#include "util/prefault.h"
#include "util/user.h"

/* Heap a command on a ledger uses, with room: a claim grows it to ~320 KB. */
#define PREFAULT_HEAP_BYTES (512 << 10)


static const struct cmd_entry *const commands[] = {
	&cmd_init_entry,
	&cmd_add_entry,
	&cmd_ls_entry,
	&cmd_show_entry,
	&cmd_graph_entry,
	&cmd_claim_entry,
	&cmd_prompt_entry,
	&cmd_save_entry,
	&cmd_result_entry,
	&cmd_report_entry,
	&cmd_verify_entry,
	&cmd_sweep_entry,
	&cmd_land_entry,
	&cmd_run_entry,
	&cmd_logs_entry,
	&cmd_usage_entry,
	&cmd_release_entry,
	&cmd_block_entry,
	&cmd_cancel_entry,
	&cmd_log_entry,
	&cmd_events_entry,
	&cmd_agent_start_entry,
	&cmd_agent_end_entry,
	&cmd_agents_entry,
	&cmd_wait_entry,
	&cmd_resume_entry,
	&cmd_send_entry,
	&cmd_inbox_entry,
	&cmd_status_entry,
	&cmd_handoff_entry,
	&cmd_reserve_entry,
	&cmd_unreserve_entry,
	&cmd_reservations_entry,
	&cmd_gate_add_entry,
	&cmd_gate_ls_entry,
	&cmd_gate_rm_entry,
	&cmd_gate_exec_entry,
	&cmd_approvals_entry,
	&cmd_approve_entry,
	&cmd_deny_entry,
	&cmd_hook_entry,
	&cmd_doctor_entry,
	&cmd_config_entry,
	&cmd_export_entry,
	&cmd_import_entry,
	&cmd_edit_entry,
	&cmd_reopen_entry,
	&cmd_unblock_entry,
	&cmd_serve_entry,
	&cmd_mcp_entry,
	&cmd_pool_start_entry,
	&cmd_pool_stop_entry,
	&cmd_pool_status_entry,
	&cmd_version_entry,
};

#define COMMAND_COUNT (sizeof(commands) / sizeof(commands[0]))

/* Options every command accepts. */
enum global_option {
	GLOBAL_DIR = 1000,
	GLOBAL_LEDGER,
	GLOBAL_AS,
	GLOBAL_JSON,
	GLOBAL_QUIET,
	GLOBAL_HELP,
	GLOBAL_VERSION,
};

static const struct {
	const char *name;
	int short_name;
	const char *value_name;
	int id;
	const char *help;
} global_options[] = {
	{ "C", 'C', "DIR", GLOBAL_DIR, "run as if started in DIR" },
	{ "ledger", 0, "PATH", GLOBAL_LEDGER, "use the ledger at PATH" },
	{ "as", 0, "NAME", GLOBAL_AS, "act as the agent NAME" },
	{ "json", 0, NULL, GLOBAL_JSON, "print JSON" },
	{ "quiet", 'q', NULL, GLOBAL_QUIET, "print only errors" },
	{ "help", 'h', NULL, GLOBAL_HELP, "show help" },
	{ "version", 0, NULL, GLOBAL_VERSION, "show the version" },
};

#define GLOBAL_COUNT (sizeof(global_options) / sizeof(global_options[0]))

struct globals {
	const char *dir;
	const char *ledger;
	const char *as;
	bool json, quiet, help, version;
};

/*
 * The command named by argv[0] (and argv[1] for a two-word command such as
 * "agent start"); *words says how many words named it. NULL when none.
 */
static const struct cmd_entry *
find_command(int argc, char **argv, int *words)
{
	for (size_t i = 0; i < COMMAND_COUNT && argc >= 2; i++) {
		const char *name = commands[i]->name, *space = strchr(name, ' ');

		if (space && strlen(argv[0]) == (size_t)(space - name) &&
		    strncmp(name, argv[0], (size_t)(space - name)) == 0 &&
		    strcmp(space + 1, argv[1]) == 0) {
			*words = 2;
			return commands[i];
		}
	}
	for (size_t i = 0; i < COMMAND_COUNT; i++)
		if (strcmp(commands[i]->name, argv[0]) == 0) {
			*words = 1;
			return commands[i];
		}
	return NULL;
}

static void print_command_help(const struct cmd_entry *entry, FILE *out);

/*
 * "daicho agent --help": the help of every command of the two-word family
 * word. Returns whether word names a family.
 */
static bool
print_family_help(const char *word, FILE *out)
{
	size_t len = strlen(word);
	bool any = false;

	for (size_t i = 0; i < COMMAND_COUNT; i++)
		if (strncmp(commands[i]->name, word, len) == 0 &&
		    commands[i]->name[len] == ' ') {
			if (any)
				fputc('\n', out);
			print_command_help(commands[i], out);
			any = true;
		}
	return any;
}

/*
 * The edit distance between a and b (insertions, deletions, substitutions
 * and swaps of two neighbours), up to a few letters; larger is "far".
 */
static size_t
distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[32][32];

	if (la >= 32 || lb >= 32)
		return 99;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

/*
 * The command word is most likely meant for: the one command it begins
 * ("sta": status), else the longest command it begins with ("lsit": ls,
 * "shows": show), else the nearest by edit distance if one is near
 * enough; NULL when none.
 */
static const char *
nearest_command(const char *word)
{
	const char *best = NULL, *begun = NULL, *within = NULL;
	size_t best_distance = strlen(word) <= 3 ? 1 : 2, len = strlen(word);
	int begun_count = 0;

	for (size_t i = 0; i < COMMAND_COUNT; i++) {
		const char *name = commands[i]->name;
		size_t d, n = strlen(name);

		if (strchr(name, ' '))
			continue; /* "agent start": its family word is matched */
		if (len >= 2 && strncmp(name, word, len) == 0 && begun_count++ == 0)
			begun = name;
		if (n >= 2 && n < len && strncmp(word, name, n) == 0 &&
		    (within == NULL || n > strlen(within)))
			within = name;
		d = distance(word, name);
		if (d <= best_distance) {
			best = name;
			best_distance = d;
		}
	}
	if (begun_count == 1)
		return begun;
	return within ? within : best;
}

/*
 * The error for an unknown command: for the first word of a two-word
 * family ("agent"), the words that may follow it; else the command it may
 * be a slip for.
 */
static int
unknown_command(int argc, char **argv, struct err *err)
{
	struct buf family = BUF_INIT;
	size_t len = strlen(argv[0]);
	int rc;

	for (size_t i = 0; i < COMMAND_COUNT; i++) {
		const char *name = commands[i]->name;

		if (strncmp(name, argv[0], len) == 0 && name[len] == ' ')
			buf_addf(&family, "%s%s", family.len ? ", " : "", name + len + 1);
	}
	if (family.len)
		rc = err_set(err, ERR_USAGE, "unknown command '%s%s%s' ('%s' takes "
		    "%s; see 'daicho help')", argv[0], argc > 1 ? " " : "",
		    argc > 1 ? argv[1] : "", argv[0], family.buf);
	else if (nearest_command(argv[0]) != NULL)
		rc = err_set(err, ERR_USAGE, "unknown command '%s' (did you mean "
		    "'%s'? see 'daicho help')", argv[0], nearest_command(argv[0]));
	else
		rc = err_set(err, ERR_USAGE, "unknown command '%s' (see 'daicho "
		    "help')", argv[0]);
	buf_release(&family);
	return rc;
}

/*
 * The overview's groups, by what a command is for; each command of the
 * table in one group (a command in none is listed under "Other", which
 * global.bats checks never appears).
 */
static const struct {
	const char *title;
	const char *const names[20];
} command_groups[] = {
	{ "Plan the work", { "add", "edit", "ls", "show", "graph", "log",
	    "events", NULL } },
	{ "Work on a task (an agent's turn)", { "claim", "prompt", "save",
	    "result", "report", "release", "block", "reserve", "unreserve",
	    "reservations", "gate exec", NULL } },
	{ "Coordinate agents", { "agent start", "agent end", "agents", "wait",
	    "resume", "send", "inbox", "handoff", NULL } },
	{ "Judge and land", { "verify", "sweep", "land", "run", "logs",
	    "usage", NULL } },
	{ "The person's", { "status", "approvals", "approve", "deny",
	    "unblock", "reopen", "cancel", "gate add", "gate ls", "gate rm",
	    "config", "serve", NULL } },
	{ "Set-up and admin", { "init", "doctor", "hook", "mcp", "export",
	    "import", "pool start", "pool stop", "pool status", "version",
	    NULL } },
};

/* Whether name is in one of command_groups. */
static bool
grouped(const char *name)
{
	for (size_t g = 0; g < sizeof(command_groups) /
	    sizeof(command_groups[0]); g++)
		for (size_t i = 0; command_groups[g].names[i] != NULL; i++)
			if (strcmp(command_groups[g].names[i], name) == 0)
				return true;
	return false;
}

static void
print_overview(FILE *out)
{
	bool other = false;

	fprintf(out,
	    "usage: daicho [-C DIR] [--ledger PATH] [--as NAME] [--json] [-q] "
	    "COMMAND [ARGS]\n\n"
	    "One ledger that many agent sessions, scripts and humans share.\n\n"
	    "Commands:\n");
	for (size_t g = 0; g < sizeof(command_groups) /
	    sizeof(command_groups[0]); g++) {
		fprintf(out, "%s%s:\n", g ? "\n" : "", command_groups[g].title);
		for (size_t i = 0; command_groups[g].names[i] != NULL; i++)
			for (size_t c = 0; c < COMMAND_COUNT; c++)
				if (strcmp(commands[c]->name,
				    command_groups[g].names[i]) == 0)
					fprintf(out, "  %-14s %s\n", commands[c]->name,
					    commands[c]->summary);
	}
	for (size_t c = 0; c < COMMAND_COUNT; c++) {
		if (grouped(commands[c]->name))
			continue;
		if (!other)
			fputs("\nOther:\n", out);
		other = true;
		fprintf(out, "  %-14s %s\n", commands[c]->name,
		    commands[c]->summary);
	}
	fprintf(out, "\nTopics ('daicho help TOPIC'):\n");
	cmd_print_topic_list(out);
	fprintf(out,
	    "\nGlobal options (before or after the command name):\n");
	for (size_t i = 0; i < GLOBAL_COUNT; i++) {
		char left[40];

		if (global_options[i].short_name && strlen(global_options[i].name) > 1)
			snprintf(left, sizeof(left), "-%c, --%s%s%s",
			    global_options[i].short_name, global_options[i].name,
			    global_options[i].value_name ? " " : "",
			    global_options[i].value_name ? global_options[i].value_name : "");
		else
			snprintf(left, sizeof(left), "%s%s%s%s",
			    strlen(global_options[i].name) > 1 ? "--" : "-",
			    global_options[i].name,
			    global_options[i].value_name ? " " : "",
			    global_options[i].value_name ? global_options[i].value_name : "");
		fprintf(out, "  %-20s %s\n", left, global_options[i].help);
	}
	fprintf(out,
	    "\nThe ledger: --ledger, $DAICHO_LEDGER, <git common dir>/daicho/"
	    "ledger.db, else .daicho/ledger.db here or above.\n"
	    "The caller: --as, $DAICHO_AGENT, the agent bound to "
	    "$CLAUDE_CODE_SESSION_ID,\n$CODEX_THREAD_ID or $GEMINI_SESSION_ID, "
	    "else the human at the terminal.\n"
	    "Exit status: 0 ok, 1 error, 2 usage, 3 not found, 4 conflict, "
	    "5 verification failed,\n6 refused, 75 ledger busy (retry).\n\n"
	    "'daicho help COMMAND' or 'daicho COMMAND --help' for one command;\n"
	    "'daicho help person' for what only a person at a terminal may do.\n");
}

static void
print_command_help(const struct cmd_entry *entry, FILE *out)
{
	const struct cmd_option *o;
	size_t pos = 0;

	fprintf(out, "usage: daicho %s\n\n%s\n", entry->usage, entry->summary);
	if (entry->option_count > 0) {
		fprintf(out, "\nOptions:\n");
		while ((o = cmd_next_option(entry, &pos)) != NULL) {
			char left[48];

			if (o->short_name)
				snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name,
				    o->name, o->value_name ? " " : "",
				    o->value_name ? o->value_name : "");
			else
				snprintf(left, sizeof(left), "--%s%s%s", o->name,
				    o->value_name ? " " : "",
				    o->value_name ? o->value_name : "");
			fprintf(out, "  %-24s %s\n", left, o->help);
		}
	}
	if (entry->help && *entry->help)
		fprintf(out, "\n%s", entry->help);
	cmd_print_entry_person_acts(entry, out);
	fprintf(out, "\nGlobal options: -C DIR, --ledger PATH, --as NAME, --json, "
		     "-q, --help (see 'daicho help').\n");
}

/* Append text to out with roff's special characters escaped. */
static void
roff_escape(FILE *out, const char *text, bool line_start)
{
	for (const char *p = text; *p; p++) {
		if (line_start && (*p == '.' || *p == '\''))
			fputs("\\&", out);
		line_start = *p == '\n';
		if (*p == '\\')
			fputs("\\e", out);
		else if (*p == '-')
			fputs("\\-", out);
		else
			fputc(*p, out);
	}
}

/* The man page, generated from the same table as --help. */
static void
print_man(FILE *out)
{
	fprintf(out, ".TH DAICHO 1 \"\" \"daicho %s\" \"User Commands\"\n"
		     ".SH NAME\ndaicho \\- one ledger that many agent sessions share\n"
		     ".SH SYNOPSIS\n.B daicho\n[\\-C DIR] [\\-\\-ledger PATH] "
		     "[\\-\\-as NAME] [\\-\\-json] [\\-q] COMMAND [ARGS]\n"
		     ".SH DESCRIPTION\n", DAICHO_VERSION);
	fputs(".nf\n", out);
	{
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);

		print_overview(mem);
		fclose(mem);
		roff_escape(out, text, true);
		free(text);
	}
	fputs(".fi\n.SH COMMANDS\n", out);
	for (size_t i = 0; i < COMMAND_COUNT; i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);

		print_command_help(commands[i], mem);
		fclose(mem);
		fprintf(out, ".SS %s\n.nf\n", commands[i]->name);
		roff_escape(out, text, true);
		fputs(".fi\n", out);
		free(text);
	}
	fputs(".SH ENVIRONMENT\n.nf\n"
	      "DAICHO_LEDGER     the ledger's path\n"
	      "DAICHO_AGENT      the caller's agent name\n"
	      "DAICHO_BUSY_TIMEOUT  how long to wait for the write lock (default 30s)\n"
	      "DAICHO_TRACE_LOCK    append \"pid transactions wait_us_max wait_us_total\n"
	      "                     hold_us_total\" per process to this file\n"
	      "NO_COLOR          set and not empty: no colour, even on a terminal\n"
	      "TERM              unset or dumb: no colour; status --watch prints\n"
	      "                  plain frames instead of redrawing the screen\n"
	      ".fi\n", out);
}

/* Print the long options of entry (and, with globals, the global ones). */
static void
print_option_words(FILE *out, const struct cmd_entry *entry, bool globals)
{
	for (size_t i = 0; globals && i < GLOBAL_COUNT; i++)
		fprintf(out, " -%s%s", global_options[i].name[1] ? "-" : "",
		    global_options[i].name);
	const struct cmd_option *o;

	for (size_t pos = 0; entry && (o = cmd_next_option(entry, &pos)) != NULL;)
		fprintf(out, " --%s", o->name);
}

/* Print the distinct first words of the command names, space-separated. */
static void
print_first_words(FILE *out)
{
	for (size_t i = 0; i < COMMAND_COUNT; i++) {
		const char *name = commands[i]->name;
		size_t len = strcspn(name, " ");
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = strncmp(commands[j]->name, name, len) == 0 &&
			       (commands[j]->name[len] == ' ' ||
				   commands[j]->name[len] == '\0');
		if (!seen)
			fprintf(out, "%s%.*s", i ? " " : "", (int)len, name);
	}
}

/*
 * A completion script for shell (bash, zsh or fish), generated from the
 * same table as --help: the commands, their second words, their options;
 * in bash and zsh, also the values the ledger holds (task ids where a
 * command takes one, states, labels, agent names), read with daicho's own
 * commands when the completion runs.
 * Returns 0, or ERR_USAGE for another shell.
 */
static int
print_completion(const char *shell, FILE *out, struct err *err)
{
	bool fish = strcmp(shell, "fish") == 0;

	if (!fish && strcmp(shell, "bash") != 0 && strcmp(shell, "zsh") != 0)
		return err_set(err, ERR_USAGE, "no completion for '%s' (bash, zsh "
		    "or fish)", shell);
	if (fish) {
		fprintf(out, "# fish completion for daicho (daicho help "
			     "--completion fish)\ncomplete -c daicho -f\n");
		for (size_t i = 0; i < COMMAND_COUNT; i++) {
			const struct cmd_entry *e = commands[i];
			const char *space = strchr(e->name, ' ');

			if (space)
				fprintf(out, "complete -c daicho -n "
				    "'__fish_seen_subcommand_from %.*s' -a %s -d %s\n",
				    (int)(space - e->name), e->name, space + 1, "''");
			else
				fprintf(out, "complete -c daicho -n "
				    "'__fish_use_subcommand' -a %s\n", e->name);
			const struct cmd_option *o;

			for (size_t pos = 0; (o = cmd_next_option(e, &pos)) != NULL;)
				fprintf(out, "complete -c daicho -n "
				    "'__fish_seen_subcommand_from %s' -l %s%s\n",
				    space ? space + 1 : e->name, o->name,
				    o->value_name ? " -r" : "");
		}
		for (size_t i = 0; i < GLOBAL_COUNT; i++)
			fprintf(out, "complete -c daicho -%s %s%s\n",
			    global_options[i].name[1] ? "l" : "s",
			    global_options[i].name,
			    global_options[i].value_name ? " -r" : "");
		return 0;
	}
	if (strcmp(shell, "zsh") == 0)
		fprintf(out, "#compdef daicho\n# zsh completion for daicho (daicho "
			     "help --completion zsh), through bash's\n"
			     "autoload -U +X bashcompinit && bashcompinit\n");
	fprintf(out, "# bash completion for daicho (daicho help --completion "
		     "bash), generated from its command table\n"
		     "_daicho() {\n"
		     "\tlocal cur=\"${COMP_WORDS[COMP_CWORD]}\" cmd= sub= i words\n"
		     "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
		     "\t\tcase \"${COMP_WORDS[i]}\" in\n"
		     "\t\t-C|--ledger|--as) ((i++)) ;;\n"
		     "\t\t-*) ;;\n"
		     "\t\t*) if [ -z \"$cmd\" ]; then cmd=${COMP_WORDS[i]};"
		     " elif [ -z \"$sub\" ]; then sub=${COMP_WORDS[i]}; fi ;;\n"
		     "\t\tesac\n\tdone\n"
		     "\tcase \"$cmd $sub\" in\n");
	for (size_t i = 0; i < COMMAND_COUNT; i++) {
		const struct cmd_entry *e = commands[i];

		fprintf(out, "\t\"%s%s\"*) words=\"", e->name,
		    strchr(e->name, ' ') ? "" : " ");
		print_option_words(out, e, true);
		fprintf(out, "\" ;;\n");
	}
	/* A family word alone: its second words. */
	for (size_t i = 0; i < COMMAND_COUNT; i++) {
		const char *space = strchr(commands[i]->name, ' ');

		if (space && (i == 0 || strncmp(commands[i - 1]->name,
		    commands[i]->name, (size_t)(space - commands[i]->name) + 1)))
		{
			fprintf(out, "\t\"%.*s \"*) words=\"",
			    (int)(space - commands[i]->name), commands[i]->name);
			for (size_t j = i; j < COMMAND_COUNT; j++)
				if (strncmp(commands[j]->name, commands[i]->name,
				    (size_t)(space - commands[i]->name) + 1) == 0)
					fprintf(out, " %s", commands[j]->name +
					    (space - commands[i]->name) + 1);
			fprintf(out, "\" ;;\n");
		}
	}
	fprintf(out, "\t\" \") words=\"");
	print_first_words(out);
	print_option_words(out, NULL, true);
	fprintf(out, "\" ;;\n\t*) words= ;;\n\tesac\n");
	/*
	 * Values from the ledger, read with the commands themselves: a
	 * task's id where a command takes one, states, labels, agent names.
	 */
	fprintf(out, "\tcase \"${COMP_WORDS[COMP_CWORD-1]}\" in\n"
		     "\t--state) words=\"open claimed reported verified landed "
		     "blocked cancelled failed\" ;;\n"
		     "\t--as|--owner|--to|--from) words=$(daicho agents 2>/dev/null |"
		     " awk 'NR > 1 && /^[^ ]/ { print $1 }') ;;\n"
		     "\t--label) words=$(daicho ls --json 2>/dev/null | grep -o "
		     "'\"labels\":\\[[^]]*\\]' | grep -o '\"[^\"]*\"' | "
		     "grep -v '^\"labels\"$' | tr -d '\"' | sort -u) ;;\n"
		     "\t--after|--not-after|--parent) words=$(daicho ls 2>/dev/null"
		     " | awk 'NR > 1 { print substr($1, 2) }') ;;\n"
		     "\t*) case \"$cmd\" in\n"
		     "\t\t");
	/* The commands whose ID is a task's (approve's is a request's). */
	for (size_t i = 0, n = 0; i < COMMAND_COUNT; i++)
		if (strchr(commands[i]->name, ' ') == NULL &&
		    strncmp(commands[i]->usage + strlen(commands[i]->name),
		    " ID", 3) == 0 && commands[i] != &cmd_approve_entry &&
		    commands[i] != &cmd_deny_entry)
			fprintf(out, "%s%s", n++ ? "|" : "", commands[i]->name);
	fprintf(out, ")\n\t\t\t[ -n \"$sub\" ] || [[ \"$cur\" == -* ]] ||"
		     " words=\"$words $(daicho ls 2>/dev/null | awk 'NR > 1 "
		     "{ print substr($1, 2) }')\" ;;\n"
		     "\t\tesac ;;\n\tesac\n"
		     "\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n}\n"
		     "complete -o default -F _daicho daicho\n");
	return 0;
}

/*
 * Parse argv[start..] for entry (NULL: only global options, stopping at
 * the first non-option). Fills globals and ctx->values / argv. Returns 0 or
 * an ERR_USAGE error.
 */
static int
parse_options(int argc, char **argv, const struct cmd_entry *entry,
    struct globals *globals, struct cmd_ctx *ctx, int *next)
{
	size_t command_count = 0, pos = 0;
	const struct cmd_option *o;
	struct option *longopts;
	struct buf shortopts = BUF_INIT;
	int rc = 0, c, index;

	if (entry)
		command_count = entry->option_count;
	longopts = xcalloc(GLOBAL_COUNT + command_count + 1, sizeof(*longopts));
	buf_adds(&shortopts, entry ? ":" : "+:");
	for (size_t i = 0; i < GLOBAL_COUNT; i++) {
		longopts[i].name = global_options[i].name;
		longopts[i].has_arg = global_options[i].value_name ? required_argument
								   : no_argument;
		longopts[i].val = global_options[i].id;
		if (global_options[i].short_name) {
			buf_addch(&shortopts, (char)global_options[i].short_name);
			if (global_options[i].value_name)
				buf_addch(&shortopts, ':');
		}
	}
	/* The command's options after the global ones; val: 2000 + id. */
	for (size_t n = GLOBAL_COUNT;
	     entry && (o = cmd_next_option(entry, &pos)) != NULL; n++) {
		longopts[n].name = o->name;
		longopts[n].has_arg = o->value_name ? required_argument : no_argument;
		longopts[n].val = (int)(2000 + (o - entry->options));
		if (o->short_name) {
			buf_addch(&shortopts, (char)o->short_name);
			if (o->value_name)
				buf_addch(&shortopts, ':');
		}
	}
	opterr = 0;
	optind = 0; /* 0, not 1: makes GNU getopt forget the previous scan */
	while ((c = getopt_long(argc, argv, shortopts.buf, longopts, &index)) != -1) {
		const struct cmd_option *option = NULL;
		const char *bad = argv[optind - 1];

		if (c == '?' && optopt >= 1000 && strchr(bad, '=')) {
			/* A long option that takes no value, given one. */
			rc = err_set(ctx->err, ERR_USAGE, "option '%.*s' takes no value "
			    "(see 'daicho %s%s')", (int)strcspn(bad, "="), bad,
			    entry ? entry->name : "help", entry ? " --help" : "");
			goto done;
		}
		if (c == '?' || c == ':') {
			const char *what = c == '?' ? "unknown option" : "missing value for";
			char shown[3] = { '-', (char)optopt, '\0' };

			if (optopt && optopt < 256 &&
			    (c == '?' || strncmp(bad, "--", 2) != 0))
				bad = shown;
			if (entry)
				rc = err_set(ctx->err, ERR_USAGE, "%s '%s' (see 'daicho %s "
				    "--help')", what, bad, entry->name);
			else
				rc = err_set(ctx->err, ERR_USAGE, "%s '%s' (see 'daicho "
				    "help')", what, bad);
			goto done;
		}
		switch (c) {
		case GLOBAL_DIR:
		case 'C':
			globals->dir = optarg;
			continue;
		case GLOBAL_LEDGER:
			globals->ledger = optarg;
			continue;
		case GLOBAL_AS:
			globals->as = optarg;
			continue;
		case GLOBAL_JSON:
			globals->json = true;
			continue;
		case GLOBAL_QUIET:
		case 'q':
			globals->quiet = true;
			continue;
		case GLOBAL_HELP:
		case 'h':
			globals->help = true;
			continue;
		case GLOBAL_VERSION:
			globals->version = true;
			continue;
		}
		if (c >= 2000)
			option = &entry->options[c - 2000];
		else
			for (pos = 0;
			     entry && (o = cmd_next_option(entry, &pos)) != NULL;)
				if (o->short_name == c)
					option = o;
		if (option == NULL) {
			rc = err_set(ctx->err, ERR_USAGE, "unknown option '%s'", bad);
			goto done;
		}
		cmd_add_value(ctx, option, option->value_name ? optarg : NULL);
	}
	*next = optind;
done:
	free(longopts);
	buf_release(&shortopts);
	return rc;
}

/*
 * An agent's identity variable set but empty is an agent's environment with
 * its name rubbed out, not a person's: refused (ERR_REFUSED), for every
 * command, so that nothing reads it as the person.
 */
static int
refuse_blank_identity(struct err *err)
{
	for (size_t i = 0; client_identity_variables[i] != NULL; i++) {
		const char *value = getenv(client_identity_variables[i]);

		if (value != NULL && *value == '\0')
			return err_set(err, ERR_REFUSED, "$%s is set but empty: an "
			    "agent's identity blanked out is not a person (a person "
			    "unsets it in their own shell: unset %s)",
			    client_identity_variables[i],
			    client_identity_variables[i]);
	}
	return 0;
}

/* The standard descriptors found closed and covered with /dev/null. */
static int covered_fds;

/*
 * Run this very command line in daicho-pg, the same daicho with the
 * PostgreSQL driver (linked dynamically: see the Makefile), from the
 * directory it was given in (start_dir, when -C changed it; else -1).
 * A ledger address found without --ledger (in $DAICHO_LEDGER, or the
 * address file 'daicho init' left) goes along as $DAICHO_LEDGER. Returns
 * only when it cannot be started.
 */
static int
hand_to_postgresql_driver(char **argv, const char *address, int start_dir,
    struct err *err)
{
	struct buf program = BUF_INIT;
	char *own_name = argv[0];
	int rc;

	if (start_dir >= 0 && fchdir(start_dir) < 0)
		return err_set(err, ERR_FAILED, "cannot return to the starting "
		    "directory (%s)", strerror(errno));
	/* It sees the standard descriptors as daicho was given them. */
	for (int fd = 0; fd <= 2; fd++)
		if (covered_fds & (1 << fd))
			close(fd);
	if (address != NULL)
		setenv("DAICHO_LEDGER", address, 1);
	path_add_sibling_program(&program, "daicho-pg", "DAICHO_PG_BIN");
	argv[0] = program.buf;
	execv(program.buf, argv);
	rc = err_set(err, ERR_FAILED, "cannot run %s (%s): it serves PostgreSQL "
	    "ledgers and is installed in libexec/daicho ('make daicho-pg' builds "
	    "it, it needs libpq-dev; 'make install' installs it)", program.buf,
	    strerror(errno));
	/* The caller still reads argv (its error line echoes the command). */
	argv[0] = own_name;
	buf_release(&program);
	return rc;
}

/* What a command run through the pool needs to start again in daicho-pg. */
static struct {
	char **argv;
	const char *address;    /* NULL: daicho-pg finds it as daicho did */
	int start_dir;
} early;

/*
 * ledger_on_lost_early()'s function: the pool went before it answered any
 * request of this command, so nothing of it has happened; run it anew in
 * daicho-pg, which connects directly (as README promises). Not when the
 * command has read its standard input or has output waiting: then it
 * returns, and the command fails as it would have (exit 75, retry).
 */
static void
start_again_directly(void)
{
	struct err err = ERR_INIT;

	if (cmd_stdin_taken || __fpending(stdout) > 0 || __fpending(stderr) > 0)
		return;
	hand_to_postgresql_driver(early.argv, early.address, early.start_dir,
	    &err);
	err_release(&err);
}

/*
 * Whether a command on the PostgreSQL ledger at address runs in this
 * program: one with libpq runs all; the static daicho runs one through
 * the pool when a pool answers, except init (which makes a ledger), the
 * pool's own commands (daicho-pg's), and commands that stay (a runner, a
 * watcher, a server: a pool stopped or restarted under them would end
 * them, and starting libpq once is nothing to them). Otherwise it hands
 * the command over.
 */
static bool
runs_here_on_postgresql(const struct cmd_ctx *ctx, const char *address)
{
	static const char *const staying[] = { "run", "mcp", "serve" };
	const char *name = ctx->entry->name;

	if (!ledger_has_postgresql())
		return false;
	if (!ledger_postgresql_pooled())
		return true;
	if (strcmp(name, "init") == 0 || strncmp(name, "pool ", 5) == 0 ||
	    cmd_has_flagged(ctx, CMD_OPTION_STAYS))
		return false;
	for (size_t i = 0; i < sizeof(staying) / sizeof(staying[0]); i++)
		if (strcmp(name, staying[i]) == 0)
			return false;
	return ledger_pool_attach(address);
}

static int
run(int argc, char **argv, bool stdin_closed, struct err *err)
{
	struct globals globals = { 0 };
	struct cmd_ctx ctx = { 0 };
	const struct cmd_entry *entry;
	char **rest = NULL;
	int next = 0, rc, rest_count, words = 1, start_dir = -1;
	char *cwd = NULL;

	ctx.err = err;
	ctx.stdin_closed = stdin_closed;
	buf_init(&ctx.ledger_path);
	/* Global options before the command name. */
	if ((rc = parse_options(argc, argv, NULL, &globals, &ctx, &next)) < 0)
		goto done;
	if (globals.version) {
		struct buf line = BUF_INIT;

		cmd_version_line(&line);
		printf("%s\n", line.buf);
		buf_release(&line);
		goto done;
	}
	if (next >= argc) {
		print_overview(globals.help ? stdout : stderr);
		rc = globals.help ? 0 : -ERR_USAGE;
		if (rc < 0)
			err->code = ERR_USAGE; /* usage shown; no extra line */
		goto done;
	}
	if (strcmp(argv[next], "help") == 0) {
		if (next + 1 < argc && strcmp(argv[next + 1], "--man") == 0) {
			print_man(stdout);
		} else if (next + 1 < argc &&
		    strcmp(argv[next + 1], "--completion") == 0) {
			if (next + 2 >= argc)
				rc = err_set(err, ERR_USAGE, "--completion needs a "
				    "shell (bash, zsh or fish)");
			else
				rc = print_completion(argv[next + 2], stdout, err);
		} else if (next + 1 < argc &&
		    strcmp(argv[next + 1], "person") == 0) {
			cmd_print_person_acts(stdout);
		} else if (next + 1 < argc && next + 2 == argc &&
		    cmd_print_topic(argv[next + 1], stdout)) {
			/* a concept: states, checks, identity, landing */
		} else if (next + 1 < argc) {
			const struct cmd_entry *e = find_command(argc - next - 1,
			    argv + next + 1, &words);

			if (e == NULL) {
				rc = unknown_command(argc - next - 1, argv + next + 1, err);
				goto done;
			}
			print_command_help(e, stdout);
		} else {
			print_overview(stdout);
		}
		goto done;
	}
	entry = find_command(argc - next, argv + next, &words);
	if (entry == NULL && next + 1 < argc &&
	    (strcmp(argv[next + 1], "--help") == 0 ||
	    strcmp(argv[next + 1], "-h") == 0) &&
	    print_family_help(argv[next], stdout))
		goto done;
	if (entry == NULL) {
		rc = unknown_command(argc - next, argv + next, err);
		goto done;
	}
	ctx.entry = entry;
	/* A command on a ledger is about to touch most of what it ever will. */
	if (entry->flags & CMD_NEEDS_LEDGER)
		prefault_memory(PREFAULT_HEAP_BYTES);
	next += words - 1; /* getopt skips argv[0]: the command's last word */
	/* The command's own options, and global ones, after its name. */
	rest_count = argc - next;
	rest = xcalloc((size_t)rest_count + 1, sizeof(char *));
	for (int i = 0; i < rest_count; i++)
		rest[i] = argv[next + i];
	if ((rc = parse_options(rest_count, rest, entry, &globals, &ctx, &next)) < 0)
		goto done;
	if (globals.help) {
		print_command_help(entry, stdout);
		goto done;
	}
	ctx.argc = rest_count - next;
	ctx.argv = rest + next;
	if ((rc = cmd_check_arity(&ctx)) < 0 || (rc = cmd_check_text(&ctx)) < 0)
		goto done;
	ctx.json = globals.json;
	ctx.quiet = globals.quiet;
	/* A command handed over starts where it was given. */
	if (globals.dir && (!ledger_has_postgresql() || ledger_postgresql_pooled()) &&
	    (start_dir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rc = err_set(err, ERR_FAILED, "cannot open the current directory "
		    "(%s)", strerror(errno));
		goto done;
	}
	if (globals.dir && chdir(globals.dir) < 0) {
		rc = err_set(err, ERR_FAILED, "cannot change to %s (%s)", globals.dir,
		    strerror(errno));
		goto done;
	}
	cmd_gather_identity(&ctx, globals.as);
	if ((rc = refuse_blank_identity(err)) < 0)
		goto done;
	{
		struct ledger_hint hint = { globals.ledger, NULL };
		bool exists;

		cwd = getcwd(NULL, 0);
		hint.cwd = cwd ? cwd : ".";
		ledger_locate(&hint, &ctx.ledger_path, &exists);
	}
	early.argv = argv;
	early.address = globals.ledger == NULL ? ctx.ledger_path.buf : NULL;
	early.start_dir = start_dir;
	ledger_on_lost_early(start_again_directly);
	/* 'version' tells of this program, whatever the ledger. */
	if (ledger_is_postgresql(ctx.ledger_path.buf) &&
	    entry != &cmd_version_entry &&
	    !runs_here_on_postgresql(&ctx, ctx.ledger_path.buf)) {
		rc = hand_to_postgresql_driver(argv, globals.ledger == NULL ?
		    ctx.ledger_path.buf : NULL, start_dir, err);
		goto done;
	}
	if (entry->flags & CMD_NEEDS_LEDGER &&
	    (rc = ledger_open(ctx.ledger_path.buf, &ctx.ledger, err)) < 0)
		goto done;
	rc = cmd_execute(&ctx);
done:
	ledger_close(ctx.ledger);
	agent_release(&ctx.caller);
	buf_release(&ctx.ledger_path);
	free(ctx.values);
	free(rest);
	free(cwd);
	if (start_dir >= 0)
		close(start_dir);
	return rc;
}

/*
 * Put /dev/null on whichever of fds 0, 1 and 2 the caller left closed, so
 * that no file daicho opens (the ledger, its lock, a log) gets one of
 * them and receives what is meant for stdout or stderr, or is read as
 * stdin. It is opened read-only, as SQLite does for the same reason:
 * writes to it fail with EBADF as they would on the closed descriptor, so
 * a closed stdout is still reported at exit. Sets *stdin_closed (reading
 * "-" is then refused: cmd_read_input()). Returns 0, or -1 with errno set
 * when /dev/null cannot be opened.
 */
static int
cover_closed_standard_fds(bool *stdin_closed)
{
	*stdin_closed = false;
	covered_fds = 0;
	for (int fd = 0; fd <= 2; fd++) {
		int opened;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (fd == STDIN_FILENO)
			*stdin_closed = true;
		covered_fds |= 1 << fd;
		/* The lowest free descriptor: fd, the lower ones being open. */
		if ((opened = open("/dev/null", O_RDONLY)) < 0)
			return -1;
		if (opened != fd) {
			close(opened);
			errno = EBADF;
			return -1;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct err err = ERR_INIT;
	bool stdin_closed;
	int rc, status;

	if (cover_closed_standard_fds(&stdin_closed) < 0) {
		fprintf(stderr, "daicho: cannot open /dev/null on a closed standard "
		    "descriptor (%s; start daicho with stdin, stdout and stderr "
		    "open)\n", strerror(errno));
		return ERR_FAILED;
	}
	rc = run(argc, argv, stdin_closed, &err);
	status = rc < 0 ? (int)err.code : 0;

	if (rc < 0 && err.message.len > 0) {
		struct buf line = BUF_INIT;

		/* One line, whatever the input it repeats. */
		err_line(&err, argv, (size_t)argc, &line);
		fprintf(stderr, "daicho: %s\n", line.buf);
		buf_release(&line);
	}
	/* A full disk or a closed pipe is an error, not silent truncation. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (status == 0) {
			fprintf(stderr, "daicho: cannot write output (%s)\n",
			    strerror(errno));
			status = ERR_FAILED;
		}
	}
	err_release(&err);
	return status;
}
