// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include "codec/dsts.h"

void xrl_dst_key(struct xrl_dst_key *k, __u8 set, __u8 proto, __u16 port, __u8 family, const __u8 *addr, __u8 plen)
{
	memset(k, 0, sizeof(*k));
	k->prefixlen = XRL_DST_HDR_BITS + plen;
	k->set = set;
	k->family = family;
	k->proto = proto;
	k->port = proto ? port : 0;
	memcpy(k->addr, addr, sizeof(k->addr));
}

int xrl_dst_put(int fd, const struct xrl_dst_key *k, const struct xrl_rule *r)
{
	return bpf_map_update_elem(fd, k, r, BPF_ANY) ? -errno : 0;
}

int xrl_dst_match(int fd, __u8 set, __u8 proto, __u16 port, __u8 family, const __u8 *addr, struct xrl_rule *r)
{
	struct xrl_dst_key k;

	xrl_dst_key(&k, set, proto, port, family, addr, family == XRL_FAMILY_V4 ? 32 : 128);
	return bpf_map_lookup_elem(fd, &k, r) ? -errno : 0;
}
