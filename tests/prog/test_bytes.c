// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Byte rates under BPF_PROG_TEST_RUN, on the test clock: the frame's length
 * as XDP sees it (data_end - data) counted in the rule's byte window; a frame
 * that fits exactly, one byte over, a small frame after a big one was refused
 * (the latch must not answer for it), window boundaries, a rule with both a
 * packet and a byte rate (the stricter binds; the rate that passed is taken
 * back, the other left as it was), byte windows per source, and a byte rate
 * on every kind of rule.
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

static struct fx fx_b;

static int setup(void **state)
{
	return fx_setup(state, &fx_b, 0);
}

static int group_teardown(void **state)
{
	(void)state;
	xdp_ratelimit_bpf__destroy(fx_b.skel);
	return 0;
}

/* A UDP/IPv4 frame of len bytes in all, Ethernet header included. */
static void udp4_len(struct pkt *p, const char *src, __u16 dport, size_t len)
{
	pkt_init(p);
	pkt_push_eth(p);
	pkt_push_ipv4(p, src, "203.0.113.1", 0);
	pkt_push_udp(p, 40000, dport);
	assert_true(len >= 42);
	pkt_push_data(p, len - 42);
	pkt_finish(p);
	assert_int_equal(p->len, len);
}

/* A rule with a byte rate of bytes per interval_ms and no packet rate. */
static struct xrl_rule byte_rule(struct fx *f, __u64 bytes, __u64 interval_ms, __u32 n, __u32 flags)
{
	struct xrl_rule r = rule(f, 0, interval_ms, n, flags | XRL_F_NO_PKT_RATE);

	r.byte_threshold = bytes;
	r.byte_rate = bytes;
	r.byte_unit = XRL_BU_B;
	r.byte_unit_ms = (__u32)interval_ms;
	return r;
}

/* What a rule's window holds at now: its byte window's (bytes) or its packet window's. */
static __u64 window_of(struct fx *f, const struct xrl_rule *r, const char *src, __u16 port, __u8 proto, int bytes)
{
	struct xrl_key k = {};
	struct xrl_state st;
	__u8 a[16] = {};

	assert_int_equal(inet_pton(AF_INET, src, a), 1);
	xrl_key_make(&k, r, XRL_FAMILY_V4, a, port, proto);
	if (bytes)
		k.rule_id |= XRL_KEY_BYTES;
	if (fx_state(f, &k, &st))
		return 0;
	return xrl_window_at(&st.ring, r->buckets, XRL_SHORT_CELLS, r->interval_ns, f->skel->bss->xrl_test_now).pass;
}

struct byte_totals {
	__u64 pass, block;
};

static struct byte_totals rule_bytes(struct fx *f, __u32 id)
{
	struct xrl_rule_stats *v = calloc(f->ncpus, sizeof(*v));
	struct byte_totals t = {};
	int c;

	assert_non_null(v);
	assert_int_equal(bpf_map_lookup_elem(f->rule_stats, &id, v), 0);
	for (c = 0; c < f->ncpus; c++) {
		t.pass += fx_rs(f, v, c)->pass_bytes;
		t.block += fx_rs(f, v, c)->block_bytes;
	}
	free(v);
	return t;
}

/* 3000 bytes a second: three 1000-byte frames fit exactly, a fourth does not. */
static void test_exact_fit(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = byte_rule(f, 3000, 1000, 2, 0);
	struct byte_totals bt;
	struct pkt p;

	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4_len(&p, SRC4, 53, 1000);
	assert_int_equal(run_n(f, &p, 4), 3);
	assert_int_equal(window_of(f, &r, SRC4, 53, XRL_PROTO_UDP, 1), 3000);
	assert_totals(f, r.id, 3, 1);
	bt = rule_bytes(f, r.id);
	assert_int_equal(bt.pass, 3000);
	assert_int_equal(bt.block, 1000);
	/* No packet window: a byte-only rule makes none. */
	assert_int_equal(window_of(f, &r, SRC4, 53, XRL_PROTO_UDP, 0), 0);
}

/* One byte under the frames' sum: the third frame is one byte over, and refused. */
static void test_one_byte_over(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = byte_rule(f, 2999, 1000, 2, 0);
	struct pkt p;

	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4_len(&p, SRC4, 53, 1000);
	assert_int_equal(run_n(f, &p, 3), 2);
	/* 999 bytes of room: a 999-byte frame fits, then nothing does. */
	udp4_len(&p, SRC4, 53, 999);
	assert_int_equal(run(f, &p), XDP_PASS);
	udp4_len(&p, SRC4, 53, 42);
	assert_int_equal(run(f, &p), XDP_DROP);
	assert_int_equal(window_of(f, &r, SRC4, 53, XRL_PROTO_UDP, 1), 2999);
}

/*
 * A 1500-byte frame refused with 1000 bytes of room left: the key is over for
 * it, not for a 100-byte frame, which passes (no latch answers for it) until
 * the room is under the smallest frame a rule judges. Then the latch answers.
 */
static void test_small_after_big(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = byte_rule(f, 3000, 1000, 2, 0);
	struct xrl_latch l;
	struct xrl_key k = {};
	__u8 a[16] = {};
	struct pkt big, small;
	__u32 h;
	int i;

	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4_len(&big, SRC4, 53, 1000);
	assert_int_equal(run_n(f, &big, 2), 2);
	udp4_len(&big, SRC4, 53, 1500);
	assert_int_equal(run_n(f, &big, 3), 0); /* again and again: never latched */
	udp4_len(&small, SRC4, 53, 100);
	for (i = 0; i < 10; i++)
		assert_int_equal(run(f, &small), XDP_PASS);
	assert_int_equal(window_of(f, &r, SRC4, 53, XRL_PROTO_UDP, 1), 3000);
	/* No room at all: the latch holds it now, for any frame, until the bucket ends. */
	assert_int_equal(run(f, &small), XDP_DROP);
	assert_int_equal(inet_pton(AF_INET, SRC4, a), 1);
	xrl_key_make(&k, &r, XRL_FAMILY_V4, a, 53, XRL_PROTO_UDP);
	k.rule_id |= XRL_KEY_BYTES;
	h = fx_latch_home(f, &k);
	{
		struct xrl_latch *v = calloc(f->ncpus, sizeof(*v));

		assert_non_null(v);
		assert_int_equal(bpf_map_lookup_elem(f->latches, &h, v), 0);
		l = v[0]; /* pinned to the first CPU the process may use */
		for (i = 0; i < f->ncpus; i++)
			if (v[i].gen)
				l = v[i];
		free(v);
	}
	if (fx_tick(f)) {
		assert_int_equal(l.gen, r.gen);
		assert_true(xrl_key_equal(&l.key, &k));
	}
	assert_totals(f, r.id, 12, 4);
}

/* The byte window slides as a packet window does: 2 buckets of 500ms. */
static void test_window_boundary(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = byte_rule(f, 3000, 1000, 2, 0);
	struct pkt p;

	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4_len(&p, SRC4, 53, 1000);
	set_now(f, T0);
	assert_int_equal(run_n(f, &p, 2), 2);
	set_now(f, T0 + 500 * MS);
	assert_int_equal(run_n(f, &p, 2), 1);
	set_now(f, T0 + 1000 * MS - 1); /* all three still in the window */
	assert_int_equal(run(f, &p), XDP_DROP);
	set_now(f, T0 + 1000 * MS); /* the first bucket's 2000 bytes have left */
	assert_int_equal(run_n(f, &p, 3), 2);
	assert_int_equal(window_of(f, &r, SRC4, 53, XRL_PROTO_UDP, 1), 3000);
}

/*
 * Both rates on one rule: 3 packets and 2500 bytes a window. 1000-byte
 * frames: the byte rate binds at 2 and the third frame's packet count is taken
 * back. 100-byte frames then: the packet rate binds, and the byte window
 * keeps what it had (it is only asked, never counted, for a dropped packet).
 */
static void test_both_rates(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 3, 1000, 2, 0);
	struct byte_totals bt;
	struct pkt p;

	r.byte_threshold = 2500;
	r.byte_rate = 2500;
	r.byte_unit = XRL_BU_B;
	r.byte_unit_ms = 1000;
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4_len(&p, SRC4, 53, 1000);
	assert_int_equal(run_n(f, &p, 3), 2);
	assert_int_equal(window_of(f, &r, SRC4, 53, XRL_PROTO_UDP, 0), 2); /* the third's pass taken back */
	assert_int_equal(window_of(f, &r, SRC4, 53, XRL_PROTO_UDP, 1), 2000);
	udp4_len(&p, SRC4, 53, 100);
	assert_int_equal(run_n(f, &p, 3), 1);
	assert_int_equal(window_of(f, &r, SRC4, 53, XRL_PROTO_UDP, 0), 3);
	assert_int_equal(window_of(f, &r, SRC4, 53, XRL_PROTO_UDP, 1), 2100); /* unchanged by the two dropped */
	assert_totals(f, r.id, 3, 3);
	bt = rule_bytes(f, r.id);
	assert_int_equal(bt.pass, 2100);
	assert_int_equal(bt.block, 1200);
}

/* A byte rule that passes a packet another rule drops: its bytes are taken back. */
static void test_take_back_across_rules(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule port = byte_rule(f, 10000, 1000, 2, 0), pfx = rule(f, 1, 1000, 2, 0);
	struct pkt p;

	put_port(f, XRL_PROTO_UDP, 53, &port);
	put_prefix(f, "198.51.100.0", 24, &pfx);
	udp4_len(&p, SRC4, 53, 1000);
	assert_int_equal(run_n(f, &p, 4), 1);
	assert_int_equal(window_of(f, &port, SRC4, 53, XRL_PROTO_UDP, 1), 1000);
	assert_totals(f, port.id, 1, 0);
}

/* Per source: each source has its own byte window; aggregate: one for all. */
static void test_per_source(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule ps = byte_rule(f, 2000, 1000, 2, XRL_F_PER_SOURCE), ag = byte_rule(f, 2000, 1000, 2, 0);
	struct pkt p;

	put_port(f, XRL_PROTO_UDP, 53, &ps);
	udp4_len(&p, "198.51.100.1", 53, 1000);
	assert_int_equal(run_n(f, &p, 3), 2);
	udp4_len(&p, "198.51.100.2", 53, 1000);
	assert_int_equal(run_n(f, &p, 3), 2);
	put_port(f, XRL_PROTO_UDP, 54, &ag);
	udp4_len(&p, "198.51.100.1", 54, 1000);
	assert_int_equal(run_n(f, &p, 3), 2);
	udp4_len(&p, "198.51.100.2", 54, 1000);
	assert_int_equal(run_n(f, &p, 3), 0);
}

/* Every kind of rule takes a byte rate: a protocol rule, fragments, a prefix rule. */
static void test_every_kind(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule udp = byte_rule(f, 2000, 1000, 2, 0), frags = byte_rule(f, 200, 1000, 2, 0);
	struct xrl_rule pfx = byte_rule(f, 3000, 1000, 2, 0);
	struct iphdr *ip;
	struct pkt p;

	put_proto(f, XRL_PROTO_UDP, &udp);
	udp4_len(&p, SRC4, 9999, 1000);
	assert_int_equal(run_n(f, &p, 3), 2);
	put_proto(f, XRL_SEL_FRAGMENTS, &frags);
	pkt_init(&p);
	pkt_push_eth(&p);
	ip = pkt_push_ipv4(&p, SRC4, "203.0.113.1", 0);
	ip->protocol = IPPROTO_UDP;
	ip->frag_off = htons(185);
	pkt_push_data(&p, 66); /* 100 bytes in all */
	pkt_finish(&p);
	assert_int_equal(run_n(f, &p, 3), 2);
	put_prefix(f, "192.0.2.0", 24, &pfx);
	pkt_init(&p); /* TCP: the udp rule's window is full */
	pkt_push_eth(&p);
	pkt_push_ipv4(&p, "192.0.2.9", "203.0.113.1", 0);
	pkt_push_tcp(&p, 40000, 7);
	pkt_push_data(&p, 1500 - 54);
	pkt_finish(&p);
	assert_int_equal(p.len, 1500);
	assert_int_equal(run_n(f, &p, 3), 2);
	assert_totals(f, pfx.id, 2, 1);
}

/*
 * A dst rule's byte rate (a victim's bandwidth), with and without a packet
 * rate, and a port rule narrowed to a destination: their byte windows are
 * judged and counted, and taken back when another rule drops the packet.
 */
static void test_dst_kinds(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule host = byte_rule(f, 2500, 1000, 2, 0), narrowed = byte_rule(f, 1000, 1000, 2, 0);
	struct xrl_rule both = rule(f, 10, 1000, 2, 0);
	struct byte_totals bt;
	struct pkt p;

	both.byte_threshold = 1800;
	both.byte_rate = 1800;
	both.byte_unit = XRL_BU_B;
	both.byte_unit_ms = 1000;
	put_dst(f, "203.0.113.1", 32, &host); /* udp4_len's destination */
	udp4_len(&p, SRC4, 7000, 1000);
	assert_int_equal(run_n(f, &p, 4), 2); /* 2500 bytes: two 1000-byte frames */
	assert_totals(f, host.id, 2, 2);
	bt = rule_bytes(f, host.id);
	assert_int_equal(bt.pass, 2000);
	assert_int_equal(bt.block, 2000);
	assert_int_equal(window_of(f, &host, SRC4, 0, 0, 1), 2000);

	/* The narrowed port rule passes 600 bytes, the dst rule has room for 500: the pass is taken back. */
	put_dst_rule(f, XRL_PROTO_UDP, 53, "203.0.113.0", 24, &narrowed);
	udp4_len(&p, SRC4, 53, 600);
	assert_int_equal(run_n(f, &p, 1), 0);
	assert_int_equal(window_of(f, &narrowed, SRC4, 53, XRL_PROTO_UDP, 1), 0);

	/* Both rates on a dst rule: the byte rate (1800) binds before the packet rate (10). */
	put_dst(f, "203.0.113.9", 32, &both);
	pkt_init(&p);
	pkt_push_eth(&p);
	pkt_push_ipv4(&p, SRC4, "203.0.113.9", 0);
	pkt_push_udp(&p, 40000, 7000);
	pkt_push_data(&p, 600 - 42);
	pkt_finish(&p);
	assert_int_equal(run_n(f, &p, 5), 3);
	assert_int_equal(window_of(f, &both, SRC4, 0, 0, 0), 3);
	assert_int_equal(window_of(f, &both, SRC4, 0, 0, 1), 1800);
}

#define T(fn) cmocka_unit_test_setup(fn, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_exact_fit),	 T(test_one_byte_over), T(test_small_after_big),
		T(test_window_boundary), T(test_both_rates),	T(test_take_back_across_rules),
		T(test_per_source),	 T(test_every_kind),	T(test_dst_kinds),
	};

	fx_init();
	return cmocka_run_group_tests_name("bytes", tests, NULL, group_teardown);
}
