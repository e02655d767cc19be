/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The builder of the classifier's tables (include/xrl_lbvs.h): rules as
 * per-field constraints in, the class arrays and bitmaps out, as the maps
 * hold them (write them through the maps' mmap as they are).
 */
#ifndef XRL_CODEC_LBVS_H
#define XRL_CODEC_LBVS_H

#include <stddef.h>
#include "xrl_lbvs.h"

/* Values lo to hi of a field, both included. */
struct xrl_lbvs_range {
	__u32 lo, hi;
};

/*
 * What one field of a rule accepts: the values in the ranges (in any order,
 * overlapping or not), or with neg every value outside them. n = 0: the rule
 * does not constrain the field (neg must then be 0).
 */
struct xrl_lbvs_cond {
	const struct xrl_lbvs_range *r;
	__u32 n;
	__u8 neg;
};

struct xrl_lbvs_rule {
	struct xrl_lbvs_cond f[XRL_LBVS_FIELDS];
};

/* Built tables: t reads cls and bits, which the set owns. */
struct xrl_lbvs_set {
	struct xrl_lbvs_tables t;
	__u64 *cls, *bits;
	__u32 nrules;
	__u32 *bit_of;	/* rule index -> its bit */
	__u32 *rule_of; /* bit -> rule index */
};

/* The most ranges a TCP flags mask and value make (mask 0x01: every other value). */
#define XRL_LBVS_FLAGS_RANGES 128

/*
 * The bytes v with v & mask == value as ranges into out (room for
 * XRL_LBVS_FLAGS_RANGES): their count, or -EINVAL when value has a bit
 * outside mask (no byte has).
 */
int xrl_lbvs_flags_ranges(__u8 mask, __u8 value, struct xrl_lbvs_range *out);

/*
 * Builds the tables of rules[0..n) (n at most XRL_LBVS_MAX_RULES) into s,
 * numbering the rules by shape: 0, or a negative errno with a message in
 * err (-EINVAL a range past its field's domain or reversed, -E2BIG too many
 * rules, -ENOMEM). A set whose rules constrain no field gets FRAG's one
 * class, so that the bitmaps still say which bits are rules.
 */
int xrl_lbvs_build(struct xrl_lbvs_set *s, const struct xrl_lbvs_rule *rules, __u32 n, char *err, size_t errlen);

void xrl_lbvs_free(struct xrl_lbvs_set *s);

#endif /* XRL_CODEC_LBVS_H */
