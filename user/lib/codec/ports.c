// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include "codec/ports.h"

int xrl_port_put(int idx_fd, int rules_fd, __u8 set, __u32 i, __u8 proto, __u16 port, const struct xrl_rule *r)
{
	struct xrl_port_rule pr;
	__u32 slot = XRL_PORT_SLOT(set, i), ix = XRL_PORT_IDX(set, proto, port);

	if (i >= XRL_MAX_RULES)
		return -E2BIG;
	memset(&pr, 0, sizeof(pr));
	pr.r = *r;
	pr.port = port;
	pr.proto = proto;
	pr.used = 1;
	if (bpf_map_update_elem(rules_fd, &slot, &pr, BPF_ANY) || bpf_map_update_elem(idx_fd, &ix, &slot, BPF_ANY))
		return -errno;
	return 0;
}

int xrl_ports_read(int rules_fd, __u8 set, struct xrl_port_rule *out, size_t *n)
{
	__u32 i, slot;

	*n = 0;
	for (i = 0; i < XRL_MAX_RULES; i++) {
		slot = XRL_PORT_SLOT(set, i);
		if (bpf_map_lookup_elem(rules_fd, &slot, &out[*n]))
			return -errno;
		if (out[*n].used)
			(*n)++;
	}
	return 0;
}

int xrl_ports_clear(int idx_fd, int rules_fd, __u8 set)
{
	struct xrl_port_rule pr, none;
	__u32 i, slot, ix, at, zero = 0;

	memset(&none, 0, sizeof(none));
	for (i = 0; i < XRL_MAX_RULES; i++) {
		slot = XRL_PORT_SLOT(set, i);
		if (bpf_map_lookup_elem(rules_fd, &slot, &pr))
			return -errno;
		if (!pr.used)
			continue;
		ix = XRL_PORT_IDX(set, pr.proto, pr.port);
		if (bpf_map_lookup_elem(idx_fd, &ix, &at))
			return -errno;
		if (at == slot && bpf_map_update_elem(idx_fd, &ix, &zero, BPF_ANY))
			return -errno;
		if (bpf_map_update_elem(rules_fd, &slot, &none, BPF_ANY))
			return -errno;
	}
	return 0;
}
