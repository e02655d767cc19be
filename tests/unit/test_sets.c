// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Named prefix sets in the rules grammar: inline and file sets, the rules
 * that use them, what a rule set of them must be, messages that name the
 * file, line and word, and printing them back. Named port sets too
 * ('set web ports { 80, 443 }', used as 'dport @web').
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "rules/rule.h"
#include "codec/match_maps.h"
#include "rule_lines.h"

static void refused(const char *text, const char *want)
{
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN];

	assert_int_equal(parse_text(text, "r.conf", &set, err), -EINVAL);
	if (!strstr(err, want))
		fail_msg("for:\n%s\nmessage '%s' lacks '%s'", text, err, want);
	assert_null(set.v);
}

/* A file in a fresh folder, with text: its path. */
static const char *file_of(const char *name, const char *text)
{
	static char dir[64], path[128];
	FILE *f;

	if (!dir[0]) {
		strcpy(dir, "/tmp/xrl-test-sets-XXXXXX");
		assert_non_null(mkdtemp(dir));
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_inline_sets(void **state)
{
	static const char text[] = "set cdn { 192.0.2.0/24, 2001:db8::/32 }\n"
				   "set feed {   # comments, commas and lines as one likes\n"
				   "  10.0.0.0/8\n"
				   "  10.1.0.0/16, 10.0.0.0/8  # a repeat is held once\n"
				   "  2001:db8:1::1\n"
				   "}\n"
				   "prefix @cdn allow\n"
				   "prefix @feed rate 10/s per-source mask4 24 mask6 48\n"
				   "dst @cdn rate 1Gbit/s aggregate\n";
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN], line[256];
	const struct xrl_pset *feed;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(parse_text(text, "r.conf", &set, err), 0);
	assert_int_equal(set.n, 3);
	assert_int_equal(set.nsets, 2);
	feed = xrl_ruleset_set(&set, "feed");
	assert_non_null(feed);
	assert_int_equal(feed->n, 3);
	assert_int_equal(feed->v[2].family, XRL_FAMILY_V6);
	assert_int_equal(feed->v[2].plen, 128);
	assert_int_equal(xrl_ruleset_prefixes(&set), 2 + 3 + 2);
	assert_string_equal(set.v[1].set, "feed");
	assert_int_equal(xrl_spec_format(&set.v[1], line, sizeof(line)), 0);
	assert_string_equal(line, "prefix @feed rate 10/s window 1s buckets 2 per-source mask4 24 mask6 48");
	assert_int_equal(xrl_spec_format(&set.v[2], line, sizeof(line)), 0);
	assert_string_equal(line, "dst @cdn rate 1Gbit/s window 1s buckets 2 aggregate");
	f = open_memstream(&out, &len);
	assert_int_equal(xrl_pset_fprint(f, &set.sets[0], false), 0);
	fclose(f);
	assert_string_equal(out, "set cdn { 192.0.2.0/24, 2001:db8::/32 }\n");
	free(out);
	xrl_ruleset_free(&set);
}

static void test_file_sets(void **state)
{
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN], rules[256];
	const char *p = file_of("feed.txt", "# a feed\n\n198.51.100.0/24\r\n2001:db8:ff::/48  # with a comment\n");

	(void)state;
	/* Relative to the rules file's folder, kept absolute. */
	snprintf(rules, sizeof(rules), "%.*s/r.conf", (int)(strrchr(p, '/') - p), p);
	assert_int_equal(parse_text("set feed file feed.txt\nprefix @feed rate 5/s\n", rules, &set, err), 0);
	assert_int_equal(set.sets[0].n, 2);
	assert_string_equal(set.sets[0].path, p);
	xrl_ruleset_free(&set);
	p = file_of("bad.txt", "10.0.0.0/8\n\n# fine so far\n10.1.2.300/24\n");
	snprintf(rules, sizeof(rules), "set b file %s\nprefix @b allow\n", p);
	refused(rules, "bad.txt:4: '10.1.2.300' is not an IPv4 or IPv6 address");
	p = file_of("two.txt", "10.0.0.0/8 10.1.0.0/16\n");
	snprintf(rules, sizeof(rules), "set b file %s\nprefix @b allow\n", p);
	refused(rules, "two.txt:1: '10.1.0.0/16' after the prefix '10.0.0.0/8': a set file holds one prefix a line");
	p = file_of("host.txt", "10.0.0.1/8\n");
	snprintf(rules, sizeof(rules), "set b file %s\nprefix @b allow\n", p);
	refused(rules, "host.txt:1: prefix '10.0.0.1/8' has host bits set: did you mean 10.0.0.0/8?");
	refused("set b file /nonexistent/x.txt\nprefix @b allow\n", "cannot read set file /nonexistent/x.txt");
	refused("set b file /dev/zero\nprefix @b allow\n", "set file /dev/zero is a device, not a regular file");
}

/* A FIFO as a set's file: refused at once (it was opened, and waited on for a writer forever). */
static void test_set_file_fifo(void **state)
{
	char rules[256], path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s", file_of("x", ""));
	strcpy(strrchr(path, '/') + 1, "fifo");
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(rules, sizeof(rules), "set b file %s\nprefix @b allow\n", path);
	refused(rules, "fifo is a FIFO, not a regular file");
	unlink(path);
}

/* Refused with its message in err; the message must not hold secret. */
static void refused_unquoted(const char *text, const char *want, const char *secret)
{
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN];

	assert_int_equal(parse_text(text, "r.conf", &set, err), -EINVAL);
	if (!strstr(err, want) || strstr(err, secret))
		fail_msg("message '%s': wanted '%s', and no '%s'", err, want, secret);
}

/*
 * A file given as a set or rules file may be any file (a symlink to
 * /etc/shadow, to a command run as root): a word that cannot be a mistyped
 * prefix, or a line that is no rule, is not quoted (the first line of the
 * file went into the message). A mistyped prefix still is, and a mistyped
 * keyword below a line that made the file a rules file.
 */
static void test_not_quoted(void **state)
{
	char rules[256], link[128];
	const char *p = file_of("secret", "root:$6$salt$hash:20228:0:99999:7:::\n");

	(void)state;
	snprintf(link, sizeof(link), "%s", p);
	strcpy(strrchr(link, '/') + 1, "shadow-link");
	assert_int_equal(symlink(p, link), 0);
	snprintf(rules, sizeof(rules), "set b file %s\nprefix @b allow\n", link);
	refused_unquoted(rules, "secret:1: not a prefix, and not shown", "root");
	/* Escape sequences from a feed reach no terminal. */
	p = file_of("esc.txt", "10.0.0.0/8\n\033]0;owned\007\n");
	snprintf(rules, sizeof(rules), "set b file %s\nprefix @b allow\n", p);
	refused_unquoted(rules, "esc.txt:2: not a prefix, and not shown", "owned");
	p = file_of("extra.txt", "10.0.0.0/8 password=hunter2\n");
	snprintf(rules, sizeof(rules), "set b file %s\nprefix @b allow\n", p);
	refused_unquoted(rules, "extra.txt:1: not a prefix, and not shown", "hunter2");
	/* A rules file's line that begins with no rule's word. */
	refused_unquoted("root:$6$salt$hash:20228:0:99999:7:::\n", "r.conf:1: not a rule, and not shown", "root");
	refused_unquoted("limit 53/udp rate 1/s\n", "r.conf:1: not a rule, and not shown", "limit");
	refused_unquoted("port 53/udp rate 1/s\nroot:$6$salt$hash:20228\n", "r.conf:2: not a rule", "root");
	/* Once the file is seen to be a rules file, a mistyped keyword is named. */
	refused_unquoted("port 53/udp rate 1/s\nlimit 54/udp rate 1/s\n", "r.conf:2: unknown rule 'limit'", "root");
	unlink(link);
}

/*
 * An inline set may be as large as a set file: 'save --inline' of a set of a
 * million prefixes writes some 17 MiB into it, which the 16 MiB of a rules
 * file's lines refused (the saved file did not load).
 */
static void test_inline_set_large(void **state)
{
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN], pad[1001];
	size_t len = 0, i;
	char *text = NULL;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	memset(pad, ' ', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	fputs("set big {\n", f);
	for (i = 0; len < (17u << 20); i++) {
		fprintf(f, "\t10.%zu.%zu.0/24,%s\n", (i >> 8) & 255, i & 255, pad);
		fflush(f);
	}
	fputs("}\nprefix @big rate 1/s\n", f);
	fclose(f);
	if (parse_text(text, "r.conf", &set, err))
		fail_msg("a set of %zu bytes inline: %s", len, err);
	assert_int_equal(set.sets[0].n, i);
	xrl_ruleset_free(&set);
	free(text);
}

static void test_sets_refused(void **state)
{
	(void)state;
	refused("prefix @nope allow\n", "r.conf:1: set @nope is not defined");
	refused("set a { 10.0.0.0/8 }\n", "r.conf:1: set a is defined but no rule uses it");
	refused("set a { 10.0.0.0/8 }\nset a { 10.0.0.0/8 }\nprefix @a allow\n", "r.conf:2: set 'a' is defined twice");
	refused("set a { 10.0.0.0/8 }\nprefix @a allow\nprefix @a rate 1/s\n",
		"r.conf:3: 'prefix @a' is already given on line 2: one rule per match");
	refused("set a { 10.0.0.0/8, 192.0.2.0/24 }\nset b {\n 172.16.0.0/12\n 192.0.2.0/24\n}\n"
		"prefix @a rate 1/s\nprefix @b allow\n",
		"192.0.2.0/24 is in set a (r.conf:1) and in set b (r.conf:4), both of prefix rules");
	/* Like every refusal of a rules file, it begins with the file and a line (the fuzzer found it did not). */
	refused("set a { 10.0.0.0/8, 20:db8::/32 }\nset b {\n 20:db8::/32 }\nprefix @a rate 1/s\nprefix @b allow\n",
		"r.conf:2: 20:db8::/32 is in set a (r.conf:1) and in set b (r.conf:3)");
	refused("set a { 10.0.0.0/8 \n", "set a has no '}'");
	refused("set a { 10.0.0.0/8 } x\nprefix @a allow\n", "'x' after '}'");
	refused("set 9a { 10.0.0.0/8 }\n", "'9a' is not a set's name");
	refused("set a { 10.0.0.0/8 }\nprefix @a rate 1/s mask 24\n", "'mask' is for a prefix of one family");
	refused("set a { 10.0.0.0/8 }\nport 53/udp dst @a rate 1/s\n", "a port rule narrows to one destination prefix");
	refused("set a { ::ffff:10.0.0.0/104 }\nprefix @a allow\n", "IPv4-mapped");
	refused("set a nofile x\n", "expected 'file PATH' or '{ PREFIX, ... }'");
}

/*
 * The same prefix in a set of prefix rules and of dst rules is no ambiguity
 * (they match different addresses); in a single rule and a set, the single
 * rule holds it (checked where the structure is built: tests/prog/test_sets.c).
 */
static void test_sets_not_ambiguous(void **state)
{
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN];

	(void)state;
	assert_int_equal(parse_text("set a { 10.0.0.0/8 }\nset b { 10.0.0.0/8 }\nprefix @a allow\ndst @b rate 1/s\n"
				    "prefix 10.0.0.0/8 rate 5/s\n",
				    "r.conf", &set, err),
			 0);
	xrl_ruleset_free(&set);
}

/* A set's line as xrl_pset_fprint writes it. */
static void set_line(const struct xrl_pset *ps, bool inline_, char *buf, size_t len)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	assert_int_equal(xrl_pset_fprint(f, ps, inline_), 0);
	fclose(f);
	snprintf(buf, len, "%s", out);
	free(out);
}

/* A TCP or UDP packet from 198.51.100.1 to 203.0.113.1, of these ports, as the predicate sees it. */
static struct xrl_match_pkt port_pkt(__u8 proto, __u16 sport, __u16 dport)
{
	struct xrl_match_pkt p = { .family = XRL_FAMILY_V4, .src = { 198, 51, 100, 1 }, .dst = { 203, 0, 113, 1 } };

	p.v.v[XRL_LBVS_PROTO] = proto;
	p.v.v[XRL_LBVS_SPORT] = sport;
	p.v.v[XRL_LBVS_DPORT] = dport;
	p.v.v[XRL_LBVS_LENGTH] = 100;
	p.v.v[XRL_LBVS_TTL] = 64;
	return p;
}

static void test_port_sets(void **state)
{
	const char *p = file_of("ports.txt", "# a feed of ports\n80\n443  # https\n1000-2000\n1999-3000\n80\n");
	char text[512], rules[128], err[XRL_ERRLEN], line[XRL_RULE_TEXT], again[2048];
	struct xrl_ruleset set = {}, back = {};
	const struct xrl_pset *web, *feed;
	struct xrl_vrange r[XRL_MATCH_FIELD_RANGES];
	struct xrl_match_pkt pk;
	size_t i, n = 0;

	(void)state;
	snprintf(rules, sizeof(rules), "%.*s/r.conf", (int)(strrchr(p, '/') - p), p);
	snprintf(text, sizeof(text),
		 "set web ports { 443, 80, 8000-8999,\n 8500, 9000 }   # 9000 touches 8999: one range\n"
		 "set feed ports file ports.txt\n"
		 "proto tcp dport @web rate 100/s per-source\n"
		 "proto udp sport != @feed dport @web rate 10/s aggregate\n");
	assert_int_equal(parse_text(text, rules, &set, err), 0);
	assert_int_equal(set.nsets, 2);
	web = xrl_ruleset_port_set(&set, "web");
	feed = xrl_ruleset_port_set(&set, "feed");
	assert_non_null(web);
	assert_non_null(feed);
	assert_int_equal(web->nports, 3);
	assert_int_equal(web->ports[2].lo, 8000);
	assert_int_equal(web->ports[2].hi, 9000);
	assert_int_equal(feed->nports, 3);
	assert_int_equal(feed->ports[2].lo, 1000);
	assert_int_equal(feed->ports[2].hi, 3000);
	assert_string_equal(feed->path, p);
	assert_int_equal(xrl_ruleset_prefixes(&set), 0);

	/* Printed as written, sets and rules. */
	assert_int_equal(xrl_spec_format(&set.v[0], line, sizeof(line)), 0);
	assert_string_equal(line, "proto tcp dport @web rate 100/s per-source");
	assert_int_equal(xrl_spec_format(&set.v[1], line, sizeof(line)), 0);
	assert_string_equal(line, "proto udp sport != @feed dport @web rate 10/s aggregate");
	set_line(web, false, line, sizeof(line));
	assert_string_equal(line, "set web ports { 80, 443, 8000-9000 }\n");
	set_line(feed, true, line, sizeof(line));
	assert_string_equal(line, "set feed ports { 80, 443, 1000-3000 }\n");
	set_line(feed, false, line, sizeof(line));
	snprintf(text, sizeof(text), "set feed ports file %s\n", p);
	assert_string_equal(line, text);

	/* Round trip: the sets and rules as dump writes them, parsed again, are the same. */
	for (i = 0; i < set.nsets; i++) {
		set_line(&set.sets[i], i == 0, line, sizeof(line));
		n += (size_t)snprintf(again + n, sizeof(again) - n, "%s", line);
	}
	for (i = 0; i < set.n; i++) {
		xrl_spec_format(&set.v[i], line, sizeof(line));
		n += (size_t)snprintf(again + n, sizeof(again) - n, "%s\n", line);
	}
	assert_int_equal(parse_text(again, "r.conf", &back, err), 0);
	assert_int_equal(back.n, set.n);
	for (i = 0; i < set.n; i++)
		assert_true(xrl_spec_same_match(&back.v[i], &set.v[i]));
	for (i = 0; i < set.nsets; i++) {
		const struct xrl_pset *b = xrl_ruleset_port_set(&back, set.sets[i].name);

		assert_non_null(b);
		assert_int_equal(b->nports, set.sets[i].nports);
		assert_memory_equal(b->ports, set.sets[i].ports, b->nports * sizeof(b->ports[0]));
	}
	xrl_ruleset_free(&back);

	/* The predicate: exactly the set's ports, and outside them negated. */
	pk = port_pkt(XRL_PROTO_TCP, 5000, 8500);
	assert_int_equal(xrl_spec_eval(&set.v[0], &set, &pk), XRL_MF_PROTO | XRL_MF_DPORT);
	pk = port_pkt(XRL_PROTO_TCP, 5000, 9001);
	assert_int_equal(xrl_spec_eval(&set.v[0], &set, &pk), XRL_MF_PROTO);
	pk = port_pkt(XRL_PROTO_UDP, 3000, 80);
	assert_int_equal(xrl_spec_eval(&set.v[1], &set, &pk), XRL_MF_PROTO | XRL_MF_DPORT);
	pk = port_pkt(XRL_PROTO_UDP, 3001, 80);
	assert_int_equal(xrl_spec_eval(&set.v[1], &set, &pk), XRL_MF_PROTO | XRL_MF_DPORT | XRL_MF_SPORT);
	/* ... a set the rule set lacks matches no port. */
	assert_int_equal(xrl_spec_eval(&set.v[0], NULL, &pk) & XRL_MF_DPORT, 0);

	/* The builder's field: the set's ranges, or what is outside them. */
	assert_int_equal(xrl_match_field_ranges(&set.v[0], &set, XRL_LBVS_DPORT, r), 3);
	assert_int_equal(xrl_match_field_ranges(&set.v[1], &set, XRL_LBVS_SPORT, r), 4);
	assert_int_equal(r[0].lo, 0);
	assert_int_equal(r[0].hi, 79);
	assert_int_equal(r[3].lo, 3001);
	assert_int_equal(r[3].hi, 65535);
	assert_int_equal(xrl_match_check(&set, err, sizeof(err)), 0);
	xrl_ruleset_free(&set);
}

/* A set holds XRL_PORTSET_RANGES ranges, however many ports: the limit counts ranges once merged. */
static void test_port_set_sizes(void **state)
{
	struct xrl_vrange r[XRL_MATCH_FIELD_RANGES];
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN], *text = malloc(8192), *big = malloc(1 << 20);
	size_t n = 0, i;
	const char *p;

	(void)state;
	/* 60,000 ports, one a line: one range. */
	for (i = 1000; i < 61000; i++)
		n += (size_t)snprintf(big + n, (1 << 20) - n, "%zu\n", i);
	p = file_of("many.txt", big);
	snprintf(text, 8192, "set m ports file %s\nproto udp dport @m rate 1/s\n", p);
	assert_int_equal(parse_text(text, "r.conf", &set, err), 0);
	assert_int_equal(set.sets[0].nports, 1);
	xrl_ruleset_free(&set);

	/* 128 ranges apart, negated: 129 for the classifier, which builds them. */
	n = (size_t)snprintf(text, 8192, "set m ports {");
	for (i = 0; i < XRL_PORTSET_RANGES; i++)
		n += (size_t)snprintf(text + n, 8192 - n, " %zu,", 2 + 2 * i);
	snprintf(text + n, 8192 - n, " }\nproto udp dport != @m rate 1/s\n");
	assert_int_equal(parse_text(text, "r.conf", &set, err), 0);
	assert_int_equal(set.sets[0].nports, XRL_PORTSET_RANGES);
	assert_int_equal(xrl_match_field_ranges(&set.v[0], &set, XRL_LBVS_DPORT, r), XRL_PORTSET_RANGES + 1);
	assert_int_equal(xrl_match_check(&set, err, sizeof(err)), 0);
	xrl_ruleset_free(&set);

	/* One more is refused, by its line. */
	n = (size_t)snprintf(text, 8192, "set m ports {");
	for (i = 0; i <= XRL_PORTSET_RANGES; i++)
		n += (size_t)snprintf(text + n, 8192 - n, "\n %zu,", 2 + 2 * i);
	snprintf(text + n, 8192 - n, " }\nproto udp dport @m rate 1/s\n");
	refused(text, "r.conf:130: set m: more than 128 ranges of ports (once those that touch are merged)");
	free(text);
	free(big);
}

static void test_port_sets_refused(void **state)
{
	const char *p;
	char rules[256];

	(void)state;
	refused("set web ports { 80 }\nsrc @web proto tcp rate 1/s\n",
		"r.conf:2: 'src @web': set web holds ports (line 1), and 'src' takes a set of prefixes: match its ports with 'dport @web'");
	refused("set web ports { 80 }\nprefix @web rate 1/s\n", "r.conf:2: 'prefix @web': set web holds ports");
	refused("set web ports { 80 }\ndst @web allow\n", "r.conf:2: 'dst @web': set web holds ports");
	refused("set web ports { 80 }\nproto tcp dst != @web rate 1/s\n", "'dst @web': set web holds ports");
	refused("set bad { 10.0.0.0/8 }\nproto tcp dport @bad rate 1/s\n",
		"r.conf:2: 'dport @bad': set bad holds prefixes (line 1), and 'dport' takes a set of ports: match its prefixes with 'src @bad' or 'dst @bad'");
	refused("set bad { 10.0.0.0/8 }\nproto udp sport != @bad rate 1/s\n", "'sport @bad': set bad holds prefixes");
	refused("proto tcp dport @nope rate 1/s\n",
		"r.conf:1: set @nope is not defined: add 'set nope ports { 80, 443, 8000-8999 }' or 'set nope ports file PATH'");
	refused("set web ports { 80 }\nset a { 10.0.0.0/8 }\nprefix @a rate 1/s\n",
		"r.conf:1: port set web is defined but no rule uses it");
	refused("set web ports { 80 }\nproto tcp length @web rate 1/s\n", "'length' takes no named set");
	refused("set web ports { 80 }\nproto icmp dport @web rate 1/s\n", "'dport' is for tcp and udp");
	refused("set web ports { 80 }\ndport @web rate 1/s\n", "'dport' needs its protocol");
	refused("set web ports { 70000 }\nproto tcp dport @web rate 1/s\n", "set web: '70000' is out of range");
	refused("set web ports { 90-80 }\nproto tcp dport @web rate 1/s\n", "range 90-80 is reversed");
	refused("set web ports { 10.0.0.0/8 }\nproto tcp dport @web rate 1/s\n", "'10.0.0.0/8' is not a port");
	refused("set web ports { http }\nproto tcp dport @web rate 1/s\n", "'http' is not a port");
	refused("set web ports\n", "a port set needs its ports: 'set NAME ports file PATH'");
	refused("set web ports [ 80 ]\n", "'set web ports [': expected 'file PATH' or '{ PORT, ... }'");
	refused("set web { 80 }\nproto tcp dport @web rate 1/s\n",
		"set web: '80' is a port, not a prefix: a set of ports is 'set NAME ports { 80, 443 }'");
	refused("set web ports { 80 }\nset web ports { 81 }\n", "set 'web' is defined twice");
	p = file_of("bad-ports.txt", "80\n443\n10.0.0.0/8\n");
	snprintf(rules, sizeof(rules), "set b ports file %s\nproto tcp dport @b rate 1/s\n", p);
	refused(rules, "bad-ports.txt:3: '10.0.0.0/8' is not a port");
	p = file_of("secret-ports.txt", "80\nroot:x:0:0\n");
	snprintf(rules, sizeof(rules), "set b ports file %s\nproto tcp dport @b rate 1/s\n", p);
	refused(rules, "secret-ports.txt:2: not a port, and not shown");
	p = file_of("two-ports.txt", "80 443\n");
	snprintf(rules, sizeof(rules), "set b ports file %s\nproto tcp dport @b rate 1/s\n", p);
	refused(rules, "two-ports.txt:1: '443' after '80': a port set's file holds one port or range a line");
}

/* set update reads a file before it knows the set's kind: the first word says which. */
static void test_set_read_any(void **state)
{
	struct xrl_pset ps = { .kind = XRL_PSET_ANY };
	char err[XRL_ERRLEN];

	(void)state;
	assert_int_equal(xrl_set_read_file(&ps, file_of("a1.txt", "# ports\n80\n8000-8080\n"), err, sizeof(err)), 0);
	assert_int_equal(ps.kind, XRL_PSET_PORTS);
	assert_int_equal(ps.nports, 2);
	ps = (struct xrl_pset){ .kind = XRL_PSET_ANY };
	assert_int_equal(xrl_set_read_file(&ps, file_of("a2.txt", "10.0.0.0/8\n"), err, sizeof(err)), 0);
	assert_int_equal(ps.kind, XRL_PSET_PREFIXES);
	assert_int_equal(ps.n, 1);
	free(ps.v);
	free(ps.lines);
	ps = (struct xrl_pset){ .kind = XRL_PSET_ANY };
	assert_int_equal(xrl_set_read_file(&ps, file_of("a3.txt", "80\n10.0.0.0/8\n"), err, sizeof(err)), -EINVAL);
	assert_contains(err, "a3.txt:2: '10.0.0.0/8' is not a port");
	ps = (struct xrl_pset){ .kind = XRL_PSET_ANY };
	assert_int_equal(xrl_set_read_file(&ps, file_of("a4.txt", "# empty\n"), err, sizeof(err)), 0);
	assert_int_equal(ps.kind, XRL_PSET_ANY);
}

/* lint: a rule a port set leaves no packet, and one an allow rule of a port set makes redundant. */
static void test_port_set_lint(void **state)
{
	struct xrl_ruleset set = {};
	struct xrl_lint_warn *w = NULL;
	char err[XRL_ERRLEN];

	(void)state;
	assert_int_equal(parse_text("set none ports { }\nset web ports { 80, 443 }\n"
				    "proto tcp dport @none rate 1/s\n"
				    "proto tcp dport @web allow\n"
				    "proto tcp dport 443 src 192.0.2.0/24 rate 5/s\n"
				    "proto tcp dport != @web rate 7/s\n",
				    "r.conf", &set, err),
			 0);
	assert_int_equal(xrl_ruleset_lint(&set, &w), 2);
	assert_int_equal(w[0].line, 3);
	assert_contains(w[0].msg, "no packet can match this rule: its 'dport @none' leaves no port");
	assert_int_equal(w[1].line, 5);
	assert_contains(w[1].msg, "allowed by 'proto tcp dport @web' on line 4");
	free(w);
	xrl_ruleset_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inline_sets),	   cmocka_unit_test(test_file_sets),
		cmocka_unit_test(test_set_file_fifo),	   cmocka_unit_test(test_not_quoted),
		cmocka_unit_test(test_inline_set_large),   cmocka_unit_test(test_sets_refused),
		cmocka_unit_test(test_sets_not_ambiguous), cmocka_unit_test(test_port_sets),
		cmocka_unit_test(test_port_set_sizes),	   cmocka_unit_test(test_port_sets_refused),
		cmocka_unit_test(test_set_read_any),	   cmocka_unit_test(test_port_set_lint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
