#!/usr/bin/env bash
# What the limiter costs on a live server, from the kernel's own statistics: 'status --cost 2'
# under 2000 frames a second turns them on for 2 s and shows the run time a packet and the
# packets a second that stats counts meanwhile; with them off, status says so and how to turn
# them on; with the sysctl on, status shows the run time since. The sysctl is left as it was.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
NS=xrle-lc
IF=xrllc0
lab_prologue live_cost $NS $IF xrllc1 10.238.0 fd00:238
if [ ! -e /proc/sys/kernel/bpf_stats_enabled ]; then
	skip live_cost "the kernel has no kernel.bpf_stats_enabled"
	exit 0
fi
was=$(cat /proc/sys/kernel/bpf_stats_enabled)
lab_undo "sysctl -qw kernel.bpf_stats_enabled=$was"
sysctl -qw kernel.bpf_stats_enabled=0
cost() { "$XRL" -j status "$@" | jq -c --arg i $IF '.interfaces[] | select(.interface == $i) | .cost'; }

check "load, with a rule" "$XRL" load $IF
check "... a rule" "$XRL" rule add $IF port 9/udp rate 100/s per-source
expect_err "with the statistics off, status says how to turn them on" 0 \
	"not counted \(kernel.bpf_stats_enabled is 0\): 'xdp-ratelimit status --cost 5'" "$XRL" status
expect_eq "... and -j has no figure" "$(cost | jq -c '[.stats_on, .ns_per_packet]')" '[false,null]'

$UDP send -n $NS 10.238.0.2 10.238.0.1 9 2000 4 >/dev/null 2>&1 &
sender=$!
lab_undo "kill $sender 2>/dev/null"
# Against what the program counted meanwhile, not the 2000/s asked of a sender that a busy
# machine may start late or hold up; traffic waited for, not slept for.
seen() { "$XRL" -j stats $IF | jq .counters.seen; }
traffic_on $IF
s0=$(seen) t0=$(date +%s%N)
c=$(cost --cost 2)
rate=$((($(seen) - s0) * 1000000000 / ($(date +%s%N) - t0)))
expect_range "status --cost 2: packets a second, as stats counted them meanwhile ($rate/s)" \
	"$(jq '.packets_per_second | round' <<<"$c")" $((rate * 3 / 4 + 1)) $((rate * 5 / 4))
expect_range "... ns a packet, measured" "$(jq '.ns_per_packet | round' <<<"$c")" 1 100000
expect_eq "... over 2 s" "$(jq .seconds <<<"$c")" 2
expect_eq "... and the statistics are off again" "$(cat /proc/sys/kernel/bpf_stats_enabled)" 0
expect_err "... in text too" 0 "cost: [0-9]+ ns a packet, [0-9]+ packets a second over 1 s" "$XRL" status --cost 1
wait $sender
sysctl -qw kernel.bpf_stats_enabled=1
$UDP send -n $NS 10.238.0.2 10.238.0.1 9 1000 1 200 >/dev/null 2>&1
expect_range "with the sysctl on, status counts since: packets" "$(cost | jq .packets)" 200 10000
expect_err "... in text" 0 "cost: [0-9]+ ns a packet over the [0-9]+ packets since" "$XRL" status
expect_err "status --cost 0 is a usage error" 2 "cost" "$XRL" status --cost 0
finish
