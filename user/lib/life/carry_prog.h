/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The carrier (bpf/carry.bpf.c): adds what the old program of a replace
 * counted after the fill into the new program's maps as that program runs,
 * each add an atomic one in the kernel, so none of the new program's counts
 * is overwritten.
 */
#ifndef XRL_CARRY_PROG_H
#define XRL_CARRY_PROG_H

#include <stddef.h>
#include "xrl_carry.h"

struct xrl_carry_prog;

/*
 * Loaded on the maps behind state and stats (descriptors kept by the
 * caller), whose rings have state_cells and stats_cells cells. Before a swap:
 * a kernel that cannot run it (5.19 and later can) leaves the program in place.
 */
int xrl_carry_prog_open(struct xrl_carry_prog **p, int state, __u32 state_cells, int stats, __u32 stats_cells,
			char *err, size_t len);
/*
 * a's cells into the window state of a->key: 0, -ENOENT when the map has no
 * such key, -EBUSY when other CPUs kept moving a cell (a->c holds what is left).
 */
int xrl_carry_prog_state(struct xrl_carry_prog *p, struct xrl_carry_args *a);
/*
 * a's totals and cells into the counters of rule a->rule of CPU a->cpu, the
 * cells only while its ring is of rule gen a->gen; run on that CPU, whose
 * program writes them with no atomics. 0, -ENOENT or -EBUSY as above.
 */
int xrl_carry_prog_rule(struct xrl_carry_prog *p, struct xrl_carry_args *a);
void xrl_carry_prog_close(struct xrl_carry_prog *p);

#endif /* XRL_CARRY_PROG_H */
