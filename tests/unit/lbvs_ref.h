/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Random rule sets and packets for the classifier's tests (test_lbvs.c here,
 * tests/prog/test_lbvs.c), and the reference they are checked against: each
 * rule, each field, as the rule says it (ranges, negation, the TCP flags'
 * mask and value), with nothing of the classifier in it. Include after
 * cmocka.h.
 */
#ifndef XRL_TEST_LBVS_REF_H
#define XRL_TEST_LBVS_REF_H

#include <stdlib.h>
#include <string.h>
#include "codec/lbvs.h"

#define REF_RANGES 3

/* A rule's field as the test wrote it. */
struct ref_field {
	int on, neg, flags; /* flags: mask and value, not ranges */
	__u8 mask, value;
	__u32 n;
	struct xrl_lbvs_range r[XRL_LBVS_FLAGS_RANGES]; /* flags: their ranges, for the builder */
};

struct ref_rule {
	struct ref_field f[XRL_LBVS_FIELDS];
};

struct ref_set {
	__u32 n;
	struct ref_rule *rules;
	struct xrl_lbvs_rule *in; /* the builder's input, pointing into rules */
	__u32 *pool[XRL_LBVS_FIELDS], npool[XRL_LBVS_FIELDS];
};

static unsigned long long ref_seed = 88172645463325252ULL;

static inline __u32 ref_rnd(__u32 n)
{
	ref_seed ^= ref_seed << 13;
	ref_seed ^= ref_seed >> 7;
	ref_seed ^= ref_seed << 17;
	return n ? (__u32)(ref_seed % n) : 0;
}

/* Whether rule field f accepts v: the definition. */
static inline int ref_field_ok(const struct ref_field *rf, __u32 v)
{
	__u32 j;
	int in = 0;

	if (!rf->on)
		return 1;
	if (rf->flags)
		return (v & rf->mask) == rf->value;
	for (j = 0; j < rf->n; j++)
		in |= rf->r[j].lo <= v && v <= rf->r[j].hi;
	return rf->neg ? !in : in;
}

static inline int ref_match(const struct ref_rule *r, const struct xrl_lbvs_pkt *pk)
{
	int f;

	for (f = 0; f < XRL_LBVS_FIELDS; f++)
		if (!ref_field_ok(&r->f[f], pk->v[f]))
			return 0;
	return 1;
}

/* A value of field f from the set's pool (so that rules share values), or now and then any value. */
static inline __u32 ref_value(const struct ref_set *s, int f)
{
	__u32 dom = xrl_lbvs_domain(f);

	if (ref_rnd(8) == 0)
		return ref_rnd(dom);
	return s->pool[f][ref_rnd(s->npool[f])];
}

static inline struct xrl_lbvs_range ref_range(const struct ref_set *s, int f)
{
	__u32 a = ref_value(s, f), b = ref_rnd(8) ? a + ref_rnd(64) : ref_value(s, f), t;

	if (b >= xrl_lbvs_domain(f))
		b = xrl_lbvs_domain(f) - 1;
	if (a > b) {
		t = a;
		a = b;
		b = t;
	}
	if (f == XRL_LBVS_ICMP && ref_rnd(2)) /* a type alone: its 256 codes */
		return (struct xrl_lbvs_range){ a & 0xff00, (a & 0xff00) | 0xff };
	return (struct xrl_lbvs_range){ a, b };
}

static inline void ref_field_gen(const struct ref_set *s, int f, struct ref_field *rf)
{
	__u32 j;

	memset(rf, 0, sizeof(*rf));
	rf->on = 1;
	if (f == XRL_LBVS_TCPFLAGS && ref_rnd(4)) {
		rf->flags = 1;
		rf->mask = (__u8)(ref_rnd(4) ? ref_rnd(64) | (1U << ref_rnd(6)) : ref_rnd(256));
		rf->value = (__u8)(ref_rnd(256) & rf->mask);
		rf->n = (__u32)xrl_lbvs_flags_ranges(rf->mask, rf->value, rf->r);
		return;
	}
	rf->n = ref_rnd(4) ? 1 : 1 + ref_rnd(REF_RANGES);
	for (j = 0; j < rf->n; j++) {
		__u32 v = ref_value(s, f);

		rf->r[j] = ref_rnd(2) ? ref_range(s, f) : (struct xrl_lbvs_range){ v, v };
	}
	rf->neg = ref_rnd(16) == 0;
}

/* Rule i of s constrains field f, at random. */
static inline void ref_rule_field(struct ref_set *s, __u32 i, int f)
{
	struct ref_field *rf = &s->rules[i].f[f];

	ref_field_gen(s, f, rf);
	s->in[i].f[f] = (struct xrl_lbvs_cond){ rf->r, rf->n, (__u8)rf->neg };
}

/*
 * n random rules over the fields of mask, each constraining each of them
 * with probability pct % and at least one; pool: the distinct values a
 * field's rules pick among (most of the time).
 */
static inline void ref_set_gen(struct ref_set *s, __u32 n, __u32 mask, __u32 pool, __u32 pct)
{
	__u32 i, any;
	int f;

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->rules = calloc(n ? n : 1, sizeof(*s->rules));
	s->in = calloc(n ? n : 1, sizeof(*s->in));
	assert_non_null(s->rules);
	assert_non_null(s->in);
	for (f = 0; f < XRL_LBVS_FIELDS; f++) {
		s->npool[f] = pool < xrl_lbvs_domain(f) ? pool : xrl_lbvs_domain(f);
		s->pool[f] = calloc(s->npool[f], sizeof(__u32));
		assert_non_null(s->pool[f]);
		for (i = 0; i < s->npool[f]; i++)
			s->pool[f][i] = ref_rnd(xrl_lbvs_domain(f));
	}
	for (i = 0; i < n; i++) {
		for (f = 0, any = 0; f < XRL_LBVS_FIELDS; f++)
			if ((mask & (1U << f)) && ref_rnd(100) < pct) {
				ref_rule_field(s, i, f);
				any = 1;
			}
		while (!any && mask) {
			f = (int)ref_rnd(XRL_LBVS_FIELDS);
			if (mask & (1U << f)) {
				ref_rule_field(s, i, f);
				any = 1;
			}
		}
	}
}

static inline void ref_set_free(struct ref_set *s)
{
	int f;

	for (f = 0; f < XRL_LBVS_FIELDS; f++)
		free(s->pool[f]);
	free(s->rules);
	free(s->in);
}

static inline void ref_pkt_random(const struct ref_set *s, struct xrl_lbvs_pkt *pk)
{
	int f;

	for (f = 0; f < XRL_LBVS_FIELDS; f++)
		pk->v[f] = (__u16)(ref_rnd(2) ? ref_value(s, f) : ref_rnd(xrl_lbvs_domain(f)));
}

/* A packet rule i accepts (when it accepts any: a field may accept nothing). */
static inline void ref_pkt_planted(const struct ref_set *s, __u32 i, struct xrl_lbvs_pkt *pk)
{
	const struct ref_rule *r = &s->rules[i];
	int f, tries;
	__u32 j;

	ref_pkt_random(s, pk);
	for (f = 0; f < XRL_LBVS_FIELDS; f++) {
		const struct ref_field *rf = &r->f[f];

		if (!rf->on || rf->flags || rf->neg)
			continue;
		j = ref_rnd(rf->n);
		pk->v[f] = (__u16)(rf->r[j].lo + ref_rnd(rf->r[j].hi - rf->r[j].lo + 1));
	}
	for (f = 0; f < XRL_LBVS_FIELDS; f++)
		for (tries = 0; tries < 1000 && !ref_field_ok(&r->f[f], pk->v[f]); tries++)
			pk->v[f] = (__u16)(r->f[f].flags ? (ref_rnd(256) & ~r->f[f].mask) | r->f[f].value :
							   ref_rnd(xrl_lbvs_domain(f)));
}

/*
 * The packets at rule i's edges: planted, then each constrained field's
 * every range end and the value either side of it, one field at a time.
 * Returns how many were written to out (room for max).
 */
static inline __u32 ref_pkt_edges(const struct ref_set *s, __u32 i, struct xrl_lbvs_pkt *out, __u32 max)
{
	const struct ref_rule *r = &s->rules[i];
	struct xrl_lbvs_pkt base;
	__u32 n = 0, j, k, f;

	ref_pkt_planted(s, i, &base);
	for (f = 0; f < XRL_LBVS_FIELDS; f++)
		for (j = 0; r->f[f].on && j < r->f[f].n; j++) {
			long e[4] = { (long)r->f[f].r[j].lo - 1, r->f[f].r[j].lo, r->f[f].r[j].hi,
				      (long)r->f[f].r[j].hi + 1 };

			for (k = 0; k < 4 && n < max; k++) {
				if (e[k] < 0 || e[k] >= (long)xrl_lbvs_domain(f))
					continue;
				out[n] = base;
				out[n++].v[f] = (__u16)e[k];
			}
		}
	return n;
}

/*
 * Checks a result against the reference: the first bits of the matching
 * rules, ascending, and more. Returns how many rules match.
 */
static inline __u32 ref_check(const struct ref_set *s, const struct xrl_lbvs_set *b, const struct xrl_lbvs_pkt *pk,
			      const struct xrl_lbvs_result *res, const char *who)
{
	__u32 want[XRL_LBVS_MAX_MATCH + 1], cnt = 0, i, j, bit;

	for (i = 0; i < s->n; i++) {
		if (!ref_match(&s->rules[i], pk))
			continue;
		bit = b->bit_of[i];
		/* Keep the lowest MAX_MATCH + 1 bits, sorted. */
		for (j = cnt < XRL_LBVS_MAX_MATCH + 1 ? cnt : XRL_LBVS_MAX_MATCH + 1; j > 0 && want[j - 1] > bit; j--)
			if (j < XRL_LBVS_MAX_MATCH + 1)
				want[j] = want[j - 1];
		if (j < XRL_LBVS_MAX_MATCH + 1)
			want[j] = bit;
		cnt++;
	}
	if (res->n != (cnt < XRL_LBVS_MAX_MATCH ? cnt : XRL_LBVS_MAX_MATCH) || res->more != (cnt > XRL_LBVS_MAX_MATCH))
		fail_msg("%s: %u rules, packet dport %u sport %u: %u matches (more %u), the reference %u", who, s->n,
			 pk->v[XRL_LBVS_DPORT], pk->v[XRL_LBVS_SPORT], res->n, res->more, cnt);
	for (j = 0; j < res->n; j++)
		if (res->bit[j] != want[j])
			fail_msg("%s: %u rules: match %u is bit %u (rule %u), the reference's bit %u (rule %u)", who,
				 s->n, j, res->bit[j], b->rule_of[res->bit[j] % (s->n ? s->n : 1)], want[j],
				 b->rule_of[want[j]]);
	return cnt;
}

#endif /* XRL_TEST_LBVS_REF_H */
