/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A match rule as the classifier's builder takes it (codec/lbvs.h): a
 * constraint a field, every small-domain field, with what the rule's fields
 * imply (a transport field: no later fragment). Addresses and the payload
 * are not the classifier's: the program looks them up apart.
 */
#ifndef XRL_CODEC_MATCH_LBVS_H
#define XRL_CODEC_MATCH_LBVS_H

#include "codec/lbvs.h"
#include "rules/rule.h"

/* A rule's constraints and the ranges they point into: one value, copied whole only before use. */
struct xrl_match_lbvs {
	struct xrl_lbvs_rule rule;					/* its conds point into r and flags */
	struct xrl_lbvs_range r[XRL_LBVS_FIELDS][XRL_MATCH_RANGES + 1]; /* a set negated: one more range */
	struct xrl_lbvs_range flags[XRL_LBVS_FLAGS_RANGES];
};

/*
 * Match rule s into out (out->rule is what xrl_lbvs_build takes): 0, or
 * -EINVAL with a message in err for a rule of another kind. A field no
 * packet can have is a constraint no value meets, so that the rule is in no
 * class (lint says so before). A named port set (looked up in set) is
 * pointed to: out holds while set does.
 */
int xrl_match_lbvs(const struct xrl_spec *s, const struct xrl_ruleset *set, struct xrl_match_lbvs *out, char *err,
		   size_t len);

#endif /* XRL_CODEC_MATCH_LBVS_H */
