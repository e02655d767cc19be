#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/ab.sh CLI_A CLI_B RULES [REPS] [-- TRAFFICGEN_ARGS...]
#
# Two builds side by side, interleaved: the ns a packet of each one's program
# (BPF_PROG_TEST_RUN repeat on one CPU, 1M packets, xrl-trafficgen --cost),
# with the same rules file, REPS pairs (default 7), A then B in each pair so
# that a moment of load elsewhere lands on both; and the instructions the
# verifier walked for each. Build the other version in a worktree of its own:
#
#   git worktree add --detach /tmp/xrl-old v0.5.0 && make -C /tmp/xrl-old
#   bench/ab.sh /tmp/xrl-old/build/xdp-ratelimit build/xdp-ratelimit rules.conf 9 -- -s 100000
#
# TRAFFICGEN_ARGS go to xrl-trafficgen (-s N: N sources; -6: IPv6). RULES_B=FILE
# gives B a rules file of its own (one build, two sets: RULES_B=two.rules
# bench/ab.sh build/xdp-ratelimit build/xdp-ratelimit one.rules). Needs root;
# makes the veth pairs xrlab0 and xrlab1 and removes them on exit.
set -Eeuo pipefail
if [ -z "${XRL_LAB_LOCKED:-}" ]; then
	export XRL_LAB_LOCKED=1
	exec flock -o /tmp/xrl-lab.lock "$BASH" "$0" "$@"
fi
usage() {
	echo "usage: bench/ab.sh CLI_A CLI_B RULES [REPS] [-- TRAFFICGEN_ARGS...]" >&2
	exit 2
}
[ $# -ge 3 ] || usage
A=$1 B=$2 RULES=$3
shift 3
REPS=7
if [ $# -gt 0 ] && [ "$1" != -- ]; then
	REPS=$1
	shift
fi
[ $# -eq 0 ] || [ "$1" = -- ] || usage
[ $# -eq 0 ] || shift
[[ $REPS =~ ^[1-9][0-9]*$ ]] || usage
TG=${TG:-$(dirname "$0")/../build/xrl-trafficgen}
for f in "$A" "$B" "$TG"; do
	[ -x "$f" ] || {
		echo "bench/ab.sh: $f is not an executable: build it first (make)" >&2
		exit 2
	}
done
RULES_B=${RULES_B:-$RULES}
for f in "$RULES" "$RULES_B"; do
	[ -r "$f" ] || {
		echo "bench/ab.sh: cannot read the rules file $f" >&2
		exit 2
	}
done

cleanup() {
	"$A" unload xrlab0 >/dev/null 2>&1 || true
	"$B" unload xrlab1 >/dev/null 2>&1 || true
	ip link del xrlab0 2>/dev/null || true
	ip link del xrlab1 2>/dev/null || true
}
trap cleanup EXIT

# up CLI IFACE RULES: the CLI's program on a veth of its own, with the rules; prints its pin folder and insns.
up() {
	ip link add "$2" type veth peer name "$2p"
	ip link set "$2" up
	ip link set "$2p" up
	"$1" load "$2" --mode native --max-keys 262144 >/dev/null
	"$1" apply "$2" "$3" >/dev/null
	"$1" -j status | jq -r --arg i "$2" '.interfaces[] | select(.interface == $i) | "\(.pin_dir) \(.verified_insns)"'
}
cleanup
read -r pin_a insns_a < <(up "$A" xrlab0 "$RULES")
read -r pin_b insns_b < <(up "$B" xrlab1 "$RULES_B")

ns() {
	"$TG" --cost "link:$1/link" -c 1 -n 200000 "${@:2}" >/dev/null
	"$TG" --cost "link:$1/link" -c 1 -n 1000000 -j "${@:2}" | jq -r .ns
}
a=() b=()
for _ in $(seq 1 "$REPS"); do
	a+=("$(ns "$pin_a" "$@")")
	b+=("$(ns "$pin_b" "$@")")
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
min() { printf '%s\n' "$@" | sort -n | head -n 1; }
printf '%-4s %-10s %-8s %-8s %s\n' "" "ns median" "ns min" insns "ns of each pair"
printf '%-4s %-10s %-8s %-8s %s\n' A "$(median "${a[@]}")" "$(min "${a[@]}")" "$insns_a" "${a[*]}"
printf '%-4s %-10s %-8s %-8s %s\n' B "$(median "${b[@]}")" "$(min "${b[@]}")" "$insns_b" "${b[*]}"
