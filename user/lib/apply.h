/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Reading the active rule set from the maps, and replacing it whole. */
#ifndef XRL_APPLY_H
#define XRL_APPLY_H

#include "maps.h"
#include "rules/rule.h"

/*
 * The cells the rings of an instance need for set: its longest window's
 * buckets, one more (xrl_cells_for). An instance loaded with fewer is
 * replaced in place with rings of as many (xrl_load, XRL_LOAD_CELLS) before
 * set can be applied: xrl_rules_apply refuses it.
 */
__u32 xrl_ruleset_cells(const struct xrl_ruleset *set);

/*
 * The counter slots an instance needs to apply set beside the set in force
 * (each rule of either may hold one while the two are swapped): more than
 * m->rule_ids, and it is grown in place (xrl_load, XRL_LOAD_RULE_IDS) first.
 */
int xrl_rules_ids_needed(const struct xrl_maps *m, const struct xrl_ruleset *set, __u32 *ids);

/* The rule set the program reads now, with ids and gens. */
int xrl_rules_read(const struct xrl_maps *m, struct xrl_ruleset *set);

/*
 * Replaces the active rule set with set, atomically: the new set is written
 * beside the old one, then one write flips the program to it. A packet sees
 * the old set or the new one, never a mix. A rule whose match is in the old
 * set keeps its counters (its id); one whose window shape changed starts its
 * windows fresh (a new gen). Takes the interface's lock.
 */
int xrl_rules_apply(struct xrl_maps *m, struct xrl_ruleset *set, char *err, size_t len);

/*
 * Every check xrl_rules_apply makes before it writes anything, against the
 * set in force (counter slots included); writes nothing.
 */
int xrl_rules_check(struct xrl_maps *m, struct xrl_ruleset *set, char *err, size_t len);

#endif /* XRL_APPLY_H */
