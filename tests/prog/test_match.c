// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Rules of several fields through the real program (BPF_PROG_TEST_RUN),
 * written as apply writes them: each field the classifier reads, the
 * addresses and the fingerprint it does not, the keys a rule counts by,
 * allow, the shorthands beside them (every rule met applies), the window
 * exact at its threshold, and the issue's attacks as rules.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "xdp_fixture.h"
#include "match_fixture.h"

#define SRC "198.51.100.7"
#define DST "203.0.113.1"

static struct fx fx;

static int setup(void **state)
{
	return mfx_setup(state, &fx);
}

static struct mpkt udp(__u16 sport, __u16 dport, size_t len)
{
	return (struct mpkt){
		.src = SRC, .dst = DST, .proto = XRL_PROTO_UDP, .sport = sport, .dport = dport, .len = len
	};
}

static struct mpkt tcp(__u16 dport, __u8 flags)
{
	return (struct mpkt){ .src = SRC,
			      .dst = DST,
			      .proto = XRL_PROTO_TCP,
			      .sport = 40000,
			      .dport = dport,
			      .tcpflags = flags,
			      .len = 0 };
}

/* DNS amplification: big answers from port 53 held, small ones and other ports not. */
static void test_sport_and_length(void **state)
{
	struct fx *f = fx_get(state);
	struct mpkt big = udp(53, 40000, 600), small = udp(53, 40000, 100), other = udp(54, 40000, 600);

	put_match(f, "proto udp sport 53 length 512-65535 rate 2/s aggregate\n");
	assert_int_equal(mrun(f, &big, 5), 2);
	assert_int_equal(mrun(f, &small, 5), 5);
	assert_int_equal(mrun(f, &other, 5), 5);
	assert_totals(f, 1, 2, 3);
	assert_int_equal(counters(f).no_rule, 10);
}

/* Bare ACKs to 443 held per source; SYN-ACKs, and ACKs to another port, not met. */
static void test_tcp_flags(void **state)
{
	struct fx *f = fx_get(state);
	struct mpkt ack = tcp(443, 0x10), synack = tcp(443, 0x12), ack80 = tcp(80, 0x10), rst = tcp(443, 0x04);

	put_match(f, "proto tcp tcp flags ack / syn,ack,rst dport 443 rate 1/s per-source\n"
		     "proto tcp tcp flags rst / rst dport 443 rate 2/s per-source\n");
	assert_int_equal(mrun(f, &ack, 4), 1);
	assert_int_equal(mrun(f, &synack, 4), 4);
	assert_int_equal(mrun(f, &ack80, 4), 4);
	assert_int_equal(mrun(f, &rst, 4), 2);
	assert_totals(f, 1, 1, 3);
	assert_totals(f, 2, 2, 2);
}

/* TTL and DSCP ranges, ICMP type and code, fragment states: each a field of the classifier. */
static void test_small_fields(void **state)
{
	struct fx *f = fx_get(state);
	struct mpkt low = udp(1000, 27015, 10), high = udp(1000, 27015, 10), ef = udp(1000, 5060, 10);
	struct mpkt echo = { .src = SRC, .dst = DST, .proto = XRL_PROTO_ICMP, .icmp_type = 8, .icmp_code = 0 };
	struct mpkt odd = echo, first = udp(1000, 9, 100), later = udp(1000, 9, 100);

	low.ttl = 5;
	high.ttl = 200;
	ef.tos = 46 << 2;
	odd.icmp_code = 1;
	first.frag = XRL_IP_MF;
	later.frag = 100;
	put_match(f, "proto udp dport 27015 ttl 1-32 rate 1/s per-source\n"
		     "proto udp dscp ef rate 1/s aggregate\n"
		     "icmp type echo-request code 0 rate 1/s aggregate\n"
		     "frag first rate 1/s aggregate\n"
		     "frag later rate 2/s aggregate\n");
	assert_int_equal(mrun(f, &low, 3), 1);
	assert_int_equal(mrun(f, &high, 3), 3);
	assert_int_equal(mrun(f, &ef, 3), 1);
	assert_int_equal(mrun(f, &echo, 3), 1);
	assert_int_equal(mrun(f, &odd, 3), 3);
	assert_int_equal(mrun(f, &first, 3), 1);
	assert_int_equal(mrun(f, &later, 3), 2);
}

/* NTP monlist by its fingerprint: mode 7, request 42 at payload offset 2 held, other NTP not. */
static void test_payload(void **state)
{
	struct fx *f = fx_get(state);
	static const __u8 monlist[] = { 0x17, 0x00, 0x03, 0x2a }, other[] = { 0x17, 0x00, 0x03, 0x2b };
	struct mpkt m = udp(123, 40000, 440), o = udp(123, 40000, 440), shortp = udp(123, 40000, 3);

	m.data = monlist;
	m.ndata = sizeof(monlist);
	o.data = other;
	o.ndata = sizeof(other);
	shortp.data = monlist;
	shortp.ndata = 3;
	put_match(f, "proto udp sport 123 payload 2 032a rate 1/s aggregate\n"
		     "proto udp sport 123 payload 3 0b / 0f rate 2/s aggregate\n");
	assert_int_equal(mrun(f, &m, 4), 1);
	assert_int_equal(mrun(f, &o, 4), 2); /* 0x2b & 0x0f == 0x0b: the second rule's; 0x2a is not */
	assert_int_equal(mrun(f, &shortp, 4), 4);
	assert_totals(f, 1, 1, 3);
}

/* Addresses past the classifier: a prefix, its negation, and IPv6. */
static void test_addresses(void **state)
{
	struct fx *f = fx_get(state);
	struct mpkt to = udp(1000, 53, 10), elsewhere = udp(1000, 53, 10), v6 = udp(1000, 53, 10);

	elsewhere.dst = "203.0.113.2";
	v6.src = "2001:db8::7";
	v6.dst = "2001:db8:1::1";
	put_match(f, "dst 203.0.113.1 proto udp rate 1/s aggregate\n"
		     "src != 198.51.100.0/24 proto udp dport 53 rate 2/s aggregate\n");
	assert_int_equal(mrun(f, &to, 3), 1);
	assert_int_equal(mrun(f, &elsewhere, 3), 3);
	assert_int_equal(mrun(f, &v6, 3), 3); /* a negated IPv4 prefix holds no IPv6 source */
	assert_totals(f, 2, 0, 0);
}

/* Named sets as addresses: membership and its negation, IPv4 and IPv6, source and destination. */
static void test_named_sets(void **state)
{
	struct fx *f = fx_get(state);
	struct mpkt in4 = udp(1000, 53, 10), in6 = udp(1000, 53, 10), out4 = udp(1000, 53, 10),
		    out6 = udp(1000, 53, 10), to = udp(1000, 123, 10), past = udp(1000, 123, 10);

	in4.src = "192.0.2.7";
	in6.src = "2001:db8::7";
	in6.dst = "2001:db8:1::1";
	out6.src = "2001:db9::1";
	out6.dst = "2001:db8:1::1";
	past.dst = "203.0.113.200";
	put_match(f, "set res { 192.0.2.0/24, 2001:db8::/32 }\n"
		     "set near { 203.0.113.0/25, 203.0.113.64/26 }\n"
		     "src @res proto udp dport 53 rate 3/s aggregate\n"
		     "src != @res proto udp dport 53 rate 2/s aggregate\n"
		     "dst @near proto udp dport 123 rate 1/s aggregate\n"
		     "dst != @near proto udp dport 123 rate 2/s aggregate\n");
	assert_int_equal(mrun(f, &in4, 2), 2);
	assert_int_equal(mrun(f, &in6, 2), 1);
	assert_int_equal(mrun(f, &out4, 3), 2);
	assert_int_equal(mrun(f, &out6, 1), 0);
	assert_int_equal(mrun(f, &to, 2), 1);
	assert_int_equal(mrun(f, &past, 3), 2);
	assert_totals(f, 1, 3, 1);
	assert_totals(f, 2, 2, 2);
	assert_totals(f, 3, 1, 1);
	assert_totals(f, 4, 2, 1);
	assert_int_equal(counters(f).no_rule, 0);
}

/* A set of a prefix rule is an address of a match rule too: both rules meet its sources. */
static void test_named_set_shared(void **state)
{
	struct fx *f = fx_get(state);
	struct mpkt in = udp(1000, 53, 10), out = udp(1000, 53, 10);

	in.src = "192.0.2.7";
	put_match(f, "set res { 192.0.2.0/24 }\n"
		     "prefix @res rate 2/s aggregate\n"
		     "src @res proto udp rate 10/s aggregate\n");
	assert_int_equal(mrun(f, &in, 4), 2);
	assert_int_equal(mrun(f, &out, 3), 3);
	assert_totals(f, 1, 2, 2);
	assert_totals(f, 2, 2, 0); /* met too: its passes, none of its own blocks (the prefix rule dropped) */
	assert_int_equal(counters(f).no_rule, 3);
}

/* per dst: a window a destination; per src,dport: a window a source and port. */
static void test_keys(void **state)
{
	struct fx *f = fx_get(state);
	struct mpkt a = udp(1000, 53, 10), b = udp(1000, 53, 10), a2 = udp(1000, 53, 10), p2 = udp(1000, 54, 10);

	b.dst = "203.0.113.2";
	a2.src = "198.51.100.8";
	put_match(f, "proto udp dport 53 rate 1/s per dst\n");
	assert_int_equal(mrun(f, &a, 2), 1);
	assert_int_equal(mrun(f, &a2, 2), 0); /* another source, the same destination: its window is full */
	assert_int_equal(mrun(f, &b, 2), 1);
	fx_reset(f);
	put_match(f, "dst 203.0.113.0/24 proto udp rate 1/s per src,dport\n");
	assert_int_equal(mrun(f, &a, 2), 1);
	assert_int_equal(mrun(f, &p2, 2), 1);
	assert_int_equal(mrun(f, &a2, 2), 1);
	assert_int_equal(mrun(f, &b, 2), 0); /* the first source's port 53, to another address of the prefix */
}

/* An allow rule passes what it matches at once, whatever else matches it. */
static void test_allow(void **state)
{
	struct fx *f = fx_get(state);
	struct mpkt resolver = udp(53, 40000, 600), other = udp(53, 40000, 600);

	resolver.src = "192.0.2.53";
	put_match(f, "proto udp sport 53 src 192.0.2.53 allow\n"
		     "proto udp sport 53 rate 1/s aggregate\n");
	assert_int_equal(mrun(f, &resolver, 4), 4);
	assert_int_equal(mrun(f, &other, 4), 1);
	assert_int_equal(counters(f).allowed, 4);
}

/* A shorthand and a match rule both met: the packet passes only if each passes; both count it. */
static void test_with_shorthands(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule port = rule(f, 5, 1000, 1, 0);
	struct mpkt low = udp(1000, 53, 10), high = udp(1000, 53, 10);

	put_port(f, XRL_PROTO_UDP, 53, &port); /* id 1 */
	set_has(f, f->set, XRL_HAS_PORTS);
	put_match(f, "proto udp dport 53 ttl 1-10 rate 2/s aggregate\n"); /* id 2 */
	low.ttl = 5;
	high.ttl = 64;
	assert_int_equal(mrun(f, &low, 4), 2);
	/* The port rule counted the two that passed, and its own passes taken back for the two dropped. */
	assert_totals(f, 1, 2, 0);
	assert_totals(f, 2, 2, 2);
	assert_int_equal(mrun(f, &high, 4), 3); /* the port rule's 5 a window: 2 spent */
	assert_totals(f, 1, 5, 1);
}

/* A window passes exactly its threshold, then again once it has slid past. */
static void test_exact(void **state)
{
	struct fx *f = fx_get(state);
	struct mpkt m = udp(1000, 9, 10);

	put_match(f, "proto udp dport 9 rate 10/s window 1s buckets 1 aggregate\n");
	assert_int_equal(mrun(f, &m, 100), 10);
	set_now(f, T0 + SEC_NS);
	assert_int_equal(mrun(f, &m, 100), 10);
	assert_totals(f, 1, 20, 180);
}

/*
 * The only rule a packet meets, of several fields, judged as a lone rule of
 * another kind (its latch asked first, its passes leased): exact all the
 * same, through the window's threshold and past it; a second source its own.
 */
static void test_lone_exact(void **state)
{
	struct fx *f = fx_get(state);
	struct mpkt a = udp(1000, 9, 10), b = udp(1000, 9, 10);

	b.src = "198.51.100.8";
	put_match(f, "proto udp dport 9 sport 1000 rate 1000/s window 1s buckets 1 per-source\n");
	assert_int_equal(mrun(f, &a, 600), 600);
	assert_int_equal(mrun(f, &a, 900), 400);
	assert_int_equal(mrun(f, &b, 1200), 1000);
	assert_totals(f, 1, 2000, 700);
	set_now(f, T0 + SEC_NS);
	assert_int_equal(mrun(f, &a, 1001), 1000);
	assert_totals(f, 1, 3000, 701);
}

/* The issue's seven lines apply as written, and hold what they name. */
static void test_issue_lines(void **state)
{
	struct fx *f = fx_get(state);
	struct mpkt mem = udp(11211, 40000, 1000);

	put_match(f, "proto udp sport 53 length 512-65535 rate 1000/s aggregate\n"
		     "proto udp sport 123 payload 2 032a rate 10/s aggregate\n"
		     "proto tcp tcp flags ack / syn,ack,rst dport 443 rate 200/s per-source\n"
		     "proto tcp tcp flags rst / rst dport 443 rate 20/s per-source\n"
		     "proto udp sport 11211 rate 1/s aggregate\n"
		     "proto udp dport 27015 ttl 1-32 rate 5/s per-source\n"
		     "dst 192.0.2.10 proto udp rate 50k/s per src,dport\n");
	assert_int_equal(mrun(f, &mem, 5), 1);
	assert_totals(f, 5, 1, 4);
}

/* A set without rules of several fields: nothing classified, the shorthands as before. */
static void test_none(void **state)
{
	struct fx *f = fx_get(state);
	struct mpkt m = udp(53, 53, 10);

	assert_int_equal(mrun(f, &m, 3), 3);
	assert_int_equal(counters(f).no_rule, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sport_and_length, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_named_sets, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_named_set_shared, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_tcp_flags, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_small_fields, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_payload, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_addresses, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_keys, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_allow, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_with_shorthands, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_exact, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_lone_exact, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_issue_lines, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_none, setup, fx_teardown),
	};

	fx_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
