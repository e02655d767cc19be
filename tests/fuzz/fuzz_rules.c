// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer: a rules file parses, or is refused with a message naming the
 * line; whatever parses prints back to rules that parse to the same thing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rules/rule.h"

static void roundtrip(const struct xrl_spec *s)
{
	char line[XRL_RULE_TEXT], *words[XRL_RULE_TEXT / 2], *save = NULL, *w, err[XRL_ERRLEN];
	struct xrl_spec back;
	int n = 0;

	if (xrl_spec_format(s, line, sizeof(line)))
		abort();
	for (w = strtok_r(line, " ", &save); w && n < XRL_RULE_TEXT / 2; w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	if (xrl_spec_parse(n, words, &back, err, sizeof(err)))
		abort(); /* printed a rule it cannot read back */
	back.line = s->line;
	back.r.id = s->r.id;
	back.r.gen = s->r.gen;
	if (!xrl_spec_same_match(s, &back) || memcmp(&s->r, &back.r, sizeof(back.r)) || s->per != back.per)
		abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char err[XRL_ERRLEN] = "";
	struct xrl_ruleset set = {};
	FILE *f = fmemopen((void *)data, size, "r");
	size_t i;

	if (!f)
		return 0;
	if (xrl_ruleset_parse(f, "fuzz", &set, err, sizeof(err))) {
		/* A refusal names the file and the line: "fuzz:N: ..." or a read error. */
		if (strncmp(err, "fuzz:", 5))
			abort();
	} else {
		for (i = 0; i < set.n; i++)
			roundtrip(&set.v[i]);
	}
	fclose(f);
	xrl_ruleset_free(&set);
	return 0;
}
