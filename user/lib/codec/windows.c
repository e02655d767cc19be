// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Rules of several windows in xrl_windows (declared in windows.h). */
#include <errno.h>
#include <bpf/bpf.h>
#include "codec/windows.h"

__u32 xrl_ruleset_slots(const struct xrl_ruleset *set)
{
	__u32 n = 0;
	size_t i;

	for (i = 0; set && i < set->n; i++)
		n += 1 + set->v[i].nw;
	return n;
}

bool xrl_ruleset_windows(const struct xrl_ruleset *set)
{
	size_t i;

	for (i = 0; set && i < set->n; i++)
		if (set->v[i].nw)
			return true;
	return false;
}

void xrl_windows_link(struct xrl_spec *s, __u16 flags)
{
	int k;

	bool bytes = false;

	s->r.next = s->nw ? (__u16)(s->w[0].id + 1) : 0;
	for (k = 0; k < s->nw; k++) {
		s->w[k].flags =
			(__u16)((flags & ~(XRL_F_NO_PKT_RATE | XRL_F_NO_LEASE)) | (s->w[k].flags & XRL_F_NO_PKT_RATE));
		s->w[k].next = k + 1 < s->nw ? (__u16)(s->w[k + 1].id + 1) : 0;
		bytes |= s->w[k].byte_threshold != 0;
	}
	/* A lease is taken in every window of the rule, and a byte window takes none (bpf/judge.h). */
	if (bytes)
		s->r.flags |= XRL_F_NO_LEASE;
	else
		s->r.flags &= (__u16)~XRL_F_NO_LEASE;
}

int xrl_windows_write(int fd, const struct xrl_ruleset *set)
{
	size_t i;
	int k;

	for (i = 0; i < set->n; i++)
		for (k = 0; k < set->v[i].nw; k++)
			if (bpf_map_update_elem(fd, &set->v[i].w[k].id, &set->v[i].w[k], BPF_ANY))
				return -errno;
	return 0;
}

int xrl_windows_read(int fd, struct xrl_ruleset *set)
{
	struct xrl_spec *s;
	__u32 ix;
	size_t i;

	for (i = 0; i < set->n; i++) {
		s = &set->v[i];
		s->r.flags &= (__u16)~XRL_F_NO_LEASE; /* the program's, not the rule as written */
		s->nw = 0;
		for (ix = s->r.next; ix && s->nw < XRL_MAX_WINDOWS - 1; ix = s->w[s->nw++].next) {
			struct xrl_rule *w = &s->w[s->nw];

			ix--;
			if (bpf_map_lookup_elem(fd, &ix, w))
				return -errno;
			/* As written: the first window's scope (the program's flags are the first's too). */
			w->flags = (__u16)((s->r.flags & ~XRL_F_NO_PKT_RATE) | (w->flags & XRL_F_NO_PKT_RATE));
		}
	}
	return 0;
}
