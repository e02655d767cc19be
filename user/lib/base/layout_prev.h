/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The previous map layout (XRL_LAYOUT_PREV), as far as it differs from this
 * one: what a replace needs to take over an instance a build of that layout
 * loaded (replace.c, carry.c). Every map not named here kept its key, value
 * and meaning, and is taken over as it is. Retired with the next layout: it
 * then describes this one's predecessor only.
 *
 * Layout 8 (0.5.0) to 9 (0.6.0):
 *  - every ring had 16 cells, a bucket of full epoch q of a window of n
 *    buckets in cell q % n; now a ring has the cells the loader sized it for
 *    (the longest window's buckets and one), the bucket in cell q % cells.
 *    xrl_state's value is the same up to its ring, whose cells carry.c moves
 *    (xrl_ring_recell);
 *  - xrl_rule_stats: the ring moved after pass_bytes and block_bytes;
 *  - xrl_ctl: cells in a byte that was padding (0 in layout 8);
 *  - xrl_scratch: 17 words, was 16 (it holds nothing between packets).
 *  - prefix and dst rules: in the range structure (xrl_lpm.h: xrl_lpm_rules,
 *    xrl_lpm_dir, xrl_lpm_ranges, xrl_sets, xrl_set_items, new maps), no
 *    longer in the LPM tries; replace.c moves them from the old instance's
 *    xrl_prefixes (gone in this layout) and xrl_dsts (lpm_set.c,
 *    xrl_lpm_from_tries).
 */
#ifndef XRL_LAYOUT_PREV_H
#define XRL_LAYOUT_PREV_H

#include <stddef.h>
#include <string.h>
#include "xrl_common.h"

#define XRL_LAYOUT_PREV 8
#define XRL_PREV_CELLS 16

struct xrl_rule_stats_prev {
	__u8 head[offsetof(struct xrl_rule_stats, pass_bytes)]; /* gen to slot, as now */
	__u64 last, seq;
	struct xrl_cell c[XRL_PREV_CELLS];
	__u64 pass_bytes;
	__u64 block_bytes;
};
_Static_assert(sizeof(struct xrl_rule_stats_prev) == 112 + 16 * XRL_PREV_CELLS, "layout 8 xrl_rule_stats");

/* Layout 8's rule stats in this layout's struct, its ring as it was (16 cells; carry.c moves them). */
static inline void xrl_rule_stats_from_prev(const void *old, struct xrl_rule_stats *n)
{
	const struct xrl_rule_stats_prev *o = old;

	memset(n, 0, sizeof(*n));
	memcpy(n, o->head, sizeof(o->head));
	n->pass_bytes = o->pass_bytes;
	n->block_bytes = o->block_bytes;
	n->ring.last = o->last;
	n->ring.seq = o->seq;
	memcpy(n->ring.c, o->c, sizeof(o->c));
}

/*
 * The latch slot of key k as a build before XRL_LATCH_SLOTS placed it (the
 * low bits of a 32-bit multiplicative hash; layout 8, and layout 9 until
 * 0.6.0): where an instance such a build still runs keeps its latches, until
 * a load or an apply takes it over (carry.c starts the new program's anew).
 */
static inline __u32 xrl_key_slot_v0(const struct xrl_key *k)
{
	__u32 w, h = 0, i;

	for (i = 0; i < sizeof(*k) / 4; i++) {
		memcpy(&w, (const __u8 *)k + 4 * i, 4);
		h = (h ^ w) * 0x9e3779b1U;
	}
	return (h ^ (h >> 15)) & (XRL_LATCHES - 1);
}

#endif /* XRL_LAYOUT_PREV_H */
