#!/bin/sh
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# Installs a daicho release archive (make dist) into a prefix, once its
# SHA-256 matches the line for it in SHA256SUMS.
#
# Usage: scripts/install.sh ARCHIVE [PREFIX]
#   ARCHIVE  daicho-VERSION-linux-ARCH.tar.gz
#   PREFIX   where bin/, libexec/ and share/ go (default /usr/local)
#   SHA256SUMS is read from beside ARCHIVE, or from $DAICHO_SHA256SUMS.
#
# Refuses, with one line and exit 1, an archive whose sum is missing from
# SHA256SUMS or differs from it, and installs nothing then. Prints what it
# installed; a later install of another version replaces these files.
# The sum proves the archive is the one SHA256SUMS names, no more: take
# SHA256SUMS from where you trust (the release's own page), not from
# beside an archive someone handed you.
set -eu

die() {
	echo "install.sh: $*" >&2
	exit 1
}

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: scripts/install.sh ARCHIVE [PREFIX]"
archive=$1
prefix=${2:-/usr/local}
[ -f "$archive" ] || die "no archive $archive"
name=$(basename "$archive")
sums=${DAICHO_SHA256SUMS:-$(dirname "$archive")/SHA256SUMS}
[ -f "$sums" ] || die "no $sums to check $name against (download it with the archive)"
command -v sha256sum >/dev/null || die "sha256sum is missing (coreutils)"

# The line for this archive, by its exact name.
want=$(awk -v n="$name" '$2 == n || $2 == "*" n { print $1; exit }' "$sums")
[ -n "$want" ] || die "$name is not in $sums: refusing to install it"
# A copy of its own is checked and unpacked: the file cannot change between.
work=$(mktemp -d "${TMPDIR:-/tmp}/daicho-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$archive" "$work/archive.tar.gz"
got=$(sha256sum <"$work/archive.tar.gz" | cut -d' ' -f1)
[ "$got" = "$want" ] ||
	die "$name does not match $sums (sha256 $got, expected $want): refusing to install it"
mkdir "$work/x"
tar -xzf "$work/archive.tar.gz" -C "$work/x"
top=$(find "$work/x" -mindepth 1 -maxdepth 1 -type d -name 'daicho-*')
[ -n "$top" ] && [ -x "$top/bin/daicho" ] || die "$name holds no daicho-VERSION/bin/daicho"

# The files of bin, libexec and share, each into the prefix.
(cd "$top" && find bin libexec share -type f) | while IFS= read -r f; do
	mode=644
	case $f in bin/* | libexec/*) mode=755 ;; esac
	install -D -m "$mode" "$top/$f" "$prefix/$f"
	echo "installed $prefix/$f"
done
"$prefix/bin/daicho" --version
