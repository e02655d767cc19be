// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <net/if_arp.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "life/apply.h"
#include "codec/windows.h"
#include "codec/chain.h"
#include "life/loader.h"
#include "life/program.h"
#include "base/memory.h"
#include "base/objinfo.h"
#include "life/replace.h"
#include "codec/specialise.h"
#include "codec/match_maps.h"
#include "xdp_ratelimit.skel.h"
#include "base/err.h"
#include "layouts/retired.h"
#include "xrl_lpm.h"

/*
 * A pin folder without an attached link is what a killed load or unload
 * leaves: nothing enforces it, so it is removed (0). One with a live link is
 * an instance to replace in place (1).
 */
static int check_leftovers(const char *dir, char *err, size_t len)
{
	struct bpf_link_info info;
	bool live = !xrl_pin_info(dir, "link", &info, sizeof(info)) && info.xdp.ifindex;

	return live ? 1 : xrl_pins_remove(dir, xrl_retired_pin, err, len);
}

/*
 * ARPHRD_ETHER; tun, wireguard and the like are not. Asked of this network
 * namespace (under nsenter --net, /sys/class/net is still the host's).
 */
static bool is_ethernet(const char *iface)
{
	struct ifreq ifr = {};
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool eth = true; /* cannot tell: let the attach decide */

	if (fd < 0)
		return true;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	if (!ioctl(fd, SIOCGIFHWADDR, &ifr))
		eth = ifr.ifr_hwaddr.sa_family == ARPHRD_ETHER;
	close(fd);
	return eth;
}

/*
 * The instances whose device was deleted: the kernel detached their link
 * (its ifindex reads 0), so nothing enforces their rules and nothing can name
 * them any more. Only folders with a link pinned: a load in progress has none yet.
 */
static void sweep_gone(void)
{
	char dir[PATH_MAX], err[XRL_ERRLEN];
	struct bpf_link_info info;
	struct xrl_ifid id;
	struct dirent *e;
	DIR *d = opendir(XRL_PIN_ROOT);

	while (d && (e = readdir(d))) {
		if (xrl_ifid_parse(e->d_name, &id))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", XRL_PIN_ROOT, e->d_name);
		if (!xrl_pin_info(dir, "link", &info, sizeof(info)) && !info.xdp.ifindex)
			xrl_pins_remove(dir, xrl_retired_pin, err, sizeof(err));
	}
	if (d)
		closedir(d);
}

/* With --force, the program detached is recorded in ctl: status names it. */
static int check_other_xdp(const struct xrl_load_opts *o, int ifindex, struct xrl_ctl *ctl, char *err, size_t len)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct bpf_prog_info info;

	if (bpf_xdp_query(ifindex, 0, &q) || !q.prog_id)
		return 0;
	xrl_prog_info(q.prog_id, &info); /* its name, when it can be read */
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
	ctl->replaced_id = q.prog_id;
	memcpy(ctl->replaced_name, info.name, sizeof(ctl->replaced_name));
	ctl->replaced_name[sizeof(ctl->replaced_name) - 1] = '\0';
	return 0;
}

/*
 * Loads and unloads hold the pin root's lock: a load looks for leftovers,
 * sweeps, creates and pins as one step, so that two at once on one interface
 * cannot take each other's folder for a killed load's. Returns the locked
 * descriptor, or -errno and err.
 */
static int lock_root(char *err, size_t len)
{
	int fd;

	if (mkdir(XRL_PIN_ROOT, 0700) && errno != EEXIST)
		return xrl_fail(-errno, err, len, "cannot create %s: %s", XRL_PIN_ROOT, strerror(errno));
	fd = open(XRL_PIN_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return xrl_fail(-errno, err, len, "cannot open %s: %s", XRL_PIN_ROOT, strerror(errno));
	if (flock(fd, LOCK_EX)) {
		close(fd);
		return xrl_fail(-errno, err, len, "cannot lock %s: %s", XRL_PIN_ROOT, strerror(errno));
	}
	return fd;
}

static int load_locked(struct xrl_load_opts *o, char *err, size_t len);

/*
 * Whether --then may follow the instance pinned in dir, before the replace:
 * it is checked again once set, but a loop refused then would leave the new
 * program in place.
 */
static int then_check(const char *then, const char *dir, char *err, size_t len)
{
	struct bpf_link_info link;
	int fd, map, ret;

	map = xrl_pin_open(dir, XRL_MAP_THEN);
	if (map < 0)
		return 0;
	fd = xrl_chain_open(then, err, len);
	xrl_pin_info(dir, "link", &link, sizeof(link));
	ret = fd < 0 ? fd : xrl_chain_check(map, fd, then, link.prog_id, err, len);
	if (fd >= 0)
		close(fd);
	close(map);
	return ret;
}

/*
 * A load on a served interface: the program replaced in place, carrying what
 * the rules in force and --config's need (so that both are judged whichever
 * it reads), then --config's rules applied, which leaves it carrying theirs.
 */
static int replace_locked(struct xrl_load_opts *o, const char *dir, char *err, size_t len)
{
	struct xrl_apply_swap sw;
	struct xrl_maps m;
	int ret;

	if (o->then) {
		ret = then_check(o->then, dir, err, len);
		if (ret)
			return ret;
	}
	o->features = xrl_features_for(o->rules);
	ret = xrl_replace(o, dir, err, len);

	if (ret || (!o->rules && !o->then))
		return ret;
	ret = xrl_maps_open_dir(dir, o->iface, &m, err, len);
	if (!ret && o->rules) {
		ret = xrl_rules_apply(&m, o->rules, &sw, err, len);
		o->features = sw.after;
		o->prog_id = sw.prog_id;
		snprintf(o->features_note, sizeof(o->features_note), "%s", sw.note);
	}
	if (!ret && o->then) {
		ret = xrl_chain_set(m.then, o->then, o->prog_id, err, len);
		if (ret == -ELOOP) /* a way back made since then_check: the new program is in, the chain as it was */
			ret = -EAGAIN;
	}
	xrl_maps_close(&m);
	return ret;
}

int xrl_load(struct xrl_load_opts *o, char *err, size_t len)
{
	int ret = xrl_check_env(err, len), fd;

	if (ret)
		return ret;
	fd = lock_root(err, len);
	if (fd < 0)
		return fd;
	ret = load_locked(o, err, len);
	close(fd);
	return ret;
}

static int load_locked(struct xrl_load_opts *o, char *err, size_t len)
{
	LIBBPF_OPTS(bpf_link_create_opts, lopts);
	struct xdp_ratelimit_bpf *skel = NULL;
	struct xrl_maps m;
	struct xrl_ctl ctl = {};
	struct bpf_map *map;
	char dir[PATH_MAX], path[PATH_MAX + 32];
	int ifindex, link = -1, ret, ncpus;
	struct xrl_ifid id;
	struct utsname u;

	ret = xrl_pin_dir(o->iface, dir, sizeof(dir), &id, err, len);
	if (ret)
		return ret;
	ifindex = (int)id.ifindex;
	sweep_gone();
	if (!is_ethernet(o->iface))
		return xrl_fail(
			-EOPNOTSUPP, err, len,
			"%s is not an Ethernet device: xdp-ratelimit parses Ethernet frames and would see no rule match there",
			o->iface);
	if (!faccessat(AT_FDCWD, dir, F_OK, AT_EACCESS)) {
		ret = check_leftovers(dir, err, len);
		if (ret == 1)
			return replace_locked(o, dir, err, len);
		if (ret)
			return ret;
	}
	ret = xrl_sketch_width_check(o->sketch_width ?: XRL_SKETCH_DEFAULT_WIDTH, err, len);
	if (ret)
		return ret;
	if (!o->cells)
		o->cells = o->rules ? xrl_ruleset_cells(o->rules) : xrl_cells_for(0);
	if (!o->rule_ids)
		o->rule_ids = xrl_rule_ids_for(xrl_ruleset_slots(o->rules));
	if (o->rules && !o->match_stride) {
		struct xrl_match_built mb;

		ret = xrl_match_build(o->rules, &mb, err, len);
		if (ret)
			return ret;
		o->match_stride = xrl_match_stride_for(&mb);
		o->match_entries = xrl_match_entries_for(&mb);
		o->match_slots = xrl_match_slots_for(&mb);
		xrl_match_built_free(&mb);
	}
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0)
		return xrl_fail(-EIO, err, len, "cannot count the possible CPUs (%s): is /sys mounted?",
				strerror(-ncpus));
	ret = check_other_xdp(o, ifindex, &ctl, err, len);
	if (ret)
		return ret;
	if (mkdir(dir, 0700))
		return xrl_fail(-errno, err, len, "cannot create %s: %s", dir, strerror(errno));

	/* The program carries what its first rules need, and no more: apply swaps in another for a set needing more. */
	o->features = xrl_features_for(o->rules);
	skel = xrl_skel_open(o, err, len);
	if (!skel) {
		ret = -EINVAL;
		goto fail;
	}
	bpf_object__for_each_map(map, skel->obj)
	{
		if (bpf_map__is_internal(map))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, bpf_map__name(map));
		bpf_map__set_pin_path(map, path);
	}
	ret = xdp_ratelimit_bpf__load(skel);
	if (ret) {
		ret = xrl_load_refused(ret, uname(&u) ? "" : u.release, err, len);
		goto fail;
	}
	ctl.layout = XRL_LAYOUT_VERSION;
	ctl.next_gen = 1;
	ctl.clock = o->clock;
	ctl.malformed = o->malformed;
	ctl.xdp_flags = o->generic ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
	ctl.ifindex = (__u32)ifindex;
	ctl.max_keys = o->max_keys;
	ctl.new_keys = o->new_keys;
	ctl.sketch_width = skel->rodata->xrl_cfg.sketch_width;
	ctl.cells = (__u8)skel->rodata->xrl_cfg.cells;
	ctl.latch_slots = XRL_LATCH_SLOTS;
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
	if (o->rules) {
		ret = xrl_maps_open_dir(dir, o->iface, &m, err, len);
		if (!ret) {
			ret = xrl_rules_apply(&m, o->rules, NULL, err, len);
			xrl_maps_close(&m);
		}
		if (ret)
			goto fail;
	}
	o->prog_id = xrl_prog_id(bpf_program__fd(skel->progs.xdp_ratelimit));
	if (o->then) {
		ret = xrl_chain_set(bpf_map__fd(skel->maps.xrl_then), o->then, o->prog_id, err, len);
		if (ret)
			goto fail;
	}
	lopts.flags = ctl.xdp_flags;
	link = bpf_link_create(bpf_program__fd(skel->progs.xdp_ratelimit), ifindex, BPF_XDP, &lopts);
	if (link < 0) {
		ret = -errno;
		if (ret == -EOPNOTSUPP || ret == -EINVAL)
			xrl_fail(ret, err, len, "%s does not support XDP in %s mode: try --mode generic", o->iface,
				 o->generic ? "generic" : "native");
		else if (ret == -ERANGE)
			/* The kernel's reason goes to the extack only: ERANGE from a driver is its MTU check. */
			xrl_fail(
				ret, err, len,
				"%s refused XDP in %s mode: its MTU (%d) is too large for it (a frame must fit in one page; on a veth the peer's MTU counts too): lower it, e.g. 'ip link set %s mtu 1500', or use --mode generic",
				o->iface, o->generic ? "generic" : "native", xrl_iface_mtu(o->iface), o->iface);
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
	xrl_pins_remove(dir, xrl_retired_pin, path, sizeof(path));
	return ret;
}

int xrl_unload(const char *iface, char *err, size_t len)
{
	struct xrl_maps m = { .lock = -1 };
	int ret = xrl_check_env(err, len), root;

	if (!ret)
		ret = xrl_pin_dir(iface, m.dir, sizeof(m.dir), NULL, err, len);
	if (ret)
		return ret;
	if (faccessat(AT_FDCWD, m.dir, F_OK, AT_EACCESS))
		return xrl_fail(
			-ENOENT, err, len,
			"xdp-ratelimit is not loaded on %s: nothing to unload ('xdp-ratelimit status' lists where it is)",
			iface);
	root = lock_root(err, len);
	if (root < 0)
		return root;
	/* After any apply or rule change in progress, which then finds the folder gone. */
	ret = xrl_maps_lock(&m);
	if (ret == -ENOENT)
		ret = xrl_fail(ret, err, len, "xdp-ratelimit was unloaded from %s meanwhile: nothing to unload", iface);
	else if (ret)
		ret = xrl_fail(ret, err, len, "cannot lock %s: %s", m.dir, strerror(-ret));
	/*
	 * Unpinning the link drops its last reference, but only once bpffs frees
	 * the inode, after an RCU grace period: detach it first, so that the
	 * program is off the interface when unload returns.
	 */
	if (!ret) {
		int fd = xrl_pin_open(m.dir, "link");

		if (fd >= 0) {
			bpf_link_detach(fd);
			close(fd);
		}
		ret = xrl_pins_remove(m.dir, xrl_retired_pin, err, len);
	}
	if (m.lock >= 0)
		close(m.lock);
	close(root);
	return ret;
}
