#!/bin/sh
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# A real agent per task: one headless Claude Code session for each task
# that 'daicho run' hands out.
#   daicho init --claude
#   daicho run -j 4 -- examples/worker-claude.sh {id}
# The runner claims the task for this worker's agent and sets DAICHO_TASK,
# DAICHO_AGENT and DAICHO_LEDGER; the session fetches its own prompt, saves
# its result and reports through daicho (examples/worker-prompt.sh), while
# daicho's Claude Code hooks enforce gates and reservations as in any
# session. More flags for claude (--model NAME, ...): CLAUDE_WORKER_ARGS.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC2086 # CLAUDE_WORKER_ARGS is a list of flags
exec claude -p "$("$here/worker-prompt.sh" "$1")" \
	--allowedTools "Bash,Read,Edit,Write,Glob,Grep" ${CLAUDE_WORKER_ARGS:-} </dev/null
