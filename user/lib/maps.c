// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "maps.h"
#include "xrl_capture.h"
#include "objinfo.h"
#include "err.h"

int xrl_iface_check(const char *iface, char *err, size_t len)
{
	const char *c;

	if (!iface || !iface[0])
		return xrl_fail(-EINVAL, err, len, "an interface name cannot be empty: see 'ip link' for the names");
	if (!strcmp(iface, ".") || !strcmp(iface, ".."))
		return xrl_fail(-EINVAL, err, len, "'%s' is not an interface name: 'ip link' lists them", iface);
	for (c = iface; *c; c++)
		if (*c == '/' || *c == ':' || isspace((unsigned char)*c) || iscntrl((unsigned char)*c))
			return xrl_fail(
				-EINVAL, err, len,
				"'%s' is not an interface name: names have no '/', ':', spaces or control characters ('ip link' lists them)",
				iface);
	if (strnlen(iface, IF_NAMESIZE) >= IF_NAMESIZE)
		return xrl_fail(
			-EINVAL, err, len,
			"'%.64s%s' is not an interface name: names are at most %d characters ('ip link' lists them)",
			iface, strlen(iface) > 64 ? "..." : "", IF_NAMESIZE - 1);
	return 0;
}

int xrl_netns_cookie(__u64 *cookie)
{
	socklen_t sl = sizeof(*cookie);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &sl))
		ret = -errno;
	close(fd);
	return ret;
}

void xrl_ifid_name(const struct xrl_ifid *id, char *buf, size_t len)
{
	snprintf(buf, len, "net%llu-if%u", (unsigned long long)id->netns, id->ifindex);
}

int xrl_ifid_parse(const char *name, struct xrl_ifid *id)
{
	unsigned long long ns;
	unsigned int ifindex;
	char check[64];
	int n = 0;

	if (sscanf(name, "net%llu-if%u%n", &ns, &ifindex, &n) != 2 || name[n] || !ifindex)
		return -EINVAL;
	id->netns = ns;
	id->ifindex = ifindex;
	xrl_ifid_name(id, check, sizeof(check));
	return strcmp(check, name) ? -EINVAL : 0; /* one spelling only: no leading zeros or signs */
}

int xrl_pin_dir(const char *iface, char *buf, size_t len, struct xrl_ifid *id, char *err, size_t errlen)
{
	struct xrl_ifid tmp;
	char name[64];
	int ret = xrl_iface_check(iface, err, errlen);

	if (ret)
		return ret;
	if (!id)
		id = &tmp;
	id->ifindex = if_nametoindex(iface);
	if (!id->ifindex)
		return xrl_fail(-ENODEV, err, errlen,
				"no such interface '%s' in this network namespace: see 'ip link' for the names", iface);
	ret = xrl_netns_cookie(&id->netns);
	if (ret)
		return xrl_fail(ret, err, errlen, "cannot tell this network namespace (SO_NETNS_COOKIE): %s",
				strerror(-ret));
	xrl_ifid_name(id, name, sizeof(name));
	snprintf(buf, len, "%s/%s", XRL_PIN_ROOT, name);
	return 0;
}

static bool is_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

/*
 * The host's process to compare with: PID 1, or kthreadd (PID 2, always in
 * the initial mount namespace) where PID 1 is hidden from us.
 */
static const char *host_proc(void)
{
	struct stat st;

	return !stat("/proc/1/ns/mnt", &st) ? "/proc/1" : !stat("/proc/2/ns/mnt", &st) ? "/proc/2" : NULL;
}

/* Whether this process shares the host's mount namespace (not so under 'ip netns exec'). */
static bool host_mounts(void)
{
	const char *host = host_proc();
	char path[32];
	struct stat self, init;

	if (!host)
		return true; /* cannot tell: take it as the host's */
	snprintf(path, sizeof(path), "%s/ns/mnt", host);
	return stat("/proc/self/ns/mnt", &self) || stat(path, &init) ||
	       (self.st_ino == init.st_ino && self.st_dev == init.st_dev);
}

/* Whether the bpffs at XRL_BPFFS is the one the host sees there. */
static bool host_bpffs(void)
{
	const char *host = host_proc();
	char path[64];
	struct stat here, there;

	if (!host)
		return true;
	snprintf(path, sizeof(path), "%s/root%s", host, XRL_BPFFS);
	return !stat(XRL_BPFFS, &here) && !stat(path, &there) && here.st_dev == there.st_dev;
}

#define XRL_NSENTER_HINT                                                                                    \
	"pins made here would vanish when the command exits, and the program would detach with them. "      \
	"'ip netns exec' gives a command a mount namespace of its own: run 'nsenter --net=/run/netns/NAME " \
	"xdp-ratelimit ...' instead, which enters the network namespace only"

/* The effective capabilities, from /proc/self/status; 0 when it cannot be read. */
static unsigned long long cap_eff(void)
{
	unsigned long long caps = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	if (f)
		fclose(f);
	return caps;
}

#define CAP_BIT(n) (1ULL << (n))

int xrl_check_env(char *err, size_t len)
{
	/* CAP_NET_ADMIN 12, CAP_DAC_OVERRIDE 1, CAP_BPF 39: the pins are root's, mode 0600, in a 0700 folder. */
	unsigned long long caps = geteuid() ? cap_eff() : ~0ULL;
	bool bpf = caps & CAP_BIT(39), net = caps & CAP_BIT(12), dac = caps & CAP_BIT(1);

	if (!bpf || !net)
		return xrl_fail(
			-EPERM, err, len,
			"permission denied: xdp-ratelimit needs root, or CAP_BPF and CAP_NET_ADMIN (this process lacks %s%s%s); run it with sudo",
			bpf ? "" : "CAP_BPF", !bpf && !net ? " and " : "", net ? "" : "CAP_NET_ADMIN");
	if (!dac)
		return xrl_fail(
			-EPERM, err, len,
			"permission denied: CAP_BPF and CAP_NET_ADMIN are not enough here: the pins under %s are root's alone (mode 0600 in 0700 folders), so reaching them as uid %u also needs CAP_DAC_OVERRIDE; run it as root (sudo)",
			XRL_PIN_ROOT, (unsigned int)geteuid());
	if (!host_mounts()) {
		/* Pins in a bpffs the host does not see last only as long as this mount namespace. */
		if (!is_bpffs(XRL_BPFFS))
			return xrl_fail(-ENOENT, err, len, "there is no bpffs at %s in this mount namespace: %s",
					XRL_BPFFS, XRL_NSENTER_HINT);
		if (!host_bpffs())
			return xrl_fail(-EXDEV, err, len, "the bpffs at %s here is not the host's: %s", XRL_BPFFS,
					XRL_NSENTER_HINT);
		return 0;
	}
	/* As bpftool does: the host's bpffs, mounted where everyone looks for it. */
	if (!is_bpffs(XRL_BPFFS) && mount("bpf", XRL_BPFFS, "bpf", 0, "mode=0700"))
		return xrl_fail(
			-errno, err, len,
			"bpffs is not mounted at %s and mounting it failed: %s; mount it with 'mount -t bpf bpf %s'",
			XRL_BPFFS, strerror(errno), XRL_BPFFS);
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
	{ XRL_MAP_PROTO_RULES, offsetof(struct xrl_maps, proto_rules), sizeof(__u32), sizeof(struct xrl_proto_rule) },
	{ XRL_MAP_LPM_RULES, offsetof(struct xrl_maps, lpm_rules), sizeof(__u32), sizeof(struct xrl_lpm_rule) },
	{ XRL_MAP_LPM_DIR, offsetof(struct xrl_maps, lpm_dir), sizeof(__u32), sizeof(__u64) },
	{ XRL_MAP_LPM_RANGES, offsetof(struct xrl_maps, lpm_ranges), sizeof(__u32), sizeof(__u64) },
	{ XRL_MAP_SETS, offsetof(struct xrl_maps, sets), sizeof(__u32), sizeof(struct xrl_set) },
	{ XRL_MAP_SET_ITEMS, offsetof(struct xrl_maps, set_items), sizeof(__u32), sizeof(__u64) },
	{ XRL_MAP_DSTS, offsetof(struct xrl_maps, dsts), sizeof(struct xrl_dst_key), sizeof(struct xrl_rule) },
	{ XRL_MAP_STATE, offsetof(struct xrl_maps, state), sizeof(struct xrl_key), sizeof(struct xrl_state) },
	{ XRL_MAP_RULE_STATS, offsetof(struct xrl_maps, rule_stats), sizeof(__u32), sizeof(struct xrl_rule_stats) },
	{ XRL_MAP_COUNTERS, offsetof(struct xrl_maps, counters), sizeof(__u32), sizeof(struct xrl_counters) },
	{ XRL_MAP_CTL, offsetof(struct xrl_maps, ctl), sizeof(__u32), sizeof(struct xrl_ctl) },
	{ XRL_MAP_LATCHES, offsetof(struct xrl_maps, latches), sizeof(__u32), sizeof(struct xrl_latch) },
	{ XRL_MAP_SCRATCH, offsetof(struct xrl_maps, scratch), sizeof(__u32), 8 * XRL_MAX_CELLS },
	{ XRL_MAP_SKETCH, offsetof(struct xrl_maps, sketch), sizeof(__u32), sizeof(struct xrl_sketch_cell) },
	{ XRL_MAP_FLEET, offsetof(struct xrl_maps, fleet), sizeof(__u32), sizeof(struct xrl_fleet) },
	{ XRL_MAP_THEN, offsetof(struct xrl_maps, then), sizeof(__u32), sizeof(__u32) },
};

/*
 * What xrl_load pins besides the maps; and maps of earlier builds, which a
 * replace removes: the prefix rules' trie of the builds before sets, and
 * the judgements' slots of the builds before the pipeline (xrl_eval).
 */
static const char *const other_pins[] = { "prog", "link", "xrl_prefixes", XRL_MAP_EVAL_OLD, XRL_PIN_JOURNAL };

static const char *const cap_pins[] = XRL_CAP_PINS;

bool xrl_capture_pin(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(cap_pins) / sizeof(cap_pins[0]); i++)
		if (!strcmp(name, cap_pins[i]))
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

int xrl_pins_remove(const char *dir, char *err, size_t len)
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
		if (!xrl_pin_is_ours(e->d_name) || lstat(path, &st) || !S_ISREG(st.st_mode)) {
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
			if (xrl_pin_is_ours(e->d_name)) {
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
	if (!size_of)
		return w->value_size;
	for (c = 3; !m->cells && c <= XRL_MAX_CELLS; c++)
		if (size_of(c) == have)
			m->cells = c;
	return m->cells ? size_of(m->cells) : w->value_size;
}

/*
 * The layout the control map records, before any other map is opened: what
 * to do about another version's maps depends on whose they are. Notes in m
 * how the running program places the latches.
 */
static int check_layout(const char *dir, const char *iface, struct xrl_maps *m, char *err, size_t len)
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
	else if (ctl.layout == XRL_LAYOUT_VERSION - 1)
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
	m->latches_v0 = !ctl.latch_slots;
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

	ret = check_layout(m->dir, iface, m, err, len);
	if (ret)
		return ret;
	for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		struct bpf_map_info info;
		char path[PATH_MAX + 32];
		int fd;

		snprintf(path, sizeof(path), "%s/%s", m->dir, wanted[i].name);
		fd = xrl_pin_open(m->dir, wanted[i].name);
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
		    info.value_size != ring_value_size(&wanted[i], m, info.value_size)) {
			xrl_maps_close(m);
			return xrl_fail(
				-EPROTO, err, len,
				"%s was made by another version of xdp-ratelimit (its layout differs from this one's); run 'xdp-ratelimit unload %s' and load again",
				path, iface);
		}
		if (!strcmp(wanted[i].name, XRL_MAP_RULE_STATS))
			m->rule_ids = info.max_entries;
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
