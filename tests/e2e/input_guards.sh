#!/usr/bin/env bash
# Input that must not lift a limit or hang the command (issue: "no way around a rule"):
#   - empty input: 'apply IFACE' of an empty file or empty stdin used to print "0 rules in force"
#     and exit 0, so a generator that died before writing left the interface unprotected; now it
#     is refused (exit 2, the rules stay) unless --allow-empty says so;
#   - unbounded input: 'lint /dev/zero' grew to gigabytes and 'apply IFACE /dev/zero' never
#     returned; now a line is refused as soon as it is too long or holds a NUL byte, and a file
#     past 16 MiB is refused.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
needs_root input_guards

NS=xrlg-a H=xrlg0 P=xrlg1
veth_lab $NS $H $P 10.244.0 fd00:244
lab_undo "$XRL unload $H"
tmp=$(mktemp -d)
lab_undo "rm -rf $tmp"
check "load" "$XRL" load $H
check "two rules in force" sh -c "printf 'port 53/udp rate 10/s\nprefix 10.0.0.0/8 rate 5/s\n' | $XRL apply $H -"
rules() { "$XRL" dump $H | wc -l; }

: >"$tmp/empty"
expect_err "apply of an empty file is refused, naming the file and the way to say so" 2 \
	"$tmp/empty holds no rule: applying it would remove every rule from $H; nothing was applied.*--allow-empty" \
	"$XRL" apply $H "$tmp/empty"
expect_eq "the rules stay" "$(rules)" 2
expect_err "a generator that died before writing: refused" 2 "<stdin> holds no rule" \
	sh -c "(exit 1) | $XRL apply $H -"
printf '# nothing but comments\n\n   \n' >"$tmp/comments"
expect_err "comments alone are no rule either" 2 "holds no rule" "$XRL" apply $H "$tmp/comments"
expect_err "apply --check of it says the same" 2 "holds no rule" "$XRL" apply $H "$tmp/empty" --check
expect_eq "the rules stay after all of these" "$(rules)" 2
check "--allow-empty removes them, as asked" "$XRL" apply $H "$tmp/empty" --allow-empty
expect_eq "no rule left" "$(rules)" 0
check "two rules again" sh -c "printf 'port 53/udp rate 10/s\nprefix 10.0.0.0/8 rate 5/s\n' | $XRL apply $H -"

# Each within 10 s (they end at once; the bound only keeps a regression from hanging the suite).
expect_err "lint /dev/zero ends at once: a NUL byte" 2 "/dev/zero:1: a NUL byte at column 1" \
	timeout 10 "$XRL" lint /dev/zero
expect_err "apply IFACE /dev/zero ends at once" 2 "/dev/zero:1: a NUL byte at column 1.*nothing was applied" \
	timeout 10 "$XRL" apply $H /dev/zero
expect_err "an endless line is refused as soon as it passes 1022 characters" 2 \
	"<stdin>:1: line is too long \(at most 1022 characters\)" \
	sh -c "timeout 10 yes | tr -d '\n' | timeout 10 $XRL lint -"
expect_err "an endless stream of comment lines is refused past 16 MiB" 2 \
	"<stdin>: larger than 16 MiB" sh -c "timeout 20 yes '# a comment' | timeout 20 $XRL apply $H -"
expect_eq "the rules stay after all of these" "$(rules)" 2
finish
