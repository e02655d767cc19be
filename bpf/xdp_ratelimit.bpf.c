// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdp-ratelimit: drops packets over a Sentinel sliding-window threshold,
 * per destination port and per source prefix.
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
	.malformed_drop = 0,
	.ncpus = 1,
};

/* The clock under XRL_CLOCK_TEST; the verifier drops every read of it otherwise. */
volatile __u64 xrl_test_now;

/* Template for a new window state: too large for the 512-byte stack. */
static const struct xrl_state xrl_zero_state;

struct xrl_eval {
	struct xrl_rule *rule;
	struct xrl_rule_stats *rs; /* NULL: no stats slot, nothing counted */
	struct xrl_state *st;	/* NULL: no state could be made, the rule passes */
	struct xrl_bucket *cur; /* NULL: time went backwards, count nothing */
	int over;
};

static __always_inline __u64 xrl_now(void)
{
	if (xrl_cfg.clock == XRL_CLOCK_TEST)
		return xrl_test_now;
	if (xrl_cfg.clock == XRL_CLOCK_COARSE)
		return bpf_ktime_get_coarse_ns();
	return bpf_ktime_get_ns();
}

static __always_inline void xrl_key_of(struct xrl_key *k, const struct xrl_rule *r,
				       const struct xrl_pkt *p, __u32 port)
{
	__builtin_memset(k, 0, sizeof(*k));
	xrl_key_make(k, r, p->family, p->src, (__u16)port, p->proto);
}

struct xrl_remote_ctx {
	const struct xrl_key *key;
	__u64 now;
	__u64 borrow_until;
	__u64 interval;
	__u64 blen;
	__u32 buckets;
	__u32 gen;
	__u32 me;
	__u32 pad;
	struct xrl_sum sum;
};

static long xrl_remote_one(__u32 cpu, void *data)
{
	struct xrl_remote_ctx *c = data;
	struct xrl_state *rs;

	if (cpu == c->me)
		return 0;
	rs = bpf_map_lookup_percpu_elem(&xrl_state, c->key, cpu);
	if (!rs)
		return 0;
	/* Tell that CPU its share is not its own to spend alone (see xrl_judge). */
	if (rs->borrowed_until < c->borrow_until)
		rs->borrowed_until = c->borrow_until;
	if (rs->gen != c->gen)
		return 0;
	xrl_ring_add(&rs->ring, c->buckets, c->interval, c->now, c->blen, &c->sum);
	return 0;
}

/*
 * Pass sums of the same key on the other CPUs, each bucket judged by its own
 * start. bpf_loop keeps the verifier from walking every CPU's ring inline.
 */
static __always_inline __u64 xrl_remote_pass(const struct xrl_key *k, const struct xrl_rule *r,
					     const struct xrl_rule_stats *rs, __u64 now)
{
	struct xrl_remote_ctx c = {
		.key = k,
		.now = now,
		.borrow_until = rs->slot.start + r->interval_ns,
		.interval = r->interval_ns,
		.blen = rs->blen,
		.buckets = r->buckets,
		.gen = r->gen,
		.me = bpf_get_smp_processor_id(),
	};

	bpf_loop(xrl_cfg.ncpus, xrl_remote_one, &c, 0);
	return c.sum.pass;
}

/*
 * The rule's per-CPU stats slot, its derived fields brought up to date: the
 * bucket length and validity of its shape when the gen or the shape changes,
 * the slot of now when now leaves the last one. So the packet path divides
 * once a bucket.
 */
static __always_inline struct xrl_rule_stats *xrl_rule_stats_at(const struct xrl_rule *r, __u64 now)
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
		xrl_ring_reset(&rs->ring);
		rs->gen = r->gen;
	}
	if (fresh || rs->buckets != r->buckets || rs->interval != r->interval_ns) {
		rs->buckets = r->buckets;
		rs->interval = r->interval_ns;
		rs->shape_ok = xrl_shape_check(r->buckets, r->interval_ns) == XRL_SHAPE_OK;
		rs->blen = rs->shape_ok ? r->interval_ns / r->buckets : 0;
		rs->slot.start = 0;
		rs->slot.end = 0;
	}
	if (rs->shape_ok && !xrl_slot_holds(&rs->slot, now))
		xrl_slot_at(&rs->slot, now, rs->blen, rs->buckets);
	return rs;
}

/*
 * The cap on new per-source states: each CPU creates at most
 * new_keys_cpu a second. Past it, a spoofed flood of new sources can neither
 * churn the LRU (evicting tracked sources and resetting their windows) nor
 * pass a fresh window's worth per fake source: it shares one overflow window
 * per rule, limited like a single source.
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

/*
 * Decides one rule for one packet without counting it: the count depends on
 * the verdict of every rule the packet matched (xrl_commit).
 *
 * The limit holds across CPUs with per-CPU writes only. Each CPU may pass
 * threshold / ncpus packets per window on its own ring alone (its share);
 * past that share it adds the other CPUs' rings, and marks each of them
 * "borrowed" until its own passes have left the window, so that they too
 * add up every ring instead of spending a share already spent. Once the sum
 * is over the threshold it stays over until the current bucket ends (the set
 * of buckets summed does not change before then), so the CPU latches that
 * and stops reading.
 * Race: two CPUs on the slow path may read each other's rings before either
 * writes, or a CPU may pass on its share just before another's borrow mark
 * lands; each then passes one packet the other did not see. The excess is
 * bounded by the packets the other CPUs pass inside one read-to-write span
 * (tens of nanoseconds): in practice at most one per other CPU per crossing.
 */
static __always_inline void xrl_judge(struct xrl_eval *ev, struct xrl_rule *r,
				      struct xrl_key *k, __u64 now,
				      struct xrl_counters *cnt)
{
	struct xrl_rule_stats *rs;
	struct xrl_state *st;
	struct xrl_sum s = {};
	__u64 local;

	ev->rule = r;
	ev->st = NULL;
	ev->cur = NULL;
	ev->over = 0;
	ev->rs = rs = xrl_rule_stats_at(r, now);
	if (!rs || !rs->shape_ok)
		return;

	st = bpf_map_lookup_elem(&xrl_state, k);
	if (!st) {
		if (k->family && !xrl_may_create(cnt, now)) {
			/* Past the cap: the new source shares its rule's overflow window. */
			k->family = XRL_FAMILY_OVERFLOW;
			__builtin_memset(k->addr, 0, sizeof(k->addr));
			cnt->overflow++;
			st = bpf_map_lookup_elem(&xrl_state, k);
		}
		if (!st) {
			if (bpf_map_update_elem(&xrl_state, k, &xrl_zero_state, BPF_NOEXIST) == 0)
				cnt->keys_new++;
			st = bpf_map_lookup_elem(&xrl_state, k);
		}
		if (!st) {
			cnt->keys_failed++;
			return;
		}
	}
	if (st->gen != r->gen) {
		xrl_ring_reset(&st->ring);
		st->gen = r->gen;
		st->over_until = 0;
	}
	ev->st = st;
	ev->cur = xrl_current_at(&st->ring, &rs->slot);

	if (st->over_until > now && st->over_thresh == r->threshold) {
		ev->over = 1;
		return;
	}
	xrl_ring_add(&st->ring, r->buckets, r->interval_ns, now, 0, &s);
	local = s.pass;
	if (rs->share_of != r->threshold) {
		rs->share = r->threshold / xrl_cfg.ncpus;
		rs->share_of = r->threshold;
	}
	if (!xrl_over(local, rs->share) && st->borrowed_until <= now)
		return;
	if (xrl_cfg.ncpus > 1)
		local += xrl_remote_pass(k, r, rs, now);
	if (xrl_over(local, r->threshold)) {
		ev->over = 1;
		st->over_until = rs->slot.end;
		st->over_thresh = r->threshold;
	}
}

/* A rule's totals, and the rule-level window behind its QPS. */
static __always_inline void xrl_count_rule(struct xrl_rule_stats *rs, int blocked)
{
	struct xrl_bucket *b;

	if (!rs)
		return;
	if (blocked)
		rs->block++;
	else
		rs->pass++;
	if (!rs->shape_ok)
		return;
	b = xrl_current_at(&rs->ring, &rs->slot);
	if (!b)
		return;
	if (blocked)
		b->block++;
	else
		b->pass++;
}

/* Counts one evaluated rule once the packet's fate is known. */
static __always_inline void xrl_commit(struct xrl_eval *ev, int dropped)
{
	if (!ev->rule)
		return;
	if (ev->over) {
		if (ev->cur)
			ev->cur->block++;
		xrl_count_rule(ev->rs, 1);
	} else if (!dropped) {
		if (ev->cur)
			ev->cur->pass++;
		xrl_count_rule(ev->rs, 0);
	}
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

SEC("xdp")
int xdp_ratelimit(struct xdp_md *ctx)
{
	struct xrl_eval port_ev = {}, prefix_ev = {};
	struct xrl_prefix_key pk = {};
	struct xrl_rule *prule = NULL, *orule = NULL;
	struct xrl_counters *cnt;
	struct xrl_pkt p = {};
	struct xrl_key k;
	struct xrl_ctl *ctl;
	__u32 zero = 0;
	int res, over, monitor;
	__u8 set, kinds;
	__u64 now;

	cnt = bpf_map_lookup_elem(&xrl_counters, &zero);
	if (!cnt)
		return XDP_PASS;
	cnt->seen++;

	res = xrl_parse(ctx, &p);
	if (res == XRL_PARSE_NON_IP) {
		cnt->non_ip++;
		return xrl_pass(cnt);
	}
	if (res != XRL_PARSE_IP) {
		__u32 reason = -res - 1;

		if (reason < XRL_MAL_MAX)
			cnt->malformed[reason]++;
		return xrl_cfg.malformed_drop ? xrl_drop(cnt) : xrl_pass(cnt);
	}

	ctl = bpf_map_lookup_elem(&xrl_ctl, &zero);
	if (!ctl)
		return xrl_pass(cnt);

	set = ctl->active_set & 1;
	kinds = ctl->kinds[set];
	if (kinds & XRL_HAS_PREFIXES) {
		pk.set = set;
		pk.family = p.family;
		__builtin_memcpy(pk.addr, p.src, 16);
		pk.prefixlen = XRL_PREFIX_HDR_BITS + (p.family == XRL_FAMILY_V4 ? 32 : 128);
		prule = bpf_map_lookup_elem(&xrl_prefixes, &pk);
	}
	if (prule && (prule->flags & XRL_F_ALLOW)) {
		cnt->allowed++;
		xrl_count_rule(xrl_rule_stats_at(prule, xrl_now()), 0);
		return xrl_pass(cnt);
	}
	if (p.has_port && (kinds & XRL_HAS_PORTS)) {
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
	if (!prule && !orule) {
		cnt->no_rule++;
		return xrl_pass(cnt);
	}

	now = xrl_now();
	if (orule) {
		xrl_key_of(&k, orule, &p, p.dport);
		xrl_judge(&port_ev, orule, &k, now, cnt);
	}
	if (prule) {
		xrl_key_of(&k, prule, &p, 0);
		xrl_judge(&prefix_ev, prule, &k, now, cnt);
	}

	over = 0;
	monitor = 0;
	if (port_ev.over) {
		if (orule->flags & XRL_F_MONITOR)
			monitor = 1;
		else
			over = 1;
	}
	if (prefix_ev.over) {
		if (prule->flags & XRL_F_MONITOR)
			monitor = 1;
		else
			over = 1;
	}
	xrl_commit(&port_ev, over);
	xrl_commit(&prefix_ev, over);
	if (over)
		return xrl_drop(cnt);
	if (monitor)
		cnt->monitored++;
	return xrl_pass(cnt);
}
