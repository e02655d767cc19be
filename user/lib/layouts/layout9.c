// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Layout 9 as far as it differs from the current layout, for a replace that
 * takes such an instance over (life/carry.c). Every map not named here kept
 * its key, value and meaning and is taken over as it is.
 *  - a ring's cell was two words, its pass word and its bucket's blocks; now
 *    a ring's pass words are side by side, the cells' blocks after them
 *    (struct xrl_ring): the values of xrl_state and xrl_rule_stats are of the
 *    same size, their rings' words in other places (rings_moved).
 */
#include <string.h>
#include "layouts/layout9.h"

void xrl_cells16_read(const void *o, __u32 cells, struct xrl_ring *n)
{
	struct xrl_cell16 c[XRL_MAX_CELLS];
	__u64 *blocks;
	__u32 i;

	if (cells > XRL_MAX_CELLS)
		cells = XRL_MAX_CELLS;
	memcpy(c, (const char *)o + offsetof(struct xrl_ring, c), cells * sizeof(c[0]));
	if (o != n)
		memcpy(n, o, offsetof(struct xrl_ring, c));
	blocks = xrl_ring_blocks(n, cells);
	for (i = 0; i < cells; i++) {
		n->c[i].word = c[i].word;
		blocks[i] = c[i].block;
	}
}

void xrl_layout9_state_read(struct xrl_state *s, __u32 cells)
{
	xrl_cells16_read(&s->ring, cells, &s->ring);
}

void xrl_layout9_rule_stats_read(const void *old, __u32 cells, struct xrl_rule_stats *n)
{
	memset(n, 0, sizeof(*n));
	memcpy(n, old, xrl_rule_stats_size(cells));
	xrl_cells16_read(&n->ring, cells, &n->ring);
}

const struct xrl_retired xrl_layout9 = {
	.layout = XRL_LAYOUT9,
	.latch_slots = XRL_LATCH_SLOTS,
	.rings_moved = true,
	.state_read = xrl_layout9_state_read,
	.rule_stats_read = xrl_layout9_rule_stats_read,
};
