// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "read/states.h"

void xrl_way_read(__u8 *way, const struct xrl_tshape *t, struct xrl_key *key, struct xrl_state *st)
{
	struct xrl_wstate *ws = xrl_way_state(way, t);
	struct xrl_wkey wk;

	memcpy(wk.w, way, t->key_bytes);
	xrl_wkey_key(key, &wk, t->key_bytes);
	memset(st, 0, sizeof(*st));
	st->gen = ws->gen;
	st->leased = !!(ws->serial & XRL_WAY_LEASED);
	st->warm = xrl_way_tail(way, t)->warm;
	memcpy(&st->ring, &ws->ring, xrl_ring_size(t->cells));
}

void xrl_way_write(__u8 *way, const struct xrl_tshape *t, const struct xrl_state *st)
{
	struct xrl_wstate *ws = xrl_way_state(way, t);

	ws->gen = st->gen;
	ws->serial = (ws->serial & ~XRL_WAY_LEASED) | (st->leased ? XRL_WAY_LEASED : 0);
	memcpy(&ws->ring, &st->ring, xrl_ring_size(t->cells));
	xrl_way_tail(way, t)->warm = st->warm;
}

/* A set of t's ways, with room past it for a struct xrl_wstate's whole ring (which a way holds cells of). */
static __u8 *set_alloc(const struct xrl_states *t)
{
	return calloc(1, (size_t)XRL_TABLE_WAYS * t->shape.way_bytes + sizeof(struct xrl_wstate));
}

static int ways_get(const struct xrl_states *t, const struct xrl_key *key, struct xrl_state *out)
{
	__u64 h = xrl_key_hash64(key);
	__u32 ix = xrl_table_set(h, t->sets), sr;
	struct xrl_wkey wk;
	struct xrl_key k;
	__u8 *set;
	int ret = -ENOENT, i;

	if (xrl_wkey_make(&wk, key, t->shape.key_bytes))
		return -ENOENT; /* a key this table cannot hold has no way in it */
	set = set_alloc(t);
	if (!set)
		return -ENOMEM;
	if (bpf_map_lookup_elem(t->fd, &ix, set)) {
		ret = -errno;
	} else {
		i = xrl_tset_find(set, &t->shape, &wk, xrl_table_first(h), &sr);
		if (i >= 0) {
			xrl_way_read(xrl_way(set, &t->shape, (__u32)i), &t->shape, &k, out);
			ret = 0;
		}
	}
	free(set);
	return ret;
}

int xrl_state_get(const struct xrl_states *t, const struct xrl_key *key, struct xrl_state *out)
{
	if (xrl_state_size(t->cells) > sizeof(*out))
		return -EPROTO;
	if (t->sets)
		return ways_get(t, key, out);
	if (bpf_map_lookup_elem(t->fd, key, out))
		return -errno;
	return 0;
}

static int ways_walk(const struct xrl_states *t, xrl_state_fn *fn, void *ctx)
{
	__u8 *set = set_alloc(t), *w;
	struct xrl_state st;
	struct xrl_key key;
	__u32 ix, i, sr;
	int ret = 0;

	if (!set)
		return -ENOMEM;
	for (ix = 0; ix < t->sets && !ret; ix++) {
		if (bpf_map_lookup_elem(t->fd, &ix, set)) {
			ret = -errno;
			break;
		}
		for (i = 0; i < XRL_TABLE_WAYS && !ret; i++) {
			w = xrl_way(set, &t->shape, i);
			sr = xrl_way_state(w, &t->shape)->serial & XRL_WAY_CLAIMS;
			if (!sr || (sr & 1))
				continue; /* never used, or being claimed */
			xrl_way_read(w, &t->shape, &key, &st);
			ret = fn(&key, &st, ctx);
		}
	}
	free(set);
	return ret;
}

int xrl_states_walk(const struct xrl_states *t, xrl_state_fn *fn, void *ctx)
{
	struct xrl_key key, *prev = NULL;
	struct xrl_state st;
	int ret;

	if (t->sets)
		return ways_walk(t, fn, ctx);
	while (!bpf_map_get_next_key(t->fd, prev, &key)) {
		prev = &key;
		ret = xrl_state_get(t, &key, &st);
		if (ret == -ENOENT)
			continue; /* gone since the walk found it (evicted): the next one */
		if (!ret)
			ret = fn(&key, &st, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

static int count_one(const struct xrl_key *key, const struct xrl_state *st, void *ctx)
{
	(void)key;
	(void)st;
	(*(size_t *)ctx)++;
	return 0;
}

size_t xrl_states_count(const struct xrl_states *t)
{
	struct xrl_key key, *prev = NULL;
	size_t n = 0;

	if (t->sets) {
		ways_walk(t, count_one, &n);
		return n;
	}
	while (!bpf_map_get_next_key(t->fd, prev, &key)) {
		prev = &key;
		n++;
	}
	return n;
}

static int ways_put(const struct xrl_states *t, const struct xrl_key *key, const struct xrl_state *st, __u64 now)
{
	__u64 h = xrl_key_hash64(key);
	__u32 ix = xrl_table_set(h, t->sets), sr;
	struct xrl_wkey wk;
	__u8 *set;
	int ret, i;

	if (xrl_wkey_make(&wk, key, t->shape.key_bytes))
		return -EINVAL;
	set = set_alloc(t);
	if (!set)
		return -ENOMEM;
	ret = bpf_map_lookup_elem(t->fd, &ix, set) ? -errno : 0;
	if (!ret) {
		/* As the program claims it, on this copy: no program counts in the table yet. */
		i = xrl_tset_claim(set, &t->shape, &wk, xrl_table_first(h), now, &sr);
		if (i < 0) {
			ret = -ENOSPC;
		} else {
			xrl_way_write(xrl_way(set, &t->shape, (__u32)i), &t->shape, st);
			ret = bpf_map_update_elem(t->fd, &ix, set, BPF_ANY) ? -errno : 0;
		}
	}
	free(set);
	return ret;
}

int xrl_state_put(const struct xrl_states *t, const struct xrl_key *key, const struct xrl_state *st, __u64 now)
{
	if (t->sets)
		return ways_put(t, key, st, now);
	/* Past a smaller table's size, the LRU evicts another key: none is refused. */
	return bpf_map_update_elem(t->fd, key, st, BPF_ANY) ? -errno : 0;
}

int xrl_state_put_new(const struct xrl_states *t, const struct xrl_key *key, const struct xrl_state *st)
{
	if (t->sets)
		return -EOPNOTSUPP;
	return bpf_map_update_elem(t->fd, key, st, BPF_NOEXIST) ? -errno : 0;
}
