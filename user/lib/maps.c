// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "maps.h"
#include "err.h"

int xrl_pin_dir(const char *iface, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", XRL_PIN_ROOT, iface);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int xrl_check_env(char *err, size_t len)
{
	struct statfs st;

	if (geteuid() != 0)
		return xrl_fail(
			-EPERM, err, len,
			"permission denied: xdp-ratelimit needs root (CAP_BPF and CAP_NET_ADMIN); run it with sudo");
	if (statfs("/sys/fs/bpf", &st) || st.f_type != BPF_FS_MAGIC)
		return xrl_fail(-ENOENT, err, len,
				"bpffs is not mounted at /sys/fs/bpf: mount it with 'mount -t bpf bpf /sys/fs/bpf'");
	return 0;
}

struct map_want {
	const char *name;
	size_t off;
	__u32 key_size, value_size;
};

static const struct map_want wanted[] = {
	{ XRL_MAP_PORT_IDX, offsetof(struct xrl_maps, port_idx), sizeof(__u32), sizeof(__u32) },
	{ XRL_MAP_PORT_RULES, offsetof(struct xrl_maps, port_rules), sizeof(__u32), sizeof(struct xrl_port_rule) },
	{ XRL_MAP_PREFIXES, offsetof(struct xrl_maps, prefixes), sizeof(struct xrl_prefix_key),
	  sizeof(struct xrl_rule) },
	{ XRL_MAP_STATE, offsetof(struct xrl_maps, state), sizeof(struct xrl_key), sizeof(struct xrl_state) },
	{ XRL_MAP_RULE_STATS, offsetof(struct xrl_maps, rule_stats), sizeof(__u32), sizeof(struct xrl_rule_stats) },
	{ XRL_MAP_COUNTERS, offsetof(struct xrl_maps, counters), sizeof(__u32), sizeof(struct xrl_counters) },
	{ XRL_MAP_CTL, offsetof(struct xrl_maps, ctl), sizeof(__u32), sizeof(struct xrl_ctl) },
	{ XRL_MAP_LATCHES, offsetof(struct xrl_maps, latches), sizeof(__u32), sizeof(struct xrl_latch) },
	{ XRL_MAP_SCRATCH, offsetof(struct xrl_maps, scratch), sizeof(__u32), 8 * XRL_MAX_BUCKETS },
};

static void init_fds(struct xrl_maps *m)
{
	size_t i;

	for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		*(int *)((char *)m + wanted[i].off) = -1;
	m->lock = -1;
}

int xrl_maps_open(const char *iface, struct xrl_maps *m, char *err, size_t len)
{
	struct xrl_ctl ctl;
	size_t i;
	int ret;

	memset(m, 0, sizeof(*m));
	init_fds(m);
	ret = xrl_check_env(err, len);
	if (ret)
		return ret;
	if (xrl_pin_dir(iface, m->dir, sizeof(m->dir)))
		return xrl_fail(-ENAMETOOLONG, err, len, "interface name '%s' is too long", iface);
	if (access(m->dir, F_OK))
		return xrl_fail(-ENOENT, err, len,
				"xdp-ratelimit is not loaded on %s: run 'xdp-ratelimit load %s' first", iface, iface);
	m->ncpus = libbpf_num_possible_cpus();
	if (m->ncpus <= 0)
		return xrl_fail(-EIO, err, len, "cannot count the possible CPUs: is /sys mounted?");

	for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		struct bpf_map_info info = {};
		__u32 ilen = sizeof(info);
		char path[PATH_MAX + 32];
		int fd;

		snprintf(path, sizeof(path), "%s/%s", m->dir, wanted[i].name);
		fd = bpf_obj_get(path);
		if (fd < 0) {
			ret = -errno;
			xrl_maps_close(m);
			if (ret == -ENOENT)
				return xrl_fail(
					ret, err, len,
					"%s is missing: the maps under %s are incomplete or from another version; run 'xdp-ratelimit unload %s' and load again",
					path, m->dir, iface);
			return xrl_fail(ret, err, len, "cannot open %s: %s", path, strerror(-ret));
		}
		*(int *)((char *)m + wanted[i].off) = fd;
		if (bpf_obj_get_info_by_fd(fd, &info, &ilen) || info.key_size != wanted[i].key_size ||
		    info.value_size != wanted[i].value_size) {
			xrl_maps_close(m);
			return xrl_fail(
				-EPROTO, err, len,
				"%s was made by another version of xdp-ratelimit (its layout differs from this one's); run 'xdp-ratelimit unload %s' and load again",
				path, iface);
		}
	}
	ret = xrl_ctl_read(m, &ctl);
	if (ret || ctl.layout != XRL_LAYOUT_VERSION) {
		xrl_maps_close(m);
		return xrl_fail(
			-EPROTO, err, len,
			"the maps under %s have layout %u, this xdp-ratelimit reads layout %u; run 'xdp-ratelimit unload %s' and load again",
			m->dir, ret ? 0 : ctl.layout, XRL_LAYOUT_VERSION, iface);
	}
	return 0;
}

void xrl_maps_close(struct xrl_maps *m)
{
	size_t i;

	for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		int *fd = (int *)((char *)m + wanted[i].off);

		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
	if (m->lock >= 0)
		close(m->lock);
	m->lock = -1;
}

int xrl_maps_lock(struct xrl_maps *m)
{
	if (m->lock < 0) {
		m->lock = open(m->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (m->lock < 0)
			return -errno;
	}
	return flock(m->lock, LOCK_EX) ? -errno : 0;
}

int xrl_ctl_read(const struct xrl_maps *m, struct xrl_ctl *ctl)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(m->ctl, &zero, ctl) ? -errno : 0;
}

int xrl_ctl_write(const struct xrl_maps *m, const struct xrl_ctl *ctl)
{
	__u32 zero = 0;

	return bpf_map_update_elem(m->ctl, &zero, ctl, BPF_ANY) ? -errno : 0;
}

size_t xrl_percpu_stride(size_t sz)
{
	return (sz + 7) & ~(size_t)7;
}

void *xrl_percpu_alloc(int ncpus, size_t sz)
{
	return calloc((size_t)ncpus, xrl_percpu_stride(sz));
}
