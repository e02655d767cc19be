// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Named prefix sets in the rules grammar: inline and file sets, the rules
 * that use them, what a rule set of them must be, messages that name the
 * file, line and word, and printing them back.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inline_sets),	   cmocka_unit_test(test_file_sets),
		cmocka_unit_test(test_set_file_fifo),	   cmocka_unit_test(test_not_quoted),
		cmocka_unit_test(test_inline_set_large),   cmocka_unit_test(test_sets_refused),
		cmocka_unit_test(test_sets_not_ambiguous),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
