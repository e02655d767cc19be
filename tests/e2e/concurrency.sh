#!/usr/bin/env bash
# Readers and writers at once: with applies looping, dump, stats -j, explain and status never
# fail (they read under the interface's shared lock, so never a set half written); unload
# waits for the lock like apply and rule, and an apply that waited behind an unload says so
# instead of reporting rules in force on an interface that was just unloaded.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-q
lab_prologue concurrency $NS xrleq0 xrleq1 10.215.0 fd00:215
check "load" "$XRL" load xrleq0

{ echo "port 53/udp rate 100/s"
  for i in $(seq 1 60); do echo "prefix 172.17.$i.0/24 rate ${i}0/s"; done
  for i in $(seq 1 60); do echo "port $((10000 + i))/tcp rate ${i}/s"; done; } >"$dir/a"
{ echo "port 53/udp rate 200/s"
  for i in $(seq 1 60); do echo "prefix 2001:db8:$i::/48 rate ${i}k/s"; done
  for i in $(seq 1 60); do echo "port $((20000 + i))/udp rate ${i}/s"; done; } >"$dir/b"

# Three writers, each alternating the two sets until told to stop.
touch "$dir/run"
for _ in 1 2 3; do
	( while [ -e "$dir/run" ]; do $XRL apply xrleq0 "$dir/a" >/dev/null 2>&1; $XRL apply xrleq0 "$dir/b" >/dev/null 2>&1; done ) &
	lab_undo "kill $! 2>/dev/null"
done
bad=0 reads=0
for i in $(seq 1 100); do
	for cmd in "dump xrleq0" "-j stats xrleq0" "explain xrleq0 --src 172.17.5.9 --dport 53/udp" "-j status"; do
		# shellcheck disable=SC2086 # words on purpose
		if ! out=$($XRL $cmd 2>&1); then
			bad=$((bad + 1))
			echo "$cmd: $out" >>"$dir/errors"
		fi
		reads=$((reads + 1))
	done
done
rm -f "$dir/run"
wait
expect_eq "$reads reads during three apply loops, none failed" "$bad" 0
[ -s "$dir/errors" ] && head -3 "$dir/errors"
n=$($XRL dump xrleq0 | wc -l)
expect_eq "the set in force is one of the two, whole" "$n" 121

# unload takes the lock: it waits for a holder (here flock(1), standing for an apply in progress).
lockdir=$(pin_dir xrleq0)
# The holder notes when it lets go; unload must end after that, however late each one started.
flock "$lockdir" sh -c "sleep 1.5; date +%s%N >'$dir/released'" &
holder=$!
lab_wait 5 sh -c "! flock -n '$lockdir' true" || fail "flock takes the lock" "it did not within 5 s"
$XRL apply xrleq0 "$dir/a" >"$dir/apply.out" 2>&1 &
applier=$!
# The apply queued first: /proc/locks shows a process blocked in flock(2) behind "->".
lab_wait 5 grep -q -- "-> FLOCK .* $applier " /proc/locks || fail "apply waits for the lock" "not within 5 s"
$XRL unload xrleq0 >/dev/null 2>&1
end=$(date +%s%N)
wait $holder
wait $applier
arc=$?
expect_range "unload waited for the lock: it ended after the holder let go (ms later)" \
	$(((end - $(cat "$dir/released")) / 1000000)) 0 5000
if [ $arc -eq 0 ]; then
	pass "the apply went before the unload"
elif grep -q "unloaded while the rules waited: nothing was applied" "$dir/apply.out"; then
	pass "the apply that waited behind unload says it applied nothing"
else
	fail "the apply that raced unload" "exit $arc: $(cat "$dir/apply.out")"
fi
check "unloaded: no folder left" test -n "$lockdir" -a ! -e "$lockdir"
check "nothing attached" sh -c "! ip -d link show xrleq0 | grep -q 'prog/xdp'"

# Loads at once on one interface: one loads, the others find it loaded and replace its program
# in place; never two that each take the other's folder for a killed load's, leaving a program
# attached that no pin holds.
ok=0
for round in 1 2 3; do
	for i in 1 2 3 4 5 6; do $XRL load xrleq0 --mode generic >"$dir/load$i" 2>&1 & done
	wait
	loaded=$(cat "$dir"/load* | grep -c '^loaded on xrleq0')
	already=$(cat "$dir"/load* | grep -c 'replaced the program on xrleq0 in place')
	attached=$($XRL -j status | jq -r '.interfaces[] | select(.interface == "xrleq0") | .state')
	$XRL unload xrleq0 >/dev/null 2>&1
	left=$(ip -d link show xrleq0 | grep -c 'prog/xdp')
	if [ "$loaded:$already:$attached:$left" = "1:5:attached:0" ]; then
		ok=$((ok + 1))
	else
		echo "round $round: $loaded loaded, $already already loaded, state '$attached', $left attached after unload"
		ip link set xrleq0 xdp off 2>/dev/null
		ip link set xrleq0 xdpgeneric off 2>/dev/null
	fi
done
expect_eq "six loads at once, 3 rounds: one loads, five replace it in place, unload leaves nothing" "$ok" 3
finish
