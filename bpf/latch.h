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
#include "config.h"
#include "pctx.h"
#include "state.h"

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
 * (xrl_key_threshold), in the rule's current bucket, and the time proves
 * that bucket has not ended: then an over latch answers, and a lease may
 * spend its passes. The proof is the jiffies' (no clock read) until the
 * margin before the bucket's end; in the margin, the window's own clock,
 * read once for the packet (clk: the slow path after it reads it no more),
 * so that a flood's packets near the end of every bucket are answered here
 * too, not on the slow path.
 */
static __always_inline int xrl_latch_live_own(const struct xrl_latch *l, const struct xrl_rule *r,
					      const struct xrl_rule_stats *rs, __u64 thr, struct xrl_times *clk)
{
	return l->gen == r->gen && l->threshold == thr && rs->gen == r->gen && rs->shape_ok &&
	       rs->buckets == r->buckets && rs->interval == r->interval_ns && rs->slot.epoch == l->epoch &&
	       (xrl_jiffies() < l->until_jiffies || xrl_precise(clk) < rs->slot.end);
}

/* The same for a latch l that may be another key's than k. */
static __always_inline int xrl_latch_live(const struct xrl_latch *l, const struct xrl_rule *r,
					  const struct xrl_rule_stats *rs, const struct xrl_key *k, __u64 thr,
					  struct xrl_times *clk)
{
	return xrl_key_equal(&l->key, k) && xrl_latch_live_own(l, r, rs, thr, clk);
}

/*
 * Whether latch l, another key's, gives up its slot: empty, expired, or a
 * lease with no passes left. (A live one keeps it: xrl_latch_set.)
 */
static __always_inline int xrl_latch_free(const struct xrl_latch *l)
{
	return !l->gen || xrl_jiffies() >= l->until_jiffies ||
	       (l->kind == XRL_LATCH_LEASE && !xrl_latch_count(l->word));
}

/*
 * The slot of the key of pc's latch on this CPU, made pc->latch_ix, when
 * another key's live latch holds its home: the way of its set that holds
 * it (returns 1), else the first way free for it (xrl_latch_free), else its
 * home, whose tenant keeps it. A global function, verified once, in a frame
 * of its own: the judgements' frames have no stack left for the walk.
 */
__noinline int xrl_latch_seek(struct xrl_pctx *pc)
{
	__u32 home, i, ix;
	struct xrl_latch *l;

	if (!pc)
		return 0;
	home = pc->latch_ix;
	for (i = 1; i < XRL_LATCH_WAYS; i++) {
		ix = home ^ i;
		l = bpf_map_lookup_elem(&xrl_latches, &ix);
		if (!l)
			break;
		if (l->gen && xrl_key_equal(&l->key, &pc->key)) {
			pc->latch_ix = ix;
			return 1;
		}
		if (pc->latch_ix == home && xrl_latch_free(l))
			pc->latch_ix = ix;
	}
	return 0;
}

/*
 * The latch of pc's key on this CPU (gen 0: retired), NULL when it has
 * none; its slot, or the one it may take, made pc->latch_ix. One of the
 * XRL_LATCH_WAYS of its set: its home (xrl_latch_home), where a flood's key
 * is found, in one line; another way only while another key's live latch
 * holds its home, the only time a latch is placed away from it
 * (xrl_latch_seek). A key whose home is free is not looked for further:
 * one placed away before its home was freed is latched anew at home, the
 * one away left to retire, its blocks to the key's ring (xrl_latch_set),
 * a lease's passes back (xrl_lease_revoke walks every way). So a thousand
 * keys over do not push each other out of their slots, as they did
 * direct-mapped, and a key no latch holds costs one line; the latches are
 * as many as the table's keys, up to a cap (xrl_latch_bits_for).
 */
static __always_inline struct xrl_latch *xrl_latch_find(struct xrl_pctx *pc)
{
	struct xrl_latch *l;

	pc->latch_ix = xrl_latch_home(xrl_key_hash64(&pc->key), xrl_cfg.latch_bits);
	l = bpf_map_lookup_elem(&xrl_latches, &pc->latch_ix);
	/* The key's, or its own retired (gen 0): either way its slot, where its next latch goes. */
	if (!l || xrl_key_equal(&l->key, &pc->key))
		return l;
	if (xrl_latch_free(l) || !xrl_latch_seek(pc))
		return NULL;
	return bpf_map_lookup_elem(&xrl_latches, &pc->latch_ix);
}

/* Whether l is k's latch, for rule r's gen, in the bucket of slot s. */
static __always_inline int xrl_latch_holds(const struct xrl_latch *l, const struct xrl_rule *r, const struct xrl_key *k,
					   const struct xrl_slot *s)
{
	return l->gen == r->gen && l->epoch == s->epoch && xrl_key_equal(&l->key, k);
}

/*
 * The blocks an over latch holds go to its key's ring (the caller's window
 * own when the latch is its key's, else, own.st NULL, looked up), in the bucket they were
 * counted in; the passes a lease has left are taken back from the bucket
 * they were counted in, when the key's window is still the one they were
 * counted in (not one made anew since), in one exchange of the word, so that
 * a CPU revoking them (xrl_lease_revoke) cannot take them too.
 */
static __always_inline void xrl_latch_flush(struct xrl_latch *l, struct xrl_win w)
{
	struct xrl_slot ls = { .epoch = l->epoch, .idx = l->idx };
	__u64 n = xrl_latch_count(l->word);
	int lease = l->kind == XRL_LATCH_LEASE;

	if (!n)
		return;
	if (lease)
		n = xrl_lword_return(&l->word);
	else
		l->word &= XRL_LATCH_SERIAL;
	if (!n)
		return;
	/* The window by value, not by pointer: its words stay in registers. */
	if (!w.st && !xrl_win_find(&l->key, &w))
		return;
	if (w.st->gen != l->gen)
		return;
	if (!lease)
		xrl_block_add(&w.st->ring, XRL_CELLS, &ls, n, 0);
	else if (xrl_win_born(&w) == l->born)
		xrl_unreserve(&w.st->ring, XRL_CELLS, &ls, (__u32)n, XRL_RESERVE_TRIES);
}

/* Latch l is key k's entry of kind (XRL_LATCH_*) in bucket s of rule r's window, for the state born at born, until until. */
static __always_inline void xrl_latch_fill(struct xrl_latch *l, const struct xrl_rule *r, const struct xrl_key *k,
					   const struct xrl_slot *s, __u16 kind, __u64 born, __u64 until)
{
	__builtin_memcpy(&l->key, k, sizeof(*k));
	l->gen = r->gen;
	l->epoch = s->epoch;
	l->threshold = xrl_key_threshold(r, k);
	l->idx = (__u16)s->idx;
	l->kind = kind;
	l->born = born;
	l->until_jiffies = until;
}

/*
 * Latches k as over in bucket s while the jiffies stay below until (a proof
 * that s has not ended: xrl_until_jiffies), unless the slot holds another
 * key's live latch; an expired one of another key hands its blocks on first.
 */
static __always_inline void xrl_latch_set(struct xrl_latch *l, const struct xrl_rule *r, const struct xrl_key *k,
					  const struct xrl_slot *s, __u64 until)
{
	if (l->gen) {
		/* Another key's live latch or lease with passes left keeps the slot. */
		if (!xrl_key_equal(&l->key, k) && xrl_jiffies() < l->until_jiffies &&
		    (l->kind != XRL_LATCH_LEASE || xrl_latch_count(l->word)))
			return;
		xrl_latch_flush(l, (struct xrl_win){ NULL });
	}
	xrl_latch_fill(l, r, k, s, XRL_LATCH_OVER, 0, until);
	xrl_lword_over(&l->word);
}

#endif /* XRL_BPF_LATCH_H */
