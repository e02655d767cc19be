// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "base/critical.h"
#include "life/apply.h"
#include "codec/dsts.h"
#include "base/err.h"
#include "codec/ports.h"
#include "codec/lpm_set.h"
#include "codec/match_maps.h"
#include "codec/protos.h"
#include "life/replace.h"
#include "codec/rules_read.h"
#include "codec/specialise.h"
#include "codec/windows.h"

/*
 * Deletes every rule of one set, the range structure's included. The trie's
 * keys are collected first (deleting while walking skips keys); its stale
 * dst rules (proto 0) go too.
 */
static int clear_set(const struct xrl_maps *m, struct xrl_lpm_map *lm, __u8 set)
{
	struct xrl_dst_key dk, *pdk = NULL, *keys = NULL, *tmp;
	struct xrl_match_fds mf;
	size_t i, n = 0;
	int ret = xrl_ports_clear(m->port_idx, m->port_rules, set);

	if (!ret && !xrl_match_fds_of(m, &mf))
		ret = xrl_match_clear(&mf, set);
	if (!ret)
		ret = xrl_protos_clear(m->proto_rules, set);
	if (!ret)
		ret = xrl_lpm_clear_half(m, lm, set);
	while (!ret && !bpf_map_get_next_key(m->dsts, pdk, &dk)) {
		pdk = &dk;
		if (dk.set != set)
			continue;
		tmp = realloc(keys, (n + 1) * sizeof(*keys));
		if (!tmp) {
			ret = -ENOMEM;
			break;
		}
		keys = tmp;
		keys[n++] = dk;
	}
	for (i = 0; !ret && i < n; i++)
		if (bpf_map_delete_elem(m->dsts, &keys[i]) && errno != ENOENT)
			ret = -errno;
	free(keys);
	return ret;
}

static int zero_rule_stats(const struct xrl_maps *m, __u32 id)
{
	void *buf = xrl_percpu_alloc(m->ncpus, xrl_rule_stats_size(m->cells));
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = bpf_map_update_elem(m->rule_stats, &id, buf, BPF_ANY) ? -errno : 0;
	free(buf);
	return ret;
}

static __u32 take_gen(struct xrl_ctl *ctl)
{
	if (!ctl->next_gen) /* gen 0 is the state of a key never judged */
		ctl->next_gen = 1;
	return ctl->next_gen++;
}

static bool same_shape(const struct xrl_rule *a, const struct xrl_rule *b)
{
	return a->interval_ns == b->interval_ns && a->buckets == b->buckets;
}

/*
 * Whether a next window is the same in both sets, to the threshold: then it
 * keeps its slot, its gen and its state. (Written in place, at its id, a
 * window that differed would change the set in force before the flip.)
 */
static bool same_window(const struct xrl_rule *a, const struct xrl_rule *b)
{
	return a->threshold == b->threshold && a->byte_threshold == b->byte_threshold && same_shape(a, b) &&
	       a->flags == b->flags && a->src_mask4 == b->src_mask4 && a->src_mask6 == b->src_mask6 &&
	       a->warmup_ms == b->warmup_ms && a->rate == b->rate && a->rate_unit_ms == b->rate_unit_ms &&
	       a->byte_rate == b->byte_rate && a->byte_unit == b->byte_unit && a->byte_unit_ms == b->byte_unit_ms;
}

/* A counter slot not used yet (next: where to look from), taken; -ENOSPC when none is left. */
static int take_id(unsigned char *used, __u32 *next, __u32 ids, __u32 *id)
{
	while (*next < ids && used[*next])
		(*next)++;
	if (*next == ids)
		return -ENOSPC;
	used[*next] = 1;
	*id = *next;
	return 0;
}

/* Gives each new rule an id and a gen: kept from the active set where the match is the same. */
static int assign_ids(const struct xrl_maps *m, const struct xrl_ruleset *active, struct xrl_ruleset *set,
		      struct xrl_ctl *ctl, bool dry)
{
	static unsigned char used[XRL_MAX_RULE_IDS];
	/* A check (dry) asks what apply could do: it grows the slots up to XRL_MAX_RULE_IDS first. */
	__u32 next = 0, ids = !dry && m->rule_ids < XRL_MAX_RULE_IDS ? m->rule_ids : XRL_MAX_RULE_IDS;
	size_t i;
	int ret;

	int k;

	memset(used, 0, sizeof(used));
	for (i = 0; i < active->n; i++)
		for (k = 0; k <= active->v[i].nw; k++)
			if (xrl_spec_window(&active->v[i], k)->id < ids)
				used[xrl_spec_window(&active->v[i], k)->id] = 1;
	for (i = 0; i < set->n; i++) {
		struct xrl_spec *s = &set->v[i];
		struct xrl_rule *r = &s->r;
		int old = xrl_ruleset_find(active, s);
		const struct xrl_spec *o = old >= 0 ? &active->v[old] : NULL;

		if (o) {
			r->id = o->r.id;
			r->gen = same_shape(r, &o->r) ? o->r.gen : take_gen(ctl);
		} else {
			ret = take_id(used, &next, ids, &r->id);
			if (ret)
				return ret;
			r->gen = take_gen(ctl);
			ret = dry ? 0 : zero_rule_stats(m, r->id);
			if (ret)
				return ret;
		}
		/* Its next windows: each kept where the rule kept it, to the threshold; else a slot of its own. */
		for (k = 0; k < s->nw; k++) {
			struct xrl_rule *w = &s->w[k];

			w->flags = (__u16)((r->flags & ~XRL_F_NO_PKT_RATE) | (w->flags & XRL_F_NO_PKT_RATE));
			if (o && k < o->nw && same_window(w, &o->w[k])) {
				w->id = o->w[k].id;
				w->gen = o->w[k].gen;
				continue;
			}
			ret = take_id(used, &next, ids, &w->id);
			if (ret)
				return ret;
			w->gen = take_gen(ctl);
			ret = dry ? 0 : zero_rule_stats(m, w->id);
			if (ret)
				return ret;
		}
		xrl_windows_link(s, s->kind == XRL_KIND_MATCH ? (__u16)xrl_match_flags(s) : r->flags);
	}
	return 0;
}

static void ids_fail(const struct xrl_maps *m, int ret, const struct xrl_ruleset *active, const struct xrl_ruleset *set,
		     char *err, size_t len)
{
	if (ret == -ENOSPC)
		snprintf(
			err, len,
			"the %zu rules in force and the %zu of the new set need more than the %u counter slots they share (apply grows them in place); nothing was applied",
			active->n, set->n, m->rule_ids);
	else
		snprintf(err, len, "cannot give the rules counter slots: %s; nothing was applied", strerror(-ret));
}

int xrl_rules_check(struct xrl_maps *m, struct xrl_ruleset *set, char *err, size_t len)
{
	struct xrl_match_built mb = {};
	struct xrl_lpm_map lm = {};
	struct xrl_ruleset active = {};
	struct xrl_ctl ctl;
	int ret;

	ret = xrl_maps_lock_shared(m);
	if (ret == -ENOENT)
		return xrl_fail(ret, err, len, "%s was unloaded meanwhile", m->dir);
	if (ret)
		return xrl_fail(ret, err, len, "cannot lock %s: %s", m->dir, strerror(-ret));
	ret = xrl_ctl_read(m, &ctl);
	if (!ret)
		ret = xrl_rules_read_set(m, ctl.active_set & 1, false, &active);
	if (!ret)
		ret = xrl_lpm_map_open(m->lpm_dir, m->lpm_ranges, m->set_items, &lm);
	if (ret)
		xrl_fail(ret, err, len, "cannot read the active rules under %s: %s", m->dir, strerror(-ret));
	else if ((ret = xrl_lpm_check(&lm, set, err, len)))
		;
	else if ((ret = xrl_match_build(set, &mb, err, len)))
		;
	else if ((ret = assign_ids(m, &active, set, &ctl, true)))
		ids_fail(m, ret, &active, set, err, len);
	xrl_match_built_free(&mb);
	xrl_lpm_map_close(&lm);
	xrl_ruleset_free(&active);
	xrl_maps_unlock(m);
	return ret;
}

/*
 * Swaps in a program that carries features (replace.c), with rings of cells
 * cells, ids counter slots, the classifier's bitmaps and the rules' maps of
 * msize (words a value, entries; the rules' entries), the instance's lock held; sw counts it. The
 * other settings are the running program's. Maps it made anew (the rings,
 * the slots) are m's from then on, and ctl is read again.
 */
static int swap_program(struct xrl_maps *m, struct xrl_ctl *ctl, __u32 features, __u32 cells, __u32 ids,
			const __u32 *msize, struct xrl_apply_swap *sw, char *err, size_t len)
{
	char iface[IF_NAMESIZE];
	struct xrl_load_opts o = {
		.features = features,
		.given = XRL_LOAD_CELLS | XRL_LOAD_RULE_IDS | XRL_LOAD_MATCH,
		.cells = cells,
		.rule_ids = ids,
		.match_stride = msize[0],
		.match_entries = msize[1],
		.match_slots = msize[2],
	};
	int ret;

	/* The instance's interface is in this network namespace: the pin folder was found by its name. */
	o.iface = if_indextoname(ctl->ifindex, iface) ? iface : m->dir;
	ret = xrl_replace_locked(&o, m->dir, err, len);
	if (ret)
		return ret;
	sw->swaps++;
	sw->prog_id = o.prog_id;
	sw->after = features;
	ret = xrl_maps_reopen(m, err, len);
	if (!ret)
		ret = xrl_ctl_read(m, ctl);
	return ret;
}

int xrl_rules_apply(struct xrl_maps *m, struct xrl_ruleset *set, struct xrl_apply_swap *swap, char *err, size_t len)
{
	struct xrl_match_built mb = {};
	struct xrl_match_fds mf;
	__u32 msize[3];
	struct xrl_ruleset active = {};
	struct xrl_lpm_map lm = {};
	struct xrl_apply_swap none, *sw = swap ? swap : &none;
	struct xrl_ctl ctl;
	size_t i, nports;
	__u32 want, need, cells, ids;
	__u8 next_set;
	sigset_t sigs;
	int ret;

	ret = xrl_maps_lock(m);
	if (ret == -ENOENT)
		return xrl_fail(ret, err, len, "%s was unloaded while the rules waited: nothing was applied", m->dir);
	if (ret)
		return xrl_fail(ret, err, len, "cannot lock %s: %s", m->dir, strerror(-ret));
	xrl_signals_hold(&sigs); /* a Ctrl-C lands once the set is in force, or before anything was written */
	ret = xrl_ctl_read(m, &ctl);
	if (!ret)
		ret = xrl_rules_read_set(m, ctl.active_set & 1, false, &active);
	if (!ret)
		ret = xrl_lpm_map_open(m->lpm_dir, m->lpm_ranges, m->set_items, &lm);
	if (ret) {
		snprintf(err, len, "cannot read the active rules under %s: %s", m->dir, strerror(-ret));
		goto out;
	}
	ret = xrl_lpm_check(&lm, set, err, len);
	if (!ret)
		ret = xrl_match_build(set, &mb, err, len);
	if (ret)
		goto out;
	next_set = !(ctl.active_set & 1);
	/*
	 * The program must carry what both sets need while either may be read
	 * (specialise.h), and its rings must hold the new set's windows, its
	 * counter slots both sets' rules: one that does not is swapped first for
	 * one that does, maps grown and carried over (replace.c); after the flip
	 * it is swapped for one that carries the new set's features only. No
	 * program attached yet (load's first rules): the one to be attached was
	 * built and sized for this set.
	 */
	memset(sw, 0, sizeof(*sw));
	want = xrl_features_for(set);
	need = want | xrl_features_for(&active);
	cells = xrl_ruleset_cells(set) > m->cells ? xrl_ruleset_cells(set) : m->cells;
	ids = xrl_rule_ids_for((xrl_ruleset_slots(&active) + xrl_ruleset_slots(set) + 1) / 2);
	ids = ids > m->rule_ids ? ids : m->rule_ids;
	/* The classifier's bitmaps and the rules' maps hold the set in force already: at least as large, and what the new one needs. */
	msize[0] = xrl_match_stride_for(&mb) > m->lbvs_stride ? xrl_match_stride_for(&mb) : m->lbvs_stride;
	msize[1] = xrl_match_entries_for(&mb) > m->lbvs_entries ? xrl_match_entries_for(&mb) : m->lbvs_entries;
	msize[2] = xrl_match_slots_for(&mb) > m->match_slots ? xrl_match_slots_for(&mb) : m->match_slots;
	ret = xrl_features_running(m->dir, &sw->before, &sw->prog_id);
	sw->after = sw->before;
	if (ret == -ENOENT) {
		sw->before = sw->after = want;
		ret = 0;
	} else if (ret) {
		snprintf(err, len,
			 "cannot read what the running program carries (its link under %s): %s; nothing was applied",
			 m->dir, strerror(-ret));
	} else if ((sw->before & need) != need || cells > m->cells || ids > m->rule_ids ||
		   (xrl_ruleset_windows(set) && m->windows < 0) ||
		   (mb.n && (m->lbvs_bits < 0 || m->match_sets < 0 || msize[0] > m->lbvs_stride ||
			     msize[1] > m->lbvs_entries || msize[2] > m->match_slots))) {
		ret = swap_program(m, &ctl, (sw->before & need) != need ? need : sw->before, cells, ids, msize, sw, err,
				   len);
		if (ret)
			snprintf(err + strlen(err), len - strlen(err), "; nothing was applied");
	}
	if (!ret && sw->swaps) { /* the maps opened again: the range structure's too */
		xrl_lpm_map_close(&lm);
		ret = xrl_lpm_map_open(m->lpm_dir, m->lpm_ranges, m->set_items, &lm);
	}
	if (!ret && cells > m->cells)
		ret = xrl_fail(
			-ENOSPC, err, len,
			"the rules need windows of up to %u buckets, the maps under %s hold %u; nothing was applied",
			cells - 1, m->dir, m->cells - 1);
	if (ret)
		goto out;
	ret = assign_ids(m, &active, set, &ctl, false);
	if (ret) {
		ids_fail(m, ret, &active, set, err, len);
		goto out;
	}
	/*
	 * Whatever a killed apply left in the inactive set goes first, once no
	 * packet that read the set before the last flip can still be reading it.
	 */
	xrl_wait_programs();
	ret = clear_set(m, &lm, next_set);
	/* The next windows first, at slots of their own: no rule of the set in force names a new one. */
	if (!ret && xrl_ruleset_windows(set))
		ret = m->windows < 0 ? -ENOENT : xrl_windows_write(m->windows, set);
	for (i = 0, nports = 0; !ret && i < set->n; i++) {
		const struct xrl_spec *s = &set->v[i];

		if (s->kind == XRL_KIND_PORT && s->family) {
			struct xrl_dst_key dk;

			xrl_dst_key(&dk, next_set, s->proto, s->port, s->family, s->addr, s->plen);
			ret = xrl_dst_put(m->dsts, &dk, &s->r);
		} else if (s->kind == XRL_KIND_PORT)
			ret = xrl_port_put(m->port_idx, m->port_rules, next_set, nports++, s->proto, s->port, &s->r);
		else if (s->kind == XRL_KIND_PROTO)
			ret = xrl_proto_put(m->proto_rules, next_set, s->sel, &s->r);
	}
	if (!ret && mb.n)
		ret = xrl_match_fds_of(m, &mf) ?: xrl_match_write(&mf, next_set, set, &mb);
	if (ret)
		snprintf(err, len, "cannot write the new rules under %s: %s; the old rules stay in force", m->dir,
			 strerror(-ret));
	else
		ret = xrl_lpm_write(m, &lm, next_set, set, err, len);
	if (ret) {
		clear_set(m, &lm, next_set);
		goto out;
	}
	/* The maps the new set has rules in, then the flip: the program reads
	 * active_set's low byte, written in one store, then that set's kinds. */
	ctl.kinds[next_set] = xrl_ruleset_kinds(set);
	ret = xrl_ctl_write(m, &ctl);
	if (ret) {
		snprintf(err, len, "cannot switch to the new rules: %s; the old rules stay in force", strerror(-ret));
		goto out;
	}
	ctl.active_set = next_set;
	ret = xrl_ctl_write(m, &ctl);
	if (ret) {
		snprintf(err, len, "cannot switch to the new rules: %s; the old rules stay in force", strerror(-ret));
		goto out;
	}
	/* The rules are in force: a program left carrying more judges them all the same, at a cost. */
	msize[0] = m->lbvs_stride;
	msize[1] = m->lbvs_entries;
	msize[2] = m->match_slots;
	if (sw->after != want &&
	    swap_program(m, &ctl, want, m->cells, m->rule_ids, msize, sw, sw->note, sizeof(sw->note)))
		snprintf(sw->note + strlen(sw->note), sizeof(sw->note) - strlen(sw->note),
			 "; the rules are in force, judged by a program that carries more than they need");
out:
	xrl_match_built_free(&mb);
	xrl_lpm_map_close(&lm);
	xrl_ruleset_free(&active);
	xrl_signals_release(&sigs);
	return ret;
}
