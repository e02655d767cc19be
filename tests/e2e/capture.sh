#!/usr/bin/env bash
# capture, with real traffic on the veth lab, read back by Debian's tcpdump: the frames in the pcap are
# the ones the limiter dropped, per source and per rule (as many as stats counted blocked over the
# capture's span), --passed takes the passes, --count stops, --snaplen cuts, -w - pipes to tcpdump,
# the budget holds under a flood (every frame past it counted), one capture at a time, a capture
# killed with SIGKILL gives way within its lease and the program turns its flag off itself, a
# capture that ends leaves nothing running in the program, bad input exits 2, -w never writes
# through a symlink or a hard link.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
if ! command -v tcpdump >/dev/null; then skip capture "needs tcpdump (scripts/deps.sh installs it)"; exit 0; fi

NS=xrle-cap
lab_prologue capture $NS xrlcap0 xrlcap1 10.231.0 fd00:231
check "load" "$XRL" load xrlcap0
printf '%s\n' "port 5000/udp rate 100/s per-source" "port 6000/udp rate 50/s aggregate" | "$XRL" apply xrlcap0 - >/dev/null
PIN=$(pin_dir xrlcap0)

# send SRC PORT PPS SECONDS: what it sent is added to $dir/sent.
send() { $UDP send -n $NS "$1" 10.231.0.1 "$2" "$3" "$4" >>"$dir/sent"; }
# mark, then all_judged: returns once the two rules have judged every frame send() sent since the
# mark, so that the figures read next are final (a sender's last frames may still be on the veth).
mark() {
	: >"$dir/sent"
	j0=$(judged xrlcap0 "port 5000/udp" "port 6000/udp")
}
all_judged() {
	judged_wait $((j0 + $(awk '{ n += $1 } END { print n + 0 }' "$dir/sent"))) xrlcap0 "port 5000/udp" "port 6000/udp"
}
# blocked MATCH: the rule's blocked total from stats -j.
blocked() { "$XRL" -j stats xrlcap0 | jq -r --arg m "$1" '.rules[] | select(.match == $m) | .blocked'; }
passed() { "$XRL" -j stats xrlcap0 | jq -r --arg m "$1" '.rules[] | select(.match == $m) | .passed'; }
# start NAME ARGS...: capture ARGS in the background (stdout to NAME.out, stderr to NAME.err), pid in cap;
# returns once it says it is capturing.
start() {
	local name=$1
	shift
	rm -f "$dir/$name.out" "$dir/$name.err" # a NAME used before: its "capturing" must not pass the wait
	"$XRL" capture xrlcap0 "$@" >"$dir/$name.out" 2>"$dir/$name.err" &
	cap=$!
	lab_wait 10 grep -qs '^capturing' "$dir/$name.err" || fail "$name: capture started" "$(cat "$dir/$name.err")"
}
# finish_cap NAME [SIGNAL]: ends the capture (SIGINT unless told), its exit code in rc.
finish_cap() {
	kill "-${2:-INT}" "$cap" 2>/dev/null
	wait "$cap"
	rc=$?
}
# frames FILE [FILTER]: how many frames tcpdump reads in FILE (matching a tcpdump filter).
frames() { tcpdump -nr "$1" "${@:2}" 2>/dev/null | wc -l; }
# session: the capture flag as the program reads it.
session() { bpftool -j map dump pinned "$PIN/xrl_cap_ctl" | jq -r '.[0].formatted.value.session'; }

# --src: two sources, one over its limit, one under: the pcap holds only the first's frames, as many
# as the rule blocked over the capture's span (the other blocked none).
start src --src 10.231.0.2 -w "$dir/src.pcap"
expect_eq "status names the capture running, by its pid" \
	"$("$XRL" -j status | jq -r '.interfaces[] | select(.interface == "xrlcap0") | .capture.pid')" "$cap"
mark
b0=$(blocked "port 5000/udp")
send 10.231.0.2 5000 400 2 &
send 10.231.0.3 5000 50 2
wait %2 2>/dev/null
all_judged
b1=$(blocked "port 5000/udp")
finish_cap src
expect_eq "--src: SIGINT ends the capture with exit 0" "$rc" 0
n=$(frames "$dir/src.pcap")
expect_range "--src: the source over its limit had frames dropped" $((b1 - b0)) 100 900
expect_eq "--src: tcpdump reads as many frames as stats counted blocked over the capture" "$n" $((b1 - b0))
expect_eq "--src: every frame is from that source, to the rule's port" \
	"$(frames "$dir/src.pcap" src host 10.231.0.2 and udp dst port 5000)" "$n"
if grep -qE "^xrlcap0: $n frames captured, $n written to $dir/src.pcap; 0 lost to the rate bound .*, 0 lost to a full ring; $n matched \(interrupted\)$" "$dir/src.err"; then
	pass "--src: the summary on stderr says captured, lost to the rate bound and to a full ring"
else fail "--src: the summary" "$(cat "$dir/src.err")"; fi

# No filter, both sources over: both sources' frames, all the rule blocked; SIGTERM ends it as well.
start both -w "$dir/both.pcap"
mark
b0=$(blocked "port 5000/udp")
send 10.231.0.2 5000 300 1 &
send 10.231.0.3 5000 200 1
wait %2 2>/dev/null
all_judged
b1=$(blocked "port 5000/udp")
finish_cap both TERM
expect_eq "no filter: SIGTERM ends the capture with exit 0" "$rc" 0
n=$(frames "$dir/both.pcap")
expect_eq "no filter: as many frames as stats counted blocked" "$n" $((b1 - b0))
n2=$(frames "$dir/both.pcap" src host 10.231.0.2) n3=$(frames "$dir/both.pcap" src host 10.231.0.3)
expect_eq "no filter: the frames are the two sources', each dropped" "$((n2 > 0 && n3 > 0)):$((n2 + n3))" "1:$n"

# --rule, as lines of JSON (-j without -w): every frame is that rule's, dropped over its limit, and
# there are as many as it blocked while the other rule blocked too.
start rule -j --rule 'port 6000/udp'
mark
b0=$(blocked "port 6000/udp") o0=$(blocked "port 5000/udp")
send 10.231.0.2 6000 200 1 &
send 10.231.0.2 5000 300 1
wait %2 2>/dev/null
all_judged
b1=$(blocked "port 6000/udp") o1=$(blocked "port 5000/udp")
finish_cap rule
expect_range "--rule: the other rule blocked frames meanwhile" $((o1 - o0)) 100 300
rows=$(jq -c 'select(.why)' "$dir/rule.out" | wc -l)
expect_eq "--rule: as many frames as the rule blocked over the capture" "$rows" $((b1 - b0))
expect_eq "--rule: every frame is that rule's, dropped over its limit, to its port" \
	"$(jq -r 'select(.why) | "\(.verdict) \(.why) \(.rule.match) \(.dport)"' "$dir/rule.out" | sort -u)" \
	"drop over port 6000/udp 6000"
expect_eq "--rule: the last line is the summary" "$(tail -n 1 "$dir/rule.out" | jq -r '"\(.captured) \(.lost_rate) \(.lost_full) \(.ended)"')" \
	"$rows 0 0 interrupted"
if out=$(python3 "$ROOT/tests/e2e/json_check.py" "$ROOT/docs/json-schema.json" capture --ndjson <"$dir/rule.out" 2>&1); then
	pass "--rule: every line conforms to docs/json-schema.json"
else fail "--rule: every line conforms to docs/json-schema.json" "$out"; fi

# A capture of a rule that is deleted ends by itself, saying so.
start removed --rule 'port 6000/udp' -w "$dir/removed.pcap"
"$XRL" rule del xrlcap0 port 6000/udp >/dev/null
if lab_wait 5 grep -q 'rule removed' "$dir/removed.err"; then
	wait "$cap"
	expect_eq "--rule: the rule deleted, the capture ends with exit 0 and a whole file" \
		"$?:$(tcpdump -nr "$dir/removed.pcap" >/dev/null 2>&1; echo $?)" "0:0"
else
	fail "--rule: the rule deleted, the capture ends" "$(cat "$dir/removed.err")"
	finish_cap removed
fi
"$XRL" rule add xrlcap0 port 6000/udp rate 50/s aggregate >/dev/null

# --passed: the frames passed, here a source under its limit, as many as the rule passed.
start passed --passed --src 10.231.0.3 -w "$dir/passed.pcap"
mark
p0=$(passed "port 5000/udp")
send 10.231.0.3 5000 50 1
all_judged
p1=$(passed "port 5000/udp")
finish_cap passed
expect_eq "--passed: every frame the rule passed, none other" "$(frames "$dir/passed.pcap"):$(frames "$dir/passed.pcap" src host 10.231.0.3)" \
	"$((p1 - p0)):$((p1 - p0))"
expect_range "--passed: the source sent under its limit, all passed" $((p1 - p0)) 45 50

# --count stops after N frames, a whole file; --snaplen cuts them; -w - is pcap on stdout.
send 10.231.0.2 5000 400 3 &
"$XRL" capture xrlcap0 --count 10 --snaplen 60 -w "$dir/count.pcap" 2>"$dir/count.err"
rc=$?
expect_eq "--count 10: exits 0 by itself, with 10 frames" "$rc:$(frames "$dir/count.pcap")" "0:10"
if grep -q "(--count)" "$dir/count.err"; then pass "--count: the summary says why it ended"
else fail "--count: the summary says why it ended" "$(cat "$dir/count.err")"; fi
expect_eq "--snaplen 60: the file's snapshot length, and no frame longer" \
	"$(tcpdump -nr "$dir/count.pcap" 2>&1 >/dev/null | grep -o 'snapshot length [0-9]*')" "snapshot length 60"
wait
# Its own sender, for as long as the capture may take to start (a sanitized build is slow to).
send 10.231.0.2 5000 400 5 &
n=$("$XRL" capture xrlcap0 -w - --count 5 --seconds 10 2>"$dir/stdout.err" | tcpdump -nr - 2>"$dir/stdout.tcpdump" | grep -c 'UDP')
if [ "$n:$(grep -c 'frames captured' "$dir/stdout.err")" = "5:1" ]; then
	pass "-w -: pcap on stdout, read by tcpdump -r -; the summary on stderr"
else
	fail "-w -: pcap on stdout, read by tcpdump -r -; the summary on stderr" \
		"tcpdump read $n UDP frames, want 5; capture: $(cat "$dir/stdout.err"); tcpdump: $(cat "$dir/stdout.tcpdump")"
fi
wait

# The budget under a flood: --max-rate 50 a second a CPU, 2 s of a source far over its limit: what is
# copied stays within the budget, and every frame the capture was asked for is counted somewhere.
start flood -j --max-rate 50 --seconds 3 -w "$dir/flood.pcap"
mark
b0=$(blocked "port 5000/udp")
send 10.231.0.4 5000 20000 2
all_judged
b1=$(blocked "port 5000/udp")
wait "$cap"
cp "$dir/flood.out" "$dir/flood.json"
read -r matched captured lost_rate lost_full < <(jq -r '"\(.matched) \(.captured) \(.lost_rate) \(.lost_full)"' "$dir/flood.json")
ncpu=$(nproc)
echo "# flood: $((b1 - b0)) blocked, capture matched $matched, captured $captured, lost to the rate bound $lost_rate, to a full ring $lost_full"
expect_range "flood: the source was dropped thousands of times" $((b1 - b0)) 10000 40000
expect_range "flood: at most 5 + 50 a second a CPU copied over 3 s" "$captured" 50 $((ncpu * (5 + 50 * 3 + 5)))
expect_eq "flood: the file holds what was copied" "$(frames "$dir/flood.pcap")" "$captured"
expect_eq "flood: every frame dropped is counted, copied or lost to the bound" \
	"$matched:$((captured + lost_rate + lost_full))" "$((b1 - b0)):$matched"

# Off: after a capture the flag is off and the program never enters the capture's path.
expect_eq "after the captures, the program's flag is off" "$(session)" 0
cpu0=$(bpftool -j map dump pinned "$PIN/xrl_cap_cpu" | md5sum)
send 10.231.0.2 5000 400 1
expect_eq "capture off: traffic leaves the capture's per-CPU state untouched" \
	"$(bpftool -j map dump pinned "$PIN/xrl_cap_cpu" | md5sum)" "$cpu0"

# One at a time; a capture killed with SIGKILL holds the interface until its lease ends (3 s), then
# the program turns its flag off at the next frame, and a new capture starts.
start killed -w "$dir/killed.pcap"
expect_err "a second capture is refused, naming the first (its file left alone)" 1 "already running on xrlcap0 \(pid $cap\)" \
	"$XRL" capture xrlcap0 --count 1 -w "$dir/killed.pcap"
{
	kill -KILL "$cap"
	wait "$cap"
} 2>/dev/null # no "Killed" from the shell
expect_err "right after a SIGKILL the lease still holds" 1 "already running on xrlcap0" "$XRL" capture xrlcap0 --count 1
sleep 3.2 # the lease runs out: what is tested
send 10.231.0.2 5000 100 0.2
expect_eq "its lease over, the program turned the flag off at the next frame" "$(session)" 0
check "a new capture starts" "$XRL" capture xrlcap0 --seconds 1
expect_eq "a capture killed mid-write leaves a pcap tcpdump reads" "$(tcpdump -nr "$dir/killed.pcap" >/dev/null 2>&1; echo $?)" 0

# Bad input: exit 2 and a clear message.
expect_err "--src that is no address" 2 "--src" "$XRL" capture xrlcap0 --src 10.0.0.300
expect_err "--rule that is no match" 2 "quote a match" "$XRL" capture xrlcap0 --rule 'port x'
expect_err "--rule of no rule there" 2 "has no rule for 'port 7777/udp'" "$XRL" capture xrlcap0 --rule 'port 7777/udp'
expect_err "--count 0" 2 "is not a frame count" "$XRL" capture xrlcap0 --count 0
expect_err "--max-rate 0" 2 "is not a frame rate" "$XRL" capture xrlcap0 --max-rate 0
expect_err "--snaplen abc" 2 "is not a byte count" "$XRL" capture xrlcap0 --snaplen abc
expect_err "-w to a folder that does not exist" 2 "cannot write '/nonexistent/x.pcap'" \
	"$XRL" capture xrlcap0 -w /nonexistent/x.pcap
expect_err "no interface" 2 "missing interface" "$XRL" capture
# -w through a symlink (one planted at the name in /tmp, say): refused, its target whole; it was
# followed and the target emptied. A hard link likewise; a file of its own is emptied, as tcpdump's.
echo precious >"$dir/victim"
ln -s "$dir/victim" "$dir/link.pcap"
expect_err "-w to a symlink is refused" 2 "'$dir/link.pcap' is a symlink: it is not written through" \
	timeout 10 "$XRL" capture xrlcap0 --seconds 1 -w "$dir/link.pcap"
expect_eq "... its target left whole" "$(cat "$dir/victim")" precious
ln "$dir/victim" "$dir/hard.pcap"
expect_err "-w to a hard link is refused" 2 "'$dir/hard.pcap' has 2 hard links" \
	timeout 10 "$XRL" capture xrlcap0 --seconds 1 -w "$dir/hard.pcap"
expect_eq "... the other name's file whole" "$(cat "$dir/victim")" precious
echo "an old capture" >"$dir/old.pcap"
check "-w to a file there: written over" timeout 10 "$XRL" capture xrlcap0 --seconds 1 -w "$dir/old.pcap"
expect_eq "... a pcap tcpdump reads, the old bytes gone" "$(tcpdump -nr "$dir/old.pcap" >/dev/null 2>&1; echo $?)" 0
# An unload during a capture ends it, with a whole file.
start unloaded -w "$dir/unloaded.pcap"
check "unload during a capture" "$XRL" unload xrlcap0
if lab_wait 5 grep -q 'was unloaded from xrlcap0: capture ends' "$dir/unloaded.err"; then
	wait "$cap"
	expect_eq "the capture ends by itself, exit 0, a whole file" \
		"$?:$(tcpdump -nr "$dir/unloaded.pcap" >/dev/null 2>&1; echo $?)" "0:0"
else
	fail "an unload ends the capture" "$(cat "$dir/unloaded.err")"
	finish_cap unloaded
fi
if command -v tshark >/dev/null; then
	expect_eq "tshark reads the file too" "$(tshark -r "$dir/src.pcap" 2>/dev/null | wc -l)" "$(frames "$dir/src.pcap")"
fi
finish
