/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A match rule's words being read (match_words.c, match_bytes.c): not part of the library's interface. */
#ifndef XRL_RULES_MATCH_PARSE_H
#define XRL_RULES_MATCH_PARSE_H

#include <stddef.h>
#include "rules/rule.h"

struct mp {
	int argc, i;
	char **argv;
	struct xrl_spec *s;
	struct xrl_match *m;
	__u32 said; /* the fields written, not implied (proto by tcp flags or icmp type) */
	char *err;
	size_t len;
};

struct mword;
typedef int (*mparse_fn)(struct mp *p, const struct mword *w);

struct mword {
	const char *word;
	__u32 bit;
	mparse_fn parse;
	size_t off;	  /* ranges fields: where in struct xrl_match */
	unsigned int max; /* ... their largest value */
	const char *what; /* ... "a port" */
	int (*name)(const char *w);
	size_t set_off; /* sport and dport: where a named port set's name goes ('dport @web'); 0: none */
};

/* The next word, the value of word; NULL (err says what was expected) at the end. */
const char *xrl_mp_next(struct mp *p, const char *word, const char *expected);
/* s a decimal number to max: 0, else -1. */
int xrl_mp_number(const char *s, unsigned long max, unsigned long *v);
/* The rule's protocol, said by 'proto' (by NULL) or implied by a field (by "tcp flags"): a second one is a conflict. */
int xrl_mp_set_proto(struct mp *p, __u8 proto, const char *by);
int xrl_mp_flags(struct mp *p, const struct mword *w);
int xrl_mp_payload(struct mp *p, const struct mword *w);

#endif /* XRL_RULES_MATCH_PARSE_H */
