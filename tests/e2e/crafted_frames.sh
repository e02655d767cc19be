#!/usr/bin/env bash
# Crafted frames that a host accepts but a parser may not judge, over a veth into the interface the
# CLI loaded the limiter on, with real sockets behind it (issue: "no way around a rule"):
#   1. IPv6 UDP behind 9 Destination Options headers, to a port limited to 10 a second: a UDP
#      socket counts what the host delivers (661df77 delivered 200 of 200);
#   2. TCP SYNs cut into tiny IPv4 fragments (RFC 1858: the first carries 8 bytes of the TCP
#      header, no flags; the second, at offset 8, the rest), to a port limited by a port rule and
#      'proto tcp-syn': the SYN-ACKs the host answers are counted (661df77: 200 of 200).
# Under the default policy (--malformed drop-evasive) at most the limit gets through, and each
# class is counted by reason; under --malformed pass they get through, as the man page says.
# The frames are built by python3 and sent raw (build/xrl-rawsend).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
NS=xrlc-a H=xrlc0 P=xrlc1
raw_lab crafted_frames $NS $H $P 10.243.0 fd00:243
N=200

# frames KIND: N frames in hex, one a line, from the namespace's side to the host's, each with a
# source port of its own. v6chain: UDP to [fd00:243::1]:5000 behind 9 Destination Options
# headers. synfrag: a TCP SYN to 10.243.0.1:7000 as two IPv4 fragments (8 bytes, then the rest).
frames() {
	PYTHONPATH="$ROOT/tests/e2e" python3 - "$PMAC" "$HMAC" "$1" "$N" <<'PY'
import socket, struct, sys
from frames import csum, eth
smac, dmac, kind, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
eth4, eth6 = eth(smac, dmac), eth(smac, dmac, 0x86dd)
src6, dst6 = socket.inet_pton(socket.AF_INET6, "fd00:243::2"), socket.inet_pton(socket.AF_INET6, "fd00:243::1")
src4, dst4 = socket.inet_aton("10.243.0.2"), socket.inet_aton("10.243.0.1")
for i in range(n):
    sport = 20000 + i
    if kind == "v6chain":
        data = b"crafted"
        udp = struct.pack("!HHHH", sport, 5000, 8 + len(data), 0) + data
        c = csum(src6 + dst6 + struct.pack("!IxxxB", len(udp), 17) + udp) or 0xffff
        udp = udp[:6] + struct.pack("!H", c) + udp[8:]
        # 9 Destination Options headers of 8 bytes: next header, length 0, a PadN of 4.
        exts = b"".join(struct.pack("!BBBB4x", 60 if k < 8 else 17, 0, 1, 4) for k in range(9))
        payload = exts + udp
        ip6 = struct.pack("!IHBB16s16s", 6 << 28, len(payload), 60, 64, src6, dst6)
        print((eth6 + ip6 + payload).hex())
    else:
        tcp = struct.pack("!HHIIBBHHH", sport, 7000, 1000 + i, 0, 5 << 4, 0x02, 65535, 0, 0)
        c = csum(src4 + dst4 + struct.pack("!xBH", 6, len(tcp)) + tcp)
        tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
        for off, part in ((0, tcp[:8]), (1, tcp[8:])):
            mf = 0x2000 if off == 0 else 0
            h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(part), 0x4000 + i, mf | off, 64, 6, 0, src4, dst4)
            h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
            print((eth4 + h + part).hex())
PY
}
# send FILE: every frame of FILE once, from the namespace.
send() { xargs "$RAW" -n $NS $P <"$1" >/dev/null; }
counter() { "$XRL" -j stats $H | json ".counters.$1"; }

frames v6chain >"$dir/v6chain"
frames synfrag >"$dir/synfrag"
expect_eq "the builder made $N IPv6 frames and $((2 * N)) fragments" \
	"$(wc -l <"$dir/v6chain") $(wc -l <"$dir/synfrag")" "$N $((2 * N))"

# synacks IFACE SECONDS: counts, in the namespace, the connections the host answers with a
# SYN-ACK from port 7000 for SECONDS (its retransmissions counted once); prints "ready" once
# listening, then the count.
cat >"$dir/synacks.py" <<'PY'
import socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
s.bind((sys.argv[1], 0))
s.settimeout(0.2)
print("ready", flush=True)
end, ports = time.time() + float(sys.argv[2]), set()
while time.time() < end:
    try:
        b = s.recv(2048)
    except socket.timeout:
        continue
    ihl = (b[14] & 0xf) * 4
    sport, dport = struct.unpack("!HH", b[14 + ihl:18 + ihl])
    if b[23] == 6 and sport == 7000 and b[14 + ihl + 13] & 0x12 == 0x12:
        ports.add(dport)
print(len(ports), flush=True)
PY
cat >"$dir/listen.py" <<'PY'
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.243.0.1", 7000)); s.listen(4096)
print("ready", flush=True)
time.sleep(600)
PY
python3 "$dir/listen.py" >"$dir/listen.out" &
listener=$!
lab_undo "kill $listener"
lab_wait 10 grep -qx ready "$dir/listen.out" || fail "tcp listener" "not ready within 10 s"
# No SYN cookies, no per-source throttling of SYN-ACKs: each SYN the host accepts is answered.
ip netns exec $NS sysctl -qw net.ipv4.tcp_syncookies=0 2>/dev/null || true

# run POLICY: loads with --malformed POLICY and the rules, sends both floods; sets got6 (datagrams
# the UDP socket received) and gotsyn (SYN-ACKs seen in the namespace).
run() {
	check "load --malformed $1" "$XRL" load $H --malformed "$1"
	check "rules: port 5000/udp and port 7000/tcp at 10/s, proto tcp-syn at 10/s" sh -c "printf '%s\n' \
		'port 5000/udp rate 10/s window 10s aggregate' 'port 7000/tcp rate 10/s window 10s aggregate' \
		'proto tcp-syn rate 10/s window 10s aggregate' | $XRL apply $H -"
	recv_bg "$dir/recv6" fd00:243::1 5000 4
	send "$dir/v6chain"
	wait "$rx"
	got6=$(tail -n 1 "$dir/recv6")
	rm -f "$dir/synacks" # run again: the last one's "ready" must not pass the wait (recv_bg)
	ip netns exec $NS python3 "$dir/synacks.py" $P 3 >"$dir/synacks" &
	local sniff=$!
	lab_wait 10 grep -qx ready "$dir/synacks" || fail "syn-ack counter" "not ready within 10 s"
	send "$dir/synfrag"
	wait $sniff
	gotsyn=$(tail -n 1 "$dir/synacks")
}

run drop-evasive
expect_range "default policy: UDP behind 9 extension headers, limited at 10 a 10 s window: the socket gets at most 10 of $N" \
	"$got6" 0 10
expect_eq "default policy: malformed.ipv6_chain counts the $N" "$(counter malformed.ipv6_chain)" $N
expect_range "default policy: SYNs in tiny fragments, limited at 10: at most 10 SYN-ACKs of $N" "$gotsyn" 0 10
expect_eq "default policy: malformed.frag_tiny counts the $N first fragments and the $N at offset 8" \
	"$(counter malformed.frag_tiny)" $((2 * N))
expect_eq "status names the policy" \
	"$($XRL -j status | json ".interfaces[] | select(.interface==\"$H\") | .malformed")" drop-evasive
check "unload" "$XRL" unload $H

# What --malformed pass means: the host delivers them all, past every rule (documented as such).
run pass
expect_range "--malformed pass: the socket gets what the rules never saw (more than the limit)" "$got6" 11 $N
expect_range "--malformed pass: the SYNs are answered past the rules" "$gotsyn" 11 $N
check "unload" "$XRL" unload $H
finish
