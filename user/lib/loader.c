// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "apply.h"
#include "loader.h"
#include "memory.h"
#include "xdp_ratelimit.skel.h"
#include "err.h"

/* Removes every pin in the folder, then the folder: what xrl_load made, whatever it got to. */
static void remove_pins(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	char path[PATH_MAX + 256];

	if (d) {
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
}

/*
 * A pin folder without an attached link is what a killed load or unload
 * leaves: nothing enforces it, so it is removed. One with a live link is
 * either ours (already loaded) or another version's.
 */
static int check_leftovers(const char *iface, const char *dir, char *err, size_t len)
{
	struct bpf_link_info info = {};
	__u32 ilen = sizeof(info);
	char path[PATH_MAX + 32];
	struct xrl_maps m;
	bool live = false;
	int fd, ret;

	snprintf(path, sizeof(path), "%s/link", dir);
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		live = !bpf_obj_get_info_by_fd(fd, &info, &ilen) && info.xdp.ifindex;
		close(fd);
	}
	if (!live) {
		remove_pins(dir);
		return 0;
	}
	ret = xrl_maps_open(iface, &m, err, len);
	if (ret == -EPROTO || ret == -ENOENT)
		return xrl_fail(
			-EEXIST, err, len,
			"%s has xdp-ratelimit maps from another version pinned under %s; run 'xdp-ratelimit unload %s' (its limits stop) and load again",
			iface, dir, iface);
	if (!ret)
		xrl_maps_close(&m);
	return xrl_fail(
		-EEXIST, err, len,
		"xdp-ratelimit is already loaded on %s; 'xdp-ratelimit apply' changes its rules, 'xdp-ratelimit unload %s' removes it",
		iface, iface);
}

/* ARPHRD_ETHER (1) in /sys/class/net/IFACE/type; tun, wireguard and the like are not. */
static bool is_ethernet(const char *iface)
{
	char path[128];
	int type = 1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/type", iface);
	f = fopen(path, "r");
	if (!f)
		return true; /* cannot tell: let the attach decide */
	if (fscanf(f, "%d", &type) != 1)
		type = 1;
	fclose(f);
	return type == 1;
}

static int check_other_xdp(const struct xrl_load_opts *o, int ifindex, char *err, size_t len)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct bpf_prog_info info = {};
	__u32 ilen = sizeof(info);
	int fd;

	if (bpf_xdp_query(ifindex, 0, &q) || !q.prog_id)
		return 0;
	fd = bpf_prog_get_fd_by_id(q.prog_id);
	if (fd >= 0) {
		bpf_obj_get_info_by_fd(fd, &info, &ilen);
		close(fd);
	}
	if (!o->force)
		return xrl_fail(
			-EEXIST, err, len,
			"%s already has an XDP program attached (id %u, name '%s'); nothing was changed: add --force to replace it",
			o->iface, q.prog_id, info.name);
	if (bpf_xdp_detach(ifindex, q.attach_mode == XDP_ATTACHED_SKB ? XDP_FLAGS_SKB_MODE : 0, NULL))
		return xrl_fail(
			-errno, err, len,
			"cannot detach XDP program %u from %s: %s (a program attached through a BPF link is detached by removing its link: see 'bpftool link')",
			q.prog_id, o->iface, strerror(errno));
	return 0;
}

int xrl_load(const struct xrl_load_opts *o, char *err, size_t len)
{
	LIBBPF_OPTS(bpf_link_create_opts, lopts);
	struct xdp_ratelimit_bpf *skel = NULL;
	struct xrl_maps m;
	struct xrl_ctl ctl = {};
	struct bpf_map *map;
	char dir[PATH_MAX], path[PATH_MAX + 32];
	int ifindex, link = -1, ret, ncpus;

	ret = xrl_check_env(err, len);
	if (ret)
		return ret;
	ifindex = (int)if_nametoindex(o->iface);
	if (!ifindex)
		return xrl_fail(-ENODEV, err, len, "no such interface '%s': see 'ip link' for the names", o->iface);
	if (xrl_pin_dir(o->iface, dir, sizeof(dir)))
		return xrl_fail(-ENAMETOOLONG, err, len, "interface name '%s' is too long", o->iface);
	if (!is_ethernet(o->iface))
		return xrl_fail(
			-EOPNOTSUPP, err, len,
			"%s is not an Ethernet device: xdp-ratelimit parses Ethernet frames and would see no rule match there",
			o->iface);
	if (!access(dir, F_OK)) {
		ret = check_leftovers(o->iface, dir, err, len);
		if (ret)
			return ret;
	}
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0)
		return xrl_fail(-EIO, err, len, "cannot count the possible CPUs (%s): is /sys mounted?",
				strerror(-ncpus));
	ret = check_other_xdp(o, ifindex, err, len);
	if (ret)
		return ret;
	if (mkdir(XRL_PIN_ROOT, 0700) && errno != EEXIST)
		return xrl_fail(-errno, err, len, "cannot create %s: %s", XRL_PIN_ROOT, strerror(errno));
	if (mkdir(dir, 0700))
		return xrl_fail(-errno, err, len, "cannot create %s: %s", dir, strerror(errno));

	skel = xdp_ratelimit_bpf__open();
	if (!skel) {
		ret = xrl_fail(-errno, err, len, "cannot open the BPF object: %s", strerror(errno));
		goto fail;
	}
	skel->rodata->xrl_cfg.clock = o->clock;
	skel->rodata->xrl_cfg.malformed_drop = o->malformed_drop;
	if (o->new_keys)
		skel->rodata->xrl_cfg.new_keys_cpu = o->new_keys / (__u32)ncpus ?: 1;
	bpf_map__set_max_entries(skel->maps.xrl_state, o->max_keys);
	bpf_object__for_each_map(map, skel->obj)
	{
		if (bpf_map__is_internal(map))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, bpf_map__name(map));
		bpf_map__set_pin_path(map, path);
	}
	ret = xdp_ratelimit_bpf__load(skel);
	if (ret) {
		ret = xrl_fail(
			ret, err, len,
			"the kernel refused the program: %s; xdp-ratelimit needs Linux 5.12 or later with BTF (run with -v for the verifier's log)",
			strerror(-ret));
		goto fail;
	}
	ctl.layout = XRL_LAYOUT_VERSION;
	ctl.next_gen = 1;
	ctl.clock = o->clock;
	ctl.malformed_drop = o->malformed_drop;
	ctl.xdp_flags = o->generic ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
	ctl.ifindex = (__u32)ifindex;
	ctl.max_keys = o->max_keys;
	ctl.new_keys = o->new_keys;
	m.ctl = bpf_map__fd(skel->maps.xrl_ctl);
	ret = xrl_ctl_write(&m, &ctl);
	if (ret) {
		ret = xrl_fail(ret, err, len, "cannot write the control map: %s", strerror(-ret));
		goto fail;
	}
	snprintf(path, sizeof(path), "%s/prog", dir);
	ret = bpf_program__pin(skel->progs.xdp_ratelimit, path);
	if (ret) {
		ret = xrl_fail(ret, err, len, "cannot pin the program at %s: %s", path, strerror(-ret));
		goto fail;
	}
	lopts.flags = ctl.xdp_flags;
	link = bpf_link_create(bpf_program__fd(skel->progs.xdp_ratelimit), ifindex, BPF_XDP, &lopts);
	if (link < 0) {
		ret = -errno;
		if (ret == -EOPNOTSUPP || ret == -EINVAL)
			xrl_fail(ret, err, len, "%s does not support XDP in %s mode: try --mode generic", o->iface,
				 o->generic ? "generic" : "native");
		else if (ret == -EBUSY || ret == -EEXIST)
			xrl_fail(ret, err, len, "%s already has an XDP program attached: add --force to replace it",
				 o->iface);
		else
			xrl_fail(ret, err, len, "cannot attach to %s: %s", o->iface, strerror(-ret));
		goto fail;
	}
	snprintf(path, sizeof(path), "%s/link", dir);
	if (bpf_obj_pin(link, path)) {
		ret = xrl_fail(-errno, err, len, "cannot pin the link at %s: %s", path, strerror(errno));
		goto fail;
	}
	close(link);
	xdp_ratelimit_bpf__destroy(skel);
	return 0;
fail:
	if (link >= 0)
		close(link);
	xdp_ratelimit_bpf__destroy(skel);
	remove_pins(dir);
	return ret;
}

int xrl_unload(const char *iface, char *err, size_t len)
{
	char dir[PATH_MAX];
	int ret = xrl_check_env(err, len);

	if (ret)
		return ret;
	if (xrl_pin_dir(iface, dir, sizeof(dir)))
		return xrl_fail(-ENAMETOOLONG, err, len, "interface name '%s' is too long", iface);
	if (access(dir, F_OK))
		return xrl_fail(
			-ENOENT, err, len,
			"xdp-ratelimit is not loaded on %s: nothing to unload ('xdp-ratelimit status' lists where it is)",
			iface);
	/* Unpinning the link drops its last reference: the program detaches. */
	remove_pins(dir);
	if (!access(dir, F_OK))
		return xrl_fail(-EBUSY, err, len, "cannot remove %s: %s", dir, strerror(errno));
	return 0;
}

static void status_one(const char *iface, struct xrl_status *st)
{
	struct bpf_link_info info = {};
	__u32 ilen = sizeof(info);
	struct xrl_ruleset set = {};
	struct xrl_key k, *prev = NULL;
	struct xrl_maps m;
	char path[PATH_MAX + 32];
	int fd;

	memset(st, 0, sizeof(*st));
	snprintf(st->iface, sizeof(st->iface), "%s", iface);
	if (xrl_maps_open(iface, &m, st->err, sizeof(st->err)))
		return;
	xrl_ctl_read(&m, &st->ctl);
	snprintf(path, sizeof(path), "%s/link", m.dir);
	fd = bpf_obj_get(path);
	if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &ilen)) {
		st->prog_id = info.prog_id;
		st->attached = info.xdp.ifindex != 0;
	}
	if (fd >= 0)
		close(fd);
	if (!xrl_rules_read(&m, &set))
		st->rules = set.n;
	xrl_ruleset_free(&set);
	while (!bpf_map_get_next_key(m.state, prev, &k)) {
		prev = &k;
		st->keys++;
	}
	st->state_memlock = xrl_fd_memlock(m.state);
	st->memlock = xrl_fd_memlock(m.port_idx) + xrl_fd_memlock(m.port_rules) + xrl_fd_memlock(m.prefixes) +
		      xrl_fd_memlock(m.state) + xrl_fd_memlock(m.rule_stats) + xrl_fd_memlock(m.counters) +
		      xrl_fd_memlock(m.ctl) + xrl_fd_memlock(m.latches) + xrl_fd_memlock(m.scratch);
	xrl_maps_close(&m);
}

int xrl_status_list(struct xrl_status **out, size_t *n)
{
	struct xrl_status *v = NULL, *tmp;
	struct dirent *e;
	DIR *d;

	*out = NULL;
	*n = 0;
	d = opendir(XRL_PIN_ROOT);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= IF_NAMESIZE)
			continue;
		tmp = realloc(v, (*n + 1) * sizeof(*v));
		if (!tmp) {
			closedir(d);
			free(v);
			return -ENOMEM;
		}
		v = tmp;
		status_one(e->d_name, &v[(*n)++]);
	}
	closedir(d);
	*out = v;
	return 0;
}
