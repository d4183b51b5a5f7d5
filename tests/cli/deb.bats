#!/usr/bin/env bats
# make deb: a Debian package lintian finds no error in, that apt-get
# installs, that works (init, add, claim, report, the sweep), and that
# apt-get remove takes away without a trace.

load helpers

setup() {
	any_backend "it builds and installs a package, not a ledger"
	builds_in_tree
	common_setup
	[ "$(id -u)" -eq 0 ] || skip "installs a package: needs root"
	command -v lintian >/dev/null && command -v dpkg-shlibdeps >/dev/null ||
		skip "needs lintian and dpkg-dev (scripts/deps.sh check installs them)"
	[ -x "$DAICHO_ROOT/daicho-pg" ] && [ -x "$DAICHO_ROOT/daicho-serve" ] ||
		skip "needs the helpers built (make)"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$DAICHO_ROOT" --no-print-directory deb >/dev/null
	DEB=$(ls "$DAICHO_ROOT"/build/daicho_*_"$(dpkg --print-architecture)".deb)
}

teardown() {
	# Whatever a failed test left installed goes.
	if [ "$(id -u)" -eq 0 ] && dpkg -s daicho >/dev/null 2>&1; then
		apt-get remove -y -q daicho >/dev/null 2>&1 || true
	fi
}

@test "make deb: daicho_VERSION_ARCH.deb holds daicho, its helpers in libexec, the man page and completions; lintian reports no error" {
	local v
	v=$(daicho version --json | jq -r .version)
	[ "$(basename "$DEB")" = "daicho_${v}_$(dpkg --print-architecture).deb" ]
	run dpkg-deb -c "$DEB"
	for f in usr/bin/daicho usr/libexec/daicho/daicho-pg usr/libexec/daicho/daicho-serve \
	    usr/share/man/man1/daicho.1.gz usr/share/bash-completion/completions/daicho \
	    usr/share/zsh/vendor-completions/_daicho usr/share/fish/vendor_completions.d/daicho.fish \
	    usr/share/doc/daicho/copyright usr/share/doc/daicho/changelog.gz; do
		[[ "$output" == *" ./$f"* ]] || fail "no $f: $output"
	done
	[[ "$(dpkg-deb -f "$DEB" Depends)" == *libpq5* ]] || fail "Depends: $(dpkg-deb -f "$DEB" Depends)"
	run lintian --fail-on error "$DEB"
	[ "$status" -eq 0 ] || fail "lintian: $output"
	[[ "$output" != *"E: "* ]] || fail "lintian: $output"
}

# mutant: a file of the package left out of its md5sums, or installed
# outside the package: dpkg's own check, or the trace after removal.
@test "the package installs with apt-get, runs init, add, claim, report and the sweep in a repository, and apt-get remove leaves nothing behind" {
	local files f repo="$TEST_ROOT/repo"
	files=$(dpkg-deb -c "$DEB" | awk '{ print substr($6, 2) }' | grep -v '/$')
	run apt-get install -y -q "$DEB"
	[ "$status" -eq 0 ] || fail "apt-get install: $output"
	dpkg --verify daicho || fail "dpkg --verify: installed files differ"
	[ "$(/usr/bin/daicho version --json | jq -r .postgresql)" = /usr/bin/../libexec/daicho/daicho-pg ]
	man -w daicho >/dev/null 2>&1 || [ -f /usr/share/man/man1/daicho.1.gz ]
	# The installed daicho, in a scratch repository.
	new_git_repo "$repo"
	cd "$repo"
	unset DAICHO_LEDGER
	/usr/bin/daicho init >/dev/null
	/usr/bin/daicho add "Write it" --done-when file:it.txt >/dev/null
	[ "$(/usr/bin/daicho --as w1 claim --next)" = 1 ]
	git switch -q -c work/1
	echo it >it.txt
	git add it.txt
	git commit -q -m "#1: it"
	/usr/bin/daicho --as w1 report 1 --commit HEAD
	git switch -q main
	run /usr/bin/daicho sweep
	[[ "$output" == "sweep: 1 verified"* ]] || fail "$output"
	[ "$(/usr/bin/daicho show --json 1 | jq -r .state)" = landed ]
	cd "$TEST_ROOT"
	run apt-get remove -y -q daicho
	[ "$status" -eq 0 ] || fail "apt-get remove: $output"
	for f in $files; do
		[ ! -e "$f" ] || fail "left behind: $f"
	done
	[ ! -e /usr/libexec/daicho ] && [ ! -e /usr/share/doc/daicho ] || fail "a directory is left"
	! dpkg -s daicho >/dev/null 2>&1 || [ "$(dpkg-query -W -f '${Status}' daicho)" = "deinstall ok config-files" ] ||
		fail "still installed: $(dpkg-query -W -f '${Status}' daicho)"
}
