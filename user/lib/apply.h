/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Reading the active rule set from the maps, and replacing it whole. */
#ifndef XRL_APPLY_H
#define XRL_APPLY_H

#include "maps.h"
#include "rules/rule.h"

/*
 * The rule set the program reads now, with ids and gens, and the sets its
 * rules use, counted but not read (their v is NULL): the figures need no more.
 */
int xrl_rules_read(const struct xrl_maps *m, struct xrl_ruleset *set);
/* ... with every set's prefixes: what dump, save and the rule changes write back. */
int xrl_rules_read_full(const struct xrl_maps *m, struct xrl_ruleset *set);

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
