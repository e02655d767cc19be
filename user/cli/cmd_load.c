// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* load and unload. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include "codec/chain.h"
#include "codec/match_maps.h"
#include "cli.h"
#include "render.h"
#include "life/loader.h"
#include "base/memory.h"
#include "read/stats.h"
#include "xrl_lpm.h"

struct load_opts {
	__u32 mode, clock, max_keys, new_keys, sketch_width, malformed, max_prefixes;
	bool force, mode_given, clock_given, max_keys_given, new_keys_given, sketch_width_given, malformed_given,
		max_prefixes_given;
	const char *config;
	const char *then;
	struct xrl_ruleset set; /* --config's */
};

static const struct cli_enum modes[] = { { "native", 0 }, { "generic", 1 }, { NULL, 0 } };
static const struct cli_enum clocks[] = { { "precise", XRL_CLOCK_PRECISE },
					  { "coarse", XRL_CLOCK_COARSE },
					  { NULL, 0 } };
static const struct cli_enum malformed[] = { { "pass", XRL_MALPOL_PASS },
					     { "drop", XRL_MALPOL_DROP },
					     { "drop-evasive", XRL_MALPOL_EVASIVE },
					     { NULL, 0 } };

static const struct cli_opt load_opts[] = {
	CLI_OPT(struct load_opts, mode, "mode", ENUM, .short_name = 'm', .values = modes, .what = "a mode",
		CLI_GIVEN(struct load_opts, mode_given),
		.help = "native (driver, default) or generic (any interface, slower)"),
	CLI_OPT(struct load_opts, clock, "clock", ENUM, .short_name = 'c', .values = clocks, .what = "a clock",
		CLI_GIVEN(struct load_opts, clock_given),
		.help = "precise (bpf_ktime_get_ns, default) or coarse (bpf_ktime_get_coarse_ns, cheaper)"),
	CLI_OPT(struct load_opts, max_keys, "max-keys", UINT, .short_name = 'k', .arg = "N", .min = XRL_KEYS_MIN,
		.max = XRL_KEYS_MAX, .what = "a key count", CLI_GIVEN(struct load_opts, max_keys_given),
		.help = "window states kept (rule x source), LRU-evicted beyond; default 65536"),
	CLI_OPT(struct load_opts, new_keys, "new-keys", UINT, .short_name = 'n', .arg = "N", .min = 0,
		.max = XRL_NEW_KEYS_MAX, .what = "a count of new sources per second",
		CLI_GIVEN(struct load_opts, new_keys_given),
		.help = "per-source states created per second at most (default: --max-keys; 0: no cap);\n"
			"new sources past it are judged by the sketch, near their own limits"),
	CLI_OPT(struct load_opts, sketch_width, "sketch-width", UINT, .short_name = 'w', .arg = "N",
		.min = XRL_SKETCH_MIN_WIDTH, .max = XRL_SKETCH_MAX_WIDTH, .what = "a sketch width",
		CLI_GIVEN(struct load_opts, sketch_width_given),
		.help = "columns of the sketch that judges new sources past --new-keys, a power of 2\n"
			"(default 65536: 2 rows of it, 2 MiB; a newcomer stays fair while new sources a\n"
			"second stay well under width x limit per second)"),
	CLI_OPT(struct load_opts, max_prefixes, "max-prefixes", UINT, .short_name = 'P', .arg = "N",
		.min = XRL_PREFIXES_MIN, .max = XRL_PREFIXES_MAX, .what = "a prefix count",
		CLI_GIVEN(struct load_opts, max_prefixes_given),
		.help = "prefixes the prefix and dst rules may hold, their sets' included (a set's\n"
			"counted for each rule that uses it); default 65536. Sizes their lookup for\n"
			"the worst case: 'xdp-ratelimit memory --prefixes N' shows the bytes"),
	CLI_OPT(struct load_opts, malformed, "malformed", ENUM, .short_name = 'M', .values = malformed,
		.what = "a policy", CLI_GIVEN(struct load_opts, malformed_given),
		.help = "frames too short or inconsistent to parse: drop-evasive (default) drops those\n"
			"a host accepts but no rule can judge (tiny first fragments, IPv6 header chains too\n"
			"long to follow, three VLAN tags or more) and passes those the host drops itself;\n"
			"drop drops them all; pass passes them all, so crafted frames evade every rule"),
	CLI_OPT(struct load_opts, force, "force", FLAG, .short_name = 'f',
		.help = "replace another XDP program attached to IFACE"),
	CLI_OPT(struct load_opts, then, "then", STRING, .short_name = 't', .arg = "PROG",
		.help = "frames the limiter passes go on to XDP program PROG (its id, or its pin under\n"
			"/sys/fs/bpf/), through a tail call: its verdict is theirs; 'chain' changes it later"),
	CLI_OPT(struct load_opts, config, "config", STRING, .short_name = 'C', .arg = "FILE",
		.help = "then apply FILE's rules: a file 'save' wrote; its load line gives the options\n"
			"not given here. A bad file loads nothing"),
	{},
};

/*
 * --config: the whole file is read and checked before anything is attached;
 * its load line gives what the command line does not.
 */
static int load_prepare(struct cli_ctx *ctx)
{
	struct load_opts *lo = ctx->opts;
	const struct xrl_load_line *l = &lo->set.load;
	char err[XRL_ERRLEN + 64];
	FILE *f;
	int ret;

	if (!lo->config)
		return EXIT_OK;
	f = strcmp(lo->config, "-") ? fopen(lo->config, "r") : stdin;
	if (!f)
		return cli_fail(EXIT_USAGE, "cannot read configuration '%s': %s; nothing was loaded", lo->config,
				strerror(errno));
	ret = xrl_ruleset_parse(f, f == stdin ? "<stdin>" : lo->config, &lo->set, err, sizeof(err));
	if (f != stdin)
		fclose(f);
	if (ret)
		return cli_fail(EXIT_USAGE, "%s; nothing was loaded", err);
	if (xrl_ruleset_not_judged_yet(&lo->set, err, sizeof(err)) || xrl_match_check(&lo->set, err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s: %s; nothing was loaded", lo->config, err);
	if (!lo->mode_given && l->set & XRL_LOAD_MODE) {
		lo->mode = l->generic;
		lo->mode_given = true;
	}
	if (!lo->clock_given && l->set & XRL_LOAD_CLOCK) {
		lo->clock = l->clock;
		lo->clock_given = true;
	}
	if (!lo->max_keys_given && l->set & XRL_LOAD_MAX_KEYS) {
		lo->max_keys = l->max_keys;
		lo->max_keys_given = true;
	}
	if (!lo->new_keys_given && l->set & XRL_LOAD_NEW_KEYS) {
		lo->new_keys = l->new_keys;
		lo->new_keys_given = true;
	}
	if (!lo->sketch_width_given && l->set & XRL_LOAD_SKETCH_WIDTH) {
		lo->sketch_width = l->sketch_width;
		lo->sketch_width_given = true;
	}
	if (!lo->malformed_given && l->set & XRL_LOAD_MALFORMED) {
		lo->malformed = l->malformed;
		lo->malformed_given = true;
	}
	if (!lo->max_prefixes_given && l->set & XRL_LOAD_MAX_PREFIXES) {
		lo->max_prefixes = l->max_prefixes;
		lo->max_prefixes_given = true;
	}
	return EXIT_OK;
}

/* What load did, in JSON and in text. */
static void load_json(const struct load_opts *lo, const struct xrl_load_opts *o)
{
	json_t *j = json_pack("{s:s,s:b,s:s,s:s,s:I,s:I,s:I,s:s}", "interface", o->iface, "replaced", o->replaced,
			      "mode", o->generic ? "generic" : "native", "clock", cli_clock_name(o->clock), "max_keys",
			      (json_int_t)o->max_keys, "new_keys_per_second", (json_int_t)o->new_keys, "sketch_width",
			      (json_int_t)o->sketch_width, "malformed", xrl_mal_policy_name(o->malformed));

	json_object_set_new(j, "features", cli_features_json(o->features));
	if (o->features_note[0])
		json_object_set_new(j, "features_note", json_string(o->features_note));
	if (o->recovered[0])
		json_object_set_new(j, "recovered", json_string(o->recovered));
	json_object_set_new(j, "max_prefixes", json_integer((json_int_t)o->max_prefixes));
	if (o->replaced)
		json_object_set_new(j, "previous_layout", json_integer(o->old_layout));
	if (lo->config) {
		json_object_set_new(j, "config", json_string(lo->config));
		json_object_set_new(j, "rule_count", json_integer((json_int_t)lo->set.n));
	}
	cli_json(j);
}

static void load_plain(const struct load_opts *lo, const struct xrl_load_opts *o)
{
	if (o->replaced) {
		printf("replaced the program on %s in place (%s mode, %s clock, %u keys, malformed %s): no moment without a program; rules, windows and counters carried over",
		       o->iface, o->generic ? "generic" : "native", cli_clock_name(o->clock), o->max_keys,
		       xrl_mal_policy_name(o->malformed));
		if (o->old_layout != XRL_LAYOUT_VERSION)
			printf(" from map layout %u to %u", o->old_layout, XRL_LAYOUT_VERSION);
		if (lo->config)
			printf("; %s: %zu rule%s in force", lo->config, lo->set.n, lo->set.n == 1 ? "" : "s");
		printf("\n");
		if (o->recovered[0])
			fprintf(stderr, "xdp-ratelimit: note: %s\n", o->recovered);
		if (o->features_note[0])
			fprintf(stderr, "xdp-ratelimit: note: %s\n", o->features_note);
	} else if (lo->config) {
		printf("loaded on %s (%s mode, %s clock, %u keys) with %s: %zu rule%s in force\n", o->iface,
		       o->generic ? "generic" : "native", cli_clock_name(o->clock), o->max_keys, lo->config, lo->set.n,
		       lo->set.n == 1 ? "" : "s");
	} else {
		printf("loaded on %s (%s mode, %s clock, %u keys); no rules yet: add some with 'xdp-ratelimit rule add %s ...' or 'xdp-ratelimit apply %s FILE'\n",
		       o->iface, o->generic ? "generic" : "native", cli_clock_name(o->clock), o->max_keys, o->iface,
		       o->iface);
	}
}

static int load_run(struct cli_ctx *ctx)
{
	struct load_opts *lo = ctx->opts;
	struct xrl_load_opts o = {
		.iface = ctx->iface,
		.generic = lo->mode,
		.clock = lo->clock,
		.max_keys = lo->max_keys,
		/* By default the table may turn over once a second at most. */
		.new_keys = lo->new_keys_given ? lo->new_keys : lo->max_keys,
		.sketch_width = lo->sketch_width,
		.malformed = lo->malformed,
		.max_prefixes = lo->max_prefixes,
		.force = lo->force,
		.rules = lo->config ? &lo->set : NULL,
		.then = lo->then,
		.given = (lo->mode_given ? XRL_LOAD_MODE : 0) | (lo->clock_given ? XRL_LOAD_CLOCK : 0) |
			 (lo->max_keys_given ? XRL_LOAD_MAX_KEYS : 0) | (lo->new_keys_given ? XRL_LOAD_NEW_KEYS : 0) |
			 (lo->sketch_width_given ? XRL_LOAD_SKETCH_WIDTH : 0) |
			 (lo->malformed_given ? XRL_LOAD_MALFORMED : 0) |
			 (lo->max_prefixes_given ? XRL_LOAD_MAX_PREFIXES : 0),
	};
	char err[XRL_ERRLEN];
	int ret;

	if (xrl_sketch_width_check(o.sketch_width, err, sizeof(err)))
		return cli_usage(ctx->cmd, "%s", err);
	if (lo->then) {
		int fd = xrl_chain_open(lo->then, err, sizeof(err));

		if (fd < 0)
			return cli_fail(fd == -EINVAL ? EXIT_USAGE : EXIT_FAIL, "--then: %s; nothing was loaded", err);
		close(fd);
	}
	ret = xrl_load(&o, err, sizeof(err));
	if (ret == -ELOOP && lo->then)
		return cli_fail(EXIT_FAIL, "--then: %s; nothing was changed", err);
	if (ret)
		return lo->config ? cli_fail(EXIT_FAIL, "%s: %s; nothing was loaded", lo->config, err) :
				    cli_fail(EXIT_FAIL, "%s", err);
	if (cli.json)
		load_json(lo, &o);
	else
		load_plain(lo, &o);
	return EXIT_OK;
}

/* The configuration load_prepare read, whatever happened after. */
static void load_done(struct cli_ctx *ctx)
{
	struct load_opts *lo = ctx->opts;

	xrl_ruleset_free(&lo->set);
}

static const struct load_opts load_defaults = { .clock = XRL_CLOCK_PRECISE,
						.malformed = XRL_MALPOL_EVASIVE,
						.max_keys = XRL_DEFAULT_KEYS,
						.sketch_width = XRL_SKETCH_DEFAULT_WIDTH,
						.max_prefixes = XRL_PREFIXES_DEFAULT };

const struct cli_cmd cmd_load = {
	.name = "load",
	.summary =
		"Attaches the limiter to IFACE and pins its maps under /sys/fs/bpf/xdp-ratelimit/net<netns>-if<ifindex>/,\n"
		"then exits: enforcement goes on with no process running. Starts with no rules, or with --config's.",
	CLI_ONE_IFACE(CLI_IFACE),
	.opts = load_opts,
	.opts_size = sizeof(struct load_opts),
	.defaults = &load_defaults,
	.prepare = load_prepare,
	.run = load_run,
	.done = load_done,
};

static int unload_run(struct cli_ctx *ctx)
{
	char err[XRL_ERRLEN];

	if (xrl_unload(ctx->iface, err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	if (cli.json)
		cli_json(json_pack("{s:s,s:b}", "interface", ctx->iface, "unloaded", 1));
	else
		printf("unloaded from %s\n", ctx->iface);
	return EXIT_OK;
}

const struct cli_cmd cmd_unload = {
	.name = "unload",
	.summary = "Detaches the limiter from IFACE and removes everything load pinned.",
	CLI_ONE_IFACE(CLI_IFACE),
	.run = unload_run,
};
