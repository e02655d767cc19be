// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include "read/stats.h"
#include "read/states.h"
#include "layouts/retired.h"
#include "xrl_key.h"
#include "base/objinfo.h"

int xrl_clock_now(__u32 clock, __u64 *now)
{
	struct timespec ts;

	/* bpf_ktime_get_ns is CLOCK_MONOTONIC; bpf_ktime_get_coarse_ns is its coarse twin. */
	if (clock_gettime(clock == XRL_CLOCK_COARSE ? CLOCK_MONOTONIC_COARSE : CLOCK_MONOTONIC, &ts))
		return -errno;
	*now = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
	return 0;
}

struct xrl_sum xrl_aggregate(const void *percpu, int ncpus, size_t stride, size_t ring_off, size_t gen_off, __u32 gen,
			     __u32 buckets, __u32 cells, __u64 interval, __u64 now, bool last)
{
	struct xrl_sum acc = { 0, 0, 0, 0 };
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		const char *v = (const char *)percpu + (size_t)cpu * stride;
		struct xrl_sum one;
		__u32 g;

		memcpy(&g, v + gen_off, sizeof(g));
		if (g != gen)
			continue;
		one = last ? xrl_window_last_at((const struct xrl_ring *)(v + ring_off), buckets, cells, interval,
						now) :
			     xrl_window_at((const struct xrl_ring *)(v + ring_off), buckets, cells, interval, now);
		acc.pass += one.pass;
		acc.block += one.block;
		acc.buckets += one.buckets;
	}
	return acc;
}

double xrl_qps(__u64 sum, __u64 interval)
{
	return interval ? (double)sum * 1e9 / (double)interval : 0.0;
}

int xrl_rule_report(const struct xrl_maps *m, const struct xrl_spec *s, __u64 now, struct xrl_rule_report *out)
{
	size_t stride = xrl_percpu_stride(xrl_rule_stats_size(m->cells));
	char *buf = xrl_percpu_alloc(m->ncpus, xrl_rule_stats_size(m->cells));
	__u32 id = s->r.id;
	int cpu, k;

	if (!buf)
		return -ENOMEM;
	memset(out, 0, sizeof(*out));
	out->spec = *s;
	if (bpf_map_lookup_elem(m->rule_stats, &id, buf)) {
		int ret = -errno;

		free(buf);
		return ret;
	}
	for (cpu = 0; cpu < m->ncpus; cpu++) {
		const struct xrl_rule_stats *rs = (const void *)(buf + (size_t)cpu * stride);

		out->pass += rs->pass;
		out->block += rs->block;
		out->pass_bytes += rs->pass_bytes;
		out->block_bytes += rs->block_bytes;
	}
	out->window = xrl_aggregate(buf, m->ncpus, stride, offsetof(struct xrl_rule_stats, ring),
				    offsetof(struct xrl_rule_stats, gen), s->r.gen, s->r.buckets, m->cells,
				    s->r.interval_ns, now, false);
	out->pass_qps = xrl_qps(out->window.pass, s->r.interval_ns);
	out->block_qps = xrl_qps(out->window.block, s->r.interval_ns);
	out->last = xrl_aggregate(buf, m->ncpus, stride, offsetof(struct xrl_rule_stats, ring),
				  offsetof(struct xrl_rule_stats, gen), s->r.gen, s->r.buckets, m->cells,
				  s->r.interval_ns, now, true);
	out->last_ns = s->r.buckets && now >= s->r.interval_ns / s->r.buckets ? s->r.interval_ns : 0;
	out->pass_rate = xrl_qps(out->last.pass, out->last_ns);
	out->block_rate = xrl_qps(out->last.block, out->last_ns);
	/* The next windows' stats slots count the blocks each decided; the first's are the rest. */
	out->win_block[0] = out->block;
	for (k = 1; k <= s->nw; k++) {
		id = s->w[k - 1].id;
		if (bpf_map_lookup_elem(m->rule_stats, &id, buf))
			continue;
		for (cpu = 0; cpu < m->ncpus; cpu++)
			out->win_block[k] +=
				((const struct xrl_rule_stats *)(const void *)(buf + (size_t)cpu * stride))->block;
		out->win_block[0] -= out->win_block[k] < out->win_block[0] ? out->win_block[k] : out->win_block[0];
	}
	free(buf);
	return 0;
}

int xrl_counters_read(const struct xrl_maps *m, struct xrl_counters *out)
{
	size_t stride = xrl_percpu_stride(sizeof(*out));
	char *buf = xrl_percpu_alloc(m->ncpus, sizeof(*out));
	__u32 zero = 0;
	int cpu, ret = 0;
	size_t i;

	if (!buf)
		return -ENOMEM;
	memset(out, 0, sizeof(*out));
	if (bpf_map_lookup_elem(m->counters, &zero, buf)) {
		ret = -errno;
		goto out;
	}
	for (cpu = 0; cpu < m->ncpus; cpu++) {
		const __u64 *c = (const __u64 *)(buf + (size_t)cpu * stride);

		for (i = 0; i < sizeof(*out) / sizeof(__u64); i++)
			((__u64 *)out)[i] += c[i];
	}
out:
	free(buf);
	return ret;
}

int xrl_new_keys_capped(const struct xrl_maps *m, __u32 new_keys, int *cpus)
{
	size_t stride = xrl_percpu_stride(sizeof(struct xrl_counters));
	char *buf;
	__u32 cap = xrl_new_keys_cpu(new_keys, m->ncpus), zero = 0;
	__u64 second = 0;
	int cpu, ret;

	*cpus = 0;
	if (!cap)
		return 0;
	/* The program counts the cap's seconds on the coarse clock (xrl_may_create). */
	ret = xrl_clock_now(XRL_CLOCK_COARSE, &second);
	if (ret)
		return ret;
	second /= 1000000000ULL;
	buf = xrl_percpu_alloc(m->ncpus, sizeof(struct xrl_counters));
	if (!buf)
		return -ENOMEM;
	if (bpf_map_lookup_elem(m->counters, &zero, buf)) {
		ret = -errno;
		free(buf);
		return ret;
	}
	for (cpu = 0; cpu < m->ncpus; cpu++) {
		const struct xrl_counters *c = (const void *)(buf + (size_t)cpu * stride);

		*cpus += c->new_keys_second == second && c->new_keys_count >= cap;
	}
	free(buf);
	return 0;
}

/* The first slot of the set of key k's latches (XRL_LATCH_WAYS slots: bpf/latch.h) in maps m. */
static __u32 latch_set_of(const struct xrl_maps *m, const struct xrl_key *k)
{
	__u32 bits = XRL_LATCH_BITS, n = m->latch_count, h;
	struct bpf_map_info info;

	/* Maps a caller put together itself say not: the kernel does. */
	if (!n && !xrl_obj_info(m->latches, &info, sizeof(info)))
		n = info.max_entries;
	while (bits < 31 && (1U << bits) < n)
		bits++;
	h = xrl_latch_home(xrl_key_hash64(k), bits);
	return h & ~(XRL_LATCH_WAYS - 1U);
}

/*
 * Blocks the CPUs' latches of key hold for buckets still in its window at now,
 * or with last in the last whole interval (the n buckets before now's); and
 * the passes their leases took there and have not spent, which the ring
 * counts.
 */
static int latched_blocks(const struct xrl_maps *m, const struct xrl_key *key, const struct xrl_rule *r, __u64 now,
			  bool last, __u64 *block, __u64 *leased)
{
	size_t stride = xrl_percpu_stride(sizeof(struct xrl_latch));
	char *buf = xrl_percpu_alloc(m->ncpus, sizeof(struct xrl_latch));
	__u32 set = latch_set_of(m, key), h;
	struct xrl_slot s;
	int cpu, ret = 0;

	if (!buf)
		return -ENOMEM;
	*block = 0;
	*leased = 0;
	__u64 blen = r->interval_ns / r->buckets;

	xrl_slot_at(&s, last ? now - blen : now, blen, m->cells);
	/* Each CPU's latch of the key is in one way of its set, not the same on every CPU. */
	for (h = set; h < set + XRL_LATCH_WAYS; h++) {
		if (bpf_map_lookup_elem(m->latches, &h, buf)) {
			ret = -errno;
			goto out;
		}
		for (cpu = 0; cpu < m->ncpus; cpu++) {
			const struct xrl_latch *l = (const void *)(buf + (size_t)cpu * stride);

			if (l->gen != r->gen || !xrl_key_equal(&l->key, key) ||
			    !xrl_live(s.epoch, l->epoch, r->buckets))
				continue;
			if (l->kind == XRL_LATCH_LEASE)
				*leased += xrl_latch_count(l->word);
			else
				*block += xrl_latch_count(l->word);
		}
	}
out:
	free(buf);
	return ret;
}

/* The window of key key of rule r at now (last: its last whole interval), its state st (NULL: read here). */
static int key_window(const struct xrl_maps *m, const struct xrl_key *key, const struct xrl_state *st,
		      const struct xrl_rule *r, __u64 now, bool last, struct xrl_sum *sum)
{
	struct xrl_state state; /* room for a value of any rings (XRL_RING_WORDS) */
	__u64 latched, leased;
	int ret;

	memset(sum, 0, sizeof(*sum));
	if (xrl_shape_check(r->buckets, r->interval_ns) != XRL_SHAPE_OK || !xrl_cells_fit(r->buckets, m->cells) ||
	    (last && now < r->interval_ns / r->buckets))
		return 0;
	if (!st) {
		struct xrl_states t = xrl_states_of(m);

		ret = xrl_state_get(&t, key, &state);
		if (ret)
			return ret;
		st = &state;
	}
	if (st->gen == r->gen)
		*sum = last ? xrl_window_last_at(&st->ring, r->buckets, m->cells, r->interval_ns, now) :
			      xrl_window_at(&st->ring, r->buckets, m->cells, r->interval_ns, now);
	ret = latched_blocks(m, key, r, now, last, &latched, &leased);
	if (ret)
		return ret;
	sum->block += latched;
	sum->pass -= leased < sum->pass ? leased : sum->pass;
	return 0;
}

int xrl_sketch_estimate(const struct xrl_maps *m, __u32 width, const struct xrl_key *key, const struct xrl_rule *r,
			__u64 now, __u64 *est)
{
	struct xrl_sketch_cell c[XRL_SKETCH_DEPTH];
	struct xrl_sketch_cell *const cell[XRL_SKETCH_DEPTH] = { &c[0], &c[1] };
	__u64 h = xrl_key_hash64(key);
	__u32 i, ix;

	if (!width || (width & (width - 1)))
		return -EINVAL;
	for (i = 0; i < XRL_SKETCH_DEPTH; i++) {
		ix = i * width + xrl_sketch_col(h, i, width);
		if (bpf_map_lookup_elem(m->sketch, &ix, &c[i]))
			return -errno;
	}
	/* The program's own judgement, on copies, counting nothing. */
	xrl_sketch_judge(cell, r->interval_ns, r->threshold, now, 1, est);
	return 0;
}

int xrl_key_window(const struct xrl_maps *m, const struct xrl_key *key, const struct xrl_rule *r, __u64 now,
		   struct xrl_sum *sum)
{
	return key_window(m, key, NULL, r, now, false, sum);
}

int xrl_warm_point(const struct xrl_maps *m, const struct xrl_key *key, const struct xrl_rule *r, __u64 full, __u64 now,
		   __u64 *eff, __u64 *elapsed)
{
	__u64 period = (__u64)r->warmup_ms * 1000000ULL, start = now;
	struct xrl_states t = xrl_states_of(m);
	struct xrl_state st; /* room for a value of any rings (XRL_RING_WORDS) */
	int ret;

	*eff = full;
	*elapsed = 0;
	if (!r->warmup_ms || xrl_shape_check(r->buckets, r->interval_ns) != XRL_SHAPE_OK)
		return 0;
	ret = xrl_state_get(&t, key, &st);
	if (ret && ret != -ENOENT)
		return ret;
	if (!ret && st.gen == r->gen && !xrl_warm_idle(st.ring.last, r->interval_ns / r->buckets, period, now))
		start = st.warm;
	*eff = xrl_warm_threshold(full, period, start, now);
	*elapsed = now > start ? now - start : 0;
	return 0;
}

static int rule_of_key(const struct xrl_ruleset *set, const struct xrl_key *k)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (set->v[i].r.id == k->rule_id && !(set->v[i].r.flags & XRL_F_ALLOW))
			return (int)i;
	return -1;
}

static int by_qps(const void *a, const void *b)
{
	const struct xrl_key_report *x = a, *y = b;
	double qx = x->pass_qps + x->block_qps, qy = y->pass_qps + y->block_qps;

	return qx < qy ? 1 : qx > qy ? -1 : 0;
}

/* What xrl_top_keys's walk gathers. */
struct top_walk {
	const struct xrl_maps *m;
	const struct xrl_ruleset *set;
	__u64 now;
	struct xrl_key_report *all;
	size_t cnt, cap, tracked;
};

static int top_one(const struct xrl_key *key, const struct xrl_state *st, void *ctx)
{
	struct top_walk *t = ctx;
	struct xrl_key_report rep = { .key = *key }, *tmp;
	const struct xrl_rule *r;

	t->tracked++;
	rep.rule = rule_of_key(t->set, key);
	if (rep.rule < 0)
		return 0;
	r = &t->set->v[rep.rule].r;
	if (key_window(t->m, key, st, r, t->now, false, &rep.window) ||
	    key_window(t->m, key, st, r, t->now, true, &rep.last))
		return 0;
	if (!rep.window.pass && !rep.window.block)
		return 0;
	rep.pass_qps = xrl_qps(rep.window.pass, r->interval_ns);
	rep.block_qps = xrl_qps(rep.window.block, r->interval_ns);
	rep.last_ns = r->interval_ns;
	rep.pass_rate = xrl_qps(rep.last.pass, rep.last_ns);
	rep.block_rate = xrl_qps(rep.last.block, rep.last_ns);
	if (t->cnt == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		tmp = realloc(t->all, t->cap * sizeof(*t->all));
		if (!tmp)
			return -ENOMEM;
		t->all = tmp;
	}
	t->all[t->cnt++] = rep;
	return 0;
}

int xrl_top_keys(const struct xrl_maps *m, const struct xrl_ruleset *set, __u64 now, size_t k,
		 struct xrl_key_report *out, size_t *n, size_t *tracked)
{
	struct top_walk t = { .m = m, .set = set, .now = now };
	struct xrl_states states = xrl_states_of(m);
	int ret;

	ret = xrl_states_walk(&states, top_one, &t);
	*tracked = t.tracked;
	*n = 0;
	if (!ret) {
		if (t.cnt)
			qsort(t.all, t.cnt, sizeof(*t.all), by_qps);
		*n = t.cnt < k ? t.cnt : k;
		if (*n)
			memcpy(out, t.all, *n * sizeof(*t.all));
	}
	free(t.all);
	return ret;
}

const char *xrl_malformed_name(int reason)
{
	static const char *const names[XRL_MAL_MAX] = {
		[XRL_MAL_ETH] = "ethernet",	   [XRL_MAL_VLAN] = "vlan",
		[XRL_MAL_IPV4] = "ipv4",	   [XRL_MAL_IPV4_IHL] = "ipv4_ihl",
		[XRL_MAL_IPV4_LEN] = "ipv4_len",   [XRL_MAL_IPV6] = "ipv6",
		[XRL_MAL_IPV6_EXT] = "ipv6_ext",   [XRL_MAL_L4] = "l4",
		[XRL_MAL_FRAG_TINY] = "frag_tiny", [XRL_MAL_IPV6_CHAIN] = "ipv6_chain",
	};

	return reason >= 0 && reason < XRL_MAL_MAX ? names[reason] : "?";
}

const char *xrl_mal_policy_name(__u32 policy)
{
	static const char *const names[XRL_MALPOL_MAX] = {
		[XRL_MALPOL_PASS] = "pass",
		[XRL_MALPOL_DROP] = "drop",
		[XRL_MALPOL_EVASIVE] = "drop-evasive",
	};

	return policy < XRL_MALPOL_MAX ? names[policy] : "?";
}
