// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rule add|del|list, apply, dump. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "apply.h"
#include "cli.h"

static int print_set(const char *iface, const struct xrl_ruleset *set)
{
	json_t *arr = json_array();
	char line[256];
	size_t i;

	for (i = 0; i < set->n; i++) {
		xrl_spec_format(&set->v[i], line, sizeof(line));
		if (cli.json)
			json_array_append_new(arr, json_string(line));
		else
			printf("%s\n", line);
	}
	if (cli.json)
		cli_json(json_pack("{s:s,s:o}", "interface", iface, "rules", arr));
	else
		json_decref(arr);
	return EXIT_OK;
}

/* Opens the interface's maps and reads the active set; an exit code on failure. */
static int open_rules(const char *iface, struct xrl_maps *m, struct xrl_ruleset *set)
{
	char err[XRL_ERRLEN];
	int ret;

	if (xrl_maps_open(iface, m, err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	ret = xrl_rules_read(m, set);
	if (ret) {
		xrl_maps_close(m);
		return cli_fail(EXIT_FAIL, "cannot read the rules of %s: %s", iface, strerror(-ret));
	}
	return EXIT_OK;
}

static int apply_set(const char *iface, struct xrl_maps *m, struct xrl_ruleset *set, const char *what)
{
	char err[XRL_ERRLEN];

	if (xrl_rules_apply(m, set, err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	if (cli.json)
		cli_json(json_pack("{s:s,s:s,s:I}", "interface", iface, "result", what, "rules", (json_int_t)set->n));
	else
		printf("%s: %s; %zu rule%s in force\n", iface, what, set->n, set->n == 1 ? "" : "s");
	return EXIT_OK;
}

/*
 * rule add/del take the interface's lock around read-modify-apply, so two
 * at once cannot lose each other's change.
 */
static int rule_change(const struct xrl_cmd *cmd, bool add, int argc, char **argv)
{
	struct xrl_ruleset set = {};
	struct xrl_maps m;
	struct xrl_spec s;
	char err[XRL_ERRLEN], what[300], match[128];
	int code, idx;

	if (argc < 2)
		return cli_usage(cmd, "missing interface and rule");
	if (add ? xrl_spec_parse(argc - 1, argv + 1, &s, err, sizeof(err)) :
		  xrl_spec_parse_match(argc - 1, argv + 1, &s, err, sizeof(err)))
		return cli_usage(cmd, "%s", err);
	if (!add && argc > 3)
		return cli_usage(cmd, "'rule del' takes only the match, like 'port 53/udp': unexpected '%s'", argv[3]);
	code = open_rules(argv[0], &m, &set);
	if (code)
		return code;
	if (xrl_maps_lock(&m)) {
		code = cli_fail(EXIT_FAIL, "cannot lock %s: %s", m.dir, strerror(errno));
		goto out;
	}
	xrl_ruleset_free(&set);
	if (xrl_rules_read(&m, &set)) { /* again, under the lock */
		code = cli_fail(EXIT_FAIL, "cannot read the rules of %s", argv[0]);
		goto out;
	}
	xrl_spec_format_match(&s, match, sizeof(match));
	idx = xrl_ruleset_find(&set, &s);
	if (add) {
		if (idx >= 0) {
			code = cli_fail(EXIT_FAIL,
					"%s already has a rule for '%s': delete it first with 'xdp-ratelimit rule del %s %s'",
					argv[0], match, argv[0], match);
			goto out;
		}
		if (xrl_ruleset_add(&set, &s, err, sizeof(err))) {
			code = cli_fail(EXIT_FAIL, "%s", err);
			goto out;
		}
		xrl_spec_format(&s, what, sizeof(what));
		memmove(what + 6, what, strlen(what) + 1);
		memcpy(what, "added ", 6);
	} else {
		if (idx < 0) {
			code = cli_fail(EXIT_FAIL, "%s has no rule for '%s': 'xdp-ratelimit dump %s' lists them",
					argv[0], match, argv[0]);
			goto out;
		}
		set.v[idx] = set.v[--set.n];
		snprintf(what, sizeof(what), "deleted %s", match);
	}
	code = apply_set(argv[0], &m, &set, what);
out:
	xrl_ruleset_free(&set);
	xrl_maps_close(&m);
	return code;
}

int cmd_rule(int argc, char **argv)
{
	static const struct xrl_cmd subs[] = {
		{ "add", NULL, "IFACE RULE", "Adds one rule." },
		{ "del", NULL, "IFACE MATCH", "Deletes the rule with this match." },
		{ "list", NULL, "IFACE", "Lists the rules, as dump." },
		{ NULL, NULL, NULL, NULL },
	};
	const struct xrl_cmd *cmd = cli_cmd("rule"), *sub;
	int c, code;

	while ((c = cli_getopt(argc, argv, "", NULL, cmd, &code)) != -1)
		if (c == CLI_EXIT)
			return code;
	if (optind == argc)
		return cli_usage(cmd, "missing subcommand: add, del or list");
	sub = cli_find(subs, argv[optind], "rule subcommand");
	if (!sub)
		return EXIT_USAGE;
	argc -= optind + 1;
	argv += optind + 1;
	if (!strcmp(sub->name, "list")) {
		optind = 0;
		return cmd_dump(argc + 1, argv - 1);
	}
	return rule_change(cmd, !strcmp(sub->name, "add"), argc, argv);
}

int cmd_apply(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const struct xrl_cmd *cmd = cli_cmd("apply");
	struct xrl_ruleset set = {};
	struct xrl_maps m;
	const char *iface, *file;
	char err[XRL_ERRLEN + 64], what[64];
	bool check = false;
	int c, code, ret;
	FILE *f;

	while ((c = cli_getopt(argc, argv, "c", opts, cmd, &code)) != -1) {
		if (c == CLI_EXIT)
			return code;
		check = true;
	}
	if (argc - optind != 2)
		return cli_usage(cmd, argc - optind < 2 ? "missing interface or file" : "too many arguments");
	iface = argv[optind];
	file = argv[optind + 1];
	f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	if (!f)
		return cli_fail(EXIT_USAGE, "cannot read rules file '%s': %s", file, strerror(errno));
	ret = xrl_ruleset_parse(f, strcmp(file, "-") ? file : "<stdin>", &set, err, sizeof(err));
	if (f != stdin)
		fclose(f);
	if (ret)
		return cli_fail(EXIT_USAGE, "%s; nothing was applied", err);
	if (check) {
		if (cli.json)
			cli_json(json_pack("{s:s,s:b,s:I}", "file", file, "valid", 1, "rules", (json_int_t)set.n));
		else
			printf("%s: %zu rule%s, all valid\n", strcmp(file, "-") ? file : "<stdin>", set.n, set.n == 1 ? "" : "s");
		xrl_ruleset_free(&set);
		return EXIT_OK;
	}
	if (xrl_maps_open(iface, &m, err, sizeof(err))) {
		xrl_ruleset_free(&set);
		return cli_fail(EXIT_FAIL, "%s", err);
	}
	snprintf(what, sizeof(what), "applied %s", strcmp(file, "-") ? "the file" : "standard input");
	code = apply_set(iface, &m, &set, what);
	xrl_ruleset_free(&set);
	xrl_maps_close(&m);
	return code;
}

int cmd_dump(int argc, char **argv)
{
	const struct xrl_cmd *cmd = cli_cmd("dump");
	struct xrl_ruleset set = {};
	struct xrl_maps m;
	int c, code;

	while ((c = cli_getopt(argc, argv, "", NULL, cmd, &code)) != -1)
		if (c == CLI_EXIT)
			return code;
	if (argc - optind != 1)
		return cli_usage(cmd, optind == argc ? "missing interface" : "too many arguments");
	code = open_rules(argv[optind], &m, &set);
	if (code)
		return code;
	code = print_set(argv[optind], &set);
	xrl_ruleset_free(&set);
	xrl_maps_close(&m);
	return code;
}
