#!/bin/sh
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# Installs the Debian packages daicho needs to build and test, when they are
# missing (bubblewrap: every check runs in its sandbox; strace: the checks
# are traced on the claim's base; docs/verification.md). As root it uses
# apt-get; otherwise it prints the exact command to run.
# Usage: scripts/deps.sh [build|check|bench]
set -eu
want="pkg-config libsqlite3-dev libjansson-dev nettle-dev libmicrohttpd-dev libgraphviz-dev libpq-dev"
case "${1:-build}" in
check) want="$want sqlite3 libcmocka-dev bats bats-assert bats-support git jq parallel graphviz chromium curl postgresql bubblewrap strace dpkg-dev lintian" ;;
bench) want="$want sqlite3 git hyperfine parallel task-spooler bubblewrap strace" ;;
demo) want="$want git jq bubblewrap strace" ;;
esac
# Not Debian: say what is needed, by Debian's names, and stop.
if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "daicho: no dpkg here to check packages with; install the equivalents of these Debian packages:" >&2
	echo "daicho:   $want" >&2
	exit 1
fi
missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "daicho: installing missing packages:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
	echo "daicho: missing packages:$missing" >&2
	echo "daicho: run: sudo apt-get install -y$missing" >&2
	exit 1
fi
