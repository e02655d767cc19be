/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Prefix rules in their LPM trie (see struct xrl_prefix_key in xrl_common.h), by map fd. */
#ifndef XRL_PREFIXES_H
#define XRL_PREFIXES_H

#include "xrl_common.h"

/* The trie key of family/addr/plen in set: the one place it is built. addr is 16 bytes (IPv4 in 4). */
void xrl_prefix_key(struct xrl_prefix_key *k, __u8 set, __u8 family, const __u8 *addr, __u8 plen);

int xrl_prefix_put(int fd, __u8 set, __u8 family, const __u8 *addr, __u8 plen, const struct xrl_rule *r);

/*
 * The rule of set whose prefix is the longest to match the address, as the
 * program finds it: the kernel's trie answers a lookup of a full-length key
 * with its longest match. -ENOENT when no prefix matches.
 */
int xrl_prefix_match(int fd, __u8 set, __u8 family, const __u8 *addr, struct xrl_rule *r);

#endif /* XRL_PREFIXES_H */
