// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The classifier's header (include/xrl_lbvs.h) as the XDP program runs it:
 * tables from its maps, every loop under bpf_loop. The packet's values come
 * in through lbvs_in, the set's configuration through lbvs_cfg, the result
 * goes out through lbvs_out
 * (tests/prog/test_lbvs.c); the frame is not read.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xrl_lbvs.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct xrl_lbvs_pkt);
	__uint(max_entries, 1);
} lbvs_in SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct xrl_lbvs_cfg);
	__uint(max_entries, 1);
} lbvs_cfg SEC(".maps");

/* The result, and classify's return value (0, or -1: a table lacked a class). */
struct lbvs_out {
	struct xrl_lbvs_result res;
	__s32 ret;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct lbvs_out);
	__uint(max_entries, 1);
} lbvs_out SEC(".maps");

SEC("xdp")
int xdp_lbvs_check(struct xdp_md *xdp)
{
	struct xrl_lbvs_ctx c = {};
	struct xrl_lbvs_pkt *pk;
	struct lbvs_out *o;
	__u32 k = 0;

	pk = bpf_map_lookup_elem(&lbvs_in, &k);
	o = bpf_map_lookup_elem(&lbvs_out, &k);
	c.cfg = bpf_map_lookup_elem(&lbvs_cfg, &k);
	if (!pk || !o || !c.cfg)
		return XDP_ABORTED;
	o->ret = xrl_lbvs_classify(&c, pk, &o->res);
	return o->res.n ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
