// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sliding window of include/xrl_window.h against the spec
 * (shared/spec/sliding-window.md). The spec counts in ms; the header in ns.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "xrl_window.h"
#include "stats.h" /* xrl_qps: the one place QPS is computed */

#define MS 1000000ULL
#define S (1700000000000ULL * MS)

static struct xrl_sum sum_at(struct xrl_ring *r, __u32 n, __u64 interval, __u64 now)
{
	return xrl_sum(r, n, interval, now);
}

/* Adds pass and block to current(t), which must exist. */
static void add(struct xrl_ring *r, __u32 n, __u64 interval, __u64 t, __u64 pass, __u64 block)
{
	struct xrl_bucket *b = xrl_current(r, n, interval, t);

	assert_non_null(b);
	b->pass += pass;
	b->block += block;
}

/* Spec case 1. */
static void test_case1_idx_start(void **state)
{
	__u64 t = 1576296044907ULL * MS;
	struct xrl_slot s;

	(void)state;
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
	struct xrl_bucket *b0, *b1, *b2;

	(void)state;
	b0 = xrl_current(&r, 2, I, S);
	assert_non_null(b0);
	b0->pass++;
	b0->block++;
	assert_true(b0->start == S);
	assert_true(b0->pass == 1 && b0->block == 1);

	b1 = xrl_current(&r, 2, I, S + 500 * MS);
	assert_ptr_equal(b1, b0);
	b1->pass++;
	assert_true(b1->pass == 2 && b1->block == 1);

	b2 = xrl_current(&r, 2, I, S + 1000 * MS);
	assert_non_null(b2);
	assert_ptr_not_equal(b2, b0);
	assert_true(b2->start == S + 1000 * MS);
	assert_true(b2->pass == 0 && b2->block == 0);
	/* The first bucket is untouched. */
	assert_true(b0->pass == 2 && b0->block == 1);
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
	struct xrl_bucket *b;
	struct xrl_sum s = {};

	(void)state;
	assert_non_null(xrl_current(&r, 10, I, T0));
	assert_non_null(xrl_current(&r, 10, I, T0 + 100 * MS));

	xrl_ring_add(&r, 10, I, T0 + 100 * MS, 0, &s);
	assert_int_equal(s.buckets, 2);
	memset(&s, 0, sizeof(s));
	xrl_ring_add(&r, 10, I, T0, 0, &s);
	assert_int_equal(s.buckets, 1);

	b = xrl_current(&r, 10, I, T0 + 1100 * MS);
	assert_non_null(b);
	assert_ptr_equal(b, &r.b[1]); /* the slot of T0 + 100 */
	assert_true(b->start == S + 1100 * MS);
	b->pass++;

	memset(&s, 0, sizeof(s));
	xrl_ring_add(&r, 10, I, T0 + 1100 * MS, 0, &s);
	assert_int_equal(s.buckets, 1);
	assert_true(s.pass == 1);
	assert_true(xrl_deprecated(T0 + 1100 * MS, S, I)); /* 1137 > 1000 */
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
		xrl_slot_at(&slot, t, W, n);
		assert_int_equal(slot.idx, k % n);
	}
}

/* Exactly I old still counts; one nanosecond more does not. */
static void test_deprecation_boundary(void **state)
{
	const __u64 I = 1000 * MS;
	struct xrl_ring r = {};
	struct xrl_sum s = {};

	(void)state;
	assert_false(xrl_deprecated(S + I, S, I));
	assert_true(xrl_deprecated(S + I + 1, S, I));
	assert_false(xrl_deprecated(S, S, I));

	/* Read without refreshing, as a bucket on another CPU is. */
	add(&r, 2, I, S, 3, 1);
	xrl_ring_add(&r, 2, I, S + I, 0, &s);
	assert_true(s.pass == 3 && s.block == 1 && s.buckets == 1);
	memset(&s, 0, sizeof(s));
	xrl_ring_add(&r, 2, I, S + I + 1, 0, &s);
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
	assert_true(r.b[0].start == S + I);
}

/* Time going back: no bucket for an event whose slot holds a newer start. */
static void test_time_backwards(void **state)
{
	const __u64 I = 1000 * MS;
	struct xrl_ring r = {};

	(void)state;
	add(&r, 2, I, S + 1100 * MS, 3, 2); /* slot 0, start S+1000 */
	assert_null(xrl_current(&r, 2, I, S + 100 * MS)); /* slot 0, start S */
	assert_true(r.b[0].start == S + 1000 * MS);
	assert_true(r.b[0].pass == 3 && r.b[0].block == 2);
	/* Within the newer bucket, earlier than the last event: the same bucket. */
	assert_ptr_equal(xrl_current(&r, 2, I, S + 1000 * MS), &r.b[0]);
	/* Back to a slot holding an older start (empty): that one is reset. */
	assert_ptr_equal(xrl_current(&r, 2, I, S + 600 * MS), &r.b[1]);
	assert_true(r.b[1].start == S + 500 * MS);
	assert_true(r.b[0].pass == 3);
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
	assert_int_equal(xrl_shape_check(XRL_MAX_BUCKETS, 16 * MS), XRL_SHAPE_OK);
	assert_int_equal(xrl_shape_check(3, 3), XRL_SHAPE_OK);
}

/* A ring read from another CPU: its current bucket may start a little after our now. */
static void test_live_with_skew(void **state)
{
	const __u64 I = 1000 * MS, W = 250 * MS, now = S + 10 * W + 3;

	(void)state;
	assert_true(xrl_live(now, now + 1, I, W));
	assert_true(xrl_live(now, now + W - 1, I, W));
	assert_false(xrl_live(now, now + W, I, W));
	assert_false(xrl_live(now, now + 1, I, 0));
	assert_true(xrl_live(now, now, I, 0));
	assert_true(xrl_live(now, now - I, I, W));
	assert_false(xrl_live(now, now - I - 1, I, W));

	/* Summed with skew: the future bucket counts, one a full bucket ahead does not. */
	{
		struct xrl_ring r = {};
		struct xrl_sum s = {};
		struct xrl_slot slot;

		xrl_slot_at(&slot, now, W, 4);
		add(&r, 4, I, slot.start, 1, 0);
		add(&r, 4, I, slot.start + W, 10, 0);
		add(&r, 4, I, slot.start + 2 * W, 100, 0);
		xrl_ring_add(&r, 4, I, now, W, &s);
		assert_true(s.pass == 11);
		assert_int_equal(s.buckets, 2);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_case1_idx_start),
		cmocka_unit_test(test_case2_same_bucket_then_fresh),
		cmocka_unit_test(test_case3_slot_reuse_and_deprecation),
		cmocka_unit_test(test_case4_sliding_sums),
		cmocka_unit_test(test_case5_decision),
		cmocka_unit_test(test_rollover),
		cmocka_unit_test(test_deprecation_boundary),
		cmocka_unit_test(test_idle_gap),
		cmocka_unit_test(test_time_stands_still),
		cmocka_unit_test(test_one_bucket),
		cmocka_unit_test(test_time_backwards),
		cmocka_unit_test(test_shape_check),
		cmocka_unit_test(test_live_with_skew),
	};

	return cmocka_run_group_tests_name("window", tests, NULL, NULL);
}
