// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sketch's arithmetic (include/xrl_sketch.h), the same header the XDP
 * program compiles: a cell's two-bucket window, cells of another interval,
 * and two threads passing one key at once, which is where its bound on a
 * heavy source is loosest (see the header).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/types.h>

#include "xrl_sketch.h"

#define SEC 1000000000ULL
#define I SEC /* the interval: buckets of 500 ms */

static int judge(struct xrl_sketch_cell *c, __u64 interval, __u64 threshold, __u64 now)
{
	struct xrl_sketch_cell *cell[XRL_SKETCH_DEPTH] = { &c[0], &c[1] };
	__u64 est;

	return xrl_sketch_judge(cell, interval, threshold, now, 0, &est);
}

/* A pass counted in one cell, as xrl_sketch_judge counts it there. */
static void add(struct xrl_sketch_cell *c, __u64 interval, __u32 E)
{
	int kind;

	xrl_sketch_cell_est(c, interval, ~0ULL, (__u64)E * xrl_sketch_blen(interval), E, &kind);
	xrl_sketch_cell_add(c, interval, E, kind, 1);
}

/* A cell counts its bucket and the one before (Sentinel, two buckets), and one a CPU already moved on to. */
static void test_cell_window(void **state)
{
	struct xrl_sketch_cell c = { 0 };
	__u32 E = xrl_sketch_epoch(1000 * SEC, I);

	(void)state;
	add(&c, I, E);
	add(&c, I, E);
	add(&c, I, E + 1);
	assert_int_equal(c.interval_ms, I / 1000000);
	assert_int_equal(xrl_sketch_cell_sum(&c, E), 3);
	assert_int_equal(xrl_sketch_cell_sum(&c, E + 1), 3);
	assert_int_equal(xrl_sketch_cell_sum(&c, E + 2), 1); /* E has left */
	assert_int_equal(xrl_sketch_cell_sum(&c, E + 3), 0);
	add(&c, I, E + 2); /* moves the slot of E on */
	assert_int_equal(xrl_sketch_cell_sum(&c, E + 2), 2);
}

/*
 * A word keeps 12 bits of its epoch: the window slides across the wrap from
 * epoch 4095 to 4096 (0 in the word) as anywhere else.
 */
static void test_cell_epoch_wrap(void **state)
{
	struct xrl_sketch_cell c = { 0 };
	__u32 E = 3 * 4096 + 4095;

	(void)state;
	add(&c, I, E);
	add(&c, I, E);
	assert_int_equal(xrl_sketch_cell_sum(&c, E), 2);
	add(&c, I, E + 1);
	assert_int_equal(xrl_sketch_cell_sum(&c, E + 1), 3);
	assert_int_equal(xrl_sketch_cell_sum(&c, E + 2), 1);
	add(&c, I, E + 2); /* the slot of E, reused in the next 4096 */
	assert_int_equal(xrl_sketch_cell_sum(&c, E + 2), 2);
	assert_int_equal(xrl_sketch_cell_sum(&c, E + 4), 0);
}

/*
 * Counts are 20 bits: a key whose estimate reaches XRL_SKETCH_FULL is over
 * whatever its threshold, so no add carries into the epoch.
 */
static void test_cell_full(void **state)
{
	struct xrl_sketch_cell c[XRL_SKETCH_DEPTH];
	__u64 now = 1000 * SEC + 100000000ULL;
	__u32 E = xrl_sketch_epoch(now, I), i;

	(void)state;
	memset(c, 0, sizeof(c));
	for (i = 0; i < XRL_SKETCH_DEPTH; i++) {
		c[i].interval_ms = I / 1000000;
		c[i].w[E & 1] = xrl_sketch_word(E, XRL_SKETCH_FULL - 1);
	}
	assert_int_equal(judge(c, I, ~0ULL, now), XRL_PASSED);
	for (i = 0; i < XRL_SKETCH_DEPTH; i++)
		assert_int_equal(xrl_sketch_cell_sum(&c[i], E), XRL_SKETCH_FULL);
	assert_int_equal(judge(c, I, ~0ULL, now), XRL_OVER);
	for (i = 0; i < XRL_SKETCH_DEPTH; i++) {
		assert_int_equal(xrl_sketch_word_epoch(c[i].w[E & 1]), E & XRL_SKETCH_EPOCH_MASK);
		assert_int_equal(xrl_sketch_cell_sum(&c[i], E), XRL_SKETCH_FULL);
	}
}

/* Another interval's cell: full while its own window lasts, then taken over with its words cleared. */
static void test_cell_other_interval(void **state)
{
	struct xrl_sketch_cell c = { 0 };
	__u64 now = 1000 * SEC;
	int kind;

	(void)state;
	add(&c, 2 * SEC, xrl_sketch_epoch(now, 2 * SEC));
	assert_int_equal(xrl_sketch_cell_est(&c, I, 7, now + SEC, xrl_sketch_epoch(now + SEC, I), &kind), 7);
	assert_int_equal(kind, XRL_SKETCH_BUSY);
	/* Its window (buckets of 1 s) is over 2 s later. */
	assert_int_equal(xrl_sketch_cell_est(&c, I, 7, now + 2 * SEC, xrl_sketch_epoch(now + 2 * SEC, I), &kind), 0);
	assert_int_equal(kind, XRL_SKETCH_STALE);
	add(&c, I, xrl_sketch_epoch(now + 2 * SEC, I));
	assert_int_equal(c.interval_ms, I / 1000000);
	assert_int_equal(xrl_sketch_cell_sum(&c, xrl_sketch_epoch(now + 2 * SEC, I)), 1);
}

/*
 * Two threads pass one key at once, window after window (each an empty
 * window: the clock moves two buckets each round), through one set of
 * cells: what the key passes a window over its threshold is what the races
 * let through. With the conservative update (counting only in the cells at
 * the minimum) this found up to 83 passes of a threshold of 50: two
 * threads' updates left cells above the minimum short of the key's count.
 */
#define RACE_T 50
#define RACE_ROUNDS 20000

static struct xrl_sketch_cell race_cells[XRL_SKETCH_DEPTH];
static pthread_barrier_t race_bar;
static int race_passed[2][RACE_ROUNDS];

static void *racer(void *arg)
{
	int t = (int)(intptr_t)arg, r, k;

	for (r = 0; r < RACE_ROUNDS; r++) {
		__u64 now = 1000 * SEC + (__u64)r * I; /* two 500 ms buckets a round */

		pthread_barrier_wait(&race_bar);
		for (k = 0; k < 2 * RACE_T; k++)
			race_passed[t][r] += judge(race_cells, I, RACE_T, now) == XRL_PASSED;
	}
	return NULL;
}

static void test_two_cpus_one_key(void **state)
{
	pthread_t th[2];
	int r, t, max = 0, over = 0;
	long extra = 0;

	(void)state;
	pthread_barrier_init(&race_bar, NULL, 2);
	for (t = 0; t < 2; t++)
		assert_int_equal(pthread_create(&th[t], NULL, racer, (void *)(intptr_t)t), 0);
	for (t = 0; t < 2; t++)
		pthread_join(th[t], NULL);
	for (r = 0; r < RACE_ROUNDS; r++) {
		int p = race_passed[0][r] + race_passed[1][r];

		assert_true(p >= RACE_T); /* never less than the limit: no count lost for good */
		if (p > max)
			max = p;
		if (p > RACE_T) {
			over++;
			extra += p - RACE_T;
		}
	}
	print_message("two threads, one key, %d windows of %d: %d over (%ld packets in all), at most %d\n", RACE_ROUNDS,
		      RACE_T, over, extra, max);
	/*
	 * One packet over at most (the other thread's, read before this one's
	 * count landed), and in a minority of windows: how many depends on how
	 * the host runs the two threads (12% of them on a busy 2-vCPU host,
	 * where a tenth was asked; 4-35% under ASan there, where a quarter was:
	 * both failed through no change of the sketch's). The bound is what
	 * holds on any host: never one over in every window, as a count lost
	 * between the two threads each round would make it.
	 */
	assert_true(max <= RACE_T + 1);
	assert_true(over < RACE_ROUNDS * 3 / 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cell_window),	 cmocka_unit_test(test_cell_epoch_wrap),
		cmocka_unit_test(test_cell_full),	 cmocka_unit_test(test_cell_other_interval),
		cmocka_unit_test(test_two_cpus_one_key),
	};

	return cmocka_run_group_tests_name("sketch", tests, NULL, NULL);
}
