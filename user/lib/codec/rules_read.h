/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The rule set in force, read back from the maps: what every reader and the writers share. */
#ifndef XRL_RULES_READ_H
#define XRL_RULES_READ_H

#include <stdbool.h>
#include "base/maps.h"
#include "rules/rule.h"

/*
 * The cells the rings of an instance need for set: its longest window's
 * buckets, one more (xrl_cells_for). xrl_rules_apply grows an instance's
 * rings in place first when it has fewer.
 */
__u32 xrl_ruleset_cells(const struct xrl_ruleset *set);

/*
 * The rule set the program reads now, with ids and gens, and the sets its
 * rules use, counted but not read (their v is NULL): the figures need no more.
 */
int xrl_rules_read(const struct xrl_maps *m, struct xrl_ruleset *set);
/* ... with every set's prefixes: what dump, save and the rule changes write back. */
int xrl_rules_read_full(const struct xrl_maps *m, struct xrl_ruleset *set);

/* Rule set set (0 or 1) of the maps, with every set's prefixes when items. */
int xrl_rules_read_set(const struct xrl_maps *m, __u8 set, bool items, struct xrl_ruleset *out);

#endif /* XRL_RULES_READ_H */
