#!/usr/bin/env bash
# Chaining with other XDP programs, on any kernel (no freplace): 'load IFACE --then PROG' and
# 'chain IFACE PROG|none' put a program in the limiter's program array; every frame the limiter
# passes goes on to it through a tail call, and a frame it drops never does. Tried with a program
# that counts what it sees (tools/bpf/xdp_count.bpf.c) and with xdp-filter's program from
# Debian's xdp-tools denying a port: both verdicts hold, and removing either (chain none; the
# limiter's rules) leaves the other working. The chain survives a replace in place. A program that
# leads back to the limiter (another instance chained back, a program array) is refused.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-ch
IF=xrlch0
lab_prologue chain $NS $IF xrlch1 10.236.0 fd00:236
pins=/sys/fs/bpf/xrl-test-chain
rm -rf $pins
mkdir -p $pins
lab_undo "rm -rf $pins"
check "the counting program loads, pinned" bpftool prog load "$BUILD/xdp_count.bpf.o" $pins/count type xdp pinmaps $pins/maps
counted() { bpftool -j map dump pinned $pins/maps/count_by_port | jq --argjson p "$1" '[.[].formatted | select(.key == $p) | .value] | add // 0'; }
attached() { ip -d link show $IF | grep -c 'prog/xdp'; }

# What --then takes: a program's id or its pin under /sys/fs/bpf, and an XDP program only.
expect_err "--then with a path outside /sys/fs/bpf is a usage error" 2 \
	"'/etc/passwd' is neither a program id nor a pin under /sys/fs/bpf.*nothing was loaded" "$XRL" load $IF --then /etc/passwd
expect_err "--then with no such program id" 1 "no program has id 4000000000" "$XRL" load $IF --then 4000000000
expect_err "--then with a map" 2 "is not an XDP program" "$XRL" load $IF --then $pins/maps/count_by_port
expect_err "--then climbing out of /sys/fs/bpf" 2 "neither a program id nor a pin" "$XRL" load $IF --then /sys/fs/bpf/../../etc/passwd
expect_eq "... nothing attached" "$(attached)" 0

# step N SRC PORT FRAMES: FRAMES UDP frames from 10.236.0.SRC to PORT; prints what the receiver got.
# received NAME GOT WANT: what the receiver got is WANT, or a few less: a busy machine may lose
# a datagram on its way to the socket after the program passed it, never add one.
received() { expect_range "$1" "$2" $(($3 > 3 ? $3 - 3 : 0)) "$3"; }
step() {
	recv_bg "$dir/rx" 10.236.0.1 "$2" 2
	$UDP send -n $NS "10.236.0.$1" 10.236.0.1 "$2" 2000 1 "$3" >/dev/null 2>&1
	wait "$rx"
	tail -1 "$dir/rx"
}

echo 'port 9/udp rate 20/s window 10s buckets 10 per-source' >"$dir/rules"
check "load --then the counting program, with a rule" "$XRL" load $IF --then $pins/count --config "$dir/rules"
expect_eq "status names the program that follows" \
	"$("$XRL" -j status | jq -r --arg i $IF '.interfaces[] | select(.interface == $i) | .then.name')" xdp_count
expect_err "chain IFACE shows it" 0 "go on to XDP program 'xdp_count'" "$XRL" chain $IF
received "1000 frames against 200 a window: the receiver gets 200" "$(step 2 9 1000)" 200
expect_eq "... the chained program saw exactly those 200: no frame the limiter dropped" "$(counted 9)" 200
expect_eq "... and the limiter blocked the rest" "$("$XRL" -j stats $IF | json '.rules[0].blocked')" 800
check "a replace in place" "$XRL" load $IF --malformed drop
expect_err "... keeps the chain" 0 "xdp_count" "$XRL" chain $IF

# A way back to the limiter, through another instance's chain or another program's program array,
# would send every frame round again, judged at each pass until the kernel's tail-call limit:
# chain and load --then refuse it, whichever side is set first.
ip link add xrlchl0 type veth peer name xrlchl1
lab_undo "ip link del xrlchl0 2>/dev/null"
ip link set xrlchl0 up
ip -n $NS addr add 10.236.0.6/24 dev xrlch1 && ip -n $NS addr add 10.236.0.7/24 dev xrlch1
lab_undo "$XRL unload xrlchl0"
check "a second limiter, on a spare interface" "$XRL" load xrlchl0
judged() { "$XRL" -j stats $IF | json '.rules[0].passed + .rules[0].blocked'; }
prog_of() { "$XRL" -j status | jq -r --arg i "$1" '.interfaces[] | select(.interface == $i) | .prog_id'; }
p1=$(prog_of $IF) p2=$(prog_of xrlchl0)
check "the first limiter's passed frames go on to the second" "$XRL" chain $IF "$p2"
expect_err "the second cannot chain back to the first" 1 \
	"program $p1 \('xdp_ratelimit'\) leads back to this limiter.*nothing was changed" "$XRL" chain xrlchl0 "$p1"
expect_err "... nor load --then it" 1 "--then: program $p1 .*leads back.*nothing was changed" \
	"$XRL" load xrlchl0 --then "$p1"
expect_err "... and the second still chains to nothing" 0 "no program chained" "$XRL" chain xrlchl0
n=$(judged)
received "port 9, 300 frames against 200 a window: the receiver gets 200" "$(step 6 9 300)" 200
expect_eq "... the rule judged each of the 300 once" $(($(judged) - n)) 300
check "the other way round: the second limiter's frames go on to the first" \
	sh -c "'$XRL' chain $IF none && '$XRL' chain xrlchl0 $p1"
expect_err "... and the first cannot chain to the second" 1 "program $p2 .*leads back to this limiter" \
	"$XRL" chain $IF "$p2"
check "the counting program tail-calls into the first limiter" \
	bpftool map update pinned $pins/maps/next key 0 0 0 0 value id "$p1"
expect_err "the first cannot chain to the counting program" 1 \
	"program [0-9]+ \('xdp_count'\) leads back to this limiter" "$XRL" chain $IF $pins/count
check "the second limiter's frames go on to the counting program (which calls the first)" \
	"$XRL" chain xrlchl0 $pins/count
expect_err "the first cannot chain to the second: the way back goes through both" 1 \
	"program $p2 \('xdp_ratelimit'\) leads back to this limiter \($p2 \('xdp_ratelimit'\) -> [0-9]+ \('xdp_count'\) -> this limiter\)" \
	"$XRL" chain $IF "$p2"
expect_err "... and the first still chains to nothing" 0 "no program chained" "$XRL" chain $IF
check "the way back removed" bpftool map delete pinned $pins/maps/next key 0 0 0 0
check "... the first chains to the second again" "$XRL" chain $IF "$p2"
n=$(judged)
received "... and frames go through the first once: the receiver gets 200 of 300" "$(step 7 9 300)" 200
expect_eq "... the rule judged each of the 300 once" $(($(judged) - n)) 300
check "the second limiter unloaded" "$XRL" unload xrlchl0

if ! command -v xdp-filter >/dev/null || ! ls /usr/lib/*/bpf/xdpfilt_alw_all.o >/dev/null 2>&1; then
	skip "chain: xdp-filter" "needs xdp-tools and libxdp1 (scripts/deps.sh installs them)"
	finish
fi
# xdp-filter runs its program on an interface of its own (here a spare veth, in its legacy
# mode: this kernel refuses libxdp's dispatcher); its maps are the program's, so what
# 'xdp-filter port' sets there holds wherever the program runs.
ip link add xrlchf0 type veth peer name xrlchf1
lab_undo "ip link del xrlchf0 2>/dev/null"
ip link set xrlchf0 up
check "xdp-filter loads (policy allow: what its rules name is dropped)" xdp-filter load xrlchf0 -m skb -p allow
lab_undo "xdp-filter unload xrlchf0 2>/dev/null"
check "xdp-filter denies port 7000" xdp-filter port 7000 -m dst
fid=$(ip -j link show xrlchf0 | jq -r '.[0].xdp.prog.id')
expect_err "chain IFACE ID: xdp-filter's program follows the limiter" 0 "now go on to XDP program 'xdpfilt_alw_all' \(id $fid\)" \
	"$XRL" chain $IF "$fid"
received "port 7000, which no rule limits: xdp-filter drops all 100" "$(step 3 7000 100)" 0
received "port 9: the limiter's 200 a window, which xdp-filter lets on" "$(step 3 9 300)" 200
check "chain IFACE none" "$XRL" chain $IF none
received "... port 7000 passes again: the limiter alone" "$(step 4 7000 100)" 100
received "... and the limiter still limits" "$(step 4 9 300)" 200
check "chain xdp-filter again" "$XRL" chain $IF "$fid"
check "the limiter's rules removed" "$XRL" apply $IF /dev/null --allow-empty
received "... port 9 unlimited now" "$(step 5 9 300)" 300
received "... and xdp-filter still denies port 7000" "$(step 5 7000 100)" 0
expect_err "a program cannot follow itself" 1 "cannot follow itself" "$XRL" chain $IF \
	"$("$XRL" -j status | jq -r --arg i $IF '.interfaces[] | select(.interface == $i) | .prog_id')"
finish
