// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a rule set needs its program to carry (specialise.h): each rule kind
 * its bit, a byte rate, a warm-up and a global rule theirs, nothing for no
 * rules, everything under XDP_RATELIMIT_FEATURES=all; and their names.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "codec/specialise.h"

/* The features the rules of text (a rules file) need, formatted. */
static const char *features(const char *text)
{
	static char names[128];
	struct xrl_ruleset set = {};
	char err[512];
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	if (xrl_ruleset_parse(f, "test.rules", &set, err, sizeof(err)))
		fail_msg("%s", err);
	fclose(f);
	xrl_features_format(xrl_features_for(&set), names, sizeof(names));
	xrl_ruleset_free(&set);
	return names;
}

static void test_kinds(void **state)
{
	(void)state;
	assert_string_equal(features("port 53/udp rate 10/s\n"), "ports");
	assert_string_equal(features("prefix 10.0.0.0/8 allow\n"), "prefixes");
	assert_string_equal(features("proto tcp-syn rate 10/s\n"), "protos");
	assert_string_equal(features("dst 192.0.2.1 rate 10/s\n"), "dsts");
	assert_string_equal(features("port 53/udp dst 192.0.2.0/24 rate 10/s\n"), "port-dsts");
	assert_string_equal(features("port 53/udp rate 10/s\nport 54/udp dst 192.0.2.0/24 rate 1/s\n"),
			    "ports port-dsts");
	/* A rule of several fields has maps of its own: none of the shorthands' (it was counted a prefix rule). */
	assert_string_equal(features("proto udp sport 53 length 512-65535 rate 1000/s aggregate\n"), "match");
	assert_string_equal(features("dst 192.0.2.10 proto udp rate 50k/s per src,dport\nport 53/udp rate 1/s\n"),
			    "ports match");
}

static void test_costs_of_every_packet(void **state)
{
	(void)state;
	assert_string_equal(features("port 53/udp rate 10/s rate 1MB/s\n"), "ports bytes");
	assert_string_equal(features("port 53/udp rate 1MB/s\n"), "ports bytes");
	assert_string_equal(features("prefix 10.0.0.0/8 rate 10/s warmup 10s\n"), "prefixes warmup");
	assert_string_equal(features("port 53/udp rate 10/s aggregate global\n"), "ports global");
	/* Several windows: their next windows' lookups; a byte rate among them is a byte rate. */
	assert_string_equal(features("port 53/udp rate 10/s rate 100/min\n"), "ports windows");
	assert_string_equal(features("port 53/udp rate 10/s rate 100/min rate 1MB/s\n"), "ports bytes windows");
	/* A monitor costs nothing until a packet is over: no feature of its own. */
	assert_string_equal(features("port 53/udp rate 10/s monitor\n"), "ports");
}

static void test_none_and_all(void **state)
{
	char names[128];

	(void)state;
	assert_int_equal(xrl_features_for(NULL), 0);
	assert_string_equal(xrl_features_format(0, names, sizeof(names)), "none");
	setenv("XDP_RATELIMIT_FEATURES", "all", 1);
	assert_int_equal(xrl_features_for(NULL), XRL_FEAT_ALL);
	assert_string_equal(features("port 53/udp rate 10/s\n"),
			    "ports prefixes protos dsts port-dsts bytes warmup global match windows");
	unsetenv("XDP_RATELIMIT_FEATURES");
	assert_null(xrl_feature_name(XRL_FEATURE_BITS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_costs_of_every_packet),
		cmocka_unit_test(test_none_and_all),
	};

	return cmocka_run_group_tests_name("specialise", tests, NULL, NULL);
}
