/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the limiter's maps cost in kernel memory, for any number of CPUs. */
#ifndef XRL_MEMORY_H
#define XRL_MEMORY_H

#include <stddef.h>
#include <linux/types.h>

#define XRL_MEM_MAPS 32

struct xrl_mem_map {
	char name[16];
	__u64 bytes;
};

struct xrl_mem {
	struct xrl_mem_map map[XRL_MEM_MAPS];
	size_t n;
	__u64 total;
	__u64 state;	/* the window states (xrl_state) */
	__u64 sketch;	/* the sketch of new sources past the cap (xrl_sketch) */
	double per_key; /* the window states' bytes over max_keys */
};

/*
 * The kernel's own accounting of the limiter's maps (what fdinfo shows as
 * memlock and 'status' adds up), computed from the maps' definitions in the
 * BPF object and the kernel's struct sizes (vmlinux BTF) with the kernel's
 * formulas (htab_map_mem_usage, array_map_mem_usage, trie_mem_usage): for a
 * machine with ncpus possible CPUs, a state table of max_keys, the range
 * structure and sets for prefixes prefixes (load --max-prefixes), dsts port
 * rules narrowed to a destination in their trie, a sketch sketch_width wide,
 * rings of cells cells (xrl_cells_for the longest window's buckets) and
 * rule_ids counter slots (xrl_rule_ids_for).
 */
int xrl_memory(int ncpus, __u32 max_keys, __u32 prefixes, __u32 dsts, __u32 sketch_width, __u32 cells, __u32 rule_ids,
	       struct xrl_mem *out, char *err, size_t len);

/* Whether width is a sketch width load takes: -EINVAL and a sentence naming the fix otherwise. */
int xrl_sketch_width_check(__u32 width, char *err, size_t len);

/* The kernel's own figure for a map: the memlock line of its fdinfo; 0 if unknown. */
__u64 xrl_fd_memlock(int fd);

#endif /* XRL_MEMORY_H */
