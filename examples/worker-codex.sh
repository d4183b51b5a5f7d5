#!/bin/sh
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# A real agent per task: one 'codex exec' for each task that 'daicho run'
# hands out.
#   daicho init --codex          # then trust its hooks in codex (/hooks)
#   daicho run -j 4 -- examples/worker-codex.sh {id}
# The runner claims the task for this worker's agent and sets DAICHO_TASK,
# DAICHO_AGENT and DAICHO_LEDGER; the session fetches its own prompt, saves
# its result and reports through daicho (examples/worker-prompt.sh), while
# daicho's Codex hooks enforce gates and reservations. The ledger and the
# commits live in .git, which Codex's workspace-write sandbox keeps
# read-only, so the worker runs without Codex's sandbox: daicho's gates and
# reservations are the rules. More flags for codex exec (-m MODEL, ...):
# CODEX_WORKER_ARGS.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC2086 # CODEX_WORKER_ARGS is a list of flags
exec codex exec -s danger-full-access ${CODEX_WORKER_ARGS:-} \
	"$("$here/worker-prompt.sh" "$1")" </dev/null
