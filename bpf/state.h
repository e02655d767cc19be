/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A key's window state, found and named in one place: every part of the
 * program asks here, so that the table behind it (the kernel's LRU hash
 * today, the ways of docs/table.md next) is one choice, not one per caller.
 */
#ifndef XRL_BPF_STATE_H
#define XRL_BPF_STATE_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xrl_common.h"
#include "maps_counts.h"

/* The window state of key k; NULL when it has none. */
static __always_inline struct xrl_state *xrl_state_find(const struct xrl_key *k)
{
	return bpf_map_lookup_elem(&xrl_state, k);
}

/*
 * What tells state st from another made for the same key since (after an
 * eviction): when it was made. A lease records it (xrl_latch.born), and its
 * passes go back to that state only (lease.h).
 */
static __always_inline __u64 xrl_state_born(const struct xrl_state *st)
{
	return st->warm;
}

/* Template for a new window state: too large for the 512-byte stack. */
static const struct xrl_state xrl_zero_state;

/* A new key's window state, made past the cap check (xrl_judge_slow). */
static __always_inline struct xrl_state *xrl_state_new(struct xrl_key *k, struct xrl_counters *cnt)
{
	struct xrl_state *st;
	int made;

	made = bpf_map_update_elem(&xrl_state, k, &xrl_zero_state, BPF_NOEXIST) == 0;
	if (made)
		cnt->keys_new++;
	st = xrl_state_find(k);
	if (!st)
		cnt->keys_failed++;
	else if (made)
		st->warm = bpf_ktime_get_ns(); /* its birth: a lease's passes go back to this state only (lease.h) */
	return st;
}

#endif /* XRL_BPF_STATE_H */
