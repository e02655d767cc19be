#!/usr/bin/env bash
# An interface is not a name: an instance is keyed by network namespace and ifindex. The same
# name in two namespaces makes two instances with their own rules; a command in one namespace
# never touches the other's; a renamed interface keeps its instance under its new name; a
# deleted one shows as gone, commands on its name fail, and the next load removes what is left.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
needs_root netns_keyed

NS=xrle-k
in_ns() { nsenter --net=/run/netns/$NS "$@"; }
lab_ns $NS
ip link del xrlk0 2>/dev/null
ip link add xrlk0 type veth peer name xrlk1 && lab_undo "ip link del xrlk0; ip link del xrlk9"
ip -n $NS link add xrlk0 type veth peer name xrlk1
lab_undo "$XRL unload xrlk0; $XRL unload xrlk9; in_ns $XRL unload xrlk0; in_ns $XRL unload xrlk1"

# The same name in two namespaces: two instances.
check "load xrlk0 in the root namespace" "$XRL" load xrlk0 --mode generic
check "load xrlk0 in $NS too" in_ns "$XRL" load xrlk0 --mode generic
check "a rule in the root namespace" "$XRL" rule add xrlk0 port 53/udp rate 10/s
check "another in $NS" in_ns "$XRL" rule add xrlk0 port 54/udp rate 20/s
expect_eq "the root namespace's rules" "$($XRL dump xrlk0)" "port 53/udp rate 10/s window 1s buckets 2 per-source"
expect_eq "$NS's rules" "$(in_ns "$XRL" dump xrlk0)" "port 54/udp rate 20/s window 1s buckets 2 per-source"
expect_eq "status in $NS names its own xrlk0 and the other by namespace" \
	"$(in_ns "$XRL" -j status | jq -c '[.interfaces[] | select(.interface == "xrlk0") | .this_netns]')" "[true]"
# unload by a name in one namespace never reaches the other's instance of that name.
check "load xrlk1 in $NS only" in_ns "$XRL" load xrlk1 --mode generic
out=$("$XRL" unload xrlk1 2>&1)
expect_eq "unload xrlk1 from the root namespace: not loaded here" "$?:$(grep -c 'not loaded on xrlk1' <<<"$out")" "1:1"
check "... and $NS's xrlk1 keeps its program" sh -c "ip -n $NS -d link show xrlk1 | grep -q prog/xdp"
check "unload xrlk1 in $NS" in_ns "$XRL" unload xrlk1
check "unload xrlk0 in $NS" in_ns "$XRL" unload xrlk0
expect_eq "the root namespace's instance is untouched" "$($XRL dump xrlk0 | wc -l)" 1

# A rename keeps the instance: found under its new name, the old one is free.
ip link set xrlk0 name xrlk9
expect_eq "status lists it under its new name" \
	"$($XRL -j status | jq -r '[.interfaces[] | select(.interface == "xrlk9" or .interface == "xrlk0") | .interface] | join(",")')" "xrlk9"
expect_eq "its rules, under its new name" "$($XRL dump xrlk9)" "port 53/udp rate 10/s window 1s buckets 2 per-source"
out=$("$XRL" load xrlk9 2>&1)
expect_eq "load xrlk9: its instance, replaced in place" "$?:$(grep -c 'replaced the program on xrlk9 in place' <<<"$out")" "0:1"
out=$("$XRL" stats xrlk0 2>&1)
expect_eq "stats xrlk0: no such interface any more" "$?:$(grep -c "no such interface 'xrlk0'" <<<"$out")" "1:1"

# A deleted interface: gone in status, commands on its name fail, the next load sweeps it.
pins=$(pin_dir xrlk9)
ip link del xrlk9
expect_eq "status shows the deleted interface's instance as gone" \
	"$($XRL -j status | jq -r --arg d "$pins" '.interfaces[] | select(.pin_dir == $d) | .state')" "gone"
out=$("$XRL" rule add xrlk9 port 55/udp rate 1/s 2>&1)
expect_eq "rule add on it fails" "$?:$(grep -c "no such interface 'xrlk9'" <<<"$out")" "1:1"
ip link add xrlk0 type veth peer name xrlk1
check "the next load" "$XRL" load xrlk0 --mode generic
check "... removed what the deleted one left" test -n "$pins" -a ! -e "$pins"
check "unload" "$XRL" unload xrlk0
finish
