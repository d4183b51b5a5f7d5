#!/usr/bin/env bats
# make dist and scripts/install.sh: a release archive of what 'make
# install' installs, with SHA256SUMS, and an installer that checks the sum
# before it installs anything.

load helpers

setup() {
	any_backend "it builds and installs an archive, not a ledger"
	builds_in_tree
	common_setup
	[ -x "$DAICHO_ROOT/daicho-pg" ] && [ -x "$DAICHO_ROOT/daicho-serve" ] ||
		skip "needs the helpers built (make)"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$DAICHO_ROOT" --no-print-directory dist >/dev/null
	DIST="$DAICHO_ROOT/build/dist"
	ARCHIVE=$(ls "$DIST"/daicho-*-linux-*.tar.gz)
	INSTALL="$DAICHO_ROOT/scripts/install.sh"
}

# mutant: the sum checked against the wrong line, or not at all: the
# tampered archive is installed.
@test "make dist: an archive of daicho, its helpers, man page, completions and licence, with its SHA-256 in SHA256SUMS" {
	local v
	v=$(daicho version --json | jq -r .version)
	[ "$(basename "$ARCHIVE")" = "daicho-$v-linux-$(uname -m).tar.gz" ]
	run tar -tzf "$ARCHIVE"
	for f in bin/daicho libexec/daicho/daicho-pg libexec/daicho/daicho-serve share/man/man1/daicho.1 \
	    share/bash-completion/completions/daicho share/zsh/vendor-completions/_daicho \
	    share/fish/vendor_completions.d/daicho.fish LICENSE README.md CHANGELOG.md; do
		grep -qx "daicho-$v/$f" <<<"$output" || fail "no $f in the archive: $output"
	done
	(cd "$DIST" && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not match"
}

@test "scripts/install.sh installs an archive whose sum matches into a prefix, where daicho finds its helpers" {
	run "$INSTALL" "$ARCHIVE" "$TEST_ROOT/prefix"
	[ "$status" -eq 0 ] || fail "$output"
	[ -x "$TEST_ROOT/prefix/bin/daicho" ] && [ -x "$TEST_ROOT/prefix/libexec/daicho/daicho-pg" ] ||
		fail "$output"
	run env -u DAICHO_PG_BIN -u DAICHO_SERVE_BIN "$TEST_ROOT/prefix/bin/daicho" version --json
	[ "$(jq -r .postgresql <<<"$output")" = "$TEST_ROOT/prefix/bin/../libexec/daicho/daicho-pg" ] || fail "$output"
	# And it works: a ledger, a task.
	"$TEST_ROOT/prefix/bin/daicho" --ledger "$TEST_ROOT/l.db" init >/dev/null
	[ "$("$TEST_ROOT/prefix/bin/daicho" --ledger "$TEST_ROOT/l.db" add t)" = 1 ]
}

@test "scripts/install.sh refuses, with one line and nothing installed, an archive that differs from its sum, that SHA256SUMS does not name, or without SHA256SUMS" {
	mkdir "$TEST_ROOT/d"
	cp "$ARCHIVE" "$TEST_ROOT/d/"
	local a
	a="$TEST_ROOT/d/$(basename "$ARCHIVE")"
	# No SHA256SUMS beside it.
	run "$INSTALL" "$a" "$TEST_ROOT/p"
	[ "$status" -eq 1 ] && [ "${#lines[@]}" -eq 1 ] && [[ "$output" == "install.sh: no $TEST_ROOT/d/SHA256SUMS to check"* ]] ||
		fail "$status: $output"
	# A sum for another file only.
	echo "0000000000000000000000000000000000000000000000000000000000000000  other.tar.gz" >"$TEST_ROOT/d/SHA256SUMS"
	run "$INSTALL" "$a" "$TEST_ROOT/p"
	[ "$status" -eq 1 ] && [[ "$output" == *"is not in $TEST_ROOT/d/SHA256SUMS: refusing to install it" ]] || fail "$status: $output"
	# The right SHA256SUMS, a changed archive.
	cp "$DIST/SHA256SUMS" "$TEST_ROOT/d/"
	printf 'x' >>"$a"
	run "$INSTALL" "$a" "$TEST_ROOT/p"
	[ "$status" -eq 1 ] && [ "${#lines[@]}" -eq 1 ] && [[ "$output" == *"does not match $TEST_ROOT/d/SHA256SUMS (sha256 "*"): refusing to install it" ]] ||
		fail "$status: $output"
	[ ! -e "$TEST_ROOT/p" ] || fail "something was installed: $(find "$TEST_ROOT/p")"
	# The same archive, unchanged, goes in (the control).
	cp "$ARCHIVE" "$a"
	run "$INSTALL" "$a" "$TEST_ROOT/p"
	[ "$status" -eq 0 ] || fail "$output"
}
