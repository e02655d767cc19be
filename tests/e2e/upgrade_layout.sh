#!/usr/bin/env bash
# An upgrade across map layouts, from each layout this build takes over (XRL_LAYOUT_OLDEST on):
# the build of that layout (its last commit, found in the git history and built here) loads and limits a flood from one source against
# 'rate 50/s window 10s'; this build's 'load IFACE' takes the instance over in place, with the
# old maps read through user/lib/layouts/layout$prev.c. The receiver gets exactly one window's
# 500 frames, as with no upgrade; every frame sent is judged; the counters carry over and only
# grow; the rules and load options are as they were; this build reads and changes the instance
# afterwards.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
NS=xrle-ug
IF=xrlug0
lab_prologue upgrade_layout $NS $IF xrlug1 10.235.0 fd00:235

# upgrade_from PREV: the build of layout PREV loads, this one takes it over under the flood.
upgrade_from() {
	local prev=$1 first old_commit old OLD want_rules sender rx seen0 seen1 st
	if ! command -v git >/dev/null || ! git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
		skip upgrade_layout "needs the git history to build layout $prev's xdp-ratelimit"
		return
	fi
	# The commit that made layout $prev + 1; its parent is the last of layout $prev.
	first=$(git -C "$ROOT" log --format=%H -S"XRL_LAYOUT_VERSION $((prev + 1))" -- include/xrl_common.h | tail -1)
	if [ -z "$first" ] || ! git -C "$ROOT" cat-file -e "$first^" 2>/dev/null; then
		skip upgrade_layout "the history has no commit of layout $prev (a shallow clone?)"
		return
	fi
	old_commit=$(git -C "$ROOT" rev-parse --short "$first^")
	old=$BUILD/layout-$prev-$old_commit
	if [ ! -x "$old/build/xdp-ratelimit" ]; then
		rm -rf "$old" && mkdir -p "$old"
		git -C "$ROOT" archive "$old_commit" | tar -x -C "$old"
		# A plain build whatever this one is (make SANITIZE=1 test passes SANITIZE down).
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$old" -j2 SANITIZE=0 \
			build/xdp-ratelimit >"$old.log" 2>&1 ||
			{ fail "build layout $prev at $old_commit" "$(tail -5 "$old.log")"; return; }
	fi
	OLD=$old/build/xdp-ratelimit
	expect_err "the build of layout $prev ($old_commit) is one" 0 "" "$OLD" --version

	cat >"$dir/rules" <<-'RULES'
	port 9/udp rate 50/s window 10s buckets 10 per-source
	port 53/udp rate 100/s per-source mask4 24
	prefix 192.0.2.0/24 allow
	RULES
	check "layout $prev loads, with options and rules" "$OLD" load $IF --clock coarse --max-keys 2048 --malformed drop --config "$dir/rules"
	want_rules=$("$OLD" dump $IF)

	recv_bg "$dir/rx" 10.235.0.1 9 6
	$UDP send -n $NS 10.235.0.2 10.235.0.1 9 2000 3 >"$dir/sent" 2>&1 &
	sender=$!
	lab_undo "kill $sender 2>/dev/null"
	# Over a thousand frames through the old program before the takeover, waited for: a sleep was a
	# guess at when a sender that a busy machine starts late has sent them.
	# shellcheck disable=SC2317 # run by lab_wait
	seen_old() {
		seen0=$("$OLD" -j stats "$IF" | json .counters.seen)
		[ "$seen0" -gt 1000 ]
	}
	lab_wait 3 seen_old
	expect_err "this build's stats says how to take it over" 1 "have layout $prev, an older xdp-ratelimit's .*run 'xdp-ratelimit load $IF' to take them over in place" "$XRL" stats $IF
	# The old program's counts after the fill go in while the new one counts, slowed down as on a busy
	# machine (a third of a second before each add): a read and a write from userspace lost the frames
	# the new program counted between them (2 of 6000 in a CI run, 600 with the pause).
	expect_err "this build's load takes it over in place" 0 "replaced the program on $IF in place .* from map layout $prev to $now" \
		env XRL_TEST_PAUSE_AT=carrying "$XRL" load $IF
	seen1=$("$XRL" -j stats $IF | json .counters.seen)
	wait $sender
	wait "$rx"
	st=$("$XRL" -j stats $IF)
	expect_eq "the receiver got exactly the window's 500, as with no upgrade" "$(tail -1 "$dir/rx")" 500
	expect_eq "stats says so, the old program's passes and the new one's together" "$(json '.rules[0].passed' <<<"$st")" 500
	expect_eq "every frame sent was judged" "$(json '.rules[0].passed + .rules[0].blocked' <<<"$st")" "$(cat "$dir/sent")"
	expect_eq "the counters carried over and only grew" "$((seen1 >= seen0 && seen0 > 1000))" 1
	expect_eq "the rules are as they were" "$("$XRL" dump $IF)" "$want_rules"
	expect_eq "the load options too" \
		"$("$XRL" -j status | jq -c --arg i $IF '.interfaces[] | select(.interface == $i) | [.clock, .max_keys, .malformed]')" \
		'["coarse",2048,"drop"]'
	check "this build changes its rules" "$XRL" rule add $IF port 80/tcp rate 10/s
	expect_err "the old build refuses the new layout's maps" 1 "another version of xdp-ratelimit|a newer xdp-ratelimit's than this one" "$OLD" stats $IF
	check "unload" "$XRL" unload $IF
}

now=$(sed -n 's/^#define XRL_LAYOUT_VERSION \([0-9]*\)$/\1/p' "$ROOT/include/xrl_common.h")
oldest=$(sed -n 's/^#define XRL_LAYOUT_OLDEST \([0-9]*\)$/\1/p' "$ROOT/include/xrl_common.h")
# Every layout a build takes over (CHANGELOG.md), the previous one first.
for ((prev = now - 1; prev >= oldest; prev--)); do
	upgrade_from $prev
done
finish
