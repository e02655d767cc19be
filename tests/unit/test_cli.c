// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The command and option tables (user/cli/cli_run.c): every command is declared
 * consistently, and what the parser makes of arguments, from a test command
 * with one option of each type.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "xdp_ratelimit.skel.h"

struct t_opts {
	__u32 count, mode;
	bool flag, count_given;
	const char *name;
};

static const struct cli_enum t_modes[] = { { "slow", 1 }, { "fast", 2 }, { NULL, 0 } };

static const struct cli_opt t_opt_table[] = {
	CLI_OPT(struct t_opts, count, "count", UINT, .short_name = 'c', .arg = "N", .min = 1, .max = 100,
		.what = "a count", CLI_GIVEN(struct t_opts, count_given), .help = "how many"),
	CLI_OPT(struct t_opts, mode, "mode", ENUM, .values = t_modes, .what = "a mode", .help = "slow or fast"),
	CLI_OPT(struct t_opts, flag, "flag", FLAG, .short_name = 'f', .help = "a flag"),
	CLI_OPT(struct t_opts, name, "name", STRING, .arg = "NAME", .required = true, .help = "a name"),
	{},
};

static const struct t_opts t_defaults = { .count = 7, .mode = 1 };

/* What the test command's run saw; runs counts its calls. */
static struct t_opts seen;
static int runs, seen_argc;
static const char *seen_iface;

static int t_run(struct cli_ctx *ctx)
{
	seen = *(struct t_opts *)ctx->opts;
	seen_argc = ctx->argc;
	seen_iface = ctx->iface;
	runs++;
	return EXIT_OK;
}

static const struct cli_cmd t_cmd = {
	.name = "t",
	.summary = "A test command.",
	.args = "IFACE [WORD]",
	.min_args = 1,
	.max_args = 2,
	.missing = "missing interface",
	.flags = CLI_IFACE,
	.opts = t_opt_table,
	.opts_size = sizeof(struct t_opts),
	.defaults = &t_defaults,
	.run = t_run,
};

/* Runs the test command on the words of line; its exit code. */
static int run(const char *line)
{
	static char buf[256];
	char *argv[16], *w, *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof(buf), "t %s", line);
	for (w = strtok_r(buf, " ", &save); w && argc < 15; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	memset(&seen, 0, sizeof(seen));
	runs = 0;
	seen_argc = -1;
	seen_iface = NULL;
	return cli_run(&t_cmd, argc, argv);
}

static void test_every_command_is_declared_consistently(void **state)
{
	char err[XRL_ERRLEN] = "";
	size_t i;

	(void)state;
	for (i = 0; cli_commands[i]; i++) {
		if (cli_check(cli_commands[i], err, sizeof(err)))
			fail_msg("%s", err);
	}
	assert_true(i >= 10);
	assert_int_equal(cli_check(&t_cmd, err, sizeof(err)), 0);
}

static void test_check_finds_mistakes(void **state)
{
	struct cli_opt bad[] = { CLI_OPT(struct t_opts, flag, "flag", UINT, .arg = "N", .min = 0, .max = 1,
					 .what = "a bit", .help = "a bool read as a __u32"),
				 {} };
	struct cli_opt twice[] = { t_opt_table[2], t_opt_table[2], {} };
	struct cli_opt common[] = { CLI_OPT(struct t_opts, flag, "json", FLAG, .help = "taken"), {} };
	struct cli_cmd c = t_cmd;
	char err[XRL_ERRLEN];

	(void)state;
	c.opts = bad;
	assert_int_equal(cli_check(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "wrong size"));
	c.opts = twice;
	assert_int_equal(cli_check(&c, err, sizeof(err)), -EINVAL);
	c.opts = common;
	assert_int_equal(cli_check(&c, err, sizeof(err)), -EINVAL);
	c.opts = t_opt_table;
	c.opts_size = offsetof(struct t_opts, name); /* --name's field outside the struct */
	assert_int_equal(cli_check(&c, err, sizeof(err)), -EINVAL);
	c.opts_size = sizeof(struct t_opts);
	c.max_args = 0; /* fewer than min_args */
	assert_int_equal(cli_check(&c, err, sizeof(err)), -EINVAL);
}

static void test_parse_each_type(void **state)
{
	(void)state;
	assert_int_equal(run("eth0 --count 42 --mode fast --flag --name x"), EXIT_OK);
	assert_int_equal(runs, 1);
	assert_string_equal(seen_iface, "eth0");
	assert_int_equal(seen_argc, 0);
	assert_int_equal(seen.count, 42);
	assert_true(seen.count_given);
	assert_int_equal(seen.mode, 2);
	assert_true(seen.flag);
	assert_string_equal(seen.name, "x");

	/* Defaults stay where nothing is given; options go anywhere; short names work. */
	assert_int_equal(run("--name y eth0 more"), EXIT_OK);
	assert_int_equal(seen.count, 7);
	assert_false(seen.count_given);
	assert_int_equal(seen.mode, 1);
	assert_false(seen.flag);
	assert_int_equal(seen_argc, 1);
	assert_int_equal(run("-c 3 -f eth0 --name z"), EXIT_OK);
	assert_int_equal(seen.count, 3);
	assert_true(seen.flag);
	assert_int_equal(run("-fc5 eth0 --name z"), EXIT_OK);
	assert_int_equal(seen.count, 5);
	assert_int_equal(run("--count=100 eth0 --name z"), EXIT_OK);
	assert_int_equal(seen.count, 100);
}

static void test_parse_refuses(void **state)
{
	static const char *const bad[] = {
		"eth0 --name x --count 0",	    /* below min */
		"eth0 --name x --count 101",	    /* above max */
		"eth0 --name x --count -1",	    /* a sign */
		"eth0 --name x --count +1",	    /* a sign */
		"eth0 --name x --count 1x",	    /* trailing junk */
		"eth0 --name x --count 4294967297", /* past 32 bits */
		"eth0 --name x --count x",	    /* not a number */
		"eth0 --name x --mode medium",	    /* not one of the names */
		"eth0 --name x --bogus",	    /* unknown */
		"eth0 --name x --count",	    /* no value */
		"eth0",				    /* required option missing */
		"--name x",			    /* the interface missing */
		"eth0 a b --name x",		    /* too many arguments */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (run(bad[i]) != EXIT_USAGE || runs)
			fail_msg("'%s' was not refused as a usage error", bad[i]);
	}
}

static void test_help_runs_nothing(void **state)
{
	(void)state;
	assert_int_equal(run("--help"), EXIT_OK);
	assert_int_equal(runs, 0);
	assert_int_equal(run("eth0 -h --count 0"), EXIT_OK);
	assert_int_equal(runs, 0);
}

static void test_find_by_prefix(void **state)
{
	(void)state;
	assert_ptr_equal(cli_find(cli_commands, "stats", "command"), &cmd_stats);
	assert_ptr_equal(cli_find(cli_commands, "statu", "command"), &cmd_status);
	assert_ptr_equal(cli_find(cli_commands, "ex", "command"), &cmd_explain);
	assert_null(cli_find(cli_commands, "sta", "command")); /* status or stats */
	assert_null(cli_find(cli_commands, "frobnicate", "command"));
}

/* A name is not a path: what the kernel would refuse as a device name is refused before any path is built. */
static void test_iface_names(void **state)
{
	static const char *const bad[] = {
		"",	".",	"..",  "../../../../tmp/victim", "a/b", "/", "abcdefghijklmnop", "a b", "a:b",
		"a\tb", "a\nb", "\x7f"
	};
	static const char *const good[] = { "eth0", "abcdefghijklmno", "veth-a.1", "...", ".a", "br_0@x" };
	char err[XRL_ERRLEN], dir[PATH_MAX], want[PATH_MAX];
	struct xrl_ifid id;
	__u64 cookie;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (xrl_iface_check(bad[i], err, sizeof(err)) != -EINVAL || !err[0])
			fail_msg("'%s' was accepted as an interface name", bad[i]);
		if (xrl_pin_dir(bad[i], dir, sizeof(dir), NULL, err, sizeof(err)) != -EINVAL)
			fail_msg("a pin folder was made of '%s'", bad[i]);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (xrl_iface_check(good[i], err, sizeof(err)))
			fail_msg("'%s' was refused: %s", good[i], err);
	/* lo is in every network namespace, always ifindex 1: the folder is named by the namespace and ifindex. */
	assert_int_equal(xrl_pin_dir("lo", dir, sizeof(dir), &id, err, sizeof(err)), 0);
	assert_int_equal(id.ifindex, 1);
	assert_int_equal(xrl_netns_cookie(&cookie), 0);
	assert_int_equal(id.netns, cookie);
	snprintf(want, sizeof(want), "%s/net%llu-if1", XRL_PIN_ROOT, (unsigned long long)cookie);
	assert_string_equal(dir, want);
	assert_int_equal(xrl_pin_dir("xrlnosuch0", dir, sizeof(dir), NULL, err, sizeof(err)), -ENODEV);
	assert_non_null(strstr(err, "no such interface 'xrlnosuch0' in this network namespace"));
	/* Through the parser: a usage error, and the command never runs. */
	assert_int_equal(run(".."), EXIT_USAGE);
	assert_int_equal(run("../../tmp/x"), EXIT_USAGE);
	assert_int_equal(runs, 0);
}

/* Instance folders: one spelling, parsed back to what named it. */
static void test_ifid_names(void **state)
{
	static const char *const bad[] = { "eth0",    "net1-if0",  "net01-if2", "net1-if2x",
					   "net-if2", "net1-if+2", "net1-if2/", "" };
	struct xrl_ifid id = { .netns = 4096, .ifindex = 7 }, back;
	char name[64];
	size_t i;

	(void)state;
	xrl_ifid_name(&id, name, sizeof(name));
	assert_string_equal(name, "net4096-if7");
	assert_int_equal(xrl_ifid_parse(name, &back), 0);
	assert_int_equal(back.netns, 4096);
	assert_int_equal(back.ifindex, 7);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!xrl_ifid_parse(bad[i], &back))
			fail_msg("'%s' was taken for an instance's folder", bad[i]);
}

/* Only what load pins is ours to remove. */
static void test_pins_ours(void **state)
{
	(void)state;
	assert_true(xrl_pin_is_ours("link"));
	assert_true(xrl_pin_is_ours("prog"));
	assert_true(xrl_pin_is_ours(XRL_MAP_CTL));
	assert_true(xrl_pin_is_ours(XRL_MAP_STATE));
	assert_false(xrl_pin_is_ours("foreign"));
	assert_false(xrl_pin_is_ours(".."));
	assert_false(xrl_pin_is_ours(""));
}

/* Every map load pins is one unload will remove: a map added to bpf/ without this would make unload refuse. */
static void test_pins_ours_cover_the_object(void **state)
{
	struct xdp_ratelimit_bpf *skel = xdp_ratelimit_bpf__open();
	struct bpf_map *map;
	int n = 0;

	(void)state;
	assert_non_null(skel);
	bpf_object__for_each_map(map, skel->obj)
	{
		if (bpf_map__is_internal(map))
			continue;
		if (!xrl_pin_is_ours(bpf_map__name(map)))
			fail_msg("load pins map '%s', which unload would not remove", bpf_map__name(map));
		n++;
	}
	assert_true(n >= 8);
	xdp_ratelimit_bpf__destroy(skel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_command_is_declared_consistently),
		cmocka_unit_test(test_check_finds_mistakes),
		cmocka_unit_test(test_parse_each_type),
		cmocka_unit_test(test_parse_refuses),
		cmocka_unit_test(test_help_runs_nothing),
		cmocka_unit_test(test_find_by_prefix),
		cmocka_unit_test(test_iface_names),
		cmocka_unit_test(test_pins_ours),
		cmocka_unit_test(test_pins_ours_cover_the_object),
		cmocka_unit_test(test_ifid_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
