// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include "prefixes.h"

void xrl_prefix_key(struct xrl_prefix_key *k, __u8 set, __u8 family, const __u8 *addr, __u8 plen)
{
	memset(k, 0, sizeof(*k));
	k->prefixlen = XRL_PREFIX_HDR_BITS + plen;
	k->set = set;
	k->family = family;
	memcpy(k->addr, addr, sizeof(k->addr));
}

int xrl_prefix_put(int fd, __u8 set, __u8 family, const __u8 *addr, __u8 plen, const struct xrl_rule *r)
{
	struct xrl_prefix_key k;

	xrl_prefix_key(&k, set, family, addr, plen);
	return bpf_map_update_elem(fd, &k, r, BPF_ANY) ? -errno : 0;
}

int xrl_prefix_match(int fd, __u8 set, __u8 family, const __u8 *addr, struct xrl_rule *r)
{
	struct xrl_prefix_key k;

	xrl_prefix_key(&k, set, family, addr, family == XRL_FAMILY_V4 ? 32 : 128);
	return bpf_map_lookup_elem(fd, &k, r) ? -errno : 0;
}
