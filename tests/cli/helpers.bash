# Shared set-up for daicho's command-line tests (bats).
#
# Each test runs in a fresh temporary directory outside any git repository,
# with its own ledger ($DAICHO_LEDGER), no agent identity in the environment,
# and the freshly built ./daicho first on PATH.

bats_require_minimum_version 1.5.0

# bats-support and bats-assert. Their load.bash files source src/*.bash
# through a `$(dirname ...)` subshell per file, and bats re-sources them for
# every test; sourcing the same files directly saves ~0.15 s of CPU per test.
BATS_LIB_DIR="${BATS_LIB_DIR:-/usr/lib/bats}"
for _f in "$BATS_LIB_DIR"/bats-support/src/*.bash "$BATS_LIB_DIR"/bats-assert/src/*.bash; do
	# shellcheck disable=SC1090
	source "$_f"
done
unset _f

DAICHO_ROOT="${BATS_TEST_DIRNAME%/tests/cli}"

# shellcheck source=tests/backend.bash
# (beside this file's directory: suites elsewhere load these helpers too)
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/backend.bash"

# common_setup: the per-test environment described above.
common_setup() {
	TEST_ROOT="$(mktemp -d "$BATS_TEST_TMPDIR/t.XXXXXX")"
	cd -P "$TEST_ROOT" || return 1
	export TEST_ROOT="$PWD"

	# Nothing from the caller's environment may leak in.
	unset DAICHO_AGENT CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID
	unset CLAUDECODE GEMINI_CLI CODEX_SANDBOX
	unset DAICHO_NOW_MS DAICHO_BUSY_TIMEOUT DAICHO_LEDGER
	export NO_COLOR=1

	# git must never find a repository above the test directory, nor read
	# the user's configuration.
	export HOME="$TEST_ROOT"
	export GIT_CEILING_DIRECTORIES="${TEST_ROOT%/*}"
	export GIT_CONFIG_NOSYSTEM=1
	export GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=tester@example.com
	export GIT_COMMITTER_NAME=Tester GIT_COMMITTER_EMAIL=tester@example.com

	export PATH="$DAICHO_ROOT:$PATH"

	use_backend
	cd "$TEST_ROOT"
	if [ -z "${NO_INIT:-}" ]; then
		daicho init >/dev/null
		use_pool
	fi
}

# use_pool: with DAICHO_TEST_POOL=1 on PostgreSQL, serve the test's ledger
# through a pool (daicho pool start), so that the suite's commands run on
# the pool's client instead of libpq. It stops itself once the test has
# been idle for a few seconds (tests that start their own pool stop this
# one first).
use_pool() {
	if [ "${DAICHO_TEST_POOL:-}" = 1 ] && backend_is_postgresql; then
		daicho pool start --idle 5s >/dev/null
	fi
}

# use_backend: point DAICHO_LEDGER at a new, empty ledger of the back end
# the suite runs against (tests/backend.bash): a file in the test's
# directory on SQLite, a new database on PostgreSQL.
use_backend() {
	DAICHO_LEDGER="$(new_ledger_address "$TEST_ROOT/ledger.db")" ||
		fail "no ledger for DAICHO_TEST_BACKEND=${DAICHO_TEST_BACKEND:-sqlite}"
	export DAICHO_LEDGER
}

setup() {
	common_setup
}

# assert_refused CODE: the last `run --separate-stderr` exited with CODE,
# printed nothing on stdout and exactly one line on stderr starting
# "daicho: ".
assert_refused() {
	local code="$1"
	if [ "$status" -ne "$code" ]; then
		fail "expected exit status $code, got $status (stdout: '$output'; stderr: '$stderr')"
	fi
	if [ -n "$output" ]; then
		fail "expected empty stdout on a refused command, got: '$output'"
	fi
	assert_one_error_line
}

# assert_one_error_line: $stderr is exactly one line, starting "daicho: ".
assert_one_error_line() {
	if [ -z "$stderr" ]; then
		fail "expected one error line on stderr, got nothing"
	fi
	if [[ "$stderr" == *$'\n'* ]]; then
		fail "expected exactly one line on stderr, got: '$stderr'"
	fi
	if [[ "$stderr" != "daicho: "* ]]; then
		fail "expected stderr to start with 'daicho: ', got: '$stderr'"
	fi
}

# capture CMD...: like bats' `run --separate-stderr CMD...` (sets status,
# output, stderr, lines, stderr_lines; stdin passes through), without the
# subshell and temporary-file set-up that make `run` cost ~35 ms a call
# (it matters over hundreds of calls).
capture() {
	status=0
	"$@" >"$BATS_TEST_TMPDIR/.out" 2>"$BATS_TEST_TMPDIR/.err" || status=$?
	output="" stderr=""
	IFS= read -r -d '' output <"$BATS_TEST_TMPDIR/.out" || true
	IFS= read -r -d '' stderr <"$BATS_TEST_TMPDIR/.err" || true
	# Drop trailing newlines, as $(...) and bats' run do.
	[[ "$output" != *$'\n' ]] || output="${output%"${output##*[!$'\n']}"}"
	[[ "$stderr" != *$'\n' ]] || stderr="${stderr%"${stderr##*[!$'\n']}"}"
	lines=()
	stderr_lines=()
	[ -z "$output" ] || mapfile -t lines <<<"$output"
	[ -z "$stderr" ] || mapfile -t stderr_lines <<<"$stderr"
}

# refused CODE CMD...: run CMD and assert_refused CODE.
refused() {
	local code="$1"
	shift
	capture "$@"
	assert_refused "$code"
}

# ok CMD...: run CMD, assert exit 0 and nothing on stderr.
ok() {
	capture "$@"
	if [ "$status" -ne 0 ]; then
		fail "expected success from '$*', got exit $status (stderr: '$stderr')"
	fi
	if [ -n "$stderr" ]; then
		fail "expected nothing on stderr from '$*', got: '$stderr'"
	fi
}

# stderr_contains TEXT: the last run's stderr contains TEXT.
stderr_contains() {
	if [[ "$stderr" != *"$1"* ]]; then
		fail "expected stderr to contain '$1', got: '$stderr'"
	fi
}

# ledger_data [LEDGER]: a dump of every data table except agents (whose
# last-seen time and pid legitimately change on every command an agent
# runs). Used to prove a refused command changed nothing. Read-only, so
# that it leaves the WAL as it found it (a last read-write connection to
# close checkpoints the WAL and deletes it and its index).
ledger_data() {
	ledger_dump "${1:-$DAICHO_LEDGER}" tasks deps labels touches protects \
		checks saves events waits wait_items messages reservations gates \
		approvals settings verdicts
}

# snapshot_ledger / assert_ledger_unchanged: compare ledger_data before and
# after a command.
snapshot_ledger() {
	ledger_data >"$TEST_ROOT/ledger.before"
}

assert_ledger_unchanged() {
	ledger_data >"$TEST_ROOT/ledger.after"
	if ! cmp -s "$TEST_ROOT/ledger.before" "$TEST_ROOT/ledger.after"; then
		fail "ledger changed: $(diff "$TEST_ROOT/ledger.before" "$TEST_ROOT/ledger.after" | head -20)"
	fi
}

# sql QUERY: run one query on the ledger (ledger_sql).
sql() {
	ledger_sql "$DAICHO_LEDGER" "$1"
}

# task_field ID FIELD: one field of `show --json`.
task_field() {
	daicho show --json "$1" | jq -r ".$2"
}

# new_git_repo DIR: an initialised repository with one commit.
new_git_repo() {
	mkdir -p "$1"
	git -C "$1" init -q -b main
	echo hello >"$1/README"
	git -C "$1" add README
	git -C "$1" commit -q -m init
}

# make_login_roles: on PostgreSQL, a login in daicho_agent and one in
# daicho_human, for this test's ledger alone (login roles are the
# cluster's), and addresses that connect as each. Sets AGENT_ROLE,
# HUMAN_ROLE, AGENT_LEDGER and HUMAN_LEDGER.
make_login_roles() {
	local tag=${DAICHO_LEDGER#postgresql:///}
	tag=${tag%%\?*}
	AGENT_ROLE="agent_$tag" HUMAN_ROLE="human_$tag"
	psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE ROLE $AGENT_ROLE LOGIN" \
	    -c "CREATE ROLE $HUMAN_ROLE LOGIN" \
	    -c "GRANT daicho_agent TO $AGENT_ROLE" -c "GRANT daicho_human TO $HUMAN_ROLE"
	AGENT_LEDGER="$DAICHO_LEDGER&user=$AGENT_ROLE"
	HUMAN_LEDGER="$DAICHO_LEDGER&user=$HUMAN_ROLE"
}

# make_other_login: a second agent login (OTHER_ROLE, in daicho_agent) and
# the address that connects as it (OTHER_LEDGER); make_login_roles first.
# drop_other_login (in teardown) removes it.
make_other_login() {
	OTHER_ROLE="other_$AGENT_ROLE"
	psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE ROLE $OTHER_ROLE LOGIN" \
	    -c "GRANT daicho_agent TO $OTHER_ROLE"
	OTHER_LEDGER="$DAICHO_LEDGER&user=$OTHER_ROLE"
}
drop_other_login() {
	[ -n "${OTHER_ROLE:-}" ] &&
		psql -X -q -d postgres -c "DROP OWNED BY $OTHER_ROLE" -c "DROP ROLE $OTHER_ROLE" >/dev/null 2>&1
	return 0
}

# hold_lock LEDGER ROLE [SQL]: a session of LEDGER's login (ROLE) runs SQL
# (if given) in a transaction it keeps open (300 s), in the background;
# returns once the session is sleeping in it. Sets holder (the psql's pid);
# a teardown kills it.
hold_lock() {
	psql -X -q "$1" -c "BEGIN" ${3:+-c "$3"} -c "SELECT pg_sleep(300)" >/dev/null 2>&1 3>&- &
	holder=$!
	until [ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE usename = '$2' AND query LIKE '%pg_sleep%'")" = 1 ]; do
		sleep 0.1
	done
}

# grant_temporary ROLE...: let these logins make temporary objects in this
# test's database, which a ledger gives none (schema 7).
grant_temporary() {
	local db=${DAICHO_LEDGER#postgresql:///} roles
	db=${db%%\?*}
	printf -v roles '%s, ' "$@"
	psql -X -q -v ON_ERROR_STOP=1 -d postgres \
	    -c "GRANT TEMPORARY ON DATABASE $db TO ${roles%, }"
}

# as_psql LEDGER SQL: SQL through psql with LEDGER's credentials.
as_psql() {
	psql -X -q -At -v ON_ERROR_STOP=1 "$1" -c "$2"
}

# as_a|as_b|as_h ARGS...: daicho as agent a1 on the agent's login, b1 on
# the other agent login, or the person on theirs, at a terminal.
as_a() { DAICHO_LEDGER=$AGENT_LEDGER daicho --as a1 "$@"; }
as_b() { DAICHO_LEDGER=$OTHER_LEDGER daicho --as b1 "$@"; }
as_h() { person env DAICHO_LEDGER="$HUMAN_LEDGER" daicho "$@"; }

# register_agent NAME...: make the agents known to the ledger (a read-only
# command registers an unknown agent), so that a later refused command by
# them adds no agent-register event.
register_agent() {
	local name
	for name in "$@"; do
		daicho ls --as "$name" >/dev/null
	done
}

# TASK_FIELDS: the task fields documented as stable in 'daicho ls --help'.
TASK_FIELDS='["id","title","state","priority","parent","owner","lease_expires_ms",
"attempts","max_attempts","after","unmet_after","labels","touches","done_when",
"body_bytes","saves","result_bytes","commit","note","block_reason","created_ms",
"updated_ms"]'
# EVENT_FIELDS: the event fields documented in 'daicho events --help'.
EVENT_FIELDS='["id","at_ms","actor","kind","task","detail"]'

# assert_has_fields FIELDS_JSON OBJECT_JSON: OBJECT has every field (one jq
# run: jq costs ~60 ms a start).
assert_has_fields() {
	local missing
	missing="$(jq -r --argjson want "$1" '$want - keys | join(", ")' <<<"$2")" ||
		fail "not a JSON object: $2"
	[ -z "$missing" ] || fail "fields missing: $missing (in $2)"
}

# fake_client NAME: $TEST_ROOT/clients/NAME, a stand-in for an agent client
# process named NAME (its comm): it runs its argument as a shell command on
# a pseudo-terminal (script), as its child, so that it stays an ancestor,
# and exits with its status. No agent variable is set: they are as removed.
fake_client() {
	mkdir -p "$TEST_ROOT/clients"
	cat >"$TEST_ROOT/clients/$1" <<-'EOF'
		#!/bin/sh
		script -qec "$1" /dev/null </dev/null
		status=$?
		exit $status
	EOF
	chmod +x "$TEST_ROOT/clients/$1"
}

# in_client CLIENT CMD: run the shell command CMD under the fake client
# CLIENT (claude, codex; gemini: a node named so running the package's
# gemini.js). Sets status and output as on_pty does.
in_client() {
	local client=("$TEST_ROOT/clients/$1")
	if [ "$1" = gemini ]; then
		local js="$TEST_ROOT/lib/node_modules/@google/gemini-cli/bundle/gemini.js"
		mkdir -p "${js%/*}"
		fake_client node
		cp "$TEST_ROOT/clients/node" "$js"
		cp /bin/sh "$TEST_ROOT/clients/node"
		client=("$TEST_ROOT/clients/node" "$js")
	else
		fake_client "$1"
	fi
	status=0
	output="$("${client[@]}" "$2")" || status=$?
	output="${output//$'\r'/}"
}
