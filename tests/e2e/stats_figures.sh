#!/usr/bin/env bash
# The figures a person reads, under real traffic: the rate over the last whole interval that has
# ended reads what a steady sender sends (Sentinel's QPS, with its partly elapsed bucket, reads
# less right after a boundary), a source held at its limit reads its limit passed in every
# reading, for windows of 2, 4 and 10 buckets (it passes a window's worth at once, then nothing:
# a part of an interval reads 0 or twice the truth by turns), and per-source keys show the prefix
# their rule counts them by.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-f
lab_prologue stats_figures $NS xrlf0 xrlf1 10.220.0 fd00:220
check "load" "$XRL" load xrlf0
printf '%s\n' "port 7100/udp rate 100/s window 1s buckets 2 per-source" \
	"port 7101/udp rate 100/s window 1s buckets 4 per-source" \
	"port 7102/udp rate 100/s window 2s buckets 10 per-source" \
	"prefix fd00:220::/48 rate 1000/s per-source" \
	"prefix 10.220.0.0/24 rate 1000/s per-source mask 30" >"$dir/rules"
check "apply" "$XRL" apply xrlf0 "$dir/rules"

# .2 steady at 400/s to the limited port; the IPv6 and .4 sources to another port. For 12 s: every
# reading falls while they send, even when each takes long (under the sanitizers).
$UDP send -n $NS 10.220.0.2 10.220.0.1 7100 400 12 >"$dir/sent" &
$UDP send -n $NS fd00:220::2 fd00:220::1 7200 100 12 >/dev/null &
$UDP send -n $NS 10.220.0.4 10.220.0.1 7200 100 12 >/dev/null &
$UDP send -n $NS 10.220.0.5 10.220.0.1 7101 400 12 >/dev/null &
$UDP send -n $NS 10.220.0.3 10.220.0.1 7102 1000 12 >/dev/null &
sleep 2.2 # the windows (up to 2 s) fill: the readings are rates over whole intervals
# Readings across 1.5 s: each bucket boundary (every 0.5 s) among them.
for i in $(seq 15); do
	"$XRL" -j stats xrlf0 --top 10 >"$dir/s$i.json"
	[ "$i" = 8 ] && "$XRL" stats xrlf0 --top 10 >"$dir/s8.txt" # the text, while the keys are live
	sleep 0.1
done
wait
sent=$(cat "$dir/sent")

# The last whole interval's pass/s + block/s is what .2 sends, at any moment: 400/s (the sender
# paces itself; a busy machine may hold it up by a little).
lo=100000 hi=0 qlo=100000 n=0
for i in $(seq 15); do
	r=$(jq '.top[] | select(.source == "10.220.0.2") | (.passed_rate + .blocked_rate) | round' "$dir/s$i.json")
	qps=$(jq '.top[] | select(.source == "10.220.0.2") | (.passed_qps + .blocked_qps) | round' "$dir/s$i.json")
	[ -n "$r" ] || continue
	n=$((n + 1))
	((r < lo)) && lo=$r
	((r > hi)) && hi=$r
	((qps < qlo)) && qlo=$qps
done
expect_eq "the key is among the top in every reading" "$n" 15
expect_range "the key's pass/s + block/s over the last whole interval, lowest of 15 readings" "$lo" 340 460
expect_range "... highest" "$hi" 340 460
expect_range "the sender sent 400/s for 12 s (or nearly, if held up)" "$sent" 4560 4800
# Right after a boundary Sentinel's window holds a bucket and a bit: it reads well below 400.
check "Sentinel's QPS, lowest of the readings, is well below the rate sent ($qlo < 330)" test "$qlo" -lt 330
r=$(jq '.rules[] | select(.rule | startswith("port 7100")) | (.passed_rate + .blocked_rate) | round' "$dir/s8.json")
expect_range "the rule's pass/s + block/s (one source: the same)" "$r" 340 460
expect_eq "the rule's rates span its interval, 1000 ms" \
	"$(jq '.rules[] | select(.rule | startswith("port 7100")) | .rate_span_ms' "$dir/s8.json")" 1000

# Held at 100/s: passed 100/s in every reading, the key's and its rule's, whatever the buckets
# (the rates of complete buckets read 0 or 200 by turns). Never above: the window passes no more.
# A little below when the sender fell behind just as a bucket left the window (a loaded machine,
# a sanitized build): it then sent less than the room, and the reading is what passed.
for src in 10.220.0.2:7100:2 10.220.0.5:7101:4 10.220.0.3:7102:10; do
	addr=${src%%:*} port=${src#*:} port=${port%:*}
	lo=100000 hi=0 rlo=100000 rhi=0 n=0
	for i in $(seq 15); do
		p=$(jq ".top[] | select(.source == \"$addr\") | .passed_rate | round" "$dir/s$i.json")
		r=$(jq ".rules[] | select(.rule | startswith(\"port $port/\")) | .passed_rate | round" "$dir/s$i.json")
		if [ -z "$p" ] || [ -z "$r" ]; then continue; fi
		n=$((n + 1))
		((p < lo)) && lo=$p
		((p > hi)) && hi=$p
		((r < rlo)) && rlo=$r
		((r > rhi)) && rhi=$r
	done
	expect_eq "$addr held at 100/s (${src##*:} buckets) is in every reading" "$n" 15
	expect_range "... the lowest passed/s of 15 readings" "$lo" 90 103
	expect_range "... the highest" "$hi" 97 103
	expect_range "... its rule's lowest" "$rlo" 90 103
	expect_range "... its rule's highest" "$rhi" 97 103
done

# Sources as their rules count them.
sources=$(jq -r '.top[].source' "$dir/s8.json" | sort -u | tr '\n' ' ')
check "an IPv6 per-source key shows its /64 (fd00:220::/64)" grep -qw 'fd00:220::/64' <<<"$sources"
check "an IPv4 key masked to /30 shows it (10.220.0.4/30)" grep -qw '10.220.0.4/30' <<<"$sources"
check "an unmasked IPv4 key shows the bare address (10.220.0.2)" grep -qE '(^| )10.220.0.2( |$)' <<<"$sources"
check "stats' text shows the prefix too" grep -q '^fd00:220::/64 ' "$dir/s8.txt"
check "stats' text has both figures' columns" grep -qE '^rule +pass/s +block/s +qps pass +qps block +passed +blocked$' "$dir/s8.txt"
check "stats -j conforms to the schema" sh -c \
	"python3 '$ROOT/tests/e2e/json_check.py' '$ROOT/docs/json-schema.json' stats <'$dir/s8.json'"
finish
