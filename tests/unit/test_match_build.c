// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What apply refuses of a set of rules of several fields before it writes
 * anything (codec/match_maps.c): a set where one packet could meet more than
 * the program judges (16), more named sets as addresses than it tells apart
 * (64), more rules than a set holds (16,384); what the tables of the rest
 * need of the maps; and the structure of the named sets' (xrl_match.h)
 * against the sets' prefixes, built in plain memory.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "codec/lpm_set.h"
#include "codec/match_maps.h"
#include "rule_lines.h"

/* Builds the rules of text (a rules file): xrl_match_build's return, its message in err. */
static int build(const char *text, struct xrl_match_built *mb, char *err, size_t len)
{
	struct xrl_ruleset set = {};
	int ret;

	if (parse_text(text, "test.rules", &set, err))
		fail_msg("%s", err);
	ret = xrl_match_build(&set, mb, err, len);
	xrl_ruleset_free(&set);
	return ret;
}

/* n rules each admitting TTL n to 255: a packet of TTL 255 or so meets all of them. */
static char *ttl_rules(int n)
{
	char *text = calloc((size_t)n, 64);
	size_t len = 0;
	int i;

	assert_non_null(text);
	for (i = 1; i <= n; i++)
		len += (size_t)sprintf(text + len, "proto udp ttl %d-255 rate %d/s\n", i, i);
	return text;
}

static void test_sixteen_a_packet(void **state)
{
	struct xrl_match_built mb;
	char err[XRL_ERRLEN], *text;

	(void)state;
	text = ttl_rules(16);
	assert_int_equal(build(text, &mb, err, sizeof(err)), 0);
	assert_int_equal(mb.n, 16);
	xrl_match_built_free(&mb);
	free(text);
	text = ttl_rules(17);
	assert_int_equal(build(text, &mb, err, sizeof(err)), -ETOOMANYREFS);
	assert_non_null(strstr(err, "a packet can meet more than 16 rules of several fields (line"));
	free(text);
	/* Addresses are not counted: 17 rules apart only by their destination are refused too. */
	text = calloc(17, 64);
	assert_non_null(text);
	for (int i = 0, len = 0; i < 17; i++)
		len += sprintf(text + len, "dst 192.0.2.%d proto udp rate 1/s\n", i + 1);
	assert_int_equal(build(text, &mb, err, sizeof(err)), -ETOOMANYREFS);
	free(text);
}

/*
 * Among 5000 rules apart by their ports (bitmaps of two summary words),
 * rules of TTL 5-6 over every port: 15 of them, a packet meets 16 rules at
 * most; 16 of them, 17, refused (found where the summaries say the words
 * of both kinds are).
 */
static void test_sixteen_among_many(void **state)
{
	struct xrl_match_built mb;
	char err[XRL_ERRLEN], *text = calloc(5016, 64);
	int wide, i, len;

	(void)state;
	assert_non_null(text);
	for (wide = 15; wide <= 16; wide++) {
		for (i = 0, len = 0; i < 5000; i++)
			len += sprintf(text + len, "proto udp dport %d rate 1/s\n", 1000 + i);
		for (i = 0; i < wide; i++)
			len += sprintf(text + len, "proto udp ttl 5-6 length %d-65535 rate 1/s\n", 20 + i);
		assert_int_equal(build(text, &mb, err, sizeof(err)), wide == 15 ? 0 : -ETOOMANYREFS);
		if (wide == 15) {
			assert_true(mb.b.t.cfg.nsum > 1);
			xrl_match_built_free(&mb);
		}
	}
	free(text);
}

static void test_apart_by_fields(void **state)
{
	struct xrl_match_built mb;
	char err[XRL_ERRLEN], *text = calloc(1000, 96);
	size_t len = 0;
	int i;

	(void)state;
	assert_non_null(text);
	/* 1000 rules of six fields, a port each: no packet meets two. */
	for (i = 0; i < 1000; i++)
		len += (size_t)sprintf(text + len,
				       "proto udp dport %d sport 40000 ttl 1-128 length 20-1500 dscp 0 rate 1/s\n",
				       10000 + i);
	assert_int_equal(build(text, &mb, err, sizeof(err)), 0);
	assert_int_equal(mb.n, 1000);
	assert_int_equal(xrl_match_stride_for(&mb), 1 + 16);
	assert_true(xrl_match_entries_for(&mb) >= 2 * mb.classes);
	xrl_match_built_free(&mb);
	free(text);
}

/*
 * As many rules of six fields as a set holds, a port each: they build, no
 * packet meets two (the overlap check says so by itself, not past its
 * bound), and they take 2 slots each of the rules' maps, both sets.
 */
static void test_as_many_as_a_set_holds(void **state)
{
	struct xrl_match_built mb;
	char err[XRL_ERRLEN], *text = calloc(XRL_MATCH_MAX, 96);
	size_t len = 0;
	int i;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < XRL_MATCH_MAX; i++)
		len += (size_t)sprintf(text + len,
				       "proto udp dport %d sport 40000 ttl 1-128 length 20-1500 dscp 0 rate 1/s\n",
				       10000 + i);
	if (build(text, &mb, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(mb.n, XRL_MATCH_MAX);
	assert_int_equal(xrl_match_stride_for(&mb), XRL_LBVS_MAX_SUM + XRL_LBVS_MAX_WORDS);
	assert_int_equal(xrl_match_slots_for(&mb), 2 * XRL_MATCH_MAX);
	assert_true(xrl_match_entries_for(&mb) >= 2 * mb.classes);
	/* Rounded up by a page of entries at most, not to the next power of 2. */
	assert_true(xrl_match_entries_for(&mb) < 2 * mb.classes + 4096);
	xrl_match_built_free(&mb);
	free(text);
}

/* n named sets, each the address of a rule: want, what the build says. */
static void many_sets(int n, int want)
{
	struct xrl_match_built mb;
	char *text = calloc((size_t)n, 128), err[XRL_ERRLEN];
	size_t len = 0;
	int i;

	assert_non_null(text);
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "set s%d { 10.%d.0.0/16 }\n", i, i);
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "%s @s%d proto udp ttl %d rate 1/s\n", i % 2 ? "src" : "dst != ", i,
				       i + 1);
	assert_int_equal(build(text, &mb, err, sizeof(err)), want);
	if (want)
		assert_non_null(strstr(err, "use 65 named sets as an address, more than the 64"));
	else
		xrl_match_built_free(&mb);
	free(text);
}

static void test_refused(void **state)
{
	struct xrl_match_built mb;
	struct xrl_ruleset big = {};
	char err[XRL_ERRLEN];
	int i;

	(void)state;
	/* A named set as an address is judged: built, its bit given. */
	assert_int_equal(build("set ns { 192.0.2.53 }\nproto udp sport 53 src @ns allow\n", &mb, err, sizeof(err)), 0);
	assert_int_equal(mb.n, 1);
	xrl_match_built_free(&mb);
	many_sets(XRL_MATCH_SETS_MAX, 0);
	many_sets(XRL_MATCH_SETS_MAX + 1, -E2BIG);
	/* A file holds no more (xrl_ruleset_add refuses them): a set made otherwise is refused before it is built. */
	big.n = XRL_MATCH_MAX + 1;
	big.v = calloc(big.n, sizeof(*big.v));
	assert_non_null(big.v);
	for (i = 0; i <= XRL_MATCH_MAX; i++)
		big.v[i].kind = XRL_KIND_MATCH;
	assert_int_equal(xrl_match_build(&big, &mb, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "more than the 16384 a set holds"));
	xrl_ruleset_free(&big);
	/* None: nothing built, nothing refused. */
	assert_int_equal(build("port 53/udp rate 1/s\n", &mb, err, sizeof(err)), 0);
	assert_int_equal(mb.n, 0);
}

static unsigned long long seed = 0x5eed5e75ULL;

static unsigned long long rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* A random prefix of family fam, from a small pool of top bits so that prefixes nest across sets. */
static struct xrl_pfx rnd_pfx(__u8 fam)
{
	struct xrl_pfx p = { .family = fam };
	int bits = fam == XRL_FAMILY_V4 ? 32 : 128, i;

	for (i = 0; i < bits / 8; i++)
		p.addr[i] = (__u8)rnd();
	p.addr[0] = (__u8)(fam == XRL_FAMILY_V4 ? 10 : 0x20);
	p.addr[1] = (__u8)(rnd() % 3);
	p.plen = (__u8)(fam == XRL_FAMILY_V4 ? 8 + rnd() % 25 : 12 + rnd() % 117);
	for (i = p.plen; i < bits; i++)
		p.addr[i / 8] &= (__u8) ~(0x80 >> (i % 8));
	return p;
}

/*
 * Random sets of nested prefixes of both families, some a source's, some a
 * destination's, some both: each set's bit for random addresses, as the
 * program looks them up (xrl_lpm_lookup on the structure, then the class
 * word), is whether one of the set's prefixes holds the address.
 */
static void test_sets_structure(void **state)
{
	enum { NSETS = 12, PER = 300, QUERIES = 20000 };
	struct xrl_lpm_map lm = { .nranges = 2 * xrl_lpm_words(2 * NSETS * PER) };
	struct xrl_ruleset set = {};
	__u64 *msets = calloc(XRL_MSET_WORDS, 8), used = 1, got;
	int bit[XRL_MAX_SETS], k, q, hits = 0;
	__u8 dirs[XRL_MAX_SETS], half, addr[16];
	size_t i, j;

	(void)state;
	lm.dir = calloc(XRL_LPM_DIR_WORDS, 8);
	lm.ranges = calloc(lm.nranges, 8);
	assert_non_null(msets);
	assert_non_null(lm.dir);
	assert_non_null(lm.ranges);
	set.sets = calloc(NSETS, sizeof(*set.sets));
	set.v = calloc(NSETS, sizeof(*set.v));
	assert_non_null(set.sets);
	assert_non_null(set.v);
	for (k = 0; k < NSETS; k++) {
		struct xrl_pset *ps = &set.sets[set.nsets++];
		struct xrl_spec *s = &set.v[set.n++];

		snprintf(ps->name, sizeof(ps->name), "s%d", k);
		for (j = 0; j < PER; j++) {
			struct xrl_pfx p = rnd_pfx(j % 4 ? XRL_FAMILY_V4 : XRL_FAMILY_V6);

			assert_int_equal(xrl_pset_add(ps, &p, 0), 0);
		}
		s->kind = XRL_KIND_MATCH;
		/* A set a source's, a destination's, or both (then k % 3 == 2, the destination negated). */
		if (k % 3 != 1)
			snprintf(s->m.src.set, sizeof(s->m.src.set), "%s", ps->name);
		if (k % 3 != 0)
			snprintf(s->m.dst.set, sizeof(s->m.dst.set), "%s", ps->name);
		s->m.dst.neg = k % 3 == 2;
	}
	assert_int_equal(xrl_match_set_bits(&set, bit, dirs), NSETS);
	for (half = 0; half < 2; half++) {
		used = 1;
		assert_int_equal(xrl_msets_build(&lm, msets, half, &set, &used), 0);
	}
	for (q = 0; q < QUERIES; q++) {
		__u8 fam = q % 4 ? XRL_FAMILY_V4 : XRL_FAMILY_V6, kind = (__u8)(q % 2);
		struct xrl_pfx near = rnd_pfx(fam);

		half = (__u8)(q / 2 % 2);
		memcpy(addr, near.addr, 16);
		for (i = near.plen; i < (fam == XRL_FAMILY_V4 ? 32U : 128U); i++)
			if (rnd() % 2)
				addr[i / 8] |= (__u8)(0x80 >> (i % 8));
		got = msets[XRL_MSET_CLASS(half, xrl_lpm_lookup(msets, lm.ranges, lm.nranges, kind, half,
								fam == XRL_FAMILY_V6, addr))];
		for (k = 0; k < NSETS; k++) {
			const struct xrl_pset *ps = &set.sets[k];
			bool in = false;

			for (j = 0; j < ps->n && !in; j++)
				in = ps->v[j].family == fam && xrl_pfx_holds(&ps->v[j], addr);
			/* A set not used in this direction has no bit here. */
			if (!(dirs[k] & (kind == XRL_MSET_SRC ? XRL_MATCH_SETS_SRC : XRL_MATCH_SETS_DST)))
				in = false;
			if (!!(got >> bit[k] & 1) != in)
				fail_msg("query %d: set %d as a %s: holds the address %d, the structure says %d", q, k,
					 kind ? "destination" : "source", in, !!(got >> bit[k] & 1));
			hits += in;
		}
	}
	print_message("%d queries of %d sets: %d memberships\n", QUERIES, NSETS, hits);
	assert_true(hits > QUERIES / 10 && hits < QUERIES * NSETS);
	free(msets);
	free(lm.dir);
	free(lm.ranges);
	xrl_ruleset_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sixteen_a_packet), cmocka_unit_test(test_sixteen_among_many),
		cmocka_unit_test(test_apart_by_fields),	 cmocka_unit_test(test_as_many_as_a_set_holds),
		cmocka_unit_test(test_refused),		 cmocka_unit_test(test_sets_structure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
