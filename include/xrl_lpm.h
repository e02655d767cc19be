/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The range structure that finds the prefix and dst rule of an address, the
 * longest match over every single prefix and every set (after DXR, Zec,
 * Rizzo and Mikuc 2012). Userspace flattens the prefixes of one kind
 * (XRL_LPM_SRC or XRL_LPM_DST) and family into address ranges, each with
 * the slot of the rule of its longest prefix, and cuts them at the address's
 * top 16 bits (its chunk). xrl_lpm_dir holds a word for each chunk: none, a
 * rule's slot when one range covers the chunk, or where the chunk's ranges
 * start in xrl_lpm_ranges; a binary search finds the range of the address
 * there. So a lookup costs a directory read and log2 of the ranges in its
 * chunk, however many prefixes there are (a kernel LPM trie walks a node a
 * bit of branching: measured here at +50 ns from 1000 prefixes to 1M).
 *
 * Both arrays are BPF_F_MMAPABLE: apply writes a rule set's half in place
 * and the program reads it through inlined array lookups. xrl_lpm_ranges is
 * sized at load from --max-prefixes (xrl_lpm_words: the worst case), half of
 * it for each rule set. The BPF side is xrl_lpm_find (xdp_ratelimit.bpf.c);
 * xrl_lpm_lookup below is the same search for userspace and the tests.
 */
#ifndef XRL_LPM_H
#define XRL_LPM_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* A directory word holds two chunks' entries (a mmapable array's values are 8 bytes apart). */
#define XRL_LPM_DIR(kind, set, v6, chunk) \
	((((((__u32)(kind)&1) * 2 + ((__u32)(set)&1)) * 2 + ((v6) ? 1U : 0U)) << 15) | (((__u32)(chunk)&0xffff) >> 1))
#define XRL_LPM_DIR_WORDS (8U << 15)
/* A chunk's entry: 0 none; XRL_LPM_DIRECT | slot, one rule for the chunk; else its ranges' header. */
#define XRL_LPM_DIRECT (1U << 31)
#define XRL_LPM_SLOT_MASK 0xffffU
/* Binary search steps at most: 2^26 ranges in one chunk. */
#define XRL_LPM_STEPS 26

/*
 * A chunk's ranges: a header word (their count), then each range's first
 * address and slot, in address order: IPv4 one word (address << 32 | slot),
 * IPv6 two (bits 16-79 of the address; bits 80-127 << 16 | slot).
 */
#define XRL_LPM_V4_WORD(start, slot) (((__u64)(start) << 32) | (slot))

/* --max-prefixes: what load takes, and its default. */
#define XRL_PREFIXES_DEFAULT 65536
#define XRL_PREFIXES_MIN 4096
#define XRL_PREFIXES_MAX 16777216

/*
 * The words of xrl_lpm_ranges one rule set may take, for n prefixes in all
 * (a set's counted once for each rule that uses it): a kind and family's p
 * prefixes make at most 2p + 1 ranges; each chunk holding a boundary adds a
 * header and the range carried into it; an IPv6 range takes 2 words. So at
 * most 4n + 3 min(2n, 4 x 65536) + 8, and word 0 is never used.
 */
#define XRL_LPM_WORDS(n) (4ULL * (n) + 3ULL * (2ULL * (n) < 4ULL * 65536 ? 2ULL * (n) : 4ULL * 65536) + 16)

static inline __u64 xrl_lpm_words(__u32 n)
{
	return XRL_LPM_WORDS(n);
}

/*
 * xrl_set_items: each set's prefixes, for what dump and rule changes read
 * back (never on the packet path): an IPv4 prefix in 5 bytes, an IPv6 one in
 * 17 (the address, then the length), at most n of them a rule set.
 */
#define XRL_SET_ITEM_WORDS(n) ((17ULL * (n) + 7) / 8 + 1)

/* The --max-prefixes an xrl_lpm_ranges of max_entries was sized for. */
static inline __u32 xrl_lpm_max_prefixes(__u64 max_entries)
{
	__u64 w = max_entries / 2, knee = xrl_lpm_words(4 * 65536 / 2);

	return (__u32)(w <= knee ? (w - 16) / 10 : (w - 16 - 3ULL * 4 * 65536) / 4);
}

/*
 * The slot of the rule whose prefix is the longest to hold addr (16 bytes,
 * IPv4 in the first 4), as the program finds it: dir and ranges are the
 * maps' whole arrays. 0: none.
 */
static inline __u32 xrl_lpm_lookup(const __u64 *dir, const __u64 *ranges, __u64 nranges, __u32 kind, __u32 set, int v6,
				   const __u8 *addr)
{
	__u32 c = ((__u32)addr[0] << 8) | addr[1], dv, lo = 0, n, h, i;
	__u64 hdr, k0 = 0, k1 = 0;

	dv = (__u32)(dir[XRL_LPM_DIR(kind, set, v6, c)] >> (32 * (c & 1)));
	if (!dv || (dv & XRL_LPM_DIRECT))
		return dv & XRL_LPM_SLOT_MASK;
	hdr = dv;
	if (hdr >= nranges)
		return 0;
	n = (__u32)ranges[hdr];
	if (!v6) {
		__u32 key = ((__u32)addr[0] << 24) | ((__u32)addr[1] << 16) | ((__u32)addr[2] << 8) | addr[3];

		for (i = 0; i < XRL_LPM_STEPS && n > 1; i++) {
			h = n / 2;
			if (hdr + 1 + lo + h < nranges && (__u32)(ranges[hdr + 1 + lo + h] >> 32) <= key)
				lo += h;
			n -= h;
		}
		return hdr + 1 + lo < nranges ? (__u32)(ranges[hdr + 1 + lo] & XRL_LPM_SLOT_MASK) : 0;
	}
	for (i = 2; i < 10; i++)
		k0 = k0 << 8 | addr[i];
	for (i = 10; i < 16; i++)
		k1 = k1 << 8 | addr[i];
	for (i = 0; i < XRL_LPM_STEPS && n > 1; i++) {
		__u64 at;

		h = n / 2;
		at = hdr + 1 + 2ULL * (lo + h);
		if (at + 1 < nranges && (ranges[at] < k0 || (ranges[at] == k0 && (ranges[at + 1] >> 16) <= k1)))
			lo += h;
		n -= h;
	}
	return hdr + 2 + 2ULL * lo < nranges ? (__u32)(ranges[hdr + 2 + 2ULL * lo] & XRL_LPM_SLOT_MASK) : 0;
}

#endif /* XRL_LPM_H */
