// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Destination rules and port rules narrowed to a destination under
 * BPF_PROG_TEST_RUN: the trie's longest match in both families, a narrowed
 * port rule against the port's own, per-source and aggregate thresholds at a
 * window boundary on the test clock, every matching rule still having to
 * pass, allow and monitor, VLAN tags, and the kinds bits that keep the trie
 * off the path of a set without dst rules.
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
#define SRC4B "198.51.100.8"
#define SRC6 "2001:db8:1::7"

static struct fx fx_dst;

static int setup(void **state)
{
	return fx_setup(state, &fx_dst, 0);
}

static int group_teardown(void **state)
{
	(void)state;
	xdp_ratelimit_bpf__destroy(fx_dst.skel);
	return 0;
}

static void udp4_to(struct pkt *p, const char *src, const char *dst, __u16 dport)
{
	pkt_init(p);
	pkt_push_eth(p);
	pkt_push_ipv4(p, src, dst, 0);
	pkt_push_udp(p, 40000, dport);
	pkt_push_data(p, 16);
	pkt_finish(p);
}

static void udp6_to(struct pkt *p, const char *src, const char *dst, __u16 dport)
{
	pkt_init(p);
	pkt_push_eth(p);
	pkt_push_ipv6(p, src, dst);
	pkt_push_udp(p, 40000, dport);
	pkt_push_data(p, 16);
	pkt_finish(p);
}

/* IPv4: a /32 inside a /24 takes its address; the rest of the /24 meets the /24's rule. */
static void test_longest_match_v4(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule net = rule(f, 3, 1000, 2, 0), host = rule(f, 1, 1000, 2, 0);
	struct pkt p;

	put_dst(f, "203.0.113.0", 24, &net);
	put_dst(f, "203.0.113.5", 32, &host);
	udp4_to(&p, SRC4, "203.0.113.5", 53);
	assert_int_equal(run_n(f, &p, 4), 1);
	assert_totals(f, host.id, 1, 3);
	assert_totals(f, net.id, 0, 0);
	udp4_to(&p, SRC4, "203.0.113.9", 53);
	assert_int_equal(run_n(f, &p, 5), 3);
	assert_totals(f, net.id, 3, 2);
	udp4_to(&p, SRC4, "203.0.114.9", 53); /* outside both */
	assert_int_equal(run_n(f, &p, 5), 5);
	assert_int_equal(counters(f).no_rule, 5);
}

/* IPv6: a /128 inside a /48; an IPv4 packet never meets an IPv6 rule. */
static void test_longest_match_v6(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule net = rule(f, 3, 1000, 2, 0), host = rule(f, 1, 1000, 2, 0);
	struct pkt p;

	put_dst(f, "2001:db8:ffff::", 48, &net);
	put_dst(f, "2001:db8:ffff::1", 128, &host);
	udp6_to(&p, SRC6, "2001:db8:ffff::1", 53);
	assert_int_equal(run_n(f, &p, 4), 1);
	assert_totals(f, host.id, 1, 3);
	udp6_to(&p, SRC6, "2001:db8:ffff:1::2", 53);
	assert_int_equal(run_n(f, &p, 5), 3);
	assert_totals(f, net.id, 3, 2);
	udp6_to(&p, SRC6, "2001:db8:fffe::1", 53);
	assert_int_equal(run_n(f, &p, 3), 3);
	udp4_to(&p, SRC4, "32.1.13.184", 53); /* 2001:db8 read as IPv4 */
	assert_int_equal(run_n(f, &p, 3), 3);
}

/* Per source: each source its own window of 2 a second; the window reopens when its bucket leaves. */
static void test_per_source_threshold(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 2, 1000, 2, XRL_F_PER_SOURCE);
	struct pkt a, b;

	put_dst(f, "203.0.113.0", 24, &r);
	udp4_to(&a, SRC4, "203.0.113.1", 53);
	udp4_to(&b, SRC4B, "203.0.113.1", 53);
	set_now(f, T0);
	assert_int_equal(run_n(f, &a, 3), 2);
	assert_int_equal(run_n(f, &b, 3), 2);
	set_now(f, T0 + 999 * MS);
	assert_int_equal(run(f, &a), XDP_DROP);
	set_now(f, T0 + 1000 * MS);
	assert_int_equal(run_n(f, &a, 3), 2);
	assert_totals(f, r.id, 6, 4);
}

/* Aggregate: one window of 3 a second for every source to the destination. */
static void test_aggregate_threshold(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 3, 1000, 2, 0);
	struct pkt a, b;

	put_dst(f, "203.0.113.5", 32, &r);
	udp4_to(&a, SRC4, "203.0.113.5", 53);
	udp4_to(&b, SRC4B, "203.0.113.5", 80);
	set_now(f, T0);
	assert_int_equal(run_n(f, &a, 2), 2);
	assert_int_equal(run_n(f, &b, 2), 1);
	assert_int_equal(run(f, &a), XDP_DROP);
	set_now(f, T0 + 1000 * MS - 1);
	assert_int_equal(run(f, &b), XDP_DROP);
	set_now(f, T0 + 1000 * MS);
	assert_int_equal(run_n(f, &b, 4), 3);
}

/*
 * A port rule narrowed to a destination takes the port's packets to it, in
 * place of the port's own rule (which then counts nothing of them); the
 * port's other packets meet the port's own. Two narrowed rules for one port
 * keep windows of their own.
 */
static void test_narrowed_port(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule plain = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct xrl_rule web = rule(f, 3, 1000, 2, XRL_F_PER_SOURCE);
	struct xrl_rule doc = rule(f, 2, 1000, 2, XRL_F_PER_SOURCE);
	struct pkt p;

	put_port(f, XRL_PROTO_UDP, 53, &plain);
	put_dst_rule(f, XRL_PROTO_UDP, 53, "203.0.113.0", 24, &web);
	put_dst_rule(f, XRL_PROTO_UDP, 53, "192.0.2.0", 24, &doc);
	udp4_to(&p, SRC4, "203.0.113.1", 53);
	assert_int_equal(run_n(f, &p, 5), 3);
	assert_totals(f, web.id, 3, 2);
	assert_totals(f, plain.id, 0, 0);
	udp4_to(&p, SRC4, "192.0.2.1", 53);
	assert_int_equal(run_n(f, &p, 5), 2);
	assert_totals(f, doc.id, 2, 3);
	udp4_to(&p, SRC4, "198.18.0.1", 53);
	assert_int_equal(run_n(f, &p, 5), 1);
	assert_totals(f, plain.id, 1, 4);
	/* Another port to the narrowed destination: no rule. */
	udp4_to(&p, SRC4, "203.0.113.1", 54);
	assert_int_equal(run_n(f, &p, 3), 3);
	assert_int_equal(counters(f).no_rule, 3);
}

/* A dst rule and a port rule both match: both must pass; the port's pass is taken back when the dst drops. */
static void test_dst_and_port_both_apply(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule port = rule(f, 5, 1000, 2, XRL_F_PER_SOURCE), dst = rule(f, 2, 1000, 2, XRL_F_PER_SOURCE);
	struct pkt p;

	put_port(f, XRL_PROTO_UDP, 53, &port);
	put_dst(f, "203.0.113.0", 24, &dst);
	udp4_to(&p, SRC4, "203.0.113.1", 53);
	assert_int_equal(run_n(f, &p, 4), 2);
	assert_totals(f, dst.id, 2, 2);
	assert_totals(f, port.id, 2, 0);
	/* The port's window holds the 2 passes only: 3 more to another destination pass. */
	udp4_to(&p, SRC4, "198.18.0.1", 53);
	assert_int_equal(run_n(f, &p, 4), 3);
}

/* A dst rule and a prefix rule: the tighter one decides; an allow prefix bypasses the dst rule. */
static void test_dst_and_prefix(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule dst = rule(f, 2, 1000, 2, XRL_F_PER_SOURCE), pre = rule(f, 10, 1000, 2, XRL_F_PER_SOURCE);
	struct xrl_rule allow = rule(f, 0, 1000, 2, XRL_F_ALLOW);
	struct pkt p;

	put_dst(f, "203.0.113.0", 24, &dst);
	put_prefix(f, "198.51.100.0", 24, &pre);
	put_prefix(f, "192.0.2.9", 32, &allow);
	udp4_to(&p, SRC4, "203.0.113.1", 53);
	assert_int_equal(run_n(f, &p, 4), 2);
	assert_totals(f, pre.id, 2, 0);
	udp4_to(&p, "192.0.2.9", "203.0.113.1", 53);
	assert_int_equal(run_n(f, &p, 4), 4);
	assert_totals(f, dst.id, 2, 2);
	assert_int_equal(counters(f).allowed, 4);
}

/* An allow dst rule passes its traffic past every other rule, and counts it. */
static void test_dst_allow(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule port = rule(f, 1, 1000, 2, 0), allow = rule(f, 0, 1000, 2, XRL_F_ALLOW);
	struct pkt p;

	put_port(f, XRL_PROTO_UDP, 53, &port);
	put_dst(f, "203.0.113.5", 32, &allow);
	udp4_to(&p, SRC4, "203.0.113.5", 53);
	assert_int_equal(run_n(f, &p, 4), 4);
	assert_int_equal(counters(f).allowed, 4);
	assert_totals(f, allow.id, 4, 0);
	assert_totals(f, port.id, 0, 0);
	udp4_to(&p, SRC4, "203.0.113.6", 53);
	assert_int_equal(run_n(f, &p, 3), 1);
}

/* A monitor dst rule passes what it would block, and counts it. */
static void test_dst_monitor(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1, 1000, 2, XRL_F_MONITOR);
	struct pkt p;

	put_dst(f, "203.0.113.0", 24, &r);
	udp4_to(&p, SRC4, "203.0.113.1", 53);
	assert_int_equal(run_n(f, &p, 3), 3);
	assert_totals(f, r.id, 1, 2);
	assert_int_equal(counters(f).monitored, 2);
}

/* The destination is found behind VLAN tags too (read where the IP header starts). */
static void test_dst_behind_vlan(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1, 1000, 2, 0);
	struct pkt p;

	put_dst(f, "203.0.113.0", 24, &r);
	pkt_init(&p);
	pkt_push_eth(&p);
	pkt_push_vlan(&p, ETH_P_8021AD, 10);
	pkt_push_vlan(&p, ETH_P_8021Q, 20);
	pkt_push_ipv4(&p, SRC4, "203.0.113.1", 0);
	pkt_push_udp(&p, 40000, 53);
	pkt_push_data(&p, 16);
	pkt_finish(&p);
	assert_int_equal(run_n(f, &p, 3), 1);
	assert_totals(f, r.id, 1, 2);
}

/*
 * Rules in the trie count for nothing while the set's kinds lack their bit:
 * a set without dst rules never looks the trie up. A narrowed port rule then
 * leaves the port's own rule in force.
 */
static void test_kinds_bits_gate_trie(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule dst = rule(f, 1, 1000, 2, 0), narrowed = rule(f, 1, 1000, 2, 0);
	struct xrl_rule plain = rule(f, 2, 1000, 2, 0);
	struct xrl_dst_key k;
	__u8 a[16] = { 203, 0, 113, 0 };
	struct xrl_ctl ctl;
	__u32 zero = 0;
	struct pkt p;

	put_dst(f, "203.0.113.0", 24, &dst);
	xrl_dst_key(&k, f->set, XRL_PROTO_UDP, 53, XRL_FAMILY_V4, a, 24);
	assert_int_equal(xrl_dst_put(f->dsts, &k, &narrowed), 0);
	/* The rules are in their maps, but the set's kinds say none: neither is looked up. */
	assert_int_equal(bpf_map_lookup_elem(f->ctl, &zero, &ctl), 0);
	ctl.kinds[f->set & 1] &= ~(XRL_HAS_DSTS | XRL_HAS_PORT_DSTS);
	assert_int_equal(bpf_map_update_elem(f->ctl, &zero, &ctl, BPF_ANY), 0);
	assert_int_equal(ctl.kinds[f->set & 1] & (XRL_HAS_DSTS | XRL_HAS_PORT_DSTS), 0);
	udp4_to(&p, SRC4, "203.0.113.1", 53);
	assert_int_equal(run_n(f, &p, 3), 3);
	assert_int_equal(counters(f).no_rule, 3);
	put_port(f, XRL_PROTO_UDP, 53, &plain);
	assert_int_equal(run_n(f, &p, 3), 2);
	assert_totals(f, narrowed.id, 0, 0);
	assert_totals(f, dst.id, 0, 0);
	set_has(f, f->set, XRL_HAS_PORT_DSTS);
	set_now(f, T0 + 1000 * MS);
	assert_int_equal(run_n(f, &p, 3), 1);
	assert_totals(f, narrowed.id, 1, 2);
	assert_totals(f, dst.id, 0, 0);
	set_has(f, f->set, XRL_HAS_DSTS);
	set_now(f, T0 + 2000 * MS);
	assert_int_equal(run_n(f, &p, 3), 1);
	assert_totals(f, dst.id, 1, 2);
}

/*
 * Frames cut short inside their IP header, or whose lengths lie, are counted
 * malformed and passed (as loaded) before any rule: the dst rule never meets
 * them, however little of the frame is left.
 */
static void test_dst_malformed(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r4 = rule(f, 1, 1000, 2, 0), r6 = rule(f, 1, 1000, 2, 0);
	struct xrl_counters c;
	struct pkt p;
	__u64 mal = 0;
	size_t len;
	int i;

	put_dst(f, "203.0.113.0", 24, &r4);
	put_dst(f, "2001:db8:ffff::", 48, &r6);
	for (len = 14; len < 14 + 20; len++) {
		udp4_to(&p, SRC4, "203.0.113.1", 53);
		pkt_truncate(&p, len);
		assert_int_equal(run(f, &p), XDP_PASS);
	}
	for (len = 14; len < 14 + 40; len++) {
		udp6_to(&p, SRC6, "2001:db8:ffff::1", 53);
		pkt_truncate(&p, len);
		assert_int_equal(run(f, &p), XDP_PASS);
	}
	c = counters(f);
	for (i = 0; i < XRL_MAL_MAX; i++)
		mal += c.malformed[i];
	assert_int_equal(mal, 20 + 40);
	assert_totals(f, r4.id, 0, 0);
	assert_totals(f, r6.id, 0, 0);
	/* Whole frames still meet them. */
	udp4_to(&p, SRC4, "203.0.113.1", 53);
	assert_int_equal(run_n(f, &p, 2), 1);
	udp6_to(&p, SRC6, "2001:db8:ffff::1", 53);
	assert_int_equal(run_n(f, &p, 2), 1);
}

/* The other set's dst rules are never met. */
static void test_other_set_ignored(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1, 1000, 2, 0);
	struct pkt p;

	f->set = !f->set;
	put_dst(f, "203.0.113.0", 24, &r);
	f->set = !f->set;
	set_has(f, f->set, XRL_HAS_DSTS);
	udp4_to(&p, SRC4, "203.0.113.1", 53);
	assert_int_equal(run_n(f, &p, 3), 3);
}

#define T(fn) cmocka_unit_test_setup(fn, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_longest_match_v4),     T(test_longest_match_v6),
		T(test_per_source_threshold), T(test_aggregate_threshold),
		T(test_narrowed_port),	      T(test_dst_and_port_both_apply),
		T(test_dst_and_prefix),	      T(test_dst_allow),
		T(test_dst_monitor),	      T(test_dst_behind_vlan),
		T(test_kinds_bits_gate_trie), T(test_dst_malformed),
		T(test_other_set_ignored),
	};

	fx_init();
	return cmocka_run_group_tests_name("dst", tests, NULL, group_teardown);
}
