/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The sliding window (Alibaba Sentinel's LeapArray) as plain inline C.
 * Compiled into the XDP program, the userspace aggregator and the unit tests:
 * no libc, no libbpf, no floating point. Times are nanoseconds.
 * Semantics: shared/spec/sliding-window.md.
 */
#ifndef XRL_WINDOW_H
#define XRL_WINDOW_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define XRL_MAX_BUCKETS 16

/*
 * Hides a value from the compiler so a bounds check it can prove redundant
 * stays in the code: the BPF verifier cannot prove it and needs to see it.
 */
#if defined(__bpf__)
#define xrl_barrier_var(v) asm volatile("" : "+r"(v))
#else
#define xrl_barrier_var(v) ((void)0)
#endif

struct xrl_bucket {
	__u64 start;
	__u64 pass;
	__u64 block;
};

struct xrl_ring {
	struct xrl_bucket b[XRL_MAX_BUCKETS];
};

/* What a window sums to at a given time. */
struct xrl_sum {
	__u64 pass;
	__u64 block;
	__u32 buckets;
	__u32 pad;
};

enum xrl_shape_err {
	XRL_SHAPE_OK = 0,
	XRL_SHAPE_NO_BUCKETS,
	XRL_SHAPE_TOO_MANY_BUCKETS,
	XRL_SHAPE_NO_INTERVAL,
	XRL_SHAPE_UNEVEN,
};

/* n buckets over interval ns: valid only when n > 0, interval > 0 and n divides it. */
static inline int xrl_shape_check(__u32 n, __u64 interval)
{
	if (n == 0)
		return XRL_SHAPE_NO_BUCKETS;
	if (n > XRL_MAX_BUCKETS)
		return XRL_SHAPE_TOO_MANY_BUCKETS;
	if (interval == 0)
		return XRL_SHAPE_NO_INTERVAL;
	if (interval % n)
		return XRL_SHAPE_UNEVEN;
	return XRL_SHAPE_OK;
}

/*
 * Where time t falls in a ring of n buckets of blen ns: the slot index
 * (t / blen) % n, and the bucket's start t - t % blen and end. One division
 * and one remainder; the XDP program keeps a slot until t leaves [start, end)
 * and so divides once a bucket, not once a packet.
 */
struct xrl_slot {
	__u64 start;
	__u64 end;
	__u32 idx;
	__u32 pad;
};

static inline void xrl_slot_at(struct xrl_slot *s, __u64 t, __u64 blen, __u32 n)
{
	__u64 q = t / blen;

	s->start = q * blen;
	s->end = s->start + blen;
	s->idx = (__u32)(q % n);
}

/* Whether slot s still holds time t (unsigned: a t before the start does not). */
static inline int xrl_slot_holds(const struct xrl_slot *s, __u64 t)
{
	return t - s->start < s->end - s->start;
}

/* Strictly older than the interval; unsigned, so a start in the future is deprecated too. */
static inline int xrl_deprecated(__u64 now, __u64 start, __u64 interval)
{
	return now - start > interval;
}

/*
 * Whether a bucket counts at now. skew = 0 is the spec's rule for a ring the
 * caller owns. A ring read from another CPU passes skew = bucket length: that
 * CPU may have read the clock a little after us, so a bucket up to one length
 * in our future is its current one, not a stale one.
 */
static inline int xrl_live(__u64 now, __u64 start, __u64 interval, __u64 skew)
{
	if (start > now)
		return start - now < skew;
	return !xrl_deprecated(now, start, interval);
}

/*
 * current(t), for the slot of t: the bucket, reset in place when its slot
 * holds an older start. NULL when the slot holds a newer start (time went
 * backwards): the event must not be counted into that newer bucket.
 */
static inline struct xrl_bucket *xrl_current_at(struct xrl_ring *r, const struct xrl_slot *s)
{
	__u32 i = s->idx;
	struct xrl_bucket *b;

	xrl_barrier_var(i);
	if (i >= XRL_MAX_BUCKETS) /* for the verifier: n <= XRL_MAX_BUCKETS */
		return (struct xrl_bucket *)0;
	b = &r->b[i];
	if (b->start == s->start)
		return b;
	if (b->start > s->start)
		return (struct xrl_bucket *)0;
	b->start = s->start;
	b->pass = 0;
	b->block = 0;
	return b;
}

/* current(t) of a ring of n buckets over interval ns. */
static inline struct xrl_bucket *xrl_current(struct xrl_ring *r, __u32 n,
					     __u64 interval, __u64 t)
{
	struct xrl_slot s;

	xrl_slot_at(&s, t, interval / n, n);
	return xrl_current_at(r, &s);
}

/* Empties every bucket: a ring built for another window shape. */
static inline void xrl_ring_reset(struct xrl_ring *r)
{
	__u32 i;

	for (i = 0; i < XRL_MAX_BUCKETS; i++) {
		r->b[i].start = 0;
		r->b[i].pass = 0;
		r->b[i].block = 0;
	}
}

/* Adds the live buckets of one ring (see xrl_live for skew) into *acc. */
static inline void xrl_ring_add(const struct xrl_ring *r, __u32 n, __u64 interval,
				__u64 now, __u64 skew, struct xrl_sum *acc)
{
	__u32 i;

	for (i = 0; i < XRL_MAX_BUCKETS; i++) {
		if (i >= n)
			break;
		if (!xrl_live(now, r->b[i].start, interval, skew))
			continue;
		acc->pass += r->b[i].pass;
		acc->block += r->b[i].block;
		acc->buckets++;
	}
}

/* sum(now): refresh current(now), then add the live buckets. */
static inline struct xrl_sum xrl_sum(struct xrl_ring *r, __u32 n, __u64 interval, __u64 now)
{
	struct xrl_sum s = { 0, 0, 0, 0 };

	xrl_current(r, n, interval, now);
	xrl_ring_add(r, n, interval, now, 0, &s);
	return s;
}

/*
 * The decision: a threshold of T packets per interval blocks a packet when
 * the pass sum plus this packet would exceed T.
 */
static inline int xrl_over(__u64 pass_sum, __u64 threshold)
{
	return pass_sum + 1 > threshold;
}

#endif /* XRL_WINDOW_H */
