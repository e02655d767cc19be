#!/usr/bin/env bash
# As many rules of several fields as a set holds (16,384), applied whole under a flood: a set of
# two rules (one holding a flood to port 7000, one holding port 7002) is replaced by one of 16,384
# (the rule of 7000 kept, 16,383 of six fields, one of them for port 7001, none for 7002), the
# maps grown by the apply as it goes. Every frame of the flood is judged by the kept rule, its
# window kept across the switch (the receiver gets its limit's worth); port 7002 is held before
# the switch and not after, port 7001 the other way round; dump gives the 16,384 back; the set of
# two applies again over them. Correctness only: make bench times the apply (XRLB_ONLY=match).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-ms H=xrlms0 P=xrlms1
lab_prologue match_scale $NS $H $P 10.238.0 fd00:238
rule_of() { # PORT FIELD: FIELD of the rule matching udp to PORT, from stats -j
	"$XRL" -j stats $H | jq -r --arg m "proto udp dport $1" '[.rules[] | select(.match | startswith($m + " ") or . == $m)][0].'"$2"
}
# got PORT PPS SECONDS: what a receiver on PORT gets of a flow at PPS for SECONDS
got() {
	recv_bg "$dir/rx$1" 10.238.0.1 "$1" $(($3 + 2))
	$UDP send -n $NS 10.238.0.2 10.238.0.1 "$1" "$2" "$3" >/dev/null
	wait "$rx"
	tail -n 1 "$dir/rx$1"
}

printf 'proto udp dport 7000 rate 100/s window 1s aggregate\nproto udp dport 7002 rate 10/s window 1s aggregate\n' \
	>"$dir/two.rules"
{
	head -n 1 "$dir/two.rules"
	echo "proto udp dport 7001 sport 1024-65535 ttl 1-255 length 20-1500 dscp 0 rate 50/s window 1s aggregate"
	seq 7003 23384 | awk '{ printf "proto udp dport %d sport 1024-65535 ttl 1-255 length 20-1500 dscp 0 rate 50/s window 1s aggregate\n", $1 }'
} >"$dir/many.rules"
expect_eq "the big set is as many rules as a set holds" "$(wc -l <"$dir/many.rules")" 16384

check "load" "$XRL" load $H
check "apply the set of two" "$XRL" apply $H "$dir/two.rules"
slots0=$(bpftool -j map show pinned "$(pin_dir $H)/xrl_match_rules" | jq .max_entries)
expect_range "port 7002 held to its 10/s by the set of two (2 s at 500/s)" "$(got 7002 500 2)" 10 32
expect_eq "port 7001 has no rule in the set of two (1 s at 200/s)" "$(got 7001 200 1)" 200

# 1. A flood to 7000 at 1000/s for 5 s; once it flows, the set of 16,384 replaces the set of two.
recv_bg "$dir/rx" 10.238.0.1 7000 7
$UDP send -n $NS 10.238.0.2 10.238.0.1 7000 1000 5 >"$dir/sent" &
sender=$!
traffic_on $H
check "apply 16,384 rules of several fields under the flood" "$XRL" apply $H "$dir/many.rules"
wait $sender
wait "$rx"
sent=$(tail -n 1 "$dir/sent") rcvd=$(tail -n 1 "$dir/rx")
expect_eq "stats: every frame of the flood was judged by the rule kept, before and after the switch" \
	"$(($(rule_of 7000 passed) + $(rule_of 7000 blocked)))" "$sent"
expect_eq "stats: the rule passed what the receiver got" "$(rule_of 7000 passed)" "$rcvd"
expect_range "its window kept across the switch: the limit's worth over 5 s" "$rcvd" 450 600
expect_eq "status: 16,384 rules in force" \
	"$("$XRL" -j status | jq -r --arg i $H '.interfaces[] | select(.interface == $i) | .rule_count')" 16384
slots1=$(bpftool -j map show pinned "$(pin_dir $H)/xrl_match_rules" | jq .max_entries)
expect_eq "the rules' map grew from its first size to 2 slots a rule, both sets" "$slots0 -> $slots1" \
	"$slots0 -> 32768"

# 2. The new set judges, the old one no more.
expect_range "port 7001 held to its 50/s by a rule of six fields of the new set (2 s at 500/s)" \
	"$(got 7001 500 2)" 50 152
expect_eq "port 7002's rule is gone with the old set (1 s at 200/s)" "$(got 7002 200 1)" 200
expect_eq "explain: a packet to the last rule's port meets it, and no other" \
	"$("$XRL" -j explain $H --src 10.238.0.2 --dport 23384/udp --sport 40000 | jq -c '[.rules[].match]')" \
	'["proto udp sport 1024-65535 dport 23384 length 20-1500 ttl 1-255 dscp cs0"]'
"$XRL" dump $H >"$dir/dump"
expect_eq "dump gives the 16,384 rules back" "$(grep -c '^proto udp' "$dir/dump")" 16384

# 3. The set of two again, over them: the maps keep their size, the rules of the old set go.
check "apply the set of two over the 16,384" "$XRL" apply $H "$dir/two.rules"
expect_eq "dump: the set of two" "$("$XRL" dump $H | grep -c '^proto udp')" 2
expect_range "port 7002 held again (2 s at 500/s)" "$(got 7002 500 2)" 10 32
finish
