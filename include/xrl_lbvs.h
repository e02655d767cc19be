/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The classifier of the rules' small-domain fields: two-level Linear Bit
 * Vector Search (bpf-iptables). Compiled into the XDP program and userspace
 * alike (explain, the tests), so that they cannot disagree: only the table
 * accessor (XRL_LBVS_LOOKUP) and the loop (XRL_LBVS_LOOP) differ.
 *
 * Each field maps a packet's value to a class; each class is the bitmap of
 * the rules whose field accepts every value of the class (a rule that does
 * not constrain the field is in every class of it). A packet's matches are
 * the AND of its classes' bitmaps. Each bitmap carries a summary (bit w: its
 * word w is not zero): the summaries are ANDed first and only the words that
 * survive are read, so a packet pays for the words that may hold its
 * matches, not for the rule count. Bit positions are the builder's to choose
 * (every rule a packet matches applies): it numbers rules by shape, so a
 * word holds rules of one shape and the summaries prune
 * (user/lib/codec/lbvs.c).
 *
 * Layout, in two BPF_F_MMAPABLE array maps:
 * - xrl_lbvs_cls, the class arrays: for each field in use, domain / 4 words
 *   from cfg.off[field], four 16-bit class ids a word (value v in word
 *   off + v / 4, bits 16 (v % 4) up; a field has at most its domain's
 *   65536 classes). An array map's values are 8 bytes apart whatever their size,
 *   so u16 ids unpacked would take 8 bytes each: packed, a 16-bit field
 *   takes 128 KB instead of 512 KB (the prototype measured +2-3 ns for it).
 * - xrl_lbvs_bits, a class a value: cfg.nsum summary words, then cfg.nwords
 *   words of 64 rules; a field's class c is value cfg.base[field] + c.
 * A field no rule constrains has no class array and no classes.
 *
 * What the tables take (xrl_lbvs_bytes): the class arrays 128 KB a 16-bit
 * field in use, 512 bytes an 8-bit one (514 KB with every field); the
 * bitmaps (nsum + nwords) x 8 bytes a class, a field having at most
 * min(domain, 2 x its constraining rules' ranges + 1) classes. Measured
 * with every field in use, on rules as the prototype made them (a dport
 * each) and on the tests' random ones (tests/unit/lbvs_ref.h):
 *      16 rules:   16 bytes a class,   60-139 classes: 0.53 MB in all
 *    1000 rules:  136 bytes a class, 1165-3444 classes: 0.68-0.99 MB
 *   16384 rules: 2080 bytes a class,    17k-42k classes:  37-89 MB
 * Not built, the sparse layout: a class keeps its summary and only its
 * non-zero words, found by the rank of their summary bit (a popcount below
 * it), with each field's unconstraining rules in one bitmap apart, ANDed in
 * (they make most words of every class non-zero): estimated 1.6 MB instead
 * of 56.5 MB at 16384 rules (the prototype), for a popcount a word.
 *
 * The summaries prune when a word's rules share a shape and values: where
 * every class of every field has every word non-zero (negations and wide
 * ranges in every field, as the tests' random sets), a packet reads every
 * word (16384 such rules: 960 ns a packet against 43 for rules with a dport
 * each).
 *
 * In BPF the result must not be on the stack: a map value (a per-CPU
 * scratch array). On the stack, the verifier tracks its count exactly
 * through the writes at a variable offset and walks every count: 77k
 * instructions at 16 rules, 329k at 16384, against 1.2k and 2.2k.
 *
 * Adding a field: a line in XRL_LBVS_FIELD_TABLE (its name and domain) and
 * its value in struct xrl_lbvs_pkt where the packet is parsed. A field whose
 * class comes from elsewhere (an address through include/xrl_lpm.h) hands
 * its class id to xrl_lbvs_use_class.
 *
 * A field the packet lacks (ports of ICMP, flags of UDP) has value 0: the
 * rule grammar gives such rules their protocol, as nftables' `udp sport`
 * implies `meta l4proto udp`.
 */
#ifndef XRL_LBVS_H
#define XRL_LBVS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * X(NAME, "name", domain): the fields in the order their words are ANDed,
 * the most selective first (a word that is zero stops the AND).
 */
#define XRL_LBVS_FIELD_TABLE(X)                                                        \
	X(DPORT, "dport", 65536)     /* transport destination port */                  \
	X(SPORT, "sport", 65536)     /* transport source port */                       \
	X(ICMP, "icmp", 65536)	     /* ICMP or ICMPv6 type << 8 | code */             \
	X(LENGTH, "length", 65536)   /* IPv4 total length, IPv6 payload length + 40 */ \
	X(TTL, "ttl", 256)	     /* TTL or hop limit */                            \
	X(TCPFLAGS, "tcpflags", 256) /* TCP header byte 13 */                          \
	X(PROTO, "proto", 256)	     /* IP protocol (IPv6: the upper-layer header) */  \
	X(DSCP, "dscp", 64)	     /* the top 6 bits of TOS or traffic class */      \
	X(FRAG, "frag", 3)	     /* XRL_LBVS_FRAG_* */

enum xrl_lbvs_field {
#define XRL_LBVS_ENUM(n, s, d) XRL_LBVS_##n,
	XRL_LBVS_FIELD_TABLE(XRL_LBVS_ENUM)
#undef XRL_LBVS_ENUM
};

#define XRL_LBVS_ONE(n, s, d) +1
#define XRL_LBVS_FIELDS (0 XRL_LBVS_FIELD_TABLE(XRL_LBVS_ONE))

/* The fragment state's values. */
#define XRL_LBVS_FRAG_NONE 0
#define XRL_LBVS_FRAG_FIRST 1
#define XRL_LBVS_FRAG_LATER 2

/* The helpers inline: the verifier then knows each field's index as a constant. */
#define XRL_LBVS_INLINE static inline __attribute__((always_inline))

/* Rules a table holds at most: 256 words, 4 summary words. */
#define XRL_LBVS_MAX_RULES 16384
#define XRL_LBVS_MAX_WORDS (XRL_LBVS_MAX_RULES / 64)
#define XRL_LBVS_MAX_SUM (XRL_LBVS_MAX_WORDS / 64)
/* The words of one set's class arrays with every field in use: domain / 4 a field, rounded up. */
#define XRL_LBVS_WORD(n, s, d) +((d) + 3) / 4
#define XRL_LBVS_CLS_WORDS (0 XRL_LBVS_FIELD_TABLE(XRL_LBVS_WORD))
/* Matches a classification reports; past them, xrl_lbvs_result.more. A power of 2. */
#define XRL_LBVS_MAX_MATCH 16

/* The values a field takes: 0 to domain - 1. */
XRL_LBVS_INLINE __u32 xrl_lbvs_domain(__u32 f)
{
	switch (f) {
#define XRL_LBVS_DOMAIN(n, s, d) \
	case XRL_LBVS_##n:       \
		return d;
		XRL_LBVS_FIELD_TABLE(XRL_LBVS_DOMAIN)
#undef XRL_LBVS_DOMAIN
	}
	return 0;
}

/* A set's tables: in BPF a map value of each set (bpf/match.h), in userspace the builder's copy. */
struct xrl_lbvs_cfg {
	__u32 used;   /* bit f: field f has classes */
	__u32 nwords; /* words of 64 rules a bitmap */
	__u32 nsum;   /* summary words before them */
	__u32 step;   /* between two classes of a field in xrl_lbvs_bits: 1, 2 where two sets interleave */
	__u32 off[XRL_LBVS_FIELDS];  /* field f's first word in xrl_lbvs_cls */
	__u32 base[XRL_LBVS_FIELDS]; /* field f's class 0 in xrl_lbvs_bits */
};

/* A packet's values, field by field. */
struct xrl_lbvs_pkt {
	__u16 v[XRL_LBVS_FIELDS];
};

/* The bits of the rules a packet matched, ascending: the first n; more, others matched too. */
struct xrl_lbvs_result {
	__u16 n;
	__u16 more;
	__u16 bit[XRL_LBVS_MAX_MATCH];
};

#if defined(__bpf__)
/*
 * Both rule sets' tables: xrl_lbvs_cls fixed (XRL_LBVS_CLS_WORDS a set),
 * xrl_lbvs_bits sized at load (its value xrl_lbvs_stride words, its entries
 * the classes; the caller's layout says where a set's are). The
 * configuration of each set is a map value (the caller's c->cfg), so that a
 * rule set is switched with no new program: the verifier cannot prune the
 * fields a set leaves out, which cost a test each, and an index into a
 * bitmap is checked against xrl_lbvs_stride.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, 4);
	__uint(value_size, 8);
	__uint(max_entries, 2 * XRL_LBVS_CLS_WORDS);
} xrl_lbvs_cls SEC(".maps");

/* No BTF value type: libbpf 1.1 cannot resize one (bpf_map__set_value_size). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, 4);
	__uint(value_size, 8);
	__uint(max_entries, 1);
} xrl_lbvs_bits SEC(".maps");

/* The words of a value of xrl_lbvs_bits, as the loader sized it. */
const volatile __u32 xrl_lbvs_stride = 1;

#define XRL_LBVS_CFG(c) (*(c)->cfg)
#define XRL_LBVS_STRIDE(c) xrl_lbvs_stride
/* key is a __u32 lvalue. */
#define XRL_LBVS_LOOKUP(c, tab, key) ((const __u64 *)bpf_map_lookup_elem(&xrl_lbvs_##tab, &(key)))
#define XRL_LBVS_LOOP(n, cb, c) bpf_loop((n), (cb), (c), 0)
#define XRL_LBVS_UNROLL _Pragma("unroll")
#else
/* Userspace: the maps' contents as arrays, laid out as in their mmap. */
struct xrl_lbvs_array {
	const __u64 *w;
	__u32 n;      /* values */
	__u32 stride; /* words a value */
};

struct xrl_lbvs_tables {
	struct xrl_lbvs_cfg cfg;
	struct xrl_lbvs_array cls, bits;
};

static inline const __u64 *xrl_lbvs_user_lookup(const struct xrl_lbvs_array *a, __u32 key)
{
	return key < a->n ? a->w + (__u64)key * a->stride : 0;
}

#define XRL_LBVS_CFG(c) ((c)->t->cfg)
#define XRL_LBVS_STRIDE(c) ((c)->t->bits.stride)
#define XRL_LBVS_LOOKUP(c, tab, key) xrl_lbvs_user_lookup(&(c)->t->tab, (key))
#define XRL_LBVS_LOOP(n, cb, c)             \
	do {                                \
		__u64 i_, n_ = (n);         \
		for (i_ = 0; i_ < n_; i_++) \
			if ((cb)(i_, (c)))  \
				break;      \
	} while (0)
#define XRL_LBVS_UNROLL

/* The map bytes the tables take. */
static inline __u64 xrl_lbvs_bytes(const struct xrl_lbvs_tables *t)
{
	return 8ULL * ((__u64)t->cls.n * t->cls.stride + (__u64)t->bits.n * t->bits.stride);
}
#endif

/*
 * A classification in progress: its state lives in the caller's frame, read
 * by each callback. Each field's class is kept as its key in the bitmaps'
 * table, looked up for each word: 4 bytes a field rather than a pointer's 8
 * (the caller's frame is the program's stack), and a scalar the verifier
 * does not multiply states by.
 */
struct xrl_lbvs_ctx {
	__u32 cls[XRL_LBVS_FIELDS]; /* each field's class bitmap: its key in the bitmaps' table */
#if defined(__bpf__)
	const struct xrl_lbvs_cfg *cfg; /* the set's, a map value */
#else
	const struct xrl_lbvs_tables *t;
#endif
	__u64 sum;		     /* the summary bits left to visit */
	__u64 si;		     /* their summary word */
	__u64 word;		     /* the rule bits left to take */
	__u64 base;		     /* bit 0 of that word */
	struct xrl_lbvs_result *res; /* in BPF a map value */
};

/* The index of x's lowest set bit (x != 0): clang 14 crashes on __builtin_ctzll for BPF. */
XRL_LBVS_INLINE __u32 xrl_lbvs_lowbit(__u64 x)
{
	static const __u8 debruijn[64] = {
		0,  1,	48, 2,	57, 49, 28, 3,	61, 58, 50, 42, 38, 29, 17, 4,	62, 55, 59, 36, 53, 51,
		43, 22, 45, 39, 33, 30, 24, 18, 12, 5,	63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21,
		44, 32, 23, 11, 46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9,	13, 8,	7,  6,
	};

	return debruijn[((x & -x) * 0x03f79d71b4cb0a89ULL) >> 58];
}

/* Field f's class of value v, or -1 when v is past its domain or the tables lack it. */
XRL_LBVS_INLINE long xrl_lbvs_class_id(struct xrl_lbvs_ctx *c, __u32 f, __u32 v)
{
	const __u64 *w;
	__u32 k;

	if (v >= xrl_lbvs_domain(f))
		return -1;
	k = XRL_LBVS_CFG(c).off[f] + v / 4;
	w = XRL_LBVS_LOOKUP(c, cls, k);
	if (!w)
		return -1;
	return (long)((*w >> (16 * (v % 4))) & 0xffff);
}

/* Field f's bitmap is its class id's; 0, or -1 when the tables lack it. */
XRL_LBVS_INLINE int xrl_lbvs_use_class(struct xrl_lbvs_ctx *c, __u32 f, __u32 id)
{
	__u32 k = XRL_LBVS_CFG(c).base[f] + id * XRL_LBVS_CFG(c).step;

	if (!XRL_LBVS_LOOKUP(c, bits, k))
		return -1;
	c->cls[f] = k;
	return 0;
}

/* Word `at` of a record (summaries from 0, rule words from nsum) ANDed over the fields in use. */
XRL_LBVS_INLINE __u64 xrl_lbvs_and(const struct xrl_lbvs_ctx *c, __u64 at)
{
	const __u64 *w;
	__u64 r = ~0ULL;
	__u32 k;
	int f;

	if (at >= XRL_LBVS_STRIDE(c))
		return 0;
	XRL_LBVS_UNROLL
	for (f = 0; f < XRL_LBVS_FIELDS; f++) {
		if (!(XRL_LBVS_CFG(c).used & (1U << f)))
			continue;
		k = c->cls[f];
		w = XRL_LBVS_LOOKUP(c, bits, k);
		if (!w)
			return 0;
		r &= w[at];
		if (!r)
			return 0;
	}
	return r;
}

/* Takes the rule bits of c->word one at a time; stops when the result is full. */
static inline long xrl_lbvs_bit_cb(__u64 i, void *ctx)
{
	struct xrl_lbvs_ctx *c = ctx;
	__u64 x = c->word;

	(void)i;
	if (!x)
		return 1;
	if (c->res->n >= XRL_LBVS_MAX_MATCH) {
		c->res->more = 1;
		return 1;
	}
	c->res->bit[c->res->n & (XRL_LBVS_MAX_MATCH - 1)] = (__u16)(c->base + xrl_lbvs_lowbit(x));
	c->res->n++;
	c->word = x & (x - 1);
	return 0;
}

/*
 * Visits the words whose summary bit survived in c->sum, one a call. The
 * word index is checked as a __u64: a __u32 copy made clang compare one
 * register and index with another, which the verifier saw unbounded.
 */
static inline long xrl_lbvs_word_cb(__u64 i, void *ctx)
{
	struct xrl_lbvs_ctx *c = ctx;
	__u64 s = c->sum, w;

	(void)i;
	if (!s)
		return 1;
	c->sum = s & (s - 1);
	w = c->si * 64 + xrl_lbvs_lowbit(s);
	if (w >= XRL_LBVS_CFG(c).nwords)
		return 1;
	c->word = xrl_lbvs_and(c, XRL_LBVS_CFG(c).nsum + w);
	if (c->word) {
		c->base = w * 64;
		XRL_LBVS_LOOP(64, xrl_lbvs_bit_cb, c);
	}
	return c->res->more != 0;
}

/*
 * Summary word i of the classes ANDed, then its words. Nested loops, not one
 * that keeps the summary index: the verifier walked 668k instructions for
 * that at 16384 rules, 48k nested (the prototype).
 */
static inline long xrl_lbvs_sum_cb(__u64 i, void *ctx)
{
	struct xrl_lbvs_ctx *c = ctx;

	if (i >= XRL_LBVS_CFG(c).nsum)
		return 1;
	c->sum = xrl_lbvs_and(c, i);
	c->si = i;
	if (c->sum)
		XRL_LBVS_LOOP(64, xrl_lbvs_word_cb, c);
	return c->res->more != 0;
}

/* The bitmaps and c->res are set (xrl_lbvs_use_class, each field in use): the rules they all hold, into c->res. */
XRL_LBVS_INLINE void xrl_lbvs_walk(struct xrl_lbvs_ctx *c)
{
	__u64 x;

	c->res->n = 0;
	c->res->more = 0;
	if (XRL_LBVS_CFG(c).nwords != 1) {
		XRL_LBVS_LOOP(XRL_LBVS_CFG(c).nsum, xrl_lbvs_sum_cb, c);
		return;
	}
	/* 64 rules at most, the most sets: their one word, its summary not read, one rule met taken with no loop. */
	x = xrl_lbvs_and(c, XRL_LBVS_CFG(c).nsum);
	c->base = 0;
	c->word = x;
	if (x && !(x & (x - 1))) {
		c->res->bit[0] = (__u16)xrl_lbvs_lowbit(x);
		c->res->n = 1;
	} else if (x) {
		XRL_LBVS_LOOP(64, xrl_lbvs_bit_cb, c);
	}
}

/*
 * Classifies pk by every field in use into res (in BPF a map value: see
 * above): 0, or -1 when a value is past its field's domain or the tables
 * lack a class (then res is empty). Userspace sets c->t first.
 */
XRL_LBVS_INLINE int xrl_lbvs_classify(struct xrl_lbvs_ctx *c, const struct xrl_lbvs_pkt *pk,
				      struct xrl_lbvs_result *res)
{
	long id;
	int f;

	c->res = res;
	c->res->n = 0;
	c->res->more = 0;
	XRL_LBVS_UNROLL
	for (f = 0; f < XRL_LBVS_FIELDS; f++) {
		if (!(XRL_LBVS_CFG(c).used & (1U << f)))
			continue;
		id = xrl_lbvs_class_id(c, f, pk->v[f]);
		if (id < 0 || xrl_lbvs_use_class(c, f, (__u32)id))
			return -1;
	}
	xrl_lbvs_walk(c);
	return 0;
}

#endif /* XRL_LBVS_H */
