// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Does rule R match packet P, field by field: a plain predicate, the
 * reference the classifier is tested against and what explain shows. And
 * each classifier field of a match rule as the values it accepts, which the
 * table builder (codec/match_lbvs.c) and lint read.
 */
#include <string.h>
#include "rules/rule.h"
#include "rules/internal.h"

static bool in_ranges(const struct xrl_mranges *f, unsigned int v)
{
	bool in = false;
	__u8 i;

	for (i = 0; i < f->n; i++)
		in |= f->r[i].lo <= v && v <= f->r[i].hi;
	return in != (f->neg != 0);
}

/* A ranges field, or the named port set it names (none: no port is in it). */
static bool in_field(const struct xrl_mranges *f, const char *name, const struct xrl_ruleset *set, unsigned int v)
{
	const struct xrl_pset *ps;
	bool in = false;
	size_t i;

	if (!name[0])
		return in_ranges(f, v);
	ps = set ? xrl_ruleset_port_set(set, name) : NULL;
	for (i = 0; ps && i < ps->nports && !in; i++)
		in = ps->ports[i].lo <= v && v <= ps->ports[i].hi;
	return in != (f->neg != 0);
}

static bool pfx_has(const __u8 *pfx, __u8 plen, const __u8 *a)
{
	__u8 full = plen / 8, rest = plen % 8;

	return !memcmp(pfx, a, full) && (!rest || !((pfx[full] ^ a[full]) & (__u8)(0xff << (8 - rest))));
}

/* A single prefix of one family, or a set of both: a negated set holds what it does not. */
static bool addr_match(const struct xrl_maddr *a, const struct xrl_ruleset *set, const __u8 *pa, __u8 fam)
{
	const struct xrl_pset *ps;
	bool in = false;
	size_t j;

	if (a->set[0]) {
		ps = set ? xrl_ruleset_set(set, a->set) : NULL;
		for (j = 0; ps && j < ps->n && !in; j++)
			in = ps->v[j].family == fam && pfx_has(ps->v[j].addr, ps->v[j].plen, pa);
		return in != (a->neg != 0);
	}
	return a->family == fam && pfx_has(a->addr, a->plen, pa) != (a->neg != 0);
}

static __u32 match_eval(const struct xrl_match *m, const struct xrl_ruleset *set, const struct xrl_match_pkt *p)
{
	const __u16 *v = p->v.v;
	/* A later fragment has no transport header: its fields are not there to match, negated or not. */
	bool l4 = v[XRL_LBVS_FRAG] != XRL_LBVS_FRAG_LATER;
	__u32 ok = 0;
	__u8 i;

	if (addr_match(&m->src, set, p->src, p->family))
		ok |= XRL_MF_SRC;
	if (addr_match(&m->dst, set, p->dst, p->family))
		ok |= XRL_MF_DST;
	if (v[XRL_LBVS_PROTO] == m->proto)
		ok |= XRL_MF_PROTO;
	if (l4 && (v[XRL_LBVS_TCPFLAGS] & m->flags_mask) == m->flags)
		ok |= XRL_MF_TCPFLAGS;
	if (l4 && v[XRL_LBVS_ICMP] >> 8 == m->icmp_type && (!m->has_code || (v[XRL_LBVS_ICMP] & 0xff) == m->icmp_code))
		ok |= XRL_MF_ICMP;
	if (l4 && in_field(&m->sport, m->sport_set, set, v[XRL_LBVS_SPORT]))
		ok |= XRL_MF_SPORT;
	if (l4 && in_field(&m->dport, m->dport_set, set, v[XRL_LBVS_DPORT]))
		ok |= XRL_MF_DPORT;
	if (in_ranges(&m->length, v[XRL_LBVS_LENGTH]))
		ok |= XRL_MF_LENGTH;
	if (in_ranges(&m->ttl, v[XRL_LBVS_TTL]))
		ok |= XRL_MF_TTL;
	if (in_ranges(&m->dscp, v[XRL_LBVS_DSCP]))
		ok |= XRL_MF_DSCP;
	if (in_ranges(&m->frag, v[XRL_LBVS_FRAG]))
		ok |= XRL_MF_FRAG;
	if (l4 && p->payload && (__u32)m->payload_off + m->payload_len <= p->payload_len) {
		for (i = 0; i < m->payload_len; i++)
			if ((p->payload[m->payload_off + i] & m->payload_mask[i]) != m->payload[i])
				break;
		if (i == m->payload_len)
			ok |= XRL_MF_PAYLOAD;
	}
	return ok & m->given;
}

__u32 xrl_spec_fields(const struct xrl_spec *s)
{
	switch (s->kind) {
	case XRL_KIND_MATCH:
		return s->m.given;
	case XRL_KIND_PORT:
		return XRL_MF_PROTO | XRL_MF_DPORT | (s->family ? XRL_MF_DST : 0);
	case XRL_KIND_DST:
		return XRL_MF_DST;
	case XRL_KIND_PREFIX:
		return XRL_MF_SRC;
	}
	if (s->sel == XRL_SEL_FRAGMENTS)
		return XRL_MF_FRAG;
	if (s->sel == XRL_SEL_SYN)
		return XRL_MF_PROTO | XRL_MF_TCPFLAGS;
	return XRL_MF_PROTO | (s->sel >= XRL_SEL_ICMP(0) ? XRL_MF_ICMP : 0);
}

__u32 xrl_spec_eval(const struct xrl_spec *s, const struct xrl_ruleset *set, const struct xrl_match_pkt *p)
{
	struct xrl_match m = {};

	if (s->kind == XRL_KIND_MATCH)
		return match_eval(&s->m, set, p);
	/* The shorthands as the match rule each is. */
	m.given = xrl_spec_fields(s);
	m.proto = s->proto;
	if (s->kind == XRL_KIND_PORT) {
		m.dport = (struct xrl_mranges){ .n = 1, .r = { { s->port, s->port } } };
	} else if (s->kind == XRL_KIND_PROTO && s->sel == XRL_SEL_FRAGMENTS) {
		m.frag = (struct xrl_mranges){ .n = 1, .r = { { XRL_LBVS_FRAG_LATER, XRL_LBVS_FRAG_LATER } } };
	} else if (s->kind == XRL_KIND_PROTO && s->sel == XRL_SEL_SYN) {
		m.flags = 0x02; /* SYN without ACK */
		m.flags_mask = 0x12;
	} else if (s->kind == XRL_KIND_PROTO && s->sel >= XRL_SEL_ICMP(0)) {
		m.icmp_type = (__u8)s->sel;
	}
	if (s->kind == XRL_KIND_PREFIX || s->kind == XRL_KIND_DST || s->family) {
		struct xrl_maddr *a = s->kind == XRL_KIND_PREFIX ? &m.src : &m.dst;

		a->family = s->family;
		a->plen = s->plen;
		memcpy(a->addr, s->addr, 16);
		memcpy(a->set, s->set, sizeof(a->set));
	}
	return match_eval(&m, set, p);
}

/* Values of a field ranges r (n, sorted, disjoint) accept, or with neg do not, in out: their count of ranges. */
static int vranges(const struct xrl_vrange *r, size_t n, bool neg, __u32 dom, struct xrl_vrange *out)
{
	__u32 next = 0;
	int k = 0;
	size_t i;

	if (!neg) {
		for (i = 0; i < n; i++)
			out[k++] = r[i];
		return k;
	}
	for (i = 0; i < n; next = r[i].hi + 1U, i++)
		if (r[i].lo > next)
			out[k++] = (struct xrl_vrange){ next, r[i].lo - 1U };
	if (next < dom)
		out[k++] = (struct xrl_vrange){ next, dom - 1 };
	return k;
}

/* Values of field f a ranges field accepts, in out: their count of ranges. */
static int pos_ranges(const struct xrl_mranges *f, __u32 dom, struct xrl_vrange *out)
{
	struct xrl_vrange r[XRL_MATCH_RANGES];
	__u8 i;

	for (i = 0; i < f->n; i++)
		r[i] = (struct xrl_vrange){ f->r[i].lo, f->r[i].hi };
	return vranges(r, f->n, f->neg, dom, out);
}

/* ... or of the named port set the field names. */
static int port_ranges(const struct xrl_mranges *f, const char *name, const struct xrl_ruleset *set, __u32 dom,
		       struct xrl_vrange *out)
{
	const struct xrl_pset *ps;

	if (!name[0])
		return pos_ranges(f, dom, out);
	ps = set ? xrl_ruleset_port_set(set, name) : NULL;
	return vranges(ps ? ps->ports : NULL, ps ? ps->nports : 0, f->neg, dom, out);
}

/* Bits of a small domain (at most 256 values) as ranges. */
static int bit_ranges(const __u8 *in, __u32 dom, struct xrl_vrange *out)
{
	int k = 0;
	__u32 v;

	for (v = 0; v < dom; v++) {
		if (!in[v])
			continue;
		if (k && out[k - 1].hi + 1 == v)
			out[k - 1].hi = v;
		else
			out[k++] = (struct xrl_vrange){ v, v };
	}
	return k;
}

int xrl_match_field_ranges(const struct xrl_spec *s, const struct xrl_ruleset *set, int f, struct xrl_vrange *out)
{
	const struct xrl_match *m = &s->m;
	__u32 dom = xrl_lbvs_domain((__u32)f);
	__u8 in[256] = {};
	__u32 v;

	switch (f) {
	case XRL_LBVS_DPORT:
		return m->given & XRL_MF_DPORT ? port_ranges(&m->dport, m->dport_set, set, dom, out) : -1;
	case XRL_LBVS_SPORT:
		return m->given & XRL_MF_SPORT ? port_ranges(&m->sport, m->sport_set, set, dom, out) : -1;
	case XRL_LBVS_LENGTH:
		return m->given & XRL_MF_LENGTH ? pos_ranges(&m->length, dom, out) : -1;
	case XRL_LBVS_TTL:
		return m->given & XRL_MF_TTL ? pos_ranges(&m->ttl, dom, out) : -1;
	case XRL_LBVS_DSCP:
		return m->given & XRL_MF_DSCP ? pos_ranges(&m->dscp, dom, out) : -1;
	case XRL_LBVS_PROTO:
		if (!(m->given & XRL_MF_PROTO))
			return -1;
		out[0] = (struct xrl_vrange){ m->proto, m->proto };
		return 1;
	case XRL_LBVS_ICMP:
		if (!(m->given & XRL_MF_ICMP))
			return -1;
		v = (__u32)m->icmp_type << 8;
		out[0] = m->has_code ? (struct xrl_vrange){ v | m->icmp_code, v | m->icmp_code } :
				       (struct xrl_vrange){ v, v | 0xff };
		return 1;
	case XRL_LBVS_TCPFLAGS:
		if (!(m->given & XRL_MF_TCPFLAGS))
			return -1;
		for (v = 0; v < 256; v++)
			in[v] = (v & m->flags_mask) == m->flags;
		return bit_ranges(in, 256, out);
	case XRL_LBVS_FRAG:
		if (!(m->given & (XRL_MF_FRAG | XRL_MF_TRANSPORT)))
			return -1;
		for (v = 0; v < 3; v++)
			in[v] = (!(m->given & XRL_MF_FRAG) || in_ranges(&m->frag, v)) &&
				/* The fields of the transport header are in no later fragment. */
				(!(m->given & XRL_MF_TRANSPORT) || v != XRL_LBVS_FRAG_LATER);
		return bit_ranges(in, 3, out);
	}
	return -1;
}
