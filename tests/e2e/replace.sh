#!/usr/bin/env bash
# Replace in place: 'load IFACE ...' on an interface the limiter serves loads the new program on
# the instance's maps and swaps it in with one bpf_link_update. Under a flood from one source
# against 'rate 50/s window 10s', four replaces (a load option, --max-keys and --sketch-width,
# which make new maps and carry the windows into them, and --config) let through exactly what
# one window allows: 500 frames, as with no replace at all (an unload and a load passed 500
# more). Every frame is judged (the program saw all the sender sent), the counters only grow,
# the options not given stay as they were, a mode change and a program the verifier refuses
# leave the running program in place.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-rp
IF=xrlrp0
lab_prologue replace $NS $IF xrlrp1 10.234.0 fd00:234

options() { "$XRL" -j status | jq -c --arg i "$1" '.interfaces[] | select(.interface == $i) | [.mode, .clock, .max_keys, .new_keys_per_second, .sketch_width, .malformed]'; }
prog_id() { "$XRL" -j status | jq -r --arg i "$1" '.interfaces[] | select(.interface == $i) | .prog_id'; }
seen() { "$XRL" -j stats "$1" | jq -r .counters.seen; }

echo 'port 9/udp rate 50/s window 10s buckets 10 per-source' >"$dir/rules"
check "load" "$XRL" load $IF --clock coarse --max-keys 1024 --config "$dir/rules"
id0=$(prog_id $IF)

# The flood: 2000 frames a second for 6 s, all within one 10 s window.
recv_bg "$dir/rx" 10.234.0.1 9 9
$UDP send -n $NS 10.234.0.2 10.234.0.1 9 2000 6 >"$dir/sent" 2>&1 &
sender=$!
lab_undo "kill $sender 2>/dev/null"
traffic_on $IF
last=$(seen $IF)
grow=ok
step() {
	local now
	now=$(seen $IF)
	[ "$now" -ge "$last" ] || grow="seen went from $last to $now $1"
	last=$now
}
expect_err "load --malformed drop on the loaded interface replaces the program in place" 0 \
	"replaced the program on $IF in place \(native mode, coarse clock, 1024 keys, malformed drop\)" \
	"$XRL" load $IF --malformed drop
step "over a replace"
traffic_on $IF
check "load --max-keys 4096 replaces, with the window states in a new table" "$XRL" load $IF --max-keys 4096
step "over a resize"
traffic_on $IF
check "load --sketch-width 1024 replaces, with a new sketch" "$XRL" load $IF --sketch-width 1024
step "over a sketch resize"
traffic_on $IF
expect_err "load --config on the loaded interface replaces and applies" 0 "replaced .*; $dir/rules: 1 rule in force" \
	"$XRL" load $IF --config "$dir/rules"
step "over a --config"
expect_eq "the counters only grow" "$grow" ok
expect_eq "the options given changed, the rest stayed" "$(options $IF)" '["native","coarse",4096,4096,1024,"drop"]'
expect_eq "... and it is another program" "$([ "$(prog_id $IF)" != "$id0" ] && echo new)" new
wait $sender
wait "$rx"
sent=$(cat "$dir/sent")
st=$("$XRL" -j stats $IF)
expect_range "the source sent its flood" "$sent" 8000 12000
expect_eq "the receiver got exactly one window's 500, as with no replace" "$(tail -1 "$dir/rx")" 500
expect_eq "stats says the same" "$(json '.rules[0].passed' <<<"$st")" 500
expect_eq "... and blocked the rest" "$(json '.rules[0].blocked' <<<"$st")" $((sent - 500))
# The lab's own frames (neighbour discovery) are seen too: at least everything sent, a few more.
expect_range "every frame sent was judged" "$(json .counters.seen <<<"$st")" "$sent" $((sent + 50))

# A source over its limit before a replace is still blocked right after it (another source:
# the flood's first window is ending by now).
$UDP send -n $NS 10.234.0.3 10.234.0.1 9 2000 1 600 >/dev/null 2>&1
before=$("$XRL" -j stats $IF | json '.rules[0].blocked')
check "replace once more" "$XRL" load $IF --malformed drop-evasive
$UDP send -n $NS 10.234.0.3 10.234.0.1 9 1000 1 100 >/dev/null 2>&1
expect_eq "... the source over its limit is blocked right after it" \
	"$(("$("$XRL" -j stats $IF | json '.rules[0].blocked')" - before))" 100

# What cannot change in place leaves the running program as it was.
id=$(prog_id $IF)
expect_err "the mode cannot change in place" 1 "runs in native mode: the mode cannot change in place.*nothing was changed" \
	"$XRL" load $IF --mode generic
expect_eq "... the same program runs" "$(prog_id $IF)" "$id"
expect_err "a build the verifier refuses is refused, and says so" 1 \
	"the kernel refused the program.*; the running program was left in place" \
	env XDP_RATELIMIT_BPF_OBJECT="$BUILD/xdp_ratelimit_refused.bpf.o" "$XRL" load $IF --malformed pass
expect_eq "... the same program runs" "$(prog_id $IF)" "$id"
expect_eq "... with its options" "$(options $IF | jq -r '.[5]')" drop-evasive
expect_eq "... nothing left beside its pins" "$(find "$(pin_dir $IF)" -name '*-new' | wc -l)" 0
$UDP send -n $NS 10.234.0.3 10.234.0.1 9 1000 1 100 >/dev/null 2>&1
expect_eq "... and still limits" "$(("$("$XRL" -j stats $IF | json '.rules[0].blocked')" - before))" 200

# A layout older than the previous one is not taken over: its layout written into the control map.
ctl="$(pin_dir $IF)/xrl_ctl"
bytes=$(bpftool -j map lookup pinned "$ctl" key 0 0 0 0 | jq -r '.value | map(ltrimstr("0x")) | join(" ")')
first=${bytes%% *} value=${bytes#* }
if [ -n "$value" ]; then
	# shellcheck disable=SC2086 # the value's bytes, one word each
	bpftool map update pinned "$ctl" key 0 0 0 0 value hex 06 $value
	expect_err "an instance of layout 6 is not taken over, and the message says what to do" 1 \
		"have layout 6; this xdp-ratelimit takes over layouts [0-9]+ to [0-9]+ only: run 'xdp-ratelimit unload $IF'" \
		"$XRL" load $IF
	# shellcheck disable=SC2086
	bpftool map update pinned "$ctl" key 0 0 0 0 value hex "$first" $value
else
	fail "read the control map with bpftool" "no value"
fi

# JSON says it replaced.
expect_eq "load -j on the loaded interface says replaced" "$("$XRL" -j load $IF | jq -r .replaced)" true
check "unload" "$XRL" unload $IF
expect_eq "a fresh load is not a replace" "$("$XRL" -j load $IF | jq -r .replaced)" false
finish
