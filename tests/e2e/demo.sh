#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# 'xdp-ratelimit demo', as 'make demo' runs it: the binary runs tools/demo.sh from the build
# (the product carries no lab or traffic code), which builds the lab of tools/lab.sh, limits
# its clients, prints the figures, and leaves nothing behind.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
needs_root demo
if ip link show xrld0 >/dev/null 2>&1; then skip demo "xrld0 exists: a demo is running"; exit 0; fi

out=$("$XRL" demo 2>&1)
rc=$?
expect_eq "the demo exits 0" "$rc" 0
check "it describes its lab" grep -q '^lab: namespace xrl-demo holds the clients (xrld1)' <<<"$out"
expect_eq "it shows the figures every second" "$(grep -c '^--- xdp-ratelimit demo, second [1-8] of 8 ---$' <<<"$out")" 8
check "the rules are in force" grep -q '^port 5000/udp rate 100/s window 1s buckets 2 per-source ' <<<"$out"
sent=$(sed -n 's/^sent by the clients: //p' <<<"$out")
expect_eq "every client sent" "$(tr ',' '\n' <<<"$sent" | awk '$2 > 0' | wc -l)" 5
read -r passed dropped seen received < <(sed -n \
	's/^the limiter passed \([0-9]*\) and dropped \([0-9]*\) of \([0-9]*\); the service received \([0-9]*\)$/\1 \2 \3 \4/p' <<<"$out")
expect_eq "passed + dropped = seen" "$((${passed:-0} + ${dropped:-0}))" "${seen:--1}"
check "the limiter dropped the excess" test "${dropped:-0}" -gt 0
# What passed reaches the service, but for the few frames that are not UDP to port 5000.
expect_range "the service received what passed" "${received:-0}" $((${passed:-0} - 30)) "${passed:-0}"
# ... and the demo says which: those no rule names, and what the rules passed.
read -r p2 unruled non_ip no_rule by_rules r2 < <(sed -n \
	's/^of the \([0-9]*\) passed, \([0-9]*\) matched no rule (\([0-9]*\) not IP, such as ARP; \([0-9]*\) IP, such as IPv6 neighbour discovery): the rules passed \([0-9]*\) to the service, which received \([0-9]*\).*/\1 \2 \3 \4 \5 \6/p' <<<"$out")
expect_eq "it explains passed against received: the same figures" "${p2:-}/${r2:-}" "${passed:-}/${received:-}"
expect_eq "... what no rule matched plus what the rules passed is what passed" \
	"$((${unruled:-0} + ${by_rules:-0}))/$((${non_ip:-0} + ${no_rule:-0}))" "${passed:--1}/${unruled:--1}"
expect_range "... the service received what the rules passed, or a few less" "${received:-0}" \
	$((${by_rules:-0} - 30)) "${by_rules:-0}"
check "it says it removed the lab" grep -q '^lab removed\.' <<<"$out"
check "no interface left" sh -c '! ip link show xrld0 2>/dev/null'
check "no namespace left" sh -c '! ip netns list | grep -qw xrl-demo'
check "no pins left" sh -c "! $XRL -j status | jq -e '.interfaces[] | select(.interface == \"xrld0\")' >/dev/null"
finish
