/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The clocks a packet reads. The window's index and start come from
 * bpf_ktime_get_ns (the product's definition, xrl_now); the coarse clock
 * judges new sources past the cap, and the jiffies only prove that a packet
 * is still inside a bucket already known (see bpf/latch.h).
 */
#ifndef XRL_BPF_CLOCK_H
#define XRL_BPF_CLOCK_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "config.h"

/* The kernel's tick, for reading bpf_jiffies64 as a bound on time; 0 if unknown. */
extern unsigned int CONFIG_HZ __kconfig __weak;

/* The clocks under XRL_CLOCK_TEST; the verifier drops every read of them otherwise. */
volatile __u64 xrl_test_now;
volatile __u64 xrl_test_jiffies;
volatile __u64 xrl_test_coarse;	  /* the coarse clock when set, else xrl_test_now */
volatile __u64 xrl_test_now_step; /* when set, added to xrl_test_now after each read: time passing between reads */

/*
 * A packet's clock reads, each made at most once, on the first path that
 * needs it (0: not read yet): the precise clock for tracked sources, the
 * coarse one for new sources past the cap.
 */
struct xrl_times {
	__u64 precise;
	__u64 coarse;
};

static __always_inline __u64 xrl_now(void)
{
	if (xrl_cfg.clock == XRL_CLOCK_TEST) {
		__u64 t = xrl_test_now;

		if (xrl_test_now_step)
			xrl_test_now = t + xrl_test_now_step;
		return t;
	}
	if (xrl_cfg.clock == XRL_CLOCK_COARSE)
		return bpf_ktime_get_coarse_ns();
	return bpf_ktime_get_ns();
}

/*
 * The coarse clock (the time at the last tick, at most a tick behind), for
 * the path of new sources past the cap: on this rig the precise read costs
 * more than 40 ns a frame, a fifth of that path (see xrl_judge_slow).
 */
static __always_inline __u64 xrl_now_coarse(void)
{
	if (xrl_cfg.clock == XRL_CLOCK_TEST)
		return xrl_test_coarse ? xrl_test_coarse : xrl_test_now;
	return bpf_ktime_get_coarse_ns();
}

/* Inlined by the verifier into one load: the cheap clock, read as a bound only. */
static __always_inline __u64 xrl_jiffies(void)
{
	if (xrl_cfg.clock == XRL_CLOCK_TEST)
		return xrl_test_jiffies;
	return bpf_jiffies64();
}

/* The precise clock, read once a packet. */
static __always_inline __u64 xrl_precise(struct xrl_times *clk)
{
	if (!clk->precise)
		clk->precise = xrl_now();
	return clk->precise;
}

/* The coarse clock, read once a packet. */
static __always_inline __u64 xrl_coarse(struct xrl_times *clk)
{
	if (!clk->coarse)
		clk->coarse = xrl_now_coarse();
	return clk->coarse;
}

#endif /* XRL_BPF_CLOCK_H */
