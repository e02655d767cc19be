// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdp-ratelimit: the command table. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

#define XRL_VERSION "0.1.0"

static int cmd_help(int argc, char **argv);

const struct xrl_cmd xrl_commands[] = {
	{ "load", cmd_load,
	  "IFACE [--mode native|generic] [--clock precise|coarse] [--max-keys N] [--new-keys N]\n"
	  "               [--malformed pass|drop] [--force]",
	  "Attaches the limiter to IFACE and pins its maps under /sys/fs/bpf/xdp-ratelimit/IFACE/, then exits:\n"
	  "enforcement goes on with no process running. Starts with no rules.\n"
	  "  --mode        native (driver, default) or generic (any interface, slower)\n"
	  "  --clock       precise (bpf_ktime_get_ns, default) or coarse (bpf_ktime_get_coarse_ns, cheaper)\n"
	  "  --max-keys    window states kept (rule x source), LRU-evicted beyond; default 65536\n"
	  "  --new-keys    per-source states created per second at most (default: --max-keys; 0: no cap);\n"
	  "                new sources past it share their rule's overflow window\n"
	  "  --malformed   pass (default) or drop frames too short or inconsistent to parse\n"
	  "  --force       replace another XDP program attached to IFACE" },
	{ "unload", cmd_unload, "IFACE", "Detaches the limiter from IFACE and removes everything load pinned." },
	{ "status", cmd_status, "", "Lists the interfaces the limiter is loaded on." },
	{ "rule", cmd_rule, "add IFACE RULE | del IFACE MATCH | list IFACE",
	  "Adds, deletes or lists single rules. RULE is one line of the rules grammar:\n"
	  "  port PORT/tcp|udp rate N/s [window 1s] [buckets 2] [per-source|aggregate] [mask4 N] [mask6 N] [monitor]\n"
	  "  prefix ADDR/LEN rate N/s [window 1s] [buckets 2] [per-source|aggregate] [mask N] [monitor]\n"
	  "  prefix ADDR/LEN allow\n"
	  "MATCH is the first two words: 'port 53/udp' or 'prefix 10.0.0.0/8'." },
	{ "apply", cmd_apply, "IFACE FILE|- [--check]",
	  "Replaces IFACE's whole rule set with FILE's (- for standard input), atomically: packets see the old set\n"
	  "or the new one. One rule a line, as 'rule add' takes it; '#' starts a comment. A file with any bad line\n"
	  "is refused whole.\n"
	  "  --check       validate the file only (IFACE is not touched)" },
	{ "dump", cmd_dump, "IFACE", "Prints IFACE's rules in the rules grammar: 'dump IFACE | apply IFACE -' round-trips." },
	{ "stats", cmd_stats, "IFACE [--top K] [--watch] [--count N]",
	  "Pass and block QPS per rule (Sentinel's: the window's sum over all CPUs, per second), totals, and the\n"
	  "global counters.\n"
	  "  --top K       also the K busiest keys (source, port) by QPS\n"
	  "  --watch       refresh every second until interrupted\n"
	  "  --count N     print N times, a second apart" },
	{ "explain", cmd_explain, "IFACE --src ADDR [--dport PORT/PROTO]",
	  "Which rules match a packet from ADDR (to PORT/PROTO), their current windows, and whether the next such\n"
	  "packet passes." },
	{ "demo", cmd_demo, "[IFACE]",
	  "Builds a veth lab in a network namespace, loads the limiter, installs sample rules, sends traffic from\n"
	  "several sources above and below their limits, shows pass, block and QPS as they change, and cleans up.\n"
	  "With IFACE, loads on that interface instead and shows its figures (no lab, no traffic)." },
	{ "help", cmd_help, "[COMMAND]", "Shows the commands, or one command's help." },
	{ NULL, NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	const struct xrl_cmd *c;

	fprintf(f, "Usage: xdp-ratelimit [-j] [-v] COMMAND [ARGS]\n\n"
		   "A sliding-window packet-rate limiter in XDP, per destination port and per source prefix.\n\n"
		   "Commands:\n");
	for (c = xrl_commands; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->usage);
	fprintf(f, "\nOptions (before or after the command): -j/--json  -v/--verbose  -h/--help  -V/--version\n"
		   "'xdp-ratelimit help COMMAND' shows a command's options.\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct xrl_cmd *c;

	if (argc < 2) {
		usage(stdout);
		return EXIT_OK;
	}
	c = cli_find(xrl_commands, argv[1], "command");
	if (!c)
		return EXIT_USAGE;
	cli_help(c);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct xrl_cmd *c;
	int i = 1;

	cli_libbpf_log();
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")) {
			cli.json = true;
		} else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			cli.verbose++;
			cli_libbpf_log();
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			printf("xdp-ratelimit %s\n", XRL_VERSION);
			return EXIT_OK;
		} else {
			return cli_usage(NULL, "unknown option '%s': see 'xdp-ratelimit help'", argv[i]);
		}
	}
	if (i == argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	c = cli_find(xrl_commands, argv[i], "command");
	if (!c)
		return EXIT_USAGE;
	optind = 1;
	return c->fn(argc - i, argv + i);
}
