#!/usr/bin/env bash
# Issue 34's attacks end to end, each with legitimate traffic mixed in and counted at a real
# socket, under the rules docs/guide.md recommends for it ("Attacks, and rules that stop them"):
# DNS reflection (big answers from port 53; small answers and the resolver's big ones pass), NTP
# monlist reflection (by its fingerprint; other NTP passes), memcached reflection (from port
# 11211; other UDP passes), a bare-ACK flood and a RST flood to port 443 (an established
# connection to 443 from another source delivers every byte). The floods are raw frames
# (build/xrl-rawsend); the legitimate traffic comes from sockets, and sockets count it.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
NS=xrlq-a H=xrlq0 P=xrlq1
raw_lab attacks $NS $H $P 10.246.0 fd00:246

check "load attaches natively" "$XRL" load $H

# frame KIND SRC ...: one Ethernet frame in hex, from the namespace's side to the host's.
#   udp SRC SPORT DPORT HEXPAYLOAD BYTES: the payload's first bytes, padded to BYTES
#   tcp SRC DPORT FLAGS
frame() {
	PYTHONPATH="$ROOT/tests/e2e" python3 - "$PMAC" "$HMAC" "$@" <<'PY'
import struct, sys
from frames import eth, ip4
smac, dmac, kind, src = sys.argv[1:5]
args = sys.argv[5:]
if kind == "udp":
    data = bytes.fromhex(args[2]).ljust(int(args[3]), b"r")
    pkt = ip4(src, "10.246.0.1", 17, struct.pack("!HHHH", int(args[0]), int(args[1]), 8 + len(data), 0) + data)
else:
    seg = struct.pack("!HHIIBBHHH", 40000, int(args[0]), 7, 9, 5 << 4, int(args[1], 16), 65535, 0, 0)
    pkt = ip4(src, "10.246.0.1", 6, seg)
print((eth(smac, dmac) + pkt).hex())
PY
}
# A flood of COUNT copies of a frame; a failure if the kernel took fewer (the counts below assume all).
flood() {
	local out
	out=$("$RAW" -n $NS -c "$1" $P "$2")
	[[ $out == *" sent $1" ]] || fail "flood of $1" "xrl-rawsend sent fewer: $out"
}
rule_stat() { "$XRL" -j stats $H | jq -r --arg r "$1" '[.rules[] | select(.rule | startswith($r))][0].'"$2"; }

# Legitimate UDP from a source port of its own (a socket bound to it), paced: PPS for SECONDS.
cat >"$dir/send.py" <<'PY'
import socket, sys, time
src, sport, port, size, pps, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((src, sport))
n, t0 = 0, time.monotonic()
while time.monotonic() - t0 < secs:
    s.sendto(b"l" * size, ("10.246.0.1", port))
    n += 1
    time.sleep(1 / pps)
print(n, flush=True)
PY
legit() { ip netns exec $NS python3 "$dir/send.py" "$@"; }

rules=$dir/rules
cat >"$rules" <<'R'
proto udp sport 53 src 10.246.0.5 allow
proto udp sport 53 length 512-65535 rate 20/s aggregate
proto udp sport 123 payload 2 032a rate 10/s aggregate
proto udp sport 11211 rate 1/s aggregate
proto tcp tcp flags ack / syn,ack,rst dport 443 rate 200/s per-source
proto tcp tcp flags rst / rst dport 443 rate 20/s per-source
R
check "apply the guide's rules for the attacks" "$XRL" apply $H "$rules"
dump=$($XRL dump $H)
check "dump | apply" sh -c "$XRL dump $H | $XRL apply $H -"
expect_eq "dump | apply round-trips" "$($XRL dump $H)" "$dump"
expect_eq "status says the program carries them" \
	"$($XRL -j status | jq -r --arg i $H '.interfaces[] | select(.interface == $i) | .features | index("match") != null')" true

# 1. DNS reflection: 3000 answers of 600 bytes from port 53 of .2 to port 7001, while .3
# answers small from port 53, .5 (the resolver, allowed) answers big, both to port 7000.
recv_bg "$dir/dns.out" 10.246.0.1 7000 5
legit 10.246.0.3 53 7000 100 100 2 >"$dir/dns.small" &
small=$!
legit 10.246.0.5 53 7000 600 100 2 >"$dir/dns.big" &
big=$!
flood 3000 "$(frame udp 10.246.0.2 53 7001 "" 600)"
# At once: the rule's window is the flood's second.
expect_eq "explain: the flood's next answer is blocked, by its protocol, source port and length" \
	"$($XRL -j explain $H --src 10.246.0.2 --dport 7001/udp --sport 53 --length 628 |
		jq -r '[.verdict, (.rules[0].fields_matched | join(","))] | join(" ")')" "block proto,sport,length"
wait $small $big
wait $rx
sent=$(($(cat "$dir/dns.small") + $(cat "$dir/dns.big")))
expect_range "DNS: the legitimate answers, small and the resolver's, all delivered" \
	"$(tail -n 1 "$dir/dns.out")" $((sent * 99 / 100)) "$sent"
expect_range "DNS: the reflected flood held to its 20 a second" \
	"$(rule_stat "proto udp sport 53 length" passed)" 1 80
expect_range "... the rest blocked" "$(rule_stat "proto udp sport 53 length" blocked)" 2920 2999

# 2. NTP monlist reflection by its fingerprint, while NTP of another request passes.
recv_bg "$dir/ntp.out" 10.246.0.1 7002 4
flood 2000 "$(frame udp 10.246.0.2 123 7003 d700032a 440)"
flood 300 "$(frame udp 10.246.0.3 123 7002 d7000214 440)"
wait $rx
expect_eq "NTP: every datagram of another request delivered" "$(tail -n 1 "$dir/ntp.out")" 300
expect_range "NTP: the monlist flood held to its 10 a second" "$(rule_stat "proto udp sport 123" passed)" 1 40
expect_range "... the rest blocked" "$(rule_stat "proto udp sport 123" blocked)" 1960 1999

# 3. memcached reflection from port 11211, while UDP from another port of the same source passes.
recv_bg "$dir/mc.out" 10.246.0.1 7004 4
legit 10.246.0.2 5000 7004 1000 100 2 >"$dir/mc.sent" &
sender=$!
flood 2000 "$(frame udp 10.246.0.2 11211 7005 "" 1000)"
wait $sender
wait $rx
mc=$(cat "$dir/mc.sent")
expect_range "memcached: the same source's other UDP delivered" "$(tail -n 1 "$dir/mc.out")" $((mc * 99 / 100)) "$mc"
expect_range "memcached: the flood held to its 1 a second" "$(rule_stat "proto udp sport 11211" passed)" 1 5

# 4. Bare-ACK and RST floods to 443 from .2 and .4, while .3's connection to 443 delivers every byte.
cat >"$dir/server.py" <<'PY'
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.246.0.1", 443)); s.listen(16)
print("ready", flush=True)
c, _ = s.accept(); n = 0
while True:
    b = c.recv(65536)
    if not b:
        break
    n += len(b)
print(n, flush=True)
PY
cat >"$dir/client.py" <<'PY'
import socket, sys, time
c = socket.create_connection(("10.246.0.1", 443), source_address=("10.246.0.3", 0), timeout=5)
print("connected", flush=True)
for _ in range(150):
    time.sleep(0.01)
    c.sendall(b"y" * 100)
c.close()
PY
python3 "$dir/server.py" >"$dir/server.out" &
lab_wait 10 grep -qx ready "$dir/server.out" || fail "tcp server" "not ready within 10 s"
ip netns exec $NS python3 "$dir/client.py" >"$dir/client.out" 2>&1 &
client=$!
lab_wait 10 grep -qx connected "$dir/client.out" || fail "tcp client" "did not connect: $(cat "$dir/client.out")"
flood 5000 "$(frame tcp 10.246.0.2 443 10)"
flood 2000 "$(frame tcp 10.246.0.4 443 04)"
wait $client
lab_wait 10 sh -c "[ \$(wc -l <'$dir/server.out') -ge 2 ]"
expect_eq "TCP: the connection to 443 through both floods delivered every byte" "$(tail -n 1 "$dir/server.out")" 15000
expect_range "TCP: the bare-ACK flood blocked but for its source's 200 a second" \
	"$(rule_stat "proto tcp tcp flags ack" blocked)" 4000 4999
expect_range "TCP: the RST flood blocked but for its source's 20 a second" \
	"$(rule_stat "proto tcp tcp flags rst" blocked)" 1900 1999
wait
finish
