#!/usr/bin/env bats
# What only a person may do ('daicho help person'), walked entry by entry
# through every way an agent under pressure gets around it: no terminal
# (its identity stripped), setsid -f, script and Python's pty.spawn inside
# an agent client, an empty identity variable, --as, and the MCP server.
# Each attempt must exit 6 and leave the ledger as it was. The control: a
# person at a terminal does every one of them.
#
# ACTS is this file's own copy of the table, in the table's order; the
# first test fails when the program's table and this one part, so an entry
# dropped from the program is caught here rather than silently untested.

load helpers

# FORM|KIND|COMMAND LINE (words split on spaces; @ROOT@ is $TEST_ROOT).
# KIND "person": an agent is refused outright; "agents": an agent may run
# it under an agent's rules, which refuse agent B (neither added the tasks
# nor holds them) on the ledger setup() makes.
ACTS=(
	"approve ID|person|approve 1"
	"deny ID|person|deny 2 --reason no"
	"gate rm|person|gate rm 1"
	"config KEY VALUE, --unset|person|config protect none"
	"import|person|--ledger @ROOT@/new.db import @ROOT@/export.jsonl"
	"release --force|person|release 3 --force"
	"land --pause|person|land --pause"
	"land --resume|person|land --resume"
	"serve --login-url|person|serve --login-url"
	"serve --revoke|person|serve --revoke"
	"add --no-baseline|person|add T --no-baseline"
	"add --check-needs|person|add T --check-needs net"
	"edit --no-baseline|person|edit 1 --no-baseline"
	"edit --check-needs|person|edit 1 --check-needs net"
	"edit --done-when|agents|edit 1 --done-when commit"
	"edit --check-timeout|agents|edit 1 --check-timeout 1m"
	"edit --touches|agents|edit 1 --touches tests/**"
	"edit --protect|agents|edit 1 --protect docs/**"
	"edit --after|agents|edit 1 --after 2"
	"edit --not-after|agents|edit 6 --not-after 2"
	"cancel|agents|cancel 3"
	"reopen|agents|reopen 5"
	"unblock|agents|unblock 4"
	"resume|agents|resume 1"
)

setup() {
	any_backend "the person check is the process's: its terminal, identity and ancestors (roles.bats has PostgreSQL's own person rule)"
	common_setup
	# Two pending approvals (#1, #2) of gate #1, asked by agent A.
	daicho gate add 'git merge *' --approval >/dev/null
	daicho gate exec --as A -- git merge one >/dev/null 2>&1 || true
	daicho gate exec --as A -- git merge two >/dev/null 2>&1 || true
	# Tasks the person added: #1 open, #2 open, #3 claimed by A, #4
	# blocked by A, #5 cancelled, #6 after #2.
	daicho add T1 --touches 'src/**' --done-when saved >/dev/null
	daicho add T2 >/dev/null
	daicho add T3 >/dev/null
	daicho add T4 >/dev/null
	daicho add T5 >/dev/null
	daicho add T6 --after 2 >/dev/null
	daicho --as A claim 3 >/dev/null
	daicho --as A claim 4 >/dev/null
	daicho --as A block 4 --reason 'which file?' >/dev/null
	person daicho cancel 5 >/dev/null
	# A's wait #1, and agent B, who holds nothing and added nothing.
	daicho --as A wait --for '#2' >/dev/null
	daicho --as B agent start B >/dev/null 2>&1 || daicho --as B ls >/dev/null
	# A dashboard of another machine's, recorded as 'daicho serve' records
	# itself (core/weblogin.h), for serve --login-url.
	sql "INSERT INTO settings (key, value, set_ms) VALUES ('web-server', '{\"origin\":\"http://d-test.localhost:7070\",\"host\":\"elsewhere\",\"pid\":1}', 0)" >/dev/null
	# For import: an export, and a new empty ledger to load it into.
	daicho export >"$TEST_ROOT/export.jsonl"
	daicho --ledger "$TEST_ROOT/new.db" init >/dev/null
	snapshot_ledger
	cp "$TEST_ROOT/new.db" "$TEST_ROOT/new.db.before"
}

# act_line N: the command line of ACTS[N], @ROOT@ filled in.
act_line() {
	local line="${ACTS[$1]##*|}"
	printf '%s' "${line//@ROOT@/$TEST_ROOT}"
}

# act_kind N: person or agents.
act_kind() {
	local rest="${ACTS[$1]#*|}"
	printf '%s' "${rest%%|*}"
}

# nothing_changed WHAT: neither ledger changed (the import's new one too).
nothing_changed() {
	assert_ledger_unchanged
	cmp -s "$TEST_ROOT/new.db" "$TEST_ROOT/new.db.before" ||
		fail "$1: the new ledger changed (import ran)"
}

# refused6 WHAT [CODE...]: the last attempt (status, output) exited 6, or
# one of CODEs (an agent's rules answer a task held by another with 4, a
# wait not its own with 3), and changed nothing.
refused6() {
	local what="$1" code
	shift
	for code in 6 "$@"; do
		[ "$status" -ne "$code" ] || { nothing_changed "$what"; return; }
	done
	fail "$what: expected exit 6 (or $*), got $status: $output"
}

@test "help person lists the table this suite walks, in order, and every command's --help shows its entries" {
	ok daicho help person
	local got
	got="$(printf '%s\n' "$output" | sed -n 's/^  \(.*[^ ]\)  \+[a-z].*$/\1/p')"
	local want
	want="$(for a in "${ACTS[@]}"; do printf '%s\n' "${a%%|*}"; done)"
	[ "$got" = "$want" ] || fail "the program's table and this suite's differ:
$(diff <(echo "$want") <(echo "$got"))"
	# Each entry's command and option exist, and its --help names it.
	local i words cmd opt
	for i in "${!ACTS[@]}"; do
		read -ra words <<<"$(act_line "$i")"
		[ "${words[0]}" = --ledger ] && words=("${words[@]:2}")
		cmd="${words[0]}"
		[ "$cmd" = gate ] && cmd="gate rm"
		ok daicho help $cmd
		[[ "$output" == *"A person's alone, at a terminal"* ]] ||
			fail "'daicho help $cmd' does not say what is a person's"
		opt="$(act_line "$i" | grep -o -- ' --[a-z-]*' | head -1 || true)"
		case "${ACTS[$i]%%|*}" in
		*--*) [[ "$output" == *"${opt# }"* ]] || fail "$cmd has no${opt}" ;;
		esac
	done
}

@test "control: a person at a terminal does every entry, each with exit 0" {
	local i
	for i in "${!ACTS[@]}"; do
		# shellcheck disable=SC2046
		on_pty daicho $(act_line "$i")
		[ "$status" -eq 0 ] || fail "a person's '$(act_line "$i")': exit $status: $output"
	done
	[ "$(task_field 1 no_baseline)" = true ] || fail "edit --no-baseline did not take"
	[ "$(daicho --ledger "$TEST_ROOT/new.db" ls --json | jq length)" = 6 ] ||
		fail "import did not load the six tasks"
}

@test "no terminal (an agent's identity stripped, a script, cron): every entry is refused, exit 6" {
	local i
	for i in "${!ACTS[@]}"; do
		# shellcheck disable=SC2046
		run daicho $(act_line "$i") </dev/null
		refused6 "$(act_line "$i")"
		[[ "$output" == *"only a human at a terminal may"*"stdin is not a terminal"* ]] ||
			fail "$(act_line "$i"): $output"
	done
}

@test "setsid -f (a session with no terminal): every entry is refused, exit 6" {
	local i
	for i in "${!ACTS[@]}"; do
		# shellcheck disable=SC2046
		on_pty setsid -f -w daicho $(act_line "$i")
		refused6 "setsid $(act_line "$i")"
	done
}

@test "script inside an agent client, the identity stripped: every entry is refused, exit 6" {
	local i
	for i in "${!ACTS[@]}"; do
		in_client claude "env -u DAICHO_AGENT script -qec 'daicho $(act_line "$i")' /dev/null"
		refused6 "claude: script $(act_line "$i")"
		[[ "$output" == *"an agent client, claude (pid "* ]] || fail "$(act_line "$i"): $output"
	done
}

@test "a pseudo-terminal from Python inside an agent client, the environment emptied: every entry is refused" {
	command -v python3 >/dev/null || skip "no python3"
	local i args
	for i in "${!ACTS[@]}"; do
		args="$(act_line "$i" | jq -Rc 'split(" ")')"
		in_client codex "python3 -c 'import os, pty; os.environ.clear(); os.environ[\"PATH\"] = \"$PATH\"; os.environ[\"DAICHO_LEDGER\"] = \"$DAICHO_LEDGER\"; raise SystemExit(os.waitstatus_to_exitcode(pty.spawn([\"daicho\"] + $args)))'"
		refused6 "codex: pty.spawn $(act_line "$i")"
		[[ "$output" == *"an agent client, codex (pid "* ]] || fail "$(act_line "$i"): $output"
	done
}

@test "an empty identity variable on a terminal: every entry is refused, exit 6" {
	local i var
	for var in DAICHO_AGENT CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID; do
		for i in "${!ACTS[@]}"; do
			# shellcheck disable=SC2046
			on_pty env "$var=" daicho $(act_line "$i")
			refused6 "$var= $(act_line "$i")"
			[[ "$output" == *"\$$var is set but empty"* ]] || fail "$(act_line "$i"): $output"
		done
	done
}

@test "as agent B on a terminal: a person's alone is refused; the rest meets an agent's rules, which refuse B" {
	local i
	for i in "${!ACTS[@]}"; do
		# shellcheck disable=SC2046
		on_pty daicho --as B $(act_line "$i")
		if [ "$(act_kind "$i")" = agents ]; then
			refused6 "--as B $(act_line "$i")" 4 3
		else
			refused6 "--as B $(act_line "$i")"
			[[ "$output" == *"only a human at a terminal may"*"--as names an agent"* ]] ||
				fail "$(act_line "$i"): $output"
		fi
	done
}

@test "through the MCP server as agent B: every entry that is a tool is refused; none is run" {
	local i words tool args calls=()
	for i in "${!ACTS[@]}"; do
		read -ra words <<<"$(act_line "$i")"
		[ "${words[0]}" = --ledger ] && continue
		tool="${words[0]}"
		daicho mcp --list-tools | jq -e --arg t "$tool" '.tools[] | select(.name == $t)' >/dev/null 2>&1 ||
			continue
		# The line's arguments as the tool's: ID, and each --option's value.
		args="$(printf '%s\n' "${words[@]:1}" | jq -Rsc 'split("\n")[:-1] |
			reduce range(0; length) as $k ({out: {}, skip: false, w: .};
				if .skip then .skip = false
				elif (.w[$k] | startswith("--")) then
					(.w[$k][2:] | gsub("-"; "_")) as $o |
					if ($k + 1 < (.w | length)) and (.w[$k + 1] | startswith("--") | not)
					then .out[$o] = .w[$k + 1] | .skip = true else .out[$o] = true end
				elif (.w[$k] | test("^[0-9]+$")) then .out.id = (.w[$k] | tonumber)
				else .out.title = .w[$k] end) | .out')"
		calls+=("$(jq -cn --arg t "$tool" --argjson a "$args" --argjson id "$((i + 2))" \
			'{jsonrpc: "2.0", id: $id, method: "tools/call", params: {name: $t, arguments: $a}}')")
	done
	[ "${#calls[@]}" -ge 3 ] || fail "only ${#calls[@]} entries are MCP tools: the walk proves little"
	{
		printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
		printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
		printf '%s\n' "${calls[@]}"
	} | daicho mcp --as B >"$TEST_ROOT/mcp.out"
	local answered
	answered="$(jq -s '[.[] | select(.id >= 2)] | length' "$TEST_ROOT/mcp.out")"
	[ "$answered" = "${#calls[@]}" ] || fail "$answered answers to ${#calls[@]} calls: $(cat "$TEST_ROOT/mcp.out")"
	jq -e -s 'all(.[] | select(.id >= 2); .result.isError == true or .error != null)' "$TEST_ROOT/mcp.out" >/dev/null ||
		fail "an MCP call succeeded: $(cat "$TEST_ROOT/mcp.out")"
	# B's calls leave B's heartbeat only: no task, wait, approval or setting changed.
	[ "$(sql "SELECT state FROM tasks ORDER BY id" | tr '\n' ' ')" = "open open claimed blocked cancelled open " ] ||
		fail "tasks changed: $(sql "SELECT id, state FROM tasks")"
	[ "$(sql "SELECT count(*) FROM waits WHERE ended_ms IS NULL")" = 1 ] || fail "the wait ended"
	[ "$(sql "SELECT count(*) FROM tasks WHERE no_baseline <> 0 OR check_needs IS NOT NULL")" = 0 ] ||
		fail "a person's option took"
}

# mutant: add's by_person set without the proof: the agent's stripped add
# exempts its task, and the report below is verified.
@test "add --touches without a person at a terminal (an agent that stripped its identity) does not exempt a task from the protected paths" {
	git init -q -b main repo
	cd repo
	git config user.email t@example.com
	git config user.name T
	mkdir tests
	echo broken >tests/t.sh
	git add tests && git commit -q -m tests
	# The ledger where the judge finds the repository: inside git on
	# SQLite, a new database found through DAICHO_LEDGER on PostgreSQL.
	if backend_is_postgresql; then
		export DAICHO_LEDGER="$(new_ledger_address "")"
	else
		unset DAICHO_LEDGER
	fi
	daicho init >/dev/null
	person daicho config protect 'tests/**' >/dev/null
	person daicho config land off >/dev/null
	# No terminal: the task is added, and told that its touches exempt nothing.
	run --separate-stderr daicho add stripped --touches 'tests/**' --done-when 'cmd:grep -q fixed tests/t.sh'
	[ "$status" -eq 0 ] || fail "$stderr"
	[[ "$stderr" == *"touches not set by a person at a terminal do not exempt it"* ]] || fail "$stderr"
	# A person at a terminal: no note, and the touches exempt it.
	run --separate-stderr person daicho add proven --touches 'tests/**' --done-when 'cmd:grep -q fixed tests/t.sh'
	[[ "$stderr" != *"do not exempt"* ]] || fail "$stderr"
	git checkout -q -b work
	echo fixed >tests/t.sh
	git commit -q -am fix
	daicho --as w1 claim 1 >/dev/null
	daicho --as w1 report 1 --commit HEAD >/dev/null
	daicho sweep >/dev/null 2>&1 || true
	[ "$(daicho show --json 1 | jq -r .state)" != verified ] || fail "the stripped add exempted its task"
	[[ "$(daicho show --json 1 | jq -r .last_verdict.summary)" == *"which the ledger protects"* ]] ||
		fail "$(daicho show 1)"
	# The control: the same work for the person's task is verified.
	daicho --as w1 release 1 >/dev/null
	daicho --as w2 claim 2 >/dev/null
	daicho --as w2 report 2 --commit HEAD >/dev/null
	daicho sweep >/dev/null 2>&1 || true
	[ "$(daicho show --json 2 | jq -r .state)" = verified ] || fail "$(daicho show 2)"
}

@test "what a person set on a task is not its creator agent's to change: checks, scope, protect, edges" {
	daicho --as lead add L1 --touches 'src/**' --done-when saved >/dev/null    # 7
	daicho --as lead add L2 --after 1 >/dev/null                               # 8
	# The creator may change its own task's checks and edges...
	ok daicho --as lead edit 7 --done-when commit
	ok daicho --as lead edit 8 --not-after 1 --after 2
	# ...until a person sets them.
	on_pty daicho edit 7 --touches 'lib/**' --done-when saved --protect 'tests/**' --check-timeout 2m
	[ "$status" -eq 0 ] || fail "$output"
	on_pty daicho edit 8 --after 1
	[ "$status" -eq 0 ] || fail "$output"
	snapshot_ledger
	local attempt
	for attempt in "--touches src/**" "--done-when commit" "--protect none" "--check-timeout 1s"; do
		# shellcheck disable=SC2086
		refused 6 daicho --as lead edit 7 $attempt
		[[ "$stderr" == *"a person set them"* ]] || fail "$attempt: $stderr"
	done
	refused 6 daicho --as lead edit 8 --not-after 1
	[[ "$stderr" == *"dependencies of task #8: a person set them"* ]] || fail "$stderr"
	assert_ledger_unchanged
	# Another agent may not remove an edge at all, nor add one.
	refused 6 daicho --as B edit 7 --after 3
	refused 6 daicho --as B edit 6 --not-after 2
	assert_ledger_unchanged
	# Its title and priority stay the creator's to change.
	ok daicho --as lead edit 7 --title 'L1, renamed' --priority 3
}
