#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tests/deb/run.sh BUILD_DIR: the Debian package from build to purge, on the fresh minimal Debian 12
# of tests/fresh (tests/fresh/chroot.sh). Builds the package from the tree (scripts/deb.sh:
# dpkg-buildpackage -us -uc) and a later build of it (VERSION+test1) while debootstrap runs;
# lintian finds nothing in it (every tag it still sees is in debian/*.lintian-overrides with why);
# 'apt-get install ./xdp-ratelimit_VERSION_amd64.deb' there installs it and the libraries its
# binary links (${shlibs:Depends}), with the files, the conffile, and no unit enabled or instance
# started. Then, under the lab lock, tests/deb/lab.sh loads an instance through the installed
# unit's ExecStart on a veth of the lab, upgrades the package under traffic, removes and purges
# it. The chroot has a bpffs of its own: the package's maintainer scripts see its instances, no
# other's. Prints PASS:/FAIL:/SKIP: lines and how long each step took; about 2 minutes, a step
# of .ci/run of its own ('make test-deb'), not in 'make test'.
# shellcheck disable=SC2016 # dpkg-query's ${Field} formats and sh -c scripts, in single quotes
set -u
build=${1:?usage: tests/deb/run.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$build/deb-test"
build=$(cd "$build" && pwd)
work=$build/deb-test
root=$work/root
failures=0

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; failures=$((failures + 1)); }
skip() { echo "SKIP: $1: $2"; }

if [ "$(id -u)" -ne 0 ]; then skip deb "needs root (debootstrap, chroot, XDP)"; exit 0; fi
for tool in debootstrap dpkg-buildpackage dh lintian; do
	command -v $tool >/dev/null || { skip deb "needs $tool (scripts/deps.sh installs it)"; exit 0; }
done
[ -x "$build/xrl-udp" ] || { fail deb "no $build/xrl-udp: make test-deb builds it"; exit 1; }

# shellcheck source=tests/fresh/chroot.sh
. "$top/tests/fresh/chroot.sh"
cleanup() { chroot_remove "$root"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
in_root() { chroot_run "$root" DEBIAN_FRONTEND=noninteractive "$@"; }

t_start=$(date +%s)
version=$(cat "$top/VERSION")
later=$version+test1
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
rm -rf "$work/pkg"
cleanup
# Both builds beside debootstrap, which mostly waits for the mirror.
t0=$(date +%s)
(bash "$top/scripts/deb.sh" "$work/pkg" && bash "$top/scripts/deb.sh" "$work/pkg" "$later") >"$work/build.log" 2>&1 &
builder=$!
chroot_debootstrap "$root" "$work/debootstrap.log" ||
	{ fail "debootstrap minbase bookworm" "$(tail -5 "$work/debootstrap.log")"; exit 1; }
t1=$(date +%s)
pass "debootstrap --variant=minbase bookworm ($((t1 - t0)) s)"
if wait $builder; then
	pass "dpkg-buildpackage -us -uc of $version and of $later ($(($(date +%s) - t0)) s in all)"
else
	fail "dpkg-buildpackage" "$(tail -20 "$work/build.log")"
	exit 1
fi
deb=xdp-ratelimit_${version}_$arch.deb
deb2=xdp-ratelimit_${later}_$arch.deb

lintian -I --pedantic --fail-on error,warning,info,pedantic "$work/pkg/xdp-ratelimit_${version}_$arch.changes" >"$work/lintian.log" 2>&1
rc=$?
out=$(grep -v '^running with root privileges' "$work/lintian.log")
if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
	pass "lintian -I --pedantic: no tag but those debian/xdp-ratelimit.lintian-overrides explains"
else
	fail "lintian -I --pedantic" "exit $rc: $out"
fi

chroot_mount "$root" || { fail "mounts in $root" "see above"; exit 1; }
mount -t bpf bpf "$root/sys/fs/bpf" || { fail "a bpffs of the chroot's own" "mount failed"; exit 1; }
mkdir -p "$root/tmp/pkg"
cp "$work/pkg/$deb" "$work/pkg/$deb2" "$root/tmp/pkg/"

t0=$(date +%s)
if in_root sh -c "apt-get update -qq && cd /tmp/pkg && apt-get install -y ./$deb" >"$work/install.log" 2>&1; then
	pass "apt-get install ./$deb on the fresh machine ($(($(date +%s) - t0)) s)"
else
	fail "apt-get install ./$deb" "$(tail -20 "$work/install.log")"
	exit 1
fi
expect() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', want '$3'"; fi; }
expect "... installed" "$(in_root dpkg-query -W -f='${Status} ${Version}' xdp-ratelimit)" "install ok installed $version"
expect "... xdp-ratelimit --version runs" "$(in_root xdp-ratelimit --version 2>&1 | grep -c "$version")" 1
in_root dpkg -L xdp-ratelimit >"$work/files"
missing=
for f in /usr/sbin/xdp-ratelimit /usr/share/man/man8/xdp-ratelimit.8.gz /usr/share/man/man5/xdp-ratelimit.conf.5.gz \
	/usr/share/bash-completion/completions/xdp-ratelimit /etc/xdp-ratelimit/example.conf \
	/usr/share/doc/xdp-ratelimit/copyright "$top"/systemd/*; do
	[[ $f == "$top"/* ]] && f=/lib/systemd/system/${f##*/}
	grep -qxF "$f" "$work/files" && [ -e "$root$f" ] || missing+=" $f"
done
expect "... dpkg -L: the binary, both man pages, the completion, every unit of systemd/, the example" "${missing:-none missing}" "none missing"
expect "... /etc/xdp-ratelimit/example.conf is a conffile" \
	"$(in_root dpkg-query -W -f='${Conffiles}' xdp-ratelimit | awk '{ print $1 }' | xargs)" /etc/xdp-ratelimit/example.conf
# Every library the binary links (NEEDED) resolves there, and its package is a dependency.
deps=$(in_root dpkg-query -W -f='${Depends}' xdp-ratelimit)
in_root ldd /usr/sbin/xdp-ratelimit >"$work/ldd"
undeclared=
for lib in $(objdump -p "$root/usr/sbin/xdp-ratelimit" | awk '$1 == "NEEDED" { print $2 }'); do
	path=$(awk -v l="$lib" '$1 == l && $2 == "=>" { print $3 }' "$work/ldd")
	[ -z "$path" ] || [ "$path" = not ] && { undeclared+=" $lib(not found)"; continue; }
	pkg=$(in_root dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1)
	[ -z "$pkg" ] && pkg=$(in_root dpkg -S "$(in_root readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1)
	grep -qE "(^|, )$pkg( |,|$)" <<<"$deps" || undeclared+=" $lib($pkg)"
done
expect "... each library the binary links is found there, its package in Depends ($deps)" "${undeclared:-all}" all
expect "... no unit enabled (no link in /etc/systemd/system)" "$(find "$root/etc/systemd/system" -name 'xdp-ratelimit*' -printf '%p ')" ""
expect "... nothing loaded" "$(in_root xdp-ratelimit -j status | jq '.interfaces | length')" 0
in_root sh -c 'dpkg -L xdp-ratelimit | while read -r f; do [ -d "$f" ] || echo "$f"; done' >"$work/files"

t0=$(date +%s)
XRL_LAB_LOCKED=1 BUILD=$build flock -o /tmp/xrl-lab.lock bash "$top/tests/deb/lab.sh" "$root" "$version" "$later" "$work"
rc=$?
[ $rc -eq 0 ] || failures=$((failures + 1))
echo "deb: install, upgrade, remove and purge on the lab: $(($(date +%s) - t0)) s; the whole test: $(($(date +%s) - t_start)) s"
[ "$failures" -eq 0 ]
