#!/usr/bin/env bash
# Rings sized at load, grown in place: an instance loaded for 2-bucket windows holds rings of 3
# cells (168 bytes a key); an apply that adds a 10-bucket window replaces the program with rings
# of 11 cells, every window carried over, under a flood: the receiver gets exactly one window's
# 500 frames, as with no growth, every frame sent is judged, and the new rule limits at once.
# A rule add that needs longer rings grows them the same way, and the rules' counter slots grow
# with the rule count.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-rg
IF=xrlrg0
lab_prologue rings_grow $NS $IF xrlrg1 10.236.0 fd00:236

st() { "$XRL" -j status | jq -r --arg i "$IF" ".interfaces[] | select(.interface == \$i) | $1"; }

echo 'port 9/udp rate 50/s window 10s buckets 2 per-source' >"$dir/rules"
check "load with 2-bucket windows" "$XRL" load $IF --config "$dir/rules"
expect_eq "the rings hold 2 buckets" "$(st .max_buckets)" 2
expect_eq "a key takes 168 bytes" "$(st .bytes_per_key)" 168
id0=$(st .prog_id)

# 2000 frames a second for 4 s, all within one 10 s window of port 9's rule.
recv_bg "$dir/rx" 10.236.0.1 9 7
$UDP send -n $NS 10.236.0.2 10.236.0.1 9 2000 4 >"$dir/sent" 2>&1 &
sender=$!
lab_undo "kill $sender 2>/dev/null"
# The apply comes while the window still fills, as soon as the program sees the flood: the
# replace's fill then misses the passes that follow it. Before the fill was taken again at the
# swap (xrl_carry_refresh), the window let them through once more: 510 and 518 in two runs.
traffic_on $IF
printf '%s\n' 'port 9/udp rate 50/s window 10s buckets 2 per-source' \
	'port 10/udp rate 5/s window 2s buckets 10 per-source' >"$dir/rules2"
check "apply a 10-bucket window: the rings grow in place" "$XRL" apply $IF "$dir/rules2"
expect_eq "the rings hold 10 buckets" "$(st .max_buckets)" 10
expect_eq "... a key takes 16 bytes a bucket more" "$(st .bytes_per_key)" $((168 + 8 * 16))
expect_eq "... in another program" "$([ "$(st .prog_id)" != "$id0" ] && echo new)" new
wait $sender
wait "$rx"
sent=$(cat "$dir/sent")
s=$("$XRL" -j stats $IF)
expect_range "the source sent its flood" "$sent" 6000 8000
expect_eq "the receiver got exactly one window's 500, as with no growth" "$(tail -1 "$dir/rx")" 500
expect_eq "stats says the same" "$(json '.rules[] | select(.match == "port 9/udp") | .passed' <<<"$s")" 500
expect_range "every frame sent was judged" "$(json .counters.seen <<<"$s")" "$sent" $((sent + 50))

# The new rule limits: 10 of 100 frames in its first 2 s window.
recv_bg "$dir/rx10" 10.236.0.1 10 3
$UDP send -n $NS 10.236.0.3 10.236.0.1 10 200 1 100 >/dev/null 2>&1
wait "$rx"
expect_eq "the 10-bucket rule passes its window's 10" "$(tail -1 "$dir/rx10")" 10

# The rules' counter slots grow the same way: 256 at load, then as many as the set in force and
# the next need together; port 9's rule keeps its slot and its counts.
passed9() { "$XRL" -j stats $IF | jq '.rules[] | select(.match == "port 9/udp") | .passed'; }
{
	cat "$dir/rules2"
	for p in $(seq 1000 1299); do echo "port $p/udp rate 100/s"; done
} >"$dir/rules300"
check "apply 302 rules: the counter slots grow in place" "$XRL" apply $IF "$dir/rules300"
expect_eq "... all in force" "$("$XRL" -j stats $IF | jq '.rules | length')" 302
expect_eq "... port 9's rule kept its counts" "$(passed9)" 500
{
	cat "$dir/rules2"
	for p in $(seq 2000 2299); do echo "port $p/udp rate 100/s"; done
} >"$dir/rules300b"
check "apply 302 others (604 slots while they swap): they grow again" "$XRL" apply $IF "$dir/rules300b"
expect_eq "... all in force" "$("$XRL" -j stats $IF | jq '.rules | length')" 302
expect_eq "... port 9's rule kept its counts" "$(passed9)" 500
check "apply the 2 rules again" "$XRL" apply $IF "$dir/rules2"

check "rule add of a 16-bucket window grows them once more" "$XRL" rule add $IF port 11/udp rate 16/s window 16s buckets 16
expect_eq "the rings hold 16 buckets" "$(st .max_buckets)" 16
expect_eq "... the rules are all there" "$("$XRL" -j stats $IF | jq '.rules | length')" 3
check "rule add of Sentinel's minute window (60 buckets): the rings grow long" "$XRL" rule add $IF port 12/udp rate 6000/min window 60s buckets 60
expect_eq "the rings hold 60 buckets" "$(st .max_buckets)" 60
expect_eq "... port 9's rule kept its counts" "$(passed9)" 500
expect_eq "... the rules are all there" "$("$XRL" -j stats $IF | jq '.rules | length')" 4
# A key's window read from long rings, whose base follows the cells: explain and stats --top
# read it whole (they read it into a struct xrl_state, 32 bytes short, and crashed).
$UDP send -n $NS 10.236.0.3 10.236.0.1 10 200 1 100 >/dev/null 2>&1
e=$("$XRL" -j explain $IF --src 10.236.0.3 --dport 10/udp)
expect_eq "explain reads a key's window from long rings" "$(json '.rules[0].window_passed' <<<"$e")" 10
expect_eq "stats --top reads the keys of long rings" \
	"$("$XRL" -j stats $IF --top 5 | jq '[.top[] | select(.port == "10/udp")] | length')" 1
finish
