/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A small packet builder for BPF_PROG_TEST_RUN, after cilium's
 * bpf/tests/pktgen.h: push the layers outermost first, then pkt_finish()
 * fills every next-protocol field, length and checksum that the caller left
 * at zero. Fields set by hand before pkt_finish() are kept, so a test can
 * build a malformed packet by setting them, or by editing after it.
 */
#ifndef XRL_PKTBUILD_H
#define XRL_PKTBUILD_H

#include <arpa/inet.h>
#include <stddef.h>
#include <string.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/types.h>
#include <linux/udp.h>

#define PKT_MAX 1514
#define PKT_MAX_LAYERS 16

#ifndef ETH_P_8021AD
#define ETH_P_8021AD 0x88A8
#endif

/* Not in the UAPI headers. */
struct pkt_vlan {
	__be16 tci;
	__be16 proto;
};

struct pkt_frag6 {
	__u8 nexthdr;
	__u8 reserved;
	__be16 frag_off; /* offset in 8-byte units << 3, bit 0: more fragments */
	__be32 id;
};

enum pkt_layer {
	PKT_ETH = 1,
	PKT_VLAN,
	PKT_IPV4,
	PKT_IPV6,
	PKT_IPV6_EXT, /* hop-by-hop, routing, destination options */
	PKT_FRAG6,
	PKT_AH, /* IPv6 authentication header */
	PKT_TCP,
	PKT_UDP,
	PKT_ICMP,
	PKT_ICMP6,
	PKT_DATA,
};

/*
 * buf starts 2 bytes past a 4-byte boundary, as the kernel aligns received
 * frames (NET_IP_ALIGN): after the 14-byte Ethernet header, and the 4-byte
 * VLAN tags, the IP and L4 headers the pushes return are 4-byte aligned, so
 * tests may read and write them through their structs.
 */
struct pkt {
	__u8 head[2];
	__u8 buf[PKT_MAX];
	size_t len;
	int n;
	struct {
		enum pkt_layer type;
		__u16 tpid; /* PKT_VLAN: the EtherType that announces this tag */
		__u8 proto; /* PKT_IPV6_EXT: its own protocol number */
		size_t off;
	} l[PKT_MAX_LAYERS];
};

_Static_assert(offsetof(struct pkt, buf) % 4 == 2, "IP headers after Ethernet must be aligned");

static inline void pkt_init(struct pkt *p)
{
	memset(p, 0, sizeof(*p));
}

/* Appends len zero bytes as a layer; NULL when the frame would not fit. */
static inline void *pkt_push(struct pkt *p, enum pkt_layer type, size_t len)
{
	void *h;

	if (p->n == PKT_MAX_LAYERS || p->len + len > PKT_MAX)
		return NULL;
	h = p->buf + p->len;
	p->l[p->n].type = type;
	p->l[p->n].off = p->len;
	p->n++;
	p->len += len;
	return h;
}

static inline struct ethhdr *pkt_push_eth(struct pkt *p)
{
	static const __u8 dst[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x02 };
	static const __u8 src[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x01 };
	struct ethhdr *eth = pkt_push(p, PKT_ETH, sizeof(*eth));

	if (eth) {
		memcpy(eth->h_dest, dst, ETH_ALEN);
		memcpy(eth->h_source, src, ETH_ALEN);
	}
	return eth;
}

/* tpid: ETH_P_8021Q or ETH_P_8021AD, written into the layer before the tag. */
static inline struct pkt_vlan *pkt_push_vlan(struct pkt *p, __u16 tpid, __u16 vid)
{
	struct pkt_vlan *v = pkt_push(p, PKT_VLAN, sizeof(*v));

	if (v) {
		v->tci = htons(vid & 0xfff);
		p->l[p->n - 1].tpid = tpid;
	}
	return v;
}

/* optlen: bytes of IPv4 options (NOPs), a multiple of 4 up to 40. */
static inline struct iphdr *pkt_push_ipv4(struct pkt *p, const char *src, const char *dst, size_t optlen)
{
	struct iphdr *ip = pkt_push(p, PKT_IPV4, sizeof(*ip) + optlen);

	if (!ip)
		return NULL;
	ip->version = 4;
	ip->ihl = (sizeof(*ip) + optlen) / 4;
	ip->ttl = 64;
	inet_pton(AF_INET, src, &ip->saddr);
	inet_pton(AF_INET, dst, &ip->daddr);
	memset(ip + 1, 1 /* NOP */, optlen);
	return ip;
}

static inline struct ipv6hdr *pkt_push_ipv6(struct pkt *p, const char *src, const char *dst)
{
	struct ipv6hdr *ip6 = pkt_push(p, PKT_IPV6, sizeof(*ip6));

	if (!ip6)
		return NULL;
	ip6->version = 6;
	ip6->hop_limit = 64;
	inet_pton(AF_INET6, src, &ip6->saddr);
	inet_pton(AF_INET6, dst, &ip6->daddr);
	return ip6;
}

/*
 * An extension header with options: proto is IPPROTO_HOPOPTS, IPPROTO_ROUTING
 * or IPPROTO_DSTOPTS; len a multiple of 8, at least 8. Padded with PadN.
 */
static inline struct ipv6_opt_hdr *pkt_push_ipv6_ext(struct pkt *p, __u8 proto, size_t len)
{
	struct ipv6_opt_hdr *h = pkt_push(p, PKT_IPV6_EXT, len);

	if (!h)
		return NULL;
	p->l[p->n - 1].proto = proto;
	h->hdrlen = len / 8 - 1;
	if (proto == IPPROTO_ROUTING) {
		struct ipv6_rt_hdr *rt = (struct ipv6_rt_hdr *)h;

		rt->type = 0;
		rt->segments_left = 0;
	} else if (len > 2) {
		((__u8 *)h)[2] = 1; /* PadN */
		((__u8 *)h)[3] = len - 4;
	}
	return h;
}

/* offset in bytes (a multiple of 8); more: the M flag. */
static inline struct pkt_frag6 *pkt_push_frag6(struct pkt *p, __u16 offset, int more)
{
	struct pkt_frag6 *f = pkt_push(p, PKT_FRAG6, sizeof(*f));

	if (f) {
		f->frag_off = htons((offset & ~7) | (more ? 1 : 0));
		f->id = htonl(0x1234);
	}
	return f;
}

/* An authentication header: len a multiple of 8, at least 16 (12 bytes and an ICV). */
static inline struct ip_auth_hdr *pkt_push_ah(struct pkt *p, size_t len)
{
	struct ip_auth_hdr *ah = pkt_push(p, PKT_AH, len);

	if (ah) {
		ah->hdrlen = len / 4 - 2;
		ah->spi = htonl(0x100);
		ah->seq_no = htonl(1);
	}
	return ah;
}

static inline struct tcphdr *pkt_push_tcp(struct pkt *p, __u16 sport, __u16 dport)
{
	struct tcphdr *th = pkt_push(p, PKT_TCP, sizeof(*th));

	if (th) {
		th->source = htons(sport);
		th->dest = htons(dport);
		th->doff = sizeof(*th) / 4;
		th->syn = 1;
		th->window = htons(65535);
	}
	return th;
}

static inline struct udphdr *pkt_push_udp(struct pkt *p, __u16 sport, __u16 dport)
{
	struct udphdr *uh = pkt_push(p, PKT_UDP, sizeof(*uh));

	if (uh) {
		uh->source = htons(sport);
		uh->dest = htons(dport);
	}
	return uh;
}

/* ICMP echo request over IPv4. */
static inline struct icmphdr *pkt_push_icmp(struct pkt *p)
{
	struct icmphdr *ih = pkt_push(p, PKT_ICMP, sizeof(*ih));

	if (ih)
		ih->type = ICMP_ECHO;
	return ih;
}

/* ICMPv6 echo request. */
static inline struct icmp6hdr *pkt_push_icmp6(struct pkt *p)
{
	struct icmp6hdr *ih = pkt_push(p, PKT_ICMP6, sizeof(*ih));

	if (ih)
		ih->icmp6_type = ICMPV6_ECHO_REQUEST;
	return ih;
}

/* len bytes of payload, filled with a counting pattern. */
static inline __u8 *pkt_push_data(struct pkt *p, size_t len)
{
	__u8 *d = pkt_push(p, PKT_DATA, len);
	size_t i;

	for (i = 0; d && i < len; i++)
		d[i] = (__u8)i;
	return d;
}

static inline __u32 pkt_csum_add(__u32 sum, const void *data, size_t len)
{
	const __u8 *b = data;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (__u32)b[i] << 8 | b[i + 1];
	if (len & 1)
		sum += (__u32)b[len - 1] << 8;
	return sum;
}

/* The Internet checksum, in network order, of an accumulated sum. */
static inline __sum16 pkt_csum_fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((__u16)~sum);
}

/* The protocol number that names a layer in the header before it. */
static inline int pkt_layer_proto(const struct pkt *p, int i)
{
	switch (p->l[i].type) {
	case PKT_IPV6_EXT:
		return p->l[i].proto;
	case PKT_FRAG6:
		return IPPROTO_FRAGMENT;
	case PKT_AH:
		return IPPROTO_AH;
	case PKT_TCP:
		return IPPROTO_TCP;
	case PKT_UDP:
		return IPPROTO_UDP;
	case PKT_ICMP:
		return IPPROTO_ICMP;
	case PKT_ICMP6:
		return IPPROTO_ICMPV6;
	case PKT_IPV4: /* a tunnel: IPIP, or IPv4 in IPv6 */
		return IPPROTO_IPIP;
	case PKT_IPV6:
		return IPPROTO_IPV6;
	default:
		return -1;
	}
}

/* The EtherType that names a layer in the header before it. */
static inline int pkt_layer_ethertype(const struct pkt *p, int i)
{
	switch (p->l[i].type) {
	case PKT_VLAN:
		return p->l[i].tpid;
	case PKT_IPV4:
		return ETH_P_IP;
	case PKT_IPV6:
		return ETH_P_IPV6;
	default:
		return -1;
	}
}

/* The sum of an IPv4 or IPv6 pseudo-header for the transport layer at off. */
static inline __u32 pkt_pseudo(const struct pkt *p, int l3, size_t off, __u8 proto)
{
	const void *h = p->buf + p->l[l3].off;
	__u32 len = p->len - off, sum = 0;

	if (p->l[l3].type == PKT_IPV4) {
		const struct iphdr *ip = h;

		sum = pkt_csum_add(sum, &ip->saddr, 8);
		sum += proto + len;
	} else {
		const struct ipv6hdr *ip6 = h;

		sum = pkt_csum_add(sum, &ip6->saddr, 32);
		sum += (len >> 16) + (len & 0xffff) + proto;
	}
	return sum;
}

/*
 * The checksum of the transport layer at off with its pseudo-header: the
 * value to store when the checksum field is zero, zero when it is correct.
 */
static inline __sum16 pkt_l4_csum(const struct pkt *p, int l3, size_t off, __u8 proto)
{
	return pkt_csum_fold(pkt_csum_add(pkt_pseudo(p, l3, off, proto), p->buf + off, p->len - off));
}

/*
 * Fills next-protocol fields, lengths and checksums, innermost first, so an
 * outer length covers what is inside it. A field the caller set is kept; a
 * checksum is computed only over a header whose checksum field is zero.
 */
static inline void pkt_finish(struct pkt *p)
{
	int i, l3 = -1;

	for (i = 0; i < p->n; i++)
		if (p->l[i].type == PKT_IPV4 || p->l[i].type == PKT_IPV6)
			l3 = i;

	for (i = p->n - 1; i >= 0; i--) {
		size_t off = p->l[i].off;
		void *h = p->buf + off;
		int has_next = i + 1 < p->n;
		int et = has_next ? pkt_layer_ethertype(p, i + 1) : -1;
		int pr = has_next ? pkt_layer_proto(p, i + 1) : -1;

		switch (p->l[i].type) {
		case PKT_ETH: {
			struct ethhdr *eth = h;

			if (!eth->h_proto && et >= 0)
				eth->h_proto = htons(et);
			break;
		}
		case PKT_VLAN: {
			struct pkt_vlan *v = h;

			if (!v->proto && et >= 0)
				v->proto = htons(et);
			break;
		}
		case PKT_IPV4: {
			struct iphdr *ip = h;

			if (!ip->protocol && pr >= 0)
				ip->protocol = pr;
			if (!ip->tot_len)
				ip->tot_len = htons(p->len - off);
			if (!ip->check)
				ip->check = pkt_csum_fold(pkt_csum_add(0, ip, ip->ihl * 4));
			break;
		}
		case PKT_IPV6: {
			struct ipv6hdr *ip6 = h;

			if (!ip6->nexthdr && pr >= 0)
				ip6->nexthdr = pr;
			if (!ip6->payload_len)
				ip6->payload_len = htons(p->len - off - sizeof(*ip6));
			break;
		}
		case PKT_IPV6_EXT: {
			struct ipv6_opt_hdr *h6 = h;

			if (!h6->nexthdr && pr >= 0)
				h6->nexthdr = pr;
			break;
		}
		case PKT_FRAG6: {
			struct pkt_frag6 *f = h;

			if (!f->nexthdr && pr >= 0)
				f->nexthdr = pr;
			break;
		}
		case PKT_AH: {
			struct ip_auth_hdr *ah = h;

			if (!ah->nexthdr && pr >= 0)
				ah->nexthdr = pr;
			break;
		}
		case PKT_TCP: {
			struct tcphdr *th = h;

			if (l3 >= 0 && !th->check)
				th->check = pkt_l4_csum(p, l3, off, IPPROTO_TCP);
			break;
		}
		case PKT_UDP: {
			struct udphdr *uh = h;

			if (!uh->len)
				uh->len = htons(p->len - off);
			if (l3 >= 0 && !uh->check) {
				uh->check = pkt_l4_csum(p, l3, off, IPPROTO_UDP);
				if (!uh->check)
					uh->check = 0xffff;
			}
			break;
		}
		case PKT_ICMP: {
			struct icmphdr *ih = h;

			if (!ih->checksum)
				ih->checksum = pkt_csum_fold(pkt_csum_add(0, ih, p->len - off));
			break;
		}
		case PKT_ICMP6: {
			struct icmp6hdr *ih = h;

			if (l3 >= 0 && !ih->icmp6_cksum)
				ih->icmp6_cksum = pkt_l4_csum(p, l3, off, IPPROTO_ICMPV6);
			break;
		}
		default:
			break;
		}
	}
}

/* Cuts the frame to len bytes (after pkt_finish: lengths still claim the rest). */
static inline void pkt_truncate(struct pkt *p, size_t len)
{
	if (len < p->len)
		p->len = len;
}

#endif /* XRL_PKTBUILD_H */
