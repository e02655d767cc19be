// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* save: an interface's load options and rules, in a file that 'load --config' restores. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "codec/rules_read.h"
#include "codec/lpm_set.h"
#include "cli.h"
#include "rules/config.h"

struct save_opts {
	bool inline_;
};

static const struct cli_opt save_opts[] = {
	CLI_OPT(struct save_opts, inline_, "inline", FLAG, .short_name = 'i',
		.help = "write every set's prefixes into FILE, a set read from a file too (by default:\n"
			"'set NAME file PATH', which load --config reads again)"),
	{},
};

/* What save wrote where, in JSON and in text. */
static void saved_json(const char *iface, const char *path, const char *load, size_t rules)
{
	cli_json(json_pack("{s:s,s:s,s:s,s:I}", "interface", iface, "file", path, "load", load, "rule_count",
			   (json_int_t)rules));
}

static void saved_plain(const char *iface, const char *path, size_t rules)
{
	printf("saved %s's load options and %zu rule%s to %s: 'xdp-ratelimit load %s --config %s' restores them\n",
	       iface, rules, rules == 1 ? "" : "s", path, iface, path);
}

static int save_run(struct cli_ctx *ctx)
{
	const struct save_opts *so = ctx->opts;
	const char *iface = ctx->iface;
	struct xrl_ruleset set = {};
	struct xrl_load_line l;
	char path[PATH_MAX], err[XRL_ERRLEN], line[300];
	struct xrl_ctl ctl;
	int ret, code = EXIT_OK;

	if (ctx->argc)
		snprintf(path, sizeof(path), "%s", ctx->argv[0]);
	else
		snprintf(path, sizeof(path), "%s/%s.conf", XRL_CONFIG_DIR, iface);
	ret = xrl_ctl_read(&ctx->maps, &ctl);
	if (!ret)
		ret = xrl_rules_read_full(&ctx->maps, &set);
	if (ret)
		return cli_fail(EXIT_FAIL, "cannot read %s's configuration: %s", iface, strerror(-ret));
	xrl_load_line_of(&ctl, xrl_maps_max_prefixes(&ctx->maps), &l);
	if (xrl_config_check_sets(iface, &set, so->inline_, err, sizeof(err))) {
		code = cli_fail(EXIT_FAIL, "%s", err);
		goto out;
	}
	if (!strcmp(path, "-")) {
		if (xrl_config_fprint(stdout, iface, &l, &set, so->inline_))
			code = cli_fail(EXIT_FAIL, "cannot print %s's configuration", iface);
		goto out;
	}
	if (xrl_config_save(path, iface, &l, &set, so->inline_, err, sizeof(err))) {
		code = cli_fail(EXIT_FAIL, "%s", err);
		goto out;
	}
	xrl_load_line_format(&l, line, sizeof(line));
	if (cli.json)
		saved_json(iface, path, line, set.n);
	else
		saved_plain(iface, path, set.n);
out:
	xrl_ruleset_free(&set);
	return code;
}

/* Before the maps are opened: FILE is checked as a path. */
static int save_prepare(struct cli_ctx *ctx)
{
	const char *file = ctx->argc ? ctx->argv[0] : NULL;

	if (!file)
		return EXIT_OK;
	if (!*file || strlen(file) >= PATH_MAX - 8)
		return cli_usage(ctx->cmd, "'%s' cannot be a file's name: give a path like %s/%s.conf", file,
				 XRL_CONFIG_DIR, ctx->iface);
	if (cli.json && !strcmp(file, "-"))
		return cli_usage(ctx->cmd, "'save IFACE -' prints the file itself: it has no JSON form; drop -j");
	return EXIT_OK;
}

const struct cli_cmd cmd_save = {
	.name = "save",
	.args = "IFACE [FILE|-]",
	.summary = "Writes IFACE's load options and rules to FILE (default " XRL_CONFIG_DIR "/IFACE.conf),\n"
		   "atomically, mode 0644: 'load IFACE --config FILE' restores both, as the unit\n"
		   "xdp-ratelimit@IFACE.service does at boot; - prints it.",
	.min_args = 1,
	.max_args = 2,
	.missing = "missing interface",
	.flags = CLI_MAPS | CLI_READS,
	.opts = save_opts,
	.opts_size = sizeof(struct save_opts),
	.prepare = save_prepare,
	.run = save_run,
};
