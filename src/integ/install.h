/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Installing daicho into a project: the git pre-commit hook and the hook
 * configuration, instructions and worker definition of each agent client;
 * and the doctor's checks that they are in place. Installing never
 * clobbers: JSON settings are merged (a hook already calling daicho is
 * left alone), an existing git hook is chained to, an instructions file
 * gets a marked section once, and a file the user has changed is kept.
 * Running an install twice changes nothing the second time.
 */
#ifndef DAICHO_INSTALL_H
#define DAICHO_INSTALL_H

#include <stdbool.h>

#include <jansson.h>

#include "core/err.h"
#include "util/strlist.h"

/* What an install did, one line per file. */
struct install_report {
	struct strlist lines; /* "wrote PATH", "kept PATH (...)", ... */
	int changed;          /* files written */
};

void install_report_release(struct install_report *report);

/*
 * The project root for cwd: the top of the git work tree holding it, else
 * cwd. Appended to out.
 */
void install_project_root(const char *cwd, struct buf *out);

/*
 * Install "daicho hook git pre-commit" as the pre-commit hook of the
 * repository at root, in its common hooks directory (git rev-parse
 * --git-path hooks: core.hooksPath respected). An existing hook of another
 * kind is kept as pre-commit.local and run after daicho's check. Nothing
 * is done outside a git repository.
 */
int install_git_hook(const char *root, struct install_report *report,
    struct err *err);

/* .claude/settings.json hooks and .claude/agents/daicho-worker.md. */
int install_claude(const char *root, struct install_report *report,
    struct err *err);

/* .codex/hooks.json and a section of AGENTS.md. */
int install_codex(const char *root, struct install_report *report,
    struct err *err);

/* .gemini/settings.json hooks and a section of GEMINI.md. */
int install_gemini(const char *root, struct install_report *report,
    struct err *err);

/*
 * The doctor's checks of the installation at root (new reference in
 * *checks): [{check, ok, detail, fix}]. ledger_path is where the ledger
 * is looked for.
 */
void install_doctor(const char *root, const char *ledger_path, json_t **checks);

#endif
