/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The maps of the rules of several fields (include/xrl_match.h), beside the classifier's (xrl_lbvs.h). */
#ifndef XRL_BPF_MATCH_MAPS_H
#define XRL_BPF_MATCH_MAPS_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xrl_match.h"
#include "maps.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct xrl_match_cfg);
} xrl_match_cfgs SEC(".maps");

/* Both sized at load for the rules (XRL_MATCH_SLOT), grown by apply. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XRL_MATCH_SLOTS_MIN);
	__type(key, __u32);
	__type(value, struct xrl_match_rule);
} xrl_match_rules SEC(".maps");

/* Userspace's only: what dump writes back. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XRL_MATCH_SLOTS_MIN);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, XRL_MATCH_SPEC_BYTES);
} xrl_match_specs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xrl_match_tmp);
} xrl_match_tmp SEC(".maps");

/* The named sets of match rules: a directory as xrl_lpm_dir's, then the class words (xrl_match.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XRL_MSET_WORDS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} xrl_match_sets SEC(".maps");

#endif /* XRL_BPF_MATCH_MAPS_H */
