#!/usr/bin/env bats
# daicho gate add / gate ls / gate rm / gate exec, approvals, approve, deny.

load helpers
load stray_helpers

setup_file() {
	own_strays
}

T0=1800000000000
MIN=60000
HOUR=3600000

setup() {
	common_setup
	export DAICHO_NOW_MS=$T0
	# The human-only commands look at these too; none may leak in.
	unset CLAUDECODE GEMINI_CLI CODEX_SANDBOX

	# Fake git and make: they record their arguments, so nothing real runs.
	mkdir -p "$TEST_ROOT/bin" "$TEST_ROOT/sub"
	cat >"$TEST_ROOT/bin/git" <<-EOF
		#!/bin/sh
		printf '%s\n' "\$*" >>"$TEST_ROOT/git.log"
		echo "git ran: \$*"
	EOF
	# make test passes only while $TEST_ROOT/tests-pass exists.
	cat >"$TEST_ROOT/bin/make" <<-EOF
		#!/bin/sh
		printf '%s\n' "\$*" >>"$TEST_ROOT/make.log"
		if [ -f "$TEST_ROOT/tests-pass" ]; then echo "all tests passed"; exit 0; fi
		echo "FAIL: 2 of 40 tests"
		exit 2
	EOF
	# deploy leaves a marker and exits 3.
	cat >"$TEST_ROOT/bin/deploy" <<-EOF
		#!/bin/sh
		touch "$TEST_ROOT/deployed"
		echo "deploying \$*"
		exit 3
	EOF
	chmod +x "$TEST_ROOT/bin/git" "$TEST_ROOT/bin/make" "$TEST_ROOT/bin/deploy"
	export PATH="$TEST_ROOT/bin:$PATH"
	HUMAN="$(id -un)"
	# DECIDER: who an approval records as deciding it: the human's login
	# name on SQLite; on PostgreSQL the database role that decided (the
	# ledger's trigger sets it, whatever the client says).
	DECIDER="$HUMAN"
	if backend_is_postgresql; then
		DECIDER="$(ledger_sql "$DAICHO_LEDGER" 'SELECT session_user')"
	fi
}

teardown() {
	# A --require must leave nothing running; should daicho fail to, end
	# the strays by pid so that they outlive no test.
	kill_strays '^sleep 318$'
}

# human CMD...: a person runs CMD at a terminal; it must succeed, saying
# what it did in one line (approved #3, denied #3, removed gate #2).
human() {
	on_pty "$@"
	[ "$status" -eq 0 ] || fail "'$*' on a terminal: exit $status ($output)"
	[[ "$output" =~ ^(approved\ #[0-9]+|denied\ #[0-9]+|removed\ gate\ #[0-9]+)$ ]] ||
		fail "'$*' on a terminal printed: '$output'"
}

# pty_refused CODE: the last on_pty exited CODE showing one "daicho: " line.
pty_refused() {
	[ "$status" -eq "$1" ] || fail "expected exit $1 on the terminal, got $status ($output)"
	[ -n "$output" ] && [[ "$output" != *$'\n'* ]] && [[ "$output" == "daicho: "* ]] ||
		fail "expected one 'daicho: ' line on the terminal, got: '$output'"
}

# approval ID JQ: one jq expression over approval ID in `approvals --all --json`.
approval() {
	daicho approvals --all --json | jq -r --argjson id "$1" ".[] | select(.id == \$id) | $2"
}

# git_runs: what the fake git was run with, one line per run.
git_runs() {
	cat "$TEST_ROOT/git.log" 2>/dev/null || true
}

# --- gate add / gate ls -------------------------------------------------------------

@test "gate add prints the gate id, logged; JSON is {gate: id}; -q prints nothing" {
	ok daicho gate add 'git merge *' --approval
	assert_output "gate #1"
	[ "$(sql "SELECT kind FROM events ORDER BY id DESC LIMIT 1")" = gate-add ]
	ok daicho gate add 'deploy *' --require 'make test' --json
	assert_output '{"gate":2}'
	ok daicho gate add 'rm -rf*' --approval -q
	assert_output ""
	[ "$(sql "SELECT count(*) FROM gates")" = 3 ]
}

@test "gate add refuses bad patterns (exit 2), a gate that stops nothing (exit 2) and a duplicate (exit 4)" {
	daicho gate add 'git merge *' --approval >/dev/null
	snapshot_ledger
	refused 2 daicho gate add '' --approval
	stderr_contains "invalid gate pattern ''"
	refused 2 daicho gate add 'make && deploy' --approval
	stderr_contains "invalid gate pattern 'make && deploy'"
	refused 2 daicho gate add 'a; b' --approval
	refused 2 daicho gate add 'a | b' --approval
	refused 2 daicho gate add 'a $(b)' --approval
	refused 2 daicho gate add 'git push'
	stderr_contains "--approval or --require"
	refused 2 daicho gate add 'git push' --note "just a note"
	refused 2 daicho gate add 'git push' --require ''
	refused 2 daicho gate add
	refused 2 daicho gate add 'git push' 'git pull' --approval
	refused 4 daicho gate add 'git merge *' --require true
	stderr_contains "gate #1 already has the pattern 'git merge *'"
	assert_ledger_unchanged
	[ "$(sql "SELECT count(*) FROM gates")" = 1 ]
}

@test "gate ls lists every gate with [approval], its requires and note; JSON has every field" {
	ok daicho gate ls
	assert_output ""
	daicho gate add 'git merge *' --approval --note "ask the lead first" >/dev/null
	daicho gate add 'deploy *' --require 'make test' --require 'test -f ok' --as ops >/dev/null
	ok daicho gate ls
	assert_output "#1  git merge *  [approval]
     note: ask the lead first
#2  deploy *
     requires: make test
     requires: test -f ok"
	ok daicho gate ls --json
	jq -e '. == [
		{"id":1,"pattern":"git merge *","approval":true,"requires":[],"note":"ask the lead first",
		 "created_ms":'$T0',"created_by":"'"$HUMAN"'"},
		{"id":2,"pattern":"deploy *","approval":false,"requires":["make test","test -f ok"],"note":null,
		 "created_ms":'$T0',"created_by":"ops"}]' <<<"$output" >/dev/null || fail "$output"
}

# --- gate rm ----------------------------------------------------------------------------

@test "gate rm is refused (exit 6) without a terminal, and with an agent identity even on one" {
	daicho gate add 'git merge *' --approval >/dev/null
	register_agent A
	snapshot_ledger
	refused 6 daicho gate rm 1 </dev/null
	stderr_contains "only a human at a terminal may remove a gate"
	stderr_contains "stdin is not a terminal"
	DAICHO_AGENT=A on_pty daicho gate rm 1
	pty_refused 6
	[[ "$output" == *'$DAICHO_AGENT is set'* ]] || fail "$output"
	on_pty daicho gate rm 1 --as A
	pty_refused 6
	[[ "$output" == *"--as names an agent"* ]] || fail "$output"
	CLAUDECODE=1 on_pty daicho gate rm 1
	pty_refused 6
	GEMINI_CLI=1 on_pty daicho gate rm 1
	pty_refused 6
	assert_ledger_unchanged
	[ "$(sql "SELECT count(*) FROM gates")" = 1 ]
}

@test "gate rm works for a human at a terminal; an unknown gate is exit 3" {
	daicho gate add 'git merge *' --approval >/dev/null
	daicho gate exec --as A -- git merge x 2>/dev/null || true
	human daicho gate rm 1
	[ "$(sql "SELECT count(*) FROM gates")" = 0 ]
	[ "$(sql "SELECT kind FROM events ORDER BY id DESC LIMIT 1")" = gate-rm ]
	# the request keeps its history
	[ "$(approval 1 .state)" = pending ]
	# and the command is no longer gated
	ok daicho gate exec --as A -- git merge x
	assert_output "git ran: merge x"
	snapshot_ledger
	on_pty daicho gate rm 1
	pty_refused 3
	on_pty daicho gate rm x
	pty_refused 2
	assert_ledger_unchanged
}

# --- gate exec: ungated and --require -------------------------------------------------

@test "gate exec of an ungated command just runs it, with its own output and exit status" {
	daicho gate add 'git merge *' --approval >/dev/null
	snapshot_ledger
	capture daicho gate exec --as A -- sh -c 'echo out; echo err >&2; exit 7'
	[ "$status" -eq 7 ] || fail "exit $status"
	assert_output "out"
	[ "$stderr" = err ] || fail "stderr: '$stderr'"
	ok daicho gate exec --as A -- git status --short
	assert_output "git ran: status --short"
	ok daicho gate exec -- git log
	[ "$(git_runs)" = $'status --short\nlog' ]
	assert_ledger_unchanged
}

@test "gate exec: a --require that passes runs the command; one that fails exits 6 and runs nothing" {
	daicho gate add 'deploy *' --require 'test -f tests-pass' --require 'make test' >/dev/null
	register_agent A
	snapshot_ledger
	refused 6 daicho gate exec --as A -- deploy prod
	stderr_contains "gate #1 requires 'test -f tests-pass' failed (exit 1); not run"
	[ ! -e deployed ] || fail "deploy ran"
	assert_ledger_unchanged
	# the first require passes, the second (make test) fails: its last line is shown
	touch ok
	daicho gate add 'deploy2 *' --require 'test -f ok' --require 'make test' >/dev/null
	cp "$TEST_ROOT/bin/deploy" "$TEST_ROOT/bin/deploy2"
	snapshot_ledger
	refused 6 daicho gate exec --as A -- deploy2 prod
	stderr_contains "gate #2 requires 'make test' failed (exit 2: FAIL: 2 of 40 tests); not run"
	[ ! -e deployed ] || fail "deploy2 ran"
	assert_ledger_unchanged
	# both pass: it runs, and the exit status is its own
	touch tests-pass
	capture daicho gate exec --as A -- deploy prod
	[ "$status" -eq 3 ] || fail "exit $status ($stderr)"
	assert_output "deploying prod"
	[ -e deployed ] || fail "deploy did not run"
	# make test ran once for deploy2 (and failed), once for deploy
	[ "$(cat make.log)" = $'test\ntest' ]
}

@test "gate exec: a --require leaves nothing running, not even what it setsid" {
	daicho gate add 'deploy *' --require "$(started 'setsid sleep 318 &' '^sleep 318$')" >/dev/null
	register_agent A
	capture daicho gate exec --as A -- deploy prod
	[ "$status" -eq 3 ] || fail "exit $status ($stderr)"
	assert_output "deploying prod"
	assert_none_left '^sleep 318$'
}

@test "gate exec shows the gate's note when the gate stops a command" {
	daicho gate add 'deploy *' --require false --note "deploys need the release manager" >/dev/null
	daicho gate add 'git merge *' --approval --note "merges go through review" >/dev/null
	refused 6 daicho gate exec --as A -- deploy prod
	stderr_contains "deploys need the release manager"
	refused 6 daicho gate exec --as A -- git merge x
	stderr_contains "merges go through review"
}

# --- approvals ------------------------------------------------------------------------------

@test "an approval gate: the first exec makes a request (exit 6), a repeat reuses it; approved, it runs once" {
	daicho gate add 'git merge *' --approval >/dev/null
	refused 6 daicho gate exec --as A -- git merge feature
	stderr_contains "'git merge feature' needs a human approval (gate #1): request #1 is made"
	stderr_contains "a human must run 'daicho approve 1' at a terminal"
	[ "$(sql "SELECT kind FROM events ORDER BY id DESC LIMIT 1")" = approval-request ]
	snapshot_ledger
	refused 6 daicho gate exec --as A -- git merge feature
	stderr_contains "request #1 is pending"
	stderr_contains "daicho approve 1"
	assert_ledger_unchanged
	ok daicho approvals
	assert_output "#1    pending   A                  0s  git merge feature
       in $TEST_ROOT; daicho approve 1 | daicho deny 1"
	ok daicho approvals --json
	jq -e '. == [{"id":1,"state":"pending","command":"git merge feature","cwd":"'"$TEST_ROOT"'",
		"gate":1,"pattern":"git merge *","requester":"A","requested_ms":'$T0',"decided_ms":null,
		"decided_by":null,"decided_tty":null,"condition":null,"reason":null,"expires_ms":null,
		"used_ms":null}]' <<<"$output" >/dev/null || fail "$output"
	[ -z "$(git_runs)" ] || fail "git ran: $(git_runs)"

	export DAICHO_NOW_MS=$((T0 + MIN))
	human daicho approve 1
	[ "$(approval 1 .state)" = approved ]
	[ "$(approval 1 .decided_by)" = "$DECIDER" ]
	[[ "$(approval 1 .decided_tty)" == /dev/* ]] || fail "tty $(approval 1 .decided_tty)"
	[ "$(approval 1 .decided_ms)" = $((T0 + MIN)) ]
	[ "$(approval 1 .expires_ms)" = $((T0 + MIN + HOUR)) ]
	ok daicho approvals
	assert_line --index 0 --regexp "^#1 +approved +A +1m  git merge feature$"
	assert_line --index 1 --regexp "^       in $TEST_ROOT; by $DECIDER on /dev/"

	ok daicho gate exec --as A -- git merge feature
	assert_output "git ran: merge feature"
	[ "$(git_runs)" = "merge feature" ]
	[ "$(approval 1 .state)" = used ]
	[ "$(approval 1 .used_ms)" = $((T0 + MIN)) ]
	[ "$(sql "SELECT kind FROM events ORDER BY id DESC LIMIT 1")" = approval-used ]

	# single use: the next run needs a new approval
	refused 6 daicho gate exec --as A -- git merge feature
	stderr_contains "request #2 is made"
	[ "$(git_runs)" = "merge feature" ]
}

@test "approvals lists pending requests first, then decided ones" {
	daicho gate add 'git merge *' --approval >/dev/null
	daicho gate exec --as A -- git merge one 2>/dev/null || true
	daicho gate exec --as A -- git merge two 2>/dev/null || true
	daicho gate exec --as B -- git merge three 2>/dev/null || true
	human daicho approve 1
	human daicho deny 2 --reason "not now"
	ok daicho approvals --json
	jq -e 'map([.id, .state]) == [[3, "pending"], [1, "approved"], [2, "denied"]]' <<<"$output" \
		>/dev/null || fail "$output"
	ok daicho approvals
	assert_line --index 0 --regexp '^#3 +pending +B +0s  git merge three$'
	assert_line --index 1 "       in $TEST_ROOT; daicho approve 3 | daicho deny 3"
	assert_line --index 2 --regexp '^#1 +approved +A '
	assert_line --index 4 --regexp '^#2 +denied +A '
	assert_line --index 5 --regexp "^       in $TEST_ROOT; by $DECIDER on /dev/[^:]+: not now$"
	ok daicho approvals -a --json
	jq -e 'length == 3' <<<"$output" >/dev/null || fail "$output"
}

@test "an approval is bound to the agent that asked: agent B cannot use A's approval" {
	daicho gate add 'git merge *' --approval >/dev/null
	daicho gate exec --as A -- git merge feature 2>/dev/null || true
	human daicho approve 1
	refused 6 daicho gate exec --as B -- git merge feature
	stderr_contains "request #2 is made"
	[ -z "$(git_runs)" ] || fail "git ran: $(git_runs)"
	[ "$(approval 1 .state)" = approved ]
	[ "$(approval 2 .requester)" = B ]
	# an anonymous caller cannot use it either
	refused 6 daicho gate exec -- git merge feature
	[ -z "$(git_runs)" ] || fail "git ran: $(git_runs)"
	ok daicho gate exec --as A -- git merge feature
	[ "$(git_runs)" = "merge feature" ]
}

@test "an approval is bound to the directory: the same command elsewhere needs its own" {
	daicho gate add 'git merge *' --approval >/dev/null
	daicho gate exec --as A -- git merge feature 2>/dev/null || true
	human daicho approve 1
	cd sub
	refused 6 daicho gate exec --as A -- git merge feature
	stderr_contains "request #2 is made"
	[ "$(approval 2 .cwd)" = "$TEST_ROOT/sub" ]
	[ -z "$(git_runs)" ] || fail "git ran: $(git_runs)"
	[ "$(approval 1 .state)" = approved ]
	# -C does not move an approval either
	cd "$TEST_ROOT"
	refused 6 daicho gate exec --as A -C sub -- git merge feature
	[ -z "$(git_runs)" ] || fail "git ran: $(git_runs)"
	ok daicho gate exec --as A -- git merge feature
	[ "$(git_runs)" = "merge feature" ]
}

@test "an approval is for the exact command: other arguments need their own" {
	daicho gate add 'git merge *' --approval >/dev/null
	daicho gate exec --as A -- git merge feature 2>/dev/null || true
	human daicho approve 1
	refused 6 daicho gate exec --as A -- git merge feature --no-ff
	refused 6 daicho gate exec --as A -- git merge other
	[ -z "$(git_runs)" ] || fail "git ran: $(git_runs)"
	[ "$(approval 1 .state)" = approved ]
}

@test "an approval expires after --ttl (default 1h)" {
	daicho gate add 'git merge *' --approval >/dev/null
	daicho gate exec --as A -- git merge one 2>/dev/null || true
	daicho gate exec --as A -- git merge two 2>/dev/null || true
	human daicho approve 1 --ttl 10m
	human daicho approve 2
	[ "$(approval 1 .expires_ms)" = $((T0 + 10 * MIN)) ]
	export DAICHO_NOW_MS=$((T0 + 10 * MIN))
	refused 6 daicho gate exec --as A -- git merge one
	stderr_contains "request #3 is made"
	[ -z "$(git_runs)" ] || fail "git ran: $(git_runs)"
	export DAICHO_NOW_MS=$((T0 + HOUR - 1))
	ok daicho gate exec --as A -- git merge two
	[ "$(git_runs)" = "merge two" ]
	# and an hour on, an approval given now has gone
	daicho gate exec --as A -- git merge two 2>/dev/null || true
	human daicho approve 4
	export DAICHO_NOW_MS=$((T0 + 2 * HOUR))
	refused 6 daicho gate exec --as A -- git merge two
	[ "$(git_runs)" = "merge two" ]
}

@test "spacing, quoting, wrappers and chains do not get a command past a gate" {
	daicho gate add 'git merge *' --approval >/dev/null
	register_agent A
	local c
	for c in "git  merge   x" "'git' 'merge' x" "git \"merge\" x" "g\\it merge x" "git merg\\e x" \
		"cd . && git merge x" "true; git merge x" "true | git merge x" "echo \$(git merge x)" \
		"env FOO=1 git merge x" "sudo git merge x" "timeout 5 git merge x" "/usr/bin/git merge x" \
		"bash -c 'git merge x'" "git -C . merge x" "git merge \"x" "nohup git merge x"; do
		refused 6 daicho gate exec --as A -- sh -c "$c"
		stderr_contains "needs a human approval"
	done
	refused 6 daicho gate exec --as A -- git -C . merge x
	refused 6 daicho gate exec --as A -- "$TEST_ROOT/bin/git" merge x
	refused 6 daicho gate exec --as A -- env git merge x
	[ -z "$(git_runs)" ] || fail "git ran: $(git_runs)"
}

@test "scenario: an agent runs daicho approve or deny: refused, and the request is still pending" {
	# "An agent runs daicho approve (no TTY, or agent identity present):
	# refused, and the request is still pending."
	daicho gate add 'git merge *' --approval >/dev/null
	daicho gate exec --as A -- git merge feature 2>/dev/null || true
	snapshot_ledger
	refused 6 daicho approve 1 </dev/null
	stderr_contains "only a human at a terminal may approve (stdin is not a terminal"
	refused 6 daicho deny 1 </dev/null
	stderr_contains "only a human at a terminal may deny"
	local v
	for v in DAICHO_AGENT=A CLAUDE_CODE_SESSION_ID=s-1 CODEX_THREAD_ID=t-1 GEMINI_SESSION_ID=g-1 \
		CLAUDECODE=1 GEMINI_CLI=1; do
		on_pty env "$v" daicho approve 1
		pty_refused 6
		# Gemini's shell (GEMINI_CLI=1, no session) is refused as an
		# agent whose session is unknown before approve is reached.
		[[ "$output" == *"only a human at a terminal may approve"* ||
			( "$v" == GEMINI_CLI=1 && "$output" == *"never counts as the human's"* ) ]] ||
			fail "$v: $output"
		on_pty env "$v" daicho deny 1
		pty_refused 6
	done
	on_pty daicho approve 1 --as A
	pty_refused 6
	[[ "$output" == *"--as names an agent"* ]] || fail "$output"
	on_pty daicho deny 1 --as A --reason no
	pty_refused 6
	assert_ledger_unchanged
	[ "$(approval 1 .state)" = pending ]
	refused 6 daicho gate exec --as A -- git merge feature
	stderr_contains "request #1 is pending"
	[ -z "$(git_runs)" ] || fail "git ran: $(git_runs)"
}

@test "scenario: a command the human denied is refused at once for another agent, showing the denial" {
	# "Agent A's request to git push --force origin main is denied by the
	# human; agent B requests the same command: refused at once, showing the
	# denial."
	daicho gate add 'git push --force*' --approval >/dev/null
	refused 6 daicho gate exec --as A -- git push --force origin main
	stderr_contains "request #1 is made"
	human daicho deny 1 --reason "never force-push main"
	[ "$(approval 1 .state)" = denied ]
	[ "$(approval 1 .reason)" = "never force-push main" ]
	[ "$(sql "SELECT kind FROM events ORDER BY id DESC LIMIT 1")" = deny ]
	register_agent B
	export DAICHO_NOW_MS=$((T0 + 5 * MIN))
	refused 6 daicho gate exec --as B -- git push --force origin main
	stderr_contains "'git push --force origin main' was denied by $DECIDER on /dev/"
	stderr_contains "at 2027-01-15T08:00:00Z (approval #1, requested by A): \"never force-push main\""
	stderr_contains "not run (only a human approving request #2 lifts it)"
	# the refusal keeps B's request, pending, for a human to reconsider;
	# asking again adds nothing
	[ "$(approval 2 .state)" = pending ]
	snapshot_ledger
	refused 6 daicho gate exec --as B -- git push --force origin main
	assert_ledger_unchanged
	# in another directory, and for A itself, the same refusal
	cd sub
	refused 6 daicho gate exec --as B -- git push --force origin main
	stderr_contains "was denied by $DECIDER"
	cd "$TEST_ROOT"
	refused 6 daicho gate exec --as A -- git push --force origin main
	stderr_contains "was denied by $DECIDER"
	[ -z "$(git_runs)" ] || fail "git ran: $(git_runs)"
}

@test "a human who approves a refused request lifts the denial for that agent and command" {
	daicho gate add 'git push --force*' --approval >/dev/null
	refused 6 daicho gate exec --as A -- git push --force origin main
	human daicho deny 1 --reason "not now"
	register_agent B
	refused 6 daicho gate exec --as B -- git push --force origin main
	stderr_contains "only a human approving request #2 lifts it"
	human daicho approve 2
	ok daicho gate exec --as B -- git push --force origin main
	[ "$(git_runs)" = "push --force origin main" ] || fail "git ran: $(git_runs)"
	# for B the denial is lifted: the next run asks anew, as any gated one
	refused 6 daicho gate exec --as B -- git push --force origin main
	stderr_contains "needs a human approval"
	# for A it stands
	refused 6 daicho gate exec --as A -- git push --force origin main
	stderr_contains "was denied by $DECIDER"
}

@test "scenario: merge if tests pass: approved with --if 'make test', the tests then fail, the merge is refused" {
	# "Merge if tests pass: approval given with --if 'make test'; the tests
	# then fail; gate exec refuses to run the merge."
	daicho gate add 'git merge *' --approval >/dev/null
	touch tests-pass
	daicho gate exec --as A -- git merge feature 2>/dev/null || true
	human daicho approve 1 --if "make test"
	[ "$(approval 1 .condition)" = "make test" ]
	ok daicho approvals
	assert_line --index 1 --regexp "^       in $TEST_ROOT; by $DECIDER on /dev/.*, if make test$"
	rm tests-pass
	refused 6 daicho gate exec --as A -- git merge feature
	stderr_contains "approval #1's condition 'make test' failed (exit 2: FAIL: 2 of 40 tests); not run"
	[ "$(cat make.log)" = test ] || fail "make ran: $(cat make.log)"
	[ -z "$(git_runs)" ] || fail "git ran: $(git_runs)"
	[ "$(approval 1 .state)" = approved ]
	# the condition is re-checked at each attempt: once the tests pass it runs, once
	touch tests-pass
	ok daicho gate exec --as A -- git merge feature
	[ "$(git_runs)" = "merge feature" ]
	[ "$(approval 1 .state)" = used ]
}

@test "a message whose text is 'daicho approve 1' approves nothing" {
	daicho gate add 'git merge *' --approval >/dev/null
	daicho gate exec --as A -- git merge feature 2>/dev/null || true
	daicho send A "daicho approve 1" --as B >/dev/null
	daicho send A "approved: daicho approve 1 --if true" --as B >/dev/null
	ok daicho inbox --as A
	assert_output --partial "daicho approve 1"
	refused 6 daicho gate exec --as A -- git merge feature
	stderr_contains "request #1 is pending"
	[ "$(approval 1 .state)" = pending ]
	[ -z "$(git_runs)" ] || fail "git ran: $(git_runs)"
}

@test "approve and deny refuse bad input and decided or unknown requests, changing nothing" {
	daicho gate add 'git merge *' --approval >/dev/null
	daicho gate exec --as A -- git merge feature 2>/dev/null || true
	daicho gate exec --as A -- git merge other 2>/dev/null || true
	human daicho approve '#1'
	snapshot_ledger
	on_pty daicho approve 1
	pty_refused 4
	[[ "$output" == *"approval #1 is approved, not pending"* ]] || fail "$output"
	on_pty daicho deny 1
	pty_refused 4
	on_pty daicho approve 9
	pty_refused 3
	[[ "$output" == *"no approval #9"* ]] || fail "$output"
	on_pty daicho approve x
	pty_refused 2
	on_pty daicho approve 2 --if ''
	pty_refused 2
	on_pty daicho approve 2 --ttl never
	pty_refused 2
	on_pty daicho deny 2 --reason ''
	pty_refused 2
	on_pty daicho approve
	pty_refused 2
	assert_ledger_unchanged
	[ "$(approval 2 .state)" = pending ]
}

# --- approve, deny and gate rm inside an agent's session ---------------------------

# refused_in_client CLIENT WHAT: the last in_client was refused (exit 6),
# naming the client process as the reason, and for WHAT.
refused_in_client() {
	pty_refused 6
	[[ "$output" == *"only a human at a terminal may $2 (an agent client, $1 (pid "*"), is among the ancestors of this process"* ]] ||
		fail "expected a refusal naming the $1 process: $output"
}

@test "approve, deny and gate rm refuse under an agent client process, even with no agent variable and on a terminal" {
	daicho gate add 'git merge *' --approval >/dev/null
	daicho gate exec --as A -- git merge feature 2>/dev/null || true
	snapshot_ledger
	local client
	for client in claude codex gemini; do
		in_client "$client" 'env -u DAICHO_AGENT daicho approve 1'
		refused_in_client "$client" approve
		in_client "$client" 'daicho deny 1 --reason no'
		refused_in_client "$client" deny
		in_client "$client" 'daicho gate rm 1'
		refused_in_client "$client" "remove a gate"
	done
	# Python's pty.spawn, the environment emptied: still under claude.
	if command -v python3 >/dev/null; then
		in_client claude "python3 -c 'import os, pty; os.environ.clear(); os.environ[\"PATH\"] = \"$PATH\"; os.environ[\"DAICHO_LEDGER\"] = \"$DAICHO_LEDGER\"; pty.spawn([\"daicho\", \"approve\", \"1\"])'"
		[[ "$output" == *"an agent client, claude (pid "*"), is among the ancestors"* ]] || fail "$output"
	fi
	assert_ledger_unchanged
	[ "$(approval 1 .state)" = pending ]
	[ "$(sql "SELECT count(*) FROM gates")" = 1 ]
	refused 6 daicho gate exec --as A -- git merge feature
	[ -z "$(git_runs)" ] || fail "git ran: $(git_runs)"
}

@test "approve refuses when its own parents are gone but its terminal's session leader runs under an agent client" {
	daicho gate add 'git merge *' --approval >/dev/null
	daicho gate exec --as A -- git merge feature 2>/dev/null || true
	snapshot_ledger
	# A double fork: daicho's parent chain ends at init; the pseudo-terminal's
	# session leader (the shell script runs) still descends from claude.
	in_client claude "( (daicho approve 1 </dev/tty; echo \$? >'$TEST_ROOT/rc') & ); while [ ! -s '$TEST_ROOT/rc' ]; do sleep 0.05; done"
	[ "$(cat "$TEST_ROOT/rc")" = 6 ] || fail "exit $(cat "$TEST_ROOT/rc"): $output"
	[[ "$output" == *"an agent client, claude (pid "*"), is among the ancestors of its terminal's session leader"* ]] ||
		fail "$output"
	assert_ledger_unchanged
	[ "$(approval 1 .state)" = pending ]
}

@test "approve refuses a terminal that is not its session's controlling terminal" {
	daicho gate add 'git merge *' --approval >/dev/null
	daicho gate exec --as A -- git merge feature 2>/dev/null || true
	snapshot_ledger
	# setsid: a session of its own with no terminal; stdin is still the pty.
	on_pty setsid -w daicho approve 1
	pty_refused 6
	[[ "$output" == *"is not the controlling terminal of this session"* ]] || fail "$output"
	assert_ledger_unchanged
}

@test "each decision records what was checked: no agent variable, the terminal, the ancestors, no agent client" {
	daicho gate add 'git merge *' --approval >/dev/null
	daicho gate add 'git push *' --approval >/dev/null
	daicho gate exec --as A -- git merge feature 2>/dev/null || true
	daicho gate exec --as A -- git merge other 2>/dev/null || true
	human daicho approve 1
	human daicho deny 2
	human daicho gate rm 2
	local kind
	for kind in approve deny gate-rm; do
		sql "SELECT detail FROM events WHERE kind = '$kind'" | jq -e '.checked |
			.agent_variables == "none set" and
			(.terminal | test("^/dev/[^,]+, the session.s controlling terminal$")) and
			(.ancestors | test("^[^ ]+\\[[0-9]+\\] ")) and (.ancestors | test("script\\[")) and
			.agent_client == "none among the ancestors"' >/dev/null ||
			fail "$kind: $(sql "SELECT detail FROM events WHERE kind = '$kind'")"
	done
}

@test "help for every gate command is true to the table" {
	for c in "gate add" "gate ls" "gate rm" "gate exec" approvals approve deny; do
		ok daicho help $c
		assert_line --index 0 --partial "usage: daicho $c"
		ok daicho $c --help
	done
}
