// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* explain: which rules a packet meets, their windows now, and whether the next such packet passes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "codec/rules_read.h"
#include "cli.h"
#include "explain.h"
#include "render.h"
#include "read/stats.h"
#include "read/fleet.h"
#include "read/match_meets.h"
#include "codec/match_maps.h"
#include "xrl_key.h"

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
	CLI_OPT(struct explain_opts, sport, "sport", UINT, .arg = "PORT", .min = 0, .max = 65535, .what = "a port",
		CLI_GIVEN(struct explain_opts, sport_given),
		.help = "its source port, for rules of several fields (default 0)"),
	CLI_OPT(struct explain_opts, flags_arg, "flags", STRING, .arg = "FLAGS",
		.help = "its TCP flags, like ack or syn,ack (default: syn with --proto tcp-syn, else none)"),
	CLI_OPT(struct explain_opts, code, "code", UINT, .arg = "N", .min = 0, .max = 255, .what = "an ICMP code",
		CLI_GIVEN(struct explain_opts, code_given), .help = "its ICMP or ICMPv6 code, with --type (default 0)"),
	CLI_OPT(struct explain_opts, length, "length", UINT, .arg = "BYTES", .min = 20, .max = 65535,
		.what = "an IP length", CLI_GIVEN(struct explain_opts, length_given),
		.help = "its IP length (IPv6: the payload's + 40; default: the frame's size less 14)"),
	CLI_OPT(struct explain_opts, ttl, "ttl", UINT, .arg = "N", .min = 0, .max = 255, .what = "a TTL",
		CLI_GIVEN(struct explain_opts, ttl_given), .help = "its TTL or hop limit (default 64)"),
	CLI_OPT(struct explain_opts, dscp, "dscp", UINT, .arg = "N", .min = 0, .max = 63, .what = "a DSCP",
		.help = "its DSCP, 0 to 63 (default 0)"),
	CLI_OPT(struct explain_opts, payload_arg, "payload", STRING, .arg = "HEX",
		.help = "its transport payload's first bytes, like 17000203 (up to 8): a rule with a\n"
			"fingerprint matches only a packet given them"),
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
	if (explain_prepare_fields(ctx))
		return EXIT_USAGE;
	eo->label = eo->port_arg ? eo->port_arg : eo->proto_arg;
	if (eo->fragment || (eo->proto_arg && eo->port_arg) || eo->type_arg) {
		snprintf(eo->label_buf, sizeof(eo->label_buf), "%s%s%s%s%s", eo->fragment ? "a later fragment" : "",
			 eo->fragment && eo->label ? " of " : "", eo->label ? eo->label : "",
			 eo->type_arg ? " type " : "", eo->type_arg ? eo->type_arg : "");
		eo->label = eo->label_buf;
	}
	return EXIT_OK;
}

/* The frame explain judges byte rates against when --size is not given: a minimum Ethernet frame. */
#define XRL_EXPLAIN_SIZE 64

/* A rule the packet meets, and what its next such packet meets there. */
struct explain_rule {
	const struct xrl_spec *s;
	__u32 fields;		    /* a rule of several fields: those that matched (XRL_MF_*) */
	const struct xrl_pfx *held; /* the prefix of its set that holds the address */
	bool allow;		    /* an allow rule: nothing below is read */
	struct xrl_sum sum, bsum;   /* the packet and the byte windows */
	bool over, pover, bover, tracked, sketched, has_fleet;
	__u64 thr, thr_now, bthr_now, elapsed, est;
	struct xrl_fleet f;
	const char *res;
	char state[320];
	/* A rule of several windows: each next window's sum, whether it is over, and the window that decides (-1: none). */
	struct xrl_sum wsum[XRL_MAX_WINDOWS - 1];
	__u64 wthr[XRL_MAX_WINDOWS - 1];
	bool wover[XRL_MAX_WINDOWS - 1];
	int decided;
};

/* What explain found, read once: what the text and the JSON printer show. */
struct explain_report {
	const char *iface;
	const struct explain_opts *eo;
	__u32 size;
	struct xrl_ruleset set;
	struct xrl_pfx held[EXPLAIN_KINDS];
	/* In the order the program judges them: the other kinds', then the rules of several fields. */
	struct explain_rule rules[EXPLAIN_KINDS + XRL_LBVS_MAX_MATCH];
	size_t n;
	const char *verdict;
	char why[300];
};

/* A limit rule's window, warm-up and sketch for the packet: what its next such packet meets. */
static void explain_limit(const struct xrl_maps *m, const struct xrl_ctl *ctl, int capped, __u64 now,
			  struct explain_report *er, struct explain_rule *x)
{
	const struct xrl_spec *s = x->s, *src = &er->eo->src;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	struct xrl_key key = {}, bkey;
	char line[256], sk[48] = "", win[96];
	int k;

	if (s->kind == XRL_KIND_MATCH) {
		struct xrl_rule r = s->r;
		struct xrl_match_pkt p;

		r.flags = xrl_match_flags(s);
		explain_match_pkt(er->eo, er->size, &p);
		xrl_key_make_pkt(&key, &r, src->family, src->addr, p.dst, 0, p.v.v[XRL_LBVS_DPORT],
				 (__u8)p.v.v[XRL_LBVS_PROTO]);
	} else {
		xrl_key_make(&key, &s->r, src->family, src->addr, s->kind == XRL_KIND_PORT ? s->port : 0, s->proto);
	}
	x->tracked = !xrl_key_window(m, &key, &s->r, now, &x->sum);
	x->thr = xrl_fleet_threshold(m, s); /* a global rule: this node's share */
	/* A warm-up rule: where the key is on its ramp (the threshold the next packet meets). */
	if (xrl_warm_point(m, &key, &s->r, x->thr, now, &x->thr_now, &x->elapsed))
		x->thr_now = x->thr;
	x->pover = !(s->r.flags & XRL_F_NO_PKT_RATE) && xrl_over(x->sum.pass, x->thr_now);
	if (s->r.byte_unit) {
		bool btracked;

		bkey = key;
		bkey.rule_id |= XRL_KEY_BYTES;
		btracked = !xrl_key_window(m, &bkey, &s->r, now, &x->bsum);
		if (xrl_warm_point(m, &bkey, &s->r, s->r.byte_threshold, now, &x->bthr_now, &x->elapsed))
			x->bthr_now = s->r.byte_threshold;
		x->bover = xrl_over_cost(x->bsum.pass, er->size, x->bthr_now);
		if (s->r.flags & XRL_F_NO_PKT_RATE)
			x->tracked = btracked;
	}
	x->over = x->pover || x->bover;
	x->decided = x->over ? 0 : -1;
	/* A rule of several windows: each next window's key is its own slot's; the first over decides. */
	for (k = 0; k < s->nw; k++) {
		const struct xrl_rule *w = &s->w[k];
		bool bytes = w->flags & XRL_F_NO_PKT_RATE;
		struct xrl_key wkey = key;
		__u64 el;

		wkey.rule_id = w->id | (bytes ? XRL_KEY_BYTES : 0);
		xrl_key_window(m, &wkey, w, now, &x->wsum[k]);
		x->wthr[k] = bytes ? w->byte_threshold : w->threshold;
		if (xrl_warm_point(m, &wkey, w, x->wthr[k], now, &x->wthr[k], &el))
			x->wthr[k] = bytes ? w->byte_threshold : w->threshold;
		x->wover[k] = bytes ? xrl_over_cost(x->wsum[k].pass, er->size, x->wthr[k]) :
				      xrl_over(x->wsum[k].pass, x->wthr[k]);
		if (x->wover[k] && x->decided < 0)
			x->decided = k + 1;
		x->over |= x->wover[k];
	}
	/*
	 * A new source on a CPU past the cap on new states is judged by the
	 * sketch: say what it estimates. Whether the next packet gets a state
	 * of its own depends on the cap at that moment (and on the CPU it
	 * lands on), so the verdict stays the fresh window's.
	 */
	if (!x->tracked && (s->r.flags & XRL_F_PER_SOURCE) && capped) {
		if (!(s->r.flags & XRL_F_NO_PKT_RATE) &&
		    !xrl_sketch_estimate(m, ctl->sketch_width, &key, &s->r, now, &x->est)) {
			x->sketched = true;
			snprintf(sk, sizeof(sk), ", %s its limit at %llu",
				 xrl_over(x->est, s->r.threshold) ? "over" : "under", (unsigned long long)x->est);
		}
		snprintf(
			x->state, sizeof(x->state),
			" (no window: past the cap of %u new sources a second (load --new-keys) on %d CPU%s now, where the sketch judges it%s%s)",
			ctl->new_keys, capped, capped == 1 ? "" : "s", sk,
			capped < online ? "; elsewhere its next packet creates a window" : "");
	} else if (!x->tracked) {
		snprintf(x->state, sizeof(x->state), " (no window yet: its next packet creates one)");
	}
	x->res = !x->over ? "passes" : (s->r.flags & XRL_F_MONITOR) ? "would block (monitor: passes)" : "blocks";
	if (x->over && !(s->r.flags & XRL_F_MONITOR)) {
		xrl_spec_format(s, line, sizeof(line));
		er->verdict = "is dropped";
		if (s->nw) {
			xrl_window_format(xrl_spec_window(s, x->decided), win, sizeof(win));
			snprintf(er->why, sizeof(er->why), "over window %d (%.80s) of '%.180s'", x->decided + 1, win,
				 line);
		} else {
			snprintf(er->why, sizeof(er->why), "over the %s limit of '%s'", x->pover ? "packet" : "byte",
				 line);
		}
	}
	if (s->r.flags & XRL_F_GLOBAL)
		x->has_fleet = !xrl_fleet_read(m, s, &x->f);
}

/*
 * The rules of several fields the packet meets, after the other kinds' (as
 * the program judges them), found as the program finds them (match_meets.h):
 * an allow rule among them passes the packet, no other rule asked.
 */
static void explain_matches(const struct xrl_maps *m, const struct xrl_ctl *ctl, int capped, __u64 now,
			    struct explain_report *er)
{
	struct xrl_match_meets mm;
	struct xrl_match_pkt p;
	char line[256];
	size_t i;

	explain_match_pkt(er->eo, er->size, &p);
	if (xrl_match_meets(m, ctl->active_set & 1, &er->set, &p, &mm))
		return;
	for (i = 0; i < mm.n; i++) {
		struct explain_rule *x;

		/* A rule of an address matches only a packet given it, as a dst rule does. */
		if ((mm.s[i]->m.given & XRL_MF_DST) && !er->eo->dst_arg)
			continue;
		if (mm.allow) {
			xrl_spec_format(mm.s[0], line, sizeof(line));
			snprintf(er->why, sizeof(er->why), "allowed by '%s': it bypasses every limit", line);
			er->verdict = "passes";
			er->rules[0] = (struct explain_rule){ .s = mm.s[0], .fields = mm.fields[0], .allow = true };
			er->n = 1;
			return;
		}
		x = &er->rules[er->n++];
		*x = (struct explain_rule){ .s = mm.s[i], .fields = mm.fields[i], .held = &er->held[0] };
		explain_limit(m, ctl, capped, now, er, x);
	}
	if (mm.more)
		snprintf(
			er->why, sizeof(er->why),
			"it meets more than %d rules of several fields: the program drops it (apply refuses such sets)",
			XRL_LBVS_MAX_MATCH);
}

/* Reads what explain shows: 0, or -1 with errno set. */
static int explain_read(const struct cli_ctx *ctx, struct explain_report *er)
{
	/* As the program looks: an allow prefix, then an allow dst; then judges: port, protocol, dst, prefix. */
	static const int allows[2] = { EXPLAIN_PREFIX, EXPLAIN_DST };
	static const int order[4] = { EXPLAIN_PORT, EXPLAIN_PROTO, EXPLAIN_DST, EXPLAIN_PREFIX };
	const struct explain_opts *eo = ctx->opts;
	const struct xrl_maps *m = &ctx->maps;
	const struct xrl_spec *match[EXPLAIN_KINDS];
	struct xrl_ctl ctl;
	char line[256];
	int i, capped = 0;
	__u64 now;

	*er = (struct explain_report){ .iface = ctx->iface, .eo = eo, .verdict = "passes" };
	er->size = eo->size ? eo->size : XRL_EXPLAIN_SIZE;
	if (xrl_ctl_read(m, &ctl) || xrl_rules_read(m, &er->set) || xrl_clock_now(ctl.clock, &now))
		return -1;
	/* Where the cap on new sources is reached this second, a new source is the sketch's to judge. */
	if (xrl_new_keys_capped(m, ctl.new_keys, &capped))
		capped = 0;
	explain_match(m, &ctl, &er->set, eo, match, er->held);
	for (i = 0; i < 2; i++) {
		const struct xrl_spec *a = match[allows[i]];

		if (!a || !(a->r.flags & XRL_F_ALLOW) || er->why[0])
			continue;
		xrl_spec_format(a, line, sizeof(line));
		snprintf(er->why, sizeof(er->why), "allowed by '%s': it bypasses every limit", line);
		er->rules[er->n++] = (struct explain_rule){ .s = a, .held = &er->held[allows[i]], .allow = true };
		memset(match, 0, sizeof(match));
	}
	for (i = 0; i < EXPLAIN_KINDS; i++) {
		struct explain_rule *x;

		if (!match[order[i]])
			continue;
		x = &er->rules[er->n++];
		*x = (struct explain_rule){ .s = match[order[i]], .held = &er->held[order[i]] };
		explain_limit(m, &ctl, capped, now, er, x);
	}
	if (!er->why[0])
		explain_matches(m, &ctl, capped, now, er);
	if (!er->n && !er->why[0])
		snprintf(er->why, sizeof(er->why), "no rule matches: it passes unlimited");
	return 0;
}

/* The prefix of a set's rule's set that held the address, as ADDR/LEN: false for another rule. */
static bool held_prefix(const struct explain_rule *x, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (!x->s->set[0] || !x->held->family)
		return false;
	xrl_format_addr(x->held->family, x->held->addr, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, x->held->plen);
	return true;
}

/* The fields of a rule of several fields that matched, by name. */
static void explain_fields_plain(__u32 fields)
{
	const char *sep = "";
	__u32 b;

	printf("      fields that matched:");
	for (b = 1; b && b <= XRL_MF_ALL; b <<= 1)
		if (fields & b) {
			printf("%s %s", sep, xrl_mfield_name(b));
			sep = ",";
		}
	printf("\n");
}

/* A rule of several fields' named port sets: the packet's port in each, and whether the set holds it. */
static int port_sets(const struct explain_report *er, const struct xrl_spec *s, const char **field, const char **name,
		     __u16 *port, bool *in)
{
	const char *set[2] = { s->m.sport_set, s->m.dport_set };
	const struct xrl_pset *ps;
	struct xrl_match_pkt p;
	size_t i;
	int k, n = 0;

	if (s->kind != XRL_KIND_MATCH || (!set[0][0] && !set[1][0]))
		return 0;
	explain_match_pkt(er->eo, er->size, &p);
	for (k = 0; k < 2; k++) {
		if (!set[k][0])
			continue;
		field[n] = k ? "dport" : "sport";
		name[n] = set[k];
		port[n] = p.v.v[k ? XRL_LBVS_DPORT : XRL_LBVS_SPORT];
		ps = xrl_ruleset_port_set(&er->set, set[k]);
		for (i = 0, in[n] = false; ps && i < ps->nports; i++)
			in[n] |= ps->ports[i].lo <= port[n] && port[n] <= ps->ports[i].hi;
		n++;
	}
	return n;
}

static void explain_rule_plain(const struct explain_report *er, const struct explain_rule *x)
{
	const char *field[2], *name[2];
	__u16 port[2];
	bool in[2];
	int k, np;
	const struct xrl_spec *s = x->s;
	char line[256], p[INET6_ADDRSTRLEN + 8], win[96];

	xrl_spec_format(s, line, sizeof(line));
	if (x->allow)
		printf("  %s\n      matches: allowed traffic bypasses every limit\n", line);
	else
		printf("  %s\n", line);
	if (x->fields)
		explain_fields_plain(x->fields);
	if (held_prefix(x, p, sizeof(p))) {
		const struct xrl_pset *ps = xrl_ruleset_set(&er->set, s->set);

		printf("      set %s: %s holds it (of %zu prefixes)\n", s->set, p, ps ? ps->n : (size_t)0);
	}
	np = x->fields ? port_sets(er, s, field, name, port, in) : 0;
	for (k = 0; k < np; k++)
		printf("      port set %s: %s %u %s\n", name[k], field[k], port[k],
		       in[k] ? "is in it" : "is not in it");
	if (x->allow)
		return;
	if (!(s->r.flags & XRL_F_NO_PKT_RATE))
		printf("      window: %llu passed, %llu blocked of %llu allowed per %llums%s%s; next packet %s\n",
		       (unsigned long long)x->sum.pass, (unsigned long long)x->sum.block,
		       (unsigned long long)x->thr_now, (unsigned long long)(s->r.interval_ns / 1000000),
		       (s->r.flags & XRL_F_GLOBAL) ? " (this node's share of the fleet's limit)" : "", x->state,
		       !x->pover ? "passes" : x->res);
	if (s->r.byte_unit)
		printf("      bytes: %llu passed (%llu packets blocked) of %llu allowed per %llums%s; next %u-byte frame %s\n",
		       (unsigned long long)x->bsum.pass, (unsigned long long)x->bsum.block,
		       (unsigned long long)x->bthr_now, (unsigned long long)(s->r.interval_ns / 1000000),
		       (s->r.flags & XRL_F_NO_PKT_RATE) ? x->state : "", er->size, !x->bover ? "passes" : x->res);
	for (k = 0; k < s->nw; k++) {
		const struct xrl_rule *w = &s->w[k];

		xrl_window_format(w, win, sizeof(win));
		printf("      window %d (%s): %llu %s passed, %llu blocked of %llu allowed; next %s%s\n", k + 2, win,
		       (unsigned long long)x->wsum[k].pass, (w->flags & XRL_F_NO_PKT_RATE) ? "bytes" : "packets",
		       (unsigned long long)x->wsum[k].block, (unsigned long long)x->wthr[k],
		       (w->flags & XRL_F_NO_PKT_RATE) ? "frame " : "packet ",
		       !x->wover[k]	   ? "passes" :
		       x->decided == k + 1 ? x->res :
					     "over too (the first over decides)");
	}
	if (s->r.warmup_ms) {
		__u64 el_ms = x->elapsed / 1000000;
		char pk[64] = "", by[64] = "";

		if (!(s->r.flags & XRL_F_NO_PKT_RATE))
			snprintf(pk, sizeof(pk), "%llu of %llu packets", (unsigned long long)x->thr_now,
				 (unsigned long long)x->thr);
		if (s->r.byte_unit)
			snprintf(by, sizeof(by), "%s%llu of %llu bytes", pk[0] ? ", " : "",
				 (unsigned long long)x->bthr_now, (unsigned long long)s->r.byte_threshold);
		if (el_ms >= s->r.warmup_ms)
			printf("      warm-up of %ums: over, the full threshold (%s%s a window)\n", s->r.warmup_ms, pk,
			       by);
		else
			printf("      warm-up of %ums: %llums in%s, climbing from a third: %s%s a window now\n",
			       s->r.warmup_ms, (unsigned long long)el_ms,
			       x->tracked ? "" : " (the next packet starts it)", pk, by);
	}
}

static void explain_plain(const struct explain_report *er)
{
	const struct explain_opts *eo = er->eo;
	size_t i;

	printf("a packet from %s%s%s%s%s on %s:\n", eo->src_arg, eo->dst_arg ? " to " : "",
	       eo->dst_arg ? eo->dst_arg : "", eo->label ? (eo->dst_arg ? " " : " to ") : "",
	       eo->label ? eo->label : "", er->iface);
	for (i = 0; i < er->n; i++)
		explain_rule_plain(er, &er->rules[i]);
	printf("verdict: the next such packet %s%s%s\n", er->verdict, er->why[0] ? ": " : "", er->why);
}

/* A rule of several windows: each window's sum now and whether it is over, and the one that decides. */
static void explain_windows_json(json_t *o, const struct explain_rule *x)
{
	json_t *arr = json_array(), *w;
	int k;

	for (k = 0; k <= x->s->nw; k++) {
		w = cli_window_json(x->s, k);
		if (k)
			json_object_update_new(w, json_pack("{s:I,s:I,s:I,s:b}", "window_passed",
							    (json_int_t)x->wsum[k - 1].pass, "window_blocked",
							    (json_int_t)x->wsum[k - 1].block, "threshold_now",
							    (json_int_t)x->wthr[k - 1], "over", x->wover[k - 1]));
		else
			json_object_update_new(
				w,
				json_pack("{s:I,s:I,s:I,s:b}", "window_passed",
					  (json_int_t)(x->s->r.flags & XRL_F_NO_PKT_RATE ? x->bsum.pass : x->sum.pass),
					  "window_blocked", (json_int_t)x->sum.block, "threshold_now",
					  (json_int_t)(x->s->r.flags & XRL_F_NO_PKT_RATE ? x->bthr_now : x->thr_now),
					  "over", x->pover || x->bover));
		json_array_append_new(arr, w);
	}
	json_object_set_new(o, "windows", arr);
	json_object_set_new(o, "decided_by", x->decided < 0 ? json_null() : json_integer(x->decided));
}

static json_t *explain_rule_json(const struct explain_report *er, const struct explain_rule *x)
{
	const struct xrl_spec *s = x->s;
	json_t *o = cli_rule_json(s);
	char p[INET6_ADDRSTRLEN + 8];
	const char *field[2], *name[2];
	__u16 port[2];
	bool in[2];
	int k, np;

	if (x->allow) {
		json_object_set_new(o, "result", json_string("allow"));
	} else {
		/* What the next such packet meets here: pass, block, or monitor (would block, passes). */
		json_object_update_new(o, json_pack("{s:I,s:I,s:b,s:s}", "window_passed", (json_int_t)x->sum.pass,
						    "window_blocked", (json_int_t)x->sum.block, "tracked", x->tracked,
						    "result",
						    !x->over			 ? "pass" :
						    (s->r.flags & XRL_F_MONITOR) ? "monitor" :
										   "block"));
		if (!(s->r.flags & XRL_F_NO_PKT_RATE))
			json_object_set_new(o, "threshold_now", json_integer((json_int_t)x->thr_now));
		if (s->r.byte_unit)
			json_object_update_new(
				o, json_pack("{s:I,s:I,s:I,s:I}", "bytes_window_passed", (json_int_t)x->bsum.pass,
					     "bytes_window_blocked", (json_int_t)x->bsum.block, "byte_threshold_now",
					     (json_int_t)x->bthr_now, "frame_size", (json_int_t)er->size));
		if (s->r.warmup_ms)
			json_object_set_new(o, "warmup_elapsed_ms", json_integer((json_int_t)(x->elapsed / 1000000)));
		if (x->sketched)
			json_object_set_new(o, "sketch_estimate", json_integer((json_int_t)x->est));
		if (s->nw)
			explain_windows_json(o, x);
		if (s->r.flags & XRL_F_GLOBAL)
			json_object_set_new(o, "fleet", cli_fleet_json(s, x->has_fleet ? &x->f : NULL));
	}
	if (x->fields) {
		json_t *f = json_array();
		__u32 b;

		for (b = 1; b && b <= XRL_MF_ALL; b <<= 1)
			if (x->fields & b)
				json_array_append_new(f, json_string(xrl_mfield_name(b)));
		json_object_set_new(o, "fields_matched", f);
	}
	if (held_prefix(x, p, sizeof(p))) {
		json_object_set_new(o, "set", json_string(s->set));
		json_object_set_new(o, "set_prefix", json_string(p));
	}
	np = x->fields ? port_sets(er, s, field, name, port, in) : 0;
	if (np) {
		json_t *arr = json_array();

		for (k = 0; k < np; k++)
			json_array_append_new(arr, json_pack("{s:s,s:s,s:i,s:b}", "field", field[k], "set", name[k],
							     "port", port[k], "in_set", in[k]));
		json_object_set_new(o, "port_sets", arr);
	}
	return o;
}

static void explain_json(const struct explain_report *er)
{
	json_t *arr = json_array(), *o;
	size_t i;

	for (i = 0; i < er->n; i++)
		json_array_append_new(arr, explain_rule_json(er, &er->rules[i]));
	o = json_pack("{s:s,s:s,s:o,s:s,s:s}", "interface", er->iface, "source", er->eo->src_arg, "rules", arr,
		      "verdict", strcmp(er->verdict, "passes") ? "block" : "pass", "why", er->why);
	if (er->eo->dst_arg)
		json_object_set_new(o, "destination", json_string(er->eo->dst_arg));
	cli_json(o);
}

static int explain_run(struct cli_ctx *ctx)
{
	struct explain_report er;

	if (explain_read(ctx, &er)) {
		int e = errno;

		xrl_ruleset_free(&er.set);
		return cli_fail(EXIT_FAIL, "cannot read the rules of %s: %s", ctx->iface, strerror(e));
	}
	if (cli.json)
		explain_json(&er);
	else
		explain_plain(&er);
	xrl_ruleset_free(&er.set);
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
