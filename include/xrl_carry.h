/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What userspace hands bpf/carry.bpf.c, one call a window state or a rule's
 * counters of one CPU: what the old program of a replace counted after the
 * fill, to add into the new program's maps while that program runs
 * (user/lib/life/carry_finish.c). A read and a write from userspace would lose what the
 * new program counted between them.
 */
#ifndef XRL_CARRY_ABI_H
#define XRL_CARRY_ABI_H

#include "xrl_common.h"

/* Counts of the bucket of full epoch q. */
struct xrl_carry_cell {
	__u64 q;
	__u64 pass;
	__u64 block;
};

struct xrl_carry_args {
	struct xrl_key key;			    /* xrl_carry_state's window state */
	__u32 rule;				    /* xrl_carry_rule's rule id, */
	__u32 cpu;				    /* ... the CPU whose counters (the call runs there), */
	__u32 gen;				    /* ... and the rule gen its ring must have for the cells to count */
	__u32 n;				    /* cells in c */
	__u64 pass, block, pass_bytes, block_bytes; /* xrl_carry_rule's totals */
	struct xrl_carry_cell c[XRL_MAX_CELLS];	    /* zeroed as added: what is left was contended */
};

/* What a call returns: the cells left (contended), or this when the map has no such entry. */
#define XRL_CARRY_NO_ENTRY 0xffffffffU

#endif /* XRL_CARRY_ABI_H */
