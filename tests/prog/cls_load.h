/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * tests/prog/cls_alt.bpf.c loaded with one rule set's structures: LBVS's
 * tables, the scan's rules, the tree. For tests/prog/test_cls_alt.c and
 * bench/classifiers.c; include tests/unit/lbvs_ref.h and cls_tree.h first.
 * Needs root.
 */
#ifndef XRL_TEST_CLS_LOAD_H
#define XRL_TEST_CLS_LOAD_H

#include <errno.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cls_alt.skel.h"

enum { CLS_LBVS, CLS_SCAN, CLS_TREE, CLS_KINDS };

static const char *const cls_kind_name[CLS_KINDS] = { "LBVS", "scan", "tree" };

struct cls_loaded {
	struct cls_alt_bpf *sk;
	int prog[CLS_KINDS];
	__u32 verified[CLS_KINDS];
	int floor; /* xdp_cls_floor: the packet taken, nothing classified */
	int out;
};

/* What an array map of n values of size bytes takes: each value rounded up to 8 bytes. */
static inline __u64 cls_array_bytes(__u64 size, __u64 n)
{
	return (size + 7) / 8 * 8 * n;
}

/* Writes a's words into the mmapable array map m. */
static inline int cls_fill_mmap(struct bpf_map *m, const struct xrl_lbvs_array *a)
{
	size_t len = (size_t)a->n * a->stride * 8, pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t span = (len + pg - 1) / pg * pg;
	void *p;

	if (!len)
		return 0;
	p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(m), 0);
	if (p == MAP_FAILED)
		return -errno;
	memcpy(p, a->w, len);
	munmap(p, span);
	return 0;
}

/* n values of size bytes from v into map m, keys 0 to n - 1, in batches. */
static inline int cls_fill(struct bpf_map *m, const void *v, size_t size, __u32 n)
{
	__u32 *keys, i, done, cnt;
	int err = 0;

	keys = malloc((n ? n : 1) * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		keys[i] = i;
	for (done = 0; done < n && !err; done += cnt) {
		cnt = n - done < 65536 ? n - done : 65536;
		if (bpf_map_update_batch(bpf_map__fd(m), keys + done, (const char *)v + (size_t)done * size, &cnt,
					 NULL))
			err = -errno;
	}
	free(keys);
	return err;
}

static inline int cls_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* The program loaded for b's tables, the rules (n, in bit order) and the tree t: 0 or a negative errno. */
static inline int cls_load(struct cls_loaded *l, const struct xrl_lbvs_set *b, const struct cls_rule *rules, __u32 n,
			   const struct cls_tree *t)
{
	struct bpf_prog_info info;
	struct bpf_program *p[CLS_KINDS];
	__u32 len, k = 0;
	int i, err;

	memset(l, 0, sizeof(*l));
	libbpf_set_print(cls_quiet);
	l->sk = cls_alt_bpf__open();
	if (!l->sk)
		return -errno;
	l->sk->rodata->xrl_lbvs_stride = b->t.bits.stride;
	err = bpf_map__set_value_size(l->sk->maps.xrl_lbvs_bits, b->t.bits.stride * 8);
	err = err ?: bpf_map__set_max_entries(l->sk->maps.xrl_lbvs_bits, b->t.bits.n ? b->t.bits.n : 1);
	err = err ?: bpf_map__set_max_entries(l->sk->maps.cls_rules, n ? n : 1);
	err = err ?: bpf_map__set_max_entries(l->sk->maps.cls_nodes, t->nnodes);
	err = err ?: bpf_map__set_max_entries(l->sk->maps.cls_leaf, t->nleaf ? (__u32)t->nleaf : 1);
	err = err ?: cls_alt_bpf__load(l->sk);
	err = err ?: cls_fill_mmap(l->sk->maps.xrl_lbvs_cls, &b->t.cls);
	err = err ?: cls_fill_mmap(l->sk->maps.xrl_lbvs_bits, &b->t.bits);
	err = err ?: cls_fill(l->sk->maps.cls_rules, rules, sizeof(*rules), n);
	err = err ?: cls_fill(l->sk->maps.cls_nodes, t->nodes, sizeof(*t->nodes), t->nnodes);
	err = err ?: cls_fill(l->sk->maps.cls_leaf, t->leaf, sizeof(*t->leaf), (__u32)t->nleaf);
	if (!err && bpf_map_update_elem(bpf_map__fd(l->sk->maps.cls_cfg), &k, &b->t.cfg, BPF_ANY))
		err = -errno;
	if (err) {
		cls_alt_bpf__destroy(l->sk);
		l->sk = NULL;
		return err;
	}
	l->sk->bss->cls_nrules = n;
	l->out = bpf_map__fd(l->sk->maps.cls_out);
	l->floor = bpf_program__fd(l->sk->progs.xdp_cls_floor);
	p[CLS_LBVS] = l->sk->progs.xdp_cls_lbvs;
	p[CLS_SCAN] = l->sk->progs.xdp_cls_scan;
	p[CLS_TREE] = l->sk->progs.xdp_cls_tree;
	for (i = 0; i < CLS_KINDS; i++) {
		l->prog[i] = bpf_program__fd(p[i]);
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(l->prog[i], &info, &len))
			l->verified[i] = info.verified_insns;
	}
	return 0;
}

static inline void cls_unload(struct cls_loaded *l)
{
	cls_alt_bpf__destroy(l->sk);
	l->sk = NULL;
}

/* The packets the programs take in turn: n a power of 2, at most CLS_PKTS. */
static inline int cls_set_pkts(struct cls_loaded *l, const struct xrl_lbvs_pkt *pk, __u32 n)
{
	int err = cls_fill(l->sk->maps.cls_pkts, pk, sizeof(*pk), n);

	l->sk->bss->cls_npkts = n;
	l->sk->bss->cls_next = 0;
	return err;
}

/*
 * Runs classifier kind (-1: the floor) `repeat` times, the packets in turn:
 * 0 with its mean ns a run in *ns and the last result in *o, or a negative errno.
 */
static inline int cls_run(struct cls_loaded *l, int kind, __u32 repeat, __u32 *ns, struct cls_out *o)
{
	int fd = kind < 0 ? l->floor : l->prog[kind];
	unsigned char frame[64] = { 0 };
	__u32 k = 0;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = sizeof(frame), .repeat = repeat);

	if (bpf_prog_test_run_opts(fd, &opts))
		return -errno;
	if (ns)
		*ns = opts.duration;
	if (o && bpf_map_lookup_elem(l->out, &k, o))
		return -errno;
	if (o && kind >= 0 && opts.retval != (o->res.n ? 1U /* XDP_DROP */ : 2U /* XDP_PASS */))
		return -EPROTO;
	return 0;
}

#endif /* XRL_TEST_CLS_LOAD_H */
