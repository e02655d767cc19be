# Shared by the end-to-end tests: results, labs in network namespaces, cleanup.
# Contract with tests/run.sh: print PASS:/FAIL:/SKIP: lines, exit non-zero on any failure.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
XRL=$BUILD/xdp-ratelimit
UDP=$BUILD/xrl-udp
failures=0
cleanups=()

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; failures=$((failures + 1)); }
skip() { echo "SKIP: $1: $2"; }
# check NAME COMMAND...: PASS when the command succeeds.
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n" "'$*' failed"; fi; }
# expect_eq NAME GOT WANT
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', want '$3'"; fi; }
# expect_range NAME GOT LO HI
expect_range() {
	if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then pass "$1 ($2 in $3..$4)"
	else fail "$1" "got $2, want $3..$4"; fi
}

on_exit() {
	local i
	for ((i = ${#cleanups[@]} - 1; i >= 0; i--)); do eval "${cleanups[i]}" >/dev/null 2>&1; done
}
trap on_exit EXIT
trap 'exit 130' INT TERM
defer() { cleanups+=("$*"); }

# needs_root SUITE: skips the whole suite visibly when not root or tools are missing.
needs_root() {
	if [ "$(id -u)" -ne 0 ]; then skip "$1" "needs root (XDP, network namespaces)"; exit 0; fi
	if ! command -v ip >/dev/null; then skip "$1" "needs iproute2"; exit 0; fi
	mount | grep -q ' /sys/fs/bpf ' || mount -t bpf bpf /sys/fs/bpf
}

# veth_lab NS HOST_IF PEER_IF NET4 NET6: HOST_IF keeps .1 in the root namespace; PEER_IF
# and addresses .2 .. .5 (and NET6::2) go to NS.
veth_lab() {
	local ns=$1 h=$2 p=$3 n4=$4 n6=$5 i
	ip netns list | grep -qw "$ns" || { ip netns add "$ns"; defer "ip netns del $ns"; }
	ip link del "$h" 2>/dev/null
	ip link add "$h" type veth peer name "$p"
	defer "ip link del $h"
	ip link set "$p" netns "$ns"
	ip addr add "$n4.1/24" dev "$h"
	ip addr add "$n6::1/64" dev "$h" nodad
	ip link set "$h" up
	ip -n "$ns" link set lo up
	for i in 2 3 4 5; do ip -n "$ns" addr add "$n4.$i/24" dev "$p"; done
	ip -n "$ns" addr add "$n6::2/64" dev "$p" nodad
	ip -n "$ns" link set "$p" up
}

# wait_for SECONDS COMMAND...: re-runs COMMAND every 50 ms until it succeeds; false if SECONDS
# pass first. Waits on an event rather than sleeping for a guess at how long it takes.
wait_for() {
	local n=$(($1 * 20))
	shift
	until "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.05
	done
}

# recv_bg FILE ADDR PORT SECONDS: "xrl-udp recv ADDR PORT SECONDS" in the background into FILE,
# its pid in rx. Returns once the receiver has bound its port (it prints "ready" first), so
# that nothing sent afterwards is lost for want of a socket, however slowly it started; its
# SECONDS count from then. A receiver not ready within 10 s is a FAIL.
recv_bg() {
	local f=$1
	shift
	$UDP recv "$@" >"$f" &
	rx=$!
	wait_for 10 grep -qx ready "$f" || fail "receiver on $1 port $2" "not ready within 10 s"
}

# json FILTER: one value out of JSON on stdin.
json() { jq -r "$1"; }

finish() { [ "$failures" -eq 0 ]; exit $?; }
