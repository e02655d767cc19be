#!/usr/bin/env bash
# A byte rate end to end: a bulk UDP sender of 1042-byte frames (1000 bytes of payload) at about
# three times 'rate 1MB/s' over a veth into the interface the CLI loaded the limiter on. The
# receiver's byte count over the run stays within what the window admits, the window never
# holds more than its threshold, stats' passed equals the receiver's count, and the bytes stats
# and metrics count are the frames' lengths as XDP sees them. Then the grammar's refusals (exit
# 2, naming the fix) and dump | apply with byte rates and warm-up.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrlb8-a H=xrlb80 P=xrlb81
lab_prologue byte_rate $NS $H $P 10.248.0 fd00:248
check "load attaches natively" "$XRL" load $H

T=1000000   # 1MB/s over a 1s window: bytes a window
FRAME=1042  # 14 Ethernet + 20 IPv4 + 8 UDP + 1000 payload: what XDP sees (data_end - data)
SECS=3
cat >"$dir/rules" <<'R'
port 7200/udp rate 1MB/s window 1s buckets 10 aggregate
port 7201/udp rate 500/s rate 100KB/s window 1s buckets 10 per-source warmup 30s
R
check "apply byte-rate rules" "$XRL" apply $H "$dir/rules"
expect_eq "dump prints them in the grammar" "$($XRL dump $H)" "port 7200/udp rate 1MB/s window 1s buckets 10 aggregate
port 7201/udp rate 500/s rate 100KB/s window 1s buckets 10 per-source warmup 30s"
dump=$($XRL dump $H)
check "dump | apply" sh -c "$XRL dump $H | $XRL apply $H -"
expect_eq "dump | apply round-trips" "$($XRL dump $H)" "$dump"
expect_eq "dump -j: the byte threshold" "$($XRL -j dump $H | json '.rules[0].byte_threshold')" $T

# The bulk sender: 3000 frames a second for SECS seconds, about 3.1 MB/s.
recv_bg "$dir/recv" 10.248.0.1 7200 $((SECS + 2))
$UDP send -n $NS -s 1000 10.248.0.2 10.248.0.1 7200 3000 $SECS >"$dir/sent" &
sender=$!
# While it runs the window is full or filling: never over its threshold.
max=0 samples=0
while kill -0 $sender 2>/dev/null; do
	w=$($XRL -j explain $H --src 10.248.0.2 --dport 7200/udp --size $FRAME |
		json '.rules[] | select(.match == "port 7200/udp") | .bytes_window_passed')
	if [ -n "$w" ] && [ "$w" != null ]; then
		samples=$((samples + 1))
		[ "$w" -gt "$max" ] && max=$w
	fi
	sleep 0.05
done
wait $sender
wait $rx
sent=$(cat "$dir/sent")
received=$(tail -1 "$dir/recv")
rbytes=$((received * FRAME))
expect_range "explain sampled the byte window during the run" "$samples" 5 1000
expect_range "the byte window never held more than its threshold (largest sample)" "$max" 1 $T
# Any window of 1s admits at most T: a run of SECS seconds spans at most SECS + 1 of them (its
# first and last partly). The sender offers three times T a second, so every window from the
# first refusal on is full but for less than a frame: at least SECS - 1 windows' worth.
expect_range "the receiver's bytes are within the window's bound" "$rbytes" $(((SECS - 1) * (T - FRAME))) $(((SECS + 1) * T))
stats=$($XRL -j stats $H)
rule() { echo "$stats" | json ".rules[] | select(.match == \"port 7200/udp\") | .$1"; }
expect_eq "stats: passed equals the receiver's count" "$(rule passed)" "$received"
expect_eq "stats: passed bytes are the frames' lengths as XDP sees them" "$(rule passed_bytes)" "$rbytes"
expect_eq "stats: blocked bytes likewise" "$(rule blocked_bytes)" "$(($(rule blocked) * FRAME))"
expect_range "every frame sent was judged: passed + blocked" "$(($(rule passed) + $(rule blocked)))" $((sent - 5)) "$sent"
expect_range "the limiter blocked most of the flood" "$(rule blocked)" $((sent / 2)) "$sent"
metric=$($XRL metrics $H | grep '^xdp_ratelimit_rule_passed_bytes_total{.*port 7200/udp' | awk '{print $NF}')
expect_eq "metrics: xdp_ratelimit_rule_passed_bytes_total is stats' passed bytes" "$metric" "$rbytes"

# Both rates on one rule, per source, warming up from a third (30s: the whole run is cold).
# Small frames (74 bytes) hit the packet rate: 500/s / 3 = 166 a window; large ones the byte
# rate: 100KB/s / 3 = 33333 bytes, 31 frames of 1042 a window.
e=$($XRL -j explain $H --src 10.248.0.3 --dport 7201/udp --size $FRAME)
expect_eq "explain: a new source starts at a third of the packet rate" \
	"$(echo "$e" | json '.rules[0].threshold_now')" 166
expect_eq "explain: and at a third of the byte rate" "$(echo "$e" | json '.rules[0].byte_threshold_now')" 33333
recv_bg "$dir/recv2" 10.248.0.1 7201 2
$UDP send -n $NS -s 1000 10.248.0.3 10.248.0.1 7201 400 0.5 >/dev/null
# At once, while the half second sent is still in the 1s window. The largest frame: the ramp
# may have climbed a little since the last refusal, never by 1514 bytes in this time.
e=$($XRL -j explain $H --src 10.248.0.3 --dport 7201/udp --size 1514)
wait $rx
big=$(tail -1 "$dir/recv2")
# 31 frames fit in 33333 bytes; the ramp adds 66667 * t / 30s, about 1100 bytes in the run.
expect_range "large frames: the byte rate binds, at a third of 100KB a window and climbing" "$big" 31 34
expect_eq "explain: the byte window holds what passed" "$(echo "$e" | json '.rules[0].bytes_window_passed')" $((big * FRAME))
expect_eq "explain: the packet window holds the same packets (no pass left behind)" \
	"$(echo "$e" | json '.rules[0].window_passed')" "$big"
expect_eq "explain: the next large frame is blocked by the byte rate" "$(echo "$e" | json .why)" \
	"over the byte limit of 'port 7201/udp rate 500/s rate 100KB/s window 1s buckets 10 per-source warmup 30s'"

# The grammar's refusals: exit 2, naming the problem and the fix; nothing changed.
before=$($XRL dump $H)
expect_err "a unit read as bits by some and bytes by others is refused" 2 "'Mbps' is not a unit.*Mbit.*MB" \
	"$XRL" rule add $H port 7300/udp rate 10Mbps
expect_err "warmup 0s is refused" 2 "warmup '0s' is zero: leave 'warmup' out" \
	"$XRL" rule add $H port 7300/udp rate 10/s warmup 0s
expect_err "a warmup over an hour is refused" 2 "a warmup lasts at most 1h" \
	"$XRL" rule add $H port 7300/udp rate 10/s warmup 2h
expect_err "a byte threshold a window cannot count is refused" 2 "more than 4294967295 bytes a window.*shorter window" \
	"$XRL" rule add $H port 7300/udp rate 100Gbit/s
expect_err "apply --check refuses it too" 2 "'Mbps' is not a unit" \
	sh -c "echo 'port 7300/udp rate 10Mbps' | $XRL apply --check $H -"
expect_eq "nothing was applied" "$($XRL dump $H)" "$before"
finish
