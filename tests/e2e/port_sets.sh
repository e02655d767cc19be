#!/usr/bin/env bash
# Named port sets end to end: 'set web ports { ... }' used as 'dport @web' and 'dport != @web'
# holds a flood to a port of the set to the set's rule; dump writes the set line and the rule,
# and dump | apply round-trips; explain names the set and whether it holds the port; set update
# replaces the set's ports under a flood, atomically (each frame judged by exactly one of the two
# rules, none lost between them), and the negated rule holds the port from then on; a file of
# the other kind, a port set where prefixes go and the other way round, an unused port set and
# one past 128 ranges are refused with exit 2, changing nothing.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-ps H=xrlps0 P=xrlps1
lab_prologue port_sets $NS $H $P 10.251.0 fd00:251
M1="src @lab proto udp dport @web" M2="proto udp dport != @web"

printf '7000\n7100-7199   # the game servers\n' >"$dir/web.txt"
cat >"$dir/ports.rules" <<EOF
set web ports file web.txt
set lab { 10.251.0.0/24 }
src @lab proto udp dport @web rate 100/s window 1s aggregate
proto udp dport != @web rate 10/s window 1s aggregate
EOF

# 1. Refusals, with no interface (lint) and against one (apply): exit 2, nothing applied.
printf 'set web ports { 80 }\nsrc @web proto tcp rate 1/s\n' >"$dir/asrc.rules"
expect_err "a port set as a source is refused" 2 "'src @web': set web holds ports.*'dport @web'" \
	"$XRL" lint "$dir/asrc.rules"
printf 'set web ports { 80 }\nprefix @web rate 1/s\n' >"$dir/apfx.rules"
expect_err "a port set as a prefix rule's set is refused" 2 "'prefix @web': set web holds ports" \
	"$XRL" lint "$dir/apfx.rules"
printf 'set lab { 10.0.0.0/8 }\nproto tcp dport @lab rate 1/s\n' >"$dir/aport.rules"
expect_err "a prefix set as ports is refused" 2 "'dport @lab': set lab holds prefixes.*'src @lab' or 'dst @lab'" \
	"$XRL" lint "$dir/aport.rules"
printf 'set web ports { 80 }\nproto tcp dport 80 rate 1/s\n' >"$dir/unused.rules"
expect_err "an unused port set is refused" 2 "port set web is defined but no rule uses it" \
	"$XRL" lint "$dir/unused.rules"
awk 'BEGIN { printf "set big ports {"; for (i = 0; i < 129; i++) printf " %d,", 2 * i; print " }"
	print "proto udp dport @big rate 1/s" }' >"$dir/big.rules"
expect_err "a port set past 128 ranges is refused" 2 "more than 128 ranges of ports" "$XRL" lint "$dir/big.rules"
check "load" "$XRL" load $H
expect_err "apply refuses it too, changing nothing" 2 "set web holds ports.*nothing was applied" \
	"$XRL" apply $H "$dir/asrc.rules"
expect_err "lint takes the port sets' rules" 0 "2 rules, grammar valid" "$XRL" lint "$dir/ports.rules"

# 2. Applied: dump writes the set and the rules as written; dump | apply round-trips.
check "apply the port set's rules" "$XRL" apply $H "$dir/ports.rules"
expect_eq "dump: the set's line" "$($XRL dump $H | grep '^set web')" "set web ports file $dir/web.txt"
expect_eq "dump --inline: its ranges" "$($XRL dump $H --inline | grep '^set web')" "set web ports { 7000, 7100-7199 }"
expect_eq "dump: the rules" "$($XRL dump $H | grep dport | sort)" \
	"proto udp dport != @web rate 10/s aggregate
src @lab proto udp dport @web rate 100/s aggregate"
conforms dump "$XRL" -j dump $H
expect_eq "dump -j: the set's type and ranges" "$($XRL -j dump $H | jq -c '.sets[] | select(.name == "web") | [.type, .ports]')" \
	'["ports",[[7000,7000],[7100,7199]]]'
dump=$($XRL dump $H --inline)
check "dump --inline | apply" sh -c "$XRL dump $H --inline | $XRL apply $H -"
expect_eq "... round-trips" "$($XRL dump $H --inline)" "$dump"

# 3. explain: the set and whether it holds the port.
expect_err "explain names the port set" 0 "port set web: dport 7150 is in it" \
	"$XRL" explain $H --src 10.251.0.2 --dport 7150/udp
expect_eq "explain -j: the rule and its port set" \
	"$($XRL -j explain $H --src 10.251.0.2 --dport 7150/udp | jq -c '.rules[0] | [.rule, .port_sets]')" \
	'["src @lab proto udp dport @web rate 100/s aggregate",[{"field":"dport","set":"web","port":7150,"in_set":true}]]'
expect_eq "explain: a port outside it meets the negated rule" \
	"$($XRL -j explain $H --src 10.251.0.2 --dport 7300/udp | jq -c '.rules[0] | [.rule, .port_sets]')" \
	'["proto udp dport != @web rate 10/s aggregate",[{"field":"dport","set":"web","port":7300,"in_set":false}]]'
conforms explain "$XRL" -j explain $H --src 10.251.0.2 --dport 7150/udp

# 4. A flood to 7150, a port of the set, held to the set's rule.
recv_bg "$dir/rx" 10.251.0.1 7150 3
$UDP send -n $NS 10.251.0.2 10.251.0.1 7150 1000 2 >/dev/null
wait "$rx"
expect_range "the set's rule holds the flood to its port (100/s over 2 s)" "$(tail -n 1 "$dir/rx")" 150 302

# 5. set update under a flood: 7150 leaves the set; every frame judged once, by one rule or the other.
printf '7000\n' >"$dir/web2.txt"
printf '10.0.0.0/8\n' >"$dir/prefixes.txt"
expect_err "set update refuses a file of prefixes for a port set" 2 \
	"set web holds ports, and .*prefixes.txt holds prefixes.*nothing was changed" \
	"$XRL" set update $H web "$dir/prefixes.txt"
expect_err "... and a file of ports for a prefix set" 2 "set lab holds prefixes, and .*web2.txt holds ports" \
	"$XRL" set update $H lab "$dir/web2.txt"
printf '7000\n99999\n' >"$dir/bad.txt"
expect_err "... a bad line, by its line" 2 "bad.txt:2: '99999' is out of range.*nothing was changed" \
	"$XRL" set update $H web "$dir/bad.txt"
expect_eq "... and nothing changed" "$($XRL dump $H --inline | grep '^set web')" "set web ports { 7000, 7100-7199 }"
before=$(judged $H "$M1" "$M2")
recv_bg "$dir/rx2" 10.251.0.1 7150 5
$UDP send -n $NS 10.251.0.2 10.251.0.1 7150 1000 3 >"$dir/sent" &
sender=$!
traffic_on $H
expect_err "set update under the flood" 0 "port set web now holds the 1 port range of" \
	"$XRL" set update $H web "$dir/web2.txt"
wait $sender
wait "$rx"
sent=$(tail -n 1 "$dir/sent")
judged_wait "$((before + sent))" $H "$M1" "$M2"
expect_eq "every frame judged once, by one of the two rules, across the update" \
	"$(($(judged $H "$M1" "$M2") - before))" "$sent"
expect_eq "dump: the set's new ports, inline (the file read was not its own)" \
	"$($XRL dump $H | grep '^set web')" "set web ports { 7000 }"
conforms set_update "$XRL" -j set update $H web "$dir/web2.txt"
expect_eq "explain: the negated rule holds 7150 now" \
	"$($XRL -j explain $H --src 10.251.0.2 --dport 7150/udp | jq -r '.rules[0].rule')" \
	"proto udp dport != @web rate 10/s aggregate"
recv_bg "$dir/rx3" 10.251.0.1 7150 3
$UDP send -n $NS 10.251.0.2 10.251.0.1 7150 1000 2 >/dev/null
wait "$rx"
expect_range "the program judges the updated set: the negated rule holds the port (10/s over 2 s)" \
	"$(tail -n 1 "$dir/rx3")" 15 32
# 6. rule add names only sets in force: one not defined, or of the other kind, is refused whole
# (an address set not defined was added, and the instance's rules could not be read back).
dump=$($XRL dump $H --inline)
expect_err "rule add refuses a port set not defined" 2 "set @nosuch is not defined.*'rule add' adds no set\); nothing was changed" \
	"$XRL" rule add $H proto udp dport @nosuch rate 5/s
expect_err "... and an address set not defined" 2 "set @nowhere is not defined.*nothing was changed" \
	"$XRL" rule add $H src @nowhere proto udp rate 5/s
expect_err "... and a port set as an address" 2 "'src @web': set web holds ports, and 'src' takes a set of prefixes" \
	"$XRL" rule add $H src @web proto tcp rate 5/s
expect_err "... and an address set as ports" 2 "'sport @lab': set lab holds prefixes" \
	"$XRL" rule add $H proto udp sport @lab rate 5/s
expect_eq "... nothing changed, and the rules read back" "$($XRL dump $H --inline)" "$dump"
expect_err "rule add takes a set in force" 0 "added proto tcp dport @web rate 5/s" \
	"$XRL" rule add $H proto tcp dport @web rate 5/s
finish
