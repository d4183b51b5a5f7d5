#!/bin/sh
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# Builds daicho_VERSION_ARCH.deb with Debian's own tools (dpkg-shlibdeps,
# dpkg-deb) from a tree 'make install' staged: what 'make deb' runs, from
# the top of the source tree, after 'make all'.
#
# Usage: scripts/make-deb.sh OUTDIR
# The package holds /usr/bin/daicho, /usr/libexec/daicho/{daicho-pg,
# daicho-serve}, the man page, the completions, and /usr/share/doc/daicho
# (copyright, changelog). Its Depends are what dpkg-shlibdeps reads from the
# helpers (daicho itself is static).
set -eu

out=${1:?usage: scripts/make-deb.sh OUTDIR}
version=$(sed -n 's/^#define DAICHO_VERSION "\(.*\)"/\1/p' src/core/version.h)
arch=$(dpkg --print-architecture)
work=$out/deb
root=$work/root
rm -rf "$work"
mkdir -p "$root"
root=$(cd "$root" && pwd)
make --no-print-directory install DESTDIR="$root" PREFIX=/usr >/dev/null
for helper in daicho-pg daicho-serve; do
	[ -x "$root/usr/libexec/daicho/$helper" ] || {
		echo "make deb: $helper was not built (its libraries are missing: scripts/deps.sh build)" >&2
		exit 1
	}
done

# What Debian asks of a binary package: stripped programs, a compressed
# man page, the copyright and a changelog in /usr/share/doc.
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
	"$root/usr/bin/daicho" "$root/usr/libexec/daicho/daicho-pg" \
	"$root/usr/libexec/daicho/daicho-serve"
gzip -9n "$root/usr/share/man/man1/daicho.1"
doc=$root/usr/share/doc/daicho
install -d "$doc" "$root/usr/share/lintian/overrides"
install -m 644 packaging/deb/copyright "$doc/copyright"
date=$(git log -1 --format=%aD 2>/dev/null || date -R)
{
	printf 'daicho (%s) unstable; urgency=medium\n\n' "$version"
	printf '  * Version %s: what users see is in\n' "$version"
	printf '    /usr/share/doc/daicho/CHANGELOG.md.gz.\n\n'
	printf ' -- The daicho authors <daicho@example.com>  %s\n' "$date"
} | gzip -9n >"$doc/changelog.gz"
gzip -9n <CHANGELOG.md >"$doc/CHANGELOG.md.gz"
chmod 644 "$doc/changelog.gz" "$doc/CHANGELOG.md.gz"
# daicho is static on purpose: a process start is most of a command's cost
# (docs/building.md).
echo "daicho: statically-linked-binary [usr/bin/daicho]" \
	>"$root/usr/share/lintian/overrides/daicho"
chmod 644 "$root/usr/share/lintian/overrides/daicho"

# Depends, from the helpers' shared libraries.
mkdir -p "$work/src/debian"
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e '/^Installed-Size/d' \
	-e '/^Depends/d' packaging/deb/control.in >"$work/src/debian/control.bin"
printf 'Source: daicho\nMaintainer: The daicho authors <daicho@example.com>\n\nPackage: daicho\nArchitecture: any\n' \
	>"$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O \
	"$root/usr/libexec/daicho/daicho-pg" \
	"$root/usr/libexec/daicho/daicho-serve" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "make deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
mkdir -p "$root/DEBIAN"
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" \
	-e "s/@DEPENDS@/$depends/" packaging/deb/control.in >"$root/DEBIAN/control"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 755 {} +
deb=$out/daicho_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
rm -rf "$work"
echo "daicho: $deb"
