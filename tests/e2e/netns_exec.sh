#!/usr/bin/env bash
# Network namespaces the way people enter them. 'ip netns exec' gives the command a mount
# namespace of its own, with no bpffs or a private one: every command refuses there, naming
# nsenter, and never reports a load that would detach when the command exits. nsenter --net
# works, and the attachment outlives it. In the host's mount namespace, a missing bpffs is
# mounted at /sys/fs/bpf.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
needs_root netns_exec

NS=xrle-n
veth_lab $NS xrlen0 xrlen1 10.216.0 fd00:216
# shellcheck disable=SC2317 # called through check
attached() { ip -n "$NS" -d link show xrlen1 | grep -q "prog/xdp"; }

# expect_refusal NAME PATTERN COMMAND...: exit 1, PATTERN and the nsenter hint in what it printed.
expect_refusal() {
	local n=$1 pat=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && grep -q "$pat" <<<"$out" && grep -q "nsenter --net=/run/netns/NAME" <<<"$out"; then
		pass "$n"
	else fail "$n" "exit $rc: $out"; fi
}

for cmd in "load xrlen1 --mode generic" "status" "stats xrlen1" "unload xrlen1"; do
	# shellcheck disable=SC2086 # words on purpose
	expect_refusal "ip netns exec: $cmd refuses, naming nsenter" "no bpffs at /sys/fs/bpf in this mount namespace" \
		ip netns exec $NS "$XRL" $cmd
done
check "... and nothing is attached" sh -c "! ip -n $NS -d link show xrlen1 | grep -q prog/xdp"
expect_refusal "ip netns exec with a bpffs of its own: load refuses" "not the host's" \
	ip netns exec $NS sh -c "mount -t bpf bpf /sys/fs/bpf && $XRL load xrlen1 --mode generic"
check "... and nothing is attached after it exits" sh -c "! ip -n $NS -d link show xrlen1 | grep -q prog/xdp"

# nsenter --net: the host's bpffs, the namespace's interfaces; the attachment outlives the command.
lab_undo "nsenter --net=/run/netns/$NS $XRL unload xrlen1"
check "nsenter --net: load" nsenter --net=/run/netns/$NS "$XRL" load xrlen1 --mode generic
check "nsenter --net: a rule" nsenter --net=/run/netns/$NS "$XRL" rule add xrlen1 port 53/udp rate 10/s
check "the program is still attached after the commands exited" attached
check "nsenter --net: unload" nsenter --net=/run/netns/$NS "$XRL" unload xrlen1
check "... detached" sh -c "! ip -n $NS -d link show xrlen1 | grep -q prog/xdp"

# The host's mount namespace without bpffs (here a private copy of it, in which this shell is
# PID 1): the command mounts it, as bpftool does.
if command -v unshare >/dev/null; then
	got=$(unshare --mount --propagation private --pid --fork --mount-proc \
		sh -c "umount /sys/fs/bpf 2>/dev/null; $XRL status >/dev/null && stat -f -c %T /sys/fs/bpf" 2>&1)
	expect_eq "bpffs missing in the host's mount namespace is mounted" "$got" "bpf_fs"
else
	skip "bpffs missing in the host's mount namespace is mounted" "unshare missing"
fi
finish
