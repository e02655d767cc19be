// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <time.h>
#include <bpf/bpf.h>
#include "read/fleet.h"
#include "read/limit.h"

__u64 xrl_fleet_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

int xrl_fleet_lapse(struct xrl_fleet *f, __u64 threshold)
{
	if (!f->expires_ns || xrl_fleet_now() <= f->expires_ns)
		return 0;
	f->policy = f->fallback_policy;
	f->allowance = f->fallback ? f->fallback : threshold;
	return 1;
}

int xrl_fleet_read(const struct xrl_maps *m, const struct xrl_spec *s, struct xrl_fleet *f)
{
	__u32 id = s->r.id;

	if (!(s->r.flags & XRL_F_GLOBAL) || bpf_map_lookup_elem(m->fleet, &id, f) || f->gen != s->r.gen ||
	    f->policy == XRL_FLEET_NONE)
		return -ENOENT;
	xrl_fleet_lapse(f, s->r.threshold);
	return 0;
}

__u64 xrl_fleet_threshold(const struct xrl_maps *m, const struct xrl_spec *s)
{
	struct xrl_fleet f;

	/* As xrl_threshold in the program: an allowance of this gen of the rule, when it has one, till it lapses. */
	if (!(s->r.flags & XRL_F_GLOBAL) || bpf_map_lookup_elem(m->fleet, &s->r.id, &f) || f.gen != s->r.gen ||
	    !f.allowance)
		return s->r.threshold;
	xrl_fleet_lapse(&f, s->r.threshold);
	return xrl_limit(&s->r, &f);
}
