/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The table of window states of docs/table.md: a key and its window in a
 * way of two adjacent lines, the first holding all a packet that passes
 * reads and writes, 4 ways a set, the sets one array. The way's geometry,
 * the hash, the set and way index, the key compare and the claim protocol,
 * once, for the program, the carry and userspace (the unit tests race it
 * against the window's own reservation: tests/unit/test_table.c).
 *
 * Not yet the program's table: bpf/maps_counts.h still holds an LRU hash.
 * Its floor is tools/bpf/xdp_floor.bpf.c's xdp_line_drop (docs/performance.md,
 * "A key in a line").
 */
#ifndef XRL_TABLE_H
#define XRL_TABLE_H

#include "xrl_key.h"

#define XRL_TABLE_WAYS 4
#define XRL_WAY_CLAIMS 0x3fffffffU /* serial: the way's claims, odd while one writes it; 0: never used */
#define XRL_WAY_LOCK (1U << 30)	   /* ... of a set's way 0: a CPU is claiming a way of the set */
#define XRL_WAY_LEASED (1U << 31)  /* ... a CPU leased passes of the way's window (bpf/lease.h) */
#define XRL_WAY_LINE 64
#define XRL_DEFAULT_WAY_BYTES 128 /* xrl_way_bytes(16, 3): a narrow way of a 2-bucket window */
/*
 * Time a way's newest pass must be behind the end of its window before the
 * way may be taken (xrl_way_empty): more than a CPU's clock read can be
 * behind its use, which latch.h bounds by 7 ticks (70 ms at HZ 100, the
 * slowest tick).
 */
#define XRL_TABLE_GRACE_NS 100000000ULL

/*
 * In the program: rodata x (a shape) by a pointer the compiler cannot see
 * through (the asm): with volatile cast away it would fold the loads to the
 * initializer's values, not the loader's. The verifier still reads them as
 * the constants they are.
 */
#define XRL_RODATA_PTR(type, x)                     \
	({                                          \
		const type *_p = (const void *)(x); \
		asm volatile("" : "+r"(_p));        \
		_p;                                 \
	})

/*
 * A table's shape, fixed at load (the program's rodata; userspace's from
 * the map and the instance's settings): a way's bytes, its key's (16: an
 * IPv4 or IPv6 /64 source in struct xrl_tkey; 24: struct xrl_key whole, for
 * IPv6 masks over /64), the cells of its ring.
 */
struct xrl_tshape {
	__u32 way_bytes;
	__u32 key_bytes;
	__u32 cells;
};

/* The key of a narrow way: xrl_key with a 15-bit rule id and 8 bytes of address (IPv4; IPv6 up to /64). */
struct xrl_tkey {
	__u16 rule; /* rule id; bit 15: its byte window (XRL_KEY_BYTES) */
	__u16 port;
	__u8 family;
	__u8 proto;
	__u16 zero;
	__u8 addr[8];
} __attribute__((aligned(8))); /* or the BPF backend compares it by 16-bit loads */
_Static_assert(sizeof(struct xrl_tkey) == 16, "xrl_tkey layout");

/* A way key, as the way holds it: a struct xrl_tkey, or a struct xrl_key whole, in words. */
struct xrl_wkey {
	__u64 w[3];
};
_Static_assert(sizeof(struct xrl_key) == 24, "a wide way's key is an xrl_key");

/*
 * A way's window, after its key: the claims serial, the rule gen its ring
 * was built for, and the ring as a key's is laid out (last, seq, its cells,
 * then their block counts and a long ring's base: xrl_ring_blocks,
 * xrl_ring_base). A narrow way of 3 cells holds the key, serial, gen, last,
 * seq and cells in its first line, the block counts in its second.
 */
struct xrl_wstate {
	__u32 serial; /* XRL_WAY_CLAIMS, XRL_WAY_LOCK, XRL_WAY_LEASED */
	__u32 gen;
	struct xrl_ring ring;
};

/*
 * After the ring: a warm-up rule's start of its ramp (ns), and the window's
 * shape for the rule gen shape_gen, by which a claim judges the window empty
 * (in its rule's buckets, not the new key's). Written by whoever builds a
 * ring for a gen (the CPU that won the gen, the carry of a replace), gen
 * last; while shape_gen is not the ring's gen, any pass keeps the way.
 */
struct xrl_wtail {
	__u64 warm;
	__u64 blen; /* bucket length, ns */
	__u32 buckets;
	__u32 shape_gen;
};

/*
 * The bytes of a way: its key, serial and gen, ring and tail, in whole
 * lines; a wide way's a line more than a narrow way's of the same cells,
 * so that a table's value size and cells tell its keys (xrl_way_keys).
 */
static inline __u32 xrl_way_bytes(__u32 key_bytes, __u32 cells)
{
	__u32 b = 16 + 8 + xrl_ring_size(cells) + (__u32)sizeof(struct xrl_wtail);

	b = (b + XRL_WAY_LINE - 1) / XRL_WAY_LINE * XRL_WAY_LINE;
	return key_bytes == 16 ? b : b + XRL_WAY_LINE;
}

/* The key bytes of ways of way_bytes for rings of cells cells; 0: neither. */
static inline __u32 xrl_way_keys(__u32 way_bytes, __u32 cells)
{
	return way_bytes == xrl_way_bytes(16, cells) ? 16 : way_bytes == xrl_way_bytes(24, cells) ? 24 : 0;
}

/* The shape of a table of ways of keys of key_bytes bytes and rings of cells cells. */
static inline struct xrl_tshape xrl_tshape_of(__u32 key_bytes, __u32 cells)
{
	struct xrl_tshape t = { xrl_way_bytes(key_bytes, cells), key_bytes, cells };

	return t;
}

/* Way i of a set (XRL_TABLE_WAYS of them, way_bytes apart). */
static inline __u8 *xrl_way(void *set, const struct xrl_tshape *t, __u32 i)
{
	return (__u8 *)set + (__u64)(i & (XRL_TABLE_WAYS - 1)) * t->way_bytes;
}

static inline struct xrl_wstate *xrl_way_state(__u8 *w, const struct xrl_tshape *t)
{
	return (struct xrl_wstate *)(void *)(w + t->key_bytes);
}

static inline struct xrl_wtail *xrl_way_tail(__u8 *w, const struct xrl_tshape *t)
{
	return (struct xrl_wtail *)(void *)(w + t->key_bytes + 8 + xrl_ring_size(t->cells));
}

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

/* Whether key k needs a wide way (an IPv6 mask over /64, or a rule id over 15 bits). */
static inline int xrl_key_wide(const struct xrl_key *k)
{
	__u32 hi[2];

	__builtin_memcpy(hi, XRL_ALIGNED4(k->addr + 8), 8);
	return (k->rule_id & ~XRL_KEY_BYTES) > 0x7fff || (hi[0] | hi[1]);
}

/*
 * The way key of k for ways of key_bytes; -1 when k needs a wider one
 * (xrl_key_wide). Its words made by shifts, not copies of a struct: in the
 * program they stay in registers (the slow path's frame is at its bound).
 * A narrow key's first word is struct xrl_tkey's first 8 bytes as this
 * machine lays them out.
 */
static inline __attribute__((always_inline)) int xrl_wkey_make(struct xrl_wkey *w, const struct xrl_key *k,
							       __u32 key_bytes)
{
	__u32 id = k->rule_id & ~XRL_KEY_BYTES, a[4];

	__builtin_memcpy(a, XRL_ALIGNED4(k->addr), 16);
	w->w[1] = (__u64)a[1] << 32 | a[0];
	if (key_bytes != sizeof(struct xrl_tkey)) {
		w->w[0] = (__u64)k->proto << 56 | (__u64)k->family << 48 | (__u64)k->port << 32 | k->rule_id;
		w->w[2] = (__u64)a[3] << 32 | a[2];
		return 0;
	}
	if (id > 0x7fff || (a[2] | a[3]))
		return -1;
	id |= k->rule_id & XRL_KEY_BYTES ? 0x8000 : 0;
	w->w[0] = (__u64)k->proto << 40 | (__u64)k->family << 32 | (__u64)k->port << 16 | id;
	w->w[2] = 0;
	return 0;
}

/* The xrl_key of way key w (userspace reads a way's). */
static inline void xrl_wkey_key(struct xrl_key *k, const struct xrl_wkey *w, __u32 key_bytes)
{
	__u32 a[4] = { (__u32)w->w[1], (__u32)(w->w[1] >> 32), 0, 0 };

	__builtin_memset(k, 0, sizeof(*k));
	if (key_bytes != sizeof(struct xrl_tkey)) {
		k->rule_id = (__u32)w->w[0];
		k->port = (__u16)(w->w[0] >> 32);
		k->family = (__u8)(w->w[0] >> 48);
		k->proto = (__u8)(w->w[0] >> 56);
		a[2] = (__u32)w->w[2];
		a[3] = (__u32)(w->w[2] >> 32);
	} else {
		k->rule_id = ((__u32)w->w[0] & 0x7fffU) | (w->w[0] & 0x8000 ? XRL_KEY_BYTES : 0);
		k->port = (__u16)(w->w[0] >> 16);
		k->family = (__u8)(w->w[0] >> 32);
		k->proto = (__u8)(w->w[0] >> 40);
	}
	__builtin_memcpy(k->addr, a, 16);
}

/* Whether way w holds key k (a way of key_bytes), in two or three compares. */
static inline __attribute__((always_inline)) int xrl_way_holds(const __u8 *w, const struct xrl_wkey *k, __u32 key_bytes)
{
	__u64 x[3];

	__builtin_memcpy(x, w, 16);
	x[2] = 0;
	if (key_bytes != 16)
		__builtin_memcpy(&x[2], w + 16, 8);
	return !((x[0] ^ k->w[0]) | (x[1] ^ k->w[1]) | (x[2] ^ k->w[2]));
}

/*
 * The way of set s holding key k, its probe from way first; its index, and
 * in *serial its claims as read before its key (the caller counting into it
 * reads them again after its add: xrl_way_still). -1: not there. A way never
 * used ends the probe: a key takes the first way of its probe that is free
 * or empty (xrl_tset_claim), and a way once used is never free again, so no
 * key is past it. A way being claimed (odd) is not matched.
 */
XRL_INLINE int xrl_tset_find(void *s, const struct xrl_tshape *t, const struct xrl_wkey *k, __u32 first, __u32 *serial)
{
	__u8 *w;
	__u32 i, ix, sr;

	for (i = 0; i < XRL_TABLE_WAYS; i++) {
		ix = (first + i) & (XRL_TABLE_WAYS - 1);
		w = xrl_way(s, t, ix);
		sr = XRL_READ_ACQUIRE(xrl_way_state(w, t)->serial) & XRL_WAY_CLAIMS;
		if (!sr)
			return -1;
		if (!(sr & 1) && xrl_way_holds(w, k, t->key_bytes)) {
			*serial = sr;
			return (int)ix;
		}
	}
	return -1;
}

/*
 * Whether the way of state ws, found with claims serial, still holds its
 * key: asked after a write to its window (an atomic that fetches: a full
 * barrier). No: the way was taken since, and what the caller added there
 * must be taken back.
 */
static inline int xrl_way_still(struct xrl_wstate *ws, __u32 serial)
{
	return (XRL_READ_ACQUIRE(ws->serial) & XRL_WAY_CLAIMS) == serial;
}

/*
 * Whether way w's window holds no pass that can still count at now (ns):
 * every cell holds none, or holds a bucket more than its window and the
 * grace before now's, in the buckets of the shape its ring was built for
 * (struct xrl_wtail: the rule of the way's key, not the claimer's). A bucket
 * after now's (a clock ahead of ours) can count.
 */
static inline int xrl_way_empty(__u8 *w, const struct xrl_tshape *t, __u64 now)
{
	struct xrl_wstate *ws = xrl_way_state(w, t);
	struct xrl_wtail *tl = xrl_way_tail(w, t);
	__u32 sg = XRL_READ_ACQUIRE(tl->shape_gen), i, d, E = 0, span = 0;
	__u64 blen = XRL_READ_ONCE(tl->blen), x;

	/* The shape holds for the ring's gen, read after it: a gen taken since (a new shape) reads as none. */
	if (sg != XRL_READ_ACQUIRE(ws->gen))
		blen = 0;
	if (blen) {
		E = (__u32)(now / blen);
		span = XRL_READ_ONCE(tl->buckets) + (__u32)((XRL_TABLE_GRACE_NS + blen - 1) / blen);
	}
	for (i = 0; i < XRL_MAX_CELLS && i < t->cells; i++) {
		x = XRL_READ_ONCE(ws->ring.c[i].word);
		d = E - xrl_word_epoch(x);
		if (xrl_word_pass(x) && (!blen || d < span || d >= 0x80000000U))
			return 0;
	}
	return 1;
}

/* Takes set s's claim lock (way 0's XRL_WAY_LOCK): whether this CPU holds it now. */
static inline int xrl_tset_lock(void *s, const struct xrl_tshape *t)
{
	__u32 *sr = &xrl_way_state(xrl_way(s, t, 0), t)->serial;
	__u32 o = XRL_READ_ONCE(*sr);

	return !(o & XRL_WAY_LOCK) && __sync_val_compare_and_swap(sr, o, o | XRL_WAY_LOCK) == o;
}

static inline void xrl_tset_unlock(void *s, const struct xrl_tshape *t)
{
	__sync_fetch_and_and(&xrl_way_state(xrl_way(s, t, 0), t)->serial, ~XRL_WAY_LOCK);
}

/* The claims after sr: round past XRL_WAY_CLAIMS to 2, never to 0 (never used) nor into the lock. */
static inline __u32 xrl_way_next(__u32 sr)
{
	return sr + 2 > XRL_WAY_CLAIMS ? 2 : sr + 2;
}

/*
 * Takes way ix of set s (its claims sr, even: 0 or a key's whose window the
 * caller found empty at now) for key k. 0 when taken, -1 when its window
 * proved busy once the way was marked. The caller holds the set's lock.
 *
 * The race with a CPU counting into the way for its old key, which read sr
 * before its key and reads the serial again after its add (xrl_way_still):
 * here the serial is written (odd) and then the cells are read; there a cell
 * is written and then the serial read; each pair is fenced (atomics that
 * fetch are full barriers), so one of the two sees the other's write. This
 * side sees the pass: the window is busy, the way keeps its key and is given
 * back (a counter that read the odd serial takes its own add back and judges
 * its packet again: a pass judged twice, never lost). That side sees the new
 * serial: it takes its add back from the cell it added to, which still holds
 * that bucket (and loses exactly what was added) or was emptied here (and
 * holds none of it); meanwhile the new key's window reads more than it has,
 * which can only block. Neither: impossible. What the old key's window held
 * is forgotten, all of it more than its window and XRL_TABLE_GRACE_NS
 * before now: a packet of the old key judged from now on is judged as a new
 * key's at its own time, less than the grace before now, whose window no
 * forgotten bucket is in.
 */
XRL_INLINE int xrl_way_take(void *s, const struct xrl_tshape *t, __u32 ix, __u32 sr, const struct xrl_wkey *k,
			    __u64 now)
{
	__u8 *w = xrl_way(s, t, ix);
	struct xrl_wstate *ws = xrl_way_state(w, t);
	struct xrl_wtail *tl = xrl_way_tail(w, t);
	__u32 o = XRL_READ_ONCE(ws->serial), i;

	if ((o & XRL_WAY_CLAIMS) != sr || __sync_val_compare_and_swap(&ws->serial, o, o + 1) != o)
		return -1;
	if (sr && !xrl_way_empty(w, t, now)) {
		__sync_fetch_and_add(&ws->serial, (__u32)-1);
		return -1;
	}
	__builtin_memcpy(w, k->w, 16);
	if (t->key_bytes != 16)
		__builtin_memcpy(w + 16, &k->w[2], 8);
	ws->gen = 0;
	ws->ring.last = 0;
	ws->ring.seq = 0;
	/* The cells, their blocks and a long ring's base: every word of the ring after last and seq. */
	for (i = 0; i < 2 * XRL_MAX_CELLS + XRL_BASE_WORDS && i < (xrl_ring_size(t->cells) - 16) / 8; i++)
		ws->ring.c[i].word = 0;
	tl->warm = 0;
	tl->blen = 0;
	tl->buckets = 0;
	tl->shape_gen = 0;
	/* Published by an exchange (a full barrier: the key before a match); a new key has no lease. */
	__sync_lock_test_and_set(&ws->serial, (ix == 0 ? XRL_WAY_LOCK : 0) | xrl_way_next(sr));
	return 0;
}

/*
 * Claims a way of set s for key k, not found there (xrl_tset_find), at now:
 * the way's index, its claims in *serial; else XRL_TABLE_LOCKED or
 * XRL_TABLE_FULL. Under the set's lock, so that two CPUs cannot give one key
 * two ways (two windows): the key is looked for again first. A busy window
 * is never taken.
 */
#define XRL_TABLE_FULL (-1)   /* every way of the set holds a window that may still count */
#define XRL_TABLE_LOCKED (-2) /* another CPU is claiming a way of the set */

XRL_INLINE int xrl_tset_claim(void *s, const struct xrl_tshape *t, const struct xrl_wkey *k, __u32 first, __u64 now,
			      __u32 *serial)
{
	__u32 i, ix, sr;
	__u8 *w;
	int got;

	if (!xrl_tset_lock(s, t))
		return XRL_TABLE_LOCKED;
	got = xrl_tset_find(s, t, k, first, serial);
	for (i = 0; got < 0 && i < XRL_TABLE_WAYS; i++) {
		ix = (first + i) & (XRL_TABLE_WAYS - 1);
		w = xrl_way(s, t, ix);
		sr = XRL_READ_ONCE(xrl_way_state(w, t)->serial) & XRL_WAY_CLAIMS;
		if ((sr & 1) || (sr && !xrl_way_empty(w, t, now)))
			continue;
		if (!xrl_way_take(s, t, ix, sr, k, now)) {
			*serial = xrl_way_next(sr);
			got = (int)ix;
		}
	}
	xrl_tset_unlock(s, t);
	return got < 0 ? XRL_TABLE_FULL : got;
}

/*
 * The window shape of way w's ring for rule gen gen: blen ns buckets, n of
 * them. Written by the CPU that built the ring for the gen (it won the gen's
 * compare-and-swap) and by the carry, which copies one: what a claim judges
 * the window's emptiness by. The gen last, by an exchange (a full barrier).
 */
static inline void xrl_way_shape(__u8 *w, const struct xrl_tshape *t, __u32 gen, __u64 blen, __u32 n)
{
	struct xrl_wtail *tl = xrl_way_tail(w, t);

	tl->buckets = n;
	tl->blen = blen;
	__sync_lock_test_and_set(&tl->shape_gen, gen);
}

#endif /* XRL_TABLE_H */
