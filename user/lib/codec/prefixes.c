// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include "base/objinfo.h"
#include "codec/prefixes.h"

typedef unsigned __int128 u128;

static void *map_all(int fd, __u64 bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

static __u64 words_of(int fd)
{
	struct bpf_map_info info;

	return xrl_obj_info(fd, &info, sizeof(info)) ? 0 : info.max_entries;
}

int xrl_lpm_map_open(int dir_fd, int ranges_fd, int items_fd, struct xrl_lpm_map *lm)
{
	memset(lm, 0, sizeof(*lm));
	lm->nranges = words_of(ranges_fd);
	lm->nitems = words_of(items_fd) * 8;
	if (!lm->nranges || !lm->nitems)
		return -EINVAL;
	lm->dir = map_all(dir_fd, XRL_LPM_DIR_WORDS * 8ULL);
	lm->ranges = map_all(ranges_fd, lm->nranges * 8);
	lm->items = map_all(items_fd, lm->nitems);
	if (!lm->dir || !lm->ranges || !lm->items) {
		int ret = -errno;

		xrl_lpm_map_close(lm);
		return ret ? ret : -ENOMEM;
	}
	return 0;
}

void xrl_lpm_map_close(struct xrl_lpm_map *lm)
{
	if (lm->dir)
		munmap(lm->dir, XRL_LPM_DIR_WORDS * 8ULL);
	if (lm->ranges)
		munmap(lm->ranges, lm->nranges * 8);
	if (lm->items)
		munmap(lm->items, lm->nitems);
	memset(lm, 0, sizeof(*lm));
}

static u128 pfx_start(const struct xrl_pfx *p)
{
	u128 v = 0;
	int i;

	for (i = 0; i < (p->family == XRL_FAMILY_V4 ? 4 : 16); i++)
		v = v << 8 | p->addr[i];
	return v;
}

/* By family, then address (its family's bytes only), then length: the order flatten needs. */
static int entry_cmp(const void *a, const void *b)
{
	const struct xrl_lpm_entry *x = a, *y = b;
	int c = (int)x->p.family - (int)y->p.family;

	if (!c)
		c = memcmp(x->p.addr, y->p.addr, x->p.family == XRL_FAMILY_V4 ? 4 : 16);
	return c ? c : (int)x->p.plen - (int)y->p.plen;
}

/* The flattened ranges of one family: where each starts, and its rule's slot (0: none). */
struct flat {
	u128 *start;
	__u16 *slot;
	size_t n;
};

/* A range from a on holds slot: adjacent ranges of one slot are one, a range emitted at a again is replaced. */
static void flat_emit(struct flat *f, u128 a, __u16 slot)
{
	if (f->n && f->start[f->n - 1] == a) {
		f->slot[f->n - 1] = slot;
		if (f->n > 1 && f->slot[f->n - 2] == slot)
			f->n--;
		return;
	}
	if (f->n && f->slot[f->n - 1] == slot)
		return;
	f->start[f->n] = a;
	f->slot[f->n++] = slot;
}

/*
 * Prefixes sorted by start, shorter first, nest or follow one another: a
 * stack of the prefixes that hold the sweep's address gives each range the
 * innermost, the longest.
 */
static void flatten(const struct xrl_lpm_entry *e, size_t n, int bits, struct flat *f)
{
	struct {
		u128 end;
		__u16 slot;
	} st[130];
	u128 max = bits == 128 ? ~(u128)0 : ((u128)1 << bits) - 1;
	size_t i, sp = 0;

	f->n = 0;
	flat_emit(f, 0, 0);
	for (i = 0; i < n; i++) {
		u128 s = pfx_start(&e[i].p);
		u128 end = s + (e[i].p.plen == bits ? 0 : (((u128)1 << (bits - e[i].p.plen)) - 1));

		while (sp && st[sp - 1].end < s) {
			sp--;
			flat_emit(f, st[sp].end + 1, sp ? st[sp - 1].slot : 0);
		}
		flat_emit(f, s, e[i].slot);
		/* The same prefix again (the caller should have settled it): the last one holds it. */
		if (sp && st[sp - 1].end == end && i && !entry_cmp(&e[i - 1], &e[i])) {
			st[sp - 1].slot = e[i].slot;
			continue;
		}
		st[sp].end = end;
		st[sp++].slot = e[i].slot;
	}
	while (sp) {
		sp--;
		if (st[sp].end != max)
			flat_emit(f, st[sp].end + 1, sp ? st[sp - 1].slot : 0);
	}
}

static void dir_set(__u64 *dir, __u32 word, __u32 chunk, __u32 v)
{
	int sh = 32 * (chunk & 1);

	dir[word] = (dir[word] & ~(0xffffffffULL << sh)) | ((__u64)v << sh);
}

/* One family's flattened ranges, cut by chunk into the directory and set's half of the ranges. */
static int write_chunks(struct xrl_lpm_map *lm, __u8 kind, __u8 set, int v6, const struct flat *f, __u64 *used)
{
	int bits = v6 ? 128 : 32, w = v6 ? 2 : 1;
	__u64 half = lm->nranges / 2, base = set ? half : 0;
	size_t r = 0, j, k;
	__u32 c;

	for (c = 0; c < 65536; c++) {
		u128 cs = (u128)c << (bits - 16), ce = cs + ((u128)1 << (bits - 16));
		__u32 word = XRL_LPM_DIR(kind, set, v6, c);
		__u64 *out;

		while (r + 1 < f->n && f->start[r + 1] <= cs)
			r++;
		/* (The last IPv6 chunk's end, 2^128, wraps to 0: every range left is in it.) */
		for (j = r; j + 1 < f->n && (c == 65535 || f->start[j + 1] < ce); j++)
			;
		if (j == r) {
			dir_set(lm->dir, word, c, f->slot[r] ? XRL_LPM_DIRECT | f->slot[r] : 0);
			continue;
		}
		if (*used + 1 + (j - r + 1) * w > half || base + *used >= XRL_LPM_DIRECT)
			return -ENOSPC;
		dir_set(lm->dir, word, c, (__u32)(base + *used));
		out = &lm->ranges[base + *used];
		*out++ = j - r + 1;
		for (k = r; k <= j; k++) {
			u128 s = k == r ? cs : f->start[k];

			if (!v6) {
				*out++ = XRL_LPM_V4_WORD((__u32)s, f->slot[k]);
			} else {
				*out++ = (__u64)(s >> 48);
				*out++ = ((__u64)s & ((1ULL << 48) - 1)) << 16 | f->slot[k];
			}
		}
		*used += 1 + (j - r + 1) * w;
		r = j;
	}
	return 0;
}

int xrl_lpm_build(struct xrl_lpm_map *lm, __u8 kind, __u8 set, struct xrl_lpm_entry *e, size_t n, __u64 *used)
{
	size_t n4 = 0;
	struct flat f;
	int ret;

	qsort(e, n, sizeof(*e), entry_cmp);
	while (n4 < n && e[n4].p.family == XRL_FAMILY_V4)
		n4++;
	f.start = malloc((2 * n + 2) * sizeof(*f.start));
	f.slot = malloc((2 * n + 2) * sizeof(*f.slot));
	if (!f.start || !f.slot) {
		free(f.start);
		free(f.slot);
		return -ENOMEM;
	}
	flatten(e, n4, 32, &f);
	ret = write_chunks(lm, kind, set, 0, &f, used);
	if (!ret) {
		flatten(e + n4, n - n4, 128, &f);
		ret = write_chunks(lm, kind, set, 1, &f, used);
	}
	free(f.start);
	free(f.slot);
	return ret;
}

void xrl_lpm_clear(struct xrl_lpm_map *lm, __u8 set)
{
	int kind, v6;

	for (kind = 0; kind < 2; kind++)
		for (v6 = 0; v6 < 2; v6++)
			memset(&lm->dir[XRL_LPM_DIR(kind, set, v6, 0)], 0, (1U << 15) * 8);
}

__u32 xrl_lpm_find(const struct xrl_lpm_map *lm, __u8 kind, __u8 set, __u8 family, const __u8 *addr)
{
	return xrl_lpm_lookup(lm->dir, lm->ranges, lm->nranges, kind, set, family == XRL_FAMILY_V6, addr);
}

static int item_bytes(__u8 family)
{
	return family == XRL_FAMILY_V4 ? 5 : 17;
}

int xrl_items_put(struct xrl_lpm_map *lm, __u8 set, const struct xrl_pset *ps, __u64 *used, struct xrl_set *meta)
{
	__u64 half = lm->nitems / 2;
	__u8 *out = lm->items + (set ? half : 0);
	size_t i;

	meta->items = (__u32)*used;
	meta->n4 = meta->n6 = 0;
	if (ps->kind == XRL_PSET_PORTS) {
		meta->used = XRL_SET_USED_PORTS;
		for (i = 0; i < ps->nports; i++) {
			if (*used + 4 > half)
				return -ENOSPC;
			out[*used] = (__u8)(ps->ports[i].lo >> 8);
			out[*used + 1] = (__u8)ps->ports[i].lo;
			out[*used + 2] = (__u8)(ps->ports[i].hi >> 8);
			out[*used + 3] = (__u8)ps->ports[i].hi;
			*used += 4;
			meta->n4++;
		}
		return 0;
	}
	for (i = 0; i < ps->n; i++) {
		int b = item_bytes(ps->v[i].family);

		if (*used + b > half)
			return -ENOSPC;
		memcpy(out + *used, ps->v[i].addr, b - 1);
		out[*used + b - 1] = ps->v[i].plen;
		*used += b;
		if (ps->v[i].family == XRL_FAMILY_V4)
			meta->n4++;
		else
			meta->n6++;
	}
	return 0;
}

int xrl_items_get(const struct xrl_lpm_map *lm, __u8 set, const struct xrl_set *meta, struct xrl_pset *ps)
{
	__u64 half = lm->nitems / 2, at = meta->items;
	const __u8 *in = lm->items + (set ? half : 0);
	__u32 i;

	if (meta->used == XRL_SET_USED_PORTS) {
		ps->kind = XRL_PSET_PORTS;
		for (i = 0; i < meta->n4; i++, at += 4) {
			if (at + 4 > half || xrl_pset_add_ports(ps, (__u32)in[at] << 8 | in[at + 1],
								(__u32)in[at + 2] << 8 | in[at + 3]))
				return -EPROTO;
		}
		return 0;
	}

	for (i = 0; i < meta->n4 + meta->n6; i++) {
		struct xrl_pfx p = { .family = i < meta->n4 ? XRL_FAMILY_V4 : XRL_FAMILY_V6 };
		int b = item_bytes(p.family);

		if (at + b > half)
			return -EPROTO;
		memcpy(p.addr, in + at, b - 1);
		p.plen = in[at + b - 1];
		at += b;
		if (xrl_pset_add(ps, &p, 0))
			return -ENOMEM;
	}
	return 0;
}

bool xrl_pfx_holds(const struct xrl_pfx *p, const __u8 *addr)
{
	int full = p->plen / 8, rest = p->plen % 8;

	if (memcmp(p->addr, addr, full))
		return false;
	return !rest || !((p->addr[full] ^ addr[full]) & (__u8)(0xff << (8 - rest)));
}
