#!/usr/bin/env bash
# Protocol rules and fragments end to end, over a veth into the interface the CLI loaded the
# limiter on: a SYN flood from one source limited per source by 'proto tcp-syn' while an
# established TCP connection from that same source to the same port carries all its data and
# another source still connects; an ICMP echo flood limited by 'proto icmp type 8' while UDP from
# the same source passes whole; later fragments, which no port rule sees, limited by 'fragments'.
# The floods are raw frames (build/xrl-rawsend); the connection and the UDP stream are real sockets.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
NS=xrlr-a H=xrlr0 P=xrlr1
raw_lab proto_rules $NS $H $P 10.241.0 fd00:241

check "load attaches natively" "$XRL" load $H

# frame KIND SRC ...: one Ethernet frame in hex, from the namespace's side to the host's.
#   tcp SRC DPORT FLAGS | icmp SRC TYPE | frag SRC OFFSET_BYTES (a later UDP fragment, 64 bytes of it)
frame() {
	PYTHONPATH="$ROOT/tests/e2e" python3 - "$PMAC" "$HMAC" "$@" <<'PY'
import struct, sys
from frames import csum, eth, ip4
smac, dmac, kind, src = sys.argv[1:5]
args = sys.argv[5:]
if kind == "tcp":
    seg = struct.pack("!HHIIBBHHH", 40000, int(args[0]), 1, 0, 5 << 4, int(args[1], 16), 65535, 0, 0)
    pkt = ip4(src, "10.241.0.1", 6, seg)
elif kind == "icmp":
    msg = struct.pack("!BBHHH", int(args[0]), 0, 0, 0x77, 1) + b"x" * 32
    msg = msg[:2] + struct.pack("!H", csum(msg)) + msg[4:]
    pkt = ip4(src, "10.241.0.1", 1, msg)
else:
    pkt = ip4(src, "10.241.0.1", 17, b"f" * 64, 0x2000 | (int(args[0]) // 8))
print((eth(smac, dmac) + pkt).hex())
PY
}
send() { "$RAW" -n $NS -c "$1" $P "$2" >/dev/null; }
rule_stat() { "$XRL" -j stats $H | jq -r --arg r "$1" ".rules[] | select(.rule | startswith(\$r)) | .$2"; }
counter() { "$XRL" -j stats $H | json ".counters.$1"; }

rules=$dir/rules
cat >"$rules" <<'R'
proto tcp-syn         rate 5/s  window 2s per-source
proto icmp type 8     rate 10/s window 2s per-source
port 7100/udp         rate 5/s  aggregate
R
check "apply protocol rules" "$XRL" apply $H "$rules"
expect_eq "dump prints them in the grammar" "$($XRL dump $H)" "port 7100/udp rate 5/s window 1s buckets 2 aggregate
proto tcp-syn rate 5/s window 2s buckets 2 per-source
proto icmp type 8 rate 10/s window 2s buckets 2 per-source"
dump=$($XRL dump $H)
check "dump | apply" sh -c "$XRL dump $H | $XRL apply $H -"
expect_eq "dump | apply round-trips" "$($XRL dump $H)" "$dump"
expect_eq "dump -j names their kind" "$($XRL -j dump $H | json '[.rules[].kind] | join(",")')" "port,proto,proto"

# 1. A TCP connection from .2, established before the flood (its SYN is one of the 5 a window).
cat >"$dir/server.py" <<'PY'
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.241.0.1", 7000)); s.listen(16)
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
c = socket.create_connection(("10.241.0.1", 7000), source_address=(sys.argv[1], 0), timeout=5)
print("connected", flush=True)
for _ in range(int(sys.argv[2])):
    time.sleep(float(sys.argv[3]))
    c.sendall(b"y" * 100)
c.close()
PY
python3 "$dir/server.py" >"$dir/server.out" &
lab_wait 10 grep -qx ready "$dir/server.out" || fail "tcp server" "not ready within 10 s"
# 100 segments of 100 bytes, 20 ms apart: 2 s of ACK/PSH segments through the flood below.
ip netns exec $NS python3 "$dir/client.py" 10.241.0.2 100 0.02 >"$dir/client.out" 2>&1 &
client=$!
lab_wait 10 grep -qx connected "$dir/client.out" || fail "tcp client" "did not connect: $(cat "$dir/client.out")"
syn=$(frame tcp 10.241.0.2 7000 02)
send 2000 "$syn"
# At once: the window is 2 s and the connection runs 2 s more.
expect_eq "explain: the flooding source's next SYN is blocked" \
	"$($XRL -j explain $H --src 10.241.0.2 --proto tcp-syn | json .verdict)" block
wait $client
lab_wait 10 sh -c "[ \$(wc -l <'$dir/server.out') -ge 2 ]"
expect_eq "the established connection from the flooding source delivered every byte" \
	"$(tail -n 1 "$dir/server.out")" 10000
passed=$(rule_stat "proto tcp-syn" passed) blocked=$(rule_stat "proto tcp-syn" blocked)
expect_range "the SYN flood's frames were blocked but for the window's 10" "$blocked" 1990 2000
expect_range "... of which the connection's own SYN and at most 9 flood SYNs passed" "$passed" 1 10
expect_eq "metrics: the tcp-syn rule's blocked total under its line, as stats counts it" \
	"$($XRL metrics $H | awk '/^xdp_ratelimit_rule_blocked_total.*rule="proto tcp-syn rate 5\/s window 2s buckets 2 per-source"/ { print $NF }')" \
	"$blocked"
for f in 10 12 14 04 11 18; do send 20 "$(frame tcp 10.241.0.2 7000 $f)"; done
expect_eq "SYN+ACK, ACK, RST, FIN+ACK, PSH+ACK frames from the flooding source never meet tcp-syn" \
	"$(rule_stat "proto tcp-syn" blocked)" "$blocked"
expect_eq "explain: its next ACK meets no rule and passes" \
	"$($XRL -j explain $H --src 10.241.0.2 --proto tcp | json .verdict)" pass
python3 "$dir/server.py" >"$dir/server2.out" &
lab_wait 10 grep -qx ready "$dir/server2.out"
if ip netns exec $NS python3 "$dir/client.py" 10.241.0.3 1 0 >/dev/null 2>&1; then
	pass "another source connects to the same port during the flood (a window per source)"
else
	fail "another source connects" "10.241.0.3 could not connect"
fi
wait

# 2. An ICMP echo flood from .2 while UDP from .2 passes whole.
recv_bg "$dir/udp.out" 10.241.0.1 6000 4
$UDP send -n $NS 10.241.0.2 10.241.0.1 6000 200 1 200 >"$dir/udp.sent" &
send 1000 "$(frame icmp 10.241.0.2 8)"
wait
expect_range "the echo flood was held to its window (20 a 2s window)" "$(rule_stat "proto icmp type 8" passed)" 1 20
expect_range "... the rest blocked" "$(rule_stat "proto icmp type 8" blocked)" 980 999
expect_eq "UDP from the flooding source arrived whole" "$(tail -n 1 "$dir/udp.out")" "$(tail -n 1 "$dir/udp.sent")"
before=$(rule_stat "proto icmp type 8" blocked)
send 50 "$(frame icmp 10.241.0.2 0)"
expect_eq "echo replies (type 0) do not meet the type 8 rule" "$(rule_stat "proto icmp type 8" blocked)" "$before"

# 3. Later fragments: no port rule sees them; a fragments rule limits them.
frag=$(frame frag 10.241.0.2 1480)
norule=$(counter no_rule)
send 100 "$frag"
expect_eq "with a port rule only, 100 later fragments match no rule" "$(($(counter no_rule) - norule))" 100
printf 'fragments rate 10/s window 2s aggregate\n' >>"$rules"
check "apply with a fragments rule" "$XRL" apply $H "$rules"
send 200 "$frag"
expect_range "the fragments rule passed its window's 20" "$(rule_stat fragments passed)" 1 20
expect_range "... and blocked the rest" "$(rule_stat fragments blocked)" 180 199
expect_eq "explain: the next later fragment is blocked" \
	"$($XRL -j explain $H --src 10.241.0.9 --proto udp --fragment | json .verdict)" block
finish
