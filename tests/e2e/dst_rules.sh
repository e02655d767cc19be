#!/usr/bin/env bash
# Destination rules end to end, over a veth into the interface the CLI loaded the limiter on,
# with three addresses behind it: a dst rule holds the traffic to one address to its rate while
# the same sources' traffic to another passes whole, and stats' figures are what the receivers
# counted; a port rule narrowed to a third address takes that address's packets to the port in
# place of the port's own tighter rule. Real UDP sockets on both sides (build/xrl-udp).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrld-a H=xrld0 P=xrld1
lab_prologue dst_rules $NS $H $P 10.245.0 fd00:245
lab_addr $H 10.245.0.100/32 10.245.0.101/32 || fail lab "cannot add the destinations to $H"
check "load attaches natively" "$XRL" load $H
rule_stat() { "$XRL" -j stats $H | jq -r --arg r "$1" ".rules[] | select(.rule | startswith(\$r)) | .$2"; }

rules=$dir/rules
cat >"$rules" <<'R'
dst 10.245.0.100 rate 100/s window 1s aggregate
port 6001/udp rate 50/s window 1s aggregate
port 6001/udp dst 10.245.0.101 rate 10k/s window 1s aggregate
R
check "apply dst rules" "$XRL" apply $H "$rules"
expect_eq "memory --dsts 1 is what the kernel charges the instance (the narrowed rule in the trie, the dst rule in the range structure)" \
	"$($XRL -j memory --dsts 1 | json .total_bytes)" \
	"$($XRL -j status | jq -r --arg i $H '.interfaces[] | select(.interface == $i) | .memory_bytes')"
expect_eq "dump prints them in the grammar, a host as /32" "$($XRL dump $H)" \
	"port 6001/udp rate 50/s window 1s buckets 2 aggregate
dst 10.245.0.100/32 rate 100/s window 1s buckets 2 aggregate
port 6001/udp dst 10.245.0.101/32 rate 10k/s window 1s buckets 2 aggregate"
dump=$($XRL dump $H)
check "dump | apply" sh -c "$XRL dump $H | $XRL apply $H -"
expect_eq "dump | apply round-trips" "$($XRL dump $H)" "$dump"
expect_eq "dump -j names their kinds" "$($XRL -j dump $H | json '[.rules[].kind] | join(",")')" "port,dst,port"

# 1. .2 floods .100 at 1000/s and sends .1 300/s for 2 s: the dst rule holds .100 to 100 a window.
recv_bg "$dir/r100" 10.245.0.100 6000 4
rx100=$rx
recv_bg "$dir/r1" 10.245.0.1 6000 4
rx1=$rx
$UDP send -n $NS 10.245.0.2 10.245.0.100 6000 1000 2 >"$dir/s100" &
$UDP send -n $NS 10.245.0.2 10.245.0.1 6000 300 3 600 >"$dir/s1" &
# Once the flood filled the window, it holds the threshold's worth but for the moment after a
# bucket leaves: look until the next packet is blocked.
# shellcheck disable=SC2317 # run by lab_wait
blocked_next() {
	e=$($XRL -j explain "$H" --src 10.245.0.2 --dst 10.245.0.100 --dport 6000/udp)
	[ "$(json .verdict <<<"$e")" = block ]
}
lab_wait 3 blocked_next
expect_eq "explain --dst: the next packet to the limited address is blocked" "$(json .verdict <<<"$e")" block
expect_eq "explain --dst: by the dst rule" "$(json '.why' <<<"$e")" \
	"over the packet limit of 'dst 10.245.0.100/32 rate 100/s window 1s buckets 2 aggregate'"
expect_eq "explain --dst: the other address meets no rule" \
	"$($XRL -j explain $H --src 10.245.0.2 --dst 10.245.0.1 --dport 6000/udp | json '.rules | length')" 0
wait %3 %4
wait "$rx100" "$rx1"
sent100=$(tail -n 1 "$dir/s100") got100=$(tail -n 1 "$dir/r100")
passed=$(rule_stat "dst 10.245.0.100/32" passed) blocked=$(rule_stat "dst 10.245.0.100/32" blocked)
expect_eq "stats: the dst rule passed what the limited address received" "$passed" "$got100"
expect_eq "stats: passed + blocked is what was sent to it" "$((passed + blocked))" "$sent100"
# Any 1 s holds at most 100 passes: 2 s of flood, and the part of a third and fourth second a
# sender held up on a busy machine reaches.
expect_range "the dst rule held 1000/s to ~100/s" "$passed" 100 400
expect_eq "the other address received every datagram sent to it" "$(tail -n 1 "$dir/r1")" "$(tail -n 1 "$dir/s1")"
expect_eq "metrics: the dst rule's blocked total under its line, as stats counts it" \
	"$($XRL metrics $H | awk '/^xdp_ratelimit_rule_blocked_total.*rule="dst 10.245.0.100\/32 rate 100\/s window 1s buckets 2 aggregate"/ { print $NF }')" \
	"$blocked"

# 2. Port 6001: to .101 the narrowed rule (10k/s) applies in place of the port's own 50/s.
recv_bg "$dir/r101" 10.245.0.101 6001 3
rx101=$rx
recv_bg "$dir/r1b" 10.245.0.1 6001 3
rx1=$rx
$UDP send -n $NS 10.245.0.3 10.245.0.101 6001 400 2 400 >"$dir/s101" &
$UDP send -n $NS 10.245.0.3 10.245.0.1 6001 400 2 400 >"$dir/s1b" &
wait %3 %4
wait "$rx101" "$rx1"
expect_eq "the narrowed port rule passed every datagram to its address" "$(tail -n 1 "$dir/r101")" \
	"$(tail -n 1 "$dir/s101")"
expect_eq "... and counted them" "$(rule_stat "port 6001/udp dst" passed)" "$(tail -n 1 "$dir/s101")"
expect_eq "the port's own rule passed what the other address received" \
	"$(rule_stat "port 6001/udp rate" passed)" "$(tail -n 1 "$dir/r1b")"
expect_range "... holding it to ~50/s" "$(tail -n 1 "$dir/r1b")" 50 150

# 3. An allow dst rule bypasses the limit; rule del takes the narrowed match.
expect_err "rule add: the dst already has a rule" 1 "already has a rule" "$XRL" rule add $H dst 10.245.0.100/32 rate 1/s
check "rule del dst" "$XRL" rule del $H dst 10.245.0.100/32
check "rule add dst allow" "$XRL" rule add $H dst 10.245.0.100 allow
expect_eq "explain --dst: allowed" "$($XRL -j explain $H --src 10.245.0.2 --dst 10.245.0.100 | json .rules[0].result)" allow
check "rule del port 6001/udp dst 10.245.0.101/32" "$XRL" rule del $H port 6001/udp dst 10.245.0.101/32
expect_eq "the port's own rule is left" "$($XRL dump $H | grep -c '^port 6001/udp')" 1
check "save" "$XRL" save $H "$dir/saved.conf"
expect_eq "save writes the dst rules as dump prints them" "$(grep -v '^#' "$dir/saved.conf" | grep -v '^load ')" "$($XRL dump $H)"
check "lint reads the saved file back" "$XRL" lint "$dir/saved.conf"
expect_err "explain --dst of another family is a usage error" 2 "not of one family" \
	"$XRL" explain $H --src 10.245.0.2 --dst fd00:245::1
finish
