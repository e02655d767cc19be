// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Errors as every command reports them, in text or JSON with the usage line; the interface's lock, which fails with one. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* The error, and in JSON the usage line of cmd when there is one. */
static void vreport(const struct cli_cmd *cmd, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (cli.json) {
		json_t *o = json_pack("{s:s}", "error", msg);
		char *usage = cmd ? cli_usage_string(cmd) : NULL;

		if (usage)
			json_object_set_new(o, "usage", json_string(usage));
		free(usage);
		cli_json(o);
	} else {
		fprintf(stderr, "xdp-ratelimit: %s\n", msg);
	}
}

int cli_fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(NULL, fmt, ap);
	va_end(ap);
	return code;
}

int cli_usage(const struct cli_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(cmd, fmt, ap);
	va_end(ap);
	if (cmd && !cli.json)
		cli_usage_line(stderr, cmd);
	return EXIT_USAGE;
}

int cli_lock(struct cli_ctx *ctx, bool shared)
{
	int ret = shared ? xrl_maps_lock_shared(&ctx->maps) : xrl_maps_lock(&ctx->maps);

	if (ret == -ENOENT)
		return cli_fail(
			EXIT_FAIL,
			"xdp-ratelimit was unloaded from %s meanwhile: nothing was done ('xdp-ratelimit load %s' "
			"attaches it again)",
			ctx->iface, ctx->iface);
	if (ret)
		return cli_fail(EXIT_FAIL, "cannot lock %s: %s", ctx->maps.dir, strerror(-ret));
	return EXIT_OK;
}
