#!/usr/bin/env bash
# The errors users hit: each one clear sentence, exit 2 for usage and 1 for failure,
# JSON with -j; another XDP program untouched without --force; a killed load leaves
# either a complete load or nothing.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-b
lab_prologue cli_errors $NS xrle4 xrle5 10.213.0 fd00:213
lab_undo "rm -f /sys/fs/bpf/xrle_other"

expect_err "unknown command" 2 "unknown command 'frobnicate'" "$XRL" frobnicate
expect_err "ambiguous prefix" 2 "ambiguous" "$XRL" st
expect_err "prefix of a command works" 0 "Usage: xdp-ratelimit" "$XRL" he
expect_err "unknown option" 2 "unknown option '--bogus'" "$XRL" load xrle4 --bogus
expect_err "bad --mode" 2 "expected native or generic" "$XRL" load xrle4 --mode turbo
expect_err "bad --max-keys" 2 "not a key count" "$XRL" load xrle4 --max-keys -5
expect_err "a sketch width that is not a power of 2" 2 "is not a power of 2 from 64 to 4194304" \
	"$XRL" load xrle4 --sketch-width 1000
expect_err "a sketch width too large" 2 "sketch width" "$XRL" memory --sketch-width 8388608
# Refused after --config was read (under make SANITIZE=1 its rules used to leak: exit 86 then).
printf '%s\n' "port 53/udp rate 10/s per-source" | expect_err "--config with a bad sketch width" 2 \
	"is not a power of 2" "$XRL" load xrle4 --config - --sketch-width 1000
expect_err "missing interface" 2 "missing interface" "$XRL" load
ip tuntap add dev xrletun0 mode tun 2>/dev/null && lab_undo "ip link del xrletun0"
if ip link show xrletun0 >/dev/null 2>&1; then
	expect_err "a non-Ethernet device is refused" 1 "not an Ethernet device" "$XRL" load xrletun0 --mode generic
else
	skip "a non-Ethernet device is refused" "cannot create a tun device"
fi
# A 9000-byte MTU on a veth: the kernel says ERANGE, and only in its extack; we name the MTU.
if ip link add xrlemtu0 mtu 9000 type veth peer name xrlemtu1 mtu 9000 2>/dev/null; then
	lab_undo "ip link del xrlemtu0"
	expect_err "an MTU too large for XDP is named" 1 "MTU \(9000\) is too large.*--mode generic" "$XRL" load xrlemtu0
	check "... and nothing is left attached" sh -c "! ip -d link show xrlemtu0 | grep -q prog/xdp"
else
	skip "an MTU too large for XDP is named" "cannot make a veth with MTU 9000"
fi
expect_err "no such interface" 1 "no such interface 'nosuch0'" "$XRL" load nosuch0
expect_err "not loaded" 1 "not loaded on xrle4: run 'xdp-ratelimit load xrle4' first" "$XRL" stats xrle4
expect_err "bad rule word" 2 "unknown word 'speed'" "$XRL" rule add xrle4 port 53/udp speed 5
expect_err "mask longer than the address" 2 "longer than" "$XRL" rule add xrle4 prefix 10.0.0.0/8 rate 1/s mask 33
expect_err "an ICMP type past 255" 2 "'type' needs a number from 0 to 255" "$XRL" rule add xrle4 proto icmp type 300 rate 1/s
expect_err "a type on tcp-syn" 2 "'type' is for icmp and icmpv6 rules" "$XRL" rule add xrle4 proto tcp-syn type 8 rate 1/s
expect_err "mask on a protocol rule" 2 "a protocol rule takes mask4 and mask6" "$XRL" rule add xrle4 proto tcp-syn rate 1/s mask 24
expect_err "an unknown protocol" 2 "'sctp' is not a protocol" "$XRL" rule add xrle4 proto sctp rate 1/s
expect_err "explain --type without --proto" 2 "--type needs --proto icmp" "$XRL" explain xrle4 --src 10.0.0.1 --type 8
expect_err "explain --type on udp" 2 "'type' is for icmp" "$XRL" explain xrle4 --src 10.0.0.1 --proto udp --type 8
expect_err "explain --fragment with --dport" 2 "a later fragment carries no transport header" \
	"$XRL" explain xrle4 --src 10.0.0.1 --dport 53/udp --fragment
expect_err "a prefix rule with a second field" 2 "'prefix' is a rule of one field.*'src 10.0.0.0/8'" \
	"$XRL" rule add xrle4 prefix 10.0.0.0/8 dst 203.0.113.5 rate 1/s
expect_err "a port without its protocol" 2 "'sport' needs its protocol.*'proto udp sport" "$XRL" rule add xrle4 sport 53 rate 1/s
expect_err "a shorthand counting by destination: not judged by this build" 1 \
	"line 1, 'port 53/udp': a port rule that counts by destination or port.*write it as a rule of several fields.*nothing was applied" \
	"$XRL" apply xrle4 - <<<"port 53/udp rate 1/s per dst"
expect_err "load --config with a shorthand per src,dport" 1 "not judged by this build yet.*nothing was loaded" \
	"$XRL" load xrle4 --config - <<<"proto tcp rate 20/s per src,dport"
expect_err "65 named sets as addresses of rules of several fields" 1 "use 65 named sets as an address, more than the 64" \
	"$XRL" apply xrle4 - --check < <(for i in $(seq 1 65); do echo "set s$i { 10.$i.0.0/16 }"; done
		for i in $(seq 1 65); do echo "src @s$i proto udp ttl $i rate 1/s"; done)
expect_err "17 rules of several fields one packet meets" 1 "a packet can meet more than 16 rules of several fields" \
	"$XRL" apply xrle4 - --check < <(for i in $(seq 1 17); do echo "proto udp ttl $i-255 rate $i/s"; done)
expect_err "a dst prefix with host bits" 2 "did you mean 203.0.113.0/24" "$XRL" rule add xrle4 dst 203.0.113.5/24 rate 1/s
expect_err "dst twice" 2 "'dst' is given twice" "$XRL" rule add xrle4 port 53/udp dst 192.0.2.0/24 dst 192.0.2.0/25 rate 1/s
expect_err "dst after a port rule's words" 2 "'dst' goes right after the port" "$XRL" rule add xrle4 port 53/udp rate 1/s dst 192.0.2.1
expect_err "explain --dst not an address" 2 "--dst '192.0.2.0/24' is not one address" \
	"$XRL" explain xrle4 --src 10.0.0.1 --dst 192.0.2.0/24
expect_err "explain --proto and --dport disagree" 2 "disagree" "$XRL" explain xrle4 --src 10.0.0.1 --dport 53/udp --proto tcp
expect_err "window not dividing into buckets" 2 "does not divide into 3 buckets" \
	"$XRL" apply xrle4 - --check <<<"port 1/udp rate 10/s window 1s buckets 3"
expect_err "lint checks the grammar with no interface" 0 "1 rule, grammar valid \(no interface checked\)" \
	"$XRL" lint - <<<"port 1/udp rate 10/s"
expect_err "JSON error" 1 '"error": "no such interface' "$XRL" -j load nosuch0
expect_err "JSON error after the command" 1 '"error": "no such interface' "$XRL" load nosuch0 -j
if command -v setpriv >/dev/null; then
	expect_err "not root" 1 "needs root, or CAP_BPF and CAP_NET_ADMIN \(this process lacks CAP_BPF and CAP_NET_ADMIN\); run it with sudo" \
		setpriv --reuid=65534 --clear-groups "$XRL" status
	c=+bpf,+net_admin
	caps=(--reuid=65534 --regid=65534 --clear-groups "--inh-caps=$c" "--ambient-caps=$c")
	expect_err "CAP_BPF and CAP_NET_ADMIN without root: what is really missing" 1 \
		"not enough here: the pins .* root's alone .* also needs CAP_DAC_OVERRIDE" setpriv "${caps[@]}" "$XRL" status
	c=+bpf,+net_admin,+dac_override
	caps=(--reuid=65534 --regid=65534 --clear-groups "--inh-caps=$c" "--ambient-caps=$c")
	check "... and with CAP_DAC_OVERRIDE too, it works" setpriv "${caps[@]}" "$XRL" status
else
	skip "not root" "setpriv missing"
fi

# Another XDP program: refused without --force, replaced with it.
bpftool prog load "$BUILD/xdp_ratelimit.bpf.o" /sys/fs/bpf/xrle_other type xdp >/dev/null 2>&1
if bpftool net attach xdp pinned /sys/fs/bpf/xrle_other dev xrle4 2>/dev/null; then
	id=$(ip -d link show xrle4 | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' | head -1)
	expect_err "another XDP program is named and kept" 1 "already has an XDP program attached \(id $id.*--force" \
		"$XRL" load xrle4
	expect_eq "the other program is untouched" \
		"$(ip -d link show xrle4 | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' | head -1)" "$id"
	name=$(bpftool -j prog show id "$id" | jq -r .name)
	check "--force replaces it" "$XRL" load xrle4 --force
	expect_eq "status -j names the program --force replaced" \
		"$("$XRL" -j status | jq -r '.interfaces[] | select(.interface == "xrle4") | "\(.replaced.prog_id) \(.replaced.name)"')" \
		"$id $name"
	check "... and so does its text" sh -c "'$XRL' status | grep -q \"load --force detached XDP program '$name' (id $id)\""
	check "unload after --force" "$XRL" unload xrle4
	check "load without --force" "$XRL" load xrle4
	expect_eq "... replaced nothing: status -j says null" \
		"$("$XRL" -j status | jq -c '.interfaces[] | select(.interface == "xrle4") | .replaced')" null
	check "unload" "$XRL" unload xrle4
else
	skip "another XDP program" "could not attach a second program with bpftool"
fi

check "load" "$XRL" load xrle4
expect_err "load twice replaces the program in place" 0 "replaced the program on xrle4 in place" "$XRL" load xrle4
pins=$(pin_dir xrle4)
# A load killed after pinning its maps, before writing its settings: the control map all zeros.
size=$(bpftool -j map show pinned "$pins/xrl_ctl" | jq .bytes_value)
# shellcheck disable=SC2046 # one word a byte
bpftool map update pinned "$pins/xrl_ctl" key hex 00 00 00 00 value hex $(printf '00 %.0s' $(seq "$size"))
expect_err "an interrupted load is named as such, with what to run" 1 \
	"the load on xrle4 was interrupted before it finished .*: run 'xdp-ratelimit unload xrle4', then load again" \
	"$XRL" dump xrle4
check "unload" "$XRL" unload xrle4
expect_err "unload twice" 1 "not loaded on xrle4" "$XRL" unload xrle4

# Maps from another layout where ours are expected.
# (bpftool mounts a bpffs where there is none: never let it near anything but our pins.)
[[ $pins == /sys/fs/bpf/xdp-ratelimit/net* ]] || { fail "the pin folder" "status gave '$pins'"; finish; }
mkdir -p "$pins"
bpftool map create "$pins/xrl_ctl" type array key 4 value 8 entries 1 name xrl_ctl
expect_err "maps of another version are refused" 1 "another version" "$XRL" dump xrle4
check "unload removes them" "$XRL" unload xrle4

# A load killed at any point leaves a complete load or nothing, and the next load works.
ok=0
for delay in 0.005 0.01 0.02 0.03 0.05 0.08 0.12 0.2; do
	"${KILLABLE[@]}" "$XRL" load xrle4 >/dev/null 2>&1 &
	pid=$!
	sleep $delay
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	if $XRL dump xrle4 >/dev/null 2>&1; then
		$XRL unload xrle4 >/dev/null || break
	else
		# nothing usable: the next load must clean up and succeed
		if ! { $XRL load xrle4 >/dev/null 2>&1 && $XRL unload xrle4 >/dev/null; }; then break; fi
	fi
	ok=$((ok + 1))
done
expect_eq "killed loads leave a complete load or nothing (8 kill points)" "$ok" 8
check "nothing left attached" sh -c "! ip -d link show xrle4 | grep -q 'prog/xdp'"
finish
