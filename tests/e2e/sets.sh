#!/usr/bin/env bash
# Named prefix sets end to end: a rule over a set of a million prefixes (IPv4 and IPv6 mixed)
# holds a client's flood to its limit while the set is replaced whole, under that flood, by
# apply (in seconds, every frame judged: stats counts every frame sent, the receiver what the
# limit lets through); a bad line in a million-line file is refused with its file, line and
# word and changes nothing; explain names the set and the prefix that held the source; a single
# prefix rule of a set's prefix holds it; a prefix in two sets of prefix rules is refused;
# set update replaces one set alone; dump, dump --inline, save and load --config round-trip.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-st H=xrlst0 P=xrlst1
lab_prologue sets $NS $H $P 10.236.0 fd00:236
rule_stat() { "$XRL" -j stats $H | jq -r ".rules[0].$1"; }

# 899,998 random IPv4 /24s, 100,000 IPv6 /48s, and the lab's client's /24 and /64: 1M lines.
awk 'BEGIN { srand(7)
	for (i = 0; i < 899998; i++) printf "%d.%d.%d.0/24\n", 11 + int(rand() * 200), int(rand() * 256), int(rand() * 256)
	for (i = 0; i < 100000; i++) printf "2001:%x:%x::/48\n", int(rand() * 65536), int(rand() * 65536)
	print "10.236.0.0/24  # the lab"; print "fd00:236::/64" }' >"$dir/big.txt"
{ head -n 998 "$dir/big.txt"; tail -n 2 "$dir/big.txt"; } >"$dir/small.txt"
big=$(sort -u "$dir/big.txt" | grep -vc '^#')
printf 'set feed file small.txt\nprefix @feed rate 100/s window 1s aggregate\n' >"$dir/small.rules"
printf 'set feed file big.txt\nprefix @feed rate 100/s window 1s aggregate\n' >"$dir/big.rules"

check "load --max-prefixes 1000000" "$XRL" load $H --max-prefixes 1000000
expect_eq "memory --prefixes 1000000 is what the kernel charges the instance" \
	"$($XRL -j memory --prefixes 1000000 | json .total_bytes)" \
	"$($XRL -j status | jq -r --arg i $H '.interfaces[] | select(.interface == $i) | .memory_bytes')"
check "apply a set of 1000 prefixes" "$XRL" apply $H "$dir/small.rules"

# 1. A flood from .2 at 1000/s for 5 s; once it flows, the set of a million replaces the set of 1000.
recv_bg "$dir/rx" 10.236.0.1 7000 7
$UDP send -n $NS 10.236.0.2 10.236.0.1 7000 1000 5 >"$dir/sent" &
sender=$!
traffic_on $H
t0=$(date +%s%N)
check "apply the set of a million under the flood" "$XRL" apply $H "$dir/big.rules"
ms=$((($(date +%s%N) - t0) / 1000000))
expect_range "the apply took under 10 s (ms)" "$ms" 1 10000
wait $sender
wait "$rx"
sent=$(tail -n 1 "$dir/sent") got=$(tail -n 1 "$dir/rx")
expect_range "the receiver got the limit's worth over 5 s, the set replaced meanwhile" "$got" 450 600
expect_eq "stats: every frame sent was judged by the one rule" \
	"$(($(rule_stat passed) + $(rule_stat blocked)))" "$sent"
expect_eq "stats: the rule passed what the receiver got" "$(rule_stat passed)" "$got"
expect_eq "one rule, one line in stats, however many prefixes" "$($XRL -j stats $H | jq '.rules | length')" 1
expect_eq "status: the prefixes in force, of --max-prefixes" \
	"$($XRL -j status | jq -c --arg i $H '.interfaces[] | select(.interface == $i) | [.prefixes, .max_prefixes]')" \
	"[$big,1000000]"
expect_eq "dump writes the set back by its file" "$($XRL dump $H | head -n 1)" "set feed file $dir/big.txt"
expect_eq "dump -j counts its prefixes" "$($XRL -j dump $H | json '.sets[0].prefixes')" "$big"

# 2. IPv6 from the same set: fd00:236::2 at 1000/s for 2 s, held to the rule's 100/s.
recv_bg "$dir/rx6" fd00:236::1 7006 4
$UDP send -n $NS fd00:236::2 fd00:236::1 7006 1000 2 >/dev/null
wait "$rx"
# 2 s of a 1 s window of 2 buckets: at most three windows' worth, and a racing CPU's one more.
expect_range "an IPv6 client in the set is held to the limit too" "$(tail -n 1 "$dir/rx6")" 100 302

# 3. explain names the set and its prefix that holds the source.
e=$($XRL -j explain $H --src 10.236.0.77)
expect_eq "explain: the set" "$(json '.rules[0].set' <<<"$e")" feed
expect_eq "explain: its prefix that holds the source" "$(json '.rules[0].set_prefix' <<<"$e")" 10.236.0.0/24
expect_eq "explain: an IPv6 source" "$($XRL -j explain $H --src fd00:236::9 | json '.rules[0].set_prefix')" \
	fd00:236::/64
conforms explain "$XRL" -j explain $H --src 10.236.0.77
conforms dump "$XRL" -j dump $H
conforms stats "$XRL" -j stats $H
expect_eq "explain: a source in no prefix meets no rule" "$($XRL -j explain $H --src 10.1.1.1 | json '.rules | length')" 0

# 4. A bad line deep in a million-line file: refused with file, line and word; nothing changes.
before=$($XRL dump $H)
sed '734512s|.*|10.1.2.300/24|' "$dir/big.txt" >"$dir/bad.txt"
printf 'set feed file bad.txt\nprefix @feed rate 50/s aggregate\n' >"$dir/bad.rules"
expect_err "a bad line is refused with its file, line and word" 2 \
	"bad.txt:734512: '10.1.2.300' is not an IPv4 or IPv6 address.*nothing was applied" "$XRL" apply $H "$dir/bad.rules"
expect_eq "... and the rules in force are as they were" "$($XRL dump $H)" "$before"
expect_err "set update refuses it too" 2 "bad.txt:734512: '10.1.2.300'.*nothing was changed" \
	"$XRL" set update $H feed "$dir/bad.txt"

# 5. A prefix in two sets of prefix rules is ambiguous: refused. A single prefix rule of a set's
# prefix holds it: the lab's /24 allowed, the rest of the set still limited.
printf 'set a { 10.0.0.0/8, 2001:db8::/32 }\nset b { 192.0.2.0/24, 10.0.0.0/8 }\nprefix @a rate 1/s\nprefix @b allow\n' \
	>"$dir/amb.rules"
expect_err "a prefix in two sets of prefix rules is refused" 2 \
	"10.0.0.0/8 is in set a .* and in set b .*ambiguous" "$XRL" apply $H "$dir/amb.rules"
printf 'set feed file small.txt\nprefix @feed rate 100/s aggregate\nprefix 10.236.0.0/24 allow\ndst @feed rate 1Gbit/s aggregate\n' \
	>"$dir/over.rules"
check "a single prefix rule of one of the set's prefixes" "$XRL" apply $H "$dir/over.rules"
expect_eq "the single rule holds its prefix" "$($XRL -j explain $H --src 10.236.0.2 | json '.rules[0].rule')" \
	"prefix 10.236.0.0/24 allow"
expect_eq "the set's rule the rest" "$($XRL -j explain $H --src fd00:236::2 | json '.rules[0].match')" "prefix @feed"
expect_eq "a dst rule of the same set" \
	"$($XRL -j explain $H --src fd00:9::9 --dst fd00:236::1 | json '.rules[0].match')" "dst @feed"

# 6. Round trips: dump | apply, dump --inline | apply, save | load --config.
dump=$($XRL dump $H)
check "dump | apply" sh -c "$XRL dump $H | $XRL apply $H -"
expect_eq "dump | apply round-trips" "$($XRL dump $H)" "$dump"
check "dump --inline | apply" sh -c "$XRL dump $H --inline | $XRL apply $H -"
expect_eq "dump --inline | apply: the set is inline now, dump writes it so" "$($XRL dump $H)" "$($XRL dump $H --inline)"
expect_eq "... the set has no file any more" "$($XRL -j dump $H | json '.sets[0].file')" null
check "save" "$XRL" save $H "$dir/saved.conf"
check "unload" "$XRL" unload $H
check "load --config the saved file" "$XRL" load $H --config "$dir/saved.conf"
expect_eq "the rules and the set are as saved" "$($XRL dump $H --inline)" "$(grep -v '^#\|^load' "$dir/saved.conf")"
expect_eq "and --max-prefixes with them" "$(grep -o 'max-prefixes [0-9]*' "$dir/saved.conf")" "max-prefixes 1000000"

# 7. set update: one set's prefixes replaced, the rules as they were.
printf '192.0.2.0/24\n2001:db8::/32\n' >"$dir/other.txt"
expect_err "set update" 0 "set feed now holds the 2 prefixes of" "$XRL" set update $H feed "$dir/other.txt"
conforms set_update "$XRL" -j set update $H feed "$dir/other.txt"
expect_eq "... the client is in it no more" "$($XRL -j explain $H --src fd00:236::2 | json '.rules | length')" 0
expect_eq "... dump writes it inline: the set is other.txt's prefixes of then, not its file" \
	"$($XRL dump $H | head -n 1)" "set feed { 192.0.2.0/24, 2001:db8::/32 }"
expect_eq "... set update -j says so" "$($XRL -j set update $H feed "$dir/other.txt" | json .inline)" true
expect_err "set update of a set there is not" 1 "has no set 'nope'" "$XRL" set update $H nope "$dir/other.txt"

# 8. The set of a million as the source of a rule of several fields, and its negation: applied (its
# prefixes counted once), the client held by the set's rule; explain names it and the fields that
# matched; set update takes the client out of the set, and the negated rule holds it from then on.
printf 'set feed file big.txt
src @feed proto udp dport 7000 rate 100/s window 1s aggregate
src != @feed proto udp dport 7000 rate 5/s window 1s aggregate
' \
	>"$dir/match.rules"
t0=$(date +%s%N)
check "apply a rule of several fields over the set of a million" "$XRL" apply $H "$dir/match.rules"
expect_range "the apply took under 10 s (ms)" "$((($(date +%s%N) - t0) / 1000000))" 1 10000
expect_eq "status: its prefixes counted once" \
	"$($XRL -j status | jq -r --arg i $H '.interfaces[] | select(.interface == $i) | .prefixes')" "$big"
expect_eq "explain: the set's rule, by its source" \
	"$($XRL -j explain $H --src 10.236.0.2 --dport 7000/udp |
		jq -r '[.rules[0].rule, (.rules[0].fields_matched | join(","))] | join(" | ")')" \
	"src @feed proto udp dport 7000 rate 100/s aggregate | src,proto,dport"
recv_bg "$dir/rxm" 10.236.0.1 7000 4
$UDP send -n $NS 10.236.0.2 10.236.0.1 7000 1000 2 >/dev/null
wait "$rx"
expect_range "the client in the set is held to the set's rule" "$(tail -n 1 "$dir/rxm")" 100 302
dump=$($XRL dump $H)
check "dump | apply" sh -c "$XRL dump $H | $XRL apply $H -"
expect_eq "dump | apply round-trips the set and its rules" "$($XRL dump $H)" "$dump"
expect_err "set update takes the client out" 0 "set feed now holds the 2 prefixes of" \
	"$XRL" set update $H feed "$dir/other.txt"
expect_eq "explain: the negated rule now" "$($XRL -j explain $H --src 10.236.0.2 --dport 7000/udp | jq -r '.rules[0].rule')" \
	"src != @feed proto udp dport 7000 rate 5/s aggregate"
recv_bg "$dir/rxn" 10.236.0.1 7000 4
$UDP send -n $NS 10.236.0.2 10.236.0.1 7000 1000 2 >/dev/null
wait "$rx"
expect_range "the program judges the updated set: the negated rule holds the client" "$(tail -n 1 "$dir/rxn")" 5 16
finish
