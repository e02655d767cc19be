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
 * interval, each one 64-bit word of epoch and pass count (xrl_word). A key
 * (rule, port and masked source: the hash covers the rule) maps to one cell a
 * row. Its estimate is the least of its cells' window sums; the packet passes
 * only while that estimate is under the rule's threshold, and a pass counts
 * in the cells at the minimum only (conservative update, Estan and Varghese):
 * a cell above the minimum already counts more than the key has passed.
 *
 * Bounds (T the threshold, I the interval, d the depth, w the width):
 *  - Never under: every cell of a key holds at least the key's own passes
 *    in the window (a pass raises the cells at the minimum; the others are
 *    above it already), so a heavy new source passes at most T a window:
 *    held at its limit. Only when CPUs pass the same key at the same moment
 *    can it pass more: a CPU that read the cells before another's count
 *    landed passes too, and the conservative update of two such CPUs can
 *    leave a cell above the minimum one count short; about one packet a
 *    race. (The cells are shared, counted with atomics but judged on a
 *    read: no compare-and-swap of a sequence as the exact path makes,
 *    which would serialize the flood.)
 *  - Over by the background: a key is held at no less than T minus the
 *    other keys' passes in its least loaded cell. A newcomer is wrongly
 *    blocked only when all d of its cells are at T from other traffic.
 *    With a flood of R new sources a second spread over w columns, a cell
 *    takes at most L = R * I / w passes a window (less under conservative
 *    update), about Poisson(L), so a newcomer that has passed f is blocked
 *    with probability at most P(Poisson(L) >= T - f)^d. The width makes
 *    fairness possible at all: once L reaches T every cell saturates and no
 *    depth helps. The default (d 4, w 65536, 6 MiB) keeps L = 15 for 1M new
 *    sources a second against a 1 s window: for T = 100 the bound is below
 *    10^-100; it saturates at R = T * w / I, 6.5M a second for T = 100.
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
 * a cell is 24 bytes whatever the rules (a ring per rule's bucket count
 * would be 136 bytes a cell for 16 buckets).
 *
 * Epochs are 32 bits of half intervals: a cell left alone for a multiple of
 * 2^32 buckets looks live again, which can only over-count (block).
 */
#ifndef XRL_SKETCH_H
#define XRL_SKETCH_H

#include "xrl_window.h"

#define XRL_SKETCH_DEPTH 4
#define XRL_SKETCH_DEFAULT_WIDTH 65536
#define XRL_SKETCH_MIN_WIDTH 64
#define XRL_SKETCH_MAX_WIDTH (1U << 22)
/* Compare-and-swap attempts on a cell's word before its count is given up (an under-count by one). */
#define XRL_SKETCH_TRIES 4

struct xrl_sketch_cell {
	__u64 interval; /* ns: the window of the rules that count here; 0: never used */
	__u64 w[2];	/* its two half-interval buckets: epoch << 32 | passes (xrl_word) */
};
_Static_assert(sizeof(struct xrl_sketch_cell) == 24, "xrl_sketch_cell layout");

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

/* The column of a key's hash h in row `row` of a sketch `width` wide (a power of 2): rows hash apart. */
static inline __u32 xrl_sketch_col(__u64 h, __u32 row, __u32 width)
{
	return (__u32)(xrl_sketch_mix(h + (row + 1) * 0x9e3779b97f4a7c15ULL) >> 32) & (width - 1);
}

/* The sketch's bucket length for a window of interval ns: half of it. */
static inline __u64 xrl_sketch_blen(__u64 interval)
{
	return interval > 1 ? interval / 2 : 1;
}

/* The epoch of the bucket that holds t. */
static inline __u32 xrl_sketch_epoch(__u64 t, __u64 interval)
{
	return (__u32)(t / xrl_sketch_blen(interval));
}

/* A bucket word's passes when it counts in the window whose newest bucket is E; 0 otherwise. */
static inline __u64 xrl_sketch_word_sum(__u64 w, __u32 E)
{
	/*
	 * E and E - 1 are the window; E + 1 (same slot as E - 1) is a bucket a
	 * CPU that read the clock later moved the cell to: count it too.
	 */
	return (__u32)(E + 1 - xrl_word_epoch(w)) < 3 ? xrl_word_pass(w) : 0;
}

/* A cell's window sum at bucket E. */
static inline __u64 xrl_sketch_cell_sum(const struct xrl_sketch_cell *c, __u32 E)
{
	return xrl_sketch_word_sum(XRL_READ_ONCE(c->w[0]), E) + xrl_sketch_word_sum(XRL_READ_ONCE(c->w[1]), E);
}

/*
 * What a cell says of a key of a rule with this interval at time now (bucket
 * E): its window sum; a cell of another interval says threshold (full) while
 * its own window still counts passes, else 0 (*foreign set either way).
 */
static inline __u64 xrl_sketch_cell_est(const struct xrl_sketch_cell *c, __u64 interval, __u64 threshold, __u64 now,
					__u32 E, int *foreign)
{
	__u64 ci = XRL_READ_ONCE(c->interval);

	if (ci == interval || !ci)
		return xrl_sketch_cell_sum(c, E);
	*foreign = 1;
	return xrl_sketch_cell_sum(c, xrl_sketch_epoch(now, ci)) ? threshold : 0;
}

/*
 * Counts a pass in a cell at bucket E. A cell never used, or of another
 * interval whose window has passed, is taken over first: its words, in the
 * other interval's epochs, are cleared. Lost races give up after
 * XRL_SKETCH_TRIES: an under-count by one, as for a CPU that read first.
 */
static inline void xrl_sketch_cell_add(struct xrl_sketch_cell *c, __u64 interval, __u32 E)
{
	__u64 ci = XRL_READ_ONCE(c->interval), w, nw;
	__u32 i = E & 1, e;
	int k;

	if (ci != interval) {
		if (__sync_val_compare_and_swap(&c->interval, ci, interval) != ci)
			return;
		/*
		 * A cell never used has nothing to clear: clearing it could erase
		 * a count another CPU made since the swap. A race accepted: the
		 * same can happen to the first count in a cell taken over from
		 * another interval, an under-count by one.
		 */
		if (!ci)
			goto count;
		w = XRL_READ_ONCE(c->w[0]);
		__sync_val_compare_and_swap(&c->w[0], w, 0);
		w = XRL_READ_ONCE(c->w[1]);
		__sync_val_compare_and_swap(&c->w[1], w, 0);
	}
count:
	for (k = 0; k < XRL_SKETCH_TRIES; k++) {
		w = XRL_READ_ONCE(c->w[i]);
		e = xrl_word_epoch(w);
		if (w && e == E) {
			if (xrl_word_pass(w) == 0xffffffffU)
				return;
			nw = w + 1;
		} else if (!w || (int)(E - e) > 0) {
			nw = xrl_word(E, 1); /* the slot's older bucket is out of the window: start E */
		} else {
			return; /* moved past E by a CPU a whole bucket ahead of our clock read */
		}
		if (__sync_val_compare_and_swap(&c->w[i], w, nw) == w)
			return;
	}
}

/*
 * The sketch's verdict on a key whose d cells are cell[] (one a row), for a
 * rule of this interval and threshold, at now: XRL_PASSED (and counted,
 * unless check_only) while the least estimate is under the threshold;
 * XRL_OVER when every cell is full with this interval's counts, so that the
 * key stays over until the bucket ends; XRL_CONTENDED when a cell of
 * another interval made it over, which may end sooner (not to be latched).
 * *est gets the estimate.
 */
static inline int xrl_sketch_judge(struct xrl_sketch_cell *const cell[XRL_SKETCH_DEPTH], __u64 interval,
				   __u64 threshold, __u64 now, int check_only, __u64 *est)
{
	__u64 v[XRL_SKETCH_DEPTH], min = ~0ULL;
	__u32 E = xrl_sketch_epoch(now, interval), i;
	int foreign = 0;

	for (i = 0; i < XRL_SKETCH_DEPTH; i++) {
		v[i] = xrl_sketch_cell_est(cell[i], interval, threshold, now, E, &foreign);
		if (v[i] < min)
			min = v[i];
	}
	*est = min;
	if (xrl_over(min, threshold))
		return foreign ? XRL_CONTENDED : XRL_OVER;
	if (check_only)
		return XRL_PASSED;
	for (i = 0; i < XRL_SKETCH_DEPTH; i++)
		if (v[i] == min)
			xrl_sketch_cell_add(cell[i], interval, E);
	return XRL_PASSED;
}

#endif /* XRL_SKETCH_H */
