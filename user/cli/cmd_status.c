// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* status: the instances the limiter runs, what each holds and what it costs a packet. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include "life/journal.h"
#include "read/cost.h"
#include "cli.h"
#include "render.h"
#include "read/status.h"
#include "codec/specialise.h"
#include "read/stats.h"

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

/* The instances, read once, and what each costs: what the text and the JSON printer show. */
struct status_report {
	struct xrl_status *st;
	size_t n;
	struct xrl_cost *cost; /* two a instance: before and after */
	__u32 secs;	       /* what the cost is measured over: 0, since the statistics were on */
};

static const char *status_mode(const struct xrl_status *s)
{
	return s->ctl.xdp_flags & XDP_FLAGS_SKB_MODE ? "generic" : "native";
}

static const char *status_state(const struct xrl_status *s)
{
	return s->gone ? "gone" : s->loading ? "loading" : s->err[0] ? "broken" : s->attached ? "attached" : "detached";
}

static json_t *status_one_json(const struct status_report *sr, size_t i)
{
	const struct xrl_status *s = &sr->st[i];
	json_t *o = json_pack("{s:s?,s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I}", "interface", s->iface[0] ? s->iface : NULL,
			      "state", status_state(s), "mode", status_mode(s), "clock", cli_clock_name(s->ctl.clock),
			      "prog_id", (json_int_t)s->prog_id, "rule_count", (json_int_t)s->rules, "keys_tracked",
			      (json_int_t)s->keys, "max_keys", (json_int_t)s->ctl.max_keys, "new_keys_per_second",
			      (json_int_t)s->ctl.new_keys, "memory_bytes", (json_int_t)s->memlock);

	json_object_set_new(o, "state_bytes", json_integer((json_int_t)s->state_memlock));
	json_object_set_new(o, "bytes_per_key",
			    json_integer(s->ctl.max_keys ? (json_int_t)(s->state_memlock / s->ctl.max_keys) : 0));
	/* Unknown for a broken instance: its control map could not be read (0 is no width). */
	json_object_set_new(o, "sketch_width",
			    s->ctl.sketch_width ? json_integer((json_int_t)s->ctl.sketch_width) : json_null());
	json_object_set_new(o, "sketch_bytes", json_integer((json_int_t)s->sketch_memlock));
	if (s->verified_insns)
		json_object_set_new(o, "verified_insns", json_integer((json_int_t)s->verified_insns));
	/* The longest window the rings hold; unknown for a broken instance. */
	json_object_set_new(o, "max_buckets", s->ctl.cells ? json_integer((json_int_t)s->ctl.cells - 1) : json_null());
	json_object_set_new(o, "max_prefixes",
			    s->max_prefixes ? json_integer((json_int_t)s->max_prefixes) : json_null());
	json_object_set_new(o, "prefixes", json_integer((json_int_t)s->prefixes));
	json_object_set_new(o, "malformed", json_string(xrl_mal_policy_name(s->ctl.malformed)));
	json_object_set_new(o, "ifindex", json_integer((json_int_t)s->id.ifindex));
	json_object_set_new(o, "netns_cookie", json_integer((json_int_t)s->id.netns));
	json_object_set_new(o, "this_netns", json_boolean(s->here));
	json_object_set_new(o, "pin_dir", json_string(s->dir));
	json_object_set_new(o, "replaced",
			    s->ctl.replaced_id ? json_pack("{s:I,s:s}", "prog_id", (json_int_t)s->ctl.replaced_id,
							   "name", s->ctl.replaced_name) :
						 json_null());
	json_object_set_new(o, "cost", cost_json(&sr->cost[2 * i], &sr->cost[2 * i + 1], sr->secs));
	json_object_set_new(o, "features", s->features_ok ? cli_features_json(s->features) : json_null());
	json_object_set_new(o, "then",
			    s->then_id ?
				    json_pack("{s:I,s:s}", "prog_id", (json_int_t)s->then_id, "name", s->then_name) :
				    json_null());
	json_object_set_new(o, "capture",
			    s->capture_pid ? json_pack("{s:I,s:I}", "pid", (json_int_t)s->capture_pid, "seconds",
						       (json_int_t)(s->capture_ns / 1000000000ULL)) :
					     json_null());
	if (s->err[0])
		json_object_set_new(o, "error", json_string(s->err));
	json_object_set_new(o, "global_rules", global_json(s));
	return o;
}

static void status_json(const struct status_report *sr)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < sr->n; i++)
		json_array_append_new(arr, status_one_json(sr, i));
	cli_json(json_pack("{s:o}", "interfaces", arr));
}

/* One instance in text: its line, then what it has besides. Whether the kernel counted its cost. */
static bool status_one_plain(const struct status_report *sr, size_t i)
{
	const struct xrl_status *s = &sr->st[i];
	const char *state = status_state(s);
	char name[48], keys[48], mem[24], sketch[24], feats[128];
	size_t g;

	/* Instances are keyed by namespace and ifindex: name the others by those. */
	if (s->iface[0])
		snprintf(name, sizeof(name), "%s", s->iface);
	else
		snprintf(name, sizeof(name), "if%u@net%llu", s->id.ifindex, (unsigned long long)s->id.netns);
	if (s->loading) {
		printf("%-16s %-8s a load or unload is under way: run status again in a moment\n", name, state);
		return false;
	}
	if (s->err[0]) {
		printf("%-16s %-8s %s\n", name, state, s->err);
		return false;
	}
	snprintf(keys, sizeof(keys), "%zu/%u", s->keys, s->ctl.max_keys);
	printf("%-16s %-8s %-8s %-8s %6u %10zu %16s %10s %6lluB %10u %10s %s\n", name, state, status_mode(s),
	       cli_clock_name(s->ctl.clock), s->prog_id, s->rules, keys, mem_str(mem, sizeof(mem), s->memlock),
	       (unsigned long long)(s->ctl.max_keys ? s->state_memlock / s->ctl.max_keys : 0), s->ctl.new_keys,
	       mem_str(sketch, sizeof(sketch), s->sketch_memlock), xrl_mal_policy_name(s->ctl.malformed));
	cost_text(&sr->cost[2 * i], &sr->cost[2 * i + 1], sr->secs);
	if (s->prefixes)
		printf("%-16s prefixes: %zu of %u (load --max-prefixes)\n", "", s->prefixes, s->max_prefixes);
	if (s->then_id)
		printf("%-16s then: passed frames go on to XDP program '%s' (id %u)\n", "", s->then_name, s->then_id);
	if (s->capture_pid)
		printf("%-16s capture: running for %llu s (pid %u)\n", "",
		       (unsigned long long)(s->capture_ns / 1000000000ULL), s->capture_pid);
	if (s->ctl.replaced_id)
		printf("%-16s load --force detached XDP program '%s' (id %u) from it\n", "", s->ctl.replaced_name,
		       s->ctl.replaced_id);
	for (g = 0; g < s->nglobal; g++) {
		char line[256], fl[256];

		xrl_spec_format(&s->global[g].spec, line, sizeof(line));
		cli_fleet_text(&s->global[g].spec, s->global[g].synced ? &s->global[g].f : NULL, fl, sizeof(fl));
		printf("  global %s\n    %s\n", line, fl);
	}
	/* Last: the lines above keep their places for scripts that read them. */
	if (s->features_ok)
		printf("%-16s carries: %s (the program judges these; the rest is left out of it)\n", "",
		       xrl_features_format(s->features, feats, sizeof(feats)));
	return sr->cost[2 * i + 1].on;
}

static void status_plain(const struct status_report *sr)
{
	bool counted = false;
	size_t i;

	if (!sr->n) {
		printf("xdp-ratelimit is not loaded on any interface: 'xdp-ratelimit load IFACE' attaches it\n");
		return;
	}
	printf("%-16s %-8s %-8s %-8s %6s %10s %16s %10s %7s %10s %10s %s\n", "interface", "state", "mode", "clock",
	       "prog", "rules", "keys", "memory", "per key", "new keys/s", "sketch", "malformed");
	for (i = 0; i < sr->n; i++)
		counted |= status_one_plain(sr, i);
	if (!counted)
		printf("run time a packet: not counted (kernel.bpf_stats_enabled is 0): 'xdp-ratelimit status --cost 5' "
		       "measures it for 5 s; 'sysctl -w kernel.bpf_stats_enabled=1' keeps it on (a few ns a packet)\n");
}

static int status_run(struct cli_ctx *ctx)
{
	struct status_opts *so = ctx->opts;
	struct status_report sr = { .secs = so->cost };
	char err[XRL_ERRLEN];
	int ret;

	if (xrl_check_env(err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	ret = xrl_status_list(&sr.st, &sr.n, xrl_recover);
	if (ret)
		return cli_fail(EXIT_FAIL, "cannot list %s: %s", XRL_PIN_ROOT, strerror(-ret));
	sr.cost = status_costs(sr.st, sr.n, so->cost);
	if (!sr.cost) {
		free(sr.st);
		return cli_fail(EXIT_FAIL, "cannot turn the kernel's BPF statistics on (BPF_ENABLE_STATS): %s",
				strerror(errno));
	}
	if (cli.json)
		status_json(&sr);
	else
		status_plain(&sr);
	free(sr.cost);
	free(sr.st);
	return EXIT_OK;
}

const struct cli_cmd cmd_status = {
	.name = "status",
	.summary = "Lists the interfaces the limiter is loaded on, with what each costs a packet.",
	.opts = status_opts,
	.opts_size = sizeof(struct status_opts),
	.run = status_run,
};
