/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Commit: once the packet's fate is known, each rule it met counts it (its
 * totals, its QPS window, its bytes), and a pass a window counted, or a
 * lease paid, for a packet another rule dropped is taken back. The same code
 * for every rule.
 */
#ifndef XRL_BPF_COMMIT_H
#define XRL_BPF_COMMIT_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xrl_window.h"
#include "pctx.h"
#include "rule_stats.h"
#include "lease.h"
#include "maps.h"

/*
 * Takes back the pass xrl_judge_slow counted in rule r's window (its byte
 * window when bytes) when another rule dropped the packet, from the bucket
 * it was counted in: the rule's slot, which no other packet on this CPU has
 * moved since. (Should the rule's byte window have moved the slot on past
 * its packet window's bucket, a bucket another CPU opened meanwhile, the
 * packet's pass is not found and stays: one too many counted, which can
 * only block.)
 */
__noinline int xrl_commit_undo(struct xrl_rule *r, struct xrl_pctx *pc, int bytes)
{
	struct xrl_rule_stats *rs;
	struct xrl_win win;
	__u32 id;

	if (!r || !pc)
		return 0;
	id = r->id;
	rs = bpf_map_lookup_elem(&xrl_rule_stats, &id);
	if (!rs)
		return 0;
	xrl_key_for(&pc->key, r, pc, bytes);
	if (xrl_win_find(&pc->key, &win))
		xrl_unreserve(&win.st->ring, XRL_CELLS, &rs->slot, xrl_cost(pc, bytes), XRL_RESERVE_TRIES);
	return 0;
}

/*
 * Takes back the passes rule r's next windows counted (res: their
 * XRL_J_WINDOW_COUNTED bits), or their leases paid (XRL_J_LEASED: every
 * window's). A global function.
 */
__noinline int xrl_commit_windows(struct xrl_rule *r, struct xrl_pctx *pc, __u32 res)
{
	struct xrl_rule *w;
	__u32 ix, k;

	if (!r || !pc)
		return 0;
	ix = r->next;
	for (k = 0; k < XRL_MAX_WINDOWS - 1 && ix; k++) {
		ix--;
		w = bpf_map_lookup_elem(&xrl_windows, &ix);
		if (!w)
			break;
		if (res & XRL_J_WINDOW_COUNTED(k))
			xrl_commit_undo(w, pc, xrl_bytes_only(w));
		else if (res & XRL_J_LEASED)
			xrl_lease_give_back(w, pc);
		ix = w->next;
	}
	return 0;
}

/* Counts rule r's judgement res (XRL_J_*) of pc's packet, dropped or not. */
static __always_inline void xrl_commit(struct xrl_rule *r, struct xrl_pctx *pc, __u32 res, int dropped)
{
	struct xrl_rule_stats *rs;
	int over = res & XRL_J_OVER;

	rs = bpf_map_lookup_elem(&xrl_rule_stats, &r->id);
	if (over)
		xrl_count_rule(rs, 1);
	else if (!dropped)
		xrl_count_rule(rs, 0);
	if (rs && (xrl_has_bytes(r) || xrl_has_windows(r))) {
		if (over)
			rs->block_bytes += pc->len;
		else if (!dropped)
			rs->pass_bytes += pc->len;
	}
	if (!dropped)
		return;
	if (res & XRL_J_COUNTED)
		xrl_commit_undo(r, pc, 0);
	if (res & XRL_J_LEASED)
		xrl_lease_give_back(r, pc);
	if (xrl_carries(XRL_FEAT_BYTES) && (res & XRL_J_BYTES_COUNTED))
		xrl_commit_undo(r, pc, 1);
	if (xrl_has_windows(r) && (res & (XRL_J_WINDOWS_COUNTED | XRL_J_LEASED)))
		xrl_commit_windows(r, pc, res);
}

/*
 * xrl_commit for a rule judged before the packet's last one, once its fate
 * is known. A global function, verified once for every kind of rule. (The
 * last rule judged commits in its judgement, xrl_judge_rule, and a rule its
 * latch found over at once, xrl_commit_over.)
 */
__noinline int xrl_commit_rule(struct xrl_rule *r, struct xrl_pctx *pc, __u32 res, int dropped)
{
	if (r && pc)
		xrl_commit(r, pc, res, dropped);
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
	if (rs && (xrl_has_bytes(r) || xrl_has_windows(r)))
		rs->block_bytes += pc->len;
}

#endif /* XRL_BPF_COMMIT_H */
