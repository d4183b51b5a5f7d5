#!/bin/sh
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# Prints the instructions that examples/worker-claude.sh, worker-codex.sh
# and worker-gemini.sh give their agent for task ID. The task itself is not
# in them: the agent fetches it with 'daicho prompt ID', so a prompt of any
# size, and any bytes, never passes through a command line. The protocol
# is the daicho skill's (skills/daicho/SKILL.md, which 'daicho init' and
# the plugins install for each client); this says only what is particular
# to a worker the runner launched.
# Usage: worker-prompt.sh ID
id=$1
cat <<PROMPT
You are a daicho worker. Task $id is already claimed for you (you are agent \$DAICHO_AGENT, and \$DAICHO_TASK is $id); do not claim anything else.
Follow the daicho skill for task $id: 'daicho prompt $id' prints your whole assignment; commit your work on a branch; save a result with 'daicho save $id -f FILE'; then always run 'daicho report $id' (with '--commit HEAD' if you committed), or 'daicho block $id --reason WHY' if only a person can unblock you. Only a task the sweep verifies is done.
Reply with only '$id ok'.
PROMPT
