// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* stats and explain: the figures, from the aggregated per-CPU windows. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rules_read.h"
#include "cli.h"
#include "render.h"
#include <arpa/inet.h>
#include "lpm_set.h"
#include "dsts.h"
#include "stats.h"
#include "fleet/agent.h"
#include "xrl_key.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

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

static int xrl_stats_print(const char *iface, const struct xrl_maps *m, size_t top)
{
	struct xrl_key_report *keys = NULL;
	struct xrl_ruleset set = {};
	struct xrl_counters c;
	struct xrl_ctl ctl;
	json_t *rules = json_array(), *tops = json_array();
	size_t i, nkeys = 0, tracked = 0;
	char line[256], src[64];
	__u64 now, mal = 0;
	int ret;

	ret = xrl_ctl_read(m, &ctl);
	if (!ret)
		ret = xrl_rules_read(m, &set);
	if (!ret)
		ret = xrl_counters_read(m, &c);
	if (!ret && top) {
		keys = calloc(top, sizeof(*keys));
		ret = keys ? 0 : -ENOMEM;
	}
	/* Read the clock last: every bucket then lies in its past. */
	if (!ret)
		ret = xrl_clock_now(ctl.clock, &now);
	if (!ret && top)
		ret = xrl_top_keys(m, &set, now, top, keys, &nkeys, &tracked);
	if (ret) {
		json_decref(rules);
		json_decref(tops);
		free(keys);
		xrl_ruleset_free(&set);
		return cli_fail(EXIT_FAIL, "cannot read the figures of %s: %s", iface, strerror(-ret));
	}
	for (i = 0; i < XRL_MAL_MAX; i++)
		mal += c.malformed[i];
	if (!cli.json) {
		printf("%s: seen %llu  passed %llu  dropped %llu  (no rule %llu, allowed %llu, monitored %llu, non-IP %llu, malformed %llu)\n",
		       iface, (unsigned long long)c.seen, (unsigned long long)c.passed, (unsigned long long)c.dropped,
		       (unsigned long long)c.no_rule, (unsigned long long)c.allowed, (unsigned long long)c.monitored,
		       (unsigned long long)c.non_ip, (unsigned long long)mal);
		if (c.keys_new || c.sketch_judged || c.keys_failed)
			printf("keys: %llu created, %llu failed; new sources past the cap: %llu judged by the sketch, %llu blocked there\n",
			       (unsigned long long)c.keys_new, (unsigned long long)c.keys_failed,
			       (unsigned long long)c.sketch_judged, (unsigned long long)c.sketch_blocked);
		printf("%-60s %9s %9s %9s %9s %12s %12s\n", "rule", "pass/s", "block/s", "qps pass", "qps block",
		       "passed", "blocked");
	}
	for (i = 0; i < set.n; i++) {
		struct xrl_rule_report r;
		struct xrl_fleet f;
		int has_fleet;

		if (xrl_rule_report(m, &set.v[i], now, &r))
			continue;
		has_fleet = !xrl_fleet_read(m, &set.v[i], &f);
		xrl_spec_format(&set.v[i], line, sizeof(line));
		if (cli.json) {
			json_t *o = cli_rule_json(&set.v[i]);

			json_object_update_new(
				o, json_pack("{s:I,s:f,s:f,s:I,s:I,s:I,s:I}", "id", (json_int_t)set.v[i].r.id,
					     "passed_qps", r.pass_qps, "blocked_qps", r.block_qps, "passed",
					     (json_int_t)r.pass, "blocked", (json_int_t)r.block, "window_passed",
					     (json_int_t)r.window.pass, "window_blocked", (json_int_t)r.window.block));
			if (set.v[i].r.byte_unit)
				json_object_update_new(o,
						       json_pack("{s:I,s:I}", "passed_bytes", (json_int_t)r.pass_bytes,
								 "blocked_bytes", (json_int_t)r.block_bytes));
			json_object_update_new(o, json_pack("{s:o,s:o,s:I}", "passed_rate",
							    rate_json(r.last_ns, r.pass_rate), "blocked_rate",
							    rate_json(r.last_ns, r.block_rate), "rate_span_ms",
							    (json_int_t)(r.last_ns / 1000000)));
			if (set.v[i].r.flags & XRL_F_GLOBAL)
				json_object_set_new(o, "fleet", cli_fleet_json(&set.v[i], has_fleet ? &f : NULL));
			json_array_append_new(rules, o);
			continue;
		}
		if (r.last_ns)
			printf("%-60s %9.1f %9.1f %9.1f %9.1f %12llu %12llu\n", line, r.pass_rate, r.block_rate,
			       r.pass_qps, r.block_qps, (unsigned long long)r.pass, (unsigned long long)r.block);
		else
			printf("%-60s %9s %9s %9.1f %9.1f %12llu %12llu\n", line, "-", "-", r.pass_qps, r.block_qps,
			       (unsigned long long)r.pass, (unsigned long long)r.block);
		if (set.v[i].r.flags & XRL_F_GLOBAL) {
			cli_fleet_text(&set.v[i], has_fleet ? &f : NULL, line, sizeof(line));
			printf("  %s\n", line);
		}
		if (set.v[i].r.byte_unit)
			printf("  bytes: %llu passed, %llu blocked (frame lengths as XDP sees them)\n",
			       (unsigned long long)r.pass_bytes, (unsigned long long)r.block_bytes);
	}
	if (!cli.json && set.n)
		printf("pass/s, block/s: the rate over the last whole interval that has ended; qps: Sentinel's,\n"
		       "the window's sum now (its newest bucket partly elapsed) per second.\n");
	if (!cli.json && !set.n)
		printf("(no rules: 'xdp-ratelimit rule add %s ...' adds one)\n", iface);
	if (!cli.json && top)
		printf("\ntop %zu of %zu keys tracked:\n%-40s %-10s %9s %9s %9s %9s  %s\n", nkeys, tracked, "source",
		       "port", "pass/s", "block/s", "qps pass", "qps block", "rule");
	for (i = 0; i < nkeys; i++) {
		const struct xrl_key *k = &keys[i].key;
		char port[16] = "-";

		key_source(k, &set.v[keys[i].rule].r, src, sizeof(src));
		if (k->port)
			snprintf(port, sizeof(port), "%u/%s", k->port, xrl_proto_name(k->proto));
		xrl_spec_format_match(&set.v[keys[i].rule], line, sizeof(line));
		if (cli.json)
			json_array_append_new(
				tops, json_pack("{s:s,s:s,s:s,s:f,s:f,s:I,s:I,s:o,s:o,s:I}", "source", src, "port",
						port, "match", line, "passed_qps", keys[i].pass_qps, "blocked_qps",
						keys[i].block_qps, "window_passed", (json_int_t)keys[i].window.pass,
						"window_blocked", (json_int_t)keys[i].window.block, "passed_rate",
						rate_json(keys[i].last_ns, keys[i].pass_rate), "blocked_rate",
						rate_json(keys[i].last_ns, keys[i].block_rate), "rate_span_ms",
						(json_int_t)(keys[i].last_ns / 1000000)));
		else if (keys[i].last_ns)
			printf("%-40s %-10s %9.1f %9.1f %9.1f %9.1f  %s\n", src, port, keys[i].pass_rate,
			       keys[i].block_rate, keys[i].pass_qps, keys[i].block_qps, line);
		else
			printf("%-40s %-10s %9s %9s %9.1f %9.1f  %s\n", src, port, "-", "-", keys[i].pass_qps,
			       keys[i].block_qps, line);
	}
	if (cli.json) {
		char ts[40];
		json_t *o;

		cli_timestamp(ts, sizeof(ts));
		o = json_pack("{s:s,s:s,s:o,s:o}", "timestamp", ts, "interface", iface, "counters",
			      cli_counters_json(&c), "rules", rules);

		if (top) {
			json_object_set_new(o, "keys_tracked", json_integer((json_int_t)tracked));
			json_object_set_new(o, "top", tops);
		} else {
			json_decref(tops);
		}
		cli_json(o);
	} else {
		json_decref(rules);
		json_decref(tops);
	}
	free(keys);
	xrl_ruleset_free(&set);
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
		return code ? code : xrl_stats_print(ctx->iface, &ctx->maps, so->top);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	cli.ndjson = true; /* one document a line, each with its timestamp */
	for (i = 0; !stop && (!so->count || i < so->count); i++) {
		if (i)
			sleep(1);
		if (!cli.json && isatty(STDOUT_FILENO))
			printf("\033[H\033[J");
		/* Under the lock one reading at a time: an apply never waits for a whole --watch. */
		code = cli_lock(ctx, true);
		if (!code)
			code = xrl_stats_print(ctx->iface, &ctx->maps, so->top);
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

/*
 * The prefix or dst rule (kind) the program would find for addr, the range
 * structure answering, and the prefix that holds addr (of its set, for a
 * set's rule).
 */
static const struct xrl_spec *lpm_rule(const struct xrl_maps *m, const struct xrl_ctl *ctl,
				       const struct xrl_ruleset *set, __u8 kind, __u8 family, const __u8 *addr,
				       struct xrl_pfx *held)
{
	__u32 id;
	size_t i;

	memset(held, 0, sizeof(*held));
	if (xrl_lpm_match(m, ctl->active_set & 1, kind, family, addr, &id, held))
		return NULL;
	for (i = 0; i < set->n; i++)
		if (xrl_spec_in_lpm(&set->v[i]) && set->v[i].r.id == id)
			return &set->v[i];
	return NULL;
}

/* A set's rule: the prefix of its set that held the address, in a line and in JSON. */
static void set_held(const struct xrl_spec *s, const struct xrl_pfx *held, const struct xrl_ruleset *set, json_t *o)
{
	const struct xrl_pset *ps = xrl_ruleset_set(set, s->set);
	char a[INET6_ADDRSTRLEN], p[INET6_ADDRSTRLEN + 8];

	if (!s->set[0] || !held->family)
		return;
	xrl_format_addr(held->family, held->addr, a, sizeof(a));
	snprintf(p, sizeof(p), "%s/%u", a, held->plen);
	if (o) {
		json_object_set_new(o, "set", json_string(s->set));
		json_object_set_new(o, "set_prefix", json_string(p));
		return;
	}
	printf("      set %s: %s holds it (of %zu prefixes)\n", s->set, p, ps ? ps->n : (size_t)0);
}

/*
 * The rule of set in the dst trie the program would find for a packet to dst
 * (to port/proto when proto is not 0: a narrowed port rule), by its id.
 */
static const struct xrl_spec *dst_trie_rule(const struct xrl_maps *m, const struct xrl_ctl *ctl,
					    const struct xrl_ruleset *set, const struct xrl_spec *dst, __u8 proto,
					    __u16 port)
{
	struct xrl_rule r;
	size_t i;

	if (xrl_dst_match(m->dsts, ctl->active_set & 1, proto, port, dst->family, dst->addr, &r))
		return NULL;
	for (i = 0; i < set->n; i++)
		if (set->v[i].kind == XRL_KIND_PORT && set->v[i].family && set->v[i].r.id == r.id)
			return &set->v[i];
	return NULL;
}

struct explain_opts {
	const char *src_arg, *dst_arg, *port_arg, *proto_arg, *type_arg;
	bool fragment;
	__u32 size; /* the frame's length, for byte rates; 0: not given (XRL_EXPLAIN_SIZE) */
	struct xrl_spec src, dst, port;
	__u8 proto;	   /* the packet's IP protocol; 0 with no --proto or --dport */
	__u16 sel;	   /* its most specific protocol selector, or 0xffff */
	const char *label; /* what the packet is, for the heading */
	char label_buf[64];
};

static const struct cli_opt explain_opts[] = {
	CLI_OPT(struct explain_opts, src_arg, "src", STRING, .short_name = 's', .arg = "ADDR", .required = true,
		.help = "the source address of the packet to explain"),
	CLI_OPT(struct explain_opts, dst_arg, "dst", STRING, .short_name = 'D', .arg = "ADDR",
		.help = "its destination address: dst rules, and port rules narrowed to a destination,\n"
			"match only a packet given one"),
	CLI_OPT(struct explain_opts, port_arg, "dport", STRING, .short_name = 'd', .arg = "PORT/PROTO",
		.help = "its destination port, like 53/udp"),
	CLI_OPT(struct explain_opts, proto_arg, "proto", STRING, .short_name = 'p', .arg = "NAME",
		.help = "its protocol: tcp-syn (SYN without ACK), tcp, udp, icmp, icmpv6 or a number;\n"
			"the protocol of --dport when not given"),
	CLI_OPT(struct explain_opts, type_arg, "type", STRING, .short_name = 't', .arg = "N",
		.help = "its ICMP or ICMPv6 type, with --proto icmp or icmpv6 (8: echo request)"),
	CLI_OPT(struct explain_opts, fragment, "fragment", FLAG, .short_name = 'f',
		.help = "a later fragment (no transport header: no port, no SYN, no type)"),
	CLI_OPT(struct explain_opts, size, "size", UINT, .short_name = 'b', .arg = "BYTES", .min = XRL_MIN_JUDGED_FRAME,
		.max = 65535, .what = "a frame length",
		.help = "its frame's length as XDP sees it, Ethernet header included, for byte rates (default 64)"),
	{},
};

static int explain_prepare(struct cli_ctx *ctx)
{
	struct explain_opts *eo = ctx->opts;
	char err[XRL_ERRLEN];

	if (xrl_parse_prefix(eo->src_arg, &eo->src.family, eo->src.addr, &eo->src.plen, err, sizeof(err)) ||
	    eo->src.plen != (eo->src.family == XRL_FAMILY_V4 ? 32 : 128))
		return cli_usage(ctx->cmd,
				 "--src '%s' is not one address: expected an address like 192.0.2.1 or 2001:db8::1",
				 eo->src_arg);
	if (eo->dst_arg &&
	    (xrl_parse_prefix(eo->dst_arg, &eo->dst.family, eo->dst.addr, &eo->dst.plen, err, sizeof(err)) ||
	     eo->dst.plen != (eo->dst.family == XRL_FAMILY_V4 ? 32 : 128)))
		return cli_usage(ctx->cmd,
				 "--dst '%s' is not one address: expected an address like 203.0.113.5 or 2001:db8::5",
				 eo->dst_arg);
	if (eo->dst_arg && eo->dst.family != eo->src.family)
		return cli_usage(ctx->cmd,
				 "--src %s and --dst %s are not of one family: give two IPv4 or two IPv6 addresses",
				 eo->src_arg, eo->dst_arg);
	if (eo->port_arg) {
		char *words[2] = { "port", (char *)eo->port_arg };

		if (xrl_spec_parse_match(2, words, &eo->port, err, sizeof(err)))
			return cli_usage(ctx->cmd, "--dport: %s", err);
		eo->proto = eo->port.proto;
	}
	eo->sel = 0xffff;
	if (eo->proto_arg) {
		char *words[4] = { "proto", (char *)eo->proto_arg, "type", (char *)eo->type_arg };
		struct xrl_spec t;

		if (xrl_spec_parse_match(eo->type_arg ? 4 : 2, words, &t, err, sizeof(err)))
			return cli_usage(ctx->cmd, "--proto%s: %s", eo->type_arg ? " --type" : "", err);
		if (eo->port_arg && t.proto != eo->port.proto)
			return cli_usage(ctx->cmd, "--proto %s and --dport %s disagree: give the protocol once",
					 eo->proto_arg, eo->port_arg);
		eo->proto = t.proto;
		if (t.sel != t.proto)
			eo->sel = t.sel;
	} else if (eo->type_arg) {
		return cli_usage(ctx->cmd, "--type needs --proto icmp or --proto icmpv6");
	}
	if (eo->fragment) {
		if (eo->port_arg || eo->sel != 0xffff)
			return cli_usage(
				ctx->cmd,
				"--fragment: a later fragment carries no transport header, so no port, SYN or type: give --proto alone");
		eo->sel = XRL_SEL_FRAGMENTS;
	}
	eo->label = eo->port_arg ? eo->port_arg : eo->proto_arg;
	if (eo->fragment || (eo->proto_arg && eo->port_arg) || eo->type_arg) {
		snprintf(eo->label_buf, sizeof(eo->label_buf), "%s%s%s%s%s", eo->fragment ? "a later fragment" : "",
			 eo->fragment && eo->label ? " of " : "", eo->label ? eo->label : "",
			 eo->type_arg ? " type " : "", eo->type_arg ? eo->type_arg : "");
		eo->label = eo->label_buf;
	}
	return EXIT_OK;
}

/* The protocol rule a packet meets: its most specific selector, else its protocol (as the program looks). */
static const struct xrl_spec *proto_rule(const struct xrl_ruleset *set, const struct explain_opts *eo)
{
	struct xrl_spec want = { .kind = XRL_KIND_PROTO };
	int idx = -1;

	if (eo->sel != 0xffff) {
		want.sel = eo->sel;
		idx = xrl_ruleset_find(set, &want);
	}
	if (idx < 0 && (eo->proto_arg || eo->port_arg)) {
		want.sel = eo->proto;
		idx = xrl_ruleset_find(set, &want);
	}
	return idx >= 0 ? &set->v[idx] : NULL;
}

/* The frame explain judges byte rates against when --size is not given: a minimum Ethernet frame. */
#define XRL_EXPLAIN_SIZE 64

static int explain_run(struct cli_ctx *ctx)
{
	const struct explain_opts *eo = ctx->opts;
	const char *src_arg = eo->src_arg, *port_arg = eo->port_arg, *verdict = "passes";
	const struct xrl_spec *match[4] = { NULL, NULL, NULL, NULL }, *src = &eo->src;
	struct xrl_pfx held[4] = {};
	static const int order[4] = { 1, 2, 3, 0 }; /* as the program judges: port, protocol, dst, prefix */
	const struct xrl_maps *m = &ctx->maps;
	struct xrl_ruleset set = {};
	struct xrl_ctl ctl;
	char line[256], why[300] = "";
	json_t *arr;
	__u32 size = eo->size ? eo->size : XRL_EXPLAIN_SIZE;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int i, capped = 0;
	__u64 now;

	if (xrl_ctl_read(m, &ctl) || xrl_rules_read(m, &set) || xrl_clock_now(ctl.clock, &now)) {
		int e = errno;

		xrl_ruleset_free(&set);
		return cli_fail(EXIT_FAIL, "cannot read the rules of %s: %s", ctx->iface, strerror(e));
	}
	/* Where the cap on new sources is reached this second, a new source is the sketch's to judge. */
	if (xrl_new_keys_capped(m, ctl.new_keys, &capped))
		capped = 0;
	match[0] = lpm_rule(m, &ctl, &set, XRL_LPM_SRC, src->family, src->addr, &held[0]);
	/* A port rule narrowed to the packet's destination wins over the port's own. */
	if (port_arg && !eo->fragment && eo->dst_arg)
		match[1] = dst_trie_rule(m, &ctl, &set, &eo->dst, eo->port.proto, eo->port.port);
	if (port_arg && !eo->fragment && !match[1]) {
		int idx = xrl_ruleset_find(&set, &eo->port);

		match[1] = idx >= 0 ? &set.v[idx] : NULL;
	}
	match[2] = proto_rule(&set, eo);
	if (eo->dst_arg)
		match[3] = lpm_rule(m, &ctl, &set, XRL_LPM_DST, eo->dst.family, eo->dst.addr, &held[3]);
	arr = cli.json ? json_array() : NULL; /* the rules' JSON: text prints them as it goes */
	if (!cli.json)
		printf("a packet from %s%s%s%s%s on %s:\n", src_arg, eo->dst_arg ? " to " : "",
		       eo->dst_arg ? eo->dst_arg : "", eo->label ? (eo->dst_arg ? " " : " to ") : "",
		       eo->label ? eo->label : "", ctx->iface);
	/* As the program looks: an allow prefix first, then an allow dst. */
	for (i = 0; i < 4; i += 3) {
		if (!match[i] || !(match[i]->r.flags & XRL_F_ALLOW) || why[0])
			continue;
		xrl_spec_format(match[i], line, sizeof(line));
		snprintf(why, sizeof(why), "allowed by '%s': it bypasses every limit", line);
		verdict = "passes";
		if (cli.json) {
			json_t *o = cli_rule_json(match[i]);

			json_object_set_new(o, "result", json_string("allow"));
			set_held(match[i], &held[i], &set, o);
			json_array_append_new(arr, o);
		} else {
			printf("  %s\n      matches: allowed traffic bypasses every limit\n", line);
			set_held(match[i], &held[i], &set, NULL);
		}
		match[0] = match[1] = match[2] = match[3] = NULL;
	}
	for (i = 0; i < 4; i++) {
		const struct xrl_spec *s = match[order[i]];
		struct xrl_key key = {}, bkey;
		struct xrl_sum sum = { 0, 0, 0, 0 }, bsum = { 0, 0, 0, 0 };
		bool over, pover, bover = false, tracked, btracked = false, sketched = false;
		__u64 thr_now, bthr_now = 0, elapsed = 0;
		const char *res;
		char state[320] = "", sk[48] = "";
		__u64 est = 0;
		struct xrl_fleet f;
		__u64 thr;

		if (!s)
			continue;
		xrl_key_make(&key, &s->r, src->family, src->addr, s->kind == XRL_KIND_PORT ? s->port : 0, s->proto);
		tracked = !xrl_key_window(m, &key, &s->r, now, &sum);
		thr = xrl_fleet_threshold(m, s); /* a global rule: this node's share */
		/* A warm-up rule: where the key is on its ramp (the threshold the next packet meets). */
		if (xrl_warm_point(m, &key, &s->r, thr, now, &thr_now, &elapsed))
			thr_now = thr;
		pover = !(s->r.flags & XRL_F_NO_PKT_RATE) && xrl_over(sum.pass, thr_now);
		if (s->r.byte_unit) {
			bkey = key;
			bkey.rule_id |= XRL_KEY_BYTES;
			btracked = !xrl_key_window(m, &bkey, &s->r, now, &bsum);
			if (xrl_warm_point(m, &bkey, &s->r, s->r.byte_threshold, now, &bthr_now, &elapsed))
				bthr_now = s->r.byte_threshold;
			bover = xrl_over_cost(bsum.pass, size, bthr_now);
			if (s->r.flags & XRL_F_NO_PKT_RATE)
				tracked = btracked;
		}
		over = pover || bover;
		/*
		 * A new source on a CPU past the cap on new states is judged by the
		 * sketch: say what it estimates. Whether the next packet gets a state
		 * of its own depends on the cap at that moment (and on the CPU it
		 * lands on), so the verdict stays the fresh window's.
		 */
		if (!tracked && (s->r.flags & XRL_F_PER_SOURCE) && capped) {
			if (!(s->r.flags & XRL_F_NO_PKT_RATE) &&
			    !xrl_sketch_estimate(m, ctl.sketch_width, &key, &s->r, now, &est)) {
				sketched = true;
				snprintf(sk, sizeof(sk), ", %s its limit at %llu",
					 xrl_over(est, s->r.threshold) ? "over" : "under", (unsigned long long)est);
			}
			snprintf(
				state, sizeof(state),
				" (no window: past the cap of %u new sources a second (load --new-keys) on %d CPU%s now, where the sketch judges it%s%s)",
				ctl.new_keys, capped, capped == 1 ? "" : "s", sk,
				capped < online ? "; elsewhere its next packet creates a window" : "");
		} else if (!tracked) {
			snprintf(state, sizeof(state), " (no window yet: its next packet creates one)");
		}
		res = !over ? "passes" : (s->r.flags & XRL_F_MONITOR) ? "would block (monitor: passes)" : "blocks";
		xrl_spec_format(s, line, sizeof(line));
		if (over && !(s->r.flags & XRL_F_MONITOR)) {
			verdict = "is dropped";
			snprintf(why, sizeof(why), "over the %s limit of '%s'", pover ? "packet" : "byte", line);
		}
		if (cli.json) {
			json_t *o = cli_rule_json(s);

			/* What the next such packet meets here: pass, block, or monitor (would block, passes). */
			json_object_update_new(o, json_pack("{s:I,s:I,s:b,s:s}", "window_passed", (json_int_t)sum.pass,
							    "window_blocked", (json_int_t)sum.block, "tracked", tracked,
							    "result",
							    !over			 ? "pass" :
							    (s->r.flags & XRL_F_MONITOR) ? "monitor" :
											   "block"));
			if (!(s->r.flags & XRL_F_NO_PKT_RATE))
				json_object_set_new(o, "threshold_now", json_integer((json_int_t)thr_now));
			if (s->r.byte_unit)
				json_object_update_new(o,
						       json_pack("{s:I,s:I,s:I,s:I}", "bytes_window_passed",
								 (json_int_t)bsum.pass, "bytes_window_blocked",
								 (json_int_t)bsum.block, "byte_threshold_now",
								 (json_int_t)bthr_now, "frame_size", (json_int_t)size));
			if (s->r.warmup_ms)
				json_object_set_new(o, "warmup_elapsed_ms",
						    json_integer((json_int_t)(elapsed / 1000000)));
			if (sketched)
				json_object_set_new(o, "sketch_estimate", json_integer((json_int_t)est));
			if (s->r.flags & XRL_F_GLOBAL)
				json_object_set_new(o, "fleet",
						    cli_fleet_json(s, xrl_fleet_read(m, s, &f) ? NULL : &f));
			set_held(s, &held[order[i]], &set, o);
			json_array_append_new(arr, o);
			continue;
		}
		printf("  %s\n", line);
		set_held(s, &held[order[i]], &set, NULL);
		if (!(s->r.flags & XRL_F_NO_PKT_RATE))
			printf("      window: %llu passed, %llu blocked of %llu allowed per %llums%s%s; next packet %s\n",
			       (unsigned long long)sum.pass, (unsigned long long)sum.block, (unsigned long long)thr_now,
			       (unsigned long long)(s->r.interval_ns / 1000000),
			       (s->r.flags & XRL_F_GLOBAL) ? " (this node's share of the fleet's limit)" : "", state,
			       !pover ? "passes" : res);
		if (s->r.byte_unit)
			printf("      bytes: %llu passed (%llu packets blocked) of %llu allowed per %llums%s; next %u-byte frame %s\n",
			       (unsigned long long)bsum.pass, (unsigned long long)bsum.block,
			       (unsigned long long)bthr_now, (unsigned long long)(s->r.interval_ns / 1000000),
			       (s->r.flags & XRL_F_NO_PKT_RATE) ? state : "", size, !bover ? "passes" : res);
		if (s->r.warmup_ms) {
			__u64 el_ms = elapsed / 1000000;
			char pk[64] = "", by[64] = "";

			if (!(s->r.flags & XRL_F_NO_PKT_RATE))
				snprintf(pk, sizeof(pk), "%llu of %llu packets", (unsigned long long)thr_now,
					 (unsigned long long)thr);
			if (s->r.byte_unit)
				snprintf(by, sizeof(by), "%s%llu of %llu bytes", pk[0] ? ", " : "",
					 (unsigned long long)bthr_now, (unsigned long long)s->r.byte_threshold);
			if (el_ms >= s->r.warmup_ms)
				printf("      warm-up of %ums: over, the full threshold (%s%s a window)\n",
				       s->r.warmup_ms, pk, by);
			else
				printf("      warm-up of %ums: %llums in%s, climbing from a third: %s%s a window now\n",
				       s->r.warmup_ms, (unsigned long long)el_ms,
				       tracked ? "" : " (the next packet starts it)", pk, by);
		}
	}
	if (!match[0] && !match[1] && !match[2] && !match[3] && !why[0])
		snprintf(why, sizeof(why), "no rule matches: it passes unlimited");
	if (cli.json) {
		json_t *o = json_pack("{s:s,s:s,s:o,s:s,s:s}", "interface", ctx->iface, "source", src_arg, "rules", arr,
				      "verdict", strcmp(verdict, "passes") ? "block" : "pass", "why", why);

		if (eo->dst_arg)
			json_object_set_new(o, "destination", json_string(eo->dst_arg));
		cli_json(o);
	} else
		printf("verdict: the next such packet %s%s%s\n", verdict, why[0] ? ": " : "", why);
	xrl_ruleset_free(&set);
	return EXIT_OK;
}

const struct cli_cmd cmd_explain = {
	.name = "explain",
	.summary =
		"Which rules match a packet from ADDR (to an address, to PORT/PROTO, of a protocol, ICMP type or a later\n"
		"fragment), their current windows, and whether the next such packet passes.",
	CLI_ONE_IFACE(CLI_MAPS | CLI_READS),
	.opts = explain_opts,
	.opts_size = sizeof(struct explain_opts),
	.prepare = explain_prepare,
	.run = explain_run,
};
