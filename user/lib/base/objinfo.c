// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "base/objinfo.h"

int xrl_obj_info(int fd, void *info, __u32 size)
{
	__u32 len = size;

	memset(info, 0, size);
	if (!bpf_obj_get_info_by_fd(fd, info, &len))
		return 0;
	memset(info, 0, size); /* whatever the kernel wrote before it failed */
	return -errno;
}

int xrl_pin_open(const char *dir, const char *name)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return bpf_obj_get(path);
}

int xrl_pin_get(const char *dir, const char *name, void *info, __u32 size)
{
	int fd = xrl_pin_open(dir, name), ret;

	memset(info, 0, size);
	if (fd < 0)
		return -errno;
	ret = xrl_obj_info(fd, info, size);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int xrl_pin_info(const char *dir, const char *name, void *info, __u32 size)
{
	int fd = xrl_pin_get(dir, name, info, size);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int xrl_prog_info(__u32 id, struct bpf_prog_info *info)
{
	int fd = bpf_prog_get_fd_by_id(id), ret;

	memset(info, 0, sizeof(*info));
	if (fd < 0)
		return -errno;
	ret = xrl_obj_info(fd, info, sizeof(*info));
	close(fd);
	return ret;
}

__u32 xrl_prog_id(int fd)
{
	struct bpf_prog_info info;

	xrl_obj_info(fd, &info, sizeof(info));
	return info.id;
}
