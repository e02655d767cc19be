#!/usr/bin/env bash
# Rules of several windows end to end (issue 35): the issue's three lines lint, apply and
# round-trip through dump; a burst and a sustained rate on one rule, each holding on real
# traffic: a flood in half a second meets the burst window (20 a second over 4 s: 80), a steady
# 40 a second for 4 s the sustained one (100 a minute); stats counts one line with each window's
# blocks, and explain names the window that decides; the grammar's refusals.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrlw5-a H=xrlw50 P=xrlw51
lab_prologue windows $NS $H $P 10.235.0 fd00:235
check "load attaches natively" "$XRL" load $H

cat >"$dir/issue" <<'R'
port 27015/udp rate 20/s rate 600/min per-source                     # burst and sustained on one rule
port 80/tcp rate 6000/min window 60s buckets 60 per-source           # Sentinel's minute window
port 443/tcp rate 100/s rate 2000/min rate 50Mbit/s per-source        # three windows, one of them bytes
R
check "lint: the issue's three lines" "$XRL" lint "$dir/issue"
check "apply: the issue's three lines" "$XRL" apply $H "$dir/issue"
expect_eq "dump prints each rate with its window, in order" "$($XRL dump $H)" "port 27015/udp rate 20/s rate 600/min per-source
port 80/tcp rate 6k/min window 1m buckets 60 per-source
port 443/tcp rate 100/s rate 2k/min rate 50Mbit/s per-source"
dump=$($XRL dump $H)
check "dump | apply" sh -c "$XRL dump $H | $XRL apply $H -"
expect_eq "dump | apply round-trips" "$($XRL dump $H)" "$dump"
expect_eq "status: the program carries windows" "$($XRL -j status | jq -r --arg i $H \
	'.interfaces[] | select(.interface == $i) | .features | index("windows") != null')" true
expect_eq "dump -j: the rates, each with its window" \
	"$($XRL -j dump $H | json '[.rules[2].rates[] | "\(.rate) \(.counts) \(.threshold) \(.window_ms)"] | join(",")')" \
	"100/s packets 100 1000,2k/min packets 2000 60000,50Mbit/s bytes 6250000 1000"

cat >"$dir/rules" <<'R'
port 7300/udp rate 20/s window 4s rate 600/min per-source
port 7301/udp rate 50/s rate 100/min per-source
R
check "apply a burst and a sustained rate" "$XRL" apply $H "$dir/rules"

# A flood of 400 a second for half a second, within one 2 s bucket of the burst window: its 80
# pass, and it holds them (and the sustained window too) for 2 s more at least.
recv_bg "$dir/recv1" 10.235.0.1 7300 2
$UDP send -n $NS 10.235.0.2 10.235.0.1 7300 400 0.5 >"$dir/sent1"
judged_wait "$(cat "$dir/sent1")" $H "port 7300/udp"
e=$($XRL -j explain $H --src 10.235.0.2 --dport 7300/udp)
wait $rx
expect_eq "the burst window admits its 80" "$(tail -1 "$dir/recv1")" 80
expect_eq "explain: the first window decides" "$(echo "$e" | json '.rules[0].decided_by')" 0
expect_eq "explain: the second is not over" "$(echo "$e" | json '.rules[0].windows[1].over')" false
expect_eq "explain: the second window holds the 80 passed" "$(echo "$e" | json '.rules[0].windows[1].window_passed')" 80

# 40 a second for 4 s, under the burst window: the sustained window's 100 pass, the rest blocked.
recv_bg "$dir/recv2" 10.235.0.1 7301 6
$UDP send -n $NS 10.235.0.3 10.235.0.1 7301 40 4 >"$dir/sent2"
sent=$(cat "$dir/sent2")
judged_wait "$sent" $H "port 7301/udp"
wait $rx
expect_eq "the sustained window admits its 100" "$(tail -1 "$dir/recv2")" 100
stats=$($XRL -j stats $H)
rule() { echo "$stats" | json ".rules[] | select(.match == \"port 7301/udp\") | $1"; }
expect_eq "stats: one line, its passes" "$(rule .passed)" 100
expect_eq "stats: the first window decided none" "$(rule '.windows[0].blocked')" 0
expect_eq "stats: the second decided every block" "$(rule '.windows[1].blocked')" "$((sent - 100))"
expect_eq "stats: the blocks add up" "$(rule .blocked)" "$((sent - 100))"
if $XRL stats $H | grep -q "windows: 50/s over 1s in 2 buckets: 0 blocked; 100/min over 1m in 2 buckets: $((sent - 100)) blocked"; then
	pass "stats: each window's blocks in the text"
else
	fail "stats text" "$($XRL stats $H)"
fi
e=$($XRL -j explain $H --src 10.235.0.3 --dport 7301/udp)
expect_eq "explain: the second window decides" "$(echo "$e" | json '.rules[0].decided_by')" 1
expect_eq "explain: and says so" "$(echo "$e" | json .why)" \
	"over window 2 (100/min over 1m in 2 buckets) of 'port 7301/udp rate 50/s rate 100/min per-source'"
if $XRL explain $H --src 10.235.0.3 --dport 7301/udp | grep -q "window 2 (100/min over 1m in 2 buckets): 100 packets passed"; then
	pass "explain: each window in the text"
else
	fail "explain text" "$($XRL explain $H --src 10.235.0.3 --dport 7301/udp)"
fi
# Another source has its own windows.
expect_eq "explain: another source passes" "$($XRL -j explain $H --src 10.235.0.4 --dport 7301/udp | json .verdict)" pass

# The grammar's refusals: exit 2, naming the problem and the fix; nothing changed.
before=$($XRL dump $H)
expect_err "two rates over one window are refused" 2 "'20/s' and '30/s' count packets over the same window" \
	"$XRL" rule add $H port 7302/udp rate 20/s rate 30/s
expect_err "five rates are refused" 2 "a rule takes at most 4" \
	"$XRL" rule add $H port 7302/udp rate 20/s rate 1/min rate 2/h rate 1Mbit/s rate 1MB/min
expect_err "global takes one rate" 2 "'global' shares one packet rate" \
	"$XRL" rule add $H port 7302/udp rate 20/s rate 600/min aggregate global
expect_eq "nothing was applied" "$($XRL dump $H)" "$before"
finish
