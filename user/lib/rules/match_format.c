// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Match rules printed in one order, whatever order they were written in:
 * src, dst, proto, tcp flags, icmp type, sport, dport, length, ttl, dscp,
 * frag, payload (nftables' lines read so: "proto tcp tcp flags ack /
 * syn,ack,rst dport 443").
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "rules/rule.h"
#include "rules/internal.h"

struct out {
	char *buf;
	size_t len, n;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(o->buf + (o->n < o->len ? o->n : o->len), o->n < o->len ? o->len - o->n : 0, fmt, ap);
	va_end(ap);
	if (w > 0)
		o->n += (size_t)w;
}

static void addr(struct out *o, const char *word, const struct xrl_maddr *a)
{
	char s[INET6_ADDRSTRLEN];

	put(o, " %s%s ", word, a->neg ? " !=" : "");
	if (a->set[0]) {
		put(o, "@%s", a->set);
		return;
	}
	xrl_format_addr(a->family, a->addr, s, sizeof(s));
	if (a->plen == (a->family == XRL_FAMILY_V4 ? 32 : 128))
		put(o, "%s", s);
	else
		put(o, "%s/%u", s, a->plen);
}

static void one(struct out *o, const char *word, unsigned int v)
{
	const char *name = !strcmp(word, "dscp") ? xrl_dscp_name(v) : !strcmp(word, "frag") ? xrl_frag_name(v) : NULL;

	if (name)
		put(o, "%s", name);
	else
		put(o, "%u", v);
}

static void ranges(struct out *o, const char *word, const struct xrl_mranges *f, const char *set)
{
	__u8 i;

	put(o, " %s%s ", word, f->neg ? " !=" : "");
	if (set && set[0]) {
		put(o, "@%s", set);
		return;
	}
	if (f->n > 1)
		put(o, "{ ");
	for (i = 0; i < f->n; i++) {
		if (i)
			put(o, ", ");
		one(o, word, f->r[i].lo);
		if (f->r[i].hi != f->r[i].lo) {
			put(o, "-");
			one(o, word, f->r[i].hi);
		}
	}
	if (f->n > 1)
		put(o, " }");
}

static void hex(struct out *o, const __u8 *b, __u8 n)
{
	__u8 i;

	for (i = 0; i < n; i++)
		put(o, "%02x", b[i]);
}

int xrl_match_format(const struct xrl_spec *s, char *buf, size_t len)
{
	const struct xrl_match *m = &s->m;
	struct out o = { buf, len, 0 };
	char t[64];
	__u8 i;

	if (len)
		buf[0] = '\0';
	if (m->given & XRL_MF_SRC)
		addr(&o, "src", &m->src);
	if (m->given & XRL_MF_DST)
		addr(&o, "dst", &m->dst);
	if (m->given & XRL_MF_PROTO) {
		xrl_mproto_format(m->proto, t, sizeof(t));
		put(&o, " proto %s", t);
	}
	if (m->given & XRL_MF_TCPFLAGS) {
		xrl_tcp_flags_format(m->flags, t, sizeof(t));
		put(&o, " tcp flags %s / ", t);
		xrl_tcp_flags_format(m->flags_mask, t, sizeof(t));
		put(&o, "%s", t);
	}
	if (m->given & XRL_MF_ICMP) {
		put(&o, " %s type %u", m->proto == XRL_PROTO_ICMPV6 ? "icmpv6" : "icmp", m->icmp_type);
		if (m->has_code)
			put(&o, " code %u", m->icmp_code);
	}
	if (m->given & XRL_MF_SPORT)
		ranges(&o, "sport", &m->sport, m->sport_set);
	if (m->given & XRL_MF_DPORT)
		ranges(&o, "dport", &m->dport, m->dport_set);
	if (m->given & XRL_MF_LENGTH)
		ranges(&o, "length", &m->length, NULL);
	if (m->given & XRL_MF_TTL)
		ranges(&o, "ttl", &m->ttl, NULL);
	if (m->given & XRL_MF_DSCP)
		ranges(&o, "dscp", &m->dscp, NULL);
	if (m->given & XRL_MF_FRAG)
		ranges(&o, "frag", &m->frag, NULL);
	if (m->given & XRL_MF_PAYLOAD) {
		put(&o, " payload %u ", m->payload_off);
		hex(&o, m->payload, m->payload_len);
		for (i = 0; i < m->payload_len && m->payload_mask[i] == 0xff; i++)
			;
		if (i < m->payload_len) {
			put(&o, " / ");
			hex(&o, m->payload_mask, m->payload_len);
		}
	}
	/* The words began with a space each: the first one's goes. */
	if (o.n && o.n < len)
		memmove(buf, buf + 1, o.n);
	return o.n ? (int)o.n - 1 : 0;
}

static bool addr_same(const struct xrl_maddr *a, const struct xrl_maddr *b)
{
	return a->neg == b->neg && a->family == b->family && a->plen == b->plen && !memcmp(a->addr, b->addr, 16) &&
	       !strcmp(a->set, b->set);
}

static bool ranges_same(const struct xrl_mranges *a, const struct xrl_mranges *b)
{
	return a->n == b->n && a->neg == b->neg && !memcmp(a->r, b->r, a->n * sizeof(a->r[0]));
}

/* Field by field: the parser zeroes what a rule does not give, and sorts sets. */
bool xrl_match_same(const struct xrl_match *a, const struct xrl_match *b)
{
	return a->given == b->given && addr_same(&a->src, &b->src) && addr_same(&a->dst, &b->dst) &&
	       a->proto == b->proto && a->flags == b->flags && a->flags_mask == b->flags_mask &&
	       a->icmp_type == b->icmp_type && a->icmp_code == b->icmp_code && a->has_code == b->has_code &&
	       a->payload_len == b->payload_len && a->payload_off == b->payload_off &&
	       !memcmp(a->payload, b->payload, sizeof(a->payload)) &&
	       !memcmp(a->payload_mask, b->payload_mask, sizeof(a->payload_mask)) &&
	       ranges_same(&a->sport, &b->sport) && ranges_same(&a->dport, &b->dport) &&
	       !strcmp(a->sport_set, b->sport_set) && !strcmp(a->dport_set, b->dport_set) &&
	       ranges_same(&a->length, &b->length) && ranges_same(&a->ttl, &b->ttl) &&
	       ranges_same(&a->dscp, &b->dscp) && ranges_same(&a->frag, &b->frag);
}

__u8 xrl_spec_family(const struct xrl_spec *s)
{
	if (s->kind != XRL_KIND_MATCH)
		return s->family;
	return s->m.src.family ? s->m.src.family : s->m.dst.family;
}
