#!/usr/bin/env bats
# One colour policy for human output: colour only when stdout is a
# terminal, NO_COLOR is unset or empty and TERM is set and not dumb; and
# one palette, the same colour for the same meaning in status, ls, agents,
# doctor and events.

load helpers

GREEN=$'\e[32m' RED=$'\e[31m' YELLOW=$'\e[33m' CYAN=$'\e[36m' DIM=$'\e[2m'
BOLD=$'\e[1m' BOLD_YELLOW=$'\e[1;33m' RESET=$'\e[0m'
# The same, for regular expressions.
GREEN_RE=$'\e\\[32m' RED_RE=$'\e\\[31m' YELLOW_RE=$'\e\\[33m'
CYAN_RE=$'\e\\[36m' DIM_RE=$'\e\\[2m' RESET_RE=$'\e\\[0m'

setup() {
	any_backend "colour is the terminal's"
	common_setup
	unset NO_COLOR
	export TERM=xterm
	daicho agent start w1 >/dev/null
	daicho add "claimed one" >/dev/null
	daicho add "blocked one" >/dev/null
	daicho add "cancelled one" >/dev/null
	daicho claim 1 --as w1 >/dev/null
	daicho claim 2 --as w1 >/dev/null
	daicho block 2 --reason "why?" --as w1 >/dev/null
	person daicho cancel 3 >/dev/null
}

# pty CMD...: on_pty, and lines set from output for assert_line.
pty() {
	on_pty "$@"
	lines=()
	mapfile -t lines <<<"$output"
}

# The commands whose human output is coloured.
COMMANDS=("status" "ls" "agents" "doctor" "events")

@test "no colour when stdout is not a terminal" {
	for cmd in "${COMMANDS[@]}"; do
		capture daicho "$cmd"
		[ "$status" -le 1 ] || fail "$cmd: exit $status: $stderr"
		[[ "$output" != *$'\e'* ]] || fail "$cmd wrote an escape to a pipe: $(cat -v <<<"$output")"
	done
}

@test "no colour on a terminal with NO_COLOR set, or TERM dumb or unset" {
	for cmd in "${COMMANDS[@]}"; do
		for env in "NO_COLOR=1" "NO_COLOR=no" "TERM=dumb" "-u TERM"; do
			# shellcheck disable=SC2086
			on_pty env $env daicho "$cmd"
			[ "$status" -le 1 ] || fail "$env $cmd: exit $status: $output"
			[[ "$output" != *$'\e'* ]] || fail "$env $cmd coloured: $(cat -v <<<"$output")"
		done
	done
}

@test "colour on a terminal, NO_COLOR empty counting as unset" {
	for cmd in "${COMMANDS[@]}"; do
		on_pty daicho "$cmd"
		[[ "$output" == *$'\e['*m* ]] || fail "$cmd not coloured on a terminal: $output"
		on_pty env NO_COLOR= daicho "$cmd"
		[[ "$output" == *$'\e['*m* ]] || fail "$cmd not coloured with NO_COLOR empty: $output"
	done
}

@test "the same meaning has the same colour in every command" {
	pty daicho ls
	assert_line --regexp "^#1 +${CYAN_RE}claimed${RESET_RE}  "
	assert_line --regexp "^#2 +${YELLOW_RE}blocked${RESET_RE}  "
	assert_line --regexp "^#3 +${DIM_RE}cancelled${RESET_RE} "
	pty daicho agents
	assert_line --regexp "^w1 .*${GREEN_RE}active${RESET_RE} "
	pty daicho status
	assert_line --index 0 "${BOLD_YELLOW}NEEDS YOU (1)${RESET}"
	assert_output --partial "${BOLD}AGENTS (2)${RESET}"
	assert_line --regexp "^w1 .*${GREEN_RE}active${RESET_RE} "
	assert_output --partial "${BOLD}TASKS${RESET} open 0, ${CYAN}claimed 1${RESET}, reported 0, verified 0, landed 0, ${YELLOW}blocked 1${RESET}, ${DIM}cancelled 1${RESET}, failed 0"
	assert_output --partial "${YELLOW}w1 blocked #2 blocked one: why?${RESET}"
	pty daicho events
	assert_output --partial "${YELLOW}block${RESET}"
	mkdir .claude # a client set up without its hooks: doctor fails it
	pty daicho doctor
	assert_line --regexp "^${GREEN_RE}ok${RESET_RE}    ledger"
	assert_line --regexp "^${RED_RE}FAIL${RESET_RE}  "
	person daicho unblock 2 >/dev/null
	person daicho cancel 2 >/dev/null
	pty daicho status
	assert_line --index 0 "${GREEN}NEEDS YOU: nothing${RESET}"
}

@test "columns line up the same with and without colour" {
	on_pty env NO_COLOR=1 daicho ls
	plain="$output"
	on_pty daicho ls
	[ "$(sed 's/\x1b\[[0-9;]*m//g' <<<"$output")" = "$plain" ] || fail "ls: $(cat -v <<<"$output") vs $plain"
	on_pty env NO_COLOR=1 daicho agents
	plain="$output"
	on_pty daicho agents
	[ "$(sed 's/\x1b\[[0-9;]*m//g' <<<"$output")" = "$plain" ] || fail "agents: $(cat -v <<<"$output") vs $plain"
}
