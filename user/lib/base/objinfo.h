/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * BPF objects opened by their pin, and what the kernel tells of a map, a
 * program or a link (struct bpf_map_info, bpf_prog_info or bpf_link_info),
 * read in one call. Those that read return 0, or -errno with *info left all
 * zero, so that a caller that can do without the answer reads 0 from any field.
 */
#ifndef XRL_OBJINFO_H
#define XRL_OBJINFO_H

#include <linux/bpf.h>

/* The object pinned as name in dir, opened: its descriptor, or -errno (in errno too, as bpf_obj_get). */
int xrl_pin_open(const char *dir, const char *name);

/* The info of the object behind fd; size: sizeof(*info). */
int xrl_obj_info(int fd, void *info, __u32 size);

/* xrl_pin_open, and the object's info: its descriptor, which the caller closes, or -errno. */
int xrl_pin_get(const char *dir, const char *name, void *info, __u32 size);
/* The same, closed again: 0 or -errno. */
int xrl_pin_info(const char *dir, const char *name, void *info, __u32 size);

/* A program's, by its id. */
int xrl_prog_info(__u32 id, struct bpf_prog_info *info);
/* A program descriptor's id; 0 when it cannot be read. */
__u32 xrl_prog_id(int fd);

#endif /* XRL_OBJINFO_H */
