/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A rule's per-CPU statistics slot (struct xrl_rule_stats): its totals, the
 * rule-level window behind its QPS, and what the program derives from the
 * rule's shape once a bucket rather than once a packet (the bucket length,
 * the current bucket).
 */
#ifndef XRL_BPF_RULE_STATS_H
#define XRL_BPF_RULE_STATS_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xrl_window.h"
#include "config.h"
#include "clock.h"
#include "latch.h"
#include "maps.h"

/*
 * The rule's per-CPU stats slot, its derived fields brought up to date: the
 * bucket length and validity of its shape when the gen or the shape changes,
 * the slot of now when now leaves the last one. So the packet path divides
 * once a bucket.
 */
static __always_inline struct xrl_rule_stats *xrl_rule_stats_at(const struct xrl_rule *r, __u64 now, int coarse)
{
	struct xrl_rule_stats *rs;
	__u32 id = r->id;
	int fresh;

	rs = bpf_map_lookup_elem(&xrl_rule_stats, &id);
	if (!rs)
		return NULL;
	fresh = rs->gen != r->gen;
	if (fresh) {
		/* New rule or new window shape: never mix bucket lengths. */
		xrl_ring_clear(&rs->ring, XRL_CELLS);
		rs->gen = r->gen;
	}
	if (fresh || rs->buckets != r->buckets || rs->interval != r->interval_ns) {
		rs->buckets = r->buckets;
		rs->interval = r->interval_ns;
		/* A window longer than the rings hold is never judged: apply resizes them first (apply.c). */
		rs->shape_ok = xrl_shape_check(r->buckets, r->interval_ns) == XRL_SHAPE_OK &&
			       xrl_cells_fit(r->buckets, XRL_CELLS);
		rs->blen = rs->shape_ok ? r->interval_ns / r->buckets : 0;
		rs->slot.start = 0;
		rs->slot.end = 0;
		rs->proof_ticks = 0;
	}
	/* A coarse now, up to a tick behind a precise one, never moves the slot back. */
	if (rs->shape_ok && !xrl_slot_holds(&rs->slot, now) && !(coarse && now < rs->slot.end)) {
		xrl_slot_at(&rs->slot, now, rs->blen, XRL_CELLS);
		rs->proof_ticks = 0;
	}
	return rs;
}

/*
 * The rule's stats slot, its slot holding the packet's time, and in *until
 * the jiffies below which that slot is proven to hold it. The window's
 * bucket comes from the precise clock (bpf_ktime_get_ns, the product's
 * definition), read at most once a bucket a CPU: the read leaves a proof in
 * the slot (proof_from, proof_ticks: the latch's, see XRL_JIFFIES_MARGIN)
 * that later packets check with one load of the jiffies, and the clock is
 * read again only once the proof runs out, near the bucket's end. On this
 * rig the precise read costs about 30 ns, the jiffies' a load. Jiffies read
 * before the clock only make the proof shorter; jiffies that go back (a
 * test's clock) prove nothing (the u32 distance wraps).
 */
static __always_inline struct xrl_rule_stats *xrl_rule_slot_now(const struct xrl_rule *r, struct xrl_times *clk,
								__u64 *until)
{
	struct xrl_rule_stats *rs;
	__u64 j = xrl_jiffies(), now, u;
	__u32 id = r->id, since;

	rs = bpf_map_lookup_elem(&xrl_rule_stats, &id);
	if (!rs)
		return NULL;
	since = (__u32)j - rs->proof_from;
	if (since < rs->proof_ticks && rs->gen == r->gen && rs->shape_ok && rs->buckets == r->buckets &&
	    rs->interval == r->interval_ns) {
		*until = j + rs->proof_ticks - since;
		return rs;
	}
	/*
	 * The proof needs the clock read at the jiffies j or later: a read this
	 * packet made before them (a latch's check in a bucket's last ticks, an
	 * earlier rule's) is made again.
	 */
	clk->precise = 0;
	now = xrl_precise(clk);
	rs = xrl_rule_stats_at(r, now, 0);
	if (!rs || !rs->shape_ok)
		return rs;
	u = xrl_until_jiffies(rs->slot.end, now, j);
	u = u > j ? u - j : 0;
	rs->proof_from = (__u32)j;
	rs->proof_ticks = u < 0xffff ? (__u16)u : 0xffff;
	*until = j + rs->proof_ticks;
	return rs;
}

/* A rule's totals, and the rule-level window behind its QPS. */
static __always_inline void xrl_count_rule(struct xrl_rule_stats *rs, int blocked)
{
	struct xrl_cell *c;

	if (!rs)
		return;
	if (blocked)
		rs->block++;
	else
		rs->pass++;
	if (!rs->shape_ok)
		return;
	c = xrl_current_at(&rs->ring, rs->buckets, XRL_CELLS, &rs->slot);
	if (c)
		xrl_cell_count(&rs->ring, XRL_CELLS, &rs->slot, blocked);
}

#endif /* XRL_BPF_RULE_STATS_H */
