// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The rule grammar, after ip(8) and nft(8): a match, then keyword value pairs. */
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
const char *xrl_kind_word(int kind)
{
	return kind == XRL_KIND_PROTO ? "protocol" : xrl_kind_name(kind);
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
	return xrl_parse_match_prefix(word, arg, &out->family, out->addr, &out->plen, err, len);
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
		xrl_kind_word(s->kind), xrl_kind_word(s->kind));
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
			if (argv[3][0] == '@')
				return fail(
					err, len,
					"a port rule narrows to one destination prefix, not a set: write a dst rule, 'dst %s rate ...'",
					argv[3]);
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
		/* 'prefix @NAME', 'dst @NAME': a rule of a named set. */
		ret = argv[1][0] == '@' ? xrl_set_name_check(argv[1] + 1, err, len) :
					  parse_addr(argv[0], argv[1], out, err, len);
		if (ret)
			return ret;
		if (argv[1][0] == '@')
			strcpy(out->set, argv[1] + 1);
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
			ret = xrl_parse_duration_of(v, "warmup", &warmup, err, len);
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

			if (out->kind == XRL_KIND_PREFIX && out->family && v4 != (out->family == XRL_FAMILY_V4))
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
			if (out->set[0])
				return fail(
					err, len,
					"'mask' is for a prefix of one family: set @%s may hold both, give mask4 and mask6",
					out->set);
			if (out->kind != XRL_KIND_PREFIX)
				return fail(err, len, "'mask' is for prefix rules: a %s rule takes mask4 and mask6",
					    xrl_kind_word(out->kind));
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
					    xrl_kind_word(out->kind), out->family ? " narrowed to a destination" : "");
			allow = true;
		} else if (!strcmp(w, "dst")) {
			return dst_refused(out, err, len);
		} else {
			return fail(
				err, len,
				"unknown word '%s': expected rate, window, buckets, warmup, per-source, aggregate, %s, monitor, global%s",
				w, out->kind == XRL_KIND_PREFIX && !out->set[0] ? "mask" : "mask4, mask6",
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
	if (have_mask && out->kind == XRL_KIND_PREFIX && out->family) {
		__u8 mask = out->family == XRL_FAMILY_V4 ? r->src_mask4 : r->src_mask6;

		if (mask <= out->plen)
			return fail(
				err, len,
				"mask %u is no longer than the prefix's /%u: every source in it shares one window, which is 'aggregate'; use 'aggregate', or a mask longer than %u",
				mask, out->plen, out->plen);
	}
	/* Elsewhere every source is in range of the rule: a mask of 0 is one window for them all. */
	if (have_mask && (out->kind != XRL_KIND_PREFIX || out->set[0]) && (!r->src_mask4 || !r->src_mask6))
		return fail(
			err, len,
			"mask%s 0 puts every source in one window, which is 'aggregate': use 'aggregate', or a mask of at least 1",
			!r->src_mask4 ? "4" : "6");
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
		unsigned __int128 b = (unsigned __int128)r->byte_rate * xrl_byte_unit_bits(r->byte_unit) *
				      (interval / NS_PER_MS) / 8 / r->byte_unit_ms;

		if (b == 0)
			return fail(
				err, len,
				"byte rate %llu%s/%s over a %llums window is less than a byte a window: choose a higher rate or a longer window",
				(unsigned long long)r->byte_rate, xrl_byte_unit_name(r->byte_unit),
				xrl_time_unit_name(r->byte_unit_ms), (unsigned long long)(interval / NS_PER_MS));
		if (b > XRL_MAX_THRESHOLD)
			return fail(
				err, len,
				"byte rate %llu%s/%s over a %llums window is more than %u bytes a window, which a window cannot count: choose a shorter window",
				(unsigned long long)r->byte_rate, xrl_byte_unit_name(r->byte_unit),
				xrl_time_unit_name(r->byte_unit_ms), (unsigned long long)(interval / NS_PER_MS),
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

int xrl_set_name_check(const char *name, char *err, size_t len)
{
	size_t i;

	for (i = 0; name[i]; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '-' && name[i] != '.')
			break;
	if (!name[0] || name[i] || i >= XRL_SET_NAME_MAX || !isalpha((unsigned char)name[0]))
		return fail(err, len,
			    "'%s' is not a set's name: a letter, then letters, digits, '_', '-' or '.', at most %d",
			    name, XRL_SET_NAME_MAX - 1);
	return 0;
}
