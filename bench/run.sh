#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/run.sh [BUILD_DIR]           the benchmark (make bench): packet rate,
#                                    per-packet cost and accuracy of
#                                    xdp-ratelimit next to bare XDP, nftables
#                                    and iptables; a table on stdout, results
#                                    and a chart in BUILD_DIR/bench/
# bench/run.sh --smoke [BUILD_DIR]   a few seconds: the rig delivers frames and
#                                    the counters at both ends add up (make test)
#
# Environment: XRLB_SECONDS (per rate run, default 2), XRLB_REPS (runs of each
# rate and cost row, default 5), XRLB_ACC_REPS (runs of each accuracy and
# window-boundary and fleet row, default 3), XRL_ACC_SECONDS (measured span of the
# accuracy flood, default 10), XRLB_ONLY=sketch (only the rows of the sketch
# and those it is measured against: about 2 minutes), XRLB_ONLY=proto (only the
# protocol rules' rows, several rules a packet, and those they are measured against: about a minute),
# XRLB_ONLY=dst (only the dst rules' rows and those they are measured against:
# about a minute), XRLB_ONLY=bytes (only the byte-rate and warm-up rows and those
# they are measured against), XRLB_ONLY=upgrade (only the upgrade rows: about a minute),
# XRLB_ONLY=special (only the specialised program's rows and those they are measured against).
# XRLB_ONLY=sets (only the named sets' rows and those they are measured against: about 2 minutes).
# XRLB_ONLY=capture (only the capture rows, off against on: about a minute).
# XRLB_ONLY=floor (only the floors of a table of states and the 100k rows: about 2 minutes).
# XRLB_ONLY=match (only the rules of several fields' rows: 1000 of six fields, 16,384 applied
# under a flood, and what they are measured against: about 2 minutes).
# XRLB_ONLY=windows (only the long windows' rows, 60 buckets, and those they are measured against).
# XRLB_ONLY=rates (only the rows of rules of several windows, and those they are measured against).
# XRLB_ONLY=classifiers (only issue 34's classifiers side by side, bench/classifiers.sh: about a minute).
# XRLB_ONLY=latch (only the rows of many sources over, 256 and 5000, and those they are measured against).
# The defaults take about
# 15 minutes on 2 CPUs.
# Needs root. Everything it creates is named xrlb* and removed on exit.
set -Eeuo pipefail
# The rows asked for, before waiting for the lab.
case ${XRLB_ONLY:-} in
'' | sketch | proto | dst | bytes | upgrade | special | sets | capture | floor | match | windows | rates | classifiers | latch) ;;
*)
	echo "bench: XRLB_ONLY=$XRLB_ONLY names no rows: give sketch, proto, dst, bytes, upgrade, special, sets, capture, floor, match, windows, rates, classifiers or latch" >&2
	exit 2
	;;
esac
# One lab user at a time (tests/e2e/lib.sh): no test's traffic in the bench's figures.
if [ -z "${XRL_LAB_LOCKED:-}" ]; then
	export XRL_LAB_LOCKED=1
	exec flock -o /tmp/xrl-lab.lock "$BASH" "$0" "$@"
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mode=full
if [ "${1:-}" = --smoke ]; then
	mode=smoke
	shift
fi
BUILD=${1:-$here/../build}

# Results go to the stdout we started with, whatever a failing command redirected.
exec 3>&1
reported=0
failed_at=

smoke_result() { # PASS|FAIL|SKIP [why]
	reported=1
	echo "$1: bench smoke${2:+: $2}" >&3
	if [ "$1" = FAIL ]; then
		exit 1
	fi
	exit 0
}

if [ "$(id -u)" -ne 0 ]; then
	[ $mode = smoke ] && smoke_result SKIP "needs root (network namespaces, XDP, BPF_PROG_TEST_RUN)"
	echo "bench: needs root: run 'sudo make bench'" >&2
	exit 1
fi
# The classifiers by test run alone (no lab, no traffic): bench/classifiers.sh.
if [ $mode = full ] && [ "${XRLB_ONLY:-}" = classifiers ]; then
	mkdir -p "$BUILD/bench"
	"$here/classifiers.sh" "$BUILD"
	exit 0
fi
for c in jq ethtool nsenter bpftool; do
	if ! command -v $c >/dev/null; then
		[ $mode = smoke ] && smoke_result SKIP "needs $c: run 'make deps'"
		echo "bench: needs $c: run 'make deps'" >&2
		exit 1
	fi
done
for f in xrl-trafficgen xdp_bare.bpf.o xdp_floor.bpf.o; do
	if [ ! -e "$BUILD/$f" ]; then
		[ $mode = smoke ] && smoke_result FAIL "$BUILD/$f is missing: run make first"
		echo "bench: $BUILD/$f is missing: run make first" >&2
		exit 1
	fi
done
BUILD=$(cd "$BUILD" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

# The first command that failed, then cleanup and a FAIL line on the way out.
on_exit() {
	local rc=$?

	trap - ERR
	lab_down
	if [ $rc -ne 0 ] && [ $reported = 0 ]; then
		if [ $mode = smoke ]; then
			echo "FAIL: bench smoke: ${failed_at:-exit status $rc}" >&3
		else
			echo "bench: failed: ${failed_at:-exit status $rc}" >&2
		fi
	fi
	exit $rc
}
trap '[ -n "$failed_at" ] || failed_at="${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND (in ${FUNCNAME[*]:-main})"' ERR
trap on_exit EXIT
trap 'exit 130' INT TERM

SECS=${XRLB_SECONDS:-2}
REPS=${XRLB_REPS:-5}
ACC_REPS=${XRLB_ACC_REPS:-3}
ACC_SECS=${XRLB_ACC_SECONDS:-10}
ONLY=${XRLB_ONLY:-}
OUT=$BUILD/bench
RAW=$OUT/results.csv
RULES=$OUT/rules

# record SECTION ROW REP METRIC VALUE
record() { echo "$1,$2,$3,$4,$5" >>"$RAW"; }

# The generator's JSON: sent, and the seconds it sent for.
tg_sent() { jq -r .sent <<<"$1"; }
tg_secs() { jq -r .seconds <<<"$1"; }

# ---------------------------------------------------------------- smoke

# rx_settle S0 SENT: the receiver's counters once it has seen SENT frames since S0 (it runs
# the frames from its own NAPI, after the generator returns), or as they are after 5 s.
rx_settle() {
	local s d i

	for i in $(seq 100); do
		read -r s d < <(rx_counters)
		[ $((s - $1)) -lt "$2" ] || break
		sleep 0.05
	done
	echo "$s $d"
}

smoke() {
	# The receiver's counters pass 2^31 frames in a full run: summed, they must not stop there.
	[ "$(
		in_r() { printf 'rx_queue_0_xdp_packets: 3000000000\nrx_queue_1_xdp_packets: 5\nrx_queue_0_xdp_drops: 4294967296\n'; }
		rx_counters
	)" = "3000000005 4294967296" ] || smoke_result FAIL "rx_counters clamps counters past 2^31"
	local out sent s0 d0 s1 d1 st seen passed dropped ns

	lab_up
	if ! bare_attach drop 2>/dev/null; then
		smoke_result SKIP "this kernel does not attach XDP natively to a veth"
	fi

	read -r s0 d0 < <(rx_counters)
	if ! out=$(tg -c "$(cpu_list 1)" -n 100000 -j 2>&1); then
		if tg_refused "$out"; then
			smoke_result SKIP "BPF_PROG_TEST_RUN live frames unavailable: ${out%%$'\n'*}"
		fi
		smoke_result FAIL "generator: $out"
	fi
	sent=$(tg_sent "$out")
	read -r s1 d1 < <(rx_settle "$s0" "$sent")
	[ "$sent" -eq 100000 ] || smoke_result FAIL "generator sent $sent frames of 100000"
	[ $((s1 - s0)) -eq "$sent" ] || smoke_result FAIL "sent $sent frames, the receiver saw $((s1 - s0))"
	[ $((d1 - d0)) -eq "$sent" ] || smoke_result FAIL "XDP_DROP dropped $((d1 - d0)) of $sent"

	# Every CPU, a duration, many sources.
	read -r s0 d0 < <(rx_counters)
	out=$(tg -c "$(cpu_list all)" -d 0.3 -s 1000 -j)
	sent=$(tg_sent "$out")
	read -r s1 d1 < <(rx_settle "$s0" "$sent")
	[ "$sent" -gt 0 ] || smoke_result FAIL "nothing sent in 0.3 s on $NCPU CPUs"
	[ $((s1 - s0)) -eq "$sent" ] || smoke_result FAIL "sent $sent frames on $NCPU CPUs, the receiver saw $((s1 - s0))"

	ns=$("$TG" --cost drop -n 100000 -j | jq -r .ns)
	[ "$ns" -gt 0 ] || smoke_result FAIL "per-packet cost of bare XDP_DROP is $ns ns"
	for t in lru 1way 2way line lrux linex; do
		ns=$("$TG" --cost "prog:$PIN_BARE/floor/xdp_${t}_drop" -n 100000 -s 1000 -j | jq -r .ns)
		[ "$ns" -gt 0 ] || smoke_result FAIL "per-packet cost of the $t table's floor is $ns ns"
	done

	if [ ! -x "$CLI" ]; then
		smoke_result PASS "rig only: $CLI is not built, limiter not exercised"
	fi
	xrl_load precise
	echo "port 9/udp rate 100/s" | in_r "$CLI" apply "$IF_R" - >/dev/null
	read -r s0 d0 < <(rx_counters)
	out=$(tg -c "$(cpu_list all)" -n 200000 -s 10 -j)
	sent=$(tg_sent "$out")
	read -r s1 d1 < <(rx_settle "$s0" "$sent")
	st=$(xrl_stats)
	read -r seen passed dropped < <(jq -r '.counters | "\(.seen) \(.passed) \(.dropped)"' <<<"$st")
	[ "$seen" -eq $((s1 - s0)) ] || smoke_result FAIL "stats seen $seen, the receiver's driver ran XDP on $((s1 - s0))"
	[ "$seen" -eq "$sent" ] || smoke_result FAIL "sent $sent, the limiter saw $seen"
	[ $((passed + dropped)) -eq "$seen" ] || smoke_result FAIL "stats: passed $passed + dropped $dropped != seen $seen"
	[ "$dropped" -eq $((d1 - d0)) ] || smoke_result FAIL "stats dropped $dropped, the driver counted $((d1 - d0)) XDP drops"
	[ "$dropped" -gt 0 ] || smoke_result FAIL "10 sources at 200000 frames over a 100/s limit: nothing dropped"
	ns=$("$TG" --cost "link:$XRL_PIN/link" -n 100000 -j | jq -r .ns)
	[ "$ns" -gt 0 ] || smoke_result FAIL "per-packet cost of the limiter is $ns ns"
	xrl_unload
	smoke_result PASS "$sent frames, counters equal at both ends"
}

if [ $mode = smoke ]; then
	smoke
fi

# ---------------------------------------------------------------- full run

[ -x "$CLI" ] || { echo "bench: $CLI is missing: run make first" >&2; exit 1; }
for c in nft iptables-legacy gnuplot; do
	if ! command -v $c >/dev/null; then
		echo "bench: needs $c: run 'make deps'" >&2
		exit 1
	fi
done

mkdir -p "$OUT" "$RULES"
rm -f "$OUT/classifiers.txt"
echo "section,row,rep,metric,value" >"$RAW"
{
	echo "kernel=$(uname -r)"
	echo "cpus=$NCPU"
	echo "seconds=$SECS"
	echo "reps=$REPS"
	echo "acc_reps=$ACC_REPS"
	echo "acc_seconds=$ACC_SECS"
	echo "loadavg=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
} >"$OUT/meta.txt"

# The rules. "over": one rule, far below what any source sends (so nearly
# everything is dropped and the cost measured is the limiter's, not the
# stack's); the same limit in nftables and iptables.
OVER_RATE=1
echo "port 9/udp rate $OVER_RATE/s per-source" >"$RULES/over"
echo "port 9/udp rate 1000000000/s per-source" >"$RULES/under"
for i in $(seq 0 999); do
	echo "prefix 10.$((i / 256)).$((i % 256)).0/24 rate $OVER_RATE/s per-source"
done >"$RULES/pfx"
ACC_RATE=10000
echo "port 9/udp rate $ACC_RATE/s per-source" >"$RULES/acc"
for b in 1 2 10; do
	echo "port 9/udp rate $ACC_RATE/s window 1s buckets $b per-source" >"$RULES/straddle-b$b"
done
# The sketch: a flood of new sources past the cap on states, each under the limit (so judged and
# passed: the issue's case) or each over it (judged and dropped), and newcomers among them.
SKETCH_RATE=100
echo "port 9/udp rate $SKETCH_RATE/s per-source" >"$RULES/sketch"
echo "prefix 10.0.0.0/8 rate $SKETCH_RATE/s per-source" >"$RULES/sketch-pfx"
SKETCH_LOAD=(4096 --new-keys 2) # a small table, one new state a second per CPU
# Protocol rules (the generator sends UDP): one per-source protocol rule over, as the port rule
# of "over"; and both, each judged. A SYN meets 'proto tcp-syn' by the same one lookup.
echo "proto udp rate $OVER_RATE/s per-source" >"$RULES/proto"
# Every rule kind and feature in one set, for the verifier's walk (footprint): 2-bucket windows,
# then the same with a 16-bucket window beside them (the longest rings).
cat >"$RULES/every" <<'EOF2'
port 53/udp rate 100/s per-source
port 80/tcp rate 1000/s rate 1MB/s aggregate
port 81/tcp dst 192.0.2.0/24 rate 10/s per-source
proto tcp-syn rate 50/s per-source mask4 24
proto icmp rate 10/s per-source warmup 10s
prefix 10.0.0.0/8 rate 100/s per-source
prefix 192.168.0.0/16 allow
dst 192.0.2.10 rate 100Mbit/s aggregate
port 9/udp rate 1000/s aggregate global
EOF2
{
	cat "$RULES/every"
	echo "port 99/udp rate 5/s window 16s buckets 16"
} >"$RULES/every16"
# ... and with Sentinel's minute window, 60 buckets (long rings: issue 35).
{
	cat "$RULES/every"
	echo "port 99/udp rate 300/min window 60s buckets 60"
} >"$RULES/every60"
# Long windows (issue 35): every packet passing a 60-bucket window, against the 2-bucket "under"; and a byte
# rate passing (no lease: every packet counted in the key's ring) over 2 buckets and over 60.
echo "port 9/udp rate 4000000000/min window 60s buckets 60 per-source" >"$RULES/under60"
echo "port 9/udp rate 1GB/s per-source" >"$RULES/bytesunder"
echo "port 9/udp rate 4GB/min window 60s buckets 60 per-source" >"$RULES/bytesunder60"
# A rule of two windows (issue 35): every packet passing both (against "under", one window, and
# "under2", two rules); one source over the second (a minute's) and one over the first (against "over").
echo "port 9/udp rate 1000000000/s rate 4000000000/min per-source" >"$RULES/under-w2"
echo "port 9/udp rate 1000000000/s rate $OVER_RATE/min per-source" >"$RULES/over-w2"
echo "port 9/udp rate $OVER_RATE/s rate 4000000000/min per-source" >"$RULES/over-w2a"
printf 'port 9/udp rate %s/s per-source\nproto udp rate %s/s per-source\n' $OVER_RATE $OVER_RATE >"$RULES/portproto"
# A packet two and four rules judge, each passing it (issue 34: at most 1.5x and 2x the one rule's "under").
{
	cat "$RULES/under"
	echo "proto udp rate 1000000000/s per-source"
} >"$RULES/under2"
{
	cat "$RULES/under2"
	echo "dst 192.168.77.0/24 rate 1000000000/s per-source"
	echo "prefix 10.0.0.0/8 rate 1000000000/s per-source"
} >"$RULES/under4"
# Byte rates and warm-up, beside "over" (64-byte frames from one source): a byte rate over (64
# bytes a second: one frame, then no room, latched as "over" is); a packet rate over with a byte
# rate the packets never reach (the packet latch answers; the byte window is not asked);
# a warm-up rule climbing (never latched while it climbs) and one already warm (latched).
echo "port 9/udp rate 64B/s per-source" >"$RULES/bytes"
echo "port 9/udp rate $OVER_RATE/s rate 1GB/s per-source" >"$RULES/bothrates"
# (Each a window shape of its own: a rule that keeps its shape keeps its keys, warm or not.)
echo "port 9/udp rate 3/s window 2s per-source warmup 1h" >"$RULES/warmup"
echo "port 9/udp rate 3/s window 3s buckets 3 per-source warmup 1ms" >"$RULES/warm"
# Destination rules (the generator sends to 192.168.77.1): one per-source dst rule over, as the
# port rule of "over"; and the port rule narrowed to the destination, found in the dst trie in
# place of the port array.
echo "dst 192.168.77.1 rate $OVER_RATE/s per-source" >"$RULES/dst"
echo "port 9/udp dst 192.168.77.0/24 rate $OVER_RATE/s per-source" >"$RULES/portdst"
# Named sets: one per-source rule over a set holding the generator's source (10.0.0.0/24) among
# random /24s over the whole IPv4 space and /48s of IPv6, 1000 of them or a million (the same
# seeds: the 1000 are the million's first lines). Two million-prefix files of other seeds too,
# which an apply swaps under a flood.
for seed in 1 2 3; do
	awk -v s=$seed 'BEGIN { srand(s); print "10.0.0.0/24"
		for (i = 1; i < 1000000; i++)
			if (i % 10) printf "%d.%d.%d.0/24\n", 1 + int(rand() * 223), int(rand() * 256), int(rand() * 256)
			else printf "2001:%x:%x::/48\n", int(rand() * 65536), int(rand() * 65536) }' >"$RULES/set1m-$seed.txt"
done
head -n 1000 "$RULES/set1m-1.txt" >"$RULES/set1k.txt"
for f in set1k set1m-1 set1m-2 set1m-3; do
	printf 'set feed file %s.txt\nprefix @feed rate %s/s per-source\n' $f $OVER_RATE >"$RULES/$f"
	printf 'set feed file %s.txt\nprefix @feed rate %s/s per-source\n' $f $ACC_RATE >"$RULES/acc-$f"
done
# Rules of several fields, six each, that the generator's frames (UDP from port 40000 to 9, TTL 64,
# 64 bytes, DSCP 0) meet: one over, as the port rule of "over"; 1000 apart by their destination
# ports (9 to 1008), one met; 16,384 so (9 to 16392) at the accuracy rows' limit, twice (another
# TTL range: other rules), which an apply swaps under a flood (issue 34).
SIX="sport 40000 ttl 1-128 length 20-1500 dscp 0"
echo "proto udp dport 9 $SIX rate $OVER_RATE/s per-source" >"$RULES/match1"
seq 9 1008 | awk -v s="$SIX" -v r=$OVER_RATE '{ printf "proto udp dport %d %s rate %d/s per-source\n", $1, s, r }' \
	>"$RULES/match1k"
for t in 128 255; do
	seq 9 16392 | awk -v t=$t -v r=$ACC_RATE '{ printf "proto udp dport %d sport 40000 ttl 1-%d length 20-1500 dscp 0 rate %d/s per-source\n", $1, t, r }' \
		>"$RULES/match16k-$t"
done

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

# A flood counted at the receiver. flood_start TG-OPTIONS...: reads the receiver's counters, then
# starts the generator in the background, so that something can be done under the flood.
# flood_end waits for it and, 0.2 s later (the frames in flight), sets what the receiver's XDP saw
# since (RX_SEEN: every frame; RX_DROPPED; RX_PASSED) and what the generator says (FLOOD_SENT,
# FLOOD_SECS; FLOOD_LOST: sent, never seen). flood TG-OPTIONS...: the two with nothing between.
flood_start() {
	read -r FLOOD_S0 FLOOD_D0 < <(rx_counters)
	tg "$@" -j >"$OUT/.flood.json" &
	FLOOD_PID=$!
	LAB_PIDS+=("$FLOOD_PID")
}

flood_end() {
	local s1 d1 json p rest=()

	wait "$FLOOD_PID"
	# Its pid may be another process's from now on: never killed on the way out. What was
	# started beside it (sketch_goodput's receiver) still is, until its own wait.
	for p in "${LAB_PIDS[@]}"; do
		if [ "$p" != "$FLOOD_PID" ]; then rest+=("$p"); fi
	done
	LAB_PIDS=("${rest[@]}")
	sleep 0.2
	read -r s1 d1 < <(rx_counters)
	json=$(cat "$OUT/.flood.json")
	rm -f "$OUT/.flood.json"
	FLOOD_SENT=$(tg_sent "$json")
	FLOOD_SECS=$(tg_secs "$json")
	RX_SEEN=$((s1 - FLOOD_S0))
	RX_DROPPED=$((d1 - FLOOD_D0))
	RX_PASSED=$((RX_SEEN - RX_DROPPED))
	FLOOD_LOST=$((FLOOD_SENT - RX_SEEN))
}

flood() {
	flood_start "$@"
	flood_end
}

# rx_mpps: the millions of frames a second the receiver's XDP saw over the flood.
rx_mpps() {
	awk -v n="$RX_SEEN" -v s="$FLOOD_SECS" 'BEGIN { printf "%.4f", n / s / 1e6 }'
}

# run_ratio PASSED: what passed against what the accuracy rows' limit lets through over the flood.
run_ratio() {
	awk -v p="$1" -v r=$ACC_RATE -v s="$FLOOD_SECS" 'BEGIN { printf "%.5f", p / (r * s) }'
}

# under_flood SECTION ROW REP COMMAND...: COMMAND under the accuracy rows' flood (10x their
# per-source limit from one source, every CPU) for 6 s. Unjudged: frames sent that never met the
# limiter (the receiving veth's XDP saw them not). run_ratio: passed / the limit over the run.
under_flood() {
	local section=$1 row=$2 rep=$3

	shift 3
	flood_start -c "$(cpu_list all)" -r $((10 * ACC_RATE)) -d 6
	"$@"
	flood_end
	record "$section" "$row" "$rep" unjudged "$FLOOD_LOST"
	record "$section" "$row" "$rep" run_ratio "$(run_ratio "$RX_PASSED")"
}

# rate REP ROW CPUS SOURCES [nft|ipt]: one run of SECS after a short warm-up.
rate() {
	local rep=$1 row=$2 cpus=$3 nsrc=$4 nf=${5:-} n0=0 n1=0

	shift $(($# < 5 ? $# : 5)) # what is left: more xrl-trafficgen options
	log "rate: $row, run $rep"
	tg -c "$(cpu_list "$cpus")" -s "$nsrc" -d 0.3 "$@" >/dev/null
	if [ -n "$nf" ]; then n0=$("${nf}_dropped"); fi
	flood -c "$(cpu_list "$cpus")" -s "$nsrc" -d "$SECS" "$@"
	if [ -n "$nf" ]; then n1=$("${nf}_dropped"); fi
	record rate "$row" "$rep" sent "$FLOOD_SENT"
	record rate "$row" "$rep" seconds "$FLOOD_SECS"
	record rate "$row" "$rep" rx_seen "$RX_SEEN"
	record rate "$row" "$rep" rx_passed $((RX_PASSED - (n1 - n0)))
	record rate "$row" "$rep" rx_dropped $((RX_DROPPED + n1 - n0))
	record rate "$row" "$rep" lost "$FLOOD_LOST"
	record rate "$row" "$rep" mpps "$(rx_mpps)"
}

# cost REP ROW TARGET [xrl-trafficgen options]: ns per packet by
# BPF_PROG_TEST_RUN repeat, after a shorter warm-up run.
cost() {
	local rep=$1 row=$2 target=$3
	shift 3

	"$TG" --cost "$target" -c "$(cpu_list 1)" -n 300000 "$@" >/dev/null
	record ns "$row" "$rep" ns "$("$TG" --cost "$target" -c "$(cpu_list 1)" -n 1000000 -j "$@" | jq -r .ns)"
}

# Stats figures: the global counters and the first rule's totals.
stats_vals() {
	jq -r '"\(.counters.seen) \(.counters.passed) \(.counters.dropped) \(.rules[0].passed) \(.rules[0].blocked) \(.rules[0].passed_qps)"' <<<"$1"
}

# A flood at ten times a per-source limit, spread over every CPU. Passed
# frames are counted over a span of ACC_SECS between two instants in the
# middle of buckets (250 ms into a 500 ms bucket): a window lets a burst
# through at the start of a bucket, so counting between such instants covers
# whole buckets only and leaves out the flood's first and last moments.
accuracy() {
	local clock=$1 rep t0 ta tb sa da sb db allowed
	local st0 sta stb st1

	for rep in $(seq 1 "$ACC_REPS"); do
		log "accuracy: $clock, run $rep"
		xrl_apply "$RULES/acc"
		read -r -a st0 < <(stats_vals "$(xrl_stats)")
		t0=$("$TG" --clock-wait 1000:0)
		flood_start -c "$(cpu_list all)" -r $((10 * ACC_RATE)) -d "$((ACC_SECS + 2)).5" --at 1000:300
		ta=$("$TG" --clock-wait "500:250:$((t0 + 1500000000))")
		read -r sa da < <(rx_counters)
		read -r -a sta < <(stats_vals "$(xrl_stats)")
		tb=$("$TG" --clock-wait "500:250:$((ta + ACC_SECS * 1000000000 - 100000000))")
		read -r sb db < <(rx_counters)
		read -r -a stb < <(stats_vals "$(xrl_stats)")
		flood_end
		read -r -a st1 < <(stats_vals "$(xrl_stats)")
		allowed=$(awk -v r=$ACC_RATE -v a="$ta" -v b="$tb" 'BEGIN { printf "%.1f", r * (b - a) / 1e9 }')
		record acc "$clock" "$rep" span_seconds "$(awk -v a="$ta" -v b="$tb" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')"
		record acc "$clock" "$rep" passed $((sb - sa - (db - da)))
		record acc "$clock" "$rep" allowed "$allowed"
		record acc "$clock" "$rep" ratio "$(awk -v p=$((sb - sa - (db - da))) -v a="$allowed" 'BEGIN { printf "%.5f", p / a }')"
		record acc "$clock" "$rep" sent "$FLOOD_SENT"
		record acc "$clock" "$rep" rx_seen "$RX_SEEN"
		record acc "$clock" "$rep" rx_passed "$RX_PASSED"
		record acc "$clock" "$rep" rx_dropped "$RX_DROPPED"
		record acc "$clock" "$rep" lost "$FLOOD_LOST"
		record acc "$clock" "$rep" run_ratio "$(run_ratio "$RX_PASSED")"
		# What stats reports against the driver's counts, over the whole run.
		record acc "$clock" "$rep" stats_seen_diff $((st1[0] - st0[0] - RX_SEEN))
		record acc "$clock" "$rep" stats_passed_diff $((st1[1] - st0[1] - RX_PASSED))
		record acc "$clock" "$rep" stats_dropped_diff $((st1[2] - st0[2] - RX_DROPPED))
		record acc "$clock" "$rep" stats_rule_pass_diff $((st1[3] - st0[3] - RX_PASSED))
		record acc "$clock" "$rep" stats_rule_block_diff $((st1[4] - st0[4] - RX_DROPPED))
		# Its pass QPS at the span's ends, against the rate passed over the span.
		record acc "$clock" "$rep" stats_qps_ratio "$(awk -v a="${sta[5]}" -v b="${stb[5]}" -v r=$ACC_RATE \
			'BEGIN { printf "%.5f", (a + b) / 2 / r }')"
	done
}

# A flood at ten times the limit for the last 100 ms of a window and the first
# 100 ms of the next: a fixed window (1 bucket) lets the limit through on each
# side, a sliding one only once.
straddle() {
	local clock=$1 b rep

	for b in 1 2 10; do
		log "straddle: $clock, $b bucket(s)"
		for rep in $(seq 1 "$ACC_REPS"); do
			xrl_apply "$RULES/straddle-b$b"
			# Applying the same rule again keeps its windows: start at
			# least a window after the last run, in a window it left empty.
			sleep 1
			flood -c "$(cpu_list all)" -r $((10 * ACC_RATE)) --at 1000:900 -d 0.2
			record straddle "$clock-b$b" "$rep" passed "$RX_PASSED"
			record straddle "$clock-b$b" "$rep" ratio "$(awk -v p="$RX_PASSED" -v t=$ACC_RATE \
				'BEGIN { printf "%.4f", p / t }')"
			record straddle "$clock-b$b" "$rep" lost "$FLOOD_LOST"
		done
	done
}

# A flood of 1M distinct new sources on every CPU for SECS + 1.5 s, and inside it, from 100 ms to
# 800 ms of a second, five newcomers at 80/s each (under their 100/s limit) to a receiver of their
# own: what the newcomers keep, and the flood's rate.
sketch_goodput() {
	local rep nc rx
	for rep in $(seq 1 "$ACC_REPS"); do
		log "sketch goodput, run $rep"
		xrl_load precise "${SKETCH_LOAD[@]}"
		xrl_apply "$RULES/sketch-pfx"
		flood_start -c "$(cpu_list all)" --src 10.1.0.0 -s 1000000 -d "$((SECS + 1)).5"
		in_r "$BUILD/xrl-udp" recv 192.168.77.1 9003 "$((SECS + 3))" >"$OUT/.sk-rx" &
		LAB_PIDS+=("$!")
		sleep 0.5
		nc=$("$TG" --netns "$NS_G" -i "$IF_G" --dst-mac "$RX_MAC" --src 10.254.0.1 -s 5 -p 9003 -r 400 -d 0.7 \
			--at 1000:100 -c 0 -j | jq -r .sent)
		flood_end
		wait
		LAB_PIDS=()
		rx=$(tail -n 1 "$OUT/.sk-rx")
		record sketch goodput "$rep" newcomer_sent "$nc"
		record sketch goodput "$rep" newcomer_rx "$rx"
		record sketch goodput "$rep" newcomer_share "$(awk -v r="$rx" -v s="$nc" 'BEGIN { printf "%.4f", r / s }')"
		record sketch goodput "$rep" flood_mpps "$(rx_mpps)"
		record sketch goodput "$rep" sketch_blocked "$(xrl_stats | jq -r .counters.sketch_blocked)"
		xrl_unload
	done
	rm -f "$OUT/.sk-rx"
}

# The sketch's rows: a flood of 1M new sources past the cap, under and over their limit.
sketch_rows() {
	local rep=$1

	xrl_load precise "${SKETCH_LOAD[@]}"
	xrl_apply "$RULES/sketch"
	rate "$rep" "precise-sketch-all" all 1000000
	cost "$rep" "precise-sketch" "link:$XRL_PIN/link" -s 1000000
	xrl_apply "$RULES/over"
	rate "$rep" "precise-sketch-over-all" all 1000000
	cost "$rep" "precise-sketch-over" "link:$XRL_PIN/link" -s 1000000
	xrl_unload
}

# The byte-rate and warm-up rows, beside the port rule's "over" (one source).
bytes_rows() {
	local rep=$1 r

	xrl_load precise
	for r in bytes bothrates warmup warm; do
		xrl_apply "$RULES/$r"
		if [ $r = bytes ]; then rate "$rep" "precise-bytes-all" all 1; fi
		cost "$rep" "precise-$r" "link:$XRL_PIN/link"
	done
	xrl_unload
}

# The protocol rules' rows, beside the port rule's "over" (same limit, one source).
proto_rows() {
	local rep=$1

	xrl_load precise
	xrl_apply "$RULES/proto"
	rate "$rep" "precise-proto-all" all 1
	cost "$rep" "precise-proto" "link:$XRL_PIN/link"
	# Each set measured past its first window: the latches the set before left in their slots (the
	# protocol rule kept, its key's over latch of the rule's last generation) hold them to the end
	# of their bucket, and a packet two rules judge took the slow path until then (130 ns for 61).
	xrl_apply "$RULES/portproto"
	sleep 1.1
	cost "$rep" "precise-portproto" "link:$XRL_PIN/link"
	xrl_apply "$RULES/under2"
	sleep 1.1
	cost "$rep" "precise-under2" "link:$XRL_PIN/link"
	xrl_apply "$RULES/under4"
	sleep 1.1
	cost "$rep" "precise-under4" "link:$XRL_PIN/link"
	xrl_unload
}

# The dst rules' rows, beside the port rule's "over" (same limit, one source).
dst_rows() {
	local rep=$1

	xrl_load precise
	xrl_apply "$RULES/dst"
	rate "$rep" "precise-dst-all" all 1
	cost "$rep" "precise-dst" "link:$XRL_PIN/link"
	xrl_apply "$RULES/portdst"
	cost "$rep" "precise-portdst" "link:$XRL_PIN/link"
	xrl_unload
}

# A program specialised to its rule set against one carrying every feature (XDP_RATELIMIT_FEATURES=all),
# side by side: the same port rule, 1 source, every packet passes ("under").
special_rows() {
	local rep=$1

	xrl_load precise
	xrl_apply "$RULES/under"
	cost "$rep" "precise-under-spec" "link:$XRL_PIN/link"
	XDP_RATELIMIT_FEATURES=all xrl_apply "$RULES/under"
	cost "$rep" "precise-under-all" "link:$XRL_PIN/link"
	xrl_unload
}

# The long windows' rows (issue 35), each set on a fresh load: rings grown for a 60-bucket window stay
# long, so the 2-bucket rows are measured first, on the rings a load of them alone has.
windows_rows() {
	local rep=$1

	xrl_load precise
	if [ "$ONLY" = windows ]; then
		xrl_apply "$RULES/under"
		cost "$rep" precise-under "link:$XRL_PIN/link"
	fi
	xrl_apply "$RULES/bytesunder"
	cost "$rep" precise-bytesunder "link:$XRL_PIN/link"
	xrl_unload
	xrl_load precise
	xrl_apply "$RULES/under60"
	cost "$rep" precise-under60 "link:$XRL_PIN/link"
	xrl_apply "$RULES/bytesunder60"
	cost "$rep" precise-bytesunder60 "link:$XRL_PIN/link"
	xrl_unload
}

# The rows of rules of several windows (issue 35), each set on a fresh load (a set's windows keep
# their states across an apply): passing both, and over the second or the first.
rates_rows() {
	local rep=$1 r

	if [ "$ONLY" = rates ]; then
		for r in under under2; do
			xrl_load precise
			xrl_apply "$RULES/$r"
			cost "$rep" "precise-$r" "link:$XRL_PIN/link"
			xrl_unload
		done
	fi
	for r in under-w2 over-w2 over-w2a; do
		xrl_load precise
		xrl_apply "$RULES/$r"
		cost "$rep" "precise-$r" "link:$XRL_PIN/link"
		xrl_unload
	done
}

# What the limiter takes whatever the traffic: memory a tracked key and all maps at 256 possible
# CPUs with the defaults (xdp-ratelimit memory, the kernel's formulas), and the instructions the
# verifier walks for a set of every rule kind (status -j verified_insns), with 2-bucket windows
# with a 16-bucket one (the longest short rings) and with a 60-bucket one (long rings), against a
# port rule alone (specialised). Each set on a fresh load: rings grown for a 16-bucket window stay
# grown, so the port rule applied after it would be verified with 17-cell rings, not the 3 a load
# of it alone has.
footprint() {
	local r

	record footprint key 1 bytes "$("$CLI" -j memory | jq .bytes_per_key)"
	record footprint maps256 1 bytes "$("$CLI" -j memory --cpus 256 | jq .total_bytes)"
	for r in every every16 every60 under; do
		xrl_load precise
		xrl_apply "$RULES/$r"
		record footprint "verifier-$r" 1 insns "$(in_r "$CLI" -j status | jq --arg i "$IF_R" \
			'.interfaces[] | select(.interface == $i and .this_netns) | .verified_insns')"
		xrl_unload
	done
}

# The sets' rows, beside the port rule's "over" (same limit, one source): the per-packet cost of
# a rule over a set of 1000 prefixes and over one of a million.
sets_rows() {
	local rep=$1

	xrl_load precise 262144 --max-prefixes 1000000
	xrl_apply "$RULES/set1k"
	rate "$rep" "precise-set1k-all" all 1
	cost "$rep" "precise-set1k" "link:$XRL_PIN/link"
	xrl_apply "$RULES/set1m-1"
	rate "$rep" "precise-set1m-all" all 1
	cost "$rep" "precise-set1m" "link:$XRL_PIN/link"
	xrl_unload
}

# set_swaps REP: three applies, a second apart, of another million prefixes each; apply_s: each
# apply's seconds.
set_swaps() {
	local rep=$1 i t0

	for i in 2 3 1; do
		sleep 1
		t0=$(date +%s%N)
		xrl_apply "$RULES/acc-set1m-$i"
		record sets apply "$rep" apply_s "$(awk -v n=$(($(date +%s%N) - t0)) 'BEGIN { printf "%.3f", n / 1e9 }')"
	done
}

# A set of a million prefixes replaced by apply under a flood (under_flood), three times (set_swaps).
sets_apply() {
	local rep

	for rep in $(seq 1 "$ACC_REPS"); do
		log "sets: apply of a million prefixes under a flood, run $rep"
		xrl_load precise 262144 --max-prefixes 1000000
		xrl_apply "$RULES/acc-set1m-1"
		under_flood sets apply "$rep" set_swaps "$rep"
		xrl_unload
	done
}

# The rules of several fields' rows, beside the port rule's "over" (same limit, one source): one
# rule of six fields, and 1000 of them (a port each) with one met.
match_rows() {
	local rep=$1

	xrl_load precise
	xrl_apply "$RULES/match1"
	cost "$rep" "precise-match1" "link:$XRL_PIN/link"
	xrl_apply "$RULES/match1k"
	cost "$rep" "precise-match1k" "link:$XRL_PIN/link"
	xrl_unload
}

# match_swaps REP: 16,384 rules of six fields applied over a port rule (the maps grown: the program
# swapped), then 16,384 others over them (the maps as they are); each apply's seconds.
match_swaps() {
	local rep=$1 t row

	for row in grow:match16k-128 again:match16k-255; do
		sleep 1
		t=$(date +%s%N)
		xrl_apply "$RULES/${row#*:}"
		record match apply "$rep" "${row%%:*}_s" "$(awk -v n=$(($(date +%s%N) - t)) 'BEGIN { printf "%.3f", n / 1e9 }')"
	done
}

# 16,384 rules of six fields applied under a flood (under_flood), twice (match_swaps).
match_apply() {
	local rep

	for rep in $(seq 1 "$ACC_REPS"); do
		log "match: apply of 16,384 rules of six fields under a flood, run $rep"
		xrl_load precise
		xrl_apply "$RULES/acc"
		under_flood match apply "$rep" match_swaps "$rep"
		xrl_unload
	done
}

# What a capture costs the data path: 1 source over its limit on every CPU, with no capture running
# (the flag off: one array lookup and one load a frame), then with one running on the dropped frames
# at its default budget (1000 a second a CPU: past it, frames are counted and not copied), written to
# /dev/null; the cost rows by test run, the rate rows on the rig, off and on side by side.
capture_rows() {
	local rep=$1 pid

	xrl_load precise
	xrl_apply "$RULES/over"
	rate "$rep" "precise-capoff-all" all 1
	cost "$rep" "precise-capoff" "link:$XRL_PIN/link"
	# nsenter execs the command: $! is the capture itself, which the TERM below ends.
	nsenter --net="/var/run/netns/$NS_R" "$CLI" capture "$IF_R" -w /dev/null 2>"$OUT/.capture.err" &
	pid=$!
	LAB_PIDS+=("$pid")
	lab_wait 10 grep -qs '^capturing' "$OUT/.capture.err"
	rate "$rep" "precise-capon-all" all 1
	cost "$rep" "precise-capon" "link:$XRL_PIN/link"
	kill -TERM "$pid"
	wait "$pid"
	LAB_PIDS=()
	record capture summary "$rep" copied "$(grep -o '[0-9]* frames captured' "$OUT/.capture.err" | cut -d' ' -f1)"
	rm -f "$OUT/.capture.err"
	xrl_unload
}

# The floors of a table of states at 100k sources (tools/bpf/xdp_floor.bpf.c: find the
# source's state, add to it, drop), on the rig and by test run, the test run on the table
# the rig filled; with XRLB_ONLY=floor, the 100k rows they are the floors of.
floor_rows() {
	local rep=$1 t

	for t in lru 1way 2way line lrux linex; do
		in_r bpftool net attach xdpdrv pinned "$PIN_BARE/floor/xdp_${t}_drop" dev "$IF_R" overwrite
		rate "$rep" "floor-$t-all" all 100000
		cost "$rep" "floor-$t" "prog:$PIN_BARE/floor/xdp_${t}_drop" -s 100000
		# The LRU hash allocates in the order sources first come: in that order again, side by side.
		cost "$rep" "floor-$t-shuf" "prog:$PIN_BARE/floor/xdp_${t}_drop" -s 100000 --shuffle
		case $t in lru | line | lrux | linex) rate "$rep" "floor-$t-shuf-all" all 100000 "" --shuffle ;; esac
	done
	[ "$ONLY" = floor ] || return 0
	xrl_load precise
	xrl_apply "$RULES/over"
	rate "$rep" precise-100k-all all 100000
	cost "$rep" precise-100k "link:$XRL_PIN/link" -s 100000
	cost "$rep" precise-100k-shuf "link:$XRL_PIN/link" -s 100000 --shuffle
	xrl_apply "$RULES/under"
	rate "$rep" precise-under100k-all all 100000
	cost "$rep" precise-under100k "link:$XRL_PIN/link" -s 100000
	cost "$rep" precise-under100k-shuf "link:$XRL_PIN/link" -s 100000 --shuffle
	xrl_unload
}

# The rows of many sources over, beside the port rule's "over" (one source): a /24's and a
# reflection's, each source answered by its latch (issue 36); and every packet passing, which
# asks the latches too.
latch_rows() {
	local rep=$1

	xrl_load precise
	xrl_apply "$RULES/over"
	cost "$rep" precise-256 "link:$XRL_PIN/link" -s 256
	cost "$rep" precise-5000 "link:$XRL_PIN/link" -s 5000
	xrl_apply "$RULES/under"
	cost "$rep" precise-under "link:$XRL_PIN/link"
	xrl_unload
}

# upgrade_steps HOW CONF: the program replaced in place three times, 1.2 s apart ('load' with
# another --malformed, another --max-keys, then nothing changed), or, HOW reload, the same three
# done as 'unload' and 'load --config' of the saved file CONF (0.4.0's way).
upgrade_steps() {
	local how=$1 conf=$2 i

	for i in 1 2 3; do
		sleep 1.2
		if [ "$how" = reload ]; then
			xrl_unload
			in_r "$CLI" load "$IF_R" --config "$conf" >/dev/null
		elif [ $i = 1 ]; then
			in_r "$CLI" load "$IF_R" --malformed drop >/dev/null
		elif [ $i = 2 ]; then
			in_r "$CLI" load "$IF_R" --max-keys 524288 >/dev/null
		else
			in_r "$CLI" load "$IF_R" >/dev/null
		fi
	done
}

# Upgrades under a flood (under_flood): in place, and by unload and load (upgrade_steps).
upgrade() {
	local how rep conf=$OUT/.upg.conf

	for rep in $(seq 1 "$ACC_REPS"); do
		for how in replace reload; do
			log "upgrade: $how, run $rep"
			xrl_load precise
			xrl_apply "$RULES/acc"
			in_r "$CLI" save "$IF_R" "$conf" >/dev/null
			under_flood upgrade "$how" "$rep" upgrade_steps "$how" "$conf"
			xrl_unload
		done
	done
	rm -f "$conf"
}

log "lab: $NS_G/$IF_G -> $NS_R/$IF_R, $NCPU CPUs; $SECS s a run, $REPS runs a row ($ACC_REPS for accuracy)"
lab_up
if ! out=$(tg -n 1 -c 0 -j 2>&1) && tg_refused "$out"; then
	reported=1
	echo "bench: this kernel runs no BPF_PROG_TEST_RUN live frames (${out%%$'\n'*}): the rig's rows cannot be measured here; bench/ab.sh measures ns a packet by test run" >&2
	exit 1
fi

# Every rate and cost row once per pass, REPS passes: a row's runs are spread
# over the whole benchmark, so that a moment of load elsewhere on the machine
# does not land on all of them.
for rep in $(seq 1 "$REPS"); do
	[ "$ONLY" = upgrade ] && break
	if [ -n "$ONLY" ]; then
		# Only ONLY's rows (sketch_rows, proto_rows, dst_rows, bytes_rows, special_rows, sets_rows, capture_rows,
		# floor_rows, match_rows, windows_rows, rates_rows, latch_rows) and what they are measured against.
		bare_attach drop
		rate "$rep" drop-all all 1
		cost "$rep" drop drop
		xrl_load precise
		xrl_apply "$RULES/over"
		rate "$rep" precise-over-all all 1
		cost "$rep" precise-over "link:$XRL_PIN/link"
		xrl_unload
		if [ "$ONLY" = proto ]; then
			# What several rules passing a packet are measured against: the one rule's "under".
			xrl_load precise
			xrl_apply "$RULES/under"
			cost "$rep" precise-under "link:$XRL_PIN/link"
			xrl_unload
		fi
		if [ "$ONLY" = sets ]; then
			# What the sets are measured against: 1000 prefix rules, each its own.
			xrl_load precise
			xrl_apply "$RULES/pfx"
			cost "$rep" precise-pfx "link:$XRL_PIN/link"
			xrl_unload
		fi
		"${ONLY}_rows" "$rep"
		continue
	fi
	# The floor.
	for v in drop pass; do
		bare_attach $v
		rate "$rep" "$v-1" 1 1
		rate "$rep" "$v-all" all 1
		cost "$rep" "$v" "$v"
	done
	floor_rows "$rep"

	for clock in precise coarse; do
		xrl_load "$clock"
		xrl_apply "$RULES/over"
		rate "$rep" "$clock-over-1" 1 1
		rate "$rep" "$clock-over-all" all 1
		rate "$rep" "$clock-100k-all" all 100000
		cost "$rep" "$clock-over" "link:$XRL_PIN/link"
		cost "$rep" "$clock-100k" "link:$XRL_PIN/link" -s 100000
		# A flood from one /24: 256 sources, each answered by its latch.
		cost "$rep" "$clock-256" "link:$XRL_PIN/link" -s 256
		# A reflection's: 5000 sources, each answered by its latch too (issue 36).
		cost "$rep" "$clock-5000" "link:$XRL_PIN/link" -s 5000
		cost "$rep" "$clock-over6" "link:$XRL_PIN/link" -6
		xrl_apply "$RULES/under"
		rate "$rep" "$clock-under-1" 1 1
		cost "$rep" "$clock-under" "link:$XRL_PIN/link"
		# What a busy server sees every day: many sources, each under its limit.
		rate "$rep" "$clock-under100k-all" all 100000
		cost "$rep" "$clock-under100k" "link:$XRL_PIN/link" -s 100000
		xrl_apply "$RULES/pfx"
		rate "$rep" "$clock-pfx-1" 1 1
		cost "$rep" "$clock-pfx" "link:$XRL_PIN/link"
		xrl_unload
		# The default table (65536 keys) and its cap on new keys, churned by 100k sources.
		xrl_load "$clock" 65536
		xrl_apply "$RULES/over"
		rate "$rep" "$clock-churn-all" all 100000
		xrl_unload
	done
	sketch_rows "$rep"
	proto_rows "$rep"
	dst_rows "$rep"
	bytes_rows "$rep"
	special_rows "$rep"
	sets_rows "$rep"
	capture_rows "$rep"
	match_rows "$rep"
	windows_rows "$rep"
	rates_rows "$rep"

	# nftables and iptables, behind bare XDP_PASS.
	bare_attach pass
	for nf in nft ipt; do
		for spec in "over-1 1 1" "over-all all 1" "100k-all all 100000"; do
			read -r row cpus nsrc <<<"$spec"
			"${nf}_setup" $OVER_RATE
			rate "$rep" "$nf-$row" "$cpus" "$nsrc" "$nf"
			"${nf}_teardown"
		done
	done
done

if [ -z "$ONLY" ] || [ "$ONLY" = sketch ]; then
	sketch_goodput
fi
for clock in precise coarse; do
	[ -z "$ONLY" ] || break
	xrl_load "$clock"
	accuracy "$clock"
	straddle "$clock"
	xrl_unload
done
if [ -z "$ONLY" ] || [ "$ONLY" = upgrade ]; then
	upgrade
fi
if [ -z "$ONLY" ] || [ "$ONLY" = sets ]; then
	sets_apply
fi
if [ -z "$ONLY" ] || [ "$ONLY" = match ]; then
	match_apply
fi

footprint
lab_down
if [ -z "$ONLY" ]; then
	log "classifiers: LBVS, a linear scan and a tree side by side, by test run"
	"$here/classifiers.sh" "$BUILD" >/dev/null
fi
if [ -n "$ONLY" ] && [ "$ONLY" != sketch ]; then
	"$here/report.sh" "$OUT"
	exit 0
fi
# The fleet row: its own lab of three receivers and a redis-server.
log "fleet: three nodes sharing one limit through Redis, at two sync intervals"
"$here/fleet.sh" "$BUILD" "$RAW" "$ACC_REPS"
echo "loadavg_after=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/meta.txt"
"$here/report.sh" "$OUT"
