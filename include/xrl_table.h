/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The table of window states of docs/table.md: a key and its window in one
 * 64-byte way, 4 ways a set, the sets one array. The hash, the set and way
 * index, the key compare and the claim protocol, once, for the program, the
 * carry and userspace (the unit tests race it: tests/unit/test_table.c).
 *
 * Not yet the program's table: bpf/maps_counts.h still holds an LRU hash.
 * The prototype measured against it is tools/bpf/xdp_floor.bpf.c's
 * xdp_line_drop (docs/performance.md, "A key in a line").
 */
#ifndef XRL_TABLE_H
#define XRL_TABLE_H

#include "xrl_key.h"

#define XRL_TABLE_WAYS 4
#define XRL_WAY_CELLS 3		   /* a 2-bucket window's ring: the line's */
#define XRL_WAY_CLAIMS 0x3fffffffU /* serial: the way's claims, odd while one writes it; 0: never used */
#define XRL_WAY_LOCK (1U << 30)	   /* ... of a set's way 0: a CPU is claiming a way of the set */
#define XRL_WAY_LEASED (1U << 31)  /* ... a CPU leased passes of the way's window (xrl_state.leased's) */
/*
 * Buckets more than the window that a way's newest pass must be behind
 * before the way may be taken (xrl_table_grace): more than a CPU's clock
 * read can be behind its use, which latch.h bounds by 7 ticks (70 ms at
 * HZ 100, the slowest tick).
 */
#define XRL_TABLE_GRACE_NS 100000000ULL

/* The key of a way: xrl_key with a 15-bit rule id and 8 bytes of address (IPv4; IPv6 up to /64). */
struct xrl_tkey {
	__u16 rule; /* rule id; bit 15: its byte window (XRL_KEY_BYTES) */
	__u16 port;
	__u8 family;
	__u8 proto;
	__u16 zero;
	__u8 addr[8];
} __attribute__((aligned(8))); /* or the BPF backend compares it by 16-bit loads */
_Static_assert(sizeof(struct xrl_tkey) == 16, "xrl_tkey layout");

struct xrl_way {
	struct xrl_tkey key;
	__u32 serial;		/* XRL_WAY_CLAIMS, XRL_WAY_LOCK, XRL_WAY_LEASED */
	__u32 gen;		/* the rule gen the window was built for */
	__u32 last;		/* the newest bucket's epoch (mod 2^32) */
	__u32 seq;		/* passes committed (mod 2^32: compared for equality) */
	__u64 c[XRL_WAY_CELLS]; /* epoch << 32 | pass (xrl_word) */
	__u32 warm;		/* a warm-up rule's: its ramp's start, ms mod 2^32; 0: warm */
	__u32 spare;
};
_Static_assert(sizeof(struct xrl_way) == 64, "a way is one cache line");

struct xrl_tset {
	struct xrl_way w[XRL_TABLE_WAYS];
};

/* What xrl_tset_claim returns when it did not give a way: the packet goes to the sketch. */
#define XRL_TABLE_FULL (-1)   /* every way of the set holds a window that may still count */
#define XRL_TABLE_LOCKED (-2) /* another CPU is claiming a way of the set */

/* The sets of a table of ways ways at least: a power of 2. */
static inline __u32 xrl_table_sets(__u32 ways)
{
	__u32 sets = 1;

	while (sets * XRL_TABLE_WAYS < ways && sets < (1U << 28))
		sets *= 2;
	return sets;
}

/*
 * The set of a key of hash h (xrl_key_hash64): bits 32 up, since the hash's
 * multiplies carry upward only (its low bits hold only the key's low bits:
 * the sources of a /24 differ in their top byte, as loaded). The latch slot
 * is the top 10 bits: a set's keys do not share one for that.
 */
static inline __u32 xrl_table_set(__u64 h, __u32 sets)
{
	return (__u32)(h >> 32) & (sets - 1);
}

/* The key's first way in its set: where its probe begins. */
static inline __u32 xrl_table_first(__u64 h)
{
	return (__u32)(h >> 62) & (XRL_TABLE_WAYS - 1);
}

/* Buckets of blen ns a way's newest pass must be behind, beyond the window, to be taken. */
static inline __u32 xrl_table_grace(__u64 blen)
{
	return blen ? (__u32)((XRL_TABLE_GRACE_NS + blen - 1) / blen) : 1;
}

/* The way key of k; -1 when k has none (a rule id over 15 bits, an IPv6 key longer than /64). */
static inline int xrl_tkey_make(struct xrl_tkey *t, const struct xrl_key *k)
{
	__u32 id = k->rule_id & ~XRL_KEY_BYTES, hi[2];

	__builtin_memcpy(hi, XRL_ALIGNED4(k->addr + 8), 8);
	if (id > 0x7fff || hi[0] | hi[1])
		return -1;
	t->rule = (__u16)(id | (k->rule_id & XRL_KEY_BYTES ? 0x8000 : 0));
	t->port = k->port;
	t->family = k->family;
	t->proto = k->proto;
	t->zero = 0;
	__builtin_memcpy(t->addr, XRL_ALIGNED4(k->addr), 8);
	return 0;
}

/* The xrl_key of way key t (userspace reads a way's). */
static inline void xrl_tkey_key(struct xrl_key *k, const struct xrl_tkey *t)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->rule_id = (t->rule & 0x7fffU) | (t->rule & 0x8000 ? XRL_KEY_BYTES : 0);
	k->port = t->port;
	k->family = t->family;
	k->proto = t->proto;
	__builtin_memcpy(k->addr, t->addr, 8);
}

/* Two way keys, in two compares. */
static inline __attribute__((always_inline)) int xrl_tkey_equal(const struct xrl_tkey *a, const struct xrl_tkey *b)
{
	__u64 x[2], y[2];

	__builtin_memcpy(x, a, 16);
	__builtin_memcpy(y, b, 16);
	return !((x[0] ^ y[0]) | (x[1] ^ y[1]));
}

/*
 * The way of set s holding key t, its probe from way first; its index, and
 * in *serial its claims as read before its key (the caller counting into it
 * reads them again after its add: xrl_way_still). -1: not there. A way never
 * used ends the probe: a key takes the first way of its probe that is free
 * or empty (xrl_tset_claim), and a way once used is never free again, so no
 * key is past it. A way being claimed (odd) is not matched.
 */
XRL_INLINE int xrl_tset_find(struct xrl_tset *s, const struct xrl_tkey *t, __u32 first, __u32 *serial)
{
	struct xrl_way *w;
	__u32 i, ix, sr;

	for (i = 0; i < XRL_TABLE_WAYS; i++) {
		ix = (first + i) & (XRL_TABLE_WAYS - 1);
		w = &s->w[ix];
		sr = XRL_READ_ACQUIRE(w->serial) & XRL_WAY_CLAIMS;
		if (!sr)
			return -1;
		if (!(sr & 1) && xrl_tkey_equal(&w->key, t)) {
			*serial = sr;
			return (int)ix;
		}
	}
	return -1;
}

/*
 * Whether way w, found with claims serial, still holds its key: asked after
 * a write to its window (an atomic that fetches: a full barrier). No: the
 * way was taken since, and what the caller added there must be taken back.
 */
static inline int xrl_way_still(struct xrl_way *w, __u32 serial)
{
	return (XRL_READ_ACQUIRE(w->serial) & XRL_WAY_CLAIMS) == serial;
}

/*
 * Whether way w's window holds no pass that can still count at bucket E, for
 * a window of n buckets: every cell holds none, or holds a bucket more than
 * n + g buckets before E (g: xrl_table_grace). A bucket after E (a clock
 * ahead of ours) can.
 */
static inline int xrl_way_empty(const struct xrl_way *w, __u32 E, __u32 n, __u32 g)
{
	__u64 x;
	__u32 i, d;

	for (i = 0; i < XRL_WAY_CELLS; i++) {
		x = XRL_READ_ONCE(w->c[i]);
		d = E - xrl_word_epoch(x);
		if (xrl_word_pass(x) && (d < n + g || d >= 0x80000000U))
			return 0;
	}
	return 1;
}

/* Takes set s's claim lock (way 0's XRL_WAY_LOCK): whether this CPU holds it now. */
static inline int xrl_tset_lock(struct xrl_tset *s)
{
	__u32 o = XRL_READ_ONCE(s->w[0].serial);

	return !(o & XRL_WAY_LOCK) && __sync_val_compare_and_swap(&s->w[0].serial, o, o | XRL_WAY_LOCK) == o;
}

static inline void xrl_tset_unlock(struct xrl_tset *s)
{
	__sync_fetch_and_and(&s->w[0].serial, ~XRL_WAY_LOCK);
}

/*
 * Takes way w of set s (its claims sr, even: 0 or a key's whose window the
 * caller found empty) for key t. 0 when taken, -1 when its window proved
 * busy once the way was marked. The caller holds the set's lock.
 *
 * The race with a CPU counting into w for its old key, which read sr before
 * its key and reads the serial again after its add (xrl_way_still): here the
 * serial is written (odd) and then the cells are read; there a cell is
 * written and then the serial read; each pair is fenced (atomics that fetch
 * are full barriers), so one of the two sees the other's write. This side
 * sees the pass: the window is busy, the way keeps its key and is given back
 * (a counter that read the odd serial takes its own add back and judges its
 * packet again: a pass judged twice, never lost). That side sees the new
 * serial: it takes its add back from the cell it added to, which still holds
 * that bucket (and loses exactly what was added) or was emptied here (and
 * holds none of it); meanwhile the new key's window reads more than it has,
 * which can only block. Neither: impossible. What the old key's window held
 * is forgotten, all of it n + g buckets before E: a packet of the old key
 * judged from now on is judged as a new key's at its own time, less than g
 * buckets before E (XRL_TABLE_GRACE_NS), whose window no forgotten bucket
 * is in.
 */
static inline int xrl_way_take(struct xrl_tset *s, struct xrl_way *w, __u32 sr, const struct xrl_tkey *t, __u32 E,
			       __u32 n, __u32 g)
{
	__u32 o = XRL_READ_ONCE(w->serial), next, i;

	if ((o & XRL_WAY_CLAIMS) != sr || __sync_val_compare_and_swap(&w->serial, o, o + 1) != o)
		return -1;
	if (sr && !xrl_way_empty(w, E, n, g)) {
		__sync_fetch_and_add(&w->serial, (__u32)-1);
		return -1;
	}
	__builtin_memcpy(&w->key, t, sizeof(*t));
	w->gen = 0;
	w->last = 0;
	w->seq = 0;
	for (i = 0; i < XRL_WAY_CELLS; i++)
		w->c[i] = 0;
	w->warm = 0;
	next = sr + 2 > XRL_WAY_CLAIMS ? 2 : sr + 2;
	/* Published by an exchange (a full barrier: the key before a match); a new key has no lease. */
	__sync_lock_test_and_set(&w->serial, (w == &s->w[0] ? XRL_WAY_LOCK : 0) | next);
	return 0;
}

/*
 * Claims a way of set s for key t, not found there (xrl_tset_find), at
 * bucket E of a window of n buckets, grace g: the way's index, its claims in
 * *serial; else XRL_TABLE_LOCKED or XRL_TABLE_FULL. Under the set's lock,
 * so that two CPUs cannot give one key two ways (two windows): the key is
 * looked for again first. A busy window is never taken.
 */
static inline int xrl_tset_claim(struct xrl_tset *s, const struct xrl_tkey *t, __u32 first, __u32 E, __u32 n, __u32 g,
				 __u32 *serial)
{
	struct xrl_way *w;
	__u32 i, ix, sr;
	int got;

	if (!xrl_tset_lock(s))
		return XRL_TABLE_LOCKED;
	got = xrl_tset_find(s, t, first, serial);
	for (i = 0; got < 0 && i < XRL_TABLE_WAYS; i++) {
		ix = (first + i) & (XRL_TABLE_WAYS - 1);
		w = &s->w[ix];
		sr = XRL_READ_ONCE(w->serial) & XRL_WAY_CLAIMS;
		if ((sr & 1) || (sr && !xrl_way_empty(w, E, n, g)))
			continue;
		if (!xrl_way_take(s, w, sr, t, E, n, g)) {
			*serial = sr + 2 > XRL_WAY_CLAIMS ? 2 : sr + 2;
			got = (int)ix;
		}
	}
	xrl_tset_unlock(s);
	return got < 0 ? XRL_TABLE_FULL : got;
}

/* Takes cost passes back from cell ix of way w while it holds bucket epoch (xrl_take_back's, on a line's cell). */
static inline void xrl_way_take_back(struct xrl_way *w, __u32 ix, __u32 epoch, __u32 cost)
{
	__u64 x;
	int k;

	xrl_barrier_var(ix);
	if (ix >= XRL_WAY_CELLS)
		return;
	for (k = 0; k < XRL_RESERVE_TRIES; k++) {
		x = XRL_READ_ONCE(w->c[ix]);
		if (xrl_word_epoch(x) != epoch || xrl_word_pass(x) < cost)
			return;
		if (__sync_val_compare_and_swap(&w->c[ix], x, x - cost) == x)
			return;
	}
}

/*
 * Counts cost passes in bucket E of way w, found with claims serial, as a
 * reservation's add does (the bucket's cell moved to E first when it holds
 * an older one), and keeps them only while the way still holds its key:
 * 1 counted; 0 taken back, the way was taken (the packet is judged again);
 * -1 nothing counted (the cell holds a later bucket). The protocol's
 * counting half: the program's reservation is to read the serial again
 * after its add as this does.
 */
static inline int xrl_way_count(struct xrl_way *w, __u32 serial, __u32 E, __u32 cost)
{
	__u32 ix = E % XRL_WAY_CELLS;
	__u64 x, o;

	xrl_barrier_var(ix);
	if (ix >= XRL_WAY_CELLS)
		return -1;
	x = XRL_READ_ONCE(w->c[ix]);
	if (!x || xrl_word_epoch(x) != E) {
		if (x && (int)(xrl_word_epoch(x) - E) > 0)
			return -1;
		if ((int)(E - XRL_READ_ONCE(w->last)) > 0)
			__sync_val_compare_and_swap(&w->last, XRL_READ_ONCE(w->last), E);
		__sync_val_compare_and_swap(&w->c[ix], x, xrl_word(E, 0));
	}
	o = __sync_fetch_and_add(&w->c[ix], (__u64)cost);
	if (xrl_word_epoch(o) != E) {
		/* The cell moved on under us: ours went to its bucket, and comes back from there. */
		xrl_way_take_back(w, ix, xrl_word_epoch(o), cost);
		return -1;
	}
	__sync_fetch_and_add(&w->seq, 1);
	if (xrl_way_still(w, serial))
		return 1;
	/* Taken since our key compare: ours back, from the bucket it went to only. */
	xrl_way_take_back(w, ix, E, cost);
	return 0;
}

#endif /* XRL_TABLE_H */
