// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/maps.h"
#include "xrl_capture.h"
#include "xrl_match.h"
#include "base/objinfo.h"
#include "base/err.h"
#include "base/memory.h"

struct map_want {
	const char *name;
	size_t off;
	__u32 key_size, value_size; /* value_size 0: sized at load */
	bool optional;		    /* an instance may lack it: its fd is -1 then */
};

static const struct map_want wanted[] = {
	{ XRL_MAP_PORT_IDX, offsetof(struct xrl_maps, port_idx), sizeof(__u32), sizeof(__u32), false },
	{ XRL_MAP_PORT_RULES, offsetof(struct xrl_maps, port_rules), sizeof(__u32), sizeof(struct xrl_port_rule),
	  false },
	{ XRL_MAP_PROTO_RULES, offsetof(struct xrl_maps, proto_rules), sizeof(__u32), sizeof(struct xrl_proto_rule),
	  false },
	{ XRL_MAP_LPM_RULES, offsetof(struct xrl_maps, lpm_rules), sizeof(__u32), sizeof(struct xrl_lpm_rule), false },
	{ XRL_MAP_LPM_DIR, offsetof(struct xrl_maps, lpm_dir), sizeof(__u32), sizeof(__u64), false },
	{ XRL_MAP_LPM_RANGES, offsetof(struct xrl_maps, lpm_ranges), sizeof(__u32), sizeof(__u64), false },
	{ XRL_MAP_SETS, offsetof(struct xrl_maps, sets), sizeof(__u32), sizeof(struct xrl_set), false },
	{ XRL_MAP_SET_ITEMS, offsetof(struct xrl_maps, set_items), sizeof(__u32), sizeof(__u64), false },
	{ XRL_MAP_DSTS, offsetof(struct xrl_maps, dsts), sizeof(struct xrl_dst_key), sizeof(struct xrl_rule), false },
	{ XRL_MAP_STATE, offsetof(struct xrl_maps, state), sizeof(struct xrl_key), sizeof(struct xrl_state), false },
	{ XRL_MAP_RULE_STATS, offsetof(struct xrl_maps, rule_stats), sizeof(__u32), sizeof(struct xrl_rule_stats),
	  false },
	{ XRL_MAP_COUNTERS, offsetof(struct xrl_maps, counters), sizeof(__u32), sizeof(struct xrl_counters), false },
	{ XRL_MAP_CTL, offsetof(struct xrl_maps, ctl), sizeof(__u32), sizeof(struct xrl_ctl), false },
	{ XRL_MAP_LATCHES, offsetof(struct xrl_maps, latches), sizeof(__u32), sizeof(struct xrl_latch), false },
	{ XRL_MAP_SCRATCH, offsetof(struct xrl_maps, scratch), sizeof(__u32), sizeof(struct xrl_scratch), false },
	{ XRL_MAP_SKETCH, offsetof(struct xrl_maps, sketch), sizeof(__u32), sizeof(struct xrl_sketch_cell), false },
	{ XRL_MAP_FLEET, offsetof(struct xrl_maps, fleet), sizeof(__u32), sizeof(struct xrl_fleet), false },
	{ XRL_MAP_THEN, offsetof(struct xrl_maps, then), sizeof(__u32), sizeof(__u32), false },
	{ XRL_MAP_LBVS_CLS, offsetof(struct xrl_maps, lbvs_cls), sizeof(__u32), sizeof(__u64), true },
	{ XRL_MAP_LBVS_BITS, offsetof(struct xrl_maps, lbvs_bits), sizeof(__u32), 0, true },
	{ XRL_MAP_MATCH_CFGS, offsetof(struct xrl_maps, match_cfgs), sizeof(__u32), sizeof(struct xrl_match_cfg),
	  true },
	{ XRL_MAP_MATCH_RULES, offsetof(struct xrl_maps, match_rules), sizeof(__u32), sizeof(struct xrl_match_rule),
	  true },
	{ XRL_MAP_MATCH_SPECS, offsetof(struct xrl_maps, match_specs), sizeof(__u32), XRL_MATCH_SPEC_BYTES, true },
	{ XRL_MAP_MATCH_TMP, offsetof(struct xrl_maps, match_tmp), sizeof(__u32), sizeof(struct xrl_match_tmp), true },
	{ XRL_MAP_MATCH_SETS, offsetof(struct xrl_maps, match_sets), sizeof(__u32), sizeof(__u64), true },
	{ XRL_MAP_WINDOWS, offsetof(struct xrl_maps, windows), sizeof(__u32), sizeof(struct xrl_rule), true },
	{ XRL_MAP_PCTX, offsetof(struct xrl_maps, pctx), sizeof(__u32), 0, true },
};

/* What xrl_load and a replace pin besides the maps. */
static const char *const other_pins[] = { "prog", "link", XRL_PIN_JOURNAL };

static const char *const cap_pins[] = XRL_CAP_PINS;

bool xrl_capture_pin(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(cap_pins) / sizeof(cap_pins[0]); i++)
		if (!strcmp(name, cap_pins[i]))
			return true;
	return false;
}

bool xrl_match_pin(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		if (wanted[i].optional && !strcmp(name, wanted[i].name))
			return true;
	return false;
}

bool xrl_pin_is_ours(const char *name)
{
	size_t i, n = strlen(name), sfx = strlen(XRL_PIN_NEW);
	char base[NAME_MAX + 1];

	if (n > sfx && n <= NAME_MAX && !strcmp(name + n - sfx, XRL_PIN_NEW)) {
		snprintf(base, sizeof(base), "%.*s", (int)(n - sfx), name);
		name = base;
	}

	for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		if (!strcmp(name, wanted[i].name))
			return true;
	for (i = 0; i < sizeof(other_pins) / sizeof(other_pins[0]); i++)
		if (!strcmp(name, other_pins[i]))
			return true;
	return xrl_capture_pin(name);
}

static bool ours(const char *name, bool (*also)(const char *name))
{
	return xrl_pin_is_ours(name) || (also && also(name));
}

int xrl_pins_remove(const char *dir, bool (*also)(const char *name), char *err, size_t len)
{
	char path[PATH_MAX + 256];
	struct dirent *e;
	struct stat st;
	DIR *d;
	int ret = 0;

	if (lstat(dir, &st))
		return xrl_fail(-errno, err, len, "cannot read %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return xrl_fail(-ENOTDIR, err, len, "%s is not a folder xdp-ratelimit made: nothing was removed", dir);
	d = opendir(dir);
	if (!d)
		return xrl_fail(-errno, err, len, "cannot read %s: %s", dir, strerror(errno));
	/* Look at everything first: a stranger means the folder is not ours to empty. */
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!ours(e->d_name, also) || lstat(path, &st) || !S_ISREG(st.st_mode)) {
			ret = xrl_fail(
				-ENOTEMPTY, err, len,
				"%s holds '%s', which xdp-ratelimit did not make: nothing was removed (remove what is not yours by hand, or leave it)",
				dir, e->d_name);
			break;
		}
	}
	if (!ret) {
		rewinddir(d);
		while ((e = readdir(d)))
			if (ours(e->d_name, also)) {
				snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
				unlink(path);
			}
	}
	closedir(d);
	if (!ret && rmdir(dir))
		ret = xrl_fail(-errno, err, len, "cannot remove %s: %s", dir, strerror(errno));
	return ret;
}

static void init_fds(struct xrl_maps *m)
{
	size_t i;

	for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		*(int *)((char *)m + wanted[i].off) = -1;
	m->lock = -1;
}

/*
 * The value size a map must have: its struct's, but for the maps of rings,
 * sized at load for m->cells cells (the first one opened sets it).
 */
static __u32 ring_value_size(const struct map_want *w, struct xrl_maps *m, __u32 have)
{
	__u32 (*size_of)(__u32) = NULL, c;

	if (!strcmp(w->name, XRL_MAP_STATE))
		size_of = xrl_state_size;
	else if (!strcmp(w->name, XRL_MAP_RULE_STATS))
		size_of = xrl_rule_stats_size;
	else if (!strcmp(w->name, XRL_MAP_SCRATCH)) /* after the rings (wanted's order): their cells are known */
		return m->cells ? xrl_scratch_size(m->cells) : have;
	if (!size_of)
		return w->value_size;
	for (c = 3; !m->cells && c <= XRL_MAX_CELLS; c++)
		if (size_of(c) == have)
			m->cells = c;
	return m->cells ? size_of(m->cells) : w->value_size;
}

/*
 * The layout the control map records, before any other map is opened: what
 * to do about another version's maps depends on whose they are.
 */
static int check_layout(const char *dir, const char *iface, char *err, size_t len)
{
	struct bpf_map_info info;
	struct xrl_ctl ctl = {};
	int fd = xrl_pin_open(dir, XRL_MAP_CTL), ret = 0;

	if (fd < 0)
		return 0; /* said below, with the other maps */
	if (xrl_obj_info(fd, &info, sizeof(info)) || info.value_size != sizeof(ctl) || xrl_ctl_get(fd, &ctl))
		ret = xrl_fail(
			-EPROTO, err, len,
			"the maps under %s are from another version of xdp-ratelimit; run 'xdp-ratelimit unload %s' and load again",
			dir, iface);
	else if (!ctl.layout)
		ret = xrl_fail(
			-EPROTO, err, len,
			"the load on %s was interrupted before it finished (its maps are pinned, its settings never written): run 'xdp-ratelimit unload %s', then load again",
			iface, iface);
	else if (ctl.layout >= XRL_LAYOUT_OLDEST && ctl.layout < XRL_LAYOUT_VERSION)
		ret = xrl_fail(
			-EPROTO, err, len,
			"the maps under %s have layout %u, an older xdp-ratelimit's (this one reads layout %u): run 'xdp-ratelimit load %s' to take them over in place, rules, windows and counters included",
			dir, ctl.layout, XRL_LAYOUT_VERSION, iface);
	else if (ctl.layout > XRL_LAYOUT_VERSION)
		ret = xrl_fail(
			-EPROTO, err, len,
			"the maps under %s have layout %u, a newer xdp-ratelimit's than this one (layout %u): use that version",
			dir, ctl.layout, XRL_LAYOUT_VERSION);
	else if (ctl.layout != XRL_LAYOUT_VERSION)
		ret = xrl_fail(
			-EPROTO, err, len,
			"the maps under %s have layout %u, this xdp-ratelimit reads layout %u; run 'xdp-ratelimit unload %s' and load again",
			dir, ctl.layout, XRL_LAYOUT_VERSION, iface);
	close(fd);
	return ret;
}

int xrl_maps_open(const char *iface, struct xrl_maps *m, char *err, size_t len)
{
	char dir[PATH_MAX];
	int ret;

	memset(m, 0, sizeof(*m));
	init_fds(m);
	ret = xrl_check_env(err, len);
	if (!ret)
		ret = xrl_pin_dir(iface, dir, sizeof(dir), NULL, err, len);
	return ret ? ret : xrl_maps_open_dir(dir, iface, m, err, len);
}

int xrl_maps_open_dir(const char *dir, const char *iface, struct xrl_maps *m, char *err, size_t len)
{
	size_t i;
	int ret;

	memset(m, 0, sizeof(*m));
	init_fds(m);
	snprintf(m->dir, sizeof(m->dir), "%s", dir);
	if (faccessat(AT_FDCWD, m->dir, F_OK, AT_EACCESS)) /* the effective ids: CAP_DAC_OVERRIDE counts */
		return xrl_fail(-ENOENT, err, len,
				"xdp-ratelimit is not loaded on %s: run 'xdp-ratelimit load %s' first", iface, iface);
	m->ncpus = libbpf_num_possible_cpus();
	if (m->ncpus <= 0)
		return xrl_fail(-EIO, err, len, "cannot count the possible CPUs: is /sys mounted?");

	ret = check_layout(m->dir, iface, err, len);
	if (ret)
		return ret;
	for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		struct bpf_map_info info;
		char path[PATH_MAX + 32];
		int fd;

		snprintf(path, sizeof(path), "%s/%s", m->dir, wanted[i].name);
		fd = xrl_pin_open(m->dir, wanted[i].name);
		if (fd < 0 && errno == ENOENT && wanted[i].optional)
			continue;
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
		if (xrl_obj_info(fd, &info, sizeof(info)) || info.key_size != wanted[i].key_size ||
		    (wanted[i].value_size && info.value_size != ring_value_size(&wanted[i], m, info.value_size))) {
			xrl_maps_close(m);
			return xrl_fail(
				-EPROTO, err, len,
				"%s was made by another version of xdp-ratelimit (its layout differs from this one's); run 'xdp-ratelimit unload %s' and load again",
				path, iface);
		}
		if (!strcmp(wanted[i].name, XRL_MAP_RULE_STATS))
			m->rule_ids = info.max_entries;
		if (!strcmp(wanted[i].name, XRL_MAP_LATCHES))
			m->latch_count = info.max_entries;
		if (!strcmp(wanted[i].name, XRL_MAP_MATCH_RULES))
			m->match_slots = info.max_entries;
		if (!strcmp(wanted[i].name, XRL_MAP_LBVS_BITS)) {
			m->lbvs_stride = info.value_size / 8;
			m->lbvs_entries = info.max_entries;
		}
	}
	return 0;
}

int xrl_maps_reopen(struct xrl_maps *m, char *err, size_t len)
{
	char dir[PATH_MAX];
	int lock = m->lock, ret;

	m->lock = -1; /* not closed with the maps: the caller holds it */
	snprintf(dir, sizeof(dir), "%s", m->dir);
	xrl_maps_close(m);
	ret = xrl_maps_open_dir(dir, dir, m, err, len);
	m->lock = lock;
	return ret;
}

__u64 xrl_maps_memlock(const struct xrl_maps *m)
{
	__u64 sum = 0;
	size_t i;

	for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		int fd = *(const int *)((const char *)m + wanted[i].off);

		if (fd >= 0)
			sum += xrl_fd_memlock(fd);
	}
	return sum;
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

static int maps_lock(struct xrl_maps *m, int how)
{
	struct stat held, now;

	if (m->lock < 0) {
		m->lock = open(m->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (m->lock < 0)
			return -errno;
	}
	if (flock(m->lock, how))
		return -errno;
	/* An unload that held the lock before us has removed the folder: nothing to change any more. */
	if (fstat(m->lock, &held) || stat(m->dir, &now) || held.st_ino != now.st_ino || held.st_dev != now.st_dev) {
		flock(m->lock, LOCK_UN);
		return -ENOENT;
	}
	return 0;
}

int xrl_maps_lock(struct xrl_maps *m)
{
	return maps_lock(m, LOCK_EX);
}

int xrl_maps_lock_shared(struct xrl_maps *m)
{
	return maps_lock(m, LOCK_SH);
}

void xrl_maps_unlock(struct xrl_maps *m)
{
	if (m->lock >= 0)
		flock(m->lock, LOCK_UN);
}

int xrl_ctl_get(int fd, struct xrl_ctl *ctl)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(fd, &zero, ctl) ? -errno : 0;
}

int xrl_ctl_put(int fd, const struct xrl_ctl *ctl)
{
	__u32 zero = 0;

	return bpf_map_update_elem(fd, &zero, ctl, BPF_ANY) ? -errno : 0;
}

int xrl_ctl_read(const struct xrl_maps *m, struct xrl_ctl *ctl)
{
	return xrl_ctl_get(m->ctl, ctl);
}

int xrl_ctl_write(const struct xrl_maps *m, const struct xrl_ctl *ctl)
{
	return xrl_ctl_put(m->ctl, ctl);
}

size_t xrl_percpu_stride(size_t sz)
{
	return (sz + 7) & ~(size_t)7;
}

void *xrl_percpu_alloc(int ncpus, size_t sz)
{
	return calloc((size_t)ncpus, xrl_percpu_stride(sz));
}
