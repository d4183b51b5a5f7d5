#!/usr/bin/env bats
# daicho export and daicho import: the whole ledger as JSON lines, and back
# into a new ledger.

load helpers

# NEW: a second, empty ledger of the suite's back end, to import into.
setup() {
	common_setup
	NEW="$(new_ledger_address "$TEST_ROOT/new.db")" || fail "no second ledger"
}

# every_kind: fill the ledger with at least one row of every table (agents,
# tasks with a parent, edges, labels, touches, protects, checks, a binary
# save, a verdict and its check runs, a wait and its item, a message, a
# reservation, a gate, approvals pending and denied, a setting, landing
# paused, events),
# and text that is not UTF-8.
every_kind() {
	local batch="$TEST_ROOT/batch.jsonl"
	daicho add first --done-when 'cmd:true' --done-when saved --protect 'x/**' \
		--label l1 --touches 'src/**' --priority 2 >/dev/null
	printf '{"key":"p","title":"parent"}\n{"key":"c","title":"child","parent":"p","after":["p"]}\n' >"$batch"
	daicho add --batch "$batch" >/dev/null
	printf '\xff\xfe\x00body\n' >"$TEST_ROOT/body.bin"
	daicho add 'binary body' --body-file "$TEST_ROOT/body.bin" >/dev/null
	[ "$(daicho claim --next --as w1)" = 1 ]
	printf 'result\x00\xff' | daicho save 1 -f - --as w1 --tokens-in 3 --tokens-out 4 --cost 0.1
	daicho report 1 --as w1
	daicho sweep >/dev/null
	daicho wait --for 3 --owner w1 --as w2 >/dev/null
	daicho send w1 'hello, w1' --as w2 >/dev/null
	daicho reserve 'docs/**' --as w2 >/dev/null
	daicho gate add 'deploy *' --approval >/dev/null
	daicho gate exec --as w2 -- deploy prod 2>/dev/null || true
	daicho gate exec --as w1 -- deploy staging 2>/dev/null || true
	on_pty daicho deny 2 --reason 'not today'
	[ "$status" -eq 0 ] || fail "deny: $output"
	person daicho config lease 20m
	person daicho land --pause >/dev/null # the landing lock's row
	# A check's result kept for a tree (verification keeps them only in
	# git, and this ledger is not in one).
	sql "INSERT INTO baselines (tree, key, passed, at_ms) VALUES ('$(printf '%040d' 7)', 'cmd:true', 1, 1)"
	# A title that is not UTF-8 (daicho itself keeps such bytes as given
	# in SQLite; PostgreSQL's text holds only valid UTF-8: every_kind utf8
	# leaves it out, for a ledger bound for PostgreSQL).
	[ "${1:-}" = utf8 ] || backend_is_postgresql ||
		sql "UPDATE tasks SET title = CAST(x'626164ff' AS TEXT) WHERE id = 4"
}

# schema_tables: the ledger's tables, sorted, one a line (on PostgreSQL
# without daicho's own bookkeeping, daicho_*: SQLite keeps that in PRAGMAs).
schema_tables() {
	if backend_is_postgresql; then
		sql "SELECT table_name FROM information_schema.tables
			WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
			AND table_name NOT LIKE 'daicho\_%' ORDER BY table_name COLLATE \"C\""
	else
		sql "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name"
	fi
}

@test "round trip: a ledger with every kind of record, exported, imported into a new ledger and exported again, is the same" {
	every_kind
	ok daicho export
	printf '%s\n' "$output" >"$TEST_ROOT/a.jsonl"
	# Every table of the schema has rows in the export.
	diff <(schema_tables) <(tail -n +2 "$TEST_ROOT/a.jsonl" | jq -r .table | sort -u) ||
		fail "the export does not cover every table of the schema"

	ok daicho --ledger "$NEW" init
	ok person daicho --ledger "$NEW" import "$TEST_ROOT/a.jsonl"
	[[ "$output" == "Imported "*" rows into $NEW (agents 3, tasks 4, "* ]] || fail "$output"
	ok daicho --ledger "$NEW" export
	printf '%s\n' "$output" >"$TEST_ROOT/b.jsonl"
	cmp "$TEST_ROOT/a.jsonl" "$TEST_ROOT/b.jsonl" ||
		fail "exports differ: $(diff "$TEST_ROOT/a.jsonl" "$TEST_ROOT/b.jsonl" | head)"
	# The tables themselves, byte for byte.
	[ "$(ledger_data)" = "$(ledger_data "$NEW")" ] || fail "the ledgers differ"
	[ "$(ledger_dump "$DAICHO_LEDGER" agents)" = "$(ledger_dump "$NEW" agents)" ] ||
		fail "the agents differ"
	# Bytes that are not UTF-8 went through base64 and came back exactly.
	cmp <(daicho --ledger "$NEW" prompt 4) "$TEST_ROOT/body.bin"
	grep -q '"base64"' "$TEST_ROOT/a.jsonl"
	# The imported ledger works: new ids follow the imported ones.
	ok daicho --ledger "$NEW" add next
	[ "$output" = 5 ]
}

@test "round trip through PostgreSQL: SQLite, exported, imported into PostgreSQL, exported, imported into SQLite: the same" {
	[ "${DAICHO_TEST_BACKEND:-sqlite}" = postgresql ] ||
		skip "needs PostgreSQL: runs in the PostgreSQL pass"
	local pg=$DAICHO_LEDGER
	export DAICHO_LEDGER="$TEST_ROOT/first.db"
	daicho init >/dev/null
	every_kind utf8
	ok daicho export
	printf '%s\n' "$output" >"$TEST_ROOT/a.jsonl"
	ok person daicho --ledger "$pg" import "$TEST_ROOT/a.jsonl"
	ok daicho --ledger "$pg" export
	printf '%s\n' "$output" >"$TEST_ROOT/b.jsonl"
	cmp "$TEST_ROOT/a.jsonl" "$TEST_ROOT/b.jsonl" ||
		fail "SQLite and PostgreSQL exports differ: $(diff "$TEST_ROOT/a.jsonl" "$TEST_ROOT/b.jsonl" | head)"
	ok daicho --ledger "$TEST_ROOT/last.db" init
	ok person daicho --ledger "$TEST_ROOT/last.db" import "$TEST_ROOT/b.jsonl"
	ok daicho --ledger "$TEST_ROOT/last.db" export
	printf '%s\n' "$output" >"$TEST_ROOT/c.jsonl"
	cmp "$TEST_ROOT/a.jsonl" "$TEST_ROOT/c.jsonl" ||
		fail "exports differ after the round trip: $(diff "$TEST_ROOT/a.jsonl" "$TEST_ROOT/c.jsonl" | head)"
	cmp <(daicho --ledger "$pg" prompt 4) "$TEST_ROOT/body.bin"
	# New ids on PostgreSQL follow the imported ones.
	ok daicho --ledger "$pg" add next
	[ "$output" = 5 ]
}

@test "export: a header line, then one JSON record a line, tables in an order that imports, ids kept" {
	daicho add one --label a >/dev/null
	daicho add two --after 1 >/dev/null
	ok daicho export
	[ "${lines[0]}" = '{"daicho":"export","format":1,"schema":14}' ]
	run jq -c -r '.table // "header"' <<<"$output"
	assert_output "$(printf '%s\n' header agents tasks tasks deps labels events events events)"
	run jq -c 'select(.table == "tasks") | .row | [.id, .title, .unmet_deps]' <<<"$(daicho export)"
	assert_output "$(printf '%s\n' '[1,"one",0]' '[2,"two",1]')"
}

@test "import FILE at a terminal; --json says how many rows each table got; import - is refused, stdin being the person's terminal" {
	daicho add one >/dev/null
	daicho export >"$TEST_ROOT/e.jsonl"
	daicho --ledger "$NEW" init >/dev/null
	daicho --ledger "$NEW" export >"$TEST_ROOT/new.before"
	# Standard input redirected is not a person's terminal.
	refused 6 daicho --ledger "$NEW" import - <"$TEST_ROOT/e.jsonl"
	stderr_contains "stdin is not a terminal"
	[ "$(daicho --ledger "$NEW" export)" = "$(cat "$TEST_ROOT/new.before")" ] ||
		fail "the refused import changed the ledger"
	ok person daicho --ledger "$NEW" import "$TEST_ROOT/e.jsonl" --json
	[ "$output" = '{"ledger":"'"$NEW"'","rows":4,"tables":{"agents":1,"tasks":1,"events":2}}' ] || fail "$output"
	# A second import of the same file finds the ledger taken.
	refused 4 person daicho --ledger "$NEW" import "$TEST_ROOT/e.jsonl"
}

@test "import into a ledger that holds anything: refused, exit 4, nothing changed" {
	daicho add one >/dev/null
	daicho export >"$TEST_ROOT/e.jsonl"
	snapshot_ledger
	refused 4 person daicho import "$TEST_ROOT/e.jsonl"
	stderr_contains "is not empty (it has agents;"
	assert_ledger_unchanged
	# A ledger where only a setting was made is not empty either.
	daicho --ledger "$NEW" init >/dev/null
	person daicho --ledger "$NEW" config lease 5m
	DAICHO_LEDGER="$NEW" sql "UPDATE settings SET set_by = NULL; DELETE FROM events; DELETE FROM agents"
	refused 4 person daicho --ledger "$NEW" import "$TEST_ROOT/e.jsonl"
	stderr_contains "(it has settings;"
}

# bad_import LINE_NO TEXT FILE: importing FILE into a new ledger is refused
# with exit 2 naming line LINE_NO and saying TEXT; the ledger stays empty.
# The test's first call makes the ledger; since a refused import leaves it
# empty (checked each time), the next calls import into it again (a new
# PostgreSQL schema costs a second each).
bad_import() {
	if [ -z "${BAD_IMPORT_LEDGER:-}" ]; then
		rm -f "$TEST_ROOT"/new.db*
		BAD_IMPORT_LEDGER="$(new_ledger_address "$TEST_ROOT/new.db")" || fail "no new ledger"
		daicho --ledger "$BAD_IMPORT_LEDGER" init >/dev/null
	fi
	NEW=$BAD_IMPORT_LEDGER
	refused 2 person daicho --ledger "$NEW" import "$3"
	stderr_contains "line $1 of the import: $2"
	stderr_contains "nothing was imported"
	[ "$(daicho --ledger "$NEW" export | wc -l)" = 1 ] || fail "the ledger changed"
}

@test "import of a bad line: refused, exit 2, naming the line; nothing imported" {
	daicho add one >/dev/null
	daicho add two >/dev/null
	daicho export >"$TEST_ROOT/good.jsonl"
	f="$TEST_ROOT/bad.jsonl"

	{ head -n 3 "$TEST_ROOT/good.jsonl"; echo '{"table":"tasks",'; } >"$f"
	bad_import 4 "not JSON" "$f"
	{ head -n 3 "$TEST_ROOT/good.jsonl"; echo '{"table":"nope","row":{"id":1}}'; } >"$f"
	bad_import 4 "no table 'nope' in a ledger" "$f"
	{ head -n 2 "$TEST_ROOT/good.jsonl"; echo '{"table":"tasks","row":{"id":9,"titel":"x"}}'; } >"$f"
	bad_import 3 "table tasks has no column 'titel'" "$f"
	{ head -n 2 "$TEST_ROOT/good.jsonl"; echo '{"table":"tasks","row":{"id":"9","title":"x"}}'; } >"$f"
	bad_import 3 "tasks.id must be an integer or null" "$f"
	{ head -n 3 "$TEST_ROOT/good.jsonl"; sed -n 3p "$TEST_ROOT/good.jsonl"; } >"$f"
	bad_import 4 "the ledger refuses this tasks row: its id (or another value that must be unique) is taken" "$f"
	# A row whose reference is not there (tasks before their owner agent).
	sed -n '1p;3p' "$TEST_ROOT/good.jsonl" | sed 's/"owner":null/"owner":7/' >"$f"
	bad_import 2 "the ledger refuses this tasks row: it refers to a row that is not there (yet)" "$f"
	{ echo '{"table":"agents","row":{}}'; } >"$f"
	bad_import 1 "not the header of a daicho export" "$f"
	{ echo '{"daicho":"export","format":1,"schema":99}'; } >"$f"
	bad_import 1 "an export from a newer daicho (format 1, schema 99;" "$f"
	: >"$f"
	bad_import 1 "empty: an export starts with its header line" "$f"
	{ cat "$TEST_ROOT/good.jsonl"; echo '[]'; } >"$f"
	bad_import 8 'not a record {"table": NAME, "row": {...}}' "$f"
	# A dashboard login link planted in an export (its hash, far ahead).
	{ sed -n 1p "$TEST_ROOT/good.jsonl"
	  echo '{"table":"settings","row":{"key":"web-login","value":"'"$(printf %064d 0)"' 99999999999999","set_ms":0,"set_by":null}}'; } >"$f"
	bad_import 2 "setting 'web-login' is the running dashboard's, never part of an export" "$f"
}

@test "import is a human's: refused for an agent, exit 6, nothing changed" {
	daicho export >"$TEST_ROOT/e.jsonl"
	rm -f "$DAICHO_LEDGER"*
	daicho init >/dev/null
	refused 6 daicho import "$TEST_ROOT/e.jsonl" --as w1
	stderr_contains "only a human at a terminal may import a ledger"
	DAICHO_AGENT=w2 refused 6 daicho import "$TEST_ROOT/e.jsonl"
	[ "$(daicho export | wc -l)" = 1 ] || fail "the ledger changed"
	# An agent may export: it reads only what it can read anyway.
	ok daicho export --as w1
}

@test "import of a missing file: exit 3; export and import say where a backup stands next to SQLite's .backup" {
	refused 3 person daicho import "$TEST_ROOT/nope.jsonl"
	ok daicho export --help
	[[ "$output" == *'.backup'* ]] || fail "$output"
	ok daicho import --help
	[[ "$output" == *'Only a human imports'* ]] || fail "$output"
}

# mutant: import keeping the file's unmet_deps (or has_touches): a task made
# claimable before what it comes after is done.
@test "import derives unmet dependencies and touches again: an edited export cannot make a task claimable early" {
	daicho add first >/dev/null
	daicho add second --after 1 --touches 'src/**' >/dev/null
	daicho export >"$TEST_ROOT/a.jsonl"
	# The file lies: #2 has no unmet dependency and no touches.
	sed 's/"unmet_deps":1/"unmet_deps":0/; s/"has_touches":1/"has_touches":0/' "$TEST_ROOT/a.jsonl" >"$TEST_ROOT/lie.jsonl"
	grep -q '"unmet_deps":0' "$TEST_ROOT/lie.jsonl"
	daicho --ledger "$NEW" init >/dev/null
	ok person daicho --ledger "$NEW" import "$TEST_ROOT/lie.jsonl"
	[ "$(DAICHO_LEDGER="$NEW" daicho show --json 2 | jq -r .unmet_after)" = 1 ] ||
		fail "$(DAICHO_LEDGER="$NEW" daicho show --json 2)"
	capture daicho --ledger "$NEW" claim 2 --as w1
	assert_refused 4
	run daicho --ledger "$NEW" claim --next --as w1
	[ "$output" = 1 ] || fail "claim --next took $output"
	run --separate-stderr daicho --ledger "$NEW" doctor --json
	[ "$(jq -r '.[] | select(.check == "derived fields") | .ok' <<<"$output")" = true ]
}

@test "import refuses a title over 1000 bytes or with a line break, and a NUL byte in text; nothing imported" {
	daicho add one >/dev/null
	daicho export >"$TEST_ROOT/good.jsonl"
	f="$TEST_ROOT/bad.jsonl"
	long="$(printf 'T%.0s' $(seq 1001))"
	sed "3s/\"title\":\"one\"/\"title\":\"$long\"/" "$TEST_ROOT/good.jsonl" >"$f"
	bad_import 3 "tasks.title must be one line of 1 to 1000 bytes (this one: 1001)" "$f"
	sed '3s/"title":"one"/"title":"one\\ntwo"/' "$TEST_ROOT/good.jsonl" >"$f"
	bad_import 3 "tasks.title must be one line" "$f"
	sed '3s/"title":"one"/"title":"o\\u0000ne"/' "$TEST_ROOT/good.jsonl" >"$f"
	bad_import 3 "tasks.title holds a NUL byte (text holds none)" "$f"
}

# mutant: doctor not comparing the derived fields with their rows.
@test "doctor names the tasks whose unmet dependencies or touches disagree with the ledger's rows (a write behind daicho's back)" {
	backend_is_postgresql && skip "writes the SQLite file directly, as a process behind daicho's back would"
	daicho add first >/dev/null
	daicho add second --after 1 >/dev/null
	run --separate-stderr daicho doctor --json
	[ "$(jq -r '.[] | select(.check == "derived fields") | .ok' <<<"$output")" = true ]
	sql "UPDATE tasks SET unmet_deps = 0 WHERE id = 2"
	run --separate-stderr daicho doctor --json
	[ "$(jq -r '.[] | select(.check == "derived fields") | .ok' <<<"$output")" = false ]
	[[ "$(jq -r '.[] | select(.check == "derived fields") | .detail' <<<"$output")" == "1 task whose unmet dependencies or touches disagree with the ledger's rows (#2)"* ]] ||
		fail "$output"
}
