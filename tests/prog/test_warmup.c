// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Sentinel's warm-up under BPF_PROG_TEST_RUN, on the test clock: a key's
 * threshold starts at T / 3 when its state is new (the rule just installed,
 * or a new source), climbs in a straight line, T/3 + 2T/3 * t / period, to
 * T at the end of the period, and starts over at T / 3 once the key has been
 * idle for a whole period (no packet counted from the end of its newest
 * bucket). Windows of one 1s bucket here, so each second's passes show the
 * threshold of that second.
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

static struct fx fx_w;

static int setup(void **state)
{
	return fx_setup(state, &fx_w, 0);
}

static int group_teardown(void **state)
{
	(void)state;
	xdp_ratelimit_bpf__destroy(fx_w.skel);
	return 0;
}

/* How many of count packets pass at time t. */
static int passes_at(struct fx *f, struct pkt *p, __u64 t, int count)
{
	set_now(f, t);
	return run_n(f, p, count);
}

/* T = 30 a second, warm-up 30s: the ramp's points, and its end. */
static void test_ramp_points(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 30, 1000, 1, 0);
	struct pkt p;

	r.warmup_ms = 30000;
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	assert_int_equal(passes_at(f, &p, T0, 40), 10);		      /* T / 3 at the start */
	assert_int_equal(passes_at(f, &p, T0 + 3 * SEC_NS, 40), 12);  /* 10 + 20 * 3/30 */
	assert_int_equal(passes_at(f, &p, T0 + 15 * SEC_NS, 40), 20); /* half way */
	assert_int_equal(passes_at(f, &p, T0 + 29 * SEC_NS + 999 * MS, 40),
			 29);					      /* 10 + 20 * 29999/30000, rounded down */
	assert_int_equal(passes_at(f, &p, T0 + 30 * SEC_NS, 40), 30); /* T after the period */
	assert_int_equal(passes_at(f, &p, T0 + 40 * SEC_NS, 40), 30);
}

/*
 * Idle: the last packet at T0 + 40s was in the bucket [40s, 41s). A whole
 * period later, less a millisecond, the key is still warm; a packet then
 * counts, so idle is measured from its bucket's end again: at exactly a
 * period after that, it starts over at T / 3.
 */
static void test_idle_restarts(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 30, 1000, 1, 0);
	struct pkt p;

	r.warmup_ms = 30000;
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	assert_int_equal(passes_at(f, &p, T0, 40), 10);
	assert_int_equal(passes_at(f, &p, T0 + 20 * SEC_NS, 40), 23); /* 10 + 20 * 20/30, rounded down */
	assert_int_equal(passes_at(f, &p, T0 + 40 * SEC_NS, 40), 30);
	assert_int_equal(passes_at(f, &p, T0 + 71 * SEC_NS - MS, 40), 30); /* idle 29.999s: warm */
	assert_int_equal(passes_at(f, &p, T0 + 101 * SEC_NS, 40), 10);	   /* idle 30s since [70s, 71s) ended */
	assert_int_equal(passes_at(f, &p, T0 + 116 * SEC_NS, 40), 20);	   /* climbing again */
	assert_int_equal(passes_at(f, &p, T0 + 131 * SEC_NS, 40), 30);
}

/* The threshold climbs within a bucket too: a key found over is not latched while it does. */
static void test_climbs_within_bucket(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 30, 1000, 1, 0);
	struct pkt p;

	r.warmup_ms = 3000;
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	assert_int_equal(passes_at(f, &p, T0, 11), 10);
	assert_int_equal(passes_at(f, &p, T0 + 300 * MS, 3), 2); /* 10 + 20 * 300/3000 = 12 */
	assert_int_equal(passes_at(f, &p, T0 + 600 * MS, 3), 2); /* 14 */
	assert_totals(f, r.id, 14, 3);
}

/* Per source: a new source starts cold while an older one is warm. */
static void test_new_source_cold(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 30, 1000, 1, XRL_F_PER_SOURCE);
	struct pkt a, b;

	r.warmup_ms = 30000;
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&a, "198.51.100.1", 53);
	udp4(&b, "198.51.100.2", 53);
	assert_int_equal(passes_at(f, &a, T0, 40), 10);
	assert_int_equal(passes_at(f, &a, T0 + 15 * SEC_NS, 40), 20);
	assert_int_equal(passes_at(f, &b, T0 + 15 * SEC_NS, 40), 10);
	assert_int_equal(passes_at(f, &a, T0 + 30 * SEC_NS, 40), 30);
	assert_int_equal(passes_at(f, &b, T0 + 30 * SEC_NS, 40), 20);
}

/* A rule installed again (a new gen: its keys' states start over) starts cold. */
static void test_reinstall_cold(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 30, 1000, 1, 0);
	struct pkt p;

	r.warmup_ms = 30000;
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	assert_int_equal(passes_at(f, &p, T0, 40), 10);
	assert_int_equal(passes_at(f, &p, T0 + 20 * SEC_NS, 40), 23); /* 10 + 20 * 20/30, rounded down */
	assert_int_equal(passes_at(f, &p, T0 + 40 * SEC_NS, 40), 30);
	r.gen = ++f->next_gen;
	put_port(f, XRL_PROTO_UDP, 53, &r);
	assert_int_equal(passes_at(f, &p, T0 + 41 * SEC_NS, 40), 10);
}

/* A byte rate warms up the same way: 3000 bytes a second starts at 1000. */
static void test_byte_rate_warms(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 0, 1000, 1, XRL_F_NO_PKT_RATE);
	struct pkt p;

	r.byte_threshold = 3000;
	r.byte_rate = 3000;
	r.byte_unit = XRL_BU_B;
	r.byte_unit_ms = 1000;
	r.warmup_ms = 30000;
	put_port(f, XRL_PROTO_UDP, 53, &r);
	pkt_init(&p);
	pkt_push_eth(&p);
	pkt_push_ipv4(&p, SRC4, "203.0.113.1", 0);
	pkt_push_udp(&p, 40000, 53);
	pkt_push_data(&p, 1000 - 42);
	pkt_finish(&p);
	assert_int_equal(passes_at(f, &p, T0, 5), 1);
	assert_int_equal(passes_at(f, &p, T0 + 15 * SEC_NS, 5), 2);
	assert_int_equal(passes_at(f, &p, T0 + 30 * SEC_NS, 5), 3);
}

/* Without warmup nothing ramps: the full threshold from the first packet. */
static void test_no_warmup(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 30, 1000, 1, 0);
	struct pkt p;

	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	assert_int_equal(passes_at(f, &p, T0, 40), 30);
}

#define T(fn) cmocka_unit_test_setup(fn, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ramp_points),	 T(test_idle_restarts),	 T(test_climbs_within_bucket),
		T(test_new_source_cold), T(test_reinstall_cold), T(test_byte_rate_warms),
		T(test_no_warmup),
	};

	fx_init();
	return cmocka_run_group_tests_name("warmup", tests, NULL, group_teardown);
}
