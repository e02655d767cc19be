// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* load, unload, status. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_link.h>
#include "cli.h"
#include "loader.h"

static const char *clock_name(__u32 c)
{
	return c == XRL_CLOCK_COARSE ? "coarse" : c == XRL_CLOCK_TEST ? "test" : "precise";
}

int cmd_load(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },   { "clock", required_argument, NULL, 'c' },
		{ "max-keys", required_argument, NULL, 'k' }, { "malformed", required_argument, NULL, 'M' },
		{ "force", no_argument, NULL, 'f' },	      { "new-keys", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	const struct xrl_cmd *cmd = cli_cmd("load");
	struct xrl_load_opts o = { .clock = XRL_CLOCK_PRECISE, .max_keys = XRL_DEFAULT_KEYS };
	bool new_keys_set = false;
	char err[XRL_ERRLEN], *end;
	unsigned long v;
	int c, code;

	while ((c = cli_getopt(argc, argv, "m:c:k:M:fn:", opts, cmd, &code)) != -1) {
		switch (c) {
		case CLI_EXIT:
			return code;
		case 'm':
			if (strcmp(optarg, "native") && strcmp(optarg, "generic"))
				return cli_usage(cmd, "--mode '%s' is not a mode: expected native or generic", optarg);
			o.generic = !strcmp(optarg, "generic");
			break;
		case 'c':
			if (strcmp(optarg, "precise") && strcmp(optarg, "coarse"))
				return cli_usage(cmd, "--clock '%s' is not a clock: expected precise or coarse", optarg);
			o.clock = !strcmp(optarg, "coarse") ? XRL_CLOCK_COARSE : XRL_CLOCK_PRECISE;
			break;
		case 'k':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (*end || errno || v < 16 || v > 16777216 || optarg[0] == '-')
				return cli_usage(cmd, "--max-keys '%s' is not a key count: expected 16 to 16777216",
						 optarg);
			o.max_keys = (__u32)v;
			break;
		case 'M':
			if (strcmp(optarg, "pass") && strcmp(optarg, "drop"))
				return cli_usage(cmd, "--malformed '%s': expected pass or drop", optarg);
			o.malformed_drop = !strcmp(optarg, "drop");
			break;
		case 'f':
			o.force = true;
			break;
		case 'n':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (*end || errno || v > 100000000 || optarg[0] == '-' || !optarg[0])
				return cli_usage(cmd, "--new-keys '%s' is not a rate: expected new sources per second, 0 to 100000000 (0: no cap)",
						 optarg);
			o.new_keys = (__u32)v;
			new_keys_set = true;
			break;
		}
	}
	if (!new_keys_set)
		o.new_keys = o.max_keys; /* the table may turn over once a second at most */
	if (optind + 1 != argc)
		return cli_usage(cmd, optind == argc ? "missing interface" : "too many arguments");
	o.iface = argv[optind];
	if (xrl_load(&o, err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	if (cli.json)
		cli_json(json_pack("{s:s,s:s,s:s,s:I,s:I}", "interface", o.iface, "mode",
				   o.generic ? "generic" : "native", "clock", clock_name(o.clock), "max_keys",
				   (json_int_t)o.max_keys, "new_keys", (json_int_t)o.new_keys));
	else
		printf("loaded on %s (%s mode, %s clock, %u keys); no rules yet: add some with 'xdp-ratelimit rule add %s ...' or 'xdp-ratelimit apply %s FILE'\n",
		       o.iface, o.generic ? "generic" : "native", clock_name(o.clock), o.max_keys, o.iface, o.iface);
	return EXIT_OK;
}

int cmd_unload(int argc, char **argv)
{
	const struct xrl_cmd *cmd = cli_cmd("unload");
	char err[XRL_ERRLEN];
	int c, code;

	while ((c = cli_getopt(argc, argv, "", NULL, cmd, &code)) != -1)
		if (c == CLI_EXIT)
			return code;
	if (optind + 1 != argc)
		return cli_usage(cmd, optind == argc ? "missing interface" : "too many arguments");
	if (xrl_unload(argv[optind], err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	if (cli.json)
		cli_json(json_pack("{s:s,s:b}", "interface", argv[optind], "unloaded", 1));
	else
		printf("unloaded from %s\n", argv[optind]);
	return EXIT_OK;
}

int cmd_status(int argc, char **argv)
{
	const struct xrl_cmd *cmd = cli_cmd("status");
	struct xrl_status *st;
	json_t *arr;
	size_t n, i;
	char err[XRL_ERRLEN], keys[48];
	int c, code, ret;

	while ((c = cli_getopt(argc, argv, "", NULL, cmd, &code)) != -1)
		if (c == CLI_EXIT)
			return code;
	if (optind != argc)
		return cli_usage(cmd, "too many arguments");
	if (xrl_check_env(err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	ret = xrl_status_list(&st, &n);
	if (ret)
		return cli_fail(EXIT_FAIL, "cannot list %s: %s", XRL_PIN_ROOT, strerror(-ret));
	arr = json_array();
	if (!cli.json && !n)
		printf("xdp-ratelimit is not loaded on any interface: 'xdp-ratelimit load IFACE' attaches it\n");
	if (!cli.json && n)
		printf("%-16s %-8s %-8s %-8s %6s %10s %10s %s\n", "interface", "state", "mode", "clock", "prog",
		       "rules", "keys", "memory");
	for (i = 0; i < n; i++) {
		const char *mode = st[i].ctl.xdp_flags & XDP_FLAGS_SKB_MODE ? "generic" : "native";
		const char *state = st[i].err[0] ? "broken" : st[i].attached ? "attached" : "detached";

		if (cli.json) {
			json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I}", "interface",
					      st[i].iface, "state", state, "mode", mode, "clock",
					      clock_name(st[i].ctl.clock), "prog_id", (json_int_t)st[i].prog_id, "rules",
					      (json_int_t)st[i].rules, "keys", (json_int_t)st[i].keys, "max_keys",
					      (json_int_t)st[i].ctl.max_keys, "new_keys_per_second",
					      (json_int_t)st[i].ctl.new_keys, "memory_bytes",
					      (json_int_t)st[i].memlock);

			json_object_set_new(o, "malformed", json_string(st[i].ctl.malformed_drop ? "drop" : "pass"));
			json_object_set_new(o, "ifindex", json_integer((json_int_t)st[i].ctl.ifindex));
			if (st[i].err[0])
				json_object_set_new(o, "error", json_string(st[i].err));
			json_array_append_new(arr, o);
			continue;
		}
		if (st[i].err[0]) {
			printf("%-16s %-8s %s\n", st[i].iface, state, st[i].err);
			continue;
		}
		snprintf(keys, sizeof(keys), "%zu/%u", st[i].keys, st[i].ctl.max_keys);
		printf("%-16s %-8s %-8s %-8s %6u %10zu %10s %.1fMiB\n", st[i].iface, state, mode,
		       clock_name(st[i].ctl.clock), st[i].prog_id, st[i].rules, keys,
		       (double)st[i].memlock / (1024.0 * 1024.0));
	}
	if (cli.json)
		cli_json(json_pack("{s:o}", "interfaces", arr));
	else
		json_decref(arr);
	free(st);
	return EXIT_OK;
}
