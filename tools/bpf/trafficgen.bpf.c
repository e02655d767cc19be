// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The benchmark's traffic generator, run by BPF_PROG_TEST_RUN in live-frames
 * mode (xrl-trafficgen): every frame starts as the same crafted UDP packet,
 * gets its source address and ports from a per-CPU sequence number, and is
 * redirected into a veth. tg_shim does the same rewrite and tail-calls the
 * program under test instead, for per-packet costs with many sources.
 *
 * Live frames are recycled without being reset to the template, so every
 * field that varies is written on every frame, and the checksums are derived
 * from the template's (tg_cfg), never from what the frame holds.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by xrl-trafficgen before load; see tools/xrl-trafficgen.c. */
const volatile struct {
	__u32 ifindex; /* redirect target */
	__u32 ipv6;    /* 0: IPv4 frame, 1: IPv6 frame */
	__u32 nsrc;    /* distinct sources: the low 32 bits of the address, + 0 .. nsrc - 1 */
	__u32 nslots;  /* generator threads: thread k sends sources k, k + nslots, ... */
	__u32 src_lo;  /* the template's low 32 source bits, host order */
	__u16 sport;   /* first source port, host order */
	__u16 nsport;  /* source ports: sport .. sport + nsport - 1 */
	__u16 dport;
	__u16 ndport;
	__u32 ip_csum_k; /* ~template IPv4 header checksum + the complement of its varying words */
	__u32 l4_csum_k; /* the same for the UDP checksum (IPv6 only; IPv4 sends none) */
	__u32 shuffle;	 /* sources in a scattered order, not k mod nsrc (--shuffle) */
} tg_cfg = {
	.nsrc = 1,
	.nslots = 1,
	.nsport = 1,
	.ndport = 1,
};

struct tg_cpu {
	__u64 seq;  /* frames rewritten on this CPU */
	__u32 slot; /* this CPU's generator thread, 0 .. nslots - 1 */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tg_cpu);
} tg_cpus SEC(".maps");

/* tg_shim's target: the program under test, at index 0. */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} tg_jmp SEC(".maps");

struct tg_frame4 {
	struct ethhdr eth;
	struct iphdr ip;
	struct udphdr udp;
} __attribute__((packed));

struct tg_frame6 {
	struct ethhdr eth;
	struct ipv6hdr ip;
	struct udphdr udp;
} __attribute__((packed));

static __always_inline __u16 tg_fold(__u32 k, __u32 sum)
{
	__u64 s = (__u64)k + sum;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (__u16)~s;
}

/* The words of a 32-bit value as they lie in the frame, read in host order: the sum is the same. */
static __always_inline __u32 tg_words(__be32 v)
{
	return (v & 0xffff) + (v >> 16);
}

/* Rewrites the frame for this CPU's next sequence number. 0, or -1 when the frame is not ours. */
static __always_inline int tg_rewrite(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 zero = 0, idx, sum;
	__be16 sp, dp;
	__be32 src;
	struct tg_cpu *c;
	__u32 seq; /* 32-bit sums are cheaper; a wrap makes one jump in the walk over sources */

	c = bpf_map_lookup_elem(&tg_cpus, &zero);
	if (!c)
		return -1;
	seq = (__u32)c->seq++;
	/* Divisions cost: the verifier prunes those that the config makes useless. */
	idx = seq * tg_cfg.nslots + c->slot;
	/*
	 * Scattered: a table that allocates entries in the order sources first
	 * come (the LRU hash) finds the next source beside the last in memory
	 * when they come round in that order again; real floods do not.
	 */
	if (tg_cfg.shuffle)
		idx *= 0x9e3779b1U;
	idx = tg_cfg.nsrc > 1 ? idx % tg_cfg.nsrc : 0;
	src = bpf_htonl(tg_cfg.src_lo + idx);
	sp = bpf_htons(tg_cfg.sport + (tg_cfg.nsport > 1 ? (__u16)(seq % tg_cfg.nsport) : 0));
	dp = bpf_htons(tg_cfg.dport + (tg_cfg.ndport > 1 ? (__u16)(seq % tg_cfg.ndport) : 0));

	if (!tg_cfg.ipv6) {
		struct tg_frame4 *f = data;

		if ((void *)(f + 1) > end)
			return -1;
		f->ip.saddr = src;
		f->ip.check = tg_fold(tg_cfg.ip_csum_k, tg_words(src));
		f->udp.source = sp;
		f->udp.dest = dp;
	} else {
		struct tg_frame6 *f = data;

		if ((void *)(f + 1) > end)
			return -1;
		f->ip.saddr.in6_u.u6_addr32[3] = src;
		f->udp.source = sp;
		f->udp.dest = dp;
		sum = tg_words(src) + sp + dp;
		f->udp.check = tg_fold(tg_cfg.l4_csum_k, sum) ?: 0xffff;
	}
	return 0;
}

SEC("xdp")
int xdp_trafficgen(struct xdp_md *ctx)
{
	if (tg_rewrite(ctx))
		return XDP_ABORTED;
	return bpf_redirect(tg_cfg.ifindex, 0);
}

SEC("xdp")
int xdp_tg_shim(struct xdp_md *ctx)
{
	if (tg_rewrite(ctx))
		return XDP_ABORTED;
	bpf_tail_call(ctx, &tg_jmp, 0);
	return XDP_ABORTED;
}
