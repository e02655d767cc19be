#!/usr/bin/env bash
# metrics_hostile: 'metrics --listen' under slow and hostile clients (tests/e2e/hostile_http.py).
# Every scrape must be a full 200 in under 1 s: beside 50 clients from the scraper's own
# address that stall a partial request line, trickle a byte a second or send nothing; beside
# 1000 slow clients from 100 IPv4 addresses (127.0.1.1-100), then from 100 addresses of one
# IPv6 /64 (added to the lab's xrlw0), each trickling a request head that never ends and
# reconnecting when dropped. A request head has 3 s from the accept, which no byte renews; a
# source (an IPv4 address, an IPv6 /64) holds 64 connections, a newcomer past that taking the
# place of its oldest; a request line that is not HTTP is a 400 at once; pipelined requests
# get one answer, which closes the connection. On libmicrohttpd (0.5.0) 1000 slow clients
# left no scrape answered, each renewing its 5 s timeout with a byte every 2 s.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { skip metrics_hostile "needs python3 (scripts/deps.sh installs it)"; exit 0; }
command -v curl >/dev/null || { skip metrics_hostile "needs curl (scripts/deps.sh installs it)"; exit 0; }

NS=xrle-w
lab_prologue metrics_hostile $NS xrlw0 xrlw1 10.223.0 fd00:223
hostile=(python3 "$ROOT/tests/e2e/hostile_http.py")
# One /64 of many addresses, on the lab's interface (gone with it): fd00:223:0:64::1 to ::64.
for i in $(seq 1 100); do printf 'addr add fd00:223:0:64::%x/128 dev xrlw0 nodad\n' "$i"; done |
	ip -batch - || fail "lab" "cannot add the /64's addresses to xrlw0"

check "load" "$XRL" load xrlw0
# serve ADDR:PORT: a server in the background (its pid in srv), its URL in url, its port in port.
serve() {
	rm -f "$dir/listen.out" # the last server's, which the wait below would read (slow.out's race)
	"$XRL" metrics --listen "$1" >"$dir/listen.out" 2>&1 &
	srv=$!
	lab_undo "kill $srv 2>/dev/null"
	if ! lab_wait 10 grep -qs '^serving the metrics at http://.*:[0-9]*/metrics' "$dir/listen.out"; then
		fail "--listen $1 starts" "$(cat "$dir/listen.out")"
		finish
	fi
	url=$(grep -o 'http://[^ ]*' "$dir/listen.out")
	port=${url##*:} port=${port%/metrics}
}
serve 127.0.0.1:0

# scrape_once [URL]: one scrape as Prometheus makes it (from the address the route picks):
# true for a full 200 with the figures of xrlw0 in under a second; code and t say what it got.
scrape_once() {
	local out
	rm -f "$dir/scrape.prom"
	out=$(curl -gs -m 3 -o "$dir/scrape.prom" -w '%{http_code} %{time_total}' "${1:-$url}")
	code=${out% *} t=${out#* }
	[ "$code" = 200 ] && grep -q '^xdp_ratelimit_frames_seen_total{interface="xrlw0"} ' "$dir/scrape.prom" &&
		awk -v t="$t" 'BEGIN { exit !(t < 1) }'
}
# scrape WHAT [URL]
scrape() {
	if scrape_once "${2:-}"; then
		pass "$1: a full 200 in ${t} s"
	else
		fail "$1" "HTTP ${code:-none} in ${t:-?} s (want a full 200 in under 1 s), $(stat -c %s "$dir/scrape.prom" 2>/dev/null || echo 0) bytes"
	fi
}
# scrapes WHAT [URL]: 15 scrapes 0.2 s apart (each given up after 3 s), all full 200s in under 1 s.
scrapes() {
	local i ok=0 worst=0
	for i in $(seq 15); do
		scrape_once "${2:-}" && ok=$((ok + 1))
		worst=$(awk -v a="$worst" -v b="${t:-3}" 'BEGIN { print (b > a ? b : a) }')
		sleep 0.2
	done
	expect_eq "$1: scrapes that were a full 200 in under 1 s (the slowest took $worst s)" "$ok of 15" "15 of 15"
}

scrape "a scrape with no other client"
"${hostile[@]}" flood 127.0.0.1 "$port" 8 >"$dir/flood.out" 2>&1 &
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
expect_eq "partial request lines that stall are dropped by the head's deadline" "$opened $closed" "17 17"
read -r opened closed < <(kind trickle)
expect_eq "heads trickled a byte a second are dropped by it too" "$opened $closed" "17 17"
read -r opened closed < <(kind idle)
expect_eq "connections that send nothing are dropped by it" "$opened $closed" "16 16"
expect_range "... within its 3 s (and a second of slack)" \
	"$(awk '$1 == "idle" || $1 == "partial" || $1 == "trickle" { if ($7 > m) m = $7 } END { printf "%d", m }' "$dir/flood.out")" 2 4
scrape "once they are gone: a scrape"

# One address holds 64 connections: past them, a newcomer takes the place of its oldest.
expect_eq "100 idle connections from one address: it keeps 64, the newest" \
	"$("${hostile[@]}" idle 127.0.0.1 "$port" 127.0.0.40 100 1)" "closed 36 of 100, the first 36"

# slow_flood WHO URL HOST PORT SRC: 1000 slow clients, 10 from each of 100 addresses from SRC,
# while 15 scrapes of URL are made; none of them lives past the head's deadline.
slow_flood() {
	local who=$1 u=$2 slow
	# The last flood's output goes first: read before this one's shell truncates it (a slow start
	# on a busy machine), its "ready" passed the wait, and the count read nothing.
	rm -f "$dir/slow.out"
	"${hostile[@]}" slow "$3" "$4" "$5" 100 10 90 >"$dir/slow.out" 2>&1 &
	slow=$!
	lab_undo "kill $slow 2>/dev/null"
	lab_wait 30 grep -qs '^ready' "$dir/slow.out" || fail "$who: the slow clients start" "$(cat "$dir/slow.out")"
	expect_eq "$who: 1000 slow clients connected (or were refused)" "$(awk '/^ready/ { print $2 }' "$dir/slow.out")" 1000
	scrapes "$who" "$u"
	kill -TERM "$slow"
	wait "$slow"
	read -r o d n l < <(awk '$1 == "opened" { print $2, $4, $6, $8 }' "$dir/slow.out")
	expect_range "$who: the longest a slow client lived, s (opened $o, dropped $d, $n open at the end)" \
		"$(awk -v l="${l:-99}" 'BEGIN { printf "%d", l }')" 0 4
	scrape "$who, once they are gone: a scrape" "$u"
}
slow_flood "1000 slow clients from 100 IPv4 addresses" "$url" 127.0.0.1 "$port" 127.0.1.1

expect_eq "a request line of binary bytes: a 400 at once" \
	"$("${hostile[@]}" garbage 127.0.0.1 "$port" | awk '{ print $1, ($2 < 0.5 ? "at once" : $2 " s") }')" "400 at once"
expect_eq "50 pipelined requests: the first answered whole, with Connection: close, then the end" \
	"$("${hostile[@]}" pipeline 127.0.0.1 "$port" 50)" "answers 1 status 200 close yes eof yes"
expect_eq "a request head past 16 KiB is refused (431)" "$("${hostile[@]}" big 127.0.0.1 "$port" 65536)" 431
scrape "after them: a scrape"

kill -TERM "$srv"
wait "$srv"
expect_eq "SIGTERM ends it, exit 0" $? 0

# IPv6: a /64 is one source, however many addresses it holds.
serve "[fd00:223::1]:0"
expect_eq "100 idle connections from 100 addresses of one /64: it keeps 64, the newest" \
	"$("${hostile[@]}" idle fd00:223::1 "$port" fd00:223:0:64::1 100 100)" "closed 36 of 100, the first 36"
slow_flood "1000 slow clients from 100 addresses of one IPv6 /64" "$url" fd00:223::1 "$port" fd00:223:0:64::1
kill -TERM "$srv"
wait "$srv"
expect_eq "SIGTERM ends it, exit 0" $? 0
finish
