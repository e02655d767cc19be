#!/usr/bin/env bash
# dist/grafana/xdp-ratelimit.json and dist/prometheus/xdp-ratelimit.rules.yml against a real
# Prometheus (Debian's prometheus) scraping a real instance every second on the loopback
# ('metrics --listen 127.0.0.1:0') under traffic from the veth lab: a flood over a per-source
# rule, a source over a monitor rule, a global rule (no agent). Every panel's every query, with
# Grafana's variables set ($instance all, $interface the lab's, $__rate_interval 10s, $__range
# 1m), evaluated through the HTTP API, returns data, and each series has the labels its legend
# names, with the values the exporter gives them (the interface, the rules as dump prints them,
# the malformed reasons, the fleet's policy), and the program's ns a packet is counted
# (kernel.bpf_stats_enabled 1 meanwhile); the rules load and evaluate with no error, and every
# family they name is one Prometheus scraped.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
for tool in prometheus curl python3; do
	command -v $tool >/dev/null || { skip dashboard "needs $tool (scripts/deps.sh installs it)"; exit 0; }
done
dash=$ROOT/dist/grafana/xdp-ratelimit.json
rules=$ROOT/dist/prometheus/xdp-ratelimit.rules.yml

NS=xrle-gf
IF=xrlgf0
lab_prologue dashboard $NS $IF xrlgf1 10.234.0 fd00:234
check "load" "$XRL" load $IF
printf '%s\n' "port 7000/udp rate 100/s per-source" "port 7001/udp rate 50/s aggregate monitor" \
	"port 7100/udp rate 1k/s aggregate global" >"$dir/rules"
check "apply: a per-source rule, a monitor rule, a global rule" "$XRL" apply $IF "$dir/rules"
"$XRL" dump $IF >"$dir/dump"

"$XRL" metrics --listen 127.0.0.1:0 >"$dir/listen.out" 2>&1 &
lab_undo "kill $! 2>/dev/null"
lab_wait 10 grep -qs '^serving the metrics at http://127.0.0.1:[0-9]*/metrics' "$dir/listen.out" ||
	{ fail "metrics --listen" "$(cat "$dir/listen.out")"; finish; }
target=$(grep -o '127.0.0.1:[0-9]*' "$dir/listen.out" | head -1)
port=$(free_port)
cat >"$dir/prometheus.yml" <<EOF2
global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: ["$rules"]
scrape_configs:
  - job_name: xdp-ratelimit
    static_configs: [{ targets: ["$target"] }]
EOF2
prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
	--web.listen-address="127.0.0.1:$port" >"$dir/prometheus.log" 2>&1 &
lab_undo "kill $! 2>/dev/null"
api=http://127.0.0.1:$port/api/v1
lab_wait 20 curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null ||
	{ fail "prometheus ready" "$(tail -5 "$dir/prometheus.log")"; finish; }
pass "prometheus scrapes $target every second"

# The kernel counts the program's run time (the "ns a packet" panel) only while
# kernel.bpf_stats_enabled is 1: on for the traffic, then back to what it was.
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
lab_undo "sysctl -qw kernel.bpf_stats_enabled=$old_stats"
sysctl -qw kernel.bpf_stats_enabled=1
# 6 s of traffic: .2 floods the per-source rule, .3 goes over the monitor rule, .4 matches none.
senders=()
$UDP send -n $NS 10.234.0.2 10.234.0.1 7000 1000 6 >/dev/null 2>&1 &
senders+=($!)
$UDP send -n $NS 10.234.0.3 10.234.0.1 7001 200 6 >/dev/null 2>&1 &
senders+=($!)
$UDP send -n $NS 10.234.0.4 10.234.0.1 7002 100 6 >/dev/null 2>&1 &
senders+=($!)
# query EXPR: the result of the instant query EXPR, as JSON: at the moment $at once it is set.
at=
query() { curl -sf --get --data-urlencode "query=$1" ${at:+--data-urlencode "time=$at"} "$api/query"; }
wait "${senders[@]}"
# Two more scrapes, the second begun a second after the senders ended: it holds their last frames.
end=$(date +%s)
# shellcheck disable=SC2317 # run by lab_wait
scraped() { query 'timestamp(up{job="xdp-ratelimit"})' | jq -e --argjson t $((end + 1)) '.data.result[0].value[1] | tonumber > $t' >/dev/null; }
lab_wait 10 scraped || fail "prometheus scrapes after the traffic" "no scrape within 10 s"
# Every query below is read at that scrape: on a slow machine, the dozens of queries took long
# enough that a 10 s rate read after them held no traffic, and the "ns a packet" panel no data.
at=$(query 'timestamp(up{job="xdp-ratelimit"})' | jq -r '.data.result[0].value[1]')
sysctl -qw kernel.bpf_stats_enabled="$old_stats"
expect_eq "the dashboard: unique panel ids, each panel and query on the \$datasource variable" \
	"$(jq '([.panels[].id] | length == (unique | length)) and ([.. | objects | select(has("datasource")) | .datasource.uid] | unique == ["${datasource}"])' "$dash" 2>&1)" true
jq -c '.panels[] | .title as $t | .targets[] | {title: $t, expr, legend: .legendFormat}' "$dash" >"$dir/targets"
expect_range "the dashboard's queries" "$(grep -c . "$dir/targets")" 20 100
while read -r t; do
	title=$(jq -r .title <<<"$t") legend=$(jq -r .legend <<<"$t")
	expr=$(jq -r .expr <<<"$t")
	expr=${expr//\$instance/.*}
	expr=${expr//\$interface/$IF}
	expr=${expr//\$__rate_interval/10s}
	expr=${expr//\$__range/1m}
	r=$(query "$expr")
	if [ "$(jq -r .status <<<"$r" 2>/dev/null)" != success ]; then
		fail "$title: $expr" "the query failed: $r"
		continue
	fi
	n=$(jq '.data.result | length' <<<"$r")
	[ "$n" -gt 0 ] || { fail "$title: $expr" "no data"; continue; }
	# The labels the legend names, on every series, with the exporter's values.
	bad=
	for l in $(grep -o '{{[a-z_]*}}' <<<"$legend" | tr -d '{}'); do
		while read -r v; do
			case $l in
			interface) [ "$v" = $IF ] ;;
			rule) grep -qxF -- "$v" "$dir/dump" ;;
			reason) [[ $v =~ ^(ethernet|vlan|ipv4|ipv4_ihl|ipv4_len|ipv6|ipv6_ext|l4|frag_tiny|ipv6_chain)$ ]] ;;
			policy) [ "$v" = none ] ;;
			instance) [ "$v" = "$target" ] ;;
			*) false ;;
			esac || bad+=" $l=$v"
		done < <(jq -r --arg l "$l" '.data.result[] | .metric[$l] // "(none)"' <<<"$r")
	done
	if [ -z "$bad" ]; then pass "$title: $n series, legend '$legend'"; else fail "$title: $expr" "labels:$bad"; fi
done <"$dir/targets"

# The traffic is in the figures the queries read: the last scrape's counters are stats -j's now
# (the traffic has ended), and the flood was blocked.
v() { query "$1" | jq -r '.data.result[0].value[1] // "none"'; }
stats=$("$XRL" -j stats $IF)
for f in blocked:7000 passed:7000 monitored:7001; do
	rule=$(grep "^port ${f#*:}/" "$dir/dump")
	want=$(jq --arg r "$rule" '.rules[] | select(.rule == $r) | if .monitor then .blocked else .'"${f%:*}"' end' <<<"$stats")
	expect_eq "xdp_ratelimit_rule_${f%:*}_total of '$rule' in Prometheus is stats -j's" \
		"$(v "xdp_ratelimit_rule_${f%:*}_total{interface=\"$IF\",rule=\"$rule\"}")" "$want"
done
ns=$(v "1e9 * rate(xdp_ratelimit_program_run_seconds_total{interface=\"$IF\"}[10s]) / rate(xdp_ratelimit_program_runs_total{interface=\"$IF\"}[10s])")
expect_range "the program's ns a packet over the traffic, from the kernel's counts" "$(awk -v v="$ns" 'BEGIN { printf "%d", v ~ /^[0-9.e+]+$/ ? v : -1 }')" 1 100000
expect_range "... and the flood was blocked" "$(jq '[.rules[] | select(.rule | startswith("port 7000")) | .blocked] | add' <<<"$stats")" 1000 6000

r=$(curl -sf "$api/rules")
expect_eq "the alerting rules loaded, each evaluated with no error" \
	"$(jq -c '[.data.groups[].rules[] | select(.health != "ok")] | length' <<<"$r"):$(jq '[.data.groups[].rules[]] | length' <<<"$r")" \
	"0:$(grep -c '^      - alert:' "$rules")"
names=$(curl -sf "$api/label/__name__/values" | jq -r '.data[]')
missing=
while read -r m; do
	grep -qxF "$m" <<<"$names" || missing+=" $m"
done < <(grep -ho 'xdp_ratelimit_[a-z_]*' "$rules" "$dash" | sort -u)
expect_eq "every family the rules and the dashboard name was scraped" "${missing:-none missing}" "none missing"
finish
