#!/bin/sh
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# Prints the instructions that examples/worker-claude.sh, worker-codex.sh
# and worker-gemini.sh give their agent for task ID. The task itself is not
# in them: the agent fetches it with 'daicho prompt ID', so a prompt of any
# size, and any bytes, never passes through a command line.
# Usage: worker-prompt.sh ID
id=$1
cat <<PROMPT
You are a daicho worker. Task $id is already claimed for you (you are agent \$DAICHO_AGENT, and \$DAICHO_TASK is $id); do not claim anything else.
1. Run 'daicho prompt $id'. What it prints is your whole assignment.
2. Do it. If you change files, commit them on a branch. Never change the files the task protects ('daicho show $id').
3. Save your result: write it to a file and run 'daicho save $id -f FILE'.
4. Then always run 'daicho report $id' (add '--commit HEAD' if you committed). Only a task the sweep verifies is done.
5. If you cannot go on without a person, run 'daicho block $id --reason WHY'.
Reply with only '$id ok'.
PROMPT
