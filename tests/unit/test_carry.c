// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a replace carries over (user/lib/carry.c, layout_prev.h): a window
 * state's ring merged with what the old program counted after the fill, the
 * sketch at another width, and the previous layout's values read as this
 * layout's. A replace under traffic is in tests/e2e/replace.sh and
 * tests/e2e/upgrade_layout.sh; these are the cases traffic rarely hits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "carry.h"
#include "layout_prev.h"

static struct xrl_ring ring(__u64 last, __u32 epoch, __u32 pass, __u64 block)
{
	struct xrl_ring r = { .last = last };

	r.c[epoch % 2].word = xrl_word(epoch, pass);
	r.c[epoch % 2].block = block;
	return r;
}

/* The fill copied 3 passes of bucket 10; the new program then passed 2, the old one 4 more. */
static void test_merge_same_bucket(void **state)
{
	struct xrl_ring snap = ring(10, 10, 3, 1), now = ring(10, 10, 7, 5), dst = ring(10, 10, 5, 1);

	(void)state;
	xrl_ring_merge(&dst, &now, &snap);
	assert_int_equal(xrl_word_epoch(dst.c[0].word), 10);
	assert_int_equal(xrl_word_pass(dst.c[0].word), 9); /* 3 + 2 + 4: every pass, once */
	assert_int_equal(dst.c[0].block, 5);
}

/* The old program moved a cell to a new bucket after the fill: all of it is new, and newer. */
static void test_merge_newer_bucket(void **state)
{
	struct xrl_ring snap = ring(9, 9, 3, 0), now = ring(11, 11, 6, 2), dst = ring(9, 9, 3, 0);

	(void)state;
	xrl_ring_merge(&dst, &now, &snap);
	assert_int_equal(xrl_word_epoch(dst.c[1].word), 11);
	assert_int_equal(xrl_word_pass(dst.c[1].word), 6);
	assert_int_equal(dst.c[1].block, 2);
	assert_int_equal(dst.last, 11);
}

/* The new program is at a later bucket in that cell already: the old count is of a bucket gone. */
static void test_merge_older_left(void **state)
{
	struct xrl_ring snap = ring(10, 10, 3, 0), now = ring(10, 10, 8, 0), dst = ring(12, 12, 1, 0);

	(void)state;
	xrl_ring_merge(&dst, &now, &snap);
	assert_int_equal(xrl_word_epoch(dst.c[0].word), 12);
	assert_int_equal(xrl_word_pass(dst.c[0].word), 1);
	assert_int_equal(dst.last, 12);
}

/* A key the old program made after the fill: all of it counts. */
static void test_merge_new_key(void **state)
{
	struct xrl_ring now = ring(10, 10, 4, 0), dst = ring(10, 10, 1, 0);

	(void)state;
	xrl_ring_merge(&dst, &now, NULL);
	assert_int_equal(xrl_word_pass(dst.c[0].word), 5);
}

/* Nothing counted since the fill: the ring is as the new program left it. */
static void test_merge_nothing(void **state)
{
	struct xrl_ring snap = ring(10, 10, 3, 0), dst = ring(10, 10, 5, 0);

	(void)state;
	xrl_ring_merge(&dst, &snap, &snap);
	assert_int_equal(xrl_word_pass(dst.c[0].word), 5);
}

#define OW 8

static struct xrl_sketch_cell cell(__u32 ms, __u32 e0, __u32 p0)
{
	return (struct xrl_sketch_cell){ .interval_ms = ms, .w = { xrl_sketch_word(e0, p0), 0 } };
}

static void test_sketch_wider(void **state)
{
	struct xrl_sketch_cell o[XRL_SKETCH_DEPTH * OW] = {}, n[XRL_SKETCH_DEPTH * 2 * OW];

	(void)state;
	o[3] = cell(1000, 5, 7);      /* row 0, column 3 */
	o[OW + 6] = cell(1000, 5, 9); /* row 1, column 6 */
	xrl_sketch_carry(o, OW, n, 2 * OW);
	/* A source in column 3 of 8 is in column 3 or 11 of 16: both read what it passed. */
	assert_int_equal(xrl_sketch_word_pass(n[3].w[0]), 7);
	assert_int_equal(xrl_sketch_word_pass(n[11].w[0]), 7);
	assert_int_equal(xrl_sketch_word_pass(n[2 * OW + 6].w[0]), 9);
	assert_int_equal(xrl_sketch_word_pass(n[2 * OW + 14].w[0]), 9);
	assert_int_equal(n[4].interval_ms, 0);
}

static void test_sketch_narrower(void **state)
{
	struct xrl_sketch_cell o[XRL_SKETCH_DEPTH * OW] = {}, n[XRL_SKETCH_DEPTH * OW / 2];

	(void)state;
	o[1] = cell(1000, 5, 7);
	o[1 + OW / 2] = cell(1000, 5, 9); /* the same column of 4: the same bucket, summed */
	o[2] = cell(1000, 5, 3);
	o[2 + OW / 2] = cell(1000, 6, 4); /* a newer bucket is kept */
	xrl_sketch_carry(o, OW, n, OW / 2);
	assert_int_equal(xrl_sketch_word_pass(n[1].w[0]), 16);
	assert_int_equal(xrl_sketch_word_epoch(n[2].w[0]), 6);
	assert_int_equal(xrl_sketch_word_pass(n[2].w[0]), 4);
}

/* Layout 7's counters: the two malformed reasons added are zero, the rest where they were. */
static void test_prev_counters(void **state)
{
	struct xrl_counters_prev o;
	struct xrl_counters n;
	__u64 *w = (__u64 *)&o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(o) / 8; i++)
		w[i] = i + 1;
	xrl_counters_from_prev(&o, &n);
	assert_int_equal(n.seen, 1);
	assert_int_equal(n.sketch_blocked, 11);
	assert_int_equal(n.malformed[0], 12);
	assert_int_equal(n.malformed[XRL_PREV_MAL_MAX - 1], 11 + XRL_PREV_MAL_MAX);
	assert_int_equal(n.malformed[XRL_MAL_FRAG_TINY], 0);
	assert_int_equal(n.malformed[XRL_MAL_IPV6_CHAIN], 0);
	assert_int_equal(n.new_keys_second, 12 + XRL_PREV_MAL_MAX);
	assert_int_equal(n.new_keys_count, 13 + XRL_PREV_MAL_MAX);
}

/* Layout 7's fleet entry: its 64 bytes, and no expiry (the agent's next write sets one). */
static void test_prev_fleet(void **state)
{
	unsigned char o[XRL_FLEET_PREV_SIZE];
	struct xrl_fleet n;

	(void)state;
	memset(o, 0xab, sizeof(o));
	xrl_fleet_from_prev(o, &n);
	assert_memory_equal(&n, o, sizeof(o));
	assert_int_equal(n.expires_ns, 0);
	assert_int_equal(n.fallback, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_same_bucket), cmocka_unit_test(test_merge_newer_bucket),
		cmocka_unit_test(test_merge_older_left),  cmocka_unit_test(test_merge_new_key),
		cmocka_unit_test(test_merge_nothing),	  cmocka_unit_test(test_sketch_wider),
		cmocka_unit_test(test_sketch_narrower),	  cmocka_unit_test(test_prev_counters),
		cmocka_unit_test(test_prev_fleet),
	};

	return cmocka_run_group_tests_name("carry", tests, NULL, NULL);
}
