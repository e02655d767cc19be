/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The keys' window states as userspace reads them, in one place: stats,
 * explain, status and the tests ask here, so that the table behind them
 * (the kernel's LRU hash today, the ways of docs/table.md next) is one
 * choice, as bpf/state.h is the program's.
 */
#ifndef XRL_LIB_STATES_H
#define XRL_LIB_STATES_H

#include <stddef.h>
#include "xrl_common.h"
#include "base/maps.h"

/*
 * Key key's window state into *out, its ring laid out as a rule's (its
 * cells, their block counts, a long ring's base: xrl_ring_blocks,
 * xrl_ring_base), m->cells cells. -ENOENT: the key has none; -EPROTO: rings
 * larger than a struct xrl_state holds.
 */
int xrl_state_get(const struct xrl_maps *m, const struct xrl_key *key, struct xrl_state *out);

/* What xrl_states_walk calls for each tracked key: non-zero stops the walk, and is returned. */
typedef int xrl_state_fn(const struct xrl_key *key, const struct xrl_state *st, void *ctx);

/*
 * Calls fn for every key with a window state, and the state as xrl_state_get
 * reads it. A key made or dropped meanwhile may be seen or not.
 */
int xrl_states_walk(const struct xrl_maps *m, xrl_state_fn *fn, void *ctx);

/* The keys with a window state. */
size_t xrl_states_count(const struct xrl_maps *m);

#endif /* XRL_LIB_STATES_H */
