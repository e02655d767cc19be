/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The keys' window states as userspace reads and writes them, in one place:
 * stats, explain, status, the carry of a replace and the tests ask here, so
 * that the table behind them is one choice, as bpf/state.h is the
 * program's. Two tables: the kernel's LRU hash, which the program keeps
 * today, and the ways of docs/table.md (include/xrl_table.h), which it is
 * to keep next: an array of sets, each way read here as a struct xrl_state.
 */
#ifndef XRL_LIB_STATES_H
#define XRL_LIB_STATES_H

#include <stddef.h>
#include "xrl_common.h"
#include "xrl_table.h"
#include "base/maps.h"

/* A table of window states: its map, and the cells of its rings as loaded; a table of ways, its shape and sets. */
struct xrl_states {
	int fd;
	__u32 cells;
	__u32 sets;		 /* 0: an LRU hash by key; else an array of this many sets of ways */
	struct xrl_tshape shape; /* ... of ways of this shape (shape.cells is cells) */
};

/* The window states of an instance's maps. */
static inline struct xrl_states xrl_states_of(const struct xrl_maps *m)
{
	return (struct xrl_states){ .fd = m->state, .cells = m->cells };
}

/* A table of ways of shape shape, sets sets, in the array fd. */
static inline struct xrl_states xrl_states_ways(int fd, struct xrl_tshape shape, __u32 sets)
{
	return (struct xrl_states){ .fd = fd, .cells = shape.cells, .sets = sets, .shape = shape };
}

/*
 * Key key's window state into *out (room for rings of any cells), its ring
 * laid out as a rule's (its cells, their block counts, a long ring's base:
 * xrl_ring_blocks, xrl_ring_base), as the table's layout holds it (a retired
 * layout's is read as it is: user/lib/layouts converts it). -ENOENT: the
 * key has none.
 */
int xrl_state_get(const struct xrl_states *t, const struct xrl_key *key, struct xrl_state *out);

/* What xrl_states_walk calls for each tracked key: non-zero stops the walk, and is returned. */
typedef int xrl_state_fn(const struct xrl_key *key, const struct xrl_state *st, void *ctx);

/*
 * Calls fn for every key with a window state, and the state as xrl_state_get
 * reads it. A key made or dropped meanwhile may be seen or not; a way being
 * claimed (its serial odd) is not.
 */
int xrl_states_walk(const struct xrl_states *t, xrl_state_fn *fn, void *ctx);

/* The keys with a window state. */
size_t xrl_states_count(const struct xrl_states *t);

/*
 * Writes key key's window state st into a table no program counts in yet (a
 * replace's new maps before the swap), at now (CLOCK_MONOTONIC ns: a table
 * of ways takes a way whose window is empty then). A table of ways whose set
 * is full of busy windows keeps what it holds: -ENOSPC, the key not carried;
 * the LRU hash takes the key and evicts another.
 */
int xrl_state_put(const struct xrl_states *t, const struct xrl_key *key, const struct xrl_state *st, __u64 now);

/*
 * The same for a key the table lacks, as a program counts in it: -EEXIST
 * when the key has a state now (made by the program since it was looked
 * for), which is left as it is. Not for a table of ways (-EOPNOTSUPP):
 * a way is claimed beside a running program by a program (the carrier).
 */
int xrl_state_put_new(const struct xrl_states *t, const struct xrl_key *key, const struct xrl_state *st);

/*
 * A way's window as a struct xrl_state (its key into *key), and back: gen,
 * the lease mark (the serial's XRL_WAY_LEASED), the warm-up start, the
 * ring's words. The way's write keeps its key and claims.
 */
void xrl_way_read(__u8 *way, const struct xrl_tshape *t, struct xrl_key *key, struct xrl_state *st);
void xrl_way_write(__u8 *way, const struct xrl_tshape *t, const struct xrl_state *st);

#endif /* XRL_LIB_STATES_H */
