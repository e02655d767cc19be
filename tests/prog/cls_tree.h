/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The builders of the classifiers measured against LBVS (tests/prog/cls_alt.h):
 * the scan's rule array and a HiCuts tree. Rules come from the tests'
 * generator (tests/unit/lbvs_ref.h: include it first), in LBVS's bit order.
 *
 * The tree (Gupta and McKeown's HiCuts): a node covers a box, each field an
 * aligned power-of-2 span of its values, and the rules that accept some
 * packet in it. A node of more than CLS_BINTH rules is cut into 2^k equal
 * children along one field: among the fields with a rule's range ending
 * strictly inside the box (cutting any other separates nothing), the one
 * whose largest child holds the fewest rules, k the largest that keeps the
 * rules copied into children (and the children) within spfac times the node's (a rule
 * spanning several children is in each). A cut whose largest child keeps
 * more than 3/4 of the rules is not made (unless every rule falls in that
 * child: the box narrows at no cost in copies). Siblings with the same rules
 * share one subtree. A leaf lists its rules, ascending, for a linear check.
 * Every rule a packet matches applies (multi-match), so no rule can be
 * dropped from a box because another covers it, as a first-match tree does.
 */
#ifndef XRL_TEST_CLS_TREE_H
#define XRL_TEST_CLS_TREE_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cls_alt.h"

#define CLS_BINTH 8
/* The space factor of HiCuts: 2 by default (cls_tree_build's spfac 0). */
#define CLS_SPFAC 2
/* A cut's largest child must hold at most CLS_GAIN_NUM / CLS_GAIN_DEN of the node's rules. */
#define CLS_GAIN_NUM 3
#define CLS_GAIN_DEN 4
/* Leaf entries the tree may take before it stops cutting (64 MB). */
#define CLS_LEAF_CAP (16U << 20)

/* A rule in the scan's form: its ranges as the test wrote them, the TCP flags by mask and value. */
static inline void cls_rule_of(const struct ref_rule *in, struct cls_rule *out)
{
	int f;
	__u32 j;

	memset(out, 0, sizeof(*out));
	for (f = 0; f < XRL_LBVS_FIELDS; f++) {
		const struct ref_field *rf = &in->f[f];

		if (!rf->on)
			continue;
		if (rf->flags) {
			out->flags_on = 1;
			out->flags_mask = rf->mask;
			out->flags_value = rf->value;
			continue;
		}
		out->n[f] = (__u8)rf->n;
		out->neg[f] = (__u8)rf->neg;
		for (j = 0; j < rf->n && j < CLS_RANGES; j++) {
			out->lo[f][j] = (__u16)rf->r[j].lo;
			out->hi[f][j] = (__u16)rf->r[j].hi;
		}
	}
}

/* The rules of s in bit order (b's rule_of): the array the scan reads, *n of them. */
static inline struct cls_rule *cls_rules_build(const struct ref_set *s, const struct xrl_lbvs_set *b)
{
	struct cls_rule *r = calloc(s->n ? s->n : 1, sizeof(*r));
	__u32 i;

	for (i = 0; r && i < s->n; i++)
		cls_rule_of(&s->rules[b->rule_of[i]], &r[i]);
	return r;
}

/* Rule i's field f: the range lo-hi. */
static inline void cls_set_range(struct ref_set *s, __u32 i, int f, __u32 lo, __u32 hi)
{
	struct ref_field *rf = &s->rules[i].f[f];

	rf->on = 1;
	rf->n = 1;
	rf->r[0] = (struct xrl_lbvs_range){ lo, hi };
	s->in[i].f[f] = (struct xrl_lbvs_cond){ rf->r, 1, 0 };
}

/*
 * n rules as bench/run.sh's match rows write them, a destination port each:
 * proto udp dport 9 + i sport 40000 ttl 1-128 length 20-1500 dscp 0.
 */
static inline int cls_dport_set(struct ref_set *s, __u32 n)
{
	__u32 i;
	int f;

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->rules = calloc(n ? n : 1, sizeof(*s->rules));
	s->in = calloc(n ? n : 1, sizeof(*s->in));
	for (f = 0; f < XRL_LBVS_FIELDS; f++) {
		s->npool[f] = 1;
		s->pool[f] = calloc(1, sizeof(__u32));
		if (!s->pool[f])
			return -ENOMEM;
	}
	if (!s->rules || !s->in)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		cls_set_range(s, i, XRL_LBVS_PROTO, 17, 17);
		cls_set_range(s, i, XRL_LBVS_DPORT, 9 + i, 9 + i);
		cls_set_range(s, i, XRL_LBVS_SPORT, 40000, 40000);
		cls_set_range(s, i, XRL_LBVS_TTL, 1, 128);
		cls_set_range(s, i, XRL_LBVS_LENGTH, 20, 1500);
		cls_set_range(s, i, XRL_LBVS_DSCP, 0, 0);
	}
	return 0;
}

/* A packet of the generator's flood (UDP 40000 to dport, TTL 64, 64-byte frames: IP length 50). */
static inline void cls_dport_pkt(struct xrl_lbvs_pkt *pk, __u32 dport)
{
	memset(pk, 0, sizeof(*pk));
	pk->v[XRL_LBVS_PROTO] = 17;
	pk->v[XRL_LBVS_DPORT] = (__u16)dport;
	pk->v[XRL_LBVS_SPORT] = 40000;
	pk->v[XRL_LBVS_TTL] = 64;
	pk->v[XRL_LBVS_LENGTH] = 50;
}

struct cls_tree {
	struct cls_node *nodes;
	__u32 nnodes, capnodes;
	__u32 *leaf;
	__u64 nleaf, capleaf;
	__u32 depth, maxleaf;
	__u32 spfac;
	int capped; /* CLS_LEAF_CAP was reached: nodes past it were left leaves */
	/* Each bit's fields as disjoint ascending ranges: off, count (all: ~0) into pool. */
	__u32 *off, *cnt;
	struct xrl_lbvs_range *pool;
	__u32 npool;
	/* Scratch of a cut: a count a child (and one past), endpoints. */
	__u32 *cnt_child, *ends;
};

#define CLS_ALL (~0U)
/* A field's disjoint ranges at most: the TCP flags' 128, or one more negated. */
#define CLS_MAX_SPANS (XRL_LBVS_FLAGS_RANGES + 1)

static inline __u32 cls_log_domain(int f)
{
	__u32 w = 0;

	while ((1U << w) < xrl_lbvs_domain(f))
		w++;
	return w;
}

static int cls_cmp_range(const void *a, const void *b)
{
	const struct xrl_lbvs_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cls_cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* Rule field rf as disjoint ascending ranges at the end of the pool (room for 2 x n + 1). */
static inline void cls_norm(struct cls_tree *t, size_t at, const struct ref_field *rf, int f)
{
	struct xrl_lbvs_range tmp[XRL_LBVS_FLAGS_RANGES], *out = t->pool + t->npool;
	__u32 j, k = 0, next = 0, dom = xrl_lbvs_domain(f);

	if (!rf->on) {
		t->cnt[at] = CLS_ALL;
		return;
	}
	memcpy(tmp, rf->r, rf->n * sizeof(tmp[0]));
	qsort(tmp, rf->n, sizeof(tmp[0]), cls_cmp_range);
	for (j = 0; j < rf->n; j++) {
		if (k && tmp[j].lo <= out[k - 1].hi + 1) {
			if (tmp[j].hi > out[k - 1].hi)
				out[k - 1].hi = tmp[j].hi;
		} else {
			out[k++] = tmp[j];
		}
	}
	if (rf->neg) {
		/* The complement, written over the ranges: each gap, then the tail. */
		struct xrl_lbvs_range in[XRL_LBVS_FLAGS_RANGES];
		__u32 m = k;

		memcpy(in, out, m * sizeof(in[0]));
		k = 0;
		for (j = 0; j < m; j++) {
			if (in[j].lo > next)
				out[k++] = (struct xrl_lbvs_range){ next, in[j].lo - 1 };
			next = in[j].hi + 1;
		}
		if (next < dom)
			out[k++] = (struct xrl_lbvs_range){ next, dom - 1 };
	}
	t->off[at] = t->npool;
	t->cnt[at] = k;
	t->npool += k;
}

/* The children [c0, c1] of rule bit's field f in box [lo, lo + 2^lw) cut at shift, disjoint ascending: how many. */
static inline __u32 cls_spans(const struct cls_tree *t, __u32 bit, int f, __u32 lo, __u32 lw, __u32 shift,
			      __u32 (*out)[2])
{
	size_t at = (size_t)bit * XRL_LBVS_FIELDS + f;
	__u32 hi = lo + (1U << lw) - 1, j, n = 0, a, b, c0, c1;

	if (t->cnt[at] == CLS_ALL) {
		out[0][0] = 0;
		out[0][1] = (1U << (lw - shift)) - 1;
		return 1;
	}
	for (j = 0; j < t->cnt[at]; j++) {
		const struct xrl_lbvs_range *r = &t->pool[t->off[at] + j];

		a = r->lo > lo ? r->lo : lo;
		b = r->hi < hi ? r->hi : hi;
		if (a > b)
			continue;
		c0 = (a - lo) >> shift;
		c1 = (b - lo) >> shift;
		if (n && c0 <= out[n - 1][1])
			c0 = out[n - 1][1] + 1;
		if (c0 > c1)
			continue;
		out[n][0] = c0;
		out[n++][1] = c1;
	}
	return n;
}

/* Endpoints strictly inside field f's box among list's rules: how many distinct. */
static inline __u32 cls_inner_ends(struct cls_tree *t, const __u32 *list, __u32 n, int f, __u32 lo, __u32 lw)
{
	__u32 i, j, m = 0, d = 0, hi = lo + (1U << lw) - 1;

	for (i = 0; i < n; i++) {
		size_t at = (size_t)list[i] * XRL_LBVS_FIELDS + f;

		if (t->cnt[at] == CLS_ALL)
			continue;
		for (j = 0; j < t->cnt[at]; j++) {
			const struct xrl_lbvs_range *r = &t->pool[t->off[at] + j];

			if (r->lo > lo && r->lo <= hi)
				t->ends[m++] = r->lo;
			if (r->hi >= lo && r->hi < hi)
				t->ends[m++] = r->hi + 1;
		}
	}
	qsort(t->ends, m, sizeof(t->ends[0]), cls_cmp_u32);
	for (j = 0; j < m; j++)
		d += !j || t->ends[j] != t->ends[j - 1];
	return d;
}

/* Cutting field f into 2^k: the rules copied into children (*sum), the children not empty (*busy), the largest. */
static inline __u32 cls_try(struct cls_tree *t, const __u32 *list, __u32 n, int f, __u32 lo, __u32 lw, __u32 k,
			    __u64 *sum, __u32 *busy)
{
	__u32 np = 1U << k, i, j, m, c, run = 0, max = 0, sp[CLS_MAX_SPANS][2];

	memset(t->cnt_child, 0, (np + 1) * sizeof(__u32));
	*sum = 0;
	for (i = 0; i < n; i++) {
		m = cls_spans(t, list[i], f, lo, lw, lw - k, sp);
		for (j = 0; j < m; j++) {
			t->cnt_child[sp[j][0]]++;
			t->cnt_child[sp[j][1] + 1]--;
			*sum += sp[j][1] - sp[j][0] + 1;
		}
	}
	*busy = 0;
	for (c = 0; c < np; c++) {
		run += t->cnt_child[c];
		*busy += run != 0;
		if (run > max)
			max = run;
	}
	return max;
}

static int cls_tree_node(struct cls_tree *t, __u32 at, const __u32 *lo, const __u32 *lw, const __u32 *list, __u32 n,
			 __u32 depth);

static inline int cls_tree_leaf(struct cls_tree *t, __u32 at, const __u32 *list, __u32 n, __u32 depth)
{
	if (t->nleaf + n > t->capleaf) {
		__u64 cap = (t->nleaf + n) * 2;
		__u32 *p = realloc(t->leaf, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->leaf = p;
		t->capleaf = cap;
	}
	if (n) /* an empty leaf may come before any leaf array */
		memcpy(t->leaf + t->nleaf, list, n * sizeof(*list));
	t->nodes[at] = (struct cls_node){ .leaf = 1, .mask = n, .child = (__u32)t->nleaf };
	t->nleaf += n;
	if (n > t->maxleaf)
		t->maxleaf = n;
	if (depth > t->depth)
		t->depth = depth;
	return 0;
}

static int cls_tree_node(struct cls_tree *t, __u32 at, const __u32 *lo, const __u32 *lw, const __u32 *list, __u32 n,
			 __u32 depth)
{
	__u32 best_f = CLS_ALL, best_k = 0, best_max = CLS_ALL, best_ends = 0, best_busy = 0, k, np, base, c, i, j, m,
	      *off, *kids;
	__u32 sp[CLS_MAX_SPANS][2];
	__u32 clo[XRL_LBVS_FIELDS], clw[XRL_LBVS_FIELDS];
	__u64 sum, best_sum = 0;
	int f, err = 0;

	if (t->nleaf > CLS_LEAF_CAP)
		t->capped = 1;
	if (n <= CLS_BINTH || depth + 1 >= CLS_DEPTH || t->capped)
		return cls_tree_leaf(t, at, list, n, depth);
	for (f = 0; f < XRL_LBVS_FIELDS; f++) {
		__u32 ends, max, busy, fk = 0, fmax = CLS_ALL, fbusy = 0;
		__u64 fsum = 0;

		if (!lw[f])
			continue;
		ends = cls_inner_ends(t, list, n, f, lo[f], lw[f]);
		if (!ends)
			continue;
		for (k = 1; k <= lw[f] && k <= 16; k++) {
			max = cls_try(t, list, n, f, lo[f], lw[f], k, &sum, &busy);
			if (k > 1 && sum + (1U << k) > (__u64)t->spfac * n)
				break;
			fk = k;
			fmax = max;
			fsum = sum;
			fbusy = busy;
		}
		if (fmax < best_max || (fmax == best_max && ends > best_ends)) {
			best_f = (__u32)f;
			best_k = fk;
			best_max = fmax;
			best_ends = ends;
			best_sum = fsum;
			best_busy = fbusy;
		}
	}
	/* A cut that spreads the rules, its largest child keeping most of them: copies for little gain. */
	if (best_f == CLS_ALL || (best_busy > 1 && (__u64)best_max * CLS_GAIN_DEN > (__u64)n * CLS_GAIN_NUM))
		return cls_tree_leaf(t, at, list, n, depth);
	np = 1U << best_k;
	if (t->nnodes + np > t->capnodes) {
		__u32 cap = (t->nnodes + np) * 2;
		struct cls_node *p = realloc(t->nodes, (size_t)cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->nodes = p;
		t->capnodes = cap;
	}
	base = t->nnodes;
	t->nnodes += np;
	t->nodes[at] = (struct cls_node){
		.field = (__u8)best_f, .shift = (__u8)(lw[best_f] - best_k), .mask = np - 1, .child = base
	};
	/* The children's lists, each ascending: counted, then filled in list order. */
	off = calloc(np + 1, sizeof(*off));
	kids = malloc((best_sum ? best_sum : 1) * sizeof(*kids));
	if (!off || !kids) {
		free(off);
		free(kids);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		m = cls_spans(t, list[i], (int)best_f, lo[best_f], lw[best_f], lw[best_f] - best_k, sp);
		for (j = 0; j < m; j++)
			for (c = sp[j][0]; c <= sp[j][1]; c++)
				off[c + 1]++;
	}
	for (c = 0; c < np; c++)
		off[c + 1] += off[c];
	{
		__u32 *fill = calloc(np, sizeof(*fill));

		if (!fill) {
			free(off);
			free(kids);
			return -ENOMEM;
		}
		for (i = 0; i < n; i++) {
			m = cls_spans(t, list[i], (int)best_f, lo[best_f], lw[best_f], lw[best_f] - best_k, sp);
			for (j = 0; j < m; j++)
				for (c = sp[j][0]; c <= sp[j][1]; c++)
					kids[off[c] + fill[c]++] = list[i];
		}
		free(fill);
	}
	memcpy(clo, lo, sizeof(clo));
	memcpy(clw, lw, sizeof(clw));
	clw[best_f] = lw[best_f] - best_k;
	for (c = 0; c < np && !err; c++) {
		__u32 m = off[c + 1] - off[c];

		if (c && m == off[c] - off[c - 1] && !memcmp(kids + off[c], kids + off[c - 1], m * sizeof(*kids))) {
			t->nodes[base + c] = t->nodes[base + c - 1];
			continue;
		}
		clo[best_f] = lo[best_f] + (c << clw[best_f]);
		err = cls_tree_node(t, base + c, clo, clw, kids + off[c], m, depth + 1);
	}
	free(off);
	free(kids);
	return err;
}

static inline void cls_tree_free(struct cls_tree *t)
{
	free(t->nodes);
	free(t->leaf);
	free(t->off);
	free(t->cnt);
	free(t->pool);
	free(t->cnt_child);
	free(t->ends);
	memset(t, 0, sizeof(*t));
}

/* The tree of s's rules, numbered by b's bits, HiCuts' space factor spfac (0: CLS_SPFAC): 0 or -ENOMEM. */
static inline int cls_tree_build(struct cls_tree *t, const struct ref_set *s, const struct xrl_lbvs_set *b, __u32 spfac)
{
	__u32 lo[XRL_LBVS_FIELDS] = { 0 }, lw[XRL_LBVS_FIELDS], *list, i, pool = 0;
	int f, err;

	memset(t, 0, sizeof(*t));
	t->spfac = spfac ? spfac : CLS_SPFAC;
	for (i = 0; i < s->n; i++)
		for (f = 0; f < XRL_LBVS_FIELDS; f++)
			pool += 2 * s->rules[i].f[f].n + 1;
	t->off = calloc((size_t)(s->n ? s->n : 1) * XRL_LBVS_FIELDS, sizeof(*t->off));
	t->cnt = calloc((size_t)(s->n ? s->n : 1) * XRL_LBVS_FIELDS, sizeof(*t->cnt));
	t->pool = malloc((pool ? pool : 1) * sizeof(*t->pool));
	t->cnt_child = malloc(((1U << 16) + 2) * sizeof(*t->cnt_child));
	t->ends = malloc((2 * (size_t)pool + 2) * sizeof(*t->ends));
	t->capnodes = 1024;
	t->nodes = malloc(t->capnodes * sizeof(*t->nodes));
	t->nnodes = 1;
	list = malloc((s->n ? s->n : 1) * sizeof(*list));
	if (!t->off || !t->cnt || !t->pool || !t->cnt_child || !t->ends || !t->nodes || !list) {
		free(list);
		cls_tree_free(t);
		return -ENOMEM;
	}
	for (i = 0; i < s->n; i++) {
		list[i] = i;
		for (f = 0; f < XRL_LBVS_FIELDS; f++)
			cls_norm(t, (size_t)i * XRL_LBVS_FIELDS + f, &s->rules[b->rule_of[i]].f[f], f);
	}
	for (f = 0; f < XRL_LBVS_FIELDS; f++)
		lw[f] = cls_log_domain(f);
	err = cls_tree_node(t, 0, lo, lw, list, s->n, 0);
	free(list);
	if (err)
		cls_tree_free(t);
	return err;
}

/* The tree's map bytes: nodes and leaf entries (the rules' array apart). */
static inline __u64 cls_tree_bytes(const struct cls_tree *t)
{
	return (__u64)t->nnodes * sizeof(struct cls_node) + t->nleaf * sizeof(__u32);
}

#endif /* XRL_TEST_CLS_TREE_H */
