/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Verdict: how a frame leaves the program, counted in the global counters,
 * and which rule decided it, for a capture (capture.h).
 */
#ifndef XRL_BPF_VERDICT_H
#define XRL_BPF_VERDICT_H

#include "vmlinux.h"
#include "config.h"
#include "capture.h"
#include "classify.h"
#include "judge.h"
#include "match.h"

static __always_inline int xrl_pass(struct xrl_counters *cnt)
{
	cnt->passed++;
	return XDP_PASS;
}

static __always_inline int xrl_drop(struct xrl_counters *cnt)
{
	cnt->dropped++;
	return XDP_DROP;
}

/*
 * A malformed frame's verdict under load --malformed: the default drops only
 * what the host would accept and no rule could judge; what it drops itself
 * (a truncated header) passes. A truncated VLAN tag shares its reason with a
 * stack of three tags, which a host with nested VLAN devices accepts: both
 * are dropped (the host would drop the first anyway).
 */
static __always_inline int xrl_malformed(struct xrl_counters *cnt, __u32 reason)
{
	if (reason < XRL_MAL_MAX)
		cnt->malformed[reason]++;
	if (xrl_cfg.malformed == XRL_MALPOL_DROP ||
	    (xrl_cfg.malformed == XRL_MALPOL_EVASIVE &&
	     (reason == XRL_MAL_FRAG_TINY || reason == XRL_MAL_IPV6_CHAIN || reason == XRL_MAL_VLAN)))
		return xrl_drop(cnt);
	return xrl_pass(cnt);
}

/*
 * Generic mode sees a GSO or GRO super-packet (a TCP bulk transfer's 64 KB)
 * as one frame: it counts as the segments the stack delivers, estimated from
 * its length and the MTU less its headers (TCP's with 12 bytes of options,
 * the timestamps most stacks send, so that the estimate errs on the side of
 * more segments). A frame within the MTU, or without a transport header, is 1.
 */
static __always_inline __u32 xrl_gso_segs(struct xdp_md *ctx, const struct xrl_pkt *p)
{
	__u32 len = (__u32)(ctx->data_end - ctx->data), hdr, mss;

	if (!xrl_cfg.gso_mtu || !p->has_port || len <= xrl_cfg.gso_mtu + p->l3off)
		return 1;
	hdr = (p->family == XRL_FAMILY_V4 ? 20 : 40) + (p->proto == XRL_PROTO_TCP ? 32 : 8);
	if (xrl_cfg.gso_mtu <= hdr + 64)
		return 1;
	mss = xrl_cfg.gso_mtu - hdr;
	len -= p->l3off + hdr;
	return (len + mss - 1) / mss;
}

/*
 * The rule that decided a judged frame, for a capture: the first over that
 * is not a monitor for a drop, the first over for a monitored pass, else the
 * first met; else the first match rule that decided (xrl_match_commit_cb noted it).
 * XRL_CAP_NO_RULE: none.
 */
static __always_inline __u32 xrl_decider(const struct xrl_matches *m, const __u32 *res, int over, int monitor)
{
	struct xrl_rule *r;
	__u32 i;

#pragma clang loop unroll(full)
	for (i = 0; i < XRL_MATCHES; i++) {
		r = m->r[i];
		if (!r)
			continue;
		if (over ? (res[i] & XRL_J_OVER) && !(r->flags & XRL_F_MONITOR) : !monitor || (res[i] & XRL_J_OVER))
			return r->id;
	}
	return xrl_carries(XRL_FEAT_MATCH) ? xrl_match_decider() : XRL_CAP_NO_RULE;
}

#endif /* XRL_BPF_VERDICT_H */
