#!/usr/bin/env bats
# make install and make uninstall: what goes where (daicho in bin, its
# helpers in libexec/daicho, where daicho finds them), only what was built,
# and uninstall takes back exactly that, with DESTDIR and PREFIX honoured.

load helpers

setup() {
	any_backend "it installs files, not a ledger"
	builds_in_tree
	common_setup
	[ -x "$DAICHO_ROOT/daicho-pg" ] && [ -x "$DAICHO_ROOT/daicho-serve" ] ||
		skip "needs the helpers built (make)"
	STAGE="$TEST_ROOT/stage"
}

# in_tree MAKE-ARGS...: make in the source tree, quietly (everything is
# built already: nothing is rebuilt).
in_tree() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$DAICHO_ROOT" --no-print-directory "$@"
}

# installed: every file under the stage, one a line, sorted.
installed() {
	(cd "$STAGE" && find . -type f -o -type l | sort)
}

# mutant: a helper installed in bin (the old layout), or uninstall missing
# one file: the list or the empty stage fails.
@test "make install puts daicho in bin and its helpers in libexec/daicho, where daicho finds them; uninstall removes exactly that" {
	# Helpers an earlier daicho installed in bin go: they would be stale.
	mkdir -p "$STAGE/opt/d/bin"
	printf '#!/bin/sh\necho old\n' >"$STAGE/opt/d/bin/daicho-pg"
	chmod +x "$STAGE/opt/d/bin/daicho-pg"
	in_tree install DESTDIR="$STAGE" PREFIX=/opt/d >/dev/null
	run installed
	[ "$output" = "./opt/d/bin/daicho
./opt/d/libexec/daicho/daicho-pg
./opt/d/libexec/daicho/daicho-serve
./opt/d/share/bash-completion/completions/daicho
./opt/d/share/fish/vendor_completions.d/daicho.fish
./opt/d/share/man/man1/daicho.1
./opt/d/share/zsh/vendor-completions/_daicho" ] || fail "$output"
	# The installed daicho finds its helpers there, moved as a whole.
	run env -u DAICHO_PG_BIN -u DAICHO_SERVE_BIN "$STAGE/opt/d/bin/daicho" version --json
	[ "$(jq -r .postgresql <<<"$output")" = "$STAGE/opt/d/bin/../libexec/daicho/daicho-pg" ] || fail "$output"
	[ "$(jq -r .dashboard <<<"$output")" = "$STAGE/opt/d/bin/../libexec/daicho/daicho-serve" ] || fail "$output"
	run env -u DAICHO_SERVE_BIN "$STAGE/opt/d/bin/daicho" serve --help
	[ "$status" -eq 0 ] || fail "$output"
	# Something of the user's beside it stays.
	touch "$STAGE/opt/d/bin/theirs"
	in_tree uninstall DESTDIR="$STAGE" PREFIX=/opt/d >/dev/null
	run installed
	[ "$output" = "./opt/d/bin/theirs" ] || fail "left: $output"
	[ ! -d "$STAGE/opt/d/libexec/daicho" ] || fail "libexec/daicho is left"
}

# mutant: install-pg without its check: make's compile error, not the line.
@test "make install leaves out a helper whose libraries are missing; install-pg or install-serve asked for then fails with one line" {
	in_tree install DESTDIR="$STAGE" PREFIX=/usr PG_OK= SERVE_OK= >/dev/null 2>&1
	run installed
	[[ "$output" == *"./usr/bin/daicho"* ]] || fail "$output"
	[[ "$output" != *"libexec"* ]] || fail "a helper without its libraries was installed: $output"
	run in_tree install-pg DESTDIR="$STAGE" PREFIX=/usr PG_OK=
	[ "$status" -ne 0 ] || fail "installed daicho-pg without libpq"
	[ "${lines[0]}" = "daicho: cannot install daicho-pg (PostgreSQL ledgers): libpq-dev is missing (scripts/deps.sh build installs it)" ] ||
		fail "$output"
	run in_tree install-serve DESTDIR="$STAGE" PREFIX=/usr SERVE_OK=
	[ "$status" -ne 0 ] || fail "installed daicho-serve without its libraries"
	[[ "${lines[0]}" == "daicho: cannot install daicho-serve (the dashboard): libmicrohttpd-dev and libgraphviz-dev are missing"* ]] ||
		fail "$output"
	[ ! -e "$STAGE/usr/libexec" ]
}

# mutant: the dpkg-query test dropped: every package is "missing" and, as
# root, apt-get is run (not found here): not this one line.
@test "scripts/deps.sh on a system without dpkg names the Debian packages needed, in one place, and exits 1" {
	local bin="$TEST_ROOT/bin" c
	mkdir "$bin"
	for c in sh id grep cat; do ln -s "$(command -v "$c")" "$bin/$c"; done
	run env PATH="$bin" "$bin/sh" "$DAICHO_ROOT/scripts/deps.sh" build
	[ "$status" -eq 1 ] || fail "$status: $output"
	[ "${lines[0]}" = "daicho: no dpkg here to check packages with; install the equivalents of these Debian packages:" ] ||
		fail "$output"
	[[ "${lines[1]}" == "daicho:   pkg-config libsqlite3-dev libjansson-dev"* ]] || fail "$output"
}

@test "make install refuses a path with a space, which make would split into two" {
	run in_tree install DESTDIR="$TEST_ROOT/with space" PREFIX=/usr
	[ "$status" -ne 0 ] || fail "installed: $output"
	[[ "$output" == *"need paths without spaces"* ]] || fail "$output"
	[ ! -e "$TEST_ROOT/with space" ] && [ ! -e "$TEST_ROOT/with" ] || fail "something was installed"
}

