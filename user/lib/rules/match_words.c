// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The words of a match rule, a field a line of one table: its word, its
 * bit, how its value is read. Any order on input; match_format.c prints
 * them in the table's order.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "rules/rule.h"
#include "rules/internal.h"
#include "base/err.h"

#include "rules/match_parse.h"

const char *xrl_mp_next(struct mp *p, const char *word, const char *expected)
{
	if (p->i >= p->argc) {
		fail(p->err, p->len, "'%s' needs a value: expected %s", word, expected);
		return NULL;
	}
	return p->argv[p->i++];
}

/* "!=" before a value: 1 (and skips it), 0 if none. */
static int negation(struct mp *p)
{
	if (p->i < p->argc && !strcmp(p->argv[p->i], "!=")) {
		p->i++;
		return 1;
	}
	return 0;
}

int xrl_mp_number(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return isdigit((unsigned char)*s) && !*end && !errno && *v <= max ? 0 : -1;
}

/* One value of a ranges field: a number or a name of the field. */
static int value(struct mp *p, const struct mword *w, const char *s, unsigned long *v)
{
	int n = w->name ? w->name(s) : -1;
	char *end;

	if (n >= 0) {
		*v = (unsigned long)n;
		return 0;
	}
	if (!xrl_mp_number(s, w->max, v))
		return 0;
	errno = 0;
	*v = strtoul(s, &end, 10);
	if (isdigit((unsigned char)*s) && !*end)
		return fail(p->err, p->len, "'%s' %s is out of range: %s is 0 to %u", w->word, s, w->what, w->max);
	return fail(p->err, p->len, "'%s' value '%s' is not %s: expected %s", w->word, s, w->what,
		    !strcmp(w->word, "dscp") ? "0 to 63, ef, af11 to af43 or cs0 to cs7" :
		    !strcmp(w->word, "frag") ? "none, first or later" :
					       "a number, a range lo-hi or a set { a, b-c }");
}

/* "N", "lo-hi" (names too: "af11-af13"), into r. */
static int range(struct mp *p, const struct mword *w, char *s, struct xrl_mrange *r)
{
	char *dash = strchr(s, '-');
	unsigned long lo, hi;

	if (dash && dash != s)
		*dash = '\0';
	else
		dash = NULL;
	if (value(p, w, s, &lo) || (dash && value(p, w, dash + 1, &hi)))
		return -EINVAL;
	if (!dash)
		hi = lo;
	if (lo > hi)
		return fail(p->err, p->len, "'%s' range %lu-%lu is reversed: write %lu-%lu", w->word, lo, hi, hi, lo);
	*r = (struct xrl_mrange){ (__u16)lo, (__u16)hi };
	return 0;
}

static int mrange_cmp(const void *a, const void *b)
{
	const struct xrl_mrange *x = a, *y = b;

	return (int)x->lo - (int)y->lo;
}

/* Sorted, overlapping and adjacent ranges merged: one rule, however its set is written. */
static void mranges_norm(struct xrl_mranges *f)
{
	__u8 i, k = 0;

	qsort(f->r, f->n, sizeof(f->r[0]), mrange_cmp);
	for (i = 0; i < f->n; i++) {
		if (k && f->r[i].lo <= (unsigned int)f->r[k - 1].hi + 1) {
			if (f->r[i].hi > f->r[k - 1].hi)
				f->r[k - 1].hi = f->r[i].hi;
		} else {
			f->r[k++] = f->r[i];
		}
	}
	memset(f->r + k, 0, (f->n - k) * sizeof(f->r[0]));
	f->n = k;
}

/* A field of numbers: [!=] N | lo-hi | { a, b-c, ... }, the set's words joined whatever their spaces. */
static int parse_ranges(struct mp *p, const struct mword *w)
{
	struct xrl_mranges *f = (struct xrl_mranges *)((char *)p->m + w->off);
	char buf[XRL_RULE_TEXT], *save = NULL, *e, *close;
	const char *v;
	size_t used = 0;

	f->neg = (__u8)negation(p);
	v = xrl_mp_next(p, w->word,
			w->set_off ? "a port, a range lo-hi, a set { a, b-c } or a named port set @NAME" :
				     "a number, a range lo-hi or a set { a, b-c }");
	if (!v)
		return -EINVAL;
	if (v[0] == '@') {
		if (!w->set_off)
			return fail(
				p->err, p->len,
				"'%s' takes no named set: a set holds prefixes ('src @NAME', 'dst @NAME') or ports ('sport @NAME', 'dport @NAME'); write '%s { a, b-c }'",
				w->word, w->word);
		if (xrl_set_name_check(v + 1, p->err, p->len))
			return -EINVAL;
		strcpy((char *)p->m + w->set_off, v + 1);
		return 0;
	}
	if (v[0] != '{') {
		snprintf(buf, sizeof(buf), "%s", v);
		f->n = 1;
		return range(p, w, buf, &f->r[0]);
	}
	for (;;) {
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s,", v);
		if (used >= sizeof(buf))
			return fail(p->err, p->len, "'%s': the set is too long", w->word);
		if (strchr(v, '}'))
			break;
		if (p->i >= p->argc)
			return fail(p->err, p->len, "'%s': the set has no '}': write { a, b-c }", w->word);
		v = p->argv[p->i++];
	}
	close = strchr(buf, '}');
	if (strcmp(close, "},"))
		return fail(p->err, p->len, "'%s': '%s' after '}': the set ends there", w->word, close + 1);
	*close = '\0';
	for (e = strtok_r(buf + 1, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		if (f->n == XRL_MATCH_RANGES)
			return fail(p->err, p->len, "'%s': more than %d values or ranges in one set: a rule takes %d",
				    w->word, XRL_MATCH_RANGES, XRL_MATCH_RANGES);
		if (range(p, w, e, &f->r[f->n]))
			return -EINVAL;
		f->n++;
	}
	if (!f->n)
		return fail(p->err, p->len, "'%s': the set is empty: give at least one value", w->word);
	mranges_norm(f);
	return 0;
}

static int parse_addr(struct mp *p, const struct mword *w)
{
	struct xrl_maddr *a = (struct xrl_maddr *)((char *)p->m + w->off);
	const char *v;

	a->neg = (__u8)negation(p);
	v = xrl_mp_next(p, w->word, "ADDR/LEN like 203.0.113.0/24, an address, or @SET");
	if (!v)
		return -EINVAL;
	if (v[0] != '@')
		return xrl_parse_match_prefix(w->word, v, &a->family, a->addr, &a->plen, p->err, p->len);
	if (xrl_set_name_check(v + 1, p->err, p->len))
		return -EINVAL;
	strcpy(a->set, v + 1);
	return 0;
}

/* Protocol names a match rule takes besides a number. */
static const struct {
	const char *name;
	__u8 proto;
} mprotos[] = { { "tcp", XRL_PROTO_TCP },
		{ "udp", XRL_PROTO_UDP },
		{ "icmp", XRL_PROTO_ICMP },
		{ "icmpv6", XRL_PROTO_ICMPV6 } };

int xrl_mproto_format(__u8 proto, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(mprotos) / sizeof(mprotos[0]); i++)
		if (mprotos[i].proto == proto)
			return snprintf(buf, len, "%s", mprotos[i].name);
	return snprintf(buf, len, "%u", proto);
}

/* The rule's protocol, said by proto or implied by by ("tcp flags"): a second one is a conflict. */
int xrl_mp_set_proto(struct mp *p, __u8 proto, const char *by)
{
	char a[8], b[8];

	if ((p->m->given & XRL_MF_PROTO) && p->m->proto != proto) {
		xrl_mproto_format(p->m->proto, a, sizeof(a));
		xrl_mproto_format(proto, b, sizeof(b));
		if (!by)
			return fail(
				p->err, p->len,
				"'proto %s' after a field of %s packets: a packet has one protocol; drop one of them",
				b, a);
		return fail(
			p->err, p->len,
			"'%s' is for %s packets, and this rule is 'proto %s': a packet has one protocol; drop one of them",
			by, b, a);
	}
	p->m->given |= XRL_MF_PROTO;
	p->m->proto = proto;
	return 0;
}

/* After "icmp", "icmpv6" or "proto icmp": 'type T [code C]'. */
static int icmp_type(struct mp *p, bool v6)
{
	const char *word = v6 ? "icmpv6" : "icmp", *v;
	unsigned long t;

	if (p->m->given & XRL_MF_ICMP)
		return fail(p->err, p->len, "an icmp type is given twice: give one a rule");
	if (p->i >= p->argc || strcmp(p->argv[p->i], "type"))
		return fail(p->err, p->len, "'%s' takes 'type': write '%s type %s'", word, word,
			    v6 ? "echo-request" : "echo-request (or 8)");
	p->i++;
	v = xrl_mp_next(p, "type", "a number from 0 to 255 or a name like echo-request");
	if (!v)
		return -EINVAL;
	if (xrl_icmp_type_value(v, v6) >= 0)
		t = (unsigned long)xrl_icmp_type_value(v, v6);
	else if (xrl_mp_number(v, 255, &t))
		return fail(p->err, p->len,
			    "%s type '%s' is not a type: expected a number from 0 to 255 or a name like echo-request",
			    word, v);
	p->m->icmp_type = (__u8)t;
	p->m->given |= XRL_MF_ICMP;
	if (p->i < p->argc && !strcmp(p->argv[p->i], "code")) {
		p->i++;
		v = xrl_mp_next(p, "code", "a number from 0 to 255");
		if (!v)
			return -EINVAL;
		if (xrl_mp_number(v, 255, &t))
			return fail(p->err, p->len, "%s code '%s' is not a code: expected a number from 0 to 255", word,
				    v);
		p->m->icmp_code = (__u8)t;
		p->m->has_code = 1;
	}
	return xrl_mp_set_proto(p, v6 ? XRL_PROTO_ICMPV6 : XRL_PROTO_ICMP, v6 ? "icmpv6 type" : "icmp type");
}

static int parse_icmp(struct mp *p, const struct mword *w)
{
	return icmp_type(p, w->word[4] == 'v');
}

static int parse_proto(struct mp *p, const struct mword *w)
{
	const char *v = xrl_mp_next(p, w->word, "tcp, udp, icmp, icmpv6 or a protocol number");
	unsigned long n;
	size_t i;

	if (!v)
		return -EINVAL;
	if (!strcmp(v, "tcp-syn"))
		return fail(
			p->err, p->len,
			"'proto tcp-syn' is a rule of one field: in a rule of several write 'proto tcp tcp flags syn / syn,ack'");
	for (i = 0; i < sizeof(mprotos) / sizeof(mprotos[0]) && strcmp(v, mprotos[i].name); i++)
		;
	if (i < sizeof(mprotos) / sizeof(mprotos[0]))
		n = mprotos[i].proto;
	else if (xrl_mp_number(v, 255, &n))
		return fail(
			p->err, p->len,
			"'%s' is not a protocol: expected tcp, udp, icmp, icmpv6 or an IP protocol number from 0 to 255",
			v);
	if (xrl_mp_set_proto(p, (__u8)n, NULL))
		return -EINVAL;
	/* 'proto icmp type 8': the shorthand's spelling of the icmp field. */
	if ((n == XRL_PROTO_ICMP || n == XRL_PROTO_ICMPV6) && p->i < p->argc && !strcmp(p->argv[p->i], "type"))
		return icmp_type(p, n == XRL_PROTO_ICMPV6);
	return 0;
}

#define RANGES(w, b, field, mx, wh, nm)                                                                          \
	{                                                                                                        \
		.word = w, .bit = b, .parse = parse_ranges, .off = offsetof(struct xrl_match, field), .max = mx, \
		.what = wh, .name = nm                                                                           \
	}
#define PORTS(w, b, field)                                                                                          \
	{                                                                                                           \
		.word = w, .bit = b, .parse = parse_ranges, .off = offsetof(struct xrl_match, field), .max = 65535, \
		.what = "a port", .set_off = offsetof(struct xrl_match, field##_set)                                \
	}

static const struct mword mwords[] = {
	{ .word = "src", .bit = XRL_MF_SRC, .parse = parse_addr, .off = offsetof(struct xrl_match, src) },
	{ .word = "dst", .bit = XRL_MF_DST, .parse = parse_addr, .off = offsetof(struct xrl_match, dst) },
	{ .word = "proto", .bit = XRL_MF_PROTO, .parse = parse_proto },
	{ .word = "tcp", .bit = XRL_MF_TCPFLAGS, .parse = xrl_mp_flags },
	{ .word = "icmp", .bit = XRL_MF_ICMP, .parse = parse_icmp },
	{ .word = "icmpv6", .bit = XRL_MF_ICMP, .parse = parse_icmp },
	PORTS("sport", XRL_MF_SPORT, sport),
	PORTS("dport", XRL_MF_DPORT, dport),
	RANGES("length", XRL_MF_LENGTH, length, 65535, "an IP length", NULL),
	RANGES("ttl", XRL_MF_TTL, ttl, 255, "a TTL", NULL),
	RANGES("hoplimit", XRL_MF_TTL, ttl, 255, "a hop limit", NULL),
	RANGES("dscp", XRL_MF_DSCP, dscp, 63, "a DSCP", xrl_dscp_value),
	RANGES("frag", XRL_MF_FRAG, frag, 2, "a fragment state", xrl_frag_value),
	{ .word = "payload", .bit = XRL_MF_PAYLOAD, .parse = xrl_mp_payload },
};
#define N_MWORDS (sizeof(mwords) / sizeof(mwords[0]))

const char *xrl_mfield_name(__u32 bit)
{
	size_t i;

	if (bit == XRL_MF_TCPFLAGS)
		return "tcp flags";
	for (i = 0; i < N_MWORDS; i++)
		if (mwords[i].bit == bit)
			return mwords[i].word;
	return "?";
}

/* Words of the shorthands and of the icmp field, which a match rule refuses where they are. */
bool xrl_is_match_word(const char *w)
{
	size_t i;

	for (i = 0; i < N_MWORDS; i++)
		if (!strcmp(w, mwords[i].word))
			return true;
	return !strcmp(w, "type") || !strcmp(w, "code") || !strcmp(w, "port") || !strcmp(w, "prefix") ||
	       !strcmp(w, "fragments");
}

/* A word of the shorthands met in a match rule: what to write instead. */
static int shorthand_word(struct mp *p, const char *w)
{
	if (!strcmp(w, "port"))
		return fail(p->err, p->len,
			    "'port' is a rule of one field: in a rule of several write 'proto udp dport 53' (or tcp)");
	if (!strcmp(w, "prefix"))
		return fail(p->err, p->len,
			    "'prefix' is a rule of one field: in a rule of several write the source as 'src ADDR/LEN'");
	if (!strcmp(w, "fragments"))
		return fail(p->err, p->len,
			    "'fragments' is a rule of one field: in a rule of several write 'frag later'");
	if (p->m->given & XRL_MF_ICMP)
		return fail(p->err, p->len, "'%s' is given twice: give one icmp type and code a rule", w);
	return fail(p->err, p->len, "'%s' follows 'icmp type' or 'icmpv6 type': write 'icmp type 3 code 1'", w);
}

/* What the fields say together: one family, ports and payload with the protocols that carry them. */
static int check(struct mp *p)
{
	const struct xrl_match *m = p->m;
	__u8 fam = m->src.family && m->dst.family && m->src.family != m->dst.family ? 0 : m->src.family | m->dst.family;
	__u32 ports = m->given & (XRL_MF_SPORT | XRL_MF_DPORT);
	const char *pw = xrl_mfield_name(ports & XRL_MF_SPORT ? XRL_MF_SPORT : XRL_MF_DPORT);
	char proto[8];

	if (m->src.family && m->dst.family && m->src.family != m->dst.family)
		return fail(p->err, p->len,
			    "'src' is IPv%u and 'dst' IPv%u: a packet has one family; write a rule for each",
			    m->src.family, m->dst.family);
	if (fam && (m->given & XRL_MF_PROTO) && m->proto == (fam == XRL_FAMILY_V4 ? XRL_PROTO_ICMPV6 : XRL_PROTO_ICMP))
		return fail(p->err, p->len, "this rule's address is IPv%u, whose ICMP is '%s': write 'proto %s'", fam,
			    fam == XRL_FAMILY_V4 ? "icmp" : "icmpv6", fam == XRL_FAMILY_V4 ? "icmp" : "icmpv6");
	xrl_mproto_format(m->proto, proto, sizeof(proto));
	if (ports && !(m->given & XRL_MF_PROTO))
		return fail(
			p->err, p->len,
			"'%s' needs its protocol: a port is TCP's or UDP's; write 'proto udp %s ...' or 'proto tcp %s ...'",
			pw, pw, pw);
	if (ports && m->proto != XRL_PROTO_TCP && m->proto != XRL_PROTO_UDP)
		return fail(
			p->err, p->len,
			"'%s' is for tcp and udp, and this rule is 'proto %s', whose packets have no ports: drop '%s' or write 'proto udp' or 'proto tcp'",
			pw, proto, pw);
	if ((m->given & XRL_MF_PAYLOAD) &&
	    (!(m->given & XRL_MF_PROTO) || (m->proto != XRL_PROTO_TCP && m->proto != XRL_PROTO_UDP &&
					    m->proto != XRL_PROTO_ICMP && m->proto != XRL_PROTO_ICMPV6)))
		return fail(
			p->err, p->len,
			"'payload' counts from the transport payload's start, which needs its protocol: write 'proto udp', 'proto tcp', 'proto icmp' or 'proto icmpv6' before it");
	return 0;
}

int xrl_match_parse(int argc, char **argv, struct xrl_spec *out, char *err, size_t len)
{
	struct mp p = { .argc = argc, .argv = argv, .s = out, .m = &out->m, .err = err, .len = len };

	memset(out, 0, sizeof(*out));
	out->kind = XRL_KIND_MATCH;
	while (p.i < argc) {
		const char *w = argv[p.i];
		size_t k;

		for (k = 0; k < N_MWORDS && strcmp(w, mwords[k].word); k++)
			;
		if (k == N_MWORDS) {
			if (xrl_is_match_word(w))
				return shorthand_word(&p, w);
			break;
		}
		if ((p.said & mwords[k].bit) && mwords[k].bit != XRL_MF_TCPFLAGS && mwords[k].bit != XRL_MF_ICMP)
			return fail(err, len, "'%s' is given twice: give it once (a set of values is '%s { a, b }')", w,
				    w);
		p.i++;
		if (mwords[k].parse(&p, &mwords[k]))
			return -EINVAL;
		p.said |= mwords[k].bit;
		p.m->given |= mwords[k].bit;
	}
	return check(&p) ? -EINVAL : p.i;
}
