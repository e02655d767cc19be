/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The classifiers measured against LBVS (include/xrl_lbvs.h) for issue 34,
 * in the tests' program alone (tests/prog/cls_alt.bpf.c): a linear scan of
 * the rules, and a HiCuts decision tree whose leaves are scanned. Shared by
 * that program, its builder (tests/prog/cls_tree.h) and the test and the
 * benchmark that drive it.
 *
 * A rule is kept as the tests write it (tests/unit/lbvs_ref.h): per field
 * up to CLS_RANGES ranges, negated or not; the TCP flags by mask and value.
 * Rules sit in an array in LBVS's bit order, so that each classifier yields
 * the same bits in the same order and the first 16 can be compared.
 */
#ifndef XRL_TEST_CLS_ALT_H
#define XRL_TEST_CLS_ALT_H

#include "xrl_lbvs.h"

#define CLS_RANGES 3
/* The tree's depth at most: the program's walk is a loop this long. */
#define CLS_DEPTH 12
/* Packets the benchmark cycles through: a power of 2. */
#define CLS_PKTS 256

struct cls_rule {
	__u16 lo[XRL_LBVS_FIELDS][CLS_RANGES];
	__u16 hi[XRL_LBVS_FIELDS][CLS_RANGES];
	__u8 n[XRL_LBVS_FIELDS]; /* 0: the field is not constrained (by ranges) */
	__u8 neg[XRL_LBVS_FIELDS];
	__u8 flags_on, flags_mask, flags_value, pad;
};

/*
 * A tree node: an inner node cuts field `field` of its (aligned, power of 2
 * wide) box into mask + 1 children, child + ((v >> shift) & mask); a leaf
 * lists mask rule bits from index child of the leaf array.
 */
struct cls_node {
	__u8 leaf, field, shift, pad;
	__u32 mask;
	__u32 child;
};

/* The result a classifier writes, as tests/prog/lbvs_check.bpf.c's. */
struct cls_out {
	struct xrl_lbvs_result res;
	__s32 ret;
};

#define CLS_INLINE static inline __attribute__((always_inline))

/* Whether rule r accepts the packet's values: the reference's definition, field by field. */
CLS_INLINE int cls_rule_ok(const struct cls_rule *r, const struct xrl_lbvs_pkt *pk)
{
	int f, j, in;
	__u16 v;

#if defined(__bpf__)
#pragma unroll
#endif
	for (f = 0; f < XRL_LBVS_FIELDS; f++) {
		if (!r->n[f])
			continue;
		v = pk->v[f];
		in = 0;
#if defined(__bpf__)
#pragma unroll
#endif
		for (j = 0; j < CLS_RANGES; j++)
			if (j < r->n[f] && r->lo[f][j] <= v && v <= r->hi[f][j])
				in = 1;
		if (in == r->neg[f])
			return 0;
	}
	if (r->flags_on && (pk->v[XRL_LBVS_TCPFLAGS] & r->flags_mask) != r->flags_value)
		return 0;
	return 1;
}

#endif /* XRL_TEST_CLS_ALT_H */
