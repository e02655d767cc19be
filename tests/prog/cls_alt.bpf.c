// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Three classifiers of the same rules side by side, for issue 34's choice
 * (tests/prog/test_cls_alt.c checks them, bench/classifiers.c times them):
 * LBVS as the product runs it (include/xrl_lbvs.h), a linear scan of the
 * rules under bpf_loop, and a HiCuts tree (tests/prog/cls_tree.h) walked to
 * a leaf whose rules are scanned so. Each takes the next packet of
 * cls_pkts (a ring of cls_npkts, a power of 2) and writes its matches' bits
 * to cls_out; the frame is not read.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "cls_alt.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct xrl_lbvs_pkt);
	__uint(max_entries, CLS_PKTS);
} cls_pkts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct xrl_lbvs_cfg);
	__uint(max_entries, 1);
} cls_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct cls_out);
	__uint(max_entries, 1);
} cls_out SEC(".maps");

/* Sized at load: the rules in bit order, the tree's nodes (root 0), its leaves' bits. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct cls_rule);
	__uint(max_entries, 1);
} cls_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct cls_node);
	__uint(max_entries, 1);
} cls_nodes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);
} cls_leaf SEC(".maps");

__u32 cls_npkts; /* set before a run (tests/prog/cls_load.h) */
__u32 cls_nrules;
__u32 cls_next;

/* The scans' state, in the caller's frame. */
struct cls_scan {
	const struct xrl_lbvs_pkt *pk;
	struct xrl_lbvs_result *res;
	__u32 off; /* the tree: the leaf's first index in cls_leaf */
};

/* Rule bit `bit` checked; stops when the result is full. */
static __always_inline long cls_take(struct cls_scan *s, __u32 bit)
{
	const struct cls_rule *r = bpf_map_lookup_elem(&cls_rules, &bit);

	if (!r)
		return 1;
	if (!cls_rule_ok(r, s->pk))
		return 0;
	if (s->res->n >= XRL_LBVS_MAX_MATCH) {
		s->res->more = 1;
		return 1;
	}
	s->res->bit[s->res->n & (XRL_LBVS_MAX_MATCH - 1)] = (__u16)bit;
	s->res->n++;
	return 0;
}

static long cls_scan_cb(__u64 i, void *ctx)
{
	return cls_take(ctx, (__u32)i);
}

static long cls_leaf_cb(__u64 i, void *ctx)
{
	struct cls_scan *s = ctx;
	__u32 k = s->off + (__u32)i;
	const __u32 *bit = bpf_map_lookup_elem(&cls_leaf, &k);

	if (!bit)
		return 1;
	return cls_take(s, *bit);
}

/* This run's packet and the result, emptied. */
static __always_inline int cls_begin(struct cls_scan *s, struct cls_out **o)
{
	__u32 k = 0;

	*o = bpf_map_lookup_elem(&cls_out, &k);
	k = cls_next++ & (cls_npkts - 1);
	s->pk = bpf_map_lookup_elem(&cls_pkts, &k);
	if (!*o || !s->pk)
		return -1;
	s->res = &(*o)->res;
	s->res->n = 0;
	s->res->more = 0;
	(*o)->ret = 0;
	return 0;
}

/* The floor: the packet taken and the result emptied, nothing classified. */
SEC("xdp")
int xdp_cls_floor(struct xdp_md *xdp)
{
	struct cls_scan s;
	struct cls_out *o;

	if (cls_begin(&s, &o))
		return XDP_ABORTED;
	return XDP_PASS;
}

SEC("xdp")
int xdp_cls_lbvs(struct xdp_md *xdp)
{
	struct xrl_lbvs_ctx c = {};
	struct cls_scan s;
	struct cls_out *o;
	__u32 k = 0;

	c.cfg = bpf_map_lookup_elem(&cls_cfg, &k);
	if (cls_begin(&s, &o) || !c.cfg)
		return XDP_ABORTED;
	o->ret = xrl_lbvs_classify(&c, s.pk, &o->res);
	return o->res.n ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
int xdp_cls_scan(struct xdp_md *xdp)
{
	struct cls_scan s;
	struct cls_out *o;

	if (cls_begin(&s, &o))
		return XDP_ABORTED;
	bpf_loop(cls_nrules, cls_scan_cb, &s, 0);
	return o->res.n ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
int xdp_cls_tree(struct xdp_md *xdp)
{
	const struct cls_node *nd;
	struct cls_scan s;
	struct cls_out *o;
	__u32 k = 0, d, f;

	if (cls_begin(&s, &o))
		return XDP_ABORTED;
	for (d = 0; d < CLS_DEPTH; d++) {
		nd = bpf_map_lookup_elem(&cls_nodes, &k);
		if (!nd)
			return XDP_ABORTED;
		if (nd->leaf) {
			s.off = nd->child;
			bpf_loop(nd->mask, cls_leaf_cb, &s, 0);
			return o->res.n ? XDP_DROP : XDP_PASS;
		}
		f = nd->field;
		if (f >= XRL_LBVS_FIELDS)
			return XDP_ABORTED;
		k = nd->child + ((s.pk->v[f] >> (nd->shift & 31)) & nd->mask);
	}
	o->ret = -1; /* deeper than the builder makes */
	return XDP_ABORTED;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
