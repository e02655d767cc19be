/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Classify: each kind's index yields at most one rule for a packet: the port
 * rule (one narrowed to the packet's destination first, else the port's
 * own), the protocol rule, the dst rule and the prefix rule. A kind the
 * active set has no rule of costs no lookup, and one the program does not
 * carry no code (xrl_uses). The rules found go to judge (judge.h) in that
 * order; an allow rule ends the search, and the packet passes.
 */
#ifndef XRL_BPF_CLASSIFY_H
#define XRL_BPF_CLASSIFY_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xrl_key.h"
#include "xrl_lpm.h"
#include "config.h"
#include "parsing.h"
#include "maps.h"

/* The kinds of rule a packet may meet, one rule of each at most, in the order they are judged. */
enum xrl_match_kind {
	XRL_M_MATCH = 0, /* a rule of several fields, when it is the one the packet meets of them (match.h) */
	XRL_M_PORT,
	XRL_M_PROTO,
	XRL_M_DST,
	XRL_M_PREFIX,
	XRL_MATCHES,
};

/* The rules a packet met: NULL for none of that kind; met, a bit a kind met (1 << kind). */
struct xrl_matches {
	struct xrl_rule *r[XRL_MATCHES];
	__u32 met;
};

/* An address as xrl_lpm_find reads it: 16 bytes, IPv4 in the first four. */
struct xrl_addr {
	__u8 b[16];
};

/*
 * The slot of the prefix (kind XRL_LPM_SRC) or dst rule (XRL_LPM_DST) of
 * rule set set whose prefix, single or of a named set, is the longest to
 * hold address a of family; 0 for none: the range structure of xrl_lpm.h
 * (the same search as xrl_lpm_lookup), its directory in map dir: xrl_lpm_dir,
 * or xrl_match_sets for the named sets of match rules (xrl_match.h). Each
 * caller a global function, its loop verified once; every lookup in it an
 * array the verifier inlines.
 */
static __always_inline __u32 xrl_lpm_find_in(void *dir, const struct xrl_addr *a, __u32 kind, __u32 set, __u32 family)
{
	__u32 ix, dv, c, hdr, lo = 0, n, h, i, key;
	__u64 *w, *w2, k0 = 0, k1 = 0;

	if (!a)
		return 0;
	c = ((__u32)a->b[0] << 8) | a->b[1];
	ix = XRL_LPM_DIR(kind & 1, set & 1, family == XRL_FAMILY_V6, c);
	w = bpf_map_lookup_elem(dir, &ix);
	if (!w)
		return 0;
	dv = (__u32)(*w >> (32 * (c & 1)));
	if (!dv || (dv & XRL_LPM_DIRECT))
		return dv & XRL_LPM_SLOT_MASK;
	hdr = dv;
	w = bpf_map_lookup_elem(&xrl_lpm_ranges, &hdr);
	if (!w)
		return 0;
	n = (__u32)*w;
	if (family == XRL_FAMILY_V4) {
		key = ((__u32)a->b[0] << 24) | ((__u32)a->b[1] << 16) | ((__u32)a->b[2] << 8) | a->b[3];
		for (i = 0; i < XRL_LPM_STEPS && n > 1; i++) {
			h = n / 2;
			ix = hdr + 1 + lo + h;
			w = bpf_map_lookup_elem(&xrl_lpm_ranges, &ix);
			if (!w)
				return 0;
			if ((__u32)(*w >> 32) <= key)
				lo += h;
			n -= h;
		}
		ix = hdr + 1 + lo;
	} else {
		for (i = 2; i < 10; i++)
			k0 = k0 << 8 | a->b[i];
		for (i = 10; i < 16; i++)
			k1 = k1 << 8 | a->b[i];
		for (i = 0; i < XRL_LPM_STEPS && n > 1; i++) {
			h = n / 2;
			ix = hdr + 1 + 2 * (lo + h);
			w = bpf_map_lookup_elem(&xrl_lpm_ranges, &ix);
			ix++;
			w2 = bpf_map_lookup_elem(&xrl_lpm_ranges, &ix);
			if (!w || !w2)
				return 0;
			if (*w < k0 || (*w == k0 && (*w2 >> 16) <= k1))
				lo += h;
			n -= h;
		}
		ix = hdr + 2 + 2 * lo;
	}
	w = bpf_map_lookup_elem(&xrl_lpm_ranges, &ix);
	return w ? (__u32)*w & XRL_LPM_SLOT_MASK : 0;
}

__noinline __u32 xrl_lpm_find(const struct xrl_addr *a, __u32 kind, __u32 set, __u32 family)
{
	return xrl_lpm_find_in(&xrl_lpm_dir, a, kind, set, family);
}

/* The prefix (kind XRL_LPM_SRC) or dst rule (XRL_LPM_DST) of set whose prefix is the longest to hold addr. */
static __always_inline struct xrl_rule *xrl_lpm_rule(const __u8 *addr, __u32 kind, __u32 set, __u32 family)
{
	struct xrl_lpm_rule *lr;
	__u32 slot;

	slot = xrl_lpm_find((const struct xrl_addr *)addr, kind, set, family);
	lr = slot ? bpf_map_lookup_elem(&xrl_lpm_rules, &slot) : NULL;
	return lr && lr->used && lr->kind == kind ? &lr->r : NULL;
}

/* The packet's destination address, read from its IP header (struct xrl_pkt keeps only the source). */
static __always_inline int xrl_daddr(struct xdp_md *ctx, const struct xrl_pkt *p, __u8 *addr)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end, *l3 = data + p->l3off;

	if (p->family == XRL_FAMILY_V4) {
		struct iphdr *iph = l3;

		if ((void *)(iph + 1) > end)
			return -1;
		__builtin_memcpy(addr, &iph->daddr, 4);
		return 0;
	}
	struct ipv6hdr *ip6h = l3;

	if ((void *)(ip6h + 1) > end)
		return -1;
	__builtin_memcpy(addr, &ip6h->daddr, 16);
	return 0;
}

/* The port rule of set narrowed to a destination that holds dk's address (xrl_dsts), if any. */
static __always_inline struct xrl_rule *xrl_narrowed_port_rule(const struct xrl_pkt *p, __u32 set,
							       struct xrl_dst_key *dk)
{
	dk->prefixlen = XRL_DST_HDR_BITS + (p->family == XRL_FAMILY_V4 ? 32 : 128);
	dk->set = set & 1;
	dk->family = p->family;
	dk->proto = p->proto;
	dk->port = p->dport;
	return bpf_map_lookup_elem(&xrl_dsts, dk);
}

/* The port rule of set for p's protocol and destination port: two inlined array lookups. */
static __always_inline struct xrl_rule *xrl_port_rule(__u32 set, const struct xrl_pkt *p)
{
	__u32 ix = XRL_PORT_IDX(set, p->proto, p->dport), *slot;
	struct xrl_port_rule *pr;

	slot = bpf_map_lookup_elem(&xrl_port_idx, &ix);
	if (!slot || !*slot)
		return NULL;
	pr = bpf_map_lookup_elem(&xrl_port_rules, slot);
	/* The slot must be this port's: never another port's rule. */
	return pr && pr->used && pr->port == p->dport && pr->proto == p->proto ? &pr->r : NULL;
}

/*
 * The protocol rule for p: its most specific selector first (tcp-syn, an ICMP
 * type, fragments), then its protocol number, as a longest match would.
 */
static __always_inline struct xrl_rule *xrl_proto_rule(__u32 set, const struct xrl_pkt *p)
{
	struct xrl_proto_rule *pr;
	__u32 sel = 0xffff, ix;

	if (p->flags & XRL_PKT_LATER_FRAG)
		sel = XRL_SEL_FRAGMENTS;
	else if (p->flags & XRL_PKT_SYN)
		sel = XRL_SEL_SYN;
	else if ((p->flags & XRL_PKT_TYPE) && p->proto == XRL_PROTO_ICMP)
		sel = XRL_SEL_ICMP(p->icmp_type);
	else if ((p->flags & XRL_PKT_TYPE) && p->proto == XRL_PROTO_ICMPV6)
		sel = XRL_SEL_ICMPV6(p->icmp_type);
	if (sel != 0xffff) {
		ix = XRL_PROTO_IDX(set, sel);
		pr = bpf_map_lookup_elem(&xrl_proto_rules, &ix);
		if (pr && pr->used && pr->sel == sel)
			return &pr->r;
	}
	ix = XRL_PROTO_IDX(set, p->proto);
	pr = bpf_map_lookup_elem(&xrl_proto_rules, &ix);
	if (pr && pr->used && pr->sel == p->proto)
		return &pr->r;
	return NULL;
}

/* Whether the rule of kind i is the last one m holds: none of a later kind. */
static __always_inline int xrl_last_match(const struct xrl_matches *m, __u32 i)
{
	return !(m->met >> (i + 1));
}

/* Notes the rules of m found so far in m->met (a scalar: the verifier refuses arithmetic on pointers). */
static __always_inline void xrl_note_met(struct xrl_matches *m)
{
	__u32 i;

	m->met = 0;
#pragma clang loop unroll(full)
	for (i = 0; i < XRL_MATCHES; i++)
		if (m->r[i])
			m->met |= 1U << i;
}

/* Whether r is an allow rule: what it holds passes, no other rule asked. */
static __always_inline int xrl_allows(const struct xrl_rule *r)
{
	return r && (r->flags & XRL_F_ALLOW);
}

/*
 * The rules of the active set (set, its kinds) that packet p meets, into m:
 * at most one of each kind. Returns the allow rule that holds p, if any:
 * then p passes, no other rule asked. An allow prefix rule is asked first,
 * then an allow dst rule; a port rule narrowed to the destination stands
 * before the port's own.
 */
static __always_inline struct xrl_rule *xrl_classify(struct xdp_md *ctx, const struct xrl_pkt *p, __u32 set, __u8 kinds,
						     struct xrl_matches *m)
{
	if (xrl_uses(kinds, XRL_HAS_PREFIXES)) {
		m->r[XRL_M_PREFIX] = xrl_lpm_rule(p->src, XRL_LPM_SRC, set, p->family);
		if (xrl_allows(m->r[XRL_M_PREFIX]))
			return m->r[XRL_M_PREFIX];
	}
	if (xrl_uses(kinds, XRL_HAS_DSTS | XRL_HAS_PORT_DSTS)) {
		struct xrl_dst_key dk = {}; /* the destination address, then its narrowed port rule's key */

		if (xrl_daddr(ctx, p, dk.addr))
			goto ports;
		if (xrl_uses(kinds, XRL_HAS_DSTS)) {
			m->r[XRL_M_DST] = xrl_lpm_rule(dk.addr, XRL_LPM_DST, set, p->family);
			if (xrl_allows(m->r[XRL_M_DST]))
				return m->r[XRL_M_DST];
		}
		if (p->has_port && xrl_uses(kinds, XRL_HAS_PORT_DSTS))
			m->r[XRL_M_PORT] = xrl_narrowed_port_rule(p, set, &dk);
	}
ports:
	if (!m->r[XRL_M_PORT] && p->has_port && xrl_uses(kinds, XRL_HAS_PORTS))
		m->r[XRL_M_PORT] = xrl_port_rule(set, p);
	if (xrl_uses(kinds, XRL_HAS_PROTOS))
		m->r[XRL_M_PROTO] = xrl_proto_rule(set, p);
	xrl_note_met(m);
	return NULL;
}

#endif /* XRL_BPF_CLASSIFY_H */
