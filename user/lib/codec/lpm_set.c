// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include "base/err.h"
#include "codec/lpm_set.h"
#include "codec/match_maps.h"
#include "base/objinfo.h"

__u32 xrl_maps_max_prefixes(const struct xrl_maps *m)
{
	struct bpf_map_info info;

	return xrl_obj_info(m->lpm_ranges, &info, sizeof(info)) ? 0 : xrl_lpm_max_prefixes(info.max_entries);
}

bool xrl_spec_in_lpm(const struct xrl_spec *s)
{
	return s->kind == XRL_KIND_PREFIX || s->kind == XRL_KIND_DST;
}

int xrl_lpm_check(const struct xrl_lpm_map *lm, const struct xrl_ruleset *set, char *err, size_t len)
{
	size_t n = xrl_ruleset_prefixes(set);
	__u32 max = xrl_lpm_max_prefixes(lm->nranges);

	if (n > max)
		return xrl_fail(
			-ENOSPC, err, len,
			"the rules hold %zu prefixes (a set's counted for each rule that uses it), more than the %u this instance takes: load it with --max-prefixes %zu or more; nothing was applied",
			n, max, n);
	return 0;
}

/* A prefix of a kind's structure, with whether a single rule holds it (it wins over a set's). */
struct entry {
	struct xrl_lpm_entry e;
	int set_rule;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = (int)x->e.p.family - (int)y->e.p.family;

	if (!c)
		c = memcmp(x->e.p.addr, y->e.p.addr, 16);
	if (!c)
		c = (int)x->e.p.plen - (int)y->e.p.plen;
	return c ? c : x->set_rule - y->set_rule;
}

/* One kind's structure for rule set half: the slots of its rules, slot[i] for set->v[i]. */
static int build_kind(struct xrl_lpm_map *lm, __u8 kind, __u8 half, const struct xrl_ruleset *set, const __u16 *slot,
		      __u64 *used)
{
	int want = kind == XRL_LPM_SRC ? XRL_KIND_PREFIX : XRL_KIND_DST;
	struct xrl_lpm_entry *out;
	struct entry *v;
	size_t i, j, n = 0, m = 0;
	int ret;

	for (i = 0; i < set->n; i++)
		if (set->v[i].kind == want)
			n += set->v[i].set[0] ? xrl_ruleset_set(set, set->v[i].set)->n : 1;
	v = malloc((n ? n : 1) * sizeof(*v));
	out = malloc((n ? n : 1) * sizeof(*out));
	if (!v || !out) {
		free(v);
		free(out);
		return -ENOMEM;
	}
	for (i = 0, n = 0; i < set->n; i++) {
		const struct xrl_spec *s = &set->v[i];
		const struct xrl_pset *ps;

		if (s->kind != want)
			continue;
		if (!s->set[0]) {
			memset(&v[n], 0, sizeof(v[n]));
			memcpy(v[n].e.p.addr, s->addr, 16);
			v[n].e.p.family = s->family;
			v[n].e.p.plen = s->plen;
			v[n++].e.slot = slot[i];
			continue;
		}
		ps = xrl_ruleset_set(set, s->set);
		for (j = 0; j < ps->n; j++) {
			v[n].e.p = ps->v[j];
			v[n].e.slot = slot[i];
			v[n++].set_rule = 1;
		}
	}
	/* One entry a prefix: a single rule's before a set's (the check of the rule set refused two sets'). */
	qsort(v, n, sizeof(*v), entry_cmp);
	for (i = 0; i < n; i++)
		if (!m || memcmp(&out[m - 1].p, &v[i].e.p, sizeof(v[i].e.p)))
			out[m++] = v[i].e;
	free(v);
	ret = xrl_lpm_build(lm, kind, half, out, m, used);
	free(out);
	return ret;
}

/* A prefix of a named set match rules use, and the bits of the sets that hold it. */
struct mentry {
	struct xrl_pfx p;
	__u64 bits;
};

static int mentry_cmp(const void *a, const void *b)
{
	const struct mentry *x = a, *y = b;
	int c = (int)x->p.family - (int)y->p.family;

	if (!c)
		c = memcmp(x->p.addr, y->p.addr, 16);
	return c ? c : (int)x->p.plen - (int)y->p.plen;
}

/* The class words met so far, found by a table of open addressing: a class a distinct word. */
struct classes {
	__u64 *word; /* class c's */
	__u32 n;
	__u32 *tab; /* class + 1, 0 free; TAB entries */
};
#define TAB (2U * XRL_MSET_CLASSES)

static int class_of(struct classes *c, __u64 w)
{
	__u32 h = (__u32)((w * 0x9e3779b97f4a7c15ULL) >> 40) % TAB;

	for (; c->tab[h]; h = (h + 1) % TAB)
		if (c->word[c->tab[h] - 1] == w)
			return (int)c->tab[h] - 1;
	if (c->n == XRL_MSET_CLASSES)
		return -ENOSPC;
	c->word[c->n] = w;
	c->tab[h] = ++c->n;
	return (int)c->n - 1;
}

/*
 * One direction's structure of the named sets of match rules (kind
 * XRL_MSET_SRC or _DST) into lm (xrl_match_sets' directory over
 * xrl_lpm_ranges): each prefix's word has its sets' bits and its
 * ancestors' (sorted, an ancestor comes first), so the longest prefix that
 * holds an address names every set that holds it.
 */
static int build_mkind(struct xrl_lpm_map *lm, __u8 kind, __u8 half, const struct xrl_ruleset *set, const int *bit,
		       const __u8 *dirs, struct classes *cls, __u64 *used)
{
	__u8 dir = kind == XRL_MSET_SRC ? XRL_MATCH_SETS_SRC : XRL_MATCH_SETS_DST;
	struct xrl_lpm_entry *out;
	struct mentry *v;
	size_t i, j, n = 0, m = 0, sp = 0, *st;
	int c, ret = 0;

	for (i = 0; i < set->nsets; i++)
		if (dirs[i] & dir)
			n += set->sets[i].n;
	v = malloc((n ? n : 1) * sizeof(*v));
	out = malloc((n ? n : 1) * sizeof(*out));
	st = malloc(130 * sizeof(*st));
	if (!v || !out || !st) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0, n = 0; i < set->nsets; i++)
		for (j = 0; (dirs[i] & dir) && j < set->sets[i].n; j++)
			v[n++] = (struct mentry){ set->sets[i].v[j], 1ULL << bit[i] };
	qsort(v, n, sizeof(*v), mentry_cmp);
	for (i = 0; i < n; i++) {
		if (m && !mentry_cmp(&v[m - 1], &v[i])) {
			v[m - 1].bits |= v[i].bits;
			continue;
		}
		v[m++] = v[i];
	}
	for (i = 0; i < m; i++) {
		while (sp && (v[st[sp - 1]].p.family != v[i].p.family || !xrl_pfx_holds(&v[st[sp - 1]].p, v[i].p.addr)))
			sp--;
		if (sp)
			v[i].bits |= v[st[sp - 1]].bits;
		st[sp++] = i;
		c = class_of(cls, v[i].bits);
		if (c < 0) {
			ret = c;
			goto out;
		}
		out[i] = (struct xrl_lpm_entry){ .p = v[i].p, .slot = (__u16)c };
	}
	ret = xrl_lpm_build(lm, kind, half, out, m, used);
out:
	free(v);
	free(out);
	free(st);
	return ret;
}

int xrl_msets_build(const struct xrl_lpm_map *lm, __u64 *msets, __u8 half, const struct xrl_ruleset *set, __u64 *used)
{
	int bit[XRL_MAX_SETS], ret = 0;
	__u8 dirs[XRL_MAX_SETS], all = 0;
	struct classes cls = {};
	struct xrl_lpm_map ml = *lm;
	__u32 k;

	if (xrl_match_set_bits(set, bit, dirs) <= 0)
		return 0;
	for (k = 0; k < XRL_MAX_SETS; k++)
		all |= dirs[k];
	cls.word = malloc(XRL_MSET_CLASSES * sizeof(*cls.word));
	cls.tab = calloc(TAB, sizeof(*cls.tab));
	if (!cls.word || !cls.tab) {
		ret = -ENOMEM;
		goto out;
	}
	class_of(&cls, 0); /* class 0: in no set, where no prefix is */
	ml.dir = msets;
	if (all & XRL_MATCH_SETS_SRC)
		ret = build_mkind(&ml, XRL_MSET_SRC, half, set, bit, dirs, &cls, used);
	if (!ret && (all & XRL_MATCH_SETS_DST))
		ret = build_mkind(&ml, XRL_MSET_DST, half, set, bit, dirs, &cls, used);
	if (!ret)
		memcpy(&msets[XRL_MSET_CLASS(half, 0)], cls.word, cls.n * sizeof(*cls.word));
out:
	free(cls.word);
	free(cls.tab);
	return ret;
}

/* The named sets match rules use as an address, into xrl_match_sets through its mmap. */
static int build_msets(const struct xrl_maps *m, const struct xrl_lpm_map *lm, __u8 half, const struct xrl_ruleset *set,
		       __u64 *used)
{
	int bit[XRL_MAX_SETS], ret;
	__u8 dirs[XRL_MAX_SETS];
	__u64 *map;

	if (xrl_match_set_bits(set, bit, dirs) <= 0)
		return 0;
	if (m->match_sets < 0)
		return -ENOENT;
	map = mmap(NULL, XRL_MSET_WORDS * 8ULL, PROT_READ | PROT_WRITE, MAP_SHARED, m->match_sets, 0);
	if (map == MAP_FAILED)
		return -errno;
	ret = xrl_msets_build(lm, map, half, set, used);
	munmap(map, XRL_MSET_WORDS * 8ULL);
	return ret;
}

int xrl_lpm_write(const struct xrl_maps *m, struct xrl_lpm_map *lm, __u8 half, const struct xrl_ruleset *set, char *err,
		  size_t len)
{
	__u16 *slot = calloc(set->n ? set->n : 1, sizeof(*slot));
	__u64 used = 1, items = 0;
	size_t i, nslots = 0;
	__u32 k;
	int ret = xrl_lpm_check(lm, set, err, len);

	if (!slot)
		return xrl_fail(-ENOMEM, err, len, "out of memory");
	if (ret)
		goto out;
	for (k = 0; k < set->nsets && !ret; k++) {
		struct xrl_set meta = { .used = XRL_SET_USED_PREFIXES };
		__u32 ix = XRL_SET_IX(half, k);

		snprintf(meta.name, sizeof(meta.name), "%s", set->sets[k].name);
		snprintf(meta.path, sizeof(meta.path), "%s", set->sets[k].path);
		ret = xrl_items_put(lm, half, &set->sets[k], &items, &meta);
		if (!ret && bpf_map_update_elem(m->sets, &ix, &meta, BPF_ANY))
			ret = -errno;
	}
	for (i = 0; i < set->n && !ret; i++) {
		const struct xrl_spec *s = &set->v[i];
		struct xrl_lpm_rule lr = { .r = s->r, .used = 1 };
		__u32 ix;

		if (!xrl_spec_in_lpm(s))
			continue;
		slot[i] = (__u16)XRL_LPM_SLOT(half, nslots++);
		lr.kind = s->kind == XRL_KIND_DST ? XRL_LPM_DST : XRL_LPM_SRC;
		if (s->set[0]) {
			lr.set = 1 + (__u32)(xrl_ruleset_set(set, s->set) - set->sets);
		} else {
			memcpy(lr.addr, s->addr, 16);
			lr.family = s->family;
			lr.plen = s->plen;
		}
		ix = slot[i];
		if (bpf_map_update_elem(m->lpm_rules, &ix, &lr, BPF_ANY))
			ret = -errno;
	}
	if (!ret)
		ret = build_kind(lm, XRL_LPM_SRC, half, set, slot, &used);
	if (!ret)
		ret = build_kind(lm, XRL_LPM_DST, half, set, slot, &used);
	if (!ret)
		ret = build_msets(m, lm, half, set, &used);
	/* The named sets of match rules add directories the worst case of --max-prefixes does not count. */
	if (ret == -ENOSPC)
		xrl_fail(
			ret, err, len,
			"cannot write the prefix rules: the range structure is full (the named sets of the rules of several fields fill it, or they make more than %u distinct sets of sets): load with a larger --max-prefixes; the old rules stay in force",
			XRL_MSET_CLASSES);
	else if (ret)
		xrl_fail(ret, err, len, "cannot write the prefix rules: %s; the old rules stay in force",
			 strerror(-ret));
out:
	free(slot);
	return ret;
}

int xrl_lpm_clear_half(const struct xrl_maps *m, struct xrl_lpm_map *lm, __u8 half)
{
	struct xrl_lpm_rule zero = {};
	struct xrl_set none = {};
	__u32 i, ix;

	xrl_lpm_clear(lm, half);
	for (i = 0; i < XRL_MAX_RULES; i++) {
		struct xrl_lpm_rule lr;

		ix = XRL_LPM_SLOT(half, i);
		if (bpf_map_lookup_elem(m->lpm_rules, &ix, &lr))
			return -errno;
		if (lr.used && bpf_map_update_elem(m->lpm_rules, &ix, &zero, BPF_ANY))
			return -errno;
	}
	for (i = 0; i < XRL_MAX_SETS; i++) {
		ix = XRL_SET_IX(half, i);
		if (bpf_map_update_elem(m->sets, &ix, &none, BPF_ANY))
			return -errno;
	}
	return 0;
}

/* Set k of rule set half, into out (once), its prefixes when items. */
static int read_pset(const struct xrl_maps *m, const struct xrl_lpm_map *lm, __u8 half, __u32 k, bool items,
		     struct xrl_ruleset *out, const char **name)
{
	struct xrl_pset ps = {}, *tmp;
	struct xrl_set meta;
	__u32 ix = XRL_SET_IX(half, k);

	if (k >= XRL_MAX_SETS || bpf_map_lookup_elem(m->sets, &ix, &meta) || !meta.used)
		return -EPROTO;
	meta.name[sizeof(meta.name) - 1] = meta.path[sizeof(meta.path) - 1] = '\0';
	if ((tmp = xrl_ruleset_set(out, meta.name))) {
		*name = tmp->name;
		return 0;
	}
	memcpy(ps.name, meta.name, sizeof(ps.name));
	memcpy(ps.path, meta.path, sizeof(ps.path));
	/* A port set's ranges are few: read whatever items says (explain judges its rules by them). */
	if ((items || meta.used == XRL_SET_USED_PORTS) && xrl_items_get(lm, half, &meta, &ps)) {
		free(ps.v);
		return -ENOMEM;
	}
	if (!items && meta.used != XRL_SET_USED_PORTS)
		ps.n = meta.n4 + meta.n6; /* counted, not read: v stays NULL */
	tmp = realloc(out->sets, (out->nsets + 1) * sizeof(*tmp));
	if (!tmp) {
		free(ps.v);
		return -ENOMEM;
	}
	out->sets = tmp;
	out->sets[out->nsets++] = ps;
	*name = out->sets[out->nsets - 1].name;
	return 0;
}

int xrl_lpm_match(const struct xrl_maps *m, __u8 half, __u8 kind, __u8 family, const __u8 *addr, __u32 *id,
		  struct xrl_pfx *held)
{
	struct xrl_lpm_map lm;
	struct xrl_lpm_rule lr;
	struct xrl_pset ps = {};
	struct xrl_set meta;
	__u32 slot, ix, i;
	int ret = xrl_lpm_map_open(m->lpm_dir, m->lpm_ranges, m->set_items, &lm);

	if (ret)
		return ret;
	slot = xrl_lpm_find(&lm, kind, half, family, addr);
	ret = !slot || bpf_map_lookup_elem(m->lpm_rules, &slot, &lr) || !lr.used ? -ENOENT : 0;
	if (!ret && !lr.set) {
		memcpy(held->addr, lr.addr, 16);
		held->family = lr.family;
		held->plen = lr.plen;
	}
	ix = XRL_SET_IX(half, lr.set - 1);
	if (!ret && lr.set && !bpf_map_lookup_elem(m->sets, &ix, &meta) && !xrl_items_get(&lm, half, &meta, &ps)) {
		/* Its set's prefixes are sorted: the last to hold addr is the longest. */
		for (i = 0; i < ps.n; i++)
			if (ps.v[i].family == family && xrl_pfx_holds(&ps.v[i], addr))
				*held = ps.v[i];
	}
	if (!ret)
		*id = lr.r.id;
	free(ps.v);
	xrl_lpm_map_close(&lm);
	return ret;
}

/* Appends the set of rule set half named name to out, unless out has it. */
static int read_named(const struct xrl_maps *m, const struct xrl_lpm_map *lm, __u8 half, const char *name, bool items,
		      struct xrl_ruleset *out)
{
	struct xrl_set meta;
	const char *got;
	__u32 k, ix;

	if (!name[0] || xrl_ruleset_set(out, name))
		return 0;
	for (k = 0; k < XRL_MAX_SETS; k++) {
		ix = XRL_SET_IX(half, k);
		if (bpf_map_lookup_elem(m->sets, &ix, &meta))
			return -errno;
		if (meta.used && !strncmp(meta.name, name, sizeof(meta.name)))
			return read_pset(m, lm, half, k, items, out, &got);
	}
	return -EPROTO;
}

int xrl_lpm_read_match_sets(const struct xrl_maps *m, __u8 half, bool items, struct xrl_ruleset *out)
{
	struct xrl_lpm_map lm = {};
	bool open = false;
	size_t i;
	int ret = 0;

	for (i = 0; i < out->n && !open; i++)
		open = items ||
		       (out->v[i].kind == XRL_KIND_MATCH && (out->v[i].m.sport_set[0] || out->v[i].m.dport_set[0]));
	if (open && (ret = xrl_lpm_map_open(m->lpm_dir, m->lpm_ranges, m->set_items, &lm)))
		return ret;
	for (i = 0; i < out->n && !ret; i++)
		if (out->v[i].kind == XRL_KIND_MATCH) {
			ret = read_named(m, &lm, half, out->v[i].m.src.set, items, out);
			if (!ret)
				ret = read_named(m, &lm, half, out->v[i].m.dst.set, items, out);
			if (!ret)
				ret = read_named(m, &lm, half, out->v[i].m.sport_set, items, out);
			if (!ret)
				ret = read_named(m, &lm, half, out->v[i].m.dport_set, items, out);
		}
	if (open)
		xrl_lpm_map_close(&lm);
	return ret;
}

int xrl_lpm_read(const struct xrl_maps *m, __u8 half, bool items, struct xrl_ruleset *out)
{
	struct xrl_lpm_map lm = {};
	char err[XRL_ERRLEN];
	__u32 i, ix;
	int ret = 0;

	if (items && (ret = xrl_lpm_map_open(m->lpm_dir, m->lpm_ranges, m->set_items, &lm)))
		return ret;
	for (i = 0; i < XRL_MAX_RULES && !ret; i++) {
		struct xrl_lpm_rule lr;
		struct xrl_spec s = {};
		const char *name;

		ix = XRL_LPM_SLOT(half, i);
		if (bpf_map_lookup_elem(m->lpm_rules, &ix, &lr)) {
			ret = -errno;
			break;
		}
		if (!lr.used)
			continue;
		s.r = lr.r;
		s.kind = lr.kind == XRL_LPM_DST ? XRL_KIND_DST : XRL_KIND_PREFIX;
		if (lr.set) {
			ret = read_pset(m, &lm, half, lr.set - 1, items, out, &name);
			if (ret)
				break;
			snprintf(s.set, sizeof(s.set), "%s", name);
		} else {
			memcpy(s.addr, lr.addr, 16);
			s.family = lr.family;
			s.plen = lr.plen;
		}
		ret = xrl_ruleset_add(out, &s, err, sizeof(err));
	}
	if (items)
		xrl_lpm_map_close(&lm);
	return ret;
}
