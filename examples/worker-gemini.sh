#!/bin/sh
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# A real agent per task: one headless Gemini CLI session for each task that
# 'daicho run' hands out.
#   daicho init --gemini
#   daicho run -j 4 -- examples/worker-gemini.sh {id}
# The runner claims the task for this worker's agent and sets DAICHO_TASK,
# DAICHO_AGENT and DAICHO_LEDGER; the session fetches its own prompt, saves
# its result and reports through daicho (examples/worker-prompt.sh), while
# daicho's Gemini hooks enforce gates and reservations. Gemini CLI must
# trust the folder (never --skip-trust: it loads no project hooks then).
# More flags for gemini (-m MODEL, ...): GEMINI_WORKER_ARGS.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC2086 # GEMINI_WORKER_ARGS is a list of flags
exec gemini -p "$("$here/worker-prompt.sh" "$1")" --approval-mode yolo \
	${GEMINI_WORKER_ARGS:-} </dev/null
