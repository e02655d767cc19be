// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Rule sets, load lines, and the rules-file reader. */
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
#include "xrl_lpm.h"

/* The rules by match (xrl_spec_same_match): chains of a hash; and how many each map holds. */
struct xrl_ruleset_ix {
	const struct xrl_spec *v; /* what it indexes: v[0..n) */
	size_t n, nb;		  /* nb buckets, a power of 2 */
	size_t *head, *next;	  /* rule + 1 by bucket, the next rule + 1 in its chain; 0 ends */
	size_t ncap;		  /* next's room */
	size_t dsts, kind[8];	  /* rules in the dst trie; the others of each kind */
};

static __u64 hash_bytes(__u64 h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

/* Equal for rules xrl_spec_same_match finds the same: fields it compares exactly, a few. */
static __u64 spec_hash(const struct xrl_spec *s)
{
	__u64 h = hash_bytes(0xcbf29ce484222325ULL, &s->kind, sizeof(s->kind));

	if (s->kind == XRL_KIND_MATCH) {
		const struct xrl_match *m = &s->m;

		h = hash_bytes(h, &m->given, sizeof(m->given));
		h = hash_bytes(h, &m->proto, sizeof(m->proto));
		h = hash_bytes(h, m->dport.r, m->dport.n * sizeof(m->dport.r[0]));
		h = hash_bytes(h, m->sport.r, m->sport.n * sizeof(m->sport.r[0]));
		return hash_bytes(h, m->length.r, m->length.n * sizeof(m->length.r[0]));
	}
	if (s->kind == XRL_KIND_PROTO)
		return hash_bytes(h, &s->sel, sizeof(s->sel));
	if (s->kind == XRL_KIND_PORT) {
		h = hash_bytes(h, &s->proto, sizeof(s->proto));
		h = hash_bytes(h, &s->port, sizeof(s->port));
	}
	if (s->set[0])
		return hash_bytes(h, s->set, strlen(s->set));
	h = hash_bytes(h, &s->family, sizeof(s->family));
	return hash_bytes(h, s->addr, sizeof(s->addr));
}

static void ix_free(struct xrl_ruleset_ix *ix)
{
	if (!ix)
		return;
	free(ix->head);
	free(ix->next);
	free(ix);
}

static void ix_count(struct xrl_ruleset_ix *ix, const struct xrl_spec *s, size_t i)
{
	size_t b = (size_t)spec_hash(s) & (ix->nb - 1);

	ix->next[i] = ix->head[b];
	ix->head[b] = i + 1;
	if (xrl_spec_in_dsts(s))
		ix->dsts++;
	else if (s->kind >= 0 && (size_t)s->kind < sizeof(ix->kind) / sizeof(ix->kind[0]))
		ix->kind[s->kind]++;
}

/* set's index, made again when it is not of set->v as it is, with room for one more rule; NULL: out of memory. */
static struct xrl_ruleset_ix *ix_of(struct xrl_ruleset *set)
{
	struct xrl_ruleset_ix *ix = set->ix;
	size_t i, nb = 64;

	if (ix && ix->v == set->v && ix->n == set->n && ix->n < ix->ncap && 2 * ix->n < ix->nb)
		return ix;
	ix_free(ix);
	set->ix = NULL;
	while (nb < 4 * (set->n + 1))
		nb *= 2;
	ix = calloc(1, sizeof(*ix));
	if (!ix)
		return NULL;
	ix->nb = nb;
	ix->ncap = nb / 2;
	ix->head = calloc(nb, sizeof(*ix->head));
	ix->next = calloc(ix->ncap, sizeof(*ix->next));
	if (!ix->head || !ix->next) {
		ix_free(ix);
		return NULL;
	}
	for (i = 0; i < set->n; i++)
		ix_count(ix, &set->v[i], i);
	ix->v = set->v;
	ix->n = set->n;
	set->ix = ix;
	return ix;
}

int xrl_ruleset_find(const struct xrl_ruleset *set, const struct xrl_spec *match)
{
	const struct xrl_ruleset_ix *ix = set->ix;
	size_t i;
	int found = -1;

	if (ix && ix->v == set->v &&
	    ix->n == set->n) { /* the index is of the set as it is (apply's ids: 16,384 a set) */
		for (i = ix->head[(size_t)spec_hash(match) & (ix->nb - 1)]; i; i = ix->next[i - 1])
			if (xrl_spec_same_match(&set->v[i - 1], match))
				found = (int)(i - 1); /* the chain runs from the last added: the first wins */
		return found;
	}
	for (i = 0; i < set->n; i++)
		if (xrl_spec_same_match(&set->v[i], match))
			return (int)i;
	return -1;
}

int xrl_ruleset_add(struct xrl_ruleset *set, const struct xrl_spec *s, char *err, size_t len)
{
	struct xrl_ruleset_ix *ix = ix_of(set);
	size_t kinds, i;
	int dup = -1;

	if (!ix)
		return fail(err, len, "out of memory");
	for (i = ix->head[(size_t)spec_hash(s) & (ix->nb - 1)]; i; i = ix->next[i - 1])
		if (xrl_spec_same_match(&set->v[i - 1], s))
			dup = (int)(i - 1); /* the chain runs from the last added: the first wins */
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
	 * slot of its own (XRL_PROTO_IDX): never more than XRL_SELS. Rules of
	 * several fields have maps of their own, as large as the set.
	 */
	kinds = xrl_spec_in_dsts(s)							 ? ix->dsts :
		s->kind >= 0 && (size_t)s->kind < sizeof(ix->kind) / sizeof(ix->kind[0]) ? ix->kind[s->kind] :
											   0;
	if (s->kind != XRL_KIND_PROTO && s->kind != XRL_KIND_MATCH && kinds >= XRL_MAX_RULES)
		return fail(err, len, "too many %s rules: at most %d",
			    xrl_spec_in_dsts(s) ? "dst and narrowed port" : xrl_kind_word(s->kind), XRL_MAX_RULES);
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 16;
		struct xrl_spec *v = realloc(set->v, cap * sizeof(*v));

		if (!v)
			return fail(err, len, "out of memory");
		set->v = v;
		set->cap = cap;
		ix->v = v;
	}
	set->v[set->n++] = *s;
	ix_count(ix, s, ix->n++);
	return 0;
}

void xrl_ruleset_free(struct xrl_ruleset *set)
{
	size_t i;

	for (i = 0; i < set->nsets; i++) {
		free(set->sets[i].v);
		free(set->sets[i].lines);
	}
	free(set->sets);
	free(set->v);
	ix_free(set->ix);
	memset(set, 0, sizeof(*set));
}

/* Load lines: each keyword, its field in struct xrl_load_line, and its values' names (none: a number). */
static const struct {
	const char *word;
	unsigned int field;
	size_t off;
	const char *names[3]; /* by value; NULL past the last */
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
	{ "max-prefixes",
	  XRL_LOAD_MAX_PREFIXES,
	  offsetof(struct xrl_load_line, max_prefixes),
	  {},
	  XRL_PREFIXES_MIN,
	  XRL_PREFIXES_MAX },
	{ "malformed",
	  XRL_LOAD_MALFORMED,
	  offsetof(struct xrl_load_line, malformed),
	  { "pass", "drop", "drop-evasive" },
	  0,
	  2 },
};
#define N_LOAD_WORDS (sizeof(load_words) / sizeof(load_words[0]))

int xrl_load_line_parse(int argc, char **argv, struct xrl_load_line *out, char *err, size_t len)
{
	struct xrl_load_line l = { .clock = XRL_CLOCK_PRECISE,
				   .max_keys = XRL_DEFAULT_KEYS,
				   .malformed = XRL_MALPOL_EVASIVE,
				   .sketch_width = XRL_SKETCH_DEFAULT_WIDTH,
				   .max_prefixes = XRL_PREFIXES_DEFAULT };
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
				"load line: unknown option '%s': expected mode, clock, max-keys, new-keys, sketch-width, max-prefixes or malformed",
				argv[i]);
		if (l.set & load_words[k].field)
			return fail(err, len, "load line: '%s' is given twice: give it once", argv[i]);
		if (i + 1 == argc)
			return fail(err, len, "load line: '%s' needs a value", argv[i]);
		l.set |= load_words[k].field;
		dst = (__u32 *)((char *)&l + load_words[k].off);
		if (load_words[k].names[0]) {
			const char *const *n = load_words[k].names;
			__u32 j;

			for (j = 0; j <= load_words[k].max && strcmp(argv[i + 1], n[j]); j++)
				;
			if (j > load_words[k].max)
				return fail(err, len, "load line: %s '%s' is not %s%s%s or %s", argv[i], argv[i + 1],
					    n[0], load_words[k].max > 1 ? ", " : "", load_words[k].max > 1 ? n[1] : "",
					    n[load_words[k].max]);
			*dst = j;
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
				     load_words[k].names[v <= load_words[k].max ? v : 0]);
		else
			w = snprintf(buf + off, len - off, " %s %u", load_words[k].word, v);
	}
	return w < 0 || (size_t)w >= len - off ? -ENOSPC : 0;
}

#define MAX_WORDS 512 /* a line of XRL_MAX_LINE characters holds no more (a set written inline) */

static bool rule_word(const char *w)
{
	return xrl_is_match_word(w) && strcmp(w, "type") && strcmp(w, "code");
}

/* A word short and plain enough to be a keyword mistyped: lower-case letters and '-', 12 at most. */
static bool typo_word(const char *w)
{
	size_t n = strspn(w, "abcdefghijklmnopqrstuvwxyz-");

	return n && n <= 12 && !w[n];
}

int xrl_ruleset_parse(FILE *f, const char *name, struct xrl_ruleset *set, char *err, size_t len)
{
	struct xrl_ruleset out = {};
	char line[XRL_MAX_LINE + 2], msg[XRL_ERRLEN];
	size_t total = 0;
	int lineno = 0, got, col = 0;

	while ((got = xrl_read_line(f, line, &total, &col, XRL_MAX_RULES_FILE)) > 0) {
		char *words[MAX_WORDS], *save = NULL, *w, *hash;
		struct xrl_spec s;
		int n = 0, ret;

		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		for (w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
			if (n == MAX_WORDS) {
				xrl_ruleset_free(&out);
				return fail(err, len, "%s:%d: too many words (at most %d)", name, lineno, MAX_WORDS);
			}
			words[n++] = w;
		}
		if (!n)
			continue;
		if (!strcmp(words[0], "set")) {
			ret = xrl_set_parse(n - 1, words + 1, f, name, &lineno, &out, err, len);
			if (ret) {
				xrl_ruleset_free(&out);
				return ret;
			}
			continue;
		}
		if (!strcmp(words[0], "load")) {
			if (out.load.line) {
				int first = out.load.line;

				xrl_ruleset_free(&out);
				return fail(err, len, "%s:%d: a second load line (the first is line %d): give one",
					    name, lineno, first);
			}
			ret = xrl_load_line_parse(n - 1, words + 1, &out.load, msg, sizeof(msg));
			if (ret) {
				xrl_ruleset_free(&out);
				return fail(err, len, "%s:%d: %s", name, lineno, msg);
			}
			out.load.line = lineno;
			continue;
		}
		/*
		 * Not quoted until the file has shown itself a rules file (a rule, a
		 * set or a load line above), and then only a word that can be a
		 * mistyped one: a path given to a command that runs as root may
		 * name any file (a symlink to /etc/shadow), whose first line would
		 * go to a terminal or a log.
		 */
		if (!rule_word(words[0]) && !(out.n + out.nsets + out.load.line && typo_word(words[0]))) {
			xrl_ruleset_free(&out);
			return fail(
				err, len,
				"%s:%d: not a rule, and not shown: a line begins with port, proto, fragments, prefix, dst, set or load, or a field (src, sport, dport, tcp, icmp, length, ttl, dscp, frag, payload) ('#' a comment)",
				name, lineno);
		}
		ret = xrl_spec_parse(n, words, &s, msg, sizeof(msg));
		if (!ret) {
			s.line = lineno;
			ret = xrl_ruleset_add(&out, &s, msg, sizeof(msg));
		}
		if (ret) {
			xrl_ruleset_free(&out);
			return fail(err, len, "%s:%d: %s", name, lineno, msg);
		}
	}
	if (got < 0) {
		xrl_ruleset_free(&out);
		lineno++;
		if (got == -EILSEQ)
			return fail(err, len, "%s:%d: a NUL byte at column %d: a rules file is text", name, lineno,
				    col);
		if (got == -E2BIG)
			return fail(err, len, "%s:%d: line is too long (at most %d characters)", name, lineno,
				    XRL_MAX_LINE);
		return fail(err, len, "%s: larger than %d MiB: a rules file holds at most %d rules", name,
			    XRL_MAX_RULES_FILE >> 20, XRL_MAX_SET_RULES);
	}
	if (ferror(f)) {
		xrl_ruleset_free(&out);
		return fail(err, len, "%s: read error: %s", name, strerror(errno));
	}
	if (xrl_ruleset_check_sets(&out, name, err, len)) {
		xrl_ruleset_free(&out);
		return -EINVAL;
	}
	*set = out;
	return 0;
}
