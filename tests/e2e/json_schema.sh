#!/usr/bin/env bash
# One JSON, everywhere: every command's -j output, its errors and usage errors included,
# conforms to docs/json-schema.json (checked by tests/e2e/json_check.py); stats --watch and
# --count print NDJSON, each line with a timestamp; -j anywhere on the line counts.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

SCHEMA=$ROOT/docs/json-schema.json
NS=xrle-j
lab_prologue json_schema $NS xrlej0 xrlej1 10.218.0 fd00:218
printf '%s\n' "port 53/udp rate 10/s" "prefix 10.218.0.0/24 rate 5/s aggregate monitor" \
	"prefix 192.0.2.0/24 allow" "port 7000/udp rate 1k/s aggregate global" \
	"port 8000/udp rate 100/s rate 10Mbit/s warmup 30s" "port 8001/udp rate 12MB/s aggregate" \
	"dst 203.0.113.0/24 rate 50/s mask4 28" "dst 2001:db8::1 allow" "port 53/udp dst 203.0.113.5 rate 20/s" \
	"dst 198.51.100.0/24 rate 100Mbit/s aggregate" \
	"proto icmp type 8 rate 10/s" "fragments rate 5/s aggregate" \
	"port 8002/udp rate 600/min window 60s buckets 60" >"$dir/rules"

# conforms DEF CODE COMMAND... [--ndjson after --]: the command exits CODE and prints only JSON of $defs/DEF.
conforms() {
	local def=$1 code=$2 out rc why mode=()
	shift 2
	if [ "$1" = --ndjson ]; then mode=(--ndjson); shift; fi
	out=$("$@" 2>"$dir/stderr")
	rc=$?
	if [ $rc -ne "$code" ]; then
		fail "$def: $*" "exit $rc, want $code: $out $(cat "$dir/stderr")"
	elif ! why=$(python3 "$ROOT/tests/e2e/json_check.py" "$SCHEMA" "$def" "${mode[@]}" <<<"$out" 2>&1); then
		fail "$def: $*" "$why; it printed: $out"
	else
		pass "$def: ${*#"$XRL" }"
	fi
}

conforms load 0 "$XRL" -j load xrlej0 --malformed drop --sketch-width 1024
conforms change 0 "$XRL" -j apply xrlej0 "$dir/rules"
conforms change 0 "$XRL" -j rule add xrlej0 port 54/udp rate 1k/s window 2s buckets 4
conforms change 0 "$XRL" -j rule del xrlej0 port 54/udp
conforms check 0 "$XRL" -j apply xrlej0 "$dir/rules" --check
conforms lint 0 "$XRL" -j lint "$dir/rules"
# Rules of several fields, every field, and what lint warns about (a redundant rule, one no packet reaches).
cat "$ROOT/tests/fuzz/seeds/match.rules" - >"$dir/match.rules" <<'EOF2'
src @good proto udp sport 53 dport 1000-2000 rate 1/s
proto udp sport 53 frag later rate 1/s per dst
EOF2
conforms lint 0 "$XRL" -j lint "$dir/match.rules"
expect_eq "lint -j warns of the redundant rule and the one no packet reaches" \
	"$("$XRL" -j lint "$dir/match.rules" | jq '.warnings | length')" 2
conforms dump 0 "$XRL" -j dump xrlej0
conforms dump 0 "$XRL" -j rule list xrlej0
conforms save 0 "$XRL" -j save xrlej0 "$dir/saved.conf"
conforms status 0 "$XRL" -j status
conforms status 0 "$XRL" -j status --cost 1
check "status shows every load option, the sketch and the malformed policy included" \
	sh -c "$XRL status | grep '^xrlej0 ' | grep -qE ' native +precise .* 65536 +32\.[0-9]KiB +drop\$'"
conforms stats 0 "$XRL" -j stats xrlej0 --top 5
conforms stats 0 --ndjson "$XRL" -j stats xrlej0 --count 2
# sync with no Redis there: its events (an error each sync, then the fallback), then stats' fleet view of it.
conforms sync 0 --ndjson "$XRL" -j sync --redis 127.0.0.1:1 --interval 10 --count 4 xrlej0
conforms stats 0 "$XRL" -j stats xrlej0
conforms status 0 "$XRL" -j status
conforms explain 0 "$XRL" -j explain xrlej0 --src 10.218.0.9 --dport 53/udp
conforms explain 0 "$XRL" -j explain xrlej0 --src 192.0.2.1
conforms explain 0 "$XRL" -j explain xrlej0 --src 10.218.0.9 --dport 8000/udp --size 1500
conforms explain 0 "$XRL" -j explain xrlej0 --src 10.218.0.9 --dport 8001/udp
conforms explain 0 "$XRL" -j explain xrlej0 --src 10.218.0.9 --dst 203.0.113.5 --dport 53/udp
conforms explain 0 "$XRL" -j explain xrlej0 --src 2001:db8::9 --dst 2001:db8::1
conforms explain 0 "$XRL" -j explain xrlej0 --src 10.218.0.9 --dst 198.51.100.7 --size 1500
conforms help 0 "$XRL" -j help stats
conforms help 0 "$XRL" -j help rule
conforms help 0 "$XRL" -j stats -h
conforms commands 0 "$XRL" -j help
conforms version 0 "$XRL" -j -V
conforms memory 0 "$XRL" -j memory --cpus 64 --max-keys 4096
conforms memory 0 "$XRL" -j memory --dsts 100 --prefixes 100000
conforms metrics 0 "$XRL" -j metrics xrlej0
conforms metrics 0 "$XRL" -j metrics
conforms metrics_textfile 0 "$XRL" -j metrics --textfile "$dir/xrl.prom"
# Errors and usage errors, wherever -j is on the line.
conforms error 2 "$XRL" --bogus -j status
conforms error 2 "$XRL" -j
conforms error 2 "$XRL" -j frobnicate
conforms error 2 "$XRL" -j load
conforms error 2 "$XRL" load xrlej0 --mode turbo -j
conforms error 1 "$XRL" -j load nosuch0
conforms error 1 "$XRL" -j load xrlej0 --mode generic
conforms load 0 "$XRL" -j load xrlej0 --malformed drop
conforms chain 0 "$XRL" -j chain xrlej0
conforms chain 0 "$XRL" -j chain xrlej0 none
conforms error 2 "$XRL" -j chain xrlej0 /etc/passwd
conforms error 2 "$XRL" -j rule add xrlej0 port 53/udp speed 5
conforms error 2 "$XRL" -j unload ../x
conforms error 1 "$XRL" -j stats xrlej1
conforms error 2 "$XRL" -j lint /nonexistent
conforms error 2 "$XRL" -j demo ../x
conforms error 2 "$XRL" -j sync --redis nowhere xrlej0
conforms error 2 "$XRL" -j metrics --listen 127.0.0.1
# Not loaded on it: the metrics document all the same, the interface with its error, exit 1.
conforms metrics 1 "$XRL" -j metrics xrlej1
conforms error 2 "$XRL" -j save xrlej0 -
conforms error 1 "$XRL" -j save xrlej0 /nonexistent/dir/x.conf
conforms unload 0 "$XRL" -j unload xrlej0
conforms load 0 "$XRL" -j load xrlej0 --config "$dir/saved.conf"
conforms error 2 "$XRL" -j load xrlej0 --config "$dir/nonexistent.conf"
conforms unload 0 "$XRL" -j unload xrlej0

# dump's rule lines are the grammar: they apply back.
check "load again" "$XRL" load xrlej0
check "apply" "$XRL" apply xrlej0 "$dir/rules"
"$XRL" -j dump xrlej0 | jq -r '.rules[].rule' >"$dir/back"
check "dump -j's rule lines apply back" "$XRL" apply xrlej0 "$dir/back"
expect_eq "... to the same set" "$("$XRL" dump xrlej0 | sort)" "$(sort "$dir/back")"
check "unload" "$XRL" unload xrlej0

# A broken instance (its control map's pin removed under it) is listed, what it cannot tell null.
check "load again" "$XRL" load xrlej0
rm -f "$(pin_dir xrlej0)/xrl_ctl"
conforms status 0 "$XRL" -j status
expect_eq "... as broken" "$("$XRL" -j status | jq -c '.interfaces[] | select(.interface == "xrlej0") | [.state, .sketch_width]')" '["broken",null]'
# While a load or unload holds the pin root (as load does from its first pin to its last, here
# held by flock for it), a folder that cannot be read is "loading", not "broken" (661df77 said
# broken and advised an unload), and status does not wait for it.
flock /sys/fs/bpf/xdp-ratelimit sleep 5 &
holder=$!
lab_wait 5 sh -c '! flock -n /sys/fs/bpf/xdp-ratelimit true'
expect_eq "... as loading while a load holds the pin root" \
	"$(timeout 3 "$XRL" -j status | jq -r '.interfaces[] | select(.interface == "xrlej0") | .state')" loading
check "... and says so in text" sh -c "timeout 3 $XRL status | grep '^xrlej0 ' | grep -q 'loading  a load or unload is under way'"
conforms status 0 "$XRL" -j status
kill $holder 2>/dev/null
wait $holder 2>/dev/null
check "a broken instance unloads" "$XRL" unload xrlej0

# The demo under -j: stats each second, then its summary, one document a line; text on stderr.
if [ -x "$BUILD/xrl-udp" ]; then
	"$XRL" -j demo >"$dir/demo" 2>/dev/null
	expect_eq "demo -j exits 0" $? 0
	if head -n -1 "$dir/demo" | python3 "$ROOT/tests/e2e/json_check.py" "$SCHEMA" stats --ndjson &&
		tail -1 "$dir/demo" | python3 "$ROOT/tests/e2e/json_check.py" "$SCHEMA" demo; then
		pass "demo -j: NDJSON of stats, then a summary"
	else fail "demo -j: NDJSON of stats, then a summary" "$(head -c 600 "$dir/demo")"; fi
fi
finish
