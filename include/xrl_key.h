/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * How a packet's window key is made from a rule and the packet's source:
 * shared by the XDP program and userspace ('explain' looks up the same key).
 */
#ifndef XRL_KEY_H
#define XRL_KEY_H

#include "xrl_common.h"

/* dst = src with all but the first bits bits cleared (16 bytes). */
static inline void xrl_mask_addr(__u8 *dst, const __u8 *src, __u32 bits)
{
	int i;

	for (i = 0; i < 16; i++) {
		if (bits >= 8)
			dst[i] = src[i];
		else if (bits > 0)
			dst[i] = src[i] & (__u8)(0xff << (8 - bits));
		else
			dst[i] = 0;
		bits = bits >= 8 ? bits - 8 : 0;
	}
}

/*
 * k must be zeroed. port is the destination port for a port rule, 0 for a
 * prefix rule; an aggregate rule has one key whatever the source.
 */
static inline void xrl_key_make(struct xrl_key *k, const struct xrl_rule *r, __u8 family,
				const __u8 *src, __u16 port, __u8 proto)
{
	k->rule_id = r->id;
	k->port = port;
	k->proto = port ? proto : 0;
	if (!(r->flags & XRL_F_PER_SOURCE))
		return;
	k->family = family;
	xrl_mask_addr(k->addr, src, family == XRL_FAMILY_V4 ? r->src_mask4 : r->src_mask6);
}

#endif /* XRL_KEY_H */
