/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The sketch carried to another width (--sketch-width, carry.h's XRL_CARRY_SKETCH): columns copied or folded. */
#ifndef XRL_LIFE_CARRY_SKETCH_H
#define XRL_LIFE_CARRY_SKETCH_H

#include "xrl_common.h"

/*
 * The sketch o of width ow as one of width nw (powers of 2; the columns are
 * a hash's low bits): a wider one copies column c mod ow, a narrower one
 * folds the columns that agree in its bits (the same bucket summed, a newer
 * bucket kept), so that a source reads at least what it passed.
 */
void xrl_sketch_carry(const struct xrl_sketch_cell *o, __u32 ow, struct xrl_sketch_cell *n, __u32 nw);

/* The sketch map from, of old_entries cells, into the new map to, of new_entries: 0 or -errno. */
int xrl_sketch_fill(int from, __u32 old_entries, int to, __u32 new_entries);

#endif /* XRL_LIFE_CARRY_SKETCH_H */
