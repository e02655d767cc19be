#!/usr/bin/env bash
# Survives a reboot: 'save IFACE [FILE]' writes the load options and the rule set in force to one
# rules file (atomically, mode 0644; /etc/xdp-ratelimit/IFACE.conf by default, the folder made),
# and 'load IFACE --config FILE' restores both: save, unload, restore, then dump and status
# show the same rules and the same load options. apply reads the same file (past its load line);
# a bad file loads nothing; a set 'set update' refreshed from a file since removed comes back.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-sv
IF=xrlsv0
lab_prologue save_restore $NS $IF xrlsv1 10.231.0 fd00:231

# The options load shows in status -j, and the rules in force.
options() { "$XRL" -j status | jq -c --arg i "$1" '.interfaces[] | select(.interface == $i) | [.mode, .clock, .max_keys, .new_keys_per_second, .sketch_width, .malformed]'; }

cat >"$dir/rules" <<'RULES'
port 53/udp rate 100/s window 2s buckets 4 per-source mask4 24 mask6 48
port 443/tcp rate 10k/s aggregate
prefix 10.0.0.0/8 rate 1k/s per-source mask 24
prefix 2001:db8::/32 rate 500/s monitor
prefix 192.0.2.0/24 allow
RULES
check "load with options that are not the defaults" "$XRL" load $IF --mode generic --clock coarse --max-keys 1024 \
	--new-keys 300 --sketch-width 1024 --malformed drop
check "apply a set" "$XRL" apply $IF "$dir/rules"
want_rules=$("$XRL" dump $IF)
want_opts=$(options $IF)
expect_eq "the options in force" "$want_opts" '["generic","coarse",1024,300,1024,"drop"]'

check "save to a file" "$XRL" save $IF "$dir/saved.conf"
expect_eq "... mode 0644" "$(stat -c %a "$dir/saved.conf")" 644
expect_eq "... its load line" "$(grep '^load' "$dir/saved.conf")" \
	"load mode generic clock coarse max-keys 1024 new-keys 300 sketch-width 1024 max-prefixes 65536 malformed drop"
check "... which lint reads" "$XRL" lint "$dir/saved.conf"
ino=$(stat -c %i "$dir/saved.conf")
check "save again over it" "$XRL" save $IF "$dir/saved.conf"
expect_eq "... replaced by a rename, not rewritten in place" "$([ "$(stat -c %i "$dir/saved.conf")" != "$ino" ] && echo renamed)" renamed
expect_eq "... no temporary file left beside it" "$(ls "$dir")" "$(printf 'rules\nsaved.conf')"

check "unload" "$XRL" unload $IF
expect_err "save when not loaded fails" 1 "not loaded on $IF" "$XRL" save $IF "$dir/other.conf"
expect_eq "... and writes nothing" "$([ -e "$dir/other.conf" ] && echo written)" ""
expect_err "load --config restores" 0 "loaded on $IF \(generic mode, coarse clock, 1024 keys\) with .*: 5 rules in force" \
	"$XRL" load $IF --config "$dir/saved.conf"
expect_eq "... the same rules" "$("$XRL" dump $IF)" "$want_rules"
expect_eq "... the same load options" "$(options $IF)" "$want_opts"
expect_err "apply reads the same file, past its load line" 0 "5 rules in force" "$XRL" apply $IF "$dir/saved.conf"
expect_eq "... with no note: the load line asks for what is loaded" \
	"$("$XRL" apply $IF "$dir/saved.conf" 2>&1 >/dev/null)" ""
check "unload" "$XRL" unload $IF
check "options on the command line win over the file's" "$XRL" load $IF --config "$dir/saved.conf" --max-keys 2048
expect_eq "... --max-keys from the command line, the rest from the file" "$(options $IF)" '["generic","coarse",2048,300,1024,"drop"]'
expect_err "apply of a file whose load line asks for other options applies, and says they wait for a load" 0 \
	"note: the file's load line asks for '.* max-keys 1024 .*', $IF is loaded with '.* max-keys 2048 .*': apply changes rules only; 'xdp-ratelimit load $IF --config FILE' changes both in place" \
	"$XRL" apply $IF "$dir/saved.conf"
expect_err "... in JSON too" 0 '"note": "the file.s load line asks for' "$XRL" -j apply $IF "$dir/saved.conf"
check "unload" "$XRL" unload $IF

# A bad file is refused whole, before anything is attached.
sed 's/rate 1k\/s/rate fast/' "$dir/saved.conf" >"$dir/bad.conf"
expect_err "load --config with a bad rule loads nothing" 2 "bad.conf:6: rate 'fast' is not a rate.*nothing was loaded" \
	"$XRL" load $IF --config "$dir/bad.conf"
expect_eq "... nothing attached" "$(ip -d link show $IF | grep -c 'prog/xdp')" 0
printf 'load max-keys 1024\nload clock coarse\n' >"$dir/two.conf"
expect_err "two load lines are refused" 2 "two.conf:2: a second load line \(the first is line 1\)" \
	"$XRL" load $IF --config "$dir/two.conf"
echo 'load max-keys 3' >"$dir/small.conf"
expect_err "a load option out of range is refused" 2 "max-keys '3' is not a whole number from 16 to 16777216" \
	"$XRL" lint "$dir/small.conf"
expect_err "a missing file" 2 "cannot read configuration '$dir/none.conf'" "$XRL" load $IF --config "$dir/none.conf"
expect_eq "... nothing attached" "$(ip -d link show $IF | grep -c 'prog/xdp')" 0

# load --config under traffic: the program is attached with the file's rules already in force, so
# no frame is judged by an empty set: every frame it passes to port 9, the rule passed. (When it
# attached first and applied after, the frames of those few ms passed unjudged: 100s at this rate.)
echo 'port 9/udp rate 1/min window 1min aggregate' >"$dir/strict.conf"
$UDP send -n $NS 10.231.0.2 10.231.0.1 9 100000 3 >/dev/null 2>&1 &
sender=$!
lab_undo "kill $sender 2>/dev/null"
rx0=$(cat /sys/class/net/$IF/statistics/rx_packets)
lab_wait 5 sh -c "[ \$(cat /sys/class/net/$IF/statistics/rx_packets) -ge $((rx0 + 1000)) ]" ||
	fail "traffic on $IF" "fewer than 1000 frames within 5 s"
check "load --config while traffic arrives" "$XRL" load $IF --config "$dir/strict.conf"
traffic_on $IF 1000
st=$("$XRL" -j stats $IF)
expect_range "... it sees the traffic" "$(json .counters.seen <<<"$st")" 1000 100000000
# A few frames of the lab's own (IPv6 neighbour discovery, say) may pass without a rule; hundreds may not.
expect_range "... and passes none of it but what the rule passed" \
	"$(json '.counters.passed - .rules[0].passed' <<<"$st")" 0 5
expect_eq "... the rule's one frame a minute" "$(json '.rules[0].passed' <<<"$st")" 1
wait $sender
check "unload" "$XRL" unload $IF

# A set refreshed by 'set update' from a download that is then removed (the guide's recipe:
# fetch-feed > /tmp/abusers.new && set update): save wrote 'set abusers file /tmp/...abusers.new',
# and load --config of it failed (exit 2, the interface not served). The set's prefixes are
# saved inline now, and come back.
check "load" "$XRL" load $IF
printf '10.231.0.0/24\n' >"$dir/abusers.txt"
printf 'set abusers file abusers.txt\nprefix @abusers rate 10/s per-source\n' >"$dir/sets.rules"
check "apply a set from its file" "$XRL" apply $IF "$dir/sets.rules"
new=$(mktemp)
printf '198.51.100.0/24\n2001:db8:77::/48\n' >"$new"
expect_err "set update from a download" 0 "set abusers now holds the 2 prefixes of $new \(dump and save write them inline" \
	"$XRL" set update $IF abusers "$new"
rm -f "$new"
check "save, the download gone" "$XRL" save $IF "$dir/sets.conf"
check "unload" "$XRL" unload $IF
expect_err "load --config of it restores" 0 "1 rule in force" "$XRL" load $IF --config "$dir/sets.conf"
expect_eq "... with the download's prefixes" "$("$XRL" dump $IF | head -n 1)" "set abusers { 198.51.100.0/24, 2001:db8:77::/48 }"
expect_eq "... which hold their sources" "$("$XRL" -j explain $IF --src 198.51.100.9 | json '.rules[0].set_prefix')" \
	198.51.100.0/24
# Refreshed from its own file, the set keeps it (save names it).
check "apply the set from its file again" "$XRL" apply $IF "$dir/sets.rules"
printf '10.231.0.0/24\n192.0.2.0/24\n' >"$dir/abusers.txt"
expect_err "set update from the set's own file" 0 "the 2 prefixes of $dir/abusers.txt, its file;" \
	"$XRL" set update $IF abusers "$dir/abusers.txt"
expect_eq "... dump names the file still" "$("$XRL" dump $IF | head -n 1)" "set abusers file $dir/abusers.txt"
# That file gone: save refuses, naming the set, the file and --inline, which restores.
mv "$dir/abusers.txt" "$dir/abusers.moved"
expect_err "save of a set whose file is gone is refused, naming them and the fix" 1 \
	"set abusers's file $dir/abusers.txt is gone, so 'load --config' of the saved file would fail: 'xdp-ratelimit save $IF --inline'" \
	"$XRL" save $IF "$dir/gone.conf"
expect_eq "... and writes nothing" "$([ -e "$dir/gone.conf" ] && echo written)" ""
check "save --inline" "$XRL" save $IF --inline "$dir/gone.conf"
check "unload" "$XRL" unload $IF
check "load --config of it" "$XRL" load $IF --config "$dir/gone.conf"
expect_eq "... the set's two prefixes" "$("$XRL" -j dump $IF | json '.sets[0].prefixes')" 2
check "unload" "$XRL" unload $IF

# Where save writes: the default path, a folder, a folder that is not there.
check "load" "$XRL" load $IF
expect_err "save to a folder is refused" 1 "is not a regular file" "$XRL" save $IF "$dir"
expect_err "save into a folder that is not there" 1 "there is no folder $dir/none; make it first" \
	"$XRL" save $IF "$dir/none/x.conf"
# Through a symlink (as /etc files often are): the target is written, the link kept (661df77
# replaced the link with a regular file). A dangling one is refused, naming it.
mkdir -p "$dir/real"
ln -sf "$dir/real/target.conf" "$dir/link.conf"
: >"$dir/real/target.conf"
check "save through a symlink" "$XRL" save $IF "$dir/link.conf"
expect_eq "... the link is still a link, to the same file" "$(readlink "$dir/link.conf")" "$dir/real/target.conf"
check "... and its target holds the saved set" grep -q '^load mode' "$dir/real/target.conf"
ln -sf "$dir/real/nothing.conf" "$dir/dangling.conf"
expect_err "save through a dangling symlink is refused, naming it" 1 "symlink to nothing there" \
	"$XRL" save $IF "$dir/dangling.conf"
# A killed save leaves its temporary file (.NAME.PID.XXXXXX): the next save removes it, while one
# of a writer still running (this shell) is left alone.
: >"$dir/.saved.conf.999999999.AbCdEf"
: >"$dir/.saved.conf.$$.AbCdEf"
check "save after a killed one" "$XRL" save $IF "$dir/saved.conf"
dead=no live=no
[ -e "$dir/.saved.conf.999999999.AbCdEf" ] && dead=yes
[ -e "$dir/.saved.conf.$$.AbCdEf" ] && live=yes
expect_eq "... removes the dead writer's temporary file, not a live one's" "$dead $live" "no yes"
rm -f "$dir/.saved.conf.$$.AbCdEf"
expect_err "save - prints the file" 0 "^load mode native clock precise max-keys 65536 new-keys 65536 sketch-width 65536 max-prefixes 65536 malformed drop-evasive" \
	"$XRL" save $IF -
etc=/etc/xdp-ratelimit
if [ -e "$etc/$IF.conf" ]; then
	skip "save to $etc/$IF.conf" "the file is there already; not overwritten by a test"
else
	[ -d $etc ] || lab_undo "rmdir $etc"
	lab_undo "rm -f $etc/$IF.conf"
	expect_err "save with no FILE writes $etc/$IF.conf" 0 "to $etc/$IF.conf" "$XRL" save $IF
	expect_eq "... the folder is there, 0755" "$(stat -c %a $etc)" 755
	expect_eq "... the file is readable by all" "$(stat -c %a $etc/$IF.conf)" 644
	expect_eq "... an empty set" "$(grep -vc '^#\|^load' $etc/$IF.conf)" 0
fi
finish
