// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a replace carries over (user/lib/life/carry*.c, layouts/layout[89].h): a window
 * state's ring merged with what the old program counted after the fill, the
 * sketch at another width, and a retired layout's values read as this
 * layout's, found by the instance's control block. A replace under traffic is in tests/e2e/replace.sh and
 * tests/e2e/upgrade_layout.sh; these are the cases traffic rarely hits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "life/carry.h"
#include "life/carry_sketch.h"
#include "layouts/layout8.h"
#include "layouts/layout9.h"
#include "xrl_key.h"

/* The cells of the rings of these cases: a window of 2 buckets. */
#define C 3

static struct xrl_ring ring(__u64 last, __u32 epoch, __u32 pass, __u64 block)
{
	struct xrl_ring r = { .last = last };

	r.c[epoch % C].word = xrl_word(epoch, pass);
	xrl_ring_blocks(&r, C)[epoch % C] = block;
	return r;
}

/*
 * What the old program counted from snap to now, added into dst as the
 * carrier adds it into the new program's ring (bpf/carry.bpf.c).
 */
static void merge(struct xrl_ring *dst, __u32 ncells, const struct xrl_ring *now, const struct xrl_ring *snap,
		  __u32 ocells)
{
	struct xrl_carry_cell d[XRL_MAX_CELLS];
	__u32 i, n = xrl_ring_delta(now, snap, ocells, d);

	for (i = 0; i < n; i++)
		assert_int_equal(xrl_carry_add(dst, ncells, d[i].q, d[i].pass, d[i].block, 4, 1), 1);
}

/* The cell of bucket e. */
static struct xrl_cell *at(struct xrl_ring *r, __u32 e)
{
	return &r->c[e % C];
}

/* The blocks of bucket e's cell. */
static __u64 blocks_at(struct xrl_ring *r, __u32 e)
{
	return xrl_ring_blocks(r, C)[e % C];
}

/* The fill copied 3 passes of bucket 10; the new program then passed 2, the old one 4 more. */
static void test_merge_same_bucket(void **state)
{
	struct xrl_ring snap = ring(10, 10, 3, 1), now = ring(10, 10, 7, 5), dst = ring(10, 10, 5, 1);

	(void)state;
	merge(&dst, C, &now, &snap, C);
	assert_int_equal(xrl_word_epoch(at(&dst, 10)->word), 10);
	assert_int_equal(xrl_word_pass(at(&dst, 10)->word), 9); /* 3 + 2 + 4: every pass, once */
	assert_int_equal(blocks_at(&dst, 10), 5);
}

/* The old program moved a cell to a new bucket after the fill: all of it is new, and newer. */
static void test_merge_newer_bucket(void **state)
{
	struct xrl_ring snap = ring(9, 9, 3, 0), now = ring(12, 12, 6, 2), dst = ring(9, 9, 3, 0);

	(void)state;
	merge(&dst, C, &now, &snap, C);
	assert_int_equal(xrl_word_epoch(at(&dst, 12)->word), 12);
	assert_int_equal(xrl_word_pass(at(&dst, 12)->word), 6);
	assert_int_equal(blocks_at(&dst, 12), 2);
	assert_int_equal(dst.last, 12);
}

/* The new program is at a later bucket in that cell already: the old count is of a bucket gone. */
static void test_merge_older_left(void **state)
{
	struct xrl_ring snap = ring(10, 10, 3, 0), now = ring(10, 10, 8, 0), dst = ring(13, 13, 1, 0);

	(void)state;
	merge(&dst, C, &now, &snap, C);
	assert_int_equal(xrl_word_epoch(at(&dst, 13)->word), 13);
	assert_int_equal(xrl_word_pass(at(&dst, 13)->word), 1);
	assert_int_equal(dst.last, 13);
}

/* A key the old program made after the fill: all of it counts. */
static void test_merge_new_key(void **state)
{
	struct xrl_ring now = ring(10, 10, 4, 0), dst = ring(10, 10, 1, 0);

	(void)state;
	merge(&dst, C, &now, NULL, C);
	assert_int_equal(xrl_word_pass(at(&dst, 10)->word), 5);
}

/* Nothing counted since the fill: the ring is as the new program left it. */
static void test_merge_nothing(void **state)
{
	struct xrl_ring snap = ring(10, 10, 3, 0), dst = ring(10, 10, 5, 0);

	(void)state;
	merge(&dst, C, &snap, &snap, C);
	assert_int_equal(xrl_word_pass(at(&dst, 10)->word), 5);
}

/*
 * Layout 8's ring (16 cells, bucket q of a 2-bucket window in cell q % 2) as
 * one of 3 cells: each bucket in cell q % 3, so the window reads the same,
 * and the old program's passes after the fill land in the right bucket.
 */
static void test_recell_from_layout_8(void **state)
{
	struct xrl_ring o = { .last = 101 }, n, snap, now;
	const __u64 I = 1000000000ULL, W = I / 2, t = 101 * W + 1;

	(void)state;
	o.c[100 % 2].word = xrl_word(100, 40);
	o.c[101 % 2].word = xrl_word(101, 7);
	xrl_ring_blocks(&o, XRL_LAYOUT8_CELLS)[101 % 2] = 3;
	xrl_ring_recell(&o, XRL_LAYOUT8_CELLS, &n, C);
	assert_int_equal(xrl_window_at(&n, 2, C, I, t).pass, 47);
	assert_int_equal(xrl_window_at(&n, 2, C, I, t).block, 3);
	assert_int_equal(xrl_word_pass(at(&n, 100)->word), 40);
	/* The old program passed 2 more in bucket 101 after the fill. */
	snap = o;
	now = o;
	now.c[101 % 2].word = xrl_word(101, 9);
	merge(&n, C, &now, &snap, XRL_LAYOUT8_CELLS);
	assert_int_equal(xrl_window_at(&n, 2, C, I, t).pass, 49);
}

/* Fewer cells than the old ring: where two buckets meet the newer stays (a window never reads the older). */
static void test_recell_fewer(void **state)
{
	struct xrl_ring o = { .last = 20 }, n;
	__u32 e;

	(void)state;
	for (e = 5; e <= 20; e++)
		o.c[e % 16].word = xrl_word(e, e);
	xrl_ring_recell(&o, 16, &n, C);
	for (e = 18; e <= 20; e++)
		assert_int_equal(xrl_word_pass(at(&n, e)->word), e);
}

/* Layout 8's rule stats: the same head, the byte totals from after the ring, the ring's cells as they were. */
static void test_layout8_rule_stats(void **state)
{
	struct xrl_rule_stats8 o;
	struct xrl_rule_stats n, h = { .gen = 3, .pass = 11, .block = 12 };

	(void)state;
	memset(&o, 0, sizeof(o));
	memcpy(o.head, &h, sizeof(o.head));
	o.last = 101;
	o.c[1].word = xrl_word(101, 5);
	o.c[1].block = 2;
	o.pass_bytes = 1500;
	o.block_bytes = 64;
	assert_int_equal(xrl_layout8.rule_stats_cells(sizeof(o)), XRL_LAYOUT8_CELLS);
	xrl_layout8.rule_stats_read(&o, XRL_LAYOUT8_CELLS, &n);
	assert_int_equal(n.gen, 3);
	assert_int_equal(n.pass, 11);
	assert_int_equal(n.block, 12);
	assert_int_equal(n.pass_bytes, 1500);
	assert_int_equal(n.block_bytes, 64);
	assert_int_equal(n.ring.last, 101);
	assert_int_equal(xrl_word_pass(n.ring.c[1].word), 5);
	assert_int_equal(xrl_ring_blocks(&n.ring, XRL_LAYOUT8_CELLS)[1], 2);
}

/*
 * Layout 9's window state, its cells of two words (the pass word, then the
 * blocks), as this layout's: its pass words side by side, the blocks after
 * them, a long ring's base where it was; the value is of the same size, so
 * only the control block's layout tells them apart (rings_moved).
 */
/* Writes cell i of a ring of two-word cells in the value v, its ring at offset ring. */
static void put16(__u8 *v, size_t ring, __u32 i, __u64 word, __u64 block)
{
	struct xrl_cell16 c = { word, block };

	memcpy(v + ring + offsetof(struct xrl_ring, c) + i * sizeof(c), &c, sizeof(c));
}

static void test_layout9_state(void **state)
{
	__u8 o[sizeof(struct xrl_state)] = {};
	struct xrl_state n, h = { .gen = 4, .warm = 77, .ring = { .last = 1000, .seq = 9 } };
	struct xrl_base b = { .tag = 1000ULL << 32 | XRL_BASE_VALID, .sum = 118 };
	const size_t ring = offsetof(struct xrl_state, ring);
	const __u32 cells = XRL_MAX_CELLS; /* a long ring: its base after the cells */
	const __u64 I = 60000000000ULL, t = 1000 * (I / 60) + 1;
	__u32 e;

	(void)state;
	assert_int_equal(xrl_state_size(cells),
			 offsetof(struct xrl_state, ring.c) + cells * sizeof(struct xrl_cell16) + sizeof(b));
	memcpy(o, &h, offsetof(struct xrl_state, ring.c));
	for (e = 941; e <= 1000; e++)
		put16(o, ring, e % cells, xrl_word(e, 2), e == 1000 ? 5 : 1);
	memcpy(o + offsetof(struct xrl_state, ring.c) + cells * sizeof(struct xrl_cell16), &b, sizeof(b));
	memcpy(&n, o, sizeof(n));
	assert_true(xrl_layout9.rings_moved);
	xrl_layout9.state_read(&n, cells);
	assert_int_equal(n.gen, 4);
	assert_int_equal(n.warm, 77);
	assert_int_equal(n.ring.seq, 9);
	assert_int_equal(xrl_word_pass(n.ring.c[1000 % cells].word), 2);
	assert_int_equal(xrl_ring_blocks(&n.ring, cells)[1000 % cells], 5);
	assert_int_equal(xrl_window_at(&n.ring, 60, cells, I, t).pass, 120);
	assert_int_equal(xrl_window_at(&n.ring, 60, cells, I, t).block, 64);
	assert_int_equal(xrl_ring_base(&n.ring, cells)->sum, 118);
	assert_int_equal(xrl_ring_base(&n.ring, cells)->tag, 1000ULL << 32 | XRL_BASE_VALID);
}

/* Layout 9's rule stats: the head as it was, the ring's two-word cells as this layout's. */
static void test_layout9_rule_stats(void **state)
{
	__u8 o[sizeof(struct xrl_rule_stats)] = {};
	struct xrl_rule_stats n, h = { .gen = 3, .pass = 11, .block = 12, .pass_bytes = 1500, .ring = { .last = 101 } };
	const size_t ring = offsetof(struct xrl_rule_stats, ring);

	(void)state;
	memcpy(o, &h, offsetof(struct xrl_rule_stats, ring.c));
	put16(o, ring, 101 % C, xrl_word(101, 5), 6);
	put16(o, ring, 100 % C, xrl_word(100, 1), 2);
	xrl_layout9.rule_stats_read(o, C, &n);
	assert_int_equal(n.gen, 3);
	assert_int_equal(n.pass, 11);
	assert_int_equal(n.block, 12);
	assert_int_equal(n.pass_bytes, 1500);
	assert_int_equal(n.ring.last, 101);
	assert_int_equal(xrl_window_at(&n.ring, 2, C, 1000000000ULL, 101 * 500000000ULL).pass, 6);
	assert_int_equal(xrl_window_at(&n.ring, 2, C, 1000000000ULL, 101 * 500000000ULL).block, 8);
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

/* The retired layouts an instance's control block names, and what is asked of them by the rest. */
static void test_retired_of(void **state)
{
	struct xrl_key k = { .rule_id = 7, .family = XRL_FAMILY_V4, .addr = { 192, 0, 2, 1 } };

	(void)state;
	assert_ptr_equal(xrl_retired_of(8, 0), &xrl_layout8);
	assert_ptr_equal(xrl_retired_of(9, 0), &xrl_layout9_latches8);
	assert_ptr_equal(xrl_retired_of(9, XRL_LATCH_SLOTS), &xrl_layout9);
	assert_null(xrl_retired_of(XRL_LAYOUT_VERSION, XRL_LATCH_SLOTS));
	assert_null(xrl_retired_of(7, 0));
	assert_int_equal(xrl_retired_oldest(), XRL_LAYOUT_OLDEST);
	assert_non_null(xrl_retired_of(XRL_LAYOUT_OLDEST, 0));
	assert_true(xrl_retired_pin("xrl_eval"));
	assert_true(xrl_retired_pin("xrl_prefixes"));
	assert_false(xrl_retired_pin(XRL_MAP_STATE));
	/* Only layout 9's first builds placed them by layout 8's hash; none of this layout did. */
	assert_ptr_equal(xrl_layout9_latches8.latch_slot, xrl_layout8.latch_slot);
	assert_int_not_equal(xrl_layout8.latch_slot(&k), xrl_key_hash(&k));
	assert_null(xrl_retired_of(XRL_LAYOUT_VERSION, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_same_bucket), cmocka_unit_test(test_merge_newer_bucket),
		cmocka_unit_test(test_merge_older_left),  cmocka_unit_test(test_merge_new_key),
		cmocka_unit_test(test_merge_nothing),	  cmocka_unit_test(test_recell_from_layout_8),
		cmocka_unit_test(test_recell_fewer),	  cmocka_unit_test(test_sketch_wider),
		cmocka_unit_test(test_sketch_narrower),	  cmocka_unit_test(test_layout8_rule_stats),
		cmocka_unit_test(test_layout9_state),	  cmocka_unit_test(test_layout9_rule_stats),
		cmocka_unit_test(test_retired_of),
	};

	return cmocka_run_group_tests_name("carry", tests, NULL, NULL);
}
