#!/usr/bin/env bash
# Frames shorter than an Ethernet header, and bare 14-byte Ethernet headers, sent over a veth
# into the interface the CLI loaded the limiter on. BPF_PROG_TEST_RUN refuses frames under 14
# bytes (tests/prog/test_fuzz_xdp.c checks that), so only a real interface can try them.
#
# What this kernel really does (checked here, not assumed): an AF_PACKET socket refuses to send
# a frame shorter than the device's hard header, 14 bytes on Ethernet and so on a veth, with
# EINVAL (dev_validate_header(): len < dev->min_header_len, whatever the capabilities), so none
# reaches the veth, let alone XDP; a 14-byte frame arrives whole, not padded. The checks hold
# whichever way that goes: malformed.ethernet must count exactly the short frames the kernel took
# (none today), seen every frame taken and nothing else, and each bare header its EtherType's
# reason. Then the program must still be attached and limiting.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
needs_root short_frames
RAW=$BUILD/xrl-rawsend
if [ ! -x "$RAW" ]; then fail short_frames "$RAW is missing: build it first (make)"; finish; fi

NS=xrlf-a H=xrlf0 P=xrlf1
# A lab with no addresses and no IPv6: nothing crosses the veth but what this script sends.
lab_ns $NS
lab_veth $H $P@$NS
sysctl -qw net.ipv6.conf.$H.disable_ipv6=1
ip netns exec $NS sysctl -qw net.ipv6.conf.$P.disable_ipv6=1
lab_up_links $H $P@$NS
lab_undo "$XRL unload $H"
check "load attaches natively" "$XRL" load $H

# send FRAME...: each hex frame COPIES times from the namespace side, the sender on CPU 0 (so the
# veth's NAPI runs there too); prints "LEN sent N" or "LEN refused ERROR" per frame.
COPIES=3
send() { taskset -c 0 "$RAW" -n $NS -c $COPIES $P "$@"; }

sleep 0.5
before=$($XRL -j stats $H | json .counters)
expect_eq "nothing crosses the lab's veth before the test sends" "$(json .seen <<<"$before")" 0

# 1 to 13 bytes: prefixes of an IPv4 frame's Ethernet header.
hdr=020000000002020000000001
short=()
for n in $(seq 1 13); do short+=("$(printf '%s0800' $hdr | cut -c1-$((2 * n)))"); done
out=$(send "${short[@]}")
short_taken=$(awk '$1 < 14 && $2 == "sent" { n += $3 } END { print n + 0 }' <<<"$out")
short_refused=$(awk '$1 < 14 && $2 == "refused"' <<<"$out" | wc -l)
if [ "$short_refused" -eq 13 ] && ! grep -qv 'refused Invalid argument' <<<"$out"; then
	pass "the kernel refuses to send a frame of 1 to 13 bytes over a veth (EINVAL): none reaches XDP"
else
	echo "note: of 13 frames under 14 bytes the kernel refused $short_refused and took $short_taken copies:"
	printf '%s\n' "$out"
fi

# 14 bytes: an Ethernet header and nothing after it, under EtherTypes that promise more or nothing.
declare -A reason=([0800]=malformed.ipv4 [86dd]=malformed.ipv6 [8100]=malformed.vlan
	[88a8]=malformed.vlan [0000]=non_ip [ffff]=non_ip [05dc]=non_ip [0806]=non_ip)
bare=()
for t in "${!reason[@]}"; do bare+=("$hdr$t"); done
out=$(send "${bare[@]}")
expect_eq "a bare 14-byte Ethernet header is sent, whatever its EtherType" \
	"$(grep -c "^14 sent $COPIES\$" <<<"$out")" ${#bare[@]}

after=$($XRL -j stats $H | json .counters)
delta() { echo $(($(json ".$1" <<<"$after") - $(json ".$1" <<<"$before"))); }
expect_eq "malformed.ethernet counts exactly the short frames the kernel took" \
	"$(delta malformed.ethernet)" "$short_taken"
expect_eq "seen counts every frame taken, and nothing else" \
	"$(delta seen)" $((short_taken + ${#bare[@]} * COPIES))
expect_eq "seen = passed + dropped" "$(json '.passed + .dropped' <<<"$after")" "$(json .seen <<<"$after")"
for r in malformed.ipv4 malformed.ipv6 malformed.vlan non_ip; do
	want=0
	for t in "${!reason[@]}"; do [ "${reason[$t]}" = $r ] && want=$((want + COPIES)); done
	expect_eq "bare headers: $r counts its EtherTypes' frames" "$(delta $r)" $want
done
expect_eq "no other malformed reason moved" \
	"$(($(delta malformed.ipv4_ihl) + $(delta malformed.ipv4_len) + $(delta malformed.ipv6_ext) + $(delta malformed.l4)))" 0

# Still attached, and still limiting: 20 UDP frames to a port limited to 5 a second.
check "the program is still attached" sh -c "ip -d link show $H | grep -q 'prog/xdp'"
expect_eq "status: attached" "$($XRL -j status | json ".interfaces[] | select(.interface==\"$H\") | .state")" attached
check "a rule can be added" "$XRL" rule add $H port 7000/udp rate 5/s aggregate
# Ethernet, IPv4 10.212.0.2 -> 10.212.0.1 (checksum left zero: not the limiter's business), UDP 40000 -> 7000.
ip=4500001c00000000401100000ad400020ad40001
udp=${hdr}0800${ip}9c401b5800080000
out=$(taskset -c 0 "$RAW" -n $NS -c 20 $P "$udp")
expect_eq "20 UDP frames sent" "$out" "42 sent 20"
rule=$($XRL -j stats $H | json '.rules[] | select(.rule | startswith("port 7000/udp"))')
pass_n=$(json .passed <<<"$rule")
# The README's bound: one packet more per other CPU when CPUs decide at once (one CPU here).
expect_range "the limit still holds: 5 of 20 pass" "$pass_n" 5 $((5 + $(nproc) - 1))
expect_eq "the rest are blocked" "$(json .blocked <<<"$rule")" $((20 - pass_n))
final=$($XRL -j stats $H | json .counters)
expect_eq "seen = passed + dropped at the end" "$(json '.passed + .dropped' <<<"$final")" "$(json .seen <<<"$final")"
finish
