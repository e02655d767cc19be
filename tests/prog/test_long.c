// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Long windows under BPF_PROG_TEST_RUN, on the test clock: Sentinel's
 * minute window (60 buckets of a second) in the program loaded with rings
 * of 61 cells, as the loader sizes them for it. A long ring's packets are
 * judged on the sum of its older buckets (its base) and its bucket's cell;
 * these hold the decisions to the window's, bucket by bucket, as the
 * buckets leave it.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "xdp_fixture.h"

#define SRC4 "198.51.100.7"

static struct fx fx_l = { .cells = XRL_MAX_CELLS };

static int setup(void **state)
{
	return fx_setup(state, &fx_l, 0);
}

static int group_teardown(void **state)
{
	(void)state;
	xdp_ratelimit_bpf__destroy(fx_l.skel);
	return 0;
}

/* How many of count packets pass at time t. */
static int passes_at(struct fx *f, struct pkt *p, __u64 t, int count)
{
	set_now(f, t);
	return run_n(f, p, count);
}

/* The window's pass sum of the key of rule r and the packet's source at t, read from its ring. */
static __u64 window_pass(struct fx *f, const struct xrl_rule *r, __u64 t)
{
	__u8 src[16] = { 198, 51, 100, 7 };
	struct xrl_key k = {};
	struct xrl_state st;

	xrl_key_make(&k, r, XRL_FAMILY_V4, src, 53, XRL_PROTO_UDP);
	assert_int_equal(fx_state(f, &k, &st), 0);
	return xrl_window_at(&st.ring, r->buckets, XRL_MAX_CELLS, r->interval_ns, t).pass;
}

/*
 * 60 a minute over 60 buckets: what each second passes is what left the
 * window with the second a minute before, to the packet.
 */
static void test_minute_window(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 60, 60000, 60, XRL_F_PER_SOURCE);
	struct pkt p;
	int s;

	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	assert_int_equal(passes_at(f, &p, T0 + 100 * MS, 25), 25);
	assert_int_equal(passes_at(f, &p, T0 + 10 * SEC_NS, 30), 30);
	assert_int_equal(passes_at(f, &p, T0 + 30 * SEC_NS + 500 * MS, 10), 5); /* 55 + 5 */
	assert_int_equal(window_pass(f, &r, T0 + 30 * SEC_NS + 500 * MS), 60);
	/* Each second a minute on: the bucket that left the window frees what it held, no more. */
	assert_int_equal(passes_at(f, &p, T0 + 59 * SEC_NS + 999 * MS, 5), 0);
	assert_int_equal(passes_at(f, &p, T0 + 60 * SEC_NS, 40), 25);
	assert_int_equal(passes_at(f, &p, T0 + 60 * SEC_NS + 999 * MS, 5), 0);
	assert_int_equal(passes_at(f, &p, T0 + 70 * SEC_NS, 40), 30);
	assert_int_equal(passes_at(f, &p, T0 + 90 * SEC_NS + 500 * MS, 40), 5);
	/* Idle for the whole minute: all of it again. */
	assert_int_equal(passes_at(f, &p, T0 + 200 * SEC_NS, 70), 60);
	for (s = 201; s < 260; s++)
		assert_int_equal(passes_at(f, &p, T0 + s * SEC_NS, 3), 0);
	assert_int_equal(passes_at(f, &p, T0 + 260 * SEC_NS, 70), 60);
	assert_totals(f, r.id, 25 + 30 + 5 + 25 + 30 + 5 + 60 + 60, 5 + 5 + 5 + 15 + 10 + 35 + 10 + 59 * 3 + 10);
}

/*
 * Every second a few packets, for three minutes, on two CPUs by turns: the
 * window never holds more than its threshold, and is full whenever the
 * packets ask more of it.
 */
static void test_minute_window_steady(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 100, 60000, 60, XRL_F_PER_SOURCE);
	__u64 passed[240] = { 0 }, in;
	struct pkt p;
	int s, i, j;

	need_cpus(2);
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	for (s = 0; s < 240; s++) {
		set_now(f, T0 + (__u64)s * SEC_NS + 300 * MS);
		for (i = 0; i < 1 + s % 4; i++)
			passed[s] += run_on(f, i % 2, &p) == XDP_PASS;
		for (in = 0, j = s > 59 ? s - 59 : 0; j <= s; j++)
			in += passed[j];
		assert_true(in <= 100);
		/* 2.5 a second asked: the window fills, then passes what leaves it. */
		if (s >= 60)
			assert_int_equal(in, 100);
		assert_int_equal(window_pass(f, &r, T0 + (__u64)s * SEC_NS + 300 * MS), in);
	}
}

/*
 * A lease's passes given back to an older bucket after the base of a newer
 * one was written (it held them then) are room again: CPU 0 leases in
 * bucket 0, CPU 1 opens bucket 1 (its base holds bucket 0 with the lease),
 * CPU 0 then gives back what its lease had left. The window still fills to
 * its threshold exactly, not short by what was given back.
 */
static void test_lease_given_back_after_base(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 60000, 60000, 60, XRL_F_PER_SOURCE);
	struct pkt p;
	int i, passed = 0, blocked = 0;

	need_cpus(2);
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	set_now(f, T0 + 100 * MS);
	for (i = 0; i < 300; i++)
		passed += run_on(f, 0, &p) == XDP_PASS;
	set_now(f, T0 + SEC_NS + 100 * MS);
	for (i = 0; i < 10; i++)
		passed += run_on(f, 1, &p) == XDP_PASS;
	set_now(f, T0 + SEC_NS + 200 * MS);
	for (i = 0; i < 10; i++)
		passed += run_on(f, 0, &p) == XDP_PASS;
	assert_int_equal(passed, 320);
	set_now(f, T0 + SEC_NS + 300 * MS);
	for (i = 0; i < 70000 && blocked < 100; i++) {
		if (run_on(f, i % 2, &p) == XDP_PASS)
			passed++;
		else
			blocked++;
	}
	assert_int_equal(passed, 60000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_minute_window, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_minute_window_steady, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_lease_given_back_after_base, setup, fx_teardown),
	};

	fx_init();
	return cmocka_run_group_tests_name("long windows (BPF_PROG_TEST_RUN)", tests, NULL, group_teardown);
}
