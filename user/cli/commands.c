// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The command table: what 'xdp-ratelimit help' lists, in its order. */
#include <stdio.h>
#include "cli.h"

static int help_run(struct cli_ctx *ctx)
{
	const struct cli_cmd *c;

	if (!ctx->argc) {
		cli_usage_all(stdout);
		return EXIT_OK;
	}
	c = cli_find(cli_commands, ctx->argv[0], "command");
	if (!c)
		return EXIT_USAGE;
	cli_help(c);
	return EXIT_OK;
}

static const struct cli_cmd cmd_help = {
	.name = "help",
	.args = "[COMMAND]",
	.summary = "Shows the commands, or one command's help.",
	.max_args = 1,
	.run = help_run,
};

const struct cli_cmd *const cli_commands[] = {
	&cmd_load,   &cmd_unload,  &cmd_status, &cmd_chain, &cmd_rule,	  &cmd_set,	&cmd_apply,
	&cmd_lint,   &cmd_dump,	   &cmd_save,	&cmd_stats, &cmd_explain, &cmd_capture, &cmd_sync,
	&cmd_memory, &cmd_metrics, &cmd_demo,	&cmd_help,  NULL,
};
