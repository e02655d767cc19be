// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cross-CPU aggregator of the rules' per-CPU windows (user/stats.c:
 * xrl_aggregate, xrl_qps) over hand-built per-CPU values, laid out as
 * bpf_map_lookup_elem returns them;
 * and the window key (include/xrl_key.h) a packet's source is counted under.
 * Semantics: Sentinel's LeapArray (docs/window.md); a bucket read from another CPU is judged by its own start.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "read/stats.h"
#include "xrl_key.h"

#define MS 1000000ULL
/* A monotonic time well away from zero, aligned to every bucket length used here. */
#define S (1700000000ULL * 1000000000ULL)

/* ---- per-CPU buffers ---- */

struct percpu {
	char *buf;
	size_t stride;
	int ncpus;
};

static struct percpu rule_stats_new(int ncpus)
{
	struct percpu p = { .stride = xrl_percpu_stride(sizeof(struct xrl_rule_stats)), .ncpus = ncpus };

	p.buf = xrl_percpu_alloc(ncpus, sizeof(struct xrl_rule_stats));
	assert_non_null(p.buf);
	return p;
}

static struct xrl_rule_stats *rs_cpu(struct percpu *p, int cpu)
{
	return (struct xrl_rule_stats *)(p->buf + (size_t)cpu * p->stride);
}

/* Writes a bucket into the cell its start maps to, as the data plane would. */
static void put(struct xrl_ring *r, __u32 n, __u64 interval, __u64 start, __u64 pass, __u64 block)
{
	__u64 blen = interval / n;
	struct xrl_cell *c = &r->c[(start / blen) % xrl_cells_for(n)];

	assert_int_equal(start % blen, 0);
	c->word = xrl_word((__u32)(start / blen), (__u32)pass);
	xrl_ring_blocks(r, xrl_cells_for(n))[c - r->c] = block;
	if (start / blen > r->last)
		r->last = start / blen;
}

static struct xrl_sum agg_rs(struct percpu *p, __u32 gen, __u32 n, __u64 interval, __u64 now)
{
	return xrl_aggregate(p->buf, p->ncpus, p->stride, offsetof(struct xrl_rule_stats, ring),
			     offsetof(struct xrl_rule_stats, gen), gen, n, xrl_cells_for(n), interval, now, false);
}

#define assert_sum(s, p, b, nb)                     \
	do {                                        \
		struct xrl_sum _s = (s);            \
		assert_int_equal(_s.pass, (p));     \
		assert_int_equal(_s.block, (b));    \
		assert_int_equal(_s.buckets, (nb)); \
	} while (0)

/*
 * n = 2, I = 1s, now = S + 700ms. At the same slot the two CPUs hold buckets
 * of different cycles: each CPU's bucket counts by its own start only.
 */
static void test_aggregate_cycles_per_cpu(void **state)
{
	struct percpu p = rule_stats_new(2);
	__u64 I = 1000 * MS;

	(void)state;
	rs_cpu(&p, 0)->gen = 7;
	rs_cpu(&p, 0)->pass = 999; /* totals: not part of the window */
	rs_cpu(&p, 0)->block = 999;
	put(&rs_cpu(&p, 0)->ring, 2, I, S, 3, 1);	       /* live (700ms old) */
	put(&rs_cpu(&p, 0)->ring, 2, I, S - 500 * MS, 40, 40); /* 1200ms old */
	rs_cpu(&p, 1)->gen = 7;
	put(&rs_cpu(&p, 1)->ring, 2, I, S - 1000 * MS, 100, 100); /* 1700ms old */
	put(&rs_cpu(&p, 1)->ring, 2, I, S + 500 * MS, 5, 2);	  /* live, current */

	assert_sum(agg_rs(&p, 7, 2, I, S + 700 * MS), 3 + 5, 1 + 2, 2);
	/* the CPU order does not matter */
	memcpy(p.buf + p.stride, p.buf, p.stride);
	memset(&rs_cpu(&p, 0)->ring, 0, sizeof(rs_cpu(&p, 0)->ring));
	put(&rs_cpu(&p, 0)->ring, 2, I, S - 1000 * MS, 100, 100);
	put(&rs_cpu(&p, 0)->ring, 2, I, S + 500 * MS, 5, 2);
	assert_sum(agg_rs(&p, 7, 2, I, S + 700 * MS), 3 + 5, 1 + 2, 2);
	free(p.buf);
}

/* n = 5 over 1s: four CPUs, each its own mix of this cycle and the last. */
static void test_aggregate_cycles_many_buckets(void **state)
{
	struct percpu p = rule_stats_new(4);
	__u64 I = 1000 * MS, W = 200 * MS, now = S + 950 * MS;
	int cpu, i;

	(void)state;
	/* live at now: starts from S - 50ms on, so S .. S + 800ms */
	for (cpu = 0; cpu < 4; cpu++)
		rs_cpu(&p, cpu)->gen = 3;
	/* cpu 0: the whole cycle, 1 pass each: 5 */
	for (i = 0; i < 5; i++)
		put(&rs_cpu(&p, 0)->ring, 5, I, S + i * W, 1, 0);
	/* cpu 1: slots 0-1 of this cycle (10 each), 2-4 of the last (1000 each) */
	for (i = 0; i < 2; i++)
		put(&rs_cpu(&p, 1)->ring, 5, I, S + i * W, 10, 0);
	for (i = 2; i < 5; i++)
		put(&rs_cpu(&p, 1)->ring, 5, I, S - I + i * W, 1000, 0);
	/* cpu 2: slots 0-2 of the last cycle, 3-4 of this one (100 each) */
	for (i = 0; i < 3; i++)
		put(&rs_cpu(&p, 2)->ring, 5, I, S - I + i * W, 1000, 0);
	for (i = 3; i < 5; i++)
		put(&rs_cpu(&p, 2)->ring, 5, I, S + i * W, 100, 7);
	/* cpu 3: idle for a long time */
	for (i = 0; i < 5; i++)
		put(&rs_cpu(&p, 3)->ring, 5, I, S - 10 * I + i * W, 1000, 1000);

	assert_sum(agg_rs(&p, 3, 5, I, now), 5 + 20 + 200, 14, 5 + 2 + 2);
	free(p.buf);
}

/* Rings built for another shape generation are skipped, whatever their starts. */
static void test_aggregate_other_gen(void **state)
{
	struct percpu p = rule_stats_new(3);
	__u64 I = 1000 * MS, now = S + 700 * MS;
	int cpu;

	(void)state;
	for (cpu = 0; cpu < 3; cpu++) {
		rs_cpu(&p, cpu)->pass = ~0ULL; /* not part of the window */
		rs_cpu(&p, cpu)->slot.epoch = ~0U;
		put(&rs_cpu(&p, cpu)->ring, 2, I, S + 500 * MS, 1 + 10 * (__u64)cpu, 1);
	}
	rs_cpu(&p, 0)->gen = 7;
	rs_cpu(&p, 1)->gen = 6; /* the shape before */
	rs_cpu(&p, 2)->gen = 0; /* never judged on this CPU */

	assert_sum(agg_rs(&p, 7, 2, I, now), 1, 1, 1);
	assert_sum(agg_rs(&p, 6, 2, I, now), 11, 1, 1);
	assert_sum(agg_rs(&p, 5, 2, I, now), 0, 0, 0);
	free(p.buf);
}

/*
 * Userspace reads the clock after the maps, so no bucket it reads can start
 * after its now: one that does is not a current bucket and does not count,
 * however near.
 */
static void test_aggregate_future(void **state)
{
	struct percpu p = rule_stats_new(3);
	__u64 I = 1000 * MS;

	(void)state;
	rs_cpu(&p, 0)->gen = 1;
	rs_cpu(&p, 1)->gen = 1;
	rs_cpu(&p, 2)->gen = 1;
	put(&rs_cpu(&p, 0)->ring, 2, I, S + 500 * MS, 1, 0);  /* ours: current */
	put(&rs_cpu(&p, 1)->ring, 2, I, S + 1000 * MS, 2, 0); /* 300ms ahead */
	put(&rs_cpu(&p, 2)->ring, 2, I, S + 1500 * MS, 4, 0); /* 800ms ahead */
	assert_sum(agg_rs(&p, 1, 2, I, S + 700 * MS), 1, 0, 1);
	assert_sum(agg_rs(&p, 1, 2, I, S + 1000 * MS - 1), 1, 0, 1);
	/* at its start it counts */
	assert_sum(agg_rs(&p, 1, 2, I, S + 1000 * MS), 1 + 2, 0, 2);
	free(p.buf);
}

/*
 * A bucket leaves the window when the bucket one interval after it starts:
 * the spec's sum(now) refreshes the slot of now, which that older bucket
 * shares, before it adds.
 */
static void test_aggregate_deprecation_boundary(void **state)
{
	struct percpu p = rule_stats_new(1);
	__u64 I = 1000 * MS;

	(void)state;
	rs_cpu(&p, 0)->gen = 2;
	put(&rs_cpu(&p, 0)->ring, 2, I, S, 2, 1);
	put(&rs_cpu(&p, 0)->ring, 2, I, S + 500 * MS, 3, 0);

	assert_sum(agg_rs(&p, 2, 2, I, S + 999 * MS), 5, 1, 2);
	assert_sum(agg_rs(&p, 2, 2, I, S + I - 1), 5, 1, 2);
	assert_sum(agg_rs(&p, 2, 2, I, S + I), 3, 0, 1);
	assert_sum(agg_rs(&p, 2, 2, I, S + 500 * MS + I - 1), 3, 0, 1);
	assert_sum(agg_rs(&p, 2, 2, I, S + 500 * MS + I), 0, 0, 0);
	free(p.buf);
}

/* A shape that is no window sums to nothing, whatever the rings hold. */
static void test_aggregate_invalid_shape(void **state)
{
	struct percpu p = rule_stats_new(2);
	__u64 I = 1000 * MS, now = S + 700 * MS;
	int cpu, i;

	(void)state;
	for (cpu = 0; cpu < 2; cpu++) {
		rs_cpu(&p, cpu)->gen = 1;
		/* every cell holds a live bucket of the shape below */
		for (i = 0; i < 16; i++)
			put(&rs_cpu(&p, cpu)->ring, 16, 1600 * MS, S - 800 * MS + i * 100 * MS, 1, 1);
	}
	/* a valid shape for contrast: 16 cells on 2 CPUs */
	assert_sum(agg_rs(&p, 1, 16, 1600 * MS, now), 32, 32, 32);

	assert_sum(agg_rs(&p, 1, 0, I, now), 0, 0, 0);
	assert_sum(agg_rs(&p, 1, XRL_MAX_BUCKETS + 1, (XRL_MAX_BUCKETS + 1) * 100 * MS, now), 0, 0, 0);
	assert_sum(agg_rs(&p, 1, 2, 0, now), 0, 0, 0);
	assert_sum(agg_rs(&p, 1, 3, I, now), 0, 0, 0); /* 1e9 ns is not a multiple of 3 */
	free(p.buf);
}

/* Only the first n slots of a ring are the window's: the rest are never read. */
static void test_aggregate_first_n_slots(void **state)
{
	struct percpu p = rule_stats_new(1);
	__u64 I = 1000 * MS;
	int i;

	(void)state;
	rs_cpu(&p, 0)->gen = 1;
	/* Past the 3 cells' words and their block counts (xrl_ring_blocks). */
	for (i = 2 * 3; i < XRL_MAX_BUCKETS; i++)
		rs_cpu(&p, 0)->ring.c[i].word = xrl_word((__u32)((S + 500 * MS) / (500 * MS)), 1000);
	put(&rs_cpu(&p, 0)->ring, 2, I, S + 500 * MS, 6, 0);
	assert_sum(agg_rs(&p, 1, 2, I, S + 700 * MS), 6, 0, 1);
	free(p.buf);
}

/* Every CPU is read, each value at its own stride, however many there are. */
static void test_aggregate_many_cpus(void **state)
{
	enum { NCPUS = 256 };
	struct percpu p = rule_stats_new(NCPUS);
	__u64 I = 2000 * MS, now = S + 1900 * MS;
	int cpu;

	(void)state;
	assert_int_equal(p.stride % 8, 0);
	assert_true(p.stride >= sizeof(struct xrl_rule_stats));
	for (cpu = 0; cpu < NCPUS; cpu++) {
		rs_cpu(&p, cpu)->gen = 9;
		put(&rs_cpu(&p, cpu)->ring, 4, I, S - 1000 * MS, 100, 100); /* 2900ms old */
		put(&rs_cpu(&p, cpu)->ring, 4, I, S, (__u64)cpu, 0);	    /* 1900ms old */
		put(&rs_cpu(&p, cpu)->ring, 4, I, S + 1500 * MS, 1, 2);	    /* current */
	}
	/* sum of cpu over 0..255 = 32640 */
	assert_sum(agg_rs(&p, 9, 4, I, now), NCPUS + 32640, 2 * NCPUS, 2 * NCPUS);
	/* fewer CPUs asked for, fewer read */
	p.ncpus = 2;
	assert_sum(agg_rs(&p, 9, 4, I, now), 2 + 1, 4, 4);
	free(p.buf);
}

/*
 * The gen and the ring are found where the caller says, not where the two
 * map values happen to keep them; values sit at the kernel's 8-byte stride.
 */
struct odd_value {
	__u64 other;
	__u32 other2;
	__u32 gen;
	__u64 other3[2];
	struct xrl_ring ring;
	__u8 tail[4];
};

static void test_aggregate_layout(void **state)
{
	size_t stride = xrl_percpu_stride(sizeof(struct odd_value));
	char *buf = xrl_percpu_alloc(3, sizeof(struct odd_value));
	__u64 I = 1000 * MS;
	int cpu;

	(void)state;
	assert_non_null(buf);
	assert_int_equal(xrl_percpu_stride(1), 8);
	assert_int_equal(xrl_percpu_stride(8), 8);
	assert_int_equal(xrl_percpu_stride(12), 16);
	assert_int_equal(stride % 8, 0);
	for (cpu = 0; cpu < 3; cpu++) {
		struct odd_value *v = (struct odd_value *)(buf + (size_t)cpu * stride);

		v->other2 = 5; /* the wrong gen, where a value of another layout keeps it */
		v->gen = 4;
		put(&v->ring, 2, I, S + 500 * MS, 1 + (__u64)cpu, 0);
	}
	assert_sum(xrl_aggregate(buf, 3, stride, offsetof(struct odd_value, ring), offsetof(struct odd_value, gen), 4,
				 2, xrl_cells_for(2), I, S + 700 * MS, false),
		   1 + 2 + 3, 0, 3);
	assert_sum(xrl_aggregate(buf, 3, stride, offsetof(struct odd_value, ring), offsetof(struct odd_value, gen), 5,
				 2, xrl_cells_for(2), I, S + 700 * MS, false),
		   0, 0, 0);
	free(buf);
}

/* ---- QPS ---- */

static void test_qps(void **state)
{
	(void)state;
	/* the window's sum over its interval, per second */
	assert_true(xrl_qps(5, 1000 * MS) == 5.0);
	assert_true(xrl_qps(5, 500 * MS) == 10.0);
	assert_true(xrl_qps(3, 2000 * MS) == 1.5);
	assert_true(xrl_qps(1, 3600000 * MS) * 3600.0 > 0.999999);
	assert_true(xrl_qps(1, 3600000 * MS) * 3600.0 < 1.000001);
	/* the largest threshold over the longest window: 10^12 per second */
	assert_true(xrl_qps(3600000000000000ULL, 3600000 * MS) > 0.999999e12);
	assert_true(xrl_qps(3600000000000000ULL, 3600000 * MS) < 1.000001e12);
	assert_true(xrl_qps(0, 1000 * MS) == 0.0);
	/* no interval: no rate, not a division by zero */
	assert_true(xrl_qps(5, 0) == 0.0);
}

/* The figure 'stats' shows: the aggregate of every CPU, as QPS. */
static void test_qps_of_aggregate(void **state)
{
	struct percpu p = rule_stats_new(2);
	__u64 I = 500 * MS, now = S + 400 * MS;

	(void)state;
	rs_cpu(&p, 0)->gen = 1;
	rs_cpu(&p, 1)->gen = 1;
	put(&rs_cpu(&p, 0)->ring, 2, I, S, 10, 1);
	put(&rs_cpu(&p, 0)->ring, 2, I, S + 250 * MS, 15, 0);
	put(&rs_cpu(&p, 1)->ring, 2, I, S + 250 * MS, 25, 4);
	{
		struct xrl_sum s = agg_rs(&p, 1, 2, I, now);

		assert_true(xrl_qps(s.pass, I) == 100.0);
		assert_true(xrl_qps(s.block, I) == 10.0);
	}
	free(p.buf);
}

/* ---- window keys ---- */

static struct xrl_rule rule_of(const char *line)
{
	char buf[256], err[XRL_ERRLEN], *argv[32], *save = NULL, *w;
	struct xrl_spec s;
	int argc = 0;

	strcpy(buf, line);
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	if (xrl_spec_parse(argc, argv, &s, err, sizeof(err)))
		fail_msg("'%s' refused: %s", line, err);
	s.r.id = 42; /* as apply gives it */
	s.r.gen = 3;
	return s.r;
}

/* A source as the data plane holds it: 16 bytes, IPv4 in the first four. */
static void src_of(const char *text, __u8 *family, __u8 *src)
{
	memset(src, 0, 16);
	if (inet_pton(AF_INET, text, src) == 1) {
		*family = XRL_FAMILY_V4;
		return;
	}
	assert_int_equal(inet_pton(AF_INET6, text, src), 1);
	*family = XRL_FAMILY_V6;
}

static struct xrl_key key_of(const struct xrl_rule *r, const char *src_text, __u16 port, __u8 proto)
{
	struct xrl_key k;
	__u8 family, src[16];

	memset(&k, 0, sizeof(k));
	src_of(src_text, &family, src);
	xrl_key_make(&k, r, family, src, port, proto);
	return k;
}

static void assert_key(const struct xrl_key *k, __u32 id, __u16 port, __u8 proto, __u8 family, const char *addr_text)
{
	__u8 want[16] = { 0 };

	assert_int_equal(k->rule_id, id);
	assert_int_equal(k->port, port);
	assert_int_equal(k->proto, proto);
	assert_int_equal(k->family, family);
	if (addr_text)
		assert_int_equal(inet_pton(family == XRL_FAMILY_V4 ? AF_INET : AF_INET6, addr_text, want), 1);
	assert_memory_equal(k->addr, want, 16);
}

static void test_key_v4(void **state)
{
	struct xrl_rule r = rule_of("port 53/udp rate 100/s");
	struct xrl_key a, b;

	(void)state;
	a = key_of(&r, "192.0.2.77", 53, XRL_PROTO_UDP);
	assert_key(&a, 42, 53, XRL_PROTO_UDP, XRL_FAMILY_V4, "192.0.2.77");
	b = key_of(&r, "192.0.2.78", 53, XRL_PROTO_UDP);
	assert_memory_not_equal(&a, &b, sizeof(a));

	r = rule_of("port 53/udp rate 100/s mask4 24");
	a = key_of(&r, "192.0.2.77", 53, XRL_PROTO_UDP);
	assert_key(&a, 42, 53, XRL_PROTO_UDP, XRL_FAMILY_V4, "192.0.2.0");
	b = key_of(&r, "192.0.2.200", 53, XRL_PROTO_UDP);
	assert_memory_equal(&a, &b, sizeof(a)); /* one window for the /24 */
	b = key_of(&r, "192.0.3.77", 53, XRL_PROTO_UDP);
	assert_memory_not_equal(&a, &b, sizeof(a));

	/* a mask that is not a whole byte */
	r = rule_of("prefix 10.0.0.0/8 rate 100/s mask 20");
	a = key_of(&r, "10.1.255.7", 0, XRL_PROTO_TCP);
	assert_key(&a, 42, 0, 0, XRL_FAMILY_V4, "10.1.240.0");
	r.src_mask4 = 0; /* the grammar refuses it on a prefix rule (an aggregate in disguise): the key still works */
	a = key_of(&r, "10.1.255.7", 0, XRL_PROTO_TCP);
	assert_key(&a, 42, 0, 0, XRL_FAMILY_V4, "0.0.0.0");
}

/* Bytes past the mask are cleared, whatever the source buffer holds there. */
static void test_key_clears_past_mask(void **state)
{
	struct xrl_rule r = rule_of("port 53/udp rate 100/s");
	struct xrl_key k;
	__u8 src[16];

	(void)state;
	memset(src, 0xee, sizeof(src));
	src[0] = 198, src[1] = 51, src[2] = 100, src[3] = 9;
	memset(&k, 0, sizeof(k));
	xrl_key_make(&k, &r, XRL_FAMILY_V4, src, 53, XRL_PROTO_UDP);
	assert_key(&k, 42, 53, XRL_PROTO_UDP, XRL_FAMILY_V4, "198.51.100.9");
}

/* The key's 64-bit hash as it was first written: each word in turn, xor then multiply. */
static __u64 key_hash_serial(const struct xrl_key *k)
{
	__u64 h = 0;
	__u32 w, i;

	for (i = 0; i < sizeof(*k) / 4; i++) {
		memcpy(&w, (const __u8 *)k + 4 * i, 4);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	}
	return h;
}

/*
 * A key's hash is the same as ever, whatever shortcut it takes (an IPv4
 * key's zero words): a sketch carried in place keeps its columns. Its latch
 * slot is the hash's top bits. IPv4, IPv6 and aggregate keys, and keys with
 * one word of the last three set.
 */
static void test_key_hash_unchanged(void **state)
{
	struct xrl_rule r = { .id = 7, .flags = XRL_F_PER_SOURCE, .src_mask4 = 32, .src_mask6 = 128 };
	__u32 x = 12345, i, j;
	struct xrl_key k;
	__u8 src[16];

	(void)state;
	for (i = 0; i < 20000; i++) {
		for (j = 0; j < 16; j++) {
			x = x * 1103515245U + 12345U;
			src[j] = (__u8)(x >> 16);
		}
		r.id = x % 8192;
		r.flags = i % 5 ? XRL_F_PER_SOURCE : 0;
		memset(&k, 0, sizeof(k));
		xrl_key_make(&k, &r, i % 2 ? XRL_FAMILY_V4 : XRL_FAMILY_V6, src, (__u16)(i % 3 ? x : 0), XRL_PROTO_UDP);
		if (i % 7 == 0) /* one of the last three words alone */
			k.addr[4 + 4 * (i % 3)] = (__u8)x;
		assert_true(xrl_key_hash64(&k) == key_hash_serial(&k));
		assert_int_equal(xrl_key_hash(&k), key_hash_serial(&k) >> (64 - XRL_LATCH_BITS));
	}
}

/* The latch slots n sources take, from base (16 bytes) up by one in its last two. */
static __u32 slots_taken(int family, const char *base, __u32 n)
{
	struct xrl_rule r = { .id = 3, .flags = XRL_F_PER_SOURCE, .src_mask4 = 32, .src_mask6 = 128 };
	static bool taken[XRL_LATCHES];
	__u32 i, distinct = 0, h;
	struct xrl_key k;
	__u8 src[16];

	memset(taken, 0, sizeof(taken));
	for (i = 0; i < n; i++) {
		memcpy(src, base, 16);
		if (family == XRL_FAMILY_V4) {
			src[2] = (__u8)(src[2] + (i >> 8));
			src[3] = (__u8)i;
		} else {
			src[14] = (__u8)(i >> 8);
			src[15] = (__u8)i;
		}
		memset(&k, 0, sizeof(k));
		xrl_key_make(&k, &r, (__u8)family, src, 53, XRL_PROTO_UDP);
		h = xrl_key_hash(&k);
		assert_true(h < XRL_LATCHES);
		distinct += !taken[h];
		taken[h] = true;
	}
	return distinct;
}

/*
 * A flood's sources spread over the latch slots as random ones would (n keys
 * in 1024 slots: 227 of 256 on average, 639 of 1000), so that each keeps its
 * latch: the 256 sources of a /24 and the 1000 next to each other, IPv4 and
 * IPv6. (The slot was once a 32-bit hash's low bits, which the address's
 * last byte never reached: the 256 of a /24 fell in 2 slots, and every
 * packet of that flood took the slow path.)
 */
static void test_key_slots_spread(void **state)
{
	const char v4[16] = { 10, 1, 2, 0 }, v6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 7 };

	(void)state;
	assert_true(slots_taken(XRL_FAMILY_V4, v4, 256) >= 200);
	assert_true(slots_taken(XRL_FAMILY_V4, v4, 1000) >= 560);
	assert_true(slots_taken(XRL_FAMILY_V6, v6, 256) >= 200);
	assert_true(slots_taken(XRL_FAMILY_V6, v6, 1000) >= 560);
}

/* Every mask length, bit by bit, from buffers at every alignment. */
static void test_mask_every_length(void **state)
{
	__u8 buf[16 + 3], out[16 + 3], *src, *dst;
	__u32 bits, i, off;

	(void)state;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (__u8)(0x5b * (i + 1) ^ 0xa7);
	for (off = 0; off < 4; off++) {
		src = buf + off;
		dst = out + (3 - off);
		for (bits = 0; bits <= 128; bits++) {
			xrl_mask_addr(dst, src, bits);
			for (i = 0; i < 128; i++) {
				int want = i < bits ? (src[i / 8] >> (7 - i % 8)) & 1 : 0;

				assert_int_equal((dst[i / 8] >> (7 - i % 8)) & 1, want);
			}
		}
	}
}

static void test_key_v6(void **state)
{
	struct xrl_rule r = rule_of("port 443/tcp rate 100/s");
	struct xrl_key a, b;

	(void)state;
	/* per-source IPv6 defaults to /64 */
	a = key_of(&r, "2001:db8:1:2:3:4:5:6", 443, XRL_PROTO_TCP);
	assert_key(&a, 42, 443, XRL_PROTO_TCP, XRL_FAMILY_V6, "2001:db8:1:2::");
	b = key_of(&r, "2001:db8:1:2:ffff::1", 443, XRL_PROTO_TCP);
	assert_memory_equal(&a, &b, sizeof(a));
	b = key_of(&r, "2001:db8:1:3::1", 443, XRL_PROTO_TCP);
	assert_memory_not_equal(&a, &b, sizeof(a));

	r = rule_of("port 443/tcp rate 100/s mask4 24 mask6 48");
	a = key_of(&r, "2001:db8:1:2:3:4:5:6", 443, XRL_PROTO_TCP);
	assert_key(&a, 42, 443, XRL_PROTO_TCP, XRL_FAMILY_V6, "2001:db8:1::");
	/* the same rule masks IPv4 with its own mask */
	a = key_of(&r, "192.0.2.77", 443, XRL_PROTO_TCP);
	assert_key(&a, 42, 443, XRL_PROTO_TCP, XRL_FAMILY_V4, "192.0.2.0");

	r = rule_of("prefix 2001:db8::/32 rate 100/s mask 128");
	a = key_of(&r, "2001:db8:1:2:3:4:5:6", 0, 0);
	assert_key(&a, 42, 0, 0, XRL_FAMILY_V6, "2001:db8:1:2:3:4:5:6");
	r = rule_of("prefix 2001:db8::/32 rate 100/s mask 52");
	a = key_of(&r, "2001:db8:abcd:ef12::1", 0, 0);
	assert_key(&a, 42, 0, 0, XRL_FAMILY_V6, "2001:db8:abcd:e000::");
}

/* An aggregate rule has one window whatever the source: no family, no address. */
static void test_key_aggregate(void **state)
{
	struct xrl_rule r = rule_of("port 53/udp rate 100/s aggregate");
	struct xrl_key a, b;

	(void)state;
	a = key_of(&r, "192.0.2.77", 53, XRL_PROTO_UDP);
	assert_key(&a, 42, 53, XRL_PROTO_UDP, 0, NULL);
	b = key_of(&r, "2001:db8::1", 53, XRL_PROTO_UDP);
	assert_memory_equal(&a, &b, sizeof(a));

	r = rule_of("prefix 10.0.0.0/8 rate 100/s aggregate");
	a = key_of(&r, "10.9.9.9", 0, XRL_PROTO_TCP);
	assert_key(&a, 42, 0, 0, 0, NULL);
	b = key_of(&r, "10.1.1.1", 0, XRL_PROTO_UDP);
	assert_memory_equal(&a, &b, sizeof(a));
}

/*
 * A port rule's key holds the port and protocol; a prefix rule's holds
 * neither, so one source has one window per prefix rule whatever it sends to.
 */
static void test_key_port_vs_prefix(void **state)
{
	struct xrl_rule port = rule_of("port 53/udp rate 100/s");
	struct xrl_rule prefix = rule_of("prefix 192.0.2.0/24 rate 100/s");
	struct xrl_key a, b;

	(void)state;
	a = key_of(&port, "192.0.2.77", 53, XRL_PROTO_UDP);
	assert_key(&a, 42, 53, XRL_PROTO_UDP, XRL_FAMILY_V4, "192.0.2.77");
	b = key_of(&port, "192.0.2.77", 53, XRL_PROTO_TCP);
	assert_memory_not_equal(&a, &b, sizeof(a));

	a = key_of(&prefix, "192.0.2.77", 0, XRL_PROTO_UDP);
	assert_key(&a, 42, 0, 0, XRL_FAMILY_V4, "192.0.2.77");
	b = key_of(&prefix, "192.0.2.77", 0, XRL_PROTO_TCP);
	assert_memory_equal(&a, &b, sizeof(a));

	/* two rules never share a window */
	prefix.id = 43;
	b = key_of(&prefix, "192.0.2.77", 0, XRL_PROTO_UDP);
	assert_int_equal(b.rule_id, 43);
	assert_memory_not_equal(&a, &b, sizeof(a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aggregate_cycles_per_cpu),
		cmocka_unit_test(test_aggregate_cycles_many_buckets),
		cmocka_unit_test(test_aggregate_other_gen),
		cmocka_unit_test(test_aggregate_future),
		cmocka_unit_test(test_aggregate_deprecation_boundary),
		cmocka_unit_test(test_aggregate_invalid_shape),
		cmocka_unit_test(test_aggregate_first_n_slots),
		cmocka_unit_test(test_aggregate_many_cpus),
		cmocka_unit_test(test_aggregate_layout),
		cmocka_unit_test(test_qps),
		cmocka_unit_test(test_qps_of_aggregate),
		cmocka_unit_test(test_key_v4),
		cmocka_unit_test(test_key_clears_past_mask),
		cmocka_unit_test(test_mask_every_length),
		cmocka_unit_test(test_key_hash_unchanged),
		cmocka_unit_test(test_key_slots_spread),
		cmocka_unit_test(test_key_v6),
		cmocka_unit_test(test_key_aggregate),
		cmocka_unit_test(test_key_port_vs_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
