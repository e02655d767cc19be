// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdp-ratelimit: drops packets over a Sentinel sliding-window threshold,
 * per destination port, per IP protocol (TCP SYN, ICMP type, fragments), per
 * destination prefix and per source prefix.
 *
 * One pipeline for every rule kind, a stage a file: parse (parsing.h),
 * classify (classify.h: each kind's index yields at most one rule; match.h:
 * the rules of several fields, as many as a packet meets), judge
 * (judge.h: the same code for every rule met, packet and byte windows
 * alike), commit (commit.h), verdict (verdict.h). The program carries only
 * the features its rule set uses (config.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xrl_common.h"
#include "config.h"
#include "clock.h"
#include "maps.h"
#include "parsing.h"
#include "classify.h"
#include "judge.h"
#include "match.h"
#include "commit.h"
#include "capture.h"
#include "verdict.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * Per CPU: the context of the packet being judged (struct xrl_pctx), off
 * the program's stack: the calls below the program (xrl_judge_rule,
 * xrl_judge_slow) take the rest of the 512 bytes.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xrl_pctx);
} xrl_pctx SEC(".maps");

/* The verdict of one frame: every exit offers it to a capture (XRL_CAP_EXIT). */
static __always_inline int xrl_verdict(struct xdp_md *ctx)
{
	__u32 res[XRL_MATCHES] = {};
	struct xrl_counters *cnt;
	struct xrl_matches m = {};
	struct xrl_pctx *pc;
	int ret, monitor = 0, over, first, mt;
	struct xrl_ctl *ctl;
	struct xrl_rule *r, *allow;
	__u32 zero = 0, i, j;
	__u8 set, kinds;

	cnt = bpf_map_lookup_elem(&xrl_counters, &zero);
	if (!cnt)
		return XDP_PASS;
#ifdef XRL_TEST_REFUSED
	/* A bad build for the tests: a packet byte read with no bounds check, which the verifier refuses. */
	if (*(volatile __u8 *)(long)ctx->data == 0xff)
		return XDP_DROP;
#endif
	cnt->seen++;
	/* The packet's context, off the stack: the judgements' calls below take all of it (xrl_judge_rule). */
	pc = bpf_map_lookup_elem(&xrl_pctx, &zero);
	if (!pc)
		return xrl_pass(cnt);
	__builtin_memset(pc, 0, sizeof(*pc));

	/* Parse. */
	ret = xrl_parse(ctx, &pc->p);
	if (ret == XRL_PARSE_NON_IP) {
		cnt->non_ip++;
		return XRL_CAP_EXIT(ctx, &pc->p, xrl_pass(cnt), XRL_CAP_HOW(XRL_CAP_WHY_NON_IP, 0), XRL_CAP_NO_RULE);
	}
	if (ret != XRL_PARSE_IP)
		return XRL_CAP_EXIT(ctx, &pc->p, xrl_malformed(cnt, -ret - 1),
				    XRL_CAP_HOW(XRL_CAP_WHY_MALFORMED, -ret - 1), XRL_CAP_NO_RULE);
	/*
	 * An IPv6 chain too long to follow: judged by the rules that need no
	 * transport header (prefix and dst), under the default policy; counted
	 * once, as malformed, whatever they decide.
	 */
	if (pc->p.flags & XRL_PKT_UNFOLLOWED) {
		cnt->malformed[XRL_MAL_IPV6_CHAIN]++;
		if (xrl_cfg.malformed != XRL_MALPOL_EVASIVE)
			return XRL_CAP_EXIT(ctx, &pc->p,
					    xrl_cfg.malformed == XRL_MALPOL_DROP ? xrl_drop(cnt) : xrl_pass(cnt),
					    XRL_CAP_HOW(XRL_CAP_WHY_MALFORMED, XRL_MAL_IPV6_CHAIN), XRL_CAP_NO_RULE);
	}

	/* Classify, in the rule set in force. */
	ctl = bpf_map_lookup_elem(&xrl_ctl, &zero);
	if (!ctl)
		return xrl_pass(cnt);
	set = ctl->active_set & 1;
	kinds = ctl->kinds[set];
	/* Its port and protocol are hidden: a port or protocol rule of the set might have held it. */
	if ((pc->p.flags & XRL_PKT_UNFOLLOWED) && xrl_uses(kinds, XRL_HAS_PORTS | XRL_HAS_PORT_DSTS | XRL_HAS_PROTOS))
		return XRL_CAP_EXIT(ctx, &pc->p, xrl_drop(cnt), XRL_CAP_HOW(XRL_CAP_WHY_HIDDEN, XRL_MAL_IPV6_CHAIN),
				    XRL_CAP_NO_RULE);
	allow = xrl_classify(ctx, &pc->p, set, kinds, &m);
	if (!allow && xrl_carries(XRL_FEAT_MATCH)) {
		xrl_match_classify(ctx, &pc->p, set);
		mt = xrl_match_meet(ctx, &pc->p, set);
		if (mt == XRL_MATCH_ALLOW)
			allow = xrl_match_rule_met(0);
		else if (mt >= XRL_MATCH_HIDDEN) /* never a rule met skipped: apply refuses sets where one could be */
			return XRL_CAP_EXIT(ctx, &pc->p, xrl_drop(cnt),
					    XRL_CAP_HOW(mt == XRL_MATCH_HIDDEN ? XRL_CAP_WHY_HIDDEN : XRL_CAP_WHY_OVER,
							mt == XRL_MATCH_HIDDEN ? XRL_MAL_IPV6_CHAIN : 0),
					    XRL_CAP_NO_RULE);
		else if (mt == XRL_MATCH_MET)
			xrl_match_one_or_more(&m, pc);
	}
	if (allow) {
		__u64 until;

		cnt->allowed++;
		xrl_count_rule(xrl_rule_slot_now(allow, &pc->clk, &until), 0);
		return XRL_CAP_EXIT(ctx, &pc->p, xrl_pass(cnt), XRL_CAP_HOW(XRL_CAP_WHY_ALLOW, 0), allow->id);
	}
	if (!m.met && !xrl_more(pc)) {
		if (pc->p.flags & XRL_PKT_UNFOLLOWED) /* no rule judged it: the default fails closed */
			return XRL_CAP_EXIT(ctx, &pc->p, xrl_drop(cnt),
					    XRL_CAP_HOW(XRL_CAP_WHY_HIDDEN, XRL_MAL_IPV6_CHAIN), XRL_CAP_NO_RULE);
		cnt->no_rule++;
		return XRL_CAP_EXIT(ctx, &pc->p, xrl_pass(cnt), XRL_CAP_HOW(XRL_CAP_WHY_NO_RULE, 0), XRL_CAP_NO_RULE);
	}

	/*
	 * Judge: every rule met must pass, and every rate of a rule; once one
	 * drops the packet, the next are only asked whether they are over. A
	 * monitor rule over passes it, counted.
	 */
	pc->segs = xrl_gso_segs(ctx, &pc->p);
	pc->len = (__u32)(ctx->data_end - ctx->data);
#pragma clang loop unroll(full)
	for (i = 0; i < XRL_MATCHES; i++) {
		r = m.r[i];
		if (!r)
			continue;
		pc->port = xrl_key_port(r, i, pc->p.dport);
		pc->last = xrl_last_match(&m, i) && !xrl_more(pc);
		pc->asked = 0;
		/*
		 * A lease's pass is one packet's: not a super-packet's segments
		 * (generic mode), nor one another rule has dropped already.
		 */
		pc->lease_ok = xrl_leases(r) && xrl_cost(pc, 0) == 1 && !pc->dropping;
		/*
		 * A packet one rule judges (most are): its latch asked first, and over
		 * (a flood) or paid by a lease (a hot source under its limit), it is
		 * counted now, with no call, and goes to its verdict: no other rule
		 * met it, and nothing is left to commit. A packet several rules
		 * judge has each one's latch asked in its judgement (xrl_judge_rule).
		 */
		first = m.met == 1U << i && !xrl_more(pc) ? xrl_latch_first(r, pc) : 0;
		/*
		 * The compiler may merge the unrolled iterations' ways out below into
		 * one, i a register: bounded behind a barrier, the verifier sees its bound.
		 */
		j = i;
		asm volatile("" : "+r"(j));
		if (j >= XRL_MATCHES)
			j = 0;
		if (first == XRL_FIRST_OVER) {
			xrl_commit_over(r, pc);
			res[j] = XRL_J_OVER | XRL_J_COMMITTED;
			monitor = !!(r->flags & XRL_F_MONITOR);
			over = !monitor;
			goto verdict;
		}
		if (first == XRL_FIRST_LEASED) {
			xrl_count_rule(bpf_map_lookup_elem(&xrl_rule_stats, &r->id), 0);
			res[j] = XRL_J_COMMITTED;
			over = 0;
			goto verdict;
		}
		res[i] = (__u32)xrl_judge_rule(r, pc);
		if (!(res[i] & XRL_J_OVER))
			continue;
		if (r->flags & XRL_F_MONITOR)
			monitor = 1;
		else
			pc->dropping = 1;
	}
	/* The rules of several fields met, after the other kinds': a loop the verifier walks once (match.h). */
	if (xrl_more(pc))
		monitor = xrl_match_judge(pc, monitor);

	/* Commit: each rule counts the packet's fate. */
	over = pc->dropping;
#pragma clang loop unroll(full)
	for (i = 0; i < XRL_MATCHES; i++) {
		r = m.r[i];
		if (!r || (res[i] & XRL_J_COMMITTED))
			continue;
		pc->port = xrl_key_port(r, i, pc->p.dport);
		xrl_commit_rule(r, pc, res[i], over);
	}
	if (xrl_more(pc))
		xrl_match_commit(over);

	/* Verdict: one exit for both, so a capture's check is verified once for the states that reach it. */
verdict:
	ret = over ? xrl_drop(cnt) : xrl_pass(cnt);
	if (!over && monitor)
		cnt->monitored++;
	return XRL_CAP_EXIT(ctx, &pc->p, ret,
			    XRL_CAP_HOW(over	? XRL_CAP_WHY_OVER :
					monitor ? XRL_CAP_WHY_MONITOR :
						  XRL_CAP_WHY_UNDER,
					0),
			    xrl_decider(&m, res, over, monitor));
}

/*
 * A frame passed goes on to the program in xrl_then, when one is set (load
 * --then, the chain command): a tail call, so the chained program's verdict
 * is the frame's. A dropped frame never reaches it; with none set, or when
 * the call fails, the frame passes.
 */
SEC("xdp")
int xdp_ratelimit(struct xdp_md *ctx)
{
	int verdict = xrl_verdict(ctx);

	if (verdict == XDP_PASS)
		bpf_tail_call(ctx, &xrl_then, 0);
	return verdict;
}
