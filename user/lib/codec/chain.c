// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "codec/chain.h"
#include "base/maps.h"
#include "base/objinfo.h"
#include "base/err.h"

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

/*
 * The walk of what a program can tail-call into, to find whether it comes
 * back to the limiter. A tail call goes through a program array the program
 * uses, so the walk follows every slot of every such map (another limiter's
 * xrl_then is one), with bounds: an answer it cannot reach refuses the chain.
 */
#define WALK_PROGS 256	 /* programs visited */
#define WALK_SLOTS 65536 /* program-array slots read */
#define WALK_MAPS 64	 /* maps a program can use (the kernel's MAX_USED_MAPS) */

struct walk {
	__u32 self, then_map; /* the limiter: its program, its xrl_then */
	__u32 seen[WALK_PROGS], nseen, slots;
	__u32 path[WALK_PROGS], depth; /* the programs from the one to chain to where the walk is */
};

static int walk_prog(struct walk *w, __u32 id);

/* 1: a program in a slot of the array map_id leads back; 0: none does; -ELOOP: past the bounds. */
static int walk_array(struct walk *w, __u32 map_id)
{
	struct bpf_map_info info;
	__u32 i, prog;
	int fd = bpf_map_get_fd_by_id(map_id), ret = 0;

	if (fd < 0)
		return 0; /* gone since the program was read: nothing to call there */
	if (xrl_obj_info(fd, &info, sizeof(info)) || info.type != BPF_MAP_TYPE_PROG_ARRAY) {
		close(fd);
		return 0;
	}
	for (i = 0; i < info.max_entries && !ret; i++) {
		if (++w->slots > WALK_SLOTS)
			ret = -ELOOP;
		else if (!bpf_map_lookup_elem(fd, &i, &prog))
			ret = walk_prog(w, prog);
	}
	close(fd);
	return ret;
}

static int walk_prog(struct walk *w, __u32 id)
{
	__u32 maps[WALK_MAPS], i;
	struct bpf_prog_info info;
	__u32 ilen = sizeof(info);
	int fd, ret = 0;

	for (i = 0; i < w->nseen; i++)
		if (w->seen[i] == id)
			return 0;
	if (w->nseen == WALK_PROGS)
		return -ELOOP;
	w->seen[w->nseen++] = id;
	w->path[w->depth++] = id;
	if (id == w->self)
		return 1;
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0) {
		w->depth--;
		return 0; /* unloaded since its slot was read */
	}
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = WALK_MAPS;
	info.map_ids = (__u64)(unsigned long)maps;
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen))
		info.nr_map_ids = 0;
	close(fd);
	/* A program on this limiter's xrl_then is this limiter, an older build of it that still runs somewhere. */
	for (i = 0; i < info.nr_map_ids && i < WALK_MAPS && !ret; i++)
		ret = maps[i] == w->then_map ? 1 : walk_array(w, maps[i]);
	if (!ret)
		w->depth--;
	return ret;
}

int xrl_chain_check(int then_fd, int fd, const char *what, __u32 self, char *err, size_t len)
{
	struct bpf_prog_info pinfo;
	struct bpf_map_info minfo;
	struct walk *w;
	char via[256] = "";
	size_t at = 0;
	__u32 i;
	int ret;

	ret = xrl_obj_info(fd, &pinfo, sizeof(pinfo));
	if (ret)
		return xrl_fail(ret, err, len, "cannot read program %s: %s", what, strerror(-ret));
	if (self && pinfo.id == self)
		return xrl_fail(-ELOOP, err, len, "%s is the limiter's own program: it cannot follow itself", what);
	w = calloc(1, sizeof(*w));
	if (!w)
		return xrl_fail(-ENOMEM, err, len, "out of memory");
	w->self = self ?: ~0U; /* no program id is ~0: with no program of its own, only the map tells */
	w->then_map = xrl_obj_info(then_fd, &minfo, sizeof(minfo)) ? ~0U : minfo.id;
	ret = walk_prog(w, pinfo.id);
	if (ret == -ELOOP)
		xrl_fail(
			-ELOOP, err, len,
			"cannot tell whether program %u ('%s') leads back to this limiter: what it can tail-call into holds more than %u programs or %u program-array slots; chain a program that calls fewer",
			pinfo.id, pinfo.name, WALK_PROGS, WALK_SLOTS);
	if (ret == 1) {
		for (i = 1; i < w->depth && w->path[i] != w->self && at < sizeof(via); i++) {
			struct bpf_prog_info hop;

			xrl_prog_info(w->path[i], &hop);
			at += (size_t)snprintf(via + at, sizeof(via) - at, " -> %u ('%s')", w->path[i], hop.name);
		}
		ret = xrl_fail(
			-ELOOP, err, len,
			"program %u ('%s') leads back to this limiter (%u ('%s')%s -> this limiter): every frame would go round, judged again at each pass until the kernel's tail-call limit; chain a program that does not call this limiter, or first remove the chain that comes back ('xdp-ratelimit chain IFACE none' on the instance it goes through)",
			pinfo.id, pinfo.name, pinfo.id, pinfo.name, via);
	}
	free(w);
	return ret;
}

int xrl_chain_set(int then_fd, const char *what, __u32 self, char *err, size_t len)
{
	struct bpf_prog_info info;
	__u32 zero = 0;
	int fd, ret;

	if (!what || !strcmp(what, "none")) {
		if (bpf_map_delete_elem(then_fd, &zero) && errno != ENOENT)
			return xrl_fail(-errno, err, len, "cannot remove the next program: %s", strerror(errno));
		return 0;
	}
	fd = xrl_chain_open(what, err, len);
	if (fd < 0)
		return fd;
	xrl_obj_info(fd, &info, sizeof(info));
	ret = xrl_chain_check(then_fd, fd, what, self, err, len);
	if (!ret && bpf_map_update_elem(then_fd, &zero, &fd, BPF_ANY))
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
