// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The classifier's tables from per-field rule constraints. Each rule's
 * field is normalised to the disjoint ranges it accepts; the rules are
 * numbered by shape; then each field in use is swept over its ranges' end
 * points: between two end points the set of rules accepting the value is
 * one bitmap, and equal bitmaps are one class, found by a Zobrist hash (the
 * XOR of a random key a rule in the set, updated as rules enter and leave)
 * and compared word by word.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/err.h"
#include "codec/lbvs.h"

static const char *const field_name[XRL_LBVS_FIELDS] = {
#define XRL_LBVS_NAME(n, s, d) s,
	XRL_LBVS_FIELD_TABLE(XRL_LBVS_NAME)
#undef XRL_LBVS_NAME
};

int xrl_lbvs_flags_ranges(__u8 mask, __u8 value, struct xrl_lbvs_range *out)
{
	int n = 0;
	__u32 v;

	if (value & ~mask)
		return -EINVAL;
	for (v = 0; v < 256; v++) {
		if ((v & mask) != value)
			continue;
		if (n && out[n - 1].hi + 1 == v)
			out[n - 1].hi = v;
		else
			out[n++] = (struct xrl_lbvs_range){ v, v };
	}
	return n;
}

/* A rule's field as disjoint ascending ranges in the pool; all: it accepts every value. */
struct norm {
	__u32 off, n;
	int all;
};

struct build {
	const struct xrl_lbvs_rule *rules;
	__u32 n, nbits;
	struct norm *norm; /* n x XRL_LBVS_FIELDS */
	struct xrl_lbvs_range *pool;
	__u32 npool;
	__u64 *z; /* a Zobrist key a bit */
	__u64 *bits;
	__u32 nclasses, capclasses, stride;
};

static int cmp_range(const void *a, const void *b)
{
	const struct xrl_lbvs_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Field f of rule i, normalised into the pool; *c was checked. */
static void normalise(struct build *b, __u32 i, __u32 f, const struct xrl_lbvs_cond *c)
{
	struct norm *nm = &b->norm[(size_t)i * XRL_LBVS_FIELDS + f];
	struct xrl_lbvs_range *r = b->pool + b->npool, *tmp;
	__u32 dom = xrl_lbvs_domain(f), k = 0, j, next;

	nm->off = b->npool;
	if (!c->n) {
		nm->all = 1;
		return;
	}
	/* Sorted and merged after the slots that will hold the result (at most n + 1 of them). */
	tmp = r + c->n + 1;
	memcpy(tmp, c->r, c->n * sizeof(*tmp));
	qsort(tmp, c->n, sizeof(*tmp), cmp_range);
	for (j = 0; j < c->n; j++) {
		if (k && tmp[j].lo <= tmp[k - 1].hi + 1) {
			if (tmp[j].hi > tmp[k - 1].hi)
				tmp[k - 1].hi = tmp[j].hi;
		} else {
			tmp[k++] = tmp[j];
		}
	}
	if (!c->neg) {
		memmove(r, tmp, k * sizeof(*r));
	} else { /* the gaps between them */
		__u32 m = 0;

		for (j = 0, next = 0; j < k; next = tmp[j].hi + 1, j++)
			if (tmp[j].lo > next)
				r[m++] = (struct xrl_lbvs_range){ next, tmp[j].lo - 1 };
		if (next < dom)
			r[m++] = (struct xrl_lbvs_range){ next, dom - 1 };
		k = m;
	}
	nm->n = k;
	nm->all = k == 1 && r[0].lo == 0 && r[0].hi == dom - 1;
	if (nm->all)
		k = nm->n = 0;
	b->npool += k;
}

/* Rule i's sort key: its shape (the fields it constrains), then each constrained field's first value. */
struct key {
	__u32 shape;
	__u32 first[XRL_LBVS_FIELDS];
	__u32 rule;
};

static int cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	int f;

	if (x->shape != y->shape)
		return x->shape < y->shape ? -1 : 1;
	for (f = 0; f < XRL_LBVS_FIELDS; f++)
		if (x->first[f] != y->first[f])
			return x->first[f] < y->first[f] ? -1 : 1;
	return x->rule < y->rule ? -1 : x->rule > y->rule;
}

/* Bits by shape: a word then holds rules of one shape, and the summaries prune (1202 -> 53 ns in the prototype). */
static int number_by_shape(struct build *b, struct xrl_lbvs_set *s)
{
	struct key *k = calloc(b->n ? b->n : 1, sizeof(*k));
	__u32 i, f;

	if (!k)
		return -ENOMEM;
	for (i = 0; i < b->n; i++) {
		k[i].rule = i;
		for (f = 0; f < XRL_LBVS_FIELDS; f++) {
			const struct norm *nm = &b->norm[(size_t)i * XRL_LBVS_FIELDS + f];

			if (nm->all)
				continue;
			k[i].shape |= 1U << f;
			k[i].first[f] = nm->n ? b->pool[nm->off].lo : 0;
		}
	}
	qsort(k, b->n, sizeof(*k), cmp_key);
	for (i = 0; i < b->n; i++) {
		s->rule_of[i] = k[i].rule;
		s->bit_of[k[i].rule] = i;
	}
	free(k);
	return 0;
}

struct slot {
	__u64 h; /* the hash | 1: 0 is empty */
	__u32 id;
};

/* The class of bitmap cur (hash h): the one already made, else a new one with its summary. */
static long class_of(struct build *b, struct slot *ht, __u32 mask, __u64 h, const __u64 *cur, __u32 nsum)
{
	__u32 i, w, nwords = b->stride - nsum;
	__u64 *rec;

	for (i = (__u32)h & mask; ht[i].h; i = (i + 1) & mask)
		if (ht[i].h == (h | 1) &&
		    !memcmp(b->bits + (size_t)ht[i].id * b->stride + nsum, cur, nwords * sizeof(*cur)))
			return ht[i].id;
	if (b->nclasses == b->capclasses) {
		__u32 cap = b->capclasses ? 2 * b->capclasses : 1024;
		__u64 *nb = realloc(b->bits, (size_t)cap * b->stride * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		b->bits = nb;
		b->capclasses = cap;
	}
	rec = b->bits + (size_t)b->nclasses * b->stride;
	memset(rec, 0, nsum * sizeof(*rec));
	memcpy(rec + nsum, cur, nwords * sizeof(*cur));
	for (w = 0; w < nwords; w++)
		if (cur[w])
			rec[w / 64] |= 1ULL << (w % 64);
	ht[i] = (struct slot){ h | 1, b->nclasses };
	return b->nclasses++;
}

struct ev {
	__u32 pos, bit; /* bit enters or leaves the set at pos */
};

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Field f's classes after b->nclasses, its class array into s->cls from s->t.cfg.off[f]. */
static int sweep(struct build *b, struct xrl_lbvs_set *s, __u32 f)
{
	struct xrl_lbvs_cfg *cfg = &s->t.cfg;
	__u32 dom = xrl_lbvs_domain(f), nev = 0, i, j, bit, pos, next, hcap = 16, base = b->nclasses;
	__u64 *cur = calloc(cfg->nwords, sizeof(*cur)), h = 0, v;
	struct slot *ht = NULL;
	struct ev *ev;
	int err = -ENOMEM;
	long id;

	for (i = 0; i < b->n; i++)
		nev += 2 * b->norm[(size_t)i * XRL_LBVS_FIELDS + f].n;
	ev = malloc((nev ? nev : 1) * sizeof(*ev));
	while (hcap < 2 * (nev < dom ? nev + 1 : dom))
		hcap *= 2;
	ht = calloc(hcap, sizeof(*ht));
	if (!cur || !ev || !ht)
		goto out;
	for (i = 0, nev = 0; i < b->n; i++) {
		const struct norm *nm = &b->norm[(size_t)i * XRL_LBVS_FIELDS + f];

		bit = s->bit_of[i];
		if (nm->all) { /* in every class */
			cur[bit / 64] |= 1ULL << (bit % 64);
			h ^= b->z[bit];
		}
		for (j = 0; j < nm->n; j++) {
			ev[nev++] = (struct ev){ b->pool[nm->off + j].lo, bit };
			if (b->pool[nm->off + j].hi + 1 < dom)
				ev[nev++] = (struct ev){ b->pool[nm->off + j].hi + 1, bit };
		}
	}
	qsort(ev, nev, sizeof(*ev), cmp_ev);
	for (pos = 0, i = 0; pos < dom; pos = next) {
		/* A rule's ranges are disjoint and not adjacent: its bit toggles at each end point. */
		for (; i < nev && ev[i].pos == pos; i++) {
			cur[ev[i].bit / 64] ^= 1ULL << (ev[i].bit % 64);
			h ^= b->z[ev[i].bit];
		}
		next = i < nev ? ev[i].pos : dom;
		id = class_of(b, ht, hcap - 1, h, cur, cfg->nsum);
		if (id < 0)
			goto out;
		for (v = pos; v < next; v++)
			s->cls[cfg->off[f] + v / 4] |= (__u64)(id - base) << (16 * (v % 4));
	}
	err = 0;
out:
	free(cur);
	free(ev);
	free(ht);
	return err;
}

static __u64 splitmix64(__u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Every range inside its field's domain and not reversed; the pool's size for the normalised ranges. */
static int check(const struct xrl_lbvs_rule *rules, __u32 n, size_t *pool, char *err, size_t errlen)
{
	__u32 i, f, j;

	*pool = 0;
	for (i = 0; i < n; i++)
		for (f = 0; f < XRL_LBVS_FIELDS; f++) {
			const struct xrl_lbvs_cond *c = &rules[i].f[f];

			if (!c->n && c->neg)
				return xrl_fail(-EINVAL, err, errlen,
						"rule %u negates no %s values: give the values it excludes, or none", i,
						field_name[f]);
			for (j = 0; j < c->n; j++)
				if (c->r[j].lo > c->r[j].hi || c->r[j].hi >= xrl_lbvs_domain(f))
					return xrl_fail(-EINVAL, err, errlen,
							"rule %u: %s range %u-%u is not within 0-%u, low to high", i,
							field_name[f], c->r[j].lo, c->r[j].hi, xrl_lbvs_domain(f) - 1);
			*pool += c->n ? 2 * (size_t)c->n + 2 : 0;
		}
	return 0;
}

int xrl_lbvs_build(struct xrl_lbvs_set *s, const struct xrl_lbvs_rule *rules, __u32 n, char *err, size_t errlen)
{
	struct xrl_lbvs_cfg *cfg = &s->t.cfg;
	struct build b = { .rules = rules, .n = n };
	__u32 i, f, ncls = 0;
	size_t pool;
	int ret;

	memset(s, 0, sizeof(*s));
	if (n > XRL_LBVS_MAX_RULES)
		return xrl_fail(-E2BIG, err, errlen, "%u rules is more than the classifier's %u: split the set", n,
				XRL_LBVS_MAX_RULES);
	ret = check(rules, n, &pool, err, errlen);
	if (ret)
		return ret;
	s->nrules = n;
	cfg->nwords = n > 64 ? (n + 63) / 64 : 1;
	cfg->nsum = (cfg->nwords + 63) / 64;
	cfg->step = 1;
	b.stride = cfg->nsum + cfg->nwords;
	b.nbits = cfg->nwords * 64;
	b.norm = calloc((size_t)(n ? n : 1) * XRL_LBVS_FIELDS, sizeof(*b.norm));
	b.pool = malloc((pool ? pool : 1) * sizeof(*b.pool));
	b.z = malloc(b.nbits * sizeof(*b.z));
	s->bit_of = calloc(n ? n : 1, sizeof(*s->bit_of));
	s->rule_of = calloc(n ? n : 1, sizeof(*s->rule_of));
	ret = -ENOMEM;
	if (!b.norm || !b.pool || !b.z || !s->bit_of || !s->rule_of)
		goto out;
	for (i = 0; i < n; i++)
		for (f = 0; f < XRL_LBVS_FIELDS; f++) {
			normalise(&b, i, f, &rules[i].f[f]);
			if (!b.norm[(size_t)i * XRL_LBVS_FIELDS + f].all)
				cfg->used |= 1U << f;
		}
	if (!cfg->used)
		cfg->used = 1U << XRL_LBVS_FRAG;
	for (i = 0; i < b.nbits; i++)
		b.z[i] = splitmix64(i);
	ret = number_by_shape(&b, s);
	if (ret)
		goto out;
	for (f = 0; f < XRL_LBVS_FIELDS; f++)
		if (cfg->used & (1U << f)) {
			cfg->off[f] = ncls;
			ncls += (xrl_lbvs_domain(f) + 3) / 4;
		}
	s->cls = calloc(ncls, sizeof(*s->cls));
	if (!s->cls)
		goto out;
	for (f = 0; f < XRL_LBVS_FIELDS; f++) {
		if (!(cfg->used & (1U << f)))
			continue;
		cfg->base[f] = b.nclasses;
		ret = sweep(&b, s, f);
		if (ret)
			goto out;
	}
	s->bits = b.bits;
	b.bits = NULL;
	s->t.cls = (struct xrl_lbvs_array){ s->cls, ncls, 1 };
	s->t.bits = (struct xrl_lbvs_array){ s->bits, b.nclasses, b.stride };
	ret = 0;
out:
	free(b.norm);
	free(b.pool);
	free(b.z);
	free(b.bits);
	if (ret == -ENOMEM)
		xrl_fail(ret, err, errlen, "out of memory building the classifier's tables of %u rules", n);
	if (ret)
		xrl_lbvs_free(s);
	return ret;
}

void xrl_lbvs_free(struct xrl_lbvs_set *s)
{
	free(s->cls);
	free(s->bits);
	free(s->bit_of);
	free(s->rule_of);
	memset(s, 0, sizeof(*s));
}
