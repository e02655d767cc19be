// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "base/err.h"
#include "codec/lpm_set.h"
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
		struct xrl_set meta = { .used = 1 };
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
	if (ret)
		xrl_fail(ret, err, len, "cannot write the prefix rules: %s; the old rules stay in force",
			 ret == -ENOSPC ? "the range structure is full (a bug: it is sized for the worst case)" :
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
	if (items && xrl_items_get(lm, half, &meta, &ps)) {
		free(ps.v);
		return -ENOMEM;
	}
	if (!items)
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
