/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Rules written as lines and rules files written as strings, through the
 * grammar (user/lib/rules/), for the tests of rules: test_rules.c,
 * test_match.c, test_sets.c, test_match_build.c. Include after cmocka.h.
 */
#ifndef XRL_TEST_RULE_LINES_H
#define XRL_TEST_RULE_LINES_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "rules/rule.h"

#define assert_contains(hay, needle)                                                         \
	do {                                                                                 \
		if (!strstr((hay), (needle)))                                                \
			fail_msg("message \"%s\" does not contain \"%s\"", (hay), (needle)); \
	} while (0)

#define MAX_ARGS 256

/* Splits line (copied into buf) into words, as a shell or a rules file would. */
static inline int split(const char *line, char *buf, size_t len, char **argv)
{
	char *save = NULL, *w;
	int n = 0;

	assert_true(strlen(line) < len);
	strcpy(buf, line);
	for (w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		assert_true(n < MAX_ARGS);
		argv[n++] = w;
	}
	return n;
}

/* Parses one rule written as a line; err holds the message. */
static inline int parse(const char *line, struct xrl_spec *s, char *err)
{
	char buf[XRL_RULE_TEXT * 2], *argv[MAX_ARGS];
	int argc = split(line, buf, sizeof(buf), argv);

	err[0] = '\0';
	return xrl_spec_parse(argc, argv, s, err, XRL_ERRLEN);
}

/* Parses a rule that must be good, failing with its message otherwise. */
static inline void parse_ok(const char *line, struct xrl_spec *s)
{
	char err[XRL_ERRLEN];

	if (parse(line, s, err))
		fail_msg("'%s' refused: %s", line, err);
}

/* A rule that must be refused, with a message containing each of the words given. */
static inline void parse_bad(const char *line, const char *want1, const char *want2)
{
	char err[XRL_ERRLEN];
	struct xrl_spec s;
	int ret = parse(line, &s, err);

	if (ret != -EINVAL)
		fail_msg("'%s' gave %d, expected -EINVAL", line, ret);
	assert_contains(err, want1);
	if (want2)
		assert_contains(err, want2);
}

/* Parses text as the rules file name into set: xrl_ruleset_parse's return, its message in err. */
static inline int parse_text(const char *text, const char *name, struct xrl_ruleset *set, char *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	assert_non_null(f);
	err[0] = '\0';
	ret = xrl_ruleset_parse(f, name, set, err, XRL_ERRLEN);
	fclose(f);
	return ret;
}

#endif
