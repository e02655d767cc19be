#!/usr/bin/env bash
# The CLI end to end: load, rules, real traffic over veth, stats against the receiver's count,
# explain, dump | apply, two interfaces, unload.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-a
lab_prologue cli_traffic $NS xrle0 xrle1 10.210.0 fd00:210
veth_lab $NS xrle2 xrle3 10.211.0 fd00:211
lab_undo "$XRL unload xrle2"

check "load attaches natively" "$XRL" load xrle0
check "the program is attached" sh -c "ip -d link show xrle0 | grep -q 'xdp'"
expect_eq "status lists the interface" "$($XRL -j status | json '.interfaces[] | select(.interface=="xrle0") | .state')" attached

rules=$dir/rules
cat >"$rules" <<'R'
# per-source limit on the service port
port 6000/udp rate 200/s window 1s buckets 2 per-source
prefix 10.210.0.3/32 rate 50/s aggregate   # a noisy client
prefix 10.210.0.5/32 allow
R
check "apply a rules file" "$XRL" apply xrle0 "$rules"
expect_eq "dump shows three rules" "$($XRL dump xrle0 | wc -l)" 3

# Traffic: .2 at 5x its limit, .3 at 10x the prefix limit, .5 allowed, for 2 seconds.
out=$dir/recv
sent5=$dir/sent5
recv_bg "$out" 10.210.0.1 6000 4
$UDP send -n $NS 10.210.0.2 10.210.0.1 6000 1000 2 >/dev/null &
$UDP send -n $NS 10.210.0.3 10.210.0.1 6000 500 2 >/dev/null &
# 600 datagrams at 300/s: the sender stops at the count, or at 3 s if it was held up so long
# that it could not catch up; it prints what it sent, which is what the allow rule must pass.
$UDP send -n $NS 10.210.0.5 10.210.0.1 6000 300 3 600 >"$sent5" &
# Once the flood filled it, the window holds the threshold's worth, except just after the bucket
# holding the passes expires, while the next 50 packets (0.1 s at 500/s) pass: so look until the
# next packet is blocked, well inside the 2 s flood.
# shellcheck disable=SC2317 # run by lab_wait
blocked_next() {
	e=$($XRL -j explain xrle0 --src 10.210.0.3 --dport 6000/udp)
	verdict=$(echo "$e" | json .verdict)
	[ "$verdict" = block ]
}
lab_wait 3 blocked_next
expect_eq "explain: the flooding source's next packet is blocked" "$verdict" block
expect_eq "explain: its prefix window holds the threshold" \
	"$(echo "$e" | json '.rules[] | select(.rule | startswith("prefix")) | .window_passed')" 50
wait %2 %3 %4
expect_eq "explain: an allowed source passes" "$($XRL -j explain xrle0 --src 10.210.0.5 --dport 6000/udp | json .verdict)" pass
wait $rx
received=$(tail -1 "$out")
stats=$($XRL -j stats xrle0)
port_pass=$(echo "$stats" | json '.rules[] | select(.rule | startswith("port 6000/udp")) | .passed')
allow_pass=$(echo "$stats" | json '.rules[] | select(.rule | contains("allow")) | .passed')
prefix_pass=$(echo "$stats" | json '.rules[] | select(.rule | startswith("prefix 10.210.0.3/32")) | .passed')
expect_eq "stats: passed by the rules equals received by the service" "$((port_pass + allow_pass))" "$received"
expect_range "the allowed source sent its 600 (or most, if held up for a second)" "$(cat "$sent5")" 300 600
expect_eq "allow: every packet of the allowed source passes" "$allow_pass" "$(cat "$sent5")"
# 2 s of traffic: a 1 s window admits at most 200 for .2 and 50 for .3 in any window.
expect_range "prefix rule admits ~50/s of 1000 sent" "$prefix_pass" 50 150
expect_range "port rule admits ~200/s for .2 plus .3's share" "$((port_pass - prefix_pass))" 200 600
seen=$(echo "$stats" | json .counters.seen)
sum=$(echo "$stats" | json '.counters.passed + .counters.dropped')
expect_eq "counters: seen = passed + dropped" "$sum" "$seen"

# Round trip and counters kept across apply.
d1=$($XRL dump xrle0)
check "dump | apply round-trips" sh -c "$XRL dump xrle0 | $XRL apply xrle0 - >/dev/null"
expect_eq "dump after apply is unchanged" "$($XRL dump xrle0)" "$d1"
expect_eq "apply keeps a kept rule's counters" "$($XRL -j stats xrle0 | json '.rules[] | select(.rule | startswith("port 6000/udp")) | .passed')" "$port_pass"

# A bad file is refused whole, naming the line.
printf 'port 7000/udp rate 10/s\nport 7001/udp rate fast\n' >"$rules"
msg=$($XRL apply xrle0 "$rules" 2>&1); rc=$?
expect_eq "bad rules file exits 2" "$rc" 2
check "bad rules file names the line and word" grep -q ":2: rate 'fast'" <<<"$msg"
expect_eq "nothing of a refused file is applied" "$($XRL dump xrle0)" "$d1"

# Single rules.
check "rule add" "$XRL" rule add xrle0 port 7000/tcp rate 10k/s aggregate monitor
check "rule list shows it" sh -c "$XRL rule list xrle0 | grep -q 'port 7000/tcp rate 10k/s window 1s buckets 2 aggregate monitor'"
msg=$($XRL rule add xrle0 port 7000/tcp rate 5/s 2>&1); rc=$?
expect_eq "adding a duplicate fails" "$rc" 1
check "rule del" "$XRL" rule del xrle0 port 7000/tcp
expect_eq "rule del removed it" "$($XRL dump xrle0)" "$d1"

# A second interface with its own rules.
check "load a second interface" "$XRL" load xrle2 --clock coarse
check "its own rules" "$XRL" rule add xrle2 port 6000/udp rate 20/s aggregate
recv_bg "$out" 10.211.0.1 6000 2.5
$UDP send -n $NS 10.211.0.2 10.211.0.1 6000 500 1 >/dev/null
wait $rx
expect_range "second interface enforces its own 20/s" "$(tail -1 "$out")" 20 45
# A set of prefix rules only (the first was ports only): the program skips the ports map.
check "apply a set of prefix rules only" sh -c "echo 'prefix 10.211.0.0/24 rate 30/s aggregate' | $XRL apply xrle2 -"
recv_bg "$out" 10.211.0.1 6000 2.5
$UDP send -n $NS 10.211.0.2 10.211.0.1 6000 500 0.5 >/dev/null
wait $rx
# 250 frames in half a second: the bucket holding the 30 passes cannot leave the window before
# the sender ends, unless the sender is slowed to twice its time. What the rule passed is read
# from the limiter: under load the stack behind it has lost one of the 30 on its way to the
# receiver (the limiter's count was 30 every time), so the receiver is held only to no more.
passed=$($XRL -j stats xrle2 | jq -r '.rules[] | select(.rule | startswith("prefix 10.211.0.0/24")) | .passed')
expect_range "a set of prefix rules only enforces its 30/s" "$passed" 30 60
expect_range "the receiver got no more than the rule passed" "$(tail -1 "$out")" 1 "$passed"
expect_eq "first interface's rules are untouched" "$($XRL dump xrle0)" "$d1"
# explain names the longest matching prefix, as the kernel's trie finds it.
check "apply nested prefixes" sh -c "printf '%s\n' 'prefix 10.211.0.0/16 rate 10/s' \
	'prefix 10.211.0.0/24 rate 20/s' 'prefix 10.211.0.2/32 rate 30/s' 'prefix 10.0.0.0/8 allow' | $XRL apply xrle2 -"
longest() { $XRL -j explain xrle2 --src "$1" | json '.rules[0].rule // "none"' | cut -d' ' -f2; }
expect_eq "explain: a /32 inside a /24 inside a /16" "$(longest 10.211.0.2)" 10.211.0.2/32
expect_eq "explain: the /24 for its other hosts" "$(longest 10.211.0.9)" 10.211.0.0/24
expect_eq "explain: the /16 outside the /24" "$(longest 10.211.7.1)" 10.211.0.0/16
expect_eq "explain: the /8 elsewhere" "$(longest 10.9.9.9)" 10.0.0.0/8
expect_eq "explain: no prefix outside them all" "$(longest 192.0.2.1)" none

# Killing a command never stops enforcement: nothing runs after load.
$XRL stats xrle0 --watch >"$dir/watch" 2>&1 &
watcher=$!
lab_wait 5 test -s "$dir/watch" || fail "stats --watch" "printed nothing within 5 s"
kill -9 $watcher 2>/dev/null; wait $watcher 2>/dev/null
sleep 1.2 # let the earlier flood's window pass
recv_bg "$out" 10.210.0.1 6000 2.5
$UDP send -n $NS 10.210.0.2 10.210.0.1 6000 1000 1 >/dev/null
wait $rx
expect_range "limits hold with no process running" "$(tail -1 "$out")" 200 400

# Unload leaves nothing pinned or attached.
pins=$(pin_dir xrle2)
check "unload" "$XRL" unload xrle2
check "no pins left" test -n "$pins" -a ! -e "$pins"
check "no XDP left on the interface" sh -c "! ip -d link show xrle2 | grep -q 'prog/xdp'"
finish
