#!/usr/bin/env bats
# daicho init and where the ledger is found.

load helpers

# A failed read-only test must not leave an immutable file behind (bats could
# not remove its temporary directory).
teardown() {
	[ -z "${IMMUTABLE:-}" ] || chattr -i "$IMMUTABLE" 2>/dev/null || true
	if [ -n "${READER_DIR:-}" ]; then
		chmod -R u+w "$READER_DIR" 2>/dev/null || true
		rm -rf "$READER_DIR"
	fi
}

@test "init creates a WAL-mode SQLite ledger at \$DAICHO_LEDGER" {
	sqlite_only "a WAL-mode SQLite file and its PRAGMAs"
	export DAICHO_LEDGER="$TEST_ROOT/fresh.db"
	ok daicho init
	[ -s "$DAICHO_LEDGER" ]
	assert_output --partial "$DAICHO_LEDGER"
	capture sqlite3 "$DAICHO_LEDGER" 'PRAGMA journal_mode'
	assert_output wal
	capture sqlite3 "$DAICHO_LEDGER" 'PRAGMA user_version'
	[ "$output" -gt 0 ]
	capture sqlite3 "$DAICHO_LEDGER" 'PRAGMA integrity_check'
	assert_output ok
}

@test "init --json reports the path and whether it was created" {
	sqlite_only "reports the SQLite file it creates at a path"
	export DAICHO_LEDGER="$TEST_ROOT/fresh.db"
	ok daicho init --json
	[ "$(jq -r .ledger <<<"$output")" = "$DAICHO_LEDGER" ]
	[ "$(jq -r .created <<<"$output")" = true ]
	ok daicho init --json
	[ "$(jq -r .created <<<"$output")" = false ]
}

@test "init twice succeeds and keeps the tasks" {
	ok daicho add "keep me"
	assert_output 1
	snapshot_ledger
	ok daicho init
	assert_ledger_unchanged
	ok daicho show --json 1
	[ "$(jq -r .title <<<"$output")" = "keep me" ]
}

@test "--ledger PATH wins over \$DAICHO_LEDGER" {
	ok daicho --ledger "$TEST_ROOT/other.db" init
	[ -s "$TEST_ROOT/other.db" ]
	ok daicho --ledger "$TEST_ROOT/other.db" add "in other"
	ok daicho ls --json
	[ "$(jq length <<<"$output")" = 0 ]
	ok daicho ls --json --ledger "$TEST_ROOT/other.db"
	[ "$(jq -r '.[0].title' <<<"$output")" = "in other" ]
}

@test "\$DAICHO_LEDGER wins over the git repository's ledger" {
	new_git_repo "$TEST_ROOT/repo"
	cd "$TEST_ROOT/repo"
	ok daicho add "env ledger"
	[ ! -e "$TEST_ROOT/repo/.git/daicho" ]
	[ "$(sql 'SELECT title FROM tasks')" = "env ledger" ]
}

@test "in a git repository the ledger is <git common dir>/daicho/ledger.db" {
	sqlite_only "the ledger file's default place in <git common dir>/daicho"
	unset DAICHO_LEDGER
	new_git_repo "$TEST_ROOT/repo"
	mkdir -p "$TEST_ROOT/repo/sub/dir"
	cd "$TEST_ROOT/repo/sub/dir"
	ok daicho init
	[ -s "$TEST_ROOT/repo/.git/daicho/ledger.db" ]
	[ ! -e "$TEST_ROOT/repo/sub/dir/.daicho" ]
	ok daicho add "in repo"
	[ "$(sqlite3 "$TEST_ROOT/repo/.git/daicho/ledger.db" 'SELECT title FROM tasks')" = "in repo" ]
}

@test "two git worktrees of one repository share one ledger" {
	sqlite_only "the ledger file's default place in <git common dir>/daicho"
	unset DAICHO_LEDGER
	new_git_repo "$TEST_ROOT/repo"
	git -C "$TEST_ROOT/repo" worktree add -q "$TEST_ROOT/wt2" -b side
	git -C "$TEST_ROOT/repo" worktree add -q "$TEST_ROOT/wt3" -b third
	cd "$TEST_ROOT/repo"
	ok daicho init
	cd "$TEST_ROOT/wt2"
	ok daicho init
	assert_output --partial "$TEST_ROOT/repo/.git/daicho/ledger.db"
	ok daicho add "added in wt2"
	id="$output"
	[ ! -e "$TEST_ROOT/wt2/.daicho" ]

	cd "$TEST_ROOT/repo"
	ok daicho show --json "$id"
	[ "$(jq -r .title <<<"$output")" = "added in wt2" ]

	cd "$TEST_ROOT/wt3"
	ok daicho add "added in wt3"
	id3="$output"
	cd "$TEST_ROOT/wt2"
	ok daicho ls --json
	[ "$(jq -r '[.[].title] | join(",")' <<<"$output")" = "added in wt2,added in wt3" ]

	# A claim taken in one worktree is seen from the other.
	cd "$TEST_ROOT/wt3"
	ok daicho claim "$id3" --as w3
	cd "$TEST_ROOT/wt2"
	refused 4 daicho claim "$id3" --as w2
	stderr_contains w3
}

@test "outside git, init creates .daicho/ledger.db in the current directory" {
	sqlite_only "the ledger file's default place in .daicho"
	unset DAICHO_LEDGER
	mkdir -p "$TEST_ROOT/proj"
	cd "$TEST_ROOT/proj"
	ok daicho init
	[ -s "$TEST_ROOT/proj/.daicho/ledger.db" ]
}

@test ".daicho/ledger.db is searched upward from a subdirectory" {
	sqlite_only "the ledger file's default place in .daicho"
	unset DAICHO_LEDGER
	mkdir -p "$TEST_ROOT/proj/a/b/c"
	cd "$TEST_ROOT/proj"
	ok daicho init
	cd "$TEST_ROOT/proj/a/b/c"
	ok daicho add "from deep below"
	[ ! -e "$TEST_ROOT/proj/a/b/c/.daicho" ]
	[ "$(sqlite3 "$TEST_ROOT/proj/.daicho/ledger.db" 'SELECT title FROM tasks')" = "from deep below" ]
	cd "$TEST_ROOT/proj/a"
	ok daicho ls --json
	[ "$(jq -r '.[0].title' <<<"$output")" = "from deep below" ]
}

@test "-C DIR finds the ledger from DIR" {
	sqlite_only "the ledger file's default place in .daicho"
	unset DAICHO_LEDGER
	mkdir -p "$TEST_ROOT/proj/sub" "$TEST_ROOT/elsewhere"
	ok daicho -C "$TEST_ROOT/proj" init
	[ -s "$TEST_ROOT/proj/.daicho/ledger.db" ]
	cd "$TEST_ROOT/elsewhere"
	ok daicho -C "$TEST_ROOT/proj/sub" add "via -C"
	[ ! -e "$TEST_ROOT/elsewhere/.daicho" ]
	[ "$(sqlite3 "$TEST_ROOT/proj/.daicho/ledger.db" 'SELECT title FROM tasks')" = "via -C" ]
}

@test "a command that needs a ledger and finds none says how to create one (exit 1)" {
	unset DAICHO_LEDGER
	# On PostgreSQL the set-up's init remembered its address here, above.
	rm -f "$TEST_ROOT/.daicho/ledger.address"
	mkdir -p "$TEST_ROOT/empty"
	cd "$TEST_ROOT/empty"
	for cmd in "ls" "add x" "claim --next" "show 1" "events"; do
		# shellcheck disable=SC2086
		refused 1 daicho $cmd
		stderr_contains "daicho init"
	done
	[ ! -e "$TEST_ROOT/empty/.daicho" ]
}

@test "a missing --ledger or \$DAICHO_LEDGER file is not created by other commands" {
	sqlite_only "a ledger file that does not exist"
	refused 1 daicho --ledger "$TEST_ROOT/none.db" add x
	stderr_contains "daicho init"
	[ ! -e "$TEST_ROOT/none.db" ]
	DAICHO_LEDGER="$TEST_ROOT/none2.db" refused 1 daicho ls
	stderr_contains "daicho init"
	[ ! -e "$TEST_ROOT/none2.db" ]
}

@test "a file that is not SQLite: exit 1, clear message, file unchanged" {
	sqlite_only "a file at the ledger path that is not SQLite"
	printf 'these are my notes\nnot a database\n' >"$TEST_ROOT/notes.txt"
	sum="$(sha256sum <"$TEST_ROOT/notes.txt")"
	export DAICHO_LEDGER="$TEST_ROOT/notes.txt"
	for cmd in "ls" "add x" "init" "claim --next --as w1" "events"; do
		# shellcheck disable=SC2086
		refused 1 daicho $cmd
		stderr_contains "not a daicho ledger"
		[ "$(sha256sum <"$TEST_ROOT/notes.txt")" = "$sum" ]
	done
	[ ! -e "$TEST_ROOT/notes.txt-wal" ]
	[ ! -e "$TEST_ROOT/notes.txt-journal" ]
}

@test "a SQLite file that is not a daicho ledger is refused and left unchanged" {
	sqlite_only "a SQLite file that is not a daicho ledger"
	sqlite3 "$TEST_ROOT/other.db" 'CREATE TABLE mine (x); INSERT INTO mine VALUES (42);'
	sum="$(sha256sum <"$TEST_ROOT/other.db")"
	export DAICHO_LEDGER="$TEST_ROOT/other.db"
	refused 1 daicho add x
	stderr_contains "not a daicho ledger"
	[ "$(sha256sum <"$TEST_ROOT/other.db")" = "$sum" ]
	[ "$(sqlite3 "$TEST_ROOT/other.db" '.tables')" = mine ]
}

# damage_page TABLE N: the number of the Nth leaf page of TABLE, after the
# WAL is checkpointed into the ledger file.
damage_page() {
	sql 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
	sql "SELECT pageno FROM dbstat WHERE name = '$1' AND pagetype = 'leaf'
		ORDER BY pageno LIMIT 1 OFFSET $2"
}

# damage PAGE: overwrite the b-tree header of page PAGE of the ledger, which
# SQLite notices only when it reads that page.
damage() {
	local size
	size="$(sql 'PRAGMA page_size')"
	head -c 16 /dev/zero | tr '\0' '\377' |
		dd of="$DAICHO_LEDGER" bs=1 seek=$((($1 - 1) * size)) conv=notrunc 2>/dev/null
}

@test "a damaged ledger: ls meets it, then every command stops with one line saying how to recover; doctor reports it" {
	sqlite_only "damaged pages of the SQLite file (dbstat, PRAGMA integrity_check)"
	for i in $(seq 1 200); do
		printf '{"title":"task %d %0200d"}\n' "$i" 0
	done | daicho add --batch - >/dev/null
	page="$(damage_page tasks 3)"
	[ -n "$page" ]
	cp "$DAICHO_LEDGER" "$TEST_ROOT/backup.db"
	damage "$page"
	sum="$(sha256sum <"$DAICHO_LEDGER")"
	# ls meets the damage after printing the rows before it.
	capture daicho ls
	[ "$status" -eq 1 ] || fail "ls exited $status"
	assert_one_error_line
	stderr_contains "the ledger at $DAICHO_LEDGER is damaged (database disk image is malformed; "
	# Every command from now on, even one that never reads the damaged page.
	for cmd in "ls" "add x" "show 1" "status" "claim --next --as w1" "init"; do
		# shellcheck disable=SC2086
		refused 1 daicho $cmd
		stderr_contains "the ledger at $DAICHO_LEDGER is damaged (database disk image is malformed; "
		stderr_contains "run 'daicho doctor', then restore it from a backup"
	done
	[ "$(sha256sum <"$DAICHO_LEDGER")" = "$sum" ]
	capture daicho doctor
	[ "$status" -eq 1 ] || fail "doctor exited $status"
	assert_line --regexp "^FAIL +ledger integrity +$DAICHO_LEDGER is damaged: .*Page $page"
	assert_line --partial "fix: stop every agent and daicho process; restore"
	capture daicho doctor --json
	[ "$status" -eq 1 ]
	# One failure for one damage: the ledger does not also fail to open.
	jq -e '(map(select(.check == "ledger")) | length == 0) and
		(.[] | select(.check == "ledger integrity") | .ok == false and
		(.detail | test("Page '"$page"'")) and (.fix | test("sqlite3 .* .dump")))' \
		<<<"$output" >/dev/null || fail "$output"
	# Restored from the backup: doctor finds it whole, and commands work again.
	cp "$TEST_ROOT/backup.db" "$DAICHO_LEDGER"
	rm -f "$DAICHO_LEDGER-wal" "$DAICHO_LEDGER-shm"
	refused 1 daicho add x
	ok daicho doctor
	assert_line --regexp '^ok +ledger integrity +'
	assert_line --regexp '^ok +ledger +'
	ok daicho add x
	assert_output 201
}

@test "a damaged ledger: add stops when it meets the damage itself" {
	sqlite_only "damaged pages of the SQLite file (dbstat)"
	daicho add one >/dev/null
	daicho add two >/dev/null
	damage "$(damage_page tasks 0)"
	sum="$(sha256sum <"$DAICHO_LEDGER")"
	refused 1 daicho add three
	stderr_contains "is damaged (database disk image is malformed; "
	[ "$(sha256sum <"$DAICHO_LEDGER")" = "$sum" ]
	capture daicho doctor --json
	[ "$status" -eq 1 ]
	jq -e 'any(.[]; .check == "ledger integrity" and .ok == false)' <<<"$output" \
		>/dev/null || fail "$output"
}

# symlink_refused FILE: ls and add with a symbolic link at FILE (beside the
# ledger) to a file outside: both refused naming FILE, the target untouched.
symlink_refused() {
	printf 'not yours\n' >"$TEST_ROOT/target"
	ln -s "$TEST_ROOT/target" "$1"
	for cmd in "ls" "add x" "init"; do
		# shellcheck disable=SC2086
		refused 1 daicho $cmd
		stderr_contains "$1 is a symbolic link"
		[ "$(cat "$TEST_ROOT/target")" = "not yours" ] || fail "$cmd wrote through $1"
	done
	rm "$1"
}

@test "a symbolic link at <ledger>-lock, -wal, -shm or -journal: refused, naming it; its target untouched" {
	sqlite_only "symbolic links at the SQLite file's -lock, -wal, -shm, -journal"
	ok daicho add "before"
	sql 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
	snapshot_ledger
	mv "$DAICHO_LEDGER-lock" "$TEST_ROOT/lock.saved"
	symlink_refused "$DAICHO_LEDGER-lock"
	mv "$TEST_ROOT/lock.saved" "$DAICHO_LEDGER-lock"
	for suffix in -wal -shm -journal; do
		rm -f "$DAICHO_LEDGER$suffix"
		symlink_refused "$DAICHO_LEDGER$suffix"
	done
	assert_ledger_unchanged
	ok daicho ls
}

@test "the ledger itself a symbolic link: refused, naming it; the file it names untouched" {
	sqlite_only "the SQLite file a symbolic link"
	ok daicho add "before"
	sql 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
	mv "$DAICHO_LEDGER" "$TEST_ROOT/real.db"
	rm -f "$DAICHO_LEDGER-lock" "$DAICHO_LEDGER-wal" "$DAICHO_LEDGER-shm"
	sum="$(sha256sum <"$TEST_ROOT/real.db")"
	ln -s "$TEST_ROOT/real.db" "$DAICHO_LEDGER"
	for cmd in "ls" "add x" "init"; do
		# shellcheck disable=SC2086
		refused 1 daicho $cmd
		stderr_contains "$DAICHO_LEDGER is a symbolic link"
	done
	[ "$(sha256sum <"$TEST_ROOT/real.db")" = "$sum" ]
	[ ! -e "$TEST_ROOT/real.db-wal" ]
	[ ! -e "$DAICHO_LEDGER-lock" ]
	# The real file, named directly, is the ledger.
	DAICHO_LEDGER="$TEST_ROOT/real.db" ok daicho ls
	assert_output --partial before
}

@test "a ledger in a directory reached through a symbolic link works" {
	sqlite_only "the SQLite file reached through a symbolic link"
	mkdir "$TEST_ROOT/real"
	ln -s "$TEST_ROOT/real" "$TEST_ROOT/link"
	export DAICHO_LEDGER="$TEST_ROOT/link/ledger.db"
	ok daicho init
	ok daicho add "through a link"
	ok daicho ls
	assert_output --partial "through a link"
	[ -f "$TEST_ROOT/real/ledger.db" ] && [ -f "$TEST_ROOT/real/ledger.db-lock" ]
}

# Tests run as root, which ignores permission bits; an immutable file
# (chattr +i) is read-only even for root.
@test "a read-only ledger file: writes fail with one clear line, exit 1, ledger unchanged" {
	sqlite_only "an immutable SQLite file"
	ok daicho add "before"
	ok daicho claim 1 --as w1
	# Flush the WAL into the main file so the file alone holds the data.
	sql 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
	snapshot_ledger
	IMMUTABLE="$DAICHO_LEDGER"
	if ! chattr +i "$DAICHO_LEDGER" 2>/dev/null; then
		if [ "$(id -u)" = 0 ]; then
			skip "chattr +i unsupported here and root ignores chmod"
		fi
		chmod 444 "$DAICHO_LEDGER"
	fi
	sum="$(sha256sum <"$DAICHO_LEDGER")"
	capture daicho add "after"
	run_status=$status run_stderr=$stderr run_output=$output
	capture daicho report 1 --as w1
	report_status=$status report_stderr=$stderr report_output=$output
	now_sum="$(sha256sum <"$DAICHO_LEDGER")"
	chattr -i "$DAICHO_LEDGER" 2>/dev/null || chmod 644 "$DAICHO_LEDGER"

	status=$run_status stderr=$run_stderr output=$run_output
	assert_refused 1
	stderr_contains "read-only"
	status=$report_status stderr=$report_stderr output=$report_output
	assert_refused 1
	stderr_contains "read-only"
	[ "$now_sum" = "$sum" ]
	assert_ledger_unchanged
}

@test "a read-only ledger can still be read" {
	sqlite_only "an immutable SQLite file"
	ok daicho add "readable"
	sql 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
	IMMUTABLE="$DAICHO_LEDGER"
	chattr +i "$DAICHO_LEDGER" 2>/dev/null || skip "chattr +i unsupported here"
	capture daicho ls --json
	chattr -i "$DAICHO_LEDGER"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.[0].title' <<<"$output")" = readable ]
}

# reader_setup: a ledger in $READER_DIR (which another user can reach; the
# test's own directory may not be), with tasks, a claim, a saved result
# and an agent, and a copy of daicho there; sets READER to the command that
# runs a command as a user who may read the ledger but not write it:
# nobody, when the tests run as root (which ignores permissions), else the
# tests' own user once the files are read-only.
reader_setup() {
	if [ "$(id -u)" = 0 ]; then
		id nobody >/dev/null 2>&1 || skip "no user 'nobody' to read the ledger as"
		if command -v setpriv >/dev/null; then
			READER=(setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)"
				--clear-groups --)
		elif command -v runuser >/dev/null; then
			READER=(runuser -u nobody --)
		else
			skip "neither setpriv nor runuser: cannot run as a user without root's rights"
		fi
	else
		READER=()
	fi
	READER_DIR="$(mktemp -d /tmp/daicho-reader.XXXXXX)"
	chmod 755 "$READER_DIR"
	cp "$DAICHO_ROOT/daicho" "$READER_DIR/daicho"
	export DAICHO_LEDGER="$READER_DIR/ledger.db" HOME="$READER_DIR"
	export PATH="$READER_DIR:$PATH"
	daicho init >/dev/null
	daicho add "first" >/dev/null
	daicho add "second" --body "the prompt" >/dev/null
	daicho claim 1 --as w1 >/dev/null
	echo "the result" | daicho save 1 --as w1
	daicho send w1 "a note" >/dev/null
}

# reader_lock_down: the ledger, everything beside it and its directory
# read-only.
reader_lock_down() {
	chmod a-w "$READER_DIR"/ledger.db* "$READER_DIR"
}

# reader_can_read [TITLE]: every reading command works for the reader,
# and ls shows TITLE; writes fail with one line.
reader_can_read() {
	local cmd
	for cmd in "ls" "ls --json" "ls --as w1" "ls --as newcomer" "show 1" \
		"status" "handoff" "log 1" "events" "agents" "prompt 2" "result 1" \
		"graph" "reservations" "approvals" "gate ls" "usage" \
		"inbox --peek --as w1"; do
		# shellcheck disable=SC2086
		capture "${READER[@]}" daicho $cmd
		[ "$status" -eq 0 ] || fail "'daicho $cmd' as a reader: exit $status: $stderr"
		[ -z "$stderr" ] || fail "'daicho $cmd' as a reader: $stderr"
	done
	capture "${READER[@]}" daicho ls
	assert_output --partial "first"
	assert_output --partial "${1:-second}"
	capture "${READER[@]}" daicho prompt 2
	assert_output "the prompt"
	for cmd in "add x" "claim 2 --as w2" "report 1 --as w1" "inbox --as w1"; do
		# shellcheck disable=SC2086
		refused 1 "${READER[@]}" daicho $cmd
		stderr_contains "read-only"
	done
}

@test "a ledger the caller may only read (file and directory; no -wal or -shm): reading works, writing fails with one line" {
	sqlite_only "file permissions of the SQLite file and its directory"
	reader_setup
	snapshot_ledger
	# The last read-write connection to close removes the WAL and its index.
	sql 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
	[ ! -e "$DAICHO_LEDGER-wal" ]
	[ ! -e "$DAICHO_LEDGER-shm" ]
	reader_lock_down
	reader_can_read
	[ ! -e "$DAICHO_LEDGER-wal" ]
	[ ! -e "$DAICHO_LEDGER-shm" ]
	assert_ledger_unchanged
}

@test "a ledger the caller may only read, with -wal and -shm it cannot write: reading sees the WAL's commits" {
	sqlite_only "file permissions of the SQLite file, its -wal and -shm"
	reader_setup
	sql 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
	daicho add "in the wal only" >/dev/null
	snapshot_ledger
	[ -s "$DAICHO_LEDGER-wal" ]
	[ -e "$DAICHO_LEDGER-shm" ]
	reader_lock_down
	reader_can_read "in the wal only"
	assert_ledger_unchanged
	# A WAL without its index, which the reader cannot make: one clear line.
	chmod u+w "$READER_DIR"
	rm "$DAICHO_LEDGER-shm"
	chmod a-w "$READER_DIR"
	refused 1 "${READER[@]}" daicho ls
	stderr_contains "cannot read the ledger at $DAICHO_LEDGER (its -wal holds changes"
}
