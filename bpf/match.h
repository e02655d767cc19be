/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Rules of several fields: classify (xrl_match_meet: the classifier of
 * xrl_lbvs.h on the active set's tables, then each rule's checks the
 * classifier does not make, its addresses and fingerprint), then judge and
 * commit each rule met after the other kinds' (bpf_loop callbacks calling
 * the same xrl_judge_rule and xrl_commit_rule as the pipeline). Only a
 * program that carries XRL_FEAT_MATCH calls them.
 *
 * More than XRL_LBVS_MAX_MATCH rules met by one packet: apply refuses a set
 * where a packet can match more (codec/match_maps.c), so the classifier's
 * `more` never comes up; should it, the packet is dropped rather than one
 * of its rules skipped (xrl_match_meet returns XRL_MATCH_TOO_MANY).
 */
#ifndef XRL_BPF_MATCH_H
#define XRL_BPF_MATCH_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xrl_key.h"
#include "xrl_match.h"
#include "xrl_capture.h"
#include "config.h"
#include "parsing.h"
#include "pctx.h"
#include "judge.h"
#include "commit.h"
#include "match_maps.h"
#include "classify.h"

/* What xrl_match_meet found. */
#define XRL_MATCH_NONE 0
#define XRL_MATCH_MET 1	     /* rules met, to be judged: xrl_match_tmp's slot[0..n) */
#define XRL_MATCH_ALLOW 2    /* an allow rule met it: slot[0], the packet passes */
#define XRL_MATCH_HIDDEN 3   /* an IPv6 chain too long to follow hides the fields the set's rules need */
#define XRL_MATCH_TOO_MANY 4 /* more rules than XRL_LBVS_MAX_MATCH: see above */

/*
 * Whether match rules met pc's packet, to be judged after the other kinds':
 * tested with the feature first, so that a program without it prunes every
 * branch on it whatever the verifier knows of pc->more (read with its
 * neighbours, it was unknown, and a program of port rules alone walked
 * their judgement too: 136k instructions against 118k).
 */
static __always_inline int xrl_more(const struct xrl_pctx *pc)
{
	return xrl_carries(XRL_FEAT_MATCH) && pc->more;
}

/* Match rule i met (xrl_match_tmp's slot[i]); NULL for none. */
static __always_inline struct xrl_rule *xrl_match_rule_met(__u32 i)
{
	struct xrl_match_rule *mr;
	struct xrl_match_tmp *t;
	__u32 zero = 0, slot;

	t = bpf_map_lookup_elem(&xrl_match_tmp, &zero);
	if (!t)
		return NULL;
	slot = t->slot[i & (XRL_LBVS_MAX_MATCH - 1)];
	mr = bpf_map_lookup_elem(&xrl_match_rules, &slot);
	return mr ? &mr->r : NULL;
}

/*
 * Whether addr (of family, in the named sets of bits sets) is where a
 * holds: its prefix or set, or outside it when negated; a of neither holds
 * any.
 */
static __always_inline int xrl_match_addr_ok(const struct xrl_match_addr *a, __u8 family, const __u8 *addr, __u64 sets)
{
	__u32 x, y, i, b, diff = 0;

	if (a->set)
		return !((sets >> ((a->set - 1) & (XRL_MATCH_SETS_MAX - 1))) & 1) == !!a->neg;
	if (!a->family)
		return 1;
	if (a->family != family)
		return 0;
#pragma clang loop unroll(full)
	for (i = 0; i < 4; i++) {
		b = a->plen > 32 * i ? a->plen - 32 * i : 0;
		b = b < 32 ? b : 32;
		__builtin_memcpy(&x, XRL_ALIGNED4(addr + 4 * i), 4);
		__builtin_memcpy(&y, a->addr + 4 * i, 4);
		diff |= (x ^ y) & xrl_htonl((__u32)(0xffffffffULL << (32 - b)));
	}
	return !diff != !!a->neg;
}

/*
 * Whether the fingerprint of rule mr is in frame ctx: its bytes under its
 * mask, pay_off bytes into the transport payload (which starts at pay_off
 * and has pay_len bytes). Its bytes loaded at once and compared as one
 * word with the rule's (masked, zero past its length), with no loop: the
 * verifier walks it once.
 */
static __always_inline int xrl_match_payload(struct xdp_md *ctx, const struct xrl_match_rule *mr, __u32 pay_off,
					     __u32 pay_len)
{
	__u64 x = 0, want, mask;
	__u32 n = mr->pay_len;

	if (!n)
		return 1;
	if (!pay_off || n > XRL_MATCH_PAYLOAD_MAX || (__u32)mr->pay_off + n > pay_len)
		return 0;
	if (bpf_xdp_load_bytes(ctx, pay_off + mr->pay_off, &x, n))
		return 0;
	__builtin_memcpy(&want, mr->pay, sizeof(want));
	__builtin_memcpy(&mask, mr->pay_mask, sizeof(mask));
	return (x & mask) == want;
}

/*
 * Where the transport header of IPv6 packet l3 starts, past its extension
 * headers (the parser followed them already: a chain it could not follow
 * never comes here), and whether it is a first fragment.
 */
static __always_inline void *xrl_match_l4_v6(struct ipv6hdr *ip6h, void *end, __u8 *frag)
{
	void *pos = ip6h + 1;
	__u8 next = ip6h->nexthdr;
	int i;

	for (i = 0; i < XRL_IPV6_EXT_MAX; i++) {
		struct ipv6_opt_x *opt = pos;
		struct frag_hdr *fh = pos;

		if (next != IPPROTO_HOPOPTS && next != IPPROTO_ROUTING && next != IPPROTO_DSTOPTS &&
		    next != IPPROTO_AH && next != IPPROTO_FRAGMENT)
			return pos;
		if (next == IPPROTO_FRAGMENT) {
			if ((void *)(fh + 1) > end)
				return NULL;
			if (bpf_ntohs(fh->frag_off) & XRL_IP6_MF)
				*frag = XRL_LBVS_FRAG_FIRST;
			next = fh->nexthdr;
			pos = fh + 1;
			continue;
		}
		if ((void *)(opt + 1) > end)
			return NULL;
		pos += next == IPPROTO_AH ? (opt->hdrlen + 2) * 4 : (opt->hdrlen + 1) * 8;
		next = opt->nexthdr;
	}
	return next == IPPROTO_HOPOPTS || next == IPPROTO_ROUTING || next == IPPROTO_DSTOPTS || next == IPPROTO_AH ||
			       next == IPPROTO_FRAGMENT ?
		       NULL :
		       pos;
}

/*
 * The fields only the rules of several fields read, from frame ctx whose
 * headers the parser found (p): the IP header's at p->l3off, then the
 * transport header's, found again here rather than kept by the parser
 * (a value it kept on every path doubled the states the verifier walks,
 * program-wide, for every build). Offsets are checked under 16K: the
 * verifier bounds a packet pointer's variable offset under 64K.
 */
static __always_inline void xrl_match_fields_read(struct xdp_md *ctx, const struct xrl_pkt *p,
						  struct xrl_match_fields *f)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end, *l3, *l4, *l3_end;
	__u32 hlen = 0;
	__u64 off;

	__builtin_memset(f, 0, sizeof(*f));
	l3 = data + (p->l3off & 0xff);
	if (p->family == XRL_FAMILY_V4) {
		struct iphdr *iph = l3;
		__u16 frag;

		if ((void *)(iph + 1) > end)
			return;
		__builtin_memcpy(f->dst, &iph->daddr, 4);
		f->len = bpf_ntohs(iph->tot_len);
		f->ttl = iph->ttl;
		f->dscp = iph->tos >> 2;
		frag = bpf_ntohs(iph->frag_off);
		f->frag = (frag & XRL_IP_OFFSET) ? XRL_LBVS_FRAG_LATER :
			  (frag & XRL_IP_MF)	 ? XRL_LBVS_FRAG_FIRST :
						   XRL_LBVS_FRAG_NONE;
		l4 = l3 + iph->ihl * 4;
	} else {
		struct ipv6hdr *ip6h = l3;

		if ((void *)(ip6h + 1) > end)
			return;
		__builtin_memcpy(f->dst, &ip6h->daddr, 16);
		f->len = (__u16)(bpf_ntohs(ip6h->payload_len) + sizeof(*ip6h));
		f->ttl = ip6h->hop_limit;
		/* The traffic class: the 4 bits after the version, then the top 4 of the flow label's first byte. */
		f->dscp = (__u8)(((ip6h->priority << 4) | (ip6h->flow_lbl[0] >> 4)) >> 2);
		if (p->flags & XRL_PKT_LATER_FRAG) {
			f->frag = XRL_LBVS_FRAG_LATER;
			return;
		}
		l4 = xrl_match_l4_v6(ip6h, end, &f->frag);
		if (!l4)
			return;
	}
	if (p->flags & (XRL_PKT_LATER_FRAG | XRL_PKT_UNFOLLOWED))
		return;
	off = (__u64)(l4 - data);
	if (off > 0x3fff)
		return;
	off &= 0x3fff;
	l4 = data + off;
	l3_end = l3 + (f->len & 0xffff);
	if (p->proto == XRL_PROTO_TCP) {
		struct tcphdr *th = l4;

		if ((void *)(th + 1) > end)
			return;
		f->sport = bpf_ntohs(th->source);
		f->tcpflags = ((__u8 *)th)[13];
		hlen = th->doff * 4;
	} else if (p->proto == XRL_PROTO_UDP) {
		struct udphdr *uh = l4;

		if ((void *)(uh + 1) > end)
			return;
		f->sport = bpf_ntohs(uh->source);
		hlen = sizeof(*uh);
	} else if (p->proto == XRL_PROTO_ICMP || p->proto == XRL_PROTO_ICMPV6) {
		__u8 *code = l4 + 1;

		if ((void *)(code + 1) <= end && (void *)(code + 1) <= l3_end)
			f->icmp_code = *code;
		hlen = 8;
	}
	/* The transport payload, for a fingerprint: none where the header is longer than the packet. */
	if (l4 + hlen > l3_end || l4 + hlen > end)
		return;
	f->pay_off = (__u16)(off + hlen);
	f->pay_len = (__u16)(l3_end - (l4 + hlen));
}

/* The packet's values of the classifier's fields, from p and its match fields f. */
static __always_inline void xrl_match_values(const struct xrl_pkt *p, const struct xrl_match_fields *f,
					     struct xrl_lbvs_pkt *v)
{
	int l4 = !(p->flags & XRL_PKT_LATER_FRAG);

	v->v[XRL_LBVS_DPORT] = p->has_port ? p->dport : 0;
	v->v[XRL_LBVS_SPORT] = p->has_port ? f->sport : 0;
	v->v[XRL_LBVS_ICMP] = (p->flags & XRL_PKT_TYPE) ? (__u16)((__u16)p->icmp_type << 8 | f->icmp_code) : 0;
	v->v[XRL_LBVS_LENGTH] = f->len;
	v->v[XRL_LBVS_TTL] = f->ttl;
	v->v[XRL_LBVS_TCPFLAGS] = l4 && p->proto == XRL_PROTO_TCP ? f->tcpflags : 0;
	v->v[XRL_LBVS_PROTO] = p->proto;
	v->v[XRL_LBVS_DSCP] = f->dscp;
	v->v[XRL_LBVS_FRAG] = f->frag;
}

/*
 * Classifies packet p (of frame ctx) by the classifier of set into
 * xrl_match_tmp (classified: 1 when it was). A function of its own, called
 * by the program before xrl_match_meet: the classifier's frame and its
 * loops' are then beside the rest of the call chain, not below it.
 */
__noinline int xrl_match_classify(struct xdp_md *ctx, const struct xrl_pkt *p, __u32 set)
{
	struct xrl_lbvs_ctx c = {};
	struct xrl_match_cfg *mc;
	struct xrl_match_tmp *t;

	if (!ctx || !p)
		return 0;
	set &= 1;
	mc = bpf_map_lookup_elem(&xrl_match_cfgs, &set);
	t = bpf_map_lookup_elem(&xrl_match_tmp, &xrl_zero_key);
	if (!t)
		return 0;
	t->classified = 0;
	if (!mc || !mc->nrules || (p->flags & XRL_PKT_UNFOLLOWED))
		return 0;
	c.cfg = &mc->lbvs;
	xrl_match_fields_read(ctx, p, &t->f);
	xrl_match_values(p, &t->f, &t->v);
	t->classified = !xrl_lbvs_classify(&c, &t->v, &t->res);
	return 0;
}

/*
 * The named sets of match rules (xrl_match.h) that hold address a (of
 * family) as a source (kind XRL_MSET_SRC) or destination, in rule set set:
 * a bit a set. A global function: verified once.
 */
__noinline __u64 xrl_mset_of(const struct xrl_addr *a, __u32 kind, __u32 set, __u32 family)
{
	__u64 *w;
	__u32 ix;

	if (!a)
		return 0;
	ix = XRL_MSET_CLASS(set, xrl_lpm_find_in(&xrl_match_sets, a, kind, set, family));
	w = bpf_map_lookup_elem(&xrl_match_sets, &ix);
	return w ? *w : 0;
}

/* What xrl_match_meet_cb is given: the packet, where its frame is, the set, and the named sets holding its addresses. */
struct xrl_meet_ctx {
	struct xdp_md *ctx;
	const struct xrl_pkt *p;
	__u64 srcsets, dstsets;
	__u32 set;
	__u32 found; /* XRL_MATCH_* */
};

/*
 * bpf_loop's callback: the classifier's match i, past its rule's checks
 * the classifier does not make (addresses, fingerprint), into
 * xrl_match_tmp's slots. An allow rule met ends the search. A callback, not
 * a loop of the function: the verifier walks it once, not once an
 * iteration and a branch of each.
 */
static long xrl_match_meet_cb(__u64 i, void *data)
{
	struct xrl_meet_ctx *mc = data;
	struct xrl_match_rule *mr;
	struct xrl_match_tmp *t;
	__u32 slot;

	t = bpf_map_lookup_elem(&xrl_match_tmp, &xrl_zero_key);
	if (!t || i >= t->res.n || i >= XRL_LBVS_MAX_MATCH)
		return 1;
	slot = XRL_MATCH_SLOT(mc->set, t->res.bit[i]);
	mr = bpf_map_lookup_elem(&xrl_match_rules, &slot);
	if (!mr || !mr->used || !xrl_match_addr_ok(&mr->src, mc->p->family, mc->p->src, mc->srcsets) ||
	    !xrl_match_addr_ok(&mr->dst, mc->p->family, t->f.dst, mc->dstsets) ||
	    !xrl_match_payload(mc->ctx, mr, t->f.pay_off, t->f.pay_len))
		return 0;
	if (mr->r.flags & XRL_F_ALLOW) {
		t->slot[0] = slot;
		t->n = 1;
		t->allow = 1;
		mc->found = XRL_MATCH_ALLOW;
		return 1;
	}
	t->slot[t->n & (XRL_LBVS_MAX_MATCH - 1)] = slot;
	t->n++;
	mc->found = XRL_MATCH_MET;
	return 0;
}

/*
 * The match rules of set that packet p (of frame ctx) meets, into
 * xrl_match_tmp: XRL_MATCH_*. The classifier yields the rules whose small
 * fields all match, in ascending bits; each rule's addresses and fingerprint
 * are checked past it (xrl_match_meet_cb), the packet's addresses looked up
 * once in the named sets the rules use, when the classifier yields any.
 */
__noinline int xrl_match_meet(struct xdp_md *ctx, const struct xrl_pkt *p, __u32 set)
{
	struct xrl_meet_ctx mc = { .ctx = ctx, .p = p, .set = set & 1, .found = XRL_MATCH_NONE };
	struct xrl_match_cfg *cfg;
	struct xrl_match_tmp *t;

	if (!ctx || !p)
		return XRL_MATCH_NONE;
	cfg = bpf_map_lookup_elem(&xrl_match_cfgs, &mc.set);
	t = bpf_map_lookup_elem(&xrl_match_tmp, &xrl_zero_key);
	if (!t)
		return XRL_MATCH_NONE;
	t->decider = XRL_CAP_NO_RULE; /* not an earlier packet's: xrl_decider falls back on it */
	if (!cfg || !cfg->nrules)
		return XRL_MATCH_NONE;
	if (p->flags & XRL_PKT_UNFOLLOWED)
		return XRL_MATCH_HIDDEN;
	t->n = 0;
	t->allow = 0;
	t->out = 0;
	if (!t->classified)
		return XRL_MATCH_NONE;
	if (t->res.more)
		return XRL_MATCH_TOO_MANY;
	if (!t->res.n)
		return XRL_MATCH_NONE;
	if (cfg->sets & XRL_MATCH_SETS_SRC)
		mc.srcsets = xrl_mset_of((const struct xrl_addr *)p->src, XRL_MSET_SRC, mc.set, p->family);
	if (cfg->sets & XRL_MATCH_SETS_DST)
		mc.dstsets = xrl_mset_of((const struct xrl_addr *)t->f.dst, XRL_MSET_DST, mc.set, p->family);
	bpf_loop(XRL_LBVS_MAX_MATCH, xrl_match_meet_cb, &mc, 0);
	return mc.found;
}

/*
 * The port in the key of rule r, met as kind i, for a packet to dport: the
 * packet's for a port rule and a match rule per destination port, else 0.
 */
static __always_inline __u16 xrl_key_port(const struct xrl_rule *r, __u32 i, __u16 dport)
{
	if (i == XRL_M_PORT)
		return dport;
	if (i == XRL_M_MATCH && (r->flags & XRL_F_PER_DPORT))
		return dport;
	return 0;
}

/*
 * The match rules met (xrl_match_meet found some): one, the only rule the
 * packet meets, counted by its source, is judged as a lone rule of the
 * other kinds is, in m (its latch asked first, no call when it answers: a
 * flood's path); else they are judged after the other kinds'
 * (pc->more: xrl_match_judge). Only a lone one: with rules of other kinds
 * met, a fifth kind in m would double the states the verifier walks.
 */
static __always_inline void xrl_match_one_or_more(struct xrl_matches *m, struct xrl_pctx *pc)
{
	struct xrl_match_tmp *t = bpf_map_lookup_elem(&xrl_match_tmp, &xrl_zero_key);
	struct xrl_rule *r;

	if (!t)
		return;
	r = t->n == 1 && !m->met ? xrl_match_rule_met(0) : NULL;
	if (r && !(r->flags & XRL_F_PER_DST)) {
		m->r[XRL_M_MATCH] = r;
		m->met |= 1U << XRL_M_MATCH;
		return;
	}
	pc->more = 1;
}

/*
 * The key of match rule r for pc's packet, as xrl_key_make_pkt makes it:
 * the port a rule per destination port counts by goes to pc->port, and the
 * destination a rule per destination counts by takes the source's place in
 * pc->p.src for its judgement and commit (on) and goes back after (!on;
 * the source kept in t). So xrl_key_for, inlined in the program, its
 * judgement and commit alike, needs no more code and no more stack for
 * them, which the call chain below the judgement has no room for.
 */
static __always_inline void xrl_match_key(struct xrl_pctx *pc, const struct xrl_rule *r, struct xrl_match_tmp *t,
					  int on)
{
	pc->port = on && (r->flags & XRL_F_PER_DPORT) ? pc->p.dport : 0;
	if (!(r->flags & XRL_F_PER_DST))
		return;
	if (on) {
		__builtin_memcpy(t->src, pc->p.src, sizeof(t->src));
		__builtin_memcpy(pc->p.src, t->f.dst, sizeof(t->src));
	} else {
		__builtin_memcpy(pc->p.src, t->src, sizeof(t->src));
	}
}

/* xrl_match_tmp.out: a monitor rule among them was over. */
#define XRL_MATCH_OUT_MONITOR 1

/* Whether rule r, judged res, decided the packet's fate (over, monitor): xrl_decider's test. */
static __always_inline int xrl_decided(const struct xrl_rule *r, __u32 res, int over, int monitor)
{
	return over ? (res & XRL_J_OVER) && !(r->flags & XRL_F_MONITOR) : !monitor || (res & XRL_J_OVER);
}

/* The packet's classification, for the callbacks' rule met i; NULL past the rules met, which ends their loop. */
static __always_inline struct xrl_match_tmp *xrl_match_cb_tmp(__u64 i)
{
	struct xrl_match_tmp *t = bpf_map_lookup_elem(&xrl_match_tmp, &xrl_zero_key);

	return t && i < t->n && i < XRL_LBVS_MAX_MATCH ? t : NULL;
}

/*
 * bpf_loop's callback: judges match rule i met (xrl_match_meet), after the
 * other kinds' rules, as the pipeline judges a rule; the last one commits
 * in its judgement. Its context is the packet's struct xrl_pctx copied
 * into xrl_match_tmp (xrl_match_judge), not the program's stack: the
 * verifier then walks the callback once, not once for each state of the
 * program's stack at the call (the other kinds' rules met, their
 * judgements). Its frame is small: the call chain below it
 * (xrl_judge_rule, xrl_judge_slow) needs the rest of the stack.
 */
static long xrl_match_judge_cb(__u64 i, void *ctx)
{
	struct xrl_match_rule *mr;
	struct xrl_match_tmp *t;
	struct xrl_pctx *pc;
	__u32 res;

	(void)ctx;
	t = xrl_match_cb_tmp(i);
	if (!t)
		return 1;
	pc = (struct xrl_pctx *)t->pc;
	mr = bpf_map_lookup_elem(&xrl_match_rules, &t->slot[i]);
	if (!mr) {
		t->judged[i] = XRL_J_COMMITTED;
		return 0;
	}
	pc->last = i + 1 == t->n;
	pc->asked = 0;
	/* A lease's pass is one packet's: not a super-packet's segments, nor one another rule dropped. */
	pc->lease_ok = xrl_leases(&mr->r) && xrl_cost(pc, 0) == 1 && !pc->dropping;
	xrl_match_key(pc, &mr->r, t, 1);
	res = (__u32)xrl_judge_rule(&mr->r, pc);
	xrl_match_key(pc, &mr->r, t, 0);
	t->judged[i] = res;
	if (res & XRL_J_OVER) {
		if (mr->r.flags & XRL_F_MONITOR)
			t->out |= XRL_MATCH_OUT_MONITOR;
		else
			pc->dropping = 1;
	}
	return 0;
}

static long xrl_match_commit_cb(__u64 i, void *ctx);

_Static_assert(sizeof(struct xrl_pctx) <= XRL_MATCH_PCTX_BYTES, "the packet's context fits xrl_match_tmp");

/*
 * Judges the match rules met, after the other kinds' (pc->dropping: one of
 * them dropped the packet), on a copy of pc (xrl_match_judge_cb); what
 * they decide comes back into pc. Returns whether a rule met is a monitor
 * over: monitor, the other kinds', or a match rule's, noted for the commit.
 */
static __always_inline int xrl_match_judge(struct xrl_pctx *pc, int monitor)
{
	struct xrl_match_tmp *t = bpf_map_lookup_elem(&xrl_match_tmp, &xrl_zero_key);

	if (!t)
		return monitor;
	__builtin_memcpy(t->pc, pc, sizeof(*pc));
	bpf_loop(XRL_LBVS_MAX_MATCH, xrl_match_judge_cb, NULL, 0);
	pc->dropping = ((struct xrl_pctx *)t->pc)->dropping;
	if (monitor)
		t->out |= XRL_MATCH_OUT_MONITOR;
	return !!(t->out & XRL_MATCH_OUT_MONITOR);
}

/* Commits the match rules judged, the packet's fate known (over). */
static __always_inline void xrl_match_commit(int over)
{
	struct xrl_match_tmp *t = bpf_map_lookup_elem(&xrl_match_tmp, &xrl_zero_key);

	if (!t)
		return;
	((struct xrl_pctx *)t->pc)->dropping = !!over;
	bpf_loop(XRL_LBVS_MAX_MATCH, xrl_match_commit_cb, NULL, 0);
}

/*
 * bpf_loop's callback: match rule i counts the packet's fate (dropped:
 * pc->dropping), unless its judgement committed; the first that decided it
 * is noted for a capture (xrl_match_decider).
 */
static long xrl_match_commit_cb(__u64 i, void *ctx)
{
	struct xrl_match_rule *mr;
	struct xrl_match_tmp *t;
	struct xrl_pctx *pc;
	__u32 res;

	(void)ctx;
	t = xrl_match_cb_tmp(i);
	if (!t)
		return 1;
	pc = (struct xrl_pctx *)t->pc;
	mr = bpf_map_lookup_elem(&xrl_match_rules, &t->slot[i]);
	if (!mr)
		return 0;
	res = t->judged[i];
	if (!(res & XRL_J_COMMITTED)) {
		xrl_match_key(pc, &mr->r, t, 1);
		xrl_commit_rule(&mr->r, pc, res, pc->dropping);
		xrl_match_key(pc, &mr->r, t, 0);
	}
	if (t->decider == XRL_CAP_NO_RULE && xrl_decided(&mr->r, res, pc->dropping, t->out & XRL_MATCH_OUT_MONITOR))
		t->decider = mr->r.id;
	return 0;
}

/* The match rule that decided a packet, for a capture (xrl_decider asks when no rule of another kind did). */
static __always_inline __u32 xrl_match_decider(void)
{
	struct xrl_match_tmp *t = bpf_map_lookup_elem(&xrl_match_tmp, &xrl_zero_key);

	return t ? t->decider : XRL_CAP_NO_RULE;
}

#endif /* XRL_BPF_MATCH_H */
