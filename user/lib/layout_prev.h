/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The previous map layout (XRL_LAYOUT_PREV), as far as it differs from this
 * one: what a replace needs to take over an instance a build of that layout
 * loaded (replace.c, carry.c). Every map not named here kept its key, value
 * and meaning, and is taken over as it is. Retired with the next layout: it
 * then describes this one's predecessor only.
 *
 * Layout 7 (0.4.0) to 8 (0.5.0):
 *  - xrl_counters: two malformed reasons more (frag_tiny, ipv6_chain) before
 *    the cap's two words;
 *  - xrl_fleet: expires_ns, fallback and fallback_policy after the 64 bytes
 *    of layout 7 (an allowance carried over never lapses until its agent
 *    writes it again);
 *  - xrl_ctl: the same size; its malformed_drop (0 pass, 1 drop) is read as
 *    the malformed policy, whose pass and drop have those values.
 */
#ifndef XRL_LAYOUT_PREV_H
#define XRL_LAYOUT_PREV_H

#include <string.h>
#include "xrl_common.h"

#define XRL_LAYOUT_PREV 7

#define XRL_PREV_MAL_MAX (XRL_MAL_MAX - 2)

struct xrl_counters_prev {
	__u64 head[11]; /* seen to sketch_blocked, as now */
	__u64 malformed[XRL_PREV_MAL_MAX];
	__u64 new_keys_second;
	__u64 new_keys_count;
};
_Static_assert(sizeof(struct xrl_counters_prev) == 8 * (13 + XRL_PREV_MAL_MAX), "layout 7 xrl_counters");
_Static_assert(offsetof(struct xrl_counters, malformed) == 8 * 11, "xrl_counters' head");

#define XRL_FLEET_PREV_SIZE 64

static inline void xrl_counters_from_prev(const void *old, void *new)
{
	const struct xrl_counters_prev *o = old;
	struct xrl_counters *n = new;

	memset(n, 0, sizeof(*n));
	memcpy(n, o->head, sizeof(o->head));
	memcpy(n->malformed, o->malformed, sizeof(o->malformed));
	n->new_keys_second = o->new_keys_second;
	n->new_keys_count = o->new_keys_count;
}

static inline void xrl_fleet_from_prev(const void *old, void *new)
{
	memset(new, 0, sizeof(struct xrl_fleet));
	memcpy(new, old, XRL_FLEET_PREV_SIZE);
}

#endif /* XRL_LAYOUT_PREV_H */
