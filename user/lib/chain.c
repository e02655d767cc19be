// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "chain.h"
#include "maps.h"
#include "objinfo.h"
#include "err.h"

/* The program type of a BPF descriptor, from /proc/self/fdinfo: -1 when it is not a program. */
static int prog_type(int fd)
{
	char path[64], line[128];
	int type = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "prog_type: %d", &type) == 1)
			break;
	if (f)
		fclose(f);
	return type;
}

int xrl_chain_open(const char *what, char *err, size_t len)
{
	const char *prefix = XRL_BPFFS "/";
	char *end;
	unsigned long id;
	size_t i;
	int fd;

	if (!*what)
		return xrl_fail(-EINVAL, err, len, "an empty program name: give a program's id or its pinned path");
	if (what[strspn(what, "0123456789")] == '\0') {
		errno = 0;
		id = strtoul(what, &end, 10);
		if (errno || !id || id > 0xffffffffUL)
			return xrl_fail(-EINVAL, err, len, "'%s' is not a program id ('bpftool prog' lists them)",
					what);
		fd = bpf_prog_get_fd_by_id((__u32)id);
		if (fd < 0)
			return xrl_fail(-errno, err, len, "no program has id %lu (%s): 'bpftool prog' lists them", id,
					strerror(errno));
	} else {
		for (i = 0; what[i]; i++)
			if ((unsigned char)what[i] < 0x20 || what[i] == 0x7f)
				return xrl_fail(-EINVAL, err, len, "a program's path holds a control character");
		if (strncmp(what, prefix, strlen(prefix)) || strstr(what, "/../") || strlen(what) >= PATH_MAX ||
		    !strcmp(what + strlen(what) - 3, "/.."))
			return xrl_fail(
				-EINVAL, err, len,
				"'%s' is neither a program id nor a pin under %s: pin the program there ('bpftool prog load OBJ %s/NAME') or give its id",
				what, XRL_BPFFS, XRL_BPFFS);
		fd = bpf_obj_get(what);
		if (fd < 0)
			return xrl_fail(-errno, err, len, "cannot open the pinned program %s: %s", what,
					strerror(errno));
	}
	if (prog_type(fd) != BPF_PROG_TYPE_XDP) {
		close(fd);
		return xrl_fail(-EINVAL, err, len,
				"%s is not an XDP program: only an XDP program can follow the limiter", what);
	}
	return fd;
}

int xrl_chain_set(int then_fd, const char *what, __u32 self, char *err, size_t len)
{
	struct bpf_prog_info info;
	__u32 zero = 0;
	int fd, ret = 0;

	if (!what || !strcmp(what, "none")) {
		if (bpf_map_delete_elem(then_fd, &zero) && errno != ENOENT)
			return xrl_fail(-errno, err, len, "cannot remove the next program: %s", strerror(errno));
		return 0;
	}
	fd = xrl_chain_open(what, err, len);
	if (fd < 0)
		return fd;
	if (!xrl_obj_info(fd, &info, sizeof(info)) && self && info.id == self)
		ret = xrl_fail(-ELOOP, err, len, "%s is the limiter's own program: it cannot follow itself", what);
	else if (bpf_map_update_elem(then_fd, &zero, &fd, BPF_ANY))
		ret = xrl_fail(
			-errno, err, len,
			"the kernel refused program %u ('%s') after the limiter: %s (a program called from another must be of the same kind: XDP, both or neither made for multi-buffer frames)",
			info.id, info.name, strerror(errno));
	close(fd);
	return ret;
}

__u32 xrl_chain_get(int then_fd, char *name, size_t len)
{
	struct bpf_prog_info info;
	__u32 zero = 0, id = 0;

	if (name && len)
		name[0] = '\0';
	if (then_fd < 0 || bpf_map_lookup_elem(then_fd, &zero, &id))
		return 0;
	if (name && !xrl_prog_info(id, &info))
		snprintf(name, len, "%s", info.name);
	return id;
}
