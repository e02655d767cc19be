/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Judge: the same code for every rule a packet met, whatever its kind
 * (classify.h found it), and for its packet and byte windows alike. A
 * window's key is made from the rule and the packet's source; its latch
 * answers a flood (latch.h); else the slow path counts the packet in the
 * key's shared ring (xrl_reserve, xrl_window.h), and past the cap on new
 * states the sketch judges a new source (xrl_sketch.h). Nothing here knows
 * a rule kind: adding one touches the classifier and its index only.
 */
#ifndef XRL_BPF_JUDGE_H
#define XRL_BPF_JUDGE_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xrl_key.h"
#include "xrl_sketch.h"
#include "xrl_window.h"
#include "pctx.h"
#include "latch.h"
#include "lease.h"
#include "rule_stats.h"
#include "commit.h"

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

/* A judgement by the sketch, counted: the new sources past the cap it judged and blocked. */
static __always_inline void xrl_count_sketch(int over)
{
	struct xrl_counters *cnt;
	__u32 zero = 0;

	cnt = bpf_map_lookup_elem(&xrl_counters, &zero);
	if (!cnt)
		return;
	cnt->sketch_judged++;
	if (over)
		cnt->sketch_blocked++;
}

/*
 * Judges a new source past the cap in the sketch (see xrl_sketch.h for the
 * design and its bounds). A global function, verified once. A pass is
 * counted in the cells and never taken back when another rule then drops
 * the packet: an over-count of one, which can only block. A key found over
 * is latched like a tracked one, until the end of its rule's bucket, when
 * that bucket ends no later than the sketch's (then the cells cannot fall
 * before it ends): so a heavy new source costs what a tracked one does.
 */
__noinline int xrl_judge_sketch(struct xrl_rule *r, struct xrl_pctx *pc)
{
	struct xrl_key *k;
	struct xrl_sketch_cell *cell[XRL_SKETCH_DEPTH];
	struct xrl_rule_stats *rs;
	struct xrl_latch *l;
	__u64 h, est, blen;
	__u32 i, ix;
	__u64 now;
	int res;

	if (!r || !pc)
		return 0;
	k = &pc->key;
	now = xrl_coarse(&pc->clk);
	h = xrl_key_hash64(k);
	for (i = 0; i < XRL_SKETCH_DEPTH; i++) {
		ix = i * xrl_cfg.sketch_width + xrl_sketch_col(h, i, xrl_cfg.sketch_width);
		cell[i] = bpf_map_lookup_elem(&xrl_sketch, &ix);
		if (!cell[i])
			return 0;
	}
	res = xrl_sketch_judge(cell, r->interval_ns, xrl_threshold(r), now, pc->dropping, &est);
	if (res == XRL_PASSED)
		return 0;
	blen = xrl_sketch_blen(r->interval_ns);
	ix = r->id;
	rs = bpf_map_lookup_elem(&xrl_rule_stats, &ix); /* its slot: xrl_judge_slow brought it to now */
	if (rs && res == XRL_OVER && rs->slot.end <= ((__u64)now / blen + 1) * blen) {
		l = bpf_map_lookup_elem(&xrl_latches, &pc->latch_ix); /* the key's slot (xrl_latch_answers) */
		if (l) {
			xrl_latch_set(l, r, k, &rs->slot, xrl_until_jiffies(rs->slot.end, now, xrl_jiffies()));
			if (xrl_latch_holds(l, r, k, &rs->slot))
				l->kind = XRL_LATCH_SKETCH;
		}
	}
	return XRL_JUDGED_OVER;
}

/*
 * What a window's reservation res (xrl_reserve_lease) makes of the packet:
 * the lease a pass takes, the latch and the block an over one counts.
 * XRL_JUDGED_* bits.
 */
static __always_inline int xrl_judged(struct xrl_rule *r, struct xrl_pctx *pc, int bytes, struct xrl_win *win,
				      struct xrl_slot *slot, struct xrl_latch *l, int res, __u64 thr, __u64 full,
				      int mine, __u64 room, __u64 until)
{
	struct xrl_key *k = &pc->key;
	int dropping = pc->dropping;

	if (res == XRL_PASSED) {
		if (dropping)
			return 0;
		if (l && mine && thr == full) {
			xrl_lease_set(l, r, k, slot, xrl_win_born(win), until, pc->lease);
			if (pc->lease)
				xrl_win_lease_mark(win);
		}
		return XRL_JUDGED_COUNTED;
	}
	/* Full, maybe of passes other CPUs leased and have not spent: those first. */
	if (res == XRL_OVER && !dropping && !pc->revoked && xrl_win_leased(win))
		return XRL_JUDGED_REVOKE;
	/*
	 * Over: it counts a block whatever the other rules decide, in the latch
	 * this CPU now holds for the key (no atomic on a line other CPUs share),
	 * else in the key's ring. Not latched when races alone made it over (it
	 * may not stay so), nor while a warm-up climbs (the threshold rises
	 * within the bucket), nor when a byte window still has room for the
	 * smallest frame, or a packet window for one packet (in generic mode a
	 * super-packet of several segments may be over while one would pass).
	 */
	if (l && res == XRL_OVER && thr == full && room < (bytes ? XRL_MIN_JUDGED_FRAME : 1))
		xrl_latch_set(l, r, k, slot, until);
	if (l && xrl_latch_holds(l, r, k, slot)) {
		xrl_block_add(&win->st->ring, XRL_CELLS, slot, 0, 1); /* the ring shows the bucket its blocks are in */
		l->word++;
	} else {
		xrl_block_add(&win->st->ring, XRL_CELLS, slot, 1, 1);
	}
	return XRL_JUDGED_OVER;
}

/*
 * Judges one window of rule r for key k on the precise clock: the slow path,
 * for a packet no latch answers. A global function, so the verifier checks it
 * once rather than once for every way into it; the call costs a few ns.
 *
 * A packet passes only if every rule it matches passes, so once an earlier
 * rule has dropped it (pc->dropping), this one is only asked whether it is
 * over; otherwise its pass is counted in the same compare-and-swap that
 * decides it (xrl_reserve), and taken back if a later rule drops the packet
 * (xrl_commit_undo). The limit is exact across CPUs: every CPU counts into the
 * one ring of the key, and a pass is counted only while the sum still allows
 * it. Once a key is over, the sum cannot fall before its bucket ends: the CPU
 * latches that, and answers the key's next packets from the latch. Returns
 * XRL_JUDGED_* bits; 0 when the rule passes the packet without a window
 * (invalid shape, no state).
 */
__noinline int xrl_judge_slow(struct xrl_rule *r, struct xrl_pctx *pc, int bytes)
{
	struct xrl_counters *cnt;
	struct xrl_rule_stats *rs;
	struct xrl_latch *l;
	struct xrl_win win;
	struct xrl_slot *slot;
	struct xrl_scratch *a;
	__u64 now, thr, full, until, room = 0;
	int res, dropping, hot = 0, own, mine;
	struct xrl_key *k;

	if (!r || !pc)
		return 0;
	k = &pc->key;
	dropping = pc->dropping;
	cnt = bpf_map_lookup_elem(&xrl_counters, &xrl_zero_key);
	if (!cnt)
		return 0;
	if (!xrl_win_find(k, &win) && k->family && xrl_cfg.new_keys_cpu) {
		/*
		 * A new source: the cap and, past it, the sketch go by the coarse
		 * clock, so that a flood of them costs no precise read (the precise
		 * one is left for a tracked source's exact window).
		 */
		now = xrl_coarse(&pc->clk);
		if (!xrl_may_create(cnt, now)) {
			rs = xrl_rule_stats_at(r, now, 1);
			return rs && rs->shape_ok ? XRL_JUDGED_PAST_CAP : 0;
		}
	}
	rs = xrl_rule_slot_now(r, &pc->clk, &until);
	if (!rs || !rs->shape_ok)
		return 0;
	if (!win.st && !xrl_win_new(k, cnt, &win))
		return 0;
	/* A new key, or a new window shape: the one CPU that takes the ring empties it, if need be. */
	if (xrl_ring_claim(&win.st->gen, r->gen))
		xrl_ring_reset(&win.st->ring, XRL_CELLS);
	/*
	 * The window is judged in the rule's slot on this CPU, which xrl_reserve
	 * moves to the newest bucket in the key's ring when another CPU's later
	 * clock opened it (time is at least that): the pass is counted there, and
	 * a take-back finds it there (xrl_commit_undo).
	 */
	slot = &rs->slot;
	l = bpf_map_lookup_elem(&xrl_latches, &pc->latch_ix);
	if (l && l->gen) {
		/*
		 * The key's latch did not answer (xrl_judge_window asked it), or its
		 * lease is spent or of a bucket past: it retires, a lease's passes
		 * left going back to their bucket. A key that held a lease is hot.
		 * Another key's that has expired, or whose lease is spent, retires
		 * too: the slot is free for this key's latch or lease. (One way out
		 * of the slot, so that the verifier walks it once.)
		 */
		own = xrl_key_equal(&l->key, k);
		hot = own && l->kind == XRL_LATCH_LEASE;
		if (own || xrl_jiffies() >= l->until_jiffies ||
		    (l->kind == XRL_LATCH_LEASE && !xrl_latch_count(l->word))) {
			xrl_latch_flush(l, own ? win : (struct xrl_win){ NULL });
			l->gen = 0;
		}
	}
	/* The slot may take this key's lease: it is free. */
	mine = l && pc->lease_ok && !bytes && !dropping && !l->gen;
	a = bpf_map_lookup_elem(&xrl_scratch, &xrl_zero_key);
	if (!a)
		return 0;
	full = xrl_key_threshold(r, k);
	thr = full;
	if (xrl_has_warmup(r)) {
		__u64 period = (__u64)r->warmup_ms * 1000000ULL;

		now = xrl_precise(&pc->clk);
		/* A new state (last 0) or one idle for a whole period starts cold. */
		if (xrl_warm_idle(XRL_READ_ONCE(win.st->ring.last), rs->blen, period, now))
			*xrl_win_warm(&win) = now;
		thr = xrl_warm_threshold(full, period, *xrl_win_warm(&win), now);
	}
	/* A hot key's packet takes passes for its next ones, spent while the bucket is proven to last (xrl_latch_live). */
	pc->lease = mine && hot && thr == full ? XRL_LEASE_MAX : 0;
	if (xrl_ring_long(XRL_CELLS)) {
		/*
		 * A long ring: judged on its base and its bucket's cell, else by
		 * xrl_judge_long, which finds the figures in the scratch (kept
		 * there, not in this frame: the stack has no room).
		 */
		a->thr = thr;
		a->full = full;
		a->until = until;
		a->mine = mine;
		a->lease = pc->lease;
		res = xrl_reserve_fast(&win.st->ring, XRL_CELLS, slot, thr, xrl_cost(pc, bytes), XRL_RESERVE_TRIES,
				       dropping, &room, &pc->lease);
		if (res == XRL_SLOW)
			return XRL_JUDGED_LONG;
		return xrl_judged(r, pc, bytes, &win, slot, l, res, a->thr, a->full, a->mine, room, a->until);
	} else {
		res = xrl_reserve_lease(&win.st->ring, r->buckets, XRL_CELLS, r->interval_ns, slot, thr,
					xrl_cost(pc, bytes), XRL_RESERVE_TRIES, dropping, a->snap, &room, &pc->lease);
	}
	return xrl_judged(r, pc, bytes, &win, slot, l, res, thr, full, mine, room, until);
}

/*
 * Judges one window of rule r for key k on a long ring whose base did not
 * decide (xrl_judge_slow returned XRL_JUDGED_LONG, its figures in
 * xrl_scratch): every cell of the ring read, and the base written for the
 * bucket once a pass commits there. A global function of its own, beside
 * xrl_judge_slow rather than under it (the stack has no room for a third
 * frame), verified once, and only in a program of long rings.
 */
__noinline int xrl_judge_long(struct xrl_rule *r, struct xrl_pctx *pc, int bytes)
{
	struct xrl_rule_stats *rs;
	struct xrl_scratch *a;
	struct xrl_latch *l;
	struct xrl_win win;
	__u64 room = 0;
	int res;

	if (!r || !pc)
		return 0;
	a = bpf_map_lookup_elem(&xrl_scratch, &xrl_zero_key);
	rs = bpf_map_lookup_elem(&xrl_rule_stats, &r->id);
	if (!a || !rs || !xrl_win_find(&pc->key, &win))
		return 0;
	l = bpf_map_lookup_elem(&xrl_latches, &pc->latch_ix);
	pc->lease = a->lease;
	res = xrl_reserve_long(&win.st->ring, r->buckets, XRL_CELLS, r->interval_ns, &rs->slot, a->thr,
			       xrl_cost(pc, bytes), XRL_RESERVE_TRIES, pc->dropping, a->snap, &room, &pc->lease);
	return xrl_judged(r, pc, bytes, &win, &rs->slot, l, res, a->thr, a->full, a->mine, room, a->until);
}

/*
 * The latch of rule r's window (its byte window when bytes) when it is
 * live for the window's key (xrl_latch_live), else NULL. Makes the
 * window's key and latch slot in pc. No helper call and no clock read: the
 * flood path (see XRL_JIFFIES_MARGIN).
 */
static __always_inline struct xrl_latch *xrl_latch_at(struct xrl_rule *r, struct xrl_pctx *pc, int bytes)
{
	struct xrl_rule_stats *rs;
	struct xrl_latch *l;

	xrl_key_for(&pc->key, r, pc, bytes);
	l = xrl_latch_find(pc); /* the key's, or NULL */
	rs = bpf_map_lookup_elem(&xrl_rule_stats, &r->id);
	if (!l || !rs || !xrl_latch_live_own(l, r, rs, xrl_key_threshold(r, &pc->key), &pc->clk))
		return NULL;
	return l;
}

/* An over latch l answers: the block counted there, whatever the other rules decide. */
static __always_inline int xrl_latch_over(struct xrl_latch *l)
{
	l->word++;
	if (l->kind)
		xrl_count_sketch(1);
	return XRL_FIRST_OVER;
}

/*
 * Whether the latch of rule r's window (its byte window when bytes) answers
 * that it is over (XRL_FIRST_OVER), or, when lease, pays the packet's pass
 * from its lease (XRL_FIRST_LEASED). Makes the window's key and latch slot
 * in pc.
 */
static __always_inline int xrl_latch_answers(struct xrl_rule *r, struct xrl_pctx *pc, int bytes, int lease)
{
	struct xrl_latch *l = xrl_latch_at(r, pc, bytes);

	if (!l)
		return 0;
	if (l->kind == XRL_LATCH_LEASE) {
		/* A pass this CPU leased in this bucket, spent with no shared write. */
		return lease && xrl_lease_spend(l) ? XRL_FIRST_LEASED : 0;
	}
	return xrl_latch_over(l);
}

/*
 * Gives back the passes the leases of rule r's first n next windows paid
 * for pc's packet, which another of its windows then refused (bpf/lease.h).
 */
static __always_inline void xrl_lease_windows_back(struct xrl_rule *r, struct xrl_pctx *pc, __u32 n)
{
	struct xrl_rule *w = r;
	__u32 k, ix;

	/* n, behind a barrier: the compiler knows its bound, which the verifier must see too. */
	asm volatile("" : "+r"(n));
	if (n > XRL_MAX_WINDOWS - 1)
		n = XRL_MAX_WINDOWS - 1;
	for (k = 0; k < n; k++) {
		if (!w->next)
			break;
		ix = XRL_WINDOW_NEXT(w);
		w = bpf_map_lookup_elem(&xrl_windows, &ix);
		if (!w)
			break;
		xrl_lease_give_back(w, pc);
	}
}

/*
 * Whether latch l, of window w's key (pc's), is live (xrl_latch_live); by
 * the jiffies alone when jiffies (a lease of a next window: near its
 * bucket's end, the slow path judges it).
 */
static __always_inline int xrl_latch_live_for(struct xrl_latch *l, struct xrl_rule *w, struct xrl_pctx *pc, int jiffies)
{
	struct xrl_rule_stats *rs = bpf_map_lookup_elem(&xrl_rule_stats, &w->id);

	if (!rs)
		return 0;
	if (jiffies)
		return l->threshold == xrl_key_threshold(w, &pc->key) && rs->gen == w->gen && rs->shape_ok &&
		       rs->buckets == w->buckets && rs->interval == w->interval_ns && rs->slot.epoch == l->epoch &&
		       xrl_jiffies() < l->until_jiffies;
	return xrl_latch_live(l, w, rs, &pc->key, xrl_key_threshold(w, &pc->key), &pc->clk);
}

/*
 * xrl_latch_first for a rule of several windows. A source over any one is
 * latched there until that window has room (XRL_FIRST_OVER: its block
 * counted there, and in that window's stats slot, the window that
 * decided). A packet passes on leases (XRL_FIRST_LEASED) only when each
 * window's lease pays its pass; what was spent goes back when one does not
 * (bpf/lease.h). A next window's lease is proven live by the jiffies alone
 * (a source over one window may hold a lease of another that has run out,
 * whose proof would read the clock). pc's key and latch slot are the first
 * window's after it, as xrl_latch_first leaves them. A global function,
 * verified once.
 */
__noinline int xrl_latch_windows(struct xrl_rule *r, struct xrl_pctx *pc)
{
	__u32 lix[XRL_MAX_WINDOWS - 1] = {}, k, n = 0, ix;
	struct xrl_latch *l, *l0 = NULL;
	int all = pc && pc->lease_ok;
	struct xrl_rule *w;

	if (!r || !pc)
		return 0;
	w = r;
	for (k = 0; k < XRL_MAX_WINDOWS - 1; k++) {
		if (!w->next)
			break;
		ix = XRL_WINDOW_NEXT(w);
		w = bpf_map_lookup_elem(&xrl_windows, &ix);
		if (!w) {
			all = 0;
			break;
		}
		xrl_key_for(&pc->key, w, pc, xrl_bytes_only(w));
		l = xrl_latch_find(pc); /* the key's, or NULL */
		if (!l || l->gen != w->gen) {
			all = 0;
			continue;
		}
		if (l->kind != XRL_LATCH_LEASE) {
			if (!xrl_latch_live_for(l, w, pc, 0)) {
				all = 0;
				continue;
			}
			xrl_count_rule(bpf_map_lookup_elem(&xrl_rule_stats, &w->id), 1);
			return xrl_latch_over(l);
		}
		all &= all && xrl_latch_count(XRL_READ_ONCE(l->word)) && xrl_latch_live_for(l, w, pc, 1) ? 1 : 0;
		lix[k] = pc->latch_ix;
		n++;
	}
	if (pc->asked) {
		l0 = xrl_latch_at(r, pc, 0);
		if (l0 && l0->kind != XRL_LATCH_LEASE)
			return xrl_latch_over(l0);
	}
	if (!all || !l0 || n != k)
		return 0;
	/* Every window holds a live lease of passes: each pays one, the first's last. */
	for (k = 0; k < n && k < XRL_MAX_WINDOWS - 1; k++) {
		l = bpf_map_lookup_elem(&xrl_latches, &lix[k]);
		if (!l || !xrl_lease_spend(l))
			break;
	}
	if (k == n && xrl_lease_spend(l0))
		return XRL_FIRST_LEASED;
	/* One had run out, or another CPU took a lease back meanwhile: what was spent goes back. */
	if (k)
		xrl_lease_windows_back(r, pc, k);
	xrl_key_for(&pc->key, r, pc, 0);
	xrl_latch_find(pc);
	return 0;
}

/*
 * The flood path and the hot path, asked by the program before each rule's
 * judgement: XRL_FIRST_OVER when the latch of rule r's packet window answers
 * that it is over (or of any window of a rule of several), XRL_FIRST_LEASED
 * when a lease pays the packet's pass (pc->lease_ok: every window's lease,
 * for a rule of several), else 0.
 */
static __always_inline int xrl_latch_first(struct xrl_rule *r, struct xrl_pctx *pc)
{
	pc->asked = !xrl_bytes_only(r);
	if (xrl_has_windows(r))
		return xrl_latch_windows(r, pc);
	return pc->asked ? xrl_latch_answers(r, pc, 0, pc->lease_ok) : 0;
}

/*
 * Judges one window of rule r (its byte window when bytes): from its key's
 * latch when that answers (asked: xrl_latch_first has asked it), else on
 * the slow path, and past the cap in the sketch. Returns XRL_JUDGED_* bits.
 */
static __always_inline int xrl_judge_window(struct xrl_rule *r, struct xrl_pctx *pc, int bytes, int asked)
{
	int res;

	if (!asked && xrl_latch_answers(r, pc, bytes, 0))
		return XRL_JUDGED_OVER;
	res = xrl_judge_slow(r, pc, bytes);
	if (xrl_ring_long(XRL_CELLS) && (res & XRL_JUDGED_LONG))
		res = xrl_judge_long(r, pc, bytes);
	if (res & XRL_JUDGED_REVOKE) {
		xrl_lease_revoke(r, pc);
		pc->revoked = 1;
		res = xrl_judge_slow(r, pc, bytes);
		if (xrl_ring_long(XRL_CELLS) && (res & XRL_JUDGED_LONG))
			res = xrl_judge_long(r, pc, bytes);
		pc->revoked = 0;
	}
	if (!(res & XRL_JUDGED_PAST_CAP))
		return res;
	/* The sketch counts packets: past the cap a byte window is not judged, its packet rate holds. */
	if (bytes)
		return 0;
	res = xrl_judge_sketch(r, pc);
	xrl_count_sketch(res & XRL_JUDGED_OVER);
	return res;
}

/*
 * Judges the next windows of rule r, in order, once its first passed the
 * packet: the first over decides (its block counted in its stats slot), and
 * the windows after it are not asked. Returns XRL_J_OVER and the
 * XRL_J_WINDOW_COUNTED bits of the windows that counted a pass, taken back
 * if the packet is dropped (xrl_commit_windows). A global function, verified
 * once (inline in xrl_judge_rule, each window's ways out multiplied the
 * states the verifier walked there: 283k instructions with every kind
 * against 194k). Its frame fits between xrl_judge_rule's and
 * xrl_judge_slow's since the packet's context left the program's stack
 * (xrl_pctx).
 */
__noinline int xrl_judge_windows(struct xrl_rule *r, struct xrl_pctx *pc)
{
	struct xrl_rule *w;
	int res = 0, j;
	__u32 k, ix;

	if (!r || !pc)
		return 0;
	w = r;
	for (k = 0; k < XRL_MAX_WINDOWS - 1; k++) {
		if (!w->next)
			break;
		ix = XRL_WINDOW_NEXT(w);
		w = bpf_map_lookup_elem(&xrl_windows, &ix);
		if (!w)
			break;
		j = xrl_judge_window(w, pc, xrl_bytes_only(w), 0);
		if (j & XRL_JUDGED_OVER) {
			xrl_count_rule(bpf_map_lookup_elem(&xrl_rule_stats, &w->id), 1);
			return res | XRL_J_OVER;
		}
		if (j & XRL_JUDGED_COUNTED)
			res |= XRL_J_WINDOW_COUNTED(k);
	}
	return res;
}

/*
 * Judges rule r for pc's packet: its packet window, then, when that passed
 * it, its byte window, then its next windows; the packet's last rule (pc->last) commits too. For a
 * packet several rules judge, the latch is asked here first, as the program
 * asks a lone rule's (xrl_latch_first): over, the block is counted now,
 * whatever the others decide; paid by a lease, the pass is spent with no
 * shared write, counted once the packet passes, given back if another rule
 * drops it (xrl_commit). A global function, verified once for every kind of
 * rule (in the program's loop, each way out of the latch multiplied the
 * states the verifier walked: 315k instructions against 189k). Returns
 * XRL_J_* bits.
 */
__noinline int xrl_judge_rule(struct xrl_rule *r, struct xrl_pctx *pc)
{
	int res = 0, w, first;

	if (!r || !pc)
		return 0;
	if (!pc->asked) {
		first = xrl_latch_first(r, pc);
		if (first == XRL_FIRST_OVER) {
			xrl_commit_over(r, pc);
			return XRL_J_OVER | XRL_J_COMMITTED;
		}
		if (first == XRL_FIRST_LEASED) {
			if (!pc->last)
				return XRL_J_LEASED;
			/* The last rule, and no other dropped the packet (lease_ok): it passes. */
			xrl_count_rule(bpf_map_lookup_elem(&xrl_rule_stats, &r->id), 0);
			return XRL_J_COMMITTED;
		}
	}
	if (!xrl_bytes_only(r)) {
		w = xrl_judge_window(r, pc, 0, pc->asked);
		if (w & XRL_JUDGED_OVER)
			res = XRL_J_OVER;
		else if (w & XRL_JUDGED_COUNTED)
			res = XRL_J_COUNTED;
	}
	if (xrl_has_bytes(r) && !(res & XRL_J_OVER)) {
		w = xrl_judge_window(r, pc, 1, 0);
		if (w & XRL_JUDGED_OVER)
			res |= XRL_J_OVER;
		else if (w & XRL_JUDGED_COUNTED)
			res |= XRL_J_BYTES_COUNTED;
	}
	if (xrl_has_windows(r) && !(res & XRL_J_OVER))
		res |= xrl_judge_windows(r, pc);
	/* The packet's last rule: its fate is known now, so the rule commits here, and saves a call. */
	if (pc->last) {
		xrl_commit(r, pc, res, pc->dropping || ((res & XRL_J_OVER) && !(r->flags & XRL_F_MONITOR)));
		res |= XRL_J_COMMITTED;
	}
	return res;
}

#endif /* XRL_BPF_JUDGE_H */
