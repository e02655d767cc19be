// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The classifiers measured against LBVS (tests/prog/cls_alt.bpf.c: a linear
 * scan and a HiCuts tree, bench/classifiers.c times them) agree with LBVS in
 * the same program and with the reference of tests/unit/lbvs_ref.h, under
 * BPF_PROG_TEST_RUN, on the benchmark's sets (a destination port a rule) and
 * random ones of every field, random, planted and edge packets: the
 * benchmark compares classifiers that classify alike. Needs root.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "base/err.h"
#include "unit/lbvs_ref.h"
#include "cls_tree.h"
#include "cls_load.h"

struct built {
	__u32 spfac; /* the tree's space factor (0: its default) */
	struct xrl_lbvs_set b;
	struct cls_rule *rules;
	struct cls_tree t;
	struct cls_loaded l;
};

static void need_root(void)
{
	if (geteuid() != 0) {
		print_message("[   SKIP   ] needs root to load BPF programs\n");
		skip();
	}
}

static void build(struct built *x, const struct ref_set *s)
{
	char err[XRL_ERRLEN];

	assert_int_equal(xrl_lbvs_build(&x->b, s->in, s->n, err, sizeof(err)), 0);
	x->rules = cls_rules_build(s, &x->b);
	assert_non_null(x->rules);
	assert_int_equal(cls_tree_build(&x->t, s, &x->b, x->spfac), 0);
	assert_int_equal(cls_load(&x->l, &x->b, x->rules, s->n, &x->t), 0);
}

static void unbuild(struct built *x)
{
	cls_unload(&x->l);
	cls_tree_free(&x->t);
	free(x->rules);
	xrl_lbvs_free(&x->b);
}

/* Each classifier on pk: the reference's bits, and the same as LBVS's; how many matched. */
static __u32 agree(struct built *x, const struct ref_set *s, const struct xrl_lbvs_pkt *pk)
{
	struct cls_out o[CLS_KINDS];
	int k, j;

	assert_int_equal(cls_set_pkts(&x->l, pk, 1), 0);
	for (k = 0; k < CLS_KINDS; k++) {
		assert_int_equal(cls_run(&x->l, k, 1, NULL, &o[k]), 0);
		assert_int_equal(o[k].ret, 0);
		ref_check(s, &x->b, pk, &o[k].res, cls_kind_name[k]);
	}
	for (k = 1; k < CLS_KINDS; k++) {
		assert_int_equal(o[k].res.n, o[CLS_LBVS].res.n);
		assert_int_equal(o[k].res.more, o[CLS_LBVS].res.more);
		for (j = 0; j < o[k].res.n; j++)
			assert_int_equal(o[k].res.bit[j], o[CLS_LBVS].res.bit[j]);
	}
	return o[CLS_LBVS].res.n;
}

/*
 * s built (the tree with space factor spfac) and loaded, asked random
 * packets, packets planted on `rules` rules and their edges.
 */
static void check_set(const struct ref_set *s, __u32 randoms, __u32 rules, __u32 spfac)
{
	struct xrl_lbvs_pkt pk, edges[64];
	struct built x = { .spfac = spfac };
	__u32 i, j, n;

	build(&x, s);
	print_message("%u rules: tree (space factor %u) of %u nodes, %llu leaf entries, depth %u, largest leaf %u\n",
		      s->n, x.t.spfac, x.t.nnodes, (unsigned long long)x.t.nleaf, x.t.depth, x.t.maxleaf);
	for (i = 0; i < randoms; i++) {
		ref_pkt_random(s, &pk);
		agree(&x, s, &pk);
	}
	for (i = 0; i < rules && s->n; i++) {
		ref_pkt_planted(s, ref_rnd(s->n), &pk);
		agree(&x, s, &pk);
		n = ref_pkt_edges(s, ref_rnd(s->n), edges, 64);
		for (j = 0; j < n; j++)
			agree(&x, s, &edges[j]);
	}
	unbuild(&x);
}

static const __u32 sizes[] = { 1, 2, 16, 64, 65, 1000, 16384 };

/*
 * Random rules of every field, and of a few (as test_lbvs.c makes them);
 * up to 1000, the tree also cut deeper (space factor 4: down to 12 levels).
 */
static void random_sets(void **state)
{
	struct ref_set s;
	size_t i;

	(void)state;
	need_root();
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ref_set_gen(&s, sizes[i], (1U << XRL_LBVS_FIELDS) - 1, 16 + sizes[i] / 8, 75);
		check_set(&s, 100, sizes[i] > 1000 ? 10 : 50, 0);
		if (sizes[i] <= 1000)
			check_set(&s, 100, 50, 4);
		ref_set_free(&s);
		ref_set_gen(&s, sizes[i], ref_rnd(1U << XRL_LBVS_FIELDS), 4 + ref_rnd(64), 50);
		check_set(&s, 100, sizes[i] > 1000 ? 10 : 50, 0);
		ref_set_free(&s);
	}
}

/* The benchmark's sets, a destination port a rule: each port's packet meets its rule alone. */
static void dport_sets(void **state)
{
	const __u32 n[] = { 16, 1000, 16384 };
	struct xrl_lbvs_pkt pk;
	struct ref_set s;
	struct built x = { 0 };
	size_t i;
	__u32 j;

	(void)state;
	need_root();
	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		assert_int_equal(cls_dport_set(&s, n[i]), 0);
		build(&x, &s);
		print_message("%u dport rules: tree of %u nodes, %llu leaf entries, depth %u, largest leaf %u\n", n[i],
			      x.t.nnodes, (unsigned long long)x.t.nleaf, x.t.depth, x.t.maxleaf);
		for (j = 0; j < 200; j++) {
			cls_dport_pkt(&pk, j < 100 ? 9 + ref_rnd(n[i]) : ref_rnd(65536));
			if (j < 100)
				assert_int_equal(agree(&x, &s, &pk), 1);
			else
				agree(&x, &s, &pk);
		}
		cls_dport_pkt(&pk, 9 + n[i] - 1);
		pk.v[XRL_LBVS_TTL] = 129;
		assert_int_equal(agree(&x, &s, &pk), 0);
		unbuild(&x);
		ref_set_free(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dport_sets),
		cmocka_unit_test(random_sets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
