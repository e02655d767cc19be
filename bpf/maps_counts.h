/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The maps that count, which a replace carries into while the new program
 * runs (bpf/carry.bpf.c): the window states and the rules' counters.
 */
#ifndef XRL_MAPS_COUNTS_H
#define XRL_MAPS_COUNTS_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xrl_common.h"

/* Window state per rule and masked source, shared by the CPUs; the loader sizes it (--max-keys). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, XRL_DEFAULT_KEYS);
	__type(key, struct xrl_key);
	__type(value, struct xrl_state);
} xrl_state SEC(".maps");

/* Per rule id and CPU: its passes and blocks, and a ring of them for the rates. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XRL_MAX_RULE_IDS);
	__type(key, __u32);
	__type(value, struct xrl_rule_stats);
} xrl_rule_stats SEC(".maps");

#endif /* XRL_MAPS_COUNTS_H */
