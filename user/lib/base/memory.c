// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "base/memory.h"
#include "xrl_common.h"
#include "xrl_lpm.h"
#include "xrl_match.h"
#include "xdp_ratelimit.skel.h"
#include "base/err.h"

#define ROUND8(x) (((x) + 7ULL) & ~7ULL)
#define HASHTAB_MAP_LOCK_COUNT 8 /* kernel/bpf/hashtab.c */
#define XRL_PAGE 4096ULL
#define PAGE_UP(x) (((x) + XRL_PAGE - 1) & ~(XRL_PAGE - 1))

struct kernel_sizes {
	__u64 htab, bucket, htab_elem, array, trie_node, ringbuf_map;
	__u64 ringbuf_meta; /* the ring's pages before its data: RINGBUF_NR_META_PAGES */
};

/* The pages before a ring's data (kernel/bpf/ringbuf.c): those up to consumer_pos's, and two more. */
static int ringbuf_meta(const struct btf *btf, __u64 *pages)
{
	int id = btf__find_by_name_kind(btf, "bpf_ringbuf", BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_member *m;
	__u16 i;

	for (i = 0, m = t ? btf_members(t) : NULL; t && i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "consumer_pos")) {
			*pages = btf_member_bit_offset(t, i) / 8 / XRL_PAGE + 2;
			return 0;
		}
	return -ENOENT;
}

static int kernel_sizes(struct kernel_sizes *k, char *err, size_t len)
{
	static const char *const names[] = { "bpf_htab",  "bucket",	   "htab_elem",
					     "bpf_array", "lpm_trie_node", "bpf_ringbuf_map" };
	__u64 *v[] = { &k->htab, &k->bucket, &k->htab_elem, &k->array, &k->trie_node, &k->ringbuf_map };
	struct btf *btf = btf__load_vmlinux_btf();
	size_t i;
	int ret = 0;

	if (!btf)
		return xrl_fail(-errno, err, len, "cannot read the kernel's BTF (/sys/kernel/btf/vmlinux): %s",
				strerror(errno));
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && !ret; i++) {
		int id = btf__find_by_name_kind(btf, names[i], BTF_KIND_STRUCT);
		long sz = id > 0 ? btf__resolve_size(btf, id) : -ENOENT;

		if (sz <= 0)
			ret = xrl_fail(-ENOENT, err, len, "the kernel's BTF has no struct %s", names[i]);
		else
			*v[i] = (__u64)sz;
	}
	if (!ret && ringbuf_meta(btf, &k->ringbuf_meta))
		ret = xrl_fail(-ENOENT, err, len, "the kernel's BTF has no struct bpf_ringbuf with a consumer_pos");
	btf__free(btf);
	return ret;
}

static __u64 roundup_pow2(__u64 v)
{
	__u64 p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* One map, as the kernel accounts it (6.x map_mem_usage). */
static __u64 map_bytes(const struct bpf_map *m, const struct kernel_sizes *k, int ncpus, __u32 entries)
{
	__u64 key = bpf_map__key_size(m), value = bpf_map__value_size(m), n = entries, bytes;

	switch (bpf_map__type(m)) {
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_HASH:
		bytes = k->htab + k->bucket * roundup_pow2(n) + 4ULL * ncpus * HASHTAB_MAP_LOCK_COUNT;
		bytes += (k->htab_elem + ROUND8(key) + ROUND8(value)) * n;
		if (bpf_map__type(m) == BPF_MAP_TYPE_HASH) /* extra elements, and a pointer each CPU */
			bytes += (k->htab_elem + ROUND8(key) + ROUND8(value)) * ncpus + 8ULL * ncpus;
		return bytes;
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PROG_ARRAY:			    /* a pointer a slot: the value, rounded to 8 */
		if (bpf_map__map_flags(m) & BPF_F_MMAPABLE) /* the header and the values, each in whole pages */
			return PAGE_UP(k->array) + PAGE_UP(ROUND8(value) * n);
		return k->array + ROUND8(value) * n;
	case BPF_MAP_TYPE_RINGBUF: /* its pages, and two pointers a data page (mapped twice) */
		return k->ringbuf_map + (k->ringbuf_meta + n / XRL_PAGE) * XRL_PAGE +
		       (k->ringbuf_meta + 2 * (n / XRL_PAGE)) * 8;
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return k->array + 8 * n + ROUND8(value) * n * ncpus;
	case BPF_MAP_TYPE_LPM_TRIE:
		return (k->trie_node + key - 4 + value) * n;
	default:
		return 0;
	}
}

int xrl_sketch_width_check(__u32 width, char *err, size_t len)
{
	if (width < XRL_SKETCH_MIN_WIDTH || width > XRL_SKETCH_MAX_WIDTH || (width & (width - 1)))
		return xrl_fail(
			-EINVAL, err, len,
			"a sketch width of %u is not a power of 2 from %u to %u: give one, e.g. 65536 (the default)",
			width, XRL_SKETCH_MIN_WIDTH, XRL_SKETCH_MAX_WIDTH);
	return 0;
}

int xrl_memory(int ncpus, __u32 max_keys, __u32 prefixes, __u32 dsts, __u32 sketch_width, __u32 cells, __u32 rule_ids,
	       struct xrl_mem *out, char *err, size_t len)
{
	struct xdp_ratelimit_bpf *skel;
	struct kernel_sizes k;
	struct bpf_map *m;
	int ret;

	memset(out, 0, sizeof(*out));
	if (ncpus <= 0 || !max_keys)
		return xrl_fail(-EINVAL, err, len, "need at least one CPU and one key");
	ret = xrl_sketch_width_check(sketch_width, err, len);
	if (ret)
		return ret;
	ret = kernel_sizes(&k, err, len);
	if (ret)
		return ret;
	if (cells < 2 || cells > XRL_MAX_CELLS)
		return xrl_fail(-EINVAL, err, len, "rings of %u cells: a ring has 2 to %u", cells, XRL_MAX_CELLS);
	skel = xdp_ratelimit_bpf__open();
	if (!skel)
		return xrl_fail(-errno, err, len, "cannot open the BPF object: %s", strerror(errno));
	bpf_map__set_value_size(skel->maps.xrl_state, xrl_state_size(cells));
	bpf_map__set_value_size(skel->maps.xrl_rule_stats, xrl_rule_stats_size(cells));
	bpf_map__set_value_size(skel->maps.xrl_scratch, xrl_scratch_size(cells));
	/* The classifier's bitmaps and the rules' maps as a load without rules of several fields sizes them (program.c). */
	bpf_map__set_value_size(skel->maps.xrl_lbvs_bits, 2 * 8);
	bpf_map__set_max_entries(skel->maps.xrl_lbvs_bits, 64);
	bpf_map__set_max_entries(skel->maps.xrl_match_rules, XRL_MATCH_SLOTS_MIN);
	bpf_map__set_max_entries(skel->maps.xrl_match_specs, XRL_MATCH_SLOTS_MIN);
	bpf_object__for_each_map(m, skel->obj)
	{
		__u32 n = bpf_map__max_entries(m);
		struct xrl_mem_map *e;

		if (bpf_map__is_internal(m) || out->n == XRL_MEM_MAPS)
			continue;
		if (m == skel->maps.xrl_state)
			n = max_keys;
		else if (m == skel->maps.xrl_sketch)
			n = XRL_SKETCH_DEPTH * sketch_width;
		else if (m == skel->maps.xrl_latches)
			n = 1U << xrl_latch_bits_for(max_keys, ncpus);
		else if (m == skel->maps.xrl_lpm_ranges)
			n = (__u32)(2 * xrl_lpm_words(prefixes));
		else if (m == skel->maps.xrl_set_items)
			n = (__u32)(2 * XRL_SET_ITEM_WORDS(prefixes));
		else if (m == skel->maps.xrl_dsts)
			n = dsts;
		else if (m == skel->maps.xrl_rule_stats || m == skel->maps.xrl_fleet || m == skel->maps.xrl_windows)
			n = rule_ids;
		e = &out->map[out->n++];
		snprintf(e->name, sizeof(e->name), "%s", bpf_map__name(m));
		e->bytes = map_bytes(m, &k, ncpus, n);
		out->total += e->bytes;
		if (m == skel->maps.xrl_state)
			out->state = e->bytes;
		if (m == skel->maps.xrl_sketch)
			out->sketch = e->bytes;
	}
	out->per_key = (double)out->state / max_keys;
	xdp_ratelimit_bpf__destroy(skel);
	return 0;
}

__u64 xrl_fd_memlock(int fd)
{
	char path[64], line[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}
