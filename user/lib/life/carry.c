// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "life/carry_internal.h"
#include "life/carry_prog.h"
#include "base/critical.h"
#include "base/maps.h"
#include "read/states.h"
#include "read/stats.h"
#include "xrl_match.h"
#include "base/objinfo.h"
#include "base/err.h"

int xrl_carry_open(struct xrl_carry *c, const char *dir, const char *iface, char *err, size_t len)
{
	char path[PATH_MAX + 32];
	struct xrl_ctl ctl;
	int ret;

	memset(c, 0, sizeof(*c));
	c->iface = iface;
	c->ctl = -1;
	snprintf(c->dir, sizeof(c->dir), "%s", dir);
	c->ncpus = libbpf_num_possible_cpus();
	if (c->ncpus <= 0)
		return xrl_fail(-EIO, err, len, "cannot count the possible CPUs: is /sys mounted?");
	snprintf(path, sizeof(path), "%s/" XRL_MAP_CTL, dir);
	c->ctl = xrl_pin_open(dir, XRL_MAP_CTL);
	if (c->ctl < 0)
		return xrl_fail(
			-errno, err, len,
			"%s cannot be opened (%s): the instance is incomplete; 'xdp-ratelimit unload %s' and load again",
			path, strerror(errno), iface);
	ret = xrl_carry_ctl(c, &ctl);
	if (ret || !ctl.layout)
		return xrl_fail(
			-EPROTO, err, len,
			"the load on %s was interrupted before it finished (its settings were never written): run 'xdp-ratelimit unload %s', then load again",
			iface, iface);
	c->layout = ctl.layout;
	c->latch_slots = ctl.latch_slots;
	c->retired = xrl_retired_of(ctl.layout, ctl.latch_slots);
	if (ctl.layout != XRL_LAYOUT_VERSION && !c->retired)
		return xrl_fail(
			-EPROTO, err, len,
			"the maps under %s have layout %u; this xdp-ratelimit takes over layouts %u to %u only: run 'xdp-ratelimit unload %s' (its limits stop) and load again",
			dir, ctl.layout, xrl_retired_oldest(), XRL_LAYOUT_VERSION, iface);
	return 0;
}

int xrl_carry_ctl(const struct xrl_carry *c, struct xrl_ctl *ctl)
{
	int ret = xrl_ctl_get(c->ctl, ctl);

	if (!ret && c->retired && c->retired->ctl_read)
		c->retired->ctl_read(ctl);
	return ret;
}

int xrl_carry_ctl_write(const struct xrl_carry *c, const struct xrl_ctl *ctl)
{
	return xrl_ctl_put(c->ctl, ctl);
}

size_t xrl_carry_value_bytes(const struct xrl_carry *c, __u32 type, __u32 vsz)
{
	bool percpu = type == BPF_MAP_TYPE_PERCPU_ARRAY || type == BPF_MAP_TYPE_PERCPU_HASH ||
		      type == BPF_MAP_TYPE_LRU_PERCPU_HASH;

	return percpu ? (size_t)c->ncpus * xrl_percpu_stride(vsz) : vsz;
}

/* The cells of a window state's ring in a value of vsz bytes (the same head in every layout); 0: none. */
__u32 xrl_carry_state_cells(__u32 vsz)
{
	__u32 c;

	for (c = 1; c <= XRL_MAX_CELLS; c++)
		if (xrl_state_size(c) == vsz)
			return c;
	return 0;
}

/* The cells of a rule stats' ring in a value of vsz bytes of this layout; 0: none. */
__u32 xrl_carry_rule_stats_cells(__u32 vsz)
{
	__u32 n;

	for (n = 1; n <= XRL_MAX_CELLS; n++)
		if (xrl_rule_stats_size(n) == vsz)
			return n;
	return 0;
}

/* The same in a value of the layout the old instance has. */
static __u32 rule_stats_cells(const struct xrl_carry *c, __u32 vsz)
{
	if (c->retired && c->retired->rule_stats_cells)
		return c->retired->rule_stats_cells(vsz);
	return xrl_carry_rule_stats_cells(vsz);
}

/* Whether name is in the NULL-terminated list v (NULL: none). */
static bool in(const char *const *v, const char *name)
{
	for (; v && *v; v++)
		if (!strcmp(*v, name))
			return true;
	return false;
}

/* Whether the old map's rings have their buckets in other cells than the current layout puts them. */
static bool rings_moved(const struct xrl_carry_map *cm)
{
	return cm->retired && cm->retired->rings_moved;
}

static int plan_one(struct xrl_carry *c, struct xrl_carry_map *cm, const char *dir, char *err, size_t len)
{
	struct bpf_map *map = cm->map;
	char path[PATH_MAX + 64];
	bool same_kv, same_size, same_k, ring_map;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, cm->name);
	cm->old = xrl_pin_open(dir, cm->name);
	if (cm->old < 0) {
		/* The capture's maps are no part of the layout: an instance of this one may lack them. */
		if (errno != ENOENT || (!xrl_capture_pin(cm->name) && !xrl_match_pin(cm->name) &&
					!(c->retired && in(c->retired->lacks, cm->name))))
			return xrl_fail(-errno, err, len, "cannot open %s: %s; nothing was changed", path,
					strerror(errno));
		cm->how = XRL_CARRY_EMPTY; /* new since its layout */
		return 0;
	}
	ret = xrl_obj_info(cm->old, &cm->info, sizeof(cm->info));
	if (ret)
		return xrl_fail(ret, err, len, "cannot read %s: %s", path, strerror(-ret));
	same_k = cm->info.type == bpf_map__type(map) && cm->info.key_size == bpf_map__key_size(map);
	same_kv = same_k && cm->info.value_size == bpf_map__value_size(map);
	same_size = cm->info.max_entries == bpf_map__max_entries(map);
	cm->retired = c->retired;
	ring_map = !strcmp(cm->name, XRL_MAP_STATE) || !strcmp(cm->name, XRL_MAP_RULE_STATS);
	if (same_k && !strcmp(cm->name, XRL_MAP_STATE)) { /* the cells, kept or not: fold_latches reads them */
		cm->ocells = xrl_carry_state_cells(cm->info.value_size);
		cm->ncells = xrl_carry_state_cells(bpf_map__value_size(map));
	}
	if (same_kv && same_size && !(ring_map && rings_moved(cm))) {
		cm->how = XRL_CARRY_KEEP; /* reused once every map is planned (reuse_kept) */
		return 0;
	}
	/* The window states: another table size, or rings of other cells (or a retired layout's cells). */
	if (same_k && !strcmp(cm->name, XRL_MAP_STATE) && cm->ocells && cm->ncells) {
		cm->how = XRL_CARRY_ENTRIES;
		return 0;
	}
	if (same_kv && !strcmp(cm->name, XRL_MAP_SKETCH)) {
		cm->how = XRL_CARRY_SKETCH;
		return 0;
	}
	/* The latches, sized for another table (--max-keys, or a build before they were): new ones, the old ones' blocks to the states. */
	if (same_kv && !strcmp(cm->name, XRL_MAP_LATCHES)) {
		cm->how = XRL_CARRY_LATCHES;
		return 0;
	}
	/* The rules' stats: rings of other cells, another count of counter slots, or a retired layout's. */
	if (same_k && !strcmp(cm->name, XRL_MAP_RULE_STATS)) {
		cm->ocells = rule_stats_cells(c, cm->info.value_size);
		cm->ncells = xrl_carry_rule_stats_cells(bpf_map__value_size(map));
		if (cm->ocells) {
			cm->how = XRL_CARRY_RULE_STATS;
			return 0;
		}
	}
	/*
	 * The classifier's bitmaps, grown for a rule set with more classes or
	 * rules (apply), the rules' maps, grown for more rules, and the
	 * allowances, a counter slot each: their entries keep their place
	 * (XRL_MATCH_BITS_IX, XRL_MATCH_SLOT, a rule's id, below the slots).
	 */
	if ((same_k && cm->info.type == BPF_MAP_TYPE_ARRAY && !strcmp(cm->name, XRL_MAP_LBVS_BITS)) ||
	    (same_kv && cm->info.type == BPF_MAP_TYPE_ARRAY &&
	     (!strcmp(cm->name, XRL_MAP_MATCH_RULES) || !strcmp(cm->name, XRL_MAP_MATCH_SPECS) ||
	      !strcmp(cm->name, XRL_MAP_FLEET) || !strcmp(cm->name, XRL_MAP_WINDOWS)))) {
		cm->how = XRL_CARRY_ARRAY;
		return 0;
	}
	/* The scratch holds nothing between packets: sized for short rings or long ones (xrl_scratch_size). */
	if (same_k && same_size && !strcmp(cm->name, XRL_MAP_SCRATCH)) {
		cm->how = XRL_CARRY_EMPTY;
		return 0;
	}
	/* Maps of a retired layout that hold nothing between packets, their value read otherwise now. */
	if (c->retired && same_size && same_k && in(c->retired->emptied, cm->name)) {
		cm->how = XRL_CARRY_EMPTY;
		return 0;
	}
	return xrl_fail(
		-EPROTO, err, len,
		"%s differs from what this build's program needs and cannot be carried over: 'xdp-ratelimit unload %s' and load again",
		path, c->iface);
}

struct xrl_carry_map *xrl_carry_map_of(struct xrl_carry *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			return &c->v[i];
	return NULL;
}

/* Whether the window states' rings move to other cells (from a retired layout's, whatever their count). */
static bool recells(const struct xrl_carry_map *cm)
{
	return cm->ocells != cm->ncells || rings_moved(cm);
}

/*
 * The kept maps, reused by the new program. Not the latches when the window
 * states move to other cells: a latch names its bucket's cell in the old
 * ring (xrl_latch.idx), where the new program, retiring it, would find
 * another bucket and drop its blocks; nor when the old program placed them
 * otherwise (a retired layout's latch_slot), where the new one would never
 * look for them. The new program starts with none; the old ones' blocks go to the
 * states after the swap (fold_latches).
 */
static int reuse_kept(struct xrl_carry *c, char *err, size_t len)
{
	const struct xrl_carry_map *st = xrl_carry_map_of(c, XRL_MAP_STATE);
	size_t i;

	for (i = 0; i < c->n; i++) {
		struct xrl_carry_map *cm = &c->v[i];

		if (cm->how != XRL_CARRY_KEEP)
			continue;
		if (!strcmp(cm->name, XRL_MAP_LATCHES) &&
		    ((st && st->how == XRL_CARRY_ENTRIES && recells(st)) || (c->retired && c->retired->latch_slot)))
			cm->how = XRL_CARRY_LATCHES;
		else if (bpf_map__reuse_fd(cm->map, cm->old))
			return xrl_fail(-EINVAL, err, len, "cannot reuse %s/%s", c->dir, cm->name);
	}
	return 0;
}

int xrl_carry_plan(struct xrl_carry *c, struct bpf_object *obj, char *err, size_t len)
{
	struct bpf_map *map;
	int ret;

	bpf_object__for_each_map(map, obj)
	{
		struct xrl_carry_map *cm;

		if (bpf_map__is_internal(map))
			continue;
		if (c->n == XRL_CARRY_MAPS)
			return xrl_fail(-E2BIG, err, len, "too many maps to carry over");
		cm = &c->v[c->n++];
		snprintf(cm->name, sizeof(cm->name), "%s", bpf_map__name(map));
		cm->map = map;
		cm->old = -1;
		ret = plan_one(c, cm, c->dir, err, len);
		if (ret)
			return ret;
	}
	return reuse_kept(c, err, len);
}

/* A window state of the old map's cells as one of the new's. */
void xrl_carry_state_recell(const struct xrl_carry_map *cm, const struct xrl_state *o, struct xrl_state *n)
{
	if (!recells(cm)) {
		*n = *o;
		return;
	}
	memset(n, 0, sizeof(*n));
	n->gen = o->gen;
	n->warm = o->warm;
	xrl_ring_recell(&o->ring, cm->ocells, &n->ring, cm->ncells);
}

struct xrl_states xrl_carry_old_states(const struct xrl_carry_map *cm)
{
	return (struct xrl_states){ .fd = cm->old, .cells = cm->ocells };
}

struct xrl_states xrl_carry_new_states(const struct xrl_carry_map *cm)
{
	return (struct xrl_states){ .fd = cm->nfd, .cells = xrl_carry_state_cells(cm->nvsz) };
}

void xrl_carry_state_convert(const struct xrl_carry_map *cm, struct xrl_state *s)
{
	if (cm->retired && cm->retired->state_read)
		cm->retired->state_read(s, cm->ocells);
}

int xrl_carry_key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct xrl_key));
}

/* What the fill's walk of the old states gathers: the snapshot, in this layout's struct. */
struct fill_walk {
	const struct xrl_carry_map *cm;
	struct xrl_carry_entry *v;
	size_t n, cap;
};

int xrl_carry_entry_push(struct xrl_carry_entry **v, size_t *n, size_t *cap, const struct xrl_key *k,
			 const struct xrl_state *st)
{
	struct xrl_carry_entry *tmp;

	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		tmp = realloc(*v, *cap * sizeof(**v));
		if (!tmp)
			return -ENOMEM;
		*v = tmp;
	}
	(*v)[*n].k = *k;
	(*v)[(*n)++].s = *st;
	return 0;
}

static int fill_one(const struct xrl_key *k, const struct xrl_state *st, void *ctx)
{
	struct fill_walk *f = ctx;
	struct xrl_state s = *st;

	xrl_carry_state_convert(f->cm, &s);
	return xrl_carry_entry_push(&f->v, &f->n, &f->cap, k, &s);
}

static int fill_entries(struct xrl_carry_map *cm)
{
	struct xrl_states from = xrl_carry_old_states(cm), to = xrl_carry_new_states(cm);
	struct fill_walk f = { .cm = cm };
	__u64 now;
	int ret;

	ret = xrl_states_walk(&from, fill_one, &f);
	if (ret) {
		free(f.v);
		return ret;
	}
	if (f.n)
		qsort(f.v, f.n, sizeof(*f.v), xrl_carry_key_cmp);
	cm->snap = f.v;
	cm->nsnap = f.n;
	if (xrl_clock_now(XRL_CLOCK_PRECISE, &now))
		now = 0;
	for (size_t i = 0; i < f.n; i++) {
		struct xrl_state ns;

		xrl_carry_state_recell(cm, &f.v[i].s, &ns);
		xrl_state_put(&to, &f.v[i].k, &ns, now);
	}
	return 0;
}

/* One CPU's rule stats of the old map (ov) in this layout's struct, the ring of the old map's cells. */
void xrl_carry_rule_stats_read(const struct xrl_carry_map *cm, const void *ov, struct xrl_rule_stats *rs)
{
	if (cm->retired && cm->retired->rule_stats_read) {
		cm->retired->rule_stats_read(ov, cm->ocells, rs);
		return;
	}
	memset(rs, 0, sizeof(*rs));
	memcpy(rs, ov, cm->info.value_size);
}

/*
 * One CPU's rule stats as the new map's: the ring's cells moved, the slot
 * the program keeps forgotten (it names a cell of the old ring: the program
 * finds it again with the next packet).
 */
static void rule_stats_convert(const struct xrl_carry_map *cm, const void *ov, void *nv)
{
	struct xrl_rule_stats o, n;

	xrl_carry_rule_stats_read(cm, ov, &o);
	n = o;
	memset(&n.slot, 0, sizeof(n.slot));
	memset(&n.ring, 0, sizeof(n.ring));
	xrl_ring_recell(&o.ring, cm->ocells, &n.ring, cm->ncells);
	memcpy(nv, &n, xrl_rule_stats_size(cm->ncells));
}

/* Every rule's stats, CPU by CPU, converted. The snapshot is the old values. */
static int fill_rule_stats(struct xrl_carry *c, struct xrl_carry_map *cm, int to)
{
	size_t osz = xrl_carry_value_bytes(c, cm->info.type, cm->info.value_size);
	size_t nsz = xrl_carry_value_bytes(c, cm->info.type, bpf_map__value_size(cm->map));
	size_t ostride = xrl_percpu_stride(cm->info.value_size);
	size_t nstride = xrl_percpu_stride(bpf_map__value_size(cm->map));
	char *nv = calloc(1, nsz);
	__u32 i;
	int cpu;
	int ret = 0;

	cm->snap = calloc(cm->info.max_entries, osz);
	cm->nsnap = cm->info.max_entries;
	if (!cm->snap || !nv) {
		free(nv);
		return -ENOMEM;
	}
	for (i = 0; i < cm->info.max_entries && !ret; i++) {
		char *ov = (char *)cm->snap + (size_t)i * osz;

		if (bpf_map_lookup_elem(cm->old, &i, ov) || i >= bpf_map__max_entries(cm->map))
			continue; /* fewer slots: apply gave no rule one past them */
		for (cpu = 0; cpu < c->ncpus; cpu++)
			rule_stats_convert(cm, ov + (size_t)cpu * ostride, nv + (size_t)cpu * nstride);
		if (bpf_map_update_elem(to, &i, nv, BPF_ANY))
			ret = -errno;
	}
	free(nv);
	return ret;
}

/* An array's entries into a larger one (to), each value zero-padded to the new size. */
static int fill_array(const struct xrl_carry_map *cm, int to, __u32 nvsz, __u32 nmax)
{
	__u32 i, osz = cm->info.value_size;
	char *ov = calloc(1, osz), *nv = calloc(1, nvsz);
	int ret = ov && nv ? 0 : -ENOMEM;

	for (i = 0; !ret && i < cm->info.max_entries && i < nmax; i++) {
		if (bpf_map_lookup_elem(cm->old, &i, ov)) {
			ret = -errno;
			break;
		}
		memset(nv, 0, nvsz);
		memcpy(nv, ov, osz < nvsz ? osz : nvsz);
		if (bpf_map_update_elem(to, &i, nv, BPF_ANY))
			ret = -errno;
	}
	free(ov);
	free(nv);
	return ret;
}

int xrl_carry_fill(struct xrl_carry *c, char *err, size_t len)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < c->n && !ret; i++) {
		struct xrl_carry_map *cm = &c->v[i];
		int to = cm->nfd = bpf_map__fd(cm->map);

		cm->nvsz = bpf_map__value_size(cm->map);
		cm->nmax = bpf_map__max_entries(cm->map);
		if (cm->how == XRL_CARRY_ENTRIES)
			ret = fill_entries(cm);
		else if (cm->how == XRL_CARRY_SKETCH)
			ret = xrl_sketch_fill(cm->old, cm->info.max_entries, to, bpf_map__max_entries(cm->map));
		else if (cm->how == XRL_CARRY_RULE_STATS)
			ret = fill_rule_stats(c, cm, to);
		else if (cm->how == XRL_CARRY_ARRAY)
			ret = fill_array(cm, to, cm->nvsz, cm->nmax);
		if (ret)
			xrl_fail(ret, err, len, "cannot carry %s over: %s; the running program was left in place",
				 cm->name, strerror(-ret));
	}
	return ret;
}

size_t xrl_carry_snap_bytes(const struct xrl_carry *c, const struct xrl_carry_map *cm)
{
	if (cm->how == XRL_CARRY_ENTRIES)
		return cm->nsnap * sizeof(struct xrl_carry_entry);
	if (cm->how == XRL_CARRY_RULE_STATS)
		return cm->nsnap * xrl_carry_value_bytes(c, cm->info.type, cm->info.value_size);
	return 0;
}

void xrl_ring_recell(const struct xrl_ring *o, __u32 ocells, struct xrl_ring *n, __u32 ncells)
{
	const __u64 *ob = xrl_ring_blocks_c(o, ocells);
	__u64 *nb = xrl_ring_blocks(n, ncells);
	__u32 i;

	memset(n, 0, sizeof(*n));
	n->last = o->last;
	n->seq = o->seq;
	for (i = 0; i < ocells && i < XRL_MAX_CELLS; i++) {
		__u64 w = o->c[i].word;
		__u32 d; /* the cell of its full epoch in the new ring */

		if (!xrl_valid(o->last, o->last, w))
			continue;
		d = (__u32)(xrl_full_epoch(o->last, xrl_word_epoch(w)) % ncells);
		if (!n->c[d].word || (__s32)(xrl_word_epoch(w) - xrl_word_epoch(n->c[d].word)) > 0) {
			n->c[d] = o->c[i];
			nb[d] = ob[i];
		}
	}
}

static int pin_new(int fd, const char *dir, const char *name, char *err, size_t len)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s" XRL_PIN_NEW, dir, name);
	unlink(path); /* a killed replace's */
	if (bpf_obj_pin(fd, path))
		return xrl_fail(-errno, err, len, "cannot pin %s: %s; the running program was left in place", path,
				strerror(errno));
	return 0;
}

/* bpffs renames atomically over the old pin: a reader opens the old object or the new, never none. */
static int pin_rename(const char *dir, const char *name, char *err, size_t len)
{
	char from[PATH_MAX + 64], to[PATH_MAX + 64];

	snprintf(from, sizeof(from), "%s/%s" XRL_PIN_NEW, dir, name);
	snprintf(to, sizeof(to), "%s/%s", dir, name);
	if (rename(from, to))
		return xrl_fail(-errno, err, len, "cannot rename %s to %s: %s", from, to, strerror(errno));
	return 0;
}

int xrl_carry_pin(struct xrl_carry *c, int prog, char *err, size_t len)
{
	size_t i;
	int ret = pin_new(prog, c->dir, "prog", err, len);

	for (i = 0; i < c->n && !ret; i++)
		if (c->v[i].how != XRL_CARRY_KEEP)
			ret = pin_new(bpf_map__fd(c->v[i].map), c->dir, c->v[i].name, err, len);
	return ret;
}

int xrl_carry_commit(struct xrl_carry *c, char *err, size_t len)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < c->n && !ret; i++)
		if (c->v[i].how != XRL_CARRY_KEEP) {
			ret = pin_rename(c->dir, c->v[i].name, err, len);
			xrl_fault_point("renaming"); /* the tests': stopped with some maps renamed */
		}
	return ret ?: pin_rename(c->dir, "prog", err, len);
}

void xrl_carry_abandon(struct xrl_carry *c)
{
	char path[PATH_MAX + 64];
	size_t i;

	for (i = 0; i < c->n; i++) {
		snprintf(path, sizeof(path), "%s/%s" XRL_PIN_NEW, c->dir, c->v[i].name);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/prog" XRL_PIN_NEW, c->dir);
	unlink(path);
}

void xrl_carry_close(struct xrl_carry *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		if (c->v[i].old >= 0)
			close(c->v[i].old);
		free(c->v[i].snap);
	}
	if (c->ctl >= 0)
		close(c->ctl);
	xrl_carry_prog_close(c->prog);
	c->prog = NULL;
	c->n = 0;
	c->ctl = -1;
}
