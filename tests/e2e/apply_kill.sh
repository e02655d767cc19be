#!/usr/bin/env bash
# Rule changes under fire: apply killed with SIGKILL at many points, and applies racing each
# other, under traffic. Afterwards the rules in force are exactly the old set or the new one,
# and the limit held throughout. Also: the pins are root's alone.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-c
lab_prologue apply_kill $NS xrle6 xrle7 10.214.0 fd00:214
check "load" "$XRL" load xrle6

# Two sets that share the limited rule and differ in 300 others.
{ echo "port 6000/udp rate 100/s aggregate"
  for i in $(seq 1 150); do echo "prefix 172.16.$i.0/24 rate ${i}0/s"; done
  for i in $(seq 1 150); do echo "port $((10000 + i))/tcp rate ${i}/s"; done; } >"$dir/a"
{ echo "port 6000/udp rate 100/s aggregate"
  for i in $(seq 1 150); do echo "prefix 2001:db8:$i::/48 rate ${i}k/s"; done
  for i in $(seq 1 150); do echo "port $((20000 + i))/udp rate ${i}/s monitor"; done; } >"$dir/b"
$XRL apply xrle6 "$dir/a" >/dev/null
$XRL dump xrle6 | sort >"$dir/a.dump"
$XRL apply xrle6 "$dir/b" >/dev/null
$XRL dump xrle6 | sort >"$dir/b.dump"
check "the two sets differ" sh -c "! cmp -s $dir/a.dump $dir/b.dump"

# Traffic for the whole test: 1000/s at a rule that admits 100/s.
secs=12
recv_bg "$dir/recv" 10.214.0.1 6000 $((secs + 2))
$UDP send -n $NS 10.214.0.2 10.214.0.1 6000 1000 $secs >"$dir/sent" &
tx=$!

kills=0 whole=0
for i in $(seq 1 100); do
	f=$dir/a; [ $((i % 2)) -eq 0 ] && f=$dir/b
	"${KILLABLE[@]}" "$XRL" apply xrle6 "$f" >/dev/null 2>&1 &
	pid=$!
	sleep "0.00$((RANDOM % 6))$((RANDOM % 10))"
	kill -9 $pid 2>/dev/null && kills=$((kills + 1))
	wait $pid 2>/dev/null
	$XRL dump xrle6 | sort >"$dir/now"
	if cmp -s "$dir/now" "$dir/a.dump" || cmp -s "$dir/now" "$dir/b.dump"; then whole=$((whole + 1)); fi
done
expect_eq "after 100 applies killed at random points, the set in force is whole ($kills killed mid-way)" "$whole" 100

# Racing applies: the lock serializes them; the last to finish wins, whole.
for i in $(seq 1 10); do
	$XRL apply xrle6 "$dir/a" >/dev/null & p1=$!
	$XRL apply xrle6 "$dir/b" >/dev/null & p2=$!
	wait $p1 $p2
	$XRL dump xrle6 | sort >"$dir/now"
	cmp -s "$dir/now" "$dir/a.dump" || cmp -s "$dir/now" "$dir/b.dump" || break
done
expect_eq "10 pairs of racing applies each leave one whole set" "$i" 10

wait $tx
wait $rx
received=$(tail -1 "$dir/recv")
sent=$(tail -1 "$dir/sent")
# 100 per 1 s window, 2 buckets: at most 100 per second plus one window's worth.
max=$(( (secs + 1) * 100 + 100 ))
expect_range "the limit held throughout ($received of $sent passed)" "$received" $((secs * 100 / 2)) $max
stats=$($XRL -j stats xrle6)
expect_eq "the kept rule counted every packet it judged" \
	"$(echo "$stats" | json '.rules[] | select(.rule | startswith("port 6000/udp")) | .passed + .blocked')" "$sent"

pins=$(pin_dir xrle6)
expect_eq "the pin folder is root's alone" "$(stat -c '%a %U' "$pins")" "700 root"
expect_eq "the pinned maps are root's alone" "$(stat -c '%a %U' "$pins"/* | sort -u | tr '\n' ' ')" "600 root "
# An apply that grows the maps of rules of several fields (a new program on new maps, swapped in
# twice), killed at random points on a fresh load each time: the set in force is whole, and the
# next apply ends with the new set.
{ echo "port 6000/udp rate 100/s aggregate"; echo "proto udp dport 7000 length 100-200 rate 10/s"; } >"$dir/ga"
{ echo "port 6000/udp rate 100/s aggregate"
  for i in $(seq 1 3000); do echo "proto udp dport $((10000 + i)) length 100-200 rate $i/s"; done; } >"$dir/gb"
check "unload" "$XRL" unload xrle6
$XRL load xrle6 --config "$dir/ga" >/dev/null && $XRL dump xrle6 | sort >"$dir/ga.dump"
$XRL apply xrle6 "$dir/gb" >/dev/null && $XRL dump xrle6 | sort >"$dir/gb.dump"
expect_eq "the grown set is in force" "$(wc -l <"$dir/gb.dump")" 3001
whole=0 next=0 kills=0
for i in $(seq 1 12); do
	$XRL unload xrle6 >/dev/null
	$XRL load xrle6 --config "$dir/ga" >/dev/null
	"${KILLABLE[@]}" "$XRL" apply xrle6 "$dir/gb" >/dev/null 2>&1 &
	pid=$!
	sleep "0.$((RANDOM % 3))$((RANDOM % 10))"
	kill -9 $pid 2>/dev/null && kills=$((kills + 1))
	wait $pid 2>/dev/null
	$XRL dump xrle6 | sort >"$dir/now"
	if cmp -s "$dir/now" "$dir/ga.dump" || cmp -s "$dir/now" "$dir/gb.dump"; then whole=$((whole + 1)); fi
	$XRL apply xrle6 "$dir/gb" >/dev/null && $XRL dump xrle6 | sort | cmp -s - "$dir/gb.dump" && next=$((next + 1))
done
expect_eq "after 12 growing applies killed at random points, the set in force is whole ($kills killed mid-way)" "$whole" 12
expect_eq "... and the next apply ends with the new set each time" "$next" 12
finish
