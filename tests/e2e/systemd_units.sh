#!/usr/bin/env bash
# The systemd units, as installed (make install DESTDIR, PREFIX=/usr): 'systemd-analyze verify'
# accepts every unit of systemd/ (binary and man pages found under that root; PID 1 need not be
# systemd), and the
# Exec lines of xdp-ratelimit@.service, parsed out of the file with %i and %I set to a lab veth,
# do what the unit promises: start loads the saved file (options and rules); reload, and start
# on a loaded interface, replace the program in place with the file's options and rules; a bad
# file at reload changes nothing and fails; stop leaves the limiter enforcing, so a restart under
# a flood passes exactly what the window allows (an unload and a load passed a window more); a
# bad or missing file at start attaches nothing and fails; after the device went away, the next
# start loads cleanly.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
NS=xrle-sd
IF=xrlsd0
lab_prologue systemd_units $NS $IF xrlsd1 10.232.0 fd00:232
if ! command -v systemd-analyze >/dev/null || ! command -v man >/dev/null; then
	skip systemd_units "needs systemd-analyze (package systemd) and man-db (scripts/deps.sh installs them)"
	exit 0
fi
root=$dir # make install's DESTDIR
make -s --no-print-directory -C "$ROOT" install DESTDIR="$root" PREFIX=/usr >"$root.log" 2>&1 ||
	fail "make install DESTDIR=$root" "$(cat "$root.log")"
rm -f "$root.log"
unitdir=$root/usr/lib/systemd/system
# What verify looks for under --root besides ours, as a system has it: the commands a unit
# names (/bin/mkdir, say) and systemd's targets (a unit with default dependencies needs them).
sed -n 's/^Exec[A-Za-z]*=[-@:+!]*\(\/[^ ]*\).*/\1/p' "$unitdir"/* | sort -u | while read -r cmd; do
	[ -e "$root$cmd" ] || { mkdir -p "$root${cmd%/*}" && cp -L "$cmd" "$root$cmd"; }
done
cp -n /usr/lib/systemd/system/*.target "$unitdir/"

for u in "$ROOT"/systemd/*.service "$ROOT"/systemd/*.timer "$ROOT"/systemd/*.socket; do
	[ -e "$u" ] || continue
	name=${u##*/}
	[[ $name == *@.* ]] && name=${name/@./@$IF.}
	check "systemd-analyze verify $name" env MANPATH="$root/usr/share/man" \
		systemd-analyze verify --root="$root" "$name"
done
sed 's|/usr/sbin/xdp-ratelimit|/nonexistent/xdp-ratelimit|' "$unitdir/xdp-ratelimit@.service" >"$unitdir/xrl-broken@.service"
expect_err "... and it finds what is wrong: a unit naming a binary that is not there" 1 \
	"Command /nonexistent/xdp-ratelimit is not executable" \
	env MANPATH="$root/usr/share/man" systemd-analyze verify --root="$root" "xrl-broken@$IF.service"

# exec KEY: runs the unit's KEY= line as systemd would for xdp-ratelimit@$IF, against the
# installed binary and the configuration folder under $root; a leading '-' (failure ignored)
# makes it succeed whatever the command returns, as systemd does.
# shellcheck disable=SC2317 # runs through check and expect_err
exec_line() {
	local line ignore=0
	line=$(sed -n "s/^$1=//p" "$unitdir/xdp-ratelimit@.service")
	[ -n "$line" ] || { echo "no $1= in the unit"; return 1; }
	[[ $line == -* ]] && ignore=1 line=${line#-}
	line=${line//%i/$IF}
	line=${line//%I/$IF}
	line=${line//\/usr\/sbin\//$root/usr/sbin/}
	line=${line//\/etc\/xdp-ratelimit\//$root/etc/xdp-ratelimit/}
	# shellcheck disable=SC2086 # the unit's words, as systemd splits them (no quotes in ours)
	$line
	local rc=$?
	return $((ignore ? 0 : rc))
}
conf=$root/etc/xdp-ratelimit/$IF.conf
attached() { ip -d link show "$IF" 2>/dev/null | grep -c 'prog/xdp'; }

check "load by hand, with options and rules" "$XRL" load $IF --clock coarse --max-keys 2048
check "... rules" "$XRL" apply $IF - <<<$'port 53/udp rate 100/s\nprefix 10.0.0.0/8 rate 1k/s aggregate'
want=$("$XRL" dump $IF)
check "save $IF (to where the unit reads)" "$XRL" save $IF "$conf"
check "unload" "$XRL" unload $IF

check "ExecStart loads the saved file" exec_line ExecStart
expect_eq "... its rules" "$("$XRL" dump $IF)" "$want"
expect_eq "... its load options" "$("$XRL" -j status | jq -r --arg i $IF '.interfaces[] | select(.interface == $i) | "\(.clock) \(.max_keys)"')" "coarse 2048"
expect_err "ExecStart again on the loaded interface replaces the program in place" 0 "replaced the program on $IF in place" \
	exec_line ExecStart

echo "port 443/tcp rate 10k/s" >>"$conf"
sed -i 's/max-keys 2048/max-keys 4096/' "$conf"
check "ExecReload applies the edited file" exec_line ExecReload
expect_eq "... the new set is in force" "$("$XRL" dump $IF | grep -c .)" 3
expect_eq "... and its load options, in place" "$("$XRL" -j status | jq -r --arg i $IF '.interfaces[] | select(.interface == $i) | "\(.clock) \(.max_keys)"')" "coarse 4096"
cp "$conf" "$root/good"
echo "port 80/tcp rate fast" >>"$conf"
expect_err "ExecReload with a bad file fails, naming the line" 2 "$IF.conf:7: rate 'fast' is not a rate.*nothing was loaded" \
	exec_line ExecReload
expect_eq "... and the old set stays in force" "$("$XRL" dump $IF | grep -c .)" 3
expect_eq "the unit has no ExecStop: stop leaves the limiter enforcing" "$(grep -c '^ExecStop' "$unitdir/xdp-ratelimit@.service")" 0
cp "$root/good" "$conf"

# A restart (stop, then start) under a flood from one source against 'rate 50/s window 10s':
# exactly one window's 500 frames through, every frame judged, the counters never back.
echo 'port 9/udp rate 50/s window 10s buckets 10 per-source' >>"$conf"
check "ExecReload with a rule for the flood" exec_line ExecReload
recv_bg "$root/rx" 10.232.0.1 9 5
$UDP send -n $NS 10.232.0.2 10.232.0.1 9 2000 3 >"$root/sent" 2>&1 &
sender=$!
traffic_on $IF
seen0=$("$XRL" -j stats $IF | json .counters.seen)
check "a restart: ExecStart after stop" exec_line ExecStart
seen1=$("$XRL" -j stats $IF | json .counters.seen)
wait $sender
wait "$rx"
st=$("$XRL" -j stats $IF | jq '.rules[] | select(.rule | startswith("port 9/udp"))')
expect_eq "... the receiver got exactly the window's 500" "$(tail -1 "$root/rx")" 500
expect_eq "... stats says so" "$(json .passed <<<"$st")" 500
expect_eq "... every frame sent was judged" "$(json .passed+.blocked <<<"$st")" "$(cat "$root/sent")"
expect_eq "... the counters only grew" "$((seen1 >= seen0))" 1
check "unload by hand" "$XRL" unload $IF
expect_eq "... nothing attached" "$(attached)" 0
cp "$root/good" "$conf"
echo "port 80/tcp rate fast" >>"$conf"

expect_err "ExecStart with a bad file fails, naming the line" 2 "$IF.conf:7: rate 'fast' is not a rate.*nothing was loaded" \
	exec_line ExecStart
expect_eq "... and attaches nothing (no program with half the rules)" "$(attached)" 0
mv "$root/good" "$conf"
rm -f "$conf.missing"
mv "$conf" "$conf.missing"
expect_err "ExecStart with no saved file fails" 2 "cannot read configuration '.*$IF.conf'.*nothing was loaded" exec_line ExecStart
mv "$conf.missing" "$conf"

# BindsTo: the device goes away while loaded (the kernel detaches the program), and the
# device's return starts cleanly.
check "ExecStart" exec_line ExecStart
ip link del $IF
veth_lab $NS $IF xrlsd1 10.232.0 fd00:232
check "ExecStart when the device is back" exec_line ExecStart
expect_eq "... its rules" "$("$XRL" dump $IF | grep -c .)" 3
finish
