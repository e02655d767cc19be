/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Layout 8 (0.5.0), and the development builds of 0.6.0 that still placed
 * the latches as it did (layout 9 with xrl_ctl.latch_slots 0): what a
 * replace needs to take such an instance over, and stats to read its
 * latches (layout8.c, registered in retired.c).
 */
#ifndef XRL_LAYOUTS_LAYOUT8_H
#define XRL_LAYOUTS_LAYOUT8_H

#include <stddef.h>
#include "layouts/retired.h"
#include "layouts/layout9.h"

#define XRL_LAYOUT8 8
#define XRL_LAYOUT8_CELLS 16 /* every ring's, for any window */

/* xrl_rule_stats of layout 8: its ring before pass_bytes and block_bytes. */
struct xrl_rule_stats8 {
	__u8 head[offsetof(struct xrl_rule_stats, pass_bytes)]; /* gen to slot, as now */
	__u64 last, seq;
	struct xrl_cell16 c[XRL_LAYOUT8_CELLS];
	__u64 pass_bytes;
	__u64 block_bytes;
};
_Static_assert(sizeof(struct xrl_rule_stats8) == 112 + 16 * XRL_LAYOUT8_CELLS, "layout 8 xrl_rule_stats");

extern const struct xrl_retired xrl_layout8;
/* Layout 9 as 0.6.0's development builds before XRL_LATCH_SLOTS left it: layout 8's latches. */
extern const struct xrl_retired xrl_layout9_latches8;

#endif /* XRL_LAYOUTS_LAYOUT8_H */
