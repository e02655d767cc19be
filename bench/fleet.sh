#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/fleet.sh BUILD_DIR RESULTS_CSV [REPS]: the fleet row of make bench. Three
# receivers (veth labs) with the limiter, one 'rate 1000/s aggregate global' rule,
# three sync agents and a redis-server of its own on a loopback port; traffic at
# twice the limit whose demand moves between the nodes half way (1200/600/200
# packets a second, then 200/600/1200). At each sync interval (100 ms, 1000 ms),
# the most the fleet passed in one window (every node's window summed, read
# every ~100 ms) against the bound limit + rate x (interval + RTT), and the
# passes per second. Rows 'fleet,<interval>ms,<rep>,<metric>,<value>' go to
# RESULTS_CSV. Names start with xrlbf and carry this shell's pid.
set -euo pipefail

BUILD=$(cd "${1:?usage: bench/fleet.sh BUILD_DIR RESULTS_CSV [REPS]}" && pwd)
RAW=${2:?usage: bench/fleet.sh BUILD_DIR RESULTS_CSV [REPS]}
REPS=${3:-3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tools/lab.sh
. "$here/../tools/lab.sh"
CLI=$BUILD/xdp-ratelimit
UDP=$BUILD/xrl-udp
N=$(($$ % 100000))
PORT=$((17000 + $$ % 1000))
NODES=(a b c)
LIMIT=1000
PIDS=()

log() { printf '[%s] fleet: %s\n' "$(date +%T)" "$*" >&2; }
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	lab_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

command -v redis-server >/dev/null || { log "needs redis-server: run 'make deps'"; exit 1; }
lab_bpffs
dir=$(mktemp -d)
lab_undo "rm -rf $dir"
redis-server --port $PORT --bind 127.0.0.1 --save '' --appendonly no --daemonize no --dir "$dir" >"$dir/redis.log" 2>&1 &
PIDS+=($!)
lab_wait 10 sh -c "redis-cli -p $PORT ping >/dev/null 2>&1"

ifname() { echo "xrlbf$N$1"; }
for i in 0 1 2; do
	n=${NODES[i]}
	lab_clients "xrlbf$N$n" "$(ifname "$n")" "$(ifname "$n")p" "10.25$((i + 1)).0" "fd00:25$((i + 1))"
	lab_undo "$CLI unload $(ifname "$n")"
	"$CLI" load "$(ifname "$n")" >/dev/null
	"$CLI" rule add "$(ifname "$n")" port 7100/udp rate $LIMIT/s window 1s buckets 10 aggregate global >/dev/null
done

window_sum() {
	local n s=0
	for n in "${NODES[@]}"; do
		s=$((s + $("$CLI" -j stats "$(ifname "$n")" | jq '.rules[0].window_passed')))
	done
	echo $s
}
passed_sum() {
	local n s=0
	for n in "${NODES[@]}"; do s=$((s + $("$CLI" -j stats "$(ifname "$n")" | jq '.rules[0].passed'))); done
	echo $s
}

# run INTERVAL REP: one measured run.
run() {
	local interval=$1 rep=$2 i n agents=() senders=() max=0 s p0 p1 t0 t1 rtt bound
	local -A r1=([a]=1200 [b]=600 [c]=200) r2=([a]=200 [b]=600 [c]=1200)

	log "interval $interval ms, run $rep"
	for n in "${NODES[@]}"; do
		"$CLI" sync --redis 127.0.0.1:$PORT --node "n$n" --interval "$interval" "$(ifname "$n")" >/dev/null 2>&1 &
		agents+=($!)
		PIDS+=($!)
	done
	lab_wait 10 sh -c "$CLI -j stats $(ifname c) | jq -e '.rules[0].fleet.nodes == 3' >/dev/null"
	for i in 0 1 2; do
		n=${NODES[i]}
		(
			"$UDP" send -n "xrlbf$N$n" "10.25$((i + 1)).0.2" "10.25$((i + 1)).0.1" 7100 "${r1[$n]}" 4 >/dev/null
			"$UDP" send -n "xrlbf$N$n" "10.25$((i + 1)).0.2" "10.25$((i + 1)).0.1" 7100 "${r2[$n]}" 4 >/dev/null
		) &
		senders+=($!)
		PIDS+=($!)
	done
	sleep 1.5 # the windows fill
	p0=$(passed_sum)
	t0=$(date +%s%3N)
	while [ $(($(date +%s%3N) - t0)) -lt 6000 ]; do
		s=$(window_sum)
		((s > max)) && max=$s
		sleep 0.05
	done
	t1=$(date +%s%3N)
	p1=$(passed_sum)
	wait "${senders[@]}"
	kill "${agents[@]}" 2>/dev/null || true
	wait "${agents[@]}" 2>/dev/null || true
	# The RTT: the most of 100 round trips to the redis-server, in ms (at least 1).
	rtt=$(redis-cli -p $PORT --latency --raw -i 1 | awk '{ print ($2 < 1 ? 1 : $2) }')
	bound=$((LIMIT + LIMIT * (interval + rtt) / 1000))
	{
		echo "fleet,${interval}ms,$rep,max_window,$max"
		echo "fleet,${interval}ms,$rep,bound,$bound"
		echo "fleet,${interval}ms,$rep,overshoot_ratio,$(awk -v m="$max" -v l=$LIMIT 'BEGIN { printf "%.4f", m / l }')"
		echo "fleet,${interval}ms,$rep,passed_per_s,$(((p1 - p0) * 1000 / (t1 - t0)))"
	} >>"$RAW"
	log "most in one window $max (bound $bound), $(((p1 - p0) * 1000 / (t1 - t0))) passed a second"
	sleep 1.2 # the windows empty before the next run
}

for rep in $(seq 1 "$REPS"); do
	for interval in 100 1000; do run "$interval" "$rep"; done
done
