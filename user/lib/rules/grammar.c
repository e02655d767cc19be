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

/* An address prefix a rule matches (a source's or a destination's): word is "prefix" or "dst". */
static int parse_addr(const char *word, const char *arg, struct xrl_spec *out, char *err, size_t len)
{
	return xrl_parse_match_prefix(word, arg, &out->family, out->addr, &out->plen, err, len);
}

/* 'dst' after a port rule or a dst rule: what to write instead. */
static int dst_refused(const struct xrl_spec *s, char *err, size_t len)
{
	if (s->kind == XRL_KIND_DST || (s->kind == XRL_KIND_PORT && s->family))
		return fail(err, len, "'dst' is given twice: give one destination a rule");
	if (s->kind == XRL_KIND_PORT)
		return fail(err, len, "'dst' goes right after the port: write 'port %u/%s dst ADDR/LEN rate ...'",
			    s->port, xrl_proto_name(s->proto));
	return fail(
		err, len,
		"'dst' is a word of the match, which comes first: write it before the rate, like 'dst ADDR/LEN proto udp rate ...'");
}

/* A field after a shorthand of one field (port, prefix, fragments): the rule of several fields to write. */
static int one_field(char **argv, int n, char *err, size_t len)
{
	if (!strcmp(argv[0], "port"))
		return fail(
			err, len,
			"'port %s' is a rule of one field and takes no '%s': in a rule of several fields write the port as 'proto %s dport %.*s'",
			argv[1], argv[n], strchr(argv[1], '/') + 1, (int)(strchr(argv[1], '/') - argv[1]), argv[1]);
	if (!strcmp(argv[0], "prefix"))
		return fail(
			err, len,
			"'prefix' is a rule of one field and takes no '%s': in a rule of several fields write the source as 'src %s'",
			argv[n], argv[1]);
	return fail(
		err, len,
		"'fragments' is a rule of one field and takes no '%s': in a rule of several fields write 'frag later'",
		argv[n]);
}

/* The words of today's shorthands, which a line of several fields may also begin with (proto, dst). */
static bool shorthand(const char *w)
{
	return !strcmp(w, "port") || !strcmp(w, "proto") || !strcmp(w, "prefix") || !strcmp(w, "dst") ||
	       !strcmp(w, "fragments");
}

/*
 * The match words: how many there are, or -EINVAL. A line that is one of
 * the shorthands (port, proto, fragments, prefix, dst) is that kind, as it
 * always was; any other combination of fields is a match rule.
 */
static int parse_match(int argc, char **argv, struct xrl_spec *out, char *err, size_t len)
{
	int n, ret;

	memset(out, 0, sizeof(*out));
	if (argc < 1)
		return fail(
			err, len,
			"missing rule: expected 'port PORT/PROTO ...', 'proto NAME ...', 'fragments ...', 'prefix ADDR/LEN ...', 'dst ADDR/LEN ...' or fields like 'proto udp sport 53 ...'");
	if ((xrl_is_match_word(argv[0]) && !shorthand(argv[0])) ||
	    (argc > 1 && !strcmp(argv[0], "dst") && !strncmp(argv[1], "!=", 2)))
		return xrl_match_parse(argc, argv, out, err, len);
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
		ret = xrl_shorthand_port(argv[1], out, err, len);
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
		n = xrl_shorthand_proto(argc, argv, out, err, len);
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
		return fail(
			err, len,
			"unknown rule '%s': expected 'port', 'proto', 'fragments', 'prefix' or 'dst', or a field of a rule of several ('src', 'sport', 'dport', 'tcp flags', 'icmp type', 'length', 'ttl', 'dscp', 'frag', 'payload')",
			argv[0]);
	}
	if (n < argc && xrl_is_match_word(argv[n])) {
		/* 'proto udp sport 53', 'dst 192.0.2.1 proto udp': more fields, a match rule. */
		if (!strcmp(argv[0], "proto") || (!strcmp(argv[0], "dst") && strcmp(argv[n], "dst")))
			return xrl_match_parse(argc, argv, out, err, len);
		if (!strcmp(argv[n], "dst") && out->kind != XRL_KIND_PREFIX && strcmp(argv[0], "fragments"))
			return dst_refused(out, err, len);
		return one_field(argv, n, err, len);
	}
	return n;
}

int xrl_spec_parse_match(int argc, char **argv, struct xrl_spec *out, char *err, size_t len)
{
	int n = parse_match(argc, argv, out, err, len);

	return n < 0 ? n : 0;
}

int xrl_spec_match_words(int argc, char **argv, struct xrl_spec *out, char *err, size_t len)
{
	return parse_match(argc, argv, out, err, len);
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

/* The keywords that may appear once in a rule (the scope words have their own message; window and buckets their own). */
static bool is_repeatable_word(const char *w)
{
	static const char *const words[] = { "mask4", "mask6", "mask", "monitor", "allow", "global", "warmup" };
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(w, words[i]))
			return true;
	return false;
}

/* A rate as written, and the window it counts over: its own ('rate 600/min window 60s'), or the rule's. */
struct rate_w {
	bool bytes;
	__u8 bunit; /* a byte rate's enum xrl_byte_unit */
	bool has_window, has_buckets;
	__u64 rate, interval;
	__u32 unit_ms;
	unsigned long buckets;
	const char *text;
};

/* The most rates a rule takes before they are counted against XRL_MAX_WINDOWS. */
#define RATES_MAX 8

/*
 * Window r of interval and buckets for the packet rate pk and the byte rate
 * by (either may be NULL): its shape and thresholds, exactly or refused.
 */
static int set_window(struct xrl_rule *r, const struct rate_w *pk, const struct rate_w *by, __u64 interval,
		      unsigned long buckets, __u64 warmup, char *err, size_t len)
{
	__u64 num;

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
	if (by) {
		/*
		 * Bytes a window: rate * bits a unit / 8 * window / time unit, in 128
		 * bits, rounded down (a byte rate need not make whole bytes).
		 */
		unsigned __int128 b;

		r->byte_rate = by->rate;
		r->byte_unit = by->bunit;
		r->byte_unit_ms = by->unit_ms;
		b = (unsigned __int128)r->byte_rate * xrl_byte_unit_bits(r->byte_unit) * (interval / NS_PER_MS) / 8 /
		    r->byte_unit_ms;
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
	if (!pk) {
		r->flags |= XRL_F_NO_PKT_RATE;
		if (warmup && r->byte_threshold < XRL_COLD_FACTOR)
			return fail(err, len, "warmup needs a threshold of at least 3 a window");
		return 0;
	}
	r->rate = pk->rate;
	r->rate_unit_ms = pk->unit_ms;
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

/*
 * A rule of several packet rates or several byte rates: a window each, in
 * the order written, the first in out->r and the next in out->w. A rate's
 * window is the one written after it (before the first rate: the first
 * rate's), else its time unit's ('rate 600/min': a minute), of 2 buckets.
 */
static int set_windows(struct xrl_spec *out, struct rate_w *rw, int n, __u64 warmup, char *err, size_t len)
{
	const struct xrl_rule base = out->r;
	int k, j, ret;

	if (n > XRL_MAX_WINDOWS)
		return fail(err, len, "%d rates: a rule takes at most %d, a window each; split it into two rules", n,
			    XRL_MAX_WINDOWS);
	if (base.flags & XRL_F_GLOBAL)
		return fail(
			err, len,
			"'global' shares one packet rate across the fleet: it takes one rate; give the others a rule of their own");
	for (k = 0; k < n; k++) {
		struct xrl_rule *r = k ? &out->w[k - 1] : &out->r;

		if (!rw[k].has_window)
			rw[k].interval = (__u64)rw[k].unit_ms * NS_PER_MS;
		if (!rw[k].has_buckets)
			rw[k].buckets = 2;
		for (j = 0; j < k; j++)
			if (rw[j].bytes == rw[k].bytes && rw[j].interval == rw[k].interval &&
			    rw[j].buckets == rw[k].buckets)
				return fail(
					err, len,
					"rates '%s' and '%s' count %s over the same window, where the lower alone decides: give one, or give one a window of its own ('window 60s' after it)",
					rw[j].text, rw[k].text, rw[k].bytes ? "bytes" : "packets");
		*r = base;
		ret = set_window(r, rw[k].bytes ? NULL : &rw[k], rw[k].bytes ? &rw[k] : NULL, rw[k].interval,
				 rw[k].buckets, warmup, err, len);
		if (ret)
			return ret;
	}
	out->nw = (__u8)(n - 1);
	return 0;
}

static int parse_rule(int argc, char **argv, struct xrl_spec *out, char *err, size_t len)
{
	bool have_scope = false, allow = false, have_mask = false, have_shape = false;
	bool have_window = false, have_buckets = false;
	__u64 interval = 1000 * NS_PER_MS, warmup = 0;
	unsigned long buckets = 2;
	struct xrl_rule *r = &out->r;
	struct rate_w rw[RATES_MAX] = {};
	int i, ret, words, nrates = 0, npkt = 0, nbyte = 0, cur = 0;
	__u8 key;

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
		if ((!strcmp(w, "window") && rw[cur].has_window) || (!strcmp(w, "buckets") && rw[cur].has_buckets))
			return fail(err, len, "'%s' is given twice%s: give it once", w,
				    nrates > 1 ? " for one rate" : "");
		if (!strcmp(w, "rate")) {
			struct rate_w *q;

			if (!v)
				return fail(
					err, len,
					"'rate' needs a value: expected COUNT/UNIT like 100/s, or a byte rate like 10Mbit/s");
			if (nrates == RATES_MAX)
				return fail(err, len, "more than %d rates: a rule takes at most %d, a window each",
					    RATES_MAX, XRL_MAX_WINDOWS);
			/* The window and buckets written before the first rate are the first rate's. */
			q = &rw[nrates];
			q->text = v;
			/* The unit tells packet and byte rates apart. */
			ret = xrl_parse_byte_rate(v, &q->rate, &q->bunit, &q->unit_ms, err, len);
			if (ret < 0)
				return ret;
			if (ret == 1) {
				ret = xrl_parse_rate(v, &q->rate, &q->unit_ms, err, len);
				if (ret)
					return ret;
				npkt++;
			} else {
				q->bytes = true;
				nbyte++;
			}
			cur = nrates++;
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
			ret = xrl_parse_duration(v, &rw[cur].interval, err, len);
			if (ret)
				return ret;
			rw[cur].has_window = have_shape = true;
			i++;
		} else if (!strcmp(w, "buckets")) {
			char *end;

			errno = 0;
			rw[cur].buckets = v ? strtoul(v, &end, 10) : 0;
			if (!v || !isdigit((unsigned char)*v) || *end || errno || rw[cur].buckets < 1 ||
			    rw[cur].buckets > XRL_MAX_BUCKETS)
				return fail(err, len, "'buckets' needs a number from 1 to %d, got '%s'",
					    XRL_MAX_BUCKETS, v ? v : "nothing");
			rw[cur].has_buckets = have_shape = true;
			i++;
		} else if (!strcmp(w, "per-source") || !strcmp(w, "aggregate") || !strcmp(w, "per")) {
			if (have_scope)
				return fail(err, len,
					    "'%s': the scope is given twice: use per-source, per KEY or aggregate once",
					    w);
			have_scope = true;
			key = !strcmp(w, "aggregate") ? 0 : XRL_PER_SRC;
			if (w[3] == '\0' && (ret = xrl_per_parse(v, &key, err, len)))
				return ret;
			i += w[3] == '\0';
			out->per = key & ~XRL_PER_SRC;
			if (key & XRL_PER_SRC)
				r->flags |= XRL_F_PER_SOURCE;
			else
				r->flags &= ~XRL_F_PER_SOURCE;
		} else if (!strcmp(w, "mask4") || !strcmp(w, "mask6")) {
			bool v4 = w[4] == '4';

			if (out->kind == XRL_KIND_PREFIX && out->family && v4 != (out->family == XRL_FAMILY_V4))
				return fail(err, len, "'%s' is for IPv%d sources, and this prefix is IPv%d: use 'mask'",
					    w, v4 ? 4 : 6, out->family);
			/* Packets to an IPv4 destination come from IPv4 sources. */
			if (xrl_spec_family(out) && v4 != (xrl_spec_family(out) == XRL_FAMILY_V4))
				return fail(
					err, len,
					"'%s' is for IPv%d sources, and this rule's destination is IPv%d, whose packets come from IPv%d sources: use 'mask%d'",
					w, v4 ? 4 : 6, xrl_spec_family(out), xrl_spec_family(out),
					xrl_spec_family(out));
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
			if (out->kind != XRL_KIND_PREFIX && out->kind != XRL_KIND_DST && out->kind != XRL_KIND_MATCH)
				return fail(
					err, len,
					"'allow' is for prefix and dst rules and rules of several fields: a %s rule%s always limits",
					xrl_kind_word(out->kind), out->family ? " narrowed to a destination" : "");
			allow = true;
		} else if (!strcmp(w, "dst")) {
			return dst_refused(out, err, len);
		} else if (xrl_is_match_word(w)) {
			return fail(
				err, len,
				"'%s' is a word of the match, which comes first: write it before the rate, like 'proto udp sport 53 rate 100/s'",
				w);
		} else {
			return fail(
				err, len,
				"unknown word '%s': expected rate, window, buckets, warmup, per-source, per, aggregate, %s, monitor, global%s",
				w, out->kind == XRL_KIND_PREFIX && !out->set[0] ? "mask" : "mask4, mask6",
				out->kind == XRL_KIND_PREFIX || out->kind == XRL_KIND_DST ? " or allow" : "");
		}
	}
	/* One packet rate and one byte rate at most: one window of the rule's shape, written anywhere, for both. */
	if (npkt <= 1 && nbyte <= 1) {
		for (i = 0; i < nrates; i++) {
			if ((rw[i].has_window && have_window) || (rw[i].has_buckets && have_buckets))
				return fail(err, len, "'%s' is given twice: give it once",
					    rw[i].has_window && have_window ? "window" : "buckets");
			if (rw[i].has_window) {
				interval = rw[i].interval;
				have_window = true;
			}
			if (rw[i].has_buckets) {
				buckets = rw[i].buckets;
				have_buckets = true;
			}
		}
	}

	if (allow) {
		if (nrates || have_scope || have_mask || have_shape || warmup ||
		    (r->flags & (XRL_F_MONITOR | XRL_F_GLOBAL)))
			return fail(
				err, len,
				"'allow' takes no rate, window, buckets, warmup, scope, mask, monitor or global: allowed traffic bypasses every limit");
		r->flags = XRL_F_ALLOW;
		out->per = 0;
		r->interval_ns = interval;
		r->buckets = (__u32)buckets;
		return 0;
	}
	if (!nrates)
		return fail(
			err, len,
			"missing 'rate': every limiting rule needs one, like 'rate 100/s' (or 'allow' for a prefix or dst rule)");
	if (have_mask && !(xrl_spec_per(out) & (XRL_PER_SRC | XRL_PER_DST)))
		return fail(err, len,
			    "a source mask needs 'per-source': an aggregate rule has one window for all sources");
	/* One fleet-wide window per rule: per-source windows across nodes are not shared. */
	/* The fleet shares packet allowances (xdp-ratelimit sync): not byte windows, not ramps. */
	if ((r->flags & XRL_F_GLOBAL) && (nbyte || warmup))
		return fail(
			err, len,
			"'global' shares a packet rate across the fleet: it takes no byte rate and no warmup; drop '%s'",
			nbyte ? "the byte rate" : "warmup");
	if ((r->flags & XRL_F_GLOBAL) && xrl_spec_per(out))
		return fail(
			err, len,
			"'global' needs 'aggregate': a fleet shares one window per rule, not one per source; write 'aggregate global'");
	if ((out->per & XRL_PER_DPORT) && !xrl_spec_has_ports(out))
		return fail(
			err, len,
			"'per ...,dport' counts by destination port, and this rule matches packets with none: give it 'proto udp' or 'proto tcp', or count by another key");
	if (have_mask && out->kind == XRL_KIND_PREFIX && out->family && (xrl_spec_per(out) & XRL_PER_SRC)) {
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
	if (npkt > 1 || nbyte > 1)
		return set_windows(out, rw, nrates, warmup, err, len);
	{
		const struct rate_w *pk = NULL, *by = NULL;

		for (i = 0; i < nrates; i++) {
			if (rw[i].bytes)
				by = &rw[i];
			else
				pk = &rw[i];
		}
		return set_window(r, pk, by, interval, buckets, warmup, err, len);
	}
}

int xrl_spec_parse(int argc, char **argv, struct xrl_spec *out, char *err, size_t len)
{
	char text[XRL_RULE_TEXT + 1];
	int ret = parse_rule(argc, argv, out, err, len);

	/* What dump prints must read back: a line of a rules file at most. */
	if (!ret && out->kind == XRL_KIND_MATCH &&
	    (xrl_spec_format(out, text, sizeof(text)) || strlen(text) > XRL_MAX_LINE))
		return fail(err, len, "this rule prints longer than a line of %d characters: split it into two rules",
			    XRL_MAX_LINE);
	return ret;
}
