// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* explain's classifier: the rules a packet meets, looked up as the program looks (explain.h). */
#include <string.h>
#include "codec/dsts.h"
#include "explain.h"

/*
 * The prefix or dst rule (kind) the program would find for addr, the range
 * structure answering, and the prefix that holds addr (of its set, for a
 * set's rule).
 */
static const struct xrl_spec *lpm_rule(const struct xrl_maps *m, const struct xrl_ctl *ctl,
				       const struct xrl_ruleset *set, __u8 kind, __u8 family, const __u8 *addr,
				       struct xrl_pfx *held)
{
	__u32 id;
	size_t i;

	memset(held, 0, sizeof(*held));
	if (xrl_lpm_match(m, ctl->active_set & 1, kind, family, addr, &id, held))
		return NULL;
	for (i = 0; i < set->n; i++)
		if (xrl_spec_in_lpm(&set->v[i]) && set->v[i].r.id == id)
			return &set->v[i];
	return NULL;
}

/*
 * The rule of set in the dst trie the program would find for a packet to dst
 * (to port/proto when proto is not 0: a narrowed port rule), by its id.
 */
static const struct xrl_spec *dst_trie_rule(const struct xrl_maps *m, const struct xrl_ctl *ctl,
					    const struct xrl_ruleset *set, const struct xrl_spec *dst, __u8 proto,
					    __u16 port)
{
	struct xrl_rule r;
	size_t i;

	if (xrl_dst_match(m->dsts, ctl->active_set & 1, proto, port, dst->family, dst->addr, &r))
		return NULL;
	for (i = 0; i < set->n; i++)
		if (set->v[i].kind == XRL_KIND_PORT && set->v[i].family && set->v[i].r.id == r.id)
			return &set->v[i];
	return NULL;
}

/* The protocol rule a packet meets: its most specific selector, else its protocol (as the program looks). */
static const struct xrl_spec *proto_rule(const struct xrl_ruleset *set, const struct explain_opts *eo)
{
	struct xrl_spec want = { .kind = XRL_KIND_PROTO };
	int idx = -1;

	if (eo->sel != 0xffff) {
		want.sel = eo->sel;
		idx = xrl_ruleset_find(set, &want);
	}
	if (idx < 0 && (eo->proto_arg || eo->port_arg)) {
		want.sel = eo->proto;
		idx = xrl_ruleset_find(set, &want);
	}
	return idx >= 0 ? &set->v[idx] : NULL;
}

void explain_match(const struct xrl_maps *m, const struct xrl_ctl *ctl, const struct xrl_ruleset *set,
		   const struct explain_opts *eo, const struct xrl_spec *match[EXPLAIN_KINDS],
		   struct xrl_pfx held[EXPLAIN_KINDS])
{
	const struct xrl_spec *src = &eo->src;

	memset(match, 0, EXPLAIN_KINDS * sizeof(match[0]));
	memset(held, 0, EXPLAIN_KINDS * sizeof(held[0]));
	match[EXPLAIN_PREFIX] = lpm_rule(m, ctl, set, XRL_LPM_SRC, src->family, src->addr, &held[EXPLAIN_PREFIX]);
	/* A port rule narrowed to the packet's destination wins over the port's own. */
	if (eo->port_arg && !eo->fragment && eo->dst_arg)
		match[EXPLAIN_PORT] = dst_trie_rule(m, ctl, set, &eo->dst, eo->port.proto, eo->port.port);
	if (eo->port_arg && !eo->fragment && !match[EXPLAIN_PORT]) {
		int idx = xrl_ruleset_find(set, &eo->port);

		match[EXPLAIN_PORT] = idx >= 0 ? &set->v[idx] : NULL;
	}
	match[EXPLAIN_PROTO] = proto_rule(set, eo);
	if (eo->dst_arg)
		match[EXPLAIN_DST] =
			lpm_rule(m, ctl, set, XRL_LPM_DST, eo->dst.family, eo->dst.addr, &held[EXPLAIN_DST]);
}
