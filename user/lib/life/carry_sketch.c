// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The sketch carried to another width (--sketch-width): columns copied or folded. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "life/carry_sketch.h"

/* Cell (row, col) of a sketch of width w. */
static struct xrl_sketch_cell *sk_cell(struct xrl_sketch_cell *v, __u32 w, __u32 row, __u32 col)
{
	return &v[(size_t)row * w + col];
}

/* Adds cell b into a: a bucket word of the same epoch sums, a newer one replaces. Another window's is left. */
static void sk_fold(struct xrl_sketch_cell *a, const struct xrl_sketch_cell *b)
{
	int j;

	if (!b->interval_ms)
		return;
	if (!a->interval_ms) {
		*a = *b;
		return;
	}
	if (a->interval_ms != b->interval_ms)
		return;
	for (j = 0; j < 2; j++) {
		__u32 ea = xrl_sketch_word_epoch(a->w[j]), eb = xrl_sketch_word_epoch(b->w[j]);
		__u32 p = xrl_sketch_word_pass(a->w[j]) + xrl_sketch_word_pass(b->w[j]);
		__u32 max = (1U << XRL_SKETCH_PASS_BITS) - 1;

		if (!b->w[j])
			continue;
		if (!a->w[j] || (ea != eb && xrl_sketch_age(eb, ea) < (XRL_SKETCH_EPOCH_MASK + 1) / 2))
			a->w[j] = b->w[j];
		else if (ea == eb)
			a->w[j] = xrl_sketch_word(ea, p < max ? p : max);
	}
}

/*
 * Columns are a hash's low bits, so a wider sketch's column c holds what the
 * narrower one's column c mod width held (copied), and a narrower one's
 * column folds every column that agrees with it in its bits (summed: a
 * source may read more than it passed, never less).
 */
void xrl_sketch_carry(const struct xrl_sketch_cell *o, __u32 ow, struct xrl_sketch_cell *n, __u32 nw)
{
	__u32 r, i;

	memset(n, 0, (size_t)XRL_SKETCH_DEPTH * nw * sizeof(*n));
	for (r = 0; r < XRL_SKETCH_DEPTH; r++)
		for (i = 0; i < (ow > nw ? ow : nw); i++) {
			if (nw >= ow)
				*sk_cell(n, nw, r, i) = o[(size_t)r * ow + (i & (ow - 1))];
			else
				sk_fold(sk_cell(n, nw, r, i & (nw - 1)), &o[(size_t)r * ow + i]);
		}
}

int xrl_sketch_fill(int from, __u32 old_entries, int to, __u32 new_entries)
{
	__u32 ow = old_entries / XRL_SKETCH_DEPTH, nw = new_entries / XRL_SKETCH_DEPTH, i;
	struct xrl_sketch_cell *o = calloc(old_entries, sizeof(*o)), *n = calloc(new_entries, sizeof(*n));
	int ret = 0;

	if (!o || !n) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < old_entries; i++)
		bpf_map_lookup_elem(from, &i, &o[i]);
	xrl_sketch_carry(o, ow, n, nw);
	for (i = 0; i < new_entries; i++)
		if (n[i].interval_ms && bpf_map_update_elem(to, &i, &n[i], BPF_ANY)) {
			ret = -errno;
			break;
		}
out:
	free(o);
	free(n);
	return ret;
}
