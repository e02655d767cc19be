#!/usr/bin/env bash
# A million distinct sources into a per-source rule whose table holds 4096 keys, with a
# heavy source tracked before the flood. The table's memory stays as loaded, the heavy
# source stays tracked and limited, new states are created at the capped rate, and the
# flood passes no more than the overflow window allows (plus one frame per state created).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
needs_root source_flood
if [ ! -x "$BUILD/xrl-trafficgen" ]; then skip source_flood "build/xrl-trafficgen is not built"; exit 0; fi
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
lab_undo lab_down
lab_up >/dev/null

KEYS=4096 NEW=2000 RATE=100 FLOOD=1000000
check "load with a small table and a creation cap" \
	in_r "$XRL" load "$IF_R" --max-keys $KEYS --new-keys $NEW
# Before the namespace goes (undone first): the instance is keyed by it, and would be left 'gone'.
lab_undo "in_r $XRL unload $IF_R"
in_r "$XRL" rule add "$IF_R" prefix 10.0.0.0/8 rate $RATE/s per-source >/dev/null
status() { in_r "$XRL" -j status | json ".interfaces[] | select(.interface==\"$IF_R\") | .$1"; }
mem0=$(status memory_bytes)
tmp=$(mktemp -d); lab_undo "rm -rf $tmp"

# The heavy source: 2000/s from 10.255.0.1 for 7 s, tracked a second before the flood.
# (Not through tg: only one generator at a time can hold the lab's dispatcher interface.)
"$TG" --netns "$NS_G" -i "$IF_G" --dst-mac "$RX_MAC" --src 10.255.0.1 -s 1 -r 2000 -d 7 -c 0 -j \
	>"$tmp/heavy" 2>"$tmp/heavy.err" &
heavy=$!
sleep 1
t0=$(date +%s%N)
tg --src 10.1.0.0 -s $FLOOD -n $FLOOD -r 500000 -c 1 -j >"$tmp/flood" 2>"$tmp/flood.err" &
flood=$!
sleep 1
e=$(in_r "$XRL" -j explain "$IF_R" --src 10.255.0.1)
expect_eq "during the flood the heavy source is still tracked" "$(echo "$e" | json '.rules[0].tracked')" true
expect_range "during the flood the heavy source's window is at most its limit" \
	"$(echo "$e" | json '.rules[0].window_passed')" 1 $RATE
expect_range "during the flood the table stays within --max-keys" "$(status keys_tracked)" 1 $KEYS
wait $flood
t1=$(date +%s%N)
wait $heavy
secs=$(( (t1 - t0 + 999999999) / 1000000000 ))
sent=$(json .sent <"$tmp/flood" 2>/dev/null)
[ -n "$sent" ] || cat "$tmp/flood.err"
expect_eq "the generator sent a million distinct sources" "$sent" $FLOOD

s=$(in_r "$XRL" -j stats "$IF_R")
new=$(echo "$s" | json .counters.keys_new)
over=$(echo "$s" | json .counters.overflow)
pass=$(echo "$s" | json '.rules[0].passed')
seen=$(echo "$s" | json .counters.seen)
heavy_sent=$(json .sent <"$tmp/heavy")
# The heavy source's limit is only put to the test if it sent far above it.
expect_range "the heavy source sent 2000/s, 20x its limit" "$heavy_sent" 9000 14100
echo "# flood of $sent sources in ${secs}s: $new states created, $over packets in the overflow window, $pass passed of $seen seen"
expect_range "states are created at the capped rate" "$new" 1 $(( NEW * (secs + 2) + 2 ))
expect_range "new sources past the cap share the overflow window" "$over" $(( sent / 2 )) "$sent"
# Allowed: the heavy source's windows over 7 s, the overflow window over the flood, and the
# first frame of each state created (each fake source sends one).
max=$(( RATE * 8 + RATE * (secs + 2) + new + 2 ))
expect_range "the flood passes no more than the windows allow" "$pass" 1 $max
expect_eq "memory is what status reported before the flood" "$(status memory_bytes)" "$mem0"
expect_range "no frame lost between generator and receiver" "$seen" $(( (sent + heavy_sent) * 99 / 100 )) $(( sent + heavy_sent + 100 ))
finish
