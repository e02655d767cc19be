// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* load, unload, status. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include "rules_read.h"
#include "chain.h"
#include "cost.h"
#include "cli.h"
#include "render.h"
#include "loader.h"
#include "status.h"
#include "memory.h"
#include "specialise.h"
#include "stats.h"
#include "xrl_lpm.h"

static const char *clock_name(__u32 c)
{
	return c == XRL_CLOCK_COARSE ? "coarse" : c == XRL_CLOCK_TEST ? "test" : "precise";
}

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
	if (cli.json) {
		json_t *j = json_pack("{s:s,s:b,s:s,s:s,s:I,s:I,s:I,s:s}", "interface", o.iface, "replaced", o.replaced,
				      "mode", o.generic ? "generic" : "native", "clock", clock_name(o.clock),
				      "max_keys", (json_int_t)o.max_keys, "new_keys_per_second", (json_int_t)o.new_keys,
				      "sketch_width", (json_int_t)o.sketch_width, "malformed",
				      xrl_mal_policy_name(o.malformed));

		json_object_set_new(j, "features", cli_features_json(o.features));
		if (o.features_note[0])
			json_object_set_new(j, "features_note", json_string(o.features_note));
		if (o.recovered[0])
			json_object_set_new(j, "recovered", json_string(o.recovered));
		json_object_set_new(j, "max_prefixes", json_integer((json_int_t)o.max_prefixes));
		if (o.replaced)
			json_object_set_new(j, "previous_layout", json_integer(o.old_layout));
		if (lo->config) {
			json_object_set_new(j, "config", json_string(lo->config));
			json_object_set_new(j, "rule_count", json_integer((json_int_t)lo->set.n));
		}
		cli_json(j);
	} else if (o.replaced) {
		printf("replaced the program on %s in place (%s mode, %s clock, %u keys, malformed %s): no moment without a program; rules, windows and counters carried over",
		       o.iface, o.generic ? "generic" : "native", clock_name(o.clock), o.max_keys,
		       xrl_mal_policy_name(o.malformed));
		if (o.old_layout != XRL_LAYOUT_VERSION)
			printf(" from map layout %u to %u", o.old_layout, XRL_LAYOUT_VERSION);
		if (lo->config)
			printf("; %s: %zu rule%s in force", lo->config, lo->set.n, lo->set.n == 1 ? "" : "s");
		printf("\n");
		if (o.recovered[0])
			fprintf(stderr, "xdp-ratelimit: note: %s\n", o.recovered);
		if (o.features_note[0])
			fprintf(stderr, "xdp-ratelimit: note: %s\n", o.features_note);
	} else if (lo->config) {
		printf("loaded on %s (%s mode, %s clock, %u keys) with %s: %zu rule%s in force\n", o.iface,
		       o.generic ? "generic" : "native", clock_name(o.clock), o.max_keys, lo->config, lo->set.n,
		       lo->set.n == 1 ? "" : "s");
	} else {
		printf("loaded on %s (%s mode, %s clock, %u keys); no rules yet: add some with 'xdp-ratelimit rule add %s ...' or 'xdp-ratelimit apply %s FILE'\n",
		       o.iface, o.generic ? "generic" : "native", clock_name(o.clock), o.max_keys, o.iface, o.iface);
	}
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

/* An instance's global rules, each with its fleet view. */
static json_t *global_json(const struct xrl_status *st)
{
	json_t *arr = json_array();
	size_t g;

	for (g = 0; g < st->nglobal; g++) {
		const struct xrl_status_global *x = &st->global[g];
		json_t *o = cli_rule_json(&x->spec);

		json_object_set_new(o, "fleet", cli_fleet_json(&x->spec, x->synced ? &x->f : NULL));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* A size as status shows it: in MiB, KiB or bytes, whichever keeps a figure worth reading. */
static const char *mem_str(char *buf, size_t len, __u64 bytes)
{
	if (bytes >= 1024 * 1024)
		snprintf(buf, len, "%.1fMiB", (double)bytes / (1024.0 * 1024.0));
	else if (bytes >= 1024)
		snprintf(buf, len, "%.1fKiB", (double)bytes / 1024.0);
	else
		snprintf(buf, len, "%lluB", (unsigned long long)bytes);
	return buf;
}

struct status_opts {
	__u32 cost; /* seconds to measure the run time over; 0: as the kernel has it */
};

static const struct cli_opt status_opts[] = {
	CLI_OPT(struct status_opts, cost, "cost", UINT, .arg = "SECONDS", .min = 1, .max = 3600,
		.what = "a number of seconds",
		.help = "measure each program's run time a packet and its packets a second over\n"
			"SECONDS, with the kernel's BPF statistics on for that long"),
	{},
};

/* Each instance's cost: over secs with the statistics on, or (secs 0) as the kernel has it. */
static struct xrl_cost *status_costs(const struct xrl_status *st, size_t n, __u32 secs)
{
	struct xrl_cost *c = calloc(2 * (n ? n : 1), sizeof(*c));
	size_t i;
	int fd = -1;

	if (!c)
		return NULL;
	if (secs) {
		fd = xrl_cost_enable();
		if (fd < 0) {
			free(c);
			return NULL;
		}
	}
	for (i = 0; i < n; i++)
		xrl_cost_read(st[i].prog_id, &c[2 * i]);
	if (secs) {
		sleep(secs);
		for (i = 0; i < n; i++) {
			xrl_cost_read(st[i].prog_id, &c[2 * i + 1]);
			c[2 * i + 1].on = true;
		}
		close(fd);
	} else {
		for (i = 0; i < n; i++) { /* since the statistics were first on */
			c[2 * i + 1] = c[2 * i];
			c[2 * i] = (struct xrl_cost){};
		}
	}
	return c;
}

static json_t *cost_json(const struct xrl_cost *a, const struct xrl_cost *b, __u32 secs)
{
	__u64 runs = b->runs - a->runs;

	return json_pack("{s:b,s:o,s:I,s:o,s:o}", "stats_on", b->on, "ns_per_packet",
			 runs ? json_real(xrl_cost_ns_per_run(a, b)) : json_null(), "packets", (json_int_t)runs,
			 "seconds", secs ? json_integer(secs) : json_null(), "packets_per_second",
			 secs ? json_real((double)runs / secs) : json_null());
}

static void cost_text(const struct xrl_cost *a, const struct xrl_cost *b, __u32 secs)
{
	__u64 runs = b->runs - a->runs;

	if (secs)
		printf("%-16s cost: %.0f ns a packet, %.0f packets a second over %u s (kernel statistics)\n", "",
		       xrl_cost_ns_per_run(a, b), (double)runs / secs, secs);
	else if (runs)
		printf("%-16s cost: %.0f ns a packet over the %llu packets since the kernel's statistics were on\n", "",
		       xrl_cost_ns_per_run(a, b), (unsigned long long)runs);
}

static int status_run(struct cli_ctx *ctx)
{
	struct status_opts *so = ctx->opts;
	struct xrl_status *st;
	struct xrl_cost *cost;
	json_t *arr;
	size_t n, i, g;
	char err[XRL_ERRLEN], keys[48], mem[24], sketch[24], feats[128];
	bool counted = false;
	int ret;

	if (xrl_check_env(err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	ret = xrl_status_list(&st, &n);
	if (ret)
		return cli_fail(EXIT_FAIL, "cannot list %s: %s", XRL_PIN_ROOT, strerror(-ret));
	cost = status_costs(st, n, so->cost);
	if (!cost) {
		free(st);
		return cli_fail(EXIT_FAIL, "cannot turn the kernel's BPF statistics on (BPF_ENABLE_STATS): %s",
				strerror(errno));
	}
	arr = json_array();
	if (!cli.json && !n)
		printf("xdp-ratelimit is not loaded on any interface: 'xdp-ratelimit load IFACE' attaches it\n");
	if (!cli.json && n)
		printf("%-16s %-8s %-8s %-8s %6s %10s %16s %10s %7s %10s %10s %s\n", "interface", "state", "mode",
		       "clock", "prog", "rules", "keys", "memory", "per key", "new keys/s", "sketch", "malformed");
	for (i = 0; i < n; i++) {
		const char *mode = st[i].ctl.xdp_flags & XDP_FLAGS_SKB_MODE ? "generic" : "native";
		const char *state = st[i].gone	   ? "gone" :
				    st[i].loading  ? "loading" :
				    st[i].err[0]   ? "broken" :
				    st[i].attached ? "attached" :
						     "detached";
		char name[48];

		/* Instances are keyed by namespace and ifindex: name the others by those. */
		if (st[i].iface[0])
			snprintf(name, sizeof(name), "%s", st[i].iface);
		else
			snprintf(name, sizeof(name), "if%u@net%llu", st[i].id.ifindex,
				 (unsigned long long)st[i].id.netns);

		if (cli.json) {
			json_t *o =
				json_pack("{s:s?,s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I}", "interface",
					  st[i].iface[0] ? st[i].iface : NULL, "state", state, "mode", mode, "clock",
					  clock_name(st[i].ctl.clock), "prog_id", (json_int_t)st[i].prog_id,
					  "rule_count", (json_int_t)st[i].rules, "keys_tracked", (json_int_t)st[i].keys,
					  "max_keys", (json_int_t)st[i].ctl.max_keys, "new_keys_per_second",
					  (json_int_t)st[i].ctl.new_keys, "memory_bytes", (json_int_t)st[i].memlock);

			json_object_set_new(o, "state_bytes", json_integer((json_int_t)st[i].state_memlock));
			json_object_set_new(o, "bytes_per_key",
					    json_integer(st[i].ctl.max_keys ? (json_int_t)(st[i].state_memlock /
											   st[i].ctl.max_keys) :
									      0));
			/* Unknown for a broken instance: its control map could not be read (0 is no width). */
			json_object_set_new(o, "sketch_width",
					    st[i].ctl.sketch_width ? json_integer((json_int_t)st[i].ctl.sketch_width) :
								     json_null());
			json_object_set_new(o, "sketch_bytes", json_integer((json_int_t)st[i].sketch_memlock));
			if (st[i].verified_insns)
				json_object_set_new(o, "verified_insns",
						    json_integer((json_int_t)st[i].verified_insns));
			/* The longest window the rings hold; unknown for a broken instance. */
			json_object_set_new(o, "max_buckets",
					    st[i].ctl.cells ? json_integer((json_int_t)st[i].ctl.cells - 1) :
							      json_null());
			json_object_set_new(o, "max_prefixes",
					    st[i].max_prefixes ? json_integer((json_int_t)st[i].max_prefixes) :
								 json_null());
			json_object_set_new(o, "prefixes", json_integer((json_int_t)st[i].prefixes));
			json_object_set_new(o, "malformed", json_string(xrl_mal_policy_name(st[i].ctl.malformed)));
			json_object_set_new(o, "ifindex", json_integer((json_int_t)st[i].id.ifindex));
			json_object_set_new(o, "netns_cookie", json_integer((json_int_t)st[i].id.netns));
			json_object_set_new(o, "this_netns", json_boolean(st[i].here));
			json_object_set_new(o, "pin_dir", json_string(st[i].dir));
			json_object_set_new(o, "replaced",
					    st[i].ctl.replaced_id ?
						    json_pack("{s:I,s:s}", "prog_id", (json_int_t)st[i].ctl.replaced_id,
							      "name", st[i].ctl.replaced_name) :
						    json_null());
			json_object_set_new(o, "cost", cost_json(&cost[2 * i], &cost[2 * i + 1], so->cost));
			json_object_set_new(o, "features",
					    st[i].features_ok ? cli_features_json(st[i].features) : json_null());
			json_object_set_new(o, "then",
					    st[i].then_id ? json_pack("{s:I,s:s}", "prog_id", (json_int_t)st[i].then_id,
								      "name", st[i].then_name) :
							    json_null());
			json_object_set_new(o, "capture",
					    st[i].capture_pid ?
						    json_pack("{s:I,s:I}", "pid", (json_int_t)st[i].capture_pid,
							      "seconds",
							      (json_int_t)(st[i].capture_ns / 1000000000ULL)) :
						    json_null());
			if (st[i].err[0])
				json_object_set_new(o, "error", json_string(st[i].err));
			json_object_set_new(o, "global_rules", global_json(&st[i]));
			json_array_append_new(arr, o);
			continue;
		}
		if (st[i].loading) {
			printf("%-16s %-8s a load or unload is under way: run status again in a moment\n", name, state);
			continue;
		}
		if (st[i].err[0]) {
			printf("%-16s %-8s %s\n", name, state, st[i].err);
			continue;
		}
		snprintf(keys, sizeof(keys), "%zu/%u", st[i].keys, st[i].ctl.max_keys);
		printf("%-16s %-8s %-8s %-8s %6u %10zu %16s %10s %6lluB %10u %10s %s\n", name, state, mode,
		       clock_name(st[i].ctl.clock), st[i].prog_id, st[i].rules, keys,
		       mem_str(mem, sizeof(mem), st[i].memlock),
		       (unsigned long long)(st[i].ctl.max_keys ? st[i].state_memlock / st[i].ctl.max_keys : 0),
		       st[i].ctl.new_keys, mem_str(sketch, sizeof(sketch), st[i].sketch_memlock),
		       xrl_mal_policy_name(st[i].ctl.malformed));
		cost_text(&cost[2 * i], &cost[2 * i + 1], so->cost);
		counted |= cost[2 * i + 1].on;
		if (st[i].prefixes)
			printf("%-16s prefixes: %zu of %u (load --max-prefixes)\n", "", st[i].prefixes,
			       st[i].max_prefixes);
		if (st[i].then_id)
			printf("%-16s then: passed frames go on to XDP program '%s' (id %u)\n", "", st[i].then_name,
			       st[i].then_id);
		if (st[i].capture_pid)
			printf("%-16s capture: running for %llu s (pid %u)\n", "",
			       (unsigned long long)(st[i].capture_ns / 1000000000ULL), st[i].capture_pid);
		if (st[i].ctl.replaced_id)
			printf("%-16s load --force detached XDP program '%s' (id %u) from it\n", "",
			       st[i].ctl.replaced_name, st[i].ctl.replaced_id);
		for (g = 0; g < st[i].nglobal; g++) {
			char line[256], fl[256];

			xrl_spec_format(&st[i].global[g].spec, line, sizeof(line));
			cli_fleet_text(&st[i].global[g].spec, st[i].global[g].synced ? &st[i].global[g].f : NULL, fl,
				       sizeof(fl));
			printf("  global %s\n    %s\n", line, fl);
		}
		/* Last: the lines above keep their places for scripts that read them. */
		if (st[i].features_ok)
			printf("%-16s carries: %s (the program judges these; the rest is left out of it)\n", "",
			       xrl_features_format(st[i].features, feats, sizeof(feats)));
	}
	if (!cli.json && n && !counted)
		printf("run time a packet: not counted (kernel.bpf_stats_enabled is 0): 'xdp-ratelimit status --cost 5' "
		       "measures it for 5 s; 'sysctl -w kernel.bpf_stats_enabled=1' keeps it on (a few ns a packet)\n");
	if (cli.json)
		cli_json(json_pack("{s:o}", "interfaces", arr));
	else
		json_decref(arr);
	free(cost);
	free(st);
	return EXIT_OK;
}

const struct cli_cmd cmd_status = {
	.name = "status",
	.summary = "Lists the interfaces the limiter is loaded on, with what each costs a packet.",
	.opts = status_opts,
	.opts_size = sizeof(struct status_opts),
	.run = status_run,
};
