// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The renderers more than one command uses (render.h). */
#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "fleet/share.h"
#include "read/limit.h"
#include "render.h"
#include "codec/specialise.h"
#include "read/stats.h"

static json_t *addr_json(const struct xrl_maddr *a)
{
	char s[INET6_ADDRSTRLEN + 8];

	if (a->set[0])
		return json_pack("{s:s,s:b}", "set", a->set, "negated", a->neg);
	xrl_format_addr(a->family, a->addr, s, sizeof(s));
	snprintf(s + strlen(s), sizeof(s) - strlen(s), "/%u", a->plen);
	return json_pack("{s:s,s:b}", "prefix", s, "negated", a->neg);
}

static json_t *ranges_json(const struct xrl_mranges *f, const char *set)
{
	json_t *arr = json_array();
	__u8 i;

	if (set && set[0]) {
		json_decref(arr);
		return json_pack("{s:s,s:b}", "set", set, "negated", f->neg);
	}

	for (i = 0; i < f->n; i++)
		json_array_append_new(arr, json_pack("[i,i]", f->r[i].lo, f->r[i].hi));
	return json_pack("{s:o,s:b}", "ranges", arr, "negated", f->neg);
}

static json_t *hex_json(const __u8 *b, __u8 n)
{
	char s[2 * XRL_MATCH_PAYLOAD + 1];
	__u8 i;

	for (i = 0; i < n; i++)
		snprintf(s + 2 * i, 3, "%02x", b[i]);
	s[2 * n] = '\0';
	return json_string(s);
}

/* A match rule's fields, each one it gives: what explain and scripts read, beside the line. */
static json_t *fields_json(const struct xrl_match *m)
{
	const struct {
		const char *name;
		__u32 bit;
		size_t off;
		const char *set;
	} rf[] = {
		{ "sport", XRL_MF_SPORT, offsetof(struct xrl_match, sport), m->sport_set },
		{ "dport", XRL_MF_DPORT, offsetof(struct xrl_match, dport), m->dport_set },
		{ "length", XRL_MF_LENGTH, offsetof(struct xrl_match, length), NULL },
		{ "ttl", XRL_MF_TTL, offsetof(struct xrl_match, ttl), NULL },
		{ "dscp", XRL_MF_DSCP, offsetof(struct xrl_match, dscp), NULL },
		{ "frag", XRL_MF_FRAG, offsetof(struct xrl_match, frag), NULL },
	};
	json_t *o = json_object();
	char a[64], b[64];
	size_t i;

	if (m->given & XRL_MF_SRC)
		json_object_set_new(o, "src", addr_json(&m->src));
	if (m->given & XRL_MF_DST)
		json_object_set_new(o, "dst", addr_json(&m->dst));
	if (m->given & XRL_MF_PROTO)
		json_object_set_new(o, "proto", json_integer(m->proto));
	if (m->given & XRL_MF_TCPFLAGS) {
		xrl_tcp_flags_format(m->flags, a, sizeof(a));
		xrl_tcp_flags_format(m->flags_mask, b, sizeof(b));
		json_object_set_new(o, "tcp_flags", json_pack("{s:s,s:s}", "flags", a, "mask", b));
	}
	if (m->given & XRL_MF_ICMP) {
		json_t *ic = json_pack("{s:i}", "type", m->icmp_type);

		if (m->has_code)
			json_object_set_new(ic, "code", json_integer(m->icmp_code));
		json_object_set_new(o, "icmp", ic);
	}
	for (i = 0; i < sizeof(rf) / sizeof(rf[0]); i++)
		if (m->given & rf[i].bit)
			json_object_set_new(o, rf[i].name,
					    ranges_json((const struct xrl_mranges *)((const char *)m + rf[i].off),
							rf[i].set));
	if (m->given & XRL_MF_PAYLOAD)
		json_object_set_new(o, "payload",
				    json_pack("{s:i,s:o,s:o}", "offset", m->payload_off, "value",
					      hex_json(m->payload, m->payload_len), "mask",
					      hex_json(m->payload_mask, m->payload_len)));
	return o;
}

/* One rate of window w: as written, packets or bytes, its threshold and its window. */
static json_t *rate_json(const struct xrl_rule *w, bool bytes)
{
	char rate[64];

	if (bytes)
		xrl_byte_rate_format(w, rate, sizeof(rate));
	else
		xrl_rate_format(w, rate, sizeof(rate));
	return json_pack("{s:s,s:s,s:I,s:I,s:I}", "rate", rate, "counts", bytes ? "bytes" : "packets", "threshold",
			 (json_int_t)(bytes ? w->byte_threshold : w->threshold), "window_ms",
			 (json_int_t)(w->interval_ns / 1000000), "buckets", (json_int_t)w->buckets);
}

/* Every rate of rule s, a window each (a packet rate and a byte rate of one rule's window: two). */
static json_t *rates_json(const struct xrl_spec *s)
{
	json_t *arr = json_array();
	int k;

	for (k = 0; k <= s->nw; k++) {
		const struct xrl_rule *w = xrl_spec_window(s, k);

		if (!(w->flags & XRL_F_NO_PKT_RATE))
			json_array_append_new(arr, rate_json(w, false));
		if (w->byte_unit)
			json_array_append_new(arr, rate_json(w, true));
	}
	return arr;
}

json_t *cli_window_json(const struct xrl_spec *s, int k)
{
	const struct xrl_rule *w = xrl_spec_window(s, k);
	bool bytes = w->flags & XRL_F_NO_PKT_RATE;
	json_t *o = rate_json(w, bytes);

	json_object_set_new(o, "window", json_integer(k));
	return o;
}

json_t *cli_windows_json(const struct xrl_spec *s, const __u64 *blocked)
{
	json_t *arr = json_array(), *o;
	int k;

	for (k = 0; k <= s->nw; k++) {
		o = cli_window_json(s, k);
		json_object_set_new(o, "blocked", json_integer((json_int_t)blocked[k]));
		json_array_append_new(arr, o);
	}
	return arr;
}

void cli_windows_text(const struct xrl_spec *s, const __u64 *blocked, char *buf, size_t len)
{
	char win[96];
	size_t n;
	int k;

	n = (size_t)snprintf(buf, len, "windows:");
	for (k = 0; k <= s->nw && n < len; k++) {
		xrl_window_format(xrl_spec_window(s, k), win, sizeof(win));
		n += (size_t)snprintf(buf + n, len - n, "%s %s: %llu blocked", k ? ";" : "", win,
				      (unsigned long long)blocked[k]);
	}
}

json_t *cli_rule_json(const struct xrl_spec *s)
{
	bool allow = s->r.flags & XRL_F_ALLOW;
	char line[XRL_RULE_TEXT], match[XRL_RULE_TEXT], scope[32];
	json_t *o;

	xrl_spec_format(s, line, sizeof(line));
	xrl_spec_format_match(s, match, sizeof(match));
	o = json_pack("{s:s,s:s,s:s,s:s}", "rule", line, "match", match, "kind", xrl_kind_name(s->kind), "action",
		      allow ? "allow" : "limit");
	if (s->set[0])
		json_object_set_new(o, "set", json_string(s->set));
	if (s->kind == XRL_KIND_MATCH)
		json_object_set_new(o, "fields", fields_json(&s->m));
	if (allow)
		return o;
	if (!(s->r.flags & XRL_F_NO_PKT_RATE))
		json_object_set_new(o, "threshold", json_integer((json_int_t)s->r.threshold));
	if (s->r.byte_unit) {
		char rate[64];

		xrl_byte_rate_format(&s->r, rate, sizeof(rate));
		json_object_set_new(o, "byte_rate", json_string(rate));
		json_object_set_new(o, "byte_threshold", json_integer((json_int_t)s->r.byte_threshold));
	}
	if (s->r.warmup_ms)
		json_object_set_new(o, "warmup_ms", json_integer((json_int_t)s->r.warmup_ms));
	json_object_set_new(o, "window_ms", json_integer((json_int_t)(s->r.interval_ns / 1000000)));
	json_object_set_new(o, "buckets", json_integer((json_int_t)s->r.buckets));
	json_object_set_new(o, "rates", rates_json(s));
	snprintf(scope, sizeof(scope), "%s%s", s->per ? "per " : "", xrl_per_name(xrl_spec_per(s)));
	json_object_set_new(o, "scope", json_string(scope));
	json_object_set_new(o, "monitor", json_boolean(s->r.flags & XRL_F_MONITOR));
	json_object_set_new(o, "global", json_boolean(s->r.flags & XRL_F_GLOBAL));
	return o;
}

/* A set in JSON: its name, its file (null when written inline), what it holds: its prefixes counted, a port set's ranges. */
json_t *cli_set_json(const struct xrl_pset *ps)
{
	json_t *o = json_pack("{s:s,s:s?,s:s,s:I}", "name", ps->name, "file", ps->path[0] ? ps->path : NULL, "type",
			      ps->kind == XRL_PSET_PORTS ? "ports" : "prefixes", "prefixes", (json_int_t)ps->n);
	json_t *arr;
	size_t i;

	if (ps->kind != XRL_PSET_PORTS)
		return o;
	arr = json_array();
	for (i = 0; i < ps->nports; i++)
		json_array_append_new(arr, json_pack("[i,i]", ps->ports[i].lo, ps->ports[i].hi));
	json_object_set_new(o, "ports", arr);
	return o;
}

json_t *cli_features_json(__u32 f)
{
	json_t *arr = json_array();
	unsigned int b;

	for (b = 0; b < XRL_FEATURE_BITS; b++)
		if (f & (1U << b))
			json_array_append_new(arr, json_string(xrl_feature_name(b)));
	return arr;
}

json_t *cli_counters_json(const struct xrl_counters *c)
{
	json_t *mal = json_object();
	int i;

	for (i = 0; i < XRL_MAL_MAX; i++)
		json_object_set_new(mal, xrl_malformed_name(i), json_integer((json_int_t)c->malformed[i]));
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o}", "seen", (json_int_t)c->seen, "passed",
			 (json_int_t)c->passed, "dropped", (json_int_t)c->dropped, "non_ip", (json_int_t)c->non_ip,
			 "no_rule", (json_int_t)c->no_rule, "allowed", (json_int_t)c->allowed, "monitored",
			 (json_int_t)c->monitored, "keys_new", (json_int_t)c->keys_new, "keys_failed",
			 (json_int_t)c->keys_failed, "sketch_judged", (json_int_t)c->sketch_judged, "sketch_blocked",
			 (json_int_t)c->sketch_blocked, "malformed", mal);
}

static __u64 realtime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec * 1000 + (__u64)ts.tv_nsec / 1000000;
}

static void rfc3339_ms(__u64 ms, char *buf, size_t len)
{
	time_t t = (time_t)(ms / 1000);
	char sec[32];
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(sec, sizeof(sec), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%.20s.%03uZ", sec, (unsigned int)(ms % 1000));
}

json_t *cli_fleet_json(const struct xrl_spec *s, const struct xrl_fleet *f)
{
	__u64 now = realtime_ms();
	char ts[40];
	json_t *o;

	if (!f)
		return json_pack("{s:s,s:I,s:I,s:n,s:n,s:I,s:I}", "policy", "none", "allowance",
				 (json_int_t)xrl_limit(&s->r, NULL), "limit", (json_int_t)s->r.threshold, "nodes",
				 "last_sync", "sync_failures", (json_int_t)0, "sync_failures_total", (json_int_t)0);
	o = json_pack("{s:s,s:I,s:I,s:i,s:I,s:I,s:I,s:i,s:i}", "policy", xrl_policy_name(f->policy), "allowance",
		      (json_int_t)xrl_limit(&s->r, f), "limit", (json_int_t)s->r.threshold, "nodes", (int)f->nodes,
		      "sync_failures", (json_int_t)f->failures, "sync_failures_total", (json_int_t)f->total_fails,
		      "fleet_demand", (json_int_t)f->fleet_demand, "interval_ms", (int)f->interval_ms, "agent_pid",
		      (int)f->agent_pid);
	if (f->synced_ms) {
		rfc3339_ms(f->synced_ms, ts, sizeof(ts));
		json_object_set_new(o, "last_sync", json_string(ts));
		json_object_set_new(o, "last_sync_age_ms",
				    json_integer(now > f->synced_ms ? (json_int_t)(now - f->synced_ms) : 0));
	} else {
		json_object_set_new(o, "last_sync", json_null());
	}
	return o;
}

void cli_fleet_text(const struct xrl_spec *s, const struct xrl_fleet *f, char *buf, size_t len)
{
	__u64 now = realtime_ms();
	char when[48];

	if (!f) {
		snprintf(
			buf, len,
			"fleet: no agent has synced it, so this node passes the whole limit (see 'xdp-ratelimit sync')");
		return;
	}
	if (f->synced_ms)
		snprintf(when, sizeof(when), "%.1f s ago",
			 now > f->synced_ms ? (double)(now - f->synced_ms) / 1000.0 : 0.0);
	else
		snprintf(when, sizeof(when), "never");
	snprintf(buf, len, "fleet: %s%s, %u nodes, allowance %llu of %llu a window, last sync %s, %u failures in a row",
		 xrl_policy_name(f->policy),
		 f->policy == XRL_FLEET_SHARED && f->failures ?
			 " (the last good sync's allowance, held while it retries)" :
			 "",
		 f->nodes, (unsigned long long)xrl_limit(&s->r, f), (unsigned long long)s->r.threshold, when,
		 f->failures);
}

const char *cli_clock_name(__u32 c)
{
	return c == XRL_CLOCK_COARSE ? "coarse" : c == XRL_CLOCK_TEST ? "test" : "precise";
}
