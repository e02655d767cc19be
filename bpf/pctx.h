/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the stages of the pipeline hand on for one packet: its context
 * (struct xrl_pctx), a rule's judgement (XRL_J_*), and the window a rule's
 * judgement counts in (its key, its cost).
 */
#ifndef XRL_BPF_PCTX_H
#define XRL_BPF_PCTX_H

#include "vmlinux.h"
#include "xrl_key.h"
#include "config.h"
#include "clock.h"
#include "parsing.h"

/*
 * What every judgement of one packet reads: the packet, its clock reads and
 * what it counts. On the program's stack, handed to each judgement; it holds
 * no pointer, so a global function may write it (its clock reads).
 */
struct xrl_pctx {
	struct xrl_pkt p;
	struct xrl_times clk;
	struct xrl_key key; /* the key of the window judged (xrl_key_for) */
	__u32 segs;	    /* what it counts in a packet window: 1, or in generic mode a super-packet's segments */
	__u32 len;	    /* what it counts in a byte window: the frame's length as XDP sees it */
	__u16 port;	    /* the key's port for the rule judged: the packet's for a port rule, else 0 */
	__u8 dropping;	    /* an earlier rule dropped the packet: the next ones are only asked whether it is over */
	__u8 asked;	/* the rule's packet window has asked its latch (xrl_latch_first): key and latch_ix are its */
	__u32 latch_ix; /* the latch slot of key (xrl_key_hash) */
	__u8 last;	/* the rule judged is the packet's last: its judgement commits (xrl_judge_rule) */
	__u8 lease_ok;	/* the rule judged may spend or take a lease (xrl_leases, one segment, not dropped yet) */
	__u8 revoked;	/* its window was full, and the leases of its key were taken back (xrl_lease_revoke) */
	__u8 more;	/* rules of several fields met it too: judged after the other kinds' (match.h) */
	__u32 lease;	/* the slow path's: passes it would lease, then leased (off its stack) */
};

/* What the latch asked first answers (xrl_latch_first). */
#define XRL_FIRST_OVER 1
#define XRL_FIRST_LEASED 2

/*
 * Whether rule r's packets may lease passes: packet rates alone, no
 * warm-up (its threshold is the window's). A rule of several windows
 * leases in each (xrl_latch_windows).
 */
static __always_inline int xrl_leases(const struct xrl_rule *r)
{
	return !xrl_has_bytes(r) && !xrl_has_warmup(r) && !(r->flags & XRL_F_NO_LEASE);
}

/* A window's judgement (xrl_judge_slow, xrl_judge_sketch). */
enum {
	XRL_JUDGED_OVER = 1,
	XRL_JUDGED_COUNTED = 2,
	XRL_JUDGED_PAST_CAP = 8, /* a new source past the cap: to be judged by the sketch */
	XRL_JUDGED_REVOKE = 16,	 /* full, where a lease was taken: to be judged again once leases are taken back */
	XRL_JUDGED_LONG = 32,	 /* a long ring whose base did not decide: to be judged by xrl_judge_long */
};

/* A rule's judgement of a packet (xrl_judge_rule), kept by the pipeline until its fate is known. */
#define XRL_J_OVER 1	      /* over: the packet is dropped, unless the rule is a monitor */
#define XRL_J_COUNTED 2	      /* its packet window counted a pass: taken back if the packet is dropped */
#define XRL_J_BYTES_COUNTED 4 /* its byte window counted the frame's bytes: the same */
#define XRL_J_COMMITTED 8     /* counted already (xrl_commit_over, or the last rule's xrl_judge_rule) */
#define XRL_J_LEASED 16	      /* a lease paid its pass: given back if the packet is dropped (xrl_lease_give_back) */
/* Its next window k (0 for the second, XRL_MAX_WINDOWS - 2 at most) counted a pass: the same. */
#define XRL_J_WINDOW_COUNTED(k) (32U << (k))
#define XRL_J_WINDOWS_COUNTED (XRL_J_WINDOW_COUNTED(0) | XRL_J_WINDOW_COUNTED(1) | XRL_J_WINDOW_COUNTED(2))
_Static_assert(XRL_MAX_WINDOWS == 4, "a bit a next window");

/*
 * What the packet counts in a window: its length in a byte window, else 1,
 * or in generic mode the segments of a super-packet.
 */
static __always_inline __u32 xrl_cost(const struct xrl_pctx *pc, int bytes)
{
	if (bytes)
		return pc->len;
	return xrl_cfg.gso_mtu && pc->segs > 1 ? pc->segs : 1;
}

/* The key of rule r's window for pc's packet: its byte window's (XRL_KEY_BYTES) when bytes. */
static __always_inline void xrl_key_for(struct xrl_key *k, const struct xrl_rule *r, const struct xrl_pctx *pc,
					int bytes)
{
	__builtin_memset(k, 0, sizeof(*k));
	xrl_key_make(k, r, pc->p.family, pc->p.src, pc->port, pc->p.proto);
	if (bytes)
		k->rule_id |= XRL_KEY_BYTES;
}

#endif /* XRL_BPF_PCTX_H */
