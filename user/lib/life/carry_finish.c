// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * After the swap: what the old program counted since the fill, added into
 * the new maps by the carrier (carry_prog.h) as the new program runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "life/carry_internal.h"
#include "life/carry_prog.h"
#include "base/critical.h"
#include "base/err.h"
#include "base/maps.h"

__u32 xrl_ring_delta(const struct xrl_ring *now, const struct xrl_ring *snap, __u32 ocells, struct xrl_carry_cell *out)
{
	__u32 i, n = 0;

	for (i = 0; i < ocells && i < XRL_MAX_CELLS; i++) {
		__u64 w = now->c[i].word, sw = snap ? snap->c[i].word : 0, db = xrl_ring_blocks_c(now, ocells)[i];
		__u32 dp = xrl_word_pass(w);

		if (!xrl_valid(now->last, now->last, w))
			continue;
		if (sw && xrl_word_epoch(sw) == xrl_word_epoch(w)) {
			__u64 sb = xrl_ring_blocks_c(snap, ocells)[i];

			/* Less than the fill read: passes the old program took back (xrl_take_back), not ours. */
			dp = dp > xrl_word_pass(sw) ? dp - xrl_word_pass(sw) : 0;
			db = db > sb ? db - sb : 0;
		}
		if (!dp && !db)
			continue;
		out[n].q = xrl_full_epoch(now->last, xrl_word_epoch(w));
		out[n].pass = dp;
		out[n].block = db;
		n++;
	}
	return n;
}

/* Adds the entries of more[n] into cm's snapshot, kept in key order. */
static void snap_add(struct xrl_carry_map *cm, struct xrl_carry_entry *more, size_t n)
{
	struct xrl_carry_entry *v = n ? realloc(cm->snap, (cm->nsnap + n) * sizeof(*v)) : NULL;

	if (!v)
		return;
	memcpy(v + cm->nsnap, more, n * sizeof(*v));
	cm->snap = v;
	cm->nsnap += n;
	qsort(v, cm->nsnap, sizeof(*v), xrl_carry_key_cmp);
}

/* What finish_entries's walk of the old states carries, and with refresh gathers. */
struct finish_walk {
	struct xrl_carry *c;
	struct xrl_carry_map *cm;
	struct xrl_states to;
	bool refresh;
	struct xrl_carry_entry *more;
	size_t nmore, cap;
};

static int finish_one(const struct xrl_key *k, const struct xrl_state *read, void *ctx)
{
	struct finish_walk *f = ctx;
	struct xrl_carry_map *cm = f->cm;
	struct xrl_carry_entry *s = cm->nsnap ? bsearch(k, cm->snap, cm->nsnap, sizeof(*s), xrl_carry_key_cmp) : NULL;
	struct xrl_state now = *read, dst;
	struct xrl_carry_args a;

	xrl_carry_state_convert(cm, &now);
	if (s && !memcmp(&s->s, &now, cm->info.value_size))
		return 0; /* nothing counted since the fill */
	xrl_carry_state_recell(cm, &now, &dst);
	if (xrl_state_put_new(&f->to, k, &dst)) {
		memset(&a, 0, sizeof(a));
		a.key = *k;
		a.n = xrl_ring_delta(&now.ring, s ? &s->s.ring : NULL, cm->ocells, a.c);
		if (!f->refresh)
			xrl_fault_pause("carrying");
		if (a.n)
			xrl_carry_prog_state(f->c->prog, &a);
	}
	if (!f->refresh)
		return 0;
	if (s) {
		s->s = now;
		return 0;
	}
	return xrl_carry_entry_push(&f->more, &f->nmore, &f->cap, k, &now);
}

/*
 * Window states: what the old program counted after the fill, added into the
 * new map by the carrier; a key the new map lacks, inserted whole unless the
 * new program made it meanwhile. With refresh (before the swap), the fill's
 * read becomes what was read now, new keys and all.
 */
static void finish_entries(struct xrl_carry *c, struct xrl_carry_map *cm, bool refresh)
{
	struct finish_walk f = { .c = c, .cm = cm, .to = xrl_carry_new_states(cm), .refresh = refresh };
	struct xrl_states from = xrl_carry_old_states(cm);

	xrl_states_walk(&from, finish_one, &f);
	snap_add(cm, f.more, f.nmore);
	free(f.more);
}

/*
 * Rule stats: what the old program counted after the fill, CPU by CPU, added
 * by the carrier on that CPU; with refresh, the fill's read becomes this one.
 */
static void finish_rule_stats(struct xrl_carry *c, struct xrl_carry_map *cm, bool refresh)
{
	size_t osz = xrl_carry_value_bytes(c, cm->info.type, cm->info.value_size);
	size_t ostride = xrl_percpu_stride(cm->info.value_size);
	char *ov = calloc(1, osz);
	struct xrl_carry_args a;
	__u32 i;
	int cpu;

	for (i = 0; ov && i < cm->nsnap && i < cm->nmax; i++) {
		char *sv = (char *)cm->snap + (size_t)i * osz;

		if (bpf_map_lookup_elem(cm->old, &i, ov) || !memcmp(ov, sv, osz))
			continue;
		for (cpu = 0; cpu < c->ncpus; cpu++) {
			struct xrl_rule_stats now, was;

			xrl_carry_rule_stats_read(cm, ov + (size_t)cpu * ostride, &now);
			xrl_carry_rule_stats_read(cm, sv + (size_t)cpu * ostride, &was);
			memset(&a, 0, sizeof(a));
			a.rule = i;
			a.cpu = (__u32)cpu;
			a.gen = now.gen;
			a.pass = now.pass - was.pass;
			a.block = now.block - was.block;
			a.pass_bytes = now.pass_bytes - was.pass_bytes;
			a.block_bytes = now.block_bytes - was.block_bytes;
			a.n = xrl_ring_delta(&now.ring, was.gen == now.gen ? &was.ring : NULL, cm->ocells, a.c);
			if (!refresh)
				xrl_fault_pause("carrying");
			if (a.pass | a.block | a.pass_bytes | a.block_bytes | a.n)
				xrl_carry_prog_rule(c->prog, &a);
		}
		if (refresh)
			memcpy(sv, ov, osz);
	}
	free(ov);
}

/*
 * The blocks the old latches held, into their keys' states of the new map,
 * each in its bucket, as the program retires a latch (bpf/latch.h:
 * xrl_latch_flush), by the carrier.
 */
static void fold_latches(struct xrl_carry *c, const struct xrl_carry_map *cm, const struct xrl_carry_map *st)
{
	struct xrl_states to = xrl_carry_new_states(st);
	size_t stride = xrl_percpu_stride(sizeof(struct xrl_latch));
	char *v = xrl_percpu_alloc(c->ncpus, sizeof(struct xrl_latch));
	struct xrl_carry_args a;
	__u32 i;
	int cpu;

	for (i = 0; v && i < cm->info.max_entries; i++) {
		if (bpf_map_lookup_elem(cm->old, &i, v))
			continue;
		for (cpu = 0; cpu < c->ncpus; cpu++) {
			const struct xrl_latch *l = (const void *)(v + (size_t)cpu * stride);
			struct xrl_state s;

			/* A lease's count is passes left, not blocks: its passes stay counted in their bucket. */
			if (!l->gen || l->kind == XRL_LATCH_LEASE || !xrl_latch_count(l->word) ||
			    xrl_state_get(&to, &l->key, &s) || s.gen != l->gen)
				continue;
			memset(&a, 0, sizeof(a));
			a.key = l->key;
			a.n = 1;
			a.c[0].q = xrl_full_epoch(s.ring.last, l->epoch);
			a.c[0].block = xrl_latch_count(l->word);
			xrl_carry_prog_state(c->prog, &a);
		}
	}
	free(v);
}

/* Whether map cm takes counts after the swap: the carrier is needed. */
static bool carried_live(const struct xrl_carry_map *cm)
{
	return cm->how == XRL_CARRY_ENTRIES || cm->how == XRL_CARRY_RULE_STATS || cm->how == XRL_CARRY_LATCHES;
}

int xrl_carry_arm(struct xrl_carry *c, char *err, size_t len)
{
	const struct xrl_carry_map *st = xrl_carry_map_of(c, XRL_MAP_STATE),
				   *rs = xrl_carry_map_of(c, XRL_MAP_RULE_STATS);
	size_t i;

	for (i = 0; i < c->n && !carried_live(&c->v[i]); i++)
		;
	if (i == c->n || c->prog)
		return 0;
	if (!st || !rs || st->nfd < 0 || rs->nfd < 0)
		return xrl_fail(-ENOENT, err, len, "the window states or the rules' counters under %s are missing",
				c->dir);
	return xrl_carry_prog_open(&c->prog, st->nfd, xrl_carry_state_cells(st->nvsz), rs->nfd,
				   xrl_carry_rule_stats_cells(rs->nvsz), err, len);
}

/* The window states and the rules' counters: what the old program counted since the fill (or the last refresh). */
static void carry_counts(struct xrl_carry *c, bool refresh)
{
	size_t i;

	for (i = 0; i < c->n && c->prog; i++) {
		if (c->v[i].how == XRL_CARRY_ENTRIES)
			finish_entries(c, &c->v[i], refresh);
		else if (c->v[i].how == XRL_CARRY_RULE_STATS)
			finish_rule_stats(c, &c->v[i], refresh);
	}
}

void xrl_carry_refresh(struct xrl_carry *c)
{
	carry_counts(c, true);
}

void xrl_carry_finish(struct xrl_carry *c)
{
	size_t i;

	carry_counts(c, false);
	/* After the states' merge: a latch's bucket may be one the old program opened after the fill. */
	for (i = 0; i < c->n && c->prog; i++)
		if (c->v[i].how == XRL_CARRY_LATCHES)
			fold_latches(c, &c->v[i], xrl_carry_map_of(c, XRL_MAP_STATE));
}
