// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <bpf/bpf.h>
#include "read/states.h"

int xrl_state_get(const struct xrl_states *t, const struct xrl_key *key, struct xrl_state *out)
{
	if (xrl_state_size(t->cells) > sizeof(*out))
		return -EPROTO;
	if (bpf_map_lookup_elem(t->fd, key, out))
		return -errno;
	return 0;
}

int xrl_states_walk(const struct xrl_states *t, xrl_state_fn *fn, void *ctx)
{
	struct xrl_key key, *prev = NULL;
	struct xrl_state st;
	int ret;

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

size_t xrl_states_count(const struct xrl_states *t)
{
	struct xrl_key key, *prev = NULL;
	size_t n = 0;

	while (!bpf_map_get_next_key(t->fd, prev, &key)) {
		prev = &key;
		n++;
	}
	return n;
}

int xrl_state_put(const struct xrl_states *t, const struct xrl_key *key, const struct xrl_state *st)
{
	/* Past a smaller table's size, the LRU evicts another key: none is refused. */
	return bpf_map_update_elem(t->fd, key, st, BPF_ANY) ? -errno : 0;
}

int xrl_state_put_new(const struct xrl_states *t, const struct xrl_key *key, const struct xrl_state *st)
{
	return bpf_map_update_elem(t->fd, key, st, BPF_NOEXIST) ? -errno : 0;
}
