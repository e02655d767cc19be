// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What load says when the kernel refuses the program: a kernel too old is
 * told to upgrade, but a recent one whose verifier finds the program too
 * large (E2BIG) is not: that is this build's bug, and the message says so.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "life/loader.h"

static void refused(int ret, const char *release, const char *want, const char * not )
{
	char err[512];

	assert_int_equal(xrl_load_refused(ret, release, err, sizeof(err)), ret);
	if (!strstr(err, want) || (not &&strstr(err, not )))
		fail_msg("for %d on '%s': '%s' (wanted '%s'%s%s)", ret, release, err, want, not ? ", not " : "",
			 not ? not : "");
}

static void test_too_old(void **state)
{
	(void)state;
	refused(-EINVAL, "5.10.0-28-amd64", "needs Linux 5.12 or later with BTF, this is 5.10.0-28-amd64", NULL);
	refused(-E2BIG, "4.19.0", "needs Linux 5.12", NULL); /* an old verifier's limit is smaller */
	refused(-EINVAL, "", "needs Linux 5.12 or later with BTF (run with -v", NULL);
}

static void test_too_large(void **state)
{
	(void)state;
	refused(-E2BIG, "6.18.44-fc", "too large (E2BIG", "needs Linux 5.12");
	refused(-E2BIG, "5.12.0", "a bug of this build", "needs Linux");
}

static void test_other_refusal(void **state)
{
	(void)state;
	refused(-EACCES, "6.1.0-13-amd64", "Permission denied, on Linux 6.1.0-13-amd64 (new enough)", "needs Linux");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_too_old),
		cmocka_unit_test(test_too_large),
		cmocka_unit_test(test_other_refusal),
	};

	return cmocka_run_group_tests_name("loader", tests, NULL, NULL);
}
