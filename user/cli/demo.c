// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * demo: the product carries no lab and no traffic generator. The demo is
 * tools/demo.sh (on the veth lab of tools/lab.sh, which the end-to-end tests
 * use too); the build links it as xrl-demo beside this binary, and this
 * command runs it with XRL naming this binary.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

static int demo_run(struct cli_ctx *ctx)
{
	char self[PATH_MAX], script[PATH_MAX + 16], *slash;
	char *args[3] = { script, ctx->argc ? ctx->argv[0] : NULL, NULL };
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char err[XRL_ERRLEN];

	if (ctx->argc && xrl_iface_check(ctx->argv[0], err, sizeof(err)))
		return cli_usage(ctx->cmd, "%s", err);
	if (n < 0)
		return cli_fail(EXIT_FAIL, "cannot find this program through /proc/self/exe: %s", strerror(errno));
	self[n] = '\0';
	slash = strrchr(self, '/');
	snprintf(script, sizeof(script), "%.*s/xrl-demo", slash ? (int)(slash - self) : 1, slash ? self : ".");
	if (setenv("XRL", self, 1) || (cli.json && setenv("XRL_JSON", "1", 1)))
		return cli_fail(EXIT_FAIL, "cannot set the demo's environment: %s", strerror(errno));
	fflush(stdout);
	execv(script, args);
	return cli_fail(EXIT_FAIL,
			"cannot run the demo, %s: %s; it comes with a build of the source tree: run 'make demo'",
			script, strerror(errno));
}

const struct cli_cmd cmd_demo = {
	.name = "demo",
	.args = "[IFACE]",
	.summary =
		"Builds a veth lab in a network namespace, loads the limiter, installs sample rules, sends traffic from\n"
		"several sources above and below their limits, shows pass, block and QPS as they change, and cleans up.\n"
		"With IFACE, loads on that interface instead and shows its figures (no lab, no traffic).\n"
		"It runs xrl-demo (tools/demo.sh) from the build directory of this binary.",
	.max_args = 1,
	.run = demo_run,
};
