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

/* docs/table.md's way: the key (rule, port, family, proto; 8 bytes of address) and its window. */
struct line_way {
	__u64 k0;
	__u64 k1;
	__u32 serial; /* claims: odd while one writes the way; bit 30 of a set's way 0: the set's claim lock */
	__u32 gen;
	__u32 last;
	__u32 seq;
	__u64 c[3]; /* epoch << 32 | pass */
	__u32 warm;
	__u32 spare;
};
_Static_assert(sizeof(struct line_way) == 64, "a way is one cache line");

#define LINE_WAYS 4
#define LINE_SETS (FLOOR_KEYS / LINE_WAYS)
#define LINE_LOCK (1U << 30)

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, FLOOR_KEYS);
	__type(key, __u32);
	__type(value, struct line_way);
} floor_line SEC(".maps");

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
#define FLOOR_RESERVE(last, seq, cell0, stride)                                                        \
	({                                                                                             \
		__u64 _q = bpf_ktime_get_ns() / FLOOR_BLEN, _sum = 0, _w, _o;                          \
		__u32 _E = (__u32)_q, _i, _off, _ix = (__u32)(_q % 3), _sq = FLOOR_READ(seq);                \
		for (_i = 0; _i < 3; _i++) {                                                           \
			_w = FLOOR_READ((&(cell0))[_i * (stride)]);                                    \
			if (_i != _ix && (__u32)(_E - (__u32)(_w >> 32)) < 2)                          \
				_sum += (__u32)_w;                                                     \
		}                                                                                      \
		_off = _ix * (stride);                                                                 \
		asm volatile("" : "+r"(_off)); /* the verifier must see the bound */                   \
		if (_off > 2 * (stride))                                                               \
			_off = 0;                                                                      \
		_w = FLOOR_READ((&(cell0))[_off]);                                                     \
		if ((__u32)(_w >> 32) != _E) {                                                         \
			if (FLOOR_READ(last) < (__typeof__(last))_q)                                   \
				__sync_val_compare_and_swap(&(last), FLOOR_READ(last), (__typeof__(last))_q); \
			__sync_val_compare_and_swap(&(&(cell0))[_off], _w, (__u64)_E << 32); \
		}                                                                                      \
		_o = __sync_fetch_and_add(&(&(cell0))[_off], 1);                             \
		if ((__u32)(_o >> 32) != _E || _sum + (__u32)_o + 1 > FLOOR_THR)                       \
			__sync_fetch_and_add(&(&(cell0))[_off], -1);                         \
		else                                                                                   \
			__sync_fetch_and_add(&(seq), 1) == _sq;                                        \
		(__u32) _ix;                                                                           \
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
	/* xrl_state's: gen and leased, warm, last, seq, then 3 cells of a word and a block count. */
	if (st)
		FLOOR_RESERVE(st->words[2], st->words[3], st->words[4], 2);
	return XDP_DROP;
}

/* The key's hash (xrl_key_hash64 of an IPv4 key: the limiter has it for the latch slot). */
static __always_inline __u64 line_hash(const struct floor_key *k)
{
	__u64 h = 0;

	h = (h ^ k->rule_id) * 0x9e3779b97f4a7c15ULL;
	h = (h ^ ((__u32)k->port | (__u32)k->family << 16 | (__u32)k->proto << 24)) * 0x9e3779b97f4a7c15ULL;
	h = (h ^ k->addr[0]) * 0x9e3779b97f4a7c15ULL;
	return h * 0x604a5ce3addef82dULL;
}

/* Claims way w of set way0 for the key (docs/table.md): the set locked, the way's serial odd while written. */
static __always_inline void line_claim(struct line_way *way0, struct line_way *w, __u64 k0, __u64 k1)
{
	__u32 l = FLOOR_READ(way0->serial), s;

	if ((l & LINE_LOCK) || __sync_val_compare_and_swap(&way0->serial, l, l | LINE_LOCK) != l)
		return;
	s = FLOOR_READ(w->serial);
	if (!(s & 1) && __sync_val_compare_and_swap(&w->serial, s, s + 1) == s) {
		w->k0 = k0;
		w->k1 = k1;
		w->gen = 0;
		w->last = 0;
		w->seq = 0;
		w->c[0] = 0;
		w->c[1] = 0;
		w->c[2] = 0;
		w->warm = 0;
		__sync_fetch_and_add(&w->serial, 1);
	}
	__sync_fetch_and_and(&way0->serial, ~LINE_LOCK);
}

static __always_inline int line_drop(struct xdp_md *ctx, int full, void *t)
{
	struct line_way *w, *way0 = NULL, *victim = NULL;
	struct floor_key k = {};
	__u32 set, pref, i, ix, s, c;
	__u64 h, k0, k1;

	if (!floor_key_of(ctx, &k))
		return XDP_DROP;
	h = line_hash(&k);
	k0 = (__u64)(k.rule_id & 0xffff) | (__u64)k.port << 16 | (__u64)k.family << 32 | (__u64)k.proto << 40;
	k1 = (__u64)k.addr[0] | (__u64)k.addr[1] << 32;
	set = (__u32)(h >> 32) & (LINE_SETS - 1); /* the multiplies mix upward: high bits */
	pref = (__u32)(h >> 62);
	for (i = 0; i < LINE_WAYS; i++) {
		ix = set * LINE_WAYS + ((pref + i) & (LINE_WAYS - 1));
		w = bpf_map_lookup_elem(t, &ix);
		if (!w)
			return XDP_DROP;
		s = FLOOR_READ(w->serial) & ~LINE_LOCK;
		if (w->k0 == k0 && w->k1 == k1 && !(s & 1)) {
			if (!full) {
				__sync_fetch_and_add(&w->c[0], 1);
				return XDP_DROP;
			}
			c = FLOOR_RESERVE(w->last, w->seq, w->c[0], 1);
			/* Taken over since the key was read: the add back (docs/table.md). */
			asm volatile("" : "+r"(c));
			if (c > 2)
				c = 0;
			if ((FLOOR_READ(w->serial) & ~LINE_LOCK) != s)
				__sync_fetch_and_add(&w->c[c], -1);
			return XDP_DROP;
		}
		if (!w->k0) {
			victim = w; /* never used: the key is not further on */
			break;
		}
	}
	if (!victim)
		return XDP_DROP; /* a set of busy windows: the sketch's */
	ix = set * LINE_WAYS;
	way0 = bpf_map_lookup_elem(t, &ix);
	if (way0)
		line_claim(way0, victim, k0, k1);
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
	return line_drop(ctx, 1, &floor_line);
}
