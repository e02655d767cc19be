#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tests/deb/lab.sh ROOT VERSION LATER WORK: tests/deb/run.sh's steps on the veth lab, run under
# the lab lock, with xdp-ratelimit VERSION installed from a package in the chroot ROOT (its .debs
# in ROOT/tmp/pkg, the files dpkg -L listed in WORK/files):
# - the installed xdp-ratelimit@.service's ExecStart, parsed out of the unit file with %i and
#   %I set to the lab's veth (PID 1 is not systemd here), loads /etc/xdp-ratelimit/IFACE.conf;
# - an instance of the previous map layout beside it, loaded by tests/e2e/upgrade_layout.sh's build
#   of it when there is one;
# - 'apt-get install' of LATER while a source floods a per-source rule replaces the program in
#   place from the postinst (a new program id, the rules and counters carried over), and every
#   frame sent is judged: passed + blocked = sent;
# - 'apt-get remove' says the limiter stays enforcing and the example configuration has changes;
#   it does enforce (the receiver gets the window's frames) with no binary left;
# - 'apt-get purge' deletes every file the package installed and its conffile, keeps and names
#   the operator's IFACE.conf and the instance's pins; removing the pins as it says detaches it.
# shellcheck disable=SC2016 # dpkg-query's ${Field} formats, in single quotes
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/../e2e/lib.sh"
root=${1:?usage: tests/deb/lab.sh ROOT VERSION LATER WORK} version=$2 later=$3 work=$4
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
# shellcheck source=tests/fresh/chroot.sh
. "$ROOT/tests/fresh/chroot.sh"
in_root() { chroot_run "$root" DEBIAN_FRONTEND=noninteractive "$@"; }
rxrl() { in_root xdp-ratelimit "$@"; }

NS=xrle-deb
IF=xrldeb0
veth_lab $NS $IF xrldeb1 10.233.0 fd00:233
attached() { ip -d link show "$IF" 2>/dev/null | grep -c 'prog/xdp'; }
iface_status() { rxrl -j status | jq -c --arg i $IF ".interfaces[] | select(.interface == \$i) | $1"; }
rule_stats() { rxrl -j stats $IF | jq --arg r "$1" '.rules[] | select(.rule | startswith($r))'; }

conf=$root/etc/xdp-ratelimit/$IF.conf
printf 'port 9/udp rate 100/s window 1s buckets 10 per-source\nport 53/udp rate 1k/s aggregate\n' >"$conf"
unit=$root/lib/systemd/system/xdp-ratelimit@.service
start=$(sed -n 's/^ExecStart=//p' "$unit")
start=${start//%i/$IF}
start=${start//%I/$IF}
# shellcheck disable=SC2086 # the unit's words, as systemd splits them (no quotes in ours)
check "the installed unit's ExecStart: $start" in_root $start
expect_eq "... the limiter is attached to $IF" "$(attached)" 1
expect_eq "... with the file's rules" "$(rxrl dump $IF | grep -c .)" 2
prog1=$(iface_status .prog_id)
# An instance of the previous map layout beside it, when tests/e2e/upgrade_layout.sh has built
# that xdp-ratelimit: the upgrade takes it over in place too.
old=$(find "$BUILD" -maxdepth 3 -path "$BUILD/layout-*/build/xdp-ratelimit" | head -1)
if [ -n "$old" ]; then
	veth_lab xrle-deb2 xrldeb2 xrldeb3 10.236.0 fd00:236
	cp "$old" "$root/tmp/xdp-ratelimit-old"
	# The libraries that build links and this package does not bring (0.5.0's libmicrohttpd, say).
	libs=$(ldd "$old" | awk '$2 == "=>" && $3 ~ /^\// { n = split($3, p, "/"); print "*/" p[n - 1] "/" p[n] }' |
		xargs -r dpkg -S 2>/dev/null | cut -d: -f1 | sort -u | tr '\n' ' ')
	# shellcheck disable=SC2086 # one word a package
	[ -z "$libs" ] || in_root apt-get install -y --no-install-recommends $libs >"$work/old-libs.log" 2>&1 ||
		fail "the libraries of ${old#"$BUILD"/}" "$(tail -5 "$work/old-libs.log")"
	check "an instance of ${old#"$BUILD"/} on xrldeb2" in_root /tmp/xdp-ratelimit-old load xrldeb2
	printf 'port 9/udp rate 10/s\n' >"$root/tmp/old.rules"
	check "... with a rule" in_root /tmp/xdp-ratelimit-old apply xrldeb2 /tmp/old.rules
else
	skip "an instance of the previous layout" "tests/e2e/upgrade_layout.sh builds its xdp-ratelimit into $BUILD/layout-*"
fi
expect_eq "... by the package of $version" "$(in_root dpkg-query -W -f='${Version}' xdp-ratelimit)" "$version"

# The upgrade, from the package's postinst, while one source floods port 9 at 2000 frames/s.
$UDP send -n $NS 10.233.0.2 10.233.0.1 9 2000 8 >"$work/sent" 2>&1 &
sender=$!
lab_undo "kill $sender 2>/dev/null"
lab_wait 5 sh -c "[ \"\$(chroot '$root' xdp-ratelimit -j stats $IF | jq .counters.seen)\" -ge 1000 ]" ||
	fail "the flood" "xdp-ratelimit saw no 1000 frames in 5 s"
seen0=$(rxrl -j stats $IF | jq .counters.seen)
t0=$(date +%s%N)
in_root sh -c "cd /tmp/pkg && apt-get install -y ./xdp-ratelimit_${later}_$arch.deb" >"$work/upgrade.log" 2>&1
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
expect_eq "apt-get install ./xdp-ratelimit_${later}_$arch.deb, the upgrade ($ms ms)" "$rc" 0
expect_eq "... under the flood: the sender ran on after it" "$(kill -0 $sender 2>/dev/null && echo running)" running
expect_err "... its postinst replaced the program in place" 0 "xdp-ratelimit: replaced the program on $IF in place" \
	cat "$work/upgrade.log"
if [ -n "$old" ]; then
	expect_err "... and took the previous layout's instance over" 0 \
		"xdp-ratelimit: replaced the program on xrldeb2 in place .*from map layout [0-9]+ to [0-9]+" cat "$work/upgrade.log"
	expect_eq "... its rule carried over" "$(rxrl dump xrldeb2 | grep -c '^port 9/udp rate 10/s ')" 1
fi
expect_eq "... the package is $later" "$(in_root dpkg-query -W -f='${Version}' xdp-ratelimit)" "$later"
expect_eq "... and the binary" "$(rxrl --version 2>&1 | grep -c "$later")" 1
prog2=$(iface_status .prog_id)
expect_eq "... a new program on $IF (id $prog1, then $prog2)" "$((prog2 != prog1 && prog2 > 0))" 1
expect_eq "... the rules carried over" "$(rxrl dump $IF | grep -c .)" 2
seen1=$(rxrl -j stats $IF | jq .counters.seen)
expect_eq "... the counters carried over ($seen0, then $seen1)" "$((seen1 >= seen0))" 1
wait $sender
sent=$(tail -1 "$work/sent")
st=$(rule_stats "port 9/udp")
expect_eq "... every frame sent was judged: passed + blocked = sent" "$(jq '.passed + .blocked' <<<"$st")" "$sent"
expect_range "... passed: the window's 100 a second over 8 s, carried over" "$(jq .passed <<<"$st")" 700 900

# Remove: the limiter goes on enforcing, and the scripts say so; the example's changes are named.
echo '# a change of the operator' >>"$root/etc/xdp-ratelimit/example.conf"
in_root apt-get remove -y xdp-ratelimit >"$work/remove.log" 2>&1
expect_eq "apt-get remove xdp-ratelimit" "$?" 0
expect_err "... says the limiter stays enforcing on $IF" 0 "$IF: the limiter stays attached and enforcing without the package.*'xdp-ratelimit unload $IF'" \
	cat "$work/remove.log"
expect_err "... and that a purge would delete the changed example" 0 "example.conf has changes of yours: a purge deletes it" \
	cat "$work/remove.log"
expect_eq "... the binary is gone" "$([ -e "$root/usr/sbin/xdp-ratelimit" ] && echo there)" ""
expect_eq "... the conffile and $IF.conf stay" "$(cd "$root/etc/xdp-ratelimit" && echo *)" "example.conf $IF.conf"
expect_eq "... dpkg keeps its configuration" "$(in_root dpkg-query -W -f='${Status}' xdp-ratelimit)" "deinstall ok config-files"
expect_eq "... the limiter is attached" "$(attached)" 1
sleep 1.1 # a fresh window for the source
recv_bg "$work/rx" 10.233.0.1 9 3
$UDP send -n $NS 10.233.0.2 10.233.0.1 9 1000 1 >/dev/null 2>&1
wait "$rx"
expect_range "... and enforcing: of 1000 frames in 1 s from one source, the receiver got about the window's 100" "$(tail -1 "$work/rx")" 90 250

# Purge: the package's files and conffile go; the operator's file and the pins stay, named.
in_root apt-get purge -y xdp-ratelimit >"$work/purge.log" 2>&1
expect_eq "apt-get purge xdp-ratelimit" "$?" 0
expect_eq "... dpkg knows it no more" "$(in_root dpkg-query -W -f='${Status}' xdp-ratelimit 2>/dev/null)" ""
left=
while read -r f; do [ -e "$root$f" ] && left+=" $f"; done <"$work/files"
expect_eq "... every file dpkg -L listed is gone, the conffile too" "${left:-none}" none
expect_err "... $IF.conf is kept, and it says so" 0 "kept /etc/xdp-ratelimit/$IF.conf \(not the package's" cat "$work/purge.log"
expect_eq "... it is there" "$(cd "$root/etc/xdp-ratelimit" && echo *)" "$IF.conf"
ifindex=$(cat /sys/class/net/$IF/ifindex)
pins=$(sed -n "s|.*kept \(/sys/fs/bpf/xdp-ratelimit/net[0-9]*-if$ifindex\), an instance still loaded: 'rm -r .*|\1|p" "$work/purge.log")
expect_eq "... the pins of $IF's instance are kept, and it says so" "$([ -n "$pins" ] && [ -d "$root$pins" ] && echo kept)" kept
expect_eq "... the limiter is still attached" "$(attached)" 1
if [ -n "$pins" ]; then
	rm -r "$root$pins"
	expect_eq "'rm -r' of the pins, as it says, detaches it" "$(attached)" 0
fi
finish
