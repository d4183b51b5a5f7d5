#!/bin/sh
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# A real agent per task: one 'codex exec' for each task that 'daicho run'
# hands out.
#   daicho init --codex
#   daicho run -j 4 -- examples/worker-codex.sh {id}
# Codex runs a project's hooks only once a person trusted them in /hooks,
# per path (each --worktree is a new one), and says nothing when it does
# not: a headless worker would run with no gate at all. So this worker
# passes --dangerously-bypass-hook-trust, which runs the enabled hooks of
# this project, daicho's among them, without that review. Set
# CODEX_HOOK_TRUST=reviewed to leave it out when you have trusted them.
# The runner claims the task for this worker's agent and sets DAICHO_TASK,
# DAICHO_AGENT and DAICHO_LEDGER; the session fetches its own prompt, saves
# its result and reports through daicho (examples/worker-prompt.sh), while
# daicho's Codex hooks enforce gates and reservations. The ledger and the
# commits live in .git, which Codex's workspace-write sandbox keeps
# read-only, so the worker runs without Codex's sandbox: daicho's gates and
# reservations are the rules. Codex runs the model's commands in a login
# shell unless told otherwise, and a login shell sets PATH afresh from
# /etc/profile and ~/.profile: a daicho found only on the runner's PATH
# would be "command not found". allow_login_shell=false keeps the runner's
# environment, PATH and DAICHO_* alike, for every command the model runs.
# More flags for codex exec (-m MODEL, ...): CODEX_WORKER_ARGS.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
trust=--dangerously-bypass-hook-trust
[ "${CODEX_HOOK_TRUST:-}" != reviewed ] || trust=
# shellcheck disable=SC2086 # $trust and CODEX_WORKER_ARGS are lists of flags
exec codex exec -s danger-full-access -c allow_login_shell=false $trust \
	${CODEX_WORKER_ARGS:-} \
	"$("$here/worker-prompt.sh" "$1")" </dev/null
