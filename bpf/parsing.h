/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Packet parsing for the limiter: a cursor and a bounds check before every
 * read, after xdp-tools' parsing_helpers.h. Finds the source address and, when
 * the packet carries one, the TCP or UDP destination port, the TCP SYN, the
 * ICMP type, and whether it is a later fragment.
 */
#ifndef XRL_PARSING_H
#define XRL_PARSING_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "xrl_common.h"

#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD
#define ETH_P_8021Q 0x8100
#define ETH_P_8021AD 0x88A8

#define XRL_VLAN_MAX 2	   /* 802.1Q, and 802.1ad outside it (QinQ) */
#define XRL_IPV6_EXT_MAX 8 /* extension headers skipped before giving up */

#define IPPROTO_HOPOPTS 0
#define IPPROTO_ROUTING 43
#define IPPROTO_FRAGMENT 44
#define IPPROTO_AH 51
#define IPPROTO_DSTOPTS 60

#define XRL_IP_OFFSET 0x1FFF
#define XRL_IP_MF 0x2000
#define XRL_IP6_MF 0x0001

struct xrl_pkt {
	__u8 family;	/* XRL_FAMILY_V4 or XRL_FAMILY_V6 */
	__u8 proto;	/* transport protocol number */
	__u8 has_port;	/* TCP or UDP header present (not a later fragment) */
	__u8 flags;	/* XRL_PKT_* */
	__u16 dport;	/* host order */
	__u8 icmp_type; /* with XRL_PKT_TYPE */
	__u8 l3off;	/* where the IP header starts: the destination is read from there when needed */
	__u8 src[16] __attribute__((aligned(4))); /* IPv4 in the first four bytes */
};

#define XRL_PKT_SYN (1U << 0)	     /* TCP, SYN set and ACK clear */
#define XRL_PKT_TYPE (1U << 1)	     /* ICMP or ICMPv6: icmp_type holds its type */
#define XRL_PKT_LATER_FRAG (1U << 2) /* a fragment that is not the first: no transport header */
#define XRL_PKT_UNFOLLOWED (1U << 3) /* an IPv6 chain longer than XRL_IPV6_EXT_MAX: proto is where it stopped */

#define XRL_TCP_SYN 0x02
#define XRL_TCP_ACK 0x10

enum xrl_parse_res {
	XRL_PARSE_IP = 0,
	XRL_PARSE_NON_IP = 1,
	/* negative: -(1 + enum xrl_malformed) */
};

#define XRL_MALFORMED(reason) (-1 - (int)(reason))

struct xrl_cursor {
	void *pos;
	void *end;
};

struct vlan_hdr_x {
	__be16 tci;
	__be16 proto;
};

struct ipv6_opt_x {
	__u8 nexthdr;
	__u8 hdrlen;
};

/*
 * The transport header; first_frag: the packet is a first fragment, and a
 * header cut short there is an evasion (RFC 1858's tiny fragment), not a
 * truncation the host drops itself.
 */
static __always_inline int xrl_parse_l4(struct xrl_cursor *c, void *l3_end, struct xrl_pkt *p, int first_frag)
{
	int cut = first_frag ? XRL_MALFORMED(XRL_MAL_FRAG_TINY) : XRL_MALFORMED(XRL_MAL_L4);

	if (p->proto == XRL_PROTO_TCP) {
		struct tcphdr *th = c->pos;

		if ((void *)(th + 1) > c->end || (void *)(th + 1) > l3_end)
			return cut;
		p->dport = bpf_ntohs(th->dest);
		p->has_port = 1;
		/* The flags byte: 13 bytes into the header. */
		if ((((__u8 *)th)[13] & (XRL_TCP_SYN | XRL_TCP_ACK)) == XRL_TCP_SYN)
			p->flags |= XRL_PKT_SYN;
	} else if (p->proto == XRL_PROTO_UDP) {
		struct udphdr *uh = c->pos;

		if ((void *)(uh + 1) > c->end || (void *)(uh + 1) > l3_end)
			return cut;
		p->dport = bpf_ntohs(uh->dest);
		p->has_port = 1;
	} else if (p->proto == XRL_PROTO_ICMP || p->proto == XRL_PROTO_ICMPV6) {
		__u8 *type = c->pos;

		/*
		 * No type to read is no malformation (the packet matches plain icmp
		 * rules only), but in a first fragment it hides the type.
		 */
		if ((void *)(type + 1) <= c->end && (void *)(type + 1) <= l3_end) {
			p->icmp_type = *type;
			p->flags |= XRL_PKT_TYPE;
		} else if (first_frag) {
			return cut;
		}
	}
	return XRL_PARSE_IP;
}

static __always_inline int xrl_parse_ipv4(struct xrl_cursor *c, struct xrl_pkt *p)
{
	struct iphdr *iph = c->pos;
	__u32 hlen, tot, frag;

	if ((void *)(iph + 1) > c->end)
		return XRL_MALFORMED(XRL_MAL_IPV4);
	if (iph->version != 4)
		return XRL_MALFORMED(XRL_MAL_IPV4);
	hlen = iph->ihl * 4;
	if (hlen < sizeof(*iph) || c->pos + hlen > c->end)
		return XRL_MALFORMED(XRL_MAL_IPV4_IHL);
	tot = bpf_ntohs(iph->tot_len);
	if (tot < hlen || c->pos + tot > c->end)
		return XRL_MALFORMED(XRL_MAL_IPV4_LEN);

	p->family = XRL_FAMILY_V4;
	p->proto = iph->protocol;
	__builtin_memcpy(p->src, &iph->saddr, 4);
	/* Only the first fragment carries the transport header. */
	frag = bpf_ntohs(iph->frag_off);
	if (frag & XRL_IP_OFFSET) {
		/* RFC 1858: a TCP fragment at offset 8 would rewrite the first one's flags. */
		if ((frag & XRL_IP_OFFSET) == 1 && p->proto == XRL_PROTO_TCP)
			return XRL_MALFORMED(XRL_MAL_FRAG_TINY);
		p->flags |= XRL_PKT_LATER_FRAG;
		return XRL_PARSE_IP;
	}
	{
		void *l3_end = c->pos + tot;

		c->pos += hlen;
		return xrl_parse_l4(c, l3_end, p, frag & XRL_IP_MF);
	}
}

static __always_inline int xrl_parse_ipv6(struct xrl_cursor *c, struct xrl_pkt *p)
{
	struct ipv6hdr *ip6h = c->pos;
	void *l3_end;
	int i, first_frag = 0;
	__u8 next;

	if ((void *)(ip6h + 1) > c->end)
		return XRL_MALFORMED(XRL_MAL_IPV6);
	if (ip6h->version != 6)
		return XRL_MALFORMED(XRL_MAL_IPV6);
	l3_end = (void *)(ip6h + 1) + bpf_ntohs(ip6h->payload_len);
	if (l3_end > c->end)
		return XRL_MALFORMED(XRL_MAL_IPV6);

	p->family = XRL_FAMILY_V6;
	__builtin_memcpy(p->src, &ip6h->saddr, 16);
	next = ip6h->nexthdr;
	c->pos = ip6h + 1;

	/*
	 * Up to XRL_IPV6_EXT_MAX extension headers. A longer chain is not
	 * malformed to the host, which follows it: the packet goes on with the
	 * protocol where the parser stopped and no port (XRL_PKT_UNFOLLOWED), for
	 * the rules that need neither. In a first fragment the whole chain and the
	 * transport header must be there (RFC 7112): a cut there is an evasion.
	 */
	for (i = 0; i <= XRL_IPV6_EXT_MAX; i++) {
		struct ipv6_opt_x *opt = c->pos;
		struct frag_hdr *fh = c->pos;
		int cut = first_frag ? XRL_MALFORMED(XRL_MAL_FRAG_TINY) : XRL_MALFORMED(XRL_MAL_IPV6_EXT);

		switch (next) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
		case IPPROTO_AH:
		case IPPROTO_FRAGMENT:
			if (i == XRL_IPV6_EXT_MAX) {
				p->proto = next;
				p->flags |= XRL_PKT_UNFOLLOWED;
				return XRL_PARSE_IP;
			}
			break;
		default:
			p->proto = next;
			if (c->pos > l3_end)
				return cut;
			return xrl_parse_l4(c, l3_end, p, first_frag);
		}
		if (next == IPPROTO_FRAGMENT) {
			__u16 off;

			if ((void *)(fh + 1) > c->end)
				return XRL_MALFORMED(XRL_MAL_IPV6_EXT);
			next = fh->nexthdr;
			c->pos = fh + 1;
			/* A fragment header past the payload is no fragment header. */
			if (c->pos > l3_end)
				return XRL_MALFORMED(XRL_MAL_IPV6_EXT);
			off = bpf_ntohs(fh->frag_off);
			/* A later fragment has no transport header; at offset 8, TCP's would be rewritten (RFC 1858). */
			if (off & ~0x7) {
				if ((off >> 3) == 1 && next == XRL_PROTO_TCP)
					return XRL_MALFORMED(XRL_MAL_FRAG_TINY);
				p->proto = next;
				p->flags |= XRL_PKT_LATER_FRAG;
				return XRL_PARSE_IP;
			}
			first_frag = off & XRL_IP6_MF;
			continue;
		}
		if ((void *)(opt + 1) > c->end)
			return cut;
		c->pos += next == IPPROTO_AH ? (opt->hdrlen + 2) * 4 : (opt->hdrlen + 1) * 8;
		next = opt->nexthdr;
		if (c->pos > l3_end)
			return cut;
	}
	return XRL_MALFORMED(XRL_MAL_IPV6_EXT);
}

/* Returns XRL_PARSE_IP, XRL_PARSE_NON_IP or XRL_MALFORMED(reason). */
static __always_inline int xrl_parse(struct xdp_md *ctx, struct xrl_pkt *p)
{
	struct xrl_cursor c = {
		.pos = (void *)(long)ctx->data,
		.end = (void *)(long)ctx->data_end,
	};
	struct ethhdr *eth = c.pos;
	__u16 proto;
	int i;

	if ((void *)(eth + 1) > c.end)
		return XRL_MALFORMED(XRL_MAL_ETH);
	proto = bpf_ntohs(eth->h_proto);
	c.pos = eth + 1;

	for (i = 0; i <= XRL_VLAN_MAX; i++) {
		struct vlan_hdr_x *vh = c.pos;

		if (proto != ETH_P_8021Q && proto != ETH_P_8021AD)
			break;
		if (i == XRL_VLAN_MAX || (void *)(vh + 1) > c.end)
			return XRL_MALFORMED(XRL_MAL_VLAN);
		proto = bpf_ntohs(vh->proto);
		c.pos = vh + 1;
	}
	p->l3off = sizeof(*eth) + i * sizeof(struct vlan_hdr_x);

	if (proto == ETH_P_IP)
		return xrl_parse_ipv4(&c, p);
	if (proto == ETH_P_IPV6)
		return xrl_parse_ipv6(&c, p);
	return XRL_PARSE_NON_IP;
}

#endif /* XRL_PARSING_H */
