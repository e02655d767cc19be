// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The floors of a per-source limiter's state, for the benchmark: what it
 * costs a frame only to find its source's state in a table of many, add to
 * it, and drop, with the one per-CPU counter the bare programs keep too. The
 * key and the value are the sizes of xdp-ratelimit's (struct xrl_key, and
 * struct xrl_state of a 2-bucket window); the tables hold as many as the
 * bench loads (--max-keys 262144). Three tables side by side:
 *  - xdp_lru_drop: the kernel's LRU hash, which xdp-ratelimit uses;
 *  - xdp_1way_drop: an array of key and state together, indexed by a hash of
 *    the source, one entry a slot: one probe, a source evicting any other
 *    of its slot (no limiter can use it: two busy sources of a slot would
 *    each reset the other's window);
 *  - xdp_2way_drop: the same with two entries a slot, a new source taking
 *    an empty one first: the fewest ways a set-associative table can have
 *    and keep a busy source's window.
 * Load them with 'bpftool prog loadall xdp_floor.bpf.o DIR type xdp' and
 * measure with 'xrl-trafficgen --cost prog:DIR/xdp_lru_drop -s 100000'.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define FLOOR_KEYS 262144

struct floor_key {
	__u32 rule_id; /* 0: an empty entry of an array table */
	__u16 port;
	__u8 family;
	__u8 proto;
	__u32 addr[4];
};

struct floor_state {
	__u64 words[10];
};

struct floor_entry {
	struct floor_key key;
	struct floor_state st;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} floor_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FLOOR_KEYS);
	__type(key, struct floor_key);
	__type(value, struct floor_state);
} floor_lru SEC(".maps");

/* One array for each array table: each program its own, whatever ran before it. */
struct floor_table {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FLOOR_KEYS);
	__type(key, __u32);
	__type(value, struct floor_entry);
};
struct floor_table floor_1way SEC(".maps");
struct floor_table floor_2way SEC(".maps");

static const struct floor_state floor_zero;

/* The frame's key, for a rule 1 on port 9/udp, counted as the bare programs count; 0: no IPv4 frame. */
static __always_inline int floor_key_of(struct xdp_md *ctx, struct floor_key *k)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&floor_seen, &zero);

	if (n)
		(*n)++;
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
	struct floor_key k = {};
	struct floor_state *st;

	if (!floor_key_of(ctx, &k))
		return XDP_DROP;
	st = bpf_map_lookup_elem(&floor_lru, &k);
	if (!st) {
		bpf_map_update_elem(&floor_lru, &k, &floor_zero, BPF_NOEXIST);
		st = bpf_map_lookup_elem(&floor_lru, &k);
	}
	if (st)
		__sync_fetch_and_add(&st->words[2], 1);
	return XDP_DROP;
}

/*
 * The frame's source in table t, slots of ways entries: found, its count
 * added to; else it takes its slot's first empty entry, or the last one.
 */
static __always_inline int floor_table_drop(struct xdp_md *ctx, void *t, __u32 ways)
{
	struct floor_entry *e, *victim = NULL;
	struct floor_key k = {};
	__u32 slot, w, ix;

	if (!floor_key_of(ctx, &k))
		return XDP_DROP;
	slot = (__u32)((k.addr[0] * 0x9e3779b97f4a7c15ULL) >> 32) & (FLOOR_KEYS / ways - 1);
	for (w = 0; w < ways; w++) {
		ix = slot * ways + w;
		e = bpf_map_lookup_elem(t, &ix);
		if (!e)
			return XDP_DROP;
		if (e->key.addr[0] == k.addr[0] && e->key.rule_id == k.rule_id) {
			__sync_fetch_and_add(&e->st.words[2], 1);
			return XDP_DROP;
		}
		if (!victim && !e->key.rule_id)
			victim = e;
		if (!victim && w == ways - 1)
			victim = e;
	}
	if (victim) {
		__builtin_memcpy(&victim->key, &k, sizeof(k));
		victim->st.words[2] = 1;
	}
	return XDP_DROP;
}

SEC("xdp")
int xdp_1way_drop(struct xdp_md *ctx)
{
	return floor_table_drop(ctx, &floor_1way, 1);
}

SEC("xdp")
int xdp_2way_drop(struct xdp_md *ctx)
{
	return floor_table_drop(ctx, &floor_2way, 2);
}
