/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The sliding window (Alibaba Sentinel's LeapArray) as plain inline C.
 * Compiled into the XDP program, the userspace aggregator and the unit tests:
 * no libc, no libbpf, no floating point. Times are nanoseconds.
 * Semantics: docs/window.md; the worked cases are tests/unit/test_window.c.
 *
 * A bucket is named by its epoch, start / bucket length (mod 2^32), and kept
 * in a cell whose one 64-bit word holds the epoch and the pass count, so a
 * single compare-and-swap both moves a cell to a new bucket and counts a
 * packet in it. One ring of cells per key is shared by every CPU: memory does
 * not grow with the CPU count, and the limit is exact across CPUs.
 */
#ifndef XRL_WINDOW_H
#define XRL_WINDOW_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define XRL_MAX_BUCKETS 60
/*
 * A ring keeps one cell more than the longest window it serves (the loader
 * sizes it: cells, at most XRL_MAX_CELLS), so that beside the n buckets of
 * the window it still holds the bucket that left it last: the n buckets
 * before now's, the last whole interval that has ended, are all there to be
 * read (xrl_window_last_at), whatever n. A bucket of full epoch q is kept in
 * cell q % cells; the window counts the cells of its last n epochs only.
 */
#define XRL_MAX_CELLS (XRL_MAX_BUCKETS + 1)
/*
 * Rings of up to XRL_SHORT_CELLS cells (windows of up to 16 buckets) are
 * judged by reading every cell (xrl_reserve_lease). A longer ring is a long
 * one: beside its cells it keeps the sum of its window's older buckets
 * (struct xrl_base), so that a packet reads two cells' worth, not 61
 * (xrl_reserve_fast). The loader picks one or the other for every ring of
 * a load (cells), so a set with short windows pays nothing for long ones.
 */
#define XRL_SHORT_CELLS 17
/* The program bounds the short rings' loops by their longest (the verifier walks what is left). */
#if defined(__bpf__)
#define XRL_RING_LOOP XRL_SHORT_CELLS
#else
#define XRL_RING_LOOP XRL_MAX_CELLS
#endif

/*
 * Hides a value from the compiler so a bounds check it can prove redundant
 * stays in the code: the BPF verifier cannot prove it and needs to see it.
 */
#if defined(__bpf__)
#define xrl_barrier_var(v) asm volatile("" : "+r"(v))
#else
#define xrl_barrier_var(v) ((void)0)
#endif

/* In the program, a function its callers need inline (a subprogram's frame would add to theirs). */
#define XRL_INLINE static inline __attribute__((always_inline))

/* A word another CPU may change under us: read it once. */
#define XRL_READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))

struct xrl_cell {
	__u64 word; /* epoch << 32 | pass: see xrl_word */
};

/*
 * A ring of cells cells: its cells, then their block counts, one word a
 * cell (xrl_ring_blocks: figures only, never deciding), then a long ring's
 * base (xrl_ring_base). The passes of a ring are its cells' words alone, side
 * by side, so that a packet's reservation reads the least of the ring.
 */
#define XRL_BASE_WORDS 4 /* the words a base takes after a long ring's block counts */
#define XRL_RING_WORDS (2 * XRL_MAX_CELLS + XRL_BASE_WORDS)

struct xrl_ring {
	__u64 last; /* full epoch of the newest bucket a cell was moved to; 0: none yet (see xrl_valid) */
	__u64 seq;  /* shared rings: passes committed (see xrl_reserve) */
	struct xrl_cell c[XRL_RING_WORDS]; /* cells, blocks and base of a ring sized at load: xrl_ring_size */
};

/*
 * A long ring's base, in the words after its block counts (the loader sizes
 * its value for them: xrl_ring_size): the passes of the n - 1 buckets before
 * the bucket of epoch tag >> 32, the window's older buckets, which no pass
 * is counted in any more once a pass in that bucket has committed (a CPU
 * that still counts in an older one finds, before its commit, that another
 * committed, and judges again in the newest: xrl_reserve_lease). What they
 * hold may only fall then, by a pass taken back, which moves oseq on: the
 * base holds while its tag's low word is oseq's (XRL_BASE_OSEQ), so a
 * packet judged on it reads no other cell than its bucket's.
 */
struct xrl_base {
	__u64 tag; /* epoch << 32 | XRL_BASE_VALID | oseq as it was before sum was read; XRL_BASE_BUSY: being written */
	__u64 sum; /* the passes of the older buckets */
	__u64 oseq; /* moved on by every pass taken back from a bucket a base may hold (xrl_base_touch) */
	__u64 pad;
};
#define XRL_BASE_VALID 0x80000000ULL
#define XRL_BASE_OSEQ 0x7fffffffULL
#define XRL_BASE_BUSY 1ULL
_Static_assert(sizeof(struct xrl_base) == 8 * XRL_BASE_WORDS, "xrl_base layout");

/* Whether a ring of cells cells is a long one, with a base after its cells. */
static inline int xrl_ring_long(__u32 cells)
{
	return cells > XRL_SHORT_CELLS;
}

/* The bytes of a ring of cells cells: last, seq, the cells, their blocks, and a long one's base. */
static inline __u32 xrl_ring_size(__u32 cells)
{
	return 16 + (2 * cells + (xrl_ring_long(cells) ? XRL_BASE_WORDS : 0)) * 8;
}

/* The block counts of a ring of cells cells: cell i's in word i. */
static inline __u64 *xrl_ring_blocks(struct xrl_ring *r, __u32 cells)
{
	return (__u64 *)(void *)((char *)r + __builtin_offsetof(struct xrl_ring, c) + (__u64)cells * 8);
}

/* The same, to read. */
static inline const __u64 *xrl_ring_blocks_c(const struct xrl_ring *r, __u32 cells)
{
	return (const __u64 *)(const void *)((const char *)r + __builtin_offsetof(struct xrl_ring, c) +
					     (__u64)cells * 8);
}

/* The base of a long ring of cells cells. */
static inline struct xrl_base *xrl_ring_base(struct xrl_ring *r, __u32 cells)
{
	return (struct xrl_base *)(void *)((char *)r + __builtin_offsetof(struct xrl_ring, c) + (__u64)cells * 16);
}

/* What a window sums to at a given time. */
struct xrl_sum {
	__u64 pass;
	__u64 block;
	__u32 buckets;
	__u32 pad;
};

static inline __u64 xrl_word(__u32 epoch, __u32 pass)
{
	return (__u64)epoch << 32 | pass;
}

static inline __u32 xrl_word_epoch(__u64 w)
{
	return (__u32)(w >> 32);
}

static inline __u32 xrl_word_pass(__u64 w)
{
	return (__u32)w;
}

enum xrl_shape_err {
	XRL_SHAPE_OK = 0,
	XRL_SHAPE_NO_BUCKETS,
	XRL_SHAPE_TOO_MANY_BUCKETS,
	XRL_SHAPE_NO_INTERVAL,
	XRL_SHAPE_UNEVEN,
};

/* n buckets over interval ns: valid only when n > 0, interval > 0 and n divides it. */
static inline int xrl_shape_check(__u32 n, __u64 interval)
{
	if (n == 0)
		return XRL_SHAPE_NO_BUCKETS;
	if (n > XRL_MAX_BUCKETS)
		return XRL_SHAPE_TOO_MANY_BUCKETS;
	if (interval == 0)
		return XRL_SHAPE_NO_INTERVAL;
	if (interval % n)
		return XRL_SHAPE_UNEVEN;
	return XRL_SHAPE_OK;
}

/*
 * Where time t falls in a ring of cells cells, buckets of blen ns: the slot
 * index (t / blen) % cells, the bucket's epoch, start t - t % blen and end. One
 * division and one remainder; the XDP program keeps a slot until t leaves
 * [start, end) and so divides once a bucket, not once a packet.
 */
struct xrl_slot {
	__u64 start;
	__u64 end;
	__u64 q; /* start / bucket length: the full epoch */
	__u32 idx;
	__u32 epoch; /* q mod 2^32, as cells keep it */
};

static inline void xrl_slot_at(struct xrl_slot *s, __u64 t, __u64 blen, __u32 cells)
{
	__u64 q = t / blen;

	s->start = q * blen;
	s->end = s->start + blen;
	s->idx = (__u32)(q % cells);
	s->q = q;
	s->epoch = (__u32)q;
}

/* Whether slot s still holds time t (unsigned: a t before the start does not). */
static inline int xrl_slot_holds(const struct xrl_slot *s, __u64 t)
{
	return t - s->start < s->end - s->start;
}

/*
 * Whether the bucket of epoch e counts at a time in bucket E: it is one of
 * the n buckets that end with E. That is the spec's sum(now), which refreshes
 * the slot of now before it adds: the bucket exactly one interval old shares
 * that slot and is gone, and a bucket that starts after now (unsigned, as in
 * Sentinel-Go) does not count.
 */
/* 1 when a < b, else 0, for values below 2^63, with no branch. */
static inline __u64 xrl_lt(__u64 a, __u64 b)
{
	__u64 d = a - b;

	xrl_barrier_var(d); /* or the compiler turns it back into a branch */
	return d >> 63;
}

static inline int xrl_live(__u32 E, __u32 e, __u32 n)
{
	return (__u32)(E - e) < n;
}

/*
 * Cells keep 32-bit epochs, compared modulo 2^32, so a cell left alone for
 * 2^31 buckets would look newer than now. Every writer moves the ring's last
 * (a full 64-bit epoch) forward before it moves a cell to a new bucket, so:
 * a cell after last is such an old one, and so is every cell of a ring whose
 * last is 2^31 buckets before now (q). Neither counts. (A cell left alone for
 * a multiple of 2^32 buckets while the ring was in use looks live: it can
 * only make the window block.)
 */
static inline int xrl_ring_fresh(__u64 last, __u64 q)
{
	/* With no branch: the reservation's loops take it, and the verifier walks them once a branch. */
	__u64 ahead = xrl_lt(last, q), stale = ahead & xrl_lt(0x7fffffffULL, (q - last) * ahead);

	return (int)(xrl_lt(0, last) & (stale ^ 1));
}

static inline int xrl_valid(__u64 last, __u64 q, __u64 w)
{
	return w && xrl_ring_fresh(last, q) && (__u32)((__u32)last - xrl_word_epoch(w)) < 0x80000000U;
}

/* Moves a ring's last forward to full epoch q, never back; 0 when other CPUs kept winning the swap. */
static inline int xrl_last_advance(struct xrl_ring *r, __u64 q, int tries)
{
	__u64 old;
	int k;

	for (k = 0; k < tries; k++) {
		old = XRL_READ_ONCE(r->last);
		if (old >= q)
			return 1;
		if (__sync_val_compare_and_swap(&r->last, old, q) == old)
			return 1;
	}
	return 0;
}

/* Adds into *acc the cells of a ring of cells cells that hold one of the span buckets ending with s's. */
static inline void xrl_ring_add(const struct xrl_ring *r, __u32 cells, __u32 span, const struct xrl_slot *s,
				struct xrl_sum *acc)
{
	const __u64 *b = xrl_ring_blocks_c(r, cells);
	__u64 w, last = XRL_READ_ONCE(r->last);
	__u32 i;

	for (i = 0; i < XRL_MAX_CELLS; i++) {
		if (i >= cells)
			break;
		w = XRL_READ_ONCE(r->c[i].word);
		if (!xrl_valid(last, s->q, w) || !xrl_live(s->epoch, xrl_word_epoch(w), span))
			continue;
		acc->pass += xrl_word_pass(w);
		acc->block += XRL_READ_ONCE(b[i]);
		acc->buckets++;
	}
}

/* Whether a ring of cells cells can hold a window of n buckets (and the bucket that left it last). */
static inline int xrl_cells_fit(__u32 n, __u32 cells)
{
	return cells <= XRL_MAX_CELLS && n < cells;
}

/* The window of n buckets of a ring of cells cells at now: the spec's sum(now), pass and block. */
static inline struct xrl_sum xrl_window_at(const struct xrl_ring *r, __u32 n, __u32 cells, __u64 interval, __u64 now)
{
	struct xrl_sum s = { 0, 0, 0, 0 };
	struct xrl_slot sl;

	if (xrl_shape_check(n, interval) != XRL_SHAPE_OK || !xrl_cells_fit(n, cells))
		return s;
	xrl_slot_at(&sl, now, interval / n, cells);
	xrl_ring_add(r, cells, n, &sl, &s);
	return s;
}

/*
 * The last whole interval that has ended at now: the n buckets before now's.
 * Sentinel's sum(now) includes now's bucket, partly elapsed: a steady 400/s
 * reads 360 a tenth of a second after a boundary of a 1 s, 2-bucket window,
 * and a source held at its limit passes its window's worth early in one
 * bucket and nothing in the next, so any part of an interval reads 0 or
 * twice the truth by turns. Every whole interval holds exactly what the
 * window allowed: a source held at 100/s reads 100/s in every reading.
 */
static inline struct xrl_sum xrl_window_last_at(const struct xrl_ring *r, __u32 n, __u32 cells, __u64 interval,
						__u64 now)
{
	struct xrl_sum s = { 0, 0, 0, 0 };
	struct xrl_slot sl;
	__u64 blen;

	if (xrl_shape_check(n, interval) != XRL_SHAPE_OK || !xrl_cells_fit(n, cells))
		return s;
	blen = interval / n;
	if (now < blen)
		return s;
	xrl_slot_at(&sl, now - blen, blen, cells); /* the bucket before now's */
	xrl_ring_add(r, cells, n, &sl, &s);
	return s;
}

/* Empties every cell: a ring built for another window shape (a rule's, which has no base). */
static inline void xrl_ring_clear(struct xrl_ring *r, __u32 cells)
{
	__u64 *b = xrl_ring_blocks(r, cells);
	__u32 i;

	r->last = 0;
	r->seq = 0;
	if (xrl_ring_long(cells)) {
		for (i = 0; i < XRL_MAX_CELLS && i < cells; i++) {
			xrl_barrier_var(i); /* no memset: BPF has none */
			r->c[i].word = 0;
			b[i] = 0;
		}
		return;
	}
	for (i = 0; i < XRL_RING_LOOP && i < cells; i++) {
		xrl_barrier_var(i);
		r->c[i].word = 0;
		b[i] = 0;
	}
}

/* The same for a key's ring, shared by the CPUs: a long one's base too. */
static inline void xrl_ring_reset(struct xrl_ring *r, __u32 cells)
{
	xrl_ring_clear(r, cells);
	if (xrl_ring_long(cells)) {
		xrl_ring_base(r, cells)->tag = 0;
		xrl_ring_base(r, cells)->sum = 0;
	}
}

/*
 * Takes a shared ring for rule gen gen, *owner its gen word, when it holds
 * another: returns whether the caller, the one CPU that took it, must then
 * empty it (xrl_ring_reset). A ring never taken (gen 0: a new key's state)
 * is empty already and is not emptied: a CPU that sees the new gen counts
 * at once, and a reset after its count would lose that pass, letting the
 * window admit one packet more (two CPUs racing a new source's first
 * packets did, +1 in 2 runs of 37). A ring of another gen (a new window
 * shape) is emptied: a pass counted meanwhile by another CPU is lost, so
 * the first moment of a new shape may admit one more packet a CPU racing
 * there.
 */
static inline int xrl_ring_claim(__u32 *owner, __u32 gen)
{
	__u32 old = XRL_READ_ONCE(*owner);

	if (old == gen)
		return 0;
	return __sync_val_compare_and_swap(owner, old, gen) == old && old != 0;
}

/*
 * current(t) for a ring one CPU owns (a rule's figures), of a window of n
 * buckets: the cell of slot s, reset in place when it holds an older bucket.
 * NULL when it holds a newer one (time went backwards), or when s is an
 * interval or more before the ring's newest bucket: the event must not be
 * counted. (Sentinel's ring of n has that old bucket's slot holding a newer
 * one; the cell the ring keeps beside the window must not take it, or the
 * last whole interval, xrl_window_last_at, would count it.)
 */
static inline struct xrl_cell *xrl_current_at(struct xrl_ring *r, __u32 n, __u32 cells, const struct xrl_slot *s)
{
	struct xrl_cell *c;
	__u32 i = s->idx;
	__u64 w;

	xrl_barrier_var(i);
	if (i >= XRL_MAX_CELLS || i >= cells) /* for the verifier: a map sized at load holds cells of them */
		return (struct xrl_cell *)0;
	if (s->q + n <= r->last)
		return (struct xrl_cell *)0;
	c = &r->c[i];
	w = c->word;
	if (xrl_valid(r->last, s->q, w) && xrl_word_epoch(w) == s->epoch)
		return c;
	if (xrl_valid(r->last, s->q, w) && (int)(xrl_word_epoch(w) - s->epoch) > 0)
		return (struct xrl_cell *)0;
	if (r->last < s->q)
		r->last = s->q;
	c->word = xrl_word(s->epoch, 0);
	xrl_ring_blocks(r, cells)[i] = 0;
	return c;
}

/* current(t) of a ring of cells cells, n buckets over interval ns, one CPU owns. */
static inline struct xrl_cell *xrl_current(struct xrl_ring *r, __u32 n, __u32 cells, __u64 interval, __u64 t)
{
	struct xrl_slot s;

	xrl_slot_at(&s, t, interval / n, cells);
	return xrl_current_at(r, n, cells, &s);
}

/* sum(now) of a ring one CPU owns: refresh current(now), then add the live cells. */
static inline struct xrl_sum xrl_sum(struct xrl_ring *r, __u32 n, __u32 cells, __u64 interval, __u64 now)
{
	xrl_current(r, n, cells, interval, now);
	return xrl_window_at(r, n, cells, interval, now);
}

/*
 * Counts one packet in the cell current_at returned for slot s (a ring one
 * CPU owns, of cells cells); a full count stays full.
 */
static inline void xrl_cell_count(struct xrl_ring *r, __u32 cells, const struct xrl_slot *s, int blocked)
{
	__u32 i = s->idx;

	xrl_barrier_var(i);
	if (i >= XRL_MAX_CELLS || i >= cells)
		return;
	if (blocked)
		xrl_ring_blocks(r, cells)[i]++;
	else if (xrl_word_pass(r->c[i].word) != 0xffffffffU)
		r->c[i].word++;
}

/*
 * The decision: a threshold of T packets per interval blocks a packet when
 * the pass sum plus this packet would exceed T.
 */
static inline int xrl_over(__u64 pass_sum, __u64 threshold)
{
	return pass_sum + 1 > threshold;
}

/*
 * The same for a window that counts cost units a packet (a byte rate counts
 * the frame's length): over when the sum plus this packet's cost would
 * exceed T. A byte window over for a large frame may still have room for a
 * small one: room is T - sum, what a frame may still cost.
 */
static inline int xrl_over_cost(__u64 sum, __u64 cost, __u64 threshold)
{
	return sum + cost > threshold;
}

/*
 * Sentinel's warm-up (WarmUpController, cold factor 3): a window that is
 * cold passes threshold / 3, and its threshold climbs in a straight line to
 * the full threshold over period ns from start, the moment its warm-up began
 * (see the README for how this maps to Sentinel's token bucket). Computed in
 * whole milliseconds of the ramp: period is at most XRL_WARMUP_MAX_MS, so
 * the product below stays under 2^32 * 2^22. A start after now (another
 * CPU read a later clock) counts as the ramp's first moment. A start of 0
 * is a key that was busy before its rule had a warm-up (a rule changed in
 * place keeps its keys): it never cooled, so it is warm.
 */
#define XRL_COLD_FACTOR 3
#define XRL_WARMUP_MAX_MS 3600000ULL /* one hour */

static inline __u64 xrl_warm_threshold(__u64 threshold, __u64 period, __u64 start, __u64 now)
{
	__u64 cold = threshold / XRL_COLD_FACTOR, el_ms, p_ms;

	if (!period || !start)
		return threshold;
	if (now <= start)
		return cold;
	if (now - start >= period)
		return threshold;
	el_ms = (now - start) / 1000000ULL;
	p_ms = period / 1000000ULL;
	if (!p_ms)
		return threshold;
	return cold + (threshold - cold) * el_ms / p_ms;
}

/*
 * Whether a window whose newest bucket is full epoch last (of blen ns) has
 * been idle for a whole warm-up period at now: no packet counted in it from
 * the end of that bucket until now. A ring never used (last 0) is idle.
 */
static inline int xrl_warm_idle(__u64 last, __u64 blen, __u64 period, __u64 now)
{
	__u64 end = (last + 1) * blen;

	return !last || (now > end && now - end >= period);
}

enum xrl_verdict {
	XRL_PASSED = 0,	   /* passed and counted */
	XRL_OVER = 1,	   /* over the threshold: nothing counted; it stays over until the bucket ends */
	XRL_CONTENDED = 2, /* judged over after every try lost a race: nothing counted, not latched */
};

/*
 * A read that later reads may not pass: x86 keeps loads in order; elsewhere a
 * fully ordered atomic does it (BPF atomics that fetch are).
 */
#if defined(__x86_64__) || defined(__TARGET_ARCH_x86)
#define XRL_READ_ACQUIRE(x) XRL_READ_ONCE(x)
#else
#define XRL_READ_ACQUIRE(x) __sync_fetch_and_add(&(x), 0)
#endif

/* Takes cost passes (a packet's, or its bytes) back from cell c, only while it still holds bucket epoch. */
XRL_INLINE void xrl_take_back(struct xrl_cell *c, __u32 epoch, __u32 cost, int tries)
{
	__u64 w;
	int k;

	for (k = 0; k < tries; k++) {
		w = XRL_READ_ONCE(c->word);
		if (xrl_word_epoch(w) != epoch || xrl_word_pass(w) < cost)
			return;
		if (__sync_val_compare_and_swap(&c->word, w, w - cost) == w)
			return;
	}
}

/*
 * After passes were taken back from (or, by a carry, added to) the bucket
 * of epoch e of a long ring: the base that holds that bucket, or one being
 * written, no longer holds. (The taking back came first: a base written
 * from reads after the oseq it records has it.)
 */
XRL_INLINE void xrl_base_touch(struct xrl_ring *r, __u32 cells, __u32 e)
{
	struct xrl_base *b = xrl_ring_base(r, cells);
	__u64 t = XRL_READ_ACQUIRE(b->tag);

	if (t == XRL_BASE_BUSY || ((t & XRL_BASE_VALID) && (__u32)((__u32)(t >> 32) - e - 1) < 0x7fffffffU))
		__sync_fetch_and_add(&b->oseq, 1);
}

/* xrl_take_back from cell c of ring r (of cells cells), a long ring's base told. */
XRL_INLINE void xrl_take_back_ring(struct xrl_ring *r, __u32 cells, struct xrl_cell *c, __u32 epoch, __u32 cost,
				   int tries)
{
	xrl_take_back(c, epoch, cost, tries);
	if (xrl_ring_long(cells))
		xrl_base_touch(r, cells, epoch);
}

/*
 * Takes back a pass of cost xrl_reserve counted, when another rule (or the
 * rule's other rate) then blocked the packet: only from the bucket it was
 * counted in.
 */
XRL_INLINE void xrl_unreserve(struct xrl_ring *r, __u32 cells, const struct xrl_slot *s, __u32 cost, int tries)
{
	__u32 i = s->idx;

	xrl_barrier_var(i);
	if (i < XRL_MAX_CELLS && i < cells)
		xrl_take_back_ring(r, cells, &r->c[i], s->epoch, cost, tries);
}

#define XRL_LEASE_MAX 128 /* passes a CPU leases at most for a key's later packets (xrl_reserve_lease) */
#define XRL_LEASE_SHARE 4 /* ... and at most this fraction of the room its packet leaves */
/*
 * ... and at most this fraction of the threshold: a lease is a small part of
 * any window, and a window of fewer than 256 packets leases nothing. (What a
 * lease has not spent, a CPU that finds the window full takes back: bpf/lease.h.)
 */
#define XRL_LEASE_PART 256

/*
 * The most a shared ring's cell counts: 2^29 under 2^32, so that the adds
 * of every CPU in flight at once (at most 8192 CPUs, each adding at most a
 * 64 KiB frame, or a packet and its lease) cannot carry a count into the
 * cell's epoch before they are judged and taken back. Only a window of more
 * than 3,758,096,383 packets or bytes meets it, in one bucket.
 */
#define XRL_CELL_MAX (0xffffffffU - (1U << 29))

/* A pass xrl_reserve_lease counted and committed, got passes leased with it. */
XRL_INLINE int xrl_reserved(__u32 *lease, __u32 got)
{
	if (lease)
		*lease = got;
	return XRL_PASSED;
}

/*
 * A latch's word (struct xrl_latch.word): its count is the low half, an
 * over latch's blocks or a lease's passes left, and the high half a serial
 * the CPU moves on with every new tenant of the slot (a lease, a candidate
 * for one, an over latch, the sketch's), so that another CPU taking back a
 * lease's passes (xrl_lease_revoke) can tell with one compare-and-swap that
 * the word is still that lease's: with a lease alone moving it, the holder
 * could return the lease, latch the key over in the slot and count as many
 * blocks as the lease had left, and a swap that read the lease before took
 * the same passes back again (test_lease_revoke_aba). Its operations are
 * here, where the unit tests race them. (The serial comes round after 2^32
 * tenants.)
 */
#define XRL_LATCH_SERIAL 0xffffffff00000000ULL
static inline __u32 xrl_latch_count(__u64 word)
{
	return (__u32)word;
}

/* The word of a new tenant of the slot, with count n. */
XRL_INLINE __u64 xrl_lword_next(__u64 w, __u32 n)
{
	return ((w & XRL_LATCH_SERIAL) + (1ULL << 32)) | n;
}

/* A lease of n passes made in the slot: published last, by an exchange (a full barrier). */
XRL_INLINE void xrl_lword_lease(__u64 *word, __u32 n)
{
	/* No passes (a candidate): nothing for another CPU to take, so no barrier. */
	if (n)
		__sync_lock_test_and_set(word, xrl_lword_next(*word, n));
	else
		*word = xrl_lword_next(*word, 0);
}

/* An over latch made in the slot: no blocks yet. */
XRL_INLINE void xrl_lword_over(__u64 *word)
{
	*word = xrl_lword_next(*word, 0);
}

/* Spends one pass of a lease: whether one was left (else another CPU took them back, or none are). */
XRL_INLINE int xrl_lword_spend(__u64 *word)
{
	__u64 w = *word;

	return xrl_latch_count(w) && __sync_val_compare_and_swap(word, w, w - 1) == w;
}

/*
 * Gives back a pass a lease (its word) paid for a packet another rule then
 * dropped: to the lease, while it has passes left. With none left (the spend
 * took the last, or another CPU took the rest back, and only those:
 * xrl_lword_take) the pass is counted in the lease's bucket s of ring r
 * only, and is taken back from there; r NULL: the state it was counted in is
 * gone, and nothing is.
 */
XRL_INLINE void xrl_lease_unspend(__u64 *word, struct xrl_ring *r, __u32 cells, const struct xrl_slot *s, int tries)
{
	__u64 w = *word;

	if (xrl_latch_count(w) && __sync_val_compare_and_swap(word, w, w + 1) == w)
		return;
	if (r)
		xrl_unreserve(r, cells, s, 1, tries);
}

/* The holder takes back what its lease has left, in one exchange: the passes it took. */
XRL_INLINE __u32 xrl_lword_return(__u64 *word)
{
	return xrl_latch_count(__sync_lock_test_and_set(word, *word & XRL_LATCH_SERIAL));
}

/* Another CPU reads the word, with a full barrier before it reads the fields the word goes with. */
XRL_INLINE __u64 xrl_lword_peek(__u64 *word)
{
	return __sync_val_compare_and_swap(word, 0, 0);
}

/* ... and takes back what the lease it read as w has left, if the word is still w: the passes it took. */
XRL_INLINE __u32 xrl_lword_take(__u64 *word, __u64 w)
{
	return __sync_val_compare_and_swap(word, w, w & XRL_LATCH_SERIAL) == w ? xrl_latch_count(w) : 0;
}

/*
 * sum(now) + 1 > T, and when the packet passes, its count in the current
 * bucket, on a ring every CPU shares, with no surplus ever:
 *  - the count is an atomic add to the word that holds the bucket's epoch
 *    and pass count (a cell moving to a new bucket is moved first, empty,
 *    by a compare-and-swap), made only while the sum read allows it, and
 *    kept only while the count the add returns, plus the other cells,
 *    still does;
 *  - the sum spans several cells, so the pass is then committed by an add
 *    to the ring's seq, read before the cells: if another CPU committed in
 *    between (into any cell), the other cells are read again after the
 *    commit and the count is kept only if they and what the add returned
 *    still allow it, else taken back and the packet judged again.
 * So every pass was judged against every pass committed before it: of the
 * passes of any window, the last to commit of those that came last into
 * their cells saw them all. No two CPUs can pass the same last packet of a
 * window, even from two sides of a bucket boundary. And no CPU loses to
 * others forever: an add cannot fail, so a round is lost only to a later
 * bucket (a cell, or the ring's last, moved on under this CPU's reads by
 * one whose clock read later), or when the window had no room for every
 * pass being counted at that moment (a count the window then refuses is
 * taken back). A cell already at a later bucket than ours means another CPU
 * (or this one, earlier) read the clock later: time is at least that, so we
 * judge and count as of the newest bucket in the ring (*s is moved to it).
 * After tries rounds lost the packet is judged over (XRL_CONTENDED). With
 * check_only the verdict is given and nothing is written. snap: room for
 * XRL_MAX_CELLS words (the program's stack has no room for them beside its
 * caller's). The ring has cells cells (more than n: xrl_cells_fit), s is a
 * slot of cells.
 *
 * cost: what the packet counts, 1 for a packet rate, the frame's length for
 * a byte rate; a cell counts at most XRL_CELL_MAX, so a cell that cannot
 * take the cost is over. When over, *room (if given) is what a packet could
 * still cost and pass: a byte window over for this frame may admit a
 * smaller one.
 *
 * A cell moved to a new bucket is moved after the ring's last, so that no
 * CPU takes it for an old cell from 2^31 buckets ago (xrl_valid).
 *
 * lease (xrl_reserve_lease): on the way in, how many passes more the caller
 * would take for later packets; on a pass, how many it took, counted with
 * the packet's in the same add: at most a XRL_LEASE_SHARE-th of
 * the room the packet leaves and a XRL_LEASE_PART-th of the threshold, so the
 * window's sum never exceeds threshold with them, and other CPUs keep most of
 * the room.
 */
/*
 * Writes the base of a long ring for bucket s, where this CPU has just
 * committed a pass judged on reads no other commit came between: no pass is
 * committed in an older bucket from now on (see struct xrl_base). The cells
 * are read again after oseq, so a pass taken back before is not in the sum
 * and one taken back after unmakes the base. One CPU writes it; the others
 * judge on the cells meanwhile.
 */
XRL_INLINE void xrl_base_write(struct xrl_ring *r, __u32 n, __u32 cells, const struct xrl_slot *s)
{
	struct xrl_base *b = xrl_ring_base(r, cells);
	__u64 t = XRL_READ_ONCE(b->tag), o, sum = 0, w, fresh;
	__u32 i, e, E = s->epoch, le;

	/* Being written, or written for a later bucket, or for this one and still holding. */
	if (t == XRL_BASE_BUSY)
		return;
	if ((t & XRL_BASE_VALID) && ((int)((__u32)(t >> 32) - E) > 0 ||
				     ((__u32)(t >> 32) == E && !((XRL_READ_ONCE(b->oseq) ^ t) & XRL_BASE_OSEQ))))
		return;
	if (__sync_val_compare_and_swap(&b->tag, t, XRL_BASE_BUSY) != t)
		return;
	o = XRL_READ_ACQUIRE(b->oseq);
	le = (__u32)XRL_READ_ONCE(r->last);
	fresh = xrl_ring_fresh(XRL_READ_ONCE(r->last), s->q);
	for (i = 0; i < XRL_MAX_CELLS && i < cells; i++) {
		w = XRL_READ_ONCE(r->c[i].word);
		e = xrl_word_epoch(w);
		sum += xrl_word_pass(w) * (xrl_lt(0, i ^ s->idx) & xrl_lt(0, e | xrl_word_pass(w)) & fresh &
					   xrl_lt((__u32)(le - e), 0x80000000U) & xrl_lt((__u32)(E - e), n));
	}
	b->sum = sum;
	__sync_lock_test_and_set(&b->tag, (__u64)E << 32 | XRL_BASE_VALID | (o & XRL_BASE_OSEQ));
}

XRL_INLINE int xrl_reserve_core(struct xrl_ring *r, __u32 n, __u32 cells, __u64 interval, struct xrl_slot *s,
				__u64 threshold, __u32 cost, int tries, int check_only, __u64 *snap, __u64 *room,
				__u32 *lease, const __u32 maxc)
{
	__u64 sum, w, seq, last, fresh, valid, blen = interval / n, hold = 0;
	__u32 i, E, e, cnt, newest, im, le, take;
	struct xrl_cell *c;
	int k;

	/* One round more than tries, for a count held to be judged again after its commit. */
	for (k = 0; k <= tries; k++) {
		if (k == tries && !hold)
			break;
		/*
		 * seq, then the cells, then last: a cell another CPU moved is in
		 * the snapshot only after that CPU moved last (xrl_valid) and,
		 * once committed, after it moved seq.
		 */
		seq = XRL_READ_ACQUIRE(r->seq);
		for (i = 0; i < maxc && i < cells; i++)
			snap[i] = XRL_READ_ONCE(r->c[i].word);
		last = XRL_READ_ONCE(r->last);
		fresh = xrl_ring_fresh(last, s->q);
		le = (__u32)last;
		E = s->epoch;
		/*
		 * The newest bucket in the ring, and then the other live cells,
		 * with no branch in the loops (the verifier walks every branch of
		 * every iteration): each test is a 0 or 1 from a borrow (xrl_lt).
		 */
		newest = E;
		im = s->idx;
		for (i = 0; i < maxc && i < cells; i++) {
			__u64 newer;

			w = snap[i];
			e = xrl_word_epoch(w);
			/* valid (not after last), and after newest: (e - newest) mod 2^32 in 1 .. 2^31 - 1 */
			newer = xrl_lt(0, e | xrl_word_pass(w)) & fresh & xrl_lt((__u32)(le - e), 0x80000000U) &
				xrl_lt((__u32)(e - newest - 1), 0x7fffffffU);
			newest += (__u32)((e - newest) * newer);
			im += (__u32)((i - im) * newer);
		}
		if (hold && newest != E) {
			/* Our count, committed, is no longer in the newest bucket: back, and judge again there. */
			xrl_unreserve(r, cells, s, (__u32)hold, tries);
			hold = 0;
			continue;
		}
		/* The slot moves on to the newest bucket (by 0 when it is the newest), with no branch. */
		s->q += (__u32)(newest - E);
		s->start += (__u64)(newest - E) * blen;
		s->end = s->start + blen;
		s->idx = im;
		s->epoch = newest;
		E = newest;
		sum = 0;
		for (i = 0; i < maxc && i < cells; i++) {
			w = snap[i];
			e = xrl_word_epoch(w);
			sum += xrl_word_pass(w) * (xrl_lt(0, i ^ s->idx) & xrl_lt(0, e | xrl_word_pass(w)) & fresh &
						   xrl_lt((__u32)(le - e), 0x80000000U) & xrl_lt((__u32)(E - e), n));
		}
		if (hold) {
			/*
			 * Another CPU committed between our reads and our commit: the
			 * other cells read after it, and what our add returned, decide.
			 */
			if (sum + (hold >> 32) + (__u32)hold <= threshold)
				return xrl_reserved(lease, (__u32)hold - cost);
			xrl_unreserve(r, cells, s, (__u32)hold, tries);
			hold = 0;
			continue;
		}
		i = s->idx;
		xrl_barrier_var(i);
		if (i >= XRL_MAX_CELLS || i >= cells)
			return XRL_OVER;
		c = &r->c[i];
		w = snap[i];
		e = xrl_word_epoch(w);
		valid = xrl_lt(0, e | xrl_word_pass(w)) & fresh & xrl_lt((__u32)(le - e), 0x80000000U);
		if (valid && (int)(e - E) > 0)
			continue; /* moved on since our clock read: never move a cell back */
		cnt = valid && e == E ? xrl_word_pass(w) : 0;
		/* A pass count that cannot take the cost: over. */
		if (cnt > XRL_CELL_MAX - cost || xrl_over_cost(sum + cnt, cost, threshold)) {
			if (room) {
				__u64 cell = cnt < XRL_CELL_MAX ? XRL_CELL_MAX - cnt : 0;

				*room = sum + cnt < threshold ? threshold - (sum + cnt) : 0;
				*room = *room < cell ? *room : cell;
			}
			return XRL_OVER;
		}
		if (check_only)
			return XRL_PASSED;
		take = cost;
		if (lease) {
			/* With no branch, as in the loops above: the least of the share, the part, what is asked. */
			__u64 used = sum + cnt + cost, cap = threshold / XRL_LEASE_PART, want = *lease, part;

			part = ((threshold - used) & (0 - xrl_lt(used, threshold))) / XRL_LEASE_SHARE;
			part -= (part - cap) * xrl_lt(cap, part);
			part -= (part - want) * xrl_lt(want, part);
			part *= xrl_lt(cnt + cost + part, XRL_CELL_MAX + 1ULL); /* the cell's count stays in bounds */
			take += (__u32)part;
		}
		if (!(valid && e == E)) {
			/* A cell moving to a new bucket: last first (see xrl_valid), then the cell, empty. */
			if (!xrl_last_advance(r, s->q, tries))
				continue;
			/* This CPU moved the cell to bucket E: its blocks start over. */
			if (__sync_val_compare_and_swap(&c->word, w, xrl_word(E, 0)) == w)
				xrl_ring_blocks(r, cells)[i] = 0;
		}
		/* An add, which no other CPU can make fail (nor carry into the epoch: XRL_CELL_MAX). */
		w = __sync_fetch_and_add(&c->word, (__u64)take);
		cnt = xrl_word_pass(w); /* ours is counted after these */
		if (xrl_word_epoch(w) != E || sum + cnt + take > threshold) {
			/* The cell moved on, or others counted in it since our read: back, judge again. */
			xrl_take_back_ring(r, cells, c, xrl_word_epoch(w), take, tries);
			continue;
		}
		if (__sync_fetch_and_add(&r->seq, 1) == seq) {
			if (xrl_ring_long(cells))
				xrl_base_write(r, n, cells, s);
			return xrl_reserved(lease, take - cost);
		}
		/* Another CPU committed since our reads: ours is held, judged again on fresh reads of the others. */
		hold = (__u64)cnt << 32 | take;
	}
	return XRL_CONTENDED;
}

/* The reservation of a short ring (or any, in userspace: the unit tests). */
XRL_INLINE int xrl_reserve_lease(struct xrl_ring *r, __u32 n, __u32 cells, __u64 interval, struct xrl_slot *s,
				 __u64 threshold, __u32 cost, int tries, int check_only, __u64 *snap, __u64 *room,
				 __u32 *lease)
{
	return xrl_reserve_core(r, n, cells, interval, s, threshold, cost, tries, check_only, snap, room, lease,
				XRL_RING_LOOP);
}

/* The reservation of a long ring when its base does not decide (xrl_reserve_fast): every cell read. */
XRL_INLINE int xrl_reserve_long(struct xrl_ring *r, __u32 n, __u32 cells, __u64 interval, struct xrl_slot *s,
				__u64 threshold, __u32 cost, int tries, int check_only, __u64 *snap, __u64 *room,
				__u32 *lease)
{
	return xrl_reserve_core(r, n, cells, interval, s, threshold, cost, tries, check_only, snap, room, lease,
				XRL_MAX_CELLS);
}

#define XRL_SLOW (-1) /* xrl_reserve_fast: the base does not decide, xrl_reserve_long does */

/*
 * xrl_reserve_lease on a long ring whose base holds for slot s's bucket,
 * the ring's newest (its last): the sum is the base and the bucket's cell,
 * so a packet reads those two and counts by one add, as a short ring's
 * reservation does, and commits by an add to seq. A commit another came
 * between is kept while the bucket is still the newest and the base still
 * holds (the other cells have gained no pass: a pass committed in another
 * bucket came after a later bucket's was, or unmade the base). XRL_SLOW
 * when the base does not decide: nothing was counted.
 */
XRL_INLINE int xrl_reserve_fast(struct xrl_ring *r, __u32 cells, const struct xrl_slot *s, __u64 threshold, __u32 cost,
				int tries, int check_only, __u64 *room, __u32 *lease)
{
	struct xrl_base *b = xrl_ring_base(r, cells);
	__u64 seq, t, base, w, take, hold;
	__u32 i = s->idx, E = s->epoch, cnt;
	struct xrl_cell *c;

	seq = XRL_READ_ACQUIRE(r->seq);
	t = XRL_READ_ACQUIRE(b->tag);
	base = XRL_READ_ACQUIRE(b->sum);
	if (!(t & XRL_BASE_VALID) || (__u32)(t >> 32) != E || XRL_READ_ACQUIRE(b->tag) != t ||
	    ((XRL_READ_ONCE(b->oseq) ^ t) & XRL_BASE_OSEQ) || XRL_READ_ONCE(r->last) != s->q)
		return XRL_SLOW;
	xrl_barrier_var(i);
	if (i >= XRL_MAX_CELLS || i >= cells)
		return XRL_SLOW;
	c = &r->c[i];
	w = XRL_READ_ONCE(c->word);
	if (xrl_word_epoch(w) != E)
		return XRL_SLOW; /* the bucket's cell is being moved to it */
	cnt = xrl_word_pass(w);
	if (cnt > XRL_CELL_MAX - cost || xrl_over_cost(base + cnt, cost, threshold)) {
		if (room) {
			__u64 cell = cnt < XRL_CELL_MAX ? XRL_CELL_MAX - cnt : 0;

			*room = base + cnt < threshold ? threshold - (base + cnt) : 0;
			*room = *room < cell ? *room : cell;
		}
		return XRL_OVER;
	}
	if (check_only)
		return XRL_PASSED;
	take = cost;
	if (lease) {
		/* As xrl_reserve_lease takes it. */
		__u64 used = base + cnt + cost, cap = threshold / XRL_LEASE_PART, want = *lease, part;

		part = ((threshold - used) & (0 - xrl_lt(used, threshold))) / XRL_LEASE_SHARE;
		part -= (part - cap) * xrl_lt(cap, part);
		part -= (part - want) * xrl_lt(want, part);
		part *= xrl_lt(cnt + cost + part, XRL_CELL_MAX + 1ULL);
		take += part;
	}
	w = __sync_fetch_and_add(&c->word, take);
	hold = xrl_word_epoch(w) == E && base + xrl_word_pass(w) + take <= threshold;
	if (hold && __sync_fetch_and_add(&r->seq, 1) != seq)
		hold = XRL_READ_ONCE(r->last) == s->q && XRL_READ_ACQUIRE(b->tag) == t &&
		       !((XRL_READ_ONCE(b->oseq) ^ t) & XRL_BASE_OSEQ);
	if (!hold) {
		xrl_take_back_ring(r, cells, c, xrl_word_epoch(w), (__u32)take, tries);
		return XRL_SLOW;
	}
	return xrl_reserved(lease, (__u32)(take - cost));
}

/* xrl_reserve_lease with no lease. */
static inline int xrl_reserve(struct xrl_ring *r, __u32 n, __u32 cells, __u64 interval, struct xrl_slot *s,
			      __u64 threshold, __u32 cost, int tries, int check_only, __u64 *snap, __u64 *room)
{
	return xrl_reserve_lease(r, n, cells, interval, s, threshold, cost, tries, check_only, snap, room, NULL);
}

/*
 * Counts blocks in the cell of bucket s: with move, moved there first when it
 * holds an older bucket; nothing when it holds another (those blocks belong
 * to a bucket the ring no longer keeps).
 */
XRL_INLINE void xrl_block_add(struct xrl_ring *r, __u32 cells, const struct xrl_slot *s, __u64 count, int move)
{
	struct xrl_cell *c;
	__u64 w, last = XRL_READ_ONCE(r->last);
	__u32 i = s->idx;

	xrl_barrier_var(i);
	if (i >= XRL_MAX_CELLS || i >= cells)
		return;
	c = &r->c[i];
	w = XRL_READ_ONCE(c->word);
	if (move && (!xrl_valid(last, s->q, w) || (int)(s->epoch - xrl_word_epoch(w)) > 0) &&
	    xrl_last_advance(r, s->q, 4)) {
		if (__sync_val_compare_and_swap(&c->word, w, xrl_word(s->epoch, 0)) == w)
			xrl_ring_blocks(r, cells)[i] = 0;
		w = XRL_READ_ONCE(c->word);
	}
	if (count && xrl_word_epoch(w) == s->epoch)
		__sync_fetch_and_add(&xrl_ring_blocks(r, cells)[i], count);
}

/*
 * Adds pass passes and block blocks counted elsewhere into the bucket of full
 * epoch q of ring r (cells cells), as another CPU counting there would: the
 * cell moved to that bucket first when it holds an older one (after the
 * ring's last: xrl_block_add), the passes added by a compare-and-swap that
 * holds only while the cell keeps that bucket, and the ring's seq moved on so
 * that a reservation read before them is judged again (xrl_reserve_lease). A
 * cell at a newer bucket keeps it: q's has left every window. based: a key's
 * ring, whose base (a long ring's) no longer holds that bucket. The counts of
 * the old program of a replace, made after the fill, go into the new one's
 * rings so while it runs (bpf/carry.bpf.c). 0 when other CPUs kept moving the
 * cell for tries rounds: nothing was added.
 */
XRL_INLINE int xrl_carry_add(struct xrl_ring *r, __u32 cells, __u64 q, __u64 pass, __u64 block, int tries, int based)
{
	struct xrl_slot s = { .q = q, .idx = (__u32)(q % cells), .epoch = (__u32)q };
	struct xrl_cell *c;
	__u32 i = s.idx, p;
	__u64 w;
	int k;

	xrl_barrier_var(i);
	if (i >= XRL_MAX_CELLS || i >= cells)
		return 1;
	c = &r->c[i];
	xrl_block_add(r, cells, &s, 0, 1);
	for (k = 0; k < tries; k++) {
		w = XRL_READ_ONCE(c->word);
		if (xrl_word_epoch(w) != s.epoch)
			return 1;
		p = xrl_word_pass(w);
		if (p < XRL_CELL_MAX) /* a full count stays full */
			p = pass < XRL_CELL_MAX - p ? p + (__u32)pass : XRL_CELL_MAX;
		if (__sync_val_compare_and_swap(&c->word, w, xrl_word(s.epoch, p)) == w)
			break;
	}
	if (k == tries)
		return 0;
	xrl_block_add(r, cells, &s, block, 0);
	if (based && xrl_ring_long(cells) && pass)
		xrl_base_touch(r, cells, s.epoch);
	__sync_fetch_and_add(&r->seq, 1);
	return 1;
}

#endif /* XRL_WINDOW_H */
