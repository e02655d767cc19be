// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include "codec/protos.h"

int xrl_proto_put(int fd, __u8 set, __u16 sel, const struct xrl_rule *r)
{
	struct xrl_proto_rule pr;
	__u32 ix = XRL_PROTO_IDX(set, sel);

	if (sel >= XRL_SELS)
		return -E2BIG;
	memset(&pr, 0, sizeof(pr));
	pr.r = *r;
	pr.sel = sel;
	pr.used = 1;
	return bpf_map_update_elem(fd, &ix, &pr, BPF_ANY) ? -errno : 0;
}

int xrl_protos_read(int fd, __u8 set, struct xrl_proto_rule *out, size_t *n)
{
	__u32 sel, ix;

	*n = 0;
	for (sel = 0; sel < XRL_SELS; sel++) {
		ix = XRL_PROTO_IDX(set, sel);
		if (bpf_map_lookup_elem(fd, &ix, &out[*n]))
			return -errno;
		if (out[*n].used && out[*n].sel == sel)
			(*n)++;
	}
	return 0;
}

int xrl_protos_clear(int fd, __u8 set)
{
	struct xrl_proto_rule pr, none;
	__u32 sel, ix;

	memset(&none, 0, sizeof(none));
	for (sel = 0; sel < XRL_SELS; sel++) {
		ix = XRL_PROTO_IDX(set, sel);
		if (bpf_map_lookup_elem(fd, &ix, &pr))
			return -errno;
		if (pr.used && bpf_map_update_elem(fd, &ix, &none, BPF_ANY))
			return -errno;
	}
	return 0;
}
