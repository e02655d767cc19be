// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A program to chain after the limiter in the tests (load --then, chain):
 * counts the IPv4 UDP frames it sees by destination port, and passes every
 * frame. What it counted is what the limiter passed it. It then tail-calls
 * into slot 0 of next when a program is there, as a root program would (the
 * way back to the limiter that chain must refuse).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u16); /* destination port, host order */
	__type(value, __u64);
} count_by_port SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} next SEC(".maps");

SEC("xdp")
int xdp_count(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);
	__u64 one = 1, *n;
	__u16 port;

	if ((void *)(udp + 1) <= end && eth->h_proto == bpf_htons(0x0800) && ip->ihl == 5 && ip->protocol == 17) {
		port = bpf_ntohs(udp->dest);
		n = bpf_map_lookup_elem(&count_by_port, &port);
		if (n)
			__sync_fetch_and_add(n, 1);
		else
			bpf_map_update_elem(&count_by_port, &port, &one, BPF_NOEXIST);
	}
	bpf_tail_call(ctx, &next, 0);
	return XDP_PASS;
}
