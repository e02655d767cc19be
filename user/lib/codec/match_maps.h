/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The rules of several fields of a rule set in the maps (include/xrl_match.h):
 * built into the classifier's tables (codec/lbvs.h), written into a set's
 * half of the maps, read back for dump. No printing.
 */
#ifndef XRL_CODEC_MATCH_MAPS_H
#define XRL_CODEC_MATCH_MAPS_H

#include <stddef.h>
#include "xrl_match.h"
#include "base/maps.h"
#include "codec/lbvs.h"
#include "rules/rule.h"

/* The maps by their descriptors, so that the tests can hand in a skeleton's. */
struct xrl_match_fds {
	int cls, bits, cfgs, rules, specs;
	__u32 stride, entries; /* xrl_lbvs_bits' value in words, its entries */
	__u32 slots;	       /* the entries of xrl_match_rules and xrl_match_specs */
};

/* m's; -ENOENT when the instance has none (a build before the rules of several fields made it). */
int xrl_match_fds_of(const struct xrl_maps *m, struct xrl_match_fds *f);

/* A set's match rules built: the classifier's tables, and which rule of the set each of its rules is. */
struct xrl_match_built {
	struct xrl_lbvs_set b;
	size_t *spec; /* builder rule i is set->v[spec[i]] */
	__u32 n;
	__u32 stride;  /* the words a value of xrl_lbvs_bits needs */
	__u32 classes; /* the classes the set has: it needs 2 x as many entries, interleaved with the other set */
};

/*
 * The named sets rs's match rules use as an address: bit[k] for
 * rs->sets[k], its bit of a packet's membership word (xrl_match.h), -1 for
 * none; dirs[k] how it is used (XRL_MATCH_SETS_SRC, _DST). Both of
 * XRL_MAX_SETS entries. Returns the sets used: XRL_MATCH_SETS_MAX at most
 * for apply.
 */
int xrl_match_set_bits(const struct xrl_ruleset *rs, int *bit, __u8 *dirs);

/*
 * Builds the match rules of set (none: n 0). -E2BIG past XRL_MATCH_MAX
 * rules or XRL_MATCH_SETS_MAX named sets as their addresses, -ETOOMANYREFS where a packet could meet more than
 * XRL_LBVS_MAX_MATCH of them (by the fields the classifier judges: a rule
 * met past them would be skipped), each with a message naming the rule.
 */
int xrl_match_build(const struct xrl_ruleset *set, struct xrl_match_built *mb, char *err, size_t len);
void xrl_match_built_free(struct xrl_match_built *mb);
/* xrl_match_build's checks alone, for a rules file before any interface is read. */
int xrl_match_check(const struct xrl_ruleset *set, char *err, size_t len);

/* The stride and entries of xrl_lbvs_bits, the entries of xrl_match_rules and _specs, that hold mb in either set. */
__u32 xrl_match_stride_for(const struct xrl_match_built *mb);
__u32 xrl_match_entries_for(const struct xrl_match_built *mb);
__u32 xrl_match_slots_for(const struct xrl_match_built *mb);

/*
 * Writes mb (of rule set rs) into set's half of the maps, its configuration
 * last: -ENOSPC when xrl_lbvs_bits or the rules' maps are too small (apply
 * grows them first).
 */
int xrl_match_write(const struct xrl_match_fds *f, __u8 set, const struct xrl_ruleset *rs,
		    const struct xrl_match_built *mb);

/* Empties set's half: its configuration first (no rule of it is met from then on), then its rules. */
int xrl_match_clear(const struct xrl_match_fds *f, __u8 set);

/* The flags of rule s as the program has them: what it counts by (its 'per') among them. */
__u32 xrl_match_flags(const struct xrl_spec *s);

/* Appends set's match rules, as written, to out. */
int xrl_match_read(const struct xrl_match_fds *f, __u8 set, struct xrl_ruleset *out);

#endif /* XRL_CODEC_MATCH_MAPS_H */
