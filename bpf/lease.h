/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Leases: passes a CPU takes from a hot key's shared window for its next
 * packets of the key, spent with no shared write (an atomic on its own
 * latch slot only), and taken back by another CPU that finds the window
 * full while they are unspent.
 *
 * Why a lease never admits a packet over the window. A lease's n passes
 * are counted in bucket b of the key's shared ring by the same
 * compare-and-swap that passes the packet taking them (xrl_reserve_lease),
 * so the ring's sum with them stays within the threshold, as for any pass.
 * A leased pass is spent only while the rule's slot on this CPU is still b
 * and the time proves b has not ended (xrl_latch_live: the jiffies short of
 * the margin of XRL_JIFFIES_MARGIN, the precise clock in it); time cannot be
 * before b, in which it was taken. So
 * every packet a lease passes passes in b, where it was counted. Each pass
 * of the lease leaves the latch's word once, by one atomic operation on it:
 * a compare-and-swap that spends it (xrl_lease_spend), or an exchange by
 * the holder (xrl_latch_flush) or a compare-and-swap by another CPU
 * (xrl_lease_revoke) that takes back what is left, and only a pass taken
 * back is subtracted from b, in the state it was counted in (a state made
 * anew since, after an eviction, has another birth: nothing is taken back
 * from it; test_lease_not_given_back_to_a_new_state). So b counts at least
 * what passed in it: in any window, what passed is at most what the ring
 * counts, at most the threshold. (An eviction forgets a key's window, leases
 * and all: passes a CPU leased before it are still spent after it, as the
 * key's new window starts from nothing; the cap on new states, load
 * --new-keys, is what keeps a flood from evicting tracked keys.) The word
 * a revoking CPU swaps is the one it read the lease's key and bucket after
 * (a full barrier between), and the holder moves the word's serial on with
 * every new tenant of the slot (a lease, an over latch: xrl_lword_next), so
 * the swap cannot take a later lease's passes, or an over latch's blocks,
 * for this one's (a serial comes round after 2^32 tenants).
 *
 * What a lease costs the others: passes taken and not yet spent look used.
 * A CPU that finds the window full while the key's state is marked as
 * having a lease out (xrl_lease_mark) takes back what every CPU's lease of
 * the key has left in the window, and judges again: so the window fills
 * with packets, not leases.
 */
#ifndef XRL_BPF_LEASE_H
#define XRL_BPF_LEASE_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xrl_key.h"
#include "xrl_window.h"
#include "latch.h"
#include "pctx.h"

/* The CPUs a revoke asks at most (bpf_map_lookup_percpu_elem ends the walk at the last possible one). */
#define XRL_LEASE_CPUS 4096

/*
 * Makes latch l key k's lease of n passes, taken in bucket s of rule r's
 * window in the key's state born at born, while the jiffies stay below
 * until (n 0: the key's slot, so that its next packet, found hot, takes a
 * lease), in a slot that is free (gen 0: xrl_judge_slow retired what it
 * held). The word
 * is published last, by an exchange (a full barrier) with a new serial: a
 * CPU that reads it then reads the fields it goes with.
 */
static __always_inline void xrl_lease_set(struct xrl_latch *l, const struct xrl_rule *r, const struct xrl_key *k,
					  const struct xrl_slot *s, __u64 born, __u64 until, __u32 n)
{
	xrl_latch_fill(l, r, k, s, XRL_LATCH_LEASE, born, until);
	xrl_lword_lease(&l->word, n);
}

/* Spends one pass of lease l: whether one was left (else another CPU took them back, or none are). */
static __always_inline int xrl_lease_spend(struct xrl_latch *l)
{
	return xrl_lword_spend(&l->word);
}

/* What a revoke walks the CPUs with. */
struct xrl_revoke {
	struct xrl_key key;
	__u64 born;
	__u32 ix;
	__u32 gen;
	__u32 epoch; /* the bucket the window is full in */
	__u32 span;  /* its buckets */
	__u32 got;
	__u32 pad;
};

/*
 * One CPU's latch slot ix, when it is the key's: what its lease has left in
 * a bucket of the window, taken from the word, and back from that bucket.
 * -1: the CPU is past the last possible one.
 */
static __always_inline int xrl_revoke_way(struct xrl_revoke *v, __u64 cpu, __u32 ix)
{
	struct xrl_latch *l;
	struct xrl_win win;
	struct xrl_slot ls = {};
	__u32 got;
	__u64 w;

	l = bpf_map_lookup_percpu_elem(&xrl_latches, &ix, (__u32)cpu);
	if (!l)
		return -1;
	/* A full barrier, then the fields the word goes with (xrl_lease_set publishes them first). */
	w = xrl_lword_peek(&l->word);
	if (!xrl_latch_count(w) || l->kind != XRL_LATCH_LEASE || l->gen != v->gen || l->born != v->born ||
	    v->epoch - l->epoch >= v->span || !xrl_key_equal(&l->key, &v->key))
		return 0;
	ls.epoch = l->epoch;
	ls.idx = l->idx;
	got = xrl_lword_take(&l->word, w);
	if (!got)
		return 0;
	if (xrl_win_find(&v->key, &win) && win.st->gen == v->gen && xrl_win_born(&win) == v->born) {
		xrl_unreserve(&win.st->ring, XRL_CELLS, &ls, got, XRL_RESERVE_TRIES);
		v->got += got;
	}
	return 0;
}

/* One CPU's latches of the key's set (xrl_latch_find): its lease there, if any. */
static long xrl_revoke_cpu(__u64 cpu, void *data)
{
	struct xrl_revoke *v = data;
	__u32 i;

	for (i = 0; i < XRL_LATCH_WAYS; i++)
		if (xrl_revoke_way(v, cpu, v->ix ^ i) < 0)
			return 1;
	return 0;
}

/*
 * The window of rule r's key (pc->key) is full in the bucket of the rule's
 * slot, and its state is marked as having a lease out (xrl_lease_mark):
 * takes back what the CPUs' leases of the key have left in the window's
 * buckets, from those buckets. A global function, verified once; called
 * rarely (at most once a lease taken). Returns the passes taken back.
 */
__noinline int xrl_lease_revoke(struct xrl_rule *r, struct xrl_pctx *pc)
{
	struct xrl_revoke v = {};
	struct xrl_rule_stats *rs;
	struct xrl_win win;
	__u32 i;

	if (!r || !pc)
		return 0;
	i = r->id;
	rs = bpf_map_lookup_elem(&xrl_rule_stats, &i);
	if (!rs || !xrl_win_find(&pc->key, &win))
		return 0;
	/* Asked now: a lease made from here on marks the window again (after it is published). */
	xrl_win_lease_clear(&win);
	__builtin_memcpy(&v.key, &pc->key, sizeof(v.key));
	v.born = xrl_win_born(&win);
	v.ix = pc->latch_ix & ~(XRL_LATCH_WAYS - 1U); /* its set's first way */
	v.gen = r->gen;
	v.epoch = rs->slot.epoch;
	v.span = r->buckets;
	bpf_loop(XRL_LEASE_CPUS, xrl_revoke_cpu, &v, 0);
	return (int)v.got;
}

/*
 * Gives back the pass a lease of rule r's key paid for pc's packet, which
 * another rule then dropped. To the lease, while it has passes left. Else
 * (the spend took its last, or another CPU took the rest back, and only
 * those: xrl_lease_revoke) from the bucket the pass was counted in, as a
 * take-back does. When the slot holds another key's latch by then (this
 * CPU let it to a later rule of the same packet whose key shares it), the
 * pass stays counted: one too many, which can only block. A global
 * function: called only for a packet a lease passed and another rule dropped.
 */
__noinline int xrl_lease_give_back(struct xrl_rule *r, struct xrl_pctx *pc)
{
	struct xrl_slot ls = {};
	struct xrl_latch *l;
	struct xrl_win win;
	int found;

	if (!r || !pc)
		return 0;
	xrl_key_for(&pc->key, r, pc, 0);
	l = xrl_latch_find(pc); /* the key's, or NULL */
	if (!l || l->kind != XRL_LATCH_LEASE || l->gen != r->gen)
		return 0;
	ls.epoch = l->epoch;
	ls.idx = l->idx;
	found = xrl_win_find(&pc->key, &win) && win.st->gen == l->gen && xrl_win_born(&win) == l->born;
	xrl_lease_unspend(&l->word, found ? &win.st->ring : NULL, XRL_CELLS, &ls, XRL_RESERVE_TRIES);
	return 0;
}

#endif /* XRL_BPF_LEASE_H */
