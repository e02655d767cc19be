#!/usr/bin/env bash
# What --check accepts, apply applies. 'apply IFACE FILE --check' makes every check apply
# makes, against IFACE, which must exist and be loaded; 'lint FILE' checks the grammar alone.
# The largest sets replace each other both ways (the counter slots are shared by the set in
# force and the next), and a set too large for that is refused by lint, --check and apply alike.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-a
lab_prologue apply_check $NS xrlea0 xrlea1 10.217.0 fd00:217

# The largest sets of prefix rules: 100 ports and prefixes up to a map's limit; b has the same
# ports, other prefixes; over has one prefix rule too many.
max=4096
for s in a b; do
	{ for i in $(seq 1 100); do echo "port $((1000 + i))/udp rate 10/s"; done
	  o=1; [ $s = b ] && o=100
	  for i in $(seq 0 $((max - 101))); do echo "prefix 10.$((o + i / 256)).$((i % 256)).0/24 rate 5/s"; done
	} >"$dir/$s"
done
{ cat "$dir/a"; for i in $(seq 0 100); do echo "prefix 192.0.$i.0/24 allow"; done; } >"$dir/over"

expect_err "--check on no such interface fails" 1 "no such interface 'nosuch0'" "$XRL" apply nosuch0 "$dir/a" --check
expect_err "--check on an interface not loaded fails" 1 "not loaded on xrlea0" "$XRL" apply xrlea0 "$dir/a" --check
expect_err "lint checks the grammar alone" 0 "$max rules, grammar valid \(no interface checked\)" "$XRL" lint "$dir/a"
expect_err "lint refuses a set of too many prefix rules" 2 "too many prefix rules: at most $max" \
	"$XRL" lint "$dir/over"
check "load" "$XRL" load xrlea0
expect_err "--check refuses it too" 2 "too many prefix rules: at most $max" "$XRL" apply xrlea0 "$dir/over" --check
expect_err "... and apply" 2 "too many prefix rules: at most $max" "$XRL" apply xrlea0 "$dir/over"
expect_err "--check against the loaded interface" 0 "$max rules, all valid for xrlea0" "$XRL" apply xrlea0 "$dir/a" --check
expect_eq "--check changed nothing" "$($XRL dump xrlea0 | wc -l)" 0
expect_err "-j --check" 0 '"valid": true' "$XRL" -j apply xrlea0 "$dir/a" --check
check "apply the largest set a" "$XRL" apply xrlea0 "$dir/a"
expect_err "--check b over a" 0 "all valid for xrlea0" "$XRL" apply xrlea0 "$dir/b" --check
check "apply b over a" "$XRL" apply xrlea0 "$dir/b"
expect_eq "b in force" "$($XRL dump xrlea0 | grep -c '^prefix 10.100.0.0/24')" 1
check "apply a over b" "$XRL" apply xrlea0 "$dir/a"
check "apply b over a again" "$XRL" apply xrlea0 "$dir/b"
expect_eq "b in force, whole" "$($XRL dump xrlea0 | wc -l)" $max

# A rule as one quoted argument (a line of a rules file, pasted) is the same rule.
check "apply an empty set, said so" sh -c "$XRL apply xrlea0 - --allow-empty </dev/null"
check "rule add with the rule quoted" "$XRL" rule add xrlea0 "port 53/udp rate 1/s"
expect_eq "... is the rule" "$($XRL dump xrlea0)" "port 53/udp rate 1/s window 1s buckets 2 per-source"
check "rule del with the match quoted" "$XRL" rule del xrlea0 "port 53/udp"
printf 'port\0 53/udp rate 1/s' >"$dir/nul"
expect_err "a NUL byte is named, not taken for a long line" 2 "nul:1: a NUL byte at column 5" "$XRL" lint "$dir/nul"
finish
