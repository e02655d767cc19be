// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What apply refuses of a set of rules of several fields before it writes
 * anything (codec/match_maps.c): a set where one packet could meet more than
 * the program judges (16), an address of a named set, more rules than a set
 * holds (16,384); and what the tables of the rest need of the maps.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

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

static void test_refused(void **state)
{
	struct xrl_match_built mb;
	struct xrl_ruleset big = {};
	char err[XRL_ERRLEN];
	int i;

	(void)state;
	assert_int_equal(build("set ns { 192.0.2.53 }\nproto udp sport 53 src @ns allow\n", &mb, err, sizeof(err)),
			 -EOPNOTSUPP);
	assert_non_null(strstr(err, "line 2, 'src @ns proto udp sport 53': a named set"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sixteen_a_packet), cmocka_unit_test(test_sixteen_among_many),
		cmocka_unit_test(test_apart_by_fields),	 cmocka_unit_test(test_as_many_as_a_set_holds),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
