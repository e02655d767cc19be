/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* How many packets (or bytes) a window of a rule may pass on this node. */
#ifndef XRL_BPF_THRESHOLD_H
#define XRL_BPF_THRESHOLD_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "clock.h"
#include "maps.h"

/*
 * The packets a window of r may pass on this node: a global rule's allowance,
 * as the sync agent last set it for this gen of the rule, until it lapses
 * (then its fallback), else its threshold. The coarse clock is precise
 * enough for a deadline of seconds, and costs a global rule's packet no more.
 */
static __always_inline __u64 xrl_threshold(const struct xrl_rule *r)
{
	struct xrl_fleet *f;
	__u32 id = r->id;

	if (!xrl_carries(XRL_FEAT_GLOBAL) || !(r->flags & XRL_F_GLOBAL))
		return r->threshold;
	f = bpf_map_lookup_elem(&xrl_fleet, &id);
	if (!f || !f->allowance || f->gen != r->gen)
		return r->threshold;
	if (f->expires_ns && xrl_now_coarse() > f->expires_ns)
		return f->fallback ? f->fallback : r->threshold;
	return f->allowance;
}

/* The threshold of k's window of rule r: its byte window's, or its packet window's. */
static __always_inline __u64 xrl_key_threshold(const struct xrl_rule *r, const struct xrl_key *k)
{
	return k->rule_id & XRL_KEY_BYTES ? r->byte_threshold : xrl_threshold(r);
}

#endif /* XRL_BPF_THRESHOLD_H */
