# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# The benchmark's lab, sourced by bench/run.sh: two network namespaces joined
# by a veth pair, built with tools/lab.sh. The generator (xrl-trafficgen) redirects frames into the
# sending end from one namespace; the program under test runs natively on the
# receiving end in the other. Needs BUILD (the build directory) set.
#
# Names start with xrlb and carry this shell's pid, so that two runs, and
# other people's tests, never meet.

# shellcheck source=tools/lab.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tools/lab.sh"

XRLB_N=$(($$ % 100000))
NS_G=xrlbg$XRLB_N
NS_R=xrlbr$XRLB_N
IF_G=xrlb${XRLB_N}g # sending end, in NS_G
IF_R=xrlb${XRLB_N}r # receiving end, in NS_R: the program under test
IF_H=xrlb${XRLB_N}h # never up: holds the generator in the XDP dispatcher (xrl-trafficgen --hold)
IF_K=xrlb${XRLB_N}k # IF_H's peer
PIN_BARE=/sys/fs/bpf/xrlb$XRLB_N
XRL_PIN= # the loaded instance's pin folder (keyed by namespace and ifindex), set by xrl_load
NCPU=$(nproc)
CLI=$BUILD/xdp-ratelimit
TG=$BUILD/xrl-trafficgen
RX_MAC=
LAB_PIDS=()

in_g() { nsenter --net="/var/run/netns/$NS_G" "$@"; }
# nsenter rather than 'ip netns exec': that one remounts /sys, hiding bpffs,
# where the limiter's maps and link are pinned.
in_r() { nsenter --net="/var/run/netns/$NS_R" "$@"; }

lab_down() {
	local p

	for p in "${LAB_PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	LAB_PIDS=()
	# Before the namespace goes: its instance is keyed by it, and would be left 'gone'.
	if [ -e "/var/run/netns/$NS_R" ]; then
		in_r "$CLI" unload "$IF_R" >/dev/null 2>&1 || true
	fi
	rm -rf "$PIN_BARE"
	ip netns del "$NS_G" 2>/dev/null || true
	ip netns del "$NS_R" 2>/dev/null || true
}

lab_up() {
	lab_bpffs
	lab_ns "$NS_G"
	lab_ns "$NS_R"
	# The sender's stack stays silent: every frame the receiver sees is ours.
	in_g sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	# Sources are 10.0.0.0/8 with no route back: no reverse-path drop before the hooks.
	in_r sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
		net.ipv6.conf.default.accept_dad=0
	# One receive queue per CPU: a frame sent on CPU n is received on CPU n.
	lab_veth "$IF_G@$NS_G" "$IF_R@$NS_R" "$NCPU"
	lab_veth "$IF_H@$NS_G" "$IF_K@$NS_G"
	lab_addr "$IF_R@$NS_R" 192.168.77.1/24 fd00:77::1/64
	lab_addr "$IF_G@$NS_G" 192.168.77.2/24
	lab_up_links "$IF_R@$NS_R" "$IF_G@$NS_G"
	RX_MAC=$(ip -n "$NS_R" -br link show "$IF_R" | awk '{ print $3 }')
	bpftool prog loadall "$BUILD/xdp_bare.bpf.o" "$PIN_BARE" type xdp
	bpftool prog loadall "$BUILD/xdp_floor.bpf.o" "$PIN_BARE/floor" type xdp
}

# xrl-trafficgen sending into the lab; options as it takes them.
tg() {
	"$TG" --netns "$NS_G" -i "$IF_G" --hold "$IF_H" --dst-mac "$RX_MAC" "$@"
}

# Whether xrl-trafficgen's message $1 says this kernel runs no live frames: BPF_PROG_TEST_RUN
# without BPF_F_TEST_XDP_LIVE_FRAMES, or refusing it (EPERM, as some refuse freplace and fentry).
tg_refused() {
	case $1 in
	*"Invalid argument"* | *"not supported"* | *"Operation not permitted"*) return 0 ;;
	esac
	return 1
}

# 1: the last CPU alone; all: every CPU.
cpu_list() {
	if [ "$1" = 1 ]; then echo $((NCPU - 1)); else echo "0-$((NCPU - 1))"; fi
}

# "frames dropped": what the receiving veth's driver counted, summed over its
# queues: frames its XDP program ran on, and those it dropped. This is the
# ground truth: it does not come from the program under test.
rx_counters() {
	in_r ethtool -S "$IF_R" | awk '
		$1 ~ /^rx_queue_[0-9]+_xdp_packets:$/ { s += $2 }
		$1 ~ /^rx_queue_[0-9]+_xdp_drops:$/ { d += $2 }
		END { printf "%.0f %.0f\n", s, d }' # not %d: mawk stops it at 2^31 - 1, which a long run passes
}

xdp_detach() { in_r ip link set dev "$IF_R" xdp off; }

# bare_attach drop|pass
bare_attach() {
	in_r bpftool net attach xdpdrv pinned "$PIN_BARE/xdp_$1_all" dev "$IF_R" overwrite
}

# xrl_load precise|coarse
# xrl_load CLOCK [MAX_KEYS]: a table that holds the 100k sources unless told otherwise.
xrl_load() {
	xdp_detach
	in_r "$CLI" load "$IF_R" --mode native --clock "$1" --max-keys "${2:-262144}" "${@:3}" >/dev/null || return
	# shellcheck disable=SC2034 # read by bench/run.sh
	XRL_PIN=$(in_r "$CLI" -j status | jq -r --arg i "$IF_R" '.interfaces[] | select(.interface == $i and .this_netns) | .pin_dir')
}
xrl_apply() { in_r "$CLI" apply "$IF_R" "$1" >/dev/null; }
xrl_unload() { in_r "$CLI" unload "$IF_R" >/dev/null; }
xrl_stats() { in_r "$CLI" stats "$IF_R" -j; }

# The same rule in nftables: a dynamic set of sources, each with its own
# 'limit rate over', at the earliest IPv4 hook there is for it. The receiver
# keeps bare XDP_PASS attached: a veth delivers redirected frames only to a
# peer with an XDP program.
nft_setup() {
	in_r nft -f - <<-EOF
		table ip xrlb {
			set srcs {
				type ipv4_addr
				size 262144
				flags dynamic,timeout
				timeout 10s
			}
			chain pre {
				type filter hook prerouting priority raw; policy accept;
				udp dport 9 update @srcs { ip saddr limit rate over $1/second } counter drop
			}
		}
	EOF
}
nft_dropped() {
	in_r nft list chain ip xrlb pre |
		awk '{ for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }'
}
nft_teardown() { in_r nft delete table ip xrlb 2>/dev/null || true; }

# iptables hashlimit, the legacy xt_hashlimit: Debian's default iptables
# (nf_tables backend) turns the same command into an nftables meter, which the
# nftables rows measure already.
ipt_setup() {
	in_r iptables-legacy -w -t raw -A PREROUTING -p udp --dport 9 -m hashlimit \
		--hashlimit-above "$1/sec" --hashlimit-mode srcip --hashlimit-name xrlb \
		--hashlimit-htable-size 262144 --hashlimit-htable-max 262144 -j DROP
}
ipt_dropped() { in_r iptables-legacy -w -t raw -L PREROUTING -v -x -n | awk 'NR == 3 { print $1 }'; }
ipt_teardown() { in_r iptables-legacy -w -t raw -F PREROUTING 2>/dev/null || true; }
