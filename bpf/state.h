/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A key's window, found, made and named in one place: every part of the
 * program asks here for a struct xrl_win, so that the table behind it (the
 * kernel's LRU hash today, the ways of docs/table.md next) is one choice,
 * not one per caller.
 */
#ifndef XRL_BPF_STATE_H
#define XRL_BPF_STATE_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xrl_common.h"
#include "maps_counts.h"
#ifndef XRL_CELLS /* the rings' cells as loaded: the program's (config.h), or the carry program's own */
#include "config.h"
#endif

/*
 * A key's window as the program counts in it: its state (the gen its ring
 * was built for, the ring: its cells, then their block counts, as
 * xrl_ring_blocks finds them). One pointer: the slow path's frame is at the
 * verifier's bound (512 bytes over its calls), and every word the window
 * keeps across a helper call is a word of it (a second one, the block
 * words' own pointer, made it 544).
 */
struct xrl_win {
	struct xrl_state *st;
};

/* The window of key k, into *w: whether it has one. */
static __always_inline int xrl_win_find(const struct xrl_key *k, struct xrl_win *w)
{
	w->st = bpf_map_lookup_elem(&xrl_state, k);
	return w->st != NULL;
}

/*
 * What tells window w from another made for the same key since (after an
 * eviction): when it was made. A lease records it (xrl_latch.born), and its
 * passes go back to that window only (lease.h).
 */
static __always_inline __u64 xrl_win_born(const struct xrl_win *w)
{
	return w->st->warm;
}

/* Whether a CPU leased passes of w's window since one last took back what leases had left (lease.h). */
static __always_inline int xrl_win_leased(const struct xrl_win *w)
{
	return XRL_READ_ONCE(w->st->leased) != 0;
}

/* Marks w as having a lease out, once the lease is published (xrl_lease_set). */
static __always_inline void xrl_win_lease_mark(struct xrl_win *w)
{
	if (!XRL_READ_ONCE(w->st->leased))
		w->st->leased = 1;
}

/* Clears the mark, in an exchange: a lease made from here on marks it again. */
static __always_inline void xrl_win_lease_clear(struct xrl_win *w)
{
	__sync_lock_test_and_set(&w->st->leased, 0);
}

/* A warm-up rule's: when w's warm-up began (xrl_warm_threshold); written when it starts anew. */
static __always_inline __u64 *xrl_win_warm(struct xrl_win *w)
{
	return &w->st->warm;
}

/* Template for a new window state: too large for the 512-byte stack. */
static const struct xrl_state xrl_zero_state;

/* A new key's window, made past the cap check (xrl_judge_slow), into *w: whether it has one. */
static __always_inline int xrl_win_new(struct xrl_key *k, struct xrl_counters *cnt, struct xrl_win *w)
{
	int made;

	made = bpf_map_update_elem(&xrl_state, k, &xrl_zero_state, BPF_NOEXIST) == 0;
	if (made)
		cnt->keys_new++;
	if (!xrl_win_find(k, w)) {
		cnt->keys_failed++;
		return 0;
	}
	/* Its birth: a lease's passes go back to this window only (lease.h). */
	if (made)
		w->st->warm = bpf_ktime_get_ns();
	return 1;
}

#endif /* XRL_BPF_STATE_H */
