// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The counts a replace carries into the new program's maps while it runs:
 * what the old program counted after the fill (user/lib/life/carry_finish.c runs these
 * by BPF_PROG_TEST_RUN on the new maps, struct xrl_carry_args). Each add is
 * an atomic one, as another CPU's, so nothing the new program counts is
 * lost, where a read and a write from userspace lost what came between them.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xrl_carry.h"
#include "maps_counts.h"

/* The cells of the new maps' rings (their values' sizes): constants to the verifier. */
const volatile __u32 state_cells = XRL_SHORT_CELLS;
const volatile __u32 stats_cells = XRL_SHORT_CELLS;
#define XRL_CELLS state_cells /* the window states' (state.h) */
#include "state.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define XRL_CARRY_TRIES 64

/* One cell of a's into ring r: zeroed in a once added. */
static __noinline int add_cell(struct xrl_ring *r, __u32 cells, struct xrl_carry_cell *c, int based)
{
	if (!r || !c || !(c->pass | c->block))
		return 0;
	if (!xrl_carry_add(r, cells, c->q, c->pass, c->block, XRL_CARRY_TRIES, based))
		return 1;
	c->pass = 0;
	c->block = 0;
	return 0;
}

/* The cells of a into ring r, a short one; the cells left (contended). */
static __always_inline int add_cells(struct xrl_ring *r, __u32 cells, struct xrl_carry_args *a, int based)
{
	struct xrl_carry_cell c;
	int left = 0, i;

	/* A constant offset a cell: the verifier takes no variable one into the context. */
#pragma unroll
	for (i = 0; i < XRL_SHORT_CELLS; i++) {
		if (i >= a->n)
			break;
		c = a->c[i];
		left += add_cell(r, cells, &c, based);
		a->c[i] = c;
	}
	return left;
}

/*
 * One cell into the window state of key k, on a long ring: a global
 * function, verified once. Unrolled for each of a long ring's cells, the
 * calls to add_cell pushed more branches than the verifier keeps.
 */
__noinline int xrl_carry_long_cell(struct xrl_key *k, struct xrl_carry_cell *c)
{
	struct xrl_win w;

	if (!k || !c)
		return 0;
	return xrl_win_find(k, &w) ? add_cell(&w.st->ring, state_cells, c, 1) : 1;
}

/* A window state's cells; XRL_CARRY_NO_ENTRY when the new map has no such key (userspace inserts it). */
SEC("syscall")
__u32 xrl_carry_state(struct xrl_carry_args *a)
{
	struct xrl_key k = a->key;
	struct xrl_carry_cell c;
	struct xrl_win w;
	int left = 0, i;

	if (!xrl_win_find(&k, &w))
		return XRL_CARRY_NO_ENTRY;
	if (!xrl_ring_long(state_cells))
		return add_cells(&w.st->ring, state_cells, a, 1);
#pragma unroll
	for (i = 0; i < XRL_MAX_CELLS; i++) {
		if (i >= a->n)
			break;
		c = a->c[i];
		left += xrl_carry_long_cell(&k, &c);
		a->c[i] = c;
	}
	return left;
}

/* One cell into the ring of rule id's counters of CPU cpu, a long ring: as xrl_carry_long_cell. */
__noinline int xrl_carry_long_stat(__u32 id, __u32 cpu, struct xrl_carry_cell *c)
{
	struct xrl_rule_stats *rs = bpf_map_lookup_percpu_elem(&xrl_rule_stats, &id, cpu);

	if (!c)
		return 0;
	return rs ? add_cell(&rs->ring, stats_cells, c, 0) : 1;
}

/*
 * A rule's counters of CPU a->cpu, which the program there writes with no
 * atomics: run on that CPU, where an XDP frame, in softirq, never stops
 * halfway for this call, and each of this call's adds is one instruction.
 */
SEC("syscall")
__u32 xrl_carry_rule(struct xrl_carry_args *a)
{
	__u32 id = a->rule;
	struct xrl_rule_stats *rs = bpf_map_lookup_percpu_elem(&xrl_rule_stats, &id, a->cpu);
	struct xrl_carry_cell c;
	int left = 0, i;

	if (!rs)
		return XRL_CARRY_NO_ENTRY;
	__sync_fetch_and_add(&rs->pass, a->pass);
	__sync_fetch_and_add(&rs->block, a->block);
	__sync_fetch_and_add(&rs->pass_bytes, a->pass_bytes);
	__sync_fetch_and_add(&rs->block_bytes, a->block_bytes);
	a->pass = a->block = a->pass_bytes = a->block_bytes = 0;
	if (XRL_READ_ONCE(rs->gen) != a->gen)
		return 0; /* the ring was made for another rule since: its buckets are not these */
	if (!xrl_ring_long(stats_cells))
		return add_cells(&rs->ring, stats_cells, a, 0);
#pragma unroll
	for (i = 0; i < XRL_MAX_CELLS; i++) {
		if (i >= a->n)
			break;
		c = a->c[i];
		left += xrl_carry_long_stat(id, a->cpu, &c);
		a->c[i] = c;
	}
	return left;
}
