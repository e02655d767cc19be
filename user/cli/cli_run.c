// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The command and option tables at work: a command found by name, its options parsed, its preamble run. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "life/journal.h"

#define CLI_MAX_OPTS 16

const struct cli_cmd *cli_find(const struct cli_cmd *const *table, const char *name, const char *what)
{
	const struct cli_cmd *hit = NULL;
	size_t n = strlen(name), i;

	for (i = 0; table[i]; i++) {
		if (!strcmp(table[i]->name, name))
			return table[i];
		if (n && !strncmp(table[i]->name, name, n)) {
			if (hit) {
				cli_fail(EXIT_USAGE, "%s '%s' is ambiguous: it could be '%s' or '%s'", what, name,
					 hit->name, table[i]->name);
				return NULL;
			}
			hit = table[i];
		}
	}
	if (!hit)
		cli_fail(EXIT_USAGE, "unknown %s '%s': see 'xdp-ratelimit help'", what, name);
	return hit;
}

int cli_check(const struct cli_cmd *cmd, char *err, size_t len)
{
	static const size_t sizes[] = {
		[CLI_OPT_FLAG] = sizeof(bool),
		[CLI_OPT_UINT] = sizeof(__u32),
		[CLI_OPT_ENUM] = sizeof(__u32),
		[CLI_OPT_STRING] = sizeof(const char *),
	};
	const struct cli_opt *o, *p;
	size_t i, n = 0;

	for (o = cmd->opts; o && o->name; o++, n++) {
		if (n == CLI_MAX_OPTS)
			return xrl_fail(-E2BIG, err, len, "'%s' declares more than %d options", cmd->name,
					CLI_MAX_OPTS);
		if (o->size != sizes[o->type] || o->off + o->size > cmd->opts_size ||
		    (o->given_off && o->given_off - 1 + sizeof(bool) > cmd->opts_size))
			return xrl_fail(-EINVAL, err, len, "'%s --%s' names a field of the wrong size or place",
					cmd->name, o->name);
		if ((o->type == CLI_OPT_ENUM && (!o->values || !o->values[0].name || !o->what)) ||
		    (o->type == CLI_OPT_UINT && (o->min > o->max || !o->what || !o->arg)) ||
		    (o->type == CLI_OPT_STRING && !o->arg) || !o->help || (o->required && o->type != CLI_OPT_STRING))
			return xrl_fail(-EINVAL, err, len, "'%s --%s' lacks what its type needs", cmd->name, o->name);
		for (p = cmd->opts; p < o; p++)
			if (!strcmp(p->name, o->name) || (o->short_name && p->short_name == o->short_name))
				return xrl_fail(-EINVAL, err, len, "'%s' declares --%s twice", cmd->name, o->name);
		for (i = 0; i < CLI_COMMON_OPTS; i++)
			if (!strcmp(cli_common_opts[i].name, o->name) || o->short_name == cli_common_opts[i].short_name)
				return xrl_fail(-EINVAL, err, len, "'%s --%s' takes a common option's name", cmd->name,
						o->name);
	}
	if (!cmd->name || !cmd->summary || !cmd->run == !cmd->subs ||
	    (cmd->max_args >= 0 && cmd->max_args < cmd->min_args) || (cmd->min_args && !cmd->missing) ||
	    (cmd->subs && !cmd->missing) || ((cmd->flags & (CLI_IFACE | CLI_MAPS)) && cmd->min_args < 1))
		return xrl_fail(-EINVAL, err, len, "'%s' is declared inconsistently", cmd->name ? cmd->name : "?");
	for (i = 0; cmd->subs && cmd->subs[i]; i++) {
		int ret = cli_check(cmd->subs[i], err, len);

		if (ret)
			return ret;
		if (cmd->subs[i]->opts)
			return xrl_fail(-EINVAL, err, len, "'%s %s' has options: a subcommand shares its command's",
					cmd->name, cmd->subs[i]->name);
	}
	return 0;
}

/* Stores one option's value in the command's option struct; an exit code, or -1 when stored. */
static int set_opt(const struct cli_cmd *cmd, const struct cli_opt *o, void *opts, const char *val)
{
	void *p = (char *)opts + o->off;
	const struct cli_enum *e;
	char names[96], *end;
	unsigned long v;

	switch (o->type) {
	case CLI_OPT_FLAG:
		*(bool *)p = true;
		break;
	case CLI_OPT_STRING:
		*(const char **)p = val;
		break;
	case CLI_OPT_UINT:
		errno = 0;
		v = strtoul(val, &end, 10);
		if (!isdigit((unsigned char)val[0]) || *end || errno || v < o->min || v > o->max)
			return cli_usage(cmd, "--%s '%s' is not %s: expected %u to %u", o->name, val, o->what, o->min,
					 o->max);
		*(__u32 *)p = (__u32)v;
		break;
	case CLI_OPT_ENUM:
		for (e = o->values; e->name && strcmp(e->name, val); e++)
			;
		if (!e->name) {
			size_t n = 0;

			for (e = o->values; e->name && n < sizeof(names); e++)
				n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
						      e == o->values ? "" :
						      e[1].name	     ? ", " :
								       " or ",
						      e->name);
			return cli_usage(cmd, "--%s '%s' is not %s: expected %s", o->name, val, o->what, names);
		}
		*(__u32 *)p = e->value;
		break;
	}
	if (o->given_off)
		*(bool *)((char *)opts + o->given_off - 1) = true;
	return -1;
}

/*
 * getopt_long over the command's table and the common options. Returns -1
 * when the arguments are parsed (optind at the first positional one), else
 * an exit code (help printed, or a usage error reported).
 */
static int parse_opts(const struct cli_cmd *cmd, int argc, char **argv, void *opts)
{
	struct option longopts[CLI_MAX_OPTS + 4] = {};
	char shortopts[3 * CLI_MAX_OPTS + 8] = ":";
	size_t n = 0, i, s = 1;
	int c;

	for (; cmd->opts && cmd->opts[n].name; n++) {
		const struct cli_opt *o = &cmd->opts[n];
		int has_arg = o->type == CLI_OPT_FLAG ? no_argument : required_argument;

		longopts[n] = (struct option){ o->name, has_arg, NULL, 256 + (int)n };
		if (o->short_name) {
			shortopts[s++] = o->short_name;
			if (has_arg)
				shortopts[s++] = ':';
		}
	}
	for (i = 0; i < CLI_COMMON_OPTS; i++) {
		longopts[n + i] =
			(struct option){ cli_common_opts[i].name, no_argument, NULL, cli_common_opts[i].short_name };
		shortopts[s++] = cli_common_opts[i].short_name;
	}
	for (;;) {
		int word;

		c = getopt_long(argc, argv, shortopts, longopts, NULL);
		word = optind > 1 ? optind - 1 : 1; /* the word getopt just read */
		if (c == -1)
			return -1;
		for (i = 0; c < 256 && i < n; i++)
			if (cmd->opts[i].short_name == c)
				c = 256 + (int)i;
		if (c >= 256) {
			int code = set_opt(cmd, &cmd->opts[c - 256], opts, optarg);

			if (code >= 0)
				return code;
			continue;
		}
		switch (c) {
		case 'j':
			cli.json = true;
			break;
		case 'v':
			cli.verbose++;
			cli_libbpf_log();
			break;
		case 'h':
			cli_help(cmd);
			return EXIT_OK;
		case ':':
			return cli_usage(cmd, "option '%s' needs a value", word < argc ? argv[word] : "?");
		default:
			return cli_usage(cmd, "unknown option '%s'", word < argc ? argv[word] : "?");
		}
	}
}

/* The preamble every command goes through once its options are parsed. */
static int run_cmd(const struct cli_cmd *cmd, struct cli_ctx *ctx)
{
	const struct cli_opt *o;
	char err[XRL_ERRLEN];
	int code = EXIT_OK;

	if (ctx->argc < cmd->min_args)
		return cli_usage(cmd, "%s", cmd->missing);
	if (cmd->max_args >= 0 && ctx->argc > cmd->max_args)
		return cli_usage(cmd, "too many arguments");
	for (o = cmd->opts; o && o->name; o++) {
		if (o->required && !*(const char **)((char *)ctx->opts + o->off))
			return cli_usage(cmd, "missing --%s %s: %s", o->name, o->arg, o->help);
	}
	ctx->cmd = cmd;
	if (cmd->flags & (CLI_IFACE | CLI_MAPS)) {
		ctx->iface = ctx->argv[0];
		ctx->argc--;
		ctx->argv++;
		/* Before anything is built from it: a name is not a path. */
		if (xrl_iface_check(ctx->iface, err, sizeof(err)))
			return cli_usage(cmd, "%s", err);
	}
	if (cmd->prepare)
		code = cmd->prepare(ctx);
	if (code) {
		/* prepare said why */
	} else if (!(cmd->flags & CLI_MAPS)) {
		code = cmd->run(ctx);
	} else if (xrl_maps_open_mended(ctx->iface, &ctx->maps, err, sizeof(err))) {
		code = cli_fail(EXIT_FAIL, "%s", err);
	} else {
		code = cmd->flags & CLI_READS ? cli_lock(ctx, true) : EXIT_OK;
		if (!code)
			code = cmd->run(ctx);
		xrl_maps_close(&ctx->maps);
	}
	if (cmd->done)
		cmd->done(ctx);
	return code;
}

int cli_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct cli_ctx ctx = {};
	const struct cli_cmd *sub;
	char what[64], err[XRL_ERRLEN];
	int code;

	if (cli_check(cmd, err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "bug: %s", err);
	ctx.opts = calloc(1, cmd->opts_size ? cmd->opts_size : 1);
	if (!ctx.opts)
		return cli_fail(EXIT_FAIL, "out of memory");
	if (cmd->defaults)
		memcpy(ctx.opts, cmd->defaults, cmd->opts_size);
	optind = 0; /* getopt starts afresh, at argv[1] */
	code = parse_opts(cmd, argc, argv, ctx.opts);
	if (code >= 0)
		goto out;
	ctx.argc = argc - optind;
	ctx.argv = argv + optind;
	if (!cmd->subs) {
		code = run_cmd(cmd, &ctx);
		goto out;
	}
	/* Subcommands share their parent's options: getopt has read them all. */
	if (!ctx.argc) {
		code = cli_usage(cmd, "%s", cmd->missing);
		goto out;
	}
	snprintf(what, sizeof(what), "%s subcommand", cmd->name);
	sub = cli_find(cmd->subs, ctx.argv[0], what);
	if (!sub) {
		code = EXIT_USAGE;
		goto out;
	}
	ctx.argc--;
	ctx.argv++;
	code = run_cmd(sub, &ctx);
out:
	free(ctx.opts);
	return code;
}
