// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The classifier (include/xrl_lbvs.h, user/lib/codec/lbvs.c) in userspace
 * against the reference of lbvs_ref.h: random rule sets of 1 to 16384 rules
 * over random subsets of the fields (ranges, single values, negations, TCP
 * flags masks), asked random packets, packets planted to hit a rule, and
 * packets at every edge of a rule's ranges. The BPF side of the same header
 * is tests/prog/test_lbvs.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "base/err.h"
#include "lbvs_ref.h"

static int classify(const struct xrl_lbvs_set *b, const struct xrl_lbvs_pkt *pk, struct xrl_lbvs_result *res)
{
	struct xrl_lbvs_ctx c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.t = &b->t;
	ret = xrl_lbvs_classify(&c, pk, res);
	return ret;
}

/* The highest bit any packet's result held: what the checks reached. */
static __u32 top_bit;

/* The rules pk matches. */
static __u32 check_pkt(const struct ref_set *s, const struct xrl_lbvs_set *b, const struct xrl_lbvs_pkt *pk)
{
	struct xrl_lbvs_result res;

	assert_int_equal(classify(b, pk, &res), 0);
	if (res.n && res.bit[res.n - 1] > top_bit)
		top_bit = res.bit[res.n - 1];
	return ref_check(s, b, pk, &res, "userspace");
}

/* Builds s and asks it random, planted and edge packets: up to `rules` rules planted and edged. */
static void check_set(struct ref_set *s, __u32 randoms, __u32 rules)
{
	struct xrl_lbvs_pkt pk, edges[64];
	struct xrl_lbvs_set b;
	char err[XRL_ERRLEN];
	__u32 i, j, n, used = 0, hits = 0;

	assert_int_equal(xrl_lbvs_build(&b, s->in, s->n, err, sizeof(err)), 0);
	top_bit = 0;
	for (i = 0; i < s->n; i++) {
		assert_int_equal(b.rule_of[b.bit_of[i]], i);
		for (j = 0; j < XRL_LBVS_FIELDS; j++)
			used |= s->rules[i].f[j].on ? 1U << j : 0;
	}
	/* Only the fields the rules constrain have tables (a range of the whole domain constrains nothing); none, FRAG. */
	assert_int_equal(b.t.cfg.used & ~(used ? used : 1U << XRL_LBVS_FRAG), 0);
	for (i = 0; i < randoms; i++) {
		ref_pkt_random(s, &pk);
		check_pkt(s, &b, &pk);
	}
	for (i = 0; i < rules && s->n; i++) {
		__u32 r = ref_rnd(s->n);

		ref_pkt_planted(s, r, &pk);
		hits += check_pkt(s, &b, &pk) > 0;
		n = ref_pkt_edges(s, r, edges, 64);
		for (j = 0; j < n; j++)
			check_pkt(s, &b, &edges[j]);
	}
	/* Planting works (a rule may accept no packet: a field negating its whole domain). */
	assert_true(hits >= (rules < s->n ? rules : s->n) / 2);
	xrl_lbvs_free(&b);
}

static const __u32 sizes[] = { 1, 2, 16, 64, 65, 1000, 16384 };

static void random_sets_all_fields(void **state)
{
	struct ref_set s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ref_set_gen(&s, sizes[i], (1U << XRL_LBVS_FIELDS) - 1, 16 + sizes[i] / 8, 75);
		check_set(&s, sizes[i] > 1000 ? 300 : 1000, sizes[i] > 1000 ? 100 : 300);
		/* The matches reached the last words, not only the first (results are the lowest bits). */
		assert_true(top_bit >= sizes[i] - 1 - sizes[i] / 8);
		ref_set_free(&s);
	}
}

static void random_sets_some_fields(void **state)
{
	struct ref_set s;
	size_t i;
	int k;

	(void)state;
	for (k = 0; k < 8; k++)
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]) - (k ? 1 : 0); i++) {
			ref_set_gen(&s, sizes[i], ref_rnd(1U << XRL_LBVS_FIELDS), 4 + ref_rnd(64), 50);
			check_set(&s, 300, 100);
			ref_set_free(&s);
		}
}

/* Rules on values spread over the whole domain: many classes, few rules sharing one. */
static void random_sets_spread(void **state)
{
	struct ref_set s;

	(void)state;
	ref_set_gen(&s, 1000, (1U << XRL_LBVS_FIELDS) - 1, 65536, 50);
	check_set(&s, 1000, 300);
	ref_set_free(&s);
}

/* n rules that all hold proto 17; the packet is UDP. */
static void overflow_n(__u32 n)
{
	struct xrl_lbvs_range udp = { 17, 17 };
	struct xrl_lbvs_rule *r = calloc(n, sizeof(*r));
	struct xrl_lbvs_pkt pk = { .v = { [XRL_LBVS_PROTO] = 17 } };
	struct xrl_lbvs_result res;
	struct xrl_lbvs_set b;
	char err[XRL_ERRLEN];
	__u32 i;

	assert_non_null(r);
	for (i = 0; i < n; i++)
		r[i].f[XRL_LBVS_PROTO] = (struct xrl_lbvs_cond){ &udp, 1, 0 };
	assert_int_equal(xrl_lbvs_build(&b, r, n, err, sizeof(err)), 0);
	assert_int_equal(classify(&b, &pk, &res), 0);
	assert_int_equal(res.n, n < XRL_LBVS_MAX_MATCH ? n : XRL_LBVS_MAX_MATCH);
	assert_int_equal(res.more, n > XRL_LBVS_MAX_MATCH);
	for (i = 0; i < res.n; i++)
		assert_int_equal(res.bit[i], i);
	pk.v[XRL_LBVS_PROTO] = 6;
	assert_int_equal(classify(&b, &pk, &res), 0);
	assert_int_equal(res.n, 0);
	assert_int_equal(res.more, 0);
	xrl_lbvs_free(&b);
	free(r);
}

static void overflow_flagged(void **state)
{
	(void)state;
	overflow_n(XRL_LBVS_MAX_MATCH);
	overflow_n(XRL_LBVS_MAX_MATCH + 1);
	overflow_n(40);
	overflow_n(200); /* across words */
}

/* Random sets where most rules match most packets: the overflow against the reference. */
static void overflow_random(void **state)
{
	struct ref_set s;
	int k;

	(void)state;
	for (k = 0; k < 20; k++) {
		ref_set_gen(&s, 64 + ref_rnd(300), 1U << ref_rnd(XRL_LBVS_FIELDS), 2, 50);
		check_set(&s, 200, 50);
		ref_set_free(&s);
	}
}

static void flags_ranges(void **state)
{
	struct xrl_lbvs_range r[XRL_LBVS_FLAGS_RANGES];
	__u32 mask, value, v, j;
	int n;

	(void)state;
	for (mask = 0; mask < 256; mask++)
		for (value = 0; value < 256; value++) {
			n = xrl_lbvs_flags_ranges((__u8)mask, (__u8)value, r);
			if (value & ~mask) {
				assert_int_equal(n, -EINVAL);
				continue;
			}
			assert_true(n > 0 && n <= XRL_LBVS_FLAGS_RANGES);
			for (v = 0; v < 256; v++) {
				int in = 0;

				for (j = 0; j < (__u32)n; j++)
					in |= r[j].lo <= v && v <= r[j].hi;
				assert_int_equal(in, (v & mask) == value);
			}
		}
}

static void lowbit(void **state)
{
	__u64 x;
	__u32 i, k;

	(void)state;
	for (i = 0; i < 64; i++)
		assert_int_equal(xrl_lbvs_lowbit(1ULL << i), i);
	for (k = 0; k < 10000; k++) {
		x = ((__u64)ref_rnd(0xffffffff) << 32 | ref_rnd(0xffffffff)) << ref_rnd(64);
		if (!x)
			continue;
		for (i = 0; !(x & (1ULL << i)); i++)
			;
		assert_int_equal(xrl_lbvs_lowbit(x), i);
	}
}

/* Rules that constrain nothing match every packet; an empty set none. */
static void no_fields(void **state)
{
	struct xrl_lbvs_rule r[5];
	struct xrl_lbvs_pkt pk = { .v = { [XRL_LBVS_DPORT] = 53 } };
	struct xrl_lbvs_result res;
	struct xrl_lbvs_set b;
	char err[XRL_ERRLEN];

	(void)state;
	memset(r, 0, sizeof(r));
	assert_int_equal(xrl_lbvs_build(&b, r, 5, err, sizeof(err)), 0);
	assert_int_equal(classify(&b, &pk, &res), 0);
	assert_int_equal(res.n, 5);
	xrl_lbvs_free(&b);
	assert_int_equal(xrl_lbvs_build(&b, r, 0, err, sizeof(err)), 0);
	assert_int_equal(classify(&b, &pk, &res), 0);
	assert_int_equal(res.n, 0);
	xrl_lbvs_free(&b);
}

/* A field no rule uses takes no table: a dport-only set has dport's class array and classes alone. */
static void unused_fields_out(void **state)
{
	struct xrl_lbvs_range p[3] = { { 53, 53 }, { 123, 123 }, { 0, 65535 } };
	struct xrl_lbvs_rule r[3];
	struct xrl_lbvs_pkt pk = { .v = { [XRL_LBVS_DPORT] = 123, [XRL_LBVS_FRAG] = 3 } };
	struct xrl_lbvs_result res;
	struct xrl_lbvs_set b;
	char err[XRL_ERRLEN];

	(void)state;
	memset(r, 0, sizeof(r));
	r[0].f[XRL_LBVS_DPORT] = (struct xrl_lbvs_cond){ &p[0], 1, 0 };
	r[1].f[XRL_LBVS_DPORT] = (struct xrl_lbvs_cond){ &p[1], 1, 0 };
	r[2].f[XRL_LBVS_LENGTH] = (struct xrl_lbvs_cond){ &p[2], 1, 0 }; /* every length: no constraint */
	assert_int_equal(xrl_lbvs_build(&b, r, 3, err, sizeof(err)), 0);
	assert_int_equal(b.t.cfg.used, 1U << XRL_LBVS_DPORT);
	assert_int_equal(b.t.cls.n, 65536 / 4);
	assert_int_equal(b.t.bits.n, 3); /* 53, 123, the other ports */
	assert_int_equal(xrl_lbvs_bytes(&b.t), 8 * (65536 / 4 + 3 * 2));
	assert_int_equal(classify(&b, &pk, &res), 0); /* frag 3 is past its domain, but frag is not used */
	assert_int_equal(res.n, 2);
	assert_int_equal(b.rule_of[res.bit[0]] + b.rule_of[res.bit[1]], 1 + 2);
	xrl_lbvs_free(&b);
}

/* A value past its field's domain is refused, never classified as another field's. */
static void value_past_domain(void **state)
{
	struct xrl_lbvs_range fr = { 1, 2 };
	struct xrl_lbvs_rule r = { .f = { [XRL_LBVS_FRAG] = { &fr, 1, 0 } } };
	struct xrl_lbvs_pkt pk = { .v = { [XRL_LBVS_FRAG] = 3 } };
	struct xrl_lbvs_result res;
	struct xrl_lbvs_set b;
	char err[XRL_ERRLEN];

	(void)state;
	assert_int_equal(xrl_lbvs_build(&b, &r, 1, err, sizeof(err)), 0);
	assert_int_equal(classify(&b, &pk, &res), -1);
	assert_int_equal(res.n, 0);
	pk.v[XRL_LBVS_FRAG] = XRL_LBVS_FRAG_LATER;
	assert_int_equal(classify(&b, &pk, &res), 0);
	assert_int_equal(res.n, 1);
	xrl_lbvs_free(&b);
}

static void refused(void **state)
{
	struct xrl_lbvs_range bad[3] = { { 5, 4 }, { 0, 256 }, { 0, 65536 } };
	struct xrl_lbvs_rule r;
	struct xrl_lbvs_rule *many;
	struct xrl_lbvs_set b;
	char err[XRL_ERRLEN];

	(void)state;
	memset(&r, 0, sizeof(r));
	r.f[XRL_LBVS_DPORT] = (struct xrl_lbvs_cond){ &bad[0], 1, 0 };
	assert_int_equal(xrl_lbvs_build(&b, &r, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "dport range 5-4"));
	r.f[XRL_LBVS_DPORT] = (struct xrl_lbvs_cond){ &bad[1], 1, 0 };
	r.f[XRL_LBVS_TTL] = (struct xrl_lbvs_cond){ &bad[1], 1, 0 };
	assert_int_equal(xrl_lbvs_build(&b, &r, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "ttl range 0-256 is not within 0-255"));
	memset(&r, 0, sizeof(r));
	r.f[XRL_LBVS_SPORT] = (struct xrl_lbvs_cond){ &bad[2], 1, 0 };
	assert_int_equal(xrl_lbvs_build(&b, &r, 1, err, sizeof(err)), -EINVAL);
	r.f[XRL_LBVS_SPORT] = (struct xrl_lbvs_cond){ NULL, 0, 1 };
	assert_int_equal(xrl_lbvs_build(&b, &r, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "negates no sport values"));
	many = calloc(XRL_LBVS_MAX_RULES + 1, sizeof(*many));
	assert_non_null(many);
	assert_int_equal(xrl_lbvs_build(&b, many, XRL_LBVS_MAX_RULES + 1, err, sizeof(err)), -E2BIG);
	assert_int_equal(xrl_lbvs_build(&b, many, XRL_LBVS_MAX_RULES, err, sizeof(err)), 0);
	xrl_lbvs_free(&b);
	free(many);
}

/* Rules of one shape take consecutive bits, whatever order they came in. */
static void numbered_by_shape(void **state)
{
	struct xrl_lbvs_range v[2] = { { 53, 53 }, { 1, 1 } };
	struct xrl_lbvs_rule r[200];
	struct xrl_lbvs_set b;
	char err[XRL_ERRLEN];
	__u32 i, lo[2] = { 200, 200 }, hi[2] = { 0, 0 }, sh;

	(void)state;
	memset(r, 0, sizeof(r));
	for (i = 0; i < 200; i++)
		r[i].f[i % 2 ? XRL_LBVS_SPORT : XRL_LBVS_DPORT] = (struct xrl_lbvs_cond){ &v[i % 3 == 0], 1, 0 };
	assert_int_equal(xrl_lbvs_build(&b, r, 200, err, sizeof(err)), 0);
	for (i = 0; i < 200; i++) {
		sh = i % 2;
		lo[sh] = b.bit_of[i] < lo[sh] ? b.bit_of[i] : lo[sh];
		hi[sh] = b.bit_of[i] > hi[sh] ? b.bit_of[i] : hi[sh];
	}
	assert_int_equal(hi[0] - lo[0], 99);
	assert_int_equal(hi[1] - lo[1], 99);
	xrl_lbvs_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flags_ranges),
		cmocka_unit_test(lowbit),
		cmocka_unit_test(no_fields),
		cmocka_unit_test(unused_fields_out),
		cmocka_unit_test(value_past_domain),
		cmocka_unit_test(refused),
		cmocka_unit_test(numbered_by_shape),
		cmocka_unit_test(overflow_flagged),
		cmocka_unit_test(overflow_random),
		cmocka_unit_test(random_sets_all_fields),
		cmocka_unit_test(random_sets_some_fields),
		cmocka_unit_test(random_sets_spread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
