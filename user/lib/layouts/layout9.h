/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Layout 9 (the development builds of 0.6.0 before the cells' blocks left
 * them): what a replace needs to take such an instance over (layout9.c,
 * registered in retired.c), and the rings of two-word cells it shares with
 * layout 8.
 */
#ifndef XRL_LAYOUTS_LAYOUT9_H
#define XRL_LAYOUTS_LAYOUT9_H

#include "layouts/retired.h"

#define XRL_LAYOUT9 9

/* A cell of layouts 8 and 9: its pass word, then its bucket's blocks. */
struct xrl_cell16 {
	__u64 word;
	__u64 block;
};

/*
 * A ring of cells cells of two-word cells (last, seq, the cells, then a long
 * ring's base, where this layout has it too) as this layout's ring at n: the
 * pass words side by side, then the blocks. n may be o: read whole first.
 */
void xrl_cells16_read(const void *o, __u32 cells, struct xrl_ring *n);

/* Its hooks, which layout 8's development successor shares (layout8.c). */
void xrl_layout9_state_read(struct xrl_state *s, __u32 cells);
void xrl_layout9_rule_stats_read(const void *old, __u32 cells, struct xrl_rule_stats *n);

extern const struct xrl_retired xrl_layout9;

#endif /* XRL_LAYOUTS_LAYOUT9_H */
