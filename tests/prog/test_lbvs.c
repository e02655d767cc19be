// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The classifier's header in BPF (tests/prog/lbvs_check.bpf.c: the tables in
 * maps, every loop under bpf_loop) under BPF_PROG_TEST_RUN, against the same
 * header in userspace and the reference of tests/unit/lbvs_ref.h, on random
 * rule sets of 1 to 16384 rules and random, planted and edge packets: all
 * three agree. Needs root.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/err.h"
#include "unit/lbvs_ref.h"
#include "lbvs_check.skel.h"

/* The classifier's instructions the verifier may walk: issue 34 allows 300k for the whole program. */
#define VERIFIED_MAX 100000

struct lbvs_out {
	struct xrl_lbvs_result res;
	__s32 ret;
};

struct loaded {
	struct lbvs_check_bpf *sk;
	int prog, in, out;
	__u32 verified;
};

static void need_root(void)
{
	if (geteuid() != 0) {
		print_message("[   SKIP   ] needs root to load BPF programs\n");
		skip();
	}
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* Writes a's words into map m through its mmap, as apply would. */
static void fill(struct bpf_map *m, const struct xrl_lbvs_array *a)
{
	size_t len = (size_t)a->n * a->stride * 8, pg = (size_t)sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (len + pg - 1) / pg * pg, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(m), 0);

	assert_true(p != MAP_FAILED);
	memcpy(p, a->w, len);
	munmap(p, (len + pg - 1) / pg * pg);
}

/*
 * The program loaded for b's tables, as the product lays them out: the
 * configuration in a map value, the bitmaps after an entry 0 no class uses.
 */
static void load(struct loaded *l, const struct xrl_lbvs_set *b)
{
	struct xrl_lbvs_array shifted = b->t.bits;
	struct xrl_lbvs_cfg cfg = b->t.cfg;
	struct bpf_prog_info info;
	__u32 len = sizeof(info), f, k = 0;
	__u64 *w = malloc(((size_t)b->t.bits.n + 1) * b->t.bits.stride * 8);

	assert_non_null(w);
	memset(w, 0xff, (size_t)b->t.bits.stride * 8);
	memcpy(w + b->t.bits.stride, b->t.bits.w, (size_t)b->t.bits.n * b->t.bits.stride * 8);
	shifted.w = w;
	shifted.n = b->t.bits.n + 1;
	for (f = 0; f < XRL_LBVS_FIELDS; f++)
		cfg.base[f]++;
	memset(l, 0, sizeof(*l));
	libbpf_set_print(quiet);
	l->sk = lbvs_check_bpf__open();
	assert_non_null(l->sk);
	l->sk->rodata->xrl_lbvs_stride = b->t.bits.stride;
	assert_int_equal(bpf_map__set_value_size(l->sk->maps.xrl_lbvs_bits, b->t.bits.stride * 8), 0);
	assert_int_equal(bpf_map__set_max_entries(l->sk->maps.xrl_lbvs_bits, shifted.n), 0);
	assert_int_equal(lbvs_check_bpf__load(l->sk), 0);
	fill(l->sk->maps.xrl_lbvs_cls, &b->t.cls);
	fill(l->sk->maps.xrl_lbvs_bits, &shifted);
	free(w);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(l->sk->maps.lbvs_cfg), &k, &cfg, BPF_ANY), 0);
	l->prog = bpf_program__fd(l->sk->progs.xdp_lbvs_check);
	l->in = bpf_map__fd(l->sk->maps.lbvs_in);
	l->out = bpf_map__fd(l->sk->maps.lbvs_out);
	memset(&info, 0, sizeof(info));
	assert_int_equal(bpf_obj_get_info_by_fd(l->prog, &info, &len), 0);
	l->verified = info.verified_insns;
}

/* The program's result for pk; its classify's return value in *ret. */
static struct xrl_lbvs_result run(const struct loaded *l, const struct xrl_lbvs_pkt *pk, int *ret)
{
	unsigned char frame[64] = { 0 };
	struct lbvs_out o;
	__u32 k = 0;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = sizeof(frame), .repeat = 1);

	assert_int_equal(bpf_map_update_elem(l->in, &k, pk, BPF_ANY), 0);
	assert_int_equal(bpf_prog_test_run_opts(l->prog, &opts), 0);
	assert_int_equal(bpf_map_lookup_elem(l->out, &k, &o), 0);
	assert_int_equal(opts.retval, o.res.n ? 1 /* XDP_DROP */ : 2 /* XDP_PASS */);
	*ret = o.ret;
	return o.res;
}

/* The program, userspace and the reference on pk. */
static void agree(const struct loaded *l, const struct ref_set *s, const struct xrl_lbvs_set *b,
		  const struct xrl_lbvs_pkt *pk)
{
	struct xrl_lbvs_ctx c;
	struct xrl_lbvs_result got, want;
	int ret, j;

	memset(&c, 0, sizeof(c));
	c.t = &b->t;
	assert_int_equal(xrl_lbvs_classify(&c, pk, &want), 0);
	got = run(l, pk, &ret);
	assert_int_equal(ret, 0);
	ref_check(s, b, pk, &got, "BPF");
	assert_int_equal(got.n, want.n);
	assert_int_equal(got.more, want.more);
	for (j = 0; j < got.n; j++)
		assert_int_equal(got.bit[j], want.bit[j]);
}

/* s built and loaded, asked random packets, packets planted on `rules` rules and their edges. */
static __u32 check_set(struct ref_set *s, __u32 randoms, __u32 rules)
{
	struct xrl_lbvs_pkt pk, edges[64];
	struct xrl_lbvs_set b;
	struct loaded l;
	char err[XRL_ERRLEN];
	__u32 i, j, n, verified;

	assert_int_equal(xrl_lbvs_build(&b, s->in, s->n, err, sizeof(err)), 0);
	load(&l, &b);
	for (i = 0; i < randoms; i++) {
		ref_pkt_random(s, &pk);
		agree(&l, s, &b, &pk);
	}
	for (i = 0; i < rules && s->n; i++) {
		__u32 r = ref_rnd(s->n);

		ref_pkt_planted(s, r, &pk);
		agree(&l, s, &b, &pk);
		n = ref_pkt_edges(s, r, edges, 64);
		for (j = 0; j < n; j++)
			agree(&l, s, &b, &edges[j]);
	}
	verified = l.verified;
	lbvs_check_bpf__destroy(l.sk);
	xrl_lbvs_free(&b);
	return verified;
}

static const __u32 sizes[] = { 1, 2, 16, 64, 65, 1000, 16384 };

static void random_sets(void **state)
{
	struct ref_set s;
	size_t i;

	(void)state;
	need_root();
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ref_set_gen(&s, sizes[i], (1U << XRL_LBVS_FIELDS) - 1, 16 + sizes[i] / 8, 75);
		check_set(&s, 200, sizes[i] > 1000 ? 30 : 100);
		ref_set_free(&s);
		ref_set_gen(&s, sizes[i], ref_rnd(1U << XRL_LBVS_FIELDS), 4 + ref_rnd(64), 50);
		check_set(&s, 200, sizes[i] > 1000 ? 30 : 100);
		ref_set_free(&s);
	}
}

/* Every field in use: the classifier stays well under the program's budget, whatever the rule count. */
static void verifier_budget(void **state)
{
	const __u32 n[2] = { 16, 16384 };
	struct xrl_lbvs_set b;
	struct ref_set s;
	char err[XRL_ERRLEN];
	__u32 v;
	int i;

	(void)state;
	need_root();
	for (i = 0; i < 2; i++) {
		ref_set_gen(&s, n[i], (1U << XRL_LBVS_FIELDS) - 1, 16 + n[i] / 8, 75);
		assert_int_equal(xrl_lbvs_build(&b, s.in, s.n, err, sizeof(err)), 0);
		assert_int_equal(b.t.cfg.used, (1U << XRL_LBVS_FIELDS) - 1);
		xrl_lbvs_free(&b);
		v = check_set(&s, 10, 0);
		print_message("%u rules, every field: verified_insns %u\n", n[i], v);
		assert_true(v <= VERIFIED_MAX);
		ref_set_free(&s);
	}
}

/* More matches than the result holds: the lowest, and more, in the program too. */
static void overflow_flagged(void **state)
{
	struct xrl_lbvs_range udp = { 17, 17 };
	struct xrl_lbvs_rule r[200];
	struct xrl_lbvs_pkt pk = { .v = { [XRL_LBVS_PROTO] = 17 } };
	struct xrl_lbvs_result res;
	struct xrl_lbvs_set b;
	struct loaded l;
	char err[XRL_ERRLEN];
	int i, ret;

	(void)state;
	need_root();
	memset(r, 0, sizeof(r));
	for (i = 0; i < 200; i++)
		r[i].f[XRL_LBVS_PROTO] = (struct xrl_lbvs_cond){ &udp, 1, 0 };
	assert_int_equal(xrl_lbvs_build(&b, r, 200, err, sizeof(err)), 0);
	load(&l, &b);
	res = run(&l, &pk, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(res.n, XRL_LBVS_MAX_MATCH);
	assert_int_equal(res.more, 1);
	for (i = 0; i < XRL_LBVS_MAX_MATCH; i++)
		assert_int_equal(res.bit[i], i);
	pk.v[XRL_LBVS_FRAG] = 3; /* frag is not in use: ignored */
	res = run(&l, &pk, &ret);
	assert_int_equal(res.more, 1);
	lbvs_check_bpf__destroy(l.sk);
	xrl_lbvs_free(&b);
}

/* A value past its field's domain: -1 and no match, as in userspace. */
static void value_past_domain(void **state)
{
	struct xrl_lbvs_range fr = { 1, 2 };
	struct xrl_lbvs_rule r = { .f = { [XRL_LBVS_FRAG] = { &fr, 1, 0 } } };
	struct xrl_lbvs_pkt pk = { .v = { [XRL_LBVS_FRAG] = 3 } };
	struct xrl_lbvs_result res;
	struct xrl_lbvs_set b;
	struct loaded l;
	char err[XRL_ERRLEN];
	int ret;

	(void)state;
	need_root();
	assert_int_equal(xrl_lbvs_build(&b, &r, 1, err, sizeof(err)), 0);
	load(&l, &b);
	res = run(&l, &pk, &ret);
	assert_int_equal(ret, -1);
	assert_int_equal(res.n, 0);
	pk.v[XRL_LBVS_FRAG] = XRL_LBVS_FRAG_FIRST;
	res = run(&l, &pk, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(res.n, 1);
	lbvs_check_bpf__destroy(l.sk);
	xrl_lbvs_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(overflow_flagged),
		cmocka_unit_test(value_past_domain),
		cmocka_unit_test(verifier_budget),
		cmocka_unit_test(random_sets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
