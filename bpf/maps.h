/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The limiter's maps. None carries a pinning attribute: the loader pins them
 * under XRL_PIN_ROOT/<iface>/ by bpf_map__set_pin_path(), so tests can load
 * the same object unpinned and leave nothing behind.
 */
#ifndef XRL_MAPS_H
#define XRL_MAPS_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xrl_common.h"
#include "xrl_lpm.h"
#include "maps_counts.h"

/*
 * Key 0 of an array, from rodata: a lookup with no stack slot for its key.
 * The program's frame and xrl_judge_slow's are the most of the call chain's
 * 512 bytes: each slot there counts.
 */
static const __u32 xrl_zero_key;

/* Port rules of both sets: see XRL_PORT_IDX. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XRL_PORT_IDX_ENTRIES);
	__type(key, __u32);
	__type(value, __u32);
} xrl_port_idx SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XRL_PORT_SLOTS);
	__type(key, __u32);
	__type(value, struct xrl_port_rule);
} xrl_port_rules SEC(".maps");

/* Protocol rules of both sets: see XRL_PROTO_IDX. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XRL_PROTO_IDX_ENTRIES);
	__type(key, __u32);
	__type(value, struct xrl_proto_rule);
} xrl_proto_rules SEC(".maps");

/* Prefix and dst rules of both sets, single or of a set (XRL_LPM_SLOT), found through the range structure. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XRL_LPM_SLOTS);
	__type(key, __u32);
	__type(value, struct xrl_lpm_rule);
} xrl_lpm_rules SEC(".maps");

/* The range structure (xrl_lpm.h): its directory, and its ranges, which the loader sizes (--max-prefixes). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XRL_LPM_DIR_WORDS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} xrl_lpm_dir SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * XRL_LPM_WORDS(XRL_PREFIXES_DEFAULT)); /* both sets' */
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} xrl_lpm_ranges SEC(".maps");

/* The named sets of both rule sets (XRL_SET_IX): userspace's, for what dump writes back. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * XRL_MAX_SETS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct xrl_set));
} xrl_sets SEC(".maps");

/* The sets' prefixes, each rule set's in its half (XRL_SET_ITEM_WORDS): the loader sizes it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * XRL_SET_ITEM_WORDS(XRL_PREFIXES_DEFAULT));
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64));
} xrl_set_items SEC(".maps");

/* Port rules narrowed to a destination, of both sets: see struct xrl_dst_key. */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 2 * XRL_MAX_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct xrl_dst_key);
	__type(value, struct xrl_rule);
} xrl_dsts SEC(".maps");

/*
 * The sketch that judges new sources past the cap on states (xrl_sketch.h):
 * XRL_SKETCH_DEPTH rows of xrl_cfg.sketch_width cells, row after row, shared
 * by the CPUs. An array, so the verifier inlines its lookups; the loader
 * sizes it (--sketch-width), and its memory is fixed from then on.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XRL_SKETCH_DEPTH *XRL_SKETCH_DEFAULT_WIDTH);
	__type(key, __u32);
	__type(value, struct xrl_sketch_cell);
} xrl_sketch SEC(".maps");

/* Per CPU: room for xrl_reserve's snapshot of a ring, which the stack has no room for (struct xrl_scratch). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xrl_scratch); /* sized at load: xrl_scratch_size */
} xrl_scratch SEC(".maps");

/*
 * Keys over their limit, per CPU: an array the verifier inlines, in sets of
 * XRL_LATCH_WAYS slots (xrl_latch_find); 1 << xrl_cfg.latch_bits of them,
 * sized at load.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XRL_LATCHES);
	__type(key, __u32);
	__type(value, struct xrl_latch);
} xrl_latches SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xrl_counters);
} xrl_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xrl_ctl);
} xrl_ctl SEC(".maps");

/*
 * Per rule id: a global rule's allowance, set by the sync agent (an array:
 * the lookup is inlined). Sized at load as xrl_rule_stats.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XRL_MAX_RULE_IDS);
	__type(key, __u32);
	__type(value, struct xrl_fleet);
} xrl_fleet SEC(".maps");

/*
 * Per counter slot: the next windows of rules of several windows, each a
 * rule of its own (XRL_WINDOW_NEXT). Sized at load as xrl_rule_stats.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XRL_MAX_RULE_IDS);
	__type(key, __u32);
	__type(value, struct xrl_rule);
} xrl_windows SEC(".maps");

/* The program a passed frame goes on to (a tail call): slot 0, empty unless load --then or chain set it. */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} xrl_then SEC(".maps");

#endif /* XRL_MAPS_H */
