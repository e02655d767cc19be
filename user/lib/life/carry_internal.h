/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the carry's pieces share (carry.c, carry_finish.c): not part of the library's interface. */
#ifndef XRL_LIFE_CARRY_INTERNAL_H
#define XRL_LIFE_CARRY_INTERNAL_H

#include "life/carry.h"
#include "life/carry_sketch.h"
#include "xrl_common.h"
#include "read/states.h"

/* One window state, as the fill read it (the old map's cells): sorted by key for the merge after the swap. */
struct xrl_carry_entry {
	struct xrl_key k;
	struct xrl_state s;
};

/* The full epoch of a cell of epoch e in a ring whose newest bucket is last (a cell is never after it). */
static inline __u64 xrl_full_epoch(__u64 last, __u32 e)
{
	return last - (__u32)((__u32)last - e);
}

/* The bytes of one value of a map of this type, for every CPU when it is per-CPU. */
size_t xrl_carry_value_bytes(const struct xrl_carry *c, __u32 type, __u32 vsz);
__u32 xrl_carry_state_cells(__u32 vsz);
__u32 xrl_carry_rule_stats_cells(__u32 vsz);
/* The window states of the old map (the old map's cells) and of the new one, as read/states.h takes them. */
struct xrl_states xrl_carry_old_states(const struct xrl_carry_map *cm);
struct xrl_states xrl_carry_new_states(const struct xrl_carry_map *cm);
/* A window state of the old map, as read, made this layout's struct in place (the old map's cells). */
void xrl_carry_state_convert(const struct xrl_carry_map *cm, struct xrl_state *s);
struct xrl_carry_map *xrl_carry_map_of(struct xrl_carry *c, const char *name);
void xrl_carry_state_recell(const struct xrl_carry_map *cm, const struct xrl_state *o, struct xrl_state *n);
/* Appends key k and its state st to the entries *v (*n of them, room for *cap), grown as needed. */
int xrl_carry_entry_push(struct xrl_carry_entry **v, size_t *n, size_t *cap, const struct xrl_key *k,
			 const struct xrl_state *st);
/* The order of struct xrl_carry_entry: by key. */
int xrl_carry_key_cmp(const void *a, const void *b);
void xrl_carry_rule_stats_read(const struct xrl_carry_map *cm, const void *ov, struct xrl_rule_stats *rs);

#endif /* XRL_LIFE_CARRY_INTERNAL_H */
