// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdp-ratelimit: the options before the command, then the command (commands.c has the table). */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "xrl_version.h" /* made from VERSION by the Makefile */

int main(int argc, char **argv)
{
	const struct cli_cmd *c;
	int i = 1;

	cli_libbpf_log();
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* -j anywhere means JSON from the first word on: errors in the options before it included. */
	for (; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json"))
			cli.json = true;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")) {
			cli.json = true;
		} else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			cli.verbose++;
			cli_libbpf_log();
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cli_usage_all(stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			if (cli.json)
				cli_json(json_pack("{s:s}", "version", XRL_VERSION));
			else
				printf("xdp-ratelimit %s\n", XRL_VERSION);
			return EXIT_OK;
		} else {
			return cli_usage(NULL, "unknown option '%s': see 'xdp-ratelimit help'", argv[i]);
		}
	}
	if (i == argc) {
		if (cli.json)
			return cli_usage(NULL, "missing command: 'xdp-ratelimit help' lists them");
		cli_usage_all(stderr);
		return EXIT_USAGE;
	}
	c = cli_find(cli_commands, argv[i], "command");
	if (!c)
		return EXIT_USAGE;
	return cli_run(c, argc - i, argv + i);
}
