#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# scripts/deb.sh OUTDIR [VERSION]: the Debian package, built from this tree with debhelper
# (debian/, 'dpkg-buildpackage -us -uc'), into OUTDIR: xdp-ratelimit_VERSION_amd64.deb beside
# its .changes, .buildinfo, source (.dsc, .tar.xz) and -dbgsym package. dpkg-buildpackage writes
# beside the folder it builds, so it builds a copy of the tree (the files git tracks, or the
# whole tree but build/ when there is no git) in OUTDIR/xdp-ratelimit-VERSION. VERSION, when
# given, is written into the copy's VERSION and a new debian/changelog entry: a later build of
# the same tree, for tests/deb/run.sh's upgrade. 'make deb' runs it (OUTDIR build/deb).
set -euo pipefail
out=${1:?usage: scripts/deb.sh OUTDIR [VERSION]}
top=$(cd "$(dirname "$0")/.." && pwd)
tree=$(cat "$top/VERSION")
deb=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
if [ "$deb" != "$tree" ]; then
	echo "deb: debian/changelog's version is $deb and VERSION's $tree: add a debian/changelog entry for $tree" >&2
	exit 1
fi
version=${2:-$tree}
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$out/xdp-ratelimit-$version
rm -rf --one-file-system "$src"
mkdir -p "$src"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -c) | tar -x -C "$src"
else
	tar -C "$top" --exclude=./build -c . | tar -x -C "$src"
fi
if [ "$version" != "$tree" ]; then
	echo "$version" >"$src/VERSION"
	{
		printf 'xdp-ratelimit (%s) unstable; urgency=medium\n\n  * A later build of %s.\n\n' "$version" "$tree"
		printf ' -- %s  %s\n\n' "$(dpkg-parsechangelog -l "$top/debian/changelog" -S Maintainer)" "$(date -R)"
		cat "$top/debian/changelog"
	} >"$src/debian/changelog"
fi
(cd "$src" && dpkg-buildpackage -us -uc) >"$out/build-$version.log" 2>&1 || {
	tail -30 "$out/build-$version.log" >&2
	echo "deb: dpkg-buildpackage failed; the whole log: $out/build-$version.log" >&2
	exit 1
}
rm -rf --one-file-system "$src"
echo "$out/xdp-ratelimit_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).deb"
