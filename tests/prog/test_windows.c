// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Rules of several windows under BPF_PROG_TEST_RUN, on the test clock: a
 * burst and a sustained rate on one rule ('rate 3/s rate 5/min' in short),
 * each window its own key and ring; a packet passes only when every window
 * has room, and counts in each; the first window over decides, and the
 * passes the windows before it counted are taken back; a source over its
 * second window is latched there until that window has room; a byte rate
 * as a next window; another rule's drop takes back every window's pass.
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

/* What window r (a rule or a next window) holds for SRC4 on port 53/udp at now: bytes when bytes. */
static __u64 held(struct fx *f, const struct xrl_rule *r, int bytes)
{
	struct xrl_key k = {};
	struct xrl_state st;
	__u8 a[16] = {};

	assert_int_equal(inet_pton(AF_INET, SRC4, a), 1);
	xrl_key_make(&k, r, XRL_FAMILY_V4, a, 53, XRL_PROTO_UDP);
	if (bytes)
		k.rule_id |= XRL_KEY_BYTES;
	if (fx_state(f, &k, &st))
		return 0;
	return xrl_window_at(&st.ring, r->buckets, XRL_SHORT_CELLS, r->interval_ns, f->skel->bss->xrl_test_now).pass;
}

/* This CPU's latch of window r's key for SRC4 on port 53/udp. */
static struct xrl_latch latch_of(struct fx *f, const struct xrl_rule *r)
{
	struct xrl_latch *v = calloc(f->ncpus, sizeof(*v)), l;
	struct xrl_key k = {};
	__u8 a[16] = {};
	__u32 h;

	assert_non_null(v);
	assert_int_equal(inet_pton(AF_INET, SRC4, a), 1);
	xrl_key_make(&k, r, XRL_FAMILY_V4, a, 53, XRL_PROTO_UDP);
	h = fx_latch_home(f, &k);
	assert_int_equal(bpf_map_lookup_elem(f->latches, &h, v), 0);
	l = v[cpus[0]];
	free(v);
	if (!xrl_key_equal(&l.key, &k))
		memset(&l, 0, sizeof(l));
	return l;
}

/* 3 a second over 2 buckets, and 5 over 10 seconds: the burst and the sustained rate on port 53/udp. */
static void burst_sustained(struct fx *f, struct xrl_rule *r, struct xrl_rule *w, __u16 flags)
{
	*r = rule(f, 3, 1000, 2, flags);
	*w = rule(f, 5, 10000, 2, flags);
	add_window(f, r, w);
	put_port(f, XRL_PROTO_UDP, 53, r);
}

/*
 * Each window counts every packet that passes; the first full decides. A
 * pass the first counted for a packet the second refuses is taken back.
 */
static void test_burst_and_sustained(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r, w;
	struct pkt p;

	burst_sustained(f, &r, &w, XRL_F_PER_SOURCE);
	udp4(&p, SRC4, 53);
	set_now(f, T0);
	assert_int_equal(run_n(f, &p, 4), 3); /* the burst's window is full */
	assert_int_equal(held(f, &r, 0), 3);
	assert_int_equal(held(f, &w, 0), 3);  /* the fourth never reached the second window */
	set_now(f, T0 + 1500 * MS);	      /* the burst's window has room again */
	assert_int_equal(run_n(f, &p, 3), 2); /* the sustained one has 2 */
	assert_int_equal(held(f, &r, 0), 2);  /* the third's pass taken back */
	assert_int_equal(held(f, &w, 0), 5);
	set_now(f, T0 + 3 * SEC_NS);
	assert_int_equal(run_n(f, &p, 2), 0);
	assert_int_equal(held(f, &r, 0), 0);
	/* One rule: its totals, and each next window's blocks in its own slot (the window that decided). */
	assert_totals(f, r.id, 5, 4);
	assert_totals(f, w.id, 0, 3);
	/* Once the sustained window's first bucket has left it: room again. */
	set_now(f, T0 + 10 * SEC_NS);
	assert_int_equal(run_n(f, &p, 4), 3);
	assert_int_equal(held(f, &w, 0), 3);
}

/* A source over its second window is latched there, in that window's bucket, until that window has room. */
static void test_latched_in_second_window(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r, w;
	struct xrl_latch l;
	struct pkt p;
	int i;

	need_tick(f);
	burst_sustained(f, &r, &w, XRL_F_PER_SOURCE);
	udp4(&p, SRC4, 53);
	set_now(f, T0);
	assert_int_equal(run_n(f, &p, 3), 3);
	set_now(f, T0 + 1000 * MS);
	assert_int_equal(run_n(f, &p, 3), 2);
	l = latch_of(f, &w);
	assert_int_equal(l.gen, w.gen);
	assert_int_equal(l.kind, XRL_LATCH_OVER);
	/* The latch answers: the first window is not counted in, nor taken back from. */
	set_now(f, T0 + 2 * SEC_NS);
	for (i = 0; i < 50; i++)
		assert_int_equal(run(f, &p), XDP_DROP);
	assert_int_equal(held(f, &r, 0), 0);
	assert_int_equal(xrl_latch_count(latch_of(f, &w).word), 51); /* its blocks, not yet in the ring */
	assert_totals(f, r.id, 5, 51);
	assert_totals(f, w.id, 0, 51);
	/* The sustained window's first bucket leaves it at T0+10s: 3 have room, and the burst window allows them. */
	set_now(f, T0 + 10 * SEC_NS);
	assert_int_equal(run_n(f, &p, 4), 3);
}

/* A packet another rule drops: every window of the rule that passed it takes its pass back. */
static void test_take_back_every_window(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r, w, pfx;
	struct pkt p;

	burst_sustained(f, &r, &w, XRL_F_PER_SOURCE);
	pfx = rule(f, 1, 1000, 2, 0);
	put_prefix(f, "198.51.100.0", 24, &pfx);
	udp4(&p, SRC4, 53);
	set_now(f, T0);
	assert_int_equal(run_n(f, &p, 3), 1);
	assert_int_equal(held(f, &r, 0), 1);
	assert_int_equal(held(f, &w, 0), 1);
}

/* A byte rate as a next window: 100 packets a second, and 2500 bytes over 10 seconds. */
static void test_byte_window(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 100, 1000, 2, XRL_F_PER_SOURCE), w = rule(f, 0, 10000, 2, XRL_F_NO_PKT_RATE);
	struct pkt p;

	w.byte_threshold = 2500;
	w.byte_rate = 2500;
	w.byte_unit = XRL_BU_B;
	w.byte_unit_ms = 10000;
	add_window(f, &r, &w);
	put_port(f, XRL_PROTO_UDP, 53, &r);
	pkt_init(&p);
	pkt_push_eth(&p);
	pkt_push_ipv4(&p, SRC4, "203.0.113.1", 0);
	pkt_push_udp(&p, 40000, 53);
	pkt_push_data(&p, 1000 - 42);
	pkt_finish(&p);
	set_now(f, T0);
	assert_int_equal(run_n(f, &p, 3), 2);
	assert_int_equal(held(f, &r, 0), 2); /* the third's pass taken back */
	assert_int_equal(held(f, &w, 1), 2000);
	assert_totals(f, w.id, 0, 1);
}

/* A monitor rule over its second window passes the packet, and counts the block; the passes stay. */
static void test_monitor(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r, w;
	struct pkt p;

	burst_sustained(f, &r, &w, XRL_F_PER_SOURCE | XRL_F_MONITOR);
	udp4(&p, SRC4, 53);
	set_now(f, T0);
	assert_int_equal(run_n(f, &p, 3), 3);
	set_now(f, T0 + 1000 * MS);
	assert_int_equal(run_n(f, &p, 3), 3);
	assert_totals(f, r.id, 5, 1);
	assert_totals(f, w.id, 0, 1);
}

/*
 * A hot source of a rule of two packet windows leases passes in each (a
 * window leases at most a 256th of its threshold), and passes on its leases
 * only while both pay: the sustained window's limit holds to the packet.
 */
static void test_leases_in_every_window(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 100000, 1000, 2, XRL_F_PER_SOURCE), w = rule(f, 2560, 10000, 2, 0);
	struct pkt p;

	need_tick(f);
	add_window(f, &r, &w);
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	set_now(f, T0 + 100 * MS);
	assert_int_equal(run_n(f, &p, 10), 10);
	/* Hot: each window's latch slot holds the key's lease. */
	assert_int_equal(latch_of(f, &r).kind, XRL_LATCH_LEASE);
	assert_int_equal(latch_of(f, &w).kind, XRL_LATCH_LEASE);
	assert_true(xrl_latch_count(latch_of(f, &r).word) > 0);
	assert_true(xrl_latch_count(latch_of(f, &w).word) > 0);
	/* The sustained window admits 2560 in all, however they are paid. */
	assert_int_equal(run_n(f, &p, 3000), 2550);
	assert_int_equal(held(f, &w, 0), 2560);
	assert_true(held(f, &r, 0) >= 2560);
	assert_totals(f, r.id, 2560, 450);
	/* The burst window's next buckets: still none, the sustained window full. */
	set_now(f, T0 + 1100 * MS);
	assert_int_equal(run_n(f, &p, 10), 0);
	assert_int_equal(held(f, &w, 0), 2560);
}

/* Another rule drops what both windows' leases paid: each lease has its pass back. */
static void test_leases_given_back(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 100000, 1000, 2, XRL_F_PER_SOURCE), w = rule(f, 2560, 10000, 2, 0), pfx;
	__u64 lr, lw;
	struct pkt p;

	need_tick(f);
	add_window(f, &r, &w);
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	set_now(f, T0 + 100 * MS);
	assert_int_equal(run_n(f, &p, 4), 4);
	lr = xrl_latch_count(latch_of(f, &r).word);
	lw = xrl_latch_count(latch_of(f, &w).word);
	assert_true(lr > 2 && lw > 2);
	/* Over a prefix rule judged with it, which drops from its second packet on. */
	pfx = rule(f, 1, 1000, 2, 0);
	put_prefix(f, "198.51.100.0", 24, &pfx);
	assert_int_equal(run_n(f, &p, 3), 1);
	assert_int_equal(xrl_latch_count(latch_of(f, &r).word), lr - 1);
	assert_int_equal(xrl_latch_count(latch_of(f, &w).word), lw - 1);
}

/* A byte window among them: no lease in any (the rule's XRL_F_NO_LEASE, as apply sets it). */
static void test_no_lease_with_bytes(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1000, 1000, 2, XRL_F_PER_SOURCE | XRL_F_NO_LEASE),
			w = rule(f, 0, 10000, 2, XRL_F_NO_PKT_RATE);
	struct pkt p;

	w.byte_threshold = 100000;
	add_window(f, &r, &w);
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	set_now(f, T0 + 100 * MS);
	assert_int_equal(run_n(f, &p, 10), 10);
	assert_int_equal(latch_of(f, &r).gen, 0);
	assert_int_equal(held(f, &r, 0), 10);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_burst_and_sustained),
		T(test_latched_in_second_window),
		T(test_take_back_every_window),
		T(test_byte_window),
		T(test_monitor),
		T(test_leases_in_every_window),
		T(test_leases_given_back),
		T(test_no_lease_with_bytes),
	};

	fx_init();
	return cmocka_run_group_tests_name("windows", tests, NULL, group_teardown);
}
