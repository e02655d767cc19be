#!/usr/bin/env bash
# A program specialised to its rule set: load builds one that carries only what the set uses
# (status shows its features), and apply swaps in another, in place, when a set needs other
# features. Under a flood from one source against 'rate 50/s window 10s', apply adds a prefix
# rule and a protocol rule (a swap: the prefix rule then holds another source to its limit),
# applies the same set again (no swap), then goes back to the port rule alone (a swap): the
# flood's receiver gets exactly the 500 frames one window allows, every frame was judged (the
# program saw all the sender sent), the rule's counters went on across the swaps, and the
# program id changed only when the features did. A set that shares no feature with the
# running one takes two swaps (one carrying both for the flip, then the new set's own).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-sp
IF=xrlsp0
lab_prologue specialise $NS $IF xrlsp1 10.239.0 fd00:239

prog_id() { "$XRL" -j status | jq -r --arg i "$1" '.interfaces[] | select(.interface == $i) | .prog_id'; }
features() { "$XRL" -j status | jq -c --arg i "$1" '.interfaces[] | select(.interface == $i) | .features'; }
swaps() { jq -r '"\(.program_swaps) \(.features | join(","))"' <<<"$1"; }

check "load with no rules" "$XRL" load $IF
expect_eq "an empty instance carries nothing" "$(features $IF)" '[]'
expect_err "status says what the program carries" 0 "carries: none" "$XRL" status
check "unload" "$XRL" unload $IF

echo 'port 9/udp rate 50/s window 10s buckets 10 per-source' >"$dir/ports"
{
	cat "$dir/ports"
	echo 'prefix 10.239.0.3/32 rate 2/s window 10s per-source'
	echo 'proto icmp rate 1/s'
} >"$dir/three"
check "load --config with a port rule" "$XRL" load $IF --config "$dir/ports"
expect_eq "the program carries port rules only" "$(features $IF)" '["ports"]'
id0=$(prog_id $IF)

# The flood: 2000 frames a second for 6 s, all within one 10 s window.
recv_bg "$dir/rx" 10.239.0.1 9 9
rx9=$rx
$UDP send -n $NS 10.239.0.2 10.239.0.1 9 2000 6 >"$dir/sent" 2>&1 &
sender=$!
lab_undo "kill $sender 2>/dev/null"
traffic_on $IF

out=$("$XRL" -j apply $IF "$dir/three")
expect_eq "apply adding prefix and protocol rules swaps one program in, carrying them" "$(swaps "$out")" \
	"1 ports,prefixes,protos"
id1=$(prog_id $IF)
expect_eq "... another program" "$([ "$id1" != "$id0" ] && echo new)" new
expect_eq "... which apply names" "$(json .prog_id <<<"$out")" "$id1"
expect_eq "... and status too" "$(features $IF)" '["ports","prefixes","protos"]'
# The prefix rule is judged by the new program: 200 frames from .3, 20 pass.
recv_bg "$dir/rx3" 10.239.0.1 10 1
$UDP send -n $NS 10.239.0.3 10.239.0.1 10 1000 1 200 >/dev/null 2>&1
wait "$rx"
expect_eq "... the prefix rule holds its source to 20 a window" "$(tail -1 "$dir/rx3")" 20

out=$("$XRL" -j apply $IF "$dir/three")
expect_eq "the same features again: no swap" "$(swaps "$out")" "0 ports,prefixes,protos"
expect_eq "... the same program" "$(prog_id $IF)" "$id1"

expect_err "back to the port rule alone swaps one program in, and says so" 0 \
	"1 rule in force; the program now carries ports \(swapped in place, program [0-9]+\)" \
	"$XRL" apply $IF "$dir/ports"
id2=$(prog_id $IF)
expect_eq "... another program again" "$([ "$id2" != "$id1" ] && [ "$id2" != "$id0" ] && echo new)" new
expect_eq "... carrying port rules only" "$(features $IF)" '["ports"]'

wait $sender
wait "$rx9"
sent=$(cat "$dir/sent")
st=$("$XRL" -j stats $IF)
expect_range "the source sent its flood" "$sent" 8000 12000
expect_eq "the receiver got exactly one window's 500, as with no swap" "$(tail -1 "$dir/rx")" 500
expect_eq "the port rule's counters went on across the swaps: passed" "$(json '.rules[0].passed' <<<"$st")" 500
expect_eq "... and blocked" "$(json '.rules[0].blocked' <<<"$st")" $((sent - 500))
# The lab's own frames (neighbour discovery) are seen too, and .3's 200: at least all that, a few more.
expect_range "every frame sent was judged" "$(json .counters.seen <<<"$st")" $((sent + 200)) $((sent + 250))

# A set with none of the running one's features: a program carrying both for the flip, then its own.
out=$(echo 'prefix 10.239.0.0/24 rate 5/s' | "$XRL" -j apply $IF -)
expect_eq "a set sharing no feature takes two swaps" "$(swaps "$out")" "2 prefixes"
expect_eq "... and status agrees" "$(features $IF)" '["prefixes"]'
out=$(echo 'prefix 10.239.0.0/24 rate 5/s rate 1MB/s' | "$XRL" -j apply $IF -)
expect_eq "a byte rate is a feature of its own" "$(swaps "$out")" "1 prefixes,bytes"

# Every feature, on demand (XDP_RATELIMIT_FEATURES=all: the bench's side-by-side), for a load too.
out=$(echo 'port 9/udp rate 5/s' | XDP_RATELIMIT_FEATURES=all "$XRL" -j apply $IF -)
expect_eq "XDP_RATELIMIT_FEATURES=all carries every feature" "$(swaps "$out")" \
	"1 ports,prefixes,protos,dsts,port-dsts,bytes,warmup,global,match,windows"
check "unload" "$XRL" unload $IF
check "load --config with every feature" env XDP_RATELIMIT_FEATURES=all "$XRL" load $IF --config "$dir/ports"
expect_eq "... carries them all" "$(features $IF | jq length)" 10
expect_eq "load -j on it says what the program carries now" \
	"$("$XRL" -j load $IF --config "$dir/ports" | jq -c .features)" '["ports"]'
expect_eq "... and so does status" "$(features $IF)" '["ports"]'
finish
