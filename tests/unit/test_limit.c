// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A rule's effective limit (user/lib/limit.c): the fleet's allowance when set, else the threshold. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "read/limit.h"

static void no_fleet_view_is_the_threshold(void **state)
{
	struct xrl_rule r = { .threshold = 100 };

	(void)state;
	assert_int_equal(xrl_limit(&r, NULL), 100);
}

static void an_allowance_is_the_limit(void **state)
{
	struct xrl_rule r = { .threshold = 100 };
	struct xrl_fleet f = { .allowance = 37, .nodes = 3 };

	(void)state;
	assert_int_equal(xrl_limit(&r, &f), 37);
	/* Above the threshold too: the fleet lends an idle member's share. */
	f.allowance = 250;
	assert_int_equal(xrl_limit(&r, &f), 250);
}

static void an_allowance_of_0_is_the_threshold(void **state)
{
	struct xrl_rule r = { .threshold = 100 };
	struct xrl_fleet f = { .allowance = 0, .policy = XRL_FLEET_SHARED, .nodes = 2 };

	(void)state;
	assert_int_equal(xrl_limit(&r, &f), 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_fleet_view_is_the_threshold),
		cmocka_unit_test(an_allowance_is_the_limit),
		cmocka_unit_test(an_allowance_of_0_is_the_threshold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
