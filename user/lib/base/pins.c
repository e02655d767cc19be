// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Where an instance lives: its interface, its key, its pin folder, and what every command needs of the host. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include "base/pins.h"
#include "base/err.h"

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
