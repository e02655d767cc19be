// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Rules of several fields (user/lib/rules/match_*.c): the issue's lines as
 * written, the words, the refusals, lint's warnings, the refusal of this
 * build's apply; the classifier's constraints (codec/match_lbvs.c) against
 * the field-by-field predicate on random rules and packets; and every rule
 * line of the docs and the tests' rules files through parse, format, parse.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rules/rule.h"
#include "codec/match_lbvs.h"
#include "rule_lines.h"

/* line parses to a rule of kind, which prints as want and parses back to the same rule. */
static void prints_as(const char *line, int kind, const char *want)
{
	char text[XRL_RULE_TEXT], err[XRL_ERRLEN];
	struct xrl_spec a, b;

	parse_ok(line, &a);
	if (a.kind != kind)
		fail_msg("'%s': kind %d, want %d", line, a.kind, kind);
	assert_int_equal(xrl_spec_format(&a, text, sizeof(text)), 0);
	if (strcmp(text, want))
		fail_msg("'%s' prints as '%s', want '%s'", line, text, want);
	if (parse(text, &b, err))
		fail_msg("'%s' printed as '%s', which is refused: %s", line, text, err);
	if (!xrl_spec_same_match(&a, &b) || memcmp(&a.r, &b.r, sizeof(a.r)) || a.per != b.per)
		fail_msg("'%s' printed as '%s', which parses to another rule", line, text);
}

static const char *const issue_lines[] = {
	"proto udp sport 53 length 512-65535 rate 1000/s aggregate",
	"proto udp sport 123 payload 2 032a rate 10/s aggregate",
	"proto tcp tcp flags ack / syn,ack,rst dport 443 rate 200/s per-source",
	"proto tcp tcp flags rst / rst dport 443 rate 20/s per-source",
	"proto udp sport 11211 rate 1/s aggregate",
	"proto udp dport 27015 ttl 1-32 rate 5/s per-source",
	"dst 192.0.2.10 proto udp rate 50k/s per src,dport",
};

static int lint_file(const char *text, struct xrl_ruleset *set, struct xrl_lint_warn **w)
{
	char err[XRL_ERRLEN];
	int ret;

	if (parse_text(text, "t.rules", set, err))
		fail_msg("refused: %s", err);
	ret = xrl_ruleset_lint(set, w);
	assert_true(ret >= 0);
	return ret;
}

/* The issue's lines parse, print exactly as written, and lint with no warning. */
static void test_issue_lines(void **state)
{
	char text[4096] = "";
	struct xrl_ruleset set = {};
	struct xrl_lint_warn *w = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(issue_lines) / sizeof(issue_lines[0]); i++) {
		prints_as(issue_lines[i], XRL_KIND_MATCH, issue_lines[i]);
		strcat(text, issue_lines[i]);
		strcat(text, "\n");
	}
	assert_int_equal(lint_file(text, &set, &w), 0);
	assert_int_equal(set.n, 7);
	free(w);
	xrl_ruleset_free(&set);
}

static void test_fields(void **state)
{
	struct xrl_spec s;

	(void)state;
	parse_ok(issue_lines[2], &s);
	assert_int_equal(s.m.given, XRL_MF_PROTO | XRL_MF_TCPFLAGS | XRL_MF_DPORT);
	assert_int_equal(s.m.proto, 6);
	assert_int_equal(s.m.flags, 0x10);
	assert_int_equal(s.m.flags_mask, 0x16);
	assert_int_equal(s.m.dport.r[0].lo, 443);
	parse_ok(issue_lines[1], &s);
	assert_int_equal(s.m.payload_off, 2);
	assert_int_equal(s.m.payload_len, 2);
	assert_int_equal(s.m.payload[0], 0x03);
	assert_int_equal(s.m.payload[1], 0x2a);
	assert_int_equal(s.m.payload_mask[1], 0xff);
	parse_ok(issue_lines[6], &s);
	assert_int_equal(s.per, XRL_PER_DPORT);
	assert_true(s.r.flags & XRL_F_PER_SOURCE);
	assert_int_equal(s.m.dst.plen, 32);
	parse_ok("proto udp sport 53 rate 1/s per src", &s);
	assert_int_equal(s.per, 0);
	assert_true(s.r.flags & XRL_F_PER_SOURCE);
	parse_ok("proto udp sport 53 rate 1/s per dst", &s);
	assert_int_equal(s.per, XRL_PER_DST);
	assert_false(s.r.flags & XRL_F_PER_SOURCE);
}

/* Any order in, one order out; sets sorted and merged; names; negations. */
static void test_canonical(void **state)
{
	(void)state;
	prints_as("sport 53 length 512-65535 proto udp rate 1000/s aggregate", XRL_KIND_MATCH, issue_lines[0]);
	prints_as("dport 443 tcp flags ack / syn,ack,rst rate 200/s", XRL_KIND_MATCH, issue_lines[2]);
	prints_as("tcp flags ack/syn,ack,rst proto tcp dport 443 rate 200/s", XRL_KIND_MATCH, issue_lines[2]);
	prints_as("proto tcp tcp flags syn rate 1/s", XRL_KIND_MATCH,
		  "proto tcp tcp flags syn / syn rate 1/s per-source");
	prints_as("proto tcp tcp flags none / fin,syn,rst,psh,ack,urg rate 1/s", XRL_KIND_MATCH,
		  "proto tcp tcp flags none / syn,ack,rst,fin,psh,urg rate 1/s per-source");
	prints_as("proto udp dport { 123, 53,1000-2000 , 54 } rate 1/s", XRL_KIND_MATCH,
		  "proto udp dport { 53-54, 123, 1000-2000 } rate 1/s per-source");
	prints_as("proto udp dport {53,54} rate 1/s", XRL_KIND_MATCH, "proto udp dport 53-54 rate 1/s per-source");
	prints_as("proto udp sport != 53 dst != 10.0.0.0/8 src @good rate 1/s aggregate", XRL_KIND_MATCH,
		  "src @good dst != 10.0.0.0/8 proto udp sport != 53 rate 1/s aggregate");
	prints_as("dst != 2001:db8::1 proto 47 rate 1/s", XRL_KIND_MATCH,
		  "dst != 2001:db8::1 proto 47 rate 1/s per-source");
	prints_as("icmp type echo-request code 0 rate 10/s", XRL_KIND_MATCH,
		  "proto icmp icmp type 8 code 0 rate 10/s per-source");
	prints_as("proto icmp type 8 code 0 rate 10/s", XRL_KIND_MATCH,
		  "proto icmp icmp type 8 code 0 rate 10/s per-source");
	prints_as("icmpv6 type nd-neighbor-solicit rate 10/s", XRL_KIND_MATCH,
		  "proto icmpv6 icmpv6 type 135 rate 10/s per-source");
	prints_as("hoplimit 255 dscp ef frag none rate 10/s", XRL_KIND_MATCH,
		  "ttl 255 dscp ef frag none rate 10/s per-source");
	prints_as("dscp { af11-af13, 1 } frag != later rate 10/s", XRL_KIND_MATCH,
		  "dscp { 1, af11-af13 } frag != later rate 10/s per-source");
	prints_as("proto udp payload 0 0x17/ff rate 1/s window 2s buckets 4", XRL_KIND_MATCH,
		  "proto udp payload 0 17 rate 1/s window 2s buckets 4 per-source");
	prints_as("proto udp payload 4 0100 / 0f00 rate 1/s", XRL_KIND_MATCH,
		  "proto udp payload 4 0100 / 0f00 rate 1/s per-source");
	prints_as("src 10.0.0.0/8 proto udp allow", XRL_KIND_MATCH, "src 10.0.0.0/8 proto udp allow");
	prints_as("src 10.0.0.0/8 rate 1/s mask4 24 monitor", XRL_KIND_MATCH,
		  "src 10.0.0.0/8 rate 1/s per-source mask4 24 monitor");
	prints_as("proto tcp dport 80 rate 1/s per dst,dport mask4 24", XRL_KIND_MATCH,
		  "proto tcp dport 80 rate 1/s per dst,dport mask4 24");
	prints_as("proto udp ttl 1 rate 1/s aggregate global", XRL_KIND_MATCH,
		  "proto udp ttl 1 rate 1/s aggregate global");
}

/* The shorthands stay what they were: their kind, their print. */
static void test_shorthands_stay(void **state)
{
	(void)state;
	prints_as("proto udp rate 1/s", XRL_KIND_PROTO, "proto udp rate 1/s window 1s buckets 2 per-source");
	prints_as("proto icmp type 8 rate 1/s", XRL_KIND_PROTO,
		  "proto icmp type 8 rate 1/s window 1s buckets 2 per-source");
	prints_as("dst 192.0.2.1 rate 1/s", XRL_KIND_DST, "dst 192.0.2.1/32 rate 1/s window 1s buckets 2 per-source");
	prints_as("dst @cdn allow", XRL_KIND_DST, "dst @cdn allow");
	prints_as("port 53/udp dst 192.0.2.0/24 rate 1/s per src", XRL_KIND_PORT,
		  "port 53/udp dst 192.0.2.0/24 rate 1/s window 1s buckets 2 per-source");
	prints_as("port 53/udp rate 1/s per dst,dport", XRL_KIND_PORT,
		  "port 53/udp rate 1/s window 1s buckets 2 per dst,dport");
	prints_as("fragments rate 1/s aggregate", XRL_KIND_PROTO, "fragments rate 1/s window 1s buckets 2 aggregate");
}

static void test_refused(void **state)
{
	(void)state;
	parse_bad("sport 53 rate 1/s", "'sport' needs its protocol", "'proto udp sport ...'");
	parse_bad("proto icmp dport 53 rate 1/s", "'dport' is for tcp and udp, and this rule is 'proto icmp'", NULL);
	parse_bad("proto udp tcp flags syn rate 1/s", "'tcp flags' is for tcp packets, and this rule is 'proto udp'",
		  NULL);
	parse_bad("tcp flags syn proto udp rate 1/s", "'proto udp' after a field of tcp packets", NULL);
	parse_bad("icmp type 8 icmpv6 type 128 rate 1/s", "icmp type is given twice", NULL);
	parse_bad("proto udp sport 53 sport 54 rate 1/s", "'sport' is given twice", "{ a, b }");
	parse_bad("ttl 1 hoplimit 2 rate 1/s", "'hoplimit' is given twice", NULL);
	parse_bad("proto udp sport 70000 rate 1/s", "'sport' 70000 is out of range", "0 to 65535");
	parse_bad("proto udp sport 100-50 rate 1/s", "reversed", "50-100");
	parse_bad("proto udp sport { 1, 2 rate 1/s", "'sport': the set has no '}'", NULL);
	parse_bad("proto udp sport { 1, 2 }x rate 1/s", "'x,' after '}'", NULL);
	parse_bad("proto udp sport {} rate 1/s", "the set is empty", NULL);
	parse_bad("proto udp sport { 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17 } rate 1/s", "more than 16", NULL);
	parse_bad("length 70000 rate 1/s", "'length' 70000 is out of range", NULL);
	parse_bad("ttl 256 rate 1/s", "'ttl' 256 is out of range", NULL);
	parse_bad("dscp af99 rate 1/s", "not a DSCP", "ef, af11");
	parse_bad("frag sometimes rate 1/s", "not a fragment state", "none, first or later");
	parse_bad("tcp syn rate 1/s", "'tcp' takes 'flags'", NULL);
	parse_bad("tcp flags syn,bogus rate 1/s", "'bogus' is not a TCP flag", NULL);
	parse_bad("tcp flags syn / ack rate 1/s", "outside it match no packet", "add them to the mask");
	parse_bad("tcp flags none rate 1/s", "'tcp flags none' needs a mask", NULL);
	parse_bad("icmp code 3 rate 1/s", "'icmp' takes 'type'", NULL);
	parse_bad("icmp type bogus rate 1/s", "icmp type 'bogus' is not a type", NULL);
	parse_bad("proto udp payload 2 zz rate 1/s", "payload value 'zz' is not bytes in hex", NULL);
	parse_bad("proto udp payload 2 001122334455667788 rate 1/s", "1 to 8 bytes", NULL);
	parse_bad("proto udp payload 2 0011 / ff rate 1/s", "give a mask as long as the value", NULL);
	parse_bad("proto udp payload 2 ff / 0f rate 1/s", "has bits its mask '0f' clears", NULL);
	parse_bad("proto udp payload 9999 00 rate 1/s", "payload offset '9999'", NULL);
	parse_bad("proto 47 payload 0 00 rate 1/s", "'payload' counts from the transport payload's start", NULL);
	parse_bad("src 10.0.0.0/8 dst 2001:db8::/32 rate 1/s", "'src' is IPv4 and 'dst' IPv6", NULL);
	parse_bad("src 10.0.0.0/8 proto icmpv6 rate 1/s", "whose ICMP is 'icmp'", NULL);
	parse_bad("proto tcp-syn dport 80 rate 1/s", "'proto tcp-syn' is a rule of one field",
		  "tcp flags syn / syn,ack");
	parse_bad("port 53/udp ttl 5 rate 1/s", "'port 53/udp' is a rule of one field and takes no 'ttl'",
		  "'proto udp dport 53'");
	parse_bad("prefix 10.0.0.0/8 proto udp rate 1/s", "'prefix' is a rule of one field", "'src 10.0.0.0/8'");
	parse_bad("prefix 10.0.0.0/8 dst 192.0.2.1 rate 1/s", "'prefix' is a rule of one field", NULL);
	parse_bad("fragments proto udp rate 1/s", "'fragments' is a rule of one field", "'frag later'");
	parse_bad("proto udp port 53/udp rate 1/s", "'port' is a rule of one field", NULL);
	parse_bad("proto udp rate 1/s sport 5", "'sport' is a word of the match, which comes first", NULL);
	parse_bad("proto udp sport 5 rate 1/s dst 192.0.2.1", "'dst' is a word of the match, which comes first", NULL);
	parse_bad("proto udp sport 5 rate 1/s per", "'per' needs a key", NULL);
	parse_bad("proto udp sport 5 rate 1/s per src,sport", "'src,sport' is not a key", NULL);
	parse_bad("proto udp sport 5 rate 1/s per src aggregate", "the scope is given twice", NULL);
	parse_bad("proto icmp rate 1/s per src,dport", "'per ...,dport' counts by destination port", NULL);
	parse_bad("proto udp ttl 1 rate 1/s per dst global", "'global' needs 'aggregate'", NULL);
	parse_bad("proto udp ttl 1 rate 1/s mask 24", "'mask' is for prefix rules", NULL);
	parse_bad("src 10.0.0.0/8 rate 1/s mask4 24 aggregate", "a source mask needs 'per-source'", NULL);
	parse_bad("dst 192.0.2.1 proto icmp rate 1/s mask6 48", "'mask6' is for IPv6 sources", NULL);
	parse_bad("src @1x rate 1/s", "is not a set's name", NULL);
	parse_bad("type 8 rate 1/s", "'type' follows 'icmp type'", NULL);
	parse_bad("proto udp sport", "'sport' needs a value", NULL);
}

/* A rule too long to print as a line is refused, rather than dumped to a line no file can hold. */
static void test_too_long(void **state)
{
	const char *big =
		"10001-20001,20003-30000,30002-40000,40002-50000,50002-60000,60002-60003,60005-60006,60008-60009,"
		"60011-60012,60014-60015,60017-60018,60020-60021,60023-60024,60026-60027,60029-60030,60032-60033";
	char line[2048];

	(void)state;
	snprintf(
		line, sizeof(line),
		"src != 2001:db8:1:2:3:4:5:0/112 dst != 2001:db8:1:2:3:4:5:0/112 proto tcp "
		"tcp flags syn / syn,ack,rst,fin,psh,urg,ece,cwr sport != { %s } dport != { %s } length != { %s } "
		"ttl { 100-101,103-104,106-107,109-110,112-113,115-116,118-119,121-122,124-125,127-128,130-131,133-134,136-137,139-140,142-143,145-146 } "
		"dscp { cs0,cs1,af11,af12,af13,cs2,af21,af22,af23,cs3,af31,af32,af33,cs4,af41,af42 } rate 1/s",
		big, big, big);
	parse_bad(line, "prints longer than a line", "split it");
	/* The same less one field fits, and prints as it reads back. */
	snprintf(
		line, sizeof(line),
		"src != 2001:db8:1:2:3:4:5:0/112 dst != 2001:db8:1:2:3:4:5:0/112 proto tcp "
		"tcp flags syn / syn,ack,rst,fin,psh,urg,ece,cwr sport != { %s } dport != { %s } length != { %s } rate 1/s",
		big, big, big);
	parse_ok(line, &(struct xrl_spec){});
}

static void lints(const char *text, int n, const char *want)
{
	struct xrl_ruleset set = {};
	struct xrl_lint_warn *w = NULL;
	int got = lint_file(text, &set, &w);

	if (got != n)
		fail_msg("'%s': %d warnings, want %d%s%s", text, got, n, got ? ": " : "", got ? w[0].msg : "");
	if (want)
		assert_contains(w[0].msg, want);
	free(w);
	xrl_ruleset_free(&set);
}

static void test_lint(void **state)
{
	(void)state;
	lints("proto udp sport 53 frag later rate 1/s\n", 1, "a later fragment carries no transport header");
	lints("proto tcp tcp flags syn / syn frag later rate 1/s\n", 1, "'tcp flags' never matches one");
	lints("proto udp sport != 0-65535 rate 1/s\n", 1, "its 'sport' with '!=' excludes every value");
	lints("frag != { none, first, later } rate 1/s\n", 1, "'frag' with '!='");
	lints("length 0-19 rate 1/s\n", 1, "below 20 bytes");
	lints("proto tcp length 0-39 rate 1/s\n", 1, "below 40 bytes");
	lints("proto tcp length 0-40 rate 1/s\n", 0, NULL);
	lints("src != 0.0.0.0/0 proto udp rate 1/s\n", 1, "excludes every IPv4 address");
	lints("frag later ttl 1 rate 1/s\n", 0, NULL);
	/* Redundant: an allow rule holds every packet this one matches. */
	lints("src 10.0.0.0/8 proto udp allow\nsrc 10.1.0.0/16 proto udp sport 53 rate 1/s\n", 1,
	      "allowed by 'src 10.0.0.0/8 proto udp' on line 1");
	lints("src 10.1.0.0/16 proto udp sport { 53, 123 } rate 1/s\nsrc 10.0.0.0/8 proto udp sport 1-200 allow\n", 1,
	      "on line 2, which passes it at once: this rule never limits");
	lints("prefix 10.0.0.0/8 allow\nsrc 10.1.0.0/16 proto udp rate 1/s\n", 1, "allowed by 'prefix 10.0.0.0/8'");
	lints("dst 192.0.2.0/24 allow\ndst 192.0.2.1 proto udp rate 1/s\n", 1, NULL);
	lints("proto udp payload 0 17 allow\nproto udp payload 0 1703 / ffff rate 1/s\n", 1, NULL);
	lints("proto tcp tcp flags syn / syn allow\nproto tcp tcp flags syn / syn,ack dport 80 allow\n", 1,
	      "this rule adds nothing");
	/* Not redundant: a longer prefix rule is the rule inside it; a narrower allow; a negation. */
	lints("prefix 10.0.0.0/8 allow\nprefix 10.1.0.0/16 rate 1/s\nsrc 10.1.0.0/16 proto udp rate 1/s\n", 0, NULL);
	lints("src 10.1.0.0/16 proto udp allow\nsrc 10.0.0.0/8 proto udp rate 1/s\n", 0, NULL);
	lints("proto udp sport != 53 allow\nproto udp sport 53 rate 1/s\n", 0, NULL);
	lints("proto udp sport != 53 allow\nproto udp sport 54 rate 1/s\n", 1, NULL);
	lints("proto udp sport 1-100 allow\nproto udp sport 50-200 rate 1/s\n", 0, NULL);
	lints("proto tcp tcp flags syn / syn,ack allow\nproto tcp tcp flags syn / syn rate 1/s\n", 0, NULL);
	lints("proto udp payload 0 17 allow\nproto udp payload 1 17 rate 1/s\n", 0, NULL);
	lints("proto udp payload 1 03 allow\nproto udp payload 0 1703 / ffff rate 1/s\n", 1, NULL);
	lints("proto udp payload 1 03 allow\nproto udp payload 0 1703 / ff0f rate 1/s\n", 0, NULL);
}

static void test_not_judged_yet(void **state)
{
	char err[XRL_ERRLEN];
	struct xrl_ruleset set = {};
	struct xrl_lint_warn *w = NULL;

	(void)state;
	lint_file("port 53/udp rate 1/s\nprefix 10.0.0.0/8 allow\n", &set, &w);
	assert_int_equal(xrl_ruleset_not_judged_yet(&set, err, sizeof(err)), 0);
	xrl_ruleset_free(&set);
	free(w);
	/* Rules of several fields are judged, whatever they count by. */
	lint_file("port 53/udp rate 1/s\nproto udp sport 53 rate 1/s\nproto udp dport 53 rate 1/s per dst,dport\n",
		  &set, &w);
	assert_int_equal(xrl_ruleset_not_judged_yet(&set, err, sizeof(err)), 0);
	xrl_ruleset_free(&set);
	free(w);
	lint_file("port 53/udp rate 1/s per dst\n", &set, &w);
	assert_int_equal(xrl_ruleset_not_judged_yet(&set, err, sizeof(err)), -EOPNOTSUPP);
	assert_contains(err, "counts by destination or port");
	assert_contains(err, "write it as a rule of several fields");
	xrl_ruleset_free(&set);
	free(w);
}

/* ---- the classifier's constraints against the predicate ---- */

static unsigned int rnd(unsigned int n)
{
	return (unsigned int)random() % n;
}

static unsigned int pick(const unsigned int *v, size_t n)
{
	return rnd(4) ? v[rnd((unsigned int)n)] : 0;
}
#define PICK(a) pick(a, sizeof(a) / sizeof(a[0]))

static const unsigned int ports[] = { 0, 53, 80, 123, 443, 1000, 1500, 2000, 65535 };
static const unsigned int lens[] = { 20, 28, 40, 100, 511, 512, 1500, 65535 };
static const unsigned int ttls[] = { 0, 1, 32, 33, 64, 255 };
static const unsigned int protos[] = { 1, 6, 17, 58, 47 };

/* A random value of a ranges field, as the grammar writes it. */
static void rvalue(char *buf, size_t len, const unsigned int *pool, size_t n, unsigned int max)
{
	unsigned int a = rnd(3) ? pool[rnd((unsigned int)n)] : rnd(max + 1), b = a + rnd(300);
	int k = rnd(4);

	if (b > max)
		b = max;
	if (k == 0)
		snprintf(buf, len, "%s%u", rnd(4) ? "" : "!= ", a);
	else if (k == 1)
		snprintf(buf, len, "%s%u-%u", rnd(4) ? "" : "!= ", a, b);
	else
		snprintf(buf, len, "%s{ %u, %u-%u, %u }", rnd(3) ? "" : "!= ", pool[rnd((unsigned int)n)], a, b,
			 rnd(max + 1));
}

/* A random rule of several fields; refused combinations are drawn again. */
static void random_rule(struct xrl_spec *s)
{
	static const char *const prn[] = { "icmp", "tcp", "udp", "icmpv6", "47" };
	static const char *const fl[] = { "syn", "ack", "rst", "fin", "syn,ack", "ack,psh", "none" };
	static const char *const mk[] = { "syn,ack", "syn,ack,rst", "rst", "fin,syn,rst,psh,ack,urg", "ack" };
	char line[1024], v[128], err[XRL_ERRLEN];
	unsigned int p;
	size_t n;

	do {
		n = 0;
		line[0] = '\0';
		p = rnd(6);
		if (p < 5)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "proto %s ", prn[p]);
		if (p == 1 && rnd(2))
			n += (size_t)snprintf(line + n, sizeof(line) - n, "tcp flags %s / %s ", fl[rnd(7)], mk[rnd(5)]);
		if ((p == 0 || p == 3) && rnd(2))
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s type %u%s ", prn[p], rnd(2) ? 8 : rnd(4),
					      rnd(2) ? " code 0" : "");
		if ((p == 1 || p == 2) && rnd(2)) {
			rvalue(v, sizeof(v), ports, 9, 65535);
			n += (size_t)snprintf(line + n, sizeof(line) - n, "sport %s ", v);
		}
		if ((p == 1 || p == 2) && rnd(2)) {
			rvalue(v, sizeof(v), ports, 9, 65535);
			n += (size_t)snprintf(line + n, sizeof(line) - n, "dport %s ", v);
		}
		if (rnd(3) == 0) {
			rvalue(v, sizeof(v), lens, 8, 65535);
			n += (size_t)snprintf(line + n, sizeof(line) - n, "length %s ", v);
		}
		if (rnd(3) == 0) {
			rvalue(v, sizeof(v), ttls, 6, 255);
			n += (size_t)snprintf(line + n, sizeof(line) - n, "ttl %s ", v);
		}
		if (rnd(4) == 0)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "dscp %s ",
					      rnd(2) ? "ef" : "{ 0, af11-af13 }");
		if (rnd(4) == 0)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "frag %s%s ", rnd(3) ? "" : "!= ",
					      rnd(3) == 0 ? "later" :
					      rnd(2)	  ? "none" :
							    "{ first, later }");
		if (p < 4 && p != 0 && rnd(4) == 0)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "payload %u %02x%s ", rnd(3), rnd(4),
					      rnd(2) ? " / 03" : "");
		snprintf(line + n, sizeof(line) - n, "rate 1/s");
	} while (parse(line, s, err) || s->kind != XRL_KIND_MATCH);
}

static void random_pkt(struct xrl_match_pkt *p, __u8 *payload)
{
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->family = rnd(2) ? XRL_FAMILY_V4 : XRL_FAMILY_V6;
	p->v.v[XRL_LBVS_PROTO] = (__u16)PICK(protos);
	p->v.v[XRL_LBVS_FRAG] = (__u16)rnd(3);
	if (p->v.v[XRL_LBVS_FRAG] != XRL_LBVS_FRAG_LATER) {
		if (p->v.v[XRL_LBVS_PROTO] == 6 || p->v.v[XRL_LBVS_PROTO] == 17) {
			p->v.v[XRL_LBVS_SPORT] = (__u16)(rnd(2) ? PICK(ports) : rnd(65536));
			p->v.v[XRL_LBVS_DPORT] = (__u16)(rnd(2) ? PICK(ports) : rnd(65536));
		}
		if (p->v.v[XRL_LBVS_PROTO] == 6)
			p->v.v[XRL_LBVS_TCPFLAGS] =
				(__u16)(rnd(2) ? rnd(256) : PICK(((const unsigned int[]){ 2, 0x10, 0x12, 4, 0x14 })));
		if (p->v.v[XRL_LBVS_PROTO] == 1 || p->v.v[XRL_LBVS_PROTO] == 58)
			p->v.v[XRL_LBVS_ICMP] = (__u16)((rnd(2) ? 8 : rnd(4)) << 8 | rnd(2));
		p->payload = payload;
		p->payload_len = rnd(8);
		for (i = 0; i < p->payload_len; i++)
			payload[i] = (__u8)rnd(4);
	}
	p->v.v[XRL_LBVS_LENGTH] = (__u16)(rnd(2) ? PICK(lens) : rnd(65536));
	p->v.v[XRL_LBVS_TTL] = (__u16)(rnd(2) ? PICK(ttls) : rnd(256));
	p->v.v[XRL_LBVS_DSCP] = (__u16)(rnd(2) ? PICK(((const unsigned int[]){ 0, 10, 12, 14, 46 })) : rnd(64));
}

#define AGREE_RULES 12

/*
 * Random rule sets through the builder and the classifier (the header the
 * program compiles) against the predicate: a rule matches a packet when
 * the classifier holds it and its fields outside the classifier (payload)
 * match, exactly when every one of its fields does.
 */
static void test_classifier_agrees(void **state)
{
	static struct xrl_match_lbvs conv[AGREE_RULES];
	struct xrl_lbvs_rule rules[AGREE_RULES];
	struct xrl_spec specs[AGREE_RULES];
	unsigned long checked = 0, matched = 0;
	char err[XRL_ERRLEN];
	int round, i, k;

	(void)state;
	srandom(34);
	for (round = 0; round < 300; round++) {
		struct xrl_lbvs_set b;

		for (i = 0; i < AGREE_RULES; i++) {
			random_rule(&specs[i]);
			if (xrl_match_lbvs(&specs[i], NULL, &conv[i], err, sizeof(err)))
				fail_msg("%s", err);
			rules[i] = conv[i].rule;
		}
		if (xrl_lbvs_build(&b, rules, AGREE_RULES, err, sizeof(err)))
			fail_msg("%s", err);
		for (k = 0; k < 300; k++) {
			struct xrl_lbvs_result res;
			struct xrl_lbvs_ctx c = { .t = &b.t };
			struct xrl_match_pkt p;
			bool held[AGREE_RULES] = {};
			__u8 payload[8];

			random_pkt(&p, payload);
			assert_int_equal(xrl_lbvs_classify(&c, &p.v, &res), 0);
			assert_false(res.more);
			for (i = 0; i < res.n; i++)
				held[b.rule_of[res.bit[i]]] = true;
			for (i = 0; i < AGREE_RULES; i++) {
				__u32 ok = xrl_spec_eval(&specs[i], NULL, &p), all = xrl_spec_fields(&specs[i]);
				bool want = ok == all, got = held[i] && !(~ok & all & XRL_MF_PAYLOAD);

				if (want != got) {
					char text[XRL_RULE_TEXT];

					xrl_spec_format(&specs[i], text, sizeof(text));
					fail_msg(
						"'%s': predicate %d (fields %#x of %#x), classifier %d; packet proto %u "
						"frag %u sport %u dport %u flags %#x icmp %#x length %u ttl %u dscp %u",
						text, want, ok, all, held[i], p.v.v[XRL_LBVS_PROTO],
						p.v.v[XRL_LBVS_FRAG], p.v.v[XRL_LBVS_SPORT], p.v.v[XRL_LBVS_DPORT],
						p.v.v[XRL_LBVS_TCPFLAGS], p.v.v[XRL_LBVS_ICMP], p.v.v[XRL_LBVS_LENGTH],
						p.v.v[XRL_LBVS_TTL], p.v.v[XRL_LBVS_DSCP]);
				}
				checked++;
				matched += want;
			}
		}
		xrl_lbvs_free(&b);
	}
	/* The draw reaches both answers often: a check that only ever says no proves nothing. */
	print_message("%lu rule-packet pairs, %lu matched\n", checked, matched);
	assert_true(matched > checked / 50);
	assert_true(matched < checked / 2);
}

/* The predicate on the shorthands, field by field. */
static void test_predicate_shorthands(void **state)
{
	struct xrl_match_pkt p = { .family = XRL_FAMILY_V4, .src = { 10, 1, 2, 3 }, .dst = { 192, 0, 2, 1 } };
	struct xrl_spec s;

	(void)state;
	p.v.v[XRL_LBVS_PROTO] = 17;
	p.v.v[XRL_LBVS_DPORT] = 53;
	parse_ok("port 53/udp dst 192.0.2.0/24 rate 1/s", &s);
	assert_int_equal(xrl_spec_eval(&s, NULL, &p), XRL_MF_PROTO | XRL_MF_DPORT | XRL_MF_DST);
	parse_ok("prefix 10.0.0.0/8 rate 1/s", &s);
	assert_int_equal(xrl_spec_eval(&s, NULL, &p), XRL_MF_SRC);
	parse_ok("prefix 10.2.0.0/16 rate 1/s", &s);
	assert_int_equal(xrl_spec_eval(&s, NULL, &p), 0);
	parse_ok("proto udp rate 1/s", &s);
	assert_int_equal(xrl_spec_eval(&s, NULL, &p), XRL_MF_PROTO);
	parse_ok("proto tcp-syn rate 1/s", &s);
	assert_int_equal(xrl_spec_eval(&s, NULL, &p), 0);
	p.v.v[XRL_LBVS_PROTO] = 6;
	p.v.v[XRL_LBVS_TCPFLAGS] = 0x02;
	assert_int_equal(xrl_spec_eval(&s, NULL, &p), XRL_MF_PROTO | XRL_MF_TCPFLAGS);
	p.v.v[XRL_LBVS_TCPFLAGS] = 0x12;
	assert_int_equal(xrl_spec_eval(&s, NULL, &p), XRL_MF_PROTO);
	parse_ok("fragments rate 1/s", &s);
	assert_int_equal(xrl_spec_eval(&s, NULL, &p), 0);
	p.v.v[XRL_LBVS_FRAG] = XRL_LBVS_FRAG_LATER;
	assert_int_equal(xrl_spec_eval(&s, NULL, &p), XRL_MF_FRAG);
	/* A later fragment has no port: 'port 53/udp' and 'sport != 53' both miss it. */
	parse_ok("port 53/tcp rate 1/s", &s);
	assert_int_equal(xrl_spec_eval(&s, NULL, &p), XRL_MF_PROTO);
	parse_ok("proto tcp sport != 53 rate 1/s", &s);
	assert_int_equal(xrl_spec_eval(&s, NULL, &p), XRL_MF_PROTO);
}

/* Sets by name: a match rule's @SET is looked up in its rule set. */
static void test_predicate_sets(void **state)
{
	struct xrl_match_pkt p = { .family = XRL_FAMILY_V6, .src = { 0x20, 0x01, 0x0d, 0xb8, 0, 1 } };
	struct xrl_ruleset set = {};
	struct xrl_lint_warn *w = NULL;

	(void)state;
	lint_file("set good { 10.0.0.0/8, 2001:db8:1::/48 }\nsrc @good rate 1/s\nsrc != @good proto udp rate 1/s\n",
		  &set, &w);
	assert_int_equal(xrl_spec_eval(&set.v[0], &set, &p), XRL_MF_SRC);
	assert_int_equal(xrl_spec_eval(&set.v[1], &set, &p), 0);
	p.src[5] = 2;
	assert_int_equal(xrl_spec_eval(&set.v[0], &set, &p), 0);
	assert_int_equal(xrl_spec_eval(&set.v[1], &set, &p), XRL_MF_SRC);
	free(w);
	xrl_ruleset_free(&set);
}

/* ---- every rule line of the docs and the tests' rules files ---- */

/* The source tree: the first of the working folder and the binary's parents that has docs/guide.md. */
static bool find_root(char *root, size_t len)
{
	char path[PATH_MAX + 32], exe[PATH_MAX];
	ssize_t n;
	int up;

	if (getcwd(root, len)) {
		snprintf(path, sizeof(path), "%s/docs/guide.md", root);
		if (!access(path, R_OK))
			return true;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	for (up = 0; up < 6; up++) {
		char *slash = strrchr(exe, '/');

		if (!slash)
			return false;
		*slash = '\0';
		snprintf(path, sizeof(path), "%s/docs/guide.md", exe);
		if (!access(path, R_OK)) {
			snprintf(root, len, "%s", exe);
			return true;
		}
	}
	return false;
}

/* A line of a doc that is a rule: it begins with a word rules begin with (a load line or set aside). */
static bool rule_line(char *line)
{
	static const char *const first[] = { "port ",  "proto ", "fragments ", "prefix ", "dst ",    "src ",
					     "sport ", "dport ", "tcp flags ", "icmp ",	  "icmpv6 ", "length ",
					     "ttl ",   "dscp ",	 "frag ",      "payload " };
	char *hash = strchr(line, '#');
	size_t i;

	if (hash)
		*hash = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	while (line[0] == ' ' || line[0] == '\t')
		memmove(line, line + 1, strlen(line));
	for (i = 0; i < sizeof(first) / sizeof(first[0]); i++)
		if (!strncmp(line, first[i], strlen(first[i])))
			return strstr(line, " rate ") || strstr(line, " allow");
	return false;
}

/* Whether the fenced block from line i holds a shell prompt ('$ '): a transcript, its rule-like lines output. */
static bool transcript(char **lines, int n, int i)
{
	for (i++; i < n && strncmp(lines[i], "```", 3); i++)
		if (!strncmp(lines[i], "$ ", 2))
			return true;
	return false;
}

static int roundtrip_file(const char *root, const char *name, bool docs)
{
	char path[PATH_MAX + 64], buf[2048], err[XRL_ERRLEN], text[XRL_RULE_TEXT], text2[XRL_RULE_TEXT];
	char *lines[4096];
	int n = 0, nl = 0, i, fence = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot read %s", path);
	while (nl < 4096 && fgets(buf, sizeof(buf), f))
		lines[nl++] = strdup(buf);
	fclose(f);
	for (i = 0; i < nl; i++) {
		struct xrl_spec a, b;
		char *line = lines[i];

		if (docs && !strncmp(line, "```", 3)) {
			fence = fence ? 0 : transcript(lines, nl, i) ? 2 : 1;
			continue;
		}
		if ((docs && fence != 1) || !rule_line(line))
			continue;
		if (parse(line, &a, err))
			fail_msg("%s:%d: '%s' refused: %s", name, i + 1, line, err);
		assert_int_equal(xrl_spec_format(&a, text, sizeof(text)), 0);
		if (parse(text, &b, err))
			fail_msg("%s:%d: '%s' prints as '%s', which is refused: %s", name, i + 1, line, text, err);
		if (a.kind != b.kind || !xrl_spec_same_match(&a, &b) || memcmp(&a.r, &b.r, sizeof(a.r)) ||
		    a.per != b.per)
			fail_msg("%s:%d: '%s' prints as '%s', another rule", name, i + 1, line, text);
		assert_int_equal(xrl_spec_format(&b, text2, sizeof(text2)), 0);
		assert_string_equal(text, text2);
		n++;
	}
	for (i = 0; i < nl; i++)
		free(lines[i]);
	return n;
}

static void test_docs_roundtrip(void **state)
{
	static const char *const docs[] = { "README.md",	"docs/guide.md", "docs/under-attack.md",
					    "docs/security.md", "docs/fleet.md", "docs/operating.md" };
	static const char *const files[] = { "dist/example.conf",	    "tests/fuzz/seeds/rules.conf",
					     "tests/fuzz/seeds/saved.conf", "tests/fuzz/seeds/bytes_warmup.rules",
					     "tests/fuzz/seeds/sets.rules", "tests/fuzz/seeds/match.rules" };
	char root[PATH_MAX];
	int n = 0, readme;
	size_t i;

	(void)state;
	if (!find_root(root, sizeof(root)))
		skip(); /* run from outside the tree: cmocka reports it SKIPPED */
	readme = roundtrip_file(root, "README.md", true);
	for (i = 1; i < sizeof(docs) / sizeof(docs[0]); i++)
		n += roundtrip_file(root, docs[i], true);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		n += roundtrip_file(root, files[i], false);
	print_message("%d rule lines of the README, %d of the other docs and rules files: each prints back to itself\n",
		      readme, n);
	assert_true(readme >= 5);
	assert_true(n >= 40);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_issue_lines),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_canonical),
		cmocka_unit_test(test_shorthands_stay),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_lint),
		cmocka_unit_test(test_not_judged_yet),
		cmocka_unit_test(test_classifier_agrees),
		cmocka_unit_test(test_predicate_shorthands),
		cmocka_unit_test(test_predicate_sets),
		cmocka_unit_test(test_docs_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
