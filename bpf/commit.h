/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Commit: once the packet's fate is known, each rule it met counts it (its
 * totals, its QPS window, its bytes), and a pass a window counted for a
 * packet another rule dropped is taken back. The same code for every rule.
 */
#ifndef XRL_BPF_COMMIT_H
#define XRL_BPF_COMMIT_H

#include "judge.h"

/*
 * Counts rule r's judgement res (XRL_J_*) of pc's packet, dropped or not. A
 * global function, verified once for every kind of rule. (A rule its latch
 * found over is counted at once, by xrl_commit_over.)
 */
__noinline int xrl_commit_rule(struct xrl_rule *r, struct xrl_pctx *pc, __u32 res, int dropped)
{
	struct xrl_rule_stats *rs;
	int over = res & XRL_J_OVER;

	if (!r || !pc)
		return 0;
	rs = bpf_map_lookup_elem(&xrl_rule_stats, &r->id);
	if (over)
		xrl_count_rule(rs, 1);
	else if (!dropped)
		xrl_count_rule(rs, 0);
	if (rs && xrl_has_bytes(r)) {
		if (over)
			rs->block_bytes += pc->len;
		else if (!dropped)
			rs->pass_bytes += pc->len;
	}
	if (!dropped)
		return 0;
	if (res & XRL_J_COUNTED)
		xrl_judge_undo(r, pc, 0, XRL_J_AHEAD(res, 0));
	if (xrl_carries(XRL_FEAT_BYTES) && (res & XRL_J_BYTES_COUNTED))
		xrl_judge_undo(r, pc, 1, XRL_J_AHEAD(res, 1));
	return 0;
}

/*
 * Counts rule r over, as xrl_commit_rule would: the packet's fate cannot
 * change what an over rule counts (its block; no pass to take back). So the
 * flood path counts it when the latch answers, and makes no call.
 */
static __always_inline void xrl_commit_over(struct xrl_rule *r, const struct xrl_pctx *pc)
{
	struct xrl_rule_stats *rs = bpf_map_lookup_elem(&xrl_rule_stats, &r->id);

	xrl_count_rule(rs, 1);
	if (rs && xrl_has_bytes(r))
		rs->block_bytes += pc->len;
}

#endif /* XRL_BPF_COMMIT_H */
