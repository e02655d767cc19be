#!/usr/bin/env bash
# Input that must not lift a limit or hang the command (issue: "no way around a rule"):
#   - empty input: 'apply IFACE' of an empty file or empty stdin used to print "0 rules in force"
#     and exit 0, so a generator that died before writing left the interface unprotected; now it
#     is refused (exit 2, the rules stay) unless --allow-empty says so;
#   - unbounded input: 'lint /dev/zero' grew to gigabytes and 'apply IFACE /dev/zero' never
#     returned; now a line is refused as soon as it is too long or holds a NUL byte, and a file
#     past 16 MiB is refused;
#   - set update of a FIFO waited forever, and of a symlink to /etc/shadow quoted its first line.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrlg-a H=xrlg0 P=xrlg1
lab_prologue input_guards $NS $H $P 10.244.0 fd00:244
check "load" "$XRL" load $H
check "two rules in force" sh -c "printf 'port 53/udp rate 10/s\nprefix 10.0.0.0/8 rate 5/s\n' | $XRL apply $H -"
rules() { "$XRL" dump $H | wc -l; }

: >"$dir/empty"
expect_err "apply of an empty file is refused, naming the file and the way to say so" 2 \
	"$dir/empty holds no rule: applying it would remove every rule from $H; nothing was applied.*--allow-empty" \
	"$XRL" apply $H "$dir/empty"
expect_eq "the rules stay" "$(rules)" 2
expect_err "a generator that died before writing: refused" 2 "<stdin> holds no rule" \
	sh -c "(exit 1) | $XRL apply $H -"
printf '# nothing but comments\n\n   \n' >"$dir/comments"
expect_err "comments alone are no rule either" 2 "holds no rule" "$XRL" apply $H "$dir/comments"
expect_err "apply --check of it says the same" 2 "holds no rule" "$XRL" apply $H "$dir/empty" --check
expect_eq "the rules stay after all of these" "$(rules)" 2
check "--allow-empty removes them, as asked" "$XRL" apply $H "$dir/empty" --allow-empty
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

# set update reads what apply takes as a set's file, no more: a FIFO was opened and waited on
# forever, a device read; and a path to a file that is no set file (a symlink to /etc/shadow)
# had its first line quoted in the error.
check "a set in force" sh -c "printf 'set feed { 192.0.2.0/24 }\nprefix @feed rate 5/s\n' | $XRL apply $H -"
mkfifo "$dir/fifo"
expect_err "set update of a FIFO is refused at once" 2 "set file $dir/fifo is a FIFO, not a regular file.*nothing was changed" \
	timeout 10 "$XRL" set update $H feed "$dir/fifo"
expect_err "... as apply refuses it as a set's file" 2 "set file $dir/fifo is a FIFO, not a regular file" \
	sh -c "printf 'set feed file $dir/fifo\nprefix @feed rate 5/s\n' | timeout 10 $XRL apply $H -"
expect_err "set update of a device is refused" 2 "set file /dev/zero is a device" \
	timeout 10 "$XRL" set update $H feed /dev/zero
printf 'root:x6.Xq9.secret.hash:20228:0:99999:7:::\n' >"$dir/shadow"
chmod 600 "$dir/shadow"
ln -s "$dir/shadow" "$dir/feed.txt"
out=$("$XRL" set update $H feed "$dir/feed.txt" 2>&1)
expect_eq "set update of a file that is no set file: refused, its line not quoted" \
	"$?:$(grep -c 'secret' <<<"$out"):$(grep -c "$dir/feed.txt:1: not a prefix, and not shown" <<<"$out")" "2:0:1"
out=$("$XRL" apply $H "$dir/feed.txt" 2>&1)
expect_eq "apply of it: refused, not quoted either" \
	"$?:$(grep -c 'secret' <<<"$out"):$(grep -c "feed.txt:1: not a rule, and not shown" <<<"$out")" "2:0:1"
printf '192.0.2.0/24\n10.1.2.300/24\n' >"$dir/typo.txt"
expect_err "a mistyped prefix is still quoted" 2 "typo.txt:2: '10.1.2.300' is not an IPv4 or IPv6 address" \
	"$XRL" set update $H feed "$dir/typo.txt"
expect_eq "the set is as it was after all of these" "$("$XRL" dump $H | head -n 1)" "set feed { 192.0.2.0/24 }"
finish
