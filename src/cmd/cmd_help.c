/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Help topics ('daicho help TOPIC': the concepts behind the commands) and
 * 'daicho version'.
 */
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "build-info.h"
#include "core/ledger.h"
#include "core/version.h"
#include "util/path.h"

static const struct {
	const char *name, *summary, *text;
} topics[] = {
	{ "states", "a task's states, and what moves it between them",
	    "A task's states:\n\n"
	    "  open ──claim──▶ claimed ──report──▶ reported ──sweep──▶ verified"
	    " ──land──▶ landed\n"
	    "   ▲                │  ▲                  │                  │\n"
	    "   │             block unblock        rejected ◀──────────────┘\n"
	    "   │                ▼  │             (back to its holder,\n"
	    "   │              blocked             or open)\n"
	    "   └── release, an expired lease, reopen\n\n"
	    "  open      ready to claim once every task it comes after (--after)\n"
	    "            is done, and its --touches overlap no live claim\n"
	    "  claimed   one agent holds it, under a lease that its commands\n"
	    "            renew; a lease that runs out makes it open again\n"
	    "  reported  its holder says it is done; it waits for the sweep\n"
	    "  verified  the sweep ran its checks on the reported commit and\n"
	    "            they passed; in git it then waits to land\n"
	    "  landed    its commit is on the trunk, and the merged trunk passed\n"
	    "            every check ('daicho help landing')\n"
	    "  blocked   its holder asked a person a question ('daicho block');\n"
	    "            'daicho unblock ID --answer TEXT' answers and gives it\n"
	    "            back\n"
	    "  failed    its attempts (--max-attempts) are used up\n"
	    "  cancelled a person (or the agent that added it) gave it up\n\n"
	    "A task counts as done for the tasks after it when it is landed (or\n"
	    "verified, where nothing lands). 'daicho reopen ID' makes a failed\n"
	    "or cancelled task open again; a person reopens verified or landed\n"
	    "work that turned out wrong with --reason. 'daicho status' shows\n"
	    "what waits on a person.\n" },
	{ "checks", "how the sweep decides that work is done",
	    "A task is done when its checks pass on the commit its holder\n"
	    "reported ('daicho report ID --commit REV'). The sweep ('daicho\n"
	    "sweep') runs them, never the worker, in a checkout of its own,\n"
	    "in a sandbox with no network and no access to your home:\n\n"
	    "  file:PATH   PATH is a non-empty regular file\n"
	    "  cmd:SHELL   the command exits 0 within the check timeout\n"
	    "  saved       the holder saved a result ('daicho save')\n"
	    "  commit      the report names a commit\n\n"
	    "daicho adds its own before them: the commit is on a branch\n"
	    "(on-branch), it holds work that is not on the trunk (new-work), and\n"
	    "it changes no path the task or the ledger protects (protected:\n"
	    "'daicho config protect', --protect). Checks that already passed on\n"
	    "the trunk at the claim prove nothing about the work: such a task is\n"
	    "blocked for a person as vacuous (sharper checks, or a person's\n"
	    "--no-baseline). A rejected report goes back to its holder with the\n"
	    "evidence ('daicho show ID', 'daicho prompt ID'); 'daicho verify ID'\n"
	    "runs the checks now and prints what they say. See 'daicho add\n"
	    "--help' for the details of each.\n" },
	{ "identity", "who the caller is: an agent, or the person",
	    "Every command acts as someone, found in this order:\n\n"
	    "  --as NAME                      an agent of that name\n"
	    "  $DAICHO_AGENT                  an agent of that name\n"
	    "  $CLAUDE_CODE_SESSION_ID,       the agent bound to that client\n"
	    "  $CODEX_THREAD_ID,              session (its name derived from\n"
	    "  $GEMINI_SESSION_ID             the session id)\n"
	    "  none of these                  the person at the terminal\n\n"
	    "An agent's name is registered on first use and seen by every\n"
	    "command it runs ('daicho agents'); one unseen for 10 minutes is\n"
	    "stale, and its claims go back to open. Some commands are a\n"
	    "person's alone ('daicho help person'): daicho checks that no\n"
	    "identity variable is set, that stdin is the session's terminal and\n"
	    "that no agent client is among the command's ancestors. On\n"
	    "PostgreSQL, agents' and people's logins are apart too (docs/\n"
	    "security.md).\n" },
	{ "landing", "how verified work reaches the trunk",
	    "In a git repository, verified work is not done while it lives only\n"
	    "on a branch: each verified task with a commit waits in the landing\n"
	    "queue, and the tasks after it become ready once it has landed. A\n"
	    "landing pass ('daicho land'; every sweep makes one) merges the\n"
	    "queued commits onto the trunk as it is now, checks the merged tree\n"
	    "with every task's checks (and 'daicho config land-check'), and\n"
	    "moves the trunk only if all pass and nobody moved it meanwhile. A\n"
	    "failing batch is split to find the culprit; work that conflicts or\n"
	    "fails on the merged trunk goes back open, its prompt saying why.\n\n"
	    "  daicho config land merge|rebase|squash|off   how it lands\n"
	    "  daicho land --dry-run                        what would land\n"
	    "  daicho land --pause / --resume               a person stops it\n\n"
	    "'daicho land --help' has the details.\n" },
};

#define TOPIC_COUNT (sizeof(topics) / sizeof(topics[0]))

bool
cmd_print_topic(const char *name, FILE *out)
{
	for (size_t i = 0; i < TOPIC_COUNT; i++) {
		if (strcmp(topics[i].name, name) == 0) {
			fputs(topics[i].text, out);
			return true;
		}
	}
	return false;
}

void
cmd_print_topic_list(FILE *out)
{
	for (size_t i = 0; i < TOPIC_COUNT; i++)
		fprintf(out, "  %-14s %s\n", topics[i].name, topics[i].summary);
	fprintf(out, "  %-14s %s\n", "person", "what only a person at a terminal "
	    "may do");
}

/*
 * Whether this program was linked statically: its own program headers
 * (the kernel's auxiliary vector) name no interpreter (a static PIE has
 * none either).
 */
static bool
linked_statically(void)
{
	unsigned long address = getauxval(AT_PHDR);
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)address;
	unsigned long count = getauxval(AT_PHNUM);

	for (unsigned long i = 0; ph != NULL && i < count; i++)
		if (ph[i].p_type == PT_INTERP)
			return false;
	return ph != NULL;
}

/* The helper program name next to this daicho, if it is there: into path. */
static bool
helper_present(const char *name, const char *env_name, struct buf *path)
{
	buf_reset(path);
	path_add_sibling_program(path, name, env_name);
	return access(path->buf, X_OK) == 0;
}

void
cmd_version_line(struct buf *out)
{
	struct buf path = BUF_INIT;
	bool pg = helper_present("daicho-pg", "DAICHO_PG_BIN", &path);
	bool serve = helper_present("daicho-serve", "DAICHO_SERVE_BIN", &path);

	buf_addf(out, "daicho %s (commit %s; %s; SQLite %s%s%s)", DAICHO_VERSION,
	    DAICHO_COMMIT, linked_statically() ? "static" : "dynamic",
	    ledger_sqlite_version(), pg ? ", PostgreSQL through daicho-pg"
	    : ", no PostgreSQL (daicho-pg missing)", serve ? ", dashboard "
	    "daicho-serve" : ", no dashboard (daicho-serve missing)");
	buf_release(&path);
}

static int
exec_version(struct cmd_ctx *ctx)
{
	struct buf line = BUF_INIT, path = BUF_INIT;
	int rc = 0;

	if (ctx->json) {
		json_t *v = json_pack("{s:s, s:s, s:s, s:s}", "version",
		    DAICHO_VERSION, "commit", DAICHO_COMMIT, "link",
		    linked_statically() ? "static" : "dynamic", "sqlite",
		    ledger_sqlite_version());

		json_object_set_new(v, "postgresql", helper_present("daicho-pg",
		    "DAICHO_PG_BIN", &path) ? json_string(path.buf) : json_null());
		json_object_set_new(v, "dashboard", helper_present("daicho-serve",
		    "DAICHO_SERVE_BIN", &path) ? json_string(path.buf)
		    : json_null());
		rc = cmd_print_json(ctx, v);
	} else {
		cmd_version_line(&line);
		printf("%s\n", line.buf);
	}
	buf_release(&line);
	buf_release(&path);
	return rc;
}

const struct cmd_entry cmd_version_entry = {
	.name = "version",
	.usage = "version",
	.summary = "print daicho's version",
	.help =
	    "Prints one line, as 'daicho --version' does: \"daicho VERSION\n"
	    "(commit C; static|dynamic; SQLite V, PostgreSQL through daicho-pg,\n"
	    "dashboard daicho-serve)\": the commit it was built from (with\n"
	    "\"+changes\" when the tree had uncommitted changes; \"unknown\"\n"
	    "outside git), how it was linked, and which helpers are next to it.\n"
	    "JSON: {version, commit, link, sqlite, postgresql, dashboard} (the\n"
	    "helpers' paths, or null).\n",
	.flags = 0,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_version,
};
