// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The benchmark's floors: programs that do nothing but return a verdict, with
 * the one per-CPU counter a receiver needs to count what it saw; and below,
 * the floors of a table of states.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

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

/*
 * The floors of a per-source limiter's state: what it costs a frame only to
 * find its source's state in a table of many, add to it, and drop. The key
 * and the value are the sizes of xdp-ratelimit's (struct xrl_key, and
 * struct xrl_state of a 2-bucket window); the tables hold as many as the
 * bench loads (--max-keys 262144). Three tables side by side: the kernel's
 * LRU hash, which xdp-ratelimit uses (xdp_lru_drop); an array indexed by a
 * hash of the source, one entry a slot (xdp_1way_drop: one probe, a source
 * evicting any other of its slot); and the same with two entries a slot
 * (xdp_2way_drop), the fewest a table that keeps a tracked source's window
 * can have.
 */
#define BARE_KEYS 262144

struct bare_key {
	__u32 rule_id;
	__u16 port;
	__u8 family;
	__u8 proto;
	__u32 addr[4];
};

struct bare_state {
	__u64 words[10];
};

struct bare_entry {
	struct bare_key key;
	struct bare_state st;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BARE_KEYS);
	__type(key, struct bare_key);
	__type(value, struct bare_state);
} bare_lru SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BARE_KEYS);
	__type(key, __u32);
	__type(value, struct bare_entry);
} bare_table SEC(".maps");

static const struct bare_state bare_zero;

/* The key of the frame's IPv4 source, for a rule 1 on port 9/udp; 0 when it is no IPv4 frame. */
static __always_inline int bare_key_of(struct xdp_md *ctx, struct bare_key *k)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);

	if ((void *)(iph + 1) > end || eth->h_proto != bpf_htons(0x0800))
		return 0;
	k->rule_id = 1;
	k->port = 9;
	k->family = 4;
	k->proto = 17;
	k->addr[0] = iph->saddr;
	return 1;
}

SEC("xdp")
int xdp_lru_drop(struct xdp_md *ctx)
{
	struct bare_key k = {};
	struct bare_state *st;

	bare_count();
	if (!bare_key_of(ctx, &k))
		return XDP_DROP;
	st = bpf_map_lookup_elem(&bare_lru, &k);
	if (!st) {
		bpf_map_update_elem(&bare_lru, &k, &bare_zero, BPF_NOEXIST);
		st = bpf_map_lookup_elem(&bare_lru, &k);
	}
	if (st)
		__sync_fetch_and_add(&st->words[2], 1);
	return XDP_DROP;
}

/* Looks the frame's source up in the array's slots of ways entries; one missed takes the last entry. */
static __always_inline int bare_table_drop(struct xdp_md *ctx, __u32 ways)
{
	struct bare_entry *e = NULL;
	struct bare_key k = {};
	__u32 slot, w, ix;

	bare_count();
	if (!bare_key_of(ctx, &k))
		return XDP_DROP;
	slot = (__u32)((k.addr[0] * 0x9e3779b97f4a7c15ULL) >> 32) & (BARE_KEYS / ways - 1);
	for (w = 0; w < ways; w++) {
		ix = slot * ways + w;
		e = bpf_map_lookup_elem(&bare_table, &ix);
		if (!e)
			return XDP_DROP;
		if (e->key.addr[0] == k.addr[0] && e->key.rule_id == k.rule_id) {
			__sync_fetch_and_add(&e->st.words[2], 1);
			return XDP_DROP;
		}
	}
	if (e) {
		__builtin_memcpy(&e->key, &k, sizeof(k));
		e->st.words[2] = 1;
	}
	return XDP_DROP;
}

SEC("xdp")
int xdp_1way_drop(struct xdp_md *ctx)
{
	return bare_table_drop(ctx, 1);
}

SEC("xdp")
int xdp_2way_drop(struct xdp_md *ctx)
{
	return bare_table_drop(ctx, 2);
}
