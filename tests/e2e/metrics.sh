#!/usr/bin/env bash
# metrics: the Prometheus text format, checked by Debian's promtool, served by a real
# prometheus-node-exporter (textfile collector) and by 'metrics --listen', each scrape's
# values equal to what 'stats -j' reports after real traffic on a veth lab.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-p
lab_prologue metrics $NS xrlp0 xrlp1 10.219.0 fd00:219

check "load" "$XRL" load xrlp0
printf '%s\n' "port 7000/udp rate 100/s window 1s per-source" \
	"prefix 10.219.0.4/32 rate 50/s window 1s aggregate monitor" >"$dir/rules"
check "apply" "$XRL" apply xrlp0 "$dir/rules"

# Real traffic: .2 at 5x its port limit, .4 at 4x a monitor limit, .3 to a port no rule names.
$UDP send -n $NS 10.219.0.2 10.219.0.1 7000 500 1 >"$dir/sent2" &
$UDP send -n $NS 10.219.0.4 10.219.0.1 7002 200 1 >"$dir/sent4" &
$UDP send -n $NS 10.219.0.3 10.219.0.1 7003 100 1 >/dev/null &
wait
judged_wait $(($(cat "$dir/sent2") + $(cat "$dir/sent4"))) xrlp0 "port 7000/udp" "prefix 10.219.0.4/32"

"$XRL" -j stats xrlp0 >"$dir/before.json"
"$XRL" metrics >"$dir/out.prom"
expect_eq "metrics exits 0" $? 0
"$XRL" -j stats xrlp0 >"$dir/after.json"
port_rule=$(jq -r '.rules[] | select(.rule | startswith("port 7000")) | .rule' "$dir/after.json")
mon_rule=$(jq -r '.rules[] | select(.rule | startswith("prefix")) | .rule' "$dir/after.json")

# value FILE NAME [LABELS]: the sample NAME{interface="xrlp0"LABELS} in an exposition.
value() {
	grep -F "$2{interface=\"xrlp0\"${3:-}} " "$1" | awk '{ print $NF }'
}
# between WHAT GOT FILTER: stats -j's FILTER read before the scrape <= GOT <= read after it.
# The link is not silent (IPv6 neighbour discovery, ARP): global counters may move between.
between() {
	local lo hi
	lo=$(jq -r "$3" "$dir/before.json") hi=$(jq -r "$3" "$dir/after.json")
	[[ $2 =~ ^[0-9]+$ ]] && [ "$2" -ge "$lo" ] && [ "$2" -le "$hi" ] && return 0
	fail "$1" "got '$2', want $lo..$hi (stats -j before and after)"
	return 1
}
# same_as_stats WHAT FILE: every figure in FILE is stats -j's, read just before and after it.
same_as_stats() {
	local f=$2 c ok=0
	for c in seen passed dropped non_ip no_rule allowed monitored; do
		between "$1: frames $c" "$(value "$f" "xdp_ratelimit_frames_${c}_total")" ".counters.$c" || ok=1
	done
	for c in keys_new:keys_created keys_failed:keys_failed sketch_judged:sketch_packets sketch_blocked:sketch_blocked; do
		between "$1: ${c#*:}" "$(value "$f" "xdp_ratelimit_${c#*:}_total")" ".counters.${c%%:*}" || ok=1
	done
	between "$1: malformed" "$(value "$f" xdp_ratelimit_frames_malformed_total ',reason="ipv4_ihl"')" \
		.counters.malformed.ipv4_ihl || ok=1
	# The rules' traffic has stopped: their figures cannot move.
	between "$1: rule passed" "$(value "$f" xdp_ratelimit_rule_passed_total ",rule=\"$port_rule\"")" \
		'.rules[] | select(.rule | startswith("port 7000")) | .passed' || ok=1
	between "$1: rule blocked" "$(value "$f" xdp_ratelimit_rule_blocked_total ",rule=\"$port_rule\"")" \
		'.rules[] | select(.rule | startswith("port 7000")) | .blocked' || ok=1
	between "$1: a monitor rule's over-limit packets are monitored" \
		"$(value "$f" xdp_ratelimit_rule_monitored_total ",rule=\"$mon_rule\"")" \
		'.rules[] | select(.rule | startswith("prefix")) | .blocked' || ok=1
	expect_eq "$1: keys tracked as status" "$(value "$f" xdp_ratelimit_keys_tracked)" \
		"$("$XRL" -j status | jq '.interfaces[] | select(.interface == "xrlp0") | .keys_tracked')"
	expect_eq "$1: memory as status (maps, states, sketch)" \
		"$(for m in memory state_memory sketch_memory; do value "$f" "xdp_ratelimit_${m}_bytes"; done |
			awk '{ printf "%s%.0f", (NR > 1 ? " " : ""), $1 }')" \
		"$("$XRL" -j status | jq -r '.interfaces[] | select(.interface == "xrlp0") | "\(.memory_bytes) \(.state_bytes) \(.sketch_bytes)"')"
	[ "$ok" = 0 ] && pass "$1: every figure is stats -j's"
}

# The traffic is what the figures say it is, so the comparisons below compare something.
expect_range "the port rule blocked most of .2's 500" \
	"$(value "$dir/out.prom" xdp_ratelimit_rule_blocked_total ",rule=\"$port_rule\"")" 250 420
expect_range "the monitor rule counted .4's frames over 50/s" \
	"$(value "$dir/out.prom" xdp_ratelimit_rule_monitored_total ",rule=\"$mon_rule\"")" 100 170
expect_eq "... none blocked" "$(value "$dir/out.prom" xdp_ratelimit_rule_blocked_total ",rule=\"$mon_rule\"")" 0
expect_range "no-rule frames: .3's 100 (and the link's own chatter)" "$(value "$dir/out.prom" xdp_ratelimit_frames_no_rule_total)" 100 130
same_as_stats "metrics (stdout)" "$dir/out.prom"
expect_eq "build info carries VERSION" "$(grep -c "^xdp_ratelimit_build_info{version=\"$(cat "$ROOT/VERSION")\"} 1\$" "$dir/out.prom")" 1
if grep -qE 'interface="[^"]*",(src|source|addr)=|10\.219\.0\.[2-4]"' "$dir/out.prom"; then
	fail "no source address is a label" "$(grep -E '10\.219\.0\.[2-4]"' "$dir/out.prom")"
else pass "no source address is a label"; fi

if command -v promtool >/dev/null; then
	check "promtool check metrics accepts it" sh -c "promtool check metrics <'$dir/out.prom'"
else skip "promtool check metrics" "needs promtool (Debian package prometheus)"; fi

check "metrics -j conforms to the schema" sh -c \
	"'$XRL' -j metrics xrlp0 | python3 '$ROOT/tests/e2e/json_check.py' '$ROOT/docs/json-schema.json' metrics"
expect_eq "metrics -j: the rule's passed as stats -j's" \
	"$("$XRL" -j metrics xrlp0 | jq '.interfaces[0].rules[] | select(.rule | startswith("port")) | .passed')" \
	"$(jq '.rules[] | select(.rule | startswith("port")) | .passed' "$dir/after.json")"

# A capture's losses: 0 with none running; while one runs under a flood with a tiny budget, what it
# lost to the bound so far (at most what its summary says at the end); 0 again once it ended.
expect_eq "no capture running: capture_lost_total 0, by reason rate and full" \
	"$(value "$dir/out.prom" xdp_ratelimit_capture_lost_total ',reason="rate"') $(value "$dir/out.prom" xdp_ratelimit_capture_lost_total ',reason="full"')" "0 0"
"$XRL" -j capture xrlp0 --max-rate 1 --seconds 4 -w "$dir/cap.pcap" >"$dir/cap.json" 2>"$dir/cap.err" &
cap=$!
lab_undo "kill $cap 2>/dev/null"
if lab_wait 10 grep -qs '^capturing' "$dir/cap.err"; then
	j0=$(judged xrlp0 "port 7000/udp")
	judged_wait $((j0 + $($UDP send -n $NS 10.219.0.2 10.219.0.1 7000 2000 1))) xrlp0 "port 7000/udp"
	"$XRL" metrics xrlp0 >"$dir/cap.prom"
	wait "$cap"
	lost=$(value "$dir/cap.prom" xdp_ratelimit_capture_lost_total ',reason="rate"')
	expect_range "a capture at --max-rate 1 under a flood: lost to the rate bound while it runs" "$lost" 500 \
		"$(jq .lost_rate "$dir/cap.json")"
	expect_eq "... lost to a full ring: the capture's" \
		"$(value "$dir/cap.prom" xdp_ratelimit_capture_lost_total ',reason="full"')" "$(jq .lost_full "$dir/cap.json")"
	expect_eq "... 0 once it ended" "$("$XRL" metrics xrlp0 | grep -c '^xdp_ratelimit_capture_lost_total{interface="xrlp0",reason="rate"} 0$')" 1
else
	fail "capture starts" "$(cat "$dir/cap.err")"
fi

# The program's cost: the kernel's run time and runs of the program (bpftool's run_time_ns and
# run_cnt, read before and after), counted only while kernel.bpf_stats_enabled is 1, 0 before.
prog=$("$XRL" -j status | jq '.interfaces[] | select(.interface == "xrlp0") | .prog_id')
# cost: "run_time_ns run_cnt" of the program, as bpftool reads them (0 0 when never counted).
cost() { bpftool -j prog show id "$prog" | jq -r '"\(.run_time_ns // 0) \(.run_cnt // 0)"'; }
# sampled FILE: the same two from an exposition, the seconds back in ns.
sampled() {
	echo "$(value "$1" xdp_ratelimit_program_run_seconds_total | awk '{ split($1, a, "."); printf "%d", a[1] * 1000000000 + a[2] }') $(value "$1" xdp_ratelimit_program_runs_total)"
}
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
if [ "$old_stats" = 0 ]; then
	expect_eq "program cost, kernel.bpf_stats_enabled 0: exported all the same, as bpftool reads it" \
		"$(sampled "$dir/out.prom")" "$(cost)"
fi
sysctl -qw kernel.bpf_stats_enabled=1
lab_undo "sysctl -qw kernel.bpf_stats_enabled=$old_stats"
read -r _ r0 < <(cost)
n=$($UDP send -n $NS 10.219.0.3 10.219.0.1 7003 500 1)
# shellcheck disable=SC2317 # run by lab_wait
ran() { read -r _ r < <(cost) && [ "$r" -ge $((r0 + n)) ]; }
lab_wait 5 ran || fail "the program's runs" "fewer than the $n frames sent within 5 s"
read -r ns0 runs0 < <(cost)
"$XRL" metrics xrlp0 >"$dir/cost.prom"
read -r ns1 runs1 < <(cost)
read -r ns runs < <(sampled "$dir/cost.prom")
sysctl -qw kernel.bpf_stats_enabled="$old_stats"
expect_range "kernel.bpf_stats_enabled 1, 500 frames: the program's runs, as bpftool's" "$runs" "$((runs0 > 500 ? runs0 : 500))" "$runs1"
expect_range "... its run time in ns, as bpftool's" "$ns" "$((ns0 > 0 ? ns0 : 1))" "$ns1"
check "... promtool accepts it" sh -c "promtool check metrics <'$dir/cost.prom'"

# free_port: a TCP port free on the loopback just now.

# The textfile collector: the file written atomically, read by the real node exporter.
tf=$dir/textfile/xdp-ratelimit.prom
mkdir -p "$dir/textfile"
check "metrics --textfile writes the file" "$XRL" metrics --textfile "$tf"
ino=$(stat -c %i "$tf")
: >"$dir/textfile/.xdp-ratelimit.prom.999999999.AbCdEf" # a killed writer's
check "metrics --textfile again" "$XRL" metrics xrlp0 --textfile "$tf"
expect_eq "... replaces it by a rename (a new inode), no temporary left, a killed writer's removed" \
	"$([ "$(stat -c %i "$tf")" != "$ino" ] && ls -A "$dir/textfile")" xdp-ratelimit.prom
if command -v prometheus-node-exporter >/dev/null; then
	port=$(free_port)
	prometheus-node-exporter --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$dir/textfile" >"$dir/ne.log" 2>&1 &
	ne=$!
	lab_undo "kill $ne 2>/dev/null"
	lab_wait 10 curl -sf -o /dev/null "http://127.0.0.1:$port/metrics"
	"$XRL" -j stats xrlp0 >"$dir/before.json"
	check "metrics --textfile, just before the scrape" "$XRL" metrics --textfile "$tf"
	if curl -sf -o "$dir/ne.prom" "http://127.0.0.1:$port/metrics"; then
		"$XRL" -j stats xrlp0 >"$dir/after.json"
		same_as_stats "node exporter's scrape" "$dir/ne.prom"
		expect_eq "... with no textfile error" "$(grep "^node_textfile_scrape_error " "$dir/ne.prom" | awk "{ print \$2 }")" 0
	else
		fail "node exporter serves the textfile" "$(cat "$dir/ne.log")"
	fi
	kill "$ne" 2>/dev/null
else skip "node exporter" "needs prometheus-node-exporter (Debian package)"; fi

# metrics --listen: a port of its own, scraped like a Prometheus server does.
"$XRL" metrics --listen 127.0.0.1:0 >"$dir/listen.out" 2>&1 &
srv=$!
lab_undo "kill $srv 2>/dev/null"
if lab_wait 10 grep -qs '^serving the metrics at http://127.0.0.1:[0-9]*/metrics' "$dir/listen.out"; then
	url=$(grep -o 'http://[^ ]*' "$dir/listen.out")
	"$XRL" -j stats xrlp0 >"$dir/before.json"
	curl -sf -D "$dir/headers" -o "$dir/listen.prom" "$url"
	expect_eq "--listen: GET /metrics answers 200" $? 0
	"$XRL" -j stats xrlp0 >"$dir/after.json"
	same_as_stats "--listen's scrape" "$dir/listen.prom"
	check "--listen: the exposition's content type" grep -qi '^content-type: text/plain; version=0.0.4' "$dir/headers"
	expect_eq "--listen: another path is 404" "$(curl -s -o /dev/null -w '%{http_code}' "${url%/metrics}/other")" 404
	expect_eq "--listen: POST is 405" "$(curl -s -o /dev/null -w '%{http_code}' -d x "$url")" 405
	# A client that connects and sends nothing is dropped after a while; the server goes on.
	exec {idle}<>"/dev/tcp/127.0.0.1/$(grep -o ':[0-9]*/' <<<"$url" | tr -d :/)"
	expect_eq "--listen: answers again after an idle client" "$(curl -s -m 15 -o /dev/null -w '%{http_code}' "$url")" 200
	exec {idle}>&-
	kill -TERM "$srv"
	lab_wait 5 sh -c "! kill -0 $srv 2>/dev/null"
	wait "$srv"
	expect_eq "--listen: SIGTERM ends it, exit 0" $? 0
else
	fail "--listen starts" "$(cat "$dir/listen.out")"
fi

# The timer's service, checked by systemd and its Exec lines run as it runs them (PID 1 here is
# not systemd): the binary and the collector's folder moved to the test's.
units=$dir/units
mkdir -p "$units"
for u in "$ROOT"/systemd/xdp-ratelimit-metrics*; do
	sed -e "s|/usr/sbin/xdp-ratelimit|$XRL|g" -e "s|/var/lib/prometheus/node-exporter|$dir/collector|g" "$u" \
		>"$units/$(basename "$u")"
done
if command -v systemd-analyze >/dev/null; then
	out=$(systemd-analyze verify --man=no "$units"/xdp-ratelimit-metrics* 2>&1)
	expect_eq "systemd-analyze verify: the metrics units (timer, socket, services), no complaint" "$?:$out" "0:"
else skip "systemd-analyze verify" "needs systemd-analyze (Debian package systemd)"; fi
while IFS= read -r line; do
	check "the service's ${line%%=*}" sh -c "${line#*=}"
done < <(grep -E '^ExecStart(Pre)?=' "$units/xdp-ratelimit-metrics.service")
check "... wrote the collector's file" grep -q '^xdp_ratelimit_frames_seen_total{interface="xrlp0"} ' "$dir/collector/xdp-ratelimit.prom"

# --listen -j: one JSON line once it listens, naming the port it got.
"$XRL" -j metrics --listen 127.0.0.1:0 >"$dir/listen.json" 2>&1 &
srv=$!
lab_undo "kill $srv 2>/dev/null"
if lab_wait 10 grep -qs listening "$dir/listen.json"; then
	check "--listen -j: its line conforms to the schema" sh -c \
		"python3 '$ROOT/tests/e2e/json_check.py' '$ROOT/docs/json-schema.json' metrics_listen <'$dir/listen.json'"
	expect_eq "--listen -j: the address it names serves the metrics" \
		"$(curl -s -o /dev/null -w '%{http_code}' "http://$(jq -r .listening "$dir/listen.json")/metrics")" 200
else
	fail "--listen -j starts" "$(cat "$dir/listen.json")"
fi
kill -INT "$srv"
wait "$srv"
expect_eq "--listen: SIGINT ends it too, exit 0" $? 0

# Socket activation, as systemd does it (systemd-socket-activate passes the socket as fd 3 with
# LISTEN_PID and LISTEN_FDS): the Exec line of the -http service on the -http socket's kind.
if command -v systemd-socket-activate >/dev/null; then
	port=$(free_port)
	exec_line=$(sed -n 's/^ExecStart=//p' "$units/xdp-ratelimit-metrics-http.service")
	# shellcheck disable=SC2086 # the Exec line's words
	systemd-socket-activate -l "127.0.0.1:$port" $exec_line >"$dir/sd.out" 2>&1 &
	sd=$!
	lab_undo "kill $sd 2>/dev/null"
	if lab_wait 10 curl -sf -o "$dir/sd.prom" "http://127.0.0.1:$port/metrics"; then
		check "--systemd-socket: serves the metrics on the socket it was passed" \
			grep -q '^xdp_ratelimit_frames_seen_total{interface="xrlp0"} ' "$dir/sd.prom"
	else
		fail "--systemd-socket serves" "$(cat "$dir/sd.out")"
	fi
	kill -TERM "$sd"
	wait "$sd"
	expect_eq "--systemd-socket: SIGTERM (systemctl stop) ends it, exit 0" $? 0
else skip "--systemd-socket" "needs systemd-socket-activate (Debian package systemd)"; fi
expect_err "--systemd-socket with no socket passed names the fix" 1 'run it from a .socket unit' \
	"$XRL" metrics --systemd-socket

# An instance that cannot be read (here a folder with no pins, as another version's would be):
# every other is still exported, it is up 0, and only naming it fails.
ip link add xrlpd0 type veth peer name xrlpd1 && lab_undo "ip link del xrlpd0"
bad=/sys/fs/bpf/xdp-ratelimit/net$("$XRL" -j status | jq -r '.interfaces[] | select(.interface == "xrlp0") | .netns_cookie')-if$(cat /sys/class/net/xrlpd0/ifindex)
mkdir "$bad" && lab_undo "rmdir $bad"
"$XRL" metrics >"$dir/some.prom" 2>"$dir/some.err"
expect_eq "an unreadable instance: metrics still exits 0" $? 0
expect_eq "... it is up 0, the others up 1" \
	"$(value "$dir/some.prom" xdp_ratelimit_up) $(grep -c '^xdp_ratelimit_up{interface="xrlpd0"} 0$' "$dir/some.prom")" "1 1"
check "... the others' figures are there" grep -q '^xdp_ratelimit_frames_seen_total{interface="xrlp0"} ' "$dir/some.prom"
check "... none of its own" sh -c "! grep -v '^xdp_ratelimit_up' '$dir/some.prom' | grep -q xrlpd0"
check "... stderr says why" grep -q '^xdp-ratelimit: xrlpd0: not read (xdp_ratelimit_up 0): ' "$dir/some.err"
check "... promtool accepts it" sh -c "promtool check metrics <'$dir/some.prom'"
check "... -j lists it with its error, conforming" sh -c \
	"'$XRL' -j metrics 2>/dev/null | tee '$dir/some.json' | python3 '$ROOT/tests/e2e/json_check.py' '$ROOT/docs/json-schema.json' metrics && jq -e '.interfaces[] | select(.interface == \"xrlpd0\") | .error' '$dir/some.json'"
# Named beside a readable one (661df77 printed nothing and exited 1, left a stale --textfile,
# and answered every scrape of --listen with 500): the other's figures are out, it is up 0, in
# every mode; naming it is still reported, by the exit status.
"$XRL" metrics xrlp0 xrlpd0 >"$dir/named.prom" 2>"$dir/named.err"
expect_eq "naming it beside xrlp0: exit 1 (a named interface was not read)" $? 1
expect_eq "... xrlp0 up 1 with its figures, xrlpd0 up 0" \
	"$(grep -c '^xdp_ratelimit_up{interface="xrlp0"} 1$' "$dir/named.prom") $(grep -c '^xdp_ratelimit_up{interface="xrlpd0"} 0$' "$dir/named.prom") $(grep -c '^xdp_ratelimit_frames_seen_total{interface="xrlp0"} ' "$dir/named.prom")" "1 1 1"
check "... stderr names it" grep -q '^xdp-ratelimit: xrlpd0: not read' "$dir/named.err"
echo 'stale' >"$dir/named-tf.prom"
expect_err "--textfile naming it: exit 1" 1 'xrlpd0' "$XRL" metrics xrlp0 xrlpd0 --textfile "$dir/named-tf.prom"
expect_eq "... the file is rewritten all the same: xrlp0's figures, xrlpd0 up 0" \
	"$(grep -c '^xdp_ratelimit_frames_seen_total{interface="xrlp0"} ' "$dir/named-tf.prom") $(grep -c '^xdp_ratelimit_up{interface="xrlpd0"} 0$' "$dir/named-tf.prom") $(grep -c stale "$dir/named-tf.prom")" "1 1 0"
port=$(free_port)
"$XRL" metrics xrlp0 xrlpd0 xrlp1 --listen "127.0.0.1:$port" >/dev/null 2>&1 &
named_srv=$!
lab_undo "kill $named_srv 2>/dev/null"
if lab_wait 10 curl -sf -o "$dir/named-listen.prom" "http://127.0.0.1:$port/metrics"; then
	expect_eq "--listen naming it and one not loaded: 200, xrlp0 up 1, the two up 0" \
		"$(grep -c '^xdp_ratelimit_up{interface="xrlp0"} 1$' "$dir/named-listen.prom") $(grep -c '^xdp_ratelimit_up{interface="xrlp[d]*[01]*"} 0$' "$dir/named-listen.prom")" "1 2"
	check "... promtool accepts it" sh -c "promtool check metrics <'$dir/named-listen.prom'"
else fail "--listen naming an unreadable interface answers 200" "no answer"; fi
kill $named_srv 2>/dev/null

# What is refused, and why.
expect_err "--listen: not ADDR:PORT is a usage error" 2 'is not ADDR:PORT' "$XRL" metrics --listen 127.0.0.1
expect_err "--listen: IPv6 without brackets is a usage error" 2 'is not ADDR:PORT' "$XRL" metrics --listen ::1:9
expect_err "--listen: a port past 65535 is a usage error" 2 'is not ADDR:PORT' "$XRL" metrics --listen 127.0.0.1:70000
port=$(free_port)
python3 -c "import socket,time; s=socket.socket(); s.bind(('127.0.0.1', $port)); s.listen(); time.sleep(5)" &
lab_wait 5 sh -c "ss -ltn | grep -q '127.0.0.1:$port '"
expect_err "--listen: a port in use is named" 1 "port $port of 127.0.0.1 is in use" "$XRL" metrics --listen "127.0.0.1:$port"
kill %% 2>/dev/null
expect_err "--textfile: not NAME.prom is a usage error" 2 'does not end in NAME.prom' "$XRL" metrics --textfile "$dir/x.txt"
expect_err "--textfile: a missing folder is named" 1 'create its folder first' "$XRL" metrics --textfile "$dir/nope/x.prom"
expect_err "an interface it is not loaded on: exit 1, saying so" 1 'not loaded on xrlp1' "$XRL" metrics xrlp1
expect_eq "... and it is up 0" "$("$XRL" metrics xrlp1 2>/dev/null | grep -c '^xdp_ratelimit_up{interface="xrlp1"} 0$')" 1
expect_err "an interface name that is not one" 2 'xdp-ratelimit metrics' "$XRL" metrics ../x
finish
