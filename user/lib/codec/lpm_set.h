/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A rule set's prefix and dst rules, single or of a named set, in the maps:
 * their slots (xrl_lpm_rules), their sets (xrl_sets, xrl_set_items) and the
 * range structure that finds them (prefixes.h). apply.c's part for them.
 */
#ifndef XRL_LPM_SET_H
#define XRL_LPM_SET_H

#include <stdbool.h>
#include "base/maps.h"
#include "codec/prefixes.h"
#include "rules/rule.h"

/* The --max-prefixes the instance was loaded with, from its range structure's size; 0 if unknown. */
__u32 xrl_maps_max_prefixes(const struct xrl_maps *m);

/* Whether the rule is found through the range structure: a prefix or dst rule. */
bool xrl_spec_in_lpm(const struct xrl_spec *s);

/*
 * Every check xrl_lpm_write makes before it writes: the prefixes fit the
 * --max-prefixes the instance was loaded with (lm's size).
 */
int xrl_lpm_check(const struct xrl_lpm_map *lm, const struct xrl_ruleset *set, char *err, size_t len);

/*
 * Writes set's prefix and dst rules into rule set half (not the one in
 * force): their rules, their sets and prefixes, the structure. A prefix of
 * a single rule and of a set is the single rule's (see the README).
 */
int xrl_lpm_write(const struct xrl_maps *m, struct xrl_lpm_map *lm, __u8 half, const struct xrl_ruleset *set, char *err,
		  size_t len);

/* Empties rule set half: no prefix or dst rule found there, its slots and sets free. */
int xrl_lpm_clear_half(const struct xrl_maps *m, struct xrl_lpm_map *lm, __u8 half);

/*
 * Appends rule set half's prefix and dst rules to out, with their sets;
 * each set's prefixes too when items (dump and rule changes need them, the
 * figures do not).
 */
int xrl_lpm_read(const struct xrl_maps *m, __u8 half, bool items, struct xrl_ruleset *out);

/*
 * The named sets set's match rules use as an address (xrl_match.h), into
 * msets (xrl_match_sets' XRL_MSET_WORDS words) over lm's ranges, rule set
 * half, from word *used of its half on (advanced): -ENOSPC past the half
 * or past XRL_MSET_CLASSES distinct sets of sets.
 */
int xrl_msets_build(const struct xrl_lpm_map *lm, __u64 *msets, __u8 half, const struct xrl_ruleset *set, __u64 *used);

/* Appends the sets out's match rules name that it lacks, from rule set half (their prefixes when items; a port set's ranges always). */
int xrl_lpm_read_match_sets(const struct xrl_maps *m, __u8 half, bool items, struct xrl_ruleset *out);

/*
 * The prefix or dst rule (kind XRL_LPM_SRC or XRL_LPM_DST) the program finds
 * in rule set half for addr: its id, and the prefix that holds addr, its own
 * or the longest of its set's; 0, or -ENOENT when none.
 */
int xrl_lpm_match(const struct xrl_maps *m, __u8 half, __u8 kind, __u8 family, const __u8 *addr, __u32 *id,
		  struct xrl_pfx *held);

#endif /* XRL_LPM_SET_H */
