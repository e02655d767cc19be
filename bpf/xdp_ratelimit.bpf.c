// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdp-ratelimit: drops packets over a Sentinel sliding-window threshold,
 * per destination port, per IP protocol (TCP SYN, ICMP type, fragments), per
 * destination prefix and per source prefix.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xrl_common.h"
#include "xrl_window.h"
#include "xrl_key.h"
#include "parsing.h"
#include "maps.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile struct xrl_config xrl_cfg = {
	.clock = XRL_CLOCK_PRECISE,
	.malformed = XRL_MALPOL_EVASIVE,
	.sketch_width = XRL_SKETCH_DEFAULT_WIDTH,
	.cells = XRL_MAX_CELLS,
	.features = XRL_FEAT_ALL, /* the loader sets its rule set's (user/lib/specialise.c) */
};

/*
 * The cells of every ring, as the loader sized their maps' values: a
 * constant to the verifier, which checks each cell's index against it, and
 * bounds each loop over a ring by it.
 */
#define XRL_CELLS xrl_cfg.cells

/*
 * Whether this program carries feature f (XRL_FEAT_*, XRL_HAS_*): a load
 * from rodata the verifier knows, so every branch under a feature left out
 * is pruned, and a global function called only there is never verified.
 */
static __always_inline int xrl_carries(__u32 f)
{
	return xrl_cfg.features & f;
}

/* Whether the active set has rules of kind f (its kinds) that this program judges. */
static __always_inline int xrl_uses(__u8 kinds, __u32 f)
{
	return xrl_carries(f) && (kinds & f);
}

/* Whether rule r has a byte rate. */
static __always_inline int xrl_has_bytes(const struct xrl_rule *r)
{
	return xrl_carries(XRL_FEAT_BYTES) && r->byte_threshold;
}

/* Whether rule r has no packet rate: its byte window alone judges it. */
static __always_inline int xrl_bytes_only(const struct xrl_rule *r)
{
	return xrl_carries(XRL_FEAT_BYTES) && (r->flags & XRL_F_NO_PKT_RATE);
}

/* The kernel's tick, for reading bpf_jiffies64 as a bound on time; 0 if unknown. */
extern unsigned int CONFIG_HZ __kconfig __weak;

/* The clocks under XRL_CLOCK_TEST; the verifier drops every read of them otherwise. */
volatile __u64 xrl_test_now;
volatile __u64 xrl_test_jiffies;
volatile __u64 xrl_test_coarse; /* the coarse clock when set, else xrl_test_now */

/*
 * A packet's clock reads, each made at most once, on the first path that
 * needs it (0: not read yet): the precise clock for tracked sources, the
 * coarse one for new sources past the cap.
 */
struct xrl_times {
	__u64 precise;
	__u64 coarse;
};

/* Template for a new window state: too large for the 512-byte stack. */
static const struct xrl_state xrl_zero_state;

/*
 * One rule's judgement of one packet, kept until the packet's fate is known.
 * No pointers (the rule, the latch that judged it travel beside it), so that
 * it may live in a map: the protocol and dst rules' do (xrl_eval).
 */
struct xrl_eval {
	struct xrl_slot slot; /* the bucket the packet was judged in */
	struct xrl_key key;   /* rule_id has XRL_KEY_BYTES for a byte window */
	int over;
	int sketch;  /* judged by the sketch: the key has no state */
	int counted; /* its pass was counted in the key's window: taken back if the packet is dropped */
	__u32 cost;  /* a byte window's: the frame's length (see xrl_eval_cost) */
};

/*
 * What the packet counts in the window judged: its length in a byte window,
 * else 1, or in generic mode the segments of a super-packet (cost, when set).
 */
static __always_inline __u32 xrl_eval_cost(const struct xrl_eval *ev)
{
	if (ev->key.rule_id & XRL_KEY_BYTES)
		return ev->cost;
	return xrl_cfg.gso_mtu && ev->cost > 1 ? ev->cost : 1;
}
_Static_assert(sizeof(struct xrl_eval) <= XRL_EVAL_SIZE, "xrl_eval fits its map");

/* The dst rule's judgement, or a narrowed port rule (see xrl_dst_find), in an xrl_eval slot. */
struct xrl_dst_eval {
	struct xrl_eval ev;
	struct xrl_rule rule; /* a copy of the rule */
};
_Static_assert(sizeof(struct xrl_dst_eval) <= XRL_EVAL_SIZE, "xrl_dst_eval fits its map");

static __always_inline __u64 xrl_now(void)
{
	if (xrl_cfg.clock == XRL_CLOCK_TEST)
		return xrl_test_now;
	if (xrl_cfg.clock == XRL_CLOCK_COARSE)
		return bpf_ktime_get_coarse_ns();
	return bpf_ktime_get_ns();
}

/*
 * The coarse clock (the time at the last tick, at most a tick behind), for
 * the path of new sources past the cap: on this rig the precise read costs
 * more than 40 ns a frame, a fifth of that path (see xrl_judge_slow).
 */
static __always_inline __u64 xrl_now_coarse(void)
{
	if (xrl_cfg.clock == XRL_CLOCK_TEST)
		return xrl_test_coarse ? xrl_test_coarse : xrl_test_now;
	return bpf_ktime_get_coarse_ns();
}

/* Inlined by the verifier into one load: the cheap clock, read as a bound only. */
static __always_inline __u64 xrl_jiffies(void)
{
	if (xrl_cfg.clock == XRL_CLOCK_TEST)
		return xrl_test_jiffies;
	return bpf_jiffies64();
}

static __always_inline void xrl_key_of(struct xrl_key *k, const struct xrl_rule *r, const struct xrl_pkt *p, __u32 port)
{
	__builtin_memset(k, 0, sizeof(*k));
	xrl_key_make(k, r, p->family, p->src, (__u16)port, p->proto);
}

/*
 * The rule's per-CPU stats slot, its derived fields brought up to date: the
 * bucket length and validity of its shape when the gen or the shape changes,
 * the slot of now when now leaves the last one. So the packet path divides
 * once a bucket.
 */
static __always_inline struct xrl_rule_stats *xrl_rule_stats_at(const struct xrl_rule *r, __u64 now, int coarse)
{
	struct xrl_rule_stats *rs;
	__u32 id = r->id;
	int fresh;

	rs = bpf_map_lookup_elem(&xrl_rule_stats, &id);
	if (!rs)
		return NULL;
	fresh = rs->gen != r->gen;
	if (fresh) {
		/* New rule or new window shape: never mix bucket lengths. */
		xrl_ring_reset(&rs->ring, XRL_CELLS);
		rs->gen = r->gen;
	}
	if (fresh || rs->buckets != r->buckets || rs->interval != r->interval_ns) {
		rs->buckets = r->buckets;
		rs->interval = r->interval_ns;
		/* A window longer than the rings hold is never judged: apply resizes them first (apply.c). */
		rs->shape_ok = xrl_shape_check(r->buckets, r->interval_ns) == XRL_SHAPE_OK &&
			       xrl_cells_fit(r->buckets, XRL_CELLS);
		rs->blen = rs->shape_ok ? r->interval_ns / r->buckets : 0;
		rs->slot.start = 0;
		rs->slot.end = 0;
	}
	/* A coarse now, up to a tick behind a precise one, never moves the slot back. */
	if (rs->shape_ok && !xrl_slot_holds(&rs->slot, now) && !(coarse && now < rs->slot.end))
		xrl_slot_at(&rs->slot, now, rs->blen, XRL_CELLS);
	return rs;
}

/*
 * The flood path: the key's latch says it is over in the bucket the rule's
 * slot is in, and the jiffies prove that bucket has not ended. No helper call:
 * every lookup here is an array the verifier inlines, and bpf_jiffies64 is a
 * load. The proof: a latch made at jiffies j0 with until_jiffies = j0 +
 * ticks - M (ticks: whole ticks to the bucket's end, M the margin) answers
 * only while jiffies j1 < until. Tick j0 + 1 had not been counted at the
 * latch and tick j1 + 1 has not been at the answer, so the time between
 * them is under (j1 + 1 - j0) ticks plus how late the jiffies are at the
 * answer: under (ticks - M + 1) ticks plus that lateness, which must stay
 * under M - 1 ticks for the answer to fall before the bucket's end. The
 * jiffies are late when the CPU that counts them is held up (a vCPU the
 * host does not run, say): the kernel lets them stall MAX_STALLED_JIFFIES
 * (5) ticks before another CPU's tick counts them, and a packet runs on a
 * CPU whose tick is running. So M is 5 ticks, one for the tick that counts
 * them late and one for the whole-tick rounding: 7 (28 ms at HZ 250). With
 * M at 2 ticks (8 ms), the jiffies were measured 7.2-8 ms late on a VM, and
 * a latch dropped packets while the window had room. Near the end of a
 * bucket, the precise clock decides.
 */
#define XRL_JIFFIES_MARGIN 7

/*
 * The packets a window of r may pass on this node: a global rule's allowance,
 * as the sync agent last set it for this gen of the rule, until it lapses
 * (then its fallback), else its threshold. The coarse clock is precise
 * enough for a deadline of seconds, and costs a global rule's packet no more.
 */
static __always_inline __u64 xrl_threshold(const struct xrl_rule *r)
{
	struct xrl_fleet *f;
	__u32 id = r->id;

	if (!xrl_carries(XRL_FEAT_GLOBAL) || !(r->flags & XRL_F_GLOBAL))
		return r->threshold;
	f = bpf_map_lookup_elem(&xrl_fleet, &id);
	if (!f || !f->allowance || f->gen != r->gen)
		return r->threshold;
	if (f->expires_ns && xrl_now_coarse() > f->expires_ns)
		return f->fallback ? f->fallback : r->threshold;
	return f->allowance;
}

/* The threshold of k's window of rule r: its byte window's, or its packet window's. */
static __always_inline __u64 xrl_key_threshold(const struct xrl_rule *r, const struct xrl_key *k)
{
	return k->rule_id & XRL_KEY_BYTES ? r->byte_threshold : xrl_threshold(r);
}

/* Whether latch l answers for key k of rule r, whose window's threshold is thr (xrl_key_threshold). */
static __always_inline int xrl_latched(const struct xrl_latch *l, const struct xrl_rule *r,
				       const struct xrl_rule_stats *rs, const struct xrl_key *k, __u64 thr)
{
	return l->gen == r->gen && l->threshold == thr && rs->gen == r->gen && rs->shape_ok &&
	       rs->buckets == r->buckets && rs->interval == r->interval_ns && rs->slot.epoch == l->epoch &&
	       xrl_key_equal(&l->key, k) && xrl_jiffies() < l->until_jiffies;
}

/* The blocks a latch holds go to its key's ring (st, or looked up), in the bucket they were counted in. */
static __always_inline void xrl_latch_flush(struct xrl_latch *l, struct xrl_state *st)
{
	struct xrl_slot ls = { .start = l->start, .epoch = l->epoch, .idx = l->idx };

	if (!l->block)
		return;
	if (!st)
		st = bpf_map_lookup_elem(&xrl_state, &l->key);
	if (st && st->gen == l->gen)
		xrl_block_add(&st->ring, XRL_CELLS, &ls, l->block, 0);
	l->block = 0;
}

/*
 * Latches k as over until the end of bucket s, unless the slot holds another
 * key's live latch; an expired one of another key hands its blocks on first.
 */
static __always_inline void xrl_latch_set(struct xrl_latch *l, const struct xrl_rule *r, const struct xrl_key *k,
					  const struct xrl_slot *s, __u64 now)
{
	__u64 tick, ticks, j;

	j = xrl_jiffies();
	if (l->gen && !xrl_key_equal(&l->key, k)) {
		if (j < l->until_jiffies)
			return;
		xrl_latch_flush(l, NULL);
	}
	tick = CONFIG_HZ ? 1000000000ULL / CONFIG_HZ : 0;
	ticks = tick && s->end > now ? (s->end - now) / tick : 0;
	__builtin_memcpy(&l->key, k, sizeof(*k));
	l->gen = r->gen;
	l->epoch = s->epoch;
	l->threshold = xrl_key_threshold(r, k);
	l->idx = (__u16)s->idx;
	l->sketch = 0;
	l->start = s->start;
	l->until_jiffies = ticks > XRL_JIFFIES_MARGIN ? j + ticks - XRL_JIFFIES_MARGIN : 0;
	l->block = 0;
}

/*
 * The cap on new per-source states: each CPU creates at most
 * new_keys_cpu a second. Past it, a spoofed flood of new sources can neither
 * churn the LRU (evicting tracked sources and resetting their windows) nor
 * pass a fresh window's worth per fake source: each new source is judged by
 * the sketch (xrl_sketch.h), in fixed memory, held near its own limit.
 */
static __always_inline int xrl_may_create(struct xrl_counters *cnt, __u64 now)
{
	__u64 second = now / 1000000000ULL;

	if (!xrl_cfg.new_keys_cpu)
		return 1;
	if (cnt->new_keys_second != second) {
		cnt->new_keys_second = second;
		cnt->new_keys_count = 0;
	}
	if (cnt->new_keys_count >= xrl_cfg.new_keys_cpu)
		return 0;
	cnt->new_keys_count++;
	return 1;
}

/* A new key's window state, made past the cap check (xrl_judge_slow). */
static __always_inline struct xrl_state *xrl_state_new(struct xrl_key *k, struct xrl_counters *cnt)
{
	struct xrl_state *st;

	if (bpf_map_update_elem(&xrl_state, k, &xrl_zero_state, BPF_NOEXIST) == 0)
		cnt->keys_new++;
	st = bpf_map_lookup_elem(&xrl_state, k);
	if (!st)
		cnt->keys_failed++;
	return st;
}

enum {
	XRL_JUDGED_OVER = 1,
	XRL_JUDGED_COUNTED = 2,
	XRL_JUDGED_SKETCH = 4,	 /* judged by the sketch */
	XRL_JUDGED_PAST_CAP = 8, /* a new source past the cap: to be judged by the sketch */
};

/*
 * Judges a new source past the cap in the sketch (see xrl_sketch.h for the
 * design and its bounds). A global function, verified once. A pass is
 * counted in the cells and never taken back when another rule then drops
 * the packet: an over-count of one, which can only block. A key found over
 * is latched like a tracked one, until the end of its rule's bucket, when
 * that bucket ends no later than the sketch's (then the cells cannot fall
 * before it ends): so a heavy new source costs what a tracked one does.
 */
__noinline int xrl_judge_sketch(struct xrl_rule *r, struct xrl_key *k, struct xrl_slot *slot, struct xrl_times *clk,
				int dropping)
{
	struct xrl_sketch_cell *cell[XRL_SKETCH_DEPTH];
	struct xrl_latch *l;
	__u64 h, est, blen;
	__u32 i, ix;
	__u64 now;
	int res;

	if (!r || !k || !slot || !clk)
		return 0;
	if (!clk->coarse)
		clk->coarse = xrl_now_coarse();
	now = clk->coarse;
	h = xrl_key_hash64(k);
	for (i = 0; i < XRL_SKETCH_DEPTH; i++) {
		ix = i * xrl_cfg.sketch_width + xrl_sketch_col(h, i, xrl_cfg.sketch_width);
		cell[i] = bpf_map_lookup_elem(&xrl_sketch, &ix);
		if (!cell[i])
			return 0;
	}
	res = xrl_sketch_judge(cell, r->interval_ns, xrl_threshold(r), now, dropping, &est);
	if (res == XRL_PASSED)
		return XRL_JUDGED_SKETCH;
	blen = xrl_sketch_blen(r->interval_ns);
	if (res == XRL_OVER && slot->end <= ((__u64)now / blen + 1) * blen) {
		ix = xrl_key_hash(k);
		l = bpf_map_lookup_elem(&xrl_latches, &ix);
		if (l) {
			xrl_latch_set(l, r, k, slot, now);
			if (l->gen == r->gen && l->epoch == slot->epoch && xrl_key_equal(&l->key, k))
				l->sketch = 1;
		}
	}
	return XRL_JUDGED_OVER | XRL_JUDGED_SKETCH;
}

/*
 * Judges one rule for one packet on the precise clock: the slow path, for a
 * packet no latch answers. A global function, so the verifier checks it once
 * rather than once for every way into it; the call costs a few ns.
 *
 * A packet passes only if every rule it matches passes, so once an earlier
 * rule has dropped it (dropping), this one is only asked whether it is over;
 * otherwise its pass is counted in the same compare-and-swap that decides it
 * (xrl_reserve), and taken back if a later rule drops the packet. The limit
 * is exact across CPUs: every CPU counts into the one ring of the key, and a
 * pass is counted only while the sum still allows it. Once a key is over, the
 * sum cannot fall before its bucket ends: the CPU latches that, and answers
 * the key's next packets from the latch. Returns XRL_JUDGED_* bits; 0 when
 * the rule passes the packet without a window (invalid shape, no state).
 */
__noinline int xrl_judge_slow(struct xrl_rule *r, struct xrl_eval *ev, struct xrl_times *clk, int dropping)
{
	struct xrl_counters *cnt;
	struct xrl_rule_stats *rs;
	struct xrl_latch *l;
	struct xrl_state *st;
	struct xrl_slot *slot;
	struct xrl_key *k;
	__u64(*snap)[XRL_MAX_CELLS];
	__u64 now, thr, full, room = 0;
	__u32 zero = 0, h;
	int res;

	if (!r || !ev || !clk)
		return 0;
	k = &ev->key;
	slot = &ev->slot;
	cnt = bpf_map_lookup_elem(&xrl_counters, &zero);
	if (!cnt)
		return 0;
	st = bpf_map_lookup_elem(&xrl_state, k);
	if (!st && k->family && xrl_cfg.new_keys_cpu) {
		/*
		 * A new source: the cap and, past it, the sketch go by the coarse
		 * clock, so that a flood of them costs no precise read (clk->precise is
		 * left for a tracked source's exact window).
		 */
		if (!clk->coarse)
			clk->coarse = xrl_now_coarse();
		now = clk->coarse;
		if (!xrl_may_create(cnt, now)) {
			rs = xrl_rule_stats_at(r, now, 1);
			if (!rs || !rs->shape_ok)
				return 0;
			/* Not from here: the stack of three calls would be past the verifier's 512 bytes. */
			*slot = rs->slot;
			return XRL_JUDGED_PAST_CAP;
		}
	}
	if (!clk->precise)
		clk->precise = xrl_now();
	now = clk->precise;
	rs = xrl_rule_stats_at(r, now, 0);
	if (!rs || !rs->shape_ok)
		return 0;
	if (!st)
		st = xrl_state_new(k, cnt);
	if (!st)
		return 0;
	if (st->gen != r->gen) {
		__u32 old = st->gen;

		/*
		 * A new key or a new window shape: one CPU empties the ring. Race:
		 * a pass another CPU counts between this swap and the reset is
		 * lost, so the first moment of a key may admit one more packet a
		 * CPU racing there.
		 */
		if (__sync_val_compare_and_swap(&st->gen, old, r->gen) == old)
			xrl_ring_reset(&st->ring, XRL_CELLS);
	}
	*slot = rs->slot;
	h = xrl_key_hash(k);
	l = bpf_map_lookup_elem(&xrl_latches, &h);
	if (l && xrl_latched(l, r, rs, k, xrl_key_threshold(r, k))) {
		l->block++;
		return XRL_JUDGED_OVER;
	}
	if (l && l->gen && xrl_key_equal(&l->key, k)) {
		/* The key's latch retires. */
		xrl_latch_flush(l, st);
		l->gen = 0;
	}
	snap = bpf_map_lookup_elem(&xrl_scratch, &zero);
	if (!snap)
		return 0;
	full = xrl_key_threshold(r, k);
	thr = full;
	if (r->warmup_ms) {
		__u64 period = (__u64)r->warmup_ms * 1000000ULL;

		/* A new state (last 0) or one idle for a whole period starts cold. */
		if (xrl_warm_idle(XRL_READ_ONCE(st->ring.last), rs->blen, period, now))
			st->warm = now;
		thr = xrl_warm_threshold(full, period, st->warm, now);
	}
	res = xrl_reserve(&st->ring, r->buckets, XRL_CELLS, r->interval_ns, slot, thr, xrl_eval_cost(ev),
			  XRL_RESERVE_TRIES, dropping, *snap, &room);
	if (res == XRL_PASSED)
		return dropping ? 0 : XRL_JUDGED_COUNTED;
	/*
	 * Over: it counts a block whatever the other rule decides, in the latch
	 * this CPU now holds for the key (no atomic on a line other CPUs share),
	 * else in the key's ring. Not latched when races alone made it over (it
	 * may not stay so), nor while a warm-up climbs (the threshold rises
	 * within the bucket), nor when a byte window still has room for the
	 * smallest frame, or a packet window for one packet (in generic mode a
	 * super-packet of several segments may be over while one would pass).
	 */
	if (l && res == XRL_OVER && thr == full && room < (k->rule_id & XRL_KEY_BYTES ? XRL_MIN_JUDGED_FRAME : 1))
		xrl_latch_set(l, r, k, slot, now);
	if (l && l->gen == r->gen && l->epoch == slot->epoch && xrl_key_equal(&l->key, k)) {
		xrl_block_add(&st->ring, XRL_CELLS, slot, 0, 1); /* the ring shows the bucket its blocks are in */
		l->block++;
	} else {
		xrl_block_add(&st->ring, XRL_CELLS, slot, 1, 1);
	}
	return XRL_JUDGED_OVER;
}

/* Takes back a pass xrl_judge_slow counted for ev, when another rule (or rate) dropped the packet. */
__noinline int xrl_judge_undo(struct xrl_eval *ev)
{
	struct xrl_state *st;

	if (!ev)
		return 0;
	st = bpf_map_lookup_elem(&xrl_state, &ev->key);
	if (st)
		xrl_unreserve(&st->ring, XRL_CELLS, &ev->slot, xrl_eval_cost(ev), XRL_RESERVE_TRIES);
	return 0;
}

/*
 * Makes ev's key for rule r (its byte window's when bytes); when its latch
 * answers (over), ev gets the verdict and the latch is returned.
 */
static __always_inline struct xrl_latch *xrl_judge_latched(struct xrl_eval *ev, struct xrl_rule *r,
							   const struct xrl_pkt *p, __u32 port, int bytes)
{
	struct xrl_rule_stats *rs;
	struct xrl_latch *l;
	__u32 h;

	xrl_key_of(&ev->key, r, p, port);
	if (bytes)
		ev->key.rule_id |= XRL_KEY_BYTES;
	h = xrl_key_hash(&ev->key);
	l = bpf_map_lookup_elem(&xrl_latches, &h);
	rs = bpf_map_lookup_elem(&xrl_rule_stats, &r->id);
	if (l && rs && xrl_latched(l, r, rs, &ev->key, xrl_key_threshold(r, &ev->key))) {
		ev->slot = rs->slot;
		ev->over = 1;
		ev->sketch = l->sketch;
		return l;
	}
	return NULL;
}

/* Judges a rule for ev's key when no latch answered: the slow path, and past the cap the sketch. */
static __always_inline void xrl_judge_unlatched(struct xrl_eval *ev, struct xrl_rule *r, struct xrl_times *now,
						int dropping)
{
	int res;

	res = xrl_judge_slow(r, ev, now, dropping);
	if (res & XRL_JUDGED_PAST_CAP)
		res = xrl_judge_sketch(r, &ev->key, &ev->slot, now, dropping);
	ev->over = res & XRL_JUDGED_OVER;
	ev->counted = res & XRL_JUDGED_COUNTED;
	ev->sketch = !!(res & XRL_JUDGED_SKETCH);
}

/*
 * Judges one rule: from the key's latch when it can answer, else on the slow
 * path. Returns the latch that judged it (count the block there), or NULL.
 */
static __always_inline struct xrl_latch *xrl_judge(struct xrl_eval *ev, struct xrl_rule *r, const struct xrl_pkt *p,
						   __u32 port, struct xrl_times *now, int dropping)
{
	struct xrl_latch *l = xrl_judge_latched(ev, r, p, port, 0);

	if (l)
		return l;
	xrl_judge_unlatched(ev, r, now, dropping);
	return NULL;
}

/*
 * Readies rule r's byte window for packet p: its key (XRL_KEY_BYTES: a key
 * of its own beside the packet window's); ev->cost already holds the
 * frame's length, ev->key.port the key's port (0 but for a port rule). Returns 1
 * when a latch answers that it is over (the block counted there), else 0:
 * then xrl_judge_slow judges it. A global function, verified once for every
 * kind of rule; called from the program, not from xrl_judge_slow's caller,
 * so that the stack of calls stays within 512 bytes.
 */
__noinline int xrl_bytes_prepare(struct xrl_eval *ev, struct xrl_rule *r, const struct xrl_pkt *p)
{
	struct xrl_latch *l;

	if (!ev || !r || !p)
		return 0;
	ev->over = 0;
	ev->counted = 0;
	ev->sketch = 0;
	l = xrl_judge_latched(ev, r, p, ev->key.port, 1);
	if (!l)
		return 0;
	l->block++;
	return 1;
}

/*
 * The protocol rule for p: its most specific selector first (tcp-syn, an ICMP
 * type, fragments), then its protocol number, as a longest match would.
 */
static __always_inline struct xrl_rule *xrl_proto_rule(__u8 set, const struct xrl_pkt *p)
{
	struct xrl_proto_rule *pr;
	__u32 sel = 0xffff, ix;

	if (p->flags & XRL_PKT_LATER_FRAG)
		sel = XRL_SEL_FRAGMENTS;
	else if (p->flags & XRL_PKT_SYN)
		sel = XRL_SEL_SYN;
	else if ((p->flags & XRL_PKT_TYPE) && p->proto == XRL_PROTO_ICMP)
		sel = XRL_SEL_ICMP(p->icmp_type);
	else if ((p->flags & XRL_PKT_TYPE) && p->proto == XRL_PROTO_ICMPV6)
		sel = XRL_SEL_ICMPV6(p->icmp_type);
	if (sel != 0xffff) {
		ix = XRL_PROTO_IDX(set, sel);
		pr = bpf_map_lookup_elem(&xrl_proto_rules, &ix);
		if (pr && pr->used && pr->sel == sel)
			return &pr->r;
	}
	ix = XRL_PROTO_IDX(set, p->proto);
	pr = bpf_map_lookup_elem(&xrl_proto_rules, &ix);
	if (pr && pr->used && pr->sel == p->proto)
		return &pr->r;
	return NULL;
}

/* A rule's totals, and the rule-level window behind its QPS. */
static __always_inline void xrl_count_rule(struct xrl_rule_stats *rs, int blocked)
{
	struct xrl_cell *c;

	if (!rs)
		return;
	if (blocked)
		rs->block++;
	else
		rs->pass++;
	if (!rs->shape_ok)
		return;
	c = xrl_current_at(&rs->ring, XRL_CELLS, &rs->slot);
	if (c)
		xrl_cell_count(c, blocked);
}

/* Counts rule r's judgement ev, from latch l or not, once the packet's fate is known. */
static __always_inline void xrl_commit(struct xrl_eval *ev, struct xrl_rule *r, struct xrl_latch *l, int dropped,
				       struct xrl_counters *cnt)
{
	struct xrl_rule_stats *rs;

	if (!r)
		return;
	if (ev->sketch) {
		cnt->sketch_judged++;
		if (ev->over)
			cnt->sketch_blocked++;
	}
	rs = bpf_map_lookup_elem(&xrl_rule_stats, &r->id);
	if (ev->over) {
		if (l)
			l->block++;
		xrl_count_rule(rs, 1);
	} else if (!dropped) {
		xrl_count_rule(rs, 0);
	}
	if (dropped && ev->counted)
		xrl_judge_undo(ev);
}

/* Readies rule r's byte window's judgement, in xrl_eval's slot ix, for a frame of len bytes (when r has a byte rate). */
static __always_inline void xrl_bytes_eval(const struct xrl_rule *r, __u32 ix, __u32 len)
{
	struct xrl_eval *bev;

	if (!r || !r->byte_threshold)
		return;
	bev = bpf_map_lookup_elem(&xrl_eval, &ix);
	if (bev)
		bev->cost = len;
}

/*
 * Judges rule r's byte rate, when it has one and its packet rate passed the
 * packet, into xrl_eval's slot bix (xrl_bytes_eval readied it); over there,
 * the rule (ev) is over. The slot is looked up here, not held by the
 * program: its stack and the slow path's must fit in 512 bytes.
 */
static __always_inline void xrl_judge_rule_bytes(struct xrl_eval *ev, __u32 bix, struct xrl_rule *r,
						 const struct xrl_pkt *p, __u16 port, struct xrl_times *now,
						 int dropping)
{
	struct xrl_eval *bev;
	int res;

	if (!r->byte_threshold)
		return;
	bev = bpf_map_lookup_elem(&xrl_eval, &bix);
	if (!bev)
		return;
	if (ev->over) {
		/* The rule's packet rate refused it: the rule is over whatever its bytes. */
		bev->over = 0;
		bev->counted = 0;
		return;
	}
	bev->key.port = port;
	if (!xrl_bytes_prepare(bev, r, p)) {
		/*
		 * A new source past the cap on states is not judged here (the
		 * sketch counts packets): the rule's packet rate still holds.
		 */
		res = xrl_judge_slow(r, bev, now, dropping);
		bev->over = !(res & XRL_JUDGED_PAST_CAP) && (res & XRL_JUDGED_OVER);
		bev->counted = !!(res & XRL_JUDGED_COUNTED);
	}
	if (bev->over)
		ev->over = 1;
}

/*
 * A rule with a byte rate, once the packet's fate is known: its bytes
 * counted as its packet was (ev: the rule's verdict), and its byte window's
 * pass taken back when the packet was dropped after all. Nothing for a rule
 * without one: the other rules' packets touch no byte counter.
 */
static __always_inline void xrl_commit_bytes(__u32 bix, const struct xrl_eval *ev, struct xrl_rule *r, int dropped)
{
	struct xrl_rule_stats *rs;
	struct xrl_eval *bev;
	__u32 len;

	if (!r || !r->byte_threshold)
		return;
	bev = bpf_map_lookup_elem(&xrl_eval, &bix);
	if (!bev)
		return;
	rs = bpf_map_lookup_elem(&xrl_rule_stats, &r->id);
	len = bev->cost;
	if (rs && ev->over)
		rs->block_bytes += len;
	else if (rs && !dropped)
		rs->pass_bytes += len;
	if (dropped && bev->counted)
		xrl_judge_undo(bev);
}

/* What xrl_lpm_find looks up: an address of a kind (XRL_LPM_SRC or XRL_LPM_DST) in a rule set. */
struct xrl_lpm_q {
	__u8 addr[16];
	__u32 kind;
	__u32 set;
	__u32 family;
};

/*
 * The slot of the prefix or dst rule whose prefix, single or of a set, is
 * the longest to hold the address; 0 for none: the range structure of
 * xrl_lpm.h (the same search as xrl_lpm_lookup). A global function, its
 * loop verified once; every lookup in it an array the verifier inlines.
 */
__noinline __u32 xrl_lpm_find(const struct xrl_lpm_q *q)
{
	__u32 ix, dv, c, hdr, lo = 0, n, h, i, key;
	__u64 *w, *w2, k0 = 0, k1 = 0;

	if (!q)
		return 0;
	c = ((__u32)q->addr[0] << 8) | q->addr[1];
	ix = XRL_LPM_DIR(q->kind, q->set, q->family == XRL_FAMILY_V6, c);
	w = bpf_map_lookup_elem(&xrl_lpm_dir, &ix);
	if (!w)
		return 0;
	dv = (__u32)(*w >> (32 * (c & 1)));
	if (!dv || (dv & XRL_LPM_DIRECT))
		return dv & XRL_LPM_SLOT_MASK;
	hdr = dv;
	w = bpf_map_lookup_elem(&xrl_lpm_ranges, &hdr);
	if (!w)
		return 0;
	n = (__u32)*w;
	if (q->family == XRL_FAMILY_V4) {
		key = ((__u32)q->addr[0] << 24) | ((__u32)q->addr[1] << 16) | ((__u32)q->addr[2] << 8) | q->addr[3];
		for (i = 0; i < XRL_LPM_STEPS && n > 1; i++) {
			h = n / 2;
			ix = hdr + 1 + lo + h;
			w = bpf_map_lookup_elem(&xrl_lpm_ranges, &ix);
			if (!w)
				return 0;
			if ((__u32)(*w >> 32) <= key)
				lo += h;
			n -= h;
		}
		ix = hdr + 1 + lo;
	} else {
		for (i = 2; i < 10; i++)
			k0 = k0 << 8 | q->addr[i];
		for (i = 10; i < 16; i++)
			k1 = k1 << 8 | q->addr[i];
		for (i = 0; i < XRL_LPM_STEPS && n > 1; i++) {
			h = n / 2;
			ix = hdr + 1 + 2 * (lo + h);
			w = bpf_map_lookup_elem(&xrl_lpm_ranges, &ix);
			ix++;
			w2 = bpf_map_lookup_elem(&xrl_lpm_ranges, &ix);
			if (!w || !w2)
				return 0;
			if (*w < k0 || (*w == k0 && (*w2 >> 16) <= k1))
				lo += h;
			n -= h;
		}
		ix = hdr + 2 + 2 * lo;
	}
	w = bpf_map_lookup_elem(&xrl_lpm_ranges, &ix);
	return w ? (__u32)*w & XRL_LPM_SLOT_MASK : 0;
}

/* The rule of slot, when it is one of kind. */
static __always_inline struct xrl_rule *xrl_lpm_rule_at(__u32 slot, __u32 kind)
{
	struct xrl_lpm_rule *lr = slot ? bpf_map_lookup_elem(&xrl_lpm_rules, &slot) : NULL;

	return lr && lr->used && lr->kind == kind ? &lr->r : NULL;
}

/*
 * Destination rules (the range structure) and port rules narrowed to a destination (xrl_dsts):
 * found, judged and committed by global functions, each verified once, with
 * no pointer held by the program between them. A fourth inlined judgement
 * took the verifier past its 1M instructions: it walks every combination of
 * the judgements' outcomes, and a rule pointer that may be NULL doubles them.
 * So the rules found are copied into the packet's xrl_eval slots (a map value
 * cannot be returned), and the destination address is read here from the
 * packet, not kept in struct xrl_pkt: the program's stack, this call's and
 * the sketch's must fit in 512 bytes.
 */
#define XRL_DST_MATCH 1	  /* a dst rule, in xrl_eval's XRL_EVAL_DST slot */
#define XRL_DST_ALLOW 2	  /* an allow dst rule: counted here, the packet passes */
#define XRL_DST_MONITOR 4 /* the dst rule is a monitor */
#define XRL_DST_PORT 8	  /* a narrowed port rule, in the XRL_EVAL_PORT_DST slot */

__noinline int xrl_dst_find(struct xdp_md *ctx, const struct xrl_pkt *p, __u32 set, __u32 kinds)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end, *l3;
	struct xrl_dst_key dk = {};
	struct xrl_dst_eval *de;
	struct xrl_rule *r;
	__u32 ix;
	int res = 0;

	if (!p)
		return 0;
	l3 = data + p->l3off;
	if (p->family == XRL_FAMILY_V4) {
		struct iphdr *iph = l3;

		if ((void *)(iph + 1) > end)
			return 0;
		__builtin_memcpy(dk.addr, &iph->daddr, 4);
		dk.prefixlen = XRL_DST_HDR_BITS + 32;
	} else {
		struct ipv6hdr *ip6h = l3;

		if ((void *)(ip6h + 1) > end)
			return 0;
		__builtin_memcpy(dk.addr, &ip6h->daddr, 16);
		dk.prefixlen = XRL_DST_HDR_BITS + 128;
	}
	dk.set = set & 1;
	dk.family = p->family;
	r = NULL;
	if (xrl_uses(kinds, XRL_HAS_DSTS)) {
		struct xrl_lpm_q q = { .kind = XRL_LPM_DST, .set = set & 1, .family = p->family };

		__builtin_memcpy(q.addr, dk.addr, 16);
		r = xrl_lpm_rule_at(xrl_lpm_find(&q), XRL_LPM_DST);
	}
	if (r && (r->flags & XRL_F_ALLOW)) {
		xrl_count_rule(xrl_rule_stats_at(r, xrl_now(), 0), 0);
		return XRL_DST_ALLOW;
	}
	ix = XRL_EVAL_DST;
	de = r ? bpf_map_lookup_elem(&xrl_eval, &ix) : NULL;
	if (r && de) {
		__builtin_memset(de, 0, sizeof(*de));
		de->rule = *r;
		res = XRL_DST_MATCH | (r->flags & XRL_F_MONITOR ? XRL_DST_MONITOR : 0);
		/* What its byte rate counts, if it has one: the frame's length as XDP sees it. */
		if (xrl_carries(XRL_FEAT_BYTES))
			xrl_bytes_eval(r, XRL_EVAL_DST_BYTES, (__u32)(end - data));
	}
	if (!p->has_port || !xrl_uses(kinds, XRL_HAS_PORT_DSTS))
		return res;
	dk.proto = p->proto;
	dk.port = p->dport;
	r = bpf_map_lookup_elem(&xrl_dsts, &dk);
	ix = XRL_EVAL_PORT_DST;
	de = r ? bpf_map_lookup_elem(&xrl_eval, &ix) : NULL;
	if (r && de) {
		de->rule = *r;
		res |= XRL_DST_PORT;
	}
	return res;
}

/*
 * The flood path of the rule xrl_dst_find copied, as xrl_judge's: its key, and
 * whether the key's latch answers (then the packet is over, its block counted
 * in the latch). 0: judge it on the slow path, xrl_dst_judge.
 */
__noinline int xrl_dst_latched(const struct xrl_pkt *p)
{
	struct xrl_dst_eval *de;
	struct xrl_latch *l;
	__u32 ix = XRL_EVAL_DST;

	de = bpf_map_lookup_elem(&xrl_eval, &ix);
	if (!de || !p || xrl_bytes_only(&de->rule))
		return 0;
	l = xrl_judge_latched(&de->ev, &de->rule, p, 0, 0);
	if (!l)
		return 0;
	l->block++; /* as xrl_commit counts a latched block, whatever the packet's fate */
	return 1;
}

/*
 * Judges the rule xrl_dst_find copied, for the key xrl_dst_latched made, on
 * the slow path, then its byte rate if it has one; whether the packet is over
 * it. Apart from xrl_dst_latched so that this frame, the program's and the
 * sketch's fit the verifier's 512 bytes of stack.
 */
__noinline int xrl_dst_judge(const struct xrl_pkt *p, struct xrl_times *now, int dropping)
{
	struct xrl_dst_eval *de;
	__u32 ix = XRL_EVAL_DST;

	de = bpf_map_lookup_elem(&xrl_eval, &ix);
	if (!de || !now || !p)
		return 0;
	if (!xrl_bytes_only(&de->rule))
		xrl_judge_unlatched(&de->ev, &de->rule, now, dropping);
	if (xrl_carries(XRL_FEAT_BYTES))
		xrl_judge_rule_bytes(&de->ev, XRL_EVAL_DST_BYTES, &de->rule, p, 0, now, dropping);
	return de->ev.over;
}

__noinline int xrl_dst_commit(int dropped)
{
	struct xrl_counters *cnt;
	struct xrl_dst_eval *de;
	__u32 ix = XRL_EVAL_DST, zero = 0;

	de = bpf_map_lookup_elem(&xrl_eval, &ix);
	cnt = bpf_map_lookup_elem(&xrl_counters, &zero);
	if (!de || !cnt)
		return 0;
	xrl_commit(&de->ev, &de->rule, NULL, dropped, cnt);
	if (xrl_carries(XRL_FEAT_BYTES))
		xrl_commit_bytes(XRL_EVAL_DST_BYTES, &de->ev, &de->rule, dropped);
	return 0;
}

/*
 * Generic mode sees a GSO or GRO super-packet (a TCP bulk transfer's 64 KB)
 * as one frame: it counts as the segments the stack delivers, estimated from
 * its length and the MTU less its headers (TCP's with 12 bytes of options,
 * the timestamps most stacks send, so that the estimate errs on the side of
 * more segments). A frame within the MTU, or without a transport header, is 1.
 */
static __always_inline __u32 xrl_gso_segs(struct xdp_md *ctx, const struct xrl_pkt *p)
{
	__u32 len = (__u32)(ctx->data_end - ctx->data), hdr, mss;

	if (!xrl_cfg.gso_mtu || !p->has_port || len <= xrl_cfg.gso_mtu + p->l3off)
		return 1;
	hdr = (p->family == XRL_FAMILY_V4 ? 20 : 40) + (p->proto == XRL_PROTO_TCP ? 32 : 8);
	if (xrl_cfg.gso_mtu <= hdr + 64)
		return 1;
	mss = xrl_cfg.gso_mtu - hdr;
	len -= p->l3off + hdr;
	return (len + mss - 1) / mss;
}

static __always_inline int xrl_pass(struct xrl_counters *cnt)
{
	cnt->passed++;
	return XDP_PASS;
}

static __always_inline int xrl_drop(struct xrl_counters *cnt)
{
	cnt->dropped++;
	return XDP_DROP;
}

/*
 * A malformed frame's verdict under load --malformed: the default drops only
 * what the host would accept and no rule could judge; what it drops itself
 * (a truncated header) passes.
 */
static __always_inline int xrl_malformed(struct xrl_counters *cnt, __u32 reason)
{
	if (reason < XRL_MAL_MAX)
		cnt->malformed[reason]++;
	if (xrl_cfg.malformed == XRL_MALPOL_DROP ||
	    (xrl_cfg.malformed == XRL_MALPOL_EVASIVE && (reason == XRL_MAL_FRAG_TINY || reason == XRL_MAL_IPV6_CHAIN)))
		return xrl_drop(cnt);
	return xrl_pass(cnt);
}

#include "capture.h"

/* A judged frame's exit, for a capture: the rules xrl_verdict met, read only while one runs. */
#define XRL_CAP_JUDGED(why) \
	(XRL_CAP_HOW(why, 0) | XRL_CAP_HOW_DST(dst) | XRL_CAP_HOW_PORT_OVER(orule ? port_ev.over : 0))
#define XRL_CAP_RULES()                                                      \
	((orule ? XRL_CAP_RULE(orule, XRL_CAP_SLOT_PORT) : 0) |              \
	 (trule && proto_ev ? XRL_CAP_RULE(trule, XRL_CAP_SLOT_PROTO) : 0) | \
	 (prule && prefix_ev ? XRL_CAP_RULE(prule, XRL_CAP_SLOT_PREFIX) : 0))

/* The verdict of one frame: every exit offers it to a capture (XRL_CAP_EXIT). */
static __always_inline int xrl_verdict(struct xdp_md *ctx)
{
	struct xrl_eval port_ev = {}, *proto_ev = NULL, *prefix_ev = NULL;
	struct xrl_rule *prule = NULL, *orule = NULL, *trule = NULL;
	struct xrl_latch *port_l = NULL, *proto_l = NULL, *prefix_l = NULL;
	struct xrl_counters *cnt;
	struct xrl_pkt p = {};
	struct xrl_ctl *ctl;
	__u32 zero = 0, len;
	int res, over, monitor, dst = 0;
	__u8 set, kinds;
	struct xrl_times now;

	cnt = bpf_map_lookup_elem(&xrl_counters, &zero);
	if (!cnt)
		return XDP_PASS;
#ifdef XRL_TEST_REFUSED
	/* A bad build for the tests: a packet byte read with no bounds check, which the verifier refuses. */
	if (*(volatile __u8 *)(long)ctx->data == 0xff)
		return XDP_DROP;
#endif
	cnt->seen++;

	res = xrl_parse(ctx, &p);
	if (res == XRL_PARSE_NON_IP) {
		cnt->non_ip++;
		return XRL_CAP_EXIT(ctx, &p, xrl_pass(cnt), XRL_CAP_HOW(XRL_CAP_WHY_NON_IP, 0), 0);
	}
	if (res != XRL_PARSE_IP)
		return XRL_CAP_EXIT(ctx, &p, xrl_malformed(cnt, -res - 1), XRL_CAP_HOW(XRL_CAP_WHY_MALFORMED, -res - 1),
				    0);
	/*
	 * An IPv6 chain too long to follow: judged by the rules that need no
	 * transport header (prefix and dst), under the default policy; counted
	 * once, as malformed, whatever they decide.
	 */
	if (p.flags & XRL_PKT_UNFOLLOWED) {
		cnt->malformed[XRL_MAL_IPV6_CHAIN]++;
		if (xrl_cfg.malformed != XRL_MALPOL_EVASIVE)
			return XRL_CAP_EXIT(ctx, &p,
					    xrl_cfg.malformed == XRL_MALPOL_DROP ? xrl_drop(cnt) : xrl_pass(cnt),
					    XRL_CAP_HOW(XRL_CAP_WHY_MALFORMED, XRL_MAL_IPV6_CHAIN), 0);
	}

	ctl = bpf_map_lookup_elem(&xrl_ctl, &zero);
	if (!ctl)
		return xrl_pass(cnt);

	set = ctl->active_set & 1;
	kinds = ctl->kinds[set];
	/* Its port and protocol are hidden: a port or protocol rule of the set might have held it. */
	if ((p.flags & XRL_PKT_UNFOLLOWED) && xrl_uses(kinds, XRL_HAS_PORTS | XRL_HAS_PORT_DSTS | XRL_HAS_PROTOS))
		return XRL_CAP_EXIT(ctx, &p, xrl_drop(cnt), XRL_CAP_HOW(XRL_CAP_WHY_HIDDEN, XRL_MAL_IPV6_CHAIN), 0);
	if (xrl_uses(kinds, XRL_HAS_PREFIXES)) {
		/* In a block of its own: the compiler may reuse its stack, which the slow path's needs. */
		struct xrl_lpm_q q = { .kind = XRL_LPM_SRC, .set = set, .family = p.family };

		__builtin_memcpy(q.addr, p.src, 16);
		prule = xrl_lpm_rule_at(xrl_lpm_find(&q), XRL_LPM_SRC);
	}
	if (prule && (prule->flags & XRL_F_ALLOW)) {
		cnt->allowed++;
		xrl_count_rule(xrl_rule_stats_at(prule, xrl_now(), 0), 0);
		return XRL_CAP_EXIT(ctx, &p, xrl_pass(cnt), XRL_CAP_HOW(XRL_CAP_WHY_ALLOW, 0),
				    XRL_CAP_RULE(prule, XRL_CAP_SLOT_PREFIX));
	}
	if (xrl_uses(kinds, XRL_HAS_DSTS | XRL_HAS_PORT_DSTS))
		dst = xrl_dst_find(ctx, &p, set, kinds);
	if (dst & XRL_DST_ALLOW) {
		cnt->allowed++;
		return XRL_CAP_EXIT(ctx, &p, xrl_pass(cnt), XRL_CAP_HOW(XRL_CAP_WHY_ALLOW, 0) | XRL_CAP_HOW_DST(dst),
				    0);
	}
	/* A port rule narrowed to the packet's destination, else the port's own: the most specific one. */
	if (dst & XRL_DST_PORT) {
		struct xrl_dst_eval *pe;
		__u32 ix = XRL_EVAL_PORT_DST;

		pe = bpf_map_lookup_elem(&xrl_eval, &ix);
		if (pe)
			orule = &pe->rule;
	}
	if (!orule && p.has_port && xrl_uses(kinds, XRL_HAS_PORTS)) {
		__u32 ix = XRL_PORT_IDX(set, p.proto, p.dport), *slot;
		struct xrl_port_rule *pr;

		slot = bpf_map_lookup_elem(&xrl_port_idx, &ix);
		if (slot && *slot) {
			pr = bpf_map_lookup_elem(&xrl_port_rules, slot);
			/* The slot must be this port's: never another port's rule. */
			if (pr && pr->used && pr->port == p.dport && pr->proto == p.proto)
				orule = &pr->r;
		}
	}
	if (xrl_uses(kinds, XRL_HAS_PROTOS))
		trule = xrl_proto_rule(set, &p);
	/* Generic mode: a super-packet's segments, carried by port_ev.cost into every judgement's. */
	if (xrl_cfg.gso_mtu) {
		port_ev.cost = xrl_gso_segs(ctx, &p);
		if (dst & XRL_DST_MATCH) {
			struct xrl_dst_eval *de;
			__u32 ix = XRL_EVAL_DST;

			de = bpf_map_lookup_elem(&xrl_eval, &ix);
			if (de)
				de->ev.cost = port_ev.cost;
		}
	}
	if (!prule && !orule && !trule && !(dst & XRL_DST_MATCH)) {
		if (p.flags & XRL_PKT_UNFOLLOWED) /* no rule judged it: the default fails closed */
			return XRL_CAP_EXIT(ctx, &p, xrl_drop(cnt), XRL_CAP_HOW(XRL_CAP_WHY_HIDDEN, XRL_MAL_IPV6_CHAIN),
					    0);
		cnt->no_rule++;
		return XRL_CAP_EXIT(ctx, &p, xrl_pass(cnt), XRL_CAP_HOW(XRL_CAP_WHY_NO_RULE, 0), 0);
	}

	/* Each clock read once, and only if a latch cannot answer. */
	now.precise = 0;
	now.coarse = 0;
	/* What a byte rate counts: the frame's length as XDP sees it, read only when a byte rate matched. */
	if ((orule && xrl_has_bytes(orule)) || (trule && xrl_has_bytes(trule)) || (prule && xrl_has_bytes(prule))) {
		len = (__u32)(ctx->data_end - ctx->data);
		xrl_bytes_eval(orule, XRL_EVAL_PORT_BYTES, len);
		xrl_bytes_eval(trule, XRL_EVAL_PROTO_BYTES, len);
		xrl_bytes_eval(prule, XRL_EVAL_PREFIX_BYTES, len);
	}
	/*
	 * Every rule that matches must pass, and every rate of a rule: once one
	 * drops, the next is only asked whether it is over. A rule without a
	 * packet rate (XRL_F_NO_PKT_RATE) has only its byte window.
	 */
	over = 0;
	monitor = 0;
	if (orule) {
		if (!xrl_bytes_only(orule))
			port_l = xrl_judge(&port_ev, orule, &p, p.dport, &now, 0);
		if (xrl_carries(XRL_FEAT_BYTES))
			xrl_judge_rule_bytes(&port_ev, XRL_EVAL_PORT_BYTES, orule, &p, p.dport, &now, 0);
		if (port_ev.over) {
			if (orule->flags & XRL_F_MONITOR)
				monitor = 1;
			else
				over = 1;
		}
	}
	if (trule)
		proto_ev = bpf_map_lookup_elem(&xrl_eval, &zero); /* XRL_EVAL_PROTO */
	if (trule && proto_ev) {
		__builtin_memset(proto_ev, 0, sizeof(*proto_ev));
		proto_ev->cost = port_ev.cost;
		/* Port 0: the rule id alone tells its keys from a port rule's. */
		if (!xrl_bytes_only(trule))
			proto_l = xrl_judge(proto_ev, trule, &p, 0, &now, over);
		if (xrl_carries(XRL_FEAT_BYTES))
			xrl_judge_rule_bytes(proto_ev, XRL_EVAL_PROTO_BYTES, trule, &p, 0, &now, over);
		if (proto_ev->over) {
			if (trule->flags & XRL_F_MONITOR)
				monitor = 1;
			else
				over = 1;
		}
	}
	if ((dst & XRL_DST_MATCH) && (xrl_dst_latched(&p) || xrl_dst_judge(&p, &now, over))) {
		if (dst & XRL_DST_MONITOR)
			monitor = 1;
		else
			over = 1;
	}
	if (prule) {
		__u32 ix = XRL_EVAL_PREFIX;

		prefix_ev = bpf_map_lookup_elem(&xrl_eval, &ix);
	}
	if (prule && prefix_ev) {
		__builtin_memset(prefix_ev, 0, sizeof(*prefix_ev));
		prefix_ev->cost = port_ev.cost;
		if (!xrl_bytes_only(prule))
			prefix_l = xrl_judge(prefix_ev, prule, &p, 0, &now, over);
		if (xrl_carries(XRL_FEAT_BYTES))
			xrl_judge_rule_bytes(prefix_ev, XRL_EVAL_PREFIX_BYTES, prule, &p, 0, &now, over);
	}

	if (prefix_ev && prefix_ev->over) {
		if (prule->flags & XRL_F_MONITOR)
			monitor = 1;
		else
			over = 1;
	}
	xrl_commit(&port_ev, orule, port_l, over, cnt);
	if (proto_ev)
		xrl_commit(proto_ev, trule, proto_l, over, cnt);
	if (dst & XRL_DST_MATCH)
		xrl_dst_commit(over);
	if (prefix_ev)
		xrl_commit(prefix_ev, prule, prefix_l, over, cnt);
	if (xrl_carries(XRL_FEAT_BYTES)) {
		xrl_commit_bytes(XRL_EVAL_PORT_BYTES, &port_ev, orule, over);
		if (proto_ev)
			xrl_commit_bytes(XRL_EVAL_PROTO_BYTES, proto_ev, trule, over);
		if (prefix_ev)
			xrl_commit_bytes(XRL_EVAL_PREFIX_BYTES, prefix_ev, prule, over);
	}
	/* One exit for both verdicts: a capture's check is verified once for the states that reach it. */
	if (over)
		res = xrl_drop(cnt);
	else
		res = xrl_pass(cnt);
	if (!over && monitor)
		cnt->monitored++;
	return XRL_CAP_EXIT(ctx, &p, res,
			    XRL_CAP_JUDGED(over	   ? XRL_CAP_WHY_OVER :
					   monitor ? XRL_CAP_WHY_MONITOR :
						     XRL_CAP_WHY_UNDER),
			    XRL_CAP_RULES());
}

/*
 * A frame passed goes on to the program in xrl_then, when one is set (load
 * --then, the chain command): a tail call, so the chained program's verdict
 * is the frame's. A dropped frame never reaches it; with none set, or when
 * the call fails, the frame passes.
 */
SEC("xdp")
int xdp_ratelimit(struct xdp_md *ctx)
{
	int verdict = xrl_verdict(ctx);

	if (verdict == XDP_PASS)
		bpf_tail_call(ctx, &xrl_then, 0);
	return verdict;
}
