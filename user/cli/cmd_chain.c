// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* chain: the program a frame the limiter passes goes on to, changed with no reload. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "codec/chain.h"
#include "cli.h"
#include "base/objinfo.h"

/* The program that follows the limiter on iface: id (0: none) and name. */
static void show_json(const char *iface, __u32 id, const char *name)
{
	cli_json(json_pack("{s:s,s:o}", "interface", iface, "then",
			   id ? json_pack("{s:I,s:s}", "prog_id", (json_int_t)id, "name", name) : json_null()));
}

static void show_plain(const char *iface, const char *verb, __u32 id, const char *name)
{
	if (id)
		printf("%s: passed frames %s on to XDP program '%s' (id %u)\n", iface, verb, name, id);
	else
		printf("%s: passed frames %s on to the kernel (no program chained)\n", iface, verb);
}

/* What follows the limiter on ctx's interface; verb: "go" or "now go". */
static void show(struct cli_ctx *ctx, const char *verb)
{
	char name[16];
	__u32 id = xrl_chain_get(ctx->maps.then, name, sizeof(name));

	if (cli.json)
		show_json(ctx->iface, id, name);
	else
		show_plain(ctx->iface, verb, id, name);
}

static int chain_run(struct cli_ctx *ctx)
{
	const char *what = ctx->argc ? ctx->argv[0] : NULL;
	struct bpf_link_info info;
	char err[XRL_ERRLEN];
	int code, ret;

	if (!what) {
		show(ctx, "go");
		return EXIT_OK;
	}
	code = cli_lock(ctx, false);
	if (code)
		return code;
	xrl_pin_info(ctx->maps.dir, "link", &info, sizeof(info)); /* its program may not follow itself */
	ret = xrl_chain_set(ctx->maps.then, what, info.prog_id, err, sizeof(err));
	if (ret)
		return cli_fail(ret == -EINVAL ? EXIT_USAGE : EXIT_FAIL, "%s; nothing was changed", err);
	show(ctx, "now go");
	return EXIT_OK;
}

const struct cli_cmd cmd_chain = {
	.name = "chain",
	.args = "IFACE [PROG|none]",
	.summary =
		"Shows or sets the XDP program that frames the limiter passes go on to, through a tail call: PROG is\n"
		"its id ('bpftool prog') or its pin under /sys/fs/bpf/; none removes it. Frames the limiter drops\n"
		"never reach it. Takes effect at once, with no reload of the limiter.",
	.min_args = 1,
	.max_args = 2,
	.missing = "missing interface",
	.flags = CLI_IFACE | CLI_MAPS,
	.run = chain_run,
};
