// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Protocol rules and fragments under BPF_PROG_TEST_RUN: tcp-syn against TCP
 * flag combinations, ICMP and ICMPv6 types (a type's rule before the plain
 * one), protocol numbers, tunnels (a rule sees the outer header), later
 * fragments of both families against a port rule and a fragments rule, window boundaries on the test clock, and the kinds
 * bit that keeps the lookup off the path of a set without protocol rules.
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
#define SRC6 "2001:db8:1::7"

static struct fx fx_pr;

static int setup(void **state)
{
	return fx_setup(state, &fx_pr, 0);
}

static int group_teardown(void **state)
{
	(void)state;
	xdp_ratelimit_bpf__destroy(fx_pr.skel);
	return 0;
}

#define F_FIN 0x01
#define F_SYN 0x02
#define F_RST 0x04
#define F_PSH 0x08
#define F_ACK 0x10

static void tcp_flags4(struct pkt *p, const char *src, __u16 dport, __u8 flags)
{
	struct tcphdr *th;

	pkt_init(p);
	pkt_push_eth(p);
	pkt_push_ipv4(p, src, "203.0.113.1", 0);
	th = pkt_push_tcp(p, 40000, dport);
	((__u8 *)th)[13] = flags;
	pkt_finish(p);
}

static void icmp4(struct pkt *p, const char *src, __u8 type)
{
	struct icmphdr *ih;

	pkt_init(p);
	pkt_push_eth(p);
	pkt_push_ipv4(p, src, "203.0.113.1", 0);
	ih = pkt_push_icmp(p);
	ih->type = type;
	pkt_push_data(p, 8);
	pkt_finish(p);
}

static void icmp6(struct pkt *p, const char *src, __u8 type)
{
	struct icmp6hdr *ih;

	pkt_init(p);
	pkt_push_eth(p);
	pkt_push_ipv6(p, src, "2001:db8:ffff::1");
	ih = pkt_push_icmp6(p);
	ih->icmp6_type = type;
	pkt_push_data(p, 8);
	pkt_finish(p);
}

/* An IPv4 packet of protocol proto with no header of it that we build: payload only. */
static void raw4(struct pkt *p, const char *src, __u8 proto, __u16 frag_off)
{
	struct iphdr *ip;

	pkt_init(p);
	pkt_push_eth(p);
	ip = pkt_push_ipv4(p, src, "203.0.113.1", 0);
	ip->protocol = proto;
	ip->frag_off = htons(frag_off);
	pkt_push_data(p, 24);
	pkt_finish(p);
}

/* An IPv6 fragment of UDP: the first (a UDP header follows) or one at offset bytes (payload only). */
static void frag6(struct pkt *p, const char *src, __u16 offset, __u16 dport)
{
	struct pkt_frag6 *fh;

	pkt_init(p);
	pkt_push_eth(p);
	pkt_push_ipv6(p, src, "2001:db8:ffff::1");
	fh = pkt_push_frag6(p, offset, 1);
	if (!offset) {
		pkt_push_udp(p, 40000, dport);
	} else {
		fh->nexthdr = IPPROTO_UDP;
	}
	pkt_push_data(p, 24);
	pkt_finish(p);
}

/* tcp-syn limits SYN without ACK only; every other combination passes with no rule met. */
static void test_tcp_syn_flags(void **state)
{
	static const struct {
		const char *name;
		__u8 flags;
		int limited;
	} cases[] = {
		{ "SYN", F_SYN, 1 },
		{ "SYN+PSH", F_SYN | F_PSH, 1 },
		{ "SYN+FIN", F_SYN | F_FIN, 1 },
		{ "SYN+ACK", F_SYN | F_ACK, 0 },
		{ "ACK", F_ACK, 0 },
		{ "RST", F_RST, 0 },
		{ "RST+ACK", F_RST | F_ACK, 0 },
		{ "FIN+ACK", F_FIN | F_ACK, 0 },
		{ "none", 0, 0 },
	};
	struct fx *f = fx_get(state);
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct xrl_rule r;
		struct pkt p;
		int passed;

		assert_int_equal(fx_reset(f), 0);
		r = rule(f, 2, 1000, 2, XRL_F_PER_SOURCE);
		put_proto(f, XRL_SEL_SYN, &r);
		tcp_flags4(&p, SRC4, 80, cases[i].flags);
		passed = run_n(f, &p, 5);
		if (passed != (cases[i].limited ? 2 : 5))
			fail_msg("%s: %d of 5 passed, want %d", cases[i].name, passed, cases[i].limited ? 2 : 5);
		assert_int_equal(counters(f).no_rule, cases[i].limited ? 0 : 5);
	}
}

/* tcp-syn is the more specific match: a SYN meets it, not 'proto tcp'; an ACK meets 'proto tcp'. */
static void test_tcp_syn_before_tcp(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule syn = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE), tcp = rule(f, 3, 1000, 2, XRL_F_PER_SOURCE);
	struct pkt p;

	put_proto(f, XRL_SEL_SYN, &syn);
	put_proto(f, XRL_PROTO_TCP, &tcp);
	tcp_flags4(&p, SRC4, 80, F_SYN);
	assert_int_equal(run_n(f, &p, 4), 1);
	assert_totals(f, syn.id, 1, 3);
	assert_totals(f, tcp.id, 0, 0);
	tcp_flags4(&p, SRC4, 80, F_ACK);
	assert_int_equal(run_n(f, &p, 5), 3);
	assert_totals(f, tcp.id, 3, 2);
}

/* Per source: another source's SYNs have their own window. */
static void test_tcp_syn_per_source(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 2, 1000, 2, XRL_F_PER_SOURCE);
	struct pkt p;

	put_proto(f, XRL_SEL_SYN, &r);
	tcp_flags4(&p, SRC4, 80, F_SYN);
	assert_int_equal(run_n(f, &p, 5), 2);
	tcp_flags4(&p, "198.51.100.8", 80, F_SYN);
	assert_int_equal(run_n(f, &p, 5), 2);
}

/* ICMP: a type's rule first, the plain rule for the other types; ICMPv6 types are their own. */
static void test_icmp_types(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule echo = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE), any = rule(f, 3, 1000, 2, XRL_F_PER_SOURCE);
	struct xrl_rule echo6 = rule(f, 2, 1000, 2, XRL_F_PER_SOURCE);
	struct pkt p;

	put_proto(f, XRL_SEL_ICMP(8), &echo);
	put_proto(f, XRL_PROTO_ICMP, &any);
	put_proto(f, XRL_SEL_ICMPV6(128), &echo6);
	icmp4(&p, SRC4, 8); /* echo request */
	assert_int_equal(run_n(f, &p, 4), 1);
	assert_totals(f, echo.id, 1, 3);
	icmp4(&p, SRC4, 0); /* echo reply: the plain rule */
	assert_int_equal(run_n(f, &p, 5), 3);
	assert_totals(f, any.id, 3, 2);
	icmp6(&p, SRC6, 128); /* echo request */
	assert_int_equal(run_n(f, &p, 4), 2);
	assert_totals(f, echo6.id, 2, 2);
	icmp6(&p, SRC6, 129); /* echo reply: no plain icmpv6 rule */
	assert_int_equal(run_n(f, &p, 4), 4);
	assert_int_equal(counters(f).no_rule, 4);
}

/* An ICMP type with no rule of its own and no plain rule meets nothing. */
static void test_icmp_type_only(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule echo = rule(f, 1, 1000, 2, 0);
	struct pkt p;

	put_proto(f, XRL_SEL_ICMP(8), &echo);
	icmp4(&p, SRC4, 3);
	assert_int_equal(run_n(f, &p, 3), 3);
	icmp4(&p, SRC4, 8);
	assert_int_equal(run_n(f, &p, 3), 1);
}

/* udp, and any protocol number (47, GRE); a TCP packet does not meet a udp rule. */
static void test_proto_numbers(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule udp = rule(f, 2, 1000, 2, XRL_F_PER_SOURCE), gre = rule(f, 1, 1000, 2, 0);
	struct pkt p;

	put_proto(f, XRL_PROTO_UDP, &udp);
	put_proto(f, 47, &gre);
	udp4(&p, SRC4, 53);
	assert_int_equal(run_n(f, &p, 4), 2);
	udp6(&p, SRC6, 53);
	assert_int_equal(run_n(f, &p, 4), 2);
	raw4(&p, SRC4, 47, 0);
	assert_int_equal(run_n(f, &p, 3), 1);
	tcp_flags4(&p, SRC4, 53, F_ACK);
	assert_int_equal(run_n(f, &p, 3), 3);
	assert_int_equal(counters(f).no_rule, 3);
}

/* A port rule and a protocol rule both apply: the packet must pass both. */
static void test_port_and_proto_both_apply(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule port = rule(f, 5, 1000, 2, 0), syn = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct pkt p;

	put_port(f, XRL_PROTO_TCP, 80, &port);
	put_proto(f, XRL_SEL_SYN, &syn);
	tcp_flags4(&p, SRC4, 80, F_SYN);
	assert_int_equal(run_n(f, &p, 3), 1);
	/* The port rule's passes taken back for the SYNs the tcp-syn rule dropped. */
	assert_totals(f, port.id, 1, 0);
	tcp_flags4(&p, SRC4, 80, F_ACK);
	assert_int_equal(run_n(f, &p, 6), 4);
	assert_totals(f, port.id, 5, 2);
}

/*
 * Later fragments carry no port: a port rule never sees them, a fragments
 * rule limits them. First fragments carry the UDP header and meet the port rule.
 */
static void test_fragments(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule port = rule(f, 1, 1000, 2, 0), frags = rule(f, 2, 1000, 2, XRL_F_PER_SOURCE);
	struct pkt p;

	put_port(f, XRL_PROTO_UDP, 53, &port);
	raw4(&p, SRC4, IPPROTO_UDP, 0x2000 | 185); /* MF, offset 1480 */
	assert_int_equal(run_n(f, &p, 3), 3);	   /* no fragments rule yet: the port rule cannot see them */
	assert_int_equal(counters(f).no_rule, 3);
	put_proto(f, XRL_SEL_FRAGMENTS, &frags);
	assert_int_equal(run_n(f, &p, 4), 2);
	raw4(&p, SRC4, IPPROTO_UDP, 185); /* the last fragment */
	assert_int_equal(run_n(f, &p, 2), 0);
	frag6(&p, SRC6, 1448, 53); /* IPv6, with an offset: a fragments rule's */
	assert_int_equal(run_n(f, &p, 3), 2);
	assert_totals(f, frags.id, 4, 5);
	frag6(&p, "2001:db8:1::8", 0, 53); /* offset 0: the UDP header is there, the port rule's */
	assert_int_equal(run_n(f, &p, 3), 1);
	assert_totals(f, port.id, 1, 2);
	assert_totals(f, frags.id, 4, 5);
}

/* With no fragments rule, a later fragment meets its protocol's rule (but never tcp-syn or a type). */
static void test_fragment_meets_protocol(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule udp = rule(f, 2, 1000, 2, 0);
	struct pkt p;

	put_proto(f, XRL_PROTO_UDP, &udp);
	raw4(&p, SRC4, IPPROTO_UDP, 185);
	assert_int_equal(run_n(f, &p, 4), 2);
}

/* The window of a protocol rule slides on the test clock: 2 a second in 2 buckets of 500ms. */
static void test_proto_window_boundary(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 2, 1000, 2, XRL_F_PER_SOURCE);
	struct pkt p;

	put_proto(f, XRL_SEL_ICMP(8), &r);
	icmp4(&p, SRC4, 8);
	set_now(f, T0);
	assert_int_equal(run_n(f, &p, 3), 2);
	set_now(f, T0 + 999 * MS); /* both passes still in the window */
	assert_int_equal(run(f, &p), XDP_DROP);
	set_now(f, T0 + 1000 * MS - 1);
	assert_int_equal(run(f, &p), XDP_DROP);
	set_now(f, T0 + 1000 * MS); /* the bucket they were in has left */
	assert_int_equal(run_n(f, &p, 3), 2);
}

/* A protocol rule in the map counts for nothing while the set's kinds lack XRL_HAS_PROTOS. */
static void test_kinds_bit_gates_lookup(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1, 1000, 2, 0);
	struct xrl_ctl ctl;
	__u32 zero = 0;
	struct pkt p;

	assert_int_equal(xrl_proto_put(f->proto_rules, f->set, XRL_SEL_SYN, &r), 0);
	assert_int_equal(bpf_map_lookup_elem(f->ctl, &zero, &ctl), 0);
	assert_int_equal(ctl.kinds[f->set & 1] & XRL_HAS_PROTOS, 0);
	tcp_flags4(&p, SRC4, 80, F_SYN);
	assert_int_equal(run_n(f, &p, 3), 3);
	assert_int_equal(counters(f).no_rule, 3);
	assert_totals(f, r.id, 0, 0);
	set_has(f, f->set, XRL_HAS_PROTOS);
	assert_int_equal(run_n(f, &p, 3), 1);
}

/* The other set's protocol rules are never met. */
static void test_other_set_ignored(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1, 1000, 2, 0);
	struct pkt p;

	assert_int_equal(xrl_proto_put(f->proto_rules, !f->set, XRL_PROTO_UDP, &r), 0);
	set_has(f, !f->set, XRL_HAS_PROTOS);
	set_has(f, f->set, XRL_HAS_PROTOS);
	udp4(&p, SRC4, 53);
	assert_int_equal(run_n(f, &p, 3), 3);
}

/* A UDP datagram to port 53 in a tunnel from src: IPIP, IPv4 in IPv6 (src IPv6), or GRE. */
enum tunnel { T_IPIP, T_4IN6, T_GRE };

static void tunnelled(struct pkt *p, enum tunnel t, const char *src)
{
	struct iphdr *outer = NULL;
	__u8 *gre;

	pkt_init(p);
	pkt_push_eth(p);
	if (t == T_4IN6)
		pkt_push_ipv6(p, src, "2001:db8:ffff::1");
	else
		outer = pkt_push_ipv4(p, src, "203.0.113.1", 0);
	if (t == T_GRE) {
		outer->protocol = 47;
		gre = pkt_push_data(p, 4); /* no flags, version 0, then the EtherType of what follows */
		gre[2] = 0x08;
		gre[3] = 0x00;
	}
	pkt_push_ipv4(p, "10.9.9.9", "10.0.0.1", 0);
	pkt_push_udp(p, 40000, 53);
	pkt_push_data(p, 16);
	pkt_finish(p);
}

/*
 * What security.md says of tunnels: a rule sees the outer header. A port rule
 * never meets the ports inside (IPIP, IPv4 in IPv6, GRE); a protocol rule on
 * the tunnel's number (4, 47) limits it.
 */
static void test_tunnels_meet_outer_rules(void **state)
{
	static const struct {
		enum tunnel t;
		const char *src;
		int passed; /* of 3, once the protocol rules are in */
	} tun[] = { { T_IPIP, SRC4, 2 }, { T_4IN6, SRC6, 2 }, { T_GRE, SRC4, 1 } };
	struct fx *f = fx_get(state);
	struct xrl_rule port = rule(f, 0, 1000, 2, 0), ipip = rule(f, 2, 1000, 2, XRL_F_PER_SOURCE),
			gre = rule(f, 1, 1000, 2, 0);
	struct pkt p;
	size_t i;

	put_port(f, XRL_PROTO_UDP, 53, &port);
	udp4(&p, SRC4, 53);
	assert_int_equal(run_n(f, &p, 2), 0); /* the port rule drops every datagram it meets */
	for (i = 0; i < sizeof(tun) / sizeof(tun[0]); i++) {
		tunnelled(&p, tun[i].t, tun[i].src);
		assert_int_equal(run_n(f, &p, 3), 3);
	}
	assert_int_equal(counters(f).no_rule, 9);

	put_proto(f, 4, &ipip);
	put_proto(f, 47, &gre);
	for (i = 0; i < sizeof(tun) / sizeof(tun[0]); i++) {
		tunnelled(&p, tun[i].t, tun[i].src);
		assert_int_equal(run_n(f, &p, 3), tun[i].passed);
	}
	assert_totals(f, port.id, 0, 2);
	assert_totals(f, ipip.id, 4, 2);
	assert_totals(f, gre.id, 1, 2);
}

#define T(fn) cmocka_unit_test_setup(fn, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_tcp_syn_flags),
		T(test_tcp_syn_before_tcp),
		T(test_tcp_syn_per_source),
		T(test_icmp_types),
		T(test_icmp_type_only),
		T(test_proto_numbers),
		T(test_port_and_proto_both_apply),
		T(test_fragments),
		T(test_fragment_meets_protocol),
		T(test_proto_window_boundary),
		T(test_kinds_bit_gates_lookup),
		T(test_other_set_ignored),
		T(test_tunnels_meet_outer_rules),
	};

	fx_init();
	return cmocka_run_group_tests_name("proto", tests, NULL, group_teardown);
}
