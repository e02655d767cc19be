// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* capture's printers (capture_print.h). */
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include "capture_print.h"
#include "cli.h"
#include "render.h"
#include "read/stats.h"

static const char *const why_names[XRL_CAP_WHY_MAX] = {
	[XRL_CAP_WHY_NONE] = "none",	   [XRL_CAP_WHY_OVER] = "over",		  [XRL_CAP_WHY_UNDER] = "under",
	[XRL_CAP_WHY_MONITOR] = "monitor", [XRL_CAP_WHY_ALLOW] = "allow",	  [XRL_CAP_WHY_NO_RULE] = "no-rule",
	[XRL_CAP_WHY_NON_IP] = "non-ip",   [XRL_CAP_WHY_MALFORMED] = "malformed", [XRL_CAP_WHY_HIDDEN] = "hidden",
};

static const char *why_name(__u8 why)
{
	return why < XRL_CAP_WHY_MAX && why_names[why] ? why_names[why] : "unknown";
}

/* A frame's addresses and ports, as far as its captured bytes go. */
struct frame_view {
	__u32 caplen, type; /* type: the ethertype after up to two VLAN tags */
	int family;	    /* AF_INET, AF_INET6, or 0: not IP (or cut short) */
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	__u8 proto;
	int sport, dport; /* -1: none (not TCP or UDP, a later fragment, cut short) */
};

static void frame_view(const __u8 *d, __u32 caplen, struct frame_view *v)
{
	__u32 off = 14, l4 = 0, n;

	*v = (struct frame_view){ .caplen = caplen, .sport = -1, .dport = -1 };
	if (caplen < 14)
		return;
	v->type = (__u32)d[12] << 8 | d[13];
	for (n = 0; n < 2 && (v->type == 0x8100 || v->type == 0x88a8) && off + 4 <= caplen; n++, off += 4)
		v->type = (__u32)d[off + 2] << 8 | d[off + 3];
	if (v->type == 0x0800 && off + 20 <= caplen) {
		v->family = AF_INET;
		inet_ntop(AF_INET, d + off + 12, v->src, sizeof(v->src));
		inet_ntop(AF_INET, d + off + 16, v->dst, sizeof(v->dst));
		v->proto = d[off + 9];
		if (!((d[off + 6] & 0x1f) | d[off + 7])) /* not a later fragment */
			l4 = off + (d[off] & 0xf) * 4;
	} else if (v->type == 0x86dd && off + 40 <= caplen) {
		v->family = AF_INET6;
		inet_ntop(AF_INET6, d + off + 8, v->src, sizeof(v->src));
		inet_ntop(AF_INET6, d + off + 24, v->dst, sizeof(v->dst));
		v->proto = d[off + 6];
		l4 = off + 40;
	}
	if (v->family && (v->proto == 6 || v->proto == 17) && l4 && l4 + 4 <= caplen) {
		v->sport = (int)((__u32)d[l4] << 8 | d[l4 + 1]);
		v->dport = (int)((__u32)d[l4 + 2] << 8 | d[l4 + 3]);
	}
}

/* "10.0.0.2.4000 > 10.0.0.1.53 udp". */
static void frame_line(const struct frame_view *v, char *buf, size_t len)
{
	__u8 p = v->proto;
	char proto[16];

	if (v->caplen < 14) {
		snprintf(buf, len, "(%u bytes)", v->caplen);
		return;
	}
	if (!v->family) {
		snprintf(buf, len, "ethertype 0x%04x", v->type);
		return;
	}
	snprintf(proto, sizeof(proto), "%s",
		 p == 6	 ? "tcp" :
		 p == 17 ? "udp" :
		 p == 1	 ? "icmp" :
		 p == 58 ? "icmpv6" :
			   "");
	if (!proto[0])
		snprintf(proto, sizeof(proto), "proto %u", p);
	if (v->sport >= 0)
		snprintf(buf, len, "%s.%d > %s.%d %s", v->src, v->sport, v->dst, v->dport, proto);
	else
		snprintf(buf, len, "%s > %s %s", v->src, v->dst, proto);
}

static void frame_fields_json(const struct frame_view *v, json_t *j)
{
	if (v->caplen < 14)
		return;
	if (!v->family) {
		json_object_set_new(j, "ethertype", json_integer(v->type));
		return;
	}
	json_object_set_new(j, "src", json_string(v->src));
	json_object_set_new(j, "dst", json_string(v->dst));
	json_object_set_new(j, "proto", json_integer(v->proto));
	if (v->sport >= 0) {
		json_object_set_new(j, "sport", json_integer(v->sport));
		json_object_set_new(j, "dport", json_integer(v->dport));
	}
}

static bool has_reason(const struct xrl_cap_rec *rec)
{
	return rec->why == XRL_CAP_WHY_MALFORMED || rec->why == XRL_CAP_WHY_HIDDEN;
}

static const char *frame_verdict(const struct xrl_cap_rec *rec)
{
	return rec->verdict == 1 ? "drop" : "pass";
}

void cap_frame_plain(const struct cap_frame *f)
{
	const struct xrl_cap_rec *rec = f->rec;
	char frame[160], rule[256] = "", when[40];
	struct frame_view v;
	struct tm tm;

	if (f->rule)
		xrl_spec_format(f->rule, rule, sizeof(rule));
	frame_view(f->data, rec->caplen, &v);
	frame_line(&v, frame, sizeof(frame));
	localtime_r(&f->ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	printf("%s.%06ld %s %s len %u, %s%s%s%s%s\n", when, f->ts.tv_nsec / 1000, frame_verdict(rec), frame, rec->len,
	       why_name(rec->why), has_reason(rec) ? " " : "", has_reason(rec) ? xrl_malformed_name(rec->reason) : "",
	       rule[0] ? ": " : "", rule);
}

void cap_frame_json(const struct cap_frame *f)
{
	const struct xrl_cap_rec *rec = f->rec;
	json_t *j = json_object();
	char when[40], stamp[80];
	struct frame_view v;
	struct tm tm;

	gmtime_r(&f->ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(stamp, sizeof(stamp), "%s.%06ldZ", when, (long)((unsigned long)f->ts.tv_nsec / 1000 % 1000000));
	json_object_set_new(j, "time", json_string(stamp));
	json_object_set_new(j, "interface", json_string(f->iface));
	json_object_set_new(j, "verdict", json_string(frame_verdict(rec)));
	json_object_set_new(j, "why", json_string(why_name(rec->why)));
	if (has_reason(rec))
		json_object_set_new(j, "malformed", json_string(xrl_malformed_name(rec->reason)));
	json_object_set_new(j, "rule", f->rule ? cli_rule_json(f->rule) : json_null());
	json_object_set_new(j, "len", json_integer(rec->len));
	json_object_set_new(j, "caplen", json_integer(rec->caplen));
	json_object_set_new(j, "cpu", json_integer(rec->cpu));
	frame_view(f->data, rec->caplen, &v);
	frame_fields_json(&v, j);
	cli_json(j);
}

void cap_summary_plain(const struct cap_summary *s)
{
	fprintf(stderr,
		"%s: %llu frame%s captured, %llu written to %s%s; %llu lost to the rate bound (--max-rate %u a second a CPU), %llu lost to a full ring; %llu matched (%s)\n",
		s->iface, (unsigned long long)s->n.captured, s->n.captured == 1 ? "" : "s",
		(unsigned long long)s->written, s->to, s->beyond ? " (the rest after --count)" : "",
		(unsigned long long)s->n.lost_rate, s->max_rate, (unsigned long long)s->n.lost_full,
		(unsigned long long)s->n.matched, s->ended);
}

void cap_summary_json(const struct cap_summary *s)
{
	json_t *j = json_pack("{s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:s}", "interface", s->iface, "verdict",
			      s->passed ? "pass" : "drop", "output", s->to, "matched", (json_int_t)s->n.matched,
			      "captured", (json_int_t)s->n.captured, "written", (json_int_t)s->written, "not_written",
			      (json_int_t)s->beyond, "lost_rate", (json_int_t)s->n.lost_rate, "lost_full",
			      (json_int_t)s->n.lost_full, "max_rate", (json_int_t)s->max_rate, "ended", s->ended);

	/* With pcap on standard output, the summary goes to standard error. */
	if (s->pcap_stdout) {
		json_dumpf(j, stderr, JSON_COMPACT | JSON_PRESERVE_ORDER);
		fputc('\n', stderr);
		json_decref(j);
	} else {
		cli_json(j);
	}
}
