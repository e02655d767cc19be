// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The rules of several fields in the maps (declared in match_maps.h). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include "base/err.h"
#include "codec/match_lbvs.h"
#include "codec/match_maps.h"

/* xrl_match_specs' value: the rule as written, read back whole for dump (its struct xrl_rule from xrl_match_rules). */
_Static_assert(offsetof(struct xrl_spec, nw) <= XRL_MATCH_SPEC_BYTES,
	       "a rule as written fits xrl_match_specs' value (its next windows are in xrl_windows)");

/* Intersections the overlap check may take before it gives up (a set it cannot prove safe is refused). */
#define OVERLAP_WORK (1U << 22)

int xrl_match_fds_of(const struct xrl_maps *m, struct xrl_match_fds *f)
{
	*f = (struct xrl_match_fds){ m->lbvs_cls,    m->lbvs_bits,   m->match_cfgs,   m->match_rules,
				     m->match_specs, m->lbvs_stride, m->lbvs_entries, m->match_slots };
	return m->lbvs_cls < 0 || m->lbvs_bits < 0 || m->match_cfgs < 0 || m->match_rules < 0 || m->match_specs < 0 ?
		       -ENOENT :
		       0;
}

void xrl_match_built_free(struct xrl_match_built *mb)
{
	xrl_lbvs_free(&mb->b);
	free(mb->spec);
	memset(mb, 0, sizeof(*mb));
}

__u32 xrl_match_stride_for(const struct xrl_match_built *mb)
{
	return mb->stride > 2 ? mb->stride : 2;
}

/*
 * Entries for need, from least: powers of 2, then multiples of 4096, so
 * that 16,384 rules' bitmaps (2 KB a class) are not rounded up by half.
 */
static __u32 entries_round(__u32 need, __u32 least)
{
	__u32 e = least;

	while (e < need && e < 4096)
		e *= 2;
	return e < need ? (need + 4095) / 4096 * 4096 : e;
}

__u32 xrl_match_entries_for(const struct xrl_match_built *mb)
{
	return entries_round(2 * mb->classes, 64);
}

__u32 xrl_match_slots_for(const struct xrl_match_built *mb)
{
	return entries_round(2 * mb->n, XRL_MATCH_SLOTS_MIN);
}

struct overlap {
	const struct xrl_lbvs_set *b;
	__u32 fields[XRL_LBVS_FIELDS], nf, nwords, nsum;
	__u32 ncls[XRL_LBVS_FIELDS];
	__u64 work;
	__u64 *cand; /* a depth's: nsum summary words (bit w: word w may be non-zero), then nwords words of rules */
	__u32 worst; /* a bit of a rule in an intersection past the bound */
};

/*
 * Whether some packet meets more than XRL_LBVS_MAX_MATCH rules: the
 * intersections of one class a field, field by field, pruned where they
 * hold few enough rules. in (n rules) has a summary as the bitmaps do:
 * only the words both summaries flag are ANDed, so an intersection costs
 * the words that hold its rules, not the set's (16,384 rules of ranges
 * overlapping on two fields: 0.15 s, not 1.2). 1: some does (o->worst
 * names one of its rules), 0: none does, -E2BIG: too much work to tell.
 */
static int overlap_from(struct overlap *o, __u32 depth, const __u64 *in, __u32 n)
{
	const __u32 stride = o->b->t.bits.stride;
	__u64 *out = o->cand + (size_t)(depth + 1) * stride, m, x;
	__u32 f, c, s, i, cnt;
	int ret;

	if (n <= XRL_LBVS_MAX_MATCH)
		return 0;
	if (depth == o->nf) {
		for (s = 0; s < o->nsum; s++)
			for (m = in[s]; m; m &= m - 1) {
				i = s * 64 + (__u32)__builtin_ctzll(m);
				if (in[o->nsum + i])
					o->worst = i * 64 + (__u32)__builtin_ctzll(in[o->nsum + i]);
			}
		return 1;
	}
	f = o->fields[depth];
	for (c = 0; c < o->ncls[f]; c++) {
		const __u64 *w = o->b->t.bits.w + (size_t)(o->b->t.cfg.base[f] + c) * stride;

		if (++o->work > OVERLAP_WORK)
			return -E2BIG;
		for (s = 0, cnt = 0; s < o->nsum; s++) {
			out[s] = 0;
			for (m = in[s] & w[s]; m; m &= m - 1) {
				i = s * 64 + (__u32)__builtin_ctzll(m);
				x = in[o->nsum + i] & w[o->nsum + i];
				out[o->nsum + i] = x;
				if (x) {
					out[s] |= 1ULL << (i % 64);
					cnt += (__u32)__builtin_popcountll(x);
				}
			}
		}
		ret = overlap_from(o, depth + 1, out, cnt);
		if (ret)
			return ret;
	}
	return 0;
}

/* The classes field f has: up to the next field's first, or the last class. */
static __u32 classes_of(const struct xrl_lbvs_set *b, __u32 f)
{
	__u32 g, end = b->t.bits.n;

	for (g = 0; g < XRL_LBVS_FIELDS; g++)
		if ((b->t.cfg.used & (1U << g)) && b->t.cfg.base[g] > b->t.cfg.base[f] && b->t.cfg.base[g] < end)
			end = b->t.cfg.base[g];
	return end - b->t.cfg.base[f];
}

static int overlap_check(const struct xrl_lbvs_set *b, __u32 *worst)
{
	struct overlap o = { .b = b, .nwords = b->t.cfg.nwords, .nsum = b->t.cfg.nsum };
	__u64 *all;
	__u32 f, i, bit;
	int ret;

	for (f = 0; f < XRL_LBVS_FIELDS; f++)
		if (b->t.cfg.used & (1U << f)) {
			o.fields[o.nf++] = f;
			o.ncls[f] = classes_of(b, f);
		}
	o.cand = calloc((size_t)(o.nf + 2) * b->t.bits.stride, sizeof(*o.cand));
	if (!o.cand)
		return -ENOMEM;
	all = o.cand;
	for (i = 0; i < b->nrules; i++) {
		bit = b->bit_of[i];
		all[o.nsum + bit / 64] |= 1ULL << (bit % 64);
		all[bit / 4096] |= 1ULL << (bit / 64 % 64);
	}
	ret = overlap_from(&o, 0, all, b->nrules);
	*worst = o.worst;
	free(o.cand);
	return ret;
}

static void set_used(const struct xrl_ruleset *rs, const struct xrl_maddr *a, __u8 dir, int *bit, __u8 *dirs, int *n)
{
	const struct xrl_pset *ps = a->set[0] ? xrl_ruleset_set(rs, a->set) : NULL;
	size_t k;

	if (!ps)
		return;
	k = (size_t)(ps - rs->sets);
	if (bit[k] < 0)
		bit[k] = (*n)++;
	dirs[k] |= dir;
}

int xrl_match_set_bits(const struct xrl_ruleset *rs, int *bit, __u8 *dirs)
{
	size_t i;
	int n = 0;

	for (i = 0; i < XRL_MAX_SETS; i++) {
		bit[i] = -1;
		dirs[i] = 0;
	}
	for (i = 0; i < rs->n; i++) {
		if (rs->v[i].kind != XRL_KIND_MATCH)
			continue;
		set_used(rs, &rs->v[i].m.src, XRL_MATCH_SETS_SRC, bit, dirs, &n);
		set_used(rs, &rs->v[i].m.dst, XRL_MATCH_SETS_DST, bit, dirs, &n);
	}
	return n;
}

int xrl_match_build(const struct xrl_ruleset *set, struct xrl_match_built *mb, char *err, size_t len)
{
	int bit[XRL_MAX_SETS];
	__u8 dirs[XRL_MAX_SETS];
	struct xrl_match_lbvs *ml = NULL;
	struct xrl_lbvs_rule *rules = NULL;
	char m[XRL_RULE_TEXT];
	__u32 n = 0, worst = 0;
	size_t i;
	int ret = 0;

	memset(mb, 0, sizeof(*mb));
	for (i = 0; set && i < set->n; i++)
		n += set->v[i].kind == XRL_KIND_MATCH;
	if (!n)
		return 0;
	if (n > XRL_MATCH_MAX)
		return xrl_fail(-E2BIG, err, len,
				"the set has %u rules of several fields, more than the %u a set holds: merge some", n,
				XRL_MATCH_MAX);
	if (xrl_match_set_bits(set, bit, dirs) > XRL_MATCH_SETS_MAX)
		return xrl_fail(
			-E2BIG, err, len,
			"the rules of several fields use %d named sets as an address, more than the %d the program tells apart: merge some sets",
			xrl_match_set_bits(set, bit, dirs), XRL_MATCH_SETS_MAX);
	mb->spec = calloc(n, sizeof(*mb->spec));
	ml = calloc(n, sizeof(*ml));
	rules = calloc(n, sizeof(*rules));
	if (!mb->spec || !ml || !rules) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < set->n; i++) {
		const struct xrl_spec *s = &set->v[i];

		if (s->kind != XRL_KIND_MATCH)
			continue;
		ret = xrl_match_lbvs(s, set, &ml[mb->n], err, len);
		if (ret)
			goto out;
		rules[mb->n] = ml[mb->n].rule;
		mb->spec[mb->n++] = i;
	}
	ret = xrl_lbvs_build(&mb->b, rules, mb->n, err, len);
	if (ret)
		goto out;
	ret = overlap_check(&mb->b, &worst);
	if (ret) {
		const struct xrl_spec *s = &set->v[mb->spec[mb->b.rule_of[worst]]];

		xrl_spec_format_match(s, m, sizeof(m));
		ret = ret == -E2BIG ?
			      xrl_fail(
				      -ETOOMANYREFS, err, len,
				      "the rules of several fields overlap too much to check that no packet meets more than %d of them (line %d, '%s', among others): give them fields that tell them apart",
				      XRL_LBVS_MAX_MATCH, s->line, m) :
		      ret < 0 ?
			      ret :
			      xrl_fail(
				      -ETOOMANYREFS, err, len,
				      "a packet can meet more than %d rules of several fields (line %d, '%s', and others whose ports, protocol, flags, length, TTL, DSCP and fragment state all admit it; addresses are not counted): the program judges %d at most; give them fields that tell them apart, or merge some",
				      XRL_LBVS_MAX_MATCH, s->line, m, XRL_LBVS_MAX_MATCH);
		goto out;
	}
	mb->stride = mb->b.t.bits.stride;
	mb->classes = mb->b.t.bits.n;
out:
	free(ml);
	free(rules);
	if (ret)
		xrl_match_built_free(mb);
	return ret;
}

int xrl_match_check(const struct xrl_ruleset *set, char *err, size_t len)
{
	struct xrl_match_built mb;
	int ret = xrl_match_build(set, &mb, err, len);

	if (!ret)
		xrl_match_built_free(&mb);
	return ret;
}

/* A map's values through its mmap, for bytes of it; NULL with errno. */
static void *map_mem(int fd, size_t bytes)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (bytes + pg - 1) / pg * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void map_unmem(void *p, size_t bytes)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	munmap(p, (bytes + pg - 1) / pg * pg);
}

/* The address a match rule checks past the classifier: a single prefix, host bits clear, or a set's bit. */
static void addr_of(const struct xrl_ruleset *rs, const int *bit, const struct xrl_maddr *a, struct xrl_match_addr *out)
{
	const struct xrl_pset *ps = a->set[0] ? xrl_ruleset_set(rs, a->set) : NULL;
	__u32 i;

	memset(out, 0, sizeof(*out));
	if (ps) {
		out->set = (__u8)(bit[ps - rs->sets] + 1);
		out->neg = a->neg;
		return;
	}
	if (!a->family)
		return;
	out->family = a->family;
	out->plen = a->plen;
	out->neg = a->neg;
	for (i = 0; i < 16; i++) {
		int bits = (int)a->plen - 8 * (int)i;

		out->addr[i] = bits >= 8 ? a->addr[i] : bits > 0 ? a->addr[i] & (__u8)(0xff << (8 - bits)) : 0;
	}
}

__u32 xrl_match_flags(const struct xrl_spec *s)
{
	__u32 f = s->r.flags & ~(XRL_F_PER_DST | XRL_F_PER_DPORT);

	if (s->per & XRL_PER_DST)
		f = (f & ~XRL_F_PER_SOURCE) | XRL_F_PER_DST;
	if (s->per & XRL_PER_DPORT)
		f |= XRL_F_PER_DPORT;
	return f;
}

int xrl_match_write(const struct xrl_match_fds *f, __u8 set, const struct xrl_ruleset *rs,
		    const struct xrl_match_built *mb)
{
	const struct xrl_lbvs_set *b = &mb->b;
	struct xrl_match_cfg cfg = {};
	size_t cls_bytes = 2ULL * XRL_LBVS_CLS_WORDS * 8, bits_bytes = (size_t)f->entries * f->stride * 8;
	__u64 *cls, *bits;
	char spec[XRL_MATCH_SPEC_BYTES];
	int bit[XRL_MAX_SETS];
	__u8 dirs[XRL_MAX_SETS];
	__u32 i, k, fl;
	int ret = 0;

	set &= 1;
	if (!mb->n)
		return 0;
	if (xrl_match_set_bits(rs, bit, dirs) > XRL_MATCH_SETS_MAX)
		return -E2BIG;
	for (k = 0; k < XRL_MAX_SETS; k++)
		cfg.sets |= dirs[k];
	if (xrl_match_stride_for(mb) > f->stride || 2 * mb->classes > f->entries || 2 * mb->n > f->slots)
		return -ENOSPC;
	cls = map_mem(f->cls, cls_bytes);
	bits = map_mem(f->bits, bits_bytes);
	if (!cls || !bits) {
		ret = -errno;
		goto out;
	}
	/* The class arrays into the set's half, the bitmaps into its entries (XRL_MATCH_BITS_IX). */
	memset(cls + XRL_MATCH_CLS_BASE(set), 0, (size_t)XRL_LBVS_CLS_WORDS * 8);
	memcpy(cls + XRL_MATCH_CLS_BASE(set), b->t.cls.w, (size_t)b->t.cls.n * 8);
	for (k = 0; k < b->t.bits.n; k++) {
		__u64 *v = bits + (size_t)XRL_MATCH_BITS_IX(set, k) * f->stride;

		memset(v, 0, (size_t)f->stride * 8);
		memcpy(v, b->t.bits.w + (size_t)k * b->t.bits.stride, (size_t)b->t.bits.stride * 8);
	}
	for (i = 0; i < mb->n; i++) {
		const struct xrl_spec *s = &rs->v[mb->spec[i]];
		struct xrl_match_rule mr = {};
		__u32 slot = XRL_MATCH_SLOT(set, b->bit_of[i]);

		mr.r = s->r;
		mr.r.flags = xrl_match_flags(s);
		addr_of(rs, bit, &s->m.src, &mr.src);
		addr_of(rs, bit, &s->m.dst, &mr.dst);
		if (s->m.given & XRL_MF_PAYLOAD) {
			mr.pay_off = s->m.payload_off;
			mr.pay_len = s->m.payload_len;
			memcpy(mr.pay, s->m.payload, sizeof(mr.pay));
			memcpy(mr.pay_mask, s->m.payload_mask, sizeof(mr.pay_mask));
			for (fl = 0; fl < XRL_MATCH_PAYLOAD_MAX; fl++)
				mr.pay[fl] &= mr.pay_mask[fl];
		}
		mr.used = 1;
		memset(spec, 0, sizeof(spec));
		memcpy(spec, s, offsetof(struct xrl_spec, nw));
		if (bpf_map_update_elem(f->specs, &slot, spec, BPF_ANY) ||
		    bpf_map_update_elem(f->rules, &slot, &mr, BPF_ANY)) {
			ret = -errno;
			goto out;
		}
	}
	/* The configuration last: the set's tables, moved to its half and its interleaved entries. */
	cfg.lbvs = b->t.cfg;
	for (fl = 0; fl < XRL_LBVS_FIELDS; fl++) {
		cfg.lbvs.off[fl] += XRL_MATCH_CLS_BASE(set);
		cfg.lbvs.base[fl] = XRL_MATCH_BITS_IX(set, b->t.cfg.base[fl]);
	}
	cfg.lbvs.step = 2;
	cfg.nrules = mb->n;
	k = set;
	if (bpf_map_update_elem(f->cfgs, &k, &cfg, BPF_ANY))
		ret = -errno;
out:
	if (cls)
		map_unmem(cls, cls_bytes);
	if (bits)
		map_unmem(bits, bits_bytes);
	return ret;
}

int xrl_match_clear(const struct xrl_match_fds *f, __u8 set)
{
	struct xrl_match_cfg cfg = {};
	struct xrl_match_rule mr, none = {};
	__u32 k = set & 1, i, slot;

	if (bpf_map_update_elem(f->cfgs, &k, &cfg, BPF_ANY))
		return -errno;
	for (i = 0; i < f->slots / 2; i++) {
		slot = XRL_MATCH_SLOT(set, i);
		if (bpf_map_lookup_elem(f->rules, &slot, &mr))
			return -errno;
		if (mr.used && bpf_map_update_elem(f->rules, &slot, &none, BPF_ANY))
			return -errno;
	}
	return 0;
}

int xrl_match_read(const struct xrl_match_fds *f, __u8 set, struct xrl_ruleset *out)
{
	char spec[XRL_MATCH_SPEC_BYTES], err[XRL_ERRLEN];
	struct xrl_match_rule mr;
	struct xrl_spec s;
	__u32 i, slot;
	int ret;

	for (i = 0; i < f->slots / 2; i++) {
		slot = XRL_MATCH_SLOT(set, i);
		if (bpf_map_lookup_elem(f->rules, &slot, &mr))
			return -errno;
		if (!mr.used)
			continue;
		if (bpf_map_lookup_elem(f->specs, &slot, spec))
			return -errno;
		memset(&s, 0, sizeof(s));
		memcpy(&s, spec, offsetof(struct xrl_spec, nw));
		if (s.kind != XRL_KIND_MATCH)
			continue;
		/* The rule as the program has it (its id, gen, flags); what it counts by, as written. */
		s.r = mr.r;
		s.line = 0;
		s.r.flags &= ~(XRL_F_PER_DST | XRL_F_PER_DPORT);
		if (s.per & XRL_PER_DST)
			s.r.flags &= ~XRL_F_PER_SOURCE;
		ret = xrl_ruleset_add(out, &s, err, sizeof(err));
		if (ret)
			return ret;
	}
	return 0;
}
