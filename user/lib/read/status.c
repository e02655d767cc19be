// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* status: every loaded instance, read from its pins (declared in loader.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "codec/rules_read.h"
#include "codec/lpm_set.h"
#include "capture/capture.h"
#include "codec/chain.h"
#include "read/status.h"
#include "read/states.h"
#include "base/memory.h"
#include "base/objinfo.h"
#include "codec/specialise.h"
#include "read/fleet.h"

static void status_one(const char *name, const struct xrl_ifid *id, __u64 here, xrl_mend_fn *mend,
		       struct xrl_status *st)
{
	struct bpf_link_info info;
	struct bpf_prog_info prog;
	struct xrl_ruleset set = {};
	struct xrl_states states;
	struct xrl_maps m;
	size_t i;

	memset(st, 0, sizeof(*st));
	st->id = *id;
	st->here = id->netns == here;
	/* Its name now (it follows renames), when its namespace is this one and it still exists. */
	if (st->here && !if_indextoname(id->ifindex, st->iface))
		st->iface[0] = '\0';
	st->gone = st->here && !st->iface[0];
	snprintf(st->dir, sizeof(st->dir), "%s/%s", XRL_PIN_ROOT, name);
	if ((mend && mend(st->dir, st->iface[0] ? st->iface : name, st->err, sizeof(st->err))) ||
	    xrl_maps_open_dir(st->dir, st->iface[0] ? st->iface : name, &m, st->err, sizeof(st->err))) {
		/* The advice names an interface; an instance whose interface is not here has none to name. */
		if (!st->iface[0])
			snprintf(st->err, sizeof(st->err),
				 "cannot be read, and its interface is gone or in another network namespace: the next "
				 "'xdp-ratelimit load' removes what is left of a gone one");
		return;
	}
	xrl_maps_lock_shared(&m); /* a consistent reading; failing that, one that may be in flux */
	xrl_ctl_read(&m, &st->ctl);
	if (!xrl_pin_info(m.dir, "link", &info, sizeof(info))) {
		st->prog_id = info.prog_id;
		st->attached = info.xdp.ifindex != 0;
		st->gone |= !st->attached; /* the kernel detaches a deleted device's link */
	}
	/* The instructions the verifier walked to load it (the kernel keeps the count); 0: unknown. */
	xrl_prog_info(st->prog_id, &prog);
	st->verified_insns = prog.verified_insns;
	st->features_ok = !xrl_features_running(m.dir, &st->features, NULL);
	if (!xrl_rules_read(&m, &set)) {
		st->rules = set.n;
		st->prefixes = xrl_ruleset_prefixes(&set);
	}
	st->max_prefixes = xrl_maps_max_prefixes(&m);
	st->then_id = xrl_chain_get(m.then, st->then_name, sizeof(st->then_name));
	xrl_capture_running(m.dir, &st->capture_pid, &st->capture_ns);
	for (i = 0; i < set.n && st->nglobal < XRL_STATUS_GLOBALS; i++) {
		struct xrl_status_global *g = &st->global[st->nglobal];

		if (!(set.v[i].r.flags & XRL_F_GLOBAL))
			continue;
		g->spec = set.v[i];
		g->synced = !xrl_fleet_read(&m, &set.v[i], &g->f);
		st->nglobal++;
	}
	xrl_ruleset_free(&set);
	states = xrl_states_of(&m);
	st->keys = xrl_states_count(&states);
	st->state_memlock = xrl_fd_memlock(m.state);
	st->sketch_memlock = xrl_fd_memlock(m.sketch);
	st->memlock = xrl_maps_memlock(&m) + xrl_capture_memlock(m.dir);
	xrl_maps_close(&m);
}

int xrl_status_list(struct xrl_status **out, size_t *n, xrl_mend_fn *mend)
{
	struct xrl_status *v = NULL, *tmp;
	struct xrl_ifid id;
	struct dirent *e;
	__u64 here = 0;
	bool busy;
	int root;
	DIR *d;

	*out = NULL;
	*n = 0;
	xrl_netns_cookie(&here);
	d = opendir(XRL_PIN_ROOT);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	/*
	 * Loads and unloads hold the pin root (lock_root) while they make or
	 * remove a folder: read shared, and if one is under way, say so of a
	 * folder that cannot be read yet rather than call it broken. Not waited
	 * for: a stopped load must not hang status.
	 */
	root = dirfd(d);
	busy = flock(root, LOCK_SH | LOCK_NB) != 0;
	while ((e = readdir(d))) {
		if (xrl_ifid_parse(e->d_name, &id))
			continue;
		tmp = realloc(v, (*n + 1) * sizeof(*v));
		if (!tmp) {
			closedir(d);
			free(v);
			return -ENOMEM;
		}
		v = tmp;
		status_one(e->d_name, &id, here, mend, &v[*n]);
		v[*n].loading = busy && v[*n].err[0];
		(*n)++;
	}
	if (!busy)
		flock(root, LOCK_UN);
	closedir(d);
	*out = v;
	return 0;
}
