// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The rules of several fields a packet meets, as the program finds them (declared in match_meets.h). */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include "read/match_meets.h"
#include "codec/prefixes.h"

/* The checks the program makes past the classifier. */
#define PAST_CLASSIFIER (XRL_MF_SRC | XRL_MF_DST | XRL_MF_PAYLOAD)

static size_t pages(size_t bytes)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (bytes + pg - 1) / pg * pg;
}

static const struct xrl_spec *by_id(const struct xrl_ruleset *rules, __u32 id)
{
	size_t i;

	for (i = 0; i < rules->n; i++)
		if (rules->v[i].kind == XRL_KIND_MATCH && rules->v[i].r.id == id)
			return &rules->v[i];
	return NULL;
}

/*
 * The named sets of match rules (xrl_match.h) that hold p's source and
 * destination, as the program finds them: sets[0] the source's, sets[1]
 * the destination's.
 */
static int msets_of(const struct xrl_maps *m, __u8 set, const struct xrl_match_pkt *p, __u64 *sets)
{
	struct xrl_lpm_map lm;
	__u64 *dir;
	int ret, v6 = p->family == XRL_FAMILY_V6;

	if (m->match_sets < 0)
		return -ENOENT;
	ret = xrl_lpm_map_open(m->lpm_dir, m->lpm_ranges, m->set_items, &lm);
	if (ret)
		return ret;
	dir = mmap(NULL, XRL_MSET_WORDS * 8ULL, PROT_READ, MAP_SHARED, m->match_sets, 0);
	if (dir == MAP_FAILED) {
		ret = -errno;
		xrl_lpm_map_close(&lm);
		return ret;
	}
	sets[0] = dir[XRL_MSET_CLASS(set, xrl_lpm_lookup(dir, lm.ranges, lm.nranges, XRL_MSET_SRC, set, v6, p->src))];
	sets[1] = dir[XRL_MSET_CLASS(set, xrl_lpm_lookup(dir, lm.ranges, lm.nranges, XRL_MSET_DST, set, v6, p->dst))];
	munmap(dir, XRL_MSET_WORDS * 8ULL);
	xrl_lpm_map_close(&lm);
	return 0;
}

/* Whether a rule's address of a named set holds the packet's, by the sets that hold it (as bpf/match.h). */
static bool mset_ok(const struct xrl_match_addr *a, __u64 sets)
{
	return ((sets >> ((a->set - 1) & (XRL_MATCH_SETS_MAX - 1))) & 1) != !!a->neg;
}

/*
 * The fields of rule s packet p matches: the predicate's, but for an
 * address of a named set, the program's (the rules as read hold no set's
 * prefixes).
 */
static __u32 fields_of(const struct xrl_spec *s, const struct xrl_match_rule *mr, const struct xrl_ruleset *rules,
		       const struct xrl_match_pkt *p, const __u64 *sets)
{
	struct xrl_spec c = *s;
	__u32 ok;

	if (mr->src.set) {
		c.m.given &= ~(__u32)XRL_MF_SRC;
		c.m.src.set[0] = '\0';
	}
	if (mr->dst.set) {
		c.m.given &= ~(__u32)XRL_MF_DST;
		c.m.dst.set[0] = '\0';
	}
	ok = xrl_spec_eval(&c, rules, p);
	if (mr->src.set && mset_ok(&mr->src, sets[0]))
		ok |= XRL_MF_SRC;
	if (mr->dst.set && mset_ok(&mr->dst, sets[1]))
		ok |= XRL_MF_DST;
	return ok;
}

int xrl_match_meets(const struct xrl_maps *m, __u8 set, const struct xrl_ruleset *rules, const struct xrl_match_pkt *p,
		    struct xrl_match_meets *out)
{
	size_t cls_bytes = pages(2ULL * XRL_LBVS_CLS_WORDS * 8),
	       bits_bytes = pages((size_t)m->lbvs_entries * m->lbvs_stride * 8);
	struct xrl_lbvs_tables t = {};
	struct xrl_lbvs_ctx c = { .t = &t };
	struct xrl_lbvs_result res;
	struct xrl_match_cfg cfg;
	void *cls = MAP_FAILED, *bits = MAP_FAILED;
	__u32 k = set & 1, i, slot, ok, all;
	__u64 sets[2] = {};
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (m->match_cfgs < 0 || m->lbvs_cls < 0 || m->lbvs_bits < 0 || m->match_rules < 0)
		return -ENOENT;
	if (bpf_map_lookup_elem(m->match_cfgs, &k, &cfg))
		return -errno;
	if (!cfg.nrules)
		return 0;
	if (cfg.sets && (ret = msets_of(m, k, p, sets)))
		return ret;
	cls = mmap(NULL, cls_bytes, PROT_READ, MAP_SHARED, m->lbvs_cls, 0);
	bits = mmap(NULL, bits_bytes, PROT_READ, MAP_SHARED, m->lbvs_bits, 0);
	if (cls == MAP_FAILED || bits == MAP_FAILED) {
		ret = -errno;
		goto out;
	}
	t.cfg = cfg.lbvs;
	t.cls = (struct xrl_lbvs_array){ cls, 2 * XRL_LBVS_CLS_WORDS, 1 };
	t.bits = (struct xrl_lbvs_array){ bits, m->lbvs_entries, m->lbvs_stride };
	if (xrl_lbvs_classify(&c, &p->v, &res))
		goto out;
	out->more = res.more;
	for (i = 0; i < res.n; i++) {
		struct xrl_match_rule mr;
		const struct xrl_spec *s;

		slot = XRL_MATCH_SLOT(set, res.bit[i]);
		if (bpf_map_lookup_elem(m->match_rules, &slot, &mr)) {
			ret = -errno;
			goto out;
		}
		s = mr.used ? by_id(rules, mr.r.id) : NULL;
		if (!s)
			continue;
		ok = fields_of(s, &mr, rules, p, sets);
		all = xrl_spec_fields(s);
		if ((ok & all & PAST_CLASSIFIER) != (all & PAST_CLASSIFIER))
			continue;
		if (s->r.flags & XRL_F_ALLOW) {
			out->s[0] = s;
			out->fields[0] = ok & all;
			out->n = 1;
			out->allow = true;
			break;
		}
		out->s[out->n] = s;
		out->fields[out->n++] = ok & all;
	}
out:
	if (cls != MAP_FAILED)
		munmap(cls, cls_bytes);
	if (bits != MAP_FAILED)
		munmap(bits, bits_bytes);
	return ret;
}
