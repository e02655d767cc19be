// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* stats: the figures, from the aggregated per-CPU windows. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "codec/rules_read.h"
#include "cli.h"
#include "render.h"
#include "read/stats.h"
#include "read/fleet.h"

/* A key's source as its rule counts it: the masked prefix (fd00:201::/64), a bare address when unmasked. */
static void key_source(const struct xrl_key *k, const struct xrl_rule *r, char *buf, size_t len)
{
	unsigned int mask = k->family == XRL_FAMILY_V4 ? r->src_mask4 : r->src_mask6;
	size_t n;

	if (!k->family) {
		snprintf(buf, len, "(all sources)");
		return;
	}
	xrl_format_addr(k->family, k->addr, buf, len);
	n = strlen(buf);
	if (mask < (k->family == XRL_FAMILY_V4 ? 32U : 128U) && n < len)
		snprintf(buf + n, len - n, "/%u", mask);
}

/* A rate over the last whole interval in JSON: null before one has ended. */
static json_t *rate_json(__u64 span_ns, double rate)
{
	return span_ns ? json_real(rate) : json_null();
}

/* An interface's figures, read once: what the text and the JSON printer show. */
struct stats_report {
	const char *iface;
	struct xrl_ruleset set;
	struct xrl_counters c;
	__u64 malformed; /* every reason's, summed */
	struct stats_rule {
		const struct xrl_spec *s;
		struct xrl_rule_report r;
		struct xrl_fleet f;
		bool has_fleet;
	} * rules; /* those whose windows could be read, in the set's order */
	size_t nrules;
	size_t top; /* keys asked for: 0, none */
	struct xrl_key_report *keys;
	size_t nkeys, tracked;
};

static void stats_free(struct stats_report *sr)
{
	free(sr->rules);
	free(sr->keys);
	xrl_ruleset_free(&sr->set);
}

static int stats_read(const char *iface, const struct xrl_maps *m, size_t top, struct stats_report *sr)
{
	struct xrl_ctl ctl;
	__u64 now;
	size_t i;
	int ret;

	*sr = (struct stats_report){ .iface = iface, .top = top };
	ret = xrl_ctl_read(m, &ctl);
	if (!ret)
		ret = xrl_rules_read(m, &sr->set);
	if (!ret)
		ret = xrl_counters_read(m, &sr->c);
	if (!ret && top) {
		sr->keys = calloc(top, sizeof(*sr->keys));
		ret = sr->keys ? 0 : -ENOMEM;
	}
	if (!ret && sr->set.n) {
		sr->rules = calloc(sr->set.n, sizeof(*sr->rules));
		ret = sr->rules ? 0 : -ENOMEM;
	}
	/* Read the clock last: every bucket then lies in its past. */
	if (!ret)
		ret = xrl_clock_now(ctl.clock, &now);
	if (!ret && top)
		ret = xrl_top_keys(m, &sr->set, now, top, sr->keys, &sr->nkeys, &sr->tracked);
	if (ret)
		return ret;
	for (i = 0; i < XRL_MAL_MAX; i++)
		sr->malformed += sr->c.malformed[i];
	for (i = 0; i < sr->set.n; i++) {
		struct stats_rule *x = &sr->rules[sr->nrules];

		if (xrl_rule_report(m, &sr->set.v[i], now, &x->r))
			continue;
		x->s = &sr->set.v[i];
		x->has_fleet = !xrl_fleet_read(m, x->s, &x->f);
		sr->nrules++;
	}
	return 0;
}

/* A top key's source and port as stats shows them, and its rule's match. */
static void key_words(const struct stats_report *sr, size_t i, char *src, size_t slen, char *port, size_t plen,
		      char *match, size_t mlen)
{
	const struct xrl_key *k = &sr->keys[i].key;

	key_source(k, &sr->set.v[sr->keys[i].rule].r, src, slen);
	snprintf(port, plen, "-");
	if (k->port)
		snprintf(port, plen, "%u/%s", k->port, xrl_proto_name(k->proto));
	xrl_spec_format_match(&sr->set.v[sr->keys[i].rule], match, mlen);
}

static void stats_plain(const struct stats_report *sr)
{
	const struct xrl_counters *c = &sr->c;
	char line[256], src[64], port[16];
	size_t i;

	printf("%s: seen %llu  passed %llu  dropped %llu  (no rule %llu, allowed %llu, monitored %llu, non-IP %llu, malformed %llu)\n",
	       sr->iface, (unsigned long long)c->seen, (unsigned long long)c->passed, (unsigned long long)c->dropped,
	       (unsigned long long)c->no_rule, (unsigned long long)c->allowed, (unsigned long long)c->monitored,
	       (unsigned long long)c->non_ip, (unsigned long long)sr->malformed);
	if (c->keys_new || c->sketch_judged || c->keys_failed)
		printf("keys: %llu created, %llu failed; new sources past the cap: %llu judged by the sketch, %llu blocked there\n",
		       (unsigned long long)c->keys_new, (unsigned long long)c->keys_failed,
		       (unsigned long long)c->sketch_judged, (unsigned long long)c->sketch_blocked);
	printf("%-60s %9s %9s %9s %9s %12s %12s\n", "rule", "pass/s", "block/s", "qps pass", "qps block", "passed",
	       "blocked");
	for (i = 0; i < sr->nrules; i++) {
		const struct stats_rule *x = &sr->rules[i];
		const struct xrl_rule_report *r = &x->r;

		xrl_spec_format(x->s, line, sizeof(line));
		if (r->last_ns)
			printf("%-60s %9.1f %9.1f %9.1f %9.1f %12llu %12llu\n", line, r->pass_rate, r->block_rate,
			       r->pass_qps, r->block_qps, (unsigned long long)r->pass, (unsigned long long)r->block);
		else
			printf("%-60s %9s %9s %9.1f %9.1f %12llu %12llu\n", line, "-", "-", r->pass_qps, r->block_qps,
			       (unsigned long long)r->pass, (unsigned long long)r->block);
		if (x->s->r.flags & XRL_F_GLOBAL) {
			cli_fleet_text(x->s, x->has_fleet ? &x->f : NULL, line, sizeof(line));
			printf("  %s\n", line);
		}
		if (x->s->r.byte_unit || x->s->nw)
			printf("  bytes: %llu passed, %llu blocked (frame lengths as XDP sees them)\n",
			       (unsigned long long)r->pass_bytes, (unsigned long long)r->block_bytes);
		if (x->s->nw) {
			cli_windows_text(x->s, r->win_block, line, sizeof(line));
			printf("  %s\n", line);
		}
	}
	if (sr->set.n)
		printf("pass/s, block/s: the rate over the last whole interval that has ended; qps: Sentinel's,\n"
		       "the window's sum now (its newest bucket partly elapsed) per second.\n");
	else
		printf("(no rules: 'xdp-ratelimit rule add %s ...' adds one)\n", sr->iface);
	if (sr->top)
		printf("\ntop %zu of %zu keys tracked:\n%-40s %-10s %9s %9s %9s %9s  %s\n", sr->nkeys, sr->tracked,
		       "source", "port", "pass/s", "block/s", "qps pass", "qps block", "rule");
	for (i = 0; i < sr->nkeys; i++) {
		const struct xrl_key_report *k = &sr->keys[i];

		key_words(sr, i, src, sizeof(src), port, sizeof(port), line, sizeof(line));
		if (k->last_ns)
			printf("%-40s %-10s %9.1f %9.1f %9.1f %9.1f  %s\n", src, port, k->pass_rate, k->block_rate,
			       k->pass_qps, k->block_qps, line);
		else
			printf("%-40s %-10s %9s %9s %9.1f %9.1f  %s\n", src, port, "-", "-", k->pass_qps, k->block_qps,
			       line);
	}
}

static void stats_json(const struct stats_report *sr)
{
	json_t *rules = json_array(), *o;
	char ts[40], line[256], src[64], port[16];
	size_t i;

	for (i = 0; i < sr->nrules; i++) {
		const struct stats_rule *x = &sr->rules[i];
		const struct xrl_rule_report *r = &x->r;
		json_t *j = cli_rule_json(x->s);

		json_object_update_new(j, json_pack("{s:I,s:f,s:f,s:I,s:I,s:I,s:I}", "id", (json_int_t)x->s->r.id,
						    "passed_qps", r->pass_qps, "blocked_qps", r->block_qps, "passed",
						    (json_int_t)r->pass, "blocked", (json_int_t)r->block,
						    "window_passed", (json_int_t)r->window.pass, "window_blocked",
						    (json_int_t)r->window.block));
		if (x->s->r.byte_unit || x->s->nw)
			json_object_update_new(j, json_pack("{s:I,s:I}", "passed_bytes", (json_int_t)r->pass_bytes,
							    "blocked_bytes", (json_int_t)r->block_bytes));
		if (x->s->nw)
			json_object_set_new(j, "windows", cli_windows_json(x->s, r->win_block));
		json_object_update_new(j, json_pack("{s:o,s:o,s:I}", "passed_rate", rate_json(r->last_ns, r->pass_rate),
						    "blocked_rate", rate_json(r->last_ns, r->block_rate),
						    "rate_span_ms", (json_int_t)(r->last_ns / 1000000)));
		if (x->s->r.flags & XRL_F_GLOBAL)
			json_object_set_new(j, "fleet", cli_fleet_json(x->s, x->has_fleet ? &x->f : NULL));
		json_array_append_new(rules, j);
	}
	cli_timestamp(ts, sizeof(ts));
	o = json_pack("{s:s,s:s,s:o,s:o}", "timestamp", ts, "interface", sr->iface, "counters",
		      cli_counters_json(&sr->c), "rules", rules);
	if (sr->top) {
		json_t *tops = json_array();

		for (i = 0; i < sr->nkeys; i++) {
			const struct xrl_key_report *k = &sr->keys[i];

			key_words(sr, i, src, sizeof(src), port, sizeof(port), line, sizeof(line));
			json_array_append_new(tops, json_pack("{s:s,s:s,s:s,s:f,s:f,s:I,s:I,s:o,s:o,s:I}", "source",
							      src, "port", port, "match", line, "passed_qps",
							      k->pass_qps, "blocked_qps", k->block_qps, "window_passed",
							      (json_int_t)k->window.pass, "window_blocked",
							      (json_int_t)k->window.block, "passed_rate",
							      rate_json(k->last_ns, k->pass_rate), "blocked_rate",
							      rate_json(k->last_ns, k->block_rate), "rate_span_ms",
							      (json_int_t)(k->last_ns / 1000000)));
		}
		json_object_set_new(o, "keys_tracked", json_integer((json_int_t)sr->tracked));
		json_object_set_new(o, "top", tops);
	}
	cli_json(o);
}

/* Prints an interface's figures, with the top K keys when top > 0. Returns an exit code. */
static int stats_print(const char *iface, const struct xrl_maps *m, size_t top)
{
	struct stats_report sr;
	int ret = stats_read(iface, m, top, &sr);

	if (ret) {
		stats_free(&sr);
		return cli_fail(EXIT_FAIL, "cannot read the figures of %s: %s", iface, strerror(-ret));
	}
	if (cli.json)
		stats_json(&sr);
	else
		stats_plain(&sr);
	stats_free(&sr);
	fflush(stdout);
	return EXIT_OK;
}

struct stats_opts {
	__u32 top, count;
	bool watch;
};

static const struct cli_opt stats_opts[] = {
	CLI_OPT(struct stats_opts, top, "top", UINT, .short_name = 't', .arg = "K", .min = 1, .max = 10000,
		.what = "a count", .help = "also the K busiest keys (source, port) by QPS"),
	CLI_OPT(struct stats_opts, watch, "watch", FLAG, .short_name = 'w',
		.help = "refresh every second until interrupted"),
	CLI_OPT(struct stats_opts, count, "count", UINT, .short_name = 'n', .arg = "N", .min = 1, .max = 10000,
		.what = "a count", .help = "print N times, a second apart"),
	{},
};

static int stats_run(struct cli_ctx *ctx)
{
	const struct stats_opts *so = ctx->opts;
	int code = EXIT_OK;
	__u32 i;

	if (!so->watch && !so->count) {
		code = cli_lock(ctx, true);
		return code ? code : stats_print(ctx->iface, &ctx->maps, so->top);
	}
	signal(SIGINT, cli_on_stop);
	signal(SIGTERM, cli_on_stop);
	cli.ndjson = true; /* one document a line, each with its timestamp */
	for (i = 0; !cli_stopped && (!so->count || i < so->count); i++) {
		if (i)
			sleep(1);
		if (!cli.json && isatty(STDOUT_FILENO))
			printf("\033[H\033[J");
		/* Under the lock one reading at a time: an apply never waits for a whole --watch. */
		code = cli_lock(ctx, true);
		if (!code)
			code = stats_print(ctx->iface, &ctx->maps, so->top);
		xrl_maps_unlock(&ctx->maps);
		if (code)
			break;
	}
	return code;
}

const struct cli_cmd cmd_stats = {
	.name = "stats",
	.summary =
		"Pass and block QPS per rule (Sentinel's: the window's sum over all CPUs, per second), totals, and the\n"
		"global counters.",
	CLI_ONE_IFACE(CLI_MAPS),
	.opts = stats_opts,
	.opts_size = sizeof(struct stats_opts),
	.run = stats_run,
};
