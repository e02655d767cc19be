/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Destination rules and port rules narrowed to a destination, in their LPM
 * trie (see struct xrl_dst_key in xrl_common.h), by map fd.
 */
#ifndef XRL_DSTS_H
#define XRL_DSTS_H

#include "xrl_common.h"

/*
 * The trie key of a rule in set: proto and port 0 for a dst rule, a port
 * rule's own for one narrowed to family/addr/plen. The one place it is built.
 */
void xrl_dst_key(struct xrl_dst_key *k, __u8 set, __u8 proto, __u16 port, __u8 family, const __u8 *addr, __u8 plen);

int xrl_dst_put(int fd, const struct xrl_dst_key *k, const struct xrl_rule *r);

/*
 * The rule of set the program finds for a packet to addr (and to port/proto
 * when proto is not 0: the narrowed port rule), the kernel's trie answering
 * with its longest match. -ENOENT when none matches.
 */
int xrl_dst_match(int fd, __u8 set, __u8 proto, __u16 port, __u8 family, const __u8 *addr, struct xrl_rule *r);

#endif /* XRL_DSTS_H */
