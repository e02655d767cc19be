// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The range structure (include/xrl_lpm.h, user/lib/codec/prefixes.c) against the
 * definition of a longest match: random prefixes of both families, nested
 * and overlapping, held by a few rules, and every address asked of both. The
 * structure is built in plain memory here, as apply builds it in the maps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "codec/prefixes.h"

static unsigned long long seed = 88172645463325252ULL;

static unsigned long long rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* A random prefix of family fam, its top bits from a small pool so that prefixes nest and share chunks. */
static struct xrl_pfx rnd_pfx(__u8 fam)
{
	struct xrl_pfx p = { .family = fam };
	int bits = fam == XRL_FAMILY_V4 ? 32 : 128, i;

	for (i = 0; i < bits / 8; i++)
		p.addr[i] = (__u8)rnd();
	p.addr[0] = (__u8)(fam == XRL_FAMILY_V4 ? 10 + rnd() % 3 : 0x20);
	p.addr[1] = (__u8)(rnd() % 4);
	p.plen = (__u8)(fam == XRL_FAMILY_V4 ? 8 + rnd() % 25 : 12 + rnd() % 117);
	for (i = p.plen; i < bits; i++)
		p.addr[i / 8] &= (__u8) ~(0x80 >> (i % 8));
	return p;
}

/* The slot of the longest of e's prefixes that holds addr: the definition. */
static __u32 brute(const struct xrl_lpm_entry *e, size_t n, __u8 fam, const __u8 *addr)
{
	size_t i;
	int best = -1;
	__u32 slot = 0;

	for (i = 0; i < n; i++)
		if (e[i].p.family == fam && (int)e[i].p.plen > best && xrl_pfx_holds(&e[i].p, addr)) {
			best = e[i].p.plen;
			slot = e[i].slot;
		}
	return slot;
}

static int same_pfx(const void *a, const void *b)
{
	const struct xrl_lpm_entry *x = a, *y = b;
	int c = memcmp(&x->p, &y->p, sizeof(x->p));

	return c;
}

static void check_random(__u8 set, size_t n, int queries)
{
	struct xrl_lpm_map lm = { .nranges = 2 * xrl_lpm_words((__u32)n) };
	struct xrl_lpm_entry *e = calloc(n, sizeof(*e)), *copy = calloc(n, sizeof(*e));
	size_t i, m = 0;
	__u64 used = 1;
	int q, kind;

	lm.dir = calloc(XRL_LPM_DIR_WORDS, 8);
	lm.ranges = calloc(lm.nranges, 8);
	assert_non_null(e);
	assert_non_null(lm.dir);
	assert_non_null(lm.ranges);
	for (i = 0; i < n; i++) {
		e[i].p = rnd_pfx(i % 3 ? XRL_FAMILY_V4 : XRL_FAMILY_V6);
		e[i].slot = (__u16)XRL_LPM_SLOT(set, rnd() % 40);
	}
	/* A prefix once: apply settles which rule holds it before it builds. */
	qsort(e, n, sizeof(*e), same_pfx);
	for (i = 0; i < n; i++)
		if (!m || memcmp(&e[m - 1].p, &e[i].p, sizeof(e[i].p)))
			e[m++] = e[i];
	for (kind = 0; kind < 2; kind++) {
		memcpy(copy, e, m * sizeof(*e));
		assert_int_equal(xrl_lpm_build(&lm, (__u8)kind, set, copy, m, &used), 0);
	}
	assert_true(used <= lm.nranges / 2);
	for (q = 0; q < queries; q++) {
		const struct xrl_lpm_entry *at = &e[rnd() % m];
		__u8 addr[16] = {};
		__u8 fam = at->p.family;
		int i2;

		/* An address in a prefix (varied below its length), or anywhere near them. */
		for (i2 = 0; i2 < (fam == XRL_FAMILY_V4 ? 4 : 16); i2++)
			addr[i2] = q % 4 ? (__u8)(at->p.addr[i2] ^ (i2 * 8 >= at->p.plen ? (__u8)rnd() : 0)) :
					   (__u8)rnd();
		if (q % 4 == 0)
			addr[0] = fam == XRL_FAMILY_V4 ? (__u8)(10 + rnd() % 3) : 0x20;
		for (kind = 0; kind < 2; kind++) {
			__u32 want = brute(e, m, fam, addr), got = xrl_lpm_find(&lm, (__u8)kind, set, fam, addr);

			if (want != got)
				fail_msg("query %d (family %u, %02x%02x:%02x%02x...): slot %u, the longest match is %u",
					 q, fam, addr[0], addr[1], addr[2], addr[3], got, want);
		}
	}
	/* The other rule set's half is untouched: nothing is found there. */
	assert_int_equal(xrl_lpm_find(&lm, XRL_LPM_SRC, !set, e[0].p.family, e[0].p.addr), 0);
	free(lm.dir);
	free(lm.ranges);
	free(e);
	free(copy);
}

static void test_longest_match_small(void **state)
{
	(void)state;
	check_random(0, 50, 20000);
	check_random(1, 500, 20000);
}

static void test_longest_match_large(void **state)
{
	(void)state;
	check_random(1, 60000, 20000);
}

/* A range structure of no prefix finds nothing, and a prefix of the whole space is found everywhere. */
static void test_edges(void **state)
{
	struct xrl_lpm_map lm = { .nranges = 2 * xrl_lpm_words(16) };
	struct xrl_lpm_entry e[3] = {
		{ { { 0 }, XRL_FAMILY_V4, 0 }, 7 },
		{ { { 255, 255, 255, 255 }, XRL_FAMILY_V4, 32 }, 9 },
		{ { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		    XRL_FAMILY_V6,
		    128 },
		  11 },
	};
	__u8 any[16] = { 192, 0, 2, 1 }, top[16];
	__u64 used = 1;

	(void)state;
	lm.dir = calloc(XRL_LPM_DIR_WORDS, 8);
	lm.ranges = calloc(lm.nranges, 8);
	assert_int_equal(xrl_lpm_build(&lm, XRL_LPM_SRC, 0, e, 0, &used), 0);
	assert_int_equal(xrl_lpm_find(&lm, XRL_LPM_SRC, 0, XRL_FAMILY_V4, any), 0);
	assert_int_equal(xrl_lpm_build(&lm, XRL_LPM_SRC, 0, e, 3, &used), 0);
	assert_int_equal(xrl_lpm_find(&lm, XRL_LPM_SRC, 0, XRL_FAMILY_V4, any), 7);
	memset(top, 0xff, sizeof(top));
	assert_int_equal(xrl_lpm_find(&lm, XRL_LPM_SRC, 0, XRL_FAMILY_V4, top), 9);
	assert_int_equal(xrl_lpm_find(&lm, XRL_LPM_SRC, 0, XRL_FAMILY_V6, top), 11);
	top[15] = 0xfe;
	assert_int_equal(xrl_lpm_find(&lm, XRL_LPM_SRC, 0, XRL_FAMILY_V6, top), 0);
	free(lm.dir);
	free(lm.ranges);
}

/* The words xrl_lpm_words sizes for, read back from a map's size: load's --max-prefixes, as status shows it. */
static void test_sizes_invert(void **state)
{
	__u32 n[] = { XRL_PREFIXES_MIN, 65536, 131071, 131072, 131073, 1000000, XRL_PREFIXES_MAX };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++)
		assert_int_equal(xrl_lpm_max_prefixes(2 * xrl_lpm_words(n[i])), n[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_longest_match_small),
		cmocka_unit_test(test_longest_match_large),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_sizes_invert),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
