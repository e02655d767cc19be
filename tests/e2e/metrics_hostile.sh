#!/usr/bin/env bash
# metrics_hostile: 'metrics --listen' under slow and hostile clients on the loopback
# (tests/e2e/hostile_http.py): 50 connections from the scraper's own address that send a partial
# request line and stall, trickle a byte a second or send nothing never delay a scrape past 1 s; the stalled and idle ones are
# dropped after the timeout; one address cannot take every connection; an oversized request is
# refused. The hand-written server before libmicrohttpd held a scrape 4.5 s for one such client.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
needs_root metrics_hostile
command -v python3 >/dev/null || { skip metrics_hostile "needs python3 (scripts/deps.sh installs it)"; exit 0; }
command -v curl >/dev/null || { skip metrics_hostile "needs curl (scripts/deps.sh installs it)"; exit 0; }

NS=xrle-w
veth_lab $NS xrlw0 xrlw1 10.223.0 fd00:223
lab_undo "$XRL unload xrlw0"
dir=$(mktemp -d)
lab_undo "rm -rf $dir"
hostile=(python3 "$ROOT/tests/e2e/hostile_http.py")

check "load" "$XRL" load xrlw0
"$XRL" metrics --listen 127.0.0.1:0 >"$dir/listen.out" 2>&1 &
srv=$!
lab_undo "kill $srv 2>/dev/null"
if ! lab_wait 10 grep -qs '^serving the metrics at http://127.0.0.1:[0-9]*/metrics' "$dir/listen.out"; then
	fail "--listen starts" "$(cat "$dir/listen.out")"
	finish
fi
url=$(grep -o 'http://[^ ]*' "$dir/listen.out")
port=${url#http://127.0.0.1:} port=${port%/metrics}

# scrape WHAT: one scrape as Prometheus makes it, from 127.0.0.1: a full 200 with the figures of
# xrlw0, in under a second.
scrape() {
	local out code t
	rm -f "$dir/scrape.prom"
	out=$(curl -s -m 10 -o "$dir/scrape.prom" -w '%{http_code} %{time_total}' "$url")
	code=${out% *} t=${out#* }
	if [ "$code" = 200 ] && grep -q '^xdp_ratelimit_frames_seen_total{interface="xrlw0"} ' "$dir/scrape.prom" &&
		awk -v t="$t" 'BEGIN { exit !(t < 1) }'; then
		pass "$1: a full 200 in ${t} s"
	else
		fail "$1" "HTTP ${code:-none} in ${t:-?} s (want a full 200 in under 1 s), $(stat -c %s "$dir/scrape.prom" 2>/dev/null || echo 0) bytes"
	fi
}

scrape "a scrape with no other client"
"${hostile[@]}" flood 127.0.0.1 "$port" 12 >"$dir/flood.out" 2>&1 &
flood=$!
lab_undo "kill $flood 2>/dev/null"
lab_wait 10 grep -qs '^ready' "$dir/flood.out" || fail "the hostile clients connect" "$(cat "$dir/flood.out")"
expect_eq "50 hostile clients connected" "$(awk '/^ready/ { print $2 }' "$dir/flood.out")" 50
sleep 1.5 # the partial ones have stalled, the trickling ones have sent a byte more
scrape "50 hostile clients: a scrape"
sleep 2
scrape "50 hostile clients, 2 s later: a scrape"
wait "$flood"
# Each kind: "opened N closed C last T" (the last closed T s after they connected).
kind() { awk -v k="$1" '$1 == k { print $3, $5 }' "$dir/flood.out"; }
read -r opened closed < <(kind partial)
expect_eq "partial request lines that stall are dropped by the timeout" "$opened $closed" "17 17"
read -r opened closed < <(kind idle)
expect_eq "connections that send nothing are dropped by the timeout" "$opened $closed" "16 16"
expect_range "... within the 5 s timeout (and a second of slack)" \
	"$(awk '$1 == "idle" || $1 == "partial" { if ($7 > m) m = $7 } END { printf "%d", m }' "$dir/flood.out")" 4 6
scrape "once they are gone: a scrape"

# One address cannot take every connection: past 64, it is refused; another's scrape is served.
"${hostile[@]}" one-address 127.0.0.1 "$port" 127.0.0.40 100 >"$dir/one.out" 2>&1 &
one=$!
sleep 0.5
scrape "100 idle connections from one address: another's scrape"
wait "$one"
expect_eq "... that address keeps 64 of them" "$(cat "$dir/one.out")" "closed 36 of 100"

expect_eq "a request head past 16 KiB is refused (431)" "$("${hostile[@]}" big 127.0.0.1 "$port" 65536)" 431
scrape "after it: a scrape"

kill -TERM "$srv"
wait "$srv"
expect_eq "SIGTERM ends it, exit 0" $? 0
finish
