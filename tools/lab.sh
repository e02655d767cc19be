# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# The veth lab, in one place: the demo (tools/demo.sh), the end-to-end tests
# (tests/e2e/lib.sh) and the benchmark (bench/lib.sh) source it. Network
# namespaces joined by veth pairs; an end is written IF for the root namespace
# or IF@NS. Everything made in the root namespace is undone, last first, by
# lab_cleanup (a namespace takes what is inside it along).

[ -n "${LAB_SH:-}" ] && return 0 # sourced already: keep what is registered
LAB_SH=1
LAB_UNDO=()

# lab_undo COMMAND...: run by lab_cleanup, in reverse order of registration.
lab_undo() { LAB_UNDO+=("$*"); }

lab_cleanup() {
	local i
	for ((i = ${#LAB_UNDO[@]} - 1; i >= 0; i--)); do eval "${LAB_UNDO[i]}" >/dev/null 2>&1; done
	LAB_UNDO=()
}

# lab_bpffs: bpffs at /sys/fs/bpf, where the limiter pins its maps.
lab_bpffs() { mount | grep -q ' /sys/fs/bpf ' || mount -t bpf bpf /sys/fs/bpf; }

# lab_ns NS: a network namespace with lo up, made unless it exists (then undone).
lab_ns() {
	if ! ip netns list | grep -qw "$1"; then
		ip netns add "$1" || return
		lab_undo ip netns del "$1"
	fi
	ip -n "$1" link set lo up
}

# lab_ip END ARGS...: 'ip ARGS' in END's namespace.
lab_ip() {
	local end=$1
	shift
	if [[ $end == *@* ]]; then ip -n "${end#*@}" "$@"; else ip "$@"; fi
}

# lab_veth END END [QUEUES]: a veth pair, both ends down; QUEUES receive and send queues each.
# A pair with an end in the root namespace replaces a stale one of that name.
lab_veth() {
	local a=${1%@*} b=${2%@*} q=() na=() nb=()
	[ -n "${3:-}" ] && q=(numtxqueues "$3" numrxqueues "$3")
	[[ $1 == *@* ]] && na=(netns "${1#*@}")
	[[ $2 == *@* ]] && nb=(netns "${2#*@}")
	if [ ${#na[@]} -eq 0 ]; then
		ip link del "$a" 2>/dev/null
		ip link add "$a" "${q[@]}" type veth peer name "$b" "${q[@]}" "${nb[@]}" || return
		lab_undo ip link del "$a"
	else
		ip link add "$a" "${q[@]}" "${na[@]}" type veth peer name "$b" "${q[@]}" "${nb[@]}"
	fi
}

# lab_addr END ADDR/LEN...: addresses on END (IPv6 ones without duplicate address detection).
lab_addr() {
	local end=$1 a
	shift
	for a in "$@"; do
		if [[ $a == *:* ]]; then
			lab_ip "$end" addr add "$a" dev "${end%@*}" nodad || return
		else
			lab_ip "$end" addr add "$a" dev "${end%@*}" || return
		fi
	done
}

# lab_up_links END...: brings the interfaces up.
lab_up_links() {
	local end
	for end in "$@"; do lab_ip "$end" link set "${end%@*}" up || return; done
}

# lab_clients NS HOST PEER NET4 NET6 [V6]: the demo's and the end-to-end tests' lab. HOST, in
# the root namespace, is the protected host with NET4.1/24 and NET6::1/64; PEER, in NS, holds
# the clients NET4.2 to NET4.5 and NET6::V6 (default 2).
lab_clients() {
	local ns=$1 h=$2 p=$3 n4=$4 n6=$5 v6=${6:-2}
	lab_ns "$ns" &&
		lab_veth "$h" "$p@$ns" &&
		lab_addr "$h" "$n4.1/24" "$n6::1/64" &&
		lab_addr "$p@$ns" "$n4.2/24" "$n4.3/24" "$n4.4/24" "$n4.5/24" "$n6::$v6/64" &&
		lab_up_links "$h" "$p@$ns"
}

# lab_wait SECONDS COMMAND...: re-runs COMMAND every 50 ms until it succeeds; false if SECONDS
# pass first. Waits on an event rather than sleeping for a guess at how long it takes.
lab_wait() {
	local n=$(($1 * 20))
	shift
	until "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.05
	done
}
