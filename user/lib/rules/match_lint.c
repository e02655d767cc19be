// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What lint warns about in a valid rule set: a match rule no packet can
 * reach, and one an allow rule makes redundant. Warnings, not errors: the
 * set is valid, and apply takes it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rules/rule.h"
#include "rules/internal.h"
#include "base/err.h"

struct warns {
	struct xrl_lint_warn *v;
	size_t n, cap;
};

static int warn(struct warns *w, const struct xrl_spec *s, size_t i, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int warn(struct warns *w, const struct xrl_spec *s, size_t i, const char *fmt, ...)
{
	va_list ap;

	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 8;
		struct xrl_lint_warn *v = realloc(w->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n] = (struct xrl_lint_warn){ .line = s->line, .rule = i };
	va_start(ap, fmt);
	vsnprintf(w->v[w->n].msg, sizeof(w->v[w->n].msg), fmt, ap);
	va_end(ap);
	w->n++;
	return 0;
}

/* The fewest bytes an IP packet of this rule has: its IP header and its transport header. */
static unsigned int min_length(const struct xrl_spec *s)
{
	const struct xrl_match *m = &s->m;
	unsigned int l4 = 0;

	if ((m->given & XRL_MF_PROTO) && (!(m->given & XRL_MF_FRAG) || m->frag.neg || m->frag.r[0].lo == 0))
		l4 = m->proto == XRL_PROTO_TCP								     ? 20 :
		     m->proto == XRL_PROTO_UDP || m->proto == XRL_PROTO_ICMP || m->proto == XRL_PROTO_ICMPV6 ? 8 :
													       0;
	return (xrl_spec_family(s) == XRL_FAMILY_V6 ? 40 : 20) + l4;
}

/* A classifier field as the grammar names it. */
static const char *field_word(int f)
{
	static const char *const words[XRL_LBVS_FIELDS] = {
		[XRL_LBVS_DPORT] = "dport",   [XRL_LBVS_SPORT] = "sport", [XRL_LBVS_ICMP] = "icmp type",
		[XRL_LBVS_LENGTH] = "length", [XRL_LBVS_TTL] = "ttl",	  [XRL_LBVS_TCPFLAGS] = "tcp flags",
		[XRL_LBVS_PROTO] = "proto",   [XRL_LBVS_DSCP] = "dscp",	  [XRL_LBVS_FRAG] = "frag",
	};

	return words[f];
}

static bool addr_all(const struct xrl_maddr *a)
{
	return a->neg && !a->set[0] && a->plen == 0;
}

/* Why a match rule matches no packet, into why; false when it may match one. */
static bool unreachable(const struct xrl_ruleset *set, const struct xrl_spec *s, char *why, size_t len)
{
	const struct xrl_match *m = &s->m;
	struct xrl_vrange r[XRL_MATCH_FIELD_RANGES];
	int f, n;

	if (((m->given & XRL_MF_SRC) && addr_all(&m->src)) || ((m->given & XRL_MF_DST) && addr_all(&m->dst))) {
		const struct xrl_maddr *a = (m->given & XRL_MF_SRC) && addr_all(&m->src) ? &m->src : &m->dst;

		snprintf(why, len, "'%s != %s/0' excludes every IPv%u address, and a packet of the rule is IPv%u",
			 a == &m->src ? "src" : "dst", a->family == XRL_FAMILY_V4 ? "0.0.0.0" : "::", a->family,
			 a->family);
		return true;
	}
	for (f = 0; f < XRL_LBVS_FIELDS; f++) {
		const char *ps = f == XRL_LBVS_DPORT ? m->dport_set : f == XRL_LBVS_SPORT ? m->sport_set : "";

		n = xrl_match_field_ranges(s, set, f, r);
		if (n)
			continue;
		if (ps[0])
			snprintf(why, len, "its '%s%s @%s' leaves no port (the set holds %s)", field_word(f),
				 (f == XRL_LBVS_DPORT ? m->dport.neg : m->sport.neg) ? " !=" : "", ps,
				 (f == XRL_LBVS_DPORT ? m->dport.neg : m->sport.neg) ? "every port" : "none");
		else if (f == XRL_LBVS_FRAG && (m->given & XRL_MF_TRANSPORT))
			snprintf(
				why, len,
				"a later fragment carries no transport header, so '%s' never matches one, and 'frag' leaves no other; drop one of them",
				xrl_mfield_name(m->given & XRL_MF_TRANSPORT & -(m->given & XRL_MF_TRANSPORT)));
		else
			snprintf(why, len, "its '%s' with '!=' excludes every value, so no packet matches it",
				 field_word(f));
		return true;
	}
	n = xrl_match_field_ranges(s, set, XRL_LBVS_LENGTH, r);
	if (n > 0 && r[n - 1].hi < min_length(s)) {
		snprintf(
			why, len,
			"its 'length' is below %u bytes, the least its packets have (their headers), so no packet matches it",
			min_length(s));
		return true;
	}
	return false;
}

/* Whether every value b accepts of each classifier field, a accepts too. */
static bool fields_cover(const struct xrl_ruleset *set, const struct xrl_spec *a, const struct xrl_spec *b)
{
	struct xrl_vrange ra[XRL_MATCH_FIELD_RANGES], rb[XRL_MATCH_FIELD_RANGES];
	int f, na, nb, i, j;

	for (f = 0; f < XRL_LBVS_FIELDS; f++) {
		na = a->kind == XRL_KIND_MATCH ? xrl_match_field_ranges(a, set, f, ra) : -1;
		if (na < 0)
			continue;
		nb = xrl_match_field_ranges(b, set, f, rb);
		if (nb < 0)
			return false;
		/* Both disjoint and ascending: each of b's in one of a's. */
		for (i = 0, j = 0; i < nb; i++) {
			while (j < na && ra[j].hi < rb[i].lo)
				j++;
			if (j == na || ra[j].lo > rb[i].lo || ra[j].hi < rb[i].hi)
				return false;
		}
	}
	return true;
}

static bool addr_covers(const struct xrl_maddr *a, const struct xrl_maddr *b)
{
	if (a->neg || b->neg)
		return false;
	if (a->set[0] || b->set[0])
		return !strcmp(a->set, b->set);
	return a->family == b->family && a->plen <= b->plen && !memcmp(a->addr, b->addr, a->plen / 8) &&
	       (a->plen % 8 == 0 ||
		!((a->addr[a->plen / 8] ^ b->addr[a->plen / 8]) & (__u8)(0xff << (8 - a->plen % 8))));
}

/* Whether every payload b matches, a's matches: each byte a compares, b compares under a mask as wide and equal. */
static bool payload_covers(const struct xrl_match *a, const struct xrl_match *b)
{
	unsigned int i, at;

	if (!(a->given & XRL_MF_PAYLOAD))
		return true;
	if (!(b->given & XRL_MF_PAYLOAD) || a->payload_off < b->payload_off ||
	    a->payload_off + a->payload_len > b->payload_off + b->payload_len)
		return false;
	for (i = 0; i < a->payload_len; i++) {
		at = a->payload_off + i - b->payload_off;
		if ((a->payload_mask[i] & ~b->payload_mask[at]) ||
		    (b->payload[at] & a->payload_mask[i]) != a->payload[i])
			return false;
	}
	return true;
}

/*
 * Whether allow rule a holds every packet match rule b matches. A prefix or
 * dst allow rule holds its prefix only where no longer prefix rule of its
 * kind is inside it (that one is the rule there): then it is not judged.
 */
static bool allow_covers(const struct xrl_ruleset *set, const struct xrl_spec *a, const struct xrl_spec *b)
{
	struct xrl_match am = a->m;
	size_t k;

	if (a->kind == XRL_KIND_PREFIX || a->kind == XRL_KIND_DST) {
		struct xrl_maddr *x = a->kind == XRL_KIND_PREFIX ? &am.src : &am.dst;

		if (a->set[0])
			return false;
		for (k = 0; k < set->n; k++)
			if (set->v[k].kind == a->kind &&
			    (set->v[k].set[0] || (set->v[k].family == a->family && set->v[k].plen > a->plen)))
				return false;
		x->family = a->family;
		x->plen = a->plen;
		memcpy(x->addr, a->addr, 16);
		am.given = a->kind == XRL_KIND_PREFIX ? XRL_MF_SRC : XRL_MF_DST;
	} else if (a->kind != XRL_KIND_MATCH) {
		return false;
	}
	if (((am.given & XRL_MF_SRC) && (!(b->m.given & XRL_MF_SRC) || !addr_covers(&am.src, &b->m.src))) ||
	    ((am.given & XRL_MF_DST) && (!(b->m.given & XRL_MF_DST) || !addr_covers(&am.dst, &b->m.dst))))
		return false;
	return payload_covers(&am, &b->m) && fields_cover(set, a, b);
}

int xrl_ruleset_lint(const struct xrl_ruleset *set, struct xrl_lint_warn **out)
{
	struct warns w = {};
	char why[300], m[XRL_RULE_TEXT], at[32];
	size_t i, j;
	int ret = 0;

	for (i = 0; i < set->n && !ret; i++) {
		const struct xrl_spec *s = &set->v[i];

		if (s->kind != XRL_KIND_MATCH)
			continue;
		if (unreachable(set, s, why, sizeof(why))) {
			ret = warn(&w, s, i, "no packet can match this rule: %s", why);
			continue;
		}
		for (j = 0; j < set->n; j++) {
			const struct xrl_spec *a = &set->v[j];

			if (j == i || !(a->r.flags & XRL_F_ALLOW) || !allow_covers(set, a, s))
				continue;
			xrl_spec_format_match(a, m, sizeof(m));
			at[0] = '\0';
			if (a->line)
				snprintf(at, sizeof(at), " on line %d", a->line);
			ret = warn(
				&w, s, i,
				"every packet this rule matches is allowed by '%s'%s, which passes it at once: this rule %s; delete it, or narrow that one",
				m, at, s->r.flags & XRL_F_ALLOW ? "adds nothing" : "never limits");
			break;
		}
	}
	if (ret) {
		free(w.v);
		return ret;
	}
	*out = w.v;
	return (int)w.n;
}

int xrl_ruleset_not_judged_yet(const struct xrl_ruleset *set, char *err, size_t len)
{
	char m[XRL_RULE_TEXT];
	size_t i;

	for (i = 0; i < set->n; i++) {
		const struct xrl_spec *s = &set->v[i];

		if (s->kind == XRL_KIND_MATCH || !s->per)
			continue;
		xrl_spec_format_match(s, m, sizeof(m));
		return xrl_fail(
			-EOPNOTSUPP, err, len,
			"line %d, '%s': a %s rule that counts by destination or port ('per dst', 'per src,dport') is not judged by this build yet: write it as a rule of several fields (its words with 'proto', 'dport', 'dst'), which counts by any key",
			s->line, m, xrl_kind_name(s->kind));
	}
	return 0;
}
