#!/usr/bin/env bats
# Headless workers: 'daicho run' launching examples/worker-claude.sh,
# worker-codex.sh and worker-gemini.sh, the real clients with their daicho
# hooks installed, against scripted model stand-ins. See scenarios.bash.

load helpers
load scenarios

@test "workers: daicho run -j 6 with claude -p verifies 6 of 6 tasks" {
	scenario_workers claude
}

@test "workers: daicho run -j 6 with codex exec verifies 6 of 6 tasks" {
	scenario_workers codex
}

@test "workers: daicho run -j 6 with gemini -p verifies 6 of 6 tasks" {
	scenario_workers gemini
}

@test "workers: claude's hooks leave the runner's worker agents alone" {
	scenario_workers_lifecycle claude
}

@test "workers: codex's hooks leave the runner's worker agents alone" {
	scenario_workers_lifecycle codex
}

@test "workers: gemini's hooks leave the runner's worker agents alone" {
	scenario_workers_lifecycle gemini
}

@test "workers: claude -p workers that crash, are rate-limited or lie are retried, paused and rejected" {
	scenario_workers_faults claude
}

@test "workers: codex exec workers that crash, are rate-limited or lie are retried, paused and rejected" {
	scenario_workers_faults codex
}

@test "workers: gemini -p workers that crash, are rate-limited or lie are retried, paused and rejected" {
	scenario_workers_faults gemini
}

@test "workers: daicho run --worktree with claude -p verifies 6 of 6 tasks" {
	scenario_workers_worktree claude
}

@test "workers: daicho run --worktree with codex exec verifies 6 of 6 tasks" {
	scenario_workers_worktree codex
}

@test "workers: daicho run --worktree with gemini -p verifies 6 of 6 tasks" {
	scenario_workers_worktree gemini
}
