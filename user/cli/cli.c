// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "cli.h"

struct xrl_cli cli;

const struct xrl_cmd *cli_find(const struct xrl_cmd *table, const char *name, const char *what)
{
	const struct xrl_cmd *hit = NULL, *c;
	size_t n = strlen(name);

	for (c = table; c->name; c++) {
		if (!strcmp(c->name, name))
			return c;
		if (n && !strncmp(c->name, name, n)) {
			if (hit) {
				cli_fail(EXIT_USAGE, "%s '%s' is ambiguous: it could be '%s' or '%s'", what, name,
					 hit->name, c->name);
				return NULL;
			}
			hit = c;
		}
	}
	if (!hit)
		cli_fail(EXIT_USAGE, "unknown %s '%s': see 'xdp-ratelimit help'", what, name);
	return hit;
}

const struct xrl_cmd *cli_cmd(const char *name)
{
	const struct xrl_cmd *c;

	for (c = xrl_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

void cli_help(const struct xrl_cmd *cmd)
{
	printf("Usage: xdp-ratelimit %s %s\n\n%s\n", cmd->name, cmd->usage, cmd->help);
	printf("  -j, --json      print JSON, errors included\n"
	       "  -v, --verbose   show libbpf's log\n"
	       "  -h, --help      this help\n");
}

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
	       const struct xrl_cmd *cmd, int *exit_code)
{
	static struct option all[32];
	static char shorts[64];
	size_t n = 0;
	int c;

	while (longopts && longopts[n].name && n < 28) {
		all[n] = longopts[n];
		n++;
	}
	all[n++] = (struct option){ "json", no_argument, NULL, 'j' };
	all[n++] = (struct option){ "verbose", no_argument, NULL, 'v' };
	all[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	all[n] = (struct option){ NULL, 0, NULL, 0 };
	snprintf(shorts, sizeof(shorts), ":jvh%s", shortopts ? shortopts : "");
	for (;;) {
		int idx;

		c = getopt_long(argc, argv, shorts, all, NULL);
		idx = optind > 1 ? optind - 1 : 1; /* the word getopt just read */
		switch (c) {
		case 'j':
			cli.json = true;
			continue;
		case 'v':
			cli.verbose++;
			cli_libbpf_log();
			continue;
		case 'h':
			cli_help(cmd);
			*exit_code = EXIT_OK;
			return CLI_EXIT;
		case '?':
			*exit_code = cli_usage(cmd, "unknown option '%s'", idx < argc ? argv[idx] : "?");
			return CLI_EXIT;
		case ':':
			*exit_code = cli_usage(cmd, "option '%s' needs a value", idx < argc ? argv[idx] : "?");
			return CLI_EXIT;
		default:
			return c;
		}
	}
}

static void vreport(const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (cli.json) {
		json_t *o = json_pack("{s:s}", "error", msg);

		cli_json(o);
	} else {
		fprintf(stderr, "xdp-ratelimit: %s\n", msg);
	}
}

int cli_fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	return code;
}

int cli_usage(const struct xrl_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	if (cmd && !cli.json)
		fprintf(stderr, "usage: xdp-ratelimit %s %s\n", cmd->name, cmd->usage);
	return EXIT_USAGE;
}

void cli_json(json_t *v)
{
	if (!v)
		return;
	json_dumpf(v, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	fflush(stdout);
	json_decref(v);
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && cli.verbose < 2)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

void cli_libbpf_log(void)
{
	libbpf_set_print(cli.verbose ? print_libbpf : quiet_libbpf);
}
