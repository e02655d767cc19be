/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Prefix and dst rules in the range structure (include/xrl_lpm.h): built for
 * one rule set from its prefixes, read back, looked up as the program does;
 * and the sets' prefixes kept beside it (xrl_set_items).
 */
#ifndef XRL_PREFIXES_H
#define XRL_PREFIXES_H

#include <stddef.h>
#include "xrl_common.h"
#include "xrl_lpm.h"
#include "rules/rule.h"

/* One prefix of a kind's structure, and the slot of the rule that holds it. */
struct xrl_lpm_entry {
	struct xrl_pfx p;
	__u16 slot;
};

/* The structure's maps, mapped into this process (both rule sets' halves). */
struct xrl_lpm_map {
	__u64 *dir;
	__u64 *ranges;
	__u64 nranges; /* words, both halves */
	__u8 *items;
	__u64 nitems; /* bytes, both halves */
};

int xrl_lpm_map_open(int dir_fd, int ranges_fd, int items_fd, struct xrl_lpm_map *lm);
void xrl_lpm_map_close(struct xrl_lpm_map *lm);

/*
 * Writes rule set set's structure of kind (XRL_LPM_SRC or XRL_LPM_DST) from
 * e, which it sorts: no two entries of one prefix (the caller settles which
 * rule holds it). *used counts the words of set's half taken so far (start
 * at 1: word 0 is never used); -ENOSPC past the half.
 */
int xrl_lpm_build(struct xrl_lpm_map *lm, __u8 kind, __u8 set, struct xrl_lpm_entry *e, size_t n, __u64 *used);
/* Empties set's directory of every kind: nothing found until built again. */
void xrl_lpm_clear(struct xrl_lpm_map *lm, __u8 set);

/* The slot of the rule of kind the program finds in set for addr (16 bytes); 0: none. */
__u32 xrl_lpm_find(const struct xrl_lpm_map *lm, __u8 kind, __u8 set, __u8 family, const __u8 *addr);

/* A set's prefixes into set's half of xrl_set_items at byte *used (advanced); -ENOSPC past it. */
int xrl_items_put(struct xrl_lpm_map *lm, __u8 set, const struct xrl_pset *ps, __u64 *used, struct xrl_set *meta);
/* ... and back, n4 IPv4 then n6 IPv6 prefixes from meta->items. */
int xrl_items_get(const struct xrl_lpm_map *lm, __u8 set, const struct xrl_set *meta, struct xrl_pset *ps);

/* Whether prefix p holds addr (16 bytes, of p's family). */
bool xrl_pfx_holds(const struct xrl_pfx *p, const __u8 *addr);

#endif /* XRL_PREFIXES_H */
