# The ledger's back end for daicho's bats suites (tests/cli, tests/stress),
# sourced by their helpers.
#
# DAICHO_TEST_BACKEND selects it: sqlite (the default) or postgresql. On
# PostgreSQL every test gets a new database in the cluster that
# tests/pg/cluster.sh started (run a suite as `tests/pg/cluster.sh run env
# DAICHO_TEST_BACKEND=postgresql bats tests/cli`; PGHOST, PGPORT and PGUSER
# come from there). Tests read the ledger through ledger_sql and
# ledger_dump, which give the same output on both; a test about SQLite
# itself (its file, WAL, PRAGMAs, where the file lives) says so with
# sqlite_only.

# Every suite sources this file (tests/mcp through its own helpers), so the
# shell setting all tests share is here: a pipeline fails when any command
# in it fails, so that "daicho graph | dot" cannot pass when daicho failed
# (tests/lint-tests checks that every test file has it).
set -o pipefail

# backend_is_postgresql: the suite runs against PostgreSQL.
backend_is_postgresql() {
	[ "${DAICHO_TEST_BACKEND:-sqlite}" = postgresql ]
}

# any_backend REASON: skip this test on PostgreSQL, saying why: what it
# checks does not depend on the ledger's back end (REASON), or it makes a
# SQLite ledger of its own; the SQLite pass runs it. Keeps the PostgreSQL
# pass to what PostgreSQL changes.
any_backend() {
	if backend_is_postgresql; then
		skip "the same on every back end: $1 (run on SQLite)"
	fi
}

# builds_in_tree: skip this test under 'make check-asan' (DAICHO_SANITIZED
# set): it runs make in the source tree, which would link ./daicho again
# without the sanitizers, under every test still to run.
builds_in_tree() {
	if [ -n "${DAICHO_SANITIZED:-}" ]; then
		skip "it runs make in the tree, which would replace the sanitized daicho (make check-asan)"
	fi
}

# sqlite_only REASON: skip the rest of this test on PostgreSQL, saying why
# it only applies to SQLite ledgers.
sqlite_only() {
	if backend_is_postgresql; then
		skip "SQLite-specific: $1"
	fi
}

# new_ledger_address SQLITE_PATH: print the address of a new, empty ledger
# of the suite's back end: SQLITE_PATH itself on SQLite (daicho init
# creates the file), the address of a new database on PostgreSQL (daicho
# init creates the schema). Returns 1 when that cannot be made.
new_ledger_address() {
	case "${DAICHO_TEST_BACKEND:-sqlite}" in
	sqlite)
		printf '%s\n' "$1"
		;;
	postgresql)
		if [ -z "${PGHOST:-}" ]; then
			echo "DAICHO_TEST_BACKEND=postgresql needs a cluster: run the suite through tests/pg/cluster.sh run" >&2
			return 1
		fi
		# BATS_ROOT_PID and the test's number keep parallel files
		# (bats -j) and successive runs apart; $RANDOM the ledgers
		# one test makes.
		local db="daicho_${BATS_ROOT_PID:-$$}_${BATS_SUITE_TEST_NUMBER:-0}_${RANDOM}_$RANDOM"
		createdb "$db" || return 1
		# The address names the server and the role itself: some tests
		# run daicho with an emptied environment.
		printf 'postgresql:///%s?host=%s&port=%s&user=%s\n' "$db" "$PGHOST" "${PGPORT:-5432}" "${PGUSER:-postgres}"
		;;
	*)
		echo "DAICHO_TEST_BACKEND=$DAICHO_TEST_BACKEND: sqlite or postgresql" >&2
		return 1
		;;
	esac
}

# ledger_is_postgresql_address ADDRESS: ADDRESS names a PostgreSQL ledger.
ledger_is_postgresql_address() {
	case "$1" in
	postgresql://* | postgres://* | service=*) return 0 ;;
	*) return 1 ;;
	esac
}

# ledger_sql LEDGER QUERY: run QUERY on LEDGER (a file or a PostgreSQL
# address), rows as "a|b" lines, NULL as nothing, as sqlite3 prints them.
# (PostgreSQL prints booleans as t/f; the schema has no boolean column that
# a test reads.) With several statements, sqlite3 prints every result and
# psql the last one only: give one statement when its output matters.
ledger_sql() {
	if ledger_is_postgresql_address "$1"; then
		psql -X -q -At -F '|' -v ON_ERROR_STOP=1 "$1" -c "$2"
	else
		sqlite3 "$1" "$2"
	fi
}

# ledger_dump LEDGER TABLE...: the rows of TABLE... in a stable order, to
# compare the ledger before and after a command. Read-only: on SQLite it
# leaves the WAL as it found it (a last read-write connection to close
# checkpoints the WAL and deletes it and its index).
ledger_dump() {
	local ledger="$1" table
	shift
	if ledger_is_postgresql_address "$ledger"; then
		local -a copies=()
		for table in "$@"; do
			copies+=(-c "COPY (SELECT '$table', * FROM $table ORDER BY $table::text) TO STDOUT")
		done
		psql -X -q -v ON_ERROR_STOP=1 "$ledger" \
			-c 'SET default_transaction_read_only = on' "${copies[@]}"
	else
		sqlite3 -readonly "$ledger" ".dump $*"
	fi
}

# json_field FIELD [COLUMN]: an SQL expression for the member FIELD of the
# JSON object in COLUMN (default detail) as text, the same on both back
# ends: a JSON null or a missing member as NULL, true and false as 1 and 0
# (SQLite's json_extract), a number as its digits. Compare it with text
# ('1'), or CAST it AS bigint.
json_field() {
	local column="${2:-detail}"
	if backend_is_postgresql; then
		printf "(CASE json_typeof(CAST(%s AS json) -> '%s') WHEN 'boolean' THEN CAST(CAST(CAST(%s AS json) ->> '%s' AS boolean) AS integer)::text ELSE CAST(%s AS json) ->> '%s' END)" \
			"$column" "$1" "$column" "$1" "$column" "$1"
	else
		printf "CAST(json_extract(%s, '\$.%s') AS TEXT)" "$column" "$1"
	fi
}

# joined SEPARATOR: the lines of stdin joined with SEPARATOR into one line
# (what SQLite's group_concat gives; it has no portable spelling).
joined() {
	awk -v sep="$1" 'NR > 1 { printf "%s", sep } { printf "%s", $0 } END { print "" }'
}

# sql_joined SEPARATOR QUERY: the rows of QUERY (through the caller's sql)
# joined with SEPARATOR, in QUERY's order.
sql_joined() {
	local rows
	rows="$(sql "$2")" || return
	printf '%s\n' "$rows" | joined "$1"
}

# sql_text EXPR: an SQL expression for the bytes of EXPR (a blob: a save's
# result, a check's output) read as UTF-8 text; PostgreSQL's CAST of bytea
# AS text gives their hex instead.
sql_text() {
	if backend_is_postgresql; then
		printf "convert_from(%s, 'UTF8')" "$1"
	else
		printf 'CAST(%s AS TEXT)' "$1"
	fi
}

# sql_newline: an SQL expression for a newline (char(10) or chr(10)).
sql_newline() {
	if backend_is_postgresql; then
		printf 'chr(10)'
	else
		printf 'char(10)'
	fi
}

# sql_bytes_equal_file EXPR FILE: an SQL condition, true when the blob EXPR
# holds exactly FILE's bytes (sqlite3's readfile(); on PostgreSQL, whose
# server cannot read the test's files, their SHA-256).
sql_bytes_equal_file() {
	if backend_is_postgresql; then
		printf "sha256(%s) = '\\\\x%s'::bytea" "$1" "$(sha256sum <"$2" | cut -d ' ' -f 1)"
	else
		printf "%s = readfile('%s')" "$1" "$2"
	fi
}

# sql_blob EXPR: an SQL expression for the UTF-8 bytes of the text EXPR,
# as a blob (bytea), to write a column that holds bytes.
sql_blob() {
	if backend_is_postgresql; then
		printf "convert_to(%s, 'UTF8')" "$1"
	else
		printf 'CAST(%s AS BLOB)' "$1"
	fi
}

# private_pool_dir DIR: point XDG_RUNTIME_DIR at DIR (made, mode 0700), so
# that the pools a test starts (daicho pool start) are its own and meet
# no other test's. A socket's path has at most 107 bytes: when DIR is too
# deep for one, a new directory under /tmp instead (in
# PRIVATE_POOL_TMP: remove it with release_pool_dir).
private_pool_dir() {
	XDG_RUNTIME_DIR=$1
	PRIVATE_POOL_TMP=
	if [ $((${#XDG_RUNTIME_DIR} + 33)) -gt 100 ]; then
		XDG_RUNTIME_DIR=$(mktemp -d /tmp/daicho-pool-test.XXXXXX)
		PRIVATE_POOL_TMP=$XDG_RUNTIME_DIR
	fi
	mkdir -p "$XDG_RUNTIME_DIR"
	chmod 700 "$XDG_RUNTIME_DIR"
	export XDG_RUNTIME_DIR
}

# release_pool_dir: remove the directory private_pool_dir made under /tmp.
release_pool_dir() {
	if [ -n "${PRIVATE_POOL_TMP:-}" ]; then
		rm -rf "$PRIVATE_POOL_TMP"
	fi
}

# person CMD...: CMD as a person types it in their own terminal, for what
# only a person may do ('daicho help person'): its stdin is a
# pseudo-terminal (util-linux script) that is its session's controlling
# terminal. Its stdout and stderr stay apart and go to person's own, and its
# status is person's, so that it stands where CMD would:
# ok person daicho config protect none.
person() {
	local cmd dir rc=0
	dir="$(mktemp -d "${TMPDIR:-/tmp}/person.XXXXXX")"
	printf -v cmd '%q ' "$@"
	printf -v cmd '%s>%q 2>%q' "$cmd" "$dir/out" "$dir/err"
	SHELL=/bin/bash script -qec "$cmd" /dev/null </dev/null >/dev/null || rc=$?
	cat "$dir/out"
	cat "$dir/err" >&2
	rm -rf "$dir"
	return "$rc"
}

# on_pty CMD...: run CMD on a pseudo-terminal (util-linux script), as a
# person typing it would. Sets status (CMD's) and output (what the terminal
# showed, stdout and stderr together, carriage returns dropped).
on_pty() {
	local cmd
	printf -v cmd '%q ' "$@"
	status=0
	output="$(script -qec "$cmd" /dev/null </dev/null)" || status=$?
	output="${output//$'\r'/}"
}
