/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Whether the agent clients will run the project's hooks at all. Codex and
 * Gemini CLI load a project's hooks only when the user trusts them, and
 * run none, silently, otherwise: the doctor reads their trust stores.
 *
 *   Codex: $CODEX_HOME/config.toml (default ~/.codex). The project must be
 *   trusted ([projects."/abs/root"] trust_level = "trusted"; Codex also
 *   accepts the main work tree of a linked worktree), else the project's
 *   .codex/ is not loaded. Each hook must be trusted too: Codex records,
 *   when the user trusts it in /hooks, [hooks.state."<abs path of
 *   hooks.json>:<event>:<group>:<handler>"] trusted_hash = "sha256:...",
 *   a hash of the hook as it was (event in snake case: pre_tool_use). The
 *   doctor checks that such a record exists, is not disabled (enabled =
 *   false), for each daicho hook; it cannot recompute the hash, so a hook
 *   changed since it was trusted is not caught here (Codex's /hooks shows
 *   it as modified). --dangerously-bypass-hook-trust runs them all.
 *
 *   Gemini CLI: $GEMINI_CLI_TRUSTED_FOLDERS_PATH, else
 *   ~/.gemini/trustedFolders.json: {"/abs/path": "TRUST_FOLDER" |
 *   "TRUST_PARENT" | "DO_NOT_TRUST"}, the longest rule containing the
 *   folder wins (TRUST_PARENT trusts the rule's parent). Folder trust is
 *   on unless security.folderTrust.enabled is false in
 *   ~/.gemini/settings.json; GEMINI_CLI_TRUST_WORKSPACE=true trusts every
 *   folder for the process that has it.
 */
#ifndef DAICHO_TRUST_H
#define DAICHO_TRUST_H

#include <stdbool.h>

#include <jansson.h>

/*
 * Add one of the doctor's checks to checks: {check: name, ok, detail, fix}
 * (fix only when not ok).
 */
void doctor_check(json_t *checks, const char *name, bool ok,
    const char *detail, const char *fix);

/*
 * Add the doctor's trust checks for the project at root to checks
 * ({check, ok, detail, fix} each): Codex's when root has .codex/,
 * Gemini's when it has .gemini/.
 */
void trust_doctor(json_t *checks, const char *root);

#endif
