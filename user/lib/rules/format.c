// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Rules printed back in the grammar they are parsed from: dump | apply round-trips. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "rules/rule.h"
#include "rules/internal.h"
#include "base/err.h"

int xrl_spec_format_match(const struct xrl_spec *s, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (s->kind == XRL_KIND_MATCH)
		return xrl_match_format(s, buf, len);
	if (s->kind == XRL_KIND_PROTO && s->sel == XRL_SEL_FRAGMENTS)
		return snprintf(buf, len, "fragments");
	if (s->kind == XRL_KIND_PROTO) {
		int n = snprintf(buf, len, "proto ");

		return n + xrl_sel_format(s->sel, buf + n, len > (size_t)n ? len - n : 0);
	}
	if (s->kind == XRL_KIND_PORT && !s->family)
		return snprintf(buf, len, "port %u/%s", s->port, xrl_proto_name(s->proto));
	if (s->set[0])
		return snprintf(buf, len, "%s @%s", s->kind == XRL_KIND_DST ? "dst" : "prefix", s->set);
	xrl_format_addr(s->family, s->addr, a, sizeof(a));
	if (s->kind == XRL_KIND_PORT)
		return snprintf(buf, len, "port %u/%s dst %s/%u", s->port, xrl_proto_name(s->proto), a, s->plen);
	return snprintf(buf, len, "%s %s/%u", s->kind == XRL_KIND_DST ? "dst" : "prefix", a, s->plen);
}

int xrl_rate_format(const struct xrl_rule *r, char *buf, size_t len)
{
	return xrl_format_rate(r->rate, r->rate_unit_ms, buf, len);
}

int xrl_window_format(const struct xrl_rule *r, char *buf, size_t len)
{
	char rate[32], win[32];

	if (r->flags & XRL_F_NO_PKT_RATE)
		xrl_byte_rate_format(r, rate, sizeof(rate));
	else
		xrl_rate_format(r, rate, sizeof(rate));
	xrl_format_duration(r->interval_ns, win, sizeof(win));
	return snprintf(buf, len, "%s over %s in %u buckets", rate, win, r->buckets);
}

int xrl_byte_rate_format(const struct xrl_rule *r, char *buf, size_t len)
{
	if (!r->byte_unit)
		return snprintf(buf, len, "%s", "");
	return snprintf(buf, len, "%llu%s/%s", (unsigned long long)r->byte_rate, xrl_byte_unit_name(r->byte_unit),
			xrl_time_unit_name(r->byte_unit_ms));
}

/* Window r's packet rate: a match rule's reads as written below 10k ("1000/s", "50k/s"); the others' as they always did. */
static void pkt_rate(const struct xrl_spec *s, const struct xrl_rule *r, char *buf, size_t len)
{
	if (s->kind == XRL_KIND_MATCH && r->rate < 10000)
		snprintf(buf, len, "%llu/%s", (unsigned long long)r->rate, xrl_time_unit_name(r->rate_unit_ms));
	else
		xrl_format_rate(r->rate, r->rate_unit_ms, buf, len);
}

/* Window r's rate, packets or bytes, and its window when another than its unit's of 2 buckets (a rule of several). */
static int format_window(const struct xrl_spec *s, const struct xrl_rule *r, char *buf, size_t len)
{
	char rate[32], win[32];
	int n;

	if (!(r->flags & XRL_F_NO_PKT_RATE)) {
		pkt_rate(s, r, rate, sizeof(rate));
		n = snprintf(buf, len, " rate %s", rate);
	} else {
		xrl_byte_rate_format(r, rate, sizeof(rate));
		n = snprintf(buf, len, " rate %s", rate);
	}
	if ((size_t)n < len &&
	    (r->interval_ns !=
		     (__u64)((r->flags & XRL_F_NO_PKT_RATE) ? r->byte_unit_ms : r->rate_unit_ms) * NS_PER_MS ||
	     r->buckets != 2)) {
		xrl_format_duration(r->interval_ns, win, sizeof(win));
		n += snprintf(buf + n, len - n, " window %s buckets %u", win, r->buckets);
	}
	return n;
}

int xrl_spec_format(const struct xrl_spec *s, char *buf, size_t len)
{
	const struct xrl_rule *r = &s->r;
	char rate[32], win[32];
	int n, k;

	n = xrl_spec_format_match(s, buf, len);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	if (r->flags & XRL_F_ALLOW)
		return snprintf(buf + n, len - n, " allow") >= (int)(len - n) ? -ENOSPC : 0;
	if (s->nw) {
		/* A rule of several windows: each rate with its window, in the order written. */
		for (k = 0; k <= s->nw && (size_t)n < len; k++)
			n += format_window(s, xrl_spec_window(s, k), buf + n, len - n);
		goto scope;
	}
	if (!(r->flags & XRL_F_NO_PKT_RATE)) {
		pkt_rate(s, r, rate, sizeof(rate));
		n += snprintf(buf + n, len - n, " rate %s", rate);
	}
	if ((size_t)n < len && r->byte_unit) {
		n += snprintf(buf + n, len - n, " rate ");
		if ((size_t)n < len)
			n += xrl_byte_rate_format(r, buf + n, len - n);
	}
	xrl_format_duration(r->interval_ns, win, sizeof(win));
	/* A match rule prints its window only when it is not the default, so that it reads as written. */
	if ((size_t)n < len && (s->kind != XRL_KIND_MATCH || r->interval_ns != 1000 * NS_PER_MS || r->buckets != 2))
		n += snprintf(buf + n, len - n, " window %s buckets %u", win, r->buckets);
scope:
	if ((size_t)n < len)
		n += snprintf(buf + n, len - n, " %s%s", s->per ? "per " : "", xrl_per_name(xrl_spec_per(s)));
	if ((size_t)n < len && r->warmup_ms) {
		xrl_format_duration((__u64)r->warmup_ms * NS_PER_MS, win, sizeof(win));
		n += snprintf(buf + n, len - n, " warmup %s", win);
	}
	if ((size_t)n < len && (xrl_spec_per(s) & (XRL_PER_SRC | XRL_PER_DST))) {
		/* A single prefix's one family takes 'mask'; every other rule mask4 and mask6. */
		bool one = s->kind == XRL_KIND_PREFIX && s->family;

		if (one && s->family == XRL_FAMILY_V4 && r->src_mask4 != 32)
			n += snprintf(buf + n, len - n, " mask %u", r->src_mask4);
		else if (one && s->family == XRL_FAMILY_V6 && r->src_mask6 != 64)
			n += snprintf(buf + n, len - n, " mask %u", r->src_mask6);
		else if (!one && r->src_mask4 != 32)
			n += snprintf(buf + n, len - n, " mask4 %u", r->src_mask4);
		if ((size_t)n < len && !one && r->src_mask6 != 64)
			n += snprintf(buf + n, len - n, " mask6 %u", r->src_mask6);
	}
	if ((size_t)n < len && (r->flags & XRL_F_GLOBAL))
		n += snprintf(buf + n, len - n, " global");
	if ((size_t)n < len && (r->flags & XRL_F_MONITOR))
		n += snprintf(buf + n, len - n, " monitor");
	return (size_t)n >= len ? -ENOSPC : 0;
}

bool xrl_spec_same_match(const struct xrl_spec *a, const struct xrl_spec *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == XRL_KIND_MATCH)
		return xrl_match_same(&a->m, &b->m);
	if (a->kind == XRL_KIND_PORT && (a->proto != b->proto || a->port != b->port))
		return false;
	if (a->kind == XRL_KIND_PROTO)
		return a->sel == b->sel;
	if (a->set[0] || b->set[0])
		return !strcmp(a->set, b->set);
	/* A port rule's destination, when narrowed (family 0 on both when not). */
	return a->family == b->family && a->plen == b->plen && !memcmp(a->addr, b->addr, 16);
}
