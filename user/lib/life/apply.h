/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Reading the active rule set from the maps, and replacing it whole. */
#ifndef XRL_APPLY_H
#define XRL_APPLY_H

#include "base/err.h"
#include "base/maps.h"
#include "rules/rule.h"
#include "codec/rules_read.h"

/* The programs apply swapped in, when the new set needs other features (specialise.h). */
struct xrl_apply_swap {
	__u32 before, after;   /* the features the program carried, and carries now */
	__u32 prog_id;	       /* the program attached now */
	int swaps;	       /* programs swapped in: 0, 1 or 2 */
	char note[XRL_ERRLEN]; /* why it carries more than the set needs, if it does */
};

/*
 * Replaces the active rule set with set, atomically: the new set is written
 * beside the old one, then one write flips the program to it. A packet sees
 * the old set or the new one, never a mix. A rule whose match is in the old
 * set keeps its counters (its id); one whose window shape changed starts its
 * windows fresh (a new gen). When the new set needs features the running
 * program does not carry, a program that carries both sets' is swapped in
 * first, in place (replace.h); after the flip, one that carries the new
 * set's only, so that it pays for nothing it does not use. Takes the
 * interface's lock. swap (may be NULL) says what was swapped.
 */
int xrl_rules_apply(struct xrl_maps *m, struct xrl_ruleset *set, struct xrl_apply_swap *swap, char *err, size_t len);

/*
 * Every check xrl_rules_apply makes before it writes anything, against the
 * set in force (counter slots included); writes nothing.
 */
int xrl_rules_check(struct xrl_maps *m, struct xrl_ruleset *set, char *err, size_t len);

#endif /* XRL_APPLY_H */
