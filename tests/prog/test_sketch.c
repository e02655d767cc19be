// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sketch (include/xrl_sketch.h) under BPF_PROG_TEST_RUN: new sources past
 * the cap on states are judged there. The program is loaded with a cap of one
 * new state a second per CPU and a sketch SK_WIDTH wide, so that tests can
 * pick sources whose cells collide (the hash is computed here as the program
 * computes it). Each test spends the cap first (spend_cap): every source after
 * that, in the same second, is judged by the sketch. Needs root, as
 * test_xdp.c.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "xdp_fixture.h"
#include "read/stats.h"

#define SK_WIDTH 256
#define SK_T 5 /* the threshold of the tests' rules, per second */

static struct fx fx_sk = { .new_keys_cpu = 1, .sketch_width = SK_WIDTH };

static int setup(void **state)
{
	return fx_setup(state, &fx_sk, 0);
}

static int group_teardown(void **state)
{
	(void)state;
	xdp_ratelimit_bpf__destroy(fx_sk.skel);
	return 0;
}

/* Sources 10.<hi>.<lo / 256>.<lo % 256>. */
static void src4(char *buf, size_t len, int hi, unsigned int lo)
{
	snprintf(buf, len, "10.%d.%u.%u", hi, (lo >> 8) & 255, lo & 255);
}

/* The sketch's column of row `row` for a source under prefix rule r, as the program computes it. */
static __u32 col_of(const struct xrl_rule *r, const char *src, __u32 row)
{
	struct xrl_key k;
	__u8 a[16] = {};

	assert_int_equal(inet_pton(AF_INET, src, a), 1);
	memset(&k, 0, sizeof(k));
	xrl_key_make(&k, r, XRL_FAMILY_V4, a, 0, 0);
	return xrl_sketch_col(xrl_key_hash64(&k), row, SK_WIDTH);
}

/*
 * A source under 10.<hi>/16 whose cell in row `row` is the newcomer's and no
 * other of whose cells is: it fills that one cell of the newcomer's.
 */
static void collider(const struct xrl_rule *r, const char *newcomer, __u32 row, int hi, char *out, size_t len)
{
	unsigned int lo, i;

	for (lo = 0; lo < 65536; lo++) {
		int ok;

		src4(out, len, hi, lo);
		ok = col_of(r, out, row) == col_of(r, newcomer, row);
		for (i = 0; i < XRL_SKETCH_DEPTH && ok; i++)
			if (i != row)
				ok = col_of(r, out, i) != col_of(r, newcomer, i);
		if (ok)
			return;
	}
	fail_msg("no source of 10.%d/16 collides with %s in row %u only", hi, newcomer, row);
}

/* Spends this CPU's cap of new states for the second of now: a fresh source gets the one state. */
static void spend_cap(struct fx *f, int cpu)
{
	static unsigned int n;
	char s[32];
	struct pkt p;

	src4(s, sizeof(s), 250, n++);
	udp4(&p, s, 9);
	assert_int_equal(run_on(f, cpu, &p), XDP_PASS);
}

static int run_src(struct fx *f, const char *src, int count)
{
	struct pkt p;

	udp4(&p, src, 9);
	return run_n(f, &p, count);
}

static struct xrl_rule per_source(struct fx *f, const char *prefix, __u64 threshold, __u64 interval_ms, __u32 n)
{
	struct xrl_rule r = rule(f, threshold, interval_ms, n, XRL_F_PER_SOURCE);

	put_prefix(f, prefix, 8, &r);
	return r;
}

/* What explain shows for a key without a state: the sketch's estimate, read from userspace. */
static __u64 estimate(struct fx *f, const struct xrl_rule *r, const char *src, __u64 now)
{
	struct xrl_maps m = { .sketch = f->sketch };
	struct xrl_key k;
	__u8 a[16] = {};
	__u64 est;

	assert_int_equal(inet_pton(AF_INET, src, a), 1);
	memset(&k, 0, sizeof(k));
	xrl_key_make(&k, r, XRL_FAMILY_V4, a, 0, 0);
	assert_int_equal(xrl_sketch_estimate(&m, SK_WIDTH, &k, r, now, &est), 0);
	return est;
}

/* A key has a state only when it was made before the cap was spent. */
static int tracked(struct fx *f, const struct xrl_rule *r, const char *src)
{
	struct xrl_state st;
	struct xrl_key k;
	__u8 a[16] = {};

	assert_int_equal(inet_pton(AF_INET, src, a), 1);
	memset(&k, 0, sizeof(k));
	xrl_key_make(&k, r, XRL_FAMILY_V4, a, 0, 0);
	return fx_state(f, &k, &st) == 0;
}

/*
 * All but one of a newcomer's cells are full of other sources' passes: it
 * still gets its whole limit from the last, then is held there. With all of
 * them full, a newcomer is blocked from its first packet: the one way the
 * sketch wrongs a newcomer.
 */
static void test_sketch_newcomer_beside_full_cells(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = per_source(f, "10.0.0.0", SK_T, 1000, 2);
	const char *n = "10.1.0.1", *m = "10.1.0.2";
	char o[XRL_SKETCH_DEPTH][32];
	struct xrl_counters c;
	__u32 i;

	set_now(f, T0 + 100 * MS);
	spend_cap(f, 0);
	for (i = 0; i < XRL_SKETCH_DEPTH - 1; i++) {
		collider(&r, n, i, 2 + (int)i, o[i], sizeof(o[i]));
		assert_int_equal(run_src(f, o[i], SK_T + 2), SK_T); /* each other source: held at its limit */
	}
	assert_int_equal(estimate(f, &r, n, T0 + 100 * MS), 0);
	assert_int_equal(run_src(f, n, SK_T + 3), SK_T);
	assert_false(tracked(f, &r, n));
	assert_int_equal(estimate(f, &r, n, T0 + 100 * MS), SK_T);
	assert_int_equal(estimate(f, &r, n, T0 + 1000 * MS), 0); /* its window has passed */
	/* All its cells full: blocked at once (false block). */
	for (i = 0; i < XRL_SKETCH_DEPTH; i++) {
		collider(&r, m, i, 6 + (int)i, o[i], sizeof(o[i]));
		assert_int_equal(run_src(f, o[i], SK_T), SK_T);
	}
	assert_int_equal(run_src(f, m, 1), 0);
	assert_int_equal(estimate(f, &r, m, T0 + 100 * MS), SK_T);
	c = counters(f);
	assert_int_equal(c.keys_new, 1);
	assert_int_equal(c.sketch_judged, (XRL_SKETCH_DEPTH - 1) * (SK_T + 2) + SK_T + 3 + XRL_SKETCH_DEPTH * SK_T + 1);
	assert_int_equal(c.sketch_blocked, (XRL_SKETCH_DEPTH - 1) * 2 + 3 + 1);
}

/*
 * New sources past the cap are judged on the coarse clock (the time of the
 * last tick: no precise read for a flood of them), tracked sources on the
 * precise one. With the coarse clock a tick behind across a bucket boundary:
 * a heavy new source is held at its limit in the coarse clock's windows, and
 * a coarse read never moves the rule's bucket back (its stats, and the
 * latches of tracked sources, go by that bucket).
 */
static void test_sketch_coarse_clock(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = per_source(f, "10.0.0.0", SK_T, 1000, 2);
	struct xrl_rule_stats *rs = calloc(f->ncpus, sizeof(*rs));
	const char *h = "10.1.2.3", *t = "10.1.2.4";

	assert_non_null(rs);
	pin(0);
	set_now(f, T0 + 400 * MS);
	assert_int_equal(run_src(f, t, 2 * SK_T), SK_T); /* the second's one new state: t is tracked */
	assert_true(tracked(f, &r, t));
	set_now(f, T0 + 500 * MS + MS);	   /* precise: the second bucket */
	set_coarse(f, T0 + 500 * MS - MS); /* coarse: a tick behind, in the first */
	assert_int_equal(run_src(f, t, 1), 0);
	assert_int_equal(run_src(f, h, 2 * SK_T), SK_T);
	assert_false(tracked(f, &r, h));
	assert_int_equal(bpf_map_lookup_elem(f->rule_stats, &r.id, rs), 0);
	assert_int_equal(rs[0].slot.start, T0 + 500 * MS); /* not moved back */
	/* h's passes are in the coarse clock's first bucket: they count until it is two buckets old. */
	set_now(f, T0 + 1000 * MS + MS);
	set_coarse(f, T0 + 1000 * MS - MS);
	assert_int_equal(run_src(f, h, 1), 0);
	set_coarse(f, T0 + 1000 * MS + MS); /* a new second on the coarse clock: spend its cap */
	spend_cap(f, 0);
	assert_int_equal(run_src(f, h, 2 * SK_T), SK_T);
	assert_false(tracked(f, &r, h));
	assert_int_equal(bpf_map_lookup_elem(f->rule_stats, &r.id, rs), 0);
	assert_int_equal(rs[0].slot.start, T0 + 1000 * MS);
	free(rs);
}

/*
 * A heavy new source is held at its limit per window, and the window is
 * Sentinel's with two buckets of half the interval: the same verdicts as a
 * tracked key of a 2-bucket rule (test_window_boundaries in test_xdp.c),
 * though the rule has 4 buckets. Its latch (it is found over) must end with
 * the bucket.
 */
static void test_sketch_window_boundaries(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = per_source(f, "10.0.0.0", 4, 1000, 4);
	const char *h = "10.1.2.3";

	set_now(f, T0);
	spend_cap(f, 0);
	assert_int_equal(run_src(f, h, 1), 1);
	set_now(f, T0 + 499 * MS);
	assert_int_equal(run_src(f, h, 1), 1);
	set_now(f, T0 + 500 * MS); /* the second bucket */
	assert_int_equal(run_src(f, h, 3), 2);
	set_now(f, T0 + 1000 * MS - 1);
	assert_int_equal(run_src(f, h, 1), 0);
	/* A new second: spend its cap, or the heavy source would get a state now. */
	set_now(f, T0 + 1000 * MS);
	spend_cap(f, 0);
	assert_int_equal(run_src(f, h, 3), 2); /* the first bucket (2 passes) left */
	set_now(f, T0 + 1499 * MS);
	assert_int_equal(run_src(f, h, 1), 0);
	set_now(f, T0 + 1500 * MS);
	assert_int_equal(run_src(f, h, 5), 2);
	/* Over 20 windows at 10x its limit: exactly its limit each. */
	for (int s = 0; s < 20; s++) {
		set_now(f, T0 + (10 + (__u64)s) * SEC_NS);
		spend_cap(f, 0);
		assert_int_equal(run_src(f, h, 40), 4);
	}
	assert_false(tracked(f, &r, h));
}

/* Shared cells, on two CPUs taking turns: the heavy newcomer's limit holds across them. */
static void test_sketch_cpus_alternating(void **state)
{
	struct fx *f = fx_get(state);
	struct pkt p;
	int i, passed = 0;

	need_cpus(2);
	per_source(f, "10.0.0.0", 10, 1000, 2);
	set_now(f, T0 + 100 * MS);
	spend_cap(f, 0);
	spend_cap(f, 1);
	udp4(&p, "10.1.2.3", 9);
	for (i = 0; i < 40; i++)
		passed += run_on(f, i % 2, &p) == XDP_PASS;
	assert_int_equal(passed, 10);
}

/*
 * Rules of different intervals in the same cells. A cell another interval
 * counts in is full for this one while that window lasts (never an
 * under-count: this rule's heavy source stays held), and is taken over
 * once it has passed. Rules of one interval and different bucket counts
 * share cells as one.
 */
static void test_sketch_shapes(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule a = per_source(f, "10.0.0.0", SK_T, 1000, 2);
	struct xrl_rule b = per_source(f, "11.0.0.0", 3, 2000, 4);
	char o[XRL_SKETCH_DEPTH][32], bs[32] = "11.1.0.1";
	__u32 i, lo;

	/* Sources of rule a taking each of b's newcomer's cells, one a row. */
	for (i = 0; i < XRL_SKETCH_DEPTH; i++) {
		for (lo = 0; lo < 65536; lo++) {
			int ok;

			src4(o[i], sizeof(o[i]), 2 + (int)i, lo);
			ok = col_of(&a, o[i], i) == col_of(&b, "11.1.0.1", i);
			for (__u32 j = 0; j < XRL_SKETCH_DEPTH && ok; j++)
				if (j != i)
					ok = col_of(&a, o[i], j) != col_of(&b, "11.1.0.1", j);
			if (ok)
				break;
		}
		assert_true(lo < 65536);
	}
	set_now(f, T0 + 100 * MS);
	spend_cap(f, 0);
	for (i = 0; i < XRL_SKETCH_DEPTH; i++)
		assert_int_equal(run_src(f, o[i], 1), 1);
	/* a's cells are live (1 s window): they say full to b, whose newcomer is blocked. */
	set_now(f, T0 + 900 * MS);
	assert_int_equal(run_src(f, bs, 1), 0);
	/* a's window has passed (its last pass at 100 ms, buckets of 500 ms): b takes the cells over. */
	set_now(f, T0 + 1000 * MS);
	spend_cap(f, 0);
	assert_int_equal(run_src(f, bs, 5), 3);
	/*
	 * a's sources again: the cell b holds is full to them, their three
	 * others are empty, so they pass, counted in those three only: b's
	 * cells keep b's count.
	 */
	set_now(f, T0 + 1200 * MS);
	for (i = 0; i < XRL_SKETCH_DEPTH; i++)
		assert_int_equal(run_src(f, o[i], 1), 1);
	/* b's window (buckets of 1 s): its passes at 1.0 s count until 3.0 s, not after. */
	set_now(f, T0 + 1999 * MS);
	assert_int_equal(run_src(f, bs, 1), 0);
	set_now(f, T0 + 2999 * MS);
	spend_cap(f, 0);
	assert_int_equal(run_src(f, bs, 1), 0);
	set_now(f, T0 + 3000 * MS);
	spend_cap(f, 0);
	assert_int_equal(run_src(f, bs, 4), 3);
}

/* A source tracked before the cap was spent keeps its exact window; the cap leaves it alone. */
static void test_sketch_tracked_exact(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = per_source(f, "10.0.0.0", SK_T, 1000, 10);
	const char *t = "10.1.0.9";
	char s[32];
	unsigned int i;

	set_now(f, T0 + 100 * MS);
	assert_int_equal(run_src(f, t, 1), 1); /* this second's one new state */
	assert_true(tracked(f, &r, t));
	for (i = 0; i < 1000; i++) { /* a flood of new sources */
		src4(s, sizeof(s), 3, i);
		run_src(f, s, 1);
	}
	set_now(f, T0 + 250 * MS);
	assert_int_equal(run_src(f, t, 2 * SK_T), SK_T - 1);
	/* 10 buckets: 100 ms after its first pass left, exactly one more. */
	set_now(f, T0 + 1100 * MS);
	assert_int_equal(run_src(f, t, SK_T), 1);
	assert_true(tracked(f, &r, t));
}

/* P(Poisson(l) >= k). */
static double poisson_tail(double l, int k)
{
	double term = exp(-l), below = 0;
	int i;

	for (i = 0; i < k; i++) {
		below += term;
		term *= l / (i + 1);
	}
	return below >= 1 ? 0 : 1 - below;
}

/*
 * The false-block rate, measured: a flood of new sources, one frame each, L
 * a cell on average (L * width of them), then 1000 newcomers' first frames.
 * Each is wrongly blocked only when all its cells are full: at most
 * about P(Poisson(L) >= T)^d (the rows taken as independent). And the width is what makes fairness
 * possible: with L well past T every cell fills, and newcomers are blocked
 * whatever the depth.
 */
static void test_sketch_false_blocks(void **state)
{
	static const int loads[] = { 50, 80, 100, 120, 400 };
	struct fx *f = fx_get(state);
	const int T = 100, newcomers = 1000;
	char s[32];
	size_t k;

	struct xrl_rule r = per_source(f, "10.0.0.0", T, 1000, 2);

	for (k = 0; k < sizeof(loads) / sizeof(loads[0]); k++) {
		int L = loads[k], blocked = 0, i;
		double bound = pow(poisson_tail(L, T), XRL_SKETCH_DEPTH);

		set_now(f, T0 + (100 + 10 * (__u64)k) * SEC_NS);
		spend_cap(f, 0);
		for (i = 0; i < L * SK_WIDTH; i++) {
			src4(s, sizeof(s), 100 + (int)k, (unsigned int)i);
			run_src(f, s, 1);
		}
		/*
		 * Each newcomer's first packet, judged without counting (as explain
		 * does): counted, 1000 newcomers' passes would add about 4 to every cell (1000 / 256).
		 */
		for (i = 0; i < newcomers; i++) {
			src4(s, sizeof(s), 200 + (int)k, (unsigned int)i);
			blocked += estimate(f, &r, s, T0 + (100 + 10 * (__u64)k) * SEC_NS) >= (__u64)T;
		}
		/* ... which is the program's verdict: 20 more newcomers, through it. */
		for (i = 0; i < 20; i++) {
			__u64 e;

			src4(s, sizeof(s), 200 + (int)k, (unsigned int)(newcomers + i));
			e = estimate(f, &r, s, T0 + (100 + 10 * (__u64)k) * SEC_NS);
			assert_int_equal(run_src(f, s, 1), e < (__u64)T);
		}
		print_message("sketch %dx%d, T %d: flood %d a cell: %d of %d newcomers blocked (bound %.2g)\n",
			      XRL_SKETCH_DEPTH, SK_WIDTH, T, L, blocked, newcomers, bound);
		/* The bound, with room for chance: 3 standard deviations and 2. */
		assert_true(blocked <= newcomers * bound + 3 * sqrt(newcomers * bound) + 2);
		if (L >= 4 * T)
			assert_true(blocked >= newcomers * 9 / 10);
	}
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_sketch_newcomer_beside_full_cells),
		T(test_sketch_coarse_clock),
		T(test_sketch_window_boundaries),
		T(test_sketch_cpus_alternating),
		T(test_sketch_shapes),
		T(test_sketch_tracked_exact),
		T(test_sketch_false_blocks),
	};

	fx_init();
	return cmocka_run_group_tests_name("sketch", tests, NULL, group_teardown);
}
