#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The demo that 'xdp-ratelimit demo [IFACE]' (and so 'make demo') runs: the product binary
# carries no lab and no traffic generator, so it runs this, from the build, with XRL naming
# the CLI. Without IFACE: a veth lab (tools/lab.sh), the limiter on the host's end, sample
# rules, clients (xrl-udp) above and below their limits, live figures, cleanup. With IFACE:
# the same rules on that interface, its figures for 10 seconds, unload.
set -u
here=$(dirname "$(readlink -f "$0")")
# shellcheck source=tools/lab.sh
. "$here/lab.sh"
XRL=${XRL:-$(dirname "$0")/xdp-ratelimit}
UDP=$(dirname "$XRL")/xrl-udp
# With -j (XRL_JSON=1) stdout carries JSON only, one document a line: the figures each second,
# then a summary; the narrative goes to stderr.
JSON=()
if [ "${XRL_JSON:-}" = 1 ]; then
	JSON=(-j)
	exec 3>&1 1>&2
fi

NS=xrl-demo HOST_IF=xrld0 PEER_IF=xrld1 PORT=5000 SECONDS_=8
RULES='# every client may send 100 packets/s to the service on 5000/udp
port 5000/udp rate 100/s per-source
# the noisy 10.201.0.4 gets 20/s in all, whatever it sends to
prefix 10.201.0.4/32 rate 20/s aggregate
# the monitoring host is never limited
prefix 10.201.0.5/32 allow
# IPv6 clients: 50/s for each /64
prefix fd00:201::/48 rate 50/s per-source mask 64'
# Clients: source, packets a second. .2 is under its limit, .3 at 4x, .4 noisy (20/s in
# all), .5 allowed, the IPv6 one 4x its /64's 50/s.
SRCS=(10.201.0.2 10.201.0.3 10.201.0.4 10.201.0.5 fd00:201::10)
PPS=(50 400 200 300 200)

fail() {
	if [ ${#JSON[@]} -gt 0 ]; then jq -nc --arg e "$*" '{error: $e}' >&3; else echo "xdp-ratelimit: $*" >&2; fi
	exit 1
}

# summary KIND IFACE [RECEIVED]: with -j, the last document: the counters, what the service received.
summary() {
	[ ${#JSON[@]} -gt 0 ] || return 0
	"$XRL" -j stats "$2" | jq -c --arg k "$1" --arg r "${3:-}" \
		'{demo: $k, interface: .interface, counters: .counters} + if $r == "" then {} else {received: ($r | tonumber)} end' >&3
}

# show IFACE ROUNDS: the figures once a second.
show() {
	local i
	if [ ${#JSON[@]} -gt 0 ]; then
		"$XRL" -j stats "$1" --top 8 --count "$2" >&3
		return
	fi
	for ((i = 1; i <= $2; i++)); do
		sleep 1
		[ ${#JSON[@]} -eq 0 ] && [ -t 1 ] && printf '\033[H\033[J'
		[ ${#JSON[@]} -eq 0 ] && echo "--- xdp-ratelimit demo, second $i of $2 ---"
		"$XRL" "${JSON[@]}" stats "$1" --top 8 || return
	done
}

# load_rules IFACE: the limiter and the demo rules on IFACE (the CLI says what failed).
load_rules() {
	"$XRL" load "$1" >/dev/null || exit 1
	lab_undo "$XRL" unload "$1"
	"$XRL" apply "$1" - <<<"$RULES" >/dev/null || exit 1
}

[ "$(id -u)" -eq 0 ] || fail "the demo needs root to build its lab and load XDP: run it with sudo"
lab_bpffs || fail "cannot mount bpffs at /sys/fs/bpf"
trap lab_cleanup EXIT
trap 'exit 130' INT TERM

if [ $# -ge 1 ]; then
	load_rules "$1"
	printf 'loaded on %s with the demo rules (they limit only UDP port %d and 10.201.0.0/24, fd00:201::/48):\n%s\n\n' \
		"$1" $PORT "$RULES"
	show "$1" 10
	rc=$?
	[ $rc -eq 0 ] && summary interface "$1"
	lab_cleanup
	echo "unloaded from $1"
	exit $rc
fi

[ -x "$UDP" ] || fail "the demo's clients need $UDP: run 'make demo'"
lab_clients $NS $HOST_IF $PEER_IF 10.201.0 fd00:201 10 >/dev/null 2>&1 ||
	fail "cannot build the lab in namespace $NS (is iproute2 installed?)"
load_rules $HOST_IF
printf 'lab: namespace %s holds the clients (%s), %s is the protected host; the limiter is on %s.\n' \
	$NS $PEER_IF $HOST_IF $HOST_IF
printf 'rules:\n%s\n\nclients for %d seconds, all to UDP port %d:\n' "$RULES" $SECONDS_ $PORT
for i in "${!SRCS[@]}"; do printf '  %-14s %4d packets/s\n' "${SRCS[i]}" "${PPS[i]}"; done
sleep 2

out=$(mktemp -d)
lab_undo rm -rf "$out"
pids=()
for dst in 10.201.0.1 fd00:201::1; do
	"$UDP" recv "$dst" $PORT $((SECONDS_ + 1)).5 >"$out/recv-$dst" &
	pids+=($!)
	lab_wait 10 grep -qsx ready "$out/recv-$dst" || fail "the service's receiver on $dst did not start"
done
for i in "${!SRCS[@]}"; do
	dst=10.201.0.1
	[[ ${SRCS[i]} == *:* ]] && dst=fd00:201::1
	"$UDP" send -n $NS "${SRCS[i]}" $dst $PORT "${PPS[i]}" $SECONDS_ >"$out/sent-$i" &
	pids+=($!)
done
lab_undo kill "${pids[@]}"
show $HOST_IF $SECONDS_
rc=$?
wait "${pids[@]}"
if [ $rc -eq 0 ]; then
	sent=()
	for i in "${!SRCS[@]}"; do sent+=("${SRCS[i]} $(tail -1 "$out/sent-$i")"); done
	received=$(($(tail -1 "$out/recv-10.201.0.1") + $(tail -1 "$out/recv-fd00:201::1")))
	read -r passed dropped seen non_ip no_rule < <("$XRL" -j stats $HOST_IF |
		jq -r '.counters | "\(.passed) \(.dropped) \(.seen) \(.non_ip) \(.no_rule)"')
	printf '\nsent by the clients: %s' "${sent[0]}"
	printf ', %s' "${sent[@]:1}"
	printf '\nthe limiter passed %s and dropped %s of %s; the service received %s\n' \
		"$passed" "$dropped" "$seen" "$received"
	# Why passed and received differ: the link's own frames, which no rule names, pass too;
	# and a datagram passed but not yet read when the receiver stopped is not counted.
	by_rules=$((passed - non_ip - no_rule))
	printf 'of the %s passed, %s matched no rule (%s not IP, such as ARP; %s IP, such as IPv6 neighbour discovery): the rules passed %s to the service, which received %s' \
		"$passed" $((non_ip + no_rule)) "$non_ip" "$no_rule" "$by_rules" "$received"
	if [ "$received" -lt "$by_rules" ]; then
		printf '; the remaining %s: in flight, or dropped by the host'"'"'s stack, when it stopped counting\n' \
			$((by_rules - received))
	else
		printf ', all of them\n'
	fi
	summary lab $HOST_IF "$received"
fi
lab_cleanup
echo "lab removed. Try it on a real NIC: xdp-ratelimit load eth0 && xdp-ratelimit rule add eth0 port 53/udp rate 100/s"
exit $rc
