// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The benchmark's floor: programs that do nothing but return a verdict, with
 * the one per-CPU counter a receiver needs to count what it saw.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} bare_seen SEC(".maps");

static __always_inline void bare_count(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&bare_seen, &zero);

	if (n)
		(*n)++;
}

SEC("xdp")
int xdp_drop_all(struct xdp_md *ctx)
{
	bare_count();
	return XDP_DROP;
}

SEC("xdp")
int xdp_pass_all(struct xdp_md *ctx)
{
	bare_count();
	return XDP_PASS;
}
