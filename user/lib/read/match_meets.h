/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The rules of several fields a packet meets, found as the program finds
 * them: the classifier's header (include/xrl_lbvs.h) on the tables in the
 * maps, then each rule's checks past it (its addresses and fingerprint, by
 * the predicate xrl_spec_eval). What explain shows.
 */
#ifndef XRL_READ_MATCH_MEETS_H
#define XRL_READ_MATCH_MEETS_H

#include <stdbool.h>
#include <stddef.h>
#include "xrl_match.h"
#include "base/maps.h"
#include "rules/rule.h"

struct xrl_match_meets {
	const struct xrl_spec *s[XRL_LBVS_MAX_MATCH]; /* in the order the program judges them */
	__u32 fields[XRL_LBVS_MAX_MATCH];	      /* the fields of each that matched (XRL_MF_*) */
	size_t n;
	bool allow; /* s[0] is an allow rule: the packet passes, nothing else asked */
	bool more;  /* more than XRL_LBVS_MAX_MATCH: apply refuses such sets, the program drops */
};

/*
 * The match rules of rule set half set (its rules as read, rules) that
 * packet p meets, into out: 0, -ENOENT for an instance without their maps,
 * or a negative errno.
 */
int xrl_match_meets(const struct xrl_maps *m, __u8 set, const struct xrl_ruleset *rules, const struct xrl_match_pkt *p,
		    struct xrl_match_meets *out);

#endif /* XRL_READ_MATCH_MEETS_H */
