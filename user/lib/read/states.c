// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <bpf/bpf.h>
#include "read/states.h"

int xrl_state_get(const struct xrl_maps *m, const struct xrl_key *key, struct xrl_state *out)
{
	if (xrl_state_size(m->cells) > sizeof(*out))
		return -EPROTO;
	if (bpf_map_lookup_elem(m->state, key, out))
		return -errno;
	return 0;
}

int xrl_states_walk(const struct xrl_maps *m, xrl_state_fn *fn, void *ctx)
{
	struct xrl_key key, *prev = NULL;
	struct xrl_state st;
	int ret;

	if (xrl_state_size(m->cells) > sizeof(st))
		return -EPROTO;
	while (!bpf_map_get_next_key(m->state, prev, &key)) {
		prev = &key;
		/* Gone since the walk found it (evicted): the next one. */
		if (bpf_map_lookup_elem(m->state, &key, &st))
			continue;
		ret = fn(&key, &st, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

size_t xrl_states_count(const struct xrl_maps *m)
{
	struct xrl_key key, *prev = NULL;
	size_t n = 0;

	while (!bpf_map_get_next_key(m->state, prev, &key)) {
		prev = &key;
		n++;
	}
	return n;
}
