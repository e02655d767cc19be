/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The sketch: where a new source is judged once the cap on new per-source
 * states (--new-keys) is spent, so that a spoofed flood of fresh addresses
 * can neither churn the state table nor starve legitimate newcomers. Plain
 * inline C, compiled into the XDP program and the unit tests.
 *
 * A count-min sketch (Cormode and Muthukrishnan; cloudflare/rakelimit's
 * src/countmin.h keeps one for the same reason) of XRL_SKETCH_DEPTH rows of
 * `width` cells, each cell a Sentinel window: two buckets of half the rule's
 * interval, each one 32-bit word of epoch and pass count (xrl_sketch_word),
 * and the interval they count for, 16 bytes in all. A key (rule, port and
 * masked source: the hash covers the rule) maps to one cell a row. Its
 * estimate is the least of its cells' window sums; the packet passes only
 * while that estimate is under the rule's threshold, and a pass counts in
 * every one of its cells (the standard update: the conservative one, which
 * counts in the cells at the minimum only, loses counts when CPUs race; see
 * xrl_sketch_judge).
 *
 * Two rows, not more: the cost of a new source is the cache misses on its
 * cells and the atomic adds, one of each a row, and for the same memory two
 * rows are twice as wide as four, so a flood of light fake sources
 * saturates them at twice the rate. More rows only help against many heavy
 * sources past the cap, and a heavy source that comes back gets a state of
 * its own as soon as the cap lets it (then the sketch no longer sees it).
 *
 * Bounds (T the threshold, I the interval, d the depth, w the width):
 *  - Never under: every cell of a key holds at least the key's own passes
 *    in the window (each pass adds one to each, with an atomic add that
 *    cannot fail), so a heavy new source passes at most T a window: held at
 *    its limit, plus one packet for each other CPU that read the cells
 *    before this CPU's count landed. (The cells are shared, counted with
 *    atomics but judged on a read: no compare-and-swap of a sequence as the
 *    exact path makes, which would serialize the flood.)
 *  - Over by the background: a key is held at no less than T minus the
 *    other keys' passes in its least loaded cell. A newcomer is wrongly
 *    blocked only when all d of its cells are at T from other traffic.
 *    With a flood of R new sources a second spread over w columns, a cell
 *    takes at most L = R * I / w passes a window, about Poisson(L), so a newcomer that has passed f is blocked
 *    with probability at most P(Poisson(L) >= T - f)^d. The width makes
 *    fairness possible at all: once L reaches T every cell saturates and no
 *    depth helps. The default (d 2, w 65536, 2 MiB) keeps L = 15 for 1M new
 *    sources a second against a 1 s window: for T = 100 the bound is below
 *    10^-50; it saturates at R = T * w / I, 6.5M a second for T = 100.
 *    Against H heavy sources past the cap (each over T), a newcomer is
 *    blocked with probability about (H / w)^d: 1% at H = w / 10.
 *  - Counts are 20 bits: a key whose estimate reaches XRL_SKETCH_FULL
 *    (1048319) is over whatever its threshold, so a new source past the cap
 *    passes at most that many a window in the sketch.
 *  - The window is Sentinel's with two buckets over the rule's interval,
 *    whatever the rule's own bucket count: at most T passes in any two
 *    adjacent half intervals.
 *
 * Rules of different shapes share the cells: the hash includes the rule,
 * and each cell records the interval it counts for. A cell of another
 * interval gives no estimate: while it is live for its own window it counts
 * as full (it can only block, never let a key past its limit), and once its
 * window has passed the next pass takes it over. So a rule's heavy source is
 * held at its limit even when another rule's flood lands in its cells; two
 * rules of different intervals only raise each other's false blocks, as
 * collisions do. Bucket counts do not matter: every cell has two buckets, so
 * a cell is 16 bytes whatever the rules (a ring per rule's bucket count
 * would be 136 bytes a cell for 16 buckets).
 *
 * Epochs are 12 bits of half intervals: a cell left alone for a multiple of
 * 4096 buckets (34 minutes of a 1 s window) looks live again, which can
 * only over-count (block), and only when every one of a key's cells does.
 *
 * Time is the coarse clock (the time of the last tick, at most a tick behind
 * the precise one, the same on every CPU): a flood of new sources then costs
 * no precise clock read, which was a fifth of its path. The bounds above
 * hold in that clock's windows: each window is a real one shifted by less
 * than a tick, so a heavy source passes at most T in any two adjacent half
 * intervals of the coarse clock.
 */
#ifndef XRL_SKETCH_H
#define XRL_SKETCH_H

#include "xrl_window.h"

#define XRL_SKETCH_DEPTH 2
#define XRL_SKETCH_DEFAULT_WIDTH 65536
#define XRL_SKETCH_MIN_WIDTH 64
#define XRL_SKETCH_MAX_WIDTH (1U << 22)
/* Compare-and-swap attempts on a cell's word before its count is given up (an under-count by one). */
#define XRL_SKETCH_TRIES 2
/* A bucket word: a 12-bit epoch (of half intervals, modulo 4096) and a 20-bit pass count. */
#define XRL_SKETCH_EPOCH_BITS 12
#define XRL_SKETCH_EPOCH_MASK ((1U << XRL_SKETCH_EPOCH_BITS) - 1)
#define XRL_SKETCH_PASS_BITS 20
/* A key whose estimate reaches this is over whatever its threshold: a count never carries into the epoch. */
#define XRL_SKETCH_FULL ((1U << XRL_SKETCH_PASS_BITS) - 1 - 256)

struct xrl_sketch_cell {
	__u32 interval_ms; /* the window of the rules that count here, in ms (xrl_sketch_tag); 0: never used */
	__u32 w[2];	   /* its two half-interval buckets: epoch << 20 | passes (xrl_sketch_word) */
	__u32 pad;
};
_Static_assert(sizeof(struct xrl_sketch_cell) == 16, "xrl_sketch_cell layout");

/* A 64-bit hash of the key's bytes (whole words): multiply and mix, then murmur3's finalizer. */
static inline __u64 xrl_sketch_mix(__u64 h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/*
 * The column of a key's hash h in row `row` of a sketch `width` wide (a power
 * of 2, at most 2^22): one mix gives two rows their columns, from its two
 * halves, so the rows hash apart for the price of one mix.
 */
static inline __u32 xrl_sketch_col(__u64 h, __u32 row, __u32 width)
{
	return (__u32)(xrl_sketch_mix(h + (row / 2 + 1) * 0x9e3779b97f4a7c15ULL) >> (32 * (row & 1))) & (width - 1);
}

/*
 * What a cell records of a rule's interval: whole ms (the grammar's windows
 * are whole ms, from 1 ms to an hour). The sketch's window is this many ms.
 */
static inline __u32 xrl_sketch_tag(__u64 interval)
{
	__u64 ms = interval / 1000000ULL;

	return ms ? (__u32)ms : 1;
}

/* The sketch's bucket length for a window of interval ns: half of it, in whole ms as the cell records it. */
static inline __u64 xrl_sketch_blen(__u64 interval)
{
	return (__u64)xrl_sketch_tag(interval) * 500000ULL;
}

/* The epoch of the bucket that holds t (the word keeps its low 12 bits). */
static inline __u32 xrl_sketch_epoch(__u64 t, __u64 interval)
{
	return (__u32)(t / xrl_sketch_blen(interval));
}

static inline __u32 xrl_sketch_word(__u32 epoch, __u32 pass)
{
	return (epoch & XRL_SKETCH_EPOCH_MASK) << XRL_SKETCH_PASS_BITS | pass;
}

static inline __u32 xrl_sketch_word_epoch(__u32 w)
{
	return w >> XRL_SKETCH_PASS_BITS;
}

static inline __u32 xrl_sketch_word_pass(__u32 w)
{
	return w & ((1U << XRL_SKETCH_PASS_BITS) - 1);
}

/* How far bucket E is past epoch e, modulo the word's 4096 epochs. */
static inline __u32 xrl_sketch_age(__u32 E, __u32 e)
{
	return (E - e) & XRL_SKETCH_EPOCH_MASK;
}

/* A bucket word's passes when it counts in the window whose newest bucket is E; 0 otherwise. */
static inline __u32 xrl_sketch_word_sum(__u32 w, __u32 E)
{
	/*
	 * E and E - 1 are the window; E + 1 (same slot as E - 1) is a bucket a
	 * CPU that read the clock later moved the cell to: count it too.
	 */
	return w && xrl_sketch_age(E + 1, xrl_sketch_word_epoch(w)) < 3 ? xrl_sketch_word_pass(w) : 0;
}

/* A cell's window sum at bucket E. */
static inline __u64 xrl_sketch_cell_sum(const struct xrl_sketch_cell *c, __u32 E)
{
	return (__u64)xrl_sketch_word_sum(XRL_READ_ONCE(c->w[0]), E) + xrl_sketch_word_sum(XRL_READ_ONCE(c->w[1]), E);
}

/* What a cell is to a key of a rule of some interval (see xrl_sketch_cell_est). */
enum xrl_sketch_kind {
	XRL_SKETCH_OWN = 0, /* counts for this interval */
	XRL_SKETCH_UNUSED,  /* never used: none of the key's passes are there */
	XRL_SKETCH_BUSY,    /* another interval's, whose window still counts: no estimate, full */
	XRL_SKETCH_STALE,   /* another interval's, whose window has passed: to be taken over */
};

/*
 * What a cell holds for a key of a rule with this interval at now (bucket E),
 * and *kind: an own cell's window sum; 0 for a cell never used; threshold
 * for a cell of another interval while its window lasts (it can only block).
 * A stale cell of another interval may have been busy while the key passed,
 * so the caller estimates it by the key's other cells (xrl_sketch_judge).
 */
static inline __u64 xrl_sketch_cell_est(const struct xrl_sketch_cell *c, __u64 interval, __u64 threshold, __u64 now,
					__u32 E, int *kind)
{
	__u32 ci = XRL_READ_ONCE(c->interval_ms);

	if (ci == xrl_sketch_tag(interval)) {
		*kind = XRL_SKETCH_OWN;
		return xrl_sketch_cell_sum(c, E);
	}
	if (!ci) {
		*kind = XRL_SKETCH_UNUSED;
		return 0;
	}
	if (xrl_sketch_cell_sum(c, xrl_sketch_epoch(now, (__u64)ci * 1000000ULL))) {
		*kind = XRL_SKETCH_BUSY;
		return threshold;
	}
	*kind = XRL_SKETCH_STALE;
	return 0;
}

/*
 * Counts a pass in a cell at bucket E. An own cell takes one more, by an
 * atomic add that cannot fail (a compare-and-swap that gives up would lose
 * a count, and with it the bound). A cell never used, or stale, is taken
 * over for this interval and counts at least floor (see xrl_sketch_judge);
 * if another interval's key took it first, it is busy and left alone.
 */
static inline void xrl_sketch_cell_add(struct xrl_sketch_cell *c, __u64 interval, __u32 E, int kind, __u64 floor)
{
	__u32 tag = xrl_sketch_tag(interval), ci, w, e, n, i = E & 1, k;

	if (kind != XRL_SKETCH_OWN) {
		ci = XRL_READ_ONCE(c->interval_ms);
		if (ci != tag && __sync_val_compare_and_swap(&c->interval_ms, ci, tag) == ci && ci) {
			/* The other slot's bucket is in the old interval's epochs. */
			w = XRL_READ_ONCE(c->w[i ^ 1]);
			__sync_val_compare_and_swap(&c->w[i ^ 1], w, 0);
		}
		if (XRL_READ_ONCE(c->interval_ms) != tag)
			return;
	}
	for (k = 0; k < XRL_SKETCH_TRIES; k++) {
		w = XRL_READ_ONCE(c->w[i]);
		e = xrl_sketch_word_epoch(w);
		if (kind == XRL_SKETCH_OWN && w && xrl_sketch_age(e, E) < 2048) {
			/* E, or a later bucket a CPU with a later clock read moved it to: count there. */
			__sync_fetch_and_add(&c->w[i], 1);
			return;
		}
		/* An older bucket (or the old interval's): this pass starts E, at floor at least. */
		n = kind == XRL_SKETCH_OWN || xrl_sketch_age(E, e) ? 1 : xrl_sketch_word_pass(w) + 1;
		if (n < floor)
			n = floor < XRL_SKETCH_FULL ? (__u32)floor : XRL_SKETCH_FULL;
		if (__sync_val_compare_and_swap(&c->w[i], w, xrl_sketch_word(E, n)) == w)
			return;
	}
}

/*
 * The sketch's verdict on a key whose d cells are cell[] (one a row), for a
 * rule of this interval and threshold, at now: XRL_PASSED (and counted,
 * unless check_only) while the estimate is under the threshold; XRL_OVER
 * when it is not, so that the key stays over until the bucket ends;
 * XRL_CONTENDED when a cell of another interval made it over, which may end
 * sooner (not to be latched). *est gets the estimate.
 *
 * Every pass counts in every cell the key can count in (the standard update,
 * not the conservative one: under races between CPUs the conservative update
 * lost counts in the cells above the minimum, and a key passed up to 66%
 * over its limit in tests/unit/test_sketch.c). So each own cell holds at
 * least the key's passes in the window, and so does the estimate: the least
 * of the own cells, the unused ones (0: the key never passed there), and the
 * busy ones (the threshold). A stale cell of another interval may have been
 * busy while the key passed: it is estimated, and taken over, at the least
 * of the key's own cells (an upper bound of its passes), or 0 when it has
 * none (then it has passed nothing in the window: its passes stay in its own
 * cells, which no other interval takes over while they count).
 */
static inline int xrl_sketch_judge(struct xrl_sketch_cell *const cell[XRL_SKETCH_DEPTH], __u64 interval,
				   __u64 threshold, __u64 now, int check_only, __u64 *est)
{
	__u64 v[XRL_SKETCH_DEPTH], min = ~0ULL, own = ~0ULL;
	__u32 E = xrl_sketch_epoch(now, interval), i;
	int kind[XRL_SKETCH_DEPTH], busy = 0;

	for (i = 0; i < XRL_SKETCH_DEPTH; i++) {
		v[i] = xrl_sketch_cell_est(cell[i], interval, threshold, now, E, &kind[i]);
		if (kind[i] == XRL_SKETCH_OWN && v[i] < own)
			own = v[i];
		busy |= kind[i] == XRL_SKETCH_BUSY;
	}
	if (own == ~0ULL)
		own = 0;
	for (i = 0; i < XRL_SKETCH_DEPTH; i++) {
		if (kind[i] == XRL_SKETCH_STALE)
			v[i] = own;
		if (v[i] < min)
			min = v[i];
	}
	*est = min;
	/* Below 2^20 by more than the CPUs racing: an atomic add past 2^20 - 1 would carry into the epoch. */
	if (xrl_over(min, threshold) || min >= XRL_SKETCH_FULL)
		return busy ? XRL_CONTENDED : XRL_OVER;
	if (check_only)
		return XRL_PASSED;
	for (i = 0; i < XRL_SKETCH_DEPTH; i++)
		if (kind[i] != XRL_SKETCH_BUSY)
			xrl_sketch_cell_add(cell[i], interval, E, kind[i], kind[i] == XRL_SKETCH_STALE ? own + 1 : 1);
	return XRL_PASSED;
}

#endif /* XRL_SKETCH_H */
