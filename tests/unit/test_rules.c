// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The rule grammar (user/lib/rules/): rates, durations, prefixes, whole rules, the
 * struct xrl_rule they become, printing them back, and rules files.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rules/rule.h"
#include "rule_lines.h"

#define NS_PER_MS 1000000ULL
#define NS_PER_S 1000000000ULL

/* ---- rates ---- */

static void rate_ok(const char *s, __u64 count, __u32 unit_ms)
{
	char err[XRL_ERRLEN] = "";
	__u64 c = 0;
	__u32 u = 0;

	if (xrl_parse_rate(s, &c, &u, err, sizeof(err)))
		fail_msg("rate '%s' refused: %s", s, err);
	assert_int_equal(c, count);
	assert_int_equal(u, unit_ms);
}

static void rate_bad(const char *s, const char *want)
{
	char err[XRL_ERRLEN] = "";
	__u64 c = 0;
	__u32 u = 0;
	int ret = xrl_parse_rate(s, &c, &u, err, sizeof(err));

	if (ret != -EINVAL)
		fail_msg("rate '%s' gave %d (%llu per %u ms), expected -EINVAL", s, ret, (unsigned long long)c, u);
	assert_contains(err, want);
}

static void test_rate_good(void **state)
{
	(void)state;
	rate_ok("100/s", 100, 1000);
	rate_ok("10k/s", 10000, 1000);
	rate_ok("10K/s", 10000, 1000);
	rate_ok("1M/s", 1000000, 1000);
	rate_ok("2G/s", 2000000000ULL, 1000);
	rate_ok("600/min", 600, 60000);
	rate_ok("600/m", 600, 60000);
	rate_ok("3600/h", 3600, 3600000);
	rate_ok("3600/hour", 3600, 3600000);
	rate_ok("1/sec", 1, 1000);
	rate_ok("1/second", 1, 1000);
	rate_ok("1/minute", 1, 60000);
	/* the cap itself: 10^12 per unit */
	rate_ok("1000000000000/s", 1000000000000ULL, 1000);
	rate_ok("1000G/s", 1000000000000ULL, 1000);
}

static void test_rate_refused(void **state)
{
	(void)state;
	rate_bad("0/s", "zero");
	rate_bad("0k/s", "zero");
	rate_bad("-1/s", "not a rate");
	rate_bad("10x/s", "not a rate");
	rate_bad("100/d", "unknown unit 'd'");
	rate_bad("100/", "unknown unit");
	rate_bad("100", "not a rate");
	rate_bad("/s", "not a rate");
	rate_bad("", "not a rate");
	rate_bad("1.5/s", "not a rate");
	rate_bad("100 /s", "not a rate");
	/* beyond 64 bits */
	rate_bad("99999999999999999999/s", "too large");
	rate_bad("18446744073709551616/s", "too large");
	rate_bad("99999999999999999G/s", "too large");
	/* beyond the cap of 10^12 per unit */
	rate_bad("10000000000000/s", "too large");
	rate_bad("1000000000001/s", "too large");
	rate_bad("10000G/s", "too large");
	/* the message names what was written */
	rate_bad("10x/s", "'10x/s'");
}

/* ---- durations ---- */

static void dur_ok(const char *s, __u64 ns)
{
	char err[XRL_ERRLEN] = "";
	__u64 v = 0;

	if (xrl_parse_duration(s, &v, err, sizeof(err)))
		fail_msg("duration '%s' refused: %s", s, err);
	assert_int_equal(v, ns);
}

static void dur_bad(const char *s, const char *want)
{
	char err[XRL_ERRLEN] = "";
	__u64 v = 0;
	int ret = xrl_parse_duration(s, &v, err, sizeof(err));

	if (ret != -EINVAL)
		fail_msg("duration '%s' gave %d (%llu ns), expected -EINVAL", s, ret, (unsigned long long)v);
	assert_contains(err, want);
}

static void test_duration_good(void **state)
{
	(void)state;
	dur_ok("500ms", 500 * NS_PER_MS);
	dur_ok("1ms", 1 * NS_PER_MS);
	dur_ok("1s", NS_PER_S);
	dur_ok("2m", 120 * NS_PER_S);
	dur_ok("2min", 120 * NS_PER_S);
	/* the longest window, however it is written */
	dur_ok("3600000ms", 3600 * NS_PER_S);
	dur_ok("3600s", 3600 * NS_PER_S);
	dur_ok("60m", 3600 * NS_PER_S);
}

static void test_duration_refused(void **state)
{
	(void)state;
	dur_bad("0s", "zero");
	dur_bad("0ms", "zero");
	dur_bad("0m", "zero");
	dur_bad("1x", "unknown unit 'x'");
	dur_bad("1", "unknown unit");
	dur_bad("", "not a duration");
	dur_bad("s", "not a duration");
	dur_bad("-1s", "not a duration");
	dur_bad("1.5s", "unknown unit");
	/* longer than an hour */
	dur_bad("3600001ms", "too long");
	dur_bad("3601s", "too long");
	dur_bad("61m", "too long");
	dur_bad("99999999999999999999s", "too large");
	dur_bad("2h", "too long");
}

/*
 * Every "too long" message says "at most 1h": the grammar names the maximum
 * in hours, so an hour written in hours is a window it accepts.
 */
static void test_duration_in_hours(void **state)
{
	(void)state;
	dur_ok("1h", 3600 * NS_PER_S);
}

/* ---- prefixes ---- */

static void prefix_ok(const char *s, __u8 family, const char *addr_text, __u8 plen)
{
	char err[XRL_ERRLEN] = "";
	__u8 fam = 0, addr[16], want[16] = { 0 }, len = 0xff;

	if (xrl_parse_prefix(s, &fam, addr, &len, err, sizeof(err)))
		fail_msg("prefix '%s' refused: %s", s, err);
	assert_int_equal(fam, family);
	assert_int_equal(len, plen);
	assert_int_equal(inet_pton(family == XRL_FAMILY_V4 ? AF_INET : AF_INET6, addr_text, want), 1);
	/* an IPv4 address sits in the first four bytes, the rest zero */
	assert_memory_equal(addr, want, 16);
}

static void prefix_bad(const char *s, const char *want1, const char *want2)
{
	char err[XRL_ERRLEN] = "";
	__u8 fam = 0, addr[16], len = 0;
	int ret = xrl_parse_prefix(s, &fam, addr, &len, err, sizeof(err));

	if (ret != -EINVAL)
		fail_msg("prefix '%s' gave %d, expected -EINVAL", s, ret);
	assert_contains(err, want1);
	if (want2)
		assert_contains(err, want2);
}

static void test_prefix_good(void **state)
{
	(void)state;
	prefix_ok("10.0.0.0/8", XRL_FAMILY_V4, "10.0.0.0", 8);
	prefix_ok("192.168.4.0/22", XRL_FAMILY_V4, "192.168.4.0", 22);
	prefix_ok("0.0.0.0/0", XRL_FAMILY_V4, "0.0.0.0", 0);
	prefix_ok("192.0.2.1/32", XRL_FAMILY_V4, "192.0.2.1", 32);
	/* a bare host is a full-length prefix */
	prefix_ok("192.0.2.1", XRL_FAMILY_V4, "192.0.2.1", 32);
	prefix_ok("2001:db8::/32", XRL_FAMILY_V6, "2001:db8::", 32);
	prefix_ok("2001:db8:0:ff00::/56", XRL_FAMILY_V6, "2001:db8:0:ff00::", 56);
	prefix_ok("::/0", XRL_FAMILY_V6, "::", 0);
	prefix_ok("2001:db8::1", XRL_FAMILY_V6, "2001:db8::1", 128);
	prefix_ok("2001:db8::1/128", XRL_FAMILY_V6, "2001:db8::1", 128);
}

static void test_prefix_refused(void **state)
{
	(void)state;
	prefix_bad("10.0.0.0/33", "/33", "at most /32");
	prefix_bad("2001:db8::/129", "/129", "at most /128");
	prefix_bad("10.0.0.0/", "not a number", NULL);
	prefix_bad("10.0.0.0/x", "not a number", NULL);
	prefix_bad("10.0.0.0/-1", "not a number", NULL);
	prefix_bad("10.0.0.0/99999999999999999999", "not a number", NULL);
	prefix_bad("10.0.0/8", "not an IPv4 or IPv6 address", NULL);
	prefix_bad("300.0.0.0/8", "not an IPv4 or IPv6 address", NULL);
	prefix_bad("example.com", "not an IPv4 or IPv6 address", NULL);
	prefix_bad("", "not an IPv4 or IPv6 address", NULL);
}

/* Host bits set: refused, and the message names the network that was probably meant. */
static void test_prefix_host_bits(void **state)
{
	(void)state;
	prefix_bad("10.0.0.1/8", "host bits", "did you mean 10.0.0.0/8?");
	prefix_bad("10.1.2.3/20", "host bits", "did you mean 10.1.0.0/20?");
	prefix_bad("192.168.1.0/23", "host bits", "did you mean 192.168.0.0/23?");
	prefix_bad("1.2.3.4/0", "host bits", "did you mean 0.0.0.0/0?");
	prefix_bad("2001:db8::1/32", "host bits", "did you mean 2001:db8::/32?");
	prefix_bad("2001:db8:1234:5678::/40", "host bits", "did you mean 2001:db8:1200::/40?");
	/* the message quotes what was written */
	prefix_bad("10.0.0.1/8", "'10.0.0.1/8'", NULL);
}

/* ---- whole rules ---- */

static void assert_rule(const struct xrl_rule *r, __u64 threshold, __u64 interval_ns, __u32 buckets, __u32 flags,
			__u8 mask4, __u8 mask6)
{
	assert_int_equal(r->threshold, threshold);
	assert_int_equal(r->interval_ns, interval_ns);
	assert_int_equal(r->buckets, buckets);
	assert_int_equal(r->flags, flags);
	assert_int_equal(r->src_mask4, mask4);
	assert_int_equal(r->src_mask6, mask6);
	/* id and gen are the applier's: a parsed rule has neither */
	assert_int_equal(r->id, 0);
	assert_int_equal(r->gen, 0);
}

static void test_rule_defaults(void **state)
{
	struct xrl_spec s;

	(void)state;
	parse_ok("port 53/udp rate 100/s", &s);
	assert_int_equal(s.kind, XRL_KIND_PORT);
	assert_int_equal(s.port, 53);
	assert_int_equal(s.proto, XRL_PROTO_UDP);
	assert_int_equal(s.r.rate, 100);
	assert_int_equal(s.r.rate_unit_ms, 1000);
	/* window 1s, 2 buckets, per-source with /32 and /64 */
	assert_rule(&s.r, 100, NS_PER_S, 2, XRL_F_PER_SOURCE, 32, 64);
	assert_int_equal(s.line, 0);

	parse_ok("port 443/tcp rate 5/s", &s);
	assert_int_equal(s.port, 443);
	assert_int_equal(s.proto, XRL_PROTO_TCP);

	parse_ok("port 65535/tcp rate 5/s", &s);
	assert_int_equal(s.port, 65535);
	parse_ok("port 1/udp rate 5/s", &s);
	assert_int_equal(s.port, 1);

	parse_ok("prefix 10.0.0.0/8 rate 1k/s", &s);
	assert_int_equal(s.kind, XRL_KIND_PREFIX);
	assert_int_equal(s.family, XRL_FAMILY_V4);
	assert_int_equal(s.plen, 8);
	assert_int_equal(s.addr[0], 10);
	assert_rule(&s.r, 1000, NS_PER_S, 2, XRL_F_PER_SOURCE, 32, 64);

	parse_ok("prefix 2001:db8::/32 rate 1k/s", &s);
	assert_int_equal(s.family, XRL_FAMILY_V6);
	assert_int_equal(s.plen, 32);
	assert_rule(&s.r, 1000, NS_PER_S, 2, XRL_F_PER_SOURCE, 32, 64);
}

static void test_rule_every_keyword(void **state)
{
	struct xrl_spec s;

	(void)state;
	parse_ok("port 443/tcp rate 10k/s window 500ms buckets 5 per-source mask4 24 mask6 48 monitor", &s);
	assert_int_equal(s.r.rate, 10000);
	assert_rule(&s.r, 5000, 500 * NS_PER_MS, 5, XRL_F_PER_SOURCE | XRL_F_MONITOR, 24, 48);

	/* keywords in any order; mask4 and mask take an optional slash */
	parse_ok("port 80/tcp monitor mask6 /56 buckets 4 mask4 /16 window 2s rate 1M/s", &s);
	assert_rule(&s.r, 2000000, 2 * NS_PER_S, 4, XRL_F_PER_SOURCE | XRL_F_MONITOR, 16, 56);

	parse_ok("prefix 10.0.0.0/8 rate 600/min window 2s buckets 4 aggregate", &s);
	assert_int_equal(s.r.rate, 600);
	assert_int_equal(s.r.rate_unit_ms, 60000);
	assert_rule(&s.r, 20, 2 * NS_PER_S, 4, 0, 32, 64);

	parse_ok("prefix 10.0.0.0/8 rate 100/s aggregate monitor", &s);
	assert_rule(&s.r, 100, NS_PER_S, 2, XRL_F_MONITOR, 32, 64);

	/* mask on a prefix rule sets the mask of the prefix's family */
	parse_ok("prefix 10.0.0.0/8 rate 100/s mask 24", &s);
	assert_rule(&s.r, 100, NS_PER_S, 2, XRL_F_PER_SOURCE, 24, 64);
	parse_ok("prefix 2001:db8::/32 rate 100/s mask /48", &s);
	assert_rule(&s.r, 100, NS_PER_S, 2, XRL_F_PER_SOURCE, 32, 48);
	parse_ok("prefix 2001:db8::/32 rate 100/s mask 128", &s);
	assert_rule(&s.r, 100, NS_PER_S, 2, XRL_F_PER_SOURCE, 32, 128);
	parse_bad("prefix 10.0.0.0/8 rate 100/s mask 0", "mask 0 is no longer than the prefix's /8", NULL);

	parse_ok("prefix 192.0.2.0/24 allow", &s);
	assert_int_equal(s.r.flags, XRL_F_ALLOW);
	assert_int_equal(s.r.threshold, 0);
	assert_int_equal(s.r.rate, 0);
	parse_ok("prefix 2001:db8::/32 allow", &s);
	assert_int_equal(s.r.flags, XRL_F_ALLOW);

	parse_ok("port 9/udp rate 3600/h window 60m buckets 16", &s);
	assert_int_equal(s.r.rate_unit_ms, 3600000);
	assert_rule(&s.r, 3600, 3600 * NS_PER_S, 16, XRL_F_PER_SOURCE, 32, 64);
}

/* threshold = rate x window / unit, exactly, and only when it is a whole number. */
static void test_rule_threshold(void **state)
{
	static const struct {
		const char *line;
		__u64 threshold;
	} good[] = {
		{ "port 1/udp rate 100/s window 500ms", 50 },
		{ "port 1/udp rate 10/s window 300ms buckets 3", 3 },
		{ "port 1/udp rate 1/s window 1s", 1 },
		{ "port 1/udp rate 5/s window 200ms", 1 },
		{ "port 1/udp rate 10k/s window 2m", 1200000 },
		{ "port 1/udp rate 600/min window 1s", 10 },
		{ "port 1/udp rate 1/min window 1m", 1 },
		{ "port 1/udp rate 3600/h window 1s", 1 },
		{ "port 1/udp rate 1/h window 60m", 1 },
		{ "port 1/udp rate 7/s window 3s buckets 3", 21 },
		/* the most a window counts, over the longest window */
		{ "port 1/udp rate 1193046/s window 60m", 4294965600ULL },
		{ "port 1/udp rate 4294967295/s", 4294967295ULL },
	};
	struct xrl_spec s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		parse_ok(good[i].line, &s);
		if (s.r.threshold != good[i].threshold)
			fail_msg("'%s': threshold %llu, expected %llu", good[i].line, (unsigned long long)s.r.threshold,
				 (unsigned long long)good[i].threshold);
	}
	/* 0.5, 2.1, 1/60 and 1/3600 packets: refused, never rounded */
	parse_bad("port 1/udp rate 1/s window 500ms", "not a whole number of packets", NULL);
	parse_bad("port 1/udp rate 7/s window 300ms buckets 3", "not a whole number of packets", NULL);
	parse_bad("port 1/udp rate 1/min window 1s", "not a whole number of packets", NULL);
	parse_bad("port 1/udp rate 1/h window 1s", "not a whole number of packets", NULL);
	/* a window counts in 32 bits: more is refused, not wrapped */
	parse_bad("port 1/udp rate 4294967296/s", "a window counts at most 4294967295", NULL);
	parse_bad("port 1/udp rate 1000G/s window 60m", "choose a shorter window", NULL);
}

static void test_rule_bad_match(void **state)
{
	char err[XRL_ERRLEN];
	struct xrl_spec s;

	(void)state;
	assert_int_equal(xrl_spec_parse(0, NULL, &s, err, sizeof(err)), -EINVAL);
	assert_contains(err, "missing rule");
	parse_bad("port", "'port' needs a value", NULL);
	parse_bad("prefix", "'prefix' needs a value", NULL);
	parse_bad("host 10.0.0.1 rate 1/s", "unknown rule 'host'", NULL);
	parse_bad("port 0/udp rate 100/s", "port 0 is out of range", NULL);
	parse_bad("port 65536/udp rate 100/s", "port 65536 is out of range", NULL);
	parse_bad("port 99999999999999999999/udp rate 100/s", "not a port", NULL);
	parse_bad("port 53/icmp rate 100/s", "protocol 'icmp' is not supported", NULL);
	parse_bad("port 53/UDP rate 100/s", "protocol 'UDP' is not supported", NULL);
	parse_bad("port 53 rate 100/s", "'53' is not a port", NULL);
	parse_bad("port udp/53 rate 100/s", "not a port", NULL);
	parse_bad("port -53/udp rate 100/s", "not a port", NULL);
	parse_bad("prefix 10.0.0.0/33 rate 100/s", "at most /32", NULL);
	parse_bad("prefix 10.0.0.1/8 rate 100/s", "did you mean 10.0.0.0/8?", NULL);
}

/* Rules that would be accepted and never do what they say. */
static void test_rule_misleading(void **state)
{
	struct xrl_spec s;

	(void)state;
	/* an IPv4-mapped prefix: IPv4 traffic arrives as IPv4, so it never matched */
	parse_bad("prefix ::ffff:1.2.3.4/128 rate 1/s", "IPv4-mapped IPv6 prefix", "write it as prefix 1.2.3.4/32");
	parse_bad("prefix ::ffff:10.0.0.0/104 rate 1/s", "IPv4-mapped", "10.0.0.0/8");
	parse_ok("prefix ::/0 rate 1/s", &s);
	/* a mask no longer than the prefix: one window for every source, an aggregate in disguise */
	parse_bad("prefix 10.0.0.0/16 rate 1/s mask 8", "mask 8 is no longer than the prefix's /16", "'aggregate'");
	parse_bad("prefix 10.0.0.0/16 rate 1/s mask 16", "mask 16 is no longer", NULL);
	parse_bad("prefix 10.0.0.0/16 rate 1/s mask4 12", "mask 12 is no longer", NULL);
	parse_bad("prefix 2001:db8::/32 rate 1/s mask 32", "mask 32 is no longer", NULL);
	parse_ok("prefix 10.0.0.0/16 rate 1/s mask 24", &s);
	parse_ok("prefix 10.0.0.1/32 rate 1/s", &s); /* the default mask is not a choice: it stays allowed */
	/* repeats */
	parse_bad("port 1/udp rate 1/s monitor monitor", "'monitor' is given twice", NULL);
	parse_bad("prefix 10.0.0.0/8 rate 1/s mask 24 mask 16", "'mask' is given twice", NULL);
	parse_bad("port 1/udp rate 1/s mask4 24 mask4 16", "'mask4' is given twice", NULL);
	parse_bad("prefix 10.0.0.0/8 allow allow", "'allow' is given twice", NULL);
	parse_bad("port 1/udp rate 5/s 5/s", "unknown word '5/s'", NULL);
}

/* global: one limit across a fleet, an aggregate rule's flag, printed after the scope */
static void test_rule_global(void **state)
{
	struct xrl_spec s;
	char text[256];

	(void)state;
	parse_ok("port 53/udp rate 1000/s aggregate global", &s);
	assert_rule(&s.r, 1000, NS_PER_S, 2, XRL_F_GLOBAL, 32, 64);
	assert_int_equal(xrl_spec_format(&s, text, sizeof(text)), 0);
	assert_string_equal(text, "port 53/udp rate 1k/s window 1s buckets 2 aggregate global");
	parse_ok("prefix 10.0.0.0/8 global rate 10/s monitor aggregate", &s);
	assert_rule(&s.r, 10, NS_PER_S, 2, XRL_F_GLOBAL | XRL_F_MONITOR, 32, 64);
	assert_int_equal(xrl_spec_format(&s, text, sizeof(text)), 0);
	assert_string_equal(text, "prefix 10.0.0.0/8 rate 10/s window 1s buckets 2 aggregate global monitor");
	/* per-source is the default scope, so a bare global is refused too */
	parse_bad("port 53/udp rate 1000/s global", "'global' needs 'aggregate'", "aggregate global");
	parse_bad("port 53/udp rate 1000/s per-source global", "'global' needs 'aggregate'", NULL);
	parse_bad("prefix 10.0.0.0/8 rate 1/s global mask 24", "needs", NULL);
	parse_bad("prefix 10.0.0.0/8 allow global", "'allow' takes no", "global");
	parse_bad("port 53/udp rate 1/s aggregate global global", "'global' is given twice", NULL);
}

static void test_rule_bad_combinations(void **state)
{
	(void)state;
	/* allow */
	parse_bad("port 53/udp allow", "'allow' is for prefix and dst rules", NULL);
	parse_bad("prefix 10.0.0.0/8 allow rate 100/s", "'allow' takes no rate", NULL);
	parse_bad("prefix 10.0.0.0/8 rate 100/s allow", "'allow' takes no rate", NULL);
	parse_bad("prefix 10.0.0.0/8 allow monitor", "'allow' takes no", "monitor");
	parse_bad("prefix 10.0.0.0/8 allow aggregate", "'allow' takes no", "scope");
	parse_bad("prefix 10.0.0.0/8 allow per-source", "'allow' takes no", "scope");
	parse_bad("prefix 10.0.0.0/8 allow mask 24", "'allow' takes no", "mask");
	parse_bad("prefix 10.0.0.0/8 allow window 2s", "'allow' takes no", "window");
	parse_bad("prefix 10.0.0.0/8 allow buckets 4", "'allow' takes no", "buckets");
	/* a word given twice: refused, never last-one-wins */
	parse_bad("port 53/udp rate 100/s rate 10/s", "'100/s' and '10/s' count packets over the same window", NULL);
	parse_bad("port 53/udp rate 100/s window 1s window 2s", "'window' is given twice", NULL);
	parse_bad("port 53/udp rate 100/s buckets 2 buckets 4", "'buckets' is given twice", NULL);
	/* a source mask of the other family than the prefix's */
	parse_bad("prefix 10.0.0.0/8 rate 100/s mask6 48", "'mask6' is for IPv6 sources", "use 'mask'");
	parse_bad("prefix 2001:db8::/32 rate 100/s mask4 24", "'mask4' is for IPv4 sources", "use 'mask'");
	/* the window shape */
	parse_bad("port 53/udp rate 100/s window 1s buckets 3", "does not divide into 3 buckets", NULL);
	parse_bad("port 53/udp rate 100/s window 100ms buckets 7", "does not divide into 7 buckets", NULL);
	parse_bad("port 53/udp rate 100/s window 1ms buckets 2", "too short", NULL);
	parse_bad("port 53/udp rate 100/s buckets 0", "'buckets' needs a number from 1 to 60", "'0'");
	parse_bad("port 53/udp rate 100/s buckets 61", "'buckets' needs a number from 1 to 60", "'61'");
	parse_bad("port 53/udp rate 100/s buckets four", "'buckets' needs a number", "'four'");
	parse_bad("port 53/udp rate 100/s buckets -2", "'buckets' needs a number", NULL);
	parse_bad("port 53/udp rate 100/s buckets", "'buckets' needs a number", "nothing");
	parse_bad("port 53/udp rate 100/s window 61m", "too long", NULL);
	parse_bad("port 53/udp rate 100/s window 0s", "zero", NULL);
	parse_bad("port 53/udp rate 100/s window", "'window' needs a value", NULL);
	/* masks */
	parse_bad("port 53/udp rate 100/s aggregate mask4 24", "needs 'per-source'", NULL);
	parse_bad("port 53/udp rate 100/s mask6 48 aggregate", "needs 'per-source'", NULL);
	parse_bad("prefix 10.0.0.0/8 rate 100/s aggregate mask 24", "needs 'per-source'", NULL);
	parse_bad("port 53/udp rate 100/s mask 24", "'mask' is for prefix rules", NULL);
	parse_bad("port 53/udp rate 100/s mask4 33", "'mask4' /33", "at most /32");
	parse_bad("port 53/udp rate 100/s mask6 129", "'mask6' /129", "at most /128");
	parse_bad("prefix 10.0.0.0/8 rate 100/s mask 33", "at most /32", NULL);
	parse_bad("prefix 2001:db8::/32 rate 100/s mask 129", "at most /128", NULL);
	parse_bad("port 53/udp rate 100/s mask4 x", "'x' is not a prefix length", NULL);
	parse_bad("port 53/udp rate 100/s mask4", "'mask4' needs a value", NULL);
	/* words */
	parse_bad("port 53/udp rate 100/s burst 10", "unknown word 'burst'", NULL);
	parse_bad("port 53/udp rate 100/s Monitor", "unknown word 'Monitor'", NULL);
	parse_bad("port 53/udp window 1s", "missing 'rate'", NULL);
	parse_bad("prefix 10.0.0.0/8 monitor", "missing 'rate'", NULL);
	parse_bad("port 53/udp rate", "'rate' needs a value", NULL);
	parse_bad("port 53/udp rate 100/d", "unknown unit 'd'", NULL);
	parse_bad("port 53/udp rate 100/s per-source aggregate", "scope is given twice", NULL);
	parse_bad("port 53/udp rate 100/s aggregate aggregate", "scope is given twice", NULL);
	parse_bad("port 53/udp rate 100/s per-source per-source", "scope is given twice", NULL);
}

/* ---- printing and parsing back ---- */

static void assert_same_spec(const char *what, const struct xrl_spec *a, const struct xrl_spec *b)
{
	if (!xrl_spec_same_match(a, b) || a->kind != b->kind)
		fail_msg("'%s': the match changed", what);
	if (a->kind == XRL_KIND_PORT && (a->port != b->port || a->proto != b->proto))
		fail_msg("'%s': the port changed", what);
	if ((a->kind == XRL_KIND_PREFIX || xrl_spec_in_dsts(a)) &&
	    (a->family != b->family || a->plen != b->plen || memcmp(a->addr, b->addr, 16)))
		fail_msg("'%s': the prefix changed", what);
	if (memcmp(&a->r, &b->r, sizeof(a->r)))
		fail_msg("'%s': struct xrl_rule changed: threshold %llu/%llu interval %llu/%llu rate %llu/%llu "
			 "unit %u/%u buckets %u/%u flags %#x/%#x mask4 %u/%u mask6 %u/%u",
			 what, (unsigned long long)a->r.threshold, (unsigned long long)b->r.threshold,
			 (unsigned long long)a->r.interval_ns, (unsigned long long)b->r.interval_ns,
			 (unsigned long long)a->r.rate, (unsigned long long)b->r.rate, a->r.rate_unit_ms,
			 b->r.rate_unit_ms, a->r.buckets, b->r.buckets, a->r.flags, b->r.flags, a->r.src_mask4,
			 b->r.src_mask4, a->r.src_mask6, b->r.src_mask6);
	if (a->nw != b->nw || memcmp(a->w, b->w, sizeof(a->w)))
		fail_msg("'%s': its next windows changed (%u, %u)", what, a->nw, b->nw);
}

/* parse(line) -> format -> parse gives the same rule; formatting again gives the same text. */
static void roundtrip(const char *line)
{
	char text[256], text2[256], err[XRL_ERRLEN];
	struct xrl_spec a, b;

	parse_ok(line, &a);
	assert_int_equal(xrl_spec_format(&a, text, sizeof(text)), 0);
	if (parse(text, &b, err))
		fail_msg("'%s' printed as '%s', which is refused: %s", line, text, err);
	assert_same_spec(line, &a, &b);
	assert_int_equal(xrl_spec_format(&b, text2, sizeof(text2)), 0);
	assert_string_equal(text, text2);
}

/* ---- rules of several windows ---- */

/* Window k of line's rule: its threshold, packets or bytes, its length and buckets. */
static void window_is(const struct xrl_spec *s, int k, bool bytes, __u64 thr, __u64 ms, __u32 buckets)
{
	const struct xrl_rule *w = xrl_spec_window(s, k);

	if (!!(w->flags & XRL_F_NO_PKT_RATE) != bytes || (bytes ? w->byte_threshold : w->threshold) != thr ||
	    w->interval_ns != ms * NS_PER_MS || w->buckets != buckets)
		fail_msg("window %d: %s %llu over %llums in %u buckets, want %s %llu over %llums in %u", k,
			 w->flags & XRL_F_NO_PKT_RATE ? "bytes" : "packets",
			 (unsigned long long)(w->flags & XRL_F_NO_PKT_RATE ? w->byte_threshold : w->threshold),
			 (unsigned long long)(w->interval_ns / NS_PER_MS), w->buckets, bytes ? "bytes" : "packets",
			 (unsigned long long)thr, (unsigned long long)ms, buckets);
}

static void test_windows(void **state)
{
	/* The issue's three lines, as written. */
	static const char *const issue[] = {
		"port 27015/udp rate 20/s rate 600/min per-source",
		"port 80/tcp rate 6000/min window 60s buckets 60 per-source",
		"port 443/tcp rate 100/s rate 2000/min rate 50Mbit/s per-source",
	};
	char text[XRL_RULE_TEXT];
	struct xrl_spec s;
	size_t i;

	(void)state;
	parse_ok(issue[0], &s);
	assert_int_equal(s.nw, 1);
	window_is(&s, 0, false, 20, 1000, 2);
	window_is(&s, 1, false, 600, 60000, 2);
	/* The scope and mask are every window's. */
	assert_true(s.w[0].flags & XRL_F_PER_SOURCE);
	assert_int_equal(s.w[0].src_mask4, 32);
	assert_int_equal(xrl_spec_format(&s, text, sizeof(text)), 0);
	assert_string_equal(text, issue[0]);
	/* One rate: one window, as before (a minute's rate over the window written). */
	parse_ok(issue[1], &s);
	assert_int_equal(s.nw, 0);
	window_is(&s, 0, false, 6000, 60000, 60);
	parse_ok(issue[2], &s);
	assert_int_equal(s.nw, 2);
	window_is(&s, 0, false, 100, 1000, 2);
	window_is(&s, 1, false, 2000, 60000, 2);
	window_is(&s, 2, true, 50000000 / 8, 1000, 2);
	assert_int_equal(xrl_spec_format(&s, text, sizeof(text)), 0);
	assert_string_equal(text, "port 443/tcp rate 100/s rate 2k/min rate 50Mbit/s per-source");
	for (i = 0; i < sizeof(issue) / sizeof(issue[0]); i++)
		roundtrip(issue[i]);
	/* A rate's own window follows it; one written before the first rate is the first's. */
	parse_ok("port 1/udp rate 20/s window 2s buckets 4 rate 600/min window 60s buckets 60", &s);
	window_is(&s, 0, false, 40, 2000, 4);
	window_is(&s, 1, false, 600, 60000, 60);
	assert_int_equal(xrl_spec_format(&s, text, sizeof(text)), 0);
	assert_string_equal(text,
			    "port 1/udp rate 20/s window 2s buckets 4 rate 600/min window 1m buckets 60 per-source");
	parse_ok("port 1/udp window 2s rate 20/s rate 600/min", &s);
	window_is(&s, 0, false, 40, 2000, 2);
	window_is(&s, 1, false, 600, 60000, 2);
	roundtrip("port 1/udp window 2s rate 20/s rate 600/min");
	/* Two byte rates, four windows, of every kind of rule; warmup and monitor on every window. */
	roundtrip("port 1/udp rate 1Mbit/s rate 30MB/min");
	roundtrip("proto udp sport 53 rate 20/s rate 600/min rate 1Mbit/s rate 100MB/h per src,dport");
	roundtrip("prefix 10.0.0.0/8 rate 20/s rate 600/min window 60s buckets 60 mask 24 warmup 10s monitor");
	roundtrip("dst 192.0.2.0/24 rate 20/s rate 600/min aggregate");
	roundtrip("proto tcp-syn rate 20/s rate 600/min");
	/* One packet rate and one byte rate: one window for both, written anywhere, as before. */
	parse_ok("port 1/udp rate 100/s window 2s rate 1Mbit/s", &s);
	assert_int_equal(s.nw, 0);
	assert_int_equal(s.r.byte_threshold, 250000);
	assert_int_equal(s.r.threshold, 200);
	roundtrip("port 1/udp rate 100/s window 2s rate 1Mbit/s");
	parse_bad("port 1/udp rate 100/s window 2s rate 1Mbit/s window 3s", "'window' is given twice", NULL);
}

static void test_windows_refused(void **state)
{
	(void)state;
	/* The same window counted twice: the lower rate alone decides. */
	parse_bad("port 1/udp rate 20/s rate 30/s", "'20/s' and '30/s'", "same window");
	parse_bad("port 1/udp rate 20/s rate 1200/min window 1s", "same window", NULL);
	parse_bad("port 1/udp rate 1Mbit/s rate 2Mbit/s", "count bytes over the same window", NULL);
	parse_bad("port 1/udp rate 20/s rate 1/min rate 2/h rate 1Mbit/s rate 1MB/min", "at most 4", NULL);
	parse_bad("port 1/udp rate 20/s window 2s window 3s rate 1/min", "'window' is given twice", NULL);
	parse_bad("port 1/udp rate 20/s buckets 2 rate 1/min buckets 3 buckets 4", "'buckets' is given twice", NULL);
	parse_bad("port 1/udp rate 20/s rate 600/min aggregate global", "'global'", "one rate");
	/* Each window's own checks: a rate not whole over its window. */
	parse_bad("port 1/udp rate 20/s rate 7/min window 2s", "not a whole number", NULL);
}

/* ---- protocol rules and fragments ---- */

static void sel_ok(const char *line, __u16 sel, const char *printed)
{
	char text[256];
	struct xrl_spec s;

	parse_ok(line, &s);
	assert_int_equal(s.kind, XRL_KIND_PROTO);
	if (s.sel != sel)
		fail_msg("'%s': selector %u, want %u", line, s.sel, sel);
	assert_int_equal(xrl_spec_format(&s, text, sizeof(text)), 0);
	assert_string_equal(text, printed);
	roundtrip(line);
}

static void test_proto_rules(void **state)
{
	struct xrl_spec a, b;

	(void)state;
	sel_ok("proto tcp-syn rate 100/s", XRL_SEL_SYN, "proto tcp-syn rate 100/s window 1s buckets 2 per-source");
	sel_ok("proto tcp rate 1k/s aggregate", XRL_PROTO_TCP, "proto tcp rate 1k/s window 1s buckets 2 aggregate");
	sel_ok("proto 6 rate 10/s", XRL_PROTO_TCP, "proto tcp rate 10/s window 1s buckets 2 per-source");
	sel_ok("proto udp rate 10/s mask4 24 mask6 48 monitor", XRL_PROTO_UDP,
	       "proto udp rate 10/s window 1s buckets 2 per-source mask4 24 mask6 48 monitor");
	sel_ok("proto icmp rate 10/s", XRL_PROTO_ICMP, "proto icmp rate 10/s window 1s buckets 2 per-source");
	sel_ok("proto icmp type 8 rate 10/s", XRL_SEL_ICMP(8),
	       "proto icmp type 8 rate 10/s window 1s buckets 2 per-source");
	sel_ok("proto 1 type 0 rate 10/s", XRL_SEL_ICMP(0),
	       "proto icmp type 0 rate 10/s window 1s buckets 2 per-source");
	sel_ok("proto icmpv6 type 128 rate 5/s window 2s buckets 4", XRL_SEL_ICMPV6(128),
	       "proto icmpv6 type 128 rate 5/s window 2s buckets 4 per-source");
	sel_ok("proto icmpv6 rate 5/s", XRL_PROTO_ICMPV6, "proto icmpv6 rate 5/s window 1s buckets 2 per-source");
	sel_ok("proto 47 rate 5/s aggregate", 47, "proto 47 rate 5/s window 1s buckets 2 aggregate");
	sel_ok("proto 0 rate 5/s", 0, "proto 0 rate 5/s window 1s buckets 2 per-source");
	sel_ok("fragments rate 50/s", XRL_SEL_FRAGMENTS, "fragments rate 50/s window 1s buckets 2 per-source");
	sel_ok("fragments rate 50/s aggregate", XRL_SEL_FRAGMENTS, "fragments rate 50/s window 1s buckets 2 aggregate");
	/* Same match: the name and the number; not: a type and the plain protocol, tcp-syn and tcp. */
	parse_ok("proto tcp rate 1/s", &a);
	parse_ok("proto 6 rate 2/s", &b);
	assert_true(xrl_spec_same_match(&a, &b));
	parse_ok("proto tcp-syn rate 1/s", &b);
	assert_false(xrl_spec_same_match(&a, &b));
	parse_ok("proto icmp rate 1/s", &a);
	parse_ok("proto icmp type 8 rate 1/s", &b);
	assert_false(xrl_spec_same_match(&a, &b));
	parse_ok("port 6/tcp rate 1/s", &a);
	parse_ok("proto 6 rate 1/s", &b);
	assert_false(xrl_spec_same_match(&a, &b));
}

static void test_proto_refused(void **state)
{
	(void)state;
	parse_bad("proto icmp type 300 rate 1/s", "'type' needs a number from 0 to 255", "'300'");
	parse_bad("proto icmp type rate 1/s", "'type' needs a number from 0 to 255", NULL);
	parse_bad("proto icmp type", "'type' needs a number from 0 to 255", "nothing");
	parse_bad("proto tcp-syn type 8 rate 1/s", "'type' is for icmp and icmpv6 rules", NULL);
	parse_bad("proto udp type 8 rate 1/s", "'type' is for icmp and icmpv6 rules", NULL);
	parse_bad("proto 256 rate 1/s", "'256' is not a protocol", "0 to 255");
	parse_bad("proto sctp rate 1/s", "'sctp' is not a protocol", "tcp-syn, tcp, udp, icmp, icmpv6");
	parse_bad("proto", "'proto' needs a value", "tcp-syn");
	parse_bad("proto tcp-syn rate 1/s mask 24", "'mask' is for prefix rules",
		  "a protocol rule takes mask4 and mask6");
	parse_bad("fragments rate 1/s mask 24", "'mask' is for prefix rules", "mask4 and mask6");
	parse_bad("proto icmp allow", "'allow' is for prefix and dst rules", "a protocol rule always limits");
	parse_bad("proto icmp type 8", "missing 'rate'", NULL);
	parse_bad("fragments", "missing 'rate'", NULL);
	parse_bad("fragments 10 rate 1/s", "unknown word '10'", "mask4, mask6");
	/* After a whole shorthand, a second type is a rule of several fields' word given twice. */
	parse_bad("proto icmp type 8 type 9 rate 1/s", "'type' is given twice", NULL);
	parse_bad("proto udp rate 1/s aggregate mask4 24", "a source mask needs 'per-source'", NULL);
}

/* ---- destination rules and narrowed port rules ---- */

static void dst_ok(const char *line, int kind, const char *addr, int plen, const char *printed)
{
	__u8 want[16] = {};
	char text[256];
	struct xrl_spec s;

	parse_ok(line, &s);
	assert_int_equal(s.kind, kind);
	assert_int_equal(s.plen, plen);
	assert_int_equal(inet_pton(strchr(addr, ':') ? AF_INET6 : AF_INET, addr, want), 1);
	assert_memory_equal(s.addr, want, 16);
	assert_int_equal(s.family, strchr(addr, ':') ? XRL_FAMILY_V6 : XRL_FAMILY_V4);
	assert_int_equal(xrl_spec_format(&s, text, sizeof(text)), 0);
	assert_string_equal(text, printed);
	roundtrip(line);
}

static void test_dst_rules(void **state)
{
	struct xrl_spec a, b;

	(void)state;
	dst_ok("dst 203.0.113.0/24 rate 100/s", XRL_KIND_DST, "203.0.113.0", 24,
	       "dst 203.0.113.0/24 rate 100/s window 1s buckets 2 per-source");
	dst_ok("dst 203.0.113.5 rate 10/s aggregate", XRL_KIND_DST, "203.0.113.5", 32,
	       "dst 203.0.113.5/32 rate 10/s window 1s buckets 2 aggregate");
	dst_ok("dst 2001:db8:ffff::/48 rate 1k/s mask6 56 monitor", XRL_KIND_DST, "2001:db8:ffff::", 48,
	       "dst 2001:db8:ffff::/48 rate 1k/s window 1s buckets 2 per-source mask6 56 monitor");
	dst_ok("dst 2001:db8::1 rate 5/s window 2s buckets 4 aggregate global", XRL_KIND_DST, "2001:db8::1", 128,
	       "dst 2001:db8::1/128 rate 5/s window 2s buckets 4 aggregate global");
	dst_ok("dst 203.0.113.0/24 rate 10/s mask4 24", XRL_KIND_DST, "203.0.113.0", 24,
	       "dst 203.0.113.0/24 rate 10/s window 1s buckets 2 per-source mask4 24");
	dst_ok("dst 192.0.2.1 allow", XRL_KIND_DST, "192.0.2.1", 32, "dst 192.0.2.1/32 allow");
	dst_ok("dst 0.0.0.0/0 rate 1M/s aggregate", XRL_KIND_DST, "0.0.0.0", 0,
	       "dst 0.0.0.0/0 rate 1M/s window 1s buckets 2 aggregate");
	dst_ok("port 53/udp dst 203.0.113.0/24 rate 50/s", XRL_KIND_PORT, "203.0.113.0", 24,
	       "port 53/udp dst 203.0.113.0/24 rate 50/s window 1s buckets 2 per-source");
	dst_ok("port 443/tcp dst 2001:db8::5 rate 1k/s aggregate", XRL_KIND_PORT, "2001:db8::5", 128,
	       "port 443/tcp dst 2001:db8::5/128 rate 1k/s window 1s buckets 2 aggregate");
	/* A narrowed port rule is another match than the port's own, and than the same port narrowed elsewhere. */
	parse_ok("port 53/udp rate 1/s", &a);
	parse_ok("port 53/udp dst 203.0.113.0/24 rate 1/s", &b);
	assert_false(xrl_spec_same_match(&a, &b));
	parse_ok("port 53/udp dst 203.0.113.0/25 rate 1/s", &a);
	assert_false(xrl_spec_same_match(&a, &b));
	parse_ok("port 53/udp dst 203.0.113.0/24 rate 9/s", &a);
	assert_true(xrl_spec_same_match(&a, &b));
	parse_ok("port 53/tcp dst 203.0.113.0/24 rate 1/s", &a);
	assert_false(xrl_spec_same_match(&a, &b));
	/* A dst rule is not the prefix rule of the same address. */
	parse_ok("dst 10.0.0.0/8 rate 1/s", &a);
	parse_ok("prefix 10.0.0.0/8 rate 1/s", &b);
	assert_false(xrl_spec_same_match(&a, &b));
	assert_true(xrl_spec_in_dsts(&a));
	assert_false(xrl_spec_in_dsts(&b));
}

static void test_dst_refused(void **state)
{
	struct xrl_spec s;

	(void)state;
	parse_bad("dst 203.0.113.1/24 rate 1/s", "host bits set", "did you mean 203.0.113.0/24?");
	parse_bad("dst 203.0.113.0/33 rate 1/s", "longer than an IPv4 address", "/32");
	parse_bad("dst 203.0.113 rate 1/s", "not an IPv4 or IPv6 address", "ADDR/LEN");
	parse_bad("dst ::ffff:192.0.2.1 rate 1/s", "IPv4-mapped", "write it as dst 192.0.2.1/32");
	parse_bad("dst", "'dst' needs a value", "203.0.113.0/24");
	parse_bad("dst 203.0.113.0/24 dst 198.51.100.0/24 rate 1/s", "'dst' is given twice", NULL);
	parse_bad("dst 203.0.113.0/24 rate 1/s dst 198.51.100.0/24", "'dst' is given twice", NULL);
	parse_bad("port 53/udp dst 192.0.2.0/24 dst 198.51.100.0/24 rate 1/s", "'dst' is given twice", NULL);
	parse_bad("port 53/udp dst", "'dst' needs a value", NULL);
	parse_bad("port 53/udp rate 1/s dst 192.0.2.0/24", "'dst' goes right after the port",
		  "'port 53/udp dst ADDR/LEN rate ...'");
	/* Refused until rules of several fields: now they are one (tests/unit/test_match.c). */
	parse_ok("proto icmp dst 203.0.113.5 rate 1/s", &s);
	assert_int_equal(s.kind, XRL_KIND_MATCH);
	parse_ok("proto icmp type 8 dst 203.0.113.5 rate 1/s", &s);
	assert_int_equal(s.kind, XRL_KIND_MATCH);
	parse_bad("fragments dst 203.0.113.5 rate 1/s", "'fragments' is a rule of one field", "'frag later'");
	parse_bad("prefix 10.0.0.0/8 dst 203.0.113.5 rate 1/s", "'prefix' is a rule of one field", "'src 10.0.0.0/8'");
	parse_bad("port 53/udp dst 192.0.2.0/24 allow", "'allow' is for prefix and dst rules",
		  "narrowed to a destination always limits");
	parse_bad("dst 192.0.2.0/24 rate 1/s mask6 64", "'mask6' is for IPv6 sources", "use 'mask4'");
	parse_bad("port 53/udp dst 2001:db8::/32 rate 1/s mask4 24", "'mask4' is for IPv4 sources", "use 'mask6'");
	parse_bad("dst 192.0.2.0/24 rate 1/s mask 24", "'mask' is for prefix rules", "mask4 and mask6");
	parse_bad("dst 192.0.2.0/24", "missing 'rate'", "or dst rule");
	parse_bad("dst 192.0.2.0/24 allow rate 1/s", "'allow' takes no rate", NULL);
	parse_bad("dst 192.0.2.0/24 rate 1/s per-source global", "'global' needs 'aggregate'", NULL);
	parse_bad("dst 192.0.2.0/24 rate 1/s burst 3", "unknown word 'burst'", "or allow");
}

/* A set holds one rule per destination; the narrowed and plain rules of one port are two. */
static void test_dst_duplicate_in_set(void **state)
{
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN];
	struct xrl_spec s;

	(void)state;
	parse_ok("port 53/udp rate 1/s", &s);
	assert_int_equal(xrl_ruleset_add(&set, &s, err, sizeof(err)), 0);
	parse_ok("port 53/udp dst 192.0.2.0/24 rate 1/s", &s);
	assert_int_equal(xrl_ruleset_add(&set, &s, err, sizeof(err)), 0);
	parse_ok("dst 192.0.2.0/24 rate 1/s", &s);
	assert_int_equal(xrl_ruleset_add(&set, &s, err, sizeof(err)), 0);
	parse_ok("dst 192.0.2.0/24 rate 5/s aggregate", &s);
	assert_int_equal(xrl_ruleset_add(&set, &s, err, sizeof(err)), -EINVAL);
	assert_contains(err, "'dst 192.0.2.0/24' already has a rule");
	parse_ok("port 53/udp dst 192.0.2.0/24 rate 2/s", &s);
	assert_int_equal(xrl_ruleset_add(&set, &s, err, sizeof(err)), -EINVAL);
	assert_contains(err, "'port 53/udp dst 192.0.2.0/24' already has a rule");
	xrl_ruleset_free(&set);
}

/* A set holds one rule per selector: 'proto 6' after 'proto tcp' is the same match. */
static void test_proto_duplicate_in_set(void **state)
{
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN];
	struct xrl_spec s;

	(void)state;
	parse_ok("proto tcp rate 1/s", &s);
	assert_int_equal(xrl_ruleset_add(&set, &s, err, sizeof(err)), 0);
	parse_ok("proto tcp-syn rate 1/s", &s);
	assert_int_equal(xrl_ruleset_add(&set, &s, err, sizeof(err)), 0);
	parse_ok("proto 6 rate 2/s", &s);
	assert_int_equal(xrl_ruleset_add(&set, &s, err, sizeof(err)), -EINVAL);
	assert_contains(err, "'proto tcp' already has a rule");
	xrl_ruleset_free(&set);
}

/* ---- byte rates and warm-up ---- */

static void test_byte_rates(void **state)
{
	static const struct {
		const char *line;
		__u64 byte_threshold; /* bytes a window */
		__u64 threshold;      /* packets a window; 0: no packet rate */
		const char *printed;
	} cases[] = {
		/* SI: 100 Mbit/s is 100 * 10^6 / 8 bytes a second; a 1s window holds that */
		{ "port 53/udp rate 100Mbit/s", 12500000, 0,
		  "port 53/udp rate 100Mbit/s window 1s buckets 2 per-source" },
		{ "port 53/udp rate 12MB/s", 12000000, 0, "port 53/udp rate 12MB/s window 1s buckets 2 per-source" },
		{ "port 53/udp rate 12MB/s window 500ms", 6000000, 0,
		  "port 53/udp rate 12MB/s window 500ms buckets 2 per-source" },
		/* lower-case tc spellings read the same, and print in the canonical one */
		{ "port 53/udp rate 10mbit/s", 1250000, 0, "port 53/udp rate 10Mbit/s window 1s buckets 2 per-source" },
		{ "port 53/udp rate 1gbit/s aggregate", 125000000, 0,
		  "port 53/udp rate 1Gbit/s window 1s buckets 2 aggregate" },
		{ "port 53/udp rate 3kB/s", 3000, 0, "port 53/udp rate 3KB/s window 1s buckets 2 per-source" },
		/* bits that are not whole bytes a window: rounded down */
		{ "port 53/udp rate 12bit/s", 1, 0, "port 53/udp rate 12bit/s window 1s buckets 2 per-source" },
		{ "port 53/udp rate 60KB/min", 1000, 0, "port 53/udp rate 60KB/min window 1s buckets 2 per-source" },
		/* both rates, in either order */
		{ "port 53/udp rate 1k/s rate 10Mbit/s", 1250000, 1000,
		  "port 53/udp rate 1k/s rate 10Mbit/s window 1s buckets 2 per-source" },
		{ "port 53/udp rate 10Mbit/s rate 1k/s", 1250000, 1000,
		  "port 53/udp rate 1k/s rate 10Mbit/s window 1s buckets 2 per-source" },
		/* every kind of rule */
		{ "proto icmp rate 1MB/s", 1000000, 0, "proto icmp rate 1MB/s window 1s buckets 2 per-source" },
		{ "fragments rate 1MB/s aggregate", 1000000, 0, "fragments rate 1MB/s window 1s buckets 2 aggregate" },
		{ "prefix 10.0.0.0/8 rate 1MB/s", 1000000, 0,
		  "prefix 10.0.0.0/8 rate 1MB/s window 1s buckets 2 per-source" },
		/* the largest a window counts: 2^32 - 1 bytes; 4294967295 B/s over 1s */
		{ "port 53/udp rate 4294967295B/s", 4294967295ULL, 0,
		  "port 53/udp rate 4294967295B/s window 1s buckets 2 per-source" },
	};
	char text[256];
	struct xrl_spec s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse_ok(cases[i].line, &s);
		if (s.r.byte_threshold != cases[i].byte_threshold)
			fail_msg("'%s': %llu bytes a window, want %llu", cases[i].line,
				 (unsigned long long)s.r.byte_threshold, (unsigned long long)cases[i].byte_threshold);
		if (cases[i].threshold) {
			assert_int_equal(s.r.threshold, cases[i].threshold);
			assert_false(s.r.flags & XRL_F_NO_PKT_RATE);
		} else {
			assert_true(s.r.flags & XRL_F_NO_PKT_RATE);
		}
		assert_int_equal(xrl_spec_format(&s, text, sizeof(text)), 0);
		assert_string_equal(text, cases[i].printed);
		roundtrip(cases[i].line);
	}
	/* A packet rate alone has no byte window. */
	parse_ok("port 53/udp rate 10k/s", &s);
	assert_int_equal(s.r.byte_threshold, 0);
	assert_int_equal(s.r.byte_unit, XRL_BU_NONE);
	assert_false(s.r.flags & XRL_F_NO_PKT_RATE);
}

static void test_byte_rates_refused(void **state)
{
	(void)state;
	/* spellings that mean bits to one tool and bytes to another */
	parse_bad("port 53/udp rate 10Mbps", "'Mbps' is not a unit", "Mbit");
	parse_bad("port 53/udp rate 10Mbps/s", "'Mbps' is not a unit", "bytes as B, KB, MB or GB");
	parse_bad("port 53/udp rate 10MBps/s", "'MBps' is not a unit", "SI: K = 1000");
	parse_bad("port 53/udp rate 10Mb/s", "'Mb' is not a unit", NULL);
	parse_bad("port 53/udp rate 10b/s", "'b' is not a unit", NULL);
	parse_bad("port 53/udp rate 10KiB/s", "'KiB' is not a unit", NULL);
	parse_bad("port 53/udp rate 10MB", "has no time unit", "12MB/s");
	parse_bad("port 53/udp rate 10MB/ms", "unknown time unit 'ms'", "s, min or h");
	parse_bad("port 53/udp rate 0MB/s", "is zero", NULL);
	/* more than a window's 32-bit count */
	parse_bad("port 53/udp rate 100Gbit/s", "more than 4294967295 bytes a window", "choose a shorter window");
	parse_bad("port 53/udp rate 4294967296B/s", "more than 4294967295 bytes a window", NULL);
	parse_bad("port 53/udp rate 1Gbit/s window 1h", "more than 4294967295 bytes a window", NULL);
	parse_bad("port 53/udp rate 99999999999999999999GB/s", "too large", NULL);
	/* less than a byte a window */
	parse_bad("port 53/udp rate 1bit/s window 1ms buckets 1", "less than a byte a window", NULL);
	/* one rate of each kind */
	parse_bad("port 53/udp rate 1MB/s rate 2Mbit/s", "'1MB/s' and '2Mbit/s' count bytes over the same window",
		  NULL);
	parse_bad("port 53/udp rate 1/s rate 1MB/s rate 2/s", "'1/s' and '2/s' count packets over the same window",
		  NULL);
	/* the fleet shares packets */
	parse_bad("port 53/udp rate 1MB/s aggregate global", "'global' shares a packet rate", "drop 'the byte rate'");
	parse_bad("prefix 10.0.0.0/8 allow rate 1MB/s", "'allow' takes no", NULL);
}

static void test_warmup(void **state)
{
	struct xrl_spec s;

	(void)state;
	parse_ok("port 53/udp rate 300/s warmup 30s", &s);
	assert_int_equal(s.r.warmup_ms, 30000);
	parse_ok("port 53/udp rate 300/s warmup 1h", &s);
	assert_int_equal(s.r.warmup_ms, 3600000);
	parse_ok("port 53/udp rate 300/s", &s);
	assert_int_equal(s.r.warmup_ms, 0);
	parse_ok("port 53/udp rate 3/s warmup 1s", &s); /* starts at 1 a window */
	parse_bad("port 53/udp rate 300/s warmup 0s", "warmup '0s' is zero", "leave 'warmup' out");
	parse_bad("port 53/udp rate 300/s warmup 0ms", "warmup '0ms' is zero", NULL);
	parse_bad("port 53/udp rate 300/s warmup 2h", "too long: a warmup lasts at most 1h", NULL);
	parse_bad("port 53/udp rate 300/s warmup 61m", "too long: a warmup lasts at most 1h", NULL);
	parse_bad("port 53/udp rate 300/s warmup", "'warmup' needs a value", "30s");
	parse_bad("port 53/udp rate 300/s warmup 30", "has an unknown unit", "expected ms, s, m or h");
	parse_bad("port 53/udp rate 300/s warmup 30s warmup 10s", "'warmup' is given twice", NULL);
	parse_bad("port 53/udp rate 2/s warmup 30s", "at least 3 a window", NULL);
	parse_bad("port 53/udp rate 300/s aggregate global warmup 30s", "'global' shares a packet rate",
		  "drop 'warmup'");
	parse_bad("prefix 10.0.0.0/8 allow warmup 30s", "'allow' takes no", "warmup");
}

/* A mask of 0 is one window for every source: 'aggregate' in disguise, refused as on prefix rules. */
static void test_mask_zero_refused(void **state)
{
	(void)state;
	parse_bad("port 53/udp rate 100/s mask4 0", "mask4 0 puts every source in one window", "use 'aggregate'");
	parse_bad("port 53/udp rate 100/s mask6 0", "mask6 0 puts every source in one window", NULL);
	parse_bad("port 53/udp dst 192.0.2.0/24 rate 100/s mask4 0", "mask4 0", "'aggregate'");
	parse_bad("dst 2001:db8::1 rate 100/s mask6 0", "mask6 0", "'aggregate'");
	parse_bad("proto tcp-syn rate 100/s mask4 0", "mask4 0", "'aggregate'");
	parse_bad("prefix 10.0.0.0/8 rate 100/s mask 0", "no longer than the prefix", NULL);
	{
		struct xrl_spec s;

		parse_ok("port 53/udp rate 100/s mask4 1 mask6 1", &s);
		assert_int_equal(s.r.src_mask4, 1);
	}
}

static void test_format_roundtrip(void **state)
{
	static const char *const rules[] = {
		"port 53/udp rate 100/s",
		"port 443/tcp rate 10k/s window 2s buckets 4 aggregate monitor",
		"port 80/tcp rate 600/min window 500ms buckets 5 mask4 24 mask6 48",
		"port 8080/tcp rate 1M/s mask6 56",
		"port 8081/tcp rate 1500/s mask4 1",
		"port 9000/udp rate 1M/s window 60m buckets 16",
		"port 9001/udp rate 2500k/s window 90s buckets 3",
		"port 65535/udp rate 3600/h window 1s",
		"port 1/udp rate 1/min window 1m buckets 1",
		"port 123/udp rate 10/s window 1500ms buckets 3 per-source monitor",
		"prefix 10.0.0.0/8 rate 100/s mask 24 monitor",
		"prefix 2001:db8::/32 rate 3600/h window 1s mask 48",
		"prefix 2001:db8::/32 rate 100/s mask 128",
		"prefix 192.0.2.1 rate 5/s window 200ms",
		"prefix 2001:db8::1 rate 100/s",
		"prefix 0.0.0.0/0 allow",
		"prefix 2001:db8:ff::/48 allow",
		"prefix ::/0 rate 7/s window 3s buckets 3 aggregate",
		"prefix 198.51.100.0/24 rate 1G/s window 250ms buckets 10 aggregate monitor",
		"port 53/udp rate 1000/s window 1s buckets 2 aggregate global",
		"prefix 10.0.0.0/8 rate 10k/s window 2s buckets 4 aggregate global monitor",
		"port 53/udp rate 100Mbit/s",
		"port 53/udp rate 1k/s rate 12MB/s window 500ms buckets 5 aggregate",
		"proto udp rate 7Kbit/min warmup 30s",
		"fragments rate 3GB/h window 1s buckets 1 aggregate monitor",
		"prefix 10.0.0.0/8 rate 2kB/s rate 100/s mask 24 warmup 1m",
		"proto tcp-syn rate 100/s warmup 500ms",
		"port 80/tcp rate 1bit/s rate 3/s window 8s buckets 4 warmup 1h",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		roundtrip(rules[i]);
}

/*
 * dump | apply must not change a rule: whatever the parser accepts, its
 * printed form must parse back to the same struct xrl_rule. (Refusing these
 * inputs outright would satisfy this test too.)
 */
static void test_format_roundtrip_no_silent_loss(void **state)
{
	static const char *const rules[] = {
		"prefix 10.0.0.0/8 rate 100/s mask6 48",
		"prefix 2001:db8::/32 rate 100/s mask4 24",
		"prefix 10.0.0.0/8 allow window 2s",
		"prefix 10.0.0.0/8 allow buckets 4",
	};
	char err[XRL_ERRLEN];
	struct xrl_spec s;
	int failed = 0;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		char text[256], err2[XRL_ERRLEN];
		struct xrl_spec b;

		if (parse(rules[i], &s, err))
			continue; /* refused: nothing to lose */
		assert_int_equal(xrl_spec_format(&s, text, sizeof(text)), 0);
		if (parse(text, &b, err2)) {
			print_error("'%s' printed as '%s', which is refused: %s\n", rules[i], text, err2);
			failed++;
		} else if (memcmp(&s.r, &b.r, sizeof(s.r))) {
			print_error("'%s' is accepted, but prints as '%s', which parses to a different rule\n",
				    rules[i], text);
			failed++;
		}
	}
	assert_int_equal(failed, 0);
}

static void test_format_match(void **state)
{
	char text[128], err[XRL_ERRLEN], buf[128], *argv[MAX_ARGS];
	struct xrl_spec s, m;
	int argc;

	(void)state;
	parse_ok("port 53/udp rate 100/s window 2s", &s);
	assert_int_equal(xrl_spec_format_match(&s, text, sizeof(text)) > 0, 1);
	assert_string_equal(text, "port 53/udp");
	argc = split(text, buf, sizeof(buf), argv);
	assert_int_equal(xrl_spec_parse_match(argc, argv, &m, err, sizeof(err)), 0);
	assert_true(xrl_spec_same_match(&s, &m));

	parse_ok("prefix 2001:db8::/32 rate 100/s", &s);
	xrl_spec_format_match(&s, text, sizeof(text));
	assert_string_equal(text, "prefix 2001:db8::/32");
	argc = split(text, buf, sizeof(buf), argv);
	assert_int_equal(xrl_spec_parse_match(argc, argv, &m, err, sizeof(err)), 0);
	assert_true(xrl_spec_same_match(&s, &m));

	/* a host prints with its length */
	parse_ok("prefix 192.0.2.1 allow", &s);
	xrl_spec_format_match(&s, text, sizeof(text));
	assert_string_equal(text, "prefix 192.0.2.1/32");

	/* the match alone is what rule del takes */
	argc = split("port 53/tcp", buf, sizeof(buf), argv);
	assert_int_equal(xrl_spec_parse_match(argc, argv, &m, err, sizeof(err)), 0);
	assert_int_equal(m.kind, XRL_KIND_PORT);
	assert_int_equal(m.port, 53);
	assert_int_equal(m.proto, XRL_PROTO_TCP);
	parse_ok("port 53/udp rate 1/s", &s);
	assert_false(xrl_spec_same_match(&s, &m));
}

/* A buffer too small is an error, never a cut-off rule that parses to something else. */
static void test_format_too_small(void **state)
{
	char text[24];
	struct xrl_spec s;

	(void)state;
	parse_ok("port 53/udp rate 100/s monitor", &s);
	assert_int_equal(xrl_spec_format(&s, text, sizeof(text)), -ENOSPC);
	parse_ok("prefix 2001:db8:1234:5678:9abc::/80 allow", &s);
	assert_int_equal(xrl_spec_format(&s, text, sizeof(text)), -ENOSPC);
}

/* ---- rules files ---- */

static void test_file_comments_blank_crlf(void **state)
{
	static const char text[] = "# rules for the lab\r\n"
				   "\r\n"
				   "port 53/udp rate 100/s   # dns\r\n"
				   "   \t\r\n"
				   "\tprefix 10.0.0.0/8 rate 1k/s window 2s buckets 4 aggregate\r\n"
				   "#prefix 10.0.0.0/8 allow\n"
				   "prefix 192.0.2.0/24 allow\r\n"
				   "port 443/tcp rate 10/s monitor"; /* no newline at the end */
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN];

	(void)state;
	if (parse_text(text, "lab.rules", &set, err))
		fail_msg("refused: %s", err);
	assert_int_equal(set.n, 4);

	assert_int_equal(set.v[0].kind, XRL_KIND_PORT);
	assert_int_equal(set.v[0].port, 53);
	assert_int_equal(set.v[0].line, 3);
	assert_rule(&set.v[0].r, 100, NS_PER_S, 2, XRL_F_PER_SOURCE, 32, 64);

	assert_int_equal(set.v[1].kind, XRL_KIND_PREFIX);
	assert_int_equal(set.v[1].plen, 8);
	assert_int_equal(set.v[1].line, 5);
	assert_rule(&set.v[1].r, 2000, 2 * NS_PER_S, 4, 0, 32, 64);

	/* "allow\r" is allow: the CR is not part of the word */
	assert_int_equal(set.v[2].line, 7);
	assert_int_equal(set.v[2].r.flags, XRL_F_ALLOW);

	assert_int_equal(set.v[3].line, 8);
	assert_int_equal(set.v[3].r.flags, XRL_F_PER_SOURCE | XRL_F_MONITOR);
	xrl_ruleset_free(&set);
	assert_null(set.v);
	assert_int_equal(set.n, 0);
}

static void test_file_empty(void **state)
{
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN];

	(void)state;
	assert_int_equal(parse_text("# nothing yet\n\n", "empty.rules", &set, err), 0);
	assert_int_equal(set.n, 0);
	xrl_ruleset_free(&set);
}

static void test_file_bad_line(void **state)
{
	static const char text[] = "port 53/udp rate 100/s\n"
				   "port 443/tcp rate 1k/s\n"
				   "port 80/tcp rate 100/d\n"
				   "port 8080/tcp rate 5/s\n";
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN];

	(void)state;
	assert_int_equal(parse_text(text, "rules.conf", &set, err), -EINVAL);
	/* the file, the line and the word; and nothing returned */
	if (strncmp(err, "rules.conf:3: ", strlen("rules.conf:3: ")))
		fail_msg("'%s' does not start with 'rules.conf:3: '", err);
	assert_contains(err, "'100/d'");
	assert_int_equal(set.n, 0);
	assert_null(set.v);

	/* lines are counted with comments, blank lines and CRLF */
	assert_int_equal(parse_text("# a\r\n\r\nprefix 10.0.0.1/8 allow\r\n", "x", &set, err), -EINVAL);
	if (strncmp(err, "x:3: ", 5))
		fail_msg("'%s' does not start with 'x:3: '", err);
	assert_contains(err, "did you mean 10.0.0.0/8?");
	assert_int_equal(set.n, 0);
	assert_null(set.v);
}

static void test_file_duplicates(void **state)
{
	static const char text[] = "port 53/udp rate 100/s\n"
				   "port 53/tcp rate 100/s\n"
				   "prefix 10.0.0.0/8 rate 1k/s\n"
				   "# the same port again, another rate\n"
				   "port 53/udp rate 200/s\n";
	static const char text6[] = "prefix 2001:db8::/32 allow\n"
				    "prefix 2001:db8::/48 allow\n"
				    "prefix 2001:0db8:0::/32 rate 1/s\n";
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN];

	(void)state;
	assert_int_equal(parse_text(text, "dup.rules", &set, err), -EINVAL);
	assert_contains(err, "dup.rules:5: ");
	assert_contains(err, "'port 53/udp' is already given on line 1");
	assert_int_equal(set.n, 0);
	assert_null(set.v);

	/* the same prefix written another way is the same match; another length is not */
	assert_int_equal(parse_text(text6, "dup6.rules", &set, err), -EINVAL);
	assert_contains(err, "dup6.rules:3: ");
	assert_contains(err, "'prefix 2001:db8::/32' is already given on line 1");
	assert_null(set.v);
}

/* Adding to a set outside a file (rule add): a duplicate is refused, the set unchanged. */
static void test_ruleset_add(void **state)
{
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN];
	struct xrl_spec s;
	int i;

	(void)state;
	parse_ok("port 53/udp rate 100/s", &s);
	assert_int_equal(xrl_ruleset_add(&set, &s, err, sizeof(err)), 0);
	parse_ok("prefix 10.0.0.0/8 allow", &s);
	assert_int_equal(xrl_ruleset_add(&set, &s, err, sizeof(err)), 0);
	parse_ok("port 53/udp rate 5/s", &s);
	assert_int_equal(xrl_ruleset_add(&set, &s, err, sizeof(err)), -EINVAL);
	assert_contains(err, "'port 53/udp' already has a rule");
	assert_int_equal(set.n, 2);
	assert_int_equal(set.v[0].r.rate, 100);
	assert_int_equal(xrl_ruleset_find(&set, &s), 0);
	parse_ok("prefix 10.0.0.0/8 rate 1/s", &s);
	assert_int_equal(xrl_ruleset_find(&set, &s), 1);
	parse_ok("prefix 10.0.0.0/9 rate 1/s", &s);
	assert_int_equal(xrl_ruleset_find(&set, &s), -1);

	/* past the first allocation: every rule kept, in order */
	for (i = 1; i <= 40; i++) {
		char line[64];

		snprintf(line, sizeof(line), "port %d/tcp rate %d/s", i, i);
		parse_ok(line, &s);
		assert_int_equal(xrl_ruleset_add(&set, &s, err, sizeof(err)), 0);
	}
	assert_int_equal(set.n, 42);
	for (i = 1; i <= 40; i++) {
		assert_int_equal(set.v[i + 1].port, i);
		assert_int_equal(set.v[i + 1].r.rate, i);
	}
	xrl_ruleset_free(&set);
}

/* n port rules, then the extra lines given. */
static char *many_ports(int n, const char *extra)
{
	size_t cap = (size_t)n * 40 + strlen(extra) + 1, off = 0;
	char *text = malloc(cap);
	int i;

	assert_non_null(text);
	for (i = 1; i <= n; i++)
		off += (size_t)snprintf(text + off, cap - off, "port %d/udp rate 100/s\n", i);
	snprintf(text + off, cap - off, "%s", extra);
	return text;
}

/* n port rules, then n2 rules of several fields (a port each), then extra. */
static char *many_rules(int n, int n2, const char *extra)
{
	char *ports = many_ports(n, "");
	size_t cap = strlen(ports) + (size_t)n2 * 48 + strlen(extra) + 1, off;
	char *text = malloc(cap);
	int i;

	assert_non_null(text);
	off = (size_t)snprintf(text, cap, "%s", ports);
	for (i = 1; i <= n2; i++)
		off += (size_t)snprintf(text + off, cap - off, "proto udp dport %d rate 100/s\n", i);
	snprintf(text + off, cap - off, "%s", extra);
	free(ports);
	return text;
}

static void test_file_too_many(void **state)
{
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN], want[64];
	char *text;

	(void)state;
	/* XRL_MAX_SET_RULES of every kind together: a set that can always replace another */
	text = many_rules(XRL_MAX_RULES, XRL_MAX_SET_RULES - XRL_MAX_RULES - 2,
			  "prefix 10.0.0.0/8 rate 1/s\nprefix 2001:db8::/32 allow\n");
	if (parse_text(text, "big.rules", &set, err))
		fail_msg("refused: %s", err);
	assert_int_equal(set.n, XRL_MAX_SET_RULES);
	xrl_ruleset_free(&set);
	free(text);

	/* A map's rules: XRL_MAX_RULES port rules, one more refused. */
	text = many_ports(XRL_MAX_RULES + 1, "");
	assert_int_equal(parse_text(text, "big.rules", &set, err), -EINVAL);
	snprintf(want, sizeof(want), "big.rules:%d: too many port rules: at most %d", XRL_MAX_RULES + 1, XRL_MAX_RULES);
	assert_contains(err, want);
	free(text);

	/* one more rule is refused, naming its line: with a prefix rule as with a port rule */
	text = many_rules(XRL_MAX_RULES, XRL_MAX_SET_RULES - XRL_MAX_RULES - 1,
			  "prefix 10.0.0.0/8 rate 1/s\nprefix 2001:db8::/32 allow\n");
	assert_int_equal(parse_text(text, "big.rules", &set, err), -EINVAL);
	snprintf(want, sizeof(want), "big.rules:%d: ", XRL_MAX_SET_RULES + 1);
	assert_contains(err, want);
	snprintf(want, sizeof(want), "too many rules: at most %d in a set", XRL_MAX_SET_RULES);
	assert_contains(err, want);
	assert_int_equal(set.n, 0);
	assert_null(set.v);
	free(text);
}

/*
 * Among thousands of rules (found by their index, not by a scan): a rule of
 * several fields written again in another order of words is refused, naming
 * the first; one deleted by hand (n lowered, as rule del does) can be added
 * again.
 */
static void test_duplicate_among_many(void **state)
{
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN], *text = many_rules(2000, 3000, "dport 2500 proto udp rate 1/s\n");
	struct xrl_spec last;

	(void)state;
	assert_int_equal(parse_text(text, "many.rules", &set, err), -EINVAL);
	assert_contains(err, "many.rules:5001: 'proto udp dport 2500' is already given on line 4500");
	free(text);
	text = many_rules(10, 3000, "");
	if (parse_text(text, "many.rules", &set, err))
		fail_msg("refused: %s", err);
	free(text);
	last = set.v[set.n - 1];
	assert_int_equal(xrl_ruleset_add(&set, &last, err, sizeof(err)), -EINVAL);
	assert_contains(err, "is already given on line 3010");
	set.n--;
	if (xrl_ruleset_add(&set, &last, err, sizeof(err)))
		fail_msg("refused: %s", err);
	assert_int_equal(set.n, 3010);
	xrl_ruleset_free(&set);
}

static void test_file_long_line(void **state)
{
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN], text[2100];

	(void)state;
	/* a comment longer than the line buffer is not silently split into a second line */
	memset(text, 'x', sizeof(text));
	memcpy(text, "port 53/udp rate 1/s\n# ", 23);
	memcpy(text + sizeof(text) - 22, "\nport 80/tcp rate 1/s\n", 22);
	text[sizeof(text) - 1] = '\0';
	assert_int_equal(parse_text(text, "long.rules", &set, err), -EINVAL);
	assert_contains(err, "long.rules:2: ");
	assert_contains(err, "too long");
	assert_null(set.v);
}

/* A NUL byte is named where it is, in any line, the last one without a newline included. */
static void test_file_nul(void **state)
{
	static const char mid[] = "port 53/udp rate 1/s\nport 80/tcp\0 rate 1/s\nport 81/tcp rate 1/s\n";
	static const char last[] = "port 53/udp rate 1/s\nport 80/tcp rate 1/s\0port 99/udp rate 1/s";
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN];
	FILE *f;

	(void)state;
	f = fmemopen((void *)mid, sizeof(mid) - 1, "r");
	assert_non_null(f);
	assert_int_equal(xrl_ruleset_parse(f, "nul.rules", &set, err, sizeof(err)), -EINVAL);
	fclose(f);
	assert_contains(err, "nul.rules:2: a NUL byte at column 12");
	f = fmemopen((void *)last, sizeof(last) - 1, "r");
	assert_non_null(f);
	assert_int_equal(xrl_ruleset_parse(f, "nul.rules", &set, err, sizeof(err)), -EINVAL);
	fclose(f);
	assert_contains(err, "nul.rules:2: a NUL byte at column 21");
	assert_null(set.v);
}

/* The load line: every option, in any order, printed back the way save writes it. */
static void test_load_line(void **state)
{
	static const char text[] =
		"port 53/udp rate 100/s\n"
		"load malformed drop max-keys 1024 clock coarse sketch-width 1024 mode generic new-keys 0 # saved\r\n"
		"prefix 10.0.0.0/8 allow\n";
	struct xrl_ruleset set = {};
	struct xrl_load_line l;
	char err[XRL_ERRLEN], buf[200], words[200], *argv[MAX_ARGS];
	int n;

	(void)state;
	if (parse_text(text, "saved.conf", &set, err))
		fail_msg("refused: %s", err);
	assert_int_equal(set.n, 2); /* the load line is not a rule */
	assert_int_equal(set.load.line, 2);
	assert_int_equal(set.load.set, XRL_LOAD_MODE | XRL_LOAD_CLOCK | XRL_LOAD_MAX_KEYS | XRL_LOAD_NEW_KEYS |
					       XRL_LOAD_SKETCH_WIDTH | XRL_LOAD_MALFORMED);
	assert_int_equal(set.load.sketch_width, 1024);
	assert_int_equal(set.load.generic, 1);
	assert_int_equal(set.load.clock, XRL_CLOCK_COARSE);
	assert_int_equal(set.load.max_keys, 1024);
	assert_int_equal(set.load.new_keys, 0);
	assert_int_equal(set.load.malformed, 1);
	assert_int_equal(xrl_load_line_format(&set.load, buf, sizeof(buf)), 0);
	assert_string_equal(buf,
			    "load mode generic clock coarse max-keys 1024 new-keys 0 sketch-width 1024 malformed drop");

	/* what is printed parses back to the same */
	n = split(buf, words, sizeof(words), argv);
	assert_int_equal(xrl_load_line_parse(n - 1, argv + 1, &l, err, sizeof(err)), 0);
	l.line = set.load.line;
	assert_memory_equal(&l, &set.load, sizeof(l));
	xrl_ruleset_free(&set);

	/* only what it gives: the rest is load's default */
	assert_int_equal(parse_text("load max-keys 16\n", "x", &set, err), 0);
	assert_int_equal(set.load.set, XRL_LOAD_MAX_KEYS);
	assert_int_equal(set.load.max_keys, 16);
	assert_int_equal(set.load.clock, XRL_CLOCK_PRECISE);
	assert_int_equal(xrl_load_line_format(&set.load, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "load max-keys 16");
	assert_int_equal(xrl_load_line_format(&set.load, buf, 10), -ENOSPC);
	xrl_ruleset_free(&set);

	/* a file with none */
	assert_int_equal(parse_text("port 53/udp rate 1/s\n", "x", &set, err), 0);
	assert_int_equal(set.load.line, 0);
	assert_int_equal(set.load.set, 0);
	xrl_ruleset_free(&set);
}

static void test_load_line_refused(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "load\nload clock coarse\n", "x:2: a second load line (the first is line 1)" },
		{ "load mode turbo\n", "x:1: load line: mode 'turbo' is not native or generic" },
		{ "load clock\n", "x:1: load line: 'clock' needs a value" },
		{ "load clock coarse clock precise\n", "x:1: load line: 'clock' is given twice" },
		{ "load max-keys 15\n", "max-keys '15' is not a whole number from 16 to 16777216" },
		{ "load max-keys 16777217\n", "max-keys '16777217' is not a whole number" },
		{ "load max-keys -1\n", "max-keys '-1' is not a whole number" },
		{ "load max-keys 1k\n", "max-keys '1k' is not a whole number" },
		{ "load new-keys 100000001\n", "new-keys '100000001' is not a whole number from 0 to 100000000" },
		{ "load force yes\n",
		  "unknown option 'force': expected mode, clock, max-keys, new-keys, sketch-width, max-prefixes or malformed" },
		{ "port 53/udp rate 1/s\nload malformed maybe\n",
		  "x:2: load line: malformed 'maybe' is not pass, drop or drop-evasive" },
	};
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!parse_text(cases[i].text, "x", &set, err))
			fail_msg("accepted: %s", cases[i].text);
		assert_contains(err, cases[i].msg);
		assert_null(set.v); /* nothing returned */
		assert_int_equal(set.load.line, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate_good),
		cmocka_unit_test(test_rate_refused),
		cmocka_unit_test(test_duration_good),
		cmocka_unit_test(test_duration_refused),
		cmocka_unit_test(test_duration_in_hours),
		cmocka_unit_test(test_prefix_good),
		cmocka_unit_test(test_prefix_refused),
		cmocka_unit_test(test_prefix_host_bits),
		cmocka_unit_test(test_rule_defaults),
		cmocka_unit_test(test_rule_every_keyword),
		cmocka_unit_test(test_rule_threshold),
		cmocka_unit_test(test_rule_bad_match),
		cmocka_unit_test(test_mask_zero_refused),
		cmocka_unit_test(test_rule_bad_combinations),
		cmocka_unit_test(test_rule_misleading),
		cmocka_unit_test(test_format_roundtrip),
		cmocka_unit_test(test_byte_rates),
		cmocka_unit_test(test_byte_rates_refused),
		cmocka_unit_test(test_warmup),
		cmocka_unit_test(test_proto_rules),
		cmocka_unit_test(test_proto_refused),
		cmocka_unit_test(test_proto_duplicate_in_set),
		cmocka_unit_test(test_format_roundtrip_no_silent_loss),
		cmocka_unit_test(test_format_match),
		cmocka_unit_test(test_format_too_small),
		cmocka_unit_test(test_file_comments_blank_crlf),
		cmocka_unit_test(test_file_empty),
		cmocka_unit_test(test_file_bad_line),
		cmocka_unit_test(test_file_duplicates),
		cmocka_unit_test(test_duplicate_among_many),
		cmocka_unit_test(test_ruleset_add),
		cmocka_unit_test(test_rule_global),
		cmocka_unit_test(test_file_too_many),
		cmocka_unit_test(test_file_long_line),
		cmocka_unit_test(test_file_nul),
		cmocka_unit_test(test_load_line),
		cmocka_unit_test(test_load_line_refused),
		cmocka_unit_test(test_dst_rules),
		cmocka_unit_test(test_dst_refused),
		cmocka_unit_test(test_dst_duplicate_in_set),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_windows_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
