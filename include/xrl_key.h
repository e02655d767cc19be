/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * How a packet's window key is made from a rule and the packet's source:
 * shared by the XDP program and userspace ('explain' looks up the same key).
 */
#ifndef XRL_KEY_H
#define XRL_KEY_H

#include "xrl_common.h"

/*
 * The BPF backend copies with byte loads unless it knows the alignment, and
 * both addresses it masks (struct xrl_pkt.src, struct xrl_key.addr) are
 * 4-byte aligned. Userspace callers need not be.
 */
#if defined(__bpf__)
#define XRL_ALIGNED4(p) __builtin_assume_aligned(p, 4)
#else
#define XRL_ALIGNED4(p) (p)
#endif

/* v, a 32-bit word in host order, in network order. */
static inline __u32 xrl_htonl(__u32 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap32(v);
#else
	return v;
#endif
}

/* dst = src with all but the first bits bits cleared (16 bytes), a word at a time. */
static inline void xrl_mask_addr(__u8 *dst, const __u8 *src, __u32 bits)
{
	__u32 i, w, b;

	for (i = 0; i < 4; i++) {
		b = bits > 32 * i ? bits - 32 * i : 0;
		b = b < 32 ? b : 32;
		__builtin_memcpy(&w, XRL_ALIGNED4(src + 4 * i), 4);
		/* The top b bits: none for b = 0, all for b = 32. */
		w &= xrl_htonl((__u32)(0xffffffffULL << (32 - b)));
		__builtin_memcpy(XRL_ALIGNED4(dst + 4 * i), &w, 4);
	}
}

/*
 * k must be zeroed. port is the destination port for a port rule, 0 for a
 * prefix rule; an aggregate rule has one key whatever the source. src is
 * the address the rule counts by: the source, or the destination for a rule
 * per destination (xrl_key_make_pkt chooses).
 */
static inline void xrl_key_make(struct xrl_key *k, const struct xrl_rule *r, __u8 family, const __u8 *src, __u16 port,
				__u8 proto)
{
	k->rule_id = r->id;
	k->port = port;
	k->proto = port ? proto : 0;
	if (!(r->flags & (XRL_F_PER_SOURCE | XRL_F_PER_DST)))
		return;
	k->family = family;
	xrl_mask_addr(k->addr, src, family == XRL_FAMILY_V4 ? r->src_mask4 : r->src_mask6);
}

/*
 * The key of rule r for a packet: by its source or, per destination
 * (XRL_F_PER_DST), its destination dst, masked; with the port of a port
 * rule (port) or, per destination port (XRL_F_PER_DPORT), the packet's
 * (dport). A per-destination key's family is the packet's, as a
 * per-source one's: the same address in both is one key only of its rule.
 */
static inline void xrl_key_make_pkt(struct xrl_key *k, const struct xrl_rule *r, __u8 family, const __u8 *src,
				    const __u8 *dst, __u16 port, __u16 dport, __u8 proto)
{
	xrl_key_make(k, r, family, (r->flags & XRL_F_PER_DST) ? dst : src, (r->flags & XRL_F_PER_DPORT) ? dport : port,
		     proto);
}

#define XRL_KEY_HASH_K 0x9e3779b97f4a7c15ULL
#define XRL_KEY_HASH_K3 0x604a5ce3addef82dULL /* XRL_KEY_HASH_K cubed, modulo 2^64 */

/*
 * A key's 64-bit hash: a multiplicative hash of its six words, the same in
 * the program and in userspace. The sketch's columns mix it per row
 * (xrl_sketch_col); its top bits are the key's latch slot (xrl_key_hash).
 */
static inline __attribute__((always_inline)) __u64 xrl_key_hash64(const struct xrl_key *k)
{
	__u32 w[sizeof(*k) / 4], i;
	__u64 h = 0;

	__builtin_memcpy(w, XRL_ALIGNED4(k), sizeof(w));
	for (i = 0; i < 3; i++)
		h = (h ^ w[i]) * XRL_KEY_HASH_K;
	/*
	 * The last three words are an IPv4 key's zero, and a zero word only
	 * multiplies: three multiplies in one (by the constant cubed), the same
	 * hash a flood's packet waits on for a third less.
	 */
	if (!(w[3] | w[4] | w[5]))
		h *= XRL_KEY_HASH_K3;
	else
		for (i = 3; i < sizeof(*k) / 4; i++)
			h = (h ^ w[i]) * XRL_KEY_HASH_K;
	return h;
}

/*
 * The latch slot of a key (xrl_latch): the hash's top bits, which every bit
 * of every word moves. (Its low bits, which the slot once was, hold only the
 * words' low bits: the 256 sources of a /24 fell in 2 slots of 1024.)
 */
static inline __attribute__((always_inline)) __u32 xrl_key_hash(const struct xrl_key *k)
{
	return (__u32)(xrl_key_hash64(k) >> (64 - XRL_LATCH_BITS));
}

/*
 * The home of a key of hash h (xrl_key_hash64) among 1 << bits latches: the
 * hash's top bits. Its latch is there or in another way of its set (the
 * XRL_LATCH_WAYS slots of the same bits but the lowest, home first).
 */
static inline __attribute__((always_inline)) __u32 xrl_latch_home(__u64 h, __u32 bits)
{
	return (__u32)(h >> (64 - bits));
}

/* Whether two keys are the same, word by word. */
static inline __attribute__((always_inline)) int xrl_key_equal(const struct xrl_key *a, const struct xrl_key *b)
{
	__u32 x, y, i, diff = 0;

	for (i = 0; i < sizeof(*a) / 4; i++) {
		__builtin_memcpy(&x, XRL_ALIGNED4((const __u8 *)a + 4 * i), 4);
		__builtin_memcpy(&y, XRL_ALIGNED4((const __u8 *)b + 4 * i), 4);
		diff |= x ^ y;
	}
	return !diff;
}

#endif /* XRL_KEY_H */
