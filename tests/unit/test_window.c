// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sliding window of include/xrl_window.h against Sentinel's LeapArray:
 * its worked cases (docs/window.md), in ms; the header counts in ns.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "xrl_window.h"

/* The cells of a ring for a window of n buckets, as the loader sizes them (xrl_cells_for). */
#define XC(n) ((n) < 2 ? 3U : (__u32)(n) + 1)

/* xrl_reserve's room for a ring's words, one per thread. */
static _Thread_local __u64 snap[XRL_MAX_CELLS];
#include "read/stats.h" /* xrl_qps: the one place QPS is computed */

#define MS 1000000ULL
#define S (1700000000000ULL * MS)

static struct xrl_sum sum_at(struct xrl_ring *r, __u32 n, __u64 interval, __u64 now)
{
	return xrl_sum(r, n, XC(n), interval, now);
}

/* Adds pass and block to current(t), which must exist. */
static void add(struct xrl_ring *r, __u32 n, __u64 interval, __u64 t, __u64 pass, __u64 block)
{
	struct xrl_cell *c = xrl_current(r, n, XC(n), interval, t);

	assert_non_null(c);
	c->word += pass;
	xrl_ring_blocks(r, XC(n))[c - r->c] += block;
}

/* The blocks of cell c of a ring of a window of n buckets. */
static __u64 block_of(struct xrl_ring *r, __u32 n, const struct xrl_cell *c)
{
	return xrl_ring_blocks(r, XC(n))[c - r->c];
}

/* Counts a packet at t into a ring one CPU owns, as the program counts a rule's (bpf/rule_stats.h). */
static void count_at(struct xrl_ring *r, __u32 n, __u64 interval, __u64 t, int blocked)
{
	struct xrl_slot s;

	xrl_slot_at(&s, t, interval / n, XC(n));
	assert_non_null(xrl_current_at(r, n, XC(n), &s));
	xrl_cell_count(r, XC(n), &s, blocked);
}

static __u64 pass_of(const struct xrl_cell *c)
{
	return xrl_word_pass(c->word);
}

/* Whether cell c holds the bucket that starts at start, with buckets of blen. */
static int holds(const struct xrl_cell *c, __u64 start, __u64 blen)
{
	return c->word && xrl_word_epoch(c->word) == (__u32)(start / blen);
}

/* Spec case 1. */
static void test_case1_idx_start(void **state)
{
	__u64 t = 1576296044907ULL * MS;
	struct xrl_slot s;

	(void)state;
	/* The spec's index: a slot of n cells (the rings keep one more: see test_last_interval). */
	xrl_slot_at(&s, t, 10000 * MS / 20, 20);
	assert_int_equal(s.idx, 9);
	assert_true(s.start == 1576296044500ULL * MS);
	assert_true(s.end == 1576296045000ULL * MS);
	xrl_slot_at(&s, 1188 * MS, 1000 * MS / 5, 5);
	assert_int_equal(s.idx, 0);
	assert_true(s.start == 1000 * MS);
	/* A slot holds its bucket's times, start included, end excluded. */
	assert_true(xrl_slot_holds(&s, 1000 * MS));
	assert_true(xrl_slot_holds(&s, 1200 * MS - 1));
	assert_false(xrl_slot_holds(&s, 1200 * MS));
	assert_false(xrl_slot_holds(&s, 1000 * MS - 1));
}

/* Spec case 2: the same bucket within its length, a fresh one after. */
static void test_case2_same_bucket_then_fresh(void **state)
{
	struct xrl_ring r = {};
	const __u64 I = 2000 * MS;
	struct xrl_cell *b0, *b1, *b2;

	(void)state;
	b0 = xrl_current(&r, 2, XC(2), I, S);
	assert_non_null(b0);
	count_at(&r, 2, I, S, 0);
	count_at(&r, 2, I, S, 1);
	assert_true(holds(b0, S, I / 2));
	assert_true(pass_of(b0) == 1 && block_of(&r, 2, b0) == 1);

	b1 = xrl_current(&r, 2, XC(2), I, S + 500 * MS);
	assert_ptr_equal(b1, b0);
	count_at(&r, 2, I, S + 500 * MS, 0);
	assert_true(pass_of(b1) == 2 && block_of(&r, 2, b1) == 1);

	b2 = xrl_current(&r, 2, XC(2), I, S + 1000 * MS);
	assert_non_null(b2);
	assert_ptr_not_equal(b2, b0);
	assert_true(holds(b2, S + 1000 * MS, I / 2));
	assert_true(pass_of(b2) == 0 && block_of(&r, 2, b2) == 0);
	/* The first bucket is untouched. */
	assert_true(pass_of(b0) == 2 && block_of(&r, 2, b0) == 1);
}

/*
 * Spec case 3. The spec says values(T0) has 2 buckets, but by its own rule
 * (unsigned times: a start in the future of now is deprecated) the bucket at
 * S+100 is not live at T0 = S+37; both are live at T0+100, which is what is
 * asserted here, together with values(T0) == 1 by the rule.
 */
static void test_case3_slot_reuse_and_deprecation(void **state)
{
	struct xrl_ring r = {};
	const __u64 I = 1000 * MS, T0 = S + 37 * MS;
	struct xrl_cell *b;
	struct xrl_sum s;

	(void)state;
	assert_non_null(xrl_current(&r, 10, XC(10), I, T0));
	assert_non_null(xrl_current(&r, 10, XC(10), I, T0 + 100 * MS));

	s = xrl_window_at(&r, 10, XC(10), I, T0 + 100 * MS);
	assert_int_equal(s.buckets, 2);
	s = xrl_window_at(&r, 10, XC(10), I, T0);
	assert_int_equal(s.buckets, 1);

	b = xrl_current(&r, 10, XC(10), I, T0 + 1100 * MS);
	assert_non_null(b);
	/* Its own cell: the bucket of T0 + 100, exactly I old, is out of the window (and of its cell, with n cells). */
	assert_ptr_equal(b, &r.c[((T0 + 1100 * MS) / (I / 10)) % XC(10)]);
	assert_true(holds(b, S + 1100 * MS, I / 10));
	count_at(&r, 10, I, T0 + 1100 * MS, 0);

	s = xrl_window_at(&r, 10, XC(10), I, T0 + 1100 * MS);
	assert_int_equal(s.buckets, 1);
	assert_true(s.pass == 1);
}

/* Spec case 4, row by row: each row is a sum that refreshes current(t). */
static void test_case4_sliding_sums(void **state)
{
	static const struct {
		__u64 t_ms, add, sum;
		double qps; /* < 0: not checked */
	} rows[] = {
		{ 100, 3, 3, 3.0 }, { 600, 2, 5, 5.0 }, { 999, 0, 5, -1 },
		{ 1100, 0, 2, -1 }, { 1499, 0, 2, -1 }, { 1500, 0, 0, -1 },
	};
	const __u64 I = 1000 * MS;
	struct xrl_ring r = {};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		__u64 t = S + rows[i].t_ms * MS;
		struct xrl_sum s;

		if (rows[i].add)
			add(&r, 2, I, t, rows[i].add, 0);
		s = sum_at(&r, 2, I, t);
		assert_true(s.pass == rows[i].sum);
		if (rows[i].qps >= 0)
			assert_true(xrl_qps(s.pass, I) == rows[i].qps);
	}
}

/* Spec case 5: threshold 10 per 1000 ms. */
static void test_case5_decision(void **state)
{
	const __u64 I = 1000 * MS;
	struct xrl_ring r = {};

	(void)state;
	add(&r, 4, I, S + 100 * MS, 5, 0);
	add(&r, 4, I, S + 600 * MS, 4, 0);
	assert_false(xrl_over(sum_at(&r, 4, I, S + 700 * MS).pass, 10));
	add(&r, 4, I, S + 700 * MS, 1, 0);
	assert_true(xrl_over(sum_at(&r, 4, I, S + 700 * MS).pass, 10));
	/* Blocks never count against the threshold. */
	add(&r, 4, I, S + 700 * MS, 0, 100);
	assert_true(sum_at(&r, 4, I, S + 700 * MS).pass == 10);
	/* Once the 5 of S+100 leave the window, 5 more may pass. */
	assert_true(sum_at(&r, 4, I, S + 1250 * MS).pass == 5);
	assert_false(xrl_over(sum_at(&r, 4, I, S + 1250 * MS).pass, 10));
	assert_false(xrl_over(0, 1));
	assert_true(xrl_over(0, 0));
}

/*
 * A count for a time one interval or more before the newest bucket is
 * dropped, as in Sentinel (Java and Go): with n slots, that time's slot
 * holds the newest bucket, a newer start, so current(t) gives no bucket of
 * the ring. Here the ring keeps n + 1 cells, and the old bucket's cell is
 * free: it must not be taken. n = 2, I = 1000: 3 passes at S+1100 (the
 * newest bucket, start S+1000); then at S+100 (start S, one interval before
 * it) no bucket, at S+600 (start S+500, in the interval) one; the last whole
 * interval read at S+1100 (the buckets S and S+500) holds none of the 3, and
 * nothing was counted at S. For n = 1 and 10 the same, one interval back.
 */
static void test_old_bucket_dropped(void **state)
{
	static const __u32 ns[] = { 1, 2, 10 };
	const __u64 I = 1000 * MS;
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		__u32 n = ns[k];
		__u64 W = I / n, newest = S + I + W / 5;
		struct xrl_ring r = {};
		struct xrl_cell *c;

		add(&r, n, I, newest, 3, 0);
		/* One interval before the newest bucket's start, and more. */
		assert_null(xrl_current(&r, n, XC(n), I, newest - I));
		assert_null(xrl_current(&r, n, XC(n), I, newest - I - W));
		assert_null(xrl_current(&r, n, XC(n), I, newest - 3 * I));
		assert_true(xrl_window_last_at(&r, n, XC(n), I, newest).pass == 0);
		assert_true(xrl_window_last_at(&r, n, XC(n), I, newest).buckets == 0);
		/* Within the interval before it (n > 1): its bucket, counted. */
		if (n > 1) {
			c = xrl_current(&r, n, XC(n), I, newest - I + W);
			assert_non_null(c);
			count_at(&r, n, I, newest - I + W, 0);
			assert_true(xrl_window_last_at(&r, n, XC(n), I, newest).pass == 1);
		}
		assert_true(sum_at(&r, n, I, newest).pass == 3 + (n > 1));
	}
}

/* The ring wraps: each bucket leaves the window exactly n buckets after it began. */
static void test_rollover(void **state)
{
	const __u32 n = 4;
	const __u64 I = 400 * MS, W = I / n;
	struct xrl_ring r = {};
	struct xrl_slot slot;
	__u64 k;

	(void)state;
	/* Bucket k gets k + 1 passes, for 3 full turns of the ring. */
	for (k = 0; k < 3 * n; k++) {
		__u64 t = S + k * W + W / 2, want = 0, j;

		add(&r, n, I, t, k + 1, 0);
		for (j = (k + 1 > n ? k + 1 - n : 0); j <= k; j++)
			want += j + 1;
		assert_true(sum_at(&r, n, I, t).pass == want);
		assert_int_equal(sum_at(&r, n, I, t).buckets, k + 1 < n ? k + 1 : n);
		xrl_slot_at(&slot, t, W, n); /* the spec's index */
		assert_int_equal(slot.idx, k % n);
	}
}

/*
 * A bucket exactly I old shares the slot of now and is gone from sum(now),
 * which refreshes that slot first: read by any CPU, without writing.
 */
static void test_deprecation_boundary(void **state)
{
	const __u64 I = 1000 * MS, W = I / 2;
	const __u32 E = (__u32)(S / W);
	struct xrl_ring r = {};
	struct xrl_sum s;

	(void)state;
	assert_true(xrl_live(E, E, 2));
	assert_true(xrl_live(E + 1, E, 2));
	assert_false(xrl_live(E + 2, E, 2));
	assert_false(xrl_live(E, E + 1, 2)); /* a bucket that starts after now */
	/* across the wrap of the 32-bit epoch */
	assert_true(xrl_live(0, 0xffffffffU, 2));
	assert_false(xrl_live(1, 0xffffffffU, 2));
	assert_false(xrl_live(0xffffffffU, 1, 2));

	add(&r, 2, I, S, 3, 1);
	s = xrl_window_at(&r, 2, XC(2), I, S + I - 1);
	assert_true(s.pass == 3 && s.block == 1 && s.buckets == 1);
	s = xrl_window_at(&r, 2, XC(2), I, S + I);
	assert_true(s.pass == 0 && s.buckets == 0);
}

/* A gap longer than the interval empties the window, whichever slot comes next. */
static void test_idle_gap(void **state)
{
	const __u64 I = 1000 * MS;
	struct xrl_ring r = {};
	__u64 gap;

	(void)state;
	for (gap = I + 1; gap < 20 * I; gap += 777 * MS) {
		memset(&r, 0, sizeof(r));
		add(&r, 5, I, S + 10 * MS, 7, 0);
		add(&r, 5, I, S + 900 * MS, 9, 0);
		assert_true(sum_at(&r, 5, I, S + 900 * MS).pass == 16);
		assert_true(sum_at(&r, 5, I, S + 900 * MS + gap).pass == 0);
	}
}

/* Time that does not advance keeps one bucket and accumulates into it. */
static void test_time_stands_still(void **state)
{
	const __u64 I = 1000 * MS;
	struct xrl_ring r = {};
	int i;

	(void)state;
	for (i = 0; i < 1000; i++)
		add(&r, 10, I, S + 5 * MS, 1, 0);
	assert_true(sum_at(&r, 10, I, S + 5 * MS).pass == 1000);
	assert_int_equal(sum_at(&r, 10, I, S + 5 * MS).buckets, 1);
}

/* n = 1: a fixed window that starts over every interval. */
static void test_one_bucket(void **state)
{
	const __u64 I = 1000 * MS;
	struct xrl_ring r = {};

	(void)state;
	assert_int_equal(xrl_shape_check(1, I), XRL_SHAPE_OK);
	add(&r, 1, I, S, 4, 0);
	add(&r, 1, I, S + I - 1, 4, 0);
	assert_true(sum_at(&r, 1, I, S + I - 1).pass == 8);
	assert_true(sum_at(&r, 1, I, S + I).pass == 0);
	assert_true(holds(&r.c[0], S + I, I));
}

/* The cell of time t's bucket in a ring r of a 1 s, 2-bucket window. */
#define CELL(t) (&r.c[((t) / (I / 2)) % XC(2)])

/* Time going back: no bucket for an event whose slot holds a newer start. */
static void test_time_backwards(void **state)
{
	const __u64 I = 1000 * MS;
	struct xrl_ring r = {};

	(void)state;
	add(&r, 2, I, S + 1100 * MS, 3, 2);			 /* start S+1000: cell (S+1000)/W % 3 */
	assert_null(xrl_current(&r, 2, XC(2), I, S - 500 * MS)); /* the same cell, start S-500 */
	assert_true(holds(CELL(S + 1000 * MS), S + 1000 * MS, I / 2));
	assert_true(pass_of(CELL(S + 1000 * MS)) == 3 && block_of(&r, 2, CELL(S + 1000 * MS)) == 2);
	/* Within the newer bucket, earlier than the last event: the same bucket. */
	assert_ptr_equal(xrl_current(&r, 2, XC(2), I, S + 1000 * MS), CELL(S + 1000 * MS));
	/* Back to a slot holding an older start (empty): that one is reset. */
	assert_ptr_equal(xrl_current(&r, 2, XC(2), I, S + 600 * MS), CELL(S + 500 * MS));
	assert_true(holds(CELL(S + 500 * MS), S + 500 * MS, I / 2));
	assert_true(pass_of(CELL(S + 1000 * MS)) == 3);
	/* Seen from S+600, the bucket at S+1000 lies in the future: not counted. */
	assert_true(sum_at(&r, 2, I, S + 600 * MS).pass == 0);
	assert_true(sum_at(&r, 2, I, S + 1100 * MS).pass == 3);
}

static void test_shape_check(void **state)
{
	(void)state;
	assert_int_equal(xrl_shape_check(0, 1000), XRL_SHAPE_NO_BUCKETS);
	assert_int_equal(xrl_shape_check(0, 0), XRL_SHAPE_NO_BUCKETS);
	assert_int_equal(xrl_shape_check(XRL_MAX_BUCKETS + 1, 17 * 1000), XRL_SHAPE_TOO_MANY_BUCKETS);
	assert_int_equal(xrl_shape_check(1000, 1000), XRL_SHAPE_TOO_MANY_BUCKETS);
	assert_int_equal(xrl_shape_check(2, 0), XRL_SHAPE_NO_INTERVAL);
	assert_int_equal(xrl_shape_check(3, 1000), XRL_SHAPE_UNEVEN);
	assert_int_equal(xrl_shape_check(16, 1000 * MS + 8), XRL_SHAPE_UNEVEN);
	assert_int_equal(xrl_shape_check(XRL_MAX_BUCKETS, 60 * MS), XRL_SHAPE_OK);
	assert_int_equal(XRL_MAX_BUCKETS, 60); /* Sentinel's minute window: 60 buckets of a second */
	assert_int_equal(xrl_shape_check(3, 3), XRL_SHAPE_OK);
}

/* ---- the shared ring: xrl_reserve ---- */

/* Reserves at t against threshold T on a ring of n over I; the verdict. */
static int reserve_at(struct xrl_ring *r, __u32 n, __u64 I, __u64 t, __u64 T, int check_only)
{
	struct xrl_slot s;

	xrl_slot_at(&s, t, I / n, XC(n));
	return xrl_reserve(r, n, XC(n), I, &s, T, 1, 8, check_only, snap, NULL);
}

/*
 * Two CPUs at a new source's first packets: A takes the new state's ring,
 * B sees the gen and counts a pass before A would empty the ring. A ring
 * never taken is empty already: A must not empty it, or B's pass is lost
 * and the window admits one more (a threshold of 1 passed 2).
 */
static void test_claim_new_ring_keeps_racing_pass(void **state)
{
	const __u64 I = 1000 * MS;
	struct xrl_state st = {};
	int reset;

	(void)state;
	reset = xrl_ring_claim(&st.gen, 7);		 /* A */
	assert_int_equal(xrl_ring_claim(&st.gen, 7), 0); /* B: taken */
	assert_int_equal(reserve_at(&st.ring, 2, I, S + 100 * MS, 1, 0), XRL_PASSED);
	if (reset) /* A, after B's count */
		xrl_ring_reset(&st.ring, XC(2));
	assert_int_equal(reserve_at(&st.ring, 2, I, S + 100 * MS, 1, 0), XRL_OVER);
	assert_int_equal(st.gen, 7);
}

/* A ring of another gen (a new window shape) is emptied by the one CPU that takes it. */
static void test_claim_other_gen_empties(void **state)
{
	const __u64 I = 1000 * MS;
	struct xrl_state st = { .gen = 3 };

	(void)state;
	assert_int_equal(reserve_at(&st.ring, 2, I, S + 100 * MS, 1, 0), XRL_PASSED);
	assert_int_equal(xrl_ring_claim(&st.gen, 4), 1);
	assert_int_equal(xrl_ring_claim(&st.gen, 4), 0); /* only once */
	xrl_ring_reset(&st.ring, XC(2));
	assert_int_equal(reserve_at(&st.ring, 2, I, S + 100 * MS, 1, 0), XRL_PASSED);
}

/* Spec case 5 and case 4's sliding, decided and counted in one step. */
static void test_reserve_decides_and_counts(void **state)
{
	const __u64 I = 1000 * MS;
	struct xrl_ring r = {};
	int i, passed = 0;

	(void)state;
	for (i = 0; i < 7; i++)
		passed += reserve_at(&r, 2, I, S + 100 * MS, 10, 0) == XRL_PASSED;
	assert_int_equal(passed, 7);
	for (i = 0, passed = 0; i < 5; i++)
		passed += reserve_at(&r, 2, I, S + 600 * MS, 10, 0) == XRL_PASSED;
	assert_int_equal(passed, 3); /* 7 + 3 = 10 */
	assert_true(xrl_window_at(&r, 2, XC(2), I, S + 600 * MS).pass == 10);
	/* check_only gives the verdict and writes nothing */
	assert_int_equal(reserve_at(&r, 2, I, S + 999 * MS, 10, 1), XRL_OVER);
	/* the 7 of S+100 leave at S+1000 exactly: 7 more, no more */
	assert_int_equal(reserve_at(&r, 2, I, S + 1000 * MS, 10, 1), XRL_PASSED);
	assert_true(xrl_window_at(&r, 2, XC(2), I, S + 1000 * MS).pass == 3);
	for (i = 0, passed = 0; i < 9; i++)
		passed += reserve_at(&r, 2, I, S + 1000 * MS, 10, 0) == XRL_PASSED;
	assert_int_equal(passed, 7);
	/* a pass count at its 32-bit largest takes no more, whatever the threshold */
	memset(&r, 0, sizeof(r));
	CELL(S)->word = xrl_word((__u32)(S / (I / 2)), 0xffffffffU);
	r.last = S / (I / 2);
	assert_int_equal(reserve_at(&r, 2, I, S, ~0ULL, 0), XRL_OVER);
}

/*
 * The bucket-boundary case on one shared ring: T = 5 per 1000 ms in 2
 * buckets; 5 pass at S, then at exactly S+1000 the bucket of S is gone: 4
 * pass, and 1 more at S+1200.
 */
static void test_reserve_boundary_nanosecond(void **state)
{
	const __u64 I = 1000 * MS;
	struct xrl_ring r = {};
	int i, passed = 0;

	(void)state;
	for (i = 0; i < 6; i++)
		passed += reserve_at(&r, 2, I, S, 5, 0) == XRL_PASSED;
	assert_int_equal(passed, 5);
	assert_int_equal(reserve_at(&r, 2, I, S + 500 * MS, 5, 0), XRL_OVER);
	for (i = 0, passed = 0; i < 4; i++)
		passed += reserve_at(&r, 2, I, S + 1000 * MS, 5, 0) == XRL_PASSED;
	assert_int_equal(passed, 4);
	assert_int_equal(reserve_at(&r, 2, I, S + 1200 * MS, 5, 0), XRL_PASSED);
	assert_int_equal(reserve_at(&r, 2, I, S + 1200 * MS, 5, 0), XRL_OVER);
}

/*
 * A CPU whose clock reads before the newest bucket the ring holds (another
 * CPU read its clock later, or this one did and time seems to go back) is
 * judged as of that bucket: time is at least that. Its slot moves with it.
 */
static void test_reserve_clock_skew(void **state)
{
	const __u64 I = 1000 * MS, W = I / 2;
	struct xrl_ring r = {};
	struct xrl_slot s;
	int i;

	(void)state;
	for (i = 0; i < 3; i++)
		assert_int_equal(reserve_at(&r, 2, I, S + W, 3, 0), XRL_PASSED);
	xrl_slot_at(&s, S + W - 1, W, XC(2));
	assert_int_equal(xrl_reserve(&r, 2, XC(2), I, &s, 3, 1, 8, 0, snap, NULL), XRL_OVER);
	assert_true(s.start == S + W && s.idx == ((S + W) / W) % XC(2) && s.epoch == (__u32)((S + W) / W));

	/* a whole window behind: the same */
	xrl_slot_at(&s, S - W, W, XC(2));
	assert_int_equal(xrl_reserve(&r, 2, XC(2), I, &s, 4, 1, 8, 0, snap, NULL), XRL_PASSED);
	assert_true(s.start == S + W && s.idx == ((S + W) / W) % XC(2));
	assert_true(xrl_window_at(&r, 2, XC(2), I, S + W).pass == 4);
}

/*
 * Cells keep 32-bit epochs: left alone for 2^31 buckets they look newer than
 * now. They count for nothing, in the figures or the decision, and the key
 * gets its whole threshold.
 */
static void test_reserve_old_cells(void **state)
{
	const __u64 I = 1000 * MS, W = I / 2;
	__u64 later = S + (((__u64)1 << 31) + 10) * W;
	struct xrl_ring r = {};
	int i;

	(void)state;
	for (i = 0; i < 3; i++)
		assert_int_equal(reserve_at(&r, 2, I, S, 3, 0), XRL_PASSED);
	/* modulo 2^32 the cells of S are 2^31 - 10 buckets after later */
	assert_true((int)((__u32)(S / W) - (__u32)(later / W)) > 0);
	assert_true(xrl_window_at(&r, 2, XC(2), I, later).pass == 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(reserve_at(&r, 2, I, later, 3, 0), XRL_PASSED);
	assert_int_equal(reserve_at(&r, 2, I, later, 3, 0), XRL_OVER);
	/* and a cell after the ring's last (left alone while others moved on) counts for nothing either */
	memset(&r, 0, sizeof(r));
	r.last = S / W;
	r.c[1].word = xrl_word((__u32)(S / W) + 1, 7); /* after last: an old one */
	assert_true(xrl_window_at(&r, 2, XC(2), I, S).pass == 0);
	assert_int_equal(reserve_at(&r, 2, I, S, 1, 0), XRL_PASSED);
}

/* Blocks land in the bucket they happened in, which a bucket without passes moves to. */
static void test_block_add(void **state)
{
	const __u64 I = 1000 * MS, W = I / 2;
	struct xrl_ring r = {};
	struct xrl_slot s;

	(void)state;
	assert_int_equal(reserve_at(&r, 2, I, S, 1, 0), XRL_PASSED);
	xrl_slot_at(&s, S + W, W, XC(2));
	xrl_block_add(&r, XC(2), &s, 2, 0); /* without move: the cell is not there, nothing counted */
	assert_true(xrl_window_at(&r, 2, XC(2), I, S + W).block == 0);
	xrl_block_add(&r, XC(2), &s, 2, 1);
	xrl_block_add(&r, XC(2), &s, 1, 0);
	assert_true(xrl_window_at(&r, 2, XC(2), I, S + W).block == 3);
	assert_true(xrl_window_at(&r, 2, XC(2), I, S + W).pass == 1);
	/* taking back a pass takes it from its own bucket only */
	xrl_slot_at(&s, S, W, XC(2));
	xrl_unreserve(&r, XC(2), &s, 1, 8);
	assert_true(xrl_window_at(&r, 2, XC(2), I, S + W).pass == 0);
	xrl_unreserve(&r, XC(2), &s, 1, 8);
	assert_true(xrl_window_at(&r, 2, XC(2), I, S + W).pass == 0);
}

/* ---- byte windows: a reserve of cost units ---- */

static int reserve_cost(struct xrl_ring *r, __u64 t, __u64 T, __u32 cost, __u64 *room)
{
	const __u64 I = 1000 * MS;
	struct xrl_slot s;

	xrl_slot_at(&s, t, I / 2, XC(2));
	return xrl_reserve(r, 2, XC(2), I, &s, T, cost, 8, 0, snap, room);
}

/* 3000 bytes a window: frames that fit exactly pass, one byte over does not, a smaller one then may. */
static void test_reserve_cost(void **state)
{
	const __u64 I = 1000 * MS;
	struct xrl_ring r = {};
	struct xrl_slot s;
	__u64 room = 12345;

	(void)state;
	assert_int_equal(reserve_cost(&r, S, 3000, 1000, &room), XRL_PASSED);
	assert_int_equal(room, 12345); /* written only when over */
	assert_int_equal(reserve_cost(&r, S + 500 * MS, 3000, 1500, &room), XRL_PASSED);
	assert_int_equal(reserve_cost(&r, S + 600 * MS, 3000, 501, &room), XRL_OVER);
	assert_int_equal(room, 500);
	assert_int_equal(reserve_cost(&r, S + 600 * MS, 3000, 500, &room), XRL_PASSED);
	assert_int_equal(reserve_cost(&r, S + 600 * MS, 3000, 1, &room), XRL_OVER);
	assert_int_equal(room, 0);
	assert_int_equal(xrl_window_at(&r, 2, XC(2), I, S + 600 * MS).pass, 3000);
	/* the first bucket's 1000 leave at S + 1s */
	assert_int_equal(reserve_cost(&r, S + 1000 * MS, 3000, 1001, &room), XRL_OVER);
	assert_int_equal(room, 1000);
	assert_int_equal(reserve_cost(&r, S + 1000 * MS, 3000, 1000, &room), XRL_PASSED);
	/* taking back takes the cost, from its own bucket only */
	xrl_slot_at(&s, S + 1000 * MS, I / 2, XC(2));
	xrl_unreserve(&r, XRL_SHORT_CELLS, &s, 1000, 8);
	assert_int_equal(xrl_window_at(&r, 2, XC(2), I, S + 1000 * MS).pass, 2000);
	xrl_unreserve(&r, XRL_SHORT_CELLS, &s, 1000, 8); /* nothing of that size is left in it: nothing taken */
	assert_int_equal(xrl_window_at(&r, 2, XC(2), I, S + 1000 * MS).pass, 2000);
}

/*
 * A bucket counts XRL_CELL_MAX at most: a cost it cannot take is over, never
 * a wrap to a small count or a carry into its epoch (by adds in flight), and
 * the room it reports is what the cell can still take.
 */
static void test_reserve_cost_cell_full(void **state)
{
	struct xrl_ring r = {};
	__u64 room = 0;

	(void)state;
	assert_int_equal(reserve_cost(&r, S, 0xffffffffULL, XRL_CELL_MAX - 0xf, &room), XRL_PASSED);
	assert_int_equal(reserve_cost(&r, S, 0xffffffffULL, 0x10, &room), XRL_OVER);
	assert_int_equal(room, 0xf);
	assert_int_equal(reserve_cost(&r, S, 0xffffffffULL, 0xf, &room), XRL_PASSED);
	assert_int_equal(reserve_cost(&r, S, 0xffffffffULL, 1, &room), XRL_OVER);
	assert_int_equal(room, 0);
	assert_true(xrl_over_cost(0xffffffffULL, 1, 0xffffffffULL));
	assert_false(xrl_over_cost(2999, 1, 3000));
	assert_true(xrl_over_cost(2999, 2, 3000));
}

/* ---- warm-up (Sentinel's WarmUpController, cold factor 3) ---- */

static void test_warm_threshold(void **state)
{
	const __u64 P = 30000 * MS; /* 30s */

	(void)state;
	assert_int_equal(xrl_warm_threshold(300, 0, S, S), 300);	     /* no warm-up */
	assert_int_equal(xrl_warm_threshold(300, P, S, S), 100);	     /* T / 3 at its start */
	assert_int_equal(xrl_warm_threshold(300, P, S, S - 1), 100);	     /* a start after now: its start */
	assert_int_equal(xrl_warm_threshold(300, P, S, S + 3000 * MS), 120); /* 100 + 200 * 3/30 */
	assert_int_equal(xrl_warm_threshold(300, P, S, S + 15000 * MS), 200);
	assert_int_equal(xrl_warm_threshold(300, P, S, S + P - 1), 299);
	assert_int_equal(xrl_warm_threshold(300, P, S, S + P), 300); /* T after the period */
	assert_int_equal(xrl_warm_threshold(300, P, S, S + 100 * P), 300);
	/* whole milliseconds: within the first one, still T / 3 */
	assert_int_equal(xrl_warm_threshold(300000, P, S, S + MS - 1), 100000);
	assert_int_equal(xrl_warm_threshold(300000, P, S, S + MS), 100006);
	/* T / 3 rounds down; so does the climb */
	assert_int_equal(xrl_warm_threshold(31, P, S, S), 10);
	assert_int_equal(xrl_warm_threshold(31, P, S, S + 15000 * MS), 20); /* 10 + 21 / 2 */
	/* the largest: T of 2^32 - 1 over the longest period, with no overflow */
	assert_int_equal(xrl_warm_threshold(0xffffffffULL, XRL_WARMUP_MAX_MS * MS, S, S + XRL_WARMUP_MAX_MS * MS - MS),
			 0x55555555ULL + (0xffffffffULL - 0x55555555ULL) * (XRL_WARMUP_MAX_MS - 1) / XRL_WARMUP_MAX_MS);
}

static void test_warm_idle(void **state)
{
	const __u64 P = 30000 * MS, B = 500 * MS;
	const __u64 last = S / B; /* the newest bucket: [S, S + B) */

	(void)state;
	assert_true(xrl_warm_idle(0, B, P, S));	    /* a state never used */
	assert_false(xrl_warm_idle(last, B, P, S)); /* in use now */
	assert_false(xrl_warm_idle(last, B, P, S + B + P - 1));
	assert_true(xrl_warm_idle(last, B, P, S + B + P)); /* a whole period since its end */
	assert_false(xrl_warm_idle(last + 10, B, P, S));   /* a bucket after now (another CPU's clock) */
}

struct racer {
	struct xrl_ring *r;
	pthread_barrier_t *bar;
	int rounds, tries;
	int passed[64], contended[64];
};

static void *race(void *arg)
{
	struct racer *x = arg;
	int k, i;

	for (k = 0; k < x->rounds; k++) {
		pthread_barrier_wait(x->bar);
		for (i = 0; i < x->tries; i++) {
			int res = reserve_at(x->r, 4, 1000 * MS, S + (__u64)k * 3000 * MS + 10 * MS, 1000, 0);

			x->passed[k] += res == XRL_PASSED;
			x->contended[k] += res == XRL_CONTENDED;
		}
		pthread_barrier_wait(x->bar);
	}
	return NULL;
}

/*
 * Four threads race for one ring's last packets: never more than the threshold
 * passes, and exactly the threshold unless a packet gave up contended (then
 * dropped, as the program drops it). A thread preempted between its cell's
 * compare-and-swap and its commit holds a tentative pass that the others see
 * as taken: they may finish their tries meanwhile, and it may then give up.
 */
static void test_reserve_racing_threads(void **state)
{
	enum { THREADS = 4, ROUNDS = 64 };
	struct racer x[THREADS];
	pthread_t th[THREADS];
	pthread_barrier_t bar;
	struct xrl_ring r = {};
	int t, k;

	(void)state;
	assert_int_equal(pthread_barrier_init(&bar, NULL, THREADS), 0);
	for (t = 0; t < THREADS; t++) {
		memset(&x[t], 0, sizeof(x[t]));
		x[t].r = &r;
		x[t].bar = &bar;
		x[t].rounds = ROUNDS;
		x[t].tries = 2000;
		assert_int_equal(pthread_create(&th[t], NULL, race, &x[t]), 0);
	}
	for (t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	for (k = 0; k < ROUNDS; k++) {
		int sum = 0, contended = 0;

		for (t = 0; t < THREADS; t++) {
			sum += x[t].passed[k];
			contended += x[t].contended[k];
		}
		assert_true(sum <= 1000);
		if (sum < 1000 - contended)
			fail_msg("round %d: %d passed, %d gave up contended: %d lost", k, sum, contended,
				 1000 - contended - sum);
	}
	pthread_barrier_destroy(&bar);
}

/* The branch-free comparison the program's loops are written with. */
static void test_lt(void **state)
{
	(void)state;
	assert_int_equal(xrl_lt(0, 1), 1);
	assert_int_equal(xrl_lt(1, 1), 0);
	assert_int_equal(xrl_lt(2, 1), 0);
	assert_int_equal(xrl_lt(0, 0xffffffffULL), 1);
	assert_int_equal(xrl_lt(0xffffffffULL, 0), 0);
	assert_int_equal(xrl_lt(0xfffffffeULL, 0xffffffffULL), 1);
	/* Full 64-bit epochs too (xrl_ring_fresh). */
	assert_int_equal(xrl_lt(1ULL << 40, (1ULL << 40) + 1), 1);
	assert_int_equal(xrl_lt((1ULL << 62) + 1, 1ULL << 62), 0);
}

/*
 * Whether a ring's cells may count at full epoch q, from its last, against
 * the definition with branches (xrl_ring_fresh has none, so that the
 * verifier walks the reservation's loops once): never for a ring not used,
 * always while q is not past last, and until q is 2^31 buckets past it.
 */
static void test_ring_fresh(void **state)
{
	const __u64 base[] = { 1, 2, 1000, 0x7fffffffULL, 0x80000000ULL, 0xffffffffULL, 1ULL << 40, 1ULL << 62 };
	const __u64 off[] = { 0, 1, 2, 0x7ffffffeULL, 0x7fffffffULL, 0x80000000ULL, 0x80000001ULL, 1ULL << 33 };
	size_t i, j;

	(void)state;
	assert_int_equal(xrl_ring_fresh(0, 0), 0);
	assert_int_equal(xrl_ring_fresh(0, 5), 0);
	for (i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
		for (j = 0; j < sizeof(off) / sizeof(off[0]); j++) {
			__u64 last = base[i], q = base[i] + off[j], back = base[i] > off[j] ? base[i] - off[j] : 0;

			assert_int_equal(xrl_ring_fresh(last, q), off[j] < 0x80000000ULL);
			/* A clock behind the ring's: its cells count. */
			assert_int_equal(xrl_ring_fresh(last, back), 1);
		}
	}
}

/*
 * The rate over the last whole interval that has ended (the n buckets before
 * now's): a steady 400/s passed (and, from 1 s on, 200/s blocked) through a
 * 1 s window of 2 buckets reads 400/s passed 100 ms after a boundary, where
 * Sentinel's sum reads 240/s (the 200 of the bucket before and the 40 of
 * now's); at the very start of a bucket the same; ten buckets too; a window
 * of one bucket reads the bucket before now's.
 */
static void test_last_interval(void **state)
{
	struct xrl_ring r = {};
	const __u64 I = 1000 * MS, now = S + 1600 * MS;
	struct xrl_sum w, c;
	__u64 t;

	(void)state;
	for (t = S; t < now; t += 5 * MS) /* 400/s: one every 2.5 ms, two every 5 */
		add(&r, 2, I, t, 2, t >= S + 1000 * MS ? 1 : 0);
	w = xrl_window_at(&r, 2, XC(2), I, now);
	c = xrl_window_last_at(&r, 2, XC(2), I, now);
	assert_true(w.pass == 200 + 40);
	assert_true(xrl_qps(w.pass, I) == 240.0);
	assert_true(c.pass == 400 && c.block == 100 && c.buckets == 2);
	assert_true(xrl_qps(c.pass, I) == 400.0);
	c = xrl_window_last_at(&r, 2, XC(2), I, S + 1500 * MS);
	assert_true(c.pass == 400 && c.buckets == 2);
	/* Ten buckets: the ten before now's; now's is never among them. */
	memset(&r, 0, sizeof(r));
	for (t = S; t < S + 2000 * MS; t += 100 * MS)
		add(&r, 10, I, t, 40, 0);
	c = xrl_window_last_at(&r, 10, XC(10), I, S + 1950 * MS);
	assert_true(c.pass == 10 * 40 && c.buckets == 10);
	assert_true(xrl_qps(c.pass, I) == 400.0);
	/* One bucket: the one before now's. */
	memset(&r, 0, sizeof(r));
	add(&r, 1, I, S, 5, 0);
	c = xrl_window_last_at(&r, 1, XC(1), I, S + 1500 * MS);
	assert_true(c.pass == 5 && c.buckets == 1);
	/* Not before a whole bucket has ended, and never with fewer cells than the window and one. */
	assert_true(xrl_window_last_at(&r, 1, XC(1), I, 10 * MS).buckets == 0);
	assert_true(xrl_window_last_at(&r, 2, 2, I, now).buckets == 0 && !xrl_cells_fit(2, 2));
}

/*
 * A source held at its limit (1000/s offered, 100 per 1 s window) passes
 * its window's room at the start of a bucket and nothing until a bucket
 * leaves the window, so any part of an interval reads 0 or more than the
 * truth by turns; every whole interval holds the limit: the rate over the
 * last one reads 100/s at any moment, for 2, 4 and 10 buckets.
 */
static void test_last_interval_held_source(void **state)
{
	static const __u32 ns[] = { 2, 4, 10 };
	const __u64 I = 1000 * MS, T = 100;
	__u64 t;
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		__u32 n = ns[k];
		__u64 W = I / n;
		struct xrl_ring r = {};

		for (t = S; t < S + 6 * I; t += MS) {
			struct xrl_slot s;

			xrl_slot_at(&s, t, W, XC(n));
			xrl_reserve(&r, n, XC(n), I, &s, T, 1, 8, 0, snap, NULL);
			/* Read as it goes, every 37 ms once a whole interval has ended. */
			if (t >= S + I + W && (t - S) % (37 * MS) == 0)
				assert_int_equal(xrl_window_last_at(&r, n, XC(n), I, t).pass, T);
		}
	}
}

/* ---- long windows (more than 16 buckets): a ring with a base ---- */

/* A long ring as the loader sizes a key's value: its cells, their blocks, then its base (XRL_RING_WORDS). */
struct long_ring {
	struct xrl_ring r;
};

static int fast_judged; /* packets xrl_reserve_fast decided */

/* A packet at t, as the program judges it on a long ring: on the base, else on every cell. */
static int judge_long(struct xrl_ring *r, __u32 n, __u64 I, __u64 t, __u64 T, struct xrl_slot *s)
{
	int res;

	xrl_slot_at(s, t, I / n, XC(n));
	res = xrl_reserve_fast(r, XC(n), s, T, 1, 8, 0, NULL, NULL);
	if (res != XRL_SLOW) {
		fast_judged++;
		return res;
	}
	return xrl_reserve_long(r, n, XC(n), I, s, T, 1, 8, 0, snap, NULL, NULL);
}

/* Spec case 1 (n=20): the index and start; and the ring of 21 cells a 20-bucket window is kept in. */
static void test_case1_long_ring(void **state)
{
	static struct long_ring lr;
	__u64 t = 1576296044907ULL * MS, I = 10000 * MS;
	struct xrl_slot s;

	(void)state;
	assert_true(xrl_ring_long(XC(20)));
	assert_int_equal(xrl_shape_check(20, I), XRL_SHAPE_OK);
	xrl_slot_at(&s, t, I / 20, 20);
	assert_int_equal(s.idx, 9);
	assert_true(s.start == 1576296044500ULL * MS);
	assert_int_equal(judge_long(&lr.r, 20, I, t, 2, &s), XRL_PASSED);
	assert_true(s.start == 1576296044500ULL * MS);
	assert_int_equal(s.idx, (1576296044500ULL / 500) % 21);
	assert_int_equal(judge_long(&lr.r, 20, I, t + 9500 * MS - 1, 2, &s), XRL_PASSED); /* the window's last bucket */
	assert_int_equal(judge_long(&lr.r, 20, I, t + 9500 * MS - 1, 2, &s), XRL_OVER);
	/* The first bucket leaves the window 10000 ms after it started: one packet's room. */
	assert_int_equal(judge_long(&lr.r, 20, I, 1576296054500ULL * MS, 2, &s), XRL_PASSED);
	assert_int_equal(judge_long(&lr.r, 20, I, 1576296054500ULL * MS, 2, &s), XRL_OVER);
	assert_int_equal(xrl_window_at(&lr.r, 20, XC(20), I, 1576296054500ULL * MS).pass, 2);
}

/* Spec case 5 on Sentinel's minute window: 9 passes in it, the next passes; 10, it is blocked. */
static void test_case5_minute_window(void **state)
{
	static struct long_ring lr;
	__u64 I = 60000 * MS;
	struct xrl_slot s;
	int i;

	(void)state;
	for (i = 0; i < 9; i++)
		assert_int_equal(judge_long(&lr.r, 60, I, S + (__u64)i * 6000 * MS, 10, &s), XRL_PASSED);
	assert_int_equal(judge_long(&lr.r, 60, I, S + 59999 * MS, 10, &s), XRL_PASSED);
	assert_int_equal(judge_long(&lr.r, 60, I, S + 59999 * MS, 10, &s), XRL_OVER);
	assert_int_equal(xrl_sum(&lr.r, 60, XC(60), I, S + 59999 * MS).pass, 10);
	assert_int_equal(xrl_sum(&lr.r, 60, XC(60), I, S + 59999 * MS).buckets, 10);
	/* A minute after the first: it left, the others are there. */
	assert_int_equal(xrl_sum(&lr.r, 60, XC(60), I, S + 60000 * MS).pass, 9);
	assert_int_equal(judge_long(&lr.r, 60, I, S + 60000 * MS, 10, &s), XRL_PASSED);
	assert_int_equal(judge_long(&lr.r, 60, I, S + 60000 * MS, 10, &s), XRL_OVER);
}

/*
 * The base: written by the first pass committed in a bucket, read by the
 * packets after it; a pass taken back from a bucket it holds unmakes it,
 * and the next packet reads every cell (and writes it again).
 */
static void test_long_base(void **state)
{
	static struct long_ring lr;
	__u64 I = 60000 * MS, B = 1000 * MS;
	struct xrl_base *b = xrl_ring_base(&lr.r, XC(60));
	struct xrl_slot s, old;
	int i;

	(void)state;
	for (i = 0; i < 5; i++)
		assert_int_equal(judge_long(&lr.r, 60, I, S + 100 * MS, 10, &old), XRL_PASSED);
	fast_judged = 0;
	assert_int_equal(judge_long(&lr.r, 60, I, S + 10 * B, 10, &s), XRL_PASSED);
	assert_int_equal(fast_judged, 0); /* a new bucket: every cell read */
	assert_true((b->tag >> 32) == s.epoch && (b->tag & XRL_BASE_VALID));
	assert_int_equal(b->sum, 5);
	for (i = 0; i < 4; i++)
		assert_int_equal(judge_long(&lr.r, 60, I, S + 10 * B, 10, &s), XRL_PASSED);
	assert_int_equal(judge_long(&lr.r, 60, I, S + 10 * B, 10, &s), XRL_OVER);
	assert_int_equal(fast_judged, 5);
	/* Two passes of the first bucket taken back: two packets' room. */
	xrl_unreserve(&lr.r, XC(60), &old, 2, 8);
	assert_int_equal(xrl_reserve_fast(&lr.r, XC(60), &s, 10, 1, 8, 0, NULL, NULL), XRL_SLOW);
	assert_int_equal(judge_long(&lr.r, 60, I, S + 10 * B, 10, &s), XRL_PASSED);
	assert_int_equal(b->sum, 3);
	assert_int_equal(judge_long(&lr.r, 60, I, S + 10 * B, 10, &s), XRL_PASSED);
	assert_int_equal(judge_long(&lr.r, 60, I, S + 10 * B, 10, &s), XRL_OVER);
	/* A pass taken back from the newest bucket leaves the base as it is. */
	xrl_unreserve(&lr.r, XC(60), &s, 1, 8);
	fast_judged = 0;
	assert_int_equal(judge_long(&lr.r, 60, I, S + 10 * B, 10, &s), XRL_PASSED);
	assert_int_equal(fast_judged, 1);
	/* A carry into an older bucket (a replace) unmakes it too. */
	assert_int_equal(xrl_carry_add(&lr.r, XC(60), old.q, 1, 0, 8, 1), 1);
	assert_int_equal(xrl_reserve_fast(&lr.r, XC(60), &s, 11, 1, 8, 0, NULL, NULL), XRL_SLOW);
	assert_int_equal(judge_long(&lr.r, 60, I, S + 10 * B, 11, &s), XRL_OVER);
	/* A reset (another shape) empties it. */
	xrl_ring_reset(&lr.r, XC(60));
	assert_int_equal(b->tag, 0);
	assert_int_equal(judge_long(&lr.r, 60, I, S + 10 * B, 1, &s), XRL_PASSED);
}

/*
 * Long windows against a reference that keeps every pass by its bucket:
 * random gaps (within a bucket, across a few, past the window), random
 * thresholds, and passes taken back from random buckets still in the
 * window, as a later rule's drop or a lease's return does. Every decision
 * is the reference's: the base never makes a window block or pass otherwise.
 */
static void test_long_reference(void **state)
{
	static const __u32 shapes[] = { 17, 20, 59, 60 };
	static __u64 ref[1 << 17];
	struct xrl_slot slots[64];
	__u32 k, seed = 12345;
	int i;

	(void)state;
	fast_judged = 0;
	for (k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
		static struct long_ring lr;
		__u32 n = shapes[k], nslots = 0;
		__u64 I = (__u64)n * 100 * MS, blen = 100 * MS, t = S, T = 5 + k * 7;

		memset(&lr, 0, sizeof(lr));
		memset(ref, 0, sizeof(ref));
		for (i = 0; i < 20000; i++) {
			struct xrl_slot s;
			__u64 q, sum = 0, e;
			int want, got;

			seed = seed * 1103515245 + 12345;
			if ((seed >> 16) % 64 == 0)
				t += (__u64)((seed >> 8) % 3) * blen * n; /* past the window, maybe */
			else if ((seed >> 16) % 64 < 8)
				t += (__u64)((seed >> 8) % 4) * blen;
			else
				t += (seed >> 4) % (blen / 8);
			q = t / blen - S / blen;
			assert_true(q < sizeof(ref) / sizeof(ref[0]));
			for (e = q + 1 > n ? q + 1 - n : 0; e <= q; e++)
				sum += ref[e];
			want = sum + 1 > T ? XRL_OVER : XRL_PASSED;
			got = judge_long(&lr.r, n, I, t, T, &s);
			if (got != want)
				fail_msg("n %u packet %d at bucket %llu: %d, the reference %d (sum %llu, T %llu)", n, i,
					 (unsigned long long)q, got, want, (unsigned long long)sum,
					 (unsigned long long)T);
			if (got == XRL_PASSED) {
				ref[q]++;
				slots[nslots++ % 64] = s;
			}
			/* Now and then, a pass of a bucket the window holds is taken back. */
			if (nslots && (seed >> 20) % 11 == 0) {
				struct xrl_slot *o = &slots[(seed >> 12) % (nslots < 64 ? nslots : 64)];
				__u64 oq = o->q - S / blen;

				if (oq + n > q && ref[oq]) {
					xrl_unreserve(&lr.r, XC(n), o, 1, 8);
					ref[oq]--;
				}
			}
		}
	}
	print_message("long windows: %d of %d packets judged on the base\n", fast_judged, 80000);
	/* The others: a bucket's first packet, or one over (in the program, a latch answers those). */
	assert_true(fast_judged > 20000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_case1_idx_start),
		cmocka_unit_test(test_case2_same_bucket_then_fresh),
		cmocka_unit_test(test_case3_slot_reuse_and_deprecation),
		cmocka_unit_test(test_case4_sliding_sums),
		cmocka_unit_test(test_case5_decision),
		cmocka_unit_test(test_old_bucket_dropped),
		cmocka_unit_test(test_rollover),
		cmocka_unit_test(test_deprecation_boundary),
		cmocka_unit_test(test_idle_gap),
		cmocka_unit_test(test_time_stands_still),
		cmocka_unit_test(test_one_bucket),
		cmocka_unit_test(test_time_backwards),
		cmocka_unit_test(test_shape_check),
		cmocka_unit_test(test_case1_long_ring),
		cmocka_unit_test(test_case5_minute_window),
		cmocka_unit_test(test_long_base),
		cmocka_unit_test(test_long_reference),
		cmocka_unit_test(test_reserve_decides_and_counts),
		cmocka_unit_test(test_reserve_boundary_nanosecond),
		cmocka_unit_test(test_reserve_clock_skew),
		cmocka_unit_test(test_reserve_old_cells),
		cmocka_unit_test(test_block_add),
		cmocka_unit_test(test_reserve_racing_threads),
		cmocka_unit_test(test_reserve_cost),
		cmocka_unit_test(test_reserve_cost_cell_full),
		cmocka_unit_test(test_warm_threshold),
		cmocka_unit_test(test_warm_idle),
		cmocka_unit_test(test_lt),
		cmocka_unit_test(test_ring_fresh),
		cmocka_unit_test(test_last_interval),
		cmocka_unit_test(test_claim_new_ring_keeps_racing_pass),
		cmocka_unit_test(test_claim_other_gen_empties),
		cmocka_unit_test(test_last_interval_held_source),
	};

	return cmocka_run_group_tests_name("window", tests, NULL, NULL);
}
