// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The rule grammar, after ip(8) and nft(8): a match, then keyword value pairs. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "rule.h"
#include "err.h"

#define NS_PER_MS 1000000ULL
#define MAX_COUNT 1000000000000ULL /* 10^12 packets per unit: beyond any NIC */
#define MAX_WINDOW_MS 3600000ULL   /* one hour */

#define fail(err, len, ...) xrl_fail(-EINVAL, err, len, __VA_ARGS__)

/* Parses a whole decimal number with an optional k, M or G; no sign, no overflow. */
static int parse_count(const char *s, const char **end, __u64 *out)
{
	__u64 v = 0, mult = 1;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		v = v * 10 + (__u64)(*s - '0');
	}
	if (*s == 'k' || *s == 'K')
		mult = 1000, s++;
	else if (*s == 'M')
		mult = 1000000, s++;
	else if (*s == 'G')
		mult = 1000000000, s++;
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*out = v * mult;
	*end = s;
	return 0;
}

int xrl_parse_rate(const char *s, __u64 *count, __u32 *unit_ms, char *err, size_t len)
{
	static const struct {
		const char *name;
		__u32 ms;
	} units[] = {
		{ "s", 1000 },	  { "sec", 1000 },     { "second", 1000 }, { "m", 60000 },
		{ "min", 60000 }, { "minute", 60000 }, { "h", 3600000 },   { "hour", 3600000 },
	};
	const char *p;
	__u64 v;
	size_t i;
	int ret;

	ret = parse_count(s, &p, &v);
	if (ret == -ERANGE || (!ret && v > MAX_COUNT))
		return fail(err, len, "rate '%s' is too large (at most %llu per unit)", s,
			    (unsigned long long)MAX_COUNT);
	if (ret || *p != '/')
		return fail(err, len, "rate '%s' is not a rate: expected COUNT/UNIT like 100/s, 10k/s or 600/min", s);
	if (v == 0)
		return fail(
			err, len,
			"rate '%s' is zero: to drop everything use a rate of 1 and a long window; to allow, use 'allow'",
			s);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(p + 1, units[i].name)) {
			*count = v;
			*unit_ms = units[i].ms;
			return 0;
		}
	}
	return fail(err, len, "rate '%s' has an unknown unit '%s': expected s, min or h", s, p + 1);
}

/* Byte rate spellings: bits and bytes apart, SI prefixes (K = 1000, as tc and nft count bit rates). */
static const struct {
	const char *name;
	__u8 unit;
	__u64 bits; /* bits in one unit */
} byte_units[] = {
	{ "bit", XRL_BU_BIT, 1 },
	{ "Kbit", XRL_BU_KBIT, 1000 },
	{ "kbit", XRL_BU_KBIT, 1000 },
	{ "Mbit", XRL_BU_MBIT, 1000000 },
	{ "mbit", XRL_BU_MBIT, 1000000 },
	{ "Gbit", XRL_BU_GBIT, 1000000000 },
	{ "gbit", XRL_BU_GBIT, 1000000000 },
	{ "B", XRL_BU_B, 8 },
	{ "KB", XRL_BU_KB, 8000 },
	{ "kB", XRL_BU_KB, 8000 },
	{ "MB", XRL_BU_MB, 8000000 },
	{ "GB", XRL_BU_GB, 8000000000ULL },
};
#define N_BYTE_UNITS (sizeof(byte_units) / sizeof(byte_units[0]))
#define BYTE_UNITS_HELP                                                                                        \
	"write bits as bit, Kbit, Mbit or Gbit and bytes as B, KB, MB or GB (SI: K = 1000), per s, min or h, " \
	"like 100Mbit/s or 12MB/s"

static const char *time_unit_name(__u32 unit_ms)
{
	return unit_ms == 1000 ? "s" : unit_ms == 60000 ? "min" : "h";
}

/* The bits one XRL_BU_* unit holds; 0 for none. */
static __u64 byte_unit_bits(__u8 unit)
{
	size_t i;

	for (i = 0; i < N_BYTE_UNITS; i++)
		if (byte_units[i].unit == unit)
			return byte_units[i].bits;
	return 0;
}

static const char *byte_unit_name(__u8 unit)
{
	size_t i;

	for (i = 0; i < N_BYTE_UNITS; i++)
		if (byte_units[i].unit == unit)
			return byte_units[i].name;
	return "?";
}

int xrl_parse_byte_rate(const char *s, __u64 *count, __u8 *unit, __u32 *unit_ms, char *err, size_t len)
{
	const char *p = s, *slash = strchr(s, '/'), *u;
	__u64 v = 0;
	size_t i, ulen;
	__u32 ms;

	while (isdigit((unsigned char)*p))
		p++;
	u = p;
	ulen = slash ? (size_t)(slash - u) : strlen(u);
	/* Nothing, or a k, M or G alone after the number: a packet rate. */
	if (p == s || ulen == 0 || (ulen == 1 && strchr("kKMG", *u)))
		return 1;
	for (i = 0; i < N_BYTE_UNITS; i++)
		if (strlen(byte_units[i].name) == ulen && !strncmp(u, byte_units[i].name, ulen))
			break;
	if (i == N_BYTE_UNITS)
		return fail(
			err, len,
			"rate '%s': '%.*s' is not a unit this grammar reads (bps, Mb and the like are read as bits by some tools and bytes by others): %s",
			s, (int)ulen, u, BYTE_UNITS_HELP);
	for (p = s; p < u; p++) {
		if (v > (UINT64_MAX - 9) / 10 || v * 10 + (__u64)(*p - '0') > MAX_COUNT)
			return fail(err, len, "rate '%s' is too large (at most %llu units per time unit)", s,
				    (unsigned long long)MAX_COUNT);
		v = v * 10 + (__u64)(*p - '0');
	}
	if (v == 0)
		return fail(err, len, "rate '%s' is zero: to allow, use 'allow'", s);
	if (!slash)
		return fail(err, len, "rate '%s' has no time unit: %s", s, BYTE_UNITS_HELP);
	if (!strcmp(slash + 1, "s") || !strcmp(slash + 1, "sec") || !strcmp(slash + 1, "second"))
		ms = 1000;
	else if (!strcmp(slash + 1, "m") || !strcmp(slash + 1, "min") || !strcmp(slash + 1, "minute"))
		ms = 60000;
	else if (!strcmp(slash + 1, "h") || !strcmp(slash + 1, "hour"))
		ms = 3600000;
	else
		return fail(err, len, "rate '%s' has an unknown time unit '%s': expected s, min or h", s, slash + 1);
	*count = v;
	*unit = byte_units[i].unit;
	*unit_ms = ms;
	return 0;
}

/* A duration in ns, at least 1 ms and at most one hour; what names it in messages ("window", "warmup"). */
static int parse_duration_of(const char *s, const char *what, __u64 *ns, char *err, size_t len)
{
	const char *p;
	__u64 v, ms;
	int ret;

	ret = parse_count(s, &p, &v);
	if (ret == -ERANGE)
		return fail(err, len, "duration '%s' is too large (at most 1h)", s);
	if (ret || p == s)
		return fail(err, len,
			    "duration '%s' is not a duration: expected a number and ms, s, m or h, like 500ms or 1s",
			    s);
	if (!strcmp(p, "ms"))
		ms = v;
	else if (!strcmp(p, "s") && v <= MAX_WINDOW_MS / 1000)
		ms = v * 1000;
	else if ((!strcmp(p, "m") || !strcmp(p, "min")) && v <= MAX_WINDOW_MS / 60000)
		ms = v * 60000;
	else if (!strcmp(p, "h") && v <= MAX_WINDOW_MS / 3600000)
		ms = v * 3600000;
	else if (!strcmp(p, "s") || !strcmp(p, "m") || !strcmp(p, "min") || !strcmp(p, "h"))
		ms = MAX_WINDOW_MS + 1;
	else
		return fail(err, len, "duration '%s' has an unknown unit '%s': expected ms, s, m or h", s, p);
	if (ms == 0 && !strcmp(what, "warmup"))
		return fail(
			err, len,
			"warmup '%s' is zero: leave 'warmup' out for none, or give a period like 30s (at least 1ms)",
			s);
	if (ms == 0)
		return fail(err, len, "duration '%s' is zero: a %s lasts at least 1ms", s, what);
	if (ms > MAX_WINDOW_MS)
		return fail(err, len, "duration '%s' is too long: a %s lasts at most 1h", s, what);
	*ns = ms * NS_PER_MS;
	return 0;
}

int xrl_parse_duration(const char *s, __u64 *ns, char *err, size_t len)
{
	return parse_duration_of(s, "window", ns, err, len);
}

int xrl_parse_prefix(const char *s, __u8 *family, __u8 *addr, __u8 *plen, char *err, size_t len)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned long bits;
	__u8 max;
	int i;

	if (strlen(s) >= sizeof(buf))
		return fail(err, len,
			    "prefix '%s' is not an address: expected ADDR/LEN like 10.0.0.0/8 or 2001:db8::/32", s);
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, buf, addr) == 1) {
		*family = XRL_FAMILY_V4;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, addr) == 1) {
		*family = XRL_FAMILY_V6;
		max = 128;
	} else {
		return fail(err, len,
			    "'%s' is not an IPv4 or IPv6 address: expected ADDR/LEN like 10.0.0.0/8 or 2001:db8::/32",
			    buf);
	}
	bits = max;
	if (slash) {
		errno = 0;
		bits = strtoul(slash + 1, &end, 10);
		if (!isdigit((unsigned char)slash[1]) || *end || errno)
			return fail(err, len, "prefix length '%s' is not a number", slash + 1);
		if (bits > max)
			return fail(err, len, "prefix length /%lu is longer than an IPv%d address (at most /%u)", bits,
				    *family, max);
	}
	for (i = 0; i < max / 8; i++) {
		unsigned int keep = bits >= (unsigned)(i + 1) * 8 ? 8 : bits > (unsigned)i * 8 ? bits - i * 8 : 0;
		__u8 mask = keep ? (__u8)(0xff << (8 - keep)) : 0;

		if (addr[i] & ~mask) {
			char net[INET6_ADDRSTRLEN];
			int j;

			for (j = i; j < max / 8; j++) {
				keep = bits >= (unsigned)(j + 1) * 8 ? 8 : bits > (unsigned)j * 8 ? bits - j * 8 : 0;
				addr[j] &= keep ? (__u8)(0xff << (8 - keep)) : 0;
			}
			xrl_format_addr(*family, addr, net, sizeof(net));
			return fail(err, len, "prefix '%s' has host bits set: did you mean %s/%lu?", s, net, bits);
		}
	}
	*plen = (__u8)bits;
	return 0;
}

const char *xrl_proto_name(__u8 proto)
{
	return proto == XRL_PROTO_TCP ? "tcp" : proto == XRL_PROTO_UDP ? "udp" : "?";
}

const char *xrl_kind_name(int kind)
{
	return kind == XRL_KIND_PORT  ? "port" :
	       kind == XRL_KIND_PROTO ? "proto" :
	       kind == XRL_KIND_DST   ? "dst" :
					"prefix";
}

bool xrl_spec_in_dsts(const struct xrl_spec *s)
{
	return s->kind == XRL_KIND_DST || (s->kind == XRL_KIND_PORT && s->family);
}

/* What a rule is called in messages. */
static const char *kind_word(int kind)
{
	return kind == XRL_KIND_PROTO ? "protocol" : xrl_kind_name(kind);
}

int xrl_format_addr(__u8 family, const __u8 *addr, char *buf, size_t len)
{
	if (!inet_ntop(family == XRL_FAMILY_V4 ? AF_INET : AF_INET6, addr, buf, (socklen_t)len)) {
		snprintf(buf, len, "?");
		return -errno;
	}
	return 0;
}

static int parse_port(const char *s, struct xrl_spec *out, char *err, size_t len)
{
	const char *slash = strchr(s, '/');
	char *end;
	unsigned long port;

	errno = 0;
	port = strtoul(s, &end, 10);
	if (!isdigit((unsigned char)*s) || end != slash || errno || !slash)
		return fail(err, len, "'%s' is not a port: expected PORT/PROTO like 53/udp or 443/tcp", s);
	if (port == 0 || port > 65535)
		return fail(err, len, "port %lu is out of range: expected 1 to 65535", port);
	if (!strcmp(slash + 1, "tcp"))
		out->proto = XRL_PROTO_TCP;
	else if (!strcmp(slash + 1, "udp"))
		out->proto = XRL_PROTO_UDP;
	else
		return fail(err, len, "protocol '%s' is not supported: expected tcp or udp", slash + 1);
	out->port = (__u16)port;
	return 0;
}

/* Protocol names "proto" takes besides a number; tcp-syn is a selector of its own. */
static const struct {
	const char *name;
	__u16 sel;
} proto_names[] = {
	{ "tcp-syn", XRL_SEL_SYN }, { "tcp", XRL_PROTO_TCP },	    { "udp", XRL_PROTO_UDP },
	{ "icmp", XRL_PROTO_ICMP }, { "icmpv6", XRL_PROTO_ICMPV6 },
};

/* "proto NAME|N [type N]": the words it takes (2 or 4), or -EINVAL. */
static int parse_proto(int argc, char **argv, struct xrl_spec *out, char *err, size_t len)
{
	unsigned long v;
	size_t i;
	char *end;

	out->kind = XRL_KIND_PROTO;
	for (i = 0; i < sizeof(proto_names) / sizeof(proto_names[0]); i++)
		if (!strcmp(argv[1], proto_names[i].name))
			break;
	if (i < sizeof(proto_names) / sizeof(proto_names[0])) {
		out->sel = proto_names[i].sel;
	} else {
		errno = 0;
		v = strtoul(argv[1], &end, 10);
		if (!isdigit((unsigned char)argv[1][0]) || *end || errno || v > 255)
			return fail(
				err, len,
				"'%s' is not a protocol: expected tcp-syn, tcp, udp, icmp, icmpv6 or an IP protocol number from 0 to 255",
				argv[1]);
		out->sel = (__u16)v;
	}
	out->proto = out->sel == XRL_SEL_SYN ? XRL_PROTO_TCP : (__u8)out->sel;
	if (argc < 3 || strcmp(argv[2], "type"))
		return 2;
	if (out->sel != XRL_PROTO_ICMP && out->sel != XRL_PROTO_ICMPV6)
		return fail(err, len,
			    "'type' is for icmp and icmpv6 rules: write 'proto icmp type N' or 'proto icmpv6 type N'");
	errno = 0;
	v = argc > 3 ? strtoul(argv[3], &end, 10) : 0;
	if (argc < 4 || !isdigit((unsigned char)argv[3][0]) || *end || errno || v > 255)
		return fail(err, len,
			    "icmp 'type' needs a number from 0 to 255 (8 is echo request, 128 in icmpv6), got '%s'",
			    argc > 3 ? argv[3] : "nothing");
	out->sel = out->sel == XRL_PROTO_ICMP ? XRL_SEL_ICMP(v) : XRL_SEL_ICMPV6(v);
	return 4;
}

/* An address prefix a rule matches (a source's or a destination's): word is "prefix" or "dst". */
static int parse_addr(const char *word, const char *arg, struct xrl_spec *out, char *err, size_t len)
{
	static const __u8 mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	int ret = xrl_parse_prefix(arg, &out->family, out->addr, &out->plen, err, len);

	if (ret)
		return ret;
	/* IPv4 arrives as IPv4: no frame carries an address in ::ffff:0:0/96. */
	if (out->family == XRL_FAMILY_V6 && out->plen >= 96 && !memcmp(out->addr, mapped, sizeof(mapped)))
		return fail(
			err, len,
			"'%s' is an IPv4-mapped IPv6 prefix, which no packet matches (IPv4 traffic arrives as IPv4): write it as %s %u.%u.%u.%u/%u",
			arg, word, out->addr[12], out->addr[13], out->addr[14], out->addr[15], out->plen - 96);
	return 0;
}

/* 'dst' after a match that cannot take one: what to write instead. */
static int dst_refused(const struct xrl_spec *s, char *err, size_t len)
{
	if (s->kind == XRL_KIND_DST || (s->kind == XRL_KIND_PORT && s->family))
		return fail(err, len, "'dst' is given twice: give one destination a rule");
	if (s->kind == XRL_KIND_PORT)
		return fail(err, len, "'dst' goes right after the port: write 'port %u/%s dst ADDR/LEN rate ...'",
			    s->port, xrl_proto_name(s->proto));
	return fail(
		err, len,
		"a %s rule cannot be narrowed to a destination: only port rules can ('port 53/udp dst 203.0.113.0/24 ...'); to limit traffic to a destination, add a dst rule ('dst ADDR/LEN rate ...'), which every packet to it must pass besides the %s rule",
		kind_word(s->kind), kind_word(s->kind));
}

/* The match words: how many there are (1, 2, 4 or 6), or -EINVAL. */
static int parse_match(int argc, char **argv, struct xrl_spec *out, char *err, size_t len)
{
	int n, ret;

	memset(out, 0, sizeof(*out));
	if (argc < 1)
		return fail(
			err, len,
			"missing rule: expected 'port PORT/PROTO ...', 'proto NAME ...', 'fragments ...', 'prefix ADDR/LEN ...' or 'dst ADDR/LEN ...'");
	if (!strcmp(argv[0], "fragments")) {
		out->kind = XRL_KIND_PROTO;
		out->sel = XRL_SEL_FRAGMENTS;
		n = 1;
	} else if (argc < 2) {
		return fail(err, len, "'%s' needs a value: expected %s", argv[0],
			    !strcmp(argv[0], "port")  ? "PORT/PROTO like 53/udp" :
			    !strcmp(argv[0], "proto") ? "tcp-syn, tcp, udp, icmp, icmpv6 or a protocol number" :
			    !strcmp(argv[0], "dst")   ? "ADDR/LEN like 203.0.113.0/24, or an address" :
							"ADDR/LEN like 10.0.0.0/8");
	} else if (!strcmp(argv[0], "port")) {
		out->kind = XRL_KIND_PORT;
		ret = parse_port(argv[1], out, err, len);
		if (ret)
			return ret;
		n = 2;
		if (argc > 2 && !strcmp(argv[2], "dst")) {
			if (argc < 4)
				return fail(
					err, len,
					"'dst' needs a value: expected ADDR/LEN like 203.0.113.0/24, or an address");
			ret = parse_addr("dst", argv[3], out, err, len);
			if (ret)
				return ret;
			n = 4;
		}
	} else if (!strcmp(argv[0], "proto")) {
		n = parse_proto(argc, argv, out, err, len);
		if (n < 0)
			return n;
	} else if (!strcmp(argv[0], "prefix") || !strcmp(argv[0], "dst")) {
		out->kind = argv[0][0] == 'p' ? XRL_KIND_PREFIX : XRL_KIND_DST;
		ret = parse_addr(argv[0], argv[1], out, err, len);
		if (ret)
			return ret;
		n = 2;
	} else {
		return fail(err, len, "unknown rule '%s': expected 'port', 'proto', 'fragments', 'prefix' or 'dst'",
			    argv[0]);
	}
	if (n < argc && !strcmp(argv[n], "dst"))
		return dst_refused(out, err, len);
	return n;
}

int xrl_spec_parse_match(int argc, char **argv, struct xrl_spec *out, char *err, size_t len)
{
	int n = parse_match(argc, argv, out, err, len);

	return n < 0 ? n : 0;
}

static int parse_mask(const char *word, const char *val, unsigned int max, __u8 *out, char *err, size_t len)
{
	char *end;
	unsigned long v;

	if (!val)
		return fail(err, len, "'%s' needs a value: expected a prefix length like /24", word);
	if (*val == '/')
		val++;
	errno = 0;
	v = strtoul(val, &end, 10);
	if (!isdigit((unsigned char)*val) || *end || errno)
		return fail(err, len, "'%s' value '%s' is not a prefix length: expected a number like 24", word, val);
	if (v > max)
		return fail(err, len, "'%s' /%lu is longer than the address (at most /%u)", word, v, max);
	*out = (__u8)v;
	return 0;
}

/* The keywords that may appear once in a rule (the scope words have their own message). */
static bool is_repeatable_word(const char *w)
{
	static const char *const words[] = { "window",	"buckets", "mask4",  "mask6", "mask",
					     "monitor", "allow",   "global", "warmup" };
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(w, words[i]))
			return true;
	return false;
}

int xrl_spec_parse(int argc, char **argv, struct xrl_spec *out, char *err, size_t len)
{
	bool have_rate = false, have_scope = false, allow = false, have_mask = false, have_shape = false;
	bool have_window = false, have_buckets = false, have_pkt_rate = false, have_byte_rate = false;
	__u64 interval = 1000 * NS_PER_MS, num, warmup = 0;
	unsigned long buckets = 2;
	struct xrl_rule *r = &out->r;
	int i, ret, words;

	words = parse_match(argc, argv, out, err, len);
	if (words < 0)
		return words;
	r->flags = XRL_F_PER_SOURCE;
	r->src_mask4 = 32;
	r->src_mask6 = 64;
	for (i = words; i < argc; i++) {
		const char *w = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int j;

		/* Values are never keywords: a keyword met before is a repeat ("monitor monitor", "mask 24 mask 16"). */
		for (j = words; j < i && is_repeatable_word(w); j++)
			if (!strcmp(argv[j], w))
				return fail(err, len, "'%s' is given twice: give it once", w);
		if ((!strcmp(w, "window") && have_window) || (!strcmp(w, "buckets") && have_buckets))
			return fail(err, len, "'%s' is given twice: give it once", w);
		if (!strcmp(w, "rate")) {
			if (!v)
				return fail(
					err, len,
					"'rate' needs a value: expected COUNT/UNIT like 100/s, or a byte rate like 10Mbit/s");
			/* A rule may carry one packet rate and one byte rate: the unit tells them apart. */
			ret = xrl_parse_byte_rate(v, &r->byte_rate, &r->byte_unit, &r->byte_unit_ms, err, len);
			if (ret < 0)
				return ret;
			if (ret == 0 && have_byte_rate)
				return fail(
					err, len,
					"a second byte rate '%s': a rule takes one packet rate and one byte rate, like 'rate 1k/s rate 10Mbit/s'",
					v);
			if (ret == 1 && have_pkt_rate)
				return fail(
					err, len,
					"a second packet rate '%s': a rule takes one packet rate and one byte rate, like 'rate 1k/s rate 10Mbit/s'",
					v);
			if (ret == 1) {
				ret = xrl_parse_rate(v, &r->rate, &r->rate_unit_ms, err, len);
				if (ret)
					return ret;
				have_pkt_rate = true;
			} else {
				have_byte_rate = true;
			}
			have_rate = true;
			i++;
		} else if (!strcmp(w, "warmup")) {
			if (!v)
				return fail(err, len, "'warmup' needs a value: expected a duration like 30s");
			ret = parse_duration_of(v, "warmup", &warmup, err, len);
			if (ret)
				return ret;
			i++;
		} else if (!strcmp(w, "window")) {
			if (!v)
				return fail(err, len, "'window' needs a value: expected a duration like 1s or 500ms");
			ret = xrl_parse_duration(v, &interval, err, len);
			if (ret)
				return ret;
			have_window = have_shape = true;
			i++;
		} else if (!strcmp(w, "buckets")) {
			char *end;

			errno = 0;
			buckets = v ? strtoul(v, &end, 10) : 0;
			if (!v || !isdigit((unsigned char)*v) || *end || errno || buckets < 1 ||
			    buckets > XRL_MAX_BUCKETS)
				return fail(err, len, "'buckets' needs a number from 1 to %d, got '%s'",
					    XRL_MAX_BUCKETS, v ? v : "nothing");
			have_buckets = have_shape = true;
			i++;
		} else if (!strcmp(w, "per-source") || !strcmp(w, "aggregate")) {
			if (have_scope)
				return fail(err, len,
					    "'%s': the scope is given twice: use per-source or aggregate once", w);
			have_scope = true;
			if (!strcmp(w, "aggregate"))
				r->flags &= ~XRL_F_PER_SOURCE;
		} else if (!strcmp(w, "mask4") || !strcmp(w, "mask6")) {
			bool v4 = w[4] == '4';

			if (out->kind == XRL_KIND_PREFIX && v4 != (out->family == XRL_FAMILY_V4))
				return fail(err, len, "'%s' is for IPv%d sources, and this prefix is IPv%d: use 'mask'",
					    w, v4 ? 4 : 6, out->family);
			/* Packets to an IPv4 destination come from IPv4 sources. */
			if (out->family && v4 != (out->family == XRL_FAMILY_V4))
				return fail(
					err, len,
					"'%s' is for IPv%d sources, and this rule's destination is IPv%d, whose packets come from IPv%d sources: use 'mask%d'",
					w, v4 ? 4 : 6, out->family, out->family, out->family);
			ret = v4 ? parse_mask(w, v, 32, &r->src_mask4, err, len) :
				   parse_mask(w, v, 128, &r->src_mask6, err, len);
			if (ret)
				return ret;
			have_mask = true;
			i++;
		} else if (!strcmp(w, "mask")) {
			if (out->kind != XRL_KIND_PREFIX)
				return fail(err, len, "'mask' is for prefix rules: a %s rule takes mask4 and mask6",
					    kind_word(out->kind));
			ret = parse_mask(w, v, out->family == XRL_FAMILY_V4 ? 32 : 128,
					 out->family == XRL_FAMILY_V4 ? &r->src_mask4 : &r->src_mask6, err, len);
			if (ret)
				return ret;
			have_mask = true;
			i++;
		} else if (!strcmp(w, "monitor")) {
			r->flags |= XRL_F_MONITOR;
		} else if (!strcmp(w, "global")) {
			r->flags |= XRL_F_GLOBAL;
		} else if (!strcmp(w, "allow")) {
			if (out->kind != XRL_KIND_PREFIX && out->kind != XRL_KIND_DST)
				return fail(err, len, "'allow' is for prefix and dst rules: a %s rule%s always limits",
					    kind_word(out->kind), out->family ? " narrowed to a destination" : "");
			allow = true;
		} else if (!strcmp(w, "dst")) {
			return dst_refused(out, err, len);
		} else {
			return fail(
				err, len,
				"unknown word '%s': expected rate, window, buckets, warmup, per-source, aggregate, %s, monitor, global%s",
				w, out->kind == XRL_KIND_PREFIX ? "mask" : "mask4, mask6",
				out->kind == XRL_KIND_PREFIX || out->kind == XRL_KIND_DST ? " or allow" : "");
		}
	}

	if (allow) {
		if (have_rate || have_scope || have_mask || have_shape || warmup ||
		    (r->flags & (XRL_F_MONITOR | XRL_F_GLOBAL)))
			return fail(
				err, len,
				"'allow' takes no rate, window, buckets, warmup, scope, mask, monitor or global: allowed traffic bypasses every limit");
		r->flags = XRL_F_ALLOW;
		r->interval_ns = interval;
		r->buckets = (__u32)buckets;
		return 0;
	}
	if (!have_rate)
		return fail(
			err, len,
			"missing 'rate': every limiting rule needs one, like 'rate 100/s' (or 'allow' for a prefix or dst rule)");
	if (have_mask && !(r->flags & XRL_F_PER_SOURCE))
		return fail(err, len,
			    "a source mask needs 'per-source': an aggregate rule has one window for all sources");
	/* One fleet-wide window per rule: per-source windows across nodes are not shared. */
	/* The fleet shares packet allowances (xdp-ratelimit sync): not byte windows, not ramps. */
	if ((r->flags & XRL_F_GLOBAL) && (have_byte_rate || warmup))
		return fail(
			err, len,
			"'global' shares a packet rate across the fleet: it takes no byte rate and no warmup; drop '%s'",
			have_byte_rate ? "the byte rate" : "warmup");
	if ((r->flags & XRL_F_GLOBAL) && (r->flags & XRL_F_PER_SOURCE))
		return fail(
			err, len,
			"'global' needs 'aggregate': a fleet shares one window per rule, not one per source; write 'aggregate global'");
	if (have_mask && out->kind == XRL_KIND_PREFIX) {
		__u8 mask = out->family == XRL_FAMILY_V4 ? r->src_mask4 : r->src_mask6;

		if (mask <= out->plen)
			return fail(
				err, len,
				"mask %u is no longer than the prefix's /%u: every source in it shares one window, which is 'aggregate'; use 'aggregate', or a mask longer than %u",
				mask, out->plen, out->plen);
	}
	switch (xrl_shape_check((__u32)buckets, interval)) {
	case XRL_SHAPE_OK:
		break;
	case XRL_SHAPE_UNEVEN:
		return fail(err, len,
			    "window %llums does not divide into %lu buckets: choose a bucket count that divides it",
			    (unsigned long long)(interval / NS_PER_MS), buckets);
	default:
		return fail(err, len, "window and buckets do not make a valid window");
	}
	if (interval / buckets < NS_PER_MS)
		return fail(err, len, "buckets of %lluns are too short: a bucket lasts at least 1ms",
			    (unsigned long long)(interval / buckets));
	r->interval_ns = interval;
	r->buckets = (__u32)buckets;
	r->warmup_ms = (__u32)(warmup / NS_PER_MS);
	if (have_byte_rate) {
		/*
		 * Bytes a window: rate * bits a unit / 8 * window / time unit, in 128
		 * bits, rounded down (a byte rate need not make whole bytes).
		 */
		unsigned __int128 b = (unsigned __int128)r->byte_rate * byte_unit_bits(r->byte_unit) *
				      (interval / NS_PER_MS) / 8 / r->byte_unit_ms;

		if (b == 0)
			return fail(
				err, len,
				"byte rate %llu%s/%s over a %llums window is less than a byte a window: choose a higher rate or a longer window",
				(unsigned long long)r->byte_rate, byte_unit_name(r->byte_unit),
				time_unit_name(r->byte_unit_ms), (unsigned long long)(interval / NS_PER_MS));
		if (b > XRL_MAX_THRESHOLD)
			return fail(
				err, len,
				"byte rate %llu%s/%s over a %llums window is more than %u bytes a window, which a window cannot count: choose a shorter window",
				(unsigned long long)r->byte_rate, byte_unit_name(r->byte_unit),
				time_unit_name(r->byte_unit_ms), (unsigned long long)(interval / NS_PER_MS),
				XRL_MAX_THRESHOLD);
		r->byte_threshold = (__u64)b;
	}
	if (!have_pkt_rate) {
		r->flags |= XRL_F_NO_PKT_RATE;
		if (warmup && r->byte_threshold < XRL_COLD_FACTOR)
			return fail(err, len, "warmup needs a threshold of at least 3 a window");
		return 0;
	}
	/* T = rate * interval / unit, exactly: no silent truncation. */
	num = r->rate * (interval / NS_PER_MS);
	if (r->rate != 0 && num / r->rate != interval / NS_PER_MS)
		return fail(err, len, "rate times window is too large");
	if (num % r->rate_unit_ms)
		return fail(
			err, len,
			"rate %llu per %ums over a %llums window is not a whole number of packets: choose a window or rate that makes it one",
			(unsigned long long)r->rate, r->rate_unit_ms, (unsigned long long)(interval / NS_PER_MS));
	r->threshold = num / r->rate_unit_ms;
	if (r->threshold > XRL_MAX_THRESHOLD)
		return fail(
			err, len,
			"rate %llu per %ums over a %llums window is %llu packets a window; a window counts at most %u: choose a shorter window",
			(unsigned long long)r->rate, r->rate_unit_ms, (unsigned long long)(interval / NS_PER_MS),
			(unsigned long long)r->threshold, XRL_MAX_THRESHOLD);
	if (warmup && r->threshold < XRL_COLD_FACTOR)
		return fail(
			err, len,
			"warmup starts at a third of the threshold, and %llu packets a window would start at none: choose a rate of at least 3 a window, or no warmup",
			(unsigned long long)r->threshold);
	return 0;
}

static int format_rate(__u64 count, __u32 unit_ms, char *buf, size_t len)
{
	const char *unit = time_unit_name(unit_ms);

	if (count % 1000000000 == 0)
		return snprintf(buf, len, "%lluG/%s", (unsigned long long)(count / 1000000000), unit);
	if (count % 1000000 == 0)
		return snprintf(buf, len, "%lluM/%s", (unsigned long long)(count / 1000000), unit);
	if (count % 1000 == 0)
		return snprintf(buf, len, "%lluk/%s", (unsigned long long)(count / 1000), unit);
	return snprintf(buf, len, "%llu/%s", (unsigned long long)count, unit);
}

static int format_duration(__u64 ns, char *buf, size_t len)
{
	__u64 ms = ns / NS_PER_MS;

	if (ms % 60000 == 0)
		return snprintf(buf, len, "%llum", (unsigned long long)(ms / 60000));
	if (ms % 1000 == 0)
		return snprintf(buf, len, "%llus", (unsigned long long)(ms / 1000));
	return snprintf(buf, len, "%llums", (unsigned long long)ms);
}

int xrl_sel_format(__u16 sel, char *buf, size_t len)
{
	size_t i;

	if (sel >= XRL_SEL_ICMP(0) && sel <= XRL_SEL_ICMP(255))
		return snprintf(buf, len, "icmp type %u", sel - XRL_SEL_ICMP(0));
	if (sel >= XRL_SEL_ICMPV6(0) && sel <= XRL_SEL_ICMPV6(255))
		return snprintf(buf, len, "icmpv6 type %u", sel - XRL_SEL_ICMPV6(0));
	for (i = 0; i < sizeof(proto_names) / sizeof(proto_names[0]); i++)
		if (proto_names[i].sel == sel)
			return snprintf(buf, len, "%s", proto_names[i].name);
	return snprintf(buf, len, "%u", sel);
}

int xrl_spec_format_match(const struct xrl_spec *s, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (s->kind == XRL_KIND_PROTO && s->sel == XRL_SEL_FRAGMENTS)
		return snprintf(buf, len, "fragments");
	if (s->kind == XRL_KIND_PROTO) {
		int n = snprintf(buf, len, "proto ");

		return n + xrl_sel_format(s->sel, buf + n, len > (size_t)n ? len - n : 0);
	}
	if (s->kind == XRL_KIND_PORT && !s->family)
		return snprintf(buf, len, "port %u/%s", s->port, xrl_proto_name(s->proto));
	xrl_format_addr(s->family, s->addr, a, sizeof(a));
	if (s->kind == XRL_KIND_PORT)
		return snprintf(buf, len, "port %u/%s dst %s/%u", s->port, xrl_proto_name(s->proto), a, s->plen);
	return snprintf(buf, len, "%s %s/%u", s->kind == XRL_KIND_DST ? "dst" : "prefix", a, s->plen);
}

int xrl_byte_rate_format(const struct xrl_rule *r, char *buf, size_t len)
{
	if (!r->byte_unit)
		return snprintf(buf, len, "%s", "");
	return snprintf(buf, len, "%llu%s/%s", (unsigned long long)r->byte_rate, byte_unit_name(r->byte_unit),
			time_unit_name(r->byte_unit_ms));
}

int xrl_spec_format(const struct xrl_spec *s, char *buf, size_t len)
{
	const struct xrl_rule *r = &s->r;
	char rate[32], win[32];
	int n;

	n = xrl_spec_format_match(s, buf, len);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	if (r->flags & XRL_F_ALLOW)
		return snprintf(buf + n, len - n, " allow") >= (int)(len - n) ? -ENOSPC : 0;
	if (!(r->flags & XRL_F_NO_PKT_RATE)) {
		format_rate(r->rate, r->rate_unit_ms, rate, sizeof(rate));
		n += snprintf(buf + n, len - n, " rate %s", rate);
	}
	if ((size_t)n < len && r->byte_unit) {
		n += snprintf(buf + n, len - n, " rate ");
		if ((size_t)n < len)
			n += xrl_byte_rate_format(r, buf + n, len - n);
	}
	format_duration(r->interval_ns, win, sizeof(win));
	if ((size_t)n < len)
		n += snprintf(buf + n, len - n, " window %s buckets %u %s", win, r->buckets,
			      r->flags & XRL_F_PER_SOURCE ? "per-source" : "aggregate");
	if ((size_t)n < len && r->warmup_ms) {
		format_duration((__u64)r->warmup_ms * NS_PER_MS, win, sizeof(win));
		n += snprintf(buf + n, len - n, " warmup %s", win);
	}
	if ((size_t)n < len && (r->flags & XRL_F_PER_SOURCE)) {
		if (s->kind == XRL_KIND_PREFIX && s->family == XRL_FAMILY_V4 && r->src_mask4 != 32)
			n += snprintf(buf + n, len - n, " mask %u", r->src_mask4);
		else if (s->kind == XRL_KIND_PREFIX && s->family == XRL_FAMILY_V6 && r->src_mask6 != 64)
			n += snprintf(buf + n, len - n, " mask %u", r->src_mask6);
		else if (s->kind != XRL_KIND_PREFIX && r->src_mask4 != 32)
			n += snprintf(buf + n, len - n, " mask4 %u", r->src_mask4);
		if ((size_t)n < len && s->kind != XRL_KIND_PREFIX && r->src_mask6 != 64)
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
	if (a->kind == XRL_KIND_PORT && (a->proto != b->proto || a->port != b->port))
		return false;
	if (a->kind == XRL_KIND_PROTO)
		return a->sel == b->sel;
	/* A port rule's destination, when narrowed (family 0 on both when not). */
	return a->family == b->family && a->plen == b->plen && !memcmp(a->addr, b->addr, 16);
}

int xrl_ruleset_find(const struct xrl_ruleset *set, const struct xrl_spec *match)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (xrl_spec_same_match(&set->v[i], match))
			return (int)i;
	return -1;
}

int xrl_ruleset_add(struct xrl_ruleset *set, const struct xrl_spec *s, char *err, size_t len)
{
	size_t kinds = 0, i;
	int dup = xrl_ruleset_find(set, s);

	if (dup >= 0) {
		char m[128];

		xrl_spec_format_match(s, m, sizeof(m));
		if (set->v[dup].line)
			return fail(err, len, "'%s' is already given on line %d: one rule per match", m,
				    set->v[dup].line);
		return fail(err, len, "'%s' already has a rule: delete it first, or use 'apply' to replace the set", m);
	}
	/*
	 * The set in force and the next share XRL_MAX_RULE_IDS counter slots: a
	 * set of at most half of them can always replace any other at once.
	 */
	if (set->n >= XRL_MAX_SET_RULES)
		return fail(
			err, len,
			"too many rules: at most %d in a set, every kind together (so that any set can replace any other atomically)",
			XRL_MAX_SET_RULES);
	/*
	 * Each map holds XRL_MAX_RULES of a set: port rules, prefix rules, and
	 * dst rules with narrowed port rules (one trie). A protocol rule has a
	 * slot of its own (XRL_PROTO_IDX): never more than XRL_SELS.
	 */
	for (i = 0; i < set->n; i++)
		kinds += xrl_spec_in_dsts(s) ? xrl_spec_in_dsts(&set->v[i]) :
					       set->v[i].kind == s->kind && !xrl_spec_in_dsts(&set->v[i]);
	if (s->kind != XRL_KIND_PROTO && kinds >= XRL_MAX_RULES)
		return fail(err, len, "too many %s rules: at most %d",
			    xrl_spec_in_dsts(s) ? "dst and narrowed port" : kind_word(s->kind), XRL_MAX_RULES);
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 16;
		struct xrl_spec *v = realloc(set->v, cap * sizeof(*v));

		if (!v)
			return fail(err, len, "out of memory");
		set->v = v;
		set->cap = cap;
	}
	set->v[set->n++] = *s;
	return 0;
}

void xrl_ruleset_free(struct xrl_ruleset *set)
{
	free(set->v);
	memset(set, 0, sizeof(*set));
}

/* Load lines: each keyword, its field in struct xrl_load_line, and its values' names (none: a number). */
static const struct {
	const char *word;
	unsigned int field;
	size_t off;
	const char *names[2];
	__u32 min, max;
} load_words[] = {
	{ "mode", XRL_LOAD_MODE, offsetof(struct xrl_load_line, generic), { "native", "generic" }, 0, 1 },
	{ "clock", XRL_LOAD_CLOCK, offsetof(struct xrl_load_line, clock), { "precise", "coarse" }, 0, 1 },
	{ "max-keys", XRL_LOAD_MAX_KEYS, offsetof(struct xrl_load_line, max_keys), {}, XRL_KEYS_MIN, XRL_KEYS_MAX },
	{ "new-keys", XRL_LOAD_NEW_KEYS, offsetof(struct xrl_load_line, new_keys), {}, 0, XRL_NEW_KEYS_MAX },
	{ "sketch-width",
	  XRL_LOAD_SKETCH_WIDTH,
	  offsetof(struct xrl_load_line, sketch_width),
	  {},
	  XRL_SKETCH_MIN_WIDTH,
	  XRL_SKETCH_MAX_WIDTH },
	{ "malformed", XRL_LOAD_MALFORMED, offsetof(struct xrl_load_line, malformed_drop), { "pass", "drop" }, 0, 1 },
};
#define N_LOAD_WORDS (sizeof(load_words) / sizeof(load_words[0]))

int xrl_load_line_parse(int argc, char **argv, struct xrl_load_line *out, char *err, size_t len)
{
	struct xrl_load_line l = { .clock = XRL_CLOCK_PRECISE,
				   .max_keys = XRL_DEFAULT_KEYS,
				   .sketch_width = XRL_SKETCH_DEFAULT_WIDTH };
	int i;

	for (i = 0; i < argc; i += 2) {
		unsigned long long v;
		size_t k;
		char *end;
		__u32 *dst;

		for (k = 0; k < N_LOAD_WORDS && strcmp(argv[i], load_words[k].word); k++)
			;
		if (k == N_LOAD_WORDS)
			return fail(
				err, len,
				"load line: unknown option '%s': expected mode, clock, max-keys, new-keys, sketch-width or malformed",
				argv[i]);
		if (l.set & load_words[k].field)
			return fail(err, len, "load line: '%s' is given twice: give it once", argv[i]);
		if (i + 1 == argc)
			return fail(err, len, "load line: '%s' needs a value", argv[i]);
		l.set |= load_words[k].field;
		dst = (__u32 *)((char *)&l + load_words[k].off);
		if (load_words[k].names[0]) {
			if (strcmp(argv[i + 1], load_words[k].names[0]) && strcmp(argv[i + 1], load_words[k].names[1]))
				return fail(err, len, "load line: %s '%s' is not %s or %s", argv[i], argv[i + 1],
					    load_words[k].names[0], load_words[k].names[1]);
			*dst = !strcmp(argv[i + 1], load_words[k].names[1]);
			continue;
		}
		errno = 0;
		v = strtoull(argv[i + 1], &end, 10);
		if (!isdigit((unsigned char)argv[i + 1][0]) || *end || errno || v < load_words[k].min ||
		    v > load_words[k].max)
			return fail(err, len, "load line: %s '%s' is not a whole number from %u to %u", argv[i],
				    argv[i + 1], load_words[k].min, load_words[k].max);
		*dst = (__u32)v;
	}
	*out = l;
	return 0;
}

int xrl_load_line_format(const struct xrl_load_line *l, char *buf, size_t len)
{
	size_t k, off = 0;
	int w;

	w = snprintf(buf, len, "load");
	for (k = 0; k < N_LOAD_WORDS; k++) {
		__u32 v = *(const __u32 *)((const char *)l + load_words[k].off);

		if (w < 0 || (size_t)w >= len - off)
			return -ENOSPC;
		off += (size_t)w;
		w = 0;
		if (!(l->set & load_words[k].field))
			continue;
		if (load_words[k].names[0])
			w = snprintf(buf + off, len - off, " %s %s", load_words[k].word,
				     load_words[k].names[v ? 1 : 0]);
		else
			w = snprintf(buf + off, len - off, " %s %u", load_words[k].word, v);
	}
	return w < 0 || (size_t)w >= len - off ? -ENOSPC : 0;
}

#define MAX_WORDS 32

#define XRL_MAX_LINE 1022 /* characters a line, its newline aside */

int xrl_ruleset_parse(FILE *f, const char *name, struct xrl_ruleset *set, char *err, size_t len)
{
	struct xrl_ruleset out = {};
	char *line = NULL, *nul, msg[XRL_ERRLEN];
	size_t cap = 0;
	ssize_t got;
	int lineno = 0;

	/* getline, not fgets: the line's length counts what is after a NUL byte too. */
	while ((got = getline(&line, &cap, f)) > 0) {
		char *words[MAX_WORDS], *save = NULL, *w, *hash;
		struct xrl_spec s;
		int n = 0, ret;

		lineno++;
		nul = memchr(line, '\0', (size_t)got);
		if (nul) {
			xrl_ruleset_free(&out);
			free(line);
			return fail(err, len, "%s:%d: a NUL byte at column %td: a rules file is text", name, lineno,
				    nul - line + 1);
		}
		if ((size_t)got - (line[got - 1] == '\n') > XRL_MAX_LINE) {
			xrl_ruleset_free(&out);
			free(line);
			return fail(err, len, "%s:%d: line is too long (at most %d characters)", name, lineno,
				    XRL_MAX_LINE);
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		for (w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
			if (n == MAX_WORDS) {
				xrl_ruleset_free(&out);
				free(line);
				return fail(err, len, "%s:%d: too many words (at most %d)", name, lineno, MAX_WORDS);
			}
			words[n++] = w;
		}
		if (!n)
			continue;
		if (!strcmp(words[0], "load")) {
			if (out.load.line) {
				int first = out.load.line;

				xrl_ruleset_free(&out);
				free(line);
				return fail(err, len, "%s:%d: a second load line (the first is line %d): give one",
					    name, lineno, first);
			}
			ret = xrl_load_line_parse(n - 1, words + 1, &out.load, msg, sizeof(msg));
			if (ret) {
				xrl_ruleset_free(&out);
				free(line);
				return fail(err, len, "%s:%d: %s", name, lineno, msg);
			}
			out.load.line = lineno;
			continue;
		}
		ret = xrl_spec_parse(n, words, &s, msg, sizeof(msg));
		if (!ret) {
			s.line = lineno;
			ret = xrl_ruleset_add(&out, &s, msg, sizeof(msg));
		}
		if (ret) {
			xrl_ruleset_free(&out);
			free(line);
			return fail(err, len, "%s:%d: %s", name, lineno, msg);
		}
	}
	free(line);
	if (ferror(f)) {
		xrl_ruleset_free(&out);
		return fail(err, len, "%s: read error: %s", name, strerror(errno));
	}
	*set = out;
	return 0;
}
