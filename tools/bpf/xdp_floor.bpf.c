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
 *    and keep a busy source's window;
 *  - xdp_line_drop: the table of docs/table.md, a key and its window in one
 *    64-byte way, on a line of its own (an mmapable array's values start on
 *    a page), 4 ways a set, the probe from the key's first way, stopping at
 *    one never used; a way matched by its 16-byte key and an even serial.
 * And the window's add on the state found, as the limiter's pass path makes
 * it (read seq and the cells, move the bucket's cell, add, commit to seq),
 * on the LRU's 80-byte state (xdp_lrux_drop) and on the line's (xdp_linex_drop,
 * with the serial read again after the add: docs/table.md's protocol).
 * Load them with 'bpftool prog loadall xdp_floor.bpf.o DIR type xdp' and
 * measure with 'xrl-trafficgen --cost prog:DIR/xdp_lru_drop -s 100000'.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "xrl_table.h"

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

/*
 * docs/table.md's table (include/xrl_table.h): sets of 4 ways of a narrow key
 * and a 2-bucket window, two lines a way, as many ways as the other tables'
 * entries. A packet reads and writes a way's first line.
 */
#define FLOOR_WAY 128
static const struct xrl_tshape floor_shape = { FLOOR_WAY, 16, 3 };
struct floor_set {
	__u8 b[XRL_TABLE_WAYS * FLOOR_WAY];
};
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE); /* values from a page on: a way's lines are lines */
	__uint(max_entries, FLOOR_KEYS / XRL_TABLE_WAYS);
	__type(key, __u32);
	__type(value, struct floor_set);
} floor_line SEC(".maps"), floor_linex SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FLOOR_KEYS);
	__type(key, struct floor_key);
	__type(value, struct floor_state);
} floor_lrux SEC(".maps");

#define FLOOR_BLEN 500000000ULL /* a bucket of a 1 s, 2-bucket window */
#define FLOOR_THR 0xffffffULL	/* a threshold no row reaches: every packet passes and is counted */
#define FLOOR_READ(x) (*(const volatile __typeof__(x) *)&(x))

/*
 * The pass path's work on a ring of 3 cells of 64-bit words: seq read, the
 * cells read and summed, the bucket's cell moved to the bucket, the add, the
 * commit to seq; taken back when over (never, at FLOOR_THR). last and seq are
 * 64-bit in the LRU's state (lw 1) and 32-bit in the line's.
 */
#define FLOOR_RESERVE(last, seq, cell0, stride)                                                               \
	({                                                                                                    \
		__u64 _q = bpf_ktime_get_ns() / FLOOR_BLEN, _sum = 0, _w, _o;                                 \
		__u32 _E = (__u32)_q, _i, _off, _ix = (__u32)(_q % 3), _sq = FLOOR_READ(seq);                 \
		for (_i = 0; _i < 3; _i++) {                                                                  \
			_w = FLOOR_READ((&(cell0))[_i * (stride)]);                                           \
			if (_i != _ix && (__u32)(_E - (__u32)(_w >> 32)) < 2)                                 \
				_sum += (__u32)_w;                                                            \
		}                                                                                             \
		_off = _ix * (stride);                                                                        \
		asm volatile("" : "+r"(_off)); /* the verifier must see the bound */                          \
		if (_off > 2 * (stride))                                                                      \
			_off = 0;                                                                             \
		_w = FLOOR_READ((&(cell0))[_off]);                                                            \
		if ((__u32)(_w >> 32) != _E) {                                                                \
			if (FLOOR_READ(last) < (__typeof__(last))_q)                                          \
				__sync_val_compare_and_swap(&(last), FLOOR_READ(last), (__typeof__(last))_q); \
			__sync_val_compare_and_swap(&(&(cell0))[_off], _w, (__u64)_E << 32);                  \
		}                                                                                             \
		_o = __sync_fetch_and_add(&(&(cell0))[_off], 1);                                              \
		if ((__u32)(_o >> 32) != _E || _sum + (__u32)_o + 1 > FLOOR_THR)                              \
			__sync_fetch_and_add(&(&(cell0))[_off], -1);                                          \
		else                                                                                          \
			__sync_fetch_and_add(&(seq), 1) == _sq;                                               \
		(__u32) _ix;                                                                                  \
	})

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

SEC("xdp")
int xdp_lrux_drop(struct xdp_md *ctx)
{
	struct floor_key k = {};
	struct floor_state *st;

	if (!floor_key_of(ctx, &k))
		return XDP_DROP;
	st = bpf_map_lookup_elem(&floor_lrux, &k);
	if (!st) {
		bpf_map_update_elem(&floor_lrux, &k, &floor_zero, BPF_NOEXIST);
		st = bpf_map_lookup_elem(&floor_lrux, &k);
	}
	/* xrl_state's: gen and leased, warm, last, seq, then the 3 cells' words (their blocks after them). */
	if (st)
		FLOOR_RESERVE(st->words[2], st->words[3], st->words[4], 2);
	return XDP_DROP;
}

/*
 * The frame's source in the table of docs/table.md: found, its count added
 * to (full: the window's add, and the way's serial read again after it);
 * else a way claimed for it, or none when its set is full of busy windows
 * (the limiter's sketch would judge it).
 */
static __always_inline int line_drop(struct xdp_md *ctx, int full, void *table)
{
	const struct xrl_tshape *t = &floor_shape;
	struct floor_key fk = {};
	struct xrl_key k = {};
	struct xrl_wstate *ws;
	struct xrl_wkey wk;
	__u32 ix, sr = 0, c;
	void *set;
	__u64 h;
	int i;

	if (!floor_key_of(ctx, &fk))
		return XDP_DROP;
	k.rule_id = fk.rule_id;
	k.port = fk.port;
	k.family = fk.family;
	k.proto = fk.proto;
	__builtin_memcpy(k.addr, fk.addr, 4);
	if (xrl_wkey_make(&wk, &k, t->key_bytes))
		return XDP_DROP;
	h = xrl_key_hash64(&k); /* the limiter has it already: the latch slot's */
	ix = xrl_table_set(h, FLOOR_KEYS / XRL_TABLE_WAYS);
	set = bpf_map_lookup_elem(table, &ix);
	if (!set)
		return XDP_DROP;
	i = xrl_tset_find(set, t, &wk, xrl_table_first(h), &sr);
	/*
	 * A new key: a way claimed, and its first packet counted there. Without
	 * the window's add (!full) a count never ages: such a window is never
	 * empty (no shape is written: any pass keeps a way).
	 */
	if (i < 0)
		i = xrl_tset_claim(set, t, &wk, xrl_table_first(h), bpf_ktime_get_ns(), &sr);
	if (i < 0)
		return XDP_DROP;
	ws = xrl_way_state(xrl_way(set, t, (__u32)i), t);
	if (!full) {
		__sync_fetch_and_add(&ws->ring.c[0].word, 1);
		return XDP_DROP;
	}
	if (!ws->gen) {
		ws->gen = 1;
		xrl_way_shape(xrl_way(set, t, (__u32)i), t, 1, FLOOR_BLEN, 2);
	}
	c = FLOOR_RESERVE(ws->ring.last, ws->ring.seq, ws->ring.c[0].word, 1);
	/* Taken over since the key was read: the add back (docs/table.md). */
	if (!xrl_way_still(ws, sr)) {
		xrl_barrier_var(c);
		if (c < 3)
			xrl_take_back(&ws->ring.c[c], (__u32)(bpf_ktime_get_ns() / FLOOR_BLEN), 1, 4);
	}
	return XDP_DROP;
}

SEC("xdp")
int xdp_line_drop(struct xdp_md *ctx)
{
	return line_drop(ctx, 0, &floor_line);
}

SEC("xdp")
int xdp_linex_drop(struct xdp_md *ctx)
{
	return line_drop(ctx, 1, &floor_linex);
}
