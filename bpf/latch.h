/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The latches (struct xrl_latch): per CPU, a key found over its limit until
 * the end of the bucket it was found in, since the window's sum cannot fall
 * before then. A flood is answered here, with no hash lookup and no clock
 * read but the jiffies.
 */
#ifndef XRL_BPF_LATCH_H
#define XRL_BPF_LATCH_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xrl_key.h"
#include "xrl_window.h"
#include "clock.h"
#include "threshold.h"
#include "maps.h"

/*
 * The flood path: the key's latch says it is over in the bucket the rule's
 * slot is in, and the jiffies prove that bucket has not ended. No helper call:
 * every lookup here is an array the verifier inlines, and bpf_jiffies64 is a
 * load. The proof: a latch made at jiffies j0 with until_jiffies = j0 +
 * ticks - M (ticks: whole ticks to the bucket's end, M the margin) answers
 * only while jiffies j1 < until. Tick j0 + 1 had not been counted at the
 * latch and tick j1 + 1 has not been at the answer, so the time between
 * them is under (j1 + 1 - j0) ticks plus how late the jiffies are at the
 * answer: under (ticks - M + 1) ticks plus that lateness, which must stay
 * under M - 1 ticks for the answer to fall before the bucket's end. The
 * jiffies are late when the CPU that counts them is held up (a vCPU the
 * host does not run, say): the kernel lets them stall MAX_STALLED_JIFFIES
 * (5) ticks before another CPU's tick counts them, and a packet runs on a
 * CPU whose tick is running. So M is 5 ticks, one for the tick that counts
 * them late and one for the whole-tick rounding: 7 (28 ms at HZ 250). With
 * M at 2 ticks (8 ms), the jiffies were measured 7.2-8 ms late on a VM, and
 * a latch dropped packets while the window had room. Near the end of a
 * bucket, the precise clock decides.
 */
#define XRL_JIFFIES_MARGIN 7

/*
 * The jiffies below which the bucket that ends at end is proven not to have
 * ended (the proof above), from the time now, read at jiffies j or later; 0:
 * too near its end to prove.
 */
static __always_inline __u64 xrl_until_jiffies(__u64 end, __u64 now, __u64 j)
{
	__u64 tick = CONFIG_HZ ? 1000000000ULL / CONFIG_HZ : 0, ticks;

	ticks = tick && end > now ? (end - now) / tick : 0;
	return ticks > XRL_JIFFIES_MARGIN ? j + ticks - XRL_JIFFIES_MARGIN : 0;
}

/*
 * Whether latch l holds key k of rule r, whose window's threshold is thr
 * (xrl_key_threshold), in the rule's current bucket, and the jiffies prove
 * that bucket has not ended: then an over latch answers, and a lease may
 * spend its passes.
 */
static __always_inline int xrl_latch_live(const struct xrl_latch *l, const struct xrl_rule *r,
					  const struct xrl_rule_stats *rs, const struct xrl_key *k, __u64 thr)
{
	return l->gen == r->gen && l->threshold == thr && rs->gen == r->gen && rs->shape_ok &&
	       rs->buckets == r->buckets && rs->interval == r->interval_ns && rs->slot.epoch == l->epoch &&
	       xrl_key_equal(&l->key, k) && xrl_jiffies() < l->until_jiffies;
}

/* Whether latch l answers that key k of rule r is over (see xrl_latch_live). */
static __always_inline int xrl_latched(const struct xrl_latch *l, const struct xrl_rule *r,
				       const struct xrl_rule_stats *rs, const struct xrl_key *k, __u64 thr)
{
	return l->sketch != XRL_LATCH_LEASE && xrl_latch_live(l, r, rs, k, thr);
}

/* Whether l is k's latch, for rule r's gen, in the bucket of slot s. */
static __always_inline int xrl_latch_holds(const struct xrl_latch *l, const struct xrl_rule *r, const struct xrl_key *k,
					   const struct xrl_slot *s)
{
	return l->gen == r->gen && l->epoch == s->epoch && xrl_key_equal(&l->key, k);
}

/* The blocks a latch holds go to its key's ring (st, or looked up), in the bucket they were counted in. */
static __always_inline void xrl_latch_flush(struct xrl_latch *l, struct xrl_state *st)
{
	struct xrl_slot ls = { .start = l->start, .epoch = l->epoch, .idx = l->idx };

	if (!l->block)
		return;
	if (!st)
		st = bpf_map_lookup_elem(&xrl_state, &l->key);
	/* A lease's passes left go back to the bucket they were taken in (none if it has moved on). */
	if (st && st->gen == l->gen && l->sketch == XRL_LATCH_LEASE)
		xrl_unreserve(&st->ring, XRL_CELLS, &ls, (__u32)l->block, XRL_RESERVE_TRIES);
	else if (st && st->gen == l->gen)
		xrl_block_add(&st->ring, XRL_CELLS, &ls, l->block, 0);
	l->block = 0;
}

/*
 * Latches k as over in bucket s while the jiffies stay below until (a proof
 * that s has not ended: xrl_until_jiffies), unless the slot holds another
 * key's live latch; an expired one of another key hands its blocks on first.
 */
static __always_inline void xrl_latch_set(struct xrl_latch *l, const struct xrl_rule *r, const struct xrl_key *k,
					  const struct xrl_slot *s, __u64 until)
{
	if (l->gen && !xrl_key_equal(&l->key, k)) {
		/* Another key's live latch or lease with passes left keeps the slot. */
		if (xrl_jiffies() < l->until_jiffies && (l->sketch != XRL_LATCH_LEASE || l->block))
			return;
		xrl_latch_flush(l, NULL);
	}
	__builtin_memcpy(&l->key, k, sizeof(*k));
	l->gen = r->gen;
	l->epoch = s->epoch;
	l->threshold = xrl_key_threshold(r, k);
	l->idx = (__u16)s->idx;
	l->sketch = 0;
	l->start = s->start;
	l->until_jiffies = until;
	l->block = 0;
}

/*
 * Leases, and why they never admit a packet over the window. A lease's n
 * passes are counted in bucket b of the key's shared ring by the same
 * compare-and-swap that passes the packet taking them (xrl_reserve_lease),
 * so the ring's sum with them stays within the threshold, as for any pass.
 * A leased pass is spent only while the rule's slot on this CPU is still b
 * and the jiffies prove b has not ended (xrl_latch_live: the margin of
 * XRL_JIFFIES_MARGIN); time cannot be before b, in which it was taken. So
 * every packet a lease passes passes in b, where it was counted: in any
 * window, what passed is at most what the ring counts, at most the
 * threshold. Passes left are taken back from b (xrl_latch_flush), which
 * only lowers b's count to what passed in it; a take-back that finds b's
 * cell moved on finds nothing, and that bucket has left the window. What a
 * lease costs instead: passes taken and not yet spent look used to other
 * CPUs, which may drop while the window has room (a lease takes at most a
 * XRL_LEASE_SHARE-th of the room, XRL_LEASE_MAX at most, and only for a key
 * this CPU has seen before).
 *
 * Makes latch l key k's lease of n passes, taken in bucket s of rule r's
 * window while the jiffies stay below until (n 0: the key's slot, so that
 * its next packet, found hot, takes a lease). Another key's entry in the
 * slot has expired or spent its lease (the caller checked): its blocks or
 * passes left go back first.
 */
static __always_inline void xrl_lease_set(struct xrl_latch *l, const struct xrl_rule *r, const struct xrl_key *k,
					  const struct xrl_slot *s, __u64 until, __u32 n)
{
	if (l->gen && !xrl_key_equal(&l->key, k))
		xrl_latch_flush(l, NULL);
	__builtin_memcpy(&l->key, k, sizeof(*k));
	l->gen = r->gen;
	l->epoch = s->epoch;
	l->threshold = xrl_key_threshold(r, k);
	l->idx = (__u16)s->idx;
	l->sketch = XRL_LATCH_LEASE;
	l->start = s->start;
	l->until_jiffies = until;
	l->block = n;
}

#endif /* XRL_BPF_LATCH_H */
