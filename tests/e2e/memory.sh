#!/usr/bin/env bash
# What a tracked key costs: 'memory' computes the maps' memory from their definitions for any
# CPU count; on this machine it is what the kernel charges the loaded maps ('status'), and a
# key costs the same at 2, 64 and 256 possible CPUs.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-m
lab_prologue memory $NS xrlm0 xrlm1 10.215.0 fd00:215
check "load with 4096 keys" "$XRL" load xrlm0 --max-keys 4096

st=$("$XRL" -j status | jq -c '.interfaces[] | select(.interface == "xrlm0")')
mem=$("$XRL" -j memory --max-keys 4096)
expect_eq "memory's total is what the kernel charges the loaded maps" \
	"$(json .total_bytes <<<"$mem")" "$(json .memory_bytes <<<"$st")"
expect_eq "memory's window states are what the kernel charges for them" \
	"$(json .state_bytes <<<"$mem")" "$(json .state_bytes <<<"$st")"
expect_eq "memory's sketch is what the kernel charges for it" \
	"$(json .sketch_bytes <<<"$mem")" "$(json .sketch_bytes <<<"$st")"
expect_eq "a sketch 1024 wide: 2 rows of 1024 cells of 16 bytes, and the array's header" \
	"$("$XRL" -j memory --sketch-width 1024 | json .sketch_bytes)" \
	$(("$(json .sketch_bytes <<<"$mem")" - 2 * 65536 * 16 + 2 * 1024 * 16))
expect_eq "status shows the bytes a key takes" \
	"$(json .bytes_per_key <<<"$st")" "$(jq -r '.bytes_per_key | floor' <<<"$mem")"

per_key() { "$XRL" -j memory --cpus "$1" | jq -r '.bytes_per_key | floor'; }
k2=$(per_key 2) k64=$(per_key 64) k256=$(per_key 256)
expect_eq "a key costs the same at 2 and 256 possible CPUs" "$k256" "$k2"
expect_range "a key costs at most a tenth of the first version's 27 KB at 64 CPUs" "$k64" 1 2700
if "$XRL" memory --cpus 0 >/dev/null 2>&1; then
	fail "memory --cpus 0" "accepted"
else
	expect_eq "memory --cpus 0 is a usage error" "$?" 2
fi
finish
